/*
** unsupported.c — statements of Flink SQL that Sluice cannot run, refused
** with 0A000 naming the statement instead of a bare syntax error: catalogs
** and databases (Sluice has one of each), modules, JARs, models, materialized
** tables, column changes by ALTER TABLE, CREATE TABLE ... AS SELECT, row
** updates. A statement is recognized by its first words when the grammar
** rejects it (parse.c's sl__syntax_error) or when a form the grammar accepts
** names one (SHOW MODULES parses as PostgreSQL's SHOW name).
**
** Main routine: sl__flink_unsupported.
*/
#include <string.h>

#include "parse_int.h"

#define SL__WORDS 4

typedef struct sl__refusal {
    const char *words; /* the statement's first words, upper case, one space apart */
    const char *detail;
    const char *hint;
} sl__refusal;

#define SL__ONE_CATALOG                                                                        \
    "Sluice has one catalog, " SL_CATALOG_NAME ", with one database, " SL_DATABASE_NAME "."
#define SL__NO_JVM "Sluice runs no JVM code: its connectors, formats and functions are built in."

static const sl__refusal sl__refusals[] = {
    {"CREATE CATALOG", SL__ONE_CATALOG, "SHOW CATALOGS lists it; create tables in it."},
    {"DROP CATALOG", SL__ONE_CATALOG, NULL},
    {"ALTER CATALOG", SL__ONE_CATALOG, NULL},
    {"SHOW CREATE CATALOG", SL__ONE_CATALOG, NULL},
    {"DESCRIBE CATALOG", SL__ONE_CATALOG, NULL},
    {"DESC CATALOG", SL__ONE_CATALOG, NULL},
    {"CREATE DATABASE", SL__ONE_CATALOG, "SHOW DATABASES lists it; create tables in it."},
    {"DROP DATABASE", SL__ONE_CATALOG, NULL},
    {"ALTER DATABASE", SL__ONE_CATALOG, NULL},
    {"DESCRIBE DATABASE", SL__ONE_CATALOG, NULL},
    {"DESC DATABASE", SL__ONE_CATALOG, NULL},
    {"LOAD MODULE", "Sluice has no pluggable modules: its functions are built in.",
     "SHOW FUNCTIONS lists them."},
    {"UNLOAD MODULE", "Sluice has no pluggable modules: its functions are built in.", NULL},
    {"USE MODULES", "Sluice has no pluggable modules: its functions are built in.", NULL},
    {"SHOW MODULES", "Sluice has no pluggable modules: its functions are built in.",
     "SHOW FUNCTIONS lists them."},
    {"SHOW FULL MODULES", "Sluice has no pluggable modules: its functions are built in.",
     "SHOW FUNCTIONS lists them."},
    {"ADD JAR", SL__NO_JVM, "SHOW CONNECTORS lists the connectors."},
    {"REMOVE JAR", SL__NO_JVM, NULL},
    {"SHOW JARS", SL__NO_JVM, NULL},
    {"CREATE MODEL", "Sluice has no model inference.", NULL},
    {"CREATE TEMPORARY MODEL", "Sluice has no model inference.", NULL},
    {"DROP MODEL", "Sluice has no model inference.", NULL},
    {"ALTER MODEL", "Sluice has no model inference.", NULL},
    {"SHOW MODELS", "Sluice has no model inference.", NULL},
    {"CREATE MATERIALIZED TABLE", "Sluice has no materialized tables.",
     "Create a table and keep it filled with a running INSERT INTO ... SELECT."},
    {"ALTER MATERIALIZED TABLE", "Sluice has no materialized tables.", NULL},
    {"DROP MATERIALIZED TABLE", "Sluice has no materialized tables.", NULL},
    {"ALTER VIEW", "A view's query cannot be changed in place.",
     "DROP VIEW it and CREATE VIEW it again."},
    {"ANALYZE TABLE", "Sluice's planner keeps no statistics.", NULL},
    {"SHOW PARTITIONS", "Sluice keeps no partition metadata in its catalog.", NULL},
    {"SHOW COLUMNS", NULL, "DESCRIBE name lists a table's columns."},
    {"SHOW PROCEDURES", "Sluice has no stored procedures.", NULL},
    {"CALL", "Sluice has no stored procedures.", NULL},
    {"TRUNCATE TABLE", "A table is a connector's data, which Sluice only reads and appends to.",
     NULL},
    {"DELETE FROM", "A table is a connector's data, which Sluice only reads and appends to.",
     NULL},
    {"UPDATE", "A table is a connector's data, which Sluice only reads and appends to.", NULL},
};

/* Up to SL__WORDS leading words of the statement at stmt_pos, upper case,
** one space apart, into buf; the number of words. */
static int sl__lead_words(const sl__parse *p, int stmt_pos, char *buf, size_t cap)
{
    size_t off = (size_t)stmt_pos, k = 0;
    int n = 0;
    buf[0] = 0;
    while (n < SL__WORDS && off < p->len) {
        sl_token t;
        sl_tokenize_next(p->sql, p->len, off, &t);
        off = (size_t)t.pos + (size_t)t.len;
        if (t.type == SL_TK_SPACE || t.type == SL_TK_COMMENT)
            continue;
        const char *z = p->sql + t.pos;
        bool word = t.len > 0 && ((z[0] >= 'A' && z[0] <= 'Z') || (z[0] >= 'a' && z[0] <= 'z'));
        if (!word || k + (size_t)t.len + 2 > cap)
            break;
        if (n++)
            buf[k++] = ' ';
        for (int i = 0; i < t.len; i++)
            buf[k++] = (char)(z[i] >= 'a' && z[i] <= 'z' ? z[i] - 32 : z[i]);
        buf[k] = 0;
    }
    return n;
}

/* Whether words starts with the words of prefix (whole words). */
static bool sl__starts(const char *words, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(words, prefix, n) == 0 && (words[n] == 0 || words[n] == ' ');
}

static bool sl__tok_is(sl__tok t, const char *w)
{
    size_t n = strlen(w);
    return t.z && (size_t)t.n == n && sl_strncasecmp(t.z, w, n) == 0;
}

bool sl__flink_unsupported(sl__parse *p, int stmt_pos, sl__tok at)
{
    if (sl_error_isset(p->err) || stmt_pos < 0 || (size_t)stmt_pos >= p->len)
        return false;
    char words[256];
    sl__lead_words(p, stmt_pos, words, sizeof words);
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__refusals); i++) {
        const sl__refusal *r = &sl__refusals[i];
        if (!sl__starts(words, r->words))
            continue;
        sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, stmt_pos, "%s is not supported", r->words);
        if (r->detail)
            sl_error_detail(p->err, "%s", r->detail);
        if (r->hint)
            sl_error_hint(p->err, "%s", r->hint);
        return true;
    }
    /* ALTER TABLE t ADD / MODIFY / DROP / RENAME column: Flink's schema changes. */
    static const char *const changes[] = {"ADD", "MODIFY", "DROP", "RENAME"};
    const char *fourth = words;
    for (int k = 0; k < 3 && fourth; k++)
        fourth = strchr(fourth, ' ') ? strchr(fourth, ' ') + 1 : NULL;
    if (sl__starts(words, "ALTER TABLE")) {
        for (size_t i = 0; i < SL_ARRAY_LEN(changes); i++) {
            if (!sl__tok_is(at, changes[i]) && !(fourth && sl__starts(fourth, changes[i])))
                continue;
            sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, at.pos, "ALTER TABLE ... %s is not supported",
                         changes[i]);
            sl_error_detail(p->err, "A table's columns cannot be changed in place; its options "
                                    "(SET / RESET) and its name (RENAME TO) can.");
            sl_error_hint(p->err, "DROP TABLE it and CREATE TABLE it again with the new columns.");
            return true;
        }
    }
    /* CREATE [TEMPORARY] TABLE t AS SELECT ... (Flink's CTAS). */
    if ((sl__starts(words, "CREATE TABLE") || sl__starts(words, "CREATE TEMPORARY TABLE")) &&
        sl__tok_is(at, "AS")) {
        sl_error_set(p->err, SL_ERR_NOT_SUPPORTED, at.pos,
                     "CREATE TABLE ... AS SELECT is not supported");
        sl_error_hint(p->err, "CREATE TABLE with its columns and WITH options, then INSERT INTO "
                              "it ... SELECT.");
        return true;
    }
    return false;
}
