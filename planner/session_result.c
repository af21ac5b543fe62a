/*
** session_result.c — the final table of a query's changelog, for the
** result modes that return final rows ('sql-client.execution.result-mode'
** = 'table', and every query in batch mode): rows of text values collected
** as the changes arrive, an insert (+I, +U) appended, a retraction (-U, -D)
** removing the newest equal row (as Flink's materialized result does), the
** surviving rows returned in order at the end.
**
** It sits in the session layer, before the sl_result_sink callbacks, so
** every front end (the shell, the PostgreSQL wire server) gets the same
** rows.
**
** The same table, public as sl_result_table, is the shell's full-screen
** view of result mode 'table' (a session with sl_session_set_live_table
** sends it the changes).
**
** Main routines: sl__rows_new, sl__rows_apply, sl__rows_emit, sl__rows_free,
** and the sl_result_table_* wrappers.
*/
#include "session_int.h"

#include <string.h>

struct sl__rows {
    int ncols;        /* values per row */
    int n, cap;       /* rows stored (alive or not), allocated */
    char ***vals;     /* per row: ncols values (NULL = SQL NULL), or NULL once retracted */
    size_t **lens;    /* per row: the values' lengths (a value may hold NUL bytes) */
    uint64_t *hash;   /* per row: its hash */
    int *next;        /* per row: the previous row of its bucket (-1: none) */
    int *heads;       /* per bucket: its newest row (-1: none) */
    int nbuckets;     /* a power of two */
    int alive;        /* rows not retracted */
};

static uint64_t sl__row_hash(const char *const *v, const size_t *lens, int ncols)
{
    uint64_t h = SL_HASH_INIT;
    for (int i = 0; i < ncols; i++) {
        uint64_t tag = v[i] ? lens[i] + 1 : 0; /* NULL, or the length */
        h = sl_hash_bytes(&tag, sizeof tag, h);
        if (v[i])
            h = sl_hash_bytes(v[i], lens[i], h);
    }
    return h;
}

static bool sl__row_equal(char *const *a, const size_t *alen, const char *const *b,
                          const size_t *blen, int ncols)
{
    for (int i = 0; i < ncols; i++) {
        if (!a[i] != !b[i])
            return false;
        if (a[i] && (alen[i] != blen[i] || memcmp(a[i], b[i], alen[i]) != 0))
            return false;
    }
    return true;
}

sl__rows *sl__rows_new(int ncols)
{
    sl__rows *r = sl_calloc(1, sizeof *r);
    r->ncols = ncols;
    r->nbuckets = 1024;
    r->heads = sl_malloc(sizeof(int) * (size_t)r->nbuckets);
    memset(r->heads, 0xFF, sizeof(int) * (size_t)r->nbuckets); /* -1 */
    return r;
}

static void sl__row_free(char **v, int ncols)
{
    if (!v)
        return;
    for (int i = 0; i < ncols; i++)
        sl_free(v[i]);
    sl_free(v);
}

void sl__rows_free(sl__rows *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n; i++) {
        sl__row_free(r->vals[i], r->ncols);
        sl_free(r->lens[i]);
    }
    sl_free(r->vals);
    sl_free(r->lens);
    sl_free(r->hash);
    sl_free(r->next);
    sl_free(r->heads);
    sl_free(r);
}

/* Double the buckets when the rows outnumber them. */
static void sl__rows_rehash(sl__rows *r)
{
    r->nbuckets *= 2;
    r->heads = sl_realloc(r->heads, sizeof(int) * (size_t)r->nbuckets);
    memset(r->heads, 0xFF, sizeof(int) * (size_t)r->nbuckets);
    for (int i = 0; i < r->n; i++) { /* in order, so each bucket's head stays the newest */
        int b = (int)(r->hash[i] & (uint64_t)(r->nbuckets - 1));
        r->next[i] = r->heads[b];
        r->heads[b] = i;
    }
}

void sl__rows_apply(sl__rows *r, sl_row_kind kind, const char *const *v, const size_t *lens)
{
    uint64_t h = sl__row_hash(v, lens, r->ncols);
    if (kind == SL_ROW_DELETE || kind == SL_ROW_UPDATE_BEFORE) {
        int b = (int)(h & (uint64_t)(r->nbuckets - 1));
        for (int i = r->heads[b]; i >= 0; i = r->next[i]) {
            if (r->vals[i] && r->hash[i] == h &&
                sl__row_equal(r->vals[i], r->lens[i], v, lens, r->ncols)) {
                sl__row_free(r->vals[i], r->ncols);
                sl_free(r->lens[i]);
                r->vals[i] = NULL;
                r->lens[i] = NULL;
                r->alive--;
                return;
            }
        }
        return; /* a retraction of a row that is not there: nothing to undo */
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->vals = sl_realloc(r->vals, sizeof(char **) * (size_t)r->cap);
        r->lens = sl_realloc(r->lens, sizeof(size_t *) * (size_t)r->cap);
        r->hash = sl_realloc(r->hash, sizeof(uint64_t) * (size_t)r->cap);
        r->next = sl_realloc(r->next, sizeof(int) * (size_t)r->cap);
    }
    char **copy = sl_calloc((size_t)r->ncols + 1, sizeof(char *));
    size_t *clen = sl_calloc((size_t)r->ncols + 1, sizeof(size_t));
    for (int i = 0; i < r->ncols; i++) {
        clen[i] = v[i] ? lens[i] : 0;
        if (v[i]) { /* the bytes as they are: a value may hold NUL bytes */
            copy[i] = sl_malloc(lens[i] + 1);
            memcpy(copy[i], v[i], lens[i]);
            copy[i][lens[i]] = '\0';
        }
    }
    int i = r->n++;
    r->vals[i] = copy;
    r->lens[i] = clen;
    r->hash[i] = h;
    int b = (int)(h & (uint64_t)(r->nbuckets - 1));
    r->next[i] = r->heads[b];
    r->heads[b] = i;
    r->alive++;
    if (r->n > r->nbuckets)
        sl__rows_rehash(r);
}

int64_t sl__rows_emit(const sl__rows *r, const char *kind, const sl_result_sink *out)
{
    int64_t sent = 0;
    int k = kind ? 1 : 0;
    const char **vals = sl_calloc((size_t)r->ncols + 2, sizeof(char *));
    size_t *lens = sl_calloc((size_t)r->ncols + 2, sizeof(size_t));
    vals[0] = kind;
    lens[0] = kind ? strlen(kind) : 0;
    for (int i = 0; i < r->n; i++) {
        if (!r->vals[i])
            continue;
        for (int c = 0; c < r->ncols; c++) {
            vals[k + c] = r->vals[i][c];
            lens[k + c] = r->lens[i][c];
        }
        sent++;
        if (out && out->row && out->row(out->ctx, vals, lens) != 0)
            break;
    }
    sl_free(vals);
    sl_free(lens);
    return sent;
}

/* ------------------------------------------------------------------------
** The public face (sl_planner.h): the same table for a front end.
*/
struct sl_result_table {
    sl__rows *rows;
};

sl_result_table *sl_result_table_new(int ncols)
{
    sl_result_table *t = sl_calloc(1, sizeof *t);
    t->rows = sl__rows_new(ncols > 0 ? ncols : 0);
    return t;
}

void sl_result_table_apply(sl_result_table *t, const char *op, const char *const *values,
                           const size_t *lens)
{
    sl_row_kind kind = SL_ROW_INSERT;
    if (op && strcmp(op, "-U") == 0)
        kind = SL_ROW_UPDATE_BEFORE;
    else if (op && strcmp(op, "+U") == 0)
        kind = SL_ROW_UPDATE_AFTER;
    else if (op && strcmp(op, "-D") == 0)
        kind = SL_ROW_DELETE;
    sl__rows_apply(t->rows, kind, values, lens);
}

int64_t sl_result_table_count(const sl_result_table *t)
{
    return t->rows->alive;
}

int sl_result_table_next(const sl_result_table *t, int i)
{
    for (i = i < 0 ? 0 : i + 1; i < t->rows->n; i++)
        if (t->rows->vals[i])
            return i;
    return -1;
}

const char *const *sl_result_table_row(const sl_result_table *t, int i, const size_t **lens)
{
    *lens = t->rows->lens[i];
    return (const char *const *)t->rows->vals[i];
}

void sl_result_table_free(sl_result_table *t)
{
    if (!t)
        return;
    sl__rows_free(t->rows);
    sl_free(t);
}
