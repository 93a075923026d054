# The Python package (python/wick): every op family against numpy, numpy round trips, the file wrappers and
# `pip install ./python` (tests/py/test_package.py); DLPack with numpy 2.x on the CPU, zero-copy both ways
# (tests/py/test_dlpack_numpy.py).
wick_py_test(py_package test_package.py)
wick_py_test(py_dlpack_numpy test_dlpack_numpy.py)
