/*
** test_connectors_print.c — the print sink's exact output (Flink's
** "<id>> +I[1, abc, null]" lines) for +I / -U / +U / -D rows of several
** types with NULLs, with and without print-identifier, with parallelism
** (the subtask number in the prefix), its no-op commit protocol; and the
** blackhole sink's row count.
*/
#include <stdarg.h>

#include "blackhole/blackhole.h"
#include "print/print.h"
#include "sl_connector.h"
#include "sl_test.h"

static sl_kvlist *opts(const char *key, ...)
{
    sl_kvlist *l = sl_kvlist_new();
    va_list ap;
    va_start(ap, key);
    for (; key; key = va_arg(ap, const char *))
        sl_kvlist_add(l, key, va_arg(ap, const char *), -1, -1);
    va_end(ap);
    return l;
}

static const char *const col_names[] = {"id", "name", "price", "ok", "ts", "d", "raw", "x"};
static sl_type types[8];

static void init_types(void)
{
    types[0] = sl_type_make(SL_TYPE_BIGINT);
    types[1] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    types[2] = sl_type_make_p(SL_TYPE_DECIMAL, 10, 2);
    types[3] = sl_type_make(SL_TYPE_BOOLEAN);
    types[4] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    types[5] = sl_type_make(SL_TYPE_DOUBLE);
    types[6] = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    types[7] = sl_type_make(SL_TYPE_INT);
}

/* Four rows, one of each kind; row 3 is all NULL. */
static sl_chunk *sample(void)
{
    init_types();
    sl_chunk *c = sl_chunk_new(8, types, 8);
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_i64(c, 0, r, 1);
    sl_chunk_set_str(c, 1, r, "abc", 3);
    sl_chunk_set_i128(c, 2, r, 1250);
    sl_chunk_set_bool(c, 3, r, true);
    sl_chunk_set_i64(c, 4, r, 1767225600LL * SL_NANOS_PER_SEC + 123 * SL_NANOS_PER_MILLI);
    sl_chunk_set_f64(c, 5, r, 0.5);
    sl_chunk_set_str(c, 6, r, "\x0a\xff", 2);
    /* x stays NULL */
    r = sl_chunk_append_row(c, SL_ROW_UPDATE_BEFORE);
    sl_chunk_set_i64(c, 0, r, -2);
    sl_chunk_set_str(c, 1, r, "", 0);
    sl_chunk_set_i128(c, 2, r, -5);
    sl_chunk_set_bool(c, 3, r, false);
    sl_chunk_set_i64(c, 7, r, 7);
    r = sl_chunk_append_row(c, SL_ROW_UPDATE_AFTER);
    sl_chunk_set_i64(c, 0, r, -2);
    sl_chunk_set_str(c, 1, r, "x, y", 4);
    sl_chunk_set_i64(c, 7, r, 8);
    sl_chunk_append_row(c, SL_ROW_DELETE);
    return c;
}

#define LINE0 "+I[1, abc, 12.50, true, 2026-01-01 00:00:00.123, 0.5, x'0aff', null]\n"
#define LINE1 "-U[-2, , -0.05, false, null, null, null, 7]\n"
#define LINE2 "+U[-2, x, y, null, null, null, null, null, 8]\n"
#define LINE3 "-D[null, null, null, null, null, null, null, null]\n"

/* A print sink for options o, instance k of p, writing to f. */
static sl_sink *mk(const char *conn, const sl_kvlist *o, int k, int p, FILE *f)
{
    const sl_connector *c = sl_connector_find(conn);
    if (!c || !c->create_sink)
        return NULL;
    init_types();
    sl_sink_args a = {.options = o,
                      .ncols = 8,
                      .names = col_names,
                      .types = types,
                      .subtask = k,
                      .parallelism = p,
                      .table = "t",
                      .job = "j"};
    sl_sink *s = NULL;
    sl_error err = SL_ERROR_INIT;
    if (c->create_sink(&a, &s, &err) != 0) {
        fprintf(stderr, "create: %s\n", err.message ? err.message : "?");
        sl_error_reset(&err);
        return NULL;
    }
    if (f)
        sl_print_set_output(s, f);
    return s;
}

/* Everything written to f so far (caller frees). */
static char *contents(FILE *f)
{
    long n = ftell(f);
    char *buf = calloc(1, (size_t)n + 1);
    rewind(f);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf[0] = 0;
    return buf;
}

/* Output of one print sink (options o, subtask k of p) for the sample. */
static char *print_sample(const sl_kvlist *o, int k, int p)
{
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    sl_sink *s = mk("print", o, k, p, f);
    if (!s) {
        fclose(f);
        return NULL;
    }
    sl_chunk *c = sample();
    sl_error err = SL_ERROR_INIT;
    sl_strbuf com = SL_STRBUF_INIT;
    int rc = s->ops->begin(s, 1, &err);
    rc |= s->ops->write(s, c, &err);
    rc |= s->ops->pre_commit(s, 1, &com, &err);
    rc |= com.len != 0; /* empty committable */
    rc |= s->ops->commit(s, "", 0, &err);
    rc |= s->ops->abort(s, "", 0, &err);
    rc |= s->ops->recover(s, NULL, NULL, 0, &err);
    s->ops->free(s);
    sl_chunk_free(c);
    sl_strbuf_free(&com);
    char *out = rc == 0 ? contents(f) : NULL;
    fclose(f);
    return out;
}

static void t_plain(void)
{
    sl_kvlist *o = opts("connector", "print", NULL);
    char *out = print_sample(o, 0, 1);
    CHECK_STR(out, LINE0 LINE1 LINE2 LINE3);
    free(out);
    sl_kvlist_free(o);
}

static void t_identifier(void)
{
    sl_kvlist *o = opts("connector", "print", "print-identifier", "sink1", NULL);
    char *out = print_sample(o, 0, 1);
    CHECK_STR(out, "sink1> " LINE0 "sink1> " LINE1 "sink1> " LINE2 "sink1> " LINE3);
    free(out);
    sl_kvlist_free(o);
}

static void t_parallel_prefix(void)
{
    /* Flink: "<id>:<subtask + 1>> " with parallelism > 1, "<subtask + 1>> " without id */
    sl_kvlist *o = opts("connector", "print", "print-identifier", "out", NULL);
    char *out = print_sample(o, 1, 3);
    CHECK_STR(out, "out:2> " LINE0 "out:2> " LINE1 "out:2> " LINE2 "out:2> " LINE3);
    free(out);
    sl_kvlist_free(o);
    o = opts("connector", "print", NULL);
    out = print_sample(o, 2, 3);
    CHECK_STR(out, "3> " LINE0 "3> " LINE1 "3> " LINE2 "3> " LINE3);
    free(out);
    sl_kvlist_free(o);
}

static void t_order_and_empty(void)
{
    /* several writes appear in order; an empty chunk prints nothing */
    FILE *f = tmpfile();
    REQUIRE(f);
    sl_kvlist *o = opts("connector", "print", "standard-error", "true", NULL);
    sl_sink *s = mk("print", o, 0, 1, f);
    REQUIRE(s);
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sample(), *empty = sl_chunk_new(8, types, 1);
    CHECK_INT(s->ops->write(s, c, &err), 0);
    CHECK_INT(s->ops->write(s, empty, &err), 0);
    CHECK_INT(s->ops->write(s, c, &err), 0);
    char *out = contents(f); /* visible before pre_commit */
    CHECK_STR(out, LINE0 LINE1 LINE2 LINE3 LINE0 LINE1 LINE2 LINE3);
    free(out);
    s->ops->free(s);
    sl_chunk_free(c);
    sl_chunk_free(empty);
    fclose(f);
    sl_kvlist_free(o);
}

static void t_write_error(void)
{
    /* a stream that cannot be written reports 58030 */
    FILE *f = fopen("/dev/null", "r");
    REQUIRE(f);
    sl_kvlist *o = opts("connector", "print", NULL);
    sl_sink *s = mk("print", o, 0, 1, f);
    REQUIRE(s);
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sample();
    CHECK_INT(s->ops->write(s, c, &err), -1);
    CHECK_STR(err.sqlstate, SL_ERR_IO);
    sl_error_reset(&err);
    s->ops->free(s);
    sl_chunk_free(c);
    fclose(f);
    sl_kvlist_free(o);
}

static void t_blackhole(void)
{
    sl_kvlist *o = opts("connector", "blackhole", NULL);
    const sl_connector *bh = sl_connector_find("blackhole");
    REQUIRE(bh && bh->create_sink && !bh->create_source);
    sl_sink *s = mk("blackhole", o, 0, 1, NULL);
    REQUIRE(s);
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sample();
    sl_strbuf com = SL_STRBUF_INIT;
    CHECK_INT(sl_blackhole_rows(s), 0);
    CHECK_INT(s->ops->begin(s, 1, &err), 0);
    CHECK_INT(s->ops->write(s, c, &err), 0);
    CHECK_INT(s->ops->write(s, c, &err), 0);
    CHECK_INT(s->ops->pre_commit(s, 1, &com, &err), 0);
    CHECK_INT(com.len, 0);
    CHECK_INT(s->ops->commit(s, "", 0, &err), 0);
    CHECK_INT(s->ops->recover(s, NULL, NULL, 0, &err), 0);
    CHECK_INT(sl_blackhole_rows(s), 8);
    s->ops->free(s);
    sl_chunk_free(c);
    sl_kvlist_free(o);
    const sl_connector *pr = sl_connector_find("print");
    REQUIRE(pr);
    CHECK(pr->create_sink != NULL && pr->create_source == NULL);
}

SL_TESTS(t_plain, t_identifier, t_parallel_prefix, t_order_and_empty, t_write_error, t_blackhole)
