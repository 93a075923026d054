# The communicators and collectives (tests/comm/test_comm.c): every collective, dtype, op and root on 1..4 ranks
# of the CPU communicator, driven by a thread per rank and by one thread in groups, the argument errors, and the
# failures (timeouts, mismatches, abort). test_comm_gpu runs the same program over the CUDA GPUs (as many ranks as
# GPUs; exit 77, skipped, without a GPU or NCCL).
wick_io_test(test_comm ${CMAKE_CURRENT_SOURCE_DIR}/comm/test_comm.c)
target_include_directories(test_comm PRIVATE ${PROJECT_SOURCE_DIR}/include)
# The reference and the checks run over millions of elements: optimised even in Debug builds (still instrumented
# by the sanitizers), so the CPU run stays within seconds on a 2-core machine under ASan.
target_compile_options(test_comm PRIVATE -O2)
set_tests_properties(test_comm PROPERTIES TIMEOUT 300 ENVIRONMENT "WICK_COMM_BACKEND=cpu")
add_test(NAME test_comm_gpu COMMAND test_comm)
set_tests_properties(test_comm_gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT "WICK_COMM_BACKEND=cuda")
