/*
** fs_chk.c — checkpoints in S3: the storage exec's checkpoint store uses
** for 'execution.checkpointing.dir' = 's3://bucket/path' (sl_chk_fs, see
** exec/checkpoint.c), on the S3 client of the filesystem connector.
**
** A job's checkpoints keep the layout of a local directory as keys:
**
**   <path>/<job>/chk-<N>/state-<name>, <path>/<job>/chk-<N>/_metadata,
**   <path>/<job>/_latest
**
** and <path>/<job>/_owner, the data directory whose job writes there,
** created with If-None-Match: * (sl_chk_claim: of two data directories
** starting one job name at one location, one gets it). That, and what
** checkpoint.c relies on: a PUT is atomic (an object is all
** there or not at all) and durable once S3 answers it, and S3 is strongly
** consistent for reads and listings after a write (AWS since 2020, MinIO,
** SeaweedFS), so _metadata written after its state files is seen only with
** them. A "directory" is a key prefix; listing one groups the keys under it
** by their next part.
**
** Credentials and endpoint: the session's settings with Flink's
** configuration keys ('s3.access-key', 's3.secret-key', 's3.endpoint',
** 's3.region', 's3.path.style.access'), else AWS_* from the environment.
** One client per store, its requests serialised by a mutex: several tasks
** write their state at once, each as one PUT.
**
** Main routine: sl__s3_chk_fs (registered by sl_connectors_register_storage).
*/
#include <pthread.h>
#include <string.h>

#include "fs_int.h"

typedef struct sl__s3_chk {
    sl__s3 *c;          /* the client of the location's bucket */
    pthread_mutex_t mu; /* one request at a time */
} sl__s3_chk;

/* The key of path ("s3://bucket/key"), or NULL when path is not in bucket. */
static const char *sl__key_of(const sl__s3_chk *k, const char *path)
{
    const char *p = strstr(path, "://");
    if (!p)
        return NULL;
    p += 3;
    const char *b = sl__s3_bucket_name(k->c);
    size_t n = strlen(b);
    if (strncmp(p, b, n) != 0 || (p[n] != '/' && p[n] != '\0'))
        return NULL;
    return p[n] == '/' ? p + n + 1 : p + n;
}

static int sl__outside(const char *path, sl_error *err)
{
    return sl_error_set(err, SL_ERR_INTERNAL, -1, "\"%s\" is not in the checkpoints' bucket", path);
}

static void *sl__s3_chk_open(const char *location, const sl_kvlist *opts, sl_error *err)
{
    char *bucket = NULL, *prefix = NULL;
    if (sl__s3_parse_uri(location, &bucket, &prefix) != 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                     "\"%s\" is not a valid S3 location for checkpoints", location);
        sl_error_hint(err, "Write it as s3://bucket/path.");
        return NULL;
    }
    sl__s3 *c = sl__s3_open(opts, bucket, err);
    /* The location is usable for writing: credentials, bucket, permission. */
    if (c && sl__s3_check(c, prefix, true, err) != 0) {
        sl__s3_free(c);
        c = NULL;
    }
    sl_free(bucket);
    sl_free(prefix);
    if (!c)
        return NULL;
    sl__s3_chk *k = sl_calloc(1, sizeof *k);
    k->c = c;
    pthread_mutex_init(&k->mu, NULL);
    return k;
}

static void sl__s3_chk_close(void *ctx)
{
    sl__s3_chk *k = ctx;
    if (!k)
        return;
    sl__s3_free(k->c);
    pthread_mutex_destroy(&k->mu);
    sl_free(k);
}

static int sl__s3_chk_put(void *ctx, const char *path, const void *data, size_t len,
                          sl_error *err)
{
    sl__s3_chk *k = ctx;
    const char *key = sl__key_of(k, path);
    if (!key)
        return sl__outside(path, err);
    pthread_mutex_lock(&k->mu);
    int rc = sl__s3_put(k->c, key, data, len, err);
    pthread_mutex_unlock(&k->mu);
    return rc;
}

static int sl__s3_chk_put_new(void *ctx, const char *path, const void *data, size_t len,
                              bool *existed, sl_error *err)
{
    sl__s3_chk *k = ctx;
    const char *key = sl__key_of(k, path);
    if (!key)
        return sl__outside(path, err);
    pthread_mutex_lock(&k->mu);
    int rc = sl__s3_put_new(k->c, key, data, len, existed, err);
    pthread_mutex_unlock(&k->mu);
    return rc;
}

static int sl__s3_chk_get(void *ctx, const char *path, char **data, size_t *len, bool *found,
                          sl_error *err)
{
    sl__s3_chk *k = ctx;
    *data = NULL;
    *len = 0;
    *found = false;
    const char *key = sl__key_of(k, path);
    if (!key)
        return sl__outside(path, err);
    sl_strbuf sb = SL_STRBUF_INIT;
    pthread_mutex_lock(&k->mu);
    int rc = sl__s3_get(k->c, key, 0, -1, &sb, found, err);
    pthread_mutex_unlock(&k->mu);
    if (rc == 0 && *found) {
        *len = sb.len;
        sl_strbuf_append(&sb, ""); /* NUL-terminated even when empty */
        *data = sl_strbuf_detach(&sb);
    }
    sl_strbuf_free(&sb);
    return rc;
}

/* The objects under dir's key prefix ("<key>/"); *prefix_len its length. */
static int sl__s3_chk_objects(sl__s3_chk *k, const char *dir, sl_list *objs, size_t *prefix_len,
                              sl_error *err)
{
    const char *key = sl__key_of(k, dir);
    if (!key)
        return sl__outside(dir, err);
    size_t n = strlen(key);
    while (n > 0 && key[n - 1] == '/')
        n--;
    char *prefix = n ? sl_sprintf("%.*s/", (int)n, key) : sl_strdup("");
    *prefix_len = strlen(prefix);
    pthread_mutex_lock(&k->mu);
    int rc = sl__s3_list(k->c, prefix, 0, objs, err);
    pthread_mutex_unlock(&k->mu);
    sl_free(prefix);
    return rc;
}

static int sl__s3_chk_list(void *ctx, const char *dir, sl_list *out, bool *exists, sl_error *err)
{
    sl__s3_chk *k = ctx;
    sl_list *objs = sl_list_new();
    size_t plen = 0;
    int rc = sl__s3_chk_objects(k, dir, objs, &plen, err);
    *exists = rc == 0 && objs->n > 0;
    for (int i = 0; rc == 0 && i < objs->n; i++) {
        const sl__s3_obj *o = objs->items[i];
        const char *rest = o->key + plen;
        size_t part = strcspn(rest, "/");
        if (part == 0)
            continue; /* "dir//x": not a name */
        bool sub = rest[part] == '/';
        sl_chk_entry *e = NULL;
        /* Keys come in order: a directory's keys are together, at the end. */
        if (out->n > 0) {
            sl_chk_entry *last = out->items[out->n - 1];
            if (last->dir && sub && strlen(last->name) == part &&
                strncmp(last->name, rest, part) == 0)
                e = last;
        }
        if (!e) {
            e = sl_calloc(1, sizeof *e);
            e->name = sl_strndup(rest, part);
            e->dir = sub;
            sl_list_push(out, e);
        }
        e->size += o->size;
    }
    sl_list_free(objs, sl__s3_obj_free);
    return rc;
}

static int sl__s3_chk_remove_tree(void *ctx, const char *dir, sl_error *err)
{
    sl__s3_chk *k = ctx;
    sl_list *objs = sl_list_new();
    size_t plen = 0;
    int rc = sl__s3_chk_objects(k, dir, objs, &plen, err);
    pthread_mutex_lock(&k->mu);
    for (int i = 0; rc == 0 && i < objs->n; i++)
        rc = sl__s3_delete(k->c, ((sl__s3_obj *)objs->items[i])->key, err);
    const char *key = sl__key_of(k, dir); /* a file: the object itself */
    if (rc == 0 && key && *key)
        rc = sl__s3_delete(k->c, key, err);
    pthread_mutex_unlock(&k->mu);
    sl_list_free(objs, sl__s3_obj_free);
    return rc;
}

const sl_chk_fs sl__s3_chk_fs = {
    .scheme = "s3,s3a,s3p",
    .open = sl__s3_chk_open,
    .close = sl__s3_chk_close,
    .put = sl__s3_chk_put,
    .put_new = sl__s3_chk_put_new,
    .get = sl__s3_chk_get,
    .list = sl__s3_chk_list,
    .remove_tree = sl__s3_chk_remove_tree,
};
