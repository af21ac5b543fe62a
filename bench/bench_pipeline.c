/*
** bench_pipeline.c — whole jobs through the engine, as ratios to a ceiling.
**
** Ceiling: the datagen source alone, polled to exhaustion and discarded in
** one thread (the same rows generated with no engine in between). Measured,
** each as an INSERT into blackhole through the session API over the same
** rows ('table.dml-sync' = 'true': the statement returns when its job has
** ended, final checkpoint included). The ceiling is measured again before
** each round of runs, and a ratio is the median over rounds of rows/s over
** that round's ceiling (the machine's speed drifts; see the ceiling's
** spread, printed last):
**
**   jobs         at 'parallelism.default' = 1
**                  filter/project   SELECT id, amount * 2 FROM gen WHERE id % 2 = 0
**                  group by         GROUP BY id % 1000000 (COUNT, SUM), also as a ratio
**                                   to its own ceiling: the same rows aggregated by a
**                                   plain loop into an open-addressing table
**                                   (sl__agg_ceiling), run after it in each round
**                  tumbling window  1 s windows on the event-time column
**   checkpoints  filter/project (over 4 x rows, so that a run spans several
**                checkpoints) and group by with a checkpoint every second
**                vs. checkpoints off (only the final one at the end of the
**                input), run alternately; the overhead is the median of the
**                rounds' 1 - on/off
**   scaling      filter/project, group by and tumbling window at parallelism 1 and 2
**
** A job is several threads (one per task, plus the coordinator; a GROUP BY
** at parallelism 1 is a source task and an aggregation task), so besides
** rows/s of wall time each line gives rows per CPU-second of the process:
** rows/s per core. Every run is a new job (its own 'pipeline.name'): the
** same job run again would resume from its final checkpoint and read
** nothing. Each measurement is taken `runs` times; the median is printed.
**
** Event time: datagen's ts is random within the hour before one base
** instant, so event time does not advance while the job runs; the watermark
** is ts - 1 hour so that no row is late, and the 3600 windows fire at the
** end of the input. The job's late rows are checked (SHOW JOBS) and reported.
**
**   build/release/bench/bench_pipeline [rows] [runs] [jobs|checkpoints|scaling]...
*/
#include "sl_connector.h"
#include "sl_planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SL__MAX_RUNS 15
#define SL__MAX_CEILINGS (8 * SL__MAX_RUNS) /* one per round of every measurement */

static double sl__clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double sl__now(void)
{
    return sl__clock(CLOCK_MONOTONIC);
}

static double sl__cpu(void)
{
    return sl__clock(CLOCK_PROCESS_CPUTIME_ID);
}

static int sl__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double sl__median(const double *v, int n)
{
    double s[SL__MAX_CEILINGS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, sl__cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The generated rows' source (the table gen's: id 1..rows, random amounts
** and timestamps), in this thread; *optsp to free after it. */
static sl_source *sl__gen_source(long rows, sl_type types[3], sl_kvlist **optsp)
{
    const sl_connector *dg = sl_connector_find("datagen");
    sl_kvlist *opts = *optsp = sl_kvlist_new();
    char n[32];
    snprintf(n, sizeof n, "%ld", rows);
    sl_kvlist_add(opts, "connector", "datagen", -1, -1);
    sl_kvlist_add(opts, "number-of-rows", n, -1, -1);
    sl_kvlist_add(opts, "rows-per-second", "1000000000000", -1, -1);
    sl_kvlist_add(opts, "fields.id.kind", "sequence", -1, -1);
    sl_kvlist_add(opts, "fields.id.start", "1", -1, -1);
    sl_kvlist_add(opts, "fields.id.end", n, -1, -1);
    sl_kvlist_add(opts, "fields.ts.max-past", "1 h", -1, -1);
    types[0] = sl_type_make(SL_TYPE_BIGINT);
    types[1] = sl_type_make_p(SL_TYPE_DECIMAL, 10, 2);
    types[2] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    const char *names[3] = {"id", "amount", "ts"};
    sl_source_args args = {.options = opts, .ncols = 3, .names = names, .types = types,
                           .parallelism = 1, .table = "gen"};
    sl_source *src = NULL;
    sl_error err = SL_ERROR_INIT;
    if (dg->create_source(&args, &src, &err) != 0) {
        fprintf(stderr, "bench_pipeline: %s\n", err.message);
        exit(1);
    }
    return src;
}

/* The ceiling: rows per second of the datagen source alone. */
static double sl__ceiling(long rows)
{
    sl_type types[3];
    sl_kvlist *opts;
    sl_source *src = sl__gen_source(rows, types, &opts);
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(3, types, SL_CHUNK_ROWS);
    long got = 0;
    double t0 = sl__now();
    for (;;) {
        sl_chunk_reset(c);
        int rc = src->ops->poll(src, c, &err);
        got += c->nrows;
        if (rc != SL_SOURCE_MORE)
            break;
    }
    double secs = sl__now() - t0;
    sl_chunk_free(c);
    src->ops->free(src);
    sl_kvlist_free(opts);
    return (double)got / secs;
}

/* GROUP BY's ceiling: the same generated rows aggregated as the group job
** does (key id % 1000000, COUNT(*), SUM(amount)) by a plain loop into an
** open-addressing table made for it: 64-bit keys, linear probing at most
** half full, a chunk's keys hashed first and their slots prefetched, no
** output. Rows per second, generation included (as the job's). */
typedef struct sl__agg_slot {
    int64_t key;  /* INT64_MIN: free */
    int64_t count;
    sl_i128 sum;
} sl__agg_slot;

static double sl__agg_ceiling(long rows)
{
    sl_type types[3];
    sl_kvlist *opts;
    sl_source *src = sl__gen_source(rows, types, &opts);
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(3, types, SL_CHUNK_ROWS);
    size_t cap = (size_t)1 << 21; /* 2M slots for 1M keys */
    sl__agg_slot *t = sl_malloc(cap * sizeof *t);
    for (size_t i = 0; i < cap; i++)
        t[i].key = INT64_MIN;
    size_t *at = sl_malloc(SL_CHUNK_ROWS * sizeof *at);
    long got = 0;
    double t0 = sl__now();
    for (;;) {
        sl_chunk_reset(c);
        int rc = src->ops->poll(src, c, &err);
        const int64_t *id = c->cols[0].v.i64;
        const sl_i128 *amount = c->cols[1].v.i128;
        for (int r = 0; r < c->nrows; r++) {
            uint64_t k = (uint64_t)(id[r] % 1000000);
            at[r] = (size_t)((k * UINT64_C(0x9E3779B97F4A7C15)) >> 43); /* 21 bits */
            __builtin_prefetch(&t[at[r]], 1);
        }
        for (int r = 0; r < c->nrows; r++) {
            int64_t k = id[r] % 1000000;
            size_t j = at[r];
            while (t[j].key != k && t[j].key != INT64_MIN)
                j = (j + 1) & (cap - 1);
            if (t[j].key == INT64_MIN) {
                t[j].key = k;
                t[j].count = 0;
                t[j].sum = 0;
            }
            t[j].count++;
            if (!c->cols[1].nulls[r])
                t[j].sum += amount[r];
        }
        got += c->nrows;
        if (rc != SL_SOURCE_MORE)
            break;
    }
    double secs = sl__now() - t0;
    long groups = 0;
    for (size_t i = 0; i < cap; i++)
        groups += t[i].key != INT64_MIN;
    if (groups != (rows < 1000000 ? rows : 1000000))
        fprintf(stderr, "bench_pipeline: the ceiling's table holds %ld groups\n", groups);
    sl_free(at);
    sl_free(t);
    sl_chunk_free(c);
    src->ops->free(src);
    sl_kvlist_free(opts);
    return (double)got / secs;
}

/* Notices of the statements (a job's warnings: late or skipped rows). */
static void sl__on_notice(void *ctx, const sl_error *n)
{
    fprintf(stderr, "bench_pipeline: %s: %s\n", (const char *)ctx, n->message);
}

static void sl__exec_to(sl_session *s, const char *sql, const sl_result_sink *out)
{
    sl_error err = SL_ERROR_INIT;
    if (sl_session_exec(s, sql, strlen(sql), out, &err) != 0) {
        fprintf(stderr, "bench_pipeline: %s\n  in: %s\n", err.message, sql);
        exit(1);
    }
}

static void sl__exec(sl_session *s, const char *sql)
{
    sl_result_sink out = {.ctx = (void *)sql, .notice = sl__on_notice};
    sl__exec_to(s, sql, &out);
}

static void sl__execf(sl_session *s, const char *fmt, ...) SL_PRINTF(2, 3);
static void sl__execf(sl_session *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql = sl_vsprintf(fmt, ap);
    va_end(ap);
    sl__exec(s, sql);
    sl_free(sql);
}

static const char *sl__data_dir; /* the engine's */

/* One run of a job: times, and its record as SHOW JOBS reports it. */
typedef struct sl__run {
    const char *name;  /* the job */
    double wall;       /* seconds */
    double cpu;        /* CPU seconds of the process */
    long rows_in;      /* rows read */
    long late;         /* rows dropped as late */
    long checkpoint;   /* newest checkpoint (= checkpoints taken, the final one included) */
} sl__run;

static int sl__on_job_row(void *ctx, const char *const *v, const size_t *lens)
{
    sl__run *r = ctx; /* job name, status, sink, guarantee, checkpoint, rows in, out, late, skipped */
    if (strcmp(v[0], r->name) == 0) {
        r->checkpoint = v[4] ? atol(v[4]) : -1;
        r->rows_in = v[5] ? atol(v[5]) : -1;
        r->late = v[7] ? atol(v[7]) : -1;
    }
    return 0;
}

/* Run sql as a new job at the given parallelism and checkpoint interval;
** then remove its checkpoints (1M keys of state are 57 MB each). */
static sl__run sl__run_job(sl_session *s, const char *sql, int parallelism, const char *interval)
{
    static int seq;
    char name[32];
    snprintf(name, sizeof name, "bench-%d", ++seq);
    sl__execf(s, "SET 'pipeline.name' = '%s'", name);
    sl__execf(s, "SET 'parallelism.default' = '%d'", parallelism);
    sl__execf(s, "SET 'execution.checkpointing.interval' = '%s'", interval);
    sl__run r = {.name = name, .rows_in = -1, .late = -1, .checkpoint = -1};
    double c0 = sl__cpu(), t0 = sl__now();
    sl__exec(s, sql);
    r.wall = sl__now() - t0;
    r.cpu = sl__cpu() - c0;
    sl_result_sink out = {.ctx = &r, .row = sl__on_job_row};
    sl__exec_to(s, "SHOW JOBS", &out);
    char *jobs = sl_path_join(sl__data_dir, "jobs");
    char *dir = sl_path_join(jobs, name);
    sl_error err = SL_ERROR_INIT;
    if (sl_fs_remove_tree(dir, &err) != 0)
        fprintf(stderr, "bench_pipeline: %s\n", err.message);
    sl_error_reset(&err);
    sl_free(dir);
    sl_free(jobs);
    r.name = NULL;
    return r;
}

/* A job's runs: per-run rates, and the ceiling measured just before each. */
typedef struct sl__runs {
    double rate[SL__MAX_RUNS];     /* rows/s (wall) */
    double cpu_rate[SL__MAX_RUNS]; /* rows per CPU-second */
    double ratio[SL__MAX_RUNS];    /* rate / the ceiling of the same round */
    double chk[SL__MAX_RUNS];      /* checkpoints taken */
    int n;
} sl__runs;

/* Every ceiling measured (printed at the end, with its spread). */
typedef struct sl__bench {
    sl_session *s;
    long rows;
    int runs;
    double ceil[SL__MAX_CEILINGS];
    int nceil;
} sl__bench;

/* One ceiling measurement, before a round of job runs. */
static double sl__ceiling_round(sl__bench *b)
{
    double c = sl__ceiling(b->rows);
    if (b->nceil < (int)SL_ARRAY_LEN(b->ceil))
        b->ceil[b->nceil++] = c;
    return c;
}

static void sl__add(sl__runs *rs, const sl__run *r, long rows, double ceiling)
{
    if (r->rows_in != rows || r->late != 0)
        fprintf(stderr, "bench_pipeline: job read %ld of %ld rows, %ld late\n", r->rows_in, rows,
                r->late);
    rs->rate[rs->n] = (double)rows / r->wall;
    rs->cpu_rate[rs->n] = (double)rows / r->cpu;
    rs->ratio[rs->n] = rs->rate[rs->n] / ceiling;
    rs->chk[rs->n] = (double)r->checkpoint;
    rs->n++;
}

static void sl__print(const char *label, const sl__runs *rs)
{
    printf("%-36s %11.0f rows/s %11.0f rows/CPU-s  ratio %.3f\n", label,
           sl__median(rs->rate, rs->n), sl__median(rs->cpu_rate, rs->n),
           sl__median(rs->ratio, rs->n));
}

/* A job at parallelism 1, checkpoints off, `runs` times. */
static void sl__measure(sl__bench *b, const char *label, const char *sql)
{
    sl__runs rs = {0};
    for (int i = 0; i < b->runs; i++) {
        double c = sl__ceiling_round(b);
        sl__run r = sl__run_job(b->s, sql, 1, "0");
        sl__add(&rs, &r, b->rows, c);
    }
    sl__print(label, &rs);
}

/* Two variants of a job (parallelism, checkpoint interval) run alternately,
** `runs` times each; *wall and *cpu get the medians of the per-round ratios
** b/a of rows/s and of rows/CPU-s. */
static void sl__measure_pair(sl__bench *b, const char *sql, long rows, int par_a,
                             const char *chk_a, int par_b, const char *chk_b, sl__runs *ra,
                             sl__runs *rb, double *wall, double *cpu)
{
    double w[SL__MAX_RUNS], c[SL__MAX_RUNS];
    for (int i = 0; i < b->runs; i++) {
        double ceiling = sl__ceiling_round(b);
        sl__run r = sl__run_job(b->s, sql, par_a, chk_a);
        sl__add(ra, &r, rows, ceiling);
        r = sl__run_job(b->s, sql, par_b, chk_b);
        sl__add(rb, &r, rows, ceiling);
        w[i] = rb->rate[i] / ra->rate[i];
        c[i] = rb->cpu_rate[i] / ra->cpu_rate[i];
    }
    *wall = sl__median(w, b->runs);
    *cpu = sl__median(c, b->runs);
}

/* The generated table: id 1..rows, random amounts and timestamps. */
static void sl__create_gen(sl_session *s, const char *name, long rows)
{
    sl__execf(s,
              "CREATE TABLE %s (id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3), "
              "WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH ('connector' = 'datagen', "
              "'number-of-rows' = '%ld', 'rows-per-second' = '1000000000000', "
              "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%ld', "
              "'fields.ts.max-past' = '1 h')",
              name, rows, rows);
}

static const char *const sl__filter_project =
    "INSERT INTO bh1 SELECT id, amount * 2 FROM gen WHERE id % 2 = 0";
static const char *const sl__filter_project_long = /* over 4 x rows: several checkpoints */
    "INSERT INTO bh1 SELECT id, amount * 2 FROM genl WHERE id % 2 = 0";
static const char *const sl__group =
    "INSERT INTO bh2 SELECT id % 1000000, COUNT(*), SUM(amount) FROM gen GROUP BY id % 1000000";
static const char *const sl__window =
    "INSERT INTO bh3 SELECT window_start, COUNT(*), SUM(amount) FROM "
    "TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
    "GROUP BY window_start, window_end";

static void sl__part_jobs(sl__bench *b)
{
    sl__measure(b, "filter/project", sl__filter_project);
    sl__runs g = {0};
    double to_agg[SL__MAX_RUNS], agg[SL__MAX_RUNS];
    for (int i = 0; i < b->runs; i++) { /* the job, then GROUP BY's own ceiling */
        double c = sl__ceiling_round(b);
        sl__run r = sl__run_job(b->s, sl__group, 1, "0");
        sl__add(&g, &r, b->rows, c);
        agg[i] = sl__agg_ceiling(b->rows);
        to_agg[i] = g.rate[i] / agg[i];
    }
    sl__print("group by 1M keys", &g);
    printf("%-36s %11.0f rows/s  group by / it: %.3f\n", "  ceiling: a plain hash aggregation",
           sl__median(agg, b->runs), sl__median(to_agg, b->runs));
    sl__measure(b, "tumbling window (1 s)", sl__window);
}

static void sl__part_checkpoints(sl__bench *b)
{
    static const struct {
        const char *label;
        const char *sql;
        long times; /* rows read: times x rows */
    } jobs[] = {{"filter/project", sl__filter_project_long, 4}, {"group by 1M keys", sl__group, 1}};
    for (size_t i = 0; i < SL_ARRAY_LEN(jobs); i++) {
        sl__runs off = {0}, on = {0};
        double wall, cpu;
        sl__measure_pair(b, jobs[i].sql, jobs[i].times * b->rows, 1, "0", 1, "1 s", &off, &on,
                         &wall, &cpu);
        char label[64];
        snprintf(label, sizeof label, "%s, checkpoints off", jobs[i].label);
        sl__print(label, &off);
        snprintf(label, sizeof label, "%s, 1 s checkpoints", jobs[i].label);
        sl__print(label, &on);
        printf("%-36s %.1f %% of rows/s, %.1f %% of rows/CPU-s (%.0f checkpoints vs. %.0f)\n",
               "  overhead", 100.0 * (1.0 - wall), 100.0 * (1.0 - cpu),
               sl__median(on.chk, on.n), sl__median(off.chk, off.n));
    }
}

static void sl__part_scaling(sl__bench *b)
{
    static const struct {
        const char *label;
        const char *sql;
    } jobs[] = {{"filter/project", sl__filter_project},
                {"group by 1M keys", sl__group},
                {"tumbling window (1 s)", sl__window}};
    for (size_t i = 0; i < SL_ARRAY_LEN(jobs); i++) {
        sl__runs p1 = {0}, p2 = {0};
        double wall, cpu;
        sl__measure_pair(b, jobs[i].sql, b->rows, 1, "0", 2, "0", &p1, &p2, &wall, &cpu);
        char label[64];
        snprintf(label, sizeof label, "%s, parallelism 1", jobs[i].label);
        sl__print(label, &p1);
        snprintf(label, sizeof label, "%s, parallelism 2", jobs[i].label);
        sl__print(label, &p2);
        printf("%-36s %.2f (rows/CPU-s: %.2f)\n", "  p2/p1", wall, cpu);
    }
}

static bool sl__wants(int argc, char **argv, const char *part)
{
    if (argc <= 3)
        return true;
    for (int i = 3; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    long rows = argc > 1 ? atol(argv[1]) : 5000000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (rows < 1000000 || runs < 1 || runs > SL__MAX_RUNS) {
        fprintf(stderr, "usage: bench_pipeline [rows >= 1000000] [runs 1..%d] "
                        "[jobs|checkpoints|scaling]...\n", SL__MAX_RUNS);
        return 2;
    }
    char tmpl[] = "/tmp/sluice-bench-XXXXXX";
    if (!mkdtemp(tmpl))
        return 1;
    char *dir = sl_path_join(tmpl, "data");
    sl_engine *eng = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_engine_open(dir, &eng, &err) != 0) {
        fprintf(stderr, "bench_pipeline: %s\n", err.message);
        return 1;
    }
    sl__data_dir = sl_engine_data_dir(eng);
    sl_session *s = sl_session_new(eng);
    sl__exec(s, "SET 'table.dml-sync' = 'true'");
    sl__create_gen(s, "gen", rows);
    sl__create_gen(s, "genl", 4 * rows);
    sl__exec(s, "CREATE TABLE bh1 (id BIGINT, a DECIMAL(11, 2)) WITH ('connector' = 'blackhole')");
    sl__exec(s, "CREATE TABLE bh2 (k BIGINT, n BIGINT, total DECIMAL(38, 2)) "
                "WITH ('connector' = 'blackhole')");
    sl__exec(s, "CREATE TABLE bh3 (ws TIMESTAMP(3), n BIGINT, total DECIMAL(38, 2)) "
                "WITH ('connector' = 'blackhole')");

    sl__bench b = {.s = s, .rows = rows, .runs = runs};
    printf("rows: %ld, median of %d runs\n", rows, runs);
    if (sl__wants(argc, argv, "jobs"))
        sl__part_jobs(&b);
    if (sl__wants(argc, argv, "checkpoints"))
        sl__part_checkpoints(&b);
    if (sl__wants(argc, argv, "scaling"))
        sl__part_scaling(&b);
    double lo = b.ceil[0], hi = b.ceil[0];
    for (int i = 1; i < b.nceil; i++) {
        lo = b.ceil[i] < lo ? b.ceil[i] : lo;
        hi = b.ceil[i] > hi ? b.ceil[i] : hi;
    }
    printf("%-36s %11.0f rows/s (median of %d, one before each round; %.0f..%.0f)\n",
           "ceiling (datagen alone)", sl__median(b.ceil, b.nceil), b.nceil, lo, hi);

    sl_session_free(s);
    sl_engine_close(eng);
    sl_fs_remove_tree(tmpl, &err);
    sl_free(dir);
    return 0;
}
