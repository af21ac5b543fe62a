/*
** guarantee.c — the guarantee resolver (DESIGN.md section 6): one place
** that decides, for every sink of a job, the delivery guarantee the job
** as a whole can keep, and why.
**
** Effective guarantee = the weakest of
**
**   requested       'sink.delivery-guarantee', or the connector's default
**                   (rule 8: never an error when nothing was asked);
**   capability      what the connector declares, lowered where its options
**                   lack a mechanism (rule 1: no transactional id prefix) or
**                   its live probe says so;
**   sources         every source feeding the sink must be replayable, else
**                   none (rule 3: stdin);
**   checkpointing   on, else none (rule 2);
**   the job         at most one last-resource participant can be made
**                   exactly-once (rule 5); its transaction timeout must be
**                   safely above the checkpoint interval (rule 6).
**
** Each lowering records a reason with a hint. A requested guarantee that
** is not achievable is an error (0A000, detail = the reasons, hint = what
** would make it work, position = the INSERT) unless the fallback policy is
** 'downgrade' (the table's 'sink.delivery-guarantee.fallback', else the
** session's 'sink.guarantee-fallback'): then the job runs at the effective
** guarantee and a WARNING says so. Errors whatever the policy: an updating
** input into a sink that only appends or cannot upsert without a key
** (rule 4), and a transactional id prefix another table uses (rule 7).
** At-least-once into an upserting sink with a PRIMARY KEY is reported with
** the note that the final state is exactly-once (rule 9).
**
** Main routines: sl_guarantee_resolve, sl_guarantee_explain.
*/
#include "planner_int.h"

#include <stdlib.h>
#include <string.h>

/* A reason the guarantee is lower, and what would lift it. */
typedef struct sl__reason {
    char *text; /* "checkpointing is off (...)" */
    char *hint; /* "SET 'execution.checkpointing.interval' = '10 s'" */
} sl__reason;

static void sl__reason_free(void *p)
{
    sl__reason *r = p;
    sl_free(r->text);
    sl_free(r->hint);
    sl_free(r);
}

void sl_gresult_clear(sl_gresult *r)
{
    sl_list_free(r->reasons, sl__reason_free);
    sl_free(r->note);
    sl_free(r->readers);
    memset(r, 0, sizeof *r);
}

/* Lower *cap to at most g with a reason. */
static void sl__lower(sl_gresult *r, sl_guarantee *cap, sl_guarantee g, char *text, char *hint)
{
    if (g < *cap)
        *cap = g;
    sl__reason *x = sl_calloc(1, sizeof *x);
    x->text = text;
    x->hint = hint;
    sl_list_push(r->reasons, x);
}

static sl_guarantee sl__parse(const char *v)
{
    if (v && sl_strcasecmp(v, "exactly-once") == 0)
        return SL_GUARANTEE_EXACTLY_ONCE;
    if (v && sl_strcasecmp(v, "at-least-once") == 0)
        return SL_GUARANTEE_AT_LEAST_ONCE;
    return SL_GUARANTEE_NONE;
}

/* A duration option's value in ms, or dflt. */
static int64_t sl__option_ms(const sl_kvlist *opts, const char *key, int64_t dflt)
{
    const char *v = key ? sl_kvlist_get(opts, key) : NULL;
    int64_t ms = dflt;
    if (!v)
        return dflt;
    sl_error err = SL_ERROR_INIT;
    int64_t n = 0;
    /* Kafka's transaction.timeout.ms is a number of ms; Flink's durations are text. */
    if (sl_option_parse_int(v, &n, -1, &err) == 0) {
        ms = n;
    } else {
        sl_error_reset(&err);
        if (sl_option_parse_duration_ms(v, &n, -1, &err) == 0)
            ms = n;
    }
    sl_error_reset(&err);
    return ms;
}

/* What readers of the sink's output must do to see only committed data. */
static char *sl__readers(const sl_gsink *s, sl_guarantee eff, sl_sink_mechanism mech)
{
    if (eff == SL_GUARANTEE_NONE)
        return sl_strdup("rows may be missing or doubled after a failure");
    switch (mech) {
    case SL_MECH_ATOMIC_RENAME:
        return sl_strdup("read only files whose names do not start with '.' or '_' "
                         "(in-progress files are hidden)");
    case SL_MECH_MULTIPART_UPLOAD:
        return sl_strdup("read only objects whose names do not start with '.' or '_' (a part "
                         "file is a multipart upload, listed only once completed at commit)");
    case SL_MECH_LAST_RESOURCE:
        return sl_strdup("read committed data only (Kafka: isolation.level=read_committed)");
    case SL_MECH_2PC_PREPARABLE:
        return sl_strdup("read committed data only (prepared transactions are invisible)");
    case SL_MECH_IDEMPOTENT_UPSERT:
        return sl_strdup("read the latest value per key");
    case SL_MECH_NONE: break;
    }
    return eff == SL_GUARANTEE_AT_LEAST_ONCE ? sl_strdup("expect duplicates after a failure")
                                             : NULL;
}

/* Rule 7: another table of the catalog with the same transactional id
** prefix, or NULL. */
static const char *sl__prefix_owner(const sl_gjob *job, const sl_gsink *s, const char *key,
                                    const char *prefix)
{
    for (int i = 0; i < job->nothers; i++) {
        if (strcmp(job->other_names[i], s->table) == 0)
            continue;
        const char *v = sl_kvlist_get(job->other_options[i], key);
        if (v && strcmp(v, prefix) == 0)
            return job->other_names[i];
    }
    return NULL;
}

/* Capabilities of one sink from its declaration, options, sources and the
** job's checkpointing (rules 1-3, 6); cap receives the ceiling. */
static int sl__sink_ceiling(const sl_gjob *job, const sl_gsink *s, sl_gresult *r,
                            sl_guarantee *cap, sl_error *err)
{
    const sl_connector_caps *c = &s->connector->caps;
    *cap = c->sink_max;
    if (c->sink_max < SL_GUARANTEE_EXACTLY_ONCE)
        sl__lower(r, cap, c->sink_max,
                  sl_sprintf("connector '%s' gives at most %s%s%s", s->connector->name,
                             sl_guarantee_name(c->sink_max), c->sink_max_why ? ": " : "",
                             c->sink_max_why ? c->sink_max_why : ""),
                  sl_strdup("write into a connector that supports the guarantee (SHOW CONNECTORS "
                            "lists them)"));
    if (c->txn_prefix_option && !sl_kvlist_get(s->options, c->txn_prefix_option))
        sl__lower(r, cap, SL_GUARANTEE_AT_LEAST_ONCE,
                  sl_sprintf("exactly-once by transactions needs the option '%s'",
                             c->txn_prefix_option),
                  sl_sprintf("add '%s' = '<a prefix unique to this job>' to the table",
                             c->txn_prefix_option));
    for (int i = 0; i < s->nsources; i++) {
        const sl_gsource *src = &s->sources[i];
        if (src->connector && !src->connector->caps.source_replayable)
            sl__lower(r, cap, SL_GUARANTEE_NONE,
                      sl_sprintf("source \"%s\" (connector '%s') cannot be replayed: rows read "
                                 "after the last checkpoint are lost in a failure",
                                 src->table, src->connector->name),
                      sl_strdup("read from a replayable source (a file, Kafka, datagen)"));
    }
    if (job->interval_ms <= 0)
        sl__lower(r, cap, SL_GUARANTEE_NONE,
                  sl_strdup("checkpointing is off ('execution.checkpointing.interval' = '0')"),
                  sl_strdup("SET 'execution.checkpointing.interval' = '10 s'"));
    /* The live probe, only when exactly-once is asked and possible so far:
    ** nothing else needs the system's limits. */
    int64_t max_timeout = 0;
    if (c->probe && r->requested == SL_GUARANTEE_EXACTLY_ONCE &&
        *cap == SL_GUARANTEE_EXACTLY_ONCE) {
        sl_sink_probe pr = {c->sink_max, 0, 0, NULL};
        if (c->probe(s->options, job->probe_timeout_ms > 0 ? job->probe_timeout_ms : 5000, &pr,
                     err) != 0) {
            if (err->position < 0)
                err->position = s->pos;
            return -1;
        }
        sl_option_scrub(&pr.why, s->options); /* the system's words: EXPLAIN, the log */
        if (pr.mech != SL_MECH_NONE) /* the system chose the role (no prepared transactions) */
            r->mech = pr.mech;
        if (pr.max < *cap)
            sl__lower(r, cap, pr.max, pr.why ? pr.why : sl_strdup("the system says so"),
                      sl_strdup("check the system's settings"));
        else if (pr.why && !r->note) /* why it chose the role: EXPLAIN's note, rule 5 */
            r->note = pr.why;
        else
            sl_free(pr.why);
        max_timeout = pr.max_txn_timeout_ms;
    }
    if (c->txn_timeout_option && *cap == SL_GUARANTEE_EXACTLY_ONCE && job->interval_ms > 0) {
        int64_t timeout = sl__option_ms(s->options, c->txn_timeout_option,
                                        c->txn_timeout_default_ms);
        if (max_timeout > 0 && timeout > max_timeout)
            sl__lower(r, cap, SL_GUARANTEE_AT_LEAST_ONCE,
                      sl_sprintf("the transaction timeout '%s' = %lld ms exceeds the system's "
                                 "largest, %lld ms",
                                 c->txn_timeout_option, (long long)timeout,
                                 (long long)max_timeout),
                      sl_sprintf("lower '%s' to at most %lld", c->txn_timeout_option,
                                 (long long)max_timeout));
        else if (timeout < 2 * job->interval_ms)
            sl__lower(r, cap, SL_GUARANTEE_AT_LEAST_ONCE,
                      sl_sprintf("the checkpoint interval (%lld ms) is not safely below the "
                                 "transaction timeout '%s' = %lld ms: a transaction must outlive "
                                 "two checkpoint intervals (%lld ms)",
                                 (long long)job->interval_ms, c->txn_timeout_option,
                                 (long long)timeout, (long long)(2 * job->interval_ms)),
                      sl_sprintf("raise '%s' to at least %lld, or shorten "
                                 "'execution.checkpointing.interval'",
                                 c->txn_timeout_option, (long long)(2 * job->interval_ms)));
    }
    return 0;
}

/* The fallback policy of a sink: its table's, else the session's. */
static bool sl__downgrade(const sl_gjob *job, const sl_gsink *s)
{
    const char *p = sl_kvlist_get(s->options, "sink.delivery-guarantee.fallback");
    if (!p)
        p = job->policy;
    return p && sl_strcasecmp(p, "downgrade") == 0;
}

/* "a; b; c" of the reasons, with a final period. */
static void sl__join_reasons(sl_strbuf *sb, const sl_gresult *r, bool hints)
{
    for (int i = 0; i < r->reasons->n; i++) {
        const sl__reason *x = r->reasons->items[i];
        const char *t = hints ? x->hint : x->text;
        if (!t)
            continue;
        if (sb->len)
            sl_strbuf_append(sb, hints ? "; or " : "; ");
        sl_strbuf_append(sb, t);
    }
}

/* Rule 5's candidates: a last-resource sink asked for exactly-once that
** could give it so far. */
static bool sl__eo_last_resource(const sl_gjob *job, const sl_gresult *out,
                                 const sl_guarantee *cap, int i)
{
    (void)job;
    return out[i].mech == SL_MECH_LAST_RESOURCE && out[i].requested == SL_GUARANTEE_EXACTLY_ONCE &&
           cap[i] == SL_GUARANTEE_EXACTLY_ONCE;
}

int sl_guarantee_resolve(const sl_gjob *job, sl_gresult *out, sl_list *warnings, sl_error *err)
{
    for (int i = 0; i < job->nsinks; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].reasons = sl_list_new();
    }
    sl_guarantee *cap = sl_calloc((size_t)job->nsinks + 1, sizeof(sl_guarantee));
    int rc = 0;
    for (int i = 0; rc == 0 && i < job->nsinks; i++) {
        const sl_gsink *s = &job->sinks[i];
        sl_gresult *r = &out[i];
        const sl_connector_caps *c = &s->connector->caps;
        const sl_kv *req = sl_kvlist_find(s->options, "sink.delivery-guarantee");
        r->explicit_req = req != NULL;
        r->requested = req ? sl__parse(req->value)
                           : (job->interval_ms > 0 ? c->sink_default : SL_GUARANTEE_NONE);
        r->mech = c->sink_mech;
        /* Rule 4: the changelog must fit the sink, whatever the policy. */
        if (s->updating && (!c->sink_updates || (c->sink_upserts && !s->has_pk))) {
            rc = sl_error_set(err, SL_ERR_NOT_SUPPORTED, s->pos,
                              "sink \"%s\" cannot take the updates this query produces",
                              s->table);
            sl_error_detail(err, c->sink_updates
                                     ? "Connector '%s' upserts by the table's PRIMARY KEY, and "
                                       "the table has none."
                                     : "Connector '%s' only appends rows.",
                            s->connector->name);
            sl_error_hint(err, "Declare a PRIMARY KEY (...) NOT ENFORCED on a table whose "
                               "connector can upsert, or make the query append-only.");
            break;
        }
        /* Rule 7: a transactional id prefix belongs to one table. */
        const char *prefix = c->txn_prefix_option
                                 ? sl_kvlist_get(s->options, c->txn_prefix_option)
                                 : NULL;
        const char *owner = prefix ? sl__prefix_owner(job, s, c->txn_prefix_option, prefix)
                                   : NULL;
        if (owner) {
            rc = sl_error_set(err, SL_ERR_DUPLICATE_OBJECT, s->pos,
                              "transactional id prefix '%s' of sink \"%s\" is already used by "
                              "table \"%s\"",
                              prefix, s->table, owner);
            sl_error_detail(err, "Two jobs writing with one prefix fence each other's "
                                 "transactions.");
            sl_error_hint(err, "Give each table its own '%s'.", c->txn_prefix_option);
            break;
        }
        rc = sl__sink_ceiling(job, s, r, &cap[i], err);
    }
    /* Rule 5: one last-resource participant per job can be exactly-once.
    ** Sinks of one connector on one cluster share a transaction: one. */
    sl_list *parts = sl_list_new(); /* "connector cluster" per participant */
    int first = -1;
    for (int i = 0; rc == 0 && i < job->nsinks; i++) {
        const sl_gsink *s = &job->sinks[i];
        const sl_connector_caps *c = &s->connector->caps;
        if (!sl__eo_last_resource(job, out, cap, i))
            continue;
        const char *cluster = c->cluster_option ? sl_kvlist_get(s->options, c->cluster_option) : NULL;
        char *id = sl_sprintf("%s %s", c->txn_system ? c->txn_system : s->connector->name,
                              cluster ? cluster : s->table);
        bool known = false;
        for (int k = 0; k < parts->n && !known; k++)
            known = strcmp(parts->items[k], id) == 0;
        if (!known)
            sl_list_push(parts, id);
        else
            sl_free(id);
        if (first < 0)
            first = i;
    }
    if (rc == 0 && parts->n > 1) {
        sl_strbuf names = SL_STRBUF_INIT;
        for (int i = 0; i < job->nsinks; i++)
            if (sl__eo_last_resource(job, out, cap, i))
                sl_strbuf_appendf(&names, "%s\"%s\"%s%s%s", names.len ? ", " : "",
                                  job->sinks[i].table, out[i].note ? " (" : "",
                                  out[i].note ? out[i].note : "", out[i].note ? ")" : "");
        for (int i = 0; i < job->nsinks; i++)
            if (sl__eo_last_resource(job, out, cap, i))
                sl__lower(&out[i], &cap[i], SL_GUARANTEE_AT_LEAST_ONCE,
                          sl_sprintf("the job has %d last-resource participants asked for "
                                     "exactly-once (sinks %s); only one transaction can decide a "
                                     "checkpoint",
                                     parts->n, sl_strbuf_cstr(&names)),
                          sl_strdup("write the other sinks in a separate job, or into one "
                                    "cluster, or make one of them preparable (PostgreSQL: "
                                    "max_prepared_transactions of at least 2)"));
        sl_strbuf_free(&names);
    }
    sl_list_free(parts, sl_free);
    /* Effective guarantees, then the policy. */
    for (int i = 0; rc == 0 && i < job->nsinks; i++) {
        const sl_gsink *s = &job->sinks[i];
        sl_gresult *r = &out[i];
        r->effective = r->requested < cap[i] ? r->requested : cap[i];
        /* Below exactly-once a transaction is not used: Kafka's at-least-once
        ** is a flush before each checkpoint, a database's a commit. */
        if (r->effective == SL_GUARANTEE_NONE ||
            (r->effective < SL_GUARANTEE_EXACTLY_ONCE &&
             (r->mech == SL_MECH_LAST_RESOURCE || r->mech == SL_MECH_2PC_PREPARABLE)))
            r->mech = SL_MECH_NONE;
        if (r->effective == SL_GUARANTEE_AT_LEAST_ONCE && s->has_pk &&
            s->connector->caps.sink_upserts) {
            sl_free(r->note);
            r->note = sl_strdup("duplicates collapse on the PRIMARY KEY: the final table state "
                                "is exactly-once");
        }
        /* A sink that upserts with a key may append without one: what a
        ** replay does then is the connector's to say. */
        if (r->effective >= SL_GUARANTEE_AT_LEAST_ONCE && !s->has_pk && !r->note &&
            s->connector->caps.sink_keyless_note)
            r->note = sl_strdup(s->connector->caps.sink_keyless_note);
        r->readers = sl__readers(s, r->effective, r->mech);
        if (r->effective >= r->requested) { /* reasons only explain a lowering */
            sl_list_free(r->reasons, sl__reason_free);
            r->reasons = sl_list_new();
            continue;
        }
        sl_strbuf why = SL_STRBUF_INIT;
        sl__join_reasons(&why, r, false);
        if (!r->explicit_req) { /* a default lowered: never an error, never silent */
            if (warnings)
                sl_list_push(warnings,
                             sl_sprintf("sink \"%s\" runs %s, not %s (the default of "
                                        "connector '%s'): %s",
                                        s->table, sl_guarantee_name(r->effective),
                                        sl_guarantee_name(r->requested), s->connector->name,
                                        sl_strbuf_cstr(&why)));
            sl_strbuf_free(&why);
            continue;
        }
        if (sl__downgrade(job, s)) {
            r->downgraded = true;
            if (warnings)
                sl_list_push(warnings,
                             sl_sprintf("sink \"%s\" runs %s, not the requested %s: %s", s->table,
                                        sl_guarantee_name(r->effective),
                                        sl_guarantee_name(r->requested), sl_strbuf_cstr(&why)));
            sl_strbuf_free(&why);
            continue;
        }
        if (job->explain) {
            r->refused = true;
            sl_strbuf_free(&why);
            continue;
        }
        sl_strbuf hint = SL_STRBUF_INIT;
        sl__join_reasons(&hint, r, true);
        rc = sl_error_set(err, SL_ERR_NOT_SUPPORTED, s->pos, "sink \"%s\" cannot be delivered %s",
                          s->table, sl_guarantee_name(r->requested));
        sl_error_detail(err, "The job can give it at most %s: %s.",
                        sl_guarantee_name(r->effective), sl_strbuf_cstr(&why));
        sl_error_hint(err, "To make it work: %s. Or accept %s with a warning: SET "
                           "'sink.guarantee-fallback' = 'downgrade'.",
                      sl_strbuf_cstr(&hint), sl_guarantee_name(r->effective));
        sl_strbuf_free(&hint);
        sl_strbuf_free(&why);
    }
    sl_free(cap);
    if (rc != 0)
        for (int i = 0; i < job->nsinks; i++)
            sl_gresult_clear(&out[i]);
    return rc;
}

void sl_guarantee_explain(sl_strbuf *sb, const sl_gjob *job, const sl_gresult *res)
{
    sl_strbuf_append(sb, "== Guarantees ==\n");
    /* Sources, each once. */
    for (int i = 0; i < job->nsinks; i++)
        for (int k = 0; k < job->sinks[i].nsources; k++) {
            const sl_gsource *src = &job->sinks[i].sources[k];
            bool seen = false;
            for (int a = 0; a <= i && !seen; a++)
                for (int b = 0; b < (a == i ? k : job->sinks[a].nsources) && !seen; b++)
                    seen = strcmp(job->sinks[a].sources[b].table, src->table) == 0;
            if (seen)
                continue;
            sl_strbuf_appendf(sb, "Source %s (%s): %s\n", src->table,
                              src->connector ? src->connector->name : "?",
                              src->connector && src->connector->caps.source_replayable
                                  ? "replayable"
                                  : "not replayable");
        }
    sl_strbuf_appendf(sb, "Checkpointing: %s\n",
                      job->interval_ms > 0 ? "on" : "off (execution.checkpointing.interval = 0)");
    int group = 0;
    for (int i = 0; i < job->nsinks; i++) {
        const sl_gsink *s = &job->sinks[i];
        const sl_gresult *r = &res[i];
        sl_strbuf_appendf(sb, "Sink %s (%s): requested %s%s, effective %s%s\n", s->table,
                          s->connector->name, sl_guarantee_name(r->requested),
                          r->explicit_req ? "" : " (connector default)",
                          sl_guarantee_name(r->effective),
                          r->refused      ? " -- not achievable: running it fails under the "
                                            "'error' fallback policy"
                          : r->downgraded ? " (downgraded by the fallback policy)"
                                          : "");
        sl_strbuf_appendf(sb, "  mechanism: %s, commit role: %s\n", sl_mechanism_name(r->mech),
                          sl_mechanism_role(r->mech));
        for (int k = 0; r->reasons && k < r->reasons->n; k++)
            sl_strbuf_appendf(sb, "  reason: %s\n", ((sl__reason *)r->reasons->items[k])->text);
        if (r->note)
            sl_strbuf_appendf(sb, "  note: %s\n", r->note);
        if (r->readers)
            sl_strbuf_appendf(sb, "  readers: %s\n", r->readers);
        if (r->effective == SL_GUARANTEE_EXACTLY_ONCE && r->mech != SL_MECH_NONE &&
            r->mech != SL_MECH_IDEMPOTENT_UPSERT)
            group++;
    }
    if (group > 1) {
        sl_strbuf_append(sb, "Commit group:");
        for (int i = 0; i < job->nsinks; i++)
            if (res[i].effective == SL_GUARANTEE_EXACTLY_ONCE && res[i].mech != SL_MECH_NONE &&
                res[i].mech != SL_MECH_IDEMPOTENT_UPSERT)
                sl_strbuf_appendf(sb, " %s", job->sinks[i].table);
        sl_strbuf_append(sb, " (decided together by one checkpoint)\n");
    }
}

char *sl_guarantee_summary(const sl_gresult *r)
{
    if (r->effective == r->requested)
        return sl_strdup(sl_guarantee_name(r->effective));
    return sl_sprintf("%s (%s %s)", sl_guarantee_name(r->effective),
                      r->explicit_req ? "requested" : "default", sl_guarantee_name(r->requested));
}

/* ------------------------------------------------------------------------
** docs/GUARANTEES.md, generated from the declarations and the resolver.
*/

static const char *sl__yn(bool b)
{
    return b ? "yes" : "no";
}

/* The effective guarantee the resolver gives connector c when `req` is
** requested under the given conditions, or "error" / "error (rule 4)". */
static void sl__md_case(sl_strbuf *out, const sl_connector *c, const char *req, bool chk,
                        bool replayable)
{
    static const sl_connector replay = {.name = "file", .caps = {.source_replayable = true}};
    static const sl_connector once = {.name = "stdin", .caps = {.source_replayable = false}};
    sl_kvlist *o = sl_kvlist_new();
    if (req)
        sl_kvlist_add(o, "sink.delivery-guarantee", req, -1, -1);
    if (c->caps.txn_prefix_option)
        sl_kvlist_add(o, c->caps.txn_prefix_option, "prefix-", -1, -1);
    sl_gsource src = {"in", replayable ? &replay : &once};
    sl_connector decl = *c; /* a system that allows it: no live probe */
    decl.caps.probe = NULL;
    sl_gsink k = {"out", &decl, o, -1, false, false, 1, &src};
    sl_gjob job = {0};
    job.interval_ms = chk ? 10000 : 0;
    job.nsinks = 1;
    job.sinks = &k;
    job.explain = true; /* a refusal is marked, not raised */
    sl_gresult r;
    sl_error err = SL_ERROR_INIT;
    if (sl_guarantee_resolve(&job, &r, NULL, &err) != 0) {
        sl_strbuf_append(out, " error |");
    } else {
        sl_strbuf_appendf(out, " %s%s |", r.refused ? "**error**; downgrade: " : "",
                          sl_guarantee_name(r.effective));
        sl_gresult_clear(&r);
    }
    sl_error_reset(&err);
    sl_kvlist_free(o);
}

void sl_guarantees_markdown(sl_strbuf *out)
{
    int n;
    const sl_connector *const *all = sl_connectors(&n);
    sl_strbuf_append(out,
        "# Delivery guarantees\n"
        "\n"
        "<!-- Generated by sl_guarantees_markdown() (planner/guarantee.c) from the\n"
        "     connector declarations and the resolver. Do not edit by hand. -->\n"
        "\n"
        "Regenerate after changing a declaration or a rule with\n"
        "\n"
        "    cd tests && <build-dir>/tests/test_planner_guarantee --write\n"
        "\n"
        "The unit test `test_planner_guarantee` fails while this file differs.\n"
        "\n"
        "## How the guarantee of a sink is decided\n"
        "\n"
        "One resolver (`planner/guarantee.c`) decides the guarantee of every sink of a\n"
        "job when the job is planned, from what each connector declares. The\n"
        "**effective** guarantee is the weakest of:\n"
        "\n"
        "1. what was **requested** with `'sink.delivery-guarantee'`; when nothing is\n"
        "   requested, the connector's default (never an error);\n"
        "2. what the sink **can** give: its strongest guarantee, lowered when its\n"
        "   options lack the mechanism (a transactional sink without its\n"
        "   transactional id prefix gives at most at-least-once) or a live probe of\n"
        "   its system says so;\n"
        "3. the **sources** feeding it: a source that cannot be replayed (`stdin`)\n"
        "   makes it `none` — rows read after the last checkpoint are lost in a\n"
        "   failure;\n"
        "4. **checkpointing**: off (`'execution.checkpointing.interval' = '0'`) makes\n"
        "   it `none`;\n"
        "5. the **job**: only one last-resource participant (a transaction only this\n"
        "   process can finish, e.g. Kafka) can be exactly-once; sinks of one\n"
        "   connector on one cluster share one transaction and count as one; and a\n"
        "   participant's transaction timeout must be at least twice the checkpoint\n"
        "   interval (and within its system's limit).\n"
        "\n"
        "A requested guarantee that is not achievable is an **error** (SQLSTATE\n"
        "0A000; the detail lists the reasons, the hint what would make it work),\n"
        "unless the fallback policy is `downgrade` — `SET 'sink.guarantee-fallback'\n"
        "= 'downgrade'` or the table option `'sink.delivery-guarantee.fallback' =\n"
        "'downgrade'`: then the job runs at the effective guarantee and a WARNING\n"
        "names the sink, requested, effective and why. Always errors, whatever the\n"
        "policy: an updating query into a sink that only appends (or that upserts\n"
        "and has no PRIMARY KEY), and a transactional id prefix another table uses.\n"
        "At-least-once into a sink that upserts by PRIMARY KEY is reported with the\n"
        "note that the final table state is exactly-once.\n"
        "\n"
        "A connector's default that the job cannot keep (nothing requested; e.g.\n"
        "`stdin` into `filesystem`, whose default is exactly-once) is never an\n"
        "error: the job runs at the effective guarantee and a WARNING names the\n"
        "sink, the effective guarantee, the default and why; `SHOW JOBS` shows it\n"
        "as `none (default exactly-once)`.\n"
        "\n"
        "Nothing is silent: `EXPLAIN INSERT ...` ends with a Guarantees section (per\n"
        "source: replayable or not; per sink: requested, effective, mechanism, its\n"
        "role in the commit, the reasons, what readers must do; the commit group),\n"
        "`SHOW JOBS` shows each job's effective guarantee, and the job's log has the\n"
        "whole section.\n"
        "\n"
        "Side tables (the rows operators set aside: late rows by\n"
        "`'table.exec.late-rows.table'`, deduplication conflicts) are sinks of the job\n"
        "like the others: the resolver decides each by the rules above (its\n"
        "`'sink.delivery-guarantee'` or connector default, the job's sources and\n"
        "checkpointing, the fallback policy), EXPLAIN lists it among the sinks and in\n"
        "the commit group, and one checkpoint decides its epoch with the job's other\n"
        "sinks: after a crash the rows set aside again replace the undecided ones.\n"
        "\n"
        "## Connectors\n"
        "\n"
        "| Connector | Source replayable | Sink: strongest | Mechanism | Commit role "
        "| Default | Accepts updates | Transactional id prefix | Live probe |\n"
        "|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const sl_connector_caps *k = &all[i]->caps;
        sl_strbuf_appendf(out, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                          all[i]->name, k->source ? sl__yn(k->source_replayable) : "-",
                          k->sink ? sl_guarantee_name(k->sink_max) : "-",
                          k->sink ? sl_mechanism_name(k->sink_mech) : "-",
                          k->sink ? sl_mechanism_role(k->sink_mech) : "-",
                          k->sink ? sl_guarantee_name(k->sink_default) : "-",
                          k->sink ? sl__yn(k->sink_updates) : "-",
                          k->txn_prefix_option ? k->txn_prefix_option : "-",
                          k->probe ? "yes" : "-");
    }
    sl_strbuf_append(out,
        "\n## What each sink gives\n"
        "\n"
        "Computed by the resolver for an append-only query, with the options the\n"
        "guarantee needs (a transactional id prefix) and a system whose live probe\n"
        "allows it. Columns: the requested\n"
        "guarantee, with checkpointing on and a replayable source; then with\n"
        "checkpointing off; then with a source that cannot be replayed. \"**error**;\n"
        "downgrade: X\" means the request fails under the default policy and runs at X\n"
        "with a warning under `downgrade`.\n"
        "\n"
        "| Sink | Requested | Checkpointing on | Checkpointing off | Source not replayable |\n"
        "|---|---|---|---|---|\n");
    static const char *const reqs[] = {NULL, "none", "at-least-once", "exactly-once"};
    for (int i = 0; i < n; i++) {
        if (!all[i]->caps.sink)
            continue;
        for (int r = 0; r < 4; r++) {
            sl_strbuf_appendf(out, "| `%s` | %s |", all[i]->name,
                              reqs[r] ? reqs[r] : "(not set)");
            sl__md_case(out, all[i], reqs[r], true, true);
            sl__md_case(out, all[i], reqs[r], false, true);
            sl__md_case(out, all[i], reqs[r], true, false);
            sl_strbuf_append_char(out, '\n');
        }
    }
}
