# gguf.cmake: the GGUF reader and writer's tests: test_gguf (hand-built files, every hostile class, the writer's
# round trip) and py_gguf (files made and read by gguf-py against gguf_tool, a dump/copy program over the C API).
wick_io_test(test_gguf ${CMAKE_CURRENT_SOURCE_DIR}/io/test_gguf.c)
# gguf_tool prints type names and sizes with the reader's own hidden helpers: it links the static library.
wick_test_program(gguf_tool INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/io/gguf_tool.c)
wick_py_test(py_gguf test_gguf.py $<TARGET_FILE:gguf_tool>)
