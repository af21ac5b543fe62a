/*
** srf.c — set-returning functions in a select list (PostgreSQL's
** ProjectSet), for the bounded query path (bounded.c). A call in a select
** list becomes an SL_LP_EXPAND node under the projection (bind.c): its
** input's columns, then each function's columns. Their result is
** composite: `(f(a)).col` names one of its columns; `f(a)` alone as a select
** item stands for all of them, as columns named "item.col" that a query
** around it reads with `(item).col`. The calls of one select list run in
** lockstep, as in PostgreSQL 10 and later: the longest set gives the number
** of rows, the others are NULL past their end; an input row whose sets are
** all empty gives no row.
**
**   information_schema._pg_expandarray(array) -> (x int, n int)
**       each element x of an integer array with its 1-based position n;
**       catalog arrays are text here (syscat.c): int2vector's '1 2' and an
**       array's '{1,2}' both read as the elements 1 and 2
**
** Main routines: sl_srf_find, sl_srf_name, sl_srf_cols, sl_srf_rows.
*/
#include "planner_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct sl__srf {
    const char *name; /* lower case */
    int ncols;        /* result columns */
    const char *cols[4];
} sl__srf;

static const sl__srf sl__srfs[] = {
    {"_pg_expandarray", 2, {"x", "n"}},
};

int sl_srf_find(const char *name)
{
    for (size_t i = 0; name && i < SL_ARRAY_LEN(sl__srfs); i++)
        if (sl_strcasecmp(name, sl__srfs[i].name) == 0)
            return (int)i;
    return -1;
}

const char *sl_srf_name(int id) { return sl__srfs[id].name; }

int sl_srf_cols(int id, const char **names, sl_type *types)
{
    const sl__srf *f = &sl__srfs[id];
    for (int i = 0; i < f->ncols; i++) {
        names[i] = f->cols[i];
        types[i] = sl_type_make(SL_TYPE_INT);
    }
    return f->ncols;
}

/* The elements of an integer array's text into out (at most max); their
** count, or -1 with err set. */
static int sl__int_array(const char *p, size_t n, int pos, int32_t *out, int max, sl_error *err)
{
    int k = 0;
    size_t i = 0;
    while (i < n && p[i] == ' ')
        i++;
    if (i < n && p[i] == '{')
        i++;
    while (i < n) {
        while (i < n && (p[i] == ' ' || p[i] == ',' || p[i] == '}'))
            i++;
        if (i >= n)
            break;
        size_t j = i;
        if (p[j] == '-' || p[j] == '+')
            j++;
        while (j < n && isdigit((unsigned char)p[j]))
            j++;
        bool digits = j > i + (p[i] == '-' || p[i] == '+' ? 1u : 0u);
        if (!digits || (j < n && p[j] != ' ' && p[j] != ',' && p[j] != '}')) {
            sl_error_set(err, SL_ERR_INVALID_TEXT, pos, "malformed array literal: \"%.*s\"",
                         (int)(n > 200 ? 200 : n), p);
            return -1;
        }
        char num[32];
        size_t len = j - i < sizeof num - 1 ? j - i : sizeof num - 1;
        memcpy(num, p + i, len);
        num[len] = 0;
        errno = 0;
        long long v = strtoll(num, NULL, 10);
        if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
            sl_error_set(err, SL_ERR_NUMERIC_RANGE, pos, "value \"%s\" is out of range for type integer",
                         num);
            return -1;
        }
        if (k >= max) {
            sl_error_set(err, SL_ERR_PROGRAM_LIMIT, pos, "an array has more than %d elements", max);
            return -1;
        }
        out[k++] = (int32_t)v;
        i = j;
    }
    return k;
}

#define SL__SRF_MAX 1600 /* elements of one array (PostgreSQL's INDEX_MAX_KEYS is 32) */

sl_chunk *sl_srf_rows(int id, const sl_chunk *args, int col, int r, int pos, sl_error *err)
{
    const char *names[4];
    sl_type types[4];
    int nc = sl_srf_cols(id, names, types);
    const sl_vector *v = &args->cols[col];
    int32_t *el = sl_calloc(SL__SRF_MAX, sizeof(int32_t));
    int n = 0;
    if (!v->nulls[r]) {
        n = sl__int_array(v->v.str[r].ptr, v->v.str[r].len, pos, el, SL__SRF_MAX, err);
        if (n < 0) {
            sl_free(el);
            return NULL;
        }
    }
    sl_chunk *out = sl_chunk_new(nc, types, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        int d = sl_chunk_append_row(out, SL_ROW_INSERT);
        sl_chunk_set_i64(out, 0, d, el[i]);
        sl_chunk_set_i64(out, 1, d, i + 1);
    }
    sl_free(el);
    return out;
}
