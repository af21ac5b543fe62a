/*
** datagen.c — the 'datagen' connector: a source that generates rows, random
** or sequential per column (Flink's DataGen connector and option names).
**
** The declaration (options, capabilities, check); the generator itself is
** in datagen_source.c (sl_datagen_create). Generation is deterministic, so
** the source is replayable.
**
** sl__datagen_check enforces what types alone cannot: every fields.<col>.*
** key names a column; sequence columns have start <= end and no random-only
** options; random columns have min <= max, and length / max-past only on
** the column types they apply to; null-rate within 0..1.
*/
#include <string.h>

#include "../sl_connector_int.h"
#include "datagen.h"

static const sl_option_spec sl__datagen_options[] = {
    {.key = "rows-per-second", .type = SL_OPT_INT, .default_value = "10000",
     .description = "Rows generated per second (greater than 0)."},
    {.key = "number-of-rows", .type = SL_OPT_INT,
     .description = "Total number of rows to generate; unset means unbounded."},
    {.key = "fields.#.kind", .type = SL_OPT_ENUM, .default_value = "random",
     .enum_values = "random|sequence",
     .description = "Generator of column #: random values or a sequence from start to end."},
    {.key = "fields.#.min", .type = SL_OPT_STRING,
     .description = "Smallest random value of numeric column #, in its type; defaults to the "
                    "type's minimum."},
    {.key = "fields.#.max", .type = SL_OPT_STRING,
     .description = "Largest random value of numeric column #, in its type; defaults to the "
                    "type's maximum."},
    {.key = "fields.#.max-past", .type = SL_OPT_DURATION, .default_value = "0",
     .description = "Random TIMESTAMP column #: how far before the row's instant (its "
                    "event time: the job's start + row number / rows-per-second) a value may "
                    "lie, at random."},
    {.key = "fields.#.length", .type = SL_OPT_INT, .default_value = "100",
     .description = "Random string or bytes column #: length of the values."},
    {.key = "fields.#.start", .type = SL_OPT_STRING,
     .description = "Sequence column #: first value (required for a sequence)."},
    {.key = "fields.#.end", .type = SL_OPT_STRING,
     .description = "Sequence column #: last value (required for a sequence; at least start)."},
    {.key = "fields.#.null-rate", .type = SL_OPT_DOUBLE, .default_value = "0.0",
     .description = "Fraction of NULL values in column #, from 0 to 1."},
};

/* The kv of "fields.<col>.<suffix>", or NULL. */
static const sl_kv *sl__field(const sl_kvlist *opts, const char *col, const char *suffix)
{
    char *key = sl_sprintf("fields.%s.%s", col, suffix);
    const sl_kv *kv = sl_kvlist_find(opts, key);
    sl_free(key);
    return kv;
}

/* The type's spelling without NOT NULL (caller frees). */
static char *sl__type_name(sl_type t)
{
    t.not_null = false;
    return sl_type_to_string(t);
}

/* Set an error about kv for column col of type t: "option 'k' applies only
** to <what>, but column "c" is T". Returns -1. */
static int sl__not_for_type(sl_error *err, const sl_kv *kv, const char *what, const char *col,
                            sl_type t)
{
    char *tn = sl__type_name(t);
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                 "option '%s' applies only to %s, but column \"%s\" is %s", kv->key, what, col,
                 tn);
    sl_free(tn);
    return -1;
}

/* Parse kv as a value of numeric (or, for sequences, string) column type t:
** integer types (and strings) as a 64-bit integer within the type's range,
** the others as a double. 0 or -1 with err. */
static int sl__typed_number(const sl_kv *kv, sl_type t, bool *is_int, int64_t *iv, double *dv,
                            sl_error *err)
{
    *is_int = sl_type_is_integer(t.id) || sl_type_is_string(t.id);
    if (!*is_int) {
        const char *r = sl__parse_double(kv->value, dv);
        return r ? sl__invalid_value(err, kv, false, "%s", r) : 0;
    }
    const char *r = sl__parse_int(kv->value, iv);
    if (r)
        return sl__invalid_value(err, kv, false, "%s", r);
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    switch (t.id) {
    case SL_TYPE_TINYINT: lo = INT8_MIN; hi = INT8_MAX; break;
    case SL_TYPE_SMALLINT: lo = INT16_MIN; hi = INT16_MAX; break;
    case SL_TYPE_INT: lo = INT32_MIN; hi = INT32_MAX; break;
    default: break;
    }
    if (*iv < lo || *iv > hi) {
        char *tn = sl__type_name(t);
        sl__invalid_value(err, kv, false, "is out of range for type %s", tn);
        sl_free(tn);
        return -1;
    }
    return 0;
}

/* lo_kv <= hi_kv as numbers of column type t (either may be NULL). */
static int sl__check_order(const sl_kv *lo_kv, const sl_kv *hi_kv, sl_type t, sl_error *err)
{
    bool is_int = false;
    int64_t li = 0, hi = 0;
    double ld = 0, hd = 0;
    if (lo_kv && sl__typed_number(lo_kv, t, &is_int, &li, &ld, err) != 0)
        return -1;
    if (hi_kv && sl__typed_number(hi_kv, t, &is_int, &hi, &hd, err) != 0)
        return -1;
    if (lo_kv && hi_kv && (is_int ? li > hi : ld > hd))
        return sl__invalid_value(err, lo_kv, false, "is greater than '%s' (\"%s\")", hi_kv->key,
                                 hi_kv->value);
    return 0;
}

/* Checks that need only the key and value. */
static int sl__datagen_check_key(const sl_kv *kv, const sl_option_spec *spec,
                                 const sl_table_shape *shape, sl_error *err)
{
    const char *col = NULL;
    size_t collen = 0;
    sl__key_match(spec->key, kv->key, &col, &collen);
    const char *suffix = strchr(spec->key, '#') + 1; /* ".kind" */
    if (shape && sl__shape_find(shape, col, collen) < 0) {
        sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, kv->key_pos,
                     "column \"%.*s\" named in option '%s' does not exist", (int)collen, col,
                     kv->key);
        char *word = sl_strndup(col, collen);
        const char *dym = sl_did_you_mean(word, (const char *const *)shape->names, shape->ncols);
        if (dym)
            sl_error_hint(err, "Did you mean 'fields.%s%s'?", dym, suffix);
        sl_free(word);
        return -1;
    }
    if (strcmp(suffix, ".null-rate") == 0) {
        double d = 0;
        sl__parse_double(kv->value, &d);
        if (d < 0 || d > 1)
            return sl__invalid_value(err, kv, false, "is not between 0 and 1");
    } else if (strcmp(suffix, ".length") == 0) {
        int64_t n = 0;
        sl__parse_int(kv->value, &n);
        if (n < 0)
            return sl__invalid_value(err, kv, false, "must not be negative");
    }
    return 0;
}

/* Checks of one column against its type and kind. */
static int sl__datagen_check_column(const sl_kvlist *opts, const char *col, sl_type t,
                                    sl_error *err)
{
    static const char *const random_only[] = {"min", "max", "max-past", "length"};
    static const char *const sequence_only[] = {"start", "end"};
    const sl_kv *kind = sl__field(opts, col, "kind");
    bool seq = kind && sl_strcasecmp(kind->value, "sequence") == 0;
    const sl_kv *kv;

    if (seq) {
        for (size_t i = 0; i < SL_ARRAY_LEN(random_only); i++) {
            if ((kv = sl__field(opts, col, random_only[i])) != NULL) {
                sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                             "option '%s' does not apply to sequence column \"%s\"", kv->key, col);
                sl_error_hint(err, "It applies when 'fields.%s.kind' is 'random'.", col);
                return -1;
            }
        }
        if (!sl_type_is_numeric(t.id) && !sl_type_is_string(t.id)) {
            char *tn = sl__type_name(t);
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, kind->value_pos,
                         "column \"%s\" of type %s cannot be generated as a sequence", col, tn);
            sl_error_hint(err, "Sequences are supported for numeric and string columns.");
            sl_free(tn);
            return -1;
        }
        const sl_kv *start = sl__field(opts, col, "start"), *end = sl__field(opts, col, "end");
        if (!start || !end)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kind->value_pos,
                                "missing required option 'fields.%s.%s' for sequence column "
                                "\"%s\"",
                                col, start ? "end" : "start", col);
        return sl__check_order(start, end, t, err);
    }

    for (size_t i = 0; i < SL_ARRAY_LEN(sequence_only); i++) {
        if ((kv = sl__field(opts, col, sequence_only[i])) != NULL) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                         "option '%s' applies only to sequence columns", kv->key);
            sl_error_hint(err, "Set 'fields.%s.kind' = 'sequence'.", col);
            return -1;
        }
    }
    const sl_kv *min = sl__field(opts, col, "min"), *max = sl__field(opts, col, "max");
    if ((min || max) && !sl_type_is_numeric(t.id))
        return sl__not_for_type(err, min ? min : max, "numeric columns", col, t);
    if (sl__check_order(min, max, t, err) != 0)
        return -1;
    if ((kv = sl__field(opts, col, "max-past")) && !sl_type_is_timestamp(t.id))
        return sl__not_for_type(err, kv, "TIMESTAMP columns", col, t);
    if ((kv = sl__field(opts, col, "length")) && !sl_type_is_string(t.id) &&
        !sl_type_is_binary(t.id))
        return sl__not_for_type(err, kv, "string and bytes columns", col, t);
    return 0;
}

static int sl__datagen_check(const sl_connector *c, const sl_kvlist *opts,
                             const sl_table_shape *shape, sl_error *err)
{
    const sl_kv *kv;
    int64_t n = 0;
    if ((kv = sl_kvlist_find(opts, "rows-per-second")) != NULL) {
        sl__parse_int(kv->value, &n);
        if (n <= 0)
            return sl__invalid_value(err, kv, false, "must be greater than 0");
    }
    if ((kv = sl_kvlist_find(opts, "number-of-rows")) != NULL) {
        sl__parse_int(kv->value, &n);
        if (n < 0)
            return sl__invalid_value(err, kv, false, "must not be negative");
    }
    for (int i = 0; i < opts->n; i++) {
        const sl_option_spec *spec = sl__spec_find(c->options, c->noptions, opts->items[i].key);
        if (spec && strchr(spec->key, '#') &&
            sl__datagen_check_key(&opts->items[i], spec, shape, err) != 0)
            return -1;
    }
    for (int i = 0; shape && i < shape->ncols; i++)
        if (sl__datagen_check_column(opts, shape->names[i], shape->types[i], err) != 0)
            return -1;
    return 0;
}

static const char sl__datagen_notes[] =
    "Time. Row i (counted over all subtasks from the job's first row) has the instant\n"
    "start + i / 'rows-per-second', start being the clock when the job first ran: a\n"
    "random TIMESTAMP / TIMESTAMP_LTZ column is that instant minus a random lateness\n"
    "of at most 'fields.#.max-past' (Flink: now minus up to max-past), and DATE / TIME\n"
    "columns are its date and time of day. So event time advances with the rows, at\n"
    "the rate's pace, and a `WATERMARK` on the column moves and fires windows. The\n"
    "values are a pure function of the row number, the options and the start, which\n"
    "checkpoints keep: a restored job regenerates exactly the rows after its\n"
    "checkpoint and continues the sequence of instants (after a pause, event time\n"
    "lags the clock by the pause; it never restarts).\n";

/* A generated stream: nothing older than the checkpoint's position comes
** back (a restore goes on from there). */
static int sl__datagen_replay_horizon(const sl_kvlist *opts, int64_t timeout_ms,
                                      int64_t *horizon_ms, const char **what, sl_error *err)
{
    *horizon_ms = 0;
    *what = "a generated stream";
    return 0;
}

const sl_connector sl__connector_datagen = {
    .name = "datagen",
    .description = "Generates rows: random values or sequences per column.",
    .options = sl__datagen_options,
    .noptions = (int)SL_ARRAY_LEN(sl__datagen_options),
    .has_format = false,
    .caps = {
        .source = true,
        .sink = false,
        .source_replayable = true,
        .source_bound = SL_BOUND_IF_SET,
        .source_bound_option = "number-of-rows",
        .sink_max = SL_GUARANTEE_NONE,
        .sink_mech = SL_MECH_NONE,
        .sink_updates = false,
        .sink_default = SL_GUARANTEE_NONE,
    },
    .check = sl__datagen_check,
    .create_source = sl_datagen_create,
    .create_sink = NULL,
    .replay_horizon = sl__datagen_replay_horizon,
    .notes = sl__datagen_notes,
};
