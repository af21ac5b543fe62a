/*
** bench_kafka.c — Kafka in, Kafka out, against a local broker, as ratios to
** a ceiling (issue 5's benchmark).
**
**   (a) ceiling   a raw librdkafka copy loop in one thread: a consumer
**                 (read_committed, every partition assigned from the
**                 beginning) whose every message is produced again by an
**                 idempotent producer (acks=all) — the at-least-once
**                 sink's own settings — into another topic;
**   (b) sluice    `sluice -f` running INSERT INTO dst SELECT <every
**                 column> FROM src (JSON in, JSON out: each record decoded
**                 and encoded again), at-least-once, checkpoints every 1 s;
**   (c) sluice    the same, exactly-once (transactions), checkpoints 1 s.
**
** All three read the same N preloaded JSON records of about 200 bytes from
** a 3-partition topic and write a topic of their own. Their rate is taken
** by an independent read_committed consumer of the output: records over
** the time from the first to the N-th record visible downstream (steady
** state); the time from the start of the run to the N-th is printed too.
** Ratios: b/a and c/b.
**
** Latency (b and c): a producer writes R records/s for D s into another
** topic, each record carrying its produce time (epoch ms, field "t"); the
** job copies them; the read_committed consumer of the output computes, per
** record, the time from its production to its visibility downstream: p50,
** p99, max. For exactly-once a record becomes visible when the transaction
** of its checkpoint commits, so the delay is bounded by the interval plus
** the commit.
**
** Stall (c): while a checkpoint's transaction commits, the next epoch's
** records must keep flowing. A read_uncommitted consumer of the output
** sees records when they are written (before any commit); the longest gap
** between two of them during the steady state is printed for b and c: a
** writer that waited for each commit would show gaps as long as the
** commits, which the engine logs (SLUICE_LOG=info: "committed in N ms").
**
**   build/release/bench/bench_kafka BOOTSTRAP SLUICE [records] [rate] [seconds] [rounds]
**
** e.g. KAFKA_PORT=9092 scripts/kafka start;
**      build/release/bench/bench_kafka 127.0.0.1:9092 build/release/sluice 1000000 20000 15
**
** BENCH_KAFKA_SOURCE_OPTIONS and BENCH_KAFKA_SINK_OPTIONS add WITH options
** to the jobs' source and sink tables (e.g. other memory bounds).
*/
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PARTS 3
#define RECORD_BYTES 200

static const char *g_bootstrap;
static const char *g_sluice;
static char g_run[64];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_kafka: %s: %s\n", what, why);
    exit(1);
}

static rd_kafka_t *client(rd_kafka_type_t type, const char *const *kv)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char err[512];
    if (rd_kafka_conf_set(conf, "bootstrap.servers", g_bootstrap, err, sizeof err))
        die("conf", err);
    for (int i = 0; kv && kv[i]; i += 2)
        if (rd_kafka_conf_set(conf, kv[i], kv[i + 1], err, sizeof err))
            die(kv[i], err);
    rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
    if (!rk)
        die("client", err);
    return rk;
}

static void create_topic(const char *name)
{
    rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, NULL);
    char err[512];
    rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(name, PARTS, 1, err, sizeof err);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60000);
    if (!ev || rd_kafka_event_error(ev))
        die("create topic", ev ? rd_kafka_event_error_string(ev) : "timed out");
    size_t n = 0;
    const rd_kafka_topic_result_t **res =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    if (n != 1 || rd_kafka_topic_result_error(res[0]))
        die("create topic", n ? rd_kafka_topic_result_error_string(res[0]) : "no result");
    rd_kafka_event_destroy(ev);
    rd_kafka_queue_destroy(q);
    rd_kafka_NewTopic_destroy(nt);
    rd_kafka_destroy(rk);
}

/* One JSON record of about RECORD_BYTES bytes; t = its produce time. */
static int record(char *buf, size_t cap, int64_t id, int64_t t)
{
    int n = snprintf(buf, cap,
                     "{\"id\":%lld,\"campaign\":\"campaign-%02d\",\"amount\":%lld.%02d,"
                     "\"ts\":\"2026-01-01 00:00:%02d.%03d\",\"t\":%lld,\"note\":\"",
                     (long long)id, (int)(id % 50), (long long)(id % 10000), (int)(id % 100),
                     (int)(id % 60), (int)(id % 1000), (long long)t);
    while (n < RECORD_BYTES - 2 && (size_t)n < cap - 3) {
        buf[n] = (char)('a' + (n % 26));
        n++;
    }
    buf[n++] = '"';
    buf[n++] = '}';
    buf[n] = 0;
    return n;
}

static void produce_one(rd_kafka_t *p, const char *topic, int32_t part, const char *v, int len)
{
    for (;;) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(part), RD_KAFKA_V_VALUE((void *)v, len),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(p, 10);
            continue;
        }
        if (e)
            die("produce", rd_kafka_err2str(e));
        return;
    }
}

static void preload(const char *topic, int64_t n)
{
    static const char *const kv[] = {"enable.idempotence", "true", "linger.ms", "20", NULL};
    rd_kafka_t *p = client(RD_KAFKA_PRODUCER, kv);
    char buf[512];
    for (int64_t i = 0; i < n; i++) {
        int len = record(buf, sizeof buf, i, wall_ms());
        produce_one(p, topic, (int32_t)(i % PARTS), buf, len);
    }
    while (rd_kafka_flush(p, 1000) == RD_KAFKA_RESP_ERR__TIMED_OUT)
        ;
    rd_kafka_destroy(p);
}

static rd_kafka_t *reader(const char *topic, const char *isolation)
{
    char group[96];
    snprintf(group, sizeof group, "%s-reader-%s", g_run, isolation);
    /* queued.min.messages: as the kafka source sets it (kafka_source.c tells why) */
    const char *kv[] = {"group.id", group, "isolation.level", isolation,
                        "enable.auto.commit", "false", "fetch.wait.max.ms", "10",
                        "queued.min.messages", "1000000", NULL};
    rd_kafka_t *c = client(RD_KAFKA_CONSUMER, kv);
    rd_kafka_poll_set_consumer(c);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(PARTS);
    for (int i = 0; i < PARTS; i++)
        rd_kafka_topic_partition_list_add(l, topic, i)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(c, l);
    rd_kafka_topic_partition_list_destroy(l);
    return c;
}

/* ---- the independent reader of an output topic ---- */
typedef struct counter {
    const char *topic;
    const char *isolation;
    int64_t want;            /* stop after this many records */
    bool latency;            /* collect produce-to-visible delays */
    _Atomic bool stop;
    _Atomic int64_t count;
    double first, last;      /* monotonic time of the first / want-th record */
    double max_gap;          /* longest gap between records after the first 10 % */
    int64_t *delays;         /* ms per record (latency) */
    pthread_t thread;
} counter;

static int64_t field_t(const char *v, size_t len)
{
    const char *p = memmem(v, len, "\"t\":", 4);
    return p ? strtoll(p + 4, NULL, 10) : -1;
}

static void *counter_main(void *arg)
{
    counter *c = arg;
    rd_kafka_t *rk = reader(c->topic, c->isolation);
    double prev = 0;
    while (!c->stop && c->count < c->want) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (!m)
            continue;
        if (!m->err) {
            double t = now_s();
            int64_t k = c->count;
            if (k == 0)
                c->first = t;
            else if (k > c->want / 10 && t - prev > c->max_gap)
                c->max_gap = t - prev;
            prev = t;
            if (c->latency)
                c->delays[k] = wall_ms() - field_t(m->payload, m->len);
            c->count = k + 1;
            if (k + 1 == c->want)
                c->last = t;
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return NULL;
}

static void counter_start(counter *c, const char *topic, const char *isolation, int64_t want,
                          bool latency)
{
    memset(c, 0, sizeof *c);
    c->topic = topic;
    c->isolation = isolation;
    c->want = want;
    c->latency = latency;
    if (latency)
        c->delays = calloc((size_t)want, sizeof(int64_t));
    pthread_create(&c->thread, NULL, counter_main, c);
}

/* Wait until the counter has all its records (or timeout_s); 0 when it has. */
static int counter_wait(counter *c, double timeout_s)
{
    double end = now_s() + timeout_s;
    while (c->count < c->want && now_s() < end)
        usleep(20000);
    c->stop = true;
    pthread_join(c->thread, NULL);
    return c->count >= c->want ? 0 : -1;
}

/* ---- (a) the ceiling ---- */
static void copy_loop(const char *src, const char *dst, int64_t n)
{
    static const char *const pkv[] = {"enable.idempotence", "true", "acks", "all", NULL};
    rd_kafka_t *p = client(RD_KAFKA_PRODUCER, pkv);
    rd_kafka_t *c = reader(src, "read_committed");
    int64_t copied = 0;
    while (copied < n) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
        if (!m)
            continue;
        if (!m->err) {
            produce_one(p, dst, m->partition, m->payload, (int)m->len);
            copied++;
        }
        rd_kafka_message_destroy(m);
        rd_kafka_poll(p, 0);
    }
    while (rd_kafka_flush(p, 1000) == RD_KAFKA_RESP_ERR__TIMED_OUT)
        ;
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    rd_kafka_destroy(p);
}

/* ---- (b), (c): a sluice job ---- */

/* More WITH options for the job's source or sink from the environment
** (e.g. BENCH_KAFKA_SOURCE_OPTIONS="'scan.buffer.max-bytes' = '4 mb'"), to
** try other bounds: ", <options>", or "" when unset. */
static const char *extra_options(const char *var)
{
    static char buf[2][1024];
    static int k;
    const char *v = getenv(var);
    if (!v || !v[0])
        return "";
    char *b = buf[k++ % 2];
    snprintf(b, sizeof buf[0], ", %s", v);
    return b;
}
static pid_t sluice_start(const char *src, const char *dst, bool eo, const char *tag, int log_fd)
{
    char dir[256], sql_path[300], sql[4096], txn[160] = "";
    snprintf(dir, sizeof dir, "/tmp/%s-%s", g_run, tag);
    snprintf(sql_path, sizeof sql_path, "%s.sql", dir);
    if (eo)
        snprintf(txn, sizeof txn, ", 'sink.transactional-id-prefix' = '%s-%s-'", g_run, tag);
    const char *cols = "id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3), "
                       "t BIGINT, note STRING";
    snprintf(sql, sizeof sql,
             "SET 'execution.checkpointing.interval' = '1 s';\n"
             "SET 'pipeline.name' = '%s-%s';\n"
             "CREATE TABLE src (%s) WITH ('connector' = 'kafka', 'topic' = '%s', "
             "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
             "'scan.startup.mode' = 'earliest-offset'%s);\n"
             "CREATE TABLE dst (%s) WITH ('connector' = 'kafka', 'topic' = '%s', "
             "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
             "'sink.delivery-guarantee' = '%s'%s%s);\n"
             "INSERT INTO dst SELECT id, campaign, amount, ts, t, note FROM src;\n",
             g_run, tag, cols, src, g_bootstrap, extra_options("BENCH_KAFKA_SOURCE_OPTIONS"), cols,
             dst, g_bootstrap, eo ? "exactly-once" : "at-least-once", txn,
             extra_options("BENCH_KAFKA_SINK_OPTIONS"));
    FILE *f = fopen(sql_path, "w");
    if (!f)
        die("write", sql_path);
    fputs(sql, f);
    fclose(f);
    pid_t pid = fork();
    if (pid == 0) {
        if (log_fd >= 0)
            dup2(log_fd, 2);
        setenv("SLUICE_LOG", "info", 1);
        execl(g_sluice, g_sluice, "--data-dir", dir, "-q", "-f", sql_path, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* CPU seconds (user + system) the process has used so far. */
static double proc_cpu(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* after the command name */
    unsigned long long ut = 0, st = 0;
    if (p)
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st);
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* The process's peak resident set (VmHWM), MB. */
static double proc_peak_mb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = strtod(line + 6, NULL);
    if (f)
        fclose(f);
    return kb / 1024;
}

static void sluice_stop(pid_t pid)
{
    kill(pid, SIGTERM);
    int st;
    waitpid(pid, &st, 0);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Commit durations the job logged ("committed in N ms"): p50 and max. */
static void commit_times(const char *log, double *p50, double *max, int *n)
{
    FILE *f = fopen(log, "r");
    int64_t v[4096];
    *n = 0;
    char line[1024];
    while (f && fgets(line, sizeof line, f) && *n < 4096) {
        const char *p = strstr(line, "committed in ");
        if (p)
            v[(*n)++] = strtoll(p + 13, NULL, 10);
    }
    if (f)
        fclose(f);
    qsort(v, (size_t)*n, sizeof *v, cmp_i64);
    *p50 = *n ? (double)v[*n / 2] : 0;
    *max = *n ? (double)v[*n - 1] : 0;
}

typedef struct result {
    double written;  /* records/s written (read_uncommitted: first to N-th) */
    double visible;  /* records/s visible (read_committed: first to N-th) */
    double from_start; /* records/s from the start of the run to the N-th visible */
    double per_cpu;  /* records per CPU-second of the process doing the work */
    double gap_ms;   /* the longest gap between written records (steady state) */
    double peak_mb;  /* the sluice process's peak RSS (0 for the ceiling: in this process) */
} result;

/* (b) or (c): a sluice job from src into a topic of its own. */
static result run_sluice(const char *src, int64_t n, bool eo, const char *tag)
{
    char dst[128], log[300];
    snprintf(dst, sizeof dst, "%s-%s", g_run, tag);
    create_topic(dst);
    snprintf(log, sizeof log, "/tmp/%s-%s.log", g_run, tag);
    FILE *lf = fopen(log, "w");
    counter c, raw;
    counter_start(&c, dst, "read_committed", n, false);
    counter_start(&raw, dst, "read_uncommitted", n, false);
    double t0 = now_s();
    pid_t pid = sluice_start(src, dst, eo, tag, fileno(lf));
    int rc = counter_wait(&c, 300);
    double cpu = proc_cpu(pid);
    counter_wait(&raw, 30);
    double peak = proc_peak_mb(pid);
    sluice_stop(pid);
    fclose(lf);
    if (rc != 0)
        die(tag, "the output did not arrive within 300 s (see the log in /tmp)");
    result r = {(double)(n - 1) / (raw.last - raw.first), (double)(n - 1) / (c.last - c.first),
                (double)n / (c.last - t0), (double)n / cpu, raw.max_gap * 1000, peak};
    return r;
}

/* (a): the copy loop in this process, into a topic of its own. */
static result run_ceiling(const char *src, int64_t n, const char *tag)
{
    char dst[128];
    snprintf(dst, sizeof dst, "%s-%s", g_run, tag);
    create_topic(dst);
    counter c;
    counter_start(&c, dst, "read_committed", n, false);
    double t0 = now_s();
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    copy_loop(src, dst, n);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    if (counter_wait(&c, 120) != 0)
        die("ceiling", "the copy did not arrive");
    double rate = (double)(n - 1) / (c.last - c.first);
    /* CPU: this process (the loop, librdkafka's threads and the reader) */
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    result r = {rate, rate, (double)n / (c.last - t0), (double)n / cpu, c.max_gap * 1000, 0};
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void latency(const char *tag, bool eo, int rate, int seconds)
{
    char src[128], dst[128], log[300];
    snprintf(src, sizeof src, "%s-lat-%s-in", g_run, tag);
    snprintf(dst, sizeof dst, "%s-lat-%s-out", g_run, tag);
    create_topic(src);
    create_topic(dst);
    snprintf(log, sizeof log, "/tmp/%s-lat-%s.log", g_run, tag);
    FILE *lf = fopen(log, "w");
    int64_t n = (int64_t)rate * seconds;
    counter c;
    counter_start(&c, dst, "read_committed", n, true);
    char jtag[64];
    snprintf(jtag, sizeof jtag, "lat-%s", tag);
    pid_t pid = sluice_start(src, dst, eo, jtag, fileno(lf));
    sleep(3); /* the job is up and has assigned its partitions */
    static const char *const kv[] = {"enable.idempotence", "true", "linger.ms", "1", NULL};
    rd_kafka_t *p = client(RD_KAFKA_PRODUCER, kv);
    char buf[512];
    double start = now_s();
    for (int64_t i = 0; i < n; i++) {
        double due = start + (double)i / rate;
        double d = due - now_s();
        if (d > 0.0005)
            usleep((useconds_t)(d * 1e6));
        int len = record(buf, sizeof buf, i, wall_ms());
        produce_one(p, src, (int32_t)(i % PARTS), buf, len);
        rd_kafka_poll(p, 0);
    }
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
    int rc = counter_wait(&c, 60);
    sluice_stop(pid);
    fclose(lf);
    if (rc != 0)
        die(tag, "the latency run's output did not arrive");
    qsort(c.delays, (size_t)n, sizeof(int64_t), cmp_i64);
    double p50, pmax;
    int ncommits;
    commit_times(log, &p50, &pmax, &ncommits);
    printf("| %s | %d rec/s for %d s | %lld ms | %lld ms | %lld ms |", tag, rate, seconds,
           (long long)c.delays[n / 2], (long long)c.delays[n * 99 / 100],
           (long long)c.delays[n - 1]);
    if (ncommits)
        printf(" commits: %d, p50 %.0f ms, max %.0f ms |\n", ncommits, p50, pmax);
    else
        printf(" - |\n");
    free(c.delays);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_kafka BOOTSTRAP SLUICE [records] [rate] [seconds]\n");
        return 2;
    }
    g_bootstrap = argv[1];
    g_sluice = argv[2];
    int64_t n = argc > 3 ? atoll(argv[3]) : 1000000;
    int rate = argc > 4 ? atoi(argv[4]) : 20000;
    int seconds = argc > 5 ? atoi(argv[5]) : 15;
    int rounds = argc > 6 ? atoi(argv[6]) : 3;
    snprintf(g_run, sizeof g_run, "bk-%d-%lld", (int)getpid(), (long long)time(NULL) % 100000);
    char src[128];
    snprintf(src, sizeof src, "%s-src", g_run);
    create_topic(src);
    double t = now_s();
    preload(src, n);
    printf("preloaded %lld records of %d bytes in %.1f s\n", (long long)n, RECORD_BYTES,
           now_s() - t);
    enum { MAXR = 9 };
    double ba[MAXR], cb[MAXR];
    result a[MAXR], b[MAXR], c[MAXR];
    if (rounds > MAXR)
        rounds = MAXR;
    for (int k = 0; k < rounds; k++) { /* each round: the three on the same input */
        char tag[32];
        snprintf(tag, sizeof tag, "ceiling%d", k);
        a[k] = run_ceiling(src, n, tag);
        snprintf(tag, sizeof tag, "alo%d", k);
        b[k] = run_sluice(src, n, false, tag);
        snprintf(tag, sizeof tag, "eo%d", k);
        c[k] = run_sluice(src, n, true, tag);
        ba[k] = b[k].written / a[k].written;
        cb[k] = c[k].written / b[k].written;
        printf("round %d: (a) %.0f  (b) %.0f written, %.0f visible  (c) %.0f written, %.0f "
               "visible, longest write gap %.0f ms (b: %.0f ms); peak RSS (b) %.0f MB (c) %.0f "
               "MB\n",
               k + 1, a[k].written, b[k].written, b[k].visible, c[k].written, c[k].visible,
               c[k].gap_ms, b[k].gap_ms, b[k].peak_mb, c[k].peak_mb);
    }
    printf("\n| run | records/s written | records/s visible | from the start | "
           "records per CPU-second | peak RSS |\n|---|---|---|---|---|---|\n");
    const char *names[3] = {"(a) librdkafka copy loop", "(b) sluice at-least-once",
                            "(c) sluice exactly-once, 1 s checkpoints"};
    result *rs[3] = {a, b, c};
    for (int x = 0; x < 3; x++) {
        double w[MAXR], v[MAXR], f[MAXR], u[MAXR], m[MAXR];
        for (int k = 0; k < rounds; k++) {
            w[k] = rs[x][k].written;
            v[k] = rs[x][k].visible;
            f[k] = rs[x][k].from_start;
            u[k] = rs[x][k].per_cpu;
            m[k] = rs[x][k].peak_mb;
        }
        double mm = median(m, rounds);
        char peak[32] = "-";
        if (mm > 0)
            snprintf(peak, sizeof peak, "%.0f MB", mm);
        printf("| %s | %.0f | %.0f | %.0f | %.0f | %s |\n", names[x], median(w, rounds),
               median(v, rounds), median(f, rounds), median(u, rounds), peak);
    }
    printf("\nmedian ratios over %d rounds (written): b/a = %.2f, c/b = %.2f\n", rounds,
           median(ba, rounds), median(cb, rounds));
    if (rate <= 0)
        return 0;
    printf("\n| latency | load | p50 | p99 | max | exactly-once commits |\n|---|---|---|---|---|---|\n");
    latency("at-least-once", false, rate, seconds);
    latency("exactly-once", true, rate, seconds);
    return 0;
}
