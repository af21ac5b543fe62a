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
** The same layout encodes the elements of ARRAY and MAP values (see
** sl_exec.h, "ARRAY and MAP values"): sl_vector_value_put/get, sl_value_skip.
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

/* The value encoding: a null flag byte, then (not null) the value,
** little-endian; a string as its u32 length and bytes. Its size for row r
** of v: */
static inline size_t sl__vec_size(const sl_vector *v, int r)
{
    if (v->nulls[r])
        return 1;
    switch (v->phys) {
    case SL_PHYS_BOOL: return 2;
    case SL_PHYS_I64:
    case SL_PHYS_F64: return 9;
    case SL_PHYS_I128: return 17;
    case SL_PHYS_STR: return 5 + (size_t)v->v.str[r].len;
    }
    return 1;
}

static inline uint8_t *sl__le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 8;
}

/* Its bytes for row r of v at p (room made); past them. */
static inline uint8_t *sl__vec_write(uint8_t *p, const sl_vector *v, int r)
{
    if (v->nulls[r]) {
        *p = 1;
        return p + 1;
    }
    *p++ = 0;
    switch (v->phys) {
    case SL_PHYS_BOOL: *p++ = v->v.b[r] ? 1 : 0; break;
    case SL_PHYS_I64: p = sl__le64(p, (uint64_t)v->v.i64[r]); break;
    case SL_PHYS_F64: {
        uint64_t bits;
        memcpy(&bits, &v->v.f64[r], 8);
        p = sl__le64(p, bits);
        break;
    }
    case SL_PHYS_I128: {
        unsigned __int128 u = (unsigned __int128)v->v.i128[r];
        p = sl__le64(p, (uint64_t)u);
        p = sl__le64(p, (uint64_t)(u >> 64));
        break;
    }
    case SL_PHYS_STR: {
        uint32_t len = v->v.str[r].len;
        for (int i = 0; i < 4; i++)
            p[i] = (uint8_t)(len >> (8 * i));
        if (len)
            memcpy(p + 4, v->v.str[r].ptr, len);
        p += 4 + len;
        break;
    }
    }
    return p;
}

/* One value into sb (sl_vector_value_put, sl_value_put). */
static inline void sl__vec_put(sl_strbuf *sb, const sl_vector *v, int r)
{
    size_t need = sl__vec_size(v, r);
    if (sb->cap - sb->len <= need)
        sl_strbuf_reserve(sb, need);
    sl__vec_write((uint8_t *)sb->buf + sb->len, v, r);
    sb->len += need;
    sb->buf[sb->len] = 0;
}

static inline void sl__value_put(sl_strbuf *sb, const sl_chunk *c, int col, int r)
{
    sl__vec_put(sb, &c->cols[col], r);
}

void sl_vector_value_put(sl_strbuf *sb, const sl_vector *v, int r)
{
    sl__vec_put(sb, v, r);
}

size_t sl_value_skip(const uint8_t *p, size_t n, sl_phys phys)
{
    if (n < 1 || p[0] > 1)
        return 0;
    if (p[0] == 1)
        return 1;
    size_t k;
    switch (phys) {
    case SL_PHYS_BOOL: k = 1; break;
    case SL_PHYS_I64:
    case SL_PHYS_F64: k = 8; break;
    case SL_PHYS_I128: k = 16; break;
    default: {
        if (n < 5)
            return 0;
        uint32_t len = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 |
                       (uint32_t)p[4] << 24;
        k = 4 + (size_t)len;
        break;
    }
    }
    return 1 + k <= n ? 1 + k : 0;
}

bool sl_vector_value_get(const uint8_t *p, size_t n, sl_vector *v, int r)
{
    if (sl_value_skip(p, n, v->phys) == 0)
        return false;
    v->nulls[r] = p[0];
    if (p[0])
        return true;
    uint64_t u = 0;
    if (v->phys == SL_PHYS_I64 || v->phys == SL_PHYS_F64 || v->phys == SL_PHYS_I128)
        for (int i = 8; i >= 1; i--)
            u = u << 8 | p[i];
    switch (v->phys) {
    case SL_PHYS_BOOL: v->v.b[r] = p[1]; return p[1] <= 1;
    case SL_PHYS_I64: v->v.i64[r] = (int64_t)u; break;
    case SL_PHYS_F64: memcpy(&v->v.f64[r], &u, 8); break;
    case SL_PHYS_I128: {
        uint64_t hi = 0;
        for (int i = 16; i >= 9; i--)
            hi = hi << 8 | p[i];
        v->v.i128[r] = (sl_i128)((unsigned __int128)hi << 64 | (unsigned __int128)u);
        break;
    }
    case SL_PHYS_STR:
        v->v.str[r].ptr = (const char *)p + 5;
        v->v.str[r].len = (uint32_t)(sl_value_skip(p, n, v->phys) - 5);
        break;
    }
    return true;
}

static inline bool sl__value_get(sl_bytes_reader *rd, sl_chunk *dst, int col, int r, bool view)
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
        if (view) {
            dst->cols[col].nulls[r] = 0;
            dst->cols[col].v.str[r].ptr = (const char *)rd->p + rd->off;
            dst->cols[col].v.str[r].len = len;
        } else {
            sl_chunk_set_str(dst, col, r, (const char *)rd->p + rd->off, len);
        }
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
    return sl__value_get(rd, dst, col, r, false);
}

/* The encoding of sl__value_put, column after column, into room reserved
** once for the row (a join encodes every input row: the appends' checks
** and calls per value were most of it). */
void sl_row_put_cols(sl_strbuf *sb, const sl_chunk *c, int first, int n, int r)
{
    size_t need = 0;
    for (int i = 0; i < n; i++)
        need += sl__vec_size(&c->cols[first + i], r);
    sl_strbuf_reserve(sb, need);
    uint8_t *p = (uint8_t *)sb->buf + sb->len;
    for (int i = 0; i < n; i++)
        p = sl__vec_write(p, &c->cols[first + i], r);
    SL_ALWAYS((char *)p == sb->buf + sb->len + need);
    sb->len += need;
    sb->buf[sb->len] = 0;
}

bool sl_row_get_cols(sl_bytes_reader *rd, sl_chunk *dst, int first, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (!sl__value_get(rd, dst, first + i, r, false))
            return false;
    return true;
}

bool sl_row_get_cols_view(sl_bytes_reader *rd, sl_chunk *dst, int first, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (!sl__value_get(rd, dst, first + i, r, true))
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
