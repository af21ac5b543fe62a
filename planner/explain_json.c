/*
** explain_json.c — EXPLAIN JSON_EXECUTION_PLAN: the job graph of a physical
** plan as JSON, in the shape of Flink's JSON execution plan: {"nodes": [{"id",
** "type", "pact", "contents", "parallelism", "predecessors": [{"id",
** "ship_strategy", "side"}]}]}. One node per source (with the steps chained
** to it), per stage after an exchange and per sink; a statement set's
** pipelines follow each other in one list.
**
** Main routine: sl_physical_json.
*/
#include "planner_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *sl__steps_text(const char *head, const sl_step_spec *steps, int n)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, head);
    for (int i = 0; i < n; i++)
        sl_strbuf_appendf(&sb, " -> %s", sl_step_name(&steps[i]));
    return sl_strbuf_detach(&sb);
}

static json_t *sl__node(int id, const char *type, const char *pact, char *contents, int par)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(id));
    json_object_set_new(o, "type", json_string(type));
    json_object_set_new(o, "pact", json_string(pact));
    json_object_set_new(o, "contents", json_string(contents));
    json_object_set_new(o, "parallelism", json_integer(par));
    json_object_set_new(o, "predecessors", json_array());
    sl_free(contents);
    return o;
}

static void sl__edge(json_t *node, int from, const char *strategy)
{
    json_t *e = json_object();
    json_object_set_new(e, "id", json_integer(from));
    json_object_set_new(e, "ship_strategy", json_string(strategy));
    json_object_set_new(e, "side", json_string("second"));
    json_array_append_new(json_object_get(node, "predecessors"), e);
}

/* Append one pipeline's nodes, numbered from *next. */
static void sl__graph_json(json_t *nodes, const sl_job_spec *spec, int *next)
{
    int first_input = *next;
    int first_stage = first_input + spec->ninputs;
    for (int i = 0; i < spec->ninputs; i++) {
        const sl_input_spec *in = &spec->inputs[i];
        char *head = sl_sprintf("Source: %s", in->source_args.table);
        char *contents = sl__steps_text(head, in->steps, in->nsteps);
        json_array_append_new(nodes, sl__node(first_input + i, head, "Data Source", contents,
                                              spec->parallelism));
        sl_free(head);
    }
    for (int g = 0; g < spec->nstages; g++) {
        const sl_stage_spec *st = &spec->stages[g];
        const char *head = st->fork ? "Reuse" : "Exchange"; /* a fork: sub-plan reuse */
        char *contents = sl__steps_text(head, st->steps, st->nsteps);
        json_t *node = sl__node(first_stage + g, head, "Operator", contents, st->parallelism);
        if (st->fork) { /* the rows of a step of its owner's chain (sub-plan reuse) */
            sl__edge(node, first_stage + st->fork - 1, "FORWARD");
            json_array_append_new(nodes, node);
            continue;
        }
        sl_strbuf strat = SL_STRBUF_INIT;
        if (st->exchange == SL_EXCHANGE_HASH) {
            sl_strbuf_append(&strat, "HASH[");
            for (int k = 0; k < st->nkeys; k++)
                sl_strbuf_appendf(&strat, "%s$%d", k ? ", " : "", st->keys[k]);
            sl_strbuf_append(&strat, "]");
        } else {
            sl_strbuf_append(&strat, "GLOBAL");
        }
        /* An input or earlier stage feeds stage g when its `to` names it
        ** (1-based), or, without one, when g is the next layer. */
        for (int i = 0; i < spec->ninputs; i++)
            if (spec->inputs[i].to ? spec->inputs[i].to == g + 1 : g == 0)
                sl__edge(node, first_input + i, sl_strbuf_cstr(&strat));
        for (int h = 0; h < g; h++)
            if (spec->stages[h].to ? spec->stages[h].to == g + 1 : h == g - 1)
                sl__edge(node, first_stage + h, sl_strbuf_cstr(&strat));
        sl_strbuf_free(&strat);
        json_array_append_new(nodes, node);
    }
    int sink_id = first_stage + spec->nstages;
    int last = spec->nstages ? spec->stages[spec->nstages - 1].parallelism
                             : spec->parallelism * spec->ninputs;
    char *type = spec->sink_args.table ? sl_sprintf("Sink: %s", spec->sink_args.table)
                                       : sl_strdup("Sink: the query's result");
    json_t *sink = sl__node(sink_id, type, "Data Sink", sl_strdup(type), last);
    sl_free(type);
    if (spec->nstages) {
        sl__edge(sink, sink_id - 1, "FORWARD");
    } else {
        for (int i = 0; i < spec->ninputs; i++)
            sl__edge(sink, first_input + i, "FORWARD");
    }
    json_array_append_new(nodes, sink);
    *next = sink_id + 1;
}

char *sl_physical_json(sl_physical *p)
{
    const sl_job_spec *spec = sl_physical_spec(p);
    json_t *nodes = json_array();
    int next = 1;
    sl__graph_json(nodes, spec, &next);
    for (int i = 0; i < spec->nextra; i++)
        sl__graph_json(nodes, &spec->extra[i], &next);
    json_t *root = json_object();
    json_object_set_new(root, "nodes", nodes);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    char *out = sl_strdup(text ? text : "{}");
    free(text);
    return out;
}
