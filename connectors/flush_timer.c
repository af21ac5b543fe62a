/*
** flush_timer.c — a sink's flush interval when no rows arrive.
**
** Sinks that buffer rows and promise to write them at least every interval
** ('sink.buffer-flush.interval' of jdbc, 'sink.bulk-flush.interval' of
** opensearch, as Flink's sinks do with a scheduled executor) check the
** interval as rows arrive; on a quiet input this thread does it. Every
** quarter interval (at least 10 ms), under the sink's own mutex, it asks
** due(ctx) and, when it says so, runs flush(ctx). What a flush fails with
** is kept and fails the sink's next operation (sl_flush_timer_failed), on
** the task's thread, as a failure there would.
**
** Main routines: sl_flush_timer_start, sl_flush_timer_failed,
** sl_flush_timer_stop.
*/
#include "sl_connector_int.h"

#include <pthread.h>
#include <time.h>

struct sl_flush_timer {
    pthread_mutex_t *mu;   /* the sink's: held while due and flush run */
    pthread_cond_t cv;     /* wakes the thread to stop */
    pthread_t thread;
    int64_t tick_ms;       /* how often it looks */
    bool (*due)(void *ctx);
    int (*flush)(void *ctx, sl_error *err);
    void *ctx;
    bool stopping;         /* [mu] */
    sl_error failed;       /* [mu] a flush's failure, for the next operation */
};

static void *sl__flush_timer_main(void *arg)
{
    sl_flush_timer *t = arg;
    pthread_mutex_lock(t->mu);
    while (!t->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        int64_t ns = until.tv_nsec + (t->tick_ms % 1000) * 1000000;
        until.tv_sec += (time_t)(t->tick_ms / 1000 + ns / 1000000000);
        until.tv_nsec = (long)(ns % 1000000000);
        pthread_cond_timedwait(&t->cv, t->mu, &until);
        if (t->stopping || sl_error_isset(&t->failed))
            continue;
        if (t->due(t->ctx))
            t->flush(t->ctx, &t->failed);
    }
    pthread_mutex_unlock(t->mu);
    return NULL;
}

sl_flush_timer *sl_flush_timer_start(pthread_mutex_t *mu, int64_t interval_ms,
                                     bool (*due)(void *ctx),
                                     int (*flush)(void *ctx, sl_error *err), void *ctx)
{
    if (interval_ms <= 0)
        return NULL;
    sl_flush_timer *t = sl_calloc(1, sizeof *t);
    t->mu = mu;
    t->tick_ms = interval_ms / 4 > 10 ? interval_ms / 4 : 10; /* late by at most a quarter */
    t->due = due;
    t->flush = flush;
    t->ctx = ctx;
    t->failed = (sl_error)SL_ERROR_INIT;
    pthread_cond_init(&t->cv, NULL);
    if (pthread_create(&t->thread, NULL, sl__flush_timer_main, t) != 0) {
        /* Rows arriving still flush on time; only a quiet input waits for
        ** the next checkpoint. */
        sl_log(SL_LOG_WARN, "could not start a sink's flush timer");
        pthread_cond_destroy(&t->cv);
        sl_free(t);
        return NULL;
    }
    return t;
}

int sl_flush_timer_failed(sl_flush_timer *t, sl_error *err)
{
    if (!t || !sl_error_isset(&t->failed))
        return 0;
    sl_error_copy(err, &t->failed);
    return -1;
}

void sl_flush_timer_stop(sl_flush_timer *t)
{
    if (!t)
        return;
    pthread_mutex_lock(t->mu);
    t->stopping = true;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(t->mu);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->cv);
    sl_error_reset(&t->failed);
    sl_free(t);
}
