# gguf.cmake: the GGUF reader and writer's tests: test_gguf (hand-built files, every hostile class, the writer's
# round trip) and py_gguf (files made and read by gguf-py against gguf_tool, a dump/copy program over the C API).
wick_io_test(test_gguf ${CMAKE_CURRENT_SOURCE_DIR}/io/test_gguf.c)
add_executable(gguf_tool ${CMAKE_CURRENT_SOURCE_DIR}/io/gguf_tool.c)
target_compile_options(gguf_tool PRIVATE ${WICK_WARNINGS})
target_compile_definitions(gguf_tool PRIVATE _DEFAULT_SOURCE)
target_include_directories(gguf_tool PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(gguf_tool PRIVATE wick_static PkgConfig::OPENBLAS PkgConfig::JANSSON Threads::Threads m
                      ${CMAKE_DL_LIBS})
if(WICK_OPENMP)
  target_link_libraries(gguf_tool PRIVATE OpenMP::OpenMP_C)
endif()
wick_py_test(py_gguf test_gguf.py $<TARGET_FILE:gguf_tool>)
