/*
** channel.c — bounded FIFO channels between tasks (see sl_exec.h).
**
** A ring buffer of messages under one mutex, with two condition variables
** (not empty / not full). A full channel blocks its senders: that is the
** engine's backpressure. Closing wakes everyone: senders fail at once,
** the receiver drains what is queued and then sees -1.
*/
#include "sl_exec.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

struct sl_channel {
    pthread_mutex_t mu;       /* guards everything below */
    pthread_cond_t not_empty; /* signalled on send and close */
    pthread_cond_t not_full;  /* signalled on receive and close */
    sl_msg *ring;             /* capacity slots */
    int cap;                  /* slots */
    int head;                 /* next slot to receive */
    int len;                  /* messages queued */
    bool closed;              /* no more sends */
};

sl_channel *sl_channel_new(int capacity)
{
    SL_ALWAYS(capacity > 0);
    sl_channel *ch = sl_calloc(1, sizeof *ch);
    pthread_mutex_init(&ch->mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&ch->not_empty, &attr);
    pthread_cond_init(&ch->not_full, &attr);
    pthread_condattr_destroy(&attr);
    ch->ring = sl_calloc((size_t)capacity, sizeof(sl_msg));
    ch->cap = capacity;
    return ch;
}

int sl_channel_send(sl_channel *ch, const sl_msg *m)
{
    pthread_mutex_lock(&ch->mu);
    while (ch->len == ch->cap && !ch->closed)
        pthread_cond_wait(&ch->not_full, &ch->mu);
    if (ch->closed) {
        pthread_mutex_unlock(&ch->mu);
        return -1;
    }
    ch->ring[(ch->head + ch->len) % ch->cap] = *m;
    ch->len++;
    pthread_cond_signal(&ch->not_empty);
    pthread_mutex_unlock(&ch->mu);
    return 0;
}

/* now + ns as an absolute CLOCK_MONOTONIC deadline */
static struct timespec sl__deadline(int64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t total = (int64_t)ts.tv_nsec + ns % 1000000000LL;
    ts.tv_sec += (time_t)(ns / 1000000000LL + total / 1000000000LL);
    ts.tv_nsec = (long)(total % 1000000000LL);
    return ts;
}

int sl_channel_recv(sl_channel *ch, sl_msg *m, int64_t timeout_ns)
{
    struct timespec until = sl__deadline(timeout_ns > 0 ? timeout_ns : 0);
    pthread_mutex_lock(&ch->mu);
    while (ch->len == 0 && !ch->closed) {
        if (timeout_ns < 0) {
            pthread_cond_wait(&ch->not_empty, &ch->mu);
        } else if (pthread_cond_timedwait(&ch->not_empty, &ch->mu, &until) == ETIMEDOUT) {
            if (ch->len == 0 && !ch->closed) {
                pthread_mutex_unlock(&ch->mu);
                return 1;
            }
        }
    }
    if (ch->len == 0) { /* closed and drained */
        pthread_mutex_unlock(&ch->mu);
        return -1;
    }
    *m = ch->ring[ch->head];
    ch->head = (ch->head + 1) % ch->cap;
    ch->len--;
    pthread_cond_signal(&ch->not_full);
    pthread_mutex_unlock(&ch->mu);
    return 0;
}

void sl_channel_close(sl_channel *ch)
{
    pthread_mutex_lock(&ch->mu);
    ch->closed = true;
    pthread_cond_broadcast(&ch->not_empty);
    pthread_cond_broadcast(&ch->not_full);
    pthread_mutex_unlock(&ch->mu);
}

int sl_channel_len(sl_channel *ch)
{
    pthread_mutex_lock(&ch->mu);
    int n = ch->len;
    pthread_mutex_unlock(&ch->mu);
    return n;
}

void sl_channel_free(sl_channel *ch)
{
    if (!ch)
        return;
    for (int i = 0; i < ch->len; i++) {
        sl_msg *m = &ch->ring[(ch->head + i) % ch->cap];
        if (m->kind == SL_MSG_CHUNK)
            sl_chunk_free(m->chunk);
    }
    pthread_cond_destroy(&ch->not_empty);
    pthread_cond_destroy(&ch->not_full);
    pthread_mutex_destroy(&ch->mu);
    sl_free(ch->ring);
    sl_free(ch);
}
