/*
** blackhole.c — the 'blackhole' connector: a sink that discards every row
** (Flink's BlackHole connector), for benchmarks and tests.
**
** It has no options of its own; nothing is written, so the guarantee is
** none and every commit step does nothing. It counts the rows it discarded
** (sl_blackhole_rows, for tests and benchmarks).
*/
#include "../sl_connector_int.h"
#include "blackhole.h"

typedef struct sl__blackhole {
    int64_t rows; /* rows written so far */
} sl__blackhole;

static const sl_sink_ops sl__blackhole_ops;

static int sl__blackhole_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    (void)s, (void)epoch, (void)err;
    return 0;
}

static int sl__blackhole_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    (void)err;
    ((sl__blackhole *)s->impl)->rows += c->nrows;
    return 0;
}

static int sl__blackhole_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable,
                                    sl_error *err)
{
    (void)s, (void)epoch, (void)committable, (void)err;
    return 0;
}

/* commit and abort: nothing to make visible or to discard. */
static int sl__blackhole_commit(sl_sink *s, const char *committable, size_t len, sl_error *err)
{
    (void)s, (void)committable, (void)len, (void)err;
    return 0;
}

static int sl__blackhole_recover(sl_sink *s, const char *const *committables, const size_t *lens,
                                 int n, sl_error *err)
{
    (void)s, (void)committables, (void)lens, (void)n, (void)err;
    return 0;
}

static void sl__blackhole_free(sl_sink *s)
{
    if (!s)
        return;
    sl_free(s->impl);
    sl_free(s);
}

static const sl_sink_ops sl__blackhole_ops = {
    .begin = sl__blackhole_begin,
    .write = sl__blackhole_write,
    .pre_commit = sl__blackhole_pre_commit,
    .commit = sl__blackhole_commit,
    .abort = sl__blackhole_commit,
    .recover = sl__blackhole_recover,
    .free = sl__blackhole_free,
};

static int sl__blackhole_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    (void)args, (void)err;
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__blackhole_ops;
    s->impl = sl_calloc(1, sizeof(sl__blackhole));
    *out = s;
    return 0;
}

int64_t sl_blackhole_rows(const sl_sink *s)
{
    SL_ALWAYS(s->ops == &sl__blackhole_ops);
    return ((const sl__blackhole *)s->impl)->rows;
}

const sl_connector sl__connector_blackhole = {
    .name = "blackhole",
    .description = "Discards every row.",
    .options = NULL,
    .noptions = 0,
    .has_format = false,
    .caps = {
        .source = false,
        .sink = true,
        .source_replayable = false,
        .sink_max = SL_GUARANTEE_NONE,
        .sink_mech = SL_MECH_NONE,
        .sink_updates = true,
        .sink_discards = true,
        .sink_default = SL_GUARANTEE_NONE,
    },
    .check = NULL,
    .create_source = NULL,
    .create_sink = sl__blackhole_create,
};
