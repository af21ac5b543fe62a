/*
** test_connectors_registry.c — the registry: every connector and format is
** found, the listings are sorted, capabilities are as declared, option
** lookup (own, format, common, '#' patterns), the name functions, and
** docs/CONNECTORS.md equals the text generated from the declarations.
**
** Run with --write [path] (from tests/) to regenerate the doc instead:
**     cd tests && <build-dir>/tests/test_connectors_registry --write
*/
#include "sl_connector.h"
#include "sl_test.h"

#define DOC_PATH "../docs/CONNECTORS.md" /* tests run in tests/ */

static void t_find_connectors(void)
{
    const char *names[] = {"blackhole", "datagen",    "elasticsearch-7", "filesystem",
                           "http-sink", "jdbc",       "kafka",           "nexmark",
                           "opensearch", "print",     "stdin",           "upsert-kafka"};
    int n = 0;
    const sl_connector *const *all = sl_connectors(&n);
    CHECK_INT(n, (int)SL_ARRAY_LEN(names));
    for (int i = 0; i < n && i < (int)SL_ARRAY_LEN(names); i++) {
        CHECK_STR(all[i]->name, names[i]);
        CHECK(sl_connector_find(names[i]) == all[i]);
        CHECK(all[i]->description && all[i]->description[0]);
        for (int j = 0; j < all[i]->noptions; j++) {
            CHECK(all[i]->options[j].description != NULL);
            CHECK(all[i]->options[j].type != SL_OPT_ENUM || all[i]->options[j].enum_values);
        }
    }
    for (int i = 1; i < n; i++)
        CHECK(strcmp(all[i - 1]->name, all[i]->name) < 0);
    CHECK(sl_connector_find("kafkaa") == NULL);
    CHECK(sl_connector_find("Datagen") == NULL);
    CHECK(sl_connector_find("") == NULL);
    CHECK(sl_connector_find(NULL) == NULL);
    CHECK(sl_connectors(NULL) == all);
}

static void t_find_formats(void)
{
    const char *names[] = {"csv", "json", "raw"};
    int n = 0;
    const sl_format *const *all = sl_formats(&n);
    CHECK_INT(n, 3);
    for (int i = 0; i < n && i < 3; i++) {
        CHECK_STR(all[i]->name, names[i]);
        CHECK(sl_format_find(names[i]) == all[i]);
        /* every format option is prefixed "<name>." */
        for (int j = 0; j < all[i]->noptions; j++) {
            size_t len = strlen(all[i]->name);
            CHECK(strncmp(all[i]->options[j].key, all[i]->name, len) == 0);
            CHECK(all[i]->options[j].key[len] == '.');
        }
    }
    for (int i = 1; i < n; i++)
        CHECK(strcmp(all[i - 1]->name, all[i]->name) < 0);
    CHECK(sl_format_find("avro") == NULL);
    CHECK(sl_format_find(NULL) == NULL);
}

static void t_caps(void)
{
    const sl_connector *c = sl_connector_find("datagen");
    REQUIRE(c);
    CHECK(c->caps.source && c->caps.source_replayable && !c->caps.sink);
    CHECK(!c->has_format);
    CHECK(c->check != NULL);

    c = sl_connector_find("filesystem");
    REQUIRE(c);
    CHECK(c->caps.source && c->caps.source_replayable && c->caps.sink);
    CHECK_INT(c->caps.sink_max, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK_INT(c->caps.sink_mech, SL_MECH_ATOMIC_RENAME);
    CHECK_INT(c->caps.sink_default, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK(!c->caps.sink_updates);
    CHECK(c->has_format);

    c = sl_connector_find("print");
    REQUIRE(c);
    CHECK(!c->caps.source && c->caps.sink && c->caps.sink_updates);
    CHECK_INT(c->caps.sink_max, SL_GUARANTEE_NONE);
    CHECK_INT(c->caps.sink_mech, SL_MECH_NONE);
    CHECK_INT(c->caps.sink_default, SL_GUARANTEE_NONE);
    CHECK(!c->has_format);

    c = sl_connector_find("blackhole");
    REQUIRE(c);
    CHECK(!c->caps.source && c->caps.sink && c->caps.sink_updates);
    CHECK_INT(c->caps.sink_max, SL_GUARANTEE_NONE);
    CHECK_INT(c->caps.sink_default, SL_GUARANTEE_NONE);
    CHECK_INT(c->noptions, 0);
    CHECK(!c->has_format);

    c = sl_connector_find("kafka");
    REQUIRE(c);
    CHECK(c->caps.source && c->caps.source_replayable && c->caps.sink);
    CHECK_INT(c->caps.sink_max, SL_GUARANTEE_EXACTLY_ONCE);
    CHECK_INT(c->caps.sink_mech, SL_MECH_LAST_RESOURCE);
    CHECK_INT(c->caps.sink_default, SL_GUARANTEE_AT_LEAST_ONCE);
    CHECK(!c->caps.sink_updates);
    CHECK_STR(c->caps.txn_prefix_option, "sink.transactional-id-prefix");
    CHECK_STR(c->caps.txn_timeout_option, "properties.transaction.timeout.ms");
    CHECK_STR(c->caps.cluster_option, "properties.bootstrap.servers");
    CHECK(c->caps.probe != NULL);
    CHECK(c->has_format && c->create_source && c->create_sink && c->create_participant);

    c = sl_connector_find("stdin");
    REQUIRE(c);
    CHECK(c->caps.source && !c->caps.source_replayable && !c->caps.sink);
    CHECK(c->has_format && c->create_source && !c->create_sink);

    /* opensearch and elasticsearch-7: one implementation, one option table */
    c = sl_connector_find("opensearch");
    const sl_connector *es = sl_connector_find("elasticsearch-7");
    REQUIRE(c && es);
    CHECK(!c->caps.source && c->caps.sink && c->caps.sink_updates && c->caps.sink_upserts);
    CHECK_INT(c->caps.sink_max, SL_GUARANTEE_AT_LEAST_ONCE);
    CHECK_INT(c->caps.sink_mech, SL_MECH_NONE);
    CHECK_INT(c->caps.sink_default, SL_GUARANTEE_AT_LEAST_ONCE);
    CHECK(c->caps.sink_max_why && c->caps.sink_keyless_note);
    CHECK(c->has_format && !c->create_source && c->create_sink);
    CHECK(es->options == c->options && es->noptions == c->noptions);
    CHECK(es->create_sink == c->create_sink && es->check == c->check);
    CHECK_INT(es->caps.sink_max, c->caps.sink_max);
    CHECK(es->caps.sink_upserts && es->caps.sink_keyless_note);
    const sl_option_spec *pw = sl_connector_option(c, NULL, "password");
    CHECK(pw && pw->secret);

    /* a sink's default never exceeds what it can give */
    int n = 0;
    const sl_connector *const *all = sl_connectors(&n);
    for (int i = 0; i < n; i++)
        CHECK(all[i]->caps.sink_default <= all[i]->caps.sink_max);
}

/* Declared defaults are valid values of their type. */
static void t_defaults_valid(void)
{
    int n = 0, nf = 0;
    const sl_connector *const *cs = sl_connectors(&n);
    const sl_format *const *fs = sl_formats(&nf);
    sl_error err = SL_ERROR_INIT;
    for (int i = 0; i < n + nf; i++) {
        const sl_option_spec *specs = i < n ? cs[i]->options : fs[i - n]->options;
        int ns = i < n ? cs[i]->noptions : fs[i - n]->noptions;
        for (int j = 0; j < ns; j++) {
            if (!specs[j].default_value)
                continue;
            int rc = sl_option_check_value(&specs[j], specs[j].key, specs[j].default_value, 0,
                                           &err);
            if (rc)
                fprintf(stderr, "bad default of %s: %s\n", specs[j].key, err.message);
            CHECK_INT(rc, 0);
            sl_error_reset(&err);
        }
    }
    /* the Flink defaults the runtime will rely on */
    int64_t v = 0;
    const sl_connector *fsys = sl_connector_find("filesystem");
    const sl_option_spec *s = sl_connector_option(fsys, NULL, "sink.rolling-policy.file-size");
    REQUIRE(s);
    CHECK_INT(sl_option_parse_memsize(s->default_value, &v, 0, &err), 0);
    CHECK_INT(v, 128 << 20);
    s = sl_connector_option(fsys, NULL, "sink.rolling-policy.rollover-interval");
    REQUIRE(s);
    CHECK_INT(sl_option_parse_duration_ms(s->default_value, &v, 0, &err), 0);
    CHECK_INT(v, 30 * 60 * 1000);
    s = sl_connector_option(fsys, NULL, "sink.rolling-policy.check-interval");
    REQUIRE(s);
    CHECK_INT(sl_option_parse_duration_ms(s->default_value, &v, 0, &err), 0);
    CHECK_INT(v, 60 * 1000);
    s = sl_connector_option(sl_connector_find("datagen"), NULL, "rows-per-second");
    REQUIRE(s);
    CHECK_STR(s->default_value, "10000");
}

static void t_option_lookup(void)
{
    const sl_connector *fsys = sl_connector_find("filesystem");
    const sl_connector *dg = sl_connector_find("datagen");
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "filesystem", 0, 0);
    sl_kvlist_add(l, "format", "csv", 0, 0);

    const sl_option_spec *s = sl_connector_option(fsys, l, "path");
    REQUIRE(s);
    CHECK(s->required && s->type == SL_OPT_STRING);
    s = sl_connector_option(fsys, l, "csv.field-delimiter");
    REQUIRE(s);
    CHECK_STR(s->default_value, ",");
    CHECK(sl_connector_option(fsys, l, "json.ignore-parse-errors") == NULL); /* not its format */
    s = sl_connector_option(fsys, l, "format");
    REQUIRE(s);
    CHECK(s->required);
    s = sl_connector_option(fsys, l, "sink.delivery-guarantee");
    REQUIRE(s);
    CHECK_INT(s->type, SL_OPT_ENUM);
    CHECK_STR(s->enum_values, "none|at-least-once|exactly-once");
    CHECK(sl_connector_option(fsys, l, "connector") != NULL);
    CHECK(sl_connector_option(fsys, l, "nope") == NULL);
    CHECK(sl_connector_option(NULL, l, "path") == NULL);

    CHECK(sl_connector_option(dg, NULL, "format") == NULL);
    s = sl_connector_option(dg, NULL, "fields.user_id.kind");
    REQUIRE(s);
    CHECK_STR(s->key, "fields.#.kind");
    CHECK_STR(s->default_value, "random");
    s = sl_connector_option(dg, NULL, "fields.a.b.max-past"); /* a dotted column name */
    REQUIRE(s);
    CHECK_STR(s->key, "fields.#.max-past");
    CHECK_INT(s->type, SL_OPT_DURATION);
    CHECK(sl_connector_option(dg, NULL, "fields..kind") == NULL);
    CHECK(sl_connector_option(dg, NULL, "fields.kind") == NULL);
    sl_kvlist_free(l);

    CHECK(!sl_option_is_secret("path"));
    CHECK(!sl_option_is_secret("fields.x.kind"));
    CHECK(!sl_option_is_secret("nope"));
    CHECK(!sl_option_is_secret(NULL));
}

/* Flink's sensitive-key rule (GlobalConfiguration.isSensitive): a key that
** contains one of its parts, in any case, is secret; nothing else is. */
static void t_sensitive_keys(void)
{
    static const char *const yes[] = {
        "properties.sasl.password",
        "properties.ssl.key.password",
        "properties.ssl.keystore.PASSWORD",
        "properties.sasl.jaas.config",
        "properties.sasl.oauthbearer.client.secret",
        "properties.sasl.oauthbearer.token.endpoint.url",
        "fs.azure.account.key.acct.dfs.core.windows.net",
        "my.ApiKey",
        "my.api-key",
        "x.auth-params",
        "x.service-key",
        "x.basic-auth",
        "x.http-headers",
        "password",
        "Secret",
        "http.sink.header.Authorization", /* Sluice's addition: HTTP credentials */
        "http.sink.header.Proxy-Authorization",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(yes); i++) {
        if (!sl_option_is_secret(yes[i]))
            fprintf(stderr, "not secret: %s\n", yes[i]);
        CHECK(sl_option_is_secret(yes[i]));
        CHECK(sl_option_secret_fn(yes[i], NULL));
    }
    static const char *const no[] = {
        "properties.bootstrap.servers", "properties.sasl.mechanism", "properties.sasl.username",
        "properties.security.protocol", "sink.transactional-id-prefix", "topic", "format",
        "fs.azure.account.name", "passwd", "api.key", "http.sink.header.Content-Type", "",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(no); i++) {
        if (sl_option_is_secret(no[i]))
            fprintf(stderr, "secret: %s\n", no[i]);
        CHECK(!sl_option_is_secret(no[i]));
        CHECK(!sl_option_secret_fn(no[i], NULL));
    }
}

static void t_names(void)
{
    CHECK_STR(sl_guarantee_name(SL_GUARANTEE_NONE), "none");
    CHECK_STR(sl_guarantee_name(SL_GUARANTEE_AT_LEAST_ONCE), "at-least-once");
    CHECK_STR(sl_guarantee_name(SL_GUARANTEE_EXACTLY_ONCE), "exactly-once");
    CHECK_STR(sl_mechanism_name(SL_MECH_NONE), "none");
    CHECK_STR(sl_mechanism_name(SL_MECH_2PC_PREPARABLE), "2pc-preparable");
    CHECK_STR(sl_mechanism_name(SL_MECH_LAST_RESOURCE), "last-resource");
    CHECK_STR(sl_mechanism_name(SL_MECH_ATOMIC_RENAME), "atomic-rename");
    CHECK_STR(sl_mechanism_name(SL_MECH_IDEMPOTENT_UPSERT), "idempotent-upsert");
    CHECK_STR(sl_option_type_name(SL_OPT_STRING), "string");
    CHECK_STR(sl_option_type_name(SL_OPT_INT), "int");
    CHECK_STR(sl_option_type_name(SL_OPT_BOOL), "bool");
    CHECK_STR(sl_option_type_name(SL_OPT_DOUBLE), "double");
    CHECK_STR(sl_option_type_name(SL_OPT_DURATION), "duration");
    CHECK_STR(sl_option_type_name(SL_OPT_MEMSIZE), "memsize");
    CHECK_STR(sl_option_type_name(SL_OPT_ENUM), "enum");
}

/* The generated text mentions every connector, format and option. */
static void t_markdown_content(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_connectors_markdown(&sb);
    const char *md = sl_strbuf_cstr(&sb);
    CHECK(strncmp(md, "# Connectors and formats\n", 25) == 0);
    CHECK(strstr(md, "test_connectors_registry --write") != NULL);
    int n = 0, nf = 0;
    const sl_connector *const *cs = sl_connectors(&n);
    const sl_format *const *fs = sl_formats(&nf);
    char buf[256];
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "\n### %s\n", cs[i]->name);
        CHECK(strstr(md, buf) != NULL);
        for (int j = 0; j < cs[i]->noptions; j++) {
            snprintf(buf, sizeof buf, "| `%s` |", cs[i]->options[j].key);
            CHECK(strstr(md, buf) != NULL);
        }
    }
    for (int i = 0; i < nf; i++) {
        snprintf(buf, sizeof buf, "\n### %s\n", fs[i]->name);
        CHECK(strstr(md, buf) != NULL);
        for (int j = 0; j < fs[i]->noptions; j++) {
            snprintf(buf, sizeof buf, "| `%s` |", fs[i]->options[j].key);
            CHECK(strstr(md, buf) != NULL);
        }
    }
    CHECK(strstr(md, "| `sink.delivery-guarantee` | enum: `none`, `at-least-once`, "
                     "`exactly-once` | no | - |") != NULL);
    CHECK(strstr(md, "| `filesystem` | yes | yes | unless 'source.monitor-interval' is set | yes "
                     "| exactly-once | atomic-rename | exactly-once | no | required |") != NULL);
    CHECK(strstr(md, "| `datagen` | yes | yes | when 'number-of-rows' is set | no |") != NULL);
    CHECK(strstr(md, "| `kafka` | yes | yes | when 'scan.bounded.mode' is set | yes |") != NULL);
    sl_strbuf_free(&sb);
}

/* docs/CONNECTORS.md is exactly the generated text. */
static void t_doc_up_to_date(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_connectors_markdown(&sb);
    char *doc = NULL;
    size_t len = 0;
    sl_error err = SL_ERROR_INIT;
    bool readable = sl_fs_read_file(DOC_PATH, &doc, &len, &err) == 0;
    if (!readable) {
        fprintf(stderr, "cannot read %s: %s\n", DOC_PATH, err.message);
        sl_error_reset(&err);
        sl_strbuf_free(&sb);
        CHECK(readable);
        return;
    }
    const char *gen = sl_strbuf_cstr(&sb);
    if (strcmp(doc, gen) != 0) {
        int line = 1;
        size_t i = 0;
        for (; doc[i] && doc[i] == gen[i]; i++)
            if (doc[i] == '\n')
                line++;
        fprintf(stderr,
                "%s differs from the declarations at line %d; regenerate it with\n"
                "  cd tests && <build-dir>/tests/test_connectors_registry --write\n",
                DOC_PATH, line);
    }
    CHECK(strcmp(doc, gen) == 0);
    sl_free(doc);
    sl_strbuf_free(&sb);
}

/* --write [path]: regenerate the doc and exit. */
static int write_doc(const char *path)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_connectors_markdown(&sb);
    sl_error err = SL_ERROR_INIT;
    int rc = sl_fs_write_atomic(path, sl_strbuf_cstr(&sb), sb.len, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    else
        printf("wrote %s\n", path);
    sl_error_reset(&err);
    sl_strbuf_free(&sb);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--write") == 0)
        return write_doc(argc >= 3 ? argv[2] : DOC_PATH);
    static const sl_t_case cases[] = {
        {"t_find_connectors", t_find_connectors},
        {"t_find_formats", t_find_formats},
        {"t_caps", t_caps},
        {"t_defaults_valid", t_defaults_valid},
        {"t_option_lookup", t_option_lookup},
        {"t_sensitive_keys", t_sensitive_keys},
        {"t_names", t_names},
        {"t_markdown_content", t_markdown_content},
        {"t_doc_up_to_date", t_doc_up_to_date},
    };
    return sl_t_run(cases, (int)SL_ARRAY_LEN(cases));
}
