/*
** acc_int.h — the accumulators of aggregate calls (op_agg.c), shared with
** the OVER aggregation (op_over.c). Internal to exec/.
**
** An sl_accs describes a list of calls (sl_agg_call) over an input; a
** record of sl_accs_size bytes (zeroed = empty) holds one accumulator per
** call plus the row count that COUNT(*) reports. Records accumulate, and
** retract when the sl_accs was made for it (MIN/MAX then keep a value
** multiset, as the group aggregation's). Results, types and overflow errors
** are the group aggregation's.
*/
#ifndef SL_ACC_INT_H
#define SL_ACC_INT_H

#include "sl_exec.h"

typedef struct sl_accs sl_accs;

/* The calls over an input of in_ncols columns of in_types (an internal
** error for a call that does not fit them); retract: records can retract. */
int sl_accs_new(int in_ncols, const sl_type *in_types, int ncalls, const sl_agg_call *calls,
                bool retract, sl_accs **out, sl_error *err);
void sl_accs_free(sl_accs *s);
/* Bytes of one record. */
size_t sl_accs_size(const sl_accs *s);
/* Free what record rec holds and make it empty again. */
void sl_accs_clear(const sl_accs *s, void *rec);
/* Accumulate row r of in into rec (sign +1), or retract it (sign -1: a row
** accumulated before; only for a retracting sl_accs). */
int sl_accs_add(const sl_accs *s, void *rec, const sl_chunk *in, int r, int sign, sl_error *err);
/* The calls' results into columns col0 .. col0 + ncalls - 1 of row r of dst. */
int sl_accs_results(const sl_accs *s, const void *rec, sl_chunk *dst, int col0, int r,
                    sl_error *err);
/* Serialize rec (deterministic bytes) / read it back into an empty record
** from buf[*off ..len) (advancing *off; false when the bytes are bad: the
** record may then hold part of them, sl_accs_clear frees it). */
void sl_accs_put(const sl_accs *s, const void *rec, sl_strbuf *sb);
bool sl_accs_get(const sl_accs *s, void *rec, const char *buf, size_t len, size_t *off);

#endif
