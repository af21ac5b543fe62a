/*
** session.c — the engine (one data directory and the registry of its running
** jobs) and sessions that execute statements: every statement enters through
** sl_session_exec, which dispatches it — DDL against the catalog and SET /
** RESET here, SHOW / DESCRIBE / EXPLAIN to session_show.c, INSERT, queries
** and STOP JOB to session_run.c (session_int.h says what they share).
**
** Every statement's output goes through an sl_result_sink; the session's
** files are the only place that turns catalog objects and plans into result
** rows.
**
** Main routines: sl_engine_open/close, sl_session_exec.
*/
#include "session_int.h"
#include "reconcile_int.h"

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
** Engine and session lifetimes
*/

int sl_engine_open(const char *data_dir, sl_engine **out, sl_error *err)
{
    *out = NULL;
    sl_connectors_register_storage(); /* 'execution.checkpointing.dir' = s3://... */
    sl_catalog *cat = NULL;
    if (sl_catalog_open(data_dir, &cat, err) != 0)
        return -1;
    sl_engine *eng = sl_calloc(1, sizeof *eng);
    eng->data_dir = sl_strdup(data_dir);
    eng->cat = cat;
    pthread_mutex_init(&eng->mu, NULL);
    pthread_cond_init(&eng->job_ended, NULL);
    eng->jobs = sl_list_new();
    *out = eng;
    return 0;
}

void sl_engine_close(sl_engine *eng)
{
    if (!eng)
        return;
    sl_engine_stop_jobs(eng);
    /* A job still listed was started synchronously by a session that is
    ** still running it: a caller's bug, and its memory is not ours to free. */
    SL_ALWAYS(eng->jobs->n == 0);
    sl_list_free(eng->jobs, NULL);
    pthread_cond_destroy(&eng->job_ended);
    pthread_mutex_destroy(&eng->mu);
    sl_catalog_close(eng->cat);
    sl_free(eng->owner);
    sl_free(eng->data_dir);
    sl_free(eng);
}

void sl_engine_set_log(sl_engine *eng, sl_engine_log_fn fn, void *ctx)
{
    pthread_mutex_lock(&eng->mu);
    eng->log = fn;
    eng->log_ctx = ctx;
    pthread_mutex_unlock(&eng->mu);
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

sl_session *sl__session_fork(sl_session *s)
{
    sl_session *f = sl_session_new(s->eng);
    sl_kvlist_free(f->config);
    f->config = sl_kvlist_dup(s->config);
    for (int i = 0; i < sl_list_len(s->tviews); i++) {
        const sl_view *v = sl_list_get(s->tviews, i);
        sl_view *c = sl_calloc(1, sizeof *c);
        c->name = sl_strdup(v->name);
        c->temporary = true;
        c->def = sl_stmt_dup(v->def);
        sl_list_push(f->tviews, c);
    }
    for (int i = 0; i < sl_list_len(s->ttables); i++) {
        if (!f->ttables)
            f->ttables = sl_list_new();
        sl_list_push(f->ttables, sl_stmt_dup(sl_list_get(s->ttables, i)));
    }
    f->dml_sync = s->dml_sync;
    return f;
}

void sl_session_set_interrupt(sl_session *s, volatile sig_atomic_t *flag)
{
    s->interrupt = flag;
}

void sl_session_set_dml_sync(sl_session *s, bool sync)
{
    s->dml_sync = sync;
}

void sl_session_set_live_table(sl_session *s, bool live)
{
    s->live_table = live;
}

bool sl_session_result_bounded(sl_session *s)
{
    return s->result_bounded;
}

const char *sl_session_result_mode(sl_session *s)
{
    sl__result_mode m = sl__result_mode_of(s);
    return m == SL__RESULT_TABLE ? "table" : m == SL__RESULT_CHANGELOG ? "changelog" : "tableau";
}

void sl_session_free(sl_session *s)
{
    if (!s)
        return;
    sl_list_free(s->cursors, sl__cursor_free_v);
    sl_list_free(s->parsed, sl__parsed_free_v);
    sl__pg_free(s);
    sl_kvlist_free(s->pg_params);
    sl_kvlist_free(s->config);
    sl_kvlist_free(s->job_stmts);
    sl_list_free(s->tviews, sl__view_free_v);
    sl__set_free(s);
    sl_list_free(s->ttables, sl_stmt_free_v);
    sl_catalog_close(s->tcat);
    sl_free(s);
}

/* ------------------------------------------------------------------------
** Result helpers
*/

void sl__result_begin_typed(sl__table_out *t, const sl_result_sink *out, int ncols,
                            const char *const *names, const sl_type *given)
{
    t->out = out;
    t->ncols = ncols;
    t->nrows = 0;
    t->cancelled = false;
    /* Catalog results are text: a column is a STRING unless typed. */
    sl_type *types = sl_calloc((size_t)ncols, sizeof(sl_type));
    for (int i = 0; i < ncols; i++)
        types[i] = given ? given[i] : sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    if (out && out->begin && out->begin(out->ctx, ncols, names, types) != 0)
        t->cancelled = true;
    sl_free(types);
}

void sl__result_begin(sl__table_out *t, const sl_result_sink *out, int ncols,
                      const char *const *names)
{
    sl__result_begin_typed(t, out, ncols, names, NULL);
}

void sl__result_row(sl__table_out *t, const char *const *values)
{
    if (t->cancelled)
        return;
    t->nrows++;
    if (!t->out || !t->out->row)
        return;
    size_t *lens = sl_calloc((size_t)t->ncols + 1, sizeof(size_t));
    for (int i = 0; i < t->ncols; i++)
        lens[i] = values[i] ? strlen(values[i]) : 0;
    if (t->out->row(t->out->ctx, values, lens) != 0)
        t->cancelled = true;
    sl_free(lens);
}

void sl__result_complete(const sl_result_sink *out, const char *tag)
{
    if (out && out->complete)
        out->complete(out->ctx, tag);
}

void sl__notice(const sl_result_sink *out, sl_severity sev, const char *fmt, ...)
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
void sl__result_lines(const sl_result_sink *out, const char *column, const char *text)
{
    sl__table_out t;
    const char *names[] = {column};
    sl__result_begin(&t, out, 1, names);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = sl_strndup(p, len);
        const char *vals[] = {line};
        sl__result_row(&t, vals);
        sl_free(line);
        p += len + (nl ? 1 : 0);
    }
}

/* ------------------------------------------------------------------------
** Name lookups
*/

sl_binder sl__binder(sl_session *s, sl_error *err)
{
    sl_binder b = {sl__cat(s), s->tviews, err, 0, NULL, NULL};
    return b;
}

static int sl__ttable_index(sl_session *s, const char *name)
{
    for (int i = 0; i < sl_list_len(s->ttables); i++)
        if (strcmp(((const sl_stmt *)sl_list_get(s->ttables, i))->name, name) == 0)
            return i;
    return -1;
}

const sl_stmt *sl__ttable(sl_session *s, const char *name)
{
    int i = sl__ttable_index(s, name);
    return i >= 0 ? sl_list_get(s->ttables, i) : NULL;
}

sl_catalog *sl__cat(sl_session *s)
{
    if (!sl_list_len(s->ttables))
        return s->eng->cat;
    uint64_t v = sl_catalog_version(s->eng->cat);
    if (s->tcat && s->tcat_version == v && s->tcat_gen == s->tgen)
        return s->tcat;
    sl_catalog_close(s->tcat);
    s->tcat = sl_catalog_snapshot(s->eng->cat);
    for (int i = 0; i < s->ttables->n; i++) {
        sl_error ignored = SL_ERROR_INIT; /* each was built once when it was created */
        SL_ALWAYS(sl_catalog_overlay_table(s->tcat, sl_stmt_dup(s->ttables->items[i]),
                                           &ignored) == 0);
        sl_error_reset(&ignored);
    }
    s->tcat_version = v;
    s->tcat_gen = s->tgen;
    return s->tcat;
}

static int sl__tview_index(sl_session *s, const char *name)
{
    for (int i = 0; i < sl_list_len(s->tviews); i++)
        if (strcmp(((sl_view *)sl_list_get(s->tviews, i))->name, name) == 0)
            return i;
    return -1;
}

/* No secret value of the catalog's tables (cat may be NULL) or of the
** statement's options (st may be NULL) in err: whatever reported it — a
** check that quoted a value, librdkafka, a job's runtime — it reads
** '******' (sl_option_scrub). */
void sl__scrub_secrets(const sl_catalog *cat, const sl_stmt *st, sl_error *err)
{
    if (!sl_error_isset(err))
        return;
    for (; st; st = st->inner)
        sl_option_scrub_error(err, st->options);
    if (!cat)
        return;
    sl_list *names = sl_catalog_table_names(cat);
    for (int i = 0; i < names->n; i++) {
        const sl_table *t = sl_catalog_table(cat, names->items[i]);
        if (t && t->def)
            sl_option_scrub_error(err, t->def->options);
    }
    sl_list_free(names, sl_free);
}

/* ------------------------------------------------------------------------
** DDL
*/

static int sl__create_table(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                            sl_error *err)
{
    const sl_catalog *cat = s->eng->cat;
    /* A temporary table may shadow a permanent one (as in Flink), nothing else. */
    if (st->temporary && (sl__ttable(s, st->name) || sl__tview_index(s, st->name) >= 0 ||
                          sl_catalog_view(cat, st->name))) {
        if (st->if_not_exists) {
            sl__notice(out, SL_SEV_NOTICE, "table \"%s\" already exists, skipping", st->name);
            sl__result_complete(out, "CREATE TABLE");
            return 0;
        }
        return sl_error_set(err, SL_ERR_DUPLICATE_TABLE, st->name_pos,
                            sl__ttable(s, st->name) ? "temporary table \"%s\" already exists"
                                                    : "a view named \"%s\" already exists",
                            st->name);
    }
    if (!st->temporary && (sl_catalog_table(cat, st->name) || sl_catalog_view(cat, st->name))) {
        if (st->if_not_exists) {
            sl__notice(out, SL_SEV_NOTICE, "table \"%s\" already exists, skipping", st->name);
            sl__result_complete(out, "CREATE TABLE");
            return 0;
        }
        return sl_error_set(err, SL_ERR_DUPLICATE_TABLE, st->name_pos,
                            sl_catalog_table(cat, st->name) ? "table \"%s\" already exists"
                                                            : "a view named \"%s\" already exists",
                            st->name);
    }
    sl_stmt *def = st->like ? sl_table_like(sl__cat(s), st, err) : sl_stmt_dup(st);
    if (!def)
        return -1;
    sl_binder b = sl__binder(s, err);
    if (sl_bind_create_table(&b, def) != 0) {
        sl_stmt_free(def);
        return -1;
    }
    def->if_not_exists = false;
    def->temporary = st->temporary;
    if (st->temporary) { /* the session's only: never written to the catalog */
        sl_table *t = sl_table_from_def(sl_stmt_dup(def), err);
        if (!t) {
            sl_stmt_free(def);
            return -1;
        }
        sl_table_free(t);
        if (sl_catalog_table(cat, st->name))
            sl__notice(out, SL_SEV_NOTICE,
                       "temporary table \"%s\" shadows the table of that name in this session",
                       st->name);
        if (!s->ttables)
            s->ttables = sl_list_new();
        sl_list_push(s->ttables, def);
        s->tgen++;
        sl__result_complete(out, "CREATE TABLE");
        return 0;
    }
    if (sl_catalog_put_table(s->eng->cat, def, err) != 0)
        return -1;
    sl__result_complete(out, "CREATE TABLE");
    return 0;
}

static int sl__drop(sl_session *s, const sl_stmt *st, bool view, const sl_result_sink *out,
                    sl_error *err)
{
    const char *what = view ? "view" : "table";
    const char *tag = view ? "DROP VIEW" : "DROP TABLE";
    int tt = view ? -1 : sl__ttable_index(s, st->name);
    if (tt >= 0 && st->temporary) {
        sl_stmt_free(s->ttables->items[tt]);
        memmove(&s->ttables->items[tt], &s->ttables->items[tt + 1],
                (size_t)(s->ttables->n - tt - 1) * sizeof(void *));
        s->ttables->n--;
        s->tgen++;
        sl__result_complete(out, tag);
        return 0;
    }
    if (tt >= 0) { /* Flink: the temporary one goes first */
        sl_error_set(err, SL_ERR_NOT_IN_STATE, st->name_pos,
                     "temporary table \"%s\" exists: drop it first", st->name);
        sl_error_hint(err, "DROP TEMPORARY TABLE %s;", st->name);
        return -1;
    }
    if (view) {
        int ti = sl__tview_index(s, st->name);
        if (ti >= 0) {
            sl_view_free(s->tviews->items[ti]);
            memmove(&s->tviews->items[ti], &s->tviews->items[ti + 1],
                    (size_t)(s->tviews->n - ti - 1) * sizeof(void *));
            s->tviews->n--;
            sl__result_complete(out, tag);
            return 0;
        }
    }
    if (st->temporary) { /* no temporary table exists (CREATE TEMPORARY TABLE is refused) */
        if (st->if_exists)
            goto skip;
        return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos,
                            "temporary %s \"%s\" does not exist", what, st->name);
    }
    bool exists = view ? sl_catalog_view(s->eng->cat, st->name) != NULL
                       : sl_catalog_table(s->eng->cat, st->name) != NULL;
    if (!exists) {
        sl_binder b = sl__binder(s, err);
        bool other = view ? sl_catalog_table(s->eng->cat, st->name) != NULL
                          : sl_binder_view(&b, st->name) != NULL;
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
    const sl_table *t = view ? NULL : sl_catalog_table(s->eng->cat, st->name);
    if (t && t->connector && t->connector->drop_check &&
        t->connector->drop_check(t->connector, t->def->options, err) != 0) {
        if (err->position < 0)
            err->position = st->name_pos;
        return -1;
    }
    if (sl_catalog_drop(s->eng->cat, st->name, view, err) != 0)
        return -1;
    sl__result_complete(out, tag);
    return 0;
skip:
    sl__notice(out, SL_SEV_NOTICE, "%s \"%s\" does not exist, skipping", what, st->name);
    sl__result_complete(out, tag);
    return 0;
}

int sl__temp_unalterable(sl_session *s, const sl_stmt *st, sl_error *err)
{
    if (!sl__ttable(s, st->name))
        return 0;
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, st->name_pos,
                 "ALTER TABLE of temporary table \"%s\" is not supported", st->name);
    sl_error_hint(err, "DROP TEMPORARY TABLE it and CREATE TEMPORARY TABLE it again.");
    return -1;
}

static int sl__alter(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    if (sl__temp_unalterable(s, st, err) != 0)
        return -1;
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
    sl__result_complete(out, "ALTER TABLE");
    return 0;
}

/* The name a select item gives its column as written (alias or column), or
** NULL (a star, an expression: named by the binder). */
static const char *sl__item_written_name(const sl_select_item *it)
{
    if (it->alias)
        return it->alias;
    if (it->expr->kind == SL_EXPR_COLUMN || it->expr->kind == SL_EXPR_FIELD)
        return it->expr->text;
    return NULL;
}

static int sl__create_view(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                           sl_error *err)
{
    bool exists = sl__ttable(s, st->name) != NULL ||
                  (st->temporary ? sl__tview_index(s, st->name) >= 0
                                 : (sl_catalog_view(s->eng->cat, st->name) ||
                                    sl_catalog_table(s->eng->cat, st->name)));
    if (exists) {
        if (st->if_not_exists) {
            sl__notice(out, SL_SEV_NOTICE, "view \"%s\" already exists, skipping", st->name);
            sl__result_complete(out, "CREATE VIEW");
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
    /* The names as written: a query's output names are unique (x, x0), the
    ** names its select list gives (SELECT id, id) need not be (Flink refuses
    ** them in a view too); a star's columns were made unique */
    const sl_query *q = st->query;
    while (q->kind == SL_QUERY_UNION)
        q = q->left;
    int nitems = q->kind == SL_QUERY_SELECT ? sl_list_len(q->items) : 0;
    for (int i = 0; rc == 0 && !nnames && i < nitems; i++) {
        const char *ni = sl__item_written_name(sl_list_get(q->items, i));
        for (int j = 0; ni && j < i; j++) {
            const char *nj = sl__item_written_name(sl_list_get(q->items, j));
            if (nj && strcmp(ni, nj) == 0) {
                rc = sl_error_set(err, SL_ERR_DUPLICATE_COLUMN, st->query->pos,
                                  "column \"%s\" specified more than once in view \"%s\"", ni,
                                  st->name);
                sl_error_hint(err, "Give the columns distinct aliases.");
                break;
            }
        }
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
    sl__result_complete(out, "CREATE VIEW");
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
        sl__result_begin(&t, out, 2, names);
        int n;
        const sl_config_key *keys = sl_config_keys(&n);
        for (int i = 0; i < n; i++) {
            const char *v = sl_kvlist_get(s->config, keys[i].key);
            char par[16];
            int n_par = 0;
            sl_error ignored = SL_ERROR_INIT;
            if (!v && strcmp(keys[i].key, "table.dml-sync") == 0)
                v = s->dml_sync ? "true" : "false"; /* the session's own default */
            /* Effective values: one task per CPU, no savepoint, a derived name */
            if (!v && strcmp(keys[i].key, "parallelism.default") == 0 &&
                sl__parallelism(s, &n_par, &ignored) == 0) {
                snprintf(par, sizeof par, "%d", n_par);
                v = par;
            }
            sl_error_reset(&ignored);
            if (v && sl_option_is_secret(keys[i].key))
                v = SL_REDACTED;
            if (!v)
                v = keys[i].default_value ? keys[i].default_value : "";
            const char *vals[] = {keys[i].key, v};
            sl__result_row(&t, vals);
        }
        sl__result_complete(out, "SET");
        return 0;
    }
    const sl_kv *kv = st->options && st->options->n ? &st->options->items[0] : NULL;
    const char *value = kv ? kv->value : NULL;
    int value_pos = kv ? kv->value_pos : st->name_pos;
    if (!value)
        return sl_error_set(err, SL_ERR_SYNTAX, st->name_pos, "SET '%s' needs a value", st->name);
    if (sl_config_check(st->name, value, st->name_pos, value_pos, err) != 0)
        return -1;
    if (s->job_stmts && strcmp(st->name, "pipeline.name") == 0)
        sl_kvlist_remove(s->job_stmts, value); /* SET again: the next job is meant to be it */
    sl_kvlist_set(s->config, st->name, value, -1, -1);
    sl__result_complete(out, "SET");
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
    sl__result_complete(out, "RESET");
    return 0;
}

/* ------------------------------------------------------------------------
** Settings
*/

/* Every read of a setting goes through sl__setting or sl__setting_set,
** which tell config.c that the key has a reader. */

/* A setting's value: SET's, else its default. */
const char *sl__setting(sl_session *s, const char *key)
{
    const sl_config_key *k = sl_config_read(key);
    const char *v = sl_kvlist_get(s->config, key);
    return v ? v : k ? k->default_value : NULL;
}

/* A setting's value when it is SET, else NULL. */
const char *sl__setting_set(sl_session *s, const char *key)
{
    sl_config_read(key);
    return sl_kvlist_get(s->config, key);
}

/* 'table.local-time-zone' (SET checked it; 'default' is resolved now, so a
** job keeps the zone it was planned with). The caller frees *out. */
int sl__time_zone(sl_session *s, sl_tz **out, sl_error *err)
{
    return sl_tz_open(sl__setting(s, "table.local-time-zone"), out, err);
}

/* 'sql-client.execution.result-mode'. */
sl__result_mode sl__result_mode_of(sl_session *s)
{
    const char *v = sl__setting(s, "sql-client.execution.result-mode");
    return sl_strcasecmp(v, "table") == 0       ? SL__RESULT_TABLE
           : sl_strcasecmp(v, "changelog") == 0 ? SL__RESULT_CHANGELOG
                                                : SL__RESULT_TABLEAU;
}

/* 'execution.runtime-mode'. */
sl__runtime_mode sl__runtime_mode_of(sl_session *s)
{
    const char *v = sl__setting(s, "execution.runtime-mode");
    return sl_strcasecmp(v, "batch") == 0       ? SL__RUNTIME_BATCH
           : sl_strcasecmp(v, "automatic") == 0 ? SL__RUNTIME_AUTOMATIC
                                                : SL__RUNTIME_STREAMING;
}

sl_length_enforcer sl__length_enforcer_of(sl_session *s)
{
    const char *v = sl__setting(s, "table.exec.sink.type-length-enforcer");
    return sl_strcasecmp(v, "TRIM_PAD") == 0 ? SL_LENGTH_TRIM_PAD
           : sl_strcasecmp(v, "ERROR") == 0  ? SL_LENGTH_ERROR
                                             : SL_LENGTH_IGNORE;
}

/* A duration setting in ms (SET validated it; the defaults parse). */
int64_t sl__duration_ms(sl_session *s, const char *key)
{
    int64_t ms = 0;
    sl_error ignored = SL_ERROR_INIT;
    if (sl_option_parse_duration_ms(sl__setting(s, key), &ms, -1, &ignored) != 0)
        ms = 0;
    sl_error_reset(&ignored);
    return ms;
}

/* 'parallelism.default', else one task per online CPU. SET refuses a value
** below 1; this check guards the value the job would run with. */
int sl__parallelism(sl_session *s, int *out, sl_error *err)
{
    const char *v = sl__setting_set(s, "parallelism.default");
    if (!v) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        *out = n < 1 ? 1 : n > SL_MAX_PARALLELISM ? SL_MAX_PARALLELISM : (int)n;
        return 0;
    }
    int64_t n = 0;
    if (sl_option_parse_int(v, &n, -1, err) != 0)
        return -1;
    if (n < 1 || n > SL_MAX_PARALLELISM) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                     "invalid value for option 'parallelism.default': \"%s\" must be %s %d", v,
                     n < 1 ? "at least" : "at most", n < 1 ? 1 : SL_MAX_PARALLELISM);
        sl_error_hint(err, "SET it to the number of tasks per operator, or RESET it to run "
                           "one per CPU.");
        return -1;
    }
    *out = (int)n;
    return 0;
}

sl_state_backend sl__state_backend(sl_session *s)
{
    sl_state_backend b = {false, false, 0};
    sl_error ignored = SL_ERROR_INIT;
    b.rocksdb = sl_strcasecmp(sl__setting(s, "state.backend.type"), "rocksdb") == 0;
    b.incremental = sl__setting_bool(s, "execution.checkpointing.incremental", false);
    if (sl_option_parse_int(sl__setting(s, "state.backend.rocksdb.cache-groups"),
                            &b.cache_groups, -1, &ignored) != 0)
        b.cache_groups = 0;
    sl_error_reset(&ignored);
    return b;
}

bool sl__setting_bool(sl_session *s, const char *key, bool dflt)
{
    bool on = dflt;
    sl_error ignored = SL_ERROR_INIT;
    if (sl_option_parse_bool(sl__setting(s, key), &on, -1, &ignored) != 0)
        on = dflt;
    sl_error_reset(&ignored);
    return on;
}

/* 'table.dml-sync' (SET validated it), else the session's default. */
bool sl__dml_sync(sl_session *s)
{
    const char *v = sl__setting_set(s, "table.dml-sync");
    bool sync = s->dml_sync;
    sl_error ignored = SL_ERROR_INIT;
    if (v && sl_option_parse_bool(v, &sync, -1, &ignored) != 0)
        sync = s->dml_sync;
    sl_error_reset(&ignored);
    return sync;
}

/* ------------------------------------------------------------------------
** Dispatch
*/

int sl_session_exec(sl_session *s, const char *sql, size_t len, const sl_result_sink *out,
                    sl_error *err)
{
    sl_stmt *st = sl_parse_one(sql, len, err);
    if (!st) { /* a syntax error may quote a secret typed without quotes */
        sl_kvlist *secrets = sl_kvlist_new();
        sl_sql_secret_values(sql, len, sl_option_secret_fn, NULL, secrets);
        sl_option_scrub_error(err, secrets);
        sl_kvlist_free(secrets);
        sl__txn_done(s, NULL, -1);
        return -1;
    }
    int rc = sl__exec_stmt(s, st, out, err);
    sl_stmt_free(st);
    return rc;
}

/* Run a parsed statement (sl_session_exec's second half; parameters and
** cursors enter here with theirs): the transaction block around it, the
** session functions replaced by their values, a SELECT without FROM
** answered here, else its statement family. */
int sl__exec_stmt(sl_session *s, sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    /* A failed transaction block refuses everything but its end (25P02);
    ** a statement that fails in a block fails the block (session_pg.c). */
    int rc = sl__txn_check(s, st, err);
    if (rc == 0 && s->stmt_set) /* BEGIN STATEMENT SET: INSERTs collected until END */
    {
        int c = sl__set_collect(s, st, out, err);
        rc = c > 0 ? 0 : c == 0 ? 1 : -1;
    }
    if (rc == 0)
        rc = sl__select_const(s, st, out, err); /* SELECT without FROM: answered here */
    if (rc == 0)
        rc = sl__session_functions(s, st, out, err);
    if (rc != 0) {
        rc = rc > 0 ? 0 : -1;
        sl__txn_done(s, st, rc);
        return rc;
    }
    switch (st->kind) {
    case SL_STMT_CREATE_TABLE: rc = sl__create_table(s, st, out, err); break;
    case SL_STMT_DROP_TABLE: rc = sl__drop(s, st, false, out, err); break;
    case SL_STMT_ALTER_SET:
    case SL_STMT_ALTER_RESET: rc = sl__alter(s, st, out, err); break;
    case SL_STMT_CREATE_VIEW: rc = sl__create_view(s, st, out, err); break;
    case SL_STMT_DROP_VIEW: rc = sl__drop(s, st, true, out, err); break;
    case SL_STMT_INSERT:
    case SL_STMT_STATEMENT_SET:
    case SL_STMT_QUERY: rc = sl__run_stmt(s, st, out, err); break;
    case SL_STMT_SET: rc = sl__set(s, st, out, err); break;
    case SL_STMT_RESET: rc = sl__reset(s, st, out, err); break;
    case SL_STMT_SHOW: rc = sl__show_stmt(s, st, out, err); break;
    case SL_STMT_DESCRIBE: rc = sl__describe_stmt(s, st, out, err); break;
    case SL_STMT_EXPLAIN: rc = sl__explain_stmt(s, st, out, err); break;
    case SL_STMT_STOP_JOB: rc = sl__stop_job_stmt(s, st, out, err); break;
    case SL_STMT_DROP_JOB: rc = sl__drop_job_stmt(s, st, out, err); break;
    case SL_STMT_PG_SET:
    case SL_STMT_PG_SHOW:
    case SL_STMT_PG_RESET:
    case SL_STMT_TXN:
    case SL_STMT_DISCARD: rc = sl__pg_stmt(s, st, out, err); break;
    case SL_STMT_DECLARE_CURSOR:
    case SL_STMT_FETCH:
    case SL_STMT_MOVE:
    case SL_STMT_CLOSE_CURSOR: rc = sl__cursor_stmt(s, st, out, err); break;
    case SL_STMT_HELP:
    case SL_STMT_USE:
    case SL_STMT_ALTER_RENAME:
    case SL_STMT_BEGIN_SET: rc = sl__flink_stmt(s, st, out, err); break;
    case SL_STMT_RECONCILE: rc = sl__reconcile_stmt(s, st, out, err); break;
    case SL_STMT_DROP_FUNCTION:
        /* No user-defined function can exist (CREATE FUNCTION is refused). */
        sl__notice(out, SL_SEV_NOTICE, "function \"%s\" does not exist, skipping", st->name);
        sl__result_complete(out, "DROP FUNCTION");
        break;
    default: rc = sl_error_set(err, SL_ERR_INTERNAL, st->pos, "unknown statement"); break;
    }
    if (rc != 0)
        sl__scrub_secrets(sl__cat(s), st, err);
    if (st->kind != SL_STMT_TXN)
        sl__txn_done(s, st, rc);
    return rc;
}

/* ------------------------------------------------------------------------
** Completion support
*/

sl_list *sl_session_object_names(sl_session *s)
{
    sl_list *names = sl_catalog_table_names(sl__cat(s));
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
        qsort(keys->items, (size_t)keys->n, sizeof(void *), sl__strcmp_v);
    return keys;
}

void sl_redact_sql(const char *sql, size_t len, sl_strbuf *out, size_t *pos)
{
    sl_sql_redact(sql, len, sl_option_secret_fn, NULL, out, pos);
}
