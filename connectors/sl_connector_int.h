/*
** sl_connector_int.h — internals shared by the registry and the built-in
** connector and format declarations. Not a public header: only files under
** connectors/ (and the module's own unit tests) include it.
**
** Holds the extern declarations the registry's static tables list, the
** value parsers that return a reason instead of setting an error (so the
** caller can word the message, and leave out secret values), and small
** helpers for the checks: '#' pattern matching, column lookup, and the one
** way to word an invalid value.
*/
#ifndef SL_CONNECTOR_INT_H
#define SL_CONNECTOR_INT_H

#include "sl_connector.h"
#include <pthread.h>

/* Built-in declarations (one file each), listed by registry.c. */
extern const sl_connector sl__connector_blackhole;
extern const sl_connector sl__connector_datagen;
extern const sl_connector sl__connector_elasticsearch7;
extern const sl_connector sl__connector_filesystem;
extern const sl_connector sl__connector_http_sink;
extern const sl_connector sl__connector_jdbc;
extern const sl_connector sl__connector_kafka;
extern const sl_connector sl__connector_nexmark;
/* Checkpoints in S3 (filesystem/fs_chk.c): exec's storage of s3:// dirs. */
extern const sl_chk_fs sl__s3_chk_fs;
extern const sl_connector sl__connector_opensearch;
extern const sl_connector sl__connector_print;
extern const sl_connector sl__connector_stdin;
extern const sl_connector sl__connector_upsert_kafka;
extern const sl_format sl__format_csv;
extern const sl_format sl__format_json;
extern const sl_format sl__format_raw;

/* The options every table accepts (for the docs); *format = the spec of
** 'format' (accepted where the connector has_format). */
const sl_option_spec *sl__common_option_specs(int *n, const sl_option_spec **format);

/* Parsers: NULL on success, else the reason ("is not an integer"), to be
** written after the quoted value or, for secrets, on its own. */
const char *sl__parse_int(const char *v, int64_t *out);
const char *sl__parse_bool(const char *v, bool *out);
const char *sl__parse_double(const char *v, double *out);
const char *sl__parse_duration_ms(const char *v, int64_t *out);
const char *sl__parse_memsize(const char *v, int64_t *out);
/* A sink's flush interval on a quiet input (flush_timer.c): a thread that
** every quarter of interval_ms (at least 10 ms), with *mu held, calls
** flush(ctx) when due(ctx). NULL for interval_ms <= 0 (or when no thread
** could start: rows arriving still flush). A flush's failure fails the
** sink's next operation: sl_flush_timer_failed (with *mu held) copies it
** into err and returns -1. sl_flush_timer_stop (without *mu held) ends the
** thread; NULL is fine for both. */
typedef struct sl_flush_timer sl_flush_timer;
sl_flush_timer *sl_flush_timer_start(pthread_mutex_t *mu, int64_t interval_ms,
                                     bool (*due)(void *ctx),
                                     int (*flush)(void *ctx, sl_error *err), void *ctx);
int sl_flush_timer_failed(sl_flush_timer *t, sl_error *err);
void sl_flush_timer_stop(sl_flush_timer *t);

/* The number option key of connector c holds at run time: its value in
** opts, else the default c's option table declares (one place for it):
** SL_OPT_INT as is, SL_OPT_DURATION in ms, SL_OPT_MEMSIZE in bytes. 0, or -1
** with err (22023 at the value; XX000 for a key c does not declare with a
** number type or a default). */
int sl__option_number(const sl_connector *c, const sl_kvlist *opts, const char *key,
                      int64_t *out, sl_error *err);
/* Whether v is one of the '|'-separated values (case-insensitive). */
bool sl__enum_has(const char *values, const char *v);
/* Append the '|'-separated values as "a, b, c". */
void sl__enum_list(sl_strbuf *sb, const char *values);

/* Match key against pattern; a '#' in pattern matches one or more bytes (a
** column name, which may itself contain dots). On a match, *col / *collen
** (may be NULL) receive the part matched by '#' (key itself when the
** pattern has none: *collen = 0). */
bool sl__key_match(const char *pattern, const char *key, const char **col, size_t *collen);

/* Index of the column named exactly name[0..len), or -1. shape may be NULL. */
int sl__shape_find(const sl_table_shape *shape, const char *name, size_t len);

/* Set 22023 "invalid value for option '<key>': "<value>" <reason>" at
** kv->value_pos; reason is a printf format. When secret (or the key is
** declared secret anywhere), the value is left out of the message and the
** reason goes to the detail. Returns -1. */
int sl__invalid_value(sl_error *err, const sl_kv *kv, bool secret, const char *reason_fmt, ...)
    SL_PRINTF(4, 5);

/* The spec declared for key in specs (exact or by '#' pattern), or NULL. */
const sl_option_spec *sl__spec_find(const sl_option_spec *specs, int n, const char *key);

#endif /* SL_CONNECTOR_INT_H */
