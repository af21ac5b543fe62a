/*
** nexmark.c — the 'nexmark' connector: a source of the Nexmark benchmark's
** events (persons, auctions, bids), with the option names and defaults of
** the reference's Flink table source (github:nexmark/nexmark,
** NexmarkSourceOptions) plus three of its generator settings.
**
** The declaration (options, capabilities, check); the generator is in
** nexmark_gen.c, the source in nexmark_source.c. Generation is
** deterministic, so the source is replayable.
**
** sl__nexmark_check enforces what types alone cannot: the values the
** generator can use (sl_nexmark_config_init's ranges), and the table's
** columns: each names a leaf of the reference DDL's columns (event_type,
** person.id, ..., bid.extra) and has a type that holds it; leaves are
** nullable (an event fills one kind's leaves only).
*/
#include <string.h>

#include "../sl_connector_int.h"
#include "nexmark.h"

static const sl_option_spec sl__nexmark_options[] = {
    {.key = "first-event.rate", .type = SL_OPT_INT, .default_value = "10000",
     .description = "Events per second of event time, all subtasks together: the inter-event "
                    "delay is 1/rate s."},
    {.key = "next-event.rate", .type = SL_OPT_INT, .default_value = "10000",
     .description = "Accepted, and unused as by the reference generator."},
    {.key = "rate.shape", .type = SL_OPT_ENUM, .default_value = "SQUARE",
     .enum_values = "SQUARE|SINE",
     .description = "Accepted, and unused as by the reference generator."},
    {.key = "rate.period", .type = SL_OPT_DURATION, .default_value = "600 s",
     .description = "Accepted, and unused as by the reference generator."},
    {.key = "rate.limited", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Emit events at the pace of their event times (as 'max-emit-speed' = "
                    "false; unused by the reference)."},
    {.key = "max-emit-speed", .type = SL_OPT_BOOL, .default_value = "true",
     .description = "Emit as fast as possible; false: no event before its event time's "
                    "offset from the start has passed on the wall clock."},
    {.key = "events.num", .type = SL_OPT_INT, .default_value = "0",
     .description = "Events to generate, all subtasks together; 0: unbounded."},
    {.key = "stop-at", .type = SL_OPT_INT, .default_value = "-1",
     .description = "Stop after this many events, all subtasks together; -1: never."},
    {.key = "keep-alive", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "After the last event, stay idle instead of ending."},
    {.key = "person.proportion", .type = SL_OPT_INT, .default_value = "1",
     .description = "Persons among each proportions' sum of events."},
    {.key = "auction.proportion", .type = SL_OPT_INT, .default_value = "3",
     .description = "Auctions among each proportions' sum of events."},
    {.key = "bid.proportion", .type = SL_OPT_INT, .default_value = "46",
     .description = "Bids among each proportions' sum of events."},
    {.key = "person.avg-size", .type = SL_OPT_MEMSIZE, .default_value = "200b",
     .description = "Average size of a person; its 'extra' field pads to it."},
    {.key = "auction.avg-size", .type = SL_OPT_MEMSIZE, .default_value = "500b",
     .description = "Average size of an auction; its 'extra' field pads to it."},
    {.key = "bid.avg-size", .type = SL_OPT_MEMSIZE, .default_value = "100b",
     .description = "Average size of a bid; its 'extra' field pads to it."},
    {.key = "bid.hot-ratio.auctions", .type = SL_OPT_INT, .default_value = "2",
     .description = "A bid is for a hot auction with probability 1 - 1/ratio."},
    {.key = "bid.hot-ratio.bidders", .type = SL_OPT_INT, .default_value = "4",
     .description = "A bid is by a hot bidder with probability 1 - 1/ratio."},
    {.key = "auction.hot-ratio.sellers", .type = SL_OPT_INT, .default_value = "4",
     .description = "An auction is by a hot seller with probability 1 - 1/ratio."},
    {.key = "num-active-people", .type = SL_OPT_INT, .default_value = "1000",
     .description = "Sluice extension (the generator's numActivePeople): persons a random "
                    "seller or bidder is drawn from."},
    {.key = "num-in-flight-auctions", .type = SL_OPT_INT, .default_value = "100",
     .description = "Sluice extension (numInFlightAuctions): auctions a random bid is drawn "
                    "from; sets the auctions' length."},
    {.key = "out-of-order-group-size", .type = SL_OPT_INT, .default_value = "1",
     .description = "Sluice extension (outOfOrderGroupSize): events are shuffled within groups "
                    "of this many."},
};

/* Leaf f of the events: 'i' event_type (any integer type), 'b' BIGINT,
** 's' a string, 't' a timestamp. */
static char sl__leaf_kind(int f)
{
    static const char kinds[] = "i"
                                "bsssssts"   /* person: id .. extra */
                                "bssbbttbbs" /* auction */
                                "bbbssts";   /* bid */
    return kinds[f];
}

static int sl__nexmark_check(const sl_connector *c, const sl_kvlist *opts,
                             const sl_table_shape *shape, sl_error *err)
{
    (void)c;
    sl_nexmark_config cfg;
    if (sl_nexmark_config_init(&cfg, opts, 1, 0, err) != 0)
        return -1;
    for (int i = 0; shape && i < shape->ncols; i++) {
        const char *name = shape->names[i];
        int f = -1;
        for (int k = 0; k < sl_nexmark_ncolumns; k++)
            if (strcmp(name, sl_nexmark_columns[k]) == 0)
                f = k;
        if (f < 0) {
            sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, -1,
                         "column \"%s\" is not a field of the nexmark events", name);
            const char *dym =
                sl_did_you_mean(name, (const char *const *)sl_nexmark_columns, sl_nexmark_ncolumns);
            if (dym)
                sl_error_hint(err, "Did you mean \"%s\"?", dym);
            else
                sl_error_hint(err, "The columns are event_type and the fields of person, auction "
                                   "and bid (\"person.id\", ...).");
            return -1;
        }
        sl_type t = shape->types[i];
        char k = sl__leaf_kind(f);
        bool ok = k == 'i'   ? sl_type_is_integer(t.id)
                  : k == 'b' ? t.id == SL_TYPE_BIGINT
                  : k == 's' ? t.id == SL_TYPE_VARCHAR
                             : sl_type_is_timestamp(t.id);
        if (!ok) {
            sl_type u = t;
            u.not_null = false;
            char *tn = sl_type_to_string(u);
            sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, -1,
                         "nexmark column \"%s\" cannot be of type %s", name, tn);
            sl_error_hint(err, "Declare it %s.",
                          k == 'i'   ? "INT (or another integer type)"
                          : k == 'b' ? "BIGINT"
                          : k == 's' ? "VARCHAR or STRING"
                                     : "TIMESTAMP(3) or TIMESTAMP_LTZ(3)");
            sl_free(tn);
            return -1;
        }
        if (f > 0 && t.not_null)
            return sl_error_set(err, SL_ERR_INVALID_TABLE_DEF, -1,
                                "nexmark column \"%s\" cannot be NOT NULL: it is NULL in events "
                                "of the other kinds",
                                name);
    }
    return 0;
}

static const char sl__nexmark_notes[] =
    "Columns. The reference DDL declares `event_type INT` and the ROW columns `person`,\n"
    "`auction` and `bid`; their leaves are the table's columns, by name: `event_type`\n"
    "(0 person, 1 auction, 2 bid), `person.id`, `person.name`, `person.emailAddress`,\n"
    "`person.creditCard`, `person.city`, `person.state`, `person.dateTime`,\n"
    "`person.extra`, `auction.id`, `auction.itemName`, `auction.description`,\n"
    "`auction.initialBid`, `auction.reserve`, `auction.dateTime`, `auction.expires`,\n"
    "`auction.seller`, `auction.category`, `auction.extra`, `bid.auction`, `bid.bidder`,\n"
    "`bid.price`, `bid.channel`, `bid.url`, `bid.dateTime`, `bid.extra` (a ROW column\n"
    "flattened into its leaves, or the leaves declared directly with quoted names:\n"
    "`` `person.id` BIGINT ``). Any subset in any order; ids and prices BIGINT, strings\n"
    "VARCHAR / STRING, times TIMESTAMP(3) or TIMESTAMP_LTZ(3); a leaf is NULL in the\n"
    "events of the other kinds, so it cannot be NOT NULL. Another name is refused.\n"
    "\n"
    "Same as the reference generator (github:nexmark/nexmark, nexmark-flink), event\n"
    "by event: the event ids (first event id 1 and first event number 1, as its table\n"
    "source: event number n, from 1, has id 1 + n, or 1 + its out-of-order-adjusted\n"
    "number), which event is a person, an auction or a bid (id modulo the proportions'\n"
    "sum), person and auction ids, the hot seller / bidder / auction ids (the first,\n"
    "second, first of the last block of 100) and the ranges of the others, the bidder\n"
    "ids (the reference adds 1000 twice), categories 10..14, the event times (base\n"
    "time + (long)(event number * 1e6 / first-event.rate * parallelism us) / 1000,\n"
    "ms), the auctions' expiry horizon, the sizes of the `extra` fields, and the split\n"
    "across subtasks (GeneratorConfig.split: subtask k of p generates a contiguous\n"
    "block of events.num / p event ids, the last one the remainder, each with event\n"
    "numbers from 1, so every subtask's times start at the base time). Hence with one\n"
    "subtask or many the table holds the same events, only their times differ.\n"
    "\n"
    "Different: the reference draws its random choices (hot or not, prices, names,\n"
    "emails, cities, categories, strings, auction lengths, channels) from an unseeded\n"
    "`java.util.SplittableRandom`; Sluice draws them from a SplittableRandom (the\n"
    "same algorithm, checked against a JVM) seeded with the event id, in the\n"
    "reference's order, so an event depends only on its id: runs, restarts and\n"
    "parallelisms agree. The reference's static tables (the 1 MiB string `extra`\n"
    "fields are cut from, the hot and per-channel URLs) come from fixed seeds.\n"
    "The unit test `test_connectors_nexmark` compares every field of 845 events (four\n"
    "splits, out-of-order groups included) with what the reference's own generator\n"
    "code prints when seeded the same way (`tests/unit/data/nexmark_reference.sh`):\n"
    "all equal. (Prices are `exp2` of the reference's exponent, and C's `pow` within\n"
    "1e-12 of a rounding half, which could differ from Java's `Math.pow` in the last\n"
    "bit; none did.)\n"
    "\n"
    "Leaves a job does not read stay NULL, and are not generated either: as every\n"
    "event draws from a generator of its own, the source stops after the last draw\n"
    "a leaf it fills needs, and steps over a price it would not read; the leaves it\n"
    "fills are the same as when every leaf is read.\n"
    "\n"
    "Base time: the instant the job created its sources (the reference: when the table\n"
    "source is planned), kept in the checkpoint with the events emitted so far and the\n"
    "wall-clock start, so a restored job continues the same stream with the same\n"
    "times; restoring with another parallelism is refused. `events.num` / `stop-at`\n"
    "end each subtask after its share (`keep-alive` idles instead); the table is\n"
    "unbounded for `execution.runtime-mode` (the reference's source is\n"
    "CONTINUOUS_UNBOUNDED). Pacing: as fast as possible unless `max-emit-speed` =\n"
    "false (then no event before its time's offset from the start has passed on the\n"
    "wall clock); `rate.limited` = true paces too (the reference ignores it);\n"
    "`next-event.rate`, `rate.shape` and `rate.period` are accepted and unused, as by\n"
    "the reference. `num-active-people`, `num-in-flight-auctions` and\n"
    "`out-of-order-group-size` are generator settings the reference's table source\n"
    "does not expose; `*.avg-size` are limited to 16 mb (a poll stops after 8 MB of\n"
    "events).\n";

const sl_connector sl__connector_nexmark = {
    .name = "nexmark",
    .description = "Generates the Nexmark benchmark's events (persons, auctions, bids) as the "
                   "reference generator github:nexmark/nexmark does.",
    .options = sl__nexmark_options,
    .noptions = (int)SL_ARRAY_LEN(sl__nexmark_options),
    .has_format = false,
    .caps = {
        .source = true,
        .sink = false,
        .source_replayable = true,
        .source_bound = SL_BOUND_NEVER, /* CONTINUOUS_UNBOUNDED, as the reference declares */
        .sink_max = SL_GUARANTEE_NONE,
        .sink_mech = SL_MECH_NONE,
        .sink_updates = false,
        .sink_default = SL_GUARANTEE_NONE,
    },
    .check = sl__nexmark_check,
    .create_source = sl_nexmark_create,
    .create_sink = NULL,
    .notes = sl__nexmark_notes,
};
