# The tensor-parallel linear layers (tests/comm/test_tp.c): wk_tp_linear_column (with and without gather) and
# wk_tp_linear_row in f32, f64, bf16, f16 on 1..4 ranks of the CPU communicator, driven by a thread per rank and
# by one thread in a group, against an f64 reference; and their argument errors. test_tp_gpu runs the same
# program over the CUDA GPUs (as many ranks as GPUs, plus a product large enough to be chunked with its
# collectives overlapped; exit 77, skipped, without a GPU or NCCL): ranks on their own threads exchange the gathered
# layer's blocks by the copy engines, ranks in one group through NCCL; test_tp_library_gpu sends every exchange
# through NCCL (WICK_TP_PEER_COPY=0).
wick_io_test(test_tp ${CMAKE_CURRENT_SOURCE_DIR}/comm/test_tp.c)
set_tests_properties(test_tp PROPERTIES TIMEOUT 300 ENVIRONMENT "WICK_COMM_BACKEND=cpu")
add_test(NAME test_tp_gpu COMMAND test_tp)
set_tests_properties(test_tp_gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT "WICK_COMM_BACKEND=cuda")
# The chunked path (a product in chunks, each chunk's collective queued separately) on the CPU communicator and,
# on the GPUs, with the side stream, which the default of one chunk does not take.
add_test(NAME test_tp_chunked COMMAND test_tp)
set_tests_properties(test_tp_chunked PROPERTIES TIMEOUT 300 ENVIRONMENT "WICK_COMM_BACKEND=cpu;WICK_TP_CHUNKS=3")
add_test(NAME test_tp_chunked_gpu COMMAND test_tp)
set_tests_properties(test_tp_chunked_gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "WICK_COMM_BACKEND=cuda;WICK_TP_CHUNKS=4")
add_test(NAME test_tp_library_gpu COMMAND test_tp)
set_tests_properties(test_tp_library_gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "WICK_COMM_BACKEND=cuda;WICK_TP_PEER_COPY=0")
