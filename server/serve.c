/*
** serve.c — the `sluice serve` process: arguments, the engine of the data
** directory, the listening socket, one thread per connection, and the stop.
**
**   sluice serve [--data-dir DIR] [--listen [HOST][:PORT]] [--max-connections N]
**                [--auth trust|scram] [--tls-cert FILE --tls-key FILE]
**                [--authentication-timeout SECONDS] [--http-listen [HOST][:PORT]|off]
**
** Listening on anything but loopback requires --auth scram (exit 2 with a
** message that says how otherwise). Over --max-connections, a client gets
** FATAL 53300 after its startup packet, not a silent close.
**
** SIGTERM / SIGINT: no new connection is accepted, running statements are
** cancelled, every background job stops with a savepoint
** (sl_engine_stop_jobs), the connections are closed, the engine is closed,
** and the process exits 0. At start, the jobs its last run left (stopped
** so, or running when it died) resume (sl_engine_resume_jobs).
**
** Main routines: sl_serve_main.
*/
#include "server_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <openssl/rand.h>
#include <unistd.h>

static volatile sig_atomic_t g_serve_stop;

static void sl__on_stop(int sig)
{
    (void)sig;
    g_serve_stop = 1;
}

static void sl__serve_usage(FILE *f)
{
    fputs("Usage: sluice serve [OPTION]...\n"
          "Serve the data directory to PostgreSQL clients (psql, JDBC, psycopg, ...).\n"
          "\n"
          "  -D, --data-dir=DIR          data directory (default: $SLUICE_DATA, else ./sluice-data)\n"
          "  -l, --listen=[HOST][:PORT]  address to listen on (default 127.0.0.1:5434)\n"
          "      --max-connections=N     connections served at once (default 500)\n"
          "      --auth=METHOD           trust (default; loopback only) or scram: clients log in\n"
          "                              with SCRAM-SHA-256 as users made by `sluice user add`\n"
          "      --tls-cert=FILE         PEM certificate (chain): SSLRequest is answered with TLS\n"
          "      --tls-key=FILE          PEM private key of --tls-cert\n"
          "      --authentication-timeout=SECONDS\n"
          "                              startup and authentication must end within (default 60)\n"
          "      --http-listen=[HOST][:PORT]|off\n"
          "                              the web page of jobs and /metrics (default 127.0.0.1:8081;\n"
          "                              when that default is taken, the page is off)\n"
          "      --help                  show this help and exit\n"
          "\n"
          "The default port 5434 sits next to PostgreSQL's 5432 without taking it.\n"
          "Listening on an address other than loopback requires --auth scram.\n"
          "SIGTERM or Ctrl-C stops the server: its jobs stop with savepoints, and resume\n"
          "by themselves when it starts again.\n",
          f);
}

/* "HOST", ":PORT", "HOST:PORT", "[v6]:PORT" into *hostp (pointing into
** host, which outlives the parse) and *portp (left alone when absent). */
static int sl__parse_addr(const char *arg, char *host, size_t hostsize, const char **hostp,
                          int *portp)
{
    const char *colon = NULL;
    if (arg[0] == '[') {
        const char *close = strchr(arg, ']');
        if (!close || (size_t)(close - arg - 1) >= hostsize)
            return -1;
        memcpy(host, arg + 1, (size_t)(close - arg - 1));
        host[close - arg - 1] = '\0';
        colon = close[1] == ':' ? close + 1 : NULL;
        if (close[1] && !colon)
            return -1;
    } else {
        colon = strrchr(arg, ':');
        size_t hl = colon ? (size_t)(colon - arg) : strlen(arg);
        if (hl >= hostsize)
            return -1;
        memcpy(host, arg, hl);
        host[hl] = '\0';
    }
    if (host[0])
        *hostp = host;
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (*end || p < 1 || p > 65535)
            return -1;
        *portp = (int)p;
    }
    return 0;
}

static int sl__parse_listen(const char *arg, sl_server_config *cfg)
{
    static char host[256];
    return sl__parse_addr(arg, host, sizeof host, &cfg->host, &cfg->port);
}

/* --http-listen: an address as --listen's, or "off". */
static int sl__parse_http_listen(const char *arg, sl_server_config *cfg)
{
    static char host[256];
    if (strcmp(arg, "off") == 0) {
        cfg->http_port = 0;
        return 0;
    }
    if (cfg->http_port == 0)
        cfg->http_port = SL_SERVE_HTTP_PORT;
    return sl__parse_addr(arg, host, sizeof host, &cfg->http_host, &cfg->http_port);
}

/* Whether host names only loopback: 127.0.0.0/8, ::1, localhost. */
static bool sl__is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (strcmp(host, "localhost") == 0)
        return true;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6);
    return false;
}

/* Listening socket for host:port, or -1 after printing why (quiet: not). */
int sl_serve_listen(const char *host, int port_no, bool quiet)
{
    char port[16];
    snprintf(port, sizeof port, "%d", port_no);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        if (!quiet)
            fprintf(stderr, "sluice serve: could not resolve \"%s\": %s\n", host,
                    gai_strerror(rc));
        return -1;
    }
    int fd = -1, saved = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 256) != 0) {
            saved = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0 && !quiet)
        fprintf(stderr, "sluice serve: could not listen on %s:%d: %s\n", host, port_no,
                strerror(saved));
    return fd;
}

/* The engine's log: background jobs' notices, warnings and failures. */
static void sl__job_log(void *ctx, const sl_error *msg)
{
    (void)ctx;
    bool error = msg->severity == SL_SEV_ERROR;
    sl_log(error                               ? SL_LOG_ERROR
           : msg->severity == SL_SEV_WARNING ? SL_LOG_WARN
                                             : SL_LOG_INFO,
           "%s%s%s%s%s%s", msg->message ? msg->message : "", msg->detail ? ": " : "",
           msg->detail ? msg->detail : "", error ? " (SQLSTATE " : "", error ? msg->sqlstate : "",
           error ? ")" : "");
}

static void sl__accept_one(sl_server *srv, int lfd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sl_conn *c = sl_calloc(1, sizeof *c);
    sl_conn_flusher_init(c);
    c->srv = srv;
    c->fd = fd;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        port = ntohs(a->sin6_port);
    }
    snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
    c->started = sl_monotonic_nanos();
    if (RAND_bytes((unsigned char *)&c->secret, sizeof c->secret) != 1)
        c->secret = (int32_t)(sl_now_nanos() ^ ((int64_t)rand() << 16));
    /* Over the limit, the connection's thread reads the startup packet and
    ** answers FATAL 53300; past a bound of those, the socket just closes. */
    pthread_mutex_lock(&srv->mu);
    bool full = srv->nconns - srv->nrefused >= srv->cfg.max_connections;
    bool drop = full && srv->nrefused >= 64;
    if (!drop) {
        srv->nconns++;
        srv->nrefused += full;
        c->too_many = full;
        c->pid = (int32_t)++srv->next_pid;
        sl_list_push(srv->conns, c);
    }
    pthread_mutex_unlock(&srv->mu);
    if (full)
        sl_log(SL_LOG_WARN, "refused connection from %s: too many connections (%d)", c->peer,
               srv->cfg.max_connections);
    if (drop) {
        close(fd);
        sl_conn_flusher_free(c);
        sl_free(c);
        return;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 8u << 20);
    pthread_t t;
    if (pthread_create(&t, &attr, sl_conn_main, c) != 0) {
        pthread_mutex_lock(&srv->mu);
        srv->nconns--;
        srv->nrefused -= c->too_many;
        srv->conns->n--;
        pthread_mutex_unlock(&srv->mu);
        close(fd);
        sl_conn_flusher_free(c);
        sl_free(c);
    }
    pthread_attr_destroy(&attr);
}

/* A client that went away (its side of the socket closed: POLLRDHUP, as
** PostgreSQL's client_connection_check_interval) has its running statement
** cancelled: a 'table.dml-sync' INSERT stops with a savepoint rather than
** run for nobody. An idle connection reads the end itself. */
static void sl__cancel_hangups(sl_server *srv)
{
    pthread_mutex_lock(&srv->mu);
    for (int i = 0; i < sl_list_len(srv->conns); i++) {
        sl_conn *c = sl_list_get(srv->conns, i);
        struct pollfd p = {c->fd, POLLRDHUP, 0};
        if (!c->cancel && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
            c->cancel = 1;
    }
    pthread_mutex_unlock(&srv->mu);
}

/* Stop: cancel every statement, stop the jobs with savepoints, close the
** connections and wait for their threads. */
static void sl__serve_stop(sl_server *srv)
{
    srv->stopping = 1;
    pthread_mutex_lock(&srv->mu);
    for (int i = 0; i < sl_list_len(srv->conns); i++)
        ((sl_conn *)sl_list_get(srv->conns, i))->cancel = 1;
    pthread_mutex_unlock(&srv->mu);
    sl_log(SL_LOG_INFO, "stopping: jobs stop with savepoints");
    sl_engine_stop_jobs(srv->eng);
    sl_web_stop(srv);
    for (;;) {
        pthread_mutex_lock(&srv->mu);
        int n = srv->nconns;
        for (int i = 0; i < sl_list_len(srv->conns); i++)
            shutdown(((sl_conn *)sl_list_get(srv->conns, i))->fd, SHUT_RDWR);
        pthread_mutex_unlock(&srv->mu);
        if (n == 0)
            break;
        usleep(10000);
    }
}

int sl_serve_main(int argc, char **argv)
{
    /* A server's log: connections and job events (info) with their time. */
    sl_log_configure(SL_LOG_INFO, true);
    sl_server_config cfg = {NULL, SL_SERVE_DEFAULT_HOST, SL_SERVE_DEFAULT_PORT,
                            SL_SERVE_MAX_CONNECTIONS, NULL, NULL, false, SL_SERVE_AUTH_TIMEOUT,
                            SL_SERVE_DEFAULT_HOST, SL_SERVE_HTTP_PORT};
    bool http_explicit = false;
    enum { OPT_MAXCONN = 256, OPT_HELP, OPT_AUTH, OPT_CERT, OPT_KEY, OPT_AUTH_TIMEOUT, OPT_HTTP };
    static const struct option longopts[] = {
        {"data-dir", required_argument, NULL, 'D'},
        {"listen", required_argument, NULL, 'l'},
        {"max-connections", required_argument, NULL, OPT_MAXCONN},
        {"auth", required_argument, NULL, OPT_AUTH},
        {"tls-cert", required_argument, NULL, OPT_CERT},
        {"tls-key", required_argument, NULL, OPT_KEY},
        {"authentication-timeout", required_argument, NULL, OPT_AUTH_TIMEOUT},
        {"http-listen", required_argument, NULL, OPT_HTTP},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "D:d:l:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'D':
        case 'd': cfg.data_dir = optarg; break;
        case 'l':
            if (sl__parse_listen(optarg, &cfg) != 0) {
                fprintf(stderr, "sluice serve: invalid --listen \"%s\" (expected HOST:PORT)\n",
                        optarg);
                return 2;
            }
            break;
        case OPT_MAXCONN: cfg.max_connections = atoi(optarg); break;
        case OPT_AUTH:
            if (strcmp(optarg, "scram") != 0 && strcmp(optarg, "trust") != 0) {
                fprintf(stderr, "sluice serve: invalid --auth \"%s\" (expected trust or scram)\n",
                        optarg);
                return 2;
            }
            cfg.auth_scram = strcmp(optarg, "scram") == 0;
            break;
        case OPT_CERT: cfg.tls_cert = optarg; break;
        case OPT_KEY: cfg.tls_key = optarg; break;
        case OPT_AUTH_TIMEOUT:
            cfg.auth_timeout = atoi(optarg);
            if (cfg.auth_timeout < 1 || cfg.auth_timeout > 600) {
                fprintf(stderr, "sluice serve: invalid --authentication-timeout \"%s\" "
                        "(1 to 600 seconds)\n", optarg);
                return 2;
            }
            break;
        case OPT_HTTP:
            if (sl__parse_http_listen(optarg, &cfg) != 0) {
                fprintf(stderr, "sluice serve: invalid --http-listen \"%s\" "
                        "(expected HOST:PORT or off)\n", optarg);
                return 2;
            }
            http_explicit = true;
            break;
        case OPT_HELP: sl__serve_usage(stdout); return 0;
        default: fputs("Try 'sluice serve --help' for more information.\n", stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sluice serve: unexpected argument \"%s\"\n", argv[optind]);
        return 2;
    }
    if (cfg.max_connections < 1)
        cfg.max_connections = 1;
    if (!cfg.auth_scram && !sl__is_loopback(cfg.host)) {
        fprintf(stderr,
                "sluice serve: refusing to listen on %s without authentication: clients "
                "there would be trusted\n"
                "Create a user with `sluice user add NAME` and start with --auth scram "
                "(and --tls-cert/--tls-key for TLS).\n",
                cfg.host);
        return 2;
    }
    if (!cfg.tls_cert != !cfg.tls_key) {
        fputs("sluice serve: --tls-cert and --tls-key go together\n", stderr);
        return 2;
    }
    if (!cfg.data_dir || !*cfg.data_dir) {
        const char *env = getenv("SLUICE_DATA");
        cfg.data_dir = env && *env ? env : "./sluice-data";
    }

    sl_server srv = {0};
    srv.cfg = cfg;
    srv.auth_fail_delay = 1000 * 1000000LL;
    sl_error err = SL_ERROR_INIT;
    if (RAND_bytes(srv.mock_secret, sizeof srv.mock_secret) != 1) {
        fputs("sluice serve: could not generate random bytes\n", stderr);
        return 2;
    }
    if (cfg.tls_cert && sl_tls_init(&srv, &err) != 0) {
        fprintf(stderr, "sluice serve: %s\n", err.message);
        sl_error_reset(&err);
        return 2;
    }
    if (sl_engine_open(cfg.data_dir, &srv.eng, &err) != 0) {
        sl_tls_done(&srv);
        fprintf(stderr, "sluice serve: %s\n", err.message);
        sl_error_reset(&err);
        return 2;
    }
    if (cfg.auth_scram) {
        char *users = sl_path_join(cfg.data_dir, "users");
        if (!sl_fs_exists(users))
            sl_log(SL_LOG_WARN, "--auth scram without users: nobody can log in until "
                   "`sluice user add NAME -D %s`", cfg.data_dir);
        sl_free(users);
    }
    int lfd = sl_serve_listen(cfg.host, cfg.port, false);
    if (lfd >= 0 && sl_web_start(&srv, http_explicit) != 0) {
        close(lfd);
        lfd = -1;
    }
    if (lfd < 0) {
        sl_engine_close(srv.eng);
        sl_tls_done(&srv);
        return 2;
    }
    pthread_mutex_init(&srv.mu, NULL);
    srv.conns = sl_list_new();
    sl_engine_set_log(srv.eng, sl__job_log, &srv);
    /* Jobs belong to the server: those its last run left running resume. */
    sl_engine_set_resume_jobs(srv.eng, true);
    sl_engine_resume_jobs(srv.eng);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sl__on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr, "sluice serve: listening on %s:%d, data directory %s, auth %s%s\n", cfg.host,
            cfg.port, cfg.data_dir, cfg.auth_scram ? "scram" : "trust",
            srv.tls_ctx ? ", TLS on" : "");
    if (srv.web) {
        bool v6 = strchr(cfg.http_host, ':') != NULL;
        fprintf(stderr, "sluice serve: web page of jobs on http://%s%s%s:%d/ (and /metrics)\n",
                v6 ? "[" : "", cfg.http_host, v6 ? "]" : "", cfg.http_port);
        if (!sl__is_loopback(cfg.http_host))
            sl_log(SL_LOG_WARN, "the web page on %s has no authentication: whoever reaches "
                   "it sees the jobs' names and figures", cfg.http_host);
    }
    if (sl_server_addr_write(cfg.data_dir, cfg.host, cfg.port, &err) != 0) { /* for attaching shells */
        sl_log(SL_LOG_WARN, "%s", err.message);
        sl_error_reset(&err);
    }
    srand((unsigned)sl_now_nanos());
    while (!g_serve_stop) {
        struct pollfd p[2] = {{lfd, POLLIN, 0}, {sl_web_fd(&srv), POLLIN, 0}};
        int r = poll(p, p[1].fd >= 0 ? 2 : 1, 200);
        if (r > 0 && (p[0].revents & POLLIN))
            sl__accept_one(&srv, lfd);
        if (r > 0 && p[1].fd >= 0 && (p[1].revents & POLLIN))
            sl_web_accept(&srv);
        sl__cancel_hangups(&srv);
        sl_web_tick(&srv);
    }
    close(lfd);
    sl_server_addr_remove(cfg.data_dir);
    sl__serve_stop(&srv);
    sl_engine_close(srv.eng);
    sl_list_free(srv.conns, NULL);
    pthread_mutex_destroy(&srv.mu);
    sl_tls_done(&srv);
    fprintf(stderr, "sluice serve: stopped\n");
    return 0;
}
