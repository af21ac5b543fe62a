/*
** bench_s3.c — the filesystem sink on s3:// (multipart uploads completed at
** commit) against its ceiling, one large PUT of the same bytes, both into
** the same S3 server (scripts/s3: SeaweedFS on 127.0.0.1).
**
**   (s)  sluice    `sluice -f`: N rows of datagen (id BIGINT, name STRING of
**                  16 bytes, amount DOUBLE) INSERTed into a filesystem table
**                  'path' = 's3://sluice/bench-<pid>-<run>', csv,
**                  exactly-once, checkpoints every 1 s; time = the whole run
**                  of sluice -f (start to exit: the job ends after its final
**                  checkpoint completed the last uploads); the bytes written
**                  = the sizes of the objects listed afterwards;
**   (c)  ceiling   one PUT (libcurl, SigV4, UNSIGNED-PAYLOAD) of an object
**                  of as many bytes: rows/s = N over the PUT's time.
**
** Ratio s/c, median of `runs` alternating rounds. The server must be
** running (`scripts/s3 start`) with the bucket sluice and the test
** identity; SLUICE_S3_ENDPOINT overrides http://127.0.0.1:8333.
**
**   build/release/bench/bench_s3 SLUICE [rows] [runs]
**
** e.g. build/release/bench/bench_s3 build/release/sluice 2000000 3
*/
#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_RUNS 9

static const char *g_endpoint = "http://127.0.0.1:8333";

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static size_t collect(char *p, size_t size, size_t n, void *ctx)
{
    buf *b = ctx;
    size_t k = size * n;
    if (b->len + k + 1 > b->cap) {
        b->cap = (b->len + k + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, p, k);
    b->len += k;
    b->p[b->len] = 0;
    return k;
}

/* A signed request; the answer's body in out (may be NULL). Returns the
** HTTP status. */
static long request(const char *method, const char *path_query, const char *body, size_t len,
                    buf *out)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", g_endpoint, path_query);
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, "aws:amz:us-east-1:s3");
    curl_easy_setopt(c, CURLOPT_USERNAME, "sluice-access");
    curl_easy_setopt(c, CURLOPT_PASSWORD, "sluice-secret");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    buf sink = {0};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out ? out : &sink);
    if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    long status = 0;
    if (curl_easy_perform(c) != CURLE_OK ||
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK)
        status = 0;
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(sink.p);
    return status;
}

/* The total size of the objects under prefix (ListObjectsV2 pages: the
** <Size> elements; the benchmark's keys need no encoding). */
static long long listed_bytes(const char *prefix, int *nobjects)
{
    long long total = 0;
    *nobjects = 0;
    char token[1024] = "";
    for (;;) {
        char q[1400];
        if (token[0])
            snprintf(q, sizeof q, "/sluice?continuation-token=%s&list-type=2&prefix=%s%%2F",
                     token, prefix);
        else
            snprintf(q, sizeof q, "/sluice?list-type=2&prefix=%s%%2F", prefix);
        buf b = {0};
        if (request("GET", q, NULL, 0, &b) != 200 || !b.p)
            die("ListObjectsV2", b.p ? b.p : "no answer");
        for (const char *p = strstr(b.p, "<Size>"); p; p = strstr(p + 6, "<Size>")) {
            total += atoll(p + 6);
            (*nobjects)++;
        }
        const char *t = strstr(b.p, "<NextContinuationToken>");
        bool more = strstr(b.p, "<IsTruncated>true</IsTruncated>") != NULL && t;
        if (more) { /* percent-encode what a token may hold */
            t += strlen("<NextContinuationToken>");
            size_t k = 0;
            for (; *t && *t != '<' && k + 4 < sizeof token; t++) {
                unsigned char ch = (unsigned char)*t;
                if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' || ch == '~')
                    token[k++] = (char)ch;
                else
                    k += (size_t)snprintf(token + k, 4, "%%%02X", ch);
            }
            token[k] = 0;
        }
        free(b.p);
        if (!more)
            return total;
    }
}

/* (s): sluice -f writing rows into s3://sluice/<prefix>. Seconds. */
static double sluice_case(const char *sluice, const char *prefix, long long rows, int run)
{
    char tag[64];
    snprintf(tag, sizeof tag, "bench_s3-%d-%d", (int)getpid(), run);
    char sql[4096];
    snprintf(sql, sizeof sql,
             "SET 'parallelism.default' = '1';\n"
             "SET 'execution.checkpointing.interval' = '1 s';\n"
             "SET 'pipeline.name' = 'bench_s3_%d_%d';\n"
             "CREATE TABLE gen (id BIGINT, name STRING, amount DOUBLE) WITH ("
             "'connector' = 'datagen', 'number-of-rows' = '%lld', 'rows-per-second' = "
             "'1000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
             "'fields.id.end' = '%lld', 'fields.name.length' = '16');\n"
             "CREATE TABLE out (id BIGINT, name STRING, amount DOUBLE) WITH ("
             "'connector' = 'filesystem', 'path' = 's3://sluice/%s', 'format' = 'csv', "
             "'s3.endpoint' = '%s', 's3.access-key' = 'sluice-access', "
             "'s3.secret-key' = 'sluice-secret');\n"
             "INSERT INTO out SELECT * FROM gen;\n",
             (int)getpid(), run, rows, rows, prefix, g_endpoint);
    double t = bench_sluice(sluice, tag, sql);
    return t;
}

/* (c): one PUT of bytes bytes. Seconds. */
static double ceiling_case(const char *prefix, long long bytes)
{
    char *body = malloc((size_t)bytes);
    if (!body)
        die("ceiling", "out of memory");
    for (long long i = 0; i < bytes; i++)
        body[i] = i % 40 == 39 ? '\n' : (char)('a' + i % 26);
    char q[256];
    snprintf(q, sizeof q, "/sluice/%s-ceiling/one.csv", prefix);
    double t0 = now_s();
    long st = request("PUT", q, body, (size_t)bytes, NULL);
    double t = now_s() - t0;
    free(body);
    if (st != 200)
        die("ceiling", "the PUT failed");
    return t;
}

int main(int argc, char **argv)
{
    bench_name = "bench_s3";
    if (argc < 2) {
        fprintf(stderr, "usage: bench_s3 SLUICE [rows] [runs 1..%d]\n", MAX_RUNS);
        return 2;
    }
    const char *sluice = argv[1];
    long long rows = argc > 2 ? atoll(argv[2]) : 1000000;
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    if (rows <= 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_s3 SLUICE [rows] [runs 1..%d]\n", MAX_RUNS);
        return 2;
    }
    if (getenv("SLUICE_S3_ENDPOINT"))
        g_endpoint = getenv("SLUICE_S3_ENDPOINT");
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (request("GET", "/sluice?list-type=2&max-keys=1", NULL, 0, NULL) != 200)
        die("no S3 server with bucket sluice at", g_endpoint);
    printf("%lld rows a round into %s, median of %d alternating rounds\n", rows, g_endpoint, runs);
    double s[MAX_RUNS], c[MAX_RUNS], r[MAX_RUNS];
    long long bytes = 0;
    int nobj = 0;
    for (int i = 0; i < runs; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "bench-%d-%d", (int)getpid(), i);
        s[i] = (double)rows / sluice_case(sluice, prefix, rows, i);
        bytes = listed_bytes(prefix, &nobj);
        if (bytes <= 0)
            die("sluice", "wrote no object");
        c[i] = (double)rows / ceiling_case(prefix, bytes);
        r[i] = s[i] / c[i];
    }
    double ms = median(s, runs), mc = median(c, runs), mr = median(r, runs);
    printf("| sink | sluice rows/s | ceiling rows/s (one PUT of the same %lld bytes) | ratio |\n"
           "|---|---|---|---|\n| filesystem s3:// (%d objects) | %.0f | %.0f | %.3f |\n",
           bytes, nobj, ms, mc, mr);
    curl_global_cleanup();
    return 0;
}
