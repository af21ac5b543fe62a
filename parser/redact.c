/*
** redact.c — statement text with its secret values hidden, for the places
** that show or keep text the user typed rather than a printed statement:
** the shell's LINE block under an error and its history file.
**
** Every option the grammar takes is `'key' = 'value'` (WITH, ALTER TABLE
** SET, SET): a string literal after a string literal and '='. When the key
** is secret (the caller's rule: the engine's is sl_option_secret_fn), the
** value's literal is replaced by '******' (SL_REDACTED); an unterminated
** value is replaced up to the end of the text. Everything else is copied
** byte for byte, so the text still reads (and parses) as typed.
**
** Main routine: sl_sql_redact.
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

int sl_sql_redact(const char *sql, size_t len, sl_secret_fn is_secret, void *ctx,
                  sl_strbuf *out, size_t *pos)
{
    size_t off = 0, copied = 0, in_pos = pos ? *pos : 0;
    long shift = 0; /* bytes the copy gained (or lost) before in_pos */
    bool moved = false;
    int redacted = 0;
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
        if (eq.type == TK_EQ && key.type == TK_STRING && sl__is_string(sql, &t)) {
            char *k = sl__unquote(sql, &key);
            if (is_secret(k, ctx)) {
                size_t at = (size_t)t.pos, n = (size_t)t.len;
                sl_strbuf_append_n(out, sql + copied, at - copied);
                sl_strbuf_append(out, "'" SL_REDACTED "'");
                copied = at + n;
                long grew = (long)strlen("'" SL_REDACTED "'") - (long)n;
                if (pos && !moved && in_pos >= at + n)
                    shift += grew;
                else if (pos && !moved && in_pos > at) /* inside the value: its start */
                    shift = (long)at - (long)in_pos + shift, moved = true;
                redacted++;
            }
            sl_free(k);
        }
        key = eq;
        eq = t;
    }
    if (sql && copied < len)
        sl_strbuf_append_n(out, sql + copied, len - copied);
    if (pos)
        *pos = (size_t)((long)in_pos + shift);
    return redacted;
}
