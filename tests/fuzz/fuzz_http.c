/*
** fuzz_http.c — libFuzzer target for the web page's HTTP request reader
** (server/web.c: sl_http_head_end, sl_http_parse) without sockets: the
** input is what a client sent, cut at SL_WEB_MAX_HEAD bytes as the server
** reads it. Parsing must never crash or read out of bounds, and what it
** decides must hold: a request it accepts has a path that starts with '/'
** and fits, one it refuses has one of the statuses web.c documents and a
** reason.
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sl__check(const char *buf, size_t len)
{
    sl_http_req r;
    memset(&r, 0, sizeof r);
    int st = sl_http_parse(buf, len, &r);
    if (st == 0) {
        if (r.path[0] != '/' || strlen(r.path) > SL_WEB_MAX_TARGET)
            abort();
    } else if ((st != 400 && st != 405 && st != 413 && st != 414 && st != 505) || !r.why) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > SL_WEB_MAX_HEAD)
        size = SL_WEB_MAX_HEAD;
    /* A copy of exactly size bytes: reading past it is an ASan report. */
    char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    size_t end = sl_http_head_end(buf, size);
    if (end > size)
        abort();
    if (end)
        sl__check(buf, end);
    sl__check(buf, size); /* (a head without its blank line, too) */
    free(buf);
    return 0;
}
