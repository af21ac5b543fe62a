/*
** test_planner_guarantee.c — the guarantee resolver (planner/guarantee.c,
** DESIGN.md section 6), table-driven.
**
** The matrix: every registered connector that can be written x requested
** guarantee (unset, none, at-least-once, exactly-once) x checkpointing on /
** off x a replayable source or not x append or updating input x key or not
** x fallback policy error / downgrade. Each case is checked against the
** issue's rules written out again here (expect()), independently of the
** resolver's code: effective guarantee, error or warning, SQLSTATE and the
** reason text. The transactional rules (one last-resource participant,
** timeout vs interval, unique prefix) use a declaration-only connector with
** the capabilities a Kafka sink declares; later connectors join the matrix
** by being registered.
*/
#include "sl_test.h"

#include "../../planner/planner_int.h"

#include <string.h>

/* Two sources: a replayable one and one that is not (declarations only). */
static const sl_connector g_replayable = {
    .name = "replayable-src",
    .caps = {.source = true, .source_replayable = true},
};
static const sl_connector g_once = {
    .name = "once-src",
    .caps = {.source = true, .source_replayable = false},
};

/* A last-resource transactional sink, as Kafka declares it. */
static const sl_connector g_lr = {
    .name = "lr",
    .caps = {.sink = true,
             .sink_max = SL_GUARANTEE_EXACTLY_ONCE,
             .sink_mech = SL_MECH_LAST_RESOURCE,
             .sink_updates = false,
             .sink_default = SL_GUARANTEE_AT_LEAST_ONCE,
             .txn_prefix_option = "sink.transactional-id-prefix",
             .txn_timeout_option = "transaction.timeout.ms",
             .txn_timeout_default_ms = 60000,
             .cluster_option = "properties.bootstrap.servers"},
};

static const char *const g_req_names[] = {NULL, "none", "at-least-once", "exactly-once"};

typedef struct expectation {
    bool error;            /* the resolver must fail */
    const char *sqlstate;  /* its SQLSTATE */
    const char *message;   /* a part of its message */
    sl_guarantee effective;/* otherwise: the effective guarantee */
    bool warning;          /* a downgrade warning */
    bool default_warning;  /* a warning that the connector's default was lowered */
    const char *reason;    /* a part of the detail / warning, or NULL */
} expectation;

/* The rules of the issue, from the connector's declared capabilities. */
static expectation expect(const sl_connector *c, int req, bool chk, bool replayable,
                          bool updating, bool has_pk, bool downgrade)
{
    expectation e = {0};
    if (updating && (!c->caps.sink_updates || (c->caps.sink_upserts && !has_pk))) {
        e.error = true; /* rule 4, whatever the policy */
        e.sqlstate = "0A000";
        e.message = "cannot take the updates";
        return e;
    }
    sl_guarantee requested = req == 0 ? (chk ? c->caps.sink_default : SL_GUARANTEE_NONE)
                                      : (sl_guarantee)(req - 1);
    sl_guarantee cap = c->caps.sink_max;
    const char *reason = cap < SL_GUARANTEE_EXACTLY_ONCE ? "gives at most" : NULL;
    if (!replayable) { /* rule 3 */
        cap = SL_GUARANTEE_NONE;
        reason = "cannot be replayed";
    }
    if (!chk) { /* rule 2 */
        cap = SL_GUARANTEE_NONE;
        reason = "checkpointing is off";
    }
    e.effective = requested < cap ? requested : cap;
    if (req == 0 && e.effective < requested) { /* a default lowered: runs, never silent */
        e.reason = reason;
        e.warning = e.default_warning = true;
    }
    if (req != 0 && e.effective < requested) { /* rule 1, 2, 3 under the policy */
        e.reason = reason;
        if (downgrade) {
            e.warning = true;
        } else {
            e.error = true;
            e.sqlstate = "0A000";
            e.message = "cannot be delivered";
        }
    }
    return e;
}

static sl_kvlist *options(const char *req, bool downgrade_table)
{
    sl_kvlist *o = sl_kvlist_new();
    if (req)
        sl_kvlist_add(o, "sink.delivery-guarantee", req, -1, -1);
    if (downgrade_table)
        sl_kvlist_add(o, "sink.delivery-guarantee.fallback", "downgrade", -1, -1);
    return o;
}

/* Resolve one sink; returns the resolver's rc, fills r / err / warnings. */
static int resolve1(const sl_connector *c, const sl_kvlist *opts, int64_t interval,
                    const sl_connector *src, bool updating, bool has_pk, const char *policy,
                    sl_gresult *r, sl_list *warnings, sl_error *err)
{
    sl_gsource s = {"src", src};
    sl_gsink k = {"out", c, opts, 7, updating, has_pk, 1, &s};
    sl_gjob job = {0};
    job.interval_ms = interval;
    job.policy = policy;
    job.nsinks = 1;
    job.sinks = &k;
    return sl_guarantee_resolve(&job, r, warnings, err);
}

static bool contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

static void t_matrix(void)
{
    int n;
    const sl_connector *const *all = sl_connectors(&n);
    int cases = 0, sinks = 0;
    for (int ci = 0; ci <= n; ci++) {
        /* A live probe has its own test: the matrix runs without it. */
        sl_connector decl = *(ci < n ? all[ci] : &g_lr);
        decl.caps.probe = NULL;
        const sl_connector *c = &decl;
        if (!c->caps.sink)
            continue;
        sinks++;
        for (int req = 0; req < 4; req++)
            for (int mask = 0; mask < 32; mask++) {
                bool chk = mask & 1, replayable = mask & 2, updating = mask & 4,
                     has_pk = mask & 8, downgrade = mask & 16;
                /* The transactional sink gets its prefix: that rule has its own test. */
                sl_kvlist *o = options(g_req_names[req], false);
                if (c->caps.txn_prefix_option)
                    sl_kvlist_add(o, c->caps.txn_prefix_option, "p-", -1, -1);
                expectation e = expect(c, req, chk, replayable, updating, has_pk, downgrade);
                sl_gresult r;
                sl_error err = SL_ERROR_INIT;
                sl_list *warnings = sl_list_new();
                int rc = resolve1(c, o, chk ? 1000 : 0, replayable ? &g_replayable : &g_once,
                                  updating, has_pk, downgrade ? "downgrade" : "error", &r,
                                  warnings, &err);
                char what[160];
                snprintf(what, sizeof what, "%s req=%s chk=%d replay=%d upd=%d pk=%d down=%d",
                         c->name, g_req_names[req] ? g_req_names[req] : "unset", chk, replayable,
                         updating, has_pk, downgrade);
                if (e.error) {
                    if (rc == 0 || strcmp(err.sqlstate, e.sqlstate) != 0 ||
                        !contains(err.message, e.message) ||
                        (e.reason && !contains(err.detail, e.reason)) || err.position != 7) {
                        fprintf(stderr, "%s: expected error %s '%s' (%s), got rc=%d %s %s / %s\n",
                                what, e.sqlstate, e.message, e.reason ? e.reason : "", rc,
                                err.sqlstate, err.message ? err.message : "",
                                err.detail ? err.detail : "");
                        CHECK(false);
                    }
                    if (rc == 0)
                        sl_gresult_clear(&r);
                } else {
                    bool ok = rc == 0 && r.effective == e.effective &&
                              warnings->n == (e.warning ? 1 : 0);
                    if (ok && e.warning)
                        ok = contains(warnings->items[0], e.reason) &&
                             contains(warnings->items[0], e.default_warning
                                                              ? "(the default of connector"
                                                              : "not the requested");
                    if (!ok) {
                        fprintf(stderr, "%s: expected %s%s, got rc=%d effective=%s warnings=%d %s\n",
                                what, sl_guarantee_name(e.effective), e.warning ? " + warning" : "",
                                rc, rc == 0 ? sl_guarantee_name(r.effective) : "-", warnings->n,
                                err.message ? err.message : "");
                        CHECK(false);
                    }
                    if (rc == 0)
                        sl_gresult_clear(&r);
                }
                sl_error_reset(&err);
                sl_list_free(warnings, sl_free);
                sl_kvlist_free(o);
                cases++;
            }
    }
    CHECK(sinks >= 4); /* filesystem, print, blackhole and the transactional one */
    CHECK_INT(cases, sinks * 4 * 32);
}

/* The table's fallback option wins over the session's policy. */
static void t_table_policy(void)
{
    const sl_connector *print = sl_connector_find("print");
    REQUIRE(print);
    sl_kvlist *o = options("exactly-once", true);
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    sl_list *w = sl_list_new();
    CHECK_INT(resolve1(print, o, 1000, &g_replayable, false, false, "error", &r, w, &err), 0);
    CHECK_INT(r.effective, SL_GUARANTEE_NONE);
    CHECK(r.downgraded);
    CHECK_INT(w->n, 1);
    CHECK(contains(w->items[0], "sink \"out\" runs none, not the requested exactly-once"));
    sl_gresult_clear(&r);
    sl_list_free(w, sl_free);
    sl_kvlist_free(o);
}

/* A connector's default lowered by a source that cannot be replayed (stdin
** into filesystem): the job runs, with a warning, and SHOW JOBS' summary
** says it was the default, not a request. */
static void t_default_lowered(void)
{
    const sl_connector *fs = sl_connector_find("filesystem");
    REQUIRE(fs);
    sl_kvlist *o = options(NULL, false);
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    sl_list *w = sl_list_new();
    CHECK_INT(resolve1(fs, o, 1000, &g_once, false, false, "error", &r, w, &err), 0);
    CHECK_INT(r.effective, SL_GUARANTEE_NONE);
    CHECK_INT(r.requested, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK_INT(w->n, 1);
    CHECK(w->n == 1 && contains(w->items[0], "sink \"out\" runs none, not exactly-once (the "
                                             "default of connector 'filesystem'): source \"src\" "
                                             "(connector 'once-src') cannot be replayed"));
    char *sum = sl_guarantee_summary(&r);
    CHECK_STR(sum, "none (default exactly-once)");
    sl_free(sum);
    sl_gresult_clear(&r);
    sl_list_free(w, sl_free);
    sl_kvlist_free(o);
}

/* Rule 1 by options: exactly-once by transactions needs a prefix. */
static void t_prefix_required(void)
{
    sl_kvlist *o = options("exactly-once", false);
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(resolve1(&g_lr, o, 1000, &g_replayable, false, false, NULL, &r, NULL, &err), -1);
    CHECK_STR(err.sqlstate, "0A000");
    CHECK(contains(err.detail, "needs the option 'sink.transactional-id-prefix'"));
    CHECK(contains(err.hint, "add 'sink.transactional-id-prefix'"));
    sl_error_reset(&err);
    sl_kvlist_free(o);
}

/* Rule 6: the transaction must outlive two checkpoint intervals. */
static void t_timeout_vs_interval(void)
{
    sl_kvlist *o = options("exactly-once", false);
    sl_kvlist_add(o, "sink.transactional-id-prefix", "p-", -1, -1);
    sl_kvlist_add(o, "transaction.timeout.ms", "60000", -1, -1);
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(resolve1(&g_lr, o, 30000, &g_replayable, false, false, NULL, &r, NULL, &err), 0);
    CHECK_INT(r.effective, SL_GUARANTEE_EXACTLY_ONCE); /* 2 x 30 s <= 60 s */
    CHECK(contains(r.readers, "read_committed"));
    sl_gresult_clear(&r);
    CHECK_INT(resolve1(&g_lr, o, 40000, &g_replayable, false, false, NULL, &r, NULL, &err), -1);
    CHECK(contains(err.detail, "checkpoint interval (40000 ms) is not safely below"));
    CHECK(contains(err.detail, "60000 ms"));
    CHECK(contains(err.hint, "at least 80000"));
    sl_error_reset(&err);
    sl_kvlist_free(o);
}

/* Rule 5: two last-resource participants asked for exactly-once; two
** sinks on one cluster are one participant. */
static void t_one_last_resource(void)
{
    sl_kvlist *a = options("exactly-once", false), *b = options("exactly-once", false);
    sl_kvlist_add(a, "sink.transactional-id-prefix", "a-", -1, -1);
    sl_kvlist_add(b, "sink.transactional-id-prefix", "b-", -1, -1);
    sl_kvlist_add(a, "properties.bootstrap.servers", "one:9092", -1, -1);
    sl_kvlist_add(b, "properties.bootstrap.servers", "two:9092", -1, -1);
    sl_gsource s = {"src", &g_replayable};
    sl_gsink k[2] = {{"ta", &g_lr, a, 3, false, false, 1, &s},
                     {"tb", &g_lr, b, 3, false, false, 1, &s}};
    sl_gjob job = {0};
    job.interval_ms = 1000;
    job.nsinks = 2;
    job.sinks = k;
    sl_gresult r[2];
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), -1);
    CHECK(contains(err.detail, "2 last-resource participants"));
    CHECK(contains(err.detail, "\"ta\", \"tb\""));
    sl_error_reset(&err);
    /* Downgraded: both run at-least-once, each with the reason. */
    job.policy = "downgrade";
    sl_list *w = sl_list_new();
    CHECK_INT(sl_guarantee_resolve(&job, r, w, &err), 0);
    CHECK_INT(r[0].effective, SL_GUARANTEE_AT_LEAST_ONCE);
    CHECK_INT(r[1].effective, SL_GUARANTEE_AT_LEAST_ONCE);
    CHECK_INT(w->n, 2);
    sl_gresult_clear(&r[0]);
    sl_gresult_clear(&r[1]);
    sl_list_free(w, sl_free);
    /* One cluster: one transaction, both exactly-once, one commit group. */
    sl_kvlist_free(b);
    b = options("exactly-once", false);
    sl_kvlist_add(b, "sink.transactional-id-prefix", "b-", -1, -1);
    sl_kvlist_add(b, "properties.bootstrap.servers", "one:9092", -1, -1);
    k[1].options = b;
    job.policy = NULL;
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), 0);
    CHECK_INT(r[0].effective, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK_INT(r[1].effective, SL_GUARANTEE_EXACTLY_ONCE);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_guarantee_explain(&sb, &job, r);
    CHECK(contains(sb.buf, "Commit group: ta tb"));
    CHECK(contains(sb.buf, "commit role: last resource"));
    sl_strbuf_free(&sb);
    sl_gresult_clear(&r[0]);
    sl_gresult_clear(&r[1]);
    sl_kvlist_free(a);
    sl_kvlist_free(b);
}

/* A database sink as PostgreSQL's declares it (preparable), whose live
** probe chooses the role: a server without prepared transactions (a url
** holding "noprep") makes it the last resource; "down" cannot give
** exactly-once at all; "gone" cannot be reached. */
static int db_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err)
{
    const char *url = sl_kvlist_get(opts, "url");
    if (url && strstr(url, "gone"))
        return sl_error_set(err, "08001", -1, "could not connect to the server");
    if (url && strstr(url, "noprep"))
        out->mech = SL_MECH_LAST_RESOURCE;
    if (url && strstr(url, "down")) {
        out->max = SL_GUARANTEE_AT_LEAST_ONCE;
        out->why = sl_strdup("the role may not create the progress table");
    }
    return 0;
}

static const sl_connector g_db = {
    .name = "db",
    .caps = {.sink = true,
             .sink_max = SL_GUARANTEE_EXACTLY_ONCE,
             .sink_mech = SL_MECH_2PC_PREPARABLE,
             .sink_updates = true,
             .sink_upserts = true,
             .sink_default = SL_GUARANTEE_AT_LEAST_ONCE,
             .txn_prefix_option = "sink.transactional-id-prefix",
             .txn_system = "db",
             .cluster_option = "url",
             .probe = db_probe},
};

/* The probe chooses the database's role; rule 5 counts last resources
** by the chosen role: Kafka + a preparable database is one commit group,
** Kafka + a database without prepared transactions is refused. */
static void t_probe_chooses_role(void)
{
    sl_kvlist *kafka = options("exactly-once", false), *db = options("exactly-once", false);
    sl_kvlist_add(kafka, "sink.transactional-id-prefix", "k-", -1, -1);
    sl_kvlist_add(kafka, "properties.bootstrap.servers", "one:9092", -1, -1);
    sl_kvlist_add(db, "sink.transactional-id-prefix", "d-", -1, -1);
    sl_kvlist_add(db, "url", "jdbc:db://prep/x", -1, -1);
    sl_gsource s = {"src", &g_replayable};
    sl_gsink k[2] = {{"topic", &g_lr, kafka, 3, false, false, 1, &s},
                     {"ledger", &g_db, db, 5, false, true, 1, &s}};
    sl_gjob job = {0};
    job.interval_ms = 1000;
    job.nsinks = 2;
    job.sinks = k;
    sl_gresult r[2];
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), 0);
    CHECK_INT(r[0].effective, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK_INT(r[1].effective, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK_INT(r[1].mech, SL_MECH_2PC_PREPARABLE);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_guarantee_explain(&sb, &job, r);
    CHECK(contains(sb.buf, "Sink ledger (db): requested exactly-once, effective exactly-once\n"
                           "  mechanism: 2pc-preparable, commit role: preparable"));
    CHECK(contains(sb.buf, "Commit group: topic ledger"));
    sl_strbuf_free(&sb);
    sl_gresult_clear(&r[0]);
    sl_gresult_clear(&r[1]);
    /* No prepared transactions: two last resources, refused. */
    sl_kvlist_set(db, "url", "jdbc:db://noprep/x", -1, -1);
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), -1);
    CHECK_STR(err.sqlstate, "0A000");
    CHECK(contains(err.detail, "2 last-resource participants"));
    CHECK(contains(err.detail, "\"topic\", \"ledger\""));
    sl_error_reset(&err);
    /* Alone it is the last resource, exactly-once. */
    job.nsinks = 1;
    job.sinks = &k[1];
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), 0);
    CHECK_INT(r[0].effective, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK_INT(r[0].mech, SL_MECH_LAST_RESOURCE);
    sl_gresult_clear(&r[0]);
    /* The probe's reason is the refusal's. */
    sl_kvlist_set(db, "url", "jdbc:db://down/x", -1, -1);
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), -1);
    CHECK(contains(err.detail, "may not create the progress table"));
    sl_error_reset(&err);
    /* Unreachable: the system's error, at the INSERT. */
    sl_kvlist_set(db, "url", "jdbc:db://gone/x", -1, -1);
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), -1);
    CHECK_STR(err.sqlstate, "08001");
    CHECK_INT(err.position, 5);
    sl_error_reset(&err);
    /* At-least-once uses no transaction: no probe, no role. */
    sl_kvlist_set(db, "sink.delivery-guarantee", "at-least-once", -1, -1);
    CHECK_INT(sl_guarantee_resolve(&job, r, NULL, &err), 0);
    CHECK_INT(r[0].mech, SL_MECH_NONE);
    CHECK(contains(r[0].note, "final table state is exactly-once"));
    sl_gresult_clear(&r[0]);
    sl_kvlist_free(kafka);
    sl_kvlist_free(db);
}

/* Rule 7: a prefix belongs to one table, whatever the policy. */
static void t_prefix_unique(void)
{
    sl_kvlist *o = options("exactly-once", true);
    sl_kvlist_add(o, "sink.transactional-id-prefix", "billing-", -1, -1);
    sl_kvlist *other = sl_kvlist_new();
    sl_kvlist_add(other, "sink.transactional-id-prefix", "billing-", -1, -1);
    const char *names[2] = {"out", "ledger"};
    const sl_kvlist *opts[2] = {o, other};
    sl_gsource s = {"src", &g_replayable};
    sl_gsink k = {"out", &g_lr, o, 5, false, false, 1, &s};
    sl_gjob job = {0};
    job.interval_ms = 1000;
    job.policy = "downgrade";
    job.nsinks = 1;
    job.sinks = &k;
    job.nothers = 2;
    job.other_names = names;
    job.other_options = opts;
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_guarantee_resolve(&job, &r, NULL, &err), -1);
    CHECK_STR(err.sqlstate, "42710");
    CHECK(contains(err.message, "'billing-'"));
    CHECK(contains(err.message, "table \"ledger\""));
    CHECK_INT(err.position, 5);
    sl_error_reset(&err);
    sl_kvlist_free(o);
    sl_kvlist_free(other);
}

/* Rule 9: at-least-once into an upserting sink with a key: noted. */
static void t_upsert_note(void)
{
    static const sl_connector upsert = {
        .name = "upsert",
        .caps = {.sink = true,
                 .sink_max = SL_GUARANTEE_AT_LEAST_ONCE,
                 .sink_mech = SL_MECH_IDEMPOTENT_UPSERT,
                 .sink_upserts = true,
                 .sink_updates = true,
                 .sink_default = SL_GUARANTEE_AT_LEAST_ONCE},
    };
    sl_kvlist *o = options("at-least-once", false);
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(resolve1(&upsert, o, 1000, &g_replayable, true, true, NULL, &r, NULL, &err), 0);
    CHECK_INT(r.effective, SL_GUARANTEE_AT_LEAST_ONCE);
    CHECK(contains(r.note, "final table state is exactly-once"));
    sl_gresult_clear(&r);
    /* Updates without a key cannot be upserted (rule 4). */
    CHECK_INT(resolve1(&upsert, o, 1000, &g_replayable, true, false, "downgrade", &r, NULL, &err),
              -1);
    CHECK(contains(err.detail, "has none"));
    CHECK(contains(err.hint, "PRIMARY KEY"));
    sl_error_reset(&err);
    sl_kvlist_free(o);
}

/* An upserting sink that appends without a key (opensearch: generated
** ids) says what a replay does then; with a key it gets the upsert note. */
static void t_keyless_note(void)
{
    const char *names[] = {"opensearch", "elasticsearch-7"};
    for (int i = 0; i < 2; i++) {
        const sl_connector *c = sl_connector_find(names[i]);
        CHECK(c != NULL);
        if (!c)
            continue;
        sl_kvlist *o = options(NULL, false);
        sl_gresult r;
        sl_error err = SL_ERROR_INIT;
        CHECK_INT(resolve1(c, o, 1000, &g_replayable, false, false, NULL, &r, NULL, &err), 0);
        CHECK_INT(r.effective, SL_GUARANTEE_AT_LEAST_ONCE);
        CHECK(contains(r.note, "generates each document's _id"));
        CHECK(contains(r.note, "duplicates"));
        sl_gresult_clear(&r);
        CHECK_INT(resolve1(c, o, 1000, &g_replayable, true, true, NULL, &r, NULL, &err), 0);
        CHECK_INT(r.effective, SL_GUARANTEE_AT_LEAST_ONCE);
        CHECK(contains(r.note, "final table state is exactly-once"));
        sl_gresult_clear(&r);
        /* exactly-once: refused with the connector's reason, or downgraded */
        sl_kvlist_free(o);
        o = options("exactly-once", false);
        CHECK_INT(resolve1(c, o, 1000, &g_replayable, false, true, NULL, &r, NULL, &err), -1);
        CHECK_STR(err.sqlstate, "0A000");
        CHECK(contains(err.detail, "a bulk request is visible once answered"));
        sl_error_reset(&err);
        sl_list *w = sl_list_new();
        CHECK_INT(resolve1(c, o, 1000, &g_replayable, false, true, "downgrade", &r, w, &err), 0);
        CHECK_INT(r.effective, SL_GUARANTEE_AT_LEAST_ONCE);
        CHECK_INT(w->n, 1);
        sl_gresult_clear(&r);
        sl_list_free(w, sl_free);
        /* updates without a key: refused (rule 4) */
        CHECK_INT(resolve1(c, o, 1000, &g_replayable, true, false, "downgrade", &r, NULL, &err),
                  -1);
        CHECK(contains(err.detail, "has none"));
        sl_error_reset(&err);
        sl_kvlist_free(o);
    }
}

/* EXPLAIN shows a refusal instead of failing. */
static void t_explain_refused(void)
{
    const sl_connector *print = sl_connector_find("print");
    sl_kvlist *o = options("exactly-once", false);
    sl_gsource s = {"clicks", &g_once};
    sl_gsink k = {"audit", print, o, 0, false, false, 1, &s};
    sl_gjob job = {0};
    job.interval_ms = 0;
    job.nsinks = 1;
    job.sinks = &k;
    job.explain = true;
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_guarantee_resolve(&job, &r, NULL, &err), 0);
    CHECK(r.refused);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_guarantee_explain(&sb, &job, &r);
    CHECK(contains(sb.buf, "Source clicks (once-src): not replayable"));
    CHECK(contains(sb.buf, "Checkpointing: off"));
    CHECK(contains(sb.buf, "not achievable"));
    CHECK(contains(sb.buf, "reason: checkpointing is off"));
    CHECK(contains(sb.buf, "reason: source \"clicks\" (connector 'once-src') cannot be replayed"));
    sl_strbuf_free(&sb);
    sl_gresult_clear(&r);
    sl_kvlist_free(o);
}

#define DOC_PATH "../docs/GUARANTEES.md" /* tests run in tests/ */

/* docs/GUARANTEES.md is exactly the generated text. */
static void t_doc_up_to_date(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_guarantees_markdown(&sb);
    char *doc = NULL;
    size_t len = 0;
    sl_error err = SL_ERROR_INIT;
    bool same = sl_fs_read_file(DOC_PATH, &doc, &len, &err) == 0 &&
                strcmp(doc, sl_strbuf_cstr(&sb)) == 0;
    if (!same)
        fprintf(stderr,
                "%s differs from the declarations; regenerate it with\n"
                "  cd tests && <build-dir>/tests/test_planner_guarantee --write\n",
                DOC_PATH);
    CHECK(same);
    /* And it says what the resolver does: print cannot be exactly-once. */
    CHECK(contains(sb.buf, "| `print` | exactly-once | **error**; downgrade: none |"));
    CHECK(contains(sb.buf, "| `filesystem` | exactly-once | exactly-once | **error**; "
                           "downgrade: none | **error**; downgrade: none |"));
    sl_error_reset(&err);
    sl_free(doc);
    sl_strbuf_free(&sb);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--write") == 0) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_guarantees_markdown(&sb);
        sl_error err = SL_ERROR_INIT;
        const char *path = argc >= 3 ? argv[2] : DOC_PATH;
        int rc = sl_fs_write_atomic(path, sl_strbuf_cstr(&sb), sb.len, &err);
        printf("%s %s\n", rc == 0 ? "wrote" : err.message, path);
        sl_error_reset(&err);
        sl_strbuf_free(&sb);
        return rc == 0 ? 0 : 1;
    }
    static const sl_t_case cases[] = {
        {"t_matrix", t_matrix},
        {"t_table_policy", t_table_policy},
        {"t_prefix_required", t_prefix_required},
        {"t_timeout_vs_interval", t_timeout_vs_interval},
        {"t_one_last_resource", t_one_last_resource},
        {"t_probe_chooses_role", t_probe_chooses_role},
        {"t_prefix_unique", t_prefix_unique},
        {"t_upsert_note", t_upsert_note},
        {"t_keyless_note", t_keyless_note},
        {"t_explain_refused", t_explain_refused},
        {"t_doc_up_to_date", t_doc_up_to_date},
        {"t_default_lowered", t_default_lowered},
    };
    return sl_t_run(cases, (int)(sizeof cases / sizeof cases[0]));
}
