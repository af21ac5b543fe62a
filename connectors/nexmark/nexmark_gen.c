/*
** nexmark_gen.c — the Nexmark event generator, after the reference's
** com.github.nexmark.flink.generator (NexmarkGenerator, GeneratorConfig,
** model/PersonGenerator, AuctionGenerator, BidGenerator, StringsGenerator,
** PriceGenerator, LongGenerator), written anew in C.
**
** Deterministic parts, as the reference computes them: the event id of the
** count-th event of a split (first event id + the out-of-order-adjusted
** event number), its kind (event id modulo the proportions' sum), the
** person / auction ids (lastBase0PersonId / lastBase0AuctionId), hot
** sellers / bidders / auctions (the first of each block of 100), the event
** times (base time + event number * inter-event delay, the delay being
** 1e6 / first-event.rate * parallelism microseconds) and the auctions'
** horizon. The reference takes its random choices from one unseeded
** java.util.SplittableRandom per split; here each event draws from a
** SplittableRandom (the same algorithm: splitmix64, nextInt(bound) by
** rejection, nextDouble of 53 bits) seeded with the event id, in the
** reference's order, so an event depends on its id only and is the same
** whatever the split, the restart or the parallelism. The reference's
** static tables (a 1 MiB string the 'extra' fields are cut from, the hot
** URLs and the 10000 channels' URLs) come from fixed seeds here.
**
** Main routines: sl_nexmark_config_init, sl_nexmark_config_split,
** sl_nexmark_next, sl_nexmark_timestamp.
*/
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../sl_connector_int.h"
#include "nexmark.h"

#define SL__NX_FIRST_PERSON_ID   1000
#define SL__NX_FIRST_AUCTION_ID  1000
#define SL__NX_FIRST_CATEGORY_ID 10
#define SL__NX_NUM_CATEGORIES    5
#define SL__NX_ID_LEAD           10  /* PERSON_ID_LEAD, AUCTION_ID_LEAD */
#define SL__NX_HOT_RATIO         100 /* HOT_SELLER/BIDDER/AUCTION_RATIO */
#define SL__NX_CHANNELS          10000
#define SL__NX_EXTRA_LEN         (1024 * 1024) /* REUSABLE_EXTRA_STRING */
#define SL__NX_URL_MAX           96
#define SL__NX_SEED_EXTRA        0x4E65786D61726B31ULL /* the static tables' seeds */
#define SL__NX_SEED_URLS         0x4E65786D61726B32ULL
#define SL__NX_GOLDEN_GAMMA      0x9E3779B97F4A7C15ULL

/* ------------------------------------------------------------------------
** java.util.SplittableRandom (seeded constructor: gamma = GOLDEN_GAMMA).
*/
typedef sl_nexmark_rand sl__jrand;

static uint64_t sl__mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int32_t sl__mix32(uint64_t z)
{
    z = (z ^ (z >> 33)) * 0x62A9D9ED799705F5ULL;
    return (int32_t)(uint32_t)(((z ^ (z >> 28)) * 0xCB24D0A5C88C35B3ULL) >> 32);
}

static int64_t sl__next_long(sl__jrand *r)
{
    r->seed += SL__NX_GOLDEN_GAMMA;
    return (int64_t)sl__mix64(r->seed);
}

static int32_t sl__next_int(sl__jrand *r)
{
    r->seed += SL__NX_GOLDEN_GAMMA;
    return sl__mix32(r->seed);
}

/* nextInt(bound), bound > 0: Java's rejection loop, with int arithmetic.
** Inlined, so that a constant bound's remainder is a multiplication. */
static inline __attribute__((always_inline)) int32_t sl__next_int_b(sl__jrand *r, int32_t bound)
{
    int32_t x = sl__next_int(r), m = bound - 1;
    if ((bound & m) == 0)
        return x & m;
    for (uint32_t u = (uint32_t)x >> 1;; u = (uint32_t)sl__next_int(r) >> 1) {
        x = (int32_t)(u % (uint32_t)bound);
        if ((int32_t)(u + (uint32_t)m - (uint32_t)x) >= 0)
            return x;
    }
}

static double sl__next_double(sl__jrand *r)
{
    return (double)((uint64_t)sl__next_long(r) >> 11) * 0x1.0p-53;
}

/* LongGenerator.nextLong: [0, n), n > 0. */
static int64_t sl__next_long_b(sl__jrand *r, int64_t n)
{
    if (n < INT32_MAX)
        return sl__next_int_b(r, (int32_t)n);
    int64_t v = sl__next_long(r) % n;
    return v < 0 ? -v : v;
}

int32_t sl_nexmark_rand_int(sl_nexmark_rand *r, int32_t bound)
{
    return bound > 0 ? sl__next_int_b(r, bound) : sl__next_int(r);
}

int64_t sl_nexmark_rand_long(sl_nexmark_rand *r)
{
    return sl__next_long(r);
}

double sl_nexmark_rand_double(sl_nexmark_rand *r)
{
    return sl__next_double(r);
}

/* Java's Math.round(double) for the values used here. */
static int64_t sl__jround(double x)
{
    double f = floor(x);
    if (x - f >= 0.5)
        f += 1;
    if (f >= 9.2233720368547758e18)
        return INT64_MAX;
    if (f <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)f;
}

/* PriceGenerator.nextPrice: Math.round(Math.pow(10.0, d * 6.0) * 100.0).
** exp2 of the same exponent is a third of pow's work and within about ten
** units in the last place (2.2e-15 relative: the product's rounding) of
** the exact power, pow within one: where that cannot move the rounding,
** its value is pow's; within 1e-12 (relative) of a half, pow decides.
** Checked against pow on 3e8 random draws and 7e5 values next to halves. */
static int64_t sl__next_price(sl__jrand *r)
{
    double x = sl__next_double(r) * 6.0;
    double y = exp2(x * 3.321928094887362347870319429489390175864831393) * 100.0;
    int64_t k = (int64_t)y; /* y in [100, 1e8): truncation is floor */
    if (fabs(y - (double)k - 0.5) < y * 1e-12)
        return sl__jround(pow(10.0, x) * 100.0);
    return (int64_t)(y + 0.5); /* the sum rounds up only next to a half: excluded */
}

/* StringsGenerator.nextString(random, maxLength, special) into buf (room
** for maxLength bytes); returns the length after Java's trim(). */
static size_t sl__next_string(sl__jrand *r, int max_len, char special, char *buf)
{
    int len = 3 + sl__next_int_b(r, max_len - 3);
    for (int i = 0; i < len; i++)
        buf[i] = sl__next_int_b(r, 13) == 0 ? special : (char)('a' + sl__next_int_b(r, 26));
    size_t a = 0, b = (size_t)len;
    while (a < b && (unsigned char)buf[a] <= ' ')
        a++;
    while (b > a && (unsigned char)buf[b - 1] <= ' ')
        b--;
    if (a > 0)
        memmove(buf, buf + a, b - a);
    return b - a;
}

/* nextExactString without the reusable string: characters 'a' + rnd % 26
** of Java int arithmetic (a negative rnd gives characters below 'a'). */
static void sl__exact_chars(sl__jrand *r, char *buf, size_t len)
{
    int32_t rnd = 0;
    int n = 0;
    for (size_t i = 0; i < len; i++) {
        if (n == 0) {
            rnd = sl__next_int(r);
            n = 6;
        }
        buf[i] = (char)('a' + rnd % 26);
        rnd /= 26;
        n--;
    }
}

/* ------------------------------------------------------------------------
** The static tables.
*/
static char sl__nx_extra[SL__NX_EXTRA_LEN];
static char sl__nx_urls[4 + SL__NX_CHANNELS][SL__NX_URL_MAX];
static uint8_t sl__nx_url_len[4 + SL__NX_CHANNELS];
static pthread_once_t sl__nx_once = PTHREAD_ONCE_INIT;

/* BidGenerator.getBaseUrl into buf; returns its length. */
static size_t sl__base_url(sl__jrand *r, char *buf)
{
    static const char head[] = "https://www.nexmark.com/", tail[] = "item.htm?query=1";
    size_t n = sizeof head - 1;
    memcpy(buf, head, n);
    for (int i = 0; i < 3; i++) {
        n += sl__next_string(r, 5, '_', buf + n);
        buf[n++] = '/';
    }
    memcpy(buf + n, tail, sizeof tail - 1);
    return n + sizeof tail - 1;
}

static void sl__nx_init_tables(void)
{
    sl__jrand r = {SL__NX_SEED_EXTRA};
    sl__exact_chars(&r, sl__nx_extra, SL__NX_EXTRA_LEN);
    r.seed = SL__NX_SEED_URLS;
    for (int i = 0; i < 4 + SL__NX_CHANNELS; i++) {
        char *u = sl__nx_urls[i];
        size_t n = sl__base_url(&r, u);
        int ch = i - 4;
        if (ch >= 0 && sl__next_int_b(&r, 10) > 0) {
            /* Math.abs(Integer.reverse(ch)): abs(INT_MIN) stays INT_MIN */
            uint32_t x = (uint32_t)ch, rev = 0;
            for (int b = 0; b < 32; b++, x >>= 1)
                rev = (rev << 1) | (x & 1);
            int64_t v = (int32_t)rev;
            v = v < 0 && v != INT32_MIN ? -v : v;
            n += (size_t)snprintf(u + n, SL__NX_URL_MAX - n, "&channel_id=%" PRId64, v);
        }
        sl__nx_url_len[i] = (uint8_t)n;
    }
}

/* StringsGenerator.nextExactString, into *s (written field by field: a
** struct returned by value went through the stack, and reading it back
** stalled on store forwarding, 6 % of q2). */
static void sl__exact_string(sl__jrand *r, int64_t len, sl_nexmark_event *e, sl_nexmark_str *s)
{
    s->len = (size_t)len;
    if (len < SL__NX_EXTRA_LEN / 2) {
        int32_t off = sl__next_int_b(r, (int32_t)(SL__NX_EXTRA_LEN - len));
        s->p = sl__nx_extra + off;
        s->fixed = true;
        return;
    }
    if ((size_t)len > e->big_cap) {
        e->big = sl_realloc(e->big, (size_t)len);
        e->big_cap = (size_t)len;
    }
    sl__exact_chars(r, e->big, (size_t)len);
    s->p = e->big;
    s->fixed = false;
}

/* StringsGenerator.nextExtra. */
static void sl__next_extra(sl__jrand *r, int64_t cur, int64_t avg, sl_nexmark_event *e,
                           sl_nexmark_str *s)
{
    if (cur > avg) {
        s->p = "";
        s->len = 0;
        s->fixed = true;
        return;
    }
    avg -= cur;
    int32_t delta = (int32_t)sl__jround((double)avg * 0.2);
    int64_t size = avg - delta + (delta == 0 ? 0 : sl__next_int_b(r, 2 * delta));
    sl__exact_string(r, size, e, s);
}

/* ------------------------------------------------------------------------
** Ids (PersonGenerator, AuctionGenerator).
*/
static int64_t sl__last_person(const sl_nexmark_config *c, int64_t id)
{
    int64_t epoch = id / c->total_prop, off = id % c->total_prop;
    if (off >= c->person_prop)
        off = c->person_prop - 1;
    return epoch * c->person_prop + off;
}

static int64_t sl__last_auction(const sl_nexmark_config *c, int64_t id)
{
    int64_t epoch = id / c->total_prop, off = id % c->total_prop;
    if (off < c->person_prop) {
        epoch--;
        off = c->auction_prop - 1;
    } else if (off >= c->person_prop + c->auction_prop) {
        off = c->auction_prop - 1;
    } else {
        off -= c->person_prop;
    }
    return epoch * c->auction_prop + off;
}

static int64_t sl__next_person(const sl_nexmark_config *c, int64_t id, sl__jrand *r)
{
    int64_t people = sl__last_person(c, id) + 1;
    int64_t active = people < c->num_active_people ? people : c->num_active_people;
    return people - active + sl__next_long_b(r, active + SL__NX_ID_LEAD);
}

static int64_t sl__next_auction(const sl_nexmark_config *c, int64_t id, sl__jrand *r)
{
    int64_t hi = sl__last_auction(c, id);
    int64_t lo = hi - c->num_in_flight_auctions > 0 ? hi - c->num_in_flight_auctions : 0;
    return lo + sl__next_long_b(r, hi - lo + 1 + SL__NX_ID_LEAD);
}

/* ------------------------------------------------------------------------
** Configuration and events.
*/

/* GeneratorConfig.nextAdjustedEventNumber. */
static int64_t sl__adjusted(const sl_nexmark_config *c, int64_t count)
{
    int64_t n = c->out_of_order_group_size, en = c->first_event_number + count;
    int64_t off = (int64_t)((uint64_t)en * 953u) % n;
    return en / n * n + off;
}

int64_t sl_nexmark_timestamp(const sl_nexmark_config *c, int64_t n)
{
    double us = (double)n * c->delay_us;
    int64_t v = us >= 9.2233720368547758e18    ? INT64_MAX
                : us <= -9.2233720368547758e18 ? INT64_MIN
                                               : (int64_t)us;
    return c->base_time_ms + v / 1000;
}

static int sl__opt_int(const sl_kvlist *opts, const char *key, int64_t def, int64_t lo, int64_t hi,
                       int64_t *out, sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, key);
    *out = def;
    if (!kv)
        return 0;
    const char *why = sl__parse_int(kv->value, out);
    if (why)
        return sl__invalid_value(err, kv, false, "%s", why);
    if (*out < lo || *out > hi) {
        if (hi == INT64_MAX)
            return sl__invalid_value(err, kv, false, "must be at least %" PRId64, lo);
        return sl__invalid_value(err, kv, false, "is not between %" PRId64 " and %" PRId64, lo,
                                 hi);
    }
    return 0;
}

static int sl__opt_size(const sl_kvlist *opts, const char *key, int64_t def, int64_t *out,
                        sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, key);
    *out = def;
    if (!kv)
        return 0;
    const char *why = sl__parse_memsize(kv->value, out);
    if (why)
        return sl__invalid_value(err, kv, false, "%s", why);
    if (*out < 1 || *out > 16 * 1024 * 1024)
        return sl__invalid_value(err, kv, false, "is not between 1 byte and 16 mb");
    return 0;
}

int sl_nexmark_config_init(sl_nexmark_config *c, const sl_kvlist *opts, int parallelism,
                           int64_t base_time_ms, sl_error *err)
{
    memset(c, 0, sizeof *c);
    int64_t v[13];
    static const struct {
        const char *key;
        int64_t def, lo, hi;
    } ints[] = {
        {"person.proportion", 1, 0, INT32_MAX},   {"auction.proportion", 3, 0, INT32_MAX},
        {"bid.proportion", 46, 0, INT32_MAX},     {"first-event.rate", 10000, 1, INT32_MAX},
        {"bid.hot-ratio.auctions", 2, 1, INT32_MAX}, {"auction.hot-ratio.sellers", 4, 1, INT32_MAX},
        {"bid.hot-ratio.bidders", 4, 1, INT32_MAX},  {"num-in-flight-auctions", 100, 1, INT32_MAX},
        {"num-active-people", 1000, 1, INT32_MAX},   {"out-of-order-group-size", 1, 1, INT64_MAX},
        {"events.num", 0, 0, INT64_MAX},             {"stop-at", -1, -1, INT64_MAX},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(ints); i++)
        if (sl__opt_int(opts, ints[i].key, ints[i].def, ints[i].lo, ints[i].hi, &v[i], err) != 0)
            return -1;
    int64_t sp, sa, sb;
    if (sl__opt_size(opts, "person.avg-size", 200, &sp, err) != 0 ||
        sl__opt_size(opts, "auction.avg-size", 500, &sa, err) != 0 ||
        sl__opt_size(opts, "bid.avg-size", 100, &sb, err) != 0)
        return -1;
    c->person_prop = (int32_t)v[0];
    c->auction_prop = (int32_t)v[1];
    c->bid_prop = (int32_t)v[2];
    int64_t total = v[0] + v[1] + v[2];
    int64_t maxsize = sp > sa ? sp : sa;
    maxsize = maxsize > sb ? maxsize : sb;
    if (total < 1 || total * maxsize > INT32_MAX) {
        const sl_kv *kv = sl_kvlist_find(opts, "bid.proportion");
        if (!kv)
            kv = sl_kvlist_find(opts, "person.proportion");
        if (!kv)
            kv = sl_kvlist_find(opts, "auction.proportion");
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv ? kv->value_pos : -1,
                            total < 1 ? "the nexmark proportions add up to 0"
                                      : "the nexmark proportions times the largest average "
                                        "event size exceed 2147483647");
    }
    c->total_prop = (int32_t)total;
    c->first_event_rate = (int32_t)v[3];
    c->hot_auction_ratio = (int32_t)v[4];
    c->hot_sellers_ratio = (int32_t)v[5];
    c->hot_bidders_ratio = (int32_t)v[6];
    c->num_in_flight_auctions = (int32_t)v[7];
    c->num_active_people = (int32_t)v[8];
    c->out_of_order_group_size = v[9];
    c->avg_person = (int32_t)sp;
    c->avg_auction = (int32_t)sa;
    c->avg_bid = (int32_t)sb;
    c->generators = parallelism > 0 ? parallelism : 1;
    c->delay_us = 1000000.0 / c->first_event_rate * c->generators;
    c->base_time_ms = base_time_ms;
    c->first_event_id = 1;
    c->first_event_number = 1;
    /* maxEventsOrZero == 0: Long.MAX_VALUE scaled down as the reference does */
    c->max_events = v[10] > 0 ? v[10] : INT64_MAX / (total * maxsize);
    c->stop_at = v[11];
    c->need = SL_NX_NEED_ALL;
    return 0;
}

void sl_nexmark_config_split(const sl_nexmark_config *whole, int n, int k, sl_nexmark_config *out)
{
    *out = *whole;
    if (n <= 1)
        return;
    int64_t sub = whole->max_events / n, subvalid = whole->stop_at / n;
    out->first_event_id = whole->first_event_id + (int64_t)k * sub;
    out->max_events = k == n - 1 ? whole->max_events - sub * (n - 1) : sub;
    /* the reader drops the split's stop-at when the table has none */
    out->stop_at = whole->stop_at < 0     ? -1
                   : k == n - 1           ? whole->stop_at - subvalid * (n - 1)
                                          : subvalid;
}

int64_t sl_nexmark_split_events(const sl_nexmark_config *c)
{
    if (c->stop_at < 0)
        return c->max_events;
    return c->stop_at < c->max_events ? c->stop_at : c->max_events;
}

/* Leaves of sl_nexmark_columns, as sl_nexmark_config.need bits. */
#define SL__NX_B(f) (1u << (f))
enum {
    SL__NX_P_NAME = SL__NX_B(2), SL__NX_P_EMAIL = SL__NX_B(3), SL__NX_P_CARD = SL__NX_B(4),
    SL__NX_P_CITY = SL__NX_B(5), SL__NX_P_STATE = SL__NX_B(6), SL__NX_P_EXTRA = SL__NX_B(8),
    SL__NX_A_NAME = SL__NX_B(10), SL__NX_A_DESC = SL__NX_B(11), SL__NX_A_INITIAL = SL__NX_B(12),
    SL__NX_A_RESERVE = SL__NX_B(13), SL__NX_A_EXPIRES = SL__NX_B(15),
    SL__NX_A_SELLER = SL__NX_B(16), SL__NX_A_CATEGORY = SL__NX_B(17),
    SL__NX_A_EXTRA = SL__NX_B(18), SL__NX_B_AUCTION = SL__NX_B(19),
    SL__NX_B_BIDDER = SL__NX_B(20), SL__NX_B_PRICE = SL__NX_B(21),
    SL__NX_B_CHANNEL = SL__NX_B(22), SL__NX_B_URL = SL__NX_B(23), SL__NX_B_EXTRA = SL__NX_B(25),
};

/* A price's draw without its value (a pow() the job would not read). */
static int64_t sl__skip_price(sl__jrand *r)
{
    r->seed += SL__NX_GOLDEN_GAMMA;
    return 0;
}

/* Empty strings, store by store (a struct assignment chained through the
** fields read the just-written one back: a store-forwarding stall). */
static inline void sl__nx_clear(sl_nexmark_str *a, sl_nexmark_str *b, sl_nexmark_str *c)
{
    a->p = b->p = c->p = "";
    a->len = b->len = c->len = 0;
    a->fixed = b->fixed = c->fixed = true;
}

/* The draws of each kind in the reference's order; after each, the
** generator goes on only while c->need holds a leaf drawn later. */
static void sl__person(const sl_nexmark_config *c, sl__jrand *r, sl_nexmark_event *e)
{
    static const char *const first[] = {"Peter", "Paul", "Luke",  "John",   "Saul",  "Vicky",
                                        "Kate",  "Julie", "Sarah", "Deiter", "Walter"};
    static const char *const last[] = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                       "Walton", "Smith",  "Jones",   "Noris"};
    static const char *const cities[] = {"Phoenix", "Los Angeles", "San Francisco", "Boise",
                                         "Portland", "Bend", "Redmond", "Seattle", "Kent",
                                         "Cheyenne"};
    static const char *const states[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    e->p_id = sl__last_person(c, e->event_id) + SL__NX_FIRST_PERSON_ID;
    sl__nx_clear(&e->p_name, &e->p_email, &e->p_card);
    sl__nx_clear(&e->p_city, &e->p_state, &e->p_extra);
    uint32_t need = c->need;
    if (!(need & (SL__NX_P_NAME | SL__NX_P_EMAIL | SL__NX_P_CARD | SL__NX_P_CITY |
                  SL__NX_P_STATE | SL__NX_P_EXTRA)))
        return;
    const char *f = first[sl__next_int_b(r, 11)];
    const char *l = last[sl__next_int_b(r, 9)];
    size_t fl = strlen(f), ll = strlen(l); /* "%s %s" without snprintf */
    memcpy(e->name_buf, f, fl);
    e->name_buf[fl] = ' ';
    memcpy(e->name_buf + fl + 1, l, ll);
    e->name_buf[fl + 1 + ll] = '\0';
    e->p_name.len = fl + 1 + ll;
    e->p_name.p = e->name_buf;
    e->p_name.fixed = false;
    if (!(need & (SL__NX_P_EMAIL | SL__NX_P_CARD | SL__NX_P_CITY | SL__NX_P_STATE |
                  SL__NX_P_EXTRA)))
        return;
    size_t n = sl__next_string(r, 7, ' ', e->email_buf);
    e->email_buf[n++] = '@';
    n += sl__next_string(r, 5, ' ', e->email_buf + n);
    memcpy(e->email_buf + n, ".com", 4);
    e->p_email.p = e->email_buf;
    e->p_email.fixed = false;
    e->p_email.len = n + 4;
    if (!(need & (SL__NX_P_CARD | SL__NX_P_CITY | SL__NX_P_STATE | SL__NX_P_EXTRA)))
        return;
    n = 0;
    for (int i = 0; i < 4; i++) { /* "%04d" four times, blank-separated */
        int v = sl__next_int_b(r, 10000);
        if (i)
            e->card_buf[n++] = ' ';
        for (int k = 3; k >= 0; k--, v /= 10)
            e->card_buf[n + (size_t)k] = (char)('0' + v % 10);
        n += 4;
    }
    e->card_buf[n] = '\0';
    e->p_card.p = e->card_buf;
    e->p_card.fixed = false;
    e->p_card.len = n;
    if (!(need & (SL__NX_P_CITY | SL__NX_P_STATE | SL__NX_P_EXTRA)))
        return;
    e->p_city.p = cities[sl__next_int_b(r, 10)];
    e->p_city.fixed = true;
    e->p_city.len = strlen(e->p_city.p);
    e->p_state.p = states[sl__next_int_b(r, 6)];
    e->p_state.fixed = true;
    e->p_state.len = 2;
    if (!(need & SL__NX_P_EXTRA))
        return;
    int64_t cur = 8 + (int64_t)(e->p_name.len + e->p_email.len + e->p_card.len + e->p_city.len +
                                e->p_state.len);
    sl__next_extra(r, cur, c->avg_person, e, &e->p_extra);
}

static void sl__auction(const sl_nexmark_config *c, int64_t count, sl__jrand *r,
                        sl_nexmark_event *e)
{
    int64_t id = e->event_id;
    e->a_id = sl__last_auction(c, id) + SL__NX_FIRST_AUCTION_ID;
    sl__nx_clear(&e->a_name, &e->a_desc, &e->a_extra);
    uint32_t need = c->need;
    uint32_t later = SL__NX_A_SELLER | SL__NX_A_CATEGORY | SL__NX_A_INITIAL | SL__NX_A_EXPIRES |
                     SL__NX_A_NAME | SL__NX_A_DESC | SL__NX_A_RESERVE | SL__NX_A_EXTRA;
    if (!(need & later))
        return;
    int64_t seller;
    if (sl__next_int_b(r, c->hot_sellers_ratio) > 0)
        seller = sl__last_person(c, id) / SL__NX_HOT_RATIO * SL__NX_HOT_RATIO;
    else
        seller = sl__next_person(c, id, r);
    e->a_seller = seller + SL__NX_FIRST_PERSON_ID;
    if (!(need & (later &= ~SL__NX_A_SELLER)))
        return;
    e->a_category = SL__NX_FIRST_CATEGORY_ID + sl__next_int_b(r, SL__NX_NUM_CATEGORIES);
    if (!(need & (later &= ~SL__NX_A_CATEGORY)))
        return;
    /* the reserve is the initial bid plus a price */
    e->a_initial = need & (SL__NX_A_INITIAL | SL__NX_A_RESERVE) ? sl__next_price(r)
                                                                : sl__skip_price(r);
    if (!(need & (later &= ~SL__NX_A_INITIAL)))
        return;
    /* nextAuctionLengthMs: the time numInFlightAuctions auctions ahead */
    int64_t cur = sl__adjusted(c, count);
    int64_t ahead = (int64_t)c->num_in_flight_auctions * c->total_prop / c->auction_prop;
    int64_t horizon = sl_nexmark_timestamp(c, cur + ahead) - e->ts_ms;
    e->a_expires_ms = e->ts_ms + 1 + sl__next_long_b(r, horizon * 2 > 1 ? horizon * 2 : 1);
    if (!(need & (later &= ~SL__NX_A_EXPIRES)))
        return;
    e->a_name.len = sl__next_string(r, 20, ' ', e->item_buf);
    e->a_name.p = e->item_buf;
    e->a_name.fixed = false;
    if (!(need & (later &= ~SL__NX_A_NAME)))
        return;
    e->a_desc.len = sl__next_string(r, 100, ' ', e->desc_buf);
    e->a_desc.p = e->desc_buf;
    e->a_desc.fixed = false;
    if (!(need & (later &= ~SL__NX_A_DESC)))
        return;
    e->a_reserve = e->a_initial + (need & SL__NX_A_RESERVE ? sl__next_price(r) : sl__skip_price(r));
    if (!(need & SL__NX_A_EXTRA))
        return;
    int64_t size = 8 + (int64_t)(e->a_name.len + e->a_desc.len) + 40;
    sl__next_extra(r, size, c->avg_auction, e, &e->a_extra);
}

static void sl__bid(const sl_nexmark_config *c, sl__jrand *r, sl_nexmark_event *e)
{
    static const char *const hot_channels[] = {"Google", "Facebook", "Baidu", "Apple"};
    int64_t id = e->event_id, auction, bidder;
    sl__nx_clear(&e->b_channel, &e->b_url, &e->b_extra);
    uint32_t need = c->need;
    if (!(need & (SL__NX_B_AUCTION | SL__NX_B_BIDDER | SL__NX_B_PRICE | SL__NX_B_CHANNEL |
                  SL__NX_B_URL | SL__NX_B_EXTRA)))
        return;
    if (sl__next_int_b(r, c->hot_auction_ratio) > 0)
        auction = sl__last_auction(c, id) / SL__NX_HOT_RATIO * SL__NX_HOT_RATIO;
    else
        auction = sl__next_auction(c, id, r);
    e->b_auction = auction + SL__NX_FIRST_AUCTION_ID;
    if (!(need &
          (SL__NX_B_BIDDER | SL__NX_B_PRICE | SL__NX_B_CHANNEL | SL__NX_B_URL | SL__NX_B_EXTRA)))
        return;
    if (sl__next_int_b(r, c->hot_bidders_ratio) > 0)
        bidder = sl__last_person(c, id) / SL__NX_HOT_RATIO * SL__NX_HOT_RATIO + 1;
    else
        bidder = sl__next_person(c, id, r);
    /* the reference adds FIRST_PERSON_ID twice (BidGenerator.nextBid) */
    e->b_bidder = bidder + 2 * SL__NX_FIRST_PERSON_ID;
    if (!(need & (SL__NX_B_PRICE | SL__NX_B_CHANNEL | SL__NX_B_URL | SL__NX_B_EXTRA)))
        return;
    e->b_price = need & SL__NX_B_PRICE ? sl__next_price(r) : sl__skip_price(r);
    if (!(need & (SL__NX_B_CHANNEL | SL__NX_B_URL | SL__NX_B_EXTRA)))
        return;
    int u;
    if (sl__next_int_b(r, 2) > 0) {
        u = sl__next_int_b(r, 4);
        e->b_channel.p = hot_channels[u];
        e->b_channel.fixed = true;
        e->b_channel.len = strlen(hot_channels[u]);
    } else {
        int ch = sl__next_int_b(r, SL__NX_CHANNELS);
        char digits[8]; /* "channel-%d" without snprintf (3 % of q12 was vfprintf) */
        size_t nd = 0;
        int v = ch;
        do
            digits[nd++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        memcpy(e->chan_buf, "channel-", 8);
        for (size_t k = 0; k < nd; k++)
            e->chan_buf[8 + k] = digits[nd - 1 - k];
        e->chan_buf[8 + nd] = '\0';
        e->b_channel.len = 8 + nd;
        e->b_channel.p = e->chan_buf;
        e->b_channel.fixed = false;
        u = 4 + ch;
    }
    e->b_url.p = sl__nx_urls[u];
    e->b_url.fixed = true;
    e->b_url.len = sl__nx_url_len[u];
    if (!(need & SL__NX_B_EXTRA))
        return;
    sl__next_extra(r, 32, c->avg_bid, e, &e->b_extra);
}

void sl_nexmark_next(const sl_nexmark_config *c, int64_t count, sl_nexmark_event *e)
{
    pthread_once(&sl__nx_once, sl__nx_init_tables);
    int64_t adj = sl__adjusted(c, count);
    e->event_id = c->first_event_id + adj;
    e->ts_ms = sl_nexmark_timestamp(c, adj);
    e->wall_offset_ms = sl_nexmark_timestamp(c, c->first_event_number + count) - c->base_time_ms;
    sl__jrand r = {(uint64_t)e->event_id};
    int64_t rem = e->event_id % c->total_prop;
    if (rem < c->person_prop) {
        e->type = SL_NX_PERSON;
        sl__person(c, &r, e);
    } else if (rem < c->person_prop + c->auction_prop) {
        e->type = SL_NX_AUCTION;
        sl__auction(c, count, &r, e);
    } else {
        e->type = SL_NX_BID;
        sl__bid(c, &r, e);
    }
}

size_t sl_nexmark_event_bytes(const sl_nexmark_event *e)
{
    switch (e->type) {
    case SL_NX_PERSON:
        return 16 + e->p_name.len + e->p_email.len + e->p_card.len + e->p_city.len +
               e->p_state.len + e->p_extra.len;
    case SL_NX_AUCTION: return 64 + e->a_name.len + e->a_desc.len + e->a_extra.len;
    default: return 32 + e->b_channel.len + e->b_url.len + e->b_extra.len;
    }
}

void sl_nexmark_event_free(sl_nexmark_event *e)
{
    sl_free(e->big);
    e->big = NULL;
    e->big_cap = 0;
}
