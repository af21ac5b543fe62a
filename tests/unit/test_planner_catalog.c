/*
** test_planner_catalog.c — the persistent catalog through the session API:
** objects survive a restart, the file is replaced atomically, a directory
** that is not Sluice's or a corrupt catalog is refused and left untouched,
** and a failed write leaves the catalog as it was.
*/
#include "sl_test.h"

#include "../../planner/sl_planner.h"

#include <sys/stat.h>
#include <unistd.h>

/* Collects a statement's rows as "a|b\n" lines and its notices. */
typedef struct collect {
    sl_strbuf rows;    /* rows */
    sl_strbuf notices; /* notice messages, one per line */
    char tag[64];      /* command tag */
} collect;

static int g_ncols;
static int c_begin_n(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    (void)ctx;
    (void)names;
    (void)types;
    g_ncols = ncols;
    return 0;
}

static int c_row_n(void *ctx, const char *const *values, const size_t *lens)
{
    collect *c = ctx;
    for (int i = 0; i < g_ncols; i++) {
        if (i)
            sl_strbuf_append_char(&c->rows, '|');
        sl_strbuf_append(&c->rows, values[i] ? values[i] : "<NULL>");
    }
    sl_strbuf_append_char(&c->rows, '\n');
    return 0;
}

static void c_notice(void *ctx, const sl_error *n)
{
    collect *c = ctx;
    sl_strbuf_append(&c->notices, n->message);
    sl_strbuf_append_char(&c->notices, '\n');
}

static void c_complete(void *ctx, const char *tag)
{
    collect *c = ctx;
    snprintf(c->tag, sizeof c->tag, "%s", tag);
}

/* Run one statement; returns 0/-1; rows into c (reset first). */
static int run(sl_session *s, const char *sql, collect *c, sl_error *err)
{
    sl_strbuf_reset(&c->rows);
    sl_strbuf_reset(&c->notices);
    c->tag[0] = 0;
    sl_result_sink out = {c, c_begin_n, c_row_n, c_notice, c_complete, NULL};
    sl_error_reset(err);
    return sl_session_exec(s, sql, strlen(sql), &out, err);
}

static char *tmpdir(const char *name)
{
    const char *base = getenv("SLUICE_TEST_TMP");
    char *root = sl_sprintf("%s/catalog-%d", base ? base : "/tmp", (int)getpid());
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

static char *slurp(const char *path)
{
    char *text = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_fs_read_file(path, &text, NULL, &err) != 0) {
        sl_error_reset(&err);
        return NULL;
    }
    return text;
}

static const char *CREATE_CLICKS =
    "CREATE TABLE clicks (id BIGINT NOT NULL COMMENT 'the id', campaign STRING, "
    "amount DECIMAL(10, 2), ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED, "
    "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) COMMENT 'clicks' "
    "WITH ('connector' = 'datagen', 'rows-per-second' = '5')";

static void t_survives_restart(void)
{
    char *dir = tmpdir("restart");
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    CHECK(run(s, CREATE_CLICKS, &c, &err) == 0);
    CHECK_STR(c.tag, "CREATE TABLE");
    CHECK(run(s, "CREATE TABLE out1 (campaign STRING, n BIGINT) WITH ('connector' = 'print')", &c,
              &err) == 0);
    CHECK(run(s, "CREATE VIEW v AS SELECT campaign, amount FROM clicks WHERE amount > 1", &c,
              &err) == 0);
    CHECK(run(s, "CREATE TEMPORARY VIEW tv AS SELECT id FROM clicks", &c, &err) == 0);
    CHECK(run(s, "ALTER TABLE clicks SET ('rows-per-second' = '7')", &c, &err) == 0);
    CHECK(run(s, "SHOW CREATE TABLE clicks", &c, &err) == 0);
    char *before = sl_strdup(sl_strbuf_cstr(&c.rows));
    CHECK(strstr(before, "'rows-per-second' = '7'") != NULL);
    sl_session_free(s);
    sl_engine_close(eng);

    eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    s = sl_session_new(eng);
    CHECK(run(s, "SHOW TABLES", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "clicks\nout1\n");
    CHECK(run(s, "SHOW VIEWS", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "v\n"); /* the temporary view is gone */
    CHECK(run(s, "SHOW CREATE TABLE clicks", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), before);
    CHECK(run(s, "DESCRIBE v", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "campaign|STRING|TRUE||||\namount|DECIMAL(10, 2)|TRUE||||\n");
    CHECK(run(s, "DROP TABLE out1", &c, &err) == 0);
    sl_session_free(s);
    sl_engine_close(eng);

    eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    s = sl_session_new(eng);
    CHECK(run(s, "SHOW TABLES", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "clicks\n");
    sl_session_free(s);
    sl_engine_close(eng);

    /* No temp file is left behind. */
    char *tmp = sl_sprintf("%s/catalog.json.tmp", dir);
    CHECK(!sl_fs_exists(tmp));
    sl_free(tmp);
    sl_free(before);
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_error_reset(&err);
    sl_free(dir);
}

/* A first start killed while writing the marker (its temporary file and
** the lock left behind): the next start takes the directory as new. */
static void t_interrupted_first_use(void)
{
    char *dir = tmpdir("halfnew");
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_fs_mkdir_p(dir, &err) == 0);
    char *lock = sl_sprintf("%s/SLUICE.lock", dir), *tmp = sl_sprintf("%s/SLUICE.tmp", dir);
    REQUIRE(sl_fs_write_atomic(lock, "", 0, &err) == 0);
    REQUIRE(sl_fs_write_atomic(tmp, "slu", 3, &err) == 0);
    sl_engine *eng = NULL;
    CHECK(sl_engine_open(dir, &eng, &err) == 0);
    sl_engine_close(eng);
    char *marker = sl_sprintf("%s/SLUICE", dir);
    CHECK(sl_fs_exists(marker));
    sl_free(marker);
    sl_free(lock);
    sl_free(tmp);
    sl_error_reset(&err);
    sl_free(dir);
}

static void t_not_sluice_dir(void)
{
    char *dir = tmpdir("foreign");
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_fs_mkdir_p(dir, &err) == 0);
    char *f = sl_sprintf("%s/precious.txt", dir);
    REQUIRE(sl_fs_write_atomic(f, "keep me", 7, &err) == 0);
    sl_engine *eng = NULL;
    CHECK(sl_engine_open(dir, &eng, &err) == -1);
    CHECK(eng == NULL);
    CHECK_STR(err.sqlstate, "F0000");
    CHECK(strstr(err.message, "is not a Sluice data directory") != NULL);
    CHECK(err.hint != NULL);
    char *catalog = sl_sprintf("%s/catalog.json", dir), *marker = sl_sprintf("%s/SLUICE", dir);
    CHECK(!sl_fs_exists(catalog));
    CHECK(!sl_fs_exists(marker));
    char *text = slurp(f);
    CHECK_STR(text, "keep me");
    sl_free(text);
    sl_free(catalog);
    sl_free(marker);
    sl_free(f);
    sl_error_reset(&err);

    /* A regular file as the data directory. */
    char *file = tmpdir("plainfile");
    REQUIRE(sl_fs_write_atomic(file, "x", 1, &err) == 0);
    CHECK(sl_engine_open(file, &eng, &err) == -1);
    CHECK_STR(err.sqlstate, "F0000");
    CHECK(strstr(err.message, "is not a directory") != NULL);
    sl_error_reset(&err);
    sl_free(file);
    sl_free(dir);
}

static void check_corrupt(const char *name, const char *content, const char *detail_part)
{
    char *dir = tmpdir(name);
    sl_error err = SL_ERROR_INIT;
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_engine_close(eng);
    char *path = sl_sprintf("%s/catalog.json", dir);
    REQUIRE(sl_fs_write_atomic(path, content, strlen(content), &err) == 0);
    eng = NULL;
    CHECK(sl_engine_open(dir, &eng, &err) == -1);
    CHECK(eng == NULL);
    CHECK_STR(err.sqlstate, "XX001");
    CHECK(err.detail && strstr(err.detail, detail_part) != NULL);
    if (err.detail && !strstr(err.detail, detail_part))
        fprintf(stderr, "detail was: %s\n", err.detail);
    char *after = slurp(path);
    CHECK_STR(after, content); /* never overwritten */
    sl_free(after);
    sl_free(path);
    sl_error_reset(&err);
    sl_free(dir);
}

static void t_corrupt_catalog(void)
{
    check_corrupt("garbage", "{not json", "line 1");
    check_corrupt("truncated", "{\"format\": \"sluice-catalog\", \"version\": 1, \"objects\": [",
                  "line 1");
    check_corrupt("wrongshape", "{\"format\": \"other\", \"version\": 1, \"objects\": []}",
                  "missing");
    check_corrupt("badsql",
                  "{\"format\": \"sluice-catalog\", \"version\": 1, \"objects\": "
                  "[{\"kind\": \"table\", \"name\": \"t\", \"sql\": \"CREATE TABLE t (\"}]}",
                  "object \"t\"");
    check_corrupt("mismatch",
                  "{\"format\": \"sluice-catalog\", \"version\": 1, \"objects\": "
                  "[{\"kind\": \"view\", \"name\": \"t\", \"sql\": \"CREATE TABLE t (a INT)\"}]}",
                  "does not match");
}

static void t_failed_write_changes_nothing(void)
{
    char *dir = tmpdir("failwrite");
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    CHECK(run(s, "CREATE TABLE a (x INT) WITH ('connector' = 'blackhole')", &c, &err) == 0);
    char *path = sl_sprintf("%s/catalog.json", dir);
    char *before = slurp(path);
    /* A directory where the temp file must go makes the write fail (even for root). */
    char *tmp = sl_sprintf("%s/catalog.json.tmp", dir);
    REQUIRE(mkdir(tmp, 0755) == 0);
    CHECK(run(s, "CREATE TABLE b (x INT) WITH ('connector' = 'blackhole')", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "58030");
    CHECK(run(s, "DROP TABLE a", &c, &err) == -1);
    CHECK(run(s, "SHOW TABLES", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "a\n"); /* memory unchanged */
    char *after = slurp(path);
    CHECK_STR(after, before); /* file unchanged */
    rmdir(tmp);
    CHECK(run(s, "CREATE TABLE b (x INT) WITH ('connector' = 'blackhole')", &c, &err) == 0);
    CHECK(run(s, "SHOW TABLES", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "a\nb\n");
    sl_session_free(s);
    sl_engine_close(eng);
    sl_free(before);
    sl_free(after);
    sl_free(tmp);
    sl_free(path);
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_error_reset(&err);
    sl_free(dir);
}

static void t_ddl_errors(void)
{
    char *dir = tmpdir("ddl");
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    REQUIRE(run(s, CREATE_CLICKS, &c, &err) == 0);
    CHECK(run(s, CREATE_CLICKS, &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42P07");
    CHECK_INT(err.position, 13);
    CHECK(run(s, "CREATE TABLE IF NOT EXISTS clicks (a INT) WITH ('connector' = 'datagen')", &c,
              &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c.notices), "already exists, skipping") != NULL);
    CHECK(run(s, "DROP TABLE nope", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42P01");
    CHECK(run(s, "DROP TABLE IF EXISTS nope", &c, &err) == 0);
    CHECK(run(s, "CREATE TABLE d (a INT, a STRING) WITH ('connector' = 'blackhole')", &c, &err) ==
          -1);
    CHECK_STR(err.sqlstate, "42701");
    CHECK_INT(err.position, 23);
    CHECK(run(s, "CREATE TABLE d (a INT, PRIMARY KEY (b) NOT ENFORCED) WITH ('connector' = 'blackhole')",
              &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42703");
    CHECK(run(s, "CREATE TABLE d (a INT, WATERMARK FOR a AS a) WITH ('connector' = 'blackhole')",
              &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42804");
    CHECK(run(s, "CREATE TABLE d (a INT) WITH ('connector' = 'nosuch')", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42704");
    CHECK(run(s, "CREATE VIEW clicks AS SELECT 1", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42P07");
    CHECK(run(s, "CREATE VIEW v2 AS SELECT id, id FROM clicks", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42701");
    CHECK(run(s, "DROP VIEW clicks", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42809");
    CHECK(run(s, "ALTER TABLE clicks RESET ('connector')", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK(run(s, "ALTER TABLE clicks SET ('rows-per-secnd' = '3')", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK(run(s, "SHOW CREATE TABLE clicks", &c, &err) == 0);
    CHECK(strstr(sl_strbuf_cstr(&c.rows), "rows-per-secnd") == NULL);
    CHECK(run(s, "SET 'execution.checkpointing.interval' = '5 s'", &c, &err) == 0);
    CHECK(run(s, "SET 'execution.checkpointing.intervall' = '5 s'", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42704");
    CHECK(err.hint && strstr(err.hint, "execution.checkpointing.interval") != NULL);
    CHECK(run(s, "SET 'execution.checkpointing.interval' = 'often'", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK(run(s, "STOP JOB 'abc'", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "42704");
    sl_session_free(s);
    sl_engine_close(eng);
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_error_reset(&err);
    sl_free(dir);
}

static void t_lock(void)
{
    char *dir = tmpdir("locked");
    sl_error err = SL_ERROR_INIT;
    sl_engine *a = NULL, *b = NULL, *c = NULL;
    REQUIRE(sl_engine_open(dir, &a, &err) == 0);
    /* A second user of the same directory is refused while the first holds it. */
    CHECK(sl_engine_open(dir, &b, &err) == -1);
    CHECK(b == NULL);
    CHECK_STR(err.sqlstate, "55006");
    char *pid = sl_sprintf("(pid %d)", (int)getpid());
    CHECK(err.message && strstr(err.message, "in use by another sluice process") != NULL);
    CHECK(err.message && strstr(err.message, pid) != NULL);
    sl_error_reset(&err);
    /* A copy of the directory is not locked (the lock is the OS's, not a file's content). */
    char *copy = sl_sprintf("%s-copy", dir);
    char *cmd = sl_sprintf("rm -rf '%s' && cp -r '%s' '%s'", copy, dir, copy);
    REQUIRE(system(cmd) == 0);
    CHECK(sl_engine_open(copy, &c, &err) == 0);
    sl_engine_close(c);
    /* Released on close. */
    sl_engine_close(a);
    CHECK(sl_engine_open(dir, &b, &err) == 0);
    sl_engine_close(b);
    sl_free(cmd);
    sl_free(copy);
    sl_free(pid);
    sl_error_reset(&err);
    sl_free(dir);
}

static void t_interrupted_init(void)
{
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    /* A crash after the marker, before the catalog: the next start completes it. */
    char *dir = tmpdir("halfinit");
    REQUIRE(sl_fs_mkdir_p(dir, &err) == 0);
    char *marker = sl_sprintf("%s/SLUICE", dir);
    REQUIRE(sl_fs_write_atomic(marker, "sluice data directory\nversion 1\n", 32, &err) == 0);
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    CHECK(run(s, "SHOW TABLES", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "");
    sl_session_free(s);
    sl_engine_close(eng);
    char *catalog = sl_sprintf("%s/catalog.json", dir);
    CHECK(sl_fs_exists(catalog));
    /* A crash after the lock file, before the marker: still a new directory. */
    char *dir2 = tmpdir("lockonly");
    REQUIRE(sl_fs_mkdir_p(dir2, &err) == 0);
    char *lock = sl_sprintf("%s/SLUICE.lock", dir2);
    REQUIRE(sl_fs_write_atomic(lock, "1\n", 2, &err) == 0);
    eng = NULL;
    CHECK(sl_engine_open(dir2, &eng, &err) == 0);
    sl_engine_close(eng);
    sl_free(lock);
    sl_free(dir2);
    sl_free(catalog);
    sl_free(marker);
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_error_reset(&err);
    sl_free(dir);
}

/* Open dir; expect XX001 whose message or detail holds part, and the
** catalog file (when there is one) left as it was. */
static void expect_damaged(const char *dir, const char *part)
{
    sl_error err = SL_ERROR_INIT;
    char *path = sl_sprintf("%s/catalog.json", dir);
    char *before = sl_fs_exists(path) ? slurp(path) : NULL;
    sl_engine *eng = NULL;
    CHECK(sl_engine_open(dir, &eng, &err) == -1);
    CHECK(eng == NULL);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    bool named = (err.message && strstr(err.message, part)) || (err.detail && strstr(err.detail, part));
    if (!named)
        fprintf(stderr, "\"%s\" / \"%s\" lacks \"%s\"\n", err.message, err.detail, part);
    CHECK(named);
    CHECK(err.message && strstr(err.message, path)); /* the file, by name */
    char *after = sl_fs_exists(path) ? slurp(path) : NULL;
    if (before)
        CHECK_STR(after, before);
    else
        CHECK(after == NULL);
    sl_free(after);
    sl_free(before);
    sl_free(path);
    sl_error_reset(&err);
}

/* A catalog naming one object twice is refused by name. */
static void t_duplicate_objects(void)
{
    char *dir = tmpdir("dupes");
    sl_error err = SL_ERROR_INIT;
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_engine_close(eng);
    char *path = sl_sprintf("%s/catalog.json", dir);
    const char *twice[] = {
        "{\"format\": \"sluice-catalog\", \"version\": 1, \"objects\": ["
        "{\"kind\": \"table\", \"name\": \"t\", \"sql\": \"CREATE TABLE t (a INT) WITH ('connector' = 'blackhole')\"},"
        "{\"kind\": \"table\", \"name\": \"t\", \"sql\": \"CREATE TABLE t (b INT) WITH ('connector' = 'blackhole')\"}]}",
        "{\"format\": \"sluice-catalog\", \"version\": 1, \"objects\": ["
        "{\"kind\": \"table\", \"name\": \"t\", \"sql\": \"CREATE TABLE t (a INT) WITH ('connector' = 'blackhole')\"},"
        "{\"kind\": \"view\", \"name\": \"t\", \"sql\": \"CREATE VIEW t AS SELECT 1 AS x\"}]}",
        /* version 2, with a valid checksum: the checksum is no licence */
        "{\"format\": \"sluice-catalog\", \"version\": 2, \"objects\": ["
        "{\"kind\": \"view\", \"name\": \"v\", \"sql\": \"CREATE VIEW v AS SELECT 1 AS x\"},"
        "{\"kind\": \"view\", \"name\": \"v\", \"sql\": \"CREATE VIEW v AS SELECT 2 AS x\"}], "
        "\"checksum\": \"0000000000000000\"}",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(twice); i++) {
        char *text = sl_strdup(twice[i]);
        sl_checksum_embed(text, strlen(text)); /* -1 (none) for version 1 */
        REQUIRE(sl_fs_write_atomic(path, text, strlen(text), &err) == 0);
        expect_damaged(dir, i == 2 ? "\"v\" is defined twice" : "\"t\" is defined twice");
        sl_free(text);
    }
    sl_free(path);
    sl_free(dir);
}

/* catalog.json gone from a data directory that has jobs: an error, not an
** empty catalog (and nothing is written). */
static void t_missing_catalog(void)
{
    char *dir = tmpdir("nocatalog");
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    CHECK(run(s, "CREATE TABLE a (x INT) WITH ('connector' = 'blackhole')", &c, &err) == 0);
    sl_session_free(s);
    sl_engine_close(eng);
    char *jobs = sl_sprintf("%s/jobs/j", dir), *path = sl_sprintf("%s/catalog.json", dir);
    REQUIRE(sl_fs_mkdir_p(jobs, &err) == 0);
    REQUIRE(unlink(path) == 0);
    expect_damaged(dir, "is missing");
    CHECK(!sl_fs_exists(path));
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_free(jobs);
    sl_free(path);
    sl_free(dir);
}

/* Every single changed byte of catalog.json is caught by its checksum. */
static void t_catalog_every_byte(void)
{
    char *dir = tmpdir("catbytes");
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    CHECK(run(s, "CREATE TABLE a (x INT) WITH ('connector' = 'blackhole')", &c, &err) == 0);
    sl_session_free(s);
    sl_engine_close(eng);
    char *path = sl_sprintf("%s/catalog.json", dir);
    char *text = slurp(path);
    size_t len = strlen(text);
    CHECK(strstr(text, "\"version\": 2") && strstr(text, "\"checksum\": \""));
    int caught = 0;
    for (size_t i = 0; i < len; i++) {
        text[i] ^= 0x04;
        REQUIRE(sl_fs_write_atomic(path, text, len, &err) == 0);
        eng = NULL;
        if (sl_engine_open(dir, &eng, &err) == -1 && strcmp(err.sqlstate, "XX001") == 0)
            caught++;
        else
            fprintf(stderr, "byte %zu of catalog.json changed: accepted or %s\n", i, err.sqlstate);
        sl_engine_close(eng);
        sl_error_reset(&err);
        text[i] ^= 0x04;
    }
    CHECK_INT(caught, (int)len);
    REQUIRE(sl_fs_write_atomic(path, text, len, &err) == 0);
    eng = NULL;
    CHECK(sl_engine_open(dir, &eng, &err) == 0);
    sl_engine_close(eng);
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_free(text);
    sl_free(path);
    sl_free(dir);
}

/* Invalid UTF-8 in a CREATE is refused (22021) and the catalog stays
** readable: before, CREATE succeeded and every later start failed. */
static void t_bad_utf8_create(void)
{
    char *dir = tmpdir("badutf8");
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    const char *bad[] = {
        "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole') -- caf\xe9",
        "CREATE TABLE t (a INT COMMENT 'caf\xe9') WITH ('connector' = 'blackhole')",
        "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole', 'x\xff' = 'y')",
        "CREATE TABLE `t\xff` (a INT) WITH ('connector' = 'blackhole')",
        "CREATE VIEW v AS SELECT 'caf\xe9' AS s",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        CHECK(run(s, bad[i], &c, &err) == -1);
        CHECK_STR(err.sqlstate, "22021");
        CHECK(err.position == (int)(strpbrk(bad[i], "\xe9\xff") - bad[i]));
        sl_error_reset(&err);
    }
    CHECK(run(s, "CREATE VIEW w AS SELECT 'café' AS s", &c, &err) == 0);
    sl_session_free(s);
    sl_engine_close(eng);
    eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    s = sl_session_new(eng);
    CHECK(run(s, "SHOW VIEWS", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "w\n");
    CHECK(run(s, "SHOW TABLES", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "");
    sl_session_free(s);
    sl_engine_close(eng);
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_error_reset(&err);
    sl_free(dir);
}

/* _job.json carries its checksum: a damaged record is refused by name (STOP
** JOB: XX001; SHOW JOBS: a warning naming it, no made-up row); a record from
** before checksums is still read. */
static void t_job_record_checksum(void)
{
    char *dir = tmpdir("jobrecord");
    sl_error err = SL_ERROR_INIT;
    collect c = {SL_STRBUF_INIT, SL_STRBUF_INIT, ""};
    sl_engine *eng = NULL;
    REQUIRE(sl_engine_open(dir, &eng, &err) == 0);
    sl_session *s = sl_session_new(eng);
    CHECK(run(s, "CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', "
                 "'number-of-rows' = '10', 'fields.id.kind' = 'sequence', "
                 "'fields.id.start' = '1', 'fields.id.end' = '10')", &c, &err) == 0);
    CHECK(run(s, "CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole')", &c, &err) == 0);
    CHECK(run(s, "SET 'table.dml-sync' = 'true'", &c, &err) == 0);
    CHECK(run(s, "SET 'pipeline.name' = 'done'", &c, &err) == 0);
    CHECK(run(s, "INSERT INTO out SELECT id FROM nums", &c, &err) == 0);
    char *path = sl_sprintf("%s/jobs/done/_job.json", dir);
    char *text = slurp(path);
    REQUIRE(text);
    CHECK(strstr(text, "\"version\": 2") && strstr(text, "\"checksum\": \""));
    size_t len = strlen(text);
    CHECK(run(s, "STOP JOB 'done'", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "55000"); /* read: FINISHED */
    int caught = 0;
    for (size_t i = 0; i < len; i++) {
        text[i] ^= 0x04;
        REQUIRE(sl_fs_write_atomic(path, text, len, &err) == 0);
        if (run(s, "STOP JOB 'done'", &c, &err) == -1 && !strcmp(err.sqlstate, "XX001") &&
            strstr(err.message, path))
            caught++;
        else
            fprintf(stderr, "byte %zu of _job.json changed: %s\n", i, err.sqlstate);
        text[i] ^= 0x04;
    }
    CHECK_INT(caught, (int)len);
    text[len / 2] ^= 0x04;
    REQUIRE(sl_fs_write_atomic(path, text, len, &err) == 0);
    CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&c.rows), "");
    CHECK(strstr(sl_strbuf_cstr(&c.notices), path) &&
          strstr(sl_strbuf_cstr(&c.notices), "is damaged"));
    /* A record written before checksums (no version, no checksum). */
    const char *old = "{\"name\": \"done\", \"status\": \"FINISHED\", \"time\": 1, "
                      "\"sink\": \"out\", \"guarantee\": \"none\"}";
    REQUIRE(sl_fs_write_atomic(path, old, strlen(old), &err) == 0);
    CHECK(run(s, "SHOW JOBS", &c, &err) == 0);
    CHECK(strncmp(sl_strbuf_cstr(&c.rows), "done|FINISHED|out|none|", 23) == 0);
    CHECK(run(s, "STOP JOB 'done'", &c, &err) == -1);
    CHECK_STR(err.sqlstate, "55000");
    sl_error_reset(&err);
    sl_session_free(s);
    sl_engine_close(eng);
    sl_strbuf_free(&c.rows);
    sl_strbuf_free(&c.notices);
    sl_free(text);
    sl_free(path);
    sl_free(dir);
}

SL_TESTS(t_lock, t_interrupted_init, t_survives_restart, t_not_sluice_dir, t_interrupted_first_use, t_corrupt_catalog, t_failed_write_changes_nothing,
         t_ddl_errors, t_duplicate_objects, t_missing_catalog, t_catalog_every_byte,
         t_bad_utf8_create, t_job_record_checksum)
