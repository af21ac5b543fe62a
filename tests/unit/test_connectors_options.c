/*
** test_connectors_options.c — WITH-option validation: the value parsers
** (edge cases, overflow), every error kind of sl_connector_validate with its
** SQLSTATE, message and position, "did you mean", the datagen column checks
** against a fake table shape, the csv and raw format checks, and secrets
** never echoed.
*/
#include <stdarg.h>

#include "sl_connector.h"
#include "sl_test.h"

#define MISSING_POS 7 /* where validate points for a missing option */

/* A list from key, value, ..., NULL: pair i has key_pos 100*(i+1) and
** value_pos 100*(i+1)+50. */
static sl_kvlist *opts(const char *key, ...)
{
    sl_kvlist *l = sl_kvlist_new();
    va_list ap;
    va_start(ap, key);
    for (int i = 0; key; i++) {
        const char *value = va_arg(ap, const char *);
        sl_kvlist_add(l, key, value, 100 * (i + 1), 100 * (i + 1) + 50);
        key = va_arg(ap, const char *);
    }
    va_end(ap);
    return l;
}

/* The fake table: id BIGINT, name STRING, ts TIMESTAMP(3), small TINYINT,
** price DOUBLE, flag BOOLEAN, blob BYTES. */
static const char *const cols[] = {"id", "name", "ts", "small", "price", "flag", "blob"};
static sl_type types[7];
static sl_table_shape shape;

static const sl_table_shape *table(void)
{
    types[0] = sl_type_make(SL_TYPE_BIGINT);
    types[1] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    types[2] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    types[3] = sl_type_make(SL_TYPE_TINYINT);
    types[4] = sl_type_make(SL_TYPE_DOUBLE);
    types[5] = sl_type_make(SL_TYPE_BOOLEAN);
    types[6] = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    shape.ncols = 7;
    shape.names = cols;
    shape.types = types;
    shape.npk = 0;
    return &shape;
}

/* Validate l (freed) against the fake table; err receives the error. */
static int run(sl_kvlist *l, sl_error *err)
{
    int rc = sl_connector_validate(l, table(), MISSING_POS, err);
    sl_kvlist_free(l);
    return rc;
}

/* Expect validation of l to fail with sqlstate, message and position;
** hint / detail checked when not NULL ("" = must be absent). */
static void expect_err(sl_kvlist *l, const char *sqlstate, const char *message, int position,
                       const char *detail, const char *hint)
{
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(run(l, &err), -1);
    CHECK_STR(err.sqlstate, sqlstate);
    CHECK_STR(err.message, message);
    CHECK_INT(err.position, position);
    if (detail)
        CHECK_STR(err.detail ? err.detail : "", detail);
    if (hint)
        CHECK_STR(err.hint ? err.hint : "", hint);
    sl_error_reset(&err);
}

static void expect_ok(sl_kvlist *l)
{
    sl_error err = SL_ERROR_INIT;
    int rc = run(l, &err);
    if (rc != 0)
        fprintf(stderr, "unexpected error: %s\n", err.message);
    CHECK_INT(rc, 0);
    CHECK(!sl_error_isset(&err));
    sl_error_reset(&err);
}

/* ------------------------------------------------------------------------
** Parsers.
*/
static void t_parse_int(void)
{
    sl_error err = SL_ERROR_INIT;
    int64_t v = 0;
    CHECK_INT(sl_option_parse_int("42", &v, 3, &err), 0);
    CHECK_INT(v, 42);
    CHECK_INT(sl_option_parse_int("-17", &v, 3, &err), 0);
    CHECK_INT(v, -17);
    CHECK_INT(sl_option_parse_int("+5", &v, 3, &err), 0);
    CHECK_INT(v, 5);
    CHECK_INT(sl_option_parse_int(" 12 ", &v, 3, &err), 0);
    CHECK_INT(v, 12);
    CHECK_INT(sl_option_parse_int("9223372036854775807", &v, 3, &err), 0);
    CHECK(v == INT64_MAX);
    CHECK_INT(sl_option_parse_int("-9223372036854775808", &v, 3, &err), 0);
    CHECK(v == INT64_MIN);
    CHECK(!sl_error_isset(&err));

    CHECK_INT(sl_option_parse_int("9223372036854775808", &v, 3, &err), -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK_STR(err.message, "\"9223372036854775808\" is out of range for a 64-bit integer");
    CHECK_INT(err.position, 3);
    sl_error_reset(&err);
    CHECK_INT(sl_option_parse_int("-9223372036854775809", &v, 3, &err), -1);
    CHECK_STR(err.message, "\"-9223372036854775809\" is out of range for a 64-bit integer");
    sl_error_reset(&err);
    CHECK_INT(sl_option_parse_int("99999999999999999999999", &v, 3, &err), -1);
    sl_error_reset(&err);

    const char *bad[] = {"", " ", "abc", "12abc", "1.5", "1e3", "--1", "+", "0x10", "1 2"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        CHECK_INT(sl_option_parse_int(bad[i], &v, 3, &err), -1);
        CHECK(err.message && strstr(err.message, "is not an integer"));
        sl_error_reset(&err);
    }
}

static void t_parse_bool(void)
{
    sl_error err = SL_ERROR_INIT;
    bool b = false;
    CHECK_INT(sl_option_parse_bool("true", &b, 0, &err), 0);
    CHECK(b);
    CHECK_INT(sl_option_parse_bool("FALSE", &b, 0, &err), 0);
    CHECK(!b);
    CHECK_INT(sl_option_parse_bool("True", &b, 0, &err), 0);
    CHECK(b);
    const char *bad[] = {"", "yes", "1", "t", "truee", "fals"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        CHECK_INT(sl_option_parse_bool(bad[i], &b, 9, &err), -1);
        CHECK_INT(err.position, 9);
        sl_error_reset(&err);
    }
    CHECK_INT(sl_option_parse_bool("maybe", &b, 9, &err), -1);
    CHECK_STR(err.message, "\"maybe\" is not a boolean");
    sl_error_reset(&err);
}

static void t_parse_double(void)
{
    sl_error err = SL_ERROR_INIT;
    double d = 0;
    CHECK_INT(sl_option_parse_double("0.25", &d, 0, &err), 0);
    CHECK(d == 0.25);
    CHECK_INT(sl_option_parse_double("-1e-3", &d, 0, &err), 0);
    CHECK(d == -1e-3);
    CHECK_INT(sl_option_parse_double(".5", &d, 0, &err), 0);
    CHECK(d == 0.5);
    const char *bad[] = {"", "nan", "inf", "-infinity", "0x1p3", "1.5x", "abc", "1e999"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        CHECK_INT(sl_option_parse_double(bad[i], &d, 0, &err), -1);
        sl_error_reset(&err);
    }
}

static void t_parse_duration(void)
{
    static const struct {
        const char *text;
        int64_t ms;
    } ok[] = {
        {"500 ms", 500}, {"500ms", 500}, {"10 s", 10000}, {"10s", 10000}, {"10sec", 10000},
        {"10 seconds", 10000}, {"1 min", 60000}, {"1min", 60000}, {"3 m", 180000},
        {"2 minutes", 120000}, {"2 h", 7200000}, {"2 hours", 7200000}, {"1 d", 86400000},
        {"1 day", 86400000}, {"3 days", 259200000}, {"250", 250}, {"0", 0}, {" 5 S ", 5000},
        {"1 MIN", 60000}, {"7 milliseconds", 7},
        {"9223372036854775807", INT64_MAX}, {"106751991167 d", INT64_C(9223372036828800000)},
    };
    sl_error err = SL_ERROR_INIT;
    for (size_t i = 0; i < SL_ARRAY_LEN(ok); i++) {
        int64_t ms = -1;
        CHECK_INT(sl_option_parse_duration_ms(ok[i].text, &ms, 0, &err), 0);
        CHECK_INT(ms, ok[i].ms);
        if (ms != ok[i].ms)
            fprintf(stderr, "  for \"%s\"\n", ok[i].text);
    }
    CHECK(!sl_error_isset(&err));
    const char *bad[] = {"", "ms", "-1 s", "1.5 s", "10 parsecs", "10 s x", "1 us", "s10"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        int64_t ms;
        CHECK_INT(sl_option_parse_duration_ms(bad[i], &ms, 4, &err), -1);
        CHECK(err.message && strstr(err.message, "is not a duration"));
        CHECK_INT(err.position, 4);
        sl_error_reset(&err);
    }
    int64_t ms;
    CHECK_INT(sl_option_parse_duration_ms("106751991168 d", &ms, 4, &err), -1);
    CHECK_STR(err.message, "\"106751991168 d\" is out of range for a duration");
    sl_error_reset(&err);
    CHECK_INT(sl_option_parse_duration_ms("99999999999999999999 ms", &ms, 4, &err), -1);
    CHECK_STR(err.message, "\"99999999999999999999 ms\" is out of range for a duration");
    sl_error_reset(&err);
}

static void t_parse_memsize(void)
{
    static const struct {
        const char *text;
        int64_t bytes;
    } ok[] = {
        {"128mb", INT64_C(128) << 20}, {"128 mb", INT64_C(128) << 20}, {"1 gb", INT64_C(1) << 30},
        {"512kb", 512 * 1024}, {"64 bytes", 64}, {"64", 64}, {"1b", 1}, {"2k", 2048},
        {"3m", INT64_C(3) << 20}, {"4g", INT64_C(4) << 30}, {"5t", INT64_C(5) << 40},
        {"1 TB", INT64_C(1) << 40}, {"128 MB", INT64_C(128) << 20}, {"1 mebibytes", 1 << 20},
        {"8388607 tb", INT64_C(8388607) << 40},
    };
    sl_error err = SL_ERROR_INIT;
    for (size_t i = 0; i < SL_ARRAY_LEN(ok); i++) {
        int64_t b = -1;
        CHECK_INT(sl_option_parse_memsize(ok[i].text, &b, 0, &err), 0);
        CHECK_INT(b, ok[i].bytes);
    }
    const char *bad[] = {"", "mb", "-1 mb", "1.5 gb", "12 zb", "1 kbb", "1 gb x"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        int64_t b;
        CHECK_INT(sl_option_parse_memsize(bad[i], &b, 0, &err), -1);
        CHECK(err.message && strstr(err.message, "is not a memory size"));
        sl_error_reset(&err);
    }
    int64_t b;
    CHECK_INT(sl_option_parse_memsize("8388608 tb", &b, 0, &err), -1);
    CHECK_STR(err.message, "\"8388608 tb\" is out of range for a memory size");
    sl_error_reset(&err);
}

/* ------------------------------------------------------------------------
** Validation: the general errors.
*/
static void t_valid_tables(void)
{
    expect_ok(opts("connector", "datagen", NULL));
    expect_ok(opts("connector", "blackhole", NULL));
    expect_ok(opts("connector", "print", "print-identifier", "out", "standard-error", "TRUE",
                   "sink.parallelism", "2", NULL));
    expect_ok(opts("connector", "filesystem", "path", "/tmp/x", "format", "json",
                   "json.ignore-parse-errors", "true", "sink.rolling-policy.file-size", "64 mb",
                   "sink.rolling-policy.rollover-interval", "10 min", "source.monitor-interval",
                   "5s", "sink.delivery-guarantee", "exactly-once",
                   "sink.delivery-guarantee.fallback", "downgrade", NULL));
    expect_ok(opts("connector", "filesystem", "path", "/tmp/x", "format", "csv",
                   "csv.field-delimiter", "\\t", "csv.quote-character", "'",
                   "csv.escape-character", "\\", NULL));
    /* enums are case-insensitive */
    expect_ok(opts("connector", "filesystem", "path", "/p", "format", "json",
                   "json.timestamp-format.standard", "iso-8601", NULL));
    /* no options at all is only missing 'connector'; a NULL list too */
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_connector_validate(NULL, NULL, 3, &err), -1);
    CHECK_STR(err.message, "table options must include 'connector'");
    CHECK_INT(err.position, 3);
    sl_error_reset(&err);
    /* shape may be NULL */
    sl_kvlist *l = opts("connector", "datagen", "fields.anything.kind", "sequence", NULL);
    CHECK_INT(sl_connector_validate(l, NULL, 3, &err), 0);
    sl_kvlist_free(l);
}

static void t_missing_connector(void)
{
    expect_err(opts("path", "/tmp", NULL), "22023", "table options must include 'connector'",
               MISSING_POS, "Available connectors: blackhole, datagen, elasticsearch-7, filesystem, http-sink, jdbc, kafka, nexmark, opensearch, print, stdin, upsert-kafka.",
               NULL);
}

/* Flink's pre-1.11 options: 0A000 at the legacy key, the replacement in the hint. */
static void t_legacy_options(void)
{
    const char *na = SL_ERR_NOT_SUPPORTED;
    expect_err(opts("connector.type", "kafka", "connector.topic", "t", NULL), na,
               "legacy option 'connector.type' is not supported", 100, NULL,
               "Use 'connector' = 'kafka' instead.");
    /* connector.type is reported first, wherever it is. */
    expect_err(opts("connector.topic", "t", "connector.type", "kafka", NULL), na,
               "legacy option 'connector.type' is not supported", 200, NULL,
               "Use 'connector' = 'kafka' instead.");
    /* ... even beside 'connector'. */
    expect_err(opts("connector", "datagen", "connector.type", "kafka", NULL), na,
               "legacy option 'connector.type' is not supported", 200, NULL, NULL);
    expect_err(opts("connector.topic", "t", NULL), na,
               "legacy option 'connector.topic' is not supported", 100, NULL,
               "Use 'topic' instead.");
    expect_err(opts("connector.properties.bootstrap.servers", "k:9092", NULL), na,
               "legacy option 'connector.properties.bootstrap.servers' is not supported", 100,
               NULL, "Use 'properties.bootstrap.servers' instead.");
    expect_err(opts("connector.startup-mode", "earliest-offset", NULL), na,
               "legacy option 'connector.startup-mode' is not supported", 100, NULL,
               "Use 'scan.startup.mode' instead.");
    expect_err(opts("connector.table", "t", NULL), na,
               "legacy option 'connector.table' is not supported", 100, NULL,
               "Use 'table-name' instead.");
    expect_err(opts("format.type", "json", NULL), na,
               "legacy option 'format.type' is not supported", 100, NULL,
               "Use 'format' = 'json' instead.");
    expect_err(opts("format.fail-on-missing-field", "true", "format.type", "json", NULL), na,
               "legacy option 'format.fail-on-missing-field' is not supported", 100, NULL,
               "Use 'json.fail-on-missing-field' instead (the format's own option).");
    expect_err(opts("connector.version", "universal", NULL), na,
               "legacy option 'connector.version' is not supported", 100, NULL,
               "Remove it (no option replaces it: each connector reads its systems' current "
               "versions).");
    expect_err(opts("update-mode", "append", NULL), na,
               "legacy option 'update-mode' is not supported", 100,
               "Flink 1.11 replaced the 'connector.type' style of options with 'connector' and "
               "each connector's own options; Sluice reads only those.",
               NULL);
    /* With 'connector', the others are unknown options. */
    expect_err(opts("connector", "blackhole", "update-mode", "append", NULL),
               SL_ERR_INVALID_PARAMETER, "unrecognized option 'update-mode' for connector "
               "'blackhole'", 200, NULL, NULL);
    /* A secret value is never echoed (only connector.type's and format.type's are). */
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(run(opts("connector.password", "hunter2", NULL), &err), -1);
    CHECK_STR(err.hint, "Use 'password' instead.");
    CHECK(!strstr(err.message, "hunter2"));
    sl_error_reset(&err);
}

static void t_unknown_connector(void)
{
    expect_err(opts("connector", "kafkaa", NULL), "42704", "connector \"kafkaa\" does not exist",
               150, "Available connectors: blackhole, datagen, elasticsearch-7, filesystem, http-sink, jdbc, kafka, nexmark, opensearch, print, stdin, upsert-kafka.",
               "Did you mean 'kafka'?");
    expect_err(opts("connector", "pulsar", NULL), "42704", "connector \"pulsar\" does not exist",
               150, "Available connectors: blackhole, datagen, elasticsearch-7, filesystem, http-sink, jdbc, kafka, nexmark, opensearch, print, stdin, upsert-kafka.", "");
    expect_err(opts("path", "/x", "connector", "datagn", NULL), "42704",
               "connector \"datagn\" does not exist", 250,
               "Available connectors: blackhole, datagen, elasticsearch-7, filesystem, http-sink, jdbc, kafka, nexmark, opensearch, print, stdin, upsert-kafka.",
               "Did you mean 'datagen'?");
    /* connector names are case-sensitive */
    expect_err(opts("connector", "DATAGEN", NULL), "42704", "connector \"DATAGEN\" does not exist",
               150, NULL, NULL);
}

static void t_unknown_option(void)
{
    expect_err(opts("connector", "filesystem", "patj", "/tmp", "format", "csv", NULL), "22023",
               "unrecognized option 'patj' for connector 'filesystem'", 200, "",
               "Did you mean 'path'?");
    expect_err(opts("connector", "filesystem", "path", "/tmp", "format", "csv", "sink.paralelism",
                    "2", NULL),
               "22023", "unrecognized option 'sink.paralelism' for connector 'filesystem'", 400,
               "", "Did you mean 'sink.parallelism'?");
    expect_err(opts("connector", "print", "xyz", "1", NULL), "22023",
               "unrecognized option 'xyz' for connector 'print'", 200,
               "Supported options: connector, print-identifier, standard-error, "
               "sink.delivery-guarantee, sink.delivery-guarantee.fallback, sink.parallelism.",
               "");
    expect_err(opts("connector", "blackhole", "anything", "1", NULL), "22023",
               "unrecognized option 'anything' for connector 'blackhole'", 200,
               "Supported options: connector, sink.delivery-guarantee, "
               "sink.delivery-guarantee.fallback, sink.parallelism.",
               "");
    /* the format's options are candidates too */
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "json",
                    "json.ignore-parse-error", "true", NULL),
               "22023", "unrecognized option 'json.ignore-parse-error' for connector 'filesystem'",
               400, "", "Did you mean 'json.ignore-parse-errors'?");
    /* # patterns are expanded to the table's columns */
    expect_err(opts("connector", "datagen", "fields.id.knd", "random", NULL), "22023",
               "unrecognized option 'fields.id.knd' for connector 'datagen'", 200, "",
               "Did you mean 'fields.id.kind'?");
    /* and listed as patterns */
    expect_err(opts("connector", "datagen", "zzzzzzzz", "1", NULL), "22023",
               "unrecognized option 'zzzzzzzz' for connector 'datagen'", 200,
               "Supported options: connector, rows-per-second, number-of-rows, fields.#.kind, "
               "fields.#.min, fields.#.max, fields.#.max-past, fields.#.length, fields.#.start, "
               "fields.#.end, fields.#.null-rate, sink.delivery-guarantee, "
               "sink.delivery-guarantee.fallback, sink.parallelism.",
               "");
    /* keys are case-sensitive */
    expect_err(opts("connector", "filesystem", "PATH", "/p", "format", "csv", NULL), "22023",
               "unrecognized option 'PATH' for connector 'filesystem'", 200, "",
               "Did you mean 'path'?");
}

static void t_missing_required(void)
{
    expect_err(opts("connector", "filesystem", "format", "csv", NULL), "22023",
               "missing required option 'path' for connector 'filesystem'", MISSING_POS, NULL,
               NULL);
    expect_err(opts("connector", "filesystem", "path", "/p", NULL), "22023",
               "missing required option 'format' for connector 'filesystem'", MISSING_POS,
               "Available formats: csv, json, raw.", NULL);
}

static void t_duplicate(void)
{
    expect_err(opts("connector", "print", "standard-error", "true", "standard-error", "false",
                    NULL),
               "22023", "option 'standard-error' is specified more than once", 300, NULL, NULL);
    /* found before anything else, even an unknown connector */
    expect_err(opts("connector", "nope", "connector", "print", NULL), "22023",
               "option 'connector' is specified more than once", 200, NULL, NULL);
}

static void t_wrong_type(void)
{
    expect_err(opts("connector", "datagen", "rows-per-second", "abc", NULL), "22023",
               "invalid value for option 'rows-per-second': \"abc\" is not an integer", 250, NULL,
               NULL);
    expect_err(opts("connector", "datagen", "number-of-rows", "99999999999999999999", NULL),
               "22023",
               "invalid value for option 'number-of-rows': \"99999999999999999999\" is out of "
               "range for a 64-bit integer",
               250, NULL, NULL);
    expect_err(opts("connector", "print", "standard-error", "yes", NULL), "22023",
               "invalid value for option 'standard-error': \"yes\" is not a boolean", 250, NULL,
               "Use 'true' or 'false'.");
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "sink.rolling-policy.check-interval", "10 parsecs", NULL),
               "22023",
               "invalid value for option 'sink.rolling-policy.check-interval': \"10 parsecs\" is "
               "not a duration",
               450, NULL,
               "Use a whole number and a unit: ms, s, min, h or d (for example '10 s'); a bare "
               "number means milliseconds.");
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "sink.rolling-policy.file-size", "12 zb", NULL),
               "22023",
               "invalid value for option 'sink.rolling-policy.file-size': \"12 zb\" is not a "
               "memory size",
               450, NULL,
               "Use a whole number and a unit: bytes, kb, mb, gb or tb (for example '128 mb'); "
               "a bare number means bytes.");
    expect_err(opts("connector", "print", "sink.delivery-guarantee", "exact", NULL), "22023",
               "invalid value for option 'sink.delivery-guarantee': \"exact\" is not an allowed "
               "value",
               250, NULL, "Allowed values: none, at-least-once, exactly-once.");
    expect_err(opts("connector", "print", "sink.delivery-guarantee.fallback", "ignore", NULL),
               "22023",
               "invalid value for option 'sink.delivery-guarantee.fallback': \"ignore\" is not an "
               "allowed value",
               250, NULL, "Allowed values: error, downgrade.");
    expect_err(opts("connector", "print", "sink.parallelism", "0", NULL), "22023",
               "invalid value for option 'sink.parallelism': \"0\" must be at least 1", 250, NULL,
               NULL);
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "json",
                    "json.map-null-key.mode", "keep", NULL),
               "22023",
               "invalid value for option 'json.map-null-key.mode': \"keep\" is not an allowed "
               "value",
               450, NULL, "Allowed values: FAIL, DROP, LITERAL.");
    expect_err(opts("connector", "datagen", "fields.price.null-rate", "lots", NULL), "22023",
               "invalid value for option 'fields.price.null-rate': \"lots\" is not a number", 250,
               NULL, NULL);
}

static void t_format_errors(void)
{
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "xml", NULL), "42704",
               "format \"xml\" does not exist", 350, "Available formats: csv, json, raw.", "");
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "jsn", NULL), "42704",
               "format \"jsn\" does not exist", 350, NULL, "Did you mean 'json'?");
    expect_err(opts("connector", "datagen", "format", "json", NULL), "22023",
               "connector 'datagen' does not take a format", 200, NULL, NULL);
    expect_err(opts("connector", "print", "json.ignore-parse-errors", "true", NULL), "22023",
               "option 'json.ignore-parse-errors' belongs to format 'json', but connector 'print' "
               "does not take a format",
               200, NULL, NULL);
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "json.ignore-parse-errors", "true", NULL),
               "22023",
               "option 'json.ignore-parse-errors' belongs to format 'json', but the table's "
               "format is 'csv'",
               400, NULL, "Did you mean 'csv.ignore-parse-errors'?");
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "json.fail-on-missing-field", "true", NULL),
               "22023",
               "option 'json.fail-on-missing-field' belongs to format 'json', but the table's "
               "format is 'csv'",
               400, NULL, "");
}

/* ------------------------------------------------------------------------
** datagen.
*/
static void t_datagen_ok(void)
{
    expect_ok(opts("connector", "datagen", "rows-per-second", "5", "number-of-rows", "100",
                   "fields.id.kind", "sequence", "fields.id.start", "1", "fields.id.end", "100",
                   "fields.name.length", "10", "fields.ts.max-past", "5 s", "fields.small.min",
                   "-128", "fields.small.max", "127", "fields.price.min", "0.5",
                   "fields.price.max", "9.75", "fields.price.null-rate", "0.1",
                   "fields.blob.length", "4", "fields.flag.null-rate", "1", NULL));
    expect_ok(opts("connector", "datagen", "fields.name.kind", "SEQUENCE", "fields.name.start",
                   "1", "fields.name.end", "1", NULL));
}

static void t_datagen_columns(void)
{
    expect_err(opts("connector", "datagen", "fields.idd.kind", "random", NULL), "42703",
               "column \"idd\" named in option 'fields.idd.kind' does not exist", 200, NULL,
               "Did you mean 'fields.id.kind'?");
    expect_err(opts("connector", "datagen", "fields.nope.null-rate", "0.5", NULL), "42703",
               "column \"nope\" named in option 'fields.nope.null-rate' does not exist", 200, NULL,
               "");
    /* column names are case-sensitive; the hint shows the right spelling */
    expect_err(opts("connector", "datagen", "fields.ID.min", "1", NULL), "42703",
               "column \"ID\" named in option 'fields.ID.min' does not exist", 200, NULL,
               "Did you mean 'fields.id.min'?");
}

static void t_datagen_sequence(void)
{
    expect_err(opts("connector", "datagen", "fields.id.kind", "sequence", "fields.id.end", "5",
                    NULL),
               "22023", "missing required option 'fields.id.start' for sequence column \"id\"",
               250, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.id.kind", "sequence", "fields.id.start", "5",
                    NULL),
               "22023", "missing required option 'fields.id.end' for sequence column \"id\"", 250,
               NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.id.kind", "sequence", "fields.id.start", "10",
                    "fields.id.end", "1", NULL),
               "22023",
               "invalid value for option 'fields.id.start': \"10\" is greater than "
               "'fields.id.end' (\"1\")",
               350, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.id.kind", "sequence", "fields.id.start", "x",
                    "fields.id.end", "1", NULL),
               "22023", "invalid value for option 'fields.id.start': \"x\" is not an integer",
               350, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.small.kind", "sequence", "fields.small.start",
                    "0", "fields.small.end", "300", NULL),
               "22023",
               "invalid value for option 'fields.small.end': \"300\" is out of range for type "
               "TINYINT",
               450, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.id.kind", "sequence", "fields.id.start", "1",
                    "fields.id.end", "2", "fields.id.min", "0", NULL),
               "22023", "option 'fields.id.min' does not apply to sequence column \"id\"", 500,
               NULL, "It applies when 'fields.id.kind' is 'random'.");
    expect_err(opts("connector", "datagen", "fields.flag.kind", "sequence", "fields.flag.start",
                    "1", "fields.flag.end", "2", NULL),
               "22023", "column \"flag\" of type BOOLEAN cannot be generated as a sequence", 250,
               NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.id.start", "1", NULL), "22023",
               "option 'fields.id.start' applies only to sequence columns", 200, NULL,
               "Set 'fields.id.kind' = 'sequence'.");
    expect_err(opts("connector", "datagen", "fields.id.kind", "serial", NULL), "22023",
               "invalid value for option 'fields.id.kind': \"serial\" is not an allowed value", 250,
               NULL, "Allowed values: random, sequence.");
}

static void t_datagen_random(void)
{
    expect_err(opts("connector", "datagen", "fields.id.min", "10", "fields.id.max", "1", NULL),
               "22023",
               "invalid value for option 'fields.id.min': \"10\" is greater than 'fields.id.max' "
               "(\"1\")",
               250, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.price.min", "2.5", "fields.price.max", "2.25",
                    NULL),
               "22023",
               "invalid value for option 'fields.price.min': \"2.5\" is greater than "
               "'fields.price.max' (\"2.25\")",
               250, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.small.min", "-129", NULL), "22023",
               "invalid value for option 'fields.small.min': \"-129\" is out of range for type "
               "TINYINT",
               250, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.name.min", "a", NULL), "22023",
               "option 'fields.name.min' applies only to numeric columns, but column \"name\" is "
               "STRING",
               200, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.id.length", "5", NULL), "22023",
               "option 'fields.id.length' applies only to string and bytes columns, but column "
               "\"id\" is BIGINT",
               200, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.id.max-past", "5 s", NULL), "22023",
               "option 'fields.id.max-past' applies only to TIMESTAMP columns, but column \"id\" "
               "is BIGINT",
               200, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.name.length", "-1", NULL), "22023",
               "invalid value for option 'fields.name.length': \"-1\" must not be negative", 250,
               NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.price.null-rate", "1.5", NULL), "22023",
               "invalid value for option 'fields.price.null-rate': \"1.5\" is not between 0 and 1",
               250, NULL, NULL);
    expect_err(opts("connector", "datagen", "fields.price.null-rate", "-0.1", NULL), "22023",
               "invalid value for option 'fields.price.null-rate': \"-0.1\" is not between 0 and "
               "1",
               250, NULL, NULL);
    expect_err(opts("connector", "datagen", "rows-per-second", "0", NULL), "22023",
               "invalid value for option 'rows-per-second': \"0\" must be greater than 0", 250,
               NULL, NULL);
    expect_err(opts("connector", "datagen", "number-of-rows", "-1", NULL), "22023",
               "invalid value for option 'number-of-rows': \"-1\" must not be negative", 250, NULL,
               NULL);
}

/* ------------------------------------------------------------------------
** Formats and other connector checks.
*/
static void t_csv_check(void)
{
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "csv.field-delimiter", ";;", NULL),
               "22023",
               "invalid value for option 'csv.field-delimiter': \";;\" is not a single character",
               450, NULL, "Write '\\t' for a tab.");
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "csv.field-delimiter", "", NULL),
               "22023",
               "invalid value for option 'csv.field-delimiter': \"\" is not a single character",
               450, NULL, NULL);
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "csv.quote-character", "\\t", NULL),
               "22023",
               "invalid value for option 'csv.quote-character': \"\\t\" is not a single "
               "character",
               450, NULL, "");
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "csv.escape-character", "ab", NULL),
               "22023",
               "invalid value for option 'csv.escape-character': \"ab\" is not a single character",
               450, NULL, NULL);
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "csv",
                    "csv.disable-quote-character", "true", "csv.quote-character", "'", NULL),
               "22023",
               "option 'csv.quote-character' cannot be set when 'csv.disable-quote-character' is "
               "true",
               500, NULL, NULL);
    expect_ok(opts("connector", "filesystem", "path", "/p", "format", "csv",
                   "csv.disable-quote-character", "false", "csv.quote-character", "'", NULL));
}

static void t_raw_check(void)
{
    /* the fake table has 7 columns */
    expect_err(opts("connector", "filesystem", "path", "/p", "format", "raw", NULL), "22023",
               "format 'raw' needs a table with exactly one column", 350,
               "The table has 7 columns.", NULL);
    const char *one[] = {"line"};
    sl_type t[] = {sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0)};
    sl_table_shape s = {1, one, t, 0, NULL, 0, NULL, -1};
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *l = opts("connector", "filesystem", "path", "/p", "format", "raw", "raw.charset",
                        "utf-16le", "raw.endianness", "little-endian", NULL);
    CHECK_INT(sl_connector_validate(l, &s, 0, &err), 0);
    sl_kvlist_free(l);
    l = opts("connector", "filesystem", "path", "/p", "format", "raw", "raw.charset", "latin9",
             NULL);
    CHECK_INT(sl_connector_validate(l, &s, 0, &err), -1);
    CHECK_STR(err.message,
              "invalid value for option 'raw.charset': \"latin9\" is not a supported charset");
    CHECK_INT(err.position, 450);
    sl_error_reset(&err);
    sl_kvlist_free(l);
}

static void t_filesystem_check(void)
{
    expect_err(opts("connector", "filesystem", "path", "", "format", "csv", NULL), "22023",
               "option 'path' must not be empty", 250, NULL, NULL);
}

/* ------------------------------------------------------------------------
** Secrets: the value never appears in the error.
*/
static void t_secret_value(void)
{
    static const sl_option_spec pw = {.key = "password", .type = SL_OPT_INT, .secret = true};
    static const sl_option_spec mode = {.key = "token.mode", .type = SL_OPT_ENUM, .secret = true,
                                        .enum_values = "a|b"};
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_option_check_value(&pw, "password", "hunter2", 42, &err), -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK_STR(err.message, "invalid value for option 'password'");
    CHECK_STR(err.detail, "The value is not an integer.");
    CHECK_INT(err.position, 42);
    CHECK(!strstr(err.message, "hunter2") && !strstr(err.detail, "hunter2"));
    CHECK(!err.hint || !strstr(err.hint, "hunter2"));
    sl_error_reset(&err);

    CHECK_INT(sl_option_check_value(&mode, "token.mode", "s3cr3t", 5, &err), -1);
    CHECK_STR(err.message, "invalid value for option 'token.mode'");
    CHECK_STR(err.detail, "The value is not an allowed value.");
    CHECK_STR(err.hint, "Allowed values: a, b.");
    sl_error_reset(&err);

    /* the same spec without secret echoes the value */
    static const sl_option_spec plain = {.key = "port", .type = SL_OPT_INT};
    CHECK_INT(sl_option_check_value(&plain, "port", "hunter2", 42, &err), -1);
    CHECK_STR(err.message, "invalid value for option 'port': \"hunter2\" is not an integer");
    sl_error_reset(&err);
    CHECK_INT(sl_option_check_value(&plain, "port", "5432", 42, &err), 0);
    CHECK_INT(sl_option_check_value(&plain, "port", NULL, 42, &err), -1);
    CHECK_STR(err.message, "option 'port' needs a value");
    sl_error_reset(&err);
}

/* A key that Flink's sensitive-key rule makes secret is treated as declared
** secret, whoever declared (or did not declare) it. */
static void t_sensitive_key_value(void)
{
    static const sl_option_spec pw = {.key = "properties.ssl.key.password", .type = SL_OPT_INT};
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_option_check_value(&pw, pw.key, "hunter2", 42, &err), -1);
    CHECK_STR(err.message, "invalid value for option 'properties.ssl.key.password'");
    CHECK_STR(err.detail, "The value is not an integer.");
    CHECK_INT(err.position, 42);
    sl_error_reset(&err);
}

/* sl_option_scrub: the values of secret options (4 bytes or more) become
** '******' in any text; other values and short ones stay. */
static void t_scrub(void)
{
    sl_kvlist *o = opts("properties.sasl.password", "hunter2", "topic", "orders",
                        "fields.token.start", "1", "properties.sasl.jaas.config",
                        "org.x.PlainLoginModule required password=\"pw42\";", NULL);
    sl_error err = SL_ERROR_INIT;
    sl_error_set(&err, "08006", -1, "login as x/hunter2 to orders failed: hunter2!");
    sl_error_detail(&err, "librdkafka: org.x.PlainLoginModule required password=\"pw42\";");
    sl_error_hint(&err, "retry 1 time");
    sl_option_scrub_error(&err, o);
    CHECK_STR(err.message, "login as x/****** to orders failed: ******!");
    CHECK_STR(err.detail, "librdkafka: ******");
    CHECK_STR(err.hint, "retry 1 time");
    sl_error_reset(&err);
    char *t = NULL;
    sl_option_scrub(&t, o); /* NULL stays NULL */
    CHECK(t == NULL);
    sl_option_scrub_error(NULL, o);
    sl_kvlist_free(o);
}

/* The first error wins: validate does not overwrite an error already set. */
static void t_first_error_wins(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_error_set(&err, "42601", 1, "earlier");
    sl_kvlist *l = opts("connector", "nope", NULL);
    CHECK_INT(sl_connector_validate(l, NULL, 0, &err), -1);
    CHECK_STR(err.message, "earlier");
    CHECK(err.detail == NULL);
    sl_kvlist_free(l);
    sl_error_reset(&err);
}

SL_TESTS(t_legacy_options, t_parse_int, t_parse_bool, t_parse_double, t_parse_duration, t_parse_memsize,
         t_valid_tables, t_missing_connector, t_unknown_connector, t_unknown_option,
         t_missing_required, t_duplicate, t_wrong_type, t_format_errors, t_datagen_ok,
         t_datagen_columns, t_datagen_sequence, t_datagen_random, t_csv_check, t_raw_check,
         t_filesystem_check, t_secret_value, t_sensitive_key_value, t_scrub, t_first_error_wins)
