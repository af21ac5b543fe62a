/*
** raw.c — the 'raw' format: each record is the bytes of a single column
** (Flink's Raw format and option names). Declaration only; the codec
** attaches later.
**
** sl__raw_check: the table has exactly one column, and the charset is one
** of the standard ones.
*/
#include "../sl_connector_int.h"

static const sl_option_spec sl__raw_options[] = {
    {.key = "raw.charset", .type = SL_OPT_STRING, .default_value = "UTF-8",
     .description = "Charset of string values: UTF-8, UTF-16, UTF-16BE, UTF-16LE, US-ASCII or "
                    "ISO-8859-1."},
    {.key = "raw.endianness", .type = SL_OPT_ENUM, .default_value = "big-endian",
     .enum_values = "big-endian|little-endian",
     .description = "Byte order of numeric values."},
};

static const char *const sl__raw_charsets[] = {"UTF-8",    "UTF-16",   "UTF-16BE",
                                               "UTF-16LE", "US-ASCII", "ISO-8859-1"};

static int sl__raw_check(const sl_format *f, const sl_kvlist *opts, const sl_table_shape *shape,
                         sl_error *err)
{
    const sl_kv *cs = sl_kvlist_find(opts, "raw.charset");
    if (cs) {
        bool known = false;
        for (size_t i = 0; i < SL_ARRAY_LEN(sl__raw_charsets); i++)
            known = known || sl_strcasecmp(cs->value, sl__raw_charsets[i]) == 0;
        if (!known) {
            sl__invalid_value(err, cs, false, "is not a supported charset");
            sl_error_hint(err, "Supported charsets: UTF-8, UTF-16, UTF-16BE, UTF-16LE, US-ASCII, "
                               "ISO-8859-1.");
            return -1;
        }
    }
    if (shape && shape->ncols != 1) {
        const sl_kv *fmt = sl_kvlist_find(opts, "format");
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, fmt ? fmt->value_pos : -1,
                     "format 'raw' needs a table with exactly one column");
        sl_error_detail(err, "The table has %d columns.", shape->ncols);
        return -1;
    }
    return 0;
}

const sl_format sl__format_raw = {
    .name = "raw",
    .description = "The bytes of a single column per record. NULL is a record without a "
                   "value (a Kafka message without a value). In a file a record is a line: a "
                   "value holding a line break byte or ending in a carriage return, and a NULL "
                   "string or bytes value, cannot be written there (22023); a NULL number is an "
                   "empty line. Strings must be valid UTF-8: other bytes make a malformed "
                   "record.",
    .options = sl__raw_options,
    .noptions = (int)SL_ARRAY_LEN(sl__raw_options),
    .check = sl__raw_check,
};
