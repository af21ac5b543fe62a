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
** Restart: seek the source to D's position, recover the sink with D's
** committable: the output then holds exactly the rows before D's position,
** and the rows after it are produced again into epoch D+1.
**
** Main routine: sl_job_run.
*/
#include "sl_exec.h"

#include <string.h>

#define SL_STATE_SOURCE "source"
#define SL_STATE_SINK "sink"

/* One compiled calc step. */
typedef struct sl__calc {
    sl_eval_prog *filter; /* condition, or NULL */
    int nexprs;           /* projections (0 = pass through) */
    sl_eval_prog **exprs; /* their programs */
    sl_chunk *kept;       /* rows that passed the filter */
    sl_chunk *out;        /* projected rows */
    uint8_t *sel;         /* filter result per row */
} sl__calc;

typedef struct sl__job {
    const sl_job_spec *spec; /* what to run */
    sl_chk_store *store;     /* its checkpoints */
    sl_source *source;       /* the source */
    sl_sink *sink;           /* the sink */
    sl__calc *calc;          /* spec->ncalc steps */
    sl_chunk *in;            /* rows polled from the source */
    int64_t epoch;           /* the open epoch (= the next checkpoint) */
    int64_t last_chk_ns;     /* time of the last checkpoint */
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
    c->nexprs = cs->nexprs;
    if (c->nexprs > 0) {
        c->exprs = sl_calloc((size_t)c->nexprs, sizeof(sl_eval_prog *));
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
    if (c->nexprs == 0 || rows->nrows == 0) {
        *out = rows->nrows == 0 && c->out ? c->out : rows;
        if (*out == c->out)
            sl_chunk_reset(c->out);
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

static int sl__process(sl__job *j, sl_error *err)
{
    sl_eval_env env = {sl__now(j->spec)};
    sl_chunk *rows = j->in;
    for (int i = 0; i < j->spec->ncalc; i++)
        if (sl__calc_run(&j->calc[i], rows, &env, &rows, err) != 0)
            return -1;
    if (j->spec->limit >= 0 && rows->nrows > j->spec->limit - j->stats->rows_out)
        rows->nrows = (int)(j->spec->limit - j->stats->rows_out);
    if (rows->nrows == 0)
        return 0;
    if (j->sink->ops->write(j->sink, rows, err) != 0)
        return -1;
    j->stats->rows_out += rows->nrows;
    return 0;
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
        j.calc = sl_calloc((size_t)(spec->ncalc ? spec->ncalc : 1), sizeof(sl__calc));
        int ncols = spec->source_args.ncols;
        const sl_type *types = spec->source_args.types;
        for (int i = 0; i < spec->ncalc && rc == 0; i++) {
            rc = sl__calc_open(&j.calc[i], &spec->calc[i], ncols, types, err);
            if (spec->calc[i].nexprs > 0) {
                ncols = spec->calc[i].nexprs;
                types = spec->calc[i].out_types;
            }
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
    for (int i = 0; j.calc && i < spec->ncalc; i++)
        sl__calc_close(&j.calc[i]);
    sl_free(j.calc);
    sl_chunk_free(j.in);
    if (j.sink)
        j.sink->ops->free(j.sink); /* an open, undecided epoch is discarded by the next recover() */
    if (j.source)
        j.source->ops->free(j.source);
    sl_chk_close(j.store);
    return rc;
}
