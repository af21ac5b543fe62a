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

/* key, type, required, default, secret, enum values, description */
static const sl_config_key sl__keys[] = {
    {"execution.checkpointing.interval", SL_OPT_DURATION, false, "10 s", false, NULL,
     "Interval between checkpoints; '0' turns checkpointing off."},
    {"execution.runtime-mode", SL_OPT_ENUM, false, "streaming", false, "streaming|batch",
     "Streaming (continuous) or batch execution."},
    {"execution.savepoint.path", SL_OPT_STRING, false, NULL, false, NULL,
     "Savepoint to start the next job from."},
    {"execution.savepoint-restore-mode", SL_OPT_ENUM, false, "claim", false, "claim|no_claim",
     "How a job started from 'execution.savepoint.path' relates to the job that took the "
     "savepoint: 'claim' continues it (refused when that job went on after the savepoint; "
     "that job never runs again), 'no_claim' forks it under a new 'pipeline.name' into "
     "sinks the other job does not write."},
    {"parallelism.default", SL_OPT_INT, false, NULL, false, NULL,
     "Parallelism of operators (default: number of cores)."},
    {"pipeline.name", SL_OPT_STRING, false, NULL, false, NULL,
     "Name of the next job; a job's identity across restarts."},
    {"restart-strategy.fixed-delay.attempts", SL_OPT_INT, false, "10", false, NULL,
     "How many times a failed job is restarted (fixed-delay) before it fails."},
    {"restart-strategy.fixed-delay.delay", SL_OPT_DURATION, false, "1 s", false, NULL,
     "How long the fixed-delay strategy waits before each restart."},
    {"restart-strategy.type", SL_OPT_ENUM, false, "fixed-delay", false, "none|fixed-delay",
     "Restart a job that failed because an outside system failed for now (SQLSTATE class "
     "08: a broker down, a lost connection) from its last checkpoint: 'fixed-delay', or "
     "'none'. Other failures (bad input, a fenced instance) are never restarted."},
    {"sink.guarantee-fallback", SL_OPT_ENUM, false, "error", false, "error|downgrade",
     "What to do when a requested sink guarantee is not achievable."},
    {"sql-client.execution.result-mode", SL_OPT_ENUM, false, "tableau", false,
     "table|tableau|changelog", "How the shell shows query results."},
    {"table.dml-sync", SL_OPT_BOOL, false, "false", false, NULL,
     "Run INSERT to its end ('true') or start it as a background job ('false')."},
    {"table.exec.source.idle-timeout", SL_OPT_DURATION, false, "0 ms", false, NULL,
     "A source task with no rows for this long is idle: its watermark no longer holds back "
     "the others' ('0' = never)."},
    {"table.exec.state.ttl", SL_OPT_DURATION, false, "0 ms", false, NULL,
     "Idle state retention; '0' keeps state forever."},
    {"table.local-time-zone", SL_OPT_STRING, false, "UTC", false, NULL,
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
    if (sl_option_check_value(k, key, value, value_pos, err) != 0)
        return -1;
    if (strcmp(key, "pipeline.name") == 0) /* a job's identity: jobs/<name>/ */
        return sl_job_name_check(value, value_pos, err);
    int64_t n;
    if (k->type == SL_OPT_INT && sl_option_parse_int(value, &n, value_pos, err) == 0 && n < 1)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos,
                            "invalid value for option '%s': \"%s\" must be at least 1", key,
                            value);
    return 0;
}
