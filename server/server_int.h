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
**   tls.c     TLS through OpenSSL after an SSLRequest answered 'S';
**   scram.c   SCRAM-SHA-256 verifiers and the SASL exchange;
**   users.c   the users file of --auth scram and `sluice user`;
**   query.c   simple query: a message's statements run one by one through
**             sl_session_exec; results map onto RowDescription / DataRow /
**             NoticeResponse / CommandComplete, errors onto ErrorResponse
**             (the row writer, sl_rowout, serves extended query too);
**   extended.c  extended query: Parse / Bind / Describe / Execute / Close /
**             Sync / Flush over prepared statements and portals, through
**             sl_session_describe, sl_session_exec_params and cursors;
**   types.c   values as PostgreSQL clients read and send them: each value's
**             PostgreSQL text and binary form, parameters' OIDs to types
**             (the OID / size / modifier of a type is base/sl_pgtype.c,
**             which the pg_catalog relations share);
**   attach.c  the data directory's SLUICE.server (host, port) that lets a
**             shell opened on a served directory attach as a client;
**   web.c     the web page of jobs on a port of its own (--http-listen): a
**             small HTTP/1.1 server (GET / HEAD, Connection: close);
**   webjobs.c what it serves: the jobs sampled through SHOW JOBS once a
**             second (a bounded history per job), as JSON and as
**             Prometheus' text format; web/page.html the page itself
**             (embedded as sl_web_page by web/embed.cmake).
**
** Threads: the accept loop runs on the main thread; each connection on a
** thread of its own that owns its sl_session. The same loop accepts HTTP
** connections (each on a short-lived thread of its own) and ticks the
** web page's sampler. Background jobs belong to the
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
#include "../base/sl_tz.h"
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

/* The Sluice type a client's type OID stands for (Parse's parameter types);
** 0 and OIDs without one give id SL_TYPE_NULL (the engine infers it). */
sl_type sl_pgtype_from_oid(int32_t oid);

/* The session's TimeZone as types.c converts timestamptz values with it:
** the engine's text of a TIMESTAMP_LTZ value is local time in it. */
typedef struct sl_pgzone {
    char *name;           /* the zone's name as the session reports it */
    sl_tz *tz;            /* opened from name; NULL: UTC */
} sl_pgzone;
/* Follow the session's TimeZone (sl_session_param; 'default' when unset,
** as 'table.local-time-zone' is). Cheap when it did not change. */
void sl_pgzone_update(sl_pgzone *z, sl_session *s);
void sl_pgzone_free(sl_pgzone *z);

/* Append the PostgreSQL text form of the engine's text value v[0..n) of
** type t: booleans t/f, BYTES as \x hex, floats as PostgreSQL prints them
** (shortest round trip, Infinity, NaN), times without trailing fraction
** zeros, timestamptz with the zone's offset, intervals as "1 day 02:03:04.5"
** and "1 year 2 mons". */
void sl_pgtext_append(sl_strbuf *out, sl_type t, const char *v, size_t n, const sl_pgzone *z);
/* Append the PostgreSQL binary form (without its length word) of the
** engine's text value v[0..n) of type t. 0, or -1 when the text does not
** read as a value of t (the engine's contract broken: an internal error). */
int sl_pgbin_append(sl_strbuf *out, sl_type t, const char *v, size_t n, const sl_pgzone *z);

/* The type a bound parameter of type OID oid is given, its value v[0..n)
** (engine text; NULL: SQL NULL) known: as sl_pgtype_from_oid, but numeric
** takes the DECIMAL(p, s) that holds its value exactly (PostgreSQL's
** numeric has no fixed precision). */
sl_type sl_pgparam_type(int32_t oid, const char *v, size_t n);

/* A bound parameter's value in the engine's text form (sl_param): from the
** client's binary form (format 1) or its PostgreSQL text form (format 0) for
** type OID oid (0: unknown, taken as text). Appends to out; 0, or -1 with
** err: 22P03 for binary data that is not a value of the type, 22P02 for
** text PostgreSQL would refuse. param is the 1-based parameter number the
** message names. */
int sl_pgparam_decode(sl_strbuf *out, int32_t oid, int format, const char *v, size_t n,
                      int param, const sl_pgzone *z, sl_error *err);

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
    int nconns;                     /* live connections (refused ones included) */
    int nrefused;                   /* of which over max_connections, being refused */
    uint32_t next_pid;              /* BackendKeyData process ids, one per connection */
    volatile sig_atomic_t stopping; /* SIGTERM / SIGINT: no new connections, statements cancelled */
    void *tls_ctx;                  /* SSL_CTX*, or NULL when TLS is not configured */
    unsigned char mock_secret[32];  /* random per process: unknown users' mock SCRAM salt */
    int64_t auth_fail_delay;        /* nanoseconds before a failed authentication's FATAL */
    struct sl_web *web;             /* the web page and /metrics (web.c), or NULL when off */
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
    sl_kvlist *startup_params;       /* every startup parameter but _pq_.* */
    bool too_many;                   /* over max_connections: FATAL 53300 after startup */
    int64_t started;                 /* sl_monotonic_nanos at accept (session duration) */
    int32_t pid;                     /* BackendKeyData process id [mu] */
    int32_t secret;                  /* BackendKeyData secret key [mu] */
    /* the session */
    sl_session *session;
    volatile sig_atomic_t cancel;    /* set by a CancelRequest: the running statement stops */
    sl_pgzone zone;                  /* the session's TimeZone, for timestamptz values (types.c) */
    struct sl_ext *ext;              /* prepared statements and portals (extended.c), or NULL */
    struct sl_rowout *rowout;        /* the running statement's row writer, or NULL (query.c) */
    bool closed;                     /* the peer went away or a fatal error was sent */
    /* The flusher (query.c): a thread of the connection, started by its
    ** first statement that leaves a row queued and kept until the end, that
    ** writes rows left queued for 100 ms (the tail of a burst before the
    ** source goes quiet). While armed it may write c->out: everything a
    ** statement queues there is queued under out_mu. Once woken it ticks
    ** (100 ms waits) until a tick passes with no statement arming it: a
    ** connection running statements wakes it at most ten times a second,
    ** not once per statement. */
    pthread_mutex_t out_mu;
    pthread_cond_t flush_cv;         /* [out_mu] armed while idle, or quit */
    pthread_t flusher;
    bool flusher_on;                 /* [out_mu] the thread runs (joined at the end) */
    bool flush_armed;                /* [out_mu] a statement runs with rows queued */
    bool flush_recent;               /* [out_mu] armed since the flusher's last tick */
    bool flusher_idle;               /* [out_mu] waiting to be armed (needs a signal) */
    bool flusher_quit;               /* [out_mu] the connection ends */
    int64_t last_flush;              /* [out_mu] sl_monotonic_nanos of the statement's last write */
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

/* ------------------------------------------------------------------------
** tls.c, scram.c, users.c — transport security and authentication
*/

/* Load --tls-cert / --tls-key into srv->tls_ctx. */
int sl_tls_init(sl_server *srv, sl_error *err);
void sl_tls_done(sl_server *srv);
/* The TLS handshake on c->fd; on success c->io_read / io_write go through
** TLS. */
int sl_tls_accept(sl_conn *c, sl_error *err);
/* tls-server-end-point channel binding data (RFC 5929): the hash of the
** server's certificate; out has room for EVP_MAX_MD_SIZE bytes. */
int sl_tls_end_point(sl_conn *c, unsigned char *out, unsigned *len);
/* Shut TLS down (when the peer can still hear it) and free it. */
void sl_tls_free(sl_conn *c);

/* A new SCRAM-SHA-256 verifier for password (random salt, 4096 iterations). */
int sl_scram_verifier_new(const char *password, char **out, sl_error *err);
bool sl_scram_verifier_valid(const char *verifier);
/* The SASL exchange for c->user against verifier (NULL: an unknown user,
** answered with a mock verifier). 1: authenticated (AuthenticationSASLFinal
** queued); 0: wrong password or unknown user; -1: a protocol error (err
** set) or the peer is gone (err empty). */
int sl_scram_exchange(sl_conn *c, const char *verifier, sl_error *err);

/* The verifier of user in data_dir's users file: 1 found (*verifier owned
** by the caller), 0 no such user, -1 the file could not be read. */
int sl_users_lookup(const char *data_dir, const char *user, char **verifier, sl_error *err);

/* Simple query (query.c): run every statement of the query string. */
void sl_query_simple(sl_conn *c, const char *sql, size_t len);

/* One statement's rows on the wire (query.c), for simple and extended
** query alike: its sink writes DataRows in each column's format (text or
** binary), flushing the output every 64 KiB or 100 ms so that an unbounded
** query streams, NoticeResponses, and CommandComplete with the tag clients
** expect ("SELECT n" for every statement that returned rows, "FETCH n" for
** FETCH, the engine's tag otherwise). */
typedef struct sl_rowout {
    sl_conn *c;
    bool describe;          /* begin sends RowDescription (simple query) */
    int nformats;           /* result format codes: none (all text), one for all, or per column */
    const int16_t *formats; /* [nformats] 0 text, 1 binary (not owned) */
    bool engine_text;       /* text values as the engine gives them (sluice.result_format) */
    int ncols;
    sl_type *types;         /* [ncols] the result's column types (owned) */
    bool began;             /* the statement returns rows (begin, or a cursor's columns) */
    int expect_ncols;       /* -1, or the columns a Describe announced: begin checks them */
    const sl_type *expect_types;
    int64_t rows;           /* DataRows sent */
    sl_error err;           /* why row() stopped the statement (a value that did not encode) */
    bool cancelled;         /* a CancelRequest stopped it: no CommandComplete was sent */
} sl_rowout;

void sl_rowout_init(sl_rowout *o, sl_conn *c, bool describe, int nformats, const int16_t *formats);
void sl_rowout_free(sl_rowout *o);
sl_result_sink sl_rowout_sink(sl_rowout *o);
/* The columns of rows that come without begin (a cursor's). */
void sl_rowout_columns(sl_rowout *o, int ncols, const sl_type *types);
/* The format code of column col under nformats / formats. */
int16_t sl_pg_format(int nformats, const int16_t *formats, int col);
/* Queue a RowDescription. */
void sl_pg_row_description(sl_conn *c, int ncols, const char *const *names, const sl_type *types,
                           int nformats, const int16_t *formats);
/* After a statement: rc (its return code) and err as the client must see
** them. A statement a CancelRequest stopped fails with 57014, also when the
** engine ended it quietly (a sink that stops a query ends it without an
** error); one whose value did not encode fails with that. */
int sl_rowout_outcome(sl_rowout *o, int rc, sl_error *err);
/* Disarm the flusher (sl_rowout_outcome and sl_rowout_free do): after it,
** the connection's thread owns c->out alone again. */
void sl_rowout_stop(sl_rowout *o);
/* The connection's flusher: its lock at the connection's start, the thread
** (if it started) joined at its end. */
void sl_conn_flusher_init(sl_conn *c);
void sl_conn_flusher_free(sl_conn *c);
/* Around anything else queued on c->out while a statement runs (a
** ParameterStatus from sl_session_on_param's callback): its flusher may be
** writing c->out at that moment. No-ops outside a statement. */
void sl_conn_out_lock(sl_conn *c);
void sl_conn_out_unlock(sl_conn *c);

/* Extended query (extended.c): one of Parse, Bind, Describe, Execute,
** Close, Sync, Flush. After an error every message up to Sync is skipped. */
void sl_ext_message(sl_conn *c, sl_pgmsg *m);
/* The end of an implicit transaction (Sync, a simple Query, outside a
** BEGIN block): portals are closed, as PostgreSQL drops them at commit. */
void sl_ext_end_of_transaction(sl_conn *c);
/* At the connection's end: close every cursor, free statements, portals
** and the zone. */
void sl_ext_free(sl_conn *c);

/* ------------------------------------------------------------------------
** web.c, webjobs.c, web/page.html — the web page of jobs and /metrics
*/

/* The jobs as the web page shows them: SHOW JOBS run through a session of
** its own (the planner API, as any client), sampled at most once a second
** into a bounded history per job. Thread-safe: every call takes its lock. */
typedef struct sl_webjobs sl_webjobs;
sl_webjobs *sl_webjobs_new(sl_engine *eng);
void sl_webjobs_free(sl_webjobs *w);
/* Sample SHOW JOBS now: the current figures, and a point of the history
** when the last is a second old (the main loop calls it every tick). */
void sl_webjobs_sample(sl_webjobs *w);
/* Freshly sampled: the /api/jobs document (JSON, caller frees), and the
** /metrics exposition (Prometheus text format 0.0.4, caller frees). */
char *sl_webjobs_json(sl_webjobs *w);
char *sl_webjobs_metrics(sl_webjobs *w);
/* Prometheus' label value escaping (\\, \", \n) of s, appended to out. */
void sl_prom_label_escape(sl_strbuf *out, const char *s);

/* The page at / (self-contained HTML, CSS and JavaScript). */
extern const char sl_web_page[];

/* Reading a request (web.c; the fuzz target fuzz_http.c drives these). */
#define SL_WEB_MAX_HEAD 8192   /* bytes of request line + header fields */
#define SL_WEB_MAX_TARGET 2048 /* bytes of the request target */
typedef struct sl_http_req {
    bool head;                        /* HEAD: the answer without its body */
    char path[SL_WEB_MAX_TARGET + 1]; /* the target's path, without query or fragment */
    const char *why;                  /* why it was refused (400 ...), for the body */
} sl_http_req;
/* Where the request head ends in buf[0..len) (past its blank line), or 0
** while it has not ended. */
size_t sl_http_head_end(const char *buf, size_t len);
/* Parse the head buf[0..len) (at most SL_WEB_MAX_HEAD bytes, untrusted):
** 0 with r->path (starting with '/') and r->head, or the status that
** refuses it (400, 405, 413, 414, 505) with r->why. */
int sl_http_parse(const char *buf, size_t len, sl_http_req *r);

/* A listening socket for host:port (serve.c), or -1 after printing why
** (quiet: without). */
int sl_serve_listen(const char *host, int port, bool quiet);

/* The HTTP side of the server: listen on cfg->http_host:http_port (off
** when http_port is 0). explicit: the address was given (--http-listen),
** so failing to listen is an error (-1 after printing why); the default
** address taken by someone else only leaves the page off (logged). */
int sl_web_start(sl_server *srv, bool explicit);
/* Its listening socket (-1 when off), for the main loop's poll. */
int sl_web_fd(const sl_server *srv);
/* Accept one HTTP connection (the listening socket is readable). */
void sl_web_accept(sl_server *srv);
/* Every tick of the main loop: the sampler. */
void sl_web_tick(sl_server *srv);
/* Stop: no new connection, wait for those being served, free it all
** (before the engine closes). */
void sl_web_stop(sl_server *srv);

#endif /* SL_SERVER_INT_H */
