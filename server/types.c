/*
** types.c — Sluice types as PostgreSQL clients see them: the type OID, size
** and modifier of a result column (RowDescription), and the PostgreSQL text
** form of each value (DataRow), so that drivers parse what they receive with
** the parsers they already have.
**
**   Sluice             PostgreSQL              typmod
**   BOOLEAN            bool (16)
**   TINYINT/SMALLINT   int2 (21)
**   INT                int4 (23)
**   BIGINT             int8 (20)
**   FLOAT / DOUBLE     float4 (700) / float8 (701)
**   DECIMAL(p, s)      numeric (1700)          ((p << 16) | s) + 4
**   CHAR(n)            bpchar (1042)           n + 4
**   VARCHAR(n)         varchar (1043)          n + 4
**   STRING             text (25)
**   BINARY/VARBINARY   bytea (17)
**   DATE / TIME(p)     date (1082) / time (1083)             p (at most 6)
**   TIMESTAMP(p)       timestamp (1114)        p (at most 6)
**   TIMESTAMP_LTZ(p)   timestamptz (1184)      p (at most 6)
**   INTERVAL ...       interval (1186)
**
** Main routines: sl_pgtype_of, sl_pgtext_append.
*/
#include "server_int.h"

#include <string.h>

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

void sl_pgtext_append(sl_strbuf *out, sl_type t, const char *v, size_t n)
{
    switch (t.id) {
    case SL_TYPE_BOOLEAN:
        sl_strbuf_append_char(out, n > 0 && (v[0] == 'T' || v[0] == 't') ? 't' : 'f');
        return;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: /* x'0a1b' -> \x0a1b */
        if (n >= 3 && v[0] == 'x' && v[1] == '\'' && v[n - 1] == '\'') {
            sl_strbuf_append(out, "\\x");
            sl_strbuf_append_n(out, v + 2, n - 3);
            return;
        }
        break;
    default: break;
    }
    sl_strbuf_append_n(out, v, n);
}
