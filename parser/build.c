/*
** build.c — AST builders called by the grammar (sql.y), one per action.
**
** Every builder takes ownership of its pointer arguments, accepts NULL
** children (what an earlier error left), and reports problems into the parse
** context (first error wins). Nothing here reads tokens: a token is a slice
** {z, n, pos} of the text.
**
** Nesting is bounded: each node's depth is kept in a small pointer->depth map
** in the parse context; a node deeper than SL__MAX_DEPTH is an error and is
** freed at once, so no tree deeper than that ever exists (the AST routines of
** ast.c/print.c and the planner recurse).
**
** Main routines: the public sl_expr_* builders, and the sl__* builders of
** parse_int.h: expressions, types, queries, FROM items (including window
** table functions with named arguments), statements.
*/
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "parse_int.h"
#include "sql.h"

/* ------------------------------------------------------------------------
** Depth map.
*/
static size_t sl__dslot(const sl__parse *p, const void *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (p->dcap - 1);
}

/* Depth recorded for node k, or 0 (unknown / NULL). */
static int sl__dget(const sl__parse *p, const void *k)
{
    if (!k || !p->dcap)
        return 0;
    for (size_t i = sl__dslot(p, k);; i = (i + 1) & (p->dcap - 1)) {
        if (p->dkeys[i] == k)
            return p->dvals[i];
        if (!p->dkeys[i])
            return 0;
    }
}

static void sl__dput(sl__parse *p, const void *k, int d)
{
    if (p->dn * 2 >= p->dcap) {
        size_t ocap = p->dcap;
        const void **okeys = p->dkeys;
        int *ovals = p->dvals;
        p->dcap = ocap ? ocap * 2 : 256;
        p->dkeys = sl_calloc(p->dcap, sizeof(*p->dkeys));
        p->dvals = sl_calloc(p->dcap, sizeof(*p->dvals));
        p->dn = 0;
        for (size_t i = 0; i < ocap; i++)
            if (okeys[i])
                sl__dput(p, okeys[i], ovals[i]);
        sl_free(okeys);
        sl_free(ovals);
    }
    size_t i = sl__dslot(p, k);
    while (p->dkeys[i] && p->dkeys[i] != k)
        i = (i + 1) & (p->dcap - 1);
    if (!p->dkeys[i])
        p->dn++;
    p->dkeys[i] = k;
    p->dvals[i] = d;
}

void sl__depth_free(sl__parse *p)
{
    sl_free(p->dkeys);
    sl_free(p->dvals);
    p->dkeys = NULL;
    p->dvals = NULL;
    p->dcap = p->dn = 0;
}

static int sl__max(int a, int b) { return a > b ? a : b; }

/* Largest recorded depth among the sl_expr* of a list. */
static int sl__dlist(const sl__parse *p, const sl_list *l)
{
    int d = 0;
    for (int i = 0; i < sl_list_len(l); i++)
        d = sl__max(d, sl__dget(p, sl_list_get(l, i)));
    return d;
}

static int sl__dorder(const sl__parse *p, const sl_list *l)
{
    int d = 0;
    for (int i = 0; i < sl_list_len(l); i++) {
        const sl_order_item *o = sl_list_get(l, i);
        d = sl__max(d, sl__dget(p, o->expr));
    }
    return d;
}

/* Record the depth of a new node (1 + deepest child). Over the limit: report,
** free the node with free_fn and return NULL. */
static void *sl__deep(sl__parse *p, void *node, int child_depth, int pos, void (*free_fn)(void *))
{
    if (!node)
        return NULL;
    int d = child_depth + 1;
    if (d > SL__MAX_DEPTH) {
        sl_error_set(p->err, SL_ERR_TOO_COMPLEX, pos, "statement is nested too deeply");
        sl_error_detail(p->err, "Expressions and queries may nest at most %d levels.",
                        SL__MAX_DEPTH);
        free_fn(node);
        return NULL;
    }
    sl__dput(p, node, d);
    return node;
}

static void sl__query_free_v(void *q) { sl_query_free(q); }
static void sl__from_free_v(void *f) { sl_from_free(f); }

static sl_expr *sl__edeep(sl__parse *p, sl_expr *e, int child_depth)
{
    return sl__deep(p, e, child_depth, e ? e->pos : -1, sl_expr_free_v);
}

/* ------------------------------------------------------------------------
** Adapters and small helpers.
*/
void sl__order_item_free_v(void *x) { sl_order_item_free(x); }
void sl__select_item_free_v(void *x) { sl_select_item_free(x); }
void sl__ident_free_v(void *x) { sl_ident_free(x); }
void sl__column_def_free_v(void *x) { sl_column_def_free(x); }
void sl__expr_list_free_v(void *x) { sl_list_free(x, sl_expr_free_v); }

void sl__warg_free(sl__warg *a)
{
    if (!a)
        return;
    sl_free(a->name);
    sl_free(a->ident);
    sl_expr_free(a->expr);
    sl_list_free(a->partition, sl__ident_free_v);
    sl_free(a);
}

void sl__warg_free_v(void *x) { sl__warg_free(x); }

void sl__telem_free(sl__telem *e)
{
    if (!e)
        return;
    sl_column_def_free(e->col);
    sl_list_free(e->pk, sl__ident_free_v);
    sl_ident_free(e->wm_column);
    sl_expr_free(e->wm_expr);
    sl_free(e);
}

void sl__tail_free(sl__tail t)
{
    sl_list_free(t.order_by, sl__order_item_free_v);
    sl_expr_free(t.limit);
    sl_expr_free(t.offset);
}

/* Text of a quoted token ('..' or `..`) without the quotes, doubled quotes
** undone. A NUL byte inside is an error: names and values are C strings. */
static char *sl__unquote(sl__parse *p, sl__tok t)
{
    if (t.n < 2)
        return sl_strdup("");
    const char *nul = memchr(t.z, 0, (size_t)t.n);
    if (nul)
        sl_error_set(p->err, SL_ERR_SYNTAX, t.pos + (int)(nul - t.z),
                     "quoted text must not contain a NUL byte");
    char q = t.z[0];
    char *s = sl_malloc((size_t)t.n);
    size_t k = 0;
    for (int i = 1; i < t.n - 1; i++) {
        s[k++] = t.z[i];
        if (t.z[i] == q)
            i++; /* the second of a doubled quote */
    }
    s[k] = 0;
    return s;
}

/* An identifier: as written, or without its back quotes (or PostgreSQL's
** double quotes: case is kept either way). NULL for an absent token. */
static char *sl__name(sl__parse *p, sl__tok t)
{
    if (!t.z)
        return NULL;
    if (t.n > 0 && (t.z[0] == '`' || t.z[0] == '"')) {
        if (t.n <= 2)
            sl_error_set(p->err, SL_ERR_SYNTAX, t.pos, "zero-length delimited identifier");
        return sl__unquote(p, t);
    }
    return sl_strndup(t.z, (size_t)t.n);
}

sl_list *sl__list(sl__parse *p, sl_list *l, void *item)
{
    if (!l)
        l = sl_list_new();
    if (item)
        sl_list_push(l, item);
    return l;
}

static sl_ident *sl__ident(sl__parse *p, sl__tok t)
{
    sl_ident *id = sl_calloc(1, sizeof(*id));
    id->name = sl__name(p, t);
    id->pos = t.pos;
    return id;
}

sl_list *sl__idents(sl__parse *p, sl_list *l, sl__tok name)
{
    return sl__list(p, l, sl__ident(p, name));
}

/* ------------------------------------------------------------------------
** Public expression builders (no parse context, no depth bookkeeping).
*/
sl_expr *sl_expr_new(sl_expr_kind kind, int pos)
{
    sl_expr *e = sl_calloc(1, sizeof(*e));
    e->kind = kind;
    e->pos = pos;
    e->op_pos = -1;
    e->unit_precision = -1;
    return e;
}

sl_expr *sl_expr_literal(sl_expr_kind kind, const char *text, size_t len, int pos)
{
    sl_expr *e = sl_expr_new(kind, pos);
    e->text = text ? sl_strndup(text, len) : NULL;
    return e;
}

sl_expr *sl_expr_unary(int op, sl_expr *operand, int pos)
{
    sl_expr *e = sl_expr_new(SL_EXPR_UNARY, pos);
    e->op = op;
    e->op_pos = pos;
    e->left = operand;
    return e;
}

sl_expr *sl_expr_binary(int op, sl_expr *left, sl_expr *right, int op_pos)
{
    sl_expr *e = sl_expr_new(SL_EXPR_BINARY, left ? left->pos : op_pos);
    e->op = op;
    e->op_pos = op_pos;
    e->left = left;
    e->right = right;
    return e;
}

sl_expr *sl_expr_column(char *qualifier, char *name, int pos)
{
    sl_expr *e = sl_expr_new(SL_EXPR_COLUMN, pos);
    e->qualifier = qualifier;
    e->text = name;
    return e;
}

sl_expr *sl_expr_func(char *name, sl_list *args, bool distinct, int pos)
{
    sl_expr *e = sl_expr_new(SL_EXPR_FUNC, pos);
    e->text = name;
    e->args = args;
    e->distinct = distinct;
    return e;
}

/* ------------------------------------------------------------------------
** Expressions.
*/
sl_expr *sl__lit(sl__parse *p, sl_expr_kind kind, sl__tok t)
{
    sl_expr *e = sl_expr_literal(kind, kind == SL_EXPR_NULL ? NULL : t.z, (size_t)t.n, t.pos);
    return sl__edeep(p, e, 0);
}

/* PostgreSQL's E'...': backslash escapes \n \t \r \b \f \\ \' and \xHH, \ooo
** (a NUL byte is an error, as for any quoted text). */
static char *sl__unescape(sl__parse *p, sl__tok t)
{
    char *s = sl_malloc((size_t)t.n + 1);
    size_t k = 0;
    for (int i = 2; i < t.n - 1; i++) {
        char c = t.z[i];
        if (c == '\'' && i + 1 < t.n - 1 && t.z[i + 1] == '\'') {
            s[k++] = c;
            i++;
            continue;
        }
        if (c != '\\' || i + 1 >= t.n - 1) {
            s[k++] = c;
            continue;
        }
        c = t.z[++i];
        int v = -1;
        switch (c) {
        case 'n': v = '\n'; break;
        case 't': v = '\t'; break;
        case 'r': v = '\r'; break;
        case 'b': v = '\b'; break;
        case 'f': v = '\f'; break;
        case 'x': {
            int n = 0;
            v = 0;
            while (n < 2 && i + 1 < t.n - 1 && strchr("0123456789abcdefABCDEF", t.z[i + 1]) &&
                   t.z[i + 1]) {
                char h = t.z[++i];
                v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                n++;
            }
            if (n == 0)
                v = 'x';
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                v = c - '0';
                for (int n = 1; n < 3 && i + 1 < t.n - 1 && t.z[i + 1] >= '0' && t.z[i + 1] <= '7'; n++)
                    v = v * 8 + (t.z[++i] - '0');
                v &= 0xff;
            } else {
                v = (unsigned char)c;
            }
        }
        if (v == 0)
            sl_error_set(p->err, SL_ERR_SYNTAX, t.pos + i, "quoted text must not contain a NUL byte");
        s[k++] = (char)v;
    }
    s[k] = 0;
    return s;
}

sl_expr *sl__string(sl__parse *p, sl__tok t)
{
    sl_expr *e = sl_expr_new(SL_EXPR_STRING, t.pos);
    e->text = t.n > 0 && (t.z[0] == 'E' || t.z[0] == 'e') ? sl__unescape(p, t) : sl__unquote(p, t);
    return sl__edeep(p, e, 0);
}

/* Flink's binary string X'0A1B': hex digits, an even count of them, nothing
** else (no spaces). A bad digit is 22P02 at that character, as PostgreSQL
** says it; an odd count is a syntax error at the literal, as Flink's. */
sl_expr *sl__xstring(sl__parse *p, sl__tok t)
{
    sl_expr *e = sl_expr_new(SL_EXPR_XSTRING, t.pos);
    char *s = sl_malloc((size_t)t.n);
    size_t k = 0;
    bool first = !sl_error_isset(p->err); /* the hint goes with our error only */
    for (int i = 2; i < t.n - 1; i++) {
        unsigned char c = (unsigned char)t.z[i];
        if (!isxdigit(c)) {
            int w = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2; /* a UTF-8 character */
            if (i + w > t.n - 1)
                w = t.n - 1 - i;
            sl_error_set(p->err, SL_ERR_INVALID_TEXT, t.pos + i,
                         "\"%.*s\" is not a valid hexadecimal digit", w, t.z + i);
            break;
        }
        s[k++] = (char)tolower(c);
    }
    s[k] = 0;
    if (k % 2)
        sl_error_set(p->err, SL_ERR_SYNTAX, t.pos,
                     "binary literal must contain an even number of hex digits");
    if (first && sl_error_isset(p->err))
        sl_error_hint(p->err, "A binary literal holds two hex digits per byte: X'0A1B'.");
    e->text = s;
    return sl__edeep(p, e, 0);
}

sl_expr *sl__subquery(sl__parse *p, sl__tok lp, sl_query *q)
{
    sl_expr *e = sl_expr_new(SL_EXPR_SUBQUERY, lp.pos);
    e->query = q;
    return sl__edeep(p, e, sl__dget(p, q));
}

sl_expr *sl__field(sl__parse *p, sl__tok lp, sl_expr *x, sl__tok name)
{
    sl_expr *e = sl_expr_new(SL_EXPR_FIELD, lp.pos);
    e->left = x;
    e->text = sl__name(p, name);
    e->op_pos = name.pos;
    return sl__edeep(p, e, sl__dget(p, x));
}

sl_expr *sl__dotfield(sl__parse *p, sl_expr *x, sl__tok name)
{
    sl__tok at = name;
    at.pos = x ? x->pos : name.pos;
    sl_expr *e = sl__field(p, at, x, name);
    e->ival = 1;
    return e;
}

/* Flink's POSITION(a IN b), EXTRACT(unit FROM x) and FLOOR / CEIL(t TO
** unit): the calls POSITION(a, b), EXTRACT('unit', x) and FLOOR(t, 'unit')
** (the binder checks the unit). Another name, or
** a unit that is not a bare name, is a syntax error at the keyword. */
sl_expr *sl__func_kw(sl__parse *p, sl__tok name, sl_expr *x, sl_expr *y, sl__tok kw)
{
    bool in = kw.n == 2 && sl_strncasecmp(kw.z, "in", 2) == 0;
    bool to = kw.n == 2 && !in;
    bool ok;
    if (!in && !to && name.n == 4 && sl_strncasecmp(name.z, "trim", 4) == 0)
        return sl__trim(p, name, SL__NOTOK, x, y); /* TRIM(chars FROM s) */
    if (to) /* FLOOR / CEIL / CEILING (t TO unit): y is the unit's name */
        ok = (name.n == 5 && sl_strncasecmp(name.z, "floor", 5) == 0) ||
             (name.n == 4 && sl_strncasecmp(name.z, "ceil", 4) == 0) ||
             (name.n == 7 && sl_strncasecmp(name.z, "ceiling", 7) == 0);
    else {
        const char *want = in ? "position" : "extract";
        ok = name.n == (int)strlen(want) && sl_strncasecmp(name.z, want, (size_t)name.n) == 0 &&
             (in || (x && x->kind == SL_EXPR_COLUMN && !x->qualifier));
    }
    if (!ok) {
        sl_expr_free(x);
        sl_expr_free(y);
        sl__syntax_error(p, in ? TK_IN : to ? TK_TO : TK_FROM, kw);
        return NULL;
    }
    if (to && y && y->kind == SL_EXPR_COLUMN) { /* the unit's name as a string */
        sl_expr *u = sl_expr_literal(SL_EXPR_STRING, y->text, strlen(y->text), y->pos);
        sl_expr_free(y);
        y = u;
    }
    if (!in && !to) {
        sl_expr *u = sl_expr_literal(SL_EXPR_STRING, x->text, strlen(x->text), x->pos);
        sl_expr_free(x);
        x = u;
    }
    return sl__func(p, name, sl__list(p, sl__list(p, NULL, x), y), false, false, NULL);
}

/* TRIM([BOTH | LEADING | TRAILING] [chars] FROM s) (side SL__NOTOK: BOTH):
** the call TRIM / LTRIM / RTRIM(s[, chars]); another name is a syntax error
** at the side keyword. */
sl_expr *sl__trim(sl__parse *p, sl__tok name, sl__tok side, sl_expr *chars, sl_expr *s)
{
    if (name.n != 4 || sl_strncasecmp(name.z, "trim", 4) != 0) {
        sl_expr_free(chars);
        sl_expr_free(s);
        sl__syntax_error(p, side.z ? TK_BOTH : TK_FROM, side.z ? side : name);
        return NULL;
    }
    const char *fn = "TRIM";
    if (side.z && sl_strncasecmp(side.z, "leading", 7) == 0)
        fn = "LTRIM";
    else if (side.z && sl_strncasecmp(side.z, "trailing", 8) == 0)
        fn = "RTRIM";
    sl__tok t = name;
    t.z = fn;
    t.n = (int)strlen(fn);
    sl_list *args = sl__list(p, NULL, s);
    if (chars)
        args = sl__list(p, args, chars);
    return sl__func(p, t, args, false, false, NULL);
}

/* ARRAY(SELECT ...): a subquery with ival 1 (its rows as an array). */
sl_expr *sl__array_subquery(sl__parse *p, sl__tok name, sl_query *q)
{
    if (name.n != 5 || sl_strncasecmp(name.z, "array", 5) != 0) {
        sl_query_free(q);
        sl__syntax_error(p, TK_SELECT, name);
        return NULL;
    }
    sl_expr *e = sl__subquery(p, name, q);
    e->ival = 1;
    return e;
}

sl_expr *sl__bool(sl__parse *p, bool v, sl__tok t)
{
    sl_expr *e = sl_expr_new(SL_EXPR_BOOL, t.pos);
    e->ival = v;
    return sl__edeep(p, e, 0);
}

sl_expr *sl__typed(sl__parse *p, sl_type_id id, sl__tok kw, sl__tok str)
{
    sl_expr *e = sl_expr_new(SL_EXPR_TYPED, kw.pos);
    e->text = sl__unquote(p, str);
    e->type.id = id; /* precision 0: the literal's text decides */
    return sl__edeep(p, e, 0);
}

sl__iq sl__iqual(sl__parse *p, int unit, int unit_to, sl__prec prec)
{
    return (sl__iq){unit, unit_to, prec.p};
}

/* Valid qualifiers: a single unit; YEAR TO MONTH; DAY|HOUR|MINUTE TO a later
** unit up to SECOND. */
static bool sl__iq_valid(sl__iq q)
{
    if (q.unit_to == SL_UNIT_NONE)
        return true;
    if (q.unit == SL_UNIT_YEAR)
        return q.unit_to == SL_UNIT_MONTH;
    return q.unit >= SL_UNIT_DAY && q.unit_to > q.unit && q.unit_to <= SL_UNIT_SECOND;
}

sl_expr *sl__interval(sl__parse *p, sl__tok kw, sl__tok str, sl__iq q)
{
    if (!sl__iq_valid(q)) {
        sl_error_set(p->err, SL_ERR_SYNTAX, kw.pos, "invalid interval qualifier %s TO %s",
                     sl_unit_name(q.unit), sl_unit_name(q.unit_to));
        return NULL;
    }
    if (q.precision >= 0 && q.unit != SL_UNIT_SECOND && q.unit_to != SL_UNIT_SECOND) {
        sl_error_set(p->err, SL_ERR_SYNTAX, kw.pos,
                     "interval precision is only allowed after SECOND");
        return NULL;
    }
    sl_expr *e = sl_expr_new(SL_EXPR_INTERVAL, kw.pos);
    e->text = sl__unquote(p, str);
    e->unit = q.unit;
    e->unit_to = q.unit_to;
    e->unit_precision = q.precision;
    return sl__edeep(p, e, 0);
}

sl_expr *sl__column(sl__parse *p, sl__tok qual, sl__tok name)
{
    sl_expr *e = sl_expr_column(sl__name(p, qual), sl__name(p, name), qual.z ? qual.pos : name.pos);
    return sl__edeep(p, e, 0);
}

sl_expr *sl__star(sl__parse *p, sl__tok qual, sl__tok star)
{
    sl_expr *e = sl_expr_new(SL_EXPR_STAR, qual.z ? qual.pos : star.pos);
    e->qualifier = sl__name(p, qual);
    return sl__edeep(p, e, 0);
}

sl_expr *sl__unary(sl__parse *p, int op, sl_expr *x, sl__tok optok)
{
    return sl__edeep(p, sl_expr_unary(op, x, optok.pos), sl__dget(p, x));
}

sl_expr *sl__binary(sl__parse *p, int op, sl_expr *l, sl_expr *r, sl__tok optok)
{
    sl_expr *e = sl_expr_binary(op, l, r, optok.pos);
    return sl__edeep(p, e, sl__max(sl__dget(p, l), sl__dget(p, r)));
}

/* A postfix-style node: left operand x, operator at optok. */
static sl_expr *sl__postfix(sl_expr_kind kind, sl_expr *x, bool neg, sl__tok optok)
{
    sl_expr *e = sl_expr_new(kind, x ? x->pos : optok.pos);
    e->op_pos = optok.pos;
    e->negated = neg;
    e->left = x;
    return e;
}

sl_expr *sl__is(sl__parse *p, sl_expr *x, bool neg, int what, sl__tok optok)
{
    sl_expr *e = sl__postfix(SL_EXPR_IS, x, neg, optok);
    e->op = what;
    return sl__edeep(p, e, sl__dget(p, x));
}

sl_expr *sl__between(sl__parse *p, sl_expr *x, bool neg, sl_expr *lo, sl_expr *hi, sl__tok optok)
{
    sl_expr *e = sl__postfix(SL_EXPR_BETWEEN, x, neg, optok);
    e->args = sl_list_new();
    if (lo && hi) {
        sl_list_push(e->args, lo);
        sl_list_push(e->args, hi);
    } else { /* only after an error */
        sl_expr_free(lo);
        sl_expr_free(hi);
    }
    return sl__edeep(p, e, sl__max(sl__dget(p, x), sl__dlist(p, e->args)));
}

sl_expr *sl__in(sl__parse *p, sl_expr *x, bool neg, sl_list *list, sl__tok optok)
{
    sl_expr *e = sl__postfix(SL_EXPR_IN, x, neg, optok);
    e->args = list;
    return sl__edeep(p, e, sl__max(sl__dget(p, x), sl__dlist(p, list)));
}

sl_expr *sl__in_query(sl__parse *p, sl_expr *x, bool neg, sl_query *q, sl__tok optok)
{
    sl_expr *e = sl__postfix(SL_EXPR_IN, x, neg, optok);
    e->query = q;
    return sl__edeep(p, e, sl__max(sl__dget(p, x), sl__dget(p, q)));
}

sl_expr *sl__exists(sl__parse *p, sl__tok kw, sl_query *q)
{
    sl_expr *e = sl_expr_new(SL_EXPR_EXISTS, kw.pos);
    e->query = q;
    return sl__edeep(p, e, sl__dget(p, q));
}

sl_expr *sl__like(sl__parse *p, sl_expr *x, bool neg, sl_expr *pat, sl_expr *esc, sl__tok optok)
{
    sl_expr *e = sl__postfix(SL_EXPR_LIKE, x, neg, optok);
    e->right = pat;
    if (esc)
        e->args = sl__list(p, NULL, esc);
    int d = sl__max(sl__dget(p, x), sl__max(sl__dget(p, pat), sl__dget(p, esc)));
    return sl__edeep(p, e, d);
}

sl_list *sl__when(sl__parse *p, sl_list *l, sl_expr *when, sl_expr *then)
{
    if (!l)
        l = sl_list_new();
    if (when && then) {
        sl_list_push(l, when);
        sl_list_push(l, then);
    } else { /* only after an error: keep the list in pairs */
        sl_expr_free(when);
        sl_expr_free(then);
    }
    return l;
}

sl_expr *sl__case(sl__parse *p, sl__tok kw, sl_expr *operand, sl_list *whens, sl_expr *els)
{
    sl_expr *e = sl_expr_new(SL_EXPR_CASE, kw.pos);
    e->op_pos = kw.pos;
    e->left = operand;
    e->args = whens;
    e->right = els;
    int d = sl__max(sl__dlist(p, whens), sl__max(sl__dget(p, operand), sl__dget(p, els)));
    return sl__edeep(p, e, d);
}

sl_expr *sl__pgcast(sl__parse *p, sl__tok op, sl_expr *x, sl__ty ty)
{
    if (ty.reg == 0)
        return sl__cast(p, op, x, ty, false);
    /* an oid, or a relation's name made one: the function PG_REGCLASS */
    sl__tok name = op;
    name.z = ty.reg == 1 ? "PG_REGCLASS" : "PG_REGOID";
    name.n = (int)strlen(name.z);
    sl_expr *e = sl__func(p, name, sl__list(p, NULL, x), false, false, NULL);
    return e;
}

/* expr::type[]: an array is kept as its text, so the cast is to STRING (the
** elements are not converted). */
sl_expr *sl__pgcast_array(sl__parse *p, sl__tok op, sl_expr *x)
{
    sl__ty ty = {0};
    ty.t = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    return sl__cast(p, op, x, ty, false);
}

/* a[i]: the function PG_SUBSCRIPT (element i from 1, NULL out of range). */
sl_expr *sl__subscript(sl__parse *p, sl__tok op, sl_expr *a, sl_expr *i)
{
    sl__tok name = op;
    name.z = "PG_SUBSCRIPT";
    name.n = (int)strlen(name.z);
    return sl__func(p, name, sl__list(p, sl__list(p, NULL, a), i), false, false, NULL);
}

sl_expr *sl__cast(sl__parse *p, sl__tok kw, sl_expr *x, sl__ty ty, bool try_cast)
{
    sl_expr *e = sl_expr_new(SL_EXPR_CAST, kw.pos);
    e->op_pos = kw.pos;
    e->left = x;
    e->type = ty.t;
    e->ival = try_cast;
    return sl__edeep(p, e, sl__dget(p, x));
}

static int sl__dwindow(const sl__parse *p, const sl_window_spec *w)
{
    return w ? sl__max(sl__max(sl__dlist(p, w->partition_by), sl__dorder(p, w->order_by)),
                       sl__dget(p, w->preceding))
             : 0;
}

sl_expr *sl__func(sl__parse *p, sl__tok name, sl_list *args, bool distinct, bool star,
                  sl_window_spec *over)
{
    /* TIMESTAMPADD(unit, ...) / TIMESTAMPDIFF(unit, ...): the unit's bare name as a string */
    if (name.n == 12 || name.n == 13) {
        bool add = name.n == 12 && sl_strncasecmp(name.z, "timestampadd", 12) == 0;
        bool diff = name.n == 13 && sl_strncasecmp(name.z, "timestampdiff", 13) == 0;
        sl_expr *u = args && args->n > 0 ? args->items[0] : NULL;
        if ((add || diff) && u && u->kind == SL_EXPR_COLUMN && !u->qualifier) {
            args->items[0] = sl_expr_literal(SL_EXPR_STRING, u->text, strlen(u->text), u->pos);
            sl_expr_free(u);
        }
    }
    /* POSITION(a IN (b)) parses as a call with the IN list a IN (b): POSITION(a, b) */
    if (name.n == 8 && sl_strncasecmp(name.z, "position", 8) == 0 && args && args->n == 1) {
        sl_expr *in = args->items[0];
        if (in && in->kind == SL_EXPR_IN && !in->negated && !in->query && in->args &&
            in->args->n == 1 && !over && !distinct) {
            args->items[0] = in->left;
            sl_list_push(args, in->args->items[0]);
            in->left = NULL;
            in->args->n = 0;
            sl_expr_free(in);
        }
    }
    sl_expr *e = sl_expr_func(sl__name(p, name), args, distinct, name.pos);
    e->ival = star;
    e->over = over;
    return sl__edeep(p, e, sl__max(sl__dlist(p, args), sl__dwindow(p, over)));
}

sl_expr *sl__func_filter(sl__parse *p, sl_expr *e, sl_expr *cond)
{
    if (!cond || !e) {
        sl_expr_free(cond);
        return e;
    }
    e->filter = cond;
    return sl__edeep(p, e, sl__max(sl__dget(p, e) - 1, sl__dget(p, cond)));
}

sl_expr *sl__substring(sl__parse *p, sl__tok name, sl_expr *s, sl_expr *from, sl_expr *len)
{
    sl_list *args = sl__list(p, sl__list(p, sl__list(p, NULL, s), from), len);
    return sl__func(p, name, args, false, false, NULL);
}

sl_window_spec *sl__window_spec(sl__parse *p, sl_list *partition, sl_list *order,
                                sl_window_spec *frame)
{
    sl_window_spec *w = frame ? frame : sl_calloc(1, sizeof(*w));
    if (!frame)
        w->frame_pos = -1;
    w->partition_by = partition;
    w->order_by = order;
    return w;
}

sl_window_spec *sl__window_ref(sl__parse *p, sl__tok name)
{
    sl_window_spec *w = sl_calloc(1, sizeof(*w));
    w->frame_pos = -1;
    w->name = sl__name(p, name);
    w->name_pos = name.pos;
    return w;
}

sl_list *sl__window_def(sl__parse *p, sl_list *defs, sl__tok name, sl_window_spec *w)
{
    w->name = sl__name(p, name);
    w->name_pos = name.pos;
    for (int i = 0; i < sl_list_len(defs); i++) {
        const sl_window_spec *d = sl_list_get(defs, i);
        if (sl_strcasecmp(d->name, w->name) == 0 && !sl_error_isset(p->err))
            sl_error_set(p->err, SL_ERR_WINDOWING, name.pos, "window \"%s\" is already defined",
                         w->name);
    }
    if (!defs)
        defs = sl_list_new();
    sl_list_push(defs, w);
    return defs;
}

/* Replace each OVER name in e (not inside subqueries: their own scope) by a
** copy of the window of defs it names. */
static void sl__resolve_windows(sl__parse *p, sl_expr *e, const sl_list *defs)
{
    if (!e || sl_error_isset(p->err))
        return;
    sl__resolve_windows(p, e->left, defs);
    sl__resolve_windows(p, e->right, defs);
    sl__resolve_windows(p, e->filter, defs);
    for (int i = 0; i < sl_list_len(e->args); i++)
        sl__resolve_windows(p, sl_list_get(e->args, i), defs);
    if (!e->over || !e->over->name)
        return;
    for (int i = 0; i < sl_list_len(defs); i++) {
        const sl_window_spec *d = sl_list_get(defs, i);
        if (sl_strcasecmp(d->name, e->over->name) == 0) {
            sl_window_spec *w = sl_window_spec_dup(d);
            sl_free(w->name);
            w->name = NULL;
            w->name_pos = -1;
            sl_window_spec_free(e->over);
            e->over = w;
            return;
        }
    }
    /* unknown: left named, the binder reports it (after any syntax error) */
}

sl_query *sl__select_windows(sl__parse *p, sl_query *q, sl_list *defs)
{
    if (q) {
        for (int i = 0; i < sl_list_len(q->items); i++)
            sl__resolve_windows(p, ((sl_select_item *)sl_list_get(q->items, i))->expr, defs);
        sl__resolve_windows(p, q->where, defs);
        sl__resolve_windows(p, q->having, defs);
    }
    sl_list_free(defs, sl_window_spec_free_v);
    return q;
}

sl_window_spec *sl__window_frame(sl__parse *p, sl__tok kw, bool range, sl_window_spec *start)
{
    (void)p;
    start->frame = range ? SL_FRAME_RANGE : SL_FRAME_ROWS;
    start->frame_pos = kw.pos;
    return start;
}

sl_window_spec *sl__frame_start(sl__parse *p, sl_expr *preceding, bool current_row)
{
    (void)p;
    sl_window_spec *w = sl_calloc(1, sizeof(*w));
    w->preceding = preceding;
    w->current_row = current_row;
    w->frame_pos = -1;
    return w;
}

sl_order_item *sl__order_item(sl__parse *p, sl_expr *e, bool desc, int nulls)
{
    sl_order_item *o = sl_calloc(1, sizeof(*o));
    o->expr = e;
    o->desc = desc;
    o->nulls = nulls;
    return o;
}

/* ------------------------------------------------------------------------
** Types.
*/
/* A type argument: a plain non-negative integer that fits an int; -1 on error. */
static int sl__type_arg(sl__parse *p, sl__tok t)
{
    long long v = 0;
    for (int i = 0; i < t.n; i++) {
        if (t.z[i] < '0' || t.z[i] > '9' || v > INT_MAX) {
            sl_error_set(p->err, SL_ERR_SYNTAX, t.pos,
                         "type argument must be an integer between 0 and %d", INT_MAX);
            return -1;
        }
        v = v * 10 + (t.z[i] - '0');
    }
    if (v > INT_MAX) {
        sl_error_set(p->err, SL_ERR_SYNTAX, t.pos,
                     "type argument must be an integer between 0 and %d", INT_MAX);
        return -1;
    }
    return (int)v;
}

sl__prec sl__prec_make(sl__parse *p, sl__tok pt, sl__tok st)
{
    sl__prec r = {sl__type_arg(p, pt), -1};
    if (st.z)
        r.s = sl__type_arg(p, st);
    return r;
}

sl__ty sl__type(sl__parse *p, sl_type_id id, sl__tok kw, sl__prec prec)
{
    sl__ty r;
    r.pos = kw.pos;
    r.reg = 0;
    if (prec.s >= 0 && id != SL_TYPE_DECIMAL)
        sl_error_set(p->err, SL_ERR_SYNTAX, kw.pos, "type %.*s takes at most one argument",
                     kw.n, kw.z);
    if (prec.p < 0)
        r.t = sl_type_make(id);
    else
        r.t = sl_type_make_p(id, prec.p, prec.s < 0 ? 0 : prec.s);
    if (!sl_error_isset(p->err))
        sl_type_check(r.t, kw.pos, p->err);
    return r;
}

/* PostgreSQL's names of Sluice's types (text, int8, float8, bool, oid ...),
** for expr::type and CAST: SL_TYPE_NULL when name is none of them. */
static sl_type sl__pg_type_name(const char *name, int n)
{
    static const struct {
        const char *name;
        sl_type_id id;
    } map[] = {
        {"text", SL_TYPE_VARCHAR},  {"name", SL_TYPE_VARCHAR},   {"bpchar", SL_TYPE_VARCHAR},
        {"int2", SL_TYPE_SMALLINT}, {"int4", SL_TYPE_INT},       {"int8", SL_TYPE_BIGINT},
        {"oid", SL_TYPE_BIGINT},    {"float4", SL_TYPE_FLOAT},   {"float8", SL_TYPE_DOUBLE},
        {"real", SL_TYPE_FLOAT},    {"bool", SL_TYPE_BOOLEAN},   {"bytea", SL_TYPE_VARBINARY},
        {"timestamptz", SL_TYPE_TIMESTAMP_LTZ},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(map); i++)
        if ((int)strlen(map[i].name) == n && sl_strncasecmp(map[i].name, name, (size_t)n) == 0) {
            bool str = map[i].id == SL_TYPE_VARCHAR || map[i].id == SL_TYPE_VARBINARY;
            return str ? sl_type_make_p(map[i].id, SL_MAX_LENGTH, 0)
                       : map[i].id == SL_TYPE_TIMESTAMP_LTZ ? sl_type_make_p(map[i].id, 6, 0)
                                                            : sl_type_make(map[i].id);
        }
    return sl_type_make(SL_TYPE_NULL);
}

sl__ty sl__type_qualified(sl__parse *p, sl__tok schema, sl__tok name)
{
    if (!(schema.n == 10 && sl_strncasecmp(schema.z, "pg_catalog", 10) == 0)) {
        sl__ty r = {sl_type_make(SL_TYPE_NULL), name.pos, 0};
        sl_error_set(p->err, SL_ERR_UNDEFINED_OBJECT, schema.pos, "type \"%.*s.%.*s\" does not exist",
                     schema.n, schema.z, name.n, name.z);
        return r;
    }
    return sl__type_unknown(p, name);
}

sl_column_def *sl__row_type(sl__parse *p, sl__tok kw, sl_list *fields)
{
    sl_column_def *c = sl_calloc(1, sizeof *c);
    c->pos = c->type_pos = kw.pos;
    c->type = sl_type_make(SL_TYPE_ROW);
    c->fields = fields;
    for (int i = 0; i < sl_list_len(fields) && !sl_error_isset(p->err); i++) {
        const sl_column_def *f = sl_list_get(fields, i);
        for (int j = 0; j < i; j++)
            if (strcmp(((const sl_column_def *)sl_list_get(fields, j))->name, f->name) == 0) {
                sl_error_set(p->err, SL_ERR_DUPLICATE_COLUMN, f->pos,
                             "field \"%s\" specified more than once", f->name);
                break;
            }
    }
    return c;
}

sl_column_def *sl__row_field(sl__parse *p, sl__tok name, sl__ty ty, sl_column_def *row,
                             bool not_null, sl__tok comment)
{
    sl_column_def *c = row;
    if (!c) {
        c = sl_calloc(1, sizeof *c);
        c->type = ty.t;
        c->type_pos = ty.pos;
    }
    sl_free(c->name);
    c->name = sl__name(p, name);
    c->pos = name.pos;
    c->type.not_null = not_null;
    c->comment = comment.z ? sl__unquote(p, comment) : NULL;
    return c;
}

sl__ty sl__type_unsupported(sl__parse *p, sl__tok kw, const char *what)
{
    sl__ty r = {sl_type_make(SL_TYPE_NULL), kw.pos, 0};
    sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, kw.pos, "type %s is not supported", what);
    sl_error_hint(p->err, "Sluice has ROW (their fields are stored as columns), ARRAY and MAP "
                          "types; it has no MULTISET yet.");
    return r;
}

/* ARRAY<T> / T ARRAY and MAP<K, V>: interned composite types (sl_type.h). */
sl__ty sl__type_array(sl__parse *p, sl__tok kw, sl__ty elem)
{
    (void)p;
    sl__ty r = {sl_type_array_of(elem.t), kw.pos, 0};
    return r;
}

sl__ty sl__type_map(sl__parse *p, sl__tok kw, sl__ty key, sl__ty value)
{
    (void)p;
    sl__ty r = {sl_type_map_of(key.t, value.t), kw.pos, 0};
    return r;
}

/* A ROW as an ARRAY's or MAP's element: 0A000 (ROW values do not exist). */
sl__ty sl__type_row_elem(sl__parse *p, sl_column_def *row)
{
    sl__ty r = {sl_type_make(SL_TYPE_NULL), row ? row->type_pos : -1, 0};
    sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, r.pos,
                 "a ROW type as an ARRAY or MAP element is not supported");
    sl_error_hint(p->err, "ROW types are supported as the types of table columns only.");
    sl_column_def_free(row);
    return r;
}

sl_expr *sl__cast_row(sl__parse *p, sl__tok kw, sl_expr *x, sl_column_def *row)
{
    sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, row ? row->type_pos : kw.pos,
                 "a cast to a ROW type is not supported");
    sl_error_hint(p->err, "ROW types are supported as the types of table columns only.");
    sl_expr_free(x);
    sl_column_def_free(row);
    return NULL;
}

sl__ty sl__type_unknown(sl__parse *p, sl__tok name)
{
    sl_type pg = sl__pg_type_name(name.z, name.n);
    if (pg.id != SL_TYPE_NULL) {
        sl__ty r = {pg, name.pos, 0};
        return r;
    }
    static const char *const regs[] = {"regclass", "regtype", "regnamespace", "regproc"};
    for (size_t i = 0; i < SL_ARRAY_LEN(regs); i++)
        if ((int)strlen(regs[i]) == name.n && sl_strncasecmp(regs[i], name.z, (size_t)name.n) == 0) {
            sl__ty r = {sl_type_make(SL_TYPE_BIGINT), name.pos, i == 0 ? 1 : 2};
            return r;
        }
    static const char *const known[] = {
        "BOOLEAN", "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE",
        "DECIMAL", "DEC", "NUMERIC", "STRING", "VARCHAR", "CHAR", "BYTES", "BINARY",
        "VARBINARY", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"};
    sl__ty r;
    r.pos = name.pos;
    r.reg = 0;
    r.t = sl_type_make(SL_TYPE_NULL);
    char *word = sl_strndup(name.z, (size_t)name.n);
    sl_error_set(p->err, SL_ERR_UNDEFINED_OBJECT, name.pos, "type \"%s\" does not exist", word);
    const char *near = sl_did_you_mean(word, known, (int)SL_ARRAY_LEN(known));
    if (near)
        sl_error_hint(p->err, "Did you mean %s?", near);
    else
        sl_error_hint(p->err, "Sluice has the types BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, "
                              "FLOAT, DOUBLE, DECIMAL(p, s), STRING, VARCHAR(n), CHAR(n), BYTES, "
                              "BINARY(n), VARBINARY(n), DATE, TIME(p), TIMESTAMP(p) and "
                              "TIMESTAMP_LTZ(p).");
    sl_free(word);
    return r;
}

/* ------------------------------------------------------------------------
** Queries.
*/
static sl_query *sl__query_new(sl_query_kind kind, int pos)
{
    sl_query *q = sl_calloc(1, sizeof(*q));
    q->kind = kind;
    q->pos = pos;
    return q;
}

static sl_query *sl__qdeep(sl__parse *p, sl_query *q, int child_depth)
{
    return sl__deep(p, q, child_depth, q ? q->pos : -1, sl__query_free_v);
}

sl_select_item *sl__select_item(sl__parse *p, sl_expr *e, sl__tok alias)
{
    sl_select_item *it = sl_calloc(1, sizeof(*it));
    it->expr = e;
    it->alias = sl__name(p, alias);
    it->alias_pos = alias.z ? alias.pos : -1;
    return it;
}

sl_query *sl__select(sl__parse *p, sl__tok kw, bool distinct, sl_list *items, sl_from *from,
                     sl_expr *where, sl_list *group_by, sl_expr *having)
{
    sl_query *q = sl__query_new(SL_QUERY_SELECT, kw.pos);
    q->distinct = distinct;
    q->items = items;
    q->from = from;
    q->where = where;
    q->group_by = group_by;
    q->having = having;
    int d = sl__max(sl__dget(p, from), sl__max(sl__dget(p, where), sl__dget(p, having)));
    d = sl__max(d, sl__dlist(p, group_by));
    for (int i = 0; i < sl_list_len(items); i++) {
        sl_select_item *it = sl_list_get(items, i);
        d = sl__max(d, sl__dget(p, it->expr));
    }
    return sl__qdeep(p, q, d);
}

sl_query *sl__values(sl__parse *p, sl__tok kw, sl_list *rows)
{
    sl_query *q = sl__query_new(SL_QUERY_VALUES, kw.pos);
    q->rows = rows;
    int d = 0;
    for (int i = 0; i < sl_list_len(rows); i++)
        d = sl__max(d, sl__dlist(p, sl_list_get(rows, i)));
    return sl__qdeep(p, q, d);
}

sl_query *sl__union(sl__parse *p, sl_query *l, sl_query *r, bool all, sl__tok kw)
{
    sl_query *q = sl__query_new(SL_QUERY_UNION, l ? l->pos : kw.pos);
    q->left = l;
    q->right = r;
    q->all = all;
    return sl__qdeep(p, q, sl__max(sl__dget(p, l), sl__dget(p, r)));
}

sl_expr *sl__limit_or_fetch(sl__parse *p, sl_expr *limit, sl_expr *fetch)
{
    if (!limit || !fetch)
        return limit ? limit : fetch;
    if (!sl_error_isset(p->err))
        sl_error_set(p->err, SL_ERR_SYNTAX, fetch->pos, "cannot use both LIMIT and FETCH");
    sl_expr_free(fetch);
    return limit;
}

sl__tail sl__tail_make(sl__parse *p, sl_list *order, sl_expr *limit, sl_expr *offset)
{
    sl__tail t = {order, limit, offset, -1};
    if (sl_list_len(order))
        t.pos = ((sl_order_item *)sl_list_get(order, 0))->expr
                    ? ((sl_order_item *)sl_list_get(order, 0))->expr->pos : -1;
    else if (limit)
        t.pos = limit->pos;
    else if (offset)
        t.pos = offset->pos;
    return t;
}

sl_query *sl__query_tail(sl__parse *p, sl_query *q, sl__tail t)
{
    if (!t.order_by && !t.limit && !t.offset)
        return q;
    if (!q) {
        sl__tail_free(t);
        return NULL;
    }
    if (q->order_by || q->limit || q->offset) {
        /* (SELECT .. LIMIT 1) ORDER BY x: the order of the two matters and the
        ** AST has one slot each. */
        sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, t.pos,
                     "ORDER BY, LIMIT or OFFSET on a parenthesized query that already has them "
                     "is not supported");
        sl_error_hint(p->err, "Use a subquery: SELECT * FROM (...) ORDER BY ...");
        sl__tail_free(t);
        return q;
    }
    q->order_by = t.order_by;
    q->limit = t.limit;
    q->offset = t.offset;
    int d = sl__max(sl__dorder(p, t.order_by), sl__max(sl__dget(p, t.limit), sl__dget(p, t.offset)));
    d = sl__max(d + 1, sl__dget(p, q));
    sl__dput(p, q, d);
    if (d > SL__MAX_DEPTH) {
        sl_error_set(p->err, SL_ERR_TOO_COMPLEX, q->pos, "statement is nested too deeply");
        sl_error_detail(p->err, "Expressions and queries may nest at most %d levels.",
                        SL__MAX_DEPTH);
        sl_query_free(q);
        return NULL;
    }
    return q;
}

/* ------------------------------------------------------------------------
** FROM.
*/
static sl_from *sl__from_new(sl_from_kind kind, int pos)
{
    sl_from *f = sl_calloc(1, sizeof(*f));
    f->kind = kind;
    f->pos = pos;
    f->alias_pos = -1;
    f->time_col_pos = -1;
    return f;
}

static sl_from *sl__fdeep(sl__parse *p, sl_from *f, int child_depth)
{
    return sl__deep(p, f, child_depth, f ? f->pos : -1, sl__from_free_v);
}

static void sl__alias(sl__parse *p, sl_from *f, sl__tok alias)
{
    f->alias = sl__name(p, alias);
    f->alias_pos = alias.z ? alias.pos : -1;
}

sl_from *sl__from_table(sl__parse *p, sl__tok name, sl__tok alias)
{
    sl_from *f = sl__from_new(SL_FROM_TABLE, name.pos);
    f->name = sl__name(p, name);
    sl__alias(p, f, alias);
    return sl__fdeep(p, f, 0);
}

/* Whether a schema-qualified name's schema is pg_catalog (functions, types). */
static bool sl__is_pg_catalog(sl__tok schema)
{
    return schema.n == 10 && sl_strncasecmp(schema.z, "pg_catalog", 10) == 0;
}

/* information_schema's functions (_pg_expandarray) are called qualified. */
static bool sl__is_info_schema(sl__tok schema)
{
    return schema.n == 18 && sl_strncasecmp(schema.z, "information_schema", 18) == 0;
}

sl_from *sl__from_qtable(sl__parse *p, sl__tok schema, sl__tok name, sl__tok alias)
{
    sl_from *f = sl__from_table(p, name, alias);
    f->pos = schema.pos;
    f->schema = sl__name(p, schema);
    return f;
}

void sl__from_columns(sl__parse *p, sl_from *f, sl_list *cols, sl__tok ord)
{
    f->columns = cols;
    if (ord.z) {
        if (ord.n == 10 && sl_strncasecmp(ord.z, "ORDINALITY", 10) == 0)
            f->ordinality = true;
        else if (!sl_error_isset(p->err))
            sl_error_set(p->err, SL_ERR_SYNTAX, ord.pos, "syntax error at or near \"%.*s\"",
                         ord.n, ord.z);
    }
    if (sl_error_isset(p->err) || f->kind == SL_FROM_SUBQUERY ||
        sl_strcasecmp(f->name, "unnest") == 0)
        return;
    sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, f->pos,
                 f->ordinality ? "WITH ORDINALITY is only supported for UNNEST"
                               : "column aliases for a table function are not supported");
}

sl_from *sl__from_function(sl__parse *p, sl__tok schema, sl__tok name, sl_list *args,
                           sl__tok alias)
{
    if (schema.z != name.z && !sl__is_pg_catalog(schema))
        sl_error_set(p->err, SL_ERR_UNDEFINED_FUNCTION, schema.pos,
                     "function %.*s.%.*s does not exist", schema.n, schema.z, name.n, name.z);
    sl_from *f = sl__from_new(SL_FROM_FUNCTION, schema.pos);
    f->name = sl__name(p, name);
    f->args = args;
    sl__alias(p, f, alias);
    return sl__fdeep(p, f, sl__dlist(p, args));
}

sl_expr *sl__qfunc(sl__parse *p, sl__tok schema, sl__tok name, sl_list *args)
{
    if (!sl__is_pg_catalog(schema) && !sl__is_info_schema(schema))
        sl_error_set(p->err, SL_ERR_UNDEFINED_FUNCTION, schema.pos,
                     "function %.*s.%.*s does not exist", schema.n, schema.z, name.n, name.z);
    sl_expr *e = sl__func(p, name, args, false, false, NULL);
    e->pos = schema.pos;
    return e;
}

sl_expr *sl__qbinary(sl__parse *p, sl__tok schema, sl__tok op, sl_expr *l, sl_expr *r)
{
    static const struct {
        const char *text;
        int op;
    } ops[] = {{"~", SL_OP_REGEX},  {"!~", SL_OP_NOT_REGEX}, {"~*", SL_OP_IREGEX},
               {"!~*", SL_OP_NOT_IREGEX}, {"=", SL_OP_EQ}, {"<>", SL_OP_NE}, {"!=", SL_OP_NE},
               {"<", SL_OP_LT}, {"<=", SL_OP_LE}, {">", SL_OP_GT}, {">=", SL_OP_GE}};
    int code = SL_OP_NONE;
    for (size_t i = 0; i < SL_ARRAY_LEN(ops); i++)
        if ((int)strlen(ops[i].text) == op.n && memcmp(ops[i].text, op.z, (size_t)op.n) == 0)
            code = ops[i].op;
    if (!sl__is_pg_catalog(schema))
        sl_error_set(p->err, SL_ERR_UNDEFINED_FUNCTION, schema.pos,
                     "operator does not exist: %.*s.%.*s", schema.n, schema.z, op.n, op.z);
    return sl__binary(p, code, l, r, op);
}

sl_from *sl__from_subquery(sl__parse *p, sl__tok lp, sl_query *q, sl__tok alias)
{
    sl_from *f = sl__from_new(SL_FROM_SUBQUERY, lp.pos);
    f->subquery = q;
    sl__alias(p, f, alias);
    return sl__fdeep(p, f, sl__dget(p, q));
}

sl_from *sl__from_join(sl__parse *p, sl_from *l, int type, sl_from *r, sl_expr *on, sl__tok kw)
{
    sl_from *f = sl__from_new(SL_FROM_JOIN, l ? l->pos : kw.pos);
    f->join_type = type;
    f->left = l;
    f->right = r;
    f->on = on;
    int d = sl__max(sl__max(sl__dget(p, l), sl__dget(p, r)), sl__dget(p, on));
    return sl__fdeep(p, f, d);
}

sl__warg *sl__warg_make(sl__parse *p, int kind, sl__tok kw, sl__tok ident, sl_expr *e)
{
    sl__warg *a = sl_calloc(1, sizeof(*a));
    a->kind = kind;
    a->ident = sl__name(p, ident);
    a->ident_pos = ident.pos;
    a->expr = e;
    a->name_pos = kw.z ? kw.pos : e ? e->pos : -1;
    return a;
}

sl__warg *sl__warg_name(sl__parse *p, sl__warg *a, sl__tok name)
{
    if (!a)
        return NULL;
    a->name = sl__name(p, name);
    a->name_pos = name.pos;
    return a;
}

sl__warg *sl__warg_partition(sl__parse *p, sl__warg *a, sl_list *cols)
{
    (void)p;
    if (!a) {
        sl_list_free(cols, sl__ident_free_v);
        return NULL;
    }
    a->partition = cols;
    return a;
}

/* Parameters of the window functions, in positional order. */
static const char *const sl__tumble_params[] = {"DATA", "TIMECOL", "SIZE", "OFFSET"};
static const char *const sl__hop_params[] = {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"};
static const char *const sl__cumulate_params[] = {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"};
static const char *const sl__session_params[] = {"DATA", "TIMECOL", "GAP"};

/* Put the arguments of a window function into slots by position or name.
** Returns false (error set) on an unknown, duplicated, misplaced or missing
** parameter. slots[i] borrows from args. */
static bool sl__window_slots(sl__parse *p, sl__tok fn, const char *const *params, int nparams,
                             sl_list *args, sl__warg **slots)
{
    bool named = false;
    for (int i = 0; i < sl_list_len(args); i++) {
        sl__warg *a = sl_list_get(args, i);
        int slot = -1;
        if (!a->name) {
            if (named) {
                sl_error_set(p->err, SL_ERR_SYNTAX, a->name_pos,
                             "positional argument follows named arguments");
                return false;
            }
            if (i >= nparams) {
                sl_error_set(p->err, SL_ERR_SYNTAX, a->name_pos, "too many arguments for %.*s",
                             fn.n, fn.z);
                return false;
            }
            slot = i;
        } else {
            named = true;
            for (int k = 0; k < nparams; k++)
                if (sl_strcasecmp(a->name, params[k]) == 0)
                    slot = k;
            if (slot < 0) {
                sl_error_set(p->err, SL_ERR_SYNTAX, a->name_pos,
                             "%.*s has no parameter named \"%s\"", fn.n, fn.z, a->name);
                sl_strbuf sb = SL_STRBUF_INIT;
                for (int k = 0; k < nparams; k++)
                    sl_strbuf_appendf(&sb, "%s%s", k ? ", " : "", params[k]);
                sl_error_hint(p->err, "Its parameters are %s.", sl_strbuf_cstr(&sb));
                sl_strbuf_free(&sb);
                return false;
            }
            if (slots[slot]) {
                sl_error_set(p->err, SL_ERR_SYNTAX, a->name_pos,
                             "parameter \"%s\" is specified more than once", params[slot]);
                return false;
            }
        }
        slots[slot] = a;
        int want = slot == 0 ? 1 : slot == 1 ? 2 : 0;
        if (a->kind != want) {
            static const char *const what[] = {"an expression", "TABLE name", "DESCRIPTOR(column)"};
            sl_error_set(p->err, SL_ERR_SYNTAX, a->name_pos,
                         "argument %s of %.*s must be %s", params[slot], fn.n, fn.z, what[want]);
            return false;
        }
    }
    int required = nparams == 3 ? 3 : nparams - 1; /* all but OFFSET (SESSION has none) */
    for (int k = 0; k < required; k++) {
        if (!slots[k]) {
            sl_error_set(p->err, SL_ERR_SYNTAX, fn.pos, "%.*s requires the argument %s", fn.n,
                         fn.z, params[k]);
            return false;
        }
    }
    return true;
}

sl_from *sl__from_window(sl__parse *p, sl__tok table_kw, sl__tok fn, sl_list *args, sl__tok alias)
{
    const char *const *params;
    int nparams, wfn;
    switch (sl__keyword_code(fn.z, fn.n)) {
    case TK_HOP: params = sl__hop_params; nparams = 5; wfn = SL_WIN_HOP; break;
    case TK_CUMULATE: params = sl__cumulate_params; nparams = 5; wfn = SL_WIN_CUMULATE; break;
    case TK_SESSION: params = sl__session_params; nparams = 3; wfn = SL_WIN_SESSION; break;
    default: params = sl__tumble_params; nparams = 4; wfn = SL_WIN_TUMBLE; break;
    }
    sl__warg *slots[5] = {0};
    sl_from *f = NULL;
    if (args && sl__window_slots(p, fn, params, nparams, args, slots)) {
        f = sl__from_new(SL_FROM_WINDOW, table_kw.pos);
        f->window_fn = wfn;
        f->input = sl__from_new(SL_FROM_TABLE, slots[0]->ident_pos);
        f->input->name = slots[0]->ident;
        slots[0]->ident = NULL;
        f->partition = slots[0]->partition;
        slots[0]->partition = NULL;
        sl__dput(p, f->input, 1);
        f->time_col = slots[1]->ident;
        f->time_col_pos = slots[1]->ident_pos;
        slots[1]->ident = NULL;
        f->args = sl_list_new();
        for (int k = 2; k < nparams; k++) {
            if (slots[k]) {
                sl_list_push(f->args, slots[k]->expr);
                slots[k]->expr = NULL;
            }
        }
        sl__alias(p, f, alias);
    }
    sl_list_free(args, sl__warg_free_v);
    return f ? sl__fdeep(p, f, sl__max(1, sl__dlist(p, f->args))) : NULL;
}

/* ------------------------------------------------------------------------
** Statements.
*/
static sl_stmt *sl__stmt_new(sl_stmt_kind kind, sl__tok kw)
{
    sl_stmt *s = sl_calloc(1, sizeof(*s));
    s->kind = kind;
    s->pos = kw.pos;
    s->end = -1;
    s->name_pos = -1;
    s->pk_pos = -1;
    s->options_pos = -1;
    return s;
}

static void sl__stmt_name(sl__parse *p, sl_stmt *s, sl__tok name)
{
    s->name = sl__name(p, name);
    s->name_pos = name.z ? name.pos : -1;
}

/* A column element named name with its COMMENT, the rest to be filled. */
static sl__telem *sl__col_elem_new(sl__parse *p, sl__tok name, sl__tok comment)
{
    sl__telem *e = sl_calloc(1, sizeof(*e));
    e->pk_pos = -1;
    e->wm_pos = -1;
    e->col = sl_calloc(1, sizeof(*e->col));
    e->col->name = sl__name(p, name);
    e->col->pos = name.pos;
    e->col->comment = comment.z ? sl__unquote(p, comment) : NULL;
    return e;
}

sl__telem *sl__column_elem(sl__parse *p, sl__tok name, sl__ty ty, bool not_null,
                           sl__telem *pk, sl__tok comment)
{
    sl__telem *e = sl__col_elem_new(p, name, comment);
    e->col->type = ty.t;
    e->col->type.not_null = not_null;
    e->col->type_pos = ty.pos;
    if (pk) {
        e->pk_pos = pk->pk_pos;
        sl__telem_free(pk);
    }
    return e;
}

sl__telem *sl__row_column_elem(sl__parse *p, sl__tok name, sl_column_def *row, bool not_null,
                               sl__telem *pk, sl__tok comment)
{
    sl__telem *e = sl__col_elem_new(p, name, comment);
    if (row) {
        e->col->type = row->type;
        e->col->type_pos = row->type_pos;
        e->col->fields = row->fields;
        row->fields = NULL;
        sl_column_def_free(row);
    } else {
        e->col->type = sl_type_make(SL_TYPE_ROW);
    }
    e->col->type.not_null = not_null;
    if (pk) {
        e->pk_pos = pk->pk_pos;
        sl__telem_free(pk);
    }
    return e;
}

/* A computed column `name AS expr`: its type is the expression's (bind.c). */
sl__telem *sl__computed_elem(sl__parse *p, sl__tok name, sl_expr *x, sl__tok comment)
{
    sl__telem *e = sl__col_elem_new(p, name, comment);
    e->col->type_pos = x ? x->pos : name.pos;
    e->col->expr = x;
    return e;
}

/* A metadata column `name type METADATA [FROM 'key'] [VIRTUAL]`: the
** connector fills it (its key is checked against the connector's by bind.c). */
sl__telem *sl__metadata_elem(sl__parse *p, sl__tok name, sl__ty ty, bool not_null, sl__tok kw,
                             sl__tok key, bool is_virtual, sl__tok comment)
{
    sl__telem *e = sl__column_elem(p, name, ty, not_null, NULL, comment);
    e->col->metadata = true;
    e->col->meta_key = key.z ? sl__unquote(p, key) : NULL;
    e->col->meta_pos = key.z ? key.pos : kw.pos;
    e->col->is_virtual = is_virtual;
    return e;
}

sl__telem *sl__pk_elem(sl__parse *p, sl__tok primary, sl_list *cols, bool enforced)
{
    if (enforced) {
        sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, primary.pos,
                     "PRIMARY KEY constraints must be declared NOT ENFORCED");
        sl_error_hint(p->err, "Sluice does not own the external data and cannot enforce keys: "
                              "write PRIMARY KEY (...) NOT ENFORCED.");
    }
    sl__telem *e = sl_calloc(1, sizeof(*e));
    e->pk_pos = primary.pos;
    e->wm_pos = -1;
    e->pk = cols;
    return e;
}

sl__telem *sl__watermark_elem(sl__parse *p, sl__tok kw, sl__tok col, sl_expr *x)
{
    sl__telem *e = sl_calloc(1, sizeof(*e));
    e->pk_pos = -1;
    e->wm_pos = kw.pos;
    e->wm_column = sl__ident(p, col);
    e->wm_expr = x;
    return e;
}

sl_stmt *sl__table_elem(sl__parse *p, sl_stmt *body, sl__telem *e)
{
    if (!body) {
        body = sl__stmt_new(SL_STMT_CREATE_TABLE, SL__NOTOK);
        body->columns = sl_list_new();
    }
    if (!e)
        return body;
    if (e->col) {
        sl_list_push(body->columns, e->col);
        if (e->pk_pos >= 0 && !e->pk) { /* inline PRIMARY KEY: the column itself */
            sl_ident *id = sl_calloc(1, sizeof(*id));
            id->name = sl_strdup(e->col->name);
            id->pos = e->col->pos;
            e->pk = sl__list(p, NULL, id);
        }
        e->col = NULL;
    }
    if (e->pk_pos >= 0) {
        if (body->primary_key) {
            sl_error_set(p->err, SL_ERR_INVALID_TABLE_DEF, e->pk_pos,
                         "multiple primary keys are not allowed");
        } else {
            body->primary_key = e->pk;
            body->pk_pos = e->pk_pos;
            e->pk = NULL;
        }
    }
    if (e->wm_pos >= 0) {
        if (body->wm_column) {
            sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, e->wm_pos,
                         "multiple WATERMARK declarations are not supported");
        } else {
            body->wm_column = e->wm_column;
            body->wm_expr = e->wm_expr;
            e->wm_column = NULL;
            e->wm_expr = NULL;
        }
    }
    sl__telem_free(e);
    return body;
}

sl_stmt *sl__create_table(sl__parse *p, sl__tok kw, bool ine, sl__tok name, sl_stmt *body,
                          sl__tok comment, sl__opts with, sl_stmt *like)
{
    if (!body) {
        sl_kvlist_free(with.kv);
        sl_stmt_free(like);
        return NULL;
    }
    if (like) {
        body->like = like->like;
        like->like = NULL;
        memcpy(body->like_opts, like->like_opts, sizeof body->like_opts);
        sl_stmt_free(like);
    }
    body->pos = kw.pos;
    body->if_not_exists = ine;
    sl__stmt_name(p, body, name);
    body->comment = comment.z ? sl__unquote(p, comment) : NULL;
    body->options = with.kv;
    body->options_pos = with.pos;
    return body;
}

sl_stmt *sl__partitioned(sl__parse *p, sl_stmt *body, sl_list *cols)
{
    if (!body)
        sl_list_free(cols, sl__ident_free_v);
    else
        body->partition_by = cols;
    return body;
}

sl_stmt *sl__like_clause(sl__parse *p, sl__tok kw, sl__tok name)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_CREATE_TABLE, kw);
    s->like = sl__ident(p, name);
    return s;
}

sl_ident *sl__like_opt(sl__parse *p, sl__tok mode, sl__tok feature)
{
    sl_ident *id = sl_calloc(1, sizeof(*id));
    id->name = sl_sprintf("%.*s %.*s", mode.n, mode.z, feature.n, feature.z);
    for (char *c = id->name; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    id->pos = mode.pos;
    return id;
}

void sl__like_opts(sl__parse *p, sl_stmt *like, sl_list *opts)
{
    static const char *const modes[] = {NULL, "INCLUDING", "EXCLUDING", "OVERWRITING"};
    static const char *const feats[] = {"ALL", "CONSTRAINTS", "GENERATED", "OPTIONS",
                                        "PARTITIONS", "WATERMARKS", "METADATA"};
    for (int i = 0; i < sl_list_len(opts); i++) {
        const sl_ident *o = sl_list_get(opts, i);
        const char *sp = strchr(o->name, ' ');
        int m = 1, f = 0;
        while (m < 4 && strncmp(o->name, modes[m], (size_t)(sp - o->name)) != 0)
            m++;
        while (f < SL_LIKE_NFEATURES && strcmp(sp + 1, feats[f]) != 0)
            f++;
        if (m == SL_LIKE_OVERWRITING &&
            (f == SL_LIKE_ALL || f == SL_LIKE_CONSTRAINTS || f == SL_LIKE_PARTITIONS)) {
            sl_error_set(p->err, SL_ERR_SYNTAX, o->pos,
                         "illegal merging strategy 'OVERWRITING' for '%s' option", feats[f]);
            break;
        }
        if (f == SL_LIKE_ALL) { /* ALL first: the features named after it refine it */
            for (int k = 0; k < SL_LIKE_NFEATURES; k++)
                if (!like->like_opts[k] || k == SL_LIKE_ALL)
                    like->like_opts[k] = (uint8_t)m;
        } else {
            like->like_opts[f] = (uint8_t)m;
        }
    }
    sl_list_free(opts, sl__ident_free_v);
}

sl__opts sl__opts_make(sl__parse *p, sl__tok kw, sl_kvlist *kv)
{
    return (sl__opts){kv, kw.pos};
}

sl_kvlist *sl__kv(sl__parse *p, sl_kvlist *l, sl__tok key, sl__tok value)
{
    if (!l)
        l = sl_kvlist_new();
    char *k = sl__unquote(p, key);
    char *v = value.z ? sl__unquote(p, value) : NULL;
    sl_kvlist_add(l, k, v, key.pos, value.z ? value.pos : -1);
    sl_free(k);
    sl_free(v);
    return l;
}

sl_stmt *sl__drop(sl__parse *p, sl_stmt_kind kind, sl__tok kw, bool temp, bool if_exists,
                  sl__tok name)
{
    sl_stmt *s = sl__stmt_new(kind, kw);
    s->temporary = temp;
    s->if_exists = if_exists;
    sl__stmt_name(p, s, name);
    return s;
}

sl_stmt *sl__alter(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok name, sl__tok setkw,
                   sl_kvlist *kv)
{
    sl_stmt *s = sl__stmt_new(kind, kw);
    sl__stmt_name(p, s, name);
    s->options = kv;
    s->options_pos = setkw.pos;
    return s;
}

sl_stmt *sl__create_view(sl__parse *p, sl__tok kw, bool temp, bool ine, sl__tok name,
                         sl_list *cols, sl_query *q)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_CREATE_VIEW, kw);
    s->temporary = temp;
    s->if_not_exists = ine;
    sl__stmt_name(p, s, name);
    s->column_names = cols;
    s->query = q;
    return s;
}

sl_stmt *sl__insert(sl__parse *p, sl__tok kw, sl__tok name, sl_list *cols, sl_query *q)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_INSERT, kw);
    sl__stmt_name(p, s, name);
    s->column_names = cols;
    s->query = q;
    return s;
}

sl_list *sl__set_item(sl__parse *p, sl_list *l, sl_stmt *ins, sl__tok semi)
{
    if (ins)
        ins->end = semi.prev_end;
    return sl__list(p, l, ins);
}

sl_stmt *sl__statement_set(sl__parse *p, sl__tok kw, sl_list *stmts, sl_stmt *last, sl__tok end)
{
    if (last)
        stmts = sl__set_item(p, stmts, last, end);
    if (!sl_list_len(stmts))
        sl_error_set(p->err, SL_ERR_SYNTAX, kw.pos, "a statement set needs at least one INSERT");
    sl_stmt *s = sl__stmt_new(SL_STMT_STATEMENT_SET, kw);
    s->stmts = stmts;
    return s;
}

sl_stmt *sl__query_stmt(sl__parse *p, sl_query *q)
{
    if (!q)
        return NULL;
    sl_stmt *s = sl__stmt_new(SL_STMT_QUERY, (sl__tok){NULL, 0, q->pos, -1, -1});
    s->query = q;
    return s;
}

sl_stmt *sl__set(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok key, sl__tok value)
{
    sl_stmt *s = sl__stmt_new(kind, kw);
    if (key.z) {
        s->name = sl__unquote(p, key);
        s->name_pos = key.pos;
    }
    if (value.z) {
        s->options = sl__kv(p, NULL, key, value);
        s->options_pos = kw.pos;
    }
    return s;
}

sl_stmt *sl__function_ddl(sl__parse *p, sl__tok kw, const char *verb)
{
    /* Flink's function DDL names a class (Java, Scala) or a module (Python)
    ** for a runtime Sluice does not embed. */
    sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, kw.pos, "%s FUNCTION is not supported", verb);
    sl_error_detail(p->err, "Sluice does not run Java, Scala or Python user-defined functions.");
    sl_error_hint(p->err, "Use the built-in functions (SHOW FUNCTIONS lists them, docs/SQL.md "
                          "describes each), or write the logic as a SQL expression, in a view "
                          "to reuse it.");
    return NULL;
}

sl_stmt *sl__drop_function(sl__parse *p, sl__tok kw, int temp, bool if_exists, sl__tok name)
{
    if (!if_exists)
        return sl__function_ddl(p, kw, "DROP");
    sl_stmt *s = sl__stmt_new(SL_STMT_DROP_FUNCTION, kw);
    s->temporary = temp != 0;
    s->sub = temp == 2;
    s->if_exists = true;
    sl__stmt_name(p, s, name);
    return s;
}

sl_stmt *sl__show(sl__parse *p, sl__tok kw, int what, sl__tok name)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_SHOW, kw);
    s->show = what;
    sl__stmt_name(p, s, name);
    return s;
}

sl_stmt *sl__stmt_named(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok name)
{
    sl_stmt *s = sl__stmt_new(kind, kw);
    sl__stmt_name(p, s, name);
    return s;
}

sl_stmt *sl__explain(sl__parse *p, sl__tok kw, sl_stmt *inner)
{
    if (inner && inner->kind != SL_STMT_QUERY && inner->kind != SL_STMT_INSERT &&
        inner->kind != SL_STMT_STATEMENT_SET) {
        sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, inner->pos,
                     "EXPLAIN supports queries, INSERT and EXECUTE STATEMENT SET only");
    }
    sl_stmt *s = sl__stmt_new(SL_STMT_EXPLAIN, kw);
    s->inner = inner;
    return s;
}

sl_stmt *sl__stop_job(sl__parse *p, sl__tok kw, sl__tok id, bool savepoint)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_STOP_JOB, kw);
    s->name = sl__unquote(p, id);
    s->name_pos = id.pos;
    s->with_savepoint = savepoint;
    return s;
}

sl_stmt *sl__reconcile(sl__parse *p, sl__tok kw, sl__tok ledger, sl__tok source, sl_list *keys,
                       sl_list *cmp, sl_expr *where, sl__tok job, bool repair)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_RECONCILE, kw);
    sl__stmt_name(p, s, ledger);
    s->source = sl__ident(p, source);
    s->keys = keys;
    s->compare = cmp;
    s->where = where;
    s->job = job.z ? sl__unquote(p, job) : NULL;
    s->job_pos = job.z ? job.pos : -1;
    s->repair = repair;
    return s;
}

sl_stmt *sl__job_stmt(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok id, sl__tok with)
{
    if (with.z && !(with.n == 10 && sl_strncasecmp(with.z, "SAVEPOINTS", 10) == 0)) {
        sl_error_set(p->err, SL_ERR_SYNTAX, with.pos, "syntax error at or near \"%.*s\"",
                     (int)with.n, with.z);
        sl_error_hint(p->err, "DROP JOB 'name' WITH SAVEPOINTS removes its savepoints too.");
        return NULL;
    }
    sl_stmt *s = sl__stmt_new(kind, kw);
    if (kind == SL_STMT_SHOW)
        s->show = SL_SHOW_JOB;
    s->name = sl__unquote(p, id);
    s->name_pos = id.pos;
    s->with_savepoint = with.z != NULL;
    return s;
}

void sl__emit(sl__parse *p, sl_stmt *s, sl__tok semi)
{
    if (!s)
        return;
    s->pos = semi.stmt_pos;
    s->end = semi.prev_end;
    if (s->inner && s->inner->end < 0)
        s->inner->end = semi.prev_end;
    sl_list_push(p->stmts, s);
}

/* ------------------------------------------------------------------------
** PostgreSQL session statements: SET / SHOW / RESET of PostgreSQL
** parameters, transaction blocks, DISCARD (the grammar's block of them).
*/

/* A token that spans a and b (a sign and its number). */
sl__tok sl__tok_join(sl__tok a, sl__tok b)
{
    sl__tok t = a;
    t.n = b.pos + b.n - a.pos;
    return t;
}

/* Whether t is the unquoted word w (ASCII case ignored). */
static bool sl__word_is(sl__tok t, const char *w)
{
    size_t n = strlen(w);
    return t.z && (size_t)t.n == n && sl_strncasecmp(t.z, w, n) == 0;
}

sl__pgval sl__pgval_add(sl__parse *p, sl__pgval v, sl__tok word)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    if (v.text) {
        sl_strbuf_append(&sb, v.text);
        sl_strbuf_append(&sb, ", ");
        sl_free(v.text);
    } else {
        v.pos = word.pos;
    }
    if (word.n > 0 && (word.z[0] == '\'' || word.z[0] == '`')) {
        char *s = sl__unquote(p, word);
        sl_strbuf_append(&sb, s);
        sl_free(s);
    } else {
        for (int i = 0; i < word.n; i++) /* "- 5" is -5 */
            if (word.z[i] != ' ' && word.z[i] != '\t' && word.z[i] != '\n' && word.z[i] != '\r')
                sl_strbuf_append_char(&sb, word.z[i]);
    }
    v.text = sl_strbuf_detach(&sb);
    return v;
}

/* Transaction modes: ISOLATION LEVEL {SERIALIZABLE | REPEATABLE READ | READ
** COMMITTED | READ UNCOMMITTED}, READ WRITE, READ ONLY, [NOT] DEFERRABLE,
** separated by optional commas. Frees modes; 42601 at the first word that
** does not fit. */
static void sl__txn_modes(sl__parse *p, sl_list *modes)
{
    int n = sl_list_len(modes);
    for (int i = 0; i < n;) {
        const sl_ident *w = sl_list_get(modes, i);
        const char *a = w->name;
        const char *b = i + 1 < n ? ((sl_ident *)sl_list_get(modes, i + 1))->name : "";
        const char *c = i + 2 < n ? ((sl_ident *)sl_list_get(modes, i + 2))->name : "";
        const char *d = i + 3 < n ? ((sl_ident *)sl_list_get(modes, i + 3))->name : "";
        int used = 0;
        if (strcmp(a, ",") == 0 && i > 0)
            used = 1;
        else if (sl_strcasecmp(a, "DEFERRABLE") == 0)
            used = 1;
        else if (sl_strcasecmp(a, "NOT") == 0 && sl_strcasecmp(b, "DEFERRABLE") == 0)
            used = 2;
        else if (sl_strcasecmp(a, "READ") == 0 &&
                 (sl_strcasecmp(b, "WRITE") == 0 || sl_strcasecmp(b, "ONLY") == 0))
            used = 2;
        else if (sl_strcasecmp(a, "ISOLATION") == 0 && sl_strcasecmp(b, "LEVEL") == 0) {
            if (sl_strcasecmp(c, "SERIALIZABLE") == 0)
                used = 3;
            else if ((sl_strcasecmp(c, "REPEATABLE") == 0 && sl_strcasecmp(d, "READ") == 0) ||
                     (sl_strcasecmp(c, "READ") == 0 && (sl_strcasecmp(d, "COMMITTED") == 0 ||
                                                        sl_strcasecmp(d, "UNCOMMITTED") == 0)))
                used = 4;
            else
                w = i + 2 < n ? sl_list_get(modes, i + 2) : w;
        }
        if (!used) {
            sl_error_set(p->err, SL_ERR_SYNTAX, w->pos, "syntax error at or near \"%s\"",
                         w->name);
            break;
        }
        i += used;
    }
    sl_list_free(modes, sl__ident_free_v);
}

sl__tok sl__pg_dotted(sl__parse *p, sl__tok prefix, sl__tok name)
{
    bool quoted = (prefix.n > 0 && (prefix.z[0] == '`' || prefix.z[0] == '"')) ||
                  (name.n > 0 && (name.z[0] == '`' || name.z[0] == '"'));
    if (quoted || name.pos != prefix.pos + prefix.n + 1) {
        sl_error_set(p->err, SL_ERR_SYNTAX, name.pos, "syntax error at or near \"%.*s\"",
                     name.n, name.z);
        sl_error_hint(p->err, "Write a parameter's name as prefix.name, without quotes or spaces.");
        return prefix;
    }
    sl__tok t = prefix;
    t.n = name.pos + name.n - prefix.pos;
    return t;
}

sl_stmt *sl__pg_set(sl__parse *p, sl__tok kw, int scope, sl__tok name, const char *fixed,
                    sl__pgval v)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_PG_SET, kw);
    s->name = fixed ? sl_strdup(fixed) : sl__name(p, name);
    s->name_pos = name.pos;
    s->local = scope == 2;
    s->value_pos = v.pos;
    /* DEFAULT (and TIME ZONE LOCAL) unquoted: the parameter's default. */
    bool is_default = v.text && p->sql[v.pos] != '\'' &&
                      (sl_strcasecmp(v.text, "DEFAULT") == 0 ||
                       (fixed && sl_strcasecmp(v.text, "LOCAL") == 0));
    if (is_default)
        sl_free(v.text);
    else
        s->value = v.text;
    return s;
}

sl_stmt *sl__pg_set_txn(sl__parse *p, sl__tok kw, int scope, sl__tok chars, sl_list *modes)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_PG_SET, kw);
    if (chars.z && (scope != 1 || !sl__word_is(chars, "CHARACTERISTICS")))
        sl_error_set(p->err, SL_ERR_SYNTAX, chars.pos, "syntax error at or near \"%.*s\"",
                     chars.n, chars.z);
    s->local = scope == 2;
    sl__txn_modes(p, modes);
    return s;
}

sl_stmt *sl__pg_show(sl__parse *p, sl__tok kw, sl__tok name, sl__tok word)
{
    sl__flink_unsupported(p, kw.stmt_pos, SL__NOTOK); /* SHOW MODULES, SHOW JARS, ... */
    sl_stmt *s = sl__stmt_new(SL_STMT_PG_SHOW, kw);
    s->name_pos = name.z ? name.pos : -1;
    if (!name.z)
        return s;
    if (sl__word_is(name, "TIME"))
        s->name = sl_strdup("TimeZone");
    else if (sl__word_is(name, "TRANSACTION") && word.z) {
        if (!sl__word_is(word, "ISOLATION"))
            sl_error_set(p->err, SL_ERR_SYNTAX, word.pos, "syntax error at or near \"%.*s\"",
                         word.n, word.z);
        s->name = sl_strdup("transaction_isolation");
    } else if (sl__word_is(name, "SESSION") && word.z) {
        if (!sl__word_is(word, "AUTHORIZATION"))
            sl_error_set(p->err, SL_ERR_SYNTAX, word.pos, "syntax error at or near \"%.*s\"",
                         word.n, word.z);
        s->name = sl_strdup("session_authorization");
    } else {
        s->name = sl__name(p, name);
    }
    return s;
}

sl_stmt *sl__pg_reset(sl__parse *p, sl__tok kw, sl__tok name)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_PG_RESET, kw);
    s->name_pos = name.z ? name.pos : -1;
    if (name.z)
        s->name = sl__word_is(name, "TIME") && name.z[0] != '`' ? sl_strdup("TimeZone")
                                                               : sl__name(p, name);
    return s;
}

sl_stmt *sl__txn(sl__parse *p, int kind, sl__tok kw, sl__tok name, sl_list *modes)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_TXN, kw);
    s->sub = kind;
    sl__stmt_name(p, s, name);
    sl__txn_modes(p, modes);
    return s;
}

sl_stmt *sl__discard(sl__parse *p, sl__tok kw, sl__tok what)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_DISCARD, kw);
    if (sl__word_is(what, "ALL"))
        s->sub = SL_DISCARD_ALL;
    else if (sl__word_is(what, "PLANS"))
        s->sub = SL_DISCARD_PLANS;
    else if (sl__word_is(what, "SEQUENCES"))
        s->sub = SL_DISCARD_SEQUENCES;
    else if (sl__word_is(what, "TEMP") || sl__word_is(what, "TEMPORARY"))
        s->sub = SL_DISCARD_TEMP;
    else
        sl_error_set(p->err, SL_ERR_SYNTAX, what.pos, "syntax error at or near \"%.*s\"",
                     what.n, what.z);
    return s;
}

/* ------------------------------------------------------------------------
** Parameters and cursors (PostgreSQL's extended protocol and cursor
** statements).
*/

/* $n: n is at most 65535 as in PostgreSQL (the protocol's limit); larger or
** $0 is 42P02 here, where the position is known. */
sl_expr *sl__param(sl__parse *p, sl__tok t)
{
    sl_expr *e = sl_expr_new(SL_EXPR_PARAM, t.pos);
    int64_t n = 0;
    for (int i = 1; i < t.n && n <= 65535; i++)
        n = n * 10 + (t.z[i] - '0');
    if (n < 1 || n > 65535)
        sl_error_set(p->err, SL_ERR_UNDEFINED_PARAM, t.pos, "there is no parameter %.*s", t.n,
                     t.z);
    e->ival = n;
    return sl__edeep(p, e, 0);
}

sl_stmt *sl__declare(sl__parse *p, sl__tok kw, sl__tok name, int flags, sl_query *q)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_DECLARE_CURSOR, kw);
    sl__stmt_name(p, s, name);
    s->binary = (flags & 1) != 0;
    s->query = q;
    return s;
}

int64_t sl__fetch_count(sl__parse *p, sl__tok n)
{
    int64_t v = 0;
    for (int i = 0; i < n.n; i++) {
        if (n.z[i] < '0' || n.z[i] > '9' || v > (INT64_MAX - 9) / 10) {
            sl_error_set(p->err, SL_ERR_SYNTAX, n.pos, "row count must be a non-negative integer");
            return 0;
        }
        v = v * 10 + (n.z[i] - '0');
    }
    return v;
}

int64_t sl__fetch_backward(sl__parse *p, sl__tok kw)
{
    sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, kw.pos, "cursors can only scan forward");
    sl_error_hint(p->err, "Declare the cursor again to read from the start.");
    return 0;
}

sl_stmt *sl__fetch(sl__parse *p, sl_stmt_kind kind, sl__tok kw, int64_t count, sl__tok name)
{
    sl_stmt *s = sl__stmt_new(kind, kw);
    sl__stmt_name(p, s, name);
    s->count = count;
    return s;
}

sl_stmt *sl__close(sl__parse *p, sl__tok kw, sl__tok name)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_CLOSE_CURSOR, kw);
    if (name.z)
        sl__stmt_name(p, s, name);
    return s;
}

/* ------------------------------------------------------------------------
** Flink SQL client statements: HELP, the one catalog and database (SHOW
** CATALOGS / DATABASES / CURRENT ..., USE), ALTER TABLE ... RENAME TO,
** DESCRIBE EXTENDED, EXPLAIN's details (planner/session_flink.c runs them).
*/

sl_stmt *sl__temp(sl_stmt *s, bool temp)
{
    if (s)
        s->temporary = temp;
    return s;
}

sl_stmt *sl__alter_rename(sl__parse *p, sl__tok kw, sl__tok name, sl__tok to)
{
    sl_stmt *s = sl__stmt_new(SL_STMT_ALTER_RENAME, kw);
    sl__stmt_name(p, s, name);
    s->value = sl__name(p, to);
    s->value_pos = to.pos;
    return s;
}

static void sl__syntax_at(sl__parse *p, sl__tok t)
{
    sl_error_set(p->err, SL_ERR_SYNTAX, t.pos, "syntax error at or near \"%.*s\"", t.n, t.z);
}

sl_stmt *sl__show_current(sl__parse *p, sl__tok kw, sl__tok what)
{
    int show = sl__word_is(what, "CATALOG")    ? SL_SHOW_CURRENT_CATALOG
               : sl__word_is(what, "DATABASE") ? SL_SHOW_CURRENT_DATABASE
                                               : -1;
    if (show < 0) {
        sl__syntax_at(p, what);
        return NULL;
    }
    return sl__show(p, kw, show, SL__NOTOK);
}

sl_stmt *sl__use(sl__parse *p, sl__tok kw, sl__tok word, sl__tok catalog, sl__tok name)
{
    if (word.z && !sl__word_is(word, "CATALOG")) {
        if (!sl__flink_unsupported(p, kw.stmt_pos, word))
            sl__syntax_at(p, name);
        return NULL;
    }
    sl_stmt *s = sl__stmt_new(SL_STMT_USE, kw);
    if (word.z) {
        s->value = sl__name(p, name);
        s->value_pos = name.pos;
        return s;
    }
    sl__stmt_name(p, s, name);
    if (catalog.z) {
        s->value = sl__name(p, catalog);
        s->value_pos = catalog.pos;
    }
    return s;
}

sl_stmt *sl__describe(sl__parse *p, sl__tok kw, sl__tok name, bool extended)
{
    sl_stmt *s = sl__stmt_named(p, SL_STMT_DESCRIBE, kw, name);
    s->sub = extended;
    return s;
}

sl_stmt *sl__explain_details(sl__parse *p, sl__tok kw, int details, sl_stmt *inner)
{
    if (details & SL_EXPLAIN_PLAN_ADVICE) {
        sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, kw.pos, "EXPLAIN PLAN_ADVICE is not supported");
        sl_error_detail(p->err, "Sluice's planner gives no advice on a plan.");
        sl_error_hint(p->err, "EXPLAIN CHANGELOG_MODE shows each operator's changelog mode.");
    }
    sl_stmt *s = sl__explain(p, kw, inner);
    s->sub = details;
    return s;
}

void sl__catalog_name(sl__parse *p, sl__tok c)
{
    char *name = sl__name(p, c);
    if (name && strcmp(name, SL_CATALOG_NAME) != 0 && !sl_error_isset(p->err)) {
        sl_error_set(p->err, SL_ERR_UNDEFINED_DATABASE, c.pos,
                     "a catalog with name [%s] does not exist", name);
        sl_error_hint(p->err, "Sluice has one catalog, " SL_CATALOG_NAME
                              ", with one database, " SL_DATABASE_NAME ".");
    }
    sl_free(name);
}

sl__tok sl__qualified(sl__parse *p, sl__tok c, sl__tok d, sl__tok n)
{
    if (c.z)
        sl__catalog_name(p, c);
    char *db = sl__name(p, d);
    bool pg = db && !c.z && (strcmp(db, "pg_catalog") == 0 || strcmp(db, "information_schema") == 0);
    if (pg && !sl_error_isset(p->err)) /* PostgreSQL's catalog relations: read only */
        sl_error_set(p->err, "42501", d.pos, "permission denied for table %.*s", n.n, n.z);
    /* public: PostgreSQL's name of the one schema (as in FROM) */
    if (db && strcmp(db, SL_DATABASE_NAME) != 0 && (c.z || strcmp(db, "public") != 0) &&
        !sl_error_isset(p->err)) {
        sl_error_set(p->err, SL_ERR_UNDEFINED_DATABASE, d.pos,
                     "a database with name [%s] does not exist in the catalog: [%s]", db,
                     SL_CATALOG_NAME);
        sl_error_hint(p->err, "Sluice has one catalog, " SL_CATALOG_NAME
                              ", with one database, " SL_DATABASE_NAME ".");
    }
    sl_free(db);
    return n;
}
