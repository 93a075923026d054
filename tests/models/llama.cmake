# tests/models/llama.cmake: `wick generate` (models/llama.h) against transformers' logits and greedy tokens of the
# tiny Llama in tests/models/tiny_llama/ (Hugging Face directory and GGUF twins), and its error paths, on the CPU.
if(TARGET wick_models AND TARGET wick_cli AND EXISTS "${WICK_PYTHON}")
  execute_process(COMMAND ${WICK_PYTHON} -c "import numpy, gguf, safetensors" RESULT_VARIABLE WICK_LLAMA_NUMPY OUTPUT_QUIET ERROR_QUIET)
  if(WICK_LLAMA_NUMPY EQUAL 0)
    # (the test sets WICK_CPU_MATMUL_Q / WICK_GPU_MATMUL_Q itself: x unrounded against the dequantized twin, then
    # the default path)
    wick_py_test(py_llama ../models/test_llama.py $<TARGET_FILE:wick_cli>)
  endif()
endif()
