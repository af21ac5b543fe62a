/*
** bench_opensearch.c — the opensearch sink against its ceiling, a raw
** libcurl _bulk loop of the same documents, both into the same OpenSearch
** node (scripts/opensearch; issue 17's benchmark).
**
**   (s)  sluice    `sluice -f`: N rows of datagen's sequence as documents
**                  {"id":i,"name":"customer-<i%1000>","amount":<i*7>} with
**                  PRIMARY KEY (id) (so _id = i) into a fresh index,
**                  at-least-once, checkpoints every 1 s, bulks of
**                  'sink.bulk-flush.max-actions' = 1000; rate = N over the
**                  whole run of sluice -f (start to exit: the job ends after
**                  its final checkpoint, whose pre_commit sent the last bulk);
**   (c)  ceiling   one libcurl handle POSTing the same documents, built here
**                  as the same NDJSON (index actions with the same _ids, 1000
**                  a request, the same filter_path), into another fresh
**                  index: rate = N over the loop.
**
** Both indexes have one shard and no replica; after each case the index's
** _count must be N. Ratio s/c, median of `runs` alternating rounds.
**
**   build/release/bench/bench_opensearch SLUICE URL [rows] [runs]
**
** e.g. ./scripts/opensearch start &&
**      build/release/bench/bench_opensearch build/release/sluice http://127.0.0.1:9200 500000 3
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
#define BULK 1000 /* actions a request, as the sink's max-actions */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static size_t keep(char *p, size_t size, size_t n, void *ctx)
{
    buf_add(ctx, p, size * n);
    return size * n;
}

static const char *g_url;

/* One request to the node; its status, the answer in *out (may be NULL). */
static long request(const char *method, const char *path, const char *body, size_t len,
                    const char *ctype, buf *out)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", g_url, path);
    buf sink = {0};
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, ctype);
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out ? out : &sink);
    long status = 0;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(sink.p);
    return status;
}

static void fresh_index(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "/%s", name);
    request("DELETE", path, NULL, 0, "Content-Type: application/json", NULL);
    static const char body[] =
        "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0}}";
    if (request("PUT", path, body, sizeof body - 1, "Content-Type: application/json", NULL) !=
        200)
        die("cannot create index", name);
}

static void expect_count(const char *name, long long rows)
{
    char path[128];
    snprintf(path, sizeof path, "/%s/_refresh", name);
    request("POST", path, "", 0, "Content-Type: application/json", NULL);
    snprintf(path, sizeof path, "/%s/_count", name);
    buf out = {0};
    request("GET", path, NULL, 0, "Content-Type: application/json", &out);
    const char *p = out.p ? strstr(out.p, "\"count\":") : NULL;
    long long n = p ? atoll(p + 8) : -1;
    free(out.p);
    if (n != rows) {
        char why[96];
        snprintf(why, sizeof why, "%lld documents, not %lld", n, rows);
        die(name, why);
    }
}

/* (s): sluice -f into a fresh index; seconds of the whole run. */
static double sluice_case(const char *sluice, long long rows, int round)
{
    char tag[64], sql[2048];
    snprintf(tag, sizeof tag, "bench_opensearch-%d", (int)getpid());
    fresh_index("bench-sluice");
    snprintf(sql, sizeof sql,
             "SET 'execution.checkpointing.interval' = '1 s';\n"
             "SET 'parallelism.default' = '1';\n"
             "SET 'pipeline.name' = 'bench-opensearch-%d';\n"
             "CREATE TABLE gen (id BIGINT) WITH ("
             "'connector' = 'datagen', 'number-of-rows' = '%lld', 'rows-per-second' = "
             "'1000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
             "'fields.id.end' = '%lld');\n"
             "CREATE TABLE docs (id BIGINT, name STRING, amount BIGINT, "
             "PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'opensearch', "
             "'hosts' = '%s', 'index' = 'bench-sluice', 'format' = 'json', "
             "'sink.bulk-flush.max-actions' = '%d', 'sink.bulk-flush.max-size' = '0', "
             "'sink.delivery-guarantee' = 'at-least-once');\n"
             "INSERT INTO docs SELECT id, CONCAT('customer-', CAST(id %% 1000 AS STRING)), "
             "id * 7 FROM gen;\n",
             round, rows, rows, g_url, BULK);
    double t = bench_sluice(sluice, tag, sql);
    expect_count("bench-sluice", rows);
    return t;
}

/* (c): the same documents by a raw libcurl _bulk loop; seconds of the loop. */
static double ceiling_case(long long rows)
{
    fresh_index("bench-ceiling");
    char url[512];
    snprintf(url, sizeof url, "%s/_bulk?filter_path=errors,items.*.status,items.*.error", g_url);
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/x-ndjson");
    h = curl_slist_append(h, "Expect:");
    buf resp = {0}, body = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp);
    double t0 = now_s();
    for (long long id = 1; id <= rows;) {
        body.len = 0;
        for (int k = 0; k < BULK && id <= rows; k++, id++) {
            char line[256];
            int n = snprintf(line, sizeof line,
                             "{\"index\":{\"_index\":\"bench-ceiling\",\"_id\":\"%lld\"}}\n"
                             "{\"id\":%lld,\"name\":\"customer-%lld\",\"amount\":%lld}\n",
                             id, id, id % 1000, id * 7);
            buf_add(&body, line, (size_t)n);
        }
        resp.len = 0;
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.p);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body.len);
        long status = 0;
        if (curl_easy_perform(c) != CURLE_OK ||
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status != 200 ||
            !resp.p || !strstr(resp.p, "\"errors\":false"))
            die("ceiling", "a bulk request failed");
    }
    double t = now_s() - t0;
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(resp.p);
    free(body.p);
    expect_count("bench-ceiling", rows);
    return t;
}

int main(int argc, char **argv)
{
    bench_name = "bench_opensearch";
    if (argc < 3) {
        fprintf(stderr, "usage: bench_opensearch SLUICE URL [rows] [runs 1..%d]\n", MAX_RUNS);
        return 2;
    }
    const char *sluice = argv[1];
    g_url = argv[2];
    long long rows = argc > 3 ? atoll(argv[3]) : 200000;
    int runs = argc > 4 ? atoi(argv[4]) : 3;
    if (rows <= 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_opensearch SLUICE URL [rows] [runs 1..%d]\n", MAX_RUNS);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    printf("%lld documents a case, bulks of %d, median of %d alternating rounds\n", rows, BULK,
           runs);
    printf("| sluice docs/s | ceiling docs/s (raw libcurl _bulk loop) | ratio |\n|---|---|---|\n");
    double s[MAX_RUNS], c[MAX_RUNS], r[MAX_RUNS];
    for (int i = 0; i < runs; i++) {
        s[i] = (double)rows / sluice_case(sluice, rows, i);
        c[i] = (double)rows / ceiling_case(rows);
        r[i] = s[i] / c[i];
    }
    printf("| %.0f | %.0f | %.3f |\n", median(s, runs), median(c, runs), median(r, runs));
    request("DELETE", "/bench-sluice", NULL, 0, "Content-Type: application/json", NULL);
    request("DELETE", "/bench-ceiling", NULL, 0, "Content-Type: application/json", NULL);
    curl_global_cleanup();
    return 0;
}
