/*
** channel.c — bounded channels between tasks (see sl_exec.h).
**
** A channel is the input of one task: one lane per upstream sender, each a
** ring buffer of messages, all under one mutex. A full lane blocks its
** sender: that is the engine's backpressure. A blocked sender sleeps until
** its lane is down to half (a woken sender would otherwise send one message
** and sleep again: one wake-up per chunk, which cost a GROUP BY's
** bottleneck task a tenth of its time). The receiver takes from any
** lane it has not blocked (checkpoint alignment blocks the lanes that
** already delivered a barrier), round robin so no lane starves. Closing
** wakes everyone: senders fail at once, the receiver drains what is queued
** and then sees -1.
*/
#include "sl_exec.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

typedef struct sl__lane {
    sl_msg *ring; /* cap slots */
    int head;     /* next slot to receive */
    int len;      /* messages queued */
    bool waiting; /* its sender waits for room */
} sl__lane;

struct sl_channel {
    pthread_mutex_t mu;       /* guards everything below */
    pthread_cond_t not_empty; /* signalled on send, wake and close */
    pthread_cond_t not_full;  /* signalled when a waiting sender's lane is down to half, and on close */
    sl__lane *lanes;          /* nlanes lanes */
    int nlanes;               /* lanes */
    int cap;                  /* slots per lane */
    int next;                 /* lane to look at first (round robin) */
    bool woken;               /* sl_channel_wake was called since the last recv */
    bool closed;              /* no more sends */
};

sl_channel *sl_channel_new(int lanes, int capacity)
{
    SL_ALWAYS(capacity > 0 && lanes > 0);
    sl_channel *ch = sl_calloc(1, sizeof *ch);
    pthread_mutex_init(&ch->mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&ch->not_empty, &attr);
    pthread_cond_init(&ch->not_full, &attr);
    pthread_condattr_destroy(&attr);
    ch->lanes = sl_calloc((size_t)lanes, sizeof(sl__lane));
    for (int i = 0; i < lanes; i++)
        ch->lanes[i].ring = sl_calloc((size_t)capacity, sizeof(sl_msg));
    ch->nlanes = lanes;
    ch->cap = capacity;
    return ch;
}

int sl_channel_send(sl_channel *ch, int lane, const sl_msg *m)
{
    SL_ALWAYS(lane >= 0 && lane < ch->nlanes);
    sl__lane *l = &ch->lanes[lane];
    pthread_mutex_lock(&ch->mu);
    if (l->len == ch->cap) {
        l->waiting = true;
        while (l->len > ch->cap / 2 && !ch->closed)
            pthread_cond_wait(&ch->not_full, &ch->mu);
        l->waiting = false;
    }
    if (ch->closed) {
        pthread_mutex_unlock(&ch->mu);
        return -1;
    }
    l->ring[(l->head + l->len) % ch->cap] = *m;
    l->len++;
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

/* A lane with a message the receiver may take, or -1. */
static int sl__ready_lane(const sl_channel *ch, const uint8_t *blocked)
{
    for (int k = 0; k < ch->nlanes; k++) {
        int i = (ch->next + k) % ch->nlanes;
        if (ch->lanes[i].len > 0 && !(blocked && blocked[i]))
            return i;
    }
    return -1;
}

int sl_channel_recv(sl_channel *ch, const uint8_t *blocked, int *lane, sl_msg *m,
                    int64_t timeout_ns)
{
    struct timespec until = sl__deadline(timeout_ns > 0 ? timeout_ns : 0);
    pthread_mutex_lock(&ch->mu);
    int i;
    while ((i = sl__ready_lane(ch, blocked)) < 0) {
        if (ch->closed) { /* nothing the receiver may take will come */
            pthread_mutex_unlock(&ch->mu);
            return -1;
        }
        if (ch->woken || timeout_ns == 0) {
            ch->woken = false;
            pthread_mutex_unlock(&ch->mu);
            return 1;
        }
        if (timeout_ns < 0) {
            pthread_cond_wait(&ch->not_empty, &ch->mu);
        } else if (pthread_cond_timedwait(&ch->not_empty, &ch->mu, &until) == ETIMEDOUT) {
            if (sl__ready_lane(ch, blocked) < 0 && !ch->closed) {
                pthread_mutex_unlock(&ch->mu);
                return 1;
            }
        }
    }
    sl__lane *l = &ch->lanes[i];
    *m = l->ring[l->head];
    l->head = (l->head + 1) % ch->cap;
    l->len--;
    ch->next = (i + 1) % ch->nlanes;
    if (lane)
        *lane = i;
    if (l->waiting && l->len <= ch->cap / 2)
        pthread_cond_broadcast(&ch->not_full);
    pthread_mutex_unlock(&ch->mu);
    return 0;
}

void sl_channel_wake(sl_channel *ch)
{
    pthread_mutex_lock(&ch->mu);
    ch->woken = true;
    pthread_cond_broadcast(&ch->not_empty);
    pthread_mutex_unlock(&ch->mu);
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
    int n = 0;
    for (int i = 0; i < ch->nlanes; i++)
        n += ch->lanes[i].len;
    pthread_mutex_unlock(&ch->mu);
    return n;
}

void sl_channel_free(sl_channel *ch)
{
    if (!ch)
        return;
    for (int k = 0; k < ch->nlanes; k++) {
        sl__lane *l = &ch->lanes[k];
        for (int i = 0; i < l->len; i++) {
            sl_msg *m = &l->ring[(l->head + i) % ch->cap];
            if (m->kind == SL_MSG_CHUNK)
                sl_chunk_free(m->chunk);
        }
        sl_free(l->ring);
    }
    pthread_cond_destroy(&ch->not_empty);
    pthread_cond_destroy(&ch->not_full);
    pthread_mutex_destroy(&ch->mu);
    sl_free(ch->lanes);
    sl_free(ch);
}
