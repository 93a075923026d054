"""checks.py: the counting shared by the scripts of tests/py/ (each imports it from its own directory).

check(cond, what) counts a pass, or a failure printed as "FAIL: what"; fail(what) counts a failure;
raises_wick(status, fn, what, needle) checks that fn() raises wick.WickError with that status (and a message naming
needle); run(tests) calls each callable, an exception counting as one failure with its traceback; summary() prints
"N passed, M failed" and returns the exit status: 1 on any failure or when nothing passed, else 0.
passed() and failed() give the counts so far."""
import sys
import traceback

_counts = {"passed": 0, "failed": 0}


def check(cond, what):
    """Counts cond as a pass or a failure (printing "FAIL: what"); returns whether it passed."""
    if cond:
        _counts["passed"] += 1
        return True
    _counts["failed"] += 1
    print("FAIL:", what, flush=True)
    return False


def fail(what):
    check(False, what)


def raises_wick(status, fn, what, needle=None):
    """fn() raises wick.WickError with status, and a message (that names needle, when given)."""
    import wick  # the scripts that call this have it on their path

    try:
        fn()
    except wick.WickError as e:
        ok = e.status == status and e.message and (needle is None or needle in e.message)
        return check(ok, f"{what}: {e.status} {e.message!r}, expected {status} naming {needle!r}")
    return check(False, f"{what}: no WickError ({status} expected)")


def run(tests):
    for t in tests:
        try:
            t()
        except Exception:
            fail(f"{getattr(t, '__name__', t)} raised:")
            traceback.print_exc()
            sys.stderr.flush()


def passed():
    return _counts["passed"]


def failed():
    return _counts["failed"]


def summary():
    print(f"{passed()} passed, {failed()} failed", flush=True)
    return 1 if failed() or not passed() else 0
