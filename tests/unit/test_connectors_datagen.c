/*
** test_connectors_datagen.c — the datagen source at run time: determinism
** (two instances agree value by value; seek to a stored position
** regenerates the identical continuation, time columns included), the
** parallel split (p = 3 is p = 1 as a multiset, without overlap),
** number-of-rows and END, sequence exhaustion (each value once), rate
** limiting against a fake clock, min / max / length / null-rate bounds over
** 10000 rows, every type generated and valid, and create-time errors.
*/
#include <stdarg.h>

#include "datagen/datagen.h"
#include "sl_connector.h"
#include "sl_test.h"

#define T0 (1767225600LL * SL_NANOS_PER_SEC) /* 2026-01-01 00:00:00 UTC */

/* A fake clock: returns t, then advances it by step. */
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

/* A list from key, value, ..., NULL. */
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

/* A table: column names and types. */
typedef struct table {
    int ncols;
    const char *names[24];
    sl_type types[24];
} table;

static void add_col(table *t, const char *name, sl_type type)
{
    t->names[t->ncols] = name;
    t->types[t->ncols++] = type;
}

/* Create through the registry (as the runtime does). NULL with err on failure. */
static sl_source *mk(const table *t, const sl_kvlist *o, int subtask, int par, sl_error *err)
{
    const sl_connector *c = sl_connector_find("datagen");
    if (!c || !c->create_source)
        return NULL;
    sl_source_args a = {.options = o,
                        .ncols = t->ncols,
                        .names = t->names,
                        .types = t->types,
                        .subtask = subtask,
                        .parallelism = par,
                        .table = "t"};
    sl_source *s = NULL;
    return c->create_source(&a, &s, err) == 0 ? s : NULL;
}

/* Poll s (chunks of at most cap rows) until END or max rows, appending to
** *all (created on demand). Returns the number of rows; *ended = saw END. */
static int collect(sl_source *s, const table *t, int cap, int max, sl_chunk **all, bool *ended)
{
    if (!*all)
        *all = sl_chunk_new(t->ncols, t->types, max > 0 ? max : 1);
    sl_chunk *c = sl_chunk_new(t->ncols, t->types, cap);
    int got = 0, idle = 0;
    *ended = false;
    sl_error err = SL_ERROR_INIT;
    while (got < max && idle < 1000) {
        sl_chunk_reset(c);
        c->cap = cap < max - got ? cap : max - got; /* never more than wanted */
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

/* Exact equality of row ra of a and row rb of b (same types). */
static bool row_equal(const sl_chunk *a, int ra, const sl_chunk *b, int rb)
{
    if (a->kinds[ra] != b->kinds[rb])
        return false;
    for (int i = 0; i < a->ncols; i++) {
        const sl_vector *x = &a->cols[i], *y = &b->cols[i];
        if (x->nulls[ra] != y->nulls[rb])
            return false;
        if (x->nulls[ra])
            continue;
        switch (x->phys) {
        case SL_PHYS_BOOL:
            if (x->v.b[ra] != y->v.b[rb])
                return false;
            break;
        case SL_PHYS_I64:
            if (x->v.i64[ra] != y->v.i64[rb])
                return false;
            break;
        case SL_PHYS_F64:
            if (memcmp(&x->v.f64[ra], &y->v.f64[rb], sizeof(double)) != 0)
                return false;
            break;
        case SL_PHYS_I128:
            if (x->v.i128[ra] != y->v.i128[rb])
                return false;
            break;
        case SL_PHYS_STR:
            if (x->v.str[ra].len != y->v.str[rb].len ||
                memcmp(x->v.str[ra].ptr, y->v.str[rb].ptr, x->v.str[ra].len) != 0)
                return false;
            break;
        }
    }
    return true;
}

/* Row r as text "v1|v2|..." (NULL as null); caller frees. */
static char *row_text(const sl_chunk *c, int r)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < c->ncols; i++) {
        if (i)
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

/* A table with every type datagen generates, plus a sequence column "id". */
static void all_types(table *t)
{
    t->ncols = 0;
    add_col(t, "b", sl_type_make(SL_TYPE_BOOLEAN));
    add_col(t, "ti", sl_type_make(SL_TYPE_TINYINT));
    add_col(t, "si", sl_type_make(SL_TYPE_SMALLINT));
    add_col(t, "i", sl_type_make(SL_TYPE_INT));
    add_col(t, "bi", sl_type_make(SL_TYPE_BIGINT));
    add_col(t, "f", sl_type_make(SL_TYPE_FLOAT));
    add_col(t, "d", sl_type_make(SL_TYPE_DOUBLE));
    add_col(t, "dec", sl_type_make_p(SL_TYPE_DECIMAL, 10, 2));
    add_col(t, "big", sl_type_make_p(SL_TYPE_DECIMAL, 38, 10));
    add_col(t, "c", sl_type_make_p(SL_TYPE_CHAR, 4, 0));
    add_col(t, "vc", sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0));
    add_col(t, "bin", sl_type_make_p(SL_TYPE_BINARY, 3, 0));
    add_col(t, "vb", sl_type_make_p(SL_TYPE_VARBINARY, 16, 0));
    add_col(t, "dt", sl_type_make(SL_TYPE_DATE));
    add_col(t, "tm", sl_type_make_p(SL_TYPE_TIME, 3, 0));
    add_col(t, "ts", sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0));
    add_col(t, "ltz", sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 6, 0));
    add_col(t, "id", sl_type_make(SL_TYPE_BIGINT));
}

static sl_kvlist *all_types_opts(const char *rows)
{
    return opts("connector", "datagen", "number-of-rows", rows, "fields.id.kind", "sequence",
                "fields.id.start", "1", "fields.id.end", "1000000", "fields.ts.max-past", "1 h",
                "fields.ltz.max-past", "10 min", "fields.vc.length", "12", "fields.i.null-rate",
                "0.2", "fields.dec.null-rate", "0.1", NULL);
}

static void t_determinism(void)
{
    table t;
    all_types(&t);
    sl_kvlist *o = all_types_opts("3000");
    sl_error err = SL_ERROR_INIT;
    fclock ca = {T0, SL_NANOS_PER_SEC}, cb = {T0, SL_NANOS_PER_SEC};
    sl_source *a = mk(&t, o, 0, 1, &err), *b = mk(&t, o, 0, 1, &err);
    REQUIRE(a && b);
    sl_datagen_set_clock(a, fclock_now, &ca);
    sl_datagen_set_clock(b, fclock_now, &cb);
    sl_chunk *ra = NULL, *rb = NULL;
    bool ea, eb;
    /* different chunk sizes: the rows must not depend on how they are polled */
    CHECK_INT(collect(a, &t, 1024, 5000, &ra, &ea), 3000);
    CHECK_INT(collect(b, &t, 77, 5000, &rb, &eb), 3000);
    CHECK(ea && eb);
    int same = 0;
    for (int r = 0; r < 3000 && r < ra->nrows && r < rb->nrows; r++)
        same += row_equal(ra, r, rb, r);
    CHECK_INT(same, 3000);
    /* not trivially equal: consecutive rows differ */
    CHECK(!row_equal(ra, 0, ra, 1));
    a->ops->free(a);
    b->ops->free(b);
    sl_chunk_free(ra);
    sl_chunk_free(rb);
    sl_kvlist_free(o);
}

static void t_seek_replay(void)
{
    table t;
    all_types(&t);
    sl_kvlist *o = all_types_opts("5000");
    sl_error err = SL_ERROR_INIT;
    for (int par = 1; par <= 2; par++) {
        fclock ca = {T0, SL_NANOS_PER_SEC};
        sl_source *a = mk(&t, o, par - 1, par, &err);
        REQUIRE(a);
        sl_datagen_set_clock(a, fclock_now, &ca);
        sl_chunk *head = NULL, *rest = NULL, *replay = NULL;
        bool ended;
        CHECK_INT(collect(a, &t, 100, 1234, &head, &ended), 1234);
        sl_strbuf pos = SL_STRBUF_INIT;
        REQUIRE(a->ops->position(a, &pos, &err) == 0);
        int nrest = collect(a, &t, 100, 5000, &rest, &ended);
        CHECK(ended);
        CHECK_INT(nrest, 5000 / par - 1234);

        /* a new incarnation, a day later by its clock: same rows, timestamps included */
        fclock cb = {T0 + 86400 * SL_NANOS_PER_SEC, 3 * SL_NANOS_PER_SEC};
        sl_source *b = mk(&t, o, par - 1, par, &err);
        REQUIRE(b);
        sl_datagen_set_clock(b, fclock_now, &cb);
        REQUIRE(b->ops->seek(b, pos.buf, pos.len, &err) == 0);
        CHECK_INT(collect(b, &t, 333, 5000, &replay, &ended), nrest);
        CHECK(ended);
        int same = 0;
        for (int r = 0; r < nrest && r < replay->nrows; r++)
            same += row_equal(rest, r, replay, r);
        CHECK_INT(same, nrest);
        /* the position after the end is stable: seeking there gives END at once */
        sl_strbuf endpos = SL_STRBUF_INIT;
        REQUIRE(b->ops->position(b, &endpos, &err) == 0);
        sl_source *c = mk(&t, o, par - 1, par, &err);
        REQUIRE(c && c->ops->seek(c, endpos.buf, endpos.len, &err) == 0);
        sl_chunk *none = sl_chunk_new(t.ncols, t.types, 10);
        CHECK_INT(c->ops->poll(c, none, &err), SL_SOURCE_END);
        CHECK_INT(none->nrows, 0);
        CHECK_INT(c->ops->skipped(c), 0);
        sl_chunk_free(none);
        c->ops->free(c);
        sl_strbuf_free(&endpos);
        sl_strbuf_free(&pos);
        sl_chunk_free(head);
        sl_chunk_free(rest);
        sl_chunk_free(replay);
        a->ops->free(a);
        b->ops->free(b);
    }
    sl_kvlist_free(o);
}

static void t_seek_errors(void)
{
    table t = {0};
    add_col(&t, "x", sl_type_make(SL_TYPE_INT));
    sl_kvlist *o = opts("connector", "datagen", NULL);
    sl_error err = SL_ERROR_INIT;
    sl_source *s = mk(&t, o, 1, 3, &err);
    REQUIRE(s);
    const char *bad[] = {"", "garbage", "next=5;base=0;parallelism=3;subtask=1", /* 5 % 3 != 1 */
                         "next=4;base=0;parallelism=3;subtask=1x",
                         "next=-2;base=0;parallelism=3;subtask=1"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        CHECK_INT(s->ops->seek(s, bad[i], strlen(bad[i]), &err), -1);
        CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
        sl_error_reset(&err);
    }
    const char *other = "next=4;base=0;parallelism=2;subtask=0";
    CHECK_INT(s->ops->seek(s, other, strlen(other), &err), -1);
    CHECK_STR(err.sqlstate, SL_ERR_NOT_SUPPORTED);
    sl_error_reset(&err);
    const char *good = "next=7;base=0;parallelism=3;subtask=1";
    CHECK_INT(s->ops->seek(s, good, strlen(good), &err), 0);
    sl_strbuf sb = SL_STRBUF_INIT;
    s->ops->position(s, &sb, &err);
    CHECK_STR(sl_strbuf_cstr(&sb), good);
    sl_strbuf_free(&sb);
    s->ops->free(s);
    sl_kvlist_free(o);
}

static void t_parallel_split(void)
{
    table t;
    all_types(&t);
    sl_kvlist *o = all_types_opts("1000");
    sl_error err = SL_ERROR_INIT;
    char *one[1000], *three[1001];
    int n1 = 0, n3 = 0;
    for (int par = 1; par <= 3; par += 2) {
        for (int k = 0; k < par; k++) {
            fclock clk = {T0, SL_NANOS_PER_SEC};
            sl_source *s = mk(&t, o, k, par, &err);
            REQUIRE(s);
            sl_datagen_set_clock(s, fclock_now, &clk);
            sl_chunk *rows = NULL;
            bool ended;
            int n = collect(s, &t, 64, 2000, &rows, &ended);
            CHECK(ended);
            if (par == 3)
                CHECK_INT(n, k == 0 ? 334 : 333);
            for (int r = 0; r < rows->nrows; r++) {
                if (par == 1 && n1 < 1000)
                    one[n1++] = row_text(rows, r);
                else if (par == 3 && n3 < 1001)
                    three[n3++] = row_text(rows, r);
            }
            sl_chunk_free(rows);
            s->ops->free(s);
        }
    }
    CHECK_INT(n1, 1000);
    CHECK_INT(n3, 1000);
    qsort(one, (size_t)n1, sizeof *one, cmp_str);
    qsort(three, (size_t)n3, sizeof *three, cmp_str);
    int same = 0, dups = 0;
    for (int i = 0; i < n1 && i < n3; i++) {
        same += strcmp(one[i], three[i]) == 0;
        dups += i > 0 && strcmp(three[i - 1], three[i]) == 0; /* rows carry a unique id */
    }
    CHECK_INT(same, 1000);
    CHECK_INT(dups, 0);
    for (int i = 0; i < n1; i++)
        sl_free(one[i]);
    for (int i = 0; i < n3; i++)
        sl_free(three[i]);
    sl_kvlist_free(o);
}

static void t_number_of_rows(void)
{
    table t = {0};
    add_col(&t, "x", sl_type_make(SL_TYPE_BIGINT));
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *o =
        opts("connector", "datagen", "number-of-rows", "2500", "rows-per-second", "1000000", NULL);
    fclock clk = {T0, SL_NANOS_PER_SEC};
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_datagen_set_clock(s, fclock_now, &clk);
    sl_chunk *c = sl_chunk_new(1, t.types, 1024);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_MORE); /* starts the clock: no time passed */
    CHECK_INT(c->nrows, 0);
    int rcs[3], rows[3];
    for (int i = 0; i < 3; i++) {
        sl_chunk_reset(c);
        rcs[i] = s->ops->poll(s, c, &err);
        rows[i] = c->nrows;
    }
    CHECK_INT(rcs[0], SL_SOURCE_MORE);
    CHECK_INT(rcs[1], SL_SOURCE_MORE);
    CHECK_INT(rcs[2], SL_SOURCE_END);
    CHECK_INT(rows[0] + rows[1] + rows[2], 2500);
    CHECK_INT(rows[2], 2500 - 2048);
    sl_chunk_reset(c);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_END);
    CHECK_INT(c->nrows, 0);
    s->ops->free(s);
    sl_kvlist_free(o);

    /* zero rows; and a subtask that owns no row */
    o = opts("connector", "datagen", "number-of-rows", "0", NULL);
    s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_chunk_reset(c);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_END);
    CHECK_INT(c->nrows, 0);
    s->ops->free(s);
    sl_kvlist_free(o);
    o = opts("connector", "datagen", "number-of-rows", "3", NULL);
    int total = 0;
    for (int k = 0; k < 5; k++) {
        fclock ck = {T0, SL_NANOS_PER_SEC};
        s = mk(&t, o, k, 5, &err);
        REQUIRE(s);
        sl_datagen_set_clock(s, fclock_now, &ck);
        sl_chunk_reset(c);
        int rc = s->ops->poll(s, c, &err);
        if (k >= 3) {
            CHECK_INT(rc, SL_SOURCE_END);
            CHECK_INT(c->nrows, 0);
        }
        for (int i = 0; rc == SL_SOURCE_MORE && i < 10; i++)
            rc = s->ops->poll(s, c, &err);
        CHECK_INT(rc, SL_SOURCE_END);
        total += c->nrows;
        s->ops->free(s);
    }
    CHECK_INT(total, 3);
    sl_kvlist_free(o);
    sl_chunk_free(c);
}

static void t_sequence_exhaustion(void)
{
    table t = {0};
    add_col(&t, "id", sl_type_make(SL_TYPE_BIGINT));
    add_col(&t, "s", sl_type_make_p(SL_TYPE_VARCHAR, 3, 0));
    add_col(&t, "q", sl_type_make_p(SL_TYPE_DECIMAL, 6, 2));
    add_col(&t, "r", sl_type_make(SL_TYPE_INT));
    sl_error err = SL_ERROR_INIT;
    /* id has 500 values, s 600 and q 900: the shortest (id) ends the table */
    sl_kvlist *o = opts("connector", "datagen", "fields.id.kind", "sequence", "fields.id.start",
                        "10", "fields.id.end", "509", "fields.s.kind", "sequence", "fields.s.start",
                        "-99", "fields.s.end", "500", "fields.q.kind", "sequence", "fields.q.start",
                        "1.5", "fields.q.end", "900.5", NULL);
    for (int par = 1; par <= 4; par += 3) {
        int seen[500] = {0}, bad = 0, total = 0;
        for (int k = 0; k < par; k++) {
            fclock clk = {T0, SL_NANOS_PER_SEC};
            sl_source *s = mk(&t, o, k, par, &err);
            REQUIRE(s);
            sl_datagen_set_clock(s, fclock_now, &clk);
            sl_chunk *rows = NULL;
            bool ended;
            int n = collect(s, &t, 100, 10000, &rows, &ended);
            CHECK(ended);
            total += n;
            for (int r = 0; r < rows->nrows; r++) {
                int64_t id = rows->cols[0].v.i64[r];
                if (rows->cols[0].nulls[r] || id < 10 || id > 509) {
                    bad++;
                    continue;
                }
                seen[id - 10]++;
                /* row i has start + i in every sequence column */
                char want[16];
                snprintf(want, sizeof want, "%lld", (long long)(id - 10 - 99));
                sl_str sv = rows->cols[1].v.str[r];
                bad += sv.len != strlen(want) || memcmp(sv.ptr, want, sv.len) != 0;
                bad += rows->cols[2].v.i128[r] != (sl_i128)(id - 10) * 100 + 150;
            }
            sl_chunk_free(rows);
            s->ops->free(s);
        }
        CHECK_INT(total, 500);
        CHECK_INT(bad, 0);
        int once = 0;
        for (int i = 0; i < 500; i++)
            once += seen[i] == 1;
        CHECK_INT(once, 500);
    }
    sl_kvlist_free(o);

    /* number-of-rows below the sequence length wins */
    o = opts("connector", "datagen", "number-of-rows", "7", "fields.id.kind", "sequence",
             "fields.id.start", "1", "fields.id.end", "100", NULL);
    fclock clk = {T0, SL_NANOS_PER_SEC};
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_datagen_set_clock(s, fclock_now, &clk);
    sl_chunk *rows = NULL;
    bool ended;
    CHECK_INT(collect(s, &t, 100, 1000, &rows, &ended), 7);
    CHECK(ended);
    CHECK_INT(rows->cols[0].v.i64[6], 7);
    sl_chunk_free(rows);
    s->ops->free(s);
    sl_kvlist_free(o);

    /* a full-range sequence is effectively unbounded (no overflow) */
    o = opts("connector", "datagen", "fields.id.kind", "sequence", "fields.id.start",
             "-9223372036854775808", "fields.id.end", "9223372036854775807", NULL);
    clk.t = T0;
    s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_datagen_set_clock(s, fclock_now, &clk);
    rows = NULL;
    CHECK_INT(collect(s, &t, 100, 300, &rows, &ended), 300);
    CHECK(!ended);
    CHECK(rows->cols[0].v.i64[0] == INT64_MIN);
    CHECK(rows->cols[0].v.i64[299] == INT64_MIN + 299);
    sl_chunk_free(rows);
    s->ops->free(s);
    sl_kvlist_free(o);
}

static void t_rate_limit(void)
{
    table t = {0};
    add_col(&t, "x", sl_type_make(SL_TYPE_INT));
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *o = opts("connector", "datagen", "rows-per-second", "1000", NULL);
    sl_chunk *c = sl_chunk_new(1, t.types, 1024);

    fclock clk = {T0, 0};
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_datagen_set_clock(s, fclock_now, &clk);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_MORE); /* t = 0: nothing yet */
    CHECK_INT(c->nrows, 0);
    clk.t = T0 + SL_NANOS_PER_SEC / 2;
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_MORE);
    CHECK_INT(c->nrows, 500);
    sl_chunk_reset(c);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_MORE); /* same instant: ahead of the rate */
    CHECK_INT(c->nrows, 0);
    /* uneven steps: the running total never exceeds rate * elapsed */
    int64_t total = 500, over = 0;
    for (int i = 1; i <= 200; i++) {
        clk.t += (i * 7919 % 13) * SL_NANOS_PER_MILLI;
        sl_chunk_reset(c);
        s->ops->poll(s, c, &err);
        total += c->nrows;
        int64_t allowed = (clk.t - T0) * 1000 / SL_NANOS_PER_SEC;
        over += total > allowed;
        if (i == 200)
            CHECK(total >= allowed - 1); /* and keeps up */
    }
    CHECK_INT(over, 0);
    /* far behind: one poll gives at most a chunk */
    clk.t += 100 * SL_NANOS_PER_SEC;
    sl_chunk_reset(c);
    s->ops->poll(s, c, &err);
    CHECK_INT(c->nrows, 1024);
    s->ops->free(s);

    /* the rate is the total over subtasks */
    int sum = 0;
    for (int k = 0; k < 2; k++) {
        fclock ck = {T0, 0};
        s = mk(&t, o, k, 2, &err);
        REQUIRE(s);
        sl_datagen_set_clock(s, fclock_now, &ck);
        sl_chunk_reset(c);
        s->ops->poll(s, c, &err);
        ck.t = T0 + SL_NANOS_PER_SEC / 2;
        s->ops->poll(s, c, &err);
        CHECK_INT(c->nrows, 250);
        sum += c->nrows;
        s->ops->free(s);
    }
    CHECK_INT(sum, 500);

    /* on the real clock, ahead of the rate, poll returns promptly with no rows */
    sl_kvlist *slow = opts("connector", "datagen", "rows-per-second", "1", NULL);
    s = mk(&t, slow, 0, 1, &err);
    REQUIRE(s);
    sl_chunk_reset(c);
    int64_t t1 = sl_now_nanos();
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_MORE);
    int64_t spent = sl_now_nanos() - t1;
    CHECK(c->nrows == 0);
    CHECK(spent < 500 * SL_NANOS_PER_MILLI);
    s->ops->free(s);
    sl_kvlist_free(slow);
    sl_chunk_free(c);
    sl_kvlist_free(o);
}

static void t_bounds_and_nulls(void)
{
    table t = {0};
    add_col(&t, "ti", sl_type_make(SL_TYPE_TINYINT));
    add_col(&t, "bi", sl_type_make(SL_TYPE_BIGINT));
    add_col(&t, "d", sl_type_make(SL_TYPE_DOUBLE));
    add_col(&t, "f", sl_type_make(SL_TYPE_FLOAT));
    add_col(&t, "q", sl_type_make_p(SL_TYPE_DECIMAL, 5, 2));
    add_col(&t, "s", sl_type_make_p(SL_TYPE_VARCHAR, 50, 0));
    add_col(&t, "s5", sl_type_make_p(SL_TYPE_VARCHAR, 5, 0));
    add_col(&t, "by", sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0));
    add_col(&t, "n30", sl_type_make(SL_TYPE_INT));
    add_col(&t, "n100", sl_type_make(SL_TYPE_INT));
    sl_type nn = sl_type_make(SL_TYPE_INT);
    nn.not_null = true;
    add_col(&t, "nn", nn);
    sl_kvlist *o = opts("connector", "datagen", "number-of-rows", "10000", "fields.ti.min", "-5",
                        "fields.ti.max", "5", "fields.bi.min", "1000", "fields.bi.max", "1000000",
                        "fields.d.min", "-1.5", "fields.d.max", "2.5", "fields.f.min", "0.1",
                        "fields.f.max", "0.2", "fields.q.min", "-3.333", "fields.q.max", "7.777",
                        "fields.s.length", "10", "fields.by.length", "7", "fields.n30.null-rate",
                        "0.3", "fields.n100.null-rate", "1", "fields.nn.null-rate", "0.5", NULL);
    sl_error err = SL_ERROR_INIT;
    fclock clk = {T0, SL_NANOS_PER_SEC};
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_datagen_set_clock(s, fclock_now, &clk);
    sl_chunk *c = NULL;
    bool ended;
    REQUIRE(collect(s, &t, 1024, 10000, &c, &ended) == 10000);
    CHECK(ended);
    int out = 0, nulls_other = 0, n30 = 0, n100 = 0, ti_seen[11] = {0};
    double dmin = 1e9, dmax = -1e9;
    sl_i128 qmin = 100000, qmax = -100000;
    for (int r = 0; r < c->nrows; r++) {
        for (int i = 0; i < 8; i++)
            nulls_other += c->cols[i].nulls[r];
        nulls_other += c->cols[10].nulls[r];
        n30 += c->cols[8].nulls[r];
        n100 += c->cols[9].nulls[r];
        int64_t ti = c->cols[0].v.i64[r], bi = c->cols[1].v.i64[r];
        out += ti < -5 || ti > 5;
        if (ti >= -5 && ti <= 5)
            ti_seen[ti + 5]++;
        out += bi < 1000 || bi > 1000000;
        double d = c->cols[2].v.f64[r], f = c->cols[3].v.f64[r];
        out += d < -1.5 || d > 2.5;
        dmin = d < dmin ? d : dmin;
        dmax = d > dmax ? d : dmax;
        out += f < 0.1 || f > 0.2 || (double)(float)f != f;
        sl_i128 q = c->cols[4].v.i128[r];
        out += q < -333 || q > 777;
        qmin = q < qmin ? q : qmin;
        qmax = q > qmax ? q : qmax;
        out += c->cols[5].v.str[r].len != 10 || c->cols[6].v.str[r].len != 5 ||
               c->cols[7].v.str[r].len != 7;
    }
    CHECK_INT(out, 0);
    CHECK_INT(nulls_other, 0);
    CHECK_INT(n100, 10000);
    CHECK(n30 > 2700 && n30 < 3300);
    int all_ti = 0;
    for (int i = 0; i < 11; i++)
        all_ti += ti_seen[i] > 0;
    CHECK_INT(all_ti, 11); /* both ends are reached */
    CHECK(dmin < -1.4 && dmax > 2.4);
    CHECK(qmin < -300 && qmax > 740);
    sl_chunk_free(c);
    s->ops->free(s);
    sl_kvlist_free(o);
}

static void t_types_valid(void)
{
    table t;
    all_types(&t);
    sl_kvlist *o = all_types_opts("4000");
    sl_error err = SL_ERROR_INIT;
    const int64_t base = T0 + 12345 * SL_NANOS_PER_SEC + 987654321; /* 03:25:45.987654321 */
    fclock clk = {base, 0};
    sl_source *s = mk(&t, o, 0, 1, &err);
    REQUIRE(s);
    sl_datagen_set_clock(s, fclock_now, &clk);
    sl_chunk *c = sl_chunk_new(t.ncols, t.types, 4000);
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_MORE); /* sets base and t0 */
    clk.t += 1000 * SL_NANOS_PER_SEC;
    CHECK_INT(s->ops->poll(s, c, &err), SL_SOURCE_END);
    REQUIRE(c->nrows == 4000);
    int bad = 0, trues = 0, i_nulls = 0, dec_nulls = 0;
    int64_t ts_lo = sl_time_truncate(base - 3600 * SL_NANOS_PER_SEC, 3);
    int64_t ltz_lo = sl_time_truncate(base - 600 * SL_NANOS_PER_SEC, 6);
    for (int r = 0; r < c->nrows; r++) {
        for (int i = 0; i < t.ncols; i++)
            if (c->cols[i].nulls[r] && i != 3 && i != 7)
                bad++;
        i_nulls += c->cols[3].nulls[r];
        dec_nulls += c->cols[7].nulls[r];
        trues += c->cols[0].v.b[r] == 1;
        bad += c->cols[0].v.b[r] > 1;
        bad += c->cols[1].v.i64[r] < INT8_MIN || c->cols[1].v.i64[r] > INT8_MAX;
        bad += c->cols[2].v.i64[r] < INT16_MIN || c->cols[2].v.i64[r] > INT16_MAX;
        if (!c->cols[3].nulls[r])
            bad += c->cols[3].v.i64[r] < INT32_MIN || c->cols[3].v.i64[r] > INT32_MAX;
        double f = c->cols[5].v.f64[r];
        bad += (double)(float)f != f;
        if (!c->cols[7].nulls[r])
            bad += !sl_dec_fits(c->cols[7].v.i128[r], 10);
        bad += !sl_dec_fits(c->cols[8].v.i128[r], 38);
        for (int sc = 9; sc <= 12; sc++) {
            sl_str v = c->cols[sc].v.str[r];
            uint32_t want = sc == 9 ? 4 : sc == 10 ? 12 : sc == 11 ? 3 : 16;
            bad += v.len != want;
            for (uint32_t k = 0; sc <= 10 && k < v.len; k++)
                bad +=
                    !((v.ptr[k] >= 'a' && v.ptr[k] <= 'z') || (v.ptr[k] >= '0' && v.ptr[k] <= '9'));
        }
        /* row r's instant: base + r / 10000 rows per second (the default rate) */
        int64_t at = base + (int64_t)r * (SL_NANOS_PER_SEC / 10000);
        bad += c->cols[13].v.i64[r] != 20454; /* 2026-01-01 */
        bad += c->cols[14].v.i64[r] != sl_time_truncate(at - T0, 3);
        int64_t ts = c->cols[15].v.i64[r], ltz = c->cols[16].v.i64[r];
        bad += ts < ts_lo || ts > at || ts % SL_NANOS_PER_MILLI != 0;
        bad += ltz < ltz_lo || ltz > at || ltz % 1000 != 0;
        bad += c->cols[17].v.i64[r] != r + 1;
    }
    CHECK_INT(bad, 0);
    CHECK(trues > 1800 && trues < 2200);
    CHECK(i_nulls > 650 && i_nulls < 950);     /* 0.2 */
    CHECK(dec_nulls > 280 && dec_nulls < 520); /* 0.1 */
    /* timestamps spread over the window */
    int64_t mn = INT64_MAX;
    for (int r = 0; r < c->nrows; r++)
        mn = c->cols[15].v.i64[r] < mn ? c->cols[15].v.i64[r] : mn;
    CHECK(mn < base - 3500 * SL_NANOS_PER_SEC);
    /* values print (every type has a text form) */
    char *txt = row_text(c, 0);
    CHECK(strlen(txt) > 40);
    sl_free(txt);
    sl_chunk_free(c);
    s->ops->free(s);
    sl_kvlist_free(o);
}

static void t_create_errors(void)
{
    sl_error err = SL_ERROR_INIT;
    struct {
        sl_type type;
        const char *k1, *v1, *k2, *v2;
        const char *state;
    } cases[] = {
        {sl_type_make(SL_TYPE_INTERVAL_DT), NULL, NULL, NULL, NULL, SL_ERR_NOT_SUPPORTED},
        {sl_type_make(SL_TYPE_INT), "fields.x.min", "abc", NULL, NULL, SL_ERR_INVALID_PARAMETER},
        {sl_type_make(SL_TYPE_TINYINT), "fields.x.max", "300", NULL, NULL,
         SL_ERR_INVALID_PARAMETER},
        {sl_type_make_p(SL_TYPE_DECIMAL, 4, 2), "fields.x.max", "100", NULL, NULL,
         SL_ERR_INVALID_PARAMETER},
        {sl_type_make_p(SL_TYPE_DECIMAL, 4, 2), "fields.x.min", "1.001", "fields.x.max", "1.009",
         SL_ERR_INVALID_PARAMETER},
        {sl_type_make_p(SL_TYPE_VARCHAR, 2, 0), "fields.x.kind", "sequence", "fields.x.start", "1",
         SL_ERR_INVALID_PARAMETER}, /* no end */
        {sl_type_make(SL_TYPE_DATE), "fields.x.kind", "sequence", NULL, NULL, SL_ERR_NOT_SUPPORTED},
        {sl_type_make(SL_TYPE_INT), "fields.x.null-rate", "1.5", NULL, NULL,
         SL_ERR_INVALID_PARAMETER},
        {sl_type_make(SL_TYPE_INT), "rows-per-second", "0", NULL, NULL, SL_ERR_INVALID_PARAMETER},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        table t = {0};
        add_col(&t, "x", cases[i].type);
        sl_kvlist *o = opts("connector", "datagen", NULL);
        if (cases[i].k1)
            sl_kvlist_add(o, cases[i].k1, cases[i].v1, 1, 2);
        if (cases[i].k2)
            sl_kvlist_add(o, cases[i].k2, cases[i].v2, 3, 4);
        if (cases[i].type.id == SL_TYPE_DATE) {
            sl_kvlist_add(o, "fields.x.start", "1", 5, 6);
            sl_kvlist_add(o, "fields.x.end", "2", 7, 8);
        }
        sl_source *s = mk(&t, o, 0, 1, &err);
        CHECK(s == NULL);
        if (strcmp(err.sqlstate, cases[i].state) != 0)
            fprintf(stderr, "case %zu: %s %s\n", i, err.sqlstate, err.message ? err.message : "");
        CHECK_STR(err.sqlstate, cases[i].state);
        if (s)
            s->ops->free(s);
        sl_error_reset(&err);
        sl_kvlist_free(o);
    }
    /* a string sequence must fit the column */
    table t = {0};
    add_col(&t, "x", sl_type_make_p(SL_TYPE_VARCHAR, 2, 0));
    sl_kvlist *o = opts("connector", "datagen", "fields.x.kind", "sequence", "fields.x.start", "1",
                        "fields.x.end", "100", NULL);
    CHECK(mk(&t, o, 0, 1, &err) == NULL);
    CHECK_STR(err.sqlstate, SL_ERR_INVALID_PARAMETER);
    CHECK(err.message && strstr(err.message, "need 3 characters"));
    sl_error_reset(&err);
    sl_kvlist_free(o);
}

/* Event time moves with the rows: row i's timestamp is the first poll's
** instant + i / rate (max-past 0), at every parallelism, and a restored
** incarnation continues the sequence of instants. */
static void t_time_moves(void)
{
    table t = {0};
    add_col(&t, "ts", sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0));
    add_col(&t, "late", sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0));
    sl_kvlist *o = opts("connector", "datagen", "rows-per-second", "100", "number-of-rows", "600",
                        "fields.late.max-past", "2 s", NULL);
    sl_error err = SL_ERROR_INIT;
    for (int par = 1; par <= 2; par++) {
        for (int k = 0; k < par; k++) {
            fclock ca = {T0, SL_NANOS_PER_SEC}; /* plenty of time: the rate never holds back */
            sl_source *a = mk(&t, o, k, par, &err);
            REQUIRE(a);
            sl_datagen_set_clock(a, fclock_now, &ca);
            sl_chunk *head = NULL, *rest = NULL;
            bool ended;
            CHECK_INT(collect(a, &t, 50, 100, &head, &ended), 100);
            sl_strbuf pos = SL_STRBUF_INIT;
            REQUIRE(a->ops->position(a, &pos, &err) == 0);
            a->ops->free(a);
            /* restored a minute later by its clock: time continues from row 100 */
            fclock cb = {T0 + 60 * SL_NANOS_PER_SEC, SL_NANOS_PER_SEC};
            sl_source *b = mk(&t, o, k, par, &err);
            REQUIRE(b);
            sl_datagen_set_clock(b, fclock_now, &cb);
            REQUIRE(b->ops->seek(b, pos.buf, pos.len, &err) == 0);
            CHECK_INT(collect(b, &t, 64, 1000, &rest, &ended), 600 / par - 100);
            CHECK(ended);
            int bad = 0, spread = 0;
            for (int r = 0; r < 600 / par; r++) {
                const sl_chunk *c = r < 100 ? head : rest;
                int cr = r < 100 ? r : r - 100;
                int64_t i = (int64_t)r * par + k; /* the table's row index */
                int64_t at = T0 + i * 10 * SL_NANOS_PER_MILLI;
                bad += c->cols[0].v.i64[cr] != at;
                int64_t late = c->cols[1].v.i64[cr];
                bad += late > at || late < at - 2 * SL_NANOS_PER_SEC;
                spread += late < at - SL_NANOS_PER_SEC;
            }
            CHECK_INT(bad, 0);
            CHECK(spread > 600 / par / 4); /* the lateness is random within max-past */
            sl_strbuf_free(&pos);
            sl_chunk_free(head);
            sl_chunk_free(rest);
            b->ops->free(b);
        }
    }
    sl_kvlist_free(o);
}

static void t_registry(void)
{
    const sl_connector *dg = sl_connector_find("datagen");
    REQUIRE(dg);
    CHECK(dg->create_source == sl_datagen_create);
    CHECK(dg->create_sink == NULL);
}

SL_TESTS(t_determinism, t_seek_replay, t_seek_errors, t_parallel_split, t_number_of_rows,
         t_sequence_exhaustion, t_rate_limit, t_bounds_and_nulls, t_types_valid, t_create_errors,
         t_time_moves, t_registry)
