/*
** bench_util.h — what the sink benchmarks share (bench_http, bench_s3,
** bench_opensearch, bench_mariadb): the clock, a fatal error, the median of
** rounds, and one run of `sluice -f` timed from start to exit.
**
** A header of static functions: each benchmark is one program built from
** one file, and this keeps it so.
*/
#ifndef SL_BENCH_UTIL_H
#define SL_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The benchmark's name, for messages: set by each program. */
static const char *bench_name = "bench";

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void die(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s: %s\n", bench_name, what, detail ? detail : "");
    exit(1);
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Run `sluice --data-dir /tmp/<tag>.data -q -f /tmp/<tag>.sql` with sql in
** that file and a fresh data directory, its output in /tmp/<tag>.log; the
** seconds from start to exit. A failed run is fatal (naming the log). */
static inline double bench_sluice(const char *sluice, const char *tag, const char *sql)
{
    char path[256], dir[256], log[256], rm[300];
    snprintf(path, sizeof path, "/tmp/%s.sql", tag);
    snprintf(dir, sizeof dir, "/tmp/%s.data", tag);
    snprintf(log, sizeof log, "/tmp/%s.log", tag);
    FILE *f = fopen(path, "w");
    if (!f)
        die("write", path);
    fputs(sql, f);
    fclose(f);
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0)
        die("rm", dir);
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen(log, "w", stdout);
        if (o)
            dup2(fileno(o), 2);
        execl(sluice, sluice, "--data-dir", dir, "-q", "-f", path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    double t = now_s() - t0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("sluice failed; see", log);
    return t;
}

#endif /* SL_BENCH_UTIL_H */
