/*
** test_exec_runtime.c — runtime plumbing: channels (order, backpressure,
** timeouts, close, many senders) and checkpoint storage (sealing, crash
** leftovers, pruning, savepoints, names).
*/
#include "sl_test.h"

#include "../../exec/sl_exec.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

static sl_msg wm(int64_t t)
{
    sl_msg m = {SL_MSG_WATERMARK, NULL, 0, false, t};
    return m;
}

static void t_channel_order_and_timeout(void)
{
    sl_channel *ch = sl_channel_new(1, 4);
    for (int i = 0; i < 4; i++) {
        sl_msg m = wm(i);
        CHECK(sl_channel_send(ch, 0, &m) == 0);
    }
    CHECK_INT(sl_channel_len(ch), 4);
    sl_msg got;
    int lane = -1;
    for (int i = 0; i < 4; i++) {
        REQUIRE(sl_channel_recv(ch, NULL, &lane, &got, -1) == 0);
        CHECK_INT(got.watermark, i);
        CHECK_INT(lane, 0);
    }
    CHECK_INT(sl_channel_recv(ch, NULL, &lane, &got, 1000000), 1); /* 1 ms: nothing there */
    sl_channel_wake(ch); /* a command: the next wait returns at once */
    CHECK_INT(sl_channel_recv(ch, NULL, &lane, &got, -1), 1);
    sl_channel_free(ch);
}

static void t_channel_blocked_lanes(void)
{
    /* Alignment: a blocked lane is not read, the others are; unblocked, its
    ** messages come in order. Lanes are read round robin. */
    sl_channel *ch = sl_channel_new(3, 4);
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < 2; i++) {
            sl_msg m = wm(l * 10 + i);
            CHECK(sl_channel_send(ch, l, &m) == 0);
        }
    uint8_t blocked[3] = {0, 1, 0};
    sl_msg got;
    int lane, seen[3] = {0, 0, 0};
    for (int k = 0; k < 4; k++) {
        REQUIRE(sl_channel_recv(ch, blocked, &lane, &got, -1) == 0);
        CHECK(lane != 1);
        CHECK_INT(got.watermark, lane * 10 + seen[lane]);
        seen[lane]++;
    }
    CHECK_INT(seen[0], 2);
    CHECK_INT(seen[2], 2);
    CHECK_INT(sl_channel_recv(ch, blocked, &lane, &got, 1000000), 1); /* only lane 1 has some */
    blocked[1] = 0;
    REQUIRE(sl_channel_recv(ch, blocked, &lane, &got, -1) == 0);
    CHECK_INT(lane, 1);
    CHECK_INT(got.watermark, 10);
    sl_channel_free(ch);
}

typedef struct sender {
    sl_channel *ch; /* where to send */
    int lane;       /* on which lane */
    int first;      /* first value */
    int count;      /* how many */
    int sent;       /* how many went through */
} sender;

static void *send_all(void *arg)
{
    sender *s = arg;
    for (int i = 0; i < s->count; i++) {
        sl_msg m = wm(s->first + i);
        if (sl_channel_send(s->ch, s->lane, &m) != 0)
            break;
        s->sent++;
    }
    return NULL;
}

static void t_channel_backpressure_many_senders(void)
{
    /* Four senders push 5000 messages each through 8 slots per lane: nothing
    ** lost or doubled, each sender's messages in its order. */
    sl_channel *ch = sl_channel_new(4, 8);
    sender s[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        s[i] = (sender){ch, i, i * 100000, 5000, 0};
        pthread_create(&th[i], NULL, send_all, &s[i]);
    }
    int last[4] = {-1, -1, -1, -1};
    int total = 0;
    bool ordered = true;
    sl_msg m;
    int lane;
    while (total < 20000 && sl_channel_recv(ch, NULL, &lane, &m, -1) == 0) {
        int who = (int)(m.watermark / 100000), seq = (int)(m.watermark % 100000);
        ordered &= who == lane && seq == last[who] + 1;
        if (who >= 0 && who < 4)
            last[who] = seq;
        total++;
        CHECK(sl_channel_len(ch) <= 4 * 8);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK_INT(total, 20000);
    CHECK(ordered);
    sl_channel_free(ch);
}

static void t_channel_close(void)
{
    /* A sender blocked on a full channel is released by close and fails. */
    sl_channel *ch = sl_channel_new(1, 1);
    sender s = {ch, 0, 0, 3, 0};
    pthread_t th;
    pthread_create(&th, NULL, send_all, &s);
    while (sl_channel_len(ch) < 1)
        usleep(1000);
    usleep(20000); /* the sender is now blocked on the second message */
    sl_channel_close(ch);
    pthread_join(th, NULL);
    CHECK_INT(s.sent, 1);
    sl_msg m;
    CHECK_INT(sl_channel_recv(ch, NULL, NULL, &m, -1), 0); /* queued before close: drained */
    CHECK_INT(sl_channel_recv(ch, NULL, NULL, &m, -1), -1);
    sl_msg more = wm(9);
    CHECK_INT(sl_channel_send(ch, 0, &more), -1);
    /* A queued chunk is freed with the channel (LeakSanitizer checks). */
    sl_channel *ch2 = sl_channel_new(2, 2);
    sl_type t = sl_type_make(SL_TYPE_INT);
    sl_msg cm = {SL_MSG_CHUNK, sl_chunk_new(1, &t, 4), 0, false, 0};
    CHECK(sl_channel_send(ch2, 1, &cm) == 0);
    sl_channel_free(ch2);
    sl_channel_free(ch);
}

static char *tmpdir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *d = sl_sprintf("%s/runtime-%d/%s", base ? base : "/tmp", (int)getpid(), name);
    sl_error err = SL_ERROR_INIT;
    sl_fs_remove_tree(d, &err);
    sl_fs_mkdir_p(d, &err);
    return d;
}

static void t_checkpoint_seal_and_latest(void)
{
    char *data = tmpdir("chk");
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *st = NULL;
    REQUIRE(sl_chk_open(data, "billing/job 1", &st, &err) == 0);
    int64_t id = 0;
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, -1);
    CHECK(sl_chk_write_state(st, 1, "source-0", "pos=10", 6, &err) == 0);
    CHECK(sl_chk_write_state(st, 1, "agg/0", "state", 5, &err) == 0);
    /* Not sealed yet: not a checkpoint. */
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, -1);
    CHECK(sl_chk_seal(st, 1, false, 123, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 1);
    /* Checkpoint 2 written but the process "crashed" before sealing it. */
    CHECK(sl_chk_write_state(st, 2, "source-0", "pos=20", 6, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 1);
    char *data_read = NULL;
    size_t len = 0;
    REQUIRE(sl_chk_read_state(st, 1, "source-0", &data_read, &len, &err) == 0);
    CHECK_INT(len, 6);
    CHECK(memcmp(data_read, "pos=10", 6) == 0);
    sl_free(data_read);
    REQUIRE(sl_chk_read_state(st, 1, "agg/0", &data_read, &len, &err) == 0);
    CHECK(memcmp(data_read, "state", 5) == 0);
    sl_free(data_read);
    CHECK(sl_chk_read_state(st, 1, "nope", &data_read, &len, &err) == -1);
    CHECK_STR(err.sqlstate, "58P01");
    sl_error_reset(&err);
    /* The job name is escaped into one directory below jobs/. */
    char *p = sl_chk_path(st, 1);
    CHECK(strstr(p, "/jobs/billing%2Fjob%201/chk-1") != NULL);
    sl_free(p);
    /* A corrupt _metadata does not count. */
    CHECK(sl_chk_write_state(st, 3, "x", "y", 1, &err) == 0);
    CHECK(sl_chk_seal(st, 3, false, 1, &err) == 0);
    char *d3 = sl_chk_path(st, 3), *meta = sl_path_join(d3, "_metadata");
    REQUIRE(sl_fs_write_atomic(meta, "{garbage", 8, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 1);
    sl_free(meta);
    sl_free(d3);
    sl_chk_close(st);
    sl_free(data);
}

static void t_checkpoint_prune(void)
{
    char *data = tmpdir("prune");
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *st = NULL;
    REQUIRE(sl_chk_open(data, "j", &st, &err) == 0);
    for (int64_t i = 1; i <= 6; i++) {
        CHECK(sl_chk_write_state(st, i, "s", "v", 1, &err) == 0);
        if (i != 4) /* 4 is abandoned (never sealed) */
            CHECK(sl_chk_seal(st, i, i == 2 /* a savepoint */, i, &err) == 0);
    }
    CHECK(sl_chk_write_state(st, 7, "s", "v", 1, &err) == 0); /* in progress */
    CHECK(sl_chk_prune(st, 2, &err) == 0);
    bool exists[8];
    for (int64_t i = 1; i <= 7; i++) {
        char *d = sl_chk_path(st, i);
        exists[i] = sl_fs_exists(d);
        sl_free(d);
    }
    CHECK(!exists[1]); /* old */
    CHECK(exists[2]);  /* savepoint: kept */
    CHECK(!exists[3]); /* old */
    CHECK(!exists[4]); /* abandoned below the newest sealed */
    CHECK(exists[5] && exists[6]); /* the newest two */
    CHECK(exists[7]); /* in progress above the newest sealed */
    int64_t id;
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 6);
    sl_chk_close(st);
    sl_free(data);
}

SL_TESTS(t_channel_order_and_timeout, t_channel_blocked_lanes, t_channel_backpressure_many_senders, t_channel_close,
         t_checkpoint_seal_and_latest, t_checkpoint_prune)
