/*
** http.c — the 'http-sink' connector: a sink that sends the table's rows,
** encoded by its format (json), to an HTTP endpoint with libcurl (the
** options follow Apache Flink's HTTP connector, apache/flink-connector-http,
** formerly getindata's flink-http-connector).
**
** An HTTP API gives at-least-once, never more: a request whose answer was
** lost may have been applied, and a replay after a crash sends again what
** was sent after the last checkpoint. So the sink declares at-least-once,
** mechanism none, and the resolver refuses exactly-once (0A000).
**
**   step          what it does                      crash right after it
**   write         encodes rows; sends each full     rows sent after checkpoint
**                 batch (single mode: each row)      N-1 are sent again on replay
**   pre_commit(N) sends what is buffered; returns   checkpoint N covers only rows
**                 only when every request got 2xx    the receiver acknowledged
**   commit/abort  nothing (no protocol)             -
**   recover       nothing                           the replay resends (dupes)
**
** Retries: a connection error, a timeout, 408, 429 (its Retry-After, in
** seconds, honoured up to the max backoff) and 5xx are retried with an
** exponential backoff, at most 'http.sink.max-retries' times; then the
** job fails (08006 for a connection error or timeout, 58030 for an HTTP
** status). Any other status that is not 2xx fails at once. The message
** names the method, the URL without its credentials and query, the status,
** and the detail the start of the response's body.
**
** Idempotency keys: with a PRIMARY KEY and single mode, every request
** carries the header 'Idempotency-Key' (renamed by
** 'http.sink.idempotency-key.header') = the hex XXH3-128 of the row's key
** columns in the row codec's layout (exec/rowcodec.c): the same key on every
** retry and every replay, so a receiver that honours it applies a row once.
** A batch's rows differ from one run to the next (batches are cut by count
** where the chunks fall), so no request header can name them stably: in
** batch mode there is no key header (setting the option there is refused).
**
** Main routines: the sl_sink_ops sl__http_*, sl__http_send (one request with
** its retries), sl__connector_http_sink (the declaration).
*/
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include <curl/curl.h>
#include <xxhash.h>

#include "../sl_connector_int.h"

#define SL__HTTP_BODY_SNIPPET 200   /* bytes of a response body quoted in an error */
#define SL__HTTP_BODY_KEEP 4096     /* bytes of a response body kept at all */
#define SL__HTTP_HEADER_PREFIX "http.sink.header."

typedef struct sl__http {
    CURL *curl;                  /* one handle, its connection kept alive */
    struct curl_slist *headers;  /* the request headers (Content-Type, the options') */
    char *url;                   /* where to send */
    char *shown_url;             /* url without credentials and query (errors) */
    const char *method;          /* "POST" / "PUT" */
    bool batch;                  /* batch mode: a JSON array of rows a request */
    int64_t batch_size;          /* rows a batch */
    int64_t timeout_ms;          /* a request's timeout */
    int64_t max_retries;         /* retries of a request */
    int64_t backoff_ms;          /* the first retry's wait */
    int64_t max_backoff_ms;      /* the longest wait (also bounds Retry-After) */
    sl_codec *codec;             /* the table's format */
    int npk;                     /* key columns (0: no key header) */
    int *pk;                     /* their indexes */
    char *key_header;            /* "Idempotency-Key", NULL = none sent */
    sl_strbuf rec;               /* one encoded row */
    sl_strbuf body;              /* the open batch: "[row,row" */
    int64_t nbuf;                /* rows in body */
    sl_strbuf key;               /* a row's key columns, encoded */
    sl_strbuf resp;              /* the response's body (first SL__HTTP_BODY_KEEP bytes) */
} sl__http;

static pthread_once_t sl__http_once = PTHREAD_ONCE_INIT;
static void sl__http_global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t sl__http_on_body(char *p, size_t size, size_t n, void *ctx)
{
    sl_strbuf *sb = ctx;
    size_t len = size * n;
    if (sb->len < SL__HTTP_BODY_KEEP)
        sl_strbuf_append_n(sb, p, len < SL__HTTP_BODY_KEEP - sb->len ? len : SL__HTTP_BODY_KEEP - sb->len);
    return len;
}

/* The start of the response's body for an error's detail, one line. */
static void sl__http_snippet(sl_strbuf *out, const sl_strbuf *resp)
{
    size_t n = resp->len < SL__HTTP_BODY_SNIPPET ? resp->len : SL__HTTP_BODY_SNIPPET;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)resp->buf[i];
        sl_strbuf_append_char(out, ch == '\n' || ch == '\r' || ch == '\t' ? ' ' : (char)ch);
    }
    if (resp->len > n)
        sl_strbuf_append(out, "...");
}

/* Whether a status is worth another try: 408, 429 and 5xx. */
static bool sl__http_retryable(long status)
{
    return status == 408 || status == 429 || status >= 500;
}

/* Send body[0..len) with key (NULL: no key header), retrying what may pass
** on a later try. 0 once a 2xx came back, or -1 with err. */
static int sl__http_send(sl__http *h, const char *body, size_t len, const char *key, sl_error *err)
{
    struct curl_slist *hdrs = h->headers, *keyed = NULL;
    char *keyline = NULL;
    if (key) {
        keyline = sl_sprintf("%s: %s", h->key_header, key);
        /* a copy of the shared list with the key appended, freed below */
        for (struct curl_slist *p = h->headers; p; p = p->next)
            keyed = curl_slist_append(keyed, p->data);
        keyed = curl_slist_append(keyed, keyline);
        hdrs = keyed;
    }
    curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);

    int rc = -1;
    int64_t wait_ms = h->backoff_ms;
    for (int64_t attempt = 0;; attempt++) {
        sl_strbuf_reset(&h->resp);
        char cerr[CURL_ERROR_SIZE] = "";
        curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, cerr);
        CURLcode cc = curl_easy_perform(h->curl);
        long status = 0;
        curl_off_t retry_after = 0;
        if (cc == CURLE_OK) {
            curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
            curl_easy_getinfo(h->curl, CURLINFO_RETRY_AFTER, &retry_after);
            if (status >= 200 && status < 300) {
                rc = 0;
                break;
            }
        }
        bool again = cc != CURLE_OK || sl__http_retryable(status);
        if (!again || attempt >= h->max_retries) {
            int64_t tries = attempt + 1;
            if (cc != CURLE_OK) {
                sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1, "HTTP %s %s failed: %s",
                             h->method, h->shown_url, cerr[0] ? cerr : curl_easy_strerror(cc));
                sl_error_detail(err, "%s after %lld attempt%s.",
                                cc == CURLE_OPERATION_TIMEDOUT ? "Timed out" : "No answer",
                                (long long)tries, tries == 1 ? "" : "s");
            } else {
                sl_error_set(err, SL_ERR_IO, -1, "HTTP %s %s failed with status %ld", h->method,
                             h->shown_url, status);
                sl_strbuf d = SL_STRBUF_INIT;
                sl_strbuf_appendf(&d, "%s after %lld attempt%s; response body: ",
                                  again ? "Still failing" : "Not retried (the status is final)",
                                  (long long)tries, tries == 1 ? "" : "s");
                sl__http_snippet(&d, &h->resp);
                sl_error_detail(err, "%s", sl_strbuf_cstr(&d));
                sl_strbuf_free(&d);
            }
            break;
        }
        int64_t ms = wait_ms;
        if (status == 429 && retry_after > 0)
            ms = (int64_t)retry_after * 1000;
        if (ms > h->max_backoff_ms)
            ms = h->max_backoff_ms;
        char why[64];
        snprintf(why, sizeof why, "status %ld", status);
        sl_log(SL_LOG_WARN, "http-sink: %s %s: %s, retry %lld of %lld in %lld ms", h->method,
               h->shown_url, cc != CURLE_OK ? curl_easy_strerror(cc) : why,
               (long long)attempt + 1, (long long)h->max_retries, (long long)ms);
        sl_sleep_nanos(ms * SL_NANOS_PER_MILLI);
        wait_ms = wait_ms > h->max_backoff_ms / 2 ? h->max_backoff_ms : wait_ms * 2;
    }
    curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
    curl_slist_free_all(keyed);
    sl_free(keyline);
    return rc;
}

/* Send the open batch, if any. */
static int sl__http_flush(sl__http *h, sl_error *err)
{
    if (h->nbuf == 0)
        return 0;
    sl_strbuf_append_char(&h->body, ']');
    int rc = sl__http_send(h, h->body.buf, h->body.len, NULL, err);
    sl_strbuf_reset(&h->body);
    h->nbuf = 0;
    return rc;
}

static int sl__http_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    (void)s, (void)epoch, (void)err;
    return 0;
}

static int sl__http_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    sl__http *h = s->impl;
    for (int r = 0; r < c->nrows; r++) {
        if (c->kinds[r] != SL_ROW_INSERT) /* the planner refuses updating inputs */
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "http-sink received a %s row; it takes only inserts",
                                sl_row_kind_name((sl_row_kind)c->kinds[r]));
        sl_strbuf_reset(&h->rec);
        int erc = sl_codec_encode(h->codec, c, r, &h->rec, err);
        if (erc < 0)
            return -1;
        if (erc == SL_CODEC_NULL_RECORD)
            sl_strbuf_append(&h->rec, "null");
        if (!h->batch) {
            char hex[33];
            const char *key = NULL;
            if (h->key_header) {
                sl_strbuf_reset(&h->key);
                for (int k = 0; k < h->npk; k++)
                    sl_row_put_cols(&h->key, c, h->pk[k], 1, r);
                XXH128_hash_t x = XXH3_128bits(h->key.buf, h->key.len);
                snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)x.high64,
                         (unsigned long long)x.low64);
                key = hex;
            }
            if (sl__http_send(h, h->rec.buf, h->rec.len, key, err) != 0)
                return -1;
            continue;
        }
        sl_strbuf_append_char(&h->body, h->nbuf ? ',' : '[');
        sl_strbuf_append_n(&h->body, h->rec.buf, h->rec.len);
        if (++h->nbuf >= h->batch_size && sl__http_flush(h, err) != 0)
            return -1;
    }
    return 0;
}

static int sl__http_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    (void)epoch, (void)committable;
    return sl__http_flush(s->impl, err);
}

/* commit / abort: no protocol, nothing to make visible or discard. */
static int sl__http_commit(sl_sink *s, const char *committable, size_t len, sl_error *err)
{
    (void)s, (void)committable, (void)len, (void)err;
    return 0;
}

static int sl__http_recover(sl_sink *s, const char *const *committables, const size_t *lens,
                            int n, sl_error *err)
{
    (void)s, (void)committables, (void)lens, (void)n, (void)err;
    return 0;
}

static void sl__http_free(sl_sink *s)
{
    if (!s)
        return;
    sl__http *h = s->impl;
    if (h) {
        if (h->curl)
            curl_easy_cleanup(h->curl);
        curl_slist_free_all(h->headers);
        sl_codec_free(h->codec);
        sl_free(h->url);
        sl_free(h->shown_url);
        sl_free(h->pk);
        sl_free(h->key_header);
        sl_strbuf_free(&h->rec);
        sl_strbuf_free(&h->body);
        sl_strbuf_free(&h->key);
        sl_strbuf_free(&h->resp);
        sl_free(h);
    }
    sl_free(s);
}

static const sl_sink_ops sl__http_ops = {
    .begin = sl__http_begin,
    .write = sl__http_write,
    .pre_commit = sl__http_pre_commit,
    .commit = sl__http_commit,
    .abort = sl__http_commit,
    .recover = sl__http_recover,
    .free = sl__http_free,
};

/* url without user:password and query, for messages and logs. */
static char *sl__http_shown_url(const char *url)
{
    CURLU *u = curl_url();
    char *out = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK) {
        curl_url_set(u, CURLUPART_USER, NULL, 0);
        curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
        bool had_query = false;
        char *q = NULL;
        if (curl_url_get(u, CURLUPART_QUERY, &q, 0) == CURLUE_OK && q) {
            had_query = true;
            curl_free(q);
        }
        curl_url_set(u, CURLUPART_QUERY, NULL, 0);
        char *s = NULL;
        if (curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK && s) {
            out = sl_sprintf("%s%s", s, had_query ? "?..." : "");
            curl_free(s);
        }
    }
    curl_url_cleanup(u);
    return out ? out : sl_strdup("<the table's url>");
}

static bool sl__http_batch_mode(const sl_kvlist *o)
{
    const char *m = sl_kvlist_get(o, "http.sink.writer.request.mode");
    return !m || sl_strcasecmp(m, "batch") == 0;
}

static int sl__http_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    *out = NULL;
    const sl_kvlist *o = args->options;
    pthread_once(&sl__http_once, sl__http_global_init);
    sl__http *h = sl_calloc(1, sizeof *h);
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__http_ops;
    s->impl = h;
    h->codec = sl_codec_new(o, args->ncols, args->names, args->types, err);
    if (!h->codec) {
        sl__http_free(s);
        return -1;
    }
    h->url = sl_strdup(sl_kvlist_get(o, "url"));
    h->shown_url = sl__http_shown_url(h->url);
    const char *m = sl_kvlist_get(o, "insert-method");
    h->method = m && sl_strcasecmp(m, "PUT") == 0 ? "PUT" : "POST";
    h->batch = sl__http_batch_mode(o);
    const sl_connector *c = &sl__connector_http_sink;
    if (sl__option_number(c, o, "http.sink.request.batch.size", &h->batch_size, err) != 0 ||
        sl__option_number(c, o, "http.sink.request.timeout", &h->timeout_ms, err) != 0 ||
        sl__option_number(c, o, "http.sink.max-retries", &h->max_retries, err) != 0 ||
        sl__option_number(c, o, "http.sink.retry-strategy.exponential-delay.initial-backoff",
                          &h->backoff_ms, err) != 0 ||
        sl__option_number(c, o, "http.sink.retry-strategy.exponential-delay.max-backoff",
                          &h->max_backoff_ms, err) != 0) {
        sl__http_free(s);
        return -1;
    }
    if (!h->batch && args->npk > 0) {
        const char *kh = sl_kvlist_get(o, "http.sink.idempotency-key.header");
        h->key_header = sl_strdup(kh ? kh : "Idempotency-Key");
        h->npk = args->npk;
        h->pk = sl_calloc((size_t)args->npk, sizeof(int));
        memcpy(h->pk, args->pk, (size_t)args->npk * sizeof(int));
    }
    bool has_ct = false;
    for (int i = 0; i < o->n; i++) {
        const char *k = o->items[i].key;
        if (strncmp(k, SL__HTTP_HEADER_PREFIX, strlen(SL__HTTP_HEADER_PREFIX)) != 0)
            continue;
        const char *name = k + strlen(SL__HTTP_HEADER_PREFIX);
        has_ct = has_ct || sl_strcasecmp(name, "Content-Type") == 0;
        char *line = sl_sprintf("%s: %s", name, o->items[i].value ? o->items[i].value : "");
        h->headers = curl_slist_append(h->headers, line);
        sl_free(line);
    }
    if (!has_ct)
        h->headers = curl_slist_append(h->headers, "Content-Type: application/json");
    h->headers = curl_slist_append(h->headers, "Expect:"); /* no 100-continue round trip */

    h->curl = curl_easy_init();
    if (!h->curl) {
        sl__http_free(s);
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "could not start an HTTP client");
    }
    curl_easy_setopt(h->curl, CURLOPT_URL, h->url);
    curl_easy_setopt(h->curl, CURLOPT_CUSTOMREQUEST, h->method);
    curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
    curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
    curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms);
    curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)h->timeout_ms);
    curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, sl__http_on_body);
    curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &h->resp);
    *out = s;
    return 0;
}

/* A header name is an HTTP token (RFC 9110): letters, digits, !#$%&'*+-.^_`|~ */
static bool sl__http_token(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
            return false;
    return true;
}

static int sl__http_check(const sl_connector *c, const sl_kvlist *opts,
                          const sl_table_shape *shape, sl_error *err)
{
    (void)c, (void)shape;
    const sl_kv *kv = sl_kvlist_find(opts, "url");
    if (kv && (!kv->value || (sl_strncasecmp(kv->value, "http://", 7) != 0 &&
                              sl_strncasecmp(kv->value, "https://", 8) != 0)))
        return sl__invalid_value(err, kv, false, "is not an http:// or https:// URL");
    kv = sl_kvlist_find(opts, "format");
    if (kv && kv->value && strcmp(kv->value, "json") != 0)
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, kv->value_pos,
                            "connector 'http-sink' supports only format 'json'");
    static const char *const positive[] = {"http.sink.request.batch.size",
                                           "http.sink.request.timeout"};
    for (size_t i = 0; i < SL_ARRAY_LEN(positive); i++) {
        if (!(kv = sl_kvlist_find(opts, positive[i])))
            continue;
        int64_t v = 0;
        if (i == 0 ? sl__parse_int(kv->value, &v) == NULL && v < 1
                   : sl__parse_duration_ms(kv->value, &v) == NULL && v < 1)
            return sl__invalid_value(err, kv, false, "must be positive");
    }
    if ((kv = sl_kvlist_find(opts, "http.sink.max-retries"))) {
        int64_t v = 0;
        if (sl__parse_int(kv->value, &v) == NULL && (v < 0 || v > 100))
            return sl__invalid_value(err, kv, false, "must be between 0 and 100");
    }
    kv = sl_kvlist_find(opts, "http.sink.idempotency-key.header");
    if (kv && !sl__http_token(kv->value))
        return sl__invalid_value(err, kv, false, "is not an HTTP header name");
    if (kv && sl__http_batch_mode(opts)) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                     "option 'http.sink.idempotency-key.header' needs "
                     "'http.sink.writer.request.mode' = 'single'");
        sl_error_detail(err, "A batch's rows change from one run to the next, so no request "
                             "header can name them stably.");
        return -1;
    }
    for (int i = 0; i < opts->n; i++) {
        kv = &opts->items[i];
        if (strncmp(kv->key, SL__HTTP_HEADER_PREFIX, strlen(SL__HTTP_HEADER_PREFIX)) != 0)
            continue;
        if (!sl__http_token(kv->key + strlen(SL__HTTP_HEADER_PREFIX)))
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                                "option '%s' does not name an HTTP header", kv->key);
        if (kv->value && strpbrk(kv->value, "\r\n"))
            return sl__invalid_value(err, kv, false, "holds a line break");
    }
    return 0;
}

static const sl_option_spec sl__http_options[] = {
    {.key = "url", .type = SL_OPT_STRING, .required = true,
     .description = "The HTTP endpoint (http:// or https://) every request goes to."},
    {.key = "insert-method", .type = SL_OPT_ENUM, .enum_values = "POST|PUT",
     .default_value = "POST", .description = "The HTTP method of the requests."},
    {.key = "http.sink.header.#", .type = SL_OPT_STRING,
     .description = "A header sent with every request: 'http.sink.header.<Name>' = '<value>' "
                    "(Content-Type defaults to application/json). Authorization headers are "
                    "secret."},
    {.key = "http.sink.writer.request.mode", .type = SL_OPT_ENUM, .enum_values = "single|batch",
     .default_value = "batch",
     .description = "single: one request a row (its JSON object); batch: one request a batch "
                    "(a JSON array of the rows' objects)."},
    {.key = "http.sink.request.batch.size", .type = SL_OPT_INT, .default_value = "500",
     .description = "Rows a request in batch mode (at least 1)."},
    {.key = "http.sink.request.timeout", .type = SL_OPT_DURATION, .default_value = "30 s",
     .description = "How long a request (connecting included) may take before it is retried."},
    {.key = "http.sink.max-retries", .type = SL_OPT_INT, .default_value = "3",
     .description = "Retries of a request after a connection error, a timeout, 408, 429 or "
                    "5xx (0 to 100); then the job fails."},
    {.key = "http.sink.retry-strategy.exponential-delay.initial-backoff",
     .type = SL_OPT_DURATION, .default_value = "100 ms",
     .description = "The wait before the first retry; it doubles with each retry."},
    {.key = "http.sink.retry-strategy.exponential-delay.max-backoff", .type = SL_OPT_DURATION,
     .default_value = "10 s",
     .description = "The longest wait between retries (also bounds a 429's Retry-After)."},
    {.key = "http.sink.idempotency-key.header", .type = SL_OPT_STRING,
     .default_value = "Idempotency-Key",
     .description = "Sluice's: the header carrying a row's key in single mode when the table "
                    "has a PRIMARY KEY."},
};

const sl_connector sl__connector_http_sink = {
    .name = "http-sink",
    .description = "Sends rows to an HTTP endpoint as JSON (at-least-once; idempotency keys "
                   "by PRIMARY KEY).",
    .options = sl__http_options,
    .noptions = (int)SL_ARRAY_LEN(sl__http_options),
    .has_format = true,
    .caps = {
        .source = false,
        .sink = true,
        .source_replayable = false,
        .sink_max = SL_GUARANTEE_AT_LEAST_ONCE,
        .sink_max_why = "a request sent cannot be held back until the checkpoint or taken "
                        "back, so a replay after a failure sends rows again (with a PRIMARY "
                        "KEY in single mode, an Idempotency-Key lets the receiver drop them)",
        .sink_mech = SL_MECH_NONE,
        .sink_updates = false,
        .sink_default = SL_GUARANTEE_AT_LEAST_ONCE,
        .sink_target_option = "url",
    },
    .check = sl__http_check,
    .create_source = NULL,
    .create_sink = sl__http_create,
    .notes =
        "An HTTP API gives at-least-once: a checkpoint completes only once every request "
        "sent before it got a 2xx answer, and a restart resends the rows sent after the last "
        "checkpoint, so the receiver may see a row twice. Exactly-once is refused (0A000).\n\n"
        "With a PRIMARY KEY (NOT ENFORCED) and `'http.sink.writer.request.mode' = 'single'`, "
        "every request carries the header `Idempotency-Key` (renamed by "
        "`http.sink.idempotency-key.header`): the hex XXH3-128 hash of the row's key columns, "
        "the same on every retry and every replay. A receiver that applies a key once makes "
        "the delivery effectively exactly-once (the key must name one row: two rows with the same "
        "key are one row to such a receiver). Batch mode sends no key (a batch's rows differ "
        "from one run to the next); without a key, replays after a crash may send rows "
        "twice.\n\n"
        "Retries: connection errors, timeouts, 408, 429 (its `Retry-After` seconds honoured up "
        "to the max backoff) and 5xx are retried with an exponential backoff; any other status "
        "that is not 2xx fails the job at once, naming the method, the URL (without "
        "credentials and query), the status and the start of the response body. Only inserts "
        "are accepted (an updating query is refused). The options follow Apache Flink's HTTP "
        "connector (`url`, `insert-method`, `http.sink.header.<Name>`, "
        "`http.sink.writer.request.mode`, `http.sink.request.batch.size`, "
        "`http.sink.request.timeout`; the retry options take its lookup source's released "
        "retry names, `http.source.lookup.retry-strategy.exponential-delay.*`, under "
        "`http.sink.` as its sink retry work in progress does); "
        "`http.sink.idempotency-key.header` is Sluice's. Flink's connector name is "
        "`http-async-sink` (getindata's was `http-sink`).\n",
};
