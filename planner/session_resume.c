/*
** session_resume.c — jobs that start again when the engine starts again
** (sluice serve: jobs belong to the server and survive its restarts).
**
** In an engine that resumes jobs (sl_engine_set_resume_jobs), a background
** INSERT job's record jobs/<name>/_job.json holds, while the job runs and
** after the engine's shutdown stopped it, a "resume" object:
**
**   {"statement": "INSERT INTO ...",          its canonical text
**    "settings": {"key": "value", ...},        the session's SET values
**    "views": ["CREATE TEMPORARY VIEW ..."]}   the session's temporary views
**
** (session_run.c writes it; STOP JOB, an end or a failure drop it). None of
** it holds a secret: options live in the catalog, and a statement or
** setting that would carry one makes the job not resumable (logged).
**
** sl_engine_resume_jobs reads every record with one and starts the job
** again in a fresh session: the settings (with 'pipeline.name' = the job's
** name, so it is the same job: its own checkpoints and transactional ids),
** the views, then the statement, in the background. A job that has a
** decided checkpoint of its own resumes from its newest; its first
** 'execution.savepoint.path' is left out then (session_branch.c, rule 1).
** When it cannot start (a table dropped, a setting no longer valid), its
** record says FAILED with the reason, and it is not tried again.
**
** Main routines: sl__resume_recipe, sl_engine_set_resume_jobs,
** sl_engine_resume_jobs.
*/
#include "session_int.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sl_engine_set_resume_jobs(sl_engine *eng, bool on)
{
    pthread_mutex_lock(&eng->mu);
    eng->resume_jobs = on;
    pthread_mutex_unlock(&eng->mu);
}

/* st printed so that parsing it gives st again; NULL when the engine's
** secret rule would redact a part of it (the text would hold a secret). */
static char *sl__print_plain(const sl_stmt *st)
{
    sl_strbuf plain = SL_STRBUF_INIT, red = SL_STRBUF_INIT;
    sl_stmt_print(&plain, st, NULL, NULL);
    sl_stmt_print(&red, st, sl_option_secret_fn, NULL);
    bool same = plain.len == red.len && memcmp(sl_strbuf_cstr(&plain), sl_strbuf_cstr(&red),
                                               plain.len) == 0;
    sl_strbuf_free(&red);
    if (!same) {
        sl_strbuf_free(&plain);
        return NULL;
    }
    return sl_strbuf_detach(&plain);
}

json_t *sl__resume_recipe(sl_session *s, const sl_stmt *st, const char *name)
{
    const char *why = NULL;
    json_t *o = json_object();
    char *text = sl__print_plain(st);
    if (!text)
        why = "its statement holds a secret option value";
    else
        json_object_set_new(o, "statement", json_string(text));
    sl_free(text);
    json_t *settings = json_object();
    for (int i = 0; !why && i < s->config->n; i++) {
        const sl_kv *kv = &s->config->items[i];
        if (sl_option_is_secret(kv->key))
            why = "a setting of its session is secret";
        else if (kv->value)
            json_object_set_new(settings, kv->key, json_string(kv->value));
    }
    json_object_set_new(o, "settings", settings);
    json_t *views = json_array();
    for (int i = 0; !why && i < sl_list_len(s->tviews); i++) {
        const sl_view *v = sl_list_get(s->tviews, i);
        char *def = sl__print_plain(v->def);
        if (!def)
            why = "a temporary view of its session holds a secret option value";
        else
            json_array_append_new(views, json_string(def));
        sl_free(def);
    }
    json_object_set_new(o, "views", views);
    if (why) {
        sl_log(SL_LOG_WARN, "job \"%s\" will not resume by itself when the server starts "
               "again: %s", name, why);
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ------------------------------------------------------------------------
** Resuming
*/

/* A resumed statement's messages ("job \"x\" submitted", warnings) go to
** the engine's log. */
static void sl__resume_notice(void *ctx, const sl_error *msg)
{
    sl_engine *eng = ctx;
    pthread_mutex_lock(&eng->mu);
    sl_engine_log_fn fn = eng->log;
    void *lctx = eng->log_ctx;
    pthread_mutex_unlock(&eng->mu);
    if (fn)
        fn(lctx, msg);
    else
        sl_log(msg->severity == SL_SEV_WARNING ? SL_LOG_WARN : SL_LOG_INFO, "%s", msg->message);
}

/* Whether job name has a sealed checkpoint of its own. */
static bool sl__has_checkpoint(sl_engine *eng, const sl_kvlist *opts, const char *name)
{
    sl_chk_store *st = NULL;
    int64_t id = -1;
    sl_error ignored = SL_ERROR_INIT;
    if (sl__job_store_open(eng, opts, name, &st, &ignored) == 0)
        sl_chk_latest(st, &id, &ignored);
    sl_chk_close(st);
    sl_error_reset(&ignored);
    return id >= 0;
}

/* Start job name again from its record's resume object r. */
static int sl__resume_one(sl_engine *eng, const char *name, const json_t *r, sl_error *err)
{
    const char *stmt = json_string_value(json_object_get(r, "statement"));
    json_t *settings = json_object_get(r, "settings");
    json_t *views = json_object_get(r, "views");
    if (!stmt || !json_is_object(settings) || (views && !json_is_array(views)))
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                            "its record's resume object lacks its statement or settings");
    sl_session *s = sl_session_new(eng);
    sl_session_set_dml_sync(s, false);
    int rc = 0;
    const char *key;
    json_t *v;
    json_object_foreach(settings, key, v)
    {
        const char *value = json_string_value(v);
        if (rc == 0 && (!value || sl_config_check(key, value, -1, -1, err) != 0)) {
            if (!value)
                sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "setting '%s' is not a string", key);
            rc = -1;
        }
        if (rc == 0)
            sl_kvlist_set(s->config, key, value, -1, -1);
    }
    /* The same job, in the background. */
    sl_kvlist_set(s->config, "pipeline.name", name, -1, -1);
    sl_kvlist_set(s->config, "table.dml-sync", "false", -1, -1);
    /* It went on from its savepoint: it resumes from its own newest checkpoint. */
    if (sl_kvlist_get(s->config, "execution.savepoint.path") && sl__has_checkpoint(eng, s->config, name)) {
        sl_kvlist_remove(s->config, "execution.savepoint.path");
        sl_kvlist_remove(s->config, "execution.savepoint-restore-mode");
    }
    sl_result_sink out = {eng, NULL, NULL, sl__resume_notice, NULL, NULL};
    for (size_t i = 0; rc == 0 && i < json_array_size(views); i++) {
        const char *def = json_string_value(json_array_get(views, i));
        if (!def) {
            rc = sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "a view of its record is not text");
            break;
        }
        rc = sl_session_exec(s, def, strlen(def), &out, err);
        if (rc != 0) {
            char *msg = sl_sprintf("its temporary view could not be created again: %s",
                                   err->message);
            sl_free(err->message);
            err->message = msg;
        }
    }
    if (rc == 0)
        rc = sl_session_exec(s, stmt, strlen(stmt), &out, err);
    sl_session_free(s);
    return rc;
}

/* The record o (at path) of a job that could not resume: FAILED, with why,
** and without its resume object. Best effort (logged). */
static void sl__resume_failed(const char *path, json_t *o, const sl_error *why)
{
    json_object_set_new(o, "status", json_string("FAILED"));
    json_object_set_new(o, "time", json_integer(sl_now_nanos()));
    json_object_del(o, "resume");
    json_t *e = json_object();
    json_object_set_new(e, "sqlstate", json_string(why->sqlstate));
    json_object_set_new(e, "message", json_string(why->message ? why->message : ""));
    json_object_set_new(o, "error", e);
    if (json_object_get(o, "version"))
        json_object_set_new(o, SL_CHECKSUM_KEY, json_string(SL_CHECKSUM_ZERO));
    char *text = json_dumps(o, JSON_PRESERVE_ORDER);
    sl_error err = SL_ERROR_INIT;
    if (!text || (json_object_get(o, "version") && sl_checksum_embed(text, strlen(text)) != 0))
        sl_error_set(&err, SL_ERR_INTERNAL, -1, "a value is not valid UTF-8, or memory ran out");
    if (sl_error_isset(&err) || sl_fs_write_atomic(path, text, strlen(text), &err) != 0)
        sl_log(SL_LOG_WARN, "could not write the job record %s: %s", path, err.message);
    sl_error_reset(&err);
    free(text);
}

int sl_engine_resume_jobs(sl_engine *eng)
{
    char *jobs = sl_path_join(eng->data_dir, "jobs");
    sl_list *dirs = sl__job_dir_names(jobs);
    int resumed = 0;
    for (int i = 0; i < dirs->n; i++) {
        char *dir = sl_path_join(jobs, dirs->items[i]);
        char *path = sl_path_join(dir, "_job.json");
        json_t *o = NULL;
        sl_error err = SL_ERROR_INIT;
        if (sl__job_record_read(path, &o, &err) != 0)
            sl_log(SL_LOG_WARN, "%s%s%s", err.message, err.detail ? ": " : "",
                   err.detail ? err.detail : "");
        sl_error_reset(&err);
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *status = json_string_value(json_object_get(o, "status"));
        json_t *r = json_object_get(o, "resume");
        bool again = name && status && r &&
                     (strcmp(status, "RUNNING") == 0 || strcmp(status, "STOPPED") == 0);
        if (again && !sl__job_is_running(eng, name)) {
            sl_log(SL_LOG_INFO, "job \"%s\" resumes: %s", name,
                   strcmp(status, "RUNNING") == 0
                       ? "it was running when the server ended without stopping it"
                       : "the server's shutdown stopped it with a savepoint");
            json_incref(r);
            int rc = sl__resume_one(eng, name, r, &err);
            json_decref(r);
            if (rc == 0) {
                resumed++;
            } else {
                sl_log(SL_LOG_ERROR, "job \"%s\" could not resume: %s%s%s (SQLSTATE %s); it "
                       "is FAILED and will not be tried again",
                       name, err.message, err.detail ? ": " : "", err.detail ? err.detail : "",
                       err.sqlstate);
                /* Its record again: a start that failed may have written one. */
                json_t *now = NULL;
                sl_error ignored = SL_ERROR_INIT;
                if (sl__job_record_read(path, &now, &ignored) == 0 && now &&
                    json_object_get(now, "resume"))
                    sl__resume_failed(path, now, &err);
                json_decref(now);
                sl_error_reset(&ignored);
            }
            sl_error_reset(&err);
        }
        json_decref(o);
        sl_free(path);
        sl_free(dir);
    }
    sl_list_free(dirs, sl_free);
    sl_free(jobs);
    if (resumed > 0)
        sl_log(SL_LOG_INFO, "%d job%s resumed", resumed, resumed == 1 ? "" : "s");
    return resumed;
}
