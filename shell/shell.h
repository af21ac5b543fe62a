/*
** shell.h — internal interface of the `sluice` command (not installed).
**
** The shell is six small pieces:
**   main.c    arguments, modes, exit codes;
**   local.c   the local backend: the data directory's engine and a session;
**   remote.c  the remote backend: a `sluice serve` reached through libpq
**             (-h/-p/-U/-d, or attached when a server holds the directory);
**   script.c  splitting text into statements and running them (-e, -f, stdin,
**             and the REPL's complete statements);
**   output.c  result tables, command tags, errors and notices;
**   repl.c    the interactive loop on libedit (prompts, history, completion,
**             Ctrl-C).
** Results go to stdout, errors and notices to stderr. docs/SHELL.md describes
** the user-visible formats; keep them stable (golden tests compare them).
**
** Background jobs ('table.dml-sync' = 'false', the REPL's default) report
** from their own threads through the engine's log (sl_shell_job_message):
** their messages are printed whole, between the shell's own lines, and while
** the REPL waits for a key they are queued and printed above a redrawn
** prompt.
*/
#ifndef SL_SHELL_H
#define SL_SHELL_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "../base/sl_base.h"
#include "../base/sl_type.h"
#include "../parser/sl_parser.h"
#include "../planner/sl_planner.h"

/* Exit statuses of the command. */
#define SL_EXIT_OK 0      /* everything ran */
#define SL_EXIT_FAILED 1  /* a statement failed */
#define SL_EXIT_USAGE 2   /* bad arguments, unreadable file, unusable data directory */

/* Where a statement came from, for error positions. The statement is
** text[off .. off+len). name is the script name used as the
** "NAME:LINE:COL: " prefix of errors and notices, or NULL (REPL, -e). */
typedef struct sl_stmt_src {
    const char *name; /* script name for the prefix, or NULL for none */
    const char *text; /* the whole script (line/column are counted in it) */
    size_t off;       /* byte offset of the statement in text */
    size_t len;       /* statement length in bytes */
} sl_stmt_src;

typedef struct sl_shell sl_shell;
typedef struct sl_remote sl_remote;

/* Where statements run: the engine of a data directory (local.c) or a
** server over libpq (remote.c). Output goes through the same sl_printer
** either way, so both print alike. */
typedef struct sl_backend {
    /* Run one statement (sql[0..len)); output through sink. Returns 0, or
    ** -1 with err set (positions are byte offsets into sql). */
    int (*exec)(sl_shell *sh, const char *sql, size_t len, sl_result_sink *sink, sl_error *err);
    /* Table and view names for completion (caller frees: sl_list_free(l, sl_free)). */
    sl_list *(*object_names)(sl_shell *sh);
    /* What the REPL's banner says statements run against (caller frees). */
    char *(*where)(sl_shell *sh);
    /* The flag that cancels the running statement (SIGINT sets it). */
    void (*set_interrupt)(sl_shell *sh, volatile sig_atomic_t *flag);
    /* A descriptor the REPL watches while waiting for a key (messages from
    ** a server), or -1; input() takes in what came on it. */
    int (*wait_fd)(sl_shell *sh);
    void (*input)(sl_shell *sh);
    /* The end of a script (wait: its background jobs run to their end or
    ** until *stop) or of the REPL (stop them now). */
    void (*finish)(sl_shell *sh, bool wait, volatile sig_atomic_t *stop);
    /* Close what the backend holds. */
    void (*close)(sl_shell *sh);
} sl_backend;

/* One shell: the backend plus the options that shape output. */
struct sl_shell {
    const sl_backend *be;            /* where statements run */
    sl_engine *engine;               /* local: the open data directory */
    sl_session *session;             /* local: the one session statements run in */
    sl_remote *remote;               /* remote: the connection */
    bool quiet;                      /* -q: no command tags */
    bool continue_on_error;          /* --continue-on-error */
    bool interactive;                /* REPL: a failure never stops the input */
    volatile sig_atomic_t *cancel;   /* set (by SIGINT) to cancel the running statement; may be NULL */
    int status;                      /* SL_EXIT_FAILED once any statement failed */
    bool quit;                       /* quit / exit was seen */
    pthread_mutex_t msg_mu;          /* guards the fields below (jobs' threads print too) */
    bool msg_hold;                   /* the REPL waits for a key: queue job messages, wake it */
    pthread_t msg_reader;            /* msg_hold: the REPL's thread, woken with SIGUSR1 */
    sl_list *msg_queue;              /* job messages held for the REPL (sl_error*) */
    bool job_failed;                 /* a background job failed */
};

/* ------------------------------------------------------------------------
** local.c / remote.c
*/
/* Open the data directory as the local backend of sh (interactive: INSERTs
** start background jobs). Returns 0, or -1 with err set (SQLSTATE 55006
** when another process holds the directory). */
int sl_local_open(sl_shell *sh, const char *data_dir, bool interactive, sl_error *err);

/* How to reach a server: NULL fields are left to libpq (PGHOST, PGUSER,
** ...); port defaults to $PGPORT, else SL_SERVE_DEFAULT_PORT. */
typedef struct sl_conninfo {
    const char *host;     /* -h */
    const char *port;     /* -p */
    const char *user;     /* -U */
    const char *dbname;   /* -d (a conninfo string or URI too, as psql's) */
    int prompt_password;  /* -W: 1 always, -w: -1 never, 0 when the server asks */
} sl_conninfo;

/* Connect sh's remote backend. Returns 0, or -1 after printing libpq's
** message to stderr. */
int sl_remote_open(sl_shell *sh, const sl_conninfo *ci);

/* When the data directory is held by a running `sluice serve`: its address
** (host, port: caller frees host). Returns 0, or -1 when no live server
** holds it. */
int sl_remote_server_of(const char *data_dir, char **host, int *port);

/* ------------------------------------------------------------------------
** script.c
*/
/* Run one statement's text (a backslash command's) and print its result;
** 0 or -1. */
int sl_shell_run_sql(sl_shell *sh, const char *sql);
/* backslash.c: a REPL line starting with a backslash (\?, \h, \d, \dt,
** \dv, \d name; anything else: "invalid command"): answered, true; else false. */
bool sl_shell_backslash(sl_shell *sh, const char *line, size_t len);
/* Run the statements of text[0..len) in order. Only complete statements
** (ended by ';') run unless final is set, in which case a last statement
** without ';' runs too. name is the script name for error prefixes (NULL for
** none). Sets *consumed to the number of bytes whose statements ran (the REPL
** keeps the rest as pending input). Returns 1 when the caller must stop (a
** failure without --continue-on-error in a script, or quit/exit), else 0. */
int sl_shell_run_text(sl_shell *sh, const char *name, const char *text, size_t len, bool final,
                      size_t *consumed);

/* Read a whole file ("-" = standard input) into *out (NUL-terminated, caller
** frees). Returns 0, or -1 after printing "sluice: could not read file ..."
** to stderr. */
int sl_shell_read_file(const char *path, char **out, size_t *len);

/* True when s[0..len) is only whitespace and comments. */
bool sl_shell_is_blank(const char *s, size_t len);

/* True when s[0..len), trimmed, is quit / exit (any case, optional ';');
** with backslash_q, "\q" too. */
bool sl_shell_is_quit(const char *s, size_t len, bool backslash_q);

/* ------------------------------------------------------------------------
** output.c
*/
/* Collects the output of one statement: notices are printed as they come,
** rows are buffered so that columns can be aligned (past
** SL_TABLE_MAX_BUFFERED rows the table streams with the widths it has). */
#define SL_TABLE_MAX_BUFFERED 1000

typedef struct sl_printer {
    sl_shell *sh;             /* options (quiet, cancel) */
    const sl_stmt_src *src;   /* statement, for notice prefixes */
    int ncols;                /* columns of the result; 0 before begin() */
    bool has_result;          /* begin() was called */
    char **names;             /* display forms of the column names */
    bool *right;              /* right-align this column (numeric type) */
    sl_type *types;           /* column types from begin() */
    int *widths;              /* display width of each column */
    sl_list *rows;            /* buffered rows: char*[ncols] of display forms */
    int64_t nrows;            /* rows received */
    bool streaming;           /* header printed; rows print as they arrive */
    char *tag;                /* command tag from complete(), or NULL */
} sl_printer;

/* Prepare p for one statement; sink receives callbacks that fill p. */
void sl_printer_init(sl_printer *p, sl_shell *sh, const sl_stmt_src *src, sl_result_sink *sink);
/* After the statement: print the table (or "Empty set") or the command tag
** when ok; when not ok only close a table that was already streaming. */
void sl_printer_finish(sl_printer *p, bool ok);
/* Free what p holds (safe after finish). */
void sl_printer_free(sl_printer *p);

/* Print an error block to stderr (see docs/SHELL.md):
**   [NAME:LINE:COL: ]ERROR:  message
**   LINE n: <the statement line, cut around the position>
**           ^
**   DETAIL:  ...
**   HINT:  ...
**   SQLSTATE: xxxxx
** src may be NULL (no statement: no prefix, no LINE block). */
void sl_print_error(const sl_stmt_src *src, const sl_error *err);
/* Print a notice (WARNING / NOTICE) to stderr: prefix (when src has a name),
** severity and message, DETAIL and HINT lines. */
void sl_print_notice(const sl_stmt_src *src, const sl_error *notice);

/* The engine's log (sl_engine_set_log, ctx = the sl_shell): a background
** job's notice, warning or failure, called from the job's thread. Printed at
** once as sl_print_notice / sl_print_error print (no prefix, no LINE block),
** or, while msg_hold is set, queued and the REPL's thread woken. */
void sl_shell_job_message(void *ctx, const sl_error *msg);
/* Print the queued job messages (from the REPL's thread); with
** newline_first, a newline before them (the cursor is on the prompt line).
** Returns how many were printed. */
int sl_shell_flush_messages(sl_shell *sh, bool newline_first);

/* Display width of one UTF-8 sequence at s[0..n): sets *len to its byte length
** (1 for an invalid byte, *valid = false) and returns 0, 1 or 2 columns. */
int sl_utf8_char(const char *s, size_t n, size_t *len, bool *valid);

/* ------------------------------------------------------------------------
** repl.c
*/
/* The interactive loop on the terminal. Returns the exit status (0: statement
** failures in the REPL do not change it). */
int sl_repl_run(sl_shell *sh);

#endif /* SL_SHELL_H */
