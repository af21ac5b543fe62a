/*
** pg_lookup.c — a PostgreSQL table as the table of a lookup join (sl_exec.h,
** sl_lookup): Flink's JdbcRowDataLookupFunction with its cache options.
**
** Each batch of keys (the misses of one input chunk) is one query with the
** keys as array parameters, never pasted into the SQL text:
**
**   one key     SELECT <cols> FROM <table> WHERE k = ANY($1::<type>[])
**   several     ... WHERE (k1, k2) IN (SELECT * FROM unnest($1::<t1>[], $2::<t2>[]))
**
** <type> is the column's type as PostgreSQL spells it (format_type), read
** from the server at the first lookup. A failed query whose cause may pass
** (a lost connection, the server restarting: sl__pg_retryable) is retried
** up to 'lookup.max-retries' times on a new connection, after 1 s, 2 s ...
** (as Flink); then the job fails.
**
** Cache ('lookup.cache' = 'PARTIAL', or the deprecated 'lookup.cache.max-rows'
** with 'lookup.cache.ttl'): the operator's (exec/lookup_cache.c), set up
** from the options here.
**
** Main routines: sl__pg_lookup_create, sl__pg_lookup_check,
** sl__pg_lookup_describe.
*/
#include <string.h>

#include "jdbc_int.h"

typedef struct sl__pgl {
    sl__pg_target t;
    sl_lookup_args args;
    sl_kvlist *opts;
    int *keys;
    int64_t max_retries;
    PGconn *conn;
    char *sql;            /* the query, once the key types are known */
    sl_chunk *rows;       /* decoded rows */
    sl_strbuf *params;    /* one array literal per key */
} sl__pgl;

/* Options of the cache: 0, or -1 with err (22023). */
static int sl__pgl_cache_opts(const sl_kvlist *opts, sl_lookup_cache_opts *c, sl_error *err)
{
    memset(c, 0, sizeof *c);
    c->cache_missing = true;
    const sl_kv *kv;
    int64_t legacy_rows = 0, legacy_ttl = 0;
    if ((kv = sl_kvlist_find(opts, "lookup.cache.max-rows")) &&
        sl_option_parse_int(kv->value, &legacy_rows, kv->value_pos, err) != 0)
        return -1;
    if ((kv = sl_kvlist_find(opts, "lookup.cache.ttl")) &&
        sl_option_parse_duration_ms(kv->value, &legacy_ttl, kv->value_pos, err) != 0)
        return -1;
    if (legacy_rows > 0 && legacy_ttl > 0) { /* Flink: the former options win */
        c->enabled = true;
        c->max_rows = legacy_rows;
        c->expire_write_ms = legacy_ttl;
        if ((kv = sl_kvlist_find(opts, "lookup.cache.caching-missing-key")) &&
            sl_option_parse_bool(kv->value, &c->cache_missing, kv->value_pos, err) != 0)
            return -1;
        return 0;
    }
    const char *mode = sl_kvlist_get(opts, "lookup.cache");
    if (!mode || sl_strcasecmp(mode, "PARTIAL") != 0)
        return 0;
    c->enabled = true;
    if ((kv = sl_kvlist_find(opts, "lookup.partial-cache.max-rows")) &&
        sl_option_parse_int(kv->value, &c->max_rows, kv->value_pos, err) != 0)
        return -1;
    if ((kv = sl_kvlist_find(opts, "lookup.partial-cache.expire-after-write")) &&
        sl_option_parse_duration_ms(kv->value, &c->expire_write_ms, kv->value_pos, err) != 0)
        return -1;
    if ((kv = sl_kvlist_find(opts, "lookup.partial-cache.expire-after-access")) &&
        sl_option_parse_duration_ms(kv->value, &c->expire_access_ms, kv->value_pos, err) != 0)
        return -1;
    if ((kv = sl_kvlist_find(opts, "lookup.partial-cache.cache-missing-key")) &&
        sl_option_parse_bool(kv->value, &c->cache_missing, kv->value_pos, err) != 0)
        return -1;
    if (c->max_rows < 0)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "option 'lookup.partial-cache.max-rows' must not be negative");
    if (c->max_rows == 0 && c->expire_write_ms == 0 && c->expire_access_ms == 0) {
        const sl_kv *m = sl_kvlist_find(opts, "lookup.cache");
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, m ? m->value_pos : -1,
                     "'lookup.cache' = 'PARTIAL' needs 'lookup.partial-cache.max-rows', "
                     "'lookup.partial-cache.expire-after-write' or "
                     "'lookup.partial-cache.expire-after-access'");
        return -1;
    }
    return 0;
}

int sl__pg_lookup_check(const sl_kvlist *opts, sl_error *err)
{
    sl_lookup_cache_opts c;
    if (sl__pgl_cache_opts(opts, &c, err) != 0)
        return -1;
    const sl_kv *kv = sl_kvlist_find(opts, "lookup.max-retries");
    int64_t n = 0;
    if (kv && (sl_option_parse_int(kv->value, &n, kv->value_pos, err) != 0 || n < 0))
        return n < 0 ? sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                                    "option 'lookup.max-retries' must not be negative")
                     : -1;
    return 0;
}

void sl__pg_lookup_describe(const sl_kvlist *opts, sl_strbuf *out)
{
    sl_lookup_cache_opts c;
    sl_error err = SL_ERROR_INIT;
    if (sl__pgl_cache_opts(opts, &c, &err) != 0 || !c.enabled) {
        sl_error_reset(&err);
        sl_strbuf_append(out, "cache=[NONE]");
        return;
    }
    sl_strbuf_append(out, "cache=[PARTIAL");
    if (c.max_rows)
        sl_strbuf_appendf(out, ", max-rows=%lld", (long long)c.max_rows);
    if (c.expire_write_ms)
        sl_strbuf_appendf(out, ", expire-after-write=%lld ms", (long long)c.expire_write_ms);
    if (c.expire_access_ms)
        sl_strbuf_appendf(out, ", expire-after-access=%lld ms", (long long)c.expire_access_ms);
    sl_strbuf_appendf(out, ", cache-missing-key=%s]", c.cache_missing ? "true" : "false");
}

/* The query, with the key columns' types from the server. */
static int sl__pgl_prepare(sl__pgl *l, sl_error *err)
{
    sl__pg_table tb;
    if (sl__pg_table_describe(l->conn, &l->t, &tb, err) != 0)
        return -1;
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_append(&q, "SELECT ");
    for (int i = 0; i < l->args.ncols; i++) {
        if (i)
            sl_strbuf_append(&q, ", ");
        sl__pg_quote_ident(&q, l->args.names[i]);
    }
    sl_strbuf_appendf(&q, " FROM %s WHERE ", l->t.qualified);
    int nk = l->args.nkeys;
    sl_strbuf types = SL_STRBUF_INIT;
    int rc = 0;
    for (int k = 0; k < nk && rc == 0; k++) {
        const char *name = l->args.names[l->keys[k]];
        const sl__pg_column *col = NULL;
        for (int c = 0; c < tb.ncols && !col; c++)
            if (strcmp(tb.cols[c].name, name) == 0)
                col = &tb.cols[c];
        if (!col) {
            rc = sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, -1,
                              "column \"%s\" of table \"%s\" does not exist in PostgreSQL", name,
                              l->args.table);
            break;
        }
        sl_strbuf_appendf(&types, "%s$%d::%s[]", k ? ", " : "", k + 1, col->display);
    }
    if (rc == 0 && nk == 1) {
        sl__pg_quote_ident(&q, l->args.names[l->keys[0]]);
        sl_strbuf_appendf(&q, " = ANY(%s)", sl_strbuf_cstr(&types));
    } else if (rc == 0) {
        sl_strbuf_append(&q, "(");
        for (int k = 0; k < nk; k++) {
            if (k)
                sl_strbuf_append(&q, ", ");
            sl__pg_quote_ident(&q, l->args.names[l->keys[k]]);
        }
        sl_strbuf_appendf(&q, ") IN (SELECT * FROM unnest(%s))", sl_strbuf_cstr(&types));
    }
    sl_strbuf_free(&types);
    sl__pg_table_clear(&tb);
    if (rc == 0)
        l->sql = sl_strbuf_detach(&q);
    else
        sl_strbuf_free(&q);
    return rc;
}

/* Append s to an array literal as a quoted element. */
static void sl__pgl_element(sl_strbuf *sb, const char *s, size_t n)
{
    sl_strbuf_append_char(sb, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\')
            sl_strbuf_append_char(sb, '\\');
        sl_strbuf_append_char(sb, s[i]);
    }
    sl_strbuf_append_char(sb, '"');
}

/* One attempt: the query on the current connection, its rows to fn. */
static int sl__pgl_query(sl__pgl *l, const char *const *params, sl_lookup_row_fn fn, void *ctx,
                         sl_error *err)
{
    if (!l->conn) {
        l->conn = sl__pg_connect(&l->t, "sluice lookup", 0, err);
        if (!l->conn)
            return -1;
    }
    if (!l->sql && sl__pgl_prepare(l, err) != 0)
        return -1;
    char what[128];
    snprintf(what, sizeof what, "looking up in table \"%s\"", l->args.table);
    PGresult *res = sl__pg_exec(l->conn, l->sql, l->args.nkeys, params, what, err);
    if (!res)
        return -1;
    int n = PQntuples(res), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        sl_chunk_reset(l->rows);
        int r = sl_chunk_append_row(l->rows, SL_ROW_INSERT);
        for (int c = 0; c < l->args.ncols && rc == 0; c++) {
            if (PQgetisnull(res, i, c))
                sl_chunk_set_null(l->rows, c, r);
            else if (sl__pg_decode_value(l->rows, c, r, PQgetvalue(res, i, c),
                                         (size_t)PQgetlength(res, i, c), err) != 0) {
                sl_error_detail(err, "Column \"%s\" of table \"%s\".", l->args.names[c],
                                l->args.table);
                rc = -1;
            }
        }
        if (rc == 0)
            rc = fn(ctx, l->rows, r, err);
    }
    PQclear(res);
    return rc;
}

static int sl__pgl_lookup(sl_lookup *lk, const sl_chunk *keys, sl_lookup_row_fn fn, void *ctx,
                          sl_error *err)
{
    sl__pgl *l = lk->impl;
    int nk = l->args.nkeys;
    const char **params = sl_calloc((size_t)nk + 1, sizeof(char *));
    sl_strbuf el = SL_STRBUF_INIT;
    for (int k = 0; k < nk; k++) {
        sl_strbuf *p = &l->params[k];
        sl_strbuf_reset(p);
        sl_strbuf_append_char(p, '{');
        for (int r = 0; r < keys->nrows; r++) {
            if (r)
                sl_strbuf_append_char(p, ',');
            sl_strbuf_reset(&el);
            if (sl__pg_encode(&el, &keys->cols[k], r))
                sl__pgl_element(p, sl_strbuf_cstr(&el), el.len);
            else
                sl_strbuf_append(p, "NULL");
        }
        sl_strbuf_append_char(p, '}');
        params[k] = sl_strbuf_cstr(p);
    }
    sl_strbuf_free(&el);
    int rc = -1;
    for (int64_t attempt = 0;; attempt++) {
        rc = sl__pgl_query(l, params, fn, ctx, err);
        if (rc == 0 || !sl__pg_retryable(err) || attempt >= l->max_retries)
            break;
        sl_log(SL_LOG_WARN, "lookup in table \"%s\" failed (%s); retrying (%lld of %lld)",
               l->args.table, err->message, (long long)(attempt + 1), (long long)l->max_retries);
        sl_error_reset(err);
        if (l->conn)
            PQfinish(l->conn);
        l->conn = NULL;
        sl_sleep_nanos((attempt + 1) * 1000 * SL_NANOS_PER_MILLI);
    }
    sl_free(params);
    if (rc != 0)
        sl_option_scrub_error(err, l->opts);
    return rc;
}

static void sl__pgl_free(sl_lookup *lk)
{
    if (!lk)
        return;
    sl__pgl *l = lk->impl;
    if (l->conn)
        PQfinish(l->conn);
    sl__pg_target_clear(&l->t);
    sl_kvlist_free(l->opts);
    sl_free(l->keys);
    sl_free(l->sql);
    sl_chunk_free(l->rows);
    for (int k = 0; l->params && k < l->args.nkeys; k++)
        sl_strbuf_free(&l->params[k]);
    sl_free(l->params);
    sl_free(l);
    sl_free(lk);
}

static const sl_lookup_ops sl__pgl_ops = {
    .lookup = sl__pgl_lookup,
    .free = sl__pgl_free,
};

int sl__pg_lookup_create(const sl_lookup_args *args, sl_lookup **out, sl_error *err)
{
    sl_lookup_cache_opts cache;
    if (sl__pgl_cache_opts(args->options, &cache, err) != 0)
        return -1;
    int64_t retries = 3;
    const sl_kv *kv = sl_kvlist_find(args->options, "lookup.max-retries");
    if (kv && sl_option_parse_int(kv->value, &retries, kv->value_pos, err) != 0)
        return -1;
    sl__pgl *l = sl_calloc(1, sizeof *l);
    if (sl__pg_target_parse(args->options, &l->t, err) != 0) {
        sl_free(l);
        return -1;
    }
    l->args = *args;
    l->opts = sl_kvlist_dup(args->options);
    l->keys = sl_calloc((size_t)args->nkeys + 1, sizeof(int));
    memcpy(l->keys, args->keys, (size_t)args->nkeys * sizeof(int));
    l->args.keys = l->keys;
    l->max_retries = retries < 0 ? 0 : retries;
    sl_type *types = sl_calloc((size_t)args->ncols + 1, sizeof(sl_type));
    for (int c = 0; c < args->ncols; c++) {
        types[c] = args->types[c];
        types[c].not_null = false;
    }
    l->rows = sl_chunk_new(args->ncols, types, 1);
    sl_free(types);
    l->params = sl_calloc((size_t)args->nkeys + 1, sizeof(sl_strbuf));
    sl_lookup *lk = sl_calloc(1, sizeof *lk);
    lk->ops = &sl__pgl_ops;
    lk->impl = l;
    lk->cache = cache;
    *out = lk;
    return 0;
}
