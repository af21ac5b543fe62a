# The `sluice` shell as a user drives it: -e/-f/stdin scripts with their exit
# codes and error format, and the REPL on a pseudo-terminal (continuation
# prompt, Ctrl-C, Ctrl-D, history, TAB completion). One ctest test per case of
# tests/shell/test_shell.py (python3 standard library only); the case list is
# read from the script, so adding a case_* function there adds a test here.
find_package(Python3 COMPONENTS Interpreter REQUIRED)

# sl_python_cases(<var> <script>): the cases <script> lists with --list (one
# a line) as a list in <var>; CMake configures again when the script changes.
# tests/server/shellclient.cmake uses it too.
function(sl_python_cases var script)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${script})
  execute_process(COMMAND ${Python3_EXECUTABLE} ${script} --list
                  OUTPUT_VARIABLE cases OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  string(REPLACE "\n" ";" cases "${cases}")
  set(${var} ${cases} PARENT_SCOPE)
endfunction()

set(SL_SHELL_TEST ${CMAKE_CURRENT_LIST_DIR}/test_shell.py)
sl_python_cases(SL_SHELL_CASES ${SL_SHELL_TEST})
foreach(case IN LISTS SL_SHELL_CASES)
  add_test(NAME shell.${case}
           COMMAND ${Python3_EXECUTABLE} ${SL_SHELL_TEST} --sluice $<TARGET_FILE:sluice> --case ${case})
  set_tests_properties(shell.${case} PROPERTIES TIMEOUT 120 LABELS shell)
endforeach()

# Live results: rows as they arrive, Ctrl-C, the result modes (the
# full-screen table view checked through the pyte terminal emulator),
# print-sink rows above the prompt, --format csv|tsv|json. Debian's python3
# runs them: the emulator is Debian's python3-pyte (scripts/setup), which a
# python3 of its own (pyenv) on PATH would not see.
find_program(SL_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(SL_LIVE_TEST ${CMAKE_CURRENT_LIST_DIR}/test_live.py)
sl_python_cases(SL_LIVE_CASES ${SL_LIVE_TEST})
foreach(case IN LISTS SL_LIVE_CASES)
  add_test(NAME shell.live.${case}
           COMMAND ${SL_DEBIAN_PYTHON} ${SL_LIVE_TEST} --sluice $<TARGET_FILE:sluice> --case ${case})
  set_tests_properties(shell.live.${case} PROPERTIES TIMEOUT 120 LABELS shell)
endforeach()

# Jobs as the shell shows them, -f and Ctrl-C, SHOW CREATE as text
# (tests/shell/test_jobs.py, which reuses test_shell.py's helpers).
set(SL_JOBS_TEST ${CMAKE_CURRENT_LIST_DIR}/test_jobs.py)
sl_python_cases(SL_JOBS_CASES ${SL_JOBS_TEST})
foreach(case IN LISTS SL_JOBS_CASES)
  add_test(NAME shell.jobs.${case}
           COMMAND ${Python3_EXECUTABLE} ${SL_JOBS_TEST} --sluice $<TARGET_FILE:sluice> --case ${case})
  set_tests_properties(shell.jobs.${case} PROPERTIES TIMEOUT 120 LABELS shell)
endforeach()
