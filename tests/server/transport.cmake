# Transport of `sluice serve`: startup packets, TLS, SCRAM, cancel, limits,
# robustness against bad input, many connections and stalled readers.
foreach(t startup auth cancel robust load)
  sl_server_test(server.transport_${t} transport_${t}_test.py TIMEOUT 180)
endforeach()
