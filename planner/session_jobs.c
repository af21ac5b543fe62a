/*
** session_jobs.c — one job in full (DESCRIBE JOB / SHOW JOB, and
** sl_engine_job_json for other front ends) and DROP JOB.
**
** A job's figures come from its record (jobs/<name>/_job.json, written by
** session_run.c when the job starts and ends) overlaid, while it runs, with
** the registry's live ones (sl__job_live_json): status, start, rows, the
** recent rate, the history of its newest checkpoints (epoch, time,
** duration, size on disk) and the causes of its restarts.
**
** DROP JOB 'name' [WITH SAVEPOINTS] removes a job that does not run: its
** checkpoints (its savepoints too when asked) and its record. Exactly-once
** output must stay exactly-once afterwards:
**   - a job that failed or whose process died may hold a decided checkpoint
**     whose output is not committed yet (the next run commits it): with
**     exactly-once sinks it is refused (55000);
**   - a job's epochs are numbered from 1, and its exactly-once sinks name
**     what they committed by the job's name and epoch (part files, a
**     transactional id, a progress row): a new job of the same name would
**     take the old epochs for its own. So when the job had exactly-once
**     sinks, or savepoints are kept, a record with status DROPPED stays as a
**     tombstone: the name stays taken (a new INSERT under it is refused
**     with 55000), SHOW JOBS no longer lists it. Otherwise the job's
**     directory goes entirely and the name is free. DROP JOB ... WITH
**     SAVEPOINTS of a dropped job removes the savepoints it kept.
**
** Main routines: sl__show_job, sl__drop_job_stmt, sl__job_info,
** sl__job_dropped_check, sl_engine_job_json, sl_engine_job_names.
*/
#include "session_int.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SL__DROPPED "DROPPED"

static bool sl__is_dropped(json_t *rec)
{
    const char *status = json_string_value(json_object_get(rec, "status"));
    return status && strcmp(status, SL__DROPPED) == 0;
}

int sl__job_info(sl_engine *eng, const char *name, json_t **out, sl_error *err)
{
    *out = NULL;
    char *dir = sl_chk_job_dir(eng->data_dir, name);
    char *path = sl_path_join(dir, "_job.json");
    json_t *o = NULL;
    int rc = sl__job_record_read(path, &o, err);
    sl_free(path);
    sl_free(dir);
    if (rc != 0)
        return -1;
    if (o && sl__is_dropped(o)) {
        json_decref(o);
        return 0;
    }
    json_t *live = o ? sl__job_live_json(eng, name) : NULL;
    if (live) {
        json_object_update(o, live);
        json_decref(live);
    } else if (o) {
        const char *status = json_string_value(json_object_get(o, "status"));
        if (status && strcmp(status, "RUNNING") == 0) /* no job runs it: its process died */
            json_object_set_new(o, "status", json_string("INTERRUPTED"));
        json_object_del(o, "resume"); /* how it starts again: settings, not figures */
    }
    *out = o;
    return 0;
}

int sl__job_dropped_check(sl_engine *eng, const char *name, sl_error *err)
{
    char *dir = sl_chk_job_dir(eng->data_dir, name);
    char *path = sl_path_join(dir, "_job.json");
    json_t *o = NULL;
    sl_error ignored = SL_ERROR_INIT; /* a damaged record: the start reports it */
    sl__job_record_read(path, &o, &ignored);
    sl_error_reset(&ignored);
    int rc = 0;
    if (o && sl__is_dropped(o)) {
        rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                          "job name \"%s\" belongs to a dropped job", name);
        sl_error_detail(err, "Its exactly-once sinks hold its epochs (or its savepoints are "
                             "kept in jobs/%s/): a new job under that name would take them "
                             "for its own.",
                        name);
        sl_error_hint(err, "SET 'pipeline.name' to another name.");
    }
    json_decref(o);
    sl_free(path);
    sl_free(dir);
    return rc;
}

char *sl_engine_job_json(sl_engine *eng, const char *name, sl_error *err)
{
    if (sl_job_name_check(name, -1, err) != 0)
        return NULL;
    json_t *o = NULL;
    if (sl__job_info(eng, name, &o, err) != 0)
        return NULL;
    if (!o) {
        sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, -1, "job \"%s\" does not exist", name);
        return NULL;
    }
    json_object_del(o, SL_CHECKSUM_KEY);
    char *text = json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    char *copy = text ? sl_strdup(text) : NULL;
    free(text);
    if (!copy)
        sl_error_set(err, SL_ERR_INTERNAL, -1, "out of memory");
    return copy;
}

sl_list *sl_engine_job_names(sl_engine *eng)
{
    char *jobs = sl_path_join(eng->data_dir, "jobs");
    sl_list *names = sl__job_dir_names(jobs);
    sl_list *out = sl_list_new();
    for (int i = 0; i < names->n; i++) {
        json_t *o = NULL;
        sl_error ignored = SL_ERROR_INIT;
        if (sl__job_info(eng, names->items[i], &o, &ignored) == 0 && o)
            sl_list_push(out, sl_strdup(names->items[i]));
        sl_error_reset(&ignored);
        json_decref(o);
    }
    sl_list_free(names, sl_free);
    sl_free(jobs);
    return out;
}

/* ------------------------------------------------------------------------
** DESCRIBE JOB
*/

void sl__fmt_time(const sl_tz *tz, int64_t ns, char *buf, size_t n)
{
    int64_t local = ns;
    if (tz)
        sl_tz_to_local(tz, ns, &local);
    char tmp[64];
    sl_ts_format(local, 3, tmp);
    snprintf(buf, n, "%s", tmp);
}

void sl__fmt_duration(int64_t ms, char *buf, size_t n)
{
    int64_t s = ms / 1000;
    if (s >= 86400)
        snprintf(buf, n, "%lldd %02lldh %02lldm", (long long)(s / 86400),
                 (long long)(s % 86400 / 3600), (long long)(s % 3600 / 60));
    else if (s >= 3600)
        snprintf(buf, n, "%lldh %02lldm %02llds", (long long)(s / 3600),
                 (long long)(s % 3600 / 60), (long long)(s % 60));
    else if (s >= 60)
        snprintf(buf, n, "%lldm %02llds", (long long)(s / 60), (long long)(s % 60));
    else
        snprintf(buf, n, "%lld.%03llds", (long long)s, (long long)(ms % 1000));
}

static void sl__prop(sl__table_out *t, const char *key, const char *value)
{
    char *v = value ? sl_strdup(value) : NULL; /* a text's last newline ends no line */
    size_t n = v ? strlen(v) : 0;
    while (n > 0 && v[n - 1] == '\n')
        v[--n] = '\0';
    const char *vals[] = {key, v};
    sl__result_row(t, vals);
    sl_free(v);
}

static void sl__prop_int(sl__table_out *t, json_t *o, const char *label, const char *key)
{
    json_t *v = json_object_get(o, key);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
    sl__prop(t, label, json_is_integer(v) ? buf : NULL);
}

static void sl__prop_str(sl__table_out *t, json_t *o, const char *label, const char *key)
{
    sl__prop(t, label, json_string_value(json_object_get(o, key)));
}

int sl__show_job(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    if (sl_job_name_check(st->name, st->name_pos, err) != 0)
        return -1;
    json_t *o = NULL;
    if (sl__job_info(s->eng, st->name, &o, err) != 0)
        return -1;
    if (!o) {
        sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, st->name_pos, "job \"%s\" does not exist",
                     st->name);
        sl_error_hint(err, "SHOW JOBS lists the jobs.");
        return -1;
    }
    sl_tz *tz = NULL;
    if (sl__time_zone(s, &tz, err) != 0) {
        json_decref(o);
        return -1;
    }
    const char *cols[] = {"property", "value"};
    sl__table_out t;
    sl__result_begin(&t, out, 2, cols);
    char buf[256];
    sl__prop_str(&t, o, "job name", "name");
    const char *status = json_string_value(json_object_get(o, "status"));
    bool running = status && strcmp(status, "RUNNING") == 0;
    sl__prop(&t, "status", status);
    json_t *e = json_object_get(o, "error");
    if (e) {
        snprintf(buf, sizeof buf, "%s", json_string_value(json_object_get(e, "sqlstate")));
        char *f = sl_sprintf("%s: %s", buf, json_string_value(json_object_get(e, "message")));
        sl__prop(&t, "failure", f);
        sl_free(f);
    }
    sl__prop_str(&t, o, "statement", "statement");
    sl__prop_str(&t, o, "sink", "sink");
    sl__prop_str(&t, o, "guarantee", "guarantee");
    sl__prop_str(&t, o, "guarantees", "guarantees");
    int64_t started = json_integer_value(json_object_get(o, "started"));
    int64_t ended = running ? sl_now_nanos() : json_integer_value(json_object_get(o, "time"));
    if (started > 0) {
        sl__fmt_time(tz, started, buf, sizeof buf);
        sl__prop(&t, "started", buf);
        sl__fmt_duration((ended - started) / SL_NANOS_PER_MILLI, buf, sizeof buf);
        sl__prop(&t, running ? "uptime" : "ran for", buf);
    }
    if (!running && ended > 0) {
        sl__fmt_time(tz, ended, buf, sizeof buf);
        sl__prop(&t, "ended", buf);
    }
    sl__prop_int(&t, o, "rows in", "rows_in");
    sl__prop_int(&t, o, "rows out", "rows_out");
    sl__prop_int(&t, o, "late rows", "rows_late");
    sl__prop_int(&t, o, "skipped rows", "rows_skipped");
    if (running) {
        snprintf(buf, sizeof buf, "%.1f", json_number_value(json_object_get(o, "rate")));
        sl__prop(&t, "rows/s", buf);
    }
    sl__prop_int(&t, o, "conflicts", "conflicts");
    sl__prop_str(&t, o, "open transactions", "open_transactions");
    sl__prop_int(&t, o, "last checkpoint", "last_checkpoint");
    json_t *chks = json_object_get(o, "checkpoints");
    for (size_t i = 0; i < json_array_size(chks); i++) {
        json_t *c = json_array_get(chks, i);
        char when[64], label[48];
        sl__fmt_time(tz, json_integer_value(json_object_get(c, "time")), when, sizeof when);
        snprintf(label, sizeof label, "checkpoint %lld",
                 (long long)json_integer_value(json_object_get(c, "epoch")));
        snprintf(buf, sizeof buf, "at %s, took %lld ms, %lld bytes", when,
                 (long long)json_integer_value(json_object_get(c, "duration_ms")),
                 (long long)json_integer_value(json_object_get(c, "bytes")));
        sl__prop(&t, label, buf);
    }
    sl__prop_int(&t, o, "restarts", "restarts");
    json_t *fails = json_object_get(o, "failures");
    for (size_t i = 0; i < json_array_size(fails); i++) {
        json_t *f = json_array_get(fails, i);
        char when[64], label[32];
        sl__fmt_time(tz, json_integer_value(json_object_get(f, "time")), when, sizeof when);
        snprintf(label, sizeof label, "restart %zu", i + 1);
        char *v = sl_sprintf("at %s after %s: %s", when,
                             json_string_value(json_object_get(f, "sqlstate")),
                             json_string_value(json_object_get(f, "message")));
        sl__prop(&t, label, v);
        sl_free(v);
    }
    sl__prop_str(&t, o, "plan", "plan");
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", t.nrows);
    sl__result_complete(out, tag);
    sl_tz_free(tz);
    json_decref(o);
    return 0;
}

/* ------------------------------------------------------------------------
** DROP JOB
*/

/* Write the DROPPED record (atomically, checksummed as every record). */
static int sl__write_tombstone(const char *path, json_t *rec, sl_error *err)
{
    json_t *o = json_object();
    int bad = 0;
    bad |= json_object_set_new(o, "version", json_integer(SL__JOB_RECORD_VERSION));
    bad |= json_object_set(o, "name", json_object_get(rec, "name"));
    bad |= json_object_set_new(o, "status", json_string(SL__DROPPED));
    bad |= json_object_set_new(o, "time", json_integer(sl_now_nanos()));
    bad |= json_object_set(o, "sink", json_object_get(rec, "sink"));
    if (json_object_get(rec, "checkpoint_dir")) /* where kept savepoints are */
        bad |= json_object_set(o, "checkpoint_dir", json_object_get(rec, "checkpoint_dir"));
    bad |= json_object_set(o, "guarantee", json_object_get(rec, "guarantee"));
    json_t *targets = json_object_get(rec, "targets");
    bad |= json_object_set_new(o, "targets", targets ? json_deep_copy(targets) : json_array());
    bad |= json_object_set_new(o, SL_CHECKSUM_KEY, json_string(SL_CHECKSUM_ZERO));
    char *text = bad ? NULL : json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    int rc = 0;
    if (!text || sl_checksum_embed(text, strlen(text)) != 0)
        rc = sl_error_set(err, SL_ERR_INTERNAL, -1, "could not write the record \"%s\"", path);
    else
        rc = sl_fs_write_atomic(path, text, strlen(text), err);
    free(text);
    return rc;
}

int sl__drop_job_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    sl_engine *eng = s->eng;
    if (sl_job_name_check(st->name, st->name_pos, err) != 0)
        return -1;
    /* Held throughout: no job of that name starts while its files go. */
    pthread_mutex_lock(&eng->mu);
    if (sl__job_is_running_locked(eng, st->name)) {
        pthread_mutex_unlock(&eng->mu);
        sl_error_set(err, SL_ERR_OBJECT_IN_USE, st->name_pos, "job \"%s\" is running", st->name);
        sl_error_hint(err, "STOP JOB '%s' first.", st->name);
        return -1;
    }
    char *dir = sl_chk_job_dir(eng->data_dir, st->name);
    char *path = sl_path_join(dir, "_job.json");
    json_t *rec = NULL;
    int rc = sl__job_record_read(path, &rec, err);
    /* Its checkpoints, where its record says they are. */
    sl_chk_store *store = NULL;
    sl_error serr = SL_ERROR_INIT;
    if (rc == 0 && rec && sl__home_store_open(dir, s->config, &store, &serr) != 0 &&
        strcmp(serr.sqlstate, SL_ERR_UNDEFINED_FILE) != 0) {
        sl_error_move(err, &serr); /* S3 unreachable: nothing is dropped */
        rc = -1;
    }
    sl_error_reset(&serr);
    int64_t *ids = NULL;
    int nids = 0;
    if (rc == 0 && store && sl_chk_ids(store, &ids, &nids, err) != 0)
        rc = -1;
    sl_free(ids);
    /* A dropped job that kept savepoints can still drop them. */
    bool gone = rec && sl__is_dropped(rec) && !(st->with_savepoint && nids > 0);
    if (rc == 0 && (!rec || gone)) {
        rc = sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, st->name_pos, "job \"%s\" does not exist",
                          st->name);
        sl_error_hint(err, "SHOW JOBS lists the jobs.");
    }
    const char *status = rc == 0 ? json_string_value(json_object_get(rec, "status")) : NULL;
    bool exactly_once = json_array_size(json_object_get(rec, "targets")) > 0;
    bool unsettled = status && (strcmp(status, "RUNNING") == 0 || strcmp(status, "FAILED") == 0);
    if (rc == 0 && exactly_once && unsettled) {
        bool died = strcmp(status, "RUNNING") == 0;
        rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, st->name_pos,
                          "job \"%s\" %s: its exactly-once output may not be committed yet",
                          st->name, died ? "was interrupted (its process died)" : "failed");
        sl_error_detail(err, "Its newest checkpoint may be decided but not yet committed into "
                             "its sinks; the job's next run commits it. Dropping its "
                             "checkpoints would lose that output.");
        sl_error_hint(err, "Run its INSERT again under the same 'pipeline.name' and STOP JOB "
                           "it, then DROP JOB.");
    }
    int kept = 0, found = 0;
    if (rc == 0 && store)
        rc = sl_chk_drop(store, st->with_savepoint, &kept, &found, err);
    bool tombstone = exactly_once || kept > 0;
    if (rc == 0 && tombstone)
        rc = sl__write_tombstone(path, rec, err);
    else if (rc == 0 && store && sl_chk_unclaim(store, err) != 0) /* the name is free */
        rc = -1;
    else if (rc == 0)
        rc = sl_fs_remove_tree(dir, err);
    pthread_mutex_unlock(&eng->mu);
    if (rc == 0 && kept > 0)
        sl__notice(out, SL_SEV_NOTICE, "job \"%s\" dropped; its %d savepoint%s kept in %s", st->name,
                   kept, kept == 1 ? " is" : "s are", sl_chk_dir(store));
    sl_chk_close(store);
    json_decref(rec);
    sl_free(path);
    sl_free(dir);
    if (rc != 0)
        return -1;
    sl__result_complete(out, "DROP JOB");
    return 0;
}
