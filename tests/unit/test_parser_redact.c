/*
** test_parser_redact.c — sl_sql_redact: statement text as typed with the
** values of secret options hidden (the shell's LINE block and history):
** WITH clauses, ALTER TABLE SET, SET, escaped quotes, comments between the
** tokens, an unterminated value, a value without quotes, positions moved
** with the text, text that only looks like an option; sl_sql_secret_values.
*/
#include <string.h>

#include "sl_parser.h"
#include "sl_test.h"

/* The test's rule: keys containing "password" or "secret". */
static bool is_secret(const char *key, void *ctx)
{
    if (ctx)
        ++*(int *)ctx;
    return strstr(key, "password") != NULL || strstr(key, "secret") != NULL;
}

/* sl_sql_redact of sql; *pos moved when pos != NULL; *n = values hidden. */
static char *redact(const char *sql, size_t *pos, int *n)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    int k = sl_sql_redact(sql, strlen(sql), is_secret, NULL, &sb, pos);
    if (n)
        *n = k;
    return sl_strbuf_detach(&sb);
}

static void t_with_clause(void)
{
    int n = 0;
    char *out = redact("CREATE TABLE k (a INT) WITH ('connector' = 'kafka',\n"
                       "  'properties.sasl.password' = 'hunter2', 'topic'='t',\n"
                       "  'my.secret'='x''y');",
                       NULL, &n);
    CHECK_STR(out, "CREATE TABLE k (a INT) WITH ('connector' = 'kafka',\n"
                   "  'properties.sasl.password' = '******', 'topic'='t',\n"
                   "  'my.secret'='******');");
    CHECK_INT(n, 2);
    sl_free(out);

    /* comments and line breaks between key, '=' and value */
    out = redact("ALTER TABLE k SET ('password' /* the pw */ =\n -- next line\n 'hunter2')", NULL,
                 &n);
    CHECK_STR(out, "ALTER TABLE k SET ('password' /* the pw */ =\n -- next line\n '******')");
    CHECK_INT(n, 1);
    sl_free(out);

    out = redact("SET 'secret.key' = 'hunter2';", NULL, &n);
    CHECK_STR(out, "SET 'secret.key' = '******';");
    sl_free(out);

    /* a key written with an escaped quote is compared unescaped */
    out = redact("SET 'pass''word' = 'a', 'o''password' = 'hunter2'", NULL, &n);
    CHECK_STR(out, "SET 'pass''word' = 'a', 'o''password' = '******'");
    CHECK_INT(n, 1);
    sl_free(out);
}

/* Only `'key' = 'value'` with a string key: not identifiers, not other
** operators, not the key itself. */
static void t_not_options(void)
{
    int n = 0;
    const char *same[] = {
        "SELECT * FROM t WHERE password = 'hunter2'",
        "SELECT 'password' <> 'hunter2'",
        "SELECT 'password', 'hunter2'",
        "CREATE TABLE t (a INT) WITH ('topic' = 'password')",
        "",
        "'password' =",
        "'password'",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(same); i++) {
        char *out = redact(same[i], NULL, &n);
        CHECK_STR(out, same[i]);
        CHECK_INT(n, 0);
        sl_free(out);
    }
    /* no rule: nothing hidden, the text copied */
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK_INT(sl_sql_redact("SET 'password' = 'x'", 20, NULL, NULL, &sb, NULL), 0);
    CHECK_STR(sl_strbuf_cstr(&sb), "SET 'password' = 'x'");
    sl_strbuf_free(&sb);
}

/* An unterminated value is hidden to the end of the text. */
static void t_unterminated(void)
{
    int n = 0;
    char *out = redact("SET 'password' = 'hunter2", NULL, &n);
    CHECK_STR(out, "SET 'password' = '******'");
    CHECK_INT(n, 1);
    sl_free(out);
}

/* A value typed without quotes (a syntax error quotes it) is hidden too;
** punctuation after '=' is not a value. */
static void t_bare_value(void)
{
    int n = 0;
    char *out = redact("WITH ('password' = hunter2, 'secret' = 42, 'password' = )", NULL, &n);
    CHECK_STR(out, "WITH ('password' = '******', 'secret' = '******', 'password' = )");
    CHECK_INT(n, 2);
    sl_free(out);
}

/* The values sl_sql_redact hides, with their keys: as typed and unquoted. */
static void t_secret_values(void)
{
    const char *sql = "SET 'password' = 'hun''ter2'; SET 'x' = 'y'; "
                      "CREATE TABLE t (a INT) WITH ('my.secret' = bare, 'secret' = 'open";
    sl_kvlist *kv = sl_kvlist_new();
    CHECK_INT(sl_sql_secret_values(sql, strlen(sql), is_secret, NULL, kv), 3);
    REQUIRE(kv->n == 5);
    CHECK_STR(kv->items[0].key, "password");
    CHECK_STR(kv->items[0].value, "'hun''ter2'");
    CHECK_STR(kv->items[1].value, "hun''ter2");
    CHECK_INT(kv->items[1].value_pos, 18);
    CHECK_STR(kv->items[2].key, "my.secret");
    CHECK_STR(kv->items[2].value, "bare");
    CHECK_STR(kv->items[3].key, "secret");
    CHECK_STR(kv->items[3].value, "'open");
    CHECK_STR(kv->items[4].value, "open");
    sl_kvlist_free(kv);
}

/* Positions move with the text; inside a hidden value, to its start. */
static void t_positions(void)
{
    const char *sql = "SET 'password' = 'longer-than-it', 'x' = 'y'";
    size_t pos = 35; /* 'x' */
    char *out = redact(sql, &pos, NULL);
    CHECK_STR(out, "SET 'password' = '******', 'x' = 'y'");
    CHECK_INT((int)pos, 27);
    CHECK(strncmp(out + pos, "'x'", 3) == 0);
    sl_free(out);

    pos = 20; /* inside the value */
    out = redact(sql, &pos, NULL);
    CHECK_INT((int)pos, 17);
    sl_free(out);

    pos = 4; /* before it */
    out = redact(sql, &pos, NULL);
    CHECK_INT((int)pos, 4);
    sl_free(out);

    pos = strlen(sql); /* at the end */
    out = redact(sql, &pos, NULL);
    CHECK_INT((int)pos, (int)strlen(out));
    sl_free(out);

    /* a value shorter than '******' moves later positions to the right */
    pos = 23; /* 'x' after "SET 'password' = 'ab', " */
    out = redact("SET 'password' = 'ab', 'x' = 'y'", &pos, NULL);
    CHECK_INT((int)pos, 27);
    CHECK(strncmp(out + pos, "'x'", 3) == 0);
    sl_free(out);
}

/* The rule gets the unescaped key and its context. */
static void t_callback(void)
{
    int calls = 0;
    sl_strbuf sb = SL_STRBUF_INIT;
    const char *sql = "SET 'a' = 'b'; SET 'password' = 'c'";
    CHECK_INT(sl_sql_redact(sql, strlen(sql), is_secret, &calls, &sb, NULL), 1);
    CHECK_INT(calls, 2);
    CHECK_STR(sl_strbuf_cstr(&sb), "SET 'a' = 'b'; SET 'password' = '******'");
    sl_strbuf_free(&sb);
}

SL_TESTS(t_with_clause, t_not_options, t_unterminated, t_bare_value, t_secret_values, t_positions,
         t_callback)
