/*
** print.h — the runtime side of the 'print' connector (print.c): a test
** hook that redirects a print sink's output.
*/
#ifndef SL_PRINT_H
#define SL_PRINT_H

#include <stdio.h>

#include "../sl_connector.h"

/* Write s's rows to f instead of standard output / standard error (f stays
** the caller's: the sink flushes it but never closes it). s must be a print
** sink. */
void sl_print_set_output(sl_sink *s, FILE *f);

#endif /* SL_PRINT_H */
