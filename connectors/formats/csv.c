/*
** csv.c — the 'csv' format: one line of comma-separated values per record
** (Flink's CSV format and option names). Declaration only; the codec
** attaches later.
**
** sl__csv_check: the delimiter, quote and escape options are one character
** each ('\t', written as backslash-t, is a tab, as in Flink), and a quote
** character cannot be set while quoting is disabled.
*/
#include <string.h>

#include "../sl_connector_int.h"

static const sl_option_spec sl__csv_options[] = {
    {.key = "csv.field-delimiter", .type = SL_OPT_STRING, .default_value = ",",
     .description = "Field separator: one character; '\\t' means tab."},
    {.key = "csv.disable-quote-character", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Do not quote values (then csv.quote-character must not be set)."},
    {.key = "csv.quote-character", .type = SL_OPT_STRING, .default_value = "\"",
     .description = "Character that encloses values: one character."},
    {.key = "csv.allow-comments", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Ignore lines that start with '#'."},
    {.key = "csv.ignore-parse-errors", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Skip malformed records (each skip is counted) instead of failing."},
    {.key = "csv.array-element-delimiter", .type = SL_OPT_STRING, .default_value = ";",
     .description = "Separator of array elements within a field."},
    {.key = "csv.escape-character", .type = SL_OPT_STRING,
     .description = "Character that escapes the next one: one character; unset means none."},
    {.key = "csv.null-literal", .type = SL_OPT_STRING,
     .description = "Text read and written as NULL (as written, before unquoting). Unset: "
                    "the empty unquoted field is NULL for every type, and the empty string "
                    "is written quoted (\"\"). Set: an empty field is the empty string for "
                    "string columns, NULL for the others."},
};

/* The value of kv must be exactly one character (allow_tab: or "\t"). */
static int sl__one_char(const sl_kv *kv, bool allow_tab, sl_error *err)
{
    if (!kv || strlen(kv->value) == 1 || (allow_tab && strcmp(kv->value, "\\t") == 0))
        return 0;
    sl__invalid_value(err, kv, false, "is not a single character");
    if (allow_tab)
        sl_error_hint(err, "Write '\\t' for a tab.");
    return -1;
}

static int sl__csv_check(const sl_format *f, const sl_kvlist *opts, const sl_table_shape *shape,
                         sl_error *err)
{
    if (sl__one_char(sl_kvlist_find(opts, "csv.field-delimiter"), true, err) != 0 ||
        sl__one_char(sl_kvlist_find(opts, "csv.quote-character"), false, err) != 0 ||
        sl__one_char(sl_kvlist_find(opts, "csv.escape-character"), false, err) != 0)
        return -1;
    const sl_kv *disable = sl_kvlist_find(opts, "csv.disable-quote-character");
    const sl_kv *quote = sl_kvlist_find(opts, "csv.quote-character");
    bool disabled = false;
    if (disable && quote && !sl__parse_bool(disable->value, &disabled) && disabled)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, quote->key_pos,
                            "option 'csv.quote-character' cannot be set when "
                            "'csv.disable-quote-character' is true");
    return 0;
}

const sl_format sl__format_csv = {
    .name = "csv",
    .description = "Delimiter-separated values, one record per line (RFC 4180). A value "
                   "holding a line break is written quoted, and a quoted field may span lines "
                   "of a file. NULL and the empty string read back apart (see "
                   "csv.null-literal). Strings must be valid UTF-8: other bytes make a "
                   "malformed record.",
    .options = sl__csv_options,
    .noptions = (int)SL_ARRAY_LEN(sl__csv_options),
    .check = sl__csv_check,
};
