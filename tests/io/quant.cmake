# The block-quantized dtypes against gguf-py (tests/py/test_quant.py): dequantize and quantize bit for bit, views,
# row lookup, the K types' round-trip error, GGUF files; on every device found. Exit 77 (skipped) without gguf.
wick_py_test(py_quant test_quant.py)
if(TEST py_quant)
  set_tests_properties(py_quant PROPERTIES SKIP_RETURN_CODE 77)
  # the exact path (x unrounded): the test's tolerances are f32's
  set_property(TEST py_quant APPEND PROPERTY ENVIRONMENT "WICK_CPU_MATMUL_Q=f32;WICK_GPU_MATMUL_Q=f32")
  # the default path: one row of x rounded to 8-bit blocks, and blocks of x holding inf or NaN
  wick_py_test(py_quant_default test_quant.py --default-path)
  set_tests_properties(py_quant_default PROPERTIES SKIP_RETURN_CODE 77)
endif()
