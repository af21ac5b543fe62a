/*
** sl_type.h — SQL data types (Flink's type system, the subset Sluice runs).
**
** A type is a small value: an id plus precision/scale and nullability. The
** parser produces them for column definitions and CAST, the planner infers
** them for expressions, the runtime sizes its vectors with them.
**
** Main routines: sl_type_make, sl_type_format (Flink's spelling, e.g.
** "DECIMAL(10, 2) NOT NULL"), sl_type_equal, sl_type_is_* predicates,
** sl_type_fit (a value cut or padded to a CHAR/VARCHAR/BINARY/VARBINARY
** length), sl_type_array_of / sl_type_map_of / sl_type_elem (ARRAY, MAP).
*/
#ifndef SL_TYPE_H
#define SL_TYPE_H

#include "sl_base.h"

typedef enum sl_type_id {
    SL_TYPE_NULL = 0,       /* the type of an untyped NULL literal */
    SL_TYPE_BOOLEAN,
    SL_TYPE_TINYINT,
    SL_TYPE_SMALLINT,
    SL_TYPE_INT,
    SL_TYPE_BIGINT,
    SL_TYPE_FLOAT,
    SL_TYPE_DOUBLE,
    SL_TYPE_DECIMAL,        /* precision 1..38, scale 0..precision */
    SL_TYPE_CHAR,           /* precision = length 1..SL_MAX_LENGTH */
    SL_TYPE_VARCHAR,        /* precision = max length; SL_MAX_LENGTH prints as STRING */
    SL_TYPE_BINARY,         /* precision = length */
    SL_TYPE_VARBINARY,      /* precision = max length; SL_MAX_LENGTH prints as BYTES */
    SL_TYPE_DATE,
    SL_TYPE_TIME,           /* precision 0..9 (fractional seconds) */
    SL_TYPE_TIMESTAMP,      /* precision 0..9; TIMESTAMP WITHOUT TIME ZONE */
    SL_TYPE_TIMESTAMP_LTZ,  /* precision 0..9; TIMESTAMP WITH LOCAL TIME ZONE */
    SL_TYPE_INTERVAL_DT,    /* INTERVAL DAY TO SECOND (milliseconds) */
    SL_TYPE_INTERVAL_YM,    /* INTERVAL YEAR TO MONTH (months) */
    SL_TYPE_ROW,            /* ROW<f1 t1, ...>: only a declared column's type (sl_column_def
                               fields); tables store its leaves (flattened), no value has it */
    SL_TYPE_ARRAY,          /* ARRAY<T>: precision = the index of T in the composite table */
    SL_TYPE_MAP,            /* MAP<K, V>: precision = the index of (K, V) in the composite table */
    SL_TYPE__COUNT
} sl_type_id;

#define SL_MAX_LENGTH 2147483647 /* Flink's STRING = VARCHAR(2147483647) */
#define SL_DECIMAL_MAX_PRECISION 38
#define SL_TIME_MAX_PRECISION 9

typedef struct sl_type {
    sl_type_id id;  /* which type */
    int precision;  /* DECIMAL precision, CHAR/VARCHAR/BINARY length, TIME/TIMESTAMP fraction digits */
    int scale;      /* DECIMAL scale; 0 otherwise */
    bool not_null;  /* NOT NULL constraint */
} sl_type;

/* A type written without its arguments, as Flink SQL 2.2 reads it (DESCRIBE):
** DECIMAL / DEC / NUMERIC = DECIMAL(10, 0), TIME = TIME(0), TIMESTAMP =
** TIMESTAMP(6), TIMESTAMP_LTZ = TIMESTAMP_LTZ(6), CHAR = CHAR(1), BINARY =
** BINARY(1), VARCHAR = STRING (VARCHAR(2147483647)), VARBINARY = BYTES. */
sl_type sl_type_make(sl_type_id id);
sl_type sl_type_make_p(sl_type_id id, int precision, int scale);
/* Append Flink's spelling: INT, BIGINT, DECIMAL(10, 2), STRING, VARCHAR(20),
** BYTES, TIMESTAMP(3), TIMESTAMP_LTZ(3), INTERVAL SECOND(3), INTERVAL MONTH;
** with " NOT NULL" when not_null. */
void sl_type_format(sl_strbuf *sb, sl_type t);
/* The same, into a static-free malloc'ed string. */
char *sl_type_to_string(sl_type t);
/* How the value p[0..len) fits t's length when t is CHAR(n) or VARCHAR(n)
** (n code points) or BINARY(n) or VARBINARY(n) (n bytes): *keep = the bytes
** of its first n units (len when it is not longer); returns the units a
** shorter CHAR / BINARY value lacks (the spaces / zero bytes that pad it
** to n), else 0. Other types, STRING and BYTES: *keep = len, 0. */
size_t sl_type_fit(sl_type t, const char *p, size_t len, size_t *keep);
/* Validate precision/scale ranges; sets 22023-style error with position. */
int sl_type_check(sl_type t, int position, sl_error *err);
bool sl_type_equal(sl_type a, sl_type b);               /* incl. nullability */
bool sl_type_equal_ignoring_null(sl_type a, sl_type b);

bool sl_type_is_integer(sl_type_id id);   /* TINYINT..BIGINT */
bool sl_type_is_numeric(sl_type_id id);   /* integers, FLOAT, DOUBLE, DECIMAL */
bool sl_type_is_string(sl_type_id id);    /* CHAR, VARCHAR */
bool sl_type_is_binary(sl_type_id id);    /* BINARY, VARBINARY */
bool sl_type_is_temporal(sl_type_id id);  /* DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ */
bool sl_type_is_timestamp(sl_type_id id); /* TIMESTAMP, TIMESTAMP_LTZ */
bool sl_type_is_interval(sl_type_id id);

/* ARRAY and MAP. Their element (key, value) types live in a process-wide,
** grow-only table of interned composite types (mutex-protected); a type
** refers to its entry by index (in precision), so sl_type stays a value,
** equal types have equal indexes (sl_type_equal works), and nesting
** (ARRAY<ARRAY<INT>>, MAP<STRING, ARRAY<INT>>) is an entry referring to
** another. Element types keep their NOT NULL. */
sl_type sl_type_array_of(sl_type elem);
sl_type sl_type_map_of(sl_type key, sl_type value);
/* ARRAY's element type, MAP's key and value types (SL_TYPE_NULL for other types). */
sl_type sl_type_elem(sl_type t);
sl_type sl_type_key(sl_type t);
sl_type sl_type_value(sl_type t);
bool sl_type_is_composite(sl_type_id id); /* ARRAY, MAP */

#endif /* SL_TYPE_H */
