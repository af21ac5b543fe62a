/* kafka_topic — the admin operations the Kafka tests need and kcat lacks,
 * through librdkafka:
 *
 *   kafka_topic BOOTSTRAP TOPIC PARTITIONS [NAME=VALUE]
 *       create TOPIC with PARTITIONS partitions (replication 1), and the
 *       topic config NAME=VALUE when given (retention.ms=...); exit 0 when
 *       created (topics in tests have fresh names)
 *   kafka_topic BOOTSTRAP --add-partitions TOPIC TOTAL
 *       grow TOPIC to TOTAL partitions
 *   kafka_topic BOOTSTRAP --committed GROUP TOPIC PARTITIONS
 *       print "<partition> <offset>" for each partition: the group's
 *       committed offset (-1001 when it has none)
 *   kafka_topic BOOTSTRAP --produce TOPIC
 *       produce the records of stdin, one a line "PARTITION<TAB>TIMESTAMP_MS<TAB>VALUE"
 *       (kcat cannot set a record's timestamp), flushed before it exits
 *   kafka_topic BOOTSTRAP --open-txn TOPIC PARTITION TIMESTAMP_MS TXN_ID
 *       a transaction left open: as transactional.id TXN_ID, begin a
 *       transaction, produce one record "open" with the timestamp to the
 *       partition, flush, print "open"; then a line of stdin "abort" or
 *       "commit" ends it so (printing "aborted" / "committed"), and the end
 *       of stdin leaves it open (exits at once, as a process killed would)
 *
 * Exit 1 on a failure (with the reason on stderr), 2 on bad arguments. */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static rd_kafka_t *client(const char *bootstrap, rd_kafka_type_t type, const char *group) {
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) != RD_KAFKA_CONF_OK ||
      (group && rd_kafka_conf_set(conf, "group.id", group, err, sizeof err) != RD_KAFKA_CONF_OK)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  return rk;
}

/* Wait for an admin result; 0 when the one topic in it succeeded. */
static int admin_result(rd_kafka_queue_t *q, const char *what, const char *topic) {
  rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60000);
  int rc = 1;
  if (!ev) {
    fprintf(stderr, "%s %s: timed out\n", what, topic);
    return 1;
  }
  if (rd_kafka_event_error(ev)) {
    fprintf(stderr, "%s %s: %s\n", what, topic, rd_kafka_event_error_string(ev));
  } else {
    size_t n = 0;
    const rd_kafka_topic_result_t **res =
        rd_kafka_event_type(ev) == RD_KAFKA_EVENT_CREATETOPICS_RESULT
            ? rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n)
            : rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(ev),
                                                      &n);
    if (n == 1 && rd_kafka_topic_result_error(res[0]) == RD_KAFKA_RESP_ERR_NO_ERROR)
      rc = 0;
    else
      fprintf(stderr, "%s %s: %s\n", what, topic,
              n == 1 ? rd_kafka_topic_result_error_string(res[0]) : "no result");
  }
  rd_kafka_event_destroy(ev);
  return rc;
}

static int create(const char *bootstrap, const char *topic, int partitions, const char *config) {
  char err[512];
  rd_kafka_t *rk = client(bootstrap, RD_KAFKA_PRODUCER, NULL);
  rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(topic, partitions, 1, err, sizeof err);
  if (!nt) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  if (config) {
    char name[256];
    const char *eq = strchr(config, '=');
    if (!eq || (size_t)(eq - config) >= sizeof name) {
      fprintf(stderr, "bad config %s\n", config);
      return 2;
    }
    memcpy(name, config, (size_t)(eq - config));
    name[eq - config] = 0;
    rd_kafka_NewTopic_set_config(nt, name, eq + 1);
  }
  rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
  rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_operation_timeout(opt, 30000, err, sizeof err);
  rd_kafka_CreateTopics(rk, &nt, 1, opt, q);
  int rc = admin_result(q, "create topic", topic);
  rd_kafka_AdminOptions_destroy(opt);
  rd_kafka_NewTopic_destroy(nt);
  rd_kafka_queue_destroy(q);
  rd_kafka_destroy(rk);
  return rc;
}

static int add_partitions(const char *bootstrap, const char *topic, int total) {
  char err[512];
  rd_kafka_t *rk = client(bootstrap, RD_KAFKA_PRODUCER, NULL);
  rd_kafka_NewPartitions_t *np = rd_kafka_NewPartitions_new(topic, (size_t)total, err, sizeof err);
  if (!np) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
  rd_kafka_AdminOptions_t *opt =
      rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATEPARTITIONS);
  rd_kafka_AdminOptions_set_operation_timeout(opt, 30000, err, sizeof err);
  rd_kafka_CreatePartitions(rk, &np, 1, opt, q);
  int rc = admin_result(q, "add partitions to", topic);
  rd_kafka_AdminOptions_destroy(opt);
  rd_kafka_NewPartitions_destroy(np);
  rd_kafka_queue_destroy(q);
  rd_kafka_destroy(rk);
  return rc;
}

static int committed(const char *bootstrap, const char *group, const char *topic, int parts) {
  rd_kafka_t *rk = client(bootstrap, RD_KAFKA_CONSUMER, group);
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(parts);
  for (int i = 0; i < parts; i++) rd_kafka_topic_partition_list_add(l, topic, i);
  rd_kafka_resp_err_t e = rd_kafka_committed(rk, l, 30000);
  int rc = 0;
  if (e) {
    fprintf(stderr, "committed offsets of %s: %s\n", group, rd_kafka_err2str(e));
    rc = 1;
  }
  for (int i = 0; !rc && i < l->cnt; i++)
    printf("%d %lld\n", (int)l->elems[i].partition, (long long)l->elems[i].offset);
  rd_kafka_topic_partition_list_destroy(l);
  rd_kafka_destroy(rk);
  return rc;
}

static int produce(const char *bootstrap, const char *topic) {
  rd_kafka_t *rk = client(bootstrap, RD_KAFKA_PRODUCER, NULL);
  char line[65536];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, stdin)) {
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n') line[--n] = 0;
    char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2) {
      fprintf(stderr, "bad input line: %s\n", line);
      rc = 2;
      break;
    }
    *t1 = *t2 = 0;
    rd_kafka_resp_err_t e;
    while ((e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(atoi(line)),
                                  RD_KAFKA_V_TIMESTAMP(strtoll(t1 + 1, NULL, 10)),
                                  RD_KAFKA_V_VALUE(t2 + 1, strlen(t2 + 1)),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END)) ==
           RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(rk, 100);
    if (e) {
      fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
      rc = 1;
    }
  }
  if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    fprintf(stderr, "produce: flush timed out\n");
    rc = 1;
  }
  rd_kafka_destroy(rk);
  return rc;
}

static int txn_call(rd_kafka_error_t *e, const char *what) {
  if (!e) return 0;
  fprintf(stderr, "%s: %s\n", what, rd_kafka_error_string(e));
  rd_kafka_error_destroy(e);
  return 1;
}

static int open_txn(const char *bootstrap, const char *topic, int partition, long long ts,
                    const char *id) {
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) != RD_KAFKA_CONF_OK ||
      rd_kafka_conf_set(conf, "transactional.id", id, err, sizeof err) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (txn_call(rd_kafka_init_transactions(rk, 30000), "init_transactions") ||
      txn_call(rd_kafka_begin_transaction(rk), "begin_transaction"))
    return 1;
  rd_kafka_resp_err_t e = rd_kafka_producev(
      rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition), RD_KAFKA_V_TIMESTAMP(ts),
      RD_KAFKA_V_VALUE("open", 4), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  if (e || rd_kafka_flush(rk, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e ? e : RD_KAFKA_RESP_ERR__TIMED_OUT));
    return 1;
  }
  printf("open\n");
  fflush(stdout);
  char line[64];
  if (!fgets(line, sizeof line, stdin)) _exit(0); /* left open, as by a kill */
  int rc;
  if (strncmp(line, "commit", 6) == 0) {
    rc = txn_call(rd_kafka_commit_transaction(rk, 30000), "commit_transaction");
    if (!rc) printf("committed\n");
  } else {
    rc = txn_call(rd_kafka_abort_transaction(rk, 30000), "abort_transaction");
    if (!rc) printf("aborted\n");
  }
  fflush(stdout);
  rd_kafka_destroy(rk);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 7 && strcmp(argv[2], "--open-txn") == 0)
    return open_txn(argv[1], argv[3], atoi(argv[4]), strtoll(argv[5], NULL, 10), argv[6]);
  if (argc == 4 && strcmp(argv[2], "--produce") == 0) return produce(argv[1], argv[3]);
  if (argc == 4 && argv[2][0] != '-') return create(argv[1], argv[2], atoi(argv[3]), NULL);
  if (argc == 5 && argv[2][0] != '-') return create(argv[1], argv[2], atoi(argv[3]), argv[4]);
  if (argc == 5 && strcmp(argv[2], "--add-partitions") == 0)
    return add_partitions(argv[1], argv[3], atoi(argv[4]));
  if (argc == 6 && strcmp(argv[2], "--committed") == 0)
    return committed(argv[1], argv[3], argv[4], atoi(argv[5]));
  fprintf(stderr,
          "usage: kafka_topic BOOTSTRAP TOPIC PARTITIONS\n"
          "       kafka_topic BOOTSTRAP --add-partitions TOPIC TOTAL\n"
          "       kafka_topic BOOTSTRAP --committed GROUP TOPIC PARTITIONS\n"
          "       kafka_topic BOOTSTRAP --produce TOPIC < lines\n"
          "       kafka_topic BOOTSTRAP --open-txn TOPIC PARTITION TIMESTAMP_MS TXN_ID\n");
  return 2;
}
