/*
** pg_write_order.c — drives the jdbc row writer (connectors/jdbc/pg_write.c)
** directly with changelogs no query of the runtime makes yet (deletes), for
** pg_write_test.py's `order` case, which reads the table back with psql.
**
**   pg_write_order PORT TABLE
**
** Writes, into TABLE (id bigint PRIMARY KEY, v text), in one transaction and
** one chunk: +I 1 a, -D 1, +I 1 b (a key's changes keep their order), +I 2 x,
** -D 2 (deleted), -U 3 (left out), +U 3 c, +I 4 d, -D 5 (no such row), -U 6
** alone (a filter dropped its +U: deleted), +I 8 h, -U 7, +U 7 seven, then in
** a second chunk +U 4 e. The table (holding 5 and 6 and 7 before) must then
** hold exactly 1 b, 3 c, 4 e, 7 seven, 8 h.
** Exit status 0 when every write succeeded.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc/jdbc_int.h"

static void row(sl_chunk *c, sl_row_kind k, int64_t id, const char *v)
{
    int r = sl_chunk_append_row(c, k);
    sl_chunk_set_i64(c, 0, r, id);
    if (v)
        sl_chunk_set_str(c, 1, r, v, strlen(v));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pg_write_order PORT TABLE\n");
        return 2;
    }
    char url[128];
    snprintf(url, sizeof url, "jdbc:postgresql://127.0.0.1:%s/sluice", argv[1]);
    sl_kvlist *o = sl_kvlist_new();
    sl_kvlist_add(o, "connector", "jdbc", -1, -1);
    sl_kvlist_add(o, "url", url, -1, -1);
    sl_kvlist_add(o, "table-name", argv[2], -1, -1);
    sl_kvlist_add(o, "username", "sluice", -1, -1);
    sl_kvlist_add(o, "password", "sluice", -1, -1);
    const char *names[] = {"id", "v"};
    sl_type types[2] = {{.id = SL_TYPE_BIGINT},
                        {.id = SL_TYPE_VARCHAR, .precision = SL_MAX_LENGTH}};
    int pk[] = {0};
    sl_sink_args args = {.options = o, .ncols = 2, .names = names, .types = types,
                         .table = argv[2], .job = "pg-write-order", .npk = 1, .pk = pk,
                         .guarantee = SL_GUARANTEE_AT_LEAST_ONCE};
    sl_error err = SL_ERROR_INIT;
    sl__pg_writer *w = NULL;
    sl__pg_target t;
    int rc = 1;
    PGconn *conn = NULL;
    sl_chunk *c = sl_chunk_new(2, types, 16), *c2 = sl_chunk_new(2, types, 4);
    if (sl__pg_target_parse(o, &t, &err) != 0)
        goto out;
    conn = sl__pg_connect(&t, "pg_write_order", 10000, &err);
    sl__pg_target_clear(&t);
    if (!conn || sl__pg_writer_new(&args, &w, &err) != 0)
        goto out;
    row(c, SL_ROW_INSERT, 1, "a");
    row(c, SL_ROW_DELETE, 1, NULL);
    row(c, SL_ROW_INSERT, 1, "b");
    row(c, SL_ROW_INSERT, 2, "x");
    row(c, SL_ROW_DELETE, 2, NULL);
    row(c, SL_ROW_UPDATE_BEFORE, 3, "old");
    row(c, SL_ROW_UPDATE_AFTER, 3, "c");
    row(c, SL_ROW_INSERT, 4, "d");
    row(c, SL_ROW_DELETE, 5, NULL);
    row(c, SL_ROW_UPDATE_BEFORE, 6, "stays"); /* alone: its +U was filtered out */
    row(c, SL_ROW_INSERT, 8, "h");
    row(c, SL_ROW_UPDATE_BEFORE, 7, "six");
    row(c, SL_ROW_UPDATE_AFTER, 7, "seven");
    row(c2, SL_ROW_UPDATE_AFTER, 4, "e");
    if (sl__pg_run(conn, "BEGIN", "begin", &err) != 0 ||
        sl__pg_writer_write(w, conn, c, -1, &err) != 0 ||
        sl__pg_writer_put(w, conn, c2, -1, &err) != 0 || sl__pg_writer_finish(w, &err) != 0 ||
        sl__pg_run(conn, "COMMIT", "commit", &err) != 0)
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "pg_write_order: [%s] %s\n", err.sqlstate, err.message);
    sl_error_reset(&err);
    sl__pg_writer_free(w);
    if (conn)
        PQfinish(conn);
    sl_chunk_free(c);
    sl_chunk_free(c2);
    sl_kvlist_free(o);
    return rc;
}
