/*
** repl.c — the interactive shell on libedit (native histedit.h API).
**
** Lines are collected until sl_sql_split finds complete statements, which
** then run (several on one line all run); the prompt is "sluice> " for a new
** statement and "    -> " while one is pending. quit, exit and \q on a fresh
** line leave, as does Ctrl-D on an empty line. Ctrl-C clears the pending
** input (or cancels the running statement) and shows a fresh prompt.
** Each statement, even over several lines, is one history entry; history
** lives in $SLUICE_HISTFILE or ~/.sluice_history (mode 0600) and is saved
** after every entry, with secret option values (a password in a CREATE
** TABLE's WITH clause) kept as '******', never in clear. TAB completes
** keywords (upper case), table/view names, and, after a single quote,
** connector/format option keys.
**
** SIGINT: our handler only sets a flag. While reading a line our character
** reader (repl_getc) waits for a key in ppoll with the signals unblocked
** only there, so a Ctrl-C — even one that came while keys were being
** handled — makes it return -1 and el_gets() return NULL with count -1
** (libedit's own signal handling, EL_SIGNAL, stays off); while a statement runs it is
** installed with SA_RESTART so the engine never sees EINTR, and the result
** sink cancels the statement at its next callback. SIGTERM ends the REPL as
** Ctrl-D does.
**
** Background jobs: an INSERT returns at once ('table.dml-sync' is false
** here) and its job's messages may come while we wait for a key. They are
** queued, and SIGUSR1 interrupts repl_getc's read(), which prints them
** below the prompt line and has libedit redraw the prompt and the pending
** line (EL_REFRESH, as libedit itself does after SIGCONT). The rows of
** print sinks go the same way (sl_print_set_writer). Leaving the
** REPL stops every running job with a savepoint and waits for it.
**
** Main routines: sl_repl_run; static helpers for history, completion and
** the line loop.
*/
#include <errno.h>
#include <histedit.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "../connectors/print/print.h"
#include "shell.h"

#define SL_PROMPT "sluice> "
#define SL_PROMPT_MORE "    -> "
#define SL_HISTORY_SIZE 1000
#define SL_LIST_WIDTH 80      /* columns used when listing completions */
#define SL_LIST_MAX 200       /* completions listed at most */

static volatile sig_atomic_t g_interrupted; /* set by SIGINT (and SIGTERM) */
static volatile sig_atomic_t g_terminated;  /* set by SIGTERM */

/* State of one REPL. */
typedef struct sl_repl {
    sl_shell *sh;       /* engine, session, options */
    EditLine *el;       /* the line editor */
    History *hist;      /* in-memory history */
    char *histfile;     /* where history is saved, or NULL */
    sl_strbuf pending;  /* input typed but not yet run (an incomplete statement) */
    sl_strbuf entry;    /* lines typed since the last history entry */
} sl_repl;

static void on_sigint(int sig)
{
    if (sig == SIGTERM)
        g_terminated = 1;
    g_interrupted = 1;
}

/* SIGUSR1: job messages are queued; the handler only interrupts read(). */
static void on_wake(int sig)
{
    (void)sig;
}

static void set_handler(int sig, void (*fn)(int), bool restart)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* Install the SIGINT / SIGTERM flag handler; restart: restart interrupted
** system calls (while a statement runs) or not (while reading, to interrupt
** el_gets). */
static void set_sigint(bool restart)
{
    set_handler(SIGINT, on_sigint, restart);
    set_handler(SIGTERM, on_sigint, restart);
}

static sl_repl *repl_of(EditLine *el)
{
    void *r = NULL;
    el_get(el, EL_CLIENTDATA, &r);
    return r;
}

static char *prompt(EditLine *el)
{
    static char first[] = SL_PROMPT, more[] = SL_PROMPT_MORE;
    return repl_of(el)->pending.len ? more : first;
}

/* ------------------------------------------------------------------------
** History.
*/

/* $SLUICE_HISTFILE, else ~/.sluice_history, else NULL (no HOME). */
static char *history_path(void)
{
    const char *env = getenv("SLUICE_HISTFILE");
    if (env && *env)
        return sl_strdup(env);
    const char *home = getenv("HOME");
    return home && *home ? sl_path_join(home, ".sluice_history") : NULL;
}

/* Add text (trailing whitespace dropped) as one entry and save the file. */
static void history_add(sl_repl *r, const char *text, size_t len)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\t' ||
                       text[len - 1] == '\r'))
        len--;
    if (len == 0)
        return;
    /* Secret option values never reach the history (nor its file): they
    ** are kept as '******', so the entry still shows what was run. */
    sl_strbuf s = SL_STRBUF_INIT;
    sl_redact_sql(text, len, &s, NULL);
    HistEvent ev;
    history(r->hist, &ev, H_ENTER, sl_strbuf_cstr(&s));
    if (r->histfile && history(r->hist, &ev, H_SAVE, r->histfile) >= 0) /* best effort, as psql */
        chmod(r->histfile, 0600); /* the owner's only, as psql's */
    sl_strbuf_free(&s);
}

/* ------------------------------------------------------------------------
** Completion.
*/

static bool is_ident_byte(char c)
{
    unsigned char b = (unsigned char)c;
    return b >= 0x80 || b == '_' || (b >= '0' && b <= '9') || ((b | 0x20) >= 'a' && (b | 0x20) <= 'z');
}

static bool is_key_byte(char c)
{
    return is_ident_byte(c) || c == '.' || c == '-';
}

/* Characters (not bytes) in s[0..n): what el_deletestr counts. */
static int char_count(const char *s, size_t n)
{
    int count = 0;
    for (size_t i = 0; i < n; i++)
        count += ((unsigned char)s[i] & 0xC0) != 0x80;
    return count;
}

/* Push a copy of each name in names[0..n) that starts with word (any case). */
static void add_matches(sl_list *out, const char *const *names, int n, const char *word, size_t len)
{
    for (int i = 0; i < n; i++)
        if (names[i] && strlen(names[i]) >= len && sl_strncasecmp(names[i], word, len) == 0)
            sl_list_push(out, sl_strdup(names[i]));
}

/* Candidates for word: option keys in key mode, else keywords, tables and
** views. Caller frees with sl_list_free(l, sl_free). */
static sl_list *candidates(sl_repl *r, const char *word, size_t len, bool key_mode)
{
    sl_list *out = sl_list_new();
    sl_list *src = key_mode ? sl_option_keys() : r->sh->be->object_names(r->sh);
    if (src)
        add_matches(out, (const char *const *)src->items, src->n, word, len);
    sl_list_free(src, sl_free);
    if (!key_mode) {
        int n = 0;
        const char *const *kw = sl_keywords(&n);
        add_matches(out, kw, n, word, len);
    }
    return out;
}

/* Length of the common prefix (any case) of all candidates, not cutting a
** UTF-8 sequence. */
static size_t common_prefix(const sl_list *c)
{
    const char *first = sl_list_get(c, 0);
    size_t n = strlen(first);
    for (int i = 1; i < c->n; i++) {
        const char *s = sl_list_get(c, i);
        size_t k = 0;
        while (k < n && s[k] && sl_strncasecmp(first + k, s + k, 1) == 0)
            k++;
        n = k;
    }
    while (n > 0 && ((unsigned char)first[n] & 0xC0) == 0x80)
        n--;
    return n;
}

/* Print the candidates in columns below the input line. */
static void list_candidates(const sl_list *c)
{
    size_t w = 0;
    for (int i = 0; i < c->n && i < SL_LIST_MAX; i++) {
        size_t l = strlen(sl_list_get(c, i));
        w = l > w ? l : w;
    }
    int per_line = (int)(SL_LIST_WIDTH / (w + 2));
    per_line = per_line > 0 ? per_line : 1;
    fputc('\n', stdout);
    for (int i = 0; i < c->n && i < SL_LIST_MAX; i++) {
        const char *s = sl_list_get(c, i);
        bool eol = (i + 1) % per_line == 0 || i + 1 == c->n || i + 1 == SL_LIST_MAX;
        printf("%s%*s", s, eol ? 0 : (int)(w + 2 - strlen(s)), "");
        if (eol)
            fputc('\n', stdout);
    }
    if (c->n > SL_LIST_MAX)
        printf("... and %d more\n", c->n - SL_LIST_MAX);
    fflush(stdout);
}

/* Replace the word before the cursor (wlen bytes at word) with the first
** n bytes of s followed by suffix. */
static void replace_word(EditLine *el, const char *word, size_t wlen, const char *s, size_t n,
                         const char *suffix)
{
    char *ins = sl_sprintf("%.*s%s", (int)n, s, suffix);
    el_deletestr(el, char_count(word, wlen));
    el_insertstr(el, ins);
    sl_free(ins);
}

/* TAB: complete the word before the cursor. */
static unsigned char complete(EditLine *el, int ch)
{
    (void)ch;
    sl_repl *r = repl_of(el);
    const LineInfo *li = el_line(el);
    const char *start = li->cursor;
    while (start > li->buffer && is_key_byte(start[-1]))
        start--;
    bool key_mode = start > li->buffer && start[-1] == '\'';
    if (!key_mode) {
        start = li->cursor;
        while (start > li->buffer && is_ident_byte(start[-1]))
            start--;
    }
    size_t wlen = (size_t)(li->cursor - start);
    if (!key_mode && wlen == 0)
        return CC_ERROR;
    char *word = sl_strndup(start, wlen);
    sl_list *c = candidates(r, word, wlen, key_mode);
    unsigned char rc = CC_ERROR;
    if (c->n == 1) {
        const char *close = key_mode ? (li->cursor < li->lastchar && *li->cursor == '\'' ? "" : "'") : " ";
        const char *s = sl_list_get(c, 0);
        replace_word(el, word, wlen, s, strlen(s), close);
        rc = CC_REFRESH;
    } else if (c->n > 1) {
        size_t lcp = common_prefix(c);
        if (lcp > wlen) {
            replace_word(el, word, wlen, sl_list_get(c, 0), lcp, "");
            rc = CC_REFRESH;
        } else {
            list_candidates(c);
            rc = CC_REDISPLAY;
        }
    }
    sl_list_free(c, sl_free);
    sl_free(word);
    return rc;
}

/* ------------------------------------------------------------------------
** Reading keys.
*/

/* Wait until a key can be read without blocking: 1, or 0 when SIGUSR1
** (job messages) interrupted the wait or the server (remote backend) sent
** something, which is taken in first, or -1 on Ctrl-C / SIGTERM (errno
** EINTR) or an error. The signals are blocked except inside ppoll, which
** unblocks them atomically: a Ctrl-C that came while keys were being
** handled is seen here, never lost before a read that would then block. */
static int wait_key(sl_shell *sh)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &old);
    int rc;
    if (g_interrupted) {
        errno = EINTR;
        rc = -1;
    } else {
        int bfd = sh->be->wait_fd(sh);
        struct pollfd pfd[2] = {{STDIN_FILENO, POLLIN, 0}, {bfd, POLLIN, 0}};
        rc = ppoll(pfd, bfd >= 0 ? 2 : 1, NULL, &old);
        if (rc < 0 && errno == EINTR)
            rc = g_interrupted ? -1 : 0;
        else if (rc > 0 && pfd[0].revents)
            rc = 1;
        else if (rc > 0)
            rc = 2; /* the server sent something */
    }
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL); /* a pending signal's handler runs here */
    errno = saved;
    if (rc >= 0 && g_interrupted) {
        /* ppoll found a key and a Ctrl-C together: it returns the key and
        ** leaves the signal pending until the mask is restored. The Ctrl-C
        ** came first on the terminal, so it wins over the key. */
        errno = EINTR;
        rc = -1;
    }
    if (rc == 2) {
        sh->be->input(sh); /* its notices are queued as job messages */
        rc = 0;
    }
    return rc;
}

/* EL_GETCFN: read one character as libedit's own reader does (a byte at a
** time; a multibyte sequence through mbrtowc; an invalid byte is dropped,
** an invalid sequence keeps its last byte), and, when no sequence is half
** read, first print the job messages that came while waiting and redraw
** the prompt line. 1 with *wc, 0 at end of input, -1 on Ctrl-C, SIGTERM or
** a read error. */
static int repl_getc(EditLine *el, wchar_t *wc)
{
    sl_repl *r = repl_of(el);
    char buf[MB_LEN_MAX];
    size_t n = 0;
    for (;;) {
        if (n == 0 && sl_shell_flush_messages(r->sh, true) > 0)
            el_set(el, EL_REFRESH);
        int ready = wait_key(r->sh);
        if (ready == 0)
            continue; /* SIGUSR1: job messages */
        if (ready < 0) {
            *wc = L'\0';
            return -1;
        }
        ssize_t got = read(STDIN_FILENO, buf + n, 1);
        if (got < 0) {
            if (errno == EINTR && !g_interrupted)
                continue;
            *wc = L'\0';
            return -1;
        }
        if (got == 0) {
            errno = 0; /* not a stale EINTR: the end of input */
            *wc = L'\0';
            return 0;
        }
        n++;
        for (;;) {
            mbstate_t mbs;
            memset(&mbs, 0, sizeof mbs);
            size_t k = mbrtowc(wc, buf, n, &mbs);
            if (k == (size_t)-2) { /* incomplete: read another byte */
                if (n >= MB_LEN_MAX) {
                    errno = EILSEQ;
                    *wc = L'\0';
                    return -1;
                }
                break;
            }
            if (k == (size_t)-1) { /* invalid */
                if (n > 1) {
                    buf[0] = buf[n - 1];
                    n = 1;
                    continue;
                }
                n = 0;
                break;
            }
            return 1;
        }
    }
}

/* While the REPL waits for a key, job messages are queued for repl_getc;
** otherwise they are printed by the job's thread at once. */
static void hold_messages(sl_shell *sh, bool hold)
{
    pthread_mutex_lock(&sh->msg_mu);
    sh->msg_hold = hold;
    sh->msg_reader = pthread_self();
    pthread_mutex_unlock(&sh->msg_mu);
    if (!hold)
        sl_shell_flush_messages(sh, false);
}

/* ------------------------------------------------------------------------
** The loop.
*/

/* Set up libedit and history. Returns -1 when the editor cannot start. */
static int repl_open(sl_repl *r, sl_shell *sh)
{
    HistEvent ev;
    memset(r, 0, sizeof *r);
    r->sh = sh;
    setlocale(LC_CTYPE, ""); /* multibyte input; LC_NUMERIC stays "C" */
    r->el = el_init("sluice", stdin, stdout, stderr);
    if (!r->el)
        return -1;
    r->hist = history_init();
    history(r->hist, &ev, H_SETSIZE, SL_HISTORY_SIZE);
    history(r->hist, &ev, H_SETUNIQUE, 1);
    r->histfile = history_path();
    if (r->histfile)
        history(r->hist, &ev, H_LOAD, r->histfile); /* a missing file is fine */
    el_set(r->el, EL_CLIENTDATA, r);
    el_set(r->el, EL_EDITOR, "emacs");
    el_set(r->el, EL_PROMPT, prompt);
    el_set(r->el, EL_HIST, history, r->hist);
    el_set(r->el, EL_GETCFN, repl_getc);
    /* NOFLSH while editing: a Ctrl-C must not flush the terminal. The
    ** kernel sends SIGINT before it flushes, so the fresh prompt we print in
    ** answer could be thrown away, and keys it discards after our ppoll saw
    ** them would leave read() waiting. We discard pending input ourselves. */
    el_set(r->el, EL_SETTY, "-d", "+noflsh", NULL);
    el_set(r->el, EL_ADDFN, "sl-complete", "complete keywords, tables and option keys", complete);
    el_set(r->el, EL_BIND, "^I", "sl-complete", NULL);
    el_source(r->el, NULL); /* ~/.editrc may rebind keys */
    return 0;
}

static void repl_close(sl_repl *r)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    if (r->el)
        el_end(r->el);
    if (r->hist)
        history_end(r->hist);
    sl_free(r->histfile);
    sl_strbuf_free(&r->pending);
    sl_strbuf_free(&r->entry);
}

/* Ctrl-C while reading: forget the pending input. */
static void repl_clear(sl_repl *r)
{
    sl_strbuf_reset(&r->pending);
    sl_strbuf_reset(&r->entry);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Drop the first n bytes of sb. */
static void strbuf_consume(sl_strbuf *sb, size_t n)
{
    if (n == 0)
        return;
    memmove(sb->buf, sb->buf + n, sb->len - n + 1);
    sb->len -= n;
}

/* Handle one line (count bytes, usually ending in '\n'). Runs the
** statements it completes. Returns true when the REPL must end. */
static bool repl_line(sl_repl *r, const char *line, size_t count)
{
    if (r->pending.len == 0 && sl_shell_is_blank(line, count))
        return false;
    if (r->pending.len == 0 && sl_shell_is_quit(line, count, true)) {
        history_add(r, line, count);
        return true;
    }
    if (r->pending.len == 0 && line[0] == '\\') { /* psql's \?, \dt, \d name ... */
        history_add(r, line, count);
        g_interrupted = 0;
        set_sigint(true);
        r->sh->cancel = &g_interrupted;
        sl_shell_backslash(r->sh, line, count);
        r->sh->cancel = NULL;
        return r->sh->quit;
    }
    sl_strbuf_append_n(&r->pending, line, count);
    sl_strbuf_append_n(&r->entry, line, count);
    if (count == 0 || line[count - 1] != '\n') {
        sl_strbuf_append_char(&r->pending, '\n');
        sl_strbuf_append_char(&r->entry, '\n');
    }

    size_t consumed = 0;
    g_interrupted = 0;
    set_sigint(true);
    r->sh->cancel = &g_interrupted;
    sl_shell_run_text(r->sh, NULL, r->pending.buf, r->pending.len, false, &consumed);
    r->sh->cancel = NULL;
    if (g_interrupted) /* Ctrl-C while running: drop the rest of the input too */
        consumed = r->pending.len;
    strbuf_consume(&r->pending, consumed);

    if (sl_shell_is_blank(sl_strbuf_cstr(&r->pending), r->pending.len)) {
        sl_strbuf_reset(&r->pending);
        history_add(r, sl_strbuf_cstr(&r->entry), r->entry.len);
        sl_strbuf_reset(&r->entry);
    }
    return r->sh->quit;
}

int sl_repl_run(sl_shell *sh)
{
    sl_repl r;
    if (repl_open(&r, sh) != 0) {
        fputs("sluice: could not initialize the line editor\n", stderr);
        repl_close(&r);
        return SL_EXIT_USAGE;
    }
    sh->be->set_interrupt(sh, &g_interrupted);
    set_handler(SIGUSR1, on_wake, false);
    /* Print sinks' rows come above the prompt, as job messages do; result
    ** mode 'table' is the full-screen view when the results show on this
    ** terminal (local: the session sends the changes). */
    sl_print_set_writer(sl_shell_print_lines, sh);
    if (sh->session && isatty(STDOUT_FILENO) && sh->format == SL_FORMAT_TABLE) {
        sh->table_view = true;
        sl_session_set_live_table(sh->session, true);
    }
    char *where = sh->be->where(sh);
    printf("sluice %s (%s)\n"
           "End statements with ';'. Type HELP; for help, \\? for backslash commands, quit or "
           "Ctrl-D to exit.\n\n",
           SLUICE_VERSION, where);
    sl_free(where);
    fflush(stdout);
    while (!g_terminated) {
        int count = 0;
        g_interrupted = 0;
        set_sigint(false);
        hold_messages(sh, true);
        const char *line = el_gets(r.el, &count);
        int saved_errno = errno;
        hold_messages(sh, false);
        if (g_terminated) { /* SIGTERM: as Ctrl-D */
            fputc('\n', stdout);
            break;
        }
        if (!line && count < 0 && (g_interrupted || saved_errno == EINTR)) {
            tcflush(STDIN_FILENO, TCIFLUSH); /* keys typed before the Ctrl-C are gone */
            repl_clear(&r);
            continue;
        }
        if (!line) { /* Ctrl-D on an empty line, or the terminal went away */
            fputc('\n', stdout);
            break;
        }
        if (repl_line(&r, line, (size_t)count))
            break;
    }
    fflush(stdout);
    /* Every background job of ours stops with a savepoint (the runtime's
    ** notice names it; a server's jobs run on); Ctrl-C meanwhile only sets a
    ** flag. */
    set_sigint(true);
    sh->be->finish(sh, false, NULL);
    sl_print_set_writer(NULL, NULL);
    sl_shell_flush_messages(sh, false);
    repl_close(&r);
    return SL_EXIT_OK;
}
