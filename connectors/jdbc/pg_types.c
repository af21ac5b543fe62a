/*
** pg_types.c — Flink's JDBC type mapping for PostgreSQL (Flink's
** PostgresTypeMapper / PostgresDialect), which declared column types a
** PostgreSQL column may be written from and read into, and the decode side
** of values: PostgreSQL's text format -> chunk values (the scan source).
** The encode side (chunk values -> text) is the writer's (pg_write.c).
**
**   Sluice / Flink             PostgreSQL
**   BOOLEAN                    boolean
**   TINYINT                    smallint (int2; PostgreSQL has no 1-byte integer)
**   SMALLINT, INT, BIGINT      smallint, integer, bigint
**   FLOAT, DOUBLE              real, double precision
**   DECIMAL(p, s)              numeric(p, s); numeric without a typmod is DECIMAL(38, 18)
**   CHAR(n)                    character(n) (bpchar)
**   VARCHAR(n), STRING         character varying(n), text
**   BINARY(n), VARBINARY, BYTES  bytea
**   DATE, TIME(p)              date, time(p) without time zone
**   TIMESTAMP(p)               timestamp(p) without time zone
**   TIMESTAMP_LTZ(p)           timestamp(p) with time zone
**   INTERVAL ...               none (refused)
**
** Writing: the PostgreSQL column must hold every value of the declared
** type, so no write is cut or rounded by the server: integers into an
** integer at least as wide (or numeric with room, or a float that holds them
** exactly), DECIMAL(p, s) into numeric(P, S) with S >= s and P - S >= p - s,
** strings into text / varchar / bpchar at least as long (STRING only into
** text or an unbounded varchar), TIME/TIMESTAMP(p) into a type of precision
** >= p (PostgreSQL keeps microseconds: p up to 6). Reading: the declared type
** must hold every value of the column, except that a numeric without typmod
** reads into any DECIMAL (a value that does not fit fails the scan with
** 22003) and time / timestamp fractions beyond the declared precision are
** truncated (as CAST does). A domain is its base type.
**
** Decoding assumes the connection's settings (pg_conn.c): DateStyle ISO,
** TimeZone UTC, extra_float_digits 3, bytea_output hex (the default).
**
** Main routines: sl__pg_type_writable, sl__pg_type_readable,
** sl__pg_flink_type, sl__pg_decode_value.
*/
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

/* Precision of a time/timestamp typmod (-1: PostgreSQL's default, 6). */
static int sl__pg_time_prec(int typmod)
{
    return typmod < 0 ? 6 : typmod;
}

/* Length of a varchar / bpchar typmod (-1: unbounded). */
static int64_t sl__pg_len(int typmod)
{
    return typmod < 4 ? -1 : typmod - 4;
}

/* Precision and scale of a numeric typmod; false when it has none. */
static bool sl__pg_numeric_ps(int typmod, int *p, int *s)
{
    if (typmod < 4)
        return false;
    *p = ((typmod - 4) >> 16) & 0xffff;
    *s = (int16_t)((typmod - 4) & 0xffff); /* PostgreSQL 15 allows negative scales */
    return true;
}

/* Decimal digits an integer type needs before the point. */
static int sl__pg_int_digits(sl_type_id id)
{
    switch (id) {
    case SL_TYPE_TINYINT:
        return 3;
    case SL_TYPE_SMALLINT:
        return 5;
    case SL_TYPE_INT:
        return 10;
    default:
        return 19;
    }
}

static int sl__pg_int_rank(const char *typname)
{
    if (strcmp(typname, "int2") == 0)
        return 1;
    if (strcmp(typname, "int4") == 0)
        return 2;
    if (strcmp(typname, "int8") == 0)
        return 3;
    return 0;
}

static int sl__int_rank(sl_type_id id)
{
    return id == SL_TYPE_TINYINT || id == SL_TYPE_SMALLINT ? 1 : id == SL_TYPE_INT ? 2 : 3;
}

sl_type sl__pg_flink_type(const char *typname, int typmod, bool *mapped)
{
    *mapped = true;
    int p, s;
    if (strcmp(typname, "bool") == 0)
        return sl_type_make(SL_TYPE_BOOLEAN);
    if (strcmp(typname, "int2") == 0)
        return sl_type_make(SL_TYPE_SMALLINT);
    if (strcmp(typname, "int4") == 0)
        return sl_type_make(SL_TYPE_INT);
    if (strcmp(typname, "int8") == 0)
        return sl_type_make(SL_TYPE_BIGINT);
    if (strcmp(typname, "float4") == 0)
        return sl_type_make(SL_TYPE_FLOAT);
    if (strcmp(typname, "float8") == 0)
        return sl_type_make(SL_TYPE_DOUBLE);
    if (strcmp(typname, "numeric") == 0) {
        if (sl__pg_numeric_ps(typmod, &p, &s) && s >= 0 && p <= SL_DECIMAL_MAX_PRECISION &&
            s <= p)
            return sl_type_make_p(SL_TYPE_DECIMAL, p, s);
        return sl_type_make_p(SL_TYPE_DECIMAL, 38, 18);
    }
    if (strcmp(typname, "bpchar") == 0)
        return sl_type_make_p(SL_TYPE_CHAR, sl__pg_len(typmod) < 1 ? 1 : (int)sl__pg_len(typmod),
                              0);
    if (strcmp(typname, "varchar") == 0 || strcmp(typname, "text") == 0) {
        int64_t n = strcmp(typname, "text") == 0 ? -1 : sl__pg_len(typmod);
        return sl_type_make_p(SL_TYPE_VARCHAR, n < 1 ? SL_MAX_LENGTH : (int)n, 0);
    }
    if (strcmp(typname, "bytea") == 0)
        return sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    if (strcmp(typname, "date") == 0)
        return sl_type_make(SL_TYPE_DATE);
    if (strcmp(typname, "time") == 0)
        return sl_type_make_p(SL_TYPE_TIME, sl__pg_time_prec(typmod), 0);
    if (strcmp(typname, "timestamp") == 0)
        return sl_type_make_p(SL_TYPE_TIMESTAMP, sl__pg_time_prec(typmod), 0);
    if (strcmp(typname, "timestamptz") == 0)
        return sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, sl__pg_time_prec(typmod), 0);
    *mapped = false;
    return sl_type_make(SL_TYPE_NULL);
}

/* Whether an integer type's values all fit numeric(P, S) / numeric. */
static bool sl__int_fits_numeric(sl_type_id id, int typmod)
{
    int p, s;
    if (!sl__pg_numeric_ps(typmod, &p, &s))
        return true;
    return p - s >= sl__pg_int_digits(id);
}

const char *sl__pg_type_writable(sl_type d, const char *typname, int typmod)
{
    int p, s;
    switch (d.id) {
    case SL_TYPE_BOOLEAN:
        return strcmp(typname, "bool") == 0 ? NULL : "it is not a boolean";
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: {
        int r = sl__pg_int_rank(typname);
        if (r)
            return r >= sl__int_rank(d.id) ? NULL : "it is a narrower integer";
        if (strcmp(typname, "numeric") == 0)
            return sl__int_fits_numeric(d.id, typmod) ? NULL
                                                      : "it has too few digits before the point";
        if (strcmp(typname, "float8") == 0 && d.id != SL_TYPE_BIGINT)
            return NULL;
        if (strcmp(typname, "float4") == 0 && sl__int_rank(d.id) == 1)
            return NULL;
        return "it is not an integer type that holds every value";
    }
    case SL_TYPE_FLOAT:
        return strcmp(typname, "float4") == 0 || strcmp(typname, "float8") == 0
                   ? NULL
                   : "it is not a floating-point type";
    case SL_TYPE_DOUBLE:
        return strcmp(typname, "float8") == 0 ? NULL : "it is not double precision";
    case SL_TYPE_DECIMAL:
        if (strcmp(typname, "numeric") != 0)
            return "it is not numeric";
        if (!sl__pg_numeric_ps(typmod, &p, &s))
            return NULL;
        if (s < d.scale)
            return "it has fewer digits after the point (values would be rounded)";
        if (p - s < d.precision - d.scale)
            return "it has fewer digits before the point";
        return NULL;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR: {
        bool text = strcmp(typname, "text") == 0;
        bool vc = strcmp(typname, "varchar") == 0;
        bool bp = strcmp(typname, "bpchar") == 0;
        if (!text && !vc && !bp)
            return "it is not a character type";
        if (text || (vc && sl__pg_len(typmod) < 0))
            return NULL;
        if (d.precision == SL_MAX_LENGTH)
            return "it is bounded (a STRING value could be cut): declare VARCHAR(n)";
        if (bp && d.id == SL_TYPE_VARCHAR)
            return "it pads values with blanks";
        return sl__pg_len(typmod) >= d.precision ? NULL : "it is shorter (values could be cut)";
    }
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        return strcmp(typname, "bytea") == 0 ? NULL : "it is not bytea";
    case SL_TYPE_DATE:
        return strcmp(typname, "date") == 0 ? NULL : "it is not a date";
    case SL_TYPE_TIME:
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: {
        const char *want = d.id == SL_TYPE_TIME        ? "time"
                           : d.id == SL_TYPE_TIMESTAMP ? "timestamp"
                                                       : "timestamptz";
        if (strcmp(typname, want) != 0)
            return d.id == SL_TYPE_TIME        ? "it is not a time without time zone"
                   : d.id == SL_TYPE_TIMESTAMP ? "it is not a timestamp without time zone"
                                               : "it is not a timestamp with time zone";
        return sl__pg_time_prec(typmod) >= d.precision
                   ? NULL
                   : "it keeps fewer fraction digits (PostgreSQL keeps at most 6)";
    }
    default:
        return "the type has no PostgreSQL type in Flink's JDBC mapping";
    }
}

const char *sl__pg_type_readable(sl_type d, const char *typname, int typmod)
{
    int p, s;
    bool mapped;
    sl_type f = sl__pg_flink_type(typname, typmod, &mapped);
    if (!mapped)
        return "the PostgreSQL type is not in Flink's JDBC mapping";
    switch (d.id) {
    case SL_TYPE_BOOLEAN:
        return f.id == SL_TYPE_BOOLEAN ? NULL : "it is not a boolean";
    case SL_TYPE_TINYINT:
        return "PostgreSQL has no 1-byte integer: declare SMALLINT";
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: {
        int r = sl__pg_int_rank(typname);
        if (!r)
            return "it is not an integer";
        return r <= sl__int_rank(d.id) ? NULL : "it is a wider integer";
    }
    case SL_TYPE_FLOAT:
        return strcmp(typname, "float4") == 0 ? NULL : "it is not real";
    case SL_TYPE_DOUBLE:
        return strcmp(typname, "float4") == 0 || strcmp(typname, "float8") == 0
                   ? NULL
                   : "it is not a floating-point type";
    case SL_TYPE_DECIMAL:
        if (sl__pg_int_rank(typname))
            return d.precision - d.scale >=
                           sl__pg_int_digits(sl__pg_int_rank(typname) == 1   ? SL_TYPE_SMALLINT
                                             : sl__pg_int_rank(typname) == 2 ? SL_TYPE_INT
                                                                             : SL_TYPE_BIGINT)
                       ? NULL
                       : "the declared type has too few digits before the point";
        if (strcmp(typname, "numeric") != 0)
            return "it is not numeric";
        if (!sl__pg_numeric_ps(typmod, &p, &s))
            return NULL; /* any value: checked row by row (22003) */
        if (s > d.scale)
            return "it has more digits after the point than declared";
        if (p - s > d.precision - d.scale)
            return "it has more digits before the point than declared";
        return NULL;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
        if (f.id != SL_TYPE_CHAR && f.id != SL_TYPE_VARCHAR)
            return "it is not a character type";
        return f.precision <= d.precision ? NULL : "it holds longer values than declared";
    case SL_TYPE_BINARY:
        return "bytea values have no fixed length: declare BYTES";
    case SL_TYPE_VARBINARY:
        if (f.id != SL_TYPE_VARBINARY)
            return "it is not bytea";
        return d.precision == SL_MAX_LENGTH ? NULL : "bytea values have no bound: declare BYTES";
    case SL_TYPE_DATE:
    case SL_TYPE_TIME:
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        return f.id == d.id ? NULL : "it is another date/time type";
    default:
        return "the type has no PostgreSQL type in Flink's JDBC mapping";
    }
}

/* ------------------------------------------------------------------------
** Decoding PostgreSQL's text format.
*/

static int sl__pg_bad(sl_error *err, const char *state, const char *what, const char *text,
                      size_t len, sl_type t)
{
    char *ts = sl_type_to_string(t);
    sl_error_set(err, state, -1, "%s value \"%.*s\" cannot be read as %s", what,
                 (int)(len > 60 ? 60 : len), text, ts);
    sl_free(ts);
    return -1;
}

/* timestamptz text in UTC: "... +00" (or any offset) -> nanos UTC. */
static int sl__pg_parse_tstz(const char *s, size_t len, int64_t *out)
{
    size_t n = len;
    int64_t off = 0;
    /* the offset: [+-]HH[:MM[:SS]] at the end */
    size_t i = n;
    while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == ':'))
        i--;
    if (i > 0 && i < n && (s[i - 1] == '+' || s[i - 1] == '-') && i >= 2 && s[i - 2] != ' ' &&
        i - 1 > 10) {
        int hh = 0, mm = 0, ss = 0;
        char buf[16];
        size_t k = n - i;
        if (k >= sizeof buf)
            return -1;
        memcpy(buf, s + i, k);
        buf[k] = 0;
        if (sscanf(buf, "%d:%d:%d", &hh, &mm, &ss) < 1)
            return -1;
        off = ((int64_t)hh * 3600 + mm * 60 + ss) * SL_NANOS_PER_SEC;
        if (s[i - 1] == '-')
            off = -off;
        n = i - 1;
    }
    int64_t local;
    int rc = sl_ts_parse(s, n, &local);
    if (rc != 0)
        return rc;
    if ((off > 0 && local < INT64_MIN + off) || (off < 0 && local > INT64_MAX + off))
        return -2;
    *out = local - off;
    return 0;
}

int sl__pg_decode_value(sl_chunk *c, int col, int row, const char *text, size_t len, sl_error *err)
{
    sl_type t = c->cols[col].type;
    switch (t.id) {
    case SL_TYPE_BOOLEAN:
        if (len == 1 && (text[0] == 't' || text[0] == 'f')) {
            sl_chunk_set_bool(c, col, row, text[0] == 't');
            return 0;
        }
        return sl__pg_bad(err, SL_ERR_INVALID_TEXT, "boolean", text, len, t);
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: {
        char buf[32];
        if (len == 0 || len >= sizeof buf)
            return sl__pg_bad(err, SL_ERR_INVALID_TEXT, "integer", text, len, t);
        memcpy(buf, text, len);
        buf[len] = 0;
        char *end;
        errno = 0;
        long long v = strtoll(buf, &end, 10);
        if (*end)
            return sl__pg_bad(err, SL_ERR_INVALID_TEXT, "integer", text, len, t);
        int64_t lo = t.id == SL_TYPE_TINYINT    ? -128
                     : t.id == SL_TYPE_SMALLINT ? -32768
                     : t.id == SL_TYPE_INT      ? INT32_MIN
                                                : INT64_MIN;
        int64_t hi = t.id == SL_TYPE_TINYINT    ? 127
                     : t.id == SL_TYPE_SMALLINT ? 32767
                     : t.id == SL_TYPE_INT      ? INT32_MAX
                                                : INT64_MAX;
        if (errno == ERANGE || v < lo || v > hi)
            return sl__pg_bad(err, SL_ERR_NUMERIC_RANGE, "integer", text, len, t);
        sl_chunk_set_i64(c, col, row, (int64_t)v);
        return 0;
    }
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        char buf[64];
        if (len == 0 || len >= sizeof buf)
            return sl__pg_bad(err, SL_ERR_INVALID_TEXT, "floating-point", text, len, t);
        memcpy(buf, text, len);
        buf[len] = 0;
        double v;
        if (strcmp(buf, "NaN") == 0)
            v = NAN;
        else if (strcmp(buf, "Infinity") == 0)
            v = INFINITY;
        else if (strcmp(buf, "-Infinity") == 0)
            v = -INFINITY;
        else {
            char *end;
            v = strtod(buf, &end);
            if (*end)
                return sl__pg_bad(err, SL_ERR_INVALID_TEXT, "floating-point", text, len, t);
        }
        sl_chunk_set_f64(c, col, row, t.id == SL_TYPE_FLOAT ? (double)(float)v : v);
        return 0;
    }
    case SL_TYPE_DECIMAL: {
        sl_i128 v;
        bool overflow = false;
        if (sl_dec_parse(text, len, t.precision, t.scale, &v, &overflow) != 0)
            return sl__pg_bad(err, overflow ? SL_ERR_NUMERIC_RANGE : SL_ERR_INVALID_TEXT,
                              "numeric", text, len, t);
        sl_chunk_set_i128(c, col, row, v);
        return 0;
    }
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
        sl_chunk_set_str(c, col, row, text, len);
        return 0;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: {
        if (len < 2 || text[0] != '\\' || text[1] != 'x' || (len - 2) % 2)
            return sl__pg_bad(err, SL_ERR_INVALID_TEXT, "bytea", text, len, t);
        size_t n = (len - 2) / 2;
        char *b = sl_malloc(n + 1);
        for (size_t i = 0; i < n; i++) {
            int hv = 0;
            for (int k = 0; k < 2; k++) {
                char ch = text[2 + 2 * i + k];
                int d = ch >= '0' && ch <= '9'   ? ch - '0'
                        : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                        : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                 : -1;
                if (d < 0) {
                    sl_free(b);
                    return sl__pg_bad(err, SL_ERR_INVALID_TEXT, "bytea", text, len, t);
                }
                hv = hv * 16 + d;
            }
            b[i] = (char)hv;
        }
        sl_chunk_set_str(c, col, row, b, n);
        sl_free(b);
        return 0;
    }
    case SL_TYPE_DATE: {
        int64_t days;
        if (sl_date_parse(text, len, &days) != 0)
            return sl__pg_bad(err, SL_ERR_DATETIME_OVERFLOW, "date", text, len, t);
        sl_chunk_set_i64(c, col, row, days);
        return 0;
    }
    case SL_TYPE_TIME: {
        int64_t ns;
        if (sl_time_parse(text, len, &ns) != 0) /* 24:00:00 is not a TIME */
            return sl__pg_bad(err, SL_ERR_DATETIME_OVERFLOW, "time", text, len, t);
        sl_chunk_set_i64(c, col, row, sl_time_truncate(ns, t.precision));
        return 0;
    }
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: {
        int64_t ns;
        int rc = t.id == SL_TYPE_TIMESTAMP ? sl_ts_parse(text, len, &ns)
                                           : sl__pg_parse_tstz(text, len, &ns);
        if (rc != 0) /* infinity, BC, outside 1677..2262 */
            return sl__pg_bad(err, SL_ERR_DATETIME_OVERFLOW, "timestamp", text, len, t);
        sl_chunk_set_i64(c, col, row, sl_time_truncate(ns, t.precision));
        return 0;
    }
    default: {
        char *ts = sl_type_to_string(t);
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "%s columns cannot be read from PostgreSQL",
                     ts);
        sl_free(ts);
        return -1;
    }
    }
}
