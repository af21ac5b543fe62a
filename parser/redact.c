/*
** redact.c — statement text with its secret values hidden, for the places
** that show or keep text the user typed rather than a printed statement:
** the shell's LINE block under an error and its history file.
**
** Every option the grammar takes is `'key' = 'value'` (WITH, ALTER TABLE
** SET, SET): a string literal after a string literal and '='. When the key
** is secret (the caller's rule: the engine's is sl_option_secret_fn), the
** value's literal is replaced by '******' (SL_REDACTED); an unterminated
** value is replaced up to the end of the text, and so is a value typed
** without quotes (a word or a number: a syntax error that quotes it).
** Everything else is copied byte for byte, so the text still reads (and
** parses) as typed. sl_sql_secret_values lists those values, for scrubbing
** an error about a statement that did not parse.
**
** Main routines: sl_sql_redact, sl_sql_secret_values.
*/
#include <string.h>

#include "parse_int.h"
#include "sql.h"

/* The text of a string literal token without its quotes and with '' as '. */
static char *sl__unquote(const char *sql, const sl_token *t)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    int end = t->len > 1 && !t->unterminated ? t->len - 1 : t->len;
    for (int i = 1; i < end; i++) {
        sl_strbuf_append_char(&sb, sql[t->pos + i]);
        if (sql[t->pos + i] == '\'' && i + 1 < end && sql[t->pos + i + 1] == '\'')
            i++;
    }
    return sl_strbuf_detach(&sb);
}

static bool sl__is_string(const char *sql, const sl_token *t)
{
    return t->type == TK_STRING ||
           (t->type == SL_TK_ILLEGAL && t->unterminated && sql[t->pos] == '\'');
}

/* A token that can be a value typed without quotes by mistake (a word, a
** number, a quoted identifier): the syntax error quotes it. */
static bool sl__is_bare_value(const char *sql, const sl_token *t)
{
    unsigned char c = (unsigned char)sql[t->pos];
    return t->type != SL_TK_ILLEGAL &&
           ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_' || c == '`' || c == '"' || c >= 0x80);
}

/* Call found(arg, key, t) for the value token t of every `'key' = value`
** whose key is_secret. Returns how many. */
static int sl__secret_values(const char *sql, size_t len, sl_secret_fn is_secret, void *ctx,
                             void (*found)(void *arg, const sl_token *key, const sl_token *t),
                             void *arg)
{
    size_t off = 0;
    int n = 0;
    sl_token key = {0}, eq = {0}; /* the last two significant tokens */
    key.type = eq.type = SL_TK_EOF;
    while (sql && is_secret) {
        sl_token t;
        sl_tokenize_next(sql, len, off, &t);
        if (t.type == SL_TK_EOF)
            break;
        off += (size_t)t.len;
        if (t.type == SL_TK_SPACE || t.type == SL_TK_COMMENT)
            continue;
        if (eq.type == TK_EQ && key.type == TK_STRING &&
            (sl__is_string(sql, &t) || sl__is_bare_value(sql, &t))) {
            char *k = sl__unquote(sql, &key);
            if (is_secret(k, ctx)) {
                found(arg, &key, &t);
                n++;
            }
            sl_free(k);
        }
        key = eq;
        eq = t;
    }
    return n;
}

typedef struct sl__redact_ctx {
    const char *sql;   /* the text */
    sl_strbuf *out;    /* the copy */
    size_t copied;     /* bytes of sql copied so far */
    size_t in_pos;     /* the position to move */
    long shift;        /* bytes the copy gained (or lost) before in_pos */
    bool moved;        /* in_pos was inside a value: shift is final */
} sl__redact_ctx;

static void sl__redact_one(void *arg, const sl_token *key, const sl_token *t)
{
    (void)key;
    sl__redact_ctx *r = arg;
    static const char shown[] = "'" SL_REDACTED "'";
    size_t at = (size_t)t->pos, n = (size_t)t->len;
    sl_strbuf_append_n(r->out, r->sql + r->copied, at - r->copied);
    sl_strbuf_append(r->out, shown);
    r->copied = at + n;
    if (r->moved)
        return;
    if (r->in_pos >= at + n) {
        r->shift += (long)(sizeof shown - 1) - (long)n;
    } else if (r->in_pos > at) { /* inside the value: its start */
        r->shift += (long)at - (long)r->in_pos;
        r->moved = true;
    }
}

int sl_sql_redact(const char *sql, size_t len, sl_secret_fn is_secret, void *ctx,
                  sl_strbuf *out, size_t *pos)
{
    sl__redact_ctx r = {sql, out, 0, pos ? *pos : 0, 0, false};
    int n = sl__secret_values(sql, len, is_secret, ctx, sl__redact_one, &r);
    if (sql && r.copied < len)
        sl_strbuf_append_n(out, sql + r.copied, len - r.copied);
    if (pos)
        *pos = (size_t)((long)r.in_pos + r.shift);
    return n;
}

typedef struct sl__collect_ctx {
    const char *sql; /* the text */
    sl_kvlist *out;  /* (key, value) */
} sl__collect_ctx;

static void sl__collect_one(void *arg, const sl_token *key, const sl_token *t)
{
    sl__collect_ctx *c = arg;
    char *k = sl__unquote(c->sql, key);
    const char *v = c->sql + t->pos;
    size_t l = (size_t)t->len;
    char *typed = sl_strndup(v, l);
    sl_kvlist_add(c->out, k, typed, key->pos, t->pos); /* as typed */
    sl_free(typed);
    if (l >= 2 && (v[0] == '\'' || v[0] == '`' || v[0] == '"')) { /* and without its quotes */
        char *bare = sl_strndup(v + 1, l - (v[l - 1] == v[0] ? 2 : 1));
        sl_kvlist_add(c->out, k, bare, key->pos, t->pos + 1);
        sl_free(bare);
    }
    sl_free(k);
}

int sl_sql_secret_values(const char *sql, size_t len, sl_secret_fn is_secret, void *ctx,
                         sl_kvlist *out)
{
    sl__collect_ctx c = {sql, out};
    return sl__secret_values(sql, len, is_secret, ctx, sl__collect_one, &c);
}
