/*
** test_connectors_pgtxn.c — the exactly-once participant of the jdbc
** connector (connectors/jdbc/pg_txn.c) against the real PostgreSQL servers
** of the ctest fixtures `pg` (max_prepared_transactions 64) and `pg0` (0):
** prepare / commit / resolve / fencing / free / the last resource / the
** probe. What the database holds is read through a libpq connection of the
** test's own (never the participant's), with plain SQL.
**
** Needs SLUICE_PG_PORT and SLUICE_PG0_PORT (tests/postgres/tests.cmake);
** without them it skips (ctest always sets them).
*/
#include <libpq-fe.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sl_connector.h"
#include "jdbc/jdbc_int.h"
#include "sl_test.h"

static const char *port_pg, *port_pg0;

/* The test's own connection to a server. */
static PGconn *raw(const char *port, const char *appname)
{
    char ci[256];
    snprintf(ci, sizeof ci,
             "host=127.0.0.1 port=%s user=sluice password=sluice dbname=sluice "
             "application_name='%s'",
             port, appname ? appname : "pgtxn-test");
    PGconn *c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "connect: %s", PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Run sql (printf-style) on c; true when it succeeded. */
static bool run(PGconn *c, const char *fmt, ...)
{
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        fprintf(stderr, "  (sql: %s -> %s)\n", sql, PQresultErrorMessage(r));
    PQclear(r);
    return ok;
}

/* The first value of the first row of sql as a number (-999 on error, -1 NULL). */
static long long num(PGconn *c, const char *fmt, ...)
{
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    PGresult *r = PQexec(c, sql);
    long long v = -999;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        v = PQgetisnull(r, 0, 0) ? -1 : atoll(PQgetvalue(r, 0, 0));
    else
        fprintf(stderr, "  (sql: %s -> %s)\n", sql, PQresultErrorMessage(r));
    PQclear(r);
    return v;
}

static long long ngids(PGconn *c, const char *gid)
{
    return num(c, "SELECT count(*) FROM pg_prepared_xacts WHERE gid = '%s' OR gid LIKE '%s:%%'",
               gid, gid);
}

/* Nothing left on c of an earlier run under prefix (ctest --repeat): its
** prepared transactions rolled back, its progress rows deleted. A test that
** starts where the last one ended would see its epochs as decided. */
static bool fresh(PGconn *c, const char *prefix)
{
    PGresult *r = PQexec(c, "SELECT gid FROM pg_prepared_xacts");
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    size_t plen = strlen(prefix);
    for (int i = 0; ok && i < PQntuples(r); i++) {
        const char *gid = PQgetvalue(r, i, 0);
        if (strncmp(gid, "sluice:", 7) == 0 && strncmp(gid + 7, prefix, plen) == 0 &&
            gid[7 + plen] == ':')
            ok = run(c, "ROLLBACK PREPARED '%s'", gid);
    }
    PQclear(r);
    return ok && run(c, "DO $$ BEGIN IF to_regclass('sluice_progress') IS NOT NULL THEN "
                        "DELETE FROM sluice_progress WHERE prefix = '%s'; END IF; END $$",
                     prefix);
}

static sl_kvlist *opts(const char *port, const char *table, const char *prefix, const char *user)
{
    sl_kvlist *o = sl_kvlist_new();
    char *url = sl_sprintf("jdbc:postgresql://127.0.0.1:%s/sluice", port);
    sl_kvlist_add(o, "connector", "jdbc", -1, -1);
    sl_kvlist_add(o, "url", url, -1, -1);
    sl_kvlist_add(o, "table-name", table, -1, -1);
    sl_kvlist_add(o, "username", user ? user : "sluice", -1, -1);
    sl_kvlist_add(o, "password", user ? user : "sluice", -1, -1);
    if (prefix)
        sl_kvlist_add(o, "sink.transactional-id-prefix", prefix, 5, 40);
    sl_free(url);
    return o;
}

static sl_participant *part(const sl_kvlist *o, const char *job, bool lr)
{
    const sl_kvlist *ol[] = {o};
    const char *tables[] = {"t"};
    sl_participant_args a = {.nsinks = 1, .options = ol, .tables = tables, .job = job,
                             .last_resource = lr};
    sl_participant *p = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl__pg_txn_create(&a, &p, &err) != 0)
        fprintf(stderr, "create: %s\n", err.message);
    sl_error_reset(&err);
    return p;
}

/* Recover and (preparable) resolve; the decided epoch, or -999. */
static long long start(sl_participant *p, long long decided_here)
{
    int64_t d = -1;
    sl_error err = SL_ERROR_INIT;
    int rc = p->ops->recover(p, &d, &err);
    if (rc == 0 && p->ops->resolve)
        rc = p->ops->resolve(p, decided_here > d ? decided_here : d, &err);
    if (rc != 0)
        fprintf(stderr, "start: %s %s\n", err.sqlstate, err.message);
    sl_error_reset(&err);
    return rc == 0 ? d : -999;
}

typedef struct ins {
    const char *table; /* where */
    int from, to;      /* ids from..to */
} ins;

static int ins_fn(void *ctx, PGconn *conn, int64_t epoch, sl_error *err)
{
    ins *i = ctx;
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO %s SELECT g, %lld FROM generate_series(%d, %d) g",
             i->table, (long long)epoch, i->from, i->to);
    return sl__pg_run(conn, sql, "test insert", err);
}

static int write_rows(sl_participant *p, int64_t epoch, const char *table, int from, int to)
{
    ins i = {table, from, to};
    sl_error err = SL_ERROR_INIT;
    int rc = sl__pg_txn_run(p, epoch, ins_fn, &i, &err);
    if (rc != 0)
        fprintf(stderr, "write: %s %s\n", err.sqlstate, err.message);
    sl_error_reset(&err);
    return rc;
}

/* An op's SQLSTATE ("" on success). */
static char last_state[6];
static const char *op(int (*fn)(sl_participant *, int64_t, sl_error *), sl_participant *p,
                      int64_t epoch)
{
    sl_error err = SL_ERROR_INIT;
    int rc = fn(p, epoch, &err);
    snprintf(last_state, sizeof last_state, "%s", rc == 0 ? "" : err.sqlstate);
    if (rc != 0)
        fprintf(stderr, "  (op epoch %lld: %s %s)\n", (long long)epoch, err.sqlstate,
                err.message);
    sl_error_reset(&err);
    return last_state;
}

static bool have_servers(void)
{
    port_pg = getenv("SLUICE_PG_PORT");
    port_pg0 = getenv("SLUICE_PG0_PORT");
    if (!port_pg || !port_pg0) {
        fprintf(stderr, "skipped: SLUICE_PG_PORT / SLUICE_PG0_PORT not set\n");
        return false;
    }
    return true;
}

/* Preparable: one transaction per epoch across two tables, invisible until
** commit, commit idempotent, the progress row advanced. */
static void t_preparable_cycle(void)
{
    if (!have_servers())
        return;
    PGconn *c = raw(port_pg, NULL);
    REQUIRE(c);
    CHECK(fresh(c, "cyc") && run(c, "DROP TABLE IF EXISTS ledger, totals"));
    CHECK(run(c, "CREATE TABLE ledger (id int, epoch bigint); CREATE TABLE totals (id int, "
                 "epoch bigint)"));
    sl_kvlist *o = opts(port_pg, "ledger", "cyc", NULL);
    sl_participant *p = part(o, "job1", false);
    REQUIRE(p);
    CHECK_INT(start(p, -1), -1);
    CHECK(write_rows(p, 1, "ledger", 1, 3) == 0);
    CHECK(write_rows(p, 1, "totals", 1, 2) == 0);
    CHECK(write_rows(p, 2, "ledger", 10, 10) == 0); /* epoch 2 already open beside it */
    sl_strbuf open = SL_STRBUF_INIT;
    p->ops->describe(p, &open); /* SHOW JOBS' open transactions */
    CHECK(strstr(sl_strbuf_cstr(&open), "postgresql 'cyc' epoch 1 open since ") != NULL);
    CHECK(strstr(sl_strbuf_cstr(&open), "epoch 2 open since ") != NULL);
    CHECK_STR(op(p->ops->prepare, p, 1), "");
    CHECK_INT(ngids(c, "sluice:cyc:1"), 1);
    sl_strbuf_reset(&open);
    p->ops->describe(p, &open);
    CHECK(strstr(sl_strbuf_cstr(&open), "postgresql 'sluice:cyc:1:") != NULL &&
          strstr(sl_strbuf_cstr(&open), "' prepared since ") != NULL);
    CHECK(strstr(sl_strbuf_cstr(&open), "epoch 1 open") == NULL);
    fprintf(stderr, "  open: %s\n", sl_strbuf_cstr(&open));
    CHECK_INT(num(c, "SELECT count(*) FROM ledger"), 0); /* prepared: invisible */
    CHECK_STR(op(p->ops->commit, p, 1), "");
    CHECK_INT(ngids(c, "sluice:cyc:1"), 0);
    sl_strbuf_reset(&open);
    p->ops->describe(p, &open);
    CHECK(strstr(sl_strbuf_cstr(&open), "prepared") == NULL);
    sl_strbuf_free(&open);
    CHECK_INT(num(c, "SELECT count(*) FROM ledger"), 3);
    CHECK_INT(num(c, "SELECT count(*) FROM totals"), 2);
    CHECK_INT(num(c, "SELECT epoch FROM sluice_progress WHERE prefix = 'cyc'"), 1);
    CHECK_STR(op(p->ops->commit, p, 1), ""); /* again: 42704, the progress row says done */
    /* An empty epoch prepares and commits too. */
    CHECK_STR(op(p->ops->prepare, p, 2), "");
    CHECK_STR(op(p->ops->commit, p, 2), "");
    CHECK_STR(op(p->ops->prepare, p, 3), "");
    CHECK_STR(op(p->ops->commit, p, 3), "");
    CHECK_INT(num(c, "SELECT count(*) FROM ledger"), 4);
    CHECK_INT(num(c, "SELECT epoch FROM sluice_progress WHERE prefix = 'cyc'"), 3);
    p->ops->free(p);
    /* A restart reads the committed epoch back. */
    p = part(o, "job1", false);
    int64_t d = -1;
    sl_error err = SL_ERROR_INIT;
    CHECK(p->ops->peek(p, &d, &err) == 0);
    CHECK_INT(d, 3);
    p->ops->free(p);
    /* Another job with the prefix: not its past. */
    p = part(o, "other", false);
    CHECK(p->ops->peek(p, &d, &err) == 0);
    CHECK_INT(d, -1);
    p->ops->free(p);
    sl_kvlist_free(o);
    PQfinish(c);
}

/* resolve(D): ours <= D committed, ours > D rolled back, another prefix
** ('res-ab' beside 'res-a') untouched; settle(D) finishes what this
** instance prepared by the newest seal D; free() leaves an unsettled one. */
static void t_resolve_exact(void)
{
    if (!have_servers())
        return;
    PGconn *c = raw(port_pg, NULL);
    REQUIRE(c);
    CHECK(fresh(c, "res-a") && run(c, "DROP TABLE IF EXISTS rt; CREATE TABLE rt (id int, epoch bigint)"));
    static const char *gids[] = {"sluice:res-a:2:7", "sluice:res-a:3:7", "sluice:res-ab:2:7",
                                 "sluice:res-a:x:7"};
    for (int i = 0; i < 4; i++) {
        run(c, "ROLLBACK PREPARED '%s'", gids[i]);
        CHECK(run(c, "BEGIN; INSERT INTO rt VALUES (%d, 0); PREPARE TRANSACTION '%s'", i,
                  gids[i]));
    }
    sl_kvlist *o = opts(port_pg, "rt", "res-a", NULL);
    sl_participant *p = part(o, "job2", false);
    REQUIRE(p);
    int64_t d = -1;
    sl_error err = SL_ERROR_INIT;
    CHECK(p->ops->recover(p, &d, &err) == 0);
    CHECK(p->ops->resolve(p, 2, &err) == 0);
    CHECK_INT(ngids(c, "sluice:res-a:2:7"), 0);
    CHECK_INT(ngids(c, "sluice:res-a:3:7"), 0);
    CHECK_INT(ngids(c, "sluice:res-ab:2:7"), 1);
    CHECK_INT(ngids(c, "sluice:res-a:x:7"), 1);
    CHECK_INT(num(c, "SELECT count(*) FROM rt"), 1);
    CHECK_INT(num(c, "SELECT id FROM rt"), 0);
    /* Prepared, then the job fails before the decision (the newest seal is
    ** 2): settle rolls it back. */
    CHECK(write_rows(p, 3, "rt", 100, 101) == 0);
    CHECK_STR(op(p->ops->prepare, p, 3), "");
    CHECK_INT(ngids(c, "sluice:res-a:3"), 1);
    CHECK_STR(op(p->ops->settle, p, 2), "");
    CHECK_INT(ngids(c, "sluice:res-a:3"), 0);
    CHECK_INT(num(c, "SELECT count(*) FROM rt"), 1);
    /* Prepared and sealed, then a failure (the seal reported an error but
    ** became durable): settle commits it. */
    CHECK(write_rows(p, 4, "rt", 200, 201) == 0);
    CHECK_STR(op(p->ops->prepare, p, 4), "");
    CHECK_STR(op(p->ops->settle, p, 4), "");
    CHECK_INT(ngids(c, "sluice:res-a:4"), 0);
    CHECK_INT(num(c, "SELECT count(*) FROM rt WHERE id = 200"), 1);
    /* Not settled (the seal could not be read): free leaves it to the next
    ** start's resolve, which rolls it back by its decided checkpoint. */
    CHECK(write_rows(p, 5, "rt", 300, 301) == 0);
    CHECK_STR(op(p->ops->prepare, p, 5), "");
    p->ops->free(p);
    CHECK_INT(ngids(c, "sluice:res-a:5"), 1);
    p = part(o, "job2", false);
    REQUIRE(p);
    CHECK(p->ops->recover(p, &d, &err) == 0);
    CHECK(p->ops->resolve(p, 4, &err) == 0);
    CHECK_INT(ngids(c, "sluice:res-a:5"), 0);
    CHECK_INT(num(c, "SELECT count(*) FROM rt WHERE id = 300"), 0);
    p->ops->free(p);
    run(c, "ROLLBACK PREPARED 'sluice:res-ab:2:7'");
    run(c, "ROLLBACK PREPARED 'sluice:res-a:x:7'");
    sl_kvlist_free(o);
    PQfinish(c);
}

/* A zombie: the second instance fences the first; the first's prepare and
** commit fail with 55006 and nothing of it becomes visible. A zombie's
** transaction holding the progress row is terminated. */
static void t_fencing(void)
{
    if (!have_servers())
        return;
    PGconn *c = raw(port_pg, NULL);
    REQUIRE(c);
    CHECK(fresh(c, "fen") && run(c, "DROP TABLE IF EXISTS ft; CREATE TABLE ft (id int, epoch bigint)"));
    sl_kvlist *o = opts(port_pg, "ft", "fen", NULL);
    sl_participant *a = part(o, "job3", false);
    REQUIRE(a);
    CHECK(start(a, -1) != -999);
    CHECK(write_rows(a, 1, "ft", 1, 5) == 0);
    CHECK_STR(op(a->ops->prepare, a, 1), "");
    CHECK_STR(op(a->ops->commit, a, 1), "");
    CHECK(write_rows(a, 2, "ft", 6, 9) == 0);
    /* Failover: b starts from a copy that decided epoch 1. */
    sl_participant *b = part(o, "job3", false);
    CHECK_INT(start(b, 1), 1);
    CHECK_STR(op(a->ops->prepare, a, 2), "55006");
    CHECK_INT(ngids(c, "sluice:fen:2"), 0);
    CHECK_INT(num(c, "SELECT count(*) FROM ft"), 5);
    /* a prepared epoch 2 before b came, and b's copy had not decided it. */
    a->ops->free(a);
    b->ops->free(b);
    a = part(o, "job3", false);
    CHECK(start(a, 1) != -999);
    CHECK(write_rows(a, 2, "ft", 6, 9) == 0);
    CHECK_STR(op(a->ops->prepare, a, 2), "");
    b = part(o, "job3", false);
    CHECK_INT(start(b, 1), 1); /* rolls back a's gid 2 */
    CHECK_INT(ngids(c, "sluice:fen:2"), 0);
    CHECK_STR(op(a->ops->commit, a, 2), "55006"); /* a sealed 2 in its own copy: fenced */
    CHECK_INT(num(c, "SELECT count(*) FROM ft"), 5);
    a->ops->free(a);
    /* A zombie between its progress UPDATE and its PREPARE holds the row:
    ** the next start terminates it (it is named 'sluice fen'). */
    PGconn *z = raw(port_pg, "sluice fen");
    REQUIRE(z);
    CHECK(run(z, "BEGIN; INSERT INTO ft VALUES (99, 99); UPDATE sluice_progress SET epoch = 7 "
                 "WHERE prefix = 'fen'"));
    sl_participant *n = part(o, "job3", false);
    CHECK_INT(start(n, 1), 1);
    CHECK(!run(z, "SELECT 1")); /* terminated */
    PQfinish(z);
    CHECK_INT(num(c, "SELECT count(*) FROM ft WHERE id = 99"), 0);
    CHECK_INT(num(c, "SELECT epoch FROM sluice_progress WHERE prefix = 'fen'"), 1);
    CHECK(write_rows(n, 2, "ft", 6, 9) == 0);
    CHECK_STR(op(n->ops->prepare, n, 2), "");
    CHECK_STR(op(b->ops->commit, b, 2), "55006"); /* b was fenced by n */
    CHECK_STR(op(n->ops->commit, n, 2), "");
    CHECK_INT(num(c, "SELECT count(*) FROM ft"), 9);
    b->ops->free(b);
    n->ops->free(n);
    sl_kvlist_free(o);
    PQfinish(c);
}

/* The last resource (max_prepared_transactions = 0): the commit with its
** progress row is the decision; recover fences first and reads it back. */
static void t_last_resource(void)
{
    if (!have_servers())
        return;
    PGconn *c = raw(port_pg0, NULL);
    REQUIRE(c);
    CHECK(fresh(c, "lr1") && run(c, "DROP TABLE IF EXISTS lr; CREATE TABLE lr (id int, epoch bigint)"));
    sl_kvlist *o = opts(port_pg0, "lr", "lr1", NULL);
    sl_participant *a = part(o, "job4", true);
    REQUIRE(a);
    CHECK(a->ops->decide && !a->ops->prepare && !a->ops->resolve);
    CHECK_INT(start(a, -1), -1);
    CHECK(write_rows(a, 1, "lr", 1, 4) == 0);
    CHECK(write_rows(a, 2, "lr", 5, 5) == 0);
    CHECK_INT(num(c, "SELECT count(*) FROM lr"), 0);
    CHECK_STR(op(a->ops->decide, a, 1), "");
    CHECK_INT(num(c, "SELECT count(*) FROM lr"), 4);
    CHECK_INT(num(c, "SELECT epoch FROM sluice_progress WHERE prefix = 'lr1'"), 1);
    sl_participant *b = part(o, "job4", true);
    CHECK_INT(start(b, -1), 1); /* the decision read back */
    CHECK_STR(op(a->ops->decide, a, 2), "55006");
    CHECK_INT(num(c, "SELECT count(*) FROM lr"), 4);
    CHECK(write_rows(b, 2, "lr", 5, 6) == 0);
    CHECK_STR(op(b->ops->decide, b, 2), "");
    CHECK_INT(num(c, "SELECT count(*) FROM lr"), 6);
    a->ops->free(a);
    b->ops->free(b);
    sl_kvlist_free(o);
    PQfinish(c);
}

/* The probe: preparable on pg, the last resource on pg0, unreachable
** 08001, a too long prefix 22023, a role without the privileges: at most
** at-least-once with the reason. */
static void t_probe(void)
{
    if (!have_servers())
        return;
    PGconn *c = raw(port_pg, NULL);
    REQUIRE(c);
    CHECK(run(c, "DROP SCHEMA IF EXISTS probe_s CASCADE; CREATE SCHEMA probe_s; GRANT USAGE ON "
                 "SCHEMA probe_s TO sluice_ro"));
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *o = opts(port_pg, "t", "pp", NULL);
    sl_sink_probe pr = {SL_GUARANTEE_EXACTLY_ONCE, 0, 0, NULL};
    CHECK(sl__pg_probe(o, 5000, &pr, &err) == 0);
    CHECK_INT(pr.mech, SL_MECH_2PC_PREPARABLE);
    CHECK_INT(pr.max, SL_GUARANTEE_EXACTLY_ONCE);
    sl_free(pr.why);
    sl_kvlist_free(o);
    o = opts(port_pg0, "t", "pp", NULL);
    pr = (sl_sink_probe){SL_GUARANTEE_EXACTLY_ONCE, 0, 0, NULL};
    CHECK(sl__pg_probe(o, 5000, &pr, &err) == 0);
    CHECK_INT(pr.mech, SL_MECH_LAST_RESOURCE);
    CHECK_INT(pr.max, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK(pr.why && strstr(pr.why, "max_prepared_transactions"));
    sl_free(pr.why);
    sl_kvlist_free(o);
    o = opts(port_pg, "probe_s.t", "pp", "sluice_ro");
    pr = (sl_sink_probe){SL_GUARANTEE_EXACTLY_ONCE, 0, 0, NULL};
    CHECK(sl__pg_probe(o, 5000, &pr, &err) == 0);
    CHECK_INT(pr.max, SL_GUARANTEE_AT_LEAST_ONCE);
    CHECK(pr.why && strstr(pr.why, "sluice_ro") && strstr(pr.why, "CREATE"));
    if (pr.why)
        fprintf(stderr, "  why: %s\n", pr.why);
    sl_free(pr.why);
    sl_kvlist_free(o);
    o = opts("1", "t", "pp", NULL); /* nothing listens on port 1 */
    pr = (sl_sink_probe){SL_GUARANTEE_EXACTLY_ONCE, 0, 0, NULL};
    CHECK(sl__pg_probe(o, 1500, &pr, &err) == -1);
    CHECK_STR(err.sqlstate, "08001");
    CHECK(!strstr(err.message, "sluice@") && !(err.detail && strstr(err.detail, "password=")));
    sl_error_reset(&err);
    sl_kvlist_free(o);
    char longp[200];
    memset(longp, 'p', 153);
    longp[153] = 0;
    o = opts(port_pg, "t", longp, NULL);
    CHECK(sl__pg_probe(o, 5000, &pr, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK_INT(err.position, -1); /* the resolver places it */
    sl_error_reset(&err);
    sl_kvlist_free(o);
    longp[152] = 0; /* 152 bytes: the gid has 199 at most */
    o = opts(port_pg, "t", longp, NULL);
    pr = (sl_sink_probe){SL_GUARANTEE_EXACTLY_ONCE, 0, 0, NULL};
    CHECK(sl__pg_probe(o, 5000, &pr, &err) == 0);
    sl_free(pr.why);
    sl_kvlist *o2 = opts(port_pg, "t", longp, NULL);
    sl_participant *p = part(o2, "jobp", false);
    REQUIRE(p);
    CHECK(start(p, -1) == -1);
    CHECK_STR(op(p->ops->prepare, p, 999999999999999999LL), "");
    CHECK_STR(op(p->ops->commit, p, 999999999999999999LL), "");
    p->ops->free(p);
    run(c, "DELETE FROM sluice_progress WHERE length(prefix) = 152");
    sl_kvlist_free(o2);
    sl_kvlist_free(o);
    PQfinish(c);
}

SL_TESTS(t_probe, t_preparable_cycle, t_resolve_exact, t_fencing, t_last_resource)
