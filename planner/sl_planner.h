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
** non-zero cancels the statement. */
typedef struct sl_result_sink {
    void *ctx;
    int (*begin)(void *ctx, int ncols, const char *const *names, const sl_type *types);
    int (*row)(void *ctx, const char *const *values, const size_t *lens);
    void (*notice)(void *ctx, const sl_error *notice);
    void (*complete)(void *ctx, const char *command_tag);
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

/* The session's 'table.dml-sync' while it is not SET (RESET returns to it):
** true runs an INSERT to its end in sl_session_exec, false (the default, as
** in Flink) starts it in the background. The shell uses true for scripts. */
void sl_session_set_dml_sync(sl_session *s, bool sync);

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

#endif /* SL_PLANNER_H */
