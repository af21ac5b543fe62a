/*
** conn.c — one connection: the transport, the startup packet, the
** authentication exchange, ParameterStatus and BackendKeyData, then the
** message loop until Terminate or the peer goes away.
**
** Startup-class packets (no type byte) come first: SSLRequest and
** GSSENCRequest are answered 'N' (a client then goes on in clear text or
** gives up, as it chose), CancelRequest is looked up in the server's list
** and the connection closed, a protocol 2.x packet gets a FATAL error. The
** startup packet's parameters (user, database, application_name, options
** ...) are kept; authentication is trust.
**
** Main routines: sl_conn_main, sl_conn_read_message, sl_conn_flush,
** sl_conn_error, sl_conn_ready.
*/
#include "server_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
** Transport
*/

static ssize_t sl__plain_read(sl_conn *c, void *buf, size_t n)
{
    ssize_t r;
    do
        r = recv(c->fd, buf, n, 0);
    while (r < 0 && errno == EINTR);
    return r;
}

static ssize_t sl__plain_write(sl_conn *c, const void *buf, size_t n)
{
    ssize_t r;
    do
        r = send(c->fd, buf, n, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    return r;
}

int sl_conn_flush(sl_conn *c)
{
    size_t off = 0;
    while (!c->closed && off < c->out.len) {
        ssize_t w = c->io_write(c, c->out.buf + off, c->out.len - off);
        if (w <= 0) {
            c->closed = true;
            break;
        }
        off += (size_t)w;
    }
    sl_strbuf_reset(&c->out);
    return c->closed ? -1 : 0;
}

/* Make in[in_off .. in_off+need) available. 1: there; 0: end of input
** before any byte of it; -1: error or end of input inside it. */
static int sl__conn_fill(sl_conn *c, size_t need)
{
    if (c->in_off > 0 && c->in_off == c->in_len)
        c->in_off = c->in_len = 0;
    while (c->in_len - c->in_off < need) {
        if (c->in_off + need > c->in_cap) { /* compact, then grow */
            if (c->in_len > c->in_off) /* c->in is NULL before the first read */
                memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
            c->in_len -= c->in_off;
            c->in_off = 0;
            if (need > c->in_cap) {
                size_t cap = c->in_cap ? c->in_cap : 8192;
                while (cap < need)
                    cap *= 2;
                c->in = sl_realloc(c->in, cap);
                c->in_cap = cap;
            }
        }
        ssize_t r = c->io_read(c, c->in + c->in_len, c->in_cap - c->in_len);
        if (r <= 0) {
            c->closed = true;
            return r == 0 && c->in_len == c->in_off ? 0 : -1;
        }
        c->in_len += (size_t)r;
    }
    return 1;
}

/* Queue a FATAL protocol_violation, flush it and end the connection. */
static int sl__conn_protocol_error(sl_conn *c, const char *fmt, ...) SL_PRINTF(2, 3);
static int sl__conn_protocol_error(sl_conn *c, const char *fmt, ...)
{
    sl_error err = SL_ERROR_INIT;
    va_list ap;
    va_start(ap, fmt);
    sl_error_setv(&err, "08P01", -1, fmt, ap);
    va_end(ap);
    sl_conn_error(c, &err, NULL, 0, 0, true);
    sl_error_reset(&err);
    sl_conn_flush(c);
    c->closed = true;
    return -1;
}

int sl_conn_read_message(sl_conn *c, sl_pgmsg *m)
{
    int r = sl__conn_fill(c, 5);
    if (r <= 0)
        return r;
    const char *h = c->in + c->in_off;
    uint32_t len;
    memcpy(&len, h + 1, 4);
    len = ntohl(len);
    if (len < 4 || len > SL_PG_MAX_MESSAGE)
        return sl__conn_protocol_error(c, "invalid message length %u", len);
    if (sl__conn_fill(c, 1 + (size_t)len) <= 0)
        return -1;
    h = c->in + c->in_off;
    *m = (sl_pgmsg){h[0], h + 5, len - 4, 0, false};
    c->in_off += 1 + (size_t)len;
    return 1;
}

int sl_conn_read_startup(sl_conn *c, sl_pgmsg *m)
{
    int r = sl__conn_fill(c, 4);
    if (r <= 0)
        return r;
    uint32_t len;
    memcpy(&len, c->in + c->in_off, 4);
    len = ntohl(len);
    if (len < 8 || len > SL_PG_MAX_STARTUP)
        return sl__conn_protocol_error(c, "invalid length of startup packet %u", len);
    if (sl__conn_fill(c, len) <= 0)
        return -1;
    *m = (sl_pgmsg){0, c->in + c->in_off + 4, len - 4, 0, false};
    c->in_off += len;
    return 1;
}

/* ------------------------------------------------------------------------
** Errors and readiness
*/

/* Characters (UTF-8 lead bytes) in s[0..n). */
static size_t sl__chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            k++;
    return k;
}

void sl_conn_error(sl_conn *c, const sl_error *err, const char *text, size_t len,
                   size_t base_chars, bool fatal)
{
    bool notice = err->severity == SL_SEV_WARNING || err->severity == SL_SEV_NOTICE;
    const char *sev = fatal                              ? "FATAL"
                      : err->severity == SL_SEV_WARNING ? "WARNING"
                      : err->severity == SL_SEV_NOTICE  ? "NOTICE"
                                                         : "ERROR";
    const char *code = err->sqlstate[0] ? err->sqlstate : notice ? "00000" : SL_ERR_INTERNAL;
    size_t start = sl_pgout_begin(&c->out, notice ? 'N' : 'E');
    sl_strbuf_append_char(&c->out, 'S');
    sl_pgout_string(&c->out, sev);
    sl_strbuf_append_char(&c->out, 'V');
    sl_pgout_string(&c->out, sev);
    sl_strbuf_append_char(&c->out, 'C');
    sl_pgout_string(&c->out, code);
    sl_strbuf_append_char(&c->out, 'M');
    sl_pgout_string(&c->out, err->message ? err->message : "unknown error");
    if (err->detail) {
        sl_strbuf_append_char(&c->out, 'D');
        sl_pgout_string(&c->out, err->detail);
    }
    if (err->hint) {
        sl_strbuf_append_char(&c->out, 'H');
        sl_pgout_string(&c->out, err->hint);
    }
    if (err->position >= 0 && text && (size_t)err->position <= len) {
        char pos[32];
        snprintf(pos, sizeof pos, "%zu", base_chars + sl__chars(text, (size_t)err->position) + 1);
        sl_strbuf_append_char(&c->out, 'P');
        sl_pgout_string(&c->out, pos);
    }
    sl_strbuf_append_char(&c->out, '\0');
    sl_pgout_end(&c->out, start);
}

void sl_conn_ready(sl_conn *c)
{
    size_t start = sl_pgout_begin(&c->out, 'Z');
    sl_strbuf_append_char(&c->out, 'I');
    sl_pgout_end(&c->out, start);
}

/* ------------------------------------------------------------------------
** Startup
*/

static void sl__param_status(sl_conn *c, const char *name, const char *value)
{
    size_t start = sl_pgout_begin(&c->out, 'S');
    sl_pgout_string(&c->out, name);
    sl_pgout_string(&c->out, value);
    sl_pgout_end(&c->out, start);
}

/* A CancelRequest: find the connection with that key and cancel its
** running statement. Nothing is answered (as PostgreSQL). */
static void sl__cancel_request(sl_conn *c, int32_t pid, int32_t secret)
{
    sl_server *srv = c->srv;
    pthread_mutex_lock(&srv->mu);
    for (int i = 0; i < sl_list_len(srv->conns); i++) {
        sl_conn *o = sl_list_get(srv->conns, i);
        if (o->pid == pid && o->secret == secret)
            o->cancel = 1;
    }
    pthread_mutex_unlock(&srv->mu);
}

/* Read startup-class packets until the startup packet. 1: ready for
** authentication; 0: the connection ends here (cancel, refusal, EOF). */
static int sl__startup(sl_conn *c)
{
    for (;;) {
        sl_pgmsg m;
        if (sl_conn_read_startup(c, &m) <= 0)
            return 0;
        int32_t code = sl_pgmsg_int32(&m);
        if (code == SL_PG_SSL_REQUEST || code == SL_PG_GSSENC_REQUEST) {
            char no = 'N';
            if (c->io_write(c, &no, 1) != 1)
                return 0;
            continue;
        }
        if (code == SL_PG_CANCEL_REQUEST) {
            int32_t pid = sl_pgmsg_int32(&m), secret = sl_pgmsg_int32(&m);
            if (sl_pgmsg_done(&m))
                sl__cancel_request(c, pid, secret);
            return 0;
        }
        if ((code >> 16) != 3) {
            sl_error err = SL_ERROR_INIT;
            sl_error_set(&err, "0A000", -1,
                         "unsupported frontend protocol %d.%d: server supports 3.0 to 3.0",
                         code >> 16, code & 0xFFFF);
            sl_conn_error(c, &err, NULL, 0, 0, true);
            sl_error_reset(&err);
            sl_conn_flush(c);
            return 0;
        }
        c->startup_params = sl_kvlist_new();
        while (!m.bad && m.off < m.len) {
            const char *k = sl_pgmsg_string(&m);
            if (!*k)
                break;
            const char *v = sl_pgmsg_string(&m);
            if (!m.bad)
                sl_kvlist_set(c->startup_params, k, v, -1, -1);
        }
        const char *user = sl_kvlist_get(c->startup_params, "user");
        if (m.bad || !user || !*user) {
            sl_error err = SL_ERROR_INIT;
            sl_error_set(&err, "28000", -1, "no PostgreSQL user name specified in startup packet");
            sl_conn_error(c, &err, NULL, 0, 0, true);
            sl_error_reset(&err);
            sl_conn_flush(c);
            return 0;
        }
        c->user = sl_strdup(user);
        const char *db = sl_kvlist_get(c->startup_params, "database");
        c->database = sl_strdup(db && *db ? db : user);
        const char *app = sl_kvlist_get(c->startup_params, "application_name");
        c->application_name = sl_strdup(app ? app : "");
        return 1;
    }
}

/* AuthenticationOk, the parameters, BackendKeyData, ReadyForQuery. */
static void sl__welcome(sl_conn *c)
{
    size_t start = sl_pgout_begin(&c->out, 'R');
    sl_pgout_int32(&c->out, 0);
    sl_pgout_end(&c->out, start);
    sl__param_status(c, "server_version", "15.0 (Sluice " SLUICE_VERSION ")");
    sl__param_status(c, "server_encoding", "UTF8");
    sl__param_status(c, "client_encoding", "UTF8");
    sl__param_status(c, "DateStyle", "ISO, MDY");
    sl__param_status(c, "TimeZone", "UTC");
    sl__param_status(c, "integer_datetimes", "on");
    sl__param_status(c, "standard_conforming_strings", "on");
    sl__param_status(c, "application_name", c->application_name);
    sl__param_status(c, "is_superuser", "on");
    sl__param_status(c, "session_authorization", c->user);
    start = sl_pgout_begin(&c->out, 'K');
    sl_pgout_int32(&c->out, c->pid);
    sl_pgout_int32(&c->out, c->secret);
    sl_pgout_end(&c->out, start);
    sl_conn_ready(c);
}

/* ------------------------------------------------------------------------
** The message loop
*/

static void sl__conn_loop(sl_conn *c)
{
    while (!c->closed) {
        if (sl_conn_flush(c) != 0)
            return;
        sl_pgmsg m;
        if (sl_conn_read_message(c, &m) <= 0)
            return;
        switch (m.type) {
        case 'Q': {
            const char *sql = sl_pgmsg_string(&m);
            if (!sl_pgmsg_done(&m)) {
                sl__conn_protocol_error(c, "invalid Query message");
                return;
            }
            c->cancel = 0;
            sl_query_simple(c, sql, strlen(sql));
            sl_conn_ready(c);
            break;
        }
        case 'X': return;
        default: {
            sl__conn_protocol_error(c, "invalid frontend message type %d",
                                    (int)(unsigned char)m.type);
            return;
        }
        }
    }
}

static void sl__conn_free(sl_conn *c)
{
    sl_server *srv = c->srv;
    pthread_mutex_lock(&srv->mu);
    for (int i = 0; i < sl_list_len(srv->conns); i++)
        if (sl_list_get(srv->conns, i) == c) {
            srv->conns->items[i] = srv->conns->items[--srv->conns->n];
            break;
        }
    srv->nconns--;
    pthread_mutex_unlock(&srv->mu);
    if (c->session)
        sl_session_free(c->session);
    close(c->fd);
    sl_free(c->in);
    sl_strbuf_free(&c->out);
    sl_free(c->user);
    sl_free(c->database);
    sl_free(c->application_name);
    sl_kvlist_free(c->startup_params);
    sl_free(c);
}

void *sl_conn_main(void *arg)
{
    sl_conn *c = arg;
    c->io_read = sl__plain_read;
    c->io_write = sl__plain_write;
    if (sl__startup(c) == 1) {
        sl_log(SL_LOG_INFO, "connection from %s: user=%s database=%s application_name=%s",
               c->peer, c->user, c->database, c->application_name);
        c->session = sl_session_new(c->srv->eng);
        sl_session_set_interrupt(c->session, &c->cancel);
        sl__welcome(c);
        sl__conn_loop(c);
        sl_log(SL_LOG_INFO, "disconnection of %s (user=%s)", c->peer, c->user);
    }
    sl__conn_free(c);
    return NULL;
}
