# test_example.cmake: the README's C example, taken from README.md at test time (so the README cannot
# drift from the library), compiled with strict warnings against the built libwick and run.
# cmake -DREADME=... -DWORK_DIR=... -DCC=... -DINCLUDE_DIR=... -DLIB=<libwick.so> [-DFLAGS="..."] -P this
file(READ "${README}" text)
string(FIND "${text}" "```c\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "no ```c block in ${README}")
endif()
math(EXPR start "${start} + 5")
string(SUBSTRING "${text}" ${start} -1 rest)
string(FIND "${rest}" "```" end)
if(end EQUAL -1)
  message(FATAL_ERROR "the ```c block of ${README} is not closed")
endif()
string(SUBSTRING "${rest}" 0 ${end} code)

file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/readme_example.c" "${code}")
get_filename_component(libdir "${LIB}" DIRECTORY)
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(
  COMMAND "${CC}" -std=c11 -Wall -Wextra -Wpedantic -Werror ${flags} -I${INCLUDE_DIR}
          readme_example.c "${LIB}" -Wl,-rpath,${libdir} -lm -o readme_example
  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README example does not compile (${WORK_DIR}/readme_example.c)")
endif()
execute_process(COMMAND "${WORK_DIR}/readme_example" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README example exited with ${rc}")
endif()
