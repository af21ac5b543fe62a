# The Flink differential test (label flink): every case in tests/flink/cases
# runs in Sluice and in Apache Flink SQL 2.2 (one JVM for all) and the
# results must be equal (tests/flink/flinkdiff says how they are compared).
# Skipped (exit 77) when Java, mvn or the Flink artifacts are unavailable,
# except under CI=true; scripts/test fetches them first. About 1-3 min on
# 2 cores, most of it Flink.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME flink.diff
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/flinkdiff run --sluice $<TARGET_FILE:sluice>)
set_tests_properties(flink.diff PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77 LABELS flink)
# The comparison itself catches each kind of difference (no Java needed).
add_test(NAME flink.diff_selftest
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/flinkdiff selftest)
set_tests_properties(flink.diff_selftest PROPERTIES TIMEOUT 60)
