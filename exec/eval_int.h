/*
** eval_int.h — internals of the expression evaluator shared by eval.c (the
** compiler, operators, CAST, the driver) and eval_fn.c (scalar functions
** and LIKE). Not a public header: only exec/eval*.c include it.
**
** A program is a tree of nodes. Each node owns a result vector (values +
** null bytes, `cap` rows) that its kernel fills for rows 0..n-1 of a chunk
** at a time; column nodes alias the input chunk's vectors instead, REF
** nodes alias another node's result. Kernels are chosen at compile time per
** operator and physical type, so the per-row loops have no switch on type
** or operator.
**
** Selection masks: run(node, ev, sel) computes the rows i with sel[i] != 0
** (every row when sel is NULL); the values of other rows are unspecified.
** Only selected, non-NULL rows may raise an error, and kernels never read a
** string (or call an exact-decimal or time helper) for rows that are not
** selected or NULL, because such rows may hold stale values. CASE, IF,
** COALESCE and AND/OR (Flink short-circuits them) evaluate branches under
** the mask of the rows that take them.
*/
#ifndef SL_EVAL_INT_H
#define SL_EVAL_INT_H

#include "sl_exec.h"

typedef struct sl__node sl__node;
typedef struct sl__eval sl__eval;

/* Fills nd's result for the rows of sel (NULL = all); 0 or -1 with ev->err. */
typedef int (*sl__run_fn)(sl__node *nd, sl__eval *ev, const uint8_t *sel);

/* One evaluation in progress. */
struct sl__eval {
    const sl_chunk *in;       /* input chunk (NULL while constant folding) */
    int n;                    /* rows to compute */
    const sl_eval_env *env;   /* injected clock */
    sl_error *err;            /* where errors go */
    sl_arena *arena;          /* strings produced during this evaluation */
};

/* Result values of a node (or aliased column). */
typedef union sl__vals {
    uint8_t *b;     /* BOOLEAN */
    int64_t *i64;   /* integers, temporal, intervals */
    double *f64;    /* FLOAT, DOUBLE */
    sl_i128 *i128;  /* DECIMAL */
    sl_str *str;    /* strings, binary */
    void *raw;      /* any */
} sl__vals;

/* Node kinds that need special treatment by the compiler. */
typedef enum sl__nkind {
    SL__N_OP,     /* operator / function / cast kernel with kids */
    SL__N_COLUMN, /* aliases input column col */
    SL__N_CONST,  /* constant: row 0 holds the value, broadcast to cap rows */
    SL__N_REF,    /* aliases the result of node ref (evaluated before) */
} sl__nkind;

struct sl__node {
    sl__nkind kind;      /* see sl__nkind */
    sl__run_fn run;      /* kernel (OP nodes) */
    sl_type type;        /* result type */
    sl_phys phys;        /* its representation */
    int pos;             /* statement byte offset for errors */
    int op;              /* operator / function sub-code the kernel switches on outside its loop */
    int nkids;           /* number of kids */
    sl__node **kids;     /* operands (owned) */
    bool can_fail;       /* this subtree may raise an error at run time */
    bool is_volatile;    /* depends on env (CURRENT_TIMESTAMP ...): never folded */
    bool try_cast;       /* CAST: NULL instead of an error */
    bool implicit;       /* CAST inserted by the compiler (no string truncation) */
    int col;             /* COLUMN: input column index */
    sl__node *ref;       /* REF: the aliased node (not owned) */
    uint8_t *nulls;      /* current result null bytes (own_nulls or an alias) */
    sl__vals v;          /* current result values (own or an alias) */
    uint8_t *own_nulls;  /* owned null bytes, cap entries */
    void *own;           /* owned values, cap entries */
    uint8_t *mask;       /* owned scratch mask (nodes that evaluate under masks), cap */
    uint8_t *mask2;      /* second scratch mask (CASE), cap */
    int64_t lo, hi;      /* integer result range (overflow checks); sl__k_mul_dec_k keeps
                            its kind of product in lo, sl__k_low_bits_zero its mask */
    sl_i128 plim;        /* DECIMAL: 10^precision (overflow checks) */
    int digits;          /* DECIMAL: every value is below 10^digits; 0 = its precision */
    int (*conv)(sl__node *nd, sl__eval *ev, int i); /* CAST: converts row i of kids[0] */
    void *aux;           /* kernel-specific compiled data (LIKE pattern), freed with aux_free */
    void (*aux_free)(void *aux); /* frees aux */
};

struct sl_eval_prog {
    sl__node *root;      /* the tree */
    sl_type type;        /* result type */
    int cap;             /* rows every node buffer holds */
    int ncols;           /* input columns */
    sl_type *in_types;   /* input column types */
    sl_arena arena;      /* strings of one evaluation (reset per call) */
    sl_arena consts;     /* strings of constants (program lifetime) */
};

/* ---- eval.c helpers used by eval_fn.c ---- */

/* Run every kid of nd under sel. */
int sl__run_kids(sl__node *nd, sl__eval *ev, const uint8_t *sel);
/* out_nulls[i] = OR of the kids' null bytes (rows 0..n-1). */
void sl__or_nulls(sl__node *nd, int n);
/* Whether row i is to be computed: selected and not NULL in nd's result. */
#define SL__LIVE(nd, sel, i) (!(nd)->nulls[i] && (!(sel) || (sel)[i]))
/* Store string s (copied into the evaluation arena) as row i of nd. */
void sl__set_str(sl__node *nd, sl__eval *ev, int i, const char *s, size_t len);
/* Error helpers: set ev->err at nd's position; return -1. */
int sl__fail(sl__eval *ev, const sl__node *nd, const char *sqlstate, const char *fmt, ...)
    SL_PRINTF(4, 5);

/* A new OP node of type t with nkids kid slots (set by the caller) and
** result buffers of p->cap rows. */
sl__node *sl__node_new(sl_eval_prog *p, sl__nkind kind, sl_type t, int pos, int nkids);
void sl__node_free(sl__node *nd);
/* k converted to type `to` for an operator (no string truncation): k
** itself when the representation already fits, else an implicit CAST node
** (folded when k is constant). Takes ownership of k. */
sl__node *sl__coerce(sl_eval_prog *p, sl__node *k, sl_type to, sl_error *err);
/* 22008 "timestamp out of range" at nd with the range in the detail; -1. */
int sl__ts_range_error(sl__eval *ev, const sl__node *nd);
#define SL__TS_MIN_TEXT "1677-09-21 00:12:43.145224192"
#define SL__TS_MAX_TEXT "2262-04-11 23:47:16.854775807"
/* DATE's range, Flink's: 0000-01-01 .. 9999-12-31 as days since 1970-01-01. */
#define SL_DATE_MIN_DAYS (-719528LL)
#define SL_DATE_MAX_DAYS 2932896LL
/* Per-row string type name for messages ("INT", "DECIMAL(10, 2)"). */
void sl__type_name(sl_type t, char *buf, size_t cap);

/* ---- eval_fn.c ---- */

/* Kernel prologue of a strict function: run the kids, NULL if any argument
** is NULL; declares n, the row count. */
#define SL__STRICT_PROLOGUE()                                                      \
    if (sl__run_kids(nd, ev, sel) < 0)                                             \
        return -1;                                                                 \
    int n = ev->n;                                                                 \
    sl__or_nulls(nd, n)
/* Kernel: NULL for every row (a strict function with an untyped NULL argument). */
int sl__k_all_null(sl__node *nd, sl__eval *ev, const uint8_t *sel);
/* A NULL result for row i: NULL when the type allows it, else the empty
** value (Flink returns NULL there too, but the type promised NOT NULL). */
void sl__null_result(sl__node *nd, int i);
/* NUL-terminated copy of a string value (for patterns): buf if it fits,
** else the arena. */
const char *sl__cstr(sl__eval *ev, const sl_str *s, char *buf, size_t cap);
/* Give nd a reusable string buffer (aux, an sl_strbuf). */
void sl__with_strbuf(sl__node *nd);

/* Compile the scalar function call b (kids already compiled and coerced
** as the function needs) into nd: sets nd->run (and aux). 0, or -1 with
** err (0A000) for an unsupported function. */
int sl__compile_fn(sl__node *nd, const sl_bexpr *b, sl_error *err);
/* The session's time zone between an instant and a local date-time: k
** (TIMESTAMP_LTZ) as the local TIMESTAMP of the same precision when
** to_local, else k (TIMESTAMP) as the TIMESTAMP_LTZ instant (java.time's
** gap and overlap rules). Never folded: the zone is the evaluation's
** (sl_eval_env.tz). Takes k. */
sl__node *sl__tz_shift(sl_eval_prog *p, sl__node *k, bool to_local);
/* LIKE / NOT LIKE: nd->kids = value, pattern[, escape]. */
int sl__compile_like(sl__node *nd, sl_error *err);
/* ~ !~ ~* !~* (nd->op): POSIX extended regular expressions, the pattern
** compiled once (a constant one here: 2201B when invalid). */
int sl__compile_regex(sl__node *nd, sl_error *err);

/* ---- eval_str.c, eval_math.c: Flink's further built-in functions ----
** Each compiles the call nd (kids compiled and coerced, nd->op the
** function) when it is one of its functions: 0, -1 with err, or 1 when
** the function is not one of its. */
int sl__compile_fn_str(sl__node *nd, sl_error *err);
int sl__compile_fn_math(sl__node *nd, sl_error *err);
/* Whether the arguments of function id are evaluated as DOUBLE (LN, SIN ...). */
bool sl__fn_double_args(int id);
/* Whether function id reads a DATE or TIMESTAMP field (YEAR ... SECOND):
** a TIMESTAMP_LTZ argument is read in the session's time zone. */
bool sl__fn_time_field(int id);

/* ---- eval_array.c: ARRAY and MAP ---- */
int sl__compile_fn_array(sl__node *nd, sl_error *err);
/* Coerce the arguments of an ARRAY / MAP function (nd->op) to the types
** its kernel reads (elements of the array's type ...); 0 or -1 with err. */
int sl__array_coerce_args(sl_eval_prog *p, sl__node *nd, sl_error *err);
/* Whether composite (or element) values of types a and b have the same bytes. */
bool sl__composite_same(sl_type a, sl_type b);
/* Set up the CAST node nd (kid: an ARRAY / MAP) to its type (an ARRAY /
** MAP or a string): nd->conv and its element programs; 0 or -1 with err. */
int sl__composite_cast(sl__node *nd, bool try_cast, sl_error *err);
/* eval.c: a program CAST(column 0 AS to) over one column of type from. */
sl_eval_prog *sl__cast_prog(sl_type from, sl_type to, bool try_cast, int pos, sl_error *err);

/* Java's Double.toString / Float.toString into buf (>= 32 bytes); returns length. */
int sl__format_double(double d, bool is_float, char *buf);

#endif /* SL_EVAL_INT_H */
