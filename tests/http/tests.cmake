# The http-sink connector against a real HTTP receiver (tests/http/receiver.py,
# Python's standard library), label http. Each takes a few seconds.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
# rows: datagen -> http-sink in single mode (idempotency keys) and batch mode
# faults: 500 / 429 / a timeout retried; a 400 fails at once, not retried
# crash: 10 SIGKILLs, the receiver honours keys: every row exactly once
# control: the same, keys ignored: duplicates must show (the check can fail)
# batch: the SIGKILL loop in batch mode: nothing missing (at-least-once)
foreach(mode rows faults crash control batch)
  add_test(NAME http.${mode}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/http_test.py
            --sluice $<TARGET_FILE:sluice> --mode ${mode} --kills 10)
  set_tests_properties(http.${mode} PROPERTIES LABELS http TIMEOUT 300)
endforeach()
