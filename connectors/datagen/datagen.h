/*
** datagen.h — the runtime side of the 'datagen' connector (datagen_source.c):
** the source's create function, attached to the declaration in datagen.c,
** and a test hook for its clock.
**
** Row i of a datagen table is a pure function of (i, column, options, base
** instant); subtask k of p generates the rows i with i % p == k. The
** position is "next=<i>;base=<ns>;parallelism=<p>;subtask=<k>".
*/
#ifndef SL_DATAGEN_H
#define SL_DATAGEN_H

#include "../sl_connector.h"

/* Create a datagen source instance for args (options already validated;
** they are parsed again and a bad value is still a clean 22023 error).
** 0, or -1 with err (0A000 for a column type datagen cannot generate). */
int sl_datagen_create(const sl_source_args *args, sl_source **out, sl_error *err);

/* Replace the clock the source paces itself by (and takes its base instant
** from). now(ctx) returns nanoseconds since the epoch; NULL restores the
** default (sl_now_nanos). With a replaced clock poll never sleeps. Call
** before the first poll. s must be a datagen source. */
void sl_datagen_set_clock(sl_source *s, int64_t (*now)(void *ctx), void *ctx);

#endif /* SL_DATAGEN_H */
