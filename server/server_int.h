/*
** server_int.h — internal interface of `sluice serve` (not installed).
**
** The server is one more front end of the engine, as the shell is: every
** statement a client sends enters through sl_planner.h (sl_session_exec and
** its siblings), never through a second path. The pieces, one concern each:
**
**   serve.c   the process: arguments, the data directory's engine, the
**             listening sockets, one thread per connection, SIGTERM / SIGINT
**             (jobs stop with savepoints), the connection limit, logs;
**   wire.c    the v3 message codec: a bounds-checked reader over one
**             received message and a writer that frames outgoing messages
**             into the connection's output buffer;
**   conn.c    one connection: transport (plain or TLS), the startup packet,
**             SSLRequest / GSSENCRequest / CancelRequest, authentication,
**             ParameterStatus, BackendKeyData, then the message loop;
**   query.c   simple query: a message's statements run one by one through
**             sl_session_exec; results map onto RowDescription / DataRow /
**             NoticeResponse / CommandComplete, errors onto ErrorResponse;
**   types.c   Sluice types as PostgreSQL sees them: type OIDs, sizes and
**             modifiers, and each value's text (and binary) wire form.
**
** Threads: the accept loop runs on the main thread; each connection on a
** thread of its own that owns its sl_session. Background jobs belong to the
** engine; their messages go to the server's log.
*/
#ifndef SL_SERVER_INT_H
#define SL_SERVER_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/sl_base.h"
#include "../base/sl_pgtype.h"
#include "../base/sl_time.h"
#include "../base/sl_type.h"
#include "../parser/sl_parser.h"
#include "../planner/sl_planner.h"
#include "sl_server.h"

/* Protocol constants (PostgreSQL's protocol.h / pqcomm.h values). */
#define SL_PG_PROTOCOL_3_0 196608          /* (3 << 16) | 0 */
#define SL_PG_CANCEL_REQUEST 80877102      /* (1234 << 16) | 5678 */
#define SL_PG_SSL_REQUEST 80877103         /* (1234 << 16) | 5679 */
#define SL_PG_GSSENC_REQUEST 80877104      /* (1234 << 16) | 5680 */
#define SL_PG_MAX_STARTUP 10000            /* startup packet bound, as PostgreSQL's */
#define SL_PG_MAX_MESSAGE (64u << 20)      /* any other message: 64 MiB */

/* ------------------------------------------------------------------------
** wire.c — reading one message, writing messages
*/

/* A reader over one received message body (after type and length). Every
** get checks the bounds: past the end it sets bad and returns zero / "". */
typedef struct sl_pgmsg {
    char type;            /* message type byte; 0 for startup-class packets */
    const char *data;     /* body */
    size_t len;           /* body length */
    size_t off;           /* read position */
    bool bad;             /* a read ran past the end, or a string lacked its NUL */
} sl_pgmsg;

int16_t sl_pgmsg_int16(sl_pgmsg *m);
int32_t sl_pgmsg_int32(sl_pgmsg *m);
/* A NUL-terminated string inside the body (not copied). */
const char *sl_pgmsg_string(sl_pgmsg *m);
/* n raw bytes (not copied); NULL (and bad) when fewer remain. */
const char *sl_pgmsg_bytes(sl_pgmsg *m, size_t n);
/* True when the whole body was read and nothing was bad. */
bool sl_pgmsg_done(const sl_pgmsg *m);

/* The connection's output: messages are framed into buf and written by
** sl_conn_flush. */
/* Type byte + length placeholder; returns where the message starts, which
** sl_pgout_end takes to fill in the length. */
size_t sl_pgout_begin(sl_strbuf *out, char type);
void sl_pgout_end(sl_strbuf *out, size_t start);
void sl_pgout_int16(sl_strbuf *out, int16_t v);
void sl_pgout_int32(sl_strbuf *out, int32_t v);
void sl_pgout_string(sl_strbuf *out, const char *s); /* with its NUL */
void sl_pgout_bytes(sl_strbuf *out, const void *p, size_t n);

/* ------------------------------------------------------------------------
** types.c
*/

/* Type OIDs and sl_pgtype_of: base/sl_pgtype.h (one mapping, shared with the
** planner's catalog relations). */

/* Append the PostgreSQL text form of the engine's text value v[0..n) of
** type t (booleans as t/f, timestamps with zone as ISO with offset,
** BYTES as \x hex, ...). */
void sl_pgtext_append(sl_strbuf *out, sl_type t, const char *v, size_t n);

/* ------------------------------------------------------------------------
** conn.c / query.c — one connection
*/

typedef struct sl_server sl_server;
typedef struct sl_conn sl_conn;

/* The server: shared by every connection thread. */
struct sl_server {
    sl_engine *eng;                 /* the data directory's engine */
    sl_server_config cfg;           /* what serve was started with */
    pthread_mutex_t mu;             /* guards the fields below */
    sl_list *conns;                 /* sl_conn*: live connections (cancel looks here) */
    int nconns;                     /* live connections */
    uint32_t next_pid;              /* BackendKeyData process ids, one per connection */
    volatile sig_atomic_t stopping; /* SIGTERM / SIGINT: no new connections */
};

/* A connection. Its thread owns everything but the fields marked [mu]
** (the server's mutex), which a CancelRequest on another thread reads. */
struct sl_conn {
    sl_server *srv;
    int fd;                          /* the socket */
    char peer[64];                   /* "127.0.0.1:51234" for logs */
    /* transport: plain, or TLS after SSLRequest (conn.c) */
    void *tls;                       /* SSL*, or NULL */
    ssize_t (*io_read)(sl_conn *c, void *buf, size_t n);
    ssize_t (*io_write)(sl_conn *c, const void *buf, size_t n);
    /* input buffer: bytes received and not yet consumed */
    char *in;
    size_t in_len, in_cap, in_off;
    sl_strbuf out;                   /* framed messages not yet written */
    /* startup */
    char *user;                      /* startup "user" */
    char *database;                  /* startup "database" (default: user) */
    char *application_name;          /* startup / SET application_name */
    sl_kvlist *startup_params;       /* every startup parameter */
    int32_t pid;                     /* BackendKeyData process id [mu] */
    int32_t secret;                  /* BackendKeyData secret key [mu] */
    /* the session */
    sl_session *session;
    volatile sig_atomic_t cancel;    /* set by a CancelRequest: the running statement stops */
    bool closed;                     /* the peer went away or a fatal error was sent */
};

/* Reading. Fills c->in until a whole message is there; returns 1 with *m set
** to it (valid until the next read), 0 at end of input (the peer closed),
** -1 on an I/O error or an oversized / malformed length (a FATAL
** ErrorResponse was queued when the peer can still read it). */
int sl_conn_read_message(sl_conn *c, sl_pgmsg *m);
/* Startup-class packets (no type byte): length + body. */
int sl_conn_read_startup(sl_conn *c, sl_pgmsg *m);
/* Write everything in c->out. Returns 0, or -1 when the peer is gone
** (c->closed is set). */
int sl_conn_flush(sl_conn *c);

/* Queue an ErrorResponse (or a NoticeResponse when err->severity is
** WARNING / NOTICE) with the fields S, V, C, M, D, H, and P when
** err->position >= 0: P is 1-based characters of text[0..len), the
** statement text err->position (bytes) points into, and base_chars
** characters before it in the whole query string. fatal: severity FATAL. */
void sl_conn_error(sl_conn *c, const sl_error *err, const char *text, size_t len,
                   size_t base_chars, bool fatal);
/* Queue ReadyForQuery ('I'; 'T' / 'E' once BEGIN is kept). */
void sl_conn_ready(sl_conn *c);

/* The connection's thread (conn.c): startup, authentication, the message
** loop, then the session is freed and the socket closed. Takes ownership of
** c. */
void *sl_conn_main(void *c);

/* Simple query (query.c): run every statement of the query string. */
void sl_query_simple(sl_conn *c, const char *sql, size_t len);

#endif /* SL_SERVER_INT_H */
