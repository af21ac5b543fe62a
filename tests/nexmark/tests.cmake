# Nexmark q0..q23 as written (bench/nexmark/queries), each run with a dump of
# the events it read; the results are compared with the same queries computed
# in Python over the dump (nexmark_test.py). About 30 s (90 s under ASan).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME nexmark.results
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/nexmark_test.py
          --sluice $<TARGET_FILE:sluice> --events 20000)
set_tests_properties(nexmark.results PROPERTIES LABELS nexmark TIMEOUT 600)
