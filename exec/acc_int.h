/*
** acc_int.h — the accumulators of aggregate calls (op_agg.c), shared with
** the OVER aggregation (op_over.c). Internal to exec/.
**
** An sl_accs describes a list of calls (sl_agg_call) over an input; a
** record of sl_accs_size bytes (zeroed = empty) holds one accumulator per
** call plus the row count that COUNT(*) reports. Records only accumulate
** (no retraction: MIN/MAX keep their current value only). Results, types
** and overflow errors are the group aggregation's.
*/
#ifndef SL_ACC_INT_H
#define SL_ACC_INT_H

#include "sl_exec.h"

typedef struct sl_accs sl_accs;

/* The calls over an input of in_ncols columns of in_types (an internal
** error for a call that does not fit them). */
int sl_accs_new(int in_ncols, const sl_type *in_types, int ncalls, const sl_agg_call *calls,
                sl_accs **out, sl_error *err);
void sl_accs_free(sl_accs *s);
/* Bytes of one record. */
size_t sl_accs_size(const sl_accs *s);
/* Free what record rec holds and make it empty again. */
void sl_accs_clear(const sl_accs *s, void *rec);
/* Accumulate row r of in (+I) into rec. */
int sl_accs_add(const sl_accs *s, void *rec, const sl_chunk *in, int r, sl_error *err);
/* The calls' results into columns col0 .. col0 + ncalls - 1 of row r of dst. */
int sl_accs_results(const sl_accs *s, const void *rec, sl_chunk *dst, int col0, int r,
                    sl_error *err);
/* Serialize rec (deterministic bytes) / read it back into an empty record
** from buf[*off ..len) (advancing *off; false when the bytes are bad). */
void sl_accs_put(const sl_accs *s, const void *rec, sl_strbuf *sb);
bool sl_accs_get(const sl_accs *s, void *rec, const char *buf, size_t len, size_t *off);

#endif
