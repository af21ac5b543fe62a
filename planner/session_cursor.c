/*
** session_cursor.c — what the extended query protocol needs of a session:
** parameters ($n), describing a statement without running it, and cursors
** (rows read on demand).
**
** Main routines: sl_session_describe, sl_session_exec_params,
** sl_session_open_cursor, sl_cursor_fetch, sl_cursor_close.
*/
#include "session_int.h"

#include <string.h>

int sl_session_describe(sl_session *s, const char *sql, size_t len, int ndeclared,
                        const sl_type *declared, sl_stmt_desc *out, sl_error *err)
{
    memset(out, 0, sizeof *out);
    return sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "describing a statement is not supported yet");
}

void sl_stmt_desc_free(sl_stmt_desc *d)
{
    for (int i = 0; i < d->ncols; i++)
        sl_free(d->names[i]);
    sl_free(d->names);
    sl_free(d->types);
    sl_free(d->param_types);
    memset(d, 0, sizeof *d);
}

int sl_session_exec_params(sl_session *s, const char *sql, size_t len, int nparams,
                           const sl_param *params, const sl_result_sink *out, sl_error *err)
{
    if (nparams == 0)
        return sl_session_exec(s, sql, len, out, err);
    return sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "parameters are not supported yet");
}

int sl_session_open_cursor(sl_session *s, const char *sql, size_t len, int nparams,
                           const sl_param *params, sl_cursor **out, sl_error *err)
{
    *out = NULL;
    return sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "cursors are not supported yet");
}

int sl_cursor_columns(sl_cursor *c, int *ncols, const char *const **names, const sl_type **types)
{
    *ncols = 0;
    return -1;
}

int sl_cursor_fetch(sl_cursor *c, int64_t max, const sl_result_sink *out, sl_error *err)
{
    return sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "cursors are not supported yet");
}

void sl_cursor_close(sl_cursor *c)
{
}

void sl__cursor_free_v(void *p)
{
    sl_cursor_close(p);
}
