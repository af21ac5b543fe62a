/*
** shell.h — internal interface of the `sluice` command (not installed).
**
** The shell is eight small pieces:
**   main.c    arguments, modes, exit codes;
**   local.c   the local backend: the data directory's engine and a session;
**   remote.c  the remote backend: a `sluice serve` reached through libpq
**             (-h/-p/-U/-d, or attached when a server holds the directory);
**   script.c  splitting text into statements and running them (-e, -f, stdin,
**             and the REPL's complete statements);
**   output.c  result tables, command tags, errors and notices;
**   format.c  results for scripts: --format csv, tsv, json;
**   tview.c   result mode 'table' on a terminal: the full-screen view;
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
#define SL_EXIT_INTERRUPTED 130 /* a script ended by Ctrl-C (SIGINT): 128 + 2, as shells */

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

/* How results print (--format). */
typedef enum sl_out_format {
    SL_FORMAT_TABLE, /* the tableau table (the default) */
    SL_FORMAT_CSV,   /* RFC 4180, a header line */
    SL_FORMAT_TSV,   /* COPY text escapes, a header line */
    SL_FORMAT_JSON,  /* JSON Lines: an object a row */
} sl_out_format;
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
    sl_out_format format;            /* --format */
    bool table_view;                 /* REPL on a terminal, local: result mode 'table' is full-screen */
    volatile sig_atomic_t *cancel;   /* set (by SIGINT) to cancel the running statement; may be NULL */
    int status;                      /* SL_EXIT_FAILED once any statement failed */
    bool quit;                       /* quit / exit was seen */
    pthread_mutex_t msg_mu;          /* guards the fields below (jobs' threads print too) */
    bool msg_hold;                   /* the REPL waits for a key: queue job messages, wake it */
    pthread_t msg_reader;            /* msg_hold: the REPL's thread, woken with SIGUSR1 */
    sl_list *msg_queue;              /* job messages held for the REPL (sl_shell_msg*) */
    bool job_failed;                 /* a background job failed */
    /* status.c: a synchronous INSERT's status line (guarded by stderr's lock) */
    bool status_active;              /* a statement runs: progress may draw it */
    bool status_shown;               /* it is on the screen */
    int64_t status_drawn;            /* when it was last drawn */
};

/* A message held for the REPL: a job's notice or error, or lines a print
** sink wrote. */
typedef struct sl_shell_msg {
    sl_error *err;  /* a job message, or NULL */
    char *text;     /* else these bytes (whole lines) */
    size_t len;
    bool to_stderr; /* the lines go to standard error */
} sl_shell_msg;

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
** status.c
*/
/* Show a synchronous INSERT's live status line (interactive, stderr a
** terminal, local backend: call after sl_local_open). */
void sl_status_enable(sl_shell *sh);
/* A statement starts: its job's progress may draw the line (after 0.5 s). */
void sl_status_begin(sl_shell *sh);
/* Erase the line if shown (before any output); end: the statement ended. */
void sl_status_clear(sl_shell *sh, bool end);

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
** rows are buffered so that columns can be aligned; the table streams with
** the widths it has past SL_TABLE_MAX_BUFFERED rows, or when rows are still
** coming SL_TABLE_STREAM_MS after the first in a query over a source
** without end (it shows its rows as they arrive; a bounded result waits, so
** that its table does not depend on timing). */
#define SL_TABLE_MAX_BUFFERED 1000
#define SL_TABLE_STREAM_MS 300

typedef struct sl_tview sl_tview;

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
    bool bounded;             /* the query's sources end: no timer, the table waits */
    bool raw;                 /* a statement's text (SHOW CREATE): printed as is */
    char *tag;                /* command tag from complete(), or NULL */
    char **raw_names;         /* the column names as given (csv, tsv, json) */
    pthread_mutex_t mu;       /* rows come from the job's threads; the timer prints too */
    pthread_cond_t cv;        /* wakes the timer when the statement ends */
    pthread_t timer;          /* starts streaming SL_TABLE_STREAM_MS after the first row */
    bool timer_running;       /* timer was started (join it) */
    bool done;                /* the statement ended: the timer does nothing more */
    int64_t first_row_ms;     /* when the first buffered row came (monotonic) */
    sl_tview *view;           /* the full-screen view of result mode 'table', or NULL */
    sl_list *held;            /* notices (sl_error*) held while the view covers the screen */
} sl_printer;

/* Prepare p for one statement; sink receives callbacks that fill p. */
void sl_printer_init(sl_printer *p, sl_shell *sh, const sl_stmt_src *src, sl_result_sink *sink);
/* After the statement: print the table (or "Empty set") or the command tag
** when ok; when not ok only close a table that was already streaming. When
** Ctrl-C cancelled it after its result began: the rows so far, closed, and
** "Query terminated, received a total of N rows". */
void sl_printer_finish(sl_printer *p, bool ok);
/* Free what p holds (safe after finish). */
void sl_printer_free(sl_printer *p);

/* ------------------------------------------------------------------------
** format.c
*/
/* "table", "csv", "tsv" or "json" (any case) into *out; -1 when unknown. */
int sl_format_parse(const char *name, sl_out_format *out);
/* The header line (csv, tsv; nothing for json). */
void sl_format_header(sl_out_format f, int ncols, const char *const *names);
/* One row as one line (values NULL = SQL NULL, lens their lengths). */
void sl_format_row(sl_out_format f, int ncols, const char *const *names, const sl_type *types,
                   const char *const *values, const size_t *lens);

/* ------------------------------------------------------------------------
** tview.c
*/
/* Open the full-screen view of a result (ncols columns after the op
** column names[0]): the alternate screen, the terminal's keys read by a
** thread of its own. Returns NULL when the terminal cannot be used. */
sl_tview *sl_tview_open(sl_shell *sh, int ncols, const char *const *names, const sl_type *types);
/* One change: values[0] is the op (+I, -U, +U, -D), then the columns.
** Returns non-zero once the user quit (q or Ctrl-C): cancel the query. */
int sl_tview_change(sl_tview *v, const char *const *values, const size_t *lens);
/* The query ended (ok, or failed / cancelled): unless the user quit
** already, the view stays until q or Ctrl-C; then the normal screen and the
** terminal's modes come back. Frees v. Returns the rows the view held. */
int64_t sl_tview_close(sl_tview *v, bool ok);

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
/* Where print sinks write while the shell runs (sl_print_set_writer, ctx =
** the sl_shell): as sl_shell_job_message, their lines queued for the REPL
** while it waits for a key and printed above a redrawn prompt. */
void sl_shell_print_lines(void *ctx, bool to_stderr, const char *text, size_t len);
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
