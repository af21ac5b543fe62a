-- SHOW FUNCTIONS: every name the function registry answers to (aliases
-- included), lower case and sorted; SHOW USER FUNCTIONS: none, as Sluice
-- runs no user-defined functions (CREATE FUNCTION is refused, see
-- unsupported.sql).
SHOW FUNCTIONS;
SHOW USER FUNCTIONS;
