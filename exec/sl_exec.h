/*
** sl_exec.h — the runtime: data in flight and the one expression evaluator.
**
** A chunk is a columnar batch of up to `cap` rows: one vector per column
** (values + a null byte map), a row-kind per row (+I, -U, +U, -D), and an
** arena that owns the bytes of its strings. Append-only streams carry only
** +I. Physical representations per SQL type (see also base/sl_time.h):
**
**   BOOLEAN                               uint8  (0 / 1)
**   TINYINT SMALLINT INT BIGINT           int64
**   DATE (days) TIME, TIMESTAMP[_LTZ] (ns) int64
**   INTERVAL_DT (ms) INTERVAL_YM (months) int64
**   FLOAT DOUBLE                          double (FLOAT values are rounded to float)
**   DECIMAL(p, s)                         sl_i128 scaled by 10^s (base/sl_decimal.h)
**   CHAR VARCHAR BINARY VARBINARY         sl_str {ptr, len} into the chunk's arena
**
** The evaluator (eval.c) compiles a planner sl_bexpr once (sl_eval_compile)
** and evaluates it a chunk at a time into a vector of an output chunk, with
** SQL three-valued logic and exact DECIMAL arithmetic. Runtime errors
** (division by zero, overflow, a failing CAST) carry an SQLSTATE and the
** byte position of the expression in its statement.
**
** Main routines: sl_chunk_new/free/reset, sl_chunk_append_row,
** sl_chunk_set_*, sl_eval_compile, sl_eval_into, sl_eval_filter.
*/
#ifndef SL_EXEC_H
#define SL_EXEC_H

#include "../base/sl_base.h"
#include "../base/sl_decimal.h"
#include "../base/sl_time.h"
#include "../base/sl_type.h"
#include "../planner/sl_bind.h"

/* ------------------------------------------------------------------------
** Chunks (chunk.c).
*/
typedef enum sl_phys {
    SL_PHYS_BOOL, /* uint8 */
    SL_PHYS_I64,  /* int64 */
    SL_PHYS_F64,  /* double */
    SL_PHYS_I128, /* sl_i128 (DECIMAL) */
    SL_PHYS_STR,  /* sl_str */
} sl_phys;

/* The physical representation of a SQL type (SL_TYPE_NULL -> BOOL, all NULL). */
sl_phys sl_phys_of(sl_type t);

typedef struct sl_str {
    const char *ptr; /* bytes (not NUL-terminated), owned by a chunk's arena or static */
    uint32_t len;    /* length in bytes */
} sl_str;

typedef enum sl_row_kind {
    SL_ROW_INSERT = 0,        /* +I */
    SL_ROW_UPDATE_BEFORE = 1, /* -U */
    SL_ROW_UPDATE_AFTER = 2,  /* +U */
    SL_ROW_DELETE = 3,        /* -D */
} sl_row_kind;

/* "+I", "-U", "+U", "-D". */
const char *sl_row_kind_name(sl_row_kind k);

typedef struct sl_vector {
    sl_type type;  /* SQL type */
    sl_phys phys;  /* representation */
    uint8_t *nulls;/* nulls[i] != 0: row i is NULL (always allocated, cap bytes) */
    union {
        uint8_t *b;
        int64_t *i64;
        double *f64;
        sl_i128 *i128;
        sl_str *str;
        void *raw;
    } v;           /* values (cap entries); a NULL row's value is unspecified */
} sl_vector;

typedef struct sl_chunk {
    int ncols;       /* columns */
    int nrows;       /* rows in use */
    int cap;         /* rows allocated */
    sl_vector *cols; /* the columns */
    uint8_t *kinds;  /* sl_row_kind per row */
    sl_arena arena;  /* bytes of string values */
} sl_chunk;

#define SL_CHUNK_ROWS 1024 /* default capacity */

/* A chunk with ncols columns of the given types and room for cap rows. */
sl_chunk *sl_chunk_new(int ncols, const sl_type *types, int cap);
void sl_chunk_free(sl_chunk *c);
/* Empty it (nrows = 0, arena reset); keeps the memory. */
void sl_chunk_reset(sl_chunk *c);
/* Append one row of kind k with every column NULL; returns its index.
** The caller then sets the columns. Requires nrows < cap. */
int sl_chunk_append_row(sl_chunk *c, sl_row_kind k);
bool sl_chunk_full(const sl_chunk *c);

/* Setters for row r of column col (clear the NULL flag). Strings are copied
** into the chunk's arena. */
void sl_chunk_set_null(sl_chunk *c, int col, int r);
void sl_chunk_set_bool(sl_chunk *c, int col, int r, bool v);
void sl_chunk_set_i64(sl_chunk *c, int col, int r, int64_t v);
void sl_chunk_set_f64(sl_chunk *c, int col, int r, double v);
void sl_chunk_set_i128(sl_chunk *c, int col, int r, sl_i128 v);
void sl_chunk_set_str(sl_chunk *c, int col, int r, const char *p, size_t len);
/* Copy row r of src (all columns, its kind) to the end of dst (same types). */
int sl_chunk_copy_row(sl_chunk *dst, const sl_chunk *src, int r);

/* Text form of one value as the shell and print sink show it (SQL literal
** spelling without quotes: 12, 1.50, true, 2026-01-31 12:00:00.123, abc;
** BYTES as x'0aff'). NULL -> appends nothing and returns false. */
bool sl_value_format(sl_strbuf *sb, const sl_vector *v, int r);

/* ------------------------------------------------------------------------
** Expression evaluation (eval.c).
*/
typedef struct sl_eval_env {
    int64_t now_nanos; /* CURRENT_TIMESTAMP / NOW() for this evaluation (injected clock) */
} sl_eval_env;

typedef struct sl_eval_prog sl_eval_prog;

/* Compile a bound expression over an input of the given column types.
** Fails (0A000) only for a construct the evaluator does not support, naming
** it; everything the binder produces is supported. */
sl_eval_prog *sl_eval_compile(const sl_bexpr *b, int ncols, const sl_type *input_types,
                              sl_error *err);
void sl_eval_free(sl_eval_prog *p);
/* The result type (the bexpr's). */
sl_type sl_eval_type(const sl_eval_prog *p);

/* Evaluate over every row of in, writing rows 0..in->nrows-1 of column col
** of out (out->cap >= in->nrows; out->cols[col] has the expression's type;
** strings go to out's arena). Does not change out->nrows or kinds.
** 0, or -1 with err (22012 division by zero, 22003 overflow, 22018/22007
** invalid CAST text, 2201E ...; position = the failing node's pos). */
int sl_eval_into(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, sl_chunk *out,
                 int col, sl_error *err);
/* Evaluate a BOOLEAN condition: sel[i] = 1 when row i is TRUE (NULL and
** FALSE give 0). Returns the number of selected rows, or -1 with err. */
int sl_eval_filter(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, uint8_t *sel,
                   sl_error *err);

#endif /* SL_EXEC_H */
