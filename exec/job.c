/*
** job.c — runs a job: source -> calc steps -> sink in one task, with the
** checkpoint and commit protocol of DESIGN.md section 5 (see sl_exec.h).
**
** The order inside a checkpoint is what makes the sink's output
** exactly-once; each step and the crash it survives:
**
**   1. source position -> chk-N/state-source     crash: no _metadata, N undecided
**   2. sink pre_commit(N) -> chk-N/state-sink    crash: N undecided; recover()
**                                                discards N's pre-committed data
**   3. seal chk-N (_metadata, fsync, rename)     the decision: N is decided
**   4. sink begin(N+1)                           writes continue at once
**   5. sink commit(N's committable)              crash: recover() commits it
**   6. prune old checkpoints
**
** Restart: seek the source to D's position, restore every operator's state
** and the watermark, recover the sink with D's committable: the output then
** holds exactly the rows before D's position, and the rows after it are
** produced again into epoch D+1.
**
** Rows flow down the chain synchronously: a step's output is pushed to the
** next step (an operator may emit several chunks for one input chunk), the
** last step's to the sink. After each source chunk the watermark (the
** largest WATERMARK expression value seen) follows the rows down; at the end
** of a bounded input it becomes INT64_MAX, which fires every window.
**
** Main routine: sl_job_run.
*/
#include "sl_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SL_STATE_SOURCE "source"
#define SL_STATE_SINK "sink"
#define SL_STATE_WATERMARK "watermark"

/* One compiled calc step. */
typedef struct sl__calc {
    sl_eval_prog *filter; /* condition, or NULL */
    bool project;         /* projects (else passes the filtered rows through) */
    int nexprs;           /* projections */
    sl_eval_prog **exprs; /* their programs */
    sl_chunk *kept;       /* rows that passed the filter */
    sl_chunk *out;        /* projected rows */
    uint8_t *sel;         /* filter result per row */
} sl__calc;

/* One step of the chain at run time. */
typedef struct sl__step {
    sl__calc calc;    /* a calc (when op is NULL) */
    sl_operator *op;  /* a stateful operator, or NULL */
} sl__step;

typedef struct sl__job {
    const sl_job_spec *spec; /* what to run */
    sl_chk_store *store;     /* its checkpoints */
    sl_source *source;       /* the source */
    sl_sink *sink;           /* the sink */
    sl__step *steps;         /* spec->nsteps steps */
    sl_chunk *in;            /* rows polled from the source */
    int64_t epoch;           /* the open epoch (= the next checkpoint) */
    int64_t last_chk_ns;     /* time of the last checkpoint */
    sl_eval_env env;         /* evaluation environment of the current chunk */
    sl_eval_prog *wm_prog;   /* the WATERMARK expression, or NULL */
    sl_chunk *wm_out;        /* its values for a chunk */
    int64_t watermark;       /* event time reached (INT64_MIN: none yet) */
    sl_job_stats *stats;     /* what happened */
} sl__job;

static int64_t sl__now(const sl_job_spec *spec)
{
    return spec->now ? spec->now(spec->now_ctx) : sl_now_nanos();
}

static void sl__notice(const sl_job_spec *spec, const char *fmt, ...) SL_PRINTF(2, 3);
static void sl__notice(const sl_job_spec *spec, const char *fmt, ...)
{
    if (!spec->notice)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = sl_vsprintf(fmt, ap);
    va_end(ap);
    spec->notice(spec->notice_ctx, msg);
    sl_free(msg);
}

/* ------------------------------------------------------------------------
** Calc steps
*/

static int sl__calc_open(sl__calc *c, const sl_calc_spec *cs, int ncols, const sl_type *types,
                         sl_error *err)
{
    memset(c, 0, sizeof *c);
    c->kept = sl_chunk_new(ncols, types, SL_CHUNK_ROWS);
    c->sel = sl_calloc(SL_CHUNK_ROWS, 1);
    if (cs->filter && !(c->filter = sl_eval_compile(cs->filter, ncols, types, err)))
        return -1;
    c->project = cs->project;
    c->nexprs = cs->nexprs;
    if (c->project) {
        c->exprs = sl_calloc((size_t)c->nexprs + 1, sizeof(sl_eval_prog *));
        for (int i = 0; i < c->nexprs; i++)
            if (!(c->exprs[i] = sl_eval_compile(cs->exprs[i], ncols, types, err)))
                return -1;
        c->out = sl_chunk_new(c->nexprs, cs->out_types, SL_CHUNK_ROWS);
    }
    return 0;
}

static void sl__calc_close(sl__calc *c)
{
    sl_eval_free(c->filter);
    for (int i = 0; i < c->nexprs; i++)
        sl_eval_free(c->exprs ? c->exprs[i] : NULL);
    sl_free(c->exprs);
    sl_chunk_free(c->kept);
    sl_chunk_free(c->out);
    sl_free(c->sel);
}

/* Run one step over in; *out receives the step's result (owned by the step). */
static int sl__calc_run(sl__calc *c, sl_chunk *in, const sl_eval_env *env, sl_chunk **out,
                        sl_error *err)
{
    sl_chunk *rows = in;
    if (c->filter) {
        int n = sl_eval_filter(c->filter, in, env, c->sel, err);
        if (n < 0)
            return -1;
        if (n < in->nrows) {
            /* WHERE applies before SELECT: only kept rows are projected, so a
            ** projection cannot fail on a row the filter removed. */
            sl_chunk_reset(c->kept);
            for (int r = 0; r < in->nrows; r++)
                if (c->sel[r])
                    sl_chunk_copy_row(c->kept, in, r);
            rows = c->kept;
        }
    }
    if (!c->project) {
        *out = rows;
        return 0;
    }
    if (rows->nrows == 0) {
        sl_chunk_reset(c->out);
        *out = c->out;
        return 0;
    }
    sl_chunk_reset(c->out);
    for (int i = 0; i < c->nexprs; i++)
        if (sl_eval_into(c->exprs[i], rows, env, c->out, i, err) != 0)
            return -1;
    c->out->nrows = rows->nrows;
    memcpy(c->out->kinds, rows->kinds, (size_t)rows->nrows);
    *out = c->out;
    return 0;
}

/* ------------------------------------------------------------------------
** Checkpoints
*/

/* A test's injected failure after step `where` (see sl_job_spec). */
static int sl__failpoint(const sl__job *j, const char *where, sl_error *err)
{
    if (j->spec->failpoint && j->spec->failpoint(j->spec->failpoint_ctx, where))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "injected failure after %s", where);
    return 0;
}

/* Take checkpoint N = the open epoch; see the file comment for the order. */
static int sl__checkpoint(sl__job *j, bool savepoint, sl_error *err)
{
    int64_t n = j->epoch;
    sl_strbuf pos = SL_STRBUF_INIT, committable = SL_STRBUF_INIT;
    if (!j->store) { /* no storage (a query's job): just commit what was written */
        int rc = j->sink->ops->pre_commit(j->sink, n, &committable, err);
        if (rc == 0)
            rc = j->sink->ops->begin(j->sink, ++j->epoch, err);
        if (rc == 0)
            rc = j->sink->ops->commit(j->sink, sl_strbuf_cstr(&committable), committable.len, err);
        sl_strbuf_free(&committable);
        return rc;
    }
    int rc = j->source->ops->position(j->source, &pos, err);
    if (rc == 0)
        rc = sl__failpoint(j, "position", err);
    if (rc == 0)
        rc = sl_chk_write_state(j->store, n, SL_STATE_SOURCE, sl_strbuf_cstr(&pos), pos.len, err);
    if (rc == 0)
        rc = sl__failpoint(j, "state-source", err);
    for (int i = 0; rc == 0 && i < j->spec->nsteps; i++) {
        sl_operator *op = j->steps[i].op;
        if (!op)
            continue;
        sl_strbuf st = SL_STRBUF_INIT;
        char name[32];
        snprintf(name, sizeof name, "op-%d", i);
        rc = op->ops->snapshot(op, &st, err);
        if (rc == 0)
            rc = sl_chk_write_state(j->store, n, name, sl_strbuf_cstr(&st), st.len, err);
        sl_strbuf_free(&st);
    }
    if (rc == 0) {
        char wm[32];
        int len = snprintf(wm, sizeof wm, "%lld", (long long)j->watermark);
        rc = sl_chk_write_state(j->store, n, SL_STATE_WATERMARK, wm, (size_t)len, err);
    }
    if (rc == 0)
        rc = j->sink->ops->pre_commit(j->sink, n, &committable, err);
    if (rc == 0)
        rc = sl__failpoint(j, "pre-commit", err);
    if (rc == 0)
        rc = sl_chk_write_state(j->store, n, SL_STATE_SINK, sl_strbuf_cstr(&committable),
                                committable.len, err);
    if (rc == 0)
        rc = sl__failpoint(j, "state-sink", err);
    int64_t now = sl__now(j->spec);
    if (rc == 0)
        rc = sl_chk_seal(j->store, n, savepoint, now, err); /* the decision */
    if (rc == 0)
        rc = sl__failpoint(j, "seal", err);
    if (rc == 0) {
        j->epoch = n + 1;
        rc = j->sink->ops->begin(j->sink, j->epoch, err);
    }
    if (rc == 0)
        rc = sl__failpoint(j, "begin", err);
    if (rc == 0)
        rc = j->sink->ops->commit(j->sink, sl_strbuf_cstr(&committable), committable.len, err);
    if (rc == 0)
        rc = sl__failpoint(j, "commit", err);
    if (rc == 0)
        rc = sl_chk_prune(j->store, j->spec->retain > 0 ? j->spec->retain : 3, err);
    if (rc == 0)
        rc = sl__failpoint(j, "prune", err);
    if (rc == 0) {
        j->stats->checkpoints++;
        j->stats->last_checkpoint = n;
        j->last_chk_ns = now;
    }
    sl_strbuf_free(&pos);
    sl_strbuf_free(&committable);
    return rc;
}

/* Resume from the newest decided checkpoint, or start fresh. */
static int sl__restore(sl__job *j, sl_error *err)
{
    int64_t d = -1;
    if (j->store && sl_chk_latest(j->store, &d, err) != 0)
        return -1;
    j->stats->restored_from = d;
    j->stats->last_checkpoint = d;
    if (d < 0) {
        j->epoch = 1;
        if (j->sink->ops->recover(j->sink, NULL, NULL, 0, err) != 0)
            return -1;
        return j->sink->ops->begin(j->sink, j->epoch, err);
    }
    char *pos = NULL, *committable = NULL;
    size_t pos_len = 0, c_len = 0;
    int rc = sl_chk_read_state(j->store, d, SL_STATE_SOURCE, &pos, &pos_len, err);
    if (rc == 0)
        rc = sl_chk_read_state(j->store, d, SL_STATE_SINK, &committable, &c_len, err);
    if (rc == 0)
        rc = j->source->ops->seek(j->source, pos, pos_len, err);
    for (int i = 0; rc == 0 && i < j->spec->nsteps; i++) {
        sl_operator *op = j->steps[i].op;
        if (!op)
            continue;
        char name[32], *st = NULL;
        size_t len = 0;
        snprintf(name, sizeof name, "op-%d", i);
        rc = sl_chk_read_state(j->store, d, name, &st, &len, err);
        if (rc == 0)
            rc = op->ops->restore(op, st, len, err);
        sl_free(st);
    }
    if (rc == 0) {
        char *wm = NULL;
        size_t len = 0;
        rc = sl_chk_read_state(j->store, d, SL_STATE_WATERMARK, &wm, &len, err);
        if (rc == 0)
            j->watermark = strtoll(wm, NULL, 10);
        sl_free(wm);
    }
    if (rc == 0) {
        const char *cs[1] = {committable};
        size_t lens[1] = {c_len};
        rc = j->sink->ops->recover(j->sink, cs, lens, 1, err);
    }
    if (rc == 0) {
        j->epoch = d + 1;
        rc = j->sink->ops->begin(j->sink, j->epoch, err);
        sl__notice(j->spec, "job \"%s\" resumes from checkpoint %lld", j->spec->name,
                   (long long)d);
    }
    sl_free(pos);
    sl_free(committable);
    return rc;
}

/* ------------------------------------------------------------------------
** The loop
*/

static int sl__push(sl__job *j, int step, sl_chunk *rows, sl_error *err);

/* The emit callback of an operator: its rows go on to the next step. */
typedef struct sl__next {
    sl__job *j; /* the job */
    int step;   /* where the rows go */
} sl__next;

static int sl__emit_next(void *ctx, sl_chunk *rows, sl_error *err)
{
    sl__next *n = ctx;
    return sl__push(n->j, n->step, rows, err);
}

/* Run rows through steps step.. and into the sink. */
static int sl__push(sl__job *j, int step, sl_chunk *rows, sl_error *err)
{
    for (; step < j->spec->nsteps; step++) {
        if (rows->nrows == 0)
            return 0;
        sl__step *st = &j->steps[step];
        if (st->op) {
            sl__next next = {j, step + 1};
            sl_emit out = {sl__emit_next, &next};
            return st->op->ops->process(st->op, rows, &out, err);
        }
        if (sl__calc_run(&st->calc, rows, &j->env, &rows, err) != 0)
            return -1;
    }
    if (j->spec->limit >= 0 && rows->nrows > j->spec->limit - j->stats->rows_out)
        rows->nrows = (int)(j->spec->limit - j->stats->rows_out);
    if (rows->nrows == 0)
        return 0;
    if (j->sink->ops->write(j->sink, rows, err) != 0)
        return -1;
    j->stats->rows_out += rows->nrows;
    return 0;
}

/* Event time reached wm: every operator (in chain order) emits what became final. */
static int sl__advance_watermark(sl__job *j, int64_t wm, sl_error *err)
{
    if (wm <= j->watermark)
        return 0;
    j->watermark = wm;
    for (int i = 0; i < j->spec->nsteps; i++) {
        sl_operator *op = j->steps[i].op;
        if (!op)
            continue;
        sl__next next = {j, i + 1};
        sl_emit out = {sl__emit_next, &next};
        if (op->ops->watermark(op, wm, &out, err) != 0)
            return -1;
    }
    return 0;
}

/* The watermark after a source chunk: the largest WATERMARK value so far. */
static int sl__chunk_watermark(sl__job *j, const sl_chunk *in, sl_error *err)
{
    if (!j->wm_prog || in->nrows == 0)
        return 0;
    sl_chunk_reset(j->wm_out);
    if (sl_eval_into(j->wm_prog, in, &j->env, j->wm_out, 0, err) != 0)
        return -1;
    const sl_vector *v = &j->wm_out->cols[0];
    int64_t wm = j->watermark;
    for (int r = 0; r < in->nrows; r++)
        if (!v->nulls[r] && v->v.i64[r] > wm)
            wm = v->v.i64[r];
    return sl__advance_watermark(j, wm, err);
}

static int sl__process(sl__job *j, sl_error *err)
{
    j->env.now_nanos = sl__now(j->spec);
    if (sl__push(j, 0, j->in, err) != 0)
        return -1;
    return sl__chunk_watermark(j, j->in, err);
}

static bool sl__limit_reached(const sl__job *j)
{
    return j->spec->limit >= 0 && j->stats->rows_out >= j->spec->limit;
}

static int sl__loop(sl__job *j, sl_error *err)
{
    const sl_job_spec *spec = j->spec;
    int64_t interval_ns = spec->checkpoint_interval_ms * SL_NANOS_PER_MILLI;
    j->last_chk_ns = sl__now(spec);
    for (;;) {
        bool savepoint = false;
        if (spec->should_stop && spec->should_stop(spec->stop_ctx, &savepoint)) {
            if (sl__checkpoint(j, savepoint, err) != 0)
                return -1;
            if (savepoint && j->store) {
                char *path = sl_chk_path(j->store, j->stats->last_checkpoint);
                sl__notice(spec, "job \"%s\" stopped with savepoint %s", spec->name, path);
                sl_free(path);
            }
            return 0;
        }
        sl_chunk_reset(j->in);
        int rc = j->source->ops->poll(j->source, j->in, err);
        if (rc < 0)
            return -1;
        j->stats->rows_in += j->in->nrows;
        if (j->in->nrows > 0 && sl__process(j, err) != 0)
            return -1;
        if (rc == SL_SOURCE_END || sl__limit_reached(j)) {
            if (rc == SL_SOURCE_END && sl__advance_watermark(j, INT64_MAX, err) != 0)
                return -1;
            if (sl__checkpoint(j, false, err) != 0)
                return -1;
            j->stats->finished = true;
            return 0;
        }
        if (interval_ns > 0 && sl__now(spec) - j->last_chk_ns >= interval_ns &&
            sl__checkpoint(j, false, err) != 0)
            return -1;
    }
}

int sl_job_run(const sl_job_spec *spec, sl_job_stats *stats, sl_error *err)
{
    memset(stats, 0, sizeof *stats);
    stats->last_checkpoint = -1;
    stats->restored_from = -1;
    sl__job j = {0};
    j.spec = spec;
    j.stats = stats;
    int rc = spec->data_dir ? sl_chk_open(spec->data_dir, spec->name, &j.store, err) : 0;
    if (rc == 0)
        rc = spec->create_source(&spec->source_args, &j.source, err);
    if (rc == 0)
        rc = spec->create_sink(&spec->sink_args, &j.sink, err);
    if (rc == 0) {
        j.steps = sl_calloc((size_t)(spec->nsteps ? spec->nsteps : 1), sizeof(sl__step));
        int ncols = spec->source_args.ncols;
        const sl_type *types = spec->source_args.types;
        for (int i = 0; i < spec->nsteps && rc == 0; i++) {
            const sl_step_spec *ss = &spec->steps[i];
            if (ss->calc) {
                rc = sl__calc_open(&j.steps[i].calc, ss->calc, ncols, types, err);
                if (ss->calc->project) {
                    ncols = ss->calc->nexprs;
                    types = ss->calc->out_types;
                }
            } else {
                rc = ss->create(ss->arg, &j.steps[i].op, err);
                ncols = ss->out_ncols;
                types = ss->out_types;
            }
        }
    }
    j.watermark = INT64_MIN;
    if (rc == 0 && spec->wm_expr) {
        j.wm_prog = sl_eval_compile(spec->wm_expr, spec->source_args.ncols,
                                    spec->source_args.types, err);
        if (!j.wm_prog) {
            rc = -1;
        } else {
            sl_type t = spec->wm_expr->type;
            j.wm_out = sl_chunk_new(1, &t, SL_CHUNK_ROWS);
        }
    }
    if (rc == 0) {
        j.in = sl_chunk_new(spec->source_args.ncols, spec->source_args.types, SL_CHUNK_ROWS);
        rc = sl__restore(&j, err);
    }
    if (rc == 0)
        rc = sl__loop(&j, err);
    if (j.source)
        stats->rows_skipped = j.source->ops->skipped ? j.source->ops->skipped(j.source) : 0;
    for (int i = 0; j.steps && i < spec->nsteps; i++) {
        if (j.steps[i].op) {
            stats->rows_late += j.steps[i].op->ops->late_rows(j.steps[i].op);
            j.steps[i].op->ops->free(j.steps[i].op);
        } else {
            sl__calc_close(&j.steps[i].calc);
        }
    }
    sl_free(j.steps);
    sl_eval_free(j.wm_prog);
    sl_chunk_free(j.wm_out);
    sl_chunk_free(j.in);
    if (j.sink)
        j.sink->ops->free(j.sink); /* an open, undecided epoch is discarded by the next recover() */
    if (j.source)
        j.source->ops->free(j.source);
    sl_chk_close(j.store);
    return rc;
}
