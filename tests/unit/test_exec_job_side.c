/*
** test_exec_job_side.c — side outputs of sl_job_run (sl_step_spec.side):
** an operator's late rows go, mapped onto a side table's columns, into a
** sink instance the runtime creates per task, pre-committed, committed and
** recovered with the task's sink by the job's checkpoints. A failure at any
** step of any checkpoint, then restarts: the side table holds every late
** row exactly once, the set computed here from the input alone; the
** operator's conflicts are summed into the job's counters over its life
** and, as a step may have both kinds of side output, written into a second
** side table (rows i % 500 == 7), exactly once as well.
**
** The source gives rows 0 .. N_ROWS-1 in chunks of CHUNK (its position is
** the next row); row i has event time i ms, except rows i % 10 == 5 from
** 200 on, which are 150 ms older. The operator "Late" keeps the watermark it
** was given (in its state) and drops a row older than it as late: with the
** task's watermark the largest event time after each chunk, row i is late
** exactly when it is older than the largest event time of the chunks before.
*/
#include "sl_test.h"

#include "../../exec/sl_exec.h"
#include "../../planner/sl_bind.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_ROWS 3000
#define CHUNK 100
#define MS SL_NANOS_PER_MILLI
#define MAXEP 4096 /* epochs x instances tracked by the side table */

static int64_t event_ms(int64_t i)
{
    return i % 10 == 5 && i >= 200 ? i - 150 : i;
}

/* ---- source ---------------------------------------------------------- */

typedef struct tsrc {
    sl_source src;
    int64_t next;
} tsrc;

static int src_poll(sl_source *s, sl_chunk *out, sl_error *err)
{
    tsrc *t = s->impl;
    struct timespec ts = {0, 1000000}; /* 1 ms: several checkpoints per run */
    nanosleep(&ts, NULL);
    while (out->nrows < CHUNK && t->next < N_ROWS) {
        int r = sl_chunk_append_row(out, SL_ROW_INSERT);
        sl_chunk_set_i64(out, 0, r, t->next);
        sl_chunk_set_i64(out, 1, r, event_ms(t->next) * MS);
        t->next++;
    }
    return t->next >= N_ROWS ? SL_SOURCE_END : SL_SOURCE_MORE;
}

static int src_position(sl_source *s, sl_strbuf *out, sl_error *err)
{
    sl_strbuf_appendf(out, "%lld", (long long)((tsrc *)s->impl)->next);
    return 0;
}

static int src_seek(sl_source *s, const char *pos, size_t len, sl_error *err)
{
    ((tsrc *)s->impl)->next = strtoll(pos, NULL, 10);
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
    *out = &t->src;
    return 0;
}

/* ---- the operator: late rows onto its side output --------------------- */

typedef struct lop {
    int64_t wm, late, conflicts;
} lop;

static const sl_type g_types[2] = {{.id = SL_TYPE_BIGINT}, {.id = SL_TYPE_TIMESTAMP, .precision = 3}};
static const char *const g_names[2] = {"id", "ts"};

/* Row r of in as a conflict, in the canonical layout (job, operator and
** arrived_at left to the runtime). */
static int emit_conflict(sl_operator *op, const sl_chunk *in, int r, sl_error *err)
{
    sl_type types[SL_DEDUP_CONFLICT_NCOLS];
    sl_dedup_conflict_types(types);
    sl_chunk *c = sl_chunk_new(SL_DEDUP_CONFLICT_NCOLS, types, 1);
    int x = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_strbuf js = SL_STRBUF_INIT;
    sl_json_row(&js, in, r, 2, NULL, g_names);
    sl_chunk_set_str(c, 4, x, sl_strbuf_cstr(&js), js.len);
    sl_chunk_set_i64(c, 5, x, in->cols[1].v.i64[r]);
    sl_strbuf_free(&js);
    int rc = op->side[SL_SIDE_CONFLICTS].fn(op->side[SL_SIDE_CONFLICTS].ctx, c, err);
    sl_chunk_free(c);
    return rc;
}

static int op_process(sl_operator *op, const sl_chunk *in, const sl_emit *out, sl_error *err)
{
    lop *l = op->impl;
    for (int r = 0; r < in->nrows; r++) {
        int64_t ts = in->cols[1].v.i64[r];
        if (l->wm != INT64_MIN && ts < l->wm) {
            l->late++;
            if (sl_late_row(op, g_names, in, r, ts, l->wm, true, ts - ts % (100 * MS),
                            ts - ts % (100 * MS) + 100 * MS, err) != 0)
                return -1;
        }
        if (in->cols[0].v.i64[r] % 500 == 7) {
            l->conflicts++; /* "conflicts": counted, and onto the conflicts' side output */
            if (op->side[SL_SIDE_CONFLICTS].fn && emit_conflict(op, in, r, err) != 0)
                return -1;
        }
    }
    return out->fn(out->ctx, (sl_chunk *)in, err);
}

static int op_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    ((lop *)op->impl)->wm = wm;
    return 0;
}

static int op_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    lop *l = op->impl;
    sl_strbuf_appendf(state, "%lld %lld %lld", (long long)l->wm, (long long)l->late,
                      (long long)l->conflicts);
    return 0;
}

static int op_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    lop *l = op->impl;
    long long a, b, c;
    if (sscanf(state, "%lld %lld %lld", &a, &b, &c) != 3)
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "bad state");
    l->wm = a;
    l->late = b;
    l->conflicts = c;
    return 0;
}

static int64_t op_late_rows(sl_operator *op)
{
    return ((lop *)op->impl)->late;
}

static int64_t op_conflicts(sl_operator *op)
{
    return ((lop *)op->impl)->conflicts;
}

static void op_free(sl_operator *op)
{
    sl_free(op->impl);
    sl_free(op);
}

static const sl_operator_ops g_op_ops = {op_process, op_watermark, op_snapshot, op_restore,
                                         op_late_rows, op_free,    op_conflicts, NULL};

static int op_create(const void *arg, sl_operator **out, sl_error *err)
{
    sl_operator *op = sl_calloc(1, sizeof *op);
    lop *l = sl_calloc(1, sizeof *l);
    l->wm = INT64_MIN;
    op->ops = &g_op_ops;
    op->impl = l;
    op->out_ncols = 2;
    op->out_types = g_types;
    *out = op;
    return 0;
}

/* ---- sinks: the main one keeps nothing; the side table is transactional:
** an epoch's rows are kept prepared (as a committable "instance:epoch")
** until committed, and survive the job's failures as a database would. -- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static sl_strbuf g_prepared[MAXEP];  /* rows per (table, instance, epoch) */
static bool g_is_prepared[MAXEP];
static sl_list *g_committed;         /* char*: committed late rows, one line each */
static sl_list *g_committed_cf;      /* char*: committed conflicts, one line each */
static int g_side_instances;         /* side sink instances created */
static int g_side_parallelism = -1;

typedef struct ssink {
    sl_sink s;
    int tbl; /* 0: the late rows' table, 1: the conflicts' */
    int subtask;
    int64_t epoch;
    sl_strbuf rows; /* the open epoch's */
} ssink;

static int slot(int tbl, int subtask, int64_t epoch)
{
    return (int)((epoch * 8 + tbl * 4 + subtask) % MAXEP);
}

static int ss_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    ssink *x = s->impl;
    x->epoch = epoch;
    x->rows.len = 0;
    return 0;
}

static int ss_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    ssink *x = s->impl;
    for (int r = 0; r < c->nrows; r++) { /* columns: row, event_time, job, operator, watermark */
        sl_strbuf_append_n(&x->rows, c->cols[0].v.str[r].ptr, c->cols[0].v.str[r].len);
        sl_strbuf_appendf(&x->rows, "|%lld|", (long long)(c->cols[1].v.i64[r] / MS));
        sl_strbuf_append_n(&x->rows, c->cols[2].v.str[r].ptr, c->cols[2].v.str[r].len);
        sl_strbuf_append_char(&x->rows, '|');
        sl_strbuf_append_n(&x->rows, c->cols[3].v.str[r].ptr, c->cols[3].v.str[r].len);
        sl_strbuf_appendf(&x->rows, "|%lld\n", (long long)(c->cols[4].v.i64[r] / MS));
    }
    return 0;
}

static int ss_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    ssink *x = s->impl;
    pthread_mutex_lock(&g_mu);
    int k = slot(x->tbl, x->subtask, epoch);
    g_prepared[k].len = 0;
    sl_strbuf_append_n(&g_prepared[k], sl_strbuf_cstr(&x->rows), x->rows.len);
    g_is_prepared[k] = true;
    pthread_mutex_unlock(&g_mu);
    sl_strbuf_appendf(committable, "%d:%d:%lld", x->tbl, x->subtask, (long long)epoch);
    return 0;
}

static int ss_commit(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    int tbl = 0, sub = 0;
    long long ep = 0;
    if (sscanf(c, "%d:%d:%lld", &tbl, &sub, &ep) != 3 || tbl != ((ssink *)s->impl)->tbl)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "bad committable");
    pthread_mutex_lock(&g_mu);
    int k = slot(tbl, sub, ep);
    if (g_is_prepared[k]) { /* idempotent: a committed epoch is prepared no more */
        const char *p = sl_strbuf_cstr(&g_prepared[k]);
        while (*p) {
            const char *nl = strchr(p, '\n');
            sl_list_push(tbl ? g_committed_cf : g_committed, sl_strndup(p, (size_t)(nl - p)));
            p = nl + 1;
        }
        g_is_prepared[k] = false;
    }
    pthread_mutex_unlock(&g_mu);
    return 0;
}

static int ss_abort(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}

static int ss_recover(sl_sink *s, const char *const *cs, const size_t *lens, int n, sl_error *err)
{
    for (int i = 0; i < n; i++)
        if (ss_commit(s, cs[i], lens[i], err) != 0)
            return -1;
    pthread_mutex_lock(&g_mu); /* every other prepared epoch of the table is discarded */
    for (int k = 0; k < MAXEP; k++)
        if ((k / 4) % 2 == ((ssink *)s->impl)->tbl)
            g_is_prepared[k] = false;
    pthread_mutex_unlock(&g_mu);
    return 0;
}

static void ss_free(sl_sink *s)
{
    ssink *x = s->impl;
    sl_strbuf_free(&x->rows);
    sl_free(x);
}

static const sl_sink_ops g_ss_ops = {.begin = ss_begin,
                                     .write = ss_write,
                                     .pre_commit = ss_pre_commit,
                                     .commit = ss_commit,
                                     .abort = ss_abort,
                                     .recover = ss_recover,
                                     .free = ss_free};

static int ss_create(const sl_sink_args *a, sl_sink **out, sl_error *err)
{
    ssink *x = sl_calloc(1, sizeof *x);
    x->s.ops = &g_ss_ops;
    x->s.impl = x;
    x->subtask = a->subtask;
    x->tbl = strcmp(a->table, "conflicts") == 0;
    g_side_instances++;
    g_side_parallelism = a->parallelism;
    *out = &x->s;
    return 0;
}

static int mk_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    return 0;
}
static int mk_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    return 0;
}
static int mk_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    sl_strbuf_append(committable, "x");
    return 0;
}
static int mk_commit(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}
static int mk_recover(sl_sink *s, const char *const *cs, const size_t *lens, int n, sl_error *err)
{
    return 0;
}
static void mk_free(sl_sink *s)
{
    sl_free(s);
}
static const sl_sink_ops g_mk_ops = {.begin = mk_begin,
                                     .write = mk_write,
                                     .pre_commit = mk_pre_commit,
                                     .commit = mk_commit,
                                     .abort = mk_commit,
                                     .recover = mk_recover,
                                     .free = mk_free};
static int mk_create(const sl_sink_args *a, sl_sink **out, sl_error *err)
{
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &g_mk_ops;
    *out = s;
    return 0;
}

/* ---- the job --------------------------------------------------------- */

static char g_dir[512];
static int g_step, g_fail_at;

static int failpoint(void *ctx, const char *where)
{
    return ++g_step == g_fail_at;
}

static void fresh_dir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    snprintf(g_dir, sizeof g_dir, "%s/side-%d/%s", base ? base : "/tmp", (int)getpid(), name);
    sl_error err = SL_ERROR_INIT;
    sl_fs_remove_tree(g_dir, &err);
    sl_fs_mkdir_p(g_dir, &err);
    sl_error_reset(&err);
    pthread_mutex_lock(&g_mu);
    sl_list_free(g_committed, sl_free);
    g_committed = sl_list_new();
    sl_list_free(g_committed_cf, sl_free);
    g_committed_cf = sl_list_new();
    memset(g_is_prepared, 0, sizeof g_is_prepared);
    pthread_mutex_unlock(&g_mu);
}

/* Run (failing at step fail_at of the first run) until the job finished. */
static int run_job(int fail_at, sl_job_stats *st)
{
    static const sl_type side_types[5] = {{.id = SL_TYPE_VARCHAR, .precision = SL_MAX_LENGTH},
                                          {.id = SL_TYPE_TIMESTAMP, .precision = 3},
                                          {.id = SL_TYPE_VARCHAR, .precision = SL_MAX_LENGTH},
                                          {.id = SL_TYPE_VARCHAR, .precision = SL_MAX_LENGTH},
                                          {.id = SL_TYPE_TIMESTAMP, .precision = 3}};
    static const char *const side_names[5] = {"row", "event_time", "job", "operator", "watermark"};
    static const int side_map[5] = {7, 2, 0, 1, 3}; /* canonical late columns */
    sl_side_spec side = {ss_create,
                         {.ncols = 5, .names = side_names, .types = side_types, .table = "late"},
                         5,
                         side_map};
    /* canonical conflict columns: conflicting_row, event_time, job, operator, arrived_at */
    static const int cf_map[5] = {4, 5, 0, 1, 6};
    sl_side_spec cf = {ss_create,
                       {.ncols = 5, .names = side_names, .types = side_types, .table = "conflicts"},
                       5,
                       cf_map};
    sl_step_spec steps[1] = {{.create = op_create,
                              .name = "Late",
                              .out_ncols = 2,
                              .out_types = g_types,
                              .side = {[SL_SIDE_LATE] = &side,
                                       [SL_SIDE_CONFLICTS] = &cf}}};
    sl_bexpr *wm = sl_bexpr_new(SL_BX_COLUMN, g_types[1], 0);
    wm->col = 1;
    sl_input_spec in;
    memset(&in, 0, sizeof in);
    in.create_source = src_create;
    in.source_args.ncols = 2;
    in.source_args.names = g_names;
    in.source_args.types = g_types;
    in.wm_expr = wm;
    in.nsteps = 1;
    in.steps = steps;
    sl_job_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.name = "side-job";
    spec.data_dir = g_dir;
    spec.checkpoint_interval_ms = 15;
    spec.retain = 2;
    spec.parallelism = 1;
    spec.ninputs = 1;
    spec.inputs = &in;
    spec.create_sink = mk_create;
    spec.sink_args = (sl_sink_args){.ncols = 2, .names = g_names, .types = g_types,
                                    .parallelism = 1, .table = "out", .job = "side-job"};
    spec.limit = -1;
    spec.failpoint = failpoint;
    g_step = 0;
    g_fail_at = fail_at;
    int runs = 0;
    for (; runs < 6; runs++) {
        sl_error err = SL_ERROR_INIT;
        int rc = sl_job_run(&spec, st, &err);
        sl_error_reset(&err);
        if (rc == 0 && st->finished)
            break;
    }
    sl_bexpr_free(wm);
    return runs + 1;
}

/* The late rows, from the input alone: row i is late when its event time
** is below the largest of the chunks before its own (the watermark). */
static int check_side(void)
{
    int bad = 0, nlate = 0;
    static int seen[N_ROWS];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < g_committed->n; i++) {
        const char *line = g_committed->items[i];
        long long id = -1, ev = -1, w = -1;
        char job[64] = "", op[64] = "";
        if (sscanf(line, "{\"id\":%lld,\"ts\":\"%*[^\"]\"}|%lld|%63[^|]|%63[^|]|%lld", &id, &ev,
                   job, op, &w) != 5 ||
            id < 0 || id >= N_ROWS) {
            fprintf(stderr, "bad side row: %s\n", line);
            bad++;
            continue;
        }
        seen[id]++;
        bad += ev != event_ms(id) || strcmp(job, "side-job") != 0 || strcmp(op, "Late") != 0;
        int64_t chunk_wm = (id / CHUNK) * CHUNK - 1; /* the largest event time before */
        bad += w != chunk_wm;
    }
    for (int64_t i = 0; i < N_ROWS; i++) {
        int64_t wmax = (i / CHUNK) * CHUNK - 1;
        bool late = i >= CHUNK && event_ms(i) < wmax;
        nlate += late;
        if (seen[i] != (late ? 1 : 0)) {
            if (bad < 5)
                fprintf(stderr, "row %lld: %d side rows, want %d\n", (long long)i, seen[i], late);
            bad++;
        }
    }
    CHECK(nlate > 200);
    /* The conflicts: rows i % 500 == 7, each once. */
    static int cseen[N_ROWS];
    memset(cseen, 0, sizeof cseen);
    for (int i = 0; i < g_committed_cf->n; i++) {
        const char *line = g_committed_cf->items[i];
        long long id = -1, ev = -1;
        char job[64] = "", op[64] = "";
        if (sscanf(line, "{\"id\":%lld,\"ts\":\"%*[^\"]\"}|%lld|%63[^|]|%63[^|]|", &id, &ev, job,
                   op) != 4 ||
            id < 0 || id >= N_ROWS) {
            fprintf(stderr, "bad conflict row: %s\n", line);
            bad++;
            continue;
        }
        cseen[id]++;
        bad += ev != event_ms(id) || strcmp(job, "side-job") != 0 || strcmp(op, "Late") != 0;
    }
    for (int i = 0; i < N_ROWS; i++)
        if (cseen[i] != (i % 500 == 7)) {
            if (bad < 5)
                fprintf(stderr, "row %d: %d conflict rows, want %d\n", i, cseen[i], i % 500 == 7);
            bad++;
        }
    return bad;
}

static void t_clean(void)
{
    fresh_dir("clean");
    sl_job_stats st;
    g_side_instances = 0;
    CHECK_INT(run_job(0, &st), 1);
    CHECK(st.finished);
    CHECK_INT(g_side_instances, 2); /* one per side table */
    CHECK_INT(g_side_parallelism, 1);
    CHECK_INT(check_side(), 0);
    CHECK_INT(st.rows_late, (int64_t)g_committed->n);
    CHECK_INT(st.conflicts, N_ROWS / 500);
    CHECK_INT(st.life_conflicts, N_ROWS / 500);
    CHECK_INT(g_committed_cf->n, N_ROWS / 500);
}

/* A failure at every step of a run in turn (each a fresh job): no late
** row lost or doubled; the conflicts over the job's life counted once. */
static void t_failures(void)
{
    fresh_dir("count");
    sl_job_stats st;
    run_job(0, &st);
    int steps = g_step;
    REQUIRE(steps > 20);
    int stride = steps / 40 > 0 ? steps / 40 : 1;
    for (int k = 1; k <= steps; k += stride) {
        char name[32];
        snprintf(name, sizeof name, "fail-%d", k);
        fresh_dir(name);
        run_job(k, &st);
        CHECK(st.finished);
        int bad = check_side();
        if (bad)
            fprintf(stderr, "failure at step %d: %d wrong\n", k, bad);
        CHECK_INT(bad, 0);
        CHECK_INT(st.life_conflicts, N_ROWS / 500);
        CHECK_INT(st.life_rows_late, (int64_t)g_committed->n);
    }
}

static void t_json_row(void)
{
    sl_type t[4] = {sl_type_make(SL_TYPE_INT), sl_type_make(SL_TYPE_VARCHAR),
                    sl_type_make(SL_TYPE_BOOLEAN), sl_type_make(SL_TYPE_DOUBLE)};
    sl_chunk *c = sl_chunk_new(4, t, 1);
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_i64(c, 0, r, -3);
    sl_chunk_set_str(c, 1, r, "a\"b\n", 4);
    sl_chunk_set_bool(c, 2, r, true);
    const char *const names[4] = {"k", "s", "b", "d"};
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_json_row(&sb, c, r, 4, NULL, names);
    CHECK_STR(sl_strbuf_cstr(&sb), "{\"k\":-3,\"s\":\"a\\\"b\\n\",\"b\":true,\"d\":null}");
    sb.len = 0;
    static const int cols[2] = {2, 0};
    sl_json_row(&sb, c, r, 2, cols, names);
    CHECK_STR(sl_strbuf_cstr(&sb), "{\"b\":true,\"k\":-3}");
    sl_strbuf_free(&sb);
    sl_chunk_free(c);
}

static void t_cleanup(void)
{
    sl_list_free(g_committed, sl_free);
    g_committed = NULL;
    sl_list_free(g_committed_cf, sl_free);
    g_committed_cf = NULL;
    for (int i = 0; i < MAXEP; i++)
        sl_strbuf_free(&g_prepared[i]);
}

SL_TESTS(t_json_row, t_clean, t_failures, t_cleanup)
