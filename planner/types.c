/*
** types.c — Flink's type rules for expressions: common types (CASE,
** COALESCE, UNION), implicit assignment (INSERT), arithmetic result types
** (incl. DECIMAL precision/scale), comparability and CAST validity.
**
** Rules follow Flink's LogicalTypeMerging / LogicalTypeCasts where Sluice
** runs the type; the simplifications are documented at each routine in
** sl_bind.h.
**
** Main routines: sl_type_common, sl_type_assignable, sl_type_arith,
** sl_type_comparable, sl_type_castable.
*/
#include "sl_bind.h"

/* Numeric rank for widening: TINYINT < SMALLINT < INT < BIGINT < DECIMAL <
** FLOAT < DOUBLE (the order of sl_type_id already). */
static int sl__rank(sl_type_id id)
{
    return (int)id;
}

/* An integer type seen as a DECIMAL (Flink: TINYINT = DECIMAL(3, 0) ...);
** DECIMAL unchanged. */
static sl_type sl__as_decimal(sl_type t)
{
    switch (t.id) {
    case SL_TYPE_TINYINT: return sl_type_make_p(SL_TYPE_DECIMAL, 3, 0);
    case SL_TYPE_SMALLINT: return sl_type_make_p(SL_TYPE_DECIMAL, 5, 0);
    case SL_TYPE_INT: return sl_type_make_p(SL_TYPE_DECIMAL, 10, 0);
    case SL_TYPE_BIGINT: return sl_type_make_p(SL_TYPE_DECIMAL, 19, 0);
    default: return t;
    }
}

/* max / min of two ints. */
static int sl__max(int a, int b) { return a > b ? a : b; }
static int sl__min(int a, int b) { return a < b ? a : b; }

/* Flink's adjustPrecisionScale: a DECIMAL wider than 38 keeps its integer
** digits and gives up fraction digits, down to min(scale, 6). */
static sl_type sl__decimal(int precision, int scale)
{
    if (precision > SL_DECIMAL_MAX_PRECISION) {
        int int_digits = precision - scale;
        int min_scale = sl__min(scale, 6);
        scale = sl__max(SL_DECIMAL_MAX_PRECISION - int_digits, min_scale);
        precision = SL_DECIMAL_MAX_PRECISION;
    }
    if (scale > precision)
        scale = precision;
    if (precision < 1)
        precision = 1;
    return sl_type_make_p(SL_TYPE_DECIMAL, precision, scale);
}

/* Common numeric type of two numeric types (ignoring nullability). */
static sl_type sl__common_numeric(sl_type a, sl_type b)
{
    if (a.id == SL_TYPE_DOUBLE || b.id == SL_TYPE_DOUBLE)
        return sl_type_make(SL_TYPE_DOUBLE);
    if (a.id == SL_TYPE_FLOAT || b.id == SL_TYPE_FLOAT) {
        if (a.id == SL_TYPE_DECIMAL || b.id == SL_TYPE_DECIMAL)
            return sl_type_make(SL_TYPE_DOUBLE);
        return sl_type_make(SL_TYPE_FLOAT);
    }
    if (a.id == SL_TYPE_DECIMAL || b.id == SL_TYPE_DECIMAL) {
        sl_type da = sl__as_decimal(a), db = sl__as_decimal(b);
        int scale = sl__max(da.scale, db.scale);
        int int_digits = sl__max(da.precision - da.scale, db.precision - db.scale);
        return sl__decimal(int_digits + scale, scale);
    }
    return sl_type_make(sl__rank(a.id) >= sl__rank(b.id) ? a.id : b.id);
}

bool sl_type_common(sl_type a, sl_type b, sl_type *out)
{
    bool not_null = a.not_null && b.not_null;
    sl_type r;
    if (a.id == SL_TYPE_NULL && b.id == SL_TYPE_NULL) {
        r = a;
    } else if (a.id == SL_TYPE_NULL) {
        r = b;
    } else if (b.id == SL_TYPE_NULL) {
        r = a;
    } else if (sl_type_is_numeric(a.id) && sl_type_is_numeric(b.id)) {
        r = sl__common_numeric(a, b);
    } else if (sl_type_is_string(a.id) && sl_type_is_string(b.id)) {
        if (a.id == SL_TYPE_CHAR && b.id == SL_TYPE_CHAR && a.precision == b.precision)
            r = a;
        else
            r = sl_type_make_p(SL_TYPE_VARCHAR, sl__max(a.precision, b.precision), 0);
    } else if (sl_type_is_binary(a.id) && sl_type_is_binary(b.id)) {
        if (a.id == SL_TYPE_BINARY && b.id == SL_TYPE_BINARY && a.precision == b.precision)
            r = a;
        else
            r = sl_type_make_p(SL_TYPE_VARBINARY, sl__max(a.precision, b.precision), 0);
    } else if (a.id == b.id && (a.id == SL_TYPE_TIME || sl_type_is_timestamp(a.id))) {
        r = sl_type_make_p(a.id, sl__max(a.precision, b.precision), 0);
    } else if ((a.id == SL_TYPE_DATE && sl_type_is_timestamp(b.id)) ||
               (b.id == SL_TYPE_DATE && sl_type_is_timestamp(a.id))) {
        r = a.id == SL_TYPE_DATE ? b : a;
    } else if (a.id == SL_TYPE_ARRAY && b.id == SL_TYPE_ARRAY) {
        sl_type e;
        if (!sl_type_common(sl_type_elem(a), sl_type_elem(b), &e))
            return false;
        r = sl_type_array_of(e);
    } else if (a.id == SL_TYPE_MAP && b.id == SL_TYPE_MAP) {
        sl_type k, v;
        if (!sl_type_common(sl_type_key(a), sl_type_key(b), &k) ||
            !sl_type_common(sl_type_value(a), sl_type_value(b), &v))
            return false;
        r = sl_type_map_of(k, v);
    } else if (a.id == b.id) {
        /* BOOLEAN, DATE, intervals */
        r = a;
        if (a.id == SL_TYPE_INTERVAL_DT)
            r.precision = sl__max(a.precision, b.precision);
    } else {
        return false;
    }
    r.not_null = not_null;
    *out = r;
    return true;
}

bool sl_type_assignable(sl_type from, sl_type to)
{
    if (from.id == SL_TYPE_NULL)
        return true;
    if (from.id == SL_TYPE_ARRAY && to.id == SL_TYPE_ARRAY)
        return sl_type_assignable(sl_type_elem(from), sl_type_elem(to));
    if (from.id == SL_TYPE_MAP && to.id == SL_TYPE_MAP)
        return sl_type_assignable(sl_type_key(from), sl_type_key(to)) &&
               sl_type_assignable(sl_type_value(from), sl_type_value(to));
    if (sl_type_is_numeric(from.id) && sl_type_is_numeric(to.id)) {
        if (sl_type_is_integer(from.id))
            return !sl_type_is_integer(to.id) || sl__rank(to.id) >= sl__rank(from.id);
        if (from.id == SL_TYPE_DECIMAL)
            return to.id == SL_TYPE_DECIMAL || to.id == SL_TYPE_FLOAT || to.id == SL_TYPE_DOUBLE;
        if (from.id == SL_TYPE_FLOAT)
            return to.id == SL_TYPE_FLOAT || to.id == SL_TYPE_DOUBLE;
        return to.id == SL_TYPE_DOUBLE;
    }
    if (sl_type_is_string(from.id) && sl_type_is_string(to.id))
        return true;
    if (sl_type_is_binary(from.id) && sl_type_is_binary(to.id))
        return true;
    if (sl_type_is_timestamp(to.id))
        return sl_type_is_timestamp(from.id) || from.id == SL_TYPE_DATE;
    return from.id == to.id;
}

/* Whether t is an untyped NULL. */
static bool sl__is_null(sl_type t)
{
    return t.id == SL_TYPE_NULL;
}

/* Temporal +/- interval: the temporal type, or false. */
static bool sl__datetime_plus(sl_type dt, sl_type iv, sl_type *out)
{
    if (!sl_type_is_interval(iv.id))
        return false;
    if (sl_type_is_timestamp(dt.id) || dt.id == SL_TYPE_DATE ||
        (dt.id == SL_TYPE_TIME && iv.id == SL_TYPE_INTERVAL_DT)) {
        *out = dt;
        return true;
    }
    return false;
}

bool sl_type_arith(sl_func_id op, sl_type a, sl_type b, sl_type *out)
{
    bool not_null = a.not_null && b.not_null;
    sl_type r;
    if (sl__is_null(a) && sl__is_null(b))
        return false;
    if (sl__is_null(a))
        a = b;
    if (sl__is_null(b))
        b = a;

    if (sl_type_is_numeric(a.id) && sl_type_is_numeric(b.id)) {
        bool dec = a.id == SL_TYPE_DECIMAL || b.id == SL_TYPE_DECIMAL;
        bool approx = a.id == SL_TYPE_FLOAT || a.id == SL_TYPE_DOUBLE || b.id == SL_TYPE_FLOAT ||
                      b.id == SL_TYPE_DOUBLE;
        if (approx || !dec) {
            if (op == SL_FN_MOD && !approx)
                r = sl_type_make(b.id); /* Flink: MOD takes the type of the divisor */
            else
                r = sl__common_numeric(a, b);
        } else {
            sl_type da = sl__as_decimal(a), db = sl__as_decimal(b);
            int p1 = da.precision, s1 = da.scale, p2 = db.precision, s2 = db.scale;
            switch (op) {
            case SL_FN_ADD:
            case SL_FN_SUB: {
                int s = sl__max(s1, s2);
                r = sl__decimal(sl__max(p1 - s1, p2 - s2) + s + 1, s);
                break;
            }
            case SL_FN_MUL: r = sl__decimal(p1 + p2, s1 + s2); break;
            case SL_FN_DIV: {
                int s = sl__max(6, s1 + p2 + 1);
                r = sl__decimal(p1 - s1 + s2 + s, s);
                break;
            }
            case SL_FN_MOD: {
                int s = sl__max(s1, s2);
                r = sl__decimal(sl__min(p1 - s1, p2 - s2) + s, s);
                break;
            }
            default: return false;
            }
        }
    } else if (op == SL_FN_ADD || op == SL_FN_SUB) {
        if (sl_type_is_interval(a.id) && a.id == b.id) {
            r = a;
            if (a.id == SL_TYPE_INTERVAL_DT)
                r.precision = sl__max(a.precision, b.precision);
        } else if (sl__datetime_plus(a, b, &r)) {
            /* temporal +/- interval */
        } else if (op == SL_FN_ADD && sl__datetime_plus(b, a, &r)) {
            /* interval + temporal */
        } else {
            return false;
        }
    } else if (op == SL_FN_MUL && sl_type_is_interval(a.id) && sl_type_is_numeric(b.id)) {
        r = a;
    } else if (op == SL_FN_MUL && sl_type_is_interval(b.id) && sl_type_is_numeric(a.id)) {
        r = b;
    } else if (op == SL_FN_DIV && sl_type_is_interval(a.id) && sl_type_is_numeric(b.id)) {
        r = a;
    } else {
        return false;
    }
    r.not_null = not_null;
    *out = r;
    return true;
}

bool sl_type_comparable(sl_type a, sl_type b)
{
    if (sl__is_null(a) || sl__is_null(b))
        return true;
    if (sl_type_is_numeric(a.id) && sl_type_is_numeric(b.id))
        return true;
    if (sl_type_is_string(a.id) && sl_type_is_string(b.id))
        return true;
    if (sl_type_is_binary(a.id) && sl_type_is_binary(b.id))
        return true;
    if (a.id == SL_TYPE_ARRAY && b.id == SL_TYPE_ARRAY)
        return sl_type_comparable(sl_type_elem(a), sl_type_elem(b));
    if (a.id == SL_TYPE_MAP && b.id == SL_TYPE_MAP)
        return sl_type_comparable(sl_type_key(a), sl_type_key(b)) &&
               sl_type_comparable(sl_type_value(a), sl_type_value(b));
    return a.id == b.id; /* BOOLEAN, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, intervals */
}

bool sl_type_castable(sl_type from, sl_type to)
{
    sl_type_id f = from.id, t = to.id;
    if (f == SL_TYPE_ARRAY && t == SL_TYPE_ARRAY) /* element by element */
        return sl_type_castable(sl_type_elem(from), sl_type_elem(to));
    if (f == SL_TYPE_MAP && t == SL_TYPE_MAP)
        return sl_type_castable(sl_type_key(from), sl_type_key(to)) &&
               sl_type_castable(sl_type_value(from), sl_type_value(to));
    if (sl_type_is_composite(f) && sl_type_is_string(t))
        return true; /* Flink's text: [1, 2], {a=1, b=2} */
    if (sl_type_is_composite(f) || sl_type_is_composite(t))
        return f == SL_TYPE_NULL;
    if (f == SL_TYPE_NULL || f == t)
        return true;
    bool fnum = sl_type_is_numeric(f), tnum = sl_type_is_numeric(t);
    bool fstr = sl_type_is_string(f), tstr = sl_type_is_string(t);
    if ((fnum || f == SL_TYPE_BOOLEAN || fstr) && (tnum || t == SL_TYPE_BOOLEAN || tstr))
        return true; /* numeric, BOOLEAN and strings among each other */
    if ((fstr && sl_type_is_temporal(t)) || (sl_type_is_temporal(f) && tstr))
        return true;
    bool fdt = f == SL_TYPE_DATE || sl_type_is_timestamp(f);
    bool tdt = t == SL_TYPE_DATE || sl_type_is_timestamp(t);
    if (fdt && tdt)
        return true;
    if (sl_type_is_timestamp(f) && t == SL_TYPE_TIME)
        return true;
    if ((fstr && sl_type_is_binary(t)) || (sl_type_is_binary(f) && tstr) ||
        (sl_type_is_binary(f) && sl_type_is_binary(t)))
        return true;
    if (sl_type_is_interval(f) && tstr)
        return true;
    return false;
}
