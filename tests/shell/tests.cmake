# The `sluice` shell as a user drives it: -e/-f/stdin scripts with their exit
# codes and error format, and the REPL on a pseudo-terminal (continuation
# prompt, Ctrl-C, Ctrl-D, history, TAB completion). One ctest test per case of
# tests/shell/test_shell.py (python3 standard library only); the case list is
# read from the script, so adding a case_* function there adds a test here.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(SL_SHELL_TEST ${CMAKE_CURRENT_LIST_DIR}/test_shell.py)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${SL_SHELL_TEST})
execute_process(COMMAND ${Python3_EXECUTABLE} ${SL_SHELL_TEST} --list
                OUTPUT_VARIABLE SL_SHELL_CASES OUTPUT_STRIP_TRAILING_WHITESPACE
                COMMAND_ERROR_IS_FATAL ANY)
string(REPLACE "\n" ";" SL_SHELL_CASES "${SL_SHELL_CASES}")
foreach(case IN LISTS SL_SHELL_CASES)
  add_test(NAME shell.${case}
           COMMAND ${Python3_EXECUTABLE} ${SL_SHELL_TEST} --sluice $<TARGET_FILE:sluice> --case ${case})
  set_tests_properties(shell.${case} PROPERTIES TIMEOUT 120 LABELS shell)
endforeach()
