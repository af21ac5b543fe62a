/*
** sl_parser.h — the SQL front end: tokenizer, parser and the AST.
**
** Pipeline: sl_tokenize_next (tokenize.c) -> lemon grammar (sql.y) whose
** actions are one builder call each (build.c) -> AST (this header). The AST is
** plain owned trees: every node owns its children and strings; free with the
** *_free functions. Positions are 0-based byte offsets into the text that was
** parsed (-1 = none). The printer (print.c) writes canonical Flink SQL that
** parses back to an equal AST (sl_stmt_equal), which the catalog relies on.
**
** Identifiers are case-sensitive and kept as written (as in Flink);
** keywords and function names are case-insensitive.
*/
#ifndef SL_PARSER_H
#define SL_PARSER_H

#include "../base/sl_base.h"
#include "../base/sl_type.h"

typedef struct sl_expr sl_expr;
typedef struct sl_query sl_query;
typedef struct sl_from sl_from;
typedef struct sl_stmt sl_stmt;

/* ------------------------------------------------------------------------
** Expressions.
*/
typedef enum sl_expr_kind {
    SL_EXPR_NULL,       /* NULL */
    SL_EXPR_BOOL,       /* TRUE / FALSE: ival = 1 / 0 */
    SL_EXPR_NUMBER,     /* numeric literal; text = as written ("12", "1.50", "1e3") */
    SL_EXPR_STRING,     /* 'text' (quotes removed, '' unescaped); text */
    SL_EXPR_XSTRING,    /* X'0A1B' (a binary string): text = its hex digits, lower case */
    SL_EXPR_TYPED,      /* DATE '..' / TIME '..' / TIMESTAMP '..' / TIMESTAMP_LTZ '..': type, text */
    SL_EXPR_INTERVAL,   /* INTERVAL '5' SECOND / INTERVAL '1-2' YEAR TO MONTH: text, unit, unit_to */
    SL_EXPR_COLUMN,     /* [qualifier.]text */
    SL_EXPR_STAR,       /* * or qualifier.* (select lists only) */
    SL_EXPR_UNARY,      /* op: SL_OP_NEG, SL_OP_PLUS, SL_OP_NOT; left */
    SL_EXPR_BINARY,     /* op: arithmetic, comparison (IS [NOT] DISTINCT FROM too), AND, OR, CONCAT; left, right */
    SL_EXPR_IS,         /* left IS [NOT] {NULL|TRUE|FALSE|UNKNOWN}: op = SL_IS_*, negated */
    SL_EXPR_BETWEEN,    /* left [NOT] BETWEEN args[0] AND args[1]: negated */
    SL_EXPR_IN,         /* left [NOT] IN (args...) or IN (query): negated */
    SL_EXPR_LIKE,       /* left [NOT] LIKE right [ESCAPE args[0]]: negated */
    SL_EXPR_CASE,       /* CASE [left] WHEN args[0] THEN args[1] ... [ELSE right] END */
    SL_EXPR_CAST,       /* CAST(left AS type) / TRY_CAST: ival = 1 for TRY_CAST */
    SL_EXPR_FUNC,       /* text(args...) [OVER (over)]; distinct; ival = 1 for f(*) */
    SL_EXPR_PARAM,      /* $n, a parameter of the statement: ival = n (1-based) */
    SL_EXPR_SUBQUERY,   /* (SELECT ...): a scalar subquery, query */
    SL_EXPR_FIELD,      /* (left).text: a field of a composite value (PostgreSQL) */
    SL_EXPR_EXISTS,     /* EXISTS (query) */
} sl_expr_kind;

typedef enum sl_op {
    SL_OP_NONE = 0,
    /* unary */
    SL_OP_NEG, SL_OP_PLUS, SL_OP_NOT,
    /* arithmetic */
    SL_OP_ADD, SL_OP_SUB, SL_OP_MUL, SL_OP_DIV, SL_OP_MOD,
    /* string */
    SL_OP_CONCAT, /* || */
    /* comparison */
    SL_OP_EQ, SL_OP_NE, SL_OP_LT, SL_OP_LE, SL_OP_GT, SL_OP_GE,
    /* logic */
    SL_OP_AND, SL_OP_OR,
    /* POSIX regular expressions (PostgreSQL): ~ !~ ~* !~* */
    SL_OP_REGEX, SL_OP_NOT_REGEX, SL_OP_IREGEX, SL_OP_NOT_IREGEX,
    /* null-safe comparison: IS [NOT] DISTINCT FROM */
    SL_OP_IS_DISTINCT, SL_OP_IS_NOT_DISTINCT,
} sl_op;

typedef enum sl_is_kind { SL_IS_NULL, SL_IS_TRUE, SL_IS_FALSE, SL_IS_UNKNOWN } sl_is_kind;

typedef enum sl_time_unit {
    SL_UNIT_NONE = 0,
    SL_UNIT_YEAR, SL_UNIT_MONTH, SL_UNIT_DAY, SL_UNIT_HOUR, SL_UNIT_MINUTE, SL_UNIT_SECOND,
    SL_UNIT_MILLISECOND,
} sl_time_unit;

typedef struct sl_order_item {
    sl_expr *expr;    /* sort key */
    bool desc;        /* DESC */
    int nulls;        /* 0 = default, 1 = NULLS FIRST, 2 = NULLS LAST */
} sl_order_item;

typedef struct sl_window_spec {
    sl_list *partition_by; /* of sl_expr*; may be NULL */
    sl_list *order_by;     /* of sl_order_item*; may be NULL */
    int frame;             /* SL_FRAME_NONE / ROWS / RANGE: the frame clause */
    sl_expr *preceding;    /* its start, n or INTERVAL ... PRECEDING; NULL = UNBOUNDED
                              PRECEDING (or CURRENT ROW when current_row) */
    bool current_row;      /* the frame starts at CURRENT ROW */
    int frame_pos;         /* byte offset of ROWS / RANGE, or -1 */
    char *name;            /* OVER name: the WINDOW clause's window it names (the parser
                              replaces it by a copy of that window); in a WINDOW clause:
                              the window's name. NULL otherwise */
    int name_pos;          /* byte offset of name, or -1 */
} sl_window_spec;
enum { SL_FRAME_NONE, SL_FRAME_ROWS, SL_FRAME_RANGE };

struct sl_expr {
    sl_expr_kind kind;    /* what this node is */
    int pos;              /* byte offset of the first token of the expression */
    int op_pos;           /* byte offset of the operator / keyword (errors about it), or -1 */
    int op;               /* sl_op for UNARY/BINARY; sl_is_kind for IS */
    bool negated;         /* NOT BETWEEN / NOT IN / NOT LIKE / IS NOT */
    bool distinct;        /* f(DISTINCT ...) */
    int64_t ival;         /* BOOL value; 1 = TRY_CAST; 1 = f(*) */
    char *text;           /* literal text, column name, function name (as written) */
    char *qualifier;      /* table name/alias of a column or star; NULL if none */
    int unit;             /* INTERVAL leading unit (sl_time_unit) */
    int unit_to;          /* INTERVAL trailing unit after TO, or SL_UNIT_NONE */
    int unit_precision;   /* INTERVAL '1.5' SECOND(3): 3; -1 = not written */
    sl_type type;         /* CAST target type; TYPED literal type */
    sl_expr *left;        /* first operand */
    sl_expr *right;       /* second operand; LIKE pattern; CASE ELSE */
    sl_list *args;        /* of sl_expr*: function args, IN list, BETWEEN bounds,
                             CASE when/then pairs, LIKE escape */
    sl_window_spec *over; /* OVER (...) of a window function call */
    sl_expr *filter;      /* FILTER (WHERE cond) of an aggregate call, or NULL */
    sl_query *query;      /* SUBQUERY: the query */
};

/* ------------------------------------------------------------------------
** Queries.
*/
typedef enum sl_query_kind {
    SL_QUERY_SELECT, /* SELECT ... */
    SL_QUERY_UNION,  /* left UNION [ALL] right: all */
    SL_QUERY_VALUES, /* VALUES (..), (..): rows */
} sl_query_kind;

typedef struct sl_select_item {
    sl_expr *expr; /* the expression (may be SL_EXPR_STAR) */
    char *alias;   /* AS alias, or NULL */
    int alias_pos; /* byte offset of the alias, or -1 */
} sl_select_item;

struct sl_query {
    sl_query_kind kind;  /* which form */
    int pos;             /* byte offset of SELECT / VALUES / the left operand */
    /* SELECT */
    bool distinct;       /* SELECT DISTINCT */
    sl_list *items;      /* of sl_select_item* */
    sl_from *from;       /* FROM clause (comma lists become CROSS joins); NULL if none */
    sl_expr *where;      /* WHERE, or NULL */
    sl_list *group_by;   /* of sl_expr*, or NULL */
    sl_expr *having;     /* HAVING, or NULL */
    /* UNION */
    sl_query *left;      /* left operand */
    sl_query *right;     /* right operand */
    bool all;            /* UNION ALL (plain UNION = distinct) */
    /* VALUES */
    sl_list *rows;       /* of sl_list* of sl_expr* */
    /* every kind */
    sl_list *order_by;   /* of sl_order_item*, or NULL */
    sl_expr *limit;      /* LIMIT n, or NULL */
    sl_expr *offset;     /* OFFSET n, or NULL */
};

typedef enum sl_from_kind {
    SL_FROM_TABLE,    /* name [AS alias] */
    SL_FROM_SUBQUERY, /* (query) [AS alias] */
    SL_FROM_JOIN,     /* left join_type JOIN right ON on */
    SL_FROM_WINDOW,   /* TABLE(TUMBLE|HOP|CUMULATE|SESSION(TABLE name [PARTITION BY ...], DESCRIPTOR(col), args...)) [AS alias] */
    SL_FROM_FUNCTION, /* PostgreSQL: [schema.]name(args) [AS alias], a set-returning function
                         (generate_series, unnest) */
} sl_from_kind;

/* SEMI / ANTI / SINGLE are the binder's, for subqueries (bind.c): EXISTS and
** IN (left rows some right row matches), NOT EXISTS and NOT IN (that none
** matches), a scalar subquery (LEFT, 21000 when several rows match). */
typedef enum sl_join_type {
    SL_JOIN_INNER, SL_JOIN_LEFT, SL_JOIN_RIGHT, SL_JOIN_FULL, SL_JOIN_CROSS,
    SL_JOIN_SEMI, SL_JOIN_ANTI, SL_JOIN_SINGLE
} sl_join_type;
typedef enum sl_window_fn { SL_WIN_TUMBLE, SL_WIN_HOP, SL_WIN_CUMULATE, SL_WIN_SESSION } sl_window_fn;

struct sl_from {
    sl_from_kind kind;  /* which form */
    int pos;            /* byte offset of the item */
    char *name;         /* TABLE: table/view name */
    char *schema;       /* TABLE: schema qualifier (pg_catalog.pg_class), or NULL */
    char *alias;        /* AS alias, or NULL */
    int alias_pos;      /* byte offset of alias, or -1 */
    sl_query *subquery; /* SUBQUERY */
    int join_type;      /* JOIN: sl_join_type */
    sl_from *left;      /* JOIN: left input */
    sl_from *right;     /* JOIN: right input */
    sl_expr *on;        /* JOIN: ON condition; NULL for CROSS */
    int window_fn;      /* WINDOW: sl_window_fn */
    sl_from *input;     /* WINDOW: the TABLE argument (an SL_FROM_TABLE node) */
    char *time_col;     /* WINDOW: DESCRIPTOR(column) */
    int time_col_pos;   /* WINDOW: byte offset of the descriptor column */
    sl_list *partition; /* WINDOW: SESSION's PARTITION BY columns (sl_ident*), or NULL */
    sl_expr *as_of;     /* TABLE: FOR SYSTEM_TIME AS OF expr (a temporal or lookup
                           join's right side), or NULL */
    sl_list *columns;   /* FUNCTION: its column alias list, AS t(a, b) (sl_ident*), or NULL */
    bool ordinality;    /* FUNCTION: WITH ORDINALITY (UNNEST) */
    sl_list *args;      /* FUNCTION: its arguments (sl_expr*);
                           WINDOW: of sl_expr* — TUMBLE: size [, offset];
                           HOP: slide, size [, offset]; CUMULATE: step, size [, offset];
                           SESSION: gap */
};

/* ------------------------------------------------------------------------
** Statements.
*/
typedef enum sl_stmt_kind {
    SL_STMT_CREATE_TABLE,  /* CREATE TABLE [IF NOT EXISTS] name (...) [COMMENT] WITH (...) */
    SL_STMT_DROP_TABLE,    /* DROP TABLE [IF EXISTS] name */
    SL_STMT_ALTER_SET,     /* ALTER TABLE name SET (options) */
    SL_STMT_ALTER_RESET,   /* ALTER TABLE name RESET (keys): options with NULL values */
    SL_STMT_CREATE_VIEW,   /* CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(cols)] AS query */
    SL_STMT_DROP_VIEW,     /* DROP [TEMPORARY] VIEW [IF EXISTS] name */
    SL_STMT_INSERT,        /* INSERT INTO name [(columns)] query   (VALUES is a query) */
    SL_STMT_STATEMENT_SET, /* EXECUTE STATEMENT SET BEGIN insert; ... END */
    SL_STMT_QUERY,         /* a bare query */
    SL_STMT_SET,           /* SET ['key' = 'value']: name = key (name_pos = its quote),
                              options = that one pair (with positions), options_pos = SET;
                              SET alone lists: name == NULL, options == NULL */
    SL_STMT_RESET,         /* RESET ['key']: name = key; name == NULL resets all */
    SL_STMT_SHOW,          /* SHOW TABLES|VIEWS|JOBS|CONNECTORS|[USER] FUNCTIONS|CREATE TABLE|VIEW name */
    SL_STMT_DESCRIBE,      /* DESCRIBE name / DESC name */
    SL_STMT_EXPLAIN,       /* EXPLAIN stmt */
    SL_STMT_STOP_JOB,      /* STOP JOB 'id' [WITH SAVEPOINT] */
    SL_STMT_DROP_JOB,      /* DROP JOB 'id' [WITH SAVEPOINTS]: with_savepoint */
    /* PostgreSQL session statements (planner/session_pg.c) */
    SL_STMT_PG_SET,        /* SET [SESSION|LOCAL] name {TO|=} value|DEFAULT; SET TIME ZONE v:
                              name (as written; "TimeZone"), value (NULL = DEFAULT), local;
                              SET [SESSION CHARACTERISTICS AS] TRANSACTION modes: name NULL */
    SL_STMT_PG_SHOW,       /* SHOW name | ALL (name NULL) | TIME ZONE | TRANSACTION ISOLATION LEVEL */
    SL_STMT_PG_RESET,      /* RESET name | ALL (name NULL) | TIME ZONE */
    SL_STMT_TXN,           /* BEGIN / START TRANSACTION / COMMIT / ROLLBACK / SAVEPOINT name /
                              RELEASE name / ROLLBACK TO name: sub = sl_txn_kind */
    SL_STMT_DISCARD,       /* DISCARD ALL|PLANS|SEQUENCES|TEMP: sub = sl_discard_kind */
    /* Cursors, PostgreSQL's forms (what psql's FETCH_COUNT and psycopg send): */
    SL_STMT_DECLARE_CURSOR, /* DECLARE name [BINARY] [NO SCROLL] CURSOR [WITH[OUT] HOLD] FOR
                               query: name, query, binary */
    SL_STMT_FETCH,          /* FETCH [FORWARD] [n | ALL | NEXT] [FROM | IN] name: name, count */
    SL_STMT_MOVE,           /* MOVE, as FETCH, skipping the rows */
    SL_STMT_CLOSE_CURSOR,   /* CLOSE name | CLOSE ALL (name NULL) */
    SL_STMT_DROP_FUNCTION,  /* DROP [TEMPORARY [SYSTEM]] FUNCTION IF EXISTS [c.][d.]name: name
                               (the last part), temporary, sub = 1 for SYSTEM; a no-op, as no
                               user-defined function exists (without IF EXISTS: 0A000) */
    /* Flink SQL client statements (planner/session_flink.c) */
    SL_STMT_HELP,           /* HELP */
    SL_STMT_USE,            /* USE [catalog.]database | USE CATALOG catalog: name = the
                               database (NULL for USE CATALOG), value = the catalog when named */
    SL_STMT_ALTER_RENAME,   /* ALTER TABLE name RENAME TO value (value_pos) */
    SL_STMT_BEGIN_SET,      /* BEGIN STATEMENT SET (INSERTs collected until END) */
    SL_STMT_RECONCILE,      /* RECONCILE name AGAINST source ON keys [COMPARE compare]
                               [WHERE where] [FOR JOB 'job'] [REPAIR] */
} sl_stmt_kind;

/* The one catalog and database, named as Flink names them. */
#define SL_CATALOG_NAME "default_catalog"
#define SL_DATABASE_NAME "default_database"

/* EXPLAIN's details (Flink's ExplainDetail), or-ed in sub. */
#define SL_EXPLAIN_CHANGELOG_MODE 1
#define SL_EXPLAIN_ESTIMATED_COST 2
#define SL_EXPLAIN_JSON_EXECUTION_PLAN 4
#define SL_EXPLAIN_PLAN_ADVICE 8

typedef enum sl_txn_kind {
    SL_TXN_BEGIN, SL_TXN_START, SL_TXN_COMMIT, SL_TXN_ROLLBACK, SL_TXN_SAVEPOINT,
    SL_TXN_RELEASE, SL_TXN_ROLLBACK_TO,
    SL_TXN_END, /* END: COMMIT, or the end of a BEGIN STATEMENT SET */
} sl_txn_kind;

typedef enum sl_discard_kind {
    SL_DISCARD_ALL, SL_DISCARD_PLANS, SL_DISCARD_SEQUENCES, SL_DISCARD_TEMP,
} sl_discard_kind;

typedef enum sl_show_kind {
    SL_SHOW_TABLES, SL_SHOW_VIEWS, SL_SHOW_JOBS, SL_SHOW_CONNECTORS,
    SL_SHOW_CREATE_TABLE, SL_SHOW_CREATE_VIEW,
    SL_SHOW_FUNCTIONS,      /* SHOW FUNCTIONS: the built-in functions */
    SL_SHOW_USER_FUNCTIONS, /* SHOW USER FUNCTIONS: none (no user-defined functions) */
    SL_SHOW_JOB,            /* DESCRIBE JOB 'name' / SHOW JOB 'name': one job in full */
    SL_SHOW_CATALOGS, SL_SHOW_DATABASES, SL_SHOW_CURRENT_CATALOG, SL_SHOW_CURRENT_DATABASE,
} sl_show_kind;

typedef struct sl_column_def {
    char *name;    /* column name */
    int pos;       /* byte offset of the name */
    sl_type type;  /* type incl. NOT NULL */
    int type_pos;  /* byte offset of the type */
    char *comment; /* COMMENT '..', or NULL */
    sl_expr *expr; /* computed column: `name AS expr` (type unset), or NULL */
    bool metadata; /* metadata column: `name type METADATA [FROM 'key'] [VIRTUAL]` */
    char *meta_key; /* its FROM 'key', or NULL: the key is the column's name */
    int meta_pos;  /* byte offset of METADATA (or of the key when given) */
    bool is_virtual; /* VIRTUAL: read only, not part of what a sink writes */
    sl_list *fields; /* type ROW: its fields in order (sl_column_def*: name, type,
                        comment, nested fields; no expr), else NULL */
} sl_column_def;

/* Append a declared column's or field's type as Flink spells it: its
** sl_type_format, or for a ROW "ROW<`f1` T1, `f2` T2 'comment'>" (NOT NULL
** after the ROW's or a field's type when it has it). flags: */
#define SL_TYPEFMT_COMMENTS 1 /* the fields' comments (CREATE TABLE; DESCRIBE has none) */
#define SL_TYPEFMT_NULLABLE 2 /* not c's own NOT NULL (DESCRIBE shows it apart) */
void sl_column_def_type_format(sl_strbuf *sb, const sl_column_def *c, int flags);
/* Append a metadata column's extras as Flink spells them (SHOW CREATE
** TABLE, DESCRIBE): "METADATA [FROM 'key'] [VIRTUAL]". */
void sl_column_def_meta_format(sl_strbuf *sb, const sl_column_def *c);

typedef struct sl_ident {
    char *name; /* identifier */
    int pos;    /* byte offset */
} sl_ident;

/* CREATE TABLE ... LIKE source (like options): what is taken from the
** source, and how it merges with the new table's own (Flink's
** MergingStrategy). Without options: INCLUDING ALL OVERWRITING OPTIONS. */
typedef enum sl_like_feature {
    SL_LIKE_ALL, SL_LIKE_CONSTRAINTS, SL_LIKE_GENERATED, SL_LIKE_OPTIONS, SL_LIKE_PARTITIONS,
    SL_LIKE_WATERMARKS, SL_LIKE_METADATA, SL_LIKE_NFEATURES
} sl_like_feature;
typedef enum sl_like_mode {
    SL_LIKE_DEFAULT = 0, SL_LIKE_INCLUDING, SL_LIKE_EXCLUDING, SL_LIKE_OVERWRITING
} sl_like_mode;

struct sl_stmt {
    sl_stmt_kind kind;      /* which statement */
    int pos;                /* byte offset of the first token */
    int end;                /* byte offset just past the last token (before ';') */
    char *name;             /* table / view name; SET/RESET key; STOP JOB id */
    int name_pos;           /* byte offset of name */
    bool if_not_exists;     /* CREATE ... IF NOT EXISTS */
    bool if_exists;         /* DROP ... IF EXISTS */
    bool temporary;         /* CREATE/DROP TEMPORARY TABLE/VIEW */
    /* CREATE TABLE */
    sl_list *columns;       /* of sl_column_def* */
    sl_list *primary_key;   /* of sl_ident*, or NULL */
    int pk_pos;             /* byte offset of PRIMARY */
    sl_ident *wm_column;    /* WATERMARK FOR column, or NULL */
    sl_expr *wm_expr;       /* AS expression */
    char *comment;          /* table COMMENT, or NULL */
    sl_list *partition_by;  /* of sl_ident*: PARTITIONED BY columns, or NULL */
    sl_ident *like;         /* LIKE source table, or NULL (resolved at CREATE time) */
    uint8_t like_opts[SL_LIKE_NFEATURES]; /* per sl_like_feature: sl_like_mode */
    sl_kvlist *options;     /* WITH (...), ALTER SET/RESET keys, SET key/value (one pair) */
    int options_pos;        /* byte offset of WITH / SET / RESET */
    /* CREATE VIEW, INSERT, QUERY */
    sl_query *query;        /* the query */
    sl_list *column_names;  /* of sl_ident*: INSERT INTO t (a, b) / CREATE VIEW v (a, b); or NULL */
    /* STATEMENT SET */
    sl_list *stmts;         /* of sl_stmt* (INSERTs) */
    /* SHOW */
    int show;               /* sl_show_kind */
    /* EXPLAIN */
    sl_stmt *inner;         /* the explained statement */
    /* STOP JOB */
    bool with_savepoint;    /* WITH SAVEPOINT */
    /* PostgreSQL session statements */
    char *value;            /* PG_SET: the value as text (a list joined by ", "), NULL = DEFAULT */
    int value_pos;          /* byte offset of the value (of DEFAULT) */
    bool local;             /* SET LOCAL */
    int sub;                /* TXN: sl_txn_kind; DISCARD: sl_discard_kind; DROP_FUNCTION: SYSTEM;
                               EXPLAIN: SL_EXPLAIN_* details; DESCRIBE: 1 = EXTENDED */
    /* DECLARE / FETCH / MOVE */
    bool binary;            /* DECLARE ... BINARY CURSOR */
    int64_t count;          /* FETCH / MOVE: rows, -1 = ALL */
    /* RECONCILE (name = the ledger) */
    sl_ident *source;       /* AGAINST table: the source of truth */
    sl_list *keys;          /* ON columns (sl_ident*) */
    sl_list *compare;       /* COMPARE columns (sl_ident*), or NULL */
    sl_expr *where;         /* WHERE predicate over the source's columns, or NULL */
    char *job;              /* FOR JOB 'name', or NULL */
    int job_pos;            /* byte offset of its string */
    bool repair;            /* REPAIR */
};

/* ------------------------------------------------------------------------
** Tokens (tokenize.c). Token type codes come from the generated grammar
** header (TK_*); these extra codes are never passed to the parser.
*/
#define SL_TK_SPACE 1000   /* whitespace */
#define SL_TK_COMMENT 1001 /* -- or block comment */
#define SL_TK_ILLEGAL 1002 /* a byte that starts no token; an unterminated string/identifier/comment;
                              a token holding bytes that are not UTF-8 */
#define SL_TK_EOF 1003     /* end of input */

typedef struct sl_token {
    int type;   /* TK_* from the grammar, or SL_TK_* above */
    int pos;    /* byte offset of the first byte */
    int len;    /* length in bytes */
    bool unterminated; /* ILLEGAL because a string, quoted identifier or comment never ended */
    int bad_utf8;      /* ILLEGAL because of this byte offset: the first byte of the token
                          that is not well-formed UTF-8; else -1 */
} sl_token;

/* Scan the token that starts at byte offset off of sql[0..len). Never reads
** past len. Keywords are matched case-insensitively; a keyword that is also
** usable as an identifier is still returned as its keyword code (the grammar's
** %fallback turns it into an identifier). Every byte of every token
** (comments, strings and quoted identifiers included) must be well-formed
** UTF-8: a token that holds one that is not is ILLEGAL with bad_utf8 set. */
void sl_tokenize_next(const char *sql, size_t len, size_t off, sl_token *tok);

/* All keywords, upper case, sorted (for completion in the shell). */
const char *const *sl_keywords(int *n);

/* ------------------------------------------------------------------------
** Parsing (parse.c).
*/
/* Parse all statements in sql[0..len) (separated by ';'). On success returns 0
** and appends sl_stmt* to out (caller frees with sl_stmt_free). On error
** returns -1, sets err (42601 with position) and appends nothing. An empty
** text (only spaces/comments) yields no statements. */
int sl_parse(const char *sql, size_t len, sl_list *out, sl_error *err);

/* Parse exactly one statement (a trailing ';' is allowed). NULL + err on
** error, or when the text holds zero or several statements. */
sl_stmt *sl_parse_one(const char *sql, size_t len, sl_error *err);

/* Statement splitting for the shell and for scripts, without parsing.
** Looks for the end of the first statement in sql[0..len): a ';' outside of
** strings, quoted identifiers and comments, and outside of an
** EXECUTE STATEMENT SET BEGIN ... END block. Returns:
**   1  complete: *stmt_len = bytes up to and including that ';'
**   0  incomplete: more input is needed (also for an unterminated string or comment)
**  -1  nothing but whitespace, comments and empty statements (';' alone)
** Empty statements before a statement are part of its text (the parser
** skips them too).
** The shell feeds the rest (sql + *stmt_len) back in for the next statement. */
int sl_sql_split(const char *sql, size_t len, size_t *stmt_len);

/* ------------------------------------------------------------------------
** Builders (build.c). Each takes ownership of its pointer arguments, accepts
** NULL children, and returns the new node. Used by the grammar; tests may use
** them too.
*/
sl_expr *sl_expr_new(sl_expr_kind kind, int pos);
sl_expr *sl_expr_literal(sl_expr_kind kind, const char *text, size_t len, int pos);
sl_expr *sl_expr_unary(int op, sl_expr *operand, int pos);
sl_expr *sl_expr_binary(int op, sl_expr *left, sl_expr *right, int op_pos);
sl_expr *sl_expr_column(char *qualifier, char *name, int pos);
sl_expr *sl_expr_func(char *name, sl_list *args, bool distinct, int pos);

/* ------------------------------------------------------------------------
** Lifetimes (ast.c). All accept NULL.
*/
void sl_expr_free(sl_expr *e);
void sl_query_free(sl_query *q);
void sl_from_free(sl_from *f);
void sl_stmt_free(sl_stmt *s);
void sl_order_item_free(sl_order_item *o);
void sl_select_item_free(sl_select_item *it);
void sl_column_def_free(sl_column_def *c);
/* Deep copy (a ROW's fields included). */
sl_column_def *sl_column_def_dup(const sl_column_def *c);
void sl_ident_free(sl_ident *id);
void sl_window_spec_free(sl_window_spec *w);
/* Deep copy; NULL in, NULL out. */
sl_window_spec *sl_window_spec_dup(const sl_window_spec *w);
/* Adapters for sl_list_free. */
void sl_expr_free_v(void *p);
void sl_window_spec_free_v(void *p); /* sl_window_spec_free for list callbacks */
void sl_stmt_free_v(void *p);

sl_expr *sl_expr_dup(const sl_expr *e);
sl_query *sl_query_dup(const sl_query *q);
sl_stmt *sl_stmt_dup(const sl_stmt *s);

/* Structural equality ignoring positions (for the round-trip tests). */
bool sl_expr_equal(const sl_expr *a, const sl_expr *b);
bool sl_query_equal(const sl_query *a, const sl_query *b);
bool sl_stmt_equal(const sl_stmt *a, const sl_stmt *b);

/* ------------------------------------------------------------------------
** Printing (print.c): canonical Flink SQL. Identifiers are back-quoted when
** they are not plain (keyword, not [A-Za-z_][A-Za-z0-9_]*); strings are
** single-quoted with '' escapes. Parsing the output gives an equal AST.
** Expressions are fully parenthesized where precedence would otherwise matter.
** CREATE TABLE prints on several lines as Flink's SHOW CREATE TABLE does:
**   CREATE TABLE `t` (\n  `a` INT NOT NULL COMMENT 'x',\n  ...,\n  PRIMARY KEY (`a`) NOT ENFORCED,\n
**   WATERMARK FOR `ts` AS `ts` - INTERVAL '5' SECOND\n) COMMENT '..' WITH (\n  'k' = 'v',\n  ...\n)
** (identifiers always back-quoted there); every other statement prints on one line.
** Options whose key is secret per is_secret() print their value as '******'
** (SL_REDACTED; is_secret may be NULL: nothing is redacted, as the catalog
** file needs). The engine passes sl_option_secret_fn, its one rule.
*/
typedef bool (*sl_secret_fn)(const char *key, void *ctx);
void sl_expr_print(sl_strbuf *sb, const sl_expr *e);
void sl_query_print(sl_strbuf *sb, const sl_query *q);
void sl_stmt_print(sl_strbuf *sb, const sl_stmt *s, sl_secret_fn is_secret, void *ctx);
void sl_ident_print(sl_strbuf *sb, const char *name);  /* quotes when needed */

/* Statement text as typed, with secret values hidden (redact.c): appends
** sql[0..len) to out with the literal of every `'key' = 'value'` whose key
** is_secret(key, ctx) replaced by '******' (an unterminated one up to the end
** of the text; a value typed without quotes too). When pos is not NULL, the byte offset *pos into sql is moved
** to the same place in the copy (to the start of a hidden value when it
** pointed inside one). Returns how many values were hidden. */
int sl_sql_redact(const char *sql, size_t len, sl_secret_fn is_secret, void *ctx,
                  sl_strbuf *out, size_t *pos);
/* The values sl_sql_redact would hide, appended to out as (key, value as
** typed) and, for a quoted value, also (key, value without its quotes).
** Returns how many values. */
int sl_sql_secret_values(const char *sql, size_t len, sl_secret_fn is_secret, void *ctx,
                         sl_kvlist *out);
const char *sl_op_name(int op);                        /* "+", "AND", "<>" ... */
const char *sl_unit_name(int unit);                    /* "SECOND" ... */

#endif /* SL_PARSER_H */
