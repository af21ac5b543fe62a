/*
** session_show.c — SHOW (tables, views, connectors, functions, jobs, CREATE
** statements), DESCRIBE and EXPLAIN: catalog objects, job records and plans
** turned into result rows. Secret option values (sl_option_is_secret) are
** redacted wherever a statement's text is shown.
**
** Main routines: sl__show_stmt, sl__describe_stmt, sl__explain_stmt.
*/
#include "session_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
** SHOW / DESCRIBE
*/

static void sl__names_result(const sl_result_sink *out, const char *column, sl_list *names)
{
    sl__table_out t;
    const char *cols[] = {column};
    sl__result_begin(&t, out, 1, cols);
    for (int i = 0; i < names->n; i++) {
        const char *vals[] = {names->items[i]};
        sl__result_row(&t, vals);
    }
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", names->n);
    sl__result_complete(out, tag);
}

int sl__strcmp_v(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int sl__show_connectors(const sl_result_sink *out)
{
    sl__table_out t;
    const char *cols[] = {"name",          "source",    "sink",        "replayable",
                          "max guarantee", "mechanism", "commit role", "default guarantee",
                          "updates",       "description"};
    sl__result_begin(&t, out, 10, cols);
    int n;
    const sl_connector *const *all = sl_connectors(&n);
    for (int i = 0; i < n; i++) {
        const sl_connector_caps *c = &all[i]->caps;
        const char *vals[] = {all[i]->name,
                              c->source ? "yes" : "no",
                              c->sink ? "yes" : "no",
                              c->source ? (c->source_replayable ? "yes" : "no") : "",
                              c->sink ? sl_guarantee_name(c->sink_max) : "",
                              c->sink ? sl_mechanism_name(c->sink_mech) : "",
                              c->sink ? sl_mechanism_role(c->sink_mech) : "",
                              c->sink ? sl_guarantee_name(c->sink_default) : "",
                              c->sink ? (c->sink_updates ? "yes" : "no") : "",
                              all[i]->description};
        sl__result_row(&t, vals);
    }
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", n);
    sl__result_complete(out, tag);
    return 0;
}

/* SHOW FUNCTIONS: every name the function registry answers to (aliases
** included), lower case and sorted, as Flink's column "function name". */
static void sl__show_functions(const sl_result_sink *out)
{
    sl_list *names = sl_list_new();
    int n;
    const char *const *all = sl_func_names(&n);
    for (int i = 0; i < n; i++) {
        char *name = sl_strdup(all[i]);
        for (char *c = name; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        sl_list_push(names, name);
    }
    if (names->n > 1)
        qsort(names->items, (size_t)names->n, sizeof(void *), sl__strcmp_v);
    sl__names_result(out, "function name", names);
    sl_list_free(names, sl_free);
}

static int sl__show_create(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                           sl_error *err)
{
    const sl_stmt *def = NULL;
    if (st->show == SL_SHOW_CREATE_TABLE) {
        const sl_table *t = sl_catalog_table(sl__cat(s), st->name);
        if (!t) {
            sl_binder b = sl__binder(s, err);
            if (sl_binder_view(&b, st->name)) {
                sl_error_set(err, SL_ERR_WRONG_OBJECT_TYPE, st->name_pos, "\"%s\" is a view",
                             st->name);
                sl_error_hint(err, "Use SHOW CREATE VIEW.");
                return -1;
            }
            return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos,
                                "table \"%s\" does not exist", st->name);
        }
        def = t->def;
    } else {
        sl_binder b = sl__binder(s, err);
        const sl_view *v = sl_binder_view(&b, st->name);
        if (!v)
            return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos,
                                "view \"%s\" does not exist", st->name);
        def = v->def;
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_stmt_print(&sb, def, sl_option_secret_fn, NULL);
    sl__table_out t;
    const char *cols[] = {"create statement"};
    sl__result_begin(&t, out, 1, cols);
    const char *vals[] = {sl_strbuf_cstr(&sb)};
    sl__result_row(&t, vals);
    sl_strbuf_free(&sb);
    sl__result_complete(out, "SHOW 1");
    return 0;
}

/* SHOW JOBS: one row per jobs/<name>/_job.json, sorted by name; a running
** job with its live counters; a damaged record is a warning naming it; a
** dropped job's (session_jobs.c) is not listed. Counts are BIGINT, the rate
** DOUBLE (the shell right-aligns numbers). */
static int sl__show_jobs(sl_session *s, const sl_result_sink *out, sl_error *err)
{
    static const char *const cols[] = {"job name",  "status",   "sink",      "guarantee",
                                       "checkpoint", "rows in",  "rows out",  "late rows",
                                       "skipped rows", "restarts", "conflicts",
                                       "open transactions", "started", "uptime", "rows/s",
                                       "last checkpoint at", "failure", "warning"};
    enum { NCOLS = 18 };
    sl_type types[NCOLS];
    for (int i = 0; i < NCOLS; i++)
        types[i] = i >= 4 && i <= 10 ? sl_type_make(SL_TYPE_BIGINT)
                   : i == 12         ? sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0)
                   : i == 14         ? sl_type_make(SL_TYPE_DOUBLE)
                   : i == 15         ? sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0)
                                     : sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    sl_tz *tz = NULL;
    if (sl__time_zone(s, &tz, err) != 0)
        return -1;
    sl__table_out t;
    sl__result_begin_typed(&t, out, NCOLS, cols, types);
    char *jobs = sl_path_join(s->eng->data_dir, "jobs");
    sl_list *names = sl__job_dir_names(jobs);
    int nshown = 0;
    for (int i = 0; i < names->n; i++) {
        char *dir = sl_path_join(jobs, names->items[i]);
        char *path = sl_path_join(dir, "_job.json");
        json_t *o = NULL;
        sl_error rerr = SL_ERROR_INIT;
        if (sl__job_record_read(path, &o, &rerr) != 0) /* not listed: named in a warning */
            sl__notice(out, SL_SEV_WARNING, "%s%s%s", rerr.message, rerr.detail ? ": " : "",
                       rerr.detail ? rerr.detail : "");
        sl_error_reset(&rerr);
        const char *st0 = json_string_value(json_object_get(o, "status"));
        if (st0 && strcmp(st0, "DROPPED") == 0) { /* a tombstone (session_jobs.c) */
            json_decref(o);
            o = NULL;
        }
        if (o) {
            const char *name = json_string_value(json_object_get(o, "name"));
            const char *status = json_string_value(json_object_get(o, "status"));
            sl_job_stats live = {0};
            bool running = name && sl__job_live(s->eng, name, &live);
            int64_t chk = json_is_integer(json_object_get(o, "last_checkpoint"))
                              ? json_integer_value(json_object_get(o, "last_checkpoint"))
                              : -1;
            bool died = !running && status && strcmp(status, "RUNNING") == 0;
            sl_chk_store *st = NULL;
            sl_error ignored = SL_ERROR_INIT;
            if (died && name && sl__job_store_open(s->eng, s->config, name, &st, &ignored) == 0)
                sl_chk_latest(st, &chk, &ignored);
            sl_chk_close(st);
            sl_error_reset(&ignored);
            char nums[7][24];
            const char *keys[6] = {"rows_in",      "rows_out", "rows_late",
                                   "rows_skipped", "restarts", "conflicts"};
            int64_t counts[6] = {live.life_rows_in,      live.life_rows_out, live.life_rows_late,
                                 live.life_rows_skipped, live.restarts,      live.life_conflicts};
            if (running)
                chk = live.last_checkpoint;
            snprintf(nums[0], sizeof nums[0], "%lld", (long long)chk);
            for (int k = 0; k < 6; k++) {
                json_t *v = json_object_get(o, keys[k]);
                if (!running)
                    counts[k] = json_is_integer(v) ? json_integer_value(v) : 0;
                snprintf(nums[k + 1], sizeof nums[k + 1], "%lld", (long long)counts[k]);
            }
            bool has_stats = running || json_object_get(o, "rows_in") != NULL;
            /* Another job writing one of its exactly-once sinks (session_branch.c). */
            const char *guarantee = json_string_value(json_object_get(o, "guarantee"));
            char *others = name ? sl__shared_note(s->eng->data_dir, name,
                                                  json_object_get(o, "targets"))
                                : NULL;
            char *shown = others ? sl_sprintf("%s; sink shared with job %s",
                                              guarantee ? guarantee : "?", others)
                                 : NULL;
            /* Start, uptime, rate, the newest checkpoint's time, why it failed. */
            json_t *info = NULL;
            sl_error ierr = SL_ERROR_INIT;
            if (name)
                sl__job_info(s->eng, name, &info, &ierr);
            sl_error_reset(&ierr);
            int64_t started = json_integer_value(json_object_get(info, "started"));
            char start_s[64] = "", up_s[64] = "", rate_s[32] = "", chk_s[64] = "";
            if (started > 0)
                sl__fmt_time(tz, started, start_s, sizeof start_s);
            if (started > 0 && running) /* how long an ended job ran: DESCRIBE JOB */
                sl__fmt_duration((sl_now_nanos() - started) / SL_NANOS_PER_MILLI, up_s, sizeof up_s);
            if (running)
                snprintf(rate_s, sizeof rate_s, "%.1f",
                         json_number_value(json_object_get(info, "rate")));
            json_t *chks = json_object_get(info, "checkpoints");
            json_t *lastc = json_array_get(chks, json_array_size(chks) - 1);
            if (lastc)
                sl__fmt_time(tz, json_integer_value(json_object_get(lastc, "time")), chk_s,
                             sizeof chk_s);
            json_t *fe = json_object_get(info, "error");
            char *failure = fe ? sl_sprintf("%s: %s",
                                            json_string_value(json_object_get(fe, "sqlstate")),
                                            json_string_value(json_object_get(fe, "message")))
                               : NULL;
            const char *vals[] = {name ? name : names->items[i],
                                  running ? "RUNNING" : died ? "INTERRUPTED" : status ? status : "?",
                                  json_string_value(json_object_get(o, "sink")),
                                  shown ? shown : guarantee,
                                  chk >= 0 ? nums[0] : NULL,
                                  has_stats ? nums[1] : NULL,
                                  has_stats ? nums[2] : NULL,
                                  has_stats ? nums[3] : NULL,
                                  has_stats ? nums[4] : NULL,
                                  has_stats ? nums[5] : NULL,
                                  has_stats ? nums[6] : NULL,
                                  running && live.open_txns[0] ? live.open_txns : NULL,
                                  started > 0 ? start_s : NULL,
                                  started > 0 && running ? up_s : NULL,
                                  running ? rate_s : NULL,
                                  lastc ? chk_s : NULL,
                                  failure,
                                  running ? (live.warning[0] ? live.warning : NULL)
                                          : json_string_value(json_object_get(o, "warning"))};
            sl__result_row(&t, vals);
            sl_free(failure);
            json_decref(info);
            sl_free(shown);
            sl_free(others);
            nshown++;
            json_decref(o);
        }
        sl_free(path);
        sl_free(dir);
    }
    sl_list_free(names, sl_free);
    sl_free(jobs);
    sl_tz_free(tz);
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", nshown);
    sl__result_complete(out, tag);
    return 0;
}

int sl__show_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    switch (st->show) {
    case SL_SHOW_TABLES: {
        sl_list *names = sl_catalog_table_names(sl__cat(s));
        sl__names_result(out, "table name", names);
        sl_list_free(names, sl_free);
        return 0;
    }
    case SL_SHOW_VIEWS: {
        sl_list *names = sl_catalog_view_names(s->eng->cat);
        for (int i = 0; i < sl_list_len(s->tviews); i++)
            sl_list_push(names, sl_strdup(((sl_view *)sl_list_get(s->tviews, i))->name));
        if (names->n > 1)
            qsort(names->items, (size_t)names->n, sizeof(void *), sl__strcmp_v);
        sl__names_result(out, "view name", names);
        sl_list_free(names, sl_free);
        return 0;
    }
    case SL_SHOW_JOBS:
        return sl__show_jobs(s, out, err);
    case SL_SHOW_JOB:
        return sl__show_job(s, st, out, err);
    case SL_SHOW_CONNECTORS:
        return sl__show_connectors(out);
    case SL_SHOW_CREATE_TABLE:
    case SL_SHOW_CREATE_VIEW:
        return sl__show_create(s, st, out, err);
    case SL_SHOW_FUNCTIONS:
        sl__show_functions(out);
        return 0;
    case SL_SHOW_CATALOGS:
    case SL_SHOW_DATABASES:
    case SL_SHOW_CURRENT_CATALOG:
    case SL_SHOW_CURRENT_DATABASE:
        return sl__flink_show(s, st, out, err);
    case SL_SHOW_USER_FUNCTIONS: {
        /* No user-defined functions exist: CREATE FUNCTION is refused. */
        sl_list *none = sl_list_new();
        sl__names_result(out, "function name", none);
        sl_list_free(none, sl_free);
        return 0;
    }
    }
    return sl_error_set(err, SL_ERR_INTERNAL, st->pos, "unknown SHOW");
}

/* DESCRIBE EXTENDED's rows after the columns: a "# name" row for each
** part of the table's definition (comment, partitioning, the connector's
** options, secrets redacted), its entries in the name and type columns. */
static void sl__describe_extended(sl__table_out *to, const sl_stmt *def)
{
    const char *blank[] = {"", "", "", "", "", "", ""};
    sl__result_row(to, blank);
    if (def->comment) {
        const char *vals[] = {"# comment", def->comment, "", "", "", "", ""};
        sl__result_row(to, vals);
    }
    if (sl_list_len(def->partition_by)) {
        sl_strbuf pb = SL_STRBUF_INIT;
        for (int i = 0; i < sl_list_len(def->partition_by); i++)
            sl_strbuf_appendf(&pb, "%s%s", i ? ", " : "",
                              ((const sl_ident *)sl_list_get(def->partition_by, i))->name);
        const char *vals[] = {"# partitioned by", sl_strbuf_cstr(&pb), "", "", "", "", ""};
        sl__result_row(to, vals);
        sl_strbuf_free(&pb);
    }
    const char *head[] = {"# options", "", "", "", "", "", ""};
    sl__result_row(to, head);
    for (int i = 0; def->options && i < def->options->n; i++) {
        const sl_kv *kv = &def->options->items[i];
        const char *vals[] = {kv->key, sl_option_is_secret(kv->key) ? SL_REDACTED : kv->value,
                              "", "", "", "", ""};
        sl__result_row(to, vals);
    }
}

int sl__describe_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                        sl_error *err)
{
    const sl_table *t = sl_catalog_table(sl__cat(s), st->name);
    const char *cols[] = {"name", "type", "null", "key", "extras", "watermark", "comment"};
    sl__table_out to;
    if (t) {
        sl_strbuf key = SL_STRBUF_INIT, wm = SL_STRBUF_INIT;
        if (t->npk) {
            sl_strbuf_append(&key, "PRI(");
            for (int i = 0; i < t->npk; i++)
                sl_strbuf_appendf(&key, "%s%s", i ? ", " : "", t->cols[t->pk[i]].name);
            sl_strbuf_append(&key, ")");
        }
        if (t->wm_col >= 0)
            sl_expr_print(&wm, t->def->wm_expr);
        sl__result_begin(&to, out, 7, cols);
        for (int i = 0; i < t->nall; i++) {
            sl_type ty = t->all[i].type;
            bool nn = ty.not_null;
            ty.not_null = false;
            char *tname = sl_type_to_string(ty);
            if (t->all[i].def && ty.id == SL_TYPE_ROW) {
                sl_strbuf rt = SL_STRBUF_INIT;
                sl_column_def_type_format(&rt, t->all[i].def, SL_TYPEFMT_NULLABLE);
                sl_free(tname);
                tname = sl_strbuf_detach(&rt);
            }
            const sl_expr *x = t->all[i].expr;
            bool proc = x && x->kind == SL_EXPR_FUNC && x->text &&
                        sl_strcasecmp(x->text, "PROCTIME") == 0;
            char *shown = i == t->wm_col ? sl_sprintf("%s *ROWTIME*", tname)
                          : proc         ? sl_sprintf("%s *PROCTIME*", tname)
                                         : sl_strdup(tname);
            bool in_pk = false;
            for (int k = 0; k < t->npk; k++)
                in_pk |= t->pk[k] == t->all[i].phys && t->all[i].phys >= 0;
            /* Flink: a computed column's extras are `AS expr` */
            sl_strbuf extras = SL_STRBUF_INIT;
            if (t->all[i].expr) {
                sl_strbuf_append(&extras, "AS ");
                sl_expr_print(&extras, t->all[i].expr);
            }
            if (t->all[i].def && t->all[i].def->metadata) /* `METADATA FROM 'k' VIRTUAL` */
                sl_column_def_meta_format(&extras, t->all[i].def);
            const char *vals[] = {t->all[i].name,
                                  shown,
                                  nn ? "FALSE" : "TRUE",
                                  in_pk ? sl_strbuf_cstr(&key) : "",
                                  sl_strbuf_cstr(&extras),
                                  i == t->wm_col ? sl_strbuf_cstr(&wm) : "",
                                  t->all[i].comment ? t->all[i].comment : ""};
            sl__result_row(&to, vals);
            sl_strbuf_free(&extras);
            sl_free(tname);
            sl_free(shown);
        }
        sl_strbuf_free(&key);
        sl_strbuf_free(&wm);
        if (st->sub)
            sl__describe_extended(&to, t->def);
        char tag[32];
        snprintf(tag, sizeof tag, "DESCRIBE %d", to.nrows);
        sl__result_complete(out, tag);
        return 0;
    }
    sl_binder b = sl__binder(s, err);
    const sl_view *v = sl_binder_view(&b, st->name);
    if (!v)
        return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos,
                            "table or view \"%s\" does not exist", st->name);
    sl_lp *lp = sl_bind_query(&b, v->def->query);
    if (!lp) {
        /* The view no longer binds (a table it reads was dropped or changed). */
        err->position = st->name_pos;
        return -1;
    }
    sl__result_begin(&to, out, 7, cols);
    for (int i = 0; i < lp->ncols; i++) {
        sl_type ty = lp->cols[i].type;
        bool nn = ty.not_null;
        ty.not_null = false;
        char *tname = sl_type_to_string(ty);
        char *shown = lp->cols[i].rowtime ? sl_sprintf("%s *%s*", tname,
                                                       lp->cols[i].rowtime == SL_PROCTIME
                                                           ? "PROCTIME"
                                                           : "ROWTIME")
                                          : sl_strdup(tname);
        const sl_ident *alias = i < sl_list_len(v->def->column_names)
                                    ? sl_list_get(v->def->column_names, i)
                                    : NULL;
        const char *vals[] = {alias ? alias->name : lp->cols[i].name, shown, nn ? "FALSE" : "TRUE",
                              "", "", "", ""};
        sl__result_row(&to, vals);
        sl_free(tname);
        sl_free(shown);
    }
    char tag[32];
    snprintf(tag, sizeof tag, "DESCRIBE %d", lp->ncols);
    sl_lp_free(lp);
    sl__result_complete(out, tag);
    return 0;
}

/* ------------------------------------------------------------------------
** EXPLAIN
*/

int sl__explain_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    sl_list *plans = sl_list_new();
    if (sl__plan(s, st->inner, plans, err) != 0) {
        sl_list_free(plans, sl__lp_free_v);
        return -1;
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, "== Logical Plan ==\n");
    for (int i = 0; i < plans->n; i++) {
        if (i)
            sl_strbuf_append_char(&sb, '\n');
        sl_lp_explain(&sb, plans->items[i]);
    }
    /* The job graph each plan runs as (or why it cannot run yet). */
    int parallelism = 1;
    if (sl__parallelism(s, &parallelism, err) != 0) {
        sl_strbuf_free(&sb);
        sl_list_free(plans, sl__lp_free_v);
        return -1;
    }
    sl_strbuf_append(&sb, "\n== Physical Plan ==\n");
    if (plans->n == 1 && sl_lp_reads_sysrel(plans->items[0])) {
        sl_strbuf_append(&sb, "BoundedQuery(catalog relations: each operator materialized in "
                              "the session, no job)\n");
    } else {
        bool batch = false; /* 'execution.runtime-mode' */
        sl_error berr = SL_ERROR_INIT;
        if (sl__batch_mode(s, plans, &batch, &berr) != 0)
            batch = false;
        sl_error_reset(&berr);
        sl_physical_opts o = {"explain",
                              NULL,
                              sl__duration_ms(s, "execution.checkpointing.interval"),
                              sl__duration_ms(s, "table.exec.state.ttl"),
                              parallelism,
                              sl__duration_ms(s, "table.exec.source.idle-timeout"),
                              sl__length_enforcer_of(s),
                              NULL,
                              NULL,
                              NULL,
                              NULL,
                              batch,
                              0,
                              NULL,
                              {false, false, 0},
                              sl__setting_bool(s, "table.optimizer.reuse-source-enabled", true),
                              sl__setting_bool(s, "table.optimizer.reuse-sub-plan-enabled", true),
                          NULL,
                          NULL};
        sl_side_table sides[SL_SIDE_MAX]; /* the side tables (no guarantee decided here) */
        o.nsides = sl__side_uses(s, plans, sides);
        o.sides = sides;
        o.backend = sl__state_backend(s);
        sl_physical *phys = NULL;
        sl_error perr = SL_ERROR_INIT;
        if (sl_physical_build_set((const sl_lp *const *)plans->items, plans->n, sl__cat(s), &o,
                                  &phys, &perr) == 0) {
            sl_physical_explain(&sb, phys);
            if (st->sub & SL_EXPLAIN_JSON_EXECUTION_PLAN) {
                char *json = sl_physical_json(phys);
                sl_strbuf_appendf(&sb, "\n== Physical Execution Plan ==\n%s\n", json);
                sl_free(json);
            }
        } else
            sl_strbuf_appendf(&sb, "(cannot run yet: %s)\n", perr.message);
        sl_physical_free(phys);
        sl_error_reset(&perr);
    }
    sl__gplan g;
    if (sl__resolve(s, plans, true, &g, out, err) != 0) {
        sl__gplan_free(&g);
        sl_strbuf_free(&sb);
        sl_list_free(plans, sl__lp_free_v);
        return -1;
    }
    if (g.job.nsinks > 0) {
        sl_strbuf_append_char(&sb, '\n');
        sl_guarantee_explain(&sb, &g.job, g.res);
    }
    sl__dedup_ttl(s, plans, &sb, NULL);
    sl__gplan_free(&g);
    sl_list_free(plans, sl__lp_free_v);
    if (st->sub & SL_EXPLAIN_ESTIMATED_COST)
        sl_strbuf_append(&sb, "\n== Estimated Cost ==\nnot estimated: Sluice's planner has no "
                              "cost model (no statistics of rows or sizes)\n");
    sl__result_lines(out, "plan", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    sl__result_complete(out, "EXPLAIN");
    return 0;
}

