/*
** session.c — the engine (one data directory) and sessions that execute
** statements: DDL against the catalog, SET/RESET, SHOW, DESCRIBE, EXPLAIN,
** and the binding of INSERT / queries (which need the runtime to run).
**
** Every statement's output goes through an sl_result_sink; this file is the
** only place that turns catalog objects and plans into result rows.
**
** Main routines: sl_engine_open, sl_session_exec.
*/
#include "planner_int.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sl_engine {
    char *data_dir;   /* the data directory */
    sl_catalog *cat;  /* its catalog */
};

struct sl_session {
    sl_engine *eng;     /* the engine */
    sl_kvlist *config;  /* SET values */
    sl_list *tviews;    /* temporary views (sl_view*) */
    volatile sig_atomic_t *interrupt; /* set by the caller's signal handler, or NULL */
};

/* ------------------------------------------------------------------------
** Engine and session lifetimes
*/

int sl_engine_open(const char *data_dir, sl_engine **out, sl_error *err)
{
    *out = NULL;
    sl_catalog *cat = NULL;
    if (sl_catalog_open(data_dir, &cat, err) != 0)
        return -1;
    sl_engine *eng = sl_calloc(1, sizeof *eng);
    eng->data_dir = sl_strdup(data_dir);
    eng->cat = cat;
    *out = eng;
    return 0;
}

void sl_engine_close(sl_engine *eng)
{
    if (!eng)
        return;
    sl_catalog_close(eng->cat);
    sl_free(eng->data_dir);
    sl_free(eng);
}

const char *sl_engine_data_dir(const sl_engine *eng)
{
    return eng->data_dir;
}

sl_session *sl_session_new(sl_engine *eng)
{
    sl_session *s = sl_calloc(1, sizeof *s);
    s->eng = eng;
    s->config = sl_kvlist_new();
    s->tviews = sl_list_new();
    return s;
}

static void sl__view_free_v(void *p)
{
    sl_view_free(p);
}

void sl_session_set_interrupt(sl_session *s, volatile sig_atomic_t *flag)
{
    s->interrupt = flag;
}

void sl_session_free(sl_session *s)
{
    if (!s)
        return;
    sl_kvlist_free(s->config);
    sl_list_free(s->tviews, sl__view_free_v);
    sl_free(s);
}

/* ------------------------------------------------------------------------
** Result helpers
*/

typedef struct sl__table_out {
    const sl_result_sink *out; /* where rows go */
    int ncols;                 /* columns */
    int nrows;                 /* rows sent */
    bool cancelled;            /* a callback asked to stop */
} sl__table_out;

static void sl__begin(sl__table_out *t, const sl_result_sink *out, int ncols,
                      const char *const *names)
{
    t->out = out;
    t->ncols = ncols;
    t->nrows = 0;
    t->cancelled = false;
    /* Catalog results are text: every column is a STRING. */
    sl_type *types = sl_calloc((size_t)ncols, sizeof(sl_type));
    for (int i = 0; i < ncols; i++)
        types[i] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    if (out && out->begin && out->begin(out->ctx, ncols, names, types) != 0)
        t->cancelled = true;
    sl_free(types);
}

static void sl__row(sl__table_out *t, const char *const *values)
{
    if (t->cancelled)
        return;
    t->nrows++;
    if (t->out && t->out->row && t->out->row(t->out->ctx, values) != 0)
        t->cancelled = true;
}

static void sl__complete(const sl_result_sink *out, const char *tag)
{
    if (out && out->complete)
        out->complete(out->ctx, tag);
}

static void sl__notice(const sl_result_sink *out, sl_severity sev, const char *fmt, ...)
    SL_PRINTF(3, 4);
static void sl__notice(const sl_result_sink *out, sl_severity sev, const char *fmt, ...)
{
    if (!out || !out->notice)
        return;
    sl_error n = SL_ERROR_INIT;
    n.severity = sev;
    snprintf(n.sqlstate, sizeof n.sqlstate, "%s", sev == SL_SEV_WARNING ? SL_ERR_WARNING : SL_ERR_SUCCESS);
    va_list ap;
    va_start(ap, fmt);
    n.message = sl_vsprintf(fmt, ap);
    va_end(ap);
    out->notice(out->ctx, &n);
    sl_error_reset(&n);
}

/* Send a list of lines as a one-column result. */
static void sl__lines(const sl_result_sink *out, const char *column, const char *text)
{
    sl__table_out t;
    const char *names[] = {column};
    sl__begin(&t, out, 1, names);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = sl_strndup(p, len);
        const char *vals[] = {line};
        sl__row(&t, vals);
        sl_free(line);
        p += len + (nl ? 1 : 0);
    }
}

/* ------------------------------------------------------------------------
** Name lookups
*/

static sl_binder sl__binder(sl_session *s, sl_error *err)
{
    sl_binder b = {s->eng->cat, s->tviews, err, 0};
    return b;
}

static int sl__tview_index(sl_session *s, const char *name)
{
    for (int i = 0; i < sl_list_len(s->tviews); i++)
        if (strcmp(((sl_view *)sl_list_get(s->tviews, i))->name, name) == 0)
            return i;
    return -1;
}

static bool sl__is_secret(const char *key, void *ctx)
{
    return sl_option_is_secret(key);
}

/* ------------------------------------------------------------------------
** DDL
*/

static int sl__create_table(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                            sl_error *err)
{
    const sl_catalog *cat = s->eng->cat;
    if (sl_catalog_table(cat, st->name) || sl_catalog_view(cat, st->name)) {
        if (st->if_not_exists) {
            sl__notice(out, SL_SEV_NOTICE, "table \"%s\" already exists, skipping", st->name);
            sl__complete(out, "CREATE TABLE");
            return 0;
        }
        return sl_error_set(err, SL_ERR_DUPLICATE_TABLE, st->name_pos,
                            sl_catalog_table(cat, st->name) ? "table \"%s\" already exists"
                                                            : "a view named \"%s\" already exists",
                            st->name);
    }
    sl_binder b = sl__binder(s, err);
    if (sl_bind_create_table(&b, st) != 0)
        return -1;
    sl_stmt *def = sl_stmt_dup(st);
    def->if_not_exists = false;
    if (sl_catalog_put_table(s->eng->cat, def, err) != 0)
        return -1;
    sl__complete(out, "CREATE TABLE");
    return 0;
}

static int sl__drop(sl_session *s, const sl_stmt *st, bool view, const sl_result_sink *out,
                    sl_error *err)
{
    const char *what = view ? "view" : "table";
    const char *tag = view ? "DROP VIEW" : "DROP TABLE";
    if (view) {
        int ti = sl__tview_index(s, st->name);
        if (ti >= 0) {
            sl_view_free(s->tviews->items[ti]);
            memmove(&s->tviews->items[ti], &s->tviews->items[ti + 1],
                    (size_t)(s->tviews->n - ti - 1) * sizeof(void *));
            s->tviews->n--;
            sl__complete(out, tag);
            return 0;
        }
        if (st->temporary) {
            if (st->if_exists)
                goto skip;
            return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos,
                                "temporary view \"%s\" does not exist", st->name);
        }
    }
    bool exists = view ? sl_catalog_view(s->eng->cat, st->name) != NULL
                       : sl_catalog_table(s->eng->cat, st->name) != NULL;
    if (!exists) {
        bool other = view ? sl_catalog_table(s->eng->cat, st->name) != NULL
                          : sl_binder_view(&(sl_binder){s->eng->cat, s->tviews, err, 0},
                                           st->name) != NULL;
        if (other) {
            sl_error_set(err, SL_ERR_WRONG_OBJECT_TYPE, st->name_pos, "\"%s\" is not a %s",
                         st->name, what);
            sl_error_hint(err, "Use DROP %s to remove it.", view ? "TABLE" : "VIEW");
            return -1;
        }
        if (st->if_exists)
            goto skip;
        return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos, "%s \"%s\" does not exist",
                            what, st->name);
    }
    if (sl_catalog_drop(s->eng->cat, st->name, view, err) != 0)
        return -1;
    sl__complete(out, tag);
    return 0;
skip:
    sl__notice(out, SL_SEV_NOTICE, "%s \"%s\" does not exist, skipping", what, st->name);
    sl__complete(out, tag);
    return 0;
}

static int sl__alter(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    const sl_table *t = sl_catalog_table(s->eng->cat, st->name);
    if (!t)
        return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos, "table \"%s\" does not exist",
                            st->name);
    sl_stmt *def = sl_stmt_dup(t->def);
    if (!def->options)
        def->options = sl_kvlist_new();
    for (int i = 0; st->options && i < st->options->n; i++) {
        const sl_kv *kv = &st->options->items[i];
        if (st->kind == SL_STMT_ALTER_SET) {
            sl_kvlist_set(def->options, kv->key, kv->value, kv->key_pos, kv->value_pos);
        } else if (strcmp(kv->key, "connector") == 0) {
            sl_stmt_free(def);
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                                "option 'connector' cannot be reset");
        } else if (!sl_kvlist_remove(def->options, kv->key)) {
            sl_stmt_free(def);
            return sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, kv->key_pos,
                                "option '%s' is not set on table \"%s\"", kv->key, st->name);
        }
    }
    /* Positions of options kept from the definition point into another text. */
    for (int i = 0; i < def->options->n; i++) {
        const sl_kv *mine = sl_kvlist_find(st->options, def->options->items[i].key);
        if (!mine || st->kind != SL_STMT_ALTER_SET) {
            def->options->items[i].key_pos = st->name_pos;
            def->options->items[i].value_pos = st->name_pos;
        }
    }
    def->options_pos = st->options_pos;
    sl_binder b = sl__binder(s, err);
    if (sl_bind_create_table(&b, def) != 0) {
        sl_stmt_free(def);
        return -1;
    }
    if (sl_catalog_put_table(s->eng->cat, def, err) != 0)
        return -1;
    sl__complete(out, "ALTER TABLE");
    return 0;
}

static int sl__create_view(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                           sl_error *err)
{
    bool exists = st->temporary ? sl__tview_index(s, st->name) >= 0
                                : (sl_catalog_view(s->eng->cat, st->name) ||
                                   sl_catalog_table(s->eng->cat, st->name));
    if (exists) {
        if (st->if_not_exists) {
            sl__notice(out, SL_SEV_NOTICE, "view \"%s\" already exists, skipping", st->name);
            sl__complete(out, "CREATE VIEW");
            return 0;
        }
        return sl_error_set(err, SL_ERR_DUPLICATE_TABLE, st->name_pos,
                            "a table or view named \"%s\" already exists", st->name);
    }
    sl_binder b = sl__binder(s, err);
    sl_lp *lp = sl_bind_query(&b, st->query);
    if (!lp)
        return -1;
    int rc = 0;
    int nnames = sl_list_len(st->column_names);
    if (st->column_names && nnames != lp->ncols) {
        const sl_ident *first = sl_list_get(st->column_names, 0);
        rc = sl_error_set(err, SL_ERR_SYNTAX, first->pos,
                          "view \"%s\" names %d columns but its query returns %d", st->name,
                          nnames, lp->ncols);
    }
    for (int i = 0; rc == 0 && i < lp->ncols; i++) {
        const char *ni = nnames ? ((sl_ident *)sl_list_get(st->column_names, i))->name
                                : lp->cols[i].name;
        for (int j = 0; j < i; j++) {
            const char *nj = nnames ? ((sl_ident *)sl_list_get(st->column_names, j))->name
                                    : lp->cols[j].name;
            if (strcmp(ni, nj) == 0) {
                rc = sl_error_set(err, SL_ERR_DUPLICATE_COLUMN, st->query->pos,
                                  "column \"%s\" specified more than once in view \"%s\"", ni,
                                  st->name);
                sl_error_hint(err, "Give the columns distinct aliases.");
                break;
            }
        }
    }
    sl_lp_free(lp);
    if (rc != 0)
        return -1;
    sl_stmt *def = sl_stmt_dup(st);
    def->if_not_exists = false;
    if (st->temporary) {
        sl_view *v = sl_calloc(1, sizeof *v);
        v->name = sl_strdup(def->name);
        v->temporary = true;
        v->def = def;
        sl_list_push(s->tviews, v);
    } else if (sl_catalog_put_view(s->eng->cat, def, err) != 0) {
        return -1;
    }
    sl__complete(out, "CREATE VIEW");
    return 0;
}

/* ------------------------------------------------------------------------
** SET / RESET
*/

static int sl__set(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    if (!st->name) {
        /* SET alone lists every parameter with its current value. */
        sl__table_out t;
        const char *names[] = {"key", "value"};
        sl__begin(&t, out, 2, names);
        int n;
        const sl_config_key *keys = sl_config_keys(&n);
        for (int i = 0; i < n; i++) {
            const char *v = sl_kvlist_get(s->config, keys[i].key);
            const char *vals[] = {keys[i].key, v ? v : keys[i].default_value};
            sl__row(&t, vals);
        }
        sl__complete(out, "SET");
        return 0;
    }
    const sl_kv *kv = st->options && st->options->n ? &st->options->items[0] : NULL;
    const char *value = kv ? kv->value : NULL;
    int value_pos = kv ? kv->value_pos : st->name_pos;
    if (!value)
        return sl_error_set(err, SL_ERR_SYNTAX, st->name_pos, "SET '%s' needs a value", st->name);
    if (sl_config_check(st->name, value, st->name_pos, value_pos, err) != 0)
        return -1;
    sl_kvlist_set(s->config, st->name, value, -1, -1);
    sl__complete(out, "SET");
    return 0;
}

static int sl__reset(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    if (!st->name) {
        sl_kvlist_free(s->config);
        s->config = sl_kvlist_new();
    } else {
        if (!sl_config_find(st->name))
            return sl_config_check(st->name, "", st->name_pos, st->name_pos, err);
        sl_kvlist_remove(s->config, st->name);
    }
    sl__complete(out, "RESET");
    return 0;
}

/* ------------------------------------------------------------------------
** SHOW / DESCRIBE
*/

static void sl__names_result(const sl_result_sink *out, const char *column, sl_list *names)
{
    sl__table_out t;
    const char *cols[] = {column};
    sl__begin(&t, out, 1, cols);
    for (int i = 0; i < names->n; i++) {
        const char *vals[] = {names->items[i]};
        sl__row(&t, vals);
    }
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", names->n);
    sl__complete(out, tag);
}

static int sl__cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int sl__show_connectors(const sl_result_sink *out)
{
    sl__table_out t;
    const char *cols[] = {"name", "source", "sink", "replayable", "max guarantee",
                          "mechanism", "updates", "description"};
    sl__begin(&t, out, 8, cols);
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
                              c->sink ? (c->sink_updates ? "yes" : "no") : "",
                              all[i]->description};
        sl__row(&t, vals);
    }
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", n);
    sl__complete(out, tag);
    return 0;
}

static int sl__show_create(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                           sl_error *err)
{
    const sl_stmt *def = NULL;
    if (st->show == SL_SHOW_CREATE_TABLE) {
        const sl_table *t = sl_catalog_table(s->eng->cat, st->name);
        if (!t) {
            if (sl_binder_view(&(sl_binder){s->eng->cat, s->tviews, err, 0}, st->name)) {
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
        const sl_view *v = sl_binder_view(&(sl_binder){s->eng->cat, s->tviews, err, 0}, st->name);
        if (!v)
            return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos,
                                "view \"%s\" does not exist", st->name);
        def = v->def;
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_stmt_print(&sb, def, sl__is_secret, NULL);
    sl__table_out t;
    const char *cols[] = {"create statement"};
    sl__begin(&t, out, 1, cols);
    const char *vals[] = {sl_strbuf_cstr(&sb)};
    sl__row(&t, vals);
    sl_strbuf_free(&sb);
    sl__complete(out, "SHOW 1");
    return 0;
}

/* SHOW JOBS: one row per jobs/<name>/_job.json, sorted by name. */
static int sl__show_jobs(sl_session *s, const sl_result_sink *out)
{
    static const char *const cols[] = {"job name",   "status",   "sink",      "guarantee",
                                       "checkpoint", "rows in",  "rows out",  "late rows",
                                       "skipped rows"};
    sl__table_out t;
    sl__begin(&t, out, 9, cols);
    char *jobs = sl_path_join(s->eng->data_dir, "jobs");
    sl_list *names = sl_list_new();
    DIR *d = opendir(jobs);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            sl_list_push(names, sl_strdup(de->d_name));
    if (d)
        closedir(d);
    if (names->n > 1)
        qsort(names->items, (size_t)names->n, sizeof(void *), sl__cmp_str);
    int shown = 0;
    for (int i = 0; i < names->n; i++) {
        char *dir = sl_path_join(jobs, names->items[i]);
        char *path = sl_path_join(dir, "_job.json");
        json_error_t jerr;
        json_t *o = json_load_file(path, 0, &jerr);
        if (o) {
            const char *name = json_string_value(json_object_get(o, "name"));
            const char *status = json_string_value(json_object_get(o, "status"));
            int64_t chk = json_is_integer(json_object_get(o, "last_checkpoint"))
                              ? json_integer_value(json_object_get(o, "last_checkpoint"))
                              : -1;
            bool died = status && strcmp(status, "RUNNING") == 0;
            sl_chk_store *st = NULL;
            sl_error ignored = SL_ERROR_INIT;
            if (died && name && sl_chk_open(s->eng->data_dir, name, &st, &ignored) == 0)
                sl_chk_latest(st, &chk, &ignored);
            sl_chk_close(st);
            sl_error_reset(&ignored);
            char nums[5][24];
            const char *keys[4] = {"rows_in", "rows_out", "rows_late", "rows_skipped"};
            snprintf(nums[0], sizeof nums[0], "%lld", (long long)chk);
            for (int k = 0; k < 4; k++) {
                json_t *v = json_object_get(o, keys[k]);
                snprintf(nums[k + 1], sizeof nums[k + 1], "%lld",
                         (long long)(json_is_integer(v) ? json_integer_value(v) : 0));
            }
            bool has_stats = json_object_get(o, "rows_in") != NULL;
            const char *vals[] = {name ? name : names->items[i],
                                  died ? "INTERRUPTED" : status ? status : "?",
                                  json_string_value(json_object_get(o, "sink")),
                                  json_string_value(json_object_get(o, "guarantee")),
                                  chk >= 0 ? nums[0] : NULL,
                                  has_stats ? nums[1] : NULL,
                                  has_stats ? nums[2] : NULL,
                                  has_stats ? nums[3] : NULL,
                                  has_stats ? nums[4] : NULL};
            sl__row(&t, vals);
            shown++;
            json_decref(o);
        }
        sl_free(path);
        sl_free(dir);
    }
    sl_list_free(names, sl_free);
    sl_free(jobs);
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", shown);
    sl__complete(out, tag);
    return 0;
}

static int sl__show(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    switch (st->show) {
    case SL_SHOW_TABLES: {
        sl_list *names = sl_catalog_table_names(s->eng->cat);
        sl__names_result(out, "table name", names);
        sl_list_free(names, sl_free);
        return 0;
    }
    case SL_SHOW_VIEWS: {
        sl_list *names = sl_catalog_view_names(s->eng->cat);
        for (int i = 0; i < sl_list_len(s->tviews); i++)
            sl_list_push(names, sl_strdup(((sl_view *)sl_list_get(s->tviews, i))->name));
        if (names->n > 1)
            qsort(names->items, (size_t)names->n, sizeof(void *), sl__cmp_str);
        sl__names_result(out, "view name", names);
        sl_list_free(names, sl_free);
        return 0;
    }
    case SL_SHOW_JOBS:
        return sl__show_jobs(s, out);
    case SL_SHOW_CONNECTORS:
        return sl__show_connectors(out);
    case SL_SHOW_CREATE_TABLE:
    case SL_SHOW_CREATE_VIEW:
        return sl__show_create(s, st, out, err);
    }
    return sl_error_set(err, SL_ERR_INTERNAL, st->pos, "unknown SHOW");
}

static int sl__describe(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                        sl_error *err)
{
    const sl_table *t = sl_catalog_table(s->eng->cat, st->name);
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
        sl__begin(&to, out, 7, cols);
        for (int i = 0; i < t->ncols; i++) {
            sl_type ty = t->cols[i].type;
            bool nn = ty.not_null;
            ty.not_null = false;
            char *tname = sl_type_to_string(ty);
            char *shown = i == t->wm_col ? sl_sprintf("%s *ROWTIME*", tname) : sl_strdup(tname);
            bool in_pk = false;
            for (int k = 0; k < t->npk; k++)
                in_pk |= t->pk[k] == i;
            const char *vals[] = {t->cols[i].name,
                                  shown,
                                  nn ? "FALSE" : "TRUE",
                                  in_pk ? sl_strbuf_cstr(&key) : "",
                                  "",
                                  i == t->wm_col ? sl_strbuf_cstr(&wm) : "",
                                  t->cols[i].comment ? t->cols[i].comment : ""};
            sl__row(&to, vals);
            sl_free(tname);
            sl_free(shown);
        }
        sl_strbuf_free(&key);
        sl_strbuf_free(&wm);
        char tag[32];
        snprintf(tag, sizeof tag, "DESCRIBE %d", t->ncols);
        sl__complete(out, tag);
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
    sl__begin(&to, out, 7, cols);
    for (int i = 0; i < lp->ncols; i++) {
        sl_type ty = lp->cols[i].type;
        bool nn = ty.not_null;
        ty.not_null = false;
        char *tname = sl_type_to_string(ty);
        char *shown = lp->cols[i].rowtime ? sl_sprintf("%s *ROWTIME*", tname) : sl_strdup(tname);
        const sl_ident *alias = i < sl_list_len(v->def->column_names)
                                    ? sl_list_get(v->def->column_names, i)
                                    : NULL;
        const char *vals[] = {alias ? alias->name : lp->cols[i].name, shown, nn ? "FALSE" : "TRUE",
                              "", "", "", ""};
        sl__row(&to, vals);
        sl_free(tname);
        sl_free(shown);
    }
    char tag[32];
    snprintf(tag, sizeof tag, "DESCRIBE %d", lp->ncols);
    sl_lp_free(lp);
    sl__complete(out, tag);
    return 0;
}

/* ------------------------------------------------------------------------
** INSERT, queries, EXPLAIN
*/

/* Bind a runnable statement (INSERT, statement set, query) into plans, one
** per sink (or one for a query). */
static int sl__plan(sl_session *s, const sl_stmt *st, sl_list *plans, sl_error *err)
{
    sl_binder b = sl__binder(s, err);
    switch (st->kind) {
    case SL_STMT_INSERT: {
        sl_lp *lp = sl_bind_insert(&b, st);
        if (!lp)
            return -1;
        sl_list_push(plans, lp);
        return sl_lp_analyze(lp, err);
    }
    case SL_STMT_QUERY: {
        sl_lp *lp = sl_bind_query(&b, st->query);
        if (!lp)
            return -1;
        sl_list_push(plans, lp);
        return sl_lp_analyze(lp, err);
    }
    case SL_STMT_STATEMENT_SET:
        if (sl_list_len(st->stmts) == 0)
            return sl_error_set(err, SL_ERR_SYNTAX, st->pos, "a statement set needs at least one INSERT");
        for (int i = 0; i < sl_list_len(st->stmts); i++) {
            const sl_stmt *ins = sl_list_get(st->stmts, i);
            if (ins->kind != SL_STMT_INSERT)
                return sl_error_set(err, SL_ERR_SYNTAX, ins->pos,
                                    "a statement set may only contain INSERT statements");
            sl_lp *lp = sl_bind_insert(&b, ins);
            if (!lp)
                return -1;
            sl_list_push(plans, lp);
            if (sl_lp_analyze(lp, err) != 0)
                return -1;
        }
        return 0;
    default:
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, st->pos,
                            "EXPLAIN supports INSERT, EXECUTE STATEMENT SET and queries");
    }
}

static void sl__lp_free_v(void *p)
{
    sl_lp_free(p);
}

static int sl__explain(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
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
    sl_list_free(plans, sl__lp_free_v);
    sl__lines(out, "plan", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    sl__complete(out, "EXPLAIN");
    return 0;
}

/* A job's identity: 'pipeline.name', else derived from the statement's
** canonical text, so running the same file again finds the same job. */
static char *sl__job_name(sl_session *s, const sl_stmt *st)
{
    const char *name = sl_kvlist_get(s->config, "pipeline.name");
    if (name)
        return sl_strdup(name);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_stmt_print(&sb, st, NULL, NULL);
    uint64_t h = sl_hash_bytes(sb.buf, sb.len, SL_HASH_INIT);
    sl_strbuf_free(&sb);
    return sl_sprintf("insert-into-%s-%016llx", st->name ? st->name : "query",
                      (unsigned long long)h);
}

/* A duration setting in ms (SET validated it; the defaults parse). */
static int64_t sl__duration_ms(sl_session *s, const char *key)
{
    const char *v = sl_kvlist_get(s->config, key);
    const sl_config_key *k = sl_config_find(key);
    int64_t ms = 0;
    sl_error ignored = SL_ERROR_INIT;
    if (sl_option_parse_duration_ms(v ? v : k->default_value, &ms, -1, &ignored) != 0)
        ms = 0;
    sl_error_reset(&ignored);
    return ms;
}

typedef struct sl__run_ctx {
    sl_session *s;                /* the session */
    const sl_result_sink *out;    /* the statement's output */
    bool cancelled;               /* the output asked to stop */
    bool with_kind;               /* an updating query: rows start with Flink's op column */
} sl__run_ctx;

static int sl__should_stop(void *ctx, bool *savepoint)
{
    sl__run_ctx *rc = ctx;
    *savepoint = true;
    return rc->cancelled || (rc->s->interrupt && *rc->s->interrupt);
}

static void sl__job_notice(void *ctx, const char *message)
{
    sl__run_ctx *rc = ctx;
    sl__notice(rc->out, SL_SEV_NOTICE, "%s", message);
}

/* The sink of a query's job: rows go to the statement's output as text. */
typedef struct sl__result_sink {
    sl_sink sink;          /* the sink (first: freed as one) */
    sl__run_ctx *run;      /* where rows go */
    int ncols;             /* columns */
} sl__result_sink;

static int sl__rs_noop(sl_sink *s, int64_t epoch, sl_error *err)
{
    return 0;
}

static int sl__rs_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    sl__result_sink *rs = s->impl;
    int k = rs->run->with_kind ? 1 : 0; /* the op column comes first */
    sl_strbuf *bufs = sl_calloc((size_t)rs->ncols + 1, sizeof(sl_strbuf));
    const char **vals = sl_calloc((size_t)rs->ncols + 2, sizeof(char *));
    for (int r = 0; r < c->nrows && !rs->run->cancelled; r++) {
        if (k)
            vals[0] = sl_row_kind_name((sl_row_kind)c->kinds[r]);
        for (int i = 0; i < rs->ncols; i++) {
            sl_strbuf_reset(&bufs[i]);
            vals[k + i] =
                sl_value_format(&bufs[i], &c->cols[i], r) ? sl_strbuf_cstr(&bufs[i]) : NULL;
        }
        if (rs->run->out && rs->run->out->row && rs->run->out->row(rs->run->out->ctx, vals) != 0)
            rs->run->cancelled = true;
    }
    for (int i = 0; i < rs->ncols; i++)
        sl_strbuf_free(&bufs[i]);
    sl_free(bufs);
    sl_free(vals);
    return 0;
}

static int sl__rs_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    return 0;
}

static int sl__rs_commit(sl_sink *s, const char *c, size_t len, sl_error *err)
{
    return 0;
}

static int sl__rs_recover(sl_sink *s, const char *const *cs, const size_t *lens, int n,
                          sl_error *err)
{
    return 0;
}

static void sl__rs_free(sl_sink *s)
{
    sl_free(s->impl);
}

static const sl_sink_ops sl__result_sink_ops = {
    sl__rs_noop, sl__rs_write, sl__rs_pre_commit, sl__rs_commit, sl__rs_commit, sl__rs_recover,
    sl__rs_free,
};

static int sl__result_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    sl__result_sink *rs = sl_calloc(1, sizeof *rs);
    rs->sink.ops = &sl__result_sink_ops;
    rs->sink.impl = rs;
    rs->run = args->ctx;
    rs->ncols = args->ncols;
    *out = &rs->sink;
    return 0;
}

/* The two basic guarantee rules until the full resolver (issue 4): a
** requested 'sink.delivery-guarantee' beyond what the sink's connector can
** give, or exactly-/at-least-once with checkpointing off, is an error — or,
** with the fallback policy 'downgrade' (session 'sink.guarantee-fallback' or
** the table's 'sink.delivery-guarantee.fallback'), a WARNING naming
** requested, effective and why. Never silent. */
static int sl__check_guarantee(sl_session *s, const sl_lp *sink, int64_t interval_ms,
                               const sl_result_sink *out, const char **effective, sl_error *err)
{
    const sl_table *t = sl_catalog_table(s->eng->cat, sink->table);
    const char *req = t ? sl_kvlist_get(t->def->options, "sink.delivery-guarantee") : NULL;
    *effective = req ? req
                 : t && t->connector ? sl_guarantee_name(interval_ms > 0 ? t->connector->caps.sink_default
                                                                        : SL_GUARANTEE_NONE)
                                     : "none";
    if (!req || !t->connector)
        return 0;
    sl_guarantee want = strcmp(req, "exactly-once") == 0    ? SL_GUARANTEE_EXACTLY_ONCE
                        : strcmp(req, "at-least-once") == 0 ? SL_GUARANTEE_AT_LEAST_ONCE
                                                            : SL_GUARANTEE_NONE;
    sl_guarantee can = t->connector->caps.sink_max;
    char *why = NULL;
    if (want > can)
        why = sl_sprintf("connector '%s' gives at most %s", t->connector->name,
                         sl_guarantee_name(can));
    else if (want > SL_GUARANTEE_NONE && interval_ms <= 0)
        why = sl_strdup("checkpointing is off ('execution.checkpointing.interval' = '0')");
    if (!why)
        return 0;
    sl_guarantee eff = want > can ? can : SL_GUARANTEE_NONE;
    const char *policy = sl_kvlist_get(t->def->options, "sink.delivery-guarantee.fallback");
    if (!policy)
        policy = sl_kvlist_get(s->config, "sink.guarantee-fallback");
    if (policy && sl_strcasecmp(policy, "downgrade") == 0) {
        *effective = sl_guarantee_name(eff);
        sl__notice(out, SL_SEV_WARNING,
                   "sink \"%s\" runs %s, not the requested %s: %s", t->name,
                   sl_guarantee_name(eff), req, why);
        sl_free(why);
        return 0;
    }
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, sink->pos,
                 "sink \"%s\" cannot be delivered %s", t->name, req);
    sl_error_detail(err, "%s.", why);
    sl_error_hint(err, "Use a sink that supports it, turn checkpointing on, or SET "
                       "'sink.guarantee-fallback' = 'downgrade' to run at %s with a warning.",
                  sl_guarantee_name(eff));
    sl_free(why);
    return -1;
}

/* Write jobs/<name>/_job.json (atomically): what SHOW JOBS reports. A record
** still RUNNING when read by another run means its process died: only one
** process can use a data directory. Best effort: a failure to write the
** record is logged, never fails the job. */
static void sl__job_record(sl_session *s, const char *name, const char *status,
                           const sl_lp *sink, const char *guarantee, const sl_job_stats *stats)
{
    char *dir = sl_chk_job_dir(s->eng->data_dir, name);
    char *path = sl_path_join(dir, "_job.json");
    sl_error err = SL_ERROR_INIT;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "time", json_integer(sl_now_nanos()));
    if (sink) {
        json_object_set_new(o, "sink", json_string(sink->table));
        json_object_set_new(o, "guarantee", json_string(guarantee ? guarantee : "none"));
    }
    if (stats) {
        json_object_set_new(o, "last_checkpoint", json_integer(stats->last_checkpoint));
        json_object_set_new(o, "rows_in", json_integer(stats->rows_in));
        json_object_set_new(o, "rows_out", json_integer(stats->rows_out));
        json_object_set_new(o, "rows_late", json_integer(stats->rows_late));
        json_object_set_new(o, "rows_skipped", json_integer(stats->rows_skipped));
    }
    char *text = json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    if (sl_fs_mkdir_p(dir, &err) != 0 || sl_fs_write_atomic(path, text, strlen(text), &err) != 0)
        sl_log(SL_LOG_WARN, "could not write the record of job \"%s\": %s", name, err.message);
    sl_error_reset(&err);
    free(text);
    sl_free(path);
    sl_free(dir);
}

static int sl__run(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    sl_list *plans = sl_list_new();
    int rc = sl__plan(s, st, plans, err);
    if (rc == 0 && st->kind == SL_STMT_STATEMENT_SET)
        rc = sl_error_set(err, SL_ERR_NOT_SUPPORTED, st->pos,
                          "the runtime cannot run a statement set yet");
    const char *effective = NULL; /* of the (one) sink: what SHOW JOBS reports */
    for (int i = 0; rc == 0 && i < plans->n; i++)
        if (((sl_lp *)plans->items[i])->kind == SL_LP_SINK)
            rc = sl__check_guarantee(s, plans->items[i],
                                     sl__duration_ms(s, "execution.checkpointing.interval"), out,
                                     &effective, err);
    char *name = rc == 0 ? sl__job_name(s, st) : NULL;
    sl__run_ctx run = {s, out, false, false};
    sl_physical *phys = NULL;
    if (rc == 0) {
        sl_physical_opts o = {name, st->kind == SL_STMT_QUERY ? NULL : s->eng->data_dir,
                              sl__duration_ms(s, "execution.checkpointing.interval"),
                              sl__duration_ms(s, "table.exec.state.ttl"), 1, sl__result_sink_create,
                              &run};
        const sl_lp *top = plans->items[0];
        run.with_kind = st->kind == SL_STMT_QUERY && top->changelog != SL_CL_INSERT;
        rc = sl_physical_build(plans->items[0], s->eng->cat, &o, &phys, err);
    }
    if (rc == 0) {
        sl_job_spec *spec = sl_physical_spec(phys);
        spec->should_stop = sl__should_stop;
        spec->stop_ctx = &run;
        spec->notice = sl__job_notice;
        spec->notice_ctx = &run;
        if (st->kind == SL_STMT_QUERY && out && out->begin) {
            int n = spec->sink_args.ncols, k = run.with_kind ? 1 : 0;
            const char **names = sl_calloc((size_t)n + 2, sizeof(char *));
            sl_type *types = sl_calloc((size_t)n + 2, sizeof(sl_type));
            names[0] = "op";
            types[0] = sl_type_make_p(SL_TYPE_CHAR, 2, 0);
            for (int i = 0; i < n; i++) {
                names[k + i] = spec->sink_args.names[i];
                types[k + i] = spec->sink_args.types[i];
            }
            if (out->begin(out->ctx, n + k, names, types) != 0)
                run.cancelled = true;
            sl_free(names);
            sl_free(types);
        }
        const sl_lp *sink = ((sl_lp *)plans->items[0])->kind == SL_LP_SINK ? plans->items[0] : NULL;
        if (sink)
            sl__job_record(s, name, "RUNNING", sink, effective, NULL);
        sl_job_stats stats;
        rc = sl_job_run(spec, &stats, err);
        if (sink)
            sl__job_record(s, name,
                           rc != 0            ? "FAILED"
                           : stats.finished   ? "FINISHED"
                                              : "STOPPED",
                           sink, effective, &stats);
        if (rc == 0) {
            char tag[64];
            if (st->kind == SL_STMT_QUERY)
                snprintf(tag, sizeof tag, "SELECT %lld", (long long)stats.rows_out);
            else
                snprintf(tag, sizeof tag, "INSERT 0 %lld", (long long)stats.rows_out);
            if (stats.rows_skipped > 0)
                sl__notice(out, SL_SEV_WARNING, "%lld malformed records were skipped",
                           (long long)stats.rows_skipped);
            if (stats.rows_late > 0)
                sl__notice(out, SL_SEV_WARNING,
                           "%lld rows arrived later than the watermark and were dropped",
                           (long long)stats.rows_late);
            sl__complete(out, tag);
        }
    }
    sl_physical_free(phys);
    sl_free(name);
    sl_list_free(plans, sl__lp_free_v);
    return rc;
}

/* ------------------------------------------------------------------------
** Dispatch
*/

int sl_session_exec(sl_session *s, const char *sql, size_t len, const sl_result_sink *out,
                    sl_error *err)
{
    sl_stmt *st = sl_parse_one(sql, len, err);
    if (!st)
        return -1;
    int rc;
    switch (st->kind) {
    case SL_STMT_CREATE_TABLE: rc = sl__create_table(s, st, out, err); break;
    case SL_STMT_DROP_TABLE: rc = sl__drop(s, st, false, out, err); break;
    case SL_STMT_ALTER_SET:
    case SL_STMT_ALTER_RESET: rc = sl__alter(s, st, out, err); break;
    case SL_STMT_CREATE_VIEW: rc = sl__create_view(s, st, out, err); break;
    case SL_STMT_DROP_VIEW: rc = sl__drop(s, st, true, out, err); break;
    case SL_STMT_INSERT:
    case SL_STMT_STATEMENT_SET:
    case SL_STMT_QUERY: rc = sl__run(s, st, out, err); break;
    case SL_STMT_SET: rc = sl__set(s, st, out, err); break;
    case SL_STMT_RESET: rc = sl__reset(s, st, out, err); break;
    case SL_STMT_SHOW: rc = sl__show(s, st, out, err); break;
    case SL_STMT_DESCRIBE: rc = sl__describe(s, st, out, err); break;
    case SL_STMT_EXPLAIN: rc = sl__explain(s, st, out, err); break;
    case SL_STMT_STOP_JOB:
        rc = sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, st->name_pos, "job \"%s\" does not exist",
                          st->name);
        sl_error_hint(err, "SHOW JOBS lists the jobs.");
        break;
    default: rc = sl_error_set(err, SL_ERR_INTERNAL, st->pos, "unknown statement"); break;
    }
    sl_stmt_free(st);
    return rc;
}

/* ------------------------------------------------------------------------
** Completion support
*/

sl_list *sl_session_object_names(sl_session *s)
{
    sl_list *names = sl_catalog_table_names(s->eng->cat);
    sl_list *views = sl_catalog_view_names(s->eng->cat);
    for (int i = 0; i < views->n; i++)
        sl_list_push(names, views->items[i]);
    views->n = 0;
    sl_list_free(views, NULL);
    for (int i = 0; i < sl_list_len(s->tviews); i++)
        sl_list_push(names, sl_strdup(((sl_view *)sl_list_get(s->tviews, i))->name));
    return names;
}

sl_list *sl_option_keys(void)
{
    sl_list *keys = sl_connector_option_keys();
    int nk;
    const sl_config_key *ck = sl_config_keys(&nk);
    for (int i = 0; i < nk; i++)
        sl_list_push(keys, sl_strdup(ck[i].key));
    if (keys->n > 1)
        qsort(keys->items, (size_t)keys->n, sizeof(void *), sl__cmp_str);
    return keys;
}
