/*
** users.c — the users of `sluice serve --auth scram`: a file "users" in the
** data directory, one line per user, "NAME:VERIFIER", the verifier a
** SCRAM-SHA-256 one (scram.c) as PostgreSQL stores it — never a password.
** The file is written whole and atomically (sl_fs_write_atomic, mode 0600);
** the server reads it at each authentication, so `sluice user add` takes
** effect on the next connection without a restart.
**
**   sluice user add NAME [--password-stdin]   (prompts twice on a terminal)
**   sluice user list
**   sluice user remove NAME
**
** Main routines: sl_users_lookup, sl_user_main.
*/
#include "server_int.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#define SL__USERS_FILE "users"
#define SL__USER_MAX 63 /* PostgreSQL's NAMEDATALEN - 1 */

/* A user name that fits the file: 1..63 bytes, no ':' and no control
** characters. */
static bool sl__user_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > SL__USER_MAX)
        return false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p == ':' || *p < 0x20 || *p == 0x7F)
            return false;
    return true;
}

/* The users file as (name, verifier) pairs; an absent file is no users. */
static int sl__users_load(const char *data_dir, sl_kvlist **out, sl_error *err)
{
    char *path = sl_path_join(data_dir, SL__USERS_FILE);
    sl_kvlist *l = sl_kvlist_new();
    int rc = 0;
    if (sl_fs_exists(path)) {
        char *text = NULL;
        size_t len = 0;
        rc = sl_fs_read_file(path, &text, &len, err);
        for (char *line = text; rc == 0 && line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            char *colon = strchr(line, ':');
            if (colon) {
                *colon = '\0';
                sl_kvlist_set(l, line, colon + 1, -1, -1);
            }
            line = nl ? nl + 1 : NULL;
        }
        sl_free(text);
    }
    sl_free(path);
    *out = l;
    return rc;
}

static int sl__users_store(const char *data_dir, const sl_kvlist *l, sl_error *err)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < l->n; i++) {
        sl_strbuf_append(&sb, l->items[i].key);
        sl_strbuf_append_char(&sb, ':');
        sl_strbuf_append(&sb, l->items[i].value);
        sl_strbuf_append_char(&sb, '\n');
    }
    char *path = sl_path_join(data_dir, SL__USERS_FILE);
    int rc = sl_fs_write_atomic(path, sb.buf ? sb.buf : "", sb.len, err);
    sl_free(path);
    sl_strbuf_free(&sb);
    return rc;
}

int sl_users_lookup(const char *data_dir, const char *user, char **verifier, sl_error *err)
{
    *verifier = NULL;
    sl_kvlist *l;
    int rc = sl__users_load(data_dir, &l, err);
    const char *v = rc == 0 ? sl_kvlist_get(l, user) : NULL;
    if (v)
        *verifier = sl_strdup(v);
    sl_kvlist_free(l);
    return rc < 0 ? -1 : v ? 1 : 0;
}

/* ------------------------------------------------------------------------
** `sluice user ...`
*/

/* One line from f without its newline; NULL at end of input. */
static char *sl__read_line(FILE *f)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    int ch;
    bool any = false;
    while ((ch = fgetc(f)) != EOF) {
        any = true;
        if (ch == '\n')
            break;
        sl_strbuf_append_char(&sb, (char)ch);
    }
    if (!any) {
        sl_strbuf_free(&sb);
        return NULL;
    }
    if (sb.len && sb.buf[sb.len - 1] == '\r')
        sb.buf[--sb.len] = '\0';
    return sb.buf ? sb.buf : sl_strdup("");
}

/* Prompt on the terminal with echo off. */
static char *sl__prompt(FILE *tty, const char *prompt)
{
    struct termios old, quiet;
    int fd = fileno(tty);
    bool restore = tcgetattr(fd, &old) == 0;
    if (restore) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(fd, TCSAFLUSH, &quiet);
    }
    fputs(prompt, stderr);
    fflush(stderr);
    char *s = sl__read_line(tty);
    if (restore)
        tcsetattr(fd, TCSAFLUSH, &old);
    fputc('\n', stderr);
    return s;
}

/* The new password: from standard input (one line) when it is not a
** terminal or with --password-stdin, else prompted twice on the terminal. */
static char *sl__read_password(bool from_stdin)
{
    if (from_stdin || !isatty(STDIN_FILENO))
        return sl__read_line(stdin);
    FILE *tty = fopen("/dev/tty", "r+");
    if (!tty)
        return sl__read_line(stdin);
    char *a = sl__prompt(tty, "Password: ");
    char *b = a ? sl__prompt(tty, "Repeat password: ") : NULL;
    fclose(tty);
    if (!a || !b || strcmp(a, b) != 0) {
        fputs("sluice user: passwords do not match\n", stderr);
        if (a)
            memset(a, 0, strlen(a));
        sl_free(a);
        a = NULL;
    }
    if (b)
        memset(b, 0, strlen(b));
    sl_free(b);
    return a;
}

/* A new data directory is made as the engine makes it (the server will
** open it); an existing one is left alone (a server may be running on it:
** the users file is replaced atomically). */
static int sl__data_dir_init(const char *data_dir, sl_error *err)
{
    char *marker = sl_path_join(data_dir, "SLUICE");
    bool exists = sl_fs_exists(marker);
    sl_free(marker);
    if (exists)
        return 0;
    sl_engine *eng;
    if (sl_engine_open(data_dir, &eng, err) != 0)
        return -1;
    sl_engine_close(eng);
    return 0;
}

static void sl__user_usage(FILE *f)
{
    fputs("Usage: sluice user add NAME [--password-stdin]\n"
          "       sluice user list\n"
          "       sluice user remove NAME\n"
          "Manage the users `sluice serve --auth scram` accepts (SCRAM-SHA-256\n"
          "verifiers in DIR/users; passwords are never stored).\n"
          "\n"
          "  -D, --data-dir=DIR    data directory (default: $SLUICE_DATA, else ./sluice-data)\n"
          "      --password-stdin  read the password from standard input (one line)\n"
          "      --help            show this help and exit\n"
          "\n"
          "add prompts for the password twice on a terminal; otherwise it reads one\n"
          "line from standard input.\n",
          f);
}

int sl_user_main(int argc, char **argv)
{
    const char *data_dir = NULL;
    bool from_stdin = false;
    enum { OPT_STDIN = 256, OPT_HELP };
    static const struct option longopts[] = {
        {"data-dir", required_argument, NULL, 'D'},
        {"password-stdin", no_argument, NULL, OPT_STDIN},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "D:d:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'D':
        case 'd': data_dir = optarg; break;
        case OPT_STDIN: from_stdin = true; break;
        case OPT_HELP: sl__user_usage(stdout); return 0;
        default: fputs("Try 'sluice user --help' for more information.\n", stderr); return 2;
        }
    }
    const char *cmd = optind < argc ? argv[optind] : NULL;
    const char *name = optind + 1 < argc ? argv[optind + 1] : NULL;
    bool needs_name = cmd && (strcmp(cmd, "add") == 0 || strcmp(cmd, "remove") == 0);
    if (!cmd || (strcmp(cmd, "list") != 0 && !needs_name) || (needs_name && !name) ||
        optind + (needs_name ? 2 : 1) < argc) {
        sl__user_usage(stderr);
        return 2;
    }
    if (name && !sl__user_name_ok(name)) {
        fprintf(stderr, "sluice user: invalid user name \"%s\" (1 to %d bytes, no ':')\n", name,
                SL__USER_MAX);
        return 2;
    }
    if (!data_dir || !*data_dir) {
        const char *env = getenv("SLUICE_DATA");
        data_dir = env && *env ? env : "./sluice-data";
    }
    sl_error err = SL_ERROR_INIT;
    sl_kvlist *users = NULL;
    int code = 1;
    if (strcmp(cmd, "add") == 0 && sl__data_dir_init(data_dir, &err) != 0)
        goto fail;
    if (sl__users_load(data_dir, &users, &err) != 0)
        goto fail;
    if (strcmp(cmd, "list") == 0) {
        for (int i = 0; i < users->n; i++)
            printf("%s\n", users->items[i].key);
        code = 0;
    } else if (strcmp(cmd, "remove") == 0) {
        if (!sl_kvlist_remove(users, name)) {
            sl_error_set(&err, "42704", -1, "user \"%s\" does not exist", name);
            goto fail;
        }
        if (sl__users_store(data_dir, users, &err) != 0)
            goto fail;
        code = 0;
    } else {
        char *pw = sl__read_password(from_stdin);
        if (!pw) {
            sl_error_set(&err, "28P01", -1, "no password given");
            goto fail;
        }
        char *verifier = NULL;
        int rc = *pw ? sl_scram_verifier_new(pw, &verifier, &err)
                     : sl_error_set(&err, "28P01", -1, "empty password");
        memset(pw, 0, strlen(pw));
        sl_free(pw);
        if (rc != 0)
            goto fail;
        sl_kvlist_set(users, name, verifier, -1, -1);
        sl_free(verifier);
        if (sl__users_store(data_dir, users, &err) != 0)
            goto fail;
        code = 0;
    }
    sl_kvlist_free(users);
    return code;
fail:
    fprintf(stderr, "sluice user: %s\n", err.message ? err.message : "failed");
    sl_error_reset(&err);
    sl_kvlist_free(users);
    return 1;
}
