/*
** blackhole.h — the runtime side of the 'blackhole' connector
** (blackhole.c): the number of rows a sink discarded, for tests and
** benchmarks.
*/
#ifndef SL_BLACKHOLE_H
#define SL_BLACKHOLE_H

#include "../sl_connector.h"

/* Rows (of every kind) written to s so far. s must be a blackhole sink. */
int64_t sl_blackhole_rows(const sl_sink *s);

#endif /* SL_BLACKHOLE_H */
