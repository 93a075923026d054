"""Streams, events and graphs (wick.h "streams, events, graphs"): wick.Stream, wick.Event, wick.capture / Graph.

Each object owns one wick handle, freed once by close(), by the end of its with block (events and graphs) or when
it is garbage collected. A Stream used as a context manager is the calling thread's current stream of its device
for the block (every op, transfer and allocation of the thread on that device is queued on it), and the previous
one comes back at the end. On the CPU ops run as they are called: streams are always idle, events record the
host's clock, from_native and capture raise WickError WK_ERR_UNSUPPORTED.
"""
import ctypes
import threading
import weakref
from ctypes import byref

from ._lib import WickError, device as _device, lib, out

_owned = weakref.WeakValueDictionary()  # wk_stream * -> the Stream owning it (current_stream's lookup)


def _h(obj, cls):
    """obj's live handle (None stays None: NULL); TypeError for another type, ValueError once closed."""
    if obj is None:
        return None
    if not isinstance(obj, cls):
        raise TypeError(f"expected a wick.{cls.__name__}, got {type(obj).__name__}")
    if not obj._h:
        raise ValueError(f"wick.{cls.__name__}: {cls._closed}")
    return obj._h


def _flag(fn, h):
    """fn(h, &flag)'s flag (the stream and event queries)."""
    flag = ctypes.c_bool()
    fn(h, byref(flag))
    return flag.value


def _destroy_stream(h):
    try:
        lib.wk_stream_destroy(h)
    except WickError:  # a stream collected mid-capture: the handle is lost rather than the capture broken
        pass


class Stream:
    """An in-order queue of work on one device. Stream(device) makes one (wk_stream_create);
    Stream.from_native(device, handle) adopts a CUstream / hipStream_t the caller owns (e.g. PyTorch's
    torch.cuda.Stream().cuda_stream: keep the foreign stream alive until this one is closed);
    Stream.default(device) and current_stream(device) give the library's (never destroyed)."""

    def __init__(self, device="cpu"):
        h = out()
        lib.wk_stream_create(_device(device), byref(h))
        self._own(h.value, True)

    @classmethod
    def from_native(cls, device, handle):
        """Adopts a native stream: an int, or an object with .cuda_stream (torch.cuda.Stream) or .ptr (CuPy)."""
        handle = getattr(handle, "cuda_stream", getattr(handle, "ptr", handle))
        h = out()
        lib.wk_stream_from_native(_device(device), ctypes.c_size_t(int(handle)), byref(h))
        s = cls.__new__(cls)
        s._own(h.value, True)
        return s

    @classmethod
    def default(cls, device="cpu"):
        return cls._borrow(lib.wk_stream_default(_device(device)))

    @classmethod
    def _borrow(cls, h):
        s = _owned.get(h)
        if s is None:
            s = cls.__new__(cls)
            s._own(h, False)
        return s

    def _own(self, h, owned):
        self._h, self._entered = h, threading.local()
        self._dev = lib.wk_stream_device(h)  # kept past close() for a with block's exit
        if owned:
            _owned[h] = self
            self._finalizer = weakref.finalize(self, _destroy_stream, h)

    _closed = "the stream is closed"

    def close(self):
        """Releases the handle (work queued on it completes); the default stream: nothing. Capturing: WickError."""
        fin = getattr(self, "_finalizer", None)
        if fin is not None and fin.alive:
            lib.wk_stream_destroy(self._h)
            fin.detach()
            self._h = None

    @property
    def device(self):
        return lib.wk_device_name(self._dev).decode()

    @property
    def native(self):
        """The CUstream / hipStream_t as an int (0 on the CPU)."""
        return lib.wk_stream_native(_h(self, Stream))

    def sync(self):
        """Waits until the work queued so far has finished (device-side faults surface here)."""
        lib.wk_stream_sync(_h(self, Stream))

    def query(self):
        """Whether the work queued so far has finished (never blocks)."""
        return _flag(lib.wk_stream_query, _h(self, Stream))

    def wait(self, event):
        """Work queued here from now on waits for event's mark (the host does not block)."""
        lib.wk_stream_wait(_h(self, Stream), _h(event, Event))

    def record(self, timing=False):
        """A new Event recorded here."""
        e = Event(self.device, timing=timing)
        e.record(self)
        return e

    def __eq__(self, other):
        return isinstance(other, Stream) and self._h == other._h

    __hash__ = object.__hash__

    def __enter__(self):
        prev = lib.wk_stream_current(self._dev)
        lib.wk_stream_set_current(self._dev, _h(self, Stream))
        stack = getattr(self._entered, "stack", None) or []
        stack.append((prev, _owned.get(prev)))  # the Stream object too: kept alive until the block ends
        self._entered.stack = stack
        return self

    def __exit__(self, *exc):
        prev, obj = self._entered.stack.pop()
        lib.wk_stream_set_current(self._dev, None if obj is not None and not obj._h else prev)  # closed: default

    def __repr__(self):
        return f"wick.Stream(device={self.device}, native=0x{self.native:x})" if self._h else "wick.Stream(closed)"


def current_stream(device="cpu"):
    """The calling thread's current stream of device (its Stream object when this package made it)."""
    return Stream._borrow(lib.wk_stream_current(_device(device)))


class Event:
    """A mark in a stream's work. timing=True: usable with elapsed_ms (costs a little at each record)."""

    def __init__(self, device="cpu", timing=False):
        h = out()
        lib.wk_event_create(_device(device), 1 if timing else 0, byref(h))
        self._h = h.value
        self._finalizer = weakref.finalize(self, lib.wk_event_destroy, self._h)

    _closed = "the event is closed"

    def close(self):
        if self._finalizer.alive:
            self._finalizer()
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def record(self, stream=None):
        """Marks the point after the work queued so far on stream (None: the thread's current stream)."""
        lib.wk_event_record(_h(self, Event), _h(stream, Stream))
        return self

    def sync(self):
        """Blocks until the mark has been reached (an event never recorded: at once)."""
        lib.wk_event_sync(_h(self, Event))

    def query(self):
        """Whether the mark has been reached (never blocks)."""
        return _flag(lib.wk_event_query, _h(self, Event))

    def elapsed_ms(self, end):
        """Milliseconds from this mark to end's (both timing events, end's mark reached)."""
        ms = ctypes.c_float()
        lib.wk_event_elapsed_ms(_h(self, Event), _h(end, Event), byref(ms))
        return ms.value


class Graph:
    """A captured sequence of ops (wick.capture), replayed by launch(). Tensors made during the capture are its
    outputs (refreshed by each replay); tensors it read must stay alive, in place, while it may be replayed."""

    def __init__(self):
        self._h = None
        self._finalizer = None

    _closed = "no graph (the capture has not ended, or the graph is closed)"

    def launch(self, stream=None):
        """Queues one replay on stream (None: the current stream of the graph's device)."""
        lib.wk_graph_launch(_h(self, Graph), _h(stream, Stream))

    def close(self):
        if self._finalizer is not None and self._finalizer.alive:
            self._finalizer()
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class capture:
    """with wick.capture(stream) as g: ... records the thread's work on stream's device into g instead of running
    it (stream becomes the current stream for the block; not the default stream). At the end of the block g holds
    the graph, or WickError is raised with the capture's first failure. An exception in the block ends the
    capture and is raised as is."""

    def __init__(self, stream):
        self.stream, self.graph = stream, Graph()

    def __enter__(self):
        lib.wk_stream_begin_capture(_h(self.stream, Stream))
        return self.graph

    def __exit__(self, exc_type, *exc):
        h = out()
        try:
            lib.wk_stream_end_capture(_h(self.stream, Stream), byref(h))
        except WickError:
            if exc_type is None:
                raise
            return False
        self.graph._h = h.value
        self.graph._finalizer = weakref.finalize(self.graph, lib.wk_graph_destroy, h.value)
        return False
