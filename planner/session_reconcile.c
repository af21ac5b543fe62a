/*
** session_reconcile.c — RECONCILE ledger AGAINST source ON key, ...
** [COMPARE col, ...] [WHERE predicate] [FOR JOB 'name'] [REPAIR]: compare a
** ledger table with a bounded read of its source of truth, one result row
** per check (check STRING, ok BOOLEAN, count BIGINT, sample STRING):
** missing, duplicated, extra, mismatched, late, verdict (docs/SQL.md).
**
** Both sides are read as queries of this session's engine, in a fork of
** the session in batch mode (so every connector reads its table as it does
** for any query: the PostgreSQL scan, the files, ...):
**   SELECT CAST(key AS T), ..., CAST(col AS T), ... FROM side [WHERE predicate]
** each column cast to the common type of its two sides, so that equal
** values have equal bytes (reconcile_keys.c compares them). The rows come
** as chunks (sl_result_sink.chunk), not text: the key is written as text
** (samples and REPAIR show it), the COMPARE values in a compact binary
** form (sl__rec_val_encode); the row callback (text) remains for a query
** whose result is collected as a changelog. The predicate
** filters the source through the one evaluator; it filters the ledger too
** when every column it names is also the ledger's, else the whole ledger
** is compared (extra then counts every ledger key outside the source's
** range). The source must be bounded: a table whose connector ends, or
** one whose connector can end where its input ends now (caps.source_end:
** Kafka's read_committed end offsets, the input boundary); a Kafka ledger
** is read up to its end now the same way, a PostgreSQL ledger by one
** unordered COPY per range (the jdbc scan's 'scan.copy'), which takes the
** predicate's simple conjuncts as its own WHERE (reconcile_push.c,
** 'scan.copy.where'). The two sides are
** read at once, the ledger on a thread of its own, into the key table's
** partitions (reconcile_keys.c).
**
** late: the rows of the late-rows table (FOR JOB: the one the job started
** with, from its record; else 'table.exec.late-rows.table'; with FOR JOB
** and neither, every table of the late-rows layout: job, event_time,
** watermark, row) whose event_time lies in the
** predicate's range on the source's rowtime column (its conjuncts over
** that column alone), of the job named by FOR JOB.
** Late rows for a settled range are adjustments still to make: late is not
** ok when there are any.
**
** Main routines: sl__reconcile_stmt.
*/
#include "reconcile_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

const char *const sl_reconcile_names[4] = {"check", "ok", "count", "sample"};
const sl_type_id sl_reconcile_types[4] = {SL_TYPE_VARCHAR, SL_TYPE_BOOLEAN, SL_TYPE_BIGINT,
                                          SL_TYPE_VARCHAR};

const sl_column *sl__rec_col_of(const sl_table *t, const char *name)
{
    for (int i = 0; i < t->nall; i++)
        if (strcmp(t->all[i].name, name) == 0)
            return &t->all[i];
    return NULL;
}

static const sl_table *sl__rec_table(sl_session *s, const char *name, int pos, sl_error *err)
{
    const sl_table *t = sl_catalog_table(sl__cat(s), name);
    if (!t)
        sl_error_set(err, SL_ERR_UNDEFINED_TABLE, pos, "table \"%s\" does not exist", name);
    return t;
}

/* Resolve one ON / COMPARE column on both sides into its common type. */
static int sl__rec_column(sl__rec *r, const sl_ident *id, int i, sl_error *err)
{
    const sl_column *sc = sl__rec_col_of(r->source, id->name);
    const sl_column *lc = sl__rec_col_of(r->ledger, id->name);
    if (!sc && !lc)
        return sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, id->pos,
                            "column \"%s\" does not exist in \"%s\" nor in \"%s\"", id->name,
                            r->ledger->name, r->source->name);
    if (!sc || !lc) {
        sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, id->pos,
                     "column \"%s\" exists in \"%s\" but not in \"%s\"", id->name,
                     sc ? r->source->name : r->ledger->name,
                     sc ? r->ledger->name : r->source->name);
        sl_error_hint(err, "RECONCILE compares columns of the same name on both sides.");
        return -1;
    }
    for (int j = 0; j < i; j++)
        if (strcmp(r->names[j], id->name) == 0)
            return sl_error_set(err, SL_ERR_DUPLICATE_COLUMN, id->pos,
                                "column \"%s\" specified more than once", id->name);
    if (!sl_type_common(sc->type, lc->type, &r->types[i])) {
        sl_strbuf a = SL_STRBUF_INIT, b = SL_STRBUF_INIT;
        sl_type_format(&a, sc->type);
        sl_type_format(&b, lc->type);
        sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, id->pos,
                     "column \"%s\" is %s in \"%s\" and %s in \"%s\": they cannot be compared",
                     id->name, sl_strbuf_cstr(&a), r->source->name, sl_strbuf_cstr(&b),
                     r->ledger->name);
        sl_strbuf_free(&a);
        sl_strbuf_free(&b);
        return -1;
    }
    r->types[i].not_null = false;
    r->names[i] = id->name;
    return 0;
}

/* Whether every column e names is one of t's (no subquery). */
static bool sl__rec_expr_in(const sl_expr *e, const sl_table *t)
{
    if (!e)
        return true;
    if (e->kind == SL_EXPR_SUBQUERY || e->kind == SL_EXPR_EXISTS || e->query)
        return false;
    if (e->kind == SL_EXPR_COLUMN && !sl__rec_col_of(t, e->text))
        return false;
    if (!sl__rec_expr_in(e->left, t) || !sl__rec_expr_in(e->right, t) ||
        !sl__rec_expr_in(e->filter, t))
        return false;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (!sl__rec_expr_in(sl_list_get(e->args, i), t))
            return false;
    return true;
}

/* SELECT CAST(c AS T), ... FROM table [WHERE where] over the resolved
** columns (positions of the statement's, for errors). */
static sl_stmt *sl__rec_query(sl__rec *r, const sl_table *t, int pos, const sl_expr *where)
{
    sl_query *q = sl_calloc(1, sizeof *q);
    q->kind = SL_QUERY_SELECT;
    q->pos = r->st->pos;
    q->items = sl_list_new();
    for (int i = 0; i < r->nk + r->nc; i++) {
        const sl_ident *id = sl_list_get(i < r->nk ? r->st->keys : r->st->compare,
                                         i < r->nk ? i : i - r->nk);
        sl_expr *cast = sl_expr_new(SL_EXPR_CAST, id->pos);
        cast->left = sl_expr_column(NULL, sl_strdup(id->name), id->pos);
        cast->type = r->types[i];
        sl_select_item *it = sl_calloc(1, sizeof *it);
        it->expr = cast;
        it->alias = sl_sprintf("c%d", i);
        it->alias_pos = -1;
        sl_list_push(q->items, it);
    }
    q->from = sl_calloc(1, sizeof *q->from);
    q->from->kind = SL_FROM_TABLE;
    q->from->pos = pos;
    q->from->name = sl_strdup(t->name);
    q->from->alias_pos = -1;
    q->where = sl_expr_dup(where);
    sl_stmt *st = sl_calloc(1, sizeof *st);
    st->kind = SL_STMT_QUERY;
    st->pos = r->st->pos;
    st->name_pos = -1;
    st->query = q;
    return st;
}

/* A fork of the session that reads bounded tables as queries do: batch
** mode, rows as they arrive, one task per operator (the first row of a key
** is the source's first). */
sl_session *sl__rec_fork(sl_session *s)
{
    sl_session *f = sl__session_fork(s);
    sl_kvlist_set(f->config, "execution.runtime-mode", "batch", -1, -1);
    sl_kvlist_set(f->config, "sql-client.execution.result-mode", "tableau", -1, -1);
    sl_kvlist_set(f->config, "parallelism.default", "1", -1, -1);
    sl_kvlist_set(f->config, "table.dml-sync", "true", -1, -1);
    f->interrupt = s->interrupt;
    return f;
}

/* Run a query in the fork, rows to sink; an interrupted read is 57014. */
int sl__rec_run(sl__rec *r, sl_session *f, sl_stmt *q, const sl_result_sink *sink,
                sl_error *err)
{
    int rc = sl__run_stmt(f, q, sink, err);
    sl_stmt_free(q);
    if (rc == 0 && r->s->interrupt && *r->s->interrupt)
        rc = sl_error_set(err, SL_ERR_QUERY_CANCELED, -1,
                          "canceling statement due to user request");
    return rc;
}

/* One side's reader: its own fork of the session, its rows encoded and
** added to the key table in batches under the mutex. */
typedef struct sl__rec_side {
    sl__rec *r;
    bool ledger;          /* which side */
    sl_session *f;        /* its fork */
    sl_stmt *q;           /* its query (sl__rec_run frees it) */
    sl_strbuf batch;      /* encoded rows: u32 key length, key, u32 values length, values */
    int nbatch;           /* rows in it */
    sl_error err;         /* its error */
    int rc;
    size_t *offs;         /* flush: each row's offset in batch */
    uint64_t *hashes;     /* ... and its key's hash */
    int *order;           /* ... the rows by partition of the key table */
    const sl_tz *tz;      /* the session's time zone (TIMESTAMP_LTZ keys as text) */
} sl__rec_side;

#define SL__REC_BATCH 4096 /* rows added to the key table at once */

/* Add the batch: its keys hashed, then grouped by the key table's
** partition (a counting sort), then partition by partition under that
** partition's lock, each slot prefetched a few rows ahead of its add (the
** table is far larger than the caches: a probe is a cache miss). The other
** reader waits only when it adds to the same partition at that moment. */
static void sl__rec_flush(sl__rec_side *d)
{
    enum { AHEAD = 8 };
    size_t *offs = d->offs;
    int n = 0, start[SL_RK_PARTS + 1] = {0};
    for (size_t off = 0; off < d->batch.len && n < SL__REC_BATCH; n++) {
        uint32_t kl, vl;
        memcpy(&kl, d->batch.buf + off, sizeof kl);
        memcpy(&vl, d->batch.buf + off + sizeof kl + kl, sizeof vl);
        offs[n] = off;
        d->hashes[n] = sl_rk_hash(d->batch.buf + off + sizeof kl, kl);
        start[sl_rk_part(d->hashes[n]) + 1]++;
        off += 2 * sizeof kl + kl + vl;
    }
    for (int p = 0; p < SL_RK_PARTS; p++)
        start[p + 1] += start[p];
    int fill[SL_RK_PARTS];
    memcpy(fill, start, sizeof fill);
    for (int i = 0; i < n; i++)
        d->order[fill[sl_rk_part(d->hashes[i])]++] = i;
    sl_rk *keys = d->r->keys;
    for (int p = 0; p < SL_RK_PARTS; p++) {
        int lo = start[p], hi = start[p + 1];
        if (lo == hi)
            continue;
        sl_rk_lock(keys, p);
        for (int i = lo; i < hi && i < lo + AHEAD; i++)
            sl_rk_prefetch(keys, d->hashes[d->order[i]]);
        for (int i = lo; i < hi; i++) {
            if (i + AHEAD < hi)
                sl_rk_prefetch(keys, d->hashes[d->order[i + AHEAD]]);
            int row = d->order[i];
            uint32_t kl, vl;
            const char *q = d->batch.buf + offs[row];
            memcpy(&kl, q, sizeof kl);
            const char *k = q + sizeof kl;
            memcpy(&vl, k + kl, sizeof vl);
            sl_rk_add_hashed(keys, d->ledger, d->hashes[row], k, kl, k + kl + sizeof vl, vl);
        }
        sl_rk_unlock(keys, p);
    }
    sl_strbuf_reset(&d->batch);
    d->nbatch = 0;
}

static int sl__rec_row_in(void *ctx, const char *const *values, const size_t *lens)
{
    sl__rec_side *d = ctx;
    sl__rec *r = d->r;
    /* u32 length, encoded key, u32 length, encoded values: straight into the batch */
    uint32_t len = 0;
    size_t at = d->batch.len;
    sl_strbuf_append_n(&d->batch, (const char *)&len, sizeof len);
    sl_rk_encode(&d->batch, r->nk, values, lens);
    len = (uint32_t)(d->batch.len - at - sizeof len);
    memcpy(d->batch.buf + at, &len, sizeof len);
    at = d->batch.len;
    len = 0;
    sl_strbuf_append_n(&d->batch, (const char *)&len, sizeof len);
    sl_rk_encode(&d->batch, r->nc, values + r->nk, lens + r->nk);
    len = (uint32_t)(d->batch.len - at - sizeof len);
    memcpy(d->batch.buf + at, &len, sizeof len);
    if (++d->nbatch >= SL__REC_BATCH)
        sl__rec_flush(d);
    return atomic_load(&r->stop) || (r->s->interrupt && *r->s->interrupt) ? 1 : 0;
}

/* Chunks (sl_result_sink.chunk): the same batch entries without the text
** round trip. The key stays text in sl_rk_encode's layout (samples show
** it, REPAIR feeds it back as a literal): integers and VARCHAR written
** directly, anything else by sl_value_format_tz. The values only need
** "equal bytes when equal": both sides are cast to one type per column, so
** each is its binary form, compacted (sl__rec_val_put). A row's bytes are
** written through a pointer into room reserved for the row at once. */
static char *sl__rec_varint(char *p, unsigned __int128 u)
{
    do {
        *p++ = (char)((u & 0x7f) | (u > 0x7f ? 0x80 : 0));
        u >>= 7;
    } while (u);
    return p;
}

/* Bytes value r of v takes at most in sl__rec_val_put's form. */
static size_t sl__rec_val_room(const sl_vector *v, int r)
{
    return 1 + (v->phys == SL_PHYS_STR ? 5 + (size_t)v->v.str[r].len : 19);
}

static char *sl__rec_val_put(char *p, const sl_vector *v, int r)
{
    if (v->nulls[r]) {
        *p++ = 0;
        return p;
    }
    *p++ = 1;
    switch (v->phys) {
    case SL_PHYS_BOOL:
        *p++ = v->v.b[r] ? 1 : 0;
        break;
    case SL_PHYS_I64: { /* zigzag: small magnitudes take few bytes */
        int64_t x = v->v.i64[r];
        p = sl__rec_varint(p, (uint64_t)(((uint64_t)x << 1) ^ (uint64_t)(x >> 63)));
        break;
    }
    case SL_PHYS_I128: {
        sl_i128 x = v->v.i128[r];
        p = sl__rec_varint(p, ((unsigned __int128)x << 1) ^ (unsigned __int128)(x >> 127));
        break;
    }
    case SL_PHYS_F64: { /* SQL equality: -0 = 0, one NaN */
        double x = v->v.f64[r];
        if (x == 0)
            x = 0;
        else if (x != x)
            x = __builtin_nan("");
        memcpy(p, &x, sizeof x);
        p += sizeof x;
        break;
    }
    case SL_PHYS_STR:
        p = sl__rec_varint(p, v->v.str[r].len);
        memcpy(p, v->v.str[r].ptr, v->v.str[r].len);
        p += v->v.str[r].len;
        break;
    }
    return p;
}

static int sl__rec_chunk_in(void *ctx, const sl_chunk *c)
{
    sl__rec_side *d = ctx;
    sl__rec *r = d->r;
    sl_strbuf *b = &d->batch;
    for (int row = 0; row < c->nrows; row++) {
        size_t room = 8;
        for (int i = 0; i < r->nk + r->nc; i++)
            room += i < r->nk ? 5 + (c->cols[i].phys == SL_PHYS_STR ? c->cols[i].v.str[row].len : 24)
                              : sl__rec_val_room(&c->cols[i], row);
        sl_strbuf_reserve(b, room);
        size_t at = b->len;
        char *p = b->buf + at + sizeof(uint32_t);
        for (int i = 0; i < r->nk; i++) {
            const sl_vector *v = &c->cols[i];
            if (v->nulls[row]) {
                *p++ = 0;
                continue;
            }
            *p++ = 1;
            char *lp = p;
            p += sizeof(uint32_t);
            if (v->phys == SL_PHYS_I64 && sl_type_is_integer(v->type.id)) {
                p = sl_i64_put(p, v->v.i64[row]);
            } else if (v->type.id == SL_TYPE_VARCHAR) {
                memcpy(p, v->v.str[row].ptr, v->v.str[row].len);
                p += v->v.str[row].len;
            } else { /* the general formatting, through the buffer (which may move) */
                size_t lat = (size_t)(lp - b->buf);
                b->len = (size_t)(p - b->buf);
                sl_value_format_tz(b, v, row, d->tz);
                sl_strbuf_reserve(b, room);
                lp = b->buf + lat;
                p = b->buf + b->len;
            }
            uint32_t vl = (uint32_t)(p - lp - sizeof vl);
            memcpy(lp, &vl, sizeof vl);
        }
        uint32_t kl = (uint32_t)(p - (b->buf + at) - sizeof kl);
        memcpy(b->buf + at, &kl, sizeof kl);
        char *vp = p;
        p += sizeof(uint32_t);
        for (int i = r->nk; i < r->nk + r->nc; i++)
            p = sl__rec_val_put(p, &c->cols[i], row);
        uint32_t vl = (uint32_t)(p - vp - sizeof vl);
        memcpy(vp, &vl, sizeof vl);
        b->len = (size_t)(p - b->buf);
        if (++d->nbatch >= SL__REC_BATCH)
            sl__rec_flush(d);
    }
    return atomic_load(&r->stop) || (r->s->interrupt && *r->s->interrupt) ? 1 : 0;
}

static void sl__rec_side_run(sl__rec_side *d)
{
    sl_result_sink sink = {d, NULL, sl__rec_row_in, NULL, NULL, sl__rec_chunk_in};
    d->rc = sl__rec_run(d->r, d->f, d->q, &sink, &d->err);
    d->q = NULL;
    if (d->rc != 0)
        atomic_store(&d->r->stop, true); /* the other side stops too */
    sl__rec_flush(d);
}

static void *sl__rec_side_main(void *arg)
{
    sl__rec_side_run(arg);
    return NULL;
}

static void sl__rec_side_free(sl__rec_side *d)
{
    sl_session_free(d->f);
    sl_strbuf_free(&d->batch);
    sl_free(d->offs);
    sl_free(d->hashes);
    sl_free(d->order);
    sl_error_reset(&d->err);
}

/* A session table of f over t with the options of bound (none: nothing). */
static void sl__rec_overlay(sl_session *f, const sl_table *t, const sl_kvlist *bound)
{
    if (!bound)
        return;
    sl_stmt *def = sl_stmt_dup(t->def);
    def->temporary = true;
    for (int i = 0; i < bound->n; i++)
        sl_kvlist_set(def->options, bound->items[i].key, bound->items[i].value, -1, -1);
    for (int i = 0; i < sl_list_len(f->ttables); i++) {
        sl_stmt *o = sl_list_get(f->ttables, i);
        if (strcmp(o->name, def->name) == 0) {
            sl_stmt_free(o);
            f->ttables->items[i] = f->ttables->items[--f->ttables->n];
            break;
        }
    }
    if (!f->ttables)
        f->ttables = sl_list_new();
    sl_list_push(f->ttables, def);
    f->tgen++;
}

/* Read both sides into the key table, at once: the ledger on a thread of
** its own, the source in the caller's. */
static int sl__rec_read(sl__rec *r, sl_error *err)
{
    sl__rec_side src = {r, false, sl__rec_fork(r->s), NULL, SL_STRBUF_INIT, 0, SL_ERROR_INIT, 0,
                        sl_calloc(SL__REC_BATCH, sizeof(size_t)),
                        sl_calloc(SL__REC_BATCH, sizeof(uint64_t)),
                        sl_calloc(SL__REC_BATCH, sizeof(int)), NULL};
    sl__rec_side led = {r, true, sl__rec_fork(r->s), NULL, SL_STRBUF_INIT, 0, SL_ERROR_INIT, 0,
                        sl_calloc(SL__REC_BATCH, sizeof(size_t)),
                        sl_calloc(SL__REC_BATCH, sizeof(uint64_t)),
                        sl_calloc(SL__REC_BATCH, sizeof(int)), NULL};
    sl_tz *tz = NULL;
    if (sl__time_zone(r->s, &tz, err) != 0) {
        sl__rec_side_free(&src);
        sl__rec_side_free(&led);
        return -1;
    }
    src.tz = led.tz = tz;
    sl_session *f = src.f;
    sl__rec_overlay(f, r->source, r->bound); /* the source up to its input boundary */
    sl__rec_overlay(led.f, r->ledger, r->lbound); /* Kafka: up to its end now; jdbc: COPY */
    atomic_store(&r->stop, false);
    src.q = sl__rec_query(r, r->source, r->st->source->pos, r->st->where);
    led.q = sl__rec_query(r, r->ledger, r->st->name_pos, r->ledger_where ? r->st->where : NULL);
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, sl__rec_side_main, &led) == 0;
    sl__rec_side_run(&src);
    if (threaded)
        pthread_join(th, NULL);
    else
        sl__rec_side_run(&led);
    /* the first failure: the source's, else the ledger's (a side stopped by
    ** the other's failure reports nothing of its own) */
    int rc = 0;
    if (src.rc != 0 && sl_error_isset(&src.err)) {
        sl_error_move(err, &src.err);
        rc = -1;
    } else if (led.rc != 0) {
        sl_error_move(err, &led.err);
        rc = -1;
    } else if (src.rc != 0) {
        rc = sl_error_set(err, SL_ERR_QUERY_CANCELED, -1, "canceling statement due to user "
                                                          "request");
    }
    sl__rec_side_free(&src);
    sl__rec_side_free(&led);
    sl_tz_free(tz);
    return rc;
}

/* ------------------------------------------------------------------------
** late
*/

/* Conjuncts of e that name only column col, as copies naming "event_time"
** instead, ANDed (NULL when none). */
static bool sl__rec_only(const sl_expr *e, const char *col)
{
    if (!e)
        return true;
    if (e->kind == SL_EXPR_SUBQUERY || e->kind == SL_EXPR_EXISTS || e->query)
        return false;
    if (e->kind == SL_EXPR_COLUMN && strcmp(e->text, col) != 0)
        return false;
    if (!sl__rec_only(e->left, col) || !sl__rec_only(e->right, col))
        return false;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (!sl__rec_only(sl_list_get(e->args, i), col))
            return false;
    return e->filter == NULL;
}

static void sl__rec_rename(sl_expr *e, const char *to)
{
    if (!e)
        return;
    if (e->kind == SL_EXPR_COLUMN) {
        sl_free(e->text);
        e->text = sl_strdup(to);
        sl_free(e->qualifier);
        e->qualifier = NULL;
    }
    sl__rec_rename(e->left, to);
    sl__rec_rename(e->right, to);
    for (int i = 0; i < sl_list_len(e->args); i++)
        sl__rec_rename(sl_list_get(e->args, i), to);
}

static sl_expr *sl__rec_range(const sl_expr *e, const char *col)
{
    if (!e)
        return NULL;
    if (e->kind == SL_EXPR_BINARY && e->op == SL_OP_AND) {
        sl_expr *l = sl__rec_range(e->left, col), *r = sl__rec_range(e->right, col);
        if (l && r)
            return sl_expr_binary(SL_OP_AND, l, r, e->op_pos);
        return l ? l : r;
    }
    if (!sl__rec_only(e, col))
        return NULL;
    sl_expr *c = sl_expr_dup(e);
    sl__rec_rename(c, "event_time");
    return c;
}

typedef struct sl__rec_late {
    int64_t count;
    sl_strbuf sample; /* the first rows' event times */
    int nsample;
} sl__rec_late;

static int sl__rec_late_row(void *ctx, const char *const *values, const size_t *lens)
{
    (void)lens;
    sl__rec_late *l = ctx;
    if (l->nsample < SL_RK_SAMPLES) {
        sl_strbuf_appendf(&l->sample, "%s%s", l->nsample ? ", " : "late at ",
                          values[0] ? values[0] : "NULL");
        l->nsample++;
    }
    l->count++;
    return 0;
}

/* 'table.exec.late-rows.table' when it is SET (NULL while the key is not
** declared: the late-rows writer declares it). */
static const char *sl__rec_late_setting(sl_session *s)
{
    static const char key[] = "table.exec.late-rows.table";
    int n;
    const sl_config_key *keys = sl_config_keys(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i].key, key) == 0)
            return sl__setting_set(s, key);
    return NULL;
}

/* The late check: the late-rows table's rows in the range. */
/* SELECT col FROM table [WHERE where] as a statement at RECONCILE's
** position (takes where). */
sl_stmt *sl__rec_select_col(const sl__rec *r, const char *col, const char *table, sl_expr *where)
{
    sl_query *q = sl_calloc(1, sizeof *q);
    q->kind = SL_QUERY_SELECT;
    q->pos = r->st->pos;
    q->items = sl_list_new();
    sl_select_item *it = sl_calloc(1, sizeof *it);
    it->expr = sl_expr_column(NULL, sl_strdup(col), -1);
    it->alias_pos = -1;
    sl_list_push(q->items, it);
    q->from = sl_calloc(1, sizeof *q->from);
    q->from->kind = SL_FROM_TABLE;
    q->from->pos = -1;
    q->from->name = sl_strdup(table);
    q->from->alias_pos = -1;
    q->where = where;
    sl_stmt *st = sl_calloc(1, sizeof *st);
    st->kind = SL_STMT_QUERY;
    st->pos = r->st->pos;
    st->name_pos = -1;
    st->query = q;
    return st;
}

/* Count lt's late rows in the range (of the job with FOR JOB) into l. */
static int sl__rec_late_read(sl__rec *r, const sl_table *lt, sl__rec_late *l, sl_error *err)
{
    const char *rowtime = r->source->wm_col >= 0 ? r->source->all[r->source->wm_col].name : NULL;
    sl_expr *where = rowtime ? sl__rec_range(r->st->where, rowtime) : NULL;
    if (r->st->job && sl__rec_col_of(lt, "job")) {
        sl_expr *j = sl_expr_binary(SL_OP_EQ, sl_expr_column(NULL, sl_strdup("job"), -1),
                                    sl_expr_literal(SL_EXPR_STRING, r->st->job,
                                                    strlen(r->st->job), -1),
                                    -1);
        where = where ? sl_expr_binary(SL_OP_AND, where, j, -1) : j;
    }
    sl_stmt *st = sl__rec_select_col(r, "event_time", lt->name, where);
    sl_result_sink sink = {l, NULL, sl__rec_late_row, NULL, NULL, NULL};
    sl_session *f = sl__rec_fork(r->s);
    int rc = sl__rec_run(r, f, st, &sink, err);
    sl_session_free(f);
    return rc;
}

/* A table with the late-rows layout's job, event_time, watermark and row
** columns (FOR JOB without the setting: the job's late-rows table). */
static bool sl__rec_late_layout(const sl_table *t)
{
    return sl__rec_col_of(t, "job") && sl__rec_col_of(t, "event_time") &&
           sl__rec_col_of(t, "watermark") && sl__rec_col_of(t, "row");
}

static int sl__rec_late_check(sl__rec *r, sl__rec_row *row, sl_error *err)
{
    row->check = "late";
    row->ok = true;
    const char *name = sl__rec_late_setting(r->s);
    sl__rec_late l = {0, SL_STRBUF_INIT, 0};
    int rc = 0, ntables = 0;
    json_t *rec = NULL; /* FOR JOB: the late-rows table the job started with */
    if (r->st->job && sl__job_info(r->s->eng, r->st->job, &rec, err) != 0)
        return -1;
    const char *job_late = rec ? json_string_value(json_object_get(rec, "late_rows_table")) : NULL;
    if (job_late)
        name = job_late;
    if (name && *name) {
        const sl_table *lt = sl_catalog_table(sl__cat(r->s), name);
        if (!lt || !sl__rec_col_of(lt, "event_time")) {
            row->sample = lt ? sl_sprintf("late-rows table \"%s\" has no event_time", lt->name)
                             : sl_sprintf("late-rows table \"%s\" not found", name);
            json_decref(rec);
            return 0;
        }
        rc = sl__rec_late_read(r, lt, &l, err);
        ntables = 1;
    } else if (r->st->job) {
        /* a record from before jobs kept their late-rows table: the job's
        ** late rows are in the tables of the late-rows layout, by its name in
        ** their job column */
        sl_list *names = sl_catalog_table_names(sl__cat(r->s));
        for (int i = 0; rc == 0 && i < names->n; i++) {
            const sl_table *lt = sl_catalog_table(sl__cat(r->s), names->items[i]);
            if (lt && lt != r->ledger && sl__rec_late_layout(lt)) {
                rc = sl__rec_late_read(r, lt, &l, err);
                ntables++;
            }
        }
        sl_list_free(names, sl_free);
    }
    json_decref(rec);
    if (ntables == 0) {
        row->sample = sl_strdup("no late-rows table");
        return 0;
    }
    row->count = l.count;
    row->ok = l.count == 0;
    row->sample = l.count ? sl_strbuf_detach(&l.sample) : sl_strdup("");
    sl_strbuf_free(&l.sample);
    return rc;
}

/* ------------------------------------------------------------------------
** The statement
*/

static void sl__rec_emit(const sl_result_sink *out, const sl__rec_row *rows, int n)
{
    sl_type types[4];
    for (int i = 0; i < 4; i++)
        types[i] = sl_type_make_p(sl_reconcile_types[i],
                                  sl_reconcile_types[i] == SL_TYPE_VARCHAR ? SL_MAX_LENGTH : 0, 0);
    types[0].not_null = types[1].not_null = types[2].not_null = true;
    sl__table_out t;
    sl__result_begin_typed(&t, out, 4, sl_reconcile_names, types);
    for (int i = 0; i < n; i++) {
        char count[24];
        snprintf(count, sizeof count, "%lld", (long long)rows[i].count);
        const char *v[4] = {rows[i].check, rows[i].ok ? "TRUE" : "FALSE", count,
                            rows[i].sample ? rows[i].sample : ""};
        sl__result_row(&t, v);
    }
    char tag[32];
    snprintf(tag, sizeof tag, "RECONCILE %d", n);
    sl__result_complete(out, tag);
}

/* The key table's memory: 'table.exec.reconcile.memory' (SET checked it),
** spilling past it under the data directory's tmp/ (the disk sized for the
** engine's state; $TMPDIR is often a tmpfs, memory again). */
static int sl__rec_budget(sl__rec *r, sl_error *err)
{
    int64_t bytes = 0;
    if (sl_option_parse_memsize(sl__setting(r->s, "table.exec.reconcile.memory"), &bytes, -1,
                                err) != 0)
        return -1;
    const char *data = r->s->eng ? sl_engine_data_dir(r->s->eng) : NULL;
    char *tmp = data ? sl_sprintf("%s/tmp", data) : NULL;
    sl_rk_set_budget(r->keys, (size_t)bytes, tmp, r->s->interrupt);
    sl_free(tmp);
    return 0;
}

/* Read both sides and compute every check but the verdict into rows. */
static int sl__rec_checks(sl__rec *r, sl__rec_row *rows, int *n, sl_error *err)
{
    sl_rk_free(r->keys);
    r->keys = sl_rk_new();
    if (sl__rec_budget(r, err) != 0)
        return -1;
    int rc = sl__rec_read(r, err);
    if (rc == 0)
        rc = sl_rk_error(r->keys, err);
    if (rc == 0 && r->st->job) { /* the job's boundaries first */
        rc = sl__rec_job_checks(r, rows, err);
        *n = 4;
    }
    if (rc != 0)
        return -1;
    static const char *const checks[SL_RK_NCHECKS] = {"missing", "duplicated", "extra",
                                                      "mismatched"};
    sl_rk_check c[SL_RK_NCHECKS];
    sl_rk_checks(r->keys, c);
    if (sl_rk_error(r->keys, err) != 0)
        return -1;
    for (int i = 0; i < SL_RK_NCHECKS; i++, (*n)++) {
        sl_strbuf sb = SL_STRBUF_INIT;
        for (int k = 0; k < c[i].nsamples; k++) {
            if (k)
                sl_strbuf_append(&sb, ", ");
            sl_rk_key_format(&sb, c[i].samples[k], r->nk, r->names);
        }
        if (c[i].count > c[i].nsamples)
            sl_strbuf_append(&sb, ", ...");
        rows[*n].check = checks[i];
        rows[*n].ok = c[i].count == 0;
        rows[*n].count = c[i].count;
        rows[*n].sample = sl_strbuf_detach(&sb);
    }
    return sl__rec_late_check(r, &rows[(*n)++], err);
}

static int sl__rec_resolve(sl__rec *r, sl_error *err)
{
    const sl_stmt *st = r->st;
    r->ledger = sl__rec_table(r->s, st->name, st->name_pos, err);
    if (!r->ledger)
        return -1;
    r->source = sl__rec_table(r->s, st->source->name, st->source->pos, err);
    if (!r->source)
        return -1;
    r->nk = sl_list_len(st->keys);
    r->nc = sl_list_len(st->compare);
    r->names = sl_calloc((size_t)(r->nk + r->nc) + 1, sizeof *r->names);
    r->types = sl_calloc((size_t)(r->nk + r->nc) + 1, sizeof *r->types);
    for (int i = 0; i < r->nk + r->nc; i++) {
        const sl_ident *id = sl_list_get(i < r->nk ? st->keys : st->compare,
                                         i < r->nk ? i : i - r->nk);
        if (sl__rec_column(r, id, i, err) != 0)
            return -1;
    }
    const sl_table *src = r->source;
    if (src->connector && !sl_connector_source_bounded(src->connector, src->def->options) &&
        src->connector->caps.source_end) {
        /* the input boundary: where the source ends now (Kafka: read_committed's end) */
        r->bound = sl_kvlist_new();
        if (src->connector->caps.source_end(src->def->options, r->bound, &r->input, err) != 0) {
            if (err->position < 0)
                err->position = st->source->pos;
            return -1;
        }
    } else if (!src->connector ||
               !sl_connector_source_bounded(src->connector, src->def->options)) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, st->source->pos,
                     "RECONCILE cannot read table \"%s\" bounded", src->name);
        sl_error_hint(err, "The source of truth must be a table whose connector ends: files, "
                           "a PostgreSQL table, or a source with its bound set.");
        return -1;
    }
    const sl_table *led = r->ledger;
    if (led->connector && !sl_connector_source_bounded(led->connector, led->def->options) &&
        led->connector->caps.source_end) { /* a Kafka ledger: read_committed's end now */
        sl_strbuf ends = SL_STRBUF_INIT;
        r->lbound = sl_kvlist_new();
        int lrc = led->connector->caps.source_end(led->def->options, r->lbound, &ends, err);
        sl_strbuf_free(&ends);
        if (lrc != 0) {
            if (err->position < 0)
                err->position = st->name_pos;
            return -1;
        }
    } else if (led->connector && sl_connector_option(led->connector, led->def->options,
                                                     "scan.copy")) {
        /* a PostgreSQL ledger: one unordered COPY rather than an ordered cursor (the
        ** ledger's rows are compared in any order) */
        r->lbound = sl_kvlist_new();
        sl_kvlist_set(r->lbound, "scan.copy", "true", -1, -1);
    }
    r->ledger_where = sl__rec_expr_in(st->where, r->ledger);
    if (r->lbound && r->ledger_where && sl_kvlist_get(r->lbound, "scan.copy")) {
        char *cond = sl__rec_pg_where(r->ledger, st->where); /* the day, not the year */
        if (cond)
            sl_kvlist_set(r->lbound, "scan.copy.where", cond, -1, -1);
        sl_free(cond);
    }
    return st->repair ? sl__rec_repair_check(r, err) : 0;
}

int sl__reconcile_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    sl__rec r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.st = st;
    int rc = sl__rec_resolve(&r, err);
    sl__rec_row rows[SL_RK_NCHECKS + 6];
    memset(rows, 0, sizeof rows);
    int n = 0;
    if (rc == 0)
        rc = sl__rec_checks(&r, rows, &n, err);
    if (rc == 0 && st->repair) { /* re-feed the missing keys, then the second result */
        rc = sl__rec_repair(&r, err);
        for (int i = 0; i < SL_RK_NCHECKS + 6; i++)
            sl_free(rows[i].sample);
        memset(rows, 0, sizeof rows);
        n = 0;
        if (rc == 0)
            rc = sl__rec_checks(&r, rows, &n, err);
    }
    if (rc == 0) {
        int64_t failed = 0;
        for (int i = 0; i < n; i++)
            failed += !rows[i].ok;
        bool ok = failed == 0;
        rows[n].check = "verdict";
        rows[n].ok = ok;
        rows[n].count = failed;
        rows[n].sample = sl_strdup(ok ? "CONSISTENT" : "INCONSISTENT");
        n++;
        sl__rec_emit(out, rows, n);
    }
    for (int i = 0; i < SL_RK_NCHECKS + 6; i++)
        sl_free(rows[i].sample);
    sl_rk_free(r.keys);
    sl_strbuf_free(&r.input);
    sl_kvlist_free(r.bound);
    sl_kvlist_free(r.lbound);
    sl_free(r.names);
    sl_free(r.types);
    return rc;
}
