# The web page of jobs and /metrics (server/web.c, webjobs.c, web/page.html):
# the page in headless Chromium, /metrics through prometheus_client's parser
# against SHOW JOBS and the sink's files, malformed HTTP requests. Debian's
# python3 (/usr/bin/python3) runs them: python3-prometheus-client is a Debian
# package (scripts/setup installs it and chromium).
find_program(SL_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT SL_DEBIAN_PYTHON)
  set(SL_DEBIAN_PYTHON ${Python3_EXECUTABLE})
endif()
foreach(case page metrics http)
  sl_server_test(server.web.${case} web_test.py ARGS ${case} PYTHON ${SL_DEBIAN_PYTHON} TIMEOUT 120)
endforeach()
