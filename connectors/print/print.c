/*
** print.c — the 'print' connector: a sink that prints every row of the
** changelog (with its row kind, +I/-U/+U/-D) to standard output or standard
** error (Flink's Print connector and option names).
**
** Declaration only. Printing has no commit protocol: guarantee none.
*/
#include "../sl_connector_int.h"

static const sl_option_spec sl__print_options[] = {
    {.key = "print-identifier", .type = SL_OPT_STRING,
     .description = "A prefix printed before every row."},
    {.key = "standard-error", .type = SL_OPT_BOOL, .default_value = "false",
     .description = "Print to standard error instead of standard output."},
};

const sl_connector sl__connector_print = {
    .name = "print",
    .description = "Prints every row of the changelog to standard output or standard error.",
    .options = sl__print_options,
    .noptions = (int)SL_ARRAY_LEN(sl__print_options),
    .has_format = false,
    .caps = {
        .source = false,
        .sink = true,
        .source_replayable = false,
        .sink_max = SL_GUARANTEE_NONE,
        .sink_mech = SL_MECH_NONE,
        .sink_updates = true,
        .sink_default = SL_GUARANTEE_NONE,
    },
    .check = NULL,
};
