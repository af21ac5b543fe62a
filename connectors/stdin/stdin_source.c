/*
** stdin_source.c — the stdin source: the lines of the process's standard
** input decoded with the table's format.
**
** Lines. The line reader (sl__lines) waits for input with poll(2) on the fd
** and a deadline, reads it in blocks (sl__stdin_block_size, 64 KiB) and
** cuts it at '\n' (where the format's sl_codec_line_end says: a csv record
** continues over line breaks inside quotes, and counts as that many
** lines); a '\r' before the '\n' is dropped (CRLF input), a last
** line without '\n' is a record at end of input, a line may span many
** blocks (the buffer grows) up to sl__stdin_max_line (16 MiB, else 54000
** naming stdin:<line>). Every line is given to sl_codec_decode; the codecs
** skip empty lines (SL_CODEC_NONE), which still count in line numbers.
** The fd is never made non-blocking (its file description is shared with
** the parent process); read() follows a poll() that reported it readable.
**
** One reader. Standard input is one per process, so at most one stdin
** source reads it at a time: with parallelism p, subtask 0 reads and the
** others end at once without rows; a second stdin source opened while one
** is open (another job, or the same table twice in a UNION ALL) fails with
** 55006 instead of splitting the lines between them. The reader's buffer
** and line count outlive the source: a later stdin source in the same
** process continues exactly after the last line handed out, and line
** numbers count from the start of standard input. When the shell reads its
** own statements from standard input it calls sl_stdin_claim_for_script,
** and every stdin source then fails with 55006.
**
** Not replayable. position() is "v1 <lines>": how many lines the job has
** read, counting earlier runs (informational). seek() cannot rewind: the
** restored job continues with whatever standard input delivers next (a
** warning says so), and its sinks give at most the guarantee 'none'.
**
** A malformed record fails the source (22P02, the codec's message; the
** detail adds `in stdin:<line>: <record>` with the first 200 bytes of the
** record); with '<format>.ignore-parse-errors' the codec skips it and
** skipped() counts it.
**
** poll returns within about 100 ms: it waits for input only while it has
** no rows to hand out, and at most until 100 ms after it was called.
**
** Main routines: sl__lines_next, sl_stdin_claim_for_script,
** sl__stdin_source_create and the sl_source_ops below.
*/
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "stdin_int.h"

#define SL__STDIN_POLL_NS    (100 * 1000000LL) /* longest time one poll takes */
#define SL__STDIN_SHOW_BYTES 200               /* bytes of a bad record in messages */

size_t sl__stdin_block_size = 64 * 1024;
size_t sl__stdin_max_line = 16 * 1024 * 1024;

/* ------------------------------------------------------------------------
** The line reader.
*/
void sl__lines_init(sl__lines *L, int fd, size_t block, size_t max_line)
{
    memset(L, 0, sizeof *L);
    L->fd = fd;
    L->block = block ? block : 1;
    L->max_line = max_line;
}

void sl__lines_fini(sl__lines *L)
{
    sl_free(L->buf);
    L->buf = NULL;
    L->start = L->len = L->cap = L->scanned = L->pending = 0;
}

static int sl__lines_too_long(const sl__lines *L, const char *name, sl_error *err)
{
    sl_error_set(err, SL_ERR_PROGRAM_LIMIT, -1, "record too long in %s:%" PRId64, name,
                 L->line + 1);
    sl_error_detail(err, "A line (record) may hold at most %zu bytes.", L->max_line);
    return -1;
}

/* Wait for input until deadline_ns and read one block. 1 when bytes were
** read or the input ended, 0 when nothing came in time (or a signal
** interrupted the wait), -1 with err. */
static int sl__lines_fill(sl__lines *L, int64_t deadline_ns, const char *name, sl_error *err)
{
    if (L->start > 0) {
        memmove(L->buf, L->buf + L->start, L->len - L->start);
        L->len -= L->start;
        L->start = 0;
    }
    if (L->cap - L->len < L->block) { /* grow geometrically: long lines stay linear */
        L->cap = L->len + L->block > 2 * L->cap ? L->len + L->block : 2 * L->cap;
        L->buf = sl_realloc(L->buf, L->cap);
    }
    for (;;) {
        int64_t left = deadline_ns - sl_monotonic_nanos();
        if (left > 1000000000)
            left = 1000000000;
        int timeout_ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
        struct pollfd pfd = {.fd = L->fd, .events = POLLIN};
        int n = poll(&pfd, 1, timeout_ms);
        if (n < 0 && errno != EINTR)
            return sl_error_set(err, SL_ERR_IO, -1, "could not read %s: %s", name, strerror(errno));
        if (n <= 0)
            return 0; /* timed out, or a signal: the caller's task checks its stop flag */
        if (pfd.revents & POLLNVAL)
            return sl_error_set(err, SL_ERR_IO, -1, "could not read %s: it is not open", name);
        ssize_t r = read(L->fd, L->buf + L->len, L->block);
        if (r > 0) {
            L->len += (size_t)r;
            return 1;
        }
        if (r == 0) {
            L->eof = true;
            return 1;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0; /* a non-blocking input another process drained first */
        if (errno != EINTR)
            return sl_error_set(err, SL_ERR_IO, -1, "could not read %s: %s", name, strerror(errno));
    }
}

int sl__lines_next(sl__lines *L, int64_t deadline_ns, const char *name, const char **rec,
                   size_t *len, sl_error *err)
{
    for (;;) {
        const char *base = L->buf + L->start;
        size_t avail = L->len - L->start, n = 0, end;
        if (L->codec) {
            end = sl_codec_line_end(L->codec, base, avail, &L->scanned, &n);
        } else {
            const char *nl =
                avail > L->scanned ? memchr(base + L->scanned, '\n', avail - L->scanned) : NULL;
            end = nl ? (size_t)(nl - base) : avail;
            L->scanned = end;
            n = end > 0 && base[end - 1] == '\r' ? end - 1 : end;
        }
        if (end < avail) {
            L->pending = end + 1;
        } else {
            if (avail > L->max_line + 1) /* + 1: a '\r' before the '\n' to come */
                return sl__lines_too_long(L, name, err);
            if (!L->eof) {
                int rc = sl__lines_fill(L, deadline_ns, name, err);
                if (rc <= 0)
                    return rc < 0 ? -1 : SL__LINES_WAIT;
                continue;
            }
            if (avail == 0)
                return SL__LINES_EOF;
            L->pending = avail; /* the last line, without '\n' (n: without a '\r') */
        }
        L->pending_lines = 1;
        for (const char *p = memchr(base, '\n', n); p; /* a multi-line record (csv quotes) */
             p = memchr(p + 1, '\n', n - (size_t)(p + 1 - base)))
            L->pending_lines++;
        if (n > L->max_line)
            return sl__lines_too_long(L, name, err);
        *rec = base;
        *len = n;
        return SL__LINES_LINE;
    }
}

void sl__lines_consume(sl__lines *L)
{
    SL_ALWAYS(L->pending > 0 && L->pending <= L->len - L->start);
    L->start += L->pending;
    L->pending = 0;
    L->scanned = 0;
    L->line += L->pending_lines ? L->pending_lines : 1;
    L->pending_lines = 0;
    if (L->start == L->len)
        L->start = L->len = 0;
}

/* ------------------------------------------------------------------------
** Standard input: one reader per process.
*/
static pthread_mutex_t sl__stdin_mu = PTHREAD_MUTEX_INITIALIZER;
static bool sl__stdin_script; /* the shell reads its statements from standard input */
static char *sl__stdin_owner; /* table of the open stdin source, NULL when none */
static sl__lines sl__stdin_reader = {.fd = STDIN_FILENO}; /* owned by sl__stdin_owner */

void sl_stdin_claim_for_script(void)
{
    pthread_mutex_lock(&sl__stdin_mu);
    sl__stdin_script = true;
    pthread_mutex_unlock(&sl__stdin_mu);
}

void sl__stdin_reset(int fd)
{
    pthread_mutex_lock(&sl__stdin_mu);
    SL_ALWAYS(sl__stdin_owner == NULL);
    sl__lines_fini(&sl__stdin_reader);
    sl__lines_init(&sl__stdin_reader, fd, sl__stdin_block_size, sl__stdin_max_line);
    sl__stdin_script = false;
    pthread_mutex_unlock(&sl__stdin_mu);
}

/* Make table the reader of standard input, its records framed by codec. 0,
** or -1 with err: 55006 when the shell or another source has it, 58030
** when there is none. */
static int sl__stdin_claim(const char *table, sl_codec *codec, sl_error *err)
{
    int rc = 0, fdflags;
    pthread_mutex_lock(&sl__stdin_mu);
    if (sl__stdin_script) {
        rc = sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                          "standard input is in use: the shell reads its statements from it");
        sl_error_detail(err, "Table \"%s\" reads standard input (connector 'stdin').", table);
        sl_error_hint(err, "Give the statements with -f FILE or -e so that standard input is "
                           "free for data.");
    } else if (sl__stdin_owner) {
        rc = sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                          "standard input is already being read by table \"%s\"", sl__stdin_owner);
        sl_error_detail(err, "Only one stdin source can read standard input at a time; a second "
                             "one would split the lines between them.");
        sl_error_hint(err, "Stop the job that reads it first, or give the data of the second "
                           "table in a file (connector 'filesystem').");
    } else if ((fdflags = fcntl(sl__stdin_reader.fd, F_GETFD)) < 0 || (fdflags & FD_CLOEXEC)) {
        /* Inherited descriptors never have FD_CLOEXEC; this process opens
        ** its own files with it. So fd 0 with it is a file of ours that took
        ** the number of a standard input the process was started without. */
        rc = sl_error_set(err, SL_ERR_IO, -1, "standard input is not open");
        sl_error_detail(err, "The process was started with standard input closed.");
    } else {
        sl__stdin_owner = sl_strdup(table);
        sl__stdin_reader.codec = codec;
        sl__stdin_reader.scanned = 0; /* the scanner starts at the next record */
        sl__stdin_reader.block = sl__stdin_block_size ? sl__stdin_block_size : 1;
        sl__stdin_reader.max_line = sl__stdin_max_line;
    }
    pthread_mutex_unlock(&sl__stdin_mu);
    return rc;
}

static void sl__stdin_release(void)
{
    pthread_mutex_lock(&sl__stdin_mu);
    sl_free(sl__stdin_owner);
    sl__stdin_owner = NULL;
    sl__stdin_reader.codec = NULL;
    sl__stdin_reader.scanned = 0;
    if (sl__stdin_reader.start == sl__stdin_reader.len) /* nothing left for a later reader */
        sl__lines_fini(&sl__stdin_reader);
    pthread_mutex_unlock(&sl__stdin_mu);
}

/* ------------------------------------------------------------------------
** The source.
*/
typedef struct sl__stdin_source {
    bool reader;        /* subtask 0: owns standard input (the others read nothing) */
    sl_codec *codec;    /* the table's format */
    int64_t skipped;    /* records skipped as malformed */
    int64_t restored;   /* lines read by the runs before the restored checkpoint */
    int64_t first_line; /* the reader's line count when this source opened */
    bool ended;         /* end of input handed out */
} sl__stdin_source;

/* Add "in stdin:<line>: <record>" to the detail of err. */
static void sl__stdin_locate_error(sl_error *err, int64_t line, const char *rec, size_t len)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    if (err->detail && err->detail[0])
        sl_strbuf_appendf(&sb, "%s\n", err->detail);
    sl_strbuf_appendf(&sb, "in stdin:%" PRId64 ": ", line);
    size_t n = len;
    if (n > SL__STDIN_SHOW_BYTES) {
        n = SL__STDIN_SHOW_BYTES;
        while (n > 0 && ((unsigned char)rec[n] & 0xC0) == 0x80)
            n--; /* do not cut a UTF-8 sequence */
    }
    sl_strbuf_append_n(&sb, rec, n);
    if (n < len)
        sl_strbuf_append(&sb, "...");
    sl_error_detail(err, "%s", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
}

static int sl__stdin_poll(sl_source *src, sl_chunk *out, sl_error *err)
{
    sl__stdin_source *s = src->impl;
    if (!s->reader || s->ended)
        return SL_SOURCE_END;
    sl__lines *L = &sl__stdin_reader;
    int64_t until = sl_monotonic_nanos() + SL__STDIN_POLL_NS;
    while (!sl_chunk_full(out)) {
        int64_t now = sl_monotonic_nanos();
        if (now >= until) /* also while only empty or skipped lines come */
            return SL_SOURCE_MORE;
        const char *rec;
        size_t len;
        /* Wait for input only while there is nothing to hand out. */
        int rc = sl__lines_next(L, out->nrows > 0 ? now : until, "stdin", &rec, &len, err);
        if (rc < 0)
            return -1;
        if (rc == SL__LINES_WAIT)
            return SL_SOURCE_MORE;
        if (rc == SL__LINES_EOF) {
            s->ended = true;
            return SL_SOURCE_END;
        }
        int d = sl_codec_decode(s->codec, rec, len, out, err);
        if (d < 0) {
            if (!sl_error_isset(err))
                sl_error_set(err, SL_ERR_INVALID_TEXT, -1, "malformed record");
            sl__stdin_locate_error(err, L->line + 1, rec, len);
            return -1;
        }
        if (d == SL_CODEC_SKIPPED)
            s->skipped++;
        sl__lines_consume(L);
    }
    return SL_SOURCE_MORE;
}

static int sl__stdin_position(sl_source *src, sl_strbuf *out, sl_error *err)
{
    sl__stdin_source *s = src->impl;
    int64_t mine = s->reader ? sl__stdin_reader.line - s->first_line : 0;
    sl_strbuf_appendf(out, "v1 %" PRId64, s->restored + mine);
    return 0;
}

static int sl__stdin_seek(sl_source *src, const char *pos, size_t len, sl_error *err)
{
    sl__stdin_source *s = src->impl;
    int64_t v = 0;
    size_t i = 3;
    bool ok = len > 3 && memcmp(pos, "v1 ", 3) == 0;
    for (; ok && i < len; i++) {
        ok = pos[i] >= '0' && pos[i] <= '9' && v <= (INT64_MAX - 9) / 10;
        v = v * 10 + (pos[i] - '0');
    }
    if (!ok) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid stdin source position");
        sl_error_detail(err, "The stored position is \"%.*s\".", (int)(len > 200 ? 200 : len), pos);
        return -1;
    }
    s->restored = v;
    if (s->reader)
        sl_log(SL_LOG_WARN,
               "stdin source: standard input cannot be rewound; the restored job continues with "
               "the lines that come next (%" PRId64 " lines were read before the checkpoint)",
               v);
    return 0;
}

static int64_t sl__stdin_skipped(sl_source *src)
{
    sl__stdin_source *s = src->impl;
    return s->skipped;
}

static void sl__stdin_source_free(sl_source *src)
{
    if (!src)
        return;
    sl__stdin_source *s = src->impl;
    if (s->reader)
        sl__stdin_release();
    sl_codec_free(s->codec);
    sl_free(s);
    sl_free(src);
}

static const sl_source_ops sl__stdin_source_ops = {
    .poll = sl__stdin_poll,
    .position = sl__stdin_position,
    .seek = sl__stdin_seek,
    .skipped = sl__stdin_skipped,
    .free = sl__stdin_source_free,
};

int sl__stdin_source_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    *out = NULL;
    sl_codec *codec = sl_codec_new(args->options, args->ncols, args->names, args->types, err);
    if (!codec)
        return -1;
    bool reader = args->subtask == 0;
    if (reader && sl__stdin_claim(args->table ? args->table : "?", codec, err) != 0) {
        sl_codec_free(codec);
        return -1;
    }
    sl__stdin_source *s = sl_calloc(1, sizeof *s);
    s->reader = reader;
    s->codec = codec;
    s->first_line = reader ? sl__stdin_reader.line : 0;
    sl_source *src = sl_calloc(1, sizeof *src);
    src->ops = &sl__stdin_source_ops;
    src->impl = s;
    *out = src;
    return 0;
}
