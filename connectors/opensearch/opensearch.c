/*
** opensearch.c — the 'opensearch' and 'elasticsearch-7' connectors: a sink
** that indexes the table's rows, encoded by its format (json), as documents
** through the _bulk API with libcurl. One implementation, two declarations
** sharing one option table (Apache Flink's names: hosts, index,
** document-id.key-delimiter, sink.bulk-flush.*, connection.*); both
** systems speak the same _bulk protocol.
**
** Documents and actions:
**   PRIMARY KEY   _id = the key columns' values (CAST AS STRING text, NULL
**                 as "null") joined by 'document-id.key-delimiter', as
**                 Flink does; +I/+U are 'index' actions (the whole document
**                 replaced), -D is 'delete'; a -U is skipped when the +U
**                 of the same _id follows it, else (a filter dropped that
**                 +U) it is a 'delete', as in the jdbc sink.
**   no key        'index' without _id: the server generates one. Only
**                 append-only input (the resolver refuses an updating one).
**
** A bulk request is visible as soon as it is answered: there is nothing to
** hold back until the checkpoint and nothing to take back. So the sink
** declares at-least-once, mechanism none, and the resolver refuses
** exactly-once (0A000). With a key a replay re-indexes the same _ids, so
** the final state is exactly-once (the resolver notes it, as for the jdbc
** upsert sink); without one a replay indexes the documents again under new
** generated ids: duplicates (EXPLAIN says so).
**
**   step          what it does                       crash right after it
**   write         encodes rows into the open bulk;   documents sent after
**                 sends it when full (max-actions,   checkpoint N-1 are sent
**                 max-size) or the interval passed    again on replay
**   pre_commit(N) sends the open bulk; returns only  checkpoint N covers only
**                 when every item succeeded           documents the server
**                 (rejected items retried)            acknowledged
**   commit/abort  nothing (no protocol)              -
**   recover       nothing                            the replay resends
**
** Failures: a whole request that fails to connect, times out, or gets 429
** or 5xx is retried by 'sink.bulk-flush.backoff.*' (DISABLED, Flink's
** default: not at all), trying the next of 'hosts' after a connection
** error; any other status fails at once. Items of an answered request that
** failed: 429 (rejected) and 5xx ones are sent again under the same
** backoff ('sink.failure-handler' = 'retry-rejected': rejected ones until
** they pass); any other (a mapping conflict: mapper_parsing_exception)
** fails the job naming the document's _id (or its place in the request
** when the server made the id), the error's type and reason, unless
** 'sink.failure-handler' = 'ignore' skips and counts them. Messages show
** the URL without credentials; 'username'/'password' go by basic auth
** (CURLOPT_USERNAME/PASSWORD) and never into a message.
**
** Main routines: the sl_sink_ops sl__os_*, sl__os_flush (one bulk request
** with its retries), sl__os_items (the per-item outcome), the declarations
** sl__connector_opensearch and sl__connector_elasticsearch7.
*/
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "../sl_connector_int.h"

#define sl__os_connector_default_format "json" /* Flink's default 'format' */
#define SL__OS_SNIPPET 300          /* bytes of a body or document quoted in an error */
#define SL__OS_MAX_WAIT_MS 30000    /* the longest backoff between two tries */
/* Only what the sink reads of a bulk answer: the per-item outcome. */
#define SL__OS_BULK_PATH "/_bulk?filter_path=errors,items.*.status,items.*.error"

typedef enum sl__os_handler {
    SL__OS_FAIL = 0,       /* a refused document fails the job */
    SL__OS_IGNORE,         /* ... is skipped and counted */
    SL__OS_RETRY_REJECTED, /* rejected (429) items are retried until they pass */
} sl__os_handler;

typedef enum sl__os_backoff {
    SL__OS_DISABLED = 0, /* no retry */
    SL__OS_CONSTANT,     /* the same delay before each retry */
    SL__OS_EXPONENTIAL,  /* the delay doubles with each retry */
} sl__os_backoff;

/* One action of the open bulk: body[start..doc) is its action line,
** body[doc..end) its document line (doc == end for a delete). */
typedef struct sl__os_action {
    size_t start, doc, end;
    uint32_t id_off, id_len; /* its _id within the action line (id_len 0: generated) */
} sl__os_action;

typedef struct sl__os {
    const char *connector;       /* "opensearch" / "elasticsearch-7" (messages) */
    CURL *curl;                  /* one handle, its connection kept alive */
    struct curl_slist *headers;  /* Content-Type, no Expect */
    int nhosts;                  /* 'hosts' */
    char **urls;                 /* per host: <host><path-prefix>/_bulk?filter_path=... */
    char **shown;                /* per host, for messages: no credentials, no query */
    int host;                    /* the host in use */
    char *index;                 /* the index, JSON-escaped */
    char *delim;                 /* 'document-id.key-delimiter' */
    int64_t max_actions;         /* flush at this many actions (0: no limit) */
    int64_t max_bytes;           /* ... at this many bytes (0: no limit) */
    int64_t interval_ns;         /* ... when this long passed since the last (0: never) */
    sl__os_backoff backoff;      /* retry strategy */
    int64_t max_retries;         /* retries of a request / of rejected items */
    int64_t delay_ms;            /* the first retry's wait */
    sl__os_handler handler;      /* 'sink.failure-handler' */
    sl_codec *codec;             /* the table's format */
    int npk;                     /* key columns (0: generated ids) */
    int *pk;                     /* their indexes */
    sl_strbuf body;              /* the open bulk (NDJSON) */
    sl__os_action *acts;         /* its actions */
    int64_t nacts, capacts;
    sl_strbuf retry[2];          /* bulks of items sent again (one being sent, the
                                    next being built from its answer) */
    sl__os_action *racts[2];     /* their actions */
    int64_t nracts[2], capracts[2];
    sl_strbuf id, id2;           /* a row's _id, the next row's */
    sl_strbuf resp;              /* the answer's body */
    int64_t last_flush;          /* monotonic ns of the last flush */
    int64_t skipped;             /* documents refused and skipped ('ignore'), job's life */
    pthread_mutex_t mu;          /* the ops and the flush timer's thread */
    sl_flush_timer *timer;       /* sends what waits the interval on a quiet input */
} sl__os;

static pthread_once_t sl__os_once = PTHREAD_ONCE_INIT;
static void sl__os_global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t sl__os_on_body(char *p, size_t size, size_t n, void *ctx)
{
    sl_strbuf_append_n(ctx, p, size * n);
    return size * n;
}

/* s[0..n) as a JSON string's contents (no quotes). */
static void sl__os_json_chars(sl_strbuf *sb, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            sl_strbuf_append_char(sb, '\\');
            sl_strbuf_append_char(sb, (char)ch);
        } else if (ch < 0x20) {
            sl_strbuf_appendf(sb, "\\u%04x", ch);
        } else {
            sl_strbuf_append_char(sb, (char)ch);
        }
    }
}

/* The first bytes of s[0..n) on one line, for a message. */
static void sl__os_snippet(sl_strbuf *out, const char *s, size_t n)
{
    size_t k = n < SL__OS_SNIPPET ? n : SL__OS_SNIPPET;
    for (size_t i = 0; i < k; i++) {
        unsigned char ch = (unsigned char)s[i];
        sl_strbuf_append_char(out, ch == '\n' || ch == '\r' || ch == '\t' ? ' ' : (char)ch);
    }
    if (n > k)
        sl_strbuf_append(out, "...");
}

/* The wait before retry number `attempt` (0-based). */
static int64_t sl__os_wait_ms(const sl__os *o, int64_t attempt)
{
    int64_t ms = o->delay_ms;
    if (o->backoff == SL__OS_EXPONENTIAL)
        for (int64_t i = 0; i < attempt && ms < SL__OS_MAX_WAIT_MS; i++)
            ms *= 2;
    return ms > SL__OS_MAX_WAIT_MS ? SL__OS_MAX_WAIT_MS : ms < 1 ? 1 : ms;
}

/* Room for one more action in *acts. */
static sl__os_action *sl__os_push(sl__os_action **acts, int64_t *n, int64_t *cap)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        *acts = sl_realloc(*acts, (size_t)*cap * sizeof **acts);
    }
    return &(*acts)[(*n)++];
}

/* One POST of body to the bulk endpoint, trying each host once from the
** one in use while the connection fails. CURLE_OK with *status, or the
** last curl error (cerr filled). */
static CURLcode sl__os_post(sl__os *o, const sl_strbuf *body, long *status, char *cerr)
{
    CURLcode cc = CURLE_OK;
    *status = 0;
    for (int k = 0; k < o->nhosts; k++) {
        sl_strbuf_reset(&o->resp);
        cerr[0] = 0;
        curl_easy_setopt(o->curl, CURLOPT_URL, o->urls[o->host]);
        curl_easy_setopt(o->curl, CURLOPT_POSTFIELDS, body->buf ? body->buf : "");
        curl_easy_setopt(o->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body->len);
        cc = curl_easy_perform(o->curl);
        if (cc == CURLE_OK) {
            curl_easy_getinfo(o->curl, CURLINFO_RESPONSE_CODE, status);
            return cc;
        }
        if (cc != CURLE_COULDNT_CONNECT && cc != CURLE_COULDNT_RESOLVE_HOST)
            return cc; /* it may have arrived: no other host now, the retry decides */
        if (k == o->nhosts - 1) /* the caller names this host */
            break;
        sl_log(SL_LOG_WARN, "%s: POST %s: %s; trying the next host", o->connector,
               o->shown[o->host], cerr[0] ? cerr : curl_easy_strerror(cc));
        o->host = (o->host + 1) % o->nhosts;
    }
    return cc;
}

/* Whether an item's status is worth another try: rejected or a server error. */
static bool sl__os_item_retryable(long status)
{
    return status == 429 || status >= 500;
}

/* The message for a refused item: action a of body, answered err. */
static int sl__os_item_error(sl__os *o, const sl_strbuf *body, const sl__os_action *a,
                             int64_t pos, long status, json_t *e, bool retried, sl_error *err)
{
    const char *type = json_string_value(json_object_get(e, "type"));
    const char *reason = json_string_value(json_object_get(e, "reason"));
    sl_strbuf what = SL_STRBUF_INIT;
    bool del = body->buf[a->start + 2] == 'd'; /* {"delete":... */
    if (a->id_len)
        sl_strbuf_appendf(&what, "document _id \"%.*s\"", (int)a->id_len,
                          body->buf + a->start + a->id_off);
    else
        sl_strbuf_appendf(&what, "the document at position %lld of a bulk request (its _id "
                          "generated by the server)", (long long)pos + 1);
    sl_error_set(err, SL_ERR_IO, -1, "%s refused %s%s: %s: %s", o->connector,
                 sl_strbuf_cstr(&what), del ? " (a delete)" : "", type ? type : "error",
                 reason ? reason : "(no reason given)");
    sl_strbuf d = SL_STRBUF_INIT;
    sl_strbuf_appendf(&d, "Status %ld from POST %s%s", status, o->shown[o->host],
                      retried ? ", still after the retries" : "");
    json_t *cause = json_object_get(e, "caused_by");
    const char *ct = json_string_value(json_object_get(cause, "type"));
    const char *cr = json_string_value(json_object_get(cause, "reason"));
    if (ct || cr)
        sl_strbuf_appendf(&d, "; caused by %s: %s", ct ? ct : "error", cr ? cr : "");
    if (!del) {
        sl_strbuf_append(&d, "; the document: ");
        size_t n = a->end - a->doc;
        sl__os_snippet(&d, body->buf + a->doc, n > 0 ? n - 1 : 0); /* without its '\n' */
    }
    sl_strbuf_append_char(&d, '.');
    sl_error_detail(err, "%s", sl_strbuf_cstr(&d));
    if (!sl__os_item_retryable(status))
        sl_error_hint(err, "Fix the document or the index's mapping; 'sink.failure-handler' = "
                           "'ignore' skips refused documents (counted in the log).");
    else
        sl_error_hint(err, "The server is overloaded: set 'sink.bulk-flush.backoff.strategy' "
                           "(or 'sink.failure-handler' = 'retry-rejected') to retry longer.");
    sl_strbuf_free(&d);
    sl_strbuf_free(&what);
    return -1;
}

/* The outcome of each item of body (acts[0..n)) from the answer in
** o->resp: the items to send again are appended to o->retry[nx] (and
** o->racts[nx]); refused ones fail (or are counted in *skipped). 0 or -1
** with err. */
static int sl__os_items(sl__os *o, const sl_strbuf *body, const sl__os_action *acts, int64_t n,
                        bool last_try, int nx, int64_t *skipped, sl_error *err)
{
    /* The answer starts {"errors":false,... when every item passed. */
    const char *r = sl_strbuf_cstr(&o->resp);
    const char *e = strstr(r, "\"errors\"");
    if (e && e - r < 16) {
        e += 8;
        while (*e == ' ' || *e == ':')
            e++;
        if (strncmp(e, "false", 5) == 0)
            return 0;
    }
    json_error_t jerr;
    json_t *root = json_loadb(o->resp.buf ? o->resp.buf : "", o->resp.len, 0, &jerr);
    json_t *items = json_object_get(root, "items");
    if (!json_is_array(items) || (int64_t)json_array_size(items) != n) {
        sl_error_set(err, SL_ERR_IO, -1, "%s answered a bulk request of %lld actions with "
                     "something else than their outcome", o->connector, (long long)n);
        sl_strbuf d = SL_STRBUF_INIT;
        sl_strbuf_appendf(&d, "POST %s; the answer: ", o->shown[o->host]);
        sl__os_snippet(&d, o->resp.buf ? o->resp.buf : "", o->resp.len);
        sl_error_detail(err, "%s", sl_strbuf_cstr(&d));
        sl_strbuf_free(&d);
        json_decref(root);
        return -1;
    }
    int rc = 0;
    int64_t refused = 0;
    for (int64_t i = 0; rc == 0 && i < n; i++) {
        json_t *it = json_array_get(items, (size_t)i);
        const char *k;
        json_t *v, *res = NULL;
        json_object_foreach(it, k, v) { res = v; break; } /* {"index": {...}} */
        (void)k;
        json_t *ierr = json_object_get(res, "error");
        if (!ierr)
            continue;
        long status = (long)json_integer_value(json_object_get(res, "status"));
        const sl__os_action *a = &acts[i];
        if (sl__os_item_retryable(status) && !last_try) {
            sl__os_action *b = sl__os_push(&o->racts[nx], &o->nracts[nx], &o->capracts[nx]);
            size_t at = o->retry[nx].len;
            sl_strbuf_append_n(&o->retry[nx], body->buf + a->start, a->end - a->start);
            *b = (sl__os_action){at, at + (a->doc - a->start), at + (a->end - a->start),
                                 a->id_off, a->id_len};
        } else if (o->handler == SL__OS_IGNORE && !sl__os_item_retryable(status)) {
            if (refused++ == 0) { /* the first one of a request, so the log says why */
                sl_error e1 = SL_ERROR_INIT;
                sl__os_item_error(o, body, a, i, status, ierr, false, &e1);
                sl_log(SL_LOG_WARN, "%s: skipping a refused document ('sink.failure-handler' "
                       "= 'ignore'): %s (%s)", o->connector, e1.message,
                       e1.detail ? e1.detail : "");
                sl_error_reset(&e1);
            }
        } else {
            rc = sl__os_item_error(o, body, a, i, status, ierr,
                                   last_try && sl__os_item_retryable(status), err);
        }
    }
    json_decref(root);
    *skipped += refused;
    return rc;
}

/* Send body (acts[0..n)) until every item passed, retrying by the backoff
** strategy; the items to send again are copied into a bulk of their own
** (o->retry, alternating: one is sent while the next is built). 0 or -1
** with err. */
static int sl__os_send(sl__os *o, const sl_strbuf *body, const sl__os_action *acts, int64_t n,
                       sl_error *err)
{
    int64_t attempt = 0, skipped = 0;
    const sl_strbuf *b = body;
    const sl__os_action *as = acts;
    int64_t na = n;
    int nx = 0; /* the retry bulk to build next */
    int rc = 0;
    for (;;) {
        long status = 0;
        char cerr[CURL_ERROR_SIZE];
        curl_easy_setopt(o->curl, CURLOPT_ERRORBUFFER, cerr);
        CURLcode cc = sl__os_post(o, b, &status, cerr);
        curl_easy_setopt(o->curl, CURLOPT_ERRORBUFFER, NULL);
        bool can_retry = o->backoff != SL__OS_DISABLED && attempt < o->max_retries;
        if (cc != CURLE_OK || status == 429 || status >= 500) {
            if (!can_retry) {
                if (cc != CURLE_OK) {
                    sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1, "%s: POST %s failed: %s",
                                 o->connector, o->shown[o->host],
                                 cerr[0] ? cerr : curl_easy_strerror(cc));
                } else {
                    sl_error_set(err, SL_ERR_IO, -1, "%s: POST %s failed with status %ld",
                                 o->connector, o->shown[o->host], status);
                    sl_strbuf d = SL_STRBUF_INIT;
                    sl_strbuf_append(&d, "The answer: ");
                    sl__os_snippet(&d, sl_strbuf_cstr(&o->resp), o->resp.len);
                    sl_error_detail(err, "%s", sl_strbuf_cstr(&d));
                    sl_strbuf_free(&d);
                }
                sl_error_hint(err, "%s", o->backoff == SL__OS_DISABLED
                                             ? "'sink.bulk-flush.backoff.strategy' = "
                                               "'EXPONENTIAL' retries failed bulk requests."
                                             : "Raise 'sink.bulk-flush.backoff.max-retries'.");
                rc = -1;
                break;
            }
            int64_t ms = sl__os_wait_ms(o, attempt);
            char why[48];
            snprintf(why, sizeof why, "status %ld", status);
            sl_log(SL_LOG_WARN, "%s: POST %s: %s, retry %lld of %lld in %lld ms", o->connector,
                   o->shown[o->host], cc != CURLE_OK ? curl_easy_strerror(cc) : why,
                   (long long)attempt + 1, (long long)o->max_retries, (long long)ms);
            sl_sleep_nanos(ms * SL_NANOS_PER_MILLI);
            attempt++;
            continue;
        }
        if (status < 200 || status >= 300) {
            sl_error_set(err, SL_ERR_IO, -1, "%s: POST %s failed with status %ld", o->connector,
                         o->shown[o->host], status);
            sl_strbuf d = SL_STRBUF_INIT;
            sl_strbuf_append(&d, "Not retried (the status is final); the answer: ");
            sl__os_snippet(&d, sl_strbuf_cstr(&o->resp), o->resp.len);
            sl_error_detail(err, "%s", sl_strbuf_cstr(&d));
            sl_strbuf_free(&d);
            rc = -1;
            break;
        }
        /* Answered: each item's outcome; rejected ones into retry[nx]. */
        sl_strbuf_reset(&o->retry[nx]);
        o->nracts[nx] = 0;
        bool endless = o->handler == SL__OS_RETRY_REJECTED;
        rc = sl__os_items(o, b, as, na, !can_retry && !endless, nx, &skipped, err);
        if (rc != 0 || o->nracts[nx] == 0)
            break;
        int64_t ms = can_retry ? sl__os_wait_ms(o, attempt)
                               : (o->delay_ms > 0 ? o->delay_ms : 1000);
        sl_log(SL_LOG_WARN, "%s: %lld of %lld documents rejected by %s, sent again in %lld ms",
               o->connector, (long long)o->nracts[nx], (long long)na, o->shown[o->host],
               (long long)ms);
        sl_sleep_nanos(ms * SL_NANOS_PER_MILLI);
        if (can_retry)
            attempt++;
        b = &o->retry[nx];
        as = o->racts[nx];
        na = o->nracts[nx];
        nx = !nx;
    }
    if (skipped > 0) {
        o->skipped += skipped;
        sl_log(SL_LOG_WARN, "%s: skipped %lld refused document%s of a bulk request "
               "('sink.failure-handler' = 'ignore'); %lld so far", o->connector,
               (long long)skipped, skipped == 1 ? "" : "s", (long long)o->skipped);
    }
    return rc;
}

/* Send the open bulk, if any. */
static int sl__os_flush(sl__os *o, sl_error *err)
{
    o->last_flush = sl_monotonic_nanos();
    if (o->nacts == 0)
        return 0;
    int rc = sl__os_send(o, &o->body, o->acts, o->nacts, err);
    sl_strbuf_reset(&o->body);
    o->nacts = 0;
    return rc;
}

/* The flush timer's calls (flush_timer.c), with o->mu held. */
static bool sl__os_due(void *ctx)
{
    sl__os *o = ctx;
    return o->interval_ns > 0 && o->nacts > 0 &&
           sl_monotonic_nanos() - o->last_flush >= o->interval_ns;
}

static int sl__os_flush_v(void *ctx, sl_error *err)
{
    return sl__os_flush(ctx, err);
}

static int sl__os_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    (void)s, (void)epoch, (void)err;
    return 0;
}

/* A time of day (ns) as Java's LocalTime.toString() writes it, which is
** what Flink's key extractor puts into an _id: HH:mm, then :ss unless the
** seconds and the fraction are zero, then the fraction in groups of three
** digits (.500, .500123, .500123456). */
static void sl__os_java_time(sl_strbuf *out, int64_t nod)
{
    int64_t s = nod / SL_NANOS_PER_SEC, ns = nod % SL_NANOS_PER_SEC;
    sl_strbuf_appendf(out, "%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60));
    if (s % 60 != 0 || ns != 0)
        sl_strbuf_appendf(out, ":%02d", (int)(s % 60));
    if (ns % 1000000 == 0 && ns != 0)
        sl_strbuf_appendf(out, ".%03d", (int)(ns / 1000000));
    else if (ns % 1000 == 0 && ns != 0)
        sl_strbuf_appendf(out, ".%06d", (int)(ns / 1000));
    else if (ns != 0)
        sl_strbuf_appendf(out, ".%09d", (int)ns);
}

/* Row r's _id: the key columns' values joined by the delimiter, each as
** Flink's key extractor writes it (Java's toString of the value: true,
** 2026-01-01T12:00, 12:00:01.500; numbers and strings as Sluice's text),
** so a job moved from Flink overwrites the same documents. */
static void sl__os_id(const sl__os *o, const sl_chunk *c, int r, sl_strbuf *out)
{
    sl_strbuf_reset(out);
    for (int k = 0; k < o->npk; k++) {
        const sl_vector *v = &c->cols[o->pk[k]];
        if (k > 0)
            sl_strbuf_append(out, o->delim);
        if (v->nulls[r]) {
            sl_strbuf_append(out, "null");
            continue;
        }
        switch (v->type.id) {
        case SL_TYPE_BOOLEAN: sl_strbuf_append(out, v->v.b[r] ? "true" : "false"); break;
        case SL_TYPE_TIME: sl__os_java_time(out, v->v.i64[r]); break;
        case SL_TYPE_TIMESTAMP:
        case SL_TYPE_TIMESTAMP_LTZ: {
            const int64_t day = 86400 * SL_NANOS_PER_SEC;
            int64_t t = v->v.i64[r], days = t / day, nod = t % day;
            if (nod < 0) {
                nod += day;
                days--;
            }
            char buf[40];
            sl_date_format(days, buf);
            sl_strbuf_append(out, buf);
            sl_strbuf_append_char(out, 'T');
            sl__os_java_time(out, nod);
            break;
        }
        default:
            if (!sl_value_format(out, v, r))
                sl_strbuf_append(out, "null");
        }
    }
}

/* Whether the -U at row r is followed by the +U of the same _id (o->id
** holds row r's): then that +U replaces the document. */
static bool sl__os_replaced(sl__os *o, const sl_chunk *c, int r)
{
    if (r + 1 >= c->nrows || c->kinds[r + 1] != SL_ROW_UPDATE_AFTER)
        return false;
    sl__os_id(o, c, r + 1, &o->id2);
    return o->id.len == o->id2.len &&
           (o->id.len == 0 || memcmp(o->id.buf, o->id2.buf, o->id.len) == 0);
}

/* Append row r's action (and document) to the open bulk; o->id holds
** its _id when the table has a key. */
static int sl__os_add(sl__os *o, const sl_chunk *c, int r, bool del, sl_error *err)
{
    sl__os_action *a = sl__os_push(&o->acts, &o->nacts, &o->capacts);
    a->start = o->body.len;
    a->id_off = a->id_len = 0;
    sl_strbuf_append(&o->body, del ? "{\"delete\":{\"_index\":\"" : "{\"index\":{\"_index\":\"");
    sl_strbuf_append(&o->body, o->index);
    sl_strbuf_append_char(&o->body, '"');
    if (o->npk > 0) {
        sl_strbuf_append(&o->body, ",\"_id\":\"");
        a->id_off = (uint32_t)(o->body.len - a->start);
        sl__os_json_chars(&o->body, o->id.buf ? o->id.buf : "", o->id.len);
        a->id_len = (uint32_t)(o->body.len - a->start - a->id_off);
        sl_strbuf_append_char(&o->body, '"');
    }
    sl_strbuf_append(&o->body, "}}\n");
    a->doc = o->body.len;
    if (!del) {
        int erc = sl_codec_encode(o->codec, c, r, &o->body, err);
        if (erc < 0) { /* the action line goes too */
            o->body.len = a->start;
            o->body.buf[o->body.len] = 0;
            o->nacts--;
            return -1;
        }
        if (erc == SL_CODEC_NULL_RECORD)
            sl_strbuf_append(&o->body, "{}");
        sl_strbuf_append_char(&o->body, '\n');
    }
    a->end = o->body.len;
    return 0;
}

static int sl__os_write_locked(sl__os *o, const sl_chunk *c, sl_error *err)
{
    for (int r = 0; r < c->nrows; r++) {
        sl_row_kind k = (sl_row_kind)c->kinds[r];
        if (k != SL_ROW_INSERT && o->npk == 0) /* the planner refuses updating inputs */
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "%s received a %s row for a table without a PRIMARY KEY",
                                o->connector, sl_row_kind_name(k));
        if (o->npk > 0)
            sl__os_id(o, c, r, &o->id);
        if (k == SL_ROW_UPDATE_BEFORE && sl__os_replaced(o, c, r))
            continue; /* the +U right after it replaces the document */
        /* A -U alone retracts the row (a filter dropped its +U: the key no
        ** longer qualifies): deleted, as the jdbc sink (and Flink's) does. */
        bool del = k == SL_ROW_DELETE || k == SL_ROW_UPDATE_BEFORE;
        if (sl__os_add(o, c, r, del, err) != 0)
            return -1;
        if ((o->max_actions > 0 && o->nacts >= o->max_actions) ||
            (o->max_bytes > 0 && (int64_t)o->body.len >= o->max_bytes))
            if (sl__os_flush(o, err) != 0)
                return -1;
    }
    if (sl__os_due(o))
        return sl__os_flush(o, err);
    return 0;
}

static int sl__os_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    sl__os *o = s->impl;
    pthread_mutex_lock(&o->mu);
    int rc = sl_flush_timer_failed(o->timer, err);
    if (rc == 0)
        rc = sl__os_write_locked(o, c, err);
    pthread_mutex_unlock(&o->mu);
    return rc;
}

static int sl__os_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    (void)epoch, (void)committable;
    sl__os *o = s->impl;
    pthread_mutex_lock(&o->mu);
    int rc = sl_flush_timer_failed(o->timer, err);
    if (rc == 0)
        rc = sl__os_flush(o, err);
    pthread_mutex_unlock(&o->mu);
    return rc;
}

/* commit / abort: no protocol, nothing to make visible or discard. */
static int sl__os_commit(sl_sink *s, const char *committable, size_t len, sl_error *err)
{
    (void)s, (void)committable, (void)len, (void)err;
    return 0;
}

static int sl__os_recover(sl_sink *s, const char *const *committables, const size_t *lens,
                          int n, sl_error *err)
{
    (void)s, (void)committables, (void)lens, (void)n, (void)err;
    return 0;
}

static void sl__os_free(sl_sink *s)
{
    if (!s)
        return;
    sl__os *o = s->impl;
    if (o) {
        sl_flush_timer_stop(o->timer);
        pthread_mutex_destroy(&o->mu);
        if (o->curl)
            curl_easy_cleanup(o->curl);
        curl_slist_free_all(o->headers);
        sl_codec_free(o->codec);
        for (int i = 0; i < o->nhosts; i++) {
            sl_free(o->urls[i]);
            sl_free(o->shown[i]);
        }
        sl_free(o->urls);
        sl_free(o->shown);
        sl_free(o->index);
        sl_free(o->delim);
        sl_free(o->pk);
        sl_free(o->acts);
        for (int i = 0; i < 2; i++) {
            sl_free(o->racts[i]);
            sl_strbuf_free(&o->retry[i]);
        }
        sl_strbuf_free(&o->body);
        sl_strbuf_free(&o->id);
        sl_strbuf_free(&o->id2);
        sl_strbuf_free(&o->resp);
        sl_free(o);
    }
    sl_free(s);
}

static const sl_sink_ops sl__os_ops = {
    .begin = sl__os_begin,
    .write = sl__os_write,
    .pre_commit = sl__os_pre_commit,
    .commit = sl__os_commit,
    .abort = sl__os_commit,
    .recover = sl__os_recover,
    .free = sl__os_free,
};

/* A host without its credentials, query or trailing '/', for messages. */
static char *sl__os_shown_host(const char *host)
{
    CURLU *u = curl_url();
    char *out = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, host, 0) == CURLUE_OK) {
        curl_url_set(u, CURLUPART_USER, NULL, 0);
        curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
        curl_url_set(u, CURLUPART_QUERY, NULL, 0);
        char *s = NULL;
        if (curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK && s) {
            size_t n = strlen(s);
            while (n > 0 && s[n - 1] == '/')
                n--;
            out = sl_sprintf("%.*s", (int)n, s);
            curl_free(s);
        }
    }
    curl_url_cleanup(u);
    return out ? out : sl_strdup("<the table's host>");
}

/* 'connection.path-prefix' as "/a/b" (no trailing '/'), "" when unset. */
static char *sl__os_prefix(const sl_kvlist *opts)
{
    const char *p = sl_kvlist_get(opts, "connection.path-prefix");
    if (!p)
        return sl_strdup("");
    while (*p == '/')
        p++;
    size_t n = strlen(p);
    while (n > 0 && p[n - 1] == '/')
        n--;
    return n ? sl_sprintf("/%.*s", (int)n, p) : sl_strdup("");
}

static int sl__os_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    *out = NULL;
    const sl_kvlist *opts = args->options;
    pthread_once(&sl__os_once, sl__os_global_init);
    sl__os *o = sl_calloc(1, sizeof *o);
    pthread_mutex_init(&o->mu, NULL);
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__os_ops;
    s->impl = o;
    const char *cn = sl_kvlist_get(opts, "connector");
    o->connector = cn && strcmp(cn, "elasticsearch-7") == 0 ? "elasticsearch-7" : "opensearch";
    if (!sl_kvlist_get(opts, "format")) { /* Flink's default: json */
        sl_kvlist *with = sl_kvlist_dup(opts);
        sl_kvlist_add(with, "format", sl__os_connector_default_format, -1, -1);
        o->codec = sl_codec_new(with, args->ncols, args->names, args->types, err);
        sl_kvlist_free(with);
    } else {
        o->codec = sl_codec_new(opts, args->ncols, args->names, args->types, err);
    }
    if (!o->codec) {
        sl__os_free(s);
        return -1;
    }
    char *prefix = sl__os_prefix(opts);
    const char *hosts = sl_kvlist_get(opts, "hosts");
    for (const char *p = hosts ? hosts : ""; *p;) {
        const char *semi = strchr(p, ';');
        const char *end = semi ? semi : p + strlen(p);
        const char *a = p;
        while (a < end && isspace((unsigned char)*a))
            a++;
        const char *z = end;
        while (z > a && (isspace((unsigned char)z[-1]) || z[-1] == '/'))
            z--;
        if (z > a) {
            int n = (int)(z - a);
            o->urls = sl_realloc(o->urls, (size_t)(o->nhosts + 1) * sizeof(char *));
            o->shown = sl_realloc(o->shown, (size_t)(o->nhosts + 1) * sizeof(char *));
            o->urls[o->nhosts] = sl_sprintf("%.*s%s" SL__OS_BULK_PATH, n, a, prefix);
            char *host = sl_sprintf("%.*s", n, a);
            char *shown = sl__os_shown_host(host);
            o->shown[o->nhosts++] = sl_sprintf("%s%s/_bulk", shown, prefix);
            sl_free(shown);
            sl_free(host);
        }
        p = semi ? semi + 1 : end;
    }
    sl_free(prefix);
    if (o->nhosts == 0) {
        sl__os_free(s);
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "option 'hosts' names no host");
    }
    sl_strbuf ix = SL_STRBUF_INIT;
    const char *index = sl_kvlist_get(opts, "index");
    sl__os_json_chars(&ix, index ? index : "", index ? strlen(index) : 0);
    o->index = sl_strbuf_detach(&ix);
    const char *delim = sl_kvlist_get(opts, "document-id.key-delimiter");
    o->delim = sl_strdup(delim ? delim : "_");
    const sl_connector *c = &sl__connector_opensearch; /* one option table for both */
    int64_t interval_ms = 0, timeout = 0;
    if (sl__option_number(c, opts, "sink.bulk-flush.max-actions", &o->max_actions, err) != 0 ||
        sl__option_number(c, opts, "sink.bulk-flush.max-size", &o->max_bytes, err) != 0 ||
        sl__option_number(c, opts, "sink.bulk-flush.interval", &interval_ms, err) != 0 ||
        sl__option_number(c, opts, "sink.bulk-flush.backoff.max-retries", &o->max_retries,
                          err) != 0 ||
        sl__option_number(c, opts, "sink.bulk-flush.backoff.delay", &o->delay_ms, err) != 0 ||
        sl__option_number(c, opts, "connection.request-timeout", &timeout, err) != 0) {
        sl__os_free(s);
        return -1;
    }
    o->interval_ns = interval_ms * SL_NANOS_PER_MILLI;
    const char *bo = sl_kvlist_get(opts, "sink.bulk-flush.backoff.strategy");
    o->backoff = !bo                                   ? SL__OS_DISABLED
                 : sl_strcasecmp(bo, "CONSTANT") == 0    ? SL__OS_CONSTANT
                 : sl_strcasecmp(bo, "EXPONENTIAL") == 0 ? SL__OS_EXPONENTIAL
                                                         : SL__OS_DISABLED;
    const char *fh = sl_kvlist_get(opts, "sink.failure-handler");
    o->handler = !fh                                       ? SL__OS_FAIL
                 : sl_strcasecmp(fh, "ignore") == 0         ? SL__OS_IGNORE
                 : sl_strcasecmp(fh, "retry-rejected") == 0 ? SL__OS_RETRY_REJECTED
                                                            : SL__OS_FAIL;
    if (args->npk > 0) {
        o->npk = args->npk;
        o->pk = sl_calloc((size_t)args->npk, sizeof(int));
        memcpy(o->pk, args->pk, (size_t)args->npk * sizeof(int));
    }
    o->last_flush = sl_monotonic_nanos();
    o->headers = curl_slist_append(o->headers, "Content-Type: application/x-ndjson");
    o->headers = curl_slist_append(o->headers, "Expect:"); /* no 100-continue round trip */
    o->curl = curl_easy_init();
    if (!o->curl) {
        sl__os_free(s);
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "could not start an HTTP client");
    }
    curl_easy_setopt(o->curl, CURLOPT_POST, 1L);
    curl_easy_setopt(o->curl, CURLOPT_HTTPHEADER, o->headers);
    curl_easy_setopt(o->curl, CURLOPT_TIMEOUT_MS, (long)timeout);
    curl_easy_setopt(o->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout < 10000 ? timeout : 10000));
    curl_easy_setopt(o->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(o->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(o->curl, CURLOPT_WRITEFUNCTION, sl__os_on_body);
    curl_easy_setopt(o->curl, CURLOPT_WRITEDATA, &o->resp);
    const char *user = sl_kvlist_get(opts, "username");
    if (user) {
        const char *pw = sl_kvlist_get(opts, "password");
        curl_easy_setopt(o->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(o->curl, CURLOPT_USERNAME, user);
        curl_easy_setopt(o->curl, CURLOPT_PASSWORD, pw ? pw : "");
    }
    o->timer = sl_flush_timer_start(&o->mu, interval_ms, sl__os_due, sl__os_flush_v, o);
    *out = s;
    return 0;
}

/* A byte OpenSearch (and Elasticsearch 7) refuses in an index name. */
static bool sl__os_bad_index_char(unsigned char ch)
{
    return strchr("\\/*?\"<>| ,#:", ch) != NULL || ch < 0x20 || isupper(ch);
}

static int sl__os_check(const sl_connector *c, const sl_kvlist *opts, const sl_table_shape *shape,
                        sl_error *err)
{
    (void)shape;
    const sl_kv *kv = sl_kvlist_find(opts, "hosts");
    if (kv) {
        int n = 0;
        for (const char *p = kv->value ? kv->value : ""; *p;) {
            while (*p == ' ' || *p == ';')
                p++;
            if (!*p)
                break;
            const char *end = strchr(p, ';');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            size_t skip = sl_strncasecmp(p, "http://", 7) == 0    ? 7
                          : sl_strncasecmp(p, "https://", 8) == 0 ? 8
                                                                  : 0;
            if (!skip || len <= skip || p[skip] == '/' || p[skip] == ':')
                return sl__invalid_value(err, kv, false,
                                         "is not a list of 'http://host:port' separated by ';'");
            n++;
            p += len;
        }
        if (n == 0)
            return sl__invalid_value(err, kv, false, "names no host");
    }
    if ((kv = sl_kvlist_find(opts, "index")) && kv->value) {
        const char *v = kv->value;
        if (strchr(v, '{')) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, kv->value_pos,
                         "connector '%s' does not support dynamic indexes ('%s')", c->name, v);
            sl_error_detail(err, "Flink's '{field}' and '{field|format}' index patterns are not "
                                 "implemented: every row goes to one index.");
            sl_error_hint(err, "Name one index, or write a table per index.");
            return -1;
        }
        if (!*v || *v == '-' || *v == '_' || *v == '+' || strcmp(v, ".") == 0 ||
            strcmp(v, "..") == 0 || strlen(v) > 255)
            return sl__invalid_value(err, kv, false, "is not an index name");
        for (const char *p = v; *p; p++)
            if (sl__os_bad_index_char((unsigned char)*p))
                return sl__invalid_value(err, kv, false,
                                         "is not an index name (lowercase, none of \\ / * ? \" "
                                         "< > | , # : or blanks)");
    }
    kv = sl_kvlist_find(opts, "format");
    if (kv && kv->value && strcmp(kv->value, "json") != 0)
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, kv->value_pos,
                            "connector '%s' supports only format 'json'", c->name);
    static const char *const nonneg[] = {"sink.bulk-flush.max-actions",
                                         "sink.bulk-flush.backoff.max-retries"};
    for (size_t i = 0; i < SL_ARRAY_LEN(nonneg); i++) {
        int64_t v = 0;
        if ((kv = sl_kvlist_find(opts, nonneg[i])) && sl__parse_int(kv->value, &v) == NULL &&
            v < 0)
            return sl__invalid_value(err, kv, false, "must not be negative");
    }
    int64_t v = 0;
    if ((kv = sl_kvlist_find(opts, "connection.request-timeout")) &&
        sl__parse_duration_ms(kv->value, &v) == NULL && v < 1)
        return sl__invalid_value(err, kv, false, "must be positive");
    if ((kv = sl_kvlist_find(opts, "document-id.key-delimiter")) && kv->value &&
        strpbrk(kv->value, "\r\n"))
        return sl__invalid_value(err, kv, false, "holds a line break");
    if ((kv = sl_kvlist_find(opts, "password")) && !sl_kvlist_find(opts, "username"))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                            "option 'password' needs 'username'");
    return 0;
}

static const sl_option_spec sl__os_options[] = {
    {.key = "hosts", .type = SL_OPT_STRING, .required = true,
     .description = "One or more hosts to connect to, 'http://host:port' (or https://), "
                    "separated by ';'; the next is tried when one cannot be reached."},
    {.key = "index", .type = SL_OPT_STRING, .required = true,
     .description = "The index every row is written to (created by the server on the first "
                    "document unless it exists; Flink's dynamic '{field}' indexes are refused)."},
    {.key = "document-id.key-delimiter", .type = SL_OPT_STRING, .default_value = "_",
     .description = "Joins the PRIMARY KEY columns' values into a document's _id."},
    {.key = "username", .type = SL_OPT_STRING,
     .description = "The user of HTTP basic authentication."},
    {.key = "password", .type = SL_OPT_STRING, .secret = true,
     .description = "Its password."},
    {.key = "sink.bulk-flush.max-actions", .type = SL_OPT_INT, .default_value = "1000",
     .description = "Send the open bulk request once it holds this many actions (0: no "
                    "limit)."},
    {.key = "sink.bulk-flush.max-size", .type = SL_OPT_MEMSIZE, .default_value = "2mb",
     .description = "Send the open bulk request once it holds this many bytes (0: no limit)."},
    {.key = "sink.bulk-flush.interval", .type = SL_OPT_DURATION, .default_value = "1 s",
     .description = "Send the open bulk request when this long passed since the last one, "
                    "also when no rows arrive (0: never; every checkpoint sends it anyway)."},
    {.key = "sink.bulk-flush.backoff.strategy", .type = SL_OPT_ENUM,
     .enum_values = "DISABLED|CONSTANT|EXPONENTIAL", .default_value = "DISABLED",
     .description = "How a bulk request that failed (connection, timeout, 429, 5xx) and "
                    "rejected items (429, 5xx) are retried: not at all, after a constant "
                    "delay, or after a delay doubling each time."},
    {.key = "sink.bulk-flush.backoff.max-retries", .type = SL_OPT_INT, .default_value = "8",
     .description = "Retries of a request by the backoff strategy; then the job fails."},
    {.key = "sink.bulk-flush.backoff.delay", .type = SL_OPT_DURATION, .default_value = "100 ms",
     .description = "The (first) delay of the backoff strategy (at most 30 s a wait)."},
    {.key = "connection.path-prefix", .type = SL_OPT_STRING,
     .description = "A path before every request's ('/es' makes '/es/_bulk')."},
    {.key = "connection.request-timeout", .type = SL_OPT_DURATION, .default_value = "60 s",
     .description = "How long a bulk request (connecting included) may take; then it failed."},
    {.key = "sink.failure-handler", .type = SL_OPT_ENUM,
     .enum_values = "fail|ignore|retry-rejected", .default_value = "fail",
     .description = "A document the server refuses (a mapping conflict): fail the job naming "
                    "it, or skip it and count it in the log (ignore); retry-rejected also "
                    "retries rejected (429) items until they pass."},
};

#define SL__OS_CAPS                                                                           \
    {                                                                                         \
        .source = false, .sink = true, .source_replayable = false,                           \
        .sink_max = SL_GUARANTEE_AT_LEAST_ONCE,                                               \
        .sink_max_why = "a bulk request is visible once answered and cannot be held back "    \
                        "until the checkpoint or taken back, so a replay after a failure "    \
                        "indexes its documents again (with a PRIMARY KEY under the same _id, "\
                        "which leaves the final state exactly-once)",                         \
        .sink_keyless_note = "without a PRIMARY KEY the server generates each document's "    \
                             "_id: a replay after a failure indexes documents again under "   \
                             "new ids (duplicates)",                                          \
        .sink_mech = SL_MECH_NONE, .sink_updates = true, .sink_upserts = true,                \
        .sink_default = SL_GUARANTEE_AT_LEAST_ONCE, .sink_target_option = "index",            \
    }

#define SL__OS_NOTES(SYSTEM)                                                                  \
    "A bulk request is visible once answered: a checkpoint completes only once every "       \
    "action sent before it succeeded, and a restart resends the documents sent after the "    \
    "last checkpoint. Exactly-once is refused (0A000). With a PRIMARY KEY (NOT ENFORCED) a "  \
    "document's `_id` is the key columns' values joined by `document-id.key-delimiter`, "     \
    "each written as Flink's key extractor writes it (Java's text: `true`, "                  \
    "`2026-01-02T03:04:05.500`, `12:00`; numbers, dates and strings as CAST to STRING), so "  \
    "a job moved from Flink rewrites the same documents: inserts and updates are `index` actions (the document "     \
    "replaced), deletes (and an update whose new row a filter dropped) are `delete` "        \
    "actions, so a replay rewrites the same documents and "                                 \
    "the final state is exactly-once. Without a key the server generates the ids: only "      \
    "append-only queries are accepted, and a replay after a crash indexes documents again "   \
    "(duplicates).\n\n"                                                                       \
    "A bulk request is sent when it holds `sink.bulk-flush.max-actions` actions or "          \
    "`sink.bulk-flush.max-size` bytes, when `sink.bulk-flush.interval` passed (a timer "     \
    "sends it when no rows arrive) and at every checkpoint. A request that cannot connect (the next of "       \
    "`hosts` is tried), times out, or gets 429 or 5xx, and items rejected with 429 or 5xx, "  \
    "are retried by `sink.bulk-flush.backoff.*` (Flink's default DISABLED: not at all). "     \
    "Any other failed item (a mapping conflict) fails the job with the document's `_id` (or " \
    "its place in the request), the error's type and reason and the document; with "          \
    "`'sink.failure-handler' = 'ignore'` it is skipped and the skips are counted in the "     \
    "log. Errors show the URL without credentials; `username` and `password` go by HTTP "     \
    "basic authentication. The rows are JSON documents by the `json` format (the only "      \
    "one). The options are Flink's " SYSTEM " connector's; `sink.failure-handler` takes "     \
    "the values of Flink's former `failure-handler` (its class-name form is not taken).\n"

const sl_connector sl__connector_opensearch = {
    .name = "opensearch",
    .description = "Writes rows as JSON documents into an OpenSearch index by the _bulk API "
                   "(at-least-once; upserts by PRIMARY KEY).",
    .options = sl__os_options,
    .noptions = (int)SL_ARRAY_LEN(sl__os_options),
    .has_format = true,
    .default_format = sl__os_connector_default_format,
    .caps = SL__OS_CAPS,
    .check = sl__os_check,
    .create_sink = sl__os_create,
    .notes = SL__OS_NOTES("OpenSearch"),
};

const sl_connector sl__connector_elasticsearch7 = {
    .name = "elasticsearch-7",
    .description = "Writes rows as JSON documents into an Elasticsearch 7 index by the _bulk "
                   "API (at-least-once; upserts by PRIMARY KEY).",
    .options = sl__os_options,
    .noptions = (int)SL_ARRAY_LEN(sl__os_options),
    .has_format = true,
    .default_format = sl__os_connector_default_format,
    .caps = SL__OS_CAPS,
    .check = sl__os_check,
    .create_sink = sl__os_create,
    .notes = SL__OS_NOTES("Elasticsearch 7"),
};
