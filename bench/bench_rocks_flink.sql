-- bench_rocks_flink.sql — the GROUP BY of bench_rocks.py's part A at 5M keys, for Sluice
-- and Flink 2.2 side by side (docs/BENCHMARKS.md, RocksDB state backend). Flink: the
-- peer harness (../shared/peers/flink) with flink-statebackend-rocksdb added to its pom,
-- './flinksql bench/bench_rocks_flink.sql'. Sluice: the same file without the
-- 'execution.checkpointing.dir' line (Flink's; Sluice checkpoints into its data directory).
SET 'parallelism.default' = '1';
SET 'state.backend.type' = 'rocksdb';
SET 'execution.checkpointing.incremental' = 'true';
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'file:///tmp/rk/flinkchk';
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5000000', 'rows-per-second' = '1000000000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000000');
CREATE TABLE hole (k BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO hole SELECT id, COUNT(*), SUM(id) FROM gen GROUP BY id;
