/*
** planner_int.h — the planner's internal interfaces: the catalog (tables and
** views in a data directory), the logical plan, the query binder that
** builds it, EXPLAIN, and the session configuration.
**
** Pipeline inside the planner: statement (parser AST) -> sl_bind_* (names,
** types, WITH options) -> sl_lp tree (immutable once built) -> EXPLAIN now,
** the physical job graph in the runtime issue.
*/
#ifndef SL_PLANNER_INT_H
#define SL_PLANNER_INT_H

#include "../connectors/sl_connector.h"
#include "../exec/sl_exec.h"
#include "../parser/sl_parser.h"
#include "sl_bind.h"
#include "sl_planner.h"

/* ------------------------------------------------------------------------
** Catalog (catalog.c).
*/
typedef struct sl_column {
    char *name;    /* column name */
    sl_type type;  /* type incl. NOT NULL */
    char *comment; /* COMMENT, or NULL */
    const sl_expr *expr; /* in sl_table.all: a computed column's expression (in def), or NULL */
    int phys;      /* in sl_table.all: its index in sl_table.cols (a ROW column's: its
                      first leaf's), -1 for a computed column */
    int nleaves;   /* in sl_table.all: how many of sl_table.cols it is (a ROW column:
                      its leaves, cols[phys .. phys + nleaves)); 1 or 0 (computed) else */
    const sl_column_def *def; /* in sl_table.all: its definition (in sl_table.def) */
    const char *meta; /* in sl_table.cols: a metadata column's key (in def), or NULL */
    bool virt;        /* ... it is VIRTUAL (read only) */
    sl_type mtype;    /* ... the key's type (the declared one when the connector is unknown),
                         with the declared column's nullability */
} sl_column;

/* A ROW column is stored flattened: its leaves are physical columns named
** by their dotted paths ("person.id", "c.f.g"), in declared order. */
typedef struct sl_table {
    char *name;                    /* table name */
    int ncols;                     /* number of physical columns (what the connector sees:
                                      metadata columns, which it fills, included) */
    sl_column *cols;               /* the physical columns */
    int nall;                      /* number of columns, computed ones included */
    sl_column *all;                /* every column in declared order (SELECT *, DESCRIBE) */
    int npk;                       /* PRIMARY KEY columns (0 = none) */
    int *pk;                       /* their indexes in cols */
    int wm_col;                    /* WATERMARK column: index in all, -1 = none */
    int npart;                     /* PARTITIONED BY columns (0 = none) */
    int *part;                     /* their indexes in cols */
    sl_stmt *def;                  /* the CREATE TABLE statement (canonical; owns options) */
    const sl_connector *connector; /* resolved 'connector' (NULL if no longer registered) */
} sl_table;

typedef struct sl_view {
    char *name;      /* view name */
    bool temporary;  /* session-scoped, never persisted */
    sl_stmt *def;    /* the CREATE VIEW statement */
} sl_view;

typedef struct sl_catalog sl_catalog;

/* Open the catalog of a data directory (see sl_engine_open for the rules). */
int sl_catalog_open(const char *data_dir, sl_catalog **out, sl_error *err);
void sl_catalog_close(sl_catalog *cat);
const sl_table *sl_catalog_table(const sl_catalog *cat, const char *name);
const sl_view *sl_catalog_view(const sl_catalog *cat, const char *name);
/* Sorted names (caller frees list and strings). */
sl_list *sl_catalog_table_names(const sl_catalog *cat);
sl_list *sl_catalog_view_names(const sl_catalog *cat);
/* Add / replace / remove, each persisted atomically before it takes effect
** in memory; on a write error the catalog is unchanged. Take ownership of
** def (freed on error). */
int sl_catalog_put_table(sl_catalog *cat, sl_stmt *def, sl_error *err);
int sl_catalog_put_view(sl_catalog *cat, sl_stmt *def, sl_error *err);
int sl_catalog_drop(sl_catalog *cat, const char *name, bool is_view, sl_error *err);
/* Put a table (def, taken) into a snapshot, over one of its name: a
** session's temporary table (never written anywhere). */
int sl_catalog_overlay_table(sl_catalog *snap, sl_stmt *def, sl_error *err);
/* Rename table from to to, in place (one write of the catalog). */
int sl_catalog_rename_table(sl_catalog *cat, const char *from, const char *to, sl_error *err);
/* Changes so far (put, drop): a different number means that something a
** bound statement may have seen changed (session_cursor.c's parse cache). */
uint64_t sl_catalog_version(const sl_catalog *cat);
/* An in-memory, read-only copy of every table and view (not locked, never
** written): what a job plans against and keeps while it runs, so that DROP
** or ALTER of a table it reads or writes never frees what it uses. Close it
** with sl_catalog_close. */
sl_catalog *sl_catalog_snapshot(const sl_catalog *cat);
/* Build the in-memory table from a CREATE TABLE statement (structure only:
** columns, key, watermark column, connector). Validation is the binder's. */
sl_table *sl_table_from_def(sl_stmt *def, sl_error *err);
/* The physical columns a CREATE TABLE declares, in order (as sl_table.cols):
** a ROW column's leaves depth first, named by their dotted paths, NOT NULL
** only when they and every enclosing ROW are; *n = how many. Free with
** sl_columns_free. */
sl_column *sl_def_phys_cols(const sl_stmt *def, int *n);
void sl_columns_free(sl_column *cols, int n);
/* Does the CREATE TABLE declare a ROW column? */
bool sl_def_has_row(const sl_stmt *def);
/* The computed column c of CREATE TABLE def bound over def's physical
** columns (column k = the k-th physical one): NULL with err set (42703 for a
** name that is not a physical column, 42803 for an aggregate, ...). */
sl_bexpr *sl_bind_computed(const sl_stmt *def, const sl_column_def *c, sl_error *err);
void sl_table_free(sl_table *t);
/* metadata.c: CREATE TABLE's checks of its METADATA columns against the
** connector's keys (0A000, 42704, 42804 at the column); INSERT's check that
** every non-VIRTUAL metadata column of t is written by its connector
** (0A000 at pos). 0 or -1 with err. */
int sl_metadata_check_def(const sl_stmt *def, sl_error *err);
int sl_metadata_check_sink(const sl_table *t, int pos, sl_error *err);
/* The plain CREATE TABLE that CREATE TABLE st ... LIKE source (st->like set)
** makes, merged as Flink merges them (table_like.c); NULL with err (42P01
** unknown source, 42809 a view, 42701 a column twice, 42P16 a key, watermark
** or option the INCLUDING strategy finds twice). */
sl_stmt *sl_table_like(const sl_catalog *cat, const sl_stmt *st, sl_error *err);
void sl_view_free(sl_view *v);

/* ------------------------------------------------------------------------
** Logical plan (plan.c).
*/
typedef enum sl_lp_kind {
    SL_LP_SCAN,      /* read a table: table */
    SL_LP_VALUES,    /* literal rows: rows */
    SL_LP_WINDOW,    /* window TVF: input + window_start, window_end, window_time */
    SL_LP_FILTER,    /* exprs[0] is the condition */
    SL_LP_PROJECT,   /* exprs are the outputs */
    SL_LP_AGGREGATE, /* group by keys (input columns), then aggs */
    SL_LP_JOIN,      /* input x right, condition exprs[0] (NULL for CROSS) */
    SL_LP_UNION,     /* UNION ALL of input and right */
    SL_LP_OVER,      /* ROW_NUMBER() OVER (PARTITION BY keys ORDER BY order): input + 1 column */
    SL_LP_SORT,      /* ORDER BY order */
    SL_LP_LIMIT,     /* LIMIT limit OFFSET offset */
    SL_LP_SINK,      /* INSERT into table; output = the table's columns */
    SL_LP_NORMALIZE, /* an upsert source's changelog made complete, by keys (the PRIMARY
                        KEY): Flink's ChangelogNormalize; output = the input's columns */
    SL_LP_EXPAND,    /* set-returning functions (srf.c): input + each function's columns;
                        keys[i] is the function (sl_srf_find) of argument exprs[i] */
    SL_LP_FUNCTION,  /* a set-returning function (bounded path): table = generate_series or
                        unnest, exprs = its constant arguments; one column */
    SL_LP_APPLY,     /* a subquery run per input row (bounded path): input + 1 column, for
                        ARRAY(subquery) the array text of its rows, for a scalar subquery
                        (join_type SL_JOIN_SINGLE) its one value: NULL for no row, 21000
                        for several; subquery names the input's columns as column nodes
                        with ival = input column + 1 */
    SL_LP_OVER_AGG,  /* aggregates OVER (PARTITION BY keys ORDER BY order[0] frame): input +
                        one column per call (aggs); over_range, over_preceding */
    SL_LP_UNNEST,    /* Flink's UNNEST (a Correlate): input + the elements of exprs[0] (an
                        ARRAY: one column; a MAP: key, value), then ORDINALITY (INT) when
                        ncols says so; one row per element, the input row's kind kept;
                        join_type SL_JOIN_LEFT: a NULL / empty one gives one NULL row;
                        exprs[1] (LEFT JOIN ... ON cond, over the output) keeps the rows
                        it holds for, the NULL row when none */
} sl_lp_kind;

#define SL_ROWTIME 1  /* sl_lp_col.rowtime: an event-time attribute */
#define SL_PROCTIME 2 /* ... a processing-time attribute */

typedef struct sl_lp_col {
    char *name;   /* output column name */
    sl_type type; /* its type */
    uint8_t rowtime; /* a time attribute: SL_ROWTIME (event time, watermarked) or
                        SL_PROCTIME (processing time, PROCTIME()); 0 = none */
} sl_lp_col;

typedef struct sl_lp_agg {
    const sl_func *fn; /* COUNT, SUM ... */
    bool distinct;     /* COUNT(DISTINCT x) */
    int arg;           /* input column, -1 for COUNT(*) */
    sl_type type;      /* result type */
    int pos;           /* byte offset of the call (runtime errors: SUM overflow) */
    char *sep;         /* LISTAGG: the separator (owned); NULL otherwise */
    int filter;        /* FILTER (WHERE ...): its BOOLEAN input column, -1 = none */
} sl_lp_agg;

typedef struct sl_lp_order {
    int col;   /* input column */
    bool desc; /* DESC */
    int nulls; /* 0 default, 1 NULLS FIRST, 2 NULLS LAST */
} sl_lp_order;

typedef struct sl_lp sl_lp;
struct sl_lp {
    sl_lp_kind kind;      /* which operator */
    int ncols;            /* output columns */
    sl_lp_col *cols;      /* output schema */
    sl_lp *input;         /* first (or only) input */
    sl_lp *right;         /* JOIN / UNION second input */
    int nexprs;           /* PROJECT outputs; FILTER/JOIN: 1 */
    sl_bexpr **exprs;     /* over the input's columns (JOIN: input ++ right) */
    int nkeys;            /* AGGREGATE group keys; OVER partition keys */
    int *keys;            /* input column indexes */
    int naggs;            /* AGGREGATE calls */
    sl_lp_agg *aggs;      /* the calls */
    int norder;           /* SORT / OVER ordering */
    sl_lp_order *order;   /* the keys */
    int64_t limit;        /* LIMIT, -1 = none */
    int64_t offset;       /* OFFSET, 0 = none */
    int join_type;        /* sl_join_type */
    char *table;          /* SCAN / SINK table name */
    const sl_connector *connector; /* SCAN / SINK connector */
    const struct sl_sysrel *sysrel; /* SCAN: a catalog relation (syscat.c), or NULL */
    sl_bexpr *watermark;  /* SCAN: watermark expression over its columns, or NULL */
    int wm_col;           /* SCAN: watermark column, -1 = none (or a computed one) */
    char *wm_name;        /* SCAN: the watermark column's name (computed or not), or NULL */
    char *meta;           /* SCAN: the metadata keys it reads, "timestamp, offset", or NULL */
    int window_fn;        /* WINDOW: sl_window_fn */
    int time_col;         /* WINDOW: input column of the descriptor */
    int64_t size_ms;      /* WINDOW: size (CUMULATE: max size) */
    int64_t slide_ms;     /* WINDOW: HOP slide / CUMULATE step; = size for TUMBLE */
    int64_t offset_ms;    /* WINDOW: offset */
    int nrows;            /* VALUES rows */
    sl_bexpr ***rows;     /* VALUES: rows[i][j], ncols each */
    int *sink_map;        /* SINK: for each table column, the input column or -1 (NULL) */
    struct sl_query *subquery; /* APPLY: the subquery (owned) */
    int pos;              /* byte offset in the statement of what made this node, or -1 */
    bool over_range;      /* OVER_AGG: a RANGE frame (else ROWS) */
    int64_t over_preceding; /* OVER_AGG: rows (ROWS) or ms (RANGE) before; -1 = UNBOUNDED */
    /* Set by sl_lp_analyze (changelog.c): */
    int changelog;        /* kinds of rows it emits: SL_CL_* bits */
    bool window_agg;      /* AGGREGATE: groups (OVER: partitions) by window_start/window_end
                             of a window TVF */
    bool merged;          /* WINDOW (SESSION): a session window aggregation above merges it */
    bool sliced;          /* WINDOW (HOP): the window aggregation above slices it (its rows
                             carry their slice of the slide, once); AGGREGATE: that
                             aggregation (changelog.c, sl__check_hop_slices) */
    int64_t rank_limit;   /* OVER: the filter rn = 1 / rn <= N above it (0 = none) */
    int64_t rank_start;   /* OVER: the filter's first rank (rn > 2, rn BETWEEN 3 AND 5; 0 = 1) */
    bool rank_number;     /* OVER: the rank is used above (besides the rank filter) */
    bool interval;        /* JOIN: an interval join of append-only inputs (joinplan.c) */
    bool window_join;     /* JOIN: a window join (joinplan.c): ltime / rtime are each side's
                             window_end column */
    bool temporal;        /* JOIN: an event-time temporal join (FOR SYSTEM_TIME AS OF):
                             ltime the left time attribute, rtime the versioned table's */
    int ltime, rtime;     /* ... its time attributes: a column of each input */
    char *lookup;         /* JOIN (temporal set): a lookup join (FOR SYSTEM_TIME AS OF a
                             processing-time attribute; the right input is the table's
                             SCAN): what EXPLAIN shows of its table ("connector=[jdbc],
                             cache=[...]"); NULL for other joins */
    int64_t lower_ns;     /* ... lower_ns <= left time - right time <= upper_ns */
    int64_t upper_ns;
    const sl_lp *cause;   /* the node that first made this stream updating, or NULL */
    bool no_before;       /* AGGREGATE, OVER (keep-last deduplication, Top-N): no consumer needs
                             its -U rows (changelog.c) */
};

/* The exec spec (exec/op_agg.c) of the AGGREGATE node agg, for a job's
** group or window aggregation and for the bounded path alike: in_types and
** aggs are new arrays (sl_lp_agg_spec_free frees them); keys and the calls'
** separators point into agg, which must outlive the spec (physical.c). */
void sl_lp_agg_spec(const sl_lp *agg, int64_t ttl_ms, sl_group_agg_spec *g);
/* The window TVF node whose window_start and window_end the AGGREGATE agg
** groups by, or NULL; the indexes into agg's keys of those columns (and of
** window_time, -1 when not grouped) go to keys[0..2] (changelog.c). */
const sl_lp *sl_lp_agg_window(const sl_lp *agg, int keys[3]);
void sl_lp_agg_spec_free(sl_group_agg_spec *g);

/* Changelog kinds a node emits (Flink's changelog modes). */
#define SL_CL_INSERT 1        /* +I */
#define SL_CL_UPDATE_BEFORE 2 /* -U */
#define SL_CL_UPDATE_AFTER 4  /* +U */
#define SL_CL_DELETE 8        /* -D */
#define SL_CL_APPEND SL_CL_INSERT
#define SL_CL_ALL (SL_CL_INSERT | SL_CL_UPDATE_BEFORE | SL_CL_UPDATE_AFTER | SL_CL_DELETE)

sl_lp *sl_lp_new(sl_lp_kind kind, sl_lp *input);
void sl_lp_free(sl_lp *lp);
/* Set the output schema (copies names). */
void sl_lp_add_col(sl_lp *lp, const char *name, sl_type type, int rowtime);
/* EXPLAIN text of a plan tree, one operator per line, indented. */
void sl_lp_explain(sl_strbuf *sb, const sl_lp *lp);

/* The columns of each table scan a plan reads (colneed.c): for every SCAN
** under root, an sl_lp_scan_need appended to scans (free each with
** sl_lp_scan_need_free); sl_lp_scan_used finds a scan's (NULL: none). A
** column not marked used is read by no operator, so its source may leave it
** NULL (sl_source_args.used). */
typedef struct sl_lp_scan_need {
    const sl_lp *scan; /* the SCAN node */
    bool *used;        /* per column of the scan */
} sl_lp_scan_need;
void sl_lp_scan_needs(const sl_lp *root, sl_list *scans);
/* need[c] set for every column c < n that expression x (NULL: none) reads. */
void sl_bexpr_mark_cols(const sl_bexpr *x, bool *need, int n);
const bool *sl_lp_scan_used(const sl_list *scans, const sl_lp *scan);
void sl_lp_scan_need_free(void *s);

/* Join planning (joinplan.c), in place: Filters over joins move into them
** and below them, a join's one-sided ON terms below it (comma joins become
** inner joins on keys). sl_lp_analyze runs it first. */
void sl_lp_plan_joins(sl_lp *root);
/* Whether JOIN node j (its inputs append-only) is an interval join: its
** condition bounds left.t - right.t from both sides for time attributes t
** of each input (l.t BETWEEN r.t - INTERVAL .. AND r.t + INTERVAL ..,
** l.t >= r.t AND l.t < r.t + INTERVAL .., l.t = r.t); sets j->interval,
** ltime, rtime, lower_ns and upper_ns. */
bool sl_lp_interval_join(sl_lp *j);
/* Whether JOIN node j (its inputs append-only) is a window join, as Flink's
** WindowJoinUtil.satisfyWindowJoin: both inputs carry the window columns of
** window TVFs (or window aggregations over them) of one definition (TUMBLE,
** HOP or CUMULATE over event time), and the condition equates both sides'
** window_start and both sides' window_end; sets j->window_join and ltime /
** rtime (the window_end columns). Otherwise it stays a regular join. */
bool sl_lp_window_join(sl_lp *j);
/* At bind time: whether JOIN node j will be planned as an interval join
** (its inputs append-only), with the AND-ed terms of the WHERE over it
** (NULL: none) that join planning moves into it or below it (comma joins);
** its output keeps both inputs' time attributes if so (Flink's
** RelTimeIndicatorConverter materializes them only for regular joins),
** else none. Nested inner joins below it are decided again the same way. */
void sl_lp_join_times(sl_lp *j, const sl_bexpr *where);
/* The window TVF node whose window column lp's column col is, following
** columns as Flink's window properties do (bare projections, filters,
** window aggregations and Top-N, a window join's preserved sides), or NULL;
** *which = 0 window_start, 1 window_end, 2 window_time (changelog.c). */
const sl_lp *sl_lp_window_col(const sl_lp *lp, int col, int *which);
/* Whether term t of a lookup join's condition (left input of nl columns)
** is a lookup key: a right column = an expression of left columns (either
** order); *rcol that column (among the right input's), *lexpr the left one. */
bool sl_lookup_key(const sl_bexpr *t, int nl, int *rcol, const sl_bexpr **lexpr);
/* Which side of a join whose left input has nl columns b reads: 0 the left
** only, 1 the right only, -1 both or no column. */
int sl_join_side(const sl_bexpr *b, int nl);
/* The AND-ed terms of b appended to terms (borrowed: pointers into b). */
void sl_bexpr_conjuncts(const sl_bexpr *b, sl_list *terms);
/* Every column reference of b moved by delta (in place). */
void sl_bexpr_shift(sl_bexpr *b, int delta);
/* The AND of terms (the bexprs are taken; the list is emptied), NULL for none. */
sl_bexpr *sl_bexpr_and_all(sl_list *terms);

/* Changelog analysis (changelog.c): which kinds of rows each node emits;
** recognizes window aggregations and ROW_NUMBER deduplication / Top-N.
** Errors: a ROW_NUMBER() not filtered by rn = 1 / rn <= N (0A000); a window
** TVF over an updating input (0A000); an updating stream into a sink that
** only appends (0A000, detail naming the node that makes it updating). */
int sl_lp_analyze(sl_lp *lp, sl_error *err);
/* The same for a plan that runs in batch mode when batch: ORDER BY and
** LIMIT give the final rows, insert-only. */
int sl_lp_analyze_mode(sl_lp *lp, bool batch, sl_error *err);
/* An analyzed OverAggregate: 1 = deduplication keeping the first row per key
** (rn = 1, ORDER BY event time ASC), 2 = keeping the last row (DESC), 0 = a
** Top-N. */
int sl_lp_dedup_kind(const sl_lp *over);
/* Follow output column col of lp down to the operator that computes it:
** through bare column references of projections and through operators that
** pass columns on unchanged. *node / *ncol receive that operator and its
** column. */
void sl_lp_origin(const sl_lp *lp, int col, const sl_lp **node, int *ncol);
/* One line describing an operator, as EXPLAIN prints it. */
void sl_lp_describe(sl_strbuf *sb, const sl_lp *lp);
/* "[I]", "[I,UB,UA]", "[I,UB,UA,D]" ... */
const char *sl_changelog_name(int changelog);

/* ------------------------------------------------------------------------
** PostgreSQL's catalog relations (syscat.c) and the bounded query path
** (bounded.c) that reads them.
*/
typedef struct sl_sysrel sl_sysrel;
/* pg_catalog / information_schema relation by name; schema NULL: pg_catalog
** (always on PostgreSQL's search path). NULL when there is none. */
const sl_sysrel *sl_sysrel_find(const char *schema, const char *name);
const char *sl_sysrel_schema(const sl_sysrel *r);
const char *sl_sysrel_name(const sl_sysrel *r);
/* Its columns (names of at most 63 bytes): the count. */
int sl_sysrel_cols(const sl_sysrel *r, char names[][64], sl_type *types, int max);
/* The stable oid of relation schema.name (see syscat.c). */
int64_t sl_sysrel_oid(const char *schema, const char *name);
/* Its rows now, from the session's catalog (caller frees). */
sl_chunk *sl_sysrel_rows(const sl_sysrel *r, sl_session *s);
/* sl_eval_env.catalog_def over session ctx: the text of the catalog function
** fn (PG_GET_INDEXDEF, PG_GET_CONSTRAINTDEF, PG_GET_VIEWDEF, COL_DESCRIPTION,
** OBJ_DESCRIPTION, PG_RELATION_IS_PUBLISHABLE...) for oid and arg; 1 or 0 (NULL). */
int sl_sysrel_def(void *ctx, int fn, int64_t oid, int64_t arg, sl_strbuf *out);

/* Whether plan reads a catalog relation or calls a set-returning function:
** such a query runs on the bounded path (sl_bounded_run), not as a job. */
bool sl_lp_reads_sysrel(const sl_lp *lp);
/* Run a bounded query plan to its end into out: scans of catalog relations,
** VALUES, filters, projections, joins, sorts and limits, each node's rows
** materialized; 0A000 for other operators. 0, or -1 with err. */
int sl_bounded_run(sl_session *s, const sl_lp *lp, const sl_result_sink *out, sl_error *err);

/* ------------------------------------------------------------------------
** Set-returning functions of a select list (srf.c), run by the bounded path.
*/
/* sl_srf_find (sl_bind.h): the function's id by name. */
const char *sl_srf_name(int id);
/* Its result columns (at most 4): names and types; the count. */
int sl_srf_cols(int id, const char **names, sl_type *types);
/* Its rows for the argument in column col, row r of args (a chunk of the
** function's columns, caller frees), or NULL with err (pos: the call). */
sl_chunk *sl_srf_rows(int id, const sl_chunk *args, int col, int r, int pos, sl_error *err);

/* ------------------------------------------------------------------------
** Physical planning (physical.c): a logical plan -> a job the runtime runs:
** one scan, then filters, projections, window TVFs, window and group
** aggregations and deduplications, into a sink (INSERT) or into the caller's
** result (a query). Joins, unions, Top-N and sorts are refused (0A000) until
** the runtime runs them.
*/
typedef struct sl_physical sl_physical;

/* ------------------------------------------------------------------------
** The guarantee resolver (guarantee.c, DESIGN.md section 6).
*/
typedef struct sl_gsource {
    const char *table;             /* a table the sink's rows come from */
    const sl_connector *connector; /* its connector */
} sl_gsource;

typedef struct sl_gsink {
    const char *table;             /* the sink table */
    const sl_connector *connector; /* its connector */
    const sl_kvlist *options;      /* its WITH options */
    int pos;                       /* the INSERT's position, for errors */
    bool updating;                 /* its input is an updating changelog */
    bool has_pk;                   /* the table declares a PRIMARY KEY */
    int nsources;                  /* sources feeding it */
    const sl_gsource *sources;     /* them */
} sl_gsink;

typedef struct sl_gjob {
    int64_t interval_ms;           /* checkpoint interval; 0 = checkpointing off */
    const char *policy;            /* the session's 'sink.guarantee-fallback' */
    int nsinks;                    /* sinks of the job (a statement set has several) */
    const sl_gsink *sinks;         /* them */
    int nothers;                   /* the catalog's other tables (unique transactional */
    const char *const *other_names;   /* id prefixes, rule 7): their names */
    const sl_kvlist *const *other_options; /* and WITH options */
    int64_t probe_timeout_ms;      /* bound of each live probe; 0 = 5 s */
    bool explain;                  /* for EXPLAIN: a refusal by the policy is marked in
                                      the result (refused), not an error */
} sl_gjob;

typedef struct sl_gresult {
    sl_guarantee requested;        /* asked for, or the connector's default */
    bool explicit_req;             /* 'sink.delivery-guarantee' was given */
    sl_guarantee effective;        /* what the job delivers */
    sl_sink_mechanism mech;        /* how (none when effective is none) */
    bool downgraded;               /* lower than asked, allowed by the fallback policy */
    bool refused;                  /* lower than asked and the policy is 'error' (EXPLAIN) */
    sl_list *reasons;              /* why it is lower than requested (internal records) */
    char *note;                    /* e.g. upserts: the final state is exactly-once; or NULL */
    char *readers;                 /* what downstream readers must do, or NULL */
} sl_gresult;

/* Resolve every sink of a job into out[nsinks]. Warnings of downgrades and
** of connector defaults lowered (char*, caller frees) are appended to
** warnings (may be NULL). 0, or -1
** with err: a requested guarantee not achievable under the 'error' policy,
** an updating input into a sink that cannot take it, a transactional id
** prefix used by another table. */
int sl_guarantee_resolve(const sl_gjob *job, sl_gresult *out, sl_list *warnings, sl_error *err);
void sl_gresult_clear(sl_gresult *r);
/* The Guarantees section of EXPLAIN: sources, checkpointing, every sink
** (requested, effective, mechanism, commit role, reasons, readers), the
** commit group. */
void sl_guarantee_explain(sl_strbuf *sb, const sl_gjob *job, const sl_gresult *res);
/* Append docs/GUARANTEES.md: the rules, every connector's capabilities and
** what the resolver gives each sink (test_planner_guarantee checks the
** checked-in file). */
void sl_guarantees_markdown(sl_strbuf *out);
/* One line per sink for SHOW JOBS: "exactly-once", "at-least-once
** (requested exactly-once)" or, for a connector default lowered, "none
** (default exactly-once)". Caller frees. */
char *sl_guarantee_summary(const sl_gresult *r);

/* ------------------------------------------------------------------------
** Side outputs (side.c): tables receiving the rows operators set aside
** (late rows, deduplication conflicts) in the canonical layout of their
** kind (exec/sl_exec.h), named by a job setting.
*/
typedef struct sl_side_kind {
    const char *option;        /* the setting naming its table ('table.exec.late-rows.table') */
    const char *what;          /* for messages: "late rows" */
    int ncols;                 /* canonical columns */
    const char *const *names;  /* their names */
    void (*types)(sl_type *);  /* their types (fills ncols) */
} sl_side_kind;

extern const sl_side_kind sl_side_late; /* late rows (sl_late_names) */
extern const sl_side_kind sl_side_conflicts; /* deduplication conflicts (sl_dedup_conflict_names) */

#define SL_SIDE_MAX 4 /* side tables of one job (one per kind) */

/* A side table the job writes: which kind, the table, and what the
** guarantee resolver decided for it (a sink of the job like the others). */
typedef struct sl_side_table {
    const sl_side_kind *kind;  /* its kind */
    const char *table;         /* its name (the setting's value) */
    sl_guarantee guarantee;    /* the effective guarantee (none for EXPLAIN) */
    sl_sink_mechanism mech;    /* how */
} sl_side_table;

/* Resolve table (of the catalog, temporary tables included) as the side
** table of kind: every column of it must be one of the kind's by name (any
** subset, any order; 42703 naming the column and the accepted names) and
** of its type or one holding it unchanged (a STRING as any VARCHAR, a
** TIMESTAMP(3) as TIMESTAMP(p >= 3); else 42804); its connector must be
** writable (0A000). *out: the sink spec with guarantee g (participant: not
** yet; the physical plan joins it to the job's), owned by the caller
** (sl_side_spec_free). 42P01 when there is no such table. */
int sl_side_resolve(const sl_catalog *cat, const sl_side_kind *kind, const char *table,
                    sl_guarantee g, sl_side_spec **out, sl_error *err);
void sl_side_spec_free(sl_side_spec *sp);

typedef struct sl_physical_opts {
    const char *job_name;           /* the job's identity */
    const char *data_dir;           /* checkpoints; NULL for a query's job */
    int64_t interval_ms;            /* checkpoint interval; 0 = only at the end */
    int64_t state_ttl_ms;           /* 'table.exec.state.ttl'; 0 = forever */
    int parallelism;                /* 'parallelism.default' (>= 1) */
    int64_t idle_timeout_ms;        /* 'table.exec.source.idle-timeout'; 0 = never idle */
    sl_length_enforcer length_enforcer; /* 'table.exec.sink.type-length-enforcer' */
    sl_sink_create_fn result_sink;  /* for a query: where its rows go */
    void *result_ctx;               /* passed to result_sink in sl_sink_args.ctx */
    /* Per root: the effective guarantee the resolver decided for its sink
    ** (sl_sink_args.guarantee); NULL = none for every sink (EXPLAIN). The
    ** exactly-once sinks of a transactional connector on one cluster share
    ** a participant (at most one last resource, by rule 5). */
    const sl_guarantee *guarantees;
    /* Per root: the mechanism the resolver chose (sl_gresult.mech: a probe
    ** may choose the last-resource role for a database); NULL = each
    ** connector's declared one. */
    const sl_sink_mechanism *mechs;
    bool batch;                     /* 'execution.runtime-mode' batch: ORDER BY / LIMIT
                                       wait for the end of the input */
    int nsides;                     /* the side tables the job writes (sl__side_plan) */
    const sl_side_table *sides;     /* them */
    sl_state_backend backend;       /* 'state.backend.type' and its settings */
    bool reuse_source;              /* 'table.optimizer.reuse-source-enabled': scans of one
                                       table with the same watermark read one source
                                       (sl_input_spec.shares) */
    bool reuse_subplan;             /* 'table.optimizer.reuse-sub-plan-enabled': a node
                                       computing what another does forks from that one's
                                       stage (sl_stage_spec.fork) */
    const char *checkpoint_dir;     /* 'execution.checkpointing.dir' (sl_job_spec's); NULL =
                                       the data directory */
    const sl_kvlist *storage_opts;  /* the settings its storage is opened with */
} sl_physical_opts;

/* root: a SINK (INSERT) or the top of a query. The plan and catalog must
** outlive the returned job. */
int sl_physical_build(const sl_lp *root, const sl_catalog *cat, const sl_physical_opts *o,
                      sl_physical **out, sl_error *err);
/* A statement set: one job with a pipeline per root (each INSERT's SINK),
** checkpointed and committed together. */
int sl_physical_build_set(const sl_lp *const *roots, int n, const sl_catalog *cat,
                          const sl_physical_opts *o, sl_physical **out, sl_error *err);
/* THE resolution of a side output for an operator being planned (late
** rows, deduplication conflicts: every kind calls it): the side table
** o->sides names for kind, resolved once per job (sl_side_resolve) with the
** guarantee the resolver decided, and joined to the job's participants
** (its commit group) exactly as a statement set's sink. *out: the spec to
** put in the operator's step (sl_step_spec.side), owned by p; NULL when the
** job has no table of that kind. n: the operator's plan node. 0, or 1 (with
** *out NULL) when a twin of n (the same plan, in another INSERT of a
** statement set) writes that kind already, or -1 with err. */
int sl__side_plan(sl_physical *p, const sl_side_kind *kind, const sl_lp *n,
                  const sl_side_spec **out, sl_error *err);
/* The job to run; owned by p (fill the callbacks before running). */
sl_job_spec *sl_physical_spec(sl_physical *p);
/* The time zone the job runs with (sl_job_spec.tz); p takes tz (NULL = UTC). */
void sl_physical_set_tz(sl_physical *p, sl_tz *tz);
/* The "== Physical Plan ==" lines of EXPLAIN: the inputs with their chained
** steps, each exchange and stage, the sink, with their parallelism. */
void sl_physical_explain(sl_strbuf *sb, const sl_physical *p);
/* The job graph as JSON (EXPLAIN JSON_EXECUTION_PLAN, explain_json.c); the caller frees it. */
char *sl_physical_json(sl_physical *p);
void sl_physical_free(sl_physical *p);

/* ------------------------------------------------------------------------
** Binding statements (bind.c).
*/
typedef struct sl_binder {
    const sl_catalog *cat;  /* permanent objects */
    const sl_list *tviews;  /* the session's temporary views (sl_view*) */
    sl_error *err;          /* first error */
    int depth;              /* view expansion depth (cycles) */
    sl_bind_params *params; /* the statement's $n (sl_bind_params), or NULL */
    sl_list *applies;       /* ARRAY(subquery)s of the SELECT being bound (bind.c), or NULL */
} sl_binder;

/* Validate a CREATE TABLE statement: columns unique, types valid, key and
** watermark columns exist, watermark expression typed TIMESTAMP, WITH
** options valid for the connector. */
int sl_bind_create_table(sl_binder *b, const sl_stmt *s);
/* A copy of an APPLY's subquery with its outer references made values:
** CAST('text' AS type) of vals[c], or NULL (vals NULL: every one NULL). */
struct sl_query *sl_bind_apply_query(const struct sl_query *sub, const sl_type *types,
                                     const char *const *vals);
/* Bind a query into a logical plan. */
sl_lp *sl_bind_query(sl_binder *b, const sl_query *q);
/* Bind an INSERT into SINK(plan). */
sl_lp *sl_bind_insert(sl_binder *b, const sl_stmt *s);
/* Find a table or view by name (temporary views first). */
const sl_view *sl_binder_view(const sl_binder *b, const char *name);

/* ------------------------------------------------------------------------
** Session configuration (config.c): the keys SET accepts, with types.
*/
/* A configuration key is declared like a connector option (sl_option_spec),
** and its value is checked by the same code (sl_option_check_value). */
typedef sl_option_spec sl_config_key;

const sl_config_key *sl_config_find(const char *key);
const sl_config_key *sl_config_keys(int *n);
/* The declaration of a key being read for its value (see config.c:
** every declared key must have a reader); the key must be declared. */
const sl_config_key *sl_config_read(const char *key);
/* Whether sl_config_read has seen key in this process (tests). */
bool sl_config_was_read(const char *key);
/* Validate key and value for SET; errors point at key_pos / value_pos. */
int sl_config_check(const char *key, const char *value, int key_pos, int value_pos, sl_error *err);

#endif /* SL_PLANNER_INT_H */
