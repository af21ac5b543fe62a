/*
** test_planner_reconcile.c — RECONCILE's key table (planner/reconcile_keys.c)
** with and without spilling: N keys added by two threads (the source's
** rows, the ledger's) with known missing, duplicated, extra and mismatched
** sets, under no budget, a budget that spills some partitions and one so
** small that spilled partitions are split again when read back. The counts
** are checked against a reference computed here from every row of every
** key (not from the table's per-key summary), the samples against the
** reference's smallest keys, sl_rk_each_missing against the missing keys;
** and no spill file is left behind. Also: a spill that cannot write
** (58030) and an interrupt while reading back (57014).
*/
#include "sl_test.h"
#include "../../planner/reconcile_int.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 60000

/* Key i's rows: the source's values, then the ledger's (value 0 = none). A
** row's value is a small integer; the encoded values are its text. */
typedef struct row {
    bool ledger;
    int key; /* -1: the NULL key */
    int val;
} row;

typedef struct rows {
    row *v;
    int n, cap;
} rows;

static void push(rows *r, bool ledger, int key, int val)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 1024;
        r->v = realloc(r->v, (size_t)r->cap * sizeof *r->v);
    }
    r->v[r->n++] = (row){ledger, key, val};
}

/* The data: each key by its remainders (coprime moduli, so sets overlap). */
static void make(rows *src, rows *led)
{
    for (int i = 0; i < N; i++) {
        bool in_src = i % 17 != 5;   /* else: extra (ledger only) */
        bool missing = i % 11 == 3;  /* in the source, not the ledger */
        if (in_src) {
            push(src, false, i, i % 100);
            if (i % 23 == 1)         /* a later source row: only the first counts */
                push(src, false, i, 999);
        }
        if (missing && in_src)
            continue;
        int v = i % 100;
        if (i % 19 == 2)             /* mismatched */
            v = 500;
        push(led, true, i, v);
        if (i % 13 == 7)             /* duplicated; every other one with another amount */
            push(led, true, i, i % 26 == 7 ? v + 1 : v);
    }
    push(src, false, -1, 1); /* the NULL key: missing */
}

/* The reference: every key's rows, grouped, then the checks by their
** definitions. */
typedef struct ref {
    int64_t count[SL_RK_NCHECKS];
    int64_t missing_sum; /* the missing non-NULL keys, summed (each_missing) */
    int64_t nmissing;
    int first[SL_RK_NCHECKS][SL_RK_SAMPLES]; /* smallest keys (-1 = NULL sorts first) */
    int nfirst[SL_RK_NCHECKS];
} ref;

static void reference(const rows *src, const rows *led, ref *out)
{
    memset(out, 0, sizeof *out);
    int m = N + 1; /* index 0: the NULL key */
    int *nsrc = calloc((size_t)m, sizeof(int)), *nled = calloc((size_t)m, sizeof(int));
    int *sval = calloc((size_t)m, sizeof(int));
    bool *bad = calloc((size_t)m, sizeof(bool));
    for (int i = 0; i < src->n; i++) {
        int k = src->v[i].key + 1;
        if (nsrc[k]++ == 0)
            sval[k] = src->v[i].val;
    }
    for (int i = 0; i < led->n; i++) {
        int k = led->v[i].key + 1;
        nled[k]++;
    }
    for (int i = 0; i < led->n; i++) { /* any ledger row unlike the source's first */
        int k = led->v[i].key + 1;
        if (nsrc[k] > 0 && led->v[i].val != sval[k])
            bad[k] = true;
    }
    for (int k = 0; k < m; k++) {
        bool f[SL_RK_NCHECKS] = {nsrc[k] > 0 && nled[k] == 0, nled[k] > 1,
                                 nsrc[k] == 0 && nled[k] > 0, bad[k]};
        for (int c = 0; c < SL_RK_NCHECKS; c++) {
            if (!f[c])
                continue;
            out->count[c]++;
            if (out->nfirst[c] < SL_RK_SAMPLES) /* k ascending: the smallest first */
                out->first[c][out->nfirst[c]++] = k - 1;
        }
        if (f[SL_RK_MISSING] && k > 0) {
            out->nmissing++;
            out->missing_sum += k - 1;
        }
    }
    free(nsrc);
    free(nled);
    free(sval);
    free(bad);
}

typedef struct feeder {
    sl_rk *t;
    const rows *r;
} feeder;

static void encode_row(sl_strbuf *k, sl_strbuf *v, const row *r)
{
    char kt[16], vt[16];
    snprintf(kt, sizeof kt, "%d", r->key);
    snprintf(vt, sizeof vt, "%d", r->val);
    const char *kv[1] = {r->key < 0 ? NULL : kt};
    size_t kl[1] = {strlen(kt)};
    const char *vv[2] = {vt, "x"};
    size_t vl[2] = {strlen(vt), 1};
    sl_strbuf_reset(k);
    sl_strbuf_reset(v);
    sl_rk_encode(k, 1, kv, kl);
    sl_rk_encode(v, 2, vv, vl);
}

/* One side's rows, each under its partition's lock as session_reconcile.c
** adds a batch's (the budget is counted at each unlock). */
static void *feed(void *arg)
{
    feeder *f = arg;
    sl_strbuf k = SL_STRBUF_INIT, v = SL_STRBUF_INIT;
    for (int i = 0; i < f->r->n; i++) {
        encode_row(&k, &v, &f->r->v[i]);
        uint64_t h = sl_rk_hash(k.buf, k.len);
        int p = sl_rk_part(h);
        sl_rk_lock(f->t, p);
        sl_rk_prefetch(f->t, h);
        sl_rk_add_hashed(f->t, f->r->v[i].ledger, h, k.buf, k.len, v.buf, v.len);
        sl_rk_unlock(f->t, p);
    }
    sl_strbuf_free(&k);
    sl_strbuf_free(&v);
    return NULL;
}

static void sum_missing(void *ctx, const char *v, size_t len)
{
    int64_t *s = ctx;
    char buf[16];
    memcpy(buf, v, len);
    buf[len] = 0;
    s[0] += atoll(buf);
    s[1]++;
}

static char *tmp_base(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *d = sl_sprintf("%s/rk-%d-%s", base ? base : "/tmp", (int)getpid(), name);
    char *cmd = sl_sprintf("rm -rf '%s' && mkdir -p '%s'", d, d);
    if (system(cmd) != 0)
        fprintf(stderr, "mkdir failed\n");
    sl_free(cmd);
    return d;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Fill a table with budget bytes (0: none), check it against the
** reference; the spills it made and its peak. */
static void run(size_t budget, const char *name, int *nspilled, size_t *peak)
{
    rows src = {0}, led = {0};
    make(&src, &led);
    ref want;
    reference(&src, &led, &want);
    char *dir = tmp_base(name);
    sl_rk *t = sl_rk_new();
    sl_rk_set_budget(t, budget, dir, NULL);
    feeder a = {t, &src}, b = {t, &led};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, feed, &b) == 0);
    feed(&a);
    pthread_join(th, NULL);
    sl_rk_check c[SL_RK_NCHECKS];
    sl_rk_checks(t, c);
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_rk_error(t, &err), 0);
    const char *names[1] = {"k"};
    for (int i = 0; i < SL_RK_NCHECKS; i++) {
        CHECK_INT(c[i].count, want.count[i]);
        CHECK_INT(c[i].nsamples, want.nfirst[i]);
        sl_strbuf got = SL_STRBUF_INIT, exp = SL_STRBUF_INIT;
        for (int s = 0; s < c[i].nsamples; s++) {
            sl_strbuf_append(&got, s ? ", " : "");
            sl_rk_key_format(&got, c[i].samples[s], 1, names);
        }
        for (int s = 0; s < want.nfirst[i]; s++) {
            sl_strbuf_append(&exp, s ? ", " : "");
            if (want.first[i][s] < 0)
                sl_strbuf_append(&exp, "k=NULL");
            else
                sl_strbuf_appendf(&exp, "k=%d", want.first[i][s]);
        }
        CHECK_STR(sl_strbuf_cstr(&got), sl_strbuf_cstr(&exp));
        sl_strbuf_free(&got);
        sl_strbuf_free(&exp);
    }
    int64_t m[2] = {0, 0};
    sl_rk_each_missing(t, sum_missing, m);
    CHECK_INT(m[1], want.nmissing);
    CHECK_INT(m[0], want.missing_sum);
    CHECK_INT(sl_rk_error(t, &err), 0);
    sl_rk_stats(t, peak, nspilled);
    CHECK(entries(dir) == (*nspilled ? 1 : 0)); /* the spill directory, its files unlinked */
    sl_rk_free(t);
    CHECK_INT(entries(dir), 0);
    rmdir(dir);
    sl_free(dir);
    free(src.v);
    free(led.v);
}

static void t_no_budget(void)
{
    int n;
    size_t peak;
    run(0, "none", &n, &peak);
    CHECK_INT(n, 0);
}

/* A budget of about half the table: some partitions spill, the others stay. */
static void t_spill_some(void)
{
    int n;
    size_t peak;
    run(4 << 20, "some", &n, &peak);
    printf("  4 MB: %d partitions spilled, peak %zu bytes\n", n, peak);
    CHECK(n > 0 && n < SL_RK_PARTS);
    CHECK(peak <= (size_t)(4 << 20) + (256 << 10)); /* one batch over, at most */
}

/* So small that every partition spills and each is split again (by 16) as
** it is read back. */
static void t_spill_split(void)
{
    int n;
    size_t peak;
    run(128 << 10, "split", &n, &peak);
    printf("  128 kB: %d partitions spilled or split\n", n);
    CHECK(n > SL_RK_PARTS);
}

/* The control: a ledger that lost rows does not match the reference (the
** check above can fail). */
static void t_reference_can_fail(void)
{
    rows src = {0}, led = {0};
    make(&src, &led);
    ref want;
    reference(&src, &led, &want);
    led.n -= 1000; /* the last ledger rows lost: more missing, fewer extra */
    sl_rk *t = sl_rk_new();
    feeder a = {t, &src}, b = {t, &led};
    feed(&a);
    feed(&b);
    sl_rk_check c[SL_RK_NCHECKS];
    sl_rk_checks(t, c);
    CHECK(c[SL_RK_MISSING].count != want.count[SL_RK_MISSING]);
    sl_rk_free(t);
    free(src.v);
    free(led.v);
}

/* A spill directory that cannot be made: 58030, no crash, nothing left. */
static void t_spill_fails(void)
{
    rows src = {0}, led = {0};
    make(&src, &led);
    sl_rk *t = sl_rk_new();
    sl_rk_set_budget(t, 64 << 10, "/dev/null/nope", NULL);
    feeder a = {t, &src}, b = {t, &led};
    feed(&a);
    feed(&b);
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_rk_error(t, &err) == -1);
    CHECK_STR(err.sqlstate, "58030");
    sl_error_reset(&err);
    sl_rk_free(t);
    free(src.v);
    free(led.v);
}

/* An interrupt while the spilled partitions are read back: 57014. */
static void t_interrupt(void)
{
    rows src = {0}, led = {0};
    make(&src, &led);
    char *dir = tmp_base("intr");
    volatile sig_atomic_t stop = 0;
    sl_rk *t = sl_rk_new();
    sl_rk_set_budget(t, 128 << 10, dir, &stop);
    feeder a = {t, &src}, b = {t, &led};
    feed(&a);
    feed(&b);
    stop = 1;
    sl_rk_check c[SL_RK_NCHECKS];
    sl_rk_checks(t, c);
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_rk_error(t, &err) == -1);
    CHECK_STR(err.sqlstate, "57014");
    sl_error_reset(&err);
    sl_rk_free(t);
    CHECK_INT(entries(dir), 0);
    rmdir(dir);
    sl_free(dir);
    free(src.v);
    free(led.v);
}

SL_TESTS(t_no_budget, t_spill_some, t_spill_split, t_reference_can_fail, t_spill_fails,
         t_interrupt)
