/*
** reconcile_repair.c — RECONCILE ... REPAIR: the missing keys fed again
** into the ledger through the job's own path, then RECONCILE again (its
** second result is the statement's).
**
** Only an idempotent ledger is repaired: a jdbc table whose PRIMARY KEY is
** the ON key and whose 'sink.on-duplicate-key' is 'ignore' — a row already
** there (committed meanwhile by the job itself) is then skipped by the
** database, so nothing is ever doubled. Anything else is 55000 before
** anything is read.
**
** The re-feed runs in a fork of the session, as a bounded (batch) job of
** its own, on session tables and views shadowing the catalog's:
**   __reconcile_source   the source, bounded at the input boundary RECONCILE
**                        read (Kafka: the same end offsets)
**   <source> (a view)    SELECT * FROM __reconcile_source WHERE <predicate>
**                        AND key IN (the missing keys)
**   <ledger>             the ledger with 'sink.delivery-guarantee' =
**                        'at-least-once' and no transactional id prefix: the
**                        job's own prepared transactions stay its own, and
**                        the idempotent insert keeps the effect exactly-once
** and the statement is the job's INSERT from its record (FOR JOB; of a
** statement set, its INSERT into the ledger), else INSERT INTO ledger
** SELECT <the ledger's columns> FROM <source>. The repair job is dropped
** (DROP JOB) once it ended. One key column only (an IN list).
**
** Main routines: sl__rec_repair_check, sl__rec_repair.
*/
#include "reconcile_int.h"
#include "../base/sl_time.h"

#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#define SL__REC_SOURCE "__reconcile_source"

int sl__rec_repair_check(sl__rec *r, sl_error *err)
{
    const sl_table *t = r->ledger;
    const char *dup = sl_kvlist_get(t->def->options, "sink.on-duplicate-key");
    bool pk = t->npk == r->nk && r->nk == 1 && strcmp(t->cols[t->pk[0]].name, r->names[0]) == 0;
    if (t->connector && strcmp(t->connector->name, "jdbc") == 0 && pk && dup &&
        sl_strcasecmp(dup, "ignore") == 0)
        return 0;
    if (r->nk != 1) {
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, r->st->name_pos,
                            "RECONCILE ... REPAIR on a key of several columns is not supported");
    }
    sl_error_set(err, SL_ERR_NOT_IN_STATE, r->st->name_pos,
                 "RECONCILE ... REPAIR needs a ledger whose insert is idempotent");
    sl_error_detail(err, "Table \"%s\" is not a jdbc table with PRIMARY KEY (%s) and "
                         "'sink.on-duplicate-key' = 'ignore': a row fed again could be doubled.",
                    t->name, r->names[0]);
    sl_error_hint(err, "Declare PRIMARY KEY (%s) NOT ENFORCED and 'sink.on-duplicate-key' = "
                       "'ignore' on the ledger (ALTER TABLE %s SET (...)).",
                  r->names[0], t->name);
    return -1;
}

typedef struct sl__rec_in {
    sl_list *args; /* CAST('value' AS type) per missing key */
    sl_type type;  /* the key's type */
} sl__rec_in;

static void sl__rec_in_add(void *ctx, const char *v, size_t len)
{
    sl__rec_in *in = ctx;
    sl_expr *cast = sl_expr_new(SL_EXPR_CAST, -1);
    cast->left = sl_expr_literal(SL_EXPR_STRING, v, len, -1);
    cast->type = in->type;
    sl_list_push(in->args, cast);
}

/* The statement that re-feeds: the job's INSERT into the ledger, or one of
** the ledger's columns. NULL with err. */
static sl_stmt *sl__rec_insert(sl__rec *r, sl_error *err)
{
    if (!r->st->job) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_strbuf_append(&sb, "INSERT INTO ");
        sl_ident_print(&sb, r->ledger->name);
        sl_strbuf_append(&sb, " SELECT ");
        for (int i = 0; i < r->ledger->ncols; i++) {
            const char *c = r->ledger->cols[i].name;
            if (!sl__rec_col_of(r->source, c)) {
                sl_strbuf_free(&sb);
                sl_error_set(err, SL_ERR_NOT_SUPPORTED, r->st->name_pos,
                             "RECONCILE ... REPAIR cannot fill column \"%s\" of \"%s\": \"%s\" "
                             "has none",
                             c, r->ledger->name, r->source->name);
                sl_error_hint(err, "Name the job that feeds the ledger with FOR JOB: its "
                                   "statement is run again.");
                return NULL;
            }
            if (i)
                sl_strbuf_append(&sb, ", ");
            sl_ident_print(&sb, c);
        }
        sl_strbuf_append(&sb, " FROM ");
        sl_ident_print(&sb, r->source->name);
        sl_stmt *st = sl_parse_one(sb.buf, sb.len, err);
        sl_strbuf_free(&sb);
        return st;
    }
    json_t *rec = NULL;
    if (sl__job_info(r->s->eng, r->st->job, &rec, err) != 0)
        return NULL;
    const char *text = rec ? json_string_value(json_object_get(rec, "statement")) : NULL;
    sl_stmt *st = text ? sl_parse_one(text, strlen(text), err) : NULL;
    json_decref(rec);
    if (st && st->kind == SL_STMT_STATEMENT_SET) { /* its INSERT into the ledger */
        sl_stmt *one = NULL;
        for (int i = 0; i < sl_list_len(st->stmts) && !one; i++) {
            sl_stmt *in = sl_list_get(st->stmts, i);
            if (in->name && strcmp(in->name, r->ledger->name) == 0) {
                one = in;
                st->stmts->items[i] = NULL;
            }
        }
        sl_stmt_free(st);
        st = one;
    }
    if (!st || st->kind != SL_STMT_INSERT || strcmp(st->name, r->ledger->name) != 0) {
        sl_stmt_free(st);
        if (!sl_error_isset(err))
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, r->st->job_pos,
                         "job \"%s\" has no INSERT INTO \"%s\" to run again", r->st->job,
                         r->ledger->name);
        return NULL;
    }
    return st;
}

int sl__rec_repair(sl__rec *r, sl_error *err)
{
    sl__rec_in in = {sl_list_new(), r->types[0]};
    sl_rk_each_missing(r->keys, sl__rec_in_add, &in);
    int rc = sl_rk_error(r->keys, err); /* a spilled partition not read back */
    if (rc != 0 || in.args->n == 0) {
        sl_list_free(in.args, sl_expr_free_v);
        return rc;
    }
    sl_stmt *insert = sl__rec_insert(r, err);
    if (!insert) {
        sl_list_free(in.args, sl_expr_free_v);
        return -1;
    }
    sl_session *f = sl__rec_fork(r->s);
    if (!f->ttables)
        f->ttables = sl_list_new();
    /* the source, bounded where RECONCILE read it */
    sl_stmt *src = sl_stmt_dup(r->source->def);
    sl_free(src->name);
    src->name = sl_strdup(SL__REC_SOURCE);
    src->temporary = true;
    for (int i = 0; r->bound && i < r->bound->n; i++)
        sl_kvlist_set(src->options, r->bound->items[i].key, r->bound->items[i].value, -1, -1);
    sl_list_push(f->ttables, src);
    /* the ledger, at-least-once under its idempotent insert */
    sl_stmt *led = sl_stmt_dup(r->ledger->def);
    led->temporary = true;
    sl_kvlist_set(led->options, "sink.delivery-guarantee", "at-least-once", -1, -1);
    sl_kvlist_remove(led->options, "sink.transactional-id-prefix");
    sl_list_push(f->ttables, led);
    f->tgen++;
    /* the source's name: the missing keys of the range */
    sl_expr *key = sl_expr_column(NULL, sl_strdup(r->names[0]), -1);
    sl_expr *inx = sl_expr_new(SL_EXPR_IN, -1);
    inx->left = key;
    inx->args = in.args;
    sl_query *q = sl_calloc(1, sizeof *q);
    q->kind = SL_QUERY_SELECT;
    q->pos = -1;
    q->items = sl_list_new();
    sl_select_item *it = sl_calloc(1, sizeof *it);
    it->expr = sl_expr_new(SL_EXPR_STAR, -1);
    it->alias_pos = -1;
    sl_list_push(q->items, it);
    q->from = sl_calloc(1, sizeof *q->from);
    q->from->kind = SL_FROM_TABLE;
    q->from->pos = -1;
    q->from->name = sl_strdup(SL__REC_SOURCE);
    q->from->alias_pos = -1;
    q->where = r->st->where ? sl_expr_binary(SL_OP_AND, sl_expr_dup(r->st->where), inx, -1) : inx;
    sl_stmt *vdef = sl_calloc(1, sizeof *vdef);
    vdef->kind = SL_STMT_CREATE_VIEW;
    vdef->name = sl_strdup(r->source->name);
    vdef->name_pos = -1;
    vdef->temporary = true;
    vdef->query = q;
    sl_view *v = sl_calloc(1, sizeof *v);
    v->name = sl_strdup(r->source->name);
    v->temporary = true;
    v->def = vdef;
    sl_list_push(f->tviews, v);
    char *name = sl_sprintf("reconcile-repair-%" PRId64, sl_now_nanos());
    sl_kvlist_set(f->config, "pipeline.name", name, -1, -1);
    rc = sl__run_stmt(f, insert, NULL, err);
    sl_stmt_free(insert);
    if (rc == 0) { /* the repair job's record and checkpoints go */
        char *drop = sl_sprintf("DROP JOB '%s'", name);
        sl_error ignored = SL_ERROR_INIT;
        sl_session_exec(f, drop, strlen(drop), NULL, &ignored);
        sl_error_reset(&ignored);
        sl_free(drop);
    }
    sl_free(name);
    sl_session_free(f);
    return rc;
}
