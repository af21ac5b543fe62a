/* kafka_txn_check BOOTSTRAP PREFIX — checks that Debian's librdkafka and the
 * broker scripts/kafka runs agree on what an exactly-once Kafka sink and a
 * read_committed source need:
 *   - a transactional producer: init, begin, produce, commit; begin, produce,
 *     abort; begin, produce, send_offsets_to_transaction, commit;
 *   - the group's committed offset (OffsetFetch) is the one sent in the
 *     transaction (AddOffsetsToTxn, TxnOffsetCommit);
 *   - a consumer in a group (JoinGroup/SyncGroup/Fetch) with
 *     isolation.level=read_committed sees exactly the committed records, and
 *     one with read_uncommitted sees the aborted ones too (they were written).
 * Topic, group and transactional id are PREFIX-<time>-<pid>, new at each run.
 * Exits 0 when every check holds; prints what failed otherwise. */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_COMMIT 100 /* records in each committed transaction */
#define N_ABORT 50   /* records in the aborted transaction */
#define TIMEOUT_MS 30000

static int failures;

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "FAIL: %s: %s\n", what, detail ? detail : "");
  failures++;
}

/* Runs a transactional call; prints and counts its error. */
static int txn_ok(const char *what, rd_kafka_error_t *err) {
  if (!err) return 1;
  fail(what, rd_kafka_error_string(err));
  rd_kafka_error_destroy(err);
  return 0;
}

static void set(rd_kafka_conf_t *conf, const char *k, const char *v) {
  char err[512];
  if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "config %s=%s: %s\n", k, v, err);
    exit(2);
  }
}

static int produce(rd_kafka_t *p, const char *topic, const char *prefix, int n) {
  char buf[64];
  for (int i = 0; i < n; i++) {
    int len = snprintf(buf, sizeof buf, "%s-%d", prefix, i);
    rd_kafka_resp_err_t e;
    while ((e = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_VALUE(buf, (size_t)len),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END)) ==
           RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(p, 100);
    if (e) {
      fail("produce", rd_kafka_err2str(e));
      return 0;
    }
  }
  return 1;
}

/* Eager rebalances: each assigned partition is read from its beginning (the
 * group has a committed offset, which this check reads past on purpose). */
static int assigned;
static void rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                      rd_kafka_topic_partition_list_t *parts, void *opaque) {
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    for (int i = 0; i < parts->cnt; i++) parts->elems[i].offset = RD_KAFKA_OFFSET_BEGINNING;
    assigned += parts->cnt;
    rd_kafka_assign(rk, parts);
  } else {
    rd_kafka_assign(rk, NULL);
  }
}

static rd_kafka_t *consumer(const char *bootstrap, const char *group, const char *isolation) {
  char err[512];
  rd_kafka_conf_t *cc = rd_kafka_conf_new();
  set(cc, "bootstrap.servers", bootstrap);
  set(cc, "group.id", group);
  set(cc, "isolation.level", isolation);
  set(cc, "auto.offset.reset", "earliest");
  set(cc, "enable.auto.commit", "false");
  set(cc, "enable.partition.eof", "true");
  rd_kafka_conf_set_rebalance_cb(cc, rebalance);
  rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, cc, err, sizeof err);
  if (!c) {
    fprintf(stderr, "consumer: %s\n", err);
    exit(2);
  }
  rd_kafka_poll_set_consumer(c);
  return c;
}

/* The offset the transaction committed for the group (OffsetFetch). */
static int committed_offset(const char *bootstrap, const char *group, const char *topic,
                            int64_t expected) {
  rd_kafka_t *c = consumer(bootstrap, group, "read_committed");
  rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic, 0);
  rd_kafka_resp_err_t e = rd_kafka_committed(c, parts, TIMEOUT_MS);
  int ok = 0;
  char buf[128];
  if (e) {
    fail("committed", rd_kafka_err2str(e));
  } else if (parts->elems[0].offset != expected) {
    snprintf(buf, sizeof buf, "offset %lld, expected %lld", (long long)parts->elems[0].offset,
             (long long)expected);
    fail("committed offset", buf);
  } else {
    ok = 1;
    printf("group %s: committed offset %lld\n", group, (long long)expected);
  }
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  return ok;
}

struct counts {
  int committed, aborted, other;
};

/* Reads the topic to its end through the group protocol (JoinGroup,
 * SyncGroup, Fetch) at the given isolation level, counting records by the
 * transaction that wrote them. */
static struct counts consume(const char *bootstrap, const char *topic, const char *group,
                             const char *isolation) {
  struct counts n = {0, 0, 0};
  rd_kafka_t *c = consumer(bootstrap, group, isolation);
  rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t e = rd_kafka_subscribe(c, sub);
  if (e) fail("subscribe", rd_kafka_err2str(e));
  rd_kafka_topic_partition_list_destroy(sub);
  assigned = 0;
  int eof = 0;
  time_t deadline = time(NULL) + TIMEOUT_MS / 1000;
  while (!e && !eof && time(NULL) < deadline) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 500);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (n.committed + n.aborted + n.other > 0) eof = 1;
    } else if (m->err) {
      fail("consume", rd_kafka_message_errstr(m));
    } else if (m->len >= 2 && memcmp(m->payload, "c", 1) == 0) {
      n.committed++;
    } else if (m->len >= 2 && memcmp(m->payload, "a", 1) == 0) {
      n.aborted++;
    } else {
      n.other++;
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  printf("consumer (%s, group %s): %d committed, %d aborted, %d other\n", isolation, group,
         n.committed, n.aborted, n.other);
  if (!assigned) fail("group", "no partition was assigned");
  if (!eof) fail("consume", "did not reach the end of the partition");
  return n;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: kafka_txn_check BOOTSTRAP PREFIX\n");
    return 2;
  }
  const char *bootstrap = argv[1];
  char topic[200], group[256], txn_id[256], err[512];
  snprintf(topic, sizeof topic, "%.150s-%lld-%d", argv[2], (long long)time(NULL), (int)getpid());
  snprintf(group, sizeof group, "%s-group", topic);
  snprintf(txn_id, sizeof txn_id, "%s-txn", topic);
  printf("librdkafka %s, broker %s, topic %s\n", rd_kafka_version_str(), bootstrap, topic);

  /* ---- the transactional producer ---- */
  rd_kafka_conf_t *pc = rd_kafka_conf_new();
  set(pc, "bootstrap.servers", bootstrap);
  set(pc, "transactional.id", txn_id);
  set(pc, "transaction.timeout.ms", "30000"); /* below the broker's max */
  rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, pc, err, sizeof err);
  if (!p) {
    fprintf(stderr, "producer: %s\n", err);
    return 2;
  }
  int ok = txn_ok("init_transactions", rd_kafka_init_transactions(p, TIMEOUT_MS));
  /* 1: committed */
  ok = ok && txn_ok("begin_transaction 1", rd_kafka_begin_transaction(p));
  ok = ok && produce(p, topic, "c1", N_COMMIT);
  ok = ok && txn_ok("commit_transaction 1", rd_kafka_commit_transaction(p, TIMEOUT_MS));
  /* 2: aborted */
  ok = ok && txn_ok("begin_transaction 2", rd_kafka_begin_transaction(p));
  ok = ok && produce(p, topic, "a2", N_ABORT);
  if (ok) rd_kafka_flush(p, TIMEOUT_MS); /* the records reach the log, then are aborted */
  ok = ok && txn_ok("abort_transaction 2", rd_kafka_abort_transaction(p, TIMEOUT_MS));
  /* 3: committed, with the offsets of a consumer group (consume-transform-produce) */
  ok = ok && txn_ok("begin_transaction 3", rd_kafka_begin_transaction(p));
  ok = ok && produce(p, topic, "c3", N_COMMIT);
  const int64_t sent_offset = 42;
  if (ok) {
    rd_kafka_topic_partition_list_t *offs = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(offs, topic, 0)->offset = sent_offset;
    rd_kafka_consumer_group_metadata_t *gm = rd_kafka_consumer_group_metadata_new(group);
    ok = txn_ok("send_offsets_to_transaction",
                rd_kafka_send_offsets_to_transaction(p, offs, gm, TIMEOUT_MS));
    rd_kafka_consumer_group_metadata_destroy(gm);
    rd_kafka_topic_partition_list_destroy(offs);
  }
  ok = ok && txn_ok("commit_transaction 3", rd_kafka_commit_transaction(p, TIMEOUT_MS));
  rd_kafka_destroy(p);
  if (!ok) return 1;
  printf("producer: committed %d, aborted %d, committed %d with offsets\n", N_COMMIT, N_ABORT,
         N_COMMIT);

  /* ---- consumers ---- */
  if (!committed_offset(bootstrap, group, topic, sent_offset)) return 1;
  struct counts rc = consume(bootstrap, topic, group, "read_committed");
  if (rc.committed != 2 * N_COMMIT || rc.aborted != 0 || rc.other != 0)
    fail("read_committed", "expected exactly the committed records");
  /* The aborted records are in the log: only the isolation level hides them. */
  char group2[300];
  snprintf(group2, sizeof group2, "%s-uncommitted", group);
  struct counts ru = consume(bootstrap, topic, group2, "read_uncommitted");
  if (ru.committed != 2 * N_COMMIT || ru.aborted != N_ABORT || ru.other != 0)
    fail("read_uncommitted", "expected the committed and the aborted records");
  if (failures) return 1;
  printf("ok\n");
  return 0;
}
