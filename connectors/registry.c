/*
** registry.c — the connector and format registry and WITH-option validation.
**
** The built-in connectors and formats are listed in two static, sorted
** tables (no constructors, no mutable global state); each declaration lives
** in its own file (datagen/datagen.c, formats/json.c, ...).
**
** sl_connector_validate checks a table's WITH clause in this order, so the
** first error is the one worth reporting: duplicate keys; no legacy
** 'connector.type' style options (0A000); 'connector' present and known;
** 'format' present and known when the connector takes one; every key
** recognized (with "did you mean") and of the right type;
** required keys present; the connector's check; the format's check.
** Secret values never reach an error message.
**
** Also here: the value parsers (int, bool, double, duration, memsize) shared
** with the runtime, and the name functions.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sl_connector_int.h"

#define SL__MAX_PARALLELISM_TEXT "32768" /* SL_MAX_PARALLELISM as text */
_Static_assert(SL_MAX_PARALLELISM == 32768, "SL__MAX_PARALLELISM_TEXT");

/* ------------------------------------------------------------------------
** The tables. Keep them sorted by name (the unit tests check it).
*/
static const sl_connector *const sl__connectors[] = {
    &sl__connector_blackhole,
    &sl__connector_datagen,
    &sl__connector_elasticsearch7,
    &sl__connector_filesystem,
    &sl__connector_http_sink,
    &sl__connector_jdbc,
    &sl__connector_kafka,
    &sl__connector_nexmark,
    &sl__connector_opensearch,
    &sl__connector_print,
    &sl__connector_stdin,
    &sl__connector_upsert_kafka,
};

static const sl_format *const sl__formats[] = {
    &sl__format_csv,
    &sl__format_json,
    &sl__format_raw,
};

/* Options every table accepts, whatever its connector. */
static const sl_option_spec sl__common_options[] = {
    {.key = "connector", .type = SL_OPT_STRING, .required = true,
     .description = "The connector of the table (see below)."},
    {.key = "sink.delivery-guarantee", .type = SL_OPT_ENUM,
     .enum_values = "none|at-least-once|exactly-once",
     .description = "The delivery guarantee requested for writes into this table; defaults to "
                    "the connector's default guarantee."},
    {.key = "sink.delivery-guarantee.fallback", .type = SL_OPT_ENUM, .enum_values = "error|downgrade",
     .description = "When the requested guarantee cannot be given: fail (error) or run at the "
                    "achievable guarantee with a warning (downgrade); defaults to the session "
                    "setting 'sink.guarantee-fallback' (error)."},
    {.key = "sink.parallelism", .type = SL_OPT_INT,
     .description = "Parallelism of the sink (at least 1); defaults to the job's parallelism."},
};

/* 'format', accepted (and required) only when the connector has_format. */
static const sl_option_spec sl__format_option = {
    .key = "format", .type = SL_OPT_STRING, .required = true,
    .description = "The format of the records (see Formats)."};
/* ... and where the connector has_key_format: */
static const sl_option_spec sl__value_format_option = {
    .key = "value.format", .type = SL_OPT_STRING,
    .description = "The format of the records' values: the same as 'format' (set one of the "
                   "two); its options may also be written 'value.<format>.<option>'."};
static const sl_option_spec sl__key_format_option = {
    .key = "key.format", .type = SL_OPT_STRING,
    .description = "The format of the records' keys; its options are written "
                   "'key.<format>.<option>' ('key.json.ignore-parse-errors')."};

const sl_connector *const *sl_connectors(int *n)
{
    if (n)
        *n = (int)SL_ARRAY_LEN(sl__connectors);
    return sl__connectors;
}

void sl_connectors_register_storage(void)
{
    sl_chk_fs_register(&sl__s3_chk_fs); /* checkpoints in S3 (filesystem/fs_chk.c) */
}

const sl_format *const *sl_formats(int *n)
{
    if (n)
        *n = (int)SL_ARRAY_LEN(sl__formats);
    return sl__formats;
}

const sl_connector *sl_connector_find(const char *name)
{
    for (size_t i = 0; name && i < SL_ARRAY_LEN(sl__connectors); i++)
        if (strcmp(sl__connectors[i]->name, name) == 0)
            return sl__connectors[i];
    return NULL;
}

const sl_metadata_spec *sl_connector_metadata(const sl_connector *c, const char *key)
{
    for (int i = 0; c && key && i < c->nmetadata; i++)
        if (strcmp(c->metadata[i].key, key) == 0)
            return &c->metadata[i];
    return NULL;
}

sl_type sl_metadata_type(const sl_metadata_spec *spec)
{
    sl_type t = spec->id == SL_TYPE_MAP /* the one MAP key: Kafka's headers */
                    ? sl_type_map_of(sl_type_make(SL_TYPE_VARCHAR), sl_type_make(SL_TYPE_VARBINARY))
                    : sl_type_make(spec->id);
    if (spec->precision)
        t.precision = spec->precision;
    t.not_null = spec->not_null;
    return t;
}

const sl_format *sl_format_find(const char *name)
{
    for (size_t i = 0; name && i < SL_ARRAY_LEN(sl__formats); i++)
        if (strcmp(sl__formats[i]->name, name) == 0)
            return sl__formats[i];
    return NULL;
}

const sl_option_spec *sl__common_option_specs(int *n, const sl_option_spec **format)
{
    *format = &sl__format_option;
    *n = (int)SL_ARRAY_LEN(sl__common_options);
    return sl__common_options;
}

/* ------------------------------------------------------------------------
** Names.
*/
const char *sl_guarantee_name(sl_guarantee g)
{
    switch (g) {
    case SL_GUARANTEE_NONE: return "none";
    case SL_GUARANTEE_AT_LEAST_ONCE: return "at-least-once";
    case SL_GUARANTEE_EXACTLY_ONCE: return "exactly-once";
    }
    return "?";
}

const char *sl_mechanism_name(sl_sink_mechanism m)
{
    switch (m) {
    case SL_MECH_NONE: return "none";
    case SL_MECH_2PC_PREPARABLE: return "2pc-preparable";
    case SL_MECH_LAST_RESOURCE: return "last-resource";
    case SL_MECH_ATOMIC_RENAME: return "atomic-rename";
    case SL_MECH_IDEMPOTENT_UPSERT: return "idempotent-upsert";
    case SL_MECH_MULTIPART_UPLOAD: return "multipart-upload";
    }
    return "?";
}

const char *sl_mechanism_role(sl_sink_mechanism m)
{
    switch (m) {
    case SL_MECH_2PC_PREPARABLE:
    case SL_MECH_ATOMIC_RENAME:
    case SL_MECH_MULTIPART_UPLOAD: return "preparable";
    case SL_MECH_LAST_RESOURCE: return "last resource";
    case SL_MECH_NONE:
    case SL_MECH_IDEMPOTENT_UPSERT: return "none";
    }
    return "?";
}

const char *sl_option_type_name(sl_option_type t)
{
    switch (t) {
    case SL_OPT_STRING: return "string";
    case SL_OPT_INT: return "int";
    case SL_OPT_BOOL: return "bool";
    case SL_OPT_DOUBLE: return "double";
    case SL_OPT_DURATION: return "duration";
    case SL_OPT_MEMSIZE: return "memsize";
    case SL_OPT_ENUM: return "enum";
    }
    return "?";
}

/* ------------------------------------------------------------------------
** Value parsers. Surrounding whitespace is ignored; anything else after
** the value is an error.
*/
static const char *sl__skip_ws(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Length of s without trailing whitespace. */
static size_t sl__trimmed_len(const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return n;
}

/* Read decimal digits at *p into *out (<= limit). Returns 0, 1 for no digit,
** 2 for overflow (all digits are consumed either way). */
static int sl__digits(const char **p, uint64_t limit, uint64_t *out)
{
    const char *s = *p;
    uint64_t acc = 0;
    bool overflow = false;
    if (!isdigit((unsigned char)*s))
        return 1;
    for (; isdigit((unsigned char)*s); s++) {
        uint64_t d = (uint64_t)(*s - '0');
        if (overflow || acc > (limit - d) / 10)
            overflow = true;
        else
            acc = acc * 10 + d;
    }
    *p = s;
    *out = acc;
    return overflow ? 2 : 0;
}

const char *sl__parse_int(const char *v, int64_t *out)
{
    const char *p = sl__skip_ws(v);
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, acc = 0;
    int rc = sl__digits(&p, limit, &acc);
    if (rc == 1 || *sl__skip_ws(p))
        return "is not an integer";
    if (rc == 2)
        return "is out of range for a 64-bit integer";
    *out = neg ? (acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
    return NULL;
}

const char *sl__parse_bool(const char *v, bool *out)
{
    const char *p = sl__skip_ws(v);
    size_t n = sl__trimmed_len(p);
    if (n == 4 && sl_strncasecmp(p, "true", 4) == 0)
        *out = true;
    else if (n == 5 && sl_strncasecmp(p, "false", 5) == 0)
        *out = false;
    else
        return "is not a boolean";
    return NULL;
}

const char *sl__parse_double(const char *v, double *out)
{
    const char *p = sl__skip_ws(v);
    const char *q = (*p == '+' || *p == '-') ? p + 1 : p;
    /* digits or '.': no "inf", "nan" or hex floats */
    if (!isdigit((unsigned char)*q) && *q != '.')
        return "is not a number";
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        return "is not a number";
    char *end = NULL;
    errno = 0;
    double d = strtod(p, &end);
    if (end == p || *sl__skip_ws(end))
        return "is not a number";
    if (!isfinite(d))
        return "is out of range for a double";
    *out = d;
    return NULL;
}

typedef struct sl__unit {
    const char *name; /* unit as written, lower case */
    int64_t factor;   /* multiplier to the base unit */
} sl__unit;

/* Flink's TimeUtils labels (plural forms included), ms and coarser. */
static const sl__unit sl__duration_units[] = {
    {"", 1}, {"ms", 1}, {"milli", 1}, {"millis", 1}, {"millisecond", 1}, {"milliseconds", 1},
    {"s", 1000}, {"sec", 1000}, {"secs", 1000}, {"second", 1000}, {"seconds", 1000},
    {"m", 60000}, {"min", 60000}, {"mins", 60000}, {"minute", 60000}, {"minutes", 60000},
    {"h", 3600000}, {"hour", 3600000}, {"hours", 3600000},
    {"d", 86400000}, {"day", 86400000}, {"days", 86400000},
};

/* Flink's MemorySize units (binary multiples). */
static const sl__unit sl__memsize_units[] = {
    {"", 1}, {"b", 1}, {"bytes", 1},
    {"k", INT64_C(1) << 10}, {"kb", INT64_C(1) << 10}, {"kibibytes", INT64_C(1) << 10},
    {"m", INT64_C(1) << 20}, {"mb", INT64_C(1) << 20}, {"mebibytes", INT64_C(1) << 20},
    {"g", INT64_C(1) << 30}, {"gb", INT64_C(1) << 30}, {"gibibytes", INT64_C(1) << 30},
    {"t", INT64_C(1) << 40}, {"tb", INT64_C(1) << 40}, {"tebibytes", INT64_C(1) << 40},
};

/* "<digits> [ws] <unit>": a non-negative whole number and a unit from units
** (case-insensitive). Returns NULL, bad or range. */
static const char *sl__parse_with_unit(const char *v, const sl__unit *units, size_t nunits,
                                       int64_t *out, const char *bad, const char *range)
{
    const char *p = sl__skip_ws(v);
    uint64_t n = 0;
    int rc = sl__digits(&p, (uint64_t)INT64_MAX, &n);
    if (rc == 1)
        return bad;
    p = sl__skip_ws(p);
    size_t ulen = sl__trimmed_len(p);
    for (size_t i = 0; i < nunits; i++) {
        if (strlen(units[i].name) != ulen || sl_strncasecmp(p, units[i].name, ulen) != 0)
            continue;
        if (rc == 2 || n > (uint64_t)(INT64_MAX / units[i].factor))
            return range;
        *out = (int64_t)n * units[i].factor;
        return NULL;
    }
    return bad;
}

const char *sl__parse_duration_ms(const char *v, int64_t *out)
{
    return sl__parse_with_unit(v, sl__duration_units, SL_ARRAY_LEN(sl__duration_units), out,
                               "is not a duration", "is out of range for a duration");
}

const char *sl__parse_memsize(const char *v, int64_t *out)
{
    return sl__parse_with_unit(v, sl__memsize_units, SL_ARRAY_LEN(sl__memsize_units), out,
                               "is not a memory size", "is out of range for a memory size");
}

bool sl__enum_has(const char *values, const char *v)
{
    size_t vlen = strlen(v);
    for (const char *p = values; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == vlen && sl_strncasecmp(p, v, n) == 0)
            return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

void sl__enum_list(sl_strbuf *sb, const char *values)
{
    for (const char *p = values; p && *p; p++) {
        if (*p == '|')
            sl_strbuf_append(sb, ", ");
        else
            sl_strbuf_append_char(sb, *p);
    }
}

/* Public parsers: the message quotes the value. */
static int sl__parse_fail(const char *v, const char *reason, int value_pos, sl_error *err)
{
    return sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos, "\"%s\" %s", v, reason);
}

int sl_option_parse_int(const char *v, int64_t *out, int value_pos, sl_error *err)
{
    const char *r = sl__parse_int(v, out);
    return r ? sl__parse_fail(v, r, value_pos, err) : 0;
}

int sl_option_parse_bool(const char *v, bool *out, int value_pos, sl_error *err)
{
    const char *r = sl__parse_bool(v, out);
    return r ? sl__parse_fail(v, r, value_pos, err) : 0;
}

int sl_option_parse_double(const char *v, double *out, int value_pos, sl_error *err)
{
    const char *r = sl__parse_double(v, out);
    return r ? sl__parse_fail(v, r, value_pos, err) : 0;
}

int sl_option_parse_duration_ms(const char *v, int64_t *out_ms, int value_pos, sl_error *err)
{
    const char *r = sl__parse_duration_ms(v, out_ms);
    return r ? sl__parse_fail(v, r, value_pos, err) : 0;
}

int sl_option_parse_memsize(const char *v, int64_t *out_bytes, int value_pos, sl_error *err)
{
    const char *r = sl__parse_memsize(v, out_bytes);
    return r ? sl__parse_fail(v, r, value_pos, err) : 0;
}

int sl__option_number(const sl_connector *c, const sl_kvlist *opts, const char *key,
                      int64_t *out, sl_error *err)
{
    const sl_option_spec *spec = NULL;
    for (int i = 0; i < c->noptions && !spec; i++)
        if (strcmp(c->options[i].key, key) == 0)
            spec = &c->options[i];
    const sl_kv *kv = sl_kvlist_find(opts, key);
    const char *v = kv && kv->value ? kv->value : spec ? spec->default_value : NULL;
    int pos = kv ? kv->value_pos : -1;
    if (!spec || !v)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "connector '%s' declares no number option '%s' with a default",
                            c->name, key);
    switch (spec->type) {
    case SL_OPT_INT: return sl_option_parse_int(v, out, pos, err);
    case SL_OPT_DURATION: return sl_option_parse_duration_ms(v, out, pos, err);
    case SL_OPT_MEMSIZE: return sl_option_parse_memsize(v, out, pos, err);
    default:
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "option '%s' of connector '%s' is not a number",
                            key, c->name);
    }
}

/* ------------------------------------------------------------------------
** Helpers shared with the declarations' checks.
*/
bool sl__key_match(const char *pattern, const char *key, const char **col, size_t *collen)
{
    const char *hash = strchr(pattern, '#');
    if (!hash) {
        if (strcmp(pattern, key) != 0)
            return false;
        if (col)
            *col = key;
        if (collen)
            *collen = 0;
        return true;
    }
    size_t pre = (size_t)(hash - pattern), suf = strlen(hash + 1), klen = strlen(key);
    if (klen <= pre + suf || strncmp(key, pattern, pre) != 0 ||
        strcmp(key + klen - suf, hash + 1) != 0)
        return false;
    if (col)
        *col = key + pre;
    if (collen)
        *collen = klen - pre - suf;
    return true;
}

int sl__shape_find(const sl_table_shape *shape, const char *name, size_t len)
{
    for (int i = 0; shape && i < shape->ncols; i++)
        if (strlen(shape->names[i]) == len && memcmp(shape->names[i], name, len) == 0)
            return i;
    return -1;
}

int sl__invalid_value(sl_error *err, const sl_kv *kv, bool secret, const char *reason_fmt, ...)
{
    if (sl_error_isset(err))
        return -1;
    secret = secret || sl_option_is_secret(kv->key); /* whoever calls: never echo a secret */
    va_list ap;
    va_start(ap, reason_fmt);
    char *reason = sl_vsprintf(reason_fmt, ap);
    va_end(ap);
    if (secret) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos, "invalid value for option '%s'",
                     kv->key);
        sl_error_detail(err, "The value %s.", reason);
    } else {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                     "invalid value for option '%s': \"%s\" %s", kv->key, kv->value, reason);
    }
    sl_free(reason);
    return -1;
}

const sl_option_spec *sl__spec_find(const sl_option_spec *specs, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strchr(specs[i].key, '#') && strcmp(specs[i].key, key) == 0)
            return &specs[i];
    for (int i = 0; i < n; i++)
        if (strchr(specs[i].key, '#') && sl__key_match(specs[i].key, key, NULL, NULL))
            return &specs[i];
    return NULL;
}

/* ------------------------------------------------------------------------
** One value against its spec.
*/
int sl_option_check_value(const sl_option_spec *spec, const char *key, const char *value,
                          int value_pos, sl_error *err)
{
    if (sl_error_isset(err))
        return -1;
    sl_kv kv = {(char *)key, (char *)value, -1, value_pos};
    if (!value)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos, "option '%s' needs a value",
                            key);
    const char *r = NULL;
    const char *hint = NULL;
    int64_t i64;
    bool b;
    double d;
    switch (spec->type) {
    case SL_OPT_STRING:
        return 0;
    case SL_OPT_INT:
        r = sl__parse_int(value, &i64);
        break;
    case SL_OPT_BOOL:
        r = sl__parse_bool(value, &b);
        hint = "Use 'true' or 'false'.";
        break;
    case SL_OPT_DOUBLE:
        r = sl__parse_double(value, &d);
        break;
    case SL_OPT_DURATION:
        r = sl__parse_duration_ms(value, &i64);
        hint = "Use a whole number and a unit: ms, s, min, h or d (for example '10 s'); "
               "a bare number means milliseconds.";
        break;
    case SL_OPT_MEMSIZE:
        r = sl__parse_memsize(value, &i64);
        hint = "Use a whole number and a unit: bytes, kb, mb, gb or tb (for example '128 mb'); "
               "a bare number means bytes.";
        break;
    case SL_OPT_ENUM:
        if (!sl__enum_has(spec->enum_values, value)) {
            sl__invalid_value(err, &kv, spec->secret, "is not an allowed value");
            sl_strbuf sb = SL_STRBUF_INIT;
            sl__enum_list(&sb, spec->enum_values);
            sl_error_hint(err, "Allowed values: %s.", sl_strbuf_cstr(&sb));
            sl_strbuf_free(&sb);
            return -1;
        }
        return 0;
    }
    if (!r)
        return 0;
    sl__invalid_value(err, &kv, spec->secret, "%s", r);
    if (hint && strstr(r, "out of range") == NULL)
        sl_error_hint(err, "%s", hint);
    return -1;
}

/* ------------------------------------------------------------------------
** Validation.
*/

/* The spec of key for connector c with value format f and key format kf
** (NULL = none chosen). */
static const sl_option_spec *sl__classify(const sl_connector *c, const sl_format *f,
                                          const sl_format *kf, const char *key)
{
    const sl_option_spec *s =
        sl__spec_find(sl__common_options, (int)SL_ARRAY_LEN(sl__common_options), key);
    if (s)
        return s;
    if (c->has_format && strcmp(key, "format") == 0)
        return &sl__format_option;
    if ((s = sl__spec_find(c->options, c->noptions, key)) != NULL)
        return s;
    if (f && (s = sl__spec_find(f->options, f->noptions, key)) != NULL)
        return s;
    if (!c->has_key_format)
        return NULL;
    if (strcmp(key, "value.format") == 0)
        return &sl__value_format_option;
    if (strcmp(key, "key.format") == 0)
        return &sl__key_format_option;
    if (f && strncmp(key, "value.", 6) == 0 && (s = sl__spec_find(f->options, f->noptions, key + 6)))
        return s;
    if (kf && strncmp(key, "key.", 4) == 0 && (s = sl__spec_find(kf->options, kf->noptions, key + 4)))
        return s;
    return NULL;
}

sl_kvlist *sl_format_options(const sl_kvlist *opts, const char *role)
{
    bool key = strcmp(role, "key") == 0;
    const sl_kv *fkv = key ? sl_kvlist_find(opts, "key.format") : sl_kvlist_find(opts, "format");
    if (!key && !fkv)
        fkv = sl_kvlist_find(opts, "value.format");
    if (!fkv || !fkv->value)
        return NULL;
    sl_kvlist *out = sl_kvlist_new();
    sl_kvlist_add(out, "format", fkv->value, fkv->key_pos, fkv->value_pos);
    size_t fl = strlen(fkv->value), rl = strlen(role);
    for (int i = 0; i < opts->n; i++) {
        const sl_kv *kv = &opts->items[i];
        const char *k = kv->key;
        if (strncmp(k, role, rl) == 0 && k[rl] == '.')
            k += rl + 1; /* 'key.json.x' / 'value.json.x' */
        else if (key)
            continue;
        if (strncmp(k, fkv->value, fl) == 0 && k[fl] == '.' && !sl_kvlist_find(out, k))
            sl_kvlist_add(out, k, kv->value, kv->key_pos, kv->value_pos);
    }
    return out;
}

/* The format whose "<name>." prefixes key, or NULL. */
static const sl_format *sl__format_of_key(const char *key)
{
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__formats); i++) {
        size_t n = strlen(sl__formats[i]->name);
        if (strncmp(key, sl__formats[i]->name, n) == 0 && key[n] == '.')
            return sl__formats[i];
    }
    return NULL;
}

/* Append all keys valid for c/f to l (malloc'ed strings). With expand and a
** shape, '#' patterns become one key per column. */
static void sl__collect_keys(sl_list *l, const sl_option_spec *specs, int n,
                             const sl_table_shape *shape, bool expand)
{
    for (int i = 0; i < n; i++) {
        const char *hash = strchr(specs[i].key, '#');
        if (!hash || !expand || !shape) {
            sl_list_push(l, sl_strdup(specs[i].key));
            continue;
        }
        for (int j = 0; j < shape->ncols; j++)
            sl_list_push(l, sl_sprintf("%.*s%s%s", (int)(hash - specs[i].key), specs[i].key,
                                       shape->names[j], hash + 1));
    }
}

static sl_list *sl__valid_keys(const sl_connector *c, const sl_format *f, const sl_format *kf,
                               const sl_table_shape *shape, bool expand)
{
    sl_list *l = sl_list_new();
    sl_list_push(l, sl_strdup("connector"));
    if (c->has_format)
        sl_list_push(l, sl_strdup("format"));
    if (c->has_key_format) {
        sl_list_push(l, sl_strdup("value.format"));
        sl_list_push(l, sl_strdup("key.format"));
    }
    sl__collect_keys(l, c->options, c->noptions, shape, expand);
    if (f)
        sl__collect_keys(l, f->options, f->noptions, shape, expand);
    for (int i = 0; c->has_key_format && kf && i < kf->noptions; i++)
        sl_list_push(l, sl_sprintf("key.%s", kf->options[i].key));
    sl__collect_keys(l, sl__common_options + 1, (int)SL_ARRAY_LEN(sl__common_options) - 1, shape,
                     expand);
    return l;
}

static void sl__free_str(void *p)
{
    sl_free(p);
}

/* "blackhole, datagen, ..." */
static char *sl__connector_names(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__connectors); i++)
        sl_strbuf_appendf(&sb, "%s%s", i ? ", " : "", sl__connectors[i]->name);
    return sl_strbuf_detach(&sb);
}

static char *sl__format_names(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__formats); i++)
        sl_strbuf_appendf(&sb, "%s%s", i ? ", " : "", sl__formats[i]->name);
    return sl_strbuf_detach(&sb);
}

/* An unrecognized key: say whose it is, or suggest the closest valid key. */
static int sl__unknown_key(const sl_connector *c, const sl_format *f, const sl_format *kformat,
                           const sl_kv *kv, const sl_table_shape *shape, sl_error *err)
{
    const sl_format *kf = sl__format_of_key(kv->key);
    if (kf && kf != f) {
        if (!c->has_format) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                         "option '%s' belongs to format '%s', but connector '%s' does not take "
                         "a format",
                         kv->key, kf->name, c->name);
            return -1;
        }
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                     "option '%s' belongs to format '%s', but the table's format is '%s'",
                     kv->key, kf->name, f->name);
        char *same = sl_sprintf("%s%s", f->name, kv->key + strlen(kf->name));
        if (sl__spec_find(f->options, f->noptions, same))
            sl_error_hint(err, "Did you mean '%s'?", same);
        sl_free(same);
        return -1;
    }
    sl_list *keys = sl__valid_keys(c, f, kformat, shape, true);
    const char *dym = sl_did_you_mean(kv->key, (const char *const *)keys->items, keys->n);
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                 "unrecognized option '%s' for connector '%s'", kv->key, c->name);
    if (dym) {
        sl_error_hint(err, "Did you mean '%s'?", dym);
    } else {
        sl_list *all = sl__valid_keys(c, f, kformat, shape, false);
        sl_strbuf sb = SL_STRBUF_INIT;
        for (int i = 0; i < all->n; i++)
            sl_strbuf_appendf(&sb, "%s%s", i ? ", " : "", (const char *)all->items[i]);
        sl_error_detail(err, "Supported options: %s.", sl_strbuf_cstr(&sb));
        sl_strbuf_free(&sb);
        sl_list_free(all, sl__free_str);
    }
    sl_list_free(keys, sl__free_str);
    return -1;
}

/* The format a 'format' / 'key.format' / 'value.format' option names, or
** NULL with err (42704 with the list and "did you mean"). */
static const sl_format *sl__known_format(const sl_kv *kv, sl_error *err)
{
    const sl_format *f = kv->value ? sl_format_find(kv->value) : NULL;
    if (f)
        return f;
    sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, kv->value_pos, "format \"%s\" does not exist",
                 kv->value ? kv->value : "");
    char *names = sl__format_names();
    sl_error_detail(err, "Available formats: %s.", names);
    sl_free(names);
    const char *cand[SL_ARRAY_LEN(sl__formats)];
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__formats); i++)
        cand[i] = sl__formats[i]->name;
    const char *dym = kv->value ? sl_did_you_mean(kv->value, cand, (int)SL_ARRAY_LEN(cand)) : NULL;
    if (dym)
        sl_error_hint(err, "Did you mean '%s'?", dym);
    return NULL;
}

/* Required, non-pattern keys of specs must be present. */
static int sl__check_required(const sl_option_spec *specs, int n, const sl_kvlist *opts,
                              const char *what, const char *name, int missing_pos, sl_error *err)
{
    for (int i = 0; i < n; i++)
        if (specs[i].required && !strchr(specs[i].key, '#') && !sl_kvlist_find(opts, specs[i].key))
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, missing_pos,
                                "missing required option '%s' for %s '%s'", specs[i].key, what,
                                name);
    return 0;
}

/* ------------------------------------------------------------------------
** Flink's legacy options (before 1.11, FLIP-122: 'connector.type' = 'kafka',
** 'connector.topic', 'format.type', 'update-mode', ...) are refused with
** 0A000 and the option that replaces each. A key names a prefix when it ends
** in '.': the rest of the key follows the replacement's prefix.
*/
typedef struct sl__legacy_key {
    const char *key;  /* legacy key, or a prefix ending in '.' */
    const char *repl; /* the option replacing it (prefix for a prefix), or NULL: none */
    const char *why;  /* when repl is NULL: why none is needed */
} sl__legacy_key;

static const sl__legacy_key sl__legacy_keys[] = {
    {"connector.type", "connector", NULL},
    {"connector.version", NULL, "each connector reads its systems' current versions"},
    {"connector.properties.", "properties.", NULL},
    {"connector.startup-mode", "scan.startup.mode", NULL},
    {"connector.specific-offsets", "scan.startup.specific-offsets", NULL},
    {"connector.startup-timestamp-millis", "scan.startup.timestamp-millis", NULL},
    {"connector.sink-partitioner", "sink.partitioner", NULL},
    {"connector.table", "table-name", NULL},
    {"connector.", "", NULL}, /* connector.topic, .path, .url, .username, ... */
    {"format.type", "format", NULL},
    {"format.derive-schema", NULL, "the format always follows the table's columns"},
    {"format.", NULL, NULL}, /* format.X: the format's own X (json.X, csv.X) */
    {"update-mode", NULL,
     "the connector decides whether a table takes updates ('upsert-kafka' for a keyed "
     "changelog)"},
};

static const sl__legacy_key *sl__legacy_find(const char *key)
{
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__legacy_keys); i++) {
        const char *k = sl__legacy_keys[i].key;
        size_t n = strlen(k);
        if (k[n - 1] == '.' ? strncmp(key, k, n) == 0 && key[n] : strcmp(key, k) == 0)
            return &sl__legacy_keys[i];
    }
    return NULL;
}

/* 'connector.type' anywhere, or any legacy key in a WITH clause without
** 'connector': the 0A000 error at that key, with what to write instead. */
static int sl__legacy_check(const sl_kvlist *opts, sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, "connector.type");
    if (!kv && sl_kvlist_find(opts, "connector"))
        return 0;
    for (int i = 0; !kv && i < opts->n; i++)
        if (sl__legacy_find(opts->items[i].key))
            kv = &opts->items[i];
    if (!kv)
        return 0;
    const sl__legacy_key *l = sl__legacy_find(kv->key);
    size_t n = strlen(l->key);
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, kv->key_pos, "legacy option '%s' is not supported",
                 kv->key);
    sl_error_detail(err, "Flink 1.11 replaced the 'connector.type' style of options with "
                         "'connector' and each connector's own options; Sluice reads only those.");
    if (l->key[n - 1] == '.' && !l->repl) {
        const char *fmt = sl_kvlist_get(opts, "format.type");
        sl_error_hint(err, "Use '%s.%s' instead (the format's own option).", fmt ? fmt : "<format>",
                      kv->key + n);
    } else if (l->key[n - 1] == '.') {
        sl_error_hint(err, "Use '%s%s' instead.", l->repl, kv->key + n);
    } else if (!l->repl) {
        sl_error_hint(err, "Remove it (no option replaces it: %s).", l->why);
    } else if (kv->value && (strcmp(l->repl, "connector") == 0 || strcmp(l->repl, "format") == 0)) {
        sl_error_hint(err, "Use '%s' = '%s' instead.", l->repl, kv->value);
    } else {
        sl_error_hint(err, "Use '%s' instead.", l->repl);
    }
    return -1;
}

/* Validation into a fresh error (the caller moves it). */
static int sl__validate(const sl_kvlist *opts, const sl_table_shape *shape, int missing_pos,
                        sl_error *err)
{
    static const sl_kvlist empty = {NULL, 0, 0};
    if (!opts)
        opts = &empty;

    for (int i = 0; i < opts->n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(opts->items[i].key, opts->items[j].key) == 0)
                return sl_error_set(err, SL_ERR_INVALID_PARAMETER, opts->items[i].key_pos,
                                    "option '%s' is specified more than once",
                                    opts->items[i].key);

    if (sl__legacy_check(opts, err) != 0)
        return -1;
    const sl_kv *ckv = sl_kvlist_find(opts, "connector");
    if (!ckv || !ckv->value) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, ckv ? ckv->key_pos : missing_pos,
                     "table options must include 'connector'");
        char *names = sl__connector_names();
        sl_error_detail(err, "Available connectors: %s.", names);
        sl_free(names);
        return -1;
    }
    const sl_connector *c = sl_connector_find(ckv->value);
    if (!c) {
        sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, ckv->value_pos, "connector \"%s\" does not exist",
                     ckv->value);
        char *names = sl__connector_names();
        sl_error_detail(err, "Available connectors: %s.", names);
        sl_free(names);
        const char *cand[SL_ARRAY_LEN(sl__connectors)];
        for (size_t i = 0; i < SL_ARRAY_LEN(sl__connectors); i++)
            cand[i] = sl__connectors[i]->name;
        const char *dym = sl_did_you_mean(ckv->value, cand, (int)SL_ARRAY_LEN(cand));
        if (dym)
            sl_error_hint(err, "Did you mean '%s'?", dym);
        return -1;
    }

    if (shape && shape->npart > 0 && !c->caps.partitioned) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, shape->part_pos,
                     "connector '%s' does not support PARTITIONED BY", c->name);
        sl_error_detail(err, "Only the 'filesystem' connector writes and reads partitions.");
        return -1;
    }
    const sl_kv *fkv = sl_kvlist_find(opts, "format");
    const sl_kv *vkv = c->has_key_format ? sl_kvlist_find(opts, "value.format") : NULL;
    if (fkv && vkv)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, vkv->key_pos,
                            "options 'format' and 'value.format' cannot both be set");
    if (!fkv)
        fkv = vkv;
    const sl_format *f = NULL, *kf = NULL;
    if (c->has_format && (!fkv || !fkv->value) && c->default_format) {
        f = sl_format_find(c->default_format);
    } else if (c->has_format) {
        if (!fkv || !fkv->value) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, fkv ? fkv->key_pos : missing_pos,
                         "missing required option 'format' for connector '%s'", c->name);
            char *names = sl__format_names();
            sl_error_detail(err, "Available formats: %s.", names);
            sl_free(names);
            return -1;
        }
        if (!(f = sl__known_format(fkv, err)))
            return -1;
    } else if (fkv) {
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, fkv->key_pos,
                            "connector '%s' does not take a format", c->name);
    }
    const sl_kv *kkv = c->has_key_format ? sl_kvlist_find(opts, "key.format") : NULL;
    if (kkv && !(kf = sl__known_format(kkv, err)))
        return -1;

    for (int i = 0; i < opts->n; i++) {
        const sl_kv *kv = &opts->items[i];
        const sl_option_spec *spec = sl__classify(c, f, kf, kv->key);
        if (!spec)
            return sl__unknown_key(c, f, kf, kv, shape, err);
        if (sl_option_check_value(spec, kv->key, kv->value, kv->value_pos, err) != 0)
            return -1;
        if (strcmp(kv->key, "sink.parallelism") == 0) {
            int64_t p = 0;
            sl__parse_int(kv->value, &p);
            if (p < 1)
                return sl__invalid_value(err, kv, false, "must be at least 1");
            if (p > SL_MAX_PARALLELISM)
                return sl__invalid_value(err, kv, false, "must be at most " SL__MAX_PARALLELISM_TEXT);
        }
    }

    if (sl__check_required(c->options, c->noptions, opts, "connector", c->name, missing_pos,
                           err) != 0)
        return -1;
    if (c->check && c->check(c, opts, shape, err) != 0)
        return -1;
    /* Each format sees its own options, as its codec will, and the columns
    ** it encodes: not the partition columns, which are directory names. */
    const char **dnames = NULL;
    sl_type *dtypes = NULL;
    sl_table_shape data = shape ? *shape : (sl_table_shape){0};
    if (shape && shape->npart > 0) {
        dnames = sl_calloc((size_t)shape->ncols + 1, sizeof(char *));
        dtypes = sl_calloc((size_t)shape->ncols + 1, sizeof(sl_type));
        data = (sl_table_shape){.names = dnames, .types = dtypes, .part_pos = -1};
        for (int i = 0; i < shape->ncols; i++) {
            bool is_part = false;
            for (int k = 0; k < shape->npart; k++)
                is_part = is_part || shape->part[k] == i;
            if (is_part)
                continue;
            dnames[data.ncols] = shape->names[i];
            dtypes[data.ncols++] = shape->types[i];
        }
    }
    int rc = 0;
    for (int k = 0; rc == 0 && k < 2; k++) {
        const sl_format *fk = k == 0 ? f : kf;
        if (!fk)
            continue;
        sl_kvlist *fo = sl_format_options(opts, k == 0 ? "value" : "key");
        rc = sl__check_required(fk->options, fk->noptions, fo, "format", fk->name, missing_pos,
                                err);
        if (rc == 0 && fk->check)
            rc = fk->check(fk, fo, k == 0 && shape ? &data : NULL, err);
        sl_kvlist_free(fo);
    }
    sl_free(dnames);
    sl_free(dtypes);
    return rc;
}

int sl_connector_validate(const sl_kvlist *opts, const sl_table_shape *shape, int missing_pos,
                          sl_error *err)
{
    sl_error e = SL_ERROR_INIT;
    if (sl__validate(opts, shape, missing_pos, &e) == 0)
        return 0;
    if (!sl_error_isset(&e)) /* a check returned -1 without saying why */
        sl_error_set(&e, SL_ERR_INTERNAL, -1, "invalid table options");
    if (sl_error_isset(err))
        sl_error_reset(&e);
    else
        sl_error_move(err, &e);
    return -1;
}

const sl_option_spec *sl_connector_option(const sl_connector *c, const sl_kvlist *opts,
                                          const char *key)
{
    if (!c || !key)
        return NULL;
    const char *fv = c->has_format ? sl_kvlist_get(opts, "format") : NULL;
    if (!fv && c->has_key_format)
        fv = sl_kvlist_get(opts, "value.format");
    if (!fv && c->has_format)
        fv = c->default_format;
    const sl_format *f = sl_format_find(fv);
    const sl_format *kf = c->has_key_format ? sl_format_find(sl_kvlist_get(opts, "key.format"))
                                            : NULL;
    return sl__classify(c, f, kf, key);
}

/* Flink's sensitive-key rule (GlobalConfiguration.SENSITIVE_KEYS and
** isSensitive): a key whose lower-cased text contains one of these is
** secret, whatever connector reads it. 'api-key' and 'authorization' are
** Sluice's additions ('authorization': the http-sink's header options
** 'http.sink.header.Authorization' / 'Proxy-Authorization' hold
** credentials). */
static const char *const sl__sensitive_keys[] = {
    "password",    "secret",      "fs.azure.account.key", "apikey",
    "api-key",     "auth-params", "service-key",          "token",
    "basic-auth",  "jaas.config", "http-headers",         "authorization",
};

static bool sl__contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (sl_strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

bool sl_option_is_secret(const char *key)
{
    if (!key)
        return false;
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__sensitive_keys); i++)
        if (sl__contains_nocase(key, sl__sensitive_keys[i]))
            return true;
    const sl_option_spec *s;
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__connectors); i++)
        if ((s = sl__spec_find(sl__connectors[i]->options, sl__connectors[i]->noptions, key)) &&
            s->secret)
            return true;
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__formats); i++)
        if ((s = sl__spec_find(sl__formats[i]->options, sl__formats[i]->noptions, key)) &&
            s->secret)
            return true;
    return false;
}

bool sl_option_secret_fn(const char *key, void *ctx)
{
    (void)ctx;
    return sl_option_is_secret(key);
}

/* Values shorter than this are not scrubbed from texts: a secret is longer,
** and hiding every "1" of a message (a column named token with
** 'fields.token.start' = '1') would garble it. Printing never shows any. */
#define SL__SCRUB_MIN 4

/* *text with every occurrence of value replaced by SL_REDACTED. */
static void sl__scrub_value(char **text, const char *value)
{
    if (!*text || !value || strlen(value) < SL__SCRUB_MIN || !strstr(*text, value))
        return;
    sl_strbuf sb = SL_STRBUF_INIT;
    size_t n = strlen(value);
    const char *p = *text, *hit;
    while ((hit = strstr(p, value)) != NULL) {
        sl_strbuf_append_n(&sb, p, (size_t)(hit - p));
        sl_strbuf_append(&sb, SL_REDACTED);
        p = hit + n;
    }
    sl_strbuf_append(&sb, p);
    sl_free(*text);
    *text = sl_strbuf_detach(&sb);
}

void sl_option_scrub(char **text, const sl_kvlist *opts)
{
    for (int i = 0; opts && i < opts->n; i++)
        if (sl_option_is_secret(opts->items[i].key))
            sl__scrub_value(text, opts->items[i].value);
}

void sl_option_scrub_error(sl_error *err, const sl_kvlist *opts)
{
    if (!err)
        return;
    sl_option_scrub(&err->message, opts);
    sl_option_scrub(&err->detail, opts);
    sl_option_scrub(&err->hint, opts);
}

/* ------------------------------------------------------------------------
** Completion
*/

static void sl__push_unique(sl_list *keys, const sl_option_spec *opts, int n)
{
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (int j = 0; j < keys->n && !dup; j++)
            dup = strcmp(keys->items[j], opts[i].key) == 0;
        if (!dup)
            sl_list_push(keys, sl_strdup(opts[i].key));
    }
}

static int sl__cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

sl_list *sl_connector_option_keys(void)
{
    sl_list *keys = sl_list_new();
    sl__push_unique(keys, sl__common_options, (int)SL_ARRAY_LEN(sl__common_options));
    sl__push_unique(keys, &sl__format_option, 1);
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__connectors); i++)
        sl__push_unique(keys, sl__connectors[i]->options, sl__connectors[i]->noptions);
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__formats); i++)
        sl__push_unique(keys, sl__formats[i]->options, sl__formats[i]->noptions);
    if (keys->n > 1)
        qsort(keys->items, (size_t)keys->n, sizeof(void *), sl__cmp_key);
    return keys;
}

bool sl_connector_source_bounded(const sl_connector *c, const sl_kvlist *opts)
{
    if (!c || !c->caps.source)
        return false;
    bool set = c->caps.source_bound_option && sl_kvlist_find(opts, c->caps.source_bound_option);
    switch (c->caps.source_bound) {
    case SL_BOUND_ALWAYS: return true;
    case SL_BOUND_IF_SET: return set;
    case SL_BOUND_UNLESS_SET: return !set;
    default: return false;
    }
}

const char *sl_connector_bound_text(const sl_connector *c, sl_strbuf *sb)
{
    switch (c->caps.source_bound) {
    case SL_BOUND_ALWAYS: return "yes";
    case SL_BOUND_IF_SET:
        sl_strbuf_appendf(sb, "when '%s' is set", c->caps.source_bound_option);
        return sl_strbuf_cstr(sb);
    case SL_BOUND_UNLESS_SET:
        sl_strbuf_appendf(sb, "unless '%s' is set", c->caps.source_bound_option);
        return sl_strbuf_cstr(sb);
    default: return "no";
    }
}
