/*
** bind_expr.c — the expression binder: parser sl_expr -> typed sl_bexpr.
**
** Names resolve against an sl_scope (sl_scope_resolve, PostgreSQL's
** messages and "Perhaps you meant" hints); literals are validated and
** canonicalized (sl_bind_literal: numbers, strings, DATE/TIME/TIMESTAMP,
** INTERVAL); operators and functions are typed with types.c and
** functions.c. The caller's hook sees every node first (aggregates, GROUP BY
** keys); aggregate and window calls it does not take are errors.
**
** Operands keep their own types: the node's type is the result type, and
** the evaluator converts operands (e.g. INT + DECIMAL(10, 2) is a
** DECIMAL(13, 2) node over an INT and a DECIMAL operand; CASE / COALESCE /
** IF branches convert to the node's type). No implicit CAST nodes are added.
** A simple CASE (CASE x WHEN v ...) becomes a searched CASE of x = v tests.
**
** Main routines: sl_bind_expr, sl_bind_condition, sl_bind_literal,
** sl_scope_resolve.
*/
#include "sl_bind.h"

#include "../base/sl_time.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SL__ERR_INVALID_ESCAPE "22025" /* invalid_escape_sequence */

/* Type spelled for a message: without " NOT NULL"; caller frees. */
static char *sl__tstr(sl_type t)
{
    t.not_null = false;
    return sl_type_to_string(t);
}

static sl_type sl__bool(bool not_null)
{
    sl_type t = sl_type_make(SL_TYPE_BOOLEAN);
    t.not_null = not_null;
    return t;
}

/* A CALL node of fn over args[0..n) (takes ownership of the args). */
static sl_bexpr *sl__call(sl_func_id id, sl_type type, int pos, sl_bexpr **args, int n)
{
    sl_bexpr *b = sl_bexpr_new(SL_BX_CALL, type, pos);
    b->fn = sl_func_get(id);
    b->nargs = n;
    if (n > 0) {
        b->args = sl_malloc((size_t)n * sizeof(sl_bexpr *));
        memcpy(b->args, args, (size_t)n * sizeof(sl_bexpr *));
    }
    return b;
}

/* Free args[0..n). */
static void sl__free_args(sl_bexpr **args, int n)
{
    for (int i = 0; i < n; i++)
        sl_bexpr_free(args[i]);
}

/* Position of the operator of e, else of e. */
static int sl__op_pos(const sl_expr *e)
{
    return e->op_pos >= 0 ? e->op_pos : e->pos;
}

/* ========================================================================
** Literals.
*/

/* Whether s[0..n) are all decimal digits (true when n == 0). */
static bool sl__all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Compare two digit strings without leading zeros numerically. */
static int sl__digits_cmp(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b);
    if (na != nb)
        return na < nb ? -1 : 1;
    return strncmp(a, b, na);
}

/* A LITERAL of type t with a copy of text. */
static sl_bexpr *sl__literal(sl_type t, const char *text, int pos)
{
    sl_bexpr *b = sl_bexpr_new(SL_BX_LITERAL, t, pos);
    b->text = sl_strdup(text);
    return b;
}

/* NUMBER literal: INT / BIGINT / DECIMAL(p, 0) / DECIMAL(p, s) / DOUBLE with
** canonical text (leading zeros stripped); 22P02 / 22003 on bad input. */
static sl_bexpr *sl__bind_number(const sl_expr *e, sl_error *err)
{
    const char *s = e->text ? e->text : "";
    size_t n = strlen(s);
    if (strpbrk(s, "eE")) {
        char *end = NULL;
        errno = 0;
        double d = strtod(s, &end);
        if (n == 0 || *end != 0 || !isdigit((unsigned char)s[n - 1])) {
            sl_error_set(err, SL_ERR_INVALID_TEXT, e->pos,
                         "invalid input syntax for type DOUBLE: \"%s\"", s);
            return NULL;
        }
        if (errno == ERANGE && (isinf(d) || d != 0)) {
            sl_error_set(err, SL_ERR_NUMERIC_RANGE, e->pos, "numeric literal %s is out of range for type DOUBLE", s);
            return NULL;
        }
        sl_type t = sl_type_make(SL_TYPE_DOUBLE);
        t.not_null = true;
        return sl__literal(t, s, e->pos);
    }
    const char *dot = strchr(s, '.');
    size_t nint = dot ? (size_t)(dot - s) : n;
    const char *frac = dot ? dot + 1 : s + n;
    size_t nfrac = dot ? strlen(frac) : 0;
    if ((nint == 0 && nfrac == 0) || !sl__all_digits(s, nint) || !sl__all_digits(frac, nfrac)) {
        sl_error_set(err, SL_ERR_INVALID_TEXT, e->pos, "invalid input syntax for type numeric: \"%s\"", s);
        return NULL;
    }
    while (nint > 0 && *s == '0') { /* strip leading zeros */
        s++;
        nint--;
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_type t;
    if (!dot) {
        sl_strbuf_append_n(&sb, nint ? s : "0", nint ? nint : 1);
        if (sl__digits_cmp(s, nint, "2147483647") <= 0) {
            t = sl_type_make(SL_TYPE_INT);
        } else if (sl__digits_cmp(s, nint, "9223372036854775807") <= 0) {
            t = sl_type_make(SL_TYPE_BIGINT);
        } else if (nint <= SL_DECIMAL_MAX_PRECISION) {
            t = sl_type_make_p(SL_TYPE_DECIMAL, (int)nint, 0);
        } else {
            sl_strbuf_free(&sb);
            sl_error_set(err, SL_ERR_NUMERIC_RANGE, e->pos, "numeric literal %s is out of range",
                         e->text);
            sl_error_hint(err, "Integer literals have at most %d digits.", SL_DECIMAL_MAX_PRECISION);
            return NULL;
        }
    } else {
        size_t p = nint + nfrac;
        if (p > SL_DECIMAL_MAX_PRECISION) {
            sl_error_set(err, SL_ERR_NUMERIC_RANGE, e->pos, "numeric literal %s is out of range",
                         e->text);
            sl_error_hint(err, "DECIMAL holds at most %d digits; use an exponent (1.5E40) for DOUBLE.",
                          SL_DECIMAL_MAX_PRECISION);
            return NULL;
        }
        sl_strbuf_append_n(&sb, nint ? s : "0", nint ? nint : 1);
        if (nfrac) {
            sl_strbuf_append_char(&sb, '.');
            sl_strbuf_append_n(&sb, frac, nfrac);
        }
        t = sl_type_make_p(SL_TYPE_DECIMAL, p ? (int)p : 1, (int)nfrac);
    }
    t.not_null = true;
    sl_bexpr *b = sl_bexpr_new(SL_BX_LITERAL, t, e->pos);
    b->text = sl_strbuf_detach(&sb);
    return b;
}

/* Number of UTF-8 characters in s. */
static long sl__utf8_len(const char *s)
{
    long n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

/* ---- date/time text ---- */

typedef struct sl__cursor {
    const char *p; /* next byte */
} sl__cursor;

/* Read 1..maxd digits; false if none. */
static bool sl__read_uint(sl__cursor *c, int maxd, long long *v, int *ndigits)
{
    long long x = 0;
    int d = 0;
    while (isdigit((unsigned char)*c->p) && d < maxd) {
        x = x * 10 + (*c->p - '0');
        c->p++;
        d++;
    }
    if (d == 0 || isdigit((unsigned char)*c->p))
        return false;
    *v = x;
    if (ndigits)
        *ndigits = d;
    return true;
}

/* Consume ch if it is next. */
static bool sl__accept(sl__cursor *c, char ch)
{
    if (*c->p != ch)
        return false;
    c->p++;
    return true;
}

/* Gregorian leap year. */
static bool sl__leap(long long y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days in month m (1..12) of year y. */
static int sl__days_in_month(long long y, long long m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && sl__leap(y) ? 29 : days[m - 1];
}

/* YYYY-M[M]-D[D] with a real calendar date. */
static bool sl__parse_date(sl__cursor *c, sl_strbuf *out)
{
    long long y, m, d;
    int yd;
    if (!sl__read_uint(c, 4, &y, &yd) || yd != 4 || !sl__accept(c, '-') ||
        !sl__read_uint(c, 2, &m, NULL) || !sl__accept(c, '-') || !sl__read_uint(c, 2, &d, NULL))
        return false;
    if (m < 1 || m > 12 || d < 1 || d > sl__days_in_month(y, m)) /* years 0000..9999 */
        return false;
    sl_strbuf_appendf(out, "%04lld-%02lld-%02lld", y, m, d);
    return true;
}

/* H[H]:MM:SS[.f{1,9}]; *precision = number of fraction digits. */
static bool sl__parse_time(sl__cursor *c, sl_strbuf *out, int *precision)
{
    long long h, mi, s, f = 0;
    int fd = 0, md, sd;
    if (!sl__read_uint(c, 2, &h, NULL) || !sl__accept(c, ':') || !sl__read_uint(c, 2, &mi, &md) ||
        md != 2 || !sl__accept(c, ':') || !sl__read_uint(c, 2, &s, &sd) || sd != 2)
        return false;
    if (sl__accept(c, '.') && !sl__read_uint(c, 9, &f, &fd))
        return false;
    if (h > 23 || mi > 59 || s > 59)
        return false;
    sl_strbuf_appendf(out, "%02lld:%02lld:%02lld", h, mi, s);
    if (fd > 0)
        sl_strbuf_appendf(out, ".%0*lld", fd, f);
    *precision = fd;
    return true;
}

/* Skip blanks. */
static const char *sl__skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Whether only blanks remain (consumes them). */
static bool sl__at_end(sl__cursor *c)
{
    c->p = sl__skip_space(c->p);
    return *c->p == 0;
}

/* DATE / TIME / TIMESTAMP / TIMESTAMP_LTZ literal: validated, canonical text,
** precision = fraction digits written; 22007 with the expected form as hint. */
static sl_bexpr *sl__bind_typed(const sl_expr *e, sl_error *err)
{
    const char *text = e->text ? e->text : "";
    sl__cursor c = {sl__skip_space(text)};
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_type t = e->type;
    int prec = 0;
    bool ok;
    const char *what, *expected;
    switch (t.id) {
    case SL_TYPE_DATE:
        what = "date";
        expected = "DATE 'YYYY-MM-DD'";
        ok = sl__parse_date(&c, &sb) && sl__at_end(&c);
        t = sl_type_make(SL_TYPE_DATE);
        break;
    case SL_TYPE_TIME:
        what = "time";
        expected = "TIME 'HH:MM:SS[.fff]'";
        ok = sl__parse_time(&c, &sb, &prec) && sl__at_end(&c);
        t = sl_type_make_p(SL_TYPE_TIME, prec, 0);
        break;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        what = t.id == SL_TYPE_TIMESTAMP ? "timestamp" : "timestamp_ltz";
        expected = t.id == SL_TYPE_TIMESTAMP ? "TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.fffffffff]'"
                                             : "TIMESTAMP_LTZ 'YYYY-MM-DD HH:MM:SS[.fffffffff]'";
        ok = sl__parse_date(&c, &sb);
        if (ok) {
            const char *after = c.p;
            c.p = sl__skip_space(c.p);
            ok = c.p > after;
            sl_strbuf_append_char(&sb, ' ');
        }
        ok = ok && sl__parse_time(&c, &sb, &prec) && sl__at_end(&c);
        t = sl_type_make_p(t.id, prec, 0);
        break;
    default: {
        char *ts = sl__tstr(t);
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, e->pos, "literals of type %s are not supported", ts);
        sl_free(ts);
        sl_strbuf_free(&sb);
        return NULL;
    }
    }
    if (!ok) {
        sl_strbuf_free(&sb);
        sl_error_set(err, SL_ERR_DATETIME_FORMAT, e->pos, "invalid %s literal '%s'", what, text);
        sl_error_hint(err, "Expected %s.", expected);
        return NULL;
    }
    int64_t ns;
    if (sl_type_is_timestamp(t.id) && sl_ts_parse(sb.buf, sb.len, &ns) != 0) {
        /* a real date and time the runtime cannot represent */
        sl_strbuf_free(&sb);
        sl_error_set(err, SL_ERR_DATETIME_OVERFLOW, e->pos, "%s literal '%s' is out of range", what,
                     text);
        sl_error_detail(err,
                        "TIMESTAMP values range from 1677-09-21 00:12:43.145224192 to "
                        "2262-04-11 23:47:16.854775807.");
        return NULL;
    }
    t.not_null = true;
    sl_bexpr *b = sl_bexpr_new(SL_BX_LITERAL, t, e->pos);
    b->text = sl_strbuf_detach(&sb);
    return b;
}

/* ---- intervals ---- */

/* Milliseconds per unit (DAY..MILLISECOND); 0 for YEAR/MONTH. */
static long long sl__unit_ms(int unit)
{
    switch (unit) {
    case SL_UNIT_DAY: return 86400000LL;
    case SL_UNIT_HOUR: return 3600000LL;
    case SL_UNIT_MINUTE: return 60000LL;
    case SL_UNIT_SECOND: return 1000LL;
    case SL_UNIT_MILLISECOND: return 1LL;
    default: return 0;
    }
}

/* The expected text of an interval qualifier, for hints. */
static const char *sl__interval_format(int from, int to)
{
    if (to == SL_UNIT_NONE)
        return from == SL_UNIT_SECOND ? "'n[.fff]'" : "'n'";
    if (from == SL_UNIT_YEAR && to == SL_UNIT_MONTH) return "'Y-M'";
    if (from == SL_UNIT_DAY && to == SL_UNIT_HOUR) return "'D H'";
    if (from == SL_UNIT_DAY && to == SL_UNIT_MINUTE) return "'D H:M'";
    if (from == SL_UNIT_DAY && to == SL_UNIT_SECOND) return "'D H:M:S[.fff]'";
    if (from == SL_UNIT_HOUR && to == SL_UNIT_MINUTE) return "'H:M'";
    if (from == SL_UNIT_HOUR && to == SL_UNIT_SECOND) return "'H:M:S[.fff]'";
    if (from == SL_UNIT_MINUTE && to == SL_UNIT_SECOND) return "'M:S[.fff]'";
    return NULL;
}

/* Separator before the field of unit u in a multi-field interval. */
static char sl__interval_sep(int u)
{
    switch (u) {
    case SL_UNIT_MONTH: return '-';
    case SL_UNIT_HOUR: return ' ';
    default: return ':';
    }
}

/* Upper bound of a non-leading field. */
static long long sl__field_max(int u)
{
    switch (u) {
    case SL_UNIT_MONTH: return 11;
    case SL_UNIT_HOUR: return 23;
    default: return 59;
    }
}

/* INTERVAL literal: fields per qualifier, leading sign allowed, non-leading
** fields range-checked, fractions only on SECOND and exact to milliseconds;
** total in ms (DAY..SECOND) or months (YEAR/MONTH); 22007 on bad text or
** overflow (int64 ms / int32 months). */
static sl_bexpr *sl__bind_interval(const sl_expr *e, sl_error *err)
{
    const char *text = e->text ? e->text : "";
    int from = e->unit, to = e->unit_to;
    const char *format = sl__interval_format(from, to);
    bool ym = from == SL_UNIT_YEAR || from == SL_UNIT_MONTH;
    if (!format || from < SL_UNIT_YEAR || from > SL_UNIT_MILLISECOND ||
        (to != SL_UNIT_NONE && to <= from)) {
        sl_error_set(err, SL_ERR_SYNTAX, e->pos, "invalid interval qualifier %s TO %s",
                     sl_unit_name(from), sl_unit_name(to));
        return NULL;
    }
    sl__cursor c = {sl__skip_space(text)};
    bool neg = false;
    if (sl__accept(&c, '-'))
        neg = true;
    else
        sl__accept(&c, '+');
    int last = to == SL_UNIT_NONE ? from : to;
    long long total = 0; /* ms or months, without sign */
    const long long limit = ym ? 2147483647LL : 9223372036854775807LL;
    bool ok = true, overflow = false, precision_loss = false;
    for (int u = from; u <= last && ok; u++) {
        long long v;
        int nd;
        if (u > from && !sl__accept(&c, sl__interval_sep(u))) {
            ok = false;
            break;
        }
        if (!sl__read_uint(&c, 18, &v, &nd) || (u > from && v > sl__field_max(u))) {
            ok = false;
            break;
        }
        long long mult = ym ? (u == SL_UNIT_YEAR ? 12 : 1) : sl__unit_ms(u);
        if (v > (limit - total) / mult) {
            overflow = true;
            break;
        }
        total += v * mult;
        if (u == SL_UNIT_SECOND && sl__accept(&c, '.')) {
            long long f;
            int fd;
            if (!sl__read_uint(&c, 9, &f, &fd)) {
                ok = false;
                break;
            }
            for (int i = fd; i < 9; i++)
                f *= 10; /* nanoseconds */
            if (f % 1000000 != 0) {
                precision_loss = true;
                break;
            }
            if (f / 1000000 > limit - total) {
                overflow = true;
                break;
            }
            total += f / 1000000;
        }
    }
    if (ok && !overflow && !precision_loss && !sl__at_end(&c))
        ok = false;
    if (overflow) {
        sl_error_set(err, SL_ERR_DATETIME_FORMAT, e->pos, "interval literal '%s' is out of range", text);
        return NULL;
    }
    if (precision_loss) {
        sl_error_set(err, SL_ERR_DATETIME_FORMAT, e->pos,
                     "interval literal '%s' is more precise than milliseconds", text);
        return NULL;
    }
    if (!ok) {
        if (to == SL_UNIT_NONE)
            sl_error_set(err, SL_ERR_DATETIME_FORMAT, e->pos, "invalid interval literal '%s' for %s",
                         text, sl_unit_name(from));
        else
            sl_error_set(err, SL_ERR_DATETIME_FORMAT, e->pos,
                         "invalid interval literal '%s' for %s TO %s", text, sl_unit_name(from),
                         sl_unit_name(to));
        sl_error_hint(err, "Expected %s.", format);
        return NULL;
    }
    sl_type t = sl_type_make(ym ? SL_TYPE_INTERVAL_YM : SL_TYPE_INTERVAL_DT);
    t.not_null = true;
    sl_bexpr *b = sl_bexpr_new(SL_BX_LITERAL, t, e->pos);
    b->text = sl_sprintf("%s%lld", neg && total != 0 ? "-" : "", total);
    return b;
}

sl_bexpr *sl_bind_literal(const sl_expr *e, sl_error *err)
{
    sl_type t;
    switch (e->kind) {
    case SL_EXPR_NULL:
        return sl_bexpr_new(SL_BX_LITERAL, sl_type_make(SL_TYPE_NULL), e->pos);
    case SL_EXPR_BOOL:
        t = sl__bool(true);
        return sl__literal(t, e->ival ? "TRUE" : "FALSE", e->pos);
    case SL_EXPR_NUMBER:
        return sl__bind_number(e, err);
    case SL_EXPR_STRING: {
        const char *s = e->text ? e->text : "";
        long n = sl__utf8_len(s);
        t = n > 0 ? sl_type_make_p(SL_TYPE_CHAR, (int)n, 0) : sl_type_make_p(SL_TYPE_VARCHAR, 1, 0);
        t.not_null = true;
        return sl__literal(t, s, e->pos);
    }
    case SL_EXPR_XSTRING: {
        /* BINARY(n) of its n bytes, as Flink types X'..' (X'' as '' is);
        ** the literal's text stays hex digits: its bytes may hold NUL */
        const char *s = e->text ? e->text : "";
        int n = (int)(strlen(s) / 2);
        t = n > 0 ? sl_type_make_p(SL_TYPE_BINARY, n, 0) : sl_type_make_p(SL_TYPE_VARBINARY, 1, 0);
        t.not_null = true;
        return sl__literal(t, s, e->pos);
    }
    case SL_EXPR_TYPED:
        return sl__bind_typed(e, err);
    case SL_EXPR_INTERVAL:
        return sl__bind_interval(e, err);
    default:
        sl_error_set(err, SL_ERR_INTERNAL, e->pos, "expression is not a literal");
        return NULL;
    }
}

/* ========================================================================
** Names.
*/

int sl_scope_resolve(const sl_scope *scope, const char *qualifier, const char *name, int pos,
                     sl_error *err)
{
    int n = scope ? scope->n : 0;
    int found = -1, matches = 0;
    bool qualifier_seen = false;
    for (int i = 0; i < n; i++) {
        const sl_scope_col *c = &scope->cols[i];
        if (qualifier) {
            if (!c->qualifier || strcmp(c->qualifier, qualifier) != 0)
                continue;
            qualifier_seen = true;
        }
        if (strcmp(c->name, name) == 0) {
            if (found < 0)
                found = i;
            matches++;
        }
    }
    bool lower = true; /* as PostgreSQL folds a name that is not quoted */
    for (const char *p = name; *p; p++)
        lower = lower && !(*p >= 'A' && *p <= 'Z');
    if (matches == 0 && lower) {
        /* a lower-case name none has exactly: the one column whose name is it
        ** in another case (PostgreSQL's clients write AS TABLE_NAME ... ORDER
        ** BY table_name) */
        for (int i = 0; i < n; i++) {
            const sl_scope_col *c = &scope->cols[i];
            if (qualifier && (!c->qualifier || strcmp(c->qualifier, qualifier) != 0))
                continue;
            if (sl_strcasecmp(c->name, name) == 0) {
                if (found < 0)
                    found = i;
                matches++;
            }
        }
    }
    if (matches == 1)
        return found;
    if (matches > 1) {
        if (qualifier)
            sl_error_set(err, SL_ERR_AMBIGUOUS_COLUMN, pos, "column reference \"%s.%s\" is ambiguous",
                         qualifier, name);
        else
            sl_error_set(err, SL_ERR_AMBIGUOUS_COLUMN, pos, "column reference \"%s\" is ambiguous",
                         name);
        return -1;
    }
    if (qualifier && !qualifier_seen) {
        sl_error_set(err, SL_ERR_UNDEFINED_TABLE, pos, "missing FROM-clause entry for table \"%s\"",
                     qualifier);
        return -1;
    }
    /* unknown: suggest the closest column reachable the same way */
    const char **cands = sl_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
    int nc = 0;
    for (int i = 0; i < n; i++) {
        const sl_scope_col *c = &scope->cols[i];
        if (qualifier && (!c->qualifier || strcmp(c->qualifier, qualifier) != 0))
            continue;
        cands[nc++] = c->name;
    }
    const char *best = sl_did_you_mean(name, cands, nc);
    if (qualifier)
        sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, pos, "column %s.%s does not exist", qualifier, name);
    else
        sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, pos, "column \"%s\" does not exist", name);
    if (best) {
        if (qualifier)
            sl_error_hint(err, "Perhaps you meant to reference the column \"%s.%s\".", qualifier, best);
        else
            sl_error_hint(err, "Perhaps you meant to reference the column \"%s\".", best);
    }
    sl_free(cands);
    return -1;
}

/* ========================================================================
** Parameters.
*/

void sl_bind_param_infer(sl_bind_params *params, int64_t n, sl_type t)
{
    if (!params || n < 1 || n > params->n || t.id == SL_TYPE_NULL)
        return;
    sl_type *p = &params->types[n - 1];
    if (p->id != SL_TYPE_NULL)
        return;
    if (sl_type_is_string(t.id))
        t = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    else if (t.id == SL_TYPE_BINARY || t.id == SL_TYPE_VARBINARY)
        t = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    t.not_null = false;
    *p = t;
}

/* $n: a NULL literal of its type (untyped while unknown); the value comes
** later, as a typed literal in its place (sl_session_exec_params). */
static sl_bexpr *sl__bind_param(sl_bind_ctx *ctx, const sl_expr *e)
{
    if (!ctx->params || e->ival < 1 || e->ival > ctx->params->n) {
        sl_error_set(ctx->err, SL_ERR_UNDEFINED_PARAM, e->pos, "there is no parameter $%lld",
                     (long long)e->ival);
        return NULL;
    }
    return sl_bexpr_new(SL_BX_LITERAL, ctx->params->types[e->ival - 1], e->pos);
}

/* x is an untyped $n bound as bx, and its context gives it type t: record
** it and type bx. */
static void sl__param_takes(sl_bind_ctx *ctx, const sl_expr *x, sl_bexpr *bx, sl_type t)
{
    if (!ctx->params || !x || x->kind != SL_EXPR_PARAM || bx->type.id != SL_TYPE_NULL)
        return;
    sl_bind_param_infer(ctx->params, x->ival, t);
    if (x->ival >= 1 && x->ival <= ctx->params->n)
        bx->type = ctx->params->types[x->ival - 1];
}

/* ========================================================================
** Operators and calls.
*/

static sl_bexpr *sl__bind_call(sl_bind_ctx *ctx, const sl_expr *e, const sl_func *f);

/* Move a local error into ctx->err unless one is set there. */
static void sl__take_error(sl_bind_ctx *ctx, sl_error *local)
{
    if (!sl_error_isset(ctx->err) && ctx->err)
        sl_error_move(ctx->err, local);
    else
        sl_error_reset(local);
}

/* Is name a ROW column in scope (its leaves "name.f" are)? qualifier may
** be NULL. */
static bool sl__is_row(const sl_scope *scope, const char *qualifier, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; scope && i < scope->n; i++) {
        const sl_scope_col *c = &scope->cols[i];
        if (qualifier && (!c->qualifier || strcmp(c->qualifier, qualifier) != 0))
            continue;
        if (strncmp(c->name, name, n) == 0 && c->name[n] == '.')
            return true;
    }
    return false;
}

/* A field path that names no leaf: 42703 naming it, with the closest leaf
** of its ROW column (root). */
static void sl__no_field(sl_bind_ctx *ctx, const char *qualifier, const char *root,
                         const char *path, int pos)
{
    sl_error_set(ctx->err, SL_ERR_UNDEFINED_COLUMN, pos, "column \"%s\" does not exist", path);
    int n = ctx->scope ? ctx->scope->n : 0, nc = 0;
    const char **cands = sl_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
    size_t len = strlen(root);
    for (int i = 0; i < n; i++) {
        const sl_scope_col *c = &ctx->scope->cols[i];
        if (qualifier && (!c->qualifier || strcmp(c->qualifier, qualifier) != 0))
            continue;
        if (strncmp(c->name, root, len) == 0 && c->name[len] == '.')
            cands[nc++] = c->name;
    }
    const char *best = sl_did_you_mean(path, cands, nc);
    if (best)
        sl_error_hint(ctx->err, "Perhaps you meant to reference the field \"%s\".", best);
    sl_free(cands);
}

/* A ROW column's leaf "path" (scope name) reached by qualifier (or NULL):
** its index, else -1 (no error). */
static int sl__leaf(sl_bind_ctx *ctx, const char *qualifier, const char *path, int pos)
{
    sl_error local = SL_ERROR_INIT;
    int i = sl_scope_resolve(ctx->scope, qualifier, path, pos, &local);
    if (i < 0 && strcmp(local.sqlstate, SL_ERR_AMBIGUOUS_COLUMN) == 0) {
        sl__take_error(ctx, &local);
        return -2;
    }
    sl_error_reset(&local);
    return i;
}

static sl_bexpr *sl__colref_at(sl_bind_ctx *ctx, int i, int pos)
{
    sl_bexpr *b = sl_bexpr_new(SL_BX_COLUMN, ctx->scope->cols[i].type, pos);
    b->col = i;
    return b;
}

/* A column reference; an unknown unqualified name that is a niladic time
** function (CURRENT_TIMESTAMP written without parentheses) becomes a call.
** q.n is first column n of table q, then field n of ROW column q (as
** Flink); a ROW column itself is no value here (0A000). */
static sl_bexpr *sl__bind_column(sl_bind_ctx *ctx, const sl_expr *e)
{
    sl_error local = SL_ERROR_INIT;
    const char *name = e->text ? e->text : "";
    int i = sl_scope_resolve(ctx->scope, e->qualifier, name, e->pos, &local);
    if (i < 0 && e->qualifier && strcmp(local.sqlstate, SL_ERR_AMBIGUOUS_COLUMN) != 0) {
        char *path = sl_sprintf("%s.%s", e->qualifier, name);
        int k = sl__leaf(ctx, NULL, path, e->pos);
        if (k == -1 && sl__is_row(ctx->scope, NULL, path)) { /* a nested ROW */
            sl_error_reset(&local);
            sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                         "ROW column \"%s\" as a value is not supported here", path);
            sl_error_hint(ctx->err, "Use its fields (%s.field); a select list and INSERT carry "
                                    "a whole ROW column as its fields.", path);
        } else if (k == -1 && sl__is_row(ctx->scope, NULL, e->qualifier)) {
            sl_error_reset(&local);
            sl__no_field(ctx, NULL, e->qualifier, path, e->pos);
        }
        sl_free(path);
        if (k >= 0) {
            sl_error_reset(&local);
            return sl__colref_at(ctx, k, e->pos);
        }
        if (k == -2 || sl_error_isset(ctx->err)) {
            sl_error_reset(&local);
            return NULL;
        }
    }
    if (i < 0 && sl__is_row(ctx->scope, e->qualifier, name)) {
        sl_error_reset(&local);
        sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                     "ROW column \"%s\" as a value is not supported here", name);
        sl_error_hint(ctx->err, "Use its fields (%s.field); a select list and INSERT carry a "
                                "whole ROW column as its fields.", name);
        return NULL;
    }
    if (i < 0) {
        /* CURRENT_TIMESTAMP & co. are written without parentheses */
        const sl_func *f = e->qualifier ? NULL : sl_func_find(name);
        if (f && f->kind == SL_FUNC_SCALAR && f->max_args == 0 && f->id != SL_FN_NOW &&
            f->id != SL_FN_PROCTIME &&
            strcmp(local.sqlstate, SL_ERR_UNDEFINED_COLUMN) == 0) {
            sl_error_reset(&local);
            return sl__bind_call(ctx, e, f);
        }
        sl__take_error(ctx, &local);
        return NULL;
    }
    return sl__colref_at(ctx, i, e->pos);
}

char *sl_expr_field_path(const sl_expr *e, const char **qualifier)
{
    if (e->kind == SL_EXPR_COLUMN) {
        *qualifier = e->qualifier;
        return sl_strdup(e->text ? e->text : "");
    }
    if (e->kind != SL_EXPR_FIELD || !e->left)
        return NULL;
    char *l = sl_expr_field_path(e->left, qualifier);
    if (!l)
        return NULL;
    char *r = sl_sprintf("%s.%s", l, e->text);
    sl_free(l);
    return r;
}

/* x.f, (x).f: a field of a ROW column, a.b.c being first column "b.c" of
** table a, then column "a.b.c" (as Flink resolves it); the column
** "item.col" of a set-returning function's result carried by a subquery
** (bind.c); 42809 for a value that is not one. */
static sl_bexpr *sl__bind_field(sl_bind_ctx *ctx, const sl_expr *e)
{
    const sl_expr *x = e->left;
    const char *qual = NULL;
    char *path = sl_expr_field_path(e, &qual);
    if (path) {
        char *full = qual ? sl_sprintf("%s.%s", qual, path) : NULL;
        int i = qual ? sl__leaf(ctx, qual, path, e->pos) : -1;
        if (i == -1)
            i = sl__leaf(ctx, NULL, full ? full : path, e->pos);
        if (i == -1 && ((qual && sl__is_row(ctx->scope, qual, path)) ||
                        sl__is_row(ctx->scope, NULL, full ? full : path))) {
            sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                         "ROW column \"%s\" as a value is not supported here", path);
            sl_error_hint(ctx->err, "Use its fields (%s.field); a select list and INSERT carry "
                                    "a whole ROW column as its fields.", path);
        } else if (i == -1) {
            /* the ROW column it starts from: q.r (table q) or q (no table q) */
            const char *root_q = NULL;
            char *root = NULL;
            const char *dot = strchr(path, '.');
            char *first = sl_strndup(path, dot ? (size_t)(dot - path) : strlen(path));
            if (qual && sl__is_row(ctx->scope, qual, first)) {
                root_q = qual;
                root = sl_strdup(first);
            } else if (qual && sl__is_row(ctx->scope, NULL, qual)) {
                root = sl_strdup(qual);
            } else if (!qual && sl__is_row(ctx->scope, NULL, first)) {
                root = sl_strdup(first);
            }
            if (root)
                sl__no_field(ctx, root_q, root, root_q ? path : (full ? full : path), e->pos);
            sl_free(root);
            sl_free(first);
        }
        sl_free(full);
        sl_free(path);
        if (i >= 0)
            return sl__colref_at(ctx, i, e->pos);
        if (i == -2 || sl_error_isset(ctx->err))
            return NULL;
    }
    sl_bexpr *v = sl_bind_expr(ctx, x); /* its own error when it does not bind */
    if (!v)
        return NULL;
    char *ts = sl__tstr(v->type);
    sl_error_set(ctx->err, SL_ERR_WRONG_OBJECT_TYPE, e->op_pos >= 0 ? e->op_pos : e->pos,
                 "column notation .%s applied to type %s, which is not a composite type", e->text,
                 ts);
    sl_free(ts);
    sl_bexpr_free(v);
    return NULL;
}

/* 42804 "argument of WHAT must be type BOOLEAN, not type T" unless b is
** BOOLEAN or an untyped NULL (which then becomes a NULL BOOLEAN). */
static int sl__require_bool(sl_bind_ctx *ctx, sl_bexpr *b, const char *what)
{
    if (b->type.id == SL_TYPE_BOOLEAN)
        return 0;
    if (b->type.id == SL_TYPE_NULL) {
        b->type = sl__bool(false);
        return 0;
    }
    char *ts = sl__tstr(b->type);
    sl_error_set(ctx->err, SL_ERR_DATATYPE_MISMATCH, b->pos,
                 "argument of %s must be type BOOLEAN, not type %s", what, ts);
    sl_free(ts);
    return -1;
}

/* 42804 "cannot compare A with B" unless comparable. */
static int sl__require_comparable(sl_bind_ctx *ctx, const sl_bexpr *a, const sl_bexpr *b, int pos)
{
    if (sl_type_comparable(a->type, b->type))
        return 0;
    char *ta = sl__tstr(a->type), *tb = sl__tstr(b->type);
    sl_error_set(ctx->err, SL_ERR_DATATYPE_MISMATCH, pos, "cannot compare %s with %s", ta, tb);
    sl_error_hint(ctx->err, "Use CAST to convert one side.");
    sl_free(ta);
    sl_free(tb);
    return -1;
}

/* PostgreSQL's untyped literal: a string literal compared with a numeric or
** BOOLEAN operand is read as that type (c.oid = '16387'), a CAST of the
** literal; an invalid text is the CAST's error (22P02) at the literal. An
** element of an array (a[i]) is taken so too: arrays are text here and
** their elements untyped (attnum = indkey[i] in psql's queries). */
static void sl__unknown_literal(sl_bexpr **args, sl_error *err)
{
    for (int i = 0; i < 2; i++) {
        sl_bexpr *lit = args[i], *other = args[1 - i];
        bool elem = lit->kind == SL_BX_CALL && lit->fn && lit->fn->id == SL_FN_PG_SUBSCRIPT;
        if (!elem && (lit->kind != SL_BX_LITERAL || !lit->text))
            continue;
        if (!sl_type_is_string(lit->type.id))
            continue;
        sl_type_id to = other->type.id;
        if (!sl_type_is_numeric(to) && to != SL_TYPE_BOOLEAN)
            continue;
        sl_bexpr *c = sl_bexpr_new(SL_BX_CAST, other->type, lit->pos);
        c->type.not_null = lit->type.not_null;
        c->nargs = 1;
        c->args = sl_calloc(1, sizeof(sl_bexpr *));
        c->args[0] = lit;
        args[i] = c;
        (void)err;
        return;
    }
}

/* 42883 "operator does not exist: A op B" (a may be NULL for prefix operators). */
static int sl__no_operator(sl_bind_ctx *ctx, const char *op, const sl_bexpr *a, const sl_bexpr *b,
                           int pos)
{
    char *ta = a ? sl__tstr(a->type) : NULL, *tb = sl__tstr(b->type);
    if (a)
        sl_error_set(ctx->err, SL_ERR_UNDEFINED_FUNCTION, pos, "operator does not exist: %s %s %s", ta,
                     op, tb);
    else
        sl_error_set(ctx->err, SL_ERR_UNDEFINED_FUNCTION, pos, "operator does not exist: %s %s", op, tb);
    bool untyped = (a && a->type.id == SL_TYPE_NULL) || b->type.id == SL_TYPE_NULL;
    if (untyped)
        sl_error_hint(ctx->err, "Use CAST(NULL AS type) to give NULL a type.");
    else
        sl_error_hint(ctx->err, "No operator matches the given argument types. You might need to "
                                "add explicit type casts.");
    sl_free(ta);
    sl_free(tb);
    return -1;
}

/* -x, +x (numeric or interval), NOT x (BOOLEAN). */
/* Bind the operand x of node e; an absent operand is 42601 "missing operand"
** at e. NULL with ctx->err set on error. */
static sl_bexpr *sl__bind_operand(sl_bind_ctx *ctx, const sl_expr *e, const sl_expr *x)
{
    sl_bexpr *a = x ? sl_bind_expr(ctx, x) : NULL;
    if (!a && !sl_error_isset(ctx->err))
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "missing operand");
    return a;
}

static sl_bexpr *sl__bind_unary(sl_bind_ctx *ctx, const sl_expr *e)
{
    sl_bexpr *a = sl__bind_operand(ctx, e, e->left);
    if (!a)
        return NULL;
    switch (e->op) {
    case SL_OP_NOT:
        if (sl__require_bool(ctx, a, "NOT") < 0)
            break;
        return sl__call(SL_FN_NOT, sl__bool(a->type.not_null), e->pos, &a, 1);
    case SL_OP_NEG:
    case SL_OP_PLUS:
        if (!sl_type_is_numeric(a->type.id) && !sl_type_is_interval(a->type.id)) {
            sl__no_operator(ctx, e->op == SL_OP_NEG ? "-" : "+", NULL, a, sl__op_pos(e));
            break;
        }
        if (e->op == SL_OP_PLUS)
            return a;
        return sl__call(SL_FN_NEG, a->type, e->pos, &a, 1);
    default:
        sl_error_set(ctx->err, SL_ERR_INTERNAL, e->pos, "unknown unary operator %d", e->op);
        break;
    }
    sl_bexpr_free(a);
    return NULL;
}

/* Type of a || b: CHAR(n) || CHAR(m) = CHAR(n + m), else VARCHAR(n + m),
** capped at STRING; an untyped NULL side gives STRING. Binary strings (bin)
** the same way: BINARY(n + m), VARBINARY(n + m), BYTES. */
static sl_type sl__concat_type(sl_type a, sl_type b, bool bin)
{
    sl_type r;
    if (a.id == SL_TYPE_NULL || b.id == SL_TYPE_NULL) {
        r = sl_type_make_p(bin ? SL_TYPE_VARBINARY : SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    } else {
        long long n = (long long)a.precision + b.precision;
        if (n > SL_MAX_LENGTH)
            n = SL_MAX_LENGTH;
        sl_type_id fixed = bin ? SL_TYPE_BINARY : SL_TYPE_CHAR;
        bool fix = a.id == fixed && b.id == fixed && n < SL_MAX_LENGTH;
        r = sl_type_make_p(fix ? fixed : bin ? SL_TYPE_VARBINARY : SL_TYPE_VARCHAR, (int)n, 0);
    }
    r.not_null = a.not_null && b.not_null;
    return r;
}

/* Arithmetic, ||, comparisons, AND / OR. Errors point at the operator. */
/* x = ANY (array) / x = SOME (array), as PostgreSQL: an array is its text
** ('{a,b}', syscat.c's array columns); an element equals x when x's text is
** the element's. */
static sl_bexpr *sl__bind_any(sl_bind_ctx *ctx, const sl_expr *e)
{
    if (e->op != SL_OP_EQ) {
        sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, sl__op_pos(e),
                     "only = ANY (array) is supported");
        return NULL;
    }
    sl_bexpr *args[2] = {sl_bind_expr(ctx, e->left), NULL};
    if (!args[0])
        return NULL;
    args[1] = sl_bind_expr(ctx, sl_list_get(e->right->args, 0));
    if (!args[1]) {
        sl_bexpr_free(args[0]);
        return NULL;
    }
    sl_type ta = args[0]->type, tb = args[1]->type;
    if ((!sl_type_is_string(ta.id) && !sl_type_is_integer(ta.id) && ta.id != SL_TYPE_NULL) ||
        (!sl_type_is_string(tb.id) && tb.id != SL_TYPE_NULL)) {
        sl__no_operator(ctx, "= ANY", args[0], args[1], sl__op_pos(e));
        sl__free_args(args, 2);
        return NULL;
    }
    return sl__call(SL_FN_ANY_EQ, sl__bool(false), e->pos, args, 2);
}

static sl_bexpr *sl__bind_binary(sl_bind_ctx *ctx, const sl_expr *e)
{
    if (!e->left || !e->right) {
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "missing operand");
        return NULL;
    }
    if (e->right->kind == SL_EXPR_FUNC && sl_list_len(e->right->args) == 1 && !e->right->over &&
        (sl_strcasecmp(e->right->text, "any") == 0 || sl_strcasecmp(e->right->text, "some") == 0))
        return sl__bind_any(ctx, e);
    sl_bexpr *args[2] = {sl_bind_expr(ctx, e->left), NULL};
    if (!args[0])
        return NULL;
    args[1] = sl_bind_expr(ctx, e->right);
    if (!args[1]) {
        sl_bexpr_free(args[0]);
        return NULL;
    }
    if (e->op == SL_OP_CONCAT) { /* STRING, or BYTES beside bytes */
        sl_type str = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
        sl_type bin = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
        sl__param_takes(ctx, e->left, args[0], sl_type_is_binary(args[1]->type.id) ? bin : str);
        sl__param_takes(ctx, e->right, args[1], sl_type_is_binary(args[0]->type.id) ? bin : str);
    } else if (e->op != SL_OP_AND && e->op != SL_OP_OR) {
        sl__param_takes(ctx, e->left, args[0], args[1]->type);
        sl__param_takes(ctx, e->right, args[1], args[0]->type);
    }
    sl_type ta = args[0]->type, tb = args[1]->type, r;
    int pos = sl__op_pos(e);
    sl_func_id id;
    switch (e->op) {
    case SL_OP_ADD: id = SL_FN_ADD; goto arith;
    case SL_OP_SUB: id = SL_FN_SUB; goto arith;
    case SL_OP_MUL: id = SL_FN_MUL; goto arith;
    case SL_OP_DIV: id = SL_FN_DIV; goto arith;
    case SL_OP_MOD: id = SL_FN_MOD; goto arith;
    arith:
        if (!sl_type_arith(id, ta, tb, &r)) {
            sl__no_operator(ctx, sl_func_get(id)->name, args[0], args[1], pos);
            goto fail;
        }
        return sl__call(id, r, e->pos, args, 2);
    case SL_OP_CONCAT: { /* two strings, or two binary strings (Flink's ||) */
        bool bin = sl_type_is_binary(ta.id) || sl_type_is_binary(tb.id);
        bool (*kind)(sl_type_id) = bin ? sl_type_is_binary : sl_type_is_string;
        if (!(kind(ta.id) || ta.id == SL_TYPE_NULL) || !(kind(tb.id) || tb.id == SL_TYPE_NULL)) {
            sl__no_operator(ctx, "||", args[0], args[1], pos);
            goto fail;
        }
        return sl__call(SL_FN_CONCAT, sl__concat_type(ta, tb, bin), e->pos, args, 2);
    }
    case SL_OP_EQ: id = SL_FN_EQ; goto cmp;
    case SL_OP_NE: id = SL_FN_NE; goto cmp;
    case SL_OP_LT: id = SL_FN_LT; goto cmp;
    case SL_OP_LE: id = SL_FN_LE; goto cmp;
    case SL_OP_GT: id = SL_FN_GT; goto cmp;
    case SL_OP_GE: id = SL_FN_GE; goto cmp;
    case SL_OP_IS_DISTINCT: id = SL_FN_IS_DISTINCT; goto cmp;
    case SL_OP_IS_NOT_DISTINCT: id = SL_FN_IS_NOT_DISTINCT; goto cmp;
    cmp:
        sl__unknown_literal(args, ctx->err);
        if (sl_error_isset(ctx->err) || sl__require_comparable(ctx, args[0], args[1], pos) < 0)
            goto fail;
        if (sl_type_is_composite(ta.id) || sl_type_is_composite(tb.id)) {
            /* ARRAY / MAP: equality only, on values of one type (their bytes) */
            sl_type common;
            if (id != SL_FN_EQ && id != SL_FN_NE && id != SL_FN_IS_DISTINCT &&
                id != SL_FN_IS_NOT_DISTINCT) {
                sl__no_operator(ctx, sl_func_get(id)->name, args[0], args[1], pos);
                goto fail;
            }
            if (!sl_type_equal_ignoring_null(ta, tb) && sl_type_common(ta, tb, &common)) {
                for (int i = 0; i < 2; i++) {
                    if (sl_type_equal_ignoring_null(args[i]->type, common))
                        continue;
                    sl_bexpr *c = sl_bexpr_new(SL_BX_CAST, common, args[i]->pos);
                    c->type.not_null = args[i]->type.not_null;
                    c->nargs = 1;
                    c->args = sl_calloc(1, sizeof(sl_bexpr *));
                    c->args[0] = args[i];
                    args[i] = c;
                }
            }
        }
        /* IS [NOT] DISTINCT FROM is never NULL */
        return sl__call(id,
                        sl__bool((ta.not_null && tb.not_null) || id == SL_FN_IS_DISTINCT ||
                                 id == SL_FN_IS_NOT_DISTINCT),
                        e->pos, args, 2);
    case SL_OP_REGEX: id = SL_FN_REGEX; goto regex;
    case SL_OP_NOT_REGEX: id = SL_FN_NOT_REGEX; goto regex;
    case SL_OP_IREGEX: id = SL_FN_IREGEX; goto regex;
    case SL_OP_NOT_IREGEX: id = SL_FN_NOT_IREGEX; goto regex;
    regex:
        if (!(sl_type_is_string(ta.id) || ta.id == SL_TYPE_NULL) ||
            !(sl_type_is_string(tb.id) || tb.id == SL_TYPE_NULL)) {
            sl__no_operator(ctx, sl_func_get(id)->name, args[0], args[1], pos);
            goto fail;
        }
        return sl__call(id, sl__bool(ta.not_null && tb.not_null), e->pos, args, 2);
    case SL_OP_AND:
    case SL_OP_OR: {
        const char *name = e->op == SL_OP_AND ? "AND" : "OR";
        if (sl__require_bool(ctx, args[0], name) < 0 || sl__require_bool(ctx, args[1], name) < 0)
            goto fail;
        return sl__call(e->op == SL_OP_AND ? SL_FN_AND : SL_FN_OR,
                        sl__bool(ta.not_null && tb.not_null), e->pos, args, 2);
    }
    default:
        sl_error_set(ctx->err, SL_ERR_INTERNAL, e->pos, "unknown binary operator %d", e->op);
        goto fail;
    }
fail:
    sl__free_args(args, 2);
    return NULL;
}

/* x IS [NOT] NULL / TRUE / FALSE / UNKNOWN: BOOLEAN NOT NULL. */
static sl_bexpr *sl__bind_is(sl_bind_ctx *ctx, const sl_expr *e)
{
    sl_bexpr *a = sl__bind_operand(ctx, e, e->left);
    if (!a)
        return NULL;
    sl_func_id id;
    const char *what;
    switch (e->op) {
    case SL_IS_NULL:
        return sl__call(e->negated ? SL_FN_IS_NOT_NULL : SL_FN_IS_NULL, sl__bool(true), e->pos, &a, 1);
    case SL_IS_TRUE:
        id = e->negated ? SL_FN_IS_NOT_TRUE : SL_FN_IS_TRUE;
        what = e->negated ? "IS NOT TRUE" : "IS TRUE";
        break;
    case SL_IS_FALSE:
        id = e->negated ? SL_FN_IS_NOT_FALSE : SL_FN_IS_FALSE;
        what = e->negated ? "IS NOT FALSE" : "IS FALSE";
        break;
    case SL_IS_UNKNOWN: /* for a BOOLEAN, UNKNOWN is NULL */
        id = e->negated ? SL_FN_IS_NOT_NULL : SL_FN_IS_NULL;
        what = e->negated ? "IS NOT UNKNOWN" : "IS UNKNOWN";
        break;
    default:
        sl_error_set(ctx->err, SL_ERR_INTERNAL, e->pos, "unknown IS test %d", e->op);
        sl_bexpr_free(a);
        return NULL;
    }
    if (sl__require_bool(ctx, a, what) < 0) {
        sl_bexpr_free(a);
        return NULL;
    }
    return sl__call(id, sl__bool(true), e->pos, &a, 1);
}

/* Bind e->left followed by the expressions of e->args into a new array of
** 1 + nargs (+ extra NULL slots); NULL on error (nothing leaked). */
static sl_bexpr **sl__bind_left_and_args(sl_bind_ctx *ctx, const sl_expr *e, int *n)
{
    int na = sl_list_len(e->args);
    sl_bexpr **v = sl_calloc((size_t)na + 2, sizeof(sl_bexpr *));
    int k = 0;
    if (!e->left) {
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "missing operand");
        goto fail;
    }
    if (!(v[k++] = sl_bind_expr(ctx, e->left)))
        goto fail;
    for (int i = 0; i < na; i++)
        if (!(v[k++] = sl_bind_expr(ctx, sl_list_get(e->args, i))))
            goto fail;
    *n = k;
    return v;
fail:
    sl__free_args(v, k);
    sl_free(v);
    return NULL;
}

/* x [NOT] BETWEEN lo AND hi, x [NOT] IN (...): args = x, then the others;
** each must be comparable with x. */
static sl_bexpr *sl__bind_between_in(sl_bind_ctx *ctx, const sl_expr *e)
{
    bool between = e->kind == SL_EXPR_BETWEEN;
    int n = 0;
    if (between && sl_list_len(e->args) != 2) {
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "BETWEEN needs two bounds");
        return NULL;
    }
    if (!between && sl_list_len(e->args) < 1) {
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "IN needs at least one value");
        return NULL;
    }
    sl_bexpr **v = sl__bind_left_and_args(ctx, e, &n);
    if (!v)
        return NULL;
    for (int i = 1; i < n; i++) {
        sl__param_takes(ctx, e->left, v[0], v[i]->type);
        sl__param_takes(ctx, sl_list_get(e->args, i - 1), v[i], v[0]->type);
    }
    bool not_null = true;
    for (int i = 0; i < n; i++) {
        if (i > 0 && sl__require_comparable(ctx, v[0], v[i], v[i]->pos) < 0) {
            sl__free_args(v, n);
            sl_free(v);
            return NULL;
        }
        not_null = not_null && v[i]->type.not_null;
    }
    sl_func_id id = between ? (e->negated ? SL_FN_NOT_BETWEEN : SL_FN_BETWEEN)
                            : (e->negated ? SL_FN_NOT_IN : SL_FN_IN);
    sl_bexpr *b = sl__call(id, sl__bool(not_null), e->pos, v, n);
    sl_free(v);
    return b;
}

/* x [NOT] LIKE pattern [ESCAPE e]: all strings; a literal escape must be
** one character. */
static sl_bexpr *sl__bind_like(sl_bind_ctx *ctx, const sl_expr *e)
{
    if (!e->left || !e->right) {
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "missing operand");
        return NULL;
    }
    sl_bexpr *v[3] = {NULL, NULL, NULL};
    int n = 0;
    const sl_expr *esc = sl_list_len(e->args) > 0 ? sl_list_get(e->args, 0) : NULL;
    if (!(v[n++] = sl_bind_expr(ctx, e->left)) || !(v[n++] = sl_bind_expr(ctx, e->right)) ||
        (esc && !(v[n++] = sl_bind_expr(ctx, esc))))
        goto fail;
    for (int i = 0; i < n; i++)
        sl__param_takes(ctx, i == 0 ? e->left : i == 1 ? e->right : esc, v[i],
                        sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0));
    bool not_null = true;
    for (int i = 0; i < n; i++) {
        if (!sl_type_is_string(v[i]->type.id) && v[i]->type.id != SL_TYPE_NULL) {
            if (i < 2) {
                sl__no_operator(ctx, e->negated ? "NOT LIKE" : "LIKE", v[0], v[1], sl__op_pos(e));
            } else {
                char *t = sl__tstr(v[2]->type);
                sl_error_set(ctx->err, SL_ERR_DATATYPE_MISMATCH, v[2]->pos,
                             "argument of ESCAPE must be a string, not type %s", t);
                sl_free(t);
            }
            goto fail;
        }
        not_null = not_null && v[i]->type.not_null;
    }
    if (n == 3 && v[2]->kind == SL_BX_LITERAL && v[2]->text && sl__utf8_len(v[2]->text) != 1) {
        sl_error_set(ctx->err, SL__ERR_INVALID_ESCAPE, v[2]->pos, "invalid escape string");
        sl_error_hint(ctx->err, "Escape string must be one character.");
        goto fail;
    }
    return sl__call(e->negated ? SL_FN_NOT_LIKE : SL_FN_LIKE, sl__bool(not_null), e->pos, v, n);
fail:
    sl__free_args(v, n);
    return NULL;
}

/* CASE: searched as is; simple CASE x WHEN v turns into x = v tests. Result
** type = common type of THEN / ELSE results; NOT NULL only with an ELSE and
** all results NOT NULL. */
static sl_bexpr *sl__bind_case(sl_bind_ctx *ctx, const sl_expr *e)
{
    int npairs = sl_list_len(e->args) / 2;
    if (npairs < 1 || sl_list_len(e->args) % 2 != 0) {
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "CASE needs WHEN ... THEN ... pairs");
        return NULL;
    }
    int cap = npairs * 2 + 1, n = 0;
    sl_bexpr **v = sl_calloc((size_t)cap, sizeof(sl_bexpr *));
    sl_bexpr *subject = NULL;
    sl_type rt = sl_type_make(SL_TYPE_NULL);
    bool not_null = true;
    if (e->left && !(subject = sl_bind_expr(ctx, e->left)))
        goto fail;
    for (int i = 0; i <= npairs; i++) {
        bool is_else = i == npairs;
        if (is_else && !e->right)
            break;
        sl_bexpr *res;
        if (!is_else) {
            const sl_expr *we = sl_list_get(e->args, 2 * i);
            sl_bexpr *w = sl_bind_expr(ctx, we);
            if (!w)
                goto fail;
            if (subject) {
                if (sl__require_comparable(ctx, subject, w, w->pos) < 0) {
                    sl_bexpr_free(w);
                    goto fail;
                }
                sl_bexpr *pair[2] = {sl_bexpr_dup(subject), w};
                w = sl__call(SL_FN_EQ, sl__bool(subject->type.not_null && w->type.not_null), w->pos,
                             pair, 2);
            } else if (sl__require_bool(ctx, w, "CASE/WHEN") < 0) {
                sl_bexpr_free(w);
                goto fail;
            }
            v[n++] = w;
            res = sl_bind_expr(ctx, sl_list_get(e->args, 2 * i + 1));
        } else {
            res = sl_bind_expr(ctx, e->right);
        }
        if (!res)
            goto fail;
        v[n++] = res;
        sl_type prev = rt;
        if (!sl_type_common(rt, res->type, &rt)) {
            char *ta = sl__tstr(prev), *tb = sl__tstr(res->type);
            sl_error_set(ctx->err, SL_ERR_DATATYPE_MISMATCH, res->pos,
                         "CASE types %s and %s cannot be matched", ta, tb);
            sl_free(ta);
            sl_free(tb);
            goto fail;
        }
        not_null = not_null && res->type.not_null;
    }
    if (rt.id == SL_TYPE_NULL) {
        sl_error_set(ctx->err, SL_ERR_DATATYPE_MISMATCH, e->pos,
                     "at least one THEN or ELSE result of CASE must not be NULL");
        sl_error_hint(ctx->err, "Use CAST(NULL AS type) to give the result a type.");
        goto fail;
    }
    rt.not_null = not_null && e->right != NULL;
    sl_bexpr *b = sl_bexpr_new(SL_BX_CASE, rt, e->pos);
    b->args = v;
    b->nargs = n;
    b->has_else = e->right != NULL;
    sl_bexpr_free(subject);
    return b;
fail:
    sl_bexpr_free(subject);
    sl__free_args(v, n);
    sl_free(v);
    return NULL;
}

/* CAST / TRY_CAST: target validated, conversion allowed by
** sl_type_castable (42846 otherwise); TRY_CAST is always nullable. */
static sl_bexpr *sl__bind_cast(sl_bind_ctx *ctx, const sl_expr *e)
{
    sl_bexpr *a = sl__bind_operand(ctx, e, e->left);
    if (!a)
        return NULL;
    sl_type to = e->type;
    if (sl_type_check(to, e->pos, ctx->err) < 0) {
        sl_bexpr_free(a);
        return NULL;
    }
    if (to.id == SL_TYPE_NULL || !sl_type_castable(a->type, to)) {
        char *ta = sl__tstr(a->type), *tb = sl__tstr(to);
        sl_error_set(ctx->err, SL_ERR_CANNOT_COERCE, e->pos, "cannot cast type %s to %s", ta, tb);
        sl_free(ta);
        sl_free(tb);
        sl_bexpr_free(a);
        return NULL;
    }
    bool try_cast = e->ival == 1;
    if (!try_cast) /* CAST($n AS T): $n is a T, as in PostgreSQL */
        sl__param_takes(ctx, e->left, a, to);
    to.not_null = !try_cast && a->type.not_null;
    sl_bexpr *b = sl_bexpr_new(SL_BX_CAST, to, e->pos);
    b->args = sl_malloc(sizeof(sl_bexpr *));
    b->args[0] = a;
    b->nargs = 1;
    b->try_cast = try_cast;
    return b;
}

/* Bind the arguments of a scalar call and type it. e is an SL_EXPR_FUNC
** (or an SL_EXPR_COLUMN naming a niladic function). */
static sl_bexpr *sl__bind_call(sl_bind_ctx *ctx, const sl_expr *e, const sl_func *f)
{
    int n = e->kind == SL_EXPR_FUNC ? sl_list_len(e->args) : 0;
    sl_bexpr **v = sl_calloc((size_t)n + 1, sizeof(sl_bexpr *));
    for (int i = 0; i < n; i++) {
        if (!(v[i] = sl_bind_expr(ctx, sl_list_get(e->args, i)))) {
            sl__free_args(v, i);
            sl_free(v);
            return NULL;
        }
    }
    if (f->id == SL_FN_PG_SUBSCRIPT && n == 2 && sl_type_is_composite(v[0]->type.id))
        f = sl_func_get(SL_FN_ITEM); /* Flink's arr[i], map[key]; else a PostgreSQL text array */
    for (int i = 0; i < n; i++) {
        if (v[i]->kind == SL_BX_LITERAL && v[i]->text && sl_type_is_string(v[i]->type.id) &&
            sl_func_takes_oid(f, i)) {
            sl_bexpr **a = sl_calloc(1, sizeof(sl_bexpr *));
            a[0] = v[i];
            v[i] = sl__call(SL_FN_PG_REGCLASS, sl_type_make(SL_TYPE_BIGINT), v[i]->pos, a, 1);
            sl_free(a);
        }
    }
    sl_type t;
    if (sl_func_scalar_type(f, e->text ? e->text : f->name, v, n, e->pos, &t, ctx->err) < 0) {
        sl__free_args(v, n);
        sl_free(v);
        return NULL;
    }
    if (f->id == SL_FN_IF && v[0]->type.id == SL_TYPE_NULL)
        v[0]->type = sl__bool(false);
    sl_bexpr *b = sl__call(f->id, t, e->pos, v, n);
    sl_free(v);
    return b;
}

/* Upper-case copy of s; caller frees. */
static char *sl__upper(const char *s)
{
    char *u = sl_strdup(s);
    for (char *p = u; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    return u;
}

/* A function call by name: unknown (did-you-mean), aggregates and window
** functions not taken by the hook, misuse of OVER / * / DISTINCT; else a
** scalar call. */
static sl_bexpr *sl__bind_func(sl_bind_ctx *ctx, const sl_expr *e)
{
    const char *name = e->text ? e->text : "";
    const sl_func *f = sl_func_find(name);
    if (!f && sl_strcasecmp(name, "ROW") == 0) {
        sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                     "a ROW constructor is supported only as a select list item");
        sl_error_hint(ctx->err, "ROW values are carried as their fields: ROW(a, b) in a select "
                                "list gives the columns of an INSERT into a ROW column.");
        return NULL;
    }
    if (!f) {
        int nn = 0;
        const char *const *names = sl_func_names(&nn);
        const char *best = sl_did_you_mean(name, names, nn);
        sl_error_set(ctx->err, SL_ERR_UNDEFINED_FUNCTION, e->pos, "function %s does not exist", name);
        if (best)
            sl_error_hint(ctx->err, "Did you mean %s?", best);
        return NULL;
    }
    char *uname = sl__upper(name);
    const char *where = ctx->clause ? ctx->clause : NULL;
    if (e->over) {
        if (f->kind == SL_FUNC_SCALAR) {
            sl_error_set(ctx->err, SL_ERR_WRONG_OBJECT_TYPE, e->pos,
                         "OVER specified, but %s is not a window function nor an aggregate function",
                         uname);
        } else if (where) {
            sl_error_set(ctx->err, SL_ERR_WINDOWING, e->pos, "window functions are not allowed in %s",
                         where);
        } else {
            sl_error_set(ctx->err, SL_ERR_WINDOWING, e->pos, "window functions are not allowed here");
        }
    } else if (f->kind == SL_FUNC_AGGREGATE) {
        if (where)
            sl_error_set(ctx->err, SL_ERR_GROUPING, e->pos, "aggregate functions are not allowed in %s",
                         where);
        else
            sl_error_set(ctx->err, SL_ERR_GROUPING, e->pos, "aggregate functions are not allowed here");
    } else if (f->kind == SL_FUNC_WINDOW) {
        sl_error_set(ctx->err, SL_ERR_WINDOWING, e->pos, "window function %s requires an OVER clause",
                     uname);
    } else if (e->ival == 1) {
        sl_error_set(ctx->err, SL_ERR_WRONG_OBJECT_TYPE, e->pos,
                     "%s(*) specified, but %s is not an aggregate function", uname, uname);
    } else if (e->distinct) {
        sl_error_set(ctx->err, SL_ERR_WRONG_OBJECT_TYPE, e->pos,
                     "DISTINCT specified, but %s is not an aggregate function", uname);
    } else {
        sl_free(uname);
        return sl__bind_call(ctx, e, f);
    }
    sl_free(uname);
    return NULL;
}

sl_bexpr *sl_bind_expr(sl_bind_ctx *ctx, const sl_expr *e)
{
    if (!e) {
        sl_error_set(ctx->err, SL_ERR_INTERNAL, -1, "missing expression");
        return NULL;
    }
    if (ctx->hook) {
        sl_bexpr *out = NULL;
        int r = ctx->hook(ctx, e, &out);
        if (r < 0) {
            if (!sl_error_isset(ctx->err))
                sl_error_set(ctx->err, SL_ERR_INTERNAL, e->pos, "expression hook failed");
            sl_bexpr_free(out);
            return NULL;
        }
        if (r > 0) {
            if (!out)
                sl_error_set(ctx->err, SL_ERR_INTERNAL, e->pos, "expression hook bound nothing");
            return out;
        }
    }
    switch (e->kind) {
    case SL_EXPR_NULL:
    case SL_EXPR_BOOL:
    case SL_EXPR_NUMBER:
    case SL_EXPR_STRING:
    case SL_EXPR_XSTRING:
    case SL_EXPR_TYPED:
    case SL_EXPR_INTERVAL:
        return sl_bind_literal(e, ctx->err);
    case SL_EXPR_COLUMN:
        return sl__bind_column(ctx, e);
    case SL_EXPR_STAR:
        sl_error_set(ctx->err, SL_ERR_SYNTAX, e->pos, "* is not allowed here");
        sl_error_hint(ctx->err, "* may only appear in a select list or as COUNT(*).");
        return NULL;
    case SL_EXPR_UNARY:
        return sl__bind_unary(ctx, e);
    case SL_EXPR_BINARY:
        return sl__bind_binary(ctx, e);
    case SL_EXPR_IS:
        return sl__bind_is(ctx, e);
    case SL_EXPR_BETWEEN:
    case SL_EXPR_IN:
        if (e->query) {
            sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                         "IN (subquery) is supported only as a condition of WHERE AND-ed with "
                         "the others");
            return NULL;
        }
        return sl__bind_between_in(ctx, e);
    case SL_EXPR_EXISTS:
        sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                     "EXISTS is supported only as a condition of WHERE AND-ed with the others");
        return NULL;
    case SL_EXPR_LIKE:
        return sl__bind_like(ctx, e);
    case SL_EXPR_CASE:
        return sl__bind_case(ctx, e);
    case SL_EXPR_CAST:
        return sl__bind_cast(ctx, e);
    case SL_EXPR_FUNC:
        if (e->filter) { /* an aggregate's FILTER is the aggregation's (bind.c) */
            const sl_func *f = sl_func_find(e->text);
            if (!f || f->kind != SL_FUNC_AGGREGATE) {
                sl_error_set(ctx->err, SL_ERR_WRONG_OBJECT_TYPE, e->pos,
                             "FILTER specified, but %s is not an aggregate function", e->text);
                return NULL;
            }
        }
        if (!e->over && sl_srf_find(e->text) >= 0) { /* a select list's are bind.c's */
            sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                         "set-returning functions are not allowed in %s",
                         ctx->clause ? ctx->clause : "this place");
            return NULL;
        }
        return sl__bind_func(ctx, e);
    case SL_EXPR_FIELD:
        return sl__bind_field(ctx, e);
    case SL_EXPR_PARAM:
        return sl__bind_param(ctx, e);
    case SL_EXPR_SUBQUERY:
        sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                     "a subquery is supported only in a select list or WHERE");
        return NULL;
    }
    sl_error_set(ctx->err, SL_ERR_INTERNAL, e->pos, "unknown expression kind %d", (int)e->kind);
    return NULL;
}

int sl_bind_condition(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out)
{
    *out = NULL;
    sl_bexpr *b = sl_bind_expr(ctx, e);
    if (!b)
        return -1;
    if (b->type.id == SL_TYPE_NULL) {
        b->type = sl__bool(false);
    } else if (b->type.id != SL_TYPE_BOOLEAN) {
        char *ts = sl__tstr(b->type);
        sl_error_set(ctx->err, SL_ERR_DATATYPE_MISMATCH, e->pos,
                     "argument of %s must be type BOOLEAN, not type %s",
                     ctx->clause ? ctx->clause : "condition", ts);
        sl_free(ts);
        sl_bexpr_free(b);
        return -1;
    }
    *out = b;
    return 0;
}
