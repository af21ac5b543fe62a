/*
** fuzz_tzif.c — libFuzzer target for the TZif reader (base/sl_tz.c): a time
** zone file comes from outside the engine, so no length in it is trusted.
** The input is the whole file, copied into a buffer of exactly its size so
** ASan catches any read past it. For any bytes: sl_tz_parse_tzif returns 0
** with a zone, or -1 with XX001 / 22023 and a message naming the zone; a
** zone that parsed answers offsets (within +-26 h) and both conversions at
** instants across the whole range without failing outside the int64 range
** limits. Any violation abort()s.
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_time.h"
#include "sl_tz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (size)
        memcpy(copy, data, size);
    sl_tz *tz = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_tz_parse_tzif(copy, size, "fuzz", &tz, &err);
    if (rc != 0) {
        if (tz || !err.message || !strstr(err.message, "fuzz") ||
            (strcmp(err.sqlstate, "XX001") != 0 && strcmp(err.sqlstate, "22023") != 0))
            abort();
    } else {
        if (!tz)
            abort();
        static const int64_t secs[] = {INT64_MIN / SL_NANOS_PER_SEC, -2208988800LL, -1, 0, 1,
                                       1700000000LL, 2145916800LL, 4102444800LL,
                                       INT64_MAX / SL_NANOS_PER_SEC};
        for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
            int32_t off = sl_tz_offset(tz, secs[i]);
            if (off <= -93600 || off >= 93600)
                abort();
            int64_t ns = secs[i] * SL_NANOS_PER_SEC, local, back;
            bool inner = secs[i] > -9000000000LL && secs[i] < 9000000000LL;
            if (sl_tz_to_local(tz, ns, &local) != 0) {
                if (inner)
                    abort();
                continue;
            }
            if (sl_tz_from_local(tz, local, &back) != 0 && inner)
                abort();
        }
        sl_tz_free(tz);
    }
    sl_error_reset(&err);
    free(copy);
    return 0;
}
