/*
** test_exec_window.c — the window table function operator (exec/op_window.c):
** TUMBLE / HOP / CUMULATE window assignment against a brute-force reference
** written here (enumerate every candidate window on the aligned grid and
** test membership), offsets, timestamps before 1970, rows exactly on a
** boundary, output types, row kinds, NULL times, and chunk expansion
** beyond SL_CHUNK_ROWS.
*/
#include "sl_exec.h"
#include "sl_parser.h"
#include "sl_test.h"

#include <stdint.h>

#define MS 1000000LL /* ns per ms */
#define MAXW 4096   /* most windows per row in these tests */

typedef struct win {
    int64_t id;   /* input id column */
    int kind;     /* row kind */
    int64_t ws;   /* window_start */
    int64_t we;   /* window_end */
    int64_t wt;   /* window_time */
    int64_t t;    /* the time column as output */
    char name[16];/* the string column as output */
} win;

typedef struct sink {
    win *rows;    /* everything emitted */
    int n, cap;   /* count, allocated */
    int chunks;   /* emitted chunks */
    int max_rows; /* largest chunk */
    int ncols;    /* expected output columns */
} sink;

static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sink *s = ctx;
    REQUIRE(c->ncols == s->ncols);
    REQUIRE(c->nrows > 0 && c->nrows <= SL_CHUNK_ROWS);
    s->chunks++;
    if (c->nrows > s->max_rows)
        s->max_rows = c->nrows;
    for (int r = 0; r < c->nrows; r++) {
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 256;
            s->rows = realloc(s->rows, (size_t)s->cap * sizeof *s->rows);
        }
        win *w = &s->rows[s->n++];
        memset(w, 0, sizeof *w);
        w->id = c->cols[0].v.i64[r];
        w->kind = c->kinds[r];
        w->t = c->cols[1].nulls[r] ? INT64_MIN : c->cols[1].v.i64[r];
        if (!c->cols[2].nulls[r])
            snprintf(w->name, sizeof w->name, "%.*s", (int)c->cols[2].v.str[r].len,
                     c->cols[2].v.str[r].ptr);
        CHECK(!c->cols[3].nulls[r] && !c->cols[4].nulls[r] && !c->cols[5].nulls[r]);
        w->ws = c->cols[3].v.i64[r];
        w->we = c->cols[4].v.i64[r];
        w->wt = c->cols[5].v.i64[r];
    }
    return 0;
}

static sl_type in_types[3];

static void init_types(sl_type_id time_id)
{
    in_types[0] = sl_type_make(SL_TYPE_BIGINT);
    in_types[1] = sl_type_make_p(time_id, 3, 0);
    in_types[2] = sl_type_make_p(SL_TYPE_VARCHAR, 20, 0);
}

static sl_operator *make_op(int fn, int64_t size_ms, int64_t slide_ms, int64_t offset_ms)
{
    init_types(SL_TYPE_TIMESTAMP);
    sl_window_tvf_spec spec = {3, in_types, 1, fn, size_ms, slide_ms, offset_ms};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_window_tvf_new(&spec, &op, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    return rc == 0 ? op : NULL;
}

/* Brute force: every window of the grid offset + k*step (k over a generous
** range computed with truncating division), [s, s + len) for each len the
** function allows; keep those that contain t. Returns the count, windows
** in out (starts / ends). */
static int reference(int fn, int64_t size_ms, int64_t slide_ms, int64_t off_ms, int64_t t,
                     int64_t *starts, int64_t *ends)
{
    int n = 0;
    int64_t size = size_ms * MS, off = off_ms * MS;
    int64_t grid = fn == SL_WIN_HOP ? slide_ms * MS : size;
    int64_t lo = (t - size - off) / grid - 3, hi = (t - off) / grid + 3;
    for (int64_t k = lo; k <= hi; k++) {
        int64_t s = off + k * grid;
        if (fn == SL_WIN_CUMULATE) {
            for (int64_t e = s + slide_ms * MS; e <= s + size; e += slide_ms * MS)
                if (s <= t && t < e && n < MAXW) {
                    starts[n] = s;
                    ends[n++] = e;
                }
        } else if (s <= t && t < s + size && n < MAXW) {
            starts[n] = s;
            ends[n++] = s + size;
        }
    }
    return n;
}

/* One chunk of rows with ids 0..n-1 and the given times. */
static sl_chunk *make_chunk(const int64_t *ts, int n)
{
    sl_chunk *c = sl_chunk_new(3, in_types, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, 0, r, i);
        sl_chunk_set_i64(c, 1, r, ts[i]);
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        sl_chunk_set_str(c, 2, r, name, strlen(name));
    }
    return c;
}

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Run the operator over ts[] and compare every row's windows with the
** reference (as sets), plus Flink's order (HOP: newest start first;
** CUMULATE: ascending end). */
static void check_against_reference(int fn, int64_t size_ms, int64_t slide_ms, int64_t off_ms,
                                    const int64_t *ts, int n)
{
    sl_operator *op = make_op(fn, size_ms, slide_ms, off_ms);
    REQUIRE(op);
    sink s = {.ncols = 6};
    sl_emit em = {collect, &s};
    sl_chunk *c = make_chunk(ts, n);
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->process(op, c, &em, &err) == 0);
    int pos = 0;
    static int64_t rs[MAXW], re[MAXW];
    for (int i = 0; i < n; i++) {
        int m = reference(fn, size_ms, slide_ms, off_ms, ts[i], rs, re);
        static int64_t got[MAXW][2], want[MAXW][2];
        int g = 0;
        while (pos < s.n && s.rows[pos].id == i && g < MAXW) {
            const win *w = &s.rows[pos++];
            got[g][0] = w->ws;
            got[g][1] = w->we;
            CHECK(w->wt == w->we - MS);
            CHECK(w->t == ts[i]);
            CHECK(w->kind == SL_ROW_INSERT);
            if (g > 0 && fn == SL_WIN_HOP)
                CHECK(got[g][0] < got[g - 1][0]);
            if (g > 0 && fn == SL_WIN_CUMULATE)
                CHECK(got[g][1] > got[g - 1][1] && got[g][0] == got[g - 1][0]);
            g++;
        }
        for (int j = 0; j < m; j++) {
            want[j][0] = rs[j];
            want[j][1] = re[j];
        }
        CHECK_INT(g, m);
        if (g != m) {
            fprintf(stderr, "  fn %d size %lld slide %lld off %lld t %lld\n", fn,
                    (long long)size_ms, (long long)slide_ms, (long long)off_ms, (long long)ts[i]);
            break;
        }
        qsort(got, (size_t)g, sizeof got[0], cmp_pair);
        qsort(want, (size_t)m, sizeof want[0], cmp_pair);
        for (int j = 0; j < m; j++) {
            CHECK_INT(got[j][0], want[j][0]);
            CHECK_INT(got[j][1], want[j][1]);
        }
    }
    CHECK_INT(pos, s.n);
    sl_chunk_free(c);
    free(s.rows);
    op->ops->free(op);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Times around interesting points: 0, negative, window boundaries of
** several grids, with and without sub-millisecond fractions. */
static void fill_times(int64_t *ts, int n, int64_t size_ms, int64_t slide_ms, int64_t off_ms)
{
    int64_t grid[] = {size_ms * MS, slide_ms * MS};
    for (int i = 0; i < n; i++) {
        int64_t base;
        switch (rnd() % 4) {
        case 0: base = (int64_t)(rnd() % 4000000000000000ULL) - 2000000000000000LL; break;
        case 1: /* on a boundary of the grid (with the offset), +-1 ns, +-1 ms */
        {
            int64_t g = grid[rnd() % 2];
            int64_t k = (int64_t)(rnd() % 2001) - 1000;
            int64_t d[] = {0, 1, -1, MS, -MS, 0};
            base = off_ms * MS + k * g + d[rnd() % 6];
            break;
        }
        case 2: base = (int64_t)(rnd() % 200000) * MS - 100000 * MS; break;
        default: base = (int64_t)(rnd() % 2000001) - 1000000; break; /* around 0, ns */
        }
        ts[i] = base;
    }
}

static void t_tumble_reference(void)
{
    const int64_t sizes[] = {1, 7, 1000, 60000, 86400000};
    const int64_t offs[] = {0, 1, -1, 3, 500, -59000, 3600000};
    int64_t ts[500];
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof offs / sizeof offs[0]; b++) {
            fill_times(ts, 500, sizes[a], sizes[a], offs[b]);
            check_against_reference(SL_WIN_TUMBLE, sizes[a], sizes[a], offs[b], ts, 500);
        }
}

static void t_hop_reference(void)
{
    const int64_t sz[][2] = {{10, 2}, {60000, 60000}, {60000, 5000}, {7, 3}, {1000, 1},
                             {3000, 1000}, {1000, 3000} /* slide > size: gaps */};
    const int64_t offs[] = {0, 1, -1, 999, -4000};
    int64_t ts[300];
    for (size_t a = 0; a < sizeof sz / sizeof sz[0]; a++)
        for (size_t b = 0; b < sizeof offs / sizeof offs[0]; b++) {
            fill_times(ts, 300, sz[a][0], sz[a][1], offs[b]);
            check_against_reference(SL_WIN_HOP, sz[a][0], sz[a][1], offs[b], ts, 300);
        }
}

static void t_cumulate_reference(void)
{
    const int64_t sz[][2] = {{10, 2}, {60000, 60000}, {86400000, 3600000}, {9, 3}, {1000, 1}};
    const int64_t offs[] = {0, 1, -1, 7, -3600000};
    int64_t ts[300];
    for (size_t a = 0; a < sizeof sz / sizeof sz[0]; a++)
        for (size_t b = 0; b < sizeof offs / sizeof offs[0]; b++) {
            fill_times(ts, 300, sz[a][0], sz[a][1], offs[b]);
            check_against_reference(SL_WIN_CUMULATE, sz[a][0], sz[a][1], offs[b], ts, 300);
        }
}

/* Hand-computed cases: boundaries, before 1970, offsets. */
static void t_explicit(void)
{
    struct {
        int fn;
        int64_t size, slide, off, t;
        int n;
        int64_t w[5][2]; /* windows in ms, in emission order */
    } cases[] = {
        {SL_WIN_TUMBLE, 10000, 10000, 0, 10000 * MS, 1, {{10000, 20000}}},
        {SL_WIN_TUMBLE, 10000, 10000, 0, 10000 * MS - 1, 1, {{0, 10000}}},
        {SL_WIN_TUMBLE, 10000, 10000, 0, -1, 1, {{-10000, 0}}},
        {SL_WIN_TUMBLE, 10000, 10000, 0, -10000 * MS, 1, {{-10000, 0}}},
        {SL_WIN_TUMBLE, 10000, 10000, 0, -10000 * MS - 1, 1, {{-20000, -10000}}},
        {SL_WIN_TUMBLE, 10000, 10000, 3000, 2999 * MS, 1, {{-7000, 3000}}},
        {SL_WIN_TUMBLE, 10000, 10000, 3000, 3000 * MS, 1, {{3000, 13000}}},
        {SL_WIN_TUMBLE, 10000, 10000, -3000, 0, 1, {{-3000, 7000}}},
        /* one day before 1970, 1 day windows: 1969-12-31 */
        {SL_WIN_TUMBLE, 86400000, 86400000, 0, -1 * MS, 1, {{-86400000, 0}}},
        {SL_WIN_HOP, 10000, 5000, 0, 12000 * MS, 2, {{10000, 20000}, {5000, 15000}}},
        {SL_WIN_HOP, 10000, 5000, 0, 10000 * MS, 2, {{10000, 20000}, {5000, 15000}}},
        {SL_WIN_HOP, 10000, 5000, 0, -1, 2, {{-5000, 5000}, {-10000, 0}}},
        {SL_WIN_HOP, 10000, 5000, 1000, 500 * MS, 2, {{-4000, 6000}, {-9000, 1000}}},
        {SL_WIN_CUMULATE, 10000, 2000, 0, 0, 5,
         {{0, 2000}, {0, 4000}, {0, 6000}, {0, 8000}, {0, 10000}}},
        {SL_WIN_CUMULATE, 10000, 2000, 0, 7999 * MS, 2, {{0, 8000}, {0, 10000}}},
        {SL_WIN_CUMULATE, 10000, 2000, 0, 8000 * MS, 1, {{0, 10000}}},
        {SL_WIN_CUMULATE, 10000, 2000, 0, -1, 1, {{-10000, 0}}},
        {SL_WIN_CUMULATE, 10000, 2000, 0, -2000 * MS - 1, 2, {{-10000, -2000}, {-10000, 0}}},
        {SL_WIN_CUMULATE, 10000, 5000, 1000, 0, 1, {{-9000, 1000}}},
        {SL_WIN_CUMULATE, 10000, 5000, 1000, -4001 * MS, 2, {{-9000, -4000}, {-9000, 1000}}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sl_operator *op = make_op(cases[i].fn, cases[i].size, cases[i].slide, cases[i].off);
        REQUIRE(op);
        sink s = {.ncols = 6};
        sl_emit em = {collect, &s};
        sl_chunk *c = make_chunk(&cases[i].t, 1);
        sl_error err = SL_ERROR_INIT;
        CHECK(op->ops->process(op, c, &em, &err) == 0);
        CHECK_INT(s.n, cases[i].n);
        for (int j = 0; j < s.n && j < cases[i].n; j++) {
            CHECK_INT(s.rows[j].ws, cases[i].w[j][0] * MS);
            CHECK_INT(s.rows[j].we, cases[i].w[j][1] * MS);
            CHECK_INT(s.rows[j].wt, cases[i].w[j][1] * MS - MS);
        }
        if (sl_t_cur_failed)
            fprintf(stderr, "  case %zu\n", i);
        sl_chunk_free(c);
        free(s.rows);
        op->ops->free(op);
    }
}

static void t_types_and_kinds(void)
{
    init_types(SL_TYPE_TIMESTAMP_LTZ);
    in_types[1] = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 6, 0);
    sl_window_tvf_spec spec = {3, in_types, 1, SL_WIN_TUMBLE, 1000, 1000, 0};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_window_tvf_new(&spec, &op, &err) == 0);
    CHECK_INT(op->out_ncols, 6);
    for (int i = 0; i < 3; i++)
        CHECK(sl_type_equal(op->out_types[i], in_types[i]));
    sl_type ts3 = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    ts3.not_null = true;
    sl_type ltz3 = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
    ltz3.not_null = true;
    CHECK(sl_type_equal(op->out_types[3], ts3));
    CHECK(sl_type_equal(op->out_types[4], ts3));
    CHECK(sl_type_equal(op->out_types[5], ltz3));

    /* Kinds pass through, NULL times are dropped, strings and NULL strings survive. */
    sl_chunk *c = sl_chunk_new(3, in_types, 8);
    const sl_row_kind kinds[] = {SL_ROW_INSERT, SL_ROW_UPDATE_BEFORE, SL_ROW_UPDATE_AFTER,
                                 SL_ROW_DELETE, SL_ROW_INSERT};
    for (int i = 0; i < 5; i++) {
        int r = sl_chunk_append_row(c, kinds[i]);
        sl_chunk_set_i64(c, 0, r, i);
        if (i != 4)
            sl_chunk_set_i64(c, 1, r, 1500 * MS + i);
        if (i != 2)
            sl_chunk_set_str(c, 2, r, "hello", 5);
    }
    /* A NULL-time row in the middle too. */
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_i64(c, 0, r, 5);
    sink s = {.ncols = 6};
    sl_emit em = {collect, &s};
    CHECK(op->ops->process(op, c, &em, &err) == 0);
    CHECK_INT(s.n, 4);
    for (int i = 0; i < s.n && i < 4; i++) {
        CHECK_INT(s.rows[i].id, i);
        CHECK_INT(s.rows[i].kind, kinds[i]);
        CHECK_INT(s.rows[i].ws, 1000 * MS);
        CHECK_INT(s.rows[i].we, 2000 * MS);
        CHECK_INT(s.rows[i].t, 1500 * MS + i);
        CHECK_STR(s.rows[i].name, i == 2 ? "" : "hello");
    }
    CHECK_INT(op->ops->late_rows(op), 0);
    CHECK(op->ops->watermark(op, INT64_MAX, &em, &err) == 0);
    CHECK_INT(s.n, 4);
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK(op->ops->snapshot(op, &sb, &err) == 0);
    CHECK_INT(sb.len, 0);
    CHECK(op->ops->restore(op, "", 0, &err) == 0);
    CHECK(op->ops->restore(op, "x", 1, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    sl_strbuf_free(&sb);
    sl_chunk_free(c);
    free(s.rows);
    op->ops->free(op);
}

/* HOP 1 min / 60 min: 1024 rows become 61440, in chunks of <= 1024 rows. */
static void t_expansion(void)
{
    sl_operator *op = make_op(SL_WIN_HOP, 3600000, 60000, 0);
    REQUIRE(op);
    int64_t ts[SL_CHUNK_ROWS];
    for (int i = 0; i < SL_CHUNK_ROWS; i++)
        ts[i] = (int64_t)i * 7919 * MS - 3000000 * MS;
    sl_chunk *c = make_chunk(ts, SL_CHUNK_ROWS);
    sink s = {.ncols = 6};
    sl_emit em = {collect, &s};
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->process(op, c, &em, &err) == 0);
    CHECK_INT(s.n, 61440);
    CHECK(s.max_rows <= SL_CHUNK_ROWS);
    CHECK_INT(s.chunks, 60);
    for (int i = 0; i < s.n; i++) {
        const win *w = &s.rows[i];
        CHECK(w->id == i / 60);
        CHECK(w->ws <= ts[w->id] && ts[w->id] < w->we && w->we - w->ws == 3600000 * MS);
        char name[16];
        snprintf(name, sizeof name, "r%d", i / 60);
        if (strcmp(w->name, name) != 0) {
            CHECK_STR(w->name, name);
            break;
        }
    }
    /* And the same again with the same operator (buffers are reused). */
    s.n = 0;
    CHECK(op->ops->process(op, c, &em, &err) == 0);
    CHECK_INT(s.n, 61440);
    sl_chunk_free(c);
    free(s.rows);
    op->ops->free(op);
}

static int fail_emit(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)c;
    int *calls = ctx;
    if (++*calls == 2)
        return sl_error_set(err, "58030", -1, "downstream failed");
    return 0;
}

static void t_errors(void)
{
    init_types(SL_TYPE_TIMESTAMP);
    sl_error err = SL_ERROR_INIT;
    sl_operator *op = NULL;
    sl_window_tvf_spec bad[] = {
        {3, in_types, 0, SL_WIN_TUMBLE, 1000, 1000, 0},   /* not a timestamp */
        {3, in_types, 3, SL_WIN_TUMBLE, 1000, 1000, 0},   /* out of range */
        {3, in_types, 1, SL_WIN_TUMBLE, 0, 0, 0},         /* size 0 */
        {3, in_types, 1, SL_WIN_HOP, 1000, 0, 0},         /* slide 0 */
        {3, in_types, 1, SL_WIN_CUMULATE, 1000, 300, 0},  /* not a multiple */
        {3, in_types, 1, 7, 1000, 1000, 0},               /* unknown */
        {3, in_types, 1, SL_WIN_TUMBLE, INT64_MAX, INT64_MAX, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(sl_window_tvf_new(&bad[i], &op, &err) == -1);
        CHECK(op == NULL);
        CHECK(sl_error_isset(&err));
        sl_error_reset(&err);
    }
    /* An emit failure stops processing and is passed on. */
    op = make_op(SL_WIN_HOP, 3600000, 60000, 0);
    REQUIRE(op);
    int64_t ts[100] = {0};
    sl_chunk *c = make_chunk(ts, 100);
    int calls = 0;
    sl_emit em = {fail_emit, &calls};
    CHECK(op->ops->process(op, c, &em, &err) == -1);
    CHECK_STR(err.sqlstate, "58030");
    CHECK_INT(calls, 2);
    sl_error_reset(&err);
    /* Windows beyond the timestamp range: an error, never a wrapped number. */
    int64_t big = INT64_MAX - 5;
    sl_chunk *c2 = make_chunk(&big, 1);
    calls = -100;
    CHECK(op->ops->process(op, c2, &em, &err) == -1);
    CHECK_STR(err.sqlstate, "22003");
    sl_error_reset(&err);
    sl_chunk_free(c);
    sl_chunk_free(c2);
    op->ops->free(op);
}

/* The job is torn down while one chunk expands into many windows: the
** operator stops at its next output chunk (the cancel flag the job sets). */
static atomic_bool cancel_flag;
static int cancel_emit(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)c, (void)err;
    int *calls = ctx;
    if (++*calls == 3)
        atomic_store(&cancel_flag, true);
    return 0;
}

static void t_limits_and_cancel(void)
{
    init_types(SL_TYPE_TIMESTAMP);
    sl_error err = SL_ERROR_INIT;
    sl_operator *op = NULL;
    /* at most SL_WINDOW_MAX_PER_ROW windows per row */
    sl_window_tvf_spec hop = {3, in_types, 1, SL_WIN_HOP, 1000000000, 1000, 0};
    CHECK(sl_window_tvf_new(&hop, &op, &err) == -1);
    CHECK_STR(err.sqlstate, "54000");
    sl_error_reset(&err);
    sl_window_tvf_spec cum = {3, in_types, 1, SL_WIN_CUMULATE, 86400000, 1000, 0};
    CHECK(sl_window_tvf_new(&cum, &op, &err) == -1);
    CHECK_STR(err.sqlstate, "54000");
    sl_error_reset(&err);
    op = make_op(SL_WIN_HOP, (int64_t)SL_WINDOW_MAX_PER_ROW * 1000, 1000, 0);
    REQUIRE(op);
    /* 1000 rows x 10000 windows = ~9800 chunks: cancelled after the third */
    int64_t ts[1000];
    for (int i = 0; i < 1000; i++)
        ts[i] = (int64_t)i * MS;
    sl_chunk *c = make_chunk(ts, 1000);
    int calls = 0;
    sl_emit em = {cancel_emit, &calls};
    atomic_store(&cancel_flag, false);
    op->cancel = &cancel_flag;
    CHECK(op->ops->process(op, c, &em, &err) == -1);
    CHECK_STR(err.sqlstate, "57014");
    CHECK_INT(calls, 3);
    sl_error_reset(&err);
    sl_chunk_free(c);
    op->ops->free(op);
}

SL_TESTS(t_tumble_reference, t_hop_reference, t_cumulate_reference, t_explicit,
         t_types_and_kinds, t_expansion, t_errors, t_limits_and_cancel)
