/*
** parse.c — the parse driver and statement splitting.
**
** sl_parse tokenizes the text, feeds the significant tokens to the lemon
** parser (sql.y) and stops at the first error: an illegal token, a syntax
** error, or an error a builder reported. A ';' is appended when the text does
** not end with one, so the last statement needs none; a syntax error on that
** synthetic token is "at end of input". Statements finished before an error
** are freed: on error nothing is returned.
**
** Main routines: sl_parse, sl_parse_one, sl_sql_split; sl__syntax_error and
** sl__stack_overflow are called from the grammar.
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "parse_int.h"
#include "sql.h"

/* The generated parser's entry points. */
void *sl_sqlParserAlloc(void *(*malloc_fn)(size_t), sl__parse *p);
void sl_sqlParserFree(void *parser, void (*free_fn)(void *));
void sl_sqlParser(void *parser, int major, sl__tok minor);

/* Longest text accepted: positions are ints. */
#define SL__MAX_TEXT ((size_t)INT_MAX - 16)
/* Bytes of a token quoted in an error message. */
#define SL__SNIPPET 40

/* Write a printable excerpt of z[0..n) into buf (control bytes as \xNN,
** truncated with "..."). */
static void sl__snippet(char *buf, size_t cap, const char *z, int n)
{
    size_t k = 0;
    for (int i = 0; i < n && k + 8 < cap; i++) {
        unsigned char c = (unsigned char)z[i];
        if (i >= SL__SNIPPET) {
            memcpy(buf + k, "...", 3);
            k += 3;
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            snprintf(buf + k, cap - k, "\\x%02x", c);
            k += 4;
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k] = 0;
}

void sl__syntax_error(sl__parse *p, int major, sl__tok tok)
{
    (void)major;
    if (sl__flink_unsupported(p, tok.stmt_pos, tok))
        return;
    if (tok.n == 0) {
        sl_error_set(p->err, SL_ERR_SYNTAX, (int)p->len, "syntax error at end of input");
        return;
    }
    char buf[SL__SNIPPET * 4 + 16];
    sl__snippet(buf, sizeof(buf), tok.z, tok.n);
    sl_error_set(p->err, SL_ERR_SYNTAX, tok.pos, "syntax error at or near \"%s\"", buf);
}

void sl__stack_overflow(sl__parse *p)
{
    sl_error_set(p->err, SL_ERR_TOO_COMPLEX, p->cur_pos, "statement is nested too deeply");
    sl_error_detail(p->err, "The parser stack is limited to %d entries.", SL__STACK_SIZE);
}

/* Report a token holding bytes that are not UTF-8 (PostgreSQL's message):
** the position is that of the first bad byte. */
static void sl__bad_utf8(sl__parse *p, const sl_token *t)
{
    const unsigned char *b = (const unsigned char *)p->sql + t->bad_utf8;
    size_t left = p->len - (size_t)t->bad_utf8;
    char hex[32];
    size_t k = 0;
    for (size_t i = 0; i < left && i < 4 && (i == 0 || (b[i] & 0xC0) == 0x80); i++)
        k += (size_t)snprintf(hex + k, sizeof hex - k, "%s0x%02x", i ? " " : "", b[i]);
    char c = p->sql[t->pos];
    const char *where = c == '\'' ? "a string literal"
                        : c == '`' ? "a quoted identifier"
                        : c == '"' ? "a quoted identifier"
                        : (c == '-' || c == '/') && t->len > 1 ? "a comment"
                        : (c >= '0' && c <= '9') || c == '.' ? "a numeric literal"
                                                             : "an identifier";
    sl_error_set(p->err, SL_ERR_CHARACTER_NOT_IN_REPERTOIRE, t->bad_utf8,
                 "invalid byte sequence for encoding \"UTF8\": %s", hex);
    sl_error_detail(p->err, "The byte is in %s; SQL text, comments included, must be UTF-8.",
                    where);
}

/* Report an illegal token. */
static void sl__illegal(sl__parse *p, const sl_token *t)
{
    const char *z = p->sql + t->pos;
    char buf[SL__SNIPPET * 4 + 16];
    sl__snippet(buf, sizeof(buf), z, t->len);
    char c = z[0];
    if (t->bad_utf8 >= 0) {
        sl__bad_utf8(p, t);
    } else if (t->unterminated) {
        sl_error_set(p->err, SL_ERR_SYNTAX, t->pos, "%s",
                     c == '\'' || c == 'E' || c == 'e' || c == 'X' || c == 'x'
                         ? "unterminated quoted string"
                     : c == '`' || c == '"' ? "unterminated quoted identifier"
                                : "unterminated /* comment");
    } else if ((c >= '0' && c <= '9') || c == '.') {
        sl_error_set(p->err, SL_ERR_SYNTAX, t->pos,
                     "trailing junk after numeric literal at or near \"%s\"", buf);
    } else {
        sl_error_set(p->err, SL_ERR_SYNTAX, t->pos, "syntax error at or near \"%s\"", buf);
    }
}

int sl_parse(const char *sql, size_t len, sl_list *out, sl_error *err)
{
    if (!sql)
        sql = "", len = 0;
    if (len > SL__MAX_TEXT)
        return sl_error_set(err, SL_ERR_PROGRAM_LIMIT, 0, "statement text is too long");
    if (sl_error_isset(err)) /* a stale error would hide ours */
        sl_error_reset(err);
    sl__parse p;
    memset(&p, 0, sizeof(p));
    p.sql = sql;
    p.len = len;
    p.err = err;
    p.stmts = sl_list_new();
    void *parser = sl_sqlParserAlloc(sl_malloc, &p);
    size_t off = 0;
    int prev_end = 0, last_type = 0, stmt_pos = 0;
    bool at_start = true;
    sl__blk blk = {0};
    while (!sl_error_isset(err)) {
        sl_token t;
        sl_tokenize_next(sql, len, off, &t);
        if (t.type == SL_TK_EOF)
            break;
        off += (size_t)t.len;
        if (t.type == SL_TK_SPACE || t.type == SL_TK_COMMENT)
            continue;
        if (t.type == SL_TK_ILLEGAL) {
            sl__illegal(&p, &t);
            break;
        }
        if (at_start)
            stmt_pos = t.pos;
        p.cur_pos = t.pos;
        at_start = sl__blk_step(&blk, t.type);
        sl_sqlParser(parser, t.type, (sl__tok){sql + t.pos, t.len, t.pos, prev_end, stmt_pos});
        prev_end = t.pos + t.len;
        last_type = t.type;
    }
    sl__tok eof = {sql + len, 0, (int)len, prev_end, stmt_pos};
    if (!sl_error_isset(err) && last_type && last_type != TK_SEMI) {
        p.cur_pos = (int)len;
        sl_sqlParser(parser, TK_SEMI, eof); /* the last statement needs no ';' */
    }
    if (!sl_error_isset(err))
        sl_sqlParser(parser, 0, eof);
    sl_sqlParserFree(parser, sl_free);
    sl__depth_free(&p);
    if (sl_error_isset(err)) {
        sl_list_free(p.stmts, sl_stmt_free_v);
        return -1;
    }
    for (int i = 0; i < p.stmts->n; i++)
        sl_list_push(out, p.stmts->items[i]);
    sl_list_free(p.stmts, NULL);
    return 0;
}

sl_stmt *sl_parse_one(const char *sql, size_t len, sl_error *err)
{
    sl_list *l = sl_list_new();
    sl_stmt *s = NULL;
    if (sl_parse(sql, len, l, err) == 0) {
        if (l->n == 1) {
            s = l->items[0];
            l->n = 0;
        } else if (l->n == 0) {
            sl_error_set(err, SL_ERR_SYNTAX, (int)len, "syntax error at end of input");
            sl_error_detail(err, "The text holds no statement.");
        } else {
            sl_stmt *second = l->items[1];
            sl_error_set(err, SL_ERR_SYNTAX, second->pos, "only one statement is allowed here");
            sl_error_detail(err, "The text holds %d statements.", l->n);
        }
    }
    sl_list_free(l, sl_stmt_free_v);
    return s;
}

bool sl__blk_step(sl__blk *b, int type)
{
    bool ends = type == TK_SEMI && !b->in_set;
    if (type == TK_BEGIN && (b->recent[0] == TK_EXECUTE || b->recent[0] == TK_EXPLAIN) &&
        b->recent[1] == TK_STATEMENT && b->recent[2] == TK_SET) {
        b->in_set = true;
        b->case_depth = 0;
    } else if (b->in_set && type == TK_CASE) {
        b->case_depth++;
    } else if (b->in_set && type == TK_END) {
        if (b->case_depth > 0)
            b->case_depth--;
        else
            b->in_set = false;
    }
    b->recent[0] = b->recent[1];
    b->recent[1] = b->recent[2];
    b->recent[2] = type;
    return ends;
}

int sl_sql_split(const char *sql, size_t len, size_t *stmt_len)
{
    if (!sql)
        return -1;
    size_t off = 0;
    bool any = false;
    sl__blk blk = {0};
    for (;;) {
        sl_token t;
        sl_tokenize_next(sql, len, off, &t);
        if (t.type == SL_TK_EOF)
            return any ? 0 : -1;
        off += (size_t)t.len;
        if (t.type == SL_TK_SPACE || t.type == SL_TK_COMMENT)
            continue;
        if (t.unterminated)
            return 0;
        if (t.type == TK_SEMI && !any)
            continue; /* an empty statement (";;") is skipped like a blank */
        any = true;
        if (sl__blk_step(&blk, t.type)) {
            *stmt_len = off;
            return 1;
        }
    }
}
