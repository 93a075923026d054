# tests/models/tokenizer.cmake: models/'s tokenizer (tokenizer.h) and `wick generate`'s text and sampling:
# py_tokenizer (tok_tool against tokenizers and sentencepiece, vocabularies trained in-process) and py_generate
# (text prompts, sampling options, batch and their errors, on the tiny Llama with a vocabulary attached).
if(TARGET wick_models)
  add_executable(tok_tool ${CMAKE_CURRENT_SOURCE_DIR}/models/tok_tool.c)
  target_compile_options(tok_tool PRIVATE ${WICK_WARNINGS})
  target_compile_definitions(tok_tool PRIVATE _DEFAULT_SOURCE)
  target_include_directories(tok_tool PRIVATE ${PROJECT_SOURCE_DIR}/models)
  target_link_libraries(tok_tool PRIVATE wick_models wick_static PkgConfig::JANSSON)
  if(EXISTS "${WICK_PYTHON}")
    execute_process(COMMAND ${WICK_PYTHON} -c "import tokenizers, sentencepiece, gguf, numpy"
                    RESULT_VARIABLE WICK_TOK_REFERENCE OUTPUT_QUIET ERROR_QUIET)
    if(WICK_TOK_REFERENCE EQUAL 0)
      wick_py_test(py_tokenizer ../models/test_tokenizer.py $<TARGET_FILE:tok_tool>
                   ${CMAKE_CURRENT_SOURCE_DIR}/models/sentences.txt)
      if(TARGET wick_cli)
        wick_py_test(py_generate ../models/test_generate.py $<TARGET_FILE:wick_cli> $<TARGET_FILE:tok_tool>)
      endif()
    else()
      message(STATUS "${WICK_PYTHON} lacks tokenizers, sentencepiece, gguf or numpy (scripts/py-env.sh): "
                     "py_tokenizer and py_generate are not built")
    endif()
  endif()
endif()
