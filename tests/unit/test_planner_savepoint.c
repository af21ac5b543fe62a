/*
** test_planner_savepoint.c — savepoints as branch points (issue 10, items
** 1, 2 and 5) through the session API: a job resumed from an older
** savepoint of its own, a re-run with the savepoint still set, forks under
** another name ('execution.savepoint-restore-mode' claim / no_claim) into
** the sink the origin writes and into another one, a job taken over;
** two jobs writing one exactly-once sink (a WARNING, SHOW JOBS); job names
** that are no file name; SHOW JOBS counters over a job's life.
**
** Each check reads what is on disk: the sinks' committed part files (each
** id at most once), the jobs/ directory, and compares SHOW JOBS' counters
** with the committed rows.
*/
#include "sl_session_fixture.h"

#include "../../planner/sl_planner.h"

#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

/* ------------------------------------------------------------------------
** An independent reader of a filesystem sink: the ids of the committed
** (visible) part files, {"id":N} per line.
*/

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* Committed ids of dir (sorted into *ids, caller frees); returns how many. */
static int read_ids(const char *dir, long long **ids)
{
    int n = 0, cap = 0;
    *ids = NULL;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || de->d_name[0] == '_')
            continue;
        char *path = sl_sprintf("%s/%s", dir, de->d_name);
        char *text = slurp(path);
        for (const char *p = text ? strstr(text, "\"id\"") : NULL; p; p = strstr(p + 4, "\"id\"")) {
            const char *colon = strchr(p, ':');
            if (!colon)
                break;
            if (n == cap) {
                cap = cap ? cap * 2 : 1024;
                *ids = sl_realloc(*ids, (size_t)cap * sizeof(long long));
            }
            (*ids)[n++] = atoll(colon + 1);
        }
        sl_free(text);
        sl_free(path);
    }
    if (d)
        closedir(d);
    if (n > 1)
        qsort(*ids, (size_t)n, sizeof(long long), cmp_ll);
    return n;
}

/* Ids committed more than once in dir. */
static int doubled_ids(const char *dir, int *total)
{
    long long *ids;
    int n = read_ids(dir, &ids), dups = 0;
    for (int i = 1; i < n; i++)
        dups += ids[i] == ids[i - 1];
    sl_free(ids);
    if (total)
        *total = n;
    return dups;
}

/* Run an INSERT that must be refused with sqlstate. Should it start (the
** old code), let it write for a while and stop it, so that the readers see
** what it did. */
static void refused(sl_session *s, const char *sql, const char *name, const char *sqlstate,
                    collect *c, sl_error *err)
{
    int rc = run(s, sql, c, err);
    CHECK(rc == -1);
    if (rc == 0) {
        fprintf(stderr, "  (accepted: %s)\n", sql);
        wait_rows_out(s, name, 2000, c);
        char *stop = sl_sprintf("STOP JOB '%s'", name);
        sl_error e2 = SL_ERROR_INIT;
        run(s, stop, c, &e2);
        sl_error_reset(&e2);
        sl_free(stop);
        return;
    }
    CHECK_STR(err->sqlstate, sqlstate);
    CHECK(err->message && err->detail && err->hint);
}

/* Start a background INSERT, let it write more than it had, stop it (with
** a savepoint when asked); the savepoint's path, or NULL. */
static char *run_and_stop(sl_session *s, const char *sql, const char *name, bool savepoint,
                          collect *c, sl_error *err)
{
    long long before = wait_rows_out(s, name, -2, c); /* -1 when it never ran */
    CHECK(run(s, sql, c, err) == 0);
    CHECK(wait_rows_out(s, name, before + 200, c) > before + 200);
    char *stop = sl_sprintf("STOP JOB '%s'%s", name, savepoint ? " WITH SAVEPOINT" : "");
    CHECK(run(s, stop, c, err) == 0);
    sl_free(stop);
    if (!savepoint)
        return NULL;
    return sl_strndup(c->rows.buf, c->rows.len ? c->rows.len - 1 : 0);
}

/* ------------------------------------------------------------------------ */

/* Item 1: every way to a duplicate through a savepoint is refused (55000),
** the ways that do not duplicate run; the sinks' files hold each id once. */
static void t_branch_points(void)
{
    char *dir = tmpdir("branch");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);
    char *files = sl_sprintf("%s-files", dir);
    char *other = sink_sql(files, "other");
    char *out_dir = sl_sprintf("%s/out", files), *other_dir = sl_sprintf("%s/other", files);
    CHECK(run(s, other, &c, &err) == 0);
    const char *to_out = "INSERT INTO out SELECT id FROM endless";
    const char *to_other = "INSERT INTO other SELECT id FROM endless";
    CHECK(run(s, "SET 'parallelism.default' = '1'", &c, &err) == 0);

    CHECK(run(s, "SET 'pipeline.name' = 'spj'", &c, &err) == 0);
    char *p1 = run_and_stop(s, to_out, "spj", true, &c, &err);
    char *p2 = run_and_stop(s, to_out, "spj", true, &c, &err); /* resumes from p1 */
    REQUIRE(p1 && p2 && strcmp(p1, p2) != 0);
    char *set_p1 = sl_sprintf("SET 'execution.savepoint.path' = '%s'", p1);
    char *set_p2 = sl_sprintf("SET 'execution.savepoint.path' = '%s'", p2);

    /* spj from its older savepoint p1: it committed epochs after it. */
    CHECK(run(s, set_p1, &c, &err) == 0);
    refused(s, to_out, "spj", "55000", &c, &err);
    CHECK(err.message && strstr(err.message, p1));
    CHECK(err.hint && strstr(err.hint, "RESET 'execution.savepoint.path'"));
    /* The same script once more (the setting stays until RESET). */
    refused(s, to_out, "spj", "55000", &c, &err);

    /* Another name continuing spj from p1 (claim, the default) into the
    ** same sink, and into another one: spj went on after p1. */
    CHECK(run(s, "SET 'pipeline.name' = 'fork'", &c, &err) == 0);
    refused(s, to_out, "fork", "55000", &c, &err);
    CHECK(err.message && strstr(err.message, "older than checkpoint"));
    refused(s, to_other, "fork", "55000", &c, &err);

    /* A fork (no_claim) into the sink spj writes: refused; into another: runs. */
    CHECK(run(s, "SET 'execution.savepoint-restore-mode' = 'no_claim'", &c, &err) == 0);
    refused(s, to_out, "fork", "55000", &c, &err);
    CHECK(err.message && strstr(err.message, "table out"));
    sl_free(run_and_stop(s, to_other, "fork", false, &c, &err));
    /* ... once: the fork has checkpoints of its own now. */
    refused(s, to_other, "fork", "55000", &c, &err);
    /* A second fork into the first fork's sink. */
    CHECK(run(s, "SET 'pipeline.name' = 'fork2'", &c, &err) == 0);
    refused(s, to_other, "fork2", "55000", &c, &err);
    /* A fork needs its own name. */
    CHECK(run(s, "SET 'pipeline.name' = 'spj'", &c, &err) == 0);
    CHECK(run(s, set_p2, &c, &err) == 0);
    refused(s, to_other, "spj", "55000", &c, &err);

    /* Claim from spj's newest savepoint under a new name: it takes over. */
    CHECK(run(s, "RESET 'execution.savepoint-restore-mode'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'heir'", &c, &err) == 0);
    sl_free(run_and_stop(s, to_out, "heir", false, &c, &err));
    /* Then spj itself may not go on, nor a second heir. */
    CHECK(run(s, "RESET 'execution.savepoint.path'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'spj'", &c, &err) == 0);
    refused(s, to_out, "spj", "55000", &c, &err);
    CHECK(err.message && strstr(err.message, "taken over by job \"heir\""));
    CHECK(run(s, set_p2, &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'heir2'", &c, &err) == 0);
    refused(s, to_out, "heir2", "55000", &c, &err);
    /* heir itself resumes (its own checkpoints), without the setting. */
    CHECK(run(s, "RESET 'execution.savepoint.path'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'heir'", &c, &err) == 0);
    sl_free(run_and_stop(s, to_out, "heir", false, &c, &err));
    CHECK_INT(sl_engine_running_jobs(eng), 0);

    /* A branch that failed before a checkpoint of its own (restored at
    ** another parallelism than heir's checkpoint was taken at) is not
    ** started afresh: it would write heir's rows again. */
    char *set_heir = NULL;
    {
        char *hdir = sl_sprintf("%s/jobs/heir", dir);
        char *st = NULL;
        int64_t newest = -1;
        DIR *d = opendir(hdir);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL)
            if (strncmp(de->d_name, "chk-", 4) == 0 && atoll(de->d_name + 4) > newest)
                newest = atoll(de->d_name + 4);
        if (d)
            closedir(d);
        set_heir = sl_sprintf("SET 'execution.savepoint.path' = '%s/chk-%lld'", hdir,
                              (long long)newest);
        sl_free(st);
        sl_free(hdir);
    }
    CHECK(run(s, set_heir, &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'late'", &c, &err) == 0);
    CHECK(run(s, "SET 'parallelism.default' = '2'", &c, &err) == 0);
    CHECK(run(s, to_out, &c, &err) == 0); /* fails at once, in the background */
    char status[32] = "";
    for (int i = 0; i < 500 && strcmp(status, "FAILED") != 0; i++) {
        CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
        show_jobs_field(sl_strbuf_cstr(&c.rows), "late", 0, status, sizeof status);
        if (strcmp(status, "FAILED") != 0)
            pause_ms(20); /* polling a condition, bounded */
    }
    CHECK_STR(status, "FAILED");
    CHECK(run(s, "SET 'parallelism.default' = '1'", &c, &err) == 0);
    CHECK(run(s, "RESET 'execution.savepoint.path'", &c, &err) == 0);
    refused(s, to_out, "late", "55000", &c, &err);
    if (err.message && !strstr(err.message, "has no checkpoint of its own"))
        fprintf(stderr, "  refused with: %s\n", err.message);
    CHECK(err.message && strstr(err.message, "has no checkpoint of its own"));

    /* A fork into a sink a job of its own writes (no savepoint at all). */
    char *third = sink_sql(files, "third");
    char *third_dir = sl_sprintf("%s/third", files);
    CHECK(run(s, third, &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'solo'", &c, &err) == 0);
    sl_free(run_and_stop(s, "INSERT INTO third SELECT id FROM endless", "solo", false, &c, &err));
    CHECK(run(s, set_p2, &c, &err) == 0);
    CHECK(run(s, "SET 'execution.savepoint-restore-mode' = 'no_claim'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'stray'", &c, &err) == 0);
    refused(s, "INSERT INTO third SELECT id FROM endless", "stray", "55000", &c, &err);
    CHECK(err.message && strstr(err.message, "job \"solo\" writes into table third"));
    CHECK_INT(sl_engine_running_jobs(eng), 0);

    /* A damaged branch list is never decided on: XX001 naming it. */
    {
        char *bpath = sl_sprintf("%s/jobs/spj/_branches.json", dir);
        char *text = slurp(bpath);
        REQUIRE(text && strlen(text) > 20);
        FILE *f = fopen(bpath, "r+b");
        REQUIRE(f);
        fseek(f, 12, SEEK_SET);
        fputc(text[12] == 'x' ? 'y' : 'x', f);
        fclose(f);
        CHECK(run(s, "SET 'pipeline.name' = 'stray2'", &c, &err) == 0);
        CHECK(run(s, to_other, &c, &err) == -1);
        CHECK_STR(err.sqlstate, "XX001");
        CHECK(err.message && strstr(err.message, "_branches.json"));
        f = fopen(bpath, "wb"); /* as it was */
        REQUIRE(f);
        fputs(text, f);
        fclose(f);
        sl_free(text);
        sl_free(bpath);
    }

    /* The independent reader: each id at most once in each sink. */
    int n_out = 0, n_other = 0;
    CHECK_INT(doubled_ids(out_dir, &n_out), 0);
    CHECK_INT(doubled_ids(other_dir, &n_other), 0);
    CHECK(n_out > 0 && n_other > 0);
    CHECK_INT(doubled_ids(third_dir, NULL), 0);
    sl_free(third);
    sl_free(third_dir);
    sl_free(set_heir);

    sl_free(set_p1);
    sl_free(set_p2);
    sl_free(p1);
    sl_free(p2);
    sl_free(out_dir);
    sl_free(other_dir);
    sl_free(other);
    sl_free(files);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

/* Item 1: two jobs writing one exactly-once sink: a WARNING when the second
** starts, and SHOW JOBS says so on both. */
static void t_shared_sink(void)
{
    char *dir = tmpdir("shared");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);
    CHECK(run(s, "SET 'table.dml-sync' = 'true'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'one'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM nums", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.notices), "");
    CHECK(run(s, "SET 'pipeline.name' = 'two'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM nums", &c, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c.notices),
                 "job \"two\" writes into an exactly-once sink that job \"one\" writes too"));
    /* Why: the sink holds every id twice. */
    char *out_dir = sl_sprintf("%s-files/out", dir);
    int total = 0;
    CHECK_INT(doubled_ids(out_dir, &total), 10);
    CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c.rows),
                 "one|FINISHED|out|exactly-once; sink shared with job \"two\"|"));
    CHECK(strstr(sl_strbuf_cstr(&c.rows),
                 "two|FINISHED|out|exactly-once; sink shared with job \"one\"|"));
    /* A table of another name over the same directory is the same sink. */
    char *alias = sl_sprintf("CREATE TABLE alias (id BIGINT) WITH ('connector' = 'filesystem', "
                             "'path' = '%s/', 'format' = 'json')",
                             out_dir);
    CHECK(run(s, alias, &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'three'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO alias SELECT id FROM nums WHERE id = 1", &c, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c.notices), "job \"one\", \"two\" writes too"));
    sl_free(alias);
    sl_free(out_dir);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

/* Item 2: names that are no file name are refused where they are SET and
** where STOP JOB names one; nothing is written beside jobs/<name>/. */
static void t_job_names(void)
{
    char *dir = tmpdir("names");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);
    CHECK(run(s, "SET 'table.dml-sync' = 'true'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'keep'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM nums", &c, &err) == 0);

    char *long_name = sl_calloc(1, 300);
    memset(long_name, 'x', 299);
    const char *bad[] = {"", ".", "..", "a/b", "../../etc", "tab\there", "del\x7f", long_name};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *sql = sl_sprintf("SET 'pipeline.name' = '%s'", bad[i]);
        CHECK(run(s, sql, &c, &err) == -1);
        CHECK_STR(err.sqlstate, "22023");
        CHECK_INT(err.position, strstr(sql, "= '") + 2 - sql);
        sl_free(sql);
        sql = sl_sprintf("STOP JOB '%s'", bad[i]);
        CHECK(run(s, sql, &c, &err) == -1);
        CHECK_STR(err.sqlstate, "22023");
        CHECK_INT(err.position, strstr(sql, "'") - sql);
        sl_free(sql);
    }
    /* Still 'keep' (the SETs failed); with '' accepted, this job's record
    ** and pruning would be in jobs/ itself. */
    CHECK(run(s, "INSERT INTO out SELECT id FROM nums", &c, &err) == 0);
    char *jobs_rec = sl_sprintf("%s/jobs/_job.json", dir);
    char *keep_rec = sl_sprintf("%s/jobs/keep/_job.json", dir);
    CHECK(!sl_fs_exists(jobs_rec));
    CHECK(sl_fs_exists(keep_rec));
    /* A derived name from a table name too long for a file name is cut. */
    char *tname = sl_calloc(1, 300);
    memset(tname, 't', 250);
    char *files = sl_sprintf("%s-files", dir);
    char *ct = sink_sql(files, tname);
    CHECK(run(s, ct, &c, &err) == 0);
    CHECK(run(s, "RESET 'pipeline.name'", &c, &err) == 0);
    char *ins = sl_sprintf("INSERT INTO %s SELECT id FROM nums", tname);
    CHECK(run(s, ins, &c, &err) == 0);
    CHECK_STR(c.tag, "INSERT 0 10");
    sl_free(ins);
    sl_free(ct);
    sl_free(files);
    sl_free(tname);
    sl_free(jobs_rec);
    sl_free(keep_rec);
    sl_free(long_name);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

/* Item 5: SHOW JOBS' rows in / out / skipped are totals over the job's
** life: equal to what its sink committed across stops and resumes. */
static void t_lifetime_counters(void)
{
    char *dir = tmpdir("counters");
    sl_engine *eng = NULL;
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    sl_session *s = setup(dir, &eng, NULL, &c);
    REQUIRE(s);
    char *src = sl_sprintf("%s-src", dir);
    CHECK(sl_fs_mkdir_p(src, &err) == 0);
    char *ct = sl_sprintf("CREATE TABLE clicks (id BIGINT) WITH ('connector' = 'filesystem', "
                          "'path' = '%s', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true', "
                          "'source.monitor-interval' = '50 ms')",
                          src);
    CHECK(run(s, ct, &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'life'", &c, &err) == 0);
    const char *texts[] = {"1\nx\n2\ny\n3\n", "4\n5\nz\n6\n", "7\n8\n"};
    long long out = 0;
    for (int k = 0; k < 3; k++) {
        char *tmp = sl_sprintf("%s/.f%d", src, k), *path = sl_sprintf("%s/f%d.csv", src, k);
        CHECK(sl_fs_write_atomic(tmp, texts[k], strlen(texts[k]), &err) == 0);
        CHECK(rename(tmp, path) == 0);
        CHECK(run(s, "INSERT INTO out SELECT id FROM clicks", &c, &err) == 0);
        long long want = k == 0 ? 3 : k == 1 ? 6 : 8;
        out = wait_rows_out(s, "life", want - 1, &c);
        CHECK_INT(out, want);
        CHECK(run(s, "STOP JOB 'life' WITH SAVEPOINT", &c, &err) == 0);
        sl_free(tmp);
        sl_free(path);
    }
    CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
    const char *rows = sl_strbuf_cstr(&c.rows);
    CHECK_INT(show_jobs_field(rows, "life", 5, NULL, 0), 8); /* rows in */
    CHECK_INT(show_jobs_field(rows, "life", 6, NULL, 0), 8); /* rows out */
    CHECK_INT(show_jobs_field(rows, "life", 8, NULL, 0), 3); /* skipped */
    char *out_dir = sl_sprintf("%s-files/out", dir);
    int total = 0;
    CHECK_INT(doubled_ids(out_dir, &total), 0);
    CHECK_INT(total, 8);
    sl_free(out_dir);
    sl_free(ct);
    sl_free(src);
    sl_error_reset(&err);
    c_free(&c);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(dir);
}

SL_TESTS(t_job_names, t_shared_sink, t_lifetime_counters, t_branch_points)
