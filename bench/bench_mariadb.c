/*
** bench_mariadb.c — the jdbc sink into a local MariaDB, as ratios to a
** ceiling (issue 17's benchmark for MySQL/MariaDB).
**
** N rows (id BIGINT, grp BIGINT, amount DECIMAL(12,2), note VARCHAR of
** about 30 bytes, ts DATETIME(3)) into a fresh InnoDB table each case:
**
**   (a)  ceiling   LOAD DATA LOCAL INFILE of the same rows from a TSV file,
**                  one statement, one transaction (MariaDB's bulk load);
**   (a2) upsert    the same rows as multi-row INSERT ... ON DUPLICATE KEY
**                  UPDATE statements of 1000 rows through Connector/C, one
**                  transaction: what the sink sends for a table with a key;
**   (b)  sluice    `sluice -f`: INSERT INTO t SELECT ... FROM datagen, no
**                  key, at-least-once, checkpoints every 1 s;
**   (c)  sluice    the same, exactly-once (XA per epoch);
**   (d)  sluice    upsert at-least-once (PRIMARY KEY): every 10th row
**                  repeats the key of an earlier row.
**
** A sluice case's rate is N over the whole run of `sluice -f` (start to
** the last commit); each case's row count is checked with a query. Ratios:
** b/a, c/b, d/a2.
**
**   build/release/bench/bench_mariadb PORT SLUICE [rows]
**
** e.g. MARIADB_PORT=23990 MARIADB_RUN_DIR=/tmp/mdb scripts/mariadb start
**      build/release/bench/bench_mariadb 23990 build/release/sluice 1000000
** (user sluice / password sluice, database sluice: scripts/mariadb's).
*/
#include <mysql.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static const char *g_port;
static const char *g_sluice;

static MYSQL *db(void)
{
    MYSQL *c = mysql_init(NULL);
    unsigned proto = MYSQL_PROTOCOL_TCP;
    my_bool local = 1;
    mysql_optionsv(c, MYSQL_OPT_PROTOCOL, &proto);
    mysql_optionsv(c, MYSQL_OPT_LOCAL_INFILE, &local);
    if (!mysql_real_connect(c, "127.0.0.1", "sluice", "sluice", "sluice", (unsigned)atoi(g_port),
                            NULL, 0))
        die("connect", mysql_error(c));
    return c;
}

static void run(MYSQL *c, const char *sql)
{
    if (mysql_query(c, sql) != 0)
        die(sql, mysql_error(c));
}

static void fresh(MYSQL *c, const char *table)
{
    char sql[512];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", table);
    run(c, sql);
    snprintf(sql, sizeof sql,
             "CREATE TABLE %s (id BIGINT PRIMARY KEY, grp BIGINT, amount DECIMAL(12,2), note "
             "VARCHAR(64), ts DATETIME(3)) ENGINE=InnoDB",
             table);
    run(c, sql);
}

static long long count(MYSQL *c, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);
    run(c, sql);
    MYSQL_RES *r = mysql_store_result(c);
    MYSQL_ROW row = mysql_fetch_row(r);
    long long n = atoll(row[0]);
    mysql_free_result(r);
    return n;
}

/* Row id's values as text: the same as the sluice cases' SELECT. */
static int row_text(long long id, char *out, size_t n, bool tsv)
{
    long long ms = 1764633600000LL + id;
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char ts[40];
    strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
    if (tsv)
        return snprintf(out, n, "%lld\t%lld\t%lld.%02lld\tnote-%lld-abcdefghijkl\t%s.%03lld\n", id,
                        id % 1000, id / 100, id % 100, id, ts, ms % 1000);
    return snprintf(out, n, "(%lld,%lld,%lld.%02lld,'note-%lld-abcdefghijkl','%s.%03lld')", id,
                    id % 1000, id / 100, id % 100, id, ts, ms % 1000);
}

/* (a) LOAD DATA of a TSV file written beforehand (not timed). */
static double load_case(long long rows)
{
    const char *path = "/tmp/bench_mariadb.tsv";
    FILE *f = fopen(path, "w");
    if (!f)
        die("write", path);
    char line[256];
    for (long long id = 1; id <= rows; id++) {
        row_text(id, line, sizeof line, true);
        fputs(line, f);
    }
    fclose(f);
    MYSQL *c = db();
    fresh(c, "bench_load");
    double t0 = now_s();
    run(c, "START TRANSACTION");
    run(c, "LOAD DATA LOCAL INFILE '/tmp/bench_mariadb.tsv' INTO TABLE bench_load");
    run(c, "COMMIT");
    double s = now_s() - t0;
    if (count(c, "bench_load") != rows)
        die("load", "row count");
    mysql_close(c);
    unlink(path);
    return s;
}

/* (a2) multi-row upserts of 1000 rows, one transaction. */
static double upsert_case(long long rows)
{
    MYSQL *c = db();
    fresh(c, "bench_ups");
    size_t cap = 200 * 1000 + 256;
    char *sql = malloc(cap);
    char row[256];
    double t0 = now_s();
    run(c, "START TRANSACTION");
    for (long long id = 1; id <= rows;) {
        size_t n = (size_t)snprintf(sql, cap,
                                    "INSERT INTO bench_ups (id, grp, amount, note, ts) VALUES ");
        for (int k = 0; k < 1000 && id <= rows; k++, id++) {
            long long key = id % 10 == 0 ? id - 5 : id;
            int m = row_text(key, row, sizeof row, false);
            if (k)
                sql[n++] = ',';
            memcpy(sql + n, row, (size_t)m);
            n += (size_t)m;
        }
        n += (size_t)snprintf(sql + n, cap - n,
                              " ON DUPLICATE KEY UPDATE grp = VALUES(grp), amount = "
                              "VALUES(amount), note = VALUES(note), ts = VALUES(ts)");
        if (mysql_real_query(c, sql, n) != 0)
            die("upsert", mysql_error(c));
    }
    run(c, "COMMIT");
    double s = now_s() - t0;
    free(sql);
    if (count(c, "bench_ups") != rows - rows / 10)
        die("upsert", "row count");
    mysql_close(c);
    return s;
}

/* (b), (c), (d): the whole run of sluice -f. */
static double sluice_case(const char *tag_, const char *table, const char *g, bool key,
                          long long rows)
{
    MYSQL *c = db();
    fresh(c, table);
    char sql[4096], guarantee[256];
    if (strcmp(g, "exactly-once") == 0)
        snprintf(guarantee, sizeof guarantee,
                 "'sink.delivery-guarantee' = 'exactly-once', "
                 "'sink.transactional-id-prefix' = 'bench-%d'",
                 (int)getpid());
    else
        snprintf(guarantee, sizeof guarantee, "'sink.delivery-guarantee' = '%s'", g);
    const char *id = key ? "CASE WHEN MOD(id, 10) = 0 THEN id - 5 ELSE id END" : "id";
    snprintf(sql, sizeof sql,
             "SET 'execution.checkpointing.interval' = '1 s';\n"
             "SET 'parallelism.default' = '1';\n"
             "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = "
             "'%lld', 'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence', "
             "'fields.id.start' = '1', 'fields.id.end' = '%lld');\n"
             "CREATE TABLE t (id BIGINT, grp BIGINT, amount DECIMAL(12, 2), note STRING, "
             "ts TIMESTAMP(3)%s) WITH ('connector' = 'jdbc', 'url' = "
             "'jdbc:mariadb://127.0.0.1:%s/sluice', 'table-name' = '%s', 'username' = "
             "'sluice', 'password' = 'sluice', 'sink.buffer-flush.max-rows' = '1000', %s);\n"
             "INSERT INTO t SELECT %s, MOD(id, 1000), CAST(id AS DECIMAL(12, 2)) / 100, "
             "CONCAT('note-', CAST(id AS STRING), '-abcdefghijkl'), "
             "CAST(TO_TIMESTAMP_LTZ(1764633600000 + id, 3) AS TIMESTAMP(3)) FROM gen;\n",
             rows, rows, key ? ", PRIMARY KEY (id) NOT ENFORCED" : "", g_port, table, guarantee,
             id);
    char tag[64];
    snprintf(tag, sizeof tag, "bench_mariadb-%s", tag_);
    setenv("TZ", "UTC", 1);
    double s = bench_sluice(g_sluice, tag, sql);
    long long want = key ? rows - rows / 10 : rows;
    long long n = count(c, table);
    if (n != want) {
        fprintf(stderr, "bench_mariadb: case %s: %lld rows, expected %lld\n", tag, n, want);
        exit(1);
    }
    mysql_close(c);
    return s;
}

int main(int argc, char **argv)
{
    bench_name = "bench_mariadb";
    if (argc < 3) {
        fprintf(stderr, "usage: bench_mariadb PORT SLUICE [rows]\n");
        return 2;
    }
    g_port = argv[1];
    g_sluice = argv[2];
    long long rows = argc > 3 ? atoll(argv[3]) : 1000000;
    double a = load_case(rows);
    double a2 = upsert_case(rows);
    double b = sluice_case("b", "bench_alo", "at-least-once", false, rows);
    double c = sluice_case("c", "bench_eo", "exactly-once", false, rows);
    double d = sluice_case("d", "bench_upsert", "at-least-once", true, rows);
    printf("rows %lld\n", rows);
    printf("(a)  LOAD DATA (ceiling)        %9.0f rows/s\n", rows / a);
    printf("(a2) multi-row upserts          %9.0f rows/s\n", rows / a2);
    printf("(b)  sluice at-least-once       %9.0f rows/s   b/a  %.3f\n", rows / b, a / b);
    printf("(c)  sluice exactly-once (XA)   %9.0f rows/s   c/b  %.3f\n", rows / c, b / c);
    printf("(d)  sluice upsert              %9.0f rows/s   d/a2 %.3f\n", rows / d, a2 / d);
    return 0;
}
