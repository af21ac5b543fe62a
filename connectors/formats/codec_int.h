/*
** codec_int.h — internals shared by the row codecs (codec.c and
** codec_json.c / codec_csv.c / codec_raw.c). Not a public header.
**
** A codec is a struct sl_codec (common part: columns, the row being
** decoded, skip mode) embedded first in a format's own struct, plus a table
** of operations. Decoding is two-phase: a format fills c->vals (one
** sl__value per column; bytes either point into memory that lives until
** the end of the decode call, or into c->scratch by offset), and only when
** every field decoded does sl__codec_row_commit append the row to the
** chunk — so a malformed record leaves the chunk exactly as it was (nrows
** and arena).
**
** The text parsers and formatters here are the one definition of each
** type's text form for json and csv (numbers, exact decimals, booleans,
** dates and timestamps in Flink's SQL / ISO-8601 spellings, base64 bytes).
*/
#ifndef SL_CODEC_INT_H
#define SL_CODEC_INT_H

#include "../sl_connector_int.h"

typedef struct sl__codec_ops {
    int (*decode)(sl_codec *c, const char *rec, size_t len, sl_chunk *out, sl_error *err);
    int (*encode)(sl_codec *c, const sl_chunk *in, int r, sl_strbuf *out, sl_error *err);
    void (*free)(sl_codec *c); /* the format's own members (not the common part) */
    /* Line framing: the index of the '\n' that ends the record at rec[0]
    ** (see sl_codec_line_end), or n; *cr_data: a '\r' just before that
    ** position is data (escaped), not part of the line break. NULL: the
    ** first '\n'. */
    size_t (*line_end)(sl_codec *c, const char *rec, size_t n, size_t *scanned, bool *cr_data);
} sl__codec_ops;

/* One decoded field of the row being decoded. */
typedef struct sl__value {
    bool null;        /* NULL */
    bool in_scratch;  /* string bytes are at c->scratch.buf + off (else at ptr) */
    union {
        uint8_t b;    /* BOOLEAN */
        int64_t i64;  /* integers, DATE, TIME, TIMESTAMP[_LTZ] */
        double f64;   /* FLOAT, DOUBLE */
        sl_i128 i128; /* DECIMAL */
    } v;
    const char *ptr;  /* string / binary bytes (when !in_scratch) */
    size_t off;       /* offset into c->scratch (when in_scratch) */
    size_t len;       /* string / binary length */
} sl__value;

struct sl_codec {
    const sl__codec_ops *ops; /* the format's operations */
    const char *label;        /* "JSON", "CSV", "raw": in "malformed <label> record" */
    int ncols;                /* columns */
    char **names;             /* column names (owned) */
    sl_type *types;           /* column types (owned) */
    bool ignore_errors;       /* '<format>.ignore-parse-errors' */
    sl__value *vals;          /* the row being decoded (ncols entries) */
    sl_strbuf scratch;        /* decoded bytes of the row being decoded (base64) */
    int width;                /* columns of the chunks it reads and writes (ncols unless mapped) */
    int *map;                 /* codec column i is chunk column map[i]; NULL = i (owned) */
    int fill_row;             /* decoding fills this existing row instead of appending; -1 */
    bool lines;               /* records are lines of a file (sl_codec_set_line_framing) */
    int scan_state;           /* line_end: the scanner's state at *scanned */
    int scan_prev;            /* line_end: its state before the byte before *scanned */
};

/* The chunk column of codec column i. */
static inline int sl__codec_col(const sl_codec *c, int i)
{
    return c->map ? c->map[i] : i;
}

/* Common part: copy the columns, allocate vals. */
void sl__codec_init(sl_codec *c, const sl__codec_ops *ops, const char *label, int ncols,
                    const char *const *names, const sl_type *types);
/* Free the common part (not c itself). */
void sl__codec_fini(sl_codec *c);

/* Format constructors (codec_json.c, codec_csv.c, codec_raw.c): NULL with
** err when an option value or a column type is not supported. */
sl_codec *sl__codec_json_new(const sl_kvlist *opts, int ncols, const char *const *names,
                             const sl_type *types, sl_error *err);
sl_codec *sl__codec_csv_new(const sl_kvlist *opts, int ncols, const char *const *names,
                            const sl_type *types, sl_error *err);
sl_codec *sl__codec_raw_new(const sl_kvlist *opts, int ncols, const char *const *names,
                            const sl_type *types, sl_error *err);

/* Option helpers: the bool value of key (def when absent); -1 with err
** (22023) when present and not a boolean. */
int sl__codec_opt_bool(const sl_kvlist *opts, const char *key, bool def, bool *out,
                       sl_error *err);
/* 0A000 "format '<fmt>' does not support type T (column "c")" unless every
** column's type is accepted by ok(). Returns 0 or -1. */
int sl__codec_check_types(const char *fmt, int ncols, const char *const *names,
                          const sl_type *types, bool (*ok)(sl_type t), sl_error *err);

/* Start decoding a row: every value NULL, scratch empty. */
void sl__codec_row_begin(sl_codec *c);
/* Append the decoded row (+I) to out (or fill c->fill_row of it). */
void sl__codec_row_commit(sl_codec *c, sl_chunk *out);

/* A malformed record: with ignore_errors returns SL_CODEC_SKIPPED and
** leaves err alone; else sets 22P02 "malformed <label> record" with the
** printf detail and returns -1. The result is decode's return value. */
int sl__codec_malformed(sl_codec *c, sl_error *err, const char *detail_fmt, ...) SL_PRINTF(3, 4);

/* Results of sl__codec_parse_text. */
#define SL__PARSE_OK 0
#define SL__PARSE_INVALID (-1) /* not a valid value of the type */
#define SL__PARSE_RANGE (-2)   /* a number outside the type's range / precision */
#define SL__PARSE_UTF8 (-3)    /* a string that is not valid UTF-8 */

/* Parse the text of one field into c->vals[col] by the column's type:
**   CHAR/VARCHAR   the bytes as they are (must be valid UTF-8);
**   BINARY/VARBINARY  base64 (into c->scratch);
**   others         surrounding ASCII blanks ignored (Java's trim), then
**     BOOLEAN      true / false (any case);
**     integers     an integral number in decimal notation ("12", "-3",
**                  "1e2", "2.0"), range-checked against the type;
**     FLOAT DOUBLE a decimal number, NaN, [+-]Infinity;
**     DECIMAL      sl_dec_parse, rounded HALF_UP to the scale;
**     DATE TIME    SQL literal text;
**     TIMESTAMP    "yyyy-MM-dd HH:mm:ss[.f]" ('T' instead of ' ' when iso);
**     TIMESTAMP_LTZ  the same followed by "Z";
**     times are truncated to the column's precision.
** Returns SL__PARSE_*. The text must stay alive until the row is committed
** (strings point into it). */
int sl__codec_parse_text(sl_codec *c, int col, const char *s, size_t len, bool iso);

/* A CHAR/VARCHAR field's value: s[0..len), which the caller knows to be
** valid UTF-8 (alive until the row is committed). */
void sl__codec_set_string(sl_codec *c, int col, const char *s, size_t len);

/* The detail for a failed sl__codec_parse_text of field col:
**   field "amount": "12,5" is not a valid DECIMAL(10, 2)
** quoted: show the text between double quotes (a string) or bare (a JSON
** number or literal). */
int sl__codec_bad_value(sl_codec *c, sl_error *err, int col, int why, const char *s, size_t len,
                        bool quoted);

/* Append text for an error message: at most 64 bytes (then "..."),
** control characters, quotes, backslashes and invalid UTF-8 escaped. */
void sl__codec_show(sl_strbuf *sb, const char *s, size_t len, bool quoted);

/* Before json and csv write row r of in: every DATE value is within
** 0000-01-01 .. 9999-12-31, the years their text form (and Flink) reads
** back. 0, or -1 with err (22023 "cannot write <label> record"). */
int sl__codec_check_dates(sl_codec *c, const sl_chunk *in, int r, sl_error *err);

/* Formatters shared by json and csv. */
/* Shortest text that reads back as the same double (FLOAT: the same float),
** in C's %g spelling with ".0" added to integral values as Java does:
** "0.1", "1.0", "1e+300"; NaN / Infinity / -Infinity as Java spells them. */
void sl__codec_fmt_double(sl_strbuf *sb, double v, bool is_float);
/* DECIMAL of scale s: plain ("0.00000010") or, when !plain, as Java's
** BigDecimal.toString() ("1.0E-7" when the adjusted exponent < -6). */
void sl__codec_fmt_decimal(sl_strbuf *sb, sl_i128 v, int s, bool plain);
/* DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ value v (column type t) in the SQL
** or ISO-8601 spelling sl__codec_parse_text reads. */
void sl__codec_fmt_temporal(sl_strbuf *sb, sl_type t, int64_t v, bool iso);

/* Base64 (standard alphabet, padded on output; padding optional on input). */
void sl__base64_encode(sl_strbuf *sb, const uint8_t *p, size_t n);
/* Decode into sb; -1 for characters outside the alphabet, misplaced padding
** or a length that is 1 mod 4. */
int sl__base64_decode(sl_strbuf *sb, const char *s, size_t n);

/* Length of the longest valid UTF-8 prefix of s (== n when all valid):
** no overlong forms, no surrogates, nothing above U+10FFFF. */
size_t sl__utf8_valid_prefix(const char *s, size_t n);
/* The length of the valid UTF-8 sequence starting at s[0], or 0. */
size_t sl__utf8_seq(const char *s, size_t n);

#endif /* SL_CODEC_INT_H */
