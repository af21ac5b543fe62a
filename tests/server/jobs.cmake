# Jobs belong to the server and survive its restarts (planner/session_resume.c):
# SIGTERM + start resumes them, SIGKILL rounds keep exactly-once, STOP JOB is
# final, a job that cannot resume fails (logged) and the server serves on.
foreach(case restart kill stop resume_fail)
  add_test(NAME server.jobs.${case}
    COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/jobs_${case}_test.py)
  set_tests_properties(server.jobs.${case} PROPERTIES LABELS server
    ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 300)
endforeach()

# Kafka -> Kafka exactly-once through the server with SIGKILL rounds, checked
# by a read_committed kcat (tests/kafka's broker fixture and helpers).
if(TARGET kafka_topic)
  add_test(NAME server.jobs.kafka
    COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/jobs_kafka_test.py
            --topic-tool $<TARGET_FILE:kafka_topic>)
  set_tests_properties(server.jobs.kafka PROPERTIES LABELS "server;kafka"
    ENVIRONMENT "${SL_SRV_ENV};${SL_KAFKA_ENV}" FIXTURES_REQUIRED kafka TIMEOUT 480)
endif()

# datagen -> PostgreSQL exactly-once through the server with SIGKILL rounds,
# two-phase (pg) and as the last resource (pg0), read by psql
# (tests/postgres's server fixtures and helpers).
if(DEFINED SL_PG_ENV)
  foreach(which pg pg0)
    add_test(NAME server.jobs.${which}
      COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/jobs_pg_test.py --which ${which})
    set_tests_properties(server.jobs.${which} PROPERTIES LABELS "server;postgres"
      ENVIRONMENT "${SL_SRV_ENV};${SL_PG_ENV};PYTHONPATH=${SL_SRV_DIR}:${SL_PG_DIR}"
      FIXTURES_REQUIRED "pg;pg0" TIMEOUT 400)
  endforeach()
endif()
