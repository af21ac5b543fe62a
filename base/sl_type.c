/*
** sl_type.c — SQL data types: construction with Flink's defaults, range
** checks, Flink's spelling, predicates, and how a value fits a length
** (sl_type_fit: CAST and the sinks' length enforcer), the interned table
** of ARRAY / MAP element types; see sl_type.h.
*/
#include "sl_type.h"

#include <pthread.h>

/* ------------------------------------------------------------------------
** Composite types: entry i is ARRAY<a> (map false) or MAP<a, b>. Grow-only:
** an index once handed out stays valid for the life of the process.
*/
typedef struct sl__composite {
    bool map;
    sl_type a, b;
} sl__composite;

static pthread_mutex_t sl__comp_mu = PTHREAD_MUTEX_INITIALIZER;
static sl__composite *sl__comp;
static int sl__ncomp, sl__capcomp;

static int sl__intern(bool map, sl_type a, sl_type b)
{
    pthread_mutex_lock(&sl__comp_mu);
    int i;
    for (i = 0; i < sl__ncomp; i++)
        if (sl__comp[i].map == map && sl_type_equal(sl__comp[i].a, a) &&
            (!map || sl_type_equal(sl__comp[i].b, b)))
            break;
    if (i == sl__ncomp) {
        if (sl__ncomp == sl__capcomp) {
            sl__capcomp = sl__capcomp ? 2 * sl__capcomp : 16;
            sl__comp = sl_realloc(sl__comp, (size_t)sl__capcomp * sizeof *sl__comp);
        }
        sl__comp[i] = (sl__composite){map, a, map ? b : sl_type_make(SL_TYPE_NULL)};
        sl__ncomp++;
    }
    pthread_mutex_unlock(&sl__comp_mu);
    return i;
}

static sl__composite sl__entry(sl_type t)
{
    sl__composite e = {false, sl_type_make(SL_TYPE_NULL), sl_type_make(SL_TYPE_NULL)};
    if (!sl_type_is_composite(t.id))
        return e;
    pthread_mutex_lock(&sl__comp_mu);
    if (t.precision >= 0 && t.precision < sl__ncomp)
        e = sl__comp[t.precision];
    pthread_mutex_unlock(&sl__comp_mu);
    return e;
}

sl_type sl_type_array_of(sl_type elem)
{
    return sl_type_make_p(SL_TYPE_ARRAY, sl__intern(false, elem, elem), 0);
}

sl_type sl_type_map_of(sl_type key, sl_type value)
{
    return sl_type_make_p(SL_TYPE_MAP, sl__intern(true, key, value), 0);
}

sl_type sl_type_elem(sl_type t)
{
    return t.id == SL_TYPE_ARRAY ? sl__entry(t).a : sl_type_make(SL_TYPE_NULL);
}

sl_type sl_type_key(sl_type t)
{
    return t.id == SL_TYPE_MAP ? sl__entry(t).a : sl_type_make(SL_TYPE_NULL);
}

sl_type sl_type_value(sl_type t)
{
    return t.id == SL_TYPE_MAP ? sl__entry(t).b : sl_type_make(SL_TYPE_NULL);
}

bool sl_type_is_composite(sl_type_id id)
{
    return id == SL_TYPE_ARRAY || id == SL_TYPE_MAP;
}

sl_type sl_type_make_p(sl_type_id id, int precision, int scale)
{
    sl_type t = {id, precision, scale, false};
    return t;
}

sl_type sl_type_make(sl_type_id id)
{
    switch (id) {
    case SL_TYPE_DECIMAL:
        return sl_type_make_p(id, 10, 0);
    case SL_TYPE_CHAR:
    case SL_TYPE_BINARY:
        return sl_type_make_p(id, 1, 0);
    case SL_TYPE_VARCHAR: /* a bare VARCHAR is STRING, VARBINARY is BYTES */
    case SL_TYPE_VARBINARY:
        return sl_type_make_p(id, SL_MAX_LENGTH, 0);
    case SL_TYPE_TIME:
        return sl_type_make_p(id, 0, 0);
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        return sl_type_make_p(id, 6, 0);
    case SL_TYPE_INTERVAL_DT:
        return sl_type_make_p(id, 3, 0);
    default:
        return sl_type_make_p(id, 0, 0);
    }
}

size_t sl_type_fit(sl_type t, const char *p, size_t len, size_t *keep)
{
    *keep = len;
    bool chars = t.id == SL_TYPE_CHAR || t.id == SL_TYPE_VARCHAR;
    bool fixed = t.id == SL_TYPE_CHAR || t.id == SL_TYPE_BINARY;
    if ((!chars && !sl_type_is_binary(t.id)) || t.precision < 0 || t.precision >= SL_MAX_LENGTH)
        return 0;
    size_t n = (size_t)t.precision;
    if (len <= n && !fixed) /* no more units than bytes */
        return 0;
    size_t units = len;
    if (chars) {
        size_t k = sl_utf8_skip(p, len, n);
        if (k < len) {
            *keep = k;
            return 0;
        }
        units = sl_utf8_count(p, len);
    } else if (len > n) {
        *keep = n;
        return 0;
    }
    return fixed && units < n ? n - units : 0;
}

void sl_type_format(sl_strbuf *sb, sl_type t)
{
    switch (t.id) {
    case SL_TYPE_NULL: sl_strbuf_append(sb, "NULL"); break;
    case SL_TYPE_BOOLEAN: sl_strbuf_append(sb, "BOOLEAN"); break;
    case SL_TYPE_TINYINT: sl_strbuf_append(sb, "TINYINT"); break;
    case SL_TYPE_SMALLINT: sl_strbuf_append(sb, "SMALLINT"); break;
    case SL_TYPE_INT: sl_strbuf_append(sb, "INT"); break;
    case SL_TYPE_BIGINT: sl_strbuf_append(sb, "BIGINT"); break;
    case SL_TYPE_FLOAT: sl_strbuf_append(sb, "FLOAT"); break;
    case SL_TYPE_DOUBLE: sl_strbuf_append(sb, "DOUBLE"); break;
    case SL_TYPE_DECIMAL: sl_strbuf_appendf(sb, "DECIMAL(%d, %d)", t.precision, t.scale); break;
    case SL_TYPE_CHAR: sl_strbuf_appendf(sb, "CHAR(%d)", t.precision); break;
    case SL_TYPE_VARCHAR:
        if (t.precision == SL_MAX_LENGTH)
            sl_strbuf_append(sb, "STRING");
        else
            sl_strbuf_appendf(sb, "VARCHAR(%d)", t.precision);
        break;
    case SL_TYPE_BINARY: sl_strbuf_appendf(sb, "BINARY(%d)", t.precision); break;
    case SL_TYPE_VARBINARY:
        if (t.precision == SL_MAX_LENGTH)
            sl_strbuf_append(sb, "BYTES");
        else
            sl_strbuf_appendf(sb, "VARBINARY(%d)", t.precision);
        break;
    case SL_TYPE_DATE: sl_strbuf_append(sb, "DATE"); break;
    case SL_TYPE_TIME: sl_strbuf_appendf(sb, "TIME(%d)", t.precision); break;
    case SL_TYPE_TIMESTAMP: sl_strbuf_appendf(sb, "TIMESTAMP(%d)", t.precision); break;
    case SL_TYPE_TIMESTAMP_LTZ: sl_strbuf_appendf(sb, "TIMESTAMP_LTZ(%d)", t.precision); break;
    case SL_TYPE_INTERVAL_DT: sl_strbuf_appendf(sb, "INTERVAL SECOND(%d)", t.precision); break;
    case SL_TYPE_INTERVAL_YM: sl_strbuf_append(sb, "INTERVAL MONTH"); break;
    case SL_TYPE_ROW: sl_strbuf_append(sb, "ROW"); break; /* fields: sl_row_format */
    case SL_TYPE_ARRAY:
        sl_strbuf_append(sb, "ARRAY<");
        sl_type_format(sb, sl_type_elem(t));
        sl_strbuf_append_char(sb, '>');
        break;
    case SL_TYPE_MAP:
        sl_strbuf_append(sb, "MAP<");
        sl_type_format(sb, sl_type_key(t));
        sl_strbuf_append(sb, ", ");
        sl_type_format(sb, sl_type_value(t));
        sl_strbuf_append_char(sb, '>');
        break;
    default: sl_strbuf_append(sb, "?"); break;
    }
    if (t.not_null)
        sl_strbuf_append(sb, " NOT NULL");
}

char *sl_type_to_string(sl_type t)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_type_format(&sb, t);
    return sl_strbuf_detach(&sb);
}

int sl_type_check(sl_type t, int position, sl_error *err)
{
    switch (t.id) {
    case SL_TYPE_DECIMAL:
        if (t.precision < 1 || t.precision > SL_DECIMAL_MAX_PRECISION)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, position,
                                "DECIMAL precision %d must be between 1 and %d", t.precision,
                                SL_DECIMAL_MAX_PRECISION);
        if (t.scale < 0 || t.scale > t.precision)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, position,
                                "DECIMAL scale %d must be between 0 and precision %d", t.scale,
                                t.precision);
        return 0;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        if (t.precision < 1)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, position,
                                "length for type %s must be at least 1",
                                sl_type_is_string(t.id) ? (t.id == SL_TYPE_CHAR ? "CHAR" : "VARCHAR")
                                                        : (t.id == SL_TYPE_BINARY ? "BINARY" : "VARBINARY"));
        return 0;
    case SL_TYPE_TIME:
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        if (t.precision < 0 || t.precision > SL_TIME_MAX_PRECISION)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, position,
                                "%s precision %d must be between 0 and %d",
                                t.id == SL_TYPE_TIME ? "TIME"
                                : t.id == SL_TYPE_TIMESTAMP ? "TIMESTAMP" : "TIMESTAMP_LTZ",
                                t.precision, SL_TIME_MAX_PRECISION);
        return 0;
    default:
        return 0;
    }
}

bool sl_type_equal_ignoring_null(sl_type a, sl_type b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale;
}

bool sl_type_equal(sl_type a, sl_type b)
{
    return sl_type_equal_ignoring_null(a, b) && a.not_null == b.not_null;
}

bool sl_type_is_integer(sl_type_id id)
{
    return id >= SL_TYPE_TINYINT && id <= SL_TYPE_BIGINT;
}

bool sl_type_is_numeric(sl_type_id id)
{
    return id >= SL_TYPE_TINYINT && id <= SL_TYPE_DECIMAL;
}

bool sl_type_is_string(sl_type_id id)
{
    return id == SL_TYPE_CHAR || id == SL_TYPE_VARCHAR;
}

bool sl_type_is_binary(sl_type_id id)
{
    return id == SL_TYPE_BINARY || id == SL_TYPE_VARBINARY;
}

bool sl_type_is_temporal(sl_type_id id)
{
    return id == SL_TYPE_DATE || id == SL_TYPE_TIME || id == SL_TYPE_TIMESTAMP ||
           id == SL_TYPE_TIMESTAMP_LTZ;
}

bool sl_type_is_timestamp(sl_type_id id)
{
    return id == SL_TYPE_TIMESTAMP || id == SL_TYPE_TIMESTAMP_LTZ;
}

bool sl_type_is_interval(sl_type_id id)
{
    return id == SL_TYPE_INTERVAL_DT || id == SL_TYPE_INTERVAL_YM;
}
