-- A job over sources whose end is final (datagen with 'number-of-rows',
-- nexmark, VALUES): once its input has ended, its operators' state is dead,
-- and its last checkpoint records them as finished instead of writing the
-- state (Flink's finished operators). A re-run reads nothing more; a re-run
-- whose source would give more rows (its options changed) fails instead of
-- aggregating them from empty state. The sink's files are the independent
-- reader: nothing doubled, nothing lost.
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'finished';
CREATE TABLE gen (id BIGINT, k INT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000',
  'fields.k.min' = '0', 'fields.k.max' = '9');
CREATE TABLE per_k (w TIMESTAMP_LTZ(3), k INT, n BIGINT, total BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/per_k', 'format' = 'csv');
INSERT INTO per_k SELECT window_start, k, COUNT(*), SUM(id)
  FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '100' SECOND)) GROUP BY window_start, window_end, k;
SET 'execution.runtime-mode' = 'batch';
SELECT SUM(n) AS rows_counted, SUM(total) AS ids, COUNT(*) AS lines FROM per_k;
SET 'execution.runtime-mode' = 'streaming';
-- The same job again: it resumes at its end and writes nothing.
INSERT INTO per_k SELECT window_start, k, COUNT(*), SUM(id)
  FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '100' SECOND)) GROUP BY window_start, window_end, k;
SET 'execution.runtime-mode' = 'batch';
SELECT COUNT(*) AS lines FROM per_k;
SET 'execution.runtime-mode' = 'streaming';
