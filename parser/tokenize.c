/*
** tokenize.c — the hand-written SQL tokenizer.
**
** sl_tokenize_next scans one token of sql[0..len) starting at an offset and
** never reads past len (the text is not NUL-terminated in general). Tokens
** are slices {pos, len}; nothing is copied. Keywords are recognized
** case-insensitively through a sorted table (sl__keyword_code); the grammar's
** %fallback turns non-reserved ones back into identifiers. A token holding a
** byte that is not well-formed UTF-8 is illegal (bad_utf8 names the byte).
**
** Main routines: sl_tokenize_next, sl_keywords, sl__keyword_code.
*/
#include <string.h>

#include "parse_int.h"
#include "sql.h"

typedef struct sl__kw {
    const char *name; /* upper case */
    int code;         /* TK_* */
} sl__kw;

/* Sorted by name (strcmp order) for binary search. */
static const sl__kw sl__kws[] = {
    {"ABORT", TK_ABORT},
    {"ABSOLUTE", TK_ABSOLUTE},
    {"AGAINST", TK_AGAINST},
    {"ALL", TK_ALL}, {"ALTER", TK_ALTER}, {"AND", TK_AND}, {"ARRAY", TK_ARRAY}, {"AS", TK_AS}, {"ASC", TK_ASC},
    {"BACKWARD", TK_BACKWARD},
    {"BEGIN", TK_BEGIN}, {"BETWEEN", TK_BETWEEN}, {"BIGINT", TK_BIGINT}, {"BINARY", TK_BINARY},
    {"BOOLEAN", TK_BOOLEAN}, {"BOTH", TK_BOTH}, {"BY", TK_BY}, {"BYTES", TK_BYTES}, {"CASE", TK_CASE},
    {"CAST", TK_CAST},
    {"CATALOGS", TK_CATALOGS},
    {"CHANGELOG_MODE", TK_CHANGELOG_MODE},
    {"CHAR", TK_CHAR},
    {"CHARACTER", TK_CHARACTER},
    {"CLOSE", TK_CLOSE},
    {"COLLATE", TK_COLLATE},
    {"COMMENT", TK_COMMENT},
    {"COMMIT", TK_COMMIT},
    {"COMPARE", TK_COMPARE},
    {"CONNECTORS", TK_CONNECTORS},
    {"CONSTRAINT", TK_CONSTRAINT},
    {"CONSTRAINTS", TK_CONSTRAINTS},
    {"CREATE", TK_CREATE},
    {"CROSS", TK_CROSS},
    {"CUMULATE", TK_CUMULATE},
    {"CURRENT", TK_CURRENT},
    {"CURRENT_CATALOG", TK_CURRENT_CATALOG},
    {"CURRENT_DATE", TK_CURRENT_DATE},
    {"CURRENT_SCHEMA", TK_CURRENT_SCHEMA},
    {"CURRENT_TIME", TK_CURRENT_TIME}, {"CURRENT_TIMESTAMP", TK_CURRENT_TIMESTAMP},
    {"CURRENT_USER", TK_CURRENT_USER},
    {"CURSOR", TK_CURSOR},
    {"DATABASES", TK_DATABASES},
    {"DATE", TK_DATE},
    {"DAY", TK_DAY},
    {"DAYS", TK_DAYS},
    {"DEC", TK_DEC},
    {"DECIMAL", TK_DECIMAL},
    {"DECLARE", TK_DECLARE},
    {"DESC", TK_DESC},
    {"DESCRIBE", TK_DESCRIBE},
    {"DESCRIPTOR", TK_DESCRIPTOR},
    {"DISCARD", TK_DISCARD},
    {"DISTINCT", TK_DISTINCT},
    {"DOUBLE", TK_DOUBLE},
    {"DROP", TK_DROP}, {"ELSE", TK_ELSE}, {"END", TK_END}, {"ENFORCED", TK_ENFORCED},
    {"ESCAPE", TK_ESCAPE},
    {"ESTIMATED_COST", TK_ESTIMATED_COST},
    {"EXCLUDING", TK_EXCLUDING},
    {"EXECUTE", TK_EXECUTE}, {"EXISTS", TK_EXISTS},
    {"EXPLAIN", TK_EXPLAIN},
    {"EXTENDED", TK_EXTENDED},
    {"FALSE", TK_FALSE},
    {"FETCH", TK_FETCH},
    {"FILTER", TK_FILTER},
    {"FIRST", TK_FIRST}, {"FLOAT", TK_FLOAT},
    {"FOR", TK_FOR},
    {"FORWARD", TK_FORWARD},
    {"FROM", TK_FROM}, {"FULL", TK_FULL},
    {"FUNCTION", TK_FUNCTION}, {"FUNCTIONS", TK_FUNCTIONS},
    {"GENERATED", TK_GENERATED},
    {"GROUP", TK_GROUP},
    {"HAVING", TK_HAVING},
    {"HELP", TK_HELP},
    {"HOLD", TK_HOLD},
    {"HOP", TK_HOP}, {"HOUR", TK_HOUR}, {"HOURS", TK_HOURS},
    {"IF", TK_IF}, {"IN", TK_IN},
    {"INCLUDING", TK_INCLUDING},
    {"INNER", TK_INNER}, {"INSERT", TK_INSERT}, {"INT", TK_INT},
    {"INTEGER", TK_INTEGER}, {"INTERVAL", TK_INTERVAL}, {"INTO", TK_INTO}, {"IS", TK_IS},
    {"JAR", TK_JAR},
    {"JOB", TK_JOB}, {"JOBS", TK_JOBS}, {"JOIN", TK_JOIN},
    {"JSON_EXECUTION_PLAN", TK_JSON_EXECUTION_PLAN},
    {"KEY", TK_KEY},
    {"LANGUAGE", TK_LANGUAGE}, {"LAST", TK_LAST}, {"LEADING", TK_LEADING},
    {"LEFT", TK_LEFT}, {"LIKE", TK_LIKE}, {"LIMIT", TK_LIMIT}, {"LOCAL", TK_LOCAL},
    {"LOCALTIME", TK_LOCALTIME},
    {"LOCALTIMESTAMP", TK_LOCALTIMESTAMP},
    {"MAP", TK_MAP},
    {"METADATA", TK_METADATA},
    {"MINUTE", TK_MINUTE},
    {"MINUTES", TK_MINUTES}, {"MONTH", TK_MONTH}, {"MONTHS", TK_MONTHS},
    {"MOVE", TK_MOVE},
    {"MULTISET", TK_MULTISET},
    {"NEXT", TK_NEXT},
    {"NO", TK_NO},
    {"NOT", TK_NOT},
    {"NULL", TK_NULL},
    {"NULLS", TK_NULLS},
    {"NUMERIC", TK_NUMERIC},
    {"OF", TK_OF},
    {"OFFSET", TK_OFFSET},
    {"ON", TK_ON},
    {"ONLY", TK_ONLY},
    {"OPERATOR", TK_OPERATOR},
    {"OPTIONS", TK_OPTIONS},
    {"OR", TK_OR},
    {"ORDER", TK_ORDER},
    {"OUTER", TK_OUTER},
    {"OVER", TK_OVER},
    {"OVERWRITING", TK_OVERWRITING},
    {"PARTITION", TK_PARTITION},
    {"PARTITIONED", TK_PARTITIONED},
    {"PARTITIONS", TK_PARTITIONS},
    {"PLAN", TK_PLAN},
    {"PLAN_ADVICE", TK_PLAN_ADVICE},
    {"PRECEDING", TK_PRECEDING},
    {"PRECISION", TK_PRECISION},
    {"PRIMARY", TK_PRIMARY},
    {"PRIOR", TK_PRIOR},
    {"RANGE", TK_RANGE},
    {"RECONCILE", TK_RECONCILE},
    {"RELATIVE", TK_RELATIVE},
    {"RELEASE", TK_RELEASE},
    {"RENAME", TK_RENAME},
    {"REPAIR", TK_REPAIR},
    {"RESET", TK_RESET},
    {"RIGHT", TK_RIGHT},
    {"ROLLBACK", TK_ROLLBACK},
    {"ROW", TK_ROW},
    {"ROWS", TK_ROWS},
    {"SAVEPOINT", TK_SAVEPOINT},
    {"SCROLL", TK_SCROLL},
    {"SECOND", TK_SECOND},
    {"SECONDS", TK_SECONDS},
    {"SELECT", TK_SELECT},
    {"SESSION", TK_SESSION},
    {"SESSION_USER", TK_SESSION_USER},
    {"SET", TK_SET},
    {"SHOW", TK_SHOW},
    {"SMALLINT", TK_SMALLINT},
    {"START", TK_START},
    {"STATEMENT", TK_STATEMENT}, {"STOP", TK_STOP}, {"STRING", TK_STRING_KW},
    {"SUBSTRING", TK_SUBSTRING}, {"SYSTEM", TK_SYSTEM},
    {"SYSTEM_TIME", TK_SYSTEM_TIME},
    {"TABLE", TK_TABLE}, {"TABLES", TK_TABLES},
    {"TEMPORARY", TK_TEMPORARY}, {"THEN", TK_THEN}, {"TIME", TK_TIME},
    {"TIMESTAMP", TK_TIMESTAMP}, {"TIMESTAMP_LTZ", TK_TIMESTAMP_LTZ}, {"TINYINT", TK_TINYINT},
    {"TO", TK_TO},
    {"TRAILING", TK_TRAILING},
    {"TRANSACTION", TK_TRANSACTION},
    {"TRUE", TK_TRUE}, {"TRY_CAST", TK_TRY_CAST}, {"TUMBLE", TK_TUMBLE},
    {"UNBOUNDED", TK_UNBOUNDED}, {"UNION", TK_UNION}, {"UNKNOWN", TK_UNKNOWN},
    {"USE", TK_USE},
    {"USER", TK_USER},
    {"USING", TK_USING},
    {"VALUES", TK_VALUES},
    {"VARBINARY", TK_VARBINARY}, {"VARCHAR", TK_VARCHAR}, {"VARYING", TK_VARYING},
    {"VIEW", TK_VIEW},
    {"VIEWS", TK_VIEWS},
    {"VIRTUAL", TK_VIRTUAL},
    {"WATERMARK", TK_WATERMARK},
    {"WATERMARKS", TK_WATERMARKS},
    {"WHEN", TK_WHEN},
    {"WHERE", TK_WHERE},
    {"WINDOW", TK_WINDOW},
    {"WITH", TK_WITH},
    {"WITHOUT", TK_WITHOUT},
    {"WORK", TK_WORK},
    {"YEAR", TK_YEAR}, {"YEARS", TK_YEARS},
    {"ZONE", TK_ZONE},
};

#define SL__NKW ((int)SL_ARRAY_LEN(sl__kws))
#define SL__KW_MAXLEN 24

int sl__keyword_code(const char *z, int n)
{
    char up[SL__KW_MAXLEN + 1];
    if (n <= 0 || n > SL__KW_MAXLEN)
        return 0;
    for (int i = 0; i < n; i++) {
        char c = z[i];
        up[i] = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
    }
    up[n] = 0;
    int lo = 0, hi = SL__NKW - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(up, sl__kws[mid].name);
        if (c == 0)
            return sl__kws[mid].code;
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return 0;
}

const char *const *sl_keywords(int *n)
{
    static const char *names[SL_ARRAY_LEN(sl__kws)];
    /* Filled on every call: idempotent, so concurrent first calls are harmless. */
    for (int i = 0; i < SL__NKW; i++)
        names[i] = sl__kws[i].name;
    if (n)
        *n = SL__NKW;
    return names;
}

static bool sl__is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool sl__is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Identifier bytes: ASCII letters, digits, '_', '$' and any non-ASCII byte (UTF-8). */
static bool sl__is_ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool sl__is_ident(unsigned char c)
{
    return sl__is_ident_start(c) || sl__is_digit(c) || c == '$';
}

/* Scan a quoted span starting at z[i] == q, where a doubled q is an escaped
** q. Returns the offset just past the closing quote, or len if unterminated
** (*unterminated set). */
static size_t sl__scan_quoted(const unsigned char *z, size_t len, size_t i, unsigned char q,
                              bool *unterminated)
{
    for (i++; i < len; i++) {
        if (z[i] == q) {
            if (i + 1 < len && z[i + 1] == q) {
                i++;
                continue;
            }
            return i + 1;
        }
    }
    *unterminated = true;
    return len;
}

void sl_tokenize_next(const char *sql, size_t len, size_t off, sl_token *tok)
{
    const unsigned char *z = (const unsigned char *)sql;
    size_t i = off;
    tok->pos = (int)off;
    tok->len = 0;
    tok->unterminated = false;
    tok->bad_utf8 = -1;
    if (off >= len) {
        tok->type = SL_TK_EOF;
        tok->pos = (int)len;
        return;
    }
    unsigned char c = z[i];
    int type;
    if (sl__is_space(c)) {
        while (i < len && sl__is_space(z[i]))
            i++;
        type = SL_TK_SPACE;
    } else if (c == '-' && i + 1 < len && z[i + 1] == '-') {
        while (i < len && z[i] != '\n')
            i++;
        type = SL_TK_COMMENT;
    } else if (c == '/' && i + 1 < len && z[i + 1] == '*') {
        type = SL_TK_COMMENT;
        for (i += 2; i + 1 < len && !(z[i] == '*' && z[i + 1] == '/'); i++)
            ;
        if (i + 1 < len) {
            i += 2;
        } else {
            i = len;
            type = SL_TK_ILLEGAL;
            tok->unterminated = true;
        }
    } else if (c == '\'') {
        i = sl__scan_quoted(z, len, i, '\'', &tok->unterminated);
        type = tok->unterminated ? SL_TK_ILLEGAL : TK_STRING;
    } else if (c == '`') {
        i = sl__scan_quoted(z, len, i, '`', &tok->unterminated);
        type = tok->unterminated ? SL_TK_ILLEGAL : TK_ID;
    } else if (c == '"') {
        /* PostgreSQL's quoted identifier (case kept, "" escapes "), as `..`. */
        i = sl__scan_quoted(z, len, i, '"', &tok->unterminated);
        type = tok->unterminated ? SL_TK_ILLEGAL : TK_ID;
    } else if ((c == 'X' || c == 'x') && i + 1 < len && z[i + 1] == '\'') {
        /* Flink's binary string X'0a1b' (the builder checks its digits). */
        i = sl__scan_quoted(z, len, i + 1, '\'', &tok->unterminated);
        type = tok->unterminated ? SL_TK_ILLEGAL : TK_XSTRING;
    } else if ((c == 'E' || c == 'e') && i + 1 < len && z[i + 1] == '\'') {
        /* PostgreSQL's E'...' string: a backslash escapes the next byte. */
        for (i += 2; i < len; i++) {
            if (z[i] == '\\') {
                i++;
            } else if (z[i] == '\'') {
                if (i + 1 < len && z[i + 1] == '\'') {
                    i++;
                    continue;
                }
                break;
            }
        }
        if (i >= len) {
            i = len;
            tok->unterminated = true;
            type = SL_TK_ILLEGAL;
        } else {
            i++;
            type = TK_STRING;
        }
    } else if (sl__is_digit(c) || (c == '.' && i + 1 < len && sl__is_digit(z[i + 1]))) {
        while (i < len && sl__is_digit(z[i]))
            i++;
        if (i < len && z[i] == '.') {
            i++;
            while (i < len && sl__is_digit(z[i]))
                i++;
        }
        if (i < len && (z[i] == 'e' || z[i] == 'E')) {
            size_t j = i + 1;
            if (j < len && (z[j] == '+' || z[j] == '-'))
                j++;
            if (j < len && sl__is_digit(z[j])) {
                while (j < len && sl__is_digit(z[j]))
                    j++;
                i = j;
            }
        }
        type = TK_NUMBER;
        if (i < len && (sl__is_ident(z[i]) || z[i] == '.')) {
            /* "12abc", "1.2.3": trailing junk; the whole run is illegal. */
            while (i < len && (sl__is_ident(z[i]) || z[i] == '.'))
                i++;
            type = SL_TK_ILLEGAL;
        }
    } else if (c == '$' && i + 1 < len && sl__is_digit(z[i + 1])) {
        /* $n: a parameter (PostgreSQL's extended query protocol) */
        for (i++; i < len && sl__is_digit(z[i]); i++)
            ;
        type = TK_PARAM;
        if (i < len && sl__is_ident(z[i])) {
            while (i < len && sl__is_ident(z[i]))
                i++;
            type = SL_TK_ILLEGAL;
        }
    } else if (sl__is_ident_start(c)) {
        while (i < len && sl__is_ident(z[i]))
            i++;
        int kw = sl__keyword_code(sql + off, (int)(i - off));
        type = kw ? kw : TK_ID;
    } else {
        i++;
        unsigned char d = i < len ? z[i] : 0;
        switch (c) {
        case ';': type = TK_SEMI; break;
        case '(': type = TK_LP; break;
        case ')': type = TK_RP; break;
        case '[': type = TK_LBRACKET; break; /* PostgreSQL: a[i], ::type[] */
        case ']': type = TK_RBRACKET; break;
        case ',': type = TK_COMMA; break;
        case '.': type = TK_DOT; break;
        case '*': type = TK_STAR; break;
        case '+': type = TK_PLUS; break;
        case '-': type = TK_MINUS; break;
        case '/': type = TK_SLASH; break;
        case '%': type = TK_PERCENT; break;
        case '|':
            type = d == '|' ? TK_CONCAT : SL_TK_ILLEGAL;
            i += d == '|';
            break;
        case '=':
            type = d == '>' ? TK_ARROW : TK_EQ;
            i += d == '>';
            break;
        case '!':
            if (d == '~') { /* !~ and !~* (PostgreSQL) */
                i++;
                type = i < len && z[i] == '*' ? TK_NITILDE : TK_NTILDE;
                i += type == TK_NITILDE;
            } else {
                type = d == '=' ? TK_NE : SL_TK_ILLEGAL;
                i += d == '=';
            }
            break;
        case '~':
            type = d == '*' ? TK_ITILDE : TK_TILDE;
            i += d == '*';
            break;
        case ':':
            type = d == ':' ? TK_DCOLON : SL_TK_ILLEGAL;
            i += d == ':';
            break;
        case '<':
            if (d == '>' || d == '=') {
                type = d == '>' ? TK_NE : TK_LE;
                i++;
            } else {
                type = TK_LT;
            }
            break;
        case '>':
            type = d == '=' ? TK_GE : TK_GT;
            i += d == '=';
            break;
        default: type = SL_TK_ILLEGAL; break;
        }
    }
    /* SQL text is UTF-8 (catalog.json, _job.json and every message carry it
    ** as such): a token holding a byte that is not is illegal, whatever kind
    ** of token it is (comments, strings and quoted identifiers included). */
    int64_t bad = sl_utf8_invalid(sql + off, i - off);
    if (bad >= 0) {
        tok->bad_utf8 = (int)(off + (size_t)bad);
        type = SL_TK_ILLEGAL;
    }
    tok->type = type;
    tok->len = (int)(i - off);
}
