/*
** eval.c — the one expression evaluator: compiles a bound expression
** (planner sl_bexpr) into a tree of vectorized kernels and runs it a chunk
** at a time (see eval_int.h for the node model and selection masks).
**
** Compile (sl_eval_compile): every node gets a kernel chosen by operator and
** physical type; operands are converted to the representation the kernel
** needs (sl__coerce: INT -> DECIMAL(19, 0) or DOUBLE, DATE -> TIMESTAMP ...),
** since the binder types mixed operations without CAST nodes. Subtrees whose
** operands are all constant are evaluated once (constant folding) unless
** that fails, in which case the error stays a run-time error of the rows
** that reach it. BETWEEN / NULLIF are compiled into comparisons over a
** REF to the already evaluated operand; IN into one hash-set probe for
** its constants (sl__mk_in), however long the list.
**
** Semantics: SQL three-valued logic; NULL in, NULL out except IS tests
** (IS [NOT] DISTINCT FROM too: sl__k_distinct), AND/OR,
** CASE/IF/COALESCE/NULLIF; integer overflow is an error (22003)
** instead of Flink's silent wrap; integer and DECIMAL division by zero is
** 22012, DOUBLE follows IEEE; DECIMAL is exact (sl_dec_*) at the node's
** precision and scale; CAST per sl_type_castable (see sl__cast_conv for the
** text forms; DOUBLE prints like Java's Double.toString).
**
** Choices where Flink is silent, lenient or unsafe (all deliberate):
**   - integer overflow (+ - * unary -, ABS, ROUND, narrowing CAST, DOUBLE ->
**     integer incl. NaN/inf) is 22003 "<type> out of range", never a wrap;
**   - CAST(DOUBLE AS STRING) prints like Java's Double.toString ("1.0E7",
**     "0.001", "-1.0", "NaN", "Infinity"); FLOAT like Float.toString;
**     BOOLEAN as TRUE / FALSE; DECIMAL with its scale; intervals as
**     "+1 02:00:00.000" / "+1-02";
**   - CAST(string AS INT) trims blanks and truncates a fraction ('1.9' -> 1)
**     as Flink; BOOLEAN accepts t/true/y/yes/1 and f/false/n/no/0; DOUBLE
**     accepts NaN / [-]Infinity but no hex; invalid text is 22018
**     (numbers, BOOLEAN) or 22007 (DATE, TIME, TIMESTAMP);
**   - CAST to CHAR(n)/VARCHAR(n)/BINARY(n)/VARBINARY(n) cuts a longer value
**     (n code points for strings, n bytes for binary) and pads a shorter
**     CHAR(n) with spaces, BINARY(n) with zero bytes, as Flink 2.2's casts
**     (not its legacy 'table.exec.legacy-cast-behaviour');
**   - CAST between TIMESTAMP_LTZ and TIMESTAMP / DATE / TIME / text, and the
**     time functions (eval_fn.c), use the session's time zone
**     (sl_eval_env.tz, java.time's rules in gaps and overlaps);
**   - a runtime error points at the failing node's position, which for a
**     binary operator is the start of its left operand (the binder's pos).
**
** Main routines: sl_eval_compile, sl_eval_into, sl_eval_filter,
** sl__coerce, the kernels sl__k_*.
*/
#include "eval_int.h"
#include "value_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ========================================================================
** Nodes and buffers.
*/

sl__node *sl__node_new(sl_eval_prog *p, sl__nkind kind, sl_type t, int pos, int nkids)
{
    sl__node *nd = sl_calloc(1, sizeof *nd);
    nd->kind = kind;
    nd->type = t;
    nd->phys = sl_phys_of(t);
    nd->pos = pos;
    nd->col = -1;
    nd->lo = INT64_MIN;
    nd->hi = INT64_MAX;
    nd->nkids = nkids;
    if (nkids > 0)
        nd->kids = sl_calloc((size_t)nkids, sizeof(sl__node *));
    if (kind == SL__N_OP || kind == SL__N_CONST) {
        nd->own_nulls = sl_calloc((size_t)p->cap, 1);
        nd->own = sl_calloc((size_t)p->cap, sl_phys_size(nd->phys));
        nd->nulls = nd->own_nulls;
        nd->v.raw = nd->own;
    }
    return nd;
}

void sl__node_free(sl__node *nd)
{
    if (!nd)
        return;
    for (int i = 0; i < nd->nkids; i++)
        sl__node_free(nd->kids[i]);
    sl_free(nd->kids);
    sl_free(nd->own_nulls);
    sl_free(nd->own);
    sl_free(nd->mask);
    sl_free(nd->mask2);
    if (nd->aux_free)
        nd->aux_free(nd->aux);
    sl_free(nd);
}

/* Copy row 0 of a constant into rows 1..cap-1. */
static void sl__broadcast(sl__node *nd, int cap)
{
    size_t sz = sl_phys_size(nd->phys);
    memset(nd->own_nulls, nd->own_nulls[0], (size_t)cap);
    char *v = nd->own;
    for (int i = 1; i < cap; i++)
        memcpy(v + (size_t)i * sz, v, sz);
}

/* Grow every buffer of the tree to cap rows. */
static void sl__grow(sl__node *nd, int cap)
{
    for (int i = 0; i < nd->nkids; i++)
        sl__grow(nd->kids[i], cap);
    if (nd->own) {
        nd->own_nulls = sl_realloc(nd->own_nulls, (size_t)cap);
        nd->own = sl_realloc(nd->own, (size_t)cap * sl_phys_size(nd->phys));
        nd->nulls = nd->own_nulls;
        nd->v.raw = nd->own;
        if (nd->kind == SL__N_CONST)
            sl__broadcast(nd, cap);
    }
    if (nd->mask)
        nd->mask = sl_realloc(nd->mask, (size_t)cap);
    if (nd->mask2)
        nd->mask2 = sl_realloc(nd->mask2, (size_t)cap);
}

/* ========================================================================
** Helpers shared with eval_fn.c.
*/

int sl__fail(sl__eval *ev, const sl__node *nd, const char *sqlstate, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_error_setv(ev->err, sqlstate, nd->pos, fmt, ap);
    va_end(ap);
    return -1;
}

void sl__set_str(sl__node *nd, sl__eval *ev, int i, const char *s, size_t len)
{
    char *d = len ? sl_arena_alloc(ev->arena, len) : NULL;
    if (len)
        memcpy(d, s, len);
    nd->v.str[i].ptr = d ? d : "";
    nd->v.str[i].len = (uint32_t)len;
    nd->nulls[i] = 0;
}

int sl__run_kids(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    for (int k = 0; k < nd->nkids; k++)
        if (nd->kids[k]->run(nd->kids[k], ev, sel) < 0)
            return -1;
    return 0;
}

void sl__or_nulls(sl__node *nd, int n)
{
    uint8_t *r = nd->nulls;
    if (nd->nkids == 0) {
        memset(r, 0, (size_t)n);
        return;
    }
    const uint8_t *a = nd->kids[0]->nulls;
    if (nd->nkids == 2) {
        const uint8_t *b = nd->kids[1]->nulls;
        for (int i = 0; i < n; i++)
            r[i] = a[i] | b[i];
        return;
    }
    memcpy(r, a, (size_t)n);
    for (int k = 1; k < nd->nkids; k++) {
        const uint8_t *b = nd->kids[k]->nulls;
        for (int i = 0; i < n; i++)
            r[i] |= b[i];
    }
}

void sl__type_name(sl_type t, char *buf, size_t cap)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    t.not_null = false;
    sl_type_format(&sb, t);
    snprintf(buf, cap, "%s", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
}

/* 22003 for a value that does not fit integer type t. */
static int sl__int_range_error(sl__eval *ev, const sl__node *nd, sl_type_id t)
{
    const char *what = t == SL_TYPE_TINYINT    ? "tinyint"
                       : t == SL_TYPE_SMALLINT ? "smallint"
                       : t == SL_TYPE_BIGINT   ? "bigint"
                       : t == SL_TYPE_INT      ? "integer"
                                               : NULL;
    if (!what)
        return sl__fail(ev, nd, "22008", "%s out of range",
                        sl_type_is_interval(t) ? "interval" : "timestamp");
    return sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "%s out of range", what);
}

int sl__ts_range_error(sl__eval *ev, const sl__node *nd)
{
    sl__fail(ev, nd, SL_ERR_DATETIME_OVERFLOW, "timestamp out of range");
    sl_error_detail(ev->err, "TIMESTAMP values range from %s to %s.", SL__TS_MIN_TEXT,
                    SL__TS_MAX_TEXT);
    return -1;
}

/* 22008 for a DATE outside 0000-01-01 .. 9999-12-31 (days since 1970). */
static int sl__date_check(sl__eval *ev, const sl__node *nd, int64_t days)
{
    if (days >= SL_DATE_MIN_DAYS && days <= SL_DATE_MAX_DAYS)
        return 0;
    sl__fail(ev, nd, SL_ERR_DATETIME_OVERFLOW, "date out of range");
    sl_error_detail(ev->err, "DATE values range from 0000-01-01 to 9999-12-31.");
    return -1;
}

/* 22003 numeric field overflow for DECIMAL type t (PostgreSQL's detail). */
static int sl__dec_overflow(sl__eval *ev, const sl__node *nd, sl_type t)
{
    sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "numeric field overflow");
    if (t.precision > t.scale)
        sl_error_detail(ev->err,
                        "A field with precision %d, scale %d must round to an absolute value "
                        "less than 10^%d.",
                        t.precision, t.scale, t.precision - t.scale);
    else
        sl_error_detail(ev->err,
                        "A field with precision %d, scale %d must round to an absolute value "
                        "less than 1.",
                        t.precision, t.scale);
    return -1;
}

/* Integer range of a type (i64 representation). */
static void sl__int_range(sl_type_id t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case SL_TYPE_TINYINT: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case SL_TYPE_SMALLINT: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case SL_TYPE_INT:
    case SL_TYPE_INTERVAL_YM: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

/* Whether any row of sel (NULL = all) is set. */
static bool sl__any(const uint8_t *m, int n)
{
    if (!m)
        return n > 0;
    uint8_t a = 0;
    for (int i = 0; i < n; i++)
        a |= m[i];
    return a != 0;
}

/* d[i] = m[i] ? s[i] : d[i], as masks so that the loops vectorize (GCC
** leaves the conditional form scalar). */
static void sl__blend_u8(uint8_t *restrict d, const uint8_t *restrict s, const uint8_t *restrict m,
                         int n)
{
    for (int i = 0; i < n; i++) {
        uint8_t k = (uint8_t)-(m[i] != 0);
        d[i] = (uint8_t)((s[i] & k) | (d[i] & ~k));
    }
}

static void sl__blend_i64(int64_t *restrict d, const int64_t *restrict s,
                          const uint8_t *restrict m, int n)
{
    for (int i = 0; i < n; i++) {
        int64_t k = -(int64_t)(m[i] != 0);
        d[i] = (s[i] & k) | (d[i] & ~k);
    }
}

/* dst[i] = src[i] (value and null byte) for rows with m[i]. */
static void sl__copy_masked(sl__node *dst, const sl__node *src, const uint8_t *m, int n)
{
    sl__blend_u8(dst->nulls, src->nulls, m, n);
    switch (dst->phys) {
    case SL_PHYS_BOOL: sl__blend_u8(dst->v.b, src->v.b, m, n); break;
    case SL_PHYS_I64: sl__blend_i64(dst->v.i64, src->v.i64, m, n); break;
    case SL_PHYS_F64:
        for (int i = 0; i < n; i++)
            if (m[i])
                dst->v.f64[i] = src->v.f64[i];
        break;
    case SL_PHYS_I128:
        for (int i = 0; i < n; i++)
            if (m[i])
                dst->v.i128[i] = src->v.i128[i];
        break;
    case SL_PHYS_STR:
        for (int i = 0; i < n; i++)
            if (m[i] && (!src->nulls[i]))
                dst->v.str[i] = src->v.str[i];
        break;
    }
}

/* ========================================================================
** Leaves: columns, constants, references.
*/

static int sl__k_column(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    const sl_vector *c = &ev->in->cols[nd->col];
    nd->nulls = c->nulls;
    nd->v.raw = c->v.raw;
    return 0;
}

static int sl__k_const(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    return 0;
}

static int sl__k_ref(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    nd->nulls = nd->ref->nulls;
    nd->v.raw = nd->ref->v.raw;
    return 0;
}

/* A REF to target (evaluated before the REF is). */
static sl__node *sl__mk_ref(sl_eval_prog *p, sl__node *target)
{
    sl__node *nd = sl__node_new(p, SL__N_REF, target->type, target->pos, 0);
    nd->ref = target;
    nd->run = sl__k_ref;
    return nd;
}

/* A constant all-NULL value of type t. */
static sl__node *sl__mk_null(sl_eval_prog *p, sl_type t, int pos)
{
    sl__node *nd = sl__node_new(p, SL__N_CONST, t, pos, 0);
    nd->run = sl__k_const;
    nd->own_nulls[0] = 1;
    sl__broadcast(nd, p->cap);
    return nd;
}

/* Bytes of len hex digits t into out (in the program's constants). */
static int sl__hex_decode(sl_eval_prog *p, const char *t, size_t len, sl_str *out)
{
    if (len % 2)
        return -1;
    if (len == 0) {
        out->ptr = "";
        out->len = 0;
        return 0;
    }
    char *d = sl_arena_alloc(&p->consts, len / 2);
    for (size_t i = 0; i < len; i += 2) {
        int hi = sl_hex_digit(t[i]), lo = sl_hex_digit(t[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        d[i / 2] = (char)(hi << 4 | lo);
    }
    out->ptr = d;
    out->len = (uint32_t)(len / 2);
    return 0;
}

/* A constant from a literal's canonical text (sl_bexpr.text). */
static sl__node *sl__mk_literal(sl_eval_prog *p, const sl_bexpr *b, sl_error *err)
{
    if (!b->text || b->type.id == SL_TYPE_NULL)
        return sl__mk_null(p, b->type, b->pos);
    sl__node *nd = sl__node_new(p, SL__N_CONST, b->type, b->pos, 0);
    nd->run = sl__k_const;
    const char *t = b->text;
    size_t len = strlen(t);
    int rc = 0;
    switch (b->type.id) {
    case SL_TYPE_BOOLEAN: nd->v.b[0] = sl_strcasecmp(t, "TRUE") == 0; break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT:
    case SL_TYPE_INTERVAL_DT:
    case SL_TYPE_INTERVAL_YM: {
        char *end;
        errno = 0;
        nd->v.i64[0] = strtoll(t, &end, 10);
        rc = (errno || *end) ? -1 : 0;
        break;
    }
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        char *end;
        double d = strtod(t, &end);
        nd->v.f64[0] = b->type.id == SL_TYPE_FLOAT ? (double)(float)d : d;
        rc = *end ? -1 : 0;
        break;
    }
    case SL_TYPE_DECIMAL: {
        bool ovf = false;
        rc = sl_dec_parse(t, len, b->type.precision, b->type.scale, &nd->v.i128[0], &ovf);
        break;
    }
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
        nd->v.str[0].ptr = len ? sl_arena_memdup(&p->consts, t, len) : "";
        nd->v.str[0].len = (uint32_t)len;
        break;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: /* hex digits (X'..' without the quotes) */
        rc = sl__hex_decode(p, t, len, &nd->v.str[0]);
        break;
    case SL_TYPE_DATE: rc = sl_date_parse(t, len, &nd->v.i64[0]); break;
    case SL_TYPE_TIME: rc = sl_time_parse(t, len, &nd->v.i64[0]); break;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: rc = sl_ts_parse(t, len, &nd->v.i64[0]); break;
    default: rc = -1; break;
    }
    if (rc < 0) {
        sl_error_set(err, SL_ERR_INTERNAL, b->pos, "invalid literal text \"%s\"", t);
        sl__node_free(nd);
        return NULL;
    }
    sl__broadcast(nd, p->cap);
    if (b->type.id == SL_TYPE_TIMESTAMP_LTZ) {
        /* TIMESTAMP_LTZ '...' names a local date-time of the session's zone. */
        nd->type.id = SL_TYPE_TIMESTAMP;
        return sl__tz_shift(p, nd, false);
    }
    return nd;
}

/* ========================================================================
** Constant folding: an OP node whose kids are all constants is evaluated
** once; if that fails the node stays (the error belongs to the rows that
** evaluate it).
*/
static sl__node *sl__fold(sl_eval_prog *p, sl__node *nd)
{
    if (nd->kind != SL__N_OP || nd->is_volatile)
        return nd;
    for (int k = 0; k < nd->nkids; k++)
        if (nd->kids[k]->kind != SL__N_CONST)
            return nd;
    sl_error local = SL_ERROR_INIT;
    sl_arena tmp = SL_ARENA_INIT;
    sl_eval_env env = {0};
    sl__eval ev = {NULL, 1, &env, &local, &tmp};
    int rc = nd->run(nd, &ev, NULL);
    if (rc < 0) {
        sl_error_reset(&local);
        sl_arena_free(&tmp);
        return nd;
    }
    sl__node *c = sl__node_new(p, SL__N_CONST, nd->type, nd->pos, 0);
    c->run = sl__k_const;
    c->own_nulls[0] = nd->nulls[0];
    memcpy(c->own, nd->v.raw, sl_phys_size(nd->phys));
    if (c->phys == SL_PHYS_STR && !c->own_nulls[0]) {
        sl_str *s = &c->v.str[0];
        s->ptr = s->len ? sl_arena_memdup(&p->consts, s->ptr, s->len) : "";
    }
    sl__broadcast(c, p->cap);
    sl_arena_free(&tmp);
    sl__node_free(nd);
    return c;
}

/* Finish a new OP node: can_fail from its kids, then try to fold it. */
static sl__node *sl__finish(sl_eval_prog *p, sl__node *nd)
{
    for (int k = 0; k < nd->nkids; k++)
        if (nd->kids[k]->can_fail)
            nd->can_fail = true;
    return sl__fold(p, nd);
}

/* ========================================================================
** CAST: one kernel looping over the rows, with a per-row converter chosen
** at compile time (sl__cast_conv); fast loops for the common widening
** conversions the compiler inserts.
*/

/* Helpers for converters: source row i. */
#define SRC(nd) ((nd)->kids[0])

/* 22018 / 22007 invalid text for type t. */
static int sl__bad_text(sl__node *nd, sl__eval *ev, const sl_str *s, const char *sqlstate)
{
    char tn[64];
    sl__type_name(nd->type, tn, sizeof tn);
    int n = s->len > 100 ? 100 : (int)s->len;
    return sl__fail(ev, nd, sqlstate, "invalid input syntax for type %s: \"%.*s%s\"", tn, n,
                    s->ptr, s->len > 100 ? "..." : "");
}

/* Trimmed copy of a string row into buf (NUL-terminated); false if too long. */
static bool sl__trim_copy(const sl_str *s, char *buf, size_t cap)
{
    const char *p = s->ptr, *e = s->ptr + s->len;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        e--;
    if ((size_t)(e - p) >= cap)
        return false;
    memcpy(buf, p, (size_t)(e - p));
    buf[e - p] = 0;
    return true;
}

/* Store int64 x in an integer-typed node, range-checked. */
static int sl__put_int(sl__node *nd, sl__eval *ev, int i, int64_t x)
{
    if (x < nd->lo || x > nd->hi)
        return sl__int_range_error(ev, nd, nd->type.id);
    nd->v.i64[i] = x;
    return 0;
}

/* Store a double in a FLOAT/DOUBLE node (FLOAT rounded). */
static void sl__put_dbl(sl__node *nd, int i, double d)
{
    nd->v.f64[i] = nd->type.id == SL_TYPE_FLOAT ? (double)(float)d : d;
}

/* Store a string. An explicit CAST fits it to the node's type as Flink
** 2.2 does (sl_type_fit): cut to a CHAR(n)/VARCHAR(n)'s n characters or a
** BINARY(n)/VARBINARY(n)'s n bytes, a shorter CHAR(n) padded with spaces,
** a shorter BINARY(n) with zero bytes. The bytes are aliased (they live
** for the evaluation) unless padding copies them into the arena. */
static void sl__put_str_alias(sl__node *nd, sl__eval *ev, int i, const char *p, size_t len)
{
    if (!nd->implicit) {
        size_t pad = sl_type_fit(nd->type, p, len, &len);
        if (pad) {
            char *d = sl_arena_alloc(ev->arena, len + pad);
            memcpy(d, p, len);
            memset(d + len, nd->type.id == SL_TYPE_CHAR ? ' ' : 0, pad);
            p = d;
            len += pad;
        }
    }
    nd->v.str[i].ptr = p;
    nd->v.str[i].len = (uint32_t)len;
}

/* Store a new string (copied into the arena), fitted as above. */
static void sl__put_str(sl__node *nd, sl__eval *ev, int i, const char *p, size_t len)
{
    char *d = len ? sl_arena_alloc(ev->arena, len) : NULL;
    if (len)
        memcpy(d, p, len);
    sl__put_str_alias(nd, ev, i, d ? d : "", len);
}

/* ---- from BOOLEAN ---- */
static int sl__cv_bool_int(sl__node *nd, sl__eval *ev, int i)
{
    return sl__put_int(nd, ev, i, SRC(nd)->v.b[i]);
}
static int sl__cv_bool_dbl(sl__node *nd, sl__eval *ev, int i)
{
    sl__put_dbl(nd, i, SRC(nd)->v.b[i]);
    return 0;
}
static int sl__cv_bool_dec(sl__node *nd, sl__eval *ev, int i)
{
    if (sl_dec_from_i64(SRC(nd)->v.b[i], nd->type.precision, nd->type.scale, &nd->v.i128[i]) < 0)
        return sl__dec_overflow(ev, nd, nd->type);
    return 0;
}
static int sl__cv_bool_str(sl__node *nd, sl__eval *ev, int i)
{
    sl__put_str_alias(nd, ev, i, SRC(nd)->v.b[i] ? "TRUE" : "FALSE", SRC(nd)->v.b[i] ? 4 : 5);
    return 0;
}

/* ---- from integers ---- */
static int sl__cv_int_bool(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.b[i] = SRC(nd)->v.i64[i] != 0;
    return 0;
}
static int sl__cv_int_int(sl__node *nd, sl__eval *ev, int i)
{
    return sl__put_int(nd, ev, i, SRC(nd)->v.i64[i]);
}
static int sl__cv_int_dbl(sl__node *nd, sl__eval *ev, int i)
{
    sl__put_dbl(nd, i, (double)SRC(nd)->v.i64[i]);
    return 0;
}
static int sl__cv_int_dec(sl__node *nd, sl__eval *ev, int i)
{
    if (sl_dec_from_i64(SRC(nd)->v.i64[i], nd->type.precision, nd->type.scale, &nd->v.i128[i]) < 0)
        return sl__dec_overflow(ev, nd, nd->type);
    return 0;
}
static int sl__cv_int_str(sl__node *nd, sl__eval *ev, int i)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)SRC(nd)->v.i64[i]);
    sl__put_str(nd, ev, i, buf, (size_t)n);
    return 0;
}

/* ---- from FLOAT / DOUBLE ---- */
static int sl__cv_dbl_bool(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.b[i] = SRC(nd)->v.f64[i] != 0;
    return 0;
}
static int sl__cv_dbl_int(sl__node *nd, sl__eval *ev, int i)
{
    double d = SRC(nd)->v.f64[i];
    /* truncation toward zero; NaN, infinities and values outside int64 fail */
    if (!(d > -9223372036854775808.0 - 1.0 && d < 9223372036854775808.0))
        return sl__int_range_error(ev, nd, nd->type.id);
    return sl__put_int(nd, ev, i, (int64_t)d);
}
static int sl__cv_dbl_dbl(sl__node *nd, sl__eval *ev, int i)
{
    sl__put_dbl(nd, i, SRC(nd)->v.f64[i]);
    return 0;
}
static int sl__cv_dbl_dec(sl__node *nd, sl__eval *ev, int i)
{
    double d = SRC(nd)->v.f64[i];
    if (!isfinite(d)) {
        char tn[64];
        sl__type_name(nd->type, tn, sizeof tn);
        return sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "cannot convert %s to %s",
                        isnan(d) ? "NaN" : "infinity", tn);
    }
    if (sl_dec_from_double(d, nd->type.precision, nd->type.scale, &nd->v.i128[i]) < 0)
        return sl__dec_overflow(ev, nd, nd->type);
    return 0;
}
static int sl__cv_dbl_str(sl__node *nd, sl__eval *ev, int i)
{
    char buf[40];
    int n = sl__format_double(SRC(nd)->v.f64[i], SRC(nd)->type.id == SL_TYPE_FLOAT, buf);
    sl__put_str(nd, ev, i, buf, (size_t)n);
    return 0;
}

/* ---- from DECIMAL ---- */
static int sl__cv_dec_bool(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.b[i] = SRC(nd)->v.i128[i] != 0;
    return 0;
}
static int sl__cv_dec_int(sl__node *nd, sl__eval *ev, int i)
{
    int64_t x;
    if (sl_dec_to_i64(SRC(nd)->v.i128[i], SRC(nd)->type.scale, &x) < 0)
        return sl__int_range_error(ev, nd, nd->type.id);
    return sl__put_int(nd, ev, i, x);
}
static int sl__cv_dec_dbl(sl__node *nd, sl__eval *ev, int i)
{
    sl__put_dbl(nd, i, sl_dec_to_double(SRC(nd)->v.i128[i], SRC(nd)->type.scale));
    return 0;
}
/* |x| < lim for DECIMAL overflow checks. */
static inline bool sl__dec_in(sl_i128 x, sl_i128 lim)
{
    return x < lim && x > -lim;
}

static int sl__cv_dec_dec(sl__node *nd, sl__eval *ev, int i)
{
    if (sl_dec_rescale(SRC(nd)->v.i128[i], SRC(nd)->type.scale, nd->type.precision, nd->type.scale,
                       &nd->v.i128[i]) < 0)
        return sl__dec_overflow(ev, nd, nd->type);
    return 0;
}
static int sl__cv_dec_str(sl__node *nd, sl__eval *ev, int i)
{
    char buf[SL_DEC_STR_MAX];
    int n = sl_dec_format(SRC(nd)->v.i128[i], SRC(nd)->type.scale, buf);
    sl__put_str(nd, ev, i, buf, (size_t)n);
    return 0;
}

/* ---- from strings ---- */
static int sl__cv_str_bool(sl__node *nd, sl__eval *ev, int i)
{
    static const char *const t[] = {"t", "true", "y", "yes", "1"};
    static const char *const f[] = {"f", "false", "n", "no", "0"};
    char buf[8];
    const sl_str *s = &SRC(nd)->v.str[i];
    if (sl__trim_copy(s, buf, sizeof buf)) {
        for (size_t k = 0; k < SL_ARRAY_LEN(t); k++) {
            if (sl_strcasecmp(buf, t[k]) == 0) {
                nd->v.b[i] = 1;
                return 0;
            }
            if (sl_strcasecmp(buf, f[k]) == 0) {
                nd->v.b[i] = 0;
                return 0;
            }
        }
    }
    return sl__bad_text(nd, ev, s, "22018");
}

/* Integer text: [+-]digits[.digits] (the fraction is truncated, as Flink
** does); 0, -1 invalid, -2 out of int64. */
static int sl__parse_int(const char *p, int64_t *out)
{
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
        return -1;
    uint64_t v = 0;
    bool ovf = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10)
            ovf = true;
        else
            v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    if (*p)
        return -1;
    if (ovf || v > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        return -2;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int sl__cv_str_int(sl__node *nd, sl__eval *ev, int i)
{
    char buf[64];
    const sl_str *s = &SRC(nd)->v.str[i];
    int64_t x;
    int rc = sl__trim_copy(s, buf, sizeof buf) ? sl__parse_int(buf, &x) : -1;
    if (rc == -2)
        return sl__int_range_error(ev, nd, nd->type.id);
    if (rc < 0)
        return sl__bad_text(nd, ev, s, "22018");
    return sl__put_int(nd, ev, i, x);
}
static int sl__cv_str_dbl(sl__node *nd, sl__eval *ev, int i)
{
    char buf[128];
    const sl_str *s = &SRC(nd)->v.str[i];
    if (!sl__trim_copy(s, buf, sizeof buf) || !buf[0])
        return sl__bad_text(nd, ev, s, "22018");
    double d;
    const char *q = buf + (buf[0] == '-' || buf[0] == '+');
    if (strcmp(q, "NaN") == 0) {
        d = NAN;
    } else if (strcmp(q, "Infinity") == 0) {
        d = buf[0] == '-' ? -INFINITY : INFINITY;
    } else {
        /* digits, '.', exponent only (no hex, no "inf" spellings) */
        for (const char *c = q; *c; c++)
            if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' ||
                  *c == '+'))
                return sl__bad_text(nd, ev, s, "22018");
        char *end;
        d = strtod(buf, &end);
        if (*end || end == buf)
            return sl__bad_text(nd, ev, s, "22018");
        /* a finite number too large for the type, as the literal is refused */
        if (isinf(d) || (nd->type.id == SL_TYPE_FLOAT && isinf((float)d))) {
            char tn[64];
            sl__type_name(nd->type, tn, sizeof tn);
            return sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "value \"%s\" is out of range for type %s",
                            buf, tn);
        }
    }
    sl__put_dbl(nd, i, d);
    return 0;
}
static int sl__cv_str_dec(sl__node *nd, sl__eval *ev, int i)
{
    char buf[128];
    const sl_str *s = &SRC(nd)->v.str[i];
    bool ovf = false;
    if (!sl__trim_copy(s, buf, sizeof buf) ||
        sl_dec_parse(buf, strlen(buf), nd->type.precision, nd->type.scale, &nd->v.i128[i], &ovf) < 0) {
        if (ovf)
            return sl__dec_overflow(ev, nd, nd->type);
        return sl__bad_text(nd, ev, s, "22018");
    }
    return 0;
}
static int sl__cv_str_str(sl__node *nd, sl__eval *ev, int i)
{
    const sl_str *s = &SRC(nd)->v.str[i];
    sl__put_str_alias(nd, ev, i, s->ptr, s->len);
    return 0;
}
static int sl__cv_str_date(sl__node *nd, sl__eval *ev, int i)
{
    char buf[64];
    const sl_str *s = &SRC(nd)->v.str[i];
    if (!sl__trim_copy(s, buf, sizeof buf) || sl_date_parse(buf, strlen(buf), &nd->v.i64[i]) < 0)
        return sl__bad_text(nd, ev, s, SL_ERR_DATETIME_FORMAT);
    return 0;
}
static int sl__cv_str_time(sl__node *nd, sl__eval *ev, int i)
{
    char buf[64];
    const sl_str *s = &SRC(nd)->v.str[i];
    int64_t t;
    if (!sl__trim_copy(s, buf, sizeof buf) || sl_time_parse(buf, strlen(buf), &t) < 0)
        return sl__bad_text(nd, ev, s, SL_ERR_DATETIME_FORMAT);
    nd->v.i64[i] = sl_time_truncate(t, nd->type.precision);
    return 0;
}
static int sl__cv_str_ts(sl__node *nd, sl__eval *ev, int i)
{
    char buf[64];
    const sl_str *s = &SRC(nd)->v.str[i];
    int64_t t;
    int rc = sl__trim_copy(s, buf, sizeof buf) ? sl_ts_parse(buf, strlen(buf), &t) : -1;
    if (rc == -2)
        return sl__ts_range_error(ev, nd);
    if (rc < 0)
        return sl__bad_text(nd, ev, s, SL_ERR_DATETIME_FORMAT);
    nd->v.i64[i] = sl_time_truncate(t, nd->type.precision);
    return 0;
}

/* ---- from temporal types and intervals ---- */
static int sl__cv_date_str(sl__node *nd, sl__eval *ev, int i)
{
    char buf[48];
    int n = sl_date_format(SRC(nd)->v.i64[i], buf);
    sl__put_str(nd, ev, i, buf, (size_t)n);
    return 0;
}
static int sl__cv_time_str(sl__node *nd, sl__eval *ev, int i)
{
    char buf[48];
    int n = sl_time_format(SRC(nd)->v.i64[i], SRC(nd)->type.precision, buf);
    sl__put_str(nd, ev, i, buf, (size_t)n);
    return 0;
}
static int sl__cv_ts_str(sl__node *nd, sl__eval *ev, int i)
{
    char buf[48];
    int n = sl_ts_format(SRC(nd)->v.i64[i], SRC(nd)->type.precision, buf);
    sl__put_str(nd, ev, i, buf, (size_t)n);
    return 0;
}
static int sl__cv_date_ts(sl__node *nd, sl__eval *ev, int i)
{
    int64_t r;
    if (__builtin_mul_overflow(SRC(nd)->v.i64[i], SL_NANOS_PER_DAY, &r))
        return sl__ts_range_error(ev, nd);
    nd->v.i64[i] = r;
    return 0;
}
/* Floor division / modulo by a positive divisor. */
static int64_t sl__floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}
static int64_t sl__floormod(int64_t a, int64_t b)
{
    int64_t m = a % b;
    return m < 0 ? m + b : m;
}
static int sl__cv_ts_date(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.i64[i] = sl__floordiv(SRC(nd)->v.i64[i], SL_NANOS_PER_DAY);
    return 0;
}
static int sl__cv_ts_time(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.i64[i] =
        sl_time_truncate(sl__floormod(SRC(nd)->v.i64[i], SL_NANOS_PER_DAY), nd->type.precision);
    return 0;
}
static int sl__cv_trunc(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.i64[i] = sl_time_truncate(SRC(nd)->v.i64[i], nd->type.precision);
    return 0;
}
static int sl__cv_same64(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.i64[i] = SRC(nd)->v.i64[i];
    return 0;
}
static int sl__cv_same8(sl__node *nd, sl__eval *ev, int i)
{
    nd->v.b[i] = SRC(nd)->v.b[i];
    return 0;
}
static int sl__cv_interval_str(sl__node *nd, sl__eval *ev, int i)
{
    int64_t x = SRC(nd)->v.i64[i];
    const char *sign = x < 0 ? "-" : "+";
    uint64_t a = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    char buf[64];
    int n;
    if (SRC(nd)->type.id == SL_TYPE_INTERVAL_DT)
        n = snprintf(buf, sizeof buf, "%s%llu %02llu:%02llu:%02llu.%03llu", sign,
                     (unsigned long long)(a / 86400000), (unsigned long long)(a / 3600000 % 24),
                     (unsigned long long)(a / 60000 % 60), (unsigned long long)(a / 1000 % 60),
                     (unsigned long long)(a % 1000));
    else
        n = snprintf(buf, sizeof buf, "%s%llu-%02llu", sign, (unsigned long long)(a / 12),
                     (unsigned long long)(a % 12));
    sl__put_str(nd, ev, i, buf, (size_t)n);
    return 0;
}

/* Conversion families. */
typedef enum sl__fam {
    SL__F_NULL, SL__F_BOOL, SL__F_INT, SL__F_DBL, SL__F_DEC, SL__F_STR, SL__F_BIN,
    SL__F_DATE, SL__F_TIME, SL__F_TS, SL__F_IV, SL__F_OTHER
} sl__fam;

static sl__fam sl__family(sl_type_id t)
{
    if (t == SL_TYPE_NULL) return SL__F_NULL;
    if (t == SL_TYPE_BOOLEAN) return SL__F_BOOL;
    if (sl_type_is_integer(t)) return SL__F_INT;
    if (t == SL_TYPE_FLOAT || t == SL_TYPE_DOUBLE) return SL__F_DBL;
    if (t == SL_TYPE_DECIMAL) return SL__F_DEC;
    if (sl_type_is_string(t)) return SL__F_STR;
    if (sl_type_is_binary(t)) return SL__F_BIN;
    if (t == SL_TYPE_DATE) return SL__F_DATE;
    if (t == SL_TYPE_TIME) return SL__F_TIME;
    if (sl_type_is_timestamp(t)) return SL__F_TS;
    if (sl_type_is_interval(t)) return SL__F_IV;
    return SL__F_OTHER;
}

typedef int (*sl__conv_fn)(sl__node *nd, sl__eval *ev, int i);

/* The per-row converter from -> to, or NULL when unsupported. *fails is
** set when the conversion may raise an error. */
static sl__conv_fn sl__cast_conv(sl_type from, sl_type to, bool *fails)
{
    sl__fam f = sl__family(from.id), t = sl__family(to.id);
    *fails = true;
    switch (f) {
    case SL__F_BOOL:
        switch (t) {
        case SL__F_BOOL: *fails = false; return sl__cv_same8;
        case SL__F_INT: return sl__cv_bool_int;
        case SL__F_DBL: *fails = false; return sl__cv_bool_dbl;
        case SL__F_DEC: return sl__cv_bool_dec;
        case SL__F_STR: *fails = false; return sl__cv_bool_str;
        default: return NULL;
        }
    case SL__F_INT:
        switch (t) {
        case SL__F_BOOL: *fails = false; return sl__cv_int_bool;
        case SL__F_INT: return sl__cv_int_int;
        case SL__F_DBL: *fails = false; return sl__cv_int_dbl;
        case SL__F_DEC: return sl__cv_int_dec;
        case SL__F_STR: *fails = false; return sl__cv_int_str;
        default: return NULL;
        }
    case SL__F_DBL:
        switch (t) {
        case SL__F_BOOL: *fails = false; return sl__cv_dbl_bool;
        case SL__F_INT: return sl__cv_dbl_int;
        case SL__F_DBL: *fails = false; return sl__cv_dbl_dbl;
        case SL__F_DEC: return sl__cv_dbl_dec;
        case SL__F_STR: *fails = false; return sl__cv_dbl_str;
        default: return NULL;
        }
    case SL__F_DEC:
        switch (t) {
        case SL__F_BOOL: *fails = false; return sl__cv_dec_bool;
        case SL__F_INT: return sl__cv_dec_int;
        case SL__F_DBL: *fails = false; return sl__cv_dec_dbl;
        case SL__F_DEC: return sl__cv_dec_dec;
        case SL__F_STR: *fails = false; return sl__cv_dec_str;
        default: return NULL;
        }
    case SL__F_STR:
        switch (t) {
        case SL__F_BOOL: return sl__cv_str_bool;
        case SL__F_INT: return sl__cv_str_int;
        case SL__F_DBL: return sl__cv_str_dbl;
        case SL__F_DEC: return sl__cv_str_dec;
        case SL__F_STR:
        case SL__F_BIN: *fails = false; return sl__cv_str_str;
        case SL__F_DATE: return sl__cv_str_date;
        case SL__F_TIME: return sl__cv_str_time;
        case SL__F_TS: return sl__cv_str_ts;
        default: return NULL;
        }
    case SL__F_BIN:
        *fails = false;
        return t == SL__F_STR || t == SL__F_BIN ? sl__cv_str_str : NULL;
    case SL__F_DATE:
        switch (t) {
        case SL__F_DATE: *fails = false; return sl__cv_same64;
        case SL__F_STR: *fails = false; return sl__cv_date_str;
        case SL__F_TS: return sl__cv_date_ts;
        default: return NULL;
        }
    case SL__F_TIME:
        *fails = false;
        return t == SL__F_TIME ? sl__cv_trunc : t == SL__F_STR ? sl__cv_time_str : NULL;
    case SL__F_TS:
        *fails = false;
        switch (t) {
        case SL__F_TS: return sl__cv_trunc; /* TIMESTAMP <-> TIMESTAMP_LTZ: sl__mk_cast shifts */
        case SL__F_DATE: return sl__cv_ts_date;
        case SL__F_TIME: return sl__cv_ts_time;
        case SL__F_STR: return sl__cv_ts_str;
        default: return NULL;
        }
    case SL__F_IV:
        *fails = false;
        return t == SL__F_IV && from.id == to.id ? sl__cv_same64
               : t == SL__F_STR                  ? sl__cv_interval_str
                                                 : NULL;
    default: return NULL;
    }
}

/* Generic CAST kernel: the converter for every live row; TRY_CAST turns a
** failure into NULL. */
/* The cast's conversion of each live row of its (evaluated) kid. */
static int sl__conv_rows(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    int n = ev->n;
    memcpy(nd->nulls, nd->kids[0]->nulls, (size_t)n);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        if (nd->conv(nd, ev, i) < 0) {
            if (!nd->try_cast)
                return -1;
            sl_error_reset(ev->err);
            nd->nulls[i] = 1;
        }
    }
    return 0;
}

static int sl__k_cast(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    return sl__conv_rows(nd, ev, sel);
}

/* DECIMAL to DECIMAL of the same scale: a copy when every value fits the
** new precision (as when a sink's column is narrower than the expression
** feeding it); else row by row, to fail or round as the cast says. */
static int sl__k_dec_same_scale(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const sl_i128 *a = nd->kids[0]->v.i128;
    sl_i128 *r = nd->v.i128, lim = sl_dec_pow10(nd->type.precision);
    unsigned bad = 0;
    for (int i = 0; i < n; i++) {
        r[i] = a[i];
        bad |= (unsigned)!sl__dec_in(a[i], lim); /* NULL rows too: only slower */
    }
    if (bad)
        return sl__conv_rows(nd, ev, sel);
    memcpy(nd->nulls, nd->kids[0]->nulls, (size_t)n);
    return 0;
}

/* Fast widening kernels inserted by the compiler. */
static int sl__k_i64_to_f64(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const int64_t *a = nd->kids[0]->v.i64;
    double *r = nd->v.f64;
    memcpy(nd->nulls, nd->kids[0]->nulls, (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = (double)a[i];
    if (nd->type.id == SL_TYPE_FLOAT)
        for (int i = 0; i < n; i++)
            r[i] = (double)(float)r[i];
    return 0;
}

static int sl__k_i64_to_i128(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const int64_t *a = nd->kids[0]->v.i64;
    sl_i128 *r = nd->v.i128;
    memcpy(nd->nulls, nd->kids[0]->nulls, (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = a[i];
    return 0;
}

/* An integer into a wider integer type (INT to BIGINT, as a sink's column
** may be): the values as they are. */
/* A CAST whose every value is already one of the target type's, in the
** same representation (a widening integer CAST, a DECIMAL's precision
** raised at the same scale): the result is the operand's, aliased. */
static int sl__k_same_values(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    nd->nulls = nd->kids[0]->nulls;
    nd->v.raw = nd->kids[0]->v.raw;
    return 0;
}

bool sl_bexpr_col_offset(const sl_bexpr *b, int *col, int64_t *off_ns)
{
    int64_t o = 0;
    if (b->kind == SL_BX_CALL && (b->fn->id == SL_FN_ADD || b->fn->id == SL_FN_SUB) &&
        b->nargs == 2) {
        const sl_bexpr *c = b->args[0], *lit = b->args[1];
        if (b->fn->id == SL_FN_ADD && c->kind == SL_BX_LITERAL) {
            c = b->args[1];
            lit = b->args[0];
        }
        if (lit->kind != SL_BX_LITERAL || lit->type.id != SL_TYPE_INTERVAL_DT || !lit->text)
            return false;
        errno = 0;
        long long ms = strtoll(lit->text, NULL, 10);
        if (errno || __builtin_mul_overflow(ms, (long long)SL_NANOS_PER_MILLI, &o))
            return false;
        if (b->fn->id == SL_FN_SUB)
            o = -o;
        b = c;
    }
    if (b->kind != SL_BX_COLUMN)
        return false;
    *col = b->col;
    *off_ns = o;
    return true;
}

/* A CAST node of k to `to` (takes k). NULL with err when unsupported. */
static sl__node *sl__mk_cast(sl_eval_prog *p, sl__node *k, sl_type to, bool try_cast,
                             bool implicit, int pos, sl_error *err)
{
    if (k->type.id == SL_TYPE_NULL) {
        sl__node_free(k);
        return sl__mk_null(p, to, pos);
    }
    if (sl_type_is_composite(k->type.id)) {
        if (sl_type_equal_ignoring_null(k->type, to) ||
            (to.id == k->type.id && sl__composite_same(k->type, to) && implicit)) {
            k->type = to; /* the same bytes */
            return k;
        }
        sl__node *nd = sl__node_new(p, SL__N_OP, to, pos, 1);
        nd->kids[0] = k;
        nd->try_cast = try_cast;
        nd->implicit = implicit;
        nd->run = sl__k_cast;
        if (sl__composite_cast(nd, try_cast, err) < 0) {
            sl__node_free(nd);
            return NULL;
        }
        nd->can_fail = !try_cast && !sl_type_is_string(to.id);
        return sl__finish(p, nd);
    }
    bool fails;
    sl__conv_fn conv = sl__cast_conv(k->type, to, &fails);
    /* TIMESTAMP_LTZ to or from a local type (TIMESTAMP, DATE, TIME, text)
    ** goes through the session's time zone: a shift to the local TIMESTAMP
    ** of the same instant, then the local cast (or the reverse). */
    bool from_ltz = k->type.id == SL_TYPE_TIMESTAMP_LTZ, to_ltz = to.id == SL_TYPE_TIMESTAMP_LTZ;
    if (conv && from_ltz != to_ltz) {
        if (from_ltz)
            return sl__mk_cast(p, sl__tz_shift(p, k, true), to, try_cast, implicit, pos, err);
        sl__node *local = sl__mk_cast(p, k, sl_type_make_p(SL_TYPE_TIMESTAMP, to.precision, 0),
                                      try_cast, implicit, pos, err);
        return local ? sl__tz_shift(p, local, false) : NULL;
    }
    if (!conv) {
        char a[64], b[64];
        sl__type_name(k->type, a, sizeof a);
        sl__type_name(to, b, sizeof b);
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, pos, "CAST from %s to %s is not supported", a, b);
        sl__node_free(k);
        return NULL;
    }
    sl__node *nd = sl__node_new(p, SL__N_OP, to, pos, 1);
    nd->kids[0] = k;
    nd->conv = conv;
    nd->try_cast = try_cast;
    nd->implicit = implicit;
    nd->can_fail = fails && !try_cast;
    sl__int_range(to.id, &nd->lo, &nd->hi);
    nd->run = sl__k_cast;
    if (implicit && sl__family(k->type.id) == SL__F_INT && sl__family(to.id) == SL__F_DBL)
        nd->run = sl__k_i64_to_f64;
    else if (implicit && sl__family(k->type.id) == SL__F_INT && to.id == SL_TYPE_DECIMAL &&
             to.scale == 0 && to.precision >= 19)
        nd->run = sl__k_i64_to_i128;
    else if (k->type.id == SL_TYPE_DECIMAL && to.id == SL_TYPE_DECIMAL && k->type.scale == to.scale)
        nd->run = to.precision >= (k->digits ? k->digits : k->type.precision) ? sl__k_same_values
                                                                                : sl__k_dec_same_scale;
    else if (sl__family(k->type.id) == SL__F_INT && sl__family(to.id) == SL__F_INT) {
        int64_t lo, hi;
        sl__int_range(k->type.id, &lo, &hi);
        if (lo >= nd->lo && hi <= nd->hi)
            nd->run = sl__k_same_values;
    }
    return sl__finish(p, nd);
}

sl__node *sl__coerce(sl_eval_prog *p, sl__node *k, sl_type to, sl_error *err)
{
    if (!k)
        return NULL;
    sl_type_id f = k->type.id, t = to.id;
    if (f == SL_TYPE_NULL)
        return sl__mk_cast(p, k, to, false, true, k->pos, err);
    bool same = false;
    if (f == t && sl_type_is_composite(f))
        same = sl__composite_same(k->type, to);
    else if (f == t)
        same = f != SL_TYPE_DECIMAL || k->type.scale == to.scale;
    else if (sl_type_is_integer(f) && sl_type_is_integer(t))
        same = true; /* widening only: the binder's common types never narrow */
    else if ((sl_type_is_string(f) && sl_type_is_string(t)) ||
             (sl_type_is_binary(f) && sl_type_is_binary(t)))
        same = true;
    else if (f == SL_TYPE_FLOAT && t == SL_TYPE_DOUBLE)
        same = true;
    else if (sl_type_is_timestamp(f) && sl_type_is_timestamp(t))
        same = true;
    if (same)
        return k;
    return sl__mk_cast(p, k, to, false, true, k->pos, err);
}

/* ========================================================================
** Arithmetic.
*/

/* Slow path of an integer kernel that saw a suspicious row: find the first
** live row whose result really overflows. */
static int sl__int_check(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    const int64_t *a = nd->kids[0]->v.i64, *b = nd->nkids > 1 ? nd->kids[1]->v.i64 : NULL;
    for (int i = 0; i < ev->n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t x = 0;
        bool o;
        switch (nd->op) {
        case SL_FN_ADD: o = __builtin_add_overflow(a[i], b[i], &x); break;
        case SL_FN_SUB: o = __builtin_sub_overflow(a[i], b[i], &x); break;
        case SL_FN_MUL: o = __builtin_mul_overflow(a[i], b[i], &x); break;
        case SL_FN_NEG: o = __builtin_sub_overflow((int64_t)0, a[i], &x); break;
        case SL_FN_DIV:
        case SL_FN_MOD:
            if (b[i] == 0)
                return sl__fail(ev, nd, SL_ERR_DIVISION_BY_ZERO, "division by zero");
            o = a[i] == INT64_MIN && b[i] == -1 && nd->op == SL_FN_DIV;
            x = o ? 0 : nd->op == SL_FN_DIV ? a[i] / b[i] : a[i] % b[i];
            break;
        default: o = false; break;
        }
        if (o || x < nd->lo || x > nd->hi)
            return sl__int_range_error(ev, nd, nd->type.id);
    }
    return 0;
}

#define SL__INT_KERNEL(name, BODY)                                                 \
    static int name(sl__node *nd, sl__eval *ev, const uint8_t *sel)                \
    {                                                                              \
        if (sl__run_kids(nd, ev, sel) < 0)                                         \
            return -1;                                                             \
        int n = ev->n;                                                             \
        sl__or_nulls(nd, n);                                                       \
        const int64_t *a = nd->kids[0]->v.i64;                                     \
        const int64_t *b = nd->nkids > 1 ? nd->kids[1]->v.i64 : a;                 \
        int64_t *r = nd->v.i64, lo = nd->lo, hi = nd->hi;                          \
        unsigned bad = 0;                                                          \
        for (int i = 0; i < n; i++) {                                              \
            int64_t x;                                                             \
            BODY;                                                                  \
            bad |= (unsigned)(x < lo) | (unsigned)(x > hi);                        \
            r[i] = x;                                                              \
        }                                                                          \
        (void)b;                                                                   \
        return bad ? sl__int_check(nd, ev, sel) : 0;                               \
    }

SL__INT_KERNEL(sl__k_add_i64, bad |= (unsigned)__builtin_add_overflow(a[i], b[i], &x))
SL__INT_KERNEL(sl__k_sub_i64, bad |= (unsigned)__builtin_sub_overflow(a[i], b[i], &x))
SL__INT_KERNEL(sl__k_mul_i64, bad |= (unsigned)__builtin_mul_overflow(a[i], b[i], &x))
SL__INT_KERNEL(sl__k_neg_i64, bad |= (unsigned)__builtin_sub_overflow((int64_t)0, a[i], &x))
SL__INT_KERNEL(sl__k_div_i64, {
    int64_t d = b[i];
    unsigned z = (unsigned)(d == 0) | (unsigned)(d == -1 && a[i] == INT64_MIN);
    bad |= z;
    x = z ? 0 : a[i] / d;
})
SL__INT_KERNEL(sl__k_mod_i64, {
    int64_t d = b[i];
    bad |= (unsigned)(d == 0);
    x = (d == 0 || d == -1) ? 0 : a[i] % d;
})
/* x % d for a constant power of two d > 0, without a division: the low
** bits, carrying a negative x's sign as C's % does (-3 % 2 = -1). */
SL__INT_KERNEL(sl__k_mod_pow2, {
    int64_t m = b[0] - 1;
    int64_t v = a[i] & m;
    x = (a[i] < 0 && v != 0) ? v - m - 1 : v;
})

/* DOUBLE / FLOAT arithmetic (IEEE: x / 0 is inf or NaN, as Flink). */
static int sl__k_arith_f64(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const double *a = nd->kids[0]->v.f64, *b = nd->nkids > 1 ? nd->kids[1]->v.f64 : a;
    double *r = nd->v.f64;
    switch (nd->op) {
    case SL_FN_ADD: for (int i = 0; i < n; i++) r[i] = a[i] + b[i]; break;
    case SL_FN_SUB: for (int i = 0; i < n; i++) r[i] = a[i] - b[i]; break;
    case SL_FN_MUL: for (int i = 0; i < n; i++) r[i] = a[i] * b[i]; break;
    case SL_FN_DIV: for (int i = 0; i < n; i++) r[i] = a[i] / b[i]; break;
    case SL_FN_MOD: for (int i = 0; i < n; i++) r[i] = fmod(a[i], b[i]); break;
    case SL_FN_NEG: for (int i = 0; i < n; i++) r[i] = -a[i]; break;
    default: break;
    }
    if (nd->type.id == SL_TYPE_FLOAT)
        for (int i = 0; i < n; i++)
            r[i] = (double)(float)r[i];
    return 0;
}

typedef int (*sl__dec_op)(sl_i128, int, sl_i128, int, int, int, sl_i128 *);

/* DECIMAL arithmetic: exact via sl_dec_* at the node's precision/scale;
** the common case (ADD/SUB with all scales equal) is a plain loop. */
static int sl__k_arith_dec(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const sl__node *ka = nd->kids[0];
    const sl_i128 *a = ka->v.i128;
    sl_i128 *r = nd->v.i128;
    int p = nd->type.precision, s = nd->type.scale, sa = ka->type.scale;
    if (nd->op == SL_FN_NEG) {
        for (int i = 0; i < n; i++)
            if (SL__LIVE(nd, sel, i) &&
                sl_dec_rescale(-a[i], sa, p, s, &r[i]) < 0)
                return sl__dec_overflow(ev, nd, nd->type);
        return 0;
    }
    const sl__node *kb = nd->kids[1];
    const sl_i128 *b = kb->v.i128;
    int sb = kb->type.scale;
    sl__dec_op fn = nd->op == SL_FN_ADD   ? sl_dec_add
                    : nd->op == SL_FN_SUB ? sl_dec_sub
                    : nd->op == SL_FN_MUL ? sl_dec_mul
                    : nd->op == SL_FN_DIV ? sl_dec_div
                                          : sl_dec_mod;
    bool is_mul = nd->op == SL_FN_MUL, is_add = nd->op == SL_FN_ADD;
    if ((is_mul && sa + sb == s) ||
        ((is_add || nd->op == SL_FN_SUB) && sa <= s && sb <= s && s - sa <= 18 && s - sb <= 18)) {
        /* no rounding: exact in 128 bits when both operands fit 64 bits
        ** (|x| < 2^63 and factors < 2^63 keep every product below 2^126);
        ** other rows (and overflows) take the general routine */
        int64_t fa = is_mul ? 1 : (int64_t)sl_dec_pow10(s - sa);
        int64_t fb = is_mul ? 1 : (int64_t)sl_dec_pow10(s - sb);
        int64_t sign = is_add || is_mul ? 1 : -1;
        sl_i128 lim = nd->plim, big = (sl_i128)1 << 63;
        for (int i = 0; i < n; i++) {
            sl_i128 x = a[i], y = b[i];
            if (x < big && x > -big && y < big && y > -big) {
                /* 64 x 64 -> 128-bit products */
                int64_t x64 = (int64_t)x, y64 = (int64_t)y * sign;
                x = is_mul ? (sl_i128)x64 * y64 : (sl_i128)x64 * fa + (sl_i128)y64 * fb;
                r[i] = x;
                if (sl__dec_in(x, lim))
                    continue;
            }
            if (SL__LIVE(nd, sel, i) && fn(a[i], sa, b[i], sb, p, s, &r[i]) < 0)
                return sl__dec_overflow(ev, nd, nd->type);
        }
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int rc = fn(a[i], sa, b[i], sb, p, s, &r[i]);
        if (rc == -2)
            return sl__fail(ev, nd, SL_ERR_DIVISION_BY_ZERO, "division by zero");
        if (rc < 0)
            return sl__dec_overflow(ev, nd, nd->type);
    }
    return 0;
}

/* Temporal +/- interval. kids[0] = temporal, kids[1] = interval; op ADD/SUB. */
static int sl__k_temporal(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const int64_t *a = nd->kids[0]->v.i64, *b = nd->kids[1]->v.i64;
    int64_t *r = nd->v.i64;
    sl_type_id tt = nd->type.id, it = nd->kids[1]->type.id;
    if (tt != SL_TYPE_DATE && tt != SL_TYPE_TIME && it != SL_TYPE_INTERVAL_YM) {
        /* TIMESTAMP +/- a day-time interval (a watermark's ts - INTERVAL):
        ** every row at once; an overflow anywhere (a NULL row's value too)
        ** sends the chunk through the loop below, which reports it. */
        bool sub = nd->op == SL_FN_SUB;
        unsigned bad = 0;
        for (int i = 0; i < n; i++) {
            int64_t d, x;
            bad |= (unsigned)__builtin_mul_overflow(b[i], SL_NANOS_PER_MILLI, &d);
            bad |= (unsigned)(sub ? __builtin_sub_overflow(a[i], d, &x) : __builtin_add_overflow(a[i], d, &x));
            r[i] = x;
        }
        if (!bad)
            return 0;
    }
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t iv = b[i], x;
        if (nd->op == SL_FN_SUB) {
            if (iv == INT64_MIN)
                return sl__fail(ev, nd, "22008", "interval out of range");
            iv = -iv;
        }
        int rc = 0;
        if (tt == SL_TYPE_DATE) {
            if (it == SL_TYPE_INTERVAL_YM) {
                rc = sl_date_add_months(a[i], iv, &x);
            } else {
                int64_t ms;
                rc = __builtin_mul_overflow(a[i], (int64_t)86400000, &ms) ||
                             __builtin_add_overflow(ms, iv, &ms)
                         ? -1
                         : 0;
                x = rc ? 0 : sl__floordiv(ms, 86400000);
            }
        } else if (tt == SL_TYPE_TIME) {
            int64_t ms = sl__floormod(iv, 86400000);
            x = sl__floormod(a[i] + ms * SL_NANOS_PER_MILLI, SL_NANOS_PER_DAY);
        } else if (it == SL_TYPE_INTERVAL_YM) {
            rc = sl_ts_add_months(a[i], iv, &x);
        } else {
            rc = sl_ts_add_millis(a[i], iv, &x);
        }
        if (rc < 0 && tt == SL_TYPE_DATE)
            return sl__date_check(ev, nd, INT64_MAX);
        if (rc < 0)
            return sl__ts_range_error(ev, nd);
        if (tt == SL_TYPE_DATE && sl__date_check(ev, nd, x) < 0)
            return -1;
        r[i] = x;
    }
    return 0;
}

/* INTERVAL * numeric, INTERVAL / numeric with a DOUBLE factor: rounded to
** the interval's unit (ms or months). kids[0] = interval, kids[1] = DOUBLE. */
static int sl__k_interval_f64(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const int64_t *a = nd->kids[0]->v.i64;
    const double *b = nd->kids[1]->v.f64;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        if (nd->op == SL_FN_DIV && b[i] == 0)
            return sl__fail(ev, nd, SL_ERR_DIVISION_BY_ZERO, "division by zero");
        double x = nd->op == SL_FN_DIV ? (double)a[i] / b[i] : (double)a[i] * b[i];
        x = round(x);
        if (!(x >= (double)nd->lo && x < (double)nd->hi))
            return sl__fail(ev, nd, "22008", "interval out of range");
        nd->v.i64[i] = (int64_t)x;
    }
    return 0;
}

/* x * k, k a constant (either side), when both fit 64 bits and no product
** can leave the result's precision: |x| < 10^px and |k| < 10^dk with
** px + dk <= the precision, the scales adding up to the result's (x fits
** 64 bits when px <= 18 or it is an integer widened to DECIMAL(19, 0)).
** Then the product's digits (px + dk: a CAST to as many digits or more
** need not check), else 0. */
static int sl__mul_dec_small(const sl__node *a, const sl__node *b, sl_type t)
{
    const sl__node *k = b->kind == SL__N_CONST ? b : a->kind == SL__N_CONST ? a : NULL;
    const sl__node *x = k == b ? a : b;
    if (!k || k->nulls[0] || a->type.id != SL_TYPE_DECIMAL || b->type.id != SL_TYPE_DECIMAL ||
        a->type.scale + b->type.scale != t.scale)
        return 0;
    sl_i128 c = k->v.i128[0];
    int dk = 0;
    for (sl_i128 m = c < 0 ? -c : c; m > 0; m /= 10)
        dk++;
    int px = x->digits ? x->digits : x->type.precision;
    bool x64 = px <= 18 || x->run == sl__k_i64_to_i128;
    return x64 && dk <= 18 && px + dk <= t.precision ? px + dk : 0;
}

/* sl__mul_dec_small's products: nd->lo says how (SL__MULK_*): the value
** kid is DECIMAL or the BIGINT itself (its widening cast taken out), the
** product 64 or 128 bits wide. */
#define SL__MULK_NARROW 1 /* px + dk <= 18: a 64-bit product */
#define SL__MULK_I64 2    /* the value kid is an integer (phys i64) */
static int sl__k_mul_dec_k(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    bool kb = nd->kids[1]->kind == SL__N_CONST;
    const sl__node *xn = nd->kids[kb ? 0 : 1];
    int64_t c = (int64_t)nd->kids[kb ? 1 : 0]->v.i128[0];
    sl_i128 *r = nd->v.i128;
    /* NULL rows' values are whatever they hold: unsigned, no UB */
    switch (nd->lo) {
    case SL__MULK_NARROW: {
        const sl_i128 *x = xn->v.i128;
        for (int i = 0; i < n; i++)
            r[i] = (sl_i128)(int64_t)((uint64_t)(int64_t)x[i] * (uint64_t)c);
        break;
    }
    case SL__MULK_NARROW | SL__MULK_I64: {
        const int64_t *x = xn->v.i64;
        for (int i = 0; i < n; i++)
            r[i] = (sl_i128)(int64_t)((uint64_t)x[i] * (uint64_t)c);
        break;
    }
    case SL__MULK_I64: {
        const int64_t *x = xn->v.i64;
        for (int i = 0; i < n; i++)
            r[i] = (sl_i128)x[i] * c;
        break;
    }
    default: {
        const sl_i128 *x = xn->v.i128;
        for (int i = 0; i < n; i++)
            r[i] = (sl_i128)(int64_t)x[i] * c;
        break;
    }
    }
    return 0;
}

/* Compile an arithmetic operator (ADD, SUB, MUL, DIV, MOD; MOD_FN as MOD)
** over compiled operands a, b with result type t. Takes a and b. */
static sl__node *sl__mk_arith(sl_eval_prog *p, int op, sl__node *a, sl__node *b, sl_type t,
                              int pos, sl_error *err)
{
    sl_type_id ta = a->type.id == SL_TYPE_NULL ? b->type.id : a->type.id;
    sl_type_id tb = b->type.id == SL_TYPE_NULL ? a->type.id : b->type.id;
    sl__node *nd = NULL;
    int mulk = -1;
    if (sl_type_is_integer(t.id)) {
        a = sl__coerce(p, a, t, err);
        b = sl__coerce(p, b, t, err);
        if (!a || !b)
            goto fail;
        nd = sl__node_new(p, SL__N_OP, t, pos, 2);
        nd->run = op == SL_FN_ADD   ? sl__k_add_i64
                  : op == SL_FN_SUB ? sl__k_sub_i64
                  : op == SL_FN_MUL ? sl__k_mul_i64
                  : op == SL_FN_DIV ? sl__k_div_i64
                                    : sl__k_mod_i64;
        if (op == SL_FN_MOD && b->kind == SL__N_CONST && !b->nulls[0] && b->v.i64[0] > 0 &&
            (b->v.i64[0] & (b->v.i64[0] - 1)) == 0)
            nd->run = sl__k_mod_pow2;
        nd->can_fail = true;
    } else if (t.id == SL_TYPE_FLOAT || t.id == SL_TYPE_DOUBLE) {
        sl_type d = sl_type_make(SL_TYPE_DOUBLE);
        a = sl__coerce(p, a, d, err);
        b = sl__coerce(p, b, d, err);
        if (!a || !b)
            goto fail;
        nd = sl__node_new(p, SL__N_OP, t, pos, 2);
        nd->run = sl__k_arith_f64;
    } else if (t.id == SL_TYPE_DECIMAL) {
        sl_type d19 = sl_type_make_p(SL_TYPE_DECIMAL, 19, 0);
        a = sl__coerce(p, a, a->type.id == SL_TYPE_DECIMAL ? a->type : a->type.id == SL_TYPE_NULL ? t : d19, err);
        b = sl__coerce(p, b, b->type.id == SL_TYPE_DECIMAL ? b->type : b->type.id == SL_TYPE_NULL ? t : d19, err);
        if (!a || !b)
            goto fail;
        nd = sl__node_new(p, SL__N_OP, t, pos, 2);
        nd->run = sl__k_arith_dec;
        nd->plim = sl_dec_pow10(t.precision);
        nd->can_fail = true;
        if (op == SL_FN_MUL && (nd->digits = sl__mul_dec_small(a, b, t)) > 0) {
            nd->run = sl__k_mul_dec_k;
            nd->can_fail = false;
            mulk = nd->digits <= 18 ? SL__MULK_NARROW : 0;
            sl__node **x = b->kind == SL__N_CONST ? &a : &b;
            if ((*x)->run == sl__k_i64_to_i128) { /* read the integers themselves */
                sl__node *w = *x;
                *x = w->kids[0];
                w->kids[0] = NULL;
                sl__node_free(w);
                mulk |= SL__MULK_I64;
            }
        }
    } else if (sl_type_is_interval(t.id) && sl_type_is_interval(ta) && sl_type_is_interval(tb)) {
        /* interval +/- interval: exact int64 */
        a = sl__coerce(p, a, t, err);
        b = sl__coerce(p, b, t, err);
        if (!a || !b)
            goto fail;
        nd = sl__node_new(p, SL__N_OP, t, pos, 2);
        nd->run = op == SL_FN_ADD ? sl__k_add_i64 : sl__k_sub_i64;
        nd->can_fail = true;
    } else if (sl_type_is_interval(t.id)) {
        /* interval * numeric, numeric * interval, interval / numeric */
        if (!sl_type_is_interval(ta)) {
            sl__node *x = a;
            a = b;
            b = x;
        }
        a = sl__coerce(p, a, t, err);
        if (!a)
            goto fail;
        if (b->type.id == SL_TYPE_NULL || sl_type_is_integer(b->type.id)) {
            b = sl__coerce(p, b, sl_type_make(SL_TYPE_BIGINT), err);
            if (!b)
                goto fail;
            nd = sl__node_new(p, SL__N_OP, t, pos, 2);
            nd->run = op == SL_FN_MUL ? sl__k_mul_i64 : sl__k_div_i64;
        } else {
            b = sl__coerce(p, b, sl_type_make(SL_TYPE_DOUBLE), err);
            if (!b)
                goto fail;
            nd = sl__node_new(p, SL__N_OP, t, pos, 2);
            nd->run = sl__k_interval_f64;
        }
        nd->can_fail = true;
    } else {
        /* temporal +/- interval, interval + temporal */
        if (sl_type_is_interval(ta) && !sl_type_is_interval(tb)) {
            sl__node *x = a;
            a = b;
            b = x;
        }
        if (a->type.id == SL_TYPE_NULL || b->type.id == SL_TYPE_NULL) {
            sl__node_free(a);
            sl__node_free(b);
            return sl__mk_null(p, t, pos);
        }
        nd = sl__node_new(p, SL__N_OP, t, pos, 2);
        nd->run = sl__k_temporal;
        nd->can_fail = true;
    }
    nd->kids[0] = a;
    nd->kids[1] = b;
    nd->op = op;
    sl__int_range(t.id, &nd->lo, &nd->hi);
    if (mulk >= 0)
        nd->lo = mulk; /* sl__k_mul_dec_k's kind of product */
    return sl__finish(p, nd);
fail:
    sl__node_free(a);
    sl__node_free(b);
    return NULL;
}

/* Unary minus. */
static sl__node *sl__mk_neg(sl_eval_prog *p, sl__node *a, sl_type t, int pos, sl_error *err)
{
    if (a->type.id == SL_TYPE_NULL) {
        sl__node_free(a);
        return sl__mk_null(p, t, pos);
    }
    sl__node *nd = sl__node_new(p, SL__N_OP, t, pos, 1);
    nd->kids[0] = a;
    nd->op = SL_FN_NEG;
    sl__int_range(t.id, &nd->lo, &nd->hi);
    switch (nd->phys) {
    case SL_PHYS_I64: nd->run = sl__k_neg_i64; nd->can_fail = true; break;
    case SL_PHYS_F64: nd->run = sl__k_arith_f64; break;
    case SL_PHYS_I128: nd->run = sl__k_arith_dec; nd->can_fail = true; break;
    default:
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, pos, "unary minus of this type is not supported");
        sl__node_free(nd);
        return NULL;
    }
    return sl__finish(p, nd);
}

/* ========================================================================
** Comparisons.
*/

#define SL__CMP_SWITCH(A, B)                                                       \
    switch (nd->op) {                                                              \
    case SL_FN_EQ:                                                                 \
    case SL_FN_IS_NOT_DISTINCT:                                                    \
        for (int i = 0; i < n; i++) r[i] = A[i] == B[i];                           \
        break;                                                                     \
    case SL_FN_NE:                                                                 \
    case SL_FN_IS_DISTINCT:                                                        \
        for (int i = 0; i < n; i++) r[i] = A[i] != B[i];                           \
        break;                                                                     \
    case SL_FN_LT: for (int i = 0; i < n; i++) r[i] = A[i] < B[i]; break;          \
    case SL_FN_LE: for (int i = 0; i < n; i++) r[i] = A[i] <= B[i]; break;         \
    case SL_FN_GT: for (int i = 0; i < n; i++) r[i] = A[i] > B[i]; break;          \
    case SL_FN_GE: for (int i = 0; i < n; i++) r[i] = A[i] >= B[i]; break;         \
    default: break;                                                                \
    }

static int sl__k_cmp_i64(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const int64_t *a = nd->kids[0]->v.i64, *b = nd->kids[1]->v.i64;
    uint8_t *r = nd->v.b;
    SL__CMP_SWITCH(a, b)
    return 0;
}

/* x % 2^k = 0 (EQ) or <> 0 (NE): kids x and the constant 0, lo = 2^k - 1. */
static int sl__k_low_bits_zero(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const int64_t *x = nd->kids[0]->v.i64;
    uint8_t *r = nd->v.b;
    int64_t m = nd->lo;
    uint8_t want = nd->op == SL_FN_EQ;
    for (int i = 0; i < n; i++)
        r[i] = ((x[i] & m) == 0) == want;
    return 0;
}

static int sl__k_cmp_f64(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const double *a = nd->kids[0]->v.f64, *b = nd->kids[1]->v.f64;
    uint8_t *r = nd->v.b;
    SL__CMP_SWITCH(a, b)
    return 0;
}

static int sl__k_cmp_bool(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const uint8_t *a = nd->kids[0]->v.b, *b = nd->kids[1]->v.b;
    uint8_t *r = nd->v.b;
    SL__CMP_SWITCH(a, b)
    return 0;
}

/* Result of a three-way comparison c (-1, 0, 1) for op, as a table. */
static void sl__cmp_lut(int op, uint8_t lut[3])
{
    bool ne = op == SL_FN_NE || op == SL_FN_IS_DISTINCT;
    lut[0] = op == SL_FN_LT || op == SL_FN_LE || ne;
    lut[1] = op == SL_FN_EQ || op == SL_FN_IS_NOT_DISTINCT || op == SL_FN_LE || op == SL_FN_GE;
    lut[2] = op == SL_FN_GT || op == SL_FN_GE || ne;
}

static int sl__k_cmp_dec(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const sl_i128 *a = nd->kids[0]->v.i128, *b = nd->kids[1]->v.i128;
    int sa = nd->kids[0]->type.scale, sb = nd->kids[1]->type.scale;
    uint8_t *r = nd->v.b;
    if (sa == sb) {
        SL__CMP_SWITCH(a, b)
        return 0;
    }
    uint8_t lut[3];
    sl__cmp_lut(nd->op, lut);
    for (int i = 0; i < n; i++)
        r[i] = SL__LIVE(nd, sel, i) ? lut[sl_dec_cmp(a[i], sa, b[i], sb) + 1] : 0;
    return 0;
}

/* Byte-wise (UTF-8 binary order) comparison of two strings. */
static inline int sl__str_cmp(const sl_str *x, const sl_str *y)
{
    uint32_t m = x->len < y->len ? x->len : y->len;
    int c = m ? memcmp(x->ptr, y->ptr, m) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

static int sl__k_cmp_str(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    sl__or_nulls(nd, n);
    const sl_str *a = nd->kids[0]->v.str, *b = nd->kids[1]->v.str;
    uint8_t *r = nd->v.b;
    uint8_t lut[3];
    sl__cmp_lut(nd->op, lut);
    if (nd->op == SL_FN_EQ || nd->op == SL_FN_NE || nd->op == SL_FN_IS_DISTINCT ||
        nd->op == SL_FN_IS_NOT_DISTINCT) {
        uint8_t eq = lut[1];
        for (int i = 0; i < n; i++)
            r[i] = SL__LIVE(nd, sel, i)
                       ? (uint8_t)((a[i].len == b[i].len &&
                                    (a[i].len == 0 || memcmp(a[i].ptr, b[i].ptr, a[i].len) == 0)) == eq)
                       : 0;
        return 0;
    }
    for (int i = 0; i < n; i++)
        r[i] = SL__LIVE(nd, sel, i) ? lut[sl__str_cmp(&a[i], &b[i]) + 1] : 0;
    return 0;
}

/* IS [NOT] DISTINCT FROM: the comparison kernel of the operands' domain
** (aux) computes = / <> of the values, then a NULL operand decides: two
** NULLs are not distinct, one NULL is distinct from any value. Never NULL. */
typedef struct sl__distinct_aux {
    sl__run_fn cmp;
} sl__distinct_aux;

static int sl__k_distinct(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    const sl__distinct_aux *x = nd->aux;
    if (x->cmp(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const uint8_t *an = nd->kids[0]->nulls, *bn = nd->kids[1]->nulls;
    uint8_t same = nd->op == SL_FN_IS_NOT_DISTINCT, *r = nd->v.b;
    for (int i = 0; i < n; i++)
        if (an[i] | bn[i])
            r[i] = (uint8_t)((an[i] & bn[i]) == same);
    memset(nd->nulls, 0, (size_t)n);
    return 0;
}

static sl__node *sl__mk_bool(sl_eval_prog *p, sl__run_fn run, int op, int pos, sl__node *a,
                             sl__node *b);
static int sl__k_is(sl__node *nd, sl__eval *ev, const uint8_t *sel);

/* Compile a comparison op (EQ..GE, IS [NOT] DISTINCT FROM) of a and b
** (takes them): both sides are converted to one domain: DOUBLE if either is
** approximate, else DECIMAL (exact, any scales) if either is DECIMAL, else
** their own representation. */
static sl__node *sl__mk_cmp(sl_eval_prog *p, int op, sl__node *a, sl__node *b, int pos,
                            sl_error *err)
{
    sl_type bt = sl_type_make(SL_TYPE_BOOLEAN);
    sl_type_id ta = a->type.id, tb = b->type.id;
    bool distinct = op == SL_FN_IS_DISTINCT || op == SL_FN_IS_NOT_DISTINCT;
    if (distinct && (ta == SL_TYPE_NULL || tb == SL_TYPE_NULL)) {
        /* x IS [NOT] DISTINCT FROM NULL: x IS [NOT] NULL */
        sl__node *x = ta == SL_TYPE_NULL ? b : a;
        sl__node_free(ta == SL_TYPE_NULL ? a : b);
        return sl__mk_bool(p, sl__k_is, op == SL_FN_IS_DISTINCT ? SL_FN_IS_NOT_NULL : SL_FN_IS_NULL,
                           pos, x, NULL);
    }
    if (ta == SL_TYPE_NULL || tb == SL_TYPE_NULL) {
        sl__node_free(a);
        sl__node_free(b);
        return sl__mk_null(p, bt, pos);
    }
    sl__run_fn run;
    if (sl_type_is_numeric(ta) && sl_type_is_numeric(tb) &&
        (ta == SL_TYPE_FLOAT || ta == SL_TYPE_DOUBLE || tb == SL_TYPE_FLOAT || tb == SL_TYPE_DOUBLE)) {
        sl_type d = sl_type_make(SL_TYPE_DOUBLE);
        a = sl__coerce(p, a, d, err);
        b = sl__coerce(p, b, d, err);
        run = sl__k_cmp_f64;
    } else if (sl_type_is_numeric(ta) && sl_type_is_numeric(tb) &&
               (ta == SL_TYPE_DECIMAL || tb == SL_TYPE_DECIMAL)) {
        sl_type d19 = sl_type_make_p(SL_TYPE_DECIMAL, 19, 0);
        if (ta != SL_TYPE_DECIMAL)
            a = sl__coerce(p, a, d19, err);
        if (tb != SL_TYPE_DECIMAL)
            b = sl__coerce(p, b, d19, err);
        run = sl__k_cmp_dec;
    } else {
        switch (a->phys) {
        case SL_PHYS_BOOL: run = sl__k_cmp_bool; break;
        case SL_PHYS_I64: run = sl__k_cmp_i64; break;
        case SL_PHYS_STR: run = sl__k_cmp_str; break;
        default: run = sl__k_cmp_f64; break;
        }
        if (a->phys != b->phys) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, pos, "comparison of these types is not supported");
            sl__node_free(a);
            sl__node_free(b);
            return NULL;
        }
    }
    if (!a || !b) {
        sl__node_free(a);
        sl__node_free(b);
        return NULL;
    }
    sl__node *nd = sl__node_new(p, SL__N_OP, bt, pos, 2);
    if (run == sl__k_cmp_i64 && (op == SL_FN_EQ || op == SL_FN_NE) && a->run == sl__k_mod_pow2 &&
        b->kind == SL__N_CONST && !b->nulls[0] && b->v.i64[0] == 0) {
        /* x % 2^k = 0 (or <> 0) whatever x's sign: its low k bits, in one pass */
        sl__node *x = a->kids[0];
        nd->lo = a->kids[1]->v.i64[0] - 1;
        a->kids[0] = NULL;
        sl__node_free(a);
        a = x;
        run = sl__k_low_bits_zero;
    }
    nd->kids[0] = a;
    nd->kids[1] = b;
    nd->op = op;
    nd->run = run;
    if (distinct) {
        sl__distinct_aux *x = sl_calloc(1, sizeof *x);
        x->cmp = run;
        nd->aux = x;
        nd->aux_free = sl_free;
        nd->run = sl__k_distinct;
    }
    return sl__finish(p, nd);
}

/* ========================================================================
** Logic: AND / OR (three-valued, short-circuit as Flink), NOT, IS tests.
*/

static int sl__k_and_or(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    sl__node *l = nd->kids[0], *rt = nd->kids[1];
    if (l->run(l, ev, sel) < 0)
        return -1;
    int n = ev->n;
    bool is_and = nd->op == SL_FN_AND;
    const uint8_t *rsel = sel;
    if (rt->can_fail) {
        /* the right side only for rows the left side does not decide */
        uint8_t *m = nd->mask;
        uint8_t decided = is_and ? 0 : 1; /* left value that decides */
        for (int i = 0; i < n; i++)
            m[i] = (uint8_t)((!sel || sel[i]) & !(!l->nulls[i] & (l->v.b[i] == decided)));
        rsel = m;
        if (!sl__any(m, n)) {
            /* every row decided by the left side */
            for (int i = 0; i < n; i++) {
                nd->nulls[i] = l->nulls[i];
                nd->v.b[i] = l->v.b[i] & (!l->nulls[i]);
            }
            return 0;
        }
    }
    if (rt->run(rt, ev, rsel) < 0)
        return -1;
    const uint8_t *an = l->nulls, *av = l->v.b, *bn = rt->nulls, *bv = rt->v.b;
    uint8_t *rn = nd->nulls, *rv = nd->v.b;
    if (rsel != sel) {
        /* rows decided by the left side: the right side was not computed */
        const uint8_t *m = rsel;
        if (is_and)
            for (int i = 0; i < n; i++) {
                uint8_t af = (!an[i]) & (!av[i]), bf = m[i] & (!bn[i]) & (!bv[i]);
                uint8_t bnul = m[i] & bn[i];
                rv[i] = (!an[i]) & av[i] & m[i] & (!bn[i]) & bv[i];
                rn[i] = (!(af | bf)) & (an[i] | bnul);
            }
        else
            for (int i = 0; i < n; i++) {
                uint8_t at = (!an[i]) & av[i], bt = m[i] & (!bn[i]) & bv[i];
                uint8_t bnul = m[i] & bn[i];
                rv[i] = at | bt;
                rn[i] = (!(at | bt)) & (an[i] | bnul);
            }
        return 0;
    }
    if (is_and)
        for (int i = 0; i < n; i++) {
            uint8_t af = (!an[i]) & (!av[i]), bf = (!bn[i]) & (!bv[i]);
            rv[i] = (!an[i]) & av[i] & (!bn[i]) & bv[i];
            rn[i] = (!(af | bf)) & (an[i] | bn[i]);
        }
    else
        for (int i = 0; i < n; i++) {
            uint8_t at = (!an[i]) & av[i], bt = (!bn[i]) & bv[i];
            rv[i] = at | bt;
            rn[i] = (!(at | bt)) & (an[i] | bn[i]);
        }
    return 0;
}

static int sl__k_not(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const sl__node *a = nd->kids[0];
    memcpy(nd->nulls, a->nulls, (size_t)n);
    for (int i = 0; i < n; i++)
        nd->v.b[i] = (!a->v.b[i]);
    return 0;
}

static int sl__k_is(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const sl__node *a = nd->kids[0];
    const uint8_t *an = a->nulls, *av = a->phys == SL_PHYS_BOOL ? a->v.b : a->nulls;
    uint8_t *r = nd->v.b;
    memset(nd->nulls, 0, (size_t)n);
    switch (nd->op) {
    case SL_FN_IS_NULL: for (int i = 0; i < n; i++) r[i] = an[i]; break;
    case SL_FN_IS_NOT_NULL: for (int i = 0; i < n; i++) r[i] = (!an[i]); break;
    case SL_FN_IS_TRUE: for (int i = 0; i < n; i++) r[i] = (!an[i]) & av[i]; break;
    case SL_FN_IS_NOT_TRUE: for (int i = 0; i < n; i++) r[i] = an[i] | (!av[i]); break;
    case SL_FN_IS_FALSE: for (int i = 0; i < n; i++) r[i] = (!an[i]) & (!av[i]); break;
    case SL_FN_IS_NOT_FALSE: for (int i = 0; i < n; i++) r[i] = an[i] | av[i]; break;
    default: break;
    }
    return 0;
}

/* A boolean node of kernel run over kids (taken). */
static sl__node *sl__mk_bool(sl_eval_prog *p, sl__run_fn run, int op, int pos, sl__node *a,
                             sl__node *b)
{
    sl__node *nd = sl__node_new(p, SL__N_OP, sl_type_make(SL_TYPE_BOOLEAN), pos, b ? 2 : 1);
    nd->kids[0] = a;
    if (b)
        nd->kids[1] = b;
    nd->op = op;
    nd->run = run;
    if (run == sl__k_and_or)
        nd->mask = sl_calloc((size_t)p->cap, 1);
    /* an untyped NULL operand is a NULL BOOLEAN */
    for (int k = 0; k < nd->nkids; k++)
        if (nd->kids[k]->type.id == SL_TYPE_NULL && run != sl__k_is) {
            sl__node *x = nd->kids[k];
            nd->kids[k] = sl__mk_null(p, sl_type_make(SL_TYPE_BOOLEAN), x->pos);
            sl__node_free(x);
        }
    return sl__finish(p, nd);
}

/* Runs the kids in order; the result is the last kid's (BETWEEN: kid 0
** is the tested value, the last kid the comparisons over REFs to it). */
static int sl__k_seq(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    nd->nulls = nd->kids[nd->nkids - 1]->nulls;
    nd->v.raw = nd->kids[nd->nkids - 1]->v.raw;
    return 0;
}

/* ========================================================================
** CASE / IF / COALESCE / NULLIF: branches under masks.
*/

/* CASE: kids = w1, t1, ..., [else] (op = 1 when there is an ELSE). */
static int sl__k_case(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    int n = ev->n;
    uint8_t *restrict rem = nd->mask, *restrict take = nd->mask2;
    if (sel)
        memcpy(rem, sel, (size_t)n);
    else
        memset(rem, 1, (size_t)n);
    memset(nd->nulls, 1, (size_t)n);
    int npairs = nd->nkids / 2;
    for (int k = 0; k < npairs; k++) {
        if (!sl__any(rem, n))
            return 0;
        sl__node *w = nd->kids[2 * k], *t = nd->kids[2 * k + 1];
        if (w->run(w, ev, rem) < 0)
            return -1;
        uint8_t any = 0;
        const uint8_t *restrict wn = w->nulls, *restrict wv = w->v.b;
        for (int i = 0; i < n; i++) {
            take[i] = rem[i] & (!wn[i]) & wv[i];
            rem[i] &= (!take[i]);
            any |= take[i];
        }
        if (!any)
            continue;
        if (t->run(t, ev, take) < 0)
            return -1;
        sl__copy_masked(nd, t, take, n);
    }
    if (nd->op && sl__any(rem, n)) {
        sl__node *e = nd->kids[nd->nkids - 1];
        if (e->run(e, ev, rem) < 0)
            return -1;
        sl__copy_masked(nd, e, rem, n);
    }
    return 0;
}

/* COALESCE: each argument only for the rows still NULL. */
static int sl__k_coalesce(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    int n = ev->n;
    uint8_t *rem = nd->mask, *take = nd->mask2;
    for (int i = 0; i < n; i++) {
        rem[i] = sel ? sel[i] : 1;
        nd->nulls[i] = 1;
    }
    for (int k = 0; k < nd->nkids; k++) {
        if (!sl__any(rem, n))
            return 0;
        sl__node *a = nd->kids[k];
        if (a->run(a, ev, rem) < 0)
            return -1;
        for (int i = 0; i < n; i++) {
            take[i] = rem[i] & (!a->nulls[i]);
            rem[i] &= a->nulls[i];
        }
        sl__copy_masked(nd, a, take, n);
    }
    return 0;
}

/* NULLIF(a, b): kids = a, (a = b) over a REF to a. Values alias a's. */
static int sl__k_nullif(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const sl__node *a = nd->kids[0], *eq = nd->kids[1];
    nd->v.raw = a->v.raw;
    for (int i = 0; i < n; i++)
        nd->nulls[i] = a->nulls[i] | ((!eq->nulls[i]) & eq->v.b[i]);
    return 0;
}

/* ========================================================================
** The compiler.
*/

static sl__node *sl__compile(sl_eval_prog *p, const sl_bexpr *b, sl_error *err);

/* Compile args[0..n) of b into kids (NULL entries on failure: caller frees).
** The literals of an IN list get one-row buffers (their values go into the
** set; sl__mk_in grows the few it compares row by row). */
static int sl__compile_args(sl_eval_prog *p, const sl_bexpr *b, sl__node **kids, sl_error *err)
{
    bool in = b->fn->id == SL_FN_IN || b->fn->id == SL_FN_NOT_IN;
    for (int i = 0; i < b->nargs; i++) {
        int cap = p->cap;
        if (in && i > 0 && b->args[i]->kind == SL_BX_LITERAL)
            p->cap = 1;
        kids[i] = sl__compile(p, b->args[i], err);
        p->cap = cap;
        if (!kids[i])
            return -1;
    }
    return 0;
}

/* ========================================================================
** IN / NOT IN: the constants of the list go into a hash set built at
** compile time (one probe per row, whatever the length of the list); the
** other elements are compared one after the other in a flat loop, so no
** list length ever turns into depth.
**
** Keys are in the probe's representation: DOUBLE when the probe or a
** numeric constant is approximate (the probe is converted), else the
** probe's own (integers: exact integer values; DECIMAL: values at the
** probe's scale). A constant that no probe value can equal (2.5 for an
** INT probe, 1.005 for DECIMAL(10, 2), NaN) is left out; one that has no
** exact key (a DATE against a TIMESTAMP probe ...) is compared like a
** column. Three-valued: a NULL probe gives NULL; not found gives NULL when
** the list holds a NULL (or an element is NULL for the row), else FALSE.
*/

typedef struct sl__inset {
    sl_phys phys;   /* representation of probe and keys */
    size_t mask;    /* slots - 1 (a power of two minus one) */
    sl__val *keys;  /* slots */
    uint8_t *used;  /* slot in use */
    size_t n;       /* distinct keys */
    bool has_null;  /* the list holds a NULL constant */
} sl__inset;

static void sl__inset_free(void *aux)
{
    sl__inset *s = aux;
    if (!s)
        return;
    sl_free(s->keys);
    sl_free(s->used);
    sl_free(s);
}

static bool sl__val_eq(sl_phys ph, const sl__val *a, const sl__val *b)
{
    switch (ph) {
    case SL_PHYS_BOOL:
    case SL_PHYS_I64: return a->i == b->i;
    case SL_PHYS_F64: return a->f == b->f;
    case SL_PHYS_I128: return a->d == b->d;
    case SL_PHYS_STR:
        return a->s.len == b->s.len && (a->s.len == 0 || memcmp(a->s.p, b->s.p, a->s.len) == 0);
    }
    return false;
}

/* Slot of key x: the one holding it, or the free one where it belongs. */
static size_t sl__inset_slot(const sl__inset *s, const sl__val *x)
{
    size_t h = (size_t)sl__val_hash(s->phys, *x) & s->mask;
    while (s->used[h] && !sl__val_eq(s->phys, &s->keys[h], x))
        h = (h + 1) & s->mask;
    return h;
}

/* A set with room for up to n keys (load <= 1/2). */
static sl__inset *sl__inset_new(sl_phys ph, int n)
{
    sl__inset *s = sl_calloc(1, sizeof *s);
    size_t cap = 8;
    while (cap < (size_t)n * 2)
        cap *= 2;
    s->phys = ph;
    s->mask = cap - 1;
    s->keys = sl_calloc(cap, sizeof(sl__val));
    s->used = sl_calloc(cap, 1);
    return s;
}

static void sl__inset_add(sl__inset *s, const sl__val *x)
{
    size_t h = sl__inset_slot(s, x);
    if (s->used[h])
        return;
    s->used[h] = 1;
    s->keys[h] = *x;
    s->n++;
}

/* Key of constant c (not NULL) for probe x (representation ph): 1 with
** *key, 0 when no value of x can equal c, -1 when c has no exact key
** (compared like a column instead). Strings are copied into p->consts. */
static int sl__in_key(sl_eval_prog *p, const sl__node *x, const sl__node *c, sl_phys ph,
                      sl__val *key)
{
    memset(key, 0, sizeof *key);
    sl_type_id xt = x->type.id, ct = c->type.id;
    bool xint = sl_type_is_integer(xt), cint = sl_type_is_integer(ct);
    switch (ph) {
    case SL_PHYS_F64:
        if (c->phys != SL_PHYS_F64)
            return -1;
        if (isnan(c->v.f64[0]))
            return 0;
        key->f = sl__canon(c->v.f64[0]);
        return 1;
    case SL_PHYS_I64:
        if (xint && cint) {
            key->i = c->v.i64[0];
            return 1;
        }
        if (xint && ct == SL_TYPE_DECIMAL) {
            sl_i128 v = c->v.i128[0], d = sl_dec_pow10(c->type.scale);
            if (v % d != 0 || v / d > INT64_MAX || v / d < INT64_MIN)
                return 0;
            key->i = (int64_t)(v / d);
            return 1;
        }
        if (xt != ct || c->phys != SL_PHYS_I64)
            return -1;
        key->i = c->v.i64[0];
        return 1;
    case SL_PHYS_I128: {
        int sx = x->type.scale, sc;
        sl_i128 v;
        if (ct == SL_TYPE_DECIMAL) {
            v = c->v.i128[0];
            sc = c->type.scale;
        } else if (cint) {
            v = c->v.i64[0];
            sc = 0;
        } else {
            return -1;
        }
        if (sc > sx) {
            sl_i128 d = sl_dec_pow10(sc - sx);
            if (v % d != 0)
                return 0;
            v /= d;
        } else if (sc < sx && __builtin_mul_overflow(v, sl_dec_pow10(sx - sc), &v)) {
            return 0;
        }
        key->d = v;
        return 1;
    }
    case SL_PHYS_BOOL:
        if (c->phys != SL_PHYS_BOOL)
            return -1;
        key->i = c->v.b[0] ? 1 : 0;
        return 1;
    case SL_PHYS_STR:
        if (c->phys != SL_PHYS_STR || sl_type_is_binary(xt) != sl_type_is_binary(ct))
            return -1;
        key->s.len = c->v.str[0].len;
        key->s.p = key->s.len ? sl_arena_memdup(&p->consts, c->v.str[0].ptr, key->s.len) : "";
        return 1;
    }
    return -1;
}

/* Whether row i of probe x is in s. */
static bool sl__inset_has(const sl__inset *s, const sl__node *x, int i)
{
    sl__val v;
    memset(&v, 0, sizeof v);
    switch (s->phys) {
    case SL_PHYS_BOOL: v.i = x->v.b[i] ? 1 : 0; break;
    case SL_PHYS_I64: v.i = x->v.i64[i]; break;
    case SL_PHYS_F64:
        if (isnan(x->v.f64[i]))
            return false;
        v.f = sl__canon(x->v.f64[i]);
        break;
    case SL_PHYS_I128: v.d = x->v.i128[i]; break;
    case SL_PHYS_STR:
        v.s.p = x->v.str[i].ptr;
        v.s.len = x->v.str[i].len;
        break;
    }
    if (s->n == 0)
        return false;
    return s->used[sl__inset_slot(s, &v)] != 0;
}

/* IN / NOT IN: kids = probe, then the comparisons (probe REF = element) of
** the elements not in the set; aux = the set; op = SL_FN_IN / SL_FN_NOT_IN. */
static int sl__k_in(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    sl__node *x = nd->kids[0];
    if (x->run(x, ev, sel) < 0)
        return -1;
    const sl__inset *s = nd->aux;
    int n = ev->n;
    uint8_t *rv = nd->v.b, *rn = nd->nulls;
    for (int i = 0; i < n; i++) {
        rv[i] = 0;
        rn[i] = 1;
        if (!SL__LIVE(x, sel, i))
            continue;
        rv[i] = sl__inset_has(s, x, i);
        rn[i] = (uint8_t)(!rv[i] && s->has_null);
    }
    for (int k = 1; k < nd->nkids; k++) {
        /* the rows that are live and not found yet */
        uint8_t *m = nd->mask, any = 0;
        for (int i = 0; i < n; i++) {
            m[i] = (uint8_t)((!sel || sel[i]) & (!x->nulls[i]) & (!rv[i]));
            any |= m[i];
        }
        if (!any)
            break;
        sl__node *c = nd->kids[k];
        if (c->run(c, ev, m) < 0)
            return -1;
        for (int i = 0; i < n; i++) {
            if (!m[i])
                continue;
            if (c->nulls[i]) {
                rn[i] = 1;
            } else if (c->v.b[i]) {
                rv[i] = 1;
                rn[i] = 0;
            }
        }
    }
    if (nd->op == SL_FN_NOT_IN)
        for (int i = 0; i < n; i++)
            rv[i] = (uint8_t)!rv[i];
    return 0;
}

/* IN / NOT IN over compiled kids (probe first; takes every kid). */
static sl__node *sl__mk_in(sl_eval_prog *p, const sl_bexpr *b, sl__node **k, sl_error *err)
{
    int pos = b->pos, nel = b->nargs - 1;
    sl_type bt = sl_type_make(SL_TYPE_BOOLEAN);
    sl__node *x = k[0];
    k[0] = NULL;
    if (x->type.id == SL_TYPE_NULL) {
        sl__node_free(x);
        return sl__mk_null(p, bt, pos);
    }
    /* the probe's representation: DOUBLE when approximate numbers meet */
    bool approx = x->phys == SL_PHYS_F64;
    for (int i = 1; i <= nel && !approx; i++)
        approx = sl_type_is_numeric(x->type.id) && k[i]->kind == SL__N_CONST &&
                 (k[i]->type.id == SL_TYPE_FLOAT || k[i]->type.id == SL_TYPE_DOUBLE);
    if (approx && !(x = sl__coerce(p, x, sl_type_make(SL_TYPE_DOUBLE), err)))
        return NULL;
    sl__inset *set = sl__inset_new(x->phys, nel);
    sl__node *nd = sl__node_new(p, SL__N_OP, bt, pos, 1 + nel);
    nd->kids[0] = x;
    nd->nkids = 1; /* grows with the elements compared one by one */
    nd->op = b->fn->id;
    nd->run = sl__k_in;
    nd->aux = set;
    nd->aux_free = sl__inset_free;
    int cap = p->cap;
    for (int i = 1; i <= nel; i++) {
        sl__node *c = k[i];
        k[i] = NULL;
        if (c->kind == SL__N_CONST && c->own_nulls[0]) {
            set->has_null = true;
            sl__node_free(c);
            continue;
        }
        if (c->kind == SL__N_CONST && approx && sl_type_is_numeric(c->type.id)) {
            p->cap = 1; /* one row is all a key needs */
            c = sl__coerce(p, c, sl_type_make(SL_TYPE_DOUBLE), err);
            p->cap = cap;
            if (!c) {
                sl__node_free(nd);
                return NULL;
            }
        }
        if (c->kind == SL__N_CONST) {
            sl__val key;
            int r = sl__in_key(p, x, c, x->phys, &key);
            if (r >= 0) {
                if (r > 0)
                    sl__inset_add(set, &key);
                sl__node_free(c);
                continue;
            }
        }
        sl__grow(c, cap); /* may have one-row buffers (sl__compile_args) */
        sl__node *cmp = sl__mk_cmp(p, SL_FN_EQ, sl__mk_ref(p, x), c, c->pos, err);
        if (!cmp) {
            sl__node_free(nd);
            return NULL;
        }
        nd->kids[nd->nkids++] = cmp;
    }
    if (nd->nkids > 1)
        nd->mask = sl_calloc((size_t)p->cap, 1);
    return sl__finish(p, nd);
}

/* BETWEEN / NOT BETWEEN over compiled kids (x first). */
static sl__node *sl__mk_between(sl_eval_prog *p, const sl_bexpr *b, sl__node **k, sl_error *err)
{
    int id = b->fn->id, pos = b->pos;
    sl__node *x = k[0];
    bool neg = id == SL_FN_NOT_BETWEEN;
    /* x >= lo AND x <= hi;  NOT: x < lo OR x > hi */
    sl__node *c1 = sl__mk_cmp(p, neg ? SL_FN_LT : SL_FN_GE, sl__mk_ref(p, x), k[1], pos, err);
    k[1] = NULL;
    sl__node *c2 = sl__mk_cmp(p, neg ? SL_FN_GT : SL_FN_LE, sl__mk_ref(p, x), k[2], pos, err);
    k[2] = NULL;
    if (!c1 || !c2) {
        sl__node_free(c1);
        sl__node_free(c2);
        return NULL;
    }
    sl__node *comp = sl__mk_bool(p, sl__k_and_or, neg ? SL_FN_OR : SL_FN_AND, pos, c1, c2);
    sl__node *nd = sl__node_new(p, SL__N_OP, sl_type_make(SL_TYPE_BOOLEAN), pos, 2);
    nd->kids[0] = x;
    nd->kids[1] = comp;
    k[0] = NULL;
    nd->run = sl__k_seq;
    /* the result aliases comp's buffers: no folding (x may be a REF target) */
    for (int i = 0; i < 2; i++)
        nd->can_fail |= nd->kids[i]->can_fail;
    return nd;
}

/* A CALL node. */
static sl__node *sl__compile_call(sl_eval_prog *p, const sl_bexpr *b, sl_error *err)
{
    int id = b->fn->id, n = b->nargs;
    sl__node *stack[8];
    sl__node **k = n <= 8 ? stack : sl_malloc((size_t)n * sizeof(sl__node *));
    for (int i = 0; i < n; i++)
        k[i] = NULL;
    sl__node *nd = NULL;
    if (sl__compile_args(p, b, k, err) < 0)
        goto done;
    switch (id) {
    case SL_FN_ADD:
    case SL_FN_SUB:
    case SL_FN_MUL:
    case SL_FN_DIV:
    case SL_FN_MOD:
    case SL_FN_MOD_FN:
        nd = sl__mk_arith(p, id == SL_FN_MOD_FN ? SL_FN_MOD : id, k[0], k[1], b->type, b->pos, err);
        k[0] = k[1] = NULL;
        break;
    case SL_FN_NEG:
        nd = sl__mk_neg(p, k[0], b->type, b->pos, err);
        k[0] = NULL;
        break;
    case SL_FN_EQ:
    case SL_FN_NE:
    case SL_FN_LT:
    case SL_FN_LE:
    case SL_FN_GT:
    case SL_FN_GE:
    case SL_FN_IS_DISTINCT:
    case SL_FN_IS_NOT_DISTINCT:
        nd = sl__mk_cmp(p, id, k[0], k[1], b->pos, err);
        k[0] = k[1] = NULL;
        break;
    case SL_FN_AND:
    case SL_FN_OR:
        nd = sl__mk_bool(p, sl__k_and_or, id, b->pos, k[0], k[1]);
        k[0] = k[1] = NULL;
        break;
    case SL_FN_NOT:
        nd = sl__mk_bool(p, sl__k_not, id, b->pos, k[0], NULL);
        k[0] = NULL;
        break;
    case SL_FN_IS_NULL:
    case SL_FN_IS_NOT_NULL:
    case SL_FN_IS_TRUE:
    case SL_FN_IS_NOT_TRUE:
    case SL_FN_IS_FALSE:
    case SL_FN_IS_NOT_FALSE:
        nd = sl__mk_bool(p, sl__k_is, id, b->pos, k[0], NULL);
        k[0] = NULL;
        break;
    case SL_FN_BETWEEN:
    case SL_FN_NOT_BETWEEN:
        nd = sl__mk_between(p, b, k, err);
        break;
    case SL_FN_IN:
    case SL_FN_NOT_IN:
        nd = sl__mk_in(p, b, k, err);
        break;
    case SL_FN_COALESCE:
    case SL_FN_IFNULL:
    case SL_FN_IF: {
        int first = id == SL_FN_IF ? 1 : 0;
        nd = sl__node_new(p, SL__N_OP, b->type, b->pos, n);
        for (int i = 0; i < n; i++) {
            nd->kids[i] = i < first ? k[i] : sl__coerce(p, k[i], b->type, err);
            k[i] = NULL;
            if (!nd->kids[i]) {
                sl__node_free(nd);
                nd = NULL;
                goto done;
            }
        }
        if (id == SL_FN_IF && nd->kids[0]->type.id == SL_TYPE_NULL) {
            sl__node *x = nd->kids[0];
            nd->kids[0] = sl__mk_null(p, sl_type_make(SL_TYPE_BOOLEAN), x->pos);
            sl__node_free(x);
        }
        nd->run = id == SL_FN_IF ? sl__k_case : sl__k_coalesce;
        nd->op = 1; /* IF has an ELSE */
        nd->mask = sl_calloc((size_t)p->cap, 1);
        nd->mask2 = sl_calloc((size_t)p->cap, 1);
        nd = sl__finish(p, nd);
        break;
    }
    case SL_FN_NULLIF: {
        sl__node *a = sl__coerce(p, k[0], b->type, err);
        k[0] = NULL;
        if (!a)
            break;
        sl__node *eq = sl__mk_cmp(p, SL_FN_EQ, sl__mk_ref(p, a), k[1], b->pos, err);
        k[1] = NULL;
        if (!eq) {
            sl__node_free(a);
            break;
        }
        nd = sl__node_new(p, SL__N_OP, b->type, b->pos, 2);
        nd->kids[0] = a;
        nd->kids[1] = eq;
        nd->run = sl__k_nullif;
        for (int i = 0; i < 2; i++)
            nd->can_fail |= nd->kids[i]->can_fail;
        break;
    }
    case SL_FN_REGEX:
    case SL_FN_NOT_REGEX:
    case SL_FN_IREGEX:
    case SL_FN_NOT_IREGEX:
        nd = sl__node_new(p, SL__N_OP, b->type, b->pos, n);
        for (int i = 0; i < n; i++) {
            nd->kids[i] = k[i];
            k[i] = NULL;
        }
        nd->op = id;
        if (sl__compile_regex(nd, err) < 0) {
            sl__node_free(nd);
            nd = NULL;
            break;
        }
        nd = sl__finish(p, nd);
        break;
    case SL_FN_LIKE:
    case SL_FN_NOT_LIKE:
        nd = sl__node_new(p, SL__N_OP, b->type, b->pos, n);
        for (int i = 0; i < n; i++) {
            nd->kids[i] = k[i];
            k[i] = NULL;
        }
        nd->op = id;
        if (sl__compile_like(nd, err) < 0) {
            sl__node_free(nd);
            nd = NULL;
            break;
        }
        nd = sl__finish(p, nd);
        break;
    default:
        nd = sl__node_new(p, SL__N_OP, b->type, b->pos, n);
        for (int i = 0; i < n; i++) {
            nd->kids[i] = k[i];
            k[i] = NULL;
        }
        nd->op = id;
        sl__int_range(b->type.id, &nd->lo, &nd->hi);
        if (id == SL_FN_POWER || id == SL_FN_SQRT || sl__fn_double_args(id))
            for (int i = 0; i < n; i++)
                nd->kids[i] = sl__coerce(p, nd->kids[i], sl_type_make(SL_TYPE_DOUBLE), err);
        if (id == SL_FN_GREATEST || id == SL_FN_LEAST)
            for (int i = 0; i < n && nd->kids[i]; i++)
                nd->kids[i] = sl__coerce(p, nd->kids[i], b->type, err);
        if (sl__fn_time_field(id) && nd->kids[n - 1] &&
            nd->kids[n - 1]->type.id == SL_TYPE_TIMESTAMP_LTZ)
            nd->kids[n - 1] = sl__tz_shift(p, nd->kids[n - 1], true);
        for (int i = 0; i < nd->nkids; i++)
            if (!nd->kids[i]) {
                sl__node_free(nd);
                nd = NULL;
                goto done;
            }
        if (((id >= SL_FN_ARRAY_CTOR && id <= SL_FN_SPLIT) ||
             (id >= SL_FN_ARRAY_EXCEPT && id <= SL_FN_MAP_UNION)) &&
            sl__array_coerce_args(p, nd, err) < 0) {
            sl__node_free(nd);
            nd = NULL;
            break;
        }
        if (sl__compile_fn(nd, b, err) < 0) {
            sl__node_free(nd);
            nd = NULL;
            break;
        }
        nd = sl__finish(p, nd);
        break;
    }
done:
    for (int i = 0; i < n; i++)
        sl__node_free(k[i]);
    if (k != stack)
        sl_free(k);
    return nd;
}

static sl__node *sl__compile(sl_eval_prog *p, const sl_bexpr *b, sl_error *err)
{
    switch (b->kind) {
    case SL_BX_COLUMN: {
        if (b->col < 0 || b->col >= p->ncols) {
            sl_error_set(err, SL_ERR_INTERNAL, b->pos, "column %d is not in the input", b->col);
            return NULL;
        }
        sl_type t = p->in_types[b->col];
        if (sl_phys_of(t) != sl_phys_of(b->type)) {
            sl_error_set(err, SL_ERR_INTERNAL, b->pos, "column %d has a different type", b->col);
            return NULL;
        }
        sl__node *nd = sl__node_new(p, SL__N_COLUMN, b->type, b->pos, 0);
        nd->col = b->col;
        nd->run = sl__k_column;
        return nd;
    }
    case SL_BX_LITERAL:
        return sl__mk_literal(p, b, err);
    case SL_BX_CAST: {
        if (b->nargs != 1) {
            sl_error_set(err, SL_ERR_INTERNAL, b->pos, "CAST without an operand");
            return NULL;
        }
        sl__node *k = sl__compile(p, b->args[0], err);
        if (!k)
            return NULL;
        /* an exact same-type CAST is the operand (except truncations) */
        return sl__mk_cast(p, k, b->type, b->try_cast, false, b->pos, err);
    }
    case SL_BX_CASE: {
        sl__node *nd = sl__node_new(p, SL__N_OP, b->type, b->pos, b->nargs);
        int nres = b->nargs;
        for (int i = 0; i < nres; i++) {
            bool is_result = (i % 2 == 1) || (b->has_else && i == nres - 1);
            sl__node *k = sl__compile(p, b->args[i], err);
            if (k && is_result)
                k = sl__coerce(p, k, b->type, err);
            else if (k && k->type.id == SL_TYPE_NULL) {
                sl__node_free(k);
                k = sl__mk_null(p, sl_type_make(SL_TYPE_BOOLEAN), b->args[i]->pos);
            }
            if (!k) {
                sl__node_free(nd);
                return NULL;
            }
            nd->kids[i] = k;
        }
        nd->op = b->has_else ? 1 : 0;
        nd->run = sl__k_case;
        nd->mask = sl_calloc((size_t)p->cap, 1);
        nd->mask2 = sl_calloc((size_t)p->cap, 1);
        return sl__finish(p, nd);
    }
    case SL_BX_CALL:
        if (!b->fn) {
            sl_error_set(err, SL_ERR_INTERNAL, b->pos, "call without a function");
            return NULL;
        }
        if (b->fn->kind != SL_FUNC_SCALAR) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, b->pos,
                         "%s is not a scalar function and cannot be evaluated here", b->fn->name);
            return NULL;
        }
        return sl__compile_call(p, b, err);
    }
    sl_error_set(err, SL_ERR_INTERNAL, b->pos, "unknown expression kind %d", (int)b->kind);
    return NULL;
}

/* ========================================================================
** Public API.
*/

sl_eval_prog *sl_eval_compile(const sl_bexpr *b, int ncols, const sl_type *input_types,
                              sl_error *err)
{
    return sl_eval_compile_rows(b, ncols, input_types, SL_CHUNK_ROWS, err);
}

sl_eval_prog *sl__cast_prog(sl_type from, sl_type to, bool try_cast, int pos, sl_error *err)
{
    sl_eval_prog *p = sl_calloc(1, sizeof *p);
    p->cap = 16;
    p->ncols = 1;
    p->in_types = sl_malloc(sizeof(sl_type));
    p->in_types[0] = from;
    p->type = to;
    sl__node *col = sl__node_new(p, SL__N_COLUMN, from, pos, 0);
    col->col = 0;
    col->run = sl__k_column;
    p->root = from.id == SL_TYPE_NULL ? (sl__node_free(col), sl__mk_null(p, to, pos))
                                      : sl__mk_cast(p, col, to, try_cast, false, pos, err);
    if (!p->root) {
        sl_eval_free(p);
        return NULL;
    }
    return p;
}

sl_eval_prog *sl_eval_compile_rows(const sl_bexpr *b, int ncols, const sl_type *input_types,
                                   int rows, sl_error *err)
{
    sl_eval_prog *p = sl_calloc(1, sizeof *p);
    p->cap = rows > 0 ? rows : 1;
    p->ncols = ncols;
    p->in_types = sl_malloc((size_t)(ncols > 0 ? ncols : 1) * sizeof(sl_type));
    if (ncols > 0)
        memcpy(p->in_types, input_types, (size_t)ncols * sizeof(sl_type));
    p->type = b->type;
    p->root = sl__compile(p, b, err);
    if (!p->root) {
        if (!sl_error_isset(err))
            sl_error_set(err, SL_ERR_INTERNAL, b->pos, "expression could not be compiled");
        sl_eval_free(p);
        return NULL;
    }
    return p;
}

void sl_eval_free(sl_eval_prog *p)
{
    if (!p)
        return;
    sl__node_free(p->root);
    sl_free(p->in_types);
    sl_arena_free(&p->arena);
    sl_arena_free(&p->consts);
    sl_free(p);
}

sl_type sl_eval_type(const sl_eval_prog *p)
{
    return p->type;
}

/* Run the program over in; the root's result is valid afterwards. */
static int sl__eval_run(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env,
                        sl_eval_env *envbuf, sl_error *err)
{
    if (in->ncols < p->ncols)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "input chunk has %d columns, expected %d",
                            in->ncols, p->ncols);
    for (int c = 0; c < p->ncols; c++)
        if (in->cols[c].phys != sl_phys_of(p->in_types[c]))
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "input column %d has another representation", c);
    if (in->nrows > p->cap) {
        p->cap = in->nrows;
        sl__grow(p->root, p->cap);
    }
    if (!env) {
        envbuf->now_nanos = sl_now_nanos();
        env = envbuf;
    }
    sl_arena_reset(&p->arena);
    sl__eval ev = {in, in->nrows, env, err, &p->arena};
    if (in->nrows == 0)
        return 0;
    return p->root->run(p->root, &ev, NULL);
}

static int sl__eval_out(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, sl_chunk *out,
                        int col, bool view, sl_error *err);

int sl_eval_into(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, sl_chunk *out,
                 int col, sl_error *err)
{
    return sl__eval_out(p, in, env, out, col, false, err);
}

int sl_eval_into_view(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, sl_chunk *out,
                      int col, sl_error *err)
{
    return sl__eval_out(p, in, env, out, col, true, err);
}

static int sl__eval_out(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, sl_chunk *out,
                        int col, bool view, sl_error *err)
{
    sl_eval_env envbuf;
    if (col < 0 || col >= out->ncols || out->cap < in->nrows)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "output column %d cannot take the result", col);
    sl_vector *o = &out->cols[col];
    sl__node *r = p->root;
    if (o->phys != r->phys && r->type.id != SL_TYPE_NULL)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "output column %d has another representation",
                            col);
    if (sl__eval_run(p, in, env, &envbuf, err) < 0)
        return -1;
    int n = in->nrows;
    if (n == 0) /* nothing evaluated: the buffers may not exist yet */
        return 0;
    if (r->type.id == SL_TYPE_NULL || o->phys != r->phys) {
        memset(o->nulls, 1, (size_t)n);
        return 0;
    }
    memcpy(o->nulls, r->nulls, (size_t)n);
    if (o->phys != SL_PHYS_STR) {
        memcpy(o->v.raw, r->v.raw, (size_t)n * sl_phys_size(o->phys));
        return 0;
    }
    if (view) { /* the strings stay where they are */
        memcpy(o->v.str, r->v.str, (size_t)n * sizeof(sl_str));
        return 0;
    }
    /* strings: one arena block for the whole column */
    size_t total = 0;
    for (int i = 0; i < n; i++)
        if (!r->nulls[i])
            total += r->v.str[i].len;
    char *dst = total ? sl_arena_alloc(&out->arena, total) : NULL;
    for (int i = 0; i < n; i++) {
        if (r->nulls[i])
            continue;
        uint32_t len = r->v.str[i].len;
        o->v.str[i].ptr = "";
        o->v.str[i].len = len;
        if (len) {
            memcpy(dst, r->v.str[i].ptr, len);
            o->v.str[i].ptr = dst;
            dst += len;
        }
    }
    return 0;
}

int sl_eval_filter(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, uint8_t *sel,
                   sl_error *err)
{
    sl_eval_env envbuf;
    if (sl__eval_run(p, in, env, &envbuf, err) < 0)
        return -1;
    int n = in->nrows, count = 0;
    const sl__node *r = p->root;
    if (n == 0)
        return 0;
    if (r->phys != SL_PHYS_BOOL || r->type.id == SL_TYPE_NULL) {
        memset(sel, 0, (size_t)n);
        return 0;
    }
    const uint8_t *restrict nulls = r->nulls, *restrict v = r->v.b;
    uint8_t *restrict out = sel;
    for (int i = 0; i < n; i++) {
        out[i] = (uint8_t)((!nulls[i]) & v[i]);
        count += out[i];
    }
    return count;
}
