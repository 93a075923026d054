# The CPU's quantized mat-vec (src/cpu/matmul_q*.c) on each instruction set: test_matmul_q_isa checks the integer
# block dots of every set this CPU has against float64 and the portable dots; the matmul_q cases of the parity table
# run once per WICK_CPU_ISA value (a set this CPU lacks runs the best one below it).
wick_io_test(test_matmul_q_isa INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/cpu/test_matmul_q_isa.c
             ${CMAKE_CURRENT_SOURCE_DIR}/cases/quant_ref.c ${CMAKE_CURRENT_SOURCE_DIR}/harness/harness.c)
target_include_directories(test_matmul_q_isa PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/harness)
foreach(isa portable avx2 avxvnni avx512)
  add_test(NAME test_matmul_q_isa_${isa} COMMAND test_matmul_q_isa)
  set_tests_properties(test_matmul_q_isa_${isa} PROPERTIES ENVIRONMENT "WICK_CPU_ISA=${isa}")
  add_test(NAME test_parity_matmul_q_${isa} COMMAND test_parity)
  set_tests_properties(test_parity_matmul_q_${isa} PROPERTIES ENVIRONMENT
    "WICK_CPU_ISA=${isa};WICK_BACKENDS=cpu;WICK_OP=matmul_q")
endforeach()
# WICK_CPU_MATMUL_Q=f32: no integer path; the matmul_q cases within f32's tolerance again.
add_test(NAME test_matmul_q_isa_f32 COMMAND test_matmul_q_isa)
set_tests_properties(test_matmul_q_isa_f32 PROPERTIES ENVIRONMENT "WICK_CPU_MATMUL_Q=f32")
add_test(NAME test_parity_matmul_q_f32 COMMAND test_parity)
set_tests_properties(test_parity_matmul_q_f32 PROPERTIES ENVIRONMENT
  "WICK_CPU_MATMUL_Q=f32;WICK_BACKENDS=cpu;WICK_OP=matmul_q")
