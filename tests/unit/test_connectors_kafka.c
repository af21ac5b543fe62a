/*
** test_connectors_kafka.c — the kafka connector without a broker: option
** checks, and the source's position round-trip through seek (before the
** first poll nothing connects; the bootstrap address is never reached).
** Reading and writing against a real broker: tests/kafka/.
*/
#include "sl_connector.h"
#include "kafka/kafka_int.h"
#include "sl_test.h"

#include <stdarg.h>

static sl_kvlist *kopts(const char *extra_key, const char *extra_value)
{
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "kafka", 0, 0);
    sl_kvlist_add(l, "topic", "t", 20, 30);
    sl_kvlist_add(l, "properties.bootstrap.servers", "127.0.0.1:1", 40, 50);
    sl_kvlist_add(l, "format", "json", 60, 70);
    if (extra_key)
        sl_kvlist_add(l, extra_key, extra_value, 80, 90);
    return l;
}

static void t_validate(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = kopts("properties.client.id", "x");
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), 0);
    sl_kvlist_free(l);

    l = kopts("scan.startup.mode", "latest-offset");
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), 0);
    sl_kvlist_free(l);

    l = kopts("scan.startup.mode", "specific-offsets");
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), -1);
    CHECK_STR(err.sqlstate, "22023");
    sl_error_reset(&err);
    sl_kvlist_free(l);

    l = kopts("topic-pattern", "t.*"); /* and 'topic' */
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), -1);
    CHECK(strstr(err.message, "cannot both be set") != NULL);
    sl_error_reset(&err);
    sl_kvlist_free(l);

    l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "kafka", 0, 0);
    sl_kvlist_add(l, "topic-pattern", "(", 20, 30);
    sl_kvlist_add(l, "properties.bootstrap.servers", "127.0.0.1:1", 40, 50);
    sl_kvlist_add(l, "format", "json", 60, 70);
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), -1);
    CHECK(strstr(err.message, "not a regular expression") != NULL);
    CHECK_INT(err.position, 30);
    sl_error_reset(&err);
    sl_kvlist_free(l);

    l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "kafka", 0, 0);
    sl_kvlist_add(l, "topic", "a; b;c", 20, 30);
    sl_kvlist_add(l, "properties.bootstrap.servers", "127.0.0.1:1", 40, 50);
    sl_kvlist_add(l, "format", "json", 60, 70);
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), 0);
    const sl_connector *kc = sl_connector_find("kafka");
    CHECK_INT(kc->check_sink(kc, l, NULL, &err), -1); /* a sink writes one topic */
    CHECK(strstr(err.message, "writes one topic") != NULL);
    sl_error_reset(&err);
    sl_kvlist_free(l);

    l = kopts(NULL, NULL);
    CHECK_INT(kc->check_sink(kc, l, NULL, &err), 0);
    sl_kvlist_free(l);
    l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "kafka", 0, 0);
    sl_kvlist_add(l, "topic", "a b", 20, 30);
    sl_kvlist_add(l, "properties.bootstrap.servers", "127.0.0.1:1", 40, 50);
    sl_kvlist_add(l, "format", "json", 60, 70);
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), -1);
    CHECK(strstr(err.message, "not a Kafka topic name") != NULL);
    sl_error_reset(&err);
    sl_kvlist_free(l);

    l = kopts("properties.transactional.id", "x");
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), -1);
    CHECK(strstr(err.message, "set by the kafka connector") != NULL);
    sl_error_reset(&err);
    sl_kvlist_free(l);

    l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "kafka", 0, 0);
    sl_kvlist_add(l, "topic", "t", 20, 30);
    sl_kvlist_add(l, "format", "csv", 60, 70);
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), -1);
    CHECK(strstr(err.message, "properties.bootstrap.servers") != NULL);
    sl_error_reset(&err);
    sl_kvlist_free(l);
}

static void t_position_roundtrip(void)
{
    const sl_connector *c = sl_connector_find("kafka");
    REQUIRE(c && c->create_source);
    sl_kvlist *l = kopts(NULL, NULL);
    const char *names[] = {"id", "name"};
    sl_type types[] = {sl_type_make(SL_TYPE_BIGINT), sl_type_make(SL_TYPE_VARCHAR)};
    sl_source_args args = {.options = l,
                           .ncols = 2,
                           .names = names,
                           .types = types,
                           .subtask = 0,
                           .parallelism = 1,
                           .table = "src"};
    sl_source *s = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(c->create_source(&args, &s, &err) == 0);

    const char *pos = "v2 t:0:17,t:2:-2,other.topic_x-1:4:123456789012";
    CHECK_INT(s->ops->seek(s, pos, strlen(pos), &err), 0);
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK_INT(s->ops->position(s, &sb, &err), 0);
    CHECK_STR(sl_strbuf_cstr(&sb), pos);
    sl_strbuf_reset(&sb);

    /* A position of an earlier version (one topic: the table's). */
    const char *v1 = "v1 0:17,2:-2";
    CHECK_INT(s->ops->seek(s, v1, strlen(v1), &err), 0);
    CHECK_INT(s->ops->position(s, &sb, &err), 0);
    CHECK_STR(sl_strbuf_cstr(&sb), "v2 t:0:17,t:2:-2");
    sl_strbuf_reset(&sb);

    CHECK_INT(s->ops->seek(s, "v2 ", 3, &err), 0); /* no partitions yet */
    CHECK_INT(s->ops->position(s, &sb, &err), 0);
    CHECK_STR(sl_strbuf_cstr(&sb), "v2 ");
    sl_strbuf_free(&sb);

    const char *bad[] = {"v3 t:0:1", "v2 0:1", "v2 t:0", "v2 t:0:x", "v2 t:-1:3", "v2 t:0:1,",
                         "v2 t:0:-5", "v2 :0:1", "v1 0", "v1 0:x", "v1 -1:3", "v1 0:1,"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        CHECK_INT(s->ops->seek(s, bad[i], strlen(bad[i]), &err), -1);
        CHECK_STR(err.sqlstate, "XX001");
        sl_error_reset(&err);
    }
    CHECK_INT(s->ops->skipped(s), 0);
    s->ops->free(s);
    sl_kvlist_free(l);
}

static void t_sink_create(void)
{
    const sl_connector *c = sl_connector_find("kafka");
    REQUIRE(c && c->create_sink);
    const char *names[] = {"id"};
    sl_type types[] = {sl_type_make(SL_TYPE_BIGINT)};
    sl_error err = SL_ERROR_INIT;
    /* a property librdkafka refuses names the option */
    sl_kvlist *l = kopts("properties.acks", "sometimes");
    sl_sink_args args = {.options = l,
                         .ncols = 1,
                         .names = names,
                         .types = types,
                         .subtask = 0,
                         .parallelism = 1,
                         .table = "dst",
                         .job = "j"};
    sl_sink *s = NULL;
    CHECK_INT(c->create_sink(&args, &s, &err), -1);
    CHECK(s == NULL);
    CHECK_STR(err.sqlstate, "22023");
    CHECK(strstr(err.message, "properties.acks") != NULL);
    sl_error_reset(&err);
    sl_kvlist_free(l);
}

/* Options from key, value, ... NULL over a kafka (or other) table. */
static sl_kvlist *topts(const char *connector, const char *key, ...)
{
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", connector, 0, 1);
    va_list ap;
    va_start(ap, key);
    for (int i = 2; key; i++) {
        const char *v = va_arg(ap, const char *);
        sl_kvlist_add(l, key, v, 10 * i, 10 * i + 5);
        key = va_arg(ap, const char *);
    }
    va_end(ap);
    return l;
}

/* Validate l over a shape of columns id, name, k_id (PRIMARY KEY npk);
** expect ok, or an error containing msg. */
static void expect_valid(sl_kvlist *l, int npk, const char *msg)
{
    const char *names[] = {"id", "name", "k_id"};
    sl_type types[] = {sl_type_make(SL_TYPE_BIGINT), sl_type_make(SL_TYPE_VARCHAR),
                       sl_type_make(SL_TYPE_BIGINT)};
    sl_table_shape shape = {3, names, types, npk, NULL, 0, NULL, -1};
    sl_error err = SL_ERROR_INIT;
    int rc = sl_connector_validate(l, &shape, 3, &err);
    if (msg) {
        CHECK_INT(rc, -1);
        if (rc == 0 || !err.message || !strstr(err.message, msg))
            fprintf(stderr, "  expected \"%s\", got \"%s\"\n", msg,
                    err.message ? err.message : "(none)");
    } else {
        if (rc != 0)
            fprintf(stderr, "  unexpected error: %s\n", err.message);
        CHECK_INT(rc, 0);
    }
    sl_error_reset(&err);
    sl_kvlist_free(l);
}

#define KAFKA "topic", "t", "properties.bootstrap.servers", "127.0.0.1:1"

static void t_key_options(void)
{
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "csv", "key.fields", "id",
                       "key.csv.field-delimiter", ";", "value.json.fail-on-missing-field", "true",
                       NULL),
                 0, NULL);
    expect_valid(topts("kafka", KAFKA, "value.format", "json", NULL), 0, NULL);
    expect_valid(topts("kafka", KAFKA, "format", "json", "value.format", "json", NULL), 0,
                 "cannot both be set");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "json", NULL), 0,
                 "needs 'key.fields'");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.fields", "id", NULL), 0,
                 "needs 'key.format'");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "json", "key.fields",
                       "id;nope", NULL),
                 0, "no column \"nope\"");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "json", "key.fields",
                       "id;id", NULL),
                 0, "listed twice");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "xml", "key.fields", "id",
                       NULL),
                 0, "format \"xml\" does not exist");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "json", "key.fields", "id",
                       "key.json.bogus", "1", NULL),
                 0, "unrecognized option 'key.json.bogus'");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "json", "key.fields",
                       "k_id", "key.fields-prefix", "k_", NULL),
                 0, "needs 'value.fields-include' = 'EXCEPT_KEY'");
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "json", "key.fields",
                       "k_id", "key.fields-prefix", "k_", "value.fields-include", "EXCEPT_KEY",
                       NULL),
                 0, NULL);
    expect_valid(topts("kafka", KAFKA, "format", "json", "key.format", "json", "key.fields", "id",
                       "key.fields-prefix", "k_", "value.fields-include", "EXCEPT_KEY", NULL),
                 0, "does not start with");
    expect_valid(topts("kafka", KAFKA, "format", "json", "value.fields-include", "SOME", NULL), 0,
                 "not an allowed value");
    /* upsert-kafka: the key is the PRIMARY KEY */
    expect_valid(topts("upsert-kafka", KAFKA, "key.format", "json", "value.format", "json", NULL),
                 1, NULL);
    expect_valid(topts("upsert-kafka", KAFKA, "key.format", "json", "value.format", "json", NULL),
                 0, "needs a PRIMARY KEY");
    expect_valid(topts("upsert-kafka", KAFKA, "value.format", "json", NULL), 1,
                 "missing required option 'key.format'");
    expect_valid(topts("upsert-kafka", KAFKA, "key.format", "json", NULL), 1,
                 "missing required option 'format'");
    expect_valid(topts("upsert-kafka", "topic", "a;b", "properties.bootstrap.servers", "x:1",
                       "key.format", "json", "format", "json", NULL),
                 1, "takes one topic");
    expect_valid(topts("upsert-kafka", KAFKA, "key.format", "json", "format", "json",
                       "key.fields", "id", NULL),
                 1, "unrecognized option 'key.fields'");
    expect_valid(topts("upsert-kafka", KAFKA, "key.format", "json", "format", "json",
                       "properties.transactional.id", "x", NULL),
                 1, "set by the upsert-kafka connector itself");
}

/* The options a format's codec sees. */
static void t_format_options(void)
{
    sl_kvlist *l = topts("kafka", KAFKA, "value.format", "json", "key.format", "csv",
                         "value.json.fail-on-missing-field", "true", "key.csv.field-delimiter",
                         ";", "csv.quote-character", "'", NULL);
    sl_kvlist *v = sl_format_options(l, "value"), *k = sl_format_options(l, "key");
    REQUIRE(v && k);
    CHECK_STR(sl_kvlist_get(v, "format"), "json");
    CHECK_STR(sl_kvlist_get(v, "json.fail-on-missing-field"), "true");
    CHECK(sl_kvlist_get(v, "csv.quote-character") == NULL);
    CHECK_STR(sl_kvlist_get(k, "format"), "csv");
    CHECK_STR(sl_kvlist_get(k, "csv.field-delimiter"), ";");
    CHECK(sl_kvlist_get(k, "csv.quote-character") == NULL); /* a key's options say 'key.' */
    CHECK_INT(k->n, 2);
    sl_kvlist_free(v);
    sl_kvlist_free(k);
    sl_kvlist_free(l);
    l = topts("kafka", KAFKA, "format", "json", NULL);
    CHECK(sl_format_options(l, "key") == NULL);
    v = sl_format_options(l, "value");
    CHECK_STR(sl_kvlist_get(v, "format"), "json");
    sl_kvlist_free(v);
    sl_kvlist_free(l);
}

/* Flink's KafkaSourceEnumerator: start index from the topic's Java
** hashCode, then round-robin by partition. */
static void t_owner(void)
{
    /* "t".hashCode() = 116; 116 * 31 = 3596; 3596 % 2 = 0, % 3 = 2. */
    CHECK_INT(sl__kafka_owner("t", 0, 2), 0);
    CHECK_INT(sl__kafka_owner("t", 1, 2), 1);
    CHECK_INT(sl__kafka_owner("t", 0, 3), 2);
    CHECK_INT(sl__kafka_owner("t", 1, 3), 0);
    /* "clicks".hashCode() = -1357714453 (0xAF12EBEB): the product wraps to
    ** 32 bits before the mask; computed with Java's arithmetic by hand. */
    static const int clicks4[6] = {1, 2, 3, 0, 1, 2};
    for (int p = 0; p < 6; p++)
        CHECK_INT(sl__kafka_owner("clicks", p, 4), clicks4[p]);
    for (int p = 0; p < 6; p++) /* every partition has one owner in range */
        CHECK(sl__kafka_owner("some-topic", p, 3) >= 0 && sl__kafka_owner("some-topic", p, 3) < 3);
}

SL_TESTS(t_validate, t_position_roundtrip, t_sink_create, t_owner, t_key_options,
         t_format_options)
