# wick.h's thread-safety contract under stress (tests/io/test_threads.c): 8 threads race a device's first use,
# share tensors and read their own errors; results must match a single-threaded run. scripts/tsan.sh runs it
# under ThreadSanitizer; WICK_THREADS_DEVICE=cuda:0 runs it on the GPU (exit 77, skipped, where absent).
wick_io_test(test_threads ${CMAKE_CURRENT_SOURCE_DIR}/io/test_threads.c)
set_tests_properties(test_threads PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
