/*
** test_planner_settings.c — session settings through the session API (the
** one the shell and the wire server share):
**   - every key declared in planner/config.c has a reader: statements of
**     every kind are run and each declared key must have been read through
**     sl_config_read (a key declared and never read fails this test; the
**     control checks that no key counts as read before anything ran);
**   - 'sql-client.execution.result-mode' as the rows the result sink
**     receives (the final table, the op column);
**   - 'table.local-time-zone' = 'default' follows TZ (and /etc/localtime),
**     a job's zone is fixed when it is planned.
*/
#include "sl_test.h"

#include "../../planner/planner_int.h"
#include "../../planner/session_int.h"
#include "../../planner/sl_planner.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct collect {
    sl_strbuf rows; /* "a|b\n" per row */
    char names[256];/* column names, "a|b" */
    char tag[64];   /* command tag */
    int ncols;      /* columns */
} collect;

static int c_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    collect *c = ctx;
    (void)types;
    c->ncols = ncols;
    c->names[0] = 0;
    for (int i = 0; i < ncols; i++)
        snprintf(c->names + strlen(c->names), sizeof c->names - strlen(c->names), "%s%s",
                 i ? "|" : "", names[i]);
    return 0;
}

static int c_row(void *ctx, const char *const *values, const size_t *lens)
{
    collect *c = ctx;
    for (int i = 0; i < c->ncols; i++) {
        if (i)
            sl_strbuf_append_char(&c->rows, '|');
        if (!values[i]) {
            sl_strbuf_append(&c->rows, "<NULL>");
            continue;
        }
        for (size_t k = 0; k < lens[i]; k++) /* a NUL byte shows as \0 */
            sl_strbuf_append(&c->rows, values[i][k] ? (char[2]){values[i][k], 0} : "\\0");
    }
    sl_strbuf_append_char(&c->rows, '\n');
    return 0;
}

static void c_complete(void *ctx, const char *tag)
{
    collect *c = ctx;
    snprintf(c->tag, sizeof c->tag, "%s", tag);
}

static int run(sl_session *s, const char *sql, collect *c, sl_error *err)
{
    sl_strbuf_reset(&c->rows);
    c->tag[0] = 0;
    c->names[0] = 0;
    c->ncols = 0;
    sl_result_sink out = {c, c_begin, c_row, NULL, c_complete, NULL};
    sl_error_reset(err);
    int rc = sl_session_exec(s, sql, strlen(sql), &out, err);
    if (rc != 0)
        fprintf(stderr, "%s\n  -> %s %s\n", sql, err->sqlstate, err->message);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *tmpdir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *d = sl_sprintf("%s/settings-%d-%s", base ? base : "/tmp", (int)getpid(), name);
    char *cmd = sl_sprintf("rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "rm failed\n");
    sl_free(cmd);
    return d;
}

static void rmdir_all(const char *d)
{
    char *cmd = sl_sprintf("rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "rm failed\n");
    sl_free(cmd);
}

static const char *const setup_sql[] = {
    "SET 'table.dml-sync' = 'true'",
    "SET 'parallelism.default' = '1'",
    "CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '6', "
    "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6')",
    "CREATE TABLE hole (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole')",
};

/* Every declared key is read by some statement; none before. */
static void t_every_key_has_a_reader(void)
{
    int n;
    const sl_config_key *keys = sl_config_keys(&n);
    REQUIRE(n > 0);
    /* Control: before any statement ran no key counts as read, so the check
    ** below can fail. */
    int read_before = 0;
    for (int i = 0; i < n; i++)
        read_before += sl_config_was_read(keys[i].key);
    CHECK_INT(read_before, 0);

    char *dir = tmpdir("readers");
    sl_engine *eng = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    collect c = {SL_STRBUF_INIT, "", "", 0};
    for (size_t i = 0; i < SL_ARRAY_LEN(setup_sql); i++)
        CHECK(run(s, setup_sql[i], &c, &err) == 0);
    /* Statements of every kind that reads settings. */
    CHECK(run(s, "SELECT id % 2 AS k, COUNT(*) AS n FROM nums GROUP BY id % 2", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO hole SELECT id, id FROM nums", &c, &err) == 0);
    CHECK(run(s, "EXPLAIN INSERT INTO hole SELECT id, id FROM nums", &c, &err) == 0);
    CHECK(run(s, "RECONCILE nums AGAINST nums ON id", &c, &err) == 0);
    for (int i = 0; i < n; i++) {
        if (!sl_config_was_read(keys[i].key))
            fprintf(stderr, "setting '%s' is declared in planner/config.c but nothing reads it\n",
                    keys[i].key);
        CHECK(sl_config_was_read(keys[i].key));
    }
    sl_strbuf_free(&c.rows);
    sl_session_free(s);
    sl_engine_close(eng);
    rmdir_all(dir);
    sl_free(dir);
}

/* The final rows of a changelog ("op|a|b\n" lines), applied independently
** of the engine (+I/+U add, -U/-D remove the newest equal row), sorted,
** without the op column; "unmatched" when a retraction finds nothing. */
static char *apply_changelog(const char *text)
{
    sl_list *rows = sl_list_new();
    bool bad = false;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len < 3 || p[2] != '|') {
            bad = true;
            break;
        }
        char *row = sl_strndup(p + 3, len - 3);
        if (p[0] == '+') {
            sl_list_push(rows, row);
        } else {
            int i = rows->n - 1;
            while (i >= 0 && strcmp(rows->items[i], row) != 0)
                i--;
            if (i < 0)
                bad = true;
            else {
                sl_free(rows->items[i]);
                memmove(&rows->items[i], &rows->items[i + 1],
                        (size_t)(rows->n - i - 1) * sizeof(void *));
                rows->n--;
            }
            sl_free(row);
        }
        p += len + (nl ? 1 : 0);
    }
    qsort(rows->items, (size_t)rows->n, sizeof(void *), cmp_str);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < rows->n; i++)
        sl_strbuf_appendf(&sb, "%s\n", (const char *)rows->items[i]);
    sl_list_free(rows, sl_free);
    if (bad) {
        sl_strbuf_free(&sb);
        return sl_strdup("unmatched");
    }
    return sl_strbuf_detach(&sb);
}

/* The lines of text, sorted (the final table's row order follows the
** order of the last changes, which depends on chunking). */
static char *sorted_lines(const char *text)
{
    sl_list *rows = sl_list_new();
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        sl_list_push(rows, sl_strndup(p, len));
        p += len + (nl ? 1 : 0);
    }
    qsort(rows->items, (size_t)rows->n, sizeof(void *), cmp_str);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < rows->n; i++)
        sl_strbuf_appendf(&sb, "%s\n", (const char *)rows->items[i]);
    sl_list_free(rows, sl_free);
    return sl_strbuf_detach(&sb);
}

/* The rows a front end receives in each result mode. How the changes of an
** updating query split into chunks depends on timing, so its changelog is
** checked by applying it; the final table does not depend on it. */
static void t_result_modes(void)
{
    char *dir = tmpdir("modes");
    sl_engine *eng = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    collect c = {SL_STRBUF_INIT, "", "", 0};
    for (size_t i = 0; i < SL_ARRAY_LEN(setup_sql); i++)
        CHECK(run(s, setup_sql[i], &c, &err) == 0);
    const char *q = "SELECT id % 2 AS k, SUM(id) AS s FROM nums GROUP BY id % 2";
    /* tableau (default): the changelog with its op column. */
    CHECK(run(s, q, &c, &err) == 0);
    CHECK_STR(c.names, "op|k|s");
    char *final = apply_changelog(sl_strbuf_cstr(&c.rows));
    CHECK_STR(final, "0|12\n1|9\n");
    sl_free(final);
    /* table: the final rows only. */
    CHECK(run(s, "SET 'sql-client.execution.result-mode' = 'table'", &c, &err) == 0);
    CHECK(run(s, q, &c, &err) == 0);
    CHECK_STR(c.names, "k|s");
    char *sorted = sorted_lines(sl_strbuf_cstr(&c.rows));
    CHECK_STR(sorted, "0|12\n1|9\n");
    sl_free(sorted);
    CHECK_STR(c.tag, "SELECT 2");
    /* changelog: the op column even on an insert-only result. */
    CHECK(run(s, "SET 'sql-client.execution.result-mode' = 'changelog'", &c, &err) == 0);
    CHECK(run(s, "SELECT id FROM nums WHERE id > 4", &c, &err) == 0);
    CHECK_STR(c.names, "op|id");
    CHECK_STR(sl_strbuf_cstr(&c.rows), "+I|5\n+I|6\n");
    /* batch: final rows, as inserts. */
    CHECK(run(s, "SET 'execution.runtime-mode' = 'batch'", &c, &err) == 0);
    CHECK(run(s, q, &c, &err) == 0);
    sorted = sorted_lines(sl_strbuf_cstr(&c.rows));
    CHECK_STR(sorted, "+I|0|12\n+I|1|9\n");
    sl_free(sorted);
    sl_strbuf_free(&c.rows);
    sl_session_free(s);
    sl_engine_close(eng);
    rmdir_all(dir);
    sl_free(dir);
}

static char *epoch_in(sl_session *s, collect *c)
{
    sl_error err = SL_ERROR_INIT;
    if (run(s, "SELECT FROM_UNIXTIME(0) FROM nums WHERE id = 1", c, &err) != 0) {
        sl_error_reset(&err);
        return sl_strdup("error");
    }
    return sl_strdup(sl_strbuf_cstr(&c->rows));
}

/* 'default' is TZ when set (a leading ':' allowed), an unknown TZ is UTC as
** in the C library; the zone is resolved when a statement is planned. */
static void t_default_zone(void)
{
    char *old = getenv("TZ") ? sl_strdup(getenv("TZ")) : NULL;
    char *dir = tmpdir("tz");
    sl_engine *eng = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    collect c = {SL_STRBUF_INIT, "", "", 0};
    for (size_t i = 0; i < SL_ARRAY_LEN(setup_sql); i++)
        CHECK(run(s, setup_sql[i], &c, &err) == 0);
    struct {
        const char *tz, *want;
    } cases[] = {{"Asia/Shanghai", "1970-01-01 08:00:00\n"},
                 {":America/Los_Angeles", "1969-12-31 16:00:00\n"},
                 {"UTC", "1970-01-01 00:00:00\n"},
                 {"No/Such_Zone", "1970-01-01 00:00:00\n"},
                 {"CET-1CEST,M3.5.0,M10.5.0/3", "1970-01-01 01:00:00\n"},
                 {"<+0530>-5:30", "1970-01-01 05:30:00\n"},
                 {"GMT-03:00", "1969-12-31 21:00:00\n"}};
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        setenv("TZ", cases[i].tz, 1);
        char *got = epoch_in(s, &c);
        if (strcmp(got, cases[i].want) != 0)
            fprintf(stderr, "TZ=%s\n", cases[i].tz);
        CHECK_STR(got, cases[i].want);
        sl_free(got);
    }
    /* SET wins over TZ. */
    setenv("TZ", "Asia/Shanghai", 1);
    CHECK(run(s, "SET 'table.local-time-zone' = 'Europe/Berlin'", &c, &err) == 0);
    char *got = epoch_in(s, &c);
    CHECK_STR(got, "1970-01-01 01:00:00\n");
    sl_free(got);
    if (old) {
        setenv("TZ", old, 1);
        sl_free(old);
    } else {
        unsetenv("TZ");
    }
    sl_strbuf_free(&c.rows);
    sl_session_free(s);
    sl_engine_close(eng);
    rmdir_all(dir);
    sl_free(dir);
}

/* The final table of a changelog (session_result.c): a retraction removes
** the newest equal row, NULL is not the text "NULL", a retraction of a row
** that is not there changes nothing, emission keeps order. */
/* sl__rows_apply of C strings. */
static void apply2(sl__rows *r, sl_row_kind kind, const char *const *v)
{
    size_t lens[2] = {v[0] ? strlen(v[0]) : 0, v[1] ? strlen(v[1]) : 0};
    sl__rows_apply(r, kind, v, lens);
}

static void t_final_table(void)
{
    sl__rows *r = sl__rows_new(2);
    const char *a[] = {"a", "1"}, *a2[] = {"a", "2"}, *n1[] = {NULL, "1"}, *t1[] = {"NULL", "1"};
    apply2(r, SL_ROW_INSERT, a);
    apply2(r, SL_ROW_INSERT, n1);
    apply2(r, SL_ROW_INSERT, t1);
    apply2(r, SL_ROW_INSERT, a);      /* a duplicate */
    apply2(r, SL_ROW_UPDATE_BEFORE, a); /* removes the newest "a|1" */
    apply2(r, SL_ROW_UPDATE_AFTER, a2);
    apply2(r, SL_ROW_DELETE, t1);     /* the text, not the NULL */
    apply2(r, SL_ROW_DELETE, t1);     /* not there: nothing */
    for (int i = 0; i < 3000; i++) {          /* many rows: the buckets grow */
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        const char *v[] = {k, "x"};
        apply2(r, SL_ROW_INSERT, v);
        if (i % 2)
            apply2(r, SL_ROW_DELETE, v);
    }
    /* Values are bytes with a length: "x\0y" is not "x". */
    const char *z[] = {"x\0y", "1"}, *x[] = {"x", "1"};
    size_t zl[] = {3, 1}, xl[] = {1, 1};
    sl__rows_apply(r, SL_ROW_INSERT, z, zl);
    sl__rows_apply(r, SL_ROW_DELETE, x, xl); /* not there: nothing */
    collect c = {SL_STRBUF_INIT, "", "", 2};
    sl_result_sink out = {&c, c_begin, c_row, NULL, c_complete, NULL};
    CHECK_INT(sl__rows_emit(r, NULL, &out), 3 + 1500 + 1);
    const char *text = sl_strbuf_cstr(&c.rows);
    CHECK(strncmp(text, "a|1\n<NULL>|1\na|2\nk0|x\nk2|x\n", 27) == 0);
    CHECK(strstr(text, "k1|x") == NULL && strstr(text, "k2998|x\n") != NULL);
    CHECK(strstr(text, "\nx\\0y|1\n") != NULL);
    sl_strbuf_reset(&c.rows);
    c.ncols = 3;
    CHECK_INT(sl__rows_emit(r, "+I", &out), 1504);
    CHECK(strncmp(sl_strbuf_cstr(&c.rows), "+I|a|1\n", 7) == 0);
    sl_strbuf_free(&c.rows);
    sl__rows_free(r);
}

/* The text of every committed part file under dir. */
static char *read_parts(const char *dir)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "part-", 5) != 0)
            continue;
        char *p = sl_path_join(dir, de->d_name);
        char *text = NULL;
        sl_error err = SL_ERROR_INIT;
        if (sl_fs_read_file(p, &text, NULL, &err) == 0)
            sl_strbuf_append(&sb, text);
        sl_error_reset(&err);
        sl_free(text);
        sl_free(p);
    }
    if (d)
        closedir(d);
    return sl_strbuf_detach(&sb);
}

/* A background job keeps the zone it was planned with: the session sets
** another zone while it runs, and the files it commits (read back here)
** still hold the first zone's local times. The control is a second job
** planned after the SET: its files hold the second zone's. */
static void t_job_keeps_its_zone(void)
{
    char *dir = tmpdir("jobzone");
    char *files = sl_sprintf("%s-files", dir);
    rmdir_all(files);
    sl_engine *eng = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    collect c = {SL_STRBUF_INIT, "", "", 0};
    char *sinks = sl_sprintf(
        "CREATE TABLE first_out (t STRING) WITH ('connector' = 'filesystem', 'path' = "
        "'%s/first', 'format' = 'csv')",
        files);
    char *sinks2 = sl_sprintf(
        "CREATE TABLE second_out (t STRING) WITH ('connector' = 'filesystem', 'path' = "
        "'%s/second', 'format' = 'csv')",
        files);
    const char *const sql[] = {
        "SET 'parallelism.default' = '1'",
        "SET 'table.dml-sync' = 'false'",
        "SET 'execution.checkpointing.interval' = '100 ms'",
        "CREATE TABLE slow (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '4', "
        "'rows-per-second' = '4', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
        "'fields.id.end' = '4')",
        sinks,
        sinks2,
        "SET 'table.local-time-zone' = 'Asia/Shanghai'",
        "INSERT INTO first_out SELECT FROM_UNIXTIME(id * 3600) FROM slow",
        "SET 'table.local-time-zone' = 'America/Los_Angeles'",
        "INSERT INTO second_out SELECT FROM_UNIXTIME(id * 3600) FROM slow",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(sql); i++)
        CHECK(run(s, sql[i], &c, &err) == 0);
    /* The first job is still running when the zone changes (4 rows at 4 per
    ** second): it must not pick the new zone up. */
    CHECK(sl_engine_wait_jobs(eng, NULL) == 0);
    char *p1 = sl_sprintf("%s/first", files), *p2 = sl_sprintf("%s/second", files);
    char *t1 = read_parts(p1), *t2 = read_parts(p2);
    CHECK(strstr(t1, "1970-01-01 09:00:00") && strstr(t1, "1970-01-01 12:00:00"));
    CHECK(!strstr(t1, "1969-12-31"));
    CHECK(strstr(t2, "1969-12-31 17:00:00") && strstr(t2, "1969-12-31 20:00:00"));
    CHECK(!strstr(t2, "1970-01-01 09"));
    sl_free(t1);
    sl_free(t2);
    sl_free(p1);
    sl_free(p2);
    sl_free(sinks);
    sl_free(sinks2);
    sl_strbuf_free(&c.rows);
    sl_session_free(s);
    sl_engine_close(eng);
    rmdir_all(dir);
    rmdir_all(files);
    sl_free(files);
    sl_free(dir);
}

/* 'state.backend.type' and its settings: values checked at SET (a typo of
** a key or of a value refused), EXPLAIN says where state lives, and a
** GROUP BY under 'rocksdb' (a cache of 2 groups for 5 keys: evictions and
** reads back) gives the result 'hashmap' gives. */
static void t_state_backend(void)
{
    char *dir = tmpdir("backend");
    sl_engine *eng = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    collect c = {SL_STRBUF_INIT, "", "", 0};
    for (size_t i = 0; i < SL_ARRAY_LEN(setup_sql); i++)
        CHECK(run(s, setup_sql[i], &c, &err) == 0);
    sl_session_exec(s, "SET 'state.backend.type' = 'rockdb'", 35, NULL, &err);
    CHECK_STR(err.sqlstate, SL_ERR_INVALID_PARAMETER);
    sl_error_reset(&err);
    sl_session_exec(s, "SET 'state.backend.typ' = 'rocksdb'", 35, NULL, &err);
    CHECK_STR(err.sqlstate, SL_ERR_UNDEFINED_PARAMETER);
    CHECK(strstr(err.hint, "state.backend.type") != NULL);
    sl_error_reset(&err);
    sl_session_exec(s, "SET 'execution.checkpointing.incremental' = 'yes please'", 56, NULL, &err);
    CHECK_STR(err.sqlstate, SL_ERR_INVALID_PARAMETER);
    sl_error_reset(&err);
    sl_session_exec(s, "SET 'state.backend.rocksdb.cache-groups' = '0'", 46, NULL, &err);
    CHECK_STR(err.sqlstate, SL_ERR_INVALID_PARAMETER);
    sl_error_reset(&err);
    const char *q = "SELECT id % 5 AS k, COUNT(*) AS n, SUM(id) AS s FROM nums GROUP BY id % 5";
    CHECK(run(s, "SET 'sql-client.execution.result-mode' = 'table'", &c, &err) == 0);
    CHECK(run(s, q, &c, &err) == 0);
    char *mem = sorted_lines(sl_strbuf_cstr(&c.rows)); /* the order follows the chunking */
    CHECK(run(s, "EXPLAIN SELECT id % 5, COUNT(*) FROM nums GROUP BY id % 5", &c, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c.rows), "State backend") == NULL); /* 'hashmap' */
    CHECK(run(s, "SET 'state.backend.type' = 'rocksdb'", &c, &err) == 0);
    CHECK(run(s, "SET 'state.backend.rocksdb.cache-groups' = '2'", &c, &err) == 0);
    CHECK(run(s, "SET 'execution.checkpointing.incremental' = 'true'", &c, &err) == 0);
    CHECK(run(s, "EXPLAIN SELECT id % 5, COUNT(*) FROM nums GROUP BY id % 5", &c, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c.rows), "State backend: rocksdb (GroupAggregate: groups in "
                                          "RocksDB, at most 2 per task in memory; incremental "
                                          "checkpoints)") != NULL);
    CHECK(run(s, q, &c, &err) == 0);
    char *rocks = sorted_lines(sl_strbuf_cstr(&c.rows));
    CHECK_STR(rocks, mem);
    sl_free(rocks);
    CHECK(strstr(mem, "0|1|5\n") || strstr(mem, "0|1|5")); /* key 0: id 5 */
    sl_free(mem);
    sl_strbuf_free(&c.rows);
    sl_session_free(s);
    sl_engine_close(eng);
    rmdir_all(dir);
    sl_free(dir);
}

SL_TESTS(t_every_key_has_a_reader, t_result_modes, t_default_zone, t_final_table,
         t_job_keeps_its_zone, t_state_backend)
