/*
** test_connectors_nexmark.c — the nexmark generator and source: the
** SplittableRandom draws against a JVM's, every field of 845 events against
** the output of the reference generator's own code (seeded per event:
** data/nexmark_reference.sh), event ids / kinds / person and
** auction ids / hot sellers and bidders / timestamps against the reference's
** formulas (worked out by hand below), the 1/3/46 proportions over 50
** events, out-of-order groups, determinism, seek to a stored position, the
** parallel split (p = 3 is p = 1 but for the event times), events.num /
** stop-at / keep-alive, pacing with max-emit-speed = false against a fake
** clock, and create-time errors.
*/
#include <math.h>
#include <stdarg.h>

#include "nexmark/nexmark.h"
#include "sl_connector.h"
#include "sl_test.h"

#define T0 (1767225600LL * SL_NANOS_PER_SEC) /* 2026-01-01 00:00:00 UTC */
#define B  (T0 / SL_NANOS_PER_MILLI)         /* the base time, ms */

typedef struct fclock {
    int64_t t;
    int64_t step;
} fclock;

static int64_t fclock_now(void *ctx)
{
    fclock *c = ctx;
    int64_t t = c->t;
    c->t += c->step;
    return t;
}

static sl_kvlist *opts(const char *key, ...)
{
    sl_kvlist *l = sl_kvlist_new();
    va_list ap;
    va_start(ap, key);
    for (int i = 0; key; i++) {
        const char *value = va_arg(ap, const char *);
        sl_kvlist_add(l, key, value, 100 * (i + 1), 100 * (i + 1) + 50);
        key = va_arg(ap, const char *);
    }
    va_end(ap);
    return l;
}

/* Every leaf column, with the reference DDL's types. */
typedef struct table {
    int ncols;
    const char *names[32];
    sl_type types[32];
} table;

static void all_cols(table *t)
{
    t->ncols = 0;
    for (int f = 0; f < sl_nexmark_ncolumns; f++) {
        const char *n = sl_nexmark_columns[f];
        sl_type ty = sl_type_make(SL_TYPE_BIGINT);
        if (f == 0)
            ty = sl_type_make(SL_TYPE_INT);
        else if (strstr(n, "dateTime") || strstr(n, "expires"))
            ty = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
        else if (strstr(n, "name") || strstr(n, "Name") || strstr(n, "email") ||
                 strstr(n, "credit") || strstr(n, "city") || strstr(n, "state") ||
                 strstr(n, "extra") || strstr(n, "description") || strstr(n, "channel") ||
                 strstr(n, "url"))
            ty = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
        t->names[t->ncols] = n;
        t->types[t->ncols++] = ty;
    }
}

static sl_source *mk(const table *t, const sl_kvlist *o, int subtask, int par, sl_error *err)
{
    const sl_connector *c = sl_connector_find("nexmark");
    if (!c || !c->create_source)
        return NULL;
    sl_source_args a = {.options = o,
                        .ncols = t->ncols,
                        .names = t->names,
                        .types = t->types,
                        .subtask = subtask,
                        .parallelism = par,
                        .table = "t",
                        .created_nanos = T0};
    sl_source *s = NULL;
    return c->create_source(&a, &s, err) == 0 ? s : NULL;
}

/* Poll until END or max rows (chunks of cap) into *all. */
static int collect(sl_source *s, const table *t, int cap, int max, sl_chunk **all, bool *ended)
{
    if (!*all)
        *all = sl_chunk_new(t->ncols, t->types, 4096);
    sl_chunk *c = sl_chunk_new(t->ncols, t->types, cap);
    int got = 0, idle = 0;
    *ended = false;
    sl_error err = SL_ERROR_INIT;
    while (got < max && idle < 100) {
        sl_chunk_reset(c);
        c->cap = cap < max - got ? cap : max - got;
        int rc = s->ops->poll(s, c, &err);
        if (rc < 0)
            break;
        for (int r = 0; r < c->nrows; r++)
            sl_chunk_copy_row(*all, c, r);
        got += c->nrows;
        idle = c->nrows ? 0 : idle + 1;
        if (rc == SL_SOURCE_END) {
            *ended = true;
            break;
        }
    }
    c->cap = cap;
    sl_chunk_free(c);
    sl_error_reset(&err);
    return got;
}

/* Row r as text, leaving out columns whose name contains skip (NULL: none). */
static char *row_text(const sl_chunk *c, const table *t, int r, const char *skip)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < c->ncols; i++) {
        if (skip && (strstr(t->names[i], skip) || strstr(t->names[i], "expires")))
            continue;
        sl_strbuf_append_char(&sb, '|');
        if (!sl_value_format(&sb, &c->cols[i], r))
            sl_strbuf_append(&sb, "null");
    }
    return sl_strbuf_detach(&sb);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int col_of(const table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->names[i], name) == 0)
            return i;
    return -1;
}

/* java.util.SplittableRandom(42) on JDK 17.0.15 printed, for nextInt(11),
** nextInt(10000), nextInt(13), nextInt(1048516), nextLong(), nextInt(),
** nextDouble(), Math.round(Math.pow(10.0, nextDouble() * 6.0) * 100.0),
** nextInt(16): 9 7556 9 566728 701532786141963250 -1746239153
** 0.21840519371218436 6364895 1. */
static void t_random_matches_java(void)
{
    sl_nexmark_rand r = {42};
    CHECK_INT(sl_nexmark_rand_int(&r, 11), 9);
    CHECK_INT(sl_nexmark_rand_int(&r, 10000), 7556);
    CHECK_INT(sl_nexmark_rand_int(&r, 13), 9);
    CHECK_INT(sl_nexmark_rand_int(&r, 1048576 - 60), 566728);
    CHECK(sl_nexmark_rand_long(&r) == 701532786141963250LL);
    CHECK_INT(sl_nexmark_rand_int(&r, 0), -1746239153);
    CHECK(sl_nexmark_rand_double(&r) == 0.21840519371218436);
    double p = sl_nexmark_rand_double(&r);
    CHECK_INT((int64_t)floor(pow(10.0, p * 6.0) * 100.0 + 0.5), 6364895);
    CHECK_INT(sl_nexmark_rand_int(&r, 16), 1);
}

/* The reference's formulas with the defaults (proportions 1/3/46, total
** 50; first event id 1 and first event number 1, so the count-th event of
** a single generator has event id 2 + count; delay 1e6/10000 = 100 us):
**   kind: id % 50 == 0 person, 1..3 auction, 4..49 bid;
**   person id = lastBase0PersonId + 1000 = id / 50 + 1000;
**   auction id = lastBase0AuctionId + 1000 = (id / 50) * 3 + (id % 50 - 1) + 1000;
**   event time = base + (long)((1 + count) * 100.0) / 1000. */
static void t_reference_formulas(void)
{
    sl_kvlist *o = opts("connector", "nexmark", NULL);
    sl_nexmark_config c;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_nexmark_config_init(&c, o, 1, B, &err) == 0);
    sl_nexmark_event e = {0};
    sl_nexmark_next(&c, 0, &e); /* id 2: auction 1001 */
    CHECK_INT(e.event_id, 2);
    CHECK_INT(e.type, SL_NX_AUCTION);
    CHECK_INT(e.a_id, 1001);
    CHECK_INT(e.ts_ms, B + 0); /* 100 us */
    /* expires: ahead = 100 * 50 / 3 = 1666 events, horizon = ts(1667) - ts(1) = 166 ms,
    ** length 1 + U[0, 332) */
    CHECK(e.a_expires_ms >= e.ts_ms + 1 && e.a_expires_ms <= e.ts_ms + 332);
    CHECK(e.a_category >= 10 && e.a_category <= 14);
    CHECK(e.a_reserve >= e.a_initial);
    sl_nexmark_next(&c, 1, &e); /* id 3: auction 1002 */
    CHECK_INT(e.a_id, 1002);
    sl_nexmark_next(&c, 9, &e); /* id 11: a bid; (10 * 100) / 1000 = 1 ms */
    CHECK_INT(e.type, SL_NX_BID);
    CHECK_INT(e.ts_ms, B + 1);
    sl_nexmark_next(&c, 48, &e); /* id 50: person 1001, 49 * 100 us = 4 ms */
    CHECK_INT(e.type, SL_NX_PERSON);
    CHECK_INT(e.p_id, 1001);
    CHECK_INT(e.ts_ms, B + 4);
    CHECK(e.p_extra.len >= 1);
    sl_nexmark_next(&c, 50, &e); /* id 52: auction (1 * 3 + 1) + 1000 */
    CHECK_INT(e.a_id, 1004);
    /* id 5000: person 1100; id 5010: a bid: hot auction (302 / 100) * 100 + 1000 = 1300
    ** or in [202, 312] + 1000; hot bidder (100 / 100) * 100 + 1 + 2000 = 2101 (the
    ** reference adds FIRST_PERSON_ID twice) or in [0, 111) + 2000 */
    sl_nexmark_next(&c, 4998, &e);
    CHECK_INT(e.type, SL_NX_PERSON);
    CHECK_INT(e.p_id, 1100);
    CHECK_INT(e.ts_ms, B + 499); /* 4999 * 100 us */
    int hot_a = 0, hot_b = 0, hot_s = 0, nbids = 0, nauctions = 0;
    for (int64_t k = 5008; k < 5048; k++) { /* ids 5010 .. 5049: all bids */
        sl_nexmark_next(&c, k, &e);
        CHECK_INT(e.type, SL_NX_BID);
        nbids++;
        CHECK(e.b_auction == 1300 || (e.b_auction >= 1202 && e.b_auction <= 1312));
        CHECK(e.b_bidder == 2101 || (e.b_bidder >= 2000 && e.b_bidder < 2111));
        hot_a += e.b_auction == 1300;
        hot_b += e.b_bidder == 2101;
        CHECK(e.b_price >= 100 && e.b_price <= 100000000);
        CHECK(e.b_url.len > 40 && memcmp(e.b_url.p, "https://www.nexmark.com/", 24) == 0);
    }
    /* auctions of ids 100001..100003 (k + 2): seller hot = (lastPerson / 100) * 100 + 1000
    ** = 3000 (lastPerson 2000), else in [1001, 2011) + 1000 */
    for (int64_t id = 100001; id <= 100003; id++) {
        sl_nexmark_next(&c, id - 2, &e);
        CHECK_INT(e.type, SL_NX_AUCTION);
        CHECK_INT(e.a_id, 2000 * 3 + (id - 100001) + 1000);
        CHECK(e.a_seller == 3000 || (e.a_seller >= 2001 && e.a_seller < 3011));
        hot_s += e.a_seller == 3000;
        nauctions++;
    }
    CHECK(hot_a > 0 && hot_a < nbids); /* 1 - 1/2 hot */
    CHECK(hot_b > nbids / 2);          /* 1 - 1/4 hot */
    (void)hot_s;
    sl_nexmark_event_free(&e);
    sl_kvlist_free(o);
}

/* Any 50 consecutive events: 1 person, 3 auctions, 46 bids; other proportions too. */
static void t_proportions(void)
{
    sl_kvlist *o = opts("connector", "nexmark", NULL);
    sl_nexmark_config c;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_nexmark_config_init(&c, o, 1, B, &err) == 0);
    sl_nexmark_event e = {0};
    for (int64_t start = 0; start < 200; start += 37) {
        int n[3] = {0, 0, 0};
        for (int64_t k = start; k < start + 50; k++) {
            sl_nexmark_next(&c, k, &e);
            n[e.type]++;
        }
        CHECK_INT(n[0], 1);
        CHECK_INT(n[1], 3);
        CHECK_INT(n[2], 46);
    }
    sl_kvlist_free(o);
    o = opts("person.proportion", "2", "auction.proportion", "0", "bid.proportion", "1", NULL);
    REQUIRE(sl_nexmark_config_init(&c, o, 1, B, &err) == 0);
    int n[3] = {0, 0, 0};
    for (int64_t k = 0; k < 30; k++) {
        sl_nexmark_next(&c, k, &e);
        n[e.type]++;
    }
    CHECK_INT(n[0], 20);
    CHECK_INT(n[1], 0);
    CHECK_INT(n[2], 10);
    sl_nexmark_event_free(&e);
    sl_kvlist_free(o);
}

/* Group size 5: adjusted number of event number n = (n / 5) * 5 + (n * 953) % 5; for
** n = 1..9: 3 1 4 2 5 8 6 9 7, event id 1 + that, event time 100 us per number. */
static void t_out_of_order(void)
{
    sl_kvlist *o = opts("out-of-order-group-size", "5", "first-event.rate", "100", NULL);
    sl_nexmark_config c;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_nexmark_config_init(&c, o, 1, B, &err) == 0);
    static const int adj[] = {3, 1, 4, 2, 5, 8, 6, 9, 7};
    sl_nexmark_event e = {0};
    for (int k = 0; k < 9; k++) {
        sl_nexmark_next(&c, k, &e);
        CHECK_INT(e.event_id, 1 + adj[k]);
        CHECK_INT(e.ts_ms, B + adj[k] * 10); /* rate 100: 10 ms apart */
        CHECK_INT(e.wall_offset_ms, (k + 1) * 10);
    }
    sl_nexmark_event_free(&e);
    sl_kvlist_free(o);
}

static void t_determinism_and_seek(void)
{
    table t;
    all_cols(&t);
    sl_kvlist *o = opts("connector", "nexmark", "events.num", "1000", NULL);
    sl_error err = SL_ERROR_INIT;
    sl_source *a = mk(&t, o, 0, 1, &err), *b = mk(&t, o, 0, 1, &err);
    REQUIRE(a && b);
    sl_chunk *ra = NULL, *rb = NULL;
    bool end = false;
    CHECK_INT(collect(a, &t, 64, 2000, &ra, &end), 1000);
    CHECK(end);
    CHECK_INT(collect(b, &t, 1024, 700, &rb, &end), 700);
    CHECK(!end);
    sl_strbuf pos = SL_STRBUF_INIT;
    REQUIRE(b->ops->position(b, &pos, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&pos), "count=700;base=1767225600000;") != NULL);
    sl_source *c = mk(&t, o, 0, 1, &err);
    REQUIRE(c);
    REQUIRE(c->ops->seek(c, pos.buf, pos.len, &err) == 0);
    CHECK_INT(collect(c, &t, 100, 2000, &rb, &end), 300);
    CHECK(end);
    int diff = 0;
    for (int r = 0; r < 1000; r++) {
        char *x = row_text(ra, &t, r, NULL), *y = row_text(rb, &t, r, NULL);
        diff += strcmp(x, y) != 0;
        sl_free(x);
        sl_free(y);
    }
    CHECK_INT(diff, 0);
    /* the first event's dateTime is the base time (event number 1: 100 us) */
    int ts = col_of(&t, "auction.dateTime");
    CHECK(ra->cols[ts].v.i64[0] == T0);
    /* a position from another parallelism, or garbage, is refused */
    sl_source *d = mk(&t, o, 0, 1, &err);
    REQUIRE(d);
    const char *bad = "count=1;base=0;wall=-1;parallelism=2;subtask=0";
    CHECK(d->ops->seek(d, bad, strlen(bad), &err) != 0);
    CHECK_STR(err.sqlstate, SL_ERR_NOT_SUPPORTED);
    sl_error_reset(&err);
    CHECK(d->ops->seek(d, "count=x", 7, &err) != 0);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    sl_error_reset(&err);
    d->ops->free(d);
    sl_strbuf_free(&pos);
    sl_chunk_free(ra);
    sl_chunk_free(rb);
    a->ops->free(a);
    b->ops->free(b);
    c->ops->free(c);
    sl_kvlist_free(o);
}

/* p = 3 of 1000 events: splits of 333, 333, 334 events with ids from 2, 335,
** 668 (GeneratorConfig.split); together the serial stream's events but for
** their times: subtask k's n-th event is at base + (long)(n * 300.0) / 1000. */
static void t_parallel_split(void)
{
    table t;
    all_cols(&t);
    sl_kvlist *o = opts("connector", "nexmark", "events.num", "1000", NULL);
    sl_error err = SL_ERROR_INIT;
    sl_source *serial = mk(&t, o, 0, 1, &err);
    REQUIRE(serial);
    sl_chunk *rs = NULL, *rp = NULL;
    bool end = false;
    CHECK_INT(collect(serial, &t, 1024, 2000, &rs, &end), 1000);
    static const int sizes[] = {333, 333, 334};
    int ts = col_of(&t, "bid.dateTime"), ets = col_of(&t, "event_type");
    int got = 0;
    for (int k = 0; k < 3; k++) {
        sl_source *s = mk(&t, o, k, 3, &err);
        REQUIRE(s);
        int before = got;
        got += collect(s, &t, 100, 2000, &rp, &end);
        CHECK(end);
        CHECK_INT(got - before, sizes[k]);
        for (int r = before; r < got; r++) {
            int n = r - before + 1;
            if (rp->cols[ets].v.i64[r] == SL_NX_BID)
                CHECK(rp->cols[ts].v.i64[r] ==
                      T0 + (int64_t)(n * 300.0) / 1000 * SL_NANOS_PER_MILLI);
        }
        s->ops->free(s);
    }
    CHECK_INT(got, 1000);
    char **x = sl_calloc(1000, sizeof *x), **y = sl_calloc(1000, sizeof *y);
    for (int r = 0; r < 1000; r++) {
        x[r] = row_text(rs, &t, r, "dateTime");
        y[r] = row_text(rp, &t, r, "dateTime");
    }
    /* the same order even: the splits are contiguous blocks of ids */
    int diff = 0;
    for (int r = 0; r < 1000; r++) {
        diff += strcmp(x[r], y[r]) != 0;
        sl_free(x[r]);
        sl_free(y[r]);
    }
    CHECK_INT(diff, 0);
    sl_free(x);
    sl_free(y);
    (void)cmp_str;
    sl_chunk_free(rs);
    sl_chunk_free(rp);
    serial->ops->free(serial);
    sl_kvlist_free(o);
}

static void t_end_stop_keep_alive(void)
{
    table t = {0};
    t.names[0] = "event_type";
    t.types[0] = sl_type_make(SL_TYPE_INT);
    t.ncols = 1;
    sl_error err = SL_ERROR_INIT;
    bool end = false;
    /* stop-at 10 over 3 subtasks: 3, 3, 4 */
    sl_kvlist *o = opts("stop-at", "10", NULL);
    static const int sizes[] = {3, 3, 4};
    for (int k = 0; k < 3; k++) {
        sl_source *s = mk(&t, o, k, 3, &err);
        REQUIRE(s);
        sl_chunk *r = NULL;
        CHECK_INT(collect(s, &t, 64, 100, &r, &end), sizes[k]);
        CHECK(end);
        sl_chunk_free(r);
        s->ops->free(s);
    }
    sl_kvlist_free(o);
    /* keep-alive: 5 events, then no end */
    o = opts("events.num", "5", "keep-alive", "true", NULL);
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    fclock fc = {T0, 0};
    sl_nexmark_set_clock(s, fclock_now, &fc);
    sl_chunk *r = NULL;
    CHECK_INT(collect(s, &t, 64, 100, &r, &end), 5);
    CHECK(!end);
    sl_chunk_free(r);
    s->ops->free(s);
    sl_kvlist_free(o);
}

/* max-emit-speed = false, rate 1000/s: event n (from 1) is due at the first
** poll's wall clock + n ms. */
static void t_pacing(void)
{
    table t = {0};
    t.names[0] = "event_type";
    t.types[0] = sl_type_make(SL_TYPE_INT);
    t.ncols = 1;
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *o = opts("max-emit-speed", "false", "first-event.rate", "1000", NULL);
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    fclock fc = {T0, 0};
    sl_nexmark_set_clock(s, fclock_now, &fc);
    sl_chunk *c = sl_chunk_new(1, t.types, 1024);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_MORE);
    CHECK_INT(c->nrows, 0); /* event 1 is due at +1 ms */
    fc.t = T0 + 10 * SL_NANOS_PER_MILLI;
    s->ops->poll(s, c, &err);
    CHECK_INT(c->nrows, 10);
    fc.t = T0 + 25 * SL_NANOS_PER_MILLI;
    s->ops->poll(s, c, &err);
    CHECK_INT(c->nrows, 25);
    /* the wall-clock base is in the position: a restored source keeps the pace */
    sl_strbuf pos = SL_STRBUF_INIT;
    s->ops->position(s, &pos, &err);
    CHECK(strstr(sl_strbuf_cstr(&pos), "count=25;") && strstr(pos.buf, "wall=1767225600000;"));
    sl_source *s2 = mk(&t, o, 0, 1, &err);
    REQUIRE(s2);
    sl_nexmark_set_clock(s2, fclock_now, &fc);
    REQUIRE(s2->ops->seek(s2, pos.buf, pos.len, &err) == 0);
    sl_chunk_reset(c);
    fc.t = T0 + 30 * SL_NANOS_PER_MILLI;
    s2->ops->poll(s2, c, &err);
    CHECK_INT(c->nrows, 5);
    sl_strbuf_free(&pos);
    sl_chunk_free(c);
    s->ops->free(s);
    s2->ops->free(s2);
    sl_kvlist_free(o);
}

/* 4 mb persons: the 'extra' strings are made character by character (over
** 512 KiB, as the reference), and a poll stops after about 8 MB of events. */
static void t_large_events(void)
{
    table t = {0};
    t.names[0] = "person.extra";
    t.types[0] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    t.ncols = 1;
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *o = opts("person.avg-size", "4 mb", "auction.proportion", "0", "bid.proportion",
                        "0", "events.num", "5", NULL);
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_chunk *c = sl_chunk_new(1, t.types, 1024);
    int polls = 0, rows = 0;
    for (int rc = SL_SOURCE_MORE; rc == SL_SOURCE_MORE && polls < 10; polls++) {
        sl_chunk_reset(c);
        rc = s->ops->poll(s, c, &err);
        CHECK(c->nrows <= 3);
        for (int r = 0; r < c->nrows; r++) {
            size_t len = c->cols[0].v.str[r].len; /* 4 MiB - ~60, +-20% */
            CHECK(len >= 3355000 && len < 5033200);
            const char *p = c->cols[0].v.str[r].ptr;
            CHECK(p[0] >= 'H' && p[0] <= 'z' && p[len - 1] >= 'H' && p[len - 1] <= 'z');
        }
        rows += c->nrows;
    }
    CHECK_INT(rows, 5);
    CHECK(polls >= 2);
    sl_chunk_free(c);
    s->ops->free(s);
    sl_kvlist_free(o);
}

static void t_create_errors(void)
{
    sl_error err = SL_ERROR_INIT;
    table t = {0};
    t.names[0] = "person.nick";
    t.types[0] = sl_type_make(SL_TYPE_BIGINT);
    t.ncols = 1;
    sl_kvlist *o = opts("connector", "nexmark", NULL);
    CHECK(mk(&t, o, 0, 1, &err) == NULL);
    CHECK_STR(err.sqlstate, SL_ERR_UNDEFINED_COLUMN);
    sl_error_reset(&err);
    sl_kvlist_free(o);
    t.names[0] = "event_type";
    static const char *const bad[][2] = {
        {"first-event.rate", "0"},  {"bid.hot-ratio.auctions", "0"}, {"events.num", "-1"},
        {"person.avg-size", "1 gb"}, {"bid.proportion", "x"},         {"stop-at", "-2"},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        o = opts(bad[i][0], bad[i][1], NULL);
        CHECK(mk(&t, o, 0, 1, &err) == NULL);
        CHECK_STR(err.sqlstate, SL_ERR_INVALID_PARAMETER);
        sl_error_reset(&err);
        sl_kvlist_free(o);
    }
    o = opts("person.proportion", "0", "auction.proportion", "0", "bid.proportion", "0", NULL);
    CHECK(mk(&t, o, 0, 1, &err) == NULL);
    CHECK_STR(err.sqlstate, SL_ERR_INVALID_PARAMETER);
    sl_error_reset(&err);
    sl_kvlist_free(o);
    /* the declaration check: types and NOT NULL, through validation */
    sl_type ty = sl_type_make(SL_TYPE_INT);
    const char *names[] = {"bid.price"};
    sl_table_shape shape = {.ncols = 1, .names = names, .types = &ty};
    o = opts("connector", "nexmark", NULL);
    CHECK(sl_connector_validate(o, &shape, 0, &err) != 0);
    CHECK_STR(err.sqlstate, SL_ERR_DATATYPE_MISMATCH);
    sl_error_reset(&err);
    ty = sl_type_make(SL_TYPE_BIGINT);
    ty.not_null = true;
    CHECK(sl_connector_validate(o, &shape, 0, &err) != 0);
    CHECK_STR(err.sqlstate, SL_ERR_INVALID_TABLE_DEF);
    sl_error_reset(&err);
    ty.not_null = false;
    CHECK(sl_connector_validate(o, &shape, 0, &err) == 0);
    sl_kvlist_free(o);
}

/* The event as the reference's Dump.java writes it (tests/unit/data/nexmark_reference.sh). */
static char *event_line(const sl_nexmark_event *e)
{
    sl_strbuf sb = SL_STRBUF_INIT;
#define S(x) (int)(x).len, (x).p
    if (e->type == SL_NX_PERSON)
        sl_strbuf_appendf(&sb, "0\t%lld\t%.*s\t%.*s\t%.*s\t%.*s\t%.*s\t%lld\t%.*s",
                          (long long)e->p_id,
                          S(e->p_name), S(e->p_email), S(e->p_card), S(e->p_city), S(e->p_state),
                          (long long)e->ts_ms, S(e->p_extra));
    else if (e->type == SL_NX_AUCTION)
        sl_strbuf_appendf(&sb, "1\t%lld\t%.*s\t%.*s\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%.*s",
                          (long long)e->a_id, S(e->a_name), S(e->a_desc), (long long)e->a_initial,
                          (long long)e->a_reserve, (long long)e->ts_ms,
                          (long long)e->a_expires_ms, (long long)e->a_seller,
                          (long long)e->a_category, S(e->a_extra));
    else
        sl_strbuf_appendf(&sb, "2\t%lld\t%lld\t%lld\t%.*s\t%.*s\t%lld\t%.*s",
                          (long long)e->b_auction, (long long)e->b_bidder, (long long)e->b_price,
                          S(e->b_channel), S(e->b_url), (long long)e->ts_ms, S(e->b_extra));
#undef S
    return sl_strbuf_detach(&sb);
}

/* Every field of every event equals what the reference's own generator code
** printed, run with each event's SplittableRandom seeded by its event id and
** the static tables' fixed seeds (tests/unit/data/nexmark_reference.sh
** regenerates the file): sections "# events.num parallelism subtask
** out-of-order-group-size", then one line per event of that split, times
** relative to the base time. */
static void t_reference_events(void)
{
    FILE *f = fopen("unit/data/nexmark_reference.tsv", "r");
    REQUIRE(f);
    char line[8192];
    sl_nexmark_config whole, c;
    sl_error err = SL_ERROR_INIT;
    sl_nexmark_event e = {0};
    int64_t count = 0, events = 0, sections = 0, diffs = 0;
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n')
            line[--n] = 0;
        if (line[0] == '#') {
            char num[32], group[32];
            int p = 0, k = 0;
            REQUIRE(sscanf(line, "# %31s %d %d %31s", num, &p, &k, group) == 4);
            sl_kvlist *o = opts("events.num", num, "out-of-order-group-size", group, NULL);
            REQUIRE(sl_nexmark_config_init(&whole, o, p, 0, &err) == 0);
            sl_nexmark_config_split(&whole, p, k, &c);
            sl_kvlist_free(o);
            count = 0;
            sections++;
            continue;
        }
        sl_nexmark_next(&c, count++, &e);
        char *mine = event_line(&e);
        if (strcmp(mine, line) != 0 && diffs++ < 3)
            fprintf(stderr, "section %lld event %lld:\n  reference: %.300s\n  sluice:    %.300s\n",
                    (long long)sections, (long long)count - 1, line, mine);
        sl_free(mine);
        events++;
        CHECK(count <= sl_nexmark_split_events(&c));
    }
    fclose(f);
    CHECK_INT(sections, 4);
    CHECK_INT(events, 845);
    CHECK_INT(diffs, 0);
    sl_nexmark_event_free(&e);
}

/* Leaf f (sl_nexmark_columns) of e as text. */
static void leaf_text(sl_strbuf *sb, const sl_nexmark_event *e, int f)
{
    const int64_t num[26] = {[1] = e->p_id,        [7] = e->ts_ms,       [9] = e->a_id,
                             [12] = e->a_initial,  [13] = e->a_reserve,  [14] = e->ts_ms,
                             [15] = e->a_expires_ms, [16] = e->a_seller, [17] = e->a_category,
                             [19] = e->b_auction,  [20] = e->b_bidder,   [21] = e->b_price,
                             [24] = e->ts_ms};
    const sl_nexmark_str *str[26] = {[2] = &e->p_name,   [3] = &e->p_email,   [4] = &e->p_card,
                                     [5] = &e->p_city,   [6] = &e->p_state,   [8] = &e->p_extra,
                                     [10] = &e->a_name,  [11] = &e->a_desc,   [18] = &e->a_extra,
                                     [22] = &e->b_channel, [23] = &e->b_url, [25] = &e->b_extra};
    sl_strbuf_appendf(sb, "%d/%lld:", e->type, (long long)e->event_id);
    if (str[f])
        sl_strbuf_appendf(sb, "%.*s", (int)str[f]->len, str[f]->p);
    else
        sl_strbuf_appendf(sb, "%lld", (long long)num[f]);
}

/* sl_nexmark_config.need: generated alone, or with one other leaf, each
** leaf of each event is what the generator of every leaf makes of it
** (draws the job does not need are skipped, or advanced past). */
static void t_need_leaves(void)
{
    sl_nexmark_config c;
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *o = opts("events.num", "2000", NULL);
    REQUIRE(sl_nexmark_config_init(&c, o, 1, B, &err) == 0);
    sl_kvlist_free(o);
    CHECK(c.need == SL_NX_NEED_ALL);
    sl_nexmark_event all = {0}, part = {0};
    int diffs = 0, compared = 0;
    for (int f = 1; f < sl_nexmark_ncolumns; f++) {
        for (int g = 0; g < sl_nexmark_ncolumns; g += 5) { /* g = 0: f alone */
            for (int64_t k = 0; k < 2000; k += 1 + (f + g) % 3) {
                c.need = SL_NX_NEED_ALL;
                sl_nexmark_next(&c, k, &all);
                c.need = 1u << f | (g ? 1u << g : 0);
                sl_nexmark_next(&c, k, &part);
                if (all.type != (f <= 8 ? SL_NX_PERSON : f <= 18 ? SL_NX_AUCTION : SL_NX_BID))
                    continue;
                sl_strbuf x = SL_STRBUF_INIT, y = SL_STRBUF_INIT;
                leaf_text(&x, &all, f);
                leaf_text(&y, &part, f);
                if (strcmp(sl_strbuf_cstr(&x), sl_strbuf_cstr(&y)) != 0 && diffs++ < 3)
                    fprintf(stderr, "leaf %s (with %d): %s != %s\n", sl_nexmark_columns[f], g,
                            sl_strbuf_cstr(&y), sl_strbuf_cstr(&x));
                compared++;
                sl_strbuf_free(&x);
                sl_strbuf_free(&y);
            }
        }
    }
    CHECK_INT(diffs, 0);
    CHECK(compared > 25 * 5 * 20);
    /* and nothing needed of a kind: no string of it is left from before */
    c.need = 1u << 21; /* bid.price */
    for (int64_t k = 0; k < 100; k++) {
        sl_nexmark_next(&c, k, &part);
        if (part.type == SL_NX_AUCTION)
            CHECK(part.a_desc.len == 0 && part.a_name.len == 0 && part.a_extra.len == 0);
        if (part.type == SL_NX_BID)
            CHECK(part.b_extra.len == 0 && part.b_url.len == 0);
    }
    sl_nexmark_event_free(&all);
    sl_nexmark_event_free(&part);
}

/* sl_source_args.used: a nullable column the job does not read stays NULL,
** the read ones (and a NOT NULL one, read or not) are the events' own. */
static void t_used_columns(void)
{
    table t;
    all_cols(&t);
    int price = col_of(&t, "bid.price"), bextra = col_of(&t, "bid.extra");
    int aextra = col_of(&t, "auction.extra"), aid = col_of(&t, "auction.id");
    int pname = col_of(&t, "person.name");
    t.types[pname].not_null = true; /* filled although not read */
    bool used[32] = {false};
    used[0] = used[price] = used[aextra] = true;
    sl_kvlist *o = opts("connector", "nexmark", "events.num", "500", NULL);
    sl_error err = SL_ERROR_INIT;
    sl_source *full = mk(&t, o, 0, 1, &err);
    const sl_connector *c = sl_connector_find("nexmark");
    sl_source_args a = {.options = o, .ncols = t.ncols, .names = t.names, .types = t.types,
                        .subtask = 0, .parallelism = 1, .table = "t", .created_nanos = T0,
                        .used = used};
    sl_source *part = NULL;
    REQUIRE(full && c->create_source(&a, &part, &err) == 0);
    sl_chunk *rf = NULL, *rp = NULL;
    bool end = false;
    CHECK_INT(collect(full, &t, 128, 1000, &rf, &end), 500);
    CHECK_INT(collect(part, &t, 128, 1000, &rp, &end), 500);
    int same = 0, nulls = 0, names = 0, bids = 0, auctions = 0;
    for (int r = 0; r < 500; r++) {
        for (int col = 0; col < t.ncols; col++) {
            if (!used[col] && col != pname)
                continue;
            sl_strbuf fx = SL_STRBUF_INIT, fy = SL_STRBUF_INIT;
            bool nx = !sl_value_format(&fx, &rf->cols[col], r);
            bool ny = !sl_value_format(&fy, &rp->cols[col], r);
            same += nx == ny && strcmp(sl_strbuf_cstr(&fx), sl_strbuf_cstr(&fy)) == 0;
            sl_strbuf_free(&fx);
            sl_strbuf_free(&fy);
        }
        names += !rp->cols[pname].nulls[r];
        bids += !rf->cols[bextra].nulls[r];
        auctions += !rf->cols[aid].nulls[r];
        nulls += rp->cols[bextra].nulls[r] && rp->cols[aid].nulls[r];
    }
    CHECK_INT(same, 500 * 4);
    CHECK_INT(nulls, 500);
    CHECK(bids > 400 && auctions > 10);
    CHECK(names > 0 && names < 50); /* the person events' */
    sl_chunk_free(rf);
    sl_chunk_free(rp);
    full->ops->free(full);
    part->ops->free(part);
    sl_kvlist_free(o);
}

SL_TESTS(t_random_matches_java, t_reference_events, t_reference_formulas, t_proportions,
         t_out_of_order, t_used_columns, t_need_leaves,
         t_determinism_and_seek, t_parallel_split, t_end_stop_keep_alive, t_pacing, t_large_events,
         t_create_errors)
