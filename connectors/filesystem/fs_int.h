/*
** fs_int.h — internals shared by the filesystem connector's files
** (filesystem.c: declaration; fs_source.c: the line source; fs_sink.c: the
** exactly-once part-file sink). Not a public header: only files under
** connectors/filesystem/ and the connector's unit test include it.
**
** Besides the two create functions it holds the few knobs the unit test
** turns (block size, line limit, the clock) and the directory listing both
** sides use.
*/
#ifndef SL_FS_INT_H
#define SL_FS_INT_H

#include "../sl_connector_int.h"

/* Create functions attached to sl__connector_filesystem. */
int sl__fs_source_create(const sl_source_args *args, sl_source **out, sl_error *err);
int sl__fs_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err);
/* fs_lookup.c: the lookup provider (every file in memory, reloaded after
** 'lookup.join.cache.ttl') and its EXPLAIN text. */
int sl__fs_lookup_create(const sl_lookup_args *args, sl_lookup **out, sl_error *err);
void sl__fs_lookup_describe(const sl_kvlist *opts, sl_strbuf *out);

/* Knobs (process-wide; only tests change them). */
extern size_t sl__fs_block_size;      /* bytes per read() of the source: 64 KiB */
extern size_t sl__fs_max_line;        /* longest record the source accepts: 16 MiB */
extern int64_t (*sl__fs_clock)(void); /* monotonic ns: rolling and monitor intervals */

/* The names of the entries of dir that satisfy keep (NULL: all), sorted by
** strcmp (byte order, not locale). Caller frees with sl_list_free(l, sl_free).
** NULL with err (58P01 / 58030) when dir cannot be read. */
sl_list *sl__fs_list(const char *dir, bool (*keep)(const char *name), sl_error *err);


#endif /* SL_FS_INT_H */
