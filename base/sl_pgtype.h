/*
** sl_pgtype.h — Sluice's types as PostgreSQL names them: the type OID, size
** and modifier (the wire server's RowDescription, the catalog relations'
** pg_attribute.atttypid / atttypmod and pg_type rows), and PostgreSQL's
** format_type text. One mapping for the server and the planner.
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
** Main routines: sl_pgtype_of, sl_pgtype_format, sl_pgtype_builtin.
*/
#ifndef SL_PGTYPE_H
#define SL_PGTYPE_H

#include "sl_base.h"
#include "sl_type.h"

/* PostgreSQL type OIDs (pg_type.dat). */
#define SL_OID_BOOL 16
#define SL_OID_BYTEA 17
#define SL_OID_INT8 20
#define SL_OID_INT2 21
#define SL_OID_INT4 23
#define SL_OID_TEXT 25
#define SL_OID_OID 26
#define SL_OID_FLOAT4 700
#define SL_OID_FLOAT8 701
#define SL_OID_UNKNOWN 705
#define SL_OID_BPCHAR 1042
#define SL_OID_VARCHAR 1043
#define SL_OID_DATE 1082
#define SL_OID_TIME 1083
#define SL_OID_TIMESTAMP 1114
#define SL_OID_TIMESTAMPTZ 1184
#define SL_OID_INTERVAL 1186
#define SL_OID_NUMERIC 1700

/* How a column of type t is described in RowDescription. */
typedef struct sl_pgtype {
    int32_t oid;    /* type OID */
    int16_t size;   /* typlen: -1 for varlena */
    int32_t typmod; /* atttypmod: -1 when none */
} sl_pgtype;

sl_pgtype sl_pgtype_of(sl_type t);

/* PostgreSQL's format_type(oid, typmod) for the types above ("bigint",
** "numeric(10,2)", "timestamp(3) without time zone", "character
** varying(20)"); "???" for an OID it does not know, as PostgreSQL. */
void sl_pgtype_format(sl_strbuf *out, int64_t oid, int64_t typmod);

/* The types above as pg_type rows: *n of them (oid, typname, typlen). */
typedef struct sl_pgtype_row {
    int32_t oid;          /* type OID */
    const char *typname;  /* pg_type.typname */
    int16_t typlen;       /* -1: varlena */
} sl_pgtype_row;
const sl_pgtype_row *sl_pgtype_builtin(int *n);

/* The oid of relation schema.name in the catalog relations (planner/syscat.c):
** 16384 + (FNV-1a hash of "schema.name") mod 2^30, from PostgreSQL's first
** user oid up: stable for a name. */
int64_t sl_pg_relation_oid(const char *schema, const char *name, size_t len);

#endif /* SL_PGTYPE_H */
