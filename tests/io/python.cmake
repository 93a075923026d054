# The Python package (python/wick): every op family against numpy, numpy round trips, the file wrappers and
# `pip install ./python` (tests/py/test_package.py); DLPack with numpy 2.x on the CPU, zero-copy both ways
# (tests/py/test_dlpack_numpy.py).
wick_py_test(py_package test_package.py)
wick_py_test(py_dlpack_numpy test_dlpack_numpy.py)
# Streams, events, graph capture and asynchronous copies through the package on the CPU
# (tests/py/test_streams.py); the device test with PyTorch's streams is tests/py/test_streams_torch.py.
wick_py_test(py_streams test_streams.py)
