# npy.cmake: the .npy tests: the C test of the reader and writer (every hostile header class, round trips,
# Fortran order), and the numpy interop test, which drives wick through npy_tool (a small C program: copy a
# file through wk_npy_load / wk_npy_save, or print a file's dtype, shape and row-major bytes).
wick_io_test(test_npy ${CMAKE_CURRENT_SOURCE_DIR}/io/test_npy.c)
wick_test_program(npy_tool ${CMAKE_CURRENT_SOURCE_DIR}/io/npy_tool.c)
wick_py_test(py_npy test_npy.py $<TARGET_FILE:npy_tool>)
