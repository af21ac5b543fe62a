/*
** bench_http.c — the http-sink against its ceiling, a raw libcurl request
** loop, both into the same receiver in this process (issue 17's benchmark).
**
** The receiver: a minimal HTTP/1.1 server on 127.0.0.1 (one thread per
** connection, keep-alive) that reads each request's body and answers
** "200" with no body; it counts requests and rows (a row is a JSON object:
** the rows here are flat, their strings have no braces, so a body holds
** as many rows as '{' bytes) and keeps the first body of a run.
**
**   (s)  sluice    `sluice -f`: N rows of datagen (id BIGINT, name STRING
**                  of 16 bytes, amount DOUBLE; PRIMARY KEY (id)) INSERTed
**                  into an http-sink table, at-least-once, checkpoints
**                  every 1 s; rate = N over the whole run of sluice -f
**                  (start to exit: the job ends after its final checkpoint,
**                  whose pre_commit sent the last batch);
**   (c)  ceiling   one libcurl handle POSTing the body Sluice sent first,
**                  again and again, for as many rows (the same bytes, the
**                  same headers but the key): rate = rows over the loop.
**
** Both in batch mode ('http.sink.request.batch.size' 500: one request per
** 500 rows) and single mode (one request per row, each with its
** Idempotency-Key). Ratio s/c per mode, median of `runs` alternating rounds.
**
**   build/release/bench/bench_http SLUICE [rows] [runs]
**
** e.g. build/release/bench/bench_http build/release/sluice 2000000 3
*/
#include <curl/curl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_RUNS 9

static atomic_llong g_requests, g_rows;
static pthread_mutex_t g_first_mu = PTHREAD_MUTEX_INITIALIZER;
static char *g_first;      /* the first body of the run (malloc'ed), or NULL */
static size_t g_first_len;

/* One connection: requests until the peer closes. */
static void *conn_main(void *arg)
{
    int fd = (int)(intptr_t)arg;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    for (;;) {
        char *end = NULL;
        while (!(end = memmem(buf, len, "\r\n\r\n", 4))) { /* the headers */
            if (len == cap)
                buf = realloc(buf, cap *= 2);
            ssize_t n = read(fd, buf + len, cap - len);
            if (n <= 0)
                goto done;
            len += (size_t)n;
        }
        size_t head = (size_t)(end - buf) + 4, body = 0;
        for (char *p = buf; p < end; p = strstr(p, "\r\n") + 2)
            if (strncasecmp(p, "Content-Length:", 15) == 0)
                body = (size_t)strtoull(p + 15, NULL, 10);
        while (len < head + body) { /* the body */
            if (cap < head + body)
                buf = realloc(buf, cap = head + body);
            ssize_t n = read(fd, buf + len, cap - len);
            if (n <= 0)
                goto done;
            len += (size_t)n;
        }
        long long rows = 0;
        for (const char *p = buf + head, *e = p + body; (p = memchr(p, '{', (size_t)(e - p)));
             p++)
            rows++;
        pthread_mutex_lock(&g_first_mu);
        if (!g_first) {
            g_first = malloc(body + 1);
            memcpy(g_first, buf + head, body);
            g_first_len = body;
        }
        pthread_mutex_unlock(&g_first_mu);
        atomic_fetch_add(&g_requests, 1);
        atomic_fetch_add(&g_rows, rows);
        if (write(fd, ok, sizeof ok - 1) != (ssize_t)(sizeof ok - 1))
            goto done;
        memmove(buf, buf + head + body, len - head - body);
        len -= head + body;
    }
done:
    close(fd);
    free(buf);
    return NULL;
}

static void *accept_main(void *arg)
{
    int ls = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t;
        pthread_create(&t, NULL, conn_main, (void *)(intptr_t)fd);
        pthread_detach(t);
    }
    return NULL;
}

static int receiver_start(void)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 64) != 0 ||
        getsockname(ls, (struct sockaddr *)&a, &al) != 0)
        die("receiver", "cannot listen on 127.0.0.1");
    pthread_t t;
    pthread_create(&t, NULL, accept_main, (void *)(intptr_t)ls);
    pthread_detach(t);
    return ntohs(a.sin_port);
}

static void reset_counts(void)
{
    atomic_store(&g_requests, 0);
    atomic_store(&g_rows, 0);
    pthread_mutex_lock(&g_first_mu);
    free(g_first);
    g_first = NULL;
    pthread_mutex_unlock(&g_first_mu);
}

/* (s): sluice -f into the receiver; seconds of the whole run. */
static double sluice_case(const char *sluice, int port, long long rows, bool batch, int round)
{
    char tag[64], sql[2048];
    snprintf(tag, sizeof tag, "bench_http-%d", (int)getpid());
    snprintf(sql, sizeof sql,
             "SET 'execution.checkpointing.interval' = '1 s';\n"
             "SET 'parallelism.default' = '1';\n"
             "SET 'pipeline.name' = 'bench-http-%s-%d';\n"
             "CREATE TABLE gen (id BIGINT, name STRING, amount DOUBLE) WITH ("
             "'connector' = 'datagen', 'number-of-rows' = '%lld', 'rows-per-second' = "
             "'1000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
             "'fields.id.end' = '%lld', 'fields.name.length' = '16');\n"
             "CREATE TABLE out_http (id BIGINT, name STRING, amount DOUBLE, "
             "PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'http-sink', "
             "'url' = 'http://127.0.0.1:%d/rows', 'format' = 'json', "
             "'http.sink.writer.request.mode' = '%s', "
             "'sink.delivery-guarantee' = 'at-least-once');\n"
             "INSERT INTO out_http SELECT id, name, amount FROM gen;\n",
             batch ? "batch" : "single", round, rows, rows, port, batch ? "batch" : "single");
    reset_counts();
    double t = bench_sluice(sluice, tag, sql);
    if (atomic_load(&g_rows) != rows) {
        char n[64];
        snprintf(n, sizeof n, "%lld rows arrived, not %lld", (long long)atomic_load(&g_rows),
                 rows);
        die("sluice", n);
    }
    return t;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
    (void)p, (void)ctx;
    return size * n;
}

/* (c): the first body Sluice sent, POSTed until as many rows arrived. */
static double ceiling_case(int port, long long rows)
{
    if (!g_first || g_first_len == 0)
        die("ceiling", "no body to send");
    char *body = g_first;
    size_t len = g_first_len;
    long long per = 0;
    for (size_t i = 0; i < len; i++)
        per += body[i] == '{';
    g_first = NULL; /* ours now */
    reset_counts();
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/rows", port);
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    double t0 = now_s();
    for (long long sent = 0; sent < rows; sent += per) {
        long status = 0;
        if (curl_easy_perform(c) != CURLE_OK ||
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status != 200)
            die("ceiling", "a request failed");
    }
    double t = now_s() - t0;
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(body);
    return t;
}

int main(int argc, char **argv)
{
    bench_name = "bench_http";
    if (argc < 2) {
        fprintf(stderr, "usage: bench_http SLUICE [rows] [runs 1..%d]\n", MAX_RUNS);
        return 2;
    }
    const char *sluice = argv[1];
    long long rows = argc > 2 ? atoll(argv[2]) : 1000000;
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    if (rows <= 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_http SLUICE [rows] [runs 1..%d]\n", MAX_RUNS);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int port = receiver_start();
    printf("%lld rows a case (single mode: %lld), median of %d alternating rounds\n", rows,
           rows / 20, runs);
    printf("| mode | sluice rows/s | ceiling rows/s (raw libcurl loop) | ratio |\n|---|---|---|---|\n");
    for (int mode = 0; mode < 2; mode++) {
        bool batch = mode == 0;
        long long n = batch ? rows : rows / 20; /* one request a row: fewer */
        double s[MAX_RUNS], c[MAX_RUNS], r[MAX_RUNS];
        for (int i = 0; i < runs; i++) {
            s[i] = (double)n / sluice_case(sluice, port, n, batch, i);
            c[i] = (double)n / ceiling_case(port, n);
            r[i] = s[i] / c[i];
        }
        double ms = median(s, runs), mc = median(c, runs), mr = median(r, runs);
        printf("| %s | %.0f | %.0f | %.3f |\n", batch ? "batch (500 rows a request)" : "single",
               ms, mc, mr);
        fflush(stdout);
    }
    curl_global_cleanup();
    return 0;
}
