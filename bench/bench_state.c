/*
** bench_state.c — checkpointing an aggregation's state, as ratios to ceilings.
**
** A group aggregation operator (sl_group_agg_new: BIGINT key, COUNT(*) and
** SUM of a DECIMAL(10, 2)) is filled with `keys` distinct keys, one row
** each, in 1024-row chunks. Then, each timed `runs` times (median printed):
**
**   snapshot    op->ops->snapshot into memory: what a task does at a
**               barrier, while its input waits (the synchronous part);
**               ceiling: memcpy of the same bytes into fresh memory;
**   write       sl_chk_write_state + sl_chk_seal into a data directory:
**               what the coordinator does off the task threads (the
**               asynchronous part; write, fsync, rename, _metadata);
**               ceiling: write(2) + fsync(2) of the same bytes to a new file;
**   read        sl_chk_read_state of the blob (from the page cache);
**               ceiling: read(2) of the same file;
**   restore     op->ops->restore into a new operator (rebuilds the key
**               table); ceiling: memcpy of the same bytes.
**
** Ratios are ceiling time / measured time (1 = as fast as the ceiling). A
** restored operator's snapshot is checked to be the same bytes.
**
** Then the same state in a running job (sl_job_run, parallelism 1):
** datagen (`job-rows` rows, keys random in 1..keys) -> hash exchange ->
** the group aggregation -> blackhole, a checkpoint every second into the
** data directory; the job's stats give each checkpoint's duration
** (last_checkpoint_ms: trigger to every task's state written, before the
** seal), of which the median and the maximum are printed. 0 job-rows: skip.
**
** With SLUICE_BENCH_S3 = s3://bucket/path (credentials and endpoint from
** AWS_* in the environment), the same state is also written and read
** through a checkpoint store in S3 ('execution.checkpointing.dir'):
** write + seal against the ceiling of one PUT of the same bytes through the
** same client (sl_chk_fs put), and read against one GET.
**
**   build/release/bench/bench_state [keys] [runs] [job-rows] [data-dir-parent]
*/
#include "sl_bind.h"
#include "sl_connector.h"
#include "sl_exec.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SL__MAX_RUNS 15

static double sl__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sl__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double sl__median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, sl__cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void sl__check(int rc, sl_error *err, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "bench_state: %s: %s\n", what, err->message);
        exit(1);
    }
}

/* The input: key BIGINT, amount DECIMAL(10, 2). */
static const sl_type sl__in_types[2] = {{SL_TYPE_BIGINT, 0, 0, false},
                                        {SL_TYPE_DECIMAL, 10, 2, false}};
static const int sl__keys[1] = {0};
static sl_agg_call sl__calls[2];

static sl_operator *sl__new_op(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_func_id fns[2] = {SL_FN_COUNT, SL_FN_SUM};
    int args[2] = {-1, 1};
    for (int i = 0; i < 2; i++) {
        sl__calls[i] = (sl_agg_call){fns[i], false, args[i], {0}, -1, NULL, false, -1};
        sl__check(sl_func_agg_type(sl_func_get(fns[i]), args[i] >= 0 ? &sl__in_types[1] : NULL,
                                   -1, &sl__calls[i].type, &err),
                  &err, "aggregate type");
    }
    sl_group_agg_spec spec = {2, sl__in_types, 1, sl__keys, 2, sl__calls, 0, NULL, NULL, {0}, false, false};
    sl_operator *op = NULL;
    sl__check(sl_group_agg_new(&spec, &op, &err), &err, "sl_group_agg_new");
    return op;
}

static int sl__discard(void *ctx, sl_chunk *rows, sl_error *err)
{
    *(long *)ctx += rows->nrows;
    return 0;
}

/* Feed keys 1..n (one row each); returns rows/s. */
static double sl__fill(sl_operator *op, long n)
{
    sl_chunk *c = sl_chunk_new(2, sl__in_types, SL_CHUNK_ROWS);
    long emitted = 0;
    sl_emit out = {sl__discard, &emitted};
    sl_error err = SL_ERROR_INIT;
    double t0 = sl__now();
    for (long k = 1; k <= n;) {
        sl_chunk_reset(c);
        for (; k <= n && !sl_chunk_full(c); k++) {
            int r = sl_chunk_append_row(c, SL_ROW_INSERT);
            sl_chunk_set_i64(c, 0, r, k);
            sl_chunk_set_i128(c, 1, r, (sl_i128)(k % 100000));
        }
        sl__check(op->ops->process(op, c, &out, &err), &err, "process");
    }
    double secs = sl__now() - t0;
    sl_chunk_free(c);
    return (double)n / secs;
}

/* Seconds to copy len bytes into freshly allocated memory. */
static double sl__memcpy_time(const char *data, size_t len)
{
    double t0 = sl__now();
    char *copy = sl_malloc(len);
    memcpy(copy, data, len);
    double secs = sl__now() - t0;
    if (copy[len / 2] != data[len / 2])
        abort();
    sl_free(copy);
    return secs;
}

/* Seconds to write len bytes to a new file path with write(2) + fsync(2). */
static double sl__write_time(const char *path, const char *data, size_t len)
{
    unlink(path); /* a new file, as the checkpoint's is */
    double t0 = sl__now();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    for (size_t off = 0; fd >= 0 && off < len;) {
        ssize_t w = write(fd, data + off, len - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    if (fd < 0 || fsync(fd) != 0)
        abort();
    close(fd);
    return sl__now() - t0;
}

/* Seconds to read path (len bytes) with read(2). */
static double sl__read_time(const char *path, size_t len)
{
    double t0 = sl__now();
    char *buf = sl_malloc(len + 1);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t off = 0;
    while (fd >= 0 && off < len) {
        ssize_t r = read(fd, buf + off, len - off);
        if (r <= 0)
            abort();
        off += (size_t)r;
    }
    if (fd < 0)
        abort();
    close(fd);
    double secs = sl__now() - t0;
    sl_free(buf);
    return secs;
}

/* ---- the same state in a job ---- */

static int sl__create_agg(const void *arg, sl_operator **out, sl_error *err)
{
    return sl_group_agg_new(arg, out, err);
}

/* Checkpoint durations seen by the job's progress callback. */
typedef struct sl__chk_times {
    int64_t seen;       /* checkpoints counted */
    double ms[4096];    /* their durations */
    int n;
} sl__chk_times;

static void sl__on_progress(void *ctx, const sl_job_stats *st)
{
    sl__chk_times *t = ctx;
    if (st->checkpoints > t->seen && t->n < (int)SL_ARRAY_LEN(t->ms))
        t->ms[t->n++] = (double)st->last_checkpoint_ms;
    t->seen = st->checkpoints;
}

/* Run the job; print its rate and its checkpoints' durations. */
static void sl__job(const char *dir, long keys, long rows)
{
    char n[32], k[32];
    snprintf(n, sizeof n, "%ld", rows);
    snprintf(k, sizeof k, "%ld", keys);
    sl_kvlist *src_opts = sl_kvlist_new();
    sl_kvlist_add(src_opts, "connector", "datagen", -1, -1);
    sl_kvlist_add(src_opts, "number-of-rows", n, -1, -1);
    sl_kvlist_add(src_opts, "rows-per-second", "1000000000000", -1, -1);
    sl_kvlist_add(src_opts, "fields.k.min", "1", -1, -1);
    sl_kvlist_add(src_opts, "fields.k.max", k, -1, -1);
    sl_kvlist *sink_opts = sl_kvlist_new();
    sl_kvlist_add(sink_opts, "connector", "blackhole", -1, -1);
    static const char *const in_names[2] = {"k", "amount"};
    static const char *const out_names[3] = {"k", "n", "total"};
    sl_operator *probe = sl__new_op(); /* the calls' types, the output's */
    sl_type out_types[3] = {probe->out_types[0], probe->out_types[1], probe->out_types[2]};
    probe->ops->free(probe);
    sl_group_agg_spec agg = {2, sl__in_types, 1, sl__keys, 2, sl__calls, 0, NULL, NULL, {0}, false, false};
    sl_step_spec step = {NULL, sl__create_agg, &agg, "GroupAggregate", 3, out_types, {NULL}};
    sl_stage_spec stage = {SL_EXCHANGE_HASH, 1, sl__keys, 1, 1, &step, 0, 0, 0};
    sl_input_spec input = {sl_connector_find("datagen")->create_source,
                           {.options = src_opts, .ncols = 2, .names = in_names,
                            .types = sl__in_types, .parallelism = 1, .table = "gen"},
                           NULL, 0, NULL, 0, false, 0};
    sl__chk_times times = {0};
    sl_job_spec spec = {
        .name = "bench-state-job",
        .data_dir = dir,
        .checkpoint_interval_ms = 1000,
        .retain = 1,
        .parallelism = 1,
        .ninputs = 1,
        .inputs = &input,
        .nstages = 1,
        .stages = &stage,
        .create_sink = sl_connector_find("blackhole")->create_sink,
        .sink_args = {sink_opts, 3, out_names, out_types, 0, 1, "bh", "bench-state-job", NULL},
        .limit = -1,
        .progress = sl__on_progress,
        .progress_ctx = &times,
    };
    sl_job_stats stats;
    sl_error err = SL_ERROR_INIT;
    double t0 = sl__now();
    sl__check(sl_job_run(&spec, &stats, &err), &err, "sl_job_run");
    double secs = sl__now() - t0;
    double median = times.n ? sl__median(times.ms, times.n) : 0; /* sorts them */
    printf("job: %ld rows, keys random in 1..%ld, 1 s checkpoints: %.0f rows/s\n", rows, keys,
           (double)rows / secs);
    printf("  %lld checkpoints (the last at the end of the input): duration median %.0f ms, "
           "max %.0f ms\n",
           (long long)stats.checkpoints, median, times.n ? times.ms[times.n - 1] : 0.0);
    sl_kvlist_free(src_opts);
    sl_kvlist_free(sink_opts);
}

static void sl__print(const char *label, double secs, double ceiling, double mb)
{
    printf("%-34s %9.1f ms %9.0f MB/s   ceiling %8.1f ms  ratio %.3f\n", label, secs * 1e3,
           mb / secs, ceiling * 1e3, ceiling / secs);
}

/* The snapshot through a checkpoint store in S3, against one PUT / GET of
** the same bytes by the same storage. */
static void sl__s3_store(const char *data_dir, const char *base, const sl_strbuf *snap, int runs,
                         double mb)
{
    sl_error err = SL_ERROR_INIT;
    sl_connectors_register_storage();
    const sl_chk_fs *fs = NULL;
    sl__check(sl_chk_fs_find(base, &fs, &err), &err, "sl_chk_fs_find");
    if (!fs) {
        fprintf(stderr, "bench_state: SLUICE_BENCH_S3 is no URI of a storage\n");
        exit(1);
    }
    void *raw = fs->open(base, NULL, &err);
    sl__check(raw ? 0 : -1, &err, "open the storage");
    sl_chk_store *store = NULL;
    sl__check(sl_chk_open_at(data_dir, base, NULL, "bench-state", &store, &err), &err,
              "sl_chk_open_at");
    char *key = sl_sprintf("%s/bench-state-raw", base);
    double t_write[SL__MAX_RUNS], c_write[SL__MAX_RUNS], t_read[SL__MAX_RUNS],
        c_read[SL__MAX_RUNS];
    for (int i = 0; i < runs; i++) {
        int64_t id = i + 1;
        double t0 = sl__now();
        sl__check(sl_chk_write_state(store, id, "op-in0.0-0", snap->buf, snap->len, &err), &err,
                  "sl_chk_write_state (S3)");
        sl__check(sl_chk_seal(store, id, false, 0, sl_now_nanos(), &err), &err,
                  "sl_chk_seal (S3)");
        t_write[i] = sl__now() - t0;
        t0 = sl__now();
        sl__check(fs->put(raw, key, snap->buf, snap->len, &err), &err, "PUT");
        c_write[i] = sl__now() - t0;
        char *blob = NULL;
        size_t len = 0;
        bool found = false;
        t0 = sl__now();
        sl__check(sl_chk_read_state(store, id, "op-in0.0-0", &blob, &len, &err), &err,
                  "sl_chk_read_state (S3)");
        t_read[i] = sl__now() - t0;
        sl_free(blob);
        t0 = sl__now();
        sl__check(fs->get(raw, key, &blob, &len, &found, &err), &err, "GET");
        c_read[i] = sl__now() - t0;
        sl_free(blob);
        sl__check(sl_chk_prune(store, 1, &err), &err, "sl_chk_prune (S3)");
    }
    printf("checkpoint store in %s:\n", base);
    sl__print("write + seal (S3)", sl__median(t_write, runs), sl__median(c_write, runs), mb);
    sl__print("read blob (S3)", sl__median(t_read, runs), sl__median(c_read, runs), mb);
    int kept = 0, found = 0;
    sl_chk_drop(store, true, &kept, &found, &err);
    fs->remove_tree(raw, key, &err);
    sl_error_reset(&err);
    sl_chk_close(store);
    fs->close(raw);
    sl_free(key);
}

int main(int argc, char **argv)
{
    long keys = argc > 1 ? atol(argv[1]) : 1000000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    long job_rows = argc > 3 ? atol(argv[3]) : 30000000;
    const char *parent = argc > 4 ? argv[4] : "/tmp";
    if (keys < 1 || runs < 1 || runs > SL__MAX_RUNS || job_rows < 0) {
        fprintf(stderr, "usage: bench_state [keys] [runs 1..%d] [job-rows] [data-dir-parent]\n",
                SL__MAX_RUNS);
        return 2;
    }
    char *tmpl = sl_sprintf("%s/sluice-bench-state-XXXXXX", parent);
    if (!mkdtemp(tmpl)) {
        perror("bench_state: mkdtemp");
        return 1;
    }
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *store = NULL;
    sl__check(sl_chk_open(tmpl, "bench-state", &store, &err), &err, "sl_chk_open");
    char *raw = sl_path_join(tmpl, "raw");

    sl_operator *op = sl__new_op();
    double fill = sl__fill(op, keys);
    double t_snap[SL__MAX_RUNS], t_write[SL__MAX_RUNS], t_read[SL__MAX_RUNS],
        t_restore[SL__MAX_RUNS], c_mem[SL__MAX_RUNS], c_write[SL__MAX_RUNS],
        c_read[SL__MAX_RUNS];
    sl_strbuf snap = SL_STRBUF_INIT;
    for (int i = 0; i < runs; i++) {
        sl_strbuf_free(&snap);
        double t0 = sl__now();
        sl__check(op->ops->snapshot(op, &snap, &err), &err, "snapshot");
        t_snap[i] = sl__now() - t0;
        c_mem[i] = sl__memcpy_time(snap.buf, snap.len);

        int64_t id = i + 1;
        t0 = sl__now();
        sl__check(sl_chk_write_state(store, id, "op-in0.0-0", snap.buf, snap.len, &err), &err,
                  "sl_chk_write_state");
        sl__check(sl_chk_seal(store, id, false, 0, sl_now_nanos(), &err), &err, "sl_chk_seal");
        t_write[i] = sl__now() - t0;
        c_write[i] = sl__write_time(raw, snap.buf, snap.len);

        char *blob = NULL;
        size_t len = 0;
        t0 = sl__now();
        sl__check(sl_chk_read_state(store, id, "op-in0.0-0", &blob, &len, &err), &err,
                  "sl_chk_read_state");
        t_read[i] = sl__now() - t0;
        c_read[i] = sl__read_time(raw, snap.len);

        sl_operator *back = sl__new_op();
        t0 = sl__now();
        sl__check(back->ops->restore(back, blob, len, &err), &err, "restore");
        t_restore[i] = sl__now() - t0;
        sl_strbuf again = SL_STRBUF_INIT;
        sl__check(back->ops->snapshot(back, &again, &err), &err, "snapshot after restore");
        if (again.len != snap.len || memcmp(again.buf, snap.buf, snap.len) != 0) {
            fprintf(stderr, "bench_state: the restored state differs\n");
            return 1;
        }
        sl_strbuf_free(&again);
        back->ops->free(back);
        sl_free(blob);
        sl__check(sl_chk_prune(store, 1, &err), &err, "sl_chk_prune");
    }
    double mb = (double)snap.len / 1e6;
    printf("keys: %ld (BIGINT key, COUNT(*), SUM(DECIMAL(10, 2))), median of %d runs\n", keys, runs);
    printf("state: %.1f MB (%.1f bytes per key); filled at %.0f rows/s\n", mb,
           (double)snap.len / (double)keys, fill);
    printf("data directory under %s\n", parent);
    sl__print("snapshot (sync, into memory)", sl__median(t_snap, runs), sl__median(c_mem, runs),
              mb);
    sl__print("write + seal (async, coordinator)", sl__median(t_write, runs),
              sl__median(c_write, runs), mb);
    sl__print("read blob", sl__median(t_read, runs), sl__median(c_read, runs), mb);
    sl__print("restore (into a new operator)", sl__median(t_restore, runs),
              sl__median(c_mem, runs), mb);

    const char *s3 = getenv("SLUICE_BENCH_S3");
    if (s3 && *s3)
        sl__s3_store(tmpl, s3, &snap, runs, mb);
    sl_strbuf_free(&snap);
    op->ops->free(op);
    if (job_rows > 0)
        sl__job(tmpl, keys, job_rows);
    sl_chk_close(store);
    sl_fs_remove_tree(tmpl, &err);
    sl_free(raw);
    sl_free(tmpl);
    return 0;
}
