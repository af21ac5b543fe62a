-- Top-N (ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) filtered to a rank
-- range) over an append-only input: tests/sql/data/topn.csv (16 rows of
-- partition k, id, v with ties and NULLs in v) and tests/sql/data/bids.csv.
-- Checked against Flink SQL 2.2 (the peer harness /work/shared/peers/flink,
-- `flinksql` on the same files with the same CREATE TABLEs, parallelism 1, the
-- SELECTs below, run 2026-12-02): Flink printed exactly these rows with these
-- op columns, in this order. Its EXPLAIN CHANGELOG_MODE says
-- Rank(strategy=[AppendFastStrategy], ...) [I,UA,D] for each (Sluice prints
-- the -U rows it leaves out when no consumer needs them).
-- One task per operator: rows reach the output in a deterministic order.
SET 'parallelism.default' = '1';
CREATE TABLE t (k STRING, id INT, v INT) WITH ('connector' = 'filesystem',
  'path' = '@SQLDATA@/topn.csv', 'format' = 'csv', 'csv.null-literal' = 'null');
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
-- The top 3 per k by v, with the rank: a row entering the top moves the rows
-- below it down one rank (-U/+U at each rank, +I at the rank newly filled); a
-- tie ranks after the rows that arrived before it (a5 after a2); NULL is the
-- smallest value, last in DESC order (b6 ranks after b3).
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t)
WHERE rn <= 3;
-- The same top 3 without the rank: +I of the row entering, -D of the row it
-- pushes out.
SELECT k, id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t)
WHERE rn <= 3;
-- Ranks 2 and 3 only; in ASC order NULL comes first (b6 and b11 take rank 1).
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM t)
WHERE rn BETWEEN 2 AND 3;
-- A rank range with a start and the rank not selected: the rows' rank changes
-- all the same, without the rank.
SELECT k, id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM t)
WHERE rn > 1 AND rn < 4;
-- No partition (one task), two order keys, explicit NULLS FIRST.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY v ASC NULLS FIRST, id DESC) AS rn FROM t)
WHERE rn <= 4;
-- Exactly the second row.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) WHERE rn = 2;
-- Top-1 on a column that is not the event time, NULLS LAST.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST) AS rn FROM t)
WHERE rn = 1;
-- Nexmark q19: the 10 highest bids per auction.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
  FROM bids) WHERE rank_number <= 10;
-- Another condition next to the rank bound filters the Top-N's output.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t)
WHERE rn <= 2 AND id > 3;
EXPLAIN SELECT k, id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM t)
WHERE rn > 1 AND rn < 4;
-- Window Top-N (tests/sql/run_window_topn.sql) emits final rows only.
EXPLAIN SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end
  ORDER BY price DESC) AS rn FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND)))
WHERE rn <= 2;
-- Over an updating input (Flink's RetractStrategy, RetractableTopNFunction):
-- every row is kept, a retracted row's leaving moves the rows below it up.
-- Sluice's GROUP BY emits one change per key per chunk where Flink's emits one
-- per row, so the changelogs differ; the final rows are Flink's (a 210 at 1,
-- b 26 at 2). The operator's changelog for Flink's per-row input is checked in
-- tests/unit/test_exec_topn.c.
SELECT k, s, rn FROM (SELECT k, s, ROW_NUMBER() OVER (ORDER BY s DESC) AS rn
  FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k)) WHERE rn <= 2;
-- Not supported: a rank range without an end (Flink neither), RANK() and
-- DENSE_RANK() (Flink's streaming Top-N neither), a Top-N ordered by an
-- aggregate that only grows (COUNT DESC) — Flink's UpdateFastStrategy.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) WHERE rn > 2;
SELECT * FROM (SELECT *, RANK() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) WHERE rn <= 2;
SELECT k, cnt, rn FROM (SELECT k, cnt, ROW_NUMBER() OVER (ORDER BY cnt DESC) AS rn
  FROM (SELECT k, COUNT(*) AS cnt FROM t GROUP BY k)) WHERE rn <= 2;
-- rn = 1 not on the event time is a Top-1, over an updating input too (final
-- rows: each k's only sum).
SELECT k, s FROM (SELECT k, s, ROW_NUMBER() OVER (PARTITION BY k ORDER BY s) AS rn
  FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k)) WHERE rn = 1;
