# tests/models/llama.cmake: `wick generate` (models/llama.h) against transformers' logits and greedy tokens of the
# tiny Llama in tests/models/tiny_llama/ (Hugging Face directory and GGUF twins), and its error paths, on the CPU.
if(TARGET wick_models AND TARGET wick_cli AND EXISTS "${WICK_PYTHON}")
  execute_process(COMMAND ${WICK_PYTHON} -c "import numpy, gguf, safetensors" RESULT_VARIABLE WICK_LLAMA_NUMPY OUTPUT_QUIET ERROR_QUIET)
  if(WICK_LLAMA_NUMPY EQUAL 0)
    wick_py_test(py_llama ../models/test_llama.py $<TARGET_FILE:wick_cli>)
    # the CPU's quantized products with x unrounded: the test compares with a twin of dequantized weights at 9e-7
    set_property(TEST py_llama APPEND PROPERTY ENVIRONMENT "WICK_CPU_MATMUL_Q=f32")
  endif()
endif()
