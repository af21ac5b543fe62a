/*
** sql.y — the lemon grammar of Sluice's SQL (Flink SQL dialect).
**
** Every action is one builder call (build.c) or a plain copy; builders take
** ownership of their inputs and accept NULL children. Every pointer-valued
** non-terminal has a %destructor, so error recovery never leaks. Non-reserved
** keywords fall back to ID (%fallback), so `data`, `key`, `ts`, `watermark`,
** ... work as names. The parse context `p` (parse_int.h) collects errors and
** finished statements; parse.c feeds tokens and stops at the first error.
**
** Keywords that may follow an optional alias (LEFT, RIGHT, OFFSET, FROM, ...)
** are reserved: with a default reduction, lemon would otherwise take them
** for the alias.
*/

%include {
#include <assert.h>
#include "parse_int.h"
}

%name sl_sqlParser
%token_prefix TK_
%token_type {sl__tok}
%default_type {int}
%extra_context {sl__parse *p}
%stack_size 2500
%start_symbol input

%syntax_error { sl__syntax_error(p, yymajor, TOKEN); }
%stack_overflow { sl__stack_overflow(p); }

/* Token order: punctuation first, then literals, then keywords. */
%token SEMI LP RP COMMA DOT STAR PLUS MINUS SLASH PERCENT CONCAT EQ NE LT LE GT GE ARROW.
%token ID STRING NUMBER.
%token PARAM. /* $n (cursors slice) */
%token XSTRING. /* X'0a1b': a binary string */
%token LBRACKET RBRACKET. /* PostgreSQL: a[i], expr::type[] */

%fallback ID
  ALTER ASC BEGIN BIGINT BINARY BOOLEAN BYTES CHAR COMMENT CONNECTORS CONSTRAINT CUMULATE
  DATE DAY DAYS DEC DECIMAL DESC DESCRIBE DESCRIPTOR DOUBLE DROP ENFORCED EXECUTE EXISTS
  EXPLAIN FILTER FIRST FLOAT HOP HOUR HOURS IF INT INTEGER INTERVAL JOB JOBS KEY LAST LOCAL MINUTE
  MINUTES MONTH MONTHS NULLS NUMERIC PARTITION PLAN PRECISION PRIMARY RESET SAVEPOINT SECOND
  CURRENT PRECEDING RANGE ROWS UNBOUNDED
  SECONDS SHOW SMALLINT STATEMENT STOP STRING_KW SUBSTRING TABLES TEMPORARY TIME TIMESTAMP
  TIMESTAMP_LTZ TINYINT TRY_CAST TUMBLE UNKNOWN VARBINARY VARCHAR VIEW VIEWS WATERMARK WITHOUT
  YEAR YEARS ZONE.
/* The nested types' keywords stay usable as names (ROW(...) as a call, ARRAY(SELECT ...)). */
%fallback ID ARRAY MAP MULTISET ROW.
/* Function DDL's and the SQL-standard type spellings' keywords stay usable as names. */
%fallback ID CHARACTER FUNCTION FUNCTIONS JAR LANGUAGE SYSTEM USING VARYING.
/* CREATE TABLE's PARTITIONED BY and LIKE's options' keywords stay usable as names. */
%fallback ID CONSTRAINTS EXCLUDING GENERATED INCLUDING METADATA OPTIONS OVERWRITING PARTITIONED
  PARTITIONS WATERMARKS.
/* A metadata column's VIRTUAL stays usable as a name. */
%fallback ID VIRTUAL.
/* TRIM's BOTH / LEADING / TRAILING stay usable as names (not as a call's
** first argument: Flink reserves them). */
%fallback ID BOTH LEADING TRAILING.
/* FOR SYSTEM_TIME AS OF's keywords stay usable as names. */
%fallback ID OF SYSTEM_TIME.
/* Cursor statements' keywords stay usable as names. */
%fallback ID ABSOLUTE BACKWARD CLOSE CURSOR DECLARE FETCH FORWARD HOLD MOVE NEXT NO PRIOR
  RELATIVE SCROLL.
/* FETCH FIRST n ROWS ONLY's ONLY stays usable as a name. */
%fallback ID ONLY.
/* RECONCILE's keywords stay usable as names. */
%fallback ID AGAINST COMPARE RECONCILE REPAIR.

%left OR.
%left AND.
%right NOT.
%left IS BETWEEN IN LIKE EQ NE LT LE GT GE.
%right ESCAPE.
%left TILDE NTILDE ITILDE NITILDE OPERATOR. /* PostgreSQL: "any other operator" */
%left PLUS MINUS CONCAT.
%left STAR SLASH PERCENT.
%right UMINUS.
%left COLLATE.
%left DCOLON.
%left LBRACKET.
/* INTERVAL '1' DAY TO HOUR: TO continues the interval (shift) rather than
** ending it before FLOOR(t TO unit)'s TO (the empty tprec reduces at OR's
** lower precedence). */
%left TO.

/* ---------------------------------------------------------------- input */
input ::= cmdlist.
cmdlist ::= .
cmdlist ::= cmdlist ecmd.
ecmd ::= SEMI.
ecmd ::= cmd(S) SEMI(T).                 { sl__emit(p, S, T); }

%type cmd {sl_stmt*}
%destructor cmd { sl_stmt_free($$); }
%type insert {sl_stmt*}
%destructor insert { sl_stmt_free($$); }

/* ---------------------------------------------------------------- names */
%type nm {sl__tok}
nm(A) ::= ID(A).
/* A table's or view's name, [catalog.][database.]name as Flink writes it:
** the name (Sluice has one catalog and database; another is 3D000). */
%type tname {sl__tok}
tname(A) ::= nm(A).
tname(A) ::= nm(D) DOT nm(N).            { A = sl__qualified(p, SL__NOTOK, D, N); }
tname(A) ::= nm(C) DOT nm(D) DOT nm(N).  { A = sl__qualified(p, C, D, N); }

%type idlist {sl_list*}
%destructor idlist { sl_list_free($$, sl__ident_free_v); }
idlist(A) ::= nm(N).                     { A = sl__idents(p, NULL, N); }
idlist(A) ::= idlist(L) COMMA nm(N).     { A = sl__idents(p, L, N); }

%type as_opt {sl__tok}
as_opt(A) ::= .                          { A = SL__NOTOK; }
as_opt(A) ::= AS nm(N).                  { A = N; }
as_opt(A) ::= nm(A).

%type ifne {bool}
ifne(A) ::= .                            { A = false; }
ifne(A) ::= IF NOT EXISTS.               { A = true; }
%type ife {bool}
ife(A) ::= .                             { A = false; }
ife(A) ::= IF EXISTS.                    { A = true; }
%type temp {bool}
temp(A) ::= .                            { A = false; }
temp(A) ::= TEMPORARY.                   { A = true; }

/* ------------------------------------------------------------ CREATE TABLE */
cmd(A) ::= CREATE(K) temp(T) TABLE ifne(E) tname(N) LP telems(B) RP comment_opt(C) partby_opt(P)
           with_opt(W) like_opt(L).
          { A = sl__temp(sl__create_table(p, K, E, N, sl__partitioned(p, B, P), C, W, L), T); }

/* Flink's PARTITIONED BY (c1, c2): the filesystem connector's directories. */
%type partby_opt {sl_list*}
%destructor partby_opt { sl_list_free($$, sl__ident_free_v); }
partby_opt(A) ::= .                      { A = NULL; }
partby_opt(A) ::= PARTITIONED BY LP idlist(L) RP. { A = L; }
/* Flink's CREATE TABLE t WITH (...) LIKE source: the columns come from it. */
cmd(A) ::= CREATE(K) temp(T) TABLE ifne(E) tname(N) comment_opt(C) with_opt(W) like(L).
                                         { A = sl__temp(sl__create_table(p, K, E, N,
                                                        sl__table_elem(p, NULL, NULL), C, W, L), T); }

%type like_opt {sl_stmt*}
%destructor like_opt { sl_stmt_free($$); }
like_opt(A) ::= .                        { A = NULL; }
like_opt(A) ::= like(L).                 { A = L; }
/* The LIKE clause is carried in a statement holding `like` and `like_opts`. */
%type like {sl_stmt*}
%destructor like { sl_stmt_free($$); }
like(A) ::= LIKE(K) nm(N).               { A = sl__like_clause(p, K, N); }
like(A) ::= LIKE(K) nm(N) LP likeopts(O) RP.
                                         { A = sl__like_clause(p, K, N); sl__like_opts(p, A, O); }
%type likeopts {sl_list*}
%destructor likeopts { sl_list_free($$, sl__ident_free_v); }
likeopts(A) ::= likeopt(O).              { A = sl__list(p, NULL, O); }
likeopts(A) ::= likeopts(L) likeopt(O).  { A = sl__list(p, L, O); }
/* One option as an identifier "MODE FEATURE" at the mode's position. */
%type likeopt {sl_ident*}
%destructor likeopt { sl_ident_free($$); }
likeopt(A) ::= INCLUDING(M) likefeat(F). { A = sl__like_opt(p, M, F); }
likeopt(A) ::= EXCLUDING(M) likefeat(F). { A = sl__like_opt(p, M, F); }
likeopt(A) ::= OVERWRITING(M) likefeat(F).
                                         { A = sl__like_opt(p, M, F); }
%type likefeat {sl__tok}
likefeat(A) ::= ALL(T).                  { A = T; }
likefeat(A) ::= CONSTRAINTS(T).          { A = T; }
likefeat(A) ::= GENERATED(T).            { A = T; }
likefeat(A) ::= OPTIONS(T).              { A = T; }
likefeat(A) ::= PARTITIONS(T).           { A = T; }
likefeat(A) ::= WATERMARKS(T).           { A = T; }
likefeat(A) ::= METADATA(T).             { A = T; }

%type telems {sl_stmt*}
%destructor telems { sl_stmt_free($$); }
telems(A) ::= telem(E).                  { A = sl__table_elem(p, NULL, E); }
telems(A) ::= telems(B) COMMA telem(E).  { A = sl__table_elem(p, B, E); }

%type telem {sl__telem*}
%destructor telem { sl__telem_free($$); }
telem(A) ::= nm(N) type(T) notnull(X) colpk(K) comment_opt(C).
                                         { A = sl__column_elem(p, N, T, X, K, C); }
telem(A) ::= nm(N) rowtype(R) notnull(X) colpk(K) comment_opt(C).
                                         { A = sl__row_column_elem(p, N, R, X, K, C); }
telem(A) ::= nm(N) type(T) notnull(X) METADATA(M) metafrom(F) virtual(V) comment_opt(C).
                                         { A = sl__metadata_elem(p, N, T, X, M, F, V, C); }
telem(A) ::= nm(N) AS expr(X) comment_opt(C).
                                         { A = sl__computed_elem(p, N, X, C); }
telem(A) ::= PRIMARY(K) KEY LP idlist(L) RP enforced(E).
                                         { A = sl__pk_elem(p, K, L, E); }
telem(A) ::= CONSTRAINT nm PRIMARY(K) KEY LP idlist(L) RP enforced(E).
                                         { A = sl__pk_elem(p, K, L, E); }
telem(A) ::= WATERMARK(K) FOR nm(N) AS expr(X).
                                         { A = sl__watermark_elem(p, K, N, X); }

/* A metadata column's FROM 'key' (SL__NOTOK: the column's name) and VIRTUAL. */
%type metafrom {sl__tok}
metafrom(A) ::= .                        { A = SL__NOTOK; }
metafrom(A) ::= FROM STRING(S).          { A = S; }
%type virtual {bool}
virtual(A) ::= .                         { A = false; }
virtual(A) ::= VIRTUAL.                  { A = true; }

%type notnull {bool}
notnull(A) ::= .                         { A = false; }
notnull(A) ::= NULL.                     { A = false; }
notnull(A) ::= NOT NULL.                 { A = true; }

%type colpk {sl__telem*}
%destructor colpk { sl__telem_free($$); }
colpk(A) ::= .                           { A = NULL; }
colpk(A) ::= PRIMARY(K) KEY enforced(E). { A = sl__pk_elem(p, K, NULL, E); }

%type enforced {bool}
enforced(A) ::= .                        { A = true; }
enforced(A) ::= NOT ENFORCED.            { A = false; }

%type comment_opt {sl__tok}
comment_opt(A) ::= .                     { A = SL__NOTOK; }
comment_opt(A) ::= COMMENT STRING(S).   { A = S; }

%type with_opt {sl__opts}
%destructor with_opt { sl_kvlist_free($$.kv); }
with_opt(A) ::= .                        { A = SL__NOOPTS; }
with_opt(A) ::= WITH(K) LP kvlist(L) RP. { A = sl__opts_make(p, K, L); }

%type kvlist {sl_kvlist*}
%destructor kvlist { sl_kvlist_free($$); }
kvlist(A) ::= STRING(K) EQ STRING(V).    { A = sl__kv(p, NULL, K, V); }
kvlist(A) ::= kvlist(L) COMMA STRING(K) EQ STRING(V).
                                         { A = sl__kv(p, L, K, V); }
%type keylist {sl_kvlist*}
%destructor keylist { sl_kvlist_free($$); }
keylist(A) ::= STRING(K).                { A = sl__kv(p, NULL, K, SL__NOTOK); }
keylist(A) ::= keylist(L) COMMA STRING(K).
                                         { A = sl__kv(p, L, K, SL__NOTOK); }

/* ------------------------------------------------------------ other DDL */
cmd(A) ::= DROP(K) temp(T) TABLE ife(E) tname(N).
                                         { A = sl__drop(p, SL_STMT_DROP_TABLE, K, T, E, N); }
cmd(A) ::= ALTER(K) TABLE tname(N) RENAME TO nm(M).
                                         { A = sl__alter_rename(p, K, N, M); }
cmd(A) ::= ALTER(K) TABLE tname(N) SET(S) LP kvlist(L) RP.
                                         { A = sl__alter(p, SL_STMT_ALTER_SET, K, N, S, L); }
cmd(A) ::= ALTER(K) TABLE tname(N) RESET(S) LP keylist(L) RP.
                                         { A = sl__alter(p, SL_STMT_ALTER_RESET, K, N, S, L); }
cmd(A) ::= CREATE(K) temp(T) VIEW ifne(E) tname(N) colnames(C) AS query(Q).
                                         { A = sl__create_view(p, K, T, E, N, C, Q); }
cmd(A) ::= DROP(K) temp(T) VIEW ife(E) tname(N).
                                         { A = sl__drop(p, SL_STMT_DROP_VIEW, K, T, E, N); }

/* ------------------------------------------------------------ function DDL
** Flink's CREATE / ALTER / DROP [TEMPORARY [SYSTEM]] FUNCTION name a class
** of a JVM or Python runtime; Sluice runs none, so each is parsed in full and
** refused with 0A000 (sl__function_ddl), except DROP ... IF EXISTS: a no-op. */
cmd(A) ::= CREATE(K) udftemp FUNCTION ifne udfname AS STRING udflang udfusing.
                                         { A = sl__function_ddl(p, K, "CREATE"); }
cmd(A) ::= ALTER(K) udftemp FUNCTION ife udfname AS STRING udflang.
                                         { A = sl__function_ddl(p, K, "ALTER"); }
cmd(A) ::= DROP(K) udftemp(T) FUNCTION ife(E) udfname(N).
                                         { A = sl__drop_function(p, K, T, E, N); }
%type udftemp {int}
udftemp(A) ::= temp(T).                  { A = T; }
udftemp(A) ::= TEMPORARY SYSTEM.         { A = 2; }
/* [catalog.][database.]name: the name (Sluice has one catalog and database). */
%type udfname {sl__tok}
udfname(A) ::= nm(A).
udfname(A) ::= udfname DOT nm(N).        { A = N; }
udflang ::= .
udflang ::= LANGUAGE nm.
udfusing ::= .
udfusing ::= USING udfjars.
udfjars ::= JAR STRING.
udfjars ::= udfjars COMMA JAR STRING.

%type colnames {sl_list*}
%destructor colnames { sl_list_free($$, sl__ident_free_v); }
colnames(A) ::= .                        { A = NULL; }
colnames(A) ::= LP idlist(L) RP.        { A = L; }

/* ------------------------------------------------------------ INSERT, sets */
cmd(A) ::= insert(A).
insert(A) ::= INSERT(K) INTO tname(N) query(Q).
                                         { A = sl__insert(p, K, N, NULL, Q); }
insert(A) ::= INSERT(K) INTO tname(N) LP idlist(C) RP query(Q).
                                         { A = sl__insert(p, K, N, C, Q); }

cmd(A) ::= EXECUTE(K) STATEMENT SET BEGIN setlist(L) END.
                                         { A = sl__statement_set(p, K, L, NULL, SL__NOTOK); }
cmd(A) ::= EXECUTE(K) STATEMENT SET BEGIN setlist(L) insert(I) END(E).
                                         { A = sl__statement_set(p, K, L, I, E); }
%type setlist {sl_list*}
%destructor setlist { sl_list_free($$, sl_stmt_free_v); }
setlist(A) ::= .                         { A = NULL; }
setlist(A) ::= setlist(L) insert(I) SEMI(S).
                                         { A = sl__set_item(p, L, I, S); }

/* ------------------------------------------------------------ utility statements */
cmd(A) ::= query(Q).                     { A = sl__query_stmt(p, Q); }
cmd(A) ::= SET(K).                       { A = sl__set(p, SL_STMT_SET, K, SL__NOTOK, SL__NOTOK); }
cmd(A) ::= SET(K) STRING(X) EQ STRING(V). { A = sl__set(p, SL_STMT_SET, K, X, V); }
cmd(A) ::= RESET(K).                     { A = sl__set(p, SL_STMT_RESET, K, SL__NOTOK, SL__NOTOK); }
cmd(A) ::= RESET(K) STRING(X).           { A = sl__set(p, SL_STMT_RESET, K, X, SL__NOTOK); }
cmd(A) ::= SHOW(K) TABLES.               { A = sl__show(p, K, SL_SHOW_TABLES, SL__NOTOK); }
cmd(A) ::= SHOW(K) VIEWS.                { A = sl__show(p, K, SL_SHOW_VIEWS, SL__NOTOK); }
cmd(A) ::= SHOW(K) JOBS.                 { A = sl__show(p, K, SL_SHOW_JOBS, SL__NOTOK); }
cmd(A) ::= SHOW(K) CONNECTORS.           { A = sl__show(p, K, SL_SHOW_CONNECTORS, SL__NOTOK); }
cmd(A) ::= SHOW(K) FUNCTIONS.            { A = sl__show(p, K, SL_SHOW_FUNCTIONS, SL__NOTOK); }
cmd(A) ::= SHOW(K) USER FUNCTIONS.       { A = sl__show(p, K, SL_SHOW_USER_FUNCTIONS, SL__NOTOK); }
/* SHOW user and SHOW user.x stay parameter names (USER is a keyword here). */
cmd(A) ::= SHOW(K) USER(N).              { A = sl__pg_show(p, K, N, SL__NOTOK); }
cmd(A) ::= SHOW(K) USER(X) DOT nm(Y).
                                         { A = sl__pg_show(p, K, sl__pg_dotted(p, X, Y), SL__NOTOK); }
cmd(A) ::= SHOW(K) CREATE TABLE tname(N).   { A = sl__show(p, K, SL_SHOW_CREATE_TABLE, N); }
cmd(A) ::= SHOW(K) CREATE VIEW tname(N).    { A = sl__show(p, K, SL_SHOW_CREATE_VIEW, N); }
cmd(A) ::= DESCRIBE(K) tname(N).            { A = sl__stmt_named(p, SL_STMT_DESCRIBE, K, N); }
cmd(A) ::= DESC(K) tname(N).                { A = sl__stmt_named(p, SL_STMT_DESCRIBE, K, N); }
cmd(A) ::= EXPLAIN(K) cmd(X).            { A = sl__explain(p, K, X); }
cmd(A) ::= EXPLAIN(K) PLAN FOR cmd(X).   { A = sl__explain(p, K, X); }
/* Flink's EXPLAIN STATEMENT SET BEGIN ... END (without EXECUTE). */
cmd(A) ::= EXPLAIN(K) STATEMENT(T) SET BEGIN setlist(L) END.
                          { A = sl__explain(p, K, sl__statement_set(p, T, L, NULL, SL__NOTOK)); }
cmd(A) ::= EXPLAIN(K) STATEMENT(T) SET BEGIN setlist(L) insert(I) END(E).
                          { A = sl__explain(p, K, sl__statement_set(p, T, L, I, E)); }
/* ------------------------------------------------------------ Flink SQL client statements
** HELP; one catalog and one database, named as Flink names them (SHOW
** CATALOGS / DATABASES / CURRENT ..., USE); DESCRIBE EXTENDED; EXPLAIN's
** details; the client's BEGIN STATEMENT SET; ... END; (planner/session_flink.c). */
%fallback ID CATALOGS CHANGELOG_MODE DATABASES ESTIMATED_COST EXTENDED HELP JSON_EXECUTION_PLAN
  PLAN_ADVICE RENAME USE.
cmd(A) ::= HELP(K).                      { A = sl__stmt_named(p, SL_STMT_HELP, K, SL__NOTOK); }
cmd(A) ::= SHOW(K) CATALOGS.             { A = sl__show(p, K, SL_SHOW_CATALOGS, SL__NOTOK); }
cmd(A) ::= SHOW(K) DATABASES.            { A = sl__show(p, K, SL_SHOW_DATABASES, SL__NOTOK); }
cmd(A) ::= SHOW(K) CURRENT nm(N).        { A = sl__show_current(p, K, N); }
cmd(A) ::= USE(K) nm(N).                 { A = sl__use(p, K, SL__NOTOK, SL__NOTOK, N); }
cmd(A) ::= USE(K) nm(C) DOT nm(N).       { A = sl__use(p, K, SL__NOTOK, C, N); }
cmd(A) ::= USE(K) nm(W) nm(N).           { A = sl__use(p, K, W, SL__NOTOK, N); }
cmd(A) ::= DESCRIBE(K) EXTENDED tname(N).   { A = sl__describe(p, K, N, true); }
cmd(A) ::= DESC(K) EXTENDED tname(N).       { A = sl__describe(p, K, N, true); }
/* DESCRIBE extended: a table named extended. */
cmd(A) ::= DESCRIBE(K) EXTENDED(N).      { A = sl__describe(p, K, N, false); }
cmd(A) ::= DESC(K) EXTENDED(N).          { A = sl__describe(p, K, N, false); }
cmd(A) ::= EXPLAIN(K) xdetails(D) cmd(X). { A = sl__explain_details(p, K, D, X); }
%type xdetails {int}
xdetails(A) ::= xdetail(A).
xdetails(A) ::= xdetails(L) COMMA xdetail(D). { A = L | D; }
%type xdetail {int}
xdetail(A) ::= CHANGELOG_MODE.           { A = SL_EXPLAIN_CHANGELOG_MODE; }
xdetail(A) ::= ESTIMATED_COST.           { A = SL_EXPLAIN_ESTIMATED_COST; }
xdetail(A) ::= JSON_EXECUTION_PLAN.      { A = SL_EXPLAIN_JSON_EXECUTION_PLAN; }
xdetail(A) ::= PLAN_ADVICE.              { A = SL_EXPLAIN_PLAN_ADVICE; }
cmd(A) ::= BEGIN(K) STATEMENT SET.       { A = sl__stmt_named(p, SL_STMT_BEGIN_SET, K, SL__NOTOK); }

cmd(A) ::= STOP(K) JOB STRING(X).        { A = sl__stop_job(p, K, X, false); }
cmd(A) ::= STOP(K) JOB STRING(X) WITH SAVEPOINT.
                                         { A = sl__stop_job(p, K, X, true); }
/* RECONCILE ledger AGAINST source ON key, ... [COMPARE col, ...] [WHERE predicate]
** [FOR JOB 'name'] [REPAIR] (planner/session_reconcile.c). */
cmd(A) ::= RECONCILE(K) tname(L) AGAINST tname(S) ON idlist(I) rcompare(C) where_opt(W) rjob(J)
           rrepair(R).                   { A = sl__reconcile(p, K, L, S, I, C, W, J, R); }
%type rcompare {sl_list*}
%destructor rcompare { sl_list_free($$, sl__ident_free_v); }
rcompare(A) ::= .                        { A = NULL; }
rcompare(A) ::= COMPARE idlist(L).       { A = L; }
%type rjob {sl__tok}
rjob(A) ::= .                            { A = SL__NOTOK; }
rjob(A) ::= FOR JOB STRING(X).           { A = X; }
%type rrepair {bool}
rrepair(A) ::= .                         { A = false; }
rrepair(A) ::= REPAIR.                   { A = true; }
cmd(A) ::= DROP(K) JOB STRING(X).        { A = sl__job_stmt(p, SL_STMT_DROP_JOB, K, X, SL__NOTOK); }
cmd(A) ::= DROP(K) JOB STRING(X) WITH ID(W).
                                         { A = sl__job_stmt(p, SL_STMT_DROP_JOB, K, X, W); }
cmd(A) ::= DESCRIBE(K) JOB STRING(X).    { A = sl__job_stmt(p, SL_STMT_SHOW, K, X, SL__NOTOK); }
cmd(A) ::= DESC(K) JOB STRING(X).        { A = sl__job_stmt(p, SL_STMT_SHOW, K, X, SL__NOTOK); }
cmd(A) ::= SHOW(K) JOB STRING(X).        { A = sl__job_stmt(p, SL_STMT_SHOW, K, X, SL__NOTOK); }

/* ------------------------------------------------------------ PostgreSQL session statements
** What PostgreSQL clients send on their own (planner/session_pg.c runs them):
** SET / SHOW / RESET of PostgreSQL parameters (unquoted names; Flink's
** SET 'key' = 'value' above is the other form), transaction blocks,
** DISCARD. Words that are not keywords (ISOLATION, LEVEL, CHARACTERISTICS,
** PLANS ...) arrive as names and the builders check them. */
%fallback ID ABORT COMMIT CURRENT_CATALOG CURRENT_SCHEMA CURRENT_USER DISCARD RELEASE ROLLBACK SESSION SESSION_USER START
  TRANSACTION USER WORK.

cmd(A) ::= SET(K) pgscope(L) pgname(N) TO pgvalue(V).  { A = sl__pg_set(p, K, L, N, NULL, V); }
cmd(A) ::= SET(K) pgscope(L) pgname(N) EQ pgvalue(V).  { A = sl__pg_set(p, K, L, N, NULL, V); }
cmd(A) ::= SET(K) pgscope(L) TIME(N) ZONE pgvalue(V).
                                         { A = sl__pg_set(p, K, L, N, "TimeZone", V); }
cmd(A) ::= SET(K) pgscope(L) TRANSACTION txnmodes(M).
                                         { A = sl__pg_set_txn(p, K, L, SL__NOTOK, M); }
cmd(A) ::= SET(K) pgscope(L) nm(N) AS TRANSACTION txnmodes(M).
                                         { A = sl__pg_set_txn(p, K, L, N, M); }
cmd(A) ::= SHOW(K) pgname(N).            { A = sl__pg_show(p, K, N, SL__NOTOK); }
cmd(A) ::= SHOW(K) ALL.                  { A = sl__pg_show(p, K, SL__NOTOK, SL__NOTOK); }
cmd(A) ::= SHOW(K) TIME(N) ZONE.         { A = sl__pg_show(p, K, N, SL__NOTOK); }
cmd(A) ::= SHOW(K) TRANSACTION(N) nm(X) nm. { A = sl__pg_show(p, K, N, X); }
cmd(A) ::= SHOW(K) SESSION(N) nm(X).     { A = sl__pg_show(p, K, N, X); }
cmd(A) ::= RESET(K) pgname(N).           { A = sl__pg_reset(p, K, N); }
cmd(A) ::= RESET(K) ALL.                 { A = sl__pg_reset(p, K, SL__NOTOK); }
cmd(A) ::= RESET(K) TIME(N) ZONE.        { A = sl__pg_reset(p, K, N); }
cmd(A) ::= BEGIN(K) work txnmodes(M).    { A = sl__txn(p, SL_TXN_BEGIN, K, SL__NOTOK, M); }
cmd(A) ::= START(K) TRANSACTION txnmodes(M). { A = sl__txn(p, SL_TXN_START, K, SL__NOTOK, M); }
cmd(A) ::= COMMIT(K) work.               { A = sl__txn(p, SL_TXN_COMMIT, K, SL__NOTOK, NULL); }
cmd(A) ::= END(K) work.                  { A = sl__txn(p, SL_TXN_END, K, SL__NOTOK, NULL); }
cmd(A) ::= ROLLBACK(K) work.             { A = sl__txn(p, SL_TXN_ROLLBACK, K, SL__NOTOK, NULL); }
cmd(A) ::= ABORT(K) work.                { A = sl__txn(p, SL_TXN_ROLLBACK, K, SL__NOTOK, NULL); }
cmd(A) ::= SAVEPOINT(K) nm(N).           { A = sl__txn(p, SL_TXN_SAVEPOINT, K, N, NULL); }
cmd(A) ::= RELEASE(K) nm(N).             { A = sl__txn(p, SL_TXN_RELEASE, K, N, NULL); }
cmd(A) ::= RELEASE(K) SAVEPOINT nm(N).   { A = sl__txn(p, SL_TXN_RELEASE, K, N, NULL); }
cmd(A) ::= ROLLBACK(K) work TO nm(N).    { A = sl__txn(p, SL_TXN_ROLLBACK_TO, K, N, NULL); }
cmd(A) ::= ROLLBACK(K) work TO SAVEPOINT nm(N).
                                         { A = sl__txn(p, SL_TXN_ROLLBACK_TO, K, N, NULL); }
cmd(A) ::= DISCARD(K) ALL(W).            { A = sl__discard(p, K, W); }
cmd(A) ::= DISCARD(K) nm(W).             { A = sl__discard(p, K, W); }

/* current_user, session_user, user, current_schema, current_catalog:
** session functions without parentheses. */
niladic(A) ::= CURRENT_USER(A).
niladic(A) ::= CURRENT_SCHEMA(A).
niladic(A) ::= CURRENT_CATALOG(A).
niladic(A) ::= SESSION_USER(A).
niladic(A) ::= USER(A).

/* A parameter's name: a name, or prefix.name (sluice.result_format). */
%type pgname {sl__tok}
pgname(A) ::= nm(A).
pgname(A) ::= nm(X) DOT nm(Y).           { A = sl__pg_dotted(p, X, Y); }

%type pgscope {int}
pgscope(A) ::= .                         { A = 0; }
pgscope(A) ::= SESSION.                  { A = 1; }
pgscope(A) ::= LOCAL.                    { A = 2; }
work ::= .
work ::= WORK.
work ::= TRANSACTION.

/* A parameter's value: names, strings and numbers, a list of them, or DEFAULT. */
%type pgvalue {sl__pgval}
%destructor pgvalue { sl_free($$.text); }
pgvalue(A) ::= pgword(X).                { A = sl__pgval_add(p, SL__NOPGVAL, X); }
pgvalue(A) ::= pgvalue(L) COMMA pgword(X). { A = sl__pgval_add(p, L, X); }
%type pgword {sl__tok}
pgword(A) ::= nm(A).
pgword(A) ::= STRING(A).
pgword(A) ::= NUMBER(A).
pgword(A) ::= ON(A).
pgword(A) ::= TRUE(A).
pgword(A) ::= FALSE(A).
pgword(A) ::= MINUS(K) NUMBER(X).        { A = sl__tok_join(K, X); }
pgword(A) ::= PLUS NUMBER(X).          { A = X; }

/* Transaction modes (ISOLATION LEVEL ..., READ WRITE|ONLY, [NOT] DEFERRABLE),
** checked by the builder. */
%type txnmodes {sl_list*}
%destructor txnmodes { sl_list_free($$, sl__ident_free_v); }
txnmodes(A) ::= .                        { A = NULL; }
txnmodes(A) ::= txnmodes(L) nm(N).       { A = sl__idents(p, L, N); }
txnmodes(A) ::= txnmodes(L) COMMA(N).    { A = sl__idents(p, L, N); }
txnmodes(A) ::= txnmodes(L) NOT(N).      { A = sl__idents(p, L, N); }
/* ------------------------------------------------------------ cursors
** PostgreSQL's DECLARE / FETCH / MOVE / CLOSE (psql's FETCH_COUNT, psycopg's
** named cursors). Forward-only: SCROLL, BACKWARD, PRIOR, ABSOLUTE are not
** accepted; WITH HOLD is (a cursor lives until CLOSE or the session's end). */
cmd(A) ::= DECLARE(K) nm(N) cursor_opts(F) CURSOR hold_opt FOR query(Q).
                                         { A = sl__declare(p, K, N, F, Q); }
%type cursor_opts {int}
cursor_opts(A) ::= .                     { A = 0; }
cursor_opts(A) ::= cursor_opts(B) BINARY. { A = B | 1; }
cursor_opts(A) ::= cursor_opts(B) NO SCROLL. { A = B; }
hold_opt ::= .
hold_opt ::= WITH HOLD.
hold_opt ::= WITHOUT HOLD.
cmd(A) ::= FETCH(K) fetch_count(C) from_in nm(N).
                                         { A = sl__fetch(p, SL_STMT_FETCH, K, C, N); }
cmd(A) ::= MOVE(K) fetch_count(C) from_in nm(N).
                                         { A = sl__fetch(p, SL_STMT_MOVE, K, C, N); }
%type fetch_count {int64_t}
fetch_count(A) ::= .                     { A = 1; }
fetch_count(A) ::= NEXT.                 { A = 1; }
fetch_count(A) ::= FORWARD.              { A = 1; }
fetch_count(A) ::= ALL.                  { A = -1; }
fetch_count(A) ::= FORWARD ALL.          { A = -1; }
fetch_count(A) ::= NUMBER(X).            { A = sl__fetch_count(p, X); }
fetch_count(A) ::= FORWARD NUMBER(X).    { A = sl__fetch_count(p, X); }
/* Backward and absolute moves: a clear 0A000 (cursors scan forward only). */
fetch_count(A) ::= nofwd(K) nofwd_arg.   { A = sl__fetch_backward(p, K); }
fetch_count(A) ::= MINUS(K) NUMBER.      { A = sl__fetch_backward(p, K); }
%type nofwd {sl__tok}
nofwd(A) ::= BACKWARD(A).
nofwd(A) ::= PRIOR(A).
nofwd(A) ::= ABSOLUTE(A).
nofwd(A) ::= RELATIVE(A).
nofwd(A) ::= FIRST(A).
nofwd(A) ::= LAST(A).
nofwd_arg ::= .
nofwd_arg ::= NUMBER.
nofwd_arg ::= MINUS NUMBER.
nofwd_arg ::= ALL.
from_in ::= .
from_in ::= FROM.
from_in ::= IN.
cmd(A) ::= CLOSE(K) nm(N).               { A = sl__close(p, K, N); }
cmd(A) ::= CLOSE(K) ALL.                 { A = sl__close(p, K, SL__NOTOK); }

/* ------------------------------------------------------------ queries */
%type query {sl_query*}
%destructor query { sl_query_free($$); }
query(A) ::= qbody(Q) qtail(T).          { A = sl__query_tail(p, Q, T); }

%type qbody {sl_query*}
%destructor qbody { sl_query_free($$); }
qbody(A) ::= qprim(A).
qbody(A) ::= qbody(L) UNION(K) qprim(R). { A = sl__union(p, L, R, false, K); }
qbody(A) ::= qbody(L) UNION(K) DISTINCT qprim(R).
                                         { A = sl__union(p, L, R, false, K); }
qbody(A) ::= qbody(L) UNION(K) ALL qprim(R).
                                         { A = sl__union(p, L, R, true, K); }

%type qprim {sl_query*}
%destructor qprim { sl_query_free($$); }
qprim(A) ::= qsel(A).
%type qsel {sl_query*}
%destructor qsel { sl_query_free($$); }
qsel(A) ::= SELECT(K) distinct(D) selitems(I) from_opt(F) where_opt(W) groupby_opt(G) having_opt(H)
            window_opt(N).
    { A = sl__select_windows(p, sl__select(p, K, D, I, F, W, G, H), N); }
/* WINDOW w AS (...): windows named for OVER w. */
%type window_opt {sl_list*}
%destructor window_opt { sl_list_free($$, sl_window_spec_free_v); }
window_opt(A) ::= .                      { A = NULL; }
window_opt(A) ::= WINDOW wdefs(L).       { A = L; }
%type wdefs {sl_list*}
%destructor wdefs { sl_list_free($$, sl_window_spec_free_v); }
wdefs(A) ::= nm(N) AS LP partition_opt(P) orderby_opt(O) frame_opt(F) RP.
                                         { A = sl__window_def(p, NULL, N, sl__window_spec(p, P, O, F)); }
wdefs(A) ::= wdefs(L) COMMA nm(N) AS LP partition_opt(P) orderby_opt(O) frame_opt(F) RP.
                                         { A = sl__window_def(p, L, N, sl__window_spec(p, P, O, F)); }
qprim(A) ::= VALUES(K) rows(R).          { A = sl__values(p, K, R); }
qprim(A) ::= LP query(Q) RP.            { A = Q; }

%type qtail {sl__tail}
%destructor qtail { sl__tail_free($$); }
qtail(A) ::= orderby_opt(O) limit_opt(L) offset_opt(F) fetch_opt(X).
                                         { A = sl__tail_make(p, O, sl__limit_or_fetch(p, L, X), F); }

%type distinct {bool}
distinct(A) ::= .                        { A = false; }
distinct(A) ::= DISTINCT.                { A = true; }
distinct(A) ::= ALL.                     { A = false; }

%type selitems {sl_list*}
%destructor selitems { sl_list_free($$, sl__select_item_free_v); }
selitems(A) ::= selitem(X).              { A = sl__list(p, NULL, X); }
selitems(A) ::= selitems(L) COMMA selitem(X).
                                         { A = sl__list(p, L, X); }

%type selitem {sl_select_item*}
%destructor selitem { sl_select_item_free($$); }
selitem(A) ::= expr(X) as_opt(N).        { A = sl__select_item(p, X, N); }
selitem(A) ::= star(X).                  { A = sl__select_item(p, X, SL__NOTOK); }

%type star {sl_expr*}
%destructor star { sl_expr_free($$); }
star(A) ::= STAR(K).                     { A = sl__star(p, SL__NOTOK, K); }
star(A) ::= nm(Q) DOT STAR(K).           { A = sl__star(p, Q, K); }

%type rows {sl_list*}
%destructor rows { sl_list_free($$, sl__expr_list_free_v); }
rows(A) ::= LP exprlist(L) RP.           { A = sl__list(p, NULL, L); }
rows(A) ::= rows(R) COMMA LP exprlist(L) RP.
                                         { A = sl__list(p, R, L); }

%type where_opt {sl_expr*}
%destructor where_opt { sl_expr_free($$); }
where_opt(A) ::= .                       { A = NULL; }
where_opt(A) ::= WHERE expr(X).         { A = X; }

%type groupby_opt {sl_list*}
%destructor groupby_opt { sl_list_free($$, sl_expr_free_v); }
groupby_opt(A) ::= .                     { A = NULL; }
groupby_opt(A) ::= GROUP BY exprlist(L). { A = L; }

%type having_opt {sl_expr*}
%destructor having_opt { sl_expr_free($$); }
having_opt(A) ::= .                      { A = NULL; }
having_opt(A) ::= HAVING expr(X).       { A = X; }

%type orderby_opt {sl_list*}
%destructor orderby_opt { sl_list_free($$, sl__order_item_free_v); }
orderby_opt(A) ::= .                     { A = NULL; }
orderby_opt(A) ::= ORDER BY sortlist(L). { A = L; }

%type sortlist {sl_list*}
%destructor sortlist { sl_list_free($$, sl__order_item_free_v); }
sortlist(A) ::= sortitem(X).             { A = sl__list(p, NULL, X); }
sortlist(A) ::= sortlist(L) COMMA sortitem(X).
                                         { A = sl__list(p, L, X); }
%type sortitem {sl_order_item*}
%destructor sortitem { sl_order_item_free($$); }
sortitem(A) ::= expr(E) sortdir(D) nulls(N).
                                         { A = sl__order_item(p, E, D, N); }
%type sortdir {bool}
sortdir(A) ::= .                         { A = false; }
sortdir(A) ::= ASC.                      { A = false; }
sortdir(A) ::= DESC.                     { A = true; }
%type nulls {int}
nulls(A) ::= .                           { A = 0; }
nulls(A) ::= NULLS FIRST.                { A = 1; }
nulls(A) ::= NULLS LAST.                 { A = 2; }

%type limit_opt {sl_expr*}
%destructor limit_opt { sl_expr_free($$); }
limit_opt(A) ::= .                       { A = NULL; }
limit_opt(A) ::= LIMIT expr(X).         { A = X; }
%type offset_opt {sl_expr*}
%destructor offset_opt { sl_expr_free($$); }
offset_opt(A) ::= .                      { A = NULL; }
offset_opt(A) ::= OFFSET expr(X).       { A = X; }
/* The SQL standard's OFFSET m ROWS [FETCH FIRST | NEXT n ROWS ONLY] (Flink). */
offset_opt(A) ::= OFFSET expr(X) rows_kw. { A = X; }
%type fetch_opt {sl_expr*}
%destructor fetch_opt { sl_expr_free($$); }
fetch_opt(A) ::= .                       { A = NULL; }
fetch_opt(A) ::= FETCH first_kw expr(X) rows_kw ONLY.
                                         { A = X; }
rows_kw ::= ROWS.
rows_kw ::= ROW.
first_kw ::= FIRST.
first_kw ::= NEXT.

/* ------------------------------------------------------------ FROM */
%type from_opt {sl_from*}
%destructor from_opt { sl_from_free($$); }
from_opt(A) ::= .                        { A = NULL; }
from_opt(A) ::= FROM from_list(F).      { A = F; }

%type from_list {sl_from*}
%destructor from_list { sl_from_free($$); }
from_list(A) ::= from_join(A).
from_list(A) ::= from_list(L) COMMA(K) from_join(R).
                                         { A = sl__from_join(p, L, SL_JOIN_CROSS, R, NULL, K); }

%type from_join {sl_from*}
%destructor from_join { sl_from_free($$); }
from_join(A) ::= from_prim(A).
from_join(A) ::= joined(A).
%type joined {sl_from*}
%destructor joined { sl_from_free($$); }
joined(A) ::= from_join(L) join_type(J) JOIN(K) from_prim(R) ON expr(E).
                                         { A = sl__from_join(p, L, J, R, E, K); }
joined(A) ::= from_join(L) CROSS(K) JOIN from_prim(R).
                                         { A = sl__from_join(p, L, SL_JOIN_CROSS, R, NULL, K); }

%type join_type {int}
join_type(A) ::= .                       { A = SL_JOIN_INNER; }
join_type(A) ::= INNER.                  { A = SL_JOIN_INNER; }
join_type(A) ::= LEFT.                   { A = SL_JOIN_LEFT; }
join_type(A) ::= LEFT OUTER.             { A = SL_JOIN_LEFT; }
join_type(A) ::= RIGHT.                  { A = SL_JOIN_RIGHT; }
join_type(A) ::= RIGHT OUTER.            { A = SL_JOIN_RIGHT; }
join_type(A) ::= FULL.                   { A = SL_JOIN_FULL; }
join_type(A) ::= FULL OUTER.             { A = SL_JOIN_FULL; }

%type from_prim {sl_from*}
%destructor from_prim { sl_from_free($$); }
from_prim(A) ::= nm(N) as_opt(X).        { A = sl__from_table(p, N, X); }
/* A temporal join's versioned table / a lookup join's table (Flink). */
from_prim(A) ::= nm(N) FOR SYSTEM_TIME AS OF expr(T) as_opt(X).
                                         { A = sl__from_table(p, N, X); A->as_of = T; }
/* PostgreSQL: a schema-qualified relation (pg_catalog.pg_class, public.t). */
from_prim(A) ::= nm(S) DOT nm(N) as_opt(X). { A = sl__from_qtable(p, S, N, X); }
/* Flink: catalog.database.table (one catalog: default_catalog). */
from_prim(A) ::= nm(C) DOT nm(S) DOT nm(N) as_opt(X).
                                         { A = sl__from_qtable(p, S, N, X); sl__catalog_name(p, C); }
/* PostgreSQL: a set-returning function, generate_series(1, 3) AS s. */
from_prim(A) ::= nm(N) LP exprlist(L) RP as_opt(X).
                                         { A = sl__from_function(p, N, N, L, X); }
from_prim(A) ::= nm(N) LP exprlist(L) RP AS nm(X) LP idlist(C) RP.
                                         { A = sl__from_function(p, N, N, L, X);
                                           sl__from_columns(p, A, C, SL__NOTOK); }
/* Flink's UNNEST(arr) WITH ORDINALITY [AS t(x, pos)]. */
from_prim(A) ::= nm(N) LP exprlist(L) RP WITH nm(O) as_opt(X).
                                         { A = sl__from_function(p, N, N, L, X);
                                           sl__from_columns(p, A, NULL, O); }
from_prim(A) ::= nm(N) LP exprlist(L) RP WITH nm(O) AS nm(X) LP idlist(C) RP.
                                         { A = sl__from_function(p, N, N, L, X);
                                           sl__from_columns(p, A, C, O); }
from_prim(A) ::= nm(S) DOT nm(N) LP exprlist(L) RP as_opt(X).
                                         { A = sl__from_function(p, S, N, L, X); }
from_prim(A) ::= LP(K) query(Q) RP as_opt(X).
                                         { A = sl__from_subquery(p, K, Q, X); }
/* A derived column list: (VALUES (1, 'a')) AS t(a, b). */
from_prim(A) ::= LP(K) query(Q) RP AS nm(X) LP idlist(C) RP.
                                         { A = sl__from_subquery(p, K, Q, X);
                                           sl__from_columns(p, A, C, SL__NOTOK); }
from_prim(A) ::= LP joined(F) RP.        { A = F; }
from_prim(A) ::= TABLE(K) LP winfn(F) LP wargs(L) RP RP as_opt(X).
                                         { A = sl__from_window(p, K, F, L, X); }

/* Window table functions: positional or named (DATA => TABLE t, ...) arguments. */
%type winfn {sl__tok}
winfn(A) ::= TUMBLE(A).
winfn(A) ::= HOP(A).
winfn(A) ::= CUMULATE(A).
winfn(A) ::= SESSION(A).

%type wargs {sl_list*}
%destructor wargs { sl_list_free($$, sl__warg_free_v); }
wargs(A) ::= warg(X).                    { A = sl__list(p, NULL, X); }
wargs(A) ::= wargs(L) COMMA warg(X).     { A = sl__list(p, L, X); }

%type warg {sl__warg*}
%destructor warg { sl__warg_free($$); }
warg(A) ::= wval(A).
warg(A) ::= nm(N) ARROW wval(V).         { A = sl__warg_name(p, V, N); }
warg(A) ::= OFFSET(N) ARROW wval(V).     { A = sl__warg_name(p, V, N); }

%type wval {sl__warg*}
%destructor wval { sl__warg_free($$); }
wval(A) ::= TABLE(K) nm(N).              { A = sl__warg_make(p, 1, K, N, NULL); }
/* SESSION's partitioned table: TABLE t PARTITION BY k | PARTITION BY (k1, k2). */
wval(A) ::= TABLE(K) nm(N) PARTITION BY nm(C).
    { A = sl__warg_partition(p, sl__warg_make(p, 1, K, N, NULL), sl__idents(p, NULL, C)); }
wval(A) ::= TABLE(K) nm(N) PARTITION BY LP idlist(L) RP.
    { A = sl__warg_partition(p, sl__warg_make(p, 1, K, N, NULL), L); }
wval(A) ::= DESCRIPTOR(K) LP nm(N) RP.   { A = sl__warg_make(p, 2, K, N, NULL); }
wval(A) ::= expr(X).                     { A = sl__warg_make(p, 0, SL__NOTOK, SL__NOTOK, X); }

/* ------------------------------------------------------------ expressions */
%type expr {sl_expr*}
%destructor expr { sl_expr_free($$); }
%type exprlist {sl_list*}
%destructor exprlist { sl_list_free($$, sl_expr_free_v); }
exprlist(A) ::= expr(X).                 { A = sl__list(p, NULL, X); }
exprlist(A) ::= exprlist(L) COMMA expr(X). { A = sl__list(p, L, X); }

expr(A) ::= LP expr(X) RP.              { A = X; }
expr(A) ::= NULL(K).                     { A = sl__lit(p, SL_EXPR_NULL, K); }
expr(A) ::= TRUE(K).                     { A = sl__bool(p, true, K); }
expr(A) ::= FALSE(K).                    { A = sl__bool(p, false, K); }
expr(A) ::= NUMBER(K).                   { A = sl__lit(p, SL_EXPR_NUMBER, K); }
expr(A) ::= STRING(K).                   { A = sl__string(p, K); }
expr(A) ::= XSTRING(K).                  { A = sl__xstring(p, K); }
expr(A) ::= DATE(K) STRING(S).           { A = sl__typed(p, SL_TYPE_DATE, K, S); }
expr(A) ::= TIME(K) STRING(S).           { A = sl__typed(p, SL_TYPE_TIME, K, S); }
expr(A) ::= TIMESTAMP(K) STRING(S).      { A = sl__typed(p, SL_TYPE_TIMESTAMP, K, S); }
expr(A) ::= TIMESTAMP_LTZ(K) STRING(S).  { A = sl__typed(p, SL_TYPE_TIMESTAMP_LTZ, K, S); }
expr(A) ::= INTERVAL(K) STRING(S) iq(Q). { A = sl__interval(p, K, S, Q); }
expr(A) ::= PARAM(K).                    { A = sl__param(p, K); }
expr(A) ::= nm(N).                       { A = sl__column(p, SL__NOTOK, N); }
expr(A) ::= nm(Q) DOT nm(N).             { A = sl__column(p, Q, N); }
/* a.b.c...: a field of a ROW column (t.col.field, col.field.field; bind_expr.c) */
expr(A) ::= dotpath(A).
%type dotpath {sl_expr*}
%destructor dotpath { sl_expr_free($$); }
dotpath(A) ::= nm(Q) DOT nm(N) DOT nm(F). { A = sl__dotfield(p, sl__column(p, Q, N), F); }
dotpath(A) ::= dotpath(X) DOT nm(F).     { A = sl__dotfield(p, X, F); }

%type iq {sl__iq}
iq(A) ::= unit(U) tprec(P).              { A = sl__iqual(p, U, SL_UNIT_NONE, P); }
iq(A) ::= unit(U) TO unit(V) tprec(P).   { A = sl__iqual(p, U, V, P); }
%type unit {int}
unit(A) ::= YEAR.                        { A = SL_UNIT_YEAR; }
unit(A) ::= YEARS.                       { A = SL_UNIT_YEAR; }
unit(A) ::= MONTH.                       { A = SL_UNIT_MONTH; }
unit(A) ::= MONTHS.                      { A = SL_UNIT_MONTH; }
unit(A) ::= DAY.                         { A = SL_UNIT_DAY; }
unit(A) ::= DAYS.                        { A = SL_UNIT_DAY; }
unit(A) ::= HOUR.                        { A = SL_UNIT_HOUR; }
unit(A) ::= HOURS.                       { A = SL_UNIT_HOUR; }
unit(A) ::= MINUTE.                      { A = SL_UNIT_MINUTE; }
unit(A) ::= MINUTES.                     { A = SL_UNIT_MINUTE; }
unit(A) ::= SECOND.                      { A = SL_UNIT_SECOND; }
unit(A) ::= SECONDS.                     { A = SL_UNIT_SECOND; }

/* Function calls; a few keywords are function names too. */
%type fname {sl__tok}
fname(A) ::= nm(A).
fname(A) ::= LEFT(A).
fname(A) ::= RIGHT(A).
expr(A) ::= fname(N) LP RP filter_opt(F) over(O).
    { A = sl__func_filter(p, sl__func(p, N, NULL, false, false, O), F); }
expr(A) ::= fname(N) LP STAR RP filter_opt(F) over(O).
    { A = sl__func_filter(p, sl__func(p, N, NULL, false, true, O), F); }
expr(A) ::= fname(N) LP exprlist(L) RP filter_opt(F) over(O).
    { A = sl__func_filter(p, sl__func(p, N, L, false, false, O), F); }
expr(A) ::= fname(N) LP DISTINCT exprlist(L) RP filter_opt(F) over(O).
    { A = sl__func_filter(p, sl__func(p, N, L, true, false, O), F); }
expr(A) ::= fname(N) LP ALL exprlist(L) RP filter_opt(F) over(O).
    { A = sl__func_filter(p, sl__func(p, N, L, false, false, O), F); }
/* Flink's calls with a keyword between the arguments: POSITION(a IN b),
** EXTRACT(unit FROM x), FLOOR / CEIL(t TO unit) (sl__func_kw checks the
** name, the binder the unit). */
expr(A) ::= fname(N) LP expr(X) IN(K) poshay(Y) RP.
                                         { A = sl__func_kw(p, N, X, Y, K); }
/* POSITION's haystack after IN: a column, a string or a call (a
** parenthesized one reads as an IN list: sl__func unwraps it). */
%type poshay {sl_expr*}
%destructor poshay { sl_expr_free($$); }
poshay(A) ::= nm(N).                     { A = sl__column(p, SL__NOTOK, N); }
poshay(A) ::= nm(Q) DOT nm(N).           { A = sl__column(p, Q, N); }
poshay(A) ::= STRING(K).                 { A = sl__string(p, K); }
poshay(A) ::= fname(N) LP exprlist(L) RP.
                                         { A = sl__func(p, N, L, false, false, NULL); }
expr(A) ::= fname(N) LP expr(X) FROM(K) expr(Y) RP.
                                         { A = sl__func_kw(p, N, X, Y, K); }
/* TRIM([BOTH | LEADING | TRAILING] [chars] FROM s): TRIM / LTRIM / RTRIM
** (s[, chars]); TRIM(chars FROM s) is the rule above (sl__func_kw). */
expr(A) ::= fname(N) LP trimside(W) expr(C) FROM expr(X) RP.
                                         { A = sl__trim(p, N, W, C, X); }
expr(A) ::= fname(N) LP trimside(W) FROM expr(X) RP.
                                         { A = sl__trim(p, N, W, NULL, X); }
%type trimside {sl__tok}
trimside(A) ::= BOTH(A).
trimside(A) ::= LEADING(A).
trimside(A) ::= TRAILING(A).
/* FLOOR(t TO unit), CEIL(t TO unit): FLOOR(t, 'unit') */
expr(A) ::= fname(N) LP expr(X) TO(K) nm(U) RP.
                                         { A = sl__func_kw(p, N, X, sl__column(p, SL__NOTOK, U), K); }
/* FILTER (WHERE cond) of an aggregate call (Flink, PostgreSQL); FILTER stays
** a name elsewhere (a column `filter`, an alias after a non-call). */
%type filter_opt {sl_expr*}
%destructor filter_opt { sl_expr_free($$); }
filter_opt(A) ::= .                      { A = NULL; }
filter_opt(A) ::= FILTER LP WHERE expr(X) RP. { A = X; }

%type niladic {sl__tok}
niladic(A) ::= CURRENT_TIMESTAMP(A).
niladic(A) ::= CURRENT_DATE(A).
niladic(A) ::= CURRENT_TIME(A).
niladic(A) ::= LOCALTIMESTAMP(A).
niladic(A) ::= LOCALTIME(A).
expr(A) ::= niladic(N).                  { A = sl__func(p, N, NULL, false, false, NULL); }
expr(A) ::= niladic(N) LP RP.            { A = sl__func(p, N, NULL, false, false, NULL); }

expr(A) ::= SUBSTRING(K) LP expr(X) FROM expr(Y) RP.
                                         { A = sl__substring(p, K, X, Y, NULL); }
expr(A) ::= SUBSTRING(K) LP expr(X) FROM expr(Y) FOR expr(Z) RP.
                                         { A = sl__substring(p, K, X, Y, Z); }
expr(A) ::= SUBSTRING(K) LP exprlist(L) RP.
                                         { A = sl__func(p, K, L, false, false, NULL); }

%type over {sl_window_spec*}
%destructor over { sl_window_spec_free($$); }
over(A) ::= .                            { A = NULL; }
over(A) ::= OVER LP partition_opt(P) orderby_opt(O) frame_opt(F) RP.
                                         { A = sl__window_spec(p, P, O, F); }
over(A) ::= OVER nm(N).                  { A = sl__window_ref(p, N); }
/* The frame of an OVER aggregation (Flink: only frames ending at the
** current row). */
%type frame_opt {sl_window_spec*}
%destructor frame_opt { sl_window_spec_free($$); }
frame_opt(A) ::= .                       { A = NULL; }
frame_opt(A) ::= ROWS(K) frame_start(S). { A = sl__window_frame(p, K, false, S); }
frame_opt(A) ::= RANGE(K) frame_start(S). { A = sl__window_frame(p, K, true, S); }
frame_opt(A) ::= ROWS(K) BETWEEN frame_start(S) AND CURRENT ROW.
                                         { A = sl__window_frame(p, K, false, S); }
frame_opt(A) ::= RANGE(K) BETWEEN frame_start(S) AND CURRENT ROW.
                                         { A = sl__window_frame(p, K, true, S); }
%type frame_start {sl_window_spec*}
%destructor frame_start { sl_window_spec_free($$); }
frame_start(A) ::= UNBOUNDED PRECEDING.  { A = sl__frame_start(p, NULL, false); }
frame_start(A) ::= CURRENT ROW.          { A = sl__frame_start(p, NULL, true); }
frame_start(A) ::= expr(X) PRECEDING.    { A = sl__frame_start(p, X, false); }
%type partition_opt {sl_list*}
%destructor partition_opt { sl_list_free($$, sl_expr_free_v); }
partition_opt(A) ::= .                   { A = NULL; }
partition_opt(A) ::= PARTITION BY exprlist(L). { A = L; }

expr(A) ::= CAST(K) LP expr(X) AS type(T) RP.     { A = sl__cast(p, K, X, T, false); }
expr(A) ::= TRY_CAST(K) LP expr(X) AS type(T) RP. { A = sl__cast(p, K, X, T, true); }
expr(A) ::= CAST(K) LP expr(X) AS rowtype(R) RP.     { A = sl__cast_row(p, K, X, R); }
expr(A) ::= TRY_CAST(K) LP expr(X) AS rowtype(R) RP. { A = sl__cast_row(p, K, X, R); }

expr(A) ::= CASE(K) case_operand(X) case_list(L) case_else(E) END.
                                         { A = sl__case(p, K, X, L, E); }
%type case_operand {sl_expr*}
%destructor case_operand { sl_expr_free($$); }
case_operand(A) ::= .                    { A = NULL; }
case_operand(A) ::= expr(A).
%type case_list {sl_list*}
%destructor case_list { sl_list_free($$, sl_expr_free_v); }
case_list(A) ::= WHEN expr(W) THEN expr(T).              { A = sl__when(p, NULL, W, T); }
case_list(A) ::= case_list(L) WHEN expr(W) THEN expr(T). { A = sl__when(p, L, W, T); }
%type case_else {sl_expr*}
%destructor case_else { sl_expr_free($$); }
case_else(A) ::= .                       { A = NULL; }
case_else(A) ::= ELSE expr(X).          { A = X; }

/* Operators (precedence above). */
expr(A) ::= expr(X) OR(K) expr(Y).       { A = sl__binary(p, SL_OP_OR, X, Y, K); }
expr(A) ::= expr(X) AND(K) expr(Y).      { A = sl__binary(p, SL_OP_AND, X, Y, K); }
expr(A) ::= NOT(K) expr(X).              { A = sl__unary(p, SL_OP_NOT, X, K); }
expr(A) ::= expr(X) EQ(K) expr(Y).       { A = sl__binary(p, SL_OP_EQ, X, Y, K); }
expr(A) ::= expr(X) NE(K) expr(Y).       { A = sl__binary(p, SL_OP_NE, X, Y, K); }
expr(A) ::= expr(X) LT(K) expr(Y).       { A = sl__binary(p, SL_OP_LT, X, Y, K); }
expr(A) ::= expr(X) LE(K) expr(Y).       { A = sl__binary(p, SL_OP_LE, X, Y, K); }
expr(A) ::= expr(X) GT(K) expr(Y).       { A = sl__binary(p, SL_OP_GT, X, Y, K); }
expr(A) ::= expr(X) GE(K) expr(Y).       { A = sl__binary(p, SL_OP_GE, X, Y, K); }
expr(A) ::= expr(X) PLUS(K) expr(Y).     { A = sl__binary(p, SL_OP_ADD, X, Y, K); }
expr(A) ::= expr(X) MINUS(K) expr(Y).    { A = sl__binary(p, SL_OP_SUB, X, Y, K); }
expr(A) ::= expr(X) CONCAT(K) expr(Y).   { A = sl__binary(p, SL_OP_CONCAT, X, Y, K); }
expr(A) ::= expr(X) STAR(K) expr(Y).     { A = sl__binary(p, SL_OP_MUL, X, Y, K); }
expr(A) ::= expr(X) SLASH(K) expr(Y).    { A = sl__binary(p, SL_OP_DIV, X, Y, K); }
expr(A) ::= expr(X) PERCENT(K) expr(Y).  { A = sl__binary(p, SL_OP_MOD, X, Y, K); }
expr(A) ::= MINUS(K) expr(X). [UMINUS]   { A = sl__unary(p, SL_OP_NEG, X, K); }
expr(A) ::= PLUS(K) expr(X). [UMINUS]    { A = sl__unary(p, SL_OP_PLUS, X, K); }

expr(A) ::= expr(X) IS(K) NULL.          { A = sl__is(p, X, false, SL_IS_NULL, K); }
expr(A) ::= expr(X) IS(K) NOT NULL.      { A = sl__is(p, X, true, SL_IS_NULL, K); }
expr(A) ::= expr(X) IS(K) TRUE.          { A = sl__is(p, X, false, SL_IS_TRUE, K); }
expr(A) ::= expr(X) IS(K) NOT TRUE.      { A = sl__is(p, X, true, SL_IS_TRUE, K); }
expr(A) ::= expr(X) IS(K) FALSE.         { A = sl__is(p, X, false, SL_IS_FALSE, K); }
expr(A) ::= expr(X) IS(K) NOT FALSE.     { A = sl__is(p, X, true, SL_IS_FALSE, K); }
expr(A) ::= expr(X) IS(K) UNKNOWN.       { A = sl__is(p, X, false, SL_IS_UNKNOWN, K); }
expr(A) ::= expr(X) IS(K) NOT UNKNOWN.   { A = sl__is(p, X, true, SL_IS_UNKNOWN, K); }
/* The null-safe comparisons (precedence of IS). */
expr(A) ::= expr(X) IS(K) DISTINCT FROM expr(Y). [IS]
                                         { A = sl__binary(p, SL_OP_IS_DISTINCT, X, Y, K); }
expr(A) ::= expr(X) IS(K) NOT DISTINCT FROM expr(Y). [IS]
                                         { A = sl__binary(p, SL_OP_IS_NOT_DISTINCT, X, Y, K); }

expr(A) ::= expr(X) BETWEEN(K) expr(Y) AND expr(Z). [BETWEEN]
                                         { A = sl__between(p, X, false, Y, Z, K); }
expr(A) ::= expr(X) NOT(K) BETWEEN expr(Y) AND expr(Z). [BETWEEN]
                                         { A = sl__between(p, X, true, Y, Z, K); }
expr(A) ::= expr(X) IN(K) LP exprlist(L) RP.
                                         { A = sl__in(p, X, false, L, K); }
expr(A) ::= expr(X) NOT(K) IN LP exprlist(L) RP.
                                         { A = sl__in(p, X, true, L, K); }
expr(A) ::= expr(X) LIKE(K) expr(Y). [LIKE]
                                         { A = sl__like(p, X, false, Y, NULL, K); }
expr(A) ::= expr(X) LIKE(K) expr(Y) ESCAPE expr(E). [LIKE]
                                         { A = sl__like(p, X, false, Y, E, K); }
expr(A) ::= expr(X) NOT(K) LIKE expr(Y). [LIKE]
                                         { A = sl__like(p, X, true, Y, NULL, K); }
expr(A) ::= expr(X) NOT(K) LIKE expr(Y) ESCAPE expr(E). [LIKE]
                                         { A = sl__like(p, X, true, Y, E, K); }

/* ------------------------------------------------ PostgreSQL syntax clients send
** (psql, pgJDBC): expr::type, the POSIX regular expression operators ~ !~ ~* !~*
** also as OPERATOR(pg_catalog.~), COLLATE (accepted, ignored: one collation),
** scalar subqueries (SELECT ...) (the binder makes them LEFT JOINs), field
** selection (expr).name, schema-qualified function calls pg_catalog.f(...),
** arrays (kept as their text '{a,b}'): ARRAY(SELECT ...), a[i] and
** expr::type[]. Double-quoted identifiers and E'...' strings are the
** tokenizer's. */
expr(A) ::= expr(X) DCOLON(K) type(T).   { A = sl__pgcast(p, K, X, T); }
expr(A) ::= expr(X) DCOLON(K) rowtype(R). { A = sl__cast_row(p, K, X, R); }
expr(A) ::= expr(X) DCOLON(K) nm(S) DOT nm(N).
                                         { A = sl__pgcast(p, K, X, sl__type_qualified(p, S, N)); }
expr(A) ::= expr(X) DCOLON(K) type LBRACKET RBRACKET.
                                         { A = sl__pgcast_array(p, K, X); }
expr(A) ::= expr(X) DCOLON(K) nm DOT nm LBRACKET RBRACKET.
                                         { A = sl__pgcast_array(p, K, X); }
expr(A) ::= fname(N) LP qsel(Q) qtail(T) RP.
                                         { A = sl__array_subquery(p, N, sl__query_tail(p, Q, T)); }
expr(A) ::= expr(X) LBRACKET(K) expr(I) RBRACKET.
                                         { A = sl__subscript(p, K, X, I); }
/* Flink's value constructors ARRAY[a, b, ...] and MAP[k1, v1, k2, v2, ...]. */
expr(A) ::= ARRAY(K) LBRACKET exprlist(L) RBRACKET.
                                         { A = sl__func(p, K, L, false, false, NULL); }
expr(A) ::= MAP(K) LBRACKET exprlist(L) RBRACKET.
                                         { A = sl__func(p, K, L, false, false, NULL); }
expr(A) ::= ARRAY(N) LP qsel(Q) qtail(T) RP.
                                         { A = sl__array_subquery(p, N, sl__query_tail(p, Q, T)); }
expr(A) ::= expr(X) TILDE(K) expr(Y).    { A = sl__binary(p, SL_OP_REGEX, X, Y, K); }
expr(A) ::= expr(X) NTILDE(K) expr(Y).   { A = sl__binary(p, SL_OP_NOT_REGEX, X, Y, K); }
expr(A) ::= expr(X) ITILDE(K) expr(Y).   { A = sl__binary(p, SL_OP_IREGEX, X, Y, K); }
expr(A) ::= expr(X) NITILDE(K) expr(Y).  { A = sl__binary(p, SL_OP_NOT_IREGEX, X, Y, K); }
expr(A) ::= expr(X) OPERATOR LP nm(S) DOT pgop(O) RP expr(Y). [OPERATOR]
                                         { A = sl__qbinary(p, S, O, X, Y); }
expr(A) ::= expr(X) COLLATE nm.          { A = X; }
expr(A) ::= expr(X) COLLATE nm DOT nm.   { A = X; }
expr(A) ::= LP(K) qsel(Q) qtail(T) RP.   { A = sl__subquery(p, K, sl__query_tail(p, Q, T)); }
expr(A) ::= LP(K) expr(X) RP DOT nm(N).  { A = sl__field(p, K, X, N); }
expr(A) ::= EXISTS(K) LP qsel(Q) qtail(T) RP.
                                         { A = sl__exists(p, K, sl__query_tail(p, Q, T)); }
expr(A) ::= expr(X) IN(K) LP qsel(Q) qtail(T) RP.
                                         { A = sl__in_query(p, X, false, sl__query_tail(p, Q, T), K); }
expr(A) ::= expr(X) NOT(K) IN LP qsel(Q) qtail(T) RP.
                                         { A = sl__in_query(p, X, true, sl__query_tail(p, Q, T), K); }
expr(A) ::= nm(S) DOT nm(N) LP RP.       { A = sl__qfunc(p, S, N, NULL); }
expr(A) ::= nm(S) DOT nm(N) LP exprlist(L) RP.
                                         { A = sl__qfunc(p, S, N, L); }
%type pgop {sl__tok}
pgop(A) ::= TILDE(A).
pgop(A) ::= NTILDE(A).
pgop(A) ::= ITILDE(A).
pgop(A) ::= NITILDE(A).
pgop(A) ::= EQ(A).
pgop(A) ::= NE(A).
pgop(A) ::= LT(A).
pgop(A) ::= LE(A).
pgop(A) ::= GT(A).
pgop(A) ::= GE(A).

/* ------------------------------------------------------------ types */
%type type {sl__ty}
%type tprec {sl__prec}
tprec(A) ::= . [OR]                      { A = SL__NOPREC; }
tprec(A) ::= LP NUMBER(X) RP.            { A = sl__prec_make(p, X, SL__NOTOK); }
tprec(A) ::= LP NUMBER(X) COMMA NUMBER(Y) RP. { A = sl__prec_make(p, X, Y); }

type(A) ::= BOOLEAN(K).                  { A = sl__type(p, SL_TYPE_BOOLEAN, K, SL__NOPREC); }
type(A) ::= TINYINT(K).                  { A = sl__type(p, SL_TYPE_TINYINT, K, SL__NOPREC); }
type(A) ::= SMALLINT(K).                 { A = sl__type(p, SL_TYPE_SMALLINT, K, SL__NOPREC); }
type(A) ::= INT(K).                      { A = sl__type(p, SL_TYPE_INT, K, SL__NOPREC); }
type(A) ::= INTEGER(K).                  { A = sl__type(p, SL_TYPE_INT, K, SL__NOPREC); }
type(A) ::= BIGINT(K).                   { A = sl__type(p, SL_TYPE_BIGINT, K, SL__NOPREC); }
type(A) ::= FLOAT(K).                    { A = sl__type(p, SL_TYPE_FLOAT, K, SL__NOPREC); }
type(A) ::= DOUBLE(K).                   { A = sl__type(p, SL_TYPE_DOUBLE, K, SL__NOPREC); }
type(A) ::= DOUBLE(K) PRECISION.         { A = sl__type(p, SL_TYPE_DOUBLE, K, SL__NOPREC); }
type(A) ::= DECIMAL(K) tprec(P).         { A = sl__type(p, SL_TYPE_DECIMAL, K, P); }
type(A) ::= DEC(K) tprec(P).             { A = sl__type(p, SL_TYPE_DECIMAL, K, P); }
type(A) ::= NUMERIC(K) tprec(P).         { A = sl__type(p, SL_TYPE_DECIMAL, K, P); }
type(A) ::= STRING_KW(K).                { A = sl__type(p, SL_TYPE_VARCHAR, K, SL__MAXPREC); }
type(A) ::= VARCHAR(K) tprec(P).         { A = sl__type(p, SL_TYPE_VARCHAR, K, P); }
type(A) ::= CHAR(K) tprec(P).            { A = sl__type(p, SL_TYPE_CHAR, K, P); }
type(A) ::= CHARACTER(K) tprec(P).       { A = sl__type(p, SL_TYPE_CHAR, K, P); }
/* The SQL standard's spellings of VARCHAR and VARBINARY (Flink accepts them). */
type(A) ::= CHAR(K) VARYING tprec(P).    { A = sl__type(p, SL_TYPE_VARCHAR, K, P); }
type(A) ::= CHARACTER(K) VARYING tprec(P). { A = sl__type(p, SL_TYPE_VARCHAR, K, P); }
type(A) ::= BINARY(K) VARYING tprec(P).  { A = sl__type(p, SL_TYPE_VARBINARY, K, P); }
type(A) ::= BYTES(K).                    { A = sl__type(p, SL_TYPE_VARBINARY, K, SL__MAXPREC); }
type(A) ::= BINARY(K) tprec(P).          { A = sl__type(p, SL_TYPE_BINARY, K, P); }
type(A) ::= VARBINARY(K) tprec(P).       { A = sl__type(p, SL_TYPE_VARBINARY, K, P); }
type(A) ::= DATE(K).                     { A = sl__type(p, SL_TYPE_DATE, K, SL__NOPREC); }
type(A) ::= TIME(K) tprec(P).            { A = sl__type(p, SL_TYPE_TIME, K, P); }
type(A) ::= TIMESTAMP(K) tprec(P).       { A = sl__type(p, SL_TYPE_TIMESTAMP, K, P); }
type(A) ::= TIMESTAMP(K) tprec(P) WITHOUT TIME ZONE.
                                         { A = sl__type(p, SL_TYPE_TIMESTAMP, K, P); }
type(A) ::= TIMESTAMP(K) tprec(P) WITH LOCAL TIME ZONE.
                                         { A = sl__type(p, SL_TYPE_TIMESTAMP_LTZ, K, P); }
type(A) ::= TIMESTAMP_LTZ(K) tprec(P).   { A = sl__type(p, SL_TYPE_TIMESTAMP_LTZ, K, P); }
type(A) ::= ID(K) tprec.                 { A = sl__type_unknown(p, K); }
/* Nested types: ROW (a column's type: rowtype), ARRAY<T> (also T ARRAY) and
** MAP<K, V> of any non-ROW types (element types may be NOT NULL); not MULTISET. */
type(A) ::= ARRAY(K) LT eltype(E) GT.    { A = sl__type_array(p, K, E); }
type(A) ::= type(E) ARRAY(K).            { A = sl__type_array(p, K, E); }
type(A) ::= MAP(K) LT eltype(X) COMMA eltype(Y) GT.
                                         { A = sl__type_map(p, K, X, Y); }
type(A) ::= MULTISET(K) LT anytype GT.   { A = sl__type_unsupported(p, K, "MULTISET"); }
anytype ::= type.
anytype ::= rowtype(R).                  { sl_column_def_free(R); }
%type eltype {sl__ty}
eltype(A) ::= type(T) notnull(X).        { A = T; A.t.not_null = X; }
eltype(A) ::= rowtype(R) notnull.        { A = sl__type_row_elem(p, R); }

%type rowtype {sl_column_def*}
%destructor rowtype { sl_column_def_free($$); }
rowtype(A) ::= ROW(K) LT rowfields(F) GT. { A = sl__row_type(p, K, F); }
rowtype(A) ::= ROW(K) LP rowfields(F) RP. { A = sl__row_type(p, K, F); }
%type rowfields {sl_list*}
%destructor rowfields { sl_list_free($$, sl__column_def_free_v); }
rowfields(A) ::= rowfield(F).            { A = sl__list(p, NULL, F); }
rowfields(A) ::= rowfields(L) COMMA rowfield(F). { A = sl__list(p, L, F); }
%type rowfield {sl_column_def*}
%destructor rowfield { sl_column_def_free($$); }
rowfield(A) ::= nm(N) type(T) notnull(X) fcomment(C).
                                         { A = sl__row_field(p, N, T, NULL, X, C); }
rowfield(A) ::= nm(N) rowtype(R) notnull(X) fcomment(C).
                                         { A = sl__row_field(p, N, SL__NOTY, R, X, C); }
%type fcomment {sl__tok}
fcomment(A) ::= .                        { A = SL__NOTOK; }
fcomment(A) ::= STRING(A).
