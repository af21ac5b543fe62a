/*
** output.c — what the shell prints: result tables, command tags, errors and
** notices.
**
** Tables follow the Flink SQL client's tableau style:
**   +-------+--------+
**   |  name |   type |
**   +-------+--------+
**   | event | STRING |
**   +-------+--------+
**   1 row in set
** Numeric columns (header and values) are right-aligned, all others
** left-aligned; SQL NULL prints as <NULL>.
** A result of one column named "create statement" (SHOW CREATE TABLE / VIEW)
** is no table: each value prints as plain text ending in ';', ready to be
** pasted back, then an empty line.
** Widths count display columns of UTF-8 text (East Asian wide characters
** count 2, combining marks 0); control characters (NUL too: values carry
** their length and are shown whole) and invalid bytes are escaped (\t, \r,
** \xNN) so that a value never breaks the table.
**
** Rows are buffered to size the columns; the table streams (header, then
** each row as it comes) past SL_TABLE_MAX_BUFFERED rows or, on a timer
** thread, when rows of a query over a source without end are still coming
** SL_TABLE_STREAM_MS after the first (a bounded result waits, so that its
** table does not depend on timing).
** Ctrl-C closes it with Flink's "Query terminated, received a total of N
** rows". --format csv/tsv/json rows go through format.c as they come;
** result mode 'table' on a terminal goes to the full-screen view (tview.c).
**
** Errors follow psql: severity, message, a LINE block with a caret under the
** error position (secret option values shown as '******'), DETAIL, HINT,
** then the SQLSTATE.
**
** Errors and notices are printed whole (stdout and stderr locked), since
** background jobs print theirs from their own threads.
**
** Main routines: sl_printer_init/finish/free (the sl_result_sink of a
** statement), sl_print_error, sl_print_notice, sl_shell_job_message,
** sl_shell_print_lines.
*/
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shell.h"

#define SL_ERR_LINE_MAX 72   /* display columns of statement text in a LINE block */
#define SL_ERR_RIGHT_KEEP 10 /* columns kept to the right of the caret when cutting */
#define SL_CELL_NULL "<NULL>"
#define SL_RAW_COLUMN "create statement" /* the one column of a result printed as text */

/* ------------------------------------------------------------------------
** UTF-8 and display width.
*/

/* Display columns of code point c: 0 for combining marks and zero-width
** characters, 2 for East Asian wide/fullwidth characters and emoji, else 1.
** A fixed table (not wcwidth) so that output does not depend on the locale. */
static int codepoint_width(uint32_t c)
{
    if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
        (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
        (c >= 0xFE20 && c <= 0xFE2F) || (c >= 0x200B && c <= 0x200F) || c == 0xFEFF ||
        (c >= 0xFE00 && c <= 0xFE0F))
        return 0;
    if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) ||
        (c >= 0x3041 && c <= 0x33FF) || (c >= 0x3400 && c <= 0x4DBF) ||
        (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
        (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
        (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
        (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
        (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
        return 2;
    return 1;
}

/* Decode one UTF-8 sequence of s[0..n) into *cp; returns its byte length, or
** 0 when it is not valid UTF-8 (overlong, surrogate, truncated, > U+10FFFF). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t len = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    uint32_t c = s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

int sl_utf8_char(const char *s, size_t n, size_t *len, bool *valid)
{
    uint32_t c = 0;
    size_t l = utf8_decode((const unsigned char *)s, n, &c);
    *valid = l > 0;
    *len = l > 0 ? l : 1;
    return l > 0 ? codepoint_width(c) : 1;
}

/* Append the display form of a value to sb and return its width (the widest
** of its lines): line breaks stay, so a multi-line value (SHOW CREATE TABLE)
** prints as several table lines; other control characters become \t \r or
** \xNN (a NUL byte too: v[0..n) is the whole value), C1 controls \u00NN,
** invalid bytes \xNN. */
static int cell_escape(sl_strbuf *sb, const char *v, size_t n)
{
    int width = 0, widest = 0;
    for (size_t i = 0; i < n;) {
        unsigned char b = (unsigned char)v[i];
        size_t len;
        bool valid;
        int w = sl_utf8_char(v + i, n - i, &len, &valid);
        if (b == '\n') {
            sl_strbuf_append_char(sb, '\n');
            if (width > widest)
                widest = width;
            width = 0;
        } else if (!valid || b < 0x20 || b == 0x7F) {
            const char *esc = b == '\t' ? "\\t" : b == '\r' ? "\\r" : NULL;
            if (esc)
                sl_strbuf_append(sb, esc);
            else
                sl_strbuf_appendf(sb, "\\x%02X", b);
            width += esc ? 2 : 4;
        } else if (len == 2 && b == 0xC2 && (unsigned char)v[i + 1] < 0xA0) {
            sl_strbuf_appendf(sb, "\\u%04X", (unsigned char)v[i + 1]);
            width += 6;
        } else {
            sl_strbuf_append_n(sb, v + i, len);
            width += w;
        }
        i += len;
    }
    return width > widest ? width : widest;
}

/* Display width of one line (up to '\n' or the end) of an escaped string;
** *len_out receives its length in bytes. */
static int line_width(const char *s, size_t *len_out)
{
    size_t n = strcspn(s, "\n");
    int width = 0;
    for (size_t i = 0; i < n;) {
        size_t len;
        bool valid;
        width += sl_utf8_char(s + i, n - i, &len, &valid);
        i += len;
    }
    *len_out = n;
    return width;
}

/* Byte length of the longest prefix of s that fits in max_width columns;
** *width_out receives its width. */
static size_t prefix_fitting(const char *s, int max_width, int *width_out)
{
    size_t n = strlen(s), i = 0;
    int width = 0;
    while (i < n) {
        size_t len;
        bool valid;
        int w = sl_utf8_char(s + i, n - i, &len, &valid);
        if (width + w > max_width)
            break;
        width += w;
        i += len;
    }
    *width_out = width;
    return i;
}

/* ------------------------------------------------------------------------
** Tables.
*/

static void put_spaces(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputc(' ', f);
}

/* +-----+------+ */
static void table_rule(const sl_printer *p)
{
    fputc('+', stdout);
    for (int c = 0; c < p->ncols; c++) {
        for (int i = 0; i < p->widths[c] + 2; i++)
            fputc('-', stdout);
        fputc('+', stdout);
    }
    fputc('\n', stdout);
}

/* One row of cells, over as many lines as its tallest cell has; cells wider
** than their column (only when streaming) are cut and end in "...". */
static void table_line(const sl_printer *p, char *const *cells)
{
    const char **cur = sl_calloc((size_t)p->ncols + 1, sizeof *cur);
    for (int c = 0; c < p->ncols; c++)
        cur[c] = cells[c];
    for (bool more = true; more;) {
        more = false;
        fputc('|', stdout);
        for (int c = 0; c < p->ncols; c++) {
            const char *s = cur[c];
            int width = p->widths[c];
            size_t bytes = 0;
            int w = s ? line_width(s, &bytes) : 0;
            const char *mark = "";
            if (w > width) { /* only while streaming: cut, ending in "..." */
                mark = width >= 3 ? "..." : "";
                char *line = sl_strndup(s, bytes);
                bytes = prefix_fitting(line, width - (int)strlen(mark), &w);
                sl_free(line);
                w += (int)strlen(mark);
            }
            int pad = width - w;
            bool right = p->right[c];
            fputc(' ', stdout);
            if (right)
                put_spaces(stdout, pad);
            if (s)
                fwrite(s, 1, bytes, stdout);
            fputs(mark, stdout);
            if (!right)
                put_spaces(stdout, pad);
            fputs(" |", stdout);
            if (s) {
                s += strcspn(s, "\n");
                cur[c] = *s == '\n' ? s + 1 : NULL;
                more |= cur[c] != NULL;
            }
        }
        fputc('\n', stdout);
    }
    sl_free(cur);
}

static void table_header(const sl_printer *p)
{
    table_rule(p);
    table_line(p, p->names);
    table_rule(p);
}

static void free_row(sl_printer *p, char **row)
{
    for (int c = 0; c < p->ncols; c++)
        sl_free(row[c]);
    sl_free(row);
}

/* Drop the column description and rows of the current result. */
static void table_reset(sl_printer *p)
{
    for (int i = 0; i < sl_list_len(p->rows); i++)
        free_row(p, sl_list_get(p->rows, i));
    sl_list_free(p->rows, NULL);
    p->rows = NULL;
    for (int c = 0; c < p->ncols; c++) {
        sl_free(p->names[c]);
        sl_free(p->raw_names ? p->raw_names[c] : NULL);
    }
    sl_free(p->names);
    sl_free(p->raw_names);
    p->raw_names = NULL;
    sl_free(p->right);
    sl_free(p->types);
    sl_free(p->widths);
    p->names = NULL;
    p->right = NULL;
    p->types = NULL;
    p->widths = NULL;
    p->ncols = 0;
    p->nrows = 0;
    p->has_result = false;
    p->streaming = false;
    p->raw = false;
}

/* Widest text a value of fixed-width type t can print as (0 = unbounded:
** strings, bytes). Used when streaming, so that numbers, dates and times are
** never cut. */
static int type_max_width(sl_type t)
{
    switch (t.id) {
    case SL_TYPE_BOOLEAN: return 5;
    case SL_TYPE_TINYINT: return 4;
    case SL_TYPE_SMALLINT: return 6;
    case SL_TYPE_INT: return 11;
    case SL_TYPE_BIGINT: return 20;
    case SL_TYPE_FLOAT: return 15;
    case SL_TYPE_DOUBLE: return 24;
    case SL_TYPE_DECIMAL: return t.precision + 2;
    case SL_TYPE_DATE: return 10;
    case SL_TYPE_TIME: return 9 + t.precision;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: return 20 + t.precision;
    case SL_TYPE_INTERVAL_DT:
    case SL_TYPE_INTERVAL_YM: return 24;
    default: return 0;
    }
}

/* Switch to streaming: widen fixed-width columns to their widest value
** (early, on the timer: text columns too, to their declared length up to
** SL_STREAM_TEXT_WIDTH, as Flink's tableau view sizes them), print the
** header and the buffered rows. */
#define SL_STREAM_TEXT_WIDTH 30
static void table_start_streaming(sl_printer *p, bool early)
{
    for (int c = 0; c < p->ncols; c++) {
        int w = type_max_width(p->types[c]);
        if (w == 0 && early && (p->types[c].id == SL_TYPE_VARCHAR || p->types[c].id == SL_TYPE_CHAR))
            w = p->types[c].precision > 0 && p->types[c].precision < SL_STREAM_TEXT_WIDTH
                    ? p->types[c].precision
                    : SL_STREAM_TEXT_WIDTH;
        if (w > p->widths[c])
            p->widths[c] = w;
    }
    flockfile(stdout); /* whole lines: a job's message never lands inside */
    table_header(p);
    for (int i = 0; i < sl_list_len(p->rows); i++) {
        char **row = sl_list_get(p->rows, i);
        table_line(p, row);
        free_row(p, row);
    }
    p->rows->n = 0;
    p->streaming = true;
    fflush(stdout);
    funlockfile(stdout);
}

/* Print the end of the table: bottom rule and the row count. */
static void table_end(sl_printer *p)
{
    if (p->raw) { /* the text is printed: an empty line after it */
        if (p->nrows > 0)
            fputc('\n', stdout);
        return;
    }
    if (p->nrows == 0) {
        fputs("Empty set\n\n", stdout);
        return;
    }
    if (!p->streaming)
        table_header(p);
    for (int i = 0; i < sl_list_len(p->rows); i++)
        table_line(p, sl_list_get(p->rows, i));
    table_rule(p);
    printf("%lld row%s in set\n\n", (long long)p->nrows, p->nrows == 1 ? "" : "s");
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The timer: SL_TABLE_STREAM_MS after the first row, rows still coming
** (the statement has not ended) start streaming, so that an unbounded
** query shows its rows as they arrive. */
static void *stream_timer(void *arg)
{
    sl_printer *p = arg;
    pthread_mutex_lock(&p->mu);
    int64_t at = p->first_row_ms + SL_TABLE_STREAM_MS;
    while (!p->done) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t left = at - now_ms();
        if (left <= 0)
            break;
        ts.tv_sec += left / 1000;
        ts.tv_nsec += (left % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    if (!p->done && p->has_result && !p->streaming && p->rows && sl_list_len(p->rows) > 0)
        table_start_streaming(p, true);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static bool cancelled(const sl_printer *p)
{
    return p->sh->cancel && *p->sh->cancel;
}

/* Start the result's rows: keep the column description; csv / tsv print
** their header now. */
static void result_begin(sl_printer *p, int ncols, const char *const *names, const sl_type *types)
{
    p->has_result = true;
    p->ncols = ncols > 0 ? ncols : 0;
    p->names = sl_calloc((size_t)p->ncols + 1, sizeof *p->names);
    p->raw_names = sl_calloc((size_t)p->ncols + 1, sizeof *p->raw_names);
    p->right = sl_calloc((size_t)p->ncols + 1, sizeof *p->right);
    p->types = sl_calloc((size_t)p->ncols + 1, sizeof *p->types);
    p->widths = sl_calloc((size_t)p->ncols + 1, sizeof *p->widths);
    p->rows = sl_list_new();
    for (int c = 0; c < p->ncols; c++) {
        sl_strbuf sb = SL_STRBUF_INIT;
        const char *name = names && names[c] ? names[c] : "";
        p->widths[c] = cell_escape(&sb, name, strlen(name));
        p->names[c] = sl_strbuf_detach(&sb);
        p->raw_names[c] = sl_strdup(name);
        p->types[c] = types ? types[c] : sl_type_make(SL_TYPE_VARCHAR);
        p->right[c] = sl_type_is_numeric(p->types[c].id);
    }
    if (p->sh->format != SL_FORMAT_TABLE) {
        sl_format_header(p->sh->format, p->ncols, (const char *const *)p->raw_names);
        fflush(stdout);
    }
}

/* Result mode 'table' in the REPL on a terminal: a query's changes (the
** session sends them with the op column, sl_session_set_live_table) go to
** the full-screen view. */
static bool wants_view(const sl_printer *p, int ncols, const char *const *names,
                       const sl_type *types)
{
    return p->sh->table_view && p->sh->format == SL_FORMAT_TABLE && p->sh->session &&
           ncols >= 1 && names && names[0] && strcmp(names[0], "op") == 0 && types &&
           types[0].id == SL_TYPE_CHAR && types[0].precision == 2 &&
           strcmp(sl_session_result_mode(p->sh->session), "table") == 0;
}

static int on_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    sl_printer *p = ctx;
    pthread_mutex_lock(&p->mu);
    if (p->view) { /* a second result: the view shows one */
        pthread_mutex_unlock(&p->mu);
        return 1;
    }
    if (p->has_result) { /* a second result in one statement: print the first */
        if (p->sh->format == SL_FORMAT_TABLE)
            table_end(p);
        table_reset(p);
    }
    if (wants_view(p, ncols, names, types)) {
        p->view = sl_tview_open(p->sh, ncols - 1, names + 1, types + 1);
        if (p->view)
            p->held = sl_list_new();
    }
    result_begin(p, ncols, names, types);
    p->bounded = p->sh->session && sl_session_result_bounded(p->sh->session);
    p->raw = p->sh->format == SL_FORMAT_TABLE && !p->view && ncols == 1 && names && names[0] &&
             strcmp(names[0], SL_RAW_COLUMN) == 0;
    pthread_mutex_unlock(&p->mu);
    return cancelled(p);
}

/* A value of a raw result: its text as is, ending in ';'. */
static void raw_value(const char *v, size_t len)
{
    while (len > 0 && (v[len - 1] == '\n' || v[len - 1] == ' '))
        len--;
    fwrite(v, 1, len, stdout);
    fputs(len > 0 && v[len - 1] == ';' ? "\n" : ";\n", stdout);
    fflush(stdout);
}

static int on_row(void *ctx, const char *const *values, const size_t *lens)
{
    sl_printer *p = ctx;
    if (cancelled(p) && !p->view)
        return 1; /* after Ctrl-C no row more: the terminated line comes next */
    pthread_mutex_lock(&p->mu);
    if (!p->has_result)
        result_begin(p, 0, NULL, NULL);
    p->nrows++;
    if (p->raw) { /* a statement's text (SHOW CREATE), printed as is */
        if (values && values[0])
            raw_value(values[0], lens[0]);
        pthread_mutex_unlock(&p->mu);
        return cancelled(p);
    }
    if (p->view) {
        int stop = sl_tview_change(p->view, values, lens);
        pthread_mutex_unlock(&p->mu);
        return stop || cancelled(p);
    }
    if (p->sh->format != SL_FORMAT_TABLE) {
        sl_format_row(p->sh->format, p->ncols, (const char *const *)p->raw_names, p->types, values,
                      lens);
        fflush(stdout);
        pthread_mutex_unlock(&p->mu);
        return cancelled(p);
    }
    char **row = sl_calloc((size_t)p->ncols + 1, sizeof *row);
    for (int c = 0; c < p->ncols; c++) {
        sl_strbuf sb = SL_STRBUF_INIT;
        int w = values && values[c] ? cell_escape(&sb, values[c], lens[c])
                                    : (sl_strbuf_append(&sb, SL_CELL_NULL), 6);
        row[c] = sl_strbuf_detach(&sb);
        if (!p->streaming && w > p->widths[c])
            p->widths[c] = w;
    }
    if (p->streaming) { /* a row printed whole and flushed */
        flockfile(stdout);
        table_line(p, row);
        fflush(stdout);
        funlockfile(stdout);
        free_row(p, row);
    } else {
        sl_list_push(p->rows, row);
        if (sl_list_len(p->rows) >= SL_TABLE_MAX_BUFFERED) {
            table_start_streaming(p, false);
        } else if (!p->timer_running && !p->bounded) {
            p->first_row_ms = now_ms();
            p->timer_running = pthread_create(&p->timer, NULL, stream_timer, p) == 0;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return cancelled(p);
}

static void on_notice(void *ctx, const sl_error *notice)
{
    sl_printer *p = ctx;
    pthread_mutex_lock(&p->mu);
    if (p->view) { /* printed when the view closes */
        sl_error *copy = sl_calloc(1, sizeof *copy);
        sl_error_copy(copy, notice);
        sl_list_push(p->held, copy);
    } else {
        sl_status_clear(p->sh, false); /* a synchronous INSERT's status line */
        sl_print_notice(p->src, notice);
    }
    pthread_mutex_unlock(&p->mu);
}

static void on_complete(void *ctx, const char *command_tag)
{
    sl_printer *p = ctx;
    pthread_mutex_lock(&p->mu);
    sl_free(p->tag);
    p->tag = sl_strdup(command_tag);
    pthread_mutex_unlock(&p->mu);
}

void sl_printer_init(sl_printer *p, sl_shell *sh, const sl_stmt_src *src, sl_result_sink *sink)
{
    memset(p, 0, sizeof *p);
    p->sh = sh;
    p->src = src;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    *sink = (sl_result_sink){.ctx = p, .begin = on_begin, .row = on_row, .notice = on_notice,
                             .complete = on_complete};
}

/* Ctrl-C cancelled the statement after its result began. */
static bool terminated(const sl_printer *p)
{
    return p->has_result && cancelled(p);
}

void sl_printer_finish(sl_printer *p, bool ok)
{
    pthread_mutex_lock(&p->mu);
    p->done = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->timer_running) {
        pthread_join(p->timer, NULL);
        p->timer_running = false;
    }
    if (p->view) {
        sl_tview_close(p->view, ok && !cancelled(p));
        p->view = NULL;
        for (int i = 0; i < sl_list_len(p->held); i++) {
            sl_error *n = sl_list_get(p->held, i);
            sl_print_notice(p->src, n);
            sl_error_reset(n);
            sl_free(n);
        }
        sl_list_free(p->held, NULL);
        p->held = NULL;
        fflush(stdout);
        return;
    }
    bool table = p->sh->format == SL_FORMAT_TABLE;
    if (terminated(p)) { /* Ctrl-C: the rows so far, then Flink's line */
        if (table && isatty(STDOUT_FILENO))
            fputc('\r', stdout); /* over the terminal's "^C" echo */
        if (table && p->nrows > 0) {
            if (!p->streaming)
                table_start_streaming(p, false);
            table_rule(p);
        }
        fprintf(table ? stdout : stderr, "Query terminated, received a total of %lld row%s\n%s",
                (long long)p->nrows, p->nrows == 1 ? "" : "s", table ? "\n" : "");
    } else if (p->has_result && (ok || p->streaming)) {
        if (!table)
            ; /* csv, tsv, json: every row is out; no count */
        else if (ok)
            table_end(p);
        else
            table_rule(p);
    } else if (ok && p->tag && *p->tag && !p->sh->quiet) {
        printf("%s\n", p->tag);
    }
    fflush(stdout);
    fflush(stderr);
}

void sl_printer_free(sl_printer *p)
{
    table_reset(p);
    sl_free(p->tag);
    p->tag = NULL;
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}

/* ------------------------------------------------------------------------
** Errors and notices.
*/

/* "NAME:LINE:COL: " for a statement of a named script; offset -1 = the
** statement start. */
static void print_prefix(const sl_stmt_src *src, int position)
{
    if (!src || !src->name)
        return;
    size_t at = src->off + (position >= 0 && (size_t)position <= src->len ? (size_t)position : 0);
    int line, col;
    sl_text_linecol(src->text, at, &line, &col);
    fprintf(stderr, "%s:%d:%d: ", src->name, line, col);
}

/* One character of a LINE block: its bytes, display width and what to
** print (a tab or control character prints as one space, an invalid byte as
** '?'). */
typedef struct err_char {
    size_t off;   /* byte offset in the statement */
    size_t len;   /* byte length */
    int width;    /* display columns */
    int col;      /* display column where it starts (from the line start) */
    char subst;   /* 0 = print the bytes; else print this character */
} err_char;

/* Print "LINE n: text" and the caret line for a position inside stmt. The
** line is cut to SL_ERR_LINE_MAX columns around the caret with "..." marks. */
static void print_caret_block(const char *stmt, size_t len, size_t pos)
{
    size_t start = pos, end = pos;
    while (start > 0 && stmt[start - 1] != '\n')
        start--;
    while (end < len && stmt[end] != '\n')
        end++;
    if (end > start && stmt[end - 1] == '\r')
        end--;
    int lineno = 1;
    for (size_t i = 0; i < start; i++)
        lineno += stmt[i] == '\n';

    err_char *ch = sl_calloc(end - start + 1, sizeof *ch);
    int n = 0, col = 0, caret = -1;
    for (size_t i = start; i < end;) {
        size_t l;
        bool valid;
        int w = sl_utf8_char(stmt + i, end - i, &l, &valid);
        unsigned char b = (unsigned char)stmt[i];
        char subst = !valid ? '?' : (b < 0x20 || b == 0x7F) ? ' ' : 0;
        if (subst)
            w = 1;
        if (caret < 0 && i + l > pos)
            caret = col;
        ch[n++] = (err_char){i, l, w, col, subst};
        col += w;
        i += l;
    }
    if (caret < 0)
        caret = col;
    int total = col;

    /* Window [from, to) in display columns. */
    int from = 0, to = total;
    bool cut_left = false, cut_right = false;
    if (total > SL_ERR_LINE_MAX) {
        if (caret <= SL_ERR_LINE_MAX - SL_ERR_RIGHT_KEEP) {
            to = SL_ERR_LINE_MAX - 3;
            cut_right = true;
        } else {
            to = caret + SL_ERR_RIGHT_KEEP;
            if (to >= total)
                to = total;
            else
                cut_right = true;
            from = to - (SL_ERR_LINE_MAX - 3 - (cut_right ? 3 : 0));
            cut_left = true;
        }
    }

    sl_strbuf head = SL_STRBUF_INIT;
    sl_strbuf_appendf(&head, "LINE %d: %s", lineno, cut_left ? "..." : "");
    int shown_from = -1;
    for (int k = 0; k < n; k++) {
        if (ch[k].col < from || ch[k].col + ch[k].width > to)
            continue;
        if (shown_from < 0)
            shown_from = ch[k].col;
        if (ch[k].subst)
            sl_strbuf_append_char(&head, ch[k].subst);
        else
            sl_strbuf_append_n(&head, stmt + ch[k].off, ch[k].len);
    }
    if (shown_from < 0)
        shown_from = from;
    if (cut_right)
        sl_strbuf_append(&head, "...");
    int indent = (int)strlen("LINE : ") + snprintf(NULL, 0, "%d", lineno) + (cut_left ? 3 : 0) +
                 (caret - shown_from);
    fprintf(stderr, "%s\n", sl_strbuf_cstr(&head));
    put_spaces(stderr, indent);
    fputs("^\n", stderr);
    sl_strbuf_free(&head);
    sl_free(ch);
}

static const char *severity_label(sl_severity s)
{
    return s == SL_SEV_WARNING ? "WARNING" : s == SL_SEV_NOTICE ? "NOTICE" : "ERROR";
}

/* DETAIL and HINT lines. */
static void print_detail_hint(const sl_error *e)
{
    if (e->detail && *e->detail)
        fprintf(stderr, "DETAIL:  %s\n", e->detail);
    if (e->hint && *e->hint)
        fprintf(stderr, "HINT:  %s\n", e->hint);
}

void sl_print_error(const sl_stmt_src *src, const sl_error *err)
{
    flockfile(stdout);
    flockfile(stderr);
    fflush(stdout); /* keep results and errors in order when both go to one file */
    print_prefix(src, err->position);
    fprintf(stderr, "ERROR:  %s\n", err->message && *err->message ? err->message : "unknown error");
    if (src && err->position >= 0) {
        const char *stmt = src->text + src->off;
        size_t pos = (size_t)err->position <= src->len ? (size_t)err->position : src->len;
        if (pos == src->len) /* at the end: point just after the last token */
            while (pos > 0 && (stmt[pos - 1] == '\n' || stmt[pos - 1] == '\r' ||
                               stmt[pos - 1] == ' ' || stmt[pos - 1] == '\t'))
                pos--;
        /* The statement as typed, but never a secret value (the caret
        ** moves with the text). */
        sl_strbuf shown = SL_STRBUF_INIT;
        sl_redact_sql(stmt, src->len, &shown, &pos);
        print_caret_block(sl_strbuf_cstr(&shown), shown.len, pos);
        sl_strbuf_free(&shown);
    }
    print_detail_hint(err);
    fprintf(stderr, "SQLSTATE: %s\n", err->sqlstate[0] ? err->sqlstate : SL_ERR_INTERNAL);
    fflush(stderr);
    funlockfile(stderr);
    funlockfile(stdout);
}

void sl_print_notice(const sl_stmt_src *src, const sl_error *notice)
{
    flockfile(stdout);
    flockfile(stderr);
    fflush(stdout);
    print_prefix(src, notice->position);
    fprintf(stderr, "%s:  %s\n", severity_label(notice->severity),
            notice->message ? notice->message : "");
    print_detail_hint(notice);
    fflush(stderr);
    funlockfile(stderr);
    funlockfile(stdout);
}

/* ------------------------------------------------------------------------
** Messages of background jobs.
*/

static void print_job_message(const sl_error *msg)
{
    if (msg->severity == SL_SEV_ERROR)
        sl_print_error(NULL, msg);
    else
        sl_print_notice(NULL, msg);
}

/* Queue m for the REPL and wake it (msg_mu held). */
static void queue_message(sl_shell *sh, sl_shell_msg *m)
{
    sl_list_push(sh->msg_queue, m);
    pthread_kill(sh->msg_reader, SIGUSR1);
}

static void print_lines(bool to_stderr, const char *text, size_t len)
{
    FILE *f = to_stderr ? stderr : stdout;
    flockfile(stdout);
    flockfile(stderr);
    fflush(stdout);
    fwrite(text, 1, len, f);
    fflush(f);
    funlockfile(stderr);
    funlockfile(stdout);
}

void sl_shell_job_message(void *ctx, const sl_error *msg)
{
    sl_shell *sh = ctx;
    pthread_mutex_lock(&sh->msg_mu);
    if (msg->severity == SL_SEV_ERROR)
        sh->job_failed = true;
    if (sh->msg_hold) {
        sl_shell_msg *m = sl_calloc(1, sizeof *m);
        m->err = sl_calloc(1, sizeof *m->err);
        sl_error_copy(m->err, msg);
        queue_message(sh, m);
    } else {
        sl_status_clear(sh, false); /* a synchronous INSERT's status line goes first */
        print_job_message(msg); /* under msg_mu: in order with the queue's */
    }
    pthread_mutex_unlock(&sh->msg_mu);
}

void sl_shell_print_lines(void *ctx, bool to_stderr, const char *text, size_t len)
{
    sl_shell *sh = ctx;
    pthread_mutex_lock(&sh->msg_mu);
    if (sh->msg_hold) {
        sl_shell_msg *m = sl_calloc(1, sizeof *m);
        m->text = sl_malloc(len + 1);
        memcpy(m->text, text, len);
        m->text[len] = '\0';
        m->len = len;
        m->to_stderr = to_stderr;
        queue_message(sh, m);
    } else {
        print_lines(to_stderr, text, len);
    }
    pthread_mutex_unlock(&sh->msg_mu);
}

int sl_shell_flush_messages(sl_shell *sh, bool newline_first)
{
    pthread_mutex_lock(&sh->msg_mu);
    int n = sh->msg_queue->n;
    if (n > 0 && newline_first) {
        fputc('\n', stdout);
        fflush(stdout);
    }
    for (int i = 0; i < n; i++) {
        sl_shell_msg *m = sh->msg_queue->items[i];
        if (m->err) {
            print_job_message(m->err);
            sl_error_reset(m->err);
            sl_free(m->err);
        } else {
            print_lines(m->to_stderr, m->text, m->len);
            sl_free(m->text);
        }
        sl_free(m);
    }
    sh->msg_queue->n = 0;
    pthread_mutex_unlock(&sh->msg_mu);
    return n;
}
