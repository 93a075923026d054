# safetensors.cmake: the safetensors tests: the C test of reader and writer, st_tool (a small program that dumps
# and copies files through wick, for the Python test) and the Python test against the real safetensors library.
wick_io_test(test_safetensors ${CMAKE_CURRENT_SOURCE_DIR}/io/test_safetensors.c)
wick_test_program(st_tool ${CMAKE_CURRENT_SOURCE_DIR}/io/st_tool.c LIBS PkgConfig::JANSSON) # (it writes headers)
wick_py_test(py_safetensors test_safetensors.py $<TARGET_FILE:st_tool>)
