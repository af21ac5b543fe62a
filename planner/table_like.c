/*
** table_like.c — CREATE TABLE ... LIKE source: the definition the statement
** makes, merged from the source table's and its own as Flink does
** (MergeTableLikeUtil), so that the catalog keeps (and SHOW CREATE TABLE
** prints) a plain CREATE TABLE.
**
**   columns      the source's physical columns, then its computed ones
**                (GENERATED: INCLUDING / OVERWRITING keep them, EXCLUDING
**                drops them), then the statement's own; a physical column
**                named twice is 42701, a computed one named twice is 42701
**                unless OVERWRITING GENERATED (the statement's replaces it)
**   PRIMARY KEY  the source's (CONSTRAINTS INCLUDING) or the statement's;
**                both is 42P16
**   WATERMARK    the source's (WATERMARKS INCLUDING / OVERWRITING) unless the
**                statement has one: with INCLUDING that is 42P16
**   options      OVERWRITING (the default): the source's with the statement's
**                replacing equal keys; INCLUDING: both, an equal key is 42P16;
**                EXCLUDING: the statement's only
**   COMMENT      the statement's
**
**   metadata     the source's METADATA columns unless EXCLUDING METADATA;
**                OVERWRITING METADATA lets the statement's replace one
**
** Without options LIKE is INCLUDING ALL OVERWRITING OPTIONS; PARTITIONS is
** accepted (Sluice's tables have none).
**
** Main routine: sl_table_like.
*/
#include "planner_int.h"

#include <string.h>

static int sl__mode(const sl_stmt *st, sl_like_feature f)
{
    if (st->like_opts[f])
        return st->like_opts[f];
    if (st->like_opts[SL_LIKE_ALL])
        return st->like_opts[SL_LIKE_ALL];
    return f == SL_LIKE_OPTIONS ? SL_LIKE_OVERWRITING : SL_LIKE_INCLUDING;
}

static void sl__coldef_free_v(void *c)
{
    sl_column_def_free(c);
}

/* A copy of c positioned at pos (the source's positions are another
** statement's). */
static sl_column_def *sl__col_dup(const sl_column_def *c, int pos)
{
    sl_column_def *d = sl_column_def_dup(c);
    d->pos = d->type_pos = pos;
    return d;
}

static sl_ident *sl__ident_dup(const sl_ident *id, int pos)
{
    sl_ident *d = sl_calloc(1, sizeof *d);
    d->name = sl_strdup(id->name);
    d->pos = pos;
    return d;
}

static int sl__find(const sl_list *cols, const char *name)
{
    for (int i = 0; i < sl_list_len(cols); i++)
        if (strcmp(((const sl_column_def *)sl_list_get(cols, i))->name, name) == 0)
            return i;
    return -1;
}

sl_stmt *sl_table_like(const sl_catalog *cat, const sl_stmt *st, sl_error *err)
{
    const char *name = st->like->name;
    int at = st->like->pos;
    const sl_table *t = sl_catalog_table(cat, name);
    if (!t) {
        if (sl_catalog_view(cat, name))
            sl_error_set(err, SL_ERR_WRONG_OBJECT_TYPE, at, "\"%s\" is not a table", name);
        else
            sl_error_set(err, SL_ERR_UNDEFINED_TABLE, at, "table \"%s\" does not exist", name);
        if (sl_catalog_view(cat, name))
            sl_error_hint(err, "LIKE takes a table's definition; a view has none to copy.");
        return NULL;
    }
    const sl_stmt *src = t->def;
    sl_stmt *def = sl_stmt_dup(st);
    sl_ident_free(def->like);
    def->like = NULL;
    memset(def->like_opts, 0, sizeof def->like_opts);
    sl_list *cols = sl_list_new();
    int gen = sl__mode(st, SL_LIKE_GENERATED), meta = sl__mode(st, SL_LIKE_METADATA);
    for (int i = 0; i < sl_list_len(src->columns); i++) {
        const sl_column_def *c = sl_list_get(src->columns, i);
        if ((!c->expr || gen != SL_LIKE_EXCLUDING) && (!c->metadata || meta != SL_LIKE_EXCLUDING))
            sl_list_push(cols, sl__col_dup(c, at));
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < sl_list_len(st->columns); i++) {
        const sl_column_def *c = sl_list_get(st->columns, i);
        int k = sl__find(cols, c->name);
        if (k < 0) {
            sl_list_push(cols, sl__col_dup(c, c->pos));
            continue;
        }
        sl_column_def *old = sl_list_get(cols, k);
        if (old->metadata && c->metadata && meta == SL_LIKE_OVERWRITING) {
            cols->items[k] = sl__col_dup(c, c->pos);
            sl_column_def_free(old);
            continue;
        }
        if (old->expr && c->expr && gen == SL_LIKE_OVERWRITING) {
            sl_expr_free(old->expr);
            old->expr = sl_expr_dup(c->expr);
            sl_free(old->comment);
            old->comment = sl_strdup(c->comment);
            old->pos = old->type_pos = c->pos;
            continue;
        }
        rc = sl_error_set(err, SL_ERR_DUPLICATE_COLUMN, c->pos,
                          "a %scolumn named \"%s\" already exists in the base table",
                          old->expr ? "computed " : old->metadata ? "metadata " : "", c->name);
        if (old->expr)
            sl_error_hint(err, "Use EXCLUDING GENERATED or OVERWRITING GENERATED.");
        if (old->metadata)
            sl_error_hint(err, "Use EXCLUDING METADATA or OVERWRITING METADATA.");
    }
    sl_list_free(def->columns, sl__coldef_free_v); /* the statement's own, copied above */
    def->columns = cols;
    /* PRIMARY KEY */
    if (rc == 0 && src->primary_key && sl__mode(st, SL_LIKE_CONSTRAINTS) != SL_LIKE_EXCLUDING) {
        if (st->primary_key) {
            rc = sl_error_set(err, SL_ERR_INVALID_TABLE_DEF, st->pk_pos,
                              "the base table \"%s\" already has a primary key", name);
            sl_error_hint(err, "Use EXCLUDING CONSTRAINTS.");
        } else {
            def->primary_key = sl_list_new();
            for (int i = 0; i < sl_list_len(src->primary_key); i++)
                sl_list_push(def->primary_key, sl__ident_dup(sl_list_get(src->primary_key, i), at));
            def->pk_pos = at;
        }
    }
    /* PARTITIONED BY */
    if (rc == 0 && src->partition_by && sl__mode(st, SL_LIKE_PARTITIONS) != SL_LIKE_EXCLUDING) {
        if (st->partition_by) {
            const sl_ident *p0 = sl_list_get(st->partition_by, 0);
            rc = sl_error_set(err, SL_ERR_INVALID_TABLE_DEF, p0->pos,
                              "the base table \"%s\" already has partitions", name);
            sl_error_hint(err, "Use EXCLUDING PARTITIONS.");
        } else {
            def->partition_by = sl_list_new();
            for (int i = 0; i < sl_list_len(src->partition_by); i++)
                sl_list_push(def->partition_by,
                             sl__ident_dup(sl_list_get(src->partition_by, i), at));
        }
    }
    /* WATERMARK */
    int wm = sl__mode(st, SL_LIKE_WATERMARKS);
    if (rc == 0 && src->wm_column && wm != SL_LIKE_EXCLUDING) {
        if (st->wm_column && wm == SL_LIKE_INCLUDING) {
            rc = sl_error_set(err, SL_ERR_INVALID_TABLE_DEF, st->wm_column->pos,
                              "there already exists a watermark for column \"%s\" in the base "
                              "table",
                              src->wm_column->name);
            sl_error_hint(err, "Use EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.");
        } else if (!st->wm_column) {
            def->wm_column = sl__ident_dup(src->wm_column, at);
            def->wm_expr = sl_expr_dup(src->wm_expr);
        }
    }
    /* Options */
    int opt = sl__mode(st, SL_LIKE_OPTIONS);
    if (rc == 0 && opt != SL_LIKE_EXCLUDING && src->options) {
        sl_kvlist *kv = sl_kvlist_new();
        for (int i = 0; i < src->options->n; i++)
            sl_kvlist_add(kv, src->options->items[i].key, src->options->items[i].value, at, at);
        for (int i = 0; rc == 0 && st->options && i < st->options->n; i++) {
            const sl_kv *o = &st->options->items[i];
            if (opt == SL_LIKE_INCLUDING && sl_kvlist_find(kv, o->key)) {
                rc = sl_error_set(err, SL_ERR_INVALID_TABLE_DEF, o->key_pos,
                                  "there already exists an option '%s' in the base table", o->key);
                sl_error_hint(err, "Use EXCLUDING OPTIONS or OVERWRITING OPTIONS.");
            }
            sl_kvlist_set(kv, o->key, o->value, o->key_pos, o->value_pos);
        }
        sl_kvlist_free(def->options);
        def->options = kv;
        if (def->options_pos < 0)
            def->options_pos = at;
    }
    if (rc != 0) {
        sl_stmt_free(def);
        return NULL;
    }
    return def;
}
