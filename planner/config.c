/*
** config.c — the session configuration keys that SET accepts (Flink's names
** where Flink has the same setting), with their types and defaults.
**
** An unknown key is an error with a "did you mean" hint rather than being
** silently accepted: a mistyped 'execution.checkpointing.interval' must not
** quietly leave checkpointing at its default.
*/
#include "planner_int.h"

#include <string.h>

static const sl_config_key sl__keys[] = {
    {"execution.checkpointing.interval", SL_OPT_DURATION, "10 s", NULL,
     "Interval between checkpoints; '0' turns checkpointing off."},
    {"execution.runtime-mode", SL_OPT_ENUM, "streaming", "streaming|batch",
     "Streaming (continuous) or batch execution."},
    {"execution.savepoint.path", SL_OPT_STRING, NULL, NULL,
     "Savepoint to start the next job from."},
    {"parallelism.default", SL_OPT_INT, NULL, NULL,
     "Parallelism of operators (default: number of cores)."},
    {"pipeline.name", SL_OPT_STRING, NULL, NULL,
     "Name of the next job; a job's identity across restarts."},
    {"sink.guarantee-fallback", SL_OPT_ENUM, "error", "error|downgrade",
     "What to do when a requested sink guarantee is not achievable."},
    {"sql-client.execution.result-mode", SL_OPT_ENUM, "tableau", "table|tableau|changelog",
     "How the shell shows query results."},
    {"table.exec.state.ttl", SL_OPT_DURATION, "0 ms", NULL,
     "Idle state retention; '0' keeps state forever."},
    {"table.local-time-zone", SL_OPT_STRING, "UTC", NULL,
     "Time zone for TIMESTAMP_LTZ conversions."},
};

const sl_config_key *sl_config_keys(int *n)
{
    *n = (int)SL_ARRAY_LEN(sl__keys);
    return sl__keys;
}

const sl_config_key *sl_config_find(const char *key)
{
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__keys); i++)
        if (strcmp(sl__keys[i].key, key) == 0)
            return &sl__keys[i];
    return NULL;
}

int sl_config_check(const char *key, const char *value, int key_pos, int value_pos, sl_error *err)
{
    const sl_config_key *k = sl_config_find(key);
    if (!k) {
        const char *names[SL_ARRAY_LEN(sl__keys)];
        for (size_t i = 0; i < SL_ARRAY_LEN(sl__keys); i++)
            names[i] = sl__keys[i].key;
        sl_error_set(err, SL_ERR_UNDEFINED_PARAMETER, key_pos,
                     "unrecognized configuration parameter '%s'", key);
        const char *near = sl_did_you_mean(key, names, (int)SL_ARRAY_LEN(sl__keys));
        if (near)
            sl_error_hint(err, "Did you mean '%s'?", near);
        else
            sl_error_hint(err, "Run SET; to list the configuration parameters.");
        return -1;
    }
    int64_t n;
    bool b;
    switch (k->type) {
    case SL_OPT_INT:
        if (sl_option_parse_int(value, &n, value_pos, err) != 0)
            return -1;
        if (n < 1)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos,
                                "'%s' must be at least 1", key);
        return 0;
    case SL_OPT_BOOL:
        return sl_option_parse_bool(value, &b, value_pos, err);
    case SL_OPT_DURATION:
        return sl_option_parse_duration_ms(value, &n, value_pos, err);
    case SL_OPT_ENUM: {
        const char *p = k->enum_values;
        size_t vl = strlen(value);
        while (p && *p) {
            const char *bar = strchr(p, '|');
            size_t len = bar ? (size_t)(bar - p) : strlen(p);
            if (len == vl && sl_strncasecmp(p, value, len) == 0)
                return 0;
            p = bar ? bar + 1 : NULL;
        }
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos,
                     "invalid value for parameter '%s': '%s'", key, value);
        sl_error_hint(err, "Available values: %s.", k->enum_values);
        return -1;
    }
    default:
        return 0;
    }
}
