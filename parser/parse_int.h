/*
** parse_int.h — parser-internal declarations shared by tokenize.c, parse.c,
** build.c and the generated grammar (sql.c). Not part of the public API.
**
** The parse context (sl__parse) carries the text, the error (first one wins),
** the finished statements and a small pointer->depth map that bounds the
** nesting of the trees the parser builds (the AST routines are recursive).
** The grammar's value types (sl__tok, sl__iq, ...) are small structs; every
** pointer-valued non-terminal has a %destructor in sql.y.
*/
#ifndef SL_PARSE_INT_H
#define SL_PARSE_INT_H

#include "sl_parser.h"

/* Deepest nesting of expressions or of queries/joins the parser accepts. */
#define SL__MAX_DEPTH 1000
/* Parser stack entries (parentheses, unary operators, ...); keep equal to
** %stack_size in sql.y (lemon wants a literal there). */
#define SL__STACK_SIZE 2500

/* A token as the grammar sees it: a slice of the text. */
typedef struct sl__tok {
    const char *z; /* first byte (into the parsed text) */
    int n;         /* length in bytes; 0 for the synthetic end-of-input ';' */
    int pos;       /* byte offset */
    int prev_end;  /* end of the previous non-space token (statement ends) */
    int stmt_pos;  /* first token of the top-level statement this token is in */
} sl__tok;

/* The parse context (lemon %extra_context). */
typedef struct sl__parse {
    const char *sql;     /* the text */
    size_t len;          /* its length */
    sl_error *err;       /* first error wins */
    sl_list *stmts;      /* of sl_stmt*: statements finished so far */
    const void **dkeys;  /* depth map: node pointers (open addressing) */
    int *dvals;          /* depth map: depth of each node */
    size_t dcap;         /* slots (power of two, or 0) */
    size_t dn;           /* slots in use */
    int cur_pos;         /* byte offset of the token being parsed */
} sl__parse;

/* INTERVAL qualifier: unit [(precision)] [TO unit [(precision)]]. */
typedef struct sl__iq {
    int unit;      /* sl_time_unit */
    int unit_to;   /* sl_time_unit after TO, or SL_UNIT_NONE */
    int precision; /* precision written after the last unit, or -1 */
} sl__iq;

/* (p [, s]) after a type name; -1 when absent. */
typedef struct sl__prec {
    int p;   /* precision / length */
    int s;   /* scale */
} sl__prec;

/* A type with the position of its first token. */
typedef struct sl__ty {
    sl_type t; /* the type */
    int pos;   /* byte offset of the type name */
    int reg;   /* PostgreSQL's regclass (1), regtype / regnamespace (2): an oid, a
                  name turned into one by expr::regclass; 0 otherwise */
} sl__ty;

/* WITH (...) / SET (...): the options and the position of the keyword. */
typedef struct sl__opts {
    sl_kvlist *kv; /* the pairs, or NULL */
    int pos;       /* byte offset of WITH, or -1 */
} sl__opts;

/* One argument of a window table function: [name =>] TABLE t | DESCRIPTOR(c) | expr. */
typedef struct sl__warg {
    char *name;    /* parameter name (DATA, TIMECOL, SIZE, ...), or NULL when positional */
    int name_pos;  /* byte offset of the name, or of the value when positional */
    int kind;      /* 0 = expr, 1 = TABLE name, 2 = DESCRIPTOR(col) */
    char *ident;   /* table name / descriptor column */
    int ident_pos; /* byte offset of ident */
    sl_expr *expr; /* expression argument */
    sl_list *partition; /* TABLE t PARTITION BY ...: of sl_ident*, or NULL */
} sl__warg;

/* One element of a CREATE TABLE body. */
typedef struct sl__telem {
    sl_column_def *col;  /* a column, or NULL */
    int pk_pos;          /* PRIMARY of an inline or table constraint, or -1 */
    sl_list *pk;         /* of sl_ident*: table-level PRIMARY KEY (...) */
    sl_ident *wm_column; /* WATERMARK FOR column */
    sl_expr *wm_expr;    /* WATERMARK ... AS expression */
    int wm_pos;          /* byte offset of WATERMARK, or -1 */
} sl__telem;

/* Clause bundle for ORDER BY / LIMIT / OFFSET. */
typedef struct sl__tail {
    sl_list *order_by; /* of sl_order_item*, or NULL */
    sl_expr *limit;    /* or NULL */
    sl_expr *offset;   /* or NULL */
    int pos;           /* byte offset of the first clause's expression, or -1 */
} sl__tail;

/* A PostgreSQL parameter value being parsed: its text (items joined by
** ", "; a quoted string unquoted) and the byte offset of its first item. */
typedef struct sl__pgval {
    char *text;  /* owned */
    int pos;     /* byte offset, or -1 */
} sl__pgval;
#define SL__NOPGVAL ((sl__pgval){NULL, -1})

/* ---- tokenize.c ---- */
/* Keyword code of z[0..n) (case-insensitive), or 0. */
int sl__keyword_code(const char *z, int n);

/* ---- parse.c ---- */
/* Where statements end, for sl_sql_split and the driver: a ';' ends one
** except inside EXECUTE STATEMENT SET BEGIN ... END. */
typedef struct sl__blk {
    bool in_set;    /* inside BEGIN ... END of a statement set */
    int case_depth; /* CASE ... END nesting inside the block */
    int recent[3];  /* the last three significant token types */
} sl__blk;
/* Feed one significant token; true when it is a statement-ending ';'. */
bool sl__blk_step(sl__blk *b, int type);
void sl__syntax_error(sl__parse *p, int major, sl__tok tok);
void sl__stack_overflow(sl__parse *p);

/* ---- build.c: lists and adapters ---- */
void sl__order_item_free_v(void *x);
void sl__select_item_free_v(void *x);
void sl__ident_free_v(void *x);
void sl__column_def_free_v(void *x);
void sl__expr_list_free_v(void *x); /* an sl_list* of sl_expr* */
void sl__warg_free(sl__warg *a);
void sl__warg_free_v(void *x);
void sl__telem_free(sl__telem *e);
void sl__tail_free(sl__tail t);
void sl__depth_free(sl__parse *p);

/* ---- build.c: builders used by the grammar (take ownership, accept NULL) ---- */
#define SL__NOTOK ((sl__tok){NULL, 0, -1, -1, -1})
#define SL__NOPREC ((sl__prec){-1, -1})
#define SL__NOTY ((sl__ty){{SL_TYPE_NULL, 0, 0, false}, -1, 0})
#define SL__MAXPREC ((sl__prec){SL_MAX_LENGTH, -1})
#define SL__NOOPTS ((sl__opts){NULL, -1})

sl_list *sl__list(sl__parse *p, sl_list *l, void *item);
sl_list *sl__idents(sl__parse *p, sl_list *l, sl__tok name);

sl_expr *sl__lit(sl__parse *p, sl_expr_kind kind, sl__tok t);
sl_expr *sl__string(sl__parse *p, sl__tok t);
sl_expr *sl__xstring(sl__parse *p, sl__tok t);
/* (SELECT ...) in an expression: a scalar subquery. */
sl_expr *sl__subquery(sl__parse *p, sl__tok lp, sl_query *q);
sl_expr *sl__field(sl__parse *p, sl__tok lp, sl_expr *x, sl__tok name);
sl_expr *sl__exists(sl__parse *p, sl__tok kw, sl_query *q);
sl_expr *sl__in_query(sl__parse *p, sl_expr *x, bool neg, sl_query *q, sl__tok optok);
sl_expr *sl__bool(sl__parse *p, bool v, sl__tok t);
sl_expr *sl__typed(sl__parse *p, sl_type_id id, sl__tok kw, sl__tok str);
sl_expr *sl__interval(sl__parse *p, sl__tok kw, sl__tok str, sl__iq q);
sl__iq sl__iqual(sl__parse *p, int unit, int unit_to, sl__prec prec);
sl_expr *sl__column(sl__parse *p, sl__tok qual, sl__tok name);
sl_expr *sl__star(sl__parse *p, sl__tok qual, sl__tok star);
sl_expr *sl__unary(sl__parse *p, int op, sl_expr *x, sl__tok optok);
sl_expr *sl__binary(sl__parse *p, int op, sl_expr *l, sl_expr *r, sl__tok optok);
sl_expr *sl__is(sl__parse *p, sl_expr *x, bool neg, int what, sl__tok optok);
sl_expr *sl__between(sl__parse *p, sl_expr *x, bool neg, sl_expr *lo, sl_expr *hi, sl__tok optok);
sl_expr *sl__in(sl__parse *p, sl_expr *x, bool neg, sl_list *list, sl__tok optok);
sl_expr *sl__like(sl__parse *p, sl_expr *x, bool neg, sl_expr *pat, sl_expr *esc, sl__tok optok);
sl_list *sl__when(sl__parse *p, sl_list *l, sl_expr *when, sl_expr *then);
sl_expr *sl__case(sl__parse *p, sl__tok kw, sl_expr *operand, sl_list *whens, sl_expr *els);
sl_expr *sl__cast(sl__parse *p, sl__tok kw, sl_expr *x, sl__ty ty, bool try_cast);
sl_expr *sl__func(sl__parse *p, sl__tok name, sl_list *args, bool distinct, bool star,
                  sl_window_spec *over);
/* e with FILTER (WHERE cond) attached (cond may be NULL: e as it is). */
sl_expr *sl__func_filter(sl__parse *p, sl_expr *e, sl_expr *cond);
sl_expr *sl__substring(sl__parse *p, sl__tok name, sl_expr *s, sl_expr *from, sl_expr *len);
sl_window_spec *sl__window_spec(sl__parse *p, sl_list *partition, sl_list *order,
                                sl_window_spec *frame);
/* The frame clause ROWS / RANGE [BETWEEN] start [AND CURRENT ROW] (start made
** by sl__frame_start, completed here: no lists yet). */
sl_window_spec *sl__window_frame(sl__parse *p, sl__tok kw, bool range, sl_window_spec *start);
/* OVER name: a reference to a window of the WINDOW clause. */
sl_window_spec *sl__window_ref(sl__parse *p, sl__tok name);
/* WINDOW name AS (w): w named, appended to defs (42P20 for a name defined
** twice). */
sl_list *sl__window_def(sl__parse *p, sl_list *defs, sl__tok name, sl_window_spec *w);
/* Resolve q's OVER names against defs (an unknown name stays: the binder
** reports it); frees defs. */
sl_query *sl__select_windows(sl__parse *p, sl_query *q, sl_list *defs);
/* A frame's start: preceding (n / INTERVAL PRECEDING), NULL for UNBOUNDED
** PRECEDING, or CURRENT ROW. */
sl_window_spec *sl__frame_start(sl__parse *p, sl_expr *preceding, bool current_row);
sl_expr *sl__func_kw(sl__parse *p, sl__tok name, sl_expr *x, sl_expr *y, sl__tok kw);
sl_expr *sl__trim(sl__parse *p, sl__tok name, sl__tok side, sl_expr *chars, sl_expr *s);
sl_order_item *sl__order_item(sl__parse *p, sl_expr *e, bool desc, int nulls);

/* types */
sl__prec sl__prec_make(sl__parse *p, sl__tok pt, sl__tok st);
sl__ty sl__type(sl__parse *p, sl_type_id id, sl__tok kw, sl__prec prec);
/* A name in type position that is no type: 42704 with a suggestion. */
sl__ty sl__type_unknown(sl__parse *p, sl__tok name);
/* ROW<fields> / ROW(fields) at kw: a column definition of type ROW holding
** the fields (sl_column_def*), its name to be set by its user; 42701 for a
** field named twice. */
/* x.name written without parentheses (a dotted path a.b.c: ival 1). */
sl_expr *sl__dotfield(sl__parse *p, sl_expr *x, sl__tok name);
sl_column_def *sl__row_type(sl__parse *p, sl__tok kw, sl_list *fields);
/* One field of a ROW: name type [NOT NULL] ['comment']; row: the nested
** ROW's definition (then ty is unused), else NULL. */
sl_column_def *sl__row_field(sl__parse *p, sl__tok name, sl__ty ty, sl_column_def *row,
                             bool not_null, sl__tok comment);
/* A type Sluice does not have (ARRAY, MAP, MULTISET) at kw: 0A000. */
sl__ty sl__type_unsupported(sl__parse *p, sl__tok kw, const char *what);
sl__ty sl__type_array(sl__parse *p, sl__tok kw, sl__ty elem);
sl__ty sl__type_map(sl__parse *p, sl__tok kw, sl__ty key, sl__ty value);
sl__ty sl__type_row_elem(sl__parse *p, sl_column_def *row);
/* A table function's column alias list (owned: f takes it) and WITH
** ORDINALITY (ord: the word after WITH, SL__NOTOK for none): only UNNEST
** has them (Flink); 0A000 for another function, 42601 for WITH other. */
void sl__from_columns(sl__parse *p, sl_from *f, sl_list *cols, sl__tok ord);
/* CAST(x AS ROW<..>) / x::ROW<..>: 0A000 (frees both). */
sl_expr *sl__cast_row(sl__parse *p, sl__tok kw, sl_expr *x, sl_column_def *row);

/* queries */
sl_select_item *sl__select_item(sl__parse *p, sl_expr *e, sl__tok alias);
sl_query *sl__select(sl__parse *p, sl__tok kw, bool distinct, sl_list *items, sl_from *from,
                     sl_expr *where, sl_list *group_by, sl_expr *having);
sl_query *sl__values(sl__parse *p, sl__tok kw, sl_list *rows);
sl_query *sl__union(sl__parse *p, sl_query *l, sl_query *r, bool all, sl__tok kw);
sl__tail sl__tail_make(sl__parse *p, sl_list *order, sl_expr *limit, sl_expr *offset);
/* LIMIT n or FETCH FIRST n ROWS ONLY (not both: 42601 at the FETCH's count). */
sl_expr *sl__limit_or_fetch(sl__parse *p, sl_expr *limit, sl_expr *fetch);
sl_query *sl__query_tail(sl__parse *p, sl_query *q, sl__tail t);

/* FROM */
sl_from *sl__from_table(sl__parse *p, sl__tok name, sl__tok alias);
/* PostgreSQL syntax (sql.y's PostgreSQL block): schema.table in FROM;
** pg_catalog.f(args); OPERATOR(pg_catalog.op); expr::pg_catalog.type. */
sl_from *sl__from_qtable(sl__parse *p, sl__tok schema, sl__tok name, sl__tok alias);
sl_expr *sl__qfunc(sl__parse *p, sl__tok schema, sl__tok name, sl_list *args);
/* [schema.]name(args) [AS alias] in FROM (schema == name: unqualified). */
sl_from *sl__from_function(sl__parse *p, sl__tok schema, sl__tok name, sl_list *args,
                           sl__tok alias);
sl_expr *sl__qbinary(sl__parse *p, sl__tok schema, sl__tok op, sl_expr *l, sl_expr *r);
sl__ty sl__type_qualified(sl__parse *p, sl__tok schema, sl__tok name);
/* expr::type: a CAST, or for regclass / regtype / regnamespace the function
** PG_REGCLASS / PG_REGOID of expr. */
sl_expr *sl__pgcast(sl__parse *p, sl__tok op, sl_expr *x, sl__ty ty);
/* expr::type[] (a CAST to STRING: arrays are their text) and a[i]. */
sl_expr *sl__pgcast_array(sl__parse *p, sl__tok op, sl_expr *x);
sl_expr *sl__array_subquery(sl__parse *p, sl__tok name, sl_query *q);
sl_expr *sl__subscript(sl__parse *p, sl__tok op, sl_expr *a, sl_expr *i);
sl_from *sl__from_subquery(sl__parse *p, sl__tok lp, sl_query *q, sl__tok alias);
sl_from *sl__from_join(sl__parse *p, sl_from *l, int type, sl_from *r, sl_expr *on, sl__tok kw);
sl_from *sl__from_window(sl__parse *p, sl__tok table_kw, sl__tok fn, sl_list *args, sl__tok alias);
sl__warg *sl__warg_make(sl__parse *p, int kind, sl__tok kw, sl__tok ident, sl_expr *e);
sl__warg *sl__warg_name(sl__parse *p, sl__warg *a, sl__tok name);
sl__warg *sl__warg_partition(sl__parse *p, sl__warg *a, sl_list *cols);

/* statements */
sl_stmt *sl__create_table(sl__parse *p, sl__tok kw, bool ine, sl__tok name, sl_stmt *body,
                          sl__tok comment, sl__opts with, sl_stmt *like);
/* LIKE source: a statement carrying only `like` (and like_opts). */
/* PARTITIONED BY (cols) of a CREATE TABLE body (cols may be NULL); frees
** cols when body is NULL. */
sl_stmt *sl__partitioned(sl__parse *p, sl_stmt *body, sl_list *cols);
sl_stmt *sl__like_clause(sl__parse *p, sl__tok kw, sl__tok name);
/* One like option: an identifier "MODE FEATURE" (upper case) at the mode. */
sl_ident *sl__like_opt(sl__parse *p, sl__tok mode, sl__tok feature);
/* The options into like->like_opts (taken); 42601 for a strategy a feature
** does not take (OVERWRITING ALL / CONSTRAINTS / PARTITIONS / METADATA). */
void sl__like_opts(sl__parse *p, sl_stmt *like, sl_list *opts);
sl_stmt *sl__table_elem(sl__parse *p, sl_stmt *body, sl__telem *e);
/* A column of type ROW (row: sl__row_type's). */
sl__telem *sl__row_column_elem(sl__parse *p, sl__tok name, sl_column_def *row, bool not_null,
                               sl__telem *pk, sl__tok comment);
sl__telem *sl__column_elem(sl__parse *p, sl__tok name, sl__ty ty, bool not_null,
                           sl__telem *pk, sl__tok comment);
sl__telem *sl__pk_elem(sl__parse *p, sl__tok primary, sl_list *cols, bool enforced);
sl__telem *sl__computed_elem(sl__parse *p, sl__tok name, sl_expr *x, sl__tok comment);
sl__telem *sl__metadata_elem(sl__parse *p, sl__tok name, sl__ty ty, bool not_null, sl__tok kw,
                             sl__tok key, bool is_virtual, sl__tok comment);
sl__telem *sl__watermark_elem(sl__parse *p, sl__tok kw, sl__tok col, sl_expr *e);
sl__opts sl__opts_make(sl__parse *p, sl__tok kw, sl_kvlist *kv);
sl_kvlist *sl__kv(sl__parse *p, sl_kvlist *l, sl__tok key, sl__tok value);
sl_stmt *sl__drop(sl__parse *p, sl_stmt_kind kind, sl__tok kw, bool temp, bool if_exists,
                  sl__tok name);
sl_stmt *sl__alter(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok name, sl__tok setkw,
                   sl_kvlist *kv);
sl_stmt *sl__create_view(sl__parse *p, sl__tok kw, bool temp, bool ine, sl__tok name,
                         sl_list *cols, sl_query *q);
sl_stmt *sl__insert(sl__parse *p, sl__tok kw, sl__tok name, sl_list *cols, sl_query *q);
sl_list *sl__set_item(sl__parse *p, sl_list *l, sl_stmt *ins, sl__tok semi);
sl_stmt *sl__statement_set(sl__parse *p, sl__tok kw, sl_list *stmts, sl_stmt *last, sl__tok end);
sl_stmt *sl__query_stmt(sl__parse *p, sl_query *q);
sl_stmt *sl__set(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok key, sl__tok value);
sl_stmt *sl__show(sl__parse *p, sl__tok kw, int what, sl__tok name);
/* verb (CREATE, ALTER, DROP) ... FUNCTION at kw: always the 0A000 error, NULL. */
sl_stmt *sl__function_ddl(sl__parse *p, sl__tok kw, const char *verb);
/* DROP [TEMPORARY (temp 1) | TEMPORARY SYSTEM (2)] FUNCTION [IF EXISTS] name: the
** no-op statement with IF EXISTS, else the 0A000 error. */
sl_stmt *sl__drop_function(sl__parse *p, sl__tok kw, int temp, bool if_exists, sl__tok name);
sl_stmt *sl__stmt_named(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok name);
sl_stmt *sl__explain(sl__parse *p, sl__tok kw, sl_stmt *inner);
sl_stmt *sl__stop_job(sl__parse *p, sl__tok kw, sl__tok id, bool savepoint);
/* RECONCILE ledger AGAINST source ON keys [COMPARE cmp] [WHERE where] [FOR JOB 'job'] [REPAIR]. */
sl_stmt *sl__reconcile(sl__parse *p, sl__tok kw, sl__tok ledger, sl__tok source, sl_list *keys,
                       sl_list *cmp, sl_expr *where, sl__tok job, bool repair);
/* DROP JOB 'id' [WITH SAVEPOINTS] (with: the word after WITH, checked) and
** DESCRIBE / SHOW JOB 'id' (kind SL_STMT_SHOW, with SL__NOTOK). */
sl_stmt *sl__job_stmt(sl__parse *p, sl_stmt_kind kind, sl__tok kw, sl__tok id, sl__tok with);
/* Flink SQL client statements (see sql.y). sl__temp sets s->temporary. */
sl_stmt *sl__temp(sl_stmt *s, bool temp);
sl_stmt *sl__alter_rename(sl__parse *p, sl__tok kw, sl__tok name, sl__tok to);
sl_stmt *sl__show_current(sl__parse *p, sl__tok kw, sl__tok what);
/* USE name, USE catalog.name, USE word name (word: CATALOG). */
sl_stmt *sl__use(sl__parse *p, sl__tok kw, sl__tok word, sl__tok catalog, sl__tok name);
sl_stmt *sl__describe(sl__parse *p, sl__tok kw, sl__tok name, bool extended);
sl_stmt *sl__explain_details(sl__parse *p, sl__tok kw, int details, sl_stmt *inner);
/* A catalog's name in catalog.database.table: 3D000 unless default_catalog. */
void sl__catalog_name(sl__parse *p, sl__tok c);
/* [c.]d.n: n, after checking c (default_catalog) and d (default_database). */
sl__tok sl__qualified(sl__parse *p, sl__tok c, sl__tok d, sl__tok n);
/* A statement of Flink's that Sluice cannot run (CREATE CATALOG, LOAD
** MODULE, ADD JAR, ...; unsupported.c), recognized by its first words from
** stmt_pos (and the token at which parsing stopped, SL__NOTOK if none): sets
** the 0A000 error naming it and returns true; else false. */
bool sl__flink_unsupported(sl__parse *p, int stmt_pos, sl__tok at);
/* PostgreSQL session statements. scope: 0 none, 1 SESSION, 2 LOCAL. */
sl__tok sl__tok_join(sl__tok a, sl__tok b);
sl__pgval sl__pgval_add(sl__parse *p, sl__pgval v, sl__tok word);
/* prefix.name as one name token (unquoted, without spaces: else 42601). */
sl__tok sl__pg_dotted(sl__parse *p, sl__tok prefix, sl__tok name);
sl_stmt *sl__pg_set(sl__parse *p, sl__tok kw, int scope, sl__tok name, const char *fixed,
                    sl__pgval v);
sl_stmt *sl__pg_set_txn(sl__parse *p, sl__tok kw, int scope, sl__tok chars, sl_list *modes);
sl_stmt *sl__pg_show(sl__parse *p, sl__tok kw, sl__tok name, sl__tok word);
sl_stmt *sl__pg_reset(sl__parse *p, sl__tok kw, sl__tok name);
sl_stmt *sl__txn(sl__parse *p, int kind, sl__tok kw, sl__tok name, sl_list *modes);
sl_stmt *sl__discard(sl__parse *p, sl__tok kw, sl__tok what);
/* $n; cursors: DECLARE (flags: 1 = BINARY), FETCH / MOVE (count -1 = ALL),
** CLOSE (name SL__NOTOK = ALL); a FETCH count from its NUMBER token. */
sl_expr *sl__param(sl__parse *p, sl__tok t);
sl_stmt *sl__declare(sl__parse *p, sl__tok kw, sl__tok name, int flags, sl_query *q);
sl_stmt *sl__fetch(sl__parse *p, sl_stmt_kind kind, sl__tok kw, int64_t count, sl__tok name);
sl_stmt *sl__close(sl__parse *p, sl__tok kw, sl__tok name);
int64_t sl__fetch_count(sl__parse *p, sl__tok n);
int64_t sl__fetch_backward(sl__parse *p, sl__tok kw); /* 0A000: forward only */
/* A top-level statement is complete (semi = the ';' after it, maybe the
** synthetic one): set its pos/end and append it to the finished statements. */
void sl__emit(sl__parse *p, sl_stmt *s, sl__tok semi);

#endif /* SL_PARSE_INT_H */
