/*
** nexmark.h — the 'nexmark' connector: the Nexmark benchmark's event
** generator (nexmark_gen.c), the source that runs it (nexmark_source.c)
** and the declaration (nexmark.c).
**
** The generator follows github:nexmark/nexmark, module nexmark-flink
** (com.github.nexmark.flink.generator): event number n of a split gives the
** same event id, kind, ids (person, auction, seller, bidder), timestamps
** (base time + inter-event delay, out-of-order groups) as the reference;
** the reference draws its random choices from an unseeded SplittableRandom,
** here from java.util.SplittableRandom's algorithm seeded with the event id,
** in the reference's draw order (docs/CONNECTORS.md, section nexmark).
**
** Main routines: sl_nexmark_config_init, sl_nexmark_config_split,
** sl_nexmark_next, sl_nexmark_timestamp; sl_nexmark_create (the source).
*/
#ifndef SL_NEXMARK_H
#define SL_NEXMARK_H

#include "../sl_connector.h"

/* Event kinds, as the reference's Event.Type values (column event_type). */
#define SL_NX_PERSON  0
#define SL_NX_AUCTION 1
#define SL_NX_BID     2

/* A generator configuration (the reference's NexmarkConfiguration fields
** that matter, and GeneratorConfig's derived values for one split). */
typedef struct sl_nexmark_config {
    int32_t person_prop, auction_prop, bid_prop; /* proportions of the kinds */
    int32_t total_prop;                          /* their sum (> 0) */
    int32_t first_event_rate;                    /* events per second (> 0) */
    int32_t generators;                          /* parallelism (numEventGenerators) */
    double delay_us;                             /* inter-event delay of one split, in us */
    int32_t avg_person, avg_auction, avg_bid;    /* average event sizes, bytes */
    int32_t hot_auction_ratio, hot_sellers_ratio, hot_bidders_ratio; /* >= 1 */
    int32_t num_in_flight_auctions, num_active_people;
    int64_t out_of_order_group_size; /* >= 1 */
    int64_t base_time_ms;            /* event time of event number 0 */
    int64_t first_event_id;          /* this split's first event id */
    int64_t first_event_number;      /* 1, as the reference's table source */
    int64_t max_events;              /* this split's events (events.num share or "unbounded") */
    int64_t stop_at;                 /* this split's stop-at share, -1 = none */
    uint32_t need;                   /* bit f: leaf f of sl_nexmark_columns is generated */
} sl_nexmark_config;

/* sl_nexmark_config.need of every leaf (sl_nexmark_config_init's). Every
** event draws from a random generator of its own (seeded with its id), so
** the generator may stop after the last draw a needed leaf depends on, and
** may advance past a draw instead of computing its value: the leaves it
** does produce are the same whatever else is needed. A leaf not needed is
** unspecified (its strings empty). */
#define SL_NX_NEED_ALL ((1u << 26) - 1)

/* One generated event. Strings point into the generator's static tables or
** into the event's own buffers; valid until the next sl_nexmark_next on it. */
typedef struct sl_nexmark_str {
    const char *p;
    size_t len;
    bool fixed; /* p is static data (the generator's tables), valid for the process's life */
} sl_nexmark_str;

typedef struct sl_nexmark_event {
    int type;                 /* SL_NX_PERSON / AUCTION / BID */
    int64_t event_id;         /* the reference's event id (the seed) */
    int64_t ts_ms;            /* dateTime (adjusted event timestamp), ms since the epoch */
    int64_t wall_offset_ms;   /* unadjusted event time - base time: when to emit it */
    /* person */
    int64_t p_id;
    sl_nexmark_str p_name, p_email, p_card, p_city, p_state, p_extra;
    /* auction */
    int64_t a_id, a_initial, a_reserve, a_expires_ms, a_seller, a_category;
    sl_nexmark_str a_name, a_desc, a_extra;
    /* bid */
    int64_t b_auction, b_bidder, b_price;
    sl_nexmark_str b_channel, b_url, b_extra;
    /* storage of the strings built per event */
    char name_buf[32], email_buf[24], card_buf[24], item_buf[24], desc_buf[104], chan_buf[24];
    char *big;        /* an extra string of 512 KiB or more (owned) */
    size_t big_cap;   /* its allocation */
} sl_nexmark_event;

/* The configuration of the whole table from its options (validated), for
** parallelism p and the base time; first_event_id 1, first_event_number 1,
** max_events = events.num or, when 0, the reference's "unbounded" count.
** 0, or -1 with err (22023) for a value the generator cannot use. */
int sl_nexmark_config_init(sl_nexmark_config *c, const sl_kvlist *opts, int parallelism,
                           int64_t base_time_ms, sl_error *err);

/* Split k of n (GeneratorConfig.split): contiguous blocks of event ids,
** the last taking the remainder; stop-at divided the same way. */
void sl_nexmark_config_split(const sl_nexmark_config *whole, int n, int k,
                             sl_nexmark_config *out);

/* Events a split generates in all (min of max_events and stop_at). */
int64_t sl_nexmark_split_events(const sl_nexmark_config *c);

/* The event time (ms) of event number n (GeneratorConfig.timestampForEvent). */
int64_t sl_nexmark_timestamp(const sl_nexmark_config *c, int64_t n);

/* Generate the event a split emits after `count` events into *e: its
** type, id and times, and the leaves of c->need. */
void sl_nexmark_next(const sl_nexmark_config *c, int64_t count, sl_nexmark_event *e);

/* The event's bytes: its strings, and 8 per number or time. */
size_t sl_nexmark_event_bytes(const sl_nexmark_event *e);

/* Free what an event owns (e->big). */
void sl_nexmark_event_free(sl_nexmark_event *e);

/* java.util.SplittableRandom(seed)'s draws, as the generator uses them
** (exposed for the unit tests, which check them against a JVM's). */
typedef struct sl_nexmark_rand {
    uint64_t seed;
} sl_nexmark_rand;
int32_t sl_nexmark_rand_int(sl_nexmark_rand *r, int32_t bound); /* nextInt(bound); 0: nextInt() */
int64_t sl_nexmark_rand_long(sl_nexmark_rand *r);              /* nextLong() */
double sl_nexmark_rand_double(sl_nexmark_rand *r);             /* nextDouble() */

/* The source (nexmark_source.c). Position:
** "count=<n>;base=<ms>;wall=<ms>;parallelism=<p>;subtask=<k>". */
int sl_nexmark_create(const sl_source_args *args, sl_source **out, sl_error *err);

/* Replace the clock the source reads its base time and pacing from (ns
** since the epoch); NULL restores sl_now_nanos. With a replaced clock poll
** never sleeps. Call before the first poll. */
void sl_nexmark_set_clock(sl_source *s, int64_t (*now)(void *ctx), void *ctx);

/* The leaf columns a nexmark table may declare ("event_type",
** "person.id", ... "bid.extra"), in the reference DDL's order. */
extern const char *const sl_nexmark_columns[];
extern const int sl_nexmark_ncolumns;

#endif /* SL_NEXMARK_H */
