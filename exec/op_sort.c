/*
** op_sort.c — ORDER BY over a bounded input: a stable sort of row indexes by
** the key columns, each ascending or descending, NULLs last when ascending
** and first when descending unless NULLS FIRST / LAST says otherwise
** (PostgreSQL's rule). Strings compare by their bytes (the C collation,
** PostgreSQL's "C": UTF-8 byte order is code point order).
**
** Main routines: sl_sort_bounded.
*/
#include "sl_exec.h"
#include "value_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct sl__sortctx {
    const sl_chunk *in;        /* the rows */
    const sl_sort_key *keys;   /* the keys */
    int nkeys;                 /* their number */
} sl__sortctx;

static int sl__cmp_val(sl_phys ph, sl__val a, sl__val b)
{
    switch (ph) {
    case SL_PHYS_BOOL:
    case SL_PHYS_I64: return a.i < b.i ? -1 : a.i > b.i;
    case SL_PHYS_F64: return a.f < b.f ? -1 : a.f > b.f;
    case SL_PHYS_I128: return a.d < b.d ? -1 : a.d > b.d;
    case SL_PHYS_STR: {
        uint32_t n = a.s.len < b.s.len ? a.s.len : b.s.len;
        int c = n ? memcmp(a.s.p, b.s.p, n) : 0;
        return c ? (c < 0 ? -1 : 1) : (a.s.len < b.s.len ? -1 : a.s.len > b.s.len);
    }
    }
    return 0;
}

static int sl__cmp_rows(const sl__sortctx *c, int x, int y)
{
    for (int k = 0; k < c->nkeys; k++) {
        const sl_sort_key *key = &c->keys[k];
        const sl_vector *v = &c->in->cols[key->col];
        bool nx = v->nulls[x], ny = v->nulls[y];
        int r;
        if (nx || ny) {
            bool nulls_first = key->nulls ? key->nulls == 1 : key->desc;
            r = nx == ny ? 0 : (nx ? -1 : 1) * (nulls_first ? 1 : -1);
            if (r)
                return r;
            continue;
        }
        r = sl__cmp_val(v->phys, sl__load(v, x), sl__load(v, y));
        if (r)
            return key->desc ? -r : r;
    }
    return x < y ? -1 : x > y; /* stable */
}

/* A merge sort: qsort has no context argument in C11, and is not stable. */
static void sl__msort(const sl__sortctx *c, int *a, int *tmp, int n)
{
    if (n < 2)
        return;
    int h = n / 2;
    sl__msort(c, a, tmp, h);
    sl__msort(c, a + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = sl__cmp_rows(c, a[i], a[j]) <= 0 ? a[i++] : a[j++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, sizeof(int) * (size_t)n);
}

bool sl_chunk_values_equal(const sl_chunk *c, int col, int a, int b)
{
    const sl_vector *v = &c->cols[col];
    if (v->nulls[a] || v->nulls[b])
        return v->nulls[a] && v->nulls[b];
    return sl__cmp_val(v->phys, sl__load(v, a), sl__load(v, b)) == 0;
}

void sl_sort_bounded(const sl_chunk *in, const sl_sort_key *keys, int nkeys, int *perm)
{
    for (int i = 0; i < in->nrows; i++)
        perm[i] = i;
    int *tmp = sl_malloc(sizeof(int) * ((size_t)in->nrows + 1));
    sl__sortctx c = {in, keys, nkeys};
    sl__msort(&c, perm, tmp, in->nrows);
    sl_free(tmp);
}
