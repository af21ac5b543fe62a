/*
** eval_str.c — Flink's further string functions for the evaluator (the
** registry entries are planner/functions.c's): LOCATE, INSTR, SPLIT_INDEX,
** the REGEXP family, INITCAP, REPEAT, REVERSE, LEFT, RIGHT, CONCAT_WS,
** ASCII, CHR, TO_BASE64, FROM_BASE64, TRANSLATE, STARTSWITH, ENDSWITH,
** BTRIM (and TRIM / LTRIM / RTRIM with a set of characters), PARSE_URL,
** URL_ENCODE, URL_DECODE, IS_ALPHA, IS_DIGIT, IS_DECIMAL.
**
** Strings are UTF-8; positions and lengths count code points (Flink counts
** UTF-16 units: they differ only outside the Basic Multilingual Plane).
** Invalid UTF-8 is never an error here: a stray byte counts as one code
** point.
**
** Regular expressions are Java's in Flink; here they are PCRE2's (UTF mode;
** an invalid UTF-8 subject through PCRE2_MATCH_INVALID_UTF), whose syntax is Java's for
** everything common (classes \d \w \s, lazy and possessive quantifiers,
** lookaround, named groups, inline flags). A constant pattern is compiled
** once per program, a per-row one when it differs from the previous row's.
** An invalid pattern is 2201B (Flink logs it and returns NULL), a match that
** backtracks past PCRE2's match limit is 2201B too. REGEXP_REPLACE's
** replacement is literal text, as Flink's (Matcher.quoteReplacement).
**
** Main routines: sl__compile_fn_str.
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include "eval_int.h"

#include <pcre2.h>
#include <stdio.h>
#include <string.h>

/* ========================================================================
** Helpers.
*/

/* Length of the UTF-8 sequence starting with byte c (1 for invalid bytes). */
static inline size_t sl__u8n(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? (c < 0xC0 ? 1 : 2) : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 1;
}

/* Bytes of the code point at s[i] (clipped to the string). */
static inline size_t sl__cp_len(const char *s, size_t len, size_t i)
{
    size_t k = sl__u8n((unsigned char)s[i]);
    return i + k > len ? len - i : k;
}

/* Byte offset of needle in hay at or after byte from, or -1. */
static long sl__find_from(const char *hay, size_t hn, size_t from, const char *needle, size_t nn)
{
    if (from > hn)
        return -1;
    if (nn == 0)
        return (long)from;
    const char *r = hn - from >= nn ? memmem(hay + from, hn - from, needle, nn) : NULL;
    return r ? (long)(r - hay) : -1;
}

/* Results longer than this are 54000 (REPEAT, CONCAT_WS ...). */
#define SL__MAX_RESULT (256u << 20)

/* ========================================================================
** Positions: LOCATE, INSTR.
*/

/* LOCATE(needle, hay [, from]) and INSTR(hay, needle): the 1-based code
** point position of the first occurrence at or after from (1; a from
** below 1 counts as 1), 0 if none or from is past the end; an empty needle
** is at 1 (Flink's). */
static int sl__k_locate(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    bool instr = nd->op == SL_FN_INSTR;
    const sl_str *needle = nd->kids[instr ? 1 : 0]->v.str, *hay = nd->kids[instr ? 0 : 1]->v.str;
    const int64_t *from = nd->nkids > 2 ? nd->kids[2]->v.i64 : NULL;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t f = from && from[i] > 1 ? from[i] : 1;
        size_t nchars = sl_utf8_count(hay[i].ptr, hay[i].len);
        if (needle[i].len == 0) {
            nd->v.i64[i] = 1;
            continue;
        }
        if ((uint64_t)f - 1 > nchars) {
            nd->v.i64[i] = 0;
            continue;
        }
        size_t b0 = sl_utf8_skip(hay[i].ptr, hay[i].len, (size_t)f - 1);
        long at = sl__find_from(hay[i].ptr, hay[i].len, b0, needle[i].ptr, needle[i].len);
        nd->v.i64[i] = at < 0 ? 0 : (int64_t)sl_utf8_count(hay[i].ptr, (size_t)at) + 1;
    }
    return 0;
}

/* SPLIT_INDEX(s, sep, i): the i-th (0-based) field of s split at every sep
** (empty fields kept; an empty sep splits at whitespace, as Apache Commons'
** splitByWholeSeparatorPreserveAllTokens); NULL for a negative or too
** large i or an empty s. */
static int sl__k_split_index(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *s = nd->kids[0]->v.str, *sep = nd->kids[1]->v.str;
    const int64_t *idx = nd->kids[2]->v.i64;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t want = idx[i];
        const char *p = s[i].ptr;
        size_t len = s[i].len, start = 0;
        if (want < 0 || len == 0) {
            sl__null_result(nd, i);
            continue;
        }
        bool found = false;
        for (int64_t k = 0;; k++) {
            size_t end, next;
            if (sep[i].len == 0) {
                end = start;
                while (end < len && p[end] != ' ' && p[end] != '\t' && p[end] != '\n' &&
                       p[end] != '\r' && p[end] != '\f' && p[end] != '\v')
                    end++;
                next = end + 1;
            } else {
                long at = sl__find_from(p, len, start, sep[i].ptr, sep[i].len);
                end = at < 0 ? len : (size_t)at;
                next = end + sep[i].len;
            }
            if (k == want) {
                nd->v.str[i].ptr = p + start;
                nd->v.str[i].len = (uint32_t)(end - start);
                found = true;
                break;
            }
            if (end >= len)
                break;
            start = next;
        }
        if (!found)
            sl__null_result(nd, i);
    }
    return 0;
}

/* ========================================================================
** Regular expressions (PCRE2).
*/

typedef struct sl__re {
    pcre2_code *code;          /* the compiled pattern, NULL when none */
    pcre2_code *code_inv;      /* the same for invalid UTF-8 subjects (compiled when needed) */
    pcre2_match_data *md;      /* match data for code */
    pcre2_match_context *mctx; /* the match limits */
    char *pat;                 /* the pattern's text */
    size_t npat;               /* its length */
    char msg[160];             /* the compile error of pat, when code is NULL */
    bool valid;                /* the subject being matched is valid UTF-8 */
} sl__re;

static void sl__re_free(void *p)
{
    sl__re *r = p;
    if (!r)
        return;
    pcre2_match_data_free(r->md);
    pcre2_code_free(r->code);
    pcre2_code_free(r->code_inv);
    pcre2_match_context_free(r->mctx);
    sl_free(r->pat);
    sl_free(r);
}

/* Compile p[0..n) into r unless it is r's pattern already: 0, or -1 with
** the message in r->msg. */
static int sl__re_set(sl__re *r, const char *p, size_t n)
{
    if (r->pat && r->npat == n && memcmp(r->pat, p, n) == 0)
        return r->code ? 0 : -1;
    pcre2_match_data_free(r->md);
    pcre2_code_free(r->code);
    pcre2_code_free(r->code_inv);
    r->md = NULL;
    r->code = r->code_inv = NULL;
    sl_free(r->pat);
    r->pat = sl_malloc(n + 1); /* the pattern may hold NUL bytes: all n of them */
    if (n)
        memcpy(r->pat, p, n);
    r->pat[n] = 0;
    r->npat = n;
    int ec;
    PCRE2_SIZE eo;
    r->code = pcre2_compile((PCRE2_SPTR)p, n, PCRE2_UTF, &ec, &eo, NULL);
    if (!r->code) {
        PCRE2_UCHAR buf[120];
        pcre2_get_error_message(ec, buf, sizeof buf);
        snprintf(r->msg, sizeof r->msg, "%s at offset %zu", (const char *)buf, (size_t)eo);
        return -1;
    }
    r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
    return 0;
}

/* Match r against s[0..len) from byte offset at: 1 (ovector in r->md), 0
** for none, -1 with 2201B at nd (match limit, out of memory). */
static int sl__re_exec(sl__re *r, sl__eval *ev, const sl__node *nd, const char *s, size_t len,
                       size_t at)
{
    /* A valid subject (checked once per subject) is matched without PCRE2's
    ** check; an invalid one by the pattern compiled with
    ** PCRE2_MATCH_INVALID_UTF, which costs the whole subject per call. */
    if (at == 0)
        r->valid = sl_utf8_invalid(s, len) < 0;
    if (!r->valid && !r->code_inv) {
        int ec;
        PCRE2_SIZE eo;
        r->code_inv = pcre2_compile((PCRE2_SPTR)r->pat, r->npat, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                                    &ec, &eo, NULL);
        if (!r->code_inv)
            return sl__fail(ev, nd, "2201B", "invalid regular expression");
    }
    int rc = pcre2_match(r->valid ? r->code : r->code_inv, (PCRE2_SPTR)(len ? s : ""), len, at,
                         r->valid ? PCRE2_NO_UTF_CHECK : 0, r->md, r->mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR buf[120];
    pcre2_get_error_message(rc, buf, sizeof buf);
    return sl__fail(ev, nd, "2201B", "regular expression failed: %s", (const char *)buf);
}

/* The row's compiled pattern (kids[1]): r, or NULL with 2201B raised. */
static sl__re *sl__re_row(sl__node *nd, sl__eval *ev, int i)
{
    sl__re *r = nd->aux;
    const sl__node *pk = nd->kids[1];
    const sl_str *p = &pk->v.str[pk->kind == SL__N_CONST ? 0 : i];
    if (sl__re_set(r, p->ptr, p->len) < 0) {
        sl__fail(ev, nd, "2201B", "invalid regular expression: %s", r->msg);
        return NULL;
    }
    return r;
}

/* Where the next search starts after the match [s0, e0): e0, one code
** point further after an empty match (Java's Matcher.find). */
static size_t sl__re_next(const char *s, size_t len, size_t s0, size_t e0)
{
    if (e0 > s0 || e0 >= len)
        return e0 > s0 ? e0 : e0 + 1;
    return e0 + sl__cp_len(s, len, e0);
}

/* REGEXP, REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR, REGEXP_EXTRACT and
** REGEXP_REPLACE (op selects). */
static int sl__k_regexp(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *s = nd->kids[0]->v.str;
    sl_strbuf sb = SL_STRBUF_INIT;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        sl__re *r = sl__re_row(nd, ev, i);
        if (!r) {
            rc = -1;
            break;
        }
        const char *p = s[i].ptr;
        size_t len = s[i].len;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
        int m;
        switch (nd->op) {
        case SL_FN_REGEXP:
            /* Flink: an empty pattern matches nothing */
            if (r->npat == 0) {
                nd->v.b[i] = 0;
                break;
            }
            if ((m = sl__re_exec(r, ev, nd, p, len, 0)) < 0)
                rc = -1;
            nd->v.b[i] = m > 0;
            break;
        case SL_FN_REGEXP_INSTR:
            if ((m = sl__re_exec(r, ev, nd, p, len, 0)) < 0)
                rc = -1;
            else
                nd->v.i64[i] = m ? (int64_t)sl_utf8_count(p, ov[0]) + 1 : 0;
            break;
        case SL_FN_REGEXP_SUBSTR:
            if ((m = sl__re_exec(r, ev, nd, p, len, 0)) < 0)
                rc = -1;
            else if (!m)
                sl__null_result(nd, i);
            else {
                nd->v.str[i].ptr = p + ov[0];
                nd->v.str[i].len = (uint32_t)(ov[1] - ov[0]);
            }
            break;
        case SL_FN_REGEXP_EXTRACT: {
            int64_t g = nd->nkids > 2 ? nd->kids[2]->v.i64[i] : 0; /* Flink: the whole match */
            uint32_t ng = 0;
            pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &ng);
            if (g < 0 || g > (int64_t)ng) {
                sl__null_result(nd, i);
                break;
            }
            if ((m = sl__re_exec(r, ev, nd, p, len, 0)) < 0)
                rc = -1;
            else if (!m || ov[2 * g] == PCRE2_UNSET)
                sl__null_result(nd, i);
            else {
                nd->v.str[i].ptr = p + ov[2 * g];
                nd->v.str[i].len = (uint32_t)(ov[2 * g + 1] - ov[2 * g]);
            }
            break;
        }
        case SL_FN_REGEXP_COUNT:
        case SL_FN_REGEXP_REPLACE: {
            bool repl = nd->op == SL_FN_REGEXP_REPLACE;
            const sl_str *to = repl ? &nd->kids[2]->v.str[i] : NULL;
            int64_t count = 0;
            size_t at = 0, copied = 0;
            sl_strbuf_reset(&sb);
            while (at <= len && (m = sl__re_exec(r, ev, nd, p, len, at)) > 0) {
                size_t s0 = ov[0], e0 = ov[1];
                count++;
                if (repl) {
                    sl_strbuf_append_n(&sb, p + copied, s0 - copied);
                    sl_strbuf_append_n(&sb, to->ptr, to->len);
                    copied = e0;
                    if (sb.len > SL__MAX_RESULT) {
                        m = sl__fail(ev, nd, SL_ERR_PROGRAM_LIMIT, "result of %s too large",
                                     "REGEXP_REPLACE");
                        break;
                    }
                }
                at = sl__re_next(p, len, s0, e0);
            }
            if (m < 0) {
                rc = -1;
                break;
            }
            if (repl) {
                sl_strbuf_append_n(&sb, p + copied, len - copied);
                sl__set_str(nd, ev, i, sb.buf ? sb.buf : "", sb.len);
            } else {
                nd->v.i64[i] = count;
            }
            break;
        }
        default: break;
        }
    }
    sl_strbuf_free(&sb);
    return rc;
}

static int sl__compile_regexp(sl__node *nd, sl_error *err)
{
    sl__re *r = sl_calloc(1, sizeof *r);
    r->mctx = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(r->mctx, 10000000);
    pcre2_set_depth_limit(r->mctx, 100000);
    nd->aux = r;
    nd->aux_free = sl__re_free;
    nd->run = sl__k_regexp;
    nd->can_fail = true;
    const sl__node *pk = nd->kids[1];
    if (pk->kind == SL__N_CONST && !pk->nulls[0] &&
        sl__re_set(r, pk->v.str[0].ptr, pk->v.str[0].len) < 0)
        return sl_error_set(err, "2201B", pk->pos, "invalid regular expression: %s", r->msg);
    return 0;
}

/* ========================================================================
** Building strings.
*/

/* Is c (ASCII) a letter or digit. */
static inline bool sl__alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* INITCAP, REPEAT, REVERSE, LEFT, RIGHT, TRANSLATE, [B|L|R]TRIM, CHR, TO_BASE64,
** FROM_BASE64, URL_ENCODE, URL_DECODE (op selects): strict, one string
** built per row in the node's buffer. */
static int sl__k_build(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl_strbuf *sb = nd->aux;
    const sl__node *k0 = nd->kids[0];
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        const char *p = k0->phys == SL_PHYS_STR ? k0->v.str[i].ptr : NULL;
        size_t len = k0->phys == SL_PHYS_STR ? k0->v.str[i].len : 0;
        sl_strbuf_reset(sb);
        switch (nd->op) {
        case SL_FN_INITCAP: {
            /* Flink: the first letter of each run of ASCII letters and digits
            ** upper, the rest lower; other characters kept */
            bool start = true;
            for (size_t j = 0; j < len;) {
                size_t k = sl__cp_len(p, len, j);
                unsigned char c = (unsigned char)p[j];
                if (k == 1 && sl__alnum(c)) {
                    if (start && c >= 'a' && c <= 'z')
                        c -= 32;
                    else if (!start && c >= 'A' && c <= 'Z')
                        c += 32;
                    sl_strbuf_append_char(sb, (char)c);
                    start = false;
                } else { /* anything else, non-ASCII letters too, ends a word (Flink) */
                    sl_strbuf_append_n(sb, p + j, k);
                    start = true;
                }
                j += k;
            }
            break;
        }
        case SL_FN_REPEAT: {
            int64_t times = nd->kids[1]->v.i64[i];
            if (times > 0 && len > 0 && (uint64_t)times > SL__MAX_RESULT / len)
                return sl__fail(ev, nd, SL_ERR_PROGRAM_LIMIT, "result of %s too large", "REPEAT");
            for (int64_t t = 0; t < times && len > 0; t++)
                sl_strbuf_append_n(sb, p, len);
            break;
        }
        case SL_FN_REVERSE:
            sl_strbuf_reserve(sb, len);
            for (size_t j = len; j > 0;) {
                size_t b = j - 1; /* back to the start of the code point */
                while (b > 0 && j - b < 4 && ((unsigned char)p[b] & 0xC0) == 0x80)
                    b--;
                if (sl__cp_len(p, len, b) != j - b) /* not one sequence: the byte alone */
                    b = j - 1;
                sl_strbuf_append_n(sb, p + b, j - b);
                j = b;
            }
            break;
        case SL_FN_LEFT:
        case SL_FN_RIGHT: {
            int64_t k = nd->kids[1]->v.i64[i];
            size_t nchars = sl_utf8_count(p, len);
            size_t take = k <= 0 ? 0 : (uint64_t)k > nchars ? nchars : (size_t)k;
            size_t b0 = nd->op == SL_FN_LEFT ? 0 : sl_utf8_skip(p, len, nchars - take);
            size_t nb = sl_utf8_skip(p + b0, len - b0, take);
            nd->v.str[i].ptr = p + b0;
            nd->v.str[i].len = (uint32_t)nb;
            continue;
        }
        case SL_FN_TRANSLATE: {
            /* each code point of from (the first occurrence counts) becomes the
            ** code point at the same position of to, or is removed past to's end */
            const sl_str *from = &nd->kids[1]->v.str[i], *to = &nd->kids[2]->v.str[i];
            for (size_t j = 0; j < len;) {
                size_t k = sl__cp_len(p, len, j), pos = 0, fj = 0;
                bool hit = false;
                while (fj < from->len) {
                    size_t fk = sl__cp_len(from->ptr, from->len, fj);
                    if (fk == k && memcmp(from->ptr + fj, p + j, k) == 0) {
                        hit = true;
                        break;
                    }
                    fj += fk;
                    pos++;
                }
                if (!hit) {
                    sl_strbuf_append_n(sb, p + j, k);
                } else {
                    size_t tb = sl_utf8_skip(to->ptr, to->len, pos);
                    if (tb < to->len)
                        sl_strbuf_append_n(sb, to->ptr + tb, sl__cp_len(to->ptr, to->len, tb));
                }
                j += k;
            }
            break;
        }
        case SL_FN_BTRIM:
        case SL_FN_TRIM:
        case SL_FN_LTRIM:
        case SL_FN_RTRIM: {
            /* strip the code points of chars (default: a space) from both
            ** ends (BTRIM, TRIM), the start (LTRIM) or the end (RTRIM) */
            const char *cs = nd->nkids > 1 ? nd->kids[1]->v.str[i].ptr : " ";
            size_t cn = nd->nkids > 1 ? nd->kids[1]->v.str[i].len : 1;
            size_t b = 0, e = len;
            for (; nd->op != SL_FN_RTRIM;) {
                if (b >= e)
                    break;
                size_t k = sl__cp_len(p, len, b);
                bool in = false;
                for (size_t cj = 0; cj < cn; cj += sl__cp_len(cs, cn, cj))
                    if (sl__cp_len(cs, cn, cj) == k && memcmp(cs + cj, p + b, k) == 0)
                        in = true;
                if (!in)
                    break;
                b += k;
            }
            while (nd->op != SL_FN_LTRIM && e > b) {
                size_t s0 = e - 1;
                while (s0 > b && e - s0 < 4 && ((unsigned char)p[s0] & 0xC0) == 0x80)
                    s0--;
                bool in = false;
                for (size_t cj = 0; cj < cn; cj += sl__cp_len(cs, cn, cj))
                    if (sl__cp_len(cs, cn, cj) == e - s0 && memcmp(cs + cj, p + s0, e - s0) == 0)
                        in = true;
                if (!in)
                    break;
                e = s0;
            }
            nd->v.str[i].ptr = p + b;
            nd->v.str[i].len = (uint32_t)(e - b);
            continue;
        }
        case SL_FN_CHR: {
            /* Flink: the code point (x mod 256) (255 above 255 ... as Flink's
            ** char arithmetic): negative gives the empty string */
            int64_t x = k0->v.i64[i];
            if (x < 0)
                break;
            uint32_t c = (uint32_t)(x % 256);
            if (c < 0x80) {
                sl_strbuf_append_char(sb, (char)c);
            } else {
                sl_strbuf_append_char(sb, (char)(0xC0 | (c >> 6)));
                sl_strbuf_append_char(sb, (char)(0x80 | (c & 0x3F)));
            }
            break;
        }
        case SL_FN_TO_BASE64: {
            static const char tab[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            const unsigned char *u = (const unsigned char *)p;
            for (size_t j = 0; j < len; j += 3) {
                uint32_t v = (uint32_t)u[j] << 16;
                if (j + 1 < len)
                    v |= (uint32_t)u[j + 1] << 8;
                if (j + 2 < len)
                    v |= u[j + 2];
                char o[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63],
                             j + 1 < len ? tab[v >> 6 & 63] : '=', j + 2 < len ? tab[v & 63] : '='};
                sl_strbuf_append_n(sb, o, 4);
            }
            break;
        }
        case SL_FN_FROM_BASE64: {
            /* Java's basic decoder: no whitespace, padding optional at the end only */
            uint32_t v = 0;
            int bits = 0;
            bool bad = false;
            size_t end = len;
            while (end > 0 && p[end - 1] == '=' && len - end < 2)
                end--;
            for (size_t j = 0; j < end && !bad; j++) {
                unsigned char c = (unsigned char)p[j];
                int d = c >= 'A' && c <= 'Z'   ? c - 'A'
                        : c >= 'a' && c <= 'z' ? c - 'a' + 26
                        : c >= '0' && c <= '9' ? c - '0' + 52
                        : c == '+'             ? 62
                        : c == '/'             ? 63
                                               : -1;
                if (d < 0) {
                    bad = true;
                    break;
                }
                v = v << 6 | (uint32_t)d;
                bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    sl_strbuf_append_char(sb, (char)(v >> bits & 0xFF));
                }
            }
            if (bad || (end % 4) == 1 || (end < len && (len % 4) != 0))
                return sl__fail(ev, nd, SL_ERR_INVALID_PARAMETER, "invalid base64 text");
            break;
        }
        case SL_FN_URL_ENCODE: {
            /* java.net.URLEncoder (UTF-8): letters, digits and .-*_ kept, a space
            ** is +, every other byte %XX */
            static const char hx[] = "0123456789ABCDEF";
            for (size_t j = 0; j < len; j++) {
                unsigned char c = (unsigned char)p[j];
                if (sl__alnum(c) || c == '.' || c == '-' || c == '*' || c == '_') {
                    sl_strbuf_append_char(sb, (char)c);
                } else if (c == ' ') {
                    sl_strbuf_append_char(sb, '+');
                } else {
                    char o[3] = {'%', hx[c >> 4], hx[c & 15]};
                    sl_strbuf_append_n(sb, o, 3);
                }
            }
            break;
        }
        case SL_FN_URL_DECODE: {
            /* java.net.URLDecoder: + is a space, %XX a byte; a bad escape gives NULL */
            bool bad = false;
            for (size_t j = 0; j < len && !bad; j++) {
                char c = p[j];
                if (c == '+') {
                    sl_strbuf_append_char(sb, ' ');
                } else if (c == '%') {
                    int hi = j + 1 < len ? sl_hex_digit(p[j + 1]) : -1;
                    int lo = j + 2 < len ? sl_hex_digit(p[j + 2]) : -1;
                    if (hi < 0 || lo < 0) {
                        bad = true;
                        break;
                    }
                    sl_strbuf_append_char(sb, (char)(hi << 4 | lo));
                    j += 2;
                } else {
                    sl_strbuf_append_char(sb, c);
                }
            }
            if (bad) {
                sl__null_result(nd, i);
                continue;
            }
            break;
        }
        default: break;
        }
        sl__set_str(nd, ev, i, sb->buf ? sb->buf : "", sb->len);
    }
    return 0;
}

/* CONCAT_WS(sep, s1, s2, ...): the non-NULL strings joined by sep; NULL
** when sep is. */
static int sl__k_concat_ws(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const sl__node *sk = nd->kids[0];
    memcpy(nd->nulls, sk->nulls, (size_t)n);
    sl_strbuf *sb = nd->aux;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        sl_strbuf_reset(sb);
        bool first = true;
        for (int k = 1; k < nd->nkids; k++) {
            const sl__node *a = nd->kids[k];
            if (a->type.id == SL_TYPE_NULL || a->nulls[i])
                continue;
            if (!first)
                sl_strbuf_append_n(sb, sk->v.str[i].ptr, sk->v.str[i].len);
            sl_strbuf_append_n(sb, a->v.str[i].ptr, a->v.str[i].len);
            first = false;
            if (sb->len > SL__MAX_RESULT)
                return sl__fail(ev, nd, SL_ERR_PROGRAM_LIMIT, "result of %s too large", "CONCAT_WS");
        }
        sl__set_str(nd, ev, i, sb->buf ? sb->buf : "", sb->len);
    }
    return 0;
}

/* ASCII(s): the first byte's value (signed, as Flink's), 0 for the empty
** string. STARTSWITH, ENDSWITH. */
static int sl__k_str_small(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str;
    const sl_str *b = nd->nkids > 1 ? nd->kids[1]->v.str : NULL;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        switch (nd->op) {
        case SL_FN_ASCII:
            /* Flink: the first byte of the UTF-8 text, as a signed byte */
            nd->v.i64[i] = a[i].len ? (int8_t)(uint8_t)a[i].ptr[0] : 0;
            break;
        case SL_FN_STARTSWITH:
            nd->v.b[i] = a[i].len >= b[i].len && memcmp(a[i].ptr, b[i].ptr, b[i].len) == 0;
            break;
        case SL_FN_ENDSWITH:
            nd->v.b[i] = a[i].len >= b[i].len &&
                         memcmp(a[i].ptr + a[i].len - b[i].len, b[i].ptr, b[i].len) == 0;
            break;
        default: break;
        }
    }
    return 0;
}

/* Whether p[0..len) is a number as Java's Double.parseDouble reads it:
** blanks (<= ' ') around, a sign, digits with an optional point (digits on
** one side at least), an exponent, an f/F/d/D suffix; NaN and Infinity.
** (Hexadecimal floats are not recognized.) */
static bool sl__java_double_syntax(const char *p, size_t len)
{
    size_t j = 0, e = len, d1 = 0, d2 = 0;
    while (j < e && (unsigned char)p[j] <= ' ')
        j++;
    while (e > j && (unsigned char)p[e - 1] <= ' ')
        e--;
    if (j < e && (p[j] == '+' || p[j] == '-'))
        j++;
    if ((e - j == 3 && memcmp(p + j, "NaN", 3) == 0) ||
        (e - j == 8 && memcmp(p + j, "Infinity", 8) == 0))
        return true;
    while (j < e && p[j] >= '0' && p[j] <= '9')
        j++, d1++;
    if (j < e && p[j] == '.') {
        j++;
        while (j < e && p[j] >= '0' && p[j] <= '9')
            j++, d2++;
    }
    if (d1 + d2 == 0)
        return false;
    if (j < e && (p[j] == 'e' || p[j] == 'E')) {
        size_t de = 0;
        j++;
        if (j < e && (p[j] == '+' || p[j] == '-'))
            j++;
        while (j < e && p[j] >= '0' && p[j] <= '9')
            j++, de++;
        if (de == 0)
            return false;
    }
    if (j < e && (p[j] == 'f' || p[j] == 'F' || p[j] == 'd' || p[j] == 'D'))
        j++;
    return j == e;
}

/* IS_ALPHA, IS_DIGIT, IS_DECIMAL: never NULL (NULL is FALSE). IS_ALPHA /
** IS_DIGIT: every character an ASCII letter / digit, the empty string not;
** IS_DECIMAL: Java's Double.parseDouble would read it. */
static int sl__k_is_class(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (sl__run_kids(nd, ev, sel) < 0)
        return -1;
    int n = ev->n;
    const sl__node *k = nd->kids[0];
    memset(nd->nulls, 0, (size_t)n);
    for (int i = 0; i < n; i++) {
        nd->v.b[i] = 0;
        if ((sel && !sel[i]) || k->type.id == SL_TYPE_NULL || k->nulls[i])
            continue;
        const char *p = k->v.str[i].ptr;
        size_t len = k->v.str[i].len;
        bool ok = len > 0;
        if (nd->op == SL_FN_IS_DECIMAL) {
            ok = sl__java_double_syntax(p, len);
        } else {
            for (size_t j = 0; j < len && ok; j++) {
                unsigned char c = (unsigned char)p[j];
                ok = nd->op == SL_FN_IS_DIGIT ? c >= '0' && c <= '9'
                                              : (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            }
        }
        nd->v.b[i] = ok;
    }
    return 0;
}

/* ========================================================================
** PARSE_URL (java.net.URL's parts).
*/

typedef struct sl__url {
    const char *p;                  /* the URL */
    size_t proto_e;                 /* end of the protocol ("http") */
    size_t auth_b, auth_e;          /* authority, when has_auth */
    size_t path_b, path_e;          /* path */
    size_t query_b, query_e;        /* query (after ?), when has_query */
    size_t ref_b, ref_e;            /* ref (after #), when has_ref */
    bool has_auth, has_query, has_ref;
} sl__url;

/* Split a URL; false when it has no protocol (java.net.URL would throw). */
static bool sl__url_split(const char *p, size_t len, sl__url *u)
{
    memset(u, 0, sizeof *u);
    u->p = p;
    size_t j = 0;
    while (j < len && p[j] != ':' && p[j] != '/' && p[j] != '?' && p[j] != '#')
        j++;
    if (j == 0 || j >= len || p[j] != ':')
        return false;
    for (size_t k = 0; k < j; k++)
        if (!sl__alnum((unsigned char)p[k]) && p[k] != '+' && p[k] != '-' && p[k] != '.')
            return false;
    u->proto_e = j++;
    size_t end = len;
    const char *h = memchr(p + j, '#', len - j);
    if (h) {
        u->has_ref = true;
        u->ref_b = (size_t)(h - p) + 1;
        u->ref_e = len;
        end = (size_t)(h - p);
    }
    if (end - j >= 2 && p[j] == '/' && p[j + 1] == '/') {
        j += 2;
        u->has_auth = true;
        u->auth_b = j;
        while (j < end && p[j] != '/' && p[j] != '?')
            j++;
        u->auth_e = j;
    }
    u->path_b = j;
    const char *q = memchr(p + j, '?', end - j);
    u->path_e = q ? (size_t)(q - p) : end;
    if (q) {
        u->has_query = true;
        u->query_b = (size_t)(q - p) + 1;
        u->query_e = end;
    }
    return true;
}

/* PARSE_URL(url, part [, key]); NULL for an unknown part, a part the URL
** lacks, a missing key, or text that is not a URL. */
static int sl__k_parse_url(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str, *part = nd->kids[1]->v.str;
    const sl_str *key = nd->nkids > 2 ? nd->kids[2]->v.str : NULL;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        sl__url u;
        const char *p = a[i].ptr;
        size_t b = 0, e = 0;
        bool ok = sl__url_split(p, a[i].len, &u);
        char pt[16] = "";
        if (part[i].len < sizeof pt)
            memcpy(pt, part[i].ptr, part[i].len), pt[part[i].len] = 0;
        if (ok && strcmp(pt, "HOST") == 0 && u.has_auth) {
            b = u.auth_b, e = u.auth_e;
            const char *at = memchr(p + b, '@', e - b);
            if (at)
                b = (size_t)(at - p) + 1;
            if (b < e && p[b] == '[') { /* an IPv6 literal keeps its brackets */
                const char *rb = memchr(p + b, ']', e - b);
                if (rb)
                    e = (size_t)(rb - p) + 1;
            } else {
                const char *c = memchr(p + b, ':', e - b);
                if (c)
                    e = (size_t)(c - p);
            }
        } else if (ok && strcmp(pt, "PATH") == 0) {
            b = u.path_b, e = u.path_e;
        } else if (ok && strcmp(pt, "QUERY") == 0 && u.has_query) {
            b = u.query_b, e = u.query_e;
            if (key) { /* the value of key=value among the &-separated pairs */
                bool found = false;
                size_t j = b;
                while (j <= u.query_e && !found) {
                    const char *amp = memchr(p + j, '&', u.query_e - j);
                    size_t pe = amp ? (size_t)(amp - p) : u.query_e;
                    if (pe - j > key[i].len && memcmp(p + j, key[i].ptr, key[i].len) == 0 &&
                        p[j + key[i].len] == '=') {
                        b = j + key[i].len + 1;
                        e = pe;
                        found = true;
                    }
                    j = pe + 1;
                }
                ok = found;
            }
        } else if (ok && strcmp(pt, "REF") == 0 && u.has_ref) {
            b = u.ref_b, e = u.ref_e;
        } else if (ok && strcmp(pt, "PROTOCOL") == 0) {
            b = 0, e = u.proto_e;
        } else if (ok && strcmp(pt, "AUTHORITY") == 0 && u.has_auth) {
            b = u.auth_b, e = u.auth_e;
        } else if (ok && strcmp(pt, "FILE") == 0) {
            b = u.path_b, e = u.has_query ? u.query_e : u.path_e;
        } else if (ok && strcmp(pt, "USERINFO") == 0 && u.has_auth) {
            const char *at = memchr(p + u.auth_b, '@', u.auth_e - u.auth_b);
            ok = at != NULL;
            b = u.auth_b, e = at ? (size_t)(at - p) : 0;
        } else {
            ok = false;
        }
        if (!ok || (key && strcmp(pt, "QUERY") != 0)) {
            sl__null_result(nd, i);
            continue;
        }
        nd->v.str[i].ptr = p + b;
        nd->v.str[i].len = (uint32_t)(e - b);
    }
    return 0;
}

/* ========================================================================
** Compilation.
*/

int sl__compile_fn_str(sl__node *nd, sl_error *err)
{
    switch (nd->op) {
    case SL_FN_LOCATE:
    case SL_FN_INSTR: nd->run = sl__k_locate; return 0;
    case SL_FN_SPLIT_INDEX: nd->run = sl__k_split_index; return 0;
    case SL_FN_REGEXP:
    case SL_FN_REGEXP_REPLACE:
    case SL_FN_REGEXP_EXTRACT:
    case SL_FN_REGEXP_COUNT:
    case SL_FN_REGEXP_INSTR:
    case SL_FN_REGEXP_SUBSTR: return sl__compile_regexp(nd, err);
    case SL_FN_REPEAT:
    case SL_FN_CONCAT_WS:
        nd->run = nd->op == SL_FN_REPEAT ? sl__k_build : sl__k_concat_ws;
        sl__with_strbuf(nd);
        nd->can_fail = true; /* too long */
        return 0;
    case SL_FN_INITCAP:
    case SL_FN_REVERSE:
    case SL_FN_LEFT:
    case SL_FN_RIGHT:
    case SL_FN_TRANSLATE:
    case SL_FN_BTRIM:
    case SL_FN_TRIM: /* (s, chars); TRIM(s) is eval_fn.c's */
    case SL_FN_LTRIM:
    case SL_FN_RTRIM:
    case SL_FN_CHR:
    case SL_FN_TO_BASE64:
    case SL_FN_FROM_BASE64:
    case SL_FN_URL_ENCODE:
    case SL_FN_URL_DECODE:
        nd->run = sl__k_build;
        sl__with_strbuf(nd);
        nd->can_fail = nd->op == SL_FN_FROM_BASE64;
        return 0;
    case SL_FN_ASCII:
    case SL_FN_STARTSWITH:
    case SL_FN_ENDSWITH: nd->run = sl__k_str_small; return 0;
    case SL_FN_IS_ALPHA:
    case SL_FN_IS_DIGIT:
    case SL_FN_IS_DECIMAL: nd->run = sl__k_is_class; return 0;
    case SL_FN_PARSE_URL: nd->run = sl__k_parse_url; return 0;
    default: return 1;
    }
}
