/*
** test_base_util.c — the leaf library: errors (first wins), strings, lists,
** key/value lists, atomic files, text positions, did-you-mean, types.
*/
#include "sl_test.h"

#include "../../base/sl_base.h"
#include "../../base/sl_type.h"

#include <string.h>
#include <unistd.h>

static void t_error_first_wins(void)
{
    sl_error e = SL_ERROR_INIT;
    CHECK(!sl_error_isset(&e));
    CHECK_INT(sl_error_set(&e, SL_ERR_SYNTAX, 7, "first %d", 1), -1);
    sl_error_set(&e, SL_ERR_INTERNAL, 9, "second");
    CHECK_STR(e.sqlstate, "42601");
    CHECK_STR(e.message, "first 1");
    CHECK_INT(e.position, 7);
    sl_error_detail(&e, "d%s", "x");
    sl_error_hint(&e, "h");
    sl_error_hint(&e, "h2"); /* replaces */
    CHECK_STR(e.detail, "dx");
    CHECK_STR(e.hint, "h2");
    sl_error copy = SL_ERROR_INIT, moved = SL_ERROR_INIT;
    sl_error_copy(&copy, &e);
    sl_error_move(&moved, &e);
    CHECK(!sl_error_isset(&e));
    CHECK_STR(moved.message, "first 1");
    CHECK_STR(copy.hint, "h2");
    sl_error_reset(&copy);
    sl_error_reset(&moved);
    CHECK(!sl_error_isset(&moved));
    CHECK_INT(moved.position, -1);
}

static void t_strbuf(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK_STR(sl_strbuf_cstr(&sb), "");
    for (int i = 0; i < 1000; i++)
        sl_strbuf_appendf(&sb, "%d,", i % 10);
    CHECK_INT(sb.len, 2000);
    sl_strbuf_reset(&sb);
    sl_strbuf_append_quoted(&sb, "it's", '\'');
    sl_strbuf_append_char(&sb, ' ');
    sl_strbuf_append_quoted(&sb, "a`b", '`');
    CHECK_STR(sl_strbuf_cstr(&sb), "'it''s' `a``b`");
    char *s = sl_strbuf_detach(&sb);
    CHECK_STR(s, "'it''s' `a``b`");
    CHECK(sb.buf == NULL && sb.len == 0);
    sl_free(s);
    char *e = sl_strbuf_detach(&sb); /* empty detach gives "" */
    CHECK_STR(e, "");
    sl_free(e);
    char *n = sl_strndup("abcdef", 3);
    CHECK_STR(n, "abc");
    sl_free(n);
    CHECK(sl_strdup(NULL) == NULL);
}

static void t_kvlist(void)
{
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "a", "1", 0, 4);
    sl_kvlist_add(l, "b", "2", 10, 14);
    sl_kvlist_set(l, "a", "3", 20, 24);
    sl_kvlist_set(l, "c", NULL, 30, -1);
    CHECK_INT(l->n, 3);
    CHECK_STR(sl_kvlist_get(l, "a"), "3");
    CHECK_INT(sl_kvlist_find(l, "a")->key_pos, 20);
    CHECK(sl_kvlist_get(l, "c") == NULL);
    CHECK(sl_kvlist_find(l, "c") != NULL);
    sl_kvlist *d = sl_kvlist_dup(l);
    CHECK(sl_kvlist_remove(l, "a"));
    CHECK(!sl_kvlist_remove(l, "a"));
    CHECK_STR(l->items[0].key, "b");
    CHECK_INT(d->n, 3);
    CHECK_STR(sl_kvlist_get(d, "a"), "3");
    sl_kvlist_free(l);
    sl_kvlist_free(d);
    CHECK(sl_kvlist_dup(NULL) == NULL);
    CHECK(sl_kvlist_get(NULL, "x") == NULL);
}

static void t_files(void)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *dir = sl_sprintf("%s/base-%d/a/b", base ? base : "/tmp", (int)getpid());
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_fs_mkdir_p(dir, &err) == 0);
    CHECK(sl_fs_mkdir_p(dir, &err) == 0); /* exists: fine */
    CHECK(sl_fs_is_dir(dir));
    char *f = sl_path_join(dir, "x.txt");
    REQUIRE(sl_fs_write_atomic(f, "hello", 5, &err) == 0);
    REQUIRE(sl_fs_write_atomic(f, "bye", 3, &err) == 0);
    char *text = NULL;
    size_t len = 0;
    REQUIRE(sl_fs_read_file(f, &text, &len, &err) == 0);
    CHECK_STR(text, "bye");
    CHECK_INT(len, 3);
    sl_free(text);
    char *tmp = sl_sprintf("%s.tmp", f);
    CHECK(!sl_fs_exists(tmp));
    /* A file where a directory must go. */
    char *under = sl_path_join(f, "sub");
    CHECK(sl_fs_mkdir_p(under, &err) == -1);
    CHECK_STR(err.sqlstate, "58030");
    sl_error_reset(&err);
    CHECK(sl_fs_mkdir_p("", &err) == -1);
    sl_error_reset(&err);
    char *missing = sl_path_join(dir, "nope");
    CHECK(sl_fs_read_file(missing, &text, NULL, &err) == -1);
    CHECK_STR(err.sqlstate, "58P01");
    CHECK(text == NULL);
    sl_error_reset(&err);
    char *j = sl_path_join("a/", "b");
    CHECK_STR(j, "a/b");
    sl_free(j);
    sl_free(missing);
    sl_free(under);
    sl_free(tmp);
    sl_free(f);
    sl_free(dir);
}

/* Files of 1 MB and more go through O_DIRECT (sl__write_direct): lengths
** below, at and past a 4096-byte block and the 1 MB buffer read back byte
** for byte, over a longer file (no tail of it or of the padding left), on
** the test directory's file system and on tmpfs (/dev/shm), which may
** refuse O_DIRECT (the page cache then). */
static void t_files_large(void)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    const char *dirs[] = {base ? base : "/tmp", "/dev/shm"};
    size_t lens[] = {(1u << 20) - 1, 1u << 20, (1u << 20) + 1, (3u << 20) + 4095, (3u << 20) + 4097,
                     5u << 20, (1u << 20) + 100};
    size_t most = 5u << 20;
    char *data = sl_malloc(most);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < most; i++) { /* xorshift: no block repeats */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (char)x;
    }
    for (size_t d = 0; d < SL_ARRAY_LEN(dirs); d++) {
        if (!sl_fs_is_dir(dirs[d]))
            continue;
        char *f = sl_sprintf("%s/base-large-%d", dirs[d], (int)getpid());
        for (size_t i = 0; i < SL_ARRAY_LEN(lens); i++) {
            sl_error err = SL_ERROR_INIT;
            const char *from = data + i * 7; /* not aligned in memory either */
            size_t n = lens[i] > most - i * 7 ? most - i * 7 : lens[i];
            REQUIRE(sl_fs_write_atomic(f, from, n, &err) == 0);
            char *text = NULL;
            size_t len = 0;
            REQUIRE(sl_fs_read_file(f, &text, &len, &err) == 0);
            CHECK_INT(len, n);
            CHECK(len == n && memcmp(text, from, n) == 0);
            sl_free(text);
        }
        unlink(f);
        sl_free(f);
    }
    sl_free(data);
}

static void t_text(void)
{
    int line, col;
    const char *t = "ab\ncd\n\nx";
    sl_text_linecol(t, 0, &line, &col);
    CHECK(line == 1 && col == 1);
    sl_text_linecol(t, 4, &line, &col);
    CHECK(line == 2 && col == 2);
    sl_text_linecol(t, 7, &line, &col);
    CHECK(line == 4 && col == 1);
    sl_text_linecol(t, 100, &line, &col); /* past the end stops at the NUL */
    CHECK(line == 4 && col == 2);
    CHECK(sl_strcasecmp("Select", "SELECT") == 0);
    CHECK(sl_strcasecmp("a", "b") < 0);
    CHECK(sl_strncasecmp("ABCx", "abcy", 3) == 0);
    CHECK_INT(sl_edit_distance("kitten", "sitting", 10), 3);
    CHECK_INT(sl_edit_distance("ROWS", "rows", 10), 0);
    CHECK_INT(sl_edit_distance("a", "abcdef", 2), 3); /* capped at cap + 1 */
    const char *cands[] = {"path", "format", "rows-per-second"};
    CHECK_STR(sl_did_you_mean("patj", cands, 3), "path");
    CHECK_STR(sl_did_you_mean("rows-per-secnd", cands, 3), "rows-per-second");
    CHECK(sl_did_you_mean("zzzzzz", cands, 3) == NULL);
}

static void t_types(void)
{
    struct {
        sl_type t;
        const char *s;
    } cases[] = {
        {sl_type_make(SL_TYPE_DECIMAL), "DECIMAL(10, 0)"},
        {sl_type_make_p(SL_TYPE_DECIMAL, 38, 18), "DECIMAL(38, 18)"},
        {sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), "STRING"},
        {sl_type_make_p(SL_TYPE_VARCHAR, 20, 0), "VARCHAR(20)"},
        {sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0), "BYTES"},
        {sl_type_make(SL_TYPE_TIMESTAMP), "TIMESTAMP(6)"},
        {sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0), "TIMESTAMP_LTZ(3)"},
        {sl_type_make(SL_TYPE_TIME), "TIME(0)"},
        /* types written bare, as Flink 2.2's DESCRIBE shows them */
        {sl_type_make(SL_TYPE_VARCHAR), "STRING"},
        {sl_type_make(SL_TYPE_VARBINARY), "BYTES"},
        {sl_type_make(SL_TYPE_CHAR), "CHAR(1)"},
        {sl_type_make(SL_TYPE_BINARY), "BINARY(1)"},
        {sl_type_make(SL_TYPE_TIMESTAMP_LTZ), "TIMESTAMP_LTZ(6)"},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        char *s = sl_type_to_string(cases[i].t);
        CHECK_STR(s, cases[i].s);
        sl_free(s);
    }
    sl_type nn = sl_type_make(SL_TYPE_INT);
    nn.not_null = true;
    char *s = sl_type_to_string(nn);
    CHECK_STR(s, "INT NOT NULL");
    sl_free(s);
    CHECK(!sl_type_equal(nn, sl_type_make(SL_TYPE_INT)));
    CHECK(sl_type_equal_ignoring_null(nn, sl_type_make(SL_TYPE_INT)));
    sl_error err = SL_ERROR_INIT;
    CHECK(sl_type_check(sl_type_make_p(SL_TYPE_DECIMAL, 39, 0), 5, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK_INT(err.position, 5);
    sl_error_reset(&err);
    CHECK(sl_type_check(sl_type_make_p(SL_TYPE_DECIMAL, 5, 6), 0, &err) == -1);
    sl_error_reset(&err);
    CHECK(sl_type_check(sl_type_make_p(SL_TYPE_TIMESTAMP, 10, 0), 0, &err) == -1);
    sl_error_reset(&err);
    CHECK(sl_type_check(sl_type_make_p(SL_TYPE_DECIMAL, 38, 38), 0, &err) == 0);
    CHECK(sl_type_is_integer(SL_TYPE_BIGINT) && !sl_type_is_integer(SL_TYPE_DECIMAL));
    CHECK(sl_type_is_numeric(SL_TYPE_DECIMAL) && !sl_type_is_numeric(SL_TYPE_VARCHAR));
    CHECK(sl_type_is_timestamp(SL_TYPE_TIMESTAMP_LTZ) && !sl_type_is_timestamp(SL_TYPE_DATE));
}

/* sl_type_fit: what CAST and the sinks' length enforcer cut and pad. */
static void t_type_fit(void)
{
    size_t keep = 99;
    sl_type vc3 = sl_type_make_p(SL_TYPE_VARCHAR, 3, 0), c3 = sl_type_make_p(SL_TYPE_CHAR, 3, 0);
    sl_type b3 = sl_type_make_p(SL_TYPE_BINARY, 3, 0), vb3 = sl_type_make_p(SL_TYPE_VARBINARY, 3, 0);
    CHECK_INT(sl_type_fit(vc3, "abcdef", 6, &keep), 0);
    CHECK_INT(keep, 3);
    CHECK_INT(sl_type_fit(vc3, "ab", 2, &keep), 0);
    CHECK_INT(keep, 2);
    CHECK_INT(sl_type_fit(vc3, "\xc3\xa9\xc3\xa9", 4, &keep), 0); /* 2 characters, 4 bytes */
    CHECK_INT(keep, 4);
    CHECK_INT(sl_type_fit(vc3, "\xc3\xa9\xc3\xa9xy", 6, &keep), 0);
    CHECK_INT(keep, 5);
    CHECK_INT(sl_type_fit(c3, "a", 1, &keep), 2);
    CHECK_INT(keep, 1);
    CHECK_INT(sl_type_fit(c3, "\xc3\xa9\xc3\xa9", 4, &keep), 1);
    CHECK_INT(keep, 4);
    CHECK_INT(sl_type_fit(c3, "abc", 3, &keep), 0);
    CHECK_INT(keep, 3);
    CHECK_INT(sl_type_fit(b3, "\x01", 1, &keep), 2);
    CHECK_INT(sl_type_fit(b3, "\xc3\xa9\xc3\xa9", 4, &keep), 0);
    CHECK_INT(keep, 3);
    CHECK_INT(sl_type_fit(vb3, "\x01", 1, &keep), 0);
    CHECK_INT(keep, 1);
    CHECK_INT(sl_type_fit(sl_type_make(SL_TYPE_VARCHAR), "abcdef", 6, &keep), 0);
    CHECK_INT(keep, 6);
    CHECK_INT(sl_type_fit(sl_type_make(SL_TYPE_INT), "abcdef", 6, &keep), 0);
    CHECK_INT(keep, 6);
    CHECK_INT(sl_utf8_skip("\xc3\xa9x", 3, 1), 2);
    CHECK_INT(sl_utf8_skip("\xc3\xa9x", 3, 5), 3);
}

static void t_utf8(void)
{
    CHECK_INT(sl_utf8_invalid("", 0), -1);
    CHECK_INT(sl_utf8_invalid("abc", 3), -1);
    const char *ok = "\xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 "
                     "\xf0\x90\x80\x80 \xf4\x8f\xbf\xbf";
    CHECK_INT(sl_utf8_invalid(ok, strlen(ok)), -1);
    struct { const char *s; int at; } bad[] = {
        {"a\x80", 1},             /* lone continuation byte */
        {"ab\xc0\x80", 2},        /* overlong NUL */
        {"\xc1\xbf", 0},          /* overlong */
        {"\xe0\x9f\xbf", 0},      /* overlong three bytes */
        {"x\xed\xa0\x80", 1},     /* surrogate */
        {"\xf0\x8f\xbf\xbf", 0},  /* overlong four bytes */
        {"\xf4\x90\x80\x80", 0},  /* past U+10FFFF */
        {"\xf5\x80\x80\x80", 0},  /* no such lead byte */
        {"\xff", 0},
        {"ok\xe2\x82", 2},        /* truncated at the end */
        {"\xe2\x82x", 0},         /* truncated in the middle */
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++)
        CHECK_INT(sl_utf8_invalid(bad[i].s, strlen(bad[i].s)), bad[i].at);
    /* a bad byte just past len is not looked at */
    CHECK_INT(sl_utf8_invalid("ab\xff", 2), -1);
}

static void t_checksum(void)
{
    /* XXH3-64 of the empty input (the xxHash reference value) */
    CHECK(sl_checksum("", 0) == 0x2d06800538d394c2ULL);
    char text[] = "{\"a\": 1, \"checksum\": \"" SL_CHECKSUM_ZERO "\"}";
    size_t n = strlen(text);
    CHECK_INT(sl_checksum_verify(text, n), 0); /* zeros are not the sum */
    REQUIRE(sl_checksum_embed(text, n) == 0);
    CHECK(strstr(text, SL_CHECKSUM_ZERO) == NULL);
    CHECK_INT(sl_checksum_verify(text, n), 1);
    /* every byte matters: flip each in turn */
    for (size_t i = 0; i < n; i++) {
        text[i] ^= 0x01;
        CHECK_INT(sl_checksum_verify(text, n) == 1, 0);
        text[i] ^= 0x01;
    }
    CHECK_INT(sl_checksum_verify(text, n - 1), 0); /* truncated */
    CHECK_INT(sl_checksum_verify("{\"a\": 1}", 8), -1);
    char none[] = "{\"a\": 1}";
    CHECK_INT(sl_checksum_embed(none, strlen(none)), -1);
    /* two members: refused */
    char two[] = "{\"checksum\": \"" SL_CHECKSUM_ZERO "\", \"checksum\": \"" SL_CHECKSUM_ZERO "\"}";
    CHECK_INT(sl_checksum_embed(two, strlen(two)), -1);
    CHECK_INT(sl_checksum_verify(two, strlen(two)), 0);
    /* a string value holding the member's text (escaped quotes) is no member */
    char fake[] = "{\"v\": \"\\\"checksum\\\": \\\"0000000000000000\\\"\"}";
    CHECK_INT(sl_checksum_verify(fake, strlen(fake)), -1);
}

SL_TESTS(t_error_first_wins, t_strbuf, t_kvlist, t_files, t_files_large, t_text, t_types, t_type_fit, t_utf8, t_checksum)
