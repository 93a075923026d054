# The Python package (python/wick): every op family against numpy, numpy round trips, the file wrappers and
# `pip install ./python` (tests/py/test_package.py); DLPack with numpy 2.x on the CPU, zero-copy both ways
# (tests/py/test_dlpack_numpy.py).
wick_py_test(py_package test_package.py)
wick_py_test(py_dlpack_numpy test_dlpack_numpy.py)
# Streams, events, graph capture and asynchronous copies through the package on the CPU
# (tests/py/test_streams.py); the device test with PyTorch's streams is tests/py/test_streams_torch.py.
wick_py_test(py_streams test_streams.py)
# The same with PyTorch on cuda:0 (wick on torch's own stream): skipped (77) without torch or a GPU, so it runs
# where WICK_PYTHON has torch, e.g. -DWICK_PYTHON=/opt/torch/.venv/bin/python3 on the GPU machine.
wick_py_test(py_streams_torch test_streams_torch.py)
if(TEST py_streams_torch)
  set_tests_properties(py_streams_torch PROPERTIES SKIP_RETURN_CODE 77)
endif()
