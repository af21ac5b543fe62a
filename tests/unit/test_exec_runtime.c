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

/* sl_chunk_select_view: the selected rows of the chosen columns, in order,
** with their kinds and NULLs; strings point into the source chunk. */
static void t_chunk_select_view(void)
{
    sl_type ty[3] = {sl_type_make(SL_TYPE_BIGINT), sl_type_make_p(SL_TYPE_VARCHAR, 10, 0),
                     sl_type_make(SL_TYPE_BIGINT)};
    sl_chunk *src = sl_chunk_new(3, ty, 8), *dst = sl_chunk_new(3, ty, 4);
    const char *words[6] = {"a", "bb", "ccc", "dddd", "eeeee", "ffffff"};
    for (int r = 0; r < 6; r++) {
        int k = sl_chunk_append_row(src, r % 2 ? SL_ROW_DELETE : SL_ROW_INSERT);
        sl_chunk_set_i64(src, 0, k, r * 10);
        if (r != 3)
            sl_chunk_set_str(src, 1, k, words[r], strlen(words[r]));
        sl_chunk_set_i64(src, 2, k, -r);
    }
    uint8_t sel[6] = {0, 1, 0, 1, 1, 0};
    bool cols[3] = {true, true, false};
    CHECK_INT(sl_chunk_select_view(dst, src, sel, cols), 3);
    REQUIRE(dst->nrows == 3);
    int want[3] = {1, 3, 4};
    for (int k = 0; k < 3; k++) {
        int r = want[k];
        CHECK_INT(dst->kinds[k], src->kinds[r]);
        CHECK_INT(dst->cols[0].v.i64[k], r * 10);
        CHECK_INT(dst->cols[1].nulls[k], r == 3);
        if (r != 3)
            CHECK(dst->cols[1].v.str[k].ptr == src->cols[1].v.str[r].ptr &&
                  dst->cols[1].v.str[k].len == strlen(words[r]));
    }
    /* every column; a second call starts afresh */
    uint8_t one[6] = {0, 0, 0, 0, 0, 1};
    CHECK_INT(sl_chunk_select_view(dst, src, one, NULL), 1);
    CHECK_INT(dst->cols[2].v.i64[0], -5);
    CHECK_INT(dst->kinds[0], SL_ROW_DELETE);
    sl_chunk_free(src);
    sl_chunk_free(dst);
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
    CHECK(sl_chk_seal(st, 1, false, 100, 123, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 1);
    /* Its times: triggered and sealed (RECONCILE's commit_boundary). */
    int64_t trig = -1, sealed_at = -1;
    CHECK_INT(sl_chk_times(st, 1, &trig, &sealed_at, &err), 1);
    CHECK_INT(trig, 100);
    CHECK_INT(sealed_at, 123);
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
    /* A corrupt _metadata of the newest checkpoint is an error naming it,
    ** never a silent fall back to checkpoint 1. */
    CHECK(sl_chk_write_state(st, 3, "x", "y", 1, &err) == 0);
    CHECK(sl_chk_seal(st, 3, false, 0, 1, &err) == 0);
    char *d3 = sl_chk_path(st, 3), *meta = sl_path_join(d3, "_metadata");
    REQUIRE(sl_fs_write_atomic(meta, "{garbage", 8, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    CHECK(err.message && strstr(err.message, "checkpoint 3 of job \"billing/job 1\""));
    CHECK(err.detail && strstr(err.detail, "chk-3/_metadata"));
    CHECK(err.hint != NULL);
    sl_error_reset(&err);
    sl_free(meta);
    sl_free(d3);
    sl_chk_close(st);
    sl_free(data);
}

/* Flip one bit of byte at of file path. */
static void flip(const char *path, size_t at)
{
    sl_error err = SL_ERROR_INIT;
    char *data = NULL;
    size_t len = 0;
    REQUIRE(sl_fs_read_file(path, &data, &len, &err) == 0);
    REQUIRE(at < len);
    data[at] ^= 0x04;
    REQUIRE(sl_fs_write_atomic(path, data, len, &err) == 0);
    sl_free(data);
}

static char *chk_file(sl_chk_store *st, int64_t id, const char *file)
{
    char *d = sl_chk_path(st, id), *p = sl_path_join(d, file);
    sl_free(d);
    return p;
}

/* A state file whose bytes were overwritten (same size) is refused when
** read, naming checkpoint and file; one cut short or missing already by
** sl_chk_latest. Never an older checkpoint instead. */
static void t_checkpoint_state_damaged(void)
{
    char *data = tmpdir("damaged");
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *st = NULL;
    REQUIRE(sl_chk_open(data, "j", &st, &err) == 0);
    for (int64_t i = 1; i <= 2; i++) {
        CHECK(sl_chk_write_state(st, i, "source-0", "pos=10", 6, &err) == 0);
        CHECK(sl_chk_write_state(st, i, "op-0", "0123456789", 10, &err) == 0);
        CHECK(sl_chk_seal(st, i, false, 0, i, &err) == 0);
    }
    char *op = chk_file(st, 2, "state-op-0");
    flip(op, 4);
    int64_t id = -1;
    CHECK(sl_chk_latest(st, &id, &err) == 0); /* same size: only reading tells */
    CHECK_INT(id, 2);
    char *got = NULL;
    size_t len = 0;
    CHECK(sl_chk_read_state(st, 2, "source-0", &got, &len, &err) == 0);
    sl_free(got);
    CHECK(sl_chk_read_state(st, 2, "op-0", &got, &len, &err) == -1);
    CHECK(got == NULL && len == 0);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    CHECK(err.message && strstr(err.message, "checkpoint 2 of job \"j\" is damaged") &&
          strstr(err.message, "\"state-op-0\" does not match its checksum"));
    CHECK(err.detail && strstr(err.detail, op));
    sl_error_reset(&err);
    /* Cut short: sl_chk_latest refuses the checkpoint (and does not go back to 1). */
    REQUIRE(sl_fs_write_atomic(op, "01234", 5, &err) == 0);
    id = -1;
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK_INT(id, -1);
    CHECK(err.message && strstr(err.message, "\"state-op-0\" has the wrong size"));
    sl_error_reset(&err);
    /* Missing: the same, by name. */
    REQUIRE(unlink(op) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    CHECK(err.message && strstr(err.message, "checkpoint 2 of job \"j\" is damaged: state "
                                             "file \"state-op-0\" is missing"));
    sl_error_reset(&err);
    CHECK(sl_chk_read_state(st, 2, "op-0", &got, &len, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    sl_error_reset(&err);
    /* A state the checkpoint never had is still 58P01. */
    CHECK(sl_chk_read_state(st, 1, "op-9", &got, &len, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_UNDEFINED_FILE);
    sl_error_reset(&err);
    /* The same checks through a savepoint path. */
    char *d2 = sl_chk_path(st, 2);
    sl_chk_store *sp = NULL;
    CHECK(sl_chk_open_path(d2, NULL, &sp, &id, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    CHECK(err.detail && strstr(err.detail, "state-op-0"));
    sl_error_reset(&err);
    sl_free(d2);
    sl_free(op);
    sl_chk_close(st);
    sl_free(data);
}

/* The newest sealed checkpoint deleted afterwards (its directory, or its
** _metadata) is reported as missing by name, not passed over for an older
** one; _latest itself is checksummed; a crash between _metadata and _latest
** (an older id in it) is no error. */
static void t_checkpoint_newest_missing(void)
{
    char *data = tmpdir("missing");
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *st = NULL;
    REQUIRE(sl_chk_open(data, "j", &st, &err) == 0);
    for (int64_t i = 1; i <= 3; i++) {
        CHECK(sl_chk_write_state(st, i, "s", "v", 1, &err) == 0);
        CHECK(sl_chk_seal(st, i, false, 0, i, &err) == 0);
    }
    char *latest = sl_sprintf("%s/jobs/j/_latest", data);
    char *saved = NULL;
    size_t len = 0;
    REQUIRE(sl_fs_read_file(latest, &saved, &len, &err) == 0);
    /* _metadata of 3 gone */
    char *meta3 = chk_file(st, 3, "_metadata");
    REQUIRE(unlink(meta3) == 0);
    int64_t id = 7;
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK_INT(id, -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    CHECK(err.message && strstr(err.message, "checkpoint 3 of job \"j\" is missing"));
    CHECK(err.detail && strstr(err.detail, "chk-3 has no _metadata") &&
          strstr(err.detail, "newest checkpoint present is 2"));
    sl_error_reset(&err);
    /* the whole directory gone */
    char *d3 = sl_chk_path(st, 3);
    REQUIRE(sl_fs_remove_tree(d3, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK(err.detail && strstr(err.detail, "chk-3 does not exist"));
    sl_error_reset(&err);
    /* a crash after 4's _metadata, before _latest: 4 is the newest, no error */
    CHECK(sl_chk_write_state(st, 4, "s", "v", 1, &err) == 0);
    CHECK(sl_chk_seal(st, 4, false, 0, 4, &err) == 0);
    REQUIRE(sl_fs_write_atomic(latest, saved, len, &err) == 0); /* names 3 */
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 4);
    /* _latest damaged: by name */
    saved[len / 2] ^= 0x04;
    REQUIRE(sl_fs_write_atomic(latest, saved, len, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    CHECK(err.detail && strstr(err.detail, latest));
    sl_error_reset(&err);
    /* removed (a job directory from before _latest): the newest present */
    REQUIRE(unlink(latest) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 4);
    sl_free(d3);
    sl_free(meta3);
    sl_free(saved);
    sl_free(latest);
    sl_chk_close(st);
    sl_free(data);
}

/* Every single changed byte of _metadata is caught (its own checksum), the
** version number and the checksum digits included. */
static void t_checkpoint_metadata_every_byte(void)
{
    char *data = tmpdir("meta");
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *st = NULL;
    REQUIRE(sl_chk_open(data, "j", &st, &err) == 0);
    CHECK(sl_chk_write_state(st, 1, "s", "v", 1, &err) == 0);
    CHECK(sl_chk_seal(st, 1, false, 0, 1, &err) == 0);
    CHECK(sl_chk_write_state(st, 2, "s", "w", 1, &err) == 0);
    CHECK(sl_chk_seal(st, 2, false, 0, 2, &err) == 0);
    char *meta = chk_file(st, 2, "_metadata"), *text = NULL;
    size_t len = 0;
    REQUIRE(sl_fs_read_file(meta, &text, &len, &err) == 0);
    CHECK(strstr(text, "\"version\": 2") && strstr(text, "\"xxh3\": \"") &&
          strstr(text, "\"checksum\": \""));
    int caught = 0;
    for (size_t i = 0; i < len; i++) {
        flip(meta, i);
        int64_t id = -1;
        int rc = sl_chk_latest(st, &id, &err);
        if (rc == -1 && strcmp(err.sqlstate, SL_ERR_DATA_CORRUPTED) == 0 && id == -1 &&
            strstr(err.message, "checkpoint 2 "))
            caught++;
        else
            fprintf(stderr, "byte %zu of _metadata changed: rc %d, id %lld\n", i, rc,
                    (long long)id);
        sl_error_reset(&err);
        flip(meta, i);
    }
    CHECK_INT(caught, (int)len);
    int64_t id = -1;
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 2);
    sl_free(text);
    sl_free(meta);
    sl_chk_close(st);
    sl_free(data);
}

/* A version-1 _metadata (written before checksums) is still read, unverified;
** checkpoints sealed from the files on disk (decided, not sealed) are
** checksummed from then on. */
static void t_checkpoint_version1_and_seal_existing(void)
{
    char *data = tmpdir("v1");
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *st = NULL;
    REQUIRE(sl_chk_open(data, "j", &st, &err) == 0);
    CHECK(sl_chk_write_state(st, 1, "s", "old", 3, &err) == 0);
    char *meta = chk_file(st, 1, "_metadata");
    const char *v1 = "{\"format\": \"sluice-checkpoint\", \"version\": 1, \"job\": \"j\", "
                     "\"checkpoint\": 1, \"savepoint\": false, \"time\": 5, "
                     "\"files\": [\"state-s\"]}";
    REQUIRE(sl_fs_write_atomic(meta, v1, strlen(v1), &err) == 0);
    int64_t id = -1;
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 1);
    char *got = NULL;
    size_t len = 0;
    CHECK(sl_chk_read_state(st, 1, "s", &got, &len, &err) == 0);
    CHECK(len == 3 && memcmp(got, "old", 3) == 0);
    sl_free(got);
    /* version 2 without its checksum is not taken for version 1 */
    char *v2 = sl_strdup(v1);
    *strstr(v2, "1, \"job") = '2';
    REQUIRE(sl_fs_write_atomic(meta, v2, strlen(v2), &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK(err.detail && strstr(err.detail, "lacks its checksum"));
    sl_error_reset(&err);
    sl_free(v2);
    REQUIRE(sl_fs_write_atomic(meta, v1, strlen(v1), &err) == 0);
    /* Checkpoint 2: decided but not sealed (no _metadata): read unverified,
    ** then sealed from its files, which are verified from then on. */
    CHECK(sl_chk_write_state(st, 2, "s", "new", 3, &err) == 0);
    sl_chk_close(st);
    REQUIRE(sl_chk_open(data, "j", &st, &err) == 0); /* a new process */
    CHECK(sl_chk_read_state(st, 2, "s", &got, &len, &err) == 0);
    sl_free(got);
    CHECK(sl_chk_seal_existing(st, 2, 9, &err) == 0);
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 2);
    /* sealed at recovery: when it was triggered is not known */
    int64_t trig = -1, sealed_at = -1;
    CHECK_INT(sl_chk_times(st, 2, &trig, &sealed_at, &err), 1);
    CHECK_INT(trig, 0);
    CHECK_INT(sealed_at, 9);
    char *s2 = chk_file(st, 2, "state-s");
    flip(s2, 1);
    CHECK(sl_chk_read_state(st, 2, "s", &got, &len, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    sl_error_reset(&err);
    sl_free(s2);
    sl_free(meta);
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
            CHECK(sl_chk_seal(st, i, i == 2 /* a savepoint */, 0, i, &err) == 0);
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

/* ------------------------------------------------------------------------
** A registered storage (sl_chk_fs): objects in memory under "mem://", as
** S3 holds them (no directories: keys; a listing groups by the next part).
*/
static sl_kvlist *sl__mem; /* path -> bytes (text) */
static int sl__mem_opens;

static void *mem_open(const char *location, const sl_kvlist *opts, sl_error *err)
{
    if (opts && sl_kvlist_get(opts, "deny"))
        return sl_error_set(err, "28000", -1, "denied"), NULL;
    sl__mem_opens++;
    return sl__mem;
}
static void mem_close(void *ctx) {}
static int mem_put(void *ctx, const char *path, const void *data, size_t len, sl_error *err)
{
    char *text = sl_strndup(data, len);
    sl_kvlist_set(sl__mem, path, text, -1, -1);
    sl_free(text);
    return 0;
}
static int mem_get(void *ctx, const char *path, char **data, size_t *len, bool *found,
                   sl_error *err)
{
    const char *v = sl_kvlist_get(sl__mem, path);
    *found = v != NULL;
    *data = v ? sl_strdup(v) : NULL;
    *len = v ? strlen(v) : 0;
    return 0;
}
static int mem_list(void *ctx, const char *dir, sl_list *out, bool *exists, sl_error *err)
{
    size_t n = strlen(dir);
    *exists = false;
    for (int i = 0; i < sl__mem->n; i++) {
        const char *k = sl__mem->items[i].key;
        if (strncmp(k, dir, n) != 0 || k[n] != '/')
            continue;
        *exists = true;
        const char *rest = k + n + 1;
        size_t part = strcspn(rest, "/");
        sl_chk_entry *e = NULL;
        for (int j = 0; j < out->n && !e; j++)
            if (strlen(((sl_chk_entry *)out->items[j])->name) == part &&
                strncmp(((sl_chk_entry *)out->items[j])->name, rest, part) == 0)
                e = out->items[j];
        if (!e) {
            e = sl_calloc(1, sizeof *e);
            e->name = sl_strndup(rest, part);
            e->dir = rest[part] == '/';
            sl_list_push(out, e);
        }
        e->size += (int64_t)strlen(sl__mem->items[i].value);
    }
    return 0;
}
static int mem_remove_tree(void *ctx, const char *dir, sl_error *err)
{
    size_t n = strlen(dir);
    for (int i = sl__mem->n - 1; i >= 0; i--) {
        const char *k = sl__mem->items[i].key;
        if (strncmp(k, dir, n) == 0 && (k[n] == '/' || k[n] == '\0'))
            sl_kvlist_remove(sl__mem, k);
    }
    return 0;
}
static int mem_put_new(void *ctx, const char *path, const void *data, size_t len,
                       bool *existed, sl_error *err)
{
    *existed = sl_kvlist_get(sl__mem, path) != NULL;
    return *existed ? 0 : mem_put(ctx, path, data, len, err);
}
static const sl_chk_fs sl__mem_fs = {"mem,memx", mem_open,  mem_close,      mem_put,
                                     mem_put_new, mem_get, mem_list, mem_remove_tree};

static void t_checkpoint_registered_storage(void)
{
    sl_error err = SL_ERROR_INIT;
    sl__mem = sl_kvlist_new();
    sl_chk_store *st = NULL;
    /* Unregistered: refused, with the scheme named. */
    CHECK(sl_chk_open_at("/nowhere", "mem://b/ck", NULL, "j", &st, &err) == -1);
    CHECK_STR(err.sqlstate, "0A000");
    CHECK(strstr(err.message, "\"mem\"") != NULL);
    sl_error_reset(&err);
    sl_chk_fs_register(&sl__mem_fs);
    sl_chk_fs_register(&sl__mem_fs); /* once */
    /* The storage's own refusal (credentials) fails the open. */
    sl_kvlist *deny = sl_kvlist_new();
    sl_kvlist_set(deny, "deny", "1", -1, -1);
    CHECK(sl_chk_open_at("/nowhere", "memx://b/ck/", deny, "j", &st, &err) == -1);
    CHECK_STR(err.sqlstate, "28000");
    sl_error_reset(&err);
    sl_kvlist_free(deny);
    REQUIRE(sl_chk_open_at("/nowhere", "mem://b/ck/", NULL, "a/job", &st, &err) == 0);
    CHECK(!sl_chk_is_local(st));
    CHECK_STR(sl_chk_dir(st), "mem://b/ck/a%2Fjob");
    for (int64_t id = 1; id <= 5; id++) {
        CHECK(sl_chk_write_state(st, id, "source-0", "pos", 3, &err) == 0);
        CHECK(sl_chk_write_state(st, id, "agg/1", "groups", 6, &err) == 0);
        CHECK(sl_chk_sync(st, id, &err) == 0);
        CHECK(sl_chk_seal(st, id, id == 2, 10, 20, &err) == 0); /* 2 is a savepoint */
        CHECK(sl_chk_prune(st, 2, &err) == 0);
    }
    /* Nothing went to local files: every object is under the location. */
    CHECK(!sl_fs_exists("/nowhere"));
    CHECK(sl_kvlist_get(sl__mem, "mem://b/ck/a%2Fjob/_latest") != NULL);
    CHECK(sl_kvlist_get(sl__mem, "mem://b/ck/a%2Fjob/chk-5/state-agg%2F1") != NULL);
    int64_t *ids = NULL;
    int n = 0;
    REQUIRE(sl_chk_ids(st, &ids, &n, &err) == 0);
    CHECK_INT(n, 3); /* 4, 5 and the savepoint 2 */
    CHECK(n == 3 && ids[0] == 2 && ids[1] == 4 && ids[2] == 5);
    sl_free(ids);
    int64_t id = -1;
    CHECK(sl_chk_latest(st, &id, &err) == 0);
    CHECK_INT(id, 5);
    sl_list *names = sl_list_new();
    CHECK(sl_chk_states(st, 5, names, &err) == 0);
    CHECK_INT(names->n, 2);
    bool agg = false;
    for (int i = 0; i < names->n; i++)
        agg |= strcmp(names->items[i], "agg/1") == 0; /* unescaped */
    CHECK(agg);
    sl_list_free(names, sl_free);
    CHECK(sl_chk_bytes(st, 5) > 9);
    char *data = NULL;
    size_t len = 0;
    REQUIRE(sl_chk_read_state(st, 5, "agg/1", &data, &len, &err) == 0);
    CHECK(len == 6 && memcmp(data, "groups", 6) == 0);
    sl_free(data);
    /* A state object of another size: XX001 naming it, never an older one. */
    sl_kvlist_set(sl__mem, "mem://b/ck/a%2Fjob/chk-5/state-source-0", "po", -1, -1);
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    CHECK(strstr(err.detail, "mem://b/ck/a%2Fjob/chk-5/state-source-0") != NULL);
    sl_error_reset(&err);
    sl_kvlist_set(sl__mem, "mem://b/ck/a%2Fjob/chk-5/state-source-0", "pos", -1, -1);
    /* The newest deleted: "missing", from _latest. */
    char *chk5 = sl_chk_path(st, 5);
    sl_kvlist *keep = sl_kvlist_dup(sl__mem);
    mem_remove_tree(NULL, chk5, &err);
    CHECK(sl_chk_latest(st, &id, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    CHECK(strstr(err.message, "missing") != NULL);
    sl_error_reset(&err);
    sl_kvlist_free(sl__mem);
    sl__mem = keep;
    sl_free(chk5);
    /* A savepoint by its path. */
    sl_chk_store *sp = NULL;
    CHECK(sl_chk_open_path("mem://b/ck/a%2Fjob/chk-2", NULL, &sp, &id, &err) == 0);
    CHECK_INT(id, 2);
    sl_chk_close(sp);
    CHECK(sl_chk_open_path("mem://b/ck/a%2Fjob/chk-3", NULL, &sp, &id, &err) == -1);
    CHECK_STR(err.sqlstate, "58P01");
    sl_error_reset(&err);
    /* The location's claim: one owner (its first line), once. */
    char *holder = NULL;
    CHECK_INT(sl_chk_claim(st, "dir A\npath: /a\n", &holder, &err), 0);
    CHECK_INT(sl_chk_claim(st, "dir A\npath: /moved\n", &holder, &err), 0); /* the same */
    CHECK_INT(sl_chk_claim(st, "dir B\npath: /b\n", &holder, &err), 1);
    CHECK(holder && strncmp(holder, "dir A\n", 6) == 0);
    sl_free(holder);
    CHECK(sl_chk_unclaim(st, &err) == 0);
    CHECK_INT(sl_chk_claim(st, "dir B\n", &holder, &err), 0);
    CHECK(sl_chk_unclaim(st, &err) == 0);
    /* DROP JOB: the savepoint stays unless asked; then nothing is left. */
    int kept = 0, found = 0;
    CHECK(sl_chk_drop(st, false, &kept, &found, &err) == 0);
    CHECK(kept == 1 && found == 3);
    CHECK(sl_kvlist_get(sl__mem, "mem://b/ck/a%2Fjob/chk-2/_metadata") != NULL);
    CHECK(sl_kvlist_get(sl__mem, "mem://b/ck/a%2Fjob/chk-5/_metadata") == NULL);
    CHECK(sl_chk_drop(st, true, &kept, &found, &err) == 0);
    CHECK(kept == 0 && found == 1);
    CHECK_INT(sl__mem->n, 0);
    sl_chk_close(st);
    /* An existing location opened for reading: 58P01 when nothing is there. */
    CHECK(sl_chk_open_dir("mem://b/ck/a%2Fjob", NULL, &st, &err) == -1);
    CHECK_STR(err.sqlstate, "58P01");
    sl_error_reset(&err);
    sl_kvlist_free(sl__mem);
    sl__mem = NULL;
}

static void t_checkpoint_claim_local(void)
{
    char *data = tmpdir("claim");
    sl_error err = SL_ERROR_INIT;
    sl_chk_store *st = NULL;
    REQUIRE(sl_chk_open_at(data, data, NULL, "j", &st, &err) == 0);
    char *holder = NULL;
    CHECK_INT(sl_chk_claim(st, "one\nx", &holder, &err), 0);
    CHECK_INT(sl_chk_claim(st, "one\ny", &holder, &err), 0);
    CHECK_INT(sl_chk_claim(st, "two\n", &holder, &err), 1);
    CHECK(holder && strcmp(holder, "one\nx") == 0);
    sl_free(holder);
    char *owner = sl_path_join(sl_chk_dir(st), "_owner");
    CHECK(sl_fs_exists(owner));
    CHECK(sl_chk_unclaim(st, &err) == 0);
    CHECK(!sl_fs_exists(owner));
    sl_free(owner);
    sl_chk_close(st);
    sl_free(data);
}

SL_TESTS(t_checkpoint_state_damaged, t_checkpoint_claim_local, t_checkpoint_registered_storage, t_checkpoint_newest_missing, t_checkpoint_metadata_every_byte,
         t_checkpoint_version1_and_seal_existing, t_channel_order_and_timeout, t_channel_blocked_lanes, t_channel_backpressure_many_senders, t_channel_close,
         t_checkpoint_seal_and_latest, t_checkpoint_prune, t_chunk_select_view)
