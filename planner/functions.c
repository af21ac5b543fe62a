/*
** functions.c — the function registry: one static table of every operator
** and function (indexed by sl_func_id), the names a user may call them by
** (incl. aliases SUBSTR, CHARACTER_LENGTH, CEILING), and the typing of
** scalar functions and aggregates after Flink's return-type rules.
**
** Scalar typing is table driven: each function has an argument-class string
** (S = string, I = integer, N = numeric, B = BOOLEAN, D = TIMESTAMP,
** TIMESTAMP_LTZ or string, T = DATE, TIMESTAMP or TIMESTAMP_LTZ, A = ARRAY,
** M = MAP, C = ARRAY or MAP, * = any; an untyped NULL fits every class; the
** last class repeats for variadic functions) and a signature for the hint;
** the result type is computed per function in sl__result_type.
**
** Main routines: sl_func_find, sl_func_get, sl_func_names, sl_func_agg_type,
** sl_func_scalar_type, sl_func_is_deterministic.
*/
#include "sl_bind.h"
#include "../base/sl_time.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SC SL_FUNC_SCALAR
#define AG SL_FUNC_AGGREGATE
#define WI SL_FUNC_WINDOW

static const sl_func sl__funcs[SL_FN__COUNT] = {
    [SL_FN_NEG] = {"-", SL_FN_NEG, SC, 1, 1},
    [SL_FN_ADD] = {"+", SL_FN_ADD, SC, 2, 2},
    [SL_FN_SUB] = {"-", SL_FN_SUB, SC, 2, 2},
    [SL_FN_MUL] = {"*", SL_FN_MUL, SC, 2, 2},
    [SL_FN_DIV] = {"/", SL_FN_DIV, SC, 2, 2},
    [SL_FN_MOD] = {"%", SL_FN_MOD, SC, 2, 2},
    [SL_FN_EQ] = {"=", SL_FN_EQ, SC, 2, 2},
    [SL_FN_NE] = {"<>", SL_FN_NE, SC, 2, 2},
    [SL_FN_LT] = {"<", SL_FN_LT, SC, 2, 2},
    [SL_FN_LE] = {"<=", SL_FN_LE, SC, 2, 2},
    [SL_FN_GT] = {">", SL_FN_GT, SC, 2, 2},
    [SL_FN_GE] = {">=", SL_FN_GE, SC, 2, 2},
    [SL_FN_AND] = {"AND", SL_FN_AND, SC, 2, 2},
    [SL_FN_OR] = {"OR", SL_FN_OR, SC, 2, 2},
    [SL_FN_NOT] = {"NOT", SL_FN_NOT, SC, 1, 1},
    [SL_FN_ANY_EQ] = {"= ANY", SL_FN_ANY_EQ, SC, 2, 2},
    [SL_FN_IS_DISTINCT] = {"IS DISTINCT FROM", SL_FN_IS_DISTINCT, SC, 2, 2},
    [SL_FN_IS_NOT_DISTINCT] = {"IS NOT DISTINCT FROM", SL_FN_IS_NOT_DISTINCT, SC, 2, 2},
    [SL_FN_IS_NULL] = {"IS NULL", SL_FN_IS_NULL, SC, 1, 1},
    [SL_FN_IS_NOT_NULL] = {"IS NOT NULL", SL_FN_IS_NOT_NULL, SC, 1, 1},
    [SL_FN_IS_TRUE] = {"IS TRUE", SL_FN_IS_TRUE, SC, 1, 1},
    [SL_FN_IS_NOT_TRUE] = {"IS NOT TRUE", SL_FN_IS_NOT_TRUE, SC, 1, 1},
    [SL_FN_IS_FALSE] = {"IS FALSE", SL_FN_IS_FALSE, SC, 1, 1},
    [SL_FN_IS_NOT_FALSE] = {"IS NOT FALSE", SL_FN_IS_NOT_FALSE, SC, 1, 1},
    [SL_FN_BETWEEN] = {"BETWEEN", SL_FN_BETWEEN, SC, 3, 3},
    [SL_FN_NOT_BETWEEN] = {"NOT BETWEEN", SL_FN_NOT_BETWEEN, SC, 3, 3},
    [SL_FN_IN] = {"IN", SL_FN_IN, SC, 2, -1},
    [SL_FN_NOT_IN] = {"NOT IN", SL_FN_NOT_IN, SC, 2, -1},
    [SL_FN_LIKE] = {"LIKE", SL_FN_LIKE, SC, 2, 3},
    [SL_FN_NOT_LIKE] = {"NOT LIKE", SL_FN_NOT_LIKE, SC, 2, 3},
    [SL_FN_CONCAT] = {"||", SL_FN_CONCAT, SC, 2, 2},
    [SL_FN_REGEX] = {"~", SL_FN_REGEX, SC, 2, 2},
    [SL_FN_NOT_REGEX] = {"!~", SL_FN_NOT_REGEX, SC, 2, 2},
    [SL_FN_IREGEX] = {"~*", SL_FN_IREGEX, SC, 2, 2},
    [SL_FN_NOT_IREGEX] = {"!~*", SL_FN_NOT_IREGEX, SC, 2, 2},
    [SL_FN_UPPER] = {"UPPER", SL_FN_UPPER, SC, 1, 1},
    [SL_FN_LOWER] = {"LOWER", SL_FN_LOWER, SC, 1, 1},
    [SL_FN_SUBSTRING] = {"SUBSTRING", SL_FN_SUBSTRING, SC, 2, 3},
    [SL_FN_TRIM] = {"TRIM", SL_FN_TRIM, SC, 1, 2},
    [SL_FN_LTRIM] = {"LTRIM", SL_FN_LTRIM, SC, 1, 2},
    [SL_FN_RTRIM] = {"RTRIM", SL_FN_RTRIM, SC, 1, 2},
    [SL_FN_CHAR_LENGTH] = {"CHAR_LENGTH", SL_FN_CHAR_LENGTH, SC, 1, 1},
    [SL_FN_REPLACE] = {"REPLACE", SL_FN_REPLACE, SC, 3, 3},
    [SL_FN_POSITION] = {"POSITION", SL_FN_POSITION, SC, 2, 2},
    [SL_FN_LPAD] = {"LPAD", SL_FN_LPAD, SC, 3, 3},
    [SL_FN_RPAD] = {"RPAD", SL_FN_RPAD, SC, 3, 3},
    [SL_FN_ABS] = {"ABS", SL_FN_ABS, SC, 1, 1},
    [SL_FN_ROUND] = {"ROUND", SL_FN_ROUND, SC, 1, 2},
    [SL_FN_FLOOR] = {"FLOOR", SL_FN_FLOOR, SC, 1, 2},
    [SL_FN_CEIL] = {"CEIL", SL_FN_CEIL, SC, 1, 2},
    [SL_FN_MOD_FN] = {"MOD", SL_FN_MOD_FN, SC, 2, 2},
    [SL_FN_POWER] = {"POWER", SL_FN_POWER, SC, 2, 2},
    [SL_FN_SQRT] = {"SQRT", SL_FN_SQRT, SC, 1, 1},
    [SL_FN_COALESCE] = {"COALESCE", SL_FN_COALESCE, SC, 1, -1},
    [SL_FN_NULLIF] = {"NULLIF", SL_FN_NULLIF, SC, 2, 2},
    [SL_FN_IF] = {"IF", SL_FN_IF, SC, 3, 3},
    [SL_FN_DATE_FORMAT] = {"DATE_FORMAT", SL_FN_DATE_FORMAT, SC, 2, 2},
    [SL_FN_TO_TIMESTAMP] = {"TO_TIMESTAMP", SL_FN_TO_TIMESTAMP, SC, 1, 2},
    [SL_FN_TO_DATE] = {"TO_DATE", SL_FN_TO_DATE, SC, 1, 2},
    [SL_FN_CURRENT_TIMESTAMP] = {"CURRENT_TIMESTAMP", SL_FN_CURRENT_TIMESTAMP, SC, 0, 0},
    [SL_FN_CURRENT_DATE] = {"CURRENT_DATE", SL_FN_CURRENT_DATE, SC, 0, 0},
    [SL_FN_LOCALTIMESTAMP] = {"LOCALTIMESTAMP", SL_FN_LOCALTIMESTAMP, SC, 0, 0},
    [SL_FN_NOW] = {"NOW", SL_FN_NOW, SC, 0, 0},
    [SL_FN_PROCTIME] = {"PROCTIME", SL_FN_PROCTIME, SC, 0, 0},
    [SL_FN_UNIX_TIMESTAMP] = {"UNIX_TIMESTAMP", SL_FN_UNIX_TIMESTAMP, SC, 0, 2},
    [SL_FN_FROM_UNIXTIME] = {"FROM_UNIXTIME", SL_FN_FROM_UNIXTIME, SC, 1, 2},
    [SL_FN_TO_TIMESTAMP_LTZ] = {"TO_TIMESTAMP_LTZ", SL_FN_TO_TIMESTAMP_LTZ, SC, 1, 2},
    [SL_FN_CONCAT_FN] = {"CONCAT", SL_FN_CONCAT_FN, SC, 1, -1},
    [SL_FN_PG_GET_USERBYID] = {"PG_GET_USERBYID", SL_FN_PG_GET_USERBYID, SC, 1, 1},
    [SL_FN_PG_TABLE_IS_VISIBLE] = {"PG_TABLE_IS_VISIBLE", SL_FN_PG_TABLE_IS_VISIBLE, SC, 1, 1},
    [SL_FN_PG_ENCODING_TO_CHAR] = {"PG_ENCODING_TO_CHAR", SL_FN_PG_ENCODING_TO_CHAR, SC, 1, 1},
    [SL_FN_ARRAY_TO_STRING] = {"ARRAY_TO_STRING", SL_FN_ARRAY_TO_STRING, SC, 2, 3},
    [SL_FN_PG_REGCLASS] = {"PG_REGCLASS", SL_FN_PG_REGCLASS, SC, 1, 1},
    [SL_FN_PG_REGOID] = {"PG_REGOID", SL_FN_PG_REGOID, SC, 1, 1},
    [SL_FN_FORMAT_TYPE] = {"FORMAT_TYPE", SL_FN_FORMAT_TYPE, SC, 2, 2},
    [SL_FN_PG_GET_EXPR] = {"PG_GET_EXPR", SL_FN_PG_GET_EXPR, SC, 2, 3},
    [SL_FN_ARRAY_UPPER] = {"ARRAY_UPPER", SL_FN_ARRAY_UPPER, SC, 2, 2},
    [SL_FN_PG_SUBSCRIPT] = {"PG_SUBSCRIPT", SL_FN_PG_SUBSCRIPT, SC, 2, 2},
    [SL_FN_PG_GET_INDEXDEF] = {"PG_GET_INDEXDEF", SL_FN_PG_GET_INDEXDEF, SC, 1, 3},
    [SL_FN_PG_GET_CONSTRAINTDEF] = {"PG_GET_CONSTRAINTDEF", SL_FN_PG_GET_CONSTRAINTDEF, SC, 1, 2},
    [SL_FN_PG_GET_VIEWDEF] = {"PG_GET_VIEWDEF", SL_FN_PG_GET_VIEWDEF, SC, 1, 2},
    [SL_FN_COL_DESCRIPTION] = {"COL_DESCRIPTION", SL_FN_COL_DESCRIPTION, SC, 2, 2},
    [SL_FN_OBJ_DESCRIPTION] = {"OBJ_DESCRIPTION", SL_FN_OBJ_DESCRIPTION, SC, 1, 2},
    [SL_FN_PG_GET_STATISTICSOBJDEF_COLUMNS] = {"PG_GET_STATISTICSOBJDEF_COLUMNS",
                                               SL_FN_PG_GET_STATISTICSOBJDEF_COLUMNS, SC, 1, 1},
    [SL_FN_PG_RELATION_IS_PUBLISHABLE] = {"PG_RELATION_IS_PUBLISHABLE",
                                          SL_FN_PG_RELATION_IS_PUBLISHABLE, SC, 1, 1},
    [SL_FN_PG_TABLE_SIZE] = {"PG_TABLE_SIZE", SL_FN_PG_TABLE_SIZE, SC, 1, 1},
    [SL_FN_PG_SIZE_PRETTY] = {"PG_SIZE_PRETTY", SL_FN_PG_SIZE_PRETTY, SC, 1, 1},
    [SL_FN_COUNT] = {"COUNT", SL_FN_COUNT, AG, 0, 1},
    [SL_FN_SUM] = {"SUM", SL_FN_SUM, AG, 1, 1},
    [SL_FN_MIN] = {"MIN", SL_FN_MIN, AG, 1, 1},
    [SL_FN_MAX] = {"MAX", SL_FN_MAX, AG, 1, 1},
    [SL_FN_AVG] = {"AVG", SL_FN_AVG, AG, 1, 1},
    [SL_FN_LISTAGG] = {"LISTAGG", SL_FN_LISTAGG, AG, 1, 2},
    [SL_FN_ROW_NUMBER] = {"ROW_NUMBER", SL_FN_ROW_NUMBER, WI, 0, 0},
    [SL_FN_LOCATE] = {"LOCATE", SL_FN_LOCATE, SC, 2, 3},
    [SL_FN_INSTR] = {"INSTR", SL_FN_INSTR, SC, 2, 2},
    [SL_FN_SPLIT_INDEX] = {"SPLIT_INDEX", SL_FN_SPLIT_INDEX, SC, 3, 3},
    [SL_FN_REGEXP] = {"REGEXP", SL_FN_REGEXP, SC, 2, 2},
    [SL_FN_REGEXP_REPLACE] = {"REGEXP_REPLACE", SL_FN_REGEXP_REPLACE, SC, 3, 3},
    [SL_FN_REGEXP_EXTRACT] = {"REGEXP_EXTRACT", SL_FN_REGEXP_EXTRACT, SC, 2, 3},
    [SL_FN_REGEXP_COUNT] = {"REGEXP_COUNT", SL_FN_REGEXP_COUNT, SC, 2, 2},
    [SL_FN_REGEXP_INSTR] = {"REGEXP_INSTR", SL_FN_REGEXP_INSTR, SC, 2, 2},
    [SL_FN_REGEXP_SUBSTR] = {"REGEXP_SUBSTR", SL_FN_REGEXP_SUBSTR, SC, 2, 2},
    [SL_FN_INITCAP] = {"INITCAP", SL_FN_INITCAP, SC, 1, 1},
    [SL_FN_REPEAT] = {"REPEAT", SL_FN_REPEAT, SC, 2, 2},
    [SL_FN_REVERSE] = {"REVERSE", SL_FN_REVERSE, SC, 1, 1},
    [SL_FN_LEFT] = {"LEFT", SL_FN_LEFT, SC, 2, 2},
    [SL_FN_RIGHT] = {"RIGHT", SL_FN_RIGHT, SC, 2, 2},
    [SL_FN_CONCAT_WS] = {"CONCAT_WS", SL_FN_CONCAT_WS, SC, 1, -1},
    [SL_FN_ASCII] = {"ASCII", SL_FN_ASCII, SC, 1, 1},
    [SL_FN_CHR] = {"CHR", SL_FN_CHR, SC, 1, 1},
    [SL_FN_TO_BASE64] = {"TO_BASE64", SL_FN_TO_BASE64, SC, 1, 1},
    [SL_FN_FROM_BASE64] = {"FROM_BASE64", SL_FN_FROM_BASE64, SC, 1, 1},
    [SL_FN_TRANSLATE] = {"TRANSLATE", SL_FN_TRANSLATE, SC, 3, 3},
    [SL_FN_STARTSWITH] = {"STARTSWITH", SL_FN_STARTSWITH, SC, 2, 2},
    [SL_FN_ENDSWITH] = {"ENDSWITH", SL_FN_ENDSWITH, SC, 2, 2},
    [SL_FN_BTRIM] = {"BTRIM", SL_FN_BTRIM, SC, 1, 2},
    [SL_FN_PARSE_URL] = {"PARSE_URL", SL_FN_PARSE_URL, SC, 2, 3},
    [SL_FN_URL_ENCODE] = {"URL_ENCODE", SL_FN_URL_ENCODE, SC, 1, 1},
    [SL_FN_URL_DECODE] = {"URL_DECODE", SL_FN_URL_DECODE, SC, 1, 1},
    [SL_FN_LN] = {"LN", SL_FN_LN, SC, 1, 1},
    [SL_FN_LOG10] = {"LOG10", SL_FN_LOG10, SC, 1, 1},
    [SL_FN_LOG2] = {"LOG2", SL_FN_LOG2, SC, 1, 1},
    [SL_FN_LOG] = {"LOG", SL_FN_LOG, SC, 1, 2},
    [SL_FN_EXP] = {"EXP", SL_FN_EXP, SC, 1, 1},
    [SL_FN_SIN] = {"SIN", SL_FN_SIN, SC, 1, 1},
    [SL_FN_COS] = {"COS", SL_FN_COS, SC, 1, 1},
    [SL_FN_TAN] = {"TAN", SL_FN_TAN, SC, 1, 1},
    [SL_FN_ASIN] = {"ASIN", SL_FN_ASIN, SC, 1, 1},
    [SL_FN_ACOS] = {"ACOS", SL_FN_ACOS, SC, 1, 1},
    [SL_FN_ATAN] = {"ATAN", SL_FN_ATAN, SC, 1, 1},
    [SL_FN_ATAN2] = {"ATAN2", SL_FN_ATAN2, SC, 2, 2},
    [SL_FN_COT] = {"COT", SL_FN_COT, SC, 1, 1},
    [SL_FN_SINH] = {"SINH", SL_FN_SINH, SC, 1, 1},
    [SL_FN_COSH] = {"COSH", SL_FN_COSH, SC, 1, 1},
    [SL_FN_TANH] = {"TANH", SL_FN_TANH, SC, 1, 1},
    [SL_FN_DEGREES] = {"DEGREES", SL_FN_DEGREES, SC, 1, 1},
    [SL_FN_RADIANS] = {"RADIANS", SL_FN_RADIANS, SC, 1, 1},
    [SL_FN_SIGN] = {"SIGN", SL_FN_SIGN, SC, 1, 1},
    [SL_FN_PI] = {"PI", SL_FN_PI, SC, 0, 0},
    [SL_FN_E] = {"E", SL_FN_E, SC, 0, 0},
    [SL_FN_TRUNCATE] = {"TRUNCATE", SL_FN_TRUNCATE, SC, 1, 2},
    [SL_FN_BIN] = {"BIN", SL_FN_BIN, SC, 1, 1},
    [SL_FN_HEX] = {"HEX", SL_FN_HEX, SC, 1, 1},
    [SL_FN_RAND] = {"RAND", SL_FN_RAND, SC, 0, 1},
    [SL_FN_RAND_INTEGER] = {"RAND_INTEGER", SL_FN_RAND_INTEGER, SC, 1, 2},
    [SL_FN_UUID] = {"UUID", SL_FN_UUID, SC, 0, 0},
    [SL_FN_IFNULL] = {"IFNULL", SL_FN_IFNULL, SC, 2, 2},
    [SL_FN_GREATEST] = {"GREATEST", SL_FN_GREATEST, SC, 1, -1},
    [SL_FN_LEAST] = {"LEAST", SL_FN_LEAST, SC, 1, -1},
    [SL_FN_IS_ALPHA] = {"IS_ALPHA", SL_FN_IS_ALPHA, SC, 1, 1},
    [SL_FN_IS_DIGIT] = {"IS_DIGIT", SL_FN_IS_DIGIT, SC, 1, 1},
    [SL_FN_IS_DECIMAL] = {"IS_DECIMAL", SL_FN_IS_DECIMAL, SC, 1, 1},
    [SL_FN_MD5] = {"MD5", SL_FN_MD5, SC, 1, 1},
    [SL_FN_SHA1] = {"SHA1", SL_FN_SHA1, SC, 1, 1},
    [SL_FN_SHA224] = {"SHA224", SL_FN_SHA224, SC, 1, 1},
    [SL_FN_SHA256] = {"SHA256", SL_FN_SHA256, SC, 1, 1},
    [SL_FN_SHA384] = {"SHA384", SL_FN_SHA384, SC, 1, 1},
    [SL_FN_SHA512] = {"SHA512", SL_FN_SHA512, SC, 1, 1},
    [SL_FN_SHA2] = {"SHA2", SL_FN_SHA2, SC, 2, 2},
    [SL_FN_YEAR] = {"YEAR", SL_FN_YEAR, SC, 1, 1},
    [SL_FN_QUARTER] = {"QUARTER", SL_FN_QUARTER, SC, 1, 1},
    [SL_FN_MONTH] = {"MONTH", SL_FN_MONTH, SC, 1, 1},
    [SL_FN_WEEK] = {"WEEK", SL_FN_WEEK, SC, 1, 1},
    [SL_FN_DAYOFYEAR] = {"DAYOFYEAR", SL_FN_DAYOFYEAR, SC, 1, 1},
    [SL_FN_DAYOFMONTH] = {"DAYOFMONTH", SL_FN_DAYOFMONTH, SC, 1, 1},
    [SL_FN_DAYOFWEEK] = {"DAYOFWEEK", SL_FN_DAYOFWEEK, SC, 1, 1},
    [SL_FN_HOUR] = {"HOUR", SL_FN_HOUR, SC, 1, 1},
    [SL_FN_MINUTE] = {"MINUTE", SL_FN_MINUTE, SC, 1, 1},
    [SL_FN_SECOND] = {"SECOND", SL_FN_SECOND, SC, 1, 1},
    [SL_FN_EXTRACT] = {"EXTRACT", SL_FN_EXTRACT, SC, 2, 2},
    [SL_FN_TIMESTAMPADD] = {"TIMESTAMPADD", SL_FN_TIMESTAMPADD, SC, 3, 3},
    [SL_FN_TIMESTAMPDIFF] = {"TIMESTAMPDIFF", SL_FN_TIMESTAMPDIFF, SC, 3, 3},
    [SL_FN_CONVERT_TZ] = {"CONVERT_TZ", SL_FN_CONVERT_TZ, SC, 3, 3},
    [SL_FN_ARRAY_CTOR] = {"ARRAY", SL_FN_ARRAY_CTOR, SC, 1, -1},
    [SL_FN_MAP_CTOR] = {"MAP", SL_FN_MAP_CTOR, SC, 2, -1},
    [SL_FN_ITEM] = {"ITEM", SL_FN_ITEM, SC, 2, 2},
    [SL_FN_CARDINALITY] = {"CARDINALITY", SL_FN_CARDINALITY, SC, 1, 1},
    [SL_FN_ELEMENT] = {"ELEMENT", SL_FN_ELEMENT, SC, 1, 1},
    [SL_FN_ARRAY_CONTAINS] = {"ARRAY_CONTAINS", SL_FN_ARRAY_CONTAINS, SC, 2, 2},
    [SL_FN_ARRAY_DISTINCT] = {"ARRAY_DISTINCT", SL_FN_ARRAY_DISTINCT, SC, 1, 1},
    [SL_FN_ARRAY_POSITION] = {"ARRAY_POSITION", SL_FN_ARRAY_POSITION, SC, 2, 2},
    [SL_FN_ARRAY_REMOVE] = {"ARRAY_REMOVE", SL_FN_ARRAY_REMOVE, SC, 2, 2},
    [SL_FN_ARRAY_REVERSE] = {"ARRAY_REVERSE", SL_FN_ARRAY_REVERSE, SC, 1, 1},
    [SL_FN_ARRAY_SLICE] = {"ARRAY_SLICE", SL_FN_ARRAY_SLICE, SC, 2, 3},
    [SL_FN_ARRAY_UNION] = {"ARRAY_UNION", SL_FN_ARRAY_UNION, SC, 2, 2},
    [SL_FN_ARRAY_CONCAT] = {"ARRAY_CONCAT", SL_FN_ARRAY_CONCAT, SC, 1, -1},
    [SL_FN_ARRAY_MAX] = {"ARRAY_MAX", SL_FN_ARRAY_MAX, SC, 1, 1},
    [SL_FN_ARRAY_MIN] = {"ARRAY_MIN", SL_FN_ARRAY_MIN, SC, 1, 1},
    [SL_FN_ARRAY_JOIN] = {"ARRAY_JOIN", SL_FN_ARRAY_JOIN, SC, 2, 3},
    [SL_FN_ARRAY_APPEND] = {"ARRAY_APPEND", SL_FN_ARRAY_APPEND, SC, 2, 2},
    [SL_FN_ARRAY_PREPEND] = {"ARRAY_PREPEND", SL_FN_ARRAY_PREPEND, SC, 2, 2},
    [SL_FN_MAP_KEYS] = {"MAP_KEYS", SL_FN_MAP_KEYS, SC, 1, 1},
    [SL_FN_MAP_VALUES] = {"MAP_VALUES", SL_FN_MAP_VALUES, SC, 1, 1},
    [SL_FN_MAP_FROM_ARRAYS] = {"MAP_FROM_ARRAYS", SL_FN_MAP_FROM_ARRAYS, SC, 2, 2},
    [SL_FN_SPLIT] = {"SPLIT", SL_FN_SPLIT, SC, 2, 2},
    [SL_FN_ARRAY_AGG] = {"ARRAY_AGG", SL_FN_ARRAY_AGG, AG, 1, 1},
    [SL_FN_ARRAY_EXCEPT] = {"ARRAY_EXCEPT", SL_FN_ARRAY_EXCEPT, SC, 2, 2},
    [SL_FN_ARRAY_INTERSECT] = {"ARRAY_INTERSECT", SL_FN_ARRAY_INTERSECT, SC, 2, 2},
    [SL_FN_ARRAY_SORT] = {"ARRAY_SORT", SL_FN_ARRAY_SORT, SC, 1, 3},
    [SL_FN_MAP_UNION] = {"MAP_UNION", SL_FN_MAP_UNION, SC, 1, -1},
};

/* Names a user may call functions by (operators have none), as an X-macro
** so that the lookup table and the plain name list cannot drift apart. */
#define SL__FUNC_NAMES(X)                                                                   \
    X("UPPER", SL_FN_UPPER) X("LOWER", SL_FN_LOWER)                                         \
    X("SUBSTRING", SL_FN_SUBSTRING) X("SUBSTR", SL_FN_SUBSTRING)                            \
    X("TRIM", SL_FN_TRIM) X("LTRIM", SL_FN_LTRIM) X("RTRIM", SL_FN_RTRIM)                   \
    X("CHAR_LENGTH", SL_FN_CHAR_LENGTH) X("CHARACTER_LENGTH", SL_FN_CHAR_LENGTH)            \
    X("REPLACE", SL_FN_REPLACE) X("POSITION", SL_FN_POSITION)                               \
    X("LPAD", SL_FN_LPAD) X("RPAD", SL_FN_RPAD)                                             \
    X("ABS", SL_FN_ABS) X("ROUND", SL_FN_ROUND) X("FLOOR", SL_FN_FLOOR)                     \
    X("CEIL", SL_FN_CEIL) X("CEILING", SL_FN_CEIL) X("MOD", SL_FN_MOD_FN)                   \
    X("POWER", SL_FN_POWER) X("SQRT", SL_FN_SQRT)                                           \
    X("COALESCE", SL_FN_COALESCE) X("NULLIF", SL_FN_NULLIF) X("IF", SL_FN_IF)               \
    X("DATE_FORMAT", SL_FN_DATE_FORMAT) X("TO_TIMESTAMP", SL_FN_TO_TIMESTAMP)               \
    X("TO_DATE", SL_FN_TO_DATE) X("CURRENT_TIMESTAMP", SL_FN_CURRENT_TIMESTAMP)             \
    X("CURRENT_DATE", SL_FN_CURRENT_DATE) X("LOCALTIMESTAMP", SL_FN_LOCALTIMESTAMP)         \
    X("NOW", SL_FN_NOW) X("PROCTIME", SL_FN_PROCTIME) X("UNIX_TIMESTAMP", SL_FN_UNIX_TIMESTAMP)                           \
    X("FROM_UNIXTIME", SL_FN_FROM_UNIXTIME) X("CONCAT", SL_FN_CONCAT_FN)                    \
    X("TO_TIMESTAMP_LTZ", SL_FN_TO_TIMESTAMP_LTZ)                                           \
    X("PG_GET_USERBYID", SL_FN_PG_GET_USERBYID)                                             \
    X("PG_TABLE_IS_VISIBLE", SL_FN_PG_TABLE_IS_VISIBLE)                                     \
    X("PG_ENCODING_TO_CHAR", SL_FN_PG_ENCODING_TO_CHAR)                                     \
    X("ARRAY_TO_STRING", SL_FN_ARRAY_TO_STRING) X("ARRAY_UPPER", SL_FN_ARRAY_UPPER)         \
    X("PG_SUBSCRIPT", SL_FN_PG_SUBSCRIPT)                                                   \
    X("PG_REGCLASS", SL_FN_PG_REGCLASS) X("PG_REGOID", SL_FN_PG_REGOID)                     \
    X("FORMAT_TYPE", SL_FN_FORMAT_TYPE) X("PG_GET_EXPR", SL_FN_PG_GET_EXPR)                 \
    X("PG_GET_INDEXDEF", SL_FN_PG_GET_INDEXDEF)                                             \
    X("PG_GET_CONSTRAINTDEF", SL_FN_PG_GET_CONSTRAINTDEF)                                   \
    X("PG_GET_VIEWDEF", SL_FN_PG_GET_VIEWDEF) X("COL_DESCRIPTION", SL_FN_COL_DESCRIPTION)   \
    X("OBJ_DESCRIPTION", SL_FN_OBJ_DESCRIPTION)                                             \
    X("PG_GET_STATISTICSOBJDEF_COLUMNS", SL_FN_PG_GET_STATISTICSOBJDEF_COLUMNS)             \
    X("PG_RELATION_IS_PUBLISHABLE", SL_FN_PG_RELATION_IS_PUBLISHABLE)                       \
    X("PG_TABLE_SIZE", SL_FN_PG_TABLE_SIZE) X("PG_SIZE_PRETTY", SL_FN_PG_SIZE_PRETTY)         \
    X("COUNT", SL_FN_COUNT) X("SUM", SL_FN_SUM) X("MIN", SL_FN_MIN) X("MAX", SL_FN_MAX)     \
    X("AVG", SL_FN_AVG) X("LISTAGG", SL_FN_LISTAGG) X("STRING_AGG", SL_FN_LISTAGG)         \
    X("ROW_NUMBER", SL_FN_ROW_NUMBER)                                                       \
    X("LOCATE", SL_FN_LOCATE)                                                          \
    X("INSTR", SL_FN_INSTR)                                                            \
    X("SPLIT_INDEX", SL_FN_SPLIT_INDEX)                                                \
    X("REGEXP", SL_FN_REGEXP)                                                          \
    X("REGEXP_REPLACE", SL_FN_REGEXP_REPLACE)                                          \
    X("REGEXP_EXTRACT", SL_FN_REGEXP_EXTRACT)                                          \
    X("REGEXP_COUNT", SL_FN_REGEXP_COUNT)                                              \
    X("REGEXP_INSTR", SL_FN_REGEXP_INSTR)                                              \
    X("REGEXP_SUBSTR", SL_FN_REGEXP_SUBSTR)                                            \
    X("INITCAP", SL_FN_INITCAP)                                                        \
    X("REPEAT", SL_FN_REPEAT)                                                          \
    X("REVERSE", SL_FN_REVERSE)                                                        \
    X("LEFT", SL_FN_LEFT)                                                              \
    X("RIGHT", SL_FN_RIGHT)                                                            \
    X("CONCAT_WS", SL_FN_CONCAT_WS)                                                    \
    X("ASCII", SL_FN_ASCII)                                                            \
    X("CHR", SL_FN_CHR)                                                                \
    X("TO_BASE64", SL_FN_TO_BASE64)                                                    \
    X("FROM_BASE64", SL_FN_FROM_BASE64)                                                \
    X("TRANSLATE", SL_FN_TRANSLATE)                                                    \
    X("STARTSWITH", SL_FN_STARTSWITH)                                                  \
    X("ENDSWITH", SL_FN_ENDSWITH)                                                      \
    X("BTRIM", SL_FN_BTRIM)                                                            \
    X("PARSE_URL", SL_FN_PARSE_URL)                                                    \
    X("URL_ENCODE", SL_FN_URL_ENCODE)                                                  \
    X("URL_DECODE", SL_FN_URL_DECODE)                                                  \
    X("LN", SL_FN_LN)                                                                  \
    X("LOG10", SL_FN_LOG10)                                                            \
    X("LOG2", SL_FN_LOG2)                                                              \
    X("LOG", SL_FN_LOG)                                                                \
    X("EXP", SL_FN_EXP)                                                                \
    X("SIN", SL_FN_SIN)                                                                \
    X("COS", SL_FN_COS)                                                                \
    X("TAN", SL_FN_TAN)                                                                \
    X("ASIN", SL_FN_ASIN)                                                              \
    X("ACOS", SL_FN_ACOS)                                                              \
    X("ATAN", SL_FN_ATAN)                                                              \
    X("ATAN2", SL_FN_ATAN2)                                                            \
    X("COT", SL_FN_COT)                                                                \
    X("SINH", SL_FN_SINH)                                                              \
    X("COSH", SL_FN_COSH)                                                              \
    X("TANH", SL_FN_TANH)                                                              \
    X("DEGREES", SL_FN_DEGREES)                                                        \
    X("RADIANS", SL_FN_RADIANS)                                                        \
    X("SIGN", SL_FN_SIGN)                                                              \
    X("PI", SL_FN_PI)                                                                  \
    X("E", SL_FN_E)                                                                    \
    X("TRUNCATE", SL_FN_TRUNCATE)                                                      \
    X("BIN", SL_FN_BIN)                                                                \
    X("HEX", SL_FN_HEX)                                                                \
    X("RAND", SL_FN_RAND)                                                              \
    X("RAND_INTEGER", SL_FN_RAND_INTEGER)                                              \
    X("UUID", SL_FN_UUID)                                                              \
    X("IFNULL", SL_FN_IFNULL)                                                          \
    X("GREATEST", SL_FN_GREATEST)                                                      \
    X("LEAST", SL_FN_LEAST)                                                            \
    X("IS_ALPHA", SL_FN_IS_ALPHA)                                                      \
    X("IS_DIGIT", SL_FN_IS_DIGIT)                                                      \
    X("IS_DECIMAL", SL_FN_IS_DECIMAL)                                                  \
    X("MD5", SL_FN_MD5)                                                                \
    X("SHA1", SL_FN_SHA1)                                                              \
    X("SHA224", SL_FN_SHA224)                                                          \
    X("SHA256", SL_FN_SHA256)                                                          \
    X("SHA384", SL_FN_SHA384)                                                          \
    X("SHA512", SL_FN_SHA512)                                                          \
    X("SHA2", SL_FN_SHA2)                                                              \
    X("YEAR", SL_FN_YEAR)                                                              \
    X("QUARTER", SL_FN_QUARTER)                                                        \
    X("MONTH", SL_FN_MONTH)                                                            \
    X("WEEK", SL_FN_WEEK)                                                              \
    X("DAYOFYEAR", SL_FN_DAYOFYEAR)                                                    \
    X("DAYOFMONTH", SL_FN_DAYOFMONTH)                                                  \
    X("DAYOFWEEK", SL_FN_DAYOFWEEK)                                                    \
    X("HOUR", SL_FN_HOUR)                                                              \
    X("MINUTE", SL_FN_MINUTE)                                                          \
    X("SECOND", SL_FN_SECOND) X("EXTRACT", SL_FN_EXTRACT)                              \
    X("TIMESTAMPADD", SL_FN_TIMESTAMPADD) X("TIMESTAMPDIFF", SL_FN_TIMESTAMPDIFF)    \
    X("CONVERT_TZ", SL_FN_CONVERT_TZ)                                                  \
    X("ARRAY", SL_FN_ARRAY_CTOR) X("MAP", SL_FN_MAP_CTOR)                              \
    X("CARDINALITY", SL_FN_CARDINALITY) X("ELEMENT", SL_FN_ELEMENT)                    \
    X("ARRAY_CONTAINS", SL_FN_ARRAY_CONTAINS) X("ARRAY_DISTINCT", SL_FN_ARRAY_DISTINCT) \
    X("ARRAY_POSITION", SL_FN_ARRAY_POSITION) X("ARRAY_REMOVE", SL_FN_ARRAY_REMOVE)    \
    X("ARRAY_REVERSE", SL_FN_ARRAY_REVERSE) X("ARRAY_SLICE", SL_FN_ARRAY_SLICE)        \
    X("ARRAY_UNION", SL_FN_ARRAY_UNION) X("ARRAY_CONCAT", SL_FN_ARRAY_CONCAT)          \
    X("ARRAY_MAX", SL_FN_ARRAY_MAX) X("ARRAY_MIN", SL_FN_ARRAY_MIN)                    \
    X("ARRAY_JOIN", SL_FN_ARRAY_JOIN) X("ARRAY_APPEND", SL_FN_ARRAY_APPEND)            \
    X("ARRAY_PREPEND", SL_FN_ARRAY_PREPEND) X("MAP_KEYS", SL_FN_MAP_KEYS)              \
    X("MAP_VALUES", SL_FN_MAP_VALUES) X("MAP_FROM_ARRAYS", SL_FN_MAP_FROM_ARRAYS)      \
    X("SPLIT", SL_FN_SPLIT) X("ARRAY_AGG", SL_FN_ARRAY_AGG)                           \
    X("ARRAY_EXCEPT", SL_FN_ARRAY_EXCEPT) X("ARRAY_INTERSECT", SL_FN_ARRAY_INTERSECT)   \
    X("ARRAY_SORT", SL_FN_ARRAY_SORT) X("MAP_UNION", SL_FN_MAP_UNION)

typedef struct sl__func_name {
    const char *name; /* upper-case name or alias */
    sl_func_id id;    /* the function */
} sl__func_name;

#define SL__NAME_ENTRY(n, id) {n, id},
#define SL__NAME_ONLY(n, id) n,
static const sl__func_name sl__names[] = {SL__FUNC_NAMES(SL__NAME_ENTRY)};
static const char *const sl__name_list[] = {SL__FUNC_NAMES(SL__NAME_ONLY) NULL};

/* Argument classes and the signature shown in hints, per scalar function. */
typedef struct sl__sig {
    const char *classes;   /* one class letter per argument (see file header) */
    const char *signature; /* for "Expected ..." hints */
} sl__sig;

static const sl__sig sl__sigs[SL_FN__COUNT] = {
    [SL_FN_UPPER] = {"S", "UPPER(STRING)"},
    [SL_FN_LOWER] = {"S", "LOWER(STRING)"},
    [SL_FN_SUBSTRING] = {"SII", "SUBSTRING(STRING, INT [, INT])"},
    [SL_FN_TRIM] = {"SS", "TRIM([BOTH | LEADING | TRAILING] [STRING] FROM STRING)"},
    [SL_FN_LTRIM] = {"SS", "LTRIM(STRING [, STRING])"},
    [SL_FN_RTRIM] = {"SS", "RTRIM(STRING [, STRING])"},
    [SL_FN_CHAR_LENGTH] = {"S", "CHAR_LENGTH(STRING)"},
    [SL_FN_REPLACE] = {"SSS", "REPLACE(STRING, STRING, STRING)"},
    [SL_FN_POSITION] = {"SS", "POSITION(STRING, STRING)"},
    [SL_FN_LPAD] = {"SIS", "LPAD(STRING, INT, STRING)"},
    [SL_FN_RPAD] = {"SIS", "RPAD(STRING, INT, STRING)"},
    [SL_FN_ABS] = {"N", "ABS(NUMERIC)"},
    [SL_FN_ROUND] = {"NI", "ROUND(NUMERIC [, INT])"},
    [SL_FN_FLOOR] = {"*S", "FLOOR(NUMERIC) or FLOOR(DATE or TIMESTAMP TO unit)"},
    [SL_FN_CEIL] = {"*S", "CEIL(NUMERIC) or CEIL(DATE or TIMESTAMP TO unit)"},
    [SL_FN_MOD_FN] = {"NN", "MOD(NUMERIC, NUMERIC)"},
    [SL_FN_POWER] = {"NN", "POWER(NUMERIC, NUMERIC)"},
    [SL_FN_SQRT] = {"N", "SQRT(NUMERIC)"},
    [SL_FN_COALESCE] = {"*", "COALESCE(value, ...) with values of one common type"},
    [SL_FN_NULLIF] = {"**", "NULLIF(value, value) with comparable values"},
    [SL_FN_IF] = {"B**", "IF(BOOLEAN, value, value) with values of one common type"},
    [SL_FN_DATE_FORMAT] = {"DS", "DATE_FORMAT(TIMESTAMP, STRING) or DATE_FORMAT(STRING, STRING)"},
    [SL_FN_TO_TIMESTAMP] = {"SS", "TO_TIMESTAMP(STRING [, STRING])"},
    [SL_FN_TO_DATE] = {"SS", "TO_DATE(STRING [, STRING])"},
    [SL_FN_CURRENT_TIMESTAMP] = {"", "CURRENT_TIMESTAMP"},
    [SL_FN_CURRENT_DATE] = {"", "CURRENT_DATE"},
    [SL_FN_LOCALTIMESTAMP] = {"", "LOCALTIMESTAMP"},
    [SL_FN_NOW] = {"", "NOW()"},
    [SL_FN_PROCTIME] = {"", "PROCTIME()"},
    [SL_FN_UNIX_TIMESTAMP] = {"SS", "UNIX_TIMESTAMP([STRING [, STRING]])"},
    [SL_FN_FROM_UNIXTIME] = {"IS", "FROM_UNIXTIME(BIGINT [, STRING])"},
    [SL_FN_TO_TIMESTAMP_LTZ] = {"II", "TO_TIMESTAMP_LTZ(BIGINT [, 0 | 3])"},
    [SL_FN_CONCAT_FN] = {"S", "CONCAT(STRING, ...)"},
    [SL_FN_PG_GET_USERBYID] = {"I", "PG_GET_USERBYID(oid)"},
    [SL_FN_PG_TABLE_IS_VISIBLE] = {"I", "PG_TABLE_IS_VISIBLE(oid)"},
    [SL_FN_PG_ENCODING_TO_CHAR] = {"I", "PG_ENCODING_TO_CHAR(INT)"},
    [SL_FN_ARRAY_TO_STRING] = {"SSS", "ARRAY_TO_STRING(STRING, STRING [, STRING])"},
    [SL_FN_PG_REGCLASS] = {"*", "expr::regclass (a relation name or an oid)"},
    [SL_FN_PG_REGOID] = {"I", "expr::regtype / ::regnamespace (an oid)"},
    [SL_FN_FORMAT_TYPE] = {"II", "FORMAT_TYPE(oid, INT)"},
    [SL_FN_PG_GET_EXPR] = {"SIB", "PG_GET_EXPR(STRING, oid [, BOOLEAN])"},
    [SL_FN_ARRAY_UPPER] = {"SI", "ARRAY_UPPER(array, INT)"},
    [SL_FN_PG_SUBSCRIPT] = {"SI", "array[INT]"},
    [SL_FN_PG_GET_INDEXDEF] = {"IIB", "PG_GET_INDEXDEF(oid [, INT, BOOLEAN])"},
    [SL_FN_PG_GET_CONSTRAINTDEF] = {"IB", "PG_GET_CONSTRAINTDEF(oid [, BOOLEAN])"},
    [SL_FN_PG_GET_VIEWDEF] = {"IB", "PG_GET_VIEWDEF(oid [, BOOLEAN])"},
    [SL_FN_COL_DESCRIPTION] = {"II", "COL_DESCRIPTION(oid, INT)"},
    [SL_FN_OBJ_DESCRIPTION] = {"IS", "OBJ_DESCRIPTION(oid [, STRING])"},
    [SL_FN_PG_GET_STATISTICSOBJDEF_COLUMNS] = {"I", "PG_GET_STATISTICSOBJDEF_COLUMNS(oid)"},
    [SL_FN_PG_RELATION_IS_PUBLISHABLE] = {"I", "PG_RELATION_IS_PUBLISHABLE(regclass)"},
    [SL_FN_PG_TABLE_SIZE] = {"I", "PG_TABLE_SIZE(regclass)"},
    [SL_FN_PG_SIZE_PRETTY] = {"I", "PG_SIZE_PRETTY(BIGINT)"},
    [SL_FN_COUNT] = {"*", "COUNT(*) or COUNT(value)"},
    [SL_FN_SUM] = {"N", "SUM(NUMERIC)"},
    [SL_FN_MIN] = {"*", "MIN(value)"},
    [SL_FN_MAX] = {"*", "MAX(value)"},
    [SL_FN_AVG] = {"N", "AVG(NUMERIC)"},
    [SL_FN_LISTAGG] = {"SS", "LISTAGG(STRING [, STRING])"},
    [SL_FN_ROW_NUMBER] = {"", "ROW_NUMBER() OVER (...)"},
    [SL_FN_LOCATE] = {"SSI", "LOCATE(STRING, STRING [, INT])"},
    [SL_FN_INSTR] = {"SS", "INSTR(STRING, STRING)"},
    [SL_FN_SPLIT_INDEX] = {"SSI", "SPLIT_INDEX(STRING, STRING, INT)"},
    [SL_FN_REGEXP] = {"SS", "REGEXP(STRING, STRING)"},
    [SL_FN_REGEXP_REPLACE] = {"SSS", "REGEXP_REPLACE(STRING, STRING, STRING)"},
    [SL_FN_REGEXP_EXTRACT] = {"SSI", "REGEXP_EXTRACT(STRING, STRING [, INT])"},
    [SL_FN_REGEXP_COUNT] = {"SS", "REGEXP_COUNT(STRING, STRING)"},
    [SL_FN_REGEXP_INSTR] = {"SS", "REGEXP_INSTR(STRING, STRING)"},
    [SL_FN_REGEXP_SUBSTR] = {"SS", "REGEXP_SUBSTR(STRING, STRING)"},
    [SL_FN_INITCAP] = {"S", "INITCAP(STRING)"},
    [SL_FN_REPEAT] = {"SI", "REPEAT(STRING, INT)"},
    [SL_FN_REVERSE] = {"S", "REVERSE(STRING)"},
    [SL_FN_LEFT] = {"SI", "LEFT(STRING, INT)"},
    [SL_FN_RIGHT] = {"SI", "RIGHT(STRING, INT)"},
    [SL_FN_CONCAT_WS] = {"S", "CONCAT_WS(STRING, STRING, ...)"},
    [SL_FN_ASCII] = {"S", "ASCII(STRING)"},
    [SL_FN_CHR] = {"I", "CHR(INT)"},
    [SL_FN_TO_BASE64] = {"S", "TO_BASE64(STRING)"},
    [SL_FN_FROM_BASE64] = {"S", "FROM_BASE64(STRING)"},
    [SL_FN_TRANSLATE] = {"SSS", "TRANSLATE(STRING, STRING, STRING)"},
    [SL_FN_STARTSWITH] = {"SS", "STARTSWITH(STRING, STRING)"},
    [SL_FN_ENDSWITH] = {"SS", "ENDSWITH(STRING, STRING)"},
    [SL_FN_BTRIM] = {"SS", "BTRIM(STRING [, STRING])"},
    [SL_FN_PARSE_URL] = {"SSS", "PARSE_URL(STRING, STRING [, STRING])"},
    [SL_FN_URL_ENCODE] = {"S", "URL_ENCODE(STRING)"},
    [SL_FN_URL_DECODE] = {"S", "URL_DECODE(STRING)"},
    [SL_FN_LN] = {"N", "LN(NUMERIC)"},
    [SL_FN_LOG10] = {"N", "LOG10(NUMERIC)"},
    [SL_FN_LOG2] = {"N", "LOG2(NUMERIC)"},
    [SL_FN_LOG] = {"NN", "LOG([NUMERIC base,] NUMERIC)"},
    [SL_FN_EXP] = {"N", "EXP(NUMERIC)"},
    [SL_FN_SIN] = {"N", "SIN(NUMERIC)"},
    [SL_FN_COS] = {"N", "COS(NUMERIC)"},
    [SL_FN_TAN] = {"N", "TAN(NUMERIC)"},
    [SL_FN_ASIN] = {"N", "ASIN(NUMERIC)"},
    [SL_FN_ACOS] = {"N", "ACOS(NUMERIC)"},
    [SL_FN_ATAN] = {"N", "ATAN(NUMERIC)"},
    [SL_FN_ATAN2] = {"NN", "ATAN2(NUMERIC, NUMERIC)"},
    [SL_FN_COT] = {"N", "COT(NUMERIC)"},
    [SL_FN_SINH] = {"N", "SINH(NUMERIC)"},
    [SL_FN_COSH] = {"N", "COSH(NUMERIC)"},
    [SL_FN_TANH] = {"N", "TANH(NUMERIC)"},
    [SL_FN_DEGREES] = {"N", "DEGREES(NUMERIC)"},
    [SL_FN_RADIANS] = {"N", "RADIANS(NUMERIC)"},
    [SL_FN_SIGN] = {"N", "SIGN(NUMERIC)"},
    [SL_FN_PI] = {"", "PI()"},
    [SL_FN_E] = {"", "E()"},
    [SL_FN_TRUNCATE] = {"NI", "TRUNCATE(NUMERIC [, INT])"},
    [SL_FN_BIN] = {"I", "BIN(INTEGER)"},
    [SL_FN_HEX] = {"*", "HEX(INTEGER) or HEX(STRING)"},
    [SL_FN_RAND] = {"I", "RAND([INT])"},
    [SL_FN_RAND_INTEGER] = {"II", "RAND_INTEGER([INT seed,] INT bound)"},
    [SL_FN_UUID] = {"", "UUID()"},
    [SL_FN_IFNULL] = {"**", "IFNULL(value, value) with values of one common type"},
    [SL_FN_GREATEST] = {"*", "GREATEST(value, ...) with comparable values"},
    [SL_FN_LEAST] = {"*", "LEAST(value, ...) with comparable values"},
    [SL_FN_IS_ALPHA] = {"S", "IS_ALPHA(STRING)"},
    [SL_FN_IS_DIGIT] = {"S", "IS_DIGIT(STRING)"},
    [SL_FN_IS_DECIMAL] = {"S", "IS_DECIMAL(STRING)"},
    [SL_FN_MD5] = {"S", "MD5(STRING)"},
    [SL_FN_SHA1] = {"S", "SHA1(STRING)"},
    [SL_FN_SHA224] = {"S", "SHA224(STRING)"},
    [SL_FN_SHA256] = {"S", "SHA256(STRING)"},
    [SL_FN_SHA384] = {"S", "SHA384(STRING)"},
    [SL_FN_SHA512] = {"S", "SHA512(STRING)"},
    [SL_FN_SHA2] = {"SI", "SHA2(STRING, INT)"},
    [SL_FN_YEAR] = {"T", "YEAR(DATE or TIMESTAMP)"},
    [SL_FN_QUARTER] = {"T", "QUARTER(DATE or TIMESTAMP)"},
    [SL_FN_MONTH] = {"T", "MONTH(DATE or TIMESTAMP)"},
    [SL_FN_WEEK] = {"T", "WEEK(DATE or TIMESTAMP)"},
    [SL_FN_DAYOFYEAR] = {"T", "DAYOFYEAR(DATE or TIMESTAMP)"},
    [SL_FN_DAYOFMONTH] = {"T", "DAYOFMONTH(DATE or TIMESTAMP)"},
    [SL_FN_DAYOFWEEK] = {"T", "DAYOFWEEK(DATE or TIMESTAMP)"},
    [SL_FN_HOUR] = {"T", "HOUR(TIMESTAMP)"},
    [SL_FN_MINUTE] = {"T", "MINUTE(TIMESTAMP)"},
    [SL_FN_SECOND] = {"T", "SECOND(TIMESTAMP)"},
    [SL_FN_EXTRACT] = {"ST", "EXTRACT(unit FROM DATE or TIMESTAMP)"},
    [SL_FN_TIMESTAMPADD] = {"SIT", "TIMESTAMPADD(unit, INT, DATE or TIMESTAMP)"},
    [SL_FN_TIMESTAMPDIFF] = {"STT", "TIMESTAMPDIFF(unit, DATE or TIMESTAMP, DATE or TIMESTAMP)"},
    [SL_FN_CONVERT_TZ] = {"SSS", "CONVERT_TZ(STRING, STRING, STRING)"},
    [SL_FN_ARRAY_CTOR] = {"*", "ARRAY[value, ...] with values of one common type"},
    [SL_FN_MAP_CTOR] = {"*", "MAP[key, value, ...] with keys and values of common types"},
    [SL_FN_ITEM] = {"C*", "array[INT] or map[key]"},
    [SL_FN_CARDINALITY] = {"C", "CARDINALITY(ARRAY or MAP)"},
    [SL_FN_ELEMENT] = {"A", "ELEMENT(ARRAY)"},
    [SL_FN_ARRAY_CONTAINS] = {"A*", "ARRAY_CONTAINS(ARRAY, element)"},
    [SL_FN_ARRAY_DISTINCT] = {"A", "ARRAY_DISTINCT(ARRAY)"},
    [SL_FN_ARRAY_POSITION] = {"A*", "ARRAY_POSITION(ARRAY, element)"},
    [SL_FN_ARRAY_REMOVE] = {"A*", "ARRAY_REMOVE(ARRAY, element)"},
    [SL_FN_ARRAY_REVERSE] = {"A", "ARRAY_REVERSE(ARRAY)"},
    [SL_FN_ARRAY_SLICE] = {"AII", "ARRAY_SLICE(ARRAY, INT [, INT])"},
    [SL_FN_ARRAY_UNION] = {"AA", "ARRAY_UNION(ARRAY, ARRAY) of one common element type"},
    [SL_FN_ARRAY_CONCAT] = {"A", "ARRAY_CONCAT(ARRAY, ...) of one common element type"},
    [SL_FN_ARRAY_MAX] = {"A", "ARRAY_MAX(ARRAY)"},
    [SL_FN_ARRAY_MIN] = {"A", "ARRAY_MIN(ARRAY)"},
    [SL_FN_ARRAY_JOIN] = {"ASS", "ARRAY_JOIN(ARRAY<STRING>, STRING [, STRING])"},
    [SL_FN_ARRAY_APPEND] = {"A*", "ARRAY_APPEND(ARRAY, element)"},
    [SL_FN_ARRAY_PREPEND] = {"A*", "ARRAY_PREPEND(ARRAY, element)"},
    [SL_FN_MAP_KEYS] = {"M", "MAP_KEYS(MAP)"},
    [SL_FN_MAP_VALUES] = {"M", "MAP_VALUES(MAP)"},
    [SL_FN_MAP_FROM_ARRAYS] = {"AA", "MAP_FROM_ARRAYS(ARRAY, ARRAY)"},
    [SL_FN_SPLIT] = {"SS", "SPLIT(STRING, STRING)"},
    [SL_FN_ARRAY_EXCEPT] = {"AA", "ARRAY_EXCEPT(ARRAY, ARRAY) of one common element type"},
    [SL_FN_ARRAY_INTERSECT] = {"AA", "ARRAY_INTERSECT(ARRAY, ARRAY) of one common element type"},
    [SL_FN_ARRAY_SORT] = {"ABB", "ARRAY_SORT(ARRAY [, BOOLEAN ascending [, BOOLEAN nulls_first]])"},
    [SL_FN_MAP_UNION] = {"M", "MAP_UNION(MAP, ...) of common key and value types"},
};

const sl_func *sl_func_get(sl_func_id id)
{
    if ((int)id < 0 || id >= SL_FN__COUNT || !sl__funcs[id].name)
        return NULL;
    return &sl__funcs[id];
}

const sl_func *sl_func_find(const char *name)
{
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__names); i++)
        if (sl_strcasecmp(sl__names[i].name, name) == 0)
            return &sl__funcs[sl__names[i].id];
    return NULL;
}

const char *const *sl_func_names(int *n)
{
    if (n)
        *n = (int)SL_ARRAY_LEN(sl__names);
    return sl__name_list;
}

bool sl_func_is_deterministic(const sl_func *f, int nargs)
{
    switch (f->id) {
    case SL_FN_CURRENT_TIMESTAMP:
    case SL_FN_CURRENT_DATE:
    case SL_FN_LOCALTIMESTAMP:
    case SL_FN_NOW:
    case SL_FN_PROCTIME:
    case SL_FN_RAND:
    case SL_FN_RAND_INTEGER:
    case SL_FN_UUID:
        return false;
    case SL_FN_UNIX_TIMESTAMP:
        return nargs > 0;
    default:
        return f->kind == SL_FUNC_SCALAR;
    }
}

/* ------------------------------------------------------------------------
** Typing.
*/

/* "function NAME(T1, T2) does not exist" with the expected signature. */
static int sl__no_such_signature(const sl_func *f, const char *name, const sl_type *types, int n,
                                 int pos, sl_error *err)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (const char *p = name; *p; p++)
        sl_strbuf_append_char(&sb, (char)toupper((unsigned char)*p));
    sl_strbuf_append_char(&sb, '(');
    for (int i = 0; i < n; i++) {
        sl_type t = types[i];
        t.not_null = false;
        if (i > 0)
            sl_strbuf_append(&sb, ", ");
        sl_type_format(&sb, t);
    }
    sl_strbuf_append_char(&sb, ')');
    sl_error_set(err, SL_ERR_UNDEFINED_FUNCTION, pos, "function %s does not exist",
                 sl_strbuf_cstr(&sb));
    if (sl__sigs[f->id].signature)
        sl_error_hint(err, "Expected %s.", sl__sigs[f->id].signature);
    sl_strbuf_free(&sb);
    return -1;
}

/* Whether t fits argument class c. */
static bool sl__fits(char c, sl_type t)
{
    if (t.id == SL_TYPE_NULL)
        return true;
    switch (c) {
    case 'S': return sl_type_is_string(t.id);
    case 'I': return sl_type_is_integer(t.id);
    case 'N': return sl_type_is_numeric(t.id);
    case 'B': return t.id == SL_TYPE_BOOLEAN;
    case 'D': return sl_type_is_timestamp(t.id) || sl_type_is_string(t.id);
    case 'T': return sl_type_is_timestamp(t.id) || t.id == SL_TYPE_DATE;
    case 'A': return t.id == SL_TYPE_ARRAY;
    case 'M': return t.id == SL_TYPE_MAP;
    case 'C': return sl_type_is_composite(t.id);
    default: return true;
    }
}

/* STRING = VARCHAR(2147483647). */
static sl_type sl__string_type(void)
{
    return sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
}

/* CHAR(n) -> VARCHAR(n); VARCHAR kept; untyped NULL -> STRING. */
static sl_type sl__varying(sl_type t)
{
    if (t.id == SL_TYPE_CHAR)
        t.id = SL_TYPE_VARCHAR;
    else if (t.id != SL_TYPE_VARCHAR)
        t = sl__string_type();
    return t;
}

/* Integer value of a literal argument (ROUND's digits), if it is one;
** a negated literal (-1) counts. */
static bool sl__literal_int(const sl_bexpr *b, long *v)
{
    if (b->kind == SL_BX_CALL && b->fn && b->fn->id == SL_FN_NEG && b->nargs == 1 &&
        sl__literal_int(b->args[0], v)) {
        *v = -*v;
        return true;
    }
    if (b->kind != SL_BX_LITERAL || !b->text || !sl_type_is_integer(b->type.id))
        return false;
    *v = strtol(b->text, NULL, 10);
    return true;
}

/* "<what> types A and B cannot be matched" at args[i]; -1. */
static int sl__unmatched(const char *what, sl_type a, sl_type b, int pos, sl_error *err)
{
    a.not_null = b.not_null = false;
    char *sa = sl_type_to_string(a), *sb = sl_type_to_string(b);
    sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, pos, "%s types %s and %s cannot be matched", what,
                 sa, sb);
    sl_free(sa);
    sl_free(sb);
    return -1;
}

/* The common type of t[first], t[first + step], ... (an untyped NULL alone: INT). */
static int sl__common_of(const char *what, sl_bexpr *const *args, const sl_type *t, int n,
                         int first, int step, sl_type *out, sl_error *err)
{
    sl_type r = t[first];
    for (int i = first + step; i < n; i += step)
        if (!sl_type_common(r, t[i], &r))
            return sl__unmatched(what, r, t[i], args[i]->pos, err);
    if (r.id == SL_TYPE_NULL)
        r = sl_type_make(SL_TYPE_INT);
    *out = r;
    return 0;
}

/* Typing of the ARRAY and MAP functions (Flink's): constructors are NOT
** NULL, element access and the functions that may find nothing nullable,
** the rest NULL when an argument is. */
static int sl__collection_type(const sl_func *f, const char *name, sl_bexpr *const *args,
                               const sl_type *t, int n, int pos, sl_type *out, sl_error *err)
{
    sl_type r, e;
    bool strict = true; /* nullable when an argument is */
    sl_type a0 = t[0];
    if (a0.id == SL_TYPE_NULL && f->id != SL_FN_ARRAY_CTOR && f->id != SL_FN_MAP_CTOR &&
        f->id != SL_FN_SPLIT) {
        /* an untyped NULL where an ARRAY / MAP goes: ARRAY<INT> / MAP<INT, INT> */
        a0 = f->id == SL_FN_MAP_KEYS || f->id == SL_FN_MAP_VALUES
                 ? sl_type_map_of(sl_type_make(SL_TYPE_INT), sl_type_make(SL_TYPE_INT))
                 : sl_type_array_of(sl_type_make(SL_TYPE_INT));
    }
    switch (f->id) {
    case SL_FN_ARRAY_CTOR:
        if (sl__common_of("ARRAY", args, t, n, 0, 1, &e, err) < 0)
            return -1;
        r = sl_type_array_of(e);
        r.not_null = true;
        *out = r;
        return 0;
    case SL_FN_MAP_CTOR: {
        if (n % 2 != 0)
            return sl_error_set(err, SL_ERR_SYNTAX, pos,
                                "MAP needs an even number of arguments (key, value, ...), not %d", n);
        sl_type k, v;
        if (sl__common_of("MAP key", args, t, n, 0, 2, &k, err) < 0 ||
            sl__common_of("MAP value", args, t, n, 1, 2, &v, err) < 0)
            return -1;
        r = sl_type_map_of(k, v);
        r.not_null = true;
        *out = r;
        return 0;
    }
    case SL_FN_ITEM:
        if (a0.id == SL_TYPE_ARRAY) {
            long ix;
            if (!sl__fits('I', t[1]))
                return sl__no_such_signature(f, "ITEM", t, n, pos, err);
            if (sl__literal_int(args[1], &ix) && ix < 1) /* Flink's ValidationException */
                return sl_error_set(err, SL_ERR_ARRAY_SUBSCRIPT, args[1]->pos,
                                    "array element access needs an index starting at 1, not %ld",
                                    ix);
            r = sl_type_elem(a0);
        } else {
            if (!sl_type_comparable(sl_type_key(a0), t[1]))
                return sl__no_such_signature(f, "ITEM", t, n, pos, err);
            r = sl_type_value(a0);
        }
        r.not_null = false; /* out of range, no such key, a NULL element */
        *out = r;
        return 0;
    case SL_FN_CARDINALITY:
    case SL_FN_ARRAY_POSITION:
        r = sl_type_make(SL_TYPE_INT);
        break;
    case SL_FN_ELEMENT:
    case SL_FN_ARRAY_MAX:
    case SL_FN_ARRAY_MIN:
        r = sl_type_elem(a0);
        if (f->id != SL_FN_ELEMENT && (sl_type_is_composite(r.id) || !sl_type_comparable(r, r)))
            return sl__no_such_signature(f, name, t, n, pos, err);
        r.not_null = false; /* empty, or only NULL elements */
        *out = r;
        return 0;
    case SL_FN_ARRAY_CONTAINS:
        if (!sl_type_comparable(sl_type_elem(a0), t[1]))
            return sl__no_such_signature(f, name, t, n, pos, err);
        r = sl_type_make(SL_TYPE_BOOLEAN);
        r.not_null = a0.not_null; /* a NULL element is looked for */
        *out = r;
        return 0;
    case SL_FN_ARRAY_REMOVE:
    case SL_FN_ARRAY_APPEND:
    case SL_FN_ARRAY_PREPEND: {
        e = sl_type_elem(a0);
        if (!sl_type_common(e, t[1], &e))
            return sl__unmatched(f->name, sl_type_elem(a0), t[1], args[1]->pos, err);
        if (f->id == SL_FN_ARRAY_REMOVE)
            e = sl_type_elem(a0);
        r = sl_type_array_of(e);
        r.not_null = a0.not_null;
        *out = r;
        return 0;
    }
    case SL_FN_ARRAY_SORT:
        if (sl_type_is_composite(sl_type_elem(a0).id) ||
            !sl_type_comparable(sl_type_elem(a0), sl_type_elem(a0)))
            return sl__no_such_signature(f, name, t, n, pos, err);
        /* fall through */
    case SL_FN_ARRAY_DISTINCT:
    case SL_FN_ARRAY_REVERSE:
    case SL_FN_ARRAY_SLICE:
        r = a0;
        break;
    case SL_FN_MAP_UNION: {
        sl_type k = sl_type_key(a0), v = sl_type_value(a0);
        for (int i = 1; i < n; i++) {
            sl_type b = t[i].id == SL_TYPE_NULL ? a0 : t[i];
            if (!sl_type_common(k, sl_type_key(b), &k))
                return sl__unmatched("MAP_UNION key", k, sl_type_key(b), args[i]->pos, err);
            if (!sl_type_common(v, sl_type_value(b), &v))
                return sl__unmatched("MAP_UNION value", v, sl_type_value(b), args[i]->pos, err);
        }
        r = sl_type_map_of(k, v);
        break;
    }
    case SL_FN_ARRAY_UNION:
    case SL_FN_ARRAY_CONCAT:
    case SL_FN_ARRAY_EXCEPT:
    case SL_FN_ARRAY_INTERSECT:
        e = sl_type_elem(a0);
        for (int i = 1; i < n; i++) {
            sl_type b = t[i].id == SL_TYPE_NULL ? a0 : t[i];
            if (!sl_type_common(e, sl_type_elem(b), &e))
                return sl__unmatched(f->name, e, sl_type_elem(b), args[i]->pos, err);
        }
        r = sl_type_array_of(e);
        break;
    case SL_FN_ARRAY_JOIN:
        if (!sl_type_is_string(sl_type_elem(a0).id) && t[0].id != SL_TYPE_NULL)
            return sl__no_such_signature(f, name, t, n, pos, err);
        r = sl__string_type();
        r.not_null = t[0].not_null && t[1].not_null;
        *out = r;
        return 0;
    case SL_FN_MAP_KEYS:
        r = sl_type_array_of(sl_type_key(a0));
        break;
    case SL_FN_MAP_VALUES:
        r = sl_type_array_of(sl_type_value(a0));
        break;
    case SL_FN_MAP_FROM_ARRAYS:
        r = sl_type_map_of(sl_type_elem(a0),
                           sl_type_elem(t[1].id == SL_TYPE_NULL ? sl_type_array_of(sl_type_make(SL_TYPE_INT))
                                                                : t[1]));
        break;
    case SL_FN_SPLIT:
        r = sl_type_array_of(sl__string_type());
        break;
    default:
        return sl_error_set(err, SL_ERR_INTERNAL, pos, "no typing rule for function %s", f->name);
    }
    r.not_null = true;
    for (int i = 0; strict && i < n; i++)
        if (!t[i].not_null)
            r.not_null = false;
    *out = r;
    return 0;
}

/* Result type of a call whose arguments fit their classes, incl.
** nullability (by default nullable when any argument is). */
static int sl__result_type(const sl_func *f, const char *name, sl_bexpr *const *args,
                           const sl_type *t, int n, int pos, sl_type *out, sl_error *err)
{
    sl_type r;
    switch (f->id) {
    case SL_FN_UPPER:
    case SL_FN_LOWER:
        r = t[0].id == SL_TYPE_NULL ? sl__string_type() : t[0];
        break;
    case SL_FN_SUBSTRING:
    case SL_FN_TRIM:
    case SL_FN_LTRIM:
    case SL_FN_RTRIM:
        r = sl__varying(t[0]);
        break;
    case SL_FN_CHAR_LENGTH:
    case SL_FN_POSITION:
        r = sl_type_make(SL_TYPE_INT);
        break;
    case SL_FN_REPLACE:
    case SL_FN_LPAD:
    case SL_FN_RPAD:
    case SL_FN_CONCAT_FN:
    case SL_FN_DATE_FORMAT:
    case SL_FN_FROM_UNIXTIME:
    case SL_FN_PG_GET_USERBYID:
    case SL_FN_PG_ENCODING_TO_CHAR:
    case SL_FN_ARRAY_TO_STRING:
    case SL_FN_PG_SUBSCRIPT:
    case SL_FN_FORMAT_TYPE:
    case SL_FN_PG_GET_EXPR:
    case SL_FN_PG_GET_INDEXDEF:
    case SL_FN_PG_GET_CONSTRAINTDEF:
    case SL_FN_PG_GET_VIEWDEF:
    case SL_FN_COL_DESCRIPTION:
    case SL_FN_OBJ_DESCRIPTION:
    case SL_FN_PG_GET_STATISTICSOBJDEF_COLUMNS:
    case SL_FN_PG_SIZE_PRETTY:
        r = sl__string_type();
        break;
    case SL_FN_PG_REGCLASS:
    case SL_FN_PG_REGOID:
    case SL_FN_PG_TABLE_SIZE:
        r = sl_type_make(SL_TYPE_BIGINT);
        break;
    case SL_FN_ARRAY_UPPER:
        r = sl_type_make(SL_TYPE_INT);
        break;
    case SL_FN_PG_TABLE_IS_VISIBLE:
    case SL_FN_PG_RELATION_IS_PUBLISHABLE:
        r = sl_type_make(SL_TYPE_BOOLEAN);
        break;
    case SL_FN_ABS:
        r = t[0].id == SL_TYPE_NULL ? sl_type_make(SL_TYPE_INT) : t[0];
        break;
    case SL_FN_LOCATE:
    case SL_FN_INSTR:
    case SL_FN_ASCII:
    case SL_FN_REGEXP_COUNT:
    case SL_FN_REGEXP_INSTR:
        r = sl_type_make(SL_TYPE_INT);
        break;
    case SL_FN_REGEXP:
    case SL_FN_STARTSWITH:
    case SL_FN_ENDSWITH:
        r = sl_type_make(SL_TYPE_BOOLEAN);
        break;
    case SL_FN_IS_ALPHA:
    case SL_FN_IS_DIGIT:
    case SL_FN_IS_DECIMAL:
        r = sl_type_make(SL_TYPE_BOOLEAN);
        r.not_null = true; /* NULL is not alphabetic: FALSE */
        *out = r;
        return 0;
    case SL_FN_SPLIT_INDEX:
    case SL_FN_REGEXP_EXTRACT:
    case SL_FN_REGEXP_SUBSTR:
    case SL_FN_PARSE_URL:
    case SL_FN_URL_DECODE:
    case SL_FN_URL_ENCODE:
    case SL_FN_FROM_BASE64:
        r = sl__string_type();
        r.not_null = false; /* no such part / match / field, or undecodable: NULL */
        *out = r;
        return 0;
    case SL_FN_CONCAT_WS:
        r = sl__string_type();
        r.not_null = t[0].not_null; /* NULL arguments after the separator are skipped */
        *out = r;
        return 0;
    case SL_FN_REGEXP_REPLACE:
    case SL_FN_INITCAP:
    case SL_FN_REPEAT:
    case SL_FN_REVERSE:
    case SL_FN_LEFT:
    case SL_FN_RIGHT:
    case SL_FN_CHR:
    case SL_FN_TO_BASE64:
    case SL_FN_TRANSLATE:
    case SL_FN_BTRIM:
    case SL_FN_BIN:
    case SL_FN_MD5:
    case SL_FN_SHA1:
    case SL_FN_SHA224:
    case SL_FN_SHA256:
    case SL_FN_SHA384:
    case SL_FN_SHA512:
    case SL_FN_SHA2:
        r = sl__string_type();
        break;
    case SL_FN_HEX:
        if (t[0].id != SL_TYPE_NULL && !sl_type_is_integer(t[0].id) && !sl_type_is_string(t[0].id))
            return sl__no_such_signature(f, name, t, n, pos, err);
        r = sl__string_type();
        break;
    case SL_FN_UUID:
        r = sl__string_type();
        r.not_null = true;
        *out = r;
        return 0;
    case SL_FN_PI:
    case SL_FN_E:
        r = sl_type_make(SL_TYPE_DOUBLE);
        r.not_null = true;
        *out = r;
        return 0;
    case SL_FN_RAND:
        r = sl_type_make(SL_TYPE_DOUBLE);
        break;
    case SL_FN_RAND_INTEGER:
        r = sl_type_make(SL_TYPE_INT);
        break;
    case SL_FN_LN:
    case SL_FN_LOG10:
    case SL_FN_LOG2:
    case SL_FN_LOG:
    case SL_FN_EXP:
    case SL_FN_SIN:
    case SL_FN_COS:
    case SL_FN_TAN:
    case SL_FN_ASIN:
    case SL_FN_ACOS:
    case SL_FN_ATAN:
    case SL_FN_ATAN2:
    case SL_FN_COT:
    case SL_FN_SINH:
    case SL_FN_COSH:
    case SL_FN_TANH:
    case SL_FN_DEGREES:
    case SL_FN_RADIANS:
        r = sl_type_make(SL_TYPE_DOUBLE);
        break;
    case SL_FN_SIGN:
        r = t[0].id == SL_TYPE_NULL ? sl_type_make(SL_TYPE_INT) : t[0];
        break;
    case SL_FN_YEAR:
    case SL_FN_QUARTER:
    case SL_FN_MONTH:
    case SL_FN_WEEK:
    case SL_FN_DAYOFYEAR:
    case SL_FN_DAYOFMONTH:
    case SL_FN_DAYOFWEEK:
    case SL_FN_HOUR:
    case SL_FN_MINUTE:
    case SL_FN_SECOND:
        r = sl_type_make(SL_TYPE_BIGINT);
        break;
    case SL_FN_EXTRACT:
    case SL_FN_TIMESTAMPADD:
    case SL_FN_TIMESTAMPDIFF: {
        /* the unit: a name (the parser's string), known to the function */
        const sl_bexpr *u = args[0];
        sl_tunit unit = u->kind == SL_BX_LITERAL && u->text && sl_type_is_string(u->type.id)
                            ? sl_tunit_parse(u->text, strlen(u->text))
                            : SL_TUNIT_NONE;
        bool ok = unit != SL_TUNIT_NONE &&
                  (f->id == SL_FN_EXTRACT ? unit != SL_TUNIT_MILLISECOND
                                          : unit != SL_TUNIT_DOY && unit != SL_TUNIT_DOW);
        if (!ok) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, u->pos, "invalid time unit for %s", f->name);
            sl_error_hint(err, f->id == SL_FN_EXTRACT
                                   ? "Use YEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, HOUR, MINUTE or SECOND."
                                   : "Use YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND or "
                                     "MILLISECOND.");
            return -1;
        }
        if (f->id == SL_FN_EXTRACT)
            r = sl_type_make(SL_TYPE_BIGINT);
        else if (f->id == SL_FN_TIMESTAMPDIFF)
            r = sl_type_make(SL_TYPE_INT);
        else if (t[2].id == SL_TYPE_DATE && unit >= SL_TUNIT_HOUR)
            r = sl_type_make_p(SL_TYPE_TIMESTAMP, 0, 0); /* a DATE plus hours is a TIMESTAMP */
        else
            r = t[2].id == SL_TYPE_NULL ? sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0) : t[2];
        break;
    }
    case SL_FN_GREATEST:
    case SL_FN_LEAST:
    case SL_FN_IFNULL: {
        r = t[0];
        for (int i = 1; i < n; i++) {
            if (!sl_type_common(r, t[i], &r) || !sl_type_comparable(r, r)) {
                sl_type a = r, b = t[i];
                a.not_null = b.not_null = false;
                char *sa = sl_type_to_string(a), *sb = sl_type_to_string(b);
                sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, args[i]->pos,
                             "%s types %s and %s cannot be matched", f->name, sa, sb);
                sl_free(sa);
                sl_free(sb);
                return -1;
            }
        }
        if (r.id == SL_TYPE_NULL)
            r = sl_type_make(SL_TYPE_INT);
        if (f->id == SL_FN_IFNULL) {
            r.not_null = t[0].not_null || t[1].not_null;
            *out = r;
            return 0;
        }
        break;
    }
    case SL_FN_ROUND:
    case SL_FN_TRUNCATE: {
        r = t[0].id == SL_TYPE_NULL ? sl_type_make(SL_TYPE_INT) : t[0];
        long d = 0;
        if (r.id == SL_TYPE_DECIMAL && (n < 2 || sl__literal_int(args[1], &d))) {
            /* Flink's findRoundDecimalType */
            if (d < r.scale) {
                if (d < 0)
                    r = sl_type_make_p(SL_TYPE_DECIMAL,
                                       r.precision - r.scale + 1 > SL_DECIMAL_MAX_PRECISION
                                           ? SL_DECIMAL_MAX_PRECISION
                                           : r.precision - r.scale + 1,
                                       0);
                else
                    r = sl_type_make_p(SL_TYPE_DECIMAL,
                                       1 + r.precision - r.scale + (int)d > SL_DECIMAL_MAX_PRECISION
                                           ? SL_DECIMAL_MAX_PRECISION
                                           : 1 + r.precision - r.scale + (int)d,
                                       (int)d);
            }
        }
        break;
    }
    case SL_FN_FLOOR:
    case SL_FN_CEIL:
        if (n == 2) { /* FLOOR / CEIL (t TO unit): YEAR QUARTER MONTH DAY HOUR MINUTE SECOND */
            if (t[0].id != SL_TYPE_NULL && t[0].id != SL_TYPE_DATE && t[0].id != SL_TYPE_TIMESTAMP)
                return sl__no_such_signature(f, name, t, n, pos, err);
            const sl_bexpr *u = args[1];
            sl_tunit unit = u->kind == SL_BX_LITERAL && u->text && sl_type_is_string(u->type.id)
                                ? sl_tunit_parse(u->text, strlen(u->text))
                                : SL_TUNIT_NONE;
            if (unit == SL_TUNIT_NONE || unit == SL_TUNIT_WEEK || unit >= SL_TUNIT_MILLISECOND) {
                sl_error_set(err, SL_ERR_INVALID_PARAMETER, u->pos, "invalid time unit for %s", f->name);
                sl_error_hint(err, "Use YEAR, QUARTER, MONTH, DAY, HOUR, MINUTE or SECOND.");
                return -1;
            }
            r = t[0].id == SL_TYPE_NULL ? sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0) : t[0];
            break;
        }
        if (!sl_type_is_numeric(t[0].id) && t[0].id != SL_TYPE_NULL)
            return sl__no_such_signature(f, name, t, n, pos, err);
        r = t[0].id == SL_TYPE_NULL ? sl_type_make(SL_TYPE_INT) : t[0];
        if (r.id == SL_TYPE_DECIMAL && r.scale > 0) {
            int p = 1 + r.precision - r.scale;
            r = sl_type_make_p(SL_TYPE_DECIMAL, p > SL_DECIMAL_MAX_PRECISION ? SL_DECIMAL_MAX_PRECISION : p, 0);
        }
        break;
    case SL_FN_MOD_FN: {
        sl_type a = t[0], b = t[1];
        if (a.id == SL_TYPE_NULL && b.id == SL_TYPE_NULL)
            a = b = sl_type_make(SL_TYPE_INT);
        if (!sl_type_arith(SL_FN_MOD, a, b, &r))
            return sl__no_such_signature(f, name, t, n, pos, err);
        break;
    }
    case SL_FN_POWER:
    case SL_FN_SQRT:
        r = sl_type_make(SL_TYPE_DOUBLE);
        break;
    case SL_FN_COALESCE:
    case SL_FN_IF: {
        int first = f->id == SL_FN_IF ? 1 : 0;
        r = t[first];
        bool any_not_null = false;
        for (int i = first; i < n; i++) {
            if (t[i].not_null)
                any_not_null = true;
            if (i > first && !sl_type_common(r, t[i], &r)) {
                sl_type a = r, b = t[i];
                a.not_null = b.not_null = false;
                char *sa = sl_type_to_string(a), *sb = sl_type_to_string(b);
                sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, args[i]->pos,
                             "%s types %s and %s cannot be matched", f->name, sa, sb);
                sl_free(sa);
                sl_free(sb);
                return -1;
            }
        }
        if (f->id == SL_FN_COALESCE)
            r.not_null = any_not_null;
        else
            r.not_null = t[1].not_null && t[2].not_null;
        *out = r;
        return 0;
    }
    case SL_FN_NULLIF:
        if (!sl_type_comparable(t[0], t[1]))
            return sl__no_such_signature(f, name, t, n, pos, err);
        r = t[0];
        r.not_null = false;
        *out = r;
        return 0;
    case SL_FN_CONVERT_TZ:
        r = sl__string_type();
        r.not_null = false; /* unparsable input gives NULL */
        *out = r;
        return 0;
    case SL_FN_TO_TIMESTAMP:
        r = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
        r.not_null = false; /* unparsable input gives NULL */
        *out = r;
        return 0;
    case SL_FN_TO_DATE:
        r = sl_type_make(SL_TYPE_DATE);
        *out = r;
        return 0;
    case SL_FN_TO_TIMESTAMP_LTZ: {
        /* epoch seconds (0) or milliseconds (3, the default), as Flink */
        long p = 3;
        if (n > 1 && (!sl__literal_int(args[1], &p) || (p != 0 && p != 3))) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, args[1]->pos,
                         "the precision of TO_TIMESTAMP_LTZ must be 0 (seconds) or 3 "
                         "(milliseconds)");
            sl_error_hint(err, "Write the precision as the literal 0 or 3.");
            return -1;
        }
        r = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
        r.not_null = t[0].not_null;
        *out = r;
        return 0;
    }
    case SL_FN_CURRENT_TIMESTAMP:
    case SL_FN_NOW:
    case SL_FN_PROCTIME:
        r = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
        r.not_null = true;
        *out = r;
        return 0;
    case SL_FN_LOCALTIMESTAMP:
        r = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
        r.not_null = true;
        *out = r;
        return 0;
    case SL_FN_CURRENT_DATE:
        r = sl_type_make(SL_TYPE_DATE);
        r.not_null = true;
        *out = r;
        return 0;
    case SL_FN_UNIX_TIMESTAMP:
        r = sl_type_make(SL_TYPE_BIGINT);
        r.not_null = n == 0;
        *out = r;
        return 0;
    case SL_FN_ARRAY_CTOR:
    case SL_FN_MAP_CTOR:
    case SL_FN_ITEM:
    case SL_FN_CARDINALITY:
    case SL_FN_ELEMENT:
    case SL_FN_ARRAY_CONTAINS:
    case SL_FN_ARRAY_DISTINCT:
    case SL_FN_ARRAY_POSITION:
    case SL_FN_ARRAY_REMOVE:
    case SL_FN_ARRAY_REVERSE:
    case SL_FN_ARRAY_SLICE:
    case SL_FN_ARRAY_UNION:
    case SL_FN_ARRAY_CONCAT:
    case SL_FN_ARRAY_MAX:
    case SL_FN_ARRAY_MIN:
    case SL_FN_ARRAY_JOIN:
    case SL_FN_ARRAY_APPEND:
    case SL_FN_ARRAY_PREPEND:
    case SL_FN_MAP_KEYS:
    case SL_FN_MAP_VALUES:
    case SL_FN_MAP_FROM_ARRAYS:
    case SL_FN_SPLIT:
    case SL_FN_ARRAY_EXCEPT:
    case SL_FN_ARRAY_INTERSECT:
    case SL_FN_ARRAY_SORT:
    case SL_FN_MAP_UNION:
        return sl__collection_type(f, name, args, t, n, pos, out, err);
    default:
        return sl_error_set(err, SL_ERR_INTERNAL, pos, "no typing rule for function %s", f->name);
    }
    /* default nullability: nullable when any argument is */
    r.not_null = true;
    for (int i = 0; i < n; i++)
        if (!t[i].not_null)
            r.not_null = false;
    if (f->id == SL_FN_DATE_FORMAT)
        r.not_null = false; /* a bad format gives NULL */
    if (f->id >= SL_FN_PG_GET_INDEXDEF && f->id < SL_FN_PG_RELATION_IS_PUBLISHABLE)
        r.not_null = false; /* NULL for no such object */
    if (f->id == SL_FN_ARRAY_UPPER || f->id == SL_FN_PG_SUBSCRIPT)
        r.not_null = false; /* NULL for an empty array, out of range, a NULL element */
    *out = r;
    return 0;
}

bool sl_func_takes_oid(const sl_func *f, int i)
{
    const char *c = sl__sigs[f->id].classes;
    return f->id >= SL_FN_PG_GET_USERBYID && f->id <= SL_FN_PG_SIZE_PRETTY && c &&
           (int)strlen(c) > i && c[i] == 'I';
}

int sl_func_scalar_type(const sl_func *f, const char *name, sl_bexpr *const *args, int nargs,
                        int pos, sl_type *out, sl_error *err)
{
    sl_type stack[8];
    sl_type *t = nargs <= 8 ? stack : sl_malloc((size_t)nargs * sizeof(sl_type));
    for (int i = 0; i < nargs; i++)
        t[i] = args[i]->type;
    int rc = 0;
    const char *classes = sl__sigs[f->id].classes;
    if (f->kind != SL_FUNC_SCALAR || !classes) {
        rc = sl_error_set(err, SL_ERR_INTERNAL, pos, "%s is not a scalar function", f->name);
        goto done;
    }
    if (nargs < f->min_args || (f->max_args >= 0 && nargs > f->max_args)) {
        rc = sl__no_such_signature(f, name, t, nargs, pos, err);
        goto done;
    }
    size_t ncls = strlen(classes);
    for (int i = 0; i < nargs; i++) {
        char c = ncls == 0 ? '*' : classes[(size_t)i < ncls ? (size_t)i : ncls - 1];
        if (!sl__fits(c, t[i])) {
            rc = sl__no_such_signature(f, name, t, nargs, pos, err);
            goto done;
        }
    }
    rc = sl__result_type(f, name, args, t, nargs, pos, out, err);
done:
    if (t != stack)
        sl_free(t);
    return rc;
}

int sl_func_agg_type(const sl_func *f, const sl_type *arg, int pos, sl_type *out, sl_error *err)
{
    sl_type r;
    switch (f->id) {
    case SL_FN_COUNT:
    case SL_FN_ROW_NUMBER:
        r = sl_type_make(SL_TYPE_BIGINT);
        r.not_null = true;
        *out = r;
        return 0;
    default:
        break;
    }
    if (!arg || arg->id == SL_TYPE_NULL)
        goto bad;
    switch (f->id) {
    case SL_FN_SUM:
        if (sl_type_is_integer(arg->id))
            r = sl_type_make(SL_TYPE_BIGINT);
        else if (arg->id == SL_TYPE_DECIMAL)
            r = sl_type_make_p(SL_TYPE_DECIMAL, SL_DECIMAL_MAX_PRECISION, arg->scale);
        else if (arg->id == SL_TYPE_FLOAT || arg->id == SL_TYPE_DOUBLE)
            r = sl_type_make(SL_TYPE_DOUBLE);
        else
            goto bad;
        break;
    case SL_FN_AVG:
        if (sl_type_is_integer(arg->id) || arg->id == SL_TYPE_FLOAT || arg->id == SL_TYPE_DOUBLE)
            r = sl_type_make_p(arg->id, 0, 0);
        else if (arg->id == SL_TYPE_DECIMAL)
            r = sl_type_make_p(SL_TYPE_DECIMAL, SL_DECIMAL_MAX_PRECISION,
                               arg->scale > 6 ? arg->scale : 6);
        else
            goto bad;
        break;
    case SL_FN_MIN:
    case SL_FN_MAX:
        if (sl_type_is_composite(arg->id)) /* no order (Flink: not supported) */
            goto bad;
        r = *arg;
        break;
    case SL_FN_ARRAY_AGG:
        r = sl_type_array_of(*arg); /* NULLs are skipped, as Flink's */
        break;
    case SL_FN_LISTAGG:
        if (!sl_type_is_string(arg->id))
            goto bad;
        r = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0); /* STRING */
        break;
    default:
        return sl_error_set(err, SL_ERR_INTERNAL, pos, "%s is not an aggregate function", f->name);
    }
    r.not_null = false; /* NULL when every input is NULL */
    *out = r;
    return 0;
bad:
    return sl__no_such_signature(f, f->name, arg, arg ? 1 : 0, pos, err);
}
