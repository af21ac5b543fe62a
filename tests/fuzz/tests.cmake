# Fuzz targets. With SLUICE_FUZZ=ON (clang): libFuzzer binaries and bounded
# ctest runs `fuzz.<name>` over a copy of the seed corpus (the repo is never
# written). Otherwise: the same targets with replay_main.c, run once over the
# seed corpus as `fuzz.<name>_replay`.
set(SLUICE_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzz.* ctest runs")
set(SL_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})

function(sl_fuzz_target name lib)
  set(corpus ${SL_FUZZ_DIR}/corpus/${name})
  if(SLUICE_FUZZ)
    add_executable(fuzz_${name} ${SL_FUZZ_DIR}/fuzz_${name}.c)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    set(work ${CMAKE_CURRENT_BINARY_DIR}/fuzz-${name})
    add_test(NAME fuzz.${name}
      COMMAND sh -c "rm -rf '${work}' && mkdir -p '${work}/corpus' '${work}/artifacts' && cp '${corpus}'/* '${work}/corpus/' && '$<TARGET_FILE:fuzz_${name}>' -max_total_time=${SLUICE_FUZZ_SECONDS} -rss_limit_mb=2048 -artifact_prefix='${work}/artifacts/' -print_final_stats=1 '${work}/corpus'")
    math(EXPR timeout "${SLUICE_FUZZ_SECONDS} + 120")
    set_tests_properties(fuzz.${name} PROPERTIES TIMEOUT ${timeout})
  else()
    add_executable(fuzz_${name} ${SL_FUZZ_DIR}/fuzz_${name}.c ${SL_FUZZ_DIR}/replay_main.c)
    add_test(NAME fuzz.${name}_replay COMMAND fuzz_${name} ${corpus})
    set_tests_properties(fuzz.${name}_replay PROPERTIES TIMEOUT 120)
  endif()
  target_link_libraries(fuzz_${name} PRIVATE ${lib})
endfunction()

sl_fuzz_target(parser sl_parser)
sl_fuzz_target(binder sl_planner)
sl_fuzz_target(codec sl_connectors)
sl_fuzz_target(catalog sl_planner)
sl_fuzz_target(tzif sl_base)
sl_fuzz_target(pgwire sl_server)
sl_fuzz_target(http sl_server)
sl_fuzz_target(s3xml sl_connectors)
target_include_directories(fuzz_s3xml PRIVATE ${CMAKE_SOURCE_DIR}/connectors)
