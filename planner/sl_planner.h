/*
** sl_planner.h — the engine as the shell and the server see it.
**
** An sl_engine owns one data directory (the persistent catalog); an
** sl_session holds per-connection settings (SET) and runs statements one at
** a time. Results stream through an sl_result_sink, whose callbacks map onto
** the PostgreSQL wire protocol (RowDescription, DataRow, NoticeResponse,
** CommandComplete) and onto the shell's tables.
**
** Main routines: sl_engine_open/close, sl_session_new/free, sl_session_exec.
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
** row once per row (values are text; NULL = SQL NULL); notice for each
** WARNING/NOTICE; complete once when the statement succeeded, with the
** command tag ("CREATE TABLE", "SHOW 3", "SET" ...). A callback returning
** non-zero cancels the statement. */
typedef struct sl_result_sink {
    void *ctx;
    int (*begin)(void *ctx, int ncols, const char *const *names, const sl_type *types);
    int (*row)(void *ctx, const char *const *values);
    void (*notice)(void *ctx, const sl_error *notice);
    void (*complete)(void *ctx, const char *command_tag);
} sl_result_sink;

/* Open (creating if needed) the data directory. A directory that exists, is
** not empty and is not Sluice's, or whose catalog is corrupt, is an error and
** is left untouched. */
int sl_engine_open(const char *data_dir, sl_engine **out, sl_error *err);
void sl_engine_close(sl_engine *eng);
const char *sl_engine_data_dir(const sl_engine *eng);

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

/* For shell completion: names of tables and views (caller frees the list and
** strings with sl_list_free(l, sl_free)); option keys of every connector and
** format. */
sl_list *sl_session_object_names(sl_session *s);
sl_list *sl_option_keys(void);

#endif /* SL_PLANNER_H */
