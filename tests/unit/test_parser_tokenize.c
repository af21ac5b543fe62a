/*
** test_parser_tokenize.c — the tokenizer (kinds, positions, comments, quotes
** with escapes, numbers, illegal bytes, unterminated constructs, never
** reading past len) and sl_sql_split (strings, comments, statement sets,
** partial input). Inputs are copied into buffers of exactly len bytes so
** that ASan catches any read past the end.
*/
#include "sl_parser.h"
#include "sl_test.h"
#include "sql.h"

/* A heap copy of s without the terminating NUL. */
static char *exact(const char *s, size_t n)
{
    char *b = malloc(n ? n : 1);
    memcpy(b, s, n);
    return b;
}

typedef struct tk {
    int type, pos, len;
} tk;

/* Tokenize all of s (no NUL); returns the number of tokens (spaces included). */
static int lex(const char *s, tk *out, int max)
{
    size_t n = strlen(s);
    char *b = exact(s, n);
    int k = 0;
    size_t off = 0;
    for (;;) {
        sl_token t;
        sl_tokenize_next(b, n, off, &t);
        if (t.type == SL_TK_EOF) {
            CHECK_INT(t.pos, (int)n);
            break;
        }
        CHECK(t.len > 0);
        CHECK_INT(t.pos, (int)off);
        if (k < max)
            out[k] = (tk){t.type, t.pos, t.len};
        k++;
        off += (size_t)t.len;
    }
    free(b);
    return k;
}

static void t_basic_kinds(void)
{
    tk t[64];
    int n = lex("SELECT a1, `b c` FROM t;", t, 32);
    REQUIRE(n == 11);
    CHECK_INT(t[0].type, TK_SELECT);
    CHECK_INT(t[0].len, 6);
    CHECK_INT(t[1].type, SL_TK_SPACE);
    CHECK_INT(t[2].type, TK_ID);
    CHECK_INT(t[2].pos, 7);
    CHECK_INT(t[3].type, TK_COMMA);
    CHECK_INT(t[5].type, TK_ID);
    CHECK_INT(t[5].len, 5);
    CHECK_INT(t[7].type, TK_FROM);
    CHECK_INT(t[9].type, TK_ID);
    CHECK_INT(t[10].type, TK_SEMI);
    CHECK_INT(t[10].pos, 23);

    n = lex("( ) , . * + - / % || = => <> != < <= > >= ;", t, 64);
    int want[] = {TK_LP, TK_RP, TK_COMMA, TK_DOT, TK_STAR, TK_PLUS, TK_MINUS, TK_SLASH,
                  TK_PERCENT, TK_CONCAT, TK_EQ, TK_ARROW, TK_NE, TK_NE, TK_LT, TK_LE, TK_GT,
                  TK_GE, TK_SEMI};
    REQUIRE(n == 2 * 19 - 1);
    for (int i = 0; i < 19; i++)
        CHECK_INT(t[2 * i].type, want[i]);

    /* keywords are case-insensitive; non-keywords are IDs */
    n = lex("select Select SELECT selects watermark string", t, 64);
    CHECK_INT(t[0].type, TK_SELECT);
    CHECK_INT(t[2].type, TK_SELECT);
    CHECK_INT(t[4].type, TK_SELECT);
    CHECK_INT(t[6].type, TK_ID);
    CHECK_INT(t[8].type, TK_WATERMARK);
    CHECK_INT(t[10].type, TK_STRING_KW);
}

static void t_comments_and_quotes(void)
{
    tk t[16];
    int n = lex("a -- to end\nb /* x\n * y */ c", t, 16);
    REQUIRE(n == 9);
    CHECK_INT(t[2].type, SL_TK_COMMENT);
    CHECK_INT(t[2].len, 9); /* up to, not including, the newline */
    CHECK_INT(t[6].type, SL_TK_COMMENT);
    CHECK_INT(t[6].len, 12);
    CHECK_INT(t[8].type, TK_ID);

    n = lex("'it''s' `a``b` '' ''''", t, 16);
    REQUIRE(n == 7);
    CHECK_INT(t[0].type, TK_STRING);
    CHECK_INT(t[0].len, 7);
    CHECK_INT(t[2].type, TK_ID);
    CHECK_INT(t[2].len, 6);
    CHECK_INT(t[4].type, TK_STRING);
    CHECK_INT(t[4].len, 2);
    CHECK_INT(t[6].type, TK_STRING);
    CHECK_INT(t[6].len, 4);

    /* X'..' / x'..': a binary string (its digits are the builder's to
    ** check); an identifier ending in x is not one; unterminated is illegal */
    n = lex("X'0A1b' x'' ax'01' X'zz' x'0", t, 16);
    REQUIRE(n == 10);
    CHECK_INT(t[0].type, TK_XSTRING);
    CHECK_INT(t[0].len, 7);
    CHECK_INT(t[2].type, TK_XSTRING);
    CHECK_INT(t[2].len, 3);
    CHECK_INT(t[4].type, TK_ID);
    CHECK_INT(t[5].type, TK_STRING);
    CHECK_INT(t[7].type, TK_XSTRING);
    CHECK_INT(t[9].type, SL_TK_ILLEGAL); /* unterminated: to the end */
    CHECK_INT(t[9].len, 3);

    /* "--" at the very end, and a comment ending exactly at len */
    n = lex("x--", t, 16);
    REQUIRE(n == 2);
    CHECK_INT(t[1].type, SL_TK_COMMENT);
    n = lex("/**/", t, 16);
    REQUIRE(n == 1);
    CHECK_INT(t[0].type, SL_TK_COMMENT);
    /* "- -5" is two minus signs, "--5" a comment */
    n = lex("- -5", t, 16);
    CHECK_INT(t[0].type, TK_MINUS);
    CHECK_INT(t[2].type, TK_MINUS);
    CHECK_INT(t[3].type, TK_NUMBER);
}

static void t_numbers(void)
{
    static const struct { const char *s; int type; int len; } cases[] = {
        {"0", TK_NUMBER, 1}, {"123", TK_NUMBER, 3}, {"1.5", TK_NUMBER, 3}, {"1.", TK_NUMBER, 2},
        {".5", TK_NUMBER, 2}, {"1e3", TK_NUMBER, 3}, {"1E+3", TK_NUMBER, 4},
        {"2.5e-10", TK_NUMBER, 7}, {"12abc", SL_TK_ILLEGAL, 5}, {"1.2.3", SL_TK_ILLEGAL, 5},
        {"1e", SL_TK_ILLEGAL, 2}, {"1e+", SL_TK_ILLEGAL, 2},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        tk t[4];
        lex(cases[i].s, t, 4);
        CHECK_INT(t[0].type, cases[i].type);
        CHECK_INT(t[0].len, cases[i].len);
    }
    tk t[4];
    CHECK_INT(lex(".", t, 4), 1);
    CHECK_INT(t[0].type, TK_DOT);
}

static void t_illegal_and_unterminated(void)
{
    static const struct { const char *s; int len; bool unterminated; } cases[] = {
        {"'abc", 4, true}, {"`abc", 4, true}, {"/* abc", 6, true}, {"/*", 2, true},
        {"'it''", 5, true}, {"\"x", 2, true}, {"E'x", 3, true}, {"?", 1, false},
        {"!", 1, false}, {"|", 1, false}, {"{", 1, false}, {"#", 1, false}, {"$", 1, false},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        size_t n = strlen(cases[i].s);
        char *b = exact(cases[i].s, n);
        sl_token t;
        sl_tokenize_next(b, n, 0, &t);
        CHECK_INT(t.type, SL_TK_ILLEGAL);
        CHECK_INT(t.len, cases[i].len);
        CHECK(t.unterminated == cases[i].unterminated);
        free(b);
    }
    /* A NUL byte is an illegal token of its own; bytes >= 0x80 are identifier bytes. */
    char buf[] = {'a', 0, 'b', (char)0xC3, (char)0xA9};
    sl_token t;
    sl_tokenize_next(buf, sizeof(buf), 1, &t);
    CHECK_INT(t.type, SL_TK_ILLEGAL);
    CHECK_INT(t.len, 1);
    sl_tokenize_next(buf, sizeof(buf), 2, &t);
    CHECK_INT(t.type, TK_ID);
    CHECK_INT(t.len, 3);
    /* Offsets at or past len are EOF. */
    sl_tokenize_next(buf, sizeof(buf), sizeof(buf), &t);
    CHECK_INT(t.type, SL_TK_EOF);
    sl_tokenize_next(buf, sizeof(buf), sizeof(buf) + 10, &t);
    CHECK_INT(t.type, SL_TK_EOF);
    CHECK_INT(t.pos, (int)sizeof(buf));
}

/* Every prefix of a text tokenizes without reading past its end (ASan). */
static void t_no_read_past_len(void)
{
    const char *s = "SELECT 'a''b', `c``d`, 1.5e-3, x||y, a<>b, a=>b /* c */ -- d\n \"q\"";
    size_t n = strlen(s);
    for (size_t k = 0; k <= n; k++) {
        char *b = exact(s, k);
        size_t off = 0;
        int guard = 0;
        for (;;) {
            sl_token t;
            sl_tokenize_next(b, k, off, &t);
            if (t.type == SL_TK_EOF)
                break;
            CHECK(t.pos + t.len <= (int)k);
            off += (size_t)t.len;
            REQUIRE(++guard < 1000);
        }
        free(b);
    }
}

static void t_keywords(void)
{
    int n = 0;
    const char *const *kw = sl_keywords(&n);
    CHECK(n > 100);
    for (int i = 1; i < n; i++)
        CHECK(strcmp(kw[i - 1], kw[i]) < 0);
    bool found = false;
    for (int i = 0; i < n; i++)
        found |= strcmp(kw[i], "WATERMARK") == 0;
    CHECK(found);
    /* every keyword tokenizes as a keyword, not as ID */
    for (int i = 0; i < n; i++) {
        sl_token t;
        sl_tokenize_next(kw[i], strlen(kw[i]), 0, &t);
        CHECK(t.type != TK_ID && t.type < SL_TK_SPACE);
        CHECK_INT(t.len, (int)strlen(kw[i]));
    }
}

/* sl_sql_split on a NUL-free exact copy. */
static int split(const char *s, size_t *len)
{
    size_t n = strlen(s);
    char *b = exact(s, n);
    *len = 0;
    int rc = sl_sql_split(b, n, len);
    free(b);
    return rc;
}

static void t_split(void)
{
    size_t len;
    CHECK_INT(split("SELECT 1; SELECT 2;", &len), 1);
    CHECK_INT(len, 9);
    CHECK_INT(split("SELECT ';' FROM t", &len), 0);
    CHECK_INT(split("SELECT ';' FROM t;", &len), 1);
    CHECK_INT(len, 18);
    CHECK_INT(split("SELECT `a;b` FROM t; x", &len), 1);
    CHECK_INT(len, 20);
    CHECK_INT(split("SELECT 1 -- ; not here\n, 2;", &len), 1);
    CHECK_INT(len, 27);
    CHECK_INT(split("SELECT 1 /* ; */ ;", &len), 1);
    CHECK_INT(len, 18);
    CHECK_INT(split("", &len), -1);
    CHECK_INT(split("   \n\t", &len), -1);
    CHECK_INT(split("-- just a comment\n/* and */", &len), -1);
    /* empty statements are skipped: alone they are nothing, before a
    ** statement they are part of its text (the parser skips them too) */
    CHECK_INT(split(";", &len), -1);
    CHECK_INT(split(" ; ;; -- x\n", &len), -1);
    CHECK_INT(split(";; SELECT 1; SELECT 2;", &len), 1);
    CHECK_INT(len, 12);
    /* partial input: more is needed */
    CHECK_INT(split("SELECT 1", &len), 0);
    CHECK_INT(split("SELECT 'abc", &len), 0);
    CHECK_INT(split("SELECT 1 /* open", &len), 0);
    CHECK_INT(split("SELECT `a", &len), 0);
    CHECK_INT(split("-- comment\nSELECT", &len), 0);
    /* statement sets: ';' inside BEGIN ... END does not end the statement */
    const char *set = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT "
                      "CASE WHEN x THEN 1 END; END; SELECT 3;";
    CHECK_INT(split(set, &len), 1);
    CHECK_INT(len, strstr(set, "END; SELECT 3") - set + 4);
    CHECK_INT(split("execute statement set begin insert into a select 1;", &len), 0);
    CHECK_INT(split("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END", &len), 0);
    CHECK_INT(split("EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END;", &len), 1);
    CHECK_INT(len, 64);
    /* a set name that is not the statement set keyword sequence */
    CHECK_INT(split("SET 'a' = 'b'; BEGIN", &len), 1);
    CHECK_INT(len, 14);

    /* The shell's loop: feed the rest back until nothing is left. */
    const char *script = "CREATE TABLE t (a INT) WITH ('connector' = 'datagen');\n"
                         "-- comment; with a semicolon\n"
                         "INSERT INTO s SELECT a FROM t;\n"
                         "EXECUTE STATEMENT SET BEGIN INSERT INTO x SELECT 1; END;\n  ";
    size_t off = 0, total = strlen(script);
    int stmts = 0;
    for (;;) {
        int rc = sl_sql_split(script + off, total - off, &len);
        if (rc != 1) {
            CHECK_INT(rc, -1);
            break;
        }
        sl_error err = SL_ERROR_INIT;
        sl_stmt *s = sl_parse_one(script + off, len, &err);
        CHECK(s != NULL);
        sl_stmt_free(s);
        sl_error_reset(&err);
        off += len;
        stmts++;
        REQUIRE(stmts < 10);
    }
    CHECK_INT(stmts, 3);
}

SL_TESTS(t_basic_kinds, t_comments_and_quotes, t_numbers, t_illegal_and_unterminated,
         t_no_read_past_len, t_keywords, t_split)
