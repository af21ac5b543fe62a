/*
** session_pg.c — PostgreSQL's session state, as the wire server's clients
** see it: the reported parameters (application_name, DateStyle, TimeZone
** ...) and the transaction block status of BEGIN / COMMIT / ROLLBACK.
**
** Main routines: sl_session_param, sl_session_on_param, sl_session_set_param,
** sl_session_txn_status.
*/
#include "session_int.h"

const char *sl_session_param(sl_session *s, const char *name)
{
    return s->pg_params ? sl_kvlist_get(s->pg_params, name) : NULL;
}

void sl_session_on_param(sl_session *s, sl_session_param_fn fn, void *ctx)
{
    s->on_param = fn;
    s->on_param_ctx = ctx;
}

int sl_session_set_param(sl_session *s, const char *name, const char *value, sl_error *err)
{
    if (!s->pg_params)
        s->pg_params = sl_kvlist_new();
    sl_kvlist_set(s->pg_params, name, value, -1, -1);
    return 0;
}

char sl_session_txn_status(sl_session *s)
{
    return s->txn_status ? s->txn_status : 'I';
}
