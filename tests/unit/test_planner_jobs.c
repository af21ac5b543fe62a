/*
** test_planner_jobs.c — INSERT jobs through the session API: background jobs
** ('table.dml-sync' = 'false') in the engine's registry, STOP JOB (its
** errors, the savepoint it leaves on disk), SHOW JOBS with live counters,
** the engine's log for background jobs' messages and failures, an engine
** that closes with jobs running, 'execution.savepoint.path', and queries at
** a parallelism above 1.
**
** Every check looks at what is on disk or in the rows the engine returns,
** not only at what it says of itself: the savepoint's _metadata, the job's
** record, the committed part files.
*/
#include "sl_session_fixture.h"

#include "../../planner/sl_planner.h"

#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char *log_text(log_box *l)
{
    pthread_mutex_lock(&l->mu);
    char *t = sl_strdup(sl_strbuf_cstr(&l->text));
    pthread_mutex_unlock(&l->mu);
    return t;
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Field k (0-based, '|'-separated) of the first row whose first field is
** name, as an integer; -1 when there is no such row. *status gets field 1. */
static long long show_jobs_field(const char *rows, const char *name, int k, char *status,
                                 size_t status_len)
{
    const char *line = rows;
    size_t nlen = strlen(name);
    while (line && *line) {
        if (strncmp(line, name, nlen) == 0 && line[nlen] == '|') {
            const char *f = line;
            for (int i = 0; i < k && f; i++) {
                f = strchr(f, '|');
                f = f ? f + 1 : NULL;
            }
            if (status) {
                const char *st = line + nlen + 1;
                size_t n = strcspn(st, "|");
                snprintf(status, status_len, "%.*s", (int)(n < status_len ? n : status_len - 1),
                         st);
            }
            return f ? atoll(f) : -1;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return -1;
}

static const char *SRC_ENDLESS =
    "CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', "
    "'rows-per-second' = '2000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
    "'fields.id.end' = '1000000000')";

static const char *SRC_NUMS =
    "CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', "
    "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10')";

/* A filesystem sink table called name writing into dir/name. */
static char *sink_sql(const char *dir, const char *name)
{
    return sl_sprintf("CREATE TABLE %s (id BIGINT) WITH ('connector' = 'filesystem', "
                      "'path' = '%s/%s', 'format' = 'json')",
                      name, dir, name);
}

/* Open dir with the log attached and a session with checkpoints every
** 100 ms; tables endless, nums and a sink "out". */
static sl_session *setup(const char *dir, sl_engine **eng, log_box *log, collect *c)
{
    sl_error err = SL_ERROR_INIT;
    if (sl_engine_open(dir, eng, &err) != 0) {
        fprintf(stderr, "open: %s\n", err.message);
        sl_error_reset(&err);
        return NULL;
    }
    if (log)
        sl_engine_set_log(*eng, on_log, log);
    sl_session *s = sl_session_new(*eng);
    char *files = sl_sprintf("%s-files", dir);
    char *out = sink_sql(files, "out");
    int rc = run(s, SRC_ENDLESS, c, &err) | run(s, SRC_NUMS, c, &err) | run(s, out, c, &err) |
             run(s, "SET 'execution.checkpointing.interval' = '100 ms'", c, &err);
    if (rc != 0)
        fprintf(stderr, "setup: %s\n", err.message);
    sl_free(out);
    sl_free(files);
    sl_error_reset(&err);
    return s;
}

/* Wait (bounded) until SHOW JOBS reports rows out > min for job name. */
static long long wait_rows_out(sl_session *s, const char *name, long long min, collect *c)
{
    sl_error err = SL_ERROR_INIT;
    long long n = -1;
    for (int i = 0; i < 1000 && n <= min; i++) {
        if (run(s, "SHOW JOBS", c, &err) != 0)
            break;
        n = show_jobs_field(sl_strbuf_cstr(&c->rows), name, 6, NULL, 0);
        if (n <= min)
            pause_ms(20); /* polling a condition, bounded */
    }
    sl_error_reset(&err);
    return n;
}

/* ------------------------------------------------------------------------ */

static void t_stop_job_errors(void)
{
    char *dir = tmpdir("errors");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);

    const char *sql = "STOP JOB 'nope' WITH SAVEPOINT";
    CHECK(run(s, sql, &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42704");
    CHECK_STR(err.message, "job \"nope\" does not exist");
    CHECK_STR(err.hint, "SHOW JOBS lists the jobs.");
    CHECK_INT(err.position, strstr(sql, "'nope'") - sql);

    /* A job that ran to its end is known, but not running. */
    CHECK(run(s, "SET 'table.dml-sync' = 'true'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'done'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM nums", &c, &err) == 0);
    CHECK_STR(c.tag, "INSERT 0 10");
    sql = "STOP JOB 'done'";
    CHECK(run(s, sql, &c, &err) == -1);
    CHECK_STR(err.sqlstate, "55000");
    CHECK_STR(err.message, "job \"done\" is not running");
    CHECK_STR(err.detail, "Its status is FINISHED.");
    CHECK_INT(err.position, strstr(sql, "'done'") - sql);
    CHECK_INT(sl_engine_running_jobs(eng), 0);

    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

static void t_background_stop_with_savepoint(void)
{
    char *dir = tmpdir("background");
    sl_engine *eng = NULL;
    collect c = {0};
    log_box log = {PTHREAD_MUTEX_INITIALIZER, SL_STRBUF_INIT};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, &log, &c);
    REQUIRE(s);

    /* The library's default is Flink's: table.dml-sync = false. */
    CHECK(run(s, "SET 'pipeline.name' = 'bg'", &c, &err) == 0);
    CHECK(run(s, "SET 'parallelism.default' = '2'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == 0);
    CHECK_STR(c.tag, "INSERT 0 0");
    CHECK_STR(sl_strbuf_cstr(&c.notices), "job \"bg\" submitted\n");
    CHECK_INT(sl_engine_running_jobs(eng), 1);

    /* The same name again, while it runs. */
    CHECK(run(s, "INSERT INTO out SELECT id * 2 FROM endless", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "55006");
    CHECK_STR(err.message, "job \"bg\" is already running");
    CHECK(err.hint && strstr(err.hint, "pipeline.name") && strstr(err.hint, "STOP JOB 'bg'"));
    CHECK_STR(sl_strbuf_cstr(&c.notices), ""); /* not "submitted" */

    /* SHOW JOBS: RUNNING, and the counters grow. */
    long long first = wait_rows_out(s, "bg", 0, &c);
    CHECK(first > 0);
    char status[32] = "";
    show_jobs_field(sl_strbuf_cstr(&c.rows), "bg", 0, status, sizeof status);
    CHECK_STR(status, "RUNNING");
    CHECK(wait_rows_out(s, "bg", first, &c) > first);

    CHECK(run(s, "STOP JOB 'bg' WITH SAVEPOINT", &c, &err) == 0);
    CHECK_STR(c.tag, "STOP JOB");
    CHECK_INT(c.nrows, 1);
    CHECK_INT(c.ncols, 1);
    CHECK_INT(sl_engine_running_jobs(eng), 0);
    /* The savepoint is on disk, sealed, and marked as a savepoint. */
    char *path = sl_strndup(c.rows.buf, c.rows.len ? c.rows.len - 1 : 0);
    char *jobdir = sl_sprintf("%s/jobs/bg/chk-", dir);
    CHECK(strncmp(path, jobdir, strlen(jobdir)) == 0);
    char *meta_path = sl_path_join(path, "_metadata");
    char *meta = slurp(meta_path);
    CHECK(meta && strstr(meta, "\"savepoint\": true"));
    /* The runtime's notice, through the engine's log, names the same path. */
    char *expect = sl_sprintf("NOTICE 00000 job \"bg\" stopped with savepoint %s\n", path);
    char *logged = log_text(&log);
    CHECK(strstr(logged, expect) != NULL);

    /* Its record: STOPPED at that checkpoint. */
    CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
    long long chk = show_jobs_field(sl_strbuf_cstr(&c.rows), "bg", 4, status, sizeof status);
    CHECK_STR(status, "STOPPED");
    CHECK_INT(chk, atoll(path + strlen(jobdir)));

    /* Now it is known but not running. */
    CHECK(run(s, "STOP JOB 'bg'", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "55000");
    CHECK_STR(err.detail, "Its status is STOPPED.");

    sl_free(logged);
    sl_free(expect);
    sl_free(meta);
    sl_free(meta_path);
    sl_free(jobdir);
    sl_free(path);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_strbuf_free(&log.text);
    sl_free(dir);
}

/* Plain STOP JOB; the job outlives the session that started it and the
** tables it uses (DROP while it runs: it planned against a snapshot). */
static void t_stop_plain_and_drop(void)
{
    char *dir = tmpdir("plain");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);
    CHECK(run(s, "SET 'pipeline.name' = 'p'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless WHERE id % 2 = 0", &c, &err) == 0);
    /* At once, while the job's thread may still be creating its tasks. */
    CHECK(run(s, "DROP TABLE endless", &c, &err) == 0);
    CHECK(run(s, "DROP TABLE out", &c, &err) == 0);
    CHECK(run(s, "CREATE TABLE out (x STRING) WITH ('connector' = 'blackhole')", &c, &err) == 0);
    sl_session_free(s);
    /* Another session stops it. */
    s = sl_session_new(eng);
    long long before = wait_rows_out(s, "p", 0, &c);
    CHECK(wait_rows_out(s, "p", before, &c) > before); /* still running after the DROPs */
    CHECK(run(s, "STOP JOB 'p'", &c, &err) == 0);
    CHECK_STR(c.tag, "STOP JOB");
    CHECK_INT(c.nrows, 0);
    char *rec_path = sl_sprintf("%s/jobs/p/_job.json", dir);
    char *rec = slurp(rec_path);
    CHECK(rec && strstr(rec, "\"status\": \"STOPPED\""));
    sl_free(rec);
    sl_free(rec_path);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

/* sl_engine_close stops running jobs with a savepoint and leaves no thread. */
static void t_close_stops_jobs(void)
{
    char *dir = tmpdir("close");
    sl_engine *eng = NULL;
    collect c = {0};
    log_box log = {PTHREAD_MUTEX_INITIALIZER, SL_STRBUF_INIT};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, &log, &c);
    REQUIRE(s);
    CHECK(run(s, "SET 'pipeline.name' = 'a'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'b'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id + 1 FROM endless", &c, &err) == 0);
    CHECK_INT(sl_engine_running_jobs(eng), 2);
    CHECK(wait_rows_out(s, "a", 0, &c) > 0);
    CHECK(wait_rows_out(s, "b", 0, &c) > 0);
    sl_session_free(s);
    sl_engine_close(eng);
    char *logged = log_text(&log);
    const char *names[] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        char *rec_path = sl_sprintf("%s/jobs/%s/_job.json", dir, names[i]);
        char *rec = slurp(rec_path);
        CHECK(rec && strstr(rec, "\"status\": \"STOPPED\""));
        char *want = sl_sprintf("job \"%s\" stopped with savepoint ", names[i]);
        const char *at = strstr(logged, want);
        CHECK(at != NULL);
        if (at) { /* that savepoint is complete */
            const char *p = at + strlen(want);
            char *sp = sl_strndup(p, strcspn(p, "\n"));
            char *meta = sl_path_join(sp, "_metadata");
            CHECK(sl_fs_exists(meta));
            sl_free(meta);
            sl_free(sp);
        }
        sl_free(want);
        sl_free(rec);
        sl_free(rec_path);
    }
    sl_free(logged);
    sl_error_reset(&err);
    c_free(&c);
    sl_strbuf_free(&log.text);
    sl_free(dir);
}

/* A background job that fails reports through the log; a bounded one that
** finishes says so; sl_engine_wait_jobs returns once both ended. */
static void t_background_failure_and_finish(void)
{
    char *dir = tmpdir("failure");
    sl_engine *eng = NULL;
    collect c = {0};
    log_box log = {PTHREAD_MUTEX_INITIALIZER, SL_STRBUF_INIT};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, &log, &c);
    REQUIRE(s);
    CHECK(run(s, "SET 'pipeline.name' = 'bad'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT 100 / (id - 5) FROM nums", &c, &err) == 0);
    CHECK_STR(c.tag, "INSERT 0 0");
    CHECK(run(s, "SET 'pipeline.name' = 'good'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM nums", &c, &err) == 0);
    CHECK_INT(sl_engine_wait_jobs(eng, NULL), 0);
    CHECK_INT(sl_engine_running_jobs(eng), 0);
    char *logged = log_text(&log);
    CHECK(strstr(logged, "ERROR 22012 job \"bad\" failed: division by zero\n") != NULL);
    CHECK(strstr(logged, "NOTICE 00000 job \"good\" finished: 10 rows written\n") != NULL);
    CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
    char status[32] = "";
    show_jobs_field(sl_strbuf_cstr(&c.rows), "bad", 0, status, sizeof status);
    CHECK_STR(status, "FAILED");
    CHECK_INT(show_jobs_field(sl_strbuf_cstr(&c.rows), "good", 6, status, sizeof status), 10);
    CHECK_STR(status, "FINISHED");
    /* What the finished job committed: every id once. */
    char *files = sl_sprintf("%s-files/out", dir);
    DIR *d = opendir(files);
    int seen[11] = {0};
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "part-", 5) != 0)
            continue;
        char *p = sl_path_join(files, de->d_name);
        char *text = slurp(p);
        for (const char *q = text ? strstr(text, "\"id\":") : NULL; q;
             q = strstr(q + 1, "\"id\":")) {
            long long id = atoll(q + 5 + strspn(q + 5, " "));
            if (id >= 1 && id <= 10)
                seen[id]++;
            else
                seen[0]++;
        }
        sl_free(text);
        sl_free(p);
    }
    if (d)
        closedir(d);
    for (int i = 1; i <= 10; i++)
        CHECK_INT(seen[i], 1);
    CHECK_INT(seen[0], 0); /* the failed job committed nothing */
    sl_free(files);
    sl_free(logged);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_strbuf_free(&log.text);
    sl_free(dir);
}

static void t_savepoint_path(void)
{
    char *dir = tmpdir("savepoint");
    sl_engine *eng = NULL;
    collect c = {0};
    log_box log = {PTHREAD_MUTEX_INITIALIZER, SL_STRBUF_INIT};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, &log, &c);
    REQUIRE(s);
    CHECK(run(s, "SET 'pipeline.name' = 'sp'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == 0);
    CHECK(wait_rows_out(s, "sp", 0, &c) > 0);
    CHECK(run(s, "STOP JOB 'sp' WITH SAVEPOINT", &c, &err) == 0);
    char *path = sl_strndup(c.rows.buf, c.rows.len ? c.rows.len - 1 : 0);

    /* A wrong path fails the INSERT itself, not the background job. */
    CHECK(run(s, "SET 'execution.savepoint.path' = 'nowhere'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    char *missing = sl_sprintf("SET 'execution.savepoint.path' = '%s/jobs/sp/chk-999'", dir);
    CHECK(run(s, missing, &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "58P01");
    CHECK(err.hint && strstr(err.hint, "RESET"));
    CHECK_INT(sl_engine_running_jobs(eng), 0);
    /* Queries ignore it. */
    CHECK(run(s, "SELECT COUNT(*) AS n FROM nums", &c, &err) == 0);

    /* From the savepoint: the job says so, through the engine's log. */
    char *set = sl_sprintf("SET 'execution.savepoint.path' = '%s'", path);
    CHECK(run(s, set, &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == 0);
    char *logged = NULL;
    for (int i = 0; i < 1000; i++) { /* polling a condition, bounded */
        sl_free(logged);
        logged = log_text(&log);
        if (strstr(logged, path))
            break;
        pause_ms(20);
    }
    CHECK(strstr(logged, "job \"sp\"") && strstr(logged, path));
    sl_free(logged);
    CHECK(wait_rows_out(s, "sp", 0, &c) > 0);
    CHECK(run(s, "STOP JOB 'sp'", &c, &err) == 0);
    char *rec_path = sl_sprintf("%s/jobs/sp/_job.json", dir);
    char *rec = slurp(rec_path);
    CHECK(rec && strstr(rec, "\"status\": \"STOPPED\""));
    sl_free(rec);
    sl_free(rec_path);
    sl_free(set);
    sl_free(missing);
    sl_free(path);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_strbuf_free(&log.text);
    sl_free(dir);
}

/* Queries run at parallelism 2: every row arrives once. */
static void t_query_parallel(void)
{
    char *dir = tmpdir("query");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);
    CHECK(run(s, "SET 'parallelism.default' = '0'", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK(run(s, "SET 'parallelism.default' = '2'", &c, &err) == 0);
    CHECK(run(s, "SELECT id FROM nums", &c, &err) == 0);
    CHECK_STR(c.tag, "SELECT 10");
    int seen[11] = {0};
    for (const char *p = sl_strbuf_cstr(&c.rows); *p; p = strchr(p, '\n') + 1) {
        int id = atoi(p);
        if (id >= 1 && id <= 10)
            seen[id]++;
    }
    for (int i = 1; i <= 10; i++)
        CHECK_INT(seen[i], 1);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

/* A synchronous job's progress callback (sl_session_set_progress): it
** stops the job (the interrupt flag) after a few calls. */
typedef struct progress_box {
    int calls;
    bool monotonic;           /* rows in never went down */
    int64_t rows_in;          /* the last call's */
    int64_t last_checkpoint;  /* the last call's */
    char name[32];
    volatile sig_atomic_t stop;
} progress_box;

static void on_progress(void *ctx, const sl_job_progress *p)
{
    progress_box *b = ctx;
    if (p->rows_in < b->rows_in)
        b->monotonic = false;
    b->rows_in = p->rows_in;
    b->last_checkpoint = p->last_checkpoint;
    snprintf(b->name, sizeof b->name, "%s", p->name);
    if (++b->calls >= 8 && p->last_checkpoint >= 1)
        b->stop = 1;
}

/* sl_engine_job_json (what DESCRIBE JOB shows, for other front ends),
** sl_engine_job_names, and a synchronous job's progress. */
static void t_job_json_and_progress(void)
{
    char *dir = tmpdir("json");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);
    progress_box b = {0, true, 0, -1, "", 0};
    sl_session_set_progress(s, on_progress, &b);
    sl_session_set_interrupt(s, &b.stop);
    CHECK(run(s, "SET 'table.dml-sync' = 'true'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'pj'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == 0);
    CHECK(b.calls >= 8 && b.monotonic);
    CHECK_STR(b.name, "pj");
    sl_session_set_interrupt(s, NULL);
    sl_session_set_progress(s, NULL, NULL);

    char *text = sl_engine_job_json(eng, "pj", &err);
    REQUIRE(text);
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    REQUIRE(o);
    CHECK_STR(json_string_value(json_object_get(o, "status")), "STOPPED");
    CHECK_STR(json_string_value(json_object_get(o, "statement")),
              "INSERT INTO out SELECT id FROM endless");
    CHECK(json_integer_value(json_object_get(o, "rows_in")) >= b.rows_in);
    CHECK(json_integer_value(json_object_get(o, "started")) > 0);
    json_t *chks = json_object_get(o, "checkpoints");
    CHECK(json_array_size(chks) >= 1);
    json_t *lastc = json_array_get(chks, json_array_size(chks) - 1);
    int64_t epoch = json_integer_value(json_object_get(lastc, "epoch"));
    CHECK_INT(epoch, json_integer_value(json_object_get(o, "last_checkpoint")));
    CHECK(json_integer_value(json_object_get(lastc, "bytes")) > 0);
    /* The newest checkpoint of the history is on disk. */
    char *chk = sl_sprintf("%s/jobs/pj/chk-%lld/_metadata", dir, (long long)epoch);
    CHECK(access(chk, F_OK) == 0);
    for (size_t i = 1; i < json_array_size(chks); i++) /* epochs ascending */
        CHECK(json_integer_value(json_object_get(json_array_get(chks, i), "epoch")) >
              json_integer_value(json_object_get(json_array_get(chks, i - 1), "epoch")));
    sl_list *names = sl_engine_job_names(eng);
    CHECK_INT(names->n, 1);
    CHECK_STR(names->n ? (const char *)names->items[0] : "", "pj");
    sl_list_free(names, sl_free);
    CHECK(sl_engine_job_json(eng, "nope", &err) == NULL);
    CHECK_STR(err.sqlstate, "42704");
    sl_error_reset(&err);

    /* A background job: RUNNING, with a rate once a second has passed. */
    CHECK(run(s, "SET 'table.dml-sync' = 'false'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'bj'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM endless", &c, &err) == 0);
    double rate = 0;
    for (int i = 0; i < 250 && rate <= 0; i++) {
        char *t = sl_engine_job_json(eng, "bj", &err);
        json_t *j = t ? json_loads(t, 0, &jerr) : NULL;
        CHECK_STR(json_string_value(json_object_get(j, "status")), "RUNNING");
        rate = json_number_value(json_object_get(j, "rate"));
        json_decref(j);
        sl_free(t);
        if (rate <= 0)
            pause_ms(20); /* polling a condition, bounded */
    }
    CHECK(rate > 0);
    CHECK(run(s, "STOP JOB 'bj'", &c, &err) == 0);

    sl_free(chk);
    json_decref(o);
    sl_free(text);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

/* A background job whose windows cannot fire (a constant event time): the
** stall check's warning reaches the engine's log once and SHOW JOBS' last
** column (warning) while the job runs, through the planner API. */
static void t_stall_warning(void)
{
    char *dir = tmpdir("stall");
    sl_engine *eng = NULL;
    collect c = {0};
    log_box log = {PTHREAD_MUTEX_INITIALIZER, SL_STRBUF_INIT};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, &log, &c);
    REQUIRE(s);
    CHECK(run(s,
              "CREATE TABLE frozen (id BIGINT, ts AS TIMESTAMP '2026-01-01 00:00:00', "
              "WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'rows-per-second' = "
              "'200')",
              &c, &err) == 0);
    CHECK(run(s, "CREATE TABLE counts (n BIGINT) WITH ('connector' = 'blackhole')", &c, &err) ==
          0);
    CHECK(run(s, "SET 'table.exec.watermark.stall-warning' = '500 ms'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'stuck'", &c, &err) == 0);
    CHECK(run(s,
              "INSERT INTO counts SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE frozen, "
              "DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
              &c, &err) == 0);
    const char *want = "windows are not firing because the watermark of source frozen has not "
                       "advanced for ";
    bool shown = false;
    for (int i = 0; i < 300 && !shown; i++) { /* polling a condition, bounded (15 s) */
        CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
        const char *row = strstr(sl_strbuf_cstr(&c.rows), "stuck|");
        const char *last = row ? strchr(row, '\n') : NULL;
        const char *bar = last ? last : row ? row + strlen(row) : NULL;
        while (bar && bar > row && bar[-1] != '|')
            bar--;
        shown = bar && strncmp(bar, want, strlen(want)) == 0;
        if (!shown)
            pause_ms(50);
    }
    CHECK(shown);
    CHECK(run(s, "STOP JOB 'stuck'", &c, &err) == 0);
    pthread_mutex_lock(&log.mu);
    const char *text = sl_strbuf_cstr(&log.text);
    const char *first = strstr(text, want);
    CHECK(first && strstr(text, "WARNING") && strstr(text, "job \"stuck\": windows are not"));
    CHECK(first && !strstr(first + 1, want)); /* once */
    pthread_mutex_unlock(&log.mu);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_strbuf_free(&log.text);
    sl_free(dir);
}

SL_TESTS(t_stop_job_errors, t_background_stop_with_savepoint, t_stop_plain_and_drop,
         t_close_stops_jobs, t_background_failure_and_finish, t_savepoint_path, t_query_parallel,
         t_job_json_and_progress, t_stall_warning)
