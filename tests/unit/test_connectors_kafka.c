/*
** test_connectors_kafka.c — the kafka connector without a broker: option
** checks, and the source's position round-trip through seek (before the
** first poll nothing connects; the bootstrap address is never reached).
** Reading and writing against a real broker: tests/kafka/.
*/
#include "sl_connector.h"
#include "sl_test.h"

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

    const char *pos = "v1 0:17,2:-2,4:123456789012";
    CHECK_INT(s->ops->seek(s, pos, strlen(pos), &err), 0);
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK_INT(s->ops->position(s, &sb, &err), 0);
    CHECK_STR(sl_strbuf_cstr(&sb), pos);
    sl_strbuf_reset(&sb);

    CHECK_INT(s->ops->seek(s, "v1 ", 3, &err), 0); /* no partitions yet */
    CHECK_INT(s->ops->position(s, &sb, &err), 0);
    CHECK_STR(sl_strbuf_cstr(&sb), "v1 ");
    sl_strbuf_free(&sb);

    const char *bad[] = {"v2 0:1", "v1 0", "v1 0:x", "v1 -1:3", "v1 0:1,", "v1 0:-5"};
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

SL_TESTS(t_validate, t_position_roundtrip, t_sink_create)
