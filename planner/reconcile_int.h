/*
** reconcile_int.h — what RECONCILE's files share (session_reconcile.c:
** the statement; reconcile_keys.c: the comparison on the key).
*/
#ifndef SL_RECONCILE_INT_H
#define SL_RECONCILE_INT_H

#include "session_int.h"

#define SL_RK_SAMPLES 5 /* sample keys per check */

/* The data checks, in the result's order. */
enum { SL_RK_MISSING, SL_RK_DUPLICATED, SL_RK_EXTRA, SL_RK_MISMATCHED, SL_RK_NCHECKS };

typedef struct sl_rk_check {
    int64_t count;                      /* keys that fail it */
    const void *samples[SL_RK_SAMPLES]; /* the smallest of them (entries of the table) */
    int nsamples;
} sl_rk_check;

/* The key table: sl_rk_add a row of the source (ledger false) or of the
** ledger, key and values encoded by sl_rk_encode; every source row before
** the first ledger row. */
typedef struct sl_rk sl_rk;
sl_rk *sl_rk_new(void);
void sl_rk_free(sl_rk *t);
size_t sl_rk_count(const sl_rk *t);
void sl_rk_add(sl_rk *t, bool ledger, const char *key, size_t klen, const char *vals, size_t vlen);
/* The four checks (samples point into t). */
void sl_rk_checks(const sl_rk *t, sl_rk_check out[SL_RK_NCHECKS]);
/* Append n values (NULL = SQL NULL) encoded for the table. */
void sl_rk_encode(sl_strbuf *sb, int n, const char *const *values, const size_t *lens);
/* Append a sample's key as "name=value" (n columns in parentheses). */
void sl_rk_key_format(sl_strbuf *sb, const void *entry, int n, const char *const *names);

/* session_reconcile.c: RECONCILE's result columns (Describe of the
** extended protocol) and the statement. */
extern const char *const sl_reconcile_names[4];
extern const sl_type_id sl_reconcile_types[4];
int sl__reconcile_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);

#endif /* SL_RECONCILE_INT_H */
