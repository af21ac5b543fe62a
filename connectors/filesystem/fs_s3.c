/*
** fs_s3.c — a small S3 client for the filesystem connector's s3:// paths
** (the sink's multipart uploads, the plan-time check, the source's reads):
** libcurl signs each request with SigV4 (CURLOPT_AWS_SIGV4,
** "aws:amz:<region>:s3"), libexpat parses the small XML answers.
**
** What the client does itself, because curl 7.88 (Debian 12) does not
** (docs/DEVELOPMENT.md "What an S3 sink can rely on"):
**   - the query string is written in canonical form (parameters sorted by
**     name, values percent-encoded with '/' as %2F, "uploads=" with its
**     '='): curl signs it as written;
**   - x-amz-content-sha256 is sent: the body's SHA-256, or UNSIGNED-PAYLOAD
**     for a body of 64 KiB and more (the parts): without the header curl
**     signs the hash of an empty body, which AWS refuses; Content-MD5 with
**     every body, which SeaweedFS and AWS check (SeaweedFS does not check
**     the SHA-256).
**
** Retries: a transport failure (refused, reset, timed out) and 500, 502,
** 503, 504 are tried again with a doubling delay (100 ms .. 2 s) until
** the client's retry budget is spent (a server restarting answers again
** within seconds; right after its start SeaweedFS answers 500 until its
** volume server registered). Every request here may be sent twice:
** UploadPart of the same bytes gives the same ETag, Complete and Abort of
** a finished upload are taken by their callers (NoSuchUpload), and a
** CreateMultipartUpload answered twice leaves an upload nobody lists in a
** committable, which the sink's recover() aborts.
**
** Errors (sl_error): the operation, s3://bucket/key, the S3 error Code and
** Message and the HTTP status; the secret key is never in them (it is only
** handed to curl). SQLSTATEs: 28000 unknown access key, 28P01 signature
** refused (a wrong secret), 42501 access denied, 58P01 a missing bucket,
** 08006 the server not reachable (after the retries), 58030 the rest.
** NoSuchKey and NoSuchUpload are not errors for the callers that ask
** (*found = false).
**
** Main routines: sl__s3_open, sl__s3_put, sl__s3_head, sl__s3_get,
** sl__s3_delete, sl__s3_list, sl__s3_mpu_create / _part / _complete / _abort / _list,
** sl__s3_check; pure helpers for the unit test: sl__s3_parse_uri,
** sl__s3_parse_* and sl__s3_multipart_etag.
*/
#include <curl/curl.h>
#include <expat.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fs_int.h"

#define SL__S3_UNSIGNED_FROM (64 * 1024) /* bodies from this size: UNSIGNED-PAYLOAD */

struct sl__s3 {
    CURL *curl;
    char *endpoint;     /* "http://host:port" (no trailing '/') */
    char *region;       /* signing region */
    char *access;       /* access key id */
    char *secret;       /* secret key (never in a message) */
    char *bucket;       /* the bucket */
    char *sigv4;        /* "aws:amz:<region>:s3" */
    bool path_style;    /* http://host/bucket/key, else http://bucket.host/key */
    int64_t budget_ms;  /* retry budget per request */
    int64_t timeout_ms; /* per attempt */
    sl_strbuf resp;     /* the last answer's body */
    sl_strbuf etag;     /* its ETag header (quotes removed) */
    int64_t length;     /* its Content-Length (-1: none) */
    int64_t mtime_s;    /* its Last-Modified (s since the epoch; 0: none) */
    bool if_none_match; /* the next request carries "If-None-Match: *" (sl__s3_put_new) */
};

/* ------------------------------------------------------------------------
** Hashes, encodings.
*/
static void sl__s3_digest(const EVP_MD *md, const void *p, size_t n, unsigned char *out)
{
    unsigned int len = 0;
    EVP_Digest(p, n, out, &len, md, NULL);
}

static void sl__s3_hex(const unsigned char *d, size_t n, char *out)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[d[i] >> 4];
        out[2 * i + 1] = hx[d[i] & 15];
    }
    out[2 * n] = 0;
}

static void sl__s3_base64(const unsigned char *d, size_t n, char *out)
{
    EVP_EncodeBlock((unsigned char *)out, d, (int)n);
}

void sl__s3_md5_hex(const void *p, size_t n, char out[33])
{
    unsigned char d[16];
    sl__s3_digest(EVP_md5(), p, n, d);
    sl__s3_hex(d, 16, out);
}

static int sl__s3_unhex(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int sl__s3_multipart_etag(const char *const *etags, int n, sl_strbuf *out)
{
    if (n <= 0)
        return -1;
    unsigned char *raw = sl_malloc((size_t)n * 16);
    for (int i = 0; i < n; i++) {
        const char *e = etags[i];
        if (strlen(e) != 32) {
            sl_free(raw);
            return -1;
        }
        for (int k = 0; k < 16; k++) {
            int hi = sl__s3_unhex(e[2 * k]), lo = sl__s3_unhex(e[2 * k + 1]);
            if (hi < 0 || lo < 0) {
                sl_free(raw);
                return -1;
            }
            raw[i * 16 + k] = (unsigned char)(hi << 4 | lo);
        }
    }
    char hex[33];
    sl__s3_md5_hex(raw, (size_t)n * 16, hex);
    sl_free(raw);
    sl_strbuf_appendf(out, "%s-%d", hex, n);
    return 0;
}

/* Percent-encode s (RFC 3986 unreserved bytes stay); '/' stays when
** keep_slash (a key in the path), else %2F (a query value). */
void sl__s3_uri_encode(sl_strbuf *out, const char *s, bool keep_slash)
{
    static const char hx[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~' || (c == '/' && keep_slash)) {
            sl_strbuf_append_char(out, (char)c);
        } else {
            sl_strbuf_append_char(out, '%');
            sl_strbuf_append_char(out, hx[c >> 4]);
            sl_strbuf_append_char(out, hx[c & 15]);
        }
    }
}

int sl__s3_parse_uri(const char *uri, char **bucket, char **prefix)
{
    *bucket = *prefix = NULL;
    const char *p = NULL;
    if (strncmp(uri, "s3://", 5) == 0)
        p = uri + 5;
    else if (strncmp(uri, "s3a://", 6) == 0 || strncmp(uri, "s3p://", 6) == 0)
        p = uri + 6;
    if (!p)
        return -1;
    const char *sl = strchr(p, '/');
    size_t bl = sl ? (size_t)(sl - p) : strlen(p);
    if (bl < 3 || bl > 63)
        return -1;
    for (size_t i = 0; i < bl; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '-' ||
              p[i] == '.'))
            return -1;
    /* The prefix: without leading and trailing '/', no empty, "." or ".."
    ** segment (a key is a name, not a path to normalize). */
    const char *k = sl ? sl + 1 : "";
    while (*k == '/')
        k++;
    size_t kl = strlen(k);
    while (kl > 0 && k[kl - 1] == '/')
        kl--;
    for (size_t at = 0; at < kl;) {
        const char *e = memchr(k + at, '/', kl - at);
        size_t l = e ? (size_t)(e - (k + at)) : kl - at;
        if (l == 0 || (l == 1 && k[at] == '.') || (l == 2 && k[at] == '.' && k[at + 1] == '.'))
            return -1;
        at += l + 1;
    }
    *bucket = sl_strndup(p, bl);
    *prefix = sl_strndup(k, kl);
    return 0;
}

bool sl__s3_is_uri(const char *v)
{
    return v && (strncmp(v, "s3://", 5) == 0 || strncmp(v, "s3a://", 6) == 0 ||
                 strncmp(v, "s3p://", 6) == 0);
}

/* ------------------------------------------------------------------------
** XML: the answer flattened into (path, text) pairs in document order,
** "A/B/C" for element C in B in A; an element with child elements gives a
** pair with text NULL at its end (a record's end: "ListBucketResult/
** Contents"). Namespaces are ignored (the local name only).
*/
typedef struct sl__s3_xml {
    sl_strbuf path; /* the current element path */
    sl_strbuf text; /* character data of the current leaf */
    int depth;
    bool child[32]; /* element at depth i had a child element */
    sl_list *out;   /* alternating path, text (char *, text may be NULL) */
} sl__s3_xml;

static void XMLCALL sl__s3_xml_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    (void)attrs;
    sl__s3_xml *x = ud;
    const char *colon = strrchr(name, ':');
    if (x->depth > 0 && x->depth <= 32)
        x->child[x->depth - 1] = true;
    if (x->depth < 32)
        x->child[x->depth] = false;
    x->depth++;
    if (x->path.len > 0)
        sl_strbuf_append_char(&x->path, '/');
    sl_strbuf_append(&x->path, colon ? colon + 1 : name);
    sl_strbuf_reset(&x->text);
}

static void XMLCALL sl__s3_xml_end(void *ud, const XML_Char *name)
{
    (void)name;
    sl__s3_xml *x = ud;
    x->depth--;
    bool had_child = x->depth < 32 && x->child[x->depth];
    sl_list_push(x->out, sl_strdup(sl_strbuf_cstr(&x->path)));
    sl_list_push(x->out, had_child ? NULL : sl_strdup(sl_strbuf_cstr(&x->text)));
    sl_strbuf_reset(&x->text);
    char *sl = strrchr(x->path.buf, '/');
    x->path.len = sl ? (size_t)(sl - x->path.buf) : 0;
    if (x->path.buf)
        x->path.buf[x->path.len] = 0;
}

static void XMLCALL sl__s3_xml_chars(void *ud, const XML_Char *s, int len)
{
    sl__s3_xml *x = ud;
    sl_strbuf_append_n(&x->text, s, (size_t)len);
}

/* The pairs of xml, or NULL when it is not well-formed. */
static sl_list *sl__s3_xml_flatten(const char *xml, size_t len)
{
    XML_Parser p = XML_ParserCreate("UTF-8");
    if (!p)
        return NULL;
    sl__s3_xml x = {.path = SL_STRBUF_INIT, .text = SL_STRBUF_INIT, .out = sl_list_new()};
    XML_SetUserData(p, &x);
    XML_SetElementHandler(p, sl__s3_xml_start, sl__s3_xml_end);
    XML_SetCharacterDataHandler(p, sl__s3_xml_chars);
    bool ok = XML_Parse(p, xml, (int)len, 1) == XML_STATUS_OK;
    XML_ParserFree(p);
    sl_strbuf_free(&x.path);
    sl_strbuf_free(&x.text);
    if (!ok) {
        sl_list_free(x.out, sl_free);
        return NULL;
    }
    return x.out;
}

/* The text of the first pair named path, or NULL. */
static const char *sl__s3_xml_get(const sl_list *l, const char *path)
{
    for (int i = 0; i + 1 < l->n; i += 2)
        if (strcmp(l->items[i], path) == 0 && l->items[i + 1])
            return l->items[i + 1];
    return NULL;
}

static char *sl__s3_unquote(const char *e)
{
    size_t n = strlen(e);
    if (n >= 2 && e[0] == '"' && e[n - 1] == '"')
        return sl_strndup(e + 1, n - 2);
    if (n >= 12 && strncmp(e, "&quot;", 6) == 0 && strcmp(e + n - 6, "&quot;") == 0)
        return sl_strndup(e + 6, n - 12);
    return sl_strdup(e);
}

void sl__s3_obj_free(void *p)
{
    sl__s3_obj *o = p;
    if (!o)
        return;
    sl_free(o->key);
    sl_free(o->etag);
    sl_free(o->upload);
    sl_free(o);
}

int sl__s3_parse_error(const char *xml, size_t len, char **code, char **message)
{
    *code = *message = NULL;
    sl_list *l = sl__s3_xml_flatten(xml, len);
    if (!l)
        return -1;
    const char *c = sl__s3_xml_get(l, "Error/Code"), *m = sl__s3_xml_get(l, "Error/Message");
    int rc = c ? 0 : -1;
    if (c) {
        *code = sl_strdup(c);
        *message = sl_strdup(m ? m : "");
    }
    sl_list_free(l, sl_free);
    return rc;
}

int sl__s3_parse_initiate(const char *xml, size_t len, char **upload_id)
{
    *upload_id = NULL;
    sl_list *l = sl__s3_xml_flatten(xml, len);
    if (!l)
        return -1;
    const char *u = sl__s3_xml_get(l, "InitiateMultipartUploadResult/UploadId");
    if (u && u[0])
        *upload_id = sl_strdup(u);
    sl_list_free(l, sl_free);
    return *upload_id ? 0 : -1;
}

int sl__s3_parse_list(const char *xml, size_t len, sl_list *out, bool *truncated, char **next)
{
    *truncated = false;
    *next = NULL;
    sl_list *l = sl__s3_xml_flatten(xml, len);
    if (!l)
        return -1;
    sl__s3_obj cur = {.size = -1};
    int rc = 0;
    for (int i = 0; i + 1 < l->n; i += 2) {
        const char *p = l->items[i], *t = l->items[i + 1];
        if (strcmp(p, "ListBucketResult") == 0)
            continue; /* the root's end */
        if (strncmp(p, "ListBucketResult/", 17) != 0) {
            rc = -1;
            break;
        }
        p += 17;
        if (strcmp(p, "Contents/Key") == 0) {
            sl_free(cur.key);
            cur.key = sl_strdup(t);
        } else if (strcmp(p, "Contents/Size") == 0 && t) {
            char *e = NULL;
            long long v = strtoll(t, &e, 10);
            cur.size = e && *e == 0 && v >= 0 ? (int64_t)v : -1;
        } else if (strcmp(p, "Contents/ETag") == 0 && t) {
            sl_free(cur.etag);
            cur.etag = sl__s3_unquote(t);
        } else if (strcmp(p, "Contents") == 0) {
            if (!cur.key || cur.size < 0) {
                rc = -1;
                break;
            }
            sl__s3_obj *o = sl_malloc(sizeof *o);
            *o = cur;
            sl_list_push(out, o);
            cur = (sl__s3_obj){.size = -1};
        } else if (strcmp(p, "IsTruncated") == 0 && t) {
            *truncated = strcmp(t, "true") == 0;
        } else if (strcmp(p, "NextContinuationToken") == 0 && t) {
            sl_free(*next);
            *next = sl_strdup(t);
        }
    }
    sl_free(cur.key);
    sl_free(cur.etag);
    sl_list_free(l, sl_free);
    if (rc == 0 && *truncated && !*next)
        rc = -1;
    return rc;
}

int sl__s3_parse_uploads(const char *xml, size_t len, sl_list *out, bool *truncated,
                         char **next_key, char **next_upload)
{
    *truncated = false;
    *next_key = *next_upload = NULL;
    sl_list *l = sl__s3_xml_flatten(xml, len);
    if (!l)
        return -1;
    sl__s3_obj cur = {.size = -1};
    int rc = 0;
    for (int i = 0; i + 1 < l->n; i += 2) {
        const char *p = l->items[i], *t = l->items[i + 1];
        if (strcmp(p, "ListMultipartUploadsResult") == 0)
            continue; /* the root's end */
        if (strncmp(p, "ListMultipartUploadsResult/", 27) != 0) {
            rc = -1;
            break;
        }
        p += 27;
        if (strcmp(p, "Upload/Key") == 0) {
            sl_free(cur.key);
            cur.key = sl_strdup(t);
        } else if (strcmp(p, "Upload/UploadId") == 0) {
            sl_free(cur.upload);
            cur.upload = sl_strdup(t);
        } else if (strcmp(p, "Upload") == 0) {
            if (!cur.key || !cur.upload || !cur.upload[0]) {
                rc = -1;
                break;
            }
            sl__s3_obj *o = sl_malloc(sizeof *o);
            *o = cur;
            sl_list_push(out, o);
            cur = (sl__s3_obj){.size = -1};
        } else if (strcmp(p, "IsTruncated") == 0 && t) {
            *truncated = strcmp(t, "true") == 0;
        } else if (strcmp(p, "NextKeyMarker") == 0 && t) {
            sl_free(*next_key);
            *next_key = sl_strdup(t);
        } else if (strcmp(p, "NextUploadIdMarker") == 0 && t) {
            sl_free(*next_upload);
            *next_upload = sl_strdup(t);
        }
    }
    sl_free(cur.key);
    sl_free(cur.upload);
    sl_list_free(l, sl_free);
    if (rc == 0 && *truncated && (!*next_key || !(*next_key)[0]))
        rc = -1;
    return rc;
}

/* ------------------------------------------------------------------------
** The client.
*/
static size_t sl__s3_on_body(char *p, size_t size, size_t n, void *ud)
{
    sl__s3 *c = ud;
    sl_strbuf_append_n(&c->resp, p, size * n);
    return size * n;
}

static size_t sl__s3_on_header(char *p, size_t size, size_t n, void *ud)
{
    sl__s3 *c = ud;
    size_t len = size * n;
    if (len > 5 && strncasecmp(p, "etag:", 5) == 0) {
        const char *v = p + 5, *e = p + len;
        while (v < e && (*v == ' ' || *v == '\t'))
            v++;
        while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
            e--;
        if (e - v >= 2 && *v == '"' && e[-1] == '"') {
            v++;
            e--;
        }
        sl_strbuf_reset(&c->etag);
        sl_strbuf_append_n(&c->etag, v, (size_t)(e - v));
    }
    return len;
}

static char *sl__s3_opt(const sl_kvlist *opts, const char *key, const char *env)
{
    const char *v = opts ? sl_kvlist_get(opts, key) : NULL;
    if (!v || !v[0])
        v = env ? getenv(env) : NULL;
    return v && v[0] ? sl_strdup(v) : NULL;
}

static pthread_once_t sl__s3_once = PTHREAD_ONCE_INIT;

static void sl__s3_global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

sl__s3 *sl__s3_open(const sl_kvlist *opts, const char *bucket, sl_error *err)
{
    pthread_once(&sl__s3_once, sl__s3_global_init);
    sl__s3 *c = sl_calloc(1, sizeof *c);
    c->access = sl__s3_opt(opts, "s3.access-key", "AWS_ACCESS_KEY_ID");
    c->secret = sl__s3_opt(opts, "s3.secret-key", "AWS_SECRET_ACCESS_KEY");
    c->region = sl__s3_opt(opts, "s3.region", "AWS_REGION");
    if (!c->region)
        c->region = sl__s3_opt(NULL, NULL, "AWS_DEFAULT_REGION");
    if (!c->region)
        c->region = sl_strdup("us-east-1");
    c->endpoint = sl__s3_opt(opts, "s3.endpoint", "AWS_ENDPOINT_URL_S3");
    if (!c->endpoint)
        c->endpoint = sl__s3_opt(NULL, NULL, "AWS_ENDPOINT_URL");
    const char *ps = opts ? sl_kvlist_get(opts, "s3.path.style.access") : NULL;
    /* Unset: path-style with an endpoint of one's own (MinIO, SeaweedFS:
    ** no DNS name per bucket), virtual-hosted on AWS. */
    c->path_style = c->endpoint != NULL;
    if (ps && sl_option_parse_bool(ps, &c->path_style, -1, err) != 0)
        goto fail;
    if (!c->endpoint)
        c->endpoint = sl_sprintf("https://s3.%s.amazonaws.com", c->region);
    else if (!strstr(c->endpoint, "://")) {
        char *e = sl_sprintf("https://%s", c->endpoint);
        sl_free(c->endpoint);
        c->endpoint = e;
    }
    for (size_t n = strlen(c->endpoint); n > 0 && c->endpoint[n - 1] == '/'; n--)
        c->endpoint[n - 1] = 0;
    if (!c->access || !c->secret) {
        sl_error_set(err, "28000", -1, "no S3 credentials for bucket \"%s\"", bucket);
        sl_error_hint(err, "Set 's3.access-key' and 's3.secret-key' (in the table's WITH; SET for "
                           "checkpoints in S3), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                           "in the environment.");
        goto fail;
    }
    c->bucket = sl_strdup(bucket);
    c->sigv4 = sl_sprintf("aws:amz:%s:s3", c->region);
    c->budget_ms = 30000;
    c->timeout_ms = 60000;
    c->curl = curl_easy_init();
    if (!c->curl) {
        sl_error_set(err, SL_ERR_INTERNAL, -1, "could not create a libcurl handle");
        goto fail;
    }
    return c;
fail:
    sl__s3_free(c);
    return NULL;
}

void sl__s3_set_budget(sl__s3 *c, int64_t ms)
{
    c->budget_ms = ms;
}

void sl__s3_free(sl__s3 *c)
{
    if (!c)
        return;
    if (c->curl)
        curl_easy_cleanup(c->curl);
    sl_free(c->endpoint);
    sl_free(c->region);
    sl_free(c->access);
    if (c->secret)
        memset(c->secret, 0, strlen(c->secret));
    sl_free(c->secret);
    sl_free(c->bucket);
    sl_free(c->sigv4);
    sl_strbuf_free(&c->resp);
    sl_strbuf_free(&c->etag);
    sl_free(c);
}

static void sl__s3_url(const sl__s3 *c, const char *key, const char *query, sl_strbuf *u)
{
    if (c->path_style) {
        sl_strbuf_appendf(u, "%s/%s/", c->endpoint, c->bucket);
    } else {
        const char *h = strstr(c->endpoint, "://");
        sl_strbuf_append_n(u, c->endpoint, (size_t)(h + 3 - c->endpoint));
        sl_strbuf_appendf(u, "%s.%s/", c->bucket, h + 3);
    }
    if (key)
        sl__s3_uri_encode(u, key, true);
    if (query && query[0])
        sl_strbuf_appendf(u, "?%s", query);
}

static void sl__s3_sleep_ms(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* One request, tried again on transport failures and 5xx within the
** budget. *status = the HTTP status (0: no answer). -1 with err only when
** no answer came (08006); an S3 error answer is for the caller. */
static int sl__s3_request(sl__s3 *c, const char *method, const char *key, const char *query,
                          const char *ctype, const void *body, size_t blen, const char *range,
                          long *status, sl_error *err)
{
    /* A part (MiBs) is sent as UNSIGNED-PAYLOAD: its SHA-256 would cost
    ** more CPU than its MD5, and Content-MD5 already has the server check
    ** the bytes (AWS takes UNSIGNED-PAYLOAD for S3 requests). */
    unsigned char sha[32], md5[16];
    char sha_hex[65], md5_b64[32];
    if (body && blen >= SL__S3_UNSIGNED_FROM) {
        strcpy(sha_hex, "UNSIGNED-PAYLOAD");
    } else {
        sl__s3_digest(EVP_sha256(), body ? body : "", body ? blen : 0, sha);
        sl__s3_hex(sha, 32, sha_hex);
    }
    sl_strbuf url = SL_STRBUF_INIT, h = SL_STRBUF_INIT;
    sl__s3_url(c, key, query, &url);
    struct curl_slist *hdrs = NULL;
    sl_strbuf_appendf(&h, "x-amz-content-sha256: %s", sha_hex);
    hdrs = curl_slist_append(hdrs, sl_strbuf_cstr(&h));
    if (c->if_none_match) /* signed with the rest: S3 checks it at write time */
        hdrs = curl_slist_append(hdrs, "If-None-Match: *");
    if (body) {
        sl__s3_digest(EVP_md5(), body, blen, md5);
        sl__s3_base64(md5, 16, md5_b64);
        sl_strbuf_reset(&h);
        sl_strbuf_appendf(&h, "Content-MD5: %s", md5_b64);
        hdrs = curl_slist_append(hdrs, sl_strbuf_cstr(&h));
        sl_strbuf_reset(&h);
        sl_strbuf_appendf(&h, "Content-Type: %s", ctype ? ctype : "application/octet-stream");
        hdrs = curl_slist_append(hdrs, sl_strbuf_cstr(&h));
    }
    /* No "Expect:" to turn 100-continue off: curl 7.88 signs the empty
    ** header it then leaves out (403 SignatureDoesNotMatch). */
    int64_t start = sl_monotonic_nanos(), delay = 100;
    int rc = 0;
    char cerr[CURL_ERROR_SIZE];
    for (;;) {
        curl_easy_reset(c->curl);
        sl_strbuf_reset(&c->resp);
        sl_strbuf_reset(&c->etag);
        c->length = -1;
        c->mtime_s = 0;
        cerr[0] = 0;
        curl_easy_setopt(c->curl, CURLOPT_URL, sl_strbuf_cstr(&url));
        curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdrs);
        curl_easy_setopt(c->curl, CURLOPT_AWS_SIGV4, c->sigv4);
        curl_easy_setopt(c->curl, CURLOPT_USERNAME, c->access);
        curl_easy_setopt(c->curl, CURLOPT_PASSWORD, c->secret);
        curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
        curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
        curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, sl__s3_on_body);
        curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
        curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, sl__s3_on_header);
        curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, c);
        curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, cerr);
        if (range)
            curl_easy_setopt(c->curl, CURLOPT_RANGE, range);
        if (strcmp(method, "HEAD") == 0) {
            curl_easy_setopt(c->curl, CURLOPT_NOBODY, 1L);
            curl_easy_setopt(c->curl, CURLOPT_FILETIME, 1L);
        } else if (strcmp(method, "GET") != 0) {
            curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
            if (body || strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0) {
                curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body ? (const char *)body : "");
                curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
                                 (curl_off_t)(body ? blen : 0));
            }
        }
        CURLcode cc = curl_easy_perform(c->curl);
        long st = 0;
        if (cc == CURLE_OK)
            curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &st);
        if (cc == CURLE_OK && strcmp(method, "HEAD") == 0) {
            curl_off_t cl = -1;
            curl_easy_getinfo(c->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
            c->length = (int64_t)cl;
            curl_off_t ft = -1;
            curl_easy_getinfo(c->curl, CURLINFO_FILETIME_T, &ft);
            c->mtime_s = ft > 0 ? (int64_t)ft : 0;
        }
        bool again = cc != CURLE_OK || st == 500 || st == 502 || st == 503 || st == 504;
        int64_t spent = (sl_monotonic_nanos() - start) / 1000000;
        if (!again || spent + delay > c->budget_ms) {
            if (cc != CURLE_OK) {
                rc = sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                                  "S3 request %s \"s3://%s/%s\" failed: %s", method, c->bucket,
                                  key ? key : "", cerr[0] ? cerr : curl_easy_strerror(cc));
                sl_error_detail(err, "The endpoint is %s; tried for %" PRId64 " ms.",
                                c->endpoint, spent);
            }
            *status = st;
            break;
        }
        sl__s3_sleep_ms(delay);
        delay = delay * 2 > 2000 ? 2000 : delay * 2;
    }
    curl_slist_free_all(hdrs);
    sl_strbuf_free(&url);
    sl_strbuf_free(&h);
    return rc;
}

/* The S3 error of the last answer (status st) as err. */
static int sl__s3_fail(sl__s3 *c, const char *op, const char *key, long st, sl_error *err)
{
    char *code = NULL, *msg = NULL;
    if (c->resp.len == 0 || sl__s3_parse_error(c->resp.buf, c->resp.len, &code, &msg) != 0) {
        /* HEAD has no body: the status says what it can. */
        code = sl_strdup(st == 404 ? "NotFound" : st == 403 ? "Forbidden" : "");
        msg = sl_strdup("");
    }
    const char *state = strcmp(code, "InvalidAccessKeyId") == 0       ? "28000"
                        : strcmp(code, "SignatureDoesNotMatch") == 0  ? "28P01"
                        : strcmp(code, "AccessDenied") == 0           ? "42501"
                        : strcmp(code, "NoSuchBucket") == 0           ? SL_ERR_UNDEFINED_FILE
                                                                      : SL_ERR_IO;
    if (strcmp(code, "NoSuchBucket") == 0)
        sl_error_set(err, state, -1, "S3 bucket \"%s\" does not exist", c->bucket);
    else if (strcmp(state, "28000") == 0 || strcmp(state, "28P01") == 0)
        sl_error_set(err, state, -1, "S3 refused the credentials of access key \"%s\" (%s)",
                     c->access, code);
    else
        sl_error_set(err, state, -1, "S3 %s of \"s3://%s/%s\" failed: %s%sHTTP %ld", op,
                     c->bucket, key ? key : "", code, code[0] ? ", " : "", st);
    sl_error_detail(err, "%s %s (HTTP %ld) from %s: %s", op, code[0] ? code : "error", st,
                    c->endpoint, msg[0] ? msg : "(no message)");
    if (strcmp(state, "28P01") == 0)
        sl_error_hint(err, "Check 's3.secret-key' (or AWS_SECRET_ACCESS_KEY).");
    else if (strcmp(state, "28000") == 0)
        sl_error_hint(err, "Check 's3.access-key' (or AWS_ACCESS_KEY_ID).");
    sl_free(code);
    sl_free(msg);
    return -1;
}

/* Whether the last answer is the S3 error code want. */
static bool sl__s3_code_is(sl__s3 *c, const char *want)
{
    char *code = NULL, *msg = NULL;
    bool r = c->resp.len > 0 && sl__s3_parse_error(c->resp.buf, c->resp.len, &code, &msg) == 0 &&
             strcmp(code, want) == 0;
    sl_free(code);
    sl_free(msg);
    return r;
}

int sl__s3_put(sl__s3 *c, const char *key, const void *data, size_t len, sl_error *err)
{
    long st = 0;
    if (sl__s3_request(c, "PUT", key, NULL, NULL, data ? data : "", len, NULL, &st, err) != 0)
        return -1;
    return st / 100 == 2 ? 0 : sl__s3_fail(c, "PutObject", key, st, err);
}

int sl__s3_put_new(sl__s3 *c, const char *key, const void *data, size_t len, bool *existed,
                   sl_error *err)
{
    long st = 0;
    *existed = false;
    c->if_none_match = true;
    int rc = sl__s3_request(c, "PUT", key, NULL, NULL, data ? data : "", len, NULL, &st, err);
    c->if_none_match = false;
    if (rc != 0)
        return -1;
    if (st == 412) { /* PreconditionFailed: the key exists */
        *existed = true;
        return 0;
    }
    return st / 100 == 2 ? 0 : sl__s3_fail(c, "PutObject", key, st, err);
}

int sl__s3_delete(sl__s3 *c, const char *key, sl_error *err)
{
    long st = 0;
    if (sl__s3_request(c, "DELETE", key, NULL, NULL, NULL, 0, NULL, &st, err) != 0)
        return -1;
    return st / 100 == 2 || st == 404 ? 0 : sl__s3_fail(c, "DeleteObject", key, st, err);
}

const char *sl__s3_bucket_name(const sl__s3 *c)
{
    return c->bucket;
}

int sl__s3_head(sl__s3 *c, const char *key, bool *found, int64_t *size, char **etag,
                int64_t *mtime_ms, sl_error *err)
{
    long st = 0;
    *found = false;
    if (etag)
        *etag = NULL;
    if (sl__s3_request(c, "HEAD", key, NULL, NULL, NULL, 0, NULL, &st, err) != 0)
        return -1;
    if (st == 404)
        return 0;
    if (st / 100 != 2)
        return sl__s3_fail(c, "HeadObject", key, st, err);
    *found = true;
    *size = c->length;
    if (etag)
        *etag = sl_strdup(sl_strbuf_cstr(&c->etag));
    if (mtime_ms)
        *mtime_ms = c->mtime_s * 1000;
    return 0;
}

int sl__s3_get(sl__s3 *c, const char *key, int64_t off, int64_t len, sl_strbuf *out, bool *found,
               sl_error *err)
{
    long st = 0;
    *found = false;
    char range[64] = "";
    if (off > 0 && len >= 0)
        snprintf(range, sizeof range, "%" PRId64 "-%" PRId64, off, off + len - 1);
    else if (off > 0)
        snprintf(range, sizeof range, "%" PRId64 "-", off);
    else if (len >= 0)
        snprintf(range, sizeof range, "0-%" PRId64, len - 1);
    if (len == 0)
        range[0] = 0; /* nothing to read: a GET without range tells whether it exists */
    if (sl__s3_request(c, "GET", key, NULL, NULL, NULL, 0, range[0] ? range : NULL, &st, err) !=
        0)
        return -1;
    if (st == 404 && sl__s3_code_is(c, "NoSuchKey"))
        return 0;
    *found = true;
    if (st == 416) /* the range starts at or after the end */
        return 0;
    if (st / 100 != 2) {
        *found = false;
        return sl__s3_fail(c, "GetObject", key, st, err);
    }
    if (len != 0)
        sl_strbuf_append_n(out, c->resp.buf ? c->resp.buf : "", c->resp.len);
    return 0;
}

static int sl__s3_bad_answer(sl__s3 *c, const char *op, const char *key, sl_error *err)
{
    sl_error_set(err, SL_ERR_IO, -1, "S3 %s of \"s3://%s/%s\": the answer could not be read", op,
                 c->bucket, key ? key : "");
    sl_error_detail(err, "It begins \"%.*s\".", (int)(c->resp.len > 200 ? 200 : c->resp.len),
                    c->resp.buf ? c->resp.buf : "");
    return -1;
}

int sl__s3_list(sl__s3 *c, const char *prefix, int max, sl_list *out, sl_error *err)
{
    char *token = NULL;
    int rc = 0;
    sl_strbuf q = SL_STRBUF_INIT;
    for (;;) {
        /* Canonical order: continuation-token, list-type, max-keys, prefix. */
        sl_strbuf_reset(&q);
        if (token) {
            sl_strbuf_append(&q, "continuation-token=");
            sl__s3_uri_encode(&q, token, false);
            sl_strbuf_append_char(&q, '&');
        }
        sl_strbuf_append(&q, "list-type=2");
        if (max > 0)
            sl_strbuf_appendf(&q, "&max-keys=%d", max);
        sl_strbuf_append(&q, "&prefix=");
        sl__s3_uri_encode(&q, prefix, false);
        long st = 0;
        if (sl__s3_request(c, "GET", NULL, sl_strbuf_cstr(&q), NULL, NULL, 0, NULL, &st, err) !=
            0) {
            rc = -1;
            break;
        }
        if (st / 100 != 2) {
            rc = sl__s3_fail(c, "ListObjectsV2", prefix, st, err);
            break;
        }
        bool trunc = false;
        char *next = NULL;
        if (sl__s3_parse_list(c->resp.buf, c->resp.len, out, &trunc, &next) != 0) {
            sl_free(next);
            rc = sl__s3_bad_answer(c, "ListObjectsV2", prefix, err);
            break;
        }
        sl_free(token);
        token = next;
        if (!trunc || max > 0)
            break;
    }
    sl_free(token);
    sl_strbuf_free(&q);
    return rc;
}

int sl__s3_mpu_create(sl__s3 *c, const char *key, char **upload_id, sl_error *err)
{
    long st = 0;
    *upload_id = NULL;
    if (sl__s3_request(c, "POST", key, "uploads=", NULL, NULL, 0, NULL, &st, err) != 0)
        return -1;
    if (st / 100 != 2)
        return sl__s3_fail(c, "CreateMultipartUpload", key, st, err);
    if (sl__s3_parse_initiate(c->resp.buf, c->resp.len, upload_id) != 0)
        return sl__s3_bad_answer(c, "CreateMultipartUpload", key, err);
    return 0;
}

/* "partNumber=N&uploadId=<id>" / "uploadId=<id>" (canonical). */
static void sl__s3_upload_query(sl_strbuf *q, int part, const char *upload_id)
{
    if (part > 0)
        sl_strbuf_appendf(q, "partNumber=%d&", part);
    sl_strbuf_append(q, "uploadId=");
    sl__s3_uri_encode(q, upload_id, false);
}

int sl__s3_mpu_part(sl__s3 *c, const char *key, const char *upload_id, int part, const void *data,
                    size_t len, char **etag, sl_error *err)
{
    sl_strbuf q = SL_STRBUF_INIT;
    sl__s3_upload_query(&q, part, upload_id);
    long st = 0;
    *etag = NULL;
    int rc = sl__s3_request(c, "PUT", key, sl_strbuf_cstr(&q), NULL, data ? data : "", len, NULL,
                            &st, err);
    sl_strbuf_free(&q);
    if (rc != 0)
        return -1;
    if (st / 100 != 2)
        return sl__s3_fail(c, "UploadPart", key, st, err);
    /* A part's ETag is the MD5 of its bytes (the server checked them
    ** against Content-MD5) — except with SSE-KMS on AWS, where it is another
    ** 32 hex digits: the server's, as Complete wants it. */
    char md5[33];
    sl__s3_md5_hex(data ? data : "", len, md5);
    const char *e = c->etag.len > 0 ? sl_strbuf_cstr(&c->etag) : md5;
    bool hex = strlen(e) == 32;
    for (size_t i = 0; hex && i < 32; i++)
        hex = sl__s3_unhex(e[i]) >= 0;
    if (!hex)
        return sl_error_set(err, SL_ERR_IO, -1,
                            "S3 UploadPart of \"s3://%s/%s\" part %d: unexpected ETag \"%s\"",
                            c->bucket, key, part, e);
    *etag = sl_strdup(e);
    for (char *x = *etag; *x; x++)
        if (*x >= 'A' && *x <= 'F')
            *x = (char)(*x - 'A' + 'a');
    return 0;
}

int sl__s3_mpu_complete(sl__s3 *c, const char *key, const char *upload_id,
                        const char *const *etags, int n, bool *no_upload, sl_error *err)
{
    *no_upload = false;
    sl_strbuf q = SL_STRBUF_INIT, b = SL_STRBUF_INIT;
    sl__s3_upload_query(&q, 0, upload_id);
    sl_strbuf_append(&b, "<CompleteMultipartUpload>");
    for (int i = 0; i < n; i++)
        sl_strbuf_appendf(&b, "<Part><PartNumber>%d</PartNumber><ETag>\"%s\"</ETag></Part>", i + 1,
                          etags[i]);
    sl_strbuf_append(&b, "</CompleteMultipartUpload>");
    long st = 0;
    /* Never over an object at the key (another job's output, or this
    ** upload's completed before): 412, and the caller looks at the object. */
    c->if_none_match = true;
    int rc = sl__s3_request(c, "POST", key, sl_strbuf_cstr(&q), "application/xml", b.buf, b.len,
                            NULL, &st, err);
    c->if_none_match = false;
    sl_strbuf_free(&q);
    sl_strbuf_free(&b);
    if (rc != 0)
        return -1;
    if ((st == 404 && sl__s3_code_is(c, "NoSuchUpload")) || st == 412) {
        *no_upload = true;
        return 0;
    }
    if (st / 100 != 2)
        return sl__s3_fail(c, "CompleteMultipartUpload", key, st, err);
    /* AWS may answer 200 and put an error in the body (after its headers
    ** went out): that is a failure. */
    char *code = NULL, *msg = NULL;
    if (c->resp.len > 0 && sl__s3_parse_error(c->resp.buf, c->resp.len, &code, &msg) == 0) {
        sl_free(code);
        sl_free(msg);
        return sl__s3_fail(c, "CompleteMultipartUpload", key, st, err);
    }
    return 0;
}

int sl__s3_mpu_abort(sl__s3 *c, const char *key, const char *upload_id, sl_error *err)
{
    sl_strbuf q = SL_STRBUF_INIT;
    sl__s3_upload_query(&q, 0, upload_id);
    long st = 0;
    int rc = sl__s3_request(c, "DELETE", key, sl_strbuf_cstr(&q), NULL, NULL, 0, NULL, &st, err);
    sl_strbuf_free(&q);
    if (rc != 0)
        return -1;
    if (st / 100 == 2 || (st == 404 && sl__s3_code_is(c, "NoSuchUpload")))
        return 0;
    return sl__s3_fail(c, "AbortMultipartUpload", key, st, err);
}

int sl__s3_mpu_list(sl__s3 *c, const char *prefix, sl_list *out, sl_error *err)
{
    char *km = NULL, *um = NULL;
    int rc = 0;
    sl_strbuf q = SL_STRBUF_INIT;
    for (;;) {
        /* Canonical order: key-marker, prefix, upload-id-marker, uploads. */
        sl_strbuf_reset(&q);
        if (km) {
            sl_strbuf_append(&q, "key-marker=");
            sl__s3_uri_encode(&q, km, false);
            sl_strbuf_append_char(&q, '&');
        }
        sl_strbuf_append(&q, "prefix=");
        sl__s3_uri_encode(&q, prefix, false);
        if (um && um[0]) {
            sl_strbuf_append(&q, "&upload-id-marker=");
            sl__s3_uri_encode(&q, um, false);
        }
        sl_strbuf_append(&q, "&uploads=");
        long st = 0;
        if (sl__s3_request(c, "GET", NULL, sl_strbuf_cstr(&q), NULL, NULL, 0, NULL, &st, err) !=
            0) {
            rc = -1;
            break;
        }
        if (st / 100 != 2) {
            rc = sl__s3_fail(c, "ListMultipartUploads", prefix, st, err);
            break;
        }
        bool trunc = false;
        char *nk = NULL, *nu = NULL;
        if (sl__s3_parse_uploads(c->resp.buf, c->resp.len, out, &trunc, &nk, &nu) != 0) {
            sl_free(nk);
            sl_free(nu);
            rc = sl__s3_bad_answer(c, "ListMultipartUploads", prefix, err);
            break;
        }
        sl_free(km);
        sl_free(um);
        km = nk;
        um = nu;
        if (!trunc)
            break;
    }
    sl_free(km);
    sl_free(um);
    sl_strbuf_free(&q);
    return rc;
}

int sl__s3_check(sl__s3 *c, const char *prefix, bool write, sl_error *err)
{
    /* A GET, not HeadBucket: HEAD has no body, so no error Code to tell a
    ** wrong secret from a missing bucket. */
    sl_list *l = sl_list_new();
    int rc = sl__s3_list(c, prefix, 1, l, err);
    sl_list_free(l, sl__s3_obj_free);
    if (rc != 0 || !write)
        return rc;
    /* May it write? Start a multipart upload of a probe key (hidden: '_')
    ** and abort it: nothing becomes visible. */
    char *key = sl_sprintf("%s%s_sluice-write-check", prefix, prefix[0] ? "/" : "");
    char *up = NULL;
    rc = sl__s3_mpu_create(c, key, &up, err);
    if (rc == 0)
        rc = sl__s3_mpu_abort(c, key, up, err);
    sl_free(up);
    sl_free(key);
    return rc;
}
