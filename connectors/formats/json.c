/*
** json.c — the 'json' format: one JSON object per record (Flink's JSON
** format and option names). Declaration only; the codec attaches later.
*/
#include "../sl_connector_int.h"

static const sl_option_spec sl__json_options[] = {
    {.key = "json.fail-on-missing-field", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Fail when a field of the table is missing from a record (else NULL)."},
    {.key = "json.ignore-parse-errors", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Skip malformed records (each skip is counted) instead of failing."},
    {.key = "json.timestamp-format.standard", .type = SL_OPT_ENUM, .default_value = "SQL",
     .enum_values = "SQL|ISO-8601",
     .description = "Timestamp text: SQL ('2024-01-31 12:00:00') or ISO-8601 "
                    "('2024-01-31T12:00:00')."},
    {.key = "json.map-null-key.mode", .type = SL_OPT_ENUM, .default_value = "FAIL",
     .enum_values = "FAIL|DROP|LITERAL",
     .description = "Writing a MAP with a NULL key: fail, drop the entry, or write the key as "
                    "json.map-null-key.literal."},
    {.key = "json.map-null-key.literal", .type = SL_OPT_STRING, .default_value = "null",
     .description = "The key written for a NULL map key in LITERAL mode."},
    {.key = "json.encode.decimal-as-plain-number", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Write DECIMAL values without scientific notation."},
    {.key = "json.encode.ignore-null-fields", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Leave out fields whose value is NULL when writing."},
};

const sl_format sl__format_json = {
    .name = "json",
    .description = "One JSON object per record, on one line (line breaks in strings are "
                   "escaped). NaN and the infinities are the strings \"NaN\", \"Infinity\", "
                   "\"-Infinity\". Strings must be valid UTF-8: other bytes make a malformed "
                   "record.",
    .options = sl__json_options,
    .noptions = (int)SL_ARRAY_LEN(sl__json_options),
    .check = NULL,
};
