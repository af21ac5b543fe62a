/*
** test_connectors_stdin.c — the stdin connector: its line reader on files
** and pipes, and the source on a pipe standing in for standard input.
**
** Line reader: every block size from 1 byte (so lines straddle blocks);
** empty lines, CRLF, a lone '\r' inside a line, a last line without
** newline, an empty input, lines far longer than a block, the line limit
** (exactly the limit passes, one byte more fails naming stdin:<line>); on a
** pipe: nothing yet -> WAIT before the deadline, a partial line stays
** pending until its newline comes, a record is returned again until it is
** consumed, the writer's close ends the input.
**
** Source: JSON and CSV rows to END; with p = 2 subtask 0 reads everything
** and subtask 1 ends at once; a second source open at the same time fails
** (55006, naming the table that reads), and after the first is freed a new
** one continues exactly after the last line handed out (line numbers too);
** the script claim refuses every source (55006, hint -f/-e); a malformed
** record names stdin:<line> and the record, ignore-parse-errors skips and
** counts it; poll returns without data; position/seek.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sl_connector.h"
#include "sl_test.h"
#include "stdin/stdin_int.h"

/* ------------------------------------------------------------------------
** Helpers.
*/

/* A file holding text, opened for reading (a regular file: always readable). */
static int file_fd(const char *text, size_t len)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *p = sl_sprintf("%s/stdin-%d.txt", base ? base : "/tmp", (int)getpid());
    sl_error err = SL_ERROR_INIT;
    char *dir = sl_sprintf("%s", base ? base : "/tmp");
    sl_fs_mkdir_p(dir, &err);
    sl_error_reset(&err);
    sl_free(dir);
    FILE *f = fopen(p, "wb");
    REQUIRE(f != NULL);
    REQUIRE(fwrite(text, 1, len, f) == len);
    fclose(f);
    int fd = open(p, O_RDONLY);
    unlink(p);
    sl_free(p);
    REQUIRE(fd >= 0);
    return fd;
}

static int64_t soon(void)
{
    return sl_monotonic_nanos() + 20 * 1000000LL;
}

/* Every record of L until EOF, each followed by '|'; a record that is not
** valid text is shown as is. Returns the last result (EOF or -1). */
static int all_lines(sl__lines *L, sl_strbuf *out, sl_error *err)
{
    for (int i = 0; i < 1000000; i++) {
        const char *rec;
        size_t len;
        int rc = sl__lines_next(L, soon(), "stdin", &rec, &len, err);
        if (rc != SL__LINES_LINE)
            return rc;
        sl_strbuf_append_n(out, rec, len);
        sl_strbuf_append_char(out, '|');
        sl__lines_consume(L);
    }
    return -1;
}

/* The records of text read in blocks of block bytes, '|'-terminated. */
static char *lines_of(const char *text, size_t block, int *rc_out, int64_t *nlines)
{
    int fd = file_fd(text, strlen(text));
    sl__lines L;
    sl__lines_init(&L, fd, block, 1 << 20);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    *rc_out = all_lines(&L, &out, &err);
    *nlines = L.line;
    sl_error_reset(&err);
    sl__lines_fini(&L);
    close(fd);
    return sl_strbuf_detach(&out);
}

static void write_all(int fd, const char *s)
{
    size_t n = strlen(s);
    REQUIRE(write(fd, s, n) == (ssize_t)n);
}

/* ------------------------------------------------------------------------
** Line reader.
*/
static void t_lines_split(void)
{
    static const struct {
        const char *in, *want;
        int64_t lines;
    } cases[] = {
        {"a\nbb\n\nccc\n", "a|bb||ccc|", 4},
        {"a\nbb\n\nccc", "a|bb||ccc|", 4}, /* no newline at the end */
        {"", "", 0},                       /* empty input: no record */
        {"\n", "|", 1},                    /* one empty line */
        {"\n\n\n", "|||", 3},
        {"x\r\ny\r\n\r\nz", "x|y||z|", 4},     /* CRLF */
        {"x\r\nlast\r", "x|last|", 2},         /* CR before the end of input */
        {"a\rb\nc\r\rd\n", "a\rb|c\r\rd|", 2}, /* a '\r' not before '\n' stays */
        {"{\"id\": 1}\n{\"id\": 2}\n", "{\"id\": 1}|{\"id\": 2}|", 2},
    };
    size_t blocks[] = {1, 2, 3, 7, 64 * 1024};
    for (size_t c = 0; c < SL_ARRAY_LEN(cases); c++) {
        for (size_t b = 0; b < SL_ARRAY_LEN(blocks); b++) {
            int rc = 0;
            int64_t n = 0;
            char *got = lines_of(cases[c].in, blocks[b], &rc, &n);
            if (strcmp(got, cases[c].want) != 0 || n != cases[c].lines)
                fprintf(stderr, "case %zu, block %zu: got \"%s\" (%lld lines)\n", c, blocks[b], got,
                        (long long)n);
            CHECK_STR(got, cases[c].want);
            CHECK_INT(rc, SL__LINES_EOF);
            CHECK_INT(n, cases[c].lines);
            sl_free(got);
        }
    }
}

/* Lines far longer than a block, and the line limit. */
static void t_lines_long(void)
{
    size_t big = 200 * 1000;
    sl_strbuf in = SL_STRBUF_INIT;
    sl_strbuf want = SL_STRBUF_INIT;
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < big; i++)
            sl_strbuf_append_char(&in, (char)('a' + (i + (size_t)k) % 26));
        sl_strbuf_append(&in, k == 1 ? "\r\n" : "\n");
        sl_strbuf_append(&in, "short\n");
    }
    /* want: the same lines without their breaks, '|'-terminated */
    for (const char *p = in.buf; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = (size_t)(nl - p);
        if (n > 0 && p[n - 1] == '\r')
            n--;
        sl_strbuf_append_n(&want, p, n);
        sl_strbuf_append_char(&want, '|');
        p = nl + 1;
    }
    size_t blocks[] = {7, 4096, 64 * 1024};
    for (size_t b = 0; b < SL_ARRAY_LEN(blocks); b++) {
        int rc = 0;
        int64_t n = 0;
        char *got = lines_of(in.buf, blocks[b], &rc, &n);
        CHECK_INT(strlen(got), want.len);
        CHECK(strcmp(got, want.buf) == 0);
        CHECK_INT(rc, SL__LINES_EOF);
        CHECK_INT(n, 6);
        sl_free(got);
    }

    /* The limit: 10 bytes pass (also as the last line without newline),
    ** 11 fail, naming the line. */
    static const char *const ok[] = {"0123456789\nab\n", "ab\n0123456789", "ab\n0123456789\r\n"};
    for (size_t i = 0; i < SL_ARRAY_LEN(ok); i++) {
        int fd = file_fd(ok[i], strlen(ok[i]));
        sl__lines L;
        sl__lines_init(&L, fd, 3, 10);
        sl_strbuf out = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        CHECK_INT(all_lines(&L, &out, &err), SL__LINES_EOF);
        CHECK_INT(L.line, 2);
        sl_strbuf_free(&out);
        sl_error_reset(&err);
        sl__lines_fini(&L);
        close(fd);
    }
    static const char *const bad[] = {"ab\n0123456789X\nc\n", "ab\n0123456789X",
                                      "ab\n0123456789XYZ and much more without an end"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        for (size_t block = 1; block <= 64; block *= 4) {
            int fd = file_fd(bad[i], strlen(bad[i]));
            sl__lines L;
            sl__lines_init(&L, fd, block, 10);
            sl_strbuf out = SL_STRBUF_INIT;
            sl_error err = SL_ERROR_INIT;
            CHECK_INT(all_lines(&L, &out, &err), -1);
            CHECK_STR(sl_strbuf_cstr(&out), "ab|");
            CHECK_STR(err.sqlstate, "54000");
            CHECK_STR(err.message, "record too long in stdin:2");
            sl_strbuf_free(&out);
            sl_error_reset(&err);
            sl__lines_fini(&L);
            close(fd);
        }
    }
    sl_strbuf_free(&in);
    sl_strbuf_free(&want);
}

/* A pipe: no data yet, partial lines, a record until consumed, the end. */
static void t_lines_pipe(void)
{
    int p[2];
    REQUIRE(pipe(p) == 0);
    sl__lines L;
    sl__lines_init(&L, p[0], 4, 1 << 20);
    sl_error err = SL_ERROR_INIT;
    const char *rec = NULL;
    size_t len = 0;
    /* Nothing written: WAIT once the deadline passes (also one already past). */
    CHECK_INT(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err), SL__LINES_WAIT);
    CHECK_INT(sl__lines_next(&L, 0, "stdin", &rec, &len, &err), SL__LINES_WAIT);
    /* A partial line is not a record yet. */
    write_all(p[1], "part");
    CHECK_INT(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err), SL__LINES_WAIT);
    write_all(p[1], "ial\nnext");
    REQUIRE(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err) == SL__LINES_LINE);
    CHECK(len == 7 && memcmp(rec, "partial", 7) == 0);
    /* Not consumed: the same record again. */
    REQUIRE(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err) == SL__LINES_LINE);
    CHECK(len == 7 && memcmp(rec, "partial", 7) == 0);
    CHECK_INT(L.line, 0);
    sl__lines_consume(&L);
    CHECK_INT(L.line, 1);
    /* "next" waits for its newline while the pipe is open... */
    CHECK_INT(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err), SL__LINES_WAIT);
    /* ...and is the last record once the writer closes. */
    close(p[1]);
    REQUIRE(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err) == SL__LINES_LINE);
    CHECK(len == 4 && memcmp(rec, "next", 4) == 0);
    sl__lines_consume(&L);
    CHECK_INT(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err), SL__LINES_EOF);
    CHECK_INT(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err), SL__LINES_EOF);
    CHECK_INT(L.line, 2);
    sl__lines_fini(&L);
    close(p[0]);
    /* A closed fd is an error, not an endless wait. */
    sl__lines_init(&L, p[0], 4, 1 << 20);
    CHECK_INT(sl__lines_next(&L, soon(), "stdin", &rec, &len, &err), -1);
    CHECK_STR(err.sqlstate, "58030");
    sl_error_reset(&err);
    sl__lines_fini(&L);
}

/* ------------------------------------------------------------------------
** The source.
*/
static const char *const cols[] = {"id", "name"};
static sl_type types[2];

static void init_types(void)
{
    types[0] = sl_type_make(SL_TYPE_BIGINT);
    types[1] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
}

static sl_kvlist *options(const char *format, const char *key, const char *value)
{
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "stdin", -1, -1);
    sl_kvlist_add(l, "format", format, -1, -1);
    if (key)
        sl_kvlist_add(l, key, value, -1, -1);
    return l;
}

/* Create a source; NULL with err when that fails. */
static sl_source *try_source(const sl_kvlist *opts, const char *table, int subtask, int p,
                             sl_error *err)
{
    const sl_connector *c = sl_connector_find("stdin");
    REQUIRE(c && c->create_source && !c->create_sink);
    sl_source_args a = {.options = opts,
                        .ncols = 2,
                        .names = cols,
                        .types = types,
                        .subtask = subtask,
                        .parallelism = p,
                        .table = table};
    sl_source *s = NULL;
    if (c->create_source(&a, &s, err) != 0) {
        CHECK(s == NULL);
        return NULL;
    }
    return s;
}

static sl_source *source(const sl_kvlist *opts, int subtask, int p)
{
    sl_error err = SL_ERROR_INIT;
    sl_source *s = try_source(opts, "t", subtask, p, &err);
    if (!s)
        fprintf(stderr, "create_source: %s\n", err.message);
    sl_error_reset(&err);
    REQUIRE(s);
    return s;
}

/* Poll once into a fresh chunk of cap rows; "id|name\n" per row to out. */
static int poll_once(sl_source *s, int cap, sl_strbuf *out, sl_error *err)
{
    sl_chunk *c = sl_chunk_new(2, types, cap);
    int rc = s->ops->poll(s, c, err);
    for (int r = 0; r < c->nrows; r++) {
        for (int i = 0; i < 2; i++) {
            if (i)
                sl_strbuf_append_char(out, '|');
            if (!sl_value_format(out, &c->cols[i], r))
                sl_strbuf_append(out, "NULL");
        }
        sl_strbuf_append_char(out, '\n');
    }
    sl_chunk_free(c);
    return rc;
}

static int drain(sl_source *s, int cap, sl_strbuf *out, sl_error *err)
{
    int rc = SL_SOURCE_MORE;
    for (int i = 0; i < 10000 && rc == SL_SOURCE_MORE; i++)
        rc = poll_once(s, cap, out, err);
    return rc;
}

/* Read fd as standard input from now on; the previous test fd is closed. */
static int test_fd = -1;
static void use_stdin(int fd)
{
    sl__stdin_reset(fd);
    if (test_fd >= 0)
        close(test_fd);
    test_fd = fd > STDERR_FILENO ? fd : -1;
}

/* Standard input is now a pipe holding text, closed (end of input) when
** close_it. Returns the write end (-1 when closed). */
static int stdin_pipe(const char *text, bool close_it)
{
    int p[2];
    REQUIRE(pipe(p) == 0);
    write_all(p[1], text);
    use_stdin(p[0]);
    if (close_it) {
        close(p[1]);
        return -1;
    }
    return p[1];
}

static void t_source_formats(void)
{
    init_types();
    size_t blocks[] = {1, 5, 64 * 1024};
    for (size_t b = 0; b < SL_ARRAY_LEN(blocks); b++) {
        sl__stdin_block_size = blocks[b];
        for (int cap = 1; cap <= 7; cap += 3) {
            stdin_pipe("{\"id\": 1, \"name\": \"a\"}\r\n\n{\"id\": 2, \"name\": \"b\"}\n"
                       "{\"id\": 3}",
                       true);
            sl_kvlist *o = options("json", NULL, NULL);
            sl_source *s = source(o, 0, 1);
            sl_strbuf out = SL_STRBUF_INIT;
            sl_error err = SL_ERROR_INIT;
            CHECK_INT(drain(s, cap, &out, &err), SL_SOURCE_END);
            CHECK_STR(sl_strbuf_cstr(&out), "1|a\n2|b\n3|NULL\n");
            CHECK_INT(poll_once(s, cap, &out, &err), SL_SOURCE_END); /* stays at END */
            CHECK_INT(s->ops->skipped(s), 0);
            sl_strbuf pos = SL_STRBUF_INIT;
            REQUIRE(s->ops->position(s, &pos, &err) == 0);
            CHECK_STR(sl_strbuf_cstr(&pos), "v1 4");
            sl_strbuf_free(&pos);
            s->ops->free(s);
            sl_kvlist_free(o);

            stdin_pipe("1,a\n2,\"b,c\"\r\n\n3,d", true);
            o = options("csv", NULL, NULL);
            s = source(o, 0, 1);
            sl_strbuf_free(&out);
            CHECK_INT(drain(s, cap, &out, &err), SL_SOURCE_END);
            CHECK_STR(sl_strbuf_cstr(&out), "1|a\n2|b,c\n3|d\n");
            s->ops->free(s);
            sl_kvlist_free(o);
            sl_strbuf_free(&out);
            sl_error_reset(&err);
        }
    }
    sl__stdin_block_size = 64 * 1024;
    use_stdin(STDIN_FILENO);
}

/* p = 2: subtask 0 reads all, subtask 1 ends at once (and claims nothing). */
static void t_source_parallel(void)
{
    init_types();
    stdin_pipe("1,a\n2,b\n3,c\n", true);
    sl_kvlist *o = options("csv", NULL, NULL);
    sl_source *s1 = source(o, 1, 2);
    sl_source *s0 = source(o, 0, 2);
    sl_strbuf out0 = SL_STRBUF_INIT, out1 = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(poll_once(s1, 8, &out1, &err), SL_SOURCE_END);
    CHECK_INT(drain(s0, 2, &out0, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out0), "1|a\n2|b\n3|c\n");
    CHECK_STR(sl_strbuf_cstr(&out1), "");
    sl_strbuf pos = SL_STRBUF_INIT;
    REQUIRE(s1->ops->position(s1, &pos, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&pos), "v1 0");
    sl_strbuf_free(&pos);
    s0->ops->free(s0);
    s1->ops->free(s1);
    sl_strbuf_free(&out0);
    sl_strbuf_free(&out1);
    sl_kvlist_free(o);
    use_stdin(STDIN_FILENO);
}

/* One reader at a time; the next one continues after the last line handed
** out, with the line numbers of standard input. */
static void t_source_one_reader(void)
{
    init_types();
    int w = stdin_pipe("1,a\n2,b\n3,c\n4,d\nx,e\n", false);
    sl_kvlist *o = options("csv", NULL, NULL);
    sl_source *a = source(o, 0, 1);
    sl_error err = SL_ERROR_INIT;
    CHECK(try_source(o, "second", 0, 1, &err) == NULL);
    CHECK_STR(err.sqlstate, "55006");
    CHECK_STR(err.message, "standard input is already being read by table \"t\"");
    CHECK(err.detail && strstr(err.detail, "split the lines"));
    sl_error_reset(&err);
    /* Another table at parallelism 2: its subtask 0 is refused as well. */
    CHECK(try_source(o, "second", 0, 2, &err) == NULL);
    CHECK_STR(err.sqlstate, "55006");
    sl_error_reset(&err);

    sl_strbuf out = SL_STRBUF_INIT;
    CHECK_INT(poll_once(a, 2, &out, &err), SL_SOURCE_MORE);
    CHECK_STR(sl_strbuf_cstr(&out), "1|a\n2|b\n");
    a->ops->free(a);

    /* Freed: a new source may read, from line 3 on. */
    sl_source *b = try_source(o, "second", 0, 1, &err);
    REQUIRE(b);
    sl_strbuf_free(&out);
    CHECK_INT(poll_once(b, 8, &out, &err), -1); /* x,e is line 5 of standard input */
    CHECK_STR(err.sqlstate, "22P02");
    CHECK(err.detail && strstr(err.detail, "in stdin:5: x,e") != NULL);
    sl_strbuf pos = SL_STRBUF_INIT;
    sl_error perr = SL_ERROR_INIT;
    REQUIRE(b->ops->position(b, &pos, &perr) == 0);
    CHECK_STR(sl_strbuf_cstr(&pos), "v1 2"); /* this source handed out 3,c and 4,d */
    sl_strbuf_free(&pos);
    sl_error_reset(&err);
    CHECK_STR(sl_strbuf_cstr(&out), "3|c\n4|d\n");
    b->ops->free(b);
    close(w);
    sl_strbuf_free(&out);
    sl_kvlist_free(o);
    use_stdin(STDIN_FILENO);
}

/* The shell reads its statements from standard input: every source fails;
** so does one when the process has no standard input. */
static void t_source_script_claim(void)
{
    init_types();
    stdin_pipe("1,a\n", true);
    sl_stdin_claim_for_script();
    sl_kvlist *o = options("csv", NULL, NULL);
    sl_error err = SL_ERROR_INIT;
    CHECK(try_source(o, "data", 0, 1, &err) == NULL);
    CHECK_STR(err.sqlstate, "55006");
    CHECK_STR(err.message, "standard input is in use: the shell reads its statements from it");
    CHECK(err.detail && strstr(err.detail, "\"data\""));
    CHECK(err.hint && strstr(err.hint, "-f") && strstr(err.hint, "-e"));
    sl_error_reset(&err);
    /* Subtasks other than 0 read nothing and are not refused. */
    sl_source *s = try_source(o, "data", 1, 2, &err);
    CHECK(s != NULL);
    if (s)
        s->ops->free(s);
    sl_error_reset(&err);
    use_stdin(open("/dev/null", O_RDONLY)); /* clears the claim */
    s = try_source(o, "data", 0, 1, &err);
    CHECK(s != NULL);
    if (s) {
        sl_strbuf out = SL_STRBUF_INIT;
        CHECK_INT(drain(s, 4, &out, &err), SL_SOURCE_END);
        CHECK_STR(sl_strbuf_cstr(&out), "");
        sl_strbuf_free(&out);
        s->ops->free(s);
    }
    sl_error_reset(&err);
    /* Started with standard input closed: fd 0 is then a file this process
    ** opened (with FD_CLOEXEC, as it opens every file), not data. */
    use_stdin(open("/dev/null", O_RDONLY | O_CLOEXEC));
    CHECK(try_source(o, "data", 0, 1, &err) == NULL);
    CHECK_STR(err.sqlstate, "58030");
    CHECK_STR(err.message, "standard input is not open");
    sl_error_reset(&err);
    sl_kvlist_free(o);
    use_stdin(STDIN_FILENO);
}

/* Malformed records: the error names stdin:<line> and the record; with
** ignore-parse-errors they are skipped and counted. */
/* csv: a quoted field may hold line breaks (the record spans lines, and
** counts as that many in line numbers); an escaped CR stays data. */
static void t_source_csv_multiline(void)
{
    init_types();
    size_t blocks[] = {1, 3, 64 * 1024};
    for (size_t b = 0; b < SL_ARRAY_LEN(blocks); b++) {
        sl__stdin_block_size = blocks[b];
        stdin_pipe("1,\"a\nb\"\r\n2,\"\"\"\r\n\"\n3,\n4,x\n5,\"y\n", true);
        sl_kvlist *o = options("csv", NULL, NULL);
        sl_source *s = source(o, 0, 1);
        sl_strbuf out = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        CHECK_INT(drain(s, 2, &out, &err), -1);
        CHECK_STR(sl_strbuf_cstr(&out), "1|a\nb\n2|\"\r\n\n3|NULL\n4|x\n");
        CHECK_STR(err.message, "malformed CSV record");
        CHECK(err.detail && strstr(err.detail, "in stdin:7: 5,\"y") != NULL);
        sl_error_reset(&err);
        s->ops->free(s);
        sl_kvlist_free(o);
        sl_strbuf_free(&out);
    }
    sl__stdin_block_size = 64 * 1024;
    stdin_pipe("1,a\\\r\n2,b\r\n", true);
    sl_kvlist *o = options("csv", "csv.escape-character", "\\");
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(drain(s, 8, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out), "1|a\r\n2|b\n");
    s->ops->free(s);
    sl_kvlist_free(o);
    sl_strbuf_free(&out);
}

static void t_source_malformed(void)
{
    init_types();
    const char *text = "{\"id\": 1, \"name\": \"a\"}\n\n{\"id\": oops}\n{\"id\": 4}\n{broken\n";
    stdin_pipe(text, true);
    sl_kvlist *o = options("json", NULL, NULL);
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(drain(s, 8, &out, &err), -1);
    CHECK_STR(err.sqlstate, "22P02");
    CHECK_STR(err.message, "malformed JSON record");
    CHECK(err.detail && strstr(err.detail, "in stdin:3: {\"id\": oops}") != NULL);
    sl_error_reset(&err);
    s->ops->free(s);
    sl_kvlist_free(o);

    stdin_pipe(text, true);
    o = options("json", "json.ignore-parse-errors", "true");
    s = source(o, 0, 1);
    sl_strbuf_free(&out);
    CHECK_INT(drain(s, 8, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out), "1|a\n4|NULL\n");
    CHECK_INT(s->ops->skipped(s), 2);
    s->ops->free(s);
    sl_kvlist_free(o);

    /* A long bad record is shown cut, not whole. */
    sl_strbuf bad = SL_STRBUF_INIT;
    for (int i = 0; i < 1000; i++)
        sl_strbuf_append_char(&bad, 'z');
    sl_strbuf_append(&bad, ",x\n");
    stdin_pipe(bad.buf, true);
    o = options("csv", NULL, NULL);
    s = source(o, 0, 1);
    CHECK_INT(drain(s, 8, &out, &err), -1);
    CHECK(err.detail && strstr(err.detail, "in stdin:1: zzz") && strstr(err.detail, "...") &&
          strlen(err.detail) < 600);
    sl_error_reset(&err);
    s->ops->free(s);
    /* Too long for the limit: 54000 naming the line. */
    sl__stdin_max_line = 100; /* taken when a source opens */
    sl_strbuf two = SL_STRBUF_INIT;
    sl_strbuf_appendf(&two, "1,a\n%s", bad.buf);
    stdin_pipe(two.buf, true);
    sl_strbuf_free(&two);
    s = source(o, 0, 1);
    sl_strbuf_free(&out);
    CHECK_INT(drain(s, 8, &out, &err), -1);
    CHECK_STR(err.sqlstate, "54000");
    CHECK_STR(err.message, "record too long in stdin:2");
    CHECK_STR(sl_strbuf_cstr(&out), "1|a\n");
    sl_error_reset(&err);
    s->ops->free(s);
    sl__stdin_max_line = 16 * 1024 * 1024;
    sl_kvlist_free(o);
    sl_strbuf_free(&bad);
    sl_strbuf_free(&out);
    use_stdin(STDIN_FILENO);
}

/* Nothing to read: poll returns (no rows) instead of blocking; rows that
** arrive later are read; the position counts lines and survives a seek. */
static void t_source_idle_and_position(void)
{
    init_types();
    int w = stdin_pipe("", false);
    sl_kvlist *o = options("csv", NULL, NULL);
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    int64_t t0 = sl_monotonic_nanos();
    CHECK_INT(poll_once(s, 8, &out, &err), SL_SOURCE_MORE);
    CHECK(sl_monotonic_nanos() - t0 < 2000 * 1000000LL); /* ~100 ms; generous for sanitizers */
    CHECK_STR(sl_strbuf_cstr(&out), "");
    /* Restored: the stored count goes on, nothing is rewound. */
    CHECK(s->ops->seek(s, "v1 x", 4, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    CHECK(s->ops->seek(s, "v2 1", 4, &err) == -1);
    sl_error_reset(&err);
    CHECK(s->ops->seek(s, "v1 ", 3, &err) == -1);
    sl_error_reset(&err);
    REQUIRE(s->ops->seek(s, "v1 40", 5, &err) == 0);
    write_all(w, "7,g\n8,"); /* the empty field: NULL (csv's null literal) */
    CHECK_INT(poll_once(s, 8, &out, &err), SL_SOURCE_MORE);
    CHECK_STR(sl_strbuf_cstr(&out), "7|g\n");
    sl_strbuf pos = SL_STRBUF_INIT;
    REQUIRE(s->ops->position(s, &pos, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&pos), "v1 41");
    close(w);
    CHECK_INT(drain(s, 8, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out), "7|g\n8|NULL\n");
    sl_strbuf_free(&pos);
    REQUIRE(s->ops->position(s, &pos, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&pos), "v1 42");
    sl_strbuf_free(&pos);
    s->ops->free(s);
    sl_strbuf_free(&out);
    sl_kvlist_free(o);
    use_stdin(STDIN_FILENO);
}

/* The declaration. */
static void t_declaration(void)
{
    const sl_connector *c = sl_connector_find("stdin");
    REQUIRE(c);
    CHECK(c->caps.source && !c->caps.sink && !c->caps.source_replayable);
    CHECK(c->has_format);
    CHECK(c->create_source != NULL && c->create_sink == NULL);
    sl_kvlist *o = options("csv", "csv.ignore-parse-errors", "true");
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_connector_validate(o, NULL, 0, &err), 0);
    sl_error_reset(&err);
    sl_kvlist_free(o);
    o = options("csv", "path", "/tmp");
    CHECK_INT(sl_connector_validate(o, NULL, 0, &err), -1);
    CHECK(err.message && strstr(err.message, "unrecognized option 'path'"));
    sl_error_reset(&err);
    sl_kvlist_free(o);
}

int main(void)
{
    static const sl_t_case cases[] = {
        {"t_lines_split", t_lines_split},
        {"t_lines_long", t_lines_long},
        {"t_lines_pipe", t_lines_pipe},
        {"t_source_formats", t_source_formats},
        {"t_source_parallel", t_source_parallel},
        {"t_source_one_reader", t_source_one_reader},
        {"t_source_script_claim", t_source_script_claim},
        {"t_source_malformed", t_source_malformed},
        {"t_source_idle_and_position", t_source_idle_and_position},
        {"t_source_csv_multiline", t_source_csv_multiline},
        {"t_declaration", t_declaration},
    };
    return sl_t_run(cases, (int)SL_ARRAY_LEN(cases));
}
