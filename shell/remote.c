/*
** remote.c — the shell's remote backend: statements run on a `sluice serve`
** reached through libpq (`sluice -h HOST -p PORT -U USER -d DB`, or attached
** when the data directory is held by a running server).
**
** Each statement the shell cuts from its input is sent alone (PQsendQuery),
** so error positions count from it as they do locally. Results come in
** single-row mode and feed the same sl_printer as the local engine's
** (rows print as they arrive once a table streams); the column types are
** mapped back from their type OIDs and modifiers (numbers right-aligned).
** The values are the engine's own text (TRUE, 1.0E10, x'0aff', "+1
** 02:03:04.500"), not PostgreSQL's: the shell sets the session parameter
** sluice.result_format = engine in the startup packet's options, so it
** prints what the local shell prints. Errors are
** rebuilt from the PGresult's fields (SQLSTATE, message, DETAIL, HINT, and
** the 1-based character position turned back into a byte offset); notices
** arrive through libpq's notice receiver: during a statement they print as
** its notices, between statements as job messages. Ctrl-C (the shell's
** cancel flag) sends a CancelRequest (PQcancel) and the statement ends with
** the server's 57014.
**
** Connecting: libpq's defaults and environment (PGHOST, PGPORT, PGUSER,
** PGDATABASE, PGPASSWORD, ~/.pgpass) apply; the port defaults to
** SL_SERVE_DEFAULT_PORT when neither -p nor PGPORT gives one. The password
** is prompted for on the terminal with -W, or when the server asks for one
** and none was given (not with -w).
**
** Main routines: sl_remote_open, sl_remote_server_of (the others are the
** sl_backend's functions).
*/
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "../server/sl_server.h"
#include "shell.h"

#define SL_POLL_MS 100 /* bound on noticing the cancel flag while a statement runs */

/* PostgreSQL type OIDs (pg_type.dat) the server sends. */
enum {
    OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_TEXT = 25,
    OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_BPCHAR = 1042, OID_VARCHAR = 1043, OID_DATE = 1082,
    OID_TIME = 1083, OID_TIMESTAMP = 1114, OID_TIMESTAMPTZ = 1184, OID_INTERVAL = 1186,
    OID_NUMERIC = 1700,
};

struct sl_remote {
    PGconn *conn;
    PGcancel *cancel;       /* for Ctrl-C */
    sl_shell *sh;
    sl_result_sink *sink;   /* the running statement's, or NULL between statements */
    bool lost_reported;     /* "connection lost" was printed since the last statement */
};

/* ------------------------------------------------------------------------
** Results.
*/

/* The Sluice type a column of type OID oid and modifier mod came from. */
static sl_type type_of(Oid oid, int mod)
{
    switch (oid) {
    case OID_BOOL: return sl_type_make(SL_TYPE_BOOLEAN);
    case OID_INT2: return sl_type_make(SL_TYPE_SMALLINT);
    case OID_INT4: return sl_type_make(SL_TYPE_INT);
    case OID_INT8: return sl_type_make(SL_TYPE_BIGINT);
    case OID_FLOAT4: return sl_type_make(SL_TYPE_FLOAT);
    case OID_FLOAT8: return sl_type_make(SL_TYPE_DOUBLE);
    case OID_NUMERIC:
        return mod >= 4 ? sl_type_make_p(SL_TYPE_DECIMAL, ((mod - 4) >> 16) & 0xFFFF, (mod - 4) & 0xFFFF)
                        : sl_type_make_p(SL_TYPE_DECIMAL, 38, 18);
    case OID_BPCHAR: return sl_type_make_p(SL_TYPE_CHAR, mod >= 4 ? mod - 4 : 1, 0);
    case OID_VARCHAR: return sl_type_make_p(SL_TYPE_VARCHAR, mod >= 4 ? mod - 4 : SL_MAX_LENGTH, 0);
    case OID_BYTEA: return sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    case OID_DATE: return sl_type_make(SL_TYPE_DATE);
    case OID_TIME: return sl_type_make_p(SL_TYPE_TIME, mod >= 0 ? mod : 0, 0);
    case OID_TIMESTAMP: return sl_type_make_p(SL_TYPE_TIMESTAMP, mod >= 0 ? mod : 6, 0);
    case OID_TIMESTAMPTZ: return sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, mod >= 0 ? mod : 6, 0);
    case OID_INTERVAL: return sl_type_make(SL_TYPE_INTERVAL_DT);
    default: return sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    }
}

/* Describe res's columns to the sink. Returns the sink's answer. */
static int send_begin(sl_result_sink *sink, const PGresult *res)
{
    int n = PQnfields(res);
    const char **names = sl_calloc((size_t)n + 1, sizeof *names);
    sl_type *types = sl_calloc((size_t)n + 1, sizeof *types);
    for (int c = 0; c < n; c++) {
        names[c] = PQfname(res, c);
        types[c] = type_of(PQftype(res, c), PQfmod(res, c));
    }
    int rc = sink->begin(sink->ctx, n, names, types);
    sl_free(names);
    sl_free(types);
    return rc;
}

/* Pass res's rows to the sink: the values are the engine's text already
** (sluice.result_format = engine). Returns the sink's answer (non-zero:
** stop). */
static int send_rows(sl_result_sink *sink, const PGresult *res)
{
    int n = PQnfields(res);
    const char **values = sl_calloc((size_t)n + 1, sizeof *values);
    size_t *lens = sl_calloc((size_t)n + 1, sizeof *lens);
    int rc = 0;
    for (int r = 0; r < PQntuples(res) && rc == 0; r++) {
        for (int c = 0; c < n; c++) {
            bool null = PQgetisnull(res, r, c);
            values[c] = null ? NULL : PQgetvalue(res, r, c);
            lens[c] = null ? 0 : (size_t)PQgetlength(res, r, c);
        }
        rc = sink->row(sink->ctx, values, lens);
    }
    sl_free(values);
    sl_free(lens);
    return rc;
}

/* Byte offset of the 1-based character position chars in s[0..len). */
static int byte_offset(const char *s, size_t len, long chars)
{
    size_t i = 0;
    for (long k = 1; k < chars && i < len; k++) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
    }
    return (int)i;
}

/* libpq's message (several lines: the first is the message, the rest
** detail) without its trailing newline. */
static char *conn_message(PGconn *conn)
{
    const char *m = PQerrorMessage(conn);
    size_t n = strlen(m);
    while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
        n--;
    return sl_strndup(m, n);
}

/* err from an error (or notice) result of the statement sql[0..len). */
static void error_of(const PGresult *res, PGconn *conn, const char *sql, size_t len, sl_error *err)
{
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
    const char *hint = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT);
    const char *pos = PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION);
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    int position = pos && sql ? byte_offset(sql, len, strtol(pos, NULL, 10)) : -1;
    if (msg) {
        sl_error_set(err, state && strlen(state) == 5 ? state : SL_ERR_INTERNAL, position, "%s", msg);
    } else { /* libpq's own failure: the connection */
        char *m = conn_message(conn);
        sl_error_set(err, "08006", -1, "%s", *m ? m : "connection to the server failed");
        sl_free(m);
    }
    if (detail)
        sl_error_detail(err, "%s", detail);
    if (hint)
        sl_error_hint(err, "%s", hint);
    err->severity = sev && strcmp(sev, "WARNING") == 0                 ? SL_SEV_WARNING
                    : sev && (strcmp(sev, "ERROR") == 0 || strcmp(sev, "FATAL") == 0 ||
                              strcmp(sev, "PANIC") == 0) ? SL_SEV_ERROR
                    : res && PQresultStatus(res) == PGRES_NONFATAL_ERROR ? SL_SEV_NOTICE
                                                                          : SL_SEV_ERROR;
}

/* libpq's notice receiver: the statement's notice, or a message of the
** server between statements (printed as a job message is). */
static void on_notice(void *arg, const PGresult *res)
{
    sl_remote *r = arg;
    sl_error e = SL_ERROR_INIT;
    error_of(res, r->conn, NULL, 0, &e);
    if (e.severity == SL_SEV_ERROR)
        e.severity = SL_SEV_WARNING;
    if (r->sink && r->sink->notice)
        r->sink->notice(r->sink->ctx, &e);
    else
        sl_shell_job_message(r->sh, &e);
    sl_error_reset(&e);
}

/* Send a CancelRequest for the running statement. */
static void send_cancel(sl_remote *r)
{
    char buf[256];
    if (r->cancel)
        PQcancel(r->cancel, buf, (int)sizeof buf);
}

/* The values' text the shell prints: the engine's (docs/SERVER.md). */
#define SL_ENGINE_TEXT "-c sluice.result_format=engine"

/* When -d's connection string gave options of its own (they replace ours),
** ask for the engine's text with SET: 0, or -1 when the server refused. */
static int engine_text(PGconn *conn)
{
    const char *opts = PQoptions(conn);
    if (opts && strstr(opts, SL_ENGINE_TEXT))
        return 0;
    PGresult *res = PQexec(conn, "SET sluice.result_format = engine");
    int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : -1;
    PQclear(res);
    return rc;
}

/* Reconnect after the connection was lost. Returns 0 when usable. */
static int ensure_connected(sl_remote *r, sl_error *err)
{
    if (PQstatus(r->conn) == CONNECTION_OK)
        return 0;
    PQreset(r->conn);
    if (PQstatus(r->conn) != CONNECTION_OK || engine_text(r->conn) != 0) {
        char *m = conn_message(r->conn);
        sl_error_set(err, "08006", -1, "no connection to the server");
        if (*m)
            sl_error_detail(err, "%s", m);
        sl_free(m);
        return -1;
    }
    PQfreeCancel(r->cancel);
    r->cancel = PQgetCancel(r->conn);
    sl_error note = SL_ERROR_INIT;
    note.severity = SL_SEV_NOTICE;
    note.message = sl_sprintf("the connection to the server was lost; reconnected");
    sl_print_notice(NULL, &note);
    sl_error_reset(&note);
    return 0;
}

static int remote_exec(sl_shell *sh, const char *sql, size_t len, sl_result_sink *sink,
                       sl_error *err)
{
    sl_remote *r = sh->remote;
    r->lost_reported = false;
    if (ensure_connected(r, err) != 0)
        return -1;
    char *q = sl_strndup(sql, len);
    if (!PQsendQuery(r->conn, q) || !PQsetSingleRowMode(r->conn)) {
        error_of(NULL, r->conn, q, len, err);
        PGresult *res;
        while ((res = PQgetResult(r->conn)))
            PQclear(res);
        sl_free(q);
        return -1;
    }
    r->sink = sink;
    bool began = false, stopped = false, cancel_sent = false;
    int rc = 0;
    for (;;) {
        while (PQisBusy(r->conn)) {
            if (!cancel_sent && ((sh->cancel && *sh->cancel) || stopped)) {
                send_cancel(r);
                cancel_sent = true;
            }
            struct pollfd pfd = {PQsocket(r->conn), POLLIN, 0};
            int n = poll(&pfd, 1, SL_POLL_MS);
            if ((n < 0 && errno != EINTR) || (n > 0 && !PQconsumeInput(r->conn)))
                break; /* PQgetResult reports the connection's failure */
        }
        PGresult *res = PQgetResult(r->conn);
        if (!res)
            break;
        switch (PQresultStatus(res)) {
        case PGRES_SINGLE_TUPLE:
        case PGRES_TUPLES_OK:
            if (!began && !stopped) {
                began = true;
                stopped = send_begin(sink, res) != 0;
            }
            if (!stopped)
                stopped = send_rows(sink, res) != 0;
            if (PQresultStatus(res) == PGRES_TUPLES_OK && !stopped)
                sink->complete(sink->ctx, PQcmdStatus(res));
            break;
        case PGRES_COMMAND_OK: sink->complete(sink->ctx, PQcmdStatus(res)); break;
        case PGRES_EMPTY_QUERY: break;
        default:
            if (rc == 0)
                error_of(res, r->conn, q, len, err);
            rc = -1;
            break;
        }
        PQclear(res);
    }
    r->sink = NULL;
    if (rc == 0 && stopped) /* the printer stopped it (Ctrl-C) before the server's error came */
        rc = -1;
    sl_free(q);
    return rc;
}

/* ------------------------------------------------------------------------
** The rest of the backend.
*/

/* Names in the first column of sql's rows, appended to out. */
static void add_names(sl_remote *r, const char *sql, sl_list *out)
{
    PGresult *res = PQexec(r->conn, sql);
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQnfields(res) > 0)
        for (int i = 0; i < PQntuples(res); i++)
            if (!PQgetisnull(res, i, 0))
                sl_list_push(out, sl_strdup(PQgetvalue(res, i, 0)));
    PQclear(res);
}

static sl_list *remote_object_names(sl_shell *sh)
{
    sl_list *out = sl_list_new();
    if (PQstatus(sh->remote->conn) == CONNECTION_OK) {
        add_names(sh->remote, "SHOW TABLES", out);
        add_names(sh->remote, "SHOW VIEWS", out);
    }
    return out;
}

static char *remote_where(sl_shell *sh)
{
    const char *host = PQhost(sh->remote->conn);
    return sl_sprintf("server: %s:%s", host ? host : "?", PQport(sh->remote->conn));
}

static void remote_set_interrupt(sl_shell *sh, volatile sig_atomic_t *flag)
{
    (void)sh;
    (void)flag; /* remote_exec watches sh->cancel */
}

static int remote_wait_fd(sl_shell *sh)
{
    sl_remote *r = sh->remote;
    return PQstatus(r->conn) == CONNECTION_OK ? PQsocket(r->conn) : -1;
}

/* Between statements: take in what the server sent (its notices print as
** job messages); a closed connection is said once. */
static void remote_input(sl_shell *sh)
{
    sl_remote *r = sh->remote;
    if (PQconsumeInput(r->conn) && PQstatus(r->conn) == CONNECTION_OK) {
        PGresult *res;
        while (!PQisBusy(r->conn) && (res = PQgetResult(r->conn)))
            PQclear(res);
        return;
    }
    if (!r->lost_reported) {
        r->lost_reported = true;
        char *m = conn_message(r->conn);
        sl_error e = SL_ERROR_INIT;
        sl_error_set(&e, "08006", -1, "%s", *m ? m : "the connection to the server was lost");
        sl_shell_job_message(sh, &e); /* only the REPL waits here: no exit status to change */
        sl_error_reset(&e);
        sl_free(m);
    }
}

static void remote_finish(sl_shell *sh, bool wait, volatile sig_atomic_t *stop)
{
    (void)sh;
    (void)wait;
    (void)stop; /* jobs belong to the server: they run on after we leave */
}

static void remote_close(sl_shell *sh)
{
    sl_remote *r = sh->remote;
    if (!r)
        return;
    PQfreeCancel(r->cancel);
    PQfinish(r->conn);
    sl_free(r);
    sh->remote = NULL;
}

static const sl_backend remote_backend = {
    remote_exec, remote_object_names, remote_where, remote_set_interrupt,
    remote_wait_fd, remote_input, remote_finish, remote_close,
};

/* ------------------------------------------------------------------------
** Connecting.
*/

/* Read a password from the terminal without echo; NULL when there is no
** terminal. Caller frees. */
static char *prompt_password(const char *user)
{
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *p = sl_sprintf("Password for user %s: ", user ? user : "");
    if (write(fd, p, strlen(p)) < 0) { /* best effort */
    }
    sl_free(p);
    struct termios old, t;
    bool tty = tcgetattr(fd, &old) == 0;
    if (tty) {
        t = old;
        t.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(fd, TCSAFLUSH, &t);
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n' && c != '\r')
        sl_strbuf_append_char(&sb, c);
    if (tty)
        tcsetattr(fd, TCSAFLUSH, &old);
    if (write(fd, "\n", 1) < 0) { /* best effort */
    }
    close(fd);
    return sl_strbuf_detach(&sb);
}

static PGconn *connect_with(const sl_conninfo *ci, const char *port, const char *password)
{
    /* PGOPTIONS' settings stay; ours comes last */
    const char *env = getenv("PGOPTIONS");
    char *options = env && *env ? sl_sprintf("%s " SL_ENGINE_TEXT, env) : sl_strdup(SL_ENGINE_TEXT);
    const char *keys[9], *vals[9];
    int n = 0;
#define SL_KV(k, v)                                                                                \
    if (v) {                                                                                       \
        keys[n] = k;                                                                               \
        vals[n++] = v;                                                                             \
    }
    SL_KV("host", ci->host);
    SL_KV("port", port);
    SL_KV("user", ci->user);
    SL_KV("password", password);
    SL_KV("fallback_application_name", "sluice");
    SL_KV("options", options);
    SL_KV("dbname", ci->dbname); /* last: a conninfo string in it overrides the above */
#undef SL_KV
    keys[n] = NULL;
    vals[n] = NULL;
    PGconn *conn = PQconnectdbParams(keys, vals, 1);
    sl_free(options);
    return conn;
}


int sl_remote_open(sl_shell *sh, const sl_conninfo *ci)
{
    char port_buf[16];
    const char *port = ci->port;
    const char *env_port = getenv("PGPORT");
    if (!port && !(env_port && *env_port)) {
        snprintf(port_buf, sizeof port_buf, "%d", SL_SERVE_DEFAULT_PORT);
        port = port_buf;
    }
    char *password = ci->prompt_password > 0 ? prompt_password(ci->user) : NULL;
    PGconn *conn = connect_with(ci, port, password);
    if (PQstatus(conn) == CONNECTION_BAD && PQconnectionNeedsPassword(conn) && !password &&
        ci->prompt_password >= 0) {
        password = prompt_password(PQuser(conn));
        if (password) {
            PQfinish(conn);
            conn = connect_with(ci, port, password);
        }
    }
    if (password) {
        memset(password, 0, strlen(password));
        sl_free(password);
    }
    if (PQstatus(conn) != CONNECTION_OK || engine_text(conn) != 0) {
        char *m = conn_message(conn);
        fprintf(stderr, "sluice: %s\n", m);
        sl_free(m);
        PQfinish(conn);
        return -1;
    }
    sl_remote *r = sl_calloc(1, sizeof *r);
    r->conn = conn;
    r->sh = sh;
    r->cancel = PQgetCancel(conn);
    PQsetNoticeReceiver(conn, on_notice, r);
    sh->remote = r;
    sh->be = &remote_backend;
    return 0;
}

int sl_remote_server_of(const char *data_dir, char **host, int *port)
{
    return sl_server_addr_read(data_dir, host, port);
}
