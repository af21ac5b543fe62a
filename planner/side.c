/*
** side.c — side tables: where the rows operators set aside go (late rows
** by 'table.exec.late-rows.table'; deduplication conflicts by
** 'table.exec.deduplicate.conflict-table'). A side table
** is an ordinary table of the catalog whose columns are any subset of the
** canonical columns of its kind (exec/sl_exec.h), and a sink of the job
** like the others:
**
**   sl__side_uses     the side tables a job writes (its settings), so that
**                     the guarantee resolver decides each as a sink of the
**                     job (session_run.c's sl__resolve: EXPLAIN's
**                     Guarantees and "Commit group:" list it);
**   sl_side_resolve   the table as a sink spec with the canonical -> table
**                     column map (checked: 42703 / 42804);
**   sl__side_plan     (physical.c) resolves it once per job for the
**                     operators of that kind and joins it to the job's
**                     participants, as a statement set's sink.
**
** Main routines: sl__side_uses, sl_side_resolve.
*/
#include "session_int.h"

#include <string.h>

const sl_side_kind sl_side_late = {"table.exec.late-rows.table", "late rows", SL_LATE_NCOLS,
                                   sl_late_names, sl_late_types};

const sl_side_kind sl_side_conflicts = {"table.exec.deduplicate.conflict-table", "conflicts",
                                        SL_DEDUP_CONFLICT_NCOLS, sl_dedup_conflict_names,
                                        sl_dedup_conflict_types};

/* Every kind of side output, each with its setting. */
static const sl_side_kind *const sl__side_kinds[] = {
    &sl_side_late,
    &sl_side_conflicts,
};
#define SL__NKINDS ((int)(sizeof sl__side_kinds / sizeof sl__side_kinds[0]))

int sl__side_uses(sl_session *s, const sl_list *plans, sl_side_table *sides)
{
    bool writes = false; /* a job writing tables (a query's rows have no side tables) */
    for (int i = 0; i < plans->n; i++)
        writes = writes || ((const sl_lp *)plans->items[i])->kind == SL_LP_SINK;
    int n = 0;
    for (int k = 0; writes && k < SL__NKINDS && n < SL_SIDE_MAX; k++) {
        const char *t = sl__setting_set(s, sl__side_kinds[k]->option);
        if (!t || !*t)
            continue;
        sides[n++] = (sl_side_table){sl__side_kinds[k], t, SL_GUARANTEE_NONE, SL_MECH_NONE};
    }
    return n;
}

/* Whether a column of type have can take the canonical type want unchanged. */
static bool sl__side_type_fits(sl_type want, sl_type have)
{
    switch (want.id) {
    case SL_TYPE_VARCHAR:
        return have.id == SL_TYPE_VARCHAR;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        return have.id == want.id && have.precision >= want.precision;
    default:
        return have.id == want.id;
    }
}

static void sl__side_names(sl_strbuf *sb, const sl_side_kind *kind)
{
    for (int i = 0; i < kind->ncols; i++)
        sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", kind->names[i]);
}

void sl_side_spec_free(sl_side_spec *sp)
{
    if (!sp)
        return;
    sl_free((void *)sp->map);
    sl_free((void *)sp->sink_args.names);
    sl_free((void *)sp->sink_args.types);
    sl_free((void *)sp->sink_args.meta);
    sl_free(sp);
}

int sl_side_resolve(const sl_catalog *cat, const sl_side_kind *kind, const char *table,
                    sl_guarantee g, sl_side_spec **out, sl_error *err)
{
    *out = NULL;
    const sl_table *t = sl_catalog_table(cat, table);
    if (!t) {
        sl_error_set(err, SL_ERR_UNDEFINED_TABLE, -1,
                     "table \"%s\" named by '%s' does not exist", table, kind->option);
        sl_error_hint(err, "CREATE TABLE it with columns of %s, or RESET '%s'.", kind->what,
                      kind->option);
        return -1;
    }
    if (!t->connector || !t->connector->create_sink)
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                            "table \"%s\" named by '%s' cannot be written: connector '%s' "
                            "cannot be written yet",
                            t->name, kind->option, t->connector ? t->connector->name : "?");
    sl_type ktypes[16];
    SL_ALWAYS(kind->ncols <= 16);
    kind->types(ktypes);
    sl_side_spec *sp = sl_calloc(1, sizeof *sp);
    int *map = sl_calloc((size_t)t->ncols + 1, sizeof(int));
    const char **names = sl_calloc((size_t)t->ncols + 1, sizeof(char *));
    sl_type *types = sl_calloc((size_t)t->ncols + 1, sizeof(sl_type));
    const char **meta = NULL;
    sp->map = map;
    sp->sink_args.names = names;
    sp->sink_args.types = types;
    for (int c = 0; c < t->ncols; c++) {
        const sl_column *col = &t->cols[c];
        names[c] = col->name;
        types[c] = col->meta ? col->mtype : col->type;
        types[c].not_null = false;
        if (col->meta) {
            if (!meta)
                meta = sl_calloc((size_t)t->ncols + 1, sizeof(char *));
            meta[c] = col->virt ? "" : col->meta;
        }
        int k = 0;
        while (k < kind->ncols && sl_strcasecmp(kind->names[k], col->name) != 0)
            k++;
        if (k == kind->ncols) {
            sl_strbuf sb = SL_STRBUF_INIT;
            sl__side_names(&sb, kind);
            sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, -1,
                         "column \"%s\" of table \"%s\" is not a column of %s", col->name,
                         t->name, kind->what);
            sl_error_detail(err, "The table named by '%s' may have any of the columns %s.",
                            kind->option, sl_strbuf_cstr(&sb));
            sl_strbuf_free(&sb);
            sp->sink_args.meta = meta;
            sl_side_spec_free(sp);
            return -1;
        }
        if (!sl__side_type_fits(ktypes[k], types[c])) {
            char *have = sl_type_to_string(types[c]), *want = sl_type_to_string(ktypes[k]);
            sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, -1,
                         "column \"%s\" of table \"%s\" is of type %s, but %s give it %s",
                         col->name, t->name, have, kind->what, want);
            sl_error_hint(err, "Declare it %s.", want);
            sl_free(have);
            sl_free(want);
            sp->sink_args.meta = meta;
            sl_side_spec_free(sp);
            return -1;
        }
        map[c] = k;
    }
    sp->create_sink = t->connector->create_sink;
    sp->ncols = t->ncols;
    sp->sink_args.options = t->def->options;
    sp->sink_args.ncols = t->ncols;
    sp->sink_args.table = t->name;
    sp->sink_args.npk = t->npk;
    sp->sink_args.pk = t->pk;
    sp->sink_args.npart = t->npart;
    sp->sink_args.part = t->part;
    sp->sink_args.meta = meta;
    sp->sink_args.guarantee = g;
    sp->sink_args.participant_slot = -1;
    *out = sp;
    return 0;
}
