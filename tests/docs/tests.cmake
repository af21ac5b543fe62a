# docs.examples: every ```sql example of README.md and docs/*.md runs
# (synopses and fragments are marked and skipped; see doc_examples.py).
add_test(NAME docs.examples
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/doc_examples.py $<TARGET_FILE:sluice> ${CMAKE_SOURCE_DIR})
set_tests_properties(docs.examples PROPERTIES TIMEOUT 300)
