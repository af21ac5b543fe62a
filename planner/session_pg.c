/*
** session_pg.c — PostgreSQL's session state, as the wire server's clients
** see it: the parameters (SET / SHOW / RESET name, the startup packet's
** values, ParameterStatus for the reported ones), transaction blocks
** (BEGIN / COMMIT / ROLLBACK / SAVEPOINT) and DISCARD.
**
** Parameters. The table below lists every PostgreSQL parameter Sluice
** knows; names are case-insensitive, an unknown one is 42704
** `unrecognized configuration parameter "x"`. Values live in pg_params
** (SET), pg_start (the startup packet's: what RESET returns to) and the
** table's defaults; TimeZone is Flink's 'table.local-time-zone' under its
** PostgreSQL name (one setting, two names). Sluice writes dates only in
** the ISO style, intervals only in the postgres style and text only in
** UTF8: DateStyle, IntervalStyle and client_encoding refuse anything else
** (22023; client_encoding SQL_ASCII, no conversion, is what Sluice does).
** sluice.result_format is Sluice's own: 'postgres' (the default) has the
** wire server send result values in PostgreSQL's text forms, 'engine' in
** the engine's (CAST(x AS STRING)), which the sluice shell asks for at
** connect so that it prints what the local shell prints; the engine itself
** ignores it. statement_timeout is accepted and not enforced (a NOTICE says
** so); transaction_isolation is always 'read committed' (each statement
** sees the catalog and data as they are when it runs).
**
** Transaction blocks. Sluice statements are not transactional: BEGIN opens
** a block for the client's bookkeeping ('T'); a statement that fails in it
** makes it 'E', where every statement but COMMIT / ROLLBACK / ROLLBACK TO
** fails with 25P02; COMMIT of a failed block reports ROLLBACK. What a
** statement did (DDL, INSERT's job, STOP JOB) stays done: ROLLBACK only
** restores the session's settings (SET inside the block, as PostgreSQL)
** and says in a WARNING which statements it could not undo. SET LOCAL
** lasts until the block ends. Isolation levels and READ ONLY are accepted
** and change nothing.
**
**   state  statement                    result
**   I      BEGIN / START TRANSACTION    T (settings remembered)
**   I      COMMIT / ROLLBACK            WARNING 25P01, stays I
**   I      SAVEPOINT / RELEASE / ROLLBACK TO   25P01 error
**   T      BEGIN                        WARNING 25001, stays T
**   T      any statement that fails     E
**   T      COMMIT                       I (SET LOCAL undone)
**   T/E    ROLLBACK                     I (settings restored, WARNING for effects)
**   E      COMMIT                       I, tag ROLLBACK (as ROLLBACK)
**   E      ROLLBACK TO x                T (x kept)
**   E      anything else                25P02, stays E
**
** Main routines: sl_session_param, sl_session_on_param, sl_session_set_param,
** sl_session_txn_status, sl__pg_stmt, sl__txn_check, sl__txn_done.
*/
#include "session_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SL__PG_REPORT 1u  /* sent as ParameterStatus when it changes */
#define SL__PG_FIXED 2u   /* SET refuses it (55P02); the startup packet may give it */
#define SL__PG_HIDDEN 4u  /* not in SHOW ALL */
#define SL__PG_CONST 8u   /* nobody sets it */

typedef struct sl__pgparam sl__pgparam;
/* Check value for p: 0 with the canonical form in canon, or -1 with err at pos. */
typedef int (*sl__pgcheck)(sl_session *s, const sl__pgparam *p, const char *value,
                           sl_strbuf *canon, int pos, sl_error *err);

struct sl__pgparam {
    const char *name;    /* as PostgreSQL spells it (SHOW's column) */
    const char *dflt;    /* value when neither SET nor given at startup */
    unsigned flags;      /* SL__PG_* */
    sl__pgcheck check;   /* NULL: any text */
    const char *desc;    /* SHOW ALL's description */
};

#define SL__TZ_KEY "table.local-time-zone"

static int sl__chk_encoding(sl_session *, const sl__pgparam *, const char *, sl_strbuf *, int,
                            sl_error *);
static int sl__chk_datestyle(sl_session *, const sl__pgparam *, const char *, sl_strbuf *, int,
                             sl_error *);
static int sl__chk_only(sl_session *, const sl__pgparam *, const char *, sl_strbuf *, int,
                        sl_error *);
static int sl__chk_on(sl_session *, const sl__pgparam *, const char *, sl_strbuf *, int,
                      sl_error *);
static int sl__chk_float_digits(sl_session *, const sl__pgparam *, const char *, sl_strbuf *,
                                int, sl_error *);
static int sl__chk_timeout(sl_session *, const sl__pgparam *, const char *, sl_strbuf *, int,
                           sl_error *);
static int sl__chk_isolation(sl_session *, const sl__pgparam *, const char *, sl_strbuf *, int,
                             sl_error *);
static int sl__chk_bool(sl_session *, const sl__pgparam *, const char *, sl_strbuf *, int,
                        sl_error *);
static int sl__chk_result_format(sl_session *, const sl__pgparam *, const char *, sl_strbuf *,
                                 int, sl_error *);

static const sl__pgparam sl__pgparams[] = {
    {"application_name", "", SL__PG_REPORT, NULL, "Sets the application name to be reported."},
    {"bytea_output", "hex", 0, sl__chk_only, "Sets the output format for bytea (hex only)."},
    {"client_encoding", "UTF8", SL__PG_REPORT, sl__chk_encoding,
     "Sets the client's character set encoding (UTF8 only)."},
    {"client_min_messages", "notice", 0, NULL, "Sets the message levels that are sent to the client."},
    {"DateStyle", "ISO, MDY", SL__PG_REPORT, sl__chk_datestyle,
     "Sets the display format for date and time values (ISO only)."},
    {"default_transaction_isolation", "read committed", 0, sl__chk_isolation,
     "Accepted; Sluice statements are not transactional."},
    {"default_transaction_read_only", "off", SL__PG_REPORT, sl__chk_bool,
     "Accepted; Sluice statements are not transactional."},
    {"extra_float_digits", "1", 0, sl__chk_float_digits,
     "Sets the number of digits displayed for floating-point values."},
    {"in_hot_standby", "off", SL__PG_REPORT | SL__PG_FIXED | SL__PG_CONST, NULL,
     "Shows whether hot standby is currently active."},
    {"integer_datetimes", "on", SL__PG_REPORT | SL__PG_FIXED | SL__PG_CONST, NULL,
     "Shows whether datetimes are integer based."},
    {"IntervalStyle", "postgres", SL__PG_REPORT, sl__chk_only,
     "Sets the display format for interval values (postgres only)."},
    {"is_superuser", "on", SL__PG_REPORT | SL__PG_FIXED, NULL,
     "Shows whether the current user is a superuser."},
    {"lc_messages", "C", 0, NULL, "Sets the language in which messages are displayed."},
    {"max_identifier_length", "63", SL__PG_FIXED | SL__PG_CONST, NULL,
     "Shows the maximum identifier length."},
    {"search_path", "\"$user\", public", 0, NULL, "Sets the schema search order for names."},
    {"server_encoding", "UTF8", SL__PG_REPORT | SL__PG_FIXED | SL__PG_CONST, NULL,
     "Shows the server (database) character set encoding."},
    {"server_version", "15.0 (Sluice " SLUICE_VERSION ")", SL__PG_REPORT | SL__PG_FIXED | SL__PG_CONST,
     NULL, "Shows the server version."},
    {"server_version_num", "150000", SL__PG_FIXED | SL__PG_CONST, NULL,
     "Shows the server version as an integer."},
    {"session_authorization", "sluice", SL__PG_REPORT | SL__PG_FIXED, NULL,
     "Shows the session user name."},
    {"session_backend_pid", NULL, SL__PG_FIXED | SL__PG_HIDDEN, NULL,
     "pg_backend_pid(): the connection's process id, as the server's BackendKeyData gives it."},
    {"session_database", "sluice", SL__PG_FIXED | SL__PG_HIDDEN, NULL,
     "current_database(): the database name the client connected to."},
    {"sluice.result_format", "postgres", 0, sl__chk_result_format,
     "Sets the text form of result values: postgres (PostgreSQL's) or engine (Sluice's)."},
    {"standard_conforming_strings", "on", SL__PG_REPORT, sl__chk_on,
     "Causes '...' strings to treat backslashes literally (on only)."},
    {"statement_timeout", "0", 0, sl__chk_timeout,
     "Accepted and not enforced by Sluice."},
    {"TimeZone", NULL, SL__PG_REPORT, NULL,
     "Sets the time zone for displaying and interpreting time stamps ('table.local-time-zone')."},
    {"transaction_isolation", "read committed", 0, sl__chk_isolation,
     "Accepted; each Sluice statement sees the catalog as it is when it runs."},
    {"transaction_read_only", "off", 0, sl__chk_bool,
     "Accepted; Sluice statements are not transactional."},
};

/* ------------------------------------------------------------------------
** The table
*/

static const sl__pgparam *sl__pgparam_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__pgparams); i++)
        if (sl_strcasecmp(sl__pgparams[i].name, name) == 0)
            return &sl__pgparams[i];
    return NULL;
}

static int sl__unknown(const char *name, int pos, sl_error *err)
{
    return sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, pos,
                        "unrecognized configuration parameter \"%s\"", name);
}

static int sl__invalid(const sl__pgparam *p, const char *value, int pos, sl_error *err,
                       const char *detail)
{
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "invalid value for parameter \"%s\": \"%s\"",
                 p->name, value);
    if (detail)
        sl_error_detail(err, "%s", detail);
    return -1;
}

/* The session's zone: 'table.local-time-zone', opened once per value. */
const sl_tz *sl__pg_tz(sl_session *s, sl_error *err)
{
    const char *key = sl__setting(s, SL__TZ_KEY);
    if (s->pg_tz && s->pg_tz_key && strcmp(s->pg_tz_key, key) == 0)
        return s->pg_tz;
    sl_tz *tz = NULL;
    if (sl_tz_open(key, &tz, err) != 0)
        return NULL;
    sl_tz_free(s->pg_tz);
    sl_free(s->pg_tz_key);
    s->pg_tz = tz;
    s->pg_tz_key = sl_strdup(key);
    return tz;
}

/* Current value of p (never NULL). */
static const char *sl__pg_value(sl_session *s, const sl__pgparam *p)
{
    if (strcmp(p->name, "TimeZone") == 0) {
        sl_error ignored = SL_ERROR_INIT;
        const sl_tz *tz = sl__pg_tz(s, &ignored);
        sl_error_reset(&ignored);
        return tz ? sl_tz_name(tz) : sl__setting(s, SL__TZ_KEY);
    }
    if (strcmp(p->name, "session_backend_pid") == 0 && !sl_kvlist_get(s->pg_start, p->name)) {
        char pid[24];
        snprintf(pid, sizeof pid, "%ld", (long)getpid());
        if (!s->pg_start)
            s->pg_start = sl_kvlist_new();
        sl_kvlist_set(s->pg_start, p->name, pid, -1, -1);
    }
    const char *v = s->pg_params ? sl_kvlist_get(s->pg_params, p->name) : NULL;
    if (!v && s->pg_start)
        v = sl_kvlist_get(s->pg_start, p->name);
    return v ? v : p->dflt ? p->dflt : "";
}

/* Tell the server that a reported parameter changed (old: its value before). */
static void sl__pg_report(sl_session *s, const sl__pgparam *p, const char *old)
{
    if (!(p->flags & SL__PG_REPORT) || !s->on_param)
        return;
    const char *now = sl__pg_value(s, p);
    if (!old || strcmp(old, now) != 0)
        s->on_param(s->on_param_ctx, p->name, now);
}

/* Values of every reported parameter (to compare after a bulk change). */
static sl_kvlist *sl__pg_reported(sl_session *s)
{
    sl_kvlist *l = sl_kvlist_new();
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__pgparams); i++)
        if (sl__pgparams[i].flags & SL__PG_REPORT)
            sl_kvlist_set(l, sl__pgparams[i].name, sl__pg_value(s, &sl__pgparams[i]), -1, -1);
    return l;
}

static void sl__pg_report_all(sl_session *s, sl_kvlist *before)
{
    for (int i = 0; i < before->n; i++)
        sl__pg_report(s, sl__pgparam_find(before->items[i].key), before->items[i].value);
    sl_kvlist_free(before);
}

/* ------------------------------------------------------------------------
** Checks
*/

static int sl__chk_encoding(sl_session *s, const sl__pgparam *p, const char *v, sl_strbuf *canon,
                            int pos, sl_error *err)
{
    if (sl_strcasecmp(v, "UTF8") == 0 || sl_strcasecmp(v, "UTF-8") == 0 ||
        sl_strcasecmp(v, "UNICODE") == 0) {
        sl_strbuf_append(canon, "UTF8");
        return 0;
    }
    /* SQL_ASCII: bytes as they are, no conversion (libpq's 'auto' in the C locale) */
    if (sl_strcasecmp(v, "SQL_ASCII") == 0) {
        sl_strbuf_append(canon, "SQL_ASCII");
        return 0;
    }
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos,
                 "conversion between %s and UTF8 is not supported", v);
    sl_error_hint(err, "Sluice sends and reads text only as UTF8.");
    return -1;
}

/* DateStyle: an output style (ISO only) and a field order, in any order. */
static int sl__chk_datestyle(sl_session *s, const sl__pgparam *p, const char *v, sl_strbuf *canon,
                             int pos, sl_error *err)
{
    const char *cur = sl__pg_value(s, p);
    const char *order = strstr(cur, "DMY") ? "DMY" : strstr(cur, "YMD") ? "YMD" : "MDY";
    char *copy = sl_strdup(v);
    int rc = 0;
    for (char *save = NULL, *w = strtok_r(copy, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
        if (sl_strcasecmp(w, "ISO") == 0 || sl_strcasecmp(w, "DEFAULT") == 0)
            continue;
        if (sl_strcasecmp(w, "MDY") == 0 || sl_strcasecmp(w, "US") == 0 ||
            sl_strcasecmp(w, "NONEUROPEAN") == 0)
            order = "MDY";
        else if (sl_strcasecmp(w, "DMY") == 0 || sl_strcasecmp(w, "EUROPEAN") == 0 ||
                 sl_strcasecmp(w, "EURO") == 0)
            order = "DMY";
        else if (sl_strcasecmp(w, "YMD") == 0)
            order = "YMD";
        else if (sl_strcasecmp(w, "SQL") == 0 || sl_strcasecmp(w, "POSTGRES") == 0 ||
                 sl_strcasecmp(w, "GERMAN") == 0)
            rc = sl__invalid(p, v, pos, err, "Sluice writes dates only in the ISO style.");
        else
            rc = sl__invalid(p, v, pos, err, "Unrecognized key word.");
        if (rc)
            break;
    }
    sl_free(copy);
    if (rc == 0)
        sl_strbuf_appendf(canon, "ISO, %s", order);
    return rc;
}

/* A parameter that has one value (its default), in any case. */
static int sl__chk_only(sl_session *s, const sl__pgparam *p, const char *v, sl_strbuf *canon,
                        int pos, sl_error *err)
{
    if (sl_strcasecmp(v, p->dflt) != 0) {
        sl__invalid(p, v, pos, err, NULL);
        sl_error_detail(err, "Sluice supports only %s = '%s'.", p->name, p->dflt);
        return -1;
    }
    sl_strbuf_append(canon, p->dflt);
    return 0;
}

static int sl__bool_of(const char *v)
{
    static const char *const on[] = {"on", "true", "yes", "1", "t", "y"};
    static const char *const off[] = {"off", "false", "no", "0", "f", "n"};
    for (size_t i = 0; i < SL_ARRAY_LEN(on); i++) {
        if (sl_strcasecmp(v, on[i]) == 0)
            return 1;
        if (sl_strcasecmp(v, off[i]) == 0)
            return 0;
    }
    return -1;
}

static int sl__chk_bool(sl_session *s, const sl__pgparam *p, const char *v, sl_strbuf *canon,
                        int pos, sl_error *err)
{
    int b = sl__bool_of(v);
    if (b < 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "parameter \"%s\" requires a Boolean value",
                     p->name);
        return -1;
    }
    sl_strbuf_append(canon, b ? "on" : "off");
    return 0;
}

static int sl__chk_on(sl_session *s, const sl__pgparam *p, const char *v, sl_strbuf *canon,
                      int pos, sl_error *err)
{
    if (sl__chk_bool(s, p, v, canon, pos, err) != 0)
        return -1;
    if (strcmp(canon->buf, "on") != 0) {
        sl__invalid(p, v, pos, err, NULL);
        sl_error_detail(err, "Sluice supports only %s = on.", p->name);
        return -1;
    }
    return 0;
}

static int sl__chk_float_digits(sl_session *s, const sl__pgparam *p, const char *v,
                                sl_strbuf *canon, int pos, sl_error *err)
{
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (!*v || *end) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos,
                     "invalid value for parameter \"%s\": \"%s\"", p->name, v);
        return -1;
    }
    if (n < -15 || n > 3)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos,
                            "%ld is outside the valid range for parameter \"%s\" (-15 .. 3)", n,
                            p->name);
    sl_strbuf_appendf(canon, "%ld", n);
    return 0;
}

/* sluice.result_format: postgres or engine (what the sluice shell asks for). */
static int sl__chk_result_format(sl_session *s, const sl__pgparam *p, const char *v,
                                 sl_strbuf *canon, int pos, sl_error *err)
{
    if (sl_strcasecmp(v, "postgres") == 0 || sl_strcasecmp(v, "engine") == 0) {
        sl_strbuf_append(canon, sl_strcasecmp(v, "engine") == 0 ? "engine" : "postgres");
        return 0;
    }
    return sl__invalid(p, v, pos, err, "Available values: postgres, engine.");
}

/* statement_timeout: milliseconds, or a number with a unit (ms, s, min, h, d). */
static int sl__chk_timeout(sl_session *s, const sl__pgparam *p, const char *v, sl_strbuf *canon,
                           int pos, sl_error *err)
{
    static const struct { const char *unit; long long ms; } units[] = {
        {"", 1}, {"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000}, {"d", 86400000}};
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    while (end && *end == ' ')
        end++;
    for (size_t i = 0; *v && end && i < SL_ARRAY_LEN(units); i++) {
        if (strcmp(end, units[i].unit) == 0 && n >= 0 && n <= INT32_MAX / units[i].ms) {
            sl_strbuf_appendf(canon, "%lld", n * units[i].ms);
            return 0;
        }
    }
    return sl__invalid(p, v, pos, err, "Give milliseconds, or a number with ms, s, min, h or d.");
}

static int sl__chk_isolation(sl_session *s, const sl__pgparam *p, const char *v, sl_strbuf *canon,
                             int pos, sl_error *err)
{
    static const char *const levels[] = {"serializable", "repeatable read", "read committed",
                                         "read uncommitted", "default"};
    for (size_t i = 0; i < SL_ARRAY_LEN(levels); i++)
        if (sl_strcasecmp(v, levels[i]) == 0) {
            sl_strbuf_append(canon, "read committed");
            return 0;
        }
    return sl__invalid(p, v, pos, err, "Available values: serializable, repeatable read, read "
                                       "committed, read uncommitted.");
}

/* ------------------------------------------------------------------------
** Setting a parameter
*/

/* Remember name's value before a SET LOCAL of it ("" when unset). */
static void sl__remember_local(sl_session *s, const sl__pgparam *p)
{
    if (!s->blk_local)
        s->blk_local = sl_kvlist_new();
    if (sl_kvlist_find(s->blk_local, p->name))
        return;
    const char *v = strcmp(p->name, "TimeZone") == 0 ? sl__setting_set(s, SL__TZ_KEY)
                                                     : sl_kvlist_get(s->pg_params, p->name);
    sl_kvlist_set(s->blk_local, p->name, v ? v : "", -1, -1);
}

/* Store value (NULL: back to the session default) as p's; checks first.
** startup: the startup packet's value (becomes the default). */
static int sl__pg_store(sl_session *s, const sl__pgparam *p, const char *value, bool startup,
                        int pos, sl_error *err)
{
    if (strcmp(p->name, "TimeZone") == 0) {
        const char *zone = value ? value : sl_kvlist_get(s->pg_start, p->name);
        if (zone && sl_config_check(SL__TZ_KEY, zone, pos, pos, err) != 0)
            return -1;
        if (startup) {
            if (!s->pg_start)
                s->pg_start = sl_kvlist_new();
            sl_kvlist_set(s->pg_start, p->name, zone, -1, -1);
        }
        if (zone)
            sl_kvlist_set(s->config, SL__TZ_KEY, zone, -1, -1);
        else
            sl_kvlist_remove(s->config, SL__TZ_KEY);
        return 0;
    }
    sl_strbuf canon = SL_STRBUF_INIT;
    if (value && p->check && p->check(s, p, value, &canon, pos, err) != 0) {
        sl_strbuf_free(&canon);
        return -1;
    }
    if (value && !p->check)
        sl_strbuf_append(&canon, value);
    if (!s->pg_params)
        s->pg_params = sl_kvlist_new();
    if (startup) {
        if (!s->pg_start)
            s->pg_start = sl_kvlist_new();
        sl_kvlist_set(s->pg_start, p->name, canon.buf ? canon.buf : "", -1, -1);
        sl_kvlist_remove(s->pg_params, p->name);
    } else if (value) {
        sl_kvlist_set(s->pg_params, p->name, canon.buf ? canon.buf : "", -1, -1);
    } else {
        sl_kvlist_remove(s->pg_params, p->name);
    }
    sl_strbuf_free(&canon);
    return 0;
}

int sl__pg_set_value(sl_session *s, const char *name, const char *value, bool local, int name_pos,
                     int value_pos, const sl_result_sink *out, sl_error *err)
{
    const sl__pgparam *p = sl__pgparam_find(name);
    if (!p || (p->flags & SL__PG_HIDDEN))
        return sl__unknown(name, name_pos, err);
    if (p->flags & SL__PG_FIXED)
        return sl_error_set(err, SL_ERR_CANT_CHANGE_RUNTIME, name_pos,
                            "parameter \"%s\" cannot be changed", p->name);
    if (local && sl_session_txn_status(s) == 'I') {
        sl__notice(out, SL_SEV_WARNING, "SET LOCAL can only be used in transaction blocks");
        return 0;
    }
    char *old = sl_strdup(sl__pg_value(s, p));
    if (local)
        sl__remember_local(s, p);
    int rc = sl__pg_store(s, p, value, false, value_pos, err);
    if (rc == 0) {
        sl__pg_report(s, p, old);
        if (strcmp(p->name, "statement_timeout") == 0 && strcmp(sl__pg_value(s, p), "0") != 0)
            sl__notice(out, SL_SEV_NOTICE, "statement_timeout is not enforced by Sluice");
    }
    sl_free(old);
    return rc;
}

const char *sl__pg_show_value(sl_session *s, const char *name, int pos, sl_error *err)
{
    const sl__pgparam *p = sl__pgparam_find(name);
    if (!p) {
        sl__unknown(name, pos, err);
        return NULL;
    }
    return sl__pg_value(s, p);
}

/* ------------------------------------------------------------------------
** The API
*/

const char *sl_session_param(sl_session *s, const char *name)
{
    const sl__pgparam *p = sl__pgparam_find(name);
    return p ? sl__pg_value(s, p) : NULL;
}

void sl_session_on_param(sl_session *s, sl_session_param_fn fn, void *ctx)
{
    s->on_param = fn;
    s->on_param_ctx = ctx;
}

/* The startup packet's options: "-c name=value" / "--name=value" words
** separated by spaces (a backslash keeps the next byte: "a\ b"). */
static int sl__set_options(sl_session *s, const char *opts, sl_error *err)
{
    sl_list *words = sl_list_new();
    sl_strbuf w = SL_STRBUF_INIT;
    for (const char *p = opts;; p++) {
        if (*p == '\\' && p[1]) {
            sl_strbuf_append_char(&w, *++p);
            continue;
        }
        if (*p && *p != ' ' && *p != '\t') {
            sl_strbuf_append_char(&w, *p);
            continue;
        }
        if (w.len)
            sl_list_push(words, sl_strbuf_detach(&w));
        if (!*p)
            break;
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < words->n; i++) {
        char *word = words->items[i];
        const char *kv = NULL;
        if (strcmp(word, "-c") == 0 && i + 1 < words->n)
            kv = words->items[++i];
        else if (strncmp(word, "-c", 2) == 0 && word[2])
            kv = word + 2;
        else if (strncmp(word, "--", 2) == 0)
            kv = word + 2;
        const char *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq || eq == kv) {
            rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                              "invalid command-line argument for server process: %s", word);
            sl_error_hint(err, "Give settings as -c name=value.");
            break;
        }
        char *name = sl_strndup(kv, (size_t)(eq - kv));
        for (char *c = name; *c; c++)
            if (*c == '-')
                *c = '_';
        rc = sl_session_set_param(s, name, eq + 1, err);
        sl_free(name);
    }
    sl_strbuf_free(&w);
    sl_list_free(words, sl_free);
    return rc;
}

int sl_session_set_param(sl_session *s, const char *name, const char *value, sl_error *err)
{
    if (strcmp(name, "options") == 0)
        return sl__set_options(s, value, err);
    if (strcmp(name, "user") == 0)
        name = "session_authorization";
    else if (strcmp(name, "database") == 0)
        name = "session_database";
    const sl__pgparam *p = sl__pgparam_find(name);
    if (!p)
        return sl__unknown(name, -1, err);
    if (p->flags & SL__PG_CONST)
        return sl_error_set(err, SL_ERR_CANT_CHANGE_RUNTIME, -1,
                            "parameter \"%s\" cannot be changed", p->name);
    char *old = sl_strdup(sl__pg_value(s, p));
    int rc = sl__pg_store(s, p, value, true, -1, err);
    if (rc == 0)
        sl__pg_report(s, p, old);
    sl_free(old);
    return rc;
}

char sl_session_txn_status(sl_session *s)
{
    return s->txn_status ? s->txn_status : 'I';
}

void sl__pg_free(sl_session *s)
{
    sl_kvlist_free(s->pg_start);
    sl_kvlist_free(s->blk_config);
    sl_kvlist_free(s->blk_params);
    sl_kvlist_free(s->blk_local);
    sl_list_free(s->blk_effects, sl_free);
    sl_list_free(s->blk_savepoints, sl_free);
    sl_tz_free(s->pg_tz);
    sl_free(s->pg_tz_key);
}

/* ------------------------------------------------------------------------
** SET / SHOW / RESET
*/

static int sl__pg_set(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    /* SET [SESSION CHARACTERISTICS AS] TRANSACTION ...: accepted, no effect. */
    if (st->name && sl__pg_set_value(s, st->name, st->value, st->local, st->name_pos,
                                     st->value_pos, out, err) != 0)
        return -1;
    sl__result_complete(out, "SET");
    return 0;
}

static int sl__pg_show(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    sl__table_out t;
    if (!st->name) {
        const char *names[] = {"name", "setting", "description"};
        sl__result_begin(&t, out, 3, names);
        for (size_t i = 0; i < SL_ARRAY_LEN(sl__pgparams); i++) {
            const sl__pgparam *p = &sl__pgparams[i];
            if (p->flags & SL__PG_HIDDEN)
                continue;
            const char *vals[] = {p->name, sl__pg_value(s, p), p->desc};
            sl__result_row(&t, vals);
        }
        sl__result_complete(out, "SHOW");
        return 0;
    }
    const sl__pgparam *p = sl__pgparam_find(st->name);
    if (!p)
        return sl__unknown(st->name, st->name_pos, err);
    const char *names[] = {p->name};
    sl__result_begin(&t, out, 1, names);
    const char *vals[] = {sl__pg_value(s, p)};
    sl__result_row(&t, vals);
    sl__result_complete(out, "SHOW");
    return 0;
}

/* RESET ALL / DISCARD ALL: every parameter back to the session's default. */
static void sl__pg_reset_all(sl_session *s)
{
    sl_kvlist *before = sl__pg_reported(s);
    sl_kvlist_free(s->pg_params);
    s->pg_params = NULL;
    const char *zone = sl_kvlist_get(s->pg_start, "TimeZone");
    if (zone)
        sl_kvlist_set(s->config, SL__TZ_KEY, zone, -1, -1);
    else
        sl_kvlist_remove(s->config, SL__TZ_KEY);
    sl__pg_report_all(s, before);
}

static int sl__pg_reset(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    if (!st->name)
        sl__pg_reset_all(s);
    else if (sl__pg_set_value(s, st->name, NULL, false, st->name_pos, st->name_pos, out, err) != 0)
        return -1;
    sl__result_complete(out, "RESET");
    return 0;
}

/* ------------------------------------------------------------------------
** Transaction blocks
*/

static void sl__blk_end(sl_session *s, bool rollback)
{
    sl_kvlist *before = sl__pg_reported(s);
    if (rollback && s->blk_config) {
        sl_kvlist_free(s->config);
        s->config = s->blk_config;
        s->blk_config = NULL;
        sl_kvlist_free(s->pg_params);
        s->pg_params = s->blk_params;
        s->blk_params = NULL;
    } else {
        for (int i = 0; s->blk_local && i < s->blk_local->n; i++) {
            const sl_kv *kv = &s->blk_local->items[i];
            const char *v = kv->value[0] ? kv->value : NULL;
            if (strcmp(kv->key, "TimeZone") == 0) {
                if (v)
                    sl_kvlist_set(s->config, SL__TZ_KEY, v, -1, -1);
                else
                    sl_kvlist_remove(s->config, SL__TZ_KEY);
            } else if (v) {
                sl_kvlist_set(s->pg_params, kv->key, v, -1, -1);
            } else if (s->pg_params) {
                sl_kvlist_remove(s->pg_params, kv->key);
            }
        }
    }
    sl_kvlist_free(s->blk_config);
    sl_kvlist_free(s->blk_params);
    sl_kvlist_free(s->blk_local);
    s->blk_config = s->blk_params = s->blk_local = NULL;
    sl_list_free(s->blk_savepoints, sl_free);
    s->blk_savepoints = NULL;
    s->txn_status = 'I';
    sl__pg_report_all(s, before);
}

/* WARNING: what the statements of the block did stays done. */
static void sl__effects_warning(sl_session *s, const char *what, const sl_result_sink *out)
{
    int n = sl_list_len(s->blk_effects);
    if (n > 0 && out && out->notice) {
        sl_strbuf list = SL_STRBUF_INIT;
        for (int i = 0; i < n; i++) {
            if (i)
                sl_strbuf_append(&list, ", ");
            sl_strbuf_append(&list, sl_list_get(s->blk_effects, i));
        }
        sl_error w = SL_ERROR_INIT;
        w.severity = SL_SEV_WARNING;
        snprintf(w.sqlstate, sizeof w.sqlstate, "%s", SL_ERR_WARNING);
        w.message = sl_sprintf("%s could not undo %d statement%s: %s", what, n, n == 1 ? "" : "s",
                               list.buf);
        w.detail = sl_strdup("Sluice statements are not transactional: each took effect when it "
                             "ran.");
        out->notice(out->ctx, &w);
        sl_error_reset(&w);
        sl_strbuf_free(&list);
    }
    sl_list_free(s->blk_effects, sl_free);
    s->blk_effects = NULL;
}

static int sl__savepoint_index(sl_session *s, const char *name)
{
    for (int i = sl_list_len(s->blk_savepoints) - 1; i >= 0; i--)
        if (strcmp(sl_list_get(s->blk_savepoints, i), name) == 0)
            return i;
    return -1;
}

static int sl__txn(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    static const char *const verbs[] = {"BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK",
                                        "SAVEPOINT", "RELEASE", "ROLLBACK", "COMMIT"};
    bool in_block = s->txn_status == 'T' || s->txn_status == 'E';
    const char *tag = verbs[st->sub];
    switch (st->sub) {
    case SL_TXN_BEGIN:
    case SL_TXN_START:
        if (in_block) {
            sl_error w = SL_ERROR_INIT;
            w.severity = SL_SEV_WARNING;
            snprintf(w.sqlstate, sizeof w.sqlstate, "25001");
            w.message = sl_strdup("there is already a transaction in progress");
            if (out && out->notice)
                out->notice(out->ctx, &w);
            sl_error_reset(&w);
            break;
        }
        s->txn_status = 'T';
        s->blk_config = sl_kvlist_dup(s->config);
        s->blk_params = s->pg_params ? sl_kvlist_dup(s->pg_params) : NULL;
        break;
    case SL_TXN_COMMIT:
    case SL_TXN_END:
    case SL_TXN_ROLLBACK:
        if (!in_block) {
            sl_error w = SL_ERROR_INIT;
            w.severity = SL_SEV_WARNING;
            snprintf(w.sqlstate, sizeof w.sqlstate, "25P01");
            w.message = sl_strdup("there is no transaction in progress");
            if (out && out->notice)
                out->notice(out->ctx, &w);
            sl_error_reset(&w);
            break;
        }
        if (st->sub != SL_TXN_ROLLBACK && s->txn_status == 'E')
            tag = "ROLLBACK";
        if (strcmp(tag, "ROLLBACK") == 0)
            sl__effects_warning(s, "ROLLBACK", out);
        sl_list_free(s->blk_effects, sl_free);
        s->blk_effects = NULL;
        sl__blk_end(s, strcmp(tag, "ROLLBACK") == 0);
        break;
    case SL_TXN_SAVEPOINT:
    case SL_TXN_RELEASE:
    case SL_TXN_ROLLBACK_TO: {
        if (!in_block)
            return sl_error_set(err, "25P01", st->pos, "%s can only be used in transaction blocks",
                                st->sub == SL_TXN_SAVEPOINT ? "SAVEPOINT"
                                : st->sub == SL_TXN_RELEASE ? "RELEASE SAVEPOINT"
                                                            : "ROLLBACK TO SAVEPOINT");
        if (st->sub == SL_TXN_SAVEPOINT) {
            if (!s->blk_savepoints)
                s->blk_savepoints = sl_list_new();
            sl_list_push(s->blk_savepoints, sl_strdup(st->name));
            break;
        }
        int i = sl__savepoint_index(s, st->name);
        if (i < 0)
            return sl_error_set(err, "3B001", st->name_pos, "savepoint \"%s\" does not exist",
                                st->name);
        /* RELEASE drops x and later ones; ROLLBACK TO keeps x */
        int keep = st->sub == SL_TXN_RELEASE ? i : i + 1;
        while (s->blk_savepoints->n > keep)
            sl_free(s->blk_savepoints->items[--s->blk_savepoints->n]);
        if (st->sub == SL_TXN_ROLLBACK_TO) {
            sl__effects_warning(s, "ROLLBACK TO SAVEPOINT", out);
            s->txn_status = 'T';
        }
        break;
    }
    default: return sl_error_set(err, SL_ERR_INTERNAL, st->pos, "unknown transaction statement");
    }
    sl__result_complete(out, tag);
    return 0;
}

/* Statements that take effect when they run, for ROLLBACK's warning. */
static char *sl__effect_of(const sl_stmt *st)
{
    switch (st->kind) {
    case SL_STMT_CREATE_TABLE: return sl_sprintf("CREATE TABLE %s", st->name);
    case SL_STMT_DROP_TABLE: return sl_sprintf("DROP TABLE %s", st->name);
    case SL_STMT_ALTER_SET:
    case SL_STMT_ALTER_RESET: return sl_sprintf("ALTER TABLE %s", st->name);
    case SL_STMT_CREATE_VIEW: return sl_sprintf("CREATE VIEW %s", st->name);
    case SL_STMT_DROP_VIEW: return sl_sprintf("DROP VIEW %s", st->name);
    case SL_STMT_INSERT: return sl_sprintf("INSERT INTO %s", st->name);
    case SL_STMT_STATEMENT_SET: return sl_strdup("EXECUTE STATEMENT SET");
    case SL_STMT_STOP_JOB: return sl_sprintf("STOP JOB '%s'", st->name);
    default: return NULL;
    }
}

int sl__txn_check(sl_session *s, const sl_stmt *st, sl_error *err)
{
    if (s->txn_status != 'E')
        return 0;
    if (st && st->kind == SL_STMT_TXN &&
        (st->sub == SL_TXN_COMMIT || st->sub == SL_TXN_END || st->sub == SL_TXN_ROLLBACK ||
         st->sub == SL_TXN_ROLLBACK_TO))
        return 0;
    return sl_error_set(err, "25P02", -1, "current transaction is aborted, commands ignored until "
                                          "end of transaction block");
}

void sl__txn_done(sl_session *s, const sl_stmt *st, int rc)
{
    if (s->txn_status != 'T')
        return;
    if (rc != 0) {
        s->txn_status = 'E';
        return;
    }
    char *e = st ? sl__effect_of(st) : NULL;
    if (e) {
        if (!s->blk_effects)
            s->blk_effects = sl_list_new();
        sl_list_push(s->blk_effects, e);
    }
}

/* ------------------------------------------------------------------------
** DISCARD
*/

static int sl__discard(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    static const char *const tags[] = {"DISCARD ALL", "DISCARD PLANS", "DISCARD SEQUENCES",
                                       "DISCARD TEMP"};
    if (st->sub == SL_DISCARD_ALL) {
        if (sl_session_txn_status(s) != 'I')
            return sl_error_set(err, "25001", st->pos,
                                "DISCARD ALL cannot run inside a transaction block");
        sl_list_free(s->cursors, sl__cursor_free_v);
        s->cursors = NULL;
        sl_kvlist *zone = sl_kvlist_new(); /* the session default of TimeZone survives */
        const char *z = sl_kvlist_get(s->pg_start, "TimeZone");
        sl_kvlist_free(s->config);
        s->config = zone;
        if (z)
            sl_kvlist_set(s->config, SL__TZ_KEY, z, -1, -1);
        sl__pg_reset_all(s);
    }
    if (st->sub == SL_DISCARD_ALL || st->sub == SL_DISCARD_TEMP) {
        for (int i = 0; i < sl_list_len(s->tviews); i++)
            sl_view_free(sl_list_get(s->tviews, i));
        s->tviews->n = 0;
    }
    sl__result_complete(out, tags[st->sub]);
    return 0;
}

int sl__pg_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    switch (st->kind) {
    case SL_STMT_PG_SET: return sl__pg_set(s, st, out, err);
    case SL_STMT_PG_SHOW: return sl__pg_show(s, st, out, err);
    case SL_STMT_PG_RESET: return sl__pg_reset(s, st, out, err);
    case SL_STMT_TXN: return sl__txn(s, st, out, err);
    case SL_STMT_DISCARD: return sl__discard(s, st, out, err);
    default: return sl_error_set(err, SL_ERR_INTERNAL, st->pos, "not a session statement");
    }
}
