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
** The mapping of types itself is base/sl_pgtype.c (sl_pgtype_of).
**
** Main routines: sl_pgtext_append.
*/
#include "server_int.h"

#include <string.h>

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
