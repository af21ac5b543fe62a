/*
** bench_parser.c — SQL front-end throughput, as a ratio to a ceiling.
**
** Ceiling: the tokenizer alone over the same text (parsing cannot be faster
** than scanning every token once). Measured: sl_parse of the whole text into
** ASTs and freeing them. Reports MB/s and statements/s of both and the
** ratio parse/ceiling. Also the printer (AST -> canonical SQL) for scale.
**
**   build/release/bench/bench_parser [seconds-per-measure]
*/
#include "sl_parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const sl__stmts[] = {
    "CREATE TABLE clicks (event_id BIGINT NOT NULL COMMENT 'id', campaign_id STRING, "
    "amount DECIMAL(10, 2), ts TIMESTAMP(3), PRIMARY KEY (event_id) NOT ENFORCED, "
    "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'kafka', "
    "'topic' = 'clicks', 'format' = 'json', 'properties.bootstrap.servers' = 'localhost:9092');",
    "INSERT INTO spend SELECT window_start, window_end, campaign_id, COUNT(*) AS clicks, "
    "SUM(amount) AS spend FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
    "GROUP BY window_start, window_end, campaign_id;",
    "SELECT id, campaign FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) "
    "AS rn FROM clicks) WHERE rn = 1 AND campaign LIKE 'a%' AND amount BETWEEN 1 AND 10;",
    "SELECT CASE WHEN amount IS NULL THEN 0 ELSE amount * 2 + 1 END, CAST(id AS STRING), "
    "COALESCE(campaign, 'none'), UPPER(SUBSTRING(campaign, 1, 3)) FROM clicks c "
    "LEFT JOIN users u ON c.id = u.id WHERE c.id IN (1, 2, 3, 4, 5) ORDER BY 1 LIMIT 10;",
    "SET 'execution.checkpointing.interval' = '10 s';",
};

static double sl__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Scan every token of text; returns the token count (kept so it is not
** optimized away). */
static long sl__tokenize_all(const char *text, size_t len)
{
    long n = 0;
    size_t off = 0;
    sl_token tok;
    for (;;) {
        sl_tokenize_next(text, len, off, &tok);
        if (tok.type == SL_TK_EOF || tok.len <= 0)
            break;
        off = (size_t)tok.pos + (size_t)tok.len;
        n++;
    }
    return n;
}

static long sl__parse_all(const char *text, size_t len)
{
    sl_list *out = sl_list_new();
    sl_error err = SL_ERROR_INIT;
    if (sl_parse(text, len, out, &err) != 0) {
        fprintf(stderr, "bench_parser: parse failed: %s\n", err.message);
        exit(1);
    }
    long n = out->n;
    sl_list_free(out, sl_stmt_free_v);
    return n;
}

static long sl__print_all(const char *text, size_t len)
{
    sl_list *out = sl_list_new();
    sl_error err = SL_ERROR_INIT;
    if (sl_parse(text, len, out, &err) != 0)
        exit(1);
    long bytes = 0;
    for (int i = 0; i < out->n; i++) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_stmt_print(&sb, out->items[i], NULL, NULL);
        bytes += (long)sb.len;
        sl_strbuf_free(&sb);
    }
    sl_list_free(out, sl_stmt_free_v);
    return bytes;
}

typedef long (*sl__fn)(const char *, size_t);

/* Run fn repeatedly for about secs seconds; returns iterations per second. */
static double sl__measure(sl__fn fn, const char *text, size_t len, double secs, long *sink)
{
    long iters = 0;
    double t0 = sl__now(), t;
    do {
        *sink += fn(text, len);
        iters++;
        t = sl__now();
    } while (t - t0 < secs);
    return (double)iters / (t - t0);
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 2.0;
    sl_strbuf sb = SL_STRBUF_INIT;
    int nstmts = 0;
    for (int rep = 0; rep < 200; rep++)
        for (size_t i = 0; i < SL_ARRAY_LEN(sl__stmts); i++, nstmts++) {
            sl_strbuf_append(&sb, sl__stmts[i]);
            sl_strbuf_append_char(&sb, '\n');
        }
    long sink = 0;
    double mb = (double)sb.len / 1e6;
    double tok = sl__measure(sl__tokenize_all, sb.buf, sb.len, secs, &sink);
    double parse = sl__measure(sl__parse_all, sb.buf, sb.len, secs, &sink);
    double print = sl__measure(sl__print_all, sb.buf, sb.len, secs, &sink);
    printf("input: %d statements, %.1f KB\n", nstmts, (double)sb.len / 1e3);
    printf("tokenize (ceiling): %8.1f MB/s %10.0f stmts/s\n", tok * mb, tok * nstmts);
    printf("parse + free:       %8.1f MB/s %10.0f stmts/s\n", parse * mb, parse * nstmts);
    printf("parse + print:      %8.1f MB/s %10.0f stmts/s\n", print * mb, print * nstmts);
    printf("ratio parse/ceiling: %.3f\n", parse / tok);
    sl_strbuf_free(&sb);
    return sink == 42 ? 1 : 0;
}
