/*
** fuzz_parser.c — libFuzzer target for the SQL front end.
**
** For any bytes: tokenize everything (checking token invariants), split into
** statements with sl_sql_split, parse with sl_parse, and for every statement
** that parsed, print it, parse the printed text again and require an equal
** AST and the same printed text; redact secret values (sl_sql_redact) with
** positions in bounds, and text that parsed must still parse (abort() on
** any violation, so the fuzzer reports it). The input is copied into a buffer of exactly its size, so
** ASan catches reads past len.
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sl__fail(const char *what, const char *a, size_t alen, const char *b)
{
    fprintf(stderr, "fuzz_parser: %s\n  input:   %.*s\n  printed: %s\n", what, (int)alen, a,
            b ? b : "");
    abort();
}

/* Token invariants: contiguous, non-empty, within [0, size). */
static void sl__check_tokens(const char *sql, size_t size)
{
    size_t off = 0;
    for (;;) {
        sl_token t;
        sl_tokenize_next(sql, size, off, &t);
        if (t.type == SL_TK_EOF) {
            if ((size_t)t.pos != size)
                sl__fail("EOF not at len", sql, size, NULL);
            return;
        }
        if (t.len <= 0 || (size_t)t.pos != off || off + (size_t)t.len > size)
            sl__fail("bad token bounds", sql, size, NULL);
        off += (size_t)t.len;
    }
}

/* sl_sql_split consumes the text in complete pieces within bounds. */
static void sl__check_split(const char *sql, size_t size)
{
    size_t off = 0;
    for (;;) {
        size_t n = 0;
        int rc = sl_sql_split(sql + off, size - off, &n);
        if (rc != 1)
            return;
        if (n == 0 || n > size - off || sql[off + n - 1] != ';')
            sl__fail("bad split length", sql, size, NULL);
        off += n;
    }
}

static void sl__check_roundtrip(const sl_stmt *s, const char *sql, size_t size)
{
    sl_strbuf p1 = SL_STRBUF_INIT, p2 = SL_STRBUF_INIT;
    sl_stmt_print(&p1, s, NULL, NULL);
    sl_error err = SL_ERROR_INIT;
    const char *t1 = sl_strbuf_cstr(&p1);
    sl_stmt *again = sl_parse_one(t1, p1.len, &err);
    if (!again) {
        fprintf(stderr, "reparse error: %s at %d\n", err.message, err.position);
        sl__fail("printed statement does not parse", sql, size, t1);
    }
    if (!sl_stmt_equal(s, again))
        sl__fail("printed statement parses to a different AST", sql, size, t1);
    sl_stmt_print(&p2, again, NULL, NULL);
    if (strcmp(t1, sl_strbuf_cstr(&p2)) != 0)
        sl__fail("printing is not stable", sql, size, sl_strbuf_cstr(&p2));
    sl_stmt_free(again);
    sl_strbuf_free(&p1);
    sl_strbuf_free(&p2);
}

/* A rule that fuzzed keys hit often. */
static bool sl__fuzz_secret(const char *key, void *ctx)
{
    (void)ctx;
    return strstr(key, "pass") != NULL || strstr(key, "secret") != NULL;
}

/* sl_sql_redact (the shell's LINE block and history): any position stays
** within the copy, and text that parsed still parses once redacted. */
static void sl__check_redact(const char *sql, size_t size, bool parsed)
{
    for (size_t pos = 0; pos <= size; pos += size / 7 + 1) {
        sl_strbuf out = SL_STRBUF_INIT;
        size_t p = pos;
        int n = sl_sql_redact(sql, size, sl__fuzz_secret, NULL, &out, &p);
        if (n < 0 || p > out.len || (n == 0 && (out.len != size || (size && memcmp(out.buf, sql, size)))))
            sl__fail("bad redaction", sql, size, sl_strbuf_cstr(&out));
        if (pos == 0 && parsed && n > 0) {
            sl_list *again = sl_list_new();
            sl_error err = SL_ERROR_INIT;
            if (sl_parse(sl_strbuf_cstr(&out), out.len, again, &err) != 0)
                sl__fail("redacted text does not parse", sql, size, sl_strbuf_cstr(&out));
            sl_list_free(again, sl_stmt_free_v);
        }
        sl_strbuf_free(&out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *sql = malloc(size ? size : 1);
    if (size)
        memcpy(sql, data, size);
    sl__check_tokens(sql, size);
    sl__check_split(sql, size);
    sl_list *out = sl_list_new();
    sl_error err = SL_ERROR_INIT;
    if (sl_parse(sql, size, out, &err) == 0) {
        for (int i = 0; i < out->n; i++) {
            const sl_stmt *s = out->items[i];
            if (s->pos < 0 || s->end < s->pos || (size_t)s->end > size)
                sl__fail("bad statement bounds", sql, size, NULL);
            sl__check_roundtrip(s, sql, size);
        }
    } else {
        if (out->n != 0 || !err.message || err.position < 0 || (size_t)err.position > size ||
            strlen(err.sqlstate) != 5)
            sl__fail("bad error", sql, size, err.message);
    }
    sl__check_redact(sql, size, out->n > 0);
    sl_list_free(out, sl_stmt_free_v);
    sl_error_reset(&err);
    free(sql);
    return 0;
}
