/*
** sl_bind.h — bound (typed) expressions and the function registry; internal
** to the planner and, later, the input of the runtime's one expression
** evaluator.
**
** sl_bind_expr turns a parser sl_expr into an sl_bexpr: names resolved to
** column indexes of an input scope, every node typed (Flink's inference
** rules, DECIMAL exact), literals validated and kept in a canonical text form,
** functions and operators resolved against the registry (functions.c).
** Aggregate and window calls are handed to the caller through a hook (the
** query binder knows the GROUP BY / OVER context).
**
** Main routines: sl_bind_expr, sl_bexpr_free, sl_bexpr_print, sl_func_find,
** sl_func_agg_type.
*/
#ifndef SL_BIND_H
#define SL_BIND_H

#include "../base/sl_base.h"
#include "../base/sl_type.h"
#include "../parser/sl_parser.h"

/* ------------------------------------------------------------------------
** Function registry.
*/
typedef enum sl_func_kind {
    SL_FUNC_SCALAR,    /* row-by-row function or operator */
    SL_FUNC_AGGREGATE, /* COUNT, SUM, MIN, MAX, AVG */
    SL_FUNC_WINDOW,    /* ROW_NUMBER (only with OVER) */
} sl_func_kind;

typedef enum sl_func_id {
    /* operators */
    SL_FN_NEG, SL_FN_ADD, SL_FN_SUB, SL_FN_MUL, SL_FN_DIV, SL_FN_MOD,
    SL_FN_EQ, SL_FN_NE, SL_FN_LT, SL_FN_LE, SL_FN_GT, SL_FN_GE,
    SL_FN_AND, SL_FN_OR, SL_FN_NOT,
    SL_FN_IS_NULL, SL_FN_IS_NOT_NULL, SL_FN_IS_TRUE, SL_FN_IS_NOT_TRUE,
    SL_FN_IS_FALSE, SL_FN_IS_NOT_FALSE,
    SL_FN_BETWEEN, SL_FN_NOT_BETWEEN, SL_FN_IN, SL_FN_NOT_IN,
    SL_FN_LIKE, SL_FN_NOT_LIKE, SL_FN_CONCAT,
    SL_FN_REGEX, SL_FN_NOT_REGEX, SL_FN_IREGEX, SL_FN_NOT_IREGEX, /* ~ !~ ~* !~* (POSIX) */
    SL_FN_ANY_EQ, /* x = ANY (array): an array is its text, '{a,b}' */
    SL_FN_IS_DISTINCT, SL_FN_IS_NOT_DISTINCT, /* null-safe <> and = (never NULL) */
    /* scalar functions */
    SL_FN_UPPER, SL_FN_LOWER, SL_FN_SUBSTRING, SL_FN_TRIM, SL_FN_LTRIM, SL_FN_RTRIM,
    SL_FN_CHAR_LENGTH, SL_FN_REPLACE, SL_FN_POSITION, SL_FN_LPAD, SL_FN_RPAD,
    SL_FN_ABS, SL_FN_ROUND, SL_FN_FLOOR, SL_FN_CEIL, SL_FN_MOD_FN, SL_FN_POWER, SL_FN_SQRT,
    SL_FN_COALESCE, SL_FN_NULLIF, SL_FN_IF,
    SL_FN_DATE_FORMAT, SL_FN_TO_TIMESTAMP, SL_FN_TO_DATE, SL_FN_CURRENT_TIMESTAMP,
    SL_FN_CURRENT_DATE, SL_FN_LOCALTIMESTAMP, SL_FN_NOW, SL_FN_UNIX_TIMESTAMP,
    SL_FN_FROM_UNIXTIME, SL_FN_CONCAT_FN, /* CONCAT(a, b, ...); SL_FN_CONCAT is the || operator */
    SL_FN_TO_TIMESTAMP_LTZ, /* TO_TIMESTAMP_LTZ(epoch[, 0 | 3]): the instant */
    SL_FN_PROCTIME, /* PROCTIME(): the processing time, a processing-time attribute */
    /* PostgreSQL catalog functions clients call (planner/syscat.c's relations) */
    SL_FN_PG_GET_USERBYID, SL_FN_PG_TABLE_IS_VISIBLE, SL_FN_PG_ENCODING_TO_CHAR,
    SL_FN_ARRAY_TO_STRING, SL_FN_PG_REGCLASS, SL_FN_PG_REGOID, SL_FN_FORMAT_TYPE, SL_FN_PG_GET_EXPR,
    SL_FN_ARRAY_UPPER, SL_FN_PG_SUBSCRIPT, /* array_upper(a, 1), a[i] */
    /* ... that read the session's objects (sl_eval_env.catalog_def) */
    SL_FN_PG_GET_INDEXDEF, SL_FN_PG_GET_CONSTRAINTDEF, SL_FN_PG_GET_VIEWDEF, SL_FN_COL_DESCRIPTION,
    SL_FN_OBJ_DESCRIPTION, SL_FN_PG_GET_STATISTICSOBJDEF_COLUMNS, SL_FN_PG_TABLE_SIZE,
    SL_FN_PG_RELATION_IS_PUBLISHABLE, SL_FN_PG_SIZE_PRETTY,
    /* aggregates */
    SL_FN_COUNT, SL_FN_SUM, SL_FN_MIN, SL_FN_MAX, SL_FN_AVG,
    SL_FN_LISTAGG, /* LISTAGG(x [, sep]), string_agg(x, sep): a constant separator */
    /* window */
    SL_FN_ROW_NUMBER,
    /* Flink's built-in scalar functions (exec/eval_str.c, exec/eval_math.c) */
    SL_FN_LOCATE, SL_FN_INSTR, SL_FN_SPLIT_INDEX, SL_FN_REGEXP, SL_FN_REGEXP_REPLACE,
    SL_FN_REGEXP_EXTRACT, SL_FN_REGEXP_COUNT, SL_FN_REGEXP_INSTR, SL_FN_REGEXP_SUBSTR,
    SL_FN_INITCAP, SL_FN_REPEAT, SL_FN_REVERSE, SL_FN_LEFT, SL_FN_RIGHT, SL_FN_CONCAT_WS,
    SL_FN_ASCII, SL_FN_CHR, SL_FN_TO_BASE64, SL_FN_FROM_BASE64, SL_FN_TRANSLATE,
    SL_FN_STARTSWITH, SL_FN_ENDSWITH, SL_FN_BTRIM, SL_FN_PARSE_URL, SL_FN_URL_ENCODE,
    SL_FN_URL_DECODE,
    SL_FN_LN, SL_FN_LOG10, SL_FN_LOG2, SL_FN_LOG, SL_FN_EXP, SL_FN_SIN, SL_FN_COS, SL_FN_TAN,
    SL_FN_ASIN, SL_FN_ACOS, SL_FN_ATAN, SL_FN_ATAN2, SL_FN_COT, SL_FN_SINH, SL_FN_COSH,
    SL_FN_TANH, SL_FN_DEGREES, SL_FN_RADIANS, SL_FN_SIGN, SL_FN_PI, SL_FN_E, SL_FN_TRUNCATE,
    SL_FN_BIN, SL_FN_HEX, SL_FN_RAND, SL_FN_RAND_INTEGER, SL_FN_UUID,
    SL_FN_IFNULL, SL_FN_GREATEST, SL_FN_LEAST, SL_FN_IS_ALPHA, SL_FN_IS_DIGIT, SL_FN_IS_DECIMAL,
    SL_FN_MD5, SL_FN_SHA1, SL_FN_SHA224, SL_FN_SHA256, SL_FN_SHA384, SL_FN_SHA512, SL_FN_SHA2,
    SL_FN_YEAR, SL_FN_QUARTER, SL_FN_MONTH, SL_FN_WEEK, SL_FN_DAYOFYEAR, SL_FN_DAYOFMONTH,
    SL_FN_DAYOFWEEK, SL_FN_HOUR, SL_FN_MINUTE, SL_FN_SECOND,
    SL_FN_EXTRACT,       /* EXTRACT('unit', x): the parser turns EXTRACT(unit FROM x) into it */
    SL_FN_TIMESTAMPADD,  /* TIMESTAMPADD('unit', n, t): the unit's bare name becomes a string */
    SL_FN_TIMESTAMPDIFF, /* TIMESTAMPDIFF('unit', t1, t2) */
    SL_FN_CONVERT_TZ,    /* CONVERT_TZ(text, from_zone, to_zone): text in another zone */
    /* ARRAY and MAP values (exec/eval_array.c) */
    SL_FN_ARRAY_CTOR, SL_FN_MAP_CTOR, /* ARRAY[a, b, ...], MAP[k1, v1, ...] */
    SL_FN_ITEM,                       /* arr[i] (1-based), map[key]; no name of its own */
    SL_FN_CARDINALITY, SL_FN_ELEMENT, SL_FN_ARRAY_CONTAINS, SL_FN_ARRAY_DISTINCT,
    SL_FN_ARRAY_POSITION, SL_FN_ARRAY_REMOVE, SL_FN_ARRAY_REVERSE, SL_FN_ARRAY_SLICE,
    SL_FN_ARRAY_UNION, SL_FN_ARRAY_CONCAT, SL_FN_ARRAY_MAX, SL_FN_ARRAY_MIN, SL_FN_ARRAY_JOIN,
    SL_FN_ARRAY_APPEND, SL_FN_ARRAY_PREPEND, SL_FN_MAP_KEYS, SL_FN_MAP_VALUES,
    SL_FN_MAP_FROM_ARRAYS, SL_FN_SPLIT,
    SL_FN_ARRAY_AGG, /* aggregate: the values as an ARRAY */
    SL_FN_ARRAY_EXCEPT, SL_FN_ARRAY_INTERSECT, SL_FN_ARRAY_SORT, SL_FN_MAP_UNION, /* eval_array.c */
    SL_FN__COUNT
} sl_func_id;

typedef struct sl_func {
    const char *name;  /* upper-case SQL name ("UPPER", "+" for operators) */
    sl_func_id id;     /* stable id the evaluator switches on */
    sl_func_kind kind; /* scalar / aggregate / window */
    int min_args;      /* fewest arguments */
    int max_args;      /* most arguments; -1 = any */
} sl_func;

/* Find a function by SQL name (case-insensitive); NULL if none. Operators are
** not found by name. */
const sl_func *sl_func_find(const char *name);
/* All function names (for "did you mean"), NULL-terminated. */
const char *const *sl_func_names(int *n);
/* The registry entry of id (operators included: name "+", "AND", "IS NULL" ...). */
const sl_func *sl_func_get(sl_func_id id);
/* Whether a call of f with nargs arguments always gives the same result for
** the same arguments (false for CURRENT_TIMESTAMP, NOW, CURRENT_DATE,
** LOCALTIMESTAMP, UNIX_TIMESTAMP(); aggregates and window functions). */
bool sl_func_is_deterministic(const sl_func *f, int nargs);
/* Result type of an aggregate over an argument type (arg ignored for
** COUNT(*)): COUNT -> BIGINT NOT NULL; SUM of integers -> BIGINT, of
** DECIMAL(p,s) -> DECIMAL(38,s), of FLOAT/DOUBLE -> DOUBLE; AVG as Flink
** (same type family as the input: integers stay integer types, DECIMAL
** keeps a wider scale); MIN/MAX -> the argument type; LISTAGG of a string
** -> STRING. Error 42883 with
** position when the argument type does not fit (SUM of STRING). */
int sl_func_agg_type(const sl_func *f, const sl_type *arg, int pos, sl_type *out, sl_error *err);

/* ------------------------------------------------------------------------
** Bound expressions.
*/
typedef enum sl_bexpr_kind {
    SL_BX_COLUMN,  /* input column col */
    SL_BX_LITERAL, /* constant; text = canonical form, NULL for a NULL literal */
    SL_BX_CALL,    /* fn(args...): operators and scalar functions */
    SL_BX_CAST,    /* CAST(args[0] AS type); try_cast for TRY_CAST */
    SL_BX_CASE,    /* searched CASE: args = w1, t1, w2, t2, ..., [else]; has_else */
} sl_bexpr_kind;

typedef struct sl_bexpr sl_bexpr;
struct sl_bexpr {
    sl_bexpr_kind kind; /* which node */
    sl_type type;       /* result type incl. nullability (not_null when never NULL) */
    int pos;            /* byte offset in the statement, for runtime errors */
    int col;            /* COLUMN: index into the input row */
    char *text;         /* LITERAL canonical text: integers "12"; DECIMAL "1.50" (scale
                           digits exactly); DOUBLE as written; BOOLEAN "TRUE"/"FALSE";
                           strings raw; BINARY / VARBINARY hex digits "0a1b" (the
                           bytes may hold NUL); DATE "2026-01-31"; TIME "12:00:00[.fff]";
                           TIMESTAMP "2026-01-31 12:00:00[.fff]"; INTERVAL_DT total
                           milliseconds "5000"; INTERVAL_YM total months "14" */
    const sl_func *fn;  /* CALL: the function */
    int nargs;          /* number of args */
    sl_bexpr **args;    /* arguments (owned) */
    bool try_cast;      /* CAST: TRY_CAST */
    bool has_else;      /* CASE: last arg is the ELSE result */
};

/* Whether argument i of PostgreSQL catalog function f is an oid (or number):
** a string literal there is read as PostgreSQL reads an untyped one, by
** regclass input (a number, or a relation's name). */
bool sl_func_takes_oid(const sl_func *f, int i);
/* Type-check a call of the scalar function f (not an operator) with the bound
** arguments args[0..nargs) and compute its result type (Flink's rules, incl.
** nullability). name = the name as written, for messages. 0, or -1 with err:
** 42883 "function UPPER(INT) does not exist" at pos, hint with the expected
** signature. */
int sl_func_scalar_type(const sl_func *f, const char *name, sl_bexpr *const *args, int nargs,
                        int pos, sl_type *out, sl_error *err);

/* One visible column of the input of an expression. */
typedef struct sl_scope_col {
    const char *qualifier; /* table name or alias it is reachable by; NULL = none */
    const char *name;      /* column name (case-sensitive) */
    sl_type type;          /* its type */
    bool hidden;           /* not expanded by * (still resolvable by name) */
} sl_scope_col;

typedef struct sl_scope {
    int n;                   /* number of columns */
    const sl_scope_col *cols;/* the columns; column i of the input row is cols[i] */
} sl_scope;

/* The parameters ($1, $2 ...) of the statement being bound. */
typedef struct sl_bind_params {
    int n;          /* how many there are: $1 .. $n */
    sl_type *types; /* [n]: each one's type; id SL_TYPE_NULL while unknown, when
                       binding records the type the context gives it (the other
                       side of a comparison or of arithmetic, IN / BETWEEN, LIKE
                       and || -> STRING, an INSERT's target column, LIMIT and
                       OFFSET -> BIGINT); a $n binds as a NULL literal of its type */
} sl_bind_params;

/* A dotted path x.f1.f2 (SL_EXPR_FIELD over a column reference [q.]n):
** "n.f1.f2" (malloc'ed) and *qualifier = q or NULL; NULL when e is none. */
char *sl_expr_field_path(const sl_expr *e, const char **qualifier);

typedef struct sl_bind_ctx {
    const sl_scope *scope;  /* where names resolve */
    sl_error *err;          /* first error */
    const char *clause;     /* "WHERE", "GROUP BY" ... for messages; may be NULL */
    /* Called for every node before it is bound normally. Return 1 with *out
    ** set when the hook bound the node itself (e.g. an aggregate call replaced
    ** by a column of the aggregate's output, or an expression equal to a GROUP
    ** BY key), 0 to bind it normally, -1 on error (err set). May be NULL.
    ** Without a hook (or when it returns 0), aggregate and window calls are
    ** errors: 42803 "aggregate functions are not allowed in WHERE" (uses
    ** clause) / 42P20 for window functions. */
    int (*hook)(struct sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out);
    void *hook_ctx;         /* for the hook */
    sl_bind_params *params; /* the statement's $n, or NULL: a $n is 42P02 */
} sl_bind_ctx;

/* Bind e in ctx. NULL with ctx->err set on error: unknown column (42703,
** with "Perhaps you meant ..." hint), ambiguous column (42702), unknown
** function (42883, did-you-mean), wrong argument count/types (42883 /
** 42804 with both types named), invalid literal (22007 / 22P02 / 22003),
** non-boolean condition (42804), STAR outside a select list (42601). */
sl_bexpr *sl_bind_expr(sl_bind_ctx *ctx, const sl_expr *e);
/* Bind e as a condition (WHERE / HAVING / ON / CASE WHEN): as sl_bind_expr,
** then the result must be BOOLEAN (or an untyped NULL, which becomes a NULL
** BOOLEAN); else 42804 "argument of WHERE must be type BOOLEAN, not type INT"
** (ctx->clause names the clause; "condition" when NULL). 0 or -1. */
int sl_bind_condition(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out);

/* Validate a literal node (NULL, BOOL, NUMBER, STRING, TYPED, INTERVAL) and
** build its LITERAL with type and canonical text (see sl_bexpr.text).
** Numbers: INT if it fits, else BIGINT, else DECIMAL(p, 0) (p <= 38), else
** 22003; "12.50" -> DECIMAL(4, 2); exponent form -> DOUBLE. Strings ->
** CHAR(n) NOT NULL, n in characters; the empty string is VARCHAR(1) NOT NULL
** (CHAR(0) is not a valid type here). DATE/TIME/TIMESTAMP[_LTZ] validated
** (calendar, leap years), precision = fraction digits written. INTERVAL:
** DAY..SECOND forms -> INTERVAL_DT in milliseconds, YEAR/MONTH forms ->
** INTERVAL_YM in months; a leading sign inside the string is allowed.
** NULL with err (22007 / 22003 / 22P02) at the literal's position. */
sl_bexpr *sl_bind_literal(const sl_expr *e, sl_error *err);

/* A parameter whose type is still unknown takes type t, as a parameter's
** context gives it: strings become STRING, binaries BYTES, nullable. No-op
** when params is NULL, n is out of range or its type is known. */
void sl_bind_param_infer(sl_bind_params *params, int64_t n, sl_type t);

/* Resolve a (qualifier, name) in scope: index, or -1 with err set (42703 /
** 42702) pointing at pos. A lower-case name no column has exactly resolves
** to the one column whose name is it in another case. */
int sl_scope_resolve(const sl_scope *scope, const char *qualifier, const char *name, int pos,
                     sl_error *err);

/* Implicit-conversion helpers used by the query binder (UNION, INSERT). */
/* The common type of a and b (numeric widening, DECIMAL rules, CHAR/VARCHAR
** -> VARCHAR, NULL with anything); false when there is none. */
bool sl_type_common(sl_type a, sl_type b, sl_type *out);
/* Whether a value of type from may be written into a column of type to
** without an explicit CAST (Flink's assignment rules, e.g. INT -> BIGINT,
** INT -> DECIMAL(12,2), CHAR -> STRING; not STRING -> INT). */
bool sl_type_assignable(sl_type from, sl_type to);
/* Result type of the arithmetic operator op (SL_FN_ADD, SUB, MUL, DIV, MOD)
** on a and b, as Flink: integers -> the wider integer (MOD: the type of b;
** / of integers stays integer); FLOAT with FLOAT/integers -> FLOAT, DOUBLE
** or FLOAT with DECIMAL -> DOUBLE; DECIMAL (integers as DECIMAL(3/5/10/19, 0))
** with Flink's precision/scale rules, capped at 38 keeping integer digits
** and at least min(scale, 6) fraction digits; TIMESTAMP/DATE/TIME +/-
** INTERVAL -> the same temporal type; INTERVAL +/- INTERVAL of the same kind;
** INTERVAL * numeric, numeric * INTERVAL, INTERVAL / numeric -> INTERVAL.
** An untyped NULL takes the other side's type. Nullable if either side is.
** False when the operator does not apply (TIMESTAMP - TIMESTAMP, STRING + INT,
** NULL + NULL). */
bool sl_type_arith(sl_func_id op, sl_type a, sl_type b, sl_type *out);
/* Whether a and b may be compared (=, <, BETWEEN, IN): numeric with numeric,
** string with string, binary with binary, BOOLEAN with BOOLEAN, DATE with
** DATE, TIME with TIME, TIMESTAMP with TIMESTAMP (any precision),
** TIMESTAMP_LTZ with TIMESTAMP_LTZ, an interval with the same kind, untyped
** NULL with anything. */
bool sl_type_comparable(sl_type a, sl_type b);
/* Whether CAST(from AS to) is allowed: same family, numeric <-> numeric,
** numeric <-> string, BOOLEAN <-> string/numeric, string <-> temporal,
** DATE/TIMESTAMP/TIMESTAMP_LTZ among each other, TIMESTAMP -> TIME,
** string <-> binary, interval -> string, NULL -> anything. */
bool sl_type_castable(sl_type from, sl_type to);

sl_bexpr *sl_bexpr_new(sl_bexpr_kind kind, sl_type type, int pos);
void sl_bexpr_free(sl_bexpr *b);
sl_bexpr *sl_bexpr_dup(const sl_bexpr *b);
/* Readable infix form for EXPLAIN: column names from names[] (indexes into
** the input row), e.g. "(amount > 10) AND (UPPER(name) LIKE 'A%')",
** "CAST(x AS BIGINT)", literals as SQL literals (strings quoted). */
void sl_bexpr_print(sl_strbuf *sb, const sl_bexpr *b, const char *const *names);
/* An interval as the largest SQL unit that divides it: INTERVAL '5' SECOND,
** INTERVAL '26' HOUR, INTERVAL '1.5' SECOND; id is SL_TYPE_INTERVAL_DT
** (value in ms) or SL_TYPE_INTERVAL_YM (value in months). */
void sl_interval_print(sl_strbuf *sb, sl_type_id id, int64_t value);
/* True when b contains no column reference and no non-deterministic call. */
bool sl_bexpr_is_constant(const sl_bexpr *b);

/* A set-returning function (srf.c) by name, any case: its id, or -1. Only a
** select list may call one (bind.c); elsewhere it is 0A000. */
int sl_srf_find(const char *name);

#endif /* SL_BIND_H */
