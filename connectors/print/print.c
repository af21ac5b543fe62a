/*
** print.c — the 'print' connector: a sink that prints every row of the
** changelog (with its row kind, +I/-U/+U/-D) to standard output or standard
** error (Flink's Print connector and option names).
**
** Each row is one line, as Flink's print sink writes it:
**
**   <prefix>+I[1, abc, null]
**
** where the prefix is "<print-identifier>> ", with ":<subtask + 1>" after
** the identifier when the sink runs with parallelism > 1 ("id:2> ", or
** "2> " without an identifier), and nothing for one unnamed instance.
** Values are spelled by sl_value_format, NULL as null and BOOLEAN as
** true / false (as Flink prints them).
**
** Printing has no commit protocol: guarantee none. begin / commit / abort /
** recover do nothing; pre_commit returns an empty committable. Every write
** is one fwrite of whole lines (rows of concurrent subtasks never mix within
** a line), flushed at the end of the write, at pre_commit and on free.
**
** With a writer set (sl_print_set_writer: the interactive shell), lines
** meant for standard output / error go to it instead, so they are printed
** above the prompt without garbling the line being typed.
**
** Main routines: the sl_sink_ops sl__print_*, sl_print_set_output (tests),
** sl_print_set_writer.
*/
#include <errno.h>
#include <string.h>

#include "../sl_connector_int.h"
#include "print.h"

typedef struct sl__print {
    FILE *out;     /* stdout, stderr or a test's file (never closed here) */
    char *prefix;  /* "id> ", "id:2> ", "2> " or "" */
    sl_strbuf buf; /* the lines of one write */
} sl__print;

static const sl_sink_ops sl__print_ops;

static sl_print_writer_fn sl__print_writer; /* sl_print_set_writer */
static void *sl__print_writer_ctx;

void sl_print_set_writer(sl_print_writer_fn fn, void *ctx)
{
    sl__print_writer = fn;
    sl__print_writer_ctx = ctx;
}

/* Flush out; 0 or -1 with err (58030). */
static int sl__print_flush(sl__print *p, sl_error *err)
{
    if (fflush(p->out) != 0 || ferror(p->out)) {
        int e = errno;
        clearerr(p->out);
        return sl_error_set(err, SL_ERR_IO, -1, "could not write the rows of a print table: %s",
                            strerror(e));
    }
    return 0;
}

static int sl__print_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    (void)s, (void)epoch, (void)err;
    return 0;
}

static int sl__print_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    sl__print *p = s->impl;
    sl_strbuf_reset(&p->buf);
    for (int r = 0; r < c->nrows; r++) {
        sl_strbuf_append(&p->buf, p->prefix);
        sl_strbuf_append(&p->buf, sl_row_kind_name((sl_row_kind)c->kinds[r]));
        sl_strbuf_append_char(&p->buf, '[');
        for (int col = 0; col < c->ncols; col++) {
            const sl_vector *v = &c->cols[col];
            if (col > 0)
                sl_strbuf_append(&p->buf, ", ");
            if (v->nulls[r])
                sl_strbuf_append(&p->buf, "null");
            else if (v->type.id == SL_TYPE_BOOLEAN)
                sl_strbuf_append(&p->buf, v->v.b[r] ? "true" : "false");
            else if (!sl_value_format(&p->buf, v, r))
                sl_strbuf_append(&p->buf, "null");
        }
        sl_strbuf_append(&p->buf, "]\n");
    }
    if (p->buf.len > 0 && sl__print_writer && (p->out == stdout || p->out == stderr)) {
        sl__print_writer(sl__print_writer_ctx, p->out == stderr, p->buf.buf, p->buf.len);
        return 0;
    }
    if (p->buf.len > 0 && fwrite(p->buf.buf, 1, p->buf.len, p->out) != p->buf.len) {
        int e = errno;
        clearerr(p->out);
        return sl_error_set(err, SL_ERR_IO, -1, "could not write the rows of a print table: %s",
                            strerror(e));
    }
    return sl__print_flush(p, err);
}

static int sl__print_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    (void)epoch, (void)committable;
    return sl__print_flush(s->impl, err);
}

static int sl__print_commit(sl_sink *s, const char *committable, size_t len, sl_error *err)
{
    (void)s, (void)committable, (void)len, (void)err;
    return 0;
}

static int sl__print_recover(sl_sink *s, const char *const *committables, const size_t *lens,
                             int n, sl_error *err)
{
    (void)s, (void)committables, (void)lens, (void)n, (void)err;
    return 0;
}

static void sl__print_free(sl_sink *s)
{
    if (!s)
        return;
    sl__print *p = s->impl;
    fflush(p->out);
    sl_strbuf_free(&p->buf);
    sl_free(p->prefix);
    sl_free(p);
    sl_free(s);
}

static const sl_sink_ops sl__print_ops = {
    .begin = sl__print_begin,
    .write = sl__print_write,
    .pre_commit = sl__print_pre_commit,
    .commit = sl__print_commit,
    .abort = sl__print_commit, /* nothing to discard either */
    .recover = sl__print_recover,
    .free = sl__print_free,
};

static int sl__print_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    *out = NULL;
    bool to_stderr = false;
    const sl_kv *kv = sl_kvlist_find(args->options, "standard-error");
    if (kv) {
        const char *r = sl__parse_bool(kv->value, &to_stderr);
        if (r)
            return sl__invalid_value(err, kv, false, "%s", r);
    }
    const char *id = sl_kvlist_get(args->options, "print-identifier");
    sl_strbuf prefix = SL_STRBUF_INIT;
    sl_strbuf_append(&prefix, id ? id : "");
    if (args->parallelism > 1)
        sl_strbuf_appendf(&prefix, "%s%d", prefix.len ? ":" : "", args->subtask + 1);
    if (prefix.len)
        sl_strbuf_append(&prefix, "> ");

    sl__print *p = sl_calloc(1, sizeof *p);
    p->out = to_stderr ? stderr : stdout;
    p->prefix = sl_strbuf_detach(&prefix);
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__print_ops;
    s->impl = p;
    *out = s;
    return 0;
}

void sl_print_set_output(sl_sink *s, FILE *f)
{
    SL_ALWAYS(s->ops == &sl__print_ops && f);
    sl__print *p = s->impl;
    fflush(p->out);
    p->out = f;
}

static const sl_option_spec sl__print_options[] = {
    {.key = "print-identifier", .type = SL_OPT_STRING,
     .description = "A prefix printed before every row."},
    {.key = "standard-error", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Print to standard error instead of standard output."},
};

const sl_connector sl__connector_print = {
    .name = "print",
    .description = "Prints every row of the changelog to standard output or standard error.",
    .options = sl__print_options,
    .noptions = (int)SL_ARRAY_LEN(sl__print_options),
    .has_format = false,
    .caps = {
        .source = false,
        .sink = true,
        .source_replayable = false,
        .sink_max = SL_GUARANTEE_NONE,
        .sink_mech = SL_MECH_NONE,
        .sink_updates = true,
        .sink_default = SL_GUARANTEE_NONE,
    },
    .check = NULL,
    .create_source = NULL,
    .create_sink = sl__print_create,
};
