# Golden SQL tests: each tests/sql/<name>.sql runs through `sluice -f` with a
# fresh data directory and --continue-on-error; stdout and stderr together
# must equal tests/sql/<name>.out. SLUICE_GOLDEN_UPDATE=1 rewrites the .out
# files (review the diff before committing).
file(GLOB SL_GOLDEN_SQL CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.sql)
foreach(sql ${SL_GOLDEN_SQL})
  get_filename_component(name ${sql} NAME_WE)
  add_test(NAME sql.${name}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_golden.sh $<TARGET_FILE:sluice> ${sql}
    WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  set_tests_properties(sql.${name} PROPERTIES TIMEOUT 120)
endforeach()
