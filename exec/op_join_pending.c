/*
** op_join_pending.c — placeholder for the streaming join operator until
** exec/op_stream_join.c lands: joins are planned but refused at run time.
*/
#include "sl_exec.h"

int sl_join_new(const sl_join_spec *spec, sl_operator **out, sl_error *err)
{
    (void)spec;
    *out = NULL;
    return sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "the runtime cannot run joins yet");
}
