/*
** jdbc.c — the 'jdbc' connector's declaration: Flink's JDBC connector
** options over PostgreSQL (libpq), its capabilities and the checks of its
** options when a table is declared.
**
**   source  a bounded scan of the table (pg_source.c): split into ranges
**           of 'scan.partition.column' read in parallel, each task's ranges
**           in one snapshot; replayable while the table does not change
**           (a restart rereads the unfinished range in a new snapshot and
**           skips the rows it had handed out);
**   sink    rows of an append-only query inserted in batches; with a
**           PRIMARY KEY, an updating query upserted (INSERT ... ON CONFLICT)
**           and deleted by key (pg_sink.c). At-least-once: every batch is
**           committed before the checkpoint's barrier is acknowledged.
**           Exactly-once: one transaction per epoch and database, prepared
**           (PREPARE TRANSACTION: a preparable participant) or, when the
**           server allows no prepared transactions, committed with its
**           progress row as the job's last resource (pg_txn.c).
**
** What the server holds (the table, its columns, key, privileges) is checked
** when an INSERT or a query reading the table is planned (pg_check.c:
** check_sink, check_source), not here: declaring a table does not need the
** server.
*/
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "jdbc_int.h"

/* ------------------------------------------------------------------------
** Shared by the two participants (pg_txn.c, my_txn.c) and their DROP TABLE
** checks (pg_txn.c, my_check.c).
*/
int64_t sl__jdbc_digits(const char *s, size_t n)
{
    if (n < 1 || n > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

void sl__jdbc_since(sl_strbuf *out, time_t t)
{
    struct tm tm;
    char buf[32];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%H:%M:%S UTC", &tm);
    sl_strbuf_appendf(out, " since %s", buf);
}

int sl__jdbc_slot_claim(pthread_mutex_t *mu, int64_t *const epochs[2], int64_t epoch,
                        sl_error *err)
{
    int got = -1;
    pthread_mutex_lock(mu);
    for (int i = 0; i < 2 && got < 0; i++)
        if (*epochs[i] == epoch)
            got = i;
    for (int i = 0; i < 2 && got < 0; i++)
        if (*epochs[i] < 0) {
            got = i;
            *epochs[i] = epoch;
        }
    pthread_mutex_unlock(mu);
    if (got < 0)
        sl_error_set(err, SL_ERR_INTERNAL, -1,
                     "jdbc: a third epoch (%" PRId64 ") opened while two are undecided", epoch);
    return got;
}

int sl__jdbc_fenced(sl_error *err, const char *system, const char *job, const char *prefix,
                    int64_t epoch)
{
    sl_error_reset(err);
    sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                 "job \"%s\" was fenced: a newer instance writes to %s with transactional id "
                 "prefix '%s'",
                 job, system, prefix);
    sl_error_detail(err, "The progress row of '%s' in %s carries another fencing token. "
                         "Nothing of checkpoint %" PRId64 " became visible; this instance stops.",
                    prefix, SL__PG_PROGRESS_TABLE, epoch);
    sl_error_hint(err, "Run each job in one place at a time; give jobs that should run side by "
                       "side their own 'sink.transactional-id-prefix'.");
    return -1;
}

int sl__jdbc_drop_refused(sl_error *err, bool xa, const sl__pg_target *t, const char *prefix,
                          int n, const char *listed)
{
    const char *x = xa ? " XA" : "";
    sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                 "%s table \"%s\" has %d prepared%s transaction%s in %s",
                 xa ? "MariaDB" : "PostgreSQL", t->table, n, x, n > 1 ? "s" : "", t->display);
    sl_error_detail(err, "Prepared%s transactions of 'sink.transactional-id-prefix' = '%s': %s%s. "
                         "They hold rows of an exactly-once job that stopped before it resolved "
                         "them.",
                    x, prefix, listed, n > 5 ? ", ..." : "");
    sl_error_hint(err, "Run the job again (its start commits the decided ones and rolls back the "
                       "rest), or roll them back in the database (%s), then drop the table.",
                  xa ? "XA ROLLBACK '<gtrid>','<bqual>',1" : "ROLLBACK PREPARED '<gid>'");
    return -1;
}

/* ------------------------------------------------------------------------
** Shared by the two row writers (pg_write.c, my_write.c).
*/
void sl__jdbc_columns_copy(const sl_sink_args *args, char ***names, sl_type **types, int **pk)
{
    *names = sl_calloc((size_t)args->ncols + 1, sizeof(char *));
    for (int i = 0; i < args->ncols; i++)
        (*names)[i] = sl_strdup(args->names[i]);
    if (types) {
        *types = sl_calloc((size_t)args->ncols + 1, sizeof(sl_type));
        for (int i = 0; i < args->ncols; i++)
            (*types)[i] = args->types[i];
    }
    *pk = sl_calloc((size_t)args->npk + 1, sizeof(int));
    for (int k = 0; k < args->npk; k++)
        (*pk)[k] = args->pk[k];
}

void sl__jdbc_columns_free(char **names, sl_type *types, int *pk)
{
    for (int i = 0; names && names[i]; i++)
        sl_free(names[i]);
    sl_free(names);
    sl_free(types);
    sl_free(pk);
}

static const sl_option_spec sl__jdbc_options[] = {
    {.key = "url",
     .type = SL_OPT_STRING,
     .required = true,
     .description = "The database: 'jdbc:postgresql://host:port/database' (pgJDBC's URL; its "
                    "parameters user, password, ssl, sslmode, connectTimeout, ApplicationName, "
                    "options and currentSchema are honoured), or a MariaDB/MySQL server, "
                    "written only: 'jdbc:mariadb://host:port/database' or 'jdbc:mysql://...' "
                    "(parameters user, password, connectTimeout in ms)."},
    {.key = "table-name",
     .type = SL_OPT_STRING,
     .required = true,
     .description = "The table in the database: 'table' or 'schema.table' (a part may be "
                    "\"quoted\")."},
    {.key = "driver",
     .type = SL_OPT_STRING,
     .description = "Accepted for Flink's DDL ('org.postgresql.Driver'); the connector speaks "
                    "to PostgreSQL through libpq whatever it says."},
    {.key = "username",
     .type = SL_OPT_STRING,
     .description = "The role to connect as (wins over the URL's 'user')."},
    {.key = "password",
     .type = SL_OPT_STRING,
     .secret = true,
     .description = "The role's password (wins over the URL's); never shown or logged."},
    {.key = "connection.max-retry-timeout",
     .type = SL_OPT_DURATION,
     .default_value = SL__PG_RETRY_TIMEOUT_DEFAULT,
     .description = "How long a connection is retried while the server cannot be reached "
                    "(refused, starting up) before the job fails; plan-time checks wait at "
                    "most 10 s."},
    {.key = "scan.partition.column",
     .type = SL_OPT_STRING,
     .description = "An integer or DECIMAL column splitting the scan into "
                    "'scan.partition.num' ranges (col BETWEEN a AND b) of the lower to upper "
                    "bound, read in parallel (all four options or none). As in Flink, rows "
                    "outside the bounds, or where it is NULL, are not read."},
    {.key = "scan.partition.num",
     .type = SL_OPT_INT,
     .description = "The number of partitions of the scan."},
    {.key = "scan.partition.lower-bound",
     .type = SL_OPT_INT,
     .description = "The smallest value of the first partition (rows below it are not "
                    "read)."},
    {.key = "scan.partition.upper-bound",
     .type = SL_OPT_INT,
     .description = "The largest value of the last partition (rows above it are not read)."},
    {.key = "scan.fetch-size",
     .type = SL_OPT_INT,
     .default_value = "0",
     .description = "Rows fetched from the server per round trip (a cursor); 0 = 1000."},
    {.key = "scan.copy",
     .type = SL_OPT_BOOL,
     .default_value = "false",
     .description = "Sluice's: read each partition with one COPY (SELECT ...) TO STDOUT, "
                    "unordered and without a cursor (faster; not replayable inside a "
                    "partition). RECONCILE reads a ledger so."},
    {.key = "scan.copy.where",
     .type = SL_OPT_STRING,
     .description = "Sluice's, with 'scan.copy': a PostgreSQL condition each COPY adds to its "
                    "WHERE. RECONCILE sets it from its predicate's simple conjuncts (the rows "
                    "of the range, not of the whole ledger)."},
    {.key = "scan.auto-commit",
     .type = SL_OPT_BOOL,
     .default_value = "true",
     .description = "Accepted for Flink's DDL: each task of a scan reads in one read-only "
                    "transaction (one snapshot)."},
    {.key = "lookup.cache",
     .type = SL_OPT_ENUM,
     .enum_values = "NONE|PARTIAL",
     .default_value = "NONE",
     .description = "Lookup joins: 'NONE' asks PostgreSQL for every key, 'PARTIAL' keeps the "
                    "rows of the keys looked up in each task (needs a max-rows or an expiry)."},
    {.key = "lookup.partial-cache.max-rows",
     .type = SL_OPT_INT,
     .description = "PARTIAL: the keys kept per task; the least recently used go first."},
    {.key = "lookup.partial-cache.expire-after-write",
     .type = SL_OPT_DURATION,
     .description = "PARTIAL: a key's rows are asked for again this long after they were read "
                    "from PostgreSQL."},
    {.key = "lookup.partial-cache.expire-after-access",
     .type = SL_OPT_DURATION,
     .description = "PARTIAL: a key's rows are dropped when not used for this long."},
    {.key = "lookup.partial-cache.cache-missing-key",
     .type = SL_OPT_BOOL,
     .default_value = "true",
     .description = "PARTIAL: also keep that a key has no rows."},
    {.key = "lookup.max-retries",
     .type = SL_OPT_INT,
     .default_value = "3",
     .description = "How often a failed lookup (a lost connection: it reconnects) is retried "
                    "before the job fails (and restarts from its checkpoint)."},
    {.key = "lookup.cache.max-rows",
     .type = SL_OPT_INT,
     .description = "Deprecated (Flink's former option): with 'lookup.cache.ttl', a PARTIAL "
                    "cache of this many keys."},
    {.key = "lookup.cache.ttl",
     .type = SL_OPT_DURATION,
     .description = "Deprecated: with 'lookup.cache.max-rows', the PARTIAL cache's "
                    "expire-after-write."},
    {.key = "lookup.cache.caching-missing-key",
     .type = SL_OPT_BOOL,
     .default_value = "true",
     .description = "Deprecated: 'lookup.partial-cache.cache-missing-key' of the former "
                    "options."},
    {.key = "sink.buffer-flush.max-rows",
     .type = SL_OPT_INT,
     .default_value = SL__PG_FLUSH_ROWS_DEFAULT,
     .description = "Rows buffered before they are written; '0' writes only at checkpoints "
                    "and by the interval."},
    {.key = "sink.buffer-flush.interval",
     .type = SL_OPT_DURATION,
     .default_value = SL__PG_FLUSH_INTERVAL_DEFAULT,
     .description = "Buffered rows are written at least this often; '0' turns the timer off."},
    {.key = "sink.max-retries",
     .type = SL_OPT_INT,
     .default_value = SL__PG_MAX_RETRIES_DEFAULT,
     .description = "How often a failed write (a lost connection, a serialization failure) is "
                    "retried before the job fails (and restarts by its restart strategy)."},
    {.key = "sink.on-duplicate-key",
     .type = SL_OPT_ENUM,
     .enum_values = "update|ignore|error",
     .description = "With a PRIMARY KEY, a row whose key the table holds: 'update' (the "
                    "default: upsert), 'ignore' (keep the stored row: the idempotent ledger "
                    "insert; a duplicate whose other columns differ is a conflict, counted, "
                    "logged and written to 'sink.conflict-table'), or 'error' (a conflict fails "
                    "the job with 23505). An identical duplicate is absorbed quietly under "
                    "'ignore' and 'error'."},
    {.key = "sink.conflict-table",
     .type = SL_OPT_STRING,
     .description = "Under 'sink.on-duplicate-key' = 'ignore': the table ('table' or "
                    "'schema.table', created when missing, in the same database) receiving "
                    "each conflict in the transaction of its rows: the key, the stored and the "
                    "conflicting row as JSON, the job, the epoch and when."},
    {.key = "sink.transactional-id-prefix",
     .type = SL_OPT_STRING,
     .description = "Exactly-once sinks: names what the job leaves in the database (prepared "
                    "transactions' gids, its row in the progress table sluice_progress); stable "
                    "across restarts, unique to one job."},
};

bool sl__jdbc_is_mysql(const sl_kvlist *opts)
{
    const char *url = sl_kvlist_get(opts, "url");
    return url && (strncmp(url, SL__MY_URL_PREFIX, strlen(SL__MY_URL_PREFIX)) == 0 ||
                   strncmp(url, SL__MARIADB_URL_PREFIX, strlen(SL__MARIADB_URL_PREFIX)) == 0);
}

/* A MariaDB/MySQL table is written only: what reads it is refused. */
static int sl__jdbc_my_sink_only(const sl_kvlist *opts, const char *what, sl_error *err)
{
    const sl_kv *url = sl_kvlist_find(opts, "url");
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, url ? url->value_pos : -1,
                 "%s MariaDB/MySQL tables is not supported", what);
    sl_error_detail(err, "The jdbc connector writes MariaDB and MySQL tables (a sink); it reads "
                         "PostgreSQL only.");
    return -1;
}

/* The options a MariaDB/MySQL table does not take: every declared scan.*
** and lookup.* option (scans and lookups are PostgreSQL's). The first such
** option as written is named. */
static int sl__jdbc_my_check(const sl_kvlist *opts, sl_error *err)
{
    for (int i = 0; i < opts->n; i++) {
        const sl_kv *kv = &opts->items[i];
        if (strncmp(kv->key, "scan.", 5) != 0 && strncmp(kv->key, "lookup.", 7) != 0)
            continue;
        if (!sl__spec_find(sl__jdbc_options, (int)SL_ARRAY_LEN(sl__jdbc_options), kv->key))
            continue;
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, kv->key_pos,
                     "option '%s' is not supported for MariaDB/MySQL tables", kv->key);
        sl_error_detail(err, "The jdbc connector writes MariaDB and MySQL tables (a sink); "
                             "scans and lookups are PostgreSQL's.");
        return -1;
    }
    return 0;
}

static int sl__jdbc_check_sink(const sl_connector *c, const sl_kvlist *opts,
                               const sl_table_shape *shape, sl_error *err)
{
    return sl__jdbc_is_mysql(opts) ? sl__my_check_sink(c, opts, shape, err)
                                   : sl__pg_check_sink(c, opts, shape, err);
}

static int sl__jdbc_check_source(const sl_connector *c, const sl_kvlist *opts,
                                 const sl_table_shape *shape, sl_error *err)
{
    return sl__jdbc_is_mysql(opts) ? sl__jdbc_my_sink_only(opts, "reading", err)
                                   : sl__pg_check_source(c, opts, shape, err);
}

static int sl__jdbc_source_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    return sl__jdbc_is_mysql(args->options) ? sl__jdbc_my_sink_only(args->options, "reading", err)
                                            : sl__pg_source_create(args, out, err);
}

static int sl__jdbc_lookup_create(const sl_lookup_args *args, sl_lookup **out, sl_error *err)
{
    return sl__jdbc_is_mysql(args->options)
               ? sl__jdbc_my_sink_only(args->options, "looking up rows of", err)
               : sl__pg_lookup_create(args, out, err);
}

static int sl__jdbc_txn_create(const sl_participant_args *args, sl_participant **out,
                               sl_error *err)
{
    return args->nsinks > 0 && sl__jdbc_is_mysql(args->options[0])
               ? sl__my_txn_create(args, out, err)
               : sl__pg_txn_create(args, out, err);
}

static int sl__jdbc_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out,
                          sl_error *err)
{
    return sl__jdbc_is_mysql(opts) ? sl__my_probe(opts, timeout_ms, out, err)
                                   : sl__pg_probe(opts, timeout_ms, out, err);
}

static int sl__jdbc_drop_check(const sl_connector *c, const sl_kvlist *opts, sl_error *err)
{
    return sl__jdbc_is_mysql(opts) ? sl__my_drop_check(c, opts, err)
                                   : sl__pg_drop_check(c, opts, err);
}

/* Options that go together. */
static int sl__jdbc_check(const sl_connector *c, const sl_kvlist *opts,
                          const sl_table_shape *shape, sl_error *err)
{
    (void)c;
    /* The URL and table name parse (no server needed). */
    sl__pg_target t;
    if (sl__pg_target_parse(opts, &t, err) != 0)
        return -1;
    sl__pg_target_clear(&t);
    if (sl__jdbc_is_mysql(opts) && sl__jdbc_my_check(opts, err) != 0)
        return -1;
    static const char *const part[] = {"scan.partition.column", "scan.partition.num",
                                       "scan.partition.lower-bound",
                                       "scan.partition.upper-bound"};
    int nset = 0;
    for (size_t i = 0; i < SL_ARRAY_LEN(part); i++)
        nset += sl_kvlist_get(opts, part[i]) != NULL;
    if (nset != 0 && nset != (int)SL_ARRAY_LEN(part)) {
        for (size_t i = 0; i < SL_ARRAY_LEN(part); i++)
            if (!sl_kvlist_get(opts, part[i])) {
                const sl_kv *any = NULL;
                for (size_t k = 0; k < SL_ARRAY_LEN(part) && !any; k++)
                    any = sl_kvlist_find(opts, part[k]);
                sl_error_set(err, SL_ERR_INVALID_PARAMETER, any ? any->key_pos : -1,
                             "option '%s' is required with '%s'", part[i], any->key);
                sl_error_hint(err, "A partitioned scan takes all of 'scan.partition.column', "
                                   "'.num', '.lower-bound' and '.upper-bound'.");
                return -1;
            }
    }
    if (nset) {
        const sl_kv *num = sl_kvlist_find(opts, "scan.partition.num");
        const sl_kv *lo = sl_kvlist_find(opts, "scan.partition.lower-bound");
        const sl_kv *hi = sl_kvlist_find(opts, "scan.partition.upper-bound");
        int64_t n = 0, l = 0, h = 0;
        if (sl_option_parse_int(num->value, &n, num->value_pos, err) != 0 ||
            sl_option_parse_int(lo->value, &l, lo->value_pos, err) != 0 ||
            sl_option_parse_int(hi->value, &h, hi->value_pos, err) != 0)
            return -1;
        if (n < 1 || n > 1000000)
            return sl__invalid_value(err, num, false,
                                     "is not a number of partitions from 1 to 1000000");
        if (l > h)
            return sl__invalid_value(err, lo, false, "is above 'scan.partition.upper-bound'");
        const sl_kv *col = sl_kvlist_find(opts, "scan.partition.column");
        int ci = shape ? sl__shape_find(shape, col->value, strlen(col->value)) : -1;
        if (shape && ci < 0)
            return sl__invalid_value(err, col, false, "is not a column of the table");
        if (shape && !sl_type_is_integer(shape->types[ci].id) &&
            shape->types[ci].id != SL_TYPE_DECIMAL)
            return sl__invalid_value(err, col, false,
                                     "is not an integer or DECIMAL column (the bounds are "
                                     "integers)");
    }
    const sl_kv *dup = sl_kvlist_find(opts, "sink.on-duplicate-key");
    if (dup && shape && shape->npk == 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, dup->key_pos,
                     "option 'sink.on-duplicate-key' needs a PRIMARY KEY");
        sl_error_hint(err, "Declare the key the database's unique constraint holds: PRIMARY KEY "
                           "(id) NOT ENFORCED.");
        return -1;
    }
    if (sl__pg_lookup_check(opts, err) != 0)
        return -1;
    const sl_kv *conf = sl_kvlist_find(opts, "sink.conflict-table");
    if (conf && (!dup || sl_strcasecmp(dup->value, "ignore") != 0)) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, conf->key_pos,
                     "option 'sink.conflict-table' needs 'sink.on-duplicate-key' = 'ignore'");
        sl_error_detail(err, "Conflicts are recorded when the stored row is kept; 'update' "
                             "overwrites it and 'error' fails the job.");
        return -1;
    }
    if (conf) {
        sl_kvlist *o = sl_kvlist_new();
        sl_kvlist_add(o, "url", sl_kvlist_get(opts, "url"), -1, -1);
        sl_kvlist_add(o, "table-name", conf->value, -1, conf->value_pos);
        int rc = sl__pg_target_parse(o, &t, err);
        if (rc == 0)
            sl__pg_target_clear(&t);
        sl_kvlist_free(o);
        if (rc != 0) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, conf->value_pos,
                         "invalid value for option 'sink.conflict-table': \"%s\" is not a table "
                         "name",
                         conf->value);
            return -1;
        }
    }
    return 0;
}

const sl_connector sl__connector_jdbc = {
    .name = "jdbc",
    .description = "A PostgreSQL table (Flink's JDBC connector options, through libpq): "
                   "bounded scans, replayable only while the table does not change (SQL.md); "
                   "exactly-once sinks by prepared transactions. A MariaDB/MySQL table (MariaDB "
                   "Connector/C): exactly-once sinks by XA transactions.",
    .options = sl__jdbc_options,
    .noptions = (int)SL_ARRAY_LEN(sl__jdbc_options),
    .has_format = false,
    .caps =
        {
            .source = true,
            .source_replayable = true,
            .source_bound = SL_BOUND_ALWAYS,
            .sink = true,
            .sink_max = SL_GUARANTEE_EXACTLY_ONCE,
            .sink_mech = SL_MECH_2PC_PREPARABLE,
            .sink_default = SL_GUARANTEE_AT_LEAST_ONCE,
            .sink_updates = true,
            .sink_upserts = true,
            .txn_prefix_option = "sink.transactional-id-prefix",
            .txn_system = "postgresql",
            .cluster_option = "url",
            .sink_target_option = "table-name",
            .probe = sl__jdbc_probe,
        },
    .check = sl__jdbc_check,
    .check_sink = sl__jdbc_check_sink,
    .check_source = sl__jdbc_check_source,
    .create_source = sl__jdbc_source_create,
    .create_sink = sl__pg_sink_create,
    .create_participant = sl__jdbc_txn_create,
    .create_lookup = sl__jdbc_lookup_create,
    .lookup_describe = sl__pg_lookup_describe,
    .drop_check = sl__jdbc_drop_check,
};
