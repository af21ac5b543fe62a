/*
** fuzz_s3xml.c — libFuzzer target for what the S3 client reads from a
** server (connectors/filesystem/fs_s3.c): the XML answers of
** ListObjectsV2, ListMultipartUploads, CreateMultipartUpload and errors,
** parsed with libexpat into Sluice's structures. The input's first byte
** picks the parser, the rest is the answer. Parsing must never crash or
** read out of bounds, and what it accepts must hold together: every object
** of a listing has a key and a size >= 0, every upload a key and an id, a
** truncated listing a continuation, an error a code.
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filesystem/fs_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *xml = (const char *)data + 1;
    size_t len = size - 1;
    sl_list *out = sl_list_new();
    bool truncated = false;
    char *a = NULL, *b = NULL;
    switch (data[0] % 4) {
    case 0:
        if (sl__s3_parse_list(xml, len, out, &truncated, &a) == 0) {
            for (int i = 0; i < out->n; i++) {
                const sl__s3_obj *o = out->items[i];
                if (!o->key || o->size < 0)
                    abort();
            }
            if (truncated && !a)
                abort();
        }
        break;
    case 1:
        if (sl__s3_parse_uploads(xml, len, out, &truncated, &a, &b) == 0)
            for (int i = 0; i < out->n; i++) {
                const sl__s3_obj *o = out->items[i];
                if (!o->key || !o->upload || !o->upload[0])
                    abort();
            }
        break;
    case 2:
        if (sl__s3_parse_initiate(xml, len, &a) == 0 && (!a || !a[0]))
            abort();
        break;
    default:
        if (sl__s3_parse_error(xml, len, &a, &b) == 0 && !a)
            abort();
        break;
    }
    sl_list_free(out, sl__s3_obj_free);
    sl_free(a);
    sl_free(b);
    return 0;
}
