/*
** test_connectors_roundtrip.c — property test: what a sink writes, the
** source reads back equal, for every format and every type.
**
** Rows are generated from a fixed seed: one all-NULL row, one of each
** type's minimum and one of its maximum, then random rows in which every
** value is NULL, an edge case or a random value — NULL vs the empty string,
** quotes, backslashes, delimiters, CR, LF, CRLF, NUL bytes, multi-byte
** UTF-8, '#', the null literals' texts; dates 0000-01-01 and 9999-12-31;
** TIME(0/9) and TIMESTAMP / TIMESTAMP_LTZ(0/3/9) at the ends of their range;
** DECIMAL(10, 2), (38, 0), (38, 10), (38, 38) at +-(10^p - 1); -0.0, NaN,
** the infinities, the largest, smallest and subnormal FLOAT / DOUBLE;
** BIGINT min/max; random bytes. Equality is exact: NULL vs empty, -0.0 vs
** 0.0 (NaN equals NaN).
**
** Each format (json with both timestamp standards and decimal spellings;
** csv with the defaults, with ';' + escape + '\N' + comments, with quoting
** disabled, with tab and "'"; raw for each of its types and both byte
** orders) goes
**   - through its codec: encode -> decode (as a Kafka message: raw's NULL
**     is a null record), thousands of rows;
**   - through the real filesystem sink (committed part file) and the real
**     filesystem source (tiny read blocks, so records straddle them).
** For raw in a file, the values a line cannot carry (a '\n' byte, a
** trailing '\r', a NULL string or bytes) must be refused by the sink with
** 22023, and all the others read back equal.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filesystem/fs_int.h"
#include "sl_connector.h"
#include "sl_test.h"

/* ------------------------------------------------------------------------
** The table: one column of every type (several precisions).
*/
enum { B, TI, SI, I, BI, F, D, DEC, D38, BIG, TINYD, S, C, BIN, DT, TM0, TM9, TS0, TS3, TS9,
       LTZ3, LTZ9, NCOLS };
static const char *const cnames[NCOLS] = {"b",   "ti",  "si",  "i",   "bi",  "f",   "d",   "dec",
                                         "d38", "big", "tny", "s",   "c",   "bin", "dt",  "tm0",
                                         "tm9", "ts0", "ts3", "ts9", "lz3", "lz9"};
static sl_type types[NCOLS];

static void init_types(void)
{
    types[B] = sl_type_make(SL_TYPE_BOOLEAN);
    types[TI] = sl_type_make(SL_TYPE_TINYINT);
    types[SI] = sl_type_make(SL_TYPE_SMALLINT);
    types[I] = sl_type_make(SL_TYPE_INT);
    types[BI] = sl_type_make(SL_TYPE_BIGINT);
    types[F] = sl_type_make(SL_TYPE_FLOAT);
    types[D] = sl_type_make(SL_TYPE_DOUBLE);
    types[DEC] = sl_type_make_p(SL_TYPE_DECIMAL, 10, 2);
    types[D38] = sl_type_make_p(SL_TYPE_DECIMAL, 38, 0);
    types[BIG] = sl_type_make_p(SL_TYPE_DECIMAL, 38, 10);
    types[TINYD] = sl_type_make_p(SL_TYPE_DECIMAL, 38, 38);
    types[S] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    types[C] = sl_type_make_p(SL_TYPE_CHAR, 3, 0);
    types[BIN] = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    types[DT] = sl_type_make(SL_TYPE_DATE);
    types[TM0] = sl_type_make_p(SL_TYPE_TIME, 0, 0);
    types[TM9] = sl_type_make_p(SL_TYPE_TIME, 9, 0);
    types[TS0] = sl_type_make_p(SL_TYPE_TIMESTAMP, 0, 0);
    types[TS3] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    types[TS9] = sl_type_make_p(SL_TYPE_TIMESTAMP, 9, 0);
    types[LTZ3] = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
    types[LTZ9] = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 9, 0);
}

/* ------------------------------------------------------------------------
** Values.
*/
static uint64_t seed;

static uint64_t rnd(void) /* xorshift64* */
{
    seed ^= seed >> 12;
    seed ^= seed << 25;
    seed ^= seed >> 27;
    return seed * 0x2545F4914F6CDD1DULL;
}

static int64_t rnd_range(int64_t lo, int64_t hi) /* lo..hi inclusive */
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    uint64_t r = span == UINT64_MAX ? rnd() : rnd() % (span + 1);
    return (int64_t)((uint64_t)lo + r);
}

static sl_i128 pow10_128(int p)
{
    sl_i128 v = 1;
    for (int i = 0; i < p; i++)
        v *= 10;
    return v;
}

/* Pieces random strings are made of: every character that matters to some
** format, and multi-byte UTF-8. */
static const char *const pieces[] = {
    "a", "Z", "0", " ", "\n", "\r", "\r\n", "\"", "\"\"", "'", ",", ";", "\t", "\\", "\\N",
    "#", "null", "NULL", "N/A", "\0", "\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80",
    "{", "}", "[", "]", ":", "\x7f", "\xc2\x80", "\x01", "NaN", "true", "-", "1e5", "="};
/* Whole values worth trying as they are. */
static const struct {
    const char *s;
    size_t n;
} whole[] = {{"", 0},     {" ", 1},  {"null", 4}, {"NULL", 4}, {"\\N", 2},   {"#", 1},
             {"#x", 2},   {"\"", 1}, {"\"\"", 2}, {",", 1},    {"\n", 1},     {"\r", 1},
             {"\r\n", 2}, {"\0", 1}, {"x\r", 2},  {"\ra", 2},  {"a\n", 2},    {"  x  ", 5},
             {"\t", 1},   {";", 1},  {"'", 1},    {"''", 2},   {"a\0b", 3}};

static size_t piece_len(const char *p)
{
    return p[0] == 0 ? 1 : strlen(p); /* "\0" is one NUL byte */
}

static void gen_string(sl_chunk *ch, int col, int r, int kind)
{
    char buf[256];
    size_t n = 0;
    if (kind == 1) {
        size_t w = rnd() % SL_ARRAY_LEN(whole);
        n = whole[w].n;
        memcpy(buf, whole[w].s, n);
    } else {
        int k = (int)(rnd() % 7);
        for (int i = 0; i < k; i++) {
            const char *p = pieces[rnd() % SL_ARRAY_LEN(pieces)];
            size_t pl = piece_len(p);
            memcpy(buf + n, p, pl);
            n += pl;
        }
    }
    sl_chunk_set_str(ch, col, r, buf, n);
}

static void gen_bytes(sl_chunk *ch, int col, int r)
{
    static const char special[] = {0, '\n', '\r', (char)0xff, ',', '"'};
    char buf[16];
    size_t n = (size_t)(rnd() % 10);
    for (size_t i = 0; i < n; i++)
        buf[i] = rnd() % 2 ? special[rnd() % sizeof special] : (char)rnd();
    sl_chunk_set_str(ch, col, r, buf, n);
}

static int64_t int_lo(sl_type_id id)
{
    return id == SL_TYPE_TINYINT ? INT8_MIN : id == SL_TYPE_SMALLINT ? INT16_MIN
                                          : id == SL_TYPE_INT        ? INT32_MIN
                                                                     : INT64_MIN;
}

static int64_t int_hi(sl_type_id id)
{
    return id == SL_TYPE_TINYINT ? INT8_MAX : id == SL_TYPE_SMALLINT ? INT16_MAX
                                          : id == SL_TYPE_INT        ? INT32_MAX
                                                                     : INT64_MAX;
}

/* Set column col of row r: mode 0 random (NULL, edge or random), 1 the
** minimum, 2 the maximum, 3 NULL. */
static void gen_value(sl_chunk *ch, int col, int r, int mode)
{
    sl_type t = ch->cols[col].type;
    if (mode == 3 || (mode == 0 && rnd() % 8 == 0)) {
        sl_chunk_set_null(ch, col, r);
        return;
    }
    bool edge = mode != 0 || rnd() % 3 == 0;
    bool lo = mode == 1 || (mode == 0 && rnd() % 2 == 0);
    switch (t.id) {
    case SL_TYPE_BOOLEAN: sl_chunk_set_bool(ch, col, r, edge ? !lo : rnd() % 2); break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: {
        static const int64_t small[] = {0, -1, 1, 10, 13, 2570};
        int64_t v = edge ? (rnd() % 2 ? (lo ? int_lo(t.id) : int_hi(t.id))
                                      : small[rnd() % SL_ARRAY_LEN(small)])
                         : rnd_range(int_lo(t.id), int_hi(t.id));
        if (mode || v < int_lo(t.id) || v > int_hi(t.id))
            v = lo ? int_lo(t.id) : int_hi(t.id);
        sl_chunk_set_i64(ch, col, r, v);
        break;
    }
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        bool fl = t.id == SL_TYPE_FLOAT;
        double edges[] = {NAN,
                          INFINITY,
                          -INFINITY,
                          -0.0,
                          0.0,
                          fl ? FLT_MAX : DBL_MAX,
                          fl ? -FLT_MAX : -DBL_MAX,
                          fl ? FLT_TRUE_MIN : DBL_TRUE_MIN,
                          fl ? FLT_MIN : DBL_MIN,
                          fl ? (double)0.1f : 0.1,
                          1e21,
                          -1.5};
        double v;
        if (mode)
            v = lo ? edges[6] : edges[5];
        else if (edge)
            v = edges[rnd() % SL_ARRAY_LEN(edges)];
        else if (fl) {
            uint32_t bits = (uint32_t)rnd();
            float f;
            memcpy(&f, &bits, sizeof f);
            v = isnan(f) ? 1.25 : (double)f;
        } else {
            uint64_t bits = rnd();
            memcpy(&v, &bits, sizeof v);
            if (isnan(v))
                v = -2.5;
        }
        if (fl && !isnan(v))
            v = (double)(float)v; /* a FLOAT value */
        sl_chunk_set_f64(ch, col, r, v);
        break;
    }
    case SL_TYPE_DECIMAL: {
        sl_i128 max = pow10_128(t.precision) - 1;
        sl_i128 v;
        if (edge) {
            sl_i128 e[] = {max, -max, 0, 1, -1};
            v = mode ? (lo ? -max : max) : e[rnd() % 5];
        } else {
            unsigned __int128 u = ((unsigned __int128)rnd() << 64) | rnd();
            v = (sl_i128)(u % (unsigned __int128)(max + 1));
            if (rnd() % 2)
                v = -v;
        }
        sl_chunk_set_i128(ch, col, r, v);
        break;
    }
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR: gen_string(ch, col, r, edge ? 1 : 0); break;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: gen_bytes(ch, col, r); break;
    case SL_TYPE_DATE: {
        int64_t dlo = sl_days_from_civil(0, 1, 1), dhi = sl_days_from_civil(9999, 12, 31);
        sl_chunk_set_i64(ch, col, r, edge ? (lo ? dlo : dhi) : rnd_range(dlo, dhi));
        break;
    }
    case SL_TYPE_TIME: {
        int64_t v = edge ? (lo ? 0 : SL_NANOS_PER_DAY - 1) : rnd_range(0, SL_NANOS_PER_DAY - 1);
        sl_chunk_set_i64(ch, col, r, sl_time_truncate(v, t.precision));
        break;
    }
    default: { /* TIMESTAMP, TIMESTAMP_LTZ: the whole int64 range */
        int64_t v = edge ? (lo ? INT64_MIN : INT64_MAX) : (int64_t)rnd();
        sl_chunk_set_i64(ch, col, r, sl_time_truncate(v, t.precision));
        break;
    }
    }
}

/* n rows of the columns cols[0..nc) of the table: the all-NULL, minimum
** and maximum rows first, then random ones. */
static sl_chunk *gen_rows(int nc, const int *cols, int n)
{
    sl_type ts[NCOLS];
    for (int i = 0; i < nc; i++)
        ts[i] = types[cols[i]];
    sl_chunk *ch = sl_chunk_new(nc, ts, n);
    for (int k = 0; k < n; k++) {
        int r = sl_chunk_append_row(ch, SL_ROW_INSERT);
        for (int i = 0; i < nc; i++)
            gen_value(ch, i, r, k == 0 ? 3 : k == 1 ? 1 : k == 2 ? 2 : 0);
    }
    return ch;
}

/* Row ra of a equals row rb of b, exactly; else *col = the first column
** that differs. */
static bool same_row(const sl_chunk *a, int ra, const sl_chunk *b, int rb, int *col)
{
    for (int i = 0; i < a->ncols; i++) {
        const sl_vector *va = &a->cols[i], *vb = &b->cols[i];
        bool same = (va->nulls[ra] != 0) == (vb->nulls[rb] != 0);
        if (same && !va->nulls[ra]) {
            switch (va->phys) {
            case SL_PHYS_BOOL: same = (va->v.b[ra] != 0) == (vb->v.b[rb] != 0); break;
            case SL_PHYS_I64: same = va->v.i64[ra] == vb->v.i64[rb]; break;
            case SL_PHYS_F64: {
                double x = va->v.f64[ra], y = vb->v.f64[rb];
                same = (isnan(x) && isnan(y)) ||
                       (x == y && signbit(x) == signbit(y)); /* -0.0 is not 0.0 */
                break;
            }
            case SL_PHYS_I128: same = va->v.i128[ra] == vb->v.i128[rb]; break;
            case SL_PHYS_STR:
                same = va->v.str[ra].len == vb->v.str[rb].len &&
                       (va->v.str[ra].len == 0 ||
                        memcmp(va->v.str[ra].ptr, vb->v.str[rb].ptr, va->v.str[ra].len) == 0);
                break;
            }
        }
        if (!same) {
            *col = i;
            return false;
        }
    }
    return true;
}

static void show_row(const sl_chunk *c, int r, const char *what)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < c->ncols; i++) {
        if (i)
            sl_strbuf_append(&sb, " | ");
        if (!sl_value_format(&sb, &c->cols[i], r))
            sl_strbuf_append(&sb, "NULL");
    }
    fprintf(stderr, "  %s: %s\n", what, sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
}

/* ------------------------------------------------------------------------
** Formats under test.
*/
typedef struct fmt_case {
    const char *label;
    const char *opts[16]; /* key, value, ..., NULL */
} fmt_case;

static const fmt_case text_cases[] = {
    {"json", {"format", "json", NULL}},
    {"json iso plain",
     {"format", "json", "json.timestamp-format.standard", "ISO-8601",
      "json.encode.decimal-as-plain-number", "true", NULL}},
    {"csv", {"format", "csv", NULL}},
    {"csv ; escape \\N comments",
     {"format", "csv", "csv.field-delimiter", ";", "csv.escape-character", "\\",
      "csv.null-literal", "\\N", "csv.allow-comments", "true", NULL}},
    {"csv no quotes",
     {"format", "csv", "csv.disable-quote-character", "true", "csv.escape-character", "\\",
      "csv.null-literal", "\\N", NULL}},
    {"csv tab '", {"format", "csv", "csv.field-delimiter", "\\t", "csv.quote-character", "'",
                   NULL}},
};

static const int raw_cols[] = {B, TI, SI, I, BI, F, D, S, BIN};

static sl_kvlist *kv(const char *const *opts, const char *path)
{
    sl_kvlist *l = sl_kvlist_new();
    if (path) {
        sl_kvlist_add(l, "connector", "filesystem", -1, -1);
        sl_kvlist_add(l, "path", path, -1, -1);
    }
    for (int i = 0; opts[i]; i += 2)
        sl_kvlist_add(l, opts[i], opts[i + 1], -1, -1);
    return l;
}

static sl_codec *codec(const char *const *opts, int nc, const int *cols)
{
    const char *ns[NCOLS];
    sl_type ts[NCOLS];
    for (int i = 0; i < nc; i++) {
        ns[i] = cnames[cols[i]];
        ts[i] = types[cols[i]];
    }
    sl_kvlist *l = kv(opts, NULL);
    sl_error err = SL_ERROR_INIT;
    sl_codec *c = sl_codec_new(l, nc, ns, ts, &err);
    if (!c)
        fprintf(stderr, "sl_codec_new: %s\n", err.message ? err.message : "?");
    sl_error_reset(&err);
    sl_kvlist_free(l);
    REQUIRE(c != NULL);
    return c;
}

/* Can a raw value (row r of the one-column chunk) be a line of a file? */
static bool raw_line_ok(const sl_chunk *ch, int r, sl_codec *enc)
{
    const sl_vector *v = &ch->cols[0];
    if (v->phys == SL_PHYS_STR) {
        if (v->nulls[r])
            return false;
        const sl_str *s = &v->v.str[r];
        return !(s->len && (memchr(s->ptr, '\n', s->len) || s->ptr[s->len - 1] == '\r'));
    }
    if (v->nulls[r])
        return true;
    /* a fixed-size value: look at its bytes as the codec without framing writes them */
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_codec_encode(enc, ch, r, &sb, &err) == 0);
    bool ok = !(sb.len && (memchr(sb.buf, '\n', sb.len) || sb.buf[sb.len - 1] == '\r'));
    sl_strbuf_free(&sb);
    return ok;
}

/* ------------------------------------------------------------------------
** Codec level: encode -> decode, each record in a buffer of exactly its
** size (ASan catches a read past it).
*/
static int codec_roundtrip(const char *label, const char *const *opts, int nc, const int *cols,
                           int nrows)
{
    sl_codec *enc = codec(opts, nc, cols), *dec = codec(opts, nc, cols);
    sl_chunk *in = gen_rows(nc, cols, nrows);
    sl_type ts[NCOLS];
    for (int i = 0; i < nc; i++)
        ts[i] = types[cols[i]];
    sl_chunk *out = sl_chunk_new(nc, ts, nrows);
    int bad = 0;
    for (int r = 0; r < in->nrows && bad < 5; r++) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        int erc = sl_codec_encode(enc, in, r, &sb, &err);
        if (erc < 0) {
            fprintf(stderr, "%s: encode failed: %s (%s)\n", label, err.message,
                    err.detail ? err.detail : "");
            show_row(in, r, "row");
            bad++;
        } else {
            char *copy = sb.len ? malloc(sb.len) : NULL;
            if (copy)
                memcpy(copy, sb.buf, sb.len);
            const char *rec = erc == SL_CODEC_NULL_RECORD ? NULL : copy ? copy : "";
            int drc = sl_codec_decode(dec, rec, sb.len, out, &err);
            int col = -1;
            if (drc != SL_CODEC_ROW) {
                fprintf(stderr, "%s: decode gave %d: %s (%s)\n  record: %s\n", label, drc,
                        err.message ? err.message : "", err.detail ? err.detail : "",
                        sl_strbuf_cstr(&sb));
                show_row(in, r, "row");
                bad++;
            } else if (!same_row(in, r, out, out->nrows - 1, &col)) {
                fprintf(stderr, "%s: column %s differs\n  record: %s\n", label,
                        cnames[cols[col]], sl_strbuf_cstr(&sb));
                show_row(in, r, "written");
                show_row(out, out->nrows - 1, "read");
                bad++;
            }
            free(copy);
        }
        sl_strbuf_free(&sb);
        sl_error_reset(&err);
    }
    sl_chunk_free(in);
    sl_chunk_free(out);
    sl_codec_free(enc);
    sl_codec_free(dec);
    return bad;
}

static void t_codec_text_formats(void)
{
    init_types();
    int all[NCOLS];
    for (int i = 0; i < NCOLS; i++)
        all[i] = i;
    for (size_t k = 0; k < SL_ARRAY_LEN(text_cases); k++) {
        seed = 0x5eed0000 + k;
        CHECK_INT(codec_roundtrip(text_cases[k].label, text_cases[k].opts, NCOLS, all, 3000), 0);
        /* one column alone: a csv record is then a single field */
        for (int c = 0; c < NCOLS; c++)
            CHECK_INT(codec_roundtrip(text_cases[k].label, text_cases[k].opts, 1, &c, 300), 0);
    }
}

static void t_codec_raw(void)
{
    init_types();
    for (int le = 0; le < 2; le++) {
        const char *opts[] = {"format", "raw", "raw.endianness",
                              le ? "little-endian" : "big-endian", NULL};
        for (size_t k = 0; k < SL_ARRAY_LEN(raw_cols); k++) {
            seed = 0x7a110000 + k;
            CHECK_INT(codec_roundtrip("raw", opts, 1, &raw_cols[k], 3000), 0);
        }
    }
}

/* ------------------------------------------------------------------------
** Through the filesystem sink and source.
*/
static char *tmpdir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *d = sl_sprintf("%s/rt-%d/%s", base ? base : "/tmp", (int)getpid(), name);
    sl_error err = SL_ERROR_INIT;
    sl_fs_remove_tree(d, &err);
    sl_fs_mkdir_p(d, &err);
    sl_error_reset(&err);
    return d;
}

static sl_sink *fs_sink(const sl_kvlist *opts, int nc, const int *cols)
{
    const char *ns[NCOLS];
    sl_type ts[NCOLS];
    for (int i = 0; i < nc; i++) {
        ns[i] = cnames[cols[i]];
        ts[i] = types[cols[i]];
    }
    sl_sink_args a = {.options = opts, .ncols = nc, .names = ns, .types = ts,
                      .subtask = 0, .parallelism = 1, .table = "t", .job = "rt"};
    sl_sink *s = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_connector_find("filesystem")->create_sink(&a, &s, &err);
    if (rc)
        fprintf(stderr, "create_sink: %s\n", err.message);
    sl_error_reset(&err);
    REQUIRE(rc == 0);
    return s;
}

static sl_source *fs_source(const sl_kvlist *opts, int nc, const int *cols)
{
    const char *ns[NCOLS];
    sl_type ts[NCOLS];
    for (int i = 0; i < nc; i++) {
        ns[i] = cnames[cols[i]];
        ts[i] = types[cols[i]];
    }
    sl_source_args a = {.options = opts, .ncols = nc, .names = ns, .types = ts,
                        .subtask = 0, .parallelism = 1, .table = "t"};
    sl_source *s = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_connector_find("filesystem")->create_source(&a, &s, &err);
    if (rc)
        fprintf(stderr, "create_source: %s\n", err.message);
    sl_error_reset(&err);
    REQUIRE(rc == 0);
    return s;
}

/* Write the rows of in (one epoch, committed) and read them back; every
** row must come back equal and in order. Returns the number of problems. */
static int fs_roundtrip(const char *label, const char *const *opts, int nc, const int *cols,
                        sl_chunk *in)
{
    char *d = tmpdir("t");
    sl_kvlist *o = kv(opts, d);
    sl_sink *snk = fs_sink(o, nc, cols);
    sl_error err = SL_ERROR_INIT;
    sl_strbuf com = SL_STRBUF_INIT;
    int bad = 0;
    if (snk->ops->begin(snk, 1, &err) != 0 || snk->ops->write(snk, in, &err) != 0 ||
        snk->ops->pre_commit(snk, 1, &com, &err) != 0 ||
        snk->ops->commit(snk, com.buf ? com.buf : "", com.len, &err) != 0) {
        fprintf(stderr, "%s: the sink failed: %s (%s)\n", label, err.message,
                err.detail ? err.detail : "");
        bad++;
    }
    snk->ops->free(snk);
    sl_error_reset(&err);
    sl_source *src = fs_source(o, nc, cols);
    sl_type ts[NCOLS];
    for (int i = 0; i < nc; i++)
        ts[i] = types[cols[i]];
    int next = 0, rc = SL_SOURCE_MORE;
    for (int polls = 0; rc == SL_SOURCE_MORE && polls < 100000 && !bad; polls++) {
        sl_chunk *out = sl_chunk_new(nc, ts, 37);
        rc = src->ops->poll(src, out, &err);
        if (rc < 0) {
            fprintf(stderr, "%s: the source failed: %s (%s)\n", label, err.message,
                    err.detail ? err.detail : "");
            bad++;
        }
        for (int r = 0; r < out->nrows && bad < 5; r++, next++) {
            int col = -1;
            if (next >= in->nrows) {
                fprintf(stderr, "%s: more rows read than written\n", label);
                show_row(out, r, "extra");
                bad++;
            } else if (!same_row(in, next, out, r, &col)) {
                fprintf(stderr, "%s: row %d, column %s differs\n", label, next,
                        cnames[cols[col]]);
                show_row(in, next, "written");
                show_row(out, r, "read");
                bad++;
            }
        }
        sl_chunk_free(out);
    }
    if (!bad && next != in->nrows) {
        fprintf(stderr, "%s: %d rows read, %d written\n", label, next, in->nrows);
        bad++;
    }
    CHECK_INT(rc, bad ? rc : SL_SOURCE_END);
    sl_error_reset(&err);
    src->ops->free(src);
    sl_strbuf_free(&com);
    sl_kvlist_free(o);
    sl_free(d);
    return bad;
}

static void t_files_text_formats(void)
{
    init_types();
    int all[NCOLS];
    for (int i = 0; i < NCOLS; i++)
        all[i] = i;
    size_t block = sl__fs_block_size;
    for (size_t k = 0; k < SL_ARRAY_LEN(text_cases); k++) {
        seed = 0xf11e0000 + k;
        sl__fs_block_size = k % 2 ? 7 : 4096; /* records straddle read blocks */
        sl_chunk *in = gen_rows(NCOLS, all, 1500);
        CHECK_INT(fs_roundtrip(text_cases[k].label, text_cases[k].opts, NCOLS, all, in), 0);
        sl_chunk_free(in);
        for (int c = 0; c < NCOLS; c++) { /* one column: a csv NULL is an empty line */
            in = gen_rows(1, &c, 200);
            CHECK_INT(fs_roundtrip(text_cases[k].label, text_cases[k].opts, 1, &c, in), 0);
            sl_chunk_free(in);
        }
    }
    sl__fs_block_size = block;
}

/* Raw in files: the representable values read back equal; each of the
** others is refused by the sink with 22023 (and nothing is written). */
static void t_files_raw(void)
{
    init_types();
    size_t block = sl__fs_block_size;
    sl__fs_block_size = 5;
    int refused = 0;
    for (int le = 0; le < 2; le++) {
        const char *opts[] = {"format", "raw", "raw.endianness",
                              le ? "little-endian" : "big-endian", NULL};
        for (size_t k = 0; k < SL_ARRAY_LEN(raw_cols); k++) {
            seed = 0xf4a00000 + k + 100 * (size_t)le;
            const int *col = &raw_cols[k];
            sl_chunk *all = gen_rows(1, col, 600);
            sl_chunk *ok = sl_chunk_new(1, &all->cols[0].type, all->nrows);
            sl_codec *plain = codec(opts, 1, col);
            for (int r = 0; r < all->nrows; r++) {
                if (raw_line_ok(all, r, plain)) {
                    sl_chunk_copy_row(ok, all, r);
                    continue;
                }
                /* refused, alone in a chunk */
                sl_chunk *one = sl_chunk_new(1, &all->cols[0].type, 1);
                sl_chunk_copy_row(one, all, r);
                char *d = tmpdir("refused");
                sl_kvlist *o = kv(opts, d);
                sl_sink *snk = fs_sink(o, 1, col);
                sl_error err = SL_ERROR_INIT;
                CHECK_INT(snk->ops->begin(snk, 1, &err), 0);
                CHECK_INT(snk->ops->write(snk, one, &err), -1);
                CHECK_STR(err.sqlstate, "22023");
                CHECK_STR(err.message, "cannot write raw record");
                refused++;
                snk->ops->free(snk);
                sl_error_reset(&err);
                sl_kvlist_free(o);
                sl_free(d);
                sl_chunk_free(one);
            }
            CHECK_INT(fs_roundtrip("raw file", opts, 1, col, ok), 0);
            sl_codec_free(plain);
            sl_chunk_free(ok);
            sl_chunk_free(all);
        }
    }
    CHECK(refused > 100); /* the generator does produce such values */
    sl__fs_block_size = block;
}

/* A date json and csv could not read back (beyond 0000-01-01 .. 9999-12-31;
** the evaluator refuses to make one, this is the codecs' own guard). */
static void t_dates_out_of_range(void)
{
    init_types();
    int col = DT;
    const char *const fmts[][3] = {{"format", "json", NULL}, {"format", "csv", NULL}};
    const int64_t days[] = {2932897, -719529};
    const char *const want[] = {"field \"dt\": the date +10000-01-01 is outside 0000-01-01 .. "
                                "9999-12-31",
                                "field \"dt\": the date -0001-12-31 is outside 0000-01-01 .. "
                                "9999-12-31"};
    for (int f = 0; f < 2; f++) {
        sl_codec *c = codec(fmts[f], 1, &col);
        sl_chunk *ch = sl_chunk_new(1, &types[DT], 2);
        for (int k = 0; k < 2; k++) {
            int r = sl_chunk_append_row(ch, SL_ROW_INSERT);
            sl_chunk_set_i64(ch, 0, r, days[k]);
            sl_strbuf sb = SL_STRBUF_INIT;
            sl_error err = SL_ERROR_INIT;
            CHECK_INT(sl_codec_encode(c, ch, r, &sb, &err), -1);
            CHECK_STR(err.sqlstate, "22023");
            CHECK_STR(err.message, f ? "cannot write CSV record" : "cannot write JSON record");
            CHECK_STR(err.detail, want[k]);
            CHECK(sb.len == 0);
            sl_strbuf_free(&sb);
            sl_error_reset(&err);
        }
        sl_chunk_free(ch);
        sl_codec_free(c);
    }
}

SL_TESTS(t_dates_out_of_range, t_codec_text_formats, t_codec_raw, t_files_text_formats, t_files_raw)
