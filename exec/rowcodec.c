/*
** rowcodec.c — rows of a chunk as bytes, for operators that keep whole
** rows in their state and snapshots (see sl_exec.h, sl_row_put).
**
** A row is its columns one after another, each: u8 null flag (0/1), then
** if not NULL BOOL u8 (0/1) | I64 i64 | F64 the 8 bytes of the double |
** I128 16 bytes | STR u32 length + bytes; integers little-endian. This is
** the layout every operator that keeps rows writes into its snapshots
** (op_dedup.c, op_topn.c, op_stream_join.c, op_over.c), so it must not
** change. Reading checks every length and flag.
**
** Main routines: sl_value_put/get (one value), sl_row_put_cols/get_cols (a
** run of columns), sl_row_put/get (every column), sl_put_u32/u64,
** sl_get_u8/u32/u64.
*/
#include "sl_exec.h"

#include <string.h>

void sl_put_u32(sl_strbuf *sb, uint32_t v)
{
    char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (char)(v >> (8 * i));
    sl_strbuf_append_n(sb, b, 4);
}

void sl_put_u64(sl_strbuf *sb, uint64_t v)
{
    char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (char)(v >> (8 * i));
    sl_strbuf_append_n(sb, b, 8);
}

bool sl_get_bytes(sl_bytes_reader *rd, void *dst, size_t n)
{
    if (n > rd->n - rd->off)
        return false;
    if (n)
        memcpy(dst, rd->p + rd->off, n);
    rd->off += n;
    return true;
}

bool sl_get_u8(sl_bytes_reader *rd, uint8_t *v)
{
    return sl_get_bytes(rd, v, 1);
}

bool sl_get_u32(sl_bytes_reader *rd, uint32_t *v)
{
    uint8_t b[4];
    if (!sl_get_bytes(rd, b, 4))
        return false;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return true;
}

bool sl_get_u64(sl_bytes_reader *rd, uint64_t *v)
{
    uint8_t b[8];
    if (!sl_get_bytes(rd, b, 8))
        return false;
    *v = 0;
    for (int i = 7; i >= 0; i--)
        *v = *v << 8 | b[i];
    return true;
}

/* The value encoder, inlined into the row loops below (the join's hot
** path encodes every input row through them). */
static inline void sl__value_put(sl_strbuf *sb, const sl_chunk *c, int col, int r)
{
    const sl_vector *v = &c->cols[col];
    if (v->nulls[r]) {
        sl_strbuf_append_char(sb, 1);
        return;
    }
    sl_strbuf_append_char(sb, 0);
    switch (v->phys) {
    case SL_PHYS_BOOL: sl_strbuf_append_char(sb, v->v.b[r] ? 1 : 0); break;
    case SL_PHYS_I64: sl_put_u64(sb, (uint64_t)v->v.i64[r]); break;
    case SL_PHYS_F64: {
        uint64_t bits;
        memcpy(&bits, &v->v.f64[r], 8);
        sl_put_u64(sb, bits);
        break;
    }
    case SL_PHYS_I128: {
        unsigned __int128 u = (unsigned __int128)v->v.i128[r];
        sl_put_u64(sb, (uint64_t)u);
        sl_put_u64(sb, (uint64_t)(u >> 64));
        break;
    }
    case SL_PHYS_STR:
        sl_put_u32(sb, v->v.str[r].len);
        sl_strbuf_append_n(sb, v->v.str[r].ptr, v->v.str[r].len);
        break;
    }
}

static inline bool sl__value_get(sl_bytes_reader *rd, sl_chunk *dst, int col, int r)
{
    uint8_t isnull;
    if (!sl_get_bytes(rd, &isnull, 1) || isnull > 1)
        return false;
    if (isnull) {
        sl_chunk_set_null(dst, col, r);
        return true;
    }
    switch (dst->cols[col].phys) {
    case SL_PHYS_BOOL: {
        uint8_t b;
        if (!sl_get_bytes(rd, &b, 1) || b > 1)
            return false;
        sl_chunk_set_bool(dst, col, r, b);
        break;
    }
    case SL_PHYS_I64: {
        uint64_t u;
        if (!sl_get_u64(rd, &u))
            return false;
        sl_chunk_set_i64(dst, col, r, (int64_t)u);
        break;
    }
    case SL_PHYS_F64: {
        uint64_t u;
        double d;
        if (!sl_get_u64(rd, &u))
            return false;
        memcpy(&d, &u, 8);
        sl_chunk_set_f64(dst, col, r, d);
        break;
    }
    case SL_PHYS_I128: {
        uint64_t lo, hi;
        if (!sl_get_u64(rd, &lo) || !sl_get_u64(rd, &hi))
            return false;
        sl_chunk_set_i128(dst, col, r,
                          (sl_i128)((unsigned __int128)hi << 64 | (unsigned __int128)lo));
        break;
    }
    case SL_PHYS_STR: {
        uint32_t len;
        if (!sl_get_u32(rd, &len) || len > rd->n - rd->off)
            return false;
        sl_chunk_set_str(dst, col, r, (const char *)rd->p + rd->off, len);
        rd->off += len;
        break;
    }
    }
    return true;
}

void sl_value_put(sl_strbuf *sb, const sl_chunk *c, int col, int r)
{
    sl__value_put(sb, c, col, r);
}

bool sl_value_get(sl_bytes_reader *rd, sl_chunk *dst, int col, int r)
{
    return sl__value_get(rd, dst, col, r);
}

void sl_row_put_cols(sl_strbuf *sb, const sl_chunk *c, int first, int n, int r)
{
    for (int i = 0; i < n; i++)
        sl__value_put(sb, c, first + i, r);
}

bool sl_row_get_cols(sl_bytes_reader *rd, sl_chunk *dst, int first, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (!sl__value_get(rd, dst, first + i, r))
            return false;
    return true;
}

void sl_row_put(sl_strbuf *sb, const sl_chunk *c, int r)
{
    sl_row_put_cols(sb, c, 0, c->ncols, r);
}

bool sl_row_get(sl_bytes_reader *rd, sl_chunk *dst, int r)
{
    return sl_row_get_cols(rd, dst, 0, dst->ncols, r);
}
