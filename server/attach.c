/*
** attach.c — the address file of a running server, so that a shell which
** finds the data directory held can attach to the server as a client.
**
** `sluice serve` writes <data-dir>/SLUICE.server once it listens, atomically,
** and removes it when it stops:
**     pid=12345
**     host=127.0.0.1
**     port=5434
** The shell (shell/remote.c) trusts it only while the process named in it is
** the one holding the directory's lock (SLUICE.lock holds the holder's pid)
** and still alive; a file left by a killed server is ignored (and replaced
** at the next start).
**
** Main routines: sl_server_addr_write, sl_server_addr_remove,
** sl_server_addr_read.
*/
#include "sl_server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/sl_base.h"

#define SL__ADDR_FILE "SLUICE.server"
#define SL__LOCK_FILE "SLUICE.lock"

int sl_server_addr_write(const char *data_dir, const char *host, int port, sl_error *err)
{
    char *path = sl_path_join(data_dir, SL__ADDR_FILE);
    char *text = sl_sprintf("pid=%d\nhost=%s\nport=%d\n", (int)getpid(), host, port);
    int rc = sl_fs_write_atomic(path, text, strlen(text), err);
    sl_free(text);
    sl_free(path);
    return rc;
}

void sl_server_addr_remove(const char *data_dir)
{
    char *path = sl_path_join(data_dir, SL__ADDR_FILE);
    unlink(path);
    sl_free(path);
}

/* The value of "key=" in text (up to the end of its line), or NULL. */
static char *sl__field(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, kl) == 0 && l[kl] == '=')
            return sl_strndup(l + kl + 1, strcspn(l + kl + 1, "\n"));
    return NULL;
}

/* The pid in the directory's lock file, or 0. */
static long sl__lock_pid(const char *data_dir)
{
    char *path = sl_path_join(data_dir, SL__LOCK_FILE);
    char *text = NULL;
    size_t len = 0;
    sl_error err = SL_ERROR_INIT;
    long pid = sl_fs_read_file(path, &text, &len, &err) == 0 ? strtol(text, NULL, 10) : 0;
    sl_error_reset(&err);
    sl_free(text);
    sl_free(path);
    return pid;
}

int sl_server_addr_read(const char *data_dir, char **host, int *port)
{
    *host = NULL;
    *port = 0;
    char *path = sl_path_join(data_dir, SL__ADDR_FILE);
    char *text = NULL;
    size_t len = 0;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_fs_read_file(path, &text, &len, &err);
    sl_error_reset(&err);
    sl_free(path);
    if (rc != 0)
        return -1;
    char *pid_s = sl__field(text, "pid"), *port_s = sl__field(text, "port");
    char *h = sl__field(text, "host");
    long pid = pid_s ? strtol(pid_s, NULL, 10) : 0;
    long p = port_s ? strtol(port_s, NULL, 10) : 0;
    bool alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
    rc = h && *h && p > 0 && p <= 65535 && alive && sl__lock_pid(data_dir) == pid ? 0 : -1;
    if (rc == 0) {
        /* A wildcard listen address is reached on loopback. */
        bool any4 = strcmp(h, "0.0.0.0") == 0, any6 = strcmp(h, "::") == 0 || !*h;
        *host = any4 ? sl_strdup("127.0.0.1") : any6 ? sl_strdup("::1") : sl_strdup(h);
        *port = (int)p;
    }
    sl_free(pid_s);
    sl_free(port_s);
    sl_free(h);
    sl_free(text);
    return rc;
}
