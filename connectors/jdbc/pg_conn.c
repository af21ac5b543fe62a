/*
** pg_conn.c — reaching PostgreSQL: a table's 'url', 'username', 'password'
** and 'table-name' mapped to libpq connection parameters, a connection made
** within a bounded time, the server's errors as sl_error, quoting.
**
** A JDBC URL is pgJDBC's: jdbc:postgresql://host[:port][,host[:port]...]
** /database?key=value&... Its parameters are percent-decoded; those libpq
** knows under another name are mapped (user, password, ssl=true ->
** sslmode=require, sslmode, connectTimeout -> connect_timeout,
** ApplicationName -> application_name, options, currentSchema -> a
** search_path in options), the others (pgJDBC's tuning knobs) have no
** meaning for libpq and are ignored. Connections are made with
** PQconnectStartParams and polled against a deadline: PostgreSQL's own
** connect_timeout counts whole seconds per host and cannot bound a plan-
** time check in milliseconds.
**
** Main routines: sl__pg_target_parse, sl__pg_connect, sl__pg_error,
** sl__pg_exec.
*/
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "jdbc_int.h"

#define SL__PG_URL_PREFIX "jdbc:postgresql:"
#define SL__PG_MAX_PARAMS 16

static void sl__pg_param(sl__pg_target *t, const char *key, const char *value)
{
    for (int i = 0; i < t->nparams; i++)
        if (strcmp(t->keys[i], key) == 0) { /* a later one wins ('username' over the URL) */
            sl_free(t->values[i]);
            t->values[i] = sl_strdup(value);
            return;
        }
    if (t->nparams >= SL__PG_MAX_PARAMS)
        return;
    t->keys[t->nparams] = sl_strdup(key);
    t->values[t->nparams] = sl_strdup(value);
    t->nparams++;
}

static const char *sl__pg_param_get(const sl__pg_target *t, const char *key)
{
    for (int i = 0; i < t->nparams; i++)
        if (strcmp(t->keys[i], key) == 0)
            return t->values[i];
    return NULL;
}

static int sl__pg_hex(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decode s[0..n) into a new string; NULL when malformed or when it
** decodes to a NUL byte. */
static char *sl__pg_decode(const char *s, size_t n)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int hi = i + 1 < n ? sl__pg_hex((unsigned char)s[i + 1]) : -1;
            int lo = i + 2 < n ? sl__pg_hex((unsigned char)s[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                sl_strbuf_free(&sb);
                return NULL;
            }
            sl_strbuf_append_char(&sb, (char)(hi * 16 + lo));
            i += 2;
            continue;
        }
        sl_strbuf_append_char(&sb, s[i] == '+' ? ' ' : s[i]);
    }
    return sl_strbuf_detach(&sb);
}

/* One URL parameter key=value (decoded) into libpq's terms. */
static void sl__pg_url_param(sl__pg_target *t, const char *key, const char *value,
                             sl_strbuf *options)
{
    static const struct {
        const char *jdbc, *libpq;
    } map[] = {
        {"user", "user"},
        {"password", "password"},
        {"sslmode", "sslmode"},
        {"sslcert", "sslcert"},
        {"sslkey", "sslkey"},
        {"sslrootcert", "sslrootcert"},
        {"connectTimeout", "connect_timeout"},
        {"ApplicationName", "application_name"},
        {"applicationName", "application_name"},
        {"targetServerType", "target_session_attrs"},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(map); i++)
        if (strcmp(key, map[i].jdbc) == 0) {
            if (strcmp(map[i].libpq, "target_session_attrs") == 0) {
                /* pgJDBC's primary / master -> libpq's read-write */
                if (sl_strcasecmp(value, "primary") == 0 || sl_strcasecmp(value, "master") == 0)
                    sl__pg_param(t, "target_session_attrs", "read-write");
                return;
            }
            sl__pg_param(t, map[i].libpq, value);
            return;
        }
    if (strcmp(key, "ssl") == 0) {
        if (sl_strcasecmp(value, "true") == 0 && !sl__pg_param_get(t, "sslmode"))
            sl__pg_param(t, "sslmode", "require");
    } else if (strcmp(key, "options") == 0) {
        if (options->len)
            sl_strbuf_append_char(options, ' ');
        sl_strbuf_append(options, value);
    } else if (strcmp(key, "currentSchema") == 0) {
        if (options->len)
            sl_strbuf_append_char(options, ' ');
        sl_strbuf_append(options, "-c search_path=");
        for (const char *p = value; *p; p++) { /* libpq's options: escape blanks, '\' */
            if (*p == ' ' || *p == '\\')
                sl_strbuf_append_char(options, '\\');
            sl_strbuf_append_char(options, *p);
        }
    }
}

static int sl__pg_bad_url(sl_error *err, const sl_kv *kv, const char *why)
{
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos, "invalid value for option 'url': %s",
                 why);
    sl_error_hint(err, "Write it as 'jdbc:postgresql://host:port/database'.");
    return -1;
}

/* 'url' into t's host, port, dbname and parameters. */
static int sl__pg_parse_url(sl__pg_target *t, const sl_kv *kv, sl_error *err)
{
    const char *url = kv->value ? kv->value : "";
    if (strncmp(url, "jdbc:", 5) != 0)
        return sl__pg_bad_url(err, kv, "not a JDBC URL (it starts with 'jdbc:')");
    size_t plen = strlen(SL__PG_URL_PREFIX);
    if (strncmp(url, SL__MY_URL_PREFIX, strlen(SL__MY_URL_PREFIX)) == 0 ||
        strncmp(url, SL__MARIADB_URL_PREFIX, strlen(SL__MARIADB_URL_PREFIX)) == 0) {
        t->mysql = true;
        plen = url[5] == 'm' && url[6] == 'y' ? strlen(SL__MY_URL_PREFIX)
                                              : strlen(SL__MARIADB_URL_PREFIX);
    } else if (strncmp(url, SL__PG_URL_PREFIX, plen) != 0) {
        const char *sub = url + 5;
        size_t n = strcspn(sub, ":/?");
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, kv->value_pos,
                     "JDBC URLs of '%.*s' are not supported", (int)(n > 40 ? 40 : n), sub);
        sl_error_detail(err, "The jdbc connector writes and reads PostgreSQL (through libpq) "
                             "and writes MariaDB and MySQL (through MariaDB Connector/C).");
        sl_error_hint(err, "Use 'url' = 'jdbc:postgresql://host:port/database' or "
                           "'jdbc:mariadb://host:port/database'.");
        return -1;
    }
    const char *p = url + plen;
    if (t->mysql && strncmp(p, "//", 2) != 0)
        return sl__pg_bad_url(err, kv, "a MariaDB/MySQL URL names its server "
                                       "('jdbc:mariadb://host:port/database')");
    const char *q = strchr(p, '?');
    size_t body = q ? (size_t)(q - p) : strlen(p);
    char *hosts = NULL, *db = NULL;
    if (body >= 2 && p[0] == '/' && p[1] == '/') {
        const char *h = p + 2;
        const char *slash = memchr(h, '/', body - 2);
        size_t hn = slash ? (size_t)(slash - h) : body - 2;
        hosts = sl_strndup(h, hn);
        if (slash)
            db = sl__pg_decode(slash + 1, body - 2 - hn - 1);
    } else if (body == 1 && p[0] == '/') {
        db = sl_strdup("");
    } else {
        db = sl__pg_decode(p, body);
    }
    /* hosts: h[:port],... -> libpq's host and port lists. */
    if (hosts && *hosts) {
        sl_strbuf hl = SL_STRBUF_INIT, pl = SL_STRBUF_INIT;
        bool bad = false;
        char *save = NULL;
        for (char *h = strtok_r(hosts, ",", &save); h && !bad; h = strtok_r(NULL, ",", &save)) {
            char *port = NULL;
            if (h[0] == '[') { /* [::1]:5432 */
                char *end = strchr(h, ']');
                if (!end || (end[1] && end[1] != ':')) {
                    bad = true;
                    break;
                }
                *end = '\0';
                port = end[1] == ':' ? end + 2 : NULL;
                h++;
            } else {
                port = strchr(h, ':');
                if (port)
                    *port++ = '\0';
            }
            if (port && (!*port || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5))
                bad = true;
            if (t->mysql && hl.len) { /* Connector/C connects to one server */
                bad = true;
                break;
            }
            sl_strbuf_appendf(&hl, "%s%s", hl.len ? "," : "", *h ? h : "localhost");
            sl_strbuf_appendf(&pl, "%s%s", pl.len ? "," : "",
                              port ? port : t->mysql ? "3306" : "5432");
        }
        if (bad) {
            sl_strbuf_free(&hl);
            sl_strbuf_free(&pl);
            sl_free(hosts);
            sl_free(db);
            return sl__pg_bad_url(err, kv,
                                  t->mysql ? "a MariaDB/MySQL URL names one host:port"
                                           : "a host is malformed or its port is not a number");
        }
        sl__pg_param(t, "host", sl_strbuf_cstr(&hl));
        sl__pg_param(t, "port", sl_strbuf_cstr(&pl));
        sl_strbuf_free(&hl);
        sl_strbuf_free(&pl);
    } else {
        sl__pg_param(t, "host", "localhost");
        sl__pg_param(t, "port", t->mysql ? "3306" : "5432");
    }
    sl_free(hosts);
    if (!db) {
        return sl__pg_bad_url(err, kv, "the database name is malformed");
    }
    if (*db)
        sl__pg_param(t, "dbname", db);
    t->database = db;
    /* ?key=value&key=value */
    sl_strbuf options = SL_STRBUF_INIT;
    for (const char *a = q ? q + 1 : NULL; a && *a;) {
        const char *amp = strchr(a, '&');
        size_t n = amp ? (size_t)(amp - a) : strlen(a);
        const char *eq = memchr(a, '=', n);
        if (n > 0) {
            char *key = sl__pg_decode(a, eq ? (size_t)(eq - a) : n);
            char *val = eq ? sl__pg_decode(eq + 1, n - (size_t)(eq - a) - 1) : sl_strdup("");
            if (!key || !val) {
                sl_free(key);
                sl_free(val);
                sl_strbuf_free(&options);
                return sl__pg_bad_url(err, kv, "a parameter is not percent-encoded correctly");
            }
            if (!t->mysql)
                sl__pg_url_param(t, key, val, &options);
            else if (strcmp(key, "user") == 0 || strcmp(key, "password") == 0)
                sl__pg_param(t, key, val);
            else if (strcmp(key, "connectTimeout") == 0) /* Connector/J's: ms */
                sl__pg_param(t, "connect_timeout_ms", val);
            sl_free(key);
            sl_free(val);
        }
        a = amp ? amp + 1 : NULL;
    }
    if (options.len)
        sl__pg_param(t, "options", sl_strbuf_cstr(&options));
    sl_strbuf_free(&options);
    return 0;
}

/* "schema.table", either part possibly "quoted" (a quoted part may hold
** dots; "" inside quotes is one "). */
static int sl__pg_parse_table(sl__pg_target *t, const sl_kv *kv, sl_error *err)
{
    const char *s = kv->value ? kv->value : "";
    char *parts[2] = {NULL, NULL};
    int np = 0;
    char qc = t->mysql ? '`' : '"'; /* how the database quotes identifiers */
    while (np < 3) {
        sl_strbuf sb = SL_STRBUF_INIT;
        if (*s == qc) {
            s++;
            for (;;) {
                if (!*s) {
                    sl_strbuf_free(&sb);
                    goto bad;
                }
                if (s[0] == qc && s[1] == qc) {
                    sl_strbuf_append_char(&sb, qc);
                    s += 2;
                } else if (*s == qc) {
                    s++;
                    break;
                } else {
                    sl_strbuf_append_char(&sb, *s++);
                }
            }
        } else {
            while (*s && *s != '.')
                sl_strbuf_append_char(&sb, *s++);
        }
        if (sb.len == 0 || np == 2) {
            sl_strbuf_free(&sb);
            goto bad;
        }
        parts[np++] = sl_strbuf_detach(&sb);
        if (!*s)
            break;
        if (*s != '.')
            goto bad;
        s++;
    }
    if (np == 2) {
        t->schema = parts[0];
        t->table = parts[1];
    } else {
        t->table = parts[0];
    }
    sl_strbuf q = SL_STRBUF_INIT;
    if (t->schema) {
        sl_strbuf_append_quoted(&q, t->schema, qc);
        sl_strbuf_append_char(&q, '.');
    }
    sl_strbuf_append_quoted(&q, t->table, qc);
    t->qualified = sl_strbuf_detach(&q);
    return 0;
bad:
    sl_free(parts[0]);
    sl_free(parts[1]);
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                 "invalid value for option 'table-name': \"%s\" is not a table name",
                 kv->value ? kv->value : "");
    if (t->mysql)
        sl_error_hint(err, "Write it as 'table' or 'database.table' (quote a part holding a dot: "
                           "'`my.db`.ledger').");
    else
        sl_error_hint(err, "Write it as 'table' or 'schema.table' (quote a part holding a dot: "
                           "'\"my.schema\".ledger').");
    return -1;
}

int sl__pg_target_parse(const sl_kvlist *opts, sl__pg_target *t, sl_error *err)
{
    memset(t, 0, sizeof *t);
    t->keys = sl_calloc(SL__PG_MAX_PARAMS + 1, sizeof(char *));
    t->values = sl_calloc(SL__PG_MAX_PARAMS + 1, sizeof(char *));
    const sl_kv *url = sl_kvlist_find(opts, "url");
    const sl_kv *table = sl_kvlist_find(opts, "table-name");
    if (!url || !table) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "option '%s' is required",
                     url ? "table-name" : "url");
        goto fail;
    }
    if (sl__pg_parse_url(t, url, err) != 0 || sl__pg_parse_table(t, table, err) != 0)
        goto fail;
    const char *user = sl_kvlist_get(opts, "username");
    const char *password = sl_kvlist_get(opts, "password");
    if (user)
        sl__pg_param(t, "user", user);
    if (password)
        sl__pg_param(t, "password", password);
    t->retry_timeout_ms = 60000;
    const sl_kv *rt = sl_kvlist_find(opts, "connection.max-retry-timeout");
    if (rt && sl_option_parse_duration_ms(rt->value, &t->retry_timeout_ms, rt->value_pos, err) != 0)
        goto fail;
    const char *host = sl__pg_param_get(t, "host");
    const char *port = sl__pg_param_get(t, "port");
    t->display = sl_sprintf("%s:%s/%s", host ? host : "localhost",
                            port ? port : t->mysql ? "3306" : "5432",
                            t->database && *t->database ? t->database : "(the user's database)");
    return 0;
fail:
    sl_option_scrub_error(err, opts);
    sl__pg_target_clear(t);
    return -1;
}

void sl__pg_target_clear(sl__pg_target *t)
{
    for (int i = 0; t->keys && i < t->nparams; i++) {
        sl_free(t->keys[i]);
        if (t->values[i]) /* the password: leave nothing behind */
            memset(t->values[i], 0, strlen(t->values[i]));
        sl_free(t->values[i]);
    }
    sl_free(t->keys);
    sl_free(t->values);
    sl_free(t->display);
    sl_free(t->database);
    sl_free(t->schema);
    sl_free(t->table);
    sl_free(t->qualified);
    memset(t, 0, sizeof *t);
}

/* The SQLSTATE of a failed connection, from libpq's words (libpq 15 keeps
** the server's SQLSTATE of a refused login to itself), and whether trying
** again may help. */
static const char *sl__pg_connect_state(const char *msg, bool *retry)
{
    *retry = false;
    if (strstr(msg, "password authentication failed") || strstr(msg, "no password supplied") ||
        strstr(msg, "SCRAM authentication") || strstr(msg, "fe_sendauth"))
        return "28P01";
    if (strstr(msg, "database \"") && strstr(msg, "does not exist"))
        return "3D000";
    if ((strstr(msg, "role \"") && strstr(msg, "does not exist")) || strstr(msg, "pg_hba.conf"))
        return "28000";
    if (strstr(msg, "too many connections") || strstr(msg, "remaining connection slots")) {
        *retry = true;
        return "53300";
    }
    if (strstr(msg, "starting up") || strstr(msg, "shutting down") ||
        strstr(msg, "in recovery mode") || strstr(msg, "not yet accepting")) {
        *retry = true;
        return "57P03";
    }
    if (strstr(msg, "Connection refused") || strstr(msg, "could not connect") ||
        strstr(msg, "timeout expired") || strstr(msg, "No route to host") ||
        strstr(msg, "Network is unreachable") || strstr(msg, "server closed the connection") ||
        strstr(msg, "could not receive data") || strstr(msg, "could not send data")) {
        *retry = true;
        return "08001";
    }
    if (strstr(msg, "could not translate host name"))
        return "08001";
    return "08006";
}

/* libpq's message without its "connection to server at ... failed: FATAL: "
** preamble and trailing newline: the server's own words. */
static char *sl__pg_conn_message(const char *msg)
{
    const char *m = msg;
    const char *f = strstr(m, "FATAL:");
    if (f) {
        m = f + 6;
    } else {
        const char *c = strstr(m, " failed: ");
        if (c)
            m = c + 9;
    }
    while (*m == ' ')
        m++;
    size_t n = strcspn(m, "\n");
    return sl_strndup(m, n);
}

/* One attempt; NULL with *msg (owned) on failure. */
static PGconn *sl__pg_connect_once(const sl__pg_target *t, const char *appname, int64_t deadline,
                                   char **msg)
{
    const char *keys[SL__PG_MAX_PARAMS + 3];
    const char *vals[SL__PG_MAX_PARAMS + 3];
    int n = 0;
    bool have_app = false;
    for (int i = 0; i < t->nparams; i++) {
        keys[n] = t->keys[i];
        vals[n++] = t->values[i];
        have_app |= strcmp(t->keys[i], "application_name") == 0;
    }
    if (!have_app && appname) {
        keys[n] = "application_name";
        vals[n++] = appname;
    }
    keys[n] = "client_encoding";
    vals[n++] = "UTF8";
    keys[n] = NULL;
    vals[n] = NULL;
    PGconn *c = PQconnectStartParams(keys, vals, 0);
    if (!c) {
        *msg = sl_strdup("out of memory");
        return NULL;
    }
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (PQstatus(c) != CONNECTION_BAD && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        int64_t left = deadline - sl__pg_now_ms();
        if (left <= 0) {
            PQfinish(c);
            *msg = sl_strdup("timeout expired");
            return NULL;
        }
        struct pollfd pfd = {PQsocket(c), st == PGRES_POLLING_READING ? POLLIN : POLLOUT, 0};
        int r = pfd.fd >= 0 ? poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) : 1;
        if (r < 0 && errno != EINTR) {
            PQfinish(c);
            *msg = sl_sprintf("poll: %s", strerror(errno));
            return NULL;
        }
        if (r > 0)
            st = PQconnectPoll(c);
    }
    if (PQstatus(c) != CONNECTION_OK) {
        *msg = sl_strdup(PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

PGconn *sl__pg_connect(const sl__pg_target *t, const char *application_name, int64_t timeout_ms,
                       sl_error *err)
{
    if (timeout_ms <= 0)
        timeout_ms = t->retry_timeout_ms > 0 ? t->retry_timeout_ms : 60000;
    int64_t deadline = sl__pg_now_ms() + timeout_ms;
    int64_t pause = 100;
    for (;;) {
        char *msg = NULL;
        PGconn *c = sl__pg_connect_once(t, application_name, deadline, &msg);
        if (c) {
            sl_free(msg);
            /* Values in the text format read and write exactly with these. */
            PGresult *r = PQexec(c, "SET DateStyle = 'ISO'; SET TimeZone = 'UTC'; "
                                    "SET IntervalStyle = 'iso_8601'; SET extra_float_digits = 3; "
                                    "SET idle_in_transaction_session_timeout = 0");
            if (PQresultStatus(r) != PGRES_COMMAND_OK) {
                sl__pg_error(err, r, c, "setting up the connection");
                PQclear(r);
                PQfinish(c);
                return NULL;
            }
            PQclear(r);
            return c;
        }
        bool retry = false;
        const char *state = sl__pg_connect_state(msg, &retry);
        int64_t now = sl__pg_now_ms();
        if (!retry || now + pause >= deadline) {
            char *m = sl__pg_conn_message(msg);
            sl_error_set(err, state, -1, "could not connect to PostgreSQL at %s: %s", t->display,
                         m);
            if (retry)
                sl_error_detail(err, "Tried for %lld ms ('connection.max-retry-timeout').",
                                (long long)timeout_ms);
            sl_free(m);
            sl_free(msg);
            for (int i = 0; i < t->nparams; i++) /* the server never echoes it; be sure */
                if (strcmp(t->keys[i], "password") == 0 && strlen(t->values[i]) >= 4) {
                    sl_kvlist *o = sl_kvlist_new();
                    sl_kvlist_add(o, "password", t->values[i], -1, -1);
                    sl_option_scrub_error(err, o);
                    sl_kvlist_free(o);
                }
            return NULL;
        }
        sl_free(msg);
        sl_sleep_nanos(pause * SL_NANOS_PER_MILLI);
        if (pause < 1000)
            pause *= 2;
    }
}

int sl__pg_error(sl_error *err, const PGresult *res, const PGconn *conn, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char *fallback = NULL;
    if (!primary) {
        fallback = sl__pg_conn_message(conn ? PQerrorMessage(conn) : "no connection");
        primary = *fallback ? fallback : "the server did not answer";
    }
    if (!state || strlen(state) != 5) /* no answer from the server: the connection failed */
        state = SL_ERR_CONNECTION_FAILURE;
    if (what)
        sl_error_set(err, state, -1, "%s: %s", what, primary);
    else
        sl_error_set(err, state, -1, "%s", primary);
    const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
    const char *hint = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_HINT) : NULL;
    if (detail)
        sl_error_detail(err, "%s", detail);
    if (hint)
        sl_error_hint(err, "%s", hint);
    sl_free(fallback);
    return -1;
}

PGresult *sl__pg_exec(PGconn *c, const char *sql, int nparams, const char *const *params,
                      const char *what, sl_error *err)
{
    PGresult *r = nparams > 0 ? PQexecParams(c, sql, nparams, NULL, params, NULL, NULL, 0)
                              : PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return r;
    sl__pg_error(err, r, c, what);
    PQclear(r);
    return NULL;
}

int sl__pg_run(PGconn *c, const char *sql, const char *what, sl_error *err)
{
    PGresult *r = sl__pg_exec(c, sql, 0, NULL, what, err);
    if (!r)
        return -1;
    PQclear(r);
    return 0;
}

bool sl__pg_retryable(const sl_error *err)
{
    const char *s = err->sqlstate;
    return strncmp(s, "08", 2) == 0 || strcmp(s, "57P01") == 0 || strcmp(s, "57P02") == 0 ||
           strcmp(s, "57P03") == 0 || strcmp(s, "40001") == 0 || strcmp(s, "40P01") == 0;
}

void sl__pg_quote_ident(sl_strbuf *sb, const char *ident)
{
    sl_strbuf_append_quoted(sb, ident, '"');
}

void sl__pg_quote_literal(sl_strbuf *sb, const char *s)
{
    sl_strbuf_append_quoted(sb, s, '\'');
}
