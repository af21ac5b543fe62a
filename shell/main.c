/*
** main.c — the `sluice` command: arguments, modes and exit codes.
**
**   sluice [--data-dir DIR] [-q] [--continue-on-error] [-e SQL | -f FILE]...
**
** -e and -f may be repeated and run in the order given. Without them the
** shell is the interactive REPL when standard input is a terminal, and runs
** standard input as a script otherwise. Every input file is read before the
** data directory is opened, so a missing file changes nothing on disk. When
** standard input holds statements (a script on it, -f -, the REPL) it is
** claimed (sl_stdin_claim_for_script): no 'stdin' table can read it then.
** Exit status: 0 all statements succeeded, 1 a statement failed, 2 usage
** error, unreadable file or unusable data directory (docs/SHELL.md).
**
** Scripts run an INSERT to its end ('table.dml-sync' defaults to true); the
** REPL starts it in the background (false). A script that SETs it to false
** waits at its end for its background jobs: bounded ones finish, and Ctrl-C
** or SIGTERM stops the others with a savepoint.
**
** Main routines: main, parse_args, run.
*/
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../connectors/sl_connector.h"
#include "../server/sl_server.h"
#include "shell.h"

#define SL_DEFAULT_DATA_DIR "./sluice-data"

/* One -e or -f in command-line order. */
typedef struct sl_input {
    bool is_file; /* -f (text read from path) or -e (text given) */
    char *path;   /* -f FILE as given ("-" = standard input) */
    char *name;   /* error prefix: the path, "<stdin>", or NULL for -e */
    char *text;   /* the SQL; owned */
    size_t len;   /* its length */
} sl_input;

/* Parsed command line. */
typedef struct sl_args {
    const char *data_dir;   /* --data-dir, else $SLUICE_DATA, else ./sluice-data */
    bool quiet;             /* -q */
    bool continue_on_error; /* --continue-on-error */
    sl_list *inputs;        /* of sl_input*, in order */
} sl_args;

static void usage(FILE *f)
{
    fputs("Usage: sluice [OPTION]...\n"
          "Run Flink SQL statements against a Sluice data directory.\n"
          "\n"
          "  -d, --data-dir=DIR        data directory (default: $SLUICE_DATA, else ./sluice-data)\n"
          "  -e, --execute=SQL         run SQL (one or more statements) and exit\n"
          "  -f, --file=FILE           run the statements of FILE (\"-\" = standard input) and exit\n"
          "      --continue-on-error   keep running after a failed statement (exit status stays 1)\n"
          "  -q, --quiet               do not print command tags (CREATE TABLE, SET, ...)\n"
          "  -h, --help                show this help and exit\n"
          "  -V, --version             show the version and exit\n"
          "\n"
          "Without -e or -f: an interactive shell when standard input is a terminal,\n"
          "else standard input is run as a script.\n"
          "Exit status: 0 success, 1 a statement failed, 2 usage error, unreadable file\n"
          "or unusable data directory.\n",
          f);
}

static void input_free(void *p)
{
    sl_input *in = p;
    sl_free(in->path);
    sl_free(in->name);
    sl_free(in->text);
    sl_free(in);
}

static void add_input(sl_args *a, bool is_file, const char *arg)
{
    sl_input *in = sl_calloc(1, sizeof *in);
    in->is_file = is_file;
    if (is_file) {
        if (strcmp(arg, "-") == 0)
            sl_stdin_claim_for_script(); /* standard input holds statements, not data */
        in->path = sl_strdup(arg);
        in->name = sl_strdup(strcmp(arg, "-") == 0 ? "<stdin>" : arg);
    } else {
        in->text = sl_strdup(arg);
        in->len = strlen(arg);
    }
    sl_list_push(a->inputs, in);
}

/* Parse argv into a. Returns -1 to exit with *exit_code (help, version,
** usage error), else 0. */
static int parse_args(int argc, char **argv, sl_args *a, int *exit_code)
{
    enum { OPT_CONTINUE = 256 };
    static const struct option longopts[] = {
        {"data-dir", required_argument, NULL, 'd'},
        {"execute", required_argument, NULL, 'e'},
        {"file", required_argument, NULL, 'f'},
        {"continue-on-error", no_argument, NULL, OPT_CONTINUE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "d:e:f:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': a->data_dir = optarg; break;
        case 'e': add_input(a, false, optarg); break;
        case 'f': add_input(a, true, optarg); break;
        case 'q': a->quiet = true; break;
        case OPT_CONTINUE: a->continue_on_error = true; break;
        case 'h': usage(stdout); *exit_code = SL_EXIT_OK; return -1;
        case 'V': printf("sluice %s\n", SLUICE_VERSION); *exit_code = SL_EXIT_OK; return -1;
        default: /* getopt printed the problem */
            fputs("Try 'sluice --help' for more information.\n", stderr);
            *exit_code = SL_EXIT_USAGE;
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sluice: unexpected argument \"%s\"\n"
                        "Try 'sluice --help' for more information.\n", argv[optind]);
        *exit_code = SL_EXIT_USAGE;
        return -1;
    }
    if (!a->data_dir || !*a->data_dir) {
        const char *env = getenv("SLUICE_DATA");
        a->data_dir = env && *env ? env : SL_DEFAULT_DATA_DIR;
    }
    return 0;
}

/* Read every -f file (at most one read of standard input). Returns 0, or -1
** after printing why a file could not be read. */
static int read_inputs(sl_args *a)
{
    bool stdin_used = false;
    for (int i = 0; i < sl_list_len(a->inputs); i++) {
        sl_input *in = sl_list_get(a->inputs, i);
        if (!in->is_file)
            continue;
        if (strcmp(in->path, "-") == 0) {
            if (stdin_used) {
                in->text = sl_strdup("");
                continue;
            }
            stdin_used = true;
        }
        if (sl_shell_read_file(in->path, &in->text, &in->len) != 0)
            return -1;
    }
    return 0;
}

static volatile sig_atomic_t g_stop; /* SIGINT / SIGTERM while running a script */

/* The end of a script: its background jobs run on until they end (bounded
** inputs) or Ctrl-C / SIGTERM comes; then every job still running stops
** with a savepoint. */
static void finish_jobs(sl_shell *sh)
{
    int n = sl_engine_running_jobs(sh->engine);
    if (n > 0 && !g_stop) {
        sl_error note = SL_ERROR_INIT;
        note.severity = SL_SEV_NOTICE;
        note.message = sl_sprintf("waiting for %d background job%s to end (Ctrl-C stops %s with a "
                                  "savepoint)",
                                  n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
        sl_print_notice(NULL, &note);
        sl_error_reset(&note);
        sl_engine_wait_jobs(sh->engine, &g_stop);
    }
    sl_engine_stop_jobs(sh->engine);
}

/* Run the inputs in order; stop at the first failure unless
** --continue-on-error, and at quit/exit; then finish the background jobs.
** Returns the exit status (1 also when a background job failed). */
static int run_inputs(sl_shell *sh, sl_args *a)
{
    for (int i = 0; i < sl_list_len(a->inputs) && !sh->quit; i++) {
        sl_input *in = sl_list_get(a->inputs, i);
        size_t consumed;
        if (sl_shell_run_text(sh, in->name, in->text, in->len, true, &consumed) != 0 &&
            !sh->quit)
            break;
    }
    finish_jobs(sh);
    pthread_mutex_lock(&sh->msg_mu);
    if (sh->job_failed)
        sh->status = SL_EXIT_FAILED;
    pthread_mutex_unlock(&sh->msg_mu);
    return sh->status;
}

static void on_stop_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* Scripts: Ctrl-C or SIGTERM stops a running job after a final checkpoint
** kept as a savepoint, and runs nothing more. */
static void install_stop_handlers(sl_shell *sh)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sh->cancel = &g_stop;
    sl_session_set_interrupt(sh->session, &g_stop);
}

/* Open the data directory and run the REPL or the inputs. Returns the exit
** status. */
static int run(sl_args *a, bool interactive)
{
    sl_shell sh = {0};
    sh.quiet = a->quiet;
    sh.continue_on_error = a->continue_on_error;
    sh.interactive = interactive;
    sl_error err = SL_ERROR_INIT;
    if (sl_engine_open(a->data_dir, &sh.engine, &err) != 0) {
        sl_print_error(NULL, &err);
        sl_error_reset(&err);
        return SL_EXIT_USAGE;
    }
    pthread_mutex_init(&sh.msg_mu, NULL);
    sh.msg_queue = sl_list_new();
    sl_engine_set_log(sh.engine, sl_shell_job_message, &sh);
    sh.session = sl_session_new(sh.engine);
    sl_session_set_dml_sync(sh.session, !interactive);
    if (!interactive)
        install_stop_handlers(&sh);
    int code = interactive ? sl_repl_run(&sh) : run_inputs(&sh, a);
    sl_session_free(sh.session);
    sl_engine_close(sh.engine); /* no job runs any more: its log is ours no longer */
    sl_list_free(sh.msg_queue, NULL);
    pthread_mutex_destroy(&sh.msg_mu);
    return code;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return sl_serve_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "user") == 0)
        return sl_user_main(argc - 1, argv + 1);
    sl_args args = {NULL, false, false, sl_list_new()};
    int code = SL_EXIT_OK;
    if (parse_args(argc, argv, &args, &code) == 0) {
        bool interactive = sl_list_len(args.inputs) == 0 && isatty(STDIN_FILENO);
        if (sl_list_len(args.inputs) == 0 && !interactive)
            add_input(&args, true, "-");
        if (interactive)
            sl_stdin_claim_for_script(); /* the REPL reads its statements from standard input */
        code = read_inputs(&args) != 0 ? SL_EXIT_USAGE : run(&args, interactive);
    }
    sl_list_free(args.inputs, input_free);
    fflush(stdout);
    return code;
}
