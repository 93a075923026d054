# DLPack import/export and wk_tensor_wrap on the CPU (tests/io/test_dlpack.c); wick_dlpack.h against the
# published dlpack.h (scripts/py-env.sh unpacks it into .venv/include), field by field.
wick_io_test(test_dlpack ${CMAKE_CURRENT_SOURCE_DIR}/io/test_dlpack.c)
target_include_directories(test_dlpack PRIVATE ${PROJECT_SOURCE_DIR}/include)
set(WICK_DLPACK_H_DIR "${PROJECT_SOURCE_DIR}/.venv/include" CACHE PATH "Directory holding dlpack/dlpack.h")
if(EXISTS "${WICK_DLPACK_H_DIR}/dlpack/dlpack.h")
  add_executable(test_abi_dlpack ${CMAKE_CURRENT_SOURCE_DIR}/abi/dlpack_abi_main.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/abi/dlpack_abi_real.c ${CMAKE_CURRENT_SOURCE_DIR}/abi/dlpack_abi_ours.c)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/abi/dlpack_abi_real.c PROPERTIES
                              INCLUDE_DIRECTORIES "${WICK_DLPACK_H_DIR}")
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/abi/dlpack_abi_ours.c PROPERTIES
                              INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include")
  add_test(NAME test_abi_dlpack COMMAND test_abi_dlpack)
else()
  message(STATUS "${WICK_DLPACK_H_DIR}/dlpack/dlpack.h not found (scripts/py-env.sh): the DLPack ABI check is not built")
endif()
