/* kafka_topic BOOTSTRAP TOPIC PARTITIONS — creates TOPIC with PARTITIONS
 * partitions (replication 1) through librdkafka's admin API, for tests that
 * need more than the broker's default of one partition (kcat cannot create
 * topics). Exits 0 when created (or it already exists with that many
 * partitions is not checked: topics in tests have fresh names), 1 otherwise. */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: kafka_topic BOOTSTRAP TOPIC PARTITIONS\n");
    return 2;
  }
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(argv[2], atoi(argv[3]), 1, err, sizeof err);
  if (!nt) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
  rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_operation_timeout(opt, 30000, err, sizeof err);
  rd_kafka_CreateTopics(rk, &nt, 1, opt, q);
  rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60000);
  int rc = 1;
  if (!ev) {
    fprintf(stderr, "create topic %s: timed out\n", argv[2]);
  } else if (rd_kafka_event_error(ev)) {
    fprintf(stderr, "create topic %s: %s\n", argv[2], rd_kafka_event_error_string(ev));
  } else {
    size_t n = 0;
    const rd_kafka_topic_result_t **res =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    if (n == 1 && rd_kafka_topic_result_error(res[0]) == RD_KAFKA_RESP_ERR_NO_ERROR)
      rc = 0;
    else
      fprintf(stderr, "create topic %s: %s\n", argv[2],
              n == 1 ? rd_kafka_topic_result_error_string(res[0]) : "no result");
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_AdminOptions_destroy(opt);
  rd_kafka_NewTopic_destroy(nt);
  rd_kafka_queue_destroy(q);
  rd_kafka_destroy(rk);
  return rc;
}
