/*
** jdbc_int.h — internals of the 'jdbc' connector (PostgreSQL through libpq).
** Not a public header: only files under connectors/jdbc/ include it.
**
** The connector keeps Flink's JDBC connector name and option names, so a
** Flink user's DDL works unchanged; the only database behind it is
** PostgreSQL ('url' = 'jdbc:postgresql://...'), reached with libpq.
**
**   jdbc.c       the declaration: options, capabilities, option checks;
**                what both databases' code shares (the fencing and DROP
**                TABLE errors, the writers' copies of the sink's columns)
**   pg_conn.c    a table's options -> libpq connection parameters (the JDBC
**                URL mapped), connecting within a bounded time, the
**                server's errors as sl_error (its SQLSTATE kept), quoting
**   pg_types.c   Flink's JDBC type mapping (a column's SQL type <-> the
**                PostgreSQL type), values <-> PostgreSQL's text format
**   pg_check.c   what is checked when an INSERT is planned (the table, its
**                columns and types, the unique constraint, privileges) and
**                the live probe of the guarantee resolver
**   pg_source.c  the bounded scan (partitioned, one snapshot per task)
**   pg_sink.c    the sink: batched writes, upserts, deletes, duplicate keys
**   pg_txn.c     exactly-once: one transaction per epoch and database, as a
**                preparable participant (PREPARE TRANSACTION) or the last
**                resource; the progress table, fencing, recovery
**
** Main routines: sl__pg_target_parse, sl__pg_connect, sl__pg_exec,
** sl__pg_error.
*/
#ifndef SL_JDBC_INT_H
#define SL_JDBC_INT_H

#include <libpq-fe.h>
#include <mysql.h>
#include <pthread.h>
#include <time.h>

#include "../sl_connector_int.h"

#define SL__MY_URL_PREFIX "jdbc:mysql:"        /* MariaDB/MySQL URLs (my_*.c) */
#define SL__MARIADB_URL_PREFIX "jdbc:mariadb:"

/* Defaults of the options (Flink's where Flink has the option). */
#define SL__PG_RETRY_TIMEOUT_DEFAULT "60 s" /* connection.max-retry-timeout */
#define SL__PG_FLUSH_ROWS_DEFAULT "100"     /* sink.buffer-flush.max-rows */
#define SL__PG_FLUSH_INTERVAL_DEFAULT "1 s" /* sink.buffer-flush.interval */
#define SL__PG_MAX_RETRIES_DEFAULT "3"      /* sink.max-retries */
#define SL__PG_PROGRESS_TABLE "sluice_progress" /* the progress table (pg_txn.c) */

/* The monotonic clock in ms (deadlines, flush intervals). */
static inline int64_t sl__pg_now_ms(void)
{
    return sl_monotonic_nanos() / SL_NANOS_PER_MILLI;
}

/* Where a table lives: libpq connection parameters and the table's name. */
typedef struct sl__pg_target {
    int nparams;          /* connection parameters (libpq keywords) */
    char **keys;          /* keywords, NULL-terminated ("host", "port", "dbname", ...) */
    char **values;        /* their values, NULL-terminated (the password among them) */
    char *display;        /* "host:port/db" (no user, no password): for messages */
    char *database;       /* the database's name */
    char *schema;         /* the table's schema, or NULL (the search path's) */
    char *table;          /* the table's name, unqualified */
    char *qualified;      /* "schema"."table" quoted for SQL (or "table") */
    int64_t retry_timeout_ms; /* 'connection.max-retry-timeout' */
    bool mysql;           /* a MariaDB/MySQL URL (jdbc:mariadb:, jdbc:mysql:): the keys are
                             host, port, dbname, user, password, connect_timeout_ms, and
                             qualified is quoted with backticks (schema = the database) */
} sl__pg_target;

/* The target of a table's options: 'url' (jdbc:postgresql://host[:port]
** [,host2[:port2]...]/database?param=value&..., or jdbc:postgresql:database,
** or jdbc:postgresql:/; the parameters user, password, sslmode, ssl,
** connectTimeout, ApplicationName, options and currentSchema are mapped to
** libpq's, others are ignored), 'username' and 'password' (they win over
** the URL's), 'table-name' (schema.table, either part may be "quoted").
** 0, or -1 with err: 0A000 for a URL of another database (naming what is
** supported), 22023 for a malformed one (position at the value). The
** message never holds the password. */
int sl__pg_target_parse(const sl_kvlist *opts, sl__pg_target *t, sl_error *err);
void sl__pg_target_clear(sl__pg_target *t);

/* Connect within timeout_ms (<= 0: the target's retry timeout), naming the
** connection application_name (shown in pg_stat_activity). A connection
** that fails for a reason that may pass (refused, timed out, the server
** starting up) is retried until the deadline. NULL with err: 08001 when
** the server cannot be reached in time, 28P01 for a wrong password, 3D000
** for a missing database, 28000 for an unknown role, else 08006; the
** message names t->display and never the password. The connection runs
** with client_encoding UTF8, DateStyle ISO, TimeZone UTC, IntervalStyle
** iso_8601 and extra_float_digits 3 (values read and written in the text
** format are then exact). */
PGconn *sl__pg_connect(const sl__pg_target *t, const char *application_name, int64_t timeout_ms,
                       sl_error *err);

/* Set err from a failed result (res may be NULL: then from conn's last
** message): the server's SQLSTATE, message, detail and hint; what (may be
** NULL) is prepended to the message ("writing \"ledger\": ..."). A lost
** connection is 08006. Returns -1. */
int sl__pg_error(sl_error *err, const PGresult *res, const PGconn *conn, const char *what);

/* Run sql with text parameters (params may be NULL when nparams is 0) and
** return its result when it succeeded (PGRES_COMMAND_OK / TUPLES_OK); else
** NULL with err (sl__pg_error, what prepended). The caller PQclear()s. */
PGresult *sl__pg_exec(PGconn *c, const char *sql, int nparams, const char *const *params,
                      const char *what, sl_error *err);
/* sl__pg_exec for a command whose result is not needed. 0 or -1. */
int sl__pg_run(PGconn *c, const char *sql, const char *what, sl_error *err);

/* Whether the error (an sl_error from above) is one a retry may cure: the
** connection was lost (08xxx), the server is starting or shutting down
** (57P01..57P03), a serialization failure or deadlock (40001, 40P01). */
bool sl__pg_retryable(const sl_error *err);

/* Append ident quoted as a PostgreSQL identifier ("a""b"). */
void sl__pg_quote_ident(sl_strbuf *sb, const char *ident);
/* Append s quoted as a PostgreSQL string literal ('it''s'; E'' never used:
** standard_conforming_strings is on in every supported server). */
void sl__pg_quote_literal(sl_strbuf *sb, const char *s);

/* ------------------------------------------------------------------------
** pg_write.c: the rows of a chunk into the sink's table, inside the
** caller's open transaction. One writer per sink instance; its mode comes
** from the table: no PRIMARY KEY: insert (+I rows; COPY); with one:
** 'sink.on-duplicate-key' update (INSERT ... ON CONFLICT (key) DO UPDATE,
** the default), ignore (ON CONFLICT DO NOTHING; a duplicate whose other
** columns differ from the stored row is a conflict: counted, logged with
** its key, written to 'sink.conflict-table' in the same transaction) or
** error (a conflict fails with 23505 naming the key); identical duplicates
** are absorbed under ignore and error; -D rows delete by key; a -U row is
** left out when the +U of its key follows it, else (its +U was filtered
** out) it deletes by key, as Flink's JDBC sink treats -U.
*/
typedef struct sl__pg_writer sl__pg_writer;

int sl__pg_writer_new(const sl_sink_args *args, sl__pg_writer **out, sl_error *err);
/* Write every row of c into conn's open transaction (BEGIN done by the
** caller), naming epoch in conflict records (-1 when not exactly-once).
** Statements are prepared on a connection the first time the writer sees
** it. 0, or -1 with err (the server's SQLSTATE; the row's key named). */
int sl__pg_writer_write(sl__pg_writer *w, PGconn *conn, const sl_chunk *c, int64_t epoch,
                        sl_error *err);
/* sl__pg_writer_write without waiting for the end: a table without a key
** keeps its COPY open on conn (the server parses while the caller encodes
** the next rows) until sl__pg_writer_finish, which must come before the
** transaction's COMMIT or PREPARE (and before conn is used for anything
** else). Rows with a key are written at once, as by sl__pg_writer_write.
** An error of streamed rows may only show at the finish. */
int sl__pg_writer_put(sl__pg_writer *w, PGconn *conn, const sl_chunk *c, int64_t epoch,
                      sl_error *err);
int sl__pg_writer_finish(sl__pg_writer *w, sl_error *err); /* 0 when nothing is open */
/* The connection of an open COPY was closed: there is nothing to finish. */
void sl__pg_writer_forget(sl__pg_writer *w);
int64_t sl__pg_writer_conflicts(const sl__pg_writer *w); /* conflicts so far */
/* What the writer needs in the database besides the table, created outside
** any epoch's transaction (the conflict table, CREATE TABLE IF NOT EXISTS;
** its columns: pg_write.c). Called by the sink at its start. 0 or -1. */
int sl__pg_writer_setup(const sl__pg_writer *w, PGconn *conn, sl_error *err);
void sl__pg_writer_free(sl__pg_writer *w);

/* ------------------------------------------------------------------------
** pg_txn.c: exactly-once. The participant of the job's exactly-once jdbc
** sinks on one database (same 'url'): one transaction per epoch for all of
** them (every table, every subtask), prepared (preparable role) or
** committed with the progress row as the decision (last resource,
** args->last_resource). Also the resolver's live probe.
*/
int sl__pg_txn_create(const sl_participant_args *args, sl_participant **out, sl_error *err);
/* Write c with w into epoch's transaction of participant p (begun on first
** use; serialized with the other sink instances' writes). */
int sl__pg_txn_write(sl_participant *p, int64_t epoch, sl__pg_writer *w, const sl_chunk *c,
                     sl_error *err);
int sl__pg_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err);
/* DROP TABLE of an exactly-once table: refused (55006, naming them) while
** the database holds prepared transactions of its prefix. */
int sl__pg_drop_check(const sl_connector *c, const sl_kvlist *opts, sl_error *err);
/* What sl__pg_txn_write does for any statements: run fn(ctx, conn, epoch)
** with conn inside epoch's open transaction (the tests' seam). fn's
** failure fails the epoch's transaction. */
typedef int (*sl__pg_txn_fn)(void *ctx, PGconn *conn, int64_t epoch, sl_error *err);
int sl__pg_txn_run(sl_participant *p, int64_t epoch, sl__pg_txn_fn fn, void *ctx, sl_error *err);

/* pg_sink.c, pg_source.c */
int sl__pg_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err);
int sl__pg_source_create(const sl_source_args *args, sl_source **out, sl_error *err);
/* pg_lookup.c: the table of a lookup join (one query per batch of keys,
** reconnecting within 'lookup.max-retries'), its cache options (checked when
** a table is declared) and its EXPLAIN text. */
int sl__pg_lookup_create(const sl_lookup_args *args, sl_lookup **out, sl_error *err);
int sl__pg_lookup_check(const sl_kvlist *opts, sl_error *err);
void sl__pg_lookup_describe(const sl_kvlist *opts, sl_strbuf *out);
/* pg_write.c: row r of v in PostgreSQL's text input format; false (nothing
** appended) for NULL. */
bool sl__pg_encode(sl_strbuf *sb, const sl_vector *v, int r);
/* pg_check.c: the plan-time checks of a written table (sl_connector.check_sink). */
int sl__pg_check_sink(const sl_connector *c, const sl_kvlist *opts, const sl_table_shape *shape,
                      sl_error *err);

/* ------------------------------------------------------------------------
** pg_types.c: Flink's JDBC type mapping (the table in pg_types.c's header)
** and PostgreSQL's text format -> chunk values. A PostgreSQL column's type
** is its base type's pg_type.typname ("int4", "numeric", "timestamptz")
** and typmod (pg_attribute.atttypmod; -1 = none).
*/
/* The Flink type of a PostgreSQL column (numeric without typmod:
** DECIMAL(38, 18)); *mapped false when the type has none. */
sl_type sl__pg_flink_type(const char *typname, int typmod, bool *mapped);
/* NULL when a column of that type holds every value of the declared type
** (writing), else why not (a static phrase: "it is a narrower integer"). */
const char *sl__pg_type_writable(sl_type declared, const char *typname, int typmod);
/* NULL when the declared type holds every value of the column (reading),
** else why not. */
const char *sl__pg_type_readable(sl_type declared, const char *typname, int typmod);
/* Decode one value in PostgreSQL's text format into row `row` of column col
** of c (of the column's declared type). 0, or -1 with err: 22P02 malformed,
** 22003 out of range of the declared type, 22008 a date or time outside
** Sluice's range (infinity, BC, before 1677 / after 2262 for timestamps). */
int sl__pg_decode_value(sl_chunk *c, int col, int row, const char *text, size_t len, sl_error *err);

/* ------------------------------------------------------------------------
** pg_check.c: what the server holds about a table, for the checks and the
** source.
*/
typedef struct sl__pg_column {
    char *name;       /* attname */
    int attnum;       /* its number */
    char *display;    /* format_type(): "numeric(8,2)", "character varying(10)" */
    char *typname;    /* the base type's typname */
    int typmod;       /* atttypmod (a domain's typtypmod) */
    bool not_null;    /* attnotnull (or the domain's typnotnull) */
    bool has_default; /* a default, an identity or a generated column */
    bool generated;   /* a generated column (cannot be written) */
} sl__pg_column;

typedef struct sl__pg_table {
    char *oid;             /* pg_class.oid as text (a query parameter) */
    char *schema, *name;   /* where it was found */
    char relkind;          /* 'r' table, 'p' partitioned, 'v' view, 'm', 'f' */
    int ncols;             /* its columns, in order */
    sl__pg_column *cols;
} sl__pg_table;

/* Find t's table on c and read its columns. 0, or -1 with err (42P01 when
** missing, with where it looked; the server's error otherwise). */
int sl__pg_table_describe(PGconn *c, const sl__pg_target *t, sl__pg_table *out, sl_error *err);
void sl__pg_table_clear(sl__pg_table *tb);
/* The plan-time checks of a table that is read (sl_connector.check_source):
** it exists, the declared columns exist with types they read into, the role
** may SELECT them (42501), a partition column is numeric. */
int sl__pg_check_source(const sl_connector *c, const sl_kvlist *opts, const sl_table_shape *shape,
                        sl_error *err);

/* ------------------------------------------------------------------------
** The sink's database (pg_sink.c runs both): what it calls on a
** connection and a row writer, so one sink serves PostgreSQL and MariaDB.
*/
typedef struct sl__jdbc_driver {
    const char *system; /* "postgresql", "mariadb" (messages, SHOW JOBS) */
    void *(*connect)(const sl__pg_target *t, const char *appname, int64_t timeout_ms,
                     sl_error *err);
    bool (*alive)(void *conn);
    void (*close)(void *conn);
    int (*run)(void *conn, const char *sql, const char *what, sl_error *err);
    bool (*retryable)(const sl_error *err);
    int (*writer_new)(const sl_sink_args *args, void **out, sl_error *err);
    int (*writer_put)(void *w, void *conn, const sl_chunk *c, int64_t epoch, sl_error *err);
    int (*writer_finish)(void *w, sl_error *err);
    void (*writer_forget)(void *w);
    int64_t (*writer_conflicts)(const void *w);
    int (*writer_setup)(const void *w, void *conn, sl_error *err);
    void (*writer_free)(void *w);
    int (*txn_write)(sl_participant *p, int64_t epoch, void *w, const sl_chunk *c,
                     sl_error *err);
} sl__jdbc_driver;

extern const sl__jdbc_driver sl__pg_driver; /* pg_sink.c */
extern const sl__jdbc_driver sl__my_driver; /* my_write.c */

/* Shared by pg_txn.c and my_txn.c (jdbc.c): the number of the n bytes at s
** (1 to 18 digits) or -1; " since HH:MM:SS UTC" of t (SHOW JOBS); the
** fencing error (55006, err reset first) of job with prefix at epoch. */
int64_t sl__jdbc_digits(const char *s, size_t n);
void sl__jdbc_since(sl_strbuf *out, time_t t);
int sl__jdbc_fenced(sl_error *err, const char *system, const char *job, const char *prefix,
                    int64_t epoch);
/* A participant's two epoch connections ("slots"): the index of the slot
** whose epoch (*epochs[i], -1 = free) is epoch, else of a free one, claimed
** for it; -1 with err when both carry other epochs (a third epoch opened
** while two are undecided). mu guards the epochs. */
int sl__jdbc_slot_claim(pthread_mutex_t *mu, int64_t *const epochs[2], int64_t epoch,
                        sl_error *err);
/* The refusal (55006) of DROP TABLE of t while its database holds n
** prepared transactions of prefix, listed: the first five, "'a', 'b'"
** (the message adds ", ..." past five). xa: MariaDB's prepared XA
** transactions, else PostgreSQL's (pg_txn.c, my_check.c). Returns -1. */
int sl__jdbc_drop_refused(sl_error *err, bool xa, const sl__pg_target *t, const char *prefix,
                          int n, const char *listed);

/* Shared by the row writers (pg_write.c, my_write.c; jdbc.c): the sink's
** columns and key copied out of args into the writer's own arrays: *names
** (args->ncols of them, NULL-terminated), *types when types is not NULL,
** *pk (args->npk indexes). sl__jdbc_columns_free frees such copies (any of
** them may be NULL). */
void sl__jdbc_columns_copy(const sl_sink_args *args, char ***names, sl_type **types, int **pk);
void sl__jdbc_columns_free(char **names, sl_type *types, int *pk);

/* Whether opts' 'url' names MariaDB/MySQL (the my_*.c side). */
bool sl__jdbc_is_mysql(const sl_kvlist *opts);

/* ------------------------------------------------------------------------
** MariaDB / MySQL (MariaDB Connector/C): my_conn.c, my_write.c, my_check.c,
** my_txn.c. A sink only (no scan, no lookup).
*/
/* Connect to t within timeout_ms (<= 0: the target's retry timeout),
** retrying what may pass (refused, too many connections). The session runs
** with utf8mb4, time_zone '+00:00' and sql_mode STRICT_ALL_TABLES,
** NO_BACKSLASH_ESCAPES (string literals are quoted by doubling ' alone).
** NULL with err (08001 unreachable, 28P01 wrong password, 3D000 unknown
** database; never the password). */
MYSQL *sl__my_connect(const sl__pg_target *t, int64_t timeout_ms, sl_error *err);
/* Set err from c's last error: a PostgreSQL SQLSTATE for the errors a
** user meets (sl__my_sqlstate), the server's words, its error number in
** the detail; what (may be NULL) prepended. Returns -1. */
int sl__my_error(sl_error *err, MYSQL *c, const char *what);
/* The PostgreSQL SQLSTATE of MariaDB error number e (sqlstate: the
** server's own, the fallback). */
const char *sl__my_sqlstate(unsigned e, const char *sqlstate);
/* Run sql (its result sets discarded). 0 or -1 (sl__my_error). */
int sl__my_run(MYSQL *c, const char *sql, const char *what, sl_error *err);
/* Run a query and return its stored result, or NULL with err. */
MYSQL_RES *sl__my_query(MYSQL *c, const char *sql, const char *what, sl_error *err);
/* sl__my_run, and the rows it matched (CLIENT_FOUND_ROWS) in *affected. */
int sl__my_run_count(MYSQL *c, const char *sql, int64_t *affected, const char *what,
                     sl_error *err);
bool sl__my_retryable(const sl_error *err);
/* Whether c (may be NULL) can take another statement: its last one did not
** find the session gone, lost or killed. */
bool sl__my_alive(MYSQL *c);
void sl__my_quote_ident(sl_strbuf *sb, const char *ident);  /* `a``b` */
void sl__my_quote_literal(sl_strbuf *sb, const char *s);   /* 'it''s' (NO_BACKSLASH_ESCAPES) */
/* Row r of v as a MariaDB literal ('2026-01-01 10:00:00.123', X'0a', 1.5e3,
** NULL). -1 with err (22003) for a value MariaDB cannot hold (NaN, an
** infinity). */
int sl__my_literal(sl_strbuf *sb, const sl_vector *v, int r, sl_error *err);

/* my_check.c: the plan-time checks of a written table and the probe. */
int sl__my_check_sink(const sl_connector *c, const sl_kvlist *opts, const sl_table_shape *shape,
                      sl_error *err);
int sl__my_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err);
int sl__my_drop_check(const sl_connector *c, const sl_kvlist *opts, sl_error *err);

/* my_txn.c: the participant (XA per epoch, or the last resource). */
int sl__my_txn_create(const sl_participant_args *args, sl_participant **out, sl_error *err);
int sl__my_txn_write(sl_participant *p, int64_t epoch, void *w, const sl_chunk *c,
                     sl_error *err);
/* An epoch's xid: gtrid 'sluice:<prefix>:' (the prefix's), bqual
** '<epoch>:<token>', formatID 1; XA RECOVER's data is the two joined,
** 'sluice:<prefix>:<epoch>:<token>'. The epoch of such data (gtrid_len:
** its gtrid's length) when its gtrid is prefix's, else -1. */
int64_t sl__my_xid_epoch(const char *data, size_t gtrid_len, size_t len, const char *prefix);
#define SL__MY_PREFIX_MAX 56 /* MariaDB's gtrid holds 64 bytes: 'sluice:' + prefix + ':' */

#endif /* SL_JDBC_INT_H */
