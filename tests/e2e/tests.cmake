# End-to-end tests: the `sluice` command run as a user runs it, with an
# independent reader of what it wrote. The crash and savepoint tests run at
# parallelism 1 and 2 (`--parallelism N` sets 'parallelism.default'; the
# test names end in .p1 / .p2). Each takes 5-30 s under ASan on 2 cores.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(SL_E2E ${CMAKE_CURRENT_LIST_DIR})
foreach(p 1 2)
  # datagen -> filter/projection -> filesystem, 25 SIGKILLs
  add_test(NAME e2e.crash_filesystem.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_test.py
            --sluice $<TARGET_FILE:sluice> --sink filesystem --kills 25 --parallelism ${p})
  # the same into print: the check must find the duplicates
  add_test(NAME e2e.crash_print_control.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_test.py
            --sluice $<TARGET_FILE:sluice> --sink print --kills 8 --parallelism ${p})
  # monitored directory -> tumbling-window aggregation -> filesystem, 20 SIGKILLs
  add_test(NAME e2e.crash_window.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_window_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  # datagen -> window aggregation (every aggregate) -> filesystem, 24 SIGKILLs,
  # some inside checkpoints and some while the output is being committed
  add_test(NAME e2e.crash_agg.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_agg_test.py
            --sluice $<TARGET_FILE:sluice> --kills 24 --parallelism ${p})
  # SIGTERM stops with a savepoint at 3-5 moments (one restart from
  # execution.savepoint.path under a new name) = an uninterrupted run
  add_test(NAME e2e.savepoint.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/savepoint_test.py
            --sluice $<TARGET_FILE:sluice> --parallelism ${p})
  # savepoints as branch points: seeded random sequences of runs, SIGKILLs,
  # STOP JOB ... WITH SAVEPOINT, resumes, re-runs and forks through the shell;
  # no sink ever holds an id twice or loses one
  add_test(NAME e2e.branch.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/branch_test.py
            --sluice $<TARGET_FILE:sluice> --sequences 2 --steps 12 --parallelism ${p})
  set_tests_properties(e2e.crash_filesystem.p${p} e2e.crash_print_control.p${p}
    e2e.crash_window.p${p} e2e.crash_agg.p${p} e2e.savepoint.p${p} e2e.branch.p${p}
    PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# 'table.exec.late-rows.table': the late clicks of a window aggregation kept
# exactly once in a filesystem table through 10 SIGKILLs (issue 15)
add_test(NAME e2e.crash_late
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_late_test.py --sluice $<TARGET_FILE:sluice> --kills 10)
set_tests_properties(e2e.crash_late PROPERTIES TIMEOUT 300 LABELS e2e)
# the control of e2e.branch: two jobs into one sink, which the check must catch
add_test(NAME e2e.branch_control
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/branch_test.py --sluice $<TARGET_FILE:sluice> --control)
set_tests_properties(e2e.branch_control PROPERTIES TIMEOUT 300 LABELS e2e)
# a reader with no file: held back without 'table.exec.source.idle-timeout',
# left out with it
add_test(NAME e2e.idle_timeout
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/idle_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(e2e.idle_timeout PROPERTIES TIMEOUT 300 LABELS e2e)
add_test(NAME e2e.window_spend
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/window_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(e2e.window_spend PROPERTIES TIMEOUT 300 LABELS e2e)
# the newest checkpoint damaged on disk (a state file changed, _metadata
# changed, a state file missing): the restart fails naming it (XX001) and
# commits nothing; an undamaged control restart resumes
add_test(NAME e2e.damaged_checkpoint
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/damaged_checkpoint_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(e2e.damaged_checkpoint PROPERTIES TIMEOUT 300 LABELS e2e)
# monitored directory of out-of-order clicks -> deduplication keeping each
# user's earliest click (candidates wait for the watermark) -> filesystem,
# 20 SIGKILLs; each user's earliest click committed exactly once
foreach(p 1 2)
  add_test(NAME e2e.crash_dedup.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_dedup_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_dedup.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# monitored directory of out-of-order clicks -> ORDER BY the event time
# (temporal sort: clicks wait for the watermark) -> filesystem, 20 SIGKILLs;
# every click committed exactly once, in event-time order; the control run
# without ORDER BY must fail the order check
foreach(p 1 2)
  add_test(NAME e2e.crash_sort.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_sort_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_sort.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
add_test(NAME e2e.crash_sort.control
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_sort_test.py
          --sluice $<TARGET_FILE:sluice> --kills 3 --files 20 --control)
set_tests_properties(e2e.crash_sort.control PROPERTIES TIMEOUT 600 LABELS e2e)
# two datagen tables -> regular inner join on a key (both sides' rows in
# state) / interval join (state cleaned by watermarks) -> filesystem, 24
# SIGKILLs; every matching pair of ids committed exactly once
foreach(p 1 2)
  add_test(NAME e2e.crash_join.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
            --sluice $<TARGET_FILE:sluice> --kills 24 --parallelism ${p})
  add_test(NAME e2e.crash_interval_join.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --interval --keys 50 --parallelism ${p})
  set_tests_properties(e2e.crash_join.p${p} e2e.crash_interval_join.p${p}
    PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# the same joins of a table with itself (a, a AS b): one source per task
# feeds both sides (scan reuse, sl_input_spec.shares), 20 SIGKILLs; every
# matching pair committed exactly once
add_test(NAME e2e.crash_self_join.p2
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
          --sluice $<TARGET_FILE:sluice> --kills 20 --self --parallelism 2)
add_test(NAME e2e.crash_self_window_join.p1
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
          --sluice $<TARGET_FILE:sluice> --kills 20 --self --window --keys 50 --parallelism 1)
set_tests_properties(e2e.crash_self_join.p2 e2e.crash_self_window_join.p1
  PROPERTIES TIMEOUT 900 LABELS e2e)
# two datagen tables (the right at half the left's rate) -> interval join ->
# TUMBLE window aggregation over the left time (kept by the join) ->
# filesystem, 20 SIGKILLs; every window committed once with the count, min,
# max and sum computed here (the join's watermark hold-back keeps the
# pairs joined late in their windows)
foreach(p 1 2)
  add_test(NAME e2e.crash_interval_window.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --interval-window --keys 50 --rows 10000
            --seconds 4 --parallelism ${p})
  set_tests_properties(e2e.crash_interval_window.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# datagen (computed event time) -> window Top-N (the 3 best rows per window
# and key, with their rank) -> filesystem, 20 SIGKILLs; the committed rows
# equal the top 3 computed from the ids, each once
foreach(p 1 2)
  add_test(NAME e2e.crash_topn.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_topn_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_topn.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# monitored directory of per-key bursts (some open across many kills, some
# merged by a bridging event that arrives after both sessions formed) ->
# SESSION window aggregation -> filesystem, 20+ SIGKILLs; every session this
# script computes committed exactly once with exact values, nothing else.
# .group: the same in Flink's group-window form (GROUP BY k, SESSION(ts, gap)).
foreach(p 1 2)
  add_test(NAME e2e.crash_session.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_session_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_session.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
add_test(NAME e2e.crash_session.group.p2
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_session_test.py
          --sluice $<TARGET_FILE:sluice> --kills 20 --group-window --parallelism 2)
# .rows: the SESSION TVF on its own; every event committed exactly once with
# its session's bounds.
add_test(NAME e2e.crash_session.rows.p2
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_session_test.py
          --sluice $<TARGET_FILE:sluice> --kills 20 --rows --parallelism 2)
set_tests_properties(e2e.crash_session.group.p2 e2e.crash_session.rows.p2
  PROPERTIES TIMEOUT 900 LABELS e2e)
# monitored directory of out-of-order clicks -> OVER aggregation (SUM, COUNT,
# MAX over each user's ROWS 3 PRECEDING / RANGE 2 s / RANGE UNBOUNDED frame;
# clicks wait for the watermark) -> filesystem, 20 SIGKILLs; each click
# committed exactly once with the values a Python reference computes
foreach(frame rows range unbounded)
  foreach(p 1 2)
    add_test(NAME e2e.crash_over.${frame}.p${p}
      COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_over_test.py
              --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p} --frame ${frame})
    set_tests_properties(e2e.crash_over.${frame}.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
  endforeach()
endforeach()
# datagen -> event-time temporal join (LEFT) against a versioned datagen
# table -> filesystem, 20 SIGKILLs; every left row once, with the version
# valid at its time (computed here from the ids) or NULLs
add_test(NAME e2e.crash_temporal_join.p2
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
          --sluice $<TARGET_FILE:sluice> --kills 20 --temporal --parallelism 2)
set_tests_properties(e2e.crash_temporal_join.p2 PROPERTIES TIMEOUT 900 LABELS e2e)
# datagen -> FULL OUTER window join (TUMBLE 1 s, a residual condition) ->
# filesystem, 20 SIGKILLs; every pair of a window and every unmatched row
# (padded) once, as computed here from the ids
foreach(p 1 2)
  add_test(NAME e2e.crash_window_join.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --window --keys 50 --parallelism ${p})
  set_tests_properties(e2e.crash_window_join.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# datagen (computed event time) -> PARTITIONED BY (dt, hm) filesystem sink
# with partition-time commit and success files, 24 SIGKILLs; a watcher
# checks that no partition shows _SUCCESS before all its rows; every row
# committed exactly once, every partition committed (p2: two readers, one
# sink instance)
foreach(p 1 2)
  add_test(NAME e2e.crash_partition.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_partition_test.py
            --sluice $<TARGET_FILE:sluice> --kills 24 --parallelism ${p})
  set_tests_properties(e2e.crash_partition.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# monitored directory -> METADATA columns (file.name / path / size /
# modification-time) -> filesystem, 20 SIGKILLs; every row committed exactly
# once with its file's metadata as os.stat tells it (replays give the same)
foreach(p 1 2)
  add_test(NAME e2e.crash_metadata.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_metadata_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_metadata.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# a LEFT lookup join against a filesystem table (PROCTIME()), 24 SIGKILLs:
# every left row committed exactly once with its key's row or NULLs
add_test(NAME e2e.crash_lookup_join.p2
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_join_test.py
          --sluice $<TARGET_FILE:sluice> --kills 24 --parallelism 2 --lookup)
set_tests_properties(e2e.crash_lookup_join.p2 PROPERTIES TIMEOUT 900 LABELS e2e)
# datagen -> CROSS JOIN UNNEST(ARRAY[...]) WITH ORDINALITY, filtered ->
# filesystem, 20 SIGKILLs: every expected (id, element, position) once
foreach(p 1 2)
  add_test(NAME e2e.crash_unnest.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_unnest_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_unnest.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# the README's datagen TUMBLE example (extracted from README.md) prints
# windows of rows-per-second * size rows: datagen's event time moves
add_test(NAME e2e.readme_datagen
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/readme_datagen_test.py --sluice $<TARGET_FILE:sluice>
          --readme ${CMAKE_SOURCE_DIR}/README.md)
set_tests_properties(e2e.readme_datagen PROPERTIES TIMEOUT 300 LABELS e2e)
# datagen's moving event time replayed through SIGKILLs: 1-second windows of
# a datagen table into exactly-once files = the windows computed from the
# documented rule (row i at the start + i / rate)
foreach(p 1 2)
  add_test(NAME e2e.crash_datagen_time.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_datagen_time_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_datagen_time.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
# windows that cannot fire say why: a stalled watermark and an idle reader
# (no idle timeout) get one WARNING and SHOW JOBS' warning column; an idle
# timeout and a moving event time do not
add_test(NAME e2e.stall_warning
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/stall_warning_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(e2e.stall_warning PROPERTIES TIMEOUT 300 LABELS e2e)
# deduplication conflicts kept exactly once in a conflict table through SIGKILLs
add_test(NAME e2e.crash_conflict
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_conflict_test.py --sluice $<TARGET_FILE:sluice> --kills 10)
set_tests_properties(e2e.crash_conflict PROPERTIES TIMEOUT 300 LABELS e2e)
# The RocksDB state backend (state.backend.type = 'rocksdb'): a GROUP BY over
# 20000 keys with 500 in memory through 20 SIGKILLs = the reference (the
# print sink's changelog read as upserts); incremental and full checkpoints
foreach(p 1 2)
  add_test(NAME e2e.crash_rocks.p${p}
    COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_rocks_test.py
            --sluice $<TARGET_FILE:sluice> --kills 20 --parallelism ${p})
  set_tests_properties(e2e.crash_rocks.p${p} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
add_test(NAME e2e.crash_rocks_full
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/crash_rocks_test.py
          --sluice $<TARGET_FILE:sluice> --kills 20 --incremental false)
# incremental checkpoints: 10 keys changed of 200000 = under 5 % new bytes;
# a pruned checkpoint's SSTs survive in the kept one, which restores right
add_test(NAME e2e.rocks_incremental
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/rocks_incremental_test.py --sluice $<TARGET_FILE:sluice>)
# the control: full checkpoints ('false') take every byte anew, so the
# same check must fail
add_test(NAME e2e.rocks_incremental_control
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/rocks_incremental_test.py --sluice $<TARGET_FILE:sluice>
          --incremental false)
set_tests_properties(e2e.rocks_incremental_control PROPERTIES WILL_FAIL TRUE)
# restoring across backends is refused (55000, naming both), both ways
add_test(NAME e2e.rocks_switch
  COMMAND ${Python3_EXECUTABLE} ${SL_E2E}/rocks_switch_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(e2e.crash_rocks_full e2e.rocks_incremental e2e.rocks_incremental_control
  e2e.rocks_switch PROPERTIES TIMEOUT 600 LABELS e2e)
