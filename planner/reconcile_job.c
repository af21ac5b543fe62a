/*
** reconcile_job.c — RECONCILE ... FOR JOB 'name': the job's three
** boundaries, read from its record and its newest decided checkpoint in
** the data directory (jobs/<name>/, exec/checkpoint.c):
**
**   input_boundary     the source's fixed end positions RECONCILE read up
**                      to (Kafka: read_committed's end offsets per
**                      partition, "p0:1234 p1:987"); ok when they were taken
**   recovery_boundary  the newest decided checkpoint's source positions
**                      ("v2 topic:partition:next,..." of the Kafka source)
**                      are at or past them; sample: the checkpoint and the
**                      partitions behind, or its positions
**   commit_boundary    every sink commit of that checkpoint is done: no
**                      PostgreSQL prepared transaction of the ledger's
**                      'sink.transactional-id-prefix' (gid 'sluice:<prefix>:
**                      <epoch>:...', read from pg_prepared_xacts through a
**                      jdbc table of the session) of an epoch at or before
**                      it, and no pending Kafka transaction older than it
**                      on the topic of one of the job's exactly-once Kafka
**                      sinks (its record's "sink" tables whose place is in
**                      its "targets") or of a Kafka ledger: an open
**                      transaction (last stable offset below the high
**                      watermark) whose first record is older than the
**                      time the checkpoint was triggered belongs to an
**                      epoch at or before it (epoch C+1 begins at barrier
**                      C, after C's trigger); one that began later is in
**                      flight, ok (connectors/kafka/kafka_pending.c, through
**                      sl_connector.pending_txns; it waits up to
**                      SL__REC_SETTLE_MS for one just committed, whose
**                      markers are on their way). A checkpoint whose
**                      _metadata does not say when it was triggered (sealed
**                      by an earlier version, or at recovery) is dated by
**                      its seal. The count adds both kinds; the sample
**                      names the open ones ("open: <gid>", "kafka <topic>:
**                      <partition> pending since <time> UTC (offsets
**                      <LSO>..<HWM>)"), else what was looked at and the
**                      transactions in flight ("in flight: kafka <topic>:
**                      <partition> open since ..."); a ledger without prepared
**                      transactions and a job without Kafka sinks: ok
**   watermark          the checkpoint's watermark (the smallest of its last
**                      stage's tasks', whose lanes leave idle inputs out; of
**                      its input tasks when it has no stage) has passed the
**                      range's end (the predicate's
**                      `rowtime < T` or `rowtime <= T` on the source's
**                      rowtime column)
**
** Main routine: sl__rec_job_checks.
*/
#include "reconcile_int.h"
#include "../base/sl_time.h"

#include <dirent.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long an open Kafka transaction that looks older than the checkpoint
** is watched before it counts as pending: the commit markers of one just
** committed take a moment to reach the partitions. */
#define SL__REC_SETTLE_MS 1000

/* A job's newest decided checkpoint as RECONCILE reads it. */
typedef struct sl__rec_chk {
    int64_t id;          /* the checkpoint, 0 = none */
    sl_strbuf positions; /* its source positions, joined by ',' */
    int64_t watermark;   /* the smallest of its tasks' watermarks (ns), INT64_MIN = none */
    int64_t triggered;   /* when it was triggered (ns since the epoch), else when sealed */
    bool trigger_known;  /* ... its _metadata says when it was triggered */
} sl__rec_chk;

static int sl__rec_chk_read(sl_session *s, const char *job, sl__rec_chk *c, sl_error *err)
{
    c->watermark = INT64_MAX;
    sl_chk_store *store = NULL;
    if (sl__job_store_open(s->eng, s->config, job, &store, err) != 0) {
        if (strcmp(err->sqlstate, SL_ERR_UNDEFINED_FILE) != 0)
            return -1;
        sl_error_reset(err); /* no checkpoint yet */
        c->id = 0;
        c->watermark = INT64_MIN;
        return 0;
    }
    int rc = sl_chk_latest(store, &c->id, err);
    if (rc == 0 && c->id <= 0) {
        c->id = 0;
        c->watermark = INT64_MIN;
    }
    int64_t sealed = 0;
    if (rc == 0 && c->id > 0 && sl_chk_times(store, c->id, &c->triggered, &sealed, err) < 0)
        rc = -1;
    c->trigger_known = c->triggered > 0;
    if (!c->trigger_known) /* sealed before the trigger was recorded, or at recovery */
        c->triggered = sealed;
    sl_list *states = sl_list_new();
    if (rc == 0 && c->id > 0)
        rc = sl_chk_states(store, c->id, states, err);
    bool any_wm = false;
    int64_t in_wm = INT64_MAX; /* the input tasks' smallest, used when there is no stage */
    long stage = -1;           /* the last stage seen: its tasks' watermarks count */
    for (int i = 0; rc == 0 && i < states->n; i++) {
        const char *sname = states->items[i];
        bool src = strncmp(sname, "source-", 7) == 0;
        bool wm = strncmp(sname, "watermark-", 10) == 0;
        if (!src && !wm)
            continue;
        char *data = NULL;
        size_t len = 0;
        rc = sl_chk_read_state(store, c->id, sname, &data, &len, err);
        if (rc == 0 && src && data) {
            const char *p = strncmp(data, "v2 ", 3) == 0 ? data + 3 : data;
            /* the same positions twice: a statement set's INSERTs read one
            ** topic each (only once in the sample) */
            const char *had = c->positions.len ? strstr(sl_strbuf_cstr(&c->positions), p) : NULL;
            size_t n = strlen(p);
            bool dup = had && (had == c->positions.buf || had[-1] == ',') &&
                       (had[n] == '\0' || had[n] == ',');
            if (*p && !dup)
                sl_strbuf_appendf(&c->positions, "%s%s", c->positions.len ? "," : "", p);
        } else if (rc == 0 && wm && data) {
            /* the watermark of the last stage's tasks (idle inputs left out
            ** by their lanes), else of the input tasks */
            long long v = strtoll(data, NULL, 10);
            const char *task = sname + 10;
            any_wm = true;
            if (strncmp(task, "st", 2) == 0) {
                long st = strtol(task + 2, NULL, 10);
                if (st > stage) {
                    stage = st;
                    c->watermark = INT64_MAX;
                }
                if (st == stage && v < c->watermark)
                    c->watermark = v;
            } else if (v < in_wm) {
                in_wm = v;
            }
        }
        sl_free(data);
    }
    sl_list_free(states, sl_free);
    if (stage < 0)
        c->watermark = in_wm;
    if (c->id > 0 && !any_wm)
        c->watermark = INT64_MIN;
    sl_chk_close(store);
    return rc;
}

/* The decided position of partition p of topic in positions
** ("topic:partition:next,..."), or -3 when it has none. */
static int64_t sl__rec_position(const char *positions, const char *topic, int64_t p)
{
    size_t tl = strlen(topic);
    for (const char *q = positions; q && *q;) {
        const char *end = strchr(q, ',');
        size_t n = end ? (size_t)(end - q) : strlen(q);
        if (n > tl + 1 && strncmp(q, topic, tl) == 0 && q[tl] == ':') {
            char *after = NULL;
            long long part = strtoll(q + tl + 1, &after, 10);
            if (after && *after == ':' && part == p)
                return strtoll(after + 1, NULL, 10);
        }
        q = end ? end + 1 : NULL;
    }
    return -3;
}

/* recovery_boundary: every partition's decided position at or past the
** input boundary ("p0:1234 p1:987" of topic). */
static void sl__rec_recovery(const sl__rec_chk *c, const char *topic, const char *input,
                             sl__rec_row *row)
{
    row->check = "recovery_boundary";
    if (c->id == 0) {
        row->ok = false;
        row->sample = sl_strdup("no decided checkpoint");
        return;
    }
    if (!topic || !input || !*input) {
        row->ok = true;
        row->sample = sl_sprintf("checkpoint %" PRId64 " (%s)", c->id,
                                 c->positions.len ? c->positions.buf : "no positions");
        return;
    }
    sl_strbuf behind = SL_STRBUF_INIT;
    int64_t n = 0;
    for (const char *q = input; *q;) {
        long long part = 0, end = 0;
        int used = 0;
        if (sscanf(q, "p%lld:%lld%n", &part, &end, &used) != 2)
            break;
        q += used;
        while (*q == ' ')
            q++;
        int64_t at = sl__rec_position(c->positions.buf ? c->positions.buf : "", topic, part);
        if (end > 0 && at < end) { /* -2 (nothing read) and -3 (unknown) are behind too */
            n++;
            sl_strbuf_appendf(&behind, "%sp%lld:%" PRId64 "<%lld", behind.len ? " " : "", part,
                              at < 0 ? (int64_t)0 : at, end);
        }
    }
    row->ok = n == 0;
    row->count = n;
    if (n > 0)
        row->sample = sl_sprintf("checkpoint %" PRId64 " behind: %s", c->id, behind.buf);
    else
        row->sample = sl_sprintf("checkpoint %" PRId64 " at %s", c->id,
                                 c->positions.len ? c->positions.buf : "");
    sl_strbuf_free(&behind);
}

/* The range's end: the predicate's `col < T` / `col <= T` (AND'ed), as ns. */
static bool sl__rec_range_end(const sl_expr *e, const char *col, int64_t *end)
{
    if (!e)
        return false;
    if (e->kind == SL_EXPR_BINARY && e->op == SL_OP_AND) {
        bool l = sl__rec_range_end(e->left, col, end), r = sl__rec_range_end(e->right, col, end);
        return l || r;
    }
    if (e->kind != SL_EXPR_BINARY || (e->op != SL_OP_LT && e->op != SL_OP_LE) || !e->left ||
        !e->right || e->left->kind != SL_EXPR_COLUMN || strcmp(e->left->text, col) != 0 ||
        e->right->kind != SL_EXPR_TYPED || !e->right->text)
        return false;
    int64_t ns;
    if (sl_ts_parse(e->right->text, strlen(e->right->text), &ns) != 0)
        return false;
    *end = ns;
    return true;
}

static void sl__rec_watermark(sl__rec *r, const sl__rec_chk *c, sl__rec_row *row)
{
    row->check = "watermark";
    const char *rowtime = r->source->wm_col >= 0 ? r->source->all[r->source->wm_col].name : NULL;
    int64_t end = 0;
    char wbuf[64], ebuf[64];
    if (c->watermark == INT64_MAX)
        snprintf(wbuf, sizeof wbuf, "the end of input");
    else if (c->watermark == INT64_MIN || sl_ts_format(c->watermark, 3, wbuf) < 0)
        snprintf(wbuf, sizeof wbuf, "none");
    if (!rowtime || !sl__rec_range_end(r->st->where, rowtime, &end)) {
        row->ok = c->watermark == INT64_MAX; /* the end of input passed every range */
        row->sample = sl_sprintf("watermark %s; no range end on the source's rowtime column",
                                 wbuf);
        return;
    }
    if (sl_ts_format(end, 3, ebuf) < 0)
        snprintf(ebuf, sizeof ebuf, "?");
    row->ok = c->watermark != INT64_MIN && c->watermark >= end;
    row->sample = sl_sprintf("watermark %s %s %s", wbuf, row->ok ? ">=" : "<", ebuf);
}

/* commit_boundary: the ledger's prepared transactions of epochs at or
** before the checkpoint (gids read through a jdbc table of the fork). */
typedef struct sl__rec_gids {
    const char *prefix;
    int64_t upto;
    int64_t count;
    sl_strbuf sample;
} sl__rec_gids;

static int sl__rec_gid_row(void *ctx, const char *const *values, const size_t *lens)
{
    (void)lens;
    sl__rec_gids *g = ctx;
    const char *gid = values[0];
    size_t pl = strlen(g->prefix);
    if (!gid || strncmp(gid, "sluice:", 7) != 0 || strncmp(gid + 7, g->prefix, pl) != 0 ||
        gid[7 + pl] != ':')
        return 0;
    long long epoch = strtoll(gid + 8 + pl, NULL, 10);
    if (epoch > g->upto) /* prepared for a checkpoint not decided yet: in flight */
        return 0;
    if (g->count++ < SL_RK_SAMPLES)
        sl_strbuf_appendf(&g->sample, "%s%s", g->sample.len ? ", " : "open: ", gid);
    return 0;
}

/* The PostgreSQL part of commit_boundary: *count prepared transactions
** of the ledger's prefix up to the checkpoint, *sample (NULL when the
** ledger commits nothing in two phases). */
static int sl__rec_prepared(sl__rec *r, const sl__rec_chk *c, int64_t *count, char **sample,
                            sl_error *err)
{
    *count = 0;
    *sample = NULL;
    const sl_table *led = r->ledger;
    const sl_connector *conn = led->connector;
    const char *prefix = conn && conn->caps.txn_prefix_option
                             ? sl_kvlist_get(led->def->options, conn->caps.txn_prefix_option)
                             : NULL;
    if (!prefix || strcmp(conn->name, "jdbc") != 0)
        return 0;
    /* pg_prepared_xacts through a jdbc table on the ledger's database */
    sl_stmt *def = sl_calloc(1, sizeof *def);
    def->kind = SL_STMT_CREATE_TABLE;
    def->name = sl_strdup("__reconcile_prepared");
    def->name_pos = -1;
    def->temporary = true;
    def->columns = sl_list_new();
    sl_column_def *col = sl_calloc(1, sizeof *col);
    col->name = sl_strdup("gid");
    col->type = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    sl_list_push(def->columns, col);
    def->options = sl_kvlist_new();
    static const char *const keep[] = {"connector", "url", "username", "password"};
    for (size_t i = 0; i < SL_ARRAY_LEN(keep); i++) {
        const char *v = sl_kvlist_get(led->def->options, keep[i]);
        if (v)
            sl_kvlist_set(def->options, keep[i], v, -1, -1);
    }
    sl_kvlist_set(def->options, "table-name", "pg_prepared_xacts", -1, -1);
    sl_session *f = sl__rec_fork(r->s);
    if (!f->ttables)
        f->ttables = sl_list_new();
    sl_list_push(f->ttables, def);
    f->tgen++;
    sl_stmt *st = sl__rec_select_col(r, "gid", "__reconcile_prepared", NULL);
    sl__rec_gids g = {prefix, c->id, 0, SL_STRBUF_INIT};
    sl_result_sink sink = {&g, NULL, sl__rec_gid_row, NULL, NULL, NULL};
    int rc = sl__rec_run(r, f, st, &sink, err);
    sl_session_free(f);
    *count = g.count;
    if (g.count > SL_RK_SAMPLES)
        sl_strbuf_append(&g.sample, ", ...");
    *sample = g.count ? sl_strbuf_detach(&g.sample)
                      : sl_sprintf("no prepared transaction of '%s' up to checkpoint %" PRId64,
                                   prefix, c->id);
    sl_strbuf_free(&g.sample);
    return rc;
}

/* Whether the JSON array of strings a holds s. */
static bool sl__rec_json_has(const json_t *a, const char *s)
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *v = json_string_value(json_array_get(a, i));
        if (v && strcmp(v, s) == 0)
            return true;
    }
    return false;
}

/* Look at t's open transactions (when its connector can tell them) once
** per place: seen holds the places looked at. */
static int sl__rec_pending_of(const sl_table *t, const sl__rec_chk *c, sl_list *seen,
                              sl_pending_txns *p, sl_error *err)
{
    if (!t || !t->connector || !t->connector->pending_txns)
        return 0;
    char *id = sl__sink_target(t);
    for (int i = 0; i < seen->n; i++)
        if (strcmp(seen->items[i], id) == 0) {
            sl_free(id);
            return 0;
        }
    sl_list_push(seen, id);
    /* older than the trigger, to the millisecond below (records carry ms) */
    int64_t before_ms = c->id > 0 ? c->triggered / SL_NANOS_PER_MILLI : 0;
    return t->connector->pending_txns(t->def->options, before_ms, SL__REC_SETTLE_MS, p, err);
}

/* The Kafka part of commit_boundary: the open transactions of the job's
** exactly-once sinks (its record's "sink" tables whose place is among its
** "targets") and of the ledger, added to *p; *n the places looked at. */
static int sl__rec_pending(sl__rec *r, const sl__rec_chk *c, const json_t *rec,
                           sl_pending_txns *p, int *n, sl_error *err)
{
    sl_list *seen = sl_list_new();
    const char *sinks = rec ? json_string_value(json_object_get(rec, "sink")) : NULL;
    const json_t *targets = rec ? json_object_get(rec, "targets") : NULL;
    int rc = 0;
    for (const char *q = sinks; rc == 0 && q && *q;) { /* "a, b" */
        const char *end = strstr(q, ", ");
        char *name = end ? sl_strndup(q, (size_t)(end - q)) : sl_strdup(q);
        const sl_table *t = sl_catalog_table(sl__cat(r->s), name);
        sl_free(name);
        q = end ? end + 2 : NULL;
        if (!t || !t->connector || !t->connector->pending_txns)
            continue;
        char *id = sl__sink_target(t);
        bool eo = sl__rec_json_has(targets, id);
        sl_free(id);
        if (eo)
            rc = sl__rec_pending_of(t, c, seen, p, err);
    }
    if (rc == 0) /* a ledger in Kafka: an open transaction holds its readers up too */
        rc = sl__rec_pending_of(r->ledger, c, seen, p, err);
    *n = seen->n;
    sl_list_free(seen, sl_free);
    return rc;
}

static int sl__rec_commit(sl__rec *r, const sl__rec_chk *c, const json_t *rec, sl__rec_row *row,
                          sl_error *err)
{
    row->check = "commit_boundary";
    int64_t prepared = 0;
    char *pg = NULL;
    int rc = sl__rec_prepared(r, c, &prepared, &pg, err);
    sl_pending_txns p = {.max_samples = SL_RK_SAMPLES};
    p.older_sample = p.newer_sample = (sl_strbuf)SL_STRBUF_INIT;
    int nkafka = 0;
    if (rc == 0)
        rc = sl__rec_pending(r, c, rec, &p, &nkafka, err);
    row->count = prepared + p.older;
    row->ok = row->count == 0;
    /* the failing parts' samples, else what each part looked at */
    sl_strbuf sb = SL_STRBUF_INIT;
    if (pg && (row->ok || prepared))
        sl_strbuf_append(&sb, pg);
    if (p.older)
        sl_strbuf_appendf(&sb, "%s%s", sb.len ? "; " : "", p.older_sample.buf);
    else if (nkafka && row->ok)
        sl_strbuf_appendf(&sb, "%sno pending Kafka transaction up to checkpoint %" PRId64 "%s",
                          sb.len ? "; " : "", c->id,
                          c->trigger_known ? "" : " (dated by its seal: its trigger unknown)");
    if (p.newer && row->ok)
        sl_strbuf_appendf(&sb, "; in flight: %s", p.newer_sample.buf);
    if (!sb.len)
        sl_strbuf_appendf(&sb, "%s: no prepared transactions", r->ledger->name);
    row->sample = sl_strbuf_detach(&sb);
    sl_strbuf_free(&sb);
    sl_strbuf_free(&p.older_sample);
    sl_strbuf_free(&p.newer_sample);
    sl_free(pg);
    return rc;
}

int sl__rec_job_checks(sl__rec *r, sl__rec_row *rows, sl_error *err)
{
    const sl_stmt *st = r->st;
    json_t *rec = NULL;
    if (sl__job_info(r->s->eng, st->job, &rec, err) != 0)
        return -1;
    if (!rec)
        return sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, st->job_pos,
                            "job \"%s\" does not exist", st->job);
    sl__rec_chk c;
    memset(&c, 0, sizeof c);
    if (sl__rec_chk_read(r->s, st->job, &c, err) != 0) {
        sl_strbuf_free(&c.positions);
        json_decref(rec);
        return -1;
    }
    const char *topic = r->bound ? sl_kvlist_get(r->source->def->options, "topic") : NULL;
    rows[0].check = "input_boundary";
    rows[0].ok = true;
    rows[0].sample = sl_strdup(r->input.len ? r->input.buf : "the source's files as listed now");
    sl__rec_recovery(&c, topic, r->input.buf, &rows[1]);
    int rc = sl__rec_commit(r, &c, rec, &rows[2], err);
    sl__rec_watermark(r, &c, &rows[3]);
    sl_strbuf_free(&c.positions);
    json_decref(rec);
    return rc;
}
