#!/usr/bin/env python3
"""test_streams.py: wick.Stream, wick.Event, wick.capture and Tensor.write_async / to_host_async on the CPU (no GPU:
tests/py/test_streams_torch.py is the device test). Streams made, borrowed and closed; `with stream:` as the
thread's current stream (nested, restored after an exception, other threads unaffected); events (elapsed_ms >= 0,
query, sync, waits); capture refused with WK_ERR_UNSUPPORTED and the current stream restored; bad arguments as
WickError (or ValueError for a closed handle); async round trips of several dtypes, strided, empty and
block-quantized tensors. Prints "N passed, M failed"; exit status 1 on any failure."""
import gc
import sys
import threading

import ml_dtypes
import numpy as np

import wick

from checks import check, run, summary, raises_wick as raises

RNG = np.random.default_rng()
NP = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "u8": np.uint8, "f16": np.float16}


def value_error(fn, what):
    try:
        fn()
    except ValueError:
        return check(True, what)
    check(False, f"{what}: no ValueError")


def test_streams():
    s = wick.Stream("cpu")
    check(s.device == "cpu" and s.native == 0, "a new CPU stream: device cpu, native handle 0")
    check(s.query() is True, "a CPU stream is always idle")
    s.sync()
    d = wick.Stream.default("cpu")
    check(d == wick.current_stream("cpu") and d != s, "the thread's current stream starts as the default")
    check(d.native == 0 and "cpu" in repr(d), "the default stream's handle and repr")
    d.close()  # the library's: nothing happens
    d.sync()
    check(wick.Stream.default() == d, "closing the default stream does nothing")
    s.close()
    s.close()  # twice: nothing
    value_error(s.sync, "a closed stream is refused")
    check(repr(s) == "wick.Stream(closed)", "a closed stream's repr")
    for _ in range(64):  # handles freed by the garbage collector
        wick.Stream("cpu").query()
    gc.collect()


def test_current():
    d, s1, s2 = wick.Stream.default(), wick.Stream(), wick.Stream()
    seen = {}

    def other_thread():
        seen["cur"] = wick.current_stream()

    with s1 as entered:
        check(entered is s1 and wick.current_stream() is s1, "with s1: s1 is current (the same object)")
        with s2:
            check(wick.current_stream() is s2, "nested with s2: s2 is current")
            x = wick.add(wick.ones(3), 2.0)  # ops run as usual on the current stream
            check(np.array_equal(x.numpy(), [3, 3, 3]), "an op inside the block")
            with s2:  # the same stream entered twice
                check(wick.current_stream() is s2, "s2 entered again")
            check(wick.current_stream() is s2, "s2 still current after its inner block")
        check(wick.current_stream() is s1, "after the nested block: s1 again")
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        check(seen["cur"] == d, "another thread's current stream stays the default")
    check(wick.current_stream() == d, "after the block: the default again")
    try:
        with s1:
            raise KeyError("boom")
    except KeyError:
        pass
    check(wick.current_stream() == d, "an exception in the block restores the previous stream")
    s3 = wick.Stream()
    with s3:
        s3.close()  # the thread falls back to the default at once
        check(wick.current_stream() == d, "closing the current stream: the default is current")
    check(wick.current_stream() == d, "leaving the closed stream's block: the default")
    s4, s5 = wick.Stream(), wick.Stream()
    with s4:
        with s5:
            s4.close()  # the stream to restore is gone: the default comes back instead
        check(wick.current_stream() == d, "leaving a block whose previous stream was closed: the default")
    check(wick.current_stream() == d, "and after the outer block")


def test_events():
    s = wick.Stream()
    start, end = wick.Event("cpu", timing=True), wick.Event(timing=True)
    check(end.query() is True, "an event never recorded counts as reached")
    end.sync()
    start.record(s)
    a = wick.rand_uniform((256, 256), seed=3)
    for _ in range(4):
        a = wick.matmul(a, a) * 0.01
    end.record(s)
    end.sync()
    check(end.query() is True, "query after sync")
    ms = start.elapsed_ms(end)
    check(ms >= 0.0, f"elapsed_ms >= 0 ({ms})")
    back = end.elapsed_ms(start)
    check(abs(back + ms) <= 1e-3 * max(ms, 1.0), f"elapsed_ms the other way is negated ({back} vs {ms})")
    with s:
        e = wick.Event().record()  # the current stream
        s.wait(e)
        check(e.query(), "an event recorded on the current stream")
    r = s.record(timing=True)
    check(isinstance(r, wick.Event) and r.elapsed_ms(r) == 0.0, "Stream.record gives a recorded event")
    plain, never = wick.Event(), wick.Event(timing=True)
    plain.record()
    raises("WK_ERR_INVALID_ARGUMENT", lambda: start.elapsed_ms(plain), "elapsed_ms without timing", "TIMING")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: start.elapsed_ms(never), "elapsed_ms of an unrecorded event",
           "never recorded")
    wick.Stream.default().wait(never)  # never recorded: no wait
    with wick.Event() as closing:
        closing.record()
    value_error(closing.query, "a closed event is refused")
    closing.close()


def test_capture():
    s, d = wick.Stream(), wick.Stream.default()
    x = wick.ones(4)
    try:
        with wick.capture(s) as g:
            wick.exp(x)
        check(False, "capture on the CPU raises")
    except wick.WickError as e:
        check(e.status == "WK_ERR_UNSUPPORTED" and "capture" in e.message, f"capture on the CPU: {e}")
    check(wick.current_stream() == d, "a refused capture leaves the default current")
    raises("WK_ERR_UNSUPPORTED", lambda: wick.capture(d).__enter__(), "capture on the default stream of the CPU")
    value_error(wick.Graph().launch, "launching a graph never captured")
    with wick.Graph() as g:
        g.close()


def test_bad_arguments():
    raises("WK_ERR_UNSUPPORTED", lambda: wick.Stream.from_native("cpu", 0x1234), "from_native on the CPU",
           "native")

    class Foreign:
        cuda_stream = 0x1234
    raises("WK_ERR_UNSUPPORTED", lambda: wick.Stream.from_native("cpu", Foreign()), "from_native of an object",
           "native")
    raises("WK_ERR_DEVICE", lambda: wick.Stream("tpu:0"), "a stream on an unknown device", "tpu")
    raises("WK_ERR_DEVICE", lambda: wick.Event("tpu:0"), "an event on an unknown device", "tpu")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.Stream().wait(None), "wait on no event", "stream_wait")
    value_error(lambda: wick.current_stream().wait(_closed_event()), "waiting on a closed event")


def _closed_event():
    e = wick.Event()
    e.close()
    return e


def test_async_copies():
    s = wick.Stream()
    with s:
        for dt in ("f32", "f64", "i64", "u8", "f16", "bf16"):
            npdt = ml_dtypes.bfloat16 if dt == "bf16" else NP[dt]
            src = (RNG.uniform(0, 100, (5, 7))).astype(npdt)
            t = wick.zeros((5, 7), dt)
            t.write_async(src)
            back = t.to_host_async()
            e = wick.Event().record()
            e.sync()
            check(back.dtype == src.dtype and np.array_equal(back, src), f"{dt}: write_async / to_host_async")
        into = np.zeros((7, 5), np.float32)
        t = wick.from_numpy(RNG.standard_normal((5, 7)).astype(np.float32))
        got = t.T.to_host_async(into)
        s.sync()
        check(got is into and np.array_equal(into, t.numpy().T), "to_host_async of a transposed view, into a")
        empty = wick.zeros((0, 3))
        empty.write_async(np.zeros((0, 3), np.float32))
        check(empty.to_host_async().shape == (0, 3), "empty tensors")
        blocks = RNG.integers(0, 256, (2, 34), dtype=np.uint8)
        blocks[:, 0:2] = np.frombuffer(np.float16(0.5).tobytes(), np.uint8)  # finite q8_0 scales
        q = wick.from_blocks(blocks, "q8_0", (2, 32))
        raw = q.to_host_async()
        s.sync()
        check(np.array_equal(raw, blocks.ravel()), "q8_0: raw blocks to the host")
        q.write_async(np.zeros(68, np.uint8))
        check(not q.to_host_async().any(), "q8_0: raw blocks written")
    # refusals: nothing written
    t = wick.ones((2, 3))
    raises("WK_ERR_INVALID_ARGUMENT", lambda: t.write_async(np.zeros((2, 3), np.float64)), "write_async f64 into f32",
           "float32")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: t.write_async([1, 2, 3, 4, 5, 6]), "write_async of a list", "list")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: t.write_async(np.zeros((3, 3), np.float32)), "write_async of 9 values",
           "tensor_write_async")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: t.write_async(np.zeros((3, 2), np.float32).T),
           "write_async from a Fortran-order array", "C-contiguous")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: t.T.write_async(np.zeros((3, 2), np.float32)),
           "write_async into a transposed view", "contiguous")
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.from_dlpack(ro).write_async(np.ones((2, 3), np.float32)),
           "write_async into a read-only tensor", "read-only")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: t.to_host_async(np.zeros(5, np.float32)), "to_host_async into 5 values",
           "tensor_to_host_async")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: t.to_host_async(ro), "to_host_async into a read-only array", "writable")
    check(np.array_equal(t.numpy(), np.ones((2, 3))), "the refusals wrote nothing")


run([test_streams, test_current, test_events, test_capture, test_bad_arguments, test_async_copies])
sys.exit(summary())
