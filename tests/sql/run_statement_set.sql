-- golden: sort-results
-- A statement set runs as one job: a pipeline per INSERT, one checkpoint
-- decides every sink's epoch, so both tables commit together. Read back
-- independently (the committed files), at parallelism 1 and 2.
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
        'csv.null-literal' = 'null');
CREATE TABLE big (id BIGINT, total DECIMAL(21, 2))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/big', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once');
CREATE TABLE per_minute (window_start TIMESTAMP(3), orders BIGINT, qty BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/per_minute', 'format' = 'csv',
        'sink.delivery-guarantee' = 'exactly-once');
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'two-sinks';
EXECUTE STATEMENT SET BEGIN
  INSERT INTO big SELECT id, qty * price FROM orders WHERE qty * price > 5;
  INSERT INTO per_minute SELECT window_start, COUNT(*), SUM(qty)
    FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
    GROUP BY window_start, window_end;
END;
SELECT id, total FROM big;
SELECT window_start, orders, qty FROM per_minute;
-- The same rows computed by plain queries.
SELECT id, qty * price FROM orders WHERE qty * price > 5;
SELECT window_start, COUNT(*), SUM(qty)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end;
-- Running it again resumes the finished job: nothing is written twice.
EXECUTE STATEMENT SET BEGIN
  INSERT INTO big SELECT id, qty * price FROM orders WHERE qty * price > 5;
  INSERT INTO per_minute SELECT window_start, COUNT(*), SUM(qty)
    FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
    GROUP BY window_start, window_end;
END;
SELECT COUNT(*) FROM big;
SHOW JOBS;
