/*
** eval_array.c — ARRAY and MAP functions for the evaluator (the registry
** entries are planner/functions.c's): the constructors ARRAY[...] and
** MAP[...], element access arr[i] / map[key] (ITEM), CARDINALITY, ELEMENT,
** ARRAY_CONTAINS, ARRAY_DISTINCT, ARRAY_POSITION, ARRAY_REMOVE,
** ARRAY_REVERSE, ARRAY_SLICE, ARRAY_UNION, ARRAY_CONCAT, ARRAY_MAX,
** ARRAY_MIN, ARRAY_JOIN, ARRAY_APPEND, ARRAY_PREPEND, ARRAY_EXCEPT,
** ARRAY_INTERSECT, ARRAY_SORT, MAP_KEYS, MAP_VALUES, MAP_FROM_ARRAYS,
** MAP_UNION, SPLIT, and CAST of ARRAY / MAP values (to
** another element type, element by element through the one evaluator; to
** STRING as Flink's text).
**
** Values are sl_exec.h's bytes ("ARRAY and MAP values"): most functions
** work on the elements' byte ranges (sl_array_split) without decoding them,
** and since the encoding is canonical, elements are equal (ARRAY_CONTAINS,
** ARRAY_DISTINCT, map keys) when their bytes are. The compiler coerces the
** arguments first (sl__array_coerce_args), so an element looked for has
** the array's element type. Semantics are Flink 2.2's (checked against it):
** NULL elements are values (ARRAY_DISTINCT keeps one, ARRAY_CONTAINS finds
** one), out-of-range indexes and absent keys give NULL, a MAP's later
** duplicate key replaces the earlier one's value.
**
** Main routines: sl__compile_fn_array, sl__array_coerce_args,
** sl__mk_composite_cast.
*/
#include "eval_int.h"

#include <string.h>

/* Per-node scratch (aux): output and needle buffers, and for CAST the
** element programs with their chunks. */
typedef struct sl__arr_aux {
    sl_strbuf sb;            /* the value being built */
    sl_strbuf needle;        /* an encoded element looked for; scratch for a value built */
    sl_eval_prog *sub[2];    /* CAST: element (key, value) conversions */
    sl_chunk *in[2], *out[2];/* CAST: their input and output */
} sl__arr_aux;

static void sl__arr_aux_free(void *p)
{
    sl__arr_aux *a = p;
    if (!a)
        return;
    sl_strbuf_free(&a->sb);
    sl_strbuf_free(&a->needle);
    for (int i = 0; i < 2; i++) {
        sl_eval_free(a->sub[i]);
        sl_chunk_free(a->in[i]);
        sl_chunk_free(a->out[i]);
    }
    sl_free(a);
}

static sl__arr_aux *sl__aux(sl__node *nd)
{
    if (!nd->aux) {
        nd->aux = sl_calloc(1, sizeof(sl__arr_aux));
        nd->aux_free = sl__arr_aux_free;
    }
    return nd->aux;
}

/* A vector over a node's result (to encode or decode its rows). */
static sl_vector sl__vec(const sl__node *k)
{
    sl_vector v = {k->type, k->phys, k->nulls, {.raw = k->v.raw}};
    return v;
}

/* The elements of row i of k (an ARRAY or MAP); 0, or -1 (XX001) when
** its bytes are malformed. */
static int sl__split(sl__node *nd, sl__eval *ev, const sl__node *k, int i, uint32_t *c, size_t **o)
{
    const sl_str *s = &k->v.str[i];
    if (sl_array_split((const uint8_t *)s->ptr, s->len, k->type, c, o))
        return 0;
    return sl__fail(ev, nd, "XX001", "malformed %s value", k->type.id == SL_TYPE_MAP ? "MAP" : "ARRAY");
}

#define SL__EL(k, i, o, j) ((const uint8_t *)(k)->v.str[i].ptr + (o)[j])
#define SL__ELN(o, j) ((o)[(j) + 1] - (o)[j])

static bool sl__el_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && memcmp(a, b, an) == 0;
}

/* Start a value of count elements in sb (the count is patched by sl__end). */
static void sl__begin(sl_strbuf *sb)
{
    sl_strbuf_reset(sb);
    sl_put_u32(sb, 0);
}

static void sl__end(sl__node *nd, sl__eval *ev, int i, sl_strbuf *sb, uint32_t count)
{
    char *p = (char *)sl_strbuf_cstr(sb);
    for (int b = 0; b < 4; b++)
        p[b] = (char)(count >> (8 * b));
    sl__set_str(nd, ev, i, p, sb->len);
}

/* Row i of nd = the element p[0..n) (its type is nd's). */
static void sl__take(sl__node *nd, int i, const uint8_t *p, size_t n)
{
    sl_vector v = sl__vec(nd);
    if (!sl_vector_value_get(p, n, &v, i))
        nd->nulls[i] = 1;
}

/* The encoded value of row i of k into sb (reset first). */
static void sl__encode(sl_strbuf *sb, const sl__node *k, int i)
{
    sl_strbuf_reset(sb);
    sl_vector v = sl__vec(k);
    sl_vector_value_put(sb, &v, i);
}

/* Append the MAP entries keys[j] -> vals[j] (j < n; byte ranges) to sb: a
** later duplicate key replaces the value of the first. Returns the entries. */
static uint32_t sl__map_emit(sl_strbuf *sb, uint32_t n, const uint8_t *const *kp, const size_t *kn,
                             const uint8_t *const *vp, const size_t *vn)
{
    uint32_t out = 0;
    for (uint32_t j = 0; j < n; j++) {
        bool seen = false;
        for (uint32_t e = 0; e < j && !seen; e++)
            seen = sl__el_eq(kp[e], kn[e], kp[j], kn[j]);
        if (seen)
            continue;
        uint32_t last = j;
        for (uint32_t e = j + 1; e < n; e++)
            if (sl__el_eq(kp[e], kn[e], kp[j], kn[j]))
                last = e;
        sl_strbuf_append_n(sb, (const char *)kp[j], kn[j]);
        sl_strbuf_append_n(sb, (const char *)vp[last], vn[last]);
        out++;
    }
    return out;
}

/* ========================================================================
** Constructors.
*/

static int sl__k_ctor(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    sl__arr_aux *a = sl__aux(nd);
    int n = ev->n, nk = nd->nkids;
    bool map = nd->op == SL_FN_MAP_CTOR;
    const uint8_t **kp = map ? sl_malloc((size_t)nk * sizeof *kp) : NULL;
    size_t *kn = map ? sl_malloc((size_t)nk * sizeof *kn) : NULL;
    size_t *at = map ? sl_malloc((size_t)(nk + 1) * sizeof *at) : NULL;
    for (int i = 0; i < n; i++) {
        nd->nulls[i] = 0;
        if (sel && !sel[i])
            continue;
        if (!map) {
            sl__begin(&a->sb);
            for (int k = 0; k < nk; k++) {
                sl_vector v = sl__vec(nd->kids[k]);
                sl_vector_value_put(&a->sb, &v, i);
            }
            sl__end(nd, ev, i, &a->sb, (uint32_t)nk);
            continue;
        }
        /* encode every key and value, then emit without duplicate keys */
        sl_strbuf_reset(&a->needle);
        for (int k = 0; k < nk; k++) {
            at[k] = a->needle.len;
            sl_vector v = sl__vec(nd->kids[k]);
            sl_vector_value_put(&a->needle, &v, i);
        }
        at[nk] = a->needle.len;
        const uint8_t *base = (const uint8_t *)sl_strbuf_cstr(&a->needle);
        int np = nk / 2;
        const uint8_t **vp = kp + np;
        size_t *vn = kn + np;
        for (int j = 0; j < np; j++) {
            kp[j] = base + at[2 * j];
            kn[j] = at[2 * j + 1] - at[2 * j];
            vp[j] = base + at[2 * j + 1];
            vn[j] = at[2 * j + 2] - at[2 * j + 1];
        }
        sl__begin(&a->sb);
        uint32_t cnt = sl__map_emit(&a->sb, (uint32_t)np, kp, kn, vp, vn);
        sl__end(nd, ev, i, &a->sb, cnt);
    }
    sl_free(kp);
    sl_free(kn);
    sl_free(at);
    return 0;
}

/* ========================================================================
** Access: arr[i], map[key], CARDINALITY, ELEMENT, ARRAY_CONTAINS,
** ARRAY_POSITION, ARRAY_MAX, ARRAY_MIN.
*/

static int sl__k_item(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl__node *arr = nd->kids[0], *key = nd->kids[1];
    bool map = arr->type.id == SL_TYPE_MAP;
    sl__arr_aux *a = sl__aux(nd);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        uint32_t c;
        size_t *o;
        if (sl__split(nd, ev, arr, i, &c, &o) < 0)
            return -1;
        nd->nulls[i] = 1;
        if (!map) {
            int64_t x = key->v.i64[i];
            if (x >= 1 && (uint64_t)x <= c)
                sl__take(nd, i, SL__EL(arr, i, o, x - 1), SL__ELN(o, x - 1));
        } else {
            sl__encode(&a->needle, key, i);
            const uint8_t *kb = (const uint8_t *)sl_strbuf_cstr(&a->needle);
            for (uint32_t j = 0; j < c; j += 2)
                if (sl__el_eq(SL__EL(arr, i, o, j), SL__ELN(o, j), kb, a->needle.len)) {
                    sl__take(nd, i, SL__EL(arr, i, o, j + 1), SL__ELN(o, j + 1));
                    break;
                }
        }
        sl_free(o);
    }
    return 0;
}

/* CARDINALITY, ELEMENT, ARRAY_POSITION, ARRAY_MAX, ARRAY_MIN: strict. */
static int sl__k_scalar(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl__node *arr = nd->kids[0];
    sl__arr_aux *a = sl__aux(nd);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        uint32_t c;
        size_t *o;
        if (sl__split(nd, ev, arr, i, &c, &o) < 0)
            return -1;
        switch (nd->op) {
        case SL_FN_CARDINALITY:
            nd->v.i64[i] = arr->type.id == SL_TYPE_MAP ? c / 2 : c;
            break;
        case SL_FN_ELEMENT:
            if (c > 1) {
                sl_free(o);
                return sl__fail(ev, nd, SL_ERR_CARDINALITY, "ELEMENT of an array of %u elements", c);
            }
            nd->nulls[i] = 1;
            if (c == 1)
                sl__take(nd, i, SL__EL(arr, i, o, 0), SL__ELN(o, 0));
            break;
        case SL_FN_ARRAY_POSITION: {
            sl__encode(&a->needle, nd->kids[1], i);
            const uint8_t *kb = (const uint8_t *)sl_strbuf_cstr(&a->needle);
            nd->v.i64[i] = 0;
            for (uint32_t j = 0; j < c; j++)
                if (sl__el_eq(SL__EL(arr, i, o, j), SL__ELN(o, j), kb, a->needle.len)) {
                    nd->v.i64[i] = j + 1;
                    break;
                }
            break;
        }
        default: { /* ARRAY_MAX, ARRAY_MIN: over the non-NULL elements */
            sl_vector v = sl__vec(nd);
            nd->nulls[i] = 1;
            int want = nd->op == SL_FN_ARRAY_MAX ? 1 : -1;
            /* row i holds the best so far (re-read from its bytes), the
            ** candidate is decoded into a one-row scratch vector */
            const uint8_t *best = NULL;
            size_t bestn = 0;
            for (uint32_t j = 0; j < c; j++) {
                const uint8_t *p = SL__EL(arr, i, o, j);
                if (p[0])
                    continue; /* NULL element */
                if (!best) {
                    best = p, bestn = SL__ELN(o, j);
                    continue;
                }
                sl_vector_value_get(best, bestn, &v, i);
                sl_value_box cb;
                sl_value_box_init(&cb, nd->type);
                sl_vector_value_get(p, SL__ELN(o, j), &cb.v, 0);
                int r;
                switch (nd->phys) {
                case SL_PHYS_BOOL: r = (int)cb.val.b - (int)v.v.b[i]; break;
                case SL_PHYS_I64: r = cb.val.i64 < v.v.i64[i] ? -1 : cb.val.i64 > v.v.i64[i]; break;
                case SL_PHYS_F64: r = cb.val.f64 < v.v.f64[i] ? -1 : cb.val.f64 > v.v.f64[i]; break;
                case SL_PHYS_I128: r = cb.val.i128 < v.v.i128[i] ? -1 : cb.val.i128 > v.v.i128[i]; break;
                default: {
                    sl_str x = cb.val.str, y = v.v.str[i];
                    int m = memcmp(x.ptr, y.ptr, x.len < y.len ? x.len : y.len);
                    r = m ? m : (x.len < y.len ? -1 : x.len > y.len);
                    break;
                }
                }
                if (r * want > 0)
                    best = p, bestn = SL__ELN(o, j);
            }
            if (best)
                sl__take(nd, i, best, bestn);
            break;
        }
        }
        sl_free(o);
    }
    return 0;
}

/* ARRAY_CONTAINS(arr, x): NULL only for a NULL array; a NULL x finds a NULL element. */
static int sl__k_contains(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__node *arr = nd->kids[0];
    sl__arr_aux *a = sl__aux(nd);
    memcpy(nd->nulls, arr->nulls, (size_t)n);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        uint32_t c;
        size_t *o;
        if (sl__split(nd, ev, arr, i, &c, &o) < 0)
            return -1;
        sl__encode(&a->needle, nd->kids[1], i);
        const uint8_t *kb = (const uint8_t *)sl_strbuf_cstr(&a->needle);
        nd->v.b[i] = 0;
        for (uint32_t j = 0; j < c && !nd->v.b[i]; j++)
            nd->v.b[i] = sl__el_eq(SL__EL(arr, i, o, j), SL__ELN(o, j), kb, a->needle.len);
        sl_free(o);
    }
    return 0;
}

/* ========================================================================
** Arrays from arrays: ARRAY_DISTINCT, ARRAY_REMOVE, ARRAY_REVERSE,
** ARRAY_SLICE, ARRAY_UNION, ARRAY_CONCAT, ARRAY_APPEND, ARRAY_PREPEND,
** MAP_KEYS, MAP_VALUES, MAP_FROM_ARRAYS.
*/

static int sl__k_reshape(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    bool lenient = nd->op == SL_FN_ARRAY_REMOVE || nd->op == SL_FN_ARRAY_APPEND ||
                   nd->op == SL_FN_ARRAY_PREPEND; /* the element may be NULL */
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    if (lenient)
        memcpy(nd->nulls, nd->kids[0]->nulls, (size_t)n);
    else
        sl__or_nulls(nd, n);
    sl__arr_aux *a = sl__aux(nd);
    int nk = nd->nkids;
    uint32_t cs[2];
    size_t *os[2] = {NULL, NULL};
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        sl__begin(&a->sb);
        uint32_t cnt = 0;
        bool distinct = nd->op == SL_FN_ARRAY_DISTINCT || nd->op == SL_FN_ARRAY_UNION ||
                        nd->op == SL_FN_ARRAY_EXCEPT || nd->op == SL_FN_ARRAY_INTERSECT;
        /* distinct elements are checked against a list of kept ranges */
        const uint8_t **kept = NULL;
        size_t *keptn = NULL;
        size_t nkept = 0, capkept = 0;
#define SL__KEEP(P, N)                                                                        \
    do {                                                                                      \
        const uint8_t *p_ = (P);                                                              \
        size_t n_ = (N);                                                                      \
        bool dup_ = false;                                                                    \
        for (size_t e_ = 0; distinct && e_ < nkept && !dup_; e_++)                            \
            dup_ = sl__el_eq(kept[e_], keptn[e_], p_, n_);                                    \
        if (!dup_) {                                                                          \
            if (distinct) {                                                                   \
                if (nkept == capkept) {                                                       \
                    capkept = capkept ? 2 * capkept : 16;                                     \
                    kept = sl_realloc(kept, capkept * sizeof *kept);                          \
                    keptn = sl_realloc(keptn, capkept * sizeof *keptn);                       \
                }                                                                             \
                kept[nkept] = p_, keptn[nkept++] = n_;                                        \
            }                                                                                 \
            sl_strbuf_append_n(&a->sb, (const char *)p_, n_);                                 \
            cnt++;                                                                            \
        }                                                                                     \
    } while (0)
        switch (nd->op) {
        case SL_FN_ARRAY_CONCAT:
        case SL_FN_ARRAY_UNION:
            for (int k = 0; k < nk; k++) {
                uint32_t c;
                size_t *o;
                if (sl__split(nd, ev, nd->kids[k], i, &c, &o) < 0)
                    goto fail;
                for (uint32_t j = 0; j < c; j++)
                    SL__KEEP(SL__EL(nd->kids[k], i, o, j), SL__ELN(o, j));
                sl_free(o);
            }
            break;
        case SL_FN_ARRAY_EXCEPT:
        case SL_FN_ARRAY_INTERSECT: { /* distinct elements of the first (not) in the second */
            for (int k = 0; k < 2; k++)
                if (sl__split(nd, ev, nd->kids[k], i, &cs[k], &os[k]) < 0)
                    goto fail;
            for (uint32_t j = 0; j < cs[0]; j++) {
                const uint8_t *p = SL__EL(nd->kids[0], i, os[0], j);
                size_t len = SL__ELN(os[0], j);
                bool in = false;
                for (uint32_t e = 0; e < cs[1] && !in; e++)
                    in = sl__el_eq(SL__EL(nd->kids[1], i, os[1], e), SL__ELN(os[1], e), p, len);
                if (in == (nd->op == SL_FN_ARRAY_INTERSECT))
                    SL__KEEP(p, len);
            }
            sl_free(os[0]);
            sl_free(os[1]);
            os[0] = os[1] = NULL;
            break;
        }
        case SL_FN_MAP_UNION: { /* every entry; a later map's value wins, in the first place */
            uint32_t tot = 0;
            size_t **oo = sl_calloc((size_t)nk, sizeof *oo);
            uint32_t *cc = sl_calloc((size_t)nk, sizeof *cc);
            const uint8_t **kp = NULL;
            size_t *kn = NULL;
            int nm = nk;
            for (int k = 0; k < nm; k++) {
                if (sl__split(nd, ev, nd->kids[k], i, &cc[k], &oo[k]) < 0) {
                    for (int e = 0; e < k; e++)
                        sl_free(oo[e]);
                    sl_free(oo);
                    sl_free(cc);
                    goto fail;
                }
                tot += cc[k] / 2;
            }
            kp = sl_malloc(2 * ((size_t)tot + 1) * sizeof *kp);
            kn = sl_malloc(2 * ((size_t)tot + 1) * sizeof *kn);
            uint32_t at = 0;
            for (int k = 0; k < nm; k++) {
                for (uint32_t j = 0; j < cc[k]; j += 2, at++) {
                    kp[at] = SL__EL(nd->kids[k], i, oo[k], j), kn[at] = SL__ELN(oo[k], j);
                    kp[tot + at] = SL__EL(nd->kids[k], i, oo[k], j + 1);
                    kn[tot + at] = SL__ELN(oo[k], j + 1);
                }
                sl_free(oo[k]);
            }
            sl_free(oo);
            sl_free(cc);
            cnt = sl__map_emit(&a->sb, tot, kp, kn, kp + tot, kn + tot);
            sl_free(kp);
            sl_free(kn);
            break;
        }
        case SL_FN_ARRAY_APPEND:
        case SL_FN_ARRAY_PREPEND: {
            uint32_t c;
            size_t *o;
            if (sl__split(nd, ev, nd->kids[0], i, &c, &o) < 0)
                goto fail;
            sl__encode(&a->needle, nd->kids[1], i);
            if (nd->op == SL_FN_ARRAY_PREPEND)
                SL__KEEP((const uint8_t *)sl_strbuf_cstr(&a->needle), a->needle.len);
            for (uint32_t j = 0; j < c; j++)
                SL__KEEP(SL__EL(nd->kids[0], i, o, j), SL__ELN(o, j));
            if (nd->op == SL_FN_ARRAY_APPEND)
                SL__KEEP((const uint8_t *)sl_strbuf_cstr(&a->needle), a->needle.len);
            sl_free(o);
            break;
        }
        case SL_FN_MAP_FROM_ARRAYS: {
            for (int k = 0; k < 2; k++)
                if (sl__split(nd, ev, nd->kids[k], i, &cs[k], &os[k]) < 0)
                    goto fail;
            if (cs[0] != cs[1]) {
                sl__fail(ev, nd, SL_ERR_INVALID_PARAMETER,
                         "MAP_FROM_ARRAYS: the keys array has %u elements, the values array %u",
                         cs[0], cs[1]);
                goto fail;
            }
            const uint8_t **kp = sl_malloc(2 * ((size_t)cs[0] + 1) * sizeof *kp);
            size_t *kn = sl_malloc(2 * ((size_t)cs[0] + 1) * sizeof *kn);
            for (uint32_t j = 0; j < cs[0]; j++) {
                kp[j] = SL__EL(nd->kids[0], i, os[0], j), kn[j] = SL__ELN(os[0], j);
                kp[cs[0] + j] = SL__EL(nd->kids[1], i, os[1], j), kn[cs[0] + j] = SL__ELN(os[1], j);
            }
            cnt = sl__map_emit(&a->sb, cs[0], kp, kn, kp + cs[0], kn + cs[0]);
            sl_free(kp);
            sl_free(kn);
            sl_free(os[0]);
            sl_free(os[1]);
            os[0] = os[1] = NULL;
            break;
        }
        default: {
            uint32_t c;
            size_t *o;
            sl__node *arr = nd->kids[0];
            if (sl__split(nd, ev, arr, i, &c, &o) < 0)
                goto fail;
            if (nd->op == SL_FN_ARRAY_REMOVE)
                sl__encode(&a->needle, nd->kids[1], i);
            int64_t from = 0, to = c; /* elements [from, to) */
            if (nd->op == SL_FN_ARRAY_SLICE && c > 0) {
                /* Flink's: 1-based, negative from the end, 0 is the start */
                int64_t s = nd->kids[1]->v.i64[i];
                int64_t e = nk > 2 ? nd->kids[2]->v.i64[i] : (int64_t)c;
                s += s < 0 ? (int64_t)c + 1 : 0;
                e += e < 0 ? (int64_t)c + 1 : 0;
                s = s < 1 ? 1 : s;
                e = e == 0 ? 1 : (e > (int64_t)c ? (int64_t)c : e);
                from = s - 1;
                to = e < s ? from : e;
            }
            for (uint32_t jj = 0; jj < c; jj++) {
                uint32_t j = nd->op == SL_FN_ARRAY_REVERSE ? c - 1 - jj : jj;
                const uint8_t *p = SL__EL(arr, i, o, j);
                size_t len = SL__ELN(o, j);
                if ((int64_t)j < from || (int64_t)j >= to)
                    continue;
                if (nd->op == SL_FN_MAP_KEYS && (j & 1))
                    continue;
                if (nd->op == SL_FN_MAP_VALUES && !(j & 1))
                    continue;
                if (nd->op == SL_FN_ARRAY_REMOVE &&
                    sl__el_eq(p, len, (const uint8_t *)sl_strbuf_cstr(&a->needle), a->needle.len))
                    continue;
                SL__KEEP(p, len);
            }
            sl_free(o);
            break;
        }
        }
#undef SL__KEEP
        sl_free(kept);
        sl_free(keptn);
        sl__end(nd, ev, i, &a->sb, cnt);
        continue;
    fail:
        sl_free(kept);
        sl_free(keptn);
        sl_free(os[0]);
        sl_free(os[1]);
        return -1;
    }
    return 0;
}

/* ARRAY_SORT(arr [, ascending [, nulls_first]]): Flink's; NULLs first when
** ascending, last when descending, unless told; equal elements keep their
** order. */
typedef struct sl__sort_ctx {
    sl_vector v;  /* the decoded elements */
    bool asc, nulls_first;
} sl__sort_ctx;

static int sl__sort_cmp(const sl__sort_ctx *s, int a, int b)
{
    const sl_vector *v = &s->v;
    if (v->nulls[a] || v->nulls[b]) {
        if (v->nulls[a] && v->nulls[b])
            return 0;
        return (v->nulls[a] ? -1 : 1) * (s->nulls_first ? 1 : -1);
    }
    int r;
    switch (v->phys) {
    case SL_PHYS_BOOL: r = (int)v->v.b[a] - (int)v->v.b[b]; break;
    case SL_PHYS_I64: r = v->v.i64[a] < v->v.i64[b] ? -1 : v->v.i64[a] > v->v.i64[b]; break;
    case SL_PHYS_F64: r = v->v.f64[a] < v->v.f64[b] ? -1 : v->v.f64[a] > v->v.f64[b]; break;
    case SL_PHYS_I128: r = v->v.i128[a] < v->v.i128[b] ? -1 : v->v.i128[a] > v->v.i128[b]; break;
    default: {
        sl_str x = v->v.str[a], y = v->v.str[b];
        int m = memcmp(x.ptr, y.ptr, x.len < y.len ? x.len : y.len);
        r = m ? m : (x.len < y.len ? -1 : x.len > y.len);
        break;
    }
    }
    return s->asc ? r : -r;
}

/* Stable bottom-up merge sort of ix[0..n) by sl__sort_cmp. */
static void sl__merge_sort(const sl__sort_ctx *s, int *ix, uint32_t n)
{
    int *tmp = sl_malloc(((size_t)n + 1) * sizeof *tmp), *from = ix, *to = tmp;
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t x = lo, y = mid, k = lo;
            while (x < mid && y < hi)
                to[k++] = sl__sort_cmp(s, from[y], from[x]) < 0 ? from[y++] : from[x++];
            while (x < mid)
                to[k++] = from[x++];
            while (y < hi)
                to[k++] = from[y++];
        }
        int *t = from;
        from = to;
        to = t;
    }
    if (from != ix)
        memcpy(ix, from, (size_t)n * sizeof *ix);
    sl_free(tmp);
}

static int sl__k_sort(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl__node *arr = nd->kids[0];
    sl__arr_aux *a = sl__aux(nd);
    sl_type et = sl_type_elem(arr->type);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        uint32_t c;
        size_t *o;
        if (sl__split(nd, ev, arr, i, &c, &o) < 0)
            return -1;
        sl__sort_ctx s;
        s.asc = nd->nkids < 2 || nd->kids[1]->v.b[i];
        s.nulls_first = nd->nkids < 3 ? s.asc : nd->kids[2]->v.b[i];
        sl_chunk *tmp = sl_chunk_new(1, &et, c > 0 ? (int)c : 1);
        s.v = tmp->cols[0];
        int *ix = sl_malloc(((size_t)c + 1) * sizeof *ix);
        for (uint32_t j = 0; j < c; j++) {
            sl_vector_value_get(SL__EL(arr, i, o, j), SL__ELN(o, j), &s.v, (int)j);
            ix[j] = (int)j;
        }
        sl__merge_sort(&s, ix, c);
        sl__begin(&a->sb);
        for (uint32_t j = 0; j < c; j++)
            sl_strbuf_append_n(&a->sb, (const char *)SL__EL(arr, i, o, ix[j]), SL__ELN(o, ix[j]));
        sl__end(nd, ev, i, &a->sb, c);
        sl_free(ix);
        sl_chunk_free(tmp);
        sl_free(o);
    }
    return 0;
}

/* ========================================================================
** Strings: ARRAY_JOIN, SPLIT.
*/

static int sl__k_join(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__node *arr = nd->kids[0], *sep = nd->kids[1], *rep = nd->nkids > 2 ? nd->kids[2] : NULL;
    sl__arr_aux *a = sl__aux(nd);
    for (int i = 0; i < n; i++)
        nd->nulls[i] = arr->nulls[i] | sep->nulls[i];
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        uint32_t c;
        size_t *o;
        if (sl__split(nd, ev, arr, i, &c, &o) < 0)
            return -1;
        sl_strbuf_reset(&a->sb);
        bool first = true;
        for (uint32_t j = 0; j < c; j++) {
            const uint8_t *p = SL__EL(arr, i, o, j);
            const char *s;
            size_t len;
            if (p[0]) { /* NULL: the replacement, else skipped */
                if (!rep || rep->nulls[i])
                    continue;
                s = rep->v.str[i].ptr, len = rep->v.str[i].len;
            } else {
                s = (const char *)p + 5, len = SL__ELN(o, j) - 5;
            }
            if (!first)
                sl_strbuf_append_n(&a->sb, sep->v.str[i].ptr, sep->v.str[i].len);
            first = false;
            sl_strbuf_append_n(&a->sb, s, len);
        }
        sl_free(o);
        sl__set_str(nd, ev, i, sl_strbuf_cstr(&a->sb), a->sb.len);
    }
    return 0;
}

/* One STRING element s[0..len) appended to sb. */
static void sl__put_str_el(sl_strbuf *sb, const char *s, size_t len)
{
    sl_str v = {s, (uint32_t)len};
    uint8_t nul = 0;
    sl_vector vec = {sl_type_make(SL_TYPE_VARCHAR), SL_PHYS_STR, &nul, {.str = &v}};
    sl_vector_value_put(sb, &vec, 0);
}

/* SPLIT(s, sep): the fields of s between occurrences of sep (empty ones
** kept); an empty sep splits into code points; an empty s has none. */
static int sl__k_split(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *s = nd->kids[0]->v.str, *sep = nd->kids[1]->v.str;
    sl__arr_aux *a = sl__aux(nd);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        const char *p = s[i].ptr;
        size_t len = s[i].len, start = 0;
        uint32_t cnt = 0;
        sl__begin(&a->sb);
        if (len > 0 && sep[i].len == 0) {
            while (start < len) {
                size_t k = sl_utf8_skip(p + start, len - start, 1);
                if (k == 0)
                    k = 1;
                sl__put_str_el(&a->sb, p + start, k);
                cnt++;
                start += k;
            }
        } else if (len > 0) {
            for (;;) {
                const char *hit = len - start >= sep[i].len
                                      ? memmem(p + start, len - start, sep[i].ptr, sep[i].len)
                                      : NULL;
                size_t end = hit ? (size_t)(hit - p) : len;
                sl__put_str_el(&a->sb, p + start, end - start);
                cnt++;
                if (!hit)
                    break;
                start = end + sep[i].len;
            }
        }
        sl__end(nd, ev, i, &a->sb, cnt);
    }
    return 0;
}

/* ========================================================================
** CAST.
*/

/* ARRAY / MAP -> STRING: Flink's text. */
static int sl__cv_composite_str(sl__node *nd, sl__eval *ev, int i)
{
    sl__arr_aux *a = sl__aux(nd);
    const sl__node *k = nd->kids[0];
    sl_strbuf_reset(&a->sb);
    sl_array_format(&a->sb, k->type, (const uint8_t *)k->v.str[i].ptr, k->v.str[i].len);
    size_t keep;
    sl_type_fit(nd->type, sl_strbuf_cstr(&a->sb), a->sb.len, &keep);
    sl__set_str(nd, ev, i, sl_strbuf_cstr(&a->sb), keep);
    return 0;
}

/* ARRAY -> ARRAY, MAP -> MAP: each element through its element program. */
static int sl__cv_composite(sl__node *nd, sl__eval *ev, int i)
{
    sl__arr_aux *a = sl__aux(nd);
    sl__node *k = nd->kids[0];
    bool map = k->type.id == SL_TYPE_MAP;
    uint32_t c;
    size_t *o;
    if (sl__split(nd, ev, k, i, &c, &o) < 0)
        return -1;
    int per = map ? 2 : 1;
    int rows = (int)(c / (uint32_t)per);
    for (int s = 0; s < per; s++) {
        if (!a->in[s] || a->in[s]->cap < rows) {
            sl_type ft[1] = {map ? (s ? sl_type_value(k->type) : sl_type_key(k->type)) : sl_type_elem(k->type)};
            sl_type tt[1] = {map ? (s ? sl_type_value(nd->type) : sl_type_key(nd->type)) : sl_type_elem(nd->type)};
            sl_chunk_free(a->in[s]);
            sl_chunk_free(a->out[s]);
            int cap = rows < 16 ? 16 : 2 * rows;
            a->in[s] = sl_chunk_new(1, ft, cap);
            a->out[s] = sl_chunk_new(1, tt, cap);
        }
        sl_chunk_reset(a->in[s]);
        sl_chunk_reset(a->out[s]);
        for (int r = 0; r < rows; r++) {
            int j = r * per + s;
            sl_chunk_append_row(a->in[s], SL_ROW_INSERT);
            if (!sl_vector_value_get(SL__EL(k, i, o, j), SL__ELN(o, j), &a->in[s]->cols[0], r)) {
                sl_free(o);
                return sl__fail(ev, nd, "XX001", "malformed ARRAY value");
            }
        }
        if (sl_eval_into(a->sub[s], a->in[s], ev->env, a->out[s], 0, ev->err) < 0) {
            sl_free(o);
            return -1;
        }
    }
    sl_free(o);
    sl__begin(&a->needle);
    for (int r = 0; r < rows; r++)
        for (int s = 0; s < per; s++)
            sl_vector_value_put(&a->needle, &a->out[s]->cols[0], r);
    if (map) { /* keys may have become equal (CAST of 1.1 and 1.2 to INT) */
        const uint8_t *b = (const uint8_t *)sl_strbuf_cstr(&a->needle);
        size_t np = (size_t)rows;
        const uint8_t **kp = sl_malloc((2 * np + 1) * sizeof *kp);
        size_t *kn = sl_malloc((2 * np + 1) * sizeof *kn);
        size_t at = 4;
        sl_phys pk = sl_phys_of(sl_type_key(nd->type)), pv = sl_phys_of(sl_type_value(nd->type));
        for (size_t r = 0; r < np; r++) {
            kp[r] = b + at, kn[r] = sl_value_skip(b + at, a->needle.len - at, pk), at += kn[r];
            kp[np + r] = b + at, kn[np + r] = sl_value_skip(b + at, a->needle.len - at, pv);
            at += kn[np + r];
        }
        sl__begin(&a->sb);
        uint32_t cnt = sl__map_emit(&a->sb, (uint32_t)np, kp, kn, kp + np, kn + np);
        sl_free(kp);
        sl_free(kn);
        sl__end(nd, ev, i, &a->sb, cnt);
        return 0;
    }
    sl__end(nd, ev, i, &a->needle, (uint32_t)rows);
    return 0;
}

bool sl__composite_same(sl_type a, sl_type b)
{
    if (a.id != b.id)
        return sl_phys_of(a) == sl_phys_of(b) &&
               ((sl_type_is_integer(a.id) && sl_type_is_integer(b.id)) ||
                (sl_type_is_string(a.id) && sl_type_is_string(b.id)) ||
                (sl_type_is_binary(a.id) && sl_type_is_binary(b.id)));
    if (a.id == SL_TYPE_DECIMAL)
        return a.scale == b.scale;
    if (a.id == SL_TYPE_ARRAY)
        return sl__composite_same(sl_type_elem(a), sl_type_elem(b));
    if (a.id == SL_TYPE_MAP)
        return sl__composite_same(sl_type_key(a), sl_type_key(b)) &&
               sl__composite_same(sl_type_value(a), sl_type_value(b));
    if (a.id == SL_TYPE_TIME || sl_type_is_timestamp(a.id))
        return a.precision == b.precision;
    return true;
}

int sl__composite_cast(sl__node *nd, bool try_cast, sl_error *err)
{
    sl_type from = nd->kids[0]->type, to = nd->type;
    if (sl_type_is_string(to.id)) {
        nd->conv = sl__cv_composite_str;
        sl__aux(nd);
        return 0;
    }
    bool map = from.id == SL_TYPE_MAP;
    sl__arr_aux *a = sl__aux(nd);
    for (int s = 0; s < (map ? 2 : 1); s++) {
        sl_type ft = map ? (s ? sl_type_value(from) : sl_type_key(from)) : sl_type_elem(from);
        sl_type tt = map ? (s ? sl_type_value(to) : sl_type_key(to)) : sl_type_elem(to);
        a->sub[s] = sl__cast_prog(ft, tt, false, nd->pos, err); /* TRY_CAST: NULL as a whole */
        if (!a->sub[s])
            return -1;
    }
    nd->conv = sl__cv_composite;
    nd->is_volatile = true; /* the element programs read the session's time zone */
    return 0;
}

/* ========================================================================
** Compilation.
*/

int sl__array_coerce_args(sl_eval_prog *p, sl__node *nd, sl_error *err)
{
    int n = nd->nkids;
    sl_type t = nd->type;
    for (int i = 0; i < n; i++) {
        sl__node *k = nd->kids[i];
        sl_type to;
        bool coerce = true;
        switch (nd->op) {
        case SL_FN_ARRAY_CTOR: to = sl_type_elem(t); break;
        case SL_FN_MAP_CTOR: to = i % 2 ? sl_type_value(t) : sl_type_key(t); break;
        case SL_FN_ITEM:
            coerce = i == 1 && nd->kids[0]->type.id == SL_TYPE_MAP;
            to = sl_type_key(nd->kids[0]->type);
            break;
        case SL_FN_ARRAY_CONTAINS:
        case SL_FN_ARRAY_POSITION:
        case SL_FN_ARRAY_REMOVE:
            coerce = i == 1;
            to = sl_type_elem(nd->kids[0]->type);
            break;
        case SL_FN_ARRAY_APPEND:
        case SL_FN_ARRAY_PREPEND: to = i == 0 ? t : sl_type_elem(t); break;
        case SL_FN_ARRAY_UNION:
        case SL_FN_ARRAY_CONCAT:
        case SL_FN_ARRAY_EXCEPT:
        case SL_FN_ARRAY_INTERSECT:
        case SL_FN_MAP_UNION: to = t; break;
        case SL_FN_MAP_FROM_ARRAYS:
            to = sl_type_array_of(i == 0 ? sl_type_key(t) : sl_type_value(t));
            break;
        default: coerce = false; break;
        }
        if (!coerce)
            continue;
        if (k->type.id == SL_TYPE_NULL && to.id == SL_TYPE_NULL)
            continue;
        to.not_null = false;
        nd->kids[i] = sl__coerce(p, k, to, err);
        if (!nd->kids[i])
            return -1;
    }
    return 0;
}

int sl__compile_fn_array(sl__node *nd, sl_error *err)
{
    (void)err;
    switch (nd->op) {
    case SL_FN_ARRAY_CTOR:
    case SL_FN_MAP_CTOR: nd->run = sl__k_ctor; return 0;
    default: break;
    }
    /* a strict function of an untyped NULL array is NULL */
    if (nd->nkids > 0 && nd->kids[0]->type.id == SL_TYPE_NULL && nd->op != SL_FN_SPLIT) {
        nd->run = sl__k_all_null;
        return 0;
    }
    switch (nd->op) {
    case SL_FN_ITEM: nd->run = sl__k_item; return 0;
    case SL_FN_CARDINALITY:
    case SL_FN_ELEMENT:
    case SL_FN_ARRAY_POSITION:
    case SL_FN_ARRAY_MAX:
    case SL_FN_ARRAY_MIN:
        nd->run = sl__k_scalar;
        nd->can_fail = nd->op == SL_FN_ELEMENT;
        return 0;
    case SL_FN_ARRAY_CONTAINS: nd->run = sl__k_contains; return 0;
    case SL_FN_ARRAY_DISTINCT:
    case SL_FN_ARRAY_REMOVE:
    case SL_FN_ARRAY_REVERSE:
    case SL_FN_ARRAY_SLICE:
    case SL_FN_ARRAY_UNION:
    case SL_FN_ARRAY_CONCAT:
    case SL_FN_ARRAY_APPEND:
    case SL_FN_ARRAY_PREPEND:
    case SL_FN_MAP_KEYS:
    case SL_FN_MAP_VALUES:
    case SL_FN_MAP_FROM_ARRAYS:
    case SL_FN_ARRAY_EXCEPT:
    case SL_FN_ARRAY_INTERSECT:
    case SL_FN_MAP_UNION:
        nd->run = sl__k_reshape;
        nd->can_fail = nd->op == SL_FN_MAP_FROM_ARRAYS;
        return 0;
    case SL_FN_ARRAY_JOIN: nd->run = sl__k_join; return 0;
    case SL_FN_ARRAY_SORT: nd->run = sl__k_sort; return 0;
    case SL_FN_SPLIT: nd->run = sl__k_split; return 0;
    default: return 1;
    }
}
