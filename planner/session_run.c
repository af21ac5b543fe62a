/*
** session_run.c — INSERT, statement sets and queries: planned, their
** guarantees resolved, run by the runtime; STOP JOB.
**
** Jobs. Every INSERT job is an sl__job in the engine's registry while it
** runs, whichever thread runs it: the caller's ('table.dml-sync' = 'true')
** or one of its own (background). The job owns everything the runtime reads
** while it runs — its logical plans, the physical plan and a snapshot of the
** catalog they point into — so the session that started it may go on (or
** go away) and DDL never frees what a job uses. The registry gives
** STOP JOB a stop flag to set and a thread to wait for, and SHOW JOBS the
** live counters the runtime's progress callback copies in. A job that ends
** writes its record jobs/<name>/_job.json (FINISHED / STOPPED / FAILED);
** a background job's thread is joined by the next registry operation
** ("reaping"), at the latest by sl_engine_close, which first stops every
** job with a savepoint.
**
** In an engine that resumes jobs (sluice serve), a background job's
** RUNNING record also holds what starts it again (session_resume.c): a
** record still RUNNING after a crash, or STOPPED by the engine's shutdown,
** keeps it; STOP JOB, an end or a failure drop it.
**
** Main routines: sl__run_stmt, sl__stop_job_stmt, sl_engine_stop_jobs,
** sl_engine_wait_jobs, sl_engine_running_jobs.
*/
#include "session_int.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef enum sl__job_state {
    SL__JOB_RUNNING,  /* sl_job_run has not returned */
    SL__JOB_FINISHED, /* its bounded input ended and everything was committed */
    SL__JOB_STOPPED,  /* stopped after a final checkpoint (STOP JOB, Ctrl-C, shutdown) */
    SL__JOB_FAILED,   /* failed (error) */
} sl__job_state;

static const char *const sl__job_state_names[] = {"RUNNING", "FINISHED", "STOPPED", "FAILED"};

typedef struct sl__run_ctx sl__run_ctx;

/* One INSERT job. Fields marked [mu] are guarded by the engine's mutex; the
** others are set before the job starts and only read afterwards. */
typedef struct sl__job {
    sl_engine *eng;         /* the engine whose registry lists it */
    char *name;             /* identity ('pipeline.name' or derived from the statement) */
    char stmt_hash[17];     /* the hash of its statement's canonical text, in hex */
    char *sink;             /* the sink table */
    char *guarantee;        /* the sink's effective guarantee */
    char *guarantees;       /* EXPLAIN's Guarantees section of the job: the whole decision */
    char *restore_path;     /* 'execution.savepoint.path' it starts from, or NULL */
    char *chk_base;         /* 'execution.checkpointing.dir' (normalised), or NULL: its
                               checkpoints are in its home, jobs/<name>/ */
    sl_kvlist *storage_opts; /* the settings their storage is opened with (credentials) */
    bool claim;             /* ... continuing that job ('execution.savepoint-restore-mode') */
    bool other_sinks;       /* ... of another job, whose sinks are not this one's */
    char *origin;           /* ... that job's name, or NULL */
    sl_list *targets;       /* char*: where its exactly-once sinks write (session_branch.c) */
    sl_list *target_tables; /* char*: their tables */
    int restart_attempts;   /* restarts allowed after a transient failure (0 = none) */
    int64_t restart_delay_ms; /* wait before each */
    int64_t restarts;       /* [mu] restarts over the job's life: its record's count, one
                               more when its last run died or failed, then each restart
                               of this run (reported in stats.restarts) */
    sl_list *plans;         /* the logical plans (sl_lp*) the physical plan points into */
    sl_catalog *cat;        /* the catalog snapshot it was planned against */
    sl_physical *phys;      /* the physical plan, holding the sl_job_spec */
    sl__run_ctx *run;       /* synchronous: the statement it runs for; NULL in the background */
    bool background;        /* runs on a thread of its own */
    pthread_t thread;       /* background: that thread */
    int refs;               /* [mu] the registry's, plus one per STOP JOB waiting for it */
    bool stop;              /* [mu] asked to stop (read by should_stop) */
    bool savepoint;         /* [mu] ... after a final checkpoint kept as a savepoint */
    sl__job_state state;    /* [mu] running or how it ended */
    sl_job_stats stats;     /* [mu] live counters (progress); the final ones once ended */
    sl_error error;         /* [mu] FAILED: why */
    json_t *resume;         /* what starts it again at the engine's next start
                               (session_resume.c), or NULL: not resumable */
    bool resume_next;       /* [mu] stopped by the engine's shutdown: its STOPPED
                               record keeps resume, so the next start resumes it */
    /* What DESCRIBE JOB and SHOW JOBS show besides the counters: */
    char *statement;        /* the statement, secrets redacted */
    char *plan;             /* its physical plan (EXPLAIN's) */
    char *late_table;       /* 'table.exec.late-rows.table' as it started (RECONCILE ...
                               FOR JOB reads it from the record), or NULL */
    int64_t started_ns;     /* when this run started */
    json_t *chk_hist;       /* [mu] the newest checkpoints: [{epoch, time, duration_ms,
                               bytes}], oldest first, at most SL__CHK_HISTORY */
    json_t *fail_hist;      /* [mu] restarts' causes: [{time, sqlstate, message}], at
                               most SL__FAIL_HISTORY, over the job's life */
    double rate;            /* [mu] rows read per second, over the last second or so */
    int64_t rate_ns, rate_rows; /* [mu] the sample it is measured from */
} sl__job;

#define SL__CHK_HISTORY 20  /* checkpoints a job's record keeps */
#define SL__FAIL_HISTORY 20 /* restart causes a job's record keeps */

/* ------------------------------------------------------------------------
** INSERT, queries, EXPLAIN
*/

/* Bind a runnable statement (INSERT, statement set, query) into plans, one
** per sink (or one for a query). */
static const sl_lp *sl__unbounded_scan(const sl_catalog *cat, const sl_lp *n);

/* Whether lp runs in batch mode ('execution.runtime-mode'; sl__batch_mode
** refuses an unbounded source in batch mode later). */
static bool sl__plan_batch(sl_session *s, const sl_lp *lp)
{
    sl__runtime_mode mode = sl__runtime_mode_of(s);
    return mode == SL__RUNTIME_BATCH ||
           (mode == SL__RUNTIME_AUTOMATIC && !sl__unbounded_scan(sl__cat(s), lp));
}

int sl__plan(sl_session *s, const sl_stmt *st, sl_list *plans, sl_error *err)
{
    sl_binder b = sl__binder(s, err);
    switch (st->kind) {
    case SL_STMT_INSERT: {
        sl_lp *lp = sl_bind_insert(&b, st);
        if (!lp)
            return -1;
        sl_list_push(plans, lp);
        return sl_lp_analyze_mode(lp, sl__plan_batch(s, lp), err);
    }
    case SL_STMT_QUERY: {
        sl_lp *lp = sl_bind_query(&b, st->query);
        if (!lp)
            return -1;
        sl_list_push(plans, lp);
        /* the bounded path (bounded.c) reads the catalog relations: no changelog */
        return sl_lp_reads_sysrel(lp) ? 0 : sl_lp_analyze_mode(lp, sl__plan_batch(s, lp), err);
    }
    case SL_STMT_STATEMENT_SET:
        if (sl_list_len(st->stmts) == 0)
            return sl_error_set(err, SL_ERR_SYNTAX, st->pos, "a statement set needs at least one INSERT");
        for (int i = 0; i < sl_list_len(st->stmts); i++) {
            const sl_stmt *ins = sl_list_get(st->stmts, i);
            if (ins->kind != SL_STMT_INSERT)
                return sl_error_set(err, SL_ERR_SYNTAX, ins->pos,
                                    "a statement set may only contain INSERT statements");
            sl_lp *lp = sl_bind_insert(&b, ins);
            if (!lp)
                return -1;
            sl_list_push(plans, lp);
            if (sl_lp_analyze_mode(lp, sl__plan_batch(s, lp), err) != 0)
                return -1;
        }
        return 0;
    default:
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, st->pos,
                            "EXPLAIN supports INSERT, EXECUTE STATEMENT SET and queries");
    }
}

void sl__lp_free_v(void *p)
{
    sl_lp_free(p);
}

/* Whether the stored job jobs/<name>/ of data_dir is free for the
** statement of hash hex: no such job, or its record says it ran that
** statement. A job without a readable record (damaged, or written before
** records kept the statement) is another statement's. */
static bool sl__job_name_free(const char *data_dir, const char *name, const char *hex)
{
    char *dir = sl_chk_job_dir(data_dir, name);
    bool free_ = !sl_fs_exists(dir);
    if (!free_) {
        char *path = sl_path_join(dir, "_job.json");
        json_t *rec = NULL;
        sl_error err = SL_ERROR_INIT;
        if (sl__job_record_read(path, &rec, &err) == 0 && rec) {
            const char *st = json_string_value(json_object_get(rec, "statement_hash"));
            free_ = st && strcmp(st, hex) == 0;
        }
        json_decref(rec);
        sl_error_reset(&err);
        sl_free(path);
    }
    sl_free(dir);
    return free_;
}

/* A job's identity: 'pipeline.name', else derived from the statement's
** canonical text, so running the same file again finds the same job. hex
** receives the hash of that text (16 hex digits), which the job's record
** keeps as "statement_hash".
**
** A derived name is readable: insert-into-<table>, with the first 8 hex
** digits of the hash after it only when a stored job of another statement
** already has that name, and all 16 when that name is taken too. The name
** is the job's identity for exactly-once (its checkpoints, transactional
** ids, decisions), so a statement only ever takes a name that is free or
** that its own earlier run left: the same statement run again resumes the
** same job, a different one never resumes another's. A job stored under
** the name with all 16 digits (as every derived name was before) is found
** first, so such a job resumes as before. */
static char *sl__job_name(sl_session *s, const sl_stmt *st, char hex[17])
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_stmt_print(&sb, st, NULL, NULL);
    uint64_t h = sl_hash_bytes(sb.buf, sb.len, SL_HASH_INIT);
    sl_strbuf_free(&sb);
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
    const char *name = sl__setting_set(s, "pipeline.name");
    if (name)
        return sl_strdup(name);
    if (st->kind == SL_STMT_STATEMENT_SET)
        return sl_sprintf("statement-set-%s", hex);
    /* The table's name as a job name's part (sl_job_name_check): '/' and
    ** control characters become '_', and it is cut (at a character) so the
    ** whole name fits a file name. */
    sl_strbuf t = SL_STRBUF_INIT;
    size_t file = 0;
    const unsigned char *p = (const unsigned char *)(st->name ? st->name : "query");
    for (; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
        bool bad = *p == '/' || *p < 0x20 || *p == 0x7f;
        if ((*p & 0xC0) != 0x80 && file > SL_JOB_NAME_MAX - 60)
            break;
        file += plain || bad ? 1 : 3;
        sl_strbuf_append_char(&t, bad ? '_' : (char)*p);
    }
    char *full = sl_sprintf("insert-into-%s-%s", sl_strbuf_cstr(&t), hex);
    const char *data_dir = s->eng->data_dir;
    if (st->kind == SL_STMT_QUERY || !data_dir) { /* runs no stored job */
        sl_strbuf_free(&t);
        return full;
    }
    char *dir = sl_chk_job_dir(data_dir, full);
    bool stored = sl_fs_exists(dir);
    sl_free(dir);
    if (!stored) {
        char *cands[2] = {sl_sprintf("insert-into-%s", sl_strbuf_cstr(&t)),
                          sl_sprintf("insert-into-%s-%.8s", sl_strbuf_cstr(&t), hex)};
        bool found = false;
        for (int i = 0; i < 2; i++) {
            if (!found && sl__job_name_free(data_dir, cands[i], hex)) {
                sl_free(full);
                full = cands[i];
                cands[i] = NULL;
                found = true;
            }
            sl_free(cands[i]);
        }
    }
    sl_strbuf_free(&t);
    return full;
}

/* A second INSERT under 'pipeline.name' in a session: when a job of this
** session ran another statement under the name and the name was not SET
** again since (a SET forgotten, not RESET), running this one would resume
** that job (its sources' positions, its state) and write the wrong rows or
** none: 55006 with a hint to RESET it. A name whose job runs is left to the
** "already running" check. 0, or -1 with err. */
static int sl__job_name_reused(sl_session *s, const char *name, const char *hex, sl_error *err)
{
    const char *before = s->job_stmts ? sl_kvlist_get(s->job_stmts, name) : NULL;
    sl_job_stats stats;
    if (before && strcmp(before, hex) != 0 && !sl__job_live(s->eng, name, &stats)) {
        sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                     "job \"%s\" was started by another INSERT of this session", name);
        sl_error_detail(err,
                        "'pipeline.name' is still \"%s\": this INSERT would resume that job "
                        "from its checkpoints, which hold the other statement's positions and "
                        "state.",
                        name);
        sl_error_hint(err, "RESET 'pipeline.name' (or SET another) to give this INSERT a job of "
                           "its own.");
        return -1;
    }
    return 0;
}

/* The statement a job or query runs for (synchronous runs only). */
struct sl__run_ctx {
    sl_session *s;              /* the session */
    const sl_result_sink *out;  /* the statement's output */
    pthread_mutex_t mu;         /* a query's rows: one sink task at a time */
    atomic_bool cancelled;      /* the output asked to stop */
    bool with_kind;             /* rows start with Flink's op column (result mode) */
    const sl_tz *tz;            /* the session's time zone: TIMESTAMP_LTZ values shown in it */
    sl__rows *rows;             /* result mode 'table' or batch mode of an updating query:
                                   the changes collect into the final table, sent at the end */
};

static bool sl__run_interrupted(sl__run_ctx *rc)
{
    return atomic_load(&rc->cancelled) || (rc->s->interrupt && *rc->s->interrupt);
}

static int sl__query_should_stop(void *ctx, bool *savepoint)
{
    *savepoint = true;
    return sl__run_interrupted(ctx);
}

static void sl__query_notice(void *ctx, const char *message)
{
    sl__run_ctx *rc = ctx;
    sl__notice(rc->out, SL_SEV_NOTICE, "%s", message);
}

/* The sink of a query's job: rows go to the statement's output as text.
** With parallelism, one instance per task: rows are passed on one task at a
** time. */
typedef struct sl__result_sink {
    sl_sink sink;          /* the sink (first: freed as one) */
    sl__run_ctx *run;      /* where rows go */
    int ncols;             /* columns */
} sl__result_sink;

static int sl__rs_noop(sl_sink *s, int64_t epoch, sl_error *err)
{
    return 0;
}

static int sl__rs_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    sl__result_sink *rs = s->impl;
    sl__run_ctx *run = rs->run;
    if (run->out && run->out->chunk && !run->rows) { /* the rows as they are */
        pthread_mutex_lock(&run->mu);
        if (!atomic_load(&run->cancelled) && run->out->chunk(run->out->ctx, c) != 0)
            atomic_store(&run->cancelled, true);
        pthread_mutex_unlock(&run->mu);
        return 0;
    }
    int k = run->with_kind && !run->rows ? 1 : 0; /* the op column comes first */
    sl_strbuf *bufs = sl_calloc((size_t)rs->ncols + 1, sizeof(sl_strbuf));
    const char **vals = sl_calloc((size_t)rs->ncols + 2, sizeof(char *));
    size_t *lens = sl_calloc((size_t)rs->ncols + 2, sizeof(size_t));
    pthread_mutex_lock(&run->mu);
    for (int r = 0; r < c->nrows && !atomic_load(&run->cancelled); r++) {
        if (k) {
            vals[0] = sl_row_kind_name((sl_row_kind)c->kinds[r]);
            lens[0] = strlen(vals[0]);
        }
        for (int i = 0; i < rs->ncols; i++) {
            sl_strbuf_reset(&bufs[i]);
            bool v = sl_value_format_tz(&bufs[i], &c->cols[i], r, run->tz);
            vals[k + i] = v ? sl_strbuf_cstr(&bufs[i]) : NULL;
            lens[k + i] = v ? bufs[i].len : 0; /* a string may hold NUL bytes */
        }
        if (run->rows)
            sl__rows_apply(run->rows, (sl_row_kind)c->kinds[r], vals + k, lens + k);
        else if (run->out && run->out->row && run->out->row(run->out->ctx, vals, lens) != 0)
            atomic_store(&run->cancelled, true);
    }
    pthread_mutex_unlock(&run->mu);
    for (int i = 0; i < rs->ncols; i++)
        sl_strbuf_free(&bufs[i]);
    sl_free(bufs);
    sl_free(vals);
    sl_free(lens);
    return 0;
}

static int sl__rs_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    return 0;
}

static int sl__rs_commit(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}

static int sl__rs_recover(sl_sink *s, const char *const *cs, const size_t *lens, int n,
                          sl_error *err)
{
    return 0;
}

static void sl__rs_free(sl_sink *s)
{
    sl_free(s->impl);
}

static const sl_sink_ops sl__result_sink_ops = {
    sl__rs_noop, sl__rs_write, sl__rs_pre_commit, sl__rs_commit, sl__rs_commit, sl__rs_recover,
    sl__rs_free, NULL, NULL,
};

static int sl__result_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    sl__result_sink *rs = sl_calloc(1, sizeof *rs);
    rs->sink.ops = &sl__result_sink_ops;
    rs->sink.impl = rs;
    rs->run = args->ctx;
    rs->ncols = args->ncols;
    *out = &rs->sink;
    return 0;
}

/* The tables scanned under a plan node, each once. */
static void sl__scans(const sl_lp *n, sl_list *tables)
{
    if (!n)
        return;
    if (n->kind == SL_LP_SCAN) {
        for (int i = 0; i < tables->n; i++)
            if (strcmp(tables->items[i], n->table) == 0)
                return;
        sl_list_push(tables, n->table);
        return;
    }
    sl__scans(n->input, tables);
    if (!n->lookup) /* a lookup join's table is looked up, not read as a source */
        sl__scans(n->right, tables);
}

void sl__gplan_free(sl__gplan *g)
{
    for (int i = 0; g->res && i < g->job.nsinks; i++)
        sl_gresult_clear(&g->res[i]);
    sl_free(g->res);
    sl_free(g->sinks);
    sl_list_free(g->sources, sl_free);
    memset(g, 0, sizeof *g);
}

/* Resolve the guarantee of every sink of plans (DESIGN.md section 6);
** downgrade warnings go to out. For EXPLAIN (explain set) a refusal by
** the policy is shown rather than raised. */
int sl__resolve(sl_session *s, const sl_list *plans, bool explain, sl__gplan *g,
                       const sl_result_sink *out, sl_error *err)
{
    memset(g, 0, sizeof *g);
    g->sources = sl_list_new();
    g->sinks = sl_calloc((size_t)plans->n + SL_SIDE_MAX + 1, sizeof(sl_gsink));
    int n = 0;
    for (int i = 0; i < plans->n; i++) {
        const sl_lp *root = plans->items[i];
        const sl_table *t = root->kind == SL_LP_SINK ? sl_catalog_table(sl__cat(s), root->table)
                                                     : NULL;
        if (!t || !t->connector)
            continue;
        sl_gsink *gs = &g->sinks[n++];
        gs->table = t->name;
        gs->connector = t->connector;
        gs->options = t->def->options;
        gs->pos = root->pos;
        gs->updating = root->input && (root->input->changelog & ~SL_CL_INSERT) != 0;
        gs->has_pk = t->npk > 0;
        sl_list *tables = sl_list_new();
        sl__scans(root->input, tables);
        sl_gsource *src = sl_calloc((size_t)tables->n + 1, sizeof(sl_gsource));
        for (int k = 0; k < tables->n; k++) {
            const sl_table *st = sl_catalog_table(sl__cat(s), tables->items[k]);
            src[k].table = tables->items[k];
            src[k].connector = st ? st->connector : NULL;
        }
        gs->nsources = tables->n;
        gs->sources = src;
        sl_list_push(g->sources, src);
        sl_list_free(tables, NULL);
    }
    /* The side tables: sinks of the job like the others, fed by all of its
    ** sources (side.c). */
    g->nside = sl__side_uses(s, plans, g->sides);
    for (int i = 0; i < g->nside; i++) {
        sl_side_spec *sp = NULL; /* checked before anything runs (42P01, 42703, 42804) */
        if (sl_side_resolve(sl__cat(s), g->sides[i].kind, g->sides[i].table, SL_GUARANTEE_NONE,
                            &sp, err) != 0)
            return -1;
        sl_side_spec_free(sp);
        const sl_table *t = sl_catalog_table(sl__cat(s), g->sides[i].table);
        sl_list *tables = sl_list_new();
        for (int k = 0; k < plans->n; k++)
            sl__scans(((const sl_lp *)plans->items[k])->input, tables);
        sl_gsource *src = sl_calloc((size_t)tables->n + 1, sizeof(sl_gsource));
        for (int k = 0; k < tables->n; k++) {
            const sl_table *st = sl_catalog_table(sl__cat(s), tables->items[k]);
            src[k].table = tables->items[k];
            src[k].connector = st ? st->connector : NULL;
        }
        sl_gsink *gs = &g->sinks[n++];
        gs->table = t->name;
        gs->connector = t->connector;
        gs->options = t->def->options;
        gs->pos = -1;
        gs->has_pk = t->npk > 0;
        gs->nsources = tables->n;
        gs->sources = src;
        sl_list_push(g->sources, src);
        sl_list_free(tables, NULL);
    }
    g->job.interval_ms = sl__duration_ms(s, "execution.checkpointing.interval");
    g->job.policy = sl__setting_set(s, "sink.guarantee-fallback");
    g->job.nsinks = n;
    g->job.sinks = g->sinks;
    sl_list *names = sl_catalog_table_names(sl__cat(s));
    const char **onames = sl_calloc((size_t)names->n + 1, sizeof(char *));
    const sl_kvlist **oopts = sl_calloc((size_t)names->n + 1, sizeof(sl_kvlist *));
    int no = 0;
    for (int i = 0; i < names->n; i++) {
        const sl_table *t = sl_catalog_table(sl__cat(s), names->items[i]);
        if (t && t->def) {
            onames[no] = t->name;
            oopts[no++] = t->def->options;
        }
    }
    sl_list_free(names, sl_free);
    sl_list_push(g->sources, onames);
    sl_list_push(g->sources, oopts);
    g->job.nothers = no;
    g->job.other_names = onames;
    g->job.other_options = oopts;
    g->job.explain = explain;
    g->res = sl_calloc((size_t)n + 1, sizeof(sl_gresult));
    sl_list *warnings = sl_list_new();
    int rc = sl_guarantee_resolve(&g->job, g->res, warnings, err);
    if (rc != 0) {
        sl_free(g->res);
        g->res = NULL;
    }
    for (int i = 0; rc == 0 && i < g->nside; i++) {
        g->sides[i].guarantee = g->res[n - g->nside + i].effective;
        g->sides[i].mech = g->res[n - g->nside + i].mech;
    }
    if (rc == 0 && !explain) /* duplicates the deduplication's TTL lets through */
        sl__dedup_ttl(s, plans, NULL, warnings);
    for (int i = 0; rc == 0 && !explain && i < warnings->n; i++)
        sl__notice(out, SL_SEV_WARNING, "%s", (const char *)warnings->items[i]);
    sl_list_free(warnings, sl_free);
    return rc;
}

sl_list *sl__job_dir_names(const char *jobs)
{
    sl_list *names = sl_list_new();
    DIR *d = opendir(jobs);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            sl_list_push(names, sl_strdup(de->d_name));
    if (d)
        closedir(d);
    if (names->n > 1)
        qsort(names->items, (size_t)names->n, sizeof(void *), sl__strcmp_v);
    return names;
}

int sl__job_record_read(const char *path, json_t **out, sl_error *err)
{
    *out = NULL;
    if (!sl_fs_exists(path))
        return 0;
    char *text = NULL;
    size_t len = 0;
    if (sl_fs_read_file(path, &text, &len, err) != 0)
        return -1;
    int sum = sl_checksum_verify(text, len);
    json_error_t jerr;
    json_t *o = sum != 0 ? json_loadb(text, len, 0, &jerr) : NULL;
    sl_free(text);
    json_t *ver = json_object_get(o, "version");
    const char *why = sum == 0                                ? "its checksum does not match"
                      : !json_is_object(o)                    ? "it is not a JSON object"
                      : !json_is_string(json_object_get(o, "name")) ||
                              !json_is_string(json_object_get(o, "status"))
                          ? "it lacks the job's name or status"
                      : (ver != NULL) != (sum == 1) ? "it lacks its version or checksum"
                      : ver && (!json_is_integer(ver) ||
                                json_integer_value(ver) != SL__JOB_RECORD_VERSION)
                          ? "it has an unknown version"
                          : NULL;
    if (why) {
        json_decref(o);
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "job record \"%s\" is damaged", path);
        sl_error_detail(err, "It cannot be used: %s.", why);
        return -1;
    }
    *out = o;
    return 0;
}

/* Write jobs/<name>/_job.json (atomically): what SHOW JOBS reports once a
** job is not running (while it runs, the registry's live counters). A record
** still RUNNING when no job of the engine runs means its process died: only
** one process can use a data directory. Best effort: a failure to write the
** record is logged, never fails the job. Called from the job's thread. */
static void sl__job_record(const sl__job *job, const char *status, const sl_job_stats *stats,
                           const sl_error *failure)
{
    const char *data_dir = job->eng->data_dir, *name = job->name, *sink = job->sink;
    const char *guarantee = job->guarantee, *guarantees = job->guarantees;
    char *dir = sl_chk_job_dir(data_dir, name);
    char *path = sl_path_join(dir, "_job.json");
    sl_error err = SL_ERROR_INIT;
    int bad = 0; /* a Jansson call failed: the record is not written without a field */
    json_t *o = json_object();
    bad |= json_object_set_new(o, "version", json_integer(SL__JOB_RECORD_VERSION));
    bad |= json_object_set_new(o, "name", json_string(name));
    bad |= json_object_set_new(o, "status", json_string(status));
    bad |= json_object_set_new(o, "time", json_integer(sl_now_nanos()));
    bad |= json_object_set_new(o, "sink", json_string(sink));
    bad |= json_object_set_new(o, "statement_hash", json_string(job->stmt_hash));
    bad |= json_object_set_new(o, "guarantee", json_string(guarantee ? guarantee : "none"));
    if (guarantees)
        bad |= json_object_set_new(o, "guarantees", json_string(guarantees));
    /* Where its exactly-once sinks write, and the savepoint it started
    ** from: what session_branch.c's rules read. */
    bad |= json_object_set_new(o, "targets", sl__targets_json(job->targets));
    if (job->chk_base) /* where its checkpoints are (session_chkdir.c) */
        bad |= json_object_set_new(o, "checkpoint_dir", json_string(job->chk_base));
    if (job->restore_path) {
        json_t *from = json_object();
        /* the home of the job that took it (its record), wherever the
        ** checkpoint itself is (session_chkdir.c) */
        char *d = sl__savepoint_home(job->eng, job->restore_path);
        bad |= json_object_set_new(from, "path", json_string(job->restore_path));
        bad |= json_object_set_new(from, "dir", json_string(d));
        json_t *rec = NULL;
        char *rp = sl_path_join(d, "_job.json");
        json_error_t jerr;
        if (sl_fs_exists(rp))
            rec = json_load_file(rp, 0, &jerr);
        const char *from_name = rec ? json_string_value(json_object_get(rec, "name")) : NULL;
        if (from_name)
            bad |= json_object_set_new(from, "job", json_string(from_name));
        json_decref(rec);
        sl_free(rp);
        sl_free(d);
        bad |= json_object_set_new(from, "mode", json_string(job->claim ? "claim" : "no_claim"));
        bad |= json_object_set_new(o, "from", from);
    }
    bad |= json_object_set_new(o, "restarts", json_integer(stats ? stats->restarts : job->restarts));
    /* What DESCRIBE JOB shows (sl_engine_job_json). */
    if (job->statement)
        bad |= json_object_set_new(o, "statement", json_string(job->statement));
    if (job->plan)
        bad |= json_object_set_new(o, "plan", json_string(job->plan));
    if (job->late_table)
        bad |= json_object_set_new(o, "late_rows_table", json_string(job->late_table));
    bad |= json_object_set_new(o, "started", json_integer(job->started_ns));
    pthread_mutex_lock(&job->eng->mu);
    json_t *chks = job->chk_hist ? json_deep_copy(job->chk_hist) : json_array();
    json_t *fails = job->fail_hist ? json_deep_copy(job->fail_hist) : json_array();
    pthread_mutex_unlock(&job->eng->mu);
    bad |= json_object_set_new(o, "checkpoints", chks);
    bad |= json_object_set_new(o, "failures", fails);
    if (failure && sl_error_isset(failure)) {
        json_t *e = json_object();
        bad |= json_object_set_new(e, "sqlstate", json_string(failure->sqlstate));
        bad |= json_object_set_new(e, "message", json_string(failure->message));
        bad |= json_object_set_new(o, "error", e);
    }
    /* A job that runs, or that the engine's shutdown stopped, starts again
    ** by itself at the next start (sl_engine_resume_jobs); STOP JOB, an
    ** end or a failure leave it ended. */
    pthread_mutex_lock(&job->eng->mu);
    bool again = job->resume_next;
    pthread_mutex_unlock(&job->eng->mu);
    if (job->resume && (strcmp(status, "RUNNING") == 0 || (strcmp(status, "STOPPED") == 0 && again)))
        bad |= json_object_set(o, "resume", job->resume);
    if (stats) {
        bad |= json_object_set_new(o, "last_checkpoint", json_integer(stats->last_checkpoint));
        /* Over the job's life (kept in its checkpoints). */
        bad |= json_object_set_new(o, "rows_in", json_integer(stats->life_rows_in));
        bad |= json_object_set_new(o, "rows_out", json_integer(stats->life_rows_out));
        bad |= json_object_set_new(o, "rows_late", json_integer(stats->life_rows_late));
        bad |= json_object_set_new(o, "rows_skipped", json_integer(stats->life_rows_skipped));
        bad |= json_object_set_new(o, "conflicts", json_integer(stats->life_conflicts));
        if (stats->warning[0])
            bad |= json_object_set_new(o, "warning", json_string(stats->warning));
    }
    bad |= json_object_set_new(o, SL_CHECKSUM_KEY, json_string(SL_CHECKSUM_ZERO));
    char *text = bad ? NULL : json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text || sl_checksum_embed(text, strlen(text)) != 0)
        sl_error_set(&err, SL_ERR_INTERNAL, -1, "a value is not valid UTF-8, or memory ran out");
    if (!text || sl_error_isset(&err) || sl_fs_mkdir_p(dir, &err) != 0 ||
        sl_fs_write_atomic(path, text, strlen(text), &err) != 0)
        sl_log(SL_LOG_WARN, "could not write the record of job \"%s\": %s", name, err.message);
    sl_error_reset(&err);
    free(text);
    sl_free(path);
    sl_free(dir);
}

/* ------------------------------------------------------------------------
** The job registry
*/

static void sl__job_free(sl__job *job)
{
    sl_physical_free(job->phys);
    sl_list_free(job->plans, sl__lp_free_v);
    sl_catalog_close(job->cat);
    sl_error_reset(&job->error);
    sl_free(job->name);
    sl_free(job->sink);
    sl_free(job->guarantee);
    sl_free(job->guarantees);
    sl_free(job->restore_path);
    sl_free(job->chk_base);
    sl_kvlist_free(job->storage_opts);
    sl_list_free(job->targets, sl_free);
    sl_free(job->origin);
    sl_list_free(job->target_tables, sl_free);
    json_decref(job->resume);
    sl_free(job->statement);
    sl_free(job->late_table);
    sl_free(job->plan);
    json_decref(job->chk_hist);
    json_decref(job->fail_hist);
    sl_free(job);
}

/* Drop a reference; call with the engine's mutex held. */
static void sl__job_unref(sl__job *job)
{
    if (--job->refs == 0)
        sl__job_free(job);
}

/* Remove job from the registry (its reference goes); mutex held. */
static void sl__job_unlist(sl_engine *eng, sl__job *job)
{
    for (int i = 0; i < eng->jobs->n; i++) {
        if (eng->jobs->items[i] == job) {
            memmove(&eng->jobs->items[i], &eng->jobs->items[i + 1],
                    (size_t)(eng->jobs->n - i - 1) * sizeof(void *));
            eng->jobs->n--;
            sl__job_unref(job);
            return;
        }
    }
}

/* Join the threads of background jobs that ended and drop them from the
** registry; mutex held. An ended job's thread does nothing after it set its
** state, so the join is immediate. */
static void sl__reap(sl_engine *eng)
{
    for (int i = 0; i < eng->jobs->n;) {
        sl__job *job = eng->jobs->items[i];
        if (job->background && job->state != SL__JOB_RUNNING) {
            pthread_join(job->thread, NULL);
            sl__job_unlist(eng, job);
        } else {
            i++;
        }
    }
}

/* The running job called name; mutex held. */
static sl__job *sl__job_running(sl_engine *eng, const char *name)
{
    for (int i = 0; i < eng->jobs->n; i++) {
        sl__job *job = eng->jobs->items[i];
        if (job->state == SL__JOB_RUNNING && strcmp(job->name, name) == 0)
            return job;
    }
    return NULL;
}

bool sl__job_is_running_locked(sl_engine *eng, const char *name)
{
    sl__reap(eng);
    return sl__job_running(eng, name) != NULL;
}

bool sl__job_is_running(sl_engine *eng, const char *name)
{
    pthread_mutex_lock(&eng->mu);
    bool running = sl__job_running(eng, name) != NULL;
    pthread_mutex_unlock(&eng->mu);
    return running;
}

json_t *sl__job_live_json(sl_engine *eng, const char *name)
{
    pthread_mutex_lock(&eng->mu);
    sl__job *job = sl__job_running(eng, name);
    json_t *o = NULL;
    if (job) {
        const sl_job_stats *st = &job->stats;
        o = json_object();
        json_object_set_new(o, "status", json_string("RUNNING"));
        json_object_set_new(o, "started", json_integer(job->started_ns));
        json_object_set_new(o, "rate", json_real(job->rate));
        json_object_set_new(o, "last_checkpoint", json_integer(st->last_checkpoint));
        json_object_set_new(o, "rows_in", json_integer(st->life_rows_in));
        json_object_set_new(o, "rows_out", json_integer(st->life_rows_out));
        json_object_set_new(o, "rows_late", json_integer(st->life_rows_late));
        json_object_set_new(o, "rows_skipped", json_integer(st->life_rows_skipped));
        json_object_set_new(o, "restarts", json_integer(st->restarts));
        json_object_set_new(o, "conflicts", json_integer(st->life_conflicts));
        json_object_set_new(o, "checkpoints",
                            job->chk_hist ? json_deep_copy(job->chk_hist) : json_array());
        json_object_set_new(o, "failures",
                            job->fail_hist ? json_deep_copy(job->fail_hist) : json_array());
        if (st->open_txns[0])
            json_object_set_new(o, "open_transactions", json_string(st->open_txns));
    }
    pthread_mutex_unlock(&eng->mu);
    return o;
}

/* Live counters of the running job called name (for SHOW JOBS). */
bool sl__job_live(sl_engine *eng, const char *name, sl_job_stats *stats)
{
    pthread_mutex_lock(&eng->mu);
    sl__job *job = sl__job_running(eng, name);
    if (job)
        *stats = job->stats;
    pthread_mutex_unlock(&eng->mu);
    return job != NULL;
}

/* A message of a background job, to the engine's log. */
/* A message to the engine's log function fn (NULL: stderr). */
static void sl__log_to(sl_engine_log_fn fn, void *ctx, const sl_error *msg)
{
    if (fn)
        fn(ctx, msg);
    else
        sl_log(msg->severity == SL_SEV_ERROR     ? SL_LOG_ERROR
               : msg->severity == SL_SEV_WARNING ? SL_LOG_WARN
                                                 : SL_LOG_INFO,
               "%s", msg->message);
}

static void sl__log(sl_engine *eng, const sl_error *msg)
{
    pthread_mutex_lock(&eng->mu);
    sl_engine_log_fn fn = eng->log;
    void *ctx = eng->log_ctx;
    pthread_mutex_unlock(&eng->mu);
    sl__log_to(fn, ctx, msg);
}

/* A notice or warning (sev) as a message of its own; caller frees. */
static sl_error *sl__msg_new(sl_severity sev, const char *fmt, ...) SL_PRINTF(2, 3);
static sl_error *sl__msg_new(sl_severity sev, const char *fmt, ...)
{
    sl_error *n = sl_calloc(1, sizeof *n);
    *n = (sl_error)SL_ERROR_INIT;
    n->severity = sev;
    snprintf(n->sqlstate, sizeof n->sqlstate, "%s",
             sev == SL_SEV_WARNING ? SL_ERR_WARNING : SL_ERR_SUCCESS);
    va_list ap;
    va_start(ap, fmt);
    n->message = sl_vsprintf(fmt, ap);
    va_end(ap);
    return n;
}

static void sl__msg_free(void *p)
{
    sl_error_reset(p);
    sl_free(p);
}

static void sl__logf(sl_engine *eng, sl_severity sev, const char *fmt, ...) SL_PRINTF(3, 4);
static void sl__logf(sl_engine *eng, sl_severity sev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = sl_vsprintf(fmt, ap);
    va_end(ap);
    sl_error *n = sl__msg_new(sev, "%s", text);
    sl_free(text);
    sl__log(eng, n);
    sl__msg_free(n);
}

/* The warnings a run leaves: to the statement's output, or (said set, a
** background job) onto that list of messages for the log. */
static void sl__run_warnings(const sl_job_stats *stats, const sl_result_sink *out, sl_list *said,
                             const char *name)
{
    char msg[3][128];
    int n = 0;
    if (stats->rows_skipped > 0)
        snprintf(msg[n++], sizeof msg[0], "%lld malformed record%s skipped",
                 (long long)stats->rows_skipped, stats->rows_skipped == 1 ? " was" : "s were");
    if (stats->rows_late > 0)
        snprintf(msg[n++], sizeof msg[0],
                 "%lld row%s later than the watermark and %s dropped", (long long)stats->rows_late,
                 stats->rows_late == 1 ? " arrived" : "s arrived",
                 stats->rows_late == 1 ? "was" : "were");
    if (stats->conflicts > 0)
        snprintf(msg[n++], sizeof msg[0],
                 "%lld conflicting duplicate%s kept out of the sink (a key's later row "
                 "with other values)",
                 (long long)stats->conflicts, stats->conflicts == 1 ? " was" : "s were");
    for (int i = 0; i < n; i++) {
        if (said)
            sl_list_push(said, sl__msg_new(SL_SEV_WARNING, "job \"%s\": %s", name, msg[i]));
        else
            sl__notice(out, SL_SEV_WARNING, "%s", msg[i]);
    }
}

/* sl_job_spec.should_stop: STOP JOB or the engine's shutdown; for a
** synchronous job also the statement's cancellation (Ctrl-C, SIGTERM),
** which keeps a savepoint. */
static int sl__job_should_stop(void *ctx, bool *savepoint)
{
    sl__job *job = ctx;
    pthread_mutex_lock(&job->eng->mu);
    bool stop = job->stop;
    *savepoint = job->savepoint;
    pthread_mutex_unlock(&job->eng->mu);
    if (!stop && job->run && sl__run_interrupted(job->run)) {
        stop = true;
        *savepoint = true;
    }
    return stop;
}

/* sl_job_spec.notice: to the statement, or (background) to the log. */
static void sl__job_notice(void *ctx, const char *message)
{
    sl__job *job = ctx;
    if (job->run)
        sl__notice(job->run->out, SL_SEV_NOTICE, "%s", message);
    else
        sl__logf(job->eng, SL_SEV_NOTICE, "%s", message);
}

/* Append v to the history array *a (created when NULL), keeping the newest max. */
static void sl__hist_push(json_t **a, json_t *v, size_t max)
{
    if (!*a)
        *a = json_array();
    json_array_append_new(*a, v);
    while (json_array_size(*a) > max)
        json_array_remove(*a, 0);
}

/* sl_job_spec.progress: the live counters SHOW JOBS reports, each new
** checkpoint into the history (its size on disk), the recent rate. */
static void sl__job_progress(void *ctx, const sl_job_stats *stats)
{
    sl__job *job = ctx;
    int64_t now = sl_now_nanos();
    /* A checkpoint newer than the history's newest (not the one a run
    ** restored from, which an earlier run put there). */
    pthread_mutex_lock(&job->eng->mu);
    json_t *newest = json_array_get(job->chk_hist, json_array_size(job->chk_hist) - 1);
    int64_t known = newest ? json_integer_value(json_object_get(newest, "epoch")) : -1;
    bool new_chk = stats->last_checkpoint > known && stats->last_checkpoint != stats->restored_from;
    pthread_mutex_unlock(&job->eng->mu);
    int64_t bytes = new_chk ? stats->last_checkpoint_bytes : 0;
    pthread_mutex_lock(&job->eng->mu);
    bool warn = stats->warning[0] && strcmp(stats->warning, job->stats.warning) != 0;
    job->stats = *stats;
    job->stats.restarts = job->restarts;
    if (new_chk) {
        json_t *c = json_object();
        json_object_set_new(c, "epoch", json_integer(stats->last_checkpoint));
        json_object_set_new(c, "time", json_integer(now));
        json_object_set_new(c, "duration_ms", json_integer(stats->last_checkpoint_ms));
        json_object_set_new(c, "bytes", json_integer(bytes));
        sl__hist_push(&job->chk_hist, c, SL__CHK_HISTORY);
    }
    if (job->rate_ns == 0 || stats->rows_in < job->rate_rows) { /* first, or a restart */
        job->rate_ns = now;
        job->rate_rows = stats->rows_in;
    } else if (now - job->rate_ns >= 1000 * SL_NANOS_PER_MILLI) {
        job->rate = (double)(stats->rows_in - job->rate_rows) * 1e9 / (double)(now - job->rate_ns);
        job->rate_ns = now;
        job->rate_rows = stats->rows_in;
    }
    json_t *lastc = json_array_get(job->chk_hist, json_array_size(job->chk_hist) - 1);
    sl_job_progress p = {job->name,
                         stats->life_rows_in,
                         stats->life_rows_out,
                         stats->life_rows_late,
                         stats->life_rows_skipped,
                         job->rate,
                         stats->last_checkpoint,
                         json_integer_value(json_object_get(lastc, "time"))};
    pthread_mutex_unlock(&job->eng->mu);
    /* A synchronous job's statement waits in sl_session_exec: its session's
    ** status line (the runtime's thread; the session is not used otherwise). */
    if (job->run && job->run->s->progress)
        job->run->s->progress(job->run->s->progress_ctx, &p);
    if (warn) { /* the stall check's warning, once (as the job's notices go) */
        if (job->run)
            sl__notice(job->run->out, SL_SEV_WARNING, "job \"%s\": %s", job->name,
                       stats->warning);
        else
            sl__logf(job->eng, SL_SEV_WARNING, "job \"%s\": %s", job->name, stats->warning);
    }
}

/* Whether a failure is worth a restart: an outside system failed for now
** (SQLSTATE class 08; 57P01..57P03: a PostgreSQL server shutting down,
** restarting after a crash, or starting up) or rolled a transaction back
** (class 40, which PostgreSQL's clients retry too). Bad input, a fenced
** instance, a refused plan fail the same way again (or must not run twice). */
static bool sl__transient(const sl_error *err)
{
    return (err->sqlstate[0] == '0' && err->sqlstate[1] == '8') ||
           (err->sqlstate[0] == '4' && err->sqlstate[1] == '0') ||
           strcmp(err->sqlstate, "57P01") == 0 || strcmp(err->sqlstate, "57P02") == 0 ||
           strcmp(err->sqlstate, "57P03") == 0;
}

/* sl_job_run under the restart strategy: after a transient failure the job
** starts again from its newest decided checkpoint, up to restart_attempts
** times, each after restart_delay_ms (a stop request ends the wait). */
static int sl__job_run_restarting(sl__job *job, sl_job_stats *stats, sl_error *err)
{
    sl_job_spec *spec = sl_physical_spec(job->phys);
    for (int attempt = 0;; attempt++) {
        int rc = sl_job_run(spec, stats, err);
        sl__scrub_secrets(job->cat, NULL, err); /* it goes to notices, the log, the caller */
        stats->restarts = job->restarts; /* only this thread changes it */
        if (rc == 0 || !sl__transient(err) || attempt >= job->restart_attempts)
            return rc;
        char *msg = sl_sprintf("job \"%s\" failed: %s; restarting it from its last checkpoint "
                               "in %lld ms (restart %d of at most %d)",
                               job->name, err->message, (long long)job->restart_delay_ms,
                               attempt + 1, job->restart_attempts);
        sl__job_notice(job, msg);
        sl_free(msg);
        json_t *f = json_object();
        json_object_set_new(f, "time", json_integer(sl_now_nanos()));
        json_object_set_new(f, "sqlstate", json_string(err->sqlstate));
        json_object_set_new(f, "message", json_string(err->message));
        pthread_mutex_lock(&job->eng->mu);
        sl__hist_push(&job->fail_hist, f, SL__FAIL_HISTORY);
        job->restarts++;
        pthread_mutex_unlock(&job->eng->mu);
        for (int64_t waited = 0; waited < job->restart_delay_ms; waited += 50) {
            bool sp;
            if (sl__job_should_stop(job, &sp))
                return rc; /* stopped while down: the failure stands */
            sl_sleep_nanos(50 * SL_NANOS_PER_MILLI);
        }
        sl_error_reset(err);
    }
}

/* Run the job to its end (in the caller's thread or its own), write its
** record, publish the end in the registry, then report a background job's
** end to the log: after the publication the thread touches neither the
** job nor the engine's mutex (the reaper may hold it while joining). */
static void sl__job_main(sl__job *job)
{
    sl_engine *eng = job->eng;
    sl_job_stats stats;
    memset(&stats, 0, sizeof stats);
    stats.last_checkpoint = -1;
    stats.restored_from = -1;
    sl_error err = SL_ERROR_INIT;
    int rc = sl__job_run_restarting(job, &stats, &err);
    if (rc != 0) { /* the counters of a failed run: the last live ones */
        pthread_mutex_lock(&eng->mu);
        stats = job->stats;
        pthread_mutex_unlock(&eng->mu);
        if (!sl_error_isset(&err))
            sl_error_set(&err, SL_ERR_INTERNAL, -1, "the job failed without an error message");
    }
    sl__job_state state = rc != 0        ? SL__JOB_FAILED
                          : stats.finished ? SL__JOB_FINISHED
                                           : SL__JOB_STOPPED;
    sl__job_record(job, sl__job_state_names[state], &stats, rc != 0 ? &err : NULL);
    /* What a background job's end says in the log, said once the end is
    ** published: whoever reads the message and asks (SHOW JOBS) sees the
    ** job ended. (The log function is taken before: once the end is
    ** published, the reaper may hold the mutex while it joins this thread.) */
    sl_list *said = sl_list_new(); /* sl_error* */
    if (job->background && rc != 0) {
        sl_error *msg = sl_calloc(1, sizeof *msg);
        *msg = (sl_error)SL_ERROR_INIT;
        sl_error_copy(msg, &err);
        sl_free(msg->message);
        msg->message = sl_sprintf("job \"%s\" failed: %s", job->name, err.message);
        msg->position = -1; /* a position in a statement that is gone */
        sl_list_push(said, msg);
    } else if (job->background) {
        sl__run_warnings(&stats, NULL, said, job->name);
        if (state == SL__JOB_FINISHED) /* what INSERT 0 <n> says of a synchronous job */
            sl_list_push(said, sl__msg_new(SL_SEV_NOTICE, "job \"%s\" finished: %lld rows written",
                                           job->name, (long long)stats.rows_out));
    }
    pthread_mutex_lock(&eng->mu);
    sl_engine_log_fn fn = eng->log;
    void *ctx = eng->log_ctx;
    job->state = state;
    job->stats = stats;
    sl_error_move(&job->error, &err);
    pthread_cond_broadcast(&eng->job_ended);
    pthread_mutex_unlock(&eng->mu);
    for (int i = 0; i < said->n; i++)
        sl__log_to(fn, ctx, said->items[i]);
    sl_list_free(said, sl__msg_free);
}

static void *sl__job_thread(void *arg)
{
    sl__job_main(arg);
    return NULL;
}

int sl_engine_running_jobs(sl_engine *eng)
{
    pthread_mutex_lock(&eng->mu);
    sl__reap(eng);
    int n = 0;
    for (int i = 0; i < eng->jobs->n; i++) {
        const sl__job *job = eng->jobs->items[i];
        n += job->background && job->state == SL__JOB_RUNNING;
    }
    pthread_mutex_unlock(&eng->mu);
    return n;
}

int sl_engine_wait_jobs(sl_engine *eng, volatile sig_atomic_t *interrupt)
{
    pthread_mutex_lock(&eng->mu);
    int rc = 0;
    for (;;) {
        sl__reap(eng);
        bool running = false;
        for (int i = 0; i < eng->jobs->n && !running; i++) {
            sl__job *job = eng->jobs->items[i];
            running = job->background && job->state == SL__JOB_RUNNING;
        }
        if (!running)
            break;
        if (interrupt && *interrupt) {
            rc = 1;
            break;
        }
        /* A signal handler cannot signal the condition: look at the flag
        ** every 50 ms. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&eng->job_ended, &eng->mu, &until);
    }
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

void sl_session_set_progress(sl_session *s, sl_job_progress_fn fn, void *ctx)
{
    s->progress = fn;
    s->progress_ctx = ctx;
}

void sl_engine_stop_jobs(sl_engine *eng)
{
    pthread_mutex_lock(&eng->mu);
    for (int i = 0; i < eng->jobs->n; i++) {
        sl__job *job = eng->jobs->items[i];
        /* Not one that STOP JOB is stopping already. */
        job->resume_next = job->state == SL__JOB_RUNNING && job->background && !job->stop;
        job->stop = true;
        job->savepoint = true;
    }
    for (;;) {
        sl__reap(eng);
        bool running = false;
        for (int i = 0; i < eng->jobs->n && !running; i++)
            running = ((sl__job *)eng->jobs->items[i])->state == SL__JOB_RUNNING;
        if (!running)
            break;
        pthread_cond_wait(&eng->job_ended, &eng->mu);
    }
    pthread_mutex_unlock(&eng->mu);
}

/* Check 'execution.savepoint.path' before a job starts from it, so that a
** wrong path fails the INSERT rather than the background job. */
static int sl__check_savepoint(const char *path, const sl_kvlist *opts, sl_error *err)
{
    sl_chk_store *st = NULL;
    int64_t id = -1;
    if (sl_chk_open_path(path, opts, &st, &id, err) != 0) {
        if (!err->hint)
            sl_error_hint(err, "It comes from SET 'execution.savepoint.path'; RESET it to start "
                               "without a savepoint.");
        return -1;
    }
    sl_chk_close(st);
    return 0;
}

/* Register job under its name (55006 when a job of that name runs) and
** write its RUNNING record. The registry takes job; on error it is freed. */
/* The i-th transactional id prefix job's participants write with (over
** all of them, their sinks in order), or NULL past the last. */
static const char *sl__job_txn_prefix(const sl__job *job, int i)
{
    const sl_job_spec *spec = sl_physical_spec(job->phys);
    for (int p = 0; p < spec->nparticipants; p++) {
        const sl_participant_args *a = &spec->participants[p].args;
        if (i >= a->nsinks) {
            i -= a->nsinks;
            continue;
        }
        const sl_table *t = sl_catalog_table(job->cat, a->tables[i]);
        const char *key = t && t->connector ? t->connector->caps.txn_prefix_option : NULL;
        const char *v = key ? sl_kvlist_get(a->options[i], key) : NULL;
        return v ? v : "";
    }
    return NULL;
}

/* A prefix job writes with that a running job other writes with too, or NULL. */
static const char *sl__job_shared_prefix(const sl__job *job, const sl__job *other)
{
    if (other->state != SL__JOB_RUNNING)
        return NULL;
    const char *a, *b;
    for (int i = 0; (a = sl__job_txn_prefix(job, i)) != NULL; i++)
        for (int k = 0; *a && (b = sl__job_txn_prefix(other, k)) != NULL; k++)
            if (strcmp(a, b) == 0)
                return a;
    return NULL;
}

static int sl__job_register(sl__job *job, sl_error *err)
{
    sl_engine *eng = job->eng;
    pthread_mutex_lock(&eng->mu);
    sl__reap(eng);
    if (sl__job_dropped_check(eng, job->name, err) != 0) { /* under the mutex, as DROP JOB */
        pthread_mutex_unlock(&eng->mu);
        sl__job_free(job);
        return -1;
    }
    /* Two jobs writing with one transactional id prefix would fence each
    ** other: the one started second would stop the first. */
    for (int i = 0; i < eng->jobs->n; i++) {
        sl__job *other = eng->jobs->items[i];
        const char *prefix = sl__job_shared_prefix(job, other);
        if (!prefix)
            continue;
        pthread_mutex_unlock(&eng->mu);
        sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                     "transactional id prefix '%s' is in use by running job \"%s\"", prefix,
                     other->name);
        sl_error_detail(err, "Two jobs writing exactly-once with one prefix fence each other: "
                             "starting this one would stop that one.");
        sl_error_hint(err, "Write into a table with its own transactional id prefix, or STOP "
                           "JOB '%s' first.",
                      other->name);
        sl__job_free(job);
        return -1;
    }
    if (sl__job_running(eng, job->name)) {
        pthread_mutex_unlock(&eng->mu);
        sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1, "job \"%s\" is already running", job->name);
        sl_error_detail(err, "A job's name is its identity: its checkpoints live in "
                             "jobs/%s/ of the data directory.", job->name);
        sl_error_hint(err, "SET 'pipeline.name' to run it under another name, or STOP JOB '%s' "
                           "first.", job->name);
        sl__job_free(job);
        return -1;
    }
    job->refs = 1;
    job->state = SL__JOB_RUNNING;
    sl_list_push(eng->jobs, job);
    pthread_mutex_unlock(&eng->mu);
    /* Restarts are counted over the job's life: its last run died (its
    ** record still RUNNING) or failed, and this run starts it again. */
    char *dir = sl_chk_job_dir(eng->data_dir, job->name);
    char *path = sl_path_join(dir, "_job.json");
    json_error_t jerr;
    json_t *old = sl_fs_exists(path) ? json_load_file(path, 0, &jerr) : NULL;
    const char *status = json_string_value(json_object_get(old, "status"));
    int64_t restarts = json_is_integer(json_object_get(old, "restarts"))
                           ? json_integer_value(json_object_get(old, "restarts"))
                           : 0;
    if (status && (strcmp(status, "RUNNING") == 0 || strcmp(status, "FAILED") == 0))
        restarts++;
    /* The history goes on from the job's earlier runs (not a dropped job's). */
    bool dropped = status && strcmp(status, "DROPPED") == 0;
    json_t *chks = json_is_array(json_object_get(old, "checkpoints")) && !dropped
                       ? json_deep_copy(json_object_get(old, "checkpoints"))
                       : NULL;
    json_t *fails = json_is_array(json_object_get(old, "failures")) && !dropped
                        ? json_deep_copy(json_object_get(old, "failures"))
                        : NULL;
    json_decref(old);
    sl_free(path);
    sl_free(dir);
    pthread_mutex_lock(&eng->mu);
    job->restarts = restarts;
    job->stats.restarts = restarts;
    job->chk_hist = chks;
    job->fail_hist = fails;
    pthread_mutex_unlock(&eng->mu);
    sl__job_record(job, "RUNNING", NULL, NULL);
    return 0;
}

/* WARNING when another job (not of this one's line of claims) writes one of
** this job's exactly-once sinks: each is exactly-once on its own, their
** union is not. */
static void sl__shared_warning(const sl__job *job, const sl_result_sink *out)
{
    json_t *targets = sl__targets_json(job->targets);
    char *others = sl__shared_note(job->eng->data_dir, job->name, targets);
    json_decref(targets);
    if (others)
        sl__notice(out, SL_SEV_WARNING,
                   "job \"%s\" writes into an exactly-once sink that job %s writes too: each "
                   "job writes its rows once, but rows both produce are in the sink twice",
                   job->name, others);
    sl_free(others);
}

/* Start a registered background job on its own thread, with every signal
** blocked there (and in the runtime's threads it starts): the caller's
** thread keeps taking the process's signals. */
static int sl__job_spawn(sl__job *job, sl_error *err)
{
    sl_engine *eng = job->eng;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int e = pthread_create(&job->thread, NULL, sl__job_thread, job);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e == 0)
        return 0;
    sl_job_stats none = {.last_checkpoint = -1, .restored_from = -1, .restarts = job->restarts};
    sl__job_record(job, "FAILED", &none, NULL);
    pthread_mutex_lock(&eng->mu);
    job->state = SL__JOB_FAILED;
    job->background = false; /* no thread to join */
    sl__job_unlist(eng, job);
    pthread_mutex_unlock(&eng->mu);
    return sl_error_set(err, SL_ERR_INTERNAL, -1, "could not start a thread for the job: %s",
                        strerror(e));
}

/* A job that is not running: 55000 with the status of its record, or
** 42704 when there is no such job. */
static int sl__not_running(sl_session *s, const sl_stmt *st, sl_error *err)
{
    char *dir = sl_chk_job_dir(s->eng->data_dir, st->name);
    char *path = sl_path_join(dir, "_job.json");
    json_t *o = NULL;
    if (sl__job_record_read(path, &o, err) != 0) { /* damaged: say so, by name */
        sl_free(path);
        sl_free(dir);
        return -1;
    }
    const char *status = o ? json_string_value(json_object_get(o, "status")) : NULL;
    if (status && strcmp(status, "DROPPED") == 0) { /* DROP JOB's tombstone: no job */
        json_decref(o);
        o = NULL;
    }
    if (o) {
        sl_error_set(err, SL_ERR_NOT_IN_STATE, st->name_pos, "job \"%s\" is not running",
                     st->name);
        sl_error_detail(err, "Its status is %s.",
                        !status                           ? "unknown"
                        : strcmp(status, "RUNNING") == 0  ? "INTERRUPTED (its process died)"
                                                          : status);
    } else {
        sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, st->name_pos, "job \"%s\" does not exist",
                     st->name);
        sl_error_hint(err, "SHOW JOBS lists the jobs.");
    }
    json_decref(o);
    sl_free(path);
    sl_free(dir);
    return -1;
}

/* STOP JOB 'name' [WITH SAVEPOINT]: ask the running job to stop (after a
** final checkpoint, kept as a savepoint when asked) and wait until it
** ended. WITH SAVEPOINT returns Flink's one-row table (savepoint_path). */
int sl__stop_job_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                        sl_error *err)
{
    sl_engine *eng = s->eng;
    if (sl_job_name_check(st->name, st->name_pos, err) != 0)
        return -1;
    pthread_mutex_lock(&eng->mu);
    sl__reap(eng);
    sl__job *job = sl__job_running(eng, st->name);
    if (!job) {
        pthread_mutex_unlock(&eng->mu);
        return sl__not_running(s, st, err);
    }
    job->stop = true;
    job->savepoint = st->with_savepoint;
    job->refs++;
    while (job->state == SL__JOB_RUNNING)
        pthread_cond_wait(&eng->job_ended, &eng->mu);
    sl__job_state state = job->state;
    int64_t chk = job->stats.last_checkpoint;
    char *dir = sl_chk_location(eng->data_dir, job->chk_base, st->name);
    sl_error failure = SL_ERROR_INIT;
    sl_error_copy(&failure, &job->error);
    sl__reap(eng); /* a background job: joins its thread */
    sl__job_unref(job);
    pthread_mutex_unlock(&eng->mu);

    if (state == SL__JOB_FAILED || !st->with_savepoint || chk < 0)
        sl_free(dir);
    if (state == SL__JOB_FAILED) {
        sl_error_move(err, &failure);
        char *msg = sl_sprintf("job \"%s\" failed while stopping: %s", st->name, err->message);
        sl_free(err->message);
        err->message = msg;
        err->position = st->name_pos;
        return -1;
    }
    if (!st->with_savepoint) {
        sl__result_complete(out, "STOP JOB");
        return 0;
    }
    if (chk < 0)
        return sl_error_set(err, SL_ERR_INTERNAL, st->name_pos,
                            "job \"%s\" stopped without a checkpoint", st->name);
    char *path = sl_sprintf("%s/chk-%lld", dir, (long long)chk);
    if (state == SL__JOB_FINISHED)
        sl__notice(out, SL_SEV_NOTICE,
                   "job \"%s\" finished before it stopped: its final checkpoint is not a "
                   "savepoint, but a job can start from it all the same",
                   st->name);
    sl__table_out t;
    const char *cols[] = {"savepoint_path"};
    sl__result_begin(&t, out, 1, cols);
    const char *vals[] = {path};
    sl__result_row(&t, vals);
    sl__result_complete(out, "STOP JOB");
    sl_free(path);
    sl_free(dir);
    return 0;
}

/* ------------------------------------------------------------------------
** Running INSERT and queries
*/

/* A query: runs to its end (or LIMIT, or cancellation) into out. */
static int sl__run_query(sl_session *s, sl_physical *phys, sl__run_ctx *run,
                         const sl_result_sink *out, sl_error *err)
{
    sl_job_spec *spec = sl_physical_spec(phys);
    spec->should_stop = sl__query_should_stop;
    spec->stop_ctx = run;
    spec->notice = sl__query_notice;
    spec->notice_ctx = run;
    if (out && out->begin) {
        int n = spec->sink_args.ncols, k = run->with_kind ? 1 : 0;
        const char **names = sl_calloc((size_t)n + 2, sizeof(char *));
        sl_type *types = sl_calloc((size_t)n + 2, sizeof(sl_type));
        names[0] = "op";
        types[0] = sl_type_make_p(SL_TYPE_CHAR, 2, 0);
        for (int i = 0; i < n; i++) {
            names[k + i] = spec->sink_args.names[i];
            types[k + i] = spec->sink_args.types[i];
        }
        if (out->begin(out->ctx, n + k, names, types) != 0)
            atomic_store(&run->cancelled, true);
        sl_free(names);
        sl_free(types);
    }
    sl_job_stats stats;
    if (sl_job_run(spec, &stats, err) != 0)
        return -1;
    int64_t rows = stats.rows_out;
    if (run->rows) /* the final table: insert-only rows (+I in changelog mode) */
        rows = atomic_load(&run->cancelled)
                   ? 0
                   : sl__rows_emit(run->rows, run->with_kind ? "+I" : NULL, out);
    sl__run_warnings(&stats, out, NULL, NULL);
    char tag[64];
    snprintf(tag, sizeof tag, "SELECT %lld", (long long)rows);
    sl__result_complete(out, tag);
    return 0;
}

/* For crash tests at chosen moments (tests/kafka): with
** SLUICE_TEST_PAUSE=<step>:<ms> in the environment, a job pauses for ms
** after each checkpoint step named <step> (sl_job_spec.failpoint's names:
** "decide", "state-sink", ...), having printed "sluice-test: paused after
** <step>" on standard error, so the test can SIGKILL it right there. */
static int sl__test_pause(void *ctx, const char *where)
{
    const char *spec = ctx;
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (strlen(where) != n || strncmp(where, spec, n) != 0)
        return 0;
    fprintf(stderr, "sluice-test: paused after %s\n", where);
    fflush(stderr);
    long ms = colon ? atol(colon + 1) : 1000;
    sl_sleep_nanos(ms * SL_NANOS_PER_MILLI);
    return 0;
}

/* An INSERT: its job runs to its end here ('table.dml-sync' = 'true'), or
** starts in the background. Takes job. */
static int sl__run_insert(sl_session *s, sl__job *job, sl__run_ctx *run,
                          const sl_result_sink *out, sl_error *err)
{
    sl_engine *eng = s->eng;
    sl_job_spec *spec = sl_physical_spec(job->phys);
    spec->restore_path = job->restore_path;
    spec->restore_fork = job->restore_path && job->other_sinks;
    spec->origin = job->origin; /* its participants' decisions are this job's past */
    spec->should_stop = sl__job_should_stop;
    spec->stop_ctx = job;
    spec->notice = sl__job_notice;
    spec->notice_ctx = job;
    spec->progress = sl__job_progress;
    spec->progress_ctx = job;
    /* Stalled event time: a warning after the setting, at least three
    ** checkpoint intervals (a slow checkpoint cadence is not a stall). */
    int64_t stall = sl__duration_ms(s, "table.exec.watermark.stall-warning");
    if (stall > 0 && stall < 3 * spec->checkpoint_interval_ms)
        stall = 3 * spec->checkpoint_interval_ms;
    spec->stall_ms = stall;
    const char *pause = getenv("SLUICE_TEST_PAUSE");
    if (pause && pause[0]) {
        spec->failpoint = sl__test_pause;
        spec->failpoint_ctx = (void *)pause;
    }
    job->run = job->background ? NULL : run;
    job->stats.last_checkpoint = -1;
    job->stats.restored_from = -1;
    if (sl__job_register(job, err) != 0)
        return -1;
    sl__shared_warning(job, out);
    sl_log(SL_LOG_INFO, "job \"%s\" started%s: into %s, %s", job->name,
           job->background ? " in the background" : " (table.dml-sync: its statement waits)",
           job->sink, job->guarantee ? job->guarantee : "no guarantee");
    if (job->background) {
        /* Before the job's own notices ("resumes from checkpoint 7"). */
        sl__notice(out, SL_SEV_NOTICE, "job \"%s\" submitted", job->name);
        if (sl__job_spawn(job, err) != 0)
            return -1;
        sl__result_complete(out, "INSERT 0 0");
        return 0;
    }
    sl__job_main(job);
    /* It ended: take its outcome and drop it from the registry. */
    pthread_mutex_lock(&eng->mu);
    sl__job_state state = job->state;
    sl_job_stats stats = job->stats;
    if (state == SL__JOB_FAILED)
        sl_error_copy(err, &job->error);
    char *name = sl_strdup(job->name);
    char *where = sl_chk_location(eng->data_dir, job->chk_base, name);
    sl__job_unlist(eng, job);
    pthread_mutex_unlock(&eng->mu);
    /* Its notices went to its statement, whose client may be gone: the
    ** log says how it ended too. */
    if (state == SL__JOB_STOPPED && stats.last_checkpoint >= 0) {
        char *dir = where;
        where = NULL;
        sl_log(SL_LOG_INFO, "job \"%s\" stopped with savepoint %s/chk-%lld (its statement was "
               "cancelled)", name, dir, (long long)stats.last_checkpoint);
        sl_free(dir);
    } else if (state == SL__JOB_STOPPED) {
        sl_log(SL_LOG_INFO, "job \"%s\" stopped (its statement was cancelled)", name);
    } else if (state == SL__JOB_FAILED) {
        sl_log(SL_LOG_INFO, "job \"%s\" failed: %s (SQLSTATE %s)", name, err->message,
               err->sqlstate);
    } else {
        sl_log(SL_LOG_INFO, "job \"%s\" finished: %lld rows written", name,
               (long long)stats.rows_out);
    }
    sl_free(where);
    sl_free(name);
    if (state == SL__JOB_FAILED)
        return -1;
    sl__run_warnings(&stats, out, NULL, NULL);
    char tag[64];
    snprintf(tag, sizeof tag, "INSERT 0 %lld", (long long)stats.rows_out);
    sl__result_complete(out, tag);
    return 0;
}

/* The first scan under n of a source that does not end, or NULL. */
static const sl_lp *sl__unbounded_scan(const sl_catalog *cat, const sl_lp *n)
{
    if (!n)
        return NULL;
    if (n->kind == SL_LP_SCAN) {
        if (n->sysrel) /* a catalog relation: its rows now */
            return NULL;
        const sl_table *t = sl_catalog_table(cat, n->table);
        bool bounded = t && sl_connector_source_bounded(t->connector, t->def->options);
        return bounded ? NULL : n;
    }
    const sl_lp *u = sl__unbounded_scan(cat, n->input);
    return u ? u : sl__unbounded_scan(cat, n->right);
}

/* 'execution.runtime-mode': whether plans run in batch mode. 'batch'
** refuses a plan that reads a source without end (as Flink does), naming
** the table; 'automatic' is batch when every source ends. */
int sl__batch_mode(sl_session *s, const sl_list *plans, bool *batch, sl_error *err)
{
    sl__runtime_mode mode = sl__runtime_mode_of(s);
    *batch = mode != SL__RUNTIME_STREAMING;
    for (int i = 0; *batch && i < plans->n; i++) {
        const sl_lp *scan = sl__unbounded_scan(sl__cat(s), plans->items[i]);
        if (!scan)
            continue;
        *batch = false;
        if (mode == SL__RUNTIME_AUTOMATIC)
            return 0;
        const sl_table *t = sl_catalog_table(sl__cat(s), scan->table);
        const sl_connector *c = t ? t->connector : NULL;
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, scan->pos,
                     "querying unbounded table \"%s\" in batch mode is not allowed", scan->table);
        if (c && c->caps.source_bound_option && c->caps.source_bound == SL_BOUND_IF_SET) {
            sl_error_detail(err, "A '%s' table is unbounded unless its option '%s' is set.",
                            c->name, c->caps.source_bound_option);
            sl_error_hint(err, "Set '%s' on the table, or SET 'execution.runtime-mode' = "
                               "'streaming'.", c->caps.source_bound_option);
        } else if (c && c->caps.source_bound_option && c->caps.source_bound == SL_BOUND_UNLESS_SET) {
            sl_error_detail(err, "A '%s' table with option '%s' is unbounded.", c->name,
                            c->caps.source_bound_option);
            sl_error_hint(err, "Remove '%s' from the table, or SET 'execution.runtime-mode' = "
                               "'streaming'.", c->caps.source_bound_option);
        } else {
            if (c)
                sl_error_detail(err, "A '%s' table is always unbounded.", c->name);
            sl_error_hint(err, "SET 'execution.runtime-mode' = 'streaming' to read it.");
        }
        return -1;
    }
    return 0;
}

int sl__run_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    sl_list *plans = sl_list_new();
    int rc = sl__plan(s, st, plans, err);
    if (rc == 0 && st->kind == SL_STMT_QUERY && sl_lp_reads_sysrel(plans->items[0])) {
        /* PostgreSQL's catalog relations: the bounded query path (bounded.c) */
        rc = sl_bounded_run(s, plans->items[0], out, err);
        sl_list_free(plans, sl__lp_free_v);
        return rc;
    }
    bool batch = false; /* 'execution.runtime-mode', before anything else is decided */
    if (rc == 0)
        rc = sl__batch_mode(s, plans, &batch, err);
    s->result_bounded = rc == 0 && st->kind == SL_STMT_QUERY &&
                        !sl__unbounded_scan(sl__cat(s), plans->items[0]);
    int64_t interval_ms = sl__duration_ms(s, "execution.checkpointing.interval");
    sl__gplan g;
    memset(&g, 0, sizeof g);
    if (rc == 0)
        rc = sl__resolve(s, plans, false, &g, out, err);
    char *effective = NULL; /* of every sink, for SHOW JOBS */
    if (g.res && g.job.nsinks == 1) {
        effective = sl_guarantee_summary(&g.res[0]);
    } else if (g.res && g.job.nsinks > 1) {
        sl_strbuf sb = SL_STRBUF_INIT;
        for (int i = 0; i < g.job.nsinks; i++) {
            char *one = sl_guarantee_summary(&g.res[i]);
            sl_strbuf_appendf(&sb, "%s%s: %s", i ? ", " : "", g.sinks[i].table, one);
            sl_free(one);
        }
        effective = sl_strbuf_detach(&sb);
    }
    /* Each sink runs what was decided for it (by root; queries have none). */
    sl_guarantee *decided = sl_calloc((size_t)plans->n + 1, sizeof(sl_guarantee));
    sl_sink_mechanism *mechs = sl_calloc((size_t)plans->n + 1, sizeof(sl_sink_mechanism));
    for (int i = 0, k = 0; g.res && i < plans->n && k < g.job.nsinks; i++) {
        const sl_lp *root = plans->items[i]; /* the roots sl__resolve took, in order */
        const sl_table *t = root->kind == SL_LP_SINK ? sl_catalog_table(sl__cat(s), root->table)
                                                     : NULL;
        if (t && t->connector) {
            mechs[i] = g.res[k].mech;
            decided[i] = g.res[k++].effective;
        }
    }
    char *guarantees = NULL; /* the whole decision: the job's log and record */
    if (rc == 0 && g.job.nsinks > 0) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_guarantee_explain(&sb, &g.job, g.res);
        sl_log(SL_LOG_INFO, "guarantees of the job:\n%s", sl_strbuf_cstr(&sb));
        guarantees = sl_strbuf_detach(&sb);
    }
    sl_side_table sides[SL_SIDE_MAX]; /* the side tables, with what was decided for them */
    int nsides = g.nside;
    memcpy(sides, g.sides, sizeof sides);
    sl__gplan_free(&g);
    int parallelism = 1;
    if (rc == 0)
        rc = sl__parallelism(s, &parallelism, err);
    bool query = st->kind == SL_STMT_QUERY;
    const char *restore = query ? NULL : sl__setting_set(s, "execution.savepoint.path");
    if (rc == 0 && restore)
        rc = sl__check_savepoint(restore, s->config, err);
    sl__result_mode result_mode = sl__result_mode_of(s);
    sl_tz *tz = NULL; /* the zone the job runs with, resolved now */
    if (rc == 0)
        rc = sl__time_zone(s, &tz, err);
    if (rc != 0) {
        sl_free(decided);
        sl_free(mechs);
        sl_free(effective);
        sl_free(guarantees);
        sl_list_free(plans, sl__lp_free_v);
        return -1;
    }

    /* What the job reads while it runs is its own: the plans, the physical
    ** plan and a snapshot of the catalog they point into. */
    char stmt_hex[17];
    char *name = sl__job_name(s, st, stmt_hex);
    bool reused = !query && sl__setting_set(s, "pipeline.name") &&
                  sl__job_name_reused(s, name, stmt_hex, err) != 0;
    sl_list *tables = sl_list_new(), *targets = sl_list_new();
    if (!query)
        sl__sink_targets(sl__cat(s), plans, decided, tables, targets);
    sl__branch b = {name, restore,
                    sl_strcasecmp(sl__setting(s, "execution.savepoint-restore-mode"),
                                  "no_claim") != 0,
                    tables, targets, NULL, s->config, false};
    char *chk_base = NULL;
    if (!query && (reused || sl_job_name_check(name, -1, err) != 0 ||
                   sl__chk_start_check(s, name, sl__state_backend(s).rocksdb, &chk_base,
                                       err) != 0 ||
                   sl__branch_check(s->eng, &b, err) != 0)) {
        sl_free(chk_base);
        sl_tz_free(tz);
        sl_free(b.origin);
        sl_list_free(tables, sl_free);
        sl_list_free(targets, sl_free);
        sl_free(name);
        sl_free(decided);
        sl_free(mechs);
        sl_free(effective);
        sl_free(guarantees);
        sl_list_free(plans, sl__lp_free_v);
        return -1;
    }
    sl_catalog *cat = sl_catalog_snapshot(sl__cat(s));
    sl__run_ctx run = {.s = s, .out = out};
    pthread_mutex_init(&run.mu, NULL);
    atomic_init(&run.cancelled, false);
    const sl_lp *top = plans->items[0];
    bool updating = query && top->changelog != SL_CL_INSERT;
    /* Result modes: tableau shows the op column of an updating result,
    ** changelog always; table and batch mode return the final table.
    ** A front end that keeps the table itself (sl_session_set_live_table)
    ** gets every change with its op column in mode table. */
    bool live = query && result_mode == SL__RESULT_TABLE && s->live_table;
    run.with_kind = query && (live || result_mode == SL__RESULT_CHANGELOG ||
                              (result_mode == SL__RESULT_TABLEAU && updating && !batch));
    if (updating && !live && (batch || result_mode == SL__RESULT_TABLE))
        run.rows = sl__rows_new(top->ncols);
    run.tz = tz;
    sl_physical_opts o = {name,
                          query ? NULL : s->eng->data_dir,
                          interval_ms,
                          sl__duration_ms(s, "table.exec.state.ttl"),
                          parallelism,
                          sl__duration_ms(s, "table.exec.source.idle-timeout"),
                          sl__length_enforcer_of(s),
                          sl__result_sink_create,
                          &run,
                          decided,
                          mechs,
                          batch,
                          nsides,
                          sides,
                          {false, false, 0},
                          sl__setting_bool(s, "table.optimizer.reuse-source-enabled", true),
                          sl__setting_bool(s, "table.optimizer.reuse-sub-plan-enabled", true),
                          NULL,
                          NULL};
    o.backend = sl__state_backend(s);
    sl_kvlist *storage_opts = query ? NULL : sl__storage_opts(s);
    o.checkpoint_dir = chk_base;
    o.storage_opts = storage_opts;
    sl_physical *phys = NULL;
    rc = sl_physical_build_set((const sl_lp *const *)plans->items, plans->n, cat, &o, &phys, err);
    sl_free(decided);
    sl_free(mechs);
    if (phys)
        sl_physical_set_tz(phys, tz); /* the job keeps the zone it was planned with */
    else
        sl_tz_free(tz);
    if (rc == 0 && query) {
        rc = sl__run_query(s, phys, &run, out, err);
    } else if (rc == 0) {
        sl__job *job = sl_calloc(1, sizeof *job);
        job->eng = s->eng;
        job->name = name;
        memcpy(job->stmt_hash, stmt_hex, sizeof job->stmt_hash);
        /* what sl__job_name_reused reads once the job started */
        char *named = sl__setting_set(s, "pipeline.name") ? sl_strdup(name) : NULL;
        sl_strbuf sinks = SL_STRBUF_INIT; /* a statement set writes several */
        for (int i = 0; i < plans->n; i++)
            sl_strbuf_appendf(&sinks, "%s%s", i ? ", " : "", ((sl_lp *)plans->items[i])->table);
        job->sink = sl_strbuf_detach(&sinks);
        job->guarantee = effective;
        job->guarantees = guarantees;
        effective = NULL;
        guarantees = NULL;
        job->restore_path = sl_strdup(restore);
        job->chk_base = chk_base;
        job->storage_opts = storage_opts;
        chk_base = NULL;
        storage_opts = NULL;
        job->claim = b.claim;
        job->other_sinks = b.other_sinks;
        job->origin = b.origin;
        b.origin = NULL;
        job->targets = targets;
        job->target_tables = tables;
        targets = tables = NULL;
        if (sl_strcasecmp(sl__setting(s, "restart-strategy.type"), "fixed-delay") == 0) {
            job->restart_attempts = atoi(sl__setting(s, "restart-strategy.fixed-delay.attempts"));
            job->restart_delay_ms = sl__duration_ms(s, "restart-strategy.fixed-delay.delay");
        }
        job->plans = plans;
        job->cat = cat;
        job->phys = phys;
        sl_strbuf text = SL_STRBUF_INIT;
        sl_stmt_print(&text, st, sl_option_secret_fn, NULL);
        job->statement = sl_strbuf_detach(&text);
        sl_physical_explain(&text, phys);
        job->plan = sl_strbuf_detach(&text);
        const char *late = sl__setting_set(s, "table.exec.late-rows.table");
        job->late_table = late && *late ? sl_strdup(late) : NULL;
        job->started_ns = sl_now_nanos();
        job->background = !sl__dml_sync(s);
        if (job->background && s->eng->resume_jobs)
            job->resume = sl__resume_recipe(s, st, job->name);
        name = NULL;
        plans = NULL;
        cat = NULL;
        phys = NULL;
        rc = sl__run_insert(s, job, &run, out, err);
        if (named && (rc == 0 || !sl_error_isset(err) ||
                      strcmp(err->sqlstate, SL_ERR_OBJECT_IN_USE) != 0)) {
            if (!s->job_stmts)
                s->job_stmts = sl_kvlist_new();
            sl_kvlist_set(s->job_stmts, named, stmt_hex, -1, -1);
        }
        sl_free(named);
    }
    sl_physical_free(phys);
    sl_catalog_close(cat);
    sl_free(chk_base);
    sl_kvlist_free(storage_opts);
    sl_list_free(tables, sl_free);
    sl_list_free(targets, sl_free);
    sl_free(b.origin);
    sl_free(name);
    sl_list_free(plans, sl__lp_free_v);
    sl_free(effective);
    sl_free(guarantees);
    sl__rows_free(run.rows);
    pthread_mutex_destroy(&run.mu);
    return rc;
}

