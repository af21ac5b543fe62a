/*
** tview.c — result mode 'table' in the REPL on a terminal: the query's
** result kept as a table (sl_result_table: every change applied as it
** comes) and shown full-screen, refreshed as it changes, as the Flink SQL
** client's table view (CliTableResultView) does:
**
**    SQL Query Result (Table)                       <- title bar
**    Refresh: live   Page: Last of 3   Rows: 61   Updated: 10:04:05.123
**
**    name     cnt                                   <- column names
**    alice      4                                   <- one page of rows
**    ...
**
**    Q Quit  Up/Down Row  PgUp/P Prev page  PgDn/N Next page  Home/g First  End/G Last
**
** The view uses the terminal's alternate screen; a thread of its own reads
** the keys (the terminal in non-canonical mode, no echo; Ctrl-C still
** raises SIGINT, which cancels the query) and redraws at most every
** SL_TVIEW_REFRESH_MS. While the view is on the last page it follows new
** rows. q (or Ctrl-C) leaves — cancelling the query when it still runs —
** and the normal screen and the terminal's modes come back. Columns are as
** wide as the widest value on the page (at most SL_TVIEW_COL_MAX, longer
** values cut with "..."); numbers right-aligned; NULL as <NULL>.
**
** Main routines: sl_tview_open, sl_tview_change, sl_tview_close.
*/
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "shell.h"

#define SL_TVIEW_REFRESH_MS 100 /* at most this often a redraw; keys are read meanwhile */
#define SL_TVIEW_COL_MAX 30     /* widest column */
#define SL_TVIEW_GAP 2          /* spaces after each column */
#define SL_TVIEW_CHROME 5       /* lines that are not rows: title, status, blank, names, keys */

struct sl_tview {
    sl_shell *sh;
    int ncols;                /* columns (the op column is not one) */
    char **names;             /* their names */
    bool *right;              /* right-aligned (numbers) */
    sl_result_table *table;   /* the materialized result */
    pthread_mutex_t mu;       /* guards everything below (the job's threads apply changes) */
    pthread_t thread;         /* reads keys and redraws */
    bool running;             /* thread was started */
    bool dirty;               /* changed since the last redraw */
    bool finished;            /* the query ended */
    bool failed;              /* ... failed or was cancelled */
    bool quit;                /* the user left (q, Ctrl-C) */
    int64_t top;              /* first row shown (an index among the alive rows) */
    bool follow;              /* on the last page: keep showing the newest rows */
    char updated[16];         /* when the table last changed (HH:MM:SS.mmm) */
    struct termios saved;     /* the terminal's modes before */
};

/* Rows that fit on the screen, and its width. */
static void screen_size(int *rows, int *cols)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
        *rows = ws.ws_row;
        *cols = ws.ws_col;
    } else {
        *rows = 24;
        *cols = 80;
    }
}

static int page_rows(void)
{
    int rows, cols;
    screen_size(&rows, &cols);
    return rows > SL_TVIEW_CHROME + 1 ? rows - SL_TVIEW_CHROME : 1;
}

static void stamp(char *out, size_t n)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    time_t t = ts.tv_sec;
    localtime_r(&t, &tm);
    snprintf(out, n, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)(ts.tv_nsec / 1000000));
}

/* Display form of a value cut to at most max columns: control characters
** as spaces, invalid bytes as '?', "..." when cut. Returns its width. */
static int cell(sl_strbuf *sb, const char *v, size_t n, int max)
{
    sl_strbuf_reset(sb);
    if (!v) {
        sl_strbuf_append(sb, "<NULL>");
        return 6;
    }
    int width = 0;
    for (size_t i = 0; i < n;) {
        size_t len;
        bool valid;
        int w = sl_utf8_char(v + i, n - i, &len, &valid);
        unsigned char b = (unsigned char)v[i];
        if (width + w > max || (width + w == max && i + len < n)) {
            while (width > max - 3 && sb->len > 0) { /* room for "..." */
                size_t k = sb->len - 1;
                while (k > 0 && ((unsigned char)sb->buf[k] & 0xC0) == 0x80)
                    k--;
                size_t cl;
                bool cv;
                width -= sl_utf8_char(sb->buf + k, sb->len - k, &cl, &cv);
                sb->len = k;
                sb->buf[k] = '\0';
            }
            sl_strbuf_append(sb, "...");
            return width + 3;
        }
        if (!valid)
            sl_strbuf_append_char(sb, '?');
        else if (b < 0x20 || b == 0x7F)
            sl_strbuf_append_char(sb, ' ');
        else
            sl_strbuf_append_n(sb, v + i, len);
        width += valid && b >= 0x20 && b != 0x7F ? w : 1;
        i += len;
    }
    return width;
}

/* Append s (width w) padded to width, cut at the screen's edge (*used
** columns so far of cols). */
static void put_cell(sl_strbuf *line, const char *s, int w, int width, bool right, int *used,
                     int cols)
{
    if (*used >= cols)
        return;
    int pad = width > w ? width - w : 0;
    if (*used + width + SL_TVIEW_GAP > cols) { /* the last visible column: as much as fits */
        int room = cols - *used;
        for (int i = 0; i < room; i++)
            sl_strbuf_append_char(line, ' ');
        *used = cols;
        return;
    }
    for (int i = 0; right && i < pad; i++)
        sl_strbuf_append_char(line, ' ');
    sl_strbuf_append(line, s);
    for (int i = 0; !right && i < pad; i++)
        sl_strbuf_append_char(line, ' ');
    for (int i = 0; i < SL_TVIEW_GAP; i++)
        sl_strbuf_append_char(line, ' ');
    *used += width + SL_TVIEW_GAP;
}

/* Draw the whole screen (mu held). */
static void redraw(sl_tview *v)
{
    int rows, cols;
    screen_size(&rows, &cols);
    int page = rows > SL_TVIEW_CHROME + 1 ? rows - SL_TVIEW_CHROME : 1;
    int64_t total = sl_result_table_count(v->table);
    int64_t pages = total > 0 ? (total + page - 1) / page : 1;
    if (v->follow)
        v->top = (pages - 1) * page;
    if (v->top > total - 1)
        v->top = total > 0 ? ((total - 1) / page) * page : 0;
    if (v->top < 0)
        v->top = 0;

    /* The rows of this page, and the columns' widths over them. */
    int *ids = sl_calloc((size_t)page + 1, sizeof *ids);
    int n = 0;
    int64_t k = 0;
    for (int i = sl_result_table_next(v->table, -1); i >= 0 && n < page;
         i = sl_result_table_next(v->table, i), k++)
        if (k >= v->top)
            ids[n++] = i;
    int *widths = sl_calloc((size_t)v->ncols + 1, sizeof *widths);
    sl_strbuf c = SL_STRBUF_INIT;
    for (int j = 0; j < v->ncols; j++) {
        widths[j] = cell(&c, v->names[j], strlen(v->names[j]), SL_TVIEW_COL_MAX);
        for (int r = 0; r < n; r++) {
            const size_t *lens;
            const char *const *vals = sl_result_table_row(v->table, ids[r], &lens);
            int w = cell(&c, vals[j], vals[j] ? lens[j] : 0, SL_TVIEW_COL_MAX);
            if (w > widths[j])
                widths[j] = w;
        }
    }

    sl_strbuf out = SL_STRBUF_INIT;
    sl_strbuf_append(&out, "\033[H\033[2J"); /* home, clear */
    /* Title bar. */
    const char *title = "SQL Query Result (Table)";
    int tl = (int)strlen(title), left = cols > tl ? (cols - tl) / 2 : 0;
    sl_strbuf_append(&out, "\033[7m");
    for (int i = 0; i < cols; i++)
        sl_strbuf_append_char(&out, i >= left && i < left + tl ? title[i - left] : ' ');
    sl_strbuf_append(&out, "\033[0m\r\n");
    /* Status line. */
    sl_strbuf st = SL_STRBUF_INIT;
    const char *state = !v->finished ? "Refresh: live" : v->failed ? "Query ended early"
                                                                   : "Query finished";
    int64_t cur = v->top / page + 1;
    if (cur == pages)
        sl_strbuf_appendf(&st, " %s   Page: Last of %lld   Rows: %lld   Updated: %s", state,
                          (long long)pages, (long long)total, v->updated);
    else
        sl_strbuf_appendf(&st, " %s   Page: %lld of %lld   Rows: %lld   Updated: %s", state,
                          (long long)cur, (long long)pages, (long long)total, v->updated);
    if ((int)st.len > cols)
        st.len = (size_t)cols, st.buf[cols] = '\0';
    sl_strbuf_append(&out, sl_strbuf_cstr(&st));
    sl_strbuf_append(&out, "\r\n\r\n");
    sl_strbuf_free(&st);
    /* Column names, then the rows. */
    sl_strbuf line = SL_STRBUF_INIT;
    int used = 0;
    sl_strbuf_append(&out, "\033[1m");
    for (int j = 0; j < v->ncols; j++) {
        int w = cell(&c, v->names[j], strlen(v->names[j]), SL_TVIEW_COL_MAX);
        put_cell(&line, sl_strbuf_cstr(&c), w, widths[j], v->right[j], &used, cols);
    }
    sl_strbuf_append(&out, sl_strbuf_cstr(&line));
    sl_strbuf_append(&out, "\033[0m\r\n");
    for (int r = 0; r < page; r++) {
        sl_strbuf_reset(&line);
        used = 0;
        if (r < n) {
            const size_t *lens;
            const char *const *vals = sl_result_table_row(v->table, ids[r], &lens);
            for (int j = 0; j < v->ncols; j++) {
                int w = cell(&c, vals[j], vals[j] ? lens[j] : 0, SL_TVIEW_COL_MAX);
                put_cell(&line, sl_strbuf_cstr(&c), w, widths[j], v->right[j], &used, cols);
            }
        }
        sl_strbuf_append(&out, sl_strbuf_cstr(&line));
        sl_strbuf_append(&out, "\r\n");
    }
    /* Keys. */
    const char *keys = " Q Quit  Up/Down Row  PgUp/P Prev page  PgDn/N Next page  Home/g First  End/G Last";
    int kl = (int)strlen(keys);
    sl_strbuf_append(&out, "\033[7m");
    for (int i = 0; i < cols; i++)
        sl_strbuf_append_char(&out, i < kl ? keys[i] : ' ');
    sl_strbuf_append(&out, "\033[0m");
    fwrite(out.buf, 1, out.len, stdout);
    fflush(stdout);
    sl_strbuf_free(&out);
    sl_strbuf_free(&line);
    sl_strbuf_free(&c);
    sl_free(widths);
    sl_free(ids);
    v->dirty = false;
}

/* Move the page by delta rows (mu held). */
static void scroll(sl_tview *v, int64_t delta)
{
    int page = page_rows();
    int64_t total = sl_result_table_count(v->table);
    int64_t last = total > 0 ? ((total - 1) / page) * page : 0;
    int64_t top = v->top + delta;
    if (top > last)
        top = last;
    if (top < 0)
        top = 0;
    v->top = top;
    v->follow = top == last;
    v->dirty = true;
}

/* Handle the keys in buf[0..n) (mu held). */
static void keys(sl_tview *v, const char *buf, ssize_t n)
{
    int page = page_rows();
    for (ssize_t i = 0; i < n; i++) {
        char ch = buf[i];
        if (ch == 'q' || ch == 'Q' || ch == 3) {
            v->quit = true;
        } else if (ch == 'n' || ch == 'N' || ch == ' ') {
            scroll(v, page);
        } else if (ch == 'p' || ch == 'P') {
            scroll(v, -page);
        } else if (ch == 'g') {
            scroll(v, -v->top);
        } else if (ch == 'G' || ch == 'l' || ch == 'L') {
            scroll(v, INT64_MAX / 2);
        } else if (ch == '\033' && i + 2 < n && (buf[i + 1] == '[' || buf[i + 1] == 'O')) {
            char k = buf[i + 2];
            bool tilde = i + 3 < n && buf[i + 3] == '~';
            if (k == 'A')
                scroll(v, -1);
            else if (k == 'B')
                scroll(v, 1);
            else if (k == 'H' || (k == '1' && tilde))
                scroll(v, -v->top);
            else if (k == 'F' || (k == '4' && tilde))
                scroll(v, INT64_MAX / 2);
            else if (k == '5' && tilde)
                scroll(v, -page);
            else if (k == '6' && tilde)
                scroll(v, page);
            i += tilde ? 3 : 2;
        }
    }
}

/* The view's thread: keys, Ctrl-C, redraws, until the user leaves or the
** query ended after being cancelled. */
static void *view_main(void *arg)
{
    sl_tview *v = arg;
    for (;;) {
        struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
        int r = poll(&pfd, 1, SL_TVIEW_REFRESH_MS);
        char buf[64];
        ssize_t n = 0;
        bool gone = false;
        if (r > 0 && (pfd.revents & POLLIN)) {
            n = read(STDIN_FILENO, buf, sizeof buf);
            gone = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
        } else if (r > 0) {
            gone = true; /* POLLHUP, POLLERR */
        }
        pthread_mutex_lock(&v->mu);
        if (n > 0)
            keys(v, buf, n);
        if (gone)
            v->quit = true; /* the terminal went away */
        if (v->sh->cancel && *v->sh->cancel) /* Ctrl-C */
            v->quit = true;
        if (v->quit && !v->finished && v->sh->cancel)
            *v->sh->cancel = 1; /* the query stops even when no row comes */
        bool end = v->quit;
        if (!end && v->dirty)
            redraw(v);
        pthread_mutex_unlock(&v->mu);
        if (end)
            return NULL;
    }
}

sl_tview *sl_tview_open(sl_shell *sh, int ncols, const char *const *names, const sl_type *types)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return NULL;
    sl_tview *v = sl_calloc(1, sizeof *v);
    if (tcgetattr(STDIN_FILENO, &v->saved) != 0) {
        sl_free(v);
        return NULL;
    }
    struct termios raw = v->saved;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_lflag |= ISIG; /* Ctrl-C still cancels */
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    v->sh = sh;
    v->ncols = ncols > 0 ? ncols : 0;
    v->names = sl_calloc((size_t)v->ncols + 1, sizeof *v->names);
    v->right = sl_calloc((size_t)v->ncols + 1, sizeof *v->right);
    for (int j = 0; j < v->ncols; j++) {
        v->names[j] = sl_strdup(names[j] ? names[j] : "");
        v->right[j] = types && sl_type_is_numeric(types[j].id);
    }
    v->table = sl_result_table_new(v->ncols);
    v->follow = true;
    v->dirty = true;
    stamp(v->updated, sizeof v->updated);
    pthread_mutex_init(&v->mu, NULL);
    fputs("\033[?1049h\033[?25l", stdout); /* the alternate screen, no cursor */
    pthread_mutex_lock(&v->mu);
    redraw(v);
    pthread_mutex_unlock(&v->mu);
    v->running = pthread_create(&v->thread, NULL, view_main, v) == 0;
    if (!v->running) {
        sl_tview_close(v, false);
        return NULL;
    }
    return v;
}

int sl_tview_change(sl_tview *v, const char *const *values, const size_t *lens)
{
    pthread_mutex_lock(&v->mu);
    if (values && !v->quit) {
        sl_result_table_apply(v->table, values[0], values + 1, lens + 1);
        stamp(v->updated, sizeof v->updated);
        v->dirty = true;
    }
    int quit = v->quit;
    pthread_mutex_unlock(&v->mu);
    return quit;
}

int64_t sl_tview_close(sl_tview *v, bool ok)
{
    pthread_mutex_lock(&v->mu);
    v->finished = true;
    v->failed = !ok;
    v->dirty = true;
    if (!ok)
        v->quit = true; /* a failure or Ctrl-C: back to the prompt at once */
    pthread_mutex_unlock(&v->mu);
    if (v->running)
        pthread_join(v->thread, NULL); /* until q (or Ctrl-C) */
    int64_t rows = sl_result_table_count(v->table);
    fputs("\033[?25h\033[?1049l", stdout); /* the cursor and the normal screen back */
    fflush(stdout);
    tcsetattr(STDIN_FILENO, TCSANOW, &v->saved);
    for (int j = 0; j < v->ncols; j++)
        sl_free(v->names[j]);
    sl_free(v->names);
    sl_free(v->right);
    sl_result_table_free(v->table);
    pthread_mutex_destroy(&v->mu);
    sl_free(v);
    return rows;
}
