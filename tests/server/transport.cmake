# Transport of `sluice serve`: startup packets, TLS, SCRAM, cancel, limits,
# robustness against bad input, many connections and stalled readers.
foreach(t startup auth cancel robust load)
  add_test(NAME server.transport_${t}
    COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/transport_${t}_test.py)
  set_tests_properties(server.transport_${t} PROPERTIES LABELS server
    ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 180)
endforeach()
