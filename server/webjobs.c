/*
** webjobs.c — what the web page of jobs and /metrics show: the jobs of the
** data directory, sampled through the planner API.
**
** The sampler is one more client of sl_planner.h: a session of its own runs
** SHOW JOBS (the statement psql and the shell use), and every figure the
** page and /metrics give is a cell of that result — nothing reaches into
** the engine around it. Each sample keeps, per job:
**
**   the latest row       every column of SHOW JOBS, by name ("job name" ->
**                        "job_name"): numbers as JSON integers, so columns
**                        SHOW JOBS gains later show up without a change here;
**   a history            (time, rows in, rows out, late, skipped) at most
**                        once a second, the newest SL_WEB_HISTORY points:
**                        the page's throughput plot;
**   checkpoint events    each time the last decided checkpoint moved (when
**                        it was seen, the id, how many were decided since the
**                        previous sample, and any "checkpoint ..." column the
**                        row has), the newest SL_WEB_CHECKPOINTS.
**
** A request also asks the planner API for each job's record in full
** (sl_engine_job_json, what DESCRIBE JOB shows): its checkpoint history
** (each checkpoint's duration and size on disk) and its restarts' causes.
**
** The main loop samples once a second (sl_webjobs_sample); /api/jobs and
** /metrics sample afresh, so what they say is never older than the request.
** One lock guards it all, the session included.
**
** Main routines: sl_webjobs_sample, sl_webjobs_json, sl_webjobs_metrics.
*/
#include "server_int.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SL_WEB_HISTORY 300    /* history points per job: five minutes at one a second */
#define SL_WEB_CHECKPOINTS 100 /* checkpoint events per job */
#define SL_WEB_POINT_MS 950   /* the least time between two history points */

typedef struct sl__wpoint {
    int64_t t;                /* wall-clock milliseconds since the epoch */
    int64_t rows_in, rows_out, late, skipped; /* SHOW JOBS' counters then (-1: none) */
} sl__wpoint;

typedef struct sl__wjob {
    char *name;               /* the job's name (the row's first cell) */
    json_t *row;              /* the latest row as an object (owned) */
    sl__wpoint hist[SL_WEB_HISTORY]; /* ring: hist[(hstart + i) % N], i < hn */
    int hstart, hn;
    json_t *chks;             /* array of checkpoint events, oldest first (owned) */
    int64_t last_chk;         /* the checkpoint the previous sample saw (-1: none) */
    bool seen;                /* listed by the latest sample */
} sl__wjob;

struct sl_webjobs {
    pthread_mutex_t mu;       /* guards everything below */
    sl_engine *eng;           /* for sl_engine_job_json */
    sl_session *s;            /* the sampler's session: SHOW JOBS */
    sl_list *jobs;            /* sl__wjob*, in SHOW JOBS' order */
    int64_t last_point;       /* wall-clock ms of the newest history point */
    int64_t samples;          /* samples taken */
    char *error;              /* why the latest SHOW JOBS failed, or NULL */
    /* the sample being collected (the sink's state) */
    int ncols;
    char **cols;              /* [ncols] JSON keys of SHOW JOBS' columns */
    sl_list *rows;            /* json_t* objects */
};

static void sl__wjob_free(void *p)
{
    sl__wjob *j = p;
    sl_free(j->name);
    json_decref(j->row);
    json_decref(j->chks);
    sl_free(j);
}

sl_webjobs *sl_webjobs_new(sl_engine *eng)
{
    sl_webjobs *w = sl_calloc(1, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    w->eng = eng;
    w->s = sl_session_new(eng);
    w->jobs = sl_list_new();
    return w;
}

static void sl__cols_free(sl_webjobs *w)
{
    for (int i = 0; i < w->ncols; i++)
        sl_free(w->cols[i]);
    sl_free(w->cols);
    w->cols = NULL;
    w->ncols = 0;
}

void sl_webjobs_free(sl_webjobs *w)
{
    if (!w)
        return;
    sl_session_free(w->s);
    sl_list_free(w->jobs, sl__wjob_free);
    sl__cols_free(w);
    sl_free(w->error);
    pthread_mutex_destroy(&w->mu);
    sl_free(w);
}

/* ---- the sink that collects SHOW JOBS' rows ---------------------------- */

static int sl__sink_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    (void)types;
    sl_webjobs *w = ctx;
    sl__cols_free(w);
    w->cols = sl_calloc((size_t)ncols, sizeof *w->cols);
    w->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        char *k = sl_strdup(names[i]);
        for (char *p = k; *p; p++)
            if (*p == ' ')
                *p = '_';
        w->cols[i] = k;
    }
    return 0;
}

/* A cell as JSON: an integer when it is one, else a string (bytes that are
** not UTF-8 become '?': JSON holds text only). */
static json_t *sl__cell(const char *v, size_t n)
{
    if (!v)
        return json_null();
    if (n > 0 && n < 19 && strspn(v + (v[0] == '-'), "0123456789") == n - (v[0] == '-') &&
        n > (size_t)(v[0] == '-'))
        return json_integer(strtoll(v, NULL, 10));
    json_t *s = json_stringn(v, n);
    if (s)
        return s;
    char *copy = sl_strndup(v, n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)copy[i] >= 0x80 || copy[i] == '\0')
            copy[i] = '?';
    s = json_stringn(copy, n);
    sl_free(copy);
    return s ? s : json_string("?");
}

static void sl__json_free(void *p)
{
    json_decref(p);
}

static int sl__sink_row(void *ctx, const char *const *values, const size_t *lens)
{
    sl_webjobs *w = ctx;
    json_t *o = json_object();
    for (int i = 0; i < w->ncols; i++)
        json_object_set_new(o, w->cols[i], sl__cell(values[i], values[i] ? lens[i] : 0));
    sl_list_push(w->rows, o);
    return 0;
}

/* ---- sampling ---------------------------------------------------------- */

static int64_t sl__int(json_t *row, const char *key, int64_t dflt)
{
    json_t *v = json_object_get(row, key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

static sl__wjob *sl__job_find(sl_webjobs *w, const char *name)
{
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        if (strcmp(j->name, name) == 0)
            return j;
    }
    return NULL;
}

/* A checkpoint event when the job's last decided checkpoint moved. */
static void sl__note_checkpoint(sl__wjob *j, json_t *row, int64_t now)
{
    int64_t chk = sl__int(row, "checkpoint", -1);
    if (chk < 0 || chk == j->last_chk) {
        j->last_chk = chk < 0 ? j->last_chk : chk;
        return;
    }
    json_t *e = json_object();
    json_object_set_new(e, "t", json_integer(now));
    json_object_set_new(e, "id", json_integer(chk));
    json_object_set_new(e, "decided", json_integer(j->last_chk >= 0 && chk > j->last_chk
                                                       ? chk - j->last_chk
                                                       : 1));
    const char *key;
    json_t *v;
    json_object_foreach(row, key, v)
        if (strncmp(key, "checkpoint_", 11) == 0) /* a duration, a size, when SHOW JOBS has one */
            json_object_set(e, key, v);
    json_array_append_new(j->chks, e);
    if (json_array_size(j->chks) > SL_WEB_CHECKPOINTS)
        json_array_remove(j->chks, 0);
    j->last_chk = chk;
}

/* Run SHOW JOBS and fold its rows in. Under w->mu. */
static void sl__sample_locked(sl_webjobs *w)
{
    sl_result_sink sink = {w, sl__sink_begin, sl__sink_row, NULL, NULL, NULL};
    sl_error err = SL_ERROR_INIT;
    w->rows = sl_list_new();
    int rc = sl_session_exec(w->s, "SHOW JOBS", 9, &sink, &err);
    if (rc != 0) {
        if (!w->error) /* said once, not every second */
            sl_log(SL_LOG_WARN, "the web page's SHOW JOBS failed: %s (SQLSTATE %s)",
                   err.message ? err.message : "", err.sqlstate);
        sl_free(w->error);
        w->error = sl_sprintf("%s (SQLSTATE %s)", err.message ? err.message : "SHOW JOBS failed",
                              err.sqlstate);
        sl_error_reset(&err);
        sl_list_free(w->rows, sl__json_free);
        w->rows = NULL;
        return;
    }
    sl_free(w->error);
    w->error = NULL;
    int64_t now = sl_now_nanos() / SL_NANOS_PER_MILLI;
    bool point = now - w->last_point >= SL_WEB_POINT_MS;
    if (point)
        w->last_point = now;
    w->samples++;
    sl_list *jobs = sl_list_new();
    for (int i = 0; i < w->rows->n; i++) {
        json_t *row = w->rows->items[i];
        const char *name = json_string_value(json_object_get(row, "job_name"));
        sl__wjob *j = name ? sl__job_find(w, name) : NULL;
        if (!name || (j && j->seen)) { /* (a name listed twice keeps its first row) */
            json_decref(row);
            continue;
        }
        if (!j) {
            j = sl_calloc(1, sizeof *j);
            j->name = sl_strdup(name);
            j->chks = json_array();
            j->last_chk = -1;
            sl_list_push(w->jobs, j);
        }
        j->seen = true;
        json_decref(j->row);
        j->row = row;
        sl__note_checkpoint(j, row, now);
        if (point) {
            int idx = j->hn < SL_WEB_HISTORY ? (j->hstart + j->hn++) % SL_WEB_HISTORY
                                             : j->hstart++ % SL_WEB_HISTORY;
            j->hstart %= SL_WEB_HISTORY;
            j->hist[idx] = (sl__wpoint){now, sl__int(row, "rows_in", -1),
                                        sl__int(row, "rows_out", -1), sl__int(row, "late_rows", -1),
                                        sl__int(row, "skipped_rows", -1)};
        }
        sl_list_push(jobs, j);
    }
    /* Jobs no longer listed are forgotten; the rest keep SHOW JOBS' order. */
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        if (!j->seen)
            sl__wjob_free(j);
    }
    for (int i = 0; i < jobs->n; i++)
        ((sl__wjob *)jobs->items[i])->seen = false;
    sl_list_free(w->jobs, NULL);
    w->jobs = jobs;
    sl_list_free(w->rows, NULL);
    w->rows = NULL;
}

void sl_webjobs_sample(sl_webjobs *w)
{
    pthread_mutex_lock(&w->mu);
    sl__sample_locked(w);
    pthread_mutex_unlock(&w->mu);
}

/* ---- /api/jobs --------------------------------------------------------- */

static json_t *sl__history_json(const sl__wjob *j)
{
    static const char *const keys[] = {"t", "rows_in", "rows_out", "late_rows", "skipped_rows"};
    json_t *h = json_object();
    json_t *arr[5];
    for (int k = 0; k < 5; k++) {
        arr[k] = json_array();
        json_object_set_new(h, keys[k], arr[k]);
    }
    for (int i = 0; i < j->hn; i++) {
        const sl__wpoint *p = &j->hist[(j->hstart + i) % SL_WEB_HISTORY];
        int64_t v[5] = {p->t, p->rows_in, p->rows_out, p->late, p->skipped};
        for (int k = 0; k < 5; k++)
            json_array_append_new(arr[k], v[k] < 0 ? json_null() : json_integer(v[k]));
    }
    return h;
}

/* The job's record in full (DESCRIBE JOB's; sl_engine_job_json), or NULL. */
static json_t *sl__job_detail(sl_webjobs *w, const sl__wjob *j)
{
    sl_error err = SL_ERROR_INIT;
    char *text = sl_engine_job_json(w->eng, j->name, &err);
    sl_error_reset(&err);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    sl_free(text);
    return o;
}

char *sl_webjobs_json(sl_webjobs *w)
{
    pthread_mutex_lock(&w->mu);
    sl__sample_locked(w);
    json_t *root = json_object();
    json_object_set_new(root, "now", json_integer(sl_now_nanos() / SL_NANOS_PER_MILLI));
    json_object_set_new(root, "sample_interval_ms", json_integer(1000));
    json_object_set_new(root, "error", w->error ? json_string(w->error) : json_null());
    json_t *cols = json_array();
    for (int i = 0; i < w->ncols; i++)
        json_array_append_new(cols, json_string(w->cols[i]));
    json_object_set_new(root, "columns", cols);
    json_t *jobs = json_array();
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        json_t *o = json_deep_copy(j->row);
        json_object_set_new(o, "history", sl__history_json(j));
        /* a copy: the sampler changes j->chks once the lock is released */
        json_object_set_new(o, "checkpoints", json_deep_copy(j->chks));
        json_t *d = sl__job_detail(w, j);
        json_t *hist = json_object_get(d, "checkpoints"); /* [{epoch, time, duration_ms, bytes}] */
        json_t *fails = json_object_get(d, "failures");   /* [{time, sqlstate, message}] */
        json_object_set(o, "checkpoint_history", json_is_array(hist) ? hist : json_array());
        json_object_set(o, "restart_causes", json_is_array(fails) ? fails : json_array());
        json_decref(d);
        json_array_append_new(jobs, o);
    }
    json_object_set_new(root, "jobs", jobs);
    pthread_mutex_unlock(&w->mu);
    char *text = json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(root);
    char *out = sl_strdup(text ? text : "{\"error\":\"could not encode the jobs\",\"jobs\":[]}");
    free(text);
    return out;
}

/* ---- /metrics ---------------------------------------------------------- */

void sl_prom_label_escape(sl_strbuf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            sl_strbuf_append(out, "\\\\");
        else if (*s == '"')
            sl_strbuf_append(out, "\\\"");
        else if (*s == '\n')
            sl_strbuf_append(out, "\\n");
        else
            sl_strbuf_append_char(out, *s);
    }
}

static void sl__prom_family(sl_strbuf *out, const char *name, const char *type, const char *help)
{
    sl_strbuf_appendf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sl__prom_label(sl_strbuf *out, const char *key, const char *value, bool first)
{
    sl_strbuf_appendf(out, "%s%s=\"", first ? "" : ",", key);
    sl_prom_label_escape(out, value ? value : "");
    sl_strbuf_append_char(out, '"');
}

/* One sample per job of the integer column col (jobs without it: none). */
static void sl__prom_per_job(sl_strbuf *out, sl_webjobs *w, const char *name, const char *type,
                             const char *col, const char *help)
{
    sl__prom_family(out, name, type, help);
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        json_t *v = json_object_get(j->row, col);
        if (!json_is_integer(v))
            continue;
        sl_strbuf_appendf(out, "%s{", name);
        sl__prom_label(out, "job", j->name, true);
        sl_strbuf_appendf(out, "} %lld\n", (long long)json_integer_value(v));
    }
}

char *sl_webjobs_metrics(sl_webjobs *w)
{
    sl_strbuf out = SL_STRBUF_INIT;
    pthread_mutex_lock(&w->mu);
    sl__sample_locked(w);
    static const char *const statuses[] = {"RUNNING", "FINISHED", "STOPPED", "FAILED",
                                           "INTERRUPTED"};
    sl__prom_family(&out, "sluice_jobs", "gauge", "Jobs of the data directory by status.");
    for (size_t k = 0; k < SL_ARRAY_LEN(statuses); k++) {
        int n = 0;
        for (int i = 0; i < w->jobs->n; i++) {
            const char *st = json_string_value(
                json_object_get(((sl__wjob *)w->jobs->items[i])->row, "status"));
            n += st && strcmp(st, statuses[k]) == 0;
        }
        sl_strbuf_appendf(&out, "sluice_jobs{status=\"%s\"} %d\n", statuses[k], n);
    }
    sl__prom_family(&out, "sluice_job_info", "gauge",
                    "A job's status, sink and effective guarantee as SHOW JOBS says (always 1).");
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        sl_strbuf_append(&out, "sluice_job_info{");
        sl__prom_label(&out, "job", j->name, true);
        static const char *const labels[] = {"status", "sink", "guarantee"};
        for (size_t k = 0; k < SL_ARRAY_LEN(labels); k++)
            sl__prom_label(&out, labels[k],
                           json_string_value(json_object_get(j->row, labels[k])), false);
        sl_strbuf_append(&out, "} 1\n");
    }
    sl__prom_family(&out, "sluice_job_running", "gauge", "1 while the job runs, else 0.");
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        const char *st = json_string_value(json_object_get(j->row, "status"));
        sl_strbuf_append(&out, "sluice_job_running{");
        sl__prom_label(&out, "job", j->name, true);
        sl_strbuf_appendf(&out, "} %d\n", st && strcmp(st, "RUNNING") == 0);
    }
    sl__prom_per_job(&out, w, "sluice_job_rows_in_total", "counter", "rows_in",
                     "Rows the job read, over its life (each row once across restarts).");
    sl__prom_per_job(&out, w, "sluice_job_rows_out_total", "counter", "rows_out",
                     "Rows the job wrote, over its life (each row once across restarts).");
    sl__prom_per_job(&out, w, "sluice_job_late_rows_total", "counter", "late_rows",
                     "Rows later than the watermark, dropped.");
    sl__prom_per_job(&out, w, "sluice_job_skipped_rows_total", "counter", "skipped_rows",
                     "Malformed records skipped.");
    sl__prom_per_job(&out, w, "sluice_job_restarts_total", "counter", "restarts",
                     "Runs that started the job again after a failure or a crash.");
    sl__prom_per_job(&out, w, "sluice_job_conflicts_total", "counter", "conflicts",
                     "Conflicting duplicates kept out of the sink and recorded.");
    sl__prom_per_job(&out, w, "sluice_job_last_checkpoint", "gauge", "checkpoint",
                     "The id of the job's last decided checkpoint.");
    /* The last checkpoint's duration and size, from the job's record. */
    sl__prom_family(&out, "sluice_job_last_checkpoint_duration_seconds", "gauge",
                    "How long the job's last decided checkpoint took, from trigger to decision.");
    sl_strbuf sizes = SL_STRBUF_INIT;
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        json_t *d = sl__job_detail(w, j);
        json_t *hist = json_object_get(d, "checkpoints");
        json_t *last = json_array_get(hist, json_array_size(hist) ? json_array_size(hist) - 1 : 0);
        json_t *ms = json_object_get(last, "duration_ms"), *bytes = json_object_get(last, "bytes");
        if (json_is_integer(ms)) {
            sl_strbuf_append(&out, "sluice_job_last_checkpoint_duration_seconds{");
            sl__prom_label(&out, "job", j->name, true);
            sl_strbuf_appendf(&out, "} %.3f\n", (double)json_integer_value(ms) / 1000.0);
        }
        if (json_is_integer(bytes)) {
            sl_strbuf_append(&sizes, "sluice_job_last_checkpoint_size_bytes{");
            sl__prom_label(&sizes, "job", j->name, true);
            sl_strbuf_appendf(&sizes, "} %lld\n", (long long)json_integer_value(bytes));
        }
        json_decref(d);
    }
    sl__prom_family(&out, "sluice_job_last_checkpoint_size_bytes", "gauge",
                    "The size on disk of the job's last decided checkpoint.");
    sl_strbuf_append(&out, sl_strbuf_cstr(&sizes));
    sl_strbuf_free(&sizes);
    sl__prom_family(&out, "sluice_job_open_transactions", "gauge",
                    "1 while the running job holds open sink transactions, else 0.");
    for (int i = 0; i < w->jobs->n; i++) {
        sl__wjob *j = w->jobs->items[i];
        sl_strbuf_append(&out, "sluice_job_open_transactions{");
        sl__prom_label(&out, "job", j->name, true);
        sl_strbuf_appendf(&out, "} %d\n",
                          json_is_string(json_object_get(j->row, "open_transactions")));
    }
    sl__prom_family(&out, "sluice_web_sample_errors", "gauge",
                    "1 when the latest SHOW JOBS of the sampler failed (the server's log says "
                    "why), else 0.");
    sl_strbuf_appendf(&out, "sluice_web_sample_errors %d\n", w->error != NULL);
    pthread_mutex_unlock(&w->mu);
    return sl_strbuf_detach(&out);
}
