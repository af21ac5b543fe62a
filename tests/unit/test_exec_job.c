/*
** test_exec_job.c — the checkpoint and commit protocol of sl_job_run, with a
** deterministic test source and a file-backed two-phase-commit test sink.
**
** A failure is injected at every step a job takes in turn (each source poll
** and position, each sink write, pre_commit and commit): the run fails there,
** as a crash would, and the job is started again until it finishes. An
** independent reader then checks the committed files: every input row
** exactly once, nothing from an undecided epoch. A sink that skips the
** protocol (commits at write time) must be caught by the same check.
*/
#include "sl_test.h"

#include "../../exec/sl_exec.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define N_ROWS 2000 /* rows the source produces */
#define CHUNK 97    /* rows per poll */

/* Failure injection: the step counter runs across the whole job; the step
** equal to fail_at fails. */
static _Atomic int g_step, g_injected; /* steps taken, failures injected (tasks are threads) */
static int g_fail_at;
static int g_incarnation; /* which run of the job: part of the sink's file names */
static bool g_sloppy; /* the sink makes rows visible at write time (wrong) */

static bool fail_now(void)
{
    bool fail = ++g_step == g_fail_at;
    if (fail)
        g_injected++;
    return fail;
}

static const char *g_fail_where; /* fail once, at the first failpoint of that name */

static int failpoint(void *ctx, const char *where)
{
    (void)ctx;
    if (g_fail_where && where && strcmp(where, g_fail_where) == 0) {
        g_fail_where = NULL;
        g_injected++;
        return 1;
    }
    return fail_now();
}

/* ---- test source: the integers 0 .. N_ROWS-1 ---- */
typedef struct tsrc {
    sl_source src;   /* first */
    int64_t next;    /* next value */
    int parallelism; /* subtask k of p reads the values v with v % p == k */
} tsrc;

static int src_poll(sl_source *s, sl_chunk *out, sl_error *err)
{
    tsrc *t = s->impl;
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected source failure");
    usleep(4000); /* a slow source: periodic checkpoints happen in between */
    while (out->nrows < out->cap && out->nrows < CHUNK && t->next < N_ROWS) {
        int r = sl_chunk_append_row(out, SL_ROW_INSERT);
        sl_chunk_set_i64(out, 0, r, t->next);
        t->next += t->parallelism;
    }
    return t->next >= N_ROWS ? SL_SOURCE_END : SL_SOURCE_MORE;
}

static int src_position(sl_source *s, sl_strbuf *out, sl_error *err)
{
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected position failure");
    sl_strbuf_appendf(out, "%lld", (long long)((tsrc *)s->impl)->next);
    return 0;
}

static int src_seek(sl_source *s, const char *pos, size_t len, sl_error *err)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", (int)len, pos);
    ((tsrc *)s->impl)->next = atoll(buf);
    return 0;
}

static int64_t src_skipped(sl_source *s)
{
    return 0;
}

static void src_free(sl_source *s)
{
    sl_free(s->impl);
}

static const sl_source_ops src_ops = {.poll = src_poll,
                                      .position = src_position,
                                      .seek = src_seek,
                                      .skipped = src_skipped,
                                      .free = src_free};

static int src_create(const sl_source_args *a, sl_source **out, sl_error *err)
{
    tsrc *t = sl_calloc(1, sizeof *t);
    t->src.ops = &src_ops;
    t->src.impl = t;
    t->next = a->subtask;
    t->parallelism = a->parallelism;
    *out = &t->src;
    return 0;
}

/* ---- test sink: epoch-N.pending files renamed to epoch-N.done ---- */
static char g_dir[512];

typedef struct tsink {
    sl_sink sink;  /* first */
    int64_t epoch; /* open epoch */
    int subtask;   /* this instance */
    FILE *f;       /* its pending file */
} tsink;

/* Like a real sink, file names are unique per incarnation and instance, so
** a replayed epoch can never overwrite (and so hide) data committed before. */
static char *path_of(int64_t epoch, int incarnation, int subtask, const char *state)
{
    return sl_sprintf("%s/epoch-%lld-%d-%d.%s", g_dir, (long long)epoch, incarnation, subtask,
                      state);
}

static int snk_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    tsink *t = s->impl;
    t->epoch = epoch;
    char *p = g_sloppy ? sl_sprintf("%s/visible-%d.done", g_dir, t->subtask)
                       : path_of(epoch, g_incarnation, t->subtask, "pending");
    t->f = fopen(p, g_sloppy ? "a" : "w");
    sl_free(p);
    return t->f ? 0 : sl_error_set(err, SL_ERR_IO, -1, "open failed");
}

static int snk_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    tsink *t = s->impl;
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected write failure");
    for (int r = 0; r < c->nrows; r++)
        fprintf(t->f, "%lld\n", (long long)c->cols[0].v.i64[r]);
    if (g_sloppy)
        fflush(t->f);
    return 0;
}

static int snk_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    tsink *t = s->impl;
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected pre_commit failure");
    if (g_sloppy) { /* nothing to commit: the rows are visible already */
        fflush(t->f);
        fclose(t->f);
        t->f = NULL;
        return 0;
    }
    fflush(t->f);
    fsync(fileno(t->f));
    fclose(t->f);
    t->f = NULL;
    sl_strbuf_appendf(committable, "%lld %d %d", (long long)epoch, g_incarnation, t->subtask);
    return 0;
}

static int commit_epoch(const char *c, size_t len)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)len, c);
    long long e = 0;
    int inc = 0, sub = 0;
    if (sscanf(buf, "%lld %d %d", &e, &inc, &sub) != 3)
        return -1;
    char *from = path_of(e, inc, sub, "pending"), *to = path_of(e, inc, sub, "done");
    int rc = 0;
    if (rename(from, to) != 0 && !sl_fs_exists(to)) /* idempotent */
        rc = -1;
    if (rc && getenv("SLUICE_TEST_VERBOSE"))
        fprintf(stderr, "commit: %s missing\n", from);
    sl_free(from);
    sl_free(to);
    return rc;
}

static int snk_commit(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected commit failure");
    return commit_epoch(c, len) == 0 ? 0 : sl_error_set(err, SL_ERR_IO, -1, "data lost");
}

static int snk_abort(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}

static int snk_recover(sl_sink *s, const char *const *cs, const size_t *lens, int n, sl_error *err)
{
    for (int i = 0; i < n; i++)
        if (lens[i] > 0 && commit_epoch(cs[i], lens[i]) != 0)
            return sl_error_set(err, SL_ERR_IO, -1, "data of a decided checkpoint is missing");
    /* Discard every other pending epoch. */
    DIR *d = opendir(g_dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (strstr(de->d_name, ".pending")) {
            char *p = sl_sprintf("%s/%s", g_dir, de->d_name);
            unlink(p);
            sl_free(p);
        }
    }
    if (d)
        closedir(d);
    return 0;
}

static void snk_free(sl_sink *s)
{
    tsink *t = s->impl;
    if (t->f)
        fclose(t->f);
    sl_free(t);
}

static const sl_sink_ops snk_ops = {snk_begin,  snk_write,   snk_pre_commit, snk_commit,
                                    snk_abort,  snk_recover, snk_free,       NULL, NULL};

static int snk_create(const sl_sink_args *a, sl_sink **out, sl_error *err)
{
    tsink *t = sl_calloc(1, sizeof *t);
    t->sink.ops = &snk_ops;
    t->sink.impl = t;
    t->subtask = a->subtask;
    *out = &t->sink;
    return 0;
}

/* ---- the independent reader ---- */

static bool g_last_resource; /* the jobs write through a last-resource participant */
static int lr_create(const sl_participant_args *a, sl_participant **out, sl_error *err);
static int lrs_create(const sl_sink_args *a, sl_sink **out, sl_error *err);

static void count_value(long long v, int *seen, int *bad)
{
    if (v < 0 || v >= N_ROWS)
        (*bad)++;
    else
        seen[v]++;
}

/* The values of the committed (done) files into seen. */
static void read_done_files(int *seen, int *bad)
{
    DIR *d = opendir(g_dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, ".done"))
            continue;
        char *p = sl_sprintf("%s/%s", g_dir, de->d_name);
        FILE *f = fopen(p, "r");
        long long v;
        while (f && fscanf(f, "%lld", &v) == 1)
            count_value(v, seen, bad);
        if (f)
            fclose(f);
        sl_free(p);
    }
    if (d)
        closedir(d);
}

static void read_txnlog(int *seen, int *bad);

/* The independent reader: each value committed — in the done files, or in
** the participant's log — once; returns how many values are wrong
** (missing or doubled or foreign). */
static int check_output(void)
{
    static int seen[N_ROWS];
    memset(seen, 0, sizeof seen);
    int bad = 0;
    if (g_last_resource)
        read_txnlog(seen, &bad);
    else
        read_done_files(seen, &bad);
    for (int i = 0; i < N_ROWS; i++)
        bad += seen[i] != 1;
    return bad;
}

static _Atomic int64_t g_clock;
static int64_t fake_now(void *ctx)
{
    return g_clock += 3 * SL_NANOS_PER_MILLI; /* 3 ms per look at the clock */
}

static void fresh_dir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    snprintf(g_dir, sizeof g_dir, "%s/job-%d/%s", base ? base : "/tmp", (int)getpid(), name);
    sl_error err = SL_ERROR_INIT;
    sl_fs_remove_tree(g_dir, &err);
    sl_fs_mkdir_p(g_dir, &err);
    sl_error_reset(&err);
}

static sl_input_spec g_input;
static int g_parallelism = 1; /* tasks per input; 2 adds a hash exchange before the sink */
static const int g_key[1] = {0};
static const sl_stage_spec g_stage = {SL_EXCHANGE_HASH, 1, g_key, 2, 0, NULL, 0, 0, 0};

static sl_job_spec make_spec(const sl_type *types, const char **names)
{
    sl_job_spec spec;
    memset(&spec, 0, sizeof spec);
    memset(&g_input, 0, sizeof g_input);
    g_input.create_source = src_create;
    g_input.source_args.ncols = 1;
    g_input.source_args.names = names;
    g_input.source_args.types = types;
    spec.parallelism = g_parallelism;
    spec.ninputs = 1;
    spec.inputs = &g_input;
    if (g_parallelism > 1) { /* 2 readers -> hash by value -> 2 sink tasks */
        spec.nstages = 1;
        spec.stages = &g_stage;
    }
    spec.name = "test-job";
    spec.data_dir = g_dir;
    spec.checkpoint_interval_ms = 20;
    spec.retain = 2;
    spec.create_sink = snk_create;
    spec.sink_args = (sl_sink_args){.ncols = 1,
                                    .names = names,
                                    .types = types,
                                    .parallelism = 1,
                                    .table = "out",
                                    .job = "test-job"};
    spec.limit = -1;
    spec.now = fake_now;
    spec.failpoint = failpoint;
    if (g_last_resource) { /* the sink writes through a last-resource participant */
        static const char *const tables[1] = {"out"};
        spec.create_sink = lrs_create;
        spec.sink_args.participates = true;
        static sl_participant_spec part;
        part = (sl_participant_spec){lr_create, {.nsinks = 1, .tables = tables, .job = "test-job"}};
        spec.nparticipants = 1;
        spec.participants = &part;
    }
    return spec;
}

/* Run the job, failing at step fail_at, then restart until it finishes.
** Returns the number of runs. */
static int run_with_failure(int fail_at, sl_job_stats *last)
{
    sl_type types[1] = {sl_type_make(SL_TYPE_BIGINT)};
    const char *names[1] = {"v"};
    sl_job_spec spec = make_spec(types, names);
    g_step = 0;
    g_fail_at = fail_at;
    int runs = 0;
    for (;;) {
        sl_error err = SL_ERROR_INIT;
        runs++;
        g_incarnation++;
        int rc = sl_job_run(&spec, last, &err);
        if (rc != 0 && getenv("SLUICE_TEST_VERBOSE") && (g_fail_at == 0 || g_parallelism > 1))
            fprintf(stderr, "run %d: %s\n", runs, err.message);
        sl_error_reset(&err);
        if (rc == 0 && last->finished)
            return runs;
        if (runs > 5)
            return runs;
    }
}

static void t_no_failure(void)
{
    fresh_dir("clean");
    sl_job_stats st;
    CHECK_INT(run_with_failure(0, &st), 1);
    CHECK(st.finished);
    CHECK_INT(st.rows_in, N_ROWS);
    CHECK_INT(st.rows_out, N_ROWS);
    CHECK(st.checkpoints >= 2); /* periodic ones and the final one */
    CHECK_INT(st.restored_from, -1);
    CHECK_INT(check_output(), 0);
    /* Running the finished job again resumes at its end: nothing new. */
    sl_job_stats again;
    CHECK_INT(run_with_failure(0, &again), 1);
    CHECK_INT(again.restored_from, st.last_checkpoint);
    CHECK_INT(again.rows_in, 0);
    CHECK_INT(check_output(), 0);
}

static void t_failure_at_every_step(void)
{
    /* Count the steps of a clean run, then fail at each one in turn. */
    fresh_dir("count");
    sl_job_stats st;
    run_with_failure(0, &st);
    int steps = g_step;
    REQUIRE(steps > 50);
    int failures = 0, restarts = 0;
    g_injected = 0;
    for (int k = 1; k <= steps; k++) {
        char name[32];
        snprintf(name, sizeof name, "fail-%d", k);
        fresh_dir(name);
        int runs = run_with_failure(k, &st);
        CHECK(st.finished);
        int bad = check_output();
        if (bad) {
            fprintf(stderr, "failure at step %d: %d values wrong\n", k, bad);
            failures++;
        }
        restarts += runs - 1;
        sl_error err = SL_ERROR_INIT;
        sl_fs_remove_tree(g_dir, &err);
    }
    CHECK_INT(failures, 0);
    /* Every injected failure really failed a run. The tasks are threads and
    ** checkpoints follow the clock, so a run may take fewer steps than the
    ** counted one (a busy machine counts more checkpoints), and a late k may
    ** not be reached: most must be. */
    CHECK_INT(restarts, g_injected);
    if (g_injected < steps / 2)
        fprintf(stderr, "only %d of %d failure points were reached\n", (int)g_injected, steps);
    CHECK(g_injected >= steps / 2);
}

static void t_check_detects_sloppy_sink(void)
{
    /* A sink that makes rows visible when written (no two-phase commit) loses
    ** the guarantee: after a failure and a restart its output has doubles, and
    ** the reader sees them. This shows the check can fail. */
    g_sloppy = true;
    int caught = 0;
    for (int k = 20; k <= 40; k++) {
        fresh_dir("sloppy");
        sl_job_stats st;
        run_with_failure(k, &st);
        caught += check_output() > 0;
    }
    g_sloppy = false;
    CHECK(caught > 0);
}

/* The same at parallelism 2: two source tasks, a hash exchange, two sink
** tasks: barriers are aligned over two lanes, each sink commits its part. */
static void t_parallel_no_failure(void)
{
    g_parallelism = 2;
    t_no_failure();
    g_parallelism = 1;
}

static void t_parallel_failure_at_every_step(void)
{
    g_parallelism = 2;
    t_failure_at_every_step();
    g_parallelism = 1;
}

static void t_parallel_sloppy(void)
{
    g_parallelism = 2;
    t_check_detects_sloppy_sink();
    g_parallelism = 1;
}

/* Restoring into another shape (parallelism) is refused, not guessed. */
static void t_restore_other_parallelism(void)
{
    fresh_dir("reshape");
    sl_job_stats st;
    run_with_failure(0, &st);
    REQUIRE(st.finished);
    g_parallelism = 2;
    sl_type types[1] = {sl_type_make(SL_TYPE_BIGINT)};
    const char *names[1] = {"v"};
    sl_job_spec spec = make_spec(types, names);
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_job_run(&spec, &st, &err), -1);
    CHECK_STR(err.sqlstate, "55000");
    CHECK(strstr(err.message, "different plan or parallelism") != NULL);
    sl_error_reset(&err);
    g_parallelism = 1;
    CHECK_INT(check_output(), 0);
}

/* A Calc that ends a chain keeps no state and no operator's index follows
** it: a plan that merged it away (or added one) restores the checkpoint,
** and the job resumes where it was (nothing read twice). */
static void t_restore_trailing_calc(void)
{
    fresh_dir("trailing-calc");
    sl_job_stats st;
    run_with_failure(0, &st);
    REQUIRE(st.finished);
    sl_type types[1] = {sl_type_make(SL_TYPE_BIGINT)};
    const char *names[1] = {"v"};
    sl_job_spec spec = make_spec(types, names);
    static const sl_calc_spec pass = {NULL, false, 0, NULL, NULL};
    sl_step_spec steps[2] = {{.calc = &pass}, {.calc = &pass}};
    g_input.nsteps = 2;
    g_input.steps = steps;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_job_run(&spec, &st, &err), 0);
    if (sl_error_isset(&err))
        fprintf(stderr, "restore: %s\n%s\n", err.message, err.detail);
    sl_error_reset(&err);
    memset(&g_input, 0, sizeof g_input);
    CHECK_INT(check_output(), 0);
}

/* execution.savepoint.path: a job under another name starts from a
** savepoint of the first; its epochs continue after the savepoint's. */
static void t_restore_path(void)
{
    fresh_dir("from-savepoint");
    sl_job_stats st;
    run_with_failure(0, &st);
    REQUIRE(st.finished);
    char *chk = sl_sprintf("%s/jobs/test-job/chk-%lld", g_dir, (long long)st.last_checkpoint);
    sl_type types[1] = {sl_type_make(SL_TYPE_BIGINT)};
    const char *names[1] = {"v"};
    sl_job_spec spec = make_spec(types, names);
    spec.name = "second-job";
    spec.restore_path = chk;
    sl_error err = SL_ERROR_INIT;
    sl_job_stats again;
    CHECK_INT(sl_job_run(&spec, &again, &err), 0);
    CHECK_INT(again.restored_from, st.last_checkpoint);
    CHECK_INT(again.rows_in, 0); /* the input was read to its end already */
    CHECK(again.last_checkpoint > st.last_checkpoint);
    CHECK_INT(check_output(), 0);
    spec.restore_path = "/nonexistent/chk-3";
    CHECK_INT(sl_job_run(&spec, &again, &err), -1);
    CHECK_STR(err.sqlstate, "58P01");
    sl_error_reset(&err);
    spec.restore_path = g_dir;
    CHECK_INT(sl_job_run(&spec, &again, &err), -1);
    CHECK_STR(err.sqlstate, "22023");
    sl_error_reset(&err);
    sl_free(chk);
}

/* ---- a last-resource participant, as Kafka's transactions behave ----
**
** The "broker" is two files in the test dir: txnlog holds what was
** committed (lines "row <v>" and "decided <N>"), replaced atomically by
** each commit; txngen is the generation, bumped by every recover() (the
** fencing of init_transactions). Open transactions live only in memory:
** a crash (a failed run) loses them, as Kafka aborts them. Sink instances
** write epoch N's rows into the open transaction N; decide(N) appends them
** and "decided N" in one atomic replace. */
typedef struct lr_txn {
    int64_t epoch;  /* open epoch, -1 = none */
    sl_strbuf rows; /* its rows, "row <v>\n" each */
} lr_txn;

typedef struct lr_part {
    sl_participant part; /* first */
    pthread_mutex_t mu;  /* guards txn */
    lr_txn txn[2];       /* epoch % 2 */
    long gen;            /* our generation */
} lr_part;

static bool g_lr_lies; /* recover() forgets the decisions it holds (wrong) */

static char *lr_path(const char *name)
{
    return sl_sprintf("%s/%s", g_dir, name);
}

static long lr_read_gen(void)
{
    char *p = lr_path("txngen");
    FILE *f = fopen(p, "r");
    long g = 0;
    if (f && fscanf(f, "%ld", &g) != 1)
        g = 0;
    if (f)
        fclose(f);
    sl_free(p);
    return g;
}

/* The newest "decided N" of the log. */
static int64_t lr_read_decided(void)
{
    int64_t decided = -1;
    char *path = lr_path("txnlog");
    FILE *f = fopen(path, "r");
    sl_free(path);
    char line[64];
    long long n;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "decided %lld", &n) == 1)
            decided = n;
    if (f)
        fclose(f);
    return g_lr_lies ? -1 : decided;
}

static int lr_recover(sl_participant *sp, int64_t *decided, sl_error *err)
{
    lr_part *p = sp->impl;
    p->gen = lr_read_gen() + 1; /* fence every earlier incarnation */
    char *path = lr_path("txngen");
    char buf[32];
    snprintf(buf, sizeof buf, "%ld\n", p->gen);
    int rc = sl_fs_write_atomic(path, buf, strlen(buf), err);
    sl_free(path);
    *decided = lr_read_decided();
    return rc;
}

static int lr_peek(sl_participant *sp, int64_t *decided, sl_error *err)
{
    (void)sp;
    (void)err;
    *decided = lr_read_decided();
    return 0;
}

static int lr_decide(sl_participant *sp, int64_t epoch, sl_error *err)
{
    lr_part *p = sp->impl;
    if (fail_now()) /* a crash before the commit */
        return sl_error_set(err, SL_ERR_IO, -1, "injected failure before the commit");
    if (lr_read_gen() != p->gen)
        return sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1, "fenced");
    pthread_mutex_lock(&p->mu);
    lr_txn *x = &p->txn[epoch % 2];
    char *path = lr_path("txnlog"), *old = NULL;
    size_t len = 0;
    sl_error ignore = SL_ERROR_INIT;
    sl_fs_read_file(path, &old, &len, &ignore);
    sl_error_reset(&ignore);
    sl_strbuf all = SL_STRBUF_INIT;
    if (old)
        sl_strbuf_append_n(&all, old, len);
    if (x->epoch == epoch)
        sl_strbuf_append_n(&all, sl_strbuf_cstr(&x->rows), x->rows.len);
    sl_strbuf_appendf(&all, "decided %lld\n", (long long)epoch);
    int rc = sl_fs_write_atomic(path, all.buf, all.len, err); /* the decision */
    sl_strbuf_reset(&x->rows);
    x->epoch = -1;
    pthread_mutex_unlock(&p->mu);
    sl_strbuf_free(&all);
    sl_free(old);
    sl_free(path);
    return rc;
}

static void lr_free(sl_participant *sp)
{
    lr_part *p = sp->impl;
    for (int i = 0; i < 2; i++)
        sl_strbuf_free(&p->txn[i].rows);
    pthread_mutex_destroy(&p->mu);
    sl_free(p);
}

/* ---- a preparable participant, as PostgreSQL's prepared transactions ----
**
** prepare(N) writes epoch N's rows to prep-<N> (durable, invisible: the
** reader does not look there); commit(N) moves them into txnlog with
** "decided N" (idempotent: a txnlog holding "decided N" already has them);
** resolve(D) commits the prep files of epochs <= D, deletes the others,
** then fences (txngen). recover/peek: the newest epoch in txnlog. */
static bool g_preparable; /* the jobs' participant is preparable */
static bool g_prep_lies;  /* resolve() rolls back everything, decided or not (wrong) */

static bool txnlog_has(int64_t epoch)
{
    int64_t found = 0;
    char *path = lr_path("txnlog");
    FILE *f = fopen(path, "r");
    sl_free(path);
    char line[64];
    long long n;
    while (f && fgets(line, sizeof line, f) && !found)
        found = sscanf(line, "decided %lld", &n) == 1 && n == epoch;
    if (f)
        fclose(f);
    return found;
}

static int prep_prepare(sl_participant *sp, int64_t epoch, sl_error *err)
{
    lr_part *p = sp->impl;
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected failure before PREPARE");
    if (lr_read_gen() != p->gen)
        return sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1, "fenced");
    pthread_mutex_lock(&p->mu);
    lr_txn *x = &p->txn[epoch % 2];
    char name[32];
    snprintf(name, sizeof name, "prep-%lld", (long long)epoch);
    char *path = lr_path(name);
    int rc = sl_fs_write_atomic(path, x->epoch == epoch ? sl_strbuf_cstr(&x->rows) : "",
                                x->epoch == epoch ? x->rows.len : 0, err);
    sl_strbuf_reset(&x->rows);
    x->epoch = -1;
    pthread_mutex_unlock(&p->mu);
    sl_free(path);
    return rc;
}

/* COMMIT PREPARED: idempotent. */
static int prep_commit_file(int64_t epoch, sl_error *err)
{
    char name[32];
    snprintf(name, sizeof name, "prep-%lld", (long long)epoch);
    char *path = lr_path(name), *rows = NULL, *logp = lr_path("txnlog"), *old = NULL;
    size_t len = 0, olen = 0;
    sl_error ignore = SL_ERROR_INIT;
    int rc = 0;
    if (sl_fs_read_file(path, &rows, &len, &ignore) == 0 && !txnlog_has(epoch)) {
        sl_fs_read_file(logp, &old, &olen, &ignore);
        sl_strbuf all = SL_STRBUF_INIT;
        if (old)
            sl_strbuf_append_n(&all, old, olen);
        sl_strbuf_append_n(&all, rows, len);
        sl_strbuf_appendf(&all, "decided %lld\n", (long long)epoch);
        rc = sl_fs_write_atomic(logp, all.buf, all.len, err);
        sl_strbuf_free(&all);
    }
    sl_error_reset(&ignore);
    if (rc == 0)
        unlink(path);
    sl_free(rows);
    sl_free(old);
    sl_free(path);
    sl_free(logp);
    return rc;
}

static int prep_commit(sl_participant *sp, int64_t epoch, sl_error *err)
{
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected failure before COMMIT PREPARED");
    return prep_commit_file(epoch, err);
}

static int prep_resolve(sl_participant *sp, int64_t decided, sl_error *err)
{
    lr_part *p = sp->impl;
    DIR *d = opendir(g_dir);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && d && (de = readdir(d)) != NULL) {
        long long n;
        if (sscanf(de->d_name, "prep-%lld", &n) != 1)
            continue;
        if (n <= decided && !g_prep_lies) {
            rc = prep_commit_file(n, err);
        } else {
            char *path = lr_path(de->d_name);
            unlink(path);
            sl_free(path);
        }
    }
    if (d)
        closedir(d);
    if (rc != 0)
        return rc;
    p->gen = lr_read_gen() + 1; /* fence every earlier incarnation */
    char *path = lr_path("txngen");
    char buf[32];
    snprintf(buf, sizeof buf, "%ld\n", p->gen);
    rc = sl_fs_write_atomic(path, buf, strlen(buf), err);
    sl_free(path);
    return rc;
}

static int prep_recover(sl_participant *sp, int64_t *decided, sl_error *err)
{
    (void)sp;
    (void)err;
    *decided = lr_read_decided();
    return 0;
}

static const sl_participant_ops lr_ops = {
    .recover = lr_recover, .decide = lr_decide, .free = lr_free};
static const sl_participant_ops lr_ops_peek = {
    .recover = lr_recover, .decide = lr_decide, .free = lr_free, .peek = lr_peek};
static const sl_participant_ops prep_ops = {.recover = prep_recover,
                                            .free = lr_free,
                                            .peek = lr_peek,
                                            .prepare = prep_prepare,
                                            .commit = prep_commit,
                                            .resolve = prep_resolve};
static bool g_lr_peek; /* the participant can peek */

static int lr_create(const sl_participant_args *a, sl_participant **out, sl_error *err)
{
    lr_part *p = sl_calloc(1, sizeof *p);
    p->part.ops = g_preparable ? &prep_ops : g_lr_peek ? &lr_ops_peek : &lr_ops;
    p->part.impl = p;
    pthread_mutex_init(&p->mu, NULL);
    p->txn[0].epoch = p->txn[1].epoch = -1;
    *out = &p->part;
    return 0;
}

typedef struct lr_sink {
    sl_sink sink;  /* first */
    lr_part *part; /* the job's participant */
    int64_t epoch; /* open epoch */
} lr_sink;

static int lrs_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    lr_sink *k = s->impl;
    k->epoch = epoch;
    pthread_mutex_lock(&k->part->mu);
    lr_txn *x = &k->part->txn[epoch % 2];
    int rc = 0;
    if (x->epoch != epoch && x->epoch != -1) /* its slot must be free: N-1 was decided */
        rc = sl_error_set(err, SL_ERR_INTERNAL, -1, "epoch %lld begins while %lld is open",
                          (long long)epoch, (long long)x->epoch);
    else
        x->epoch = epoch;
    pthread_mutex_unlock(&k->part->mu);
    return rc;
}

static int lrs_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    lr_sink *k = s->impl;
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected write failure");
    pthread_mutex_lock(&k->part->mu);
    lr_txn *x = &k->part->txn[k->epoch % 2];
    for (int r = 0; r < c->nrows; r++)
        sl_strbuf_appendf(&x->rows, "row %lld\n", (long long)c->cols[0].v.i64[r]);
    pthread_mutex_unlock(&k->part->mu);
    return 0;
}

static int lrs_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    if (fail_now())
        return sl_error_set(err, SL_ERR_IO, -1, "injected pre_commit failure");
    sl_strbuf_appendf(committable, "lr epoch %lld", (long long)epoch);
    return 0;
}

/* Committed by the participant's decide(): nothing left to do. */
static int lrs_commit(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}

static int lrs_recover(sl_sink *s, const char *const *cs, const size_t *lens, int n,
                       sl_error *err)
{
    return 0;
}

static void lrs_free(sl_sink *s)
{
    sl_free(s->impl);
}

static const sl_sink_ops lrs_ops = {lrs_begin,  lrs_write,   lrs_pre_commit, lrs_commit,
                                    lrs_commit, lrs_recover, lrs_free,       NULL, NULL};

static int lrs_create(const sl_sink_args *a, sl_sink **out, sl_error *err)
{
    if (!a->participant)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "no participant");
    lr_sink *k = sl_calloc(1, sizeof *k);
    k->sink.ops = &lrs_ops;
    k->sink.impl = k;
    k->part = a->participant->impl;
    *out = &k->sink;
    return 0;
}

/* The values the "broker" committed into seen. */
static void read_txnlog(int *seen, int *bad)
{
    char *path = lr_path("txnlog");
    FILE *f = fopen(path, "r");
    sl_free(path);
    char line[64];
    long long v;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "row %lld", &v) == 1)
            count_value(v, seen, bad);
    if (f)
        fclose(f);
}

#ifdef SL_TEST_LAST_RESOURCE /* the tests of test_exec_job_participant.c */
/* The same runs and checks with the last-resource sink and participant. */
static void t_last_resource_every_step(void)
{
    g_last_resource = true;
    t_no_failure();
    t_failure_at_every_step();
    g_last_resource = false;
}

static void t_last_resource_parallel(void)
{
    g_last_resource = true;
    g_parallelism = 2; /* two sink instances write into one transaction per epoch */
    t_failure_at_every_step();
    g_parallelism = 1;
    g_last_resource = false;
}

/* The check can fail: a participant that does not report the decision it
** holds makes a restart after "decided, not sealed" replay that epoch. The
** failure lands right after the first decision, however the run's steps
** fall (they depend on timing: under load, more and smaller chunks). */
static void t_last_resource_check_can_fail(void)
{
    g_lr_lies = true;
    g_last_resource = true;
    fresh_dir("lr-lies");
    g_fail_where = "decide";
    sl_job_stats st;
    run_with_failure(0, &st);
    CHECK(g_fail_where == NULL); /* it failed there */
    g_fail_where = NULL;
    CHECK(check_output() > 0);
    g_last_resource = false;
    g_lr_lies = false;
}

/* The participant holds a decision whose checkpoint the data directory
** lacks (another data directory, or one restored from a backup): the job
** is refused (XX001) rather than resumed from an older checkpoint, which
** would commit that output twice. With peek, before it fenced anyone (an
** instance that went on from a copy of the directory keeps running). */
static void lost_state(bool peek)
{
    g_last_resource = true;
    g_lr_peek = peek;
    fresh_dir("lr-lost");
    sl_job_stats st;
    REQUIRE(run_with_failure(0, &st) == 1);
    REQUIRE(st.finished);
    char *jobs = sl_sprintf("%s/jobs", g_dir);
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_fs_remove_tree(jobs, &err), 0);
    sl_type types[1] = {sl_type_make(SL_TYPE_BIGINT)};
    const char *names[1] = {"v"};
    sl_job_spec spec = make_spec(types, names);
    g_fail_at = 0;
    long gen = lr_read_gen();
    CHECK_INT(sl_job_run(&spec, &st, &err), -1);
    CHECK_STR(err.sqlstate, "XX001");
    CHECK(err.message && strstr(err.message, "is decided, but its state is not in"));
    sl_error_reset(&err);
    CHECK_INT(lr_read_gen(), peek ? gen : gen + 1); /* fenced only without the peek */
    CHECK_INT(check_output(), 0); /* nothing written twice */
    sl_free(jobs);
    g_last_resource = false;
    g_lr_peek = false;
}

static void t_last_resource_lost_state(void)
{
    lost_state(false);
    lost_state(true);
}

/* A savepoint is a branch point (DESIGN.md section 10): starting from a
** checkpoint older than the newest one the participant decided would commit
** the epochs after it a second time. Refused (55000) — with peek before it
** fenced anyone —, and the participant's log holds every row once. */
static void stale_savepoint(bool peek)
{
    g_last_resource = true;
    g_lr_peek = peek;
    fresh_dir("lr-stale");
    sl_job_stats st;
    REQUIRE(run_with_failure(0, &st) == 1);
    REQUIRE(st.finished && st.last_checkpoint >= 2);
    char *older = sl_sprintf("%s/jobs/test-job/chk-%lld", g_dir, (long long)st.last_checkpoint - 1);
    char *meta = sl_sprintf("%s/_metadata", older);
    REQUIRE(sl_fs_exists(meta)); /* kept: retain = 2 */
    sl_type types[1] = {sl_type_make(SL_TYPE_BIGINT)};
    const char *names[1] = {"v"};
    sl_job_spec spec = make_spec(types, names);
    spec.restore_path = older;
    g_fail_at = 0;
    long gen = lr_read_gen();
    sl_error err = SL_ERROR_INIT;
    sl_job_stats again;
    CHECK_INT(sl_job_run(&spec, &again, &err), -1);
    CHECK_STR(err.sqlstate, "55000");
    CHECK(err.message && strstr(err.message, older) && strstr(err.message, "older than"));
    sl_error_reset(&err);
    CHECK_INT(lr_read_gen(), peek ? gen : gen + 1);
    CHECK_INT(check_output(), 0); /* nothing written twice */
    /* Its newest checkpoint as the savepoint: a plain resume. */
    char *newest = sl_sprintf("%s/jobs/test-job/chk-%lld", g_dir, (long long)st.last_checkpoint);
    spec.restore_path = newest;
    CHECK_INT(sl_job_run(&spec, &again, &err), 0);
    CHECK_INT(check_output(), 0);
    sl_error_reset(&err);
    sl_free(newest);
    sl_free(meta);
    sl_free(older);
    g_last_resource = false;
    g_lr_peek = false;
}

static void t_last_resource_stale_savepoint(void)
{
    stale_savepoint(false);
    stale_savepoint(true);
}

/* A zombie: an earlier incarnation that was fenced cannot commit. */
static void t_last_resource_fencing(void)
{
    fresh_dir("lr-fence");
    sl_participant_args a = {0};
    sl_participant *old = NULL, *new = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(lr_create(&a, &old, &err) == 0);
    REQUIRE(lr_create(&a, &new, &err) == 0);
    int64_t k;
    CHECK_INT(old->ops->recover(old, &k, &err), 0);
    CHECK_INT(k, -1);
    CHECK_INT(new->ops->recover(new, &k, &err), 0); /* fences old */
    g_fail_at = -1;
    CHECK_INT(old->ops->decide(old, 1, &err), -1);
    CHECK_STR(err.sqlstate, "55006");
    sl_error_reset(&err);
    CHECK_INT(new->ops->decide(new, 1, &err), 0);
    CHECK_INT(new->ops->recover(new, &k, &err), 0);
    CHECK_INT(k, 1);
    old->ops->free(old);
    new->ops->free(new);
}

/* The same runs with a preparable participant: a failure at every step,
** including between prepare and the seal and between the seal and the
** commit; at parallelism 2. */
static void t_preparable_every_step(void)
{
    g_last_resource = g_preparable = true;
    t_no_failure();
    t_failure_at_every_step();
    g_parallelism = 2;
    t_failure_at_every_step();
    g_parallelism = 1;
    g_last_resource = g_preparable = false;
}

/* The check can fail: a resolve() that rolls back a decided epoch's
** prepared writes (a crash after the seal, before the commit) loses them. */
static void t_preparable_check_can_fail(void)
{
    g_last_resource = g_preparable = g_prep_lies = true;
    fresh_dir("prep-lies");
    g_fail_where = "seal";
    sl_job_stats st;
    run_with_failure(0, &st);
    CHECK(g_fail_where == NULL); /* it failed there: decided, not committed */
    g_fail_where = NULL;
    CHECK(check_output() > 0);
    g_last_resource = g_preparable = g_prep_lies = false;
}

#endif

#ifdef SL_TEST_LAST_RESOURCE /* test_exec_job_participant.c: the same harness */
SL_TESTS(t_last_resource_every_step, t_last_resource_parallel, t_last_resource_check_can_fail,
         t_last_resource_lost_state, t_last_resource_fencing, t_last_resource_stale_savepoint,
         t_preparable_every_step, t_preparable_check_can_fail)
#else
SL_TESTS(t_no_failure, t_failure_at_every_step, t_check_detects_sloppy_sink, t_parallel_no_failure,
         t_restore_trailing_calc,
         t_parallel_failure_at_every_step, t_parallel_sloppy, t_restore_other_parallelism,
         t_restore_path)
#endif
