/*
** test_exec_topn.c — the Top-N operator (exec/op_topn.c): exact changelogs
** with and without the rank number (Flink 2.2's output for the same input,
** tests/sql/run_topn.sql), ties in arrival order, NULL ordering, a rank range
** with a start; many random rows against a reference (the changelog, applied,
** equals the rows ranked start..end by ORDER BY then arrival); snapshot ->
** restore mid-stream -> identical further output; corrupt and truncated
** snapshots rejected (XX001, never a crash); TTL with a fake clock; updating
** input rejected.
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <stdint.h>
#include <stdio.h>

#define NUL INT64_MIN /* a NULL integer in row() */
#define MS 1000000LL  /* ns per ms */

/* Columns: k INT (partition), v INT, s VARCHAR, id BIGINT. */
static sl_type types[4];
static const int key_k[] = {0};

static void init_types(void)
{
    types[0] = sl_type_make(SL_TYPE_INT);
    types[1] = sl_type_make(SL_TYPE_INT);
    types[2] = sl_type_make_p(SL_TYPE_VARCHAR, 10, 0);
    types[3] = sl_type_make(SL_TYPE_BIGINT);
}

static int64_t fake_now;
static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static bool updating; /* make_op: an updating input (RetractableTopNFunction) */
static bool no_before; /* make_op: no -U rows (sl_topn_spec.no_before) */

static sl_operator *make_op(const sl_topn_order *order, int norder, int nkeys, int64_t start,
                            int64_t end, bool output_rank, int64_t ttl_ms)
{
    init_types();
    sl_topn_spec spec = {4,      types,  nkeys,      key_k,
                         norder, order,  start,      end,
                         output_rank, ttl_ms, fake_clock, NULL, -1, false, updating, NULL, no_before};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_topn_new(&spec, &op, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    return rc == 0 ? op : NULL;
}

/* Appends each emitted row as "+I(k, v, s, id, rn)" and a newline. */
static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl_strbuf *sb = ctx;
    REQUIRE(c->ncols == 5 && c->nrows > 0 && c->nrows <= SL_CHUNK_ROWS);
    for (int r = 0; r < c->nrows; r++) {
        sl_strbuf_append(sb, sl_row_kind_name((sl_row_kind)c->kinds[r]));
        sl_strbuf_append_char(sb, '(');
        for (int i = 0; i < c->ncols; i++) {
            if (i)
                sl_strbuf_append(sb, ", ");
            if (!sl_value_format(sb, &c->cols[i], r))
                sl_strbuf_append(sb, "NULL");
        }
        sl_strbuf_append(sb, ")\n");
    }
    return 0;
}

static void row(sl_chunk *c, sl_row_kind kind, int64_t k, int64_t v, const char *s, int64_t id)
{
    int r = sl_chunk_append_row(c, kind);
    if (k != NUL)
        sl_chunk_set_i64(c, 0, r, k);
    if (v != NUL)
        sl_chunk_set_i64(c, 1, r, v);
    if (s)
        sl_chunk_set_str(c, 2, r, s, strlen(s));
    sl_chunk_set_i64(c, 3, r, id);
}

static sl_chunk *new_chunk(void)
{
    init_types();
    return sl_chunk_new(4, types, SL_CHUNK_ROWS);
}

static const char *run(sl_operator *op, sl_chunk *c, sl_strbuf *out)
{
    sl_strbuf_reset(out);
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->process(op, c, &em, &err);
    if (rc != 0)
        fprintf(stderr, "process: %s %s\n", err.sqlstate, err.message);
    CHECK(rc == 0);
    sl_error_reset(&err);
    sl_chunk_reset(c);
    return sl_strbuf_cstr(out);
}

/* tests/sql/data/topn.csv's partition a (v DESC, top 3, with the rank):
** Flink 2.2 printed these rows. */
static void t_flink_with_rank(void)
{
    sl_topn_order o[] = {{1, true, false}};
    sl_operator *op = make_op(o, 1, 1, 1, 3, true, 0);
    REQUIRE(op);
    CHECK_INT(op->out_ncols, 5);
    CHECK(op->out_types[4].id == SL_TYPE_BIGINT && op->out_types[4].not_null);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, 10, "a", 1);
    row(c, SL_ROW_INSERT, 1, 30, "a", 2);
    row(c, SL_ROW_INSERT, 1, 20, "a", 4);
    row(c, SL_ROW_INSERT, 1, 30, "a", 5);
    CHECK_STR(run(op, c, &out), "+I(1, 10, a, 1, 1)\n"
                                "-U(1, 10, a, 1, 1)\n"
                                "+U(1, 30, a, 2, 1)\n"
                                "+I(1, 10, a, 1, 2)\n"
                                "-U(1, 10, a, 1, 2)\n"
                                "+U(1, 20, a, 4, 2)\n"
                                "+I(1, 10, a, 1, 3)\n"
                                "-U(1, 20, a, 4, 2)\n"
                                "+U(1, 30, a, 5, 2)\n"
                                "-U(1, 10, a, 1, 3)\n"
                                "+U(1, 20, a, 4, 3)\n");
    row(c, SL_ROW_INSERT, 1, 40, "a", 7);
    row(c, SL_ROW_INSERT, 1, 20, "a", 8); /* ties the last: out */
    row(c, SL_ROW_INSERT, 1, 5, "a", 10);
    CHECK_STR(run(op, c, &out), "-U(1, 30, a, 2, 1)\n"
                                "+U(1, 40, a, 7, 1)\n"
                                "-U(1, 30, a, 5, 2)\n"
                                "+U(1, 30, a, 2, 2)\n"
                                "-U(1, 20, a, 4, 3)\n"
                                "+U(1, 30, a, 5, 3)\n");
    /* NULL is the smallest: last in DESC unless NULLS FIRST. */
    row(c, SL_ROW_INSERT, 2, 5, "b", 3);
    row(c, SL_ROW_INSERT, 2, NUL, "b", 6);
    CHECK_STR(run(op, c, &out), "+I(2, 5, b, 3, 1)\n"
                                "+I(2, NULL, b, 6, 2)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* Without the rank: +I of the entering row, -D of the row pushed out; a new
** row equal to the one pushed out emits nothing. */
static void t_flink_without_rank(void)
{
    sl_topn_order o[] = {{1, true, false}};
    sl_operator *op = make_op(o, 1, 1, 1, 2, false, 0);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, 10, "a", 1);
    row(c, SL_ROW_INSERT, 1, 30, "a", 2);
    row(c, SL_ROW_INSERT, 1, 20, "a", 4);
    row(c, SL_ROW_INSERT, 1, 20, "a", 5); /* ties the last of a full buffer: dropped */
    CHECK_STR(run(op, c, &out), "+I(1, 10, a, 1, 1)\n"
                                "+I(1, 30, a, 2, 1)\n"
                                "-D(1, 10, a, 1, 1)\n"
                                "+I(1, 20, a, 4, 1)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* A rank range with a start (ranks 2..3, v ASC: NULL first) and two order
** keys (v ASC, s DESC). */
static void t_range_start(void)
{
    sl_topn_order o[] = {{1, false, true}, {2, true, false}};
    sl_operator *op = make_op(o, 2, 1, 2, 3, false, 0);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, 5, "x", 1); /* rank 1: not emitted */
    row(c, SL_ROW_INSERT, 1, 5, "y", 2); /* before x: s DESC */
    row(c, SL_ROW_INSERT, 1, NUL, "z", 3);
    row(c, SL_ROW_INSERT, 1, 9, "w", 4); /* rank 4: not emitted */
    CHECK_STR(run(op, c, &out), "+I(1, 5, x, 1, 2)\n"
                                "-U(1, 5, x, 1, 2)\n"
                                "+U(1, 5, y, 2, 2)\n"
                                "+I(1, 5, x, 1, 3)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* An updating input (Flink's RetractableTopNFunction): the top 2 by
** v DESC of a SUM per s, no partition. Flink 2.2 printed these rows for
** tests/sql/data/topn.csv (its GroupAggregate emitting -U/+U per row). */
static void t_flink_retract(void)
{
    sl_topn_order o[] = {{1, true, false}};
    updating = true;
    sl_operator *op = make_op(o, 1, 0, 1, 2, true, 0);
    updating = false;
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, NUL, 10, "a", 0);
    row(c, SL_ROW_UPDATE_BEFORE, NUL, 10, "a", 0);
    row(c, SL_ROW_UPDATE_AFTER, NUL, 40, "a", 0);
    row(c, SL_ROW_INSERT, NUL, 5, "b", 0);
    row(c, SL_ROW_UPDATE_BEFORE, NUL, 40, "a", 0);
    row(c, SL_ROW_UPDATE_AFTER, NUL, 60, "a", 0);
    CHECK_STR(run(op, c, &out), "+I(NULL, 10, a, 0, 1)\n"
                                "-D(NULL, 10, a, 0, 1)\n"
                                "+I(NULL, 40, a, 0, 1)\n"
                                "+I(NULL, 5, b, 0, 2)\n"
                                "-U(NULL, 40, a, 0, 1)\n"
                                "+U(NULL, 5, b, 0, 1)\n"
                                "-D(NULL, 5, b, 0, 2)\n"
                                "-U(NULL, 5, b, 0, 1)\n"
                                "+U(NULL, 60, a, 0, 1)\n"
                                "+I(NULL, 5, b, 0, 2)\n");
    row(c, SL_ROW_UPDATE_BEFORE, NUL, 5, "b", 0);
    row(c, SL_ROW_UPDATE_AFTER, NUL, 20, "b", 0);
    row(c, SL_ROW_INSERT, NUL, 1, "c", 0); /* rank 3: nothing */
    row(c, SL_ROW_UPDATE_BEFORE, NUL, 20, "b", 0);
    row(c, SL_ROW_UPDATE_AFTER, NUL, 26, "b", 0);
    row(c, SL_ROW_DELETE, NUL, 99, "z", 0); /* not there: ignored */
    CHECK_STR(run(op, c, &out), "-D(NULL, 5, b, 0, 2)\n"
                                "+I(NULL, 20, b, 0, 2)\n"
                                "-U(NULL, 20, b, 0, 2)\n"
                                "+U(NULL, 1, c, 0, 2)\n"
                                "-U(NULL, 1, c, 0, 2)\n"
                                "+U(NULL, 26, b, 0, 2)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* ---- random rows against a reference ----------------------------------- */

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct ref_row {
    int64_t k, v, id; /* k / v: NUL = NULL */
    int64_t seq;      /* reference(): arrival position */
    char s[4];
} ref_row;

static const sl_topn_order ref_order[] = {{1, true, false}, {2, false, false}};

/* ORDER BY v DESC NULLS LAST, s ASC NULLS FIRST (never NULL here), then arrival. */
static int ref_cmp(const void *pa, const void *pb)
{
    const ref_row *a = pa, *b = pb;
    if ((a->v == NUL) != (b->v == NUL))
        return a->v == NUL ? 1 : -1;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    int c = strcmp(a->s, b->s);
    if (c)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The materialized result of a changelog text: lines kept by content
** (rank column included when with_rank: keyed by k and rank). Returns the
** sorted multiset of live rows as one string. */
static char *apply_changelog(const char *log)
{
    /* A row's identity is its text without the kind. Keep a multiset. */
    int cap = 1024, n = 0;
    char **rows = malloc((size_t)cap * sizeof *rows);
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = (size_t)(nl - p);
        char *body = strndup(p + 2, len - 2);
        bool add = p[0] == '+';
        if (add) {
            if (n == cap) {
                cap *= 2;
                rows = realloc(rows, (size_t)cap * sizeof *rows);
            }
            rows[n++] = body;
        } else {
            int i = 0;
            while (i < n && strcmp(rows[i], body) != 0)
                i++;
            CHECK(i < n); /* a retraction of a live row */
            if (i < n) {
                free(rows[i]);
                rows[i] = rows[--n];
            }
            free(body);
        }
        p = nl + 1;
    }
    qsort(rows, (size_t)n, sizeof *rows, cmp_str);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        sl_strbuf_append(&sb, rows[i]);
        sl_strbuf_append_char(&sb, '\n');
        free(rows[i]);
    }
    free(rows);
    char *s = strdup(sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    return s;
}

/* The reference: per partition the rows ranked start..end. */
static char *reference(const ref_row *rows, int n, int64_t start, int64_t end, bool with_rank)
{
    ref_row *sorted = malloc((size_t)n * sizeof *sorted);
    memcpy(sorted, rows, (size_t)n * sizeof *sorted);
    char **lines = malloc((size_t)n * sizeof *lines);
    int nl = 0;
    for (int64_t k = -1; k < 8; k++) { /* -1 stands for the NULL partition */
        int m = 0;
        for (int i = 0; i < n; i++)
            if ((k < 0 ? rows[i].k == NUL : rows[i].k == k)) {
                sorted[m] = rows[i];
                sorted[m++].seq = i;
            }
        qsort(sorted, (size_t)m, sizeof *sorted, ref_cmp);
        for (int i = 0; i < m; i++) {
            int64_t rank = i + 1;
            if (rank < start || rank > end)
                continue;
            char buf[128], kb[24], vb[24];
            if (k < 0)
                snprintf(kb, sizeof kb, "NULL");
            else
                snprintf(kb, sizeof kb, "%lld", (long long)k);
            if (sorted[i].v == NUL)
                snprintf(vb, sizeof vb, "NULL");
            else
                snprintf(vb, sizeof vb, "%lld", (long long)sorted[i].v);
            snprintf(buf, sizeof buf, "(%s, %s, %s, %lld, %lld)", kb, vb, sorted[i].s,
                     (long long)sorted[i].id, (long long)(with_rank ? rank : start));
            lines[nl++] = strdup(buf);
        }
    }
    qsort(lines, (size_t)nl, sizeof *lines, cmp_str);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < nl; i++) {
        sl_strbuf_append(&sb, lines[i]);
        sl_strbuf_append_char(&sb, '\n');
        free(lines[i]);
    }
    free(lines);
    free(sorted);
    char *s = strdup(sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    return s;
}

static void snapshot(sl_operator *op, sl_strbuf *s)
{
    sl_strbuf_reset(s);
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->snapshot(op, s, &err) == 0);
    sl_error_reset(&err);
}

/* Random rows in chunks: the applied changelog equals the reference; a
** copy restored from a snapshot halfway emits exactly the same further
** changelog (and snapshots identically at the end). */
static void t_reference(void)
{
    enum { NROWS = 3000 };
    ref_row *rows = malloc(NROWS * sizeof *rows);
    for (int round = 0; round < 14; round++) {
        updating = round >= 8; /* rounds 8..13: an updating input */
        int64_t start = round % 3 == 2 ? 1 + (int64_t)(rnd() % 4) : 1;
        int64_t end = start + (int64_t)(rnd() % 6) + (round == 7 ? 100 : 0);
        bool with_rank = round % 2 == 0;
        int vrange = round < 4 ? 5 : 50; /* many ties, or few */
        sl_operator *a = make_op(ref_order, 2, 1, start, end, with_rank, 0);
        sl_operator *b = make_op(ref_order, 2, 1, start, end, with_rank, 0);
        REQUIRE(a && b);
        sl_chunk *c = new_chunk();
        sl_strbuf out = SL_STRBUF_INIT, log = SL_STRBUF_INIT, tail_a = SL_STRBUF_INIT,
                  tail_b = SL_STRBUF_INIT, s1 = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT;
        sl_row_kind *kinds = malloc(NROWS * sizeof *kinds);
        bool *live = calloc(NROWS, sizeof *live);
        for (int i = 0; i < NROWS; i++) {
            ref_row *r = &rows[i];
            kinds[i] = SL_ROW_INSERT;
            int j = i > 0 ? (int)(rnd() % (uint64_t)i) : 0;
            if (updating && i > 0 && live[j] && rnd() % 3 == 0) {
                /* retract an earlier row (its copy: the live list keeps it) */
                *r = rows[j];
                kinds[i] = rnd() % 2 ? SL_ROW_DELETE : SL_ROW_UPDATE_BEFORE;
                live[j] = false;
                continue;
            }
            r->k = rnd() % 9 == 0 ? NUL : (int64_t)(rnd() % 8);
            r->v = rnd() % 7 == 0 ? NUL : (int64_t)(rnd() % (uint64_t)vrange);
            r->s[0] = (char)('a' + rnd() % 3);
            r->s[1] = 0;
            r->id = i % 50; /* duplicates: a retraction takes the first equal row */
            if (!updating)
                r->id = i;
            live[i] = true;
        }
        bool restored = false;
        for (int i = 0; i < NROWS; i += 97) {
            int n = i + 97 < NROWS ? 97 : NROWS - i;
            if (!restored && i >= NROWS / 2) {
                /* b restores a's snapshot; from now on both get every chunk */
                restored = true;
                snapshot(a, &s1);
                sl_error err = SL_ERROR_INIT;
                CHECK(b->ops->restore(b, s1.buf, s1.len, &err) == 0);
                sl_error_reset(&err);
                snapshot(b, &s2);
                CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
                /* its version 1 form (an FNV-1a trailer) restores the same state */
                sl_operator *v1op = make_op(ref_order, 2, 1, start, end, with_rank, 0);
                REQUIRE(v1op);
                CHECK(s1.len > 16 && memcmp(s1.buf, "SLTOPN02", 8) == 0);
                s1.buf[7] = '1';
                uint64_t h = 14695981039346656037ULL;
                for (size_t k = 0; k < s1.len - 8; k++)
                    h = (h ^ (uint8_t)s1.buf[k]) * 1099511628211ULL;
                for (int k = 0; k < 8; k++)
                    s1.buf[s1.len - 8 + k] = (char)(h >> (8 * k));
                CHECK(v1op->ops->restore(v1op, s1.buf, s1.len, &err) == 0);
                sl_error_reset(&err);
                sl_strbuf_reset(&s1);
                snapshot(v1op, &s1);
                CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
                v1op->ops->free(v1op);
            }
            for (int j = i; j < i + n; j++)
                row(c, kinds[j], rows[j].k, rows[j].v, rows[j].s, rows[j].id);
            if (restored) {
                sl_chunk *c2 = new_chunk();
                for (int j = i; j < i + n; j++)
                    row(c2, kinds[j], rows[j].k, rows[j].v, rows[j].s, rows[j].id);
                sl_strbuf_append(&tail_b, run(b, c2, &out));
                sl_chunk_free(c2);
            }
            run(a, c, &out);
            sl_strbuf_append(&log, sl_strbuf_cstr(&out));
            if (restored)
                sl_strbuf_append(&tail_a, sl_strbuf_cstr(&out));
        }
        CHECK_STR(sl_strbuf_cstr(&tail_b), sl_strbuf_cstr(&tail_a));
        snapshot(a, &s1);
        snapshot(b, &s2);
        CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
        char *got = apply_changelog(sl_strbuf_cstr(&log));
        /* the rows left: each retraction removes the first equal live row */
        int nleft = 0;
        ref_row *left = malloc(NROWS * sizeof *left);
        for (int i = 0; i < NROWS; i++) {
            if (kinds[i] == SL_ROW_INSERT) {
                left[nleft++] = rows[i];
                continue;
            }
            for (int j = 0; j < nleft; j++)
                if (left[j].k == rows[i].k && left[j].v == rows[i].v && left[j].id == rows[i].id &&
                    strcmp(left[j].s, rows[i].s) == 0) {
                    memmove(&left[j], &left[j + 1], (size_t)(nleft - j - 1) * sizeof *left);
                    nleft--;
                    break;
                }
        }
        char *want = reference(left, nleft, start, end, with_rank || start > 1);
        free(left);
        free(kinds);
        free(live);
        CHECK_STR(got, want);
        free(got);
        free(want);
        sl_strbuf_free(&out);
        sl_strbuf_free(&log);
        sl_strbuf_free(&tail_a);
        sl_strbuf_free(&tail_b);
        sl_strbuf_free(&s1);
        sl_strbuf_free(&s2);
        sl_chunk_free(c);
        a->ops->free(a);
        b->ops->free(b);
    }
    updating = false;
    free(rows);
}

static int try_restore(sl_operator *op, const char *p, size_t n)
{
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->restore(op, p, n, &err);
    if (rc != 0)
        CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    return rc;
}

/* Every truncation and a flipped byte are rejected; a state of another
** Top-N (other range) too; the operator stays usable. */
static void t_corrupt(void)
{
    sl_topn_order o[] = {{1, true, false}};
    sl_operator *a = make_op(o, 1, 1, 1, 3, true, 0);
    sl_operator *b = make_op(o, 1, 1, 1, 3, true, 0);
    sl_operator *other = make_op(o, 1, 1, 1, 4, true, 0);
    REQUIRE(a && b && other);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, 10, "a", 1);
    row(c, SL_ROW_INSERT, 1, 30, "b", 2);
    row(c, SL_ROW_INSERT, NUL, NUL, NULL, 3);
    run(a, c, &out);
    snapshot(a, &s);
    for (size_t n = 0; n < s.len; n++)
        CHECK(try_restore(b, s.buf, n) == -1);
    char *p = malloc(s.len + 1);
    for (size_t i = 0; i < s.len; i += 3) {
        memcpy(p, s.buf, s.len);
        p[i] ^= 0x20;
        CHECK(try_restore(b, p, s.len) == -1);
    }
    memcpy(p, s.buf, s.len);
    p[s.len] = 0;
    CHECK(try_restore(b, p, s.len + 1) == -1);
    free(p);
    CHECK(try_restore(other, s.buf, s.len) == -1);
    CHECK(try_restore(b, s.buf, s.len) == 0);
    row(c, SL_ROW_INSERT, 1, 20, "c", 4);
    CHECK_STR(run(b, c, &out), "-U(1, 10, a, 1, 2)\n"
                               "+U(1, 20, c, 4, 2)\n"
                               "+I(1, 10, a, 1, 3)\n");
    sl_strbuf_free(&out);
    sl_strbuf_free(&s);
    sl_chunk_free(c);
    a->ops->free(a);
    b->ops->free(b);
    other->ops->free(other);
}

/* TTL: a partition unchanged for ttl is forgotten (its next row is rank 1
** again and it leaves the snapshot); a rejected row does not refresh it. */
static void t_ttl(void)
{
    sl_topn_order o[] = {{1, true, false}};
    fake_now = 0;
    sl_operator *op = make_op(o, 1, 1, 1, 1, true, 1000);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, 10, "a", 1);
    CHECK_STR(run(op, c, &out), "+I(1, 10, a, 1, 1)\n");
    fake_now = 600 * MS;
    row(c, SL_ROW_INSERT, 1, 5, "b", 2); /* not in the top: no write */
    CHECK_STR(run(op, c, &out), "");
    fake_now = 1000 * MS;
    snapshot(op, &s);
    sl_strbuf s_empty = SL_STRBUF_INIT;
    sl_operator *fresh = make_op(o, 1, 1, 1, 1, true, 1000);
    snapshot(fresh, &s_empty);
    CHECK(s.len == s_empty.len && memcmp(s.buf, s_empty.buf, s.len) == 0);
    row(c, SL_ROW_INSERT, 1, 5, "b", 3);
    CHECK_STR(run(op, c, &out), "+I(1, 5, b, 3, 1)\n");
    sl_strbuf_free(&out);
    sl_strbuf_free(&s);
    sl_strbuf_free(&s_empty);
    sl_chunk_free(c);
    op->ops->free(op);
    fresh->ops->free(fresh);
}

/* An updating input is an error, before any state changes. */
static void t_updating_input(void)
{
    sl_topn_order o[] = {{1, true, false}};
    sl_operator *op = make_op(o, 1, 1, 1, 3, true, 0);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, 10, "a", 1);
    row(c, SL_ROW_DELETE, 1, 10, "a", 1);
    sl_emit em = {collect, &out};
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->process(op, c, &em, &err) == -1);
    CHECK_STR(err.sqlstate, "XX000");
    sl_error_reset(&err);
    CHECK_STR(sl_strbuf_cstr(&out), "");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* Invalid specs are refused. */
static void t_bad_spec(void)
{
    sl_topn_order o[] = {{7, true, false}};
    CHECK(make_op(o, 1, 1, 1, 3, true, 0) == NULL);
    sl_topn_order o2[] = {{1, true, false}};
    CHECK(make_op(o2, 1, 1, 0, 3, true, 0) == NULL);
    CHECK(make_op(o2, 0, 1, 1, 3, true, 0) == NULL);
}

/* Without -U (a blackhole): the rows of the same Top-N but for its -U, over
** random rows, with the rank and without. */
static void t_no_before(void)
{
    sl_topn_order o[] = {{1, true, false}};
    for (int with_rank = 0; with_rank < 2; with_rank++) {
        sl_operator *full = make_op(o, 1, 1, 1, 3, with_rank, 0);
        no_before = true;
        sl_operator *nb = make_op(o, 1, 1, 1, 3, with_rank, 0);
        no_before = false;
        REQUIRE(full && nb);
        sl_chunk *c = new_chunk(), *c2 = new_chunk();
        sl_strbuf out = SL_STRBUF_INIT, want = SL_STRBUF_INIT, got = SL_STRBUF_INIT;
        uint64_t x = 99;
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 40; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                int64_t k = (int64_t)((x >> 33) % 5), v = (int64_t)((x >> 40) % 50);
                row(c, SL_ROW_INSERT, k, v, "s", round * 40 + i);
                row(c2, SL_ROW_INSERT, k, v, "s", round * 40 + i);
            }
            sl_t_lines_without(&want, run(full, c, &out), "-U"); /* the full rows but -U */
            sl_strbuf_append(&got, run(nb, c2, &out));
        }
        CHECK(got.len > 100 && !strstr(sl_strbuf_cstr(&got), "-U("));
        CHECK_STR(sl_strbuf_cstr(&got), sl_strbuf_cstr(&want));
        sl_strbuf_free(&out);
        sl_strbuf_free(&want);
        sl_strbuf_free(&got);
        sl_chunk_free(c);
        sl_chunk_free(c2);
        full->ops->free(full);
        nb->ops->free(nb);
    }
}

SL_TESTS(t_flink_with_rank, t_no_before, t_flink_without_rank, t_range_start, t_flink_retract, t_reference, t_corrupt, t_ttl,
         t_updating_input, t_bad_spec)
