# The allocation-failure sweep (tests/io/test_alloc_faults.c): only in a WICK_FAULT_INJECTION build, where every
# library allocation can be made to fail; meant for an ASan build (-DWICK_SANITIZE=ON), whose leak check at exit
# covers every N of the sweep.
if(WICK_FAULT_INJECTION)
  wick_io_test(test_alloc_faults INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/io/test_alloc_faults.c)
  target_include_directories(test_alloc_faults PRIVATE ${PROJECT_SOURCE_DIR}/include)
  set_tests_properties(test_alloc_faults PROPERTIES TIMEOUT 900 ENVIRONMENT "OMP_NUM_THREADS=2")
  # The same sweep on the first CUDA GPU (skipped, 77, without one): device allocations there include the GPU
  # backend's scratch (gpu/memory.c wk_gpu_malloc) and page-locked staging.
  add_test(NAME test_alloc_faults_gpu COMMAND test_alloc_faults)
  set_tests_properties(test_alloc_faults_gpu PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
                       ENVIRONMENT "OMP_NUM_THREADS=2;WICK_FAULT_DEVICE=cuda:0")
endif()
