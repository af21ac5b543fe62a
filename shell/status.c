/*
** status.c — the live status line of a synchronous INSERT in the
** interactive shell ('table.dml-sync' = 'true' in the REPL): while the job
** runs, one line on standard error, redrawn in place about twice a second,
**
**   job "name": 12345 rows in, 12000 out, 2400.5 rows/s, checkpoint 7 (3s ago), 0 late, 0 skipped
**
** cut to the terminal's width so that it never wraps, and erased when the
** statement ends or before any message or result is printed. Only when
** standard error is a terminal and the shell is interactive: never in
** scripts or pipes. The engine's progress callback (sl_session_set_progress)
** calls it from a thread of the runtime; drawing takes stdout's and stderr's
** locks, as every message does.
**
** Main routines: sl_status_enable, sl_status_begin, sl_status_clear.
*/
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "shell.h"
#include "../base/sl_time.h"

#define SL_STATUS_EVERY (500 * SL_NANOS_PER_MILLI) /* between redraws */

static void status_progress(void *ctx, const sl_job_progress *p)
{
    sl_shell *sh = ctx;
    int64_t now = sl_now_nanos();
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_appendf(&sb, "job \"%s\": %lld rows in, %lld out, %.1f rows/s", p->name,
                      (long long)p->rows_in, (long long)p->rows_out, p->rate);
    if (p->last_checkpoint >= 0 && p->last_checkpoint_ns > 0)
        sl_strbuf_appendf(&sb, ", checkpoint %lld (%llds ago)", (long long)p->last_checkpoint,
                          (long long)((now - p->last_checkpoint_ns) / (1000 * SL_NANOS_PER_MILLI)));
    else
        sl_strbuf_append(&sb, ", no checkpoint yet");
    sl_strbuf_appendf(&sb, ", %lld late, %lld skipped", (long long)p->rows_late,
                      (long long)p->rows_skipped);
    struct winsize ws;
    size_t width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
    size_t n = sb.len;
    if (n > width) { /* cut, not inside a UTF-8 sequence */
        n = width;
        while (n > 0 && ((unsigned char)sb.buf[n] & 0xC0) == 0x80)
            n--;
    }
    flockfile(stdout);
    flockfile(stderr);
    if (sh->status_active && now - sh->status_drawn >= SL_STATUS_EVERY) {
        fflush(stdout);
        fputs("\r\033[K", stderr);
        fwrite(sb.buf, 1, n, stderr);
        fflush(stderr);
        sh->status_shown = true;
        sh->status_drawn = now;
    }
    funlockfile(stderr);
    funlockfile(stdout);
    sl_strbuf_free(&sb);
}

void sl_status_enable(sl_shell *sh)
{
    if (sh->interactive && sh->session && isatty(STDERR_FILENO))
        sl_session_set_progress(sh->session, status_progress, sh);
}

void sl_status_begin(sl_shell *sh)
{
    flockfile(stderr);
    sh->status_active = true;
    sh->status_drawn = sl_now_nanos(); /* a statement quicker than that shows none */
    funlockfile(stderr);
}

void sl_status_clear(sl_shell *sh, bool end)
{
    flockfile(stderr);
    if (sh->status_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        sh->status_shown = false;
    }
    if (end)
        sh->status_active = false;
    funlockfile(stderr);
}
