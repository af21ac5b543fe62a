/*
** local.c — the shell's local backend: statements run in a session of the
** data directory's engine, in this process (the shell as it always was).
** Background jobs belong to this process: their messages come through the
** engine's log (sl_shell_job_message); a script waits for them at its end,
** the REPL stops them with savepoints when it ends.
**
** Main routines: sl_local_open (the others are the sl_backend's functions).
*/
#include <string.h>

#include "shell.h"

static int local_exec(sl_shell *sh, const char *sql, size_t len, sl_result_sink *sink,
                      sl_error *err)
{
    return sl_session_exec(sh->session, sql, len, sink, err);
}

static sl_list *local_object_names(sl_shell *sh)
{
    return sl_session_object_names(sh->session);
}

static char *local_where(sl_shell *sh)
{
    return sl_sprintf("data directory: %s", sl_engine_data_dir(sh->engine));
}

static void local_set_interrupt(sl_shell *sh, volatile sig_atomic_t *flag)
{
    sl_session_set_interrupt(sh->session, flag);
}

static int local_wait_fd(sl_shell *sh)
{
    (void)sh;
    return -1;
}

static void local_input(sl_shell *sh)
{
    (void)sh;
}

/* The end of a script (wait): its background jobs run on until they end
** (bounded inputs) or *stop is set (Ctrl-C / SIGTERM); then, as at the end
** of the REPL, every job still running stops with a savepoint. */
static void local_finish(sl_shell *sh, bool wait, volatile sig_atomic_t *stop)
{
    int n = wait ? sl_engine_running_jobs(sh->engine) : 0;
    if (n > 0 && !(stop && *stop)) {
        sl_error note = SL_ERROR_INIT;
        note.severity = SL_SEV_NOTICE;
        note.message = sl_sprintf("waiting for %d background job%s to end (Ctrl-C stops %s with a "
                                  "savepoint)",
                                  n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
        sl_print_notice(NULL, &note);
        sl_error_reset(&note);
        sl_engine_wait_jobs(sh->engine, stop);
    }
    sl_engine_stop_jobs(sh->engine);
}

static void local_close(sl_shell *sh)
{
    sl_session_free(sh->session);
    sl_engine_close(sh->engine); /* no job runs any more: its log is ours no longer */
    sh->session = NULL;
    sh->engine = NULL;
}

static const sl_backend local_backend = {
    local_exec, local_object_names, local_where, local_set_interrupt,
    local_wait_fd, local_input, local_finish, local_close,
};

int sl_local_open(sl_shell *sh, const char *data_dir, bool interactive, sl_error *err)
{
    if (sl_engine_open(data_dir, &sh->engine, err) != 0)
        return -1;
    sl_engine_set_log(sh->engine, sl_shell_job_message, sh);
    sh->session = sl_session_new(sh->engine);
    sl_session_set_dml_sync(sh->session, !interactive);
    sh->be = &local_backend;
    if (interactive)
        sl_status_enable(sh);
    return 0;
}
