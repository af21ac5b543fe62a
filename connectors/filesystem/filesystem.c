/*
** filesystem.c — the 'filesystem' connector: reads and writes files under a
** directory in one of the formats (Flink's FileSystem connector and option
** names).
**
** Declaration only (options, capabilities, check). As a sink it writes
** in-progress files and makes them visible by rename at checkpoint commit:
** exactly-once, append-only. As a source, files can be re-read from a
** stored position: replayable.
*/
#include <string.h>

#include "../sl_connector_int.h"

static const sl_option_spec sl__filesystem_options[] = {
    {.key = "path", .type = SL_OPT_STRING, .required = true,
     .description = "The directory to read from or write to."},
    {.key = "source.monitor-interval", .type = SL_OPT_DURATION,
     .description = "How often the source looks for new files; unset means read the files "
                    "present at start, then end (bounded)."},
    {.key = "sink.rolling-policy.file-size", .type = SL_OPT_MEMSIZE, .default_value = "128 mb",
     .description = "Roll to a new part file once the current one reaches this size."},
    {.key = "sink.rolling-policy.rollover-interval", .type = SL_OPT_DURATION,
     .default_value = "30 min",
     .description = "Roll to a new part file once the current one has been open this long."},
    {.key = "sink.rolling-policy.check-interval", .type = SL_OPT_DURATION,
     .default_value = "1 min",
     .description = "How often the time-based rolling policies are checked."},
    {.key = "sink.rolling-policy.inactivity-interval", .type = SL_OPT_DURATION,
     .default_value = "30 min",
     .description = "Roll to a new part file once the current one has received no rows for "
                    "this long."},
    {.key = "partition.default-name", .type = SL_OPT_STRING,
     .default_value = "__DEFAULT_PARTITION__",
     .description = "Partition directory name used when the partition value is NULL or empty."},
};

static int sl__filesystem_check(const sl_connector *c, const sl_kvlist *opts,
                                const sl_table_shape *shape, sl_error *err)
{
    const sl_kv *path = sl_kvlist_find(opts, "path");
    if (path && path->value[0] == 0)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, path->value_pos,
                            "option 'path' must not be empty");
    return 0;
}

const sl_connector sl__connector_filesystem = {
    .name = "filesystem",
    .description = "Files in a directory, in one of the formats.",
    .options = sl__filesystem_options,
    .noptions = (int)SL_ARRAY_LEN(sl__filesystem_options),
    .has_format = true,
    .caps = {
        .source = true,
        .sink = true,
        .source_replayable = true,
        .sink_max = SL_GUARANTEE_EXACTLY_ONCE,
        .sink_mech = SL_MECH_ATOMIC_RENAME,
        .sink_updates = false,
        .sink_default = SL_GUARANTEE_EXACTLY_ONCE,
    },
    .check = sl__filesystem_check,
};
