/*
** my_conn.c — reaching MariaDB and MySQL through MariaDB Connector/C
** (Debian's libmariadb): a connection made within a bounded time, the
** server's errors as sl_error with PostgreSQL's SQLSTATEs, quoting, and a
** row's values as SQL literals.
**
** The target is the jdbc connector's (pg_conn.c parses both URL families:
** 'jdbc:mariadb://host:port/db' and 'jdbc:mysql://...', the parameters
** user, password and connectTimeout). Every session is set up so that
** literals mean one thing whatever the server's defaults are: utf8mb4,
** time_zone '+00:00' (TIMESTAMP_LTZ values are written as UTC), and
** sql_mode STRICT_ALL_TABLES (a value that does not fit fails instead of
** being truncated with a warning), NO_BACKSLASH_ESCAPES (a string literal
** is quoted by doubling ' alone), NO_ENGINE_SUBSTITUTION and
** NO_AUTO_VALUE_ON_ZERO (a 0 written to an AUTO_INCREMENT key stays 0).
**
** Errors: MariaDB's error numbers are mapped to the SQLSTATEs a PostgreSQL
** user knows for the same condition (sl__my_sqlstate), so the jdbc
** connector answers the same way for either database; the server's error
** number is kept in the detail.
**
** Why Connector/C and not libmysqlclient: it is Debian's MariaDB client
** library (libmariadb-dev), speaks to MySQL 5.7/8 as well, and is what the
** `mariadb` client of the tests uses; statements are sent as text (no
** prepared statements: a batch is one multi-row statement).
**
** Main routines: sl__my_connect, sl__my_error, sl__my_run, sl__my_query,
** sl__my_literal.
*/
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

#define SL__MY_SESSION_SETUP                                                                   \
    "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES,"           \
    "NO_ENGINE_SUBSTITUTION,NO_AUTO_VALUE_ON_ZERO'"

const char *sl__my_sqlstate(unsigned e, const char *sqlstate)
{
    switch (e) {
    case 1045: return "28P01";                        /* ER_ACCESS_DENIED_ERROR */
    case 1044: return "42501";                        /* ER_DBACCESS_DENIED_ERROR */
    case 1049: return "3D000";                        /* ER_BAD_DB_ERROR */
    case 1146: return SL_ERR_UNDEFINED_TABLE;         /* ER_NO_SUCH_TABLE */
    case 1054: return SL_ERR_UNDEFINED_COLUMN;        /* ER_BAD_FIELD_ERROR */
    case 1142:                                        /* ER_TABLEACCESS_DENIED_ERROR */
    case 1143:                                        /* ER_COLUMNACCESS_DENIED_ERROR */
    case 1227: return "42501";                        /* ER_SPECIFIC_ACCESS_DENIED_ERROR */
    case 1062:                                        /* ER_DUP_ENTRY */
    case 1586: return "23505";                        /* ER_DUP_ENTRY_WITH_KEY_NAME */
    case 1048: return "23502";                        /* ER_BAD_NULL_ERROR */
    case 1452: return "23503";                        /* ER_NO_REFERENCED_ROW_2 */
    case 1406: return SL_ERR_STRING_TRUNCATION;       /* ER_DATA_TOO_LONG */
    case 1264: return SL_ERR_NUMERIC_RANGE;           /* ER_WARN_DATA_OUT_OF_RANGE */
    case 1292: return SL_ERR_DATETIME_FORMAT;         /* ER_TRUNCATED_WRONG_VALUE */
    case 1366: return SL_ERR_INVALID_TEXT;            /* ER_TRUNCATED_WRONG_VALUE_FOR_FIELD */
    case 1205: return "55P03";                        /* ER_LOCK_WAIT_TIMEOUT */
    case 1213: return "40P01";                        /* ER_LOCK_DEADLOCK */
    case 1040: return "53300";                        /* ER_CON_COUNT_ERROR */
    case 1397: return SL_ERR_UNDEFINED_OBJECT;        /* ER_XAER_NOTA: unknown xid */
    case 1399: return SL_ERR_OBJECT_STATE;            /* ER_XAER_RMFAIL: wrong XA state */
    case 1402: return SL_ERR_TRANSACTION_ROLLBACK;    /* ER_XA_RBROLLBACK */
    case 1053:                                        /* ER_SERVER_SHUTDOWN */
    case 1927: return "57P01";                        /* ER_CONNECTION_KILLED */
    case 2002:                                        /* CR_CONNECTION_ERROR */
    case 2003:                                        /* CR_CONN_HOST_ERROR */
    case 2005: return "08001";                        /* CR_UNKNOWN_HOST */
    case 2006:                                        /* CR_SERVER_GONE_ERROR */
    case 2013:                                        /* CR_SERVER_LOST */
    case 2026:                                        /* CR_SSL_CONNECTION_ERROR */
    case 2055: return SL_ERR_CONNECTION_FAILURE;      /* CR_SERVER_LOST_EXTENDED */
    default: break;
    }
    if (sqlstate && strlen(sqlstate) == 5 && strcmp(sqlstate, "HY000") != 0 &&
        strcmp(sqlstate, "00000") != 0)
        return sqlstate;
    return e >= 2000 && e < 3000 ? SL_ERR_CONNECTION_FAILURE : SL_ERR_INTERNAL;
}

int sl__my_error(sl_error *err, MYSQL *c, const char *what)
{
    unsigned e = c ? mysql_errno(c) : 2006;
    const char *msg = c ? mysql_error(c) : "no connection";
    if (!msg || !*msg)
        msg = "the server did not answer";
    const char *state = sl__my_sqlstate(e, c ? mysql_sqlstate(c) : NULL);
    if (what)
        sl_error_set(err, state, -1, "%s: %s", what, msg);
    else
        sl_error_set(err, state, -1, "%s", msg);
    sl_error_detail(err, "MariaDB error %u (SQLSTATE %s).", e, c ? mysql_sqlstate(c) : "HY000");
    return -1;
}

/* Whether a failed connect may pass by waiting (refused, server starting). */
static bool sl__my_connect_retry(unsigned e)
{
    return e == 2002 || e == 2003 || e == 2006 || e == 2013 || e == 1040 || e == 1053 ||
           e == 2055;
}

static const char *sl__my_param(const sl__pg_target *t, const char *key)
{
    for (int i = 0; i < t->nparams; i++)
        if (strcmp(t->keys[i], key) == 0)
            return t->values[i];
    return NULL;
}

MYSQL *sl__my_connect(const sl__pg_target *t, int64_t timeout_ms, sl_error *err)
{
    if (timeout_ms <= 0)
        timeout_ms = t->retry_timeout_ms > 0 ? t->retry_timeout_ms : 60000;
    int64_t deadline = sl__pg_now_ms() + timeout_ms;
    const char *host = sl__my_param(t, "host"), *port = sl__my_param(t, "port");
    const char *db = sl__my_param(t, "dbname"), *user = sl__my_param(t, "user");
    const char *password = sl__my_param(t, "password");
    const char *cto = sl__my_param(t, "connect_timeout_ms");
    int64_t pause = 100;
    for (;;) {
        MYSQL *c = mysql_init(NULL);
        if (!c) {
            sl_error_set(err, "53200", -1, "out of memory connecting to MariaDB");
            return NULL;
        }
        int64_t left = deadline - sl__pg_now_ms();
        unsigned secs = (unsigned)(left / 1000 > 0 ? left / 1000 : 1);
        if (cto && atoll(cto) > 0 && (unsigned)((atoll(cto) + 999) / 1000) < secs)
            secs = (unsigned)((atoll(cto) + 999) / 1000);
        unsigned io = 600; /* a statement waits at most this long for the server */
        my_bool reconnect = 0;
        mysql_optionsv(c, MYSQL_OPT_CONNECT_TIMEOUT, &secs);
        mysql_optionsv(c, MYSQL_OPT_READ_TIMEOUT, &io);
        mysql_optionsv(c, MYSQL_OPT_WRITE_TIMEOUT, &io);
        mysql_optionsv(c, MYSQL_OPT_RECONNECT, &reconnect); /* never behind our back */
        mysql_optionsv(c, MYSQL_SET_CHARSET_NAME, "utf8mb4");
        mysql_optionsv(c, MYSQL_INIT_COMMAND, SL__MY_SESSION_SETUP);
        unsigned pn = port ? (unsigned)atoi(port) : 3306;
        const char *h = host && *host ? host : "localhost";
        /* "localhost" would mean the Unix socket to Connector/C; a URL means TCP. */
        unsigned proto = MYSQL_PROTOCOL_TCP;
        mysql_optionsv(c, MYSQL_OPT_PROTOCOL, &proto);
        if (mysql_real_connect(c, h, user, password, db && *db ? db : NULL, pn, NULL,
                               CLIENT_MULTI_RESULTS | CLIENT_FOUND_ROWS))
            return c;
        unsigned e = mysql_errno(c);
        int64_t now = sl__pg_now_ms();
        if (!sl__my_connect_retry(e) || now + pause >= deadline) {
            const char *state = sl__my_sqlstate(e, mysql_sqlstate(c));
            if (e == 2002 || e == 2003 || e == 2013)
                state = "08001";
            sl_error_set(err, state, -1, "could not connect to MariaDB at %s: %s", t->display,
                         mysql_error(c));
            if (sl__my_connect_retry(e))
                sl_error_detail(err, "Tried for %lld ms ('connection.max-retry-timeout'); "
                                     "MariaDB error %u.",
                                (long long)timeout_ms, e);
            else
                sl_error_detail(err, "MariaDB error %u.", e);
            mysql_close(c);
            if (password && strlen(password) >= 4) { /* never echoed; be sure */
                sl_kvlist *o = sl_kvlist_new();
                sl_kvlist_add(o, "password", password, -1, -1);
                sl_option_scrub_error(err, o);
                sl_kvlist_free(o);
            }
            return NULL;
        }
        mysql_close(c);
        sl_sleep_nanos(pause * SL_NANOS_PER_MILLI);
        if (pause < 1000)
            pause *= 2;
    }
}

/* Discard the results of a statement that succeeded (multi-results). */
static int sl__my_drain(MYSQL *c, const char *what, sl_error *err)
{
    for (;;) {
        MYSQL_RES *r = mysql_store_result(c);
        if (r)
            mysql_free_result(r);
        else if (mysql_field_count(c) != 0)
            return sl__my_error(err, c, what);
        int more = mysql_next_result(c);
        if (more < 0)
            return 0;
        if (more > 0)
            return sl__my_error(err, c, what);
    }
}

int sl__my_run(MYSQL *c, const char *sql, const char *what, sl_error *err)
{
    return sl__my_run_count(c, sql, NULL, what, err);
}

int sl__my_run_count(MYSQL *c, const char *sql, int64_t *affected, const char *what,
                     sl_error *err)
{
    if (mysql_real_query(c, sql, strlen(sql)) != 0)
        return sl__my_error(err, c, what);
    if (affected) { /* before the results are drained (that resets it) */
        my_ulonglong n = mysql_affected_rows(c);
        *affected = n == (my_ulonglong)-1 ? -1 : (int64_t)n;
    }
    return sl__my_drain(c, what, err);
}

MYSQL_RES *sl__my_query(MYSQL *c, const char *sql, const char *what, sl_error *err)
{
    if (mysql_real_query(c, sql, strlen(sql)) != 0) {
        sl__my_error(err, c, what);
        return NULL;
    }
    MYSQL_RES *r = mysql_store_result(c);
    if (!r) {
        if (mysql_field_count(c) != 0)
            sl__my_error(err, c, what);
        else
            sl_error_set(err, SL_ERR_INTERNAL, -1, "%s: the statement returned no rows",
                         what ? what : "MariaDB");
    }
    return r;
}

bool sl__my_alive(MYSQL *c)
{
    if (!c)
        return false;
    unsigned e = mysql_errno(c); /* the last statement's: gone, lost, killed */
    return e != 2006 && e != 2013 && e != 2055 && e != 1927;
}

bool sl__my_retryable(const sl_error *err)
{
    const char *s = err->sqlstate;
    return strncmp(s, "08", 2) == 0 || strcmp(s, "57P01") == 0 || strcmp(s, "40P01") == 0 ||
           strcmp(s, "40001") == 0 || strcmp(s, "53300") == 0;
}

void sl__my_quote_ident(sl_strbuf *sb, const char *ident)
{
    sl_strbuf_append_quoted(sb, ident, '`');
}

void sl__my_quote_literal(sl_strbuf *sb, const char *s)
{
    sl_strbuf_append_quoted(sb, s, '\'');
}

int sl__my_literal(sl_strbuf *sb, const sl_vector *v, int r, sl_error *err)
{
    if (v->nulls[r] || v->type.id == SL_TYPE_NULL) {
        sl_strbuf_append(sb, "NULL");
        return 0;
    }
    switch (v->type.id) {
    case SL_TYPE_BOOLEAN: sl_strbuf_append(sb, v->v.b[r] ? "TRUE" : "FALSE"); return 0;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: sl_strbuf_append_i64(sb, v->v.i64[r]); return 0;
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        double d = v->v.f64[r];
        if (!isfinite(d))
            return sl_error_set(err, SL_ERR_NUMERIC_RANGE, -1,
                                "MariaDB cannot store the %s value %s",
                                v->type.id == SL_TYPE_FLOAT ? "FLOAT" : "DOUBLE",
                                isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        sl_value_format(sb, v, r); /* 1.0E10 reads back as the same double */
        return 0;
    }
    case SL_TYPE_DECIMAL: sl_value_format(sb, v, r); return 0;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: {
        static const char hex[] = "0123456789abcdef";
        const sl_str *s = &v->v.str[r];
        sl_strbuf_reserve(sb, 3 + 2 * (size_t)s->len);
        sl_strbuf_append(sb, "X'");
        for (uint32_t i = 0; i < s->len; i++) {
            unsigned char b = (unsigned char)s->ptr[i];
            sl_strbuf_append_char(sb, hex[b >> 4]);
            sl_strbuf_append_char(sb, hex[b & 15]);
        }
        sl_strbuf_append_char(sb, '\'');
        return 0;
    }
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR: {
        const sl_str *s = &v->v.str[r];
        sl_strbuf_reserve(sb, (size_t)s->len + 2);
        sl_strbuf_append_char(sb, '\'');
        size_t start = 0;
        for (size_t i = 0; i < s->len; i++)
            if (s->ptr[i] == '\'') {
                sl_strbuf_append_n(sb, s->ptr + start, i + 1 - start);
                sl_strbuf_append_char(sb, '\'');
                start = i + 1;
            }
        sl_strbuf_append_n(sb, s->ptr + start, s->len - start);
        sl_strbuf_append_char(sb, '\'');
        return 0;
    }
    default: { /* DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ (UTC: the session's zone) */
        sl_strbuf_append_char(sb, '\'');
        sl_value_format(sb, v, r);
        sl_strbuf_append_char(sb, '\'');
        return 0;
    }
    }
}
