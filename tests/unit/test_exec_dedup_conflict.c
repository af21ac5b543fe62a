/*
** test_exec_dedup_conflict.c — conflicts in the deduplication operator
** (exec/op_dedup.c, keep first): identical duplicates silent; a differing
** later row (or a candidate replaced by an earlier row) counted and, with a
** side output, emitted once in the canonical layout (job, operator,
** conflict_key, stored_row, conflicting_row, event_time, arrived_at) — the
** JSON read back with Jansson, an independent parser; late rows late only;
** the stored row NULL when only its hash is kept; snapshot -> restore keeps
** the hashes, the rows and the count; a version 2 snapshot (no hashes) still
** restores; keep-last and normalize never conflict; many keys against a
** reference count; more conflicts than one chunk holds. A keep-first by
** event time with both side outputs: its late rows onto the late one (the
** canonical late layout, the row's JSON without the ignored columns), its
** conflicts onto the other.
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MS 1000000LL /* ns per ms */

static sl_type types[4];
static const char *const col_names[4] = {"k", "n", "ts", "v"};
static const int key_k[] = {0};

static void init_types(void)
{
    types[0] = sl_type_make_p(SL_TYPE_VARCHAR, 10, 0); /* k */
    types[1] = sl_type_make(SL_TYPE_INT);              /* n */
    types[2] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);/* ts */
    types[3] = sl_type_make(SL_TYPE_BIGINT);           /* v */
}

static int64_t fake_now = 1700000000123456789LL;
static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

/* The conflict rows the side output received, as their 7 columns. */
typedef struct side_rows {
    int n;
    char *cols[4096][7]; /* text (NULL = NULL) */
} side_rows;

static int side_fn(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    side_rows *s = ctx;
    REQUIRE(c->ncols == SL_DEDUP_CONFLICT_NCOLS && c->nrows > 0 && c->nrows <= SL_CHUNK_ROWS);
    sl_type want[SL_DEDUP_CONFLICT_NCOLS];
    sl_dedup_conflict_types(want);
    for (int i = 0; i < SL_DEDUP_CONFLICT_NCOLS; i++)
        CHECK(sl_type_equal(c->cols[i].type, want[i]));
    for (int r = 0; r < c->nrows; r++) {
        REQUIRE(s->n < 4096);
        CHECK(c->kinds[r] == SL_ROW_INSERT);
        for (int i = 0; i < SL_DEDUP_CONFLICT_NCOLS; i++) {
            sl_strbuf sb = SL_STRBUF_INIT;
            bool ok = sl_value_format(&sb, &c->cols[i], r);
            s->cols[s->n][i] = ok ? strdup(sl_strbuf_cstr(&sb)) : NULL;
            sl_strbuf_free(&sb);
        }
        s->n++;
    }
    return 0;
}

static void side_clear(side_rows *s)
{
    for (int r = 0; r < s->n; r++)
        for (int i = 0; i < SL_DEDUP_CONFLICT_NCOLS; i++)
            free(s->cols[r][i]);
    s->n = 0;
}

static const bool *g_ignore; /* the spec's ignore (columns left out of the comparison) */

static sl_operator *make(bool keep_first, int order_col, bool keep_rows, side_rows *side)
{
    init_types();
    sl_dedup_spec spec = {4,     types,    1,          key_k, order_col,        keep_first,
                          0,     fake_clock, NULL,     false, col_names,            "billing",
                          "Deduplicate(k)", keep_rows, g_ignore, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_dedup_new(&spec, &op, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    if (op && side)
        op->side[SL_SIDE_CONFLICTS] = (sl_emit){side_fn, side};
    return rc == 0 ? op : NULL;
}

static int discard(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    int *n = ctx;
    *n += c->nrows;
    return 0;
}

static int emitted; /* rows the operator emitted (main output) */

static void row(sl_chunk *c, const char *k, int64_t n, int64_t ts_ms, int64_t v)
{
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_str(c, 0, r, k, strlen(k));
    sl_chunk_set_i64(c, 1, r, n);
    sl_chunk_set_i64(c, 2, r, ts_ms * MS);
    sl_chunk_set_i64(c, 3, r, v);
}

static void run(sl_operator *op, sl_chunk *c)
{
    sl_emit em = {discard, &emitted};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->process(op, c, &em, &err);
    if (rc != 0)
        fprintf(stderr, "process: %s\n", err.message);
    CHECK(rc == 0);
    sl_error_reset(&err);
    sl_chunk_reset(c);
}

static void adv(sl_operator *op, int64_t wm_ms)
{
    sl_emit em = {discard, &emitted};
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->watermark(op, wm_ms * MS, &em, &err) == 0);
    sl_error_reset(&err);
}

/* Member m of the JSON object text j, as compact JSON text ("" when j is
** not an object with m). */
static const char *member(const char *j, const char *m)
{
    static char buf[256];
    buf[0] = 0;
    json_error_t e;
    json_t *o = j ? json_loads(j, 0, &e) : NULL;
    json_t *v = json_object_get(o, m);
    if (v) {
        char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        snprintf(buf, sizeof buf, "%s", t);
        free(t);
    }
    json_decref(o);
    return buf;
}

/* The number of members of the JSON object text j (-1: not an object). */
static int members(const char *j)
{
    json_error_t e;
    json_t *o = j ? json_loads(j, 0, &e) : NULL;
    int n = json_is_object(o) ? (int)json_object_size(o) : -1;
    json_decref(o);
    return n;
}

static void snapshot(sl_operator *op, sl_strbuf *s)
{
    sl_error err = SL_ERROR_INIT;
    sl_strbuf_reset(s);
    CHECK(op->ops->snapshot(op, s, &err) == 0);
    sl_error_reset(&err);
}

static int restore(sl_operator *op, const sl_strbuf *s)
{
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->restore(op, s->buf, s->len, &err);
    if (rc != 0)
        fprintf(stderr, "restore: %s\n", err.message);
    sl_error_reset(&err);
    return rc;
}

/* Keep first in arrival order: the first row is kept whole. */
static void t_arrival(void)
{
    side_rows *side = calloc(1, sizeof *side);
    sl_operator *op = make(true, -1, false, side);
    REQUIRE(op);
    sl_chunk *c = sl_chunk_new(4, types, SL_CHUNK_ROWS);
    emitted = 0;
    row(c, "a", 1, 1000, 10);
    row(c, "a", 1, 1000, 10); /* a producer retry: identical, silent */
    row(c, "b", 2, 1000, 20);
    row(c, "a", 1, 1000, 11); /* same key, other amount: a conflict */
    row(c, "a", 1, 1000, 10); /* identical again */
    row(c, "a", 1, 1000, 11); /* differs from the kept row again: a second conflict */
    row(c, "b", 2, 2000, 20); /* only the time differs: a conflict too */
    run(op, c);
    CHECK_INT(emitted, 2);
    CHECK_INT(op->ops->conflicts(op), 3);
    REQUIRE(side->n == 3);
    CHECK_STR(side->cols[0][0], "billing");
    CHECK_STR(side->cols[0][1], "Deduplicate(k)");
    CHECK_INT(members(side->cols[0][2]), 1);
    CHECK_STR(member(side->cols[0][2], "k"), "\"a\"");
    CHECK_INT(members(side->cols[0][3]), 4);
    CHECK_STR(member(side->cols[0][3], "v"), "10");
    CHECK_STR(member(side->cols[0][3], "ts"), "\"1970-01-01 00:00:01.000\"");
    CHECK_STR(member(side->cols[0][4], "v"), "11");
    CHECK_STR(member(side->cols[0][4], "n"), "1");
    CHECK(side->cols[0][5] == NULL); /* no order column: no event time */
    CHECK_STR(side->cols[0][6], "2023-11-14 22:13:20.123"); /* the clock, in ms */
    CHECK_STR(member(side->cols[2][2], "k"), "\"b\"");
    CHECK_STR(member(side->cols[2][3], "ts"), "\"1970-01-01 00:00:01.000\"");
    CHECK_STR(member(side->cols[2][4], "ts"), "\"1970-01-01 00:00:02.000\"");
    /* Without a side output conflicts are counted all the same. */
    op->side[SL_SIDE_CONFLICTS] = (sl_emit){NULL, NULL};
    row(c, "b", 3, 1000, 20);
    run(op, c);
    CHECK_INT(op->ops->conflicts(op), 4);
    CHECK_INT(side->n, 3);
    side_clear(side);
    free(side);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* An ignored column (a PROCTIME() column: the arrival time, different for
** every retry) is neither compared nor in the JSON: in arrival order, and by
** event time with the emitted row kept whole or as its hash, also after a
** snapshot and restore. */
static void t_ignore(void)
{
    static const bool ignore_n[4] = {false, true, false, false};
    g_ignore = ignore_n;
    for (int mode = 0; mode < 3; mode++) {
        side_rows *side = calloc(1, sizeof *side);
        int order_col = mode == 0 ? -1 : 2;
        sl_operator *op = make(true, order_col, mode == 2, side);
        REQUIRE(op);
        sl_chunk *c = sl_chunk_new(4, types, SL_CHUNK_ROWS);
        row(c, "a", 1, 1000, 10);
        run(op, c);
        adv(op, 1000);
        sl_strbuf snap = SL_STRBUF_INIT;
        snapshot(op, &snap);
        op->ops->free(op);
        op = make(true, order_col, mode == 2, side);
        REQUIRE(op);
        CHECK(restore(op, &snap) == 0);
        sl_strbuf_free(&snap);
        row(c, "a", 2, 1000, 10); /* a retry arriving later: only n differs, silent */
        row(c, "a", 3, 1000, 12); /* another amount: a conflict */
        run(op, c);
        CHECK_INT(op->ops->conflicts(op), 1);
        REQUIRE(side->n == 1);
        CHECK_INT(members(side->cols[0][4]), 3); /* k, ts, v: not n */
        CHECK_STR(member(side->cols[0][4], "v"), "12");
        CHECK_STR(member(side->cols[0][4], "n"), "");
        if (mode != 1) /* the stored row is kept whole */
            CHECK_INT(members(side->cols[0][3]), 3);
        side_clear(side);
        free(side);
        sl_chunk_free(c);
        op->ops->free(op);
    }
    g_ignore = NULL;
}

/* Keep first by event time: candidates, replacement, emitted keys (hash or
** row), late rows. */
static void t_by_time(void)
{
    for (int keep_rows = 0; keep_rows < 2; keep_rows++) {
        side_rows *side = calloc(1, sizeof *side);
        sl_operator *op = make(true, 2, keep_rows, side);
        REQUIRE(op);
        sl_chunk *c = sl_chunk_new(4, types, SL_CHUNK_ROWS);
        emitted = 0;
        row(c, "a", 1, 1000, 1);
        row(c, "a", 1, 500, 2);  /* earlier: replaces the candidate, which differs */
        row(c, "a", 1, 500, 2);  /* identical to the candidate */
        row(c, "a", 1, 1000, 1); /* a later retry of the replaced row: differs from the kept */
        row(c, "b", 1, 800, 5);
        row(c, "b", 1, 700, 5);  /* earlier and other time: the candidate replaced, differing */
        row(c, "c", 1, 900, 7);
        row(c, "c", 1, 900, 7);  /* identical candidate retry */
        run(op, c);
        CHECK_INT(op->ops->conflicts(op), 3);
        REQUIRE(side->n == 3);
        /* The replaced candidate is the conflicting row; the new one is kept. */
        CHECK_STR(member(side->cols[0][3], "v"), "2");
        CHECK_STR(member(side->cols[0][4], "v"), "1");
        CHECK_STR(side->cols[0][5], "1970-01-01 00:00:01.000");
        CHECK_STR(member(side->cols[1][3], "v"), "2");
        CHECK_STR(member(side->cols[1][4], "v"), "1");
        CHECK_STR(member(side->cols[2][3], "ts"), "\"1970-01-01 00:00:00.700\"");
        CHECK_STR(member(side->cols[2][4], "ts"), "\"1970-01-01 00:00:00.800\"");
        adv(op, 500);
        CHECK_INT(emitted, 1);
        side_clear(side);
        /* An identical retry of an emitted row is late unless its time is the
        ** watermark's: then it is compared (hash or row). */
        row(c, "a", 1, 500, 2);  /* identical to the emitted row: silent */
        row(c, "a", 1, 1500, 9); /* differs from the emitted row */
        row(c, "a", 1, 200, 8);  /* late: late only, not a conflict */
        run(op, c);
        CHECK_INT(op->ops->conflicts(op), 4);
        CHECK_INT(op->ops->late_rows(op), 1);
        REQUIRE(side->n == 1);
        CHECK_STR(member(side->cols[0][4], "v"), "9");
        if (keep_rows)
            CHECK_STR(member(side->cols[0][3], "v"), "2");
        else
            CHECK(side->cols[0][3] == NULL); /* only the hash is kept */
        CHECK_STR(side->cols[0][5], "1970-01-01 00:00:01.500");
        row(c, "d", 1, 1000, 4);
        run(op, c);
        adv(op, 1000);
        CHECK_INT(emitted, 4);

        /* Snapshot -> restore: hashes, rows and count survive. */
        sl_strbuf s = SL_STRBUF_INIT;
        snapshot(op, &s);
        sl_operator *again = make(true, 2, keep_rows, side);
        REQUIRE(again);
        CHECK(restore(again, &s) == 0);
        CHECK_INT(again->ops->conflicts(again), 4);
        side_clear(side);
        row(c, "d", 1, 1000, 4); /* identical: silent */
        row(c, "c", 1, 1900, 7); /* differs: counted */
        run(again, c);
        CHECK_INT(again->ops->conflicts(again), 5);
        REQUIRE(side->n == 1);
        CHECK_STR(member(side->cols[0][2], "k"), "\"c\"");
        if (keep_rows)
            CHECK_STR(member(side->cols[0][3], "ts"), "\"1970-01-01 00:00:00.900\"");
        else
            CHECK(side->cols[0][3] == NULL);
        /* A snapshot taken with rows restores into an operator keeping hashes only. */
        if (keep_rows) {
            sl_operator *hashes = make(true, 2, false, side);
            REQUIRE(hashes);
            CHECK(restore(hashes, &s) == 0);
            side_clear(side);
            row(c, "d", 1, 1000, 4);
            row(c, "d", 1, 1001, 4);
            run(hashes, c);
            CHECK_INT(hashes->ops->conflicts(hashes), 5);
            REQUIRE(side->n == 1);
            CHECK(side->cols[0][3] == NULL);
            hashes->ops->free(hashes);
        }
        sl_strbuf_free(&s);
        side_clear(side);
        free(side);
        sl_chunk_free(c);
        op->ops->free(op);
        again->ops->free(again);
    }
}

/* The late rows the late side output received, as their 8 columns. */
typedef struct late_rows {
    int n;
    char *cols[64][SL_LATE_NCOLS]; /* text (NULL = NULL) */
} late_rows;

static int late_fn(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    late_rows *s = ctx;
    REQUIRE(c->ncols == SL_LATE_NCOLS);
    for (int r = 0; r < c->nrows; r++) {
        REQUIRE(s->n < 64);
        CHECK(c->kinds[r] == SL_ROW_INSERT);
        for (int i = 0; i < SL_LATE_NCOLS; i++) {
            sl_strbuf sb = SL_STRBUF_INIT;
            bool ok = sl_value_format(&sb, &c->cols[i], r);
            s->cols[s->n][i] = ok ? strdup(sl_strbuf_cstr(&sb)) : NULL;
            sl_strbuf_free(&sb);
        }
        s->n++;
    }
    return 0;
}

/* Keep first by event time with both side outputs, an ignored column n: a
** late row goes to the late one (never a conflict), a differing later row
** to the conflicts'; without a late side output late rows are only counted. */
static void t_late_side(void)
{
    static const bool ignore_n[4] = {false, true, false, false};
    g_ignore = ignore_n;
    side_rows *side = calloc(1, sizeof *side);
    late_rows *late = calloc(1, sizeof *late);
    sl_operator *op = make(true, 2, false, side);
    REQUIRE(op);
    op->side[SL_SIDE_LATE] = (sl_emit){late_fn, late};
    sl_chunk *c = sl_chunk_new(4, types, SL_CHUNK_ROWS);
    emitted = 0;
    row(c, "a", 1, 1000, 1);
    run(op, c);
    adv(op, 1000);
    CHECK_INT(emitted, 1);
    row(c, "a", 2, 200, 8);  /* late (and other values): late only */
    row(c, "b", 3, 300, 5);  /* late, a new key */
    row(c, "a", 4, 1500, 9); /* differs from the emitted row: a conflict */
    row(c, "c", 5, 2000, 6); /* a candidate */
    run(op, c);
    CHECK_INT(op->ops->late_rows(op), 2);
    CHECK_INT(op->ops->conflicts(op), 1);
    REQUIRE(side->n == 1);
    CHECK_STR(member(side->cols[0][4], "v"), "9");
    REQUIRE(late->n == 2);
    CHECK(late->cols[0][SL_SIDE_JOB] == NULL); /* job, operator, arrived_at: the runtime's */
    CHECK(late->cols[0][SL_SIDE_ARRIVED_AT] == NULL);
    CHECK_STR(late->cols[0][2], "1970-01-01 00:00:00.200"); /* event time: the order column */
    CHECK_STR(late->cols[0][3], "1970-01-01 00:00:01.000"); /* the watermark it missed */
    CHECK(late->cols[0][4] == NULL && late->cols[0][5] == NULL); /* no window */
    CHECK_INT(members(late->cols[0][7]), 3); /* k, ts, v: not the ignored n */
    CHECK_STR(member(late->cols[0][7], "k"), "\"a\"");
    CHECK_STR(member(late->cols[0][7], "v"), "8");
    CHECK_STR(member(late->cols[0][7], "n"), "");
    CHECK_STR(late->cols[1][2], "1970-01-01 00:00:00.300");
    CHECK_STR(member(late->cols[1][7], "k"), "\"b\"");
    /* Without the late side output a late row is counted all the same. */
    op->side[SL_SIDE_LATE] = (sl_emit){NULL, NULL};
    row(c, "d", 6, 100, 1);
    run(op, c);
    CHECK_INT(op->ops->late_rows(op), 3);
    CHECK_INT(late->n, 2);
    adv(op, 3000);
    CHECK_INT(emitted, 2); /* a and c: no late row came through */
    for (int r = 0; r < late->n; r++)
        for (int i = 0; i < SL_LATE_NCOLS; i++)
            free(late->cols[r][i]);
    free(late);
    side_clear(side);
    free(side);
    sl_chunk_free(c);
    op->ops->free(op);
    g_ignore = NULL;
}

static void put_u32(sl_strbuf *s, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        sl_strbuf_append_char(s, (char)(v >> (8 * i)));
}

static void put_u64(sl_strbuf *s, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        sl_strbuf_append_char(s, (char)(v >> (8 * i)));
}

/* A version 2 snapshot (no hashes, no count) still restores: its emitted
** keys cannot be compared, so their later rows stay silent. */
static void t_restore_v2(void)
{
    init_types();
    sl_strbuf s = SL_STRBUF_INIT;
    sl_strbuf_append(&s, "SLDEDUP2");
    put_u32(&s, 4);
    put_u32(&s, 1);
    sl_strbuf_append_char(&s, 1); /* keep first */
    for (int i = 0; i < 4; i++)
        sl_strbuf_append_char(&s, (char)sl_phys_of(types[i]));
    put_u64(&s, (uint64_t)(2000 * MS)); /* watermark */
    put_u64(&s, 3);                     /* late rows */
    put_u64(&s, 1);                     /* one entry: a's emitted key */
    sl_strbuf_append_char(&s, 2);
    put_u64(&s, 0);
    put_u32(&s, 6);                     /* key: not NULL, u32 len 1, "a" */
    sl_strbuf_append_char(&s, 0);
    put_u32(&s, 1);
    sl_strbuf_append_char(&s, 'a');
    put_u64(&s, sl_hash_bytes(s.buf, s.len, SL_HASH_INIT));
    side_rows *side = calloc(1, sizeof *side);
    sl_operator *op = make(true, 2, true, side);
    REQUIRE(op);
    CHECK(restore(op, &s) == 0);
    CHECK_INT(op->ops->conflicts(op), 0);
    CHECK_INT(op->ops->late_rows(op), 3);
    sl_chunk *c = sl_chunk_new(4, types, SL_CHUNK_ROWS);
    emitted = 0;
    row(c, "a", 1, 3000, 1); /* a's row went out before: nothing to compare with */
    row(c, "b", 1, 3000, 1);
    row(c, "b", 1, 3000, 2); /* a new key compares as usual */
    run(op, c);
    CHECK_INT(op->ops->conflicts(op), 1);
    CHECK_INT(side->n, 1);
    sl_strbuf r = SL_STRBUF_INIT;
    snapshot(op, &r);
    CHECK(r.len > 8 && memcmp(r.buf, "SLDEDUP4", 8) == 0);
    sl_operator *again = make(true, 2, true, side);
    REQUIRE(again);
    CHECK(restore(again, &r) == 0);
    CHECK_INT(again->ops->conflicts(again), 1);
    CHECK_INT(again->ops->late_rows(again), 3);
    sl_strbuf_free(&s);
    sl_strbuf_free(&r);
    side_clear(side);
    free(side);
    sl_chunk_free(c);
    op->ops->free(op);
    again->ops->free(again);
}

/* Keep last and normalize replace: no conflicts. */
static void t_no_conflicts(void)
{
    side_rows *side = calloc(1, sizeof *side);
    for (int mode = 0; mode < 3; mode++) {
        sl_operator *op = NULL;
        if (mode < 2) {
            op = make(false, mode ? 2 : -1, false, side);
        } else {
            sl_dedup_spec spec = {4,     types, 1,     key_k, -1,   false, 0,
                                  fake_clock, NULL, true, col_names, "j",  NULL,  false, NULL, false, false};
            sl_error err = SL_ERROR_INIT;
            CHECK(sl_dedup_new(&spec, &op, &err) == 0);
            if (op)
                op->side[SL_SIDE_CONFLICTS] = (sl_emit){side_fn, side};
        }
        REQUIRE(op);
        sl_chunk *c = sl_chunk_new(4, types, SL_CHUNK_ROWS);
        row(c, "a", 1, 1000, 1);
        row(c, "a", 1, 2000, 2);
        row(c, "a", 1, 2000, 2);
        run(op, c);
        CHECK_INT(op->ops->conflicts(op), 0);
        CHECK_INT(side->n, 0);
        sl_chunk_free(c);
        op->ops->free(op);
    }
    free(side);
}

static uint64_t rnd_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* Many keys in arrival order against a reference: the first row per key
** kept; every later row differing from it one conflict, its key and both
** versions in the side output; more conflicts than a chunk holds. */
static void t_reference(void)
{
    enum { NKEYS = 300, NROWS = 20000 };
    side_rows *side = calloc(1, sizeof *side);
    sl_operator *op = make(true, -1, false, side);
    REQUIRE(op);
    sl_chunk *c = sl_chunk_new(4, types, SL_CHUNK_ROWS);
    static int64_t first_v[NKEYS];
    static bool seen[NKEYS];
    static int per_key[NKEYS];
    int64_t expect = 0;
    int checked = 0;
    for (int i = 0; i < NROWS; i++) {
        int k = (int)(rnd() % NKEYS);
        int64_t v = (int64_t)(rnd() % 3); /* a third identical to any given row */
        char key[16];
        snprintf(key, sizeof key, "k%d", k);
        row(c, key, k, 1000, v);
        if (!seen[k]) {
            seen[k] = true;
            first_v[k] = v;
        } else if (v != first_v[k]) {
            expect++;
            per_key[k]++;
        }
        if (c->nrows == c->cap || i == NROWS - 1) {
            run(op, c);
            /* Check the side rows, then forget them. */
            for (int r = 0; r < side->n; r++) {
                int kk = -1;
                CHECK(sscanf(member(side->cols[r][2], "k"), "\"k%d\"", &kk) == 1);
                REQUIRE(kk >= 0 && kk < NKEYS);
                long long sv = -1, cv = -1;
                CHECK(sscanf(member(side->cols[r][3], "v"), "%lld", &sv) == 1);
                CHECK(sscanf(member(side->cols[r][4], "v"), "%lld", &cv) == 1);
                CHECK(sv == first_v[kk] && cv != sv);
                per_key[kk]--;
                checked++;
            }
            side_clear(side);
        }
    }
    CHECK(op->ops->conflicts(op) == expect);
    CHECK(checked == expect && expect > 1000);
    for (int k = 0; k < NKEYS; k++)
        CHECK_INT(per_key[k], 0);
    free(side);
    sl_chunk_free(c);
    op->ops->free(op);
}

SL_TESTS(t_arrival, t_ignore, t_by_time, t_late_side, t_restore_v2, t_no_conflicts,
         t_reference)
