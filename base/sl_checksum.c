/*
** sl_checksum.c — checksums of what the engine writes and later trusts
** (see sl_base.h): XXH3-64 of bytes, and JSON files that carry their own.
**
** A self-checksummed JSON text holds exactly one "checksum": "<16 hex>"
** member; the checksum covers every byte of the text with those 16 digits
** read as '0', so any changed byte (a value, a key, white space, the digits
** themselves) is caught. A string value cannot fake the member: inside a
** JSON string every '"' is escaped, so the byte sequence "checksum": " only
** occurs as a key.
**
** Main routines: sl_checksum, sl_checksum_embed, sl_checksum_verify.
*/
#include "sl_base.h"

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#define SL__MEMBER "\"" SL_CHECKSUM_KEY "\": \""
#define SL__DIGITS 16

uint64_t sl_checksum(const void *p, size_t n) { return (uint64_t)XXH3_64bits(p, n); }

/* Offset of the 16 digits of the one checksum member of text[0..len), or
** -1 when there is none; -2 when there are several or they are not 16
** lower-case hex digits closed by '"'. */
static int64_t sl__digits_at(const char *text, size_t len)
{
    size_t m = strlen(SL__MEMBER);
    int64_t at = -1;
    for (size_t i = 0; i + m <= len; i++) {
        if (text[i] != '"' || memcmp(text + i, SL__MEMBER, m) != 0)
            continue;
        if (at >= 0)
            return -2;
        at = (int64_t)(i + m);
    }
    if (at < 0)
        return -1;
    if ((size_t)at + SL__DIGITS + 1 > len || text[at + SL__DIGITS] != '"')
        return -2;
    for (int k = 0; k < SL__DIGITS; k++) {
        char c = text[at + k];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return -2;
    }
    return at;
}

/* The checksum of text with its digits at 'at' read as '0'. */
static uint64_t sl__sum_zeroed(const char *text, size_t len, size_t at)
{
    XXH3_state_t *s = XXH3_createState();
    if (!s)
        SL_PANIC("out of memory (xxhash state)");
    XXH3_64bits_reset(s);
    XXH3_64bits_update(s, text, at);
    XXH3_64bits_update(s, SL_CHECKSUM_ZERO, SL__DIGITS);
    XXH3_64bits_update(s, text + at + SL__DIGITS, len - at - SL__DIGITS);
    uint64_t h = (uint64_t)XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}

int sl_checksum_embed(char *text, size_t len)
{
    int64_t at = sl__digits_at(text, len);
    if (at < 0)
        return -1;
    char hex[SL__DIGITS + 1];
    snprintf(hex, sizeof hex, "%016llx",
             (unsigned long long)sl__sum_zeroed(text, len, (size_t)at));
    memcpy(text + at, hex, SL__DIGITS);
    return 0;
}

int sl_checksum_verify(const char *text, size_t len)
{
    int64_t at = sl__digits_at(text, len);
    if (at == -1)
        return -1;
    if (at < 0)
        return 0;
    char hex[SL__DIGITS + 1];
    snprintf(hex, sizeof hex, "%016llx",
             (unsigned long long)sl__sum_zeroed(text, len, (size_t)at));
    return memcmp(text + at, hex, SL__DIGITS) == 0;
}
