/*
** dedup_ttl.c — a deduplication's state TTL against the replay horizon of
** its sources: which duplicates the engine can no longer catch.
**
** A keep-first deduplication (ROW_NUMBER() ... = 1, ORDER BY time ASC)
** under 'table.exec.state.ttl' > 0 forgets a key TTL after its row was
** emitted; a row of that key that comes again later is a new first row and
** is emitted again. Whether that can happen depends on how far back each
** source feeding it can be read again — a restart from an old savepoint, a
** replay from the start (sl_connector.replay_horizon): Kafka, the topics'
** 'retention.ms' read at plan time (unknown when the broker does not
** answer); files, unbounded; datagen, none. A horizon longer than the TTL
** (or unknown) lets such duplicates through; then the sink's unique key is
** what must catch them: a jdbc sink whose PRIMARY KEY is the
** deduplication's key catches them under 'sink.on-duplicate-key' =
** 'ignore' (the stored row is kept) and overwrites the row with them under
** 'update' (one row per key, the replay's values); no other sink does.
**
** EXPLAIN shows it in "== Deduplication State =="; an INSERT whose sink
** does not catch them gets a WARNING.
**
** Main routine: sl__dedup_ttl.
*/
#include "session_int.h"

#include <string.h>

#define SL__HORIZON_TIMEOUT_MS 2000 /* how long EXPLAIN / INSERT wait for a broker */

/* ms as its largest exact unit: "7 d", "36 h", "90 min", "30 s", "1500 ms". */
static void sl__ms_text(sl_strbuf *sb, int64_t ms)
{
    static const struct {
        int64_t ms;
        const char *unit;
    } units[] = {{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (ms % units[i].ms == 0) {
            sl_strbuf_appendf(sb, "%lld %s", (long long)(ms / units[i].ms), units[i].unit);
            return;
        }
    sl_strbuf_appendf(sb, "%lld ms", (long long)ms);
}

/* The tables scanned under n, each once (names borrowed from the plan). */
static void sl__scans(const sl_lp *n, sl_list *names)
{
    if (!n)
        return;
    if (n->kind == SL_LP_SCAN && n->table) {
        for (int i = 0; i < names->n; i++)
            if (strcmp(names->items[i], n->table) == 0)
                return;
        sl_list_push(names, n->table);
    }
    sl__scans(n->input, names);
    sl__scans(n->right, names);
}

/* Whether sink's PRIMARY KEY is exactly the columns named keys of dedup. */
static bool sl__pk_is_key(const sl_table *sink, const sl_lp *dedup)
{
    if (sink->npk != dedup->nkeys)
        return false;
    for (int i = 0; i < sink->npk; i++) {
        bool found = false;
        for (int k = 0; k < dedup->nkeys && !found; k++)
            found = strcmp(sink->cols[sink->pk[i]].name,
                           dedup->input->cols[dedup->keys[k]].name) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* One keep-first deduplication dedup writing into sink (NULL: a query's
** result). */
static void sl__one(sl_session *s, const sl_lp *dedup, const sl_table *sink, int64_t ttl_ms,
                    sl_strbuf *sb, sl_list *warnings)
{
    sl_strbuf name = SL_STRBUF_INIT, ttl = SL_STRBUF_INIT, lines = SL_STRBUF_INIT;
    sl_strbuf_append(&name, "Deduplicate(");
    for (int k = 0; k < dedup->nkeys; k++)
        sl_strbuf_appendf(&name, "%s%s", k ? ", " : "", dedup->input->cols[dedup->keys[k]].name);
    sl_strbuf_append_char(&name, ')');
    sl__ms_text(&ttl, ttl_ms);
    sl_list *scans = sl_list_new();
    sl__scans(dedup->input, scans);
    const char *exposed = NULL; /* a source whose replays outlive the TTL (or may) */
    sl_strbuf exposed_h = SL_STRBUF_INIT;
    for (int i = 0; i < scans->n; i++) {
        const sl_table *t = sl_catalog_table(sl__cat(s), scans->items[i]);
        if (!t)
            continue;
        const sl_connector *c = t->connector;
        sl_strbuf_appendf(&lines, "  Source %s (%s): ", t->name, c ? c->name : "?");
        int64_t h = 0;
        const char *what = "";
        sl_error err = SL_ERROR_INIT;
        int rc = -1;
        if (c && c->replay_horizon)
            rc = c->replay_horizon(t->def->options, SL__HORIZON_TIMEOUT_MS, &h, &what, &err);
        else
            sl_error_set(&err, SL_ERR_NOT_SUPPORTED, -1, "the connector does not tell");
        sl_strbuf hs = SL_STRBUF_INIT;
        if (rc != 0) {
            sl_strbuf_appendf(&hs, "unknown (%s)", err.message);
            sl_strbuf_appendf(&lines,
                              "replay horizon %s: a row replayed more than %s after its key was "
                              "first seen may be emitted again\n",
                              sl_strbuf_cstr(&hs), sl_strbuf_cstr(&ttl));
        } else if (h == 0) {
            sl_strbuf_appendf(&lines, "no replay (%s): every duplicate is caught\n", what);
        } else if (h <= ttl_ms) {
            sl__ms_text(&hs, h);
            sl_strbuf_appendf(&hs, " (%s)", what);
            sl_strbuf_appendf(&lines,
                              "replay horizon %s, within the TTL: every replayed duplicate is "
                              "caught\n",
                              sl_strbuf_cstr(&hs));
        } else {
            if (h == INT64_MAX)
                sl_strbuf_appendf(&hs, "unbounded (%s)", what);
            else {
                sl__ms_text(&hs, h);
                sl_strbuf_appendf(&hs, " (%s)", what);
            }
            sl_strbuf_appendf(&lines,
                              "replay horizon %s: a row replayed more than %s after its key was "
                              "first seen is emitted again\n",
                              sl_strbuf_cstr(&hs), sl_strbuf_cstr(&ttl));
        }
        if ((rc != 0 || h > ttl_ms) && !exposed) {
            exposed = t->name;
            if (rc != 0)
                sl_strbuf_append(&exposed_h, "unknown");
            else if (h == INT64_MAX)
                sl_strbuf_append(&exposed_h, "unbounded");
            else
                sl__ms_text(&exposed_h, h);
        }
        sl_strbuf_free(&hs);
        sl_error_reset(&err);
    }
    /* The sink. */
    bool caught = false;
    if (!sink) {
        sl_strbuf_append(&lines, "  Result of the query: nothing catches them\n");
    } else {
        const char *conn = sink->connector ? sink->connector->name : "?";
        const char *dup = sl_kvlist_get(sink->def->options, "sink.on-duplicate-key");
        sl_strbuf_appendf(&lines, "  Sink %s (%s): ", sink->name, conn);
        if (strcmp(conn, "jdbc") == 0 && sl__pk_is_key(sink, dedup)) {
            caught = true;
            if (dup && strcmp(dup, "ignore") == 0)
                sl_strbuf_append(&lines, "its PRIMARY KEY is the key and 'sink.on-duplicate-key' "
                                         "= 'ignore': it catches them (the stored row is kept)\n");
            else if (dup && strcmp(dup, "error") == 0)
                sl_strbuf_append(&lines, "its PRIMARY KEY is the key and 'sink.on-duplicate-key' "
                                         "= 'error': it catches them (an identical one quietly, a "
                                         "differing one fails the job)\n");
            else
                sl_strbuf_append(&lines, "its PRIMARY KEY is the key and 'sink.on-duplicate-key' "
                                         "= 'update': an upsert, it overwrites the row with them "
                                         "(one row per key, the replay's values)\n");
        } else {
            sl_strbuf_append(&lines, "nothing catches them: they are written again\n");
        }
    }
    if (sb) {
        sl_strbuf_appendf(sb,
                          "%s: keeps the first row per key; 'table.exec.state.ttl' = %s forgets "
                          "a key %s after its row was emitted\n%s",
                          sl_strbuf_cstr(&name), sl_strbuf_cstr(&ttl),
                          sl_strbuf_cstr(&ttl), sl_strbuf_cstr(&lines));
    }
    if (warnings && exposed && !caught)
        sl_list_push(warnings,
                     sl_sprintf("%s forgets a key %s after its row was emitted "
                                "('table.exec.state.ttl'), but source %s can replay older rows "
                                "(replay horizon %s): a row replayed more than %s after its key "
                                "was first seen is emitted again, and %s%s%s does not catch it",
                                sl_strbuf_cstr(&name), sl_strbuf_cstr(&ttl), exposed,
                                sl_strbuf_cstr(&exposed_h), sl_strbuf_cstr(&ttl),
                                sink ? "sink \"" : "the query's result", sink ? sink->name : "",
                                sink ? "\"" : ""));
    sl_list_free(scans, NULL);
    sl_strbuf_free(&exposed_h);
    sl_strbuf_free(&name);
    sl_strbuf_free(&ttl);
    sl_strbuf_free(&lines);
}

/* Every keep-first deduplication under n. */
static void sl__walk(sl_session *s, const sl_lp *n, const sl_table *sink, int64_t ttl_ms,
                     sl_strbuf *sb, sl_list *warnings)
{
    if (!n)
        return;
    if (n->kind == SL_LP_OVER && sl_lp_dedup_kind(n) == 1)
        sl__one(s, n, sink, ttl_ms, sb, warnings);
    sl__walk(s, n->input, sink, ttl_ms, sb, warnings);
    sl__walk(s, n->right, sink, ttl_ms, sb, warnings);
}

void sl__dedup_ttl(sl_session *s, const sl_list *plans, sl_strbuf *sb, sl_list *warnings)
{
    int64_t ttl_ms = sl__duration_ms(s, "table.exec.state.ttl");
    if (ttl_ms <= 0)
        return;
    sl_strbuf sec = SL_STRBUF_INIT;
    for (int i = 0; i < plans->n; i++) {
        const sl_lp *root = plans->items[i];
        const sl_table *sink =
            root->kind == SL_LP_SINK ? sl_catalog_table(sl__cat(s), root->table) : NULL;
        sl__walk(s, root, sink, ttl_ms, sb ? &sec : NULL, warnings);
    }
    if (sb && sec.len)
        sl_strbuf_appendf(sb, "\n== Deduplication State ==\n%s", sl_strbuf_cstr(&sec));
    sl_strbuf_free(&sec);
}
