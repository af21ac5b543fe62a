/*
** test_connectors_jdbc.c — the jdbc connector without a server: the JDBC
** URL mapped to libpq parameters (hosts, ports, IPv6, parameters, percent-
** encoding, other databases' URLs), Flink's JDBC type mapping for writing
** and reading, the decoding of PostgreSQL's text format for every mapped
** type, and the source's position round trip (nothing connects before the
** first poll). Against a real server: tests/postgres/plan_test.py.
*/
#include "sl_connector.h"
#include "jdbc/jdbc_int.h"
#include "sl_test.h"

static sl_kvlist *jopts(const char *url, const char *table)
{
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "jdbc", 0, 0);
    sl_kvlist_add(l, "url", url, 10, 20);
    sl_kvlist_add(l, "table-name", table, 30, 40);
    return l;
}

static const char *param(const sl__pg_target *t, const char *key)
{
    for (int i = 0; i < t->nparams; i++)
        if (strcmp(t->keys[i], key) == 0)
            return t->values[i];
    return NULL;
}

static void t_url_basic(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = jopts("jdbc:postgresql://db.example:6543/shop?user=u&password=p%40ss", "ledger");
    sl__pg_target t;
    REQUIRE(sl__pg_target_parse(l, &t, &err) == 0);
    CHECK_STR(param(&t, "host"), "db.example");
    CHECK_STR(param(&t, "port"), "6543");
    CHECK_STR(param(&t, "dbname"), "shop");
    CHECK_STR(param(&t, "user"), "u");
    CHECK_STR(param(&t, "password"), "p@ss");
    CHECK_STR(t.table, "ledger");
    CHECK(t.schema == NULL);
    CHECK_STR(t.qualified, "\"ledger\"");
    CHECK_STR(t.display, "db.example:6543/shop");
    sl__pg_target_clear(&t);
    sl_kvlist_free(l);
}

/* MariaDB/MySQL URLs: one server, port 3306 by default, Connector/J's
** parameters user, password, connectTimeout (ms); names quoted with
** backticks, 'database.table'. */
static void t_url_mysql(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = jopts("jdbc:mariadb://db.example/shop?user=u&password=p%40ss&connectTimeout=2500"
                         "&useSSL=false",
                         "`my.db`.`led``ger`");
    sl__pg_target t;
    REQUIRE(sl__pg_target_parse(l, &t, &err) == 0);
    CHECK(t.mysql);
    CHECK(sl__jdbc_is_mysql(l));
    CHECK_STR(param(&t, "host"), "db.example");
    CHECK_STR(param(&t, "port"), "3306");
    CHECK_STR(param(&t, "dbname"), "shop");
    CHECK_STR(param(&t, "user"), "u");
    CHECK_STR(param(&t, "password"), "p@ss");
    CHECK_STR(param(&t, "connect_timeout_ms"), "2500");
    CHECK(param(&t, "useSSL") == NULL);
    CHECK_STR(t.schema, "my.db");
    CHECK_STR(t.table, "led`ger");
    CHECK_STR(t.qualified, "`my.db`.`led``ger`");
    CHECK_STR(t.display, "db.example:3306/shop");
    sl__pg_target_clear(&t);
    sl_kvlist_free(l);

    l = jopts("jdbc:mysql://127.0.0.1:23306/sluice", "ledger");
    REQUIRE(sl__pg_target_parse(l, &t, &err) == 0);
    CHECK(t.mysql);
    CHECK_STR(param(&t, "port"), "23306");
    CHECK_STR(t.qualified, "`ledger`");
    sl__pg_target_clear(&t);
    sl_kvlist_free(l);

    l = jopts("jdbc:postgresql://h/db", "t");
    CHECK(!sl__jdbc_is_mysql(l));
    sl_kvlist_free(l);
}

/* The xids of my_txn.c: 'sluice:<prefix>:' + '<epoch>:<token>', the
** prefix compared exactly by the gtrid's length. */
static void t_my_xid(void)
{
    const char *d = "sluice:led:12:3";
    CHECK(sl__my_xid_epoch(d, 11, strlen(d), "led") == 12);
    CHECK(sl__my_xid_epoch(d, 11, strlen(d), "le") == -1);
    CHECK(sl__my_xid_epoch(d, 11, strlen(d), "led:1") == -1);
    const char *e = "sluice:led:12:3x";
    CHECK(sl__my_xid_epoch(e, 11, strlen(e), "led") == -1);
    const char *f = "sluice:a:b:7:1"; /* a prefix holding ':' */
    CHECK(sl__my_xid_epoch(f, 11, strlen(f), "a:b") == 7);
    CHECK(sl__my_xid_epoch(f, 11, strlen(f), "a") == -1);
}

static void t_url_hosts(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = jopts("jdbc:postgresql://a:1,[::1]:2,b/db?ssl=true&ApplicationName=my%20app"
                         "&currentSchema=s1&targetServerType=primary&prepareThreshold=3",
                         "s.\"T.x\"");
    sl_kvlist_add(l, "username", "alice", 50, 60);
    sl__pg_target t;
    REQUIRE(sl__pg_target_parse(l, &t, &err) == 0);
    CHECK_STR(param(&t, "host"), "a,::1,b");
    CHECK_STR(param(&t, "port"), "1,2,5432");
    CHECK_STR(param(&t, "sslmode"), "require");
    CHECK_STR(param(&t, "application_name"), "my app");
    CHECK_STR(param(&t, "options"), "-c search_path=s1");
    CHECK_STR(param(&t, "target_session_attrs"), "read-write");
    CHECK_STR(param(&t, "user"), "alice");
    CHECK(param(&t, "prepareThreshold") == NULL);
    CHECK_STR(t.schema, "s");
    CHECK_STR(t.table, "T.x");
    CHECK_STR(t.qualified, "\"s\".\"T.x\"");
    sl__pg_target_clear(&t);
    sl_kvlist_free(l);

    /* jdbc:postgresql:db and jdbc:postgresql:/ (local defaults) */
    l = jopts("jdbc:postgresql:shop", "t");
    REQUIRE(sl__pg_target_parse(l, &t, &err) == 0);
    CHECK_STR(param(&t, "host"), "localhost");
    CHECK_STR(param(&t, "port"), "5432");
    CHECK_STR(param(&t, "dbname"), "shop");
    sl__pg_target_clear(&t);
    sl_kvlist_free(l);
}

static void t_url_errors(void)
{
    static const struct {
        const char *url, *table, *state, *msg;
    } cases[] = {
        {"jdbc:sqlserver://h:1433;databaseName=x", "t", "0A000",
         "JDBC URLs of 'sqlserver' are not supported"},
        {"jdbc:mariadb:db", "t", "22023", "names its server"},
        {"jdbc:mysql://a:3306,b:3306/db", "t", "22023", "one host:port"},
        {"jdbc:mariadb://h:x/db", "t", "22023", "one host:port"},
        {"jdbc:oracle:thin:@h:1521:x", "t", "0A000", "'oracle'"},
        {"postgresql://h/db", "t", "22023", "not a JDBC URL"},
        {"jdbc:postgresql://h:port/db", "t", "22023", "port is not a number"},
        {"jdbc:postgresql://[::1/db", "t", "22023", "malformed"},
        {"jdbc:postgresql://h/db?user=%zz", "t", "22023", "percent-encoded"},
        {"jdbc:postgresql://h/d%00b", "t", "22023", "database name"},
        {"jdbc:postgresql://h/db", "a.b.c", "22023", "is not a table name"},
        {"jdbc:postgresql://h/db", "\"open", "22023", "is not a table name"},
        {"jdbc:postgresql://h/db", "", "22023", "is not a table name"},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        sl_error err = SL_ERROR_INIT;
        sl_kvlist *l = jopts(cases[i].url, cases[i].table);
        sl__pg_target t;
        CHECK(sl__pg_target_parse(l, &t, &err) == -1);
        CHECK_STR(err.sqlstate, cases[i].state);
        if (!err.message || !strstr(err.message, cases[i].msg)) {
            fprintf(stderr, "case %zu: %s\n", i, err.message ? err.message : "(none)");
            CHECK(0);
        }
        /* at the value of 'url' (20) or of 'table-name' (40) */
        bool at_url = strcmp(cases[i].table, "t") == 0;
        CHECK_INT(err.position, at_url ? 20 : 40);
        sl_error_reset(&err);
        sl_kvlist_free(l);
    }
    /* the password never appears in an error */
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = jopts("jdbc:postgresql://h/db?password=hunter22", "a.b.c");
    sl_kvlist_add(l, "password", "hunter22", 50, 60);
    sl__pg_target t;
    CHECK(sl__pg_target_parse(l, &t, &err) == -1);
    CHECK(strstr(err.message, "hunter22") == NULL);
    sl_error_reset(&err);
    sl_kvlist_free(l);
}

static sl_type ty(sl_type_id id, int p, int s)
{
    return p < 0 ? sl_type_make(id) : sl_type_make_p(id, p, s);
}

#define NUMERIC(p, s) ((((p) << 16) | (s)) + 4)

static void t_types_write(void)
{
    /* OK */
    CHECK(sl__pg_type_writable(ty(SL_TYPE_BOOLEAN, -1, 0), "bool", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_TINYINT, -1, 0), "int2", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_INT, -1, 0), "int8", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_INT, -1, 0), "numeric", NUMERIC(10, 0)) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_INT, -1, 0), "float8", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_FLOAT, -1, 0), "float8", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_DECIMAL, 10, 2), "numeric", NUMERIC(12, 3)) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_DECIMAL, 10, 2), "numeric", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_VARCHAR, 10, 0), "varchar", 14) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), "text", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), "varchar", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_CHAR, 3, 0), "bpchar", 7) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0), "bytea", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_DATE, -1, 0), "date", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_TIME, 3, 0), "time", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_TIMESTAMP, 6, 0), "timestamp", -1) == NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_TIMESTAMP_LTZ, 3, 0), "timestamptz", 3) == NULL);
    /* refused: a value could be cut, rounded or refused */
    CHECK(sl__pg_type_writable(ty(SL_TYPE_BIGINT, -1, 0), "int4", -1) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_BIGINT, -1, 0), "float8", -1) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_INT, -1, 0), "numeric", NUMERIC(9, 0)) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_DOUBLE, -1, 0), "float4", -1) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_DECIMAL, 10, 2), "numeric", NUMERIC(8, 2)) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_DECIMAL, 10, 2), "numeric", NUMERIC(12, 1)) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), "varchar", 14) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_VARCHAR, 20, 0), "varchar", 14) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_VARCHAR, 5, 0), "bpchar", 14) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_TIMESTAMP, 9, 0), "timestamp", -1) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_TIMESTAMP, 6, 0), "timestamptz", -1) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_INT, -1, 0), "text", -1) != NULL);
    CHECK(sl__pg_type_writable(ty(SL_TYPE_INTERVAL_DT, 3, 0), "interval", -1) != NULL);
}

static void t_types_read(void)
{
    CHECK(sl__pg_type_readable(ty(SL_TYPE_BIGINT, -1, 0), "int4", -1) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_INT, -1, 0), "int8", -1) != NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_TINYINT, -1, 0), "int2", -1) != NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_DOUBLE, -1, 0), "float4", -1) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_FLOAT, -1, 0), "float8", -1) != NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_DECIMAL, 10, 2), "numeric", NUMERIC(8, 2)) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_DECIMAL, 6, 2), "numeric", NUMERIC(8, 2)) != NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_DECIMAL, 38, 18), "numeric", -1) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_DECIMAL, 19, 0), "int8", -1) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_DECIMAL, 18, 0), "int8", -1) != NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), "text", -1) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_VARCHAR, 10, 0), "text", -1) != NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_VARCHAR, 10, 0), "varchar", 14) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0), "bytea", -1) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_TIMESTAMP, 3, 0), "timestamp", -1) == NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_TIMESTAMP, 3, 0), "timestamptz", -1) != NULL);
    CHECK(sl__pg_type_readable(ty(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), "json", -1) != NULL);
    bool mapped;
    sl_type f = sl__pg_flink_type("numeric", -1, &mapped);
    CHECK(mapped && f.id == SL_TYPE_DECIMAL && f.precision == 38 && f.scale == 18);
    f = sl__pg_flink_type("numeric", NUMERIC(8, 2), &mapped);
    CHECK(mapped && f.precision == 8 && f.scale == 2);
    f = sl__pg_flink_type("varchar", 14, &mapped);
    CHECK(mapped && f.id == SL_TYPE_VARCHAR && f.precision == 10);
    f = sl__pg_flink_type("uuid", -1, &mapped);
    CHECK(!mapped);
}

/* Decode text into a one-column chunk of type t; 0 or the SQLSTATE's
** first two characters compared by the caller. */
static int dec(sl_type t, const char *text, sl_chunk **out, sl_error *err)
{
    *out = sl_chunk_new(1, &t, 4);
    int r = sl_chunk_append_row(*out, SL_ROW_INSERT);
    return sl__pg_decode_value(*out, 0, r, text, strlen(text), err);
}

static void check_dec(sl_type t, const char *text, const char *want)
{
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c;
    int rc = dec(t, text, &c, &err);
    if (rc != 0) {
        fprintf(stderr, "decoding \"%s\": %s\n", text, err.message);
        CHECK(0);
    } else {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_value_format(&sb, &c->cols[0], 0);
        CHECK_STR(sl_strbuf_cstr(&sb), want);
        sl_strbuf_free(&sb);
    }
    sl_error_reset(&err);
    sl_chunk_free(c);
}

static void check_dec_err(sl_type t, const char *text, const char *state)
{
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c;
    CHECK(dec(t, text, &c, &err) == -1);
    CHECK_STR(err.sqlstate, state);
    sl_error_reset(&err);
    sl_chunk_free(c);
}

static void t_decode(void)
{
    check_dec(ty(SL_TYPE_BOOLEAN, -1, 0), "t", "TRUE");
    check_dec(ty(SL_TYPE_BOOLEAN, -1, 0), "f", "FALSE");
    check_dec(ty(SL_TYPE_SMALLINT, -1, 0), "-32768", "-32768");
    check_dec(ty(SL_TYPE_INT, -1, 0), "2147483647", "2147483647");
    check_dec(ty(SL_TYPE_BIGINT, -1, 0), "-9223372036854775808", "-9223372036854775808");
    check_dec(ty(SL_TYPE_FLOAT, -1, 0), "0.33333334", "0.33333334");
    check_dec(ty(SL_TYPE_DOUBLE, -1, 0), "0.14285714285714285", "0.14285714285714285");
    check_dec(ty(SL_TYPE_DOUBLE, -1, 0), "-Infinity", "-Infinity");
    check_dec(ty(SL_TYPE_DOUBLE, -1, 0), "NaN", "NaN");
    check_dec(ty(SL_TYPE_DECIMAL, 10, 2), "-12.5", "-12.50");
    check_dec(ty(SL_TYPE_DECIMAL, 38, 18), "0.125", "0.125000000000000000");
    check_dec(ty(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), "it's \"é\"", "it's \"é\"");
    check_dec(ty(SL_TYPE_CHAR, 5, 0), "ab   ", "ab   ");
    check_dec(ty(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0), "\\x00ff0A", "x'00ff0a'");
    check_dec(ty(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0), "\\x", "x''");
    check_dec(ty(SL_TYPE_DATE, -1, 0), "2026-02-28", "2026-02-28");
    check_dec(ty(SL_TYPE_TIME, 3, 0), "23:59:59.123456", "23:59:59.123");
    check_dec(ty(SL_TYPE_TIMESTAMP, 6, 0), "2026-01-31 12:00:00.123456",
              "2026-01-31 12:00:00.123456");
    check_dec(ty(SL_TYPE_TIMESTAMP, 3, 0), "1969-12-31 23:59:59.9999", "1969-12-31 23:59:59.999");
    check_dec(ty(SL_TYPE_TIMESTAMP_LTZ, 6, 0), "2026-01-31 12:00:00.5+00",
              "2026-01-31 12:00:00.500000");
    check_dec(ty(SL_TYPE_TIMESTAMP_LTZ, 0, 0), "2026-01-31 12:00:00+05:30", "2026-01-31 06:30:00");
    check_dec(ty(SL_TYPE_TIMESTAMP_LTZ, 0, 0), "2026-01-31 12:00:00-02", "2026-01-31 14:00:00");

    check_dec_err(ty(SL_TYPE_BOOLEAN, -1, 0), "yes", "22P02");
    check_dec_err(ty(SL_TYPE_TINYINT, -1, 0), "128", "22003");
    check_dec_err(ty(SL_TYPE_INT, -1, 0), "2147483648", "22003");
    check_dec_err(ty(SL_TYPE_BIGINT, -1, 0), "99999999999999999999", "22003");
    check_dec_err(ty(SL_TYPE_BIGINT, -1, 0), "1.5", "22P02");
    check_dec_err(ty(SL_TYPE_DECIMAL, 4, 2), "123.4", "22003");
    check_dec_err(ty(SL_TYPE_DECIMAL, 38, 18), "NaN", "22P02");
    check_dec_err(ty(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0), "\\x0g", "22P02");
    check_dec_err(ty(SL_TYPE_DATE, -1, 0), "infinity", "22008");
    check_dec_err(ty(SL_TYPE_DATE, -1, 0), "0044-03-15 BC", "22008");
    check_dec_err(ty(SL_TYPE_TIMESTAMP, 6, 0), "3000-01-01 00:00:00", "22008");
    check_dec_err(ty(SL_TYPE_TIME, 6, 0), "24:00:00", "22008");
}

/* Positions round-trip through seek; a position of another parallelism or
** partitioning is refused; nothing connects before the first poll. */
static void t_source_position(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = jopts("jdbc:postgresql://127.0.0.1:1/db", "t");
    sl_kvlist_add(l, "scan.partition.column", "id", 0, 0);
    sl_kvlist_add(l, "scan.partition.num", "4", 0, 0);
    sl_kvlist_add(l, "scan.partition.lower-bound", "1", 0, 0);
    sl_kvlist_add(l, "scan.partition.upper-bound", "10", 0, 0);
    const char *names[] = {"id"};
    sl_type types[] = {sl_type_make(SL_TYPE_BIGINT)};
    sl_source_args a = {.options = l, .ncols = 1, .names = names, .types = types,
                        .subtask = 1, .parallelism = 2, .table = "t"};
    sl_source *s;
    REQUIRE(sl__pg_source_create(&a, &s, &err) == 0);
    const char *pos = "jdbc;parallelism=2;subtask=1;partitions=4;done=1;rows=7";
    CHECK(s->ops->seek(s, pos, strlen(pos), &err) == 0);
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK(s->ops->position(s, &sb, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&sb), pos);
    sl_strbuf_free(&sb);
    const char *other = "jdbc;parallelism=3;subtask=1;partitions=4;done=0;rows=0";
    CHECK(s->ops->seek(s, other, strlen(other), &err) == -1);
    CHECK_STR(err.sqlstate, "0A000");
    sl_error_reset(&err);
    CHECK(s->ops->seek(s, "garbage", 7, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    s->ops->free(s);

    /* subtask 2 of 3 without partitioning ends at once, without a server */
    sl_kvlist *l2 = jopts("jdbc:postgresql://127.0.0.1:1/db", "t");
    sl_source_args b = {.options = l2, .ncols = 1, .names = names, .types = types,
                        .subtask = 2, .parallelism = 3, .table = "t"};
    REQUIRE(sl__pg_source_create(&b, &s, &err) == 0);
    sl_chunk *c = sl_chunk_new(1, types, 16);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_END);
    CHECK_INT(c->nrows, 0);
    sl_chunk_free(c);
    s->ops->free(s);
    sl_kvlist_free(l2);
    sl_kvlist_free(l);
}

/* The declaration's option checks: the partition column must be numeric. */
static void t_partition_options(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = jopts("jdbc:postgresql://h/db", "t");
    sl_kvlist_add(l, "scan.partition.column", "name", 50, 60);
    sl_kvlist_add(l, "scan.partition.num", "2", 70, 80);
    sl_kvlist_add(l, "scan.partition.lower-bound", "1", 90, 100);
    sl_kvlist_add(l, "scan.partition.upper-bound", "10", 110, 120);
    const char *names[] = {"id", "name"};
    sl_type types[] = {sl_type_make(SL_TYPE_BIGINT), sl_type_make_p(SL_TYPE_VARCHAR, 10, 0)};
    sl_table_shape shape = {2, names, types, 0, NULL, 0, NULL, -1};
    CHECK(sl_connector_validate(l, &shape, 0, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK_INT(err.position, 60);
    sl_error_reset(&err);
    sl_kvlist_set(l, "scan.partition.column", "id", 50, 60);
    CHECK(sl_connector_validate(l, &shape, 0, &err) == 0);
    sl_kvlist_free(l);
}

/* DROP TABLE's refusal (sl__jdbc_drop_refused, shared by both databases):
** each database's words, byte for byte. */
static void t_drop_refused(void)
{
    sl_error err = SL_ERROR_INIT;
    char table[] = "ledger", pg[] = "h:5432/db", my[] = "h:3306/db";
    sl__pg_target t = {.table = table, .display = pg};
    CHECK(sl__jdbc_drop_refused(&err, false, &t, "p", 1, "'a'") == -1);
    CHECK_STR(err.sqlstate, "55006");
    CHECK_INT(err.position, -1);
    CHECK_STR(err.message, "PostgreSQL table \"ledger\" has 1 prepared transaction in h:5432/db");
    CHECK_STR(err.detail, "Prepared transactions of 'sink.transactional-id-prefix' = 'p': 'a'. "
                          "They hold rows of an exactly-once job that stopped before it resolved "
                          "them.");
    CHECK_STR(err.hint, "Run the job again (its start commits the decided ones and rolls back the "
                        "rest), or roll them back in the database (ROLLBACK PREPARED '<gid>'), "
                        "then drop the table.");
    sl_error_reset(&err);
    t.display = my;
    CHECK(sl__jdbc_drop_refused(&err, true, &t, "p", 7, "'a', 'b', 'c', 'd', 'e'") == -1);
    CHECK_STR(err.sqlstate, "55006");
    CHECK_STR(err.message, "MariaDB table \"ledger\" has 7 prepared XA transactions in h:3306/db");
    CHECK_STR(err.detail, "Prepared XA transactions of 'sink.transactional-id-prefix' = 'p': 'a', "
                          "'b', 'c', 'd', 'e', .... They hold rows of an exactly-once job that "
                          "stopped before it resolved them.");
    CHECK_STR(err.hint, "Run the job again (its start commits the decided ones and rolls back the "
                        "rest), or roll them back in the database (XA ROLLBACK "
                        "'<gtrid>','<bqual>',1), then drop the table.");
    sl_error_reset(&err);
}

/* A MariaDB/MySQL table refuses every scan.* and lookup.* option (0A000 at
** the key); the same options are a PostgreSQL table's. */
static void t_my_read_options(void)
{
    const char *names[] = {"id"};
    sl_type types[] = {sl_type_make(SL_TYPE_BIGINT)};
    sl_table_shape shape = {1, names, types, 0, NULL, 0, NULL, -1};
    const sl_connector *c = sl_connector_find("jdbc");
    REQUIRE(c != NULL);
    int nread = 0;
    for (int i = 0; i < c->noptions; i++) {
        const char *key = c->options[i].key;
        if (strncmp(key, "scan.", 5) != 0 && strncmp(key, "lookup.", 7) != 0)
            continue;
        nread++;
        sl_error err = SL_ERROR_INIT;
        sl_kvlist *l = jopts("jdbc:mariadb://h/db", "t");
        const char *v = c->options[i].default_value;
        if (!v)
            v = c->options[i].type == SL_OPT_DURATION ? "1 min"
                : c->options[i].type == SL_OPT_STRING ? "id"
                                                      : "1";
        sl_kvlist_add(l, key, v, 50, 60);
        bool refused = sl_connector_validate(l, &shape, 0, &err) == -1 &&
                       strcmp(err.sqlstate, "0A000") == 0 && err.position == 50;
        if (!refused)
            fprintf(stderr, "MariaDB table with '%s' = '%s': not refused with 0A000 at the key "
                            "(%s: %s)\n",
                    key, v, err.sqlstate, err.message ? err.message : "");
        CHECK(refused);
        sl_error_reset(&err);
        sl_kvlist_free(l);
    }
    CHECK(nread >= 17);
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = jopts("jdbc:postgresql://h/db", "t");
    sl_kvlist_add(l, "scan.fetch-size", "500", 50, 60);
    sl_kvlist_add(l, "lookup.max-retries", "5", 70, 80);
    CHECK(sl_connector_validate(l, &shape, 0, &err) == 0);
    sl_kvlist_free(l);
    l = jopts("jdbc:mysql://h/db", "t");
    sl_kvlist_add(l, "sink.max-retries", "5", 50, 60);
    CHECK(sl_connector_validate(l, &shape, 0, &err) == 0);
    sl_kvlist_add(l, "lookup.max-retries", "5", 70, 80);
    sl_kvlist_add(l, "scan.fetch-size", "500", 90, 100);
    CHECK(sl_connector_validate(l, &shape, 0, &err) == -1);
    CHECK_STR(err.sqlstate, "0A000");
    CHECK_INT(err.position, 70);
    sl_error_reset(&err);
    sl_kvlist_free(l);
}

SL_TESTS(t_url_basic, t_url_hosts, t_url_mysql, t_my_xid, t_url_errors, t_types_write, t_types_read, t_decode,
         t_source_position, t_partition_options, t_drop_refused, t_my_read_options)
