/*
** print.h — the runtime side of the 'print' connector (print.c): a test
** hook that redirects a print sink's output, and the writer that takes
** every print sink's lines (the interactive shell's).
*/
#ifndef SL_PRINT_H
#define SL_PRINT_H

#include <stdio.h>

#include "../sl_connector.h"

/* Write s's rows to f instead of standard output / standard error (f stays
** the caller's: the sink flushes it but never closes it). s must be a print
** sink. */
void sl_print_set_output(sl_sink *s, FILE *f);

/* Where print sinks writing to standard output / standard error send their
** lines instead, process-wide (the interactive shell: above its prompt);
** text[0..len) is whole lines. NULL (the default): the stream itself. Set
** it while no job runs. */
typedef void (*sl_print_writer_fn)(void *ctx, bool to_stderr, const char *text, size_t len);
void sl_print_set_writer(sl_print_writer_fn fn, void *ctx);

#endif /* SL_PRINT_H */
