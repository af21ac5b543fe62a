/*
** nexmark_source.c — the runtime of the 'nexmark' connector: a source that
** emits the Nexmark events of nexmark_gen.c as rows of the table's leaf
** columns (event_type, person.*, auction.*, bid.*: the reference DDL's ROW
** columns flattened; the leaves of the two kinds an event is not are NULL).
**
** Splits. Subtask k of p runs split k of the reference's
** GeneratorConfig.split(p): a contiguous block of event ids, its own event
** numbers from 1 (so every subtask's event times start at the base time, the
** inter-event delay being p times the single-generator one), as the
** reference's NexmarkSource does.
**
** Base time. The reference takes it when the table source is planned; here
** it is the instant the job created its sources (sl_source_args
** created_nanos, the same for every subtask; the first poll's clock when
** unknown), truncated to ms, and it is kept in the position, so a restored
** job emits the same events with the same timestamps.
**
** Pacing. At full speed by default ('max-emit-speed' = true, as the
** reference). With 'max-emit-speed' = false, or 'rate.limited' = true,
** event n is emitted no earlier than the wall-clock base (the first event's
** emission, kept in the position as the reference keeps it) plus its event
** time offset; poll sleeps at most 50 ms for it.
**
** Columns. A row fills only the leaves of its event's kind (and
** event_type), and of those only the ones the job reads
** (sl_source_args.used) or declared NOT NULL: a query that never looks at
** `extra` does not have it copied into every row, nor generated: the
** generator stops after the last draw a filled leaf needs.
**
** End. After 'events.num' (or its share of 'stop-at') events a subtask ends,
** unless 'keep-alive' = true (then it idles, as the reference's reader).
**
** Main routines: sl_nexmark_create, sl_nexmark_set_clock; the sl_source_ops
** sl__nx_poll, sl__nx_position, sl__nx_seek.
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../sl_connector_int.h"
#include "nexmark.h"

#define SL__NX_MAX_SLEEP_NS   (50 * SL_NANOS_PER_MILLI)
#define SL__NX_MAX_POLL_BYTES (8 << 20) /* a poll's rows stop after this many event bytes */

const char *const sl_nexmark_columns[] = {
    "event_type",
    "person.id", "person.name", "person.emailAddress", "person.creditCard", "person.city",
    "person.state", "person.dateTime", "person.extra",
    "auction.id", "auction.itemName", "auction.description", "auction.initialBid",
    "auction.reserve", "auction.dateTime", "auction.expires", "auction.seller",
    "auction.category", "auction.extra",
    "bid.auction", "bid.bidder", "bid.price", "bid.channel", "bid.url", "bid.dateTime",
    "bid.extra",
};
const int sl_nexmark_ncolumns = (int)SL_ARRAY_LEN(sl_nexmark_columns);

typedef struct sl__nexmark {
    sl_nexmark_config whole; /* the table's configuration */
    sl_nexmark_config cfg;   /* this subtask's split */
    int64_t total;           /* events of the split */
    int64_t count;           /* events emitted so far */
    int subtask, parallelism;
    int64_t created_ns;      /* the job's creation instant (0 = unknown) */
    bool have_base;          /* cfg.base_time_ms is set */
    int64_t wall_ms;         /* wall clock of the first event, -1 before */
    bool paced;              /* emit at the event times' pace */
    bool keep_alive;         /* idle instead of ending */
    int ncols;
    int *field;              /* column -> index in sl_nexmark_columns */
    sl_type *types;          /* column types */
    int *fill[3];            /* per event kind (SL_NX_*): the columns its rows fill */
    int nfill[3];
    sl_nexmark_event ev;     /* the event being emitted */
    int64_t (*now)(void *);
    void *now_ctx;
    bool real_clock;
} sl__nexmark;

static const sl_source_ops sl__nx_ops;

static int64_t sl__nx_real_now(void *ctx)
{
    (void)ctx;
    return sl_now_nanos();
}

static int64_t sl__floor_ms(int64_t ns)
{
    int64_t q = ns / SL_NANOS_PER_MILLI;
    return ns % SL_NANOS_PER_MILLI < 0 ? q - 1 : q;
}

static void sl__nx_ensure_base(sl__nexmark *x)
{
    if (x->have_base)
        return;
    int64_t t = x->created_ns ? x->created_ns : x->now(x->now_ctx);
    x->whole.base_time_ms = x->cfg.base_time_ms = sl__floor_ms(t);
    x->have_base = true;
}

static void sl__nx_str(sl_chunk *out, int col, int r, sl_type t, sl_nexmark_str s)
{
    size_t n = s.len;
    if (t.precision > 0 && n > (size_t)t.precision)
        n = (size_t)t.precision; /* ASCII: characters are bytes */
    if (s.fixed) /* the generator's tables: no copy */
        sl_chunk_set_str_static(out, col, r, s.p, n);
    else
        sl_chunk_set_str(out, col, r, s.p, n);
}

static void sl__nx_ts(sl_chunk *out, int col, int r, sl_type t, int64_t ms)
{
    /* times past 2262 (a low first-event.rate at full speed) stop at the last instant */
    const int64_t lim = INT64_MAX / SL_NANOS_PER_MILLI;
    ms = ms > lim ? lim : ms < -lim ? -lim : ms;
    sl_chunk_set_i64(out, col, r, sl_time_truncate(ms * SL_NANOS_PER_MILLI, t.precision));
}

/* The event kind whose rows fill leaf f (-1: every kind, event_type). */
static int sl__nx_kind(int f)
{
    return f == 0 ? -1 : f <= 8 ? SL_NX_PERSON : f <= 18 ? SL_NX_AUCTION : SL_NX_BID;
}

/* Column `col` (leaf f, of e's kind or event_type) of event e into row r. */
static void sl__nx_value(const sl__nexmark *x, int col, const sl_nexmark_event *e, sl_chunk *out,
                         int r)
{
    sl_type t = x->types[col];
    int f = x->field[col];
    switch (f) {
    case 0: sl_chunk_set_i64(out, col, r, e->type); break;
    case 1: sl_chunk_set_i64(out, col, r, e->p_id); break;
    case 2: sl__nx_str(out, col, r, t, e->p_name); break;
    case 3: sl__nx_str(out, col, r, t, e->p_email); break;
    case 4: sl__nx_str(out, col, r, t, e->p_card); break;
    case 5: sl__nx_str(out, col, r, t, e->p_city); break;
    case 6: sl__nx_str(out, col, r, t, e->p_state); break;
    case 7: sl__nx_ts(out, col, r, t, e->ts_ms); break;
    case 8: sl__nx_str(out, col, r, t, e->p_extra); break;
    case 9: sl_chunk_set_i64(out, col, r, e->a_id); break;
    case 10: sl__nx_str(out, col, r, t, e->a_name); break;
    case 11: sl__nx_str(out, col, r, t, e->a_desc); break;
    case 12: sl_chunk_set_i64(out, col, r, e->a_initial); break;
    case 13: sl_chunk_set_i64(out, col, r, e->a_reserve); break;
    case 14: sl__nx_ts(out, col, r, t, e->ts_ms); break;
    case 15: sl__nx_ts(out, col, r, t, e->a_expires_ms); break;
    case 16: sl_chunk_set_i64(out, col, r, e->a_seller); break;
    case 17: sl_chunk_set_i64(out, col, r, e->a_category); break;
    case 18: sl__nx_str(out, col, r, t, e->a_extra); break;
    case 19: sl_chunk_set_i64(out, col, r, e->b_auction); break;
    case 20: sl_chunk_set_i64(out, col, r, e->b_bidder); break;
    case 21: sl_chunk_set_i64(out, col, r, e->b_price); break;
    case 22: sl__nx_str(out, col, r, t, e->b_channel); break;
    case 23: sl__nx_str(out, col, r, t, e->b_url); break;
    case 24: sl__nx_ts(out, col, r, t, e->ts_ms); break;
    case 25: sl__nx_str(out, col, r, t, e->b_extra); break;
    default: break;
    }
}

/* ------------------------------------------------------------------------
** The source operations.
*/

/* ms until event `count` may be emitted (<= 0: now). */
static int64_t sl__nx_due(const sl__nexmark *x, int64_t now_ms)
{
    int64_t off = sl_nexmark_timestamp(&x->cfg, x->cfg.first_event_number + x->count) -
                  x->cfg.base_time_ms;
    return x->wall_ms + off - now_ms;
}

static int sl__nx_poll(sl_source *s, sl_chunk *out, sl_error *err)
{
    (void)err;
    sl__nexmark *x = s->impl;
    if (x->count >= x->total) {
        if (!x->keep_alive)
            return SL_SOURCE_END;
        if (x->real_clock)
            sl_sleep_nanos(SL__NX_MAX_SLEEP_NS);
        return SL_SOURCE_MORE;
    }
    sl__nx_ensure_base(x);
    int64_t now_ms = sl__floor_ms(x->now(x->now_ctx));
    if (x->wall_ms < 0)
        x->wall_ms = now_ms;
    if (x->paced && x->real_clock) {
        int64_t due = sl__nx_due(x, now_ms);
        if (due > 0) {
            int64_t ns = due * SL_NANOS_PER_MILLI;
            sl_sleep_nanos(ns < SL__NX_MAX_SLEEP_NS ? ns : SL__NX_MAX_SLEEP_NS);
            now_ms = sl__floor_ms(x->now(x->now_ctx));
        }
    }
    size_t bytes = 0; /* large 'avg-size' options: a chunk stays bounded */
    sl_chunk_null_tail(out);
    while (out->nrows < out->cap && x->count < x->total && bytes < SL__NX_MAX_POLL_BYTES) {
        if (x->paced && sl__nx_due(x, now_ms) > 0)
            break;
        sl_nexmark_next(&x->cfg, x->count, &x->ev);
        int r = sl_chunk_append_nulled(out, SL_ROW_INSERT);
        /* only the leaves of the event's kind; the others stay NULL */
        int k = x->ev.type >= 0 && x->ev.type < 3 ? x->ev.type : 0;
        for (int i = 0; i < x->nfill[k]; i++)
            sl__nx_value(x, x->fill[k][i], &x->ev, out, r);
        bytes += sl_nexmark_event_bytes(&x->ev);
        x->count++;
    }
    return x->count >= x->total && !x->keep_alive ? SL_SOURCE_END : SL_SOURCE_MORE;
}

static int sl__nx_position(sl_source *s, sl_strbuf *out, sl_error *err)
{
    (void)err;
    sl__nexmark *x = s->impl;
    sl__nx_ensure_base(x);
    sl_strbuf_appendf(out,
                      "count=%" PRId64 ";base=%" PRId64 ";wall=%" PRId64
                      ";parallelism=%d;subtask=%d",
                      x->count, x->cfg.base_time_ms, x->wall_ms, x->parallelism, x->subtask);
    return 0;
}

static int sl__nx_seek(sl_source *s, const char *pos, size_t len, sl_error *err)
{
    sl__nexmark *x = s->impl;
    char buf[200];
    int64_t count = 0, base = 0, wall = 0;
    int p = 0, k = 0, used = -1;
    if (len < sizeof buf) {
        memcpy(buf, pos, len);
        buf[len] = 0;
        if (sscanf(buf,
                   "count=%" SCNd64 ";base=%" SCNd64 ";wall=%" SCNd64
                   ";parallelism=%d;subtask=%d%n",
                   &count, &base, &wall, &p, &k, &used) != 5)
            used = -1;
    }
    if (used < 0 || (size_t)used != len || count < 0 || p <= 0 || k < 0 || k >= p) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid nexmark source position");
        sl_error_detail(err, "The position is \"%.*s\".", (int)(len < 100 ? len : 100), pos);
        return -1;
    }
    if (p != x->parallelism || k != x->subtask) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "a nexmark source cannot be restored with a different parallelism");
        sl_error_detail(err,
                        "The checkpoint was taken by subtask %d of %d; this is subtask %d of %d.",
                        k, p, x->subtask, x->parallelism);
        sl_error_hint(err, "Restore the job with parallelism %d.", p);
        return -1;
    }
    x->count = count;
    x->whole.base_time_ms = x->cfg.base_time_ms = base;
    x->have_base = true;
    x->wall_ms = wall;
    return 0;
}

static int64_t sl__nx_skipped(sl_source *s)
{
    (void)s;
    return 0;
}

static void sl__nx_free(sl_source *s)
{
    if (!s)
        return;
    sl__nexmark *x = s->impl;
    sl_nexmark_event_free(&x->ev);
    sl_free(x->field);
    sl_free(x->types);
    for (int k = 0; k < 3; k++)
        sl_free(x->fill[k]);
    sl_free(x);
    sl_free(s);
}

static const sl_source_ops sl__nx_ops = {
    .poll = sl__nx_poll,
    .position = sl__nx_position,
    .seek = sl__nx_seek,
    .skipped = sl__nx_skipped,
    .free = sl__nx_free,
    .end_is_final = true,
};

static int sl__nx_bool(const sl_kvlist *opts, const char *key, bool def, bool *out, sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, key);
    *out = def;
    if (!kv)
        return 0;
    const char *why = sl__parse_bool(kv->value, out);
    return why ? sl__invalid_value(err, kv, false, "%s", why) : 0;
}

int sl_nexmark_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    *out = NULL;
    sl__nexmark *x = sl_calloc(1, sizeof *x);
    sl_source *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__nx_ops;
    s->impl = x;
    x->subtask = args->subtask;
    x->parallelism = args->parallelism > 0 ? args->parallelism : 1;
    SL_ALWAYS(x->subtask >= 0 && x->subtask < x->parallelism);
    x->created_ns = args->created_nanos;
    x->wall_ms = -1;
    x->now = sl__nx_real_now;
    x->real_clock = true;
    x->ncols = args->ncols;
    x->field = sl_calloc((size_t)(args->ncols ? args->ncols : 1), sizeof *x->field);
    x->types = sl_calloc((size_t)(args->ncols ? args->ncols : 1), sizeof *x->types);
    bool max_speed = true, limited = false;
    if (sl_nexmark_config_init(&x->whole, args->options, x->parallelism, 0, err) != 0 ||
        sl__nx_bool(args->options, "max-emit-speed", true, &max_speed, err) != 0 ||
        sl__nx_bool(args->options, "rate.limited", false, &limited, err) != 0 ||
        sl__nx_bool(args->options, "keep-alive", false, &x->keep_alive, err) != 0)
        goto fail;
    x->paced = !max_speed || limited;
    sl_nexmark_config_split(&x->whole, x->parallelism, x->subtask, &x->cfg);
    x->total = sl_nexmark_split_events(&x->cfg);
    for (int c = 0; c < args->ncols; c++) {
        x->types[c] = args->types[c];
        x->field[c] = -1;
        for (int f = 0; f < sl_nexmark_ncolumns; f++)
            if (strcmp(args->names[c], sl_nexmark_columns[f]) == 0)
                x->field[c] = f;
        if (x->field[c] < 0) {
            sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, -1,
                         "column \"%s\" is not a field of the nexmark events", args->names[c]);
            goto fail;
        }
    }
    /* The columns each kind's rows fill: its leaves and event_type, less
    ** the nullable ones the job does not read (left NULL; no string built). */
    for (int k = 0; k < 3; k++) {
        x->fill[k] = sl_calloc((size_t)(args->ncols ? args->ncols : 1), sizeof(int));
        for (int c = 0; c < args->ncols; c++) {
            int kind = sl__nx_kind(x->field[c]);
            bool read = !args->used || args->used[c] || args->types[c].not_null;
            if (read && (kind < 0 || kind == k))
                x->fill[k][x->nfill[k]++] = c;
        }
    }
    /* and the generator draws only what they need (sl_nexmark_config.need) */
    uint32_t need = 0;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < x->nfill[k]; i++)
            need |= 1u << x->field[x->fill[k][i]];
    x->whole.need = x->cfg.need = need;
    *out = s;
    return 0;
fail:
    sl__nx_free(s);
    return -1;
}

void sl_nexmark_set_clock(sl_source *s, int64_t (*now)(void *ctx), void *ctx)
{
    SL_ALWAYS(s->ops == &sl__nx_ops);
    sl__nexmark *x = s->impl;
    x->now = now ? now : sl__nx_real_now;
    x->now_ctx = now ? ctx : NULL;
    x->real_clock = now == NULL;
}
