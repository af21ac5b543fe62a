/*
** state_rocks.h — a small key-value store over RocksDB's C API for the
** 'rocksdb' state backend (state.backend.type): one database per operator
** instance, in a working directory of its own, checkpointed into the job's
** checkpoint directories (see state_rocks.c).
*/
#ifndef SL_STATE_ROCKS_H
#define SL_STATE_ROCKS_H

#include "../base/sl_base.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sl_rocks sl_rocks;

/* Open a database in dir, removing whatever dir held (a working directory
** belongs to one run of one operator instance). from = a checkpoint's copy
** of a database (sl_rocks_checkpoint) to start from, or NULL for an empty
** one: its SST files are hard-linked into dir (copied across file
** systems), the rest copied. dir NULL: a temporary directory, removed by
** sl_rocks_close. */
int sl_rocks_open(const char *dir, const char *from, sl_rocks **out, sl_error *err);
/* Close; remove the working directory. */
void sl_rocks_close(sl_rocks *db);

/* Writes go into a batch, written by sl_rocks_commit (and before any read:
** a read sees every write before it). */
void sl_rocks_put(sl_rocks *db, const char *key, size_t klen, const char *val, size_t vlen);
void sl_rocks_delete(sl_rocks *db, const char *key, size_t klen);
int sl_rocks_commit(sl_rocks *db, sl_error *err);
/* 1 with *val (sl_free) and *vlen set, 0 when key is absent, -1 on error. */
int sl_rocks_get(sl_rocks *db, const char *key, size_t klen, char **val, size_t *vlen,
                 sl_error *err);

/* Commit, flush and write a checkpoint of the database into dir (which
** must not exist): SST files as hard links to the working directory's
** (incremental: shared with every other checkpoint holding them), or, when
** !incremental, as copies of their own. */
int sl_rocks_checkpoint(sl_rocks *db, const char *dir, bool incremental, sl_error *err);

#endif
