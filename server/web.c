/*
** web.c — the HTTP side of `sluice serve`: the web page of jobs (/), the
** JSON it polls (/api/jobs) and Prometheus' /metrics, on a port of their
** own (--http-listen, 127.0.0.1:8081 by default, as Flink's web UI).
**
** A deliberately small HTTP/1.1 server (RFC 9112): GET and HEAD only, no
** request body, every response with Content-Length and Connection: close.
** The bytes come from anyone who can reach the port, so the request is
** read under bounds and a deadline before anything looks at it:
**
**   the head (request line + header fields) over 8 KiB   431
**   a request target over 2 KiB                          414
**   a body announced (Content-Length > 0, Transfer-Encoding)  413
**   no complete head within 5 s                          408
**   any other method                                     405 (Allow: GET, HEAD)
**   not HTTP/1.x                                         505
**   a malformed request line or field, a NUL, a control byte, a target
**   neither a path nor http://authority/path,
**   folded lines, HTTP/1.1 without exactly one Host      400
**   any other path                                       404
**
** Threads: the main loop of serve.c polls the listening socket with the
** PostgreSQL one and calls sl_web_accept; each connection is answered on a
** short-lived detached thread (at most SL_WEB_MAX_CONNS at once; past that,
** a 503 and the close). The figures come from webjobs.c, which samples SHOW
** JOBS through the planner API on the main loop's tick (sl_web_tick) and
** afresh for each /api/jobs and /metrics request.
**
** Main routines: sl_web_start, sl_web_accept, sl_web_tick, sl_web_stop.
*/
#include "server_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SL_WEB_MAX_CONNS 32           /* connections answered at once */
#define SL_WEB_DEADLINE_MS 5000       /* to receive the head, and to send the answer */
#define SL_WEB_TICK_NANOS (1000 * SL_NANOS_PER_MILLI) /* the sampler's period */

typedef struct sl_web {
    int fd;                           /* listening socket, -1 once stopped */
    sl_webjobs *jobs;                 /* what the page shows (webjobs.c) */
    int64_t last_tick;                /* sl_monotonic_nanos of the last sample */
    pthread_mutex_t mu;               /* guards the fields below */
    pthread_cond_t idle;              /* signalled when a connection ends */
    int nconns;                       /* connections being answered */
    int conn_fds[SL_WEB_MAX_CONNS];   /* their sockets (-1: free slot), shut down at the stop */
} sl_web;

typedef struct sl__web_conn {
    sl_web *web;
    int fd;
    int slot;                         /* index in web->conn_fds */
} sl__web_conn;

static const char *sl__http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Internal Server Error";
    }
}

/* RFC 9110 tchar: the bytes of a method or a field name. */
static bool sl__tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool sl__ieq(const char *a, size_t n, const char *b)
{
    return strlen(b) == n && strncasecmp(a, b, n) == 0;
}

/* The request line "METHOD SP target SP HTTP/x.y". 0, or the status. */
static int sl__parse_request_line(const char *l, size_t n, sl_http_req *r, bool *http11)
{
    const char *sp1 = memchr(l, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - l)) : NULL;
    if (!sp1 || !sp2 || sp1 == l || sp2 == sp1 + 1) {
        r->why = "malformed request line";
        return 400;
    }
    const char *target = sp1 + 1, *version = sp2 + 1;
    size_t mlen = (size_t)(sp1 - l), tlen = (size_t)(sp2 - target);
    size_t vlen = n - (size_t)(version - l);
    for (size_t i = 0; i < mlen; i++)
        if (!sl__tchar((unsigned char)l[i])) {
            r->why = "malformed method";
            return 400;
        }
    if (vlen == 8 && memcmp(version, "HTTP/1.", 7) == 0 &&
        (version[7] == '0' || version[7] == '1')) {
        *http11 = version[7] == '1';
    } else if (vlen == 8 && memcmp(version, "HTTP/", 5) == 0 && version[5] >= '0' &&
               version[5] <= '9' && version[6] == '.' && version[7] >= '0' && version[7] <= '9') {
        r->why = "only HTTP/1.0 and HTTP/1.1 are served";
        return 505;
    } else {
        r->why = "malformed HTTP version";
        return 400;
    }
    if (tlen > SL_WEB_MAX_TARGET) {
        r->why = "the request target is longer than 2048 bytes";
        return 414;
    }
    for (size_t i = 0; i < tlen; i++)
        if ((unsigned char)target[i] <= 0x20 || (unsigned char)target[i] >= 0x7f) {
            r->why = "malformed request target";
            return 400;
        }
    if (tlen > 7 && strncasecmp(target, "http://", 7) == 0) { /* absolute-form: its path */
        size_t a = 7; /* the authority ends at the path, the query or the fragment */
        while (a < tlen && target[a] != '/' && target[a] != '?' && target[a] != '#')
            a++;
        bool path = a < tlen && target[a] == '/';
        target = path ? target + a : "/";
        tlen = path ? tlen - a : 1;
    }
    if (target[0] != '/') {
        r->why = "the request target must be a path";
        return 400;
    }
    size_t plen = 0;
    while (plen < tlen && target[plen] != '?' && target[plen] != '#')
        plen++;
    memcpy(r->path, target, plen);
    r->path[plen] = '\0';
    if (mlen == 3 && memcmp(l, "GET", 3) == 0) /* methods are case-sensitive */
        r->head = false;
    else if (mlen == 4 && memcmp(l, "HEAD", 4) == 0)
        r->head = true;
    else {
        r->why = "only GET and HEAD are served";
        return 405;
    }
    return 0;
}

/* One header field line "name: value". 0, or the status. */
static int sl__parse_field(const char *l, size_t n, sl_http_req *r, int *nhost)
{
    if (l[0] == ' ' || l[0] == '\t') {
        r->why = "folded header field";
        return 400;
    }
    const char *colon = memchr(l, ':', n);
    if (!colon || colon == l) {
        r->why = "malformed header field";
        return 400;
    }
    size_t nlen = (size_t)(colon - l);
    for (size_t i = 0; i < nlen; i++)
        if (!sl__tchar((unsigned char)l[i])) {
            r->why = "malformed header field name";
            return 400;
        }
    const char *v = colon + 1, *end = l + n;
    for (const char *p = v; p < end; p++)
        if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
            r->why = "control character in a header field";
            return 400;
        }
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t vl = (size_t)(end - v);
    if (sl__ieq(l, nlen, "host"))
        (*nhost)++;
    else if (sl__ieq(l, nlen, "transfer-encoding")) {
        r->why = "a request body is not accepted";
        return 413;
    } else if (sl__ieq(l, nlen, "content-length")) {
        if (vl == 0 || vl > 19 || strspn(v, "0123456789") < vl) {
            r->why = "malformed Content-Length";
            return 400;
        }
        if (strspn(v, "0") < vl) {
            r->why = "a request body is not accepted";
            return 413;
        }
    }
    return 0;
}

int sl_http_parse(const char *buf, size_t len, sl_http_req *r)
{
    if (memchr(buf, '\0', len)) {
        r->why = "NUL byte in the request";
        return 400;
    }
    size_t off = 0;
    while (off < len && (buf[off] == '\r' || buf[off] == '\n')) /* RFC 9112 2.2 */
        off++;
    bool first = true, http11 = false;
    int nhost = 0;
    while (off < len) {
        const char *nl = memchr(buf + off, '\n', len - off);
        if (!nl)
            break;
        size_t n = (size_t)(nl - (buf + off));
        if (n > 0 && buf[off + n - 1] == '\r')
            n--;
        if (memchr(buf + off, '\r', n)) {
            r->why = "bare CR in the request";
            return 400;
        }
        if (n == 0)
            break; /* the blank line: the end of the head */
        int st = first ? sl__parse_request_line(buf + off, n, r, &http11)
                       : sl__parse_field(buf + off, n, r, &nhost);
        if (st != 0)
            return st;
        first = false;
        off = (size_t)(nl - buf) + 1;
    }
    if (first) {
        r->why = "no request line";
        return 400;
    }
    if (http11 ? nhost != 1 : nhost > 1) {
        r->why = "HTTP/1.1 needs exactly one Host header field";
        return 400;
    }
    return 0;
}

size_t sl_http_head_end(const char *buf, size_t len)
{
    size_t start = 0;
    while (start < len && (buf[start] == '\r' || buf[start] == '\n'))
        start++;
    for (size_t i = start; i < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* Milliseconds left until deadline (monotonic nanos), at least 0. */
static int sl__ms_left(int64_t deadline)
{
    int64_t left = (deadline - sl_monotonic_nanos()) / SL_NANOS_PER_MILLI;
    return left < 0 ? 0 : (int)left;
}

static void sl__send_all(int fd, const char *p, size_t n, int64_t deadline)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return;
        struct pollfd pf = {fd, POLLOUT, 0};
        int ms = sl__ms_left(deadline);
        if (ms == 0 || poll(&pf, 1, ms) <= 0)
            return;
    }
}

static void sl__respond(int fd, int status, const char *type, const char *body, bool head,
                        int64_t deadline)
{
    size_t blen = strlen(body);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_strbuf_appendf(&out,
                      "HTTP/1.1 %d %s\r\n"
                      "Content-Type: %s\r\n"
                      "Content-Length: %zu\r\n"
                      "Cache-Control: no-store\r\n"
                      "X-Content-Type-Options: nosniff\r\n"
                      "%s"
                      "Connection: close\r\n\r\n",
                      status, sl__http_reason(status), type, blen,
                      status == 405 ? "Allow: GET, HEAD\r\n" : "");
    if (!head)
        sl_strbuf_append_n(&out, body, blen);
    sl__send_all(fd, out.buf, out.len, deadline);
    sl_strbuf_free(&out);
}

/* The answer to a well-formed request. */
static void sl__route(sl_web *web, int fd, const sl_http_req *r, int64_t deadline)
{
    if (strcmp(r->path, "/") == 0 || strcmp(r->path, "/index.html") == 0) {
        sl__respond(fd, 200, "text/html; charset=utf-8", sl_web_page, r->head, deadline);
    } else if (strcmp(r->path, "/api/jobs") == 0) {
        char *json = sl_webjobs_json(web->jobs);
        sl__respond(fd, 200, "application/json", json, r->head, deadline);
        sl_free(json);
    } else if (strcmp(r->path, "/metrics") == 0) {
        char *text = sl_webjobs_metrics(web->jobs);
        sl__respond(fd, 200, "text/plain; version=0.0.4; charset=utf-8", text, r->head,
                    deadline);
        sl_free(text);
    } else {
        sl__respond(fd, 404, "text/plain; charset=utf-8",
                    "404 Not Found: this server has /, /api/jobs and /metrics\n", r->head,
                    deadline);
    }
}

/* Read the head (bounded, before the deadline), answer, close. */
static void sl__serve_one(sl_web *web, int fd)
{
    int64_t deadline = sl_monotonic_nanos() + SL_WEB_DEADLINE_MS * SL_NANOS_PER_MILLI;
    char buf[SL_WEB_MAX_HEAD + 1];
    size_t len = 0, end = 0;
    int status = 0;
    sl_http_req r;
    memset(&r, 0, sizeof r);
    while (!(end = sl_http_head_end(buf, len))) {
        if (len >= SL_WEB_MAX_HEAD) {
            status = 431;
            r.why = "the request head is longer than 8192 bytes";
            break;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        int ms = sl__ms_left(deadline);
        if (ms == 0 || poll(&pf, 1, ms) == 0) {
            status = 408;
            r.why = "no complete request within 5 s";
            break;
        }
        ssize_t n = recv(fd, buf + len, SL_WEB_MAX_HEAD - len, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (n <= 0) {
            if (len == 0 || n < 0)
                return; /* gone before asking anything */
            status = 400;
            r.why = "the request ended before its blank line";
            break;
        }
        len += (size_t)n;
    }
    if (status == 0)
        status = sl_http_parse(buf, end, &r);
    /* A refused request's answer needs a deadline of its own: the read may
    ** have used it all (408). */
    if (status != 0) {
        char *body = sl_sprintf("%d %s: %s\n", status, sl__http_reason(status),
                                r.why ? r.why : "");
        sl__respond(fd, status, "text/plain; charset=utf-8", body, false,
                    sl_monotonic_nanos() + SL_WEB_DEADLINE_MS * SL_NANOS_PER_MILLI);
        sl_free(body);
    } else {
        sl__route(web, fd, &r, deadline);
    }
    /* Closing with unread bytes would reset the connection and could lose
    ** the answer: end our side, then drain what the client still sends
    ** (bounded: 64 KiB, 1 s). */
    shutdown(fd, SHUT_WR);
    int64_t drain_end = sl_monotonic_nanos() + 1000 * SL_NANOS_PER_MILLI;
    for (size_t drained = 0; drained < (64u << 10);) {
        struct pollfd pf = {fd, POLLIN, 0};
        int ms = sl__ms_left(drain_end);
        if (ms == 0 || poll(&pf, 1, ms) <= 0)
            break;
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
            break;
        drained += n > 0 ? (size_t)n : 0;
    }
}

static void *sl__web_conn_main(void *arg)
{
    sl__web_conn *c = arg;
    sl_web *web = c->web;
    sl__serve_one(web, c->fd);
    pthread_mutex_lock(&web->mu);
    web->conn_fds[c->slot] = -1;
    web->nconns--;
    close(c->fd);
    pthread_cond_broadcast(&web->idle);
    pthread_mutex_unlock(&web->mu);
    sl_free(c);
    return NULL;
}

int sl_web_start(sl_server *srv, bool explicit)
{
    const sl_server_config *cfg = &srv->cfg;
    if (cfg->http_port == 0)
        return 0;
    int fd = sl_serve_listen(cfg->http_host, cfg->http_port, !explicit);
    if (fd < 0) {
        if (explicit)
            return -1;
        sl_log(SL_LOG_WARN, "the web page of jobs is off: could not listen on %s:%d "
               "(--http-listen chooses another address)", cfg->http_host, cfg->http_port);
        return 0;
    }
    sl_web *web = sl_calloc(1, sizeof *web);
    web->fd = fd;
    web->jobs = sl_webjobs_new(srv->eng);
    pthread_mutex_init(&web->mu, NULL);
    pthread_cond_init(&web->idle, NULL);
    for (int i = 0; i < SL_WEB_MAX_CONNS; i++)
        web->conn_fds[i] = -1;
    srv->web = web;
    return 0;
}

int sl_web_fd(const sl_server *srv)
{
    return srv->web ? srv->web->fd : -1;
}

void sl_web_accept(sl_server *srv)
{
    sl_web *web = srv->web;
    int fd = accept4(web->fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    pthread_mutex_lock(&web->mu);
    int slot = -1;
    for (int i = 0; i < SL_WEB_MAX_CONNS && slot < 0; i++)
        if (web->conn_fds[i] < 0)
            slot = i;
    if (slot >= 0) {
        web->conn_fds[slot] = fd;
        web->nconns++;
    }
    pthread_mutex_unlock(&web->mu);
    if (slot < 0) { /* busy: say so without waiting for the client */
        static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                   "Retry-After: 1\r\nConnection: close\r\n\r\n";
        ssize_t w = send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)w;
        close(fd);
        return;
    }
    sl__web_conn *c = sl_calloc(1, sizeof *c);
    c->web = web;
    c->fd = fd;
    c->slot = slot;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1u << 20);
    pthread_t t;
    if (pthread_create(&t, &attr, sl__web_conn_main, c) != 0) {
        pthread_mutex_lock(&web->mu);
        web->conn_fds[slot] = -1;
        web->nconns--;
        pthread_mutex_unlock(&web->mu);
        close(fd);
        sl_free(c);
    }
    pthread_attr_destroy(&attr);
}

void sl_web_tick(sl_server *srv)
{
    sl_web *web = srv->web;
    if (!web)
        return;
    int64_t now = sl_monotonic_nanos();
    if (now - web->last_tick < SL_WEB_TICK_NANOS)
        return;
    web->last_tick = now;
    sl_webjobs_sample(web->jobs);
}

void sl_web_stop(sl_server *srv)
{
    sl_web *web = srv->web;
    if (!web)
        return;
    close(web->fd);
    web->fd = -1;
    pthread_mutex_lock(&web->mu);
    for (int i = 0; i < SL_WEB_MAX_CONNS; i++)
        if (web->conn_fds[i] >= 0)
            shutdown(web->conn_fds[i], SHUT_RDWR);
    while (web->nconns > 0)
        pthread_cond_wait(&web->idle, &web->mu);
    pthread_mutex_unlock(&web->mu);
    pthread_cond_destroy(&web->idle);
    pthread_mutex_destroy(&web->mu);
    sl_webjobs_free(web->jobs);
    sl_free(web);
    srv->web = NULL;
}
