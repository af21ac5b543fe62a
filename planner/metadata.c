/*
** metadata.c — METADATA columns (Flink's `name type METADATA [FROM 'key']
** [VIRTUAL]`): the checks of a table's metadata columns against its
** connector's declared keys (sl_connector.metadata).
**
**   CREATE TABLE  the connector has metadata (else 0A000 naming it); each
**                 key is one of its keys (else 42704 listing them); the
**                 declared type can be cast from the key's (42804); a key of
**                 a type Sluice lacks is 0A000; two
**                 columns of one key is 42P16 (Flink's rule: the others are
**                 computed columns over the one)
**   INSERT        every non-VIRTUAL metadata column is written, so its key
**                 must be writable (else 0A000; VIRTUAL is the way out) and
**                 its type castable to the key's
**
** How the values flow: a metadata column is one of the table's columns the
** connector sees (sl_table.cols, with its key in .meta); the source fills it
** with the key's value in the key's type (sl_source_args.meta), and the scan
** casts it to the declared type (bind.c); a sink takes it in the key's type
** (sl_sink_args.meta). A VIRTUAL column is left out of what an INSERT
** writes: the query's columns map onto the other columns.
**
** Main routines: sl_metadata_check_def, sl_metadata_check_sink.
*/
#include "planner_int.h"

#include <string.h>

/* "a, b, c": the keys of c (writable ones only when writable). */
static void sl__keys(sl_strbuf *sb, const sl_connector *c, bool writable)
{
    int n = 0;
    for (int i = 0; i < c->nmetadata; i++)
        if (!writable || c->metadata[i].writable)
            sl_strbuf_appendf(sb, "%s%s", n++ ? ", " : "", c->metadata[i].key);
}

static const char *sl__key_of(const sl_column_def *c)
{
    return c->meta_key ? c->meta_key : c->name;
}

int sl_metadata_check_def(const sl_stmt *def, sl_error *err)
{
    const char *name = def->options ? sl_kvlist_get(def->options, "connector") : NULL;
    const sl_connector *conn = name ? sl_connector_find(name) : NULL;
    for (int i = 0; i < sl_list_len(def->columns); i++) {
        const sl_column_def *c = sl_list_get(def->columns, i);
        if (!c->metadata || !conn) /* an unknown connector is the option check's error */
            continue;
        const char *key = sl__key_of(c);
        for (int j = 0; j < i; j++) {
            const sl_column_def *o = sl_list_get(def->columns, j);
            if (!o->metadata || strcmp(sl__key_of(o), key) != 0)
                continue;
            sl_error_set(err, SL_ERR_INVALID_TABLE_DEF, c->meta_pos,
                         "columns \"%s\" and \"%s\" both read metadata key '%s'", o->name,
                         c->name, key);
            sl_error_hint(err, "Declare one of them as the metadata column and the other as a "
                               "computed column over it: %s AS CAST(%s AS ...).",
                          c->name, o->name);
            return -1;
        }
        if (conn->nmetadata == 0) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, c->meta_pos,
                         "connector '%s' has no metadata: column \"%s\" cannot be a METADATA "
                         "column",
                         conn->name, c->name);
            sl_error_detail(err, "Metadata columns are read from the connectors filesystem, "
                                 "kafka and upsert-kafka.");
            return -1;
        }
        const sl_metadata_spec *m = sl_connector_metadata(conn, key);
        if (!m) {
            sl_strbuf sb = SL_STRBUF_INIT;
            sl__keys(&sb, conn, false);
            sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, c->meta_pos,
                         "invalid metadata key '%s' in column \"%s\"", key, c->name);
            sl_error_detail(err, "Connector '%s' supports the metadata keys: %s.", conn->name,
                            sl_strbuf_cstr(&sb));
            if (!c->meta_key)
                sl_error_hint(err, "Without FROM 'key' the key is the column's name; write "
                                   "METADATA FROM 'key'.");
            sl_strbuf_free(&sb);
            return -1;
        }
        if (m->id == SL_TYPE_NULL)
            return sl_error_set(err, SL_ERR_NOT_SUPPORTED, c->meta_pos,
                                "metadata key '%s' is of type %s, not supported yet",
                                key, m->type);
        sl_type from = sl_metadata_type(m);
        if (!sl_type_castable(from, c->type)) {
            char *want = sl_type_to_string(c->type);
            sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, c->type_pos,
                         "metadata column \"%s\" cannot be declared as %s", c->name, want);
            sl_error_detail(err, "The type must be castable from the type of metadata key "
                                 "'%s', %s.",
                            key, m->type);
            sl_free(want);
            return -1;
        }
    }
    return 0;
}

int sl_metadata_check_sink(const sl_table *t, int pos, sl_error *err)
{
    for (int i = 0; i < t->ncols; i++) {
        const sl_column *c = &t->cols[i];
        if (!c->meta || c->virt)
            continue;
        const sl_metadata_spec *m = sl_connector_metadata(t->connector, c->meta);
        if (!m || !m->writable) {
            sl_strbuf sb = SL_STRBUF_INIT;
            if (t->connector)
                sl__keys(&sb, t->connector, true);
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, pos,
                         "metadata key '%s' of column \"%s\" of table \"%s\" cannot be written",
                         c->meta, c->name, t->name);
            if (sb.len)
                sl_error_detail(err, "Connector '%s' writes the metadata keys: %s.",
                                t->connector->name, sl_strbuf_cstr(&sb));
            else
                sl_error_detail(err, "Connector '%s' writes no metadata.",
                                t->connector ? t->connector->name : "?");
            sl_error_hint(err, "A column that is only read is declared METADATA ... VIRTUAL.");
            sl_strbuf_free(&sb);
            return -1;
        }
        if (!sl_type_castable(c->type, c->mtype)) {
            char *have = sl_type_to_string(c->type);
            sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, pos,
                         "metadata column \"%s\" of type %s cannot be written", c->name, have);
            sl_error_detail(err, "The type must be castable to the type of metadata key '%s', "
                                 "%s.",
                            c->meta, m->type);
            sl_free(have);
            return -1;
        }
    }
    return 0;
}
