/*
** sl_test.h — a minimal unit-test harness. Each test file is one process
** (one ctest test); CHECK records a failure and goes on, REQUIRE stops the
** current test function. main() runs the listed tests and prints
** "N passed, N failed"; the exit status is non-zero on any failure.
**
**   static void t_thing(void) { CHECK(1 + 1 == 2); CHECK_STR(a, "b"); }
**   SL_TESTS(t_thing, t_other)
*/
#ifndef SL_TEST_H
#define SL_TEST_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_base.h" /* sl_strbuf (sl_t_lines_without) */

static volatile int sl_t_failed_checks;
static volatile int sl_t_cur_failed;
static jmp_buf sl_t_jmp;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
            sl_t_failed_checks++;                                                      \
            sl_t_cur_failed = 1;                                                       \
        }                                                                              \
    } while (0)

#define REQUIRE(cond)                                                                  \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
            sl_t_failed_checks++;                                                      \
            sl_t_cur_failed = 1;                                                       \
            longjmp(sl_t_jmp, 1);                                                      \
        }                                                                              \
    } while (0)

#define CHECK_STR(a, b)                                                                \
    do {                                                                               \
        const char *sl_t_a = (a), *sl_t_b = (b);                                       \
        if (!sl_t_a || !sl_t_b || strcmp(sl_t_a, sl_t_b) != 0) {                       \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s\n  got:      %s\n  expected: %s\n", \
                    __FILE__, __LINE__, #a, sl_t_a ? sl_t_a : "(null)",                \
                    sl_t_b ? sl_t_b : "(null)");                                        \
            sl_t_failed_checks++;                                                      \
            sl_t_cur_failed = 1;                                                       \
        }                                                                              \
    } while (0)

#define CHECK_INT(a, b)                                                                \
    do {                                                                               \
        long long sl_t_a = (long long)(a), sl_t_b = (long long)(b);                    \
        if (sl_t_a != sl_t_b) {                                                        \
            fprintf(stderr, "%s:%d: CHECK_INT failed: %s == %lld, expected %lld\n",     \
                    __FILE__, __LINE__, #a, sl_t_a, sl_t_b);                            \
            sl_t_failed_checks++;                                                      \
            sl_t_cur_failed = 1;                                                       \
        }                                                                              \
    } while (0)

typedef struct sl_t_case {
    const char *name;
    void (*fn)(void);
} sl_t_case;

static int sl_t_run(const sl_t_case *cases, int n)
{
    /* volatile: these live across setjmp/longjmp. */
    volatile int passed = 0, failed = 0;
    for (volatile int i = 0; i < n; i++) {
        sl_t_cur_failed = 0;
        if (setjmp(sl_t_jmp) == 0)
            cases[i].fn();
        if (sl_t_cur_failed) {
            failed++;
            fprintf(stderr, "FAIL %s\n", cases[i].name);
        } else {
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* Append to out the lines of text that do not start with prefix (the rows
** of an operator's output but for one kind: "-U"). */
static inline void sl_t_lines_without(sl_strbuf *out, const char *text, const char *prefix)
{
    size_t pl = strlen(prefix);
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) + 1 : strlen(l);
        if (strncmp(l, prefix, pl) != 0)
            sl_strbuf_append_n(out, l, n);
        l += n;
    }
}

/* SL_TESTS(a, b, c): up to 256 tests. */
#define SL_TESTS(...)                                                                  \
    int main(void)                                                                     \
    {                                                                                  \
        void (*fns[])(void) = {__VA_ARGS__};                                           \
        const char *names = #__VA_ARGS__;                                              \
        sl_t_case cases[sizeof(fns) / sizeof(fns[0])];                                 \
        char buf[4096];                                                                \
        strncpy(buf, names, sizeof(buf) - 1);                                          \
        buf[sizeof(buf) - 1] = 0;                                                      \
        char *save = NULL, *tok = strtok_r(buf, ", \n\t", &save);                      \
        static char namestore[256][128];                                                \
        for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {                    \
            snprintf(namestore[i % 256], 128, "%s", tok ? tok : "?");                   \
            cases[i].name = namestore[i % 256];                                         \
            cases[i].fn = fns[i];                                                      \
            tok = strtok_r(NULL, ", \n\t", &save);                                     \
        }                                                                              \
        return sl_t_run(cases, (int)(sizeof(fns) / sizeof(fns[0])));                   \
    }

#endif /* SL_TEST_H */
