/*
** test_exec_job_watermark.c — the watermark hold-back of sl_job_run: an
** operator with a wm_delay (the interval join's max(-lower, upper)) makes
** every operator after it in its chain, the stages after it and the sink
** see the watermark that much later; the ends (none yet, end of input)
** are never shifted, and a huge delay saturates instead of wrapping.
**
** One source of event times 0, 1 ms, 2 ms, ... (the watermark: the largest
** so far, after each chunk), the chain [A (delay 300 ms), B], a SINGLE
** exchange, the chain [D (delay 200 ms), C], then a sink. Each operator
** records the watermarks it is given; the checks compare them with A's.
*/
#include "sl_test.h"

#include "../../exec/sl_exec.h"
#include "../../planner/sl_bind.h"

#include <pthread.h>

#define N_ROWS 3000 /* event times 0 .. N_ROWS - 1 ms */
#define CHUNK 100   /* rows per poll */
#define MAXWM 256   /* watermarks recorded per operator */
#define MS SL_NANOS_PER_MILLI

/* ---- source: v = row number * 1 ms -------------------------------------- */

typedef struct tsrc {
    sl_source src; /* first */
    int64_t next;  /* next row */
} tsrc;

static int src_poll(sl_source *s, sl_chunk *out, sl_error *err)
{
    tsrc *t = s->impl;
    while (out->nrows < out->cap && out->nrows < CHUNK && t->next < N_ROWS) {
        int r = sl_chunk_append_row(out, SL_ROW_INSERT);
        sl_chunk_set_i64(out, 0, r, t->next * MS);
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

/* ---- recorded watermarks -------------------------------------------------- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct rec {
    int64_t wm[MAXWM]; /* as given, in order */
    int n;
} rec;

static rec g_rec[4]; /* A, B, D, C */
static rec g_sink;   /* told to the sink before each pre_commit */
static int64_t g_delay_a = 300 * MS, g_delay_d = 200 * MS;

static void record(rec *r, int64_t wm)
{
    pthread_mutex_lock(&g_mu);
    if (r->n < MAXWM)
        r->wm[r->n++] = wm;
    pthread_mutex_unlock(&g_mu);
}

/* ---- a pass-through operator that records its watermarks ---------------- */

static const sl_type g_types[1] = {{.id = SL_TYPE_BIGINT}};

static int op_process(sl_operator *op, const sl_chunk *in, const sl_emit *out, sl_error *err)
{
    return out->fn(out->ctx, (sl_chunk *)in, err);
}

static int op_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    record(op->impl, wm);
    return 0;
}

static int op_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    return 0;
}

static int op_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    return 0;
}

static int64_t op_late_rows(sl_operator *op)
{
    return 0;
}

static void op_free(sl_operator *op)
{
    sl_free(op);
}

static const sl_operator_ops g_op_ops = {op_process, op_watermark, op_snapshot,
                                         op_restore, op_late_rows, op_free, NULL, NULL};

static int op_create(const void *arg, sl_operator **out, sl_error *err)
{
    int which = *(const int *)arg;
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &g_op_ops;
    op->impl = &g_rec[which];
    op->out_ncols = 1;
    op->out_types = g_types;
    op->wm_delay = which == 0 ? g_delay_a : which == 2 ? g_delay_d : 0;
    *out = op;
    return 0;
}

/* ---- a sink that keeps nothing but the watermarks it is told ------------ */

static int snk_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    return 0;
}

static int snk_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    return 0;
}

static int snk_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    sl_strbuf_append(committable, "x");
    return 0;
}

static int snk_commit(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}

static int snk_abort(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}

static int snk_recover(sl_sink *s, const char *const *cs, const size_t *lens, int n,
                       sl_error *err)
{
    return 0;
}

static void snk_free(sl_sink *s)
{
    sl_free(s);
}

static void snk_watermark(sl_sink *s, int64_t wm)
{
    record(&g_sink, wm);
}

static const sl_sink_ops g_snk_ops = {.begin = snk_begin,
                                      .write = snk_write,
                                      .pre_commit = snk_pre_commit,
                                      .commit = snk_commit,
                                      .abort = snk_abort,
                                      .recover = snk_recover,
                                      .free = snk_free,
                                      .watermark = snk_watermark};

static int snk_create(const sl_sink_args *a, sl_sink **out, sl_error *err)
{
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &g_snk_ops;
    *out = s;
    return 0;
}

/* ---- the job -------------------------------------------------------------- */

static int64_t held(int64_t wm, int64_t delay)
{
    if (wm == INT64_MIN || wm == INT64_MAX)
        return wm;
    return wm < INT64_MIN + delay ? INT64_MIN + 1 : wm - delay;
}

static void run_job(void)
{
    memset(g_rec, 0, sizeof g_rec);
    memset(&g_sink, 0, sizeof g_sink);
    static const int ids[4] = {0, 1, 2, 3};
    const char *names[1] = {"v"};
    sl_step_spec in_steps[2] = {
        {.create = op_create, .arg = &ids[0], .name = "A", .out_ncols = 1, .out_types = g_types},
        {.create = op_create, .arg = &ids[1], .name = "B", .out_ncols = 1, .out_types = g_types}};
    sl_step_spec st_steps[2] = {
        {.create = op_create, .arg = &ids[2], .name = "D", .out_ncols = 1, .out_types = g_types},
        {.create = op_create, .arg = &ids[3], .name = "C", .out_ncols = 1, .out_types = g_types}};
    sl_bexpr *wm = sl_bexpr_new(SL_BX_COLUMN, g_types[0], 0);
    wm->col = 0;
    sl_input_spec in;
    memset(&in, 0, sizeof in);
    in.create_source = src_create;
    in.source_args.ncols = 1;
    in.source_args.names = names;
    in.source_args.types = g_types;
    in.wm_expr = wm;
    in.nsteps = 2;
    in.steps = in_steps;
    sl_stage_spec stage = {SL_EXCHANGE_SINGLE, 0, NULL, 1, 2, st_steps, 0, 0, 0};
    sl_job_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.name = "wm-job";
    spec.parallelism = 1;
    spec.ninputs = 1;
    spec.inputs = &in;
    spec.nstages = 1;
    spec.stages = &stage;
    spec.retain = 1;
    spec.create_sink = snk_create;
    spec.sink_args = (sl_sink_args){.ncols = 1, .names = names, .types = g_types,
                                    .parallelism = 1, .table = "out", .job = "wm-job"};
    spec.limit = -1;
    sl_job_stats st;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_job_run(&spec, &st, &err);
    if (rc != 0)
        fprintf(stderr, "job: %s\n", err.message);
    CHECK_INT(rc, 0);
    CHECK(st.finished);
    CHECK_INT(st.rows_out, N_ROWS);
    sl_error_reset(&err);
    sl_bexpr_free(wm);
}

/* B gets A's watermark held back by A's delay; D the one B got (it crossed
** the exchange held back); C D's held back by D's; the sink C's. */
static void check_chain(void)
{
    rec *a = &g_rec[0], *b = &g_rec[1], *d = &g_rec[2], *c = &g_rec[3];
    REQUIRE(a->n > 2 && a->n < MAXWM);
    CHECK_INT(b->n, a->n);
    for (int i = 0; i < a->n && i < b->n; i++)
        CHECK(b->wm[i] == held(a->wm[i], g_delay_a));
    CHECK(a->wm[a->n - 1] == INT64_MAX);
    CHECK(b->wm[b->n - 1] == INT64_MAX);
    CHECK(a->wm[a->n - 2] == (N_ROWS - 1) * MS); /* the last finite one */
    /* the stage's watermarks are B's (it may see fewer of them) */
    REQUIRE(d->n > 1);
    CHECK_INT(c->n, d->n);
    for (int i = 0, j = 0; i < d->n; i++) {
        while (j < b->n && b->wm[j] != d->wm[i])
            j++;
        CHECK(j < b->n); /* in order, each one of B's */
        if (i < c->n)
            CHECK(c->wm[i] == held(d->wm[i], g_delay_d));
    }
    CHECK(c->wm[c->n - 1] == INT64_MAX);
    /* the sink is told C's (the final checkpoint comes after the end) */
    REQUIRE(g_sink.n >= 1);
    CHECK(g_sink.wm[g_sink.n - 1] == INT64_MAX);
}

static void t_hold_back(void)
{
    g_delay_a = 300 * MS;
    g_delay_d = 200 * MS;
    run_job();
    check_chain();
    /* the first watermark is the first chunk's largest time, 99 ms: B gets
    ** it 300 ms earlier (negative: no clamping at 0) */
    CHECK(g_rec[0].wm[0] == (CHUNK - 1) * MS);
    CHECK(g_rec[1].wm[0] == (CHUNK - 1) * MS - 300 * MS);
}

/* Delays that reach past INT64_MIN saturate just above it: never INT64_MIN
** (no watermark yet) and never a wrapped value. B gets wm - INT64_MAX
** (representable for wm >= -1); C that held back again by INT64_MAX. */
static void t_saturates(void)
{
    g_delay_a = INT64_MAX;
    g_delay_d = INT64_MAX;
    run_job();
    check_chain();
    for (int i = 0; i + 1 < g_rec[1].n; i++)
        CHECK(g_rec[1].wm[i] == g_rec[0].wm[i] - INT64_MAX);
    for (int i = 0; i + 1 < g_rec[3].n; i++)
        CHECK(g_rec[3].wm[i] == INT64_MIN + 1);
}

/* No delay: everyone sees the source's watermark. */
static void t_no_delay(void)
{
    g_delay_a = 0;
    g_delay_d = 0;
    run_job();
    check_chain();
    for (int i = 0; i < g_rec[1].n; i++)
        CHECK(g_rec[1].wm[i] == g_rec[0].wm[i]);
}

SL_TESTS(t_hold_back, t_saturates, t_no_delay)
