/*
** config.c — the session configuration keys that SET accepts (Flink's names
** where Flink has the same setting), with their types and defaults.
**
** An unknown key is an error with a "did you mean" hint rather than being
** silently accepted: a mistyped 'execution.checkpointing.interval' must not
** quietly leave checkpointing at its default.
**
** Readers: a key that SET accepts but nothing reads would be accepted and
** ignored. Every read of a setting goes through sl_config_read (the
** session's accessors, session.c), which records that the key has a reader;
** tests/unit/test_planner_settings.c runs statements of every kind and
** fails for a declared key that was never read.
**
** Main routines: sl_config_check (SET), sl_config_read, sl_config_was_read.
*/
#include "planner_int.h"
#include "../base/sl_tz.h"

#include <stdatomic.h>
#include <string.h>

/* key, type, required, default, secret, enum values, description */
static const sl_config_key sl__keys[] = {
    {"execution.checkpointing.interval", SL_OPT_DURATION, false, "10 s", false, NULL,
     "Interval between checkpoints; '0' turns checkpointing off."},
    {"execution.checkpointing.dir", SL_OPT_STRING, false, NULL, false, NULL,
     "Where jobs keep their checkpoints and savepoints: <dir>/<job>/chk-<N>/, in a local "
     "directory or in S3 ('s3://bucket/path', with the 's3.*' settings or AWS_* from the "
     "environment). Unset: the data directory's jobs/<job>/. A job resumes only from the "
     "location it started with (its record keeps it); 'state.backend.type' = 'rocksdb' needs "
     "a local one."},
    {"execution.checkpointing.incremental", SL_OPT_BOOL, false, "false", false, NULL,
     "With 'state.backend.type' = 'rocksdb': 'true' makes each checkpoint share the RocksDB "
     "files (SSTs, which RocksDB never changes) it has in common with the previous one "
     "through hard links, so it writes only what changed; 'false' copies them (a full, "
     "self-contained checkpoint). Ignored by the 'hashmap' backend."},
    {"execution.runtime-mode", SL_OPT_ENUM, false, "streaming", false,
     "streaming|batch|automatic",
     "'streaming': continuous jobs, updating results. 'batch': every source must be bounded "
     "(refused otherwise) and query results are final, insert-only rows. 'automatic': batch "
     "when every source is bounded, else streaming."},
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
    {"s3.access-key", SL_OPT_STRING, false, NULL, false, NULL,
     "The access key id of checkpoints in S3 ('execution.checkpointing.dir'); unset: "
     "AWS_ACCESS_KEY_ID. (Tables in S3 take the same options in WITH.)"},
    {"s3.endpoint", SL_OPT_STRING, false, NULL, false, NULL,
     "The S3 endpoint of checkpoints in S3 ('http://127.0.0.1:8333' for MinIO or SeaweedFS); "
     "unset: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS's endpoint of 's3.region'."},
    {"s3.path.style.access", SL_OPT_BOOL, false, NULL, false, NULL,
     "Address buckets as http://host/bucket/key ('true') or http://bucket.host/key ('false'); "
     "unset: path style with an 's3.endpoint' of one's own, virtual-hosted on AWS."},
    {"s3.region", SL_OPT_STRING, false, NULL, false, NULL,
     "The signing region of checkpoints in S3; unset: AWS_REGION, AWS_DEFAULT_REGION, else "
     "us-east-1."},
    {"s3.secret-key", SL_OPT_STRING, false, NULL, true, NULL,
     "The secret key of checkpoints in S3; unset: AWS_SECRET_ACCESS_KEY."},
    {"sink.guarantee-fallback", SL_OPT_ENUM, false, "error", false, "error|downgrade",
     "What to do when a requested sink guarantee is not achievable."},
    {"sql-client.execution.result-mode", SL_OPT_ENUM, false, "tableau", false,
     "table|tableau|changelog",
     "How query results are returned: 'tableau' (rows as they arrive, with the op column "
     "when the result is updating), 'changelog' (every change with its op column), 'table' "
     "(the final table: updates applied, no op column)."},
    {"state.backend.rocksdb.cache-groups", SL_OPT_INT, false, "1000000", false, NULL,
     "Sluice's own (Flink's closest: 'state.backend.rocksdb.memory.managed'): with "
     "'state.backend.type' = 'rocksdb', the groups of a GROUP BY each task keeps in memory "
     "(at least 1); past it, the least recently touched are written to RocksDB and read back "
     "when their key comes again (docs/SQL.md, State backends)."},
    {"state.backend.type", SL_OPT_ENUM, false, "hashmap", false, "hashmap|rocksdb",
     "Where keyed state lives: 'hashmap' in memory (checkpoints write the whole state), "
     "'rocksdb' the groups of a non-windowed GROUP BY in an embedded RocksDB database on disk, "
     "bounded in memory by 'state.backend.rocksdb.cache-groups' (other operators keep theirs "
     "in memory). A checkpoint restores only under the backend that took it."},
    {"table.dml-sync", SL_OPT_BOOL, false, "false", false, NULL,
     "Run INSERT to its end ('true') or start it as a background job ('false')."},
    {"table.exec.deduplicate.conflict-table", SL_OPT_STRING, false, "", false, NULL,
     "Sluice's own (Flink has no conflict detection): the table that receives every "
     "conflict of a keep-first deduplication (ROW_NUMBER() ... = 1 by a business key): a "
     "later row of a key whose columns differ from the kept row, with the key, both "
     "versions as JSON, its event time and when it arrived; it joins the job's commit "
     "group. '' = count (SHOW JOBS) and log them only."},
    {"table.exec.late-rows.table", SL_OPT_STRING, false, "", false, NULL,
     "Sluice's own (Flink's closest: a DataStream side output of late data, "
     "sideOutputLateData): the table that receives every row an operator drops as later "
     "than the watermark (window aggregations, OVER, session windows, event-time "
     "deduplication and Top-N, interval joins), with the watermark it missed, the window it "
     "belonged to and when it arrived; it joins the job's commit group. '' = drop and count "
     "them."},
    {"table.exec.reconcile.memory", SL_OPT_MEMSIZE, false, "1 gb", false, NULL,
     "Sluice's own (Flink has no RECONCILE): the memory RECONCILE's key table may take "
     "(at least 1 mb); past it, partitions of the table spill to files under the data "
     "directory's tmp/ and are compared one at a time (docs/BENCHMARKS.md)."},
    {"table.exec.sink.type-length-enforcer", SL_OPT_ENUM, false, "IGNORE", false,
     "IGNORE|TRIM_PAD|ERROR",
     "What a sink does with a value of a CHAR(n), VARCHAR(n), BINARY(n) or VARBINARY(n) "
     "column that does not have that length: 'IGNORE' writes it as it is, 'TRIM_PAD' cuts a "
     "longer value and pads a shorter CHAR / BINARY one, 'ERROR' fails the job. A query's "
     "column of another type is first CAST to the column's (which cuts and pads), except "
     "under 'ERROR'."},
    {"table.exec.source.idle-timeout", SL_OPT_DURATION, false, "0 ms", false, NULL,
     "A source task with no rows for this long is idle: its watermark no longer holds back "
     "the others' ('0' = never)."},
    {"table.exec.state.ttl", SL_OPT_DURATION, false, "0 ms", false, NULL,
     "Idle state retention; '0' keeps state forever."},
    {"table.exec.watermark.stall-warning", SL_OPT_DURATION, false, "30 s", false, NULL,
     "Sluice's own (Flink has none): a job whose rows keep arriving while none reach its "
     "sinks and whose event-time watermark has not moved for this long (at least 3 "
     "checkpoint intervals) gets a WARNING naming why its windows are not firing, and SHOW "
     "JOBS shows it; '0' = never."},
    {"table.local-time-zone", SL_OPT_STRING, false, "default", false, NULL,
     "Time zone of conversions between instants (TIMESTAMP_LTZ) and local date-times: a "
     "time zone database name ('Europe/Berlin'), 'GMT+08:00', 'UTC', or 'default' (the "
     "machine's: TZ, else /etc/localtime)."},
    {"table.optimizer.reuse-source-enabled", SL_OPT_BOOL, false, "true", false, NULL,
     "Scans of one table with the same watermark in one job (a query or INSERT reading two "
     "views of one source, a self-join) read it once: one source task per parallel "
     "instance feeds every scan's operators. 'false' gives each scan a source of its own "
     "(the plans before this setting; a checkpoint restores only into a plan of the same "
     "kind)."},
    {"table.optimizer.reuse-sub-plan-enabled", SL_OPT_BOOL, false, "true", false, NULL,
     "An aggregation, join or other stateful operator computing what another of the same "
     "job computes (the same plan below it, nothing non-deterministic; Nexmark q5's two "
     "counts of bids per auction and window) runs once, and both consumers read its "
     "output. 'false' runs each on its own (the plans before this setting; a checkpoint "
     "restores only into a plan of the same kind)."},
};

/* Which keys have been read (sl_config_read), by index into sl__keys. */
static atomic_bool sl__key_read[SL_ARRAY_LEN(sl__keys)];

const sl_config_key *sl_config_keys(int *n)
{
    *n = (int)SL_ARRAY_LEN(sl__keys);
    return sl__keys;
}

const sl_config_key *sl_config_read(const char *key)
{
    const sl_config_key *k = sl_config_find(key);
    SL_ALWAYS(k != NULL); /* a read of an undeclared key is a bug */
    if (k)
        atomic_store(&sl__key_read[k - sl__keys], true);
    return k;
}

bool sl_config_was_read(const char *key)
{
    const sl_config_key *k = sl_config_find(key);
    return k && atomic_load(&sl__key_read[k - sl__keys]);
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
    if (strcmp(key, "table.local-time-zone") == 0) {
        sl_tz *tz = NULL;
        if (sl_tz_open(value, &tz, err) != 0) {
            err->position = value_pos;
            return -1;
        }
        sl_tz_free(tz);
    }
    if (strcmp(key, "execution.checkpointing.dir") == 0) { /* a storage that exists */
        const sl_chk_fs *fs = NULL;
        if (sl_chk_fs_find(value, &fs, err) != 0) {
            err->position = value_pos;
            return -1;
        }
    }
    if (strcmp(key, "pipeline.name") == 0) /* a job's identity: jobs/<name>/ */
        return sl_job_name_check(value, value_pos, err);
    int64_t n;
    if (strcmp(key, "table.exec.reconcile.memory") == 0 &&
        sl_option_parse_memsize(value, &n, value_pos, err) == 0 && n < (1 << 20))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos,
                            "invalid value for option '%s': \"%s\" must be at least 1 mb", key,
                            value);
    if (k->type == SL_OPT_INT && sl_option_parse_int(value, &n, value_pos, err) == 0 && n < 1)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos,
                            "invalid value for option '%s': \"%s\" must be at least 1", key,
                            value);
    if (strcmp(key, "parallelism.default") == 0 && n > SL_MAX_PARALLELISM)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, value_pos,
                            "invalid value for option '%s': \"%s\" must be at most %d", key,
                            value, SL_MAX_PARALLELISM);
    return 0;
}
