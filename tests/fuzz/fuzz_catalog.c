/*
** fuzz_catalog.c — libFuzzer target for loading what the engine wrote and
** later trusts (DESIGN.md section 10): the first byte of the input picks the
** file, the rest are its bytes.
**
**   first byte & 3 == 0   catalog.json of a data directory, opened with
**                         sl_engine_open (then SHOW TABLES / VIEWS)
**                      1   jobs/j/_job.json, read by SHOW JOBS and STOP JOB 'j'
**                  2 or 3  jobs/j/chk-1/_metadata beside two state files, read
**                         by sl_chk_latest, sl_chk_read_state, sl_chk_open_path
**                         and sl_chk_prune
**   first byte & 4        the bytes are "sealed" first: a checksum member in
**                         them is filled in (sl_checksum_embed), so inputs get
**                         past the checksum into the parsers behind it.
**
** Loading must never crash, leak or read out of bounds, and every failure
** must be a clean sl_error: a five-character SQLSTATE other than XX000 and a
** message. Files are written without fsync (the engine's own writes fsync,
** which would make the fuzzer crawl).
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_exec.h"
#include "sl_planner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *sl__root;    /* a fresh temporary directory for the run */
static sl_engine *sl__eng; /* the engine of <root>/jobs-data, for job records */
static char *sl__cat_dir;  /* <root>/catalog-data: a data directory, made once */
static sl_session *sl__sess;

static void sl__die(const char *what, const sl_error *err)
{
    fprintf(stderr, "fuzz_catalog: %s: %s\n", what, err && err->message ? err->message : "?");
    abort();
}

/* A failure must be a clean error. */
static void sl__check(int rc, const sl_error *err, const char *what)
{
    if (rc == 0)
        return;
    if (strlen(err->sqlstate) != 5 || !err->message || !err->message[0] ||
        strcmp(err->sqlstate, SL_ERR_INTERNAL) == 0)
        sl__die(what, err);
}

static void sl__put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        sl__die(path, NULL);
}

/* At exit: the engine closed, the temporary directory removed. */
static void sl__cleanup(void)
{
    sl_session_free(sl__sess);
    sl_engine_close(sl__eng);
    sl_error err = SL_ERROR_INIT;
    sl_fs_remove_tree(sl__root, &err);
    sl_error_reset(&err);
    sl_free(sl__cat_dir);
    free(sl__root);
}

static void sl__init(void)
{
    if (sl__root)
        return;
    char tmpl[] = "/tmp/sluice-fuzz-catalog-XXXXXX";
    if (!mkdtemp(tmpl))
        sl__die("mkdtemp", NULL);
    sl__root = strdup(tmpl);
    atexit(sl__cleanup);
    char *dir = sl_path_join(sl__root, "jobs-data");
    sl_error err = SL_ERROR_INIT;
    if (sl_engine_open(dir, &sl__eng, &err) != 0)
        sl__die("open", &err);
    sl_free(dir);
    sl__sess = sl_session_new(sl__eng);
    sl__cat_dir = sl_path_join(sl__root, "catalog-data");
    sl_engine *eng = NULL;
    if (sl_engine_open(sl__cat_dir, &eng, &err) != 0)
        sl__die("open", &err);
    sl_engine_close(eng);
}

/* Results are not looked at: only that running the statement is clean. */
static void sl__exec(const char *sql)
{
    sl_error err = SL_ERROR_INIT;
    int rc = sl_session_exec(sl__sess, sql, strlen(sql), NULL, &err);
    sl__check(rc, &err, sql);
    sl_error_reset(&err);
}

static void sl__catalog(const uint8_t *data, size_t size)
{
    sl_error err = SL_ERROR_INIT;
    char *path = sl_path_join(sl__cat_dir, "catalog.json");
    sl__put(path, data, size);
    sl_engine *eng = NULL;
    int rc = sl_engine_open(sl__cat_dir, &eng, &err);
    sl__check(rc, &err, "sl_engine_open");
    if (rc == 0) {
        sl_session *s = sl_session_new(eng);
        const char *stmts[] = {"SHOW TABLES", "SHOW VIEWS"};
        for (size_t i = 0; i < SL_ARRAY_LEN(stmts); i++) {
            sl_error e2 = SL_ERROR_INIT;
            sl__check(sl_session_exec(s, stmts[i], strlen(stmts[i]), NULL, &e2), &e2, stmts[i]);
            sl_error_reset(&e2);
        }
        sl_session_free(s);
        sl_engine_close(eng);
    }
    sl_error_reset(&err);
    sl_free(path);
}

static void sl__job_record(const uint8_t *data, size_t size)
{
    sl_error err = SL_ERROR_INIT;
    char *jobs = sl_path_join(sl_engine_data_dir(sl__eng), "jobs");
    sl_fs_remove_tree(jobs, &err); /* SHOW JOBS may add a job's directory */
    char *dir = sl_path_join(jobs, "j");
    if (sl_fs_mkdir_p(dir, &err) != 0)
        sl__die("mkdir", &err);
    char *path = sl_path_join(dir, "_job.json");
    sl__put(path, data, size);
    sl__exec("SHOW JOBS");
    sl__exec("STOP JOB 'j'");
    sl_error_reset(&err);
    sl_free(path);
    sl_free(dir);
    sl_free(jobs);
}

static void sl__metadata(const uint8_t *data, size_t size)
{
    sl_error err = SL_ERROR_INIT;
    char *data_dir = sl_path_join(sl__root, "chk-data");
    sl_fs_remove_tree(data_dir, &err);
    sl_chk_store *st = NULL;
    if (sl_chk_open(data_dir, "j", &st, &err) != 0)
        sl__die("sl_chk_open", &err);
    char *chk = sl_chk_path(st, 1);
    if (sl_fs_mkdir_p(chk, &err) != 0)
        sl__die("mkdir", &err);
    char *s1 = sl_path_join(chk, "state-s"), *s2 = sl_path_join(chk, "state-t");
    sl__put(s1, (const uint8_t *)"abc", 3);
    sl__put(s2, (const uint8_t *)"", 0);
    char *meta = sl_path_join(chk, "_metadata");
    sl__put(meta, data, size);
    int64_t id = -1;
    int rc = sl_chk_latest(st, &id, &err);
    sl__check(rc, &err, "sl_chk_latest");
    sl_error_reset(&err);
    const char *names[] = {"s", "t", "u"};
    for (size_t i = 0; i < SL_ARRAY_LEN(names); i++) {
        char *blob = NULL;
        size_t len = 0;
        rc = sl_chk_read_state(st, 1, names[i], &blob, &len, &err);
        sl__check(rc, &err, "sl_chk_read_state");
        sl_free(blob);
        sl_error_reset(&err);
    }
    sl_chk_store *sp = NULL;
    rc = sl_chk_open_path(chk, NULL, &sp, &id, &err);
    sl__check(rc, &err, "sl_chk_open_path");
    sl_chk_close(sp);
    sl_error_reset(&err);
    sl__check(sl_chk_prune(st, 1, &err), &err, "sl_chk_prune");
    sl_error_reset(&err);
    sl_chk_close(st);
    sl_free(meta);
    sl_free(s2);
    sl_free(s1);
    sl_free(chk);
    sl_free(data_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    sl__init();
    uint8_t mode = data[0];
    uint8_t *bytes = malloc(size);
    memcpy(bytes, data + 1, size - 1);
    if (mode & 4)
        sl_checksum_embed((char *)bytes, size - 1);
    switch (mode & 3) {
    case 0: sl__catalog(bytes, size - 1); break;
    case 1: sl__job_record(bytes, size - 1); break;
    default: sl__metadata(bytes, size - 1); break;
    }
    free(bytes);
    return 0;
}
