/*
** fuzz_binder.c — libFuzzer target for binding and planning: any bytes that
** parse as one read-only statement (query, INSERT, statement set, EXPLAIN,
** SHOW, DESCRIBE, SET, RESET, STOP JOB) run through sl_session_exec against
** a fixed catalog (tables with a watermark, sinks, a view). Binding,
** expression typing, literal validation, plan building and EXPLAIN must
** never crash, leak or read out of bounds, and a failure must carry an
** SQLSTATE and a message. DDL is skipped so that no input writes the catalog
** (each write is fsync'ed, which would make the fuzzer crawl). Queries and
** INSERTs are planned through EXPLAIN, not run: their sources are unbounded.
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_parser.h"
#include "sl_planner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sl_engine *sl__eng;
static sl_session *sl__sess;

static const char *const sl__setup[] = {
    "CREATE TABLE clicks (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3), "
    "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen')",
    "CREATE TABLE users (id BIGINT NOT NULL, name STRING, created TIMESTAMP_LTZ(3), "
    "PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR created AS created) "
    "WITH ('connector' = 'datagen')",
    "CREATE TABLE sink (campaign STRING, total DECIMAL(38, 2)) WITH ('connector' = 'print')",
    "CREATE TABLE audit (id BIGINT, campaign STRING) WITH ('connector' = 'print')",
    "CREATE TABLE spend (ws TIMESTAMP(3), we TIMESTAMP(3), campaign STRING, n BIGINT, "
    "total DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json')",
    "CREATE VIEW big AS SELECT id, campaign, amount, ts FROM clicks WHERE amount > 1",
};

static void sl__die(const char *what, const sl_error *err)
{
    fprintf(stderr, "fuzz_binder: %s: %s\n", what, err && err->message ? err->message : "?");
    abort();
}

/* One engine for the whole run, in a fresh temporary directory. */
static void sl__init(void)
{
    if (sl__sess)
        return;
    char tmpl[] = "/tmp/sluice-fuzz-binder-XXXXXX";
    if (!mkdtemp(tmpl))
        sl__die("mkdtemp", NULL);
    char *dir = sl_path_join(tmpl, "data");
    sl_error err = SL_ERROR_INIT;
    if (sl_engine_open(dir, &sl__eng, &err) != 0)
        sl__die("open", &err);
    sl_free(dir);
    sl__sess = sl_session_new(sl__eng);
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__setup); i++)
        if (sl_session_exec(sl__sess, sl__setup[i], strlen(sl__setup[i]), NULL, &err) != 0)
            sl__die(sl__setup[i], &err);
}

static bool sl__read_only(sl_stmt_kind k)
{
    switch (k) {
    case SL_STMT_QUERY:
    case SL_STMT_INSERT:
    case SL_STMT_STATEMENT_SET:
    case SL_STMT_EXPLAIN:
    case SL_STMT_SHOW:
    case SL_STMT_DESCRIBE:
    case SL_STMT_SET:
    case SL_STMT_RESET:
    case SL_STMT_STOP_JOB:
        return true;
    default:
        return false;
    }
}

/* Consume rows so the result path runs too. */
static int sl__row(void *ctx, const char *const *values, const size_t *lens)
{
    (void)values;
    (void)lens;
    (*(long *)ctx)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl__init();
    char *sql = malloc(size ? size : 1); /* exactly size bytes: ASan sees overreads */
    if (size)
        memcpy(sql, data, size);
    sl_error err = SL_ERROR_INIT;
    sl_stmt *s = sl_parse_one(sql, size, &err);
    if (s && sl__read_only(s->kind)) {
        long rows = 0;
        sl_result_sink out = {&rows, NULL, sl__row, NULL, NULL, NULL};
        sl_error_reset(&err);
        bool runnable = s->kind == SL_STMT_QUERY || s->kind == SL_STMT_INSERT ||
                        s->kind == SL_STMT_STATEMENT_SET;
        char *text = sql;
        size_t len = size;
        if (runnable) { /* plan it, do not run it */
            len = size + 8;
            text = malloc(len);
            memcpy(text, "EXPLAIN ", 8);
            memcpy(text + 8, sql, size);
        }
        int rc = sl_session_exec(sl__sess, text, len, &out, &err);
        if (text != sql)
            free(text);
        if (rc != 0) {
            if (strlen(err.sqlstate) != 5 || !err.message || !err.message[0])
                sl__die("an error without SQLSTATE or message", &err);
            if (err.position < -1 || err.position > (int)len)
                sl__die("an error position outside the statement", &err);
        }
    }
    sl_stmt_free(s);
    sl_error_reset(&err);
    free(sql);
    return 0;
}
