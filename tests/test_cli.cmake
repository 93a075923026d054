# test_cli.cmake: the wick tool: bad usage exits 2 without crashing, the commands run, and every
# --json output is valid JSON Lines ending in a summary record whose counts agree with the exit status.
# cmake -DWICK=<path to wick> -P this
function(run_wick expect_rc)
  execute_process(COMMAND "${WICK}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${rc}" STREQUAL "${expect_rc}")
    message(FATAL_ERROR "wick ${ARGN}: exit ${rc}, expected ${expect_rc}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# Checks that every line of `text` parses as a JSON object; sets `last` to the final line.
function(check_json_lines what text)
  set(n 0)
  while(NOT text STREQUAL "")
    string(FIND "${text}" "\n" nl)
    if(nl EQUAL -1)
      message(FATAL_ERROR "${what}: output does not end with a newline")
    endif()
    string(SUBSTRING "${text}" 0 ${nl} line)
    math(EXPR nl "${nl} + 1")
    string(SUBSTRING "${text}" ${nl} -1 text)
    string(JSON type ERROR_VARIABLE jerr TYPE "${line}")
    if(jerr OR NOT type STREQUAL "OBJECT")
      message(FATAL_ERROR "${what}: not a JSON object: ${line} (${jerr})")
    endif()
    math(EXPR n "${n} + 1")
  endwhile()
  if(n EQUAL 0)
    message(FATAL_ERROR "${what}: no output")
  endif()
  set(last "${line}" PARENT_SCOPE)
endfunction()

# Bad usage: a usage message and exit 2, never a crash.
foreach(args IN ITEMS "" "nosuchcommand" "check;--bogus" "check;--seed;12x" "check;--seed;-1" "check;--op"
                      "check;--op;no_such_op" "check;--op;," "check;--device;nosuch:0" "check;--device"
                      "bench;--op;no_such_op" "bench;--device;cuda:99" "bench;--device;rocm:99" "check;--device;rocm:99"
                      "bench;--quick;extra" "info;--x"
                      "devices;--json;--x")
  run_wick(2 ${args})
endforeach()
run_wick(0 help)
run_wick(0 check --help)
run_wick(0 bench --help)

run_wick(0 devices)
run_wick(0 info)
run_wick(0 devices --json)
check_json_lines("devices --json" "${out}")
run_wick(0 info --json)
check_json_lines("info --json" "${out}")
run_wick(0 bench --list)

# check --json on the first op of the table (the whole table is test_parity's job).
run_wick(0 check --list)
string(REGEX MATCH "^[^ \n]+" op "${out}")
if(op)
  execute_process(COMMAND "${WICK}" check --json --seed 7 --op ${op} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  check_json_lines("check --json --op ${op}" "${out}")
  string(JSON failed GET "${last}" failed)
  string(JSON passed GET "${last}" passed)
  if(failed GREATER 0 OR passed EQUAL 0)
    set(want 1)
  else()
    set(want 0)
  endif()
  if(NOT rc EQUAL want)
    message(FATAL_ERROR "check --json --op ${op}: exit ${rc} with ${passed} passed, ${failed} failed")
  endif()
endif()

# bench --json on one small op.
execute_process(COMMAND "${WICK}" bench --quick --json --op add --device cpu RESULT_VARIABLE rc OUTPUT_VARIABLE out)
check_json_lines("bench --quick --json --op add" "${out}")
string(JSON failed GET "${last}" failed)
string(JSON timed GET "${last}" timed)
if(NOT (timed EQUAL 1 AND failed EQUAL 0 AND rc EQUAL 0) AND NOT (failed GREATER 0 AND rc EQUAL 1))
  message(FATAL_ERROR "bench --json --op add: exit ${rc} with ${timed} timed, ${failed} failed")
endif()
message("wick CLI: usage errors, commands and JSON output OK")
