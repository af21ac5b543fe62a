/*
** test_connectors_filesystem.c — the filesystem connector at runtime.
**
** Source: a directory with visible, hidden ('.', '_') files and a
** subdirectory, CRLF and a last line without newline; tiny read blocks so
** lines straddle them; a position taken after every poll and resumed in a
** fresh instance gives exactly the full sequence; p = 2 reads every record
** once; bounded END; continuous mode holds back an incomplete line and
** picks up a new file; malformed records name file:line (also after a
** seek); skip mode counts; the line limit.
**
** Sink: epochs committed one by one (nothing visible before commit, read
** back equal); a crash after two pre-commits recovered with the first one
** only (its rows once, the second's in-progress files gone, foreign files,
** other jobs' and other subtasks' in-progress files untouched); commit
** twice; commit after the files vanished; rolling by size and by time
** (injected clock); updates refused; an existing final file never
** replaced; the source reading the sink's directory sees committed rows
** only.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "filesystem/fs_int.h"
#include "sl_connector.h"
#include "sl_test.h"

/* ------------------------------------------------------------------------
** Helpers.
*/
static const char *const cols[] = {"id", "name"};
static sl_type types[2];

static void init_types(void)
{
    types[0] = sl_type_make(SL_TYPE_BIGINT);
    types[1] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
}

static char *tmpdir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *d = sl_sprintf("%s/fs-%d/%s", base ? base : "/tmp", (int)getpid(), name);
    sl_error err = SL_ERROR_INIT;
    sl_fs_remove_tree(d, &err);
    sl_fs_mkdir_p(d, &err);
    sl_error_reset(&err);
    return d;
}

static void put(const char *dir, const char *name, const char *text)
{
    char *p = sl_path_join(dir, name);
    FILE *f = fopen(p, "ab");
    REQUIRE(f != NULL);
    fputs(text, f);
    fclose(f);
    sl_free(p);
}

static char *slurp(const char *dir, const char *name)
{
    char *p = sl_path_join(dir, name);
    char *text = NULL;
    size_t len = 0;
    sl_error err = SL_ERROR_INIT;
    if (sl_fs_read_file(p, &text, &len, &err) != 0)
        text = NULL;
    sl_error_reset(&err);
    sl_free(p);
    return text;
}

/* The table's options: path, format csv, then key/value pairs, NULL. */
static sl_kvlist *options(const char *path, const char *key, const char *value)
{
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "filesystem", -1, -1);
    sl_kvlist_add(l, "path", path, -1, -1);
    sl_kvlist_add(l, "format", "csv", -1, -1);
    if (key)
        sl_kvlist_add(l, key, value, -1, -1);
    return l;
}

static sl_source *source(const sl_kvlist *opts, int subtask, int p)
{
    const sl_connector *c = sl_connector_find("filesystem");
    REQUIRE(c && c->create_source);
    sl_source_args a = {.options = opts,
                        .ncols = 2,
                        .names = cols,
                        .types = types,
                        .subtask = subtask,
                        .parallelism = p,
                        .table = "t"};
    sl_source *s = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = c->create_source(&a, &s, &err);
    if (rc != 0)
        fprintf(stderr, "create_source: %s\n", err.message);
    sl_error_reset(&err);
    REQUIRE(rc == 0 && s);
    return s;
}

/* Append "id|name\n" for every row of c to out. */
static void rows_text(const sl_chunk *c, sl_strbuf *out)
{
    for (int r = 0; r < c->nrows; r++) {
        for (int i = 0; i < c->ncols; i++) {
            if (i)
                sl_strbuf_append_char(out, '|');
            if (!sl_value_format(out, &c->cols[i], r))
                sl_strbuf_append(out, "NULL");
        }
        sl_strbuf_append_char(out, '\n');
    }
}

/* Poll once into a fresh chunk of cap rows; the rows go to out. */
static int poll_once(sl_source *s, int cap, sl_strbuf *out, sl_error *err)
{
    sl_chunk *c = sl_chunk_new(2, types, cap);
    int rc = s->ops->poll(s, c, err);
    rows_text(c, out);
    sl_chunk_free(c);
    return rc;
}

/* Poll until END (at most 10000 polls); rows to out. Returns the last rc. */
static int drain(sl_source *s, int cap, sl_strbuf *out, sl_error *err)
{
    int rc = SL_SOURCE_MORE;
    for (int i = 0; i < 10000 && rc == SL_SOURCE_MORE; i++)
        rc = poll_once(s, cap, out, err);
    return rc;
}

static sl_sink *sink(const sl_kvlist *opts, const char *job, int subtask)
{
    const sl_connector *c = sl_connector_find("filesystem");
    REQUIRE(c && c->create_sink);
    sl_sink_args a = {.options = opts,
                      .ncols = 2,
                      .names = cols,
                      .types = types,
                      .subtask = subtask,
                      .parallelism = 2,
                      .table = "t",
                      .job = job};
    sl_sink *s = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = c->create_sink(&a, &s, &err);
    if (rc != 0)
        fprintf(stderr, "create_sink: %s\n", err.message);
    sl_error_reset(&err);
    REQUIRE(rc == 0 && s);
    return s;
}

/* A chunk of +I rows (id, "n<id>") for ids from..to-1. */
static sl_chunk *rows(int from, int to)
{
    sl_chunk *c = sl_chunk_new(2, types, to - from > 0 ? to - from : 1);
    for (int id = from; id < to; id++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, 0, r, id);
        char name[32];
        snprintf(name, sizeof name, "n%d", id);
        sl_chunk_set_str(c, 1, r, name, strlen(name));
    }
    return c;
}

/* The CSV text of rows from..to-1 as the sink writes them. */
static void rows_csv(sl_strbuf *sb, int from, int to)
{
    for (int id = from; id < to; id++)
        sl_strbuf_appendf(sb, "%d,n%d\n", id, id);
}

static int write_rows(sl_sink *s, int from, int to, sl_error *err)
{
    sl_chunk *c = rows(from, to);
    int rc = s->ops->write(s, c, err);
    sl_chunk_free(c);
    return rc;
}

/* Directory entries (sorted), hidden ones only or visible ones only. */
static sl_list *entries(const char *dir, bool hidden)
{
    sl_error err = SL_ERROR_INIT;
    sl_list *all = sl__fs_list(dir, NULL, &err);
    REQUIRE(all != NULL);
    sl_list *l = sl_list_new();
    for (int i = 0; i < all->n; i++) {
        char *n = all->items[i];
        if ((n[0] == '.') == hidden)
            sl_list_push(l, sl_strdup(n));
    }
    sl_list_free(all, sl_free);
    return l;
}

/* The <epoch>-<seq> of a final part name, as epoch * 1000000 + seq. */
static long part_order(const char *name)
{
    const char *dot = strrchr(name, '.');
    const char *p = dot ? dot : name + strlen(name);
    int dashes = 0;
    while (p > name && dashes < 2)
        if (*--p == '-')
            dashes++;
    long epoch = 0, seq = 0;
    sscanf(p, "-%ld-%ld", &epoch, &seq);
    return epoch * 1000000 + seq;
}

static int cmp_parts(const void *a, const void *b)
{
    long x = part_order(*(char *const *)a), y = part_order(*(char *const *)b);
    return x < y ? -1 : x > y ? 1 : strcmp(*(char *const *)a, *(char *const *)b);
}

/* Concatenation of the visible part files in (epoch, seq) order; *nfiles. */
static char *visible_text(const char *dir, int *nfiles)
{
    sl_list *l = entries(dir, false);
    sl_list *parts = sl_list_new();
    for (int i = 0; i < l->n; i++)
        if (strncmp(l->items[i], "part-", 5) == 0)
            sl_list_push(parts, l->items[i]);
    if (parts->n > 1)
        qsort(parts->items, (size_t)parts->n, sizeof(void *), cmp_parts);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < parts->n; i++) {
        char *t = slurp(dir, parts->items[i]);
        if (t)
            sl_strbuf_append(&sb, t);
        sl_free(t);
    }
    if (nfiles)
        *nfiles = parts->n;
    sl_list_free(parts, NULL);
    sl_list_free(l, sl_free);
    return sl_strbuf_detach(&sb);
}

static int count_hidden_inprogress(const char *dir)
{
    sl_list *l = entries(dir, true);
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (strstr(l->items[i], ".inprogress."))
            n++;
    sl_list_free(l, sl_free);
    return n;
}

/* ------------------------------------------------------------------------
** Source.
*/

/* A directory of three visible files, hidden ones and a subdirectory. */
static char *source_dir(const char *name)
{
    char *d = tmpdir(name);
    put(d, "a.csv", "1,a\n2,bb\n\n3,ccc\n");
    put(d, "b.csv", "4,d\r\n5,e\r\n6,last-without-newline");
    put(d, "c.csv", "7,g\n");
    put(d, "empty.csv", "");
    put(d, ".hidden.csv", "90,hidden\n");
    put(d, "_SUCCESS", "91,underscore\n");
    put(d, ".part-x-0-1-0.csv.inprogress.abc", "92,inprogress\n");
    char *sub = sl_path_join(d, "sub");
    sl_error err = SL_ERROR_INIT;
    sl_fs_mkdir_p(sub, &err);
    put(sub, "z.csv", "93,subdir\n");
    sl_free(sub);
    return d;
}

static const char *source_rows = "1|a\n2|bb\n3|ccc\n4|d\n5|e\n6|last-without-newline\n7|g\n";

static void t_source_bounded(void)
{
    init_types();
    char *d = source_dir("bounded");
    sl_kvlist *o = options(d, NULL, NULL);
    size_t blocks[] = {1, 2, 3, 7, 64 * 1024};
    for (size_t b = 0; b < SL_ARRAY_LEN(blocks); b++) {
        sl__fs_block_size = blocks[b];
        for (int cap = 1; cap <= 8; cap += 3) {
            sl_source *s = source(o, 0, 1);
            sl_strbuf out = SL_STRBUF_INIT;
            sl_error err = SL_ERROR_INIT;
            CHECK_INT(drain(s, cap, &out, &err), SL_SOURCE_END);
            CHECK_STR(sl_strbuf_cstr(&out), source_rows);
            /* Stays at END. */
            CHECK_INT(poll_once(s, cap, &out, &err), SL_SOURCE_END);
            CHECK_INT(s->ops->skipped(s), 0);
            sl_strbuf_free(&out);
            sl_error_reset(&err);
            s->ops->free(s);
        }
    }
    sl__fs_block_size = 64 * 1024;
    sl_kvlist_free(o);
    sl_free(d);
}

/* csv: a quoted field holding line breaks is one record over several
** lines (read whole across tiny blocks); line numbers in messages count
** them; a position taken after it resumes after it. */
static void t_source_csv_multiline(void)
{
    init_types();
    char *d = tmpdir("multiline");
    put(d, "a.csv", "1,\"x\ny\"\n2,\"\"\"\r\n\"\r\n3,\"p,\nq\n\"\n4,\"bad\"z\n");
    sl_kvlist *o = options(d, NULL, NULL);
    size_t blocks[] = {1, 2, 5, 64 * 1024};
    for (size_t b = 0; b < SL_ARRAY_LEN(blocks); b++) {
        sl__fs_block_size = blocks[b];
        sl_source *s = source(o, 0, 1);
        sl_strbuf out = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        CHECK_INT(drain(s, 2, &out, &err), -1);
        CHECK_STR(sl_strbuf_cstr(&out), "1|x\ny\n2|\"\r\n\n3|p,\nq\n\n");
        CHECK_STR(err.message, "malformed CSV record");
        CHECK(err.detail && strstr(err.detail, "a.csv:8: 4,\"bad\"z") != NULL);
        sl_error_reset(&err);
        s->ops->free(s);
        sl_strbuf_free(&out);
    }
    sl__fs_block_size = 64 * 1024;
    sl_kvlist_free(o);
    sl_free(d);
}

static void t_source_single_file(void)
{
    init_types();
    char *d = source_dir("single");
    char *f = sl_path_join(d, "b.csv");
    sl_kvlist *o = options(f, NULL, NULL);
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(drain(s, 4, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out), "4|d\n5|e\n6|last-without-newline\n");
    s->ops->free(s);
    sl_strbuf_free(&out);
    sl_kvlist_free(o);
    /* A path that does not exist. */
    char *nope = sl_path_join(d, "nope");
    o = options(nope, NULL, NULL);
    const sl_connector *c = sl_connector_find("filesystem");
    sl_source_args a = {.options = o,
                        .ncols = 2,
                        .names = cols,
                        .types = types,
                        .subtask = 0,
                        .parallelism = 1,
                        .table = "t"};
    CHECK(c->create_source(&a, &s, &err) == -1);
    CHECK_STR(err.sqlstate, "58P01");
    sl_error_reset(&err);
    sl_kvlist_free(o);
    sl_free(nope);
    sl_free(f);
    sl_free(d);
}

/* Resume after every poll: the rows before + the rows after = all rows. */
static void t_source_position_resume(void)
{
    init_types();
    char *d = source_dir("resume");
    sl_kvlist *o = options(d, NULL, NULL);
    sl__fs_block_size = 5;
    bool reached_end = false;
    for (int polls = 0; polls < 20 && !reached_end; polls++) {
        sl_source *s = source(o, 0, 1);
        sl_strbuf out = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        int rc = SL_SOURCE_MORE;
        for (int i = 0; i < polls && rc == SL_SOURCE_MORE; i++)
            rc = poll_once(s, 2, &out, &err);
        REQUIRE(rc >= 0);
        reached_end = rc == SL_SOURCE_END;
        sl_strbuf pos = SL_STRBUF_INIT;
        REQUIRE(s->ops->position(s, &pos, &err) == 0);
        s->ops->free(s);
        /* A fresh instance continues from the position. */
        s = source(o, 0, 1);
        REQUIRE(s->ops->seek(s, pos.buf ? pos.buf : "", pos.len, &err) == 0);
        CHECK_INT(drain(s, 3, &out, &err), SL_SOURCE_END);
        if (strcmp(sl_strbuf_cstr(&out), source_rows) != 0)
            fprintf(stderr, "after %d polls, position \"%s\"\n", polls, sl_strbuf_cstr(&pos));
        CHECK_STR(sl_strbuf_cstr(&out), source_rows);
        s->ops->free(s);
        sl_strbuf_free(&pos);
        sl_strbuf_free(&out);
        sl_error_reset(&err);
    }
    CHECK(reached_end);
    /* New files appear after the checkpoint: the ones after the position are read. */
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT, pos = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(poll_once(s, 4, &out, &err), SL_SOURCE_MORE); /* 1..3 and 4 (b.csv) */
    REQUIRE(s->ops->position(s, &pos, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&pos), " b.csv") != NULL);
    s->ops->free(s);
    put(d, "a0.csv", "100,before-current\n");
    put(d, "bb.csv", "101,after-current\n");
    s = source(o, 0, 1);
    REQUIRE(s->ops->seek(s, pos.buf, pos.len, &err) == 0);
    CHECK_INT(drain(s, 3, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out),
              "1|a\n2|bb\n3|ccc\n4|d\n5|e\n6|last-without-newline\n101|after-current\n7|g\n");
    s->ops->free(s);
    /* Invalid positions. */
    s = source(o, 0, 1);
    CHECK(s->ops->seek(s, "v2 0 0 a.csv", 12, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    CHECK(s->ops->seek(s, "v1 x 0 a.csv", 12, &err) == -1);
    sl_error_reset(&err);
    /* A file shorter than the position: rewritten. */
    REQUIRE(s->ops->seek(s, "v1 1000 3 a.csv", 15, &err) == 0);
    CHECK(poll_once(s, 4, &out, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    s->ops->free(s);
    sl__fs_block_size = 64 * 1024;
    sl_strbuf_free(&out);
    sl_strbuf_free(&pos);
    sl_error_reset(&err);
    sl_kvlist_free(o);
    sl_free(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text, sorted, joined again. */
static char *sorted_lines(const char *text)
{
    sl_list *l = sl_list_new();
    char *copy = sl_strdup(text), *save = NULL;
    for (char *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
        sl_list_push(l, t);
    qsort(l->items, (size_t)l->n, sizeof(void *), cmp_str);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < l->n; i++)
        sl_strbuf_appendf(&sb, "%s\n", (char *)l->items[i]);
    sl_list_free(l, NULL);
    sl_free(copy);
    return sl_strbuf_detach(&sb);
}

static void t_source_parallel(void)
{
    init_types();
    char *d = tmpdir("parallel");
    sl_strbuf expect = SL_STRBUF_INIT;
    for (int f = 0; f < 12; f++) {
        char name[32];
        snprintf(name, sizeof name, "f%02d.csv", f);
        for (int r = 0; r < 5; r++) {
            char line[64];
            snprintf(line, sizeof line, "%d,f%d\n", f * 100 + r, f);
            put(d, name, line);
            sl_strbuf_appendf(&expect, "%d|f%d\n", f * 100 + r, f);
        }
    }
    sl_kvlist *o = options(d, NULL, NULL);
    sl_strbuf all = SL_STRBUF_INIT;
    int per[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        sl_source *s = source(o, k, 2);
        sl_strbuf out = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        CHECK_INT(drain(s, 7, &out, &err), SL_SOURCE_END);
        for (size_t i = 0; i < out.len; i++)
            per[k] += out.buf[i] == '\n';
        sl_strbuf_append(&all, sl_strbuf_cstr(&out));
        sl_strbuf_free(&out);
        s->ops->free(s);
    }
    CHECK(per[0] > 0 && per[1] > 0); /* both subtasks got files */
    CHECK_INT(per[0] + per[1], 60);
    char *got = sorted_lines(sl_strbuf_cstr(&all)), *want = sorted_lines(sl_strbuf_cstr(&expect));
    CHECK_STR(got, want);
    sl_free(got);
    sl_free(want);
    sl_strbuf_free(&all);
    sl_strbuf_free(&expect);
    sl_kvlist_free(o);
    sl_free(d);
}

/* Poll (continuous) until out holds want or 200 polls passed. */
static bool poll_until(sl_source *s, sl_strbuf *out, const char *want)
{
    sl_error err = SL_ERROR_INIT;
    for (int i = 0; i < 200; i++) {
        if (strcmp(sl_strbuf_cstr(out), want) == 0)
            return true;
        int rc = poll_once(s, 16, out, &err);
        if (rc != SL_SOURCE_MORE) {
            fprintf(stderr, "poll: %d %s\n", rc, err.message ? err.message : "");
            sl_error_reset(&err);
            return false;
        }
    }
    return strcmp(sl_strbuf_cstr(out), want) == 0;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void t_source_continuous(void)
{
    init_types();
    char *d = tmpdir("continuous");
    put(d, "a.csv", "1,a\n2,b\n3,part");
    sl_kvlist *o = options(d, "source.monitor-interval", "10 ms");
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK(poll_until(s, &out, "1|a\n2|b\n"));
    /* The incomplete line is held back, even with a newer file waiting. */
    put(d, "b.csv", "10,x\n");
    for (int i = 0; i < 5; i++) {
        int64_t t0 = wall_ms();
        CHECK_INT(poll_once(s, 16, &out, &err), SL_SOURCE_MORE);
        CHECK(wall_ms() - t0 < 1000); /* returns promptly when idle */
    }
    CHECK_STR(sl_strbuf_cstr(&out), "1|a\n2|b\n");
    /* Completing it releases it, then the newer file follows. */
    put(d, "a.csv", "ial\n");
    CHECK(poll_until(s, &out, "1|a\n2|b\n3|partial\n10|x\n"));
    /* A file written hidden and renamed when complete; a later one. */
    put(d, ".c.csv.tmp", "20,y\n21,z\n");
    char *from = sl_path_join(d, ".c.csv.tmp"), *to = sl_path_join(d, "c.csv");
    REQUIRE(rename(from, to) == 0);
    CHECK(poll_until(s, &out, "1|a\n2|b\n3|partial\n10|x\n20|y\n21|z\n"));
    /* Lines appended to the newest file are read too. */
    put(d, "c.csv", "22,w\n");
    CHECK(poll_until(s, &out, "1|a\n2|b\n3|partial\n10|x\n20|y\n21|z\n22|w\n"));
    /* Position + seek in continuous mode. */
    sl_strbuf pos = SL_STRBUF_INIT;
    REQUIRE(s->ops->position(s, &pos, &err) == 0);
    s->ops->free(s);
    put(d, "d.csv", "30,v\n");
    s = source(o, 0, 1);
    REQUIRE(s->ops->seek(s, pos.buf, pos.len, &err) == 0);
    sl_strbuf more = SL_STRBUF_INIT;
    CHECK(poll_until(s, &more, "30|v\n"));
    s->ops->free(s);
    sl_strbuf_free(&more);
    sl_strbuf_free(&pos);
    sl_free(from);
    sl_free(to);
    sl_strbuf_free(&out);
    sl_error_reset(&err);
    sl_kvlist_free(o);
    sl_free(d);
}

static void t_source_malformed(void)
{
    init_types();
    char *d = tmpdir("malformed");
    put(d, "a.csv", "1,a\n2,b\n");
    put(d, "b.csv", "3,c\n4,d\nx,,\n5,e\n");
    sl_kvlist *o = options(d, NULL, NULL);
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(drain(s, 2, &out, &err), -1);
    CHECK_STR(err.sqlstate, "22P02");
    char *where = sl_sprintf("in %s/b.csv:3: x,,", d);
    CHECK(err.detail && strstr(err.detail, where));
    if (err.detail)
        fprintf(stderr, "(detail: %s)\n", err.detail);
    CHECK_STR(sl_strbuf_cstr(&out), "1|a\n2|b\n3|c\n4|d\n");
    sl_error_reset(&err);
    /* After a seek into b.csv the line number is still right. */
    sl_strbuf pos = SL_STRBUF_INIT;
    s->ops->free(s);
    s = source(o, 0, 1);
    sl_strbuf_reset(&out);
    CHECK_INT(poll_once(s, 3, &out, &err), SL_SOURCE_MORE);
    REQUIRE(s->ops->position(s, &pos, &err) == 0);
    s->ops->free(s);
    s = source(o, 0, 1);
    REQUIRE(s->ops->seek(s, pos.buf, pos.len, &err) == 0);
    CHECK_INT(drain(s, 1, &out, &err), -1);
    CHECK(err.detail && strstr(err.detail, where));
    sl_error_reset(&err);
    s->ops->free(s);
    sl_kvlist_free(o);
    /* Skip mode: counted, the rest read. */
    o = options(d, "csv.ignore-parse-errors", "true");
    s = source(o, 0, 1);
    sl_strbuf_reset(&out);
    CHECK_INT(drain(s, 2, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out), "1|a\n2|b\n3|c\n4|d\n5|e\n");
    CHECK_INT(s->ops->skipped(s), 1);
    s->ops->free(s);
    sl_kvlist_free(o);
    /* A long record is shown cut to 200 bytes. */
    char *d2 = tmpdir("malformed-long");
    sl_strbuf big = SL_STRBUF_INIT;
    sl_strbuf_append(&big, "y,");
    for (int i = 0; i < 300; i++)
        sl_strbuf_append_char(&big, 'q');
    sl_strbuf_append(&big, "\n");
    put(d2, "a.csv", big.buf);
    o = options(d2, NULL, NULL);
    s = source(o, 0, 1);
    CHECK_INT(drain(s, 2, &out, &err), -1);
    CHECK(err.detail && strstr(err.detail, "a.csv:1: y,qqq"));
    CHECK(err.detail && strstr(err.detail, "qqq...") && strlen(strstr(err.detail, "y,qq")) == 203);
    sl_error_reset(&err);
    s->ops->free(s);
    sl_kvlist_free(o);
    sl_strbuf_free(&big);
    sl_free(d2);
    sl_strbuf_free(&pos);
    sl_strbuf_free(&out);
    sl_free(where);
    sl_free(d);
}

static void t_source_line_limit(void)
{
    init_types();
    char *d = tmpdir("limit");
    put(d, "a.csv", "1,short\n2,0123456789012345678901234567890123456789\n3,x\n");
    put(d, "b.csv", "4,no-newline-but-far-too-long-for-the-limit");
    sl_kvlist *o = options(d, NULL, NULL);
    sl__fs_max_line = 16;
    sl__fs_block_size = 4;
    sl_source *s = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(drain(s, 8, &out, &err), -1);
    CHECK_STR(err.sqlstate, "54000");
    char *msg = sl_sprintf("record too long in %s/a.csv:2", d);
    CHECK_STR(err.message, msg);
    sl_free(msg);
    sl_error_reset(&err);
    s->ops->free(s);
    /* From after line 2 on: b.csv's line fails too. */
    s = source(o, 0, 1);
    REQUIRE(s->ops->seek(s, "v1 51 2 a.csv", 13, &err) == 0);
    sl_strbuf_reset(&out);
    CHECK_INT(drain(s, 8, &out, &err), -1);
    CHECK_STR(sl_strbuf_cstr(&out), "3|x\n");
    msg = sl_sprintf("record too long in %s/b.csv:1", d);
    CHECK_STR(err.message, msg);
    sl_free(msg);
    sl_error_reset(&err);
    s->ops->free(s);
    sl__fs_max_line = 16 * 1024 * 1024;
    sl__fs_block_size = 64 * 1024;
    sl_strbuf_free(&out);
    sl_kvlist_free(o);
    sl_free(d);
}

/* A file of many blocks with the default block size: every row, in order. */
static void t_source_large(void)
{
    init_types();
    char *d = tmpdir("large");
    char *p = sl_path_join(d, "big.csv");
    FILE *f = fopen(p, "wb");
    REQUIRE(f != NULL);
    for (int i = 0; i < 200000; i++)
        fprintf(f, "%d,row-%d-%s\n", i, i, i % 7 ? "x" : "a-longer-value-here");
    fclose(f);
    sl_kvlist *o = options(d, NULL, NULL);
    sl_source *s = source(o, 0, 1);
    sl_error err = SL_ERROR_INIT;
    int64_t n = 0, bad = 0;
    int rc = SL_SOURCE_MORE;
    sl_chunk *c = sl_chunk_new(2, types, SL_CHUNK_ROWS);
    for (int polls = 0; polls < 100000 && rc == SL_SOURCE_MORE; polls++) {
        sl_chunk_reset(c);
        rc = s->ops->poll(s, c, &err);
        for (int r = 0; r < c->nrows; r++, n++)
            bad += c->cols[0].v.i64[r] != n;
    }
    CHECK_INT(rc, SL_SOURCE_END);
    CHECK_INT(n, 200000);
    CHECK_INT(bad, 0);
    sl_chunk_free(c);
    s->ops->free(s);
    sl_kvlist_free(o);
    sl_free(p);
    sl_free(d);
}

/* ------------------------------------------------------------------------
** Sink.
*/
static void t_sink_epochs(void)
{
    init_types();
    char *d = tmpdir("sink-epochs");
    sl_kvlist *o = options(d, NULL, NULL);
    sl_sink *s = sink(o, "job-a", 0);
    sl_error err = SL_ERROR_INIT;
    REQUIRE(s->ops->recover(s, NULL, NULL, 0, &err) == 0);
    sl_strbuf expect = SL_STRBUF_INIT;
    for (int epoch = 1; epoch <= 4; epoch++) {
        REQUIRE(s->ops->begin(s, epoch, &err) == 0);
        int from = epoch * 10, to = epoch == 2 ? from : from + 3; /* epoch 2: no rows */
        REQUIRE(write_rows(s, from, to, &err) == 0);
        sl_strbuf c = SL_STRBUF_INIT;
        REQUIRE(s->ops->pre_commit(s, epoch, &c, &err) == 0);
        if (epoch == 2)
            CHECK_INT(c.len, 0);
        else
            CHECK(c.len > 0 && strncmp(c.buf, "file .part-", 11) == 0);
        /* Pre-committed: durable, not visible. */
        char *before = visible_text(d, NULL);
        CHECK_STR(before, sl_strbuf_cstr(&expect));
        sl_free(before);
        CHECK_INT(count_hidden_inprogress(d), epoch == 2 ? 0 : 1);
        REQUIRE(s->ops->commit(s, c.buf ? c.buf : "", c.len, &err) == 0);
        rows_csv(&expect, from, to);
        int n = 0;
        char *after = visible_text(d, &n);
        CHECK_STR(after, sl_strbuf_cstr(&expect));
        CHECK_INT(n, epoch == 1 ? 1 : epoch - 1);
        sl_free(after);
        CHECK_INT(count_hidden_inprogress(d), 0);
        sl_strbuf_free(&c);
    }
    /* The naming scheme. */
    sl_list *l = entries(d, false);
    REQUIRE(l->n == 3);
    const char *n0 = l->items[0];
    CHECK(strncmp(n0, "part-", 5) == 0 && strlen(n0) == strlen("part-0123456789abcdef-0-1-0.csv"));
    CHECK(strcmp(n0 + 21, "-0-1-0.csv") == 0);
    sl_list_free(l, sl_free);
    /* Contract violations. */
    CHECK(write_rows(s, 1, 2, &err) == -1); /* no open epoch */
    sl_error_reset(&err);
    CHECK(s->ops->begin(s, 3, &err) == -1); /* epochs only grow */
    sl_error_reset(&err);
    s->ops->free(s);
    sl_strbuf_free(&expect);
    sl_kvlist_free(o);
    sl_free(d);
}

static void t_sink_crash_recover(void)
{
    init_types();
    char *d = tmpdir("sink-crash");
    sl_kvlist *o = options(d, NULL, NULL);
    sl_error err = SL_ERROR_INIT;
    /* Other files in the directory: a user's, another job's in-progress
    ** file, another subtask's of this job, a committed part of another job. */
    put(d, "foreign.txt", "keep me\n");
    put(d, ".part-00000000000000ff-0-2-0.csv.inprogress.1234", "1,other job\n");
    put(d, "part-00000000000000ff-0-0-0.csv", "2,other job\n");
    sl_sink *s1 = sink(o, "job-crash", 1); /* subtask 1 of the same job */
    REQUIRE(s1->ops->begin(s1, 2, &err) == 0);
    REQUIRE(write_rows(s1, 500, 502, &err) == 0);
    sl_strbuf c1s = SL_STRBUF_INIT;
    REQUIRE(s1->ops->pre_commit(s1, 2, &c1s, &err) == 0);
    s1->ops->free(s1);

    sl_sink *s = sink(o, "job-crash", 0);
    REQUIRE(s->ops->recover(s, NULL, NULL, 0, &err) == 0);
    sl_strbuf c1 = SL_STRBUF_INIT, c2 = SL_STRBUF_INIT;
    REQUIRE(s->ops->begin(s, 1, &err) == 0);
    REQUIRE(write_rows(s, 1, 4, &err) == 0);
    REQUIRE(s->ops->pre_commit(s, 1, &c1, &err) == 0);
    REQUIRE(s->ops->begin(s, 2, &err) == 0);
    REQUIRE(write_rows(s, 4, 7, &err) == 0);
    REQUIRE(s->ops->pre_commit(s, 2, &c2, &err) == 0);
    REQUIRE(s->ops->begin(s, 3, &err) == 0);
    REQUIRE(write_rows(s, 7, 9, &err) == 0); /* open, never pre-committed */
    s->ops->free(s);                         /* crash */
    CHECK_INT(count_hidden_inprogress(d), 2 + 3);

    /* Restart: checkpoint 1 is the decided one. */
    s = sink(o, "job-crash", 0);
    const char *cs[] = {c1.buf};
    size_t lens[] = {c1.len};
    REQUIRE(s->ops->recover(s, cs, lens, 1, &err) == 0);
    sl_list *vis = entries(d, false);
    CHECK_INT(vis->n, 3); /* foreign.txt, the other job's part, epoch 1's part */
    sl_list_free(vis, sl_free);
    char *text = visible_text(d, NULL);
    CHECK_STR(text, "2,other job\n1,n1\n2,n2\n3,n3\n"); /* other job's part sorts first (epoch 0) */
    sl_free(text);
    sl_list *hid = entries(d, true);
    CHECK_INT(hid->n, 2); /* the other job's and the other subtask's in-progress files */
    for (int i = 0; i < hid->n; i++)
        CHECK(strstr(hid->items[i], "-0-2-0.csv.inprogress.1234") ||
              strstr(hid->items[i], "-1-2-0.csv.inprogress."));
    sl_list_free(hid, sl_free);
    char *keep = slurp(d, "foreign.txt");
    CHECK_STR(keep, "keep me\n");
    sl_free(keep);
    /* Commit again (a crash after commit, before the next checkpoint): fine. */
    CHECK(s->ops->commit(s, c1.buf, c1.len, &err) == 0);
    CHECK(s->ops->recover(s, cs, lens, 1, &err) == 0);
    /* Epoch 2 was not decided: its files are gone; committing it now is data loss. */
    CHECK(s->ops->commit(s, c2.buf, c2.len, &err) == -1);
    CHECK_STR(err.sqlstate, "58030");
    CHECK_STR(err.message, "data of a committed checkpoint is missing");
    sl_error_reset(&err);
    CHECK(s->ops->abort(s, c2.buf, c2.len, &err) == 0); /* idempotent */
    /* The job goes on: epochs 2 and 3 again, other rows; names do not collide. */
    REQUIRE(s->ops->begin(s, 2, &err) == 0);
    REQUIRE(write_rows(s, 40, 42, &err) == 0);
    sl_strbuf c2b = SL_STRBUF_INIT;
    REQUIRE(s->ops->pre_commit(s, 2, &c2b, &err) == 0);
    REQUIRE(s->ops->commit(s, c2b.buf, c2b.len, &err) == 0);
    text = visible_text(d, NULL);
    CHECK_STR(text, "2,other job\n1,n1\n2,n2\n3,n3\n40,n40\n41,n41\n");
    sl_free(text);
    s->ops->free(s);
    /* Subtask 1 recovers with its committable: its rows appear. */
    s1 = sink(o, "job-crash", 1);
    const char *cs1[] = {c1s.buf};
    size_t lens1[] = {c1s.len};
    REQUIRE(s1->ops->recover(s1, cs1, lens1, 1, &err) == 0);
    s1->ops->free(s1);
    CHECK_INT(count_hidden_inprogress(d), 1); /* only the other job's */
    sl_strbuf_free(&c1);
    sl_strbuf_free(&c2);
    sl_strbuf_free(&c2b);
    sl_strbuf_free(&c1s);
    sl_kvlist_free(o);
    sl_free(d);
}

static void t_sink_commit_edge_cases(void)
{
    init_types();
    char *d = tmpdir("sink-edge");
    sl_kvlist *o = options(d, NULL, NULL);
    sl_error err = SL_ERROR_INIT;
    sl_sink *s = sink(o, "job-edge", 0);
    sl_strbuf c = SL_STRBUF_INIT;
    REQUIRE(s->ops->begin(s, 7, &err) == 0);
    REQUIRE(write_rows(s, 1, 3, &err) == 0);
    REQUIRE(s->ops->pre_commit(s, 7, &c, &err) == 0);
    REQUIRE(s->ops->commit(s, c.buf, c.len, &err) == 0);
    CHECK(s->ops->commit(s, c.buf, c.len, &err) == 0); /* twice */
    /* The committed file changed size: not silently accepted. */
    sl_list *l = entries(d, false);
    REQUIRE(l->n == 1);
    put(d, l->items[0], "3,n3\n");
    CHECK(s->ops->commit(s, c.buf, c.len, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    /* The committed file vanished: data loss is an error. */
    char *p = sl_path_join(d, l->items[0]);
    REQUIRE(unlink(p) == 0);
    CHECK(s->ops->commit(s, c.buf, c.len, &err) == -1);
    CHECK_STR(err.sqlstate, "58030");
    CHECK_STR(err.message, "data of a committed checkpoint is missing");
    sl_error_reset(&err);
    sl_free(p);
    sl_list_free(l, sl_free);
    /* Garbage committables. */
    CHECK(s->ops->commit(s, "file a b", 8, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    CHECK(s->ops->commit(s, "file ../x y 3\n", 14, &err) == -1);
    sl_error_reset(&err);
    CHECK(s->ops->commit(s, "", 0, &err) == 0); /* empty epoch */
    /* Abort deletes the in-progress files. */
    sl_strbuf c8 = SL_STRBUF_INIT;
    REQUIRE(s->ops->begin(s, 8, &err) == 0);
    REQUIRE(write_rows(s, 1, 3, &err) == 0);
    REQUIRE(s->ops->pre_commit(s, 8, &c8, &err) == 0);
    CHECK_INT(count_hidden_inprogress(d), 1);
    CHECK(s->ops->abort(s, c8.buf, c8.len, &err) == 0);
    CHECK_INT(count_hidden_inprogress(d), 0);
    CHECK(s->ops->abort(s, c8.buf, c8.len, &err) == 0);
    /* Updates are refused before anything is written. */
    REQUIRE(s->ops->begin(s, 9, &err) == 0);
    sl_chunk *ch = rows(1, 4);
    ch->kinds[2] = SL_ROW_UPDATE_BEFORE;
    CHECK(s->ops->write(s, ch, &err) == -1);
    CHECK_STR(err.sqlstate, "XX000");
    CHECK(err.message && strstr(err.message, "-U"));
    sl_error_reset(&err);
    sl_chunk_free(ch);
    CHECK_INT(count_hidden_inprogress(d), 0);
    s->ops->free(s);
    /* A job name reused over old output: epoch 7 again must not replace the file. */
    put(d, "marker", "");
    s = sink(o, "job-edge", 0);
    REQUIRE(s->ops->recover(s, NULL, NULL, 0, &err) == 0);
    REQUIRE(s->ops->begin(s, 7, &err) == 0);
    REQUIRE(write_rows(s, 100, 101, &err) == 0);
    sl_strbuf c7 = SL_STRBUF_INIT;
    REQUIRE(s->ops->pre_commit(s, 7, &c7, &err) == 0);
    REQUIRE(s->ops->commit(s, c7.buf, c7.len, &err) == 0); /* the old file was deleted above */
    s->ops->free(s);
    s = sink(o, "job-edge", 0);
    REQUIRE(s->ops->recover(s, NULL, NULL, 0, &err) == 0);
    REQUIRE(s->ops->begin(s, 7, &err) == 0);
    REQUIRE(write_rows(s, 200, 201, &err) == 0);
    sl_strbuf_reset(&c);
    REQUIRE(s->ops->pre_commit(s, 7, &c, &err) == 0);
    CHECK(s->ops->commit(s, c.buf, c.len, &err) == -1);
    CHECK(err.message && strstr(err.message, "exists already"));
    sl_error_reset(&err);
    char *t = visible_text(d, NULL);
    CHECK_STR(t, "100,n100\n");
    sl_free(t);
    s->ops->free(s);
    sl_strbuf_free(&c);
    sl_strbuf_free(&c7);
    sl_strbuf_free(&c8);
    sl_kvlist_free(o);
    sl_free(d);
}

static void t_sink_rolling_size(void)
{
    init_types();
    char *d = tmpdir("sink-roll");
    sl_kvlist *o = options(d, "sink.rolling-policy.file-size", "64");
    sl_error err = SL_ERROR_INIT;
    sl_sink *s = sink(o, "job-roll", 0);
    REQUIRE(s->ops->begin(s, 1, &err) == 0);
    for (int i = 0; i < 10; i++)
        REQUIRE(write_rows(s, 100 + i * 5, 105 + i * 5, &err) == 0); /* 50 rows of 9 bytes */
    sl_strbuf c = SL_STRBUF_INIT;
    REQUIRE(s->ops->pre_commit(s, 1, &c, &err) == 0);
    int files = count_hidden_inprogress(d);
    CHECK(files >= 7);
    int lines = 0;
    for (size_t i = 0; i < c.len; i++)
        lines += c.buf[i] == '\n';
    CHECK_INT(lines, files);
    int n = 0;
    char *t = visible_text(d, &n);
    CHECK_STR(t, "");
    sl_free(t);
    REQUIRE(s->ops->commit(s, c.buf, c.len, &err) == 0);
    t = visible_text(d, &n);
    sl_strbuf expect = SL_STRBUF_INIT;
    rows_csv(&expect, 100, 150);
    CHECK_STR(t, sl_strbuf_cstr(&expect));
    CHECK_INT(n, files);
    sl_free(t);
    /* No file exceeds the size by more than one row. */
    sl_list *l = entries(d, false);
    for (int i = 0; i < l->n; i++) {
        char *body = slurp(d, l->items[i]);
        CHECK(body && strlen(body) < 64 + 9);
        sl_free(body);
    }
    sl_list_free(l, sl_free);
    s->ops->free(s);
    sl_strbuf_free(&expect);
    sl_strbuf_free(&c);
    sl_kvlist_free(o);
    sl_free(d);
}

static int64_t fake_now;
static int64_t fake_clock(void)
{
    return fake_now;
}

static void t_sink_rolling_time(void)
{
    init_types();
    char *d = tmpdir("sink-roll-time");
    sl_kvlist *o = options(d, "sink.rolling-policy.rollover-interval", "1 min");
    sl_kvlist_add(o, "sink.rolling-policy.inactivity-interval", "20 s", -1, -1);
    sl_error err = SL_ERROR_INIT;
    sl__fs_clock = fake_clock;
    fake_now = 0;
    sl_sink *s = sink(o, "job-time", 0);
    REQUIRE(s->ops->begin(s, 1, &err) == 0);
    int64_t s_ns = 1000000000;
    int64_t at[] = {0, 15, 30, 45, 61, 75, 100}; /* rolls at 61 (age) and at 100 (idle 25 s) */
    for (int i = 0; i < 7; i++) {
        fake_now = at[i] * s_ns;
        REQUIRE(write_rows(s, i, i + 1, &err) == 0);
    }
    sl_strbuf c = SL_STRBUF_INIT;
    REQUIRE(s->ops->pre_commit(s, 1, &c, &err) == 0);
    CHECK_INT(count_hidden_inprogress(d), 3);
    REQUIRE(s->ops->commit(s, c.buf, c.len, &err) == 0);
    int n = 0;
    char *t = visible_text(d, &n);
    CHECK_INT(n, 3);
    CHECK_STR(t, "0,n0\n1,n1\n2,n2\n3,n3\n4,n4\n5,n5\n6,n6\n");
    sl_free(t);
    s->ops->free(s);
    sl__fs_clock = sl_monotonic_nanos;
    sl_strbuf_free(&c);
    sl_kvlist_free(o);
    sl_free(d);
}

/* The source reading the sink's directory sees committed rows only. */
static void t_sink_then_source(void)
{
    init_types();
    char *d = tmpdir("sink-source");
    sl_kvlist *o = options(d, NULL, NULL);
    sl_error err = SL_ERROR_INIT;
    sl_sink *s = sink(o, "job-rt", 0);
    sl_strbuf c1 = SL_STRBUF_INIT, c2 = SL_STRBUF_INIT;
    REQUIRE(s->ops->begin(s, 1, &err) == 0);
    REQUIRE(write_rows(s, 1, 3, &err) == 0);
    REQUIRE(s->ops->pre_commit(s, 1, &c1, &err) == 0);
    REQUIRE(s->ops->commit(s, c1.buf, c1.len, &err) == 0);
    REQUIRE(s->ops->begin(s, 2, &err) == 0);
    REQUIRE(write_rows(s, 3, 5, &err) == 0);
    REQUIRE(s->ops->pre_commit(s, 2, &c2, &err) == 0);
    sl_source *src = source(o, 0, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    CHECK_INT(drain(src, 10, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out), "1|n1\n2|n2\n");
    src->ops->free(src);
    s->ops->free(s);
    sl_strbuf_free(&out);
    sl_strbuf_free(&c1);
    sl_strbuf_free(&c2);
    sl_kvlist_free(o);
    sl_free(d);
}

/* PARTITIONED BY (name) with partition-time commit: files under name=<v>/
** without the partition column; a partition's success file only after its
** files are committed (at commit, never at pre-commit), the ones not yet due
** carried in the committable across a crash and committed at the end. */
static sl_sink *psink(const sl_kvlist *opts, const char *job)
{
    const sl_connector *c = sl_connector_find("filesystem");
    static const int part[] = {1};
    sl_sink_args a = {.options = opts, .ncols = 2, .names = cols, .types = types,
                      .subtask = 0, .parallelism = 1, .table = "t", .job = job,
                      .npart = 1, .part = part};
    sl_sink *s = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = c->create_sink(&a, &s, &err);
    if (rc != 0)
        fprintf(stderr, "create_sink: %s\n", err.message);
    sl_error_reset(&err);
    REQUIRE(rc == 0 && s);
    return s;
}

static bool exists_in(const char *dir, const char *rel)
{
    char *p = sl_path_join(dir, rel);
    bool ok = access(p, F_OK) == 0;
    sl_free(p);
    return ok;
}

static void t_sink_partition_commit(void)
{
    init_types();
    char *d = tmpdir("sink-partition");
    sl_kvlist *o = options(d, "sink.partition-commit.trigger", "partition-time");
    sl_kvlist_add(o, "sink.partition-commit.policy.kind", "success-file", -1, -1);
    sl_error err = SL_ERROR_INIT;
    sl_sink *s = psink(o, "job-part");
    REQUIRE(s->ops->recover(s, NULL, NULL, 0, &err) == 0);
    REQUIRE(s->ops->watermark != NULL);
    sl_chunk *c = sl_chunk_new(2, types, 4);
    const char *days[] = {"2026-01-01", "2026-01-02", "2026-01-01", "2026-01-03"};
    for (int i = 0; i < 4; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, 0, r, i + 1);
        if (days[i])
            sl_chunk_set_str(c, 1, r, days[i], strlen(days[i]));
        else
            sl_chunk_set_null(c, 1, r);
    }
    REQUIRE(s->ops->begin(s, 1, &err) == 0);
    c->nrows = 3; /* not the NULL one yet */
    REQUIRE(s->ops->write(s, c, &err) == 0);
    int64_t noon = INT64_C(1767268800) * 1000000000; /* 2026-01-01 12:00 UTC */
    s->ops->watermark(s, noon);
    sl_strbuf c1 = SL_STRBUF_INIT;
    REQUIRE(s->ops->pre_commit(s, 1, &c1, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c1), "success name=2026-01-01\n") != NULL);
    CHECK(strstr(sl_strbuf_cstr(&c1), " name=2026-01-02\n") != NULL);
    CHECK(strstr(sl_strbuf_cstr(&c1), "pending 1767312000000 ") != NULL); /* its time */
    CHECK(!exists_in(d, "name=2026-01-01/_SUCCESS")); /* not before the commit */
    REQUIRE(s->ops->commit(s, c1.buf, c1.len, &err) == 0);
    CHECK(exists_in(d, "name=2026-01-01/_SUCCESS"));
    CHECK(!exists_in(d, "name=2026-01-02/_SUCCESS"));
    int n = 0;
    char *sub = sl_path_join(d, "name=2026-01-01");
    char *text = visible_text(sub, &n);
    CHECK_STR(text, "1\n3\n"); /* the partition column is not in the file */
    sl_free(text);
    sl_free(sub);
    /* Epoch 2 (a third day) is pre-committed, then a crash. */
    REQUIRE(s->ops->begin(s, 2, &err) == 0);
    c->nrows = 4;
    sl_chunk *last = sl_chunk_new(2, types, 1);
    sl_chunk_copy_row(last, c, 3);
    REQUIRE(s->ops->write(s, last, &err) == 0);
    sl_strbuf c2 = SL_STRBUF_INIT;
    s->ops->watermark(s, noon);
    REQUIRE(s->ops->pre_commit(s, 2, &c2, &err) == 0);
    s->ops->free(s);
    /* Restart from checkpoint 1: the day-2 partition still waits; epoch 2's
    ** file is gone (replayed by the source in a real job). */
    s = psink(o, "job-part");
    const char *cs[] = {c1.buf};
    size_t lens[] = {c1.len};
    REQUIRE(s->ops->recover(s, cs, lens, 1, &err) == 0);
    CHECK_INT(count_hidden_inprogress(d), 0);
    CHECK(!exists_in(d, "name=2026-01-03/_SUCCESS"));
    REQUIRE(s->ops->begin(s, 2, &err) == 0);
    REQUIRE(s->ops->write(s, last, &err) == 0);
    s->ops->watermark(s, INT64_MAX); /* the end of the input: every partition */
    sl_strbuf c2b = SL_STRBUF_INIT;
    REQUIRE(s->ops->pre_commit(s, 2, &c2b, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c2b), "success name=2026-01-02\n") != NULL);
    CHECK(strstr(sl_strbuf_cstr(&c2b), "success name=2026-01-03\n") != NULL);
    CHECK(strstr(sl_strbuf_cstr(&c2b), "pending") == NULL);
    REQUIRE(s->ops->commit(s, c2b.buf, c2b.len, &err) == 0);
    REQUIRE(s->ops->commit(s, c2b.buf, c2b.len, &err) == 0); /* idempotent */
    CHECK(exists_in(d, "name=2026-01-02/_SUCCESS"));
    CHECK(exists_in(d, "name=2026-01-03/_SUCCESS"));
    sub = sl_path_join(d, "name=2026-01-03");
    text = visible_text(sub, &n);
    CHECK_STR(text, "4\n");
    sl_free(text);
    sl_free(sub);
    /* A bad committable line is XX001. */
    CHECK(s->ops->commit(s, "success ../x\n", 13, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    /* NULL goes to the default partition, which has no time: fails (Flink's
    ** extractor fails on it too). */
    REQUIRE(s->ops->begin(s, 3, &err) == 0);
    sl_chunk_set_null(last, 1, 0);
    CHECK(s->ops->write(s, last, &err) == -1);
    CHECK_STR(err.sqlstate, "22007");
    sl_error_reset(&err);
    s->ops->free(s);
    /* The source reads the partition column back from the path. */
    sl_kvlist *ro = options(d, NULL, NULL);
    const sl_connector *fc = sl_connector_find("filesystem");
    static const int part[] = {1};
    sl_source_args a = {.options = ro, .ncols = 2, .names = cols, .types = types,
                        .parallelism = 1, .table = "t", .npart = 1, .part = part};
    sl_source *src = NULL;
    REQUIRE(fc->create_source(&a, &src, &err) == 0);
    sl_strbuf out = SL_STRBUF_INIT;
    CHECK_INT(drain(src, 10, &out, &err), SL_SOURCE_END);
    CHECK_STR(sl_strbuf_cstr(&out), "1|2026-01-01\n3|2026-01-01\n2|2026-01-02\n4|2026-01-03\n");
    src->ops->free(src);
    sl_strbuf_free(&out);
    sl_kvlist_free(ro);
    sl_chunk_free(c);
    sl_chunk_free(last);
    sl_strbuf_free(&c1);
    sl_strbuf_free(&c2);
    sl_strbuf_free(&c2b);
    sl_kvlist_free(o);
    sl_free(d);
}

SL_TESTS(t_source_bounded, t_source_csv_multiline, t_source_single_file, t_source_position_resume, t_source_parallel,
         t_source_continuous, t_source_malformed, t_source_line_limit, t_source_large,
         t_sink_epochs, t_sink_crash_recover, t_sink_commit_edge_cases, t_sink_rolling_size,
         t_sink_rolling_time, t_sink_then_source, t_sink_partition_commit)
