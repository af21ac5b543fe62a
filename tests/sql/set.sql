-- Session configuration: known keys with types, RESET, listing.
SET 'execution.checkpointing.interval' = '30 s';
SET 'parallelism.default' = '4';
SET 'pipeline.name' = 'billing';
SET 'sink.guarantee-fallback' = 'downgrade';
SET 'table.dml-sync' = 'false';
SET;
RESET 'parallelism.default';
SET 'parallelism.default' = '0';
SET 'parallelism.default' = 'four';
SET 'parallelism.default' = '-2';
SET 'parallelism.default' = '32769';
SET 'execution.checkpointing.intervl' = '1 s';
SET 'sink.guarantee-fallback' = 'sometimes';
SET 'totally.unknown' = 'x';
-- RESET returns 'table.dml-sync' to the shell's default for scripts (true).
RESET;
-- SET lists effective values: parallelism.default's is one task per CPU,
-- machine-dependent, so it is SET here (tests/shell checks the derived one).
SET 'parallelism.default' = '3';
SET;
-- Checkpoints elsewhere: a storage Sluice has (a directory, s3://); the
-- secret of S3 is shown redacted.
SET 'execution.checkpointing.dir' = 'gs://bucket/checkpoints';
SET 'execution.checkpointing.dir' = 's3://bucket/checkpoints';
SET 's3.secret-key' = 'hush-hush';
SET 's3.path.style.access' = 'maybe';
SET;
RESET;
