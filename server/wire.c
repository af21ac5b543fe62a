/*
** wire.c — the v3 message codec: a bounds-checked reader over one message
** body and the writer that frames outgoing messages (Byte1 type, Int32
** length counting itself, body; integers in network order).
**
** Main routines: sl_pgmsg_* (reading), sl_pgout_* (writing).
*/
#include "server_int.h"

#include <arpa/inet.h>
#include <string.h>

static bool sl__pgmsg_need(sl_pgmsg *m, size_t n)
{
    if (m->bad || m->len - m->off < n) {
        m->bad = true;
        return false;
    }
    return true;
}

int16_t sl_pgmsg_int16(sl_pgmsg *m)
{
    uint16_t v;
    if (!sl__pgmsg_need(m, 2))
        return 0;
    memcpy(&v, m->data + m->off, 2);
    m->off += 2;
    return (int16_t)ntohs(v);
}

int32_t sl_pgmsg_int32(sl_pgmsg *m)
{
    uint32_t v;
    if (!sl__pgmsg_need(m, 4))
        return 0;
    memcpy(&v, m->data + m->off, 4);
    m->off += 4;
    return (int32_t)ntohl(v);
}

const char *sl_pgmsg_string(sl_pgmsg *m)
{
    if (m->bad || m->off >= m->len) {
        m->bad = true;
        return "";
    }
    const char *s = m->data + m->off;
    const char *nul = memchr(s, '\0', m->len - m->off);
    if (!nul) {
        m->bad = true;
        return "";
    }
    m->off += (size_t)(nul - s) + 1;
    return s;
}

const char *sl_pgmsg_bytes(sl_pgmsg *m, size_t n)
{
    if (!sl__pgmsg_need(m, n))
        return NULL;
    const char *p = m->data + m->off;
    m->off += n;
    return p;
}

bool sl_pgmsg_done(const sl_pgmsg *m)
{
    return !m->bad && m->off == m->len;
}

size_t sl_pgout_begin(sl_strbuf *out, char type)
{
    size_t start = out->len;
    sl_strbuf_append_char(out, type);
    sl_pgout_int32(out, 0);
    return start;
}

void sl_pgout_end(sl_strbuf *out, size_t start)
{
    uint32_t n = htonl((uint32_t)(out->len - start - 1));
    memcpy(out->buf + start + 1, &n, 4);
}

void sl_pgout_int16(sl_strbuf *out, int16_t v)
{
    uint16_t n = htons((uint16_t)v);
    sl_strbuf_append_n(out, (const char *)&n, 2);
}

void sl_pgout_int32(sl_strbuf *out, int32_t v)
{
    uint32_t n = htonl((uint32_t)v);
    sl_strbuf_append_n(out, (const char *)&n, 4);
}

void sl_pgout_string(sl_strbuf *out, const char *s)
{
    sl_strbuf_append_n(out, s, strlen(s) + 1);
}

void sl_pgout_bytes(sl_strbuf *out, const void *p, size_t n)
{
    sl_strbuf_append_n(out, p, n);
}
