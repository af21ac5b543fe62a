/*
** value_int.h — values of a vector as one union, and the hashing of key
** values shared by the hash exchange (chunk.c, sl_chunk_hash_keys) and the
** key tables of the stateful operators (op_agg.c). Internal to exec/.
**
** Equal keys hash equal: -0.0 and 0.0 are one value, every NaN is one value.
*/
#ifndef SL_VALUE_INT_H
#define SL_VALUE_INT_H

#include "sl_exec.h"

#include <math.h>
#include <string.h>

typedef union sl__val {
    int64_t i;  /* BOOL (0/1) and I64 */
    double f;   /* F64 (canonical: no -0.0, one NaN) */
    sl_i128 d;  /* I128 */
    struct {
        const char *p; /* bytes (owned by whoever holds the value) */
        uint32_t len;  /* length */
    } s;        /* STR */
} sl__val;

#define SL__K1 0x9E3779B97F4A7C15ULL
#define SL__NULL_HASH 0x5bd1e9955bd1e995ULL

static inline uint64_t sl__mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t sl__hash_bytes(const char *p, size_t n)
{
    uint64_t h = (uint64_t)n * SL__K1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ sl__mix(w)) * SL__K1;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, p + i, n - i);
        h = (h ^ sl__mix(w ^ 0xff)) * SL__K1;
    }
    return sl__mix(h);
}

static inline double sl__canon(double f)
{
    if (f == 0)
        return 0.0;
    if (isnan(f))
        return NAN;
    return f;
}

static inline uint64_t sl__f64_bits(double f)
{
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

static inline sl__val sl__load(const sl_vector *v, int r)
{
    sl__val x;
    memset(&x, 0, sizeof x);
    switch (v->phys) {
    case SL_PHYS_BOOL: x.i = v->v.b[r] ? 1 : 0; break;
    case SL_PHYS_I64: x.i = v->v.i64[r]; break;
    case SL_PHYS_F64: x.f = sl__canon(v->v.f64[r]); break;
    case SL_PHYS_I128: x.d = v->v.i128[r]; break;
    case SL_PHYS_STR:
        x.s.p = v->v.str[r].ptr;
        x.s.len = v->v.str[r].len;
        break;
    }
    return x;
}

static inline uint64_t sl__val_hash(sl_phys ph, sl__val x)
{
    switch (ph) {
    case SL_PHYS_BOOL:
    case SL_PHYS_I64: return sl__mix((uint64_t)x.i + SL__K1);
    case SL_PHYS_F64: return sl__mix(sl__f64_bits(x.f) + SL__K1);
    case SL_PHYS_I128: {
        unsigned __int128 u = (unsigned __int128)x.d;
        return sl__mix((uint64_t)u ^ sl__mix((uint64_t)(u >> 64) + SL__K1));
    }
    case SL_PHYS_STR: return sl__hash_bytes(x.s.p, x.s.len);
    }
    return 0;
}

/* Fold one column's value hash x into a row's key hash h. */
#define SL__HASH_COMBINE(h, x) (((h) ^ (x)) * SL__K1)

#endif /* SL_VALUE_INT_H */
