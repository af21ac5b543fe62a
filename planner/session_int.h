/*
** session_int.h — what the three files of the session share: the engine and
** session structures, result helpers (one result table, notices), settings,
** planning a runnable statement and resolving its guarantees.
**
**   session.c       engine and session lifetimes, statement dispatch, DDL,
**                   SET / RESET, settings, completion support
**   session_show.c  SHOW, DESCRIBE, EXPLAIN: catalog objects and plans as rows
**   session_run.c   INSERT, statement sets and queries: planning, the job
**                   registry, running jobs, their records, STOP JOB
**   session_result.c  a query's final table (result mode 'table', batch)
**   session_pg.c    PostgreSQL's parameters (SET / SHOW / RESET name, the
**                   startup packet's), transaction blocks, DISCARD
**   session_fn.c    session functions (version(), current_user ...), SELECT
**                   without FROM in the caller's thread
**   session_resume.c  jobs that start again when the engine starts again
*/
#ifndef SL_SESSION_INT_H
#define SL_SESSION_INT_H

#include "planner_int.h"
#include "../base/sl_tz.h"

#include <jansson.h>
#include <pthread.h>
#include <signal.h>

#define SL_ERR_NOT_IN_STATE "55000" /* object_not_in_prerequisite_state */

struct sl_engine {
    char *data_dir;           /* the data directory */
    sl_catalog *cat;          /* its catalog */
    pthread_mutex_t mu;       /* guards jobs, log and the [mu] fields of every job */
    pthread_cond_t job_ended; /* broadcast when a job ends */
    sl_list *jobs;            /* the registry: sl__job*, running or not yet reaped */
    sl_engine_log_fn log;     /* where background jobs' messages go, or NULL */
    void *log_ctx;            /* for log */
    bool resume_jobs;         /* background jobs start again at the next start
                                 (sl_engine_set_resume_jobs, session_resume.c) */
    char *owner;              /* who claims checkpoint locations outside the data
                                 directory (session_chkdir.c), made on first use */
};

struct sl_session {
    sl_engine *eng;     /* the engine */
    sl_kvlist *config;  /* SET values */
    sl_list *tviews;    /* temporary views (sl_view*) */
    volatile sig_atomic_t *interrupt; /* set by the caller's signal handler, or NULL */
    bool dml_sync;      /* 'table.dml-sync' while it is not SET */
    bool result_bounded; /* the running query reads only sources that end */
    bool live_table;    /* result mode 'table': send changes, the front end keeps the table */
    sl_job_progress_fn progress; /* a synchronous INSERT's progress, or NULL */
    void *progress_ctx;
    /* session_cursor.c: DECLARE'd cursors (sl_cursor*, by name) */
    sl_list *cursors;
    /* session_cursor.c: statements with parameters parsed and typed for
    ** their next run (sl__parsed*, most recently used first) */
    sl_list *parsed;
    /* session_pg.c: PostgreSQL's session state */
    sl_kvlist *pg_params;             /* reported parameters SET or given at startup */
    sl_session_param_fn on_param;     /* ParameterStatus hook, or NULL */
    void *on_param_ctx;
    char txn_status;                  /* 'I', 'T' (after BEGIN) or 'E' (failed block) */
    sl_kvlist *pg_start;              /* the session's defaults: the startup packet's values */
    sl_kvlist *blk_config;            /* at BEGIN: config and pg_params, restored by ROLLBACK */
    sl_kvlist *blk_params;
    sl_kvlist *blk_local;             /* SET LOCAL: each name's value before it ("" = unset) */
    sl_list *blk_effects;             /* char*: statements of the block that took effect */
    sl_list *blk_savepoints;          /* char*: SAVEPOINT names, oldest first */
    sl_tz *pg_tz;                     /* the zone of 'table.local-time-zone' = pg_tz_key */
    char *pg_tz_key;
    /* session_run.c: 'pipeline.name' -> hash of the statement last run under it */
    sl_kvlist *job_stmts;
    /* session_flink.c: BEGIN STATEMENT SET's INSERTs (sl_stmt*) until END, or NULL */
    sl_list *stmt_set;
    /* Temporary tables (CREATE TEMPORARY TABLE): their bound definitions
    ** (sl_stmt*), never written to the catalog; sl__cat's snapshot of the
    ** engine's catalog with them over it, rebuilt when either changed. */
    sl_list *ttables;
    uint64_t tgen;                    /* changes of ttables */
    sl_catalog *tcat;                 /* the snapshot, or NULL */
    uint64_t tcat_version, tcat_gen;  /* what it was built from */
};

/* The catalog a session's statements read: the engine's, or with temporary
** tables a snapshot with them over it (valid until the next DDL). Changes
** go to s->eng->cat. */
sl_catalog *sl__cat(sl_session *s);
/* The session's temporary table called name (its definition), or NULL. */
const sl_stmt *sl__ttable(sl_session *s, const char *name);
/* 0A000 when st (ALTER TABLE) names a temporary table, else 0. */
int sl__temp_unalterable(sl_session *s, const sl_stmt *st, sl_error *err);

typedef struct sl__table_out {
    const sl_result_sink *out; /* where rows go */
    int ncols;                 /* columns */
    int nrows;                 /* rows sent */
    bool cancelled;            /* a callback asked to stop */
} sl__table_out;

/* The guarantee inputs of a job's sinks (the SINK roots among plans). */
typedef struct sl__gplan {
    sl_gjob job;          /* what the resolver reads */
    sl_gsink *sinks;      /* its sinks */
    sl_gresult *res;      /* its results (nsinks) */
    sl_list *sources;     /* arrays owned here (sources, the other tables) */
    int nside;            /* the side tables (sl__side_uses): the last nside sinks */
    sl_side_table sides[SL_SIDE_MAX]; /* them, with the guarantee decided for each */
} sl__gplan;

/* session_pg.c: PostgreSQL's session statements, the transaction block
** around every statement (sl__txn_check before it runs: 25P02 in a failed
** block; sl__txn_done after it), the session's zone (cached), freeing. */
int sl__pg_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
int sl__txn_check(sl_session *s, const sl_stmt *st, sl_error *err);
void sl__txn_done(sl_session *s, const sl_stmt *st, int rc);
const sl_tz *sl__pg_tz(sl_session *s, sl_error *err);
void sl__pg_free(sl_session *s);
/* A PostgreSQL parameter's current value as SHOW gives it (name
** case-insensitive), or NULL with 42704 when there is none. */
const char *sl__pg_show_value(sl_session *s, const char *name, int pos, sl_error *err);
/* SET name = value (NULL: DEFAULT) as SET, SET LOCAL (local) and
** set_config do; positions for errors. */
int sl__pg_set_value(sl_session *s, const char *name, const char *value, bool local, int name_pos,
                     int value_pos, const sl_result_sink *out, sl_error *err);

/* session_fn.c: PostgreSQL's session functions (version(), current_user,
** current_setting() ...) replaced by their values in a statement's
** queries; a SELECT without FROM answered in the caller's thread (1 when
** it answered, 0 when the statement is no such SELECT, -1 on error). */
int sl__session_functions(sl_session *s, sl_stmt *st, const sl_result_sink *out, sl_error *err);
/* The same for describing a statement: set_config() is not run. */
int sl__session_functions_typed(sl_session *s, sl_stmt *st, sl_error *err);
int sl__select_const(sl_session *s, sl_stmt *st, const sl_result_sink *out, sl_error *err);

/* session_cursor.c: close a DECLARE'd cursor (sl_list_free of cursors);
** DECLARE, FETCH, MOVE and CLOSE. */
void sl__cursor_free_v(void *p);
/* session_cursor.c: free the parse cache (sl_list_free of parsed). */
void sl__parsed_free_v(void *p);
int sl__cursor_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
/* What a cursor's queue holds now (for tests of its bound): rows, bytes. */
#define SL__CURSOR_MAX_ROWS 1000               /* queued rows before the producer waits */
#define SL__CURSOR_MAX_BYTES (4 * 1024 * 1024) /* ... or queued bytes */
void sl__cursor_queued(sl_cursor *c, int64_t *rows, size_t *bytes);

/* session.c: run a parsed statement (sl_session_exec after parsing); a new
** session with a copy of s's settings and temporary views (a cursor's
** query runs in one: SET in s does not change it). */
int sl__exec_stmt(sl_session *s, sl_stmt *st, const sl_result_sink *out, sl_error *err);
sl_session *sl__session_fork(sl_session *s);

/* Result helpers (session.c): a result table of text columns, its rows, the
** command tag, notices and warnings, a text as one row per line. */
void sl__result_begin(sl__table_out *t, const sl_result_sink *out, int ncols, const char *const *names);
void sl__result_row(sl__table_out *t, const char *const *values);
void sl__result_complete(const sl_result_sink *out, const char *tag);
void sl__notice(const sl_result_sink *out, sl_severity sev, const char *fmt, ...) SL_PRINTF(3, 4);
void sl__result_lines(const sl_result_sink *out, const char *column, const char *text);
int sl__strcmp_v(const void *a, const void *b); /* qsort of char* */

/* Names and settings (session.c). */
typedef enum sl__result_mode {
    SL__RESULT_TABLEAU,   /* rows as they arrive; the op column when the result updates */
    SL__RESULT_CHANGELOG, /* every change with its op column */
    SL__RESULT_TABLE,     /* the final table: updates applied, no op column */
} sl__result_mode;

typedef enum sl__runtime_mode {
    SL__RUNTIME_STREAMING, /* continuous */
    SL__RUNTIME_BATCH,     /* bounded sources only; final, insert-only results */
    SL__RUNTIME_AUTOMATIC, /* batch when every source is bounded */
} sl__runtime_mode;

sl_binder sl__binder(sl_session *s, sl_error *err);
void sl__scrub_secrets(const sl_catalog *cat, const sl_stmt *st, sl_error *err);
const char *sl__setting(sl_session *s, const char *key);
const char *sl__setting_set(sl_session *s, const char *key);
int sl__time_zone(sl_session *s, sl_tz **out, sl_error *err);
sl__result_mode sl__result_mode_of(sl_session *s);
sl__runtime_mode sl__runtime_mode_of(sl_session *s);
/* 'table.exec.sink.type-length-enforcer'. */
sl_length_enforcer sl__length_enforcer_of(sl_session *s);
int64_t sl__duration_ms(sl_session *s, const char *key);
int sl__parallelism(sl_session *s, int *out, sl_error *err);
/* 'state.backend.type', 'execution.checkpointing.incremental',
** 'state.backend.rocksdb.cache-groups' (SET validated them). */
sl_state_backend sl__state_backend(sl_session *s);
/* Boolean setting key (SET validated it), else dflt when unset or invalid. */
bool sl__setting_bool(sl_session *s, const char *key, bool dflt);
bool sl__dml_sync(sl_session *s);

/* The final table of a query's changelog (session_result.c): rows of text
** values; apply each change; emit sends the surviving rows to out (each
** preceded by the op column kind when kind is not NULL) and returns how
** many it sent. */
typedef struct sl__rows sl__rows;
sl__rows *sl__rows_new(int ncols);
void sl__rows_apply(sl__rows *r, sl_row_kind kind, const char *const *values,
                    const size_t *lens);
int64_t sl__rows_emit(const sl__rows *r, const char *kind, const sl_result_sink *out);
void sl__rows_free(sl__rows *r);

/* SHOW, DESCRIBE, EXPLAIN (session_show.c). */
int sl__show_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
/* session_flink.c: HELP, USE, ALTER TABLE ... RENAME TO, BEGIN STATEMENT SET;
** SHOW CATALOGS / DATABASES / CURRENT ...; sl__set_collect takes st when a
** statement set is open (0 or -1), else returns 1; sl__set_free drops it. */
int sl__flink_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
int sl__flink_show(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
int sl__set_collect(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
void sl__set_free(sl_session *s);
int sl__describe_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
int sl__explain_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);

/* Planning and running (session_run.c). */
int sl__plan(sl_session *s, const sl_stmt *st, sl_list *plans, sl_error *err);
void sl__lp_free_v(void *p);
int sl__resolve(sl_session *s, const sl_list *plans, bool explain, sl__gplan *g,
                const sl_result_sink *out, sl_error *err);
void sl__gplan_free(sl__gplan *g);
/* side.c: the side tables the job of plans writes (a setting naming one
** for each kind; only a job writing tables), into sides (room for
** SL_SIDE_MAX); returns how many. */
int sl__side_uses(sl_session *s, const sl_list *plans, sl_side_table *sides);
/* dedup_ttl.c: the keep-first deduplications of plans under
** 'table.exec.state.ttl' against their sources' replay horizons: EXPLAIN's
** "== Deduplication State ==" section appended to sb (sb may be NULL), and
** one warning (malloc'ed text) pushed to warnings (may be NULL) for each
** whose replayed duplicates nothing catches. Nothing without a TTL. */
void sl__dedup_ttl(sl_session *s, const sl_list *plans, sl_strbuf *sb, sl_list *warnings);
bool sl__job_live(sl_engine *eng, const char *name, sl_job_stats *stats);
/* The running job's figures as its record names them (status, started,
** rate, counters, checkpoints, failures, open_transactions), or NULL when
** it does not run. Caller json_decref's. */
struct json_t *sl__job_live_json(sl_engine *eng, const char *name);
/* Whether a job called name runs; the engine's mutex held (reaps). */
bool sl__job_is_running_locked(sl_engine *eng, const char *name);
/* session_jobs.c: a job's record overlaid with its live figures (status
** INTERRUPTED when the record says RUNNING and no job runs): 0 with *out
** (NULL: no such job, or a dropped one), -1 when the record is damaged. */
int sl__job_info(sl_engine *eng, const char *name, struct json_t **out, sl_error *err);
/* 55000 when name is a dropped job's (its tombstone keeps the name). */
int sl__job_dropped_check(sl_engine *eng, const char *name, sl_error *err);
/* DESCRIBE JOB / SHOW JOB 'name'; DROP JOB. */
int sl__show_job(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
int sl__drop_job_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
/* A time in the session's zone (tz may be NULL: UTC) as TIMESTAMP(3) text; a
** duration in ms as "1h 02m 03s". */
void sl__fmt_time(const sl_tz *tz, int64_t ns, char *buf, size_t n);
void sl__fmt_duration(int64_t ms, char *buf, size_t n);
/* sl__result_begin with column types (NULL: all STRING). */
void sl__result_begin_typed(sl__table_out *t, const sl_result_sink *out, int ncols,
                            const char *const *names, const sl_type *types);
/* jobs/<name>/_job.json: {"version": 2, "name", "status", ..., "checksum"}
** (sl_checksum_embed); records without version and checksum were written
** before checksums and are read unverified. */
#define SL__JOB_RECORD_VERSION 2
struct json_t;
/* Read a job record: 0 with *out (NULL when the file does not exist), or -1:
** XX001 naming the file when it is damaged (checksum, JSON, name or status). */
int sl__job_record_read(const char *path, struct json_t **out, sl_error *err);
/* The entries of a data directory's jobs/ folder (one per job), sorted;
** empty when there is none. Caller frees (sl_list_free(.., sl_free)). */
sl_list *sl__job_dir_names(const char *jobs);
int sl__run_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
/* Whether plans run in batch mode ('execution.runtime-mode'; automatic:
** every source bounded). 0, or -1 with err. */
int sl__batch_mode(sl_session *s, const sl_list *plans, bool *batch, sl_error *err);
/* Savepoints as branch points (session_branch.c). */
typedef struct sl__branch {
    const char *job;     /* the job being started */
    const char *restore; /* 'execution.savepoint.path' it starts from, or NULL */
    bool claim;          /* 'execution.savepoint-restore-mode' = 'claim' (continue that line) */
    sl_list *tables;     /* char*: its exactly-once sink tables ... */
    sl_list *targets;    /* char*: ... and where each writes (sl__sink_targets) */
    char *origin;        /* set by sl__branch_check: the name of the savepoint's job when
                            it is another one (caller frees) */
    const sl_kvlist *opts; /* the session's settings (S3 credentials of checkpoints) */
    bool other_sinks;    /* set by sl__branch_check: the savepoint is another job's, whose
                            exactly-once sinks are not these (a fork, or a claim into
                            other sinks): its committables and counters are not ours */
} sl__branch;
/* The exactly-once sinks among plans' (decided[i]: plan i's guarantee):
** table names and where each writes ("filesystem /abs/dir", "kafka
** host:9092 topic"), one entry per place. */
void sl__sink_targets(const sl_catalog *cat, const sl_list *plans, const sl_guarantee *decided,
                      sl_list *tables, sl_list *targets);
/* Where table t writes, as sl__sink_targets names it (a job record's
** "targets" entry); caller frees. */
char *sl__sink_target(const sl_table *t);
/* The savepoint rules (session_branch.c's header) for starting job b->job:
** 0 (and b recorded as a branch of the savepoint's job), or -1 with 55000
** / 55006, message, detail and hint (XX001 when a record it reads is
** damaged). */
int sl__branch_check(sl_engine *eng, sl__branch *b, sl_error *err);
/* targets (char*) as a JSON array of strings; NULL when a string is not
** valid UTF-8 or memory ran out. */
json_t *sl__targets_json(const sl_list *targets);
/* The other jobs (not of name's line of claims) that run or decided a
** checkpoint and whose records name one of targets (a JSON array of
** strings): "\"a\", \"b\"", or NULL; caller frees. */
char *sl__shared_note(const char *data_dir, const char *name, const json_t *targets);
/* A directory named by an option, absolute and without "." / ".." / links
** where it exists (a URI as written, without trailing '/'); caller frees. */
char *sl__abs_path(const char *p);

/* Where a job's checkpoints live (session_chkdir.c). */
/* At the start of job name: its 'execution.checkpointing.dir' (*base,
** normalised, NULL = the data directory; caller frees), refused (55000)
** when the job's record names another, when the location holds checkpoints
** of a job this data directory has no record of, and (0A000) for 'rocksdb'
** in S3; the location is opened (credentials, bucket) to fail now. */
int sl__chk_start_check(sl_session *s, const char *name, bool rocksdb, char **base,
                        sl_error *err);
/* The checkpoints of the job whose home is home (data_dir/jobs/<J>) where
** its record says they are, opened for reading with opts (S3 credentials).
** 58P01 when there are none. */
int sl__home_store_open(const char *home, const sl_kvlist *opts, sl_chk_store **out,
                        sl_error *err);
/* The session's settings checkpoint storages are opened with ('s3.*');
** caller frees. */
sl_kvlist *sl__storage_opts(sl_session *s);
/* sl__home_store_open of job name's home. */
int sl__job_store_open(sl_engine *eng, const sl_kvlist *opts, const char *name,
                       sl_chk_store **out, sl_error *err);
/* The home (data_dir/jobs/<J>) of the job whose checkpoints are at
** location (a URI), or NULL; caller frees. */
char *sl__chk_home_of(sl_engine *eng, const char *location);
/* The home of the job that took savepoint path (.../chk-<N>): the
** directory it is in when that holds a job record (jobs/<J>, of this data
** directory or another), else the home of this data directory's job whose
** checkpoints are there, else the directory itself (absolute; a URI as
** written). Caller frees. */
char *sl__savepoint_home(sl_engine *eng, const char *path);
/* Whether a job of that name runs in the engine (takes the engine's mutex). */
bool sl__job_is_running(sl_engine *eng, const char *name);
int sl__stop_job_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);
/* What starts background job name (statement st of session s) again after
** the engine's next start (session_resume.c): {"statement", "settings",
** "views"}, kept in its record; NULL when it cannot be kept (a secret in
** its text: logged). */
json_t *sl__resume_recipe(sl_session *s, const sl_stmt *st, const char *name);

#endif
