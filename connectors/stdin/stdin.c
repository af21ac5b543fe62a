/*
** stdin.c — the 'stdin' connector: each line of the process's standard
** input is one record, decoded with the table's format.
**
** This file holds the declaration; the source, the line reader and the
** claim on standard input are in stdin_source.c. The connector has no
** options of its own: 'format' and that format's options (including
** '<format>.ignore-parse-errors'). It is a source only, and not replayable:
** standard input cannot be rewound, so a job restored from a checkpoint
** continues with whatever standard input delivers next, and the sinks of a
** job reading it can give at most the guarantee 'none'.
*/
#include "stdin_int.h"

const sl_connector sl__connector_stdin = {
    .name = "stdin",
    .description = "Lines of standard input, one record each, in one of the formats.",
    .options = NULL,
    .noptions = 0,
    .has_format = true,
    .caps = {
        .source = true,
        .sink = false,
        .source_replayable = false,
        .source_bound = SL_BOUND_ALWAYS, /* ends with its input */
        .sink_max = SL_GUARANTEE_NONE,
        .sink_mech = SL_MECH_NONE,
        .sink_updates = false,
        .sink_default = SL_GUARANTEE_NONE,
    },
    .check = NULL,
    .create_source = sl__stdin_source_create,
    .create_sink = NULL,
};
