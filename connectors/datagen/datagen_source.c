/*
** datagen_source.c — the runtime of the 'datagen' connector: a source that
** generates rows, random or sequential per column, as Flink's DataGen does,
** but deterministically so that it can be replayed from a checkpoint.
**
** Values. Random: BOOLEAN; integers, FLOAT, DOUBLE and DECIMAL (exact,
** scaled integers) uniform in [min, max] (default: the type's range); CHAR /
** VARCHAR of `length` (default 100, capped by the type) characters [a-z0-9];
** BINARY / VARBINARY of `length` random bytes; DATE and TIME the date and
** time of day of the row's instant (Flink: "the current date / time");
** TIMESTAMP[_LTZ] the row's instant minus up to max-past, truncated to the
** type's precision. Row i's instant is base + i / rows-per-second: event
** time moves with the rows as the rate paces them (so watermarks advance
** and windows fire), never frozen at the job's start. Sequences (integers, DECIMAL, FLOAT, DOUBLE, strings as
** the numbers' text): row i has start + i. null-rate applies to both kinds
** (never to NOT NULL columns).
**
** Determinism. Row i of the table is a pure function of (i, column index,
** the options, the base instant): random values come from a counter-based
** generator (splitmix64 of the row index, the column index and a draw
** number), never from a stateful PRNG, so seek(position) followed by poll
** regenerates exactly the rows an earlier incarnation produced after that
** position. Time-dependent values (DATE, TIME, TIMESTAMP[_LTZ] "now - up to
** max-past" as Flink does) are taken relative to the row's instant, base +
** i / rate, with base the instant the job created its sources (the same
** for every subtask; else the clock at the first poll), stored in the
** position: a restored job continues the
** sequence of instants, it does not restart time.
**
** Parallelism. Subtask k of p generates the rows i with i % p == k, so the
** union over subtasks is the same table for every p. number-of-rows is the
** total over all subtasks; a sequence column gives row i the value start + i,
** hence each value of [start, end] once overall, and the table ends when the
** shortest sequence is exhausted (as in Flink).
**
** Rate. rows-per-second is the total over all subtasks: since the first
** poll (time t0, next row i0) the rows i < i0 + rate * (now - t0) may have
** been generated; each subtask emits its share of them. Ahead of the rate,
** poll returns no rows (after sleeping at most 50 ms on the real clock;
** never with an injected clock).
**
** Main routines: sl_datagen_create, sl_datagen_set_clock; the sl_source_ops
** sl__dg_poll, sl__dg_position, sl__dg_seek.
*/
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../sl_connector_int.h"
#include "datagen.h"

typedef unsigned __int128 sl__u128;

#define SL__DG_DEFAULT_RATE   10000
#define SL__DG_DEFAULT_LENGTH 100
#define SL__DG_MAX_SLEEP_NS   (50 * SL_NANOS_PER_MILLI)

/* How one column is generated. Only the fields of its kind and type are used. */
typedef struct sl__dg_col {
    sl_type type;     /* the column's type */
    bool seq;         /* a sequence (else random) */
    double null_rate; /* fraction of NULLs (0 for NOT NULL columns) */
    int64_t lo, hi;   /* random integers: bounds (inclusive) */
    double dlo, dhi;  /* random FLOAT / DOUBLE: bounds */
    float flo, fhi;   /* random FLOAT: the floats within [dlo, dhi] */
    sl_i128 qlo, qhi; /* random DECIMAL: scaled bounds */
    int64_t length;   /* random strings / bytes: length (capped by the type) */
    int64_t max_past; /* random TIMESTAMP: ns before the base instant */
    int64_t start;    /* sequence of integers / strings: first value */
    double dstart;    /* sequence of FLOAT / DOUBLE: first value */
    sl_i128 qstart;   /* sequence of DECIMAL: first value (scaled) */
} sl__dg_col;

typedef struct sl__datagen {
    int ncols;              /* columns */
    sl__dg_col *cols;       /* their generators */
    int64_t rate;           /* rows per second, all subtasks together */
    int64_t total;          /* rows in the table (all subtasks), -1 = unbounded */
    int subtask;            /* this instance (k) */
    int parallelism;        /* instances (p) */
    int64_t next;           /* next row index of this subtask (next % p == k) */
    bool have_base;         /* base is set */
    int64_t created;        /* when the job created its sources, the same for every
                               subtask (0 = unknown): a fresh job's base */
    int64_t base;           /* the base instant (ns), fixed for the job's life */
    bool paced;             /* t0 / i0 are set (after the first poll) */
    int64_t t0;             /* clock at the first poll after create / seek */
    int64_t i0;             /* next at that time */
    int64_t (*now)(void *); /* the clock */
    void *now_ctx;          /* its argument */
    bool real_clock;        /* now is the default (poll may sleep) */
    char *scratch;          /* bytes of one string value */
    size_t scratch_cap;     /* allocated */
} sl__datagen;

static const sl_source_ops sl__dg_ops;

static int64_t sl__real_now(void *ctx)
{
    (void)ctx;
    return sl_now_nanos();
}

/* ------------------------------------------------------------------------
** The counter-based generator.
*/

/* splitmix64's output function. */
static uint64_t sl__mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The key of (row, column): the draws of one value derive from it. */
static uint64_t sl__cell_key(int64_t row, int col)
{
    return sl__mix(sl__mix((uint64_t)row) ^ ((uint64_t)(col + 1) * 0xD1B54A32D192ED03ULL));
}

/* Draw number d of a cell (0 decides NULL, 1.. make the value). */
static uint64_t sl__draw(uint64_t key, uint64_t d)
{
    return sl__mix(key + d * 0x9E3779B97F4A7C15ULL);
}

/* A double in [0, 1). */
static double sl__unit(uint64_t r)
{
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [lo, hi] (lo <= hi). */
static int64_t sl__uniform_i64(uint64_t r, int64_t lo, int64_t hi)
{
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1; /* 0: the full 2^64 */
    uint64_t off = range ? (uint64_t)(((sl__u128)r * range) >> 64) : r;
    return (int64_t)((uint64_t)lo + off);
}

/* Uniform in [lo, hi] (lo <= hi, both within +-(10^38 - 1)), from r1 and,
** only when the range needs more than 64 random bits, a second draw. A
** range that fits in 64 bits (every DECIMAL up to 19 digits) takes one
** multiply and shift, as sl__uniform_i64: a 128-bit modulo is a libgcc
** call (__umodti3) that cost a fifth of a filter/project job's CPU. */
static sl_i128 sl__uniform_i128(uint64_t r1, uint64_t key, sl_i128 lo, sl_i128 hi)
{
    sl__u128 range = (sl__u128)hi - (sl__u128)lo + 1; /* < 2 * 10^38 < 2^128 */
    if ((range >> 64) == 0)
        return (sl_i128)((sl__u128)lo + (((sl__u128)r1 * (uint64_t)range) >> 64));
    sl__u128 r = ((sl__u128)r1 << 64) | sl__draw(key, 2);
    return (sl_i128)((sl__u128)lo + r % range);
}

/* The next float after f toward +inf (up) or -inf; f finite. */
static float sl__float_step(float f, bool up)
{
    if (f == 0)
        return up ? FLT_TRUE_MIN : -FLT_TRUE_MIN;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if ((f > 0) == up)
        b++;
    else
        b--;
    memcpy(&f, &b, sizeof f);
    return f;
}

static int64_t sl__floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* ------------------------------------------------------------------------
** Options.
*/

/* The kv of "fields.<col>.<suffix>", or NULL. */
static const sl_kv *sl__dg_field(const sl_kvlist *opts, const char *col, const char *suffix)
{
    char *key = sl_sprintf("fields.%s.%s", col, suffix);
    const sl_kv *kv = sl_kvlist_find(opts, key);
    sl_free(key);
    return kv;
}

static int sl__dg_int(const sl_kv *kv, int64_t *out, sl_error *err)
{
    const char *r = sl__parse_int(kv->value, out);
    return r ? sl__invalid_value(err, kv, false, "%s", r) : 0;
}

static int sl__dg_double(const sl_kv *kv, double *out, sl_error *err)
{
    const char *r = sl__parse_double(kv->value, out);
    return r ? sl__invalid_value(err, kv, false, "%s", r) : 0;
}

/* kv's value as a DECIMAL of type t: exact when it has at most t.scale
** fraction digits, otherwise rounded up (ceil) or down, so that every value
** of the type between two bounds lies between the numbers written. Must fit
** t's precision. */
static int sl__dg_decimal(const sl_kv *kv, sl_type t, bool ceil, sl_i128 *out, sl_error *err)
{
    const char *p = kv->value;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t len = strlen(p);
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    int extra = SL_DEC_MAX_DIGITS - t.scale < 12 ? SL_DEC_MAX_DIGITS - t.scale : 12;
    for (int sc = t.scale + extra; sc >= t.scale; sc--) {
        sl_i128 v;
        bool overflow = false;
        if (sl_dec_parse(p, len, SL_DEC_MAX_DIGITS, sc, &v, &overflow) != 0) {
            if (!overflow)
                return sl__invalid_value(err, kv, false, "is not a number");
            continue; /* too many integer digits for this scale: try a smaller one */
        }
        sl_i128 d = sl_dec_pow10(sc - t.scale), q = v / d, rem = v % d;
        if (ceil && rem > 0)
            q++;
        else if (!ceil && rem < 0)
            q--;
        if (!sl_dec_fits(q, t.precision))
            break;
        *out = q;
        return 0;
    }
    char *tn = sl_type_to_string(t);
    sl__invalid_value(err, kv, false, "is out of range for type %s", tn);
    sl_free(tn);
    return -1;
}

/* Bounds of the random integers of type id. */
static void sl__int_range(sl_type_id id, int64_t *lo, int64_t *hi)
{
    switch (id) {
    case SL_TYPE_TINYINT:
        *lo = INT8_MIN;
        *hi = INT8_MAX;
        break;
    case SL_TYPE_SMALLINT:
        *lo = INT16_MIN;
        *hi = INT16_MAX;
        break;
    case SL_TYPE_INT:
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        break;
    default:
        *lo = INT64_MIN;
        *hi = INT64_MAX;
        break;
    }
}

/* Characters needed to write v in decimal. */
static int64_t sl__digits_len(int64_t v)
{
    char buf[32];
    return snprintf(buf, sizeof buf, "%" PRId64, v);
}

static int sl__dg_type_error(sl_error *err, const char *what, const char *name, sl_type t)
{
    char *tn = sl_type_to_string(t);
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                 "datagen cannot generate %s for column \"%s\" of type %s", what, name, tn);
    sl_free(tn);
    return -1;
}

/* Set up the generator of a sequence column; *count receives how many values
** it has (0 when more than INT64_MAX: no bound). */
static int sl__dg_setup_sequence(sl__dg_col *g, const sl_kvlist *opts, const char *name,
                                 uint64_t *count, sl_error *err)
{
    const sl_kv *skv = sl__dg_field(opts, name, "start"), *ekv = sl__dg_field(opts, name, "end");
    sl_type t = g->type;
    if (!skv || !ekv)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "missing required option 'fields.%s.%s' for sequence column \"%s\"",
                            name, skv ? "end" : "start", name);
    if (sl_type_is_integer(t.id) || sl_type_is_string(t.id)) {
        int64_t end = 0, lo, hi;
        if (sl__dg_int(skv, &g->start, err) != 0 || sl__dg_int(ekv, &end, err) != 0)
            return -1;
        sl__int_range(t.id, &lo, &hi);
        if (sl_type_is_integer(t.id) && (g->start < lo || end > hi)) {
            char *tn = sl_type_to_string(t);
            sl__invalid_value(err, g->start < lo ? skv : ekv, false, "is out of range for type %s",
                              tn);
            sl_free(tn);
            return -1;
        }
        if (g->start > end)
            return sl__invalid_value(err, skv, false, "is greater than '%s' (\"%s\")", ekv->key,
                                     ekv->value);
        if (sl_type_is_string(t.id)) {
            int64_t w = sl__digits_len(g->start) > sl__digits_len(end) ? sl__digits_len(g->start)
                                                                       : sl__digits_len(end);
            if (w > t.precision) {
                char *tn = sl_type_to_string(t);
                sl_error_set(err, SL_ERR_INVALID_PARAMETER, ekv->value_pos,
                             "sequence values of column \"%s\" need %" PRId64
                             " characters, but the column is %s",
                             name, w, tn);
                sl_free(tn);
                return -1;
            }
        }
        sl__u128 n = (sl__u128)((uint64_t)end - (uint64_t)g->start) + 1;
        *count = n > (sl__u128)INT64_MAX ? 0 : (uint64_t)n;
        return 0;
    }
    if (t.id == SL_TYPE_DECIMAL) {
        sl_i128 end = 0;
        if (sl__dg_decimal(skv, t, true, &g->qstart, err) != 0 ||
            sl__dg_decimal(ekv, t, false, &end, err) != 0)
            return -1;
        if (g->qstart > end)
            return sl__invalid_value(err, skv, false, "is greater than '%s' (\"%s\")", ekv->key,
                                     ekv->value);
        sl__u128 n = ((sl__u128)end - (sl__u128)g->qstart) / (sl__u128)sl_dec_pow10(t.scale) + 1;
        *count = n > (sl__u128)INT64_MAX ? 0 : (uint64_t)n;
        return 0;
    }
    if (t.id == SL_TYPE_FLOAT || t.id == SL_TYPE_DOUBLE) {
        double end = 0;
        if (sl__dg_double(skv, &g->dstart, err) != 0 || sl__dg_double(ekv, &end, err) != 0)
            return -1;
        if (g->dstart > end)
            return sl__invalid_value(err, skv, false, "is greater than '%s' (\"%s\")", ekv->key,
                                     ekv->value);
        double lim = t.id == SL_TYPE_FLOAT ? FLT_MAX : DBL_MAX;
        if (g->dstart < -lim || end > lim) {
            char *tn = sl_type_to_string(t);
            sl__invalid_value(err, g->dstart < -lim ? skv : ekv, false,
                              "is out of range for type %s", tn);
            sl_free(tn);
            return -1;
        }
        double n = end - g->dstart; /* whole steps of 1 */
        *count = n >= 9.0e18 ? 0 : (uint64_t)n + 1;
        return 0;
    }
    return sl__dg_type_error(err, "a sequence", name, t);
}

/* Set up the generator of a random column. */
static int sl__dg_setup_random(sl__dg_col *g, const sl_kvlist *opts, const char *name,
                               sl_error *err)
{
    sl_type t = g->type;
    const sl_kv *min = sl__dg_field(opts, name, "min"), *max = sl__dg_field(opts, name, "max");
    const sl_kv *kv;
    switch (t.id) {
    case SL_TYPE_BOOLEAN: break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: {
        int64_t lo, hi;
        sl__int_range(t.id, &lo, &hi);
        g->lo = lo;
        g->hi = hi;
        if (min && sl__dg_int(min, &g->lo, err) != 0)
            return -1;
        if (max && sl__dg_int(max, &g->hi, err) != 0)
            return -1;
        if (g->lo < lo || g->hi > hi) {
            char *tn = sl_type_to_string(t);
            sl__invalid_value(err, g->lo < lo ? min : max, false, "is out of range for type %s",
                              tn);
            sl_free(tn);
            return -1;
        }
        if (g->lo > g->hi) /* both set: the defaults are the type's extremes */
            return sl__invalid_value(err, min, false, "is greater than '%s' (\"%s\")", max->key,
                                     max->value);
        break;
    }
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        double lim = t.id == SL_TYPE_FLOAT ? FLT_MAX : DBL_MAX;
        g->dlo = -lim;
        g->dhi = lim;
        if (min && sl__dg_double(min, &g->dlo, err) != 0)
            return -1;
        if (max && sl__dg_double(max, &g->dhi, err) != 0)
            return -1;
        if (g->dlo > g->dhi) /* both set */
            return sl__invalid_value(err, min, false, "is greater than '%s' (\"%s\")", max->key,
                                     max->value);
        g->dlo = g->dlo < -lim ? -lim : g->dlo > lim ? lim : g->dlo;
        g->dhi = g->dhi < -lim ? -lim : g->dhi > lim ? lim : g->dhi;
        if (t.id == SL_TYPE_FLOAT) {
            g->flo = (float)g->dlo;
            if ((double)g->flo < g->dlo)
                g->flo = sl__float_step(g->flo, true);
            g->fhi = (float)g->dhi;
            if ((double)g->fhi > g->dhi)
                g->fhi = sl__float_step(g->fhi, false);
            if (g->flo > g->fhi) /* no float in the range: the nearest one */
                g->flo = g->fhi = (float)g->dlo;
        }
        break;
    }
    case SL_TYPE_DECIMAL: {
        sl_i128 lim = sl_dec_pow10(t.precision) - 1;
        g->qlo = -lim;
        g->qhi = lim;
        if (min && sl__dg_decimal(min, t, true, &g->qlo, err) != 0)
            return -1;
        if (max && sl__dg_decimal(max, t, false, &g->qhi, err) != 0)
            return -1;
        if (g->qlo > g->qhi) {
            char *tn = sl_type_to_string(t);
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, min ? min->value_pos : -1,
                         "no value of type %s lies between 'fields.%s.min' and 'fields.%s.max'", tn,
                         name, name);
            sl_free(tn);
            return -1;
        }
        break;
    }
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        g->length = SL__DG_DEFAULT_LENGTH;
        if ((kv = sl__dg_field(opts, name, "length")) && sl__dg_int(kv, &g->length, err) != 0)
            return -1;
        if (g->length < 0)
            return sl__invalid_value(err, kv, false, "must not be negative");
        if (g->length > t.precision)
            g->length = t.precision;
        break;
    case SL_TYPE_DATE:
    case SL_TYPE_TIME: break;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: {
        int64_t ms = 0;
        if ((kv = sl__dg_field(opts, name, "max-past"))) {
            const char *r = sl__parse_duration_ms(kv->value, &ms);
            if (r)
                return sl__invalid_value(err, kv, false, "%s", r);
        }
        /* Saturate: a window reaching before 1677 is cut where timestamps end. */
        g->max_past = ms > INT64_MAX / SL_NANOS_PER_MILLI ? INT64_MAX : ms * SL_NANOS_PER_MILLI;
        if (g->max_past < 0)
            g->max_past = 0;
        break;
    }
    default: return sl__dg_type_error(err, "values", name, t);
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Generation.
*/

static void sl__dg_ensure_base(sl__datagen *d)
{
    if (!d->have_base) {
        /* Every subtask of a fresh job starts from the same instant, so the
        ** table's rows are the same whatever the parallelism. */
        d->base = d->real_clock && d->created ? d->created : d->now(d->now_ctx);
        d->have_base = true;
    }
}

static char *sl__dg_scratch(sl__datagen *d, size_t n)
{
    if (n > d->scratch_cap) {
        d->scratch_cap = n > 2 * d->scratch_cap ? n : 2 * d->scratch_cap;
        d->scratch = sl_realloc(d->scratch, d->scratch_cap);
    }
    return d->scratch;
}

/* Random string: n characters of [a-z0-9]; random bytes: n bytes. */
static void sl__dg_random_bytes(char *buf, size_t n, uint64_t key, bool text)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    uint64_t d = 1;
    size_t i = 0;
    while (i < n) {
        uint64_t r = sl__draw(key, d++);
        if (text) {
            for (int k = 0; k < 12 && i < n; k++, r /= 36) /* 36^12 < 2^64 */
                buf[i++] = alphabet[r % 36];
        } else {
            for (int k = 0; k < 8 && i < n; k++, r >>= 8)
                buf[i++] = (char)(r & 0xff);
        }
    }
}

/* Row i's instant: base + i / rate (saturated at the last timestamp). */
static int64_t sl__dg_instant(const sl__datagen *d, int64_t i)
{
    sl__u128 off = (sl__u128)i * SL_NANOS_PER_SEC / (sl__u128)d->rate;
    if (off > (sl__u128)INT64_MAX || d->base > INT64_MAX - (int64_t)off)
        return INT64_MAX;
    return d->base + (int64_t)off;
}

/* Value of column col for row i into row r of out. */
static void sl__dg_value(sl__datagen *d, int col, int64_t i, sl_chunk *out, int r)
{
    const sl__dg_col *g = &d->cols[col];
    sl_type t = g->type;
    uint64_t key = sl__cell_key(i, col);
    if (g->null_rate > 0 && sl__unit(sl__draw(key, 0)) < g->null_rate)
        return; /* the row was appended with every column NULL */
    if (g->seq) {
        switch (t.id) {
        case SL_TYPE_DECIMAL:
            sl_chunk_set_i128(
                out, col, r,
                (sl_i128)((sl__u128)g->qstart + (sl__u128)i * (sl__u128)sl_dec_pow10(t.scale)));
            return;
        case SL_TYPE_FLOAT:
            sl_chunk_set_f64(out, col, r, (double)(float)(g->dstart + (double)i));
            return;
        case SL_TYPE_DOUBLE: sl_chunk_set_f64(out, col, r, g->dstart + (double)i); return;
        case SL_TYPE_CHAR:
        case SL_TYPE_VARCHAR: {
            char buf[32];
            int n =
                snprintf(buf, sizeof buf, "%" PRId64, (int64_t)((uint64_t)g->start + (uint64_t)i));
            sl_chunk_set_str(out, col, r, buf, (size_t)n);
            return;
        }
        default: /* integers */
            sl_chunk_set_i64(out, col, r, (int64_t)((uint64_t)g->start + (uint64_t)i));
            return;
        }
    }
    uint64_t r1 = sl__draw(key, 1);
    switch (t.id) {
    case SL_TYPE_BOOLEAN: sl_chunk_set_bool(out, col, r, (r1 >> 63) != 0); break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: sl_chunk_set_i64(out, col, r, sl__uniform_i64(r1, g->lo, g->hi)); break;
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        double u = sl__unit(r1);
        double v = g->dlo * (1 - u) + g->dhi * u; /* no overflow for +-DBL_MAX */
        v = v < g->dlo ? g->dlo : v > g->dhi ? g->dhi : v;
        if (t.id == SL_TYPE_FLOAT) {
            float f = (float)v;
            f = f < g->flo ? g->flo : f > g->fhi ? g->fhi : f;
            v = f;
        }
        sl_chunk_set_f64(out, col, r, v);
        break;
    }
    case SL_TYPE_DECIMAL:
        sl_chunk_set_i128(out, col, r, sl__uniform_i128(r1, key, g->qlo, g->qhi));
        break;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: {
        size_t n = (size_t)g->length;
        char *buf = sl__dg_scratch(d, n ? n : 1);
        sl__dg_random_bytes(buf, n, sl__draw(key, 3), sl_type_is_string(t.id));
        sl_chunk_set_str(out, col, r, buf, n);
        break;
    }
    case SL_TYPE_DATE:
        sl_chunk_set_i64(out, col, r, sl__floor_div(sl__dg_instant(d, i), SL_NANOS_PER_DAY));
        break;
    case SL_TYPE_TIME: {
        int64_t at = sl__dg_instant(d, i);
        int64_t tod = at - sl__floor_div(at, SL_NANOS_PER_DAY) * SL_NANOS_PER_DAY;
        sl_chunk_set_i64(out, col, r, sl_time_truncate(tod, t.precision));
        break;
    }
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: {
        /* instant - U[0, max_past], never before the earliest timestamp */
        const int64_t earliest = INT64_MIN + SL_NANOS_PER_SEC;
        int64_t at = sl__dg_instant(d, i);
        uint64_t room = at > earliest ? (uint64_t)at - (uint64_t)earliest : 0;
        int64_t mp = (uint64_t)g->max_past < room ? g->max_past : (int64_t)room;
        int64_t v = at - sl__uniform_i64(r1, 0, mp);
        sl_chunk_set_i64(out, col, r, sl_time_truncate(v, t.precision));
        break;
    }
    default: break; /* rejected at create */
    }
}

/* Rows this subtask still has to generate (INT64_MAX when unbounded). */
static int64_t sl__dg_remaining(const sl__datagen *d)
{
    if (d->total < 0)
        return INT64_MAX;
    if (d->next >= d->total)
        return 0;
    return (d->total - d->next - 1) / d->parallelism + 1;
}

/* Rows of this subtask the rate allows at time now. */
static int64_t sl__dg_allowed(const sl__datagen *d, int64_t now)
{
    sl__u128 dt = now > d->t0 ? (sl__u128)((uint64_t)now - (uint64_t)d->t0) : 0;
    sl__u128 g = (sl__u128)d->rate * dt / SL_NANOS_PER_SEC + (sl__u128)d->i0;
    int64_t limit = g > (sl__u128)INT64_MAX ? INT64_MAX : (int64_t)g; /* rows i < limit */
    if (d->next >= limit)
        return 0;
    return (limit - d->next - 1) / d->parallelism + 1;
}

/* Nanoseconds until the rate allows this subtask's next row (at most
** SL__DG_MAX_SLEEP_NS). */
static int64_t sl__dg_wait(const sl__datagen *d, int64_t now)
{
    sl__u128 need = ((sl__u128)(d->next - d->i0 + 1) * SL_NANOS_PER_SEC + (sl__u128)d->rate - 1) /
                    (sl__u128)d->rate; /* time since t0 at which row next is allowed */
    sl__u128 dt = now > d->t0 ? (sl__u128)((uint64_t)now - (uint64_t)d->t0) : 0;
    if (need <= dt)
        return 0;
    return need - dt > (sl__u128)SL__DG_MAX_SLEEP_NS ? SL__DG_MAX_SLEEP_NS : (int64_t)(need - dt);
}

/* ------------------------------------------------------------------------
** The source operations.
*/

static int sl__dg_poll(sl_source *s, sl_chunk *out, sl_error *err)
{
    (void)err;
    sl__datagen *d = s->impl;
    int64_t remaining = sl__dg_remaining(d);
    if (remaining == 0)
        return SL_SOURCE_END;
    sl__dg_ensure_base(d);
    int64_t now = d->now(d->now_ctx);
    if (!d->paced) {
        d->t0 = now;
        d->i0 = d->next;
        d->paced = true;
    }
    int64_t allowed = sl__dg_allowed(d, now);
    if (allowed == 0 && d->real_clock) {
        int64_t wait = sl__dg_wait(d, now);
        sl_sleep_nanos(wait);
        allowed = sl__dg_allowed(d, d->now(d->now_ctx));
    }
    int64_t n = out->cap - out->nrows;
    n = allowed < n ? allowed : n;
    n = remaining < n ? remaining : n;
    for (int64_t j = 0; j < n; j++) {
        int r = sl_chunk_append_row(out, SL_ROW_INSERT);
        for (int c = 0; c < d->ncols; c++)
            sl__dg_value(d, c, d->next, out, r);
        d->next += d->parallelism;
    }
    return remaining == n ? SL_SOURCE_END : SL_SOURCE_MORE;
}

static int sl__dg_position(sl_source *s, sl_strbuf *out, sl_error *err)
{
    (void)err;
    sl__datagen *d = s->impl;
    sl__dg_ensure_base(d);
    sl_strbuf_appendf(out, "next=%" PRId64 ";base=%" PRId64 ";parallelism=%d;subtask=%d", d->next,
                      d->base, d->parallelism, d->subtask);
    return 0;
}

static int sl__dg_seek(sl_source *s, const char *pos, size_t len, sl_error *err)
{
    sl__datagen *d = s->impl;
    char buf[160];
    int64_t next = 0, base = 0;
    int p = 0, k = 0, used = -1;
    if (len < sizeof buf) {
        memcpy(buf, pos, len);
        buf[len] = 0;
        if (sscanf(buf, "next=%" SCNd64 ";base=%" SCNd64 ";parallelism=%d;subtask=%d%n", &next,
                   &base, &p, &k, &used) != 4)
            used = -1;
    }
    if (used < 0 || (size_t)used != len || next < 0 || p <= 0 || k < 0 || k >= p || next % p != k) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid datagen source position");
        sl_error_detail(err, "The position is \"%.*s\".", (int)(len < 100 ? len : 100), pos);
        return -1;
    }
    if (p != d->parallelism || k != d->subtask) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "a datagen source cannot be restored with a different parallelism");
        sl_error_detail(err,
                        "The checkpoint was taken by subtask %d of %d; this is subtask %d of "
                        "%d.",
                        k, p, d->subtask, d->parallelism);
        sl_error_hint(err, "Restore the job with parallelism %d.", p);
        return -1;
    }
    d->next = next;
    d->base = base;
    d->have_base = true;
    d->paced = false;
    return 0;
}

static int64_t sl__dg_skipped(sl_source *s)
{
    (void)s;
    return 0;
}

static void sl__dg_free(sl_source *s)
{
    if (!s)
        return;
    sl__datagen *d = s->impl;
    sl_free(d->cols);
    sl_free(d->scratch);
    sl_free(d);
    sl_free(s);
}

static const sl_source_ops sl__dg_ops = {
    .poll = sl__dg_poll,
    .position = sl__dg_position,
    .seek = sl__dg_seek,
    .skipped = sl__dg_skipped,
    .free = sl__dg_free,
    .end_is_final = true,
};

int sl_datagen_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    *out = NULL;
    const sl_kvlist *opts = args->options;
    sl__datagen *d = sl_calloc(1, sizeof *d);
    sl_source *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__dg_ops;
    s->impl = d;
    d->ncols = args->ncols;
    d->cols = sl_calloc((size_t)(args->ncols ? args->ncols : 1), sizeof *d->cols);
    d->subtask = args->subtask;
    d->parallelism = args->parallelism > 0 ? args->parallelism : 1;
    d->next = d->subtask;
    d->rate = SL__DG_DEFAULT_RATE;
    d->total = -1;
    d->now = sl__real_now;
    d->real_clock = true;
    d->created = args->created_nanos;
    SL_ALWAYS(d->subtask >= 0 && d->subtask < d->parallelism);

    const sl_kv *kv;
    if ((kv = sl_kvlist_find(opts, "rows-per-second"))) {
        if (sl__dg_int(kv, &d->rate, err) != 0)
            goto fail;
        if (d->rate <= 0) {
            sl__invalid_value(err, kv, false, "must be greater than 0");
            goto fail;
        }
    }
    if ((kv = sl_kvlist_find(opts, "number-of-rows"))) {
        if (sl__dg_int(kv, &d->total, err) != 0)
            goto fail;
        if (d->total < 0) {
            sl__invalid_value(err, kv, false, "must not be negative");
            goto fail;
        }
    }
    for (int c = 0; c < args->ncols; c++) {
        sl__dg_col *g = &d->cols[c];
        const char *name = args->names[c];
        g->type = args->types[c];
        kv = sl__dg_field(opts, name, "kind");
        g->seq = kv && sl_strcasecmp(kv->value, "sequence") == 0;
        if ((kv = sl__dg_field(opts, name, "null-rate"))) {
            if (sl__dg_double(kv, &g->null_rate, err) != 0)
                goto fail;
            if (g->null_rate < 0 || g->null_rate > 1) {
                sl__invalid_value(err, kv, false, "is not between 0 and 1");
                goto fail;
            }
        }
        if (g->type.not_null)
            g->null_rate = 0;
        if (g->seq) {
            uint64_t count = 0;
            if (sl__dg_setup_sequence(g, opts, name, &count, err) != 0)
                goto fail;
            if (count > 0 && (d->total < 0 || (uint64_t)d->total > count))
                d->total = (int64_t)count; /* the shortest sequence ends the table */
        } else if (sl__dg_setup_random(g, opts, name, err) != 0) {
            goto fail;
        }
    }
    *out = s;
    return 0;
fail:
    sl__dg_free(s);
    return -1;
}

void sl_datagen_set_clock(sl_source *s, int64_t (*now)(void *ctx), void *ctx)
{
    SL_ALWAYS(s->ops == &sl__dg_ops);
    sl__datagen *d = s->impl;
    d->now = now ? now : sl__real_now;
    d->now_ctx = now ? ctx : NULL;
    d->real_clock = now == NULL;
}
