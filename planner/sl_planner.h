/*
** sl_planner.h — the engine as the shell and the server see it.
**
** An sl_engine owns one data directory (the persistent catalog) and the
** registry of the INSERT jobs running in it; an sl_session holds
** per-connection settings (SET) and runs statements one at a time. Results
** stream through an sl_result_sink, whose callbacks map onto the PostgreSQL
** wire protocol (RowDescription, DataRow, NoticeResponse, CommandComplete)
** and onto the shell's tables.
**
** Jobs: with 'table.dml-sync' = 'false' an INSERT starts its job on a thread
** of its own and returns at once; the job belongs to the engine, not to the
** session (any session can SHOW or STOP it), and reports through the
** engine's log (sl_engine_set_log). With 'true' the INSERT runs its job to
** the end in the caller's thread.
**
** Main routines: sl_engine_open/close, sl_session_new/free, sl_session_exec,
** sl_engine_stop_jobs, sl_engine_wait_jobs.
*/
#ifndef SL_PLANNER_H
#define SL_PLANNER_H

#include <signal.h>

#include "../base/sl_base.h"
#include "../base/sl_type.h"

typedef struct sl_engine sl_engine;
typedef struct sl_session sl_session;

/* Receives the output of one statement. Any callback may be NULL.
** begin is called once before the rows of a statement that returns rows;
** row once per row (values are text; NULL = SQL NULL; lens[i] is the byte
** length of values[i], which may hold NUL bytes: a STRING value can, and it
** is followed by a NUL that is not part of it); notice for each
** WARNING/NOTICE; complete once when the statement succeeded, with the
** command tag ("CREATE TABLE", "SHOW 3", "SET" ...). A callback returning
** non-zero cancels the statement.
**
** chunk (inside the engine only: RECONCILE reads its two sides so): when
** set, the rows of a query whose result is a plain stream of rows (no
** changelog collected into a final table) arrive as exec's chunks, columns
** in the select list's order and in their SQL types, instead of as text
** through row; the text formatting and parsing back are skipped. */
struct sl_chunk;
typedef struct sl_result_sink {
    void *ctx;
    int (*begin)(void *ctx, int ncols, const char *const *names, const sl_type *types);
    int (*row)(void *ctx, const char *const *values, const size_t *lens);
    void (*notice)(void *ctx, const sl_error *notice);
    void (*complete)(void *ctx, const char *command_tag);
    int (*chunk)(void *ctx, const struct sl_chunk *c);
} sl_result_sink;

/* Open (creating if needed) the data directory. A directory that exists, is
** not empty and is not Sluice's, or whose catalog is corrupt, is an error and
** is left untouched. */
int sl_engine_open(const char *data_dir, sl_engine **out, sl_error *err);
/* Stops every running job with a savepoint and waits for it first (as
** sl_engine_stop_jobs): no thread of the engine outlives it. Every session
** must have been freed, or be idle. */
void sl_engine_close(sl_engine *eng);
const char *sl_engine_data_dir(const sl_engine *eng);

/* Where the messages of background jobs go: their notices ("job \"x\"
** resumes from checkpoint 7", "... stopped with savepoint <path>"), warnings
** (late or skipped rows), and a failure (severity ERROR, message
** 'job "x" failed: ...', with the job's SQLSTATE, detail and hint). Called
** from the job's thread, one message at a time per job, never with an engine
** lock held. NULL (the default): sl_log. */
typedef void (*sl_engine_log_fn)(void *ctx, const sl_error *msg);
void sl_engine_set_log(sl_engine *eng, sl_engine_log_fn fn, void *ctx);

/* Background jobs still running. */
int sl_engine_running_jobs(sl_engine *eng);
/* Wait until every background job has ended (bounded inputs), or until
** *interrupt (may be NULL) is set. 0 when they all ended, 1 when
** interrupted. */
int sl_engine_wait_jobs(sl_engine *eng, volatile sig_atomic_t *interrupt);
/* Stop every running job with a savepoint (as STOP JOB ... WITH SAVEPOINT)
** and wait for all of them to end; their savepoint notices go to the log. */
void sl_engine_stop_jobs(sl_engine *eng);

/* Jobs that belong to a server and outlive its restarts (sluice serve).
** With resume on, every background INSERT job keeps in its record
** (jobs/<name>/_job.json) what starts it again: its statement, the session
** settings it was planned with and the session's temporary views (never a
** secret: a job whose statement holds one is not resumable, logged). A job
** the engine's shutdown stopped (sl_engine_stop_jobs, sl_engine_close) or
** whose process died resumes at the next start; one stopped by STOP JOB,
** finished or failed does not. Off by default (the shell). */
void sl_engine_set_resume_jobs(sl_engine *eng, bool on);
/* Start every such job again, each in a fresh session with its settings,
** in the background, from its newest decided checkpoint (the same job name:
** its own checkpoints and transactional ids). Each resume, and each job
** that cannot resume (why, with its SQLSTATE: its record then says FAILED,
** so it is not tried again), is logged. Returns the number resumed. */
int sl_engine_resume_jobs(sl_engine *eng);

/* The jobs (what SHOW JOBS lists; dropped ones are not), sorted by name.
** Caller frees (sl_list_free(l, sl_free)). */
sl_list *sl_engine_job_names(sl_engine *eng);
/* One job in full as a JSON object (what DESCRIBE JOB shows; caller frees
** with sl_free), or NULL with 42704 (no such job) / XX001 (damaged record):
** "name", "status" (RUNNING, FINISHED, STOPPED, FAILED, INTERRUPTED),
** "statement", "plan", "sink", "guarantee", "guarantees", "started" and
** "time" (ns since the epoch: this run's start, the record's last write),
** "rows_in", "rows_out", "rows_late", "rows_skipped", "conflicts",
** "restarts", "last_checkpoint", while running "rate" (rows read per second
** over the last second) and "open_transactions", "error" {"sqlstate",
** "message"} when FAILED, "checkpoints" [{"epoch", "time", "duration_ms",
** "bytes"}] (the newest 20, oldest first) and "failures" [{"time",
** "sqlstate", "message"}] (the causes of its restarts). */
char *sl_engine_job_json(sl_engine *eng, const char *name, sl_error *err);

sl_session *sl_session_new(sl_engine *eng);
void sl_session_free(sl_session *s);

/* Execute one statement: sql[0..len) holds exactly one statement (a trailing
** ';' is allowed). Error positions are byte offsets into that text.
** Returns 0, or -1 with err set. */
int sl_session_exec(sl_session *s, const char *sql, size_t len, const sl_result_sink *out,
                    sl_error *err);

/* A flag the caller's signal handler sets (Ctrl-C, SIGTERM): a running job
** then stops after a final checkpoint kept as a savepoint; a running query
** stops. NULL: none. */
void sl_session_set_interrupt(sl_session *s, volatile sig_atomic_t *flag);

/* Progress of a synchronous INSERT ('table.dml-sync' = 'true'), for a live
** status line: fn is called from a thread of the runtime about every 100 ms
** while the job runs in sl_session_exec (never after it returned), and at
** each checkpoint. Counts are over the job's life. NULL: none. */
typedef struct sl_job_progress {
    const char *name;            /* the job's */
    int64_t rows_in, rows_out;   /* rows read, written */
    int64_t rows_late, rows_skipped;
    double rate;                 /* rows read per second over the last second (0 at first) */
    int64_t last_checkpoint;     /* newest decided checkpoint, -1: none yet */
    int64_t last_checkpoint_ns;  /* when it was decided (ns since the epoch), 0: none */
} sl_job_progress;
typedef void (*sl_job_progress_fn)(void *ctx, const sl_job_progress *p);
void sl_session_set_progress(sl_session *s, sl_job_progress_fn fn, void *ctx);

/* The session's 'table.dml-sync' while it is not SET (RESET returns to it):
** true runs an INSERT to its end in sl_session_exec, false (the default, as
** in Flink) starts it in the background. The shell uses true for scripts. */
void sl_session_set_dml_sync(sl_session *s, bool sync);

/* The shell's full-screen 'table' result view: with live on, a query in
** result mode 'table' sends its changes as they come, Flink's op column
** (+I, -U, +U, -D) first, instead of the final table at its end; the front
** end keeps the table (sl_result_table). Off by default (the server). */
void sl_session_set_live_table(sl_session *s, bool live);
/* The result mode in effect ('sql-client.execution.result-mode'):
** "tableau", "changelog" or "table". */
const char *sl_session_result_mode(sl_session *s);
/* Whether the query whose rows are being sent reads only sources that end
** (its result is final when it ends): a front end may wait for the end to
** size its table; an unbounded one's rows should be shown as they come. */
bool sl_session_result_bounded(sl_session *s);

/* A materialized result (session_result.c, the table mode's own): changes
** applied in order, an insert (+I, +U) appended, a retraction (-U, -D)
** removing the newest equal row. Rows are numbered in arrival order; a
** retracted row leaves a hole that sl_result_table_next skips. */
typedef struct sl_result_table sl_result_table;
sl_result_table *sl_result_table_new(int ncols);
/* Apply one change: op is "+I", "-U", "+U" or "-D"; values as in
** sl_result_sink's row (NULL = SQL NULL). */
void sl_result_table_apply(sl_result_table *t, const char *op, const char *const *values,
                           const size_t *lens);
/* Rows alive (not retracted). */
int64_t sl_result_table_count(const sl_result_table *t);
/* The next alive row after row i (-1: the first), or -1 at the end. */
int sl_result_table_next(const sl_result_table *t, int i);
/* Row i's values (NULL = SQL NULL) and their lengths. */
const char *const *sl_result_table_row(const sl_result_table *t, int i, const size_t **lens);
void sl_result_table_free(sl_result_table *t);

/* For shell completion: names of tables and views (caller frees the list and
** strings with sl_list_free(l, sl_free)); option keys of every connector and
** format. */
sl_list *sl_session_object_names(sl_session *s);
sl_list *sl_option_keys(void);

/* Statement text as typed with every secret option value (the engine's one
** rule, sl_option_is_secret) shown as '******': appends sql[0..len) to out;
** *pos (may be NULL), a byte offset into sql, is moved with the text. For
** front ends that show or keep what the user typed (an error's LINE block,
** the shell's history). See sl_sql_redact. */
void sl_redact_sql(const char *sql, size_t len, sl_strbuf *out, size_t *pos);

/* ------------------------------------------------------------------------
** For the PostgreSQL wire server (server/): parameters, describing a
** statement without running it, cursors, and PostgreSQL's session state.
** The shell does not need them; every one enters the same planner.
*/

/* One bound parameter ($1, $2 ... in the statement text). */
typedef struct sl_param {
    const char *value; /* text form (as in a SQL literal, unquoted), or NULL for SQL NULL;
                          BINARY / VARBINARY: the bytes as hex digits, two per byte, as
                          inside X'..' (any bytes, NUL included) */
    size_t len;        /* its length in bytes */
    sl_type type;      /* the type the client declared; id SL_TYPE_NULL: unknown (the
                          context gives it: a comparison with a column, an INSERT's
                          target column; else STRING) */
} sl_param;

/* What a statement takes and returns, known without running it. */
typedef struct sl_stmt_desc {
    int nparams;        /* highest $n used */
    sl_type *param_types; /* [nparams]: declared, else inferred, else STRING */
    int ncols;          /* result columns; 0: the statement returns no rows */
    char **names;       /* [ncols] */
    sl_type *types;     /* [ncols] */
} sl_stmt_desc;

/* Parse and bind sql[0..len) (exactly one statement) without running it:
** its parameters (ndeclared types the client gave, may be 0) and its result
** columns. Side-effect free (no job starts, nothing is created). Returns 0,
** or -1 with err set (a syntax or binding error, positions as for exec).
** An undeclared parameter's type comes from its context: the other side of
** a comparison, arithmetic, IN or BETWEEN; STRING for LIKE and ||; an
** INSERT's target column; BIGINT under LIMIT / OFFSET; else STRING.
** Columns: a query's as its run begins (with the op column when it has
** one); SHOW, DESCRIBE, EXPLAIN and SET alone are run for theirs (they
** change nothing); FETCH: its cursor's; other statements none. */
int sl_session_describe(sl_session *s, const char *sql, size_t len, int ndeclared,
                        const sl_type *declared, sl_stmt_desc *out, sl_error *err);
void sl_stmt_desc_free(sl_stmt_desc *d);

/* sl_session_exec with parameters: each $n is replaced by params[n-1], a
** value of its type (never by text substitution: a value cannot change the
** statement). nparams must cover every $n used (42P02 "there is no
** parameter $3" at it otherwise). A value that is not of its type: 22P02
** (22003 out of range, 22021 not UTF-8) at the $n, the detail naming it.
** Text forms as PostgreSQL's: booleans t/true/yes/on/1, f/false/no/off/0;
** a timestamp may have a 'T' and a zone, which is ignored; BINARY /
** VARBINARY are hex digits, two per byte, either case (the value becomes
** X'...': any bytes, NUL included). */
int sl_session_exec_params(sl_session *s, const char *sql, size_t len, int nparams,
                           const sl_param *params, const sl_result_sink *out, sl_error *err);

/* A query whose rows are read on demand (an extended-protocol portal with a
** row limit; DECLARE ... CURSOR is the same thing in SQL). The query runs on
** a thread of its own, ahead of the reader by a bounded buffer; the cursor
** keeps the session's settings as they were when it opened. Only queries
** (SELECT, VALUES, WITH ...) open a cursor (42P11 otherwise). The open
** returns once the query has planned; an error before its first row fails
** it. Close every cursor before freeing its session (those of DECLARE are
** the session's own: sl_session_free closes them). */
typedef struct sl_cursor sl_cursor;
int sl_session_open_cursor(sl_session *s, const char *sql, size_t len, int nparams,
                           const sl_param *params, sl_cursor **out, sl_error *err);
/* The result's columns (waits until the query has planned). */
int sl_cursor_columns(sl_cursor *c, int *ncols, const char *const **names,
                      const sl_type **types);
/* Deliver up to max rows (max <= 0: every remaining row) through out->row
** (out->begin is not called; out->notice gets the query's notices). Returns
** 1 when max rows were delivered and more may follow, 0 when the query ended
** (out->complete is called with "SELECT n", n the rows of the whole query),
** -1 with err set when it failed or was cancelled (57014). An unbounded
** query waits for rows; *interrupt (sl_session_set_interrupt) ends the
** wait. */
int sl_cursor_fetch(sl_cursor *c, int64_t max, const sl_result_sink *out, sl_error *err);
/* Stop the query (if running) and free everything. */
void sl_cursor_close(sl_cursor *c);
/* The cursor DECLARE ... CURSOR opened as name in s, or NULL (the session
** owns it: do not close it). To the extended protocol it is a portal of
** that name (psycopg's named cursors Describe it). */
sl_cursor *sl_session_cursor(sl_session *s, const char *name);

/* PostgreSQL's session state, as clients see it.
** A parameter's current value (names case-insensitive: application_name,
** DateStyle, TimeZone, IntervalStyle, client_encoding, server_version, ...,
** as SHOW gives it; docs/SQL.md lists them); NULL when unknown. Valid until
** the session's next call. */
const char *sl_session_param(sl_session *s, const char *name);
/* Called when a reported parameter changes (SET application_name = ...,
** SET TIME ZONE ...): the server sends ParameterStatus. */
typedef void (*sl_session_param_fn)(void *ctx, const char *name, const char *value);
void sl_session_on_param(sl_session *s, sl_session_param_fn fn, void *ctx);
/* Set a parameter as the startup packet does (application_name, DateStyle,
** TimeZone ...): as SET would, without a statement; the value becomes the
** session's default (what RESET returns to). "options" takes the packet's
** options ("-c name=value --name=value"); "user" sets session_authorization
** (current_user), "database" session_database (current_database()), and
** "session_backend_pid" what pg_backend_pid() returns. Returns 0, or -1
** with err set for an unknown or invalid one. */
int sl_session_set_param(sl_session *s, const char *name, const char *value, sl_error *err);
/* ReadyForQuery's status: 'I' idle, 'T' in a block (after BEGIN), 'E' in a
** failed block (every statement fails with 25P02 until ROLLBACK). */
char sl_session_txn_status(sl_session *s);

#endif /* SL_PLANNER_H */
