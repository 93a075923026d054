# Communicators across processes (tests/comm/test_comm_procs.c): the test starts children of itself that join
# one id with wk_comm_init_rank. test_comm_procs on the CPU (an id serves its own process only: a child joining
# the parent's id with size 2 times out; size 1 works); test_comm_procs_gpu on the CUDA devices (collectives over
# min(devices, 2) processes, a rank that never joins, a rank that exits after init), skipped (77) without them.
wick_io_test(test_comm_procs ${CMAKE_CURRENT_SOURCE_DIR}/comm/test_comm_procs.c)
set_tests_properties(test_comm_procs PROPERTIES TIMEOUT 300)
add_test(NAME test_comm_procs_gpu COMMAND test_comm_procs WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(test_comm_procs_gpu PROPERTIES ENVIRONMENT "WICK_COMM_BACKEND=cuda" SKIP_RETURN_CODE 77
                     TIMEOUT 600)
