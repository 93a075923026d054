# safetensors.cmake: the safetensors tests: the C test of reader and writer, st_tool (a small program that dumps
# and copies files through wick, for the Python test) and the Python test against the real safetensors library.
wick_io_test(test_safetensors ${CMAKE_CURRENT_SOURCE_DIR}/io/test_safetensors.c)
add_executable(st_tool ${CMAKE_CURRENT_SOURCE_DIR}/io/st_tool.c)
target_compile_options(st_tool PRIVATE ${WICK_WARNINGS})
target_compile_definitions(st_tool PRIVATE _DEFAULT_SOURCE)
target_link_libraries(st_tool PRIVATE wick_static PkgConfig::OPENBLAS PkgConfig::JANSSON Threads::Threads m
                      ${CMAKE_DL_LIBS})
if(WICK_OPENMP)
  target_link_libraries(st_tool PRIVATE OpenMP::OpenMP_C)
endif()
wick_py_test(py_safetensors test_safetensors.py $<TARGET_FILE:st_tool>)
