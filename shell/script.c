/*
** script.c — running SQL text: -e strings, -f files, standard input, and the
** complete statements the REPL has collected.
**
** Text is cut into statements with sl_sql_split (the parser's splitter, which
** knows strings, comments and EXECUTE STATEMENT SET blocks). Each statement
** is trimmed of leading whitespace and comments, so that error positions and
** LINE numbers count from its first token, and runs in the shell's session;
** its output goes through an sl_printer.
**
** Main routines: sl_shell_run_text, sl_shell_read_file, sl_shell_is_blank,
** sl_shell_is_quit.
*/
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "shell.h"

/* Offset of the first byte of s[0..len) that is not whitespace or inside a
** comment (-- to end of line, block comment). An unterminated block comment,
** or one that is not UTF-8, is not skipped (the engine reports it). */
static size_t skip_blank(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (isspace((unsigned char)s[i])) {
            i++;
        } else if (s[i] == '-' && i + 1 < len && s[i + 1] == '-') {
            size_t j = i;
            while (j < len && s[j] != '\n')
                j++;
            if (sl_utf8_invalid(s + i, j - i) >= 0)
                break; /* not UTF-8: the engine reports it */
            i = j;
        } else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
            const char *close = NULL;
            for (size_t j = i + 2; j + 1 < len; j++) {
                if (s[j] == '*' && s[j + 1] == '/') {
                    close = s + j;
                    break;
                }
            }
            if (!close || sl_utf8_invalid(s + i, (size_t)(close - s) + 2 - i) >= 0)
                break;
            i = (size_t)(close - s) + 2;
        } else {
            break;
        }
    }
    return i;
}

bool sl_shell_is_blank(const char *s, size_t len)
{
    return skip_blank(s, len) == len;
}

bool sl_shell_is_quit(const char *s, size_t len, bool backslash_q)
{
    while (len > 0 && isspace((unsigned char)*s))
        s++, len--;
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (backslash_q && len == 2 && s[0] == '\\' && s[1] == 'q')
        return true;
    if (len > 0 && s[len - 1] == ';')
        len--;
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    return len == 4 && (sl_strncasecmp(s, "quit", 4) == 0 || sl_strncasecmp(s, "exit", 4) == 0);
}

/* Run one statement (src describes it) and print its result or error.
** Returns 0, or -1 when it failed. */
static int exec_statement(sl_shell *sh, const sl_stmt_src *src)
{
    sl_printer p;
    sl_result_sink sink;
    sl_error err = SL_ERROR_INIT;
    sl_printer_init(&p, sh, src, &sink);
    sl_status_begin(sh);
    int rc = sh->be->exec(sh, src->text + src->off, src->len, &sink, &err);
    sl_status_clear(sh, true);
    bool cancelled = sh->cancel && *sh->cancel;
    if (rc != 0 && !sl_error_isset(&err))
        sl_error_set(&err, cancelled ? "57014" : SL_ERR_INTERNAL, -1,
                     cancelled ? "canceling statement due to user request"
                               : "statement failed without an error message");
    sl_printer_finish(&p, rc == 0); /* after Ctrl-C: "Query terminated, ..." */
    if (rc != 0)
        sl_print_error(src, &err);
    sl_printer_free(&p);
    sl_error_reset(&err);
    return rc == 0 ? 0 : -1;
}

int sl_shell_run_sql(sl_shell *sh, const char *sql)
{
    sl_stmt_src src = {NULL, sql, 0, strlen(sql)};
    int rc = exec_statement(sh, &src);
    if (rc != 0)
        sh->status = SL_EXIT_FAILED;
    return rc;
}

int sl_shell_run_text(sl_shell *sh, const char *name, const char *text, size_t len, bool final,
                      size_t *consumed)
{
    size_t off = 0;
    int stop = 0;
    while (off < len && !stop) {
        size_t stmt_len = 0;
        int r = sl_sql_split(text + off, len - off, &stmt_len);
        if (r < 0) { /* only whitespace and comments left */
            off = len;
            break;
        }
        if (r == 0) {
            if (!final)
                break;
            stmt_len = len - off; /* the last statement may lack ';' */
        }
        size_t skip = skip_blank(text + off, stmt_len);
        sl_stmt_src src = {name, text, off + skip, stmt_len - skip};
        off += stmt_len;
        if (src.len == 0 || sl_shell_is_blank(text + src.off, src.len))
            continue;
        if (sl_shell_is_quit(text + src.off, src.len, false)) {
            sh->quit = true;
            stop = 1;
        } else if (exec_statement(sh, &src) != 0) {
            sh->status = SL_EXIT_FAILED;
            stop = !sh->interactive && !sh->continue_on_error;
        }
        if (sh->cancel && *sh->cancel) /* Ctrl-C: run nothing more */
            stop = 1;
    }
    *consumed = off;
    return stop;
}

int sl_shell_read_file(const char *path, char **out, size_t *len)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    *out = NULL;
    *len = 0;
    if (!f) {
        fprintf(stderr, "sluice: could not read file \"%s\": %s\n", path, strerror(errno));
        return -1;
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sl_strbuf_append_n(&sb, buf, n);
    int failed = ferror(f);
    int saved = errno;
    if (!is_stdin)
        fclose(f);
    if (failed) {
        fprintf(stderr, "sluice: could not read file \"%s\": %s\n", is_stdin ? "<stdin>" : path,
                strerror(saved));
        sl_strbuf_free(&sb);
        return -1;
    }
    *len = sb.len;
    *out = sl_strbuf_detach(&sb);
    return 0;
}
