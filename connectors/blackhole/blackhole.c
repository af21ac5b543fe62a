/*
** blackhole.c — the 'blackhole' connector: a sink that discards every row
** (Flink's BlackHole connector), for benchmarks and tests.
**
** Declaration only. It has no options of its own; nothing is written, so
** the guarantee is none.
*/
#include "../sl_connector_int.h"

const sl_connector sl__connector_blackhole = {
    .name = "blackhole",
    .description = "Discards every row.",
    .options = NULL,
    .noptions = 0,
    .has_format = false,
    .caps = {
        .source = false,
        .sink = true,
        .source_replayable = false,
        .sink_max = SL_GUARANTEE_NONE,
        .sink_mech = SL_MECH_NONE,
        .sink_updates = true,
        .sink_default = SL_GUARANTEE_NONE,
    },
    .check = NULL,
};
