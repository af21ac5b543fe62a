/*
** conn.c — one connection: the transport, the startup packet, the
** authentication exchange, ParameterStatus and BackendKeyData, then the
** message loop until Terminate or the peer goes away.
**
** The states of a connection and what each accepts (anything else: a FATAL
** 08P01 ErrorResponse and the connection closes):
**
**   state      accepts                        then
**   ---------  -----------------------------  -------------------------------
**   startup    SSLRequest                     'S' + TLS handshake (TLS
**                                             configured, no byte after the
**                                             request: CVE-2021-23214) or
**                                             'N'; startup again, once
**              GSSENCRequest                  'N'; startup again, once
**              CancelRequest (16 bytes)       that session's statement is
**                                             cancelled; close, no answer
**              StartupMessage 3.x             3.x>3.0 or _pq_.* options:
**                                             NegotiateProtocolVersion; auth
**              anything else (2.0, garbage)   FATAL 0A000 / 08P01; close
**   auth       (trust) nothing                ready
**              (scram) SASLInitialResponse,   wrong password / unknown user:
**              SASLResponse (scram.c)         FATAL 28P01 after the same
**                                             delay; else ready
**   ready      Query, Terminate, (extended)   ready; Terminate closes
**
** startup + auth must finish within --authentication-timeout (60 s): a
** client that never sends its startup packet is dropped. Over
** --max-connections, the startup packet is read and answered FATAL 53300.
** The startup parameters go to the session (sl_session_set_param), the
** `options` parameter's "-c name=value" / "--name=value" too; _pq_.*
** protocol options are not recognised (NegotiateProtocolVersion names them).
**
** Output is written when the loop is about to read from the socket (no
** whole message left in the input buffer: a pipelined batch such as
** Bind/Execute/Sync is answered in one write), when it holds
** SL__CONN_FLUSH_AT bytes, and by the row path while a statement streams.
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
#include <sys/time.h>
#include <unistd.h>

#define SL__CONN_FLUSH_AT 65536 /* replies held for a pipelined batch, at most */

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
        snprintf(pos, sizeof pos, "%zu", base_chars + sl_utf8_count(text, (size_t)err->position) + 1);
        sl_strbuf_append_char(&c->out, 'P');
        sl_pgout_string(&c->out, pos);
    }
    sl_strbuf_append_char(&c->out, '\0');
    sl_pgout_end(&c->out, start);
}

void sl_conn_ready(sl_conn *c)
{
    size_t start = sl_pgout_begin(&c->out, 'Z');
    sl_strbuf_append_char(&c->out, c->session ? sl_session_txn_status(c->session) : 'I');
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

/* Queue a FATAL error, flush it; the connection ends. Returns 0. */
static int sl__conn_fatal(sl_conn *c, const sl_error *err)
{
    sl_conn_error(c, err, NULL, 0, 0, true);
    sl_conn_flush(c);
    c->closed = true;
    return 0;
}

static int sl__conn_fatalf(sl_conn *c, const char *sqlstate, const char *fmt, ...) SL_PRINTF(3, 4);
static int sl__conn_fatalf(sl_conn *c, const char *sqlstate, const char *fmt, ...)
{
    sl_error err = SL_ERROR_INIT;
    va_list ap;
    va_start(ap, fmt);
    sl_error_setv(&err, sqlstate, -1, fmt, ap);
    va_end(ap);
    sl__conn_fatal(c, &err);
    sl_error_reset(&err);
    return 0;
}

/* A CancelRequest: find the connection with that key and cancel its
** running statement. Nothing is answered (as PostgreSQL); a wrong key does
** nothing. */
static void sl__cancel_request(sl_conn *c, int32_t pid, int32_t secret)
{
    sl_server *srv = c->srv;
    bool found = false;
    pthread_mutex_lock(&srv->mu);
    for (int i = 0; i < sl_list_len(srv->conns); i++) {
        sl_conn *o = sl_list_get(srv->conns, i);
        if (o != c && o->pid == pid && o->secret == secret) {
            o->cancel = 1;
            found = true;
        }
    }
    pthread_mutex_unlock(&srv->mu);
    if (!found)
        sl_log(SL_LOG_INFO, "cancel request from %s for an unknown key (process %d)", c->peer,
               (int)pid);
}

/* NegotiateProtocolVersion: the newest version we speak (3.0) and the
** protocol options we did not recognise. */
static void sl__negotiate(sl_conn *c, const sl_list *unknown)
{
    size_t start = sl_pgout_begin(&c->out, 'v');
    sl_pgout_int32(&c->out, SL_PG_PROTOCOL_3_0);
    sl_pgout_int32(&c->out, sl_list_len(unknown));
    for (int i = 0; i < sl_list_len(unknown); i++)
        sl_pgout_string(&c->out, sl_list_get(unknown, i));
    sl_pgout_end(&c->out, start);
}

/* An SSLRequest: 'S' and the TLS handshake when TLS is configured, else
** 'N'. 1: go on with the next startup packet; 0: the connection ends. */
static int sl__ssl_request(sl_conn *c)
{
    if (c->tls)
        return sl__conn_fatalf(c, "08P01", "SSL request received on an encrypted connection");
    /* Bytes the client sent after the request and before the handshake
    ** would be taken as if they had come through TLS (CVE-2021-23214). */
    if (c->in_len > c->in_off)
        return sl__conn_fatalf(c, "08P01", "received unencrypted data after SSL request");
    char answer = c->srv->tls_ctx ? 'S' : 'N';
    if (c->io_write(c, &answer, 1) != 1)
        return 0;
    if (answer == 'N')
        return 1;
    sl_error err = SL_ERROR_INIT;
    if (sl_tls_accept(c, &err) != 0) {
        sl_log(SL_LOG_INFO, "connection from %s: %s", c->peer, err.message);
        sl_error_reset(&err);
        c->closed = true;
        return 0;
    }
    return 1;
}

/* Read startup-class packets until the startup packet. 1: ready for
** authentication; 0: the connection ends here (cancel, refusal, EOF). */
static int sl__startup(sl_conn *c)
{
    bool ssl_seen = false, gss_seen = false;
    for (;;) {
        sl_pgmsg m;
        if (sl_conn_read_startup(c, &m) <= 0)
            return 0;
        int32_t code = sl_pgmsg_int32(&m);
        if (code == SL_PG_SSL_REQUEST || code == SL_PG_GSSENC_REQUEST) {
            bool *seen = code == SL_PG_SSL_REQUEST ? &ssl_seen : &gss_seen;
            if (!sl_pgmsg_done(&m) || *seen)
                return sl__conn_fatalf(c, "08P01", "invalid %s request",
                                       code == SL_PG_SSL_REQUEST ? "SSL" : "GSSAPI encryption");
            *seen = true;
            if (code == SL_PG_SSL_REQUEST) {
                if (sl__ssl_request(c) != 1)
                    return 0;
            } else {
                if (c->in_len > c->in_off)
                    return sl__conn_fatalf(c, "08P01", "received unencrypted data after "
                                                         "GSSAPI encryption request");
                char no = 'N';
                if (c->io_write(c, &no, 1) != 1)
                    return 0;
            }
            continue;
        }
        if (code == SL_PG_CANCEL_REQUEST) {
            int32_t pid = sl_pgmsg_int32(&m), secret = sl_pgmsg_int32(&m);
            if (sl_pgmsg_done(&m))
                sl__cancel_request(c, pid, secret);
            return 0;
        }
        if ((code >> 16) != 3)
            return sl__conn_fatalf(c, "0A000",
                                   "unsupported frontend protocol %d.%d: "
                                   "server supports 3.0 to 3.0",
                                   (code >> 16) & 0xFFFF, code & 0xFFFF);
        c->startup_params = sl_kvlist_new();
        sl_list *unknown = sl_list_new(); /* _pq_.* options */
        bool ended = false;
        while (!m.bad && m.off < m.len) {
            const char *k = sl_pgmsg_string(&m);
            if (!*k) {
                ended = !m.bad;
                break;
            }
            const char *v = sl_pgmsg_string(&m);
            if (m.bad)
                break;
            if (strncmp(k, "_pq_.", 5) == 0)
                sl_list_push(unknown, sl_strdup(k));
            else
                sl_kvlist_set(c->startup_params, k, v, -1, -1);
        }
        if (!ended || !sl_pgmsg_done(&m)) {
            sl_list_free(unknown, sl_free);
            return sl__conn_fatalf(c, "08P01", "invalid startup packet layout: "
                                                 "expected terminator as last byte");
        }
        if ((code & 0xFFFF) > 0 || sl_list_len(unknown) > 0)
            sl__negotiate(c, unknown);
        sl_list_free(unknown, sl_free);
        const char *user = sl_kvlist_get(c->startup_params, "user");
        if (!user || !*user)
            return sl__conn_fatalf(c, "28000",
                                   "no PostgreSQL user name specified in startup packet");
        c->user = sl_strdup(user);
        const char *db = sl_kvlist_get(c->startup_params, "database");
        c->database = sl_strdup(db && *db ? db : user);
        const char *app = sl_kvlist_get(c->startup_params, "application_name");
        c->application_name = sl_strdup(app ? app : "");
        if (c->too_many)
            return sl__conn_fatalf(c, "53300", "sorry, too many clients already");
        return 1;
    }
}

/* Authentication: trust, or SCRAM-SHA-256 against the users file. 1: the
** client is who it says; 0: refused (FATAL sent). */
static int sl__authenticate(sl_conn *c)
{
    sl_server *srv = c->srv;
    if (!srv->cfg.auth_scram)
        return 1;
    sl_error err = SL_ERROR_INIT;
    char *verifier = NULL;
    int rc = sl_users_lookup(srv->cfg.data_dir, c->user, &verifier, &err);
    if (rc < 0) {
        sl_log(SL_LOG_ERROR, "authentication of %s: %s", c->peer, err.message);
        sl_error_reset(&err);
        sl_error_set(&err, "28000", -1, "could not read the users file");
        sl__conn_fatal(c, &err);
        sl_error_reset(&err);
        return 0;
    }
    rc = sl_scram_exchange(c, verifier, &err);
    sl_free(verifier);
    if (rc == 1)
        return 1;
    if (rc < 0 && !err.message) { /* the peer went away (or a FATAL went out) */
        c->closed = true;
        return 0;
    }
    if (rc == 0) {
        /* The same delay whether the user exists or not: the exchange
        ** itself did the same work either way. */
        sl_log(SL_LOG_WARN, "password authentication failed for user \"%s\" from %s", c->user,
               c->peer);
        if (srv->auth_fail_delay > 0)
            sl_sleep_nanos(srv->auth_fail_delay);
        sl_error_set(&err, "28P01", -1, "password authentication failed for user \"%s\"",
                     c->user);
    } else {
        sl_log(SL_LOG_WARN, "authentication of user \"%s\" from %s failed: %s", c->user, c->peer,
               err.message);
    }
    sl__conn_fatal(c, &err);
    sl_error_reset(&err);
    return 0;
}

/* A reported parameter changed (SET application_name ...): ParameterStatus
** goes out with the statement's other messages. */
static void sl__on_param(void *ctx, const char *name, const char *value)
{
    sl__param_status(ctx, name, value ? value : "");
}

/* The new session, with the startup packet's parameters, the connection's
** pid and database (sl_session_set_param checks them as SET does; it also
** takes `options`' -c settings). 1, or 0 after a FATAL for an invalid one. */
static int sl__session_start(sl_conn *c)
{
    c->session = sl_session_new(c->srv->eng);
    sl_session_set_interrupt(c->session, &c->cancel);
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)c->pid);
    sl_error err = SL_ERROR_INIT;
    int rc = sl_session_set_param(c->session, "session_backend_pid", pid, &err);
    if (rc == 0)
        rc = sl_session_set_param(c->session, "session_database", c->database, &err);
    for (int i = 0; rc == 0 && i < c->startup_params->n; i++) {
        const sl_kv *kv = &c->startup_params->items[i];
        if (strcmp(kv->key, "database") != 0 && strcmp(kv->key, "replication") != 0)
            rc = sl_session_set_param(c->session, kv->key, kv->value, &err);
    }
    if (rc != 0) {
        sl__conn_fatal(c, &err);
        sl_error_reset(&err);
        return 0;
    }
    sl_session_on_param(c->session, sl__on_param, c);
    return 1;
}

/* AuthenticationOk, the parameters, BackendKeyData, ReadyForQuery. */
static void sl__welcome(sl_conn *c)
{
    size_t start = sl_pgout_begin(&c->out, 'R');
    sl_pgout_int32(&c->out, 0);
    sl_pgout_end(&c->out, start);
    /* the session's values (the startup packet's applied); later changes
    ** arrive through sl_session_on_param */
    static const char *const reported[] = {
        "server_version", "server_encoding", "client_encoding", "DateStyle", "TimeZone",
        "integer_datetimes", "standard_conforming_strings", "application_name", "is_superuser",
        "session_authorization", "IntervalStyle", "default_transaction_read_only",
        "in_hot_standby"};
    for (size_t i = 0; i < SL_ARRAY_LEN(reported); i++)
        sl__param_status(c, reported[i], sl_session_param(c->session, reported[i]));
    start = sl_pgout_begin(&c->out, 'K');
    sl_pgout_int32(&c->out, c->pid);
    sl_pgout_int32(&c->out, c->secret);
    sl_pgout_end(&c->out, start);
    sl_conn_ready(c);
}

/* ------------------------------------------------------------------------
** The message loop
*/

/* Whether in[] holds a whole message after in_off (the loop then answers
** it before writing: a pipelined batch goes out in one write). */
static bool sl__conn_has_message(const sl_conn *c)
{
    size_t have = c->in_len - c->in_off;
    if (have < 5)
        return false;
    uint32_t len;
    memcpy(&len, c->in + c->in_off + 1, 4);
    len = ntohl(len);
    return have >= 1 + (size_t)len;
}

static void sl__conn_loop(sl_conn *c)
{
    while (!c->closed) {
        if ((!sl__conn_has_message(c) || c->out.len >= SL__CONN_FLUSH_AT) &&
            sl_conn_flush(c) != 0)
            return;
        sl_pgmsg m;
        if (sl_conn_read_message(c, &m) <= 0)
            return;
        /* A stopping server cancels every statement, new ones included. */
        c->cancel = c->srv->stopping;
        switch (m.type) {
        case 'Q': {
            const char *sql = sl_pgmsg_string(&m);
            if (!sl_pgmsg_done(&m)) {
                sl__conn_protocol_error(c, "invalid Query message");
                return;
            }
            sl_query_simple(c, sql, strlen(sql));
            sl_conn_ready(c);
            break;
        }
        case 'P': /* extended query (extended.c) */
        case 'B':
        case 'D':
        case 'E':
        case 'C':
        case 'H':
        case 'S': sl_ext_message(c, &m); break;
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
    if (c->too_many)
        srv->nrefused--;
    pthread_mutex_unlock(&srv->mu);
    sl_conn_flusher_free(c);
    sl_ext_free(c); /* its cursors before the session */
    if (c->session)
        sl_session_free(c->session);
    sl_tls_free(c);
    if (c->fd >= 0)
        close(c->fd);
    sl_free(c->in);
    sl_strbuf_free(&c->out);
    sl_free(c->user);
    sl_free(c->database);
    sl_free(c->application_name);
    sl_kvlist_free(c->startup_params);
    sl_free(c);
}

/* The receive timeout of the socket (0: none). */
static void sl__recv_timeout(sl_conn *c, int seconds)
{
    struct timeval tv = {seconds, 0};
    if (c->fd >= 0)
        setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

void *sl_conn_main(void *arg)
{
    sl_conn *c = arg;
    if (!c->io_read) {
        c->io_read = sl__plain_read;
        c->io_write = sl__plain_write;
    }
    if (!c->started)
        c->started = sl_monotonic_nanos();
    sl__recv_timeout(c, c->srv->cfg.auth_timeout);
    if (sl__startup(c) == 1 && sl__authenticate(c) == 1) {
        sl__recv_timeout(c, 0);
        sl_log(SL_LOG_INFO, "connection from %s: user=%s database=%s application_name=%s%s",
               c->peer, c->user, c->database, c->application_name, c->tls ? " (TLS)" : "");
        if (sl__session_start(c) == 1) {
            sl__welcome(c);
            sl__conn_loop(c);
        }
        int64_t ms = (sl_monotonic_nanos() - c->started) / 1000000;
        sl_log(SL_LOG_INFO, "disconnection of %s: user=%s database=%s session time: "
               "%d:%02d:%02d.%03d", c->peer, c->user, c->database, (int)(ms / 3600000),
               (int)(ms / 60000 % 60), (int)(ms / 1000 % 60), (int)(ms % 1000));
    }
    sl__conn_free(c);
    return NULL;
}
