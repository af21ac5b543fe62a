/*
** sl_base.h — leaf utilities with no engine knowledge.
**
** Memory helpers that never return NULL (sl_malloc ...), the one error type of
** the whole system (sl_error: SQLSTATE, message, detail, hint, position — the
** fields of a PostgreSQL ErrorResponse), a growable string (sl_strbuf), a
** pointer list (sl_list), an ordered key/value list with source positions
** (sl_kvlist, used for WITH options and SET), file helpers that write
** atomically (sl_fs_*), text positions, and edit distance for "did you mean".
**
** Everything here depends only on libc.
*/
#ifndef SL_BASE_H
#define SL_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SL_NORETURN __attribute__((noreturn))
#define SL_UNUSED __attribute__((unused))
#else
#define SL_PRINTF(f, a)
#define SL_NORETURN
#define SL_UNUSED
#endif

#define SL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------
** Assertions. Three tiers (see STYLE.md):
**   assert()            debug builds only;
**   SL_ALWAYS/SL_NEVER  defensive checks that stay in release builds;
**   sl_panic()          invariants whose violation would lose or duplicate data.
*/
SL_NORETURN void sl_panic(const char *file, int line, const char *fmt, ...) SL_PRINTF(3, 4);
#define SL_PANIC(...) sl_panic(__FILE__, __LINE__, __VA_ARGS__)
#define SL_ALWAYS(x) ((x) ? 1 : (SL_PANIC("assertion failed: %s", #x), 0))
#define SL_NEVER(x) ((x) ? (SL_PANIC("assertion failed: !(%s)", #x), 1) : 0)

/* ------------------------------------------------------------------------
** Memory. These never return NULL: out of memory is a panic.
*/
void *sl_malloc(size_t n);
void *sl_calloc(size_t count, size_t size);
void *sl_realloc(void *p, size_t n);
/* Zeroed memory for a large table probed at random (freed with sl_free):
** from 2 MB on aligned for transparent huge pages, and written here rather
** than calloc'ed, whose untouched pages are the shared zero page until the
** first write, so that a probe's read and then its write fault twice, the
** second time with a TLB shootdown across the process's threads. */
void *sl_calloc_huge(size_t count, size_t size);
/* The same, not zeroed (a bump allocator's blocks, written as handed out). */
void *sl_malloc_huge(size_t n);
/* Ask for transparent huge pages on the 2 MB extents inside [p, p + n). */
void sl_advise_huge(void *p, size_t n);
char *sl_strdup(const char *s);            /* NULL in, NULL out */
char *sl_strndup(const char *s, size_t n); /* copies at most n bytes, NUL-terminates */
char *sl_sprintf(const char *fmt, ...) SL_PRINTF(1, 2);
char *sl_vsprintf(const char *fmt, va_list ap);
void sl_free(void *p);

/* ------------------------------------------------------------------------
** Errors. One type for the whole system. Fields map one-to-one onto the
** PostgreSQL ErrorResponse / NoticeResponse, and onto how the shell prints.
*/
typedef enum sl_severity {
    SL_SEV_ERROR = 0, /* the statement failed */
    SL_SEV_WARNING,   /* the statement ran, but the user must know something */
    SL_SEV_NOTICE,    /* informational */
} sl_severity;

typedef struct sl_error {
    sl_severity severity; /* ERROR for failures; WARNING/NOTICE for notices */
    char sqlstate[6];     /* five-character SQLSTATE; "" while no error is set */
    char *message;        /* primary message: short, factual, lower case */
    char *detail;         /* optional: more facts */
    char *hint;           /* optional: what would make it work */
    int position;         /* 0-based byte offset into the statement text; -1 = none */
} sl_error;

/* How a secret value is shown (Flink's GlobalConfiguration.HIDDEN_CONTENT);
** which keys are secret: sl_option_is_secret (connectors/sl_connector.h). */
#define SL_REDACTED "******"

/* SQLSTATE codes used by Sluice (PostgreSQL's values). */
#define SL_ERR_CARDINALITY "21000"          /* cardinality_violation */
#define SL_ERR_SYNTAX "42601"               /* syntax_error */
#define SL_ERR_UNDEFINED_TABLE "42P01"      /* undefined_table */
#define SL_ERR_UNDEFINED_DATABASE "3D000"   /* invalid_catalog_name: USE of another catalog */
#define SL_ERR_DUPLICATE_TABLE "42P07"      /* duplicate_table */
#define SL_ERR_UNDEFINED_COLUMN "42703"     /* undefined_column */
#define SL_ERR_DUPLICATE_COLUMN "42701"     /* duplicate_column */
#define SL_ERR_AMBIGUOUS_COLUMN "42702"     /* ambiguous_column */
#define SL_ERR_DUPLICATE_ALIAS "42712"      /* duplicate_alias */
#define SL_ERR_UNDEFINED_FUNCTION "42883"   /* undefined_function */
#define SL_ERR_UNDEFINED_OBJECT "42704"     /* undefined_object */
#define SL_ERR_DUPLICATE_OBJECT "42710"     /* duplicate_object */
#define SL_ERR_WRONG_OBJECT_TYPE "42809"    /* wrong_object_type */
#define SL_ERR_DATATYPE_MISMATCH "42804"    /* datatype_mismatch */
#define SL_ERR_CANNOT_COERCE "42846"        /* cannot_coerce */
#define SL_ERR_GROUPING "42803"             /* grouping_error */
#define SL_ERR_INVALID_TABLE_DEF "42P16"    /* invalid_table_definition */
#define SL_ERR_INVALID_COLUMN_REF "42P10"   /* invalid_column_reference */
#define SL_ERR_INVALID_NAME "42602"         /* invalid_name */
#define SL_ERR_WINDOWING "42P20"            /* windowing_error */
#define SL_ERR_UNDEFINED_PARAM "42P02"      /* undefined_parameter: $n without a value */
#define SL_ERR_INVALID_CURSOR_NAME "34000"  /* invalid_cursor_name: no such cursor */
#define SL_ERR_DUPLICATE_CURSOR "42P03"     /* duplicate_cursor */
#define SL_ERR_INVALID_CURSOR_DEF "42P11"   /* invalid_cursor_definition: not a query */
#define SL_ERR_INVALID_PARAMETER "22023"    /* invalid_parameter_value */
#define SL_ERR_ARRAY_SUBSCRIPT "2202E"      /* array_subscript_error */
#define SL_ERR_NULL_NOT_ALLOWED "22004"     /* null_value_not_allowed */
#define SL_ERR_INVALID_TEXT "22P02"         /* invalid_text_representation */
#define SL_ERR_DATETIME_FORMAT "22007"      /* invalid_datetime_format */
#define SL_ERR_DATETIME_OVERFLOW "22008"    /* datetime_field_overflow: outside DATE's/TIMESTAMP's range */
#define SL_ERR_NUMERIC_RANGE "22003"        /* numeric_value_out_of_range */
#define SL_ERR_STRING_TRUNCATION "22001"    /* string_data_right_truncation */
#define SL_ERR_STRING_LENGTH_MISMATCH "22026" /* string_data_length_mismatch */
#define SL_ERR_CHARACTER_NOT_IN_REPERTOIRE "22021" /* character_not_in_repertoire: bad UTF-8 */
#define SL_ERR_DIVISION_BY_ZERO "22012"     /* division_by_zero */
#define SL_ERR_UNDEFINED_PARAMETER "42704"  /* an unknown configuration key */
#define SL_ERR_CANT_CHANGE_RUNTIME "55P02"  /* cant_change_runtime_param */
#define SL_ERR_OBJECT_IN_USE "55006"        /* object_in_use */
#define SL_ERR_OBJECT_STATE "55000"         /* object_not_in_prerequisite_state */
#define SL_ERR_NOT_SUPPORTED "0A000"        /* feature_not_supported */
#define SL_ERR_PROGRAM_LIMIT "54000"        /* program_limit_exceeded */
#define SL_ERR_TOO_COMPLEX "54001"          /* statement_too_complex: nesting, parser stack */
#define SL_ERR_QUERY_CANCELED "57014"       /* query_canceled: the job is being torn down */
#define SL_ERR_CONFIG_FILE "F0000"          /* config_file_error */
#define SL_ERR_IO "58030"                   /* io_error */
#define SL_ERR_CONNECTION_FAILURE "08006"   /* connection_failure: an outside system failed for now */
#define SL_ERR_TRANSACTION_ROLLBACK "40000" /* transaction_rollback: aborted, try again */
#define SL_ERR_DATA_CORRUPTED "XX001"       /* data_corrupted */
#define SL_ERR_INTERNAL "XX000"             /* internal_error */
#define SL_ERR_UNDEFINED_FILE "58P01"       /* undefined_file */
#define SL_ERR_WARNING "01000"              /* warning */
#define SL_ERR_SUCCESS "00000"              /* successful_completion (notices) */

/* Set the error unless one is already set (the first error wins, as a parser's
** first syntax error is the one worth reporting). Returns -1 so callers can
** write `return sl_error_set(...)`. position: byte offset or -1. */
int sl_error_set(sl_error *e, const char *sqlstate, int position, const char *fmt, ...)
    SL_PRINTF(4, 5);
int sl_error_setv(sl_error *e, const char *sqlstate, int position, const char *fmt, va_list ap);
/* Add detail / hint to the error that is set (replaces any earlier one). */
void sl_error_detail(sl_error *e, const char *fmt, ...) SL_PRINTF(2, 3);
void sl_error_hint(sl_error *e, const char *fmt, ...) SL_PRINTF(2, 3);
bool sl_error_isset(const sl_error *e);
/* Free the strings and return to the "no error" state. */
void sl_error_reset(sl_error *e);
/* Move src into dst (dst is reset first); src is left empty. */
void sl_error_move(sl_error *dst, sl_error *src);
/* Deep copy. */
void sl_error_copy(sl_error *dst, const sl_error *src);
/* Initializer for a stack variable. */
#define SL_ERROR_INIT {SL_SEV_ERROR, "", NULL, NULL, NULL, -1}

/* ------------------------------------------------------------------------
** Growable NUL-terminated string.
*/
typedef struct sl_strbuf {
    char *buf;  /* always NUL-terminated once anything was appended; may be NULL when empty */
    size_t len; /* bytes used, not counting the NUL */
    size_t cap; /* bytes allocated */
} sl_strbuf;

#define SL_STRBUF_INIT {NULL, 0, 0}
void sl_strbuf_append(sl_strbuf *sb, const char *s);
void sl_strbuf_append_n(sl_strbuf *sb, const char *s, size_t n);
/* Make room for extra more bytes (and the NUL) without appending: writers
** of many small fields (state snapshots) fill buf + len themselves. */
void sl_strbuf_reserve(sl_strbuf *sb, size_t extra);
/* Inline: record encoders append punctuation a byte at a time. */
static inline void sl_strbuf_append_char(sl_strbuf *sb, char c)
{
    if (sb->len + 2 > sb->cap)
        sl_strbuf_reserve(sb, 1);
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = 0;
}
/* Append v in decimal ("-42"), without printf's cost (record encoders). */
void sl_strbuf_append_i64(sl_strbuf *sb, int64_t v);
/* v's decimal text at p (at most SL_I64_DIGITS bytes, no NUL); its end. */
#define SL_I64_DIGITS 20
char *sl_i64_put(char *p, int64_t v);
void sl_strbuf_appendf(sl_strbuf *sb, const char *fmt, ...) SL_PRINTF(2, 3);
void sl_strbuf_appendv(sl_strbuf *sb, const char *fmt, va_list ap);
/* Append s between quote characters q, doubling any q inside ('it''s'). */
void sl_strbuf_append_quoted(sl_strbuf *sb, const char *s, char q);
const char *sl_strbuf_cstr(sl_strbuf *sb); /* never NULL ("" when empty) */
void sl_strbuf_reset(sl_strbuf *sb);       /* len = 0, keeps the memory */
char *sl_strbuf_detach(sl_strbuf *sb);     /* caller owns the string (never NULL) */
void sl_strbuf_free(sl_strbuf *sb);

/* ------------------------------------------------------------------------
** Arena: bump allocation in blocks, freed all at once (PostgreSQL's memory
** contexts in miniature). Used for the strings of a chunk.
*/
typedef struct sl_arena_block sl_arena_block;
typedef struct sl_arena {
    sl_arena_block *head; /* current block (newest first) */
    size_t used;          /* bytes used in head */
    size_t total;         /* bytes handed out since the last reset */
} sl_arena;

#define SL_ARENA_INIT {NULL, 0, 0}
/* n bytes aligned to 16; never NULL. */
void *sl_arena_alloc(sl_arena *a, size_t n);
/* Copy n bytes (not NUL-terminated) into the arena. */
void *sl_arena_memdup(sl_arena *a, const void *p, size_t n);
/* Forget everything allocated; keeps the newest block for reuse. */
void sl_arena_reset(sl_arena *a);
void sl_arena_free(sl_arena *a);

/* ------------------------------------------------------------------------
** Pointer list. Owns nothing: whoever owns the list frees the elements.
*/
typedef struct sl_list {
    void **items; /* the elements */
    int n;        /* number of elements */
    int cap;      /* allocated slots */
} sl_list;

sl_list *sl_list_new(void);
void sl_list_push(sl_list *l, void *item);
/* Free the list itself, calling free_item (if not NULL) on each element. NULL is fine. */
void sl_list_free(sl_list *l, void (*free_item)(void *));
#define sl_list_len(l) ((l) ? (l)->n : 0)
#define sl_list_get(l, i) ((l)->items[i])

/* ------------------------------------------------------------------------
** Ordered key/value list of strings, with source positions of each key and
** value (for errors that point at the offending option). Keys are unique
** where the caller enforces it (sl_kvlist_set replaces).
*/
typedef struct sl_kv {
    char *key;     /* the key as written (without quotes) */
    char *value;   /* the value; NULL for RESET ('key') lists */
    int key_pos;   /* byte offset of the key in the statement, or -1 */
    int value_pos; /* byte offset of the value, or -1 */
} sl_kv;

typedef struct sl_kvlist {
    sl_kv *items; /* the pairs in order */
    int n;        /* number of pairs */
    int cap;      /* allocated pairs */
} sl_kvlist;

sl_kvlist *sl_kvlist_new(void);
/* Append a pair (copies key and value). */
void sl_kvlist_add(sl_kvlist *l, const char *key, const char *value, int key_pos, int value_pos);
/* Replace the value of key if present, else append. */
void sl_kvlist_set(sl_kvlist *l, const char *key, const char *value, int key_pos, int value_pos);
/* Remove key; returns true if it was there. */
bool sl_kvlist_remove(sl_kvlist *l, const char *key);
const sl_kv *sl_kvlist_find(const sl_kvlist *l, const char *key);
const char *sl_kvlist_get(const sl_kvlist *l, const char *key); /* value or NULL */
sl_kvlist *sl_kvlist_dup(const sl_kvlist *l);                   /* NULL in, NULL out */
void sl_kvlist_free(sl_kvlist *l);

/* ------------------------------------------------------------------------
** Files. All return 0 on success, -1 with err set (SQLSTATE 58030 / 58P01).
*/
/* Write data to path atomically (mode 0600, even over a "<path>.tmp" left
** with another mode: catalogs hold secrets): write "<path>.tmp", fsync it,
** rename over path, fsync the directory. A crash leaves either the old or
** the new file. */
int sl_fs_write_atomic(const char *path, const void *data, size_t len, sl_error *err);
/* sl_fs_write_atomic without the directory's fsync: the rename is durable
** only once the caller syncs the directory (sl_fs_sync_dir), once for
** several files written into it. */
int sl_fs_write_replace(const char *path, const void *data, size_t len, sl_error *err);
/* Read a whole file; *out is NUL-terminated and owned by the caller. */
int sl_fs_read_file(const char *path, char **out, size_t *len, sl_error *err);
/* mkdir -p (new directories 0755) */
int sl_fs_mkdir_p(const char *path, sl_error *err);
/* mkdir -p, path itself created with mode (e.g. 0700: the owner's only); a
** directory that exists keeps its mode, new parents get 0755. */
int sl_fs_mkdir_mode(const char *path, unsigned mode, sl_error *err);
bool sl_fs_exists(const char *path);
bool sl_fs_is_dir(const char *path);
/* Take an exclusive OS lock (flock) on the file path, creating it (0600),
** and write our pid into it. The lock belongs to the open file, so a second
** open in the same process conflicts too, and it vanishes when the process
** dies (kill -9 included). 0 with *fd set, or -1: 55006 when another holder
** has it (message names its pid when known), 58030 on I/O errors. */
int sl_fs_lock(const char *path, const char *what, int *fd, sl_error *err);
void sl_fs_unlock(int fd);
/* Remove a file or a directory tree (symlinks are removed, not followed).
** A path that does not exist is success. */
int sl_fs_remove_tree(const char *path, sl_error *err);
/* fsync a directory (after creating or renaming entries in it). */
int sl_fs_sync_dir(const char *dir, sl_error *err);
/* Join two path parts with '/'; caller frees. */
char *sl_path_join(const char *a, const char *b);

/* ------------------------------------------------------------------------
** Text helpers.
*/
/* 1-based line and column (in bytes) of a byte offset into text. */
void sl_text_linecol(const char *text, size_t offset, int *line, int *col);
/* Offset of the first byte of s[0..len) that does not belong to well-formed
** UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF,
** no truncated sequence), or -1 when all of it is well-formed. */
int64_t sl_utf8_invalid(const char *s, size_t len);
/* Code points in s[0..len) (bytes that do not continue a sequence). */
size_t sl_utf8_count(const char *s, size_t len);
/* Byte offset in s[0..len) after its first k code points (len when it has fewer). */
size_t sl_utf8_skip(const char *s, size_t len, size_t k);
/* Value 0..15 of the hex digit c (either case), or -1. */
int sl_hex_digit(char c);
/* Case-insensitive ASCII comparison. */
int sl_strcasecmp(const char *a, const char *b);
int sl_strncasecmp(const char *a, const char *b, size_t n);
/* 64-bit FNV-1a of n bytes, continuing from h (start with SL_HASH_INIT):
** stable across runs and machines, so it may name files and jobs. */
#define SL_HASH_INIT 14695981039346656037ULL
uint64_t sl_hash_bytes(const void *p, size_t n, uint64_t h);
/* Levenshtein distance (case-insensitive), capped at cap+1 for speed. */
int sl_edit_distance(const char *a, const char *b, int cap);
/* The candidate closest to word, or NULL when none is close enough
** (distance <= max(1, strlen(word)/3)). */
const char *sl_did_you_mean(const char *word, const char *const *candidates, int n);

/* ------------------------------------------------------------------------
** Checksums (sl_checksum.c) of what the engine writes and later trusts
** (DESIGN.md section 10): XXH3-64 from libxxhash. A JSON file carries its
** own checksum as one member "checksum": "<16 lower-case hex digits>",
** computed over the file's bytes with those 16 digits written as '0':
** writers put SL_CHECKSUM_MEMBER in the object, dump it, then call
** sl_checksum_embed on the text; readers call sl_checksum_verify on the
** bytes read before parsing them.
*/
#define SL_CHECKSUM_KEY "checksum"
#define SL_CHECKSUM_ZERO "0000000000000000"
/* XXH3-64 of p[0..n). */
uint64_t sl_checksum(const void *p, size_t n);
/* Fill the checksum member of text[0..len) (written as SL_CHECKSUM_ZERO).
** -1 when text has no such member (or more than one). */
int sl_checksum_embed(char *text, size_t len);
/* Check the checksum member of text[0..len): 1 it matches, 0 it does not
** (or it is malformed, or there are several), -1 there is none. */
int sl_checksum_verify(const char *text, size_t len);

/* ------------------------------------------------------------------------
** Logging to stderr. Level from env SLUICE_LOG (error, warn, info, debug);
** default warn (a server: info). Never log secrets: callers pass redacted
** values.
*/
typedef enum sl_log_level { SL_LOG_ERROR, SL_LOG_WARN, SL_LOG_INFO, SL_LOG_DEBUG } sl_log_level;
void sl_log(sl_log_level level, const char *fmt, ...) SL_PRINTF(2, 3);
/* For a long-running process (sluice serve), before its first sl_log: the
** level when SLUICE_LOG is not set, and an ISO-8601 UTC time with
** milliseconds at the start of every line. */
void sl_log_configure(sl_log_level default_level, bool timestamps);

#endif /* SL_BASE_H */
