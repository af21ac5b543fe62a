/*
** catalog.c — the persistent catalog of tables and views in a data directory.
**
** Layout of a data directory:
**   SLUICE         marker: "sluice data directory\nversion 1\n"
**   catalog.json   {"format": "sluice-catalog", "version": 2,
**                   "objects": [{"kind": "table"|"view", "name": .., "sql": ..}],
**                   "checksum": XXH3 of the file's own bytes (sl_checksum_embed)}
** Each object is stored as its canonical CREATE statement (the printer's
** output) and re-parsed on open, as SQLite keeps its schema. catalog.json is
** replaced atomically (temp file, fsync, rename) on every change, before the
** change takes effect in memory.
**   SLUICE.lock    an flock held while a process uses the directory (holds
**                  its pid); a copied directory is not locked.
**
** First use: lock, then the marker, then an empty catalog. A marker without
** catalog.json in an otherwise empty directory is therefore an initialization
** that was interrupted, and is completed; beside anything else (jobs/) it is
** a lost catalog, an error. A directory that is not empty (but for the lock
** file) and has no marker is not Sluice's; a corrupt catalog (checksum,
** syntax, an object defined twice) is an error naming the file. None is ever
** written to. Version 1 catalogs (before checksums) are read unverified and
** rewritten as version 2 by the next change.
**
** A snapshot (sl_catalog_snapshot) is an in-memory copy that a running job
** plans against and keeps: changing the catalog never frees what a job uses.
**
** Main routines: sl_catalog_open, sl_catalog_put_table/view, sl_catalog_drop,
** sl_catalog_snapshot.
*/
#include "planner_int.h"

#include <dirent.h>
#include <stdlib.h>
#include <jansson.h>
#include <string.h>

#define SL_MARKER_FILE "SLUICE"
#define SL_MARKER_TEXT "sluice data directory\nversion 1\n"
#define SL_CATALOG_FILE "catalog.json"
#define SL_LOCK_FILE "SLUICE.lock"
#define SL_CATALOG_FORMAT "sluice-catalog"
#define SL_CATALOG_VERSION 2 /* 2: with its checksum; 1: without (still read) */

struct sl_catalog {
    char *dir;      /* data directory; NULL for a snapshot */
    char *path;     /* catalog.json; NULL for a snapshot (read-only) */
    sl_list *tables;/* sl_table*, in creation order */
    sl_list *views; /* sl_view* (never temporary), in creation order */
    int lock_fd;    /* the held SLUICE.lock, or -1 */
    uint64_t version; /* changes made (atomic): what a cached parse was typed against */
};

/* ------------------------------------------------------------------------
** In-memory objects
*/

void sl_table_free(sl_table *t)
{
    if (!t)
        return;
    sl_columns_free(t->cols, t->ncols);
    sl_columns_free(t->all, t->nall);
    sl_free(t->pk);
    sl_free(t->part);
    sl_stmt_free(t->def);
    sl_free(t->name);
    sl_free(t);
}

void sl_view_free(sl_view *v)
{
    if (!v)
        return;
    sl_stmt_free(v->def);
    sl_free(v->name);
    sl_free(v);
}

void sl_columns_free(sl_column *cols, int n)
{
    for (int i = 0; cols && i < n; i++) {
        sl_free(cols[i].name);
        sl_free(cols[i].comment);
    }
    sl_free(cols);
}

/* Append c's leaves (c itself when it is no ROW) under the path prefix. */
static void sl__leaves(const sl_column_def *c, const char *prefix, bool not_null, sl_list *out)
{
    char *name = prefix ? sl_sprintf("%s.%s", prefix, c->name) : sl_strdup(c->name);
    if (c->type.id != SL_TYPE_ROW) {
        sl_column *col = sl_calloc(1, sizeof *col);
        col->name = name;
        col->type = c->type;
        col->type.not_null = not_null && c->type.not_null;
        col->comment = prefix ? NULL : sl_strdup(c->comment);
        col->nleaves = 1;
        col->def = c;
        sl_list_push(out, col);
        return;
    }
    for (int i = 0; i < sl_list_len(c->fields); i++)
        sl__leaves(sl_list_get(c->fields, i), name, not_null && c->type.not_null, out);
    sl_free(name);
}

/* How many leaves c has (1 when it is no ROW). */
static int sl__nleaves(const sl_column_def *c)
{
    if (c->type.id != SL_TYPE_ROW)
        return 1;
    int n = 0;
    for (int i = 0; i < sl_list_len(c->fields); i++)
        n += sl__nleaves(sl_list_get(c->fields, i));
    return n;
}

sl_column *sl_def_phys_cols(const sl_stmt *def, int *n)
{
    sl_list *l = sl_list_new();
    for (int i = 0; i < sl_list_len(def->columns); i++) {
        const sl_column_def *c = sl_list_get(def->columns, i);
        if (!c->expr)
            sl__leaves(c, NULL, true, l);
    }
    *n = sl_list_len(l);
    sl_column *cols = sl_calloc((size_t)(*n ? *n : 1), sizeof(sl_column));
    for (int i = 0; i < *n; i++) {
        sl_column *c = sl_list_get(l, i);
        cols[i] = *c;
        cols[i].phys = i;
        sl_free(c);
    }
    sl_list_free(l, NULL);
    return cols;
}

bool sl_def_has_row(const sl_stmt *def)
{
    for (int i = 0; i < sl_list_len(def->columns); i++)
        if (((const sl_column_def *)sl_list_get(def->columns, i))->type.id == SL_TYPE_ROW)
            return true;
    return false;
}

static void sl__table_free_v(void *p) { sl_table_free(p); }
static void sl__view_free_v(void *p) { sl_view_free(p); }

static int sl__column_index(const sl_column *cols, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(cols[i].name, name) == 0)
            return i;
    return -1;
}

sl_table *sl_table_from_def(sl_stmt *def, sl_error *err)
{
    if (def->kind != SL_STMT_CREATE_TABLE) {
        sl_stmt_free(def);
        sl_error_set(err, SL_ERR_INTERNAL, -1, "not a CREATE TABLE statement");
        return NULL;
    }
    sl_table *t = sl_calloc(1, sizeof *t);
    t->name = sl_strdup(def->name);
    t->def = def;
    t->nall = sl_list_len(def->columns);
    t->all = sl_calloc((size_t)(t->nall ? t->nall : 1), sizeof(sl_column));
    t->cols = sl_def_phys_cols(def, &t->ncols);
    for (int i = 0, k = 0; i < t->nall; i++) {
        const sl_column_def *c = sl_list_get(def->columns, i);
        t->all[i].name = sl_strdup(c->name);
        t->all[i].type = c->type;
        t->all[i].comment = sl_strdup(c->comment);
        t->all[i].expr = c->expr;
        t->all[i].def = c;
        t->all[i].phys = c->expr ? -1 : k;
        if (!c->expr) { /* a ROW column's leaves are consecutive in cols */
            int n = sl__nleaves(c);
            t->all[i].nleaves = n;
            k += n;
        }
    }
    /* A computed column's type is its expression's, over the physical columns. */
    for (int i = 0; i < t->nall; i++) {
        const sl_column_def *c = sl_list_get(def->columns, i);
        if (!c->expr)
            continue;
        sl_bexpr *x = sl_bind_computed(def, c, err);
        if (!x) {
            sl_table_free(t);
            return NULL;
        }
        t->all[i].type = x->type;
        sl_bexpr_free(x);
    }
    t->npk = sl_list_len(def->primary_key);
    t->pk = sl_calloc((size_t)(t->npk ? t->npk : 1), sizeof(int));
    for (int i = 0; i < t->npk; i++) {
        const sl_ident *id = sl_list_get(def->primary_key, i);
        t->pk[i] = sl__column_index(t->cols, t->ncols, id->name);
        if (t->pk[i] < 0) {
            sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, id->pos,
                         "column \"%s\" named in key does not exist", id->name);
            sl_table_free(t);
            return NULL;
        }
        /* Flink: primary key columns are implicitly NOT NULL. */
        t->cols[t->pk[i]].type.not_null = true;
        for (int k = 0; k < t->nall; k++)
            if (t->all[k].phys == t->pk[i] && t->all[k].nleaves == 1)
                t->all[k].type.not_null = true;
    }
    t->npart = sl_list_len(def->partition_by);
    t->part = sl_calloc((size_t)(t->npart ? t->npart : 1), sizeof(int));
    for (int i = 0; i < t->npart; i++) {
        const sl_ident *id = sl_list_get(def->partition_by, i);
        t->part[i] = sl__column_index(t->cols, t->ncols, id->name);
        if (t->part[i] < 0) {
            sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, id->pos,
                         "partition column \"%s\" does not exist", id->name);
            sl_table_free(t);
            return NULL;
        }
    }
    t->wm_col = -1;
    if (def->wm_column) {
        t->wm_col = sl__column_index(t->all, t->nall, def->wm_column->name);
        if (t->wm_col < 0) {
            sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, def->wm_column->pos,
                         "column \"%s\" of the WATERMARK does not exist", def->wm_column->name);
            sl_table_free(t);
            return NULL;
        }
    }
    const char *conn = sl_kvlist_get(def->options, "connector");
    t->connector = conn ? sl_connector_find(conn) : NULL;
    for (int i = 0; i < t->ncols; i++) { /* metadata columns: their keys and types */
        const sl_column_def *c = t->cols[i].def;
        if (!c->metadata)
            continue;
        t->cols[i].meta = c->meta_key ? c->meta_key : c->name;
        t->cols[i].virt = c->is_virtual;
        const sl_metadata_spec *m = sl_connector_metadata(t->connector, t->cols[i].meta);
        t->cols[i].mtype = m && m->id != SL_TYPE_NULL ? sl_metadata_type(m) : c->type;
        t->cols[i].mtype.not_null = t->cols[i].type.not_null;
    }
    return t;
}

/* ------------------------------------------------------------------------
** Persistence
*/

static bool sl__dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *de;
    bool empty = true;
    while ((de = readdir(d)) != NULL) {
        /* the lock and a marker whose writing was interrupted (first use
        ** killed before the marker's rename) leave the directory new */
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            strcmp(de->d_name, SL_LOCK_FILE) && strcmp(de->d_name, SL_MARKER_FILE ".tmp")) {
            empty = false;
            break;
        }
    }
    closedir(d);
    return empty;
}

/* Serialize the catalog (optionally with one object replaced/added/removed
** is done by the caller on copies) into JSON text carrying its own checksum;
** NULL with err set when a Jansson call fails (memory, or text that is not
** UTF-8: the tokenizer refuses such SQL, so this is an internal error). */
static char *sl__catalog_json(const sl_list *tables, const sl_list *views, sl_error *err)
{
    int bad = 0; /* a Jansson call failed: never drop a field silently */
    json_t *root = json_object();
    bad |= json_object_set_new(root, "format", json_string(SL_CATALOG_FORMAT));
    bad |= json_object_set_new(root, "version", json_integer(SL_CATALOG_VERSION));
    json_t *objs = json_array();
    for (int i = 0; i < sl_list_len(tables) + sl_list_len(views); i++) {
        bool is_table = i < sl_list_len(tables);
        const sl_table *t = is_table ? sl_list_get(tables, i) : NULL;
        const sl_view *v = is_table ? NULL : sl_list_get(views, i - sl_list_len(tables));
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_stmt_print(&sb, is_table ? t->def : v->def, NULL, NULL);
        json_t *o = json_object();
        bad |= json_object_set_new(o, "kind", json_string(is_table ? "table" : "view"));
        bad |= json_object_set_new(o, "name", json_string(is_table ? t->name : v->name));
        bad |= json_object_set_new(o, "sql", json_string(sl_strbuf_cstr(&sb)));
        bad |= json_array_append_new(objs, o);
        sl_strbuf_free(&sb);
    }
    bad |= json_object_set_new(root, "objects", objs);
    bad |= json_object_set_new(root, SL_CHECKSUM_KEY, json_string(SL_CHECKSUM_ZERO));
    char *text = bad ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    char *copy = text ? sl_sprintf("%s\n", text) : NULL;
    free(text);
    if (!copy || sl_checksum_embed(copy, strlen(copy)) != 0) {
        sl_free(copy);
        sl_error_set(err, SL_ERR_INTERNAL, -1, "could not encode the catalog");
        sl_error_detail(err, "A name or definition is not valid UTF-8, or memory ran out.");
        return NULL;
    }
    return copy;
}

static int sl__catalog_write(const sl_catalog *cat, const sl_list *tables, const sl_list *views,
                             sl_error *err)
{
    char *text = sl__catalog_json(tables, views, err);
    int rc = text ? sl_fs_write_atomic(cat->path, text, strlen(text), err) : -1;
    sl_free(text);
    return rc;
}

static int sl__corrupt(sl_error *err, const char *path, const char *fmt, const char *arg)
{
    sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "catalog file \"%s\" is corrupt", path);
    sl_error_detail(err, fmt, arg);
    sl_error_hint(err, "Restore the data directory from a backup, or use another --data-dir. "
                       "Sluice does not modify a corrupt catalog.");
    return -1;
}

static int sl__catalog_load(sl_catalog *cat, sl_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (sl_fs_read_file(cat->path, &text, &len, err) != 0) {
        sl_error_hint(err, "The data directory has a Sluice marker but no readable catalog.");
        return -1;
    }
    /* The checksum first: nothing in a damaged file is trusted, its version included. */
    int sum = sl_checksum_verify(text, len);
    if (sum == 0) {
        sl_free(text);
        return sl__corrupt(err, cat->path, "%s", "its checksum does not match its contents");
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    sl_free(text);
    if (!root) {
        char *where = sl_sprintf("%s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
        sl__corrupt(err, cat->path, "%s", where);
        sl_free(where);
        return -1;
    }
    int rc = -1;
    json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "version");
    json_t *objs = json_object_get(root, "objects");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), SL_CATALOG_FORMAT) != 0 ||
        !json_is_integer(ver) || !json_is_array(objs)) {
        sl__corrupt(err, cat->path, "%s", "missing \"format\", \"version\" or \"objects\"");
        goto done;
    }
    if (json_integer_value(ver) < 1 || json_integer_value(ver) > SL_CATALOG_VERSION) {
        sl_error_set(err, SL_ERR_CONFIG_FILE, -1, "catalog version %lld is not supported",
                     (long long)json_integer_value(ver));
        sl_error_hint(err, "This sluice reads catalog versions 1 to %d.", SL_CATALOG_VERSION);
        goto done;
    }
    /* Version 1 was written before checksums; from 2 on one is required. */
    if ((json_integer_value(ver) >= 2) != (sum == 1)) {
        sl__corrupt(err, cat->path, "%s",
                    sum == 1 ? "a version 1 catalog with a checksum" : "its checksum is missing");
        goto done;
    }
    size_t i;
    json_t *o;
    json_array_foreach(objs, i, o)
    {
        const char *kind = json_string_value(json_object_get(o, "kind"));
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *sql = json_string_value(json_object_get(o, "sql"));
        if (!kind || !name || !sql || (strcmp(kind, "table") && strcmp(kind, "view"))) {
            sl__corrupt(err, cat->path, "%s",
                        "an object lacks \"kind\" (table or view), \"name\" or \"sql\"");
            goto done;
        }
        if (sl_catalog_table(cat, name) || sl_catalog_view(cat, name)) {
            char *why = sl_sprintf("\"%s\" is defined twice", name);
            sl__corrupt(err, cat->path, "%s", why);
            sl_free(why);
            goto done;
        }
        sl_error perr = SL_ERROR_INIT;
        sl_stmt *s = sl_parse_one(sql, strlen(sql), &perr);
        bool is_table = strcmp(kind, "table") == 0;
        if (!s || (is_table ? s->kind != SL_STMT_CREATE_TABLE : s->kind != SL_STMT_CREATE_VIEW) ||
            strcmp(s->name, name) != 0) {
            char *why = sl_sprintf("object \"%s\": %s", name,
                                   s ? "statement does not match its kind or name" : perr.message);
            sl__corrupt(err, cat->path, "%s", why);
            sl_free(why);
            sl_error_reset(&perr);
            sl_stmt_free(s);
            goto done;
        }
        if (is_table) {
            sl_table *t = sl_table_from_def(s, &perr);
            if (!t) {
                char *why = sl_sprintf("table \"%s\": %s", name, perr.message);
                sl__corrupt(err, cat->path, "%s", why);
                sl_free(why);
                sl_error_reset(&perr);
                goto done;
            }
            sl_list_push(cat->tables, t);
        } else {
            sl_view *v = sl_calloc(1, sizeof *v);
            v->name = sl_strdup(s->name);
            v->def = s;
            sl_list_push(cat->views, v);
        }
    }
    rc = 0;
done:
    json_decref(root);
    return rc;
}

/* Does dir hold nothing but the marker, the lock file and the temp file of
** a catalog write cut short? (A first use interrupted after the marker.) */
static bool sl__only_marker(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *de;
    bool only = true;
    while (only && (de = readdir(d)) != NULL)
        only = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
               !strcmp(de->d_name, SL_LOCK_FILE) || !strcmp(de->d_name, SL_MARKER_FILE) ||
               !strcmp(de->d_name, SL_CATALOG_FILE ".tmp");
    closedir(d);
    return only;
}

/* catalog.json is gone from a data directory that was used. */
static int sl__missing(sl_error *err, const char *path)
{
    sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "catalog file \"%s\" is missing", path);
    sl_error_detail(err, "The data directory has its marker and other contents (jobs), so it "
                         "had a catalog; starting with an empty one would lose its tables.");
    sl_error_hint(err, "Restore catalog.json from a backup, or use another --data-dir. "
                       "Sluice does not modify a data directory without its catalog.");
    return -1;
}

/* Lock the data directory for this process. */
static int sl__lock(sl_catalog *cat, sl_error *err)
{
    char *path = sl_path_join(cat->dir, SL_LOCK_FILE);
    char *what = sl_sprintf("data directory \"%s\"", cat->dir);
    int rc = sl_fs_lock(path, what, &cat->lock_fd, err);
    sl_free(what);
    sl_free(path);
    return rc;
}

int sl_catalog_open(const char *data_dir, sl_catalog **out, sl_error *err)
{
    *out = NULL;
    if (!data_dir || !*data_dir)
        return sl_error_set(err, SL_ERR_CONFIG_FILE, -1, "the data directory name is empty");
    if (sl_fs_exists(data_dir) && !sl_fs_is_dir(data_dir)) {
        sl_error_set(err, SL_ERR_CONFIG_FILE, -1, "data directory \"%s\" is not a directory",
                     data_dir);
        sl_error_hint(err, "Pass a directory with --data-dir or SLUICE_DATA.");
        return -1;
    }
    sl_catalog *cat = sl_calloc(1, sizeof *cat);
    cat->dir = sl_strdup(data_dir);
    cat->path = sl_path_join(data_dir, SL_CATALOG_FILE);
    cat->tables = sl_list_new();
    cat->views = sl_list_new();
    cat->lock_fd = -1;
    char *marker = sl_path_join(data_dir, SL_MARKER_FILE);
    int rc = 0;
    if (sl_fs_exists(marker)) {
        char *text = NULL;
        if (sl_fs_read_file(marker, &text, NULL, err) != 0) {
            rc = -1;
        } else if (strcmp(text, SL_MARKER_TEXT) != 0) {
            sl_error_set(err, SL_ERR_CONFIG_FILE, -1,
                         "data directory \"%s\" was written by an unsupported version", data_dir);
            sl_error_detail(err, "The file \"%s\" does not hold the expected marker.", marker);
            rc = -1;
        } else if ((rc = sl__lock(cat, err)) == 0) {
            if (sl_fs_exists(cat->path))
                rc = sl__catalog_load(cat, err);
            else if (sl__only_marker(data_dir)) /* first use interrupted after the marker */
                rc = sl__catalog_write(cat, cat->tables, cat->views, err);
            else
                rc = sl__missing(err, cat->path);
        }
        sl_free(text);
    } else if (sl_fs_is_dir(data_dir) && !sl__dir_is_empty(data_dir)) {
        sl_error_set(err, SL_ERR_CONFIG_FILE, -1, "\"%s\" is not a Sluice data directory",
                     data_dir);
        sl_error_detail(err, "The directory is not empty and has no \"%s\" marker file.",
                        SL_MARKER_FILE);
        sl_error_hint(err, "Choose a new or empty directory with --data-dir or SLUICE_DATA.");
        rc = -1;
    } else {
        /* New: lock, then the marker, then the catalog it vouches for. */
        rc = sl_fs_mkdir_mode(data_dir, 0700, err); /* the catalog holds secrets */
        if (rc == 0)
            rc = sl__lock(cat, err);
        if (rc == 0)
            rc = sl_fs_write_atomic(marker, SL_MARKER_TEXT, strlen(SL_MARKER_TEXT), err);
        if (rc == 0)
            rc = sl__catalog_write(cat, cat->tables, cat->views, err);
    }
    sl_free(marker);
    if (rc != 0) {
        sl_catalog_close(cat);
        return -1;
    }
    *out = cat;
    return 0;
}

sl_catalog *sl_catalog_snapshot(const sl_catalog *cat)
{
    sl_catalog *snap = sl_calloc(1, sizeof *snap);
    snap->tables = sl_list_new();
    snap->views = sl_list_new();
    snap->lock_fd = -1;
    for (int i = 0; i < sl_list_len(cat->tables); i++) {
        const sl_table *t = sl_list_get(cat->tables, i);
        sl_error err = SL_ERROR_INIT;
        /* It was built from the same definition once, so this cannot fail. */
        sl_table *copy = sl_table_from_def(sl_stmt_dup(t->def), &err);
        if (SL_ALWAYS(copy != NULL))
            sl_list_push(snap->tables, copy);
        sl_error_reset(&err);
    }
    for (int i = 0; i < sl_list_len(cat->views); i++) {
        const sl_view *v = sl_list_get(cat->views, i);
        sl_view *copy = sl_calloc(1, sizeof *copy);
        copy->name = sl_strdup(v->name);
        copy->def = sl_stmt_dup(v->def);
        sl_list_push(snap->views, copy);
    }
    return snap;
}

void sl_catalog_close(sl_catalog *cat)
{
    if (!cat)
        return;
    sl_list_free(cat->tables, sl__table_free_v);
    sl_list_free(cat->views, sl__view_free_v);
    sl_fs_unlock(cat->lock_fd);
    sl_free(cat->dir);
    sl_free(cat->path);
    sl_free(cat);
}

const sl_table *sl_catalog_table(const sl_catalog *cat, const char *name)
{
    for (int i = 0; i < sl_list_len(cat->tables); i++) {
        const sl_table *t = sl_list_get(cat->tables, i);
        if (strcmp(t->name, name) == 0)
            return t;
    }
    return NULL;
}

const sl_view *sl_catalog_view(const sl_catalog *cat, const char *name)
{
    for (int i = 0; i < sl_list_len(cat->views); i++) {
        const sl_view *v = sl_list_get(cat->views, i);
        if (strcmp(v->name, name) == 0)
            return v;
    }
    return NULL;
}

static int sl__cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static sl_list *sl__sorted_names(const sl_list *objs, bool tables)
{
    sl_list *names = sl_list_new();
    for (int i = 0; i < sl_list_len(objs); i++)
        sl_list_push(names, sl_strdup(tables ? ((const sl_table *)sl_list_get(objs, i))->name
                                             : ((const sl_view *)sl_list_get(objs, i))->name));
    if (names->n > 1)
        qsort(names->items, (size_t)names->n, sizeof(void *), sl__cmp_str);
    return names;
}

sl_list *sl_catalog_table_names(const sl_catalog *cat)
{
    return sl__sorted_names(cat->tables, true);
}

sl_list *sl_catalog_view_names(const sl_catalog *cat)
{
    return sl__sorted_names(cat->views, false);
}

/* Index of the object called name in list, or -1. */
static int sl__find(const sl_list *l, const char *name, bool tables)
{
    for (int i = 0; i < sl_list_len(l); i++) {
        const char *n = tables ? ((const sl_table *)sl_list_get(l, i))->name
                               : ((const sl_view *)sl_list_get(l, i))->name;
        if (strcmp(n, name) == 0)
            return i;
    }
    return -1;
}

/* Write the catalog as it would be with obj placed at index idx of the list
** it belongs to (idx == n appends; obj == NULL removes idx), and only then
** make that change in memory. */
static int sl__commit_change(sl_catalog *cat, bool tables, int idx, void *obj, sl_error *err)
{
    if (!cat->path)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "a catalog snapshot cannot be changed");
    sl_list *l = tables ? cat->tables : cat->views;
    sl_list shadow = {NULL, 0, 0};
    for (int i = 0; i < l->n; i++) {
        if (i == idx) {
            if (obj)
                sl_list_push(&shadow, obj);
        } else {
            sl_list_push(&shadow, l->items[i]);
        }
    }
    if (idx == l->n && obj)
        sl_list_push(&shadow, obj);
    int rc = sl__catalog_write(cat, tables ? &shadow : cat->tables, tables ? cat->views : &shadow,
                               err);
    sl_free(shadow.items);
    if (rc != 0)
        return -1;
    __atomic_add_fetch(&cat->version, 1, __ATOMIC_RELEASE);
    if (idx == l->n) {
        sl_list_push(l, obj);
    } else if (obj) {
        if (tables)
            sl_table_free(l->items[idx]);
        else
            sl_view_free(l->items[idx]);
        l->items[idx] = obj;
    } else {
        if (tables)
            sl_table_free(l->items[idx]);
        else
            sl_view_free(l->items[idx]);
        memmove(&l->items[idx], &l->items[idx + 1], (size_t)(l->n - idx - 1) * sizeof(void *));
        l->n--;
    }
    return 0;
}

uint64_t sl_catalog_version(const sl_catalog *cat)
{
    return __atomic_load_n(&cat->version, __ATOMIC_ACQUIRE);
}

int sl_catalog_put_table(sl_catalog *cat, sl_stmt *def, sl_error *err)
{
    sl_table *t = sl_table_from_def(def, err);
    if (!t)
        return -1;
    int idx = sl__find(cat->tables, t->name, true);
    if (idx < 0)
        idx = cat->tables->n;
    if (sl__commit_change(cat, true, idx, t, err) != 0) {
        sl_table_free(t);
        return -1;
    }
    return 0;
}

int sl_catalog_put_view(sl_catalog *cat, sl_stmt *def, sl_error *err)
{
    sl_view *v = sl_calloc(1, sizeof *v);
    v->name = sl_strdup(def->name);
    v->def = def;
    int idx = sl__find(cat->views, v->name, false);
    if (idx < 0)
        idx = cat->views->n;
    if (sl__commit_change(cat, false, idx, v, err) != 0) {
        sl_view_free(v);
        return -1;
    }
    return 0;
}

int sl_catalog_overlay_table(sl_catalog *snap, sl_stmt *def, sl_error *err)
{
    if (snap->path) {
        sl_stmt_free(def);
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "only a snapshot takes a session's table");
    }
    sl_table *t = sl_table_from_def(def, err);
    if (!t)
        return -1;
    int idx = sl__find(snap->tables, t->name, true);
    if (idx >= 0) {
        sl_table_free(snap->tables->items[idx]);
        snap->tables->items[idx] = t;
    } else {
        sl_list_push(snap->tables, t);
    }
    return 0;
}

int sl_catalog_rename_table(sl_catalog *cat, const char *from, const char *to, sl_error *err)
{
    int idx = sl__find(cat->tables, from, true);
    if (idx < 0)
        return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, -1, "table \"%s\" does not exist", from);
    const sl_table *old = cat->tables->items[idx];
    sl_stmt *def = sl_stmt_dup(old->def);
    sl_free(def->name);
    def->name = sl_strdup(to);
    sl_table *t = sl_table_from_def(def, err);
    if (!t)
        return -1;
    if (sl__commit_change(cat, true, idx, t, err) != 0) {
        sl_table_free(t);
        return -1;
    }
    return 0;
}

int sl_catalog_drop(sl_catalog *cat, const char *name, bool is_view, sl_error *err)
{
    int idx = sl__find(is_view ? cat->views : cat->tables, name, !is_view);
    if (idx < 0)
        return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, -1,
                            "%s \"%s\" does not exist", is_view ? "view" : "table", name);
    return sl__commit_change(cat, !is_view, idx, NULL, err);
}
