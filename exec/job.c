/*
** job.c — runs a job: a dataflow graph of tasks, one thread each, with
** aligned checkpoint barriers and the commit protocol of DESIGN.md
** section 5 (see the job section of sl_exec.h for the graph).
**
** Threads. The thread calling sl_job_run is the coordinator: it restores
** every task from the decided checkpoint, starts the tasks, triggers
** checkpoints, writes the state the tasks hand it, seals (decides), prunes
** and ends the job. Each task runs its own loop:
**
**   input task   poll its source (returns within ~100 ms), push the chunk
**                through its chained steps, advance its watermark; inject
**                a barrier when the coordinator triggered a checkpoint;
**   stage task   receive from its channel (one lane per upstream task),
**                align barriers, take the minimum watermark of its lanes.
**
** A task's output goes either to its sink (the last tasks) or through an
** exchange into the channels of the next stage's tasks (rows hashed by key,
** or all to one task), buffered per destination and flushed after each
** input unit (a polled chunk, a received message), so nothing waits.
** A step's side output (sl_step_spec.side: late rows, conflicts; a step
** may have one of each) has its own sink instance in each task running it,
** written in the task's open
** epoch and pre-committed, committed and recovered with the task's sink, so
** the same checkpoint decides both (sl__build_sides, sl__side_emit).
**
** Checkpoint N, and the crash each step survives:
**
**   1. a source task records its position, then every task at barrier N
**      serializes its operators' state and its watermark into memory; a
**      sink task pre_commits N (durable, invisible -> committable) and
**      begins N+1 at once; all of it is handed to the coordinator, and the
**      barrier goes on downstream;            crash: no _metadata, N undecided
**   2. the coordinator writes the blobs into chk-N/ (fsync'ed) off the
**      tasks' threads: the asynchronous part; crash: N undecided, recover()
**                                              discards N's pre-committed data
**   3. every preparable participant prepares N (PREPARE TRANSACTION:
**      durable, invisible);                   crash: N undecided, resolve()
**                                              rolls it back
**   4. the decision: with a last-resource participant its decide(N) —
**      the commit of N's transaction, carrying the record "N is decided";
**      then (or else as the decision) chk-N/_metadata;
**                                              crash between the two: the
**                                              restart seals chk-N
**   5. every preparable participant commits N, each sink task commits N
**      (idempotent);                          crash: resolve() and
**                                              recover() commit it;
**   6. old checkpoints are pruned.
**
** At most one checkpoint is in flight. Restart: the participants (if any)
** tell the newest checkpoint whose epoch they committed (a last resource
** fences earlier incarnations first); every task restores from the newest
** decided checkpoint D (source position, operator state, watermark); the
** preparable participants resolve what earlier incarnations prepared by D
** and fence them; every sink instance recover()s with all of D's
** committables.
** The output then holds exactly the rows before D's positions, and the rows
** after them are produced again into epoch D+1.
**
** The end. A task whose inputs have all ended sends END on (the watermark
** is then +infinity: every window fires) and stays alive to pass barriers.
** When every sink task has seen the end, the coordinator takes a final
** checkpoint, waits until every sink committed it, and shuts the tasks
** down. A stop request (or a LIMIT reached) takes the same final
** checkpoint, after which the sources read no more.
**
** Main routine: sl_job_run.
*/
#include "sl_exec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SL__LANE_CAP 8        /* messages queued per lane (backpressure beyond) */
#define SL__WAIT_NS 50000000  /* 50 ms: how long a task or the coordinator sleeps at most */
#define SL__LAYOUT "layout"   /* state blob: the graph's shape */
/* An operator's state blob when it was finished (sl_source_ops.end_is_final) */
#define SL__FINISHED "sluice-operator-finished"
/* Stack of a task thread, whatever `ulimit -s` says: the evaluator recurses
** over expression trees, which the parser keeps at most SL__MAX_DEPTH (1000)
** levels deep (each level takes well under 1 KiB: 512 KiB were enough in
** tests/sql/limits.sql), so 8 MiB leave a wide margin. */
#define SL__TASK_STACK ((size_t)8 << 20)

/* A state blob a task hands to the coordinator. */
typedef struct sl__blob {
    char *name;   /* state name in the checkpoint */
    char *data;   /* bytes */
    size_t len;   /* length */
    size_t cap;   /* bytes allocated at data (sl__spare_keep) */
    int kind;     /* 0 operator/watermark, 1 source position, 2 sink committable */
} sl__blob;

/* A task's share of a checkpoint. */
typedef struct sl__ack {
    int64_t id;      /* checkpoint */
    sl_list *blobs;  /* sl__blob* */
} sl__ack;

/* A pre-committed epoch of a sink task, waiting for its decision. */
typedef struct sl__pending {
    int64_t epoch;   /* = checkpoint id */
    sl_strbuf committable;
} sl__pending;

/* One compiled calc step. */
typedef struct sl__calc {
    sl_eval_prog *filter; /* condition, or NULL */
    bool project;         /* projects (else passes the filtered rows through) */
    int nexprs;           /* projections */
    sl_eval_prog **exprs; /* their programs */
    sl_chunk *kept;       /* rows that passed the filter */
    bool *reads;          /* with both: the input columns the computing projections read */
    int *bare;            /* per projection: the input column it is, -1 = it computes */
    bool computes;        /* some projection computes (it reads kept) */
    sl_chunk *out;        /* projected rows */
    uint8_t *sel;         /* filter result per row */
    int *idx;             /* the kept rows' indexes */
    int cap;              /* rows sel and idx have room for */
} sl__calc;

/* One step of a task's chain at run time. */
typedef struct sl__step {
    sl__calc calc;   /* a calc (when op is NULL) */
    sl_operator *op; /* a stateful operator, or NULL */
    char *state_dir; /* op->state_dir: jobs/<job>/state/<task>-<step> (NULL: a query) */
} sl__step;

typedef struct sl__job sl__job;
typedef struct sl__task sl__task;

/* A step's side output in one task (sl_side_spec): its own sink instance,
** begun, pre-committed, committed and recovered with the task's others. */
typedef struct sl__side {
    sl__task *t;              /* the task */
    int step;                 /* the step whose operator writes into it */
    int kind;                 /* which of its side outputs (SL_SIDE_LATE...) */
    const sl_side_spec *spec; /* what it writes, where */
    sl_sink *sink;            /* the side table's sink instance */
    sl_sink_args kargs;       /* its arguments */
    int group;                /* the side table's group: every instance writing that
                                 table (its committables are recovered together) */
    sl_chunk *buf;            /* rows mapped onto the table, not yet written */
    sl_list *pending;         /* sl__pending*: pre-committed, undecided epochs */
    int64_t committed;        /* newest epoch committed */
} sl__side;

struct sl__task {
    sl__job *job;             /* the job */
    const sl_job_spec *pipe;  /* its pipeline (the job's spec, or one of its extra) */
    char name[32];            /* "in<input>.<subtask>" or "st<stage>.<subtask>" */
    int input;                /* input index, or -1 (a stage task) */
    int stage;                /* stage index, or -1 (an input task) */
    int subtask;              /* index among the tasks of its input / stage */
    pthread_t thread;         /* its thread */
    bool started;             /* thread created */
    /* input task */
    sl_source *source;        /* the source */
    sl_source_args sargs;     /* its arguments */
    sl_chunk *in;             /* rows polled */
    sl_eval_prog *wm_prog;    /* WATERMARK expression, or NULL */
    int wm_col;               /* ... when it is a column plus a constant (sl_bexpr_col_offset):
                                 that column, else -1 */
    int64_t wm_off;           /* ... and the constant (ns) */
    sl_chunk *wm_out;         /* its values */
    bool source_ended;        /* the source said END */
    bool idle;                /* a final barrier was injected: read no more */
    /* stage task */
    sl_channel *chan;         /* input channel, one lane per upstream task */
    int nlanes;               /* upstream tasks */
    int64_t *lane_wm;         /* watermark per lane */
    uint8_t *lane_ended;      /* END seen per lane */
    uint8_t *lane_blocked;    /* barrier seen per lane (alignment) */
    uint8_t *lane_idle;       /* IDLE seen per lane, and nothing since */
    int64_t last_rows_ns;     /* input task: when its source last gave rows */
    /* input task: what the coordinator's stall check reads (sl__stall_check) */
    _Atomic int64_t pub_wm;        /* its watermark (INT64_MIN: none yet) */
    _Atomic int64_t pub_rows_ns;   /* last_rows_ns */
    _Atomic int pub_stale_split;   /* the split without rows the longest (-1: none) */
    _Atomic int64_t pub_stale_ns;  /* ... since when */
    int from;                 /* stage task: the first task of a layer feeding it */
    int nsplits;              /* input task: splits its source reported (0: one split) */
    int64_t *split_wm;        /* each one's largest WATERMARK value (INT64_MIN: none yet) */
    int64_t *split_ns;        /* when each one last gave rows (or became known) */
    sl_list *positions;       /* input task: sl__pending* of positions taken at barriers,
                                 until their checkpoint is decided (source ops->decided) */
    bool declared_idle;       /* IDLE was sent on, nothing since */
    /* Scan reuse (sl_input_spec.shares) and sub-plan reuse (sl_stage_spec.
    ** fork): the task of an input that reads another's source, or of a
    ** stage that takes another's rows, has no thread (nor source, nor
    ** channel) of its own; the task it shares (its owner) hands the
    ** branch's chain the rows entering its step fork_at (an input's: the
    ** rows it polls), and passes each watermark, barrier and end on to it
    ** too (sl__fork, sl__advance_watermark, sl__barrier, sl__end). */
    sl__task *owner;          /* the owner of a branch, else NULL */
    sl__task **branches;      /* an owner's branches */
    int nbranches;            /* how many */
    int fork_at;              /* a branch: the step of its owner whose rows it takes */
    int nblocked;             /* lanes blocked */
    /* chain */
    int nsteps;               /* steps */
    const sl_step_spec *specs;/* their specs */
    sl__step *steps;          /* at run time */
    int in_ncols;             /* columns entering the chain */
    const sl_type *in_types;  /* their types */
    int out_ncols;            /* columns leaving the chain */
    const sl_type *out_types; /* their types */
    sl_eval_env env;          /* evaluation environment of the current chunk */
    int64_t watermark;        /* event time reached (INT64_MIN: none yet) */
    int64_t last_barrier;     /* newest barrier passed on */
    bool ended;               /* all input ended and END passed on */
    /* output: an exchange ... */
    const sl_stage_spec *next;/* the next stage, or NULL (this task has the sink) */
    int ndest;                /* its tasks */
    sl_channel **dest;        /* their channels */
    int lane;                 /* this task's lane in each */
    sl_chunk **buf;           /* rows buffered per destination */
    uint64_t *hashes;         /* key hashes of a chunk */
    int *sel;                 /* rows of a chunk going to one destination */
    int sel_cap;              /* entries of hashes and sel */
    /* ... or the sink */
    sl_sink *sink;            /* the sink, or NULL */
    sl_sink_args kargs;       /* its arguments */
    sl_length_check *fit;     /* the length enforcer before it, or NULL */
    sl_list *pending;         /* sl__pending*: pre-committed, undecided epochs */
    int64_t committed;        /* newest epoch its sink and side outputs all committed
                                 (guarded by job->mu) */
    int64_t committed_main;   /* ... its sink (task's own) */
    bool limit_hit;           /* LIMIT reached: rows are dropped */
    /* counters, read by the coordinator while the task runs */
    _Atomic int64_t rows_in, rows_out, rows_late, rows_skipped;
    _Atomic int64_t conflicts; /* the sink's conflicts (sl_sink_ops.conflicts) */
    /* the same over the job's life before this run (the restored checkpoint's
       "counters-<task>"; set before the task starts) */
    int64_t base_in, base_out, base_skipped;
    int64_t base_conflicts;   /* ... and the sink's conflicts */
    int64_t base_late;        /* late rows its operators' restored state counted */
    /* side outputs of its steps (sl_step_spec.side) */
    int nsides;               /* how many */
    sl__side *sides;          /* them */
    _Atomic int64_t op_conflicts; /* its operators' conflicts (sl_operator_ops.conflicts), this run */
    int64_t base_op_conflicts;/* ... counted by their restored state */
    bool finished;            /* its operators were restored as finished: no row may
                                 reach it (sl_source_ops.end_is_final) */
};

struct sl__job {
    const sl_job_spec *spec;  /* what to run */
    sl_chk_store *store;      /* its checkpoints (NULL: a query) */
    sl_participant *parts[SL_MAX_PARTICIPANTS]; /* the participants (spec's order) */
    int nparts;                  /* how many */
    int ntasks;               /* tasks */
    sl__task *tasks;          /* them: inputs' tasks first, then each stage's */
    int nsinks;               /* tasks with a sink */
    bool final_inputs;        /* every source's end is final (sl_source_ops.end_is_final) */
    int64_t epoch;            /* first epoch of this run */
    int64_t created;          /* when it created its sources: one instant for every
                                 source subtask of every pipeline (sl_source_args) */
    pthread_mutex_t mu;       /* guards the fields below */
    pthread_cond_t task_cv;   /* coordinator -> tasks: a command */
    pthread_cond_t coord_cv;  /* tasks -> coordinator: an event */
    uint64_t events;          /* events so far (sl__coord_event): the coordinator
                                 sleeps only when none came since it last looked */
    int64_t trigger;          /* newest checkpoint requested from the sources */
    bool trigger_savepoint;   /* ... kept as a savepoint */
    bool trigger_final;       /* ... after which the sources read no more */
    int64_t decided;          /* newest decided checkpoint */
    bool shutdown;            /* tasks: leave the loop */
    sl_list *acks;            /* sl__ack*: handed over, not yet written */
    sl_list *spares;          /* sl_strbuf*: written state blobs' buffers for the next
                                 snapshots (sl__spare_keep) */
    int sinks_ended;          /* sink tasks that saw the end of all input */
    bool limit_hit;           /* the LIMIT was reached */
    bool failed;              /* a task failed: err */
    atomic_bool cancel;       /* failed or shutdown: operators' long loops stop (sl_operator) */
    sl_error err;             /* the first failure */
    pthread_mutex_t fp_mu;    /* one failpoint call at a time */
    sl_job_stats *stats;      /* what happened */
    /* The stall check (coordinator only): since stall_since the event-time
    ** inputs' watermark stayed stall_wm and the sinks' rows stall_out. */
    int64_t stall_since, stall_wm, stall_in, stall_out;
    bool stall_warned;        /* stats->warning is set: once per run */
};

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

/* A test's injected failure after step `where` (see sl_job_spec). */
static int sl__failpoint(sl__job *j, const char *where, sl_error *err)
{
    if (!j->spec->failpoint)
        return 0;
    pthread_mutex_lock(&j->fp_mu);
    int fail = j->spec->failpoint(j->spec->failpoint_ctx, where);
    pthread_mutex_unlock(&j->fp_mu);
    if (fail)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "injected failure after %s", where);
    return 0;
}

/* An event for the coordinator (j->mu held): it wakes, or does not fall
** asleep if it was busy when the event came. */
static void sl__coord_event(sl__job *j)
{
    j->events++;
    pthread_cond_broadcast(&j->coord_cv);
}

/* Record a task's failure (the first one wins) and wake the coordinator. */
static void sl__fail(sl__job *j, sl_error *err)
{
    pthread_mutex_lock(&j->mu);
    if (!j->failed && !j->shutdown) {
        j->failed = true;
        atomic_store(&j->cancel, true);
        sl_error_move(&j->err, err);
    }
    sl__coord_event(j);
    pthread_mutex_unlock(&j->mu);
    sl_error_reset(err);
}

/* ------------------------------------------------------------------------
** Calc steps
*/

/* Mark the input columns expression x reads. */
static void sl__expr_reads(const sl_bexpr *x, bool *reads, int ncols)
{
    if (x->kind == SL_BX_COLUMN && x->col >= 0 && x->col < ncols)
        reads[x->col] = true;
    for (int i = 0; i < x->nargs; i++)
        sl__expr_reads(x->args[i], reads, ncols);
}

static int sl__calc_open(sl__calc *c, const sl_calc_spec *cs, int ncols, const sl_type *types,
                         sl_error *err)
{
    memset(c, 0, sizeof *c);
    c->kept = sl_chunk_new(ncols, types, SL_CHUNK_ROWS);
    c->sel = sl_calloc(SL_CHUNK_ROWS, 1);
    c->idx = sl_calloc(SL_CHUNK_ROWS, sizeof(int));
    c->cap = SL_CHUNK_ROWS;
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
        /* A projection that is an input column is gathered straight from
        ** the input (not first into kept, then copied out). */
        c->bare = sl_calloc((size_t)c->nexprs + 1, sizeof(int));
        c->reads = sl_calloc((size_t)ncols + 1, sizeof(bool));
        for (int i = 0; i < c->nexprs; i++) {
            const sl_bexpr *x = cs->exprs[i];
            bool bare = x->kind == SL_BX_COLUMN && x->col >= 0 && x->col < ncols &&
                        sl_phys_of(types[x->col]) == sl_phys_of(cs->out_types[i]);
            c->bare[i] = bare ? x->col : -1;
            if (!bare) {
                c->computes = true;
                sl__expr_reads(x, c->reads, ncols);
            }
        }
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
    sl_free(c->idx);
    sl_free(c->reads);
    sl_free(c->bare);
}

/* Run one calc over in; *out receives the result (owned by the step). */
static int sl__calc_run(sl__calc *c, sl_chunk *in, const sl_eval_env *env, sl_chunk **out,
                        sl_error *err)
{
    sl_chunk *rows = in;
    const int *idx = NULL; /* the kept rows of in; NULL: all of them */
    int k = in->nrows;
    if (c->filter) {
        if (in->nrows > c->cap) { /* an operator's bigger chunk */
            c->cap = in->nrows;
            c->sel = sl_realloc(c->sel, (size_t)c->cap);
            c->idx = sl_realloc(c->idx, (size_t)c->cap * sizeof(int));
        }
        int n = sl_eval_filter(c->filter, in, env, c->sel, err);
        if (n < 0)
            return -1;
        if (n < in->nrows) {
            /* WHERE applies before SELECT: only kept rows are projected, so a
            ** projection cannot fail on a row the filter removed. The
            ** computing projections read kept: just the columns they read,
            ** their strings left in place; the others are gathered from in
            ** below. Without a projection the rows are copied column by
            ** column (a row-by-row copy switching on each value's type was
            ** an eighth of a filter/project job). */
            k = 0;
            for (int r = 0; r < in->nrows; r++) {
                c->idx[k] = r;
                k += c->sel[r] != 0;
            }
            idx = c->idx;
            if (k > SL_CHUNK_ROWS) /* kept and out hold one chunk */
                return sl_error_set(err, SL_ERR_INTERNAL, -1, "a calc kept %d rows at once", k);
            if (!c->project) {
                sl_chunk_reset(c->kept);
                sl_chunk_append_rows(c->kept, in, c->idx, k);
                *out = c->kept;
                return 0;
            }
            if (c->computes) {
                sl_chunk_select_view(c->kept, in, c->sel, c->reads);
                rows = c->kept;
            }
        }
    }
    if (!c->project) {
        *out = rows;
        return 0;
    }
    sl_chunk_reset(c->out);
    *out = c->out;
    if (k == 0)
        return 0;
    if (k > c->out->cap)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "a projection got %d rows at once", k);
    /* The projected strings stay in the input's (or the expressions'
    ** arenas): the rows are consumed down the chain before either changes
    ** (operators and sinks copy what they keep). */
    const sl_chunk *src = idx ? in : rows;
    for (int i = 0; i < c->nexprs; i++) {
        if (c->bare[i] >= 0)
            sl_chunk_gather_view(c->out, i, src, c->bare[i], idx, k);
        else if (sl_eval_into_view(c->exprs[i], rows, env, c->out, i, err) != 0)
            return -1;
    }
    c->out->nrows = k;
    if (idx)
        for (int j = 0; j < k; j++)
            c->out->kinds[j] = in->kinds[idx[j]];
    else
        memcpy(c->out->kinds, rows->kinds, (size_t)k);
    return 0;
}

/* ------------------------------------------------------------------------
** A task's output: the exchange into the next stage, or the sink
*/

/* Send a message to every destination; -1 when the job is being torn down. */
static int sl__broadcast(sl__task *t, const sl_msg *m)
{
    for (int d = 0; d < t->ndest; d++)
        if (sl_channel_send(t->dest[d], t->lane, m) != 0)
            return -1;
    return 0;
}

static int sl__cancelled(sl_error *err)
{
    return sl_error_set(err, SL_ERR_INTERNAL, -1, "the job was cancelled");
}

/* Send the rows buffered for every destination. */
static int sl__flush(sl__task *t, sl_error *err)
{
    for (int d = 0; d < t->ndest; d++) {
        if (!t->buf[d] || t->buf[d]->nrows == 0)
            continue;
        sl_msg m = {.kind = SL_MSG_CHUNK, .chunk = t->buf[d]};
        if (sl_channel_send(t->dest[d], t->lane, &m) != 0)
            return sl__cancelled(err);
        t->buf[d] = NULL;
    }
    return 0;
}

/* Route rows into the destination buffers (sending the full ones): the
** rows of each destination are picked by a selection, then copied column
** by column. */
static int sl__exchange(sl__task *t, const sl_chunk *rows, sl_error *err)
{
    const sl_stage_spec *ns = t->next;
    bool hash = ns->exchange == SL_EXCHANGE_HASH && t->ndest > 1;
    if (rows->nrows > t->sel_cap) { /* an operator may emit bigger chunks */
        t->sel_cap = rows->nrows;
        t->hashes = sl_realloc(t->hashes, (size_t)t->sel_cap * sizeof(uint64_t));
        t->sel = sl_realloc(t->sel, (size_t)t->sel_cap * sizeof(int));
    }
    if (hash)
        sl_chunk_hash_keys(rows, ns->nkeys, ns->keys, t->hashes);
    for (int d = 0; d < t->ndest; d++) {
        int n = 0;
        for (int r = 0; r < rows->nrows; r++) /* high bits: the key tables use the low ones */
            if (!hash || (int)(((t->hashes[r] >> 32) * (uint64_t)t->ndest) >> 32) == d)
                t->sel[n++] = r;
        for (int k = 0; k < n;) {
            if (!t->buf[d]) { /* room for these rows: a selective chain sends few a poll,
                                 and a full chunk for each would be calloc'ed and zeroed */
                int cap = 64;
                while (cap < n - k && cap < SL_CHUNK_ROWS)
                    cap *= 2;
                t->buf[d] = sl_chunk_new(t->out_ncols, t->out_types, cap);
            }
            int room = t->buf[d]->cap - t->buf[d]->nrows;
            int take = n - k < room ? n - k : room;
            sl_chunk_append_rows(t->buf[d], rows, t->sel + k, take);
            k += take;
            if (sl_chunk_full(t->buf[d])) {
                sl_msg m = {.kind = SL_MSG_CHUNK, .chunk = t->buf[d]};
                if (sl_channel_send(t->dest[d], t->lane, &m) != 0)
                    return sl__cancelled(err);
                t->buf[d] = NULL;
            }
        }
    }
    return 0;
}

/* Rows leaving the chain: into the exchange or the sink. */
static int sl__output(sl__task *t, sl_chunk *rows, sl_error *err)
{
    if (t->next)
        return sl__exchange(t, rows, err);
    if (t->limit_hit)
        return 0;
    int64_t limit = t->pipe->limit;
    if (limit >= 0 && rows->nrows > limit - t->rows_out)
        rows->nrows = (int)(limit - t->rows_out);
    if (sl_length_check_run(t->fit, rows, &rows, err) != 0)
        return -1;
    if (rows->nrows > 0 && t->sink->ops->write(t->sink, rows, err) != 0)
        return -1;
    t->rows_out += rows->nrows;
    if (t->sink->ops->conflicts)
        t->conflicts = t->sink->ops->conflicts(t->sink);
    if (limit >= 0 && t->rows_out >= limit) {
        t->limit_hit = true;
        pthread_mutex_lock(&t->job->mu);
        t->job->limit_hit = true;
        sl__coord_event(t->job);
        pthread_mutex_unlock(&t->job->mu);
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Side outputs: an operator's canonical rows onto its side table
*/

/* The name of a side output's committables in a checkpoint, by its kind:
** "side-<task>-<step>-late" and "side-<task>-<step>-conflicts". Never the
** same name for two kinds, so a job restored after its settings changed
** (a table of one kind dropped, one of the other set) never hands one
** table's committables to the other's sink. */
static const char *sl__side_blob_suffix(const sl__side *sd)
{
    return sd->kind == SL_SIDE_LATE ? "-late" : "-conflicts";
}

/* Write the side rows buffered. */
static int sl__side_flush(sl__side *sd, sl_error *err)
{
    if (!sd->buf || sd->buf->nrows == 0)
        return 0;
    int rc = sd->sink->ops->write(sd->sink, sd->buf, err);
    sl_chunk_reset(sd->buf);
    return rc;
}

/* The operator's emit into its side output (sl_operator.side): each
** canonical row mapped onto the table's columns; job, operator and
** arrived_at filled where the operator left them NULL. */
static int sl__side_emit(void *ctx, sl_chunk *rows, sl_error *err)
{
    sl__side *sd = ctx;
    const sl_side_spec *sp = sd->spec;
    const sl_job_spec *spec = sd->t->job->spec;
    int64_t now = sl__now(spec);
    now = (now / SL_NANOS_PER_MILLI - (now % SL_NANOS_PER_MILLI < 0)) * SL_NANOS_PER_MILLI;
    const char *opname = sl_step_name(&sd->t->specs[sd->step]);
    for (int r = 0; r < rows->nrows; r++) {
        if (sl_chunk_full(sd->buf) && sl__side_flush(sd, err) != 0)
            return -1;
        int x = sl_chunk_append_row(sd->buf, SL_ROW_INSERT);
        for (int c = 0; c < sp->ncols; c++) {
            int k = sp->map[c];
            if (k < 0 || k >= rows->ncols)
                continue; /* stays NULL */
            if (!rows->cols[k].nulls[r])
                sl_chunk_set_from(sd->buf, c, x, rows, k, r);
            else if (k == SL_SIDE_JOB && spec->name)
                sl_chunk_set_str(sd->buf, c, x, spec->name, strlen(spec->name));
            else if (k == SL_SIDE_OPERATOR)
                sl_chunk_set_str(sd->buf, c, x, opname, strlen(opname));
            else if (k == SL_SIDE_ARRIVED_AT)
                sl_chunk_set_i64(sd->buf, c, x, now);
        }
    }
    return 0;
}

/* Whether a pre-committed epoch of one of the task's sinks is decided. */
static bool sl__decided_pending(const sl__task *t, int64_t decided)
{
    for (int i = 0; i < t->nbranches; i++)
        if (sl__decided_pending(t->branches[i], decided))
            return true;
    if (t->sink && t->pending->n > 0 && ((sl__pending *)t->pending->items[0])->epoch <= decided)
        return true;
    for (int i = 0; i < t->nsides; i++)
        if (t->sides[i].pending->n > 0 &&
            ((sl__pending *)t->sides[i].pending->items[0])->epoch <= decided)
            return true;
    return false;
}

/* An input task (i = -1) or its branch i. */
static sl__task *sl__branch(sl__task *t, int i)
{
    return i < 0 ? t : t->branches[i];
}

/* Rows reached task t or a branch of it: it is not idle (any more). */
static void sl__active(sl__task *t)
{
    t->declared_idle = false;
    for (int i = 0; i < t->nbranches; i++)
        sl__active(t->branches[i]);
}

/* ------------------------------------------------------------------------
** The chain
*/

static int sl__push(sl__task *t, int step, sl_chunk *rows, sl_error *err);

/* Rows entering step `step` of owner t: into the chain of each branch
** forking there, first (a chain reads its rows and changes none of them:
** calcs select and project into their own chunks, operators keep what
** they need; neither an owner nor a branch ends in a sink, which may). */
static int sl__fork(sl__task *t, int step, sl_chunk *rows, sl_error *err)
{
    for (int i = 0; i < t->nbranches; i++) {
        sl__task *b = t->branches[i];
        if (b->fork_at != step)
            continue;
        b->env.now_nanos = t->env.now_nanos;
        if (sl__push(b, 0, rows, err) != 0)
            return -1;
    }
    return 0;
}

/* The emit callback of an operator: its rows go on to the next step. */
typedef struct sl__next {
    sl__task *t; /* the task */
    int step;    /* where the rows go */
} sl__next;

static int sl__emit_next(void *ctx, sl_chunk *rows, sl_error *err)
{
    sl__next *n = ctx;
    return sl__push(n->t, n->step, rows, err);
}

/* Run rows through steps step.. and out of the task. */
static int sl__push(sl__task *t, int step, sl_chunk *rows, sl_error *err)
{
    if (t->finished && rows->nrows > 0) {
        sl_error_set(err, SL_ERR_OBJECT_STATE, -1,
                     "job \"%s\" has finished: its operators kept no state to take more rows",
                     t->job->spec->name ? t->job->spec->name : "?");
        sl_error_detail(err, "Its input ended for good and its last checkpoint recorded the "
                             "operators as finished; this run's sources gave rows after that "
                             "(were their options changed?).");
        sl_error_hint(err, "Run the INSERT as a new job: SET 'pipeline.name' to another name.");
        return -1;
    }
    for (;; step++) {
        if (rows->nrows == 0)
            return 0;
        if (t->nbranches && sl__fork(t, step, rows, err) != 0)
            return -1;
        if (step >= t->nsteps)
            break;
        sl__step *st = &t->steps[step];
        if (st->op) {
            sl__next next = {t, step + 1};
            sl_emit out = {sl__emit_next, &next};
            return st->op->ops->process(st->op, rows, &out, err);
        }
        if (sl__calc_run(&st->calc, rows, &t->env, &rows, err) != 0)
            return -1;
    }
    return sl__output(t, rows, err);
}

/* Late rows (and conflicts) of the task's operators so far. */
static void sl__count_late(sl__task *t)
{
    int64_t late = 0, conflicts = 0;
    for (int i = 0; t->steps && i < t->nsteps; i++) /* steps: NULL when setting up failed */
        if (t->steps[i].op) {
            late += t->steps[i].op->ops->late_rows(t->steps[i].op);
            if (t->steps[i].op->ops->conflicts)
                conflicts += t->steps[i].op->ops->conflicts(t->steps[i].op);
        }
    t->rows_late = late - t->base_late; /* this run's: the operators count over their state's life */
    t->op_conflicts = conflicts - t->base_op_conflicts;
}

/* The same for t and its branches. */
static void sl__count_late_all(sl__task *t)
{
    sl__count_late(t);
    for (int i = 0; i < t->nbranches; i++)
        sl__count_late_all(t->branches[i]);
}

/* A chunk went through t's chain (and its branches'): the rows they
** buffered for the next stages go on, and their late rows are counted. */
static int sl__chunk_done(sl__task *t, sl_error *err)
{
    for (int i = 0; i < t->nbranches; i++)
        if (sl__chunk_done(t->branches[i], err) != 0)
            return -1;
    int rc = sl__flush(t, err);
    sl__count_late(t);
    return rc;
}

/* Watermark wm held back by the delays (sl_operator.wm_delay) of the first
** n operators of t's chain: what the operators after them may rely on. The
** ends (INT64_MIN: none yet, INT64_MAX: end of input) stay; saturates. */
static int64_t sl__held_watermark(const sl__task *t, int n, int64_t wm)
{
    for (int i = 0; i < n && t->steps && wm != INT64_MIN && wm != INT64_MAX; i++) {
        const sl_operator *op = t->steps[i].op;
        if (op && op->wm_delay > 0)
            wm = wm < INT64_MIN + op->wm_delay ? INT64_MIN + 1 : wm - op->wm_delay;
    }
    return wm;
}

/* Event time reached wm: every operator (in chain order) emits what became
** final, each given the watermark held back by the operators before it,
** and so does each branch, given the watermark held back by the operators
** before its fork; the held-back watermark goes on downstream.
** t->watermark stays the input's (checkpointed). */
static int sl__advance_watermark(sl__task *t, int64_t wm, sl_error *err)
{
    if (wm <= t->watermark)
        return 0;
    t->watermark = wm;
    atomic_store(&t->pub_wm, wm);
    t->env.now_nanos = sl__now(t->job->spec);
    for (int i = 0; i < t->nsteps; i++) {
        sl_operator *op = t->steps[i].op;
        if (!op)
            continue;
        sl__next next = {t, i + 1};
        sl_emit out = {sl__emit_next, &next};
        if (op->ops->watermark(op, sl__held_watermark(t, i, wm), &out, err) != 0)
            return -1;
    }
    for (int i = 0; i < t->nbranches; i++) {
        sl__task *b = t->branches[i];
        if (sl__advance_watermark(b, sl__held_watermark(t, b->fork_at, wm), err) != 0)
            return -1;
    }
    if (!t->next)
        return 0;
    if (sl__flush(t, err) != 0)
        return -1;
    sl_msg m = {.kind = SL_MSG_WATERMARK, .watermark = sl__held_watermark(t, t->nsteps, wm)};
    return sl__broadcast(t, &m) != 0 ? sl__cancelled(err) : 0;
}

/* The input has ended: +infinity watermark, END on to the next stage (and
** the branches'); a sink task tells the coordinator. */
static int sl__end(sl__task *t, sl_error *err)
{
    if (sl__advance_watermark(t, INT64_MAX, err) != 0)
        return -1;
    for (int i = 0; i < t->nbranches; i++)
        if (sl__end(t->branches[i], err) != 0)
            return -1;
    t->ended = true;
    if (t->next) {
        if (sl__flush(t, err) != 0)
            return -1;
        sl_msg m = {.kind = SL_MSG_END};
        return sl__broadcast(t, &m) != 0 ? sl__cancelled(err) : 0;
    }
    pthread_mutex_lock(&t->job->mu);
    t->job->sinks_ended++;
    sl__coord_event(t->job);
    pthread_mutex_unlock(&t->job->mu);
    return 0;
}

/* Tell the next stage this task (and its branches) is idle (no rows, so
** no watermark). */
static int sl__send_idle(sl__task *t, sl_error *err)
{
    for (int i = 0; i < t->nbranches; i++)
        if (sl__send_idle(t->branches[i], err) != 0)
            return -1;
    if (!t->next || t->declared_idle)
        return 0;
    t->declared_idle = true;
    if (sl__flush(t, err) != 0)
        return -1;
    sl_msg m = {.kind = SL_MSG_IDLE};
    return sl__broadcast(t, &m) != 0 ? sl__cancelled(err) : 0;
}

/* ------------------------------------------------------------------------
** Barriers, commits (task side)
*/

static void sl__blob_add(sl_list *blobs, int kind, const char *fmt, const char *task,
                         sl_strbuf *data)
{
    sl__blob *b = sl_calloc(1, sizeof *b);
    b->name = sl_sprintf(fmt, task);
    b->len = data->len;
    b->cap = data->buf ? data->cap : 0;
    b->data = sl_strbuf_detach(data);
    if (!b->data)
        b->data = sl_strdup("");
    b->kind = kind;
    sl_list_push(blobs, b);
}

static void sl__blob_free(void *p)
{
    sl__blob *b = p;
    sl_free(b->name);
    sl_free(b->data);
    sl_free(b);
}

static void sl__ack_free(void *p)
{
    sl__ack *a = p;
    sl_list_free(a->blobs, sl__blob_free);
    sl_free(a);
}

/* A snapshot of much state (1M groups: 13 MB) would fault its buffer in
** page by page on the task's thread at every checkpoint, once the buffer
** the coordinator freed after writing went back to the system: the
** buffers of operator blobs are kept instead (the largest, one a task) and
** the next snapshots write into them (sl__spare_take). */
#define SL__SPARE_MIN ((size_t)64 << 10)

static void sl__strbuf_free_p(void *p)
{
    sl_strbuf_free(p);
    sl_free(p);
}

/* The coordinator is done with acks: keep the large buffers, free the rest. */
static void sl__spare_keep(sl__job *j, sl_list *acks)
{
    pthread_mutex_lock(&j->mu);
    for (int i = 0; i < acks->n; i++) {
        sl_list *blobs = ((sl__ack *)acks->items[i])->blobs;
        for (int k = 0; k < blobs->n; k++) {
            sl__blob *b = blobs->items[k];
            if (b->kind != 0 || b->cap < SL__SPARE_MIN)
                continue;
            sl_strbuf *sb;
            if (j->spares->n < j->ntasks) {
                sb = sl_calloc(1, sizeof *sb);
                sl_list_push(j->spares, sb);
            } else { /* in place of the smallest, if this one is larger */
                sb = j->spares->items[0];
                for (int m = 1; m < j->spares->n; m++)
                    if (((sl_strbuf *)j->spares->items[m])->cap < sb->cap)
                        sb = j->spares->items[m];
                if (sb->cap >= b->cap)
                    continue;
                sl_strbuf_free(sb);
            }
            sb->buf = b->data;
            sb->cap = b->cap;
            b->data = NULL;
        }
    }
    pthread_mutex_unlock(&j->mu);
    sl_list_free(acks, sl__ack_free);
}

/* An empty buffer for a snapshot: a kept one when there is one. */
static void sl__spare_take(sl__job *j, sl_strbuf *st)
{
    sl_strbuf *sb = NULL;
    pthread_mutex_lock(&j->mu);
    if (j->spares->n > 0)
        sb = j->spares->items[--j->spares->n];
    pthread_mutex_unlock(&j->mu);
    if (!sb)
        return;
    *st = *sb;
    sl_strbuf_reset(st);
    sl_free(sb);
}

static void sl__pending_free(void *p)
{
    sl__pending *pd = p;
    sl_strbuf_free(&pd->committable);
    sl_free(pd);
}

/* The directory of checkpoint id (of store) where step k of task t keeps
** the files of its state (sl_operator.chk_dir), or NULL without a store.
** Caller frees. */
static char *sl__op_files(const sl_chk_store *store, int64_t id, const sl__task *t, int k)
{
    /* A store that is no local directory (S3) cannot hold them: the
    ** planner refuses 'rocksdb' with such a 'execution.checkpointing.dir'. */
    if (!store || !SL_ALWAYS(sl_chk_is_local(store)))
        return NULL;
    char *chk = sl_chk_path(store, id);
    char *files = sl_sprintf("%s/files-op-%s-%d", chk, t->name, k);
    sl_free(chk);
    return files;
}

/* Barrier id reached this task (aligned): snapshot into blobs (which may
** already hold the source's position), pre-commit the sink, hand it all to
** the coordinator and pass the barrier on. */
static int sl__barrier(sl__task *t, int64_t id, bool savepoint, sl_list *blobs, sl_error *err)
{
    sl__job *j = t->job;
    int rc = sl__flush(t, err);
    for (int i = 0; rc == 0 && i < t->nsteps; i++) {
        sl_operator *op = t->steps[i].op;
        if (!op)
            continue;
        sl_strbuf st = SL_STRBUF_INIT;
        if (j->final_inputs && t->ended && op->ops->late_rows(op) == 0 &&
            (!op->ops->conflicts || op->ops->conflicts(op) == 0)) {
            /* No run of the job can give it another row: its state is dead
            ** (it counted nothing the job's lifetime counters need). The
            ** backend stays: a restore under another is refused as before. */
            sl_strbuf_appendf(&st, "%s %s", SL__FINISHED,
                              op->ops->backend ? op->ops->backend(op) : "hashmap");
        } else {
            char *files = sl__op_files(j->store, id, t, i);
            op->chk_dir = files;
            sl__spare_take(j, &st);
            rc = op->ops->snapshot(op, &st, err);
            op->chk_dir = NULL;
            sl_free(files);
        }
        if (rc == 0) {
            char fmt[48];
            snprintf(fmt, sizeof fmt, "op-%%s-%d", i);
            sl__blob_add(blobs, 0, fmt, t->name, &st);
        }
        sl_strbuf_free(&st);
    }
    if (rc == 0) {
        sl_strbuf wm = SL_STRBUF_INIT;
        sl_strbuf_appendf(&wm, "%lld", (long long)t->watermark);
        sl__blob_add(blobs, 0, "watermark-%s", t->name, &wm);
    }
    if (rc == 0 && t->sink) {
        sl__pending *pd = sl_calloc(1, sizeof *pd);
        pd->epoch = id;
        if (t->sink->ops->watermark)
            t->sink->ops->watermark(t->sink, sl__held_watermark(t, t->nsteps, t->watermark));
        rc = t->sink->ops->pre_commit(t->sink, id, &pd->committable, err);
        if (rc == 0)
            rc = sl__failpoint(j, "pre-commit", err);
        if (rc == 0) {
            sl_strbuf copy = SL_STRBUF_INIT;
            sl_strbuf_append_n(&copy, sl_strbuf_cstr(&pd->committable), pd->committable.len);
            sl__blob_add(blobs, 2, "sink-%s", t->name, &copy);
            sl_list_push(t->pending, pd);
            pd = NULL;
            rc = t->sink->ops->begin(t->sink, id + 1, err); /* N+1 never waits for N */
        }
        if (pd)
            sl__pending_free(pd);
        if (rc == 0)
            rc = sl__failpoint(j, "begin", err);
        if (t->sink->ops->conflicts) /* as of pre_commit: the epoch's rows are written */
            t->conflicts = t->sink->ops->conflicts(t->sink);
    }
    for (int i = 0; rc == 0 && i < t->nsides; i++) { /* the side tables' epochs, the same way */
        sl__side *sd = &t->sides[i];
        sl__pending *pd = sl_calloc(1, sizeof *pd);
        pd->epoch = id;
        rc = sl__side_flush(sd, err);
        if (rc == 0)
            rc = sd->sink->ops->pre_commit(sd->sink, id, &pd->committable, err);
        if (rc == 0)
            rc = sl__failpoint(j, "pre-commit", err);
        if (rc == 0) {
            sl_strbuf copy = SL_STRBUF_INIT;
            sl_strbuf_append_n(&copy, sl_strbuf_cstr(&pd->committable), pd->committable.len);
            char fmt[48];
            snprintf(fmt, sizeof fmt, "side-%%s-%d%s", sd->step, sl__side_blob_suffix(sd));
            sl__blob_add(blobs, 2, fmt, t->name, &copy);
            sl_list_push(sd->pending, pd);
            pd = NULL;
            rc = sd->sink->ops->begin(sd->sink, id + 1, err);
        }
        if (pd)
            sl__pending_free(pd);
    }
    if (rc == 0) {
        /* The counters as of the barrier: what the job read, wrote and
        ** skipped up to this checkpoint, and the sink's conflicts, over its
        ** life (SHOW JOBS). */
        int64_t skipped = t->source && t->source->ops->skipped
                              ? t->source->ops->skipped(t->source)
                              : t->rows_skipped;
        sl_strbuf cn = SL_STRBUF_INIT;
        sl_strbuf_appendf(&cn, "%lld %lld %lld %lld", (long long)(t->base_in + t->rows_in),
                          (long long)(t->base_out + t->rows_out),
                          (long long)(t->base_skipped + skipped),
                          (long long)(t->base_conflicts + t->conflicts));
        sl__blob_add(blobs, 0, "counters-%s", t->name, &cn);
    }
    t->last_barrier = id;
    if (rc == 0 && t->next) {
        sl_msg m = {.kind = SL_MSG_BARRIER, .checkpoint_id = id, .savepoint = savepoint};
        if (sl__broadcast(t, &m) != 0)
            rc = sl__cancelled(err);
    }
    if (rc != 0) {
        sl_list_free(blobs, sl__blob_free);
        return -1;
    }
    sl__ack *a = sl_calloc(1, sizeof *a);
    a->id = id;
    a->blobs = blobs;
    pthread_mutex_lock(&j->mu);
    sl_list_push(j->acks, a);
    sl__coord_event(j);
    pthread_mutex_unlock(&j->mu);
    for (int i = 0; i < t->nbranches; i++) /* the same point of the same rows */
        if (sl__barrier(t->branches[i], id, savepoint, sl_list_new(), err) != 0)
            return -1;
    return 0;
}

/* Commit one sink's pre-committed epochs up to the decided checkpoint;
** *committed: the newest it committed. */
static int sl__commit_sink(sl__task *t, sl_sink *sink, sl_list *pending, int64_t decided,
                           int64_t *committed, sl_error *err)
{
    while (pending->n > 0) {
        sl__pending *pd = pending->items[0];
        if (pd->epoch > decided)
            break;
        if (sink->ops->commit(sink, sl_strbuf_cstr(&pd->committable), pd->committable.len,
                              err) != 0 ||
            sl__failpoint(t->job, "commit", err) != 0)
            return -1;
        *committed = pd->epoch;
        sl__pending_free(pd);
        memmove(&pending->items[0], &pending->items[1], (size_t)(pending->n - 1) * sizeof(void *));
        pending->n--;
    }
    return 0;
}

/* Commit the task's sinks' (its sink's, its side outputs') pre-committed
** epochs up to the decided checkpoint; t->committed: the newest epoch every
** one of them committed. */
static int sl__commit_decided(sl__task *t, int64_t decided, sl_error *err)
{
    for (int i = 0; i < t->nbranches; i++)
        if (sl__commit_decided(t->branches[i], decided, err) != 0)
            return -1;
    if (!t->sink && !t->nsides)
        return 0;
    int64_t main = INT64_MAX, before = t->committed;
    if (t->sink) {
        main = t->committed_main;
        if (sl__commit_sink(t, t->sink, t->pending, decided, &main, err) != 0)
            return -1;
        t->committed_main = main;
    }
    int64_t low = main;
    for (int i = 0; i < t->nsides; i++) {
        sl__side *sd = &t->sides[i];
        if (sl__commit_sink(t, sd->sink, sd->pending, decided, &sd->committed, err) != 0)
            return -1;
        if (sd->committed < low)
            low = sd->committed;
    }
    if (low != before) {
        pthread_mutex_lock(&t->job->mu);
        t->committed = low;
        sl__coord_event(t->job);
        pthread_mutex_unlock(&t->job->mu);
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Task loops
*/

/* The smallest watermark over the source's splits, leaving out those idle
** for the idle timeout; INT64_MIN while one has none. */
static int64_t sl__splits_watermark(const sl__task *t, int64_t now)
{
    int64_t idle_ns = t->job->spec->idle_timeout_ms * SL_NANOS_PER_MILLI, wm = INT64_MAX;
    bool any = false;
    for (int i = 0; i < t->nsplits; i++) {
        if (idle_ns > 0 && now - t->split_ns[i] >= idle_ns)
            continue;
        any = true;
        if (t->split_wm[i] < wm)
            wm = t->split_wm[i];
    }
    return any ? wm : INT64_MIN;
}

/* The smallest and largest of the n values v whose nulls are 0; false when
** every one is NULL. Run on every source chunk with a watermark: compiled
** for AVX2 and AVX-512 too (picked at load time), whose 64-bit compares
** vectorize it, where SSE2 has none. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static bool sl__i64_range(const int64_t *restrict v, const uint8_t *restrict nulls, int n,
                          int64_t *lo, int64_t *hi)
{
    int64_t top = INT64_MIN, low = INT64_MAX;
    uint8_t any = 0;
    for (int r = 0; r < n; r++)
        any |= nulls[r];
    if (!any) { /* the usual case: a plain min and max */
        for (int r = 0; r < n; r++) {
            top = v[r] > top ? v[r] : top;
            low = v[r] < low ? v[r] : low;
        }
        *lo = low;
        *hi = top;
        return n > 0;
    }
    int nnull = 0;
    for (int r = 0; r < n; r++) { /* branch-free, so that it vectorizes */
        int64_t m = -(int64_t)(nulls[r] == 0); /* all ones unless NULL */
        int64_t xt = (v[r] & m) | (INT64_MIN & ~m), xl = (v[r] & m) | (INT64_MAX & ~m);
        top = xt > top ? xt : top;
        low = xl < low ? xl : low;
        nnull += nulls[r] != 0;
    }
    *lo = low;
    *hi = top;
    return nnull < n;
}

/* The watermark after a source chunk: the largest WATERMARK value so far
** (of each split, then the smallest of those, when the source has splits). */
static int sl__chunk_watermark(sl__task *t, sl_error *err)
{
    if (!t->wm_prog)
        return 0;
    const int32_t *split_of = NULL;
    int n = t->source->ops->splits ? t->source->ops->splits(t->source, &split_of) : 0;
    int64_t now = t->source->ops->splits ? sl__now(t->job->spec) : 0;
    if (n > t->nsplits) { /* new splits: no watermark yet */
        t->split_wm = sl_realloc(t->split_wm, (size_t)n * sizeof(int64_t));
        t->split_ns = sl_realloc(t->split_ns, (size_t)n * sizeof(int64_t));
        for (int i = t->nsplits; i < n; i++) {
            t->split_wm[i] = INT64_MIN;
            t->split_ns[i] = now;
        }
        t->nsplits = n;
    }
    if (t->in->nrows == 0) /* an idle split may have expired */
        return t->nsplits > 0 && t->job->spec->idle_timeout_ms > 0
                   ? sl__advance_watermark(t, sl__splits_watermark(t, now), err)
                   : 0;
    if (t->wm_col >= 0 && !t->source->ops->splits) {
        /* The expression grows with its column: the chunk's largest value
        ** of the column gives the largest watermark, computed once. */
        const sl_vector *c = &t->in->cols[t->wm_col];
        int64_t top, low, wm, w0;
        if (!sl__i64_range(c->v.i64, c->nulls, t->in->nrows, &low, &top))
            return 0;
        /* no row's value overflows (else the expression says where) */
        if (!__builtin_add_overflow(top, t->wm_off, &wm) &&
            !__builtin_add_overflow(low, t->wm_off, &w0))
            return sl__advance_watermark(t, wm, err);
    }
    sl_chunk_reset(t->wm_out);
    if (sl_eval_into(t->wm_prog, t->in, &t->env, t->wm_out, 0, err) != 0)
        return -1;
    const sl_vector *v = &t->wm_out->cols[0];
    if (!t->source->ops->splits) {
        int64_t wm = t->watermark;
        for (int r = 0; r < t->in->nrows; r++)
            if (!v->nulls[r] && v->v.i64[r] > wm)
                wm = v->v.i64[r];
        return sl__advance_watermark(t, wm, err);
    }
    for (int r = 0; r < t->in->nrows; r++) {
        int sp = split_of[r];
        SL_ALWAYS(sp >= 0 && sp < t->nsplits);
        t->split_ns[sp] = now;
        if (!v->nulls[r] && v->v.i64[r] > t->split_wm[sp])
            t->split_wm[sp] = v->v.i64[r];
    }
    int stale = 0; /* for the stall check: the split without rows the longest */
    for (int i = 1; i < t->nsplits; i++)
        if (t->split_ns[i] < t->split_ns[stale])
            stale = i;
    atomic_store(&t->pub_stale_ns, t->split_ns[stale]);
    atomic_store(&t->pub_stale_split, t->nsplits > 1 ? stale : -1);
    return sl__advance_watermark(t, sl__splits_watermark(t, now), err);
}

/* Tell the source which of its positions was decided (the newest one at
** or before decided), for monitoring. */
static void sl__positions_decided(sl__task *t, int64_t decided)
{
    sl__pending *newest = NULL;
    int keep = 0;
    for (int i = 0; i < t->positions->n; i++) {
        sl__pending *pd = t->positions->items[i];
        if (pd->epoch <= decided) {
            if (newest)
                sl__pending_free(newest);
            newest = pd;
        } else {
            t->positions->items[keep++] = pd;
        }
    }
    t->positions->n = keep;
    if (newest) {
        t->source->ops->decided(t->source, sl_strbuf_cstr(&newest->committable),
                                newest->committable.len);
        sl__pending_free(newest);
    }
}

static int sl__input_loop(sl__task *t, sl_error *err)
{
    sl__job *j = t->job;
    t->last_rows_ns = sl__now(j->spec);
    atomic_store(&t->pub_rows_ns, t->last_rows_ns);
    atomic_store(&t->pub_wm, t->watermark);
    atomic_store(&t->pub_stale_split, -1);
    for (int i = -1; i < t->nbranches; i++) { /* restored: tell downstream at once */
        sl__task *b = sl__branch(t, i);
        if (b->next && b->watermark > INT64_MIN) {
            sl_msg m = {.kind = SL_MSG_WATERMARK,
                        .watermark = sl__held_watermark(b, b->nsteps, b->watermark)};
            if (sl__broadcast(b, &m) != 0)
                return 0;
        }
    }
    for (;;) {
        pthread_mutex_lock(&j->mu);
        if (t->idle || (t->source_ended && t->ended)) { /* nothing to read: wait for a command */
            bool pending = sl__decided_pending(t, j->decided);
            if (!j->shutdown && !j->failed && j->trigger <= t->last_barrier && !pending) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += SL__WAIT_NS;
                if (ts.tv_nsec >= 1000000000L) {
                    ts.tv_sec++;
                    ts.tv_nsec -= 1000000000L;
                }
                pthread_cond_timedwait(&j->task_cv, &j->mu, &ts);
            }
        }
        bool stop = j->shutdown || j->failed;
        int64_t trigger = j->trigger, decided = j->decided;
        bool savepoint = j->trigger_savepoint, final = j->trigger_final;
        pthread_mutex_unlock(&j->mu);
        if (stop)
            return 0;
        if (sl__commit_decided(t, decided, err) != 0)
            return -1;
        if (t->positions->n > 0)
            sl__positions_decided(t, decided);
        if (trigger > t->last_barrier) {
            sl_list *blobs = sl_list_new();
            sl_strbuf pos = SL_STRBUF_INIT;
            int rc = t->source->ops->position(t->source, &pos, err);
            if (rc == 0)
                rc = sl__failpoint(j, "position", err);
            if (rc == 0 && t->source->ops->decided) {
                sl__pending *pd = sl_calloc(1, sizeof *pd);
                pd->epoch = trigger;
                sl_strbuf_append_n(&pd->committable, sl_strbuf_cstr(&pos), pos.len);
                sl_list_push(t->positions, pd);
            }
            if (rc == 0)
                sl__blob_add(blobs, 1, "source-%s", t->name, &pos);
            sl_strbuf_free(&pos);
            if (rc != 0) {
                sl_list_free(blobs, sl__blob_free);
                return -1;
            }
            if (sl__barrier(t, trigger, savepoint, blobs, err) != 0)
                return -1;
            if (final)
                t->idle = true;
            continue;
        }
        if (t->idle || t->source_ended)
            continue;
        sl_chunk_reset(t->in);
        int rc = t->source->ops->poll(t->source, t->in, err);
        if (rc < 0)
            return -1;
        t->rows_in += t->in->nrows;
        if (t->source->ops->skipped)
            t->rows_skipped = t->source->ops->skipped(t->source);
        if (t->in->nrows == 0 && j->spec->idle_timeout_ms > 0 && !t->declared_idle &&
            sl__now(j->spec) - t->last_rows_ns >= j->spec->idle_timeout_ms * SL_NANOS_PER_MILLI &&
            sl__send_idle(t, err) != 0)
            return -1;
        if (t->in->nrows > 0) {
            t->env.now_nanos = t->last_rows_ns = sl__now(j->spec);
            atomic_store(&t->pub_rows_ns, t->last_rows_ns);
            sl__active(t);
            if (sl__push(t, 0, t->in, err) != 0 || /* and into its branches (sl__fork) */
                sl__chunk_watermark(t, err) != 0 || sl__chunk_done(t, err) != 0)
                return -1;
        } else if (t->nsplits > 0 && sl__chunk_watermark(t, err) != 0) {
            return -1;
        }
        /* Processing time: rows polled from now on get PROCTIME() values in
        ** this millisecond or later, so everything before it is final. */
        if (t->pipe->inputs[t->input].proctime) {
            int64_t now = sl__now(j->spec);
            int64_t ms = now / SL_NANOS_PER_MILLI - (now % SL_NANOS_PER_MILLI < 0);
            if (sl__advance_watermark(t, ms * SL_NANOS_PER_MILLI - 1, err) != 0)
                return -1;
        }
        if (rc == SL_SOURCE_END) {
            t->source_ended = true;
            if (sl__end(t, err) != 0)
                return -1;
            sl__count_late_all(t);
        }
    }
}

/* The smallest watermark over the lanes: an ended lane counts as
** +infinity, an idle one not at all. When every lane that has not ended is
** idle, the largest of theirs (as Flink's watermark valve does): nothing
** can arrive below it until a lane is active again. */
static int64_t sl__lanes_watermark(const sl__task *t)
{
    int64_t wm = INT64_MAX, idle_max = INT64_MIN;
    bool idle = false, active = false;
    for (int l = 0; l < t->nlanes; l++) {
        if (t->lane_ended[l])
            continue;
        if (t->lane_idle[l]) {
            idle = true;
            if (t->lane_wm[l] > idle_max)
                idle_max = t->lane_wm[l];
            continue;
        }
        active = true;
        if (t->lane_wm[l] < wm)
            wm = t->lane_wm[l];
    }
    if (!active && idle)
        return idle_max;
    return wm;
}


static int sl__stage_message(sl__task *t, int lane, sl_msg *m, sl_error *err)
{
    if (m->kind == SL_MSG_CHUNK || m->kind == SL_MSG_WATERMARK) { /* active again */
        t->lane_idle[lane] = 0;
        sl__active(t);
    }
    switch (m->kind) {
    case SL_MSG_IDLE: {
        t->lane_idle[lane] = 1;
        bool all = true; /* every lane that has not ended is idle: so is this task */
        for (int l = 0; l < t->nlanes; l++)
            all = all && (t->lane_ended[l] || t->lane_idle[l]);
        if (sl__advance_watermark(t, sl__lanes_watermark(t), err) != 0)
            return -1;
        return all ? sl__send_idle(t, err) : 0;
    }
    case SL_MSG_CHUNK: {
        t->env.now_nanos = sl__now(t->job->spec);
        int rc = sl__push(t, 0, m->chunk, err);
        sl_chunk_free(m->chunk);
        if (rc == 0)
            rc = sl__chunk_done(t, err);
        else
            sl__count_late_all(t);
        return rc;
    }
    case SL_MSG_WATERMARK:
        if (m->watermark > t->lane_wm[lane])
            t->lane_wm[lane] = m->watermark;
        return sl__advance_watermark(t, sl__lanes_watermark(t), err);
    case SL_MSG_END: {
        t->lane_ended[lane] = 1;
        bool all = true;
        for (int l = 0; l < t->nlanes; l++)
            all = all && t->lane_ended[l];
        if (all) {
            int rc = sl__end(t, err);
            sl__count_late_all(t);
            return rc;
        }
        return sl__advance_watermark(t, sl__lanes_watermark(t), err);
    }
    case SL_MSG_BARRIER:
        if (!t->lane_blocked[lane]) {
            t->lane_blocked[lane] = 1;
            t->nblocked++;
        }
        if (t->nblocked < t->nlanes)
            return 0;
        memset(t->lane_blocked, 0, (size_t)t->nlanes);
        t->nblocked = 0;
        return sl__barrier(t, m->checkpoint_id, m->savepoint, sl_list_new(), err);
    }
    return 0;
}

static int sl__stage_loop(sl__task *t, sl_error *err)
{
    sl__job *j = t->job;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        bool stop = j->shutdown || j->failed;
        int64_t decided = j->decided;
        pthread_mutex_unlock(&j->mu);
        if (stop)
            return 0;
        if (sl__commit_decided(t, decided, err) != 0)
            return -1;
        sl_msg m;
        int lane = 0;
        int rc = sl_channel_recv(t->chan, t->lane_blocked, &lane, &m, SL__WAIT_NS);
        if (rc < 0)
            return 0; /* closed: the job is being torn down */
        if (rc == 1)
            continue;
        if (sl__stage_message(t, lane, &m, err) != 0)
            return -1;
    }
}

static void *sl__task_main(void *arg)
{
    sl__task *t = arg;
    sl_error err = SL_ERROR_INIT;
    int rc = t->input >= 0 ? sl__input_loop(t, &err) : sl__stage_loop(t, &err);
    if (rc != 0)
        sl__fail(t->job, &err);
    sl_error_reset(&err);
    return NULL;
}

/* ------------------------------------------------------------------------
** Setting up and tearing down the tasks
*/

/* The columns entering step k of t's chain (k = t->nsteps: leaving it). */
static void sl__step_cols(const sl__task *t, int k, int *ncols, const sl_type **types)
{
    *ncols = t->in_ncols;
    *types = t->in_types;
    for (int i = 0; i < k; i++) {
        const sl_step_spec *ss = &t->specs[i];
        if (ss->calc && ss->calc->project) {
            *ncols = ss->calc->nexprs;
            *types = ss->calc->out_types;
        } else if (!ss->calc) {
            *ncols = ss->out_ncols;
            *types = ss->out_types;
        }
    }
}

static int sl__open_chain(sl__task *t, sl_error *err)
{
    t->steps = sl_calloc((size_t)(t->nsteps ? t->nsteps : 1), sizeof(sl__step));
    for (int i = 0; i < t->nsteps; i++) {
        const sl_step_spec *ss = &t->specs[i];
        int ncols;
        const sl_type *types;
        sl__step_cols(t, i, &ncols, &types);
        if (ss->calc) {
            if (sl__calc_open(&t->steps[i].calc, ss->calc, ncols, types, err) != 0)
                return -1;
        } else {
            if (ss->create(ss->arg, &t->steps[i].op, err) != 0)
                return -1;
            t->steps[i].op->cancel = &t->job->cancel;
            if (t->job->spec->data_dir) { /* state kept on disk ('rocksdb') goes here */
                char *jd = sl_chk_job_dir(t->job->spec->data_dir, t->job->spec->name);
                t->steps[i].state_dir = sl_sprintf("%s/state/%s-%d", jd, t->name, i);
                t->steps[i].op->state_dir = t->steps[i].state_dir;
                sl_free(jd);
            }
        }
    }
    sl__step_cols(t, t->nsteps, &t->out_ncols, &t->out_types);
    return 0;
}

static void sl__close_task(sl__task *t)
{
    for (int i = 0; t->steps && i < t->nsteps; i++) {
        if (t->steps[i].op)
            t->steps[i].op->ops->free(t->steps[i].op);
        else
            sl__calc_close(&t->steps[i].calc);
        sl_free(t->steps[i].state_dir);
    }
    sl_free(t->steps);
    sl_eval_free(t->wm_prog);
    sl_chunk_free(t->wm_out);
    sl_chunk_free(t->in);
    if (t->sink)
        t->sink->ops->free(t->sink); /* an open, undecided epoch is discarded by the next recover() */
    for (int i = 0; i < t->nsides; i++) {
        if (t->sides[i].sink)
            t->sides[i].sink->ops->free(t->sides[i].sink); /* the same */
        sl_chunk_free(t->sides[i].buf);
        sl_list_free(t->sides[i].pending, sl__pending_free);
    }
    sl_free(t->sides);
    sl_length_check_free(t->fit);
    if (t->source)
        t->source->ops->free(t->source);
    for (int d = 0; t->buf && d < t->ndest; d++)
        sl_chunk_free(t->buf[d]);
    sl_free(t->buf);
    sl_free(t->dest);
    sl_free(t->hashes);
    sl_free(t->sel);
    sl_channel_free(t->chan);
    sl_free(t->lane_wm);
    sl_free(t->lane_ended);
    sl_free(t->lane_blocked);
    sl_free(t->lane_idle);
    sl_list_free(t->pending, sl__pending_free);
    sl_list_free(t->positions, sl__pending_free);
    sl_free(t->branches);
    sl_free(t->split_wm);
    sl_free(t->split_ns);
}

const char *sl_step_name(const sl_step_spec *step)
{
    return step->calc ? "Calc" : step->name ? step->name : "Operator";
}

/* Pipeline k of a job: the spec itself, then its extra pipelines. */
static const sl_job_spec *sl__pipeline(const sl_job_spec *spec, int k)
{
    return k == 0 ? spec : &spec->extra[k - 1];
}

/* The graph's shape, stored with each checkpoint: state can only be
** restored into the same operators at the same parallelism. */
static void sl__layout(const sl_job_spec *job, sl_strbuf *sb)
{
    sl_strbuf_appendf(sb, "sluice-job-layout 1\n");
    for (int k = 0; k <= job->nextra; k++) {
        const sl_job_spec *spec = sl__pipeline(job, k);
        const char *pre = k ? "pipeline " : "";
        if (k)
            sl_strbuf_appendf(sb, "pipeline %d\n", k);
        for (int i = 0; i < spec->ninputs; i++) {
            const sl_input_spec *in = &spec->inputs[i];
            sl_strbuf_appendf(sb, "%sinput %d parallelism %d", pre, i, spec->parallelism);
            if (in->shares) /* its rows were input shares - 1's, at that one's positions */
                sl_strbuf_appendf(sb, " (source of input %d)", in->shares - 1);
            sl_strbuf_appendf(sb, ":");
            for (int x = 0; x < in->nsteps; x++)
                sl_strbuf_appendf(sb, " %s", sl_step_name(&in->steps[x]));
            if (in->to)
                sl_strbuf_appendf(sb, " -> stage %d", in->to - 1);
            sl_strbuf_appendf(sb, "\n");
        }
        for (int g = 0; g < spec->nstages; g++) {
            const sl_stage_spec *st = &spec->stages[g];
            if (st->fork) /* its rows are those entering step fork_at of its owner */
                sl_strbuf_appendf(sb, "%sstage %d parallelism %d fork(stage %d, step %d", pre, g,
                                  st->parallelism, st->fork - 1, st->fork_at);
            else
                sl_strbuf_appendf(sb, "%sstage %d parallelism %d %s(", pre, g, st->parallelism,
                                  st->exchange == SL_EXCHANGE_HASH ? "hash" : "single");
            for (int x = 0; x < st->nkeys; x++)
                sl_strbuf_appendf(sb, "%s%d", x ? "," : "", st->keys[x]);
            sl_strbuf_appendf(sb, "):");
            for (int x = 0; x < st->nsteps; x++)
                sl_strbuf_appendf(sb, " %s", sl_step_name(&st->steps[x]));
            if (st->to)
                sl_strbuf_appendf(sb, " -> stage %d", st->to - 1);
            sl_strbuf_appendf(sb, "\n");
        }
    }
}

/* Layout text s (n bytes) without the Calc steps that end a chain (of an
** input or a stage: before " -> stage" or the line's end). They keep no
** state and no operator's step index follows them, so a plan that merged
** them into the calc before (physical.c: the sink's mapping) restores the
** checkpoints of one that did not. */
static void sl__layout_norm(const char *s, size_t n, sl_strbuf *out)
{
    static const char calc[] = " Calc", arrow[] = " -> stage";
    size_t i = 0;
    while (i < n) {
        size_t k = i, cl = sizeof calc - 1;
        while (k + cl <= n && memcmp(s + k, calc, cl) == 0 && (k + cl == n || s[k + cl] == ' ' ||
                                                                 s[k + cl] == '\n'))
            k += cl; /* a run of " Calc" tokens */
        if (k > i && (k == n || s[k] == '\n' ||
                      (n - k >= sizeof arrow - 1 && memcmp(s + k, arrow, sizeof arrow - 1) == 0))) {
            i = k; /* it ends the chain: dropped */
            continue;
        }
        size_t e = k > i ? k : i + 1;
        sl_strbuf_append_n(out, s + i, e - i);
        i = e;
    }
}

static bool sl__layout_same(const char *stored, size_t len, const sl_strbuf *want)
{
    sl_strbuf a = SL_STRBUF_INIT, b = SL_STRBUF_INIT;
    sl__layout_norm(stored, len, &a);
    sl__layout_norm(want->buf ? want->buf : "", want->len, &b);
    bool same = a.len == b.len && (a.len == 0 || memcmp(a.buf, b.buf, a.len) == 0);
    sl_strbuf_free(&a);
    sl_strbuf_free(&b);
    return same;
}

/* Tasks of one pipeline. */
static int sl__pipeline_tasks(const sl_job_spec *spec)
{
    int p = spec->parallelism > 0 ? spec->parallelism : 1;
    int n = spec->ninputs * p;
    for (int g = 0; g < spec->nstages; g++)
        n += spec->stages[g].parallelism;
    return n;
}

/* Create the tasks of pipeline k (from tasks[0]), their channels, sources,
** operators and sinks. */
static int sl__build_pipeline(sl__job *j, int k, sl__task *tasks, sl_error *err)
{
    const sl_job_spec *spec = sl__pipeline(j->spec, k);
    int p = spec->parallelism > 0 ? spec->parallelism : 1;
    int n = sl__pipeline_tasks(spec);
    char pre[16] = "";
    if (k)
        snprintf(pre, sizeof pre, "p%d.", k);
    int x = 0, nin = spec->ninputs * p;
    for (int i = 0; i < spec->ninputs; i++)
        for (int s = 0; s < p; s++) {
            sl__task *t = &tasks[x++];
            t->input = i;
            t->stage = -1;
            t->subtask = s;
            snprintf(t->name, sizeof t->name, "%sin%d.%d", pre, i, s);
        }
    for (int g = 0; g < spec->nstages; g++)
        for (int s = 0; s < spec->stages[g].parallelism; s++) {
            sl__task *t = &tasks[x++];
            t->input = -1;
            t->stage = g;
            t->subtask = s;
            snprintf(t->name, sizeof t->name, "%sst%d.%d", pre, g, s);
        }
    /* The layers: inputs 0..ninputs-1, then stages. Each sends its rows to
    ** one later stage (`to`, by default the next); the last stage (the
    ** inputs when there is none) has the sink. */
    int nlayers = spec->ninputs + spec->nstages;
    int *lfirst = sl_calloc((size_t)nlayers + 1, sizeof(int)); /* first task of each */
    int *lcount = sl_calloc((size_t)nlayers + 1, sizeof(int)); /* its tasks */
    int *lto = sl_calloc((size_t)nlayers + 1, sizeof(int));    /* stage it feeds, -1 = sink */
    for (int l = 0, at = 0; l < nlayers; l++) {
        bool in = l < spec->ninputs;
        int g = in ? -1 : l - spec->ninputs;
        lfirst[l] = at;
        lcount[l] = in ? p : spec->stages[g].parallelism;
        at += lcount[l];
        int to = in ? spec->inputs[l].to : spec->stages[g].to;
        lto[l] = to > 0 ? to - 1 : g + 1 < spec->nstages ? g + 1 : -1;
        if (!spec->nstages)
            lto[l] = -1;
    }
    int rc = 0;
    for (int l = 0; l < nlayers && rc == 0; l++) {
        int g = l - spec->ninputs;
        if (lto[l] >= spec->nstages || (lto[l] >= 0 && lto[l] <= g) ||
            (lto[l] < 0 && spec->nstages && g != spec->nstages - 1))
            rc = sl_error_set(err, SL_ERR_INTERNAL, -1, "a job's layer %d feeds no later stage", l);
    }
    for (int g = 0; g < spec->nstages && rc == 0; g++) {
        const sl_stage_spec *st = &spec->stages[g];
        int np = st->parallelism, upstream = 0;
        for (int l = 0; l < nlayers; l++)
            if (lto[l] == g)
                upstream += lcount[l];
        if (st->fork) { /* a branch: its rows come from its owner's tasks */
            const sl_stage_spec *o = &spec->stages[st->fork - 1];
            if (upstream || st->fork - 1 >= g || o->fork || o->parallelism != np ||
                st->fork_at < 0 || st->fork_at > o->nsteps || lto[spec->ninputs + g] < 0 ||
                lto[spec->ninputs + st->fork - 1] < 0 || spec->limit >= 0)
                rc = sl_error_set(err, SL_ERR_INTERNAL, -1,
                                  "stage %d of a job is no branch of stage %d", g, st->fork - 1);
            continue;
        }
        if (!upstream) {
            rc = sl_error_set(err, SL_ERR_INTERNAL, -1, "stage %d of a job has no input", g);
            break;
        }
        int first = lfirst[spec->ninputs + g];
        for (int s = 0; s < np; s++) {
            sl__task *t = &tasks[first + s];
            t->nlanes = upstream;
            t->chan = sl_channel_new(upstream, SL__LANE_CAP);
            t->lane_wm = sl_calloc((size_t)upstream, sizeof(int64_t));
            t->lane_ended = sl_calloc((size_t)upstream, 1);
            t->lane_blocked = sl_calloc((size_t)upstream, 1);
            t->lane_idle = sl_calloc((size_t)upstream, 1);
            for (int l = 0; l < upstream; l++)
                t->lane_wm[l] = INT64_MIN;
            t->from = -1;
        }
        /* Wire the tasks of the layers feeding this stage to it, one lane each. */
        int lane = 0;
        for (int l = 0; l < nlayers; l++) {
            if (lto[l] != g)
                continue;
            if (tasks[first].from < 0)
                for (int s = 0; s < np; s++)
                    tasks[first + s].from = lfirst[l];
            for (int u = 0; u < lcount[l]; u++) {
                sl__task *t = &tasks[lfirst[l] + u];
                t->next = &spec->stages[g];
                t->ndest = np;
                t->dest = sl_calloc((size_t)np, sizeof(sl_channel *));
                for (int s = 0; s < np; s++)
                    t->dest[s] = tasks[first + s].chan;
                t->lane = lane++;
                t->buf = sl_calloc((size_t)np, sizeof(sl_chunk *));
                t->hashes = sl_calloc(SL_CHUNK_ROWS, sizeof(uint64_t));
                t->sel = sl_calloc(SL_CHUNK_ROWS, sizeof(int));
                t->sel_cap = SL_CHUNK_ROWS;
            }
        }
    }
    /* The sink's tasks: the last stage's, or every input's. */
    sl__task *last_first = spec->nstages ? &tasks[lfirst[nlayers - 1]] : tasks;
    int last_n = spec->nstages ? lcount[nlayers - 1] : nin;
    sl_free(lfirst);
    sl_free(lcount);
    sl_free(lto);
    if (rc != 0)
        return -1;
    if (spec->limit >= 0 && last_n > 1)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "a LIMIT needs a single sink task");
    /* Chains, sources, sinks. */
    for (int i = 0; i < n; i++) {
        sl__task *t = &tasks[i];
        t->job = j;
        t->pipe = spec;
        t->env.tz = j->spec->tz; /* the zone the job was planned with */
        t->watermark = INT64_MIN;
        t->pending = sl_list_new();
        t->positions = sl_list_new();
        t->committed = t->committed_main = -1;
        if (t->input >= 0) {
            const sl_input_spec *in = &spec->inputs[t->input];
            t->sargs = in->source_args;
            t->sargs.subtask = t->subtask;
            t->sargs.parallelism = p;
            t->sargs.created_nanos = j->created;
            t->nsteps = in->nsteps;
            t->specs = in->steps;
            t->in_ncols = in->source_args.ncols;
            t->in_types = in->source_args.types;
            if (in->shares > 0) { /* a branch of an earlier input's task */
                if (in->shares > t->input || spec->inputs[in->shares - 1].shares ||
                    spec->inputs[in->shares - 1].source_args.ncols != t->in_ncols ||
                    !spec->nstages || spec->limit >= 0)
                    return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                        "input %d of a job shares no source of its own", t->input);
                sl__task *o = &tasks[(in->shares - 1) * p + t->subtask];
                t->owner = o;
                o->branches = sl_realloc(o->branches, (size_t)(o->nbranches + 1) * sizeof *o->branches);
                o->branches[o->nbranches++] = t;
                if (sl__open_chain(t, err) != 0)
                    return -1;
                continue;
            }
            if (in->create_source(&t->sargs, &t->source, err) != 0)
                return -1;
            t->in = sl_chunk_new(t->in_ncols, t->in_types, SL_CHUNK_ROWS);
            if (in->wm_expr) {
                if (!(t->wm_prog = sl_eval_compile(in->wm_expr, t->in_ncols, t->in_types, err)))
                    return -1;
                int col;
                int64_t off;
                t->wm_col = -1;
                sl_type_id wid = in->wm_expr->type.id;
                if (sl_bexpr_col_offset(in->wm_expr, &col, &off) && col < t->in_ncols &&
                    (wid == SL_TYPE_TIMESTAMP || wid == SL_TYPE_TIMESTAMP_LTZ) &&
                    t->in_types[col].id == wid) {
                    t->wm_col = col;
                    t->wm_off = off;
                }
                sl_type wt = in->wm_expr->type;
                t->wm_out = sl_chunk_new(1, &wt, SL_CHUNK_ROWS);
            }
        } else if (spec->stages[t->stage].fork) { /* a branch of an earlier stage's task */
            const sl_stage_spec *st = &spec->stages[t->stage];
            int first = nin;
            for (int q = 0; q < st->fork - 1; q++)
                first += spec->stages[q].parallelism;
            sl__task *o = &tasks[first + t->subtask];
            t->owner = o;
            t->fork_at = st->fork_at;
            o->branches = sl_realloc(o->branches, (size_t)(o->nbranches + 1) * sizeof *o->branches);
            o->branches[o->nbranches++] = t;
            sl__step_cols(o, st->fork_at, &t->in_ncols, &t->in_types); /* o's chain is open */
            t->nsteps = st->nsteps;
            t->specs = st->steps;
        } else {
            const sl_stage_spec *st = &spec->stages[t->stage];
            /* The columns arriving: what the chains of a layer feeding it
            ** produce (an earlier one: its chains are open). */
            t->in_ncols = tasks[t->from].out_ncols;
            t->in_types = tasks[t->from].out_types;
            for (int u = 0; u < i; u++)
                if (tasks[u].next == st && tasks[u].out_ncols != t->in_ncols)
                    return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                        "the inputs of stage %d differ in columns", t->stage);
            t->nsteps = st->nsteps;
            t->specs = st->steps;
        }
        if (sl__open_chain(t, err) != 0)
            return -1;
        if (t >= last_first && t < last_first + last_n) {
            t->kargs = spec->sink_args;
            t->kargs.subtask = (int)(t - last_first);
            t->kargs.parallelism = last_n;
            int slot = t->kargs.participant_slot;
            if (t->kargs.participates && (slot < 0 || slot >= j->nparts))
                return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                    "sink \"%s\" needs a participant the job does not have",
                                    t->kargs.table ? t->kargs.table : "?");
            t->kargs.participant = t->kargs.participates ? j->parts[slot] : NULL;
            if (spec->create_sink(&t->kargs, &t->sink, err) != 0)
                return -1;
            t->fit = sl_length_check_new(&spec->sink_length, spec->sink_args.names,
                                         spec->sink_args.types);
            j->nsinks++;
        }
    }
    return 0;
}

/* Whether side outputs a and b write the same table (one group). */
static bool sl__same_side_table(const sl_side_spec *a, const sl_side_spec *b)
{
    return a == b || (a->create_sink == b->create_sink && a->sink_args.table &&
                      b->sink_args.table && strcmp(a->sink_args.table, b->sink_args.table) == 0);
}

/* The side outputs' sink instances: one per task running a step with a
** side output, per side output of the step. The instances writing one table (every task of the step,
** and of other steps writing the same table) are numbered 0 .. n-1 of n,
** as the instances of a sink are. */
static int sl__build_sides(sl__job *j, sl_error *err)
{
    const sl_side_spec **groups = NULL; /* the first spec of each table */
    int *count = NULL, ngroups = 0;
    for (int pass = 0; pass < 2; pass++) {
        int *next = pass ? sl_calloc((size_t)ngroups + 1, sizeof(int)) : NULL;
        for (int i = 0; i < j->ntasks; i++) {
            sl__task *t = &j->tasks[i];
            for (int q = 0; q < t->nsteps * SL_SIDE_KINDS; q++) {
                int k = q / SL_SIDE_KINDS, kind = q % SL_SIDE_KINDS;
                const sl_side_spec *sp = t->specs[k].side[kind];
                if (!sp || !t->steps[k].op)
                    continue;
                int g = 0;
                while (g < ngroups && !sl__same_side_table(groups[g], sp))
                    g++;
                if (pass == 0) {
                    if (g == ngroups) {
                        groups = sl_realloc(groups, (size_t)(ngroups + 1) * sizeof *groups);
                        count = sl_realloc(count, (size_t)(ngroups + 1) * sizeof *count);
                        groups[ngroups] = sp;
                        count[ngroups++] = 0;
                    }
                    count[g]++;
                    t->nsides++;
                    continue;
                }
                if (!t->sides)
                    t->sides = sl_calloc((size_t)t->nsides, sizeof(sl__side));
                sl__side *sd = &t->sides[next[ngroups]++]; /* next[ngroups]: the task's */
                sd->t = t;
                sd->step = k;
                sd->kind = kind;
                sd->spec = sp;
                sd->group = g;
                sd->committed = -1;
                sd->pending = sl_list_new();
                sd->kargs = sp->sink_args;
                sd->kargs.subtask = next[g]++;
                sd->kargs.parallelism = count[g];
                sd->kargs.job = j->spec->name;
                int slot = sd->kargs.participant_slot;
                if (sd->kargs.participates && (slot < 0 || slot >= j->nparts)) {
                    sl_free(next);
                    sl_free(groups);
                    sl_free(count);
                    return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                        "side table \"%s\" needs a participant the job does "
                                        "not have",
                                        sd->kargs.table ? sd->kargs.table : "?");
                }
                sd->kargs.participant = sd->kargs.participates ? j->parts[slot] : NULL;
                sd->buf = sl_chunk_new(sp->ncols, sp->sink_args.types, SL_CHUNK_ROWS);
                if (sp->create_sink(&sd->kargs, &sd->sink, err) != 0) {
                    sl_free(next);
                    sl_free(groups);
                    sl_free(count);
                    return -1;
                }
                t->steps[k].op->side[kind] = (sl_emit){sl__side_emit, sd};
            }
            if (pass)
                next[ngroups] = 0;
        }
        if (pass == 0 && ngroups > 0) /* room for the task's own counter */
            count = sl_realloc(count, (size_t)(ngroups + 1) * sizeof *count);
        sl_free(next);
    }
    sl_free(groups);
    sl_free(count);
    return 0;
}

/* Create every pipeline's tasks. */
static int sl__build(sl__job *j, sl_error *err)
{
    int n = 0;
    for (int k = 0; k <= j->spec->nextra; k++)
        n += sl__pipeline_tasks(sl__pipeline(j->spec, k));
    j->tasks = sl_calloc((size_t)n + 1, sizeof(sl__task));
    j->ntasks = n;
    j->created = sl__now(j->spec); /* one instant for every pipeline's sources */
    int at = 0;
    for (int k = 0; k <= j->spec->nextra; k++) {
        const sl_job_spec *pipe = sl__pipeline(j->spec, k);
        if (pipe->ninputs < 1)
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "a job needs a source");
        if (sl__build_pipeline(j, k, &j->tasks[at], err) != 0)
            return -1;
        at += sl__pipeline_tasks(pipe);
    }
    j->final_inputs = true;
    for (int i = 0; i < j->ntasks; i++)
        if (j->tasks[i].source && !j->tasks[i].source->ops->end_is_final)
            j->final_inputs = false;
    return sl__build_sides(j, err);
}

/* ------------------------------------------------------------------------
** The coordinator
*/

/* The participant decided checkpoint held, newer than own, this data
** directory's newest: its state must be here (it was durable before the
** decision). 0, or -1 with XX001. */
static int sl__decided_here(sl__job *j, int64_t held, int64_t own, sl_error *err)
{
    const sl_job_spec *spec = j->spec;
    char *layout = NULL;
    size_t len = 0;
    sl_error lerr = SL_ERROR_INIT;
    int found = sl_chk_read_state(j->store, held, SL__LAYOUT, &layout, &len, &lerr);
    sl_free(layout);
    sl_error_reset(&lerr);
    if (found == 0)
        return 0;
    char *path = sl_chk_path(j->store, held);
    sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                 "checkpoint %lld of job \"%s\" is decided, but its state is not in %s",
                 (long long)held, spec->name, path);
    sl_error_detail(err, "The job's transactions say checkpoint %lld committed; this data "
                         "directory's newest checkpoint is %lld. Resuming from an older "
                         "one would write its output twice.",
                    (long long)held, (long long)own);
    sl_error_hint(err, "Run the job with the data directory it ran with, or give it a "
                       "new 'pipeline.name' (and a new transactional id prefix) to start "
                       "afresh.");
    sl_free(path);
    return -1;
}

/* Starting from savepoint n (restore_path) while the participant's
** transactions decided checkpoint held > n: the epochs n+1..held are
** committed in its sinks (the job went on after the savepoint, or another
** job with the same transactional id prefix did), and would be written
** again. 55000. */
static int sl__stale_savepoint(const sl__job *j, int64_t n, int64_t held, sl_error *err)
{
    const sl_job_spec *spec = j->spec;
    sl_error_set(err, "55000", -1,
                 "savepoint %s is older than checkpoint %lld, which the transactions of job "
                 "\"%s\" committed",
                 spec->restore_path, (long long)held,
                 spec->origin ? spec->origin : spec->name);
    sl_error_detail(err, "Its sinks hold the epochs up to %lld; starting from checkpoint %lld "
                         "would write epochs %lld to %lld a second time.",
                    (long long)held, (long long)n, (long long)n + 1, (long long)held);
    sl_error_hint(err, "RESET 'execution.savepoint.path' to resume from the newest checkpoint, "
                       "or fork into a table with its own transactional id prefix.");
    return -1;
}

/* Resume from the newest decided checkpoint (or the restore path), or start fresh. */
static int sl__restore(sl__job *j, sl_error *err)
{
    const sl_job_spec *spec = j->spec;
    int64_t own = -1, d = -1, held = -1;
    if (j->store && sl_chk_latest(j->store, &own, err) != 0)
        return -1;
    /* Another instance that went on from a copy of this data directory has
    ** decided checkpoints this one lacks: refuse before fencing it (a
    ** zombie whose transaction timed out is restarted, and must not take
    ** the job over). The peek is best effort; recover's read is the final one. */
    for (int i = 0; i < j->nparts && j->store && !spec->restore_path; i++) {
        sl_participant *p = j->parts[i];
        int64_t seen = -1;
        sl_error perr = SL_ERROR_INIT;
        int rc = p->ops->peek ? p->ops->peek(p, &seen, &perr) : -1;
        sl_error_reset(&perr);
        if (rc == 0 && seen > own && sl__decided_here(j, seen, own, err) != 0)
            return -1;
    }
    /* From a savepoint: no participant may have decided anything after it
    ** (a savepoint is a branch point, DESIGN.md section 10). Peeked at
    ** before fencing anyone, checked again once the decision is final. */
    int64_t sp = -1;
    if (spec->restore_path && j->nparts > 0) {
        sl_chk_store *p = NULL;
        if (sl_chk_open_path(spec->restore_path, spec->storage_opts, &p, &sp, err) != 0)
            return -1;
        sl_chk_close(p);
        for (int i = 0; i < j->nparts; i++) {
            int64_t seen = -1;
            sl_error perr = SL_ERROR_INIT;
            int rc = j->parts[i]->ops->peek ? j->parts[i]->ops->peek(j->parts[i], &seen, &perr)
                                            : -1;
            sl_error_reset(&perr);
            if (rc == 0 && seen > sp)
                return sl__stale_savepoint(j, sp, seen, err);
        }
    }
    /* The last resource fences earlier incarnations first: from here on
    ** nothing they still try to commit can succeed, so the decision read
    ** back is final. A preparable participant tells what it committed. */
    for (int i = 0; i < j->nparts; i++) {
        int64_t h = -1;
        if (j->parts[i]->ops->recover(j->parts[i], &h, err) != 0)
            return -1;
        if (h > held)
            held = h;
    }
    if (spec->restore_path && j->nparts > 0 && held > sp)
        return sl__stale_savepoint(j, sp, held, err);
    if (held > own && j->store && !spec->restore_path) {
        /* Decided by the participant, then a crash before _metadata: every
        ** state file of it was durable before the decision. Seal it. */
        if (sl__decided_here(j, held, own, err) != 0)
            return -1;
        if (sl_chk_seal_existing(j->store, held, sl__now(spec), err) != 0)
            return -1;
        sl__notice(spec, "job \"%s\": checkpoint %lld was decided but not sealed; sealed it",
                   spec->name, (long long)held);
        own = held;
    }
    sl_chk_store *from = j->store;
    d = own;
    if (spec->restore_path) {
        if (sl_chk_open_path(spec->restore_path, spec->storage_opts, &from, &d, err) != 0)
            return -1;
    }
    /* What earlier incarnations prepared: committed by D, rolled back
    ** after it (a fork's participants have only their own past). */
    for (int i = 0; i < j->nparts; i++)
        if (j->parts[i]->ops->resolve &&
            j->parts[i]->ops->resolve(j->parts[i], spec->restore_fork ? own : d, err) != 0)
            return -1;
    j->stats->restored_from = d;
    j->stats->last_checkpoint = own;
    j->epoch = (d > own ? d : own) + 1;
    if (held >= j->epoch) /* never reuse an epoch the participant decided */
        j->epoch = held + 1;
    if (j->epoch < 1)
        j->epoch = 1;
    int rc = 0;
    sl_list *committables = sl_list_new();
    sl_list *lens = sl_list_new();
    sl_list *owners = sl_list_new(); /* the pipeline of each committable */
    if (d >= 0) {
        char *layout = NULL;
        size_t len = 0;
        sl_strbuf want = SL_STRBUF_INIT;
        sl__layout(spec, &want);
        sl_error lerr = SL_ERROR_INIT;
        if (sl_chk_read_state(from, d, SL__LAYOUT, &layout, &len, &lerr) != 0 &&
            strcmp(lerr.sqlstate, SL_ERR_DATA_CORRUPTED) == 0) {
            rc = -1; /* damaged, not another plan's */
            sl_error_move(err, &lerr);
        } else if (!layout || !sl__layout_same(layout, len, &want)) {
            char *path = sl_chk_path(from, d);
            rc = sl_error_set(err, "55000", -1,
                              "checkpoint %s was taken by a different plan or parallelism", path);
            sl_error_detail(err, "It was taken by:\n%sThis job is:\n%s",
                            layout ? layout : "(unknown)\n", sl_strbuf_cstr(&want));
            sl_error_hint(err, "Run it with the parallelism it had ('parallelism.default'), or give "
                               "the job a new 'pipeline.name' to start it afresh.");
            sl_free(path);
        }
        sl_error_reset(&lerr);
        sl_free(layout);
        sl_strbuf_free(&want);
    }
    for (int i = 0; rc == 0 && d >= 0 && i < j->ntasks; i++) {
        sl__task *t = &j->tasks[i];
        char name[64], *st = NULL;
        size_t len = 0;
        if (t->source) {
            snprintf(name, sizeof name, "source-%s", t->name);
            rc = sl_chk_read_state(from, d, name, &st, &len, err);
            if (rc == 0)
                rc = t->source->ops->seek(t->source, st, len, err);
            sl_free(st);
            st = NULL;
        }
        for (int k = 0; rc == 0 && k < t->nsteps; k++) {
            sl_operator *op = t->steps[k].op;
            if (!op)
                continue;
            snprintf(name, sizeof name, "op-%s-%d", t->name, k);
            rc = sl_chk_read_state(from, d, name, &st, &len, err);
            char *files = sl__op_files(from, d, t, k);
            op->chk_dir = files;
            size_t fl = strlen(SL__FINISHED);
            if (rc == 0 && len > fl && memcmp(st, SL__FINISHED " ", fl + 1) == 0) {
                const char *runs = op->ops->backend ? op->ops->backend(op) : "hashmap";
                char took[32];
                snprintf(took, sizeof took, "%.*s", (int)(len - fl - 1), st + fl + 1);
                if (strcmp(took, runs) != 0)
                    rc = sl_backend_mismatch(err, files, took, runs);
                t->finished = true; /* it starts empty and must stay so */
            } else if (rc == 0) {
                rc = op->ops->restore(op, st, len, err);
            }
            op->chk_dir = NULL;
            sl_free(files);
            sl_free(st);
            st = NULL;
        }
        if (rc == 0) {
            snprintf(name, sizeof name, "watermark-%s", t->name);
            rc = sl_chk_read_state(from, d, name, &st, &len, err);
            if (rc == 0) {
                t->watermark = strtoll(st, NULL, 10);
                for (int l = 0; l < t->nlanes; l++)
                    t->lane_wm[l] = t->watermark;
            }
            sl_free(st);
            st = NULL;
        }
        if (rc == 0 && !spec->restore_fork) {
            /* Optional: checkpoints taken before it was kept have none. */
            snprintf(name, sizeof name, "counters-%s", t->name);
            sl_error cerr = SL_ERROR_INIT;
            if (sl_chk_read_state(from, d, name, &st, &len, &cerr) != 0 &&
                strcmp(cerr.sqlstate, SL_ERR_DATA_CORRUPTED) == 0) {
                rc = -1; /* damaged, not merely absent: never read past */
                sl_error_move(err, &cerr);
            } else if (st) {
                long long in = 0, out = 0, sk = 0, cf = 0; /* conflicts: absent before */
                int nf = st ? sscanf(st, "%lld %lld %lld %lld", &in, &out, &sk, &cf) : 0;
                if (nf >= 3 && in >= 0 && out >= 0 && sk >= 0 && cf >= 0) {
                    t->base_in = in;
                    t->base_out = out;
                    t->base_skipped = sk;
                    t->base_conflicts = cf;
                }
            }
            sl_error_reset(&cerr);
            sl_free(st);
            st = NULL;
        }
        if (rc == 0 && t->sink && !spec->restore_fork) {
            snprintf(name, sizeof name, "sink-%s", t->name);
            rc = sl_chk_read_state(from, d, name, &st, &len, err);
            if (rc == 0) {
                sl_list_push(committables, st);
                sl_list_push(lens, (void *)(uintptr_t)len);
                sl_list_push(owners, (void *)t->pipe);
            }
        }
        for (int k = 0; rc == 0 && !spec->restore_fork && k < t->nsides; k++) {
            /* Optional: a checkpoint taken before the side output was set has none. */
            snprintf(name, sizeof name, "side-%s-%d%s", t->name, t->sides[k].step,
                     sl__side_blob_suffix(&t->sides[k]));
            st = NULL;
            sl_error serr = SL_ERROR_INIT;
            if (sl_chk_read_state(from, d, name, &st, &len, &serr) != 0) {
                if (strcmp(serr.sqlstate, SL_ERR_UNDEFINED_FILE) != 0) {
                    rc = -1; /* damaged, not merely absent */
                    sl_error_move(err, &serr);
                }
            } else { /* owner: the side table's group, as a tagged pointer */
                sl_list_push(committables, st);
                sl_list_push(lens, (void *)(uintptr_t)len);
                sl_list_push(owners, (void *)(uintptr_t)(2 * (uintptr_t)t->sides[k].group + 1));
            }
            sl_error_reset(&serr);
        }
    }
    /* Every sink instance commits all of D's committables of its pipeline
    ** (its table; idempotent) and discards its own earlier incarnations'
    ** undecided epochs. */
    const char **cv = sl_calloc((size_t)committables->n + 1, sizeof(char *));
    size_t *lv = sl_calloc((size_t)committables->n + 1, sizeof(size_t));
    for (int i = 0; rc == 0 && i < j->ntasks; i++) {
        const sl__task *t = &j->tasks[i];
        if (!t->sink)
            continue;
        int n = 0;
        for (int c = 0; c < committables->n; c++)
            if (owners->items[c] == (const void *)t->pipe) {
                cv[n] = committables->items[c];
                lv[n++] = (size_t)(uintptr_t)lens->items[c];
            }
        rc = t->sink->ops->recover(t->sink, cv, lv, n, err);
    }
    /* The same for every side output's instance: all of D's committables of
    ** its table. */
    for (int i = 0; rc == 0 && i < j->ntasks; i++)
        for (int k = 0; rc == 0 && k < j->tasks[i].nsides; k++) {
            sl__side *sd = &j->tasks[i].sides[k];
            void *tag = (void *)(uintptr_t)(2 * (uintptr_t)sd->group + 1);
            int n = 0;
            for (int c = 0; c < committables->n; c++)
                if (owners->items[c] == tag) {
                    cv[n] = committables->items[c];
                    lv[n++] = (size_t)(uintptr_t)lens->items[c];
                }
            rc = sd->sink->ops->recover(sd->sink, cv, lv, n, err);
        }
    sl_free(cv);
    sl_list_free(owners, NULL);
    /* Only then the first epoch: no instance's recovery may see another's
    ** new epoch as a leftover. */
    for (int i = 0; rc == 0 && i < j->ntasks; i++) {
        if (j->tasks[i].sink)
            rc = j->tasks[i].sink->ops->begin(j->tasks[i].sink, j->epoch, err);
        for (int k = 0; rc == 0 && k < j->tasks[i].nsides; k++)
            rc = j->tasks[i].sides[k].sink->ops->begin(j->tasks[i].sides[k].sink, j->epoch, err);
    }
    sl_free(lv);
    sl_list_free(lens, NULL);
    sl_list_free(committables, sl_free);
    if (rc == 0 && d >= 0) {
        if (spec->restore_path)
            sl__notice(spec, "job \"%s\" starts from savepoint %s", spec->name,
                       spec->restore_path);
        else
            sl__notice(spec, "job \"%s\" resumes from checkpoint %lld", spec->name,
                       (long long)d);
    }
    if (from != j->store)
        sl_chk_close(from);
    return rc;
}

/* Sum the tasks' counters into stats. */
static void sl__collect(sl__job *j)
{
    sl_job_stats *s = j->stats;
    s->rows_in = s->rows_out = s->rows_late = s->rows_skipped = 0;
    s->life_rows_in = s->life_rows_out = s->life_rows_skipped = s->life_rows_late = 0;
    s->conflicts = s->life_conflicts = 0;
    for (int i = 0; i < j->ntasks; i++) {
        sl__task *t = &j->tasks[i];
        s->rows_in += t->rows_in;
        s->rows_out += t->rows_out;
        s->rows_late += t->rows_late;
        s->rows_skipped += t->rows_skipped;
        s->life_rows_in += t->base_in + t->rows_in;
        s->life_rows_out += t->base_out + t->rows_out;
        s->life_rows_skipped += t->base_skipped + t->rows_skipped;
        s->conflicts += t->conflicts + t->op_conflicts;
        s->life_conflicts += t->base_conflicts + t->conflicts + t->op_conflicts;
        s->life_conflicts += j->spec->restore_fork ? 0 : t->base_op_conflicts;
        /* (a fork counts from zero, as its other counters do) */
        s->life_rows_late += (j->spec->restore_fork ? 0 : t->base_late) + t->rows_late;
    }
    sl_strbuf open = SL_STRBUF_INIT;
    for (int i = 0; i < j->nparts; i++)
        if (j->parts[i]->ops->describe)
            j->parts[i]->ops->describe(j->parts[i], &open);
    snprintf(s->open_txns, sizeof s->open_txns, "%s", sl_strbuf_cstr(&open));
    sl_strbuf_free(&open);
}

/* The stall check (spec->stall_ms > 0): rows arrived but none reached the
** sinks while the watermark of the event-time inputs (the smallest of
** their tasks') has not moved for stall_ms — windows, joins and the like
** wait for it. Once per run, stats->warning says why: a reader (or split)
** without rows holding the watermark back when no idle timeout is set,
** else the input whose watermark is the smallest. Coordinator only. */
static void sl__stall_check(sl__job *j, int64_t now)
{
    const sl_job_spec *spec = j->spec;
    if (j->stall_warned || spec->stall_ms <= 0)
        return;
    int64_t wm = INT64_MAX, idle_ns = spec->idle_timeout_ms * SL_NANOS_PER_MILLI;
    const sl__task *low = NULL;
    for (int i = 0; i < j->ntasks; i++) {
        const sl__task *t = &j->tasks[i];
        int64_t w = atomic_load(&t->pub_wm);
        if (t->input < 0 || !t->wm_prog || w == INT64_MAX) /* no event time, or ended */
            continue;
        if (idle_ns > 0 && now - atomic_load(&t->pub_rows_ns) >= idle_ns)
            continue; /* idle: left out of the watermark downstream */
        if (!low || w < wm) {
            wm = w;
            low = &j->tasks[i];
        }
    }
    int64_t in = j->stats->rows_in, out = j->stats->rows_out;
    if (!low || wm != j->stall_wm || out != j->stall_out || j->stall_since == 0) {
        /* moved (or the first look): rows from now on wait for it */
        j->stall_in = j->stall_since == 0 ? 0 : in;
        j->stall_since = now;
        j->stall_wm = wm;
        j->stall_out = out;
        return;
    }
    int64_t stall_ns = spec->stall_ms * SL_NANOS_PER_MILLI;
    if (now - j->stall_since < stall_ns || in == j->stall_in)
        return; /* not long enough, or no row arrived since it moved: nothing waits */
    long long secs = (long long)((now - j->stall_since) / SL_NANOS_PER_SEC);
    char *why = NULL;
    for (int i = 0; !why && spec->idle_timeout_ms <= 0 && i < j->ntasks; i++) {
        const sl__task *t = &j->tasks[i];
        if (t->input < 0 || !t->wm_prog || atomic_load(&t->pub_wm) != wm)
            continue; /* not one holding the watermark back */
        int split = atomic_load(&t->pub_stale_split);
        const char *table = t->sargs.table ? t->sargs.table : "?";
        int64_t rows_ns = atomic_load(&t->pub_rows_ns), stale_ns = atomic_load(&t->pub_stale_ns);
        if (now - rows_ns >= stall_ns)
            why = sl_sprintf("reader %d of source %s is idle (no rows for %lld s)", t->subtask,
                             table, (long long)((now - rows_ns) / SL_NANOS_PER_SEC));
        else if (split >= 0 && now - stale_ns >= stall_ns)
            why = sl_sprintf("split %d of reader %d of source %s is idle (no rows for %lld s)",
                             split, t->subtask, table,
                             (long long)((now - stale_ns) / SL_NANOS_PER_SEC));
        if (why) {
            char *w = sl_sprintf("%s; set 'table.exec.source.idle-timeout' to leave it out", why);
            sl_free(why);
            why = w;
        }
    }
    if (!why)
        why = sl_sprintf("the watermark of source %s has not advanced for %lld s%s",
                         low->sargs.table ? low->sargs.table : "?", secs,
                         wm == INT64_MIN ? " (it has none: no row has a non-NULL event time)"
                                         : " while rows arrive (their event time does not move)");
    snprintf(j->stats->warning, sizeof j->stats->warning,
             "windows are not firing because %s", why);
    sl_free(why);
    j->stall_warned = true;
}

/* Write one task's blobs into checkpoint id. */
static int sl__write_ack(sl__job *j, sl__ack *a, sl_error *err)
{
    for (int i = 0; i < a->blobs->n; i++) {
        sl__blob *b = a->blobs->items[i];
        if (sl_chk_write_state(j->store, a->id, b->name, b->data, b->len, err) != 0)
            return -1;
        if (b->kind == 1 && sl__failpoint(j, "state-source", err) != 0)
            return -1;
        if (b->kind == 2 && sl__failpoint(j, "state-sink", err) != 0)
            return -1;
    }
    return 0;
}

/* The coordinator's loop; returns when the job ended or failed. */
static int sl__coordinate(sl__job *j, sl_error *err)
{
    const sl_job_spec *spec = j->spec;
    int64_t interval_ns = spec->checkpoint_interval_ms * SL_NANOS_PER_MILLI;
    int64_t last_chk = sl__now(spec), last_progress = 0, started = 0;
    int64_t in_flight = 0;     /* checkpoint being taken, 0 = none */
    int acked = 0;             /* tasks that handed over their share of it */
    bool final = false;        /* the in-flight checkpoint ends the job */
    bool savepoint = false;    /* ... and is a savepoint */
    int64_t closing = 0;       /* decided final checkpoint the sinks must commit */
    bool ended = false;        /* the input ended (else: stopped or LIMIT) */
    int64_t next_id = j->epoch;
    uint64_t seen = 0; /* j->events when the coordinator last looked */
    for (;;) {
        pthread_mutex_lock(&j->mu);
        if (j->acks->n == 0 && !j->failed && j->events == seen) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += SL__WAIT_NS / 2;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&j->coord_cv, &j->mu, &ts);
        }
        if (j->failed) {
            pthread_mutex_unlock(&j->mu);
            return -1;
        }
        seen = j->events;
        sl_list *acks = j->acks;
        j->acks = sl_list_new();
        bool all_ended = j->sinks_ended >= j->nsinks;
        bool limit_hit = j->limit_hit;
        int64_t min_committed = INT64_MAX;
        for (int i = 0; i < j->ntasks; i++)
            if ((j->tasks[i].sink || j->tasks[i].nsides) && j->tasks[i].committed < min_committed)
                min_committed = j->tasks[i].committed;
        pthread_mutex_unlock(&j->mu);

        /* The asynchronous part: write what the tasks handed over. */
        int rc = 0;
        for (int i = 0; i < acks->n && rc == 0; i++) {
            sl__ack *a = acks->items[i];
            if (j->store)
                rc = sl__write_ack(j, a, err);
            if (a->id == in_flight)
                acked++;
        }
        sl__spare_keep(j, acks);
        if (rc != 0)
            return -1;
        int64_t now = sl__now(spec);
        if (in_flight && acked == j->ntasks) { /* every task's share is durable: decide */
            if (j->store) {
                sl_strbuf layout = SL_STRBUF_INIT;
                sl__layout(spec, &layout);
                rc = sl_chk_write_state(j->store, in_flight, SL__LAYOUT, layout.buf, layout.len,
                                        err);
                sl_strbuf_free(&layout);
                if (rc == 0) /* every share durable before the decision */
                    rc = sl_chk_sync(j->store, in_flight, err);
            }
            /* The preparable participants first: durable, invisible. */
            bool prepared = false;
            for (int i = 0; rc == 0 && i < j->nparts; i++)
                if (j->parts[i]->ops->prepare) {
                    rc = j->parts[i]->ops->prepare(j->parts[i], in_flight, err);
                    prepared = true;
                }
            if (rc == 0 && prepared)
                rc = sl__failpoint(j, "prepare", err);
            /* The decision: the last resource's commit when there is one
            ** (then _metadata is bookkeeping), else the seal. */
            for (int i = 0; rc == 0 && i < j->nparts; i++)
                if (j->parts[i]->ops->decide) {
                    rc = j->parts[i]->ops->decide(j->parts[i], in_flight, err);
                    if (rc == 0)
                        rc = sl__failpoint(j, "decide", err);
                }
            if (rc == 0 && j->store) {
                rc = sl_chk_seal(j->store, in_flight, savepoint, started, now, err);
                if (rc == 0)
                    rc = sl__failpoint(j, "seal", err);
            }
            /* Decided: what the preparable participants prepared becomes
            ** visible (a failure here fails the job; its restart commits). */
            for (int i = 0; rc == 0 && i < j->nparts; i++)
                if (j->parts[i]->ops->commit)
                    rc = j->parts[i]->ops->commit(j->parts[i], in_flight, err);
            if (rc != 0)
                return -1;
            pthread_mutex_lock(&j->mu);
            j->decided = in_flight;
            pthread_cond_broadcast(&j->task_cv);
            pthread_mutex_unlock(&j->mu);
            for (int i = 0; i < j->ntasks; i++)
                if (j->tasks[i].chan)
                    sl_channel_wake(j->tasks[i].chan);
            j->stats->checkpoints++;
            j->stats->last_checkpoint = in_flight;
            j->stats->last_checkpoint_ms = (now - started) / SL_NANOS_PER_MILLI;
            j->stats->last_checkpoint_bytes = j->store ? sl_chk_bytes(j->store, in_flight) : 0;
            if (j->store &&
                (sl_chk_prune(j->store, spec->retain > 0 ? spec->retain : 3, err) != 0 ||
                 sl__failpoint(j, "prune", err) != 0))
                return -1;
            if (final)
                closing = in_flight;
            in_flight = 0;
            last_chk = now;
            sl__collect(j);
            if (spec->progress)
                spec->progress(spec->progress_ctx, j->stats);
        }
        if (closing && min_committed >= closing) { /* the last checkpoint is visible */
            j->stats->finished = ended;
            if (savepoint && j->store) {
                char *path = sl_chk_path(j->store, closing);
                sl__notice(spec, "job \"%s\" stopped with savepoint %s", spec->name, path);
                sl_free(path);
            }
            return 0;
        }
        if (!in_flight && !closing) {
            bool sp = false, trigger = false;
            if (spec->should_stop && spec->should_stop(spec->stop_ctx, &sp)) {
                trigger = final = true;
                savepoint = sp;
            } else if (all_ended || limit_hit) {
                trigger = final = true;
                ended = true;
            } else if (interval_ns > 0 && now - last_chk >= interval_ns) {
                trigger = true;
            }
            if (trigger) {
                in_flight = next_id++;
                acked = 0;
                started = now;
                pthread_mutex_lock(&j->mu);
                j->trigger = in_flight;
                j->trigger_savepoint = final && savepoint;
                j->trigger_final = final;
                pthread_cond_broadcast(&j->task_cv);
                pthread_mutex_unlock(&j->mu);
            }
        }
        if (spec->progress && now - last_progress >= 100 * SL_NANOS_PER_MILLI) {
            sl__collect(j);
            sl__stall_check(j, now);
            spec->progress(spec->progress_ctx, j->stats);
            last_progress = now;
        }
    }
}

int sl_job_run(const sl_job_spec *spec, sl_job_stats *stats, sl_error *err)
{
    memset(stats, 0, sizeof *stats);
    stats->last_checkpoint = -1;
    stats->restored_from = -1;
    sl__job j;
    memset(&j, 0, sizeof j);
    j.spec = spec;
    j.stats = stats;
    j.acks = sl_list_new();
    j.spares = sl_list_new();
    j.err = (sl_error)SL_ERROR_INIT;
    pthread_mutex_init(&j.mu, NULL);
    pthread_mutex_init(&j.fp_mu, NULL);
    pthread_cond_init(&j.task_cv, NULL);
    pthread_cond_init(&j.coord_cv, NULL);
    int rc = 0;
    if (spec->data_dir)
        rc = sl_chk_open_at(spec->data_dir, spec->checkpoint_dir, spec->storage_opts, spec->name,
                            &j.store, err);
    for (int i = 0; rc == 0 && i < spec->nparticipants && i < SL_MAX_PARTICIPANTS; i++) {
        sl_participant_args a = spec->participants[i].args;
        a.origin = spec->origin; /* its decisions are this job's past */
        rc = spec->participants[i].create(&a, &j.parts[i], err);
        if (rc == 0)
            j.nparts++;
    }
    if (rc == 0)
        rc = sl__build(&j, err);
    if (rc == 0)
        rc = sl__restore(&j, err);
    for (int i = 0; rc == 0 && i < j.ntasks; i++) { /* the late rows restored state counted */
        sl__count_late(&j.tasks[i]);
        j.tasks[i].base_late = j.tasks[i].rows_late;
        j.tasks[i].rows_late = 0;
        j.tasks[i].base_op_conflicts = j.tasks[i].op_conflicts; /* and its conflicts */
        j.tasks[i].op_conflicts = 0;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SL__TASK_STACK);
    for (int i = 0; rc == 0 && i < j.ntasks; i++) {
        if (j.tasks[i].owner)
            continue; /* its owner's thread runs it */
        if (pthread_create(&j.tasks[i].thread, &attr, sl__task_main, &j.tasks[i]) != 0)
            rc = sl_error_set(err, SL_ERR_PROGRAM_LIMIT, -1, "could not start a task thread");
        else
            j.tasks[i].started = true;
    }
    pthread_attr_destroy(&attr);
    if (rc == 0)
        rc = sl__coordinate(&j, err);
    /* Tear down: stop the tasks, unblock the ones waiting on a channel. */
    pthread_mutex_lock(&j.mu);
    j.shutdown = true;
    atomic_store(&j.cancel, true);
    pthread_cond_broadcast(&j.task_cv);
    pthread_mutex_unlock(&j.mu);
    for (int i = 0; i < j.ntasks; i++)
        if (j.tasks[i].chan)
            sl_channel_close(j.tasks[i].chan);
    for (int i = 0; i < j.ntasks; i++)
        if (j.tasks[i].started)
            pthread_join(j.tasks[i].thread, NULL);
    if (rc != 0 && j.failed) {
        sl_error_reset(err);
        sl_error_move(err, &j.err);
    }
    for (int i = 0; i < j.ntasks; i++) {
        if (j.tasks[i].source && j.tasks[i].source->ops->skipped)
            j.tasks[i].rows_skipped = j.tasks[i].source->ops->skipped(j.tasks[i].source);
        sl__count_late(&j.tasks[i]);
    }
    sl__collect(&j);
    for (int i = 0; i < j.ntasks; i++)
        sl__close_task(&j.tasks[i]);
    /* After a failure: what this run prepared is decided by the data
    ** directory's seal, whatever the failure said about it. */
    int64_t sealed = -1;
    sl_error serr = SL_ERROR_INIT;
    if (rc != 0 && j.store && j.nparts > 0 && sl_chk_latest(j.store, &sealed, &serr) == 0) {
        for (int i = 0; i < j.nparts; i++) {
            if (!j.parts[i]->ops->settle || j.parts[i]->ops->settle(j.parts[i], sealed, &serr) == 0)
                continue;
            sl_log(SL_LOG_WARN, "job \"%s\": its prepared transactions are left for the next "
                                "start: %s",
                   spec->name, serr.message ? serr.message : "");
            sl_error_reset(&serr);
        }
    }
    sl_error_reset(&serr);
    for (int i = 0; i < j.nparts; i++) /* after their sinks: abort what is still open */
        j.parts[i]->ops->free(j.parts[i]);
    sl_free(j.tasks);
    sl_list_free(j.acks, sl__ack_free);
    sl_list_free(j.spares, sl__strbuf_free_p);
    sl_error_reset(&j.err);
    pthread_cond_destroy(&j.task_cv);
    pthread_cond_destroy(&j.coord_cv);
    pthread_mutex_destroy(&j.fp_mu);
    pthread_mutex_destroy(&j.mu);
    sl_chk_close(j.store);
    return rc;
}
