/*
** stdin_int.h — internals shared by the stdin connector's files (stdin.c:
** declaration; stdin_source.c: the line reader, the claim on standard input
** and the source). Not a public header: only files under connectors/stdin/
** and the connector's unit test include it.
**
** The line reader is a small module of its own (sl__lines_*) so the unit
** test can drive it on a pipe: it reads an fd in blocks with poll(2) and a
** deadline, and cuts the bytes into lines.
*/
#ifndef SL_STDIN_INT_H
#define SL_STDIN_INT_H

#include "../sl_connector_int.h"

/* Create function attached to sl__connector_stdin. */
int sl__stdin_source_create(const sl_source_args *args, sl_source **out, sl_error *err);

/* ------------------------------------------------------------------------
** The line reader: the lines of an fd, read without ever blocking past a
** deadline. A line ends at '\n' (where sl_codec_line_end of codec says,
** when set: a csv record continues over line breaks inside quotes); the
** '\n' and a '\r' before it are not part of the record. At end of input a
** last line without '\n' is a record; an
** empty input has none. A line may be longer than a block (the buffer
** grows), up to max_line bytes.
*/
typedef struct sl__lines {
    int fd;          /* the input (0 = standard input) */
    size_t block;    /* bytes per read() */
    size_t max_line; /* longest record accepted (bytes, without the line break) */
    char *buf;       /* bytes read; buf[start] is the first unconsumed one */
    size_t start;    /* first unconsumed byte */
    size_t len;      /* bytes in buf */
    size_t cap;      /* bytes allocated */
    size_t scanned;  /* bytes after start the line scanner has seen */
    size_t pending;  /* bytes of the record last returned (with its line break) */
    int64_t pending_lines; /* lines of that record (1, more for a multi-line record) */
    sl_codec *codec; /* where records end (NULL: at every '\n'); not owned */
    int64_t line;    /* lines consumed so far (the next one is line + 1) */
    bool eof;        /* read() returned 0 */
} sl__lines;

#define SL__LINES_WAIT 0 /* no complete line before the deadline */
#define SL__LINES_LINE 1 /* *rec, *len: the next record (consume it with sl__lines_consume) */
#define SL__LINES_EOF  2 /* end of input, every line consumed */

/* A reader of fd with the given block size and line limit. */
void sl__lines_init(sl__lines *L, int fd, size_t block, size_t max_line);
/* Free the buffer (the fd is not closed). */
void sl__lines_fini(sl__lines *L);
/* The next record, waiting for input until deadline_ns (monotonic clock;
** a deadline already past still takes what can be read at once). Returns
** SL__LINES_LINE (the record is rec[0..len), valid until the next call;
** it stays the next record until sl__lines_consume), SL__LINES_WAIT,
** SL__LINES_EOF, or -1 with err: 54000 for a line longer than max_line,
** 58030 when the input cannot be read. name ("stdin") is for messages. */
int sl__lines_next(sl__lines *L, int64_t deadline_ns, const char *name, const char **rec,
                   size_t *len, sl_error *err);
/* Consume the record the last sl__lines_next returned (line + its lines). */
void sl__lines_consume(sl__lines *L);

/* ------------------------------------------------------------------------
** Process-wide state (standard input is one per process). Test hooks.
*/
extern size_t sl__stdin_block_size; /* bytes per read(): 64 KiB */
extern size_t sl__stdin_max_line;   /* longest record: 16 MiB */

/* Forget the shared reader and the script claim, and read fd from now on
** (tests: a pipe). Only while no stdin source is open. */
void sl__stdin_reset(int fd);

#endif /* SL_STDIN_INT_H */
