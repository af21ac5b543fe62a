/*
** values.c — a VALUES list as a bounded source of a job (Flink's Values
** node: `VALUES (1, 'a'), (2, 'b')`, `INSERT INTO t VALUES ...`, `FROM
** (VALUES ...) AS t(a, b)`); see sl_exec.h, sl_values_spec.
**
** Subtask 0 evaluates each row's expressions (sl_eval, over a one-row input
** without columns) when it hands the row out, and ends after the last;
** the other subtasks end at once. Its position is "next=<row>", so a job
** restored from a checkpoint goes on with the rows after it (an exactly-once
** sink sees every row once).
**
** Main routines: sl_values_source_new and its poll / position / seek.
*/
#include "sl_exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct sl__values {
    const sl_values_spec *spec; /* the rows */
    int ncols;                  /* columns */
    const sl_type *types;       /* their types */
    sl_eval_prog **progs;       /* rows x columns, compiled at the first poll */
    int64_t next;               /* the next row to hand out */
    bool first;                 /* subtask 0: it has the rows */
    sl_eval_env env;            /* time zone, NOW() */
    sl_chunk *one;              /* one row, no columns: the input */
    sl_chunk *row;              /* one evaluated row */
} sl__values;

static int sl__values_poll(sl_source *s, sl_chunk *out, sl_error *err)
{
    sl__values *v = s->impl;
    const sl_values_spec *sp = v->spec;
    if (!v->first)
        return SL_SOURCE_END;
    if (!v->progs) {
        v->progs = sl_calloc((size_t)sp->nrows * (size_t)v->ncols + 1, sizeof(sl_eval_prog *));
        for (int r = 0; r < sp->nrows; r++)
            for (int c = 0; c < v->ncols; c++) {
                sl_eval_prog *p = sl_eval_compile_rows(sp->rows[r][c], 0, NULL, 1, err);
                if (!p)
                    return -1;
                v->progs[(size_t)r * (size_t)v->ncols + (size_t)c] = p;
            }
    }
    while (v->next < sp->nrows && !sl_chunk_full(out)) {
        sl_chunk_reset(v->row);
        int r = sl_chunk_append_row(v->row, SL_ROW_INSERT);
        for (int c = 0; c < v->ncols; c++)
            if (sl_eval_into(v->progs[v->next * v->ncols + c], v->one, &v->env, v->row, c, err) != 0)
                return -1;
        sl_chunk_copy_row(out, v->row, r);
        v->next++;
    }
    return v->next >= sp->nrows ? SL_SOURCE_END : SL_SOURCE_MORE;
}

static int sl__values_position(sl_source *s, sl_strbuf *out, sl_error *err)
{
    (void)err;
    sl__values *v = s->impl;
    sl_strbuf_appendf(out, "next=%" PRId64, v->first ? v->next : 0);
    return 0;
}

static int sl__values_seek(sl_source *s, const char *pos, size_t len, sl_error *err)
{
    sl__values *v = s->impl;
    char buf[40];
    int64_t next = -1;
    int used = -1;
    if (len < sizeof buf) {
        memcpy(buf, pos, len);
        buf[len] = 0;
        if (sscanf(buf, "next=%" SCNd64 "%n", &next, &used) != 1)
            used = -1;
    }
    if (used < 0 || (size_t)used != len || next < 0 || next > v->spec->nrows) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid VALUES source position");
        sl_error_detail(err, "The position is \"%.*s\".", (int)(len < 40 ? len : 40), pos);
        return -1;
    }
    v->next = next;
    return 0;
}

static int64_t sl__values_skipped(sl_source *s)
{
    (void)s;
    return 0;
}

static void sl__values_free(sl_source *s)
{
    if (!s)
        return;
    sl__values *v = s->impl;
    for (size_t i = 0; v->progs && i < (size_t)v->spec->nrows * (size_t)v->ncols; i++)
        sl_eval_free(v->progs[i]);
    sl_free(v->progs);
    sl_chunk_free(v->one);
    sl_chunk_free(v->row);
    sl_free(v);
    sl_free(s);
}

static const sl_source_ops sl__values_ops = {
    .poll = sl__values_poll,
    .position = sl__values_position,
    .seek = sl__values_seek,
    .skipped = sl__values_skipped,
    .free = sl__values_free,
    .end_is_final = true,
};

int sl_values_source_new(const sl_source_args *args, sl_source **out, sl_error *err)
{
    *out = NULL;
    if (!args->values)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "a VALUES source without rows");
    sl__values *v = sl_calloc(1, sizeof *v);
    v->spec = args->values;
    v->ncols = args->ncols;
    v->types = args->types;
    v->first = args->subtask == 0;
    v->env.now_nanos = args->created_nanos;
    v->env.tz = args->values->tz;
    v->one = sl_chunk_new(0, NULL, 1);
    sl_chunk_append_row(v->one, SL_ROW_INSERT);
    v->row = sl_chunk_new(v->ncols, v->types, 1);
    sl_source *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__values_ops;
    s->impl = v;
    *out = s;
    return 0;
}
