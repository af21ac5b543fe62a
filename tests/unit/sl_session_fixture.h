/*
** sl_session_fixture.h — what the session-level unit tests share
** (test_planner_jobs.c, test_planner_savepoint.c): a result sink that
** collects a statement's rows ("a|b" lines), notices and tag (run), the
** engine's log of background jobs (on_log), a fresh directory under
** SLUICE_TEST_TMP (tmpdir), a file's text (slurp).
*/
#ifndef SL_SESSION_FIXTURE_H
#define SL_SESSION_FIXTURE_H

#include "sl_test.h"

#include "../../planner/sl_planner.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A statement's rows ("a|b\n" lines), notices, tag. */
typedef struct collect {
    sl_strbuf rows;    /* rows */
    sl_strbuf notices; /* notice messages, one per line */
    char tag[64];      /* command tag */
    int ncols;         /* columns of the result */
    int nrows;         /* rows */
} collect;

static inline int c_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    collect *c = ctx;
    (void)names;
    (void)types;
    c->ncols = ncols;
    return 0;
}

static inline int c_row(void *ctx, const char *const *values, const size_t *lens)
{
    collect *c = ctx;
    for (int i = 0; i < c->ncols; i++) {
        if (i)
            sl_strbuf_append_char(&c->rows, '|');
        sl_strbuf_append(&c->rows, values[i] ? values[i] : "<NULL>");
    }
    sl_strbuf_append_char(&c->rows, '\n');
    c->nrows++;
    return 0;
}

static inline void c_notice(void *ctx, const sl_error *n)
{
    collect *c = ctx;
    sl_strbuf_append(&c->notices, n->message);
    sl_strbuf_append_char(&c->notices, '\n');
}

static inline void c_complete(void *ctx, const char *tag)
{
    collect *c = ctx;
    snprintf(c->tag, sizeof c->tag, "%s", tag);
}

static inline void c_free(collect *c)
{
    sl_strbuf_free(&c->rows);
    sl_strbuf_free(&c->notices);
}

/* Run one statement; rows into c (reset first); err reset first. */
static inline int run(sl_session *s, const char *sql, collect *c, sl_error *err)
{
    sl_strbuf_reset(&c->rows);
    sl_strbuf_reset(&c->notices);
    c->tag[0] = 0;
    c->ncols = c->nrows = 0;
    sl_result_sink out = {c, c_begin, c_row, c_notice, c_complete, NULL};
    sl_error_reset(err);
    return sl_session_exec(s, sql, strlen(sql), &out, err);
}

/* The engine's log: messages of background jobs (from their threads). */
typedef struct log_box {
    pthread_mutex_t mu; /* guards text */
    sl_strbuf text;     /* "SEVERITY sqlstate message\n" per message */
} log_box;

static inline void on_log(void *ctx, const sl_error *msg)
{
    log_box *l = ctx;
    pthread_mutex_lock(&l->mu);
    sl_strbuf_appendf(&l->text, "%s %s %s\n",
                      msg->severity == SL_SEV_ERROR     ? "ERROR"
                      : msg->severity == SL_SEV_WARNING ? "WARNING"
                                                        : "NOTICE",
                      msg->sqlstate, msg->message);
    pthread_mutex_unlock(&l->mu);
}

static inline char *tmpdir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *root = sl_sprintf("%s/jobs-%d", base ? base : "/tmp", (int)getpid());
    sl_error err = SL_ERROR_INIT;
    sl_fs_mkdir_p(root, &err);
    char *d = sl_sprintf("%s/%s", root, name);
    char *cmd = sl_sprintf("rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "rm failed\n");
    sl_free(cmd);
    sl_free(root);
    return d;
}

static inline char *slurp(const char *path)
{
    char *text = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_fs_read_file(path, &text, NULL, &err) != 0) {
        sl_error_reset(&err);
        return NULL;
    }
    return text;
}

#endif
