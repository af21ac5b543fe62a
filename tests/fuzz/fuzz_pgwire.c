/*
** fuzz_pgwire.c — libFuzzer target for the wire protocol's decoder and state
** machine (server/conn.c, wire.c, scram.c) without sockets: the input's
** bytes are what a client sent, read through the connection's io_read over
** a memory buffer, in chunks whose size the first byte picks (so messages
** arrive split as TCP may split them); what the server writes is dropped.
**
**   first byte & 1        --auth scram (a users file with user "fuzz"; other
**                         names take the mock verifier path)
**   first byte >> 1       0: every read gets all that is left; else reads
**                         of at most that many bytes
**   the rest              the client's byte stream: startup-class packets
**                         (SSLRequest / GSSENCRequest are answered 'N'),
**                         the startup packet, SASL messages, then messages
**
** Statements run in a real engine over a temporary data directory, as if the
** server were stopping: each one is cancelled, so an unbounded query cannot
** hang the fuzzer. Decoding must never crash, leak, read out of bounds or
** loop: every input ends with the connection closed.
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *sl__root;     /* the temporary data directory */
static sl_server sl__srv;  /* the server every input connects to */

/* The client's bytes. */
typedef struct sl__feed {
    const uint8_t *p;
    size_t left;
    size_t chunk; /* 0: all that is left */
} sl__feed;

static sl__feed sl__in;

static ssize_t sl__mem_read(sl_conn *c, void *buf, size_t n)
{
    (void)c;
    size_t k = sl__in.left < n ? sl__in.left : n;
    if (sl__in.chunk && k > sl__in.chunk)
        k = sl__in.chunk;
    memcpy(buf, sl__in.p, k);
    sl__in.p += k;
    sl__in.left -= k;
    return (ssize_t)k;
}

static ssize_t sl__mem_write(sl_conn *c, const void *buf, size_t n)
{
    (void)c;
    (void)buf;
    return (ssize_t)n;
}

static void sl__die(const char *what, const sl_error *err)
{
    fprintf(stderr, "fuzz_pgwire: %s: %s\n", what, err && err->message ? err->message : "?");
    abort();
}

static void sl__cleanup(void)
{
    sl_error err = SL_ERROR_INIT;
    if (sl__srv.eng)
        sl_engine_close(sl__srv.eng);
    sl_list_free(sl__srv.conns, NULL);
    pthread_mutex_destroy(&sl__srv.mu);
    sl_fs_remove_tree(sl__root, &err);
    sl_error_reset(&err);
    sl_free((char *)sl__srv.cfg.data_dir);
    free(sl__root);
}

static void sl__setup(void)
{
    if (sl__root)
        return;
    char tmpl[] = "/tmp/fuzz-pgwire-XXXXXX";
    if (!mkdtemp(tmpl))
        sl__die("mkdtemp", NULL);
    sl__root = strdup(tmpl);
    char *dir = sl_path_join(sl__root, "data");
    sl_error err = SL_ERROR_INIT;
    if (sl_engine_open(dir, &sl__srv.eng, &err) != 0)
        sl__die("engine", &err);
    char *verifier = NULL, *users = sl_path_join(dir, "users");
    if (sl_scram_verifier_new("fuzz-password", &verifier, &err) != 0)
        sl__die("verifier", &err);
    char *line = sl_sprintf("fuzz:%s\n", verifier);
    if (sl_fs_write_atomic(users, line, strlen(line), &err) != 0)
        sl__die("users", &err);
    sl_free(line);
    sl_free(verifier);
    sl_free(users);
    sl__srv.cfg.data_dir = dir;
    pthread_mutex_init(&sl__srv.mu, NULL);
    sl__srv.conns = sl_list_new();
    sl__srv.stopping = 1; /* every statement is cancelled */
    sl__srv.auth_fail_delay = 0;
    atexit(sl__cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    sl__setup();
    sl__srv.cfg.auth_scram = data[0] & 1;
    sl__in = (sl__feed){data + 1, size - 1, (size_t)(data[0] >> 1)};
    sl_conn *c = sl_calloc(1, sizeof *c);
    c->srv = &sl__srv;
    c->fd = -1;
    c->io_read = sl__mem_read;
    c->io_write = sl__mem_write;
    snprintf(c->peer, sizeof c->peer, "fuzz");
    pthread_mutex_lock(&sl__srv.mu);
    sl__srv.nconns++;
    c->pid = 1;
    c->secret = 2;
    sl_list_push(sl__srv.conns, c);
    pthread_mutex_unlock(&sl__srv.mu);
    sl_conn_main(c); /* frees c */
    if (sl__srv.nconns != 0 || sl_list_len(sl__srv.conns) != 0)
        sl__die("connection not released", NULL);
    return 0;
}
