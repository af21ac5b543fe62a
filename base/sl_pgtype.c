/*
** sl_pgtype.c — Sluice's types as PostgreSQL names them (see sl_pgtype.h).
**
** Main routines: sl_pgtype_of, sl_pgtype_format, sl_pgtype_builtin.
*/
#include "sl_pgtype.h"

sl_pgtype sl_pgtype_of(sl_type t)
{
    sl_pgtype p = {SL_OID_TEXT, -1, -1};
    int frac = t.precision > 6 ? 6 : t.precision;
    switch (t.id) {
    case SL_TYPE_BOOLEAN: p = (sl_pgtype){SL_OID_BOOL, 1, -1}; break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT: p = (sl_pgtype){SL_OID_INT2, 2, -1}; break;
    case SL_TYPE_INT: p = (sl_pgtype){SL_OID_INT4, 4, -1}; break;
    case SL_TYPE_BIGINT: p = (sl_pgtype){SL_OID_INT8, 8, -1}; break;
    case SL_TYPE_FLOAT: p = (sl_pgtype){SL_OID_FLOAT4, 4, -1}; break;
    case SL_TYPE_DOUBLE: p = (sl_pgtype){SL_OID_FLOAT8, 8, -1}; break;
    case SL_TYPE_DECIMAL:
        p = (sl_pgtype){SL_OID_NUMERIC, -1, ((t.precision << 16) | t.scale) + 4};
        break;
    case SL_TYPE_CHAR: p = (sl_pgtype){SL_OID_BPCHAR, -1, t.precision + 4}; break;
    case SL_TYPE_VARCHAR:
        p = t.precision >= SL_MAX_LENGTH ? (sl_pgtype){SL_OID_TEXT, -1, -1}
                                         : (sl_pgtype){SL_OID_VARCHAR, -1, t.precision + 4};
        break;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: p = (sl_pgtype){SL_OID_BYTEA, -1, -1}; break;
    case SL_TYPE_DATE: p = (sl_pgtype){SL_OID_DATE, 4, -1}; break;
    case SL_TYPE_TIME: p = (sl_pgtype){SL_OID_TIME, 8, frac}; break;
    case SL_TYPE_TIMESTAMP: p = (sl_pgtype){SL_OID_TIMESTAMP, 8, frac}; break;
    case SL_TYPE_TIMESTAMP_LTZ: p = (sl_pgtype){SL_OID_TIMESTAMPTZ, 8, frac}; break;
    case SL_TYPE_INTERVAL_DT:
    case SL_TYPE_INTERVAL_YM: p = (sl_pgtype){SL_OID_INTERVAL, 16, -1}; break;
    default: break;
    }
    return p;
}

static const sl_pgtype_row sl__builtin[] = {
    {SL_OID_BOOL, "bool", 1},         {SL_OID_BYTEA, "bytea", -1},
    {SL_OID_INT8, "int8", 8},         {SL_OID_INT2, "int2", 2},
    {SL_OID_INT4, "int4", 4},         {SL_OID_TEXT, "text", -1},
    {SL_OID_OID, "oid", 4},           {SL_OID_FLOAT4, "float4", 4},
    {SL_OID_FLOAT8, "float8", 8},     {SL_OID_BPCHAR, "bpchar", -1},
    {SL_OID_VARCHAR, "varchar", -1},  {SL_OID_DATE, "date", 4},
    {SL_OID_TIME, "time", 8},         {SL_OID_TIMESTAMP, "timestamp", 8},
    {SL_OID_TIMESTAMPTZ, "timestamptz", 8}, {SL_OID_INTERVAL, "interval", 16},
    {SL_OID_NUMERIC, "numeric", -1},
};

int64_t sl_pg_relation_oid(const char *schema, const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *s = schema; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ '.') * 1099511628211ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
    return 16384 + (int64_t)(h % (1ULL << 30));
}

const sl_pgtype_row *sl_pgtype_builtin(int *n)
{
    *n = (int)SL_ARRAY_LEN(sl__builtin);
    return sl__builtin;
}

void sl_pgtype_format(sl_strbuf *out, int64_t oid, int64_t typmod)
{
    switch (oid) {
    case SL_OID_BOOL: sl_strbuf_append(out, "boolean"); return;
    case SL_OID_BYTEA: sl_strbuf_append(out, "bytea"); return;
    case SL_OID_INT8: sl_strbuf_append(out, "bigint"); return;
    case SL_OID_INT2: sl_strbuf_append(out, "smallint"); return;
    case SL_OID_INT4: sl_strbuf_append(out, "integer"); return;
    case SL_OID_TEXT: sl_strbuf_append(out, "text"); return;
    case SL_OID_OID: sl_strbuf_append(out, "oid"); return;
    case SL_OID_FLOAT4: sl_strbuf_append(out, "real"); return;
    case SL_OID_FLOAT8: sl_strbuf_append(out, "double precision"); return;
    case SL_OID_DATE: sl_strbuf_append(out, "date"); return;
    case SL_OID_INTERVAL: sl_strbuf_append(out, "interval"); return;
    case SL_OID_BPCHAR:
    case SL_OID_VARCHAR:
        sl_strbuf_append(out, oid == SL_OID_BPCHAR ? "character" : "character varying");
        if (typmod >= 4)
            sl_strbuf_appendf(out, "(%lld)", (long long)(typmod - 4));
        return;
    case SL_OID_NUMERIC:
        sl_strbuf_append(out, "numeric");
        if (typmod >= 4)
            sl_strbuf_appendf(out, "(%lld,%lld)", (long long)(((typmod - 4) >> 16) & 0xffff),
                              (long long)((typmod - 4) & 0xffff));
        return;
    case SL_OID_TIME:
    case SL_OID_TIMESTAMP:
    case SL_OID_TIMESTAMPTZ:
        sl_strbuf_append(out, oid == SL_OID_TIME ? "time" : "timestamp");
        if (typmod >= 0)
            sl_strbuf_appendf(out, "(%lld)", (long long)typmod);
        sl_strbuf_append(out, oid == SL_OID_TIMESTAMPTZ ? " with time zone" : " without time zone");
        return;
    default: sl_strbuf_append(out, "???"); return;
    }
}
