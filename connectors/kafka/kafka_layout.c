/*
** kafka_layout.c — which of a table's columns a Kafka record's key and
** value hold, and the codecs that read and write them (Flink's option
** names):
**
**   'key.format'           the key's format; without it records have no key
**   'key.fields'           kafka: the key's columns, 'a;b' (in that order);
**                          upsert-kafka: its PRIMARY KEY instead
**   'key.fields-prefix'    the key's columns are named <prefix><field> in
**                          the table and <field> in the key's format (needs
**                          EXCEPT_KEY, so that the names cannot clash)
**   'format' / 'value.format'  the value's format
**   'value.fields-include' ALL (the value holds every column, the key's too)
**                          or EXCEPT_KEY (every column but the key's)
**
** Reading: the value decodes into a new row (its columns); with
** EXCEPT_KEY the key then fills the key's columns of the same row (under
** ALL the value's copy of them is the one kept, as Flink does, so the key
** is not read). Writing: the key's columns in the key's format, the
** value's in the value's. METADATA columns are in neither (kafka_meta.c).
**
** Main routines: sl__kafka_layout_new, sl__kafka_layout_free,
** sl__kafka_layout_check (CREATE TABLE).
*/
#include <string.h>

#include "kafka_int.h"

/* The key's columns: upsert-kafka's PRIMARY KEY, else 'key.fields' by name,
** looked up with find(ctx, name, len) -> column or -1. *n = 0: no key. 0, or
** -1 with err at the option. */
static int sl__key_columns(const sl_kvlist *opts, bool upsert, int npk, const int *pk,
                           int (*find)(const void *ctx, const char *name, size_t len),
                           const void *ctx, int **out, int *n, sl_error *err)
{
    *out = NULL;
    *n = 0;
    if (upsert) {
        *out = sl_calloc((size_t)(npk ? npk : 1), sizeof(int));
        for (int i = 0; pk && i < npk; i++)
            (*out)[i] = pk[i];
        *n = pk ? npk : 0;
        return 0;
    }
    const sl_kv *kv = sl_kvlist_find(opts, "key.fields");
    if (!kv || !kv->value)
        return 0;
    int nf = 0;
    char **fields = sl__kafka_split_topics(kv->value, &nf); /* the same ';' list */
    *out = sl_calloc((size_t)(nf ? nf : 1), sizeof(int));
    int rc = 0;
    for (int i = 0; i < nf; i++) {
        int col = find(ctx, fields[i], strlen(fields[i]));
        for (int k = 0; col >= 0 && k < *n; k++)
            if ((*out)[k] == col)
                col = -2;
        if (rc == 0 && col < 0)
            rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                              col == -2 ? "invalid value for option 'key.fields': column \"%s\" "
                                          "is listed twice"
                                        : "invalid value for option 'key.fields': the table has "
                                          "no column \"%s\"",
                              fields[i]);
        if (col >= 0)
            (*out)[(*n)++] = col;
        sl_free(fields[i]);
    }
    sl_free(fields);
    if (rc == 0 && *n == 0)
        rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                          "invalid value for option 'key.fields': no column is named");
    if (rc != 0) {
        sl_free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static bool sl__except_key(const sl_kvlist *opts)
{
    const char *v = sl_kvlist_get(opts, "value.fields-include");
    return v && sl_strcasecmp(v, "EXCEPT_KEY") == 0;
}

static int sl__shape_col(const void *ctx, const char *name, size_t len)
{
    return sl__shape_find(ctx, name, len);
}

int sl__kafka_layout_check(const sl_connector *c, const sl_kvlist *opts,
                           const sl_table_shape *shape, bool upsert, sl_error *err)
{
    const sl_kv *kf = sl_kvlist_find(opts, "key.format");
    const sl_kv *fields = sl_kvlist_find(opts, "key.fields");
    const sl_kv *prefix = sl_kvlist_find(opts, "key.fields-prefix");
    if (upsert && !kf)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "missing required option 'key.format' for connector '%s'", c->name);
    if (upsert && shape && shape->npk == 0) {
        sl_error_set(err, SL_ERR_INVALID_TABLE_DEF, -1,
                     "connector '%s' needs a PRIMARY KEY: it is the records' key", c->name);
        sl_error_hint(err, "Declare PRIMARY KEY (...) NOT ENFORCED.");
        return -1;
    }
    if (!upsert && kf && !fields)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kf->key_pos,
                            "option 'key.format' needs 'key.fields': the columns of the key");
    if (!upsert && fields && !kf)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, fields->key_pos,
                            "option 'key.fields' needs 'key.format': the format of the key");
    if (prefix && prefix->value && prefix->value[0] && !sl__except_key(opts)) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, prefix->key_pos,
                     "option 'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY'");
        sl_error_detail(err, "Under ALL the value holds the key's columns too, and their "
                             "unprefixed names could clash.");
        return -1;
    }
    if (!shape)
        return 0;
    int *cols = NULL, n = 0;
    if (sl__key_columns(opts, upsert, 0, NULL, sl__shape_col, shape, &cols, &n, err) != 0)
        return -1;
    int rc = 0;
    size_t pl = prefix && prefix->value ? strlen(prefix->value) : 0;
    for (int i = 0; rc == 0 && i < n; i++)
        if (pl && strncmp(shape->names[cols[i]], prefix->value, pl) != 0)
            rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, fields ? fields->value_pos : -1,
                              "key column \"%s\" does not start with 'key.fields-prefix' '%s'",
                              shape->names[cols[i]], prefix->value);
    int nkey = upsert ? shape->npk : n;
    if (rc == 0 && kf && sl__except_key(opts) && nkey >= shape->ncols)
        rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                          "with 'value.fields-include' = 'EXCEPT_KEY' the value would have no "
                          "column: every column is in the key");
    sl_free(cols);
    return rc;
}

typedef struct sl__names {
    int n;
    const char *const *names;
    const char *const *meta; /* a metadata column is in neither key nor value */
} sl__names;

static int sl__names_col(const void *ctx, const char *name, size_t len)
{
    const sl__names *t = ctx;
    for (int i = 0; i < t->n; i++)
        if (strlen(t->names[i]) == len && memcmp(t->names[i], name, len) == 0 &&
            !(t->meta && t->meta[i]))
            return i;
    return -1;
}

/* A codec for the columns cols[0..n) of the table, mapped onto it; the
** names lose the first `strip` bytes. */
static sl_codec *sl__codec_for(const sl_kvlist *fopts, int ncols, const char *const *names,
                               const sl_type *types, const int *cols, int n, size_t strip,
                               sl_error *err)
{
    const char **cn = sl_calloc((size_t)(n ? n : 1), sizeof(char *));
    sl_type *ct = sl_calloc((size_t)(n ? n : 1), sizeof(sl_type));
    for (int i = 0; i < n; i++) {
        cn[i] = names[cols[i]] + strip;
        ct[i] = types[cols[i]];
    }
    sl_codec *c = sl_codec_new(fopts, n, cn, ct, err);
    if (c)
        sl_codec_map_columns(c, ncols, cols);
    sl_free(cn);
    sl_free(ct);
    return c;
}

int sl__kafka_layout_new(const sl_kvlist *opts, bool upsert, int ncols, const char *const *names,
                         const sl_type *types, const char *const *meta, int npk, const int *pk,
                         sl__kafka_layout *l, sl_error *err)
{
    memset(l, 0, sizeof *l);
    if (sl__kafka_meta_new(meta, ncols, &l->meta, err) != 0)
        return -1;
    sl__names t = {ncols, names, meta};
    if (sl__key_columns(opts, upsert, npk, pk, sl__names_col, &t, &l->key_cols, &l->nkey, err) !=
        0)
        return -1;
    sl_kvlist *kopts = l->nkey > 0 ? sl_format_options(opts, "key") : NULL;
    sl_kvlist *vopts = sl_format_options(opts, "value");
    int rc = 0;
    if (l->nkey > 0 && !kopts)
        rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "the key has no 'key.format'");
    const char *prefix = sl_kvlist_get(opts, "key.fields-prefix");
    if (rc == 0 && kopts &&
        !(l->key = sl__codec_for(kopts, ncols, names, types, l->key_cols, l->nkey,
                                 prefix ? strlen(prefix) : 0, err)))
        rc = -1;
    l->value_all = !sl__except_key(opts) || l->nkey == 0;
    int *vcols = sl_calloc((size_t)(ncols ? ncols : 1), sizeof(int)), nv = 0;
    for (int i = 0; i < ncols; i++) {
        bool in_key = false;
        for (int k = 0; !l->value_all && k < l->nkey; k++)
            in_key = in_key || l->key_cols[k] == i;
        if (!in_key && !(meta && meta[i]))
            vcols[nv++] = i;
    }
    if (rc == 0 && !vopts)
        rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "the table has no format");
    if (rc == 0 && !(l->value = sl__codec_for(vopts, ncols, names, types, vcols, nv, 0, err)))
        rc = -1;
    sl_free(vcols);
    sl_kvlist_free(kopts);
    sl_kvlist_free(vopts);
    if (rc != 0)
        sl__kafka_layout_free(l);
    return rc;
}

void sl__kafka_layout_free(sl__kafka_layout *l)
{
    sl_codec_free(l->key);
    sl_codec_free(l->value);
    sl_free(l->key_cols);
    sl__kafka_meta_free(&l->meta);
    memset(l, 0, sizeof *l);
}
