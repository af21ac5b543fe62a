/*
** reconcile_int.h — what RECONCILE's files share (session_reconcile.c:
** the statement; reconcile_keys.c: the comparison on the key).
*/
#ifndef SL_RECONCILE_INT_H
#define SL_RECONCILE_INT_H

#include "session_int.h"

#include <pthread.h>
#include <stdatomic.h>

#define SL_RK_SAMPLES 5 /* sample keys per check */

/* The data checks, in the result's order. */
enum { SL_RK_MISSING, SL_RK_DUPLICATED, SL_RK_EXTRA, SL_RK_MISMATCHED, SL_RK_NCHECKS };

typedef struct sl_rk_check {
    int64_t count;                      /* keys that fail it */
    const void *samples[SL_RK_SAMPLES]; /* the smallest of them (entries of the table) */
    int nsamples;
} sl_rk_check;

/* The key table: sl_rk_add a row of the source (ledger false) or of the
** ledger, key and values encoded by sl_rk_encode, in any order. It is
** SL_RK_PARTS partitions by the key's hash (sl_rk_part): adds to one
** partition are serialized by its lock (sl_rk_lock), callers take it. */
#define SL_RK_PART_BITS 6
#define SL_RK_PARTS (1 << SL_RK_PART_BITS)
typedef struct sl_rk sl_rk;
sl_rk *sl_rk_new(void);
/* Bound the table's memory to bytes (0: no bound, the default): past it,
** partitions spill to files in a directory made under tmpdir (NULL:
** $TMPDIR), read back one at a time by sl_rk_checks and
** sl_rk_each_missing, which then stop at *interrupt (57014). Before any
** add. */
void sl_rk_set_budget(sl_rk *t, size_t bytes, const char *tmpdir,
                      const volatile sig_atomic_t *interrupt);
/* The first failure of a spill (58030: a full disk) or of reading one back
** (or 57014) into err (-1), else 0. After a failure the adds and checks
** go on without spilling: their results are not to be used. */
int sl_rk_error(const sl_rk *t, sl_error *err);
/* The most bytes counted at once when the budget was passed or while
** reading back (0 when nothing spilled), and the partitions spilled or
** split so far (tests). */
void sl_rk_stats(const sl_rk *t, size_t *peak, int *nspilled);
void sl_rk_free(sl_rk *t);
size_t sl_rk_count(const sl_rk *t);
void sl_rk_add(sl_rk *t, bool ledger, const char *key, size_t klen, const char *vals, size_t vlen);
/* The same with the key's sl_rk_hash computed before (a batch hashes and
** sl_rk_prefetch'es its keys' slots first, then adds). */
uint64_t sl_rk_hash(const char *key, size_t klen);
void sl_rk_prefetch(const sl_rk *t, uint64_t h);
void sl_rk_add_hashed(sl_rk *t, bool ledger, uint64_t h, const char *key, size_t klen,
                      const char *vals, size_t vlen);
int sl_rk_part(uint64_t h);
void sl_rk_lock(sl_rk *t, int part);
void sl_rk_unlock(sl_rk *t, int part);
/* The four checks (samples point into t, valid until sl_rk_free). */
void sl_rk_checks(const sl_rk *t, sl_rk_check out[SL_RK_NCHECKS]);
/* Append n values (NULL = SQL NULL) encoded for the table. */
void sl_rk_encode(sl_strbuf *sb, int n, const char *const *values, const size_t *lens);
/* Call fn with the first key column's value of every missing key (in
** the source, not in the ledger; NULL keys left out). */
void sl_rk_each_missing(const sl_rk *t, void (*fn)(void *ctx, const char *v, size_t len),
                        void *ctx);
/* Append a sample's key as "name=value" (n columns in parentheses). */
void sl_rk_key_format(sl_strbuf *sb, const void *entry, int n, const char *const *names);

/* One check's row. */
typedef struct sl__rec_row {
    const char *check; /* its name */
    bool ok;
    int64_t count;
    char *sample;      /* owned */
} sl__rec_row;

/* The statement's resolution: both tables and the compared columns. */
typedef struct sl__rec {
    sl_session *s;
    const sl_stmt *st;
    const sl_table *ledger, *source;
    int nk, nc;              /* key and COMPARE columns */
    const char **names;      /* nk + nc names */
    sl_type *types;          /* their common types */
    bool ledger_where;       /* the predicate applies to the ledger too */
    sl_rk *keys;             /* the comparison */
    atomic_bool stop;        /* a side failed: the other stops */
    sl_kvlist *bound;        /* options bounding the source at its end now, or NULL */
    sl_kvlist *lbound;       /* ... the ledger (Kafka: its end; jdbc: scan.copy), or NULL */
    sl_strbuf input;         /* the input boundary: those end positions ("p0:12 p1:9") */
} sl__rec;

/* session_reconcile.c: t's column called name, or NULL. */
const sl_column *sl__rec_col_of(const sl_table *t, const char *name);
/* session_reconcile.c: a fork of the session that reads bounded tables as
** queries (batch); run a query (freed) in it, rows to sink. */
sl_session *sl__rec_fork(sl_session *s);
/* SELECT col FROM table [WHERE where] as a statement at RECONCILE's
** position (takes where). */
sl_stmt *sl__rec_select_col(const sl__rec *r, const char *col, const char *table,
                            sl_expr *where);
int sl__rec_run(sl__rec *r, sl_session *f, sl_stmt *q, const sl_result_sink *sink,
                sl_error *err);
/* reconcile_push.c: the conjuncts of where a PostgreSQL ledger's COPY can
** take as its own condition (PostgreSQL's SQL, ledger's columns), or NULL
** when none: a condition every row where keeps satisfies. */
char *sl__rec_pg_where(const sl_table *ledger, const sl_expr *where);
/* reconcile_job.c: FOR JOB's four rows (input, recovery, commit boundaries,
** watermark) into rows[0..3]; 42704 for an unknown job. */
int sl__rec_job_checks(sl__rec *r, sl__rec_row *rows, sl_error *err);

/* reconcile_repair.c: REPAIR's condition on the ledger (55000 unless its
** insert is idempotent), checked before anything is read; the re-feed of
** the missing keys through the job's INSERT (FOR JOB) or the ledger's
** columns from the source. */
int sl__rec_repair_check(sl__rec *r, sl_error *err);
int sl__rec_repair(sl__rec *r, sl_error *err);

/* session_reconcile.c: RECONCILE's result columns (Describe of the
** extended protocol) and the statement. */
extern const char *const sl_reconcile_names[4];
extern const sl_type_id sl_reconcile_types[4];
int sl__reconcile_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err);

#endif /* SL_RECONCILE_INT_H */
