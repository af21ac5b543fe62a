/*
** backslash.c — psql's habits in the REPL: a line that starts with '\'
** (nothing pending) is a backslash command, answered at once instead of
** waiting for a ';'. \q quits (repl.c), \? lists these commands, \h is HELP,
** \dt / \dv / \d list relations, \d name describes one; each runs its
** statement through the backend like a typed one (so it works against a
** server too). Anything else is "invalid command", as psql says.
**
** Main routine: sl_shell_backslash.
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "shell.h"

static const char sl__backslash_help[] =
    "General\n"
    "  \\q                     quit sluice (also quit; or exit;)\n"
    "  \\?                     show this list of backslash commands\n"
    "  \\h                     list the SQL statements (HELP;)\n"
    "Informational\n"
    "  \\d                     list tables and views (SHOW TABLES; SHOW VIEWS;)\n"
    "  \\d NAME                describe a table or view (DESCRIBE NAME;)\n"
    "  \\dt                    list tables (SHOW TABLES;)\n"
    "  \\dv                    list views (SHOW VIEWS;)\n"
    "Other statements end with ';'.\n";

bool sl_shell_backslash(sl_shell *sh, const char *line, size_t len)
{
    while (len > 0 && isspace((unsigned char)*line))
        line++, len--;
    if (len == 0 || line[0] != '\\')
        return false;
    while (len > 0 && isspace((unsigned char)line[len - 1]))
        len--;
    size_t cmd = 1;
    while (cmd < len && !isspace((unsigned char)line[cmd]))
        cmd++;
    size_t arg = cmd;
    while (arg < len && isspace((unsigned char)line[arg]))
        arg++;
    char *name = sl_strndup(line, cmd);
    char *rest = sl_strndup(line + arg, len - arg);
    if (strcmp(name, "\\?") == 0) {
        fputs(sl__backslash_help, stdout);
    } else if (strcmp(name, "\\h") == 0 || strcmp(name, "\\help") == 0) {
        sl_shell_run_sql(sh, "HELP");
    } else if (strcmp(name, "\\dt") == 0 && !*rest) {
        sl_shell_run_sql(sh, "SHOW TABLES");
    } else if (strcmp(name, "\\dv") == 0 && !*rest) {
        sl_shell_run_sql(sh, "SHOW VIEWS");
    } else if (strcmp(name, "\\d") == 0 && !*rest) {
        sl_shell_run_sql(sh, "SHOW TABLES");
        sl_shell_run_sql(sh, "SHOW VIEWS");
    } else if (strcmp(name, "\\d") == 0) {
        char *sql = sl_sprintf("DESCRIBE %s", rest);
        sl_shell_run_sql(sh, sql);
        sl_free(sql);
    } else {
        fprintf(stderr, "invalid command %s\nTry \\? for help.\n", name);
    }
    fflush(stdout);
    sl_free(name);
    sl_free(rest);
    return true;
}
