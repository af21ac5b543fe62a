-- Cursors (issue 12): PostgreSQL's DECLARE / FETCH / MOVE / CLOSE through the
-- shell, as psql's FETCH_COUNT and psycopg's named cursors send them; a
-- parameter ($n) outside of the wire protocol's Bind is an error.
SET 'parallelism.default' = '1';
CREATE TABLE nums (id BIGINT, name STRING) WITH ('connector' = 'datagen',
  'number-of-rows' = '12', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
  'fields.id.end' = '12', 'fields.name.length' = '4');
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');

DECLARE c NO SCROLL CURSOR WITH HOLD FOR SELECT id, id * 10 AS tens FROM nums WHERE id > 2;
FETCH FORWARD 3 FROM c;
MOVE 2 IN c;
FETCH c;
FETCH NEXT FROM c;
FETCH ALL FROM c;
FETCH 5 FROM c;
CLOSE c;

-- An unbounded query, read in pieces.
DECLARE e CURSOR FOR SELECT id FROM endless;
FETCH 4 FROM e;
FETCH 4 FROM e;
CLOSE e;

-- Errors.
FETCH 1 FROM c;
CLOSE nope;
DECLARE d CURSOR FOR SELECT id FROM nums;
DECLARE d CURSOR FOR SELECT id FROM nums;
DECLARE b BINARY CURSOR FOR SELECT id FROM nums;
DECLARE x CURSOR FOR SELECT nope FROM nums;
DECLARE y CURSOR FOR INSERT INTO nums SELECT * FROM nums;
FETCH BACKWARD 1 FROM d;
CLOSE ALL;
FETCH 1 FROM d;
SELECT id FROM nums WHERE id = $1;
SELECT $0;
