# Jobs belong to the server and survive its restarts (planner/session_resume.c):
# SIGTERM + start resumes them, SIGKILL rounds keep exactly-once, STOP JOB is
# final, a job that cannot resume fails (logged) and the server serves on.
foreach(case restart kill stop resume_fail)
  sl_server_test(server.jobs.${case} jobs_${case}_test.py TIMEOUT 300)
endforeach()

# Kafka -> Kafka exactly-once through the server with SIGKILL rounds, checked
# by a read_committed kcat (tests/kafka's broker fixture and helpers).
if(TARGET kafka_topic)
  sl_server_test(server.jobs.kafka jobs_kafka_test.py ARGS --topic-tool $<TARGET_FILE:kafka_topic>
    LABELS kafka ENVIRONMENT ${SL_SRV_ENV} ${SL_KAFKA_ENV} TIMEOUT 480
    PROPERTIES FIXTURES_REQUIRED kafka)
endif()

# datagen -> PostgreSQL exactly-once through the server with SIGKILL rounds,
# two-phase (pg) and as the last resource (pg0), read by psql
# (tests/postgres's server fixtures and helpers).
if(DEFINED SL_PG_ENV)
  foreach(which pg pg0)
    sl_server_test(server.jobs.${which} jobs_pg_test.py ARGS --which ${which} LABELS postgres
      ENVIRONMENT ${SL_SRV_ENV} ${SL_PG_ENV} "PYTHONPATH=${SL_SRV_DIR}:${SL_PG_DIR}" TIMEOUT 400
      PROPERTIES FIXTURES_REQUIRED "pg;pg0")
  endforeach()
endif()
