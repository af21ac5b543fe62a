/*
** main.c — the `sluice` command: arguments, modes and exit codes.
**
**   sluice [-D DIR] [-q] [--continue-on-error] [--format F] [-e SQL | -f FILE]...
**   sluice -h HOST [-p PORT] [-U USER] [-d DB] [-W] [-q] [-e SQL | -f FILE]...
**
** With -h, -p, -U, -d, -W or -w the statements run on a `sluice serve`
** through libpq (remote.c); otherwise in the data directory's engine
** (local.c), or, when a running server holds that directory, on that server
** (attach: a notice says so).
** -e and -f may be repeated and run in the order given. Without them the
** shell is the interactive REPL when standard input is a terminal, and runs
** standard input as a script otherwise. Every input file is read before the
** data directory is opened, so a missing file changes nothing on disk. When
** standard input holds statements (a script on it, -f -, the REPL) it is
** claimed (sl_stdin_claim_for_script): no 'stdin' table can read it then.
** Exit status: 0 all statements succeeded, 1 a statement failed, 2 usage
** error, unreadable file, unusable data directory or no connection to the
** server, 130 a script ended by Ctrl-C (docs/SHELL.md).
**
** Scripts run an INSERT to its end ('table.dml-sync' defaults to true); the
** REPL starts it in the background (false). A script that SETs it to false
** waits at its end for its background jobs: bounded ones finish, and Ctrl-C
** or SIGTERM stops the others with a savepoint.
**
** Main routines: main, parse_args, open_backend, run.
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
    const char *data_dir;   /* -D / --data-dir, else $SLUICE_DATA, else ./sluice-data */
    bool remote;            /* -h, -p, -U, -d, -W or -w: a server, through libpq */
    sl_conninfo ci;         /* how to reach it */
    bool quiet;             /* -q */
    bool continue_on_error; /* --continue-on-error */
    sl_out_format format;   /* --format, --csv */
    sl_list *inputs;        /* of sl_input*, in order */
} sl_args;

static void usage(FILE *f)
{
    fputs("Usage: sluice [OPTION]...\n"
          "Run Flink SQL statements against a Sluice data directory, or a Sluice server.\n"
          "\n"
          "  -D, --data-dir=DIR        data directory (default: $SLUICE_DATA, else ./sluice-data);\n"
          "                            when a running server holds it, its statements run there\n"
          "  -e, --execute=SQL         run SQL (one or more statements) and exit\n"
          "  -f, --file=FILE           run the statements of FILE (\"-\" = standard input) and exit\n"
          "      --continue-on-error   keep running after a failed statement (exit status stays 1)\n"
          "  -q, --quiet               do not print command tags (CREATE TABLE, SET, ...)\n"
          "      --format=FORMAT       how results print: table (default), csv, tsv or json\n"
          "                            (JSON Lines: an object a row)\n"
          "      --csv                 the same as --format=csv\n"
          "  -?, --help                show this help and exit\n"
          "  -V, --version             show the version and exit\n"
          "\n"
          "Connecting to a server (`sluice serve`) instead, through libpq:\n"
          "  -h, --host=HOST           server host or socket directory (default: $PGHOST, else local)\n"
          "  -p, --port=PORT           server port (default: $PGPORT, else 5434)\n"
          "  -U, --username=USER       user name (default: $PGUSER, else the login name)\n"
          "  -d, --dbname=DB           database name or connection string (default: $PGDATABASE)\n"
          "  -W, --password            ask for the password before connecting\n"
          "  -w, --no-password         never ask for a password\n"
          "\n"
          "Without -e or -f: an interactive shell when standard input is a terminal,\n"
          "else standard input is run as a script.\n"
          "Exit status: 0 success, 1 a statement failed, 2 usage error, unreadable file,\n"
          "unusable data directory or no connection to the server, 130 interrupted by\n"
          "Ctrl-C.\n",
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
    enum { OPT_CONTINUE = 256, OPT_HELP, OPT_FORMAT, OPT_CSV };
    static const struct option longopts[] = {
        {"data-dir", required_argument, NULL, 'D'},
        {"host", required_argument, NULL, 'h'},
        {"port", required_argument, NULL, 'p'},
        {"username", required_argument, NULL, 'U'},
        {"dbname", required_argument, NULL, 'd'},
        {"password", no_argument, NULL, 'W'},
        {"no-password", no_argument, NULL, 'w'},
        {"execute", required_argument, NULL, 'e'},
        {"file", required_argument, NULL, 'f'},
        {"continue-on-error", no_argument, NULL, OPT_CONTINUE},
        {"quiet", no_argument, NULL, 'q'},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"csv", no_argument, NULL, OPT_CSV},
        {"help", no_argument, NULL, OPT_HELP},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    bool data_dir_given = false;
    while ((c = getopt_long(argc, argv, "D:e:f:qV?h:p:U:d:Ww", longopts, NULL)) != -1) {
        switch (c) {
        case 'D': a->data_dir = optarg; data_dir_given = true; break;
        case 'h': a->ci.host = optarg; a->remote = true; break;
        case 'p': a->ci.port = optarg; a->remote = true; break;
        case 'U': a->ci.user = optarg; a->remote = true; break;
        case 'd': a->ci.dbname = optarg; a->remote = true; break;
        case 'W': a->ci.prompt_password = 1; a->remote = true; break;
        case 'w': a->ci.prompt_password = -1; a->remote = true; break;
        case 'e': add_input(a, false, optarg); break;
        case 'f': add_input(a, true, optarg); break;
        case 'q': a->quiet = true; break;
        case OPT_CONTINUE: a->continue_on_error = true; break;
        case OPT_CSV: a->format = SL_FORMAT_CSV; break;
        case OPT_FORMAT:
            if (sl_format_parse(optarg, &a->format) != 0) {
                fprintf(stderr, "sluice: unknown output format \"%s\" (table, csv, tsv or json)\n"
                                "Try 'sluice --help' for more information.\n",
                        optarg);
                *exit_code = SL_EXIT_USAGE;
                return -1;
            }
            break;
        case 'V': printf("sluice %s\n", SLUICE_VERSION); *exit_code = SL_EXIT_OK; return -1;
        case OPT_HELP: usage(stdout); *exit_code = SL_EXIT_OK; return -1;
        case '?':
            if (strcmp(argv[optind - 1], "-?") == 0) {
                usage(stdout);
                *exit_code = SL_EXIT_OK;
                return -1;
            }
            /* getopt printed the problem */
            /* fall through */
        default:
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
    if (a->remote && data_dir_given) {
        fputs("sluice: --data-dir cannot be used with a server connection (-h, -p, -U, -d)\n"
              "Try 'sluice --help' for more information.\n",
              stderr);
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

static volatile sig_atomic_t g_stop;   /* SIGINT / SIGTERM while running a script */
static volatile sig_atomic_t g_sigint; /* ... and it was SIGINT (Ctrl-C): exit 130 */

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
    sh->be->finish(sh, true, &g_stop);
    pthread_mutex_lock(&sh->msg_mu);
    if (sh->job_failed)
        sh->status = SL_EXIT_FAILED;
    pthread_mutex_unlock(&sh->msg_mu);
    if (g_sigint) /* as a shell reports a command Ctrl-C ended: 128 + SIGINT */
        sh->status = SL_EXIT_INTERRUPTED;
    return sh->status;
}

static void on_stop_signal(int sig)
{
    if (sig == SIGINT)
        g_sigint = 1;
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
    sh->be->set_interrupt(sh, &g_stop);
}

/* The backend: the server named by -h/-p/-U/-d; else the data directory,
** or, when a running server holds it, that server. Returns 0, or -1 after
** printing why. */
static int open_backend(sl_shell *sh, sl_args *a, bool interactive)
{
    if (a->remote)
        return sl_remote_open(sh, &a->ci);
    sl_error err = SL_ERROR_INIT;
    if (sl_local_open(sh, a->data_dir, interactive, &err) == 0)
        return 0;
    char *host = NULL;
    int port = 0;
    if (strcmp(err.sqlstate, SL_ERR_OBJECT_IN_USE) != 0 ||
        sl_remote_server_of(a->data_dir, &host, &port) != 0) {
        sl_print_error(NULL, &err);
        sl_error_reset(&err);
        return -1;
    }
    sl_error_reset(&err);
    char port_s[16];
    snprintf(port_s, sizeof port_s, "%d", port);
    sl_conninfo ci = {host, port_s, NULL, NULL, 0};
    int rc = sl_remote_open(sh, &ci);
    if (rc == 0) {
        sl_error note = SL_ERROR_INIT;
        note.severity = SL_SEV_NOTICE;
        note.message = sl_sprintf("connected to the server at %s:%d (it holds %s)", host, port,
                                  a->data_dir);
        sl_print_notice(NULL, &note);
        sl_error_reset(&note);
    }
    sl_free(host);
    return rc;
}

/* Open the backend and run the REPL or the inputs. Returns the exit
** status. */
static int run(sl_args *a, bool interactive)
{
    sl_shell sh = {0};
    sh.quiet = a->quiet;
    sh.continue_on_error = a->continue_on_error;
    sh.interactive = interactive;
    sh.format = a->format;
    pthread_mutex_init(&sh.msg_mu, NULL);
    sh.msg_queue = sl_list_new();
    int code = SL_EXIT_USAGE;
    if (open_backend(&sh, a, interactive) == 0) {
        if (!interactive)
            install_stop_handlers(&sh);
        code = interactive ? sl_repl_run(&sh) : run_inputs(&sh, a);
        sh.be->close(&sh);
    }
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
    sl_args args = {0};
    args.inputs = sl_list_new();
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
