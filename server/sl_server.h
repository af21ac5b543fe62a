/*
** sl_server.h — `sluice serve`: the PostgreSQL wire protocol (v3) front end.
**
** The shell's main calls sl_serve_main for `sluice serve ...`. The server
** opens one engine for its data directory (holding its lock), listens on
** loopback by default (SL_SERVE_DEFAULT_PORT, next to PostgreSQL's 5432 but
** not on it), and runs each connection on a thread of its own with an
** sl_session of its own. See docs/SERVER.md.
*/
#ifndef SL_SERVER_H
#define SL_SERVER_H

#include <stdbool.h>

#define SL_SERVE_DEFAULT_PORT 5434
#define SL_SERVE_DEFAULT_HOST "127.0.0.1"
#define SL_SERVE_MAX_CONNECTIONS 500
#define SL_SERVE_AUTH_TIMEOUT 60 /* seconds, PostgreSQL's authentication_timeout */
#define SL_SERVE_HTTP_PORT 8081  /* the web page of jobs: Flink's web UI port (rest.port) */

typedef struct sl_server_config {
    const char *data_dir;    /* --data-dir */
    const char *host;        /* --listen HOST (default loopback) */
    int port;                /* --listen :PORT */
    int max_connections;     /* --max-connections */
    const char *tls_cert;    /* --tls-cert FILE (PEM), or NULL: SSLRequest is answered 'N' */
    const char *tls_key;     /* --tls-key FILE (PEM) */
    bool auth_scram;         /* --auth scram: every connection authenticates (users file) */
    int auth_timeout;        /* --authentication-timeout SECONDS: startup + auth must finish */
    const char *http_host;   /* --http-listen HOST: the web page and /metrics (default loopback) */
    int http_port;           /* --http-listen :PORT; 0: off (--http-listen off) */
} sl_server_config;

/* `sluice serve [OPTION]...`: argv[0] is "serve". Returns the exit status. */
int sl_serve_main(int argc, char **argv);
/* `sluice user add|list|remove ...`: argv[0] is "user". Returns the exit
** status. */
int sl_user_main(int argc, char **argv);

/* attach.c — <data-dir>/SLUICE.server: where the server holding the
** directory listens, so that a shell finding the directory locked attaches
** to it. write: once listening (atomic); remove: at the stop; read: 0 with
** host (caller frees; a wildcard address becomes loopback) and port while
** the live process holding the directory's lock wrote it, else -1. */
typedef struct sl_error sl_error;
int sl_server_addr_write(const char *data_dir, const char *host, int port, sl_error *err);
void sl_server_addr_remove(const char *data_dir);
int sl_server_addr_read(const char *data_dir, char **host, int *port);

#endif /* SL_SERVER_H */
