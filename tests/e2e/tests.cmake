# End-to-end tests: the `sluice` command run as a user runs it, with an
# independent reader of what it wrote.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME e2e.crash_filesystem
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/crash_test.py
          --sluice $<TARGET_FILE:sluice> --sink filesystem --kills 25)
add_test(NAME e2e.crash_print_control
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/crash_test.py
          --sluice $<TARGET_FILE:sluice> --sink print --kills 8)
set_tests_properties(e2e.crash_filesystem e2e.crash_print_control PROPERTIES TIMEOUT 900 LABELS e2e)
add_test(NAME e2e.window_spend
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/window_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(e2e.window_spend PROPERTIES TIMEOUT 300 LABELS e2e)
add_test(NAME e2e.crash_window
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/crash_window_test.py
          --sluice $<TARGET_FILE:sluice> --kills 20)
set_tests_properties(e2e.crash_window PROPERTIES TIMEOUT 900 LABELS e2e)
