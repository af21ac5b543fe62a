/*
** sl_exec.h — the runtime: data in flight and the one expression evaluator.
**
** A chunk is a columnar batch of up to `cap` rows: one vector per column
** (values + a null byte map), a row-kind per row (+I, -U, +U, -D), and an
** arena that owns the bytes of its strings. Append-only streams carry only
** +I. Physical representations per SQL type (see also base/sl_time.h):
**
**   BOOLEAN                               uint8  (0 / 1)
**   TINYINT SMALLINT INT BIGINT           int64
**   DATE (days) TIME, TIMESTAMP[_LTZ] (ns) int64
**   INTERVAL_DT (ms) INTERVAL_YM (months) int64
**   FLOAT DOUBLE                          double (FLOAT values are rounded to float)
**   DECIMAL(p, s)                         sl_i128 scaled by 10^s (base/sl_decimal.h)
**   CHAR VARCHAR BINARY VARBINARY         sl_str {ptr, len} into the chunk's arena
**
** The evaluator (eval.c) compiles a planner sl_bexpr once (sl_eval_compile)
** and evaluates it a chunk at a time into a vector of an output chunk, with
** SQL three-valued logic and exact DECIMAL arithmetic. Runtime errors
** (division by zero, overflow, a failing CAST) carry an SQLSTATE and the
** byte position of the expression in its statement.
**
** Main routines: sl_chunk_new/free/reset, sl_chunk_append_row,
** sl_chunk_set_*, sl_eval_compile, sl_eval_into, sl_eval_filter.
*/
#ifndef SL_EXEC_H
#define SL_EXEC_H

#include "../base/sl_base.h"
#include "../base/sl_decimal.h"
#include "../base/sl_time.h"
#include "../base/sl_type.h"
#include "../base/sl_tz.h"
#include "../planner/sl_bind.h"

#include <stdatomic.h>

/* ------------------------------------------------------------------------
** Chunks (chunk.c).
*/
typedef enum sl_phys {
    SL_PHYS_BOOL, /* uint8 */
    SL_PHYS_I64,  /* int64 */
    SL_PHYS_F64,  /* double */
    SL_PHYS_I128, /* sl_i128 (DECIMAL) */
    SL_PHYS_STR,  /* sl_str */
} sl_phys;

/* The physical representation of a SQL type (SL_TYPE_NULL -> BOOL, all NULL). */
sl_phys sl_phys_of(sl_type t);
/* Bytes per value of a representation. */
size_t sl_phys_size(sl_phys p);

typedef struct sl_str {
    const char *ptr; /* bytes (not NUL-terminated), owned by a chunk's arena or static */
    uint32_t len;    /* length in bytes */
} sl_str;

typedef enum sl_row_kind {
    SL_ROW_INSERT = 0,        /* +I */
    SL_ROW_UPDATE_BEFORE = 1, /* -U */
    SL_ROW_UPDATE_AFTER = 2,  /* +U */
    SL_ROW_DELETE = 3,        /* -D */
} sl_row_kind;

/* "+I", "-U", "+U", "-D". */
const char *sl_row_kind_name(sl_row_kind k);

typedef struct sl_vector {
    sl_type type;  /* SQL type */
    sl_phys phys;  /* representation */
    uint8_t *nulls;/* nulls[i] != 0: row i is NULL (always allocated, cap bytes) */
    union {
        uint8_t *b;
        int64_t *i64;
        double *f64;
        sl_i128 *i128;
        sl_str *str;
        void *raw;
    } v;           /* values (cap entries); a NULL row's value is unspecified */
} sl_vector;

/* One value as a one-row vector with its own storage (an ARRAY / MAP
** element read or written through sl_vector_value_get / _put):
** sl_value_box_init points box->v at the box's own value and null flag,
** so the box must not move while v is in use. */
typedef struct sl_value_box {
    union {
        uint8_t b;
        int64_t i64;
        double f64;
        sl_i128 i128;
        sl_str str;
    } val;          /* the value */
    uint8_t isnull; /* its null flag */
    sl_vector v;    /* the one-row vector over them */
} sl_value_box;

static inline void sl_value_box_init(sl_value_box *x, sl_type t)
{
    x->isnull = 0;
    x->v = (sl_vector){t, sl_phys_of(t), &x->isnull, {.raw = &x->val}};
}

typedef struct sl_chunk {
    int ncols;       /* columns */
    int nrows;       /* rows in use */
    int cap;         /* rows allocated */
    sl_vector *cols; /* the columns */
    uint8_t *kinds;  /* sl_row_kind per row */
    sl_arena arena;  /* bytes of string values */
} sl_chunk;

#define SL_CHUNK_ROWS 1024 /* default capacity */

/* A chunk with ncols columns of the given types and room for cap rows. */
sl_chunk *sl_chunk_new(int ncols, const sl_type *types, int cap);
void sl_chunk_free(sl_chunk *c);
/* Empty it (nrows = 0, arena reset); keeps the memory. */
void sl_chunk_reset(sl_chunk *c);
/* Append one row of kind k with every column NULL; returns its index.
** The caller then sets the columns. Requires nrows < cap. */
int sl_chunk_append_row(sl_chunk *c, sl_row_kind k);
bool sl_chunk_full(const sl_chunk *c);
/* A producer of many rows: sl_chunk_null_tail once makes every column of
** rows nrows..cap-1 NULL, then each sl_chunk_append_nulled appends a row
** of kind k as sl_chunk_append_row does without touching its columns
** (NULL until set, as long as nothing else wrote past nrows). */
void sl_chunk_null_tail(sl_chunk *c);
static inline int sl_chunk_append_nulled(sl_chunk *c, sl_row_kind k)
{
    SL_ALWAYS(c->nrows < c->cap);
    c->kinds[c->nrows] = (uint8_t)k;
    return c->nrows++;
}

/* Setters for row r of column col (clear the NULL flag). Strings are copied
** into the chunk's arena. */
static inline void sl_chunk_set_null(sl_chunk *c, int col, int r)
{
    c->cols[col].nulls[r] = 1;
}
static inline void sl_chunk_set_bool(sl_chunk *c, int col, int r, bool v)
{
    c->cols[col].nulls[r] = 0;
    c->cols[col].v.b[r] = v ? 1 : 0;
}
static inline void sl_chunk_set_i64(sl_chunk *c, int col, int r, int64_t v)
{
    c->cols[col].nulls[r] = 0;
    c->cols[col].v.i64[r] = v;
}
static inline void sl_chunk_set_f64(sl_chunk *c, int col, int r, double v)
{
    c->cols[col].nulls[r] = 0;
    c->cols[col].v.f64[r] = v;
}
static inline void sl_chunk_set_i128(sl_chunk *c, int col, int r, sl_i128 v)
{
    c->cols[col].nulls[r] = 0;
    c->cols[col].v.i128[r] = v;
}
void sl_chunk_set_str(sl_chunk *c, int col, int r, const char *p, size_t len);
/* A string of static data (valid as long as the process, never changed),
** kept as a pointer instead of copied. */
void sl_chunk_set_str_static(sl_chunk *c, int col, int r, const char *p, size_t len);
/* Copy row r of src (all columns, its kind) to the end of dst (same types). */
int sl_chunk_copy_row(sl_chunk *dst, const sl_chunk *src, int r);
/* dst (same types, emptied first) = the rows of src whose sel[] is set,
** column by column, only the columns with cols[i] set (NULL: all; the
** others hold nothing meaningful); strings point into src's, so dst is
** valid only while src is unchanged. The number of rows. */
/* Column dcol of dst, rows 0..n-1 = column scol of src (the same
** representation) at rows[0..n-1], or its first n rows when rows is NULL;
** strings point into src's (a view, as sl_chunk_select_view). */
void sl_chunk_gather_view(sl_chunk *dst, int dcol, const sl_chunk *src, int scol, const int *rows,
                          int n);
int sl_chunk_select_view(sl_chunk *dst, const sl_chunk *src, const uint8_t *sel,
                         const bool *cols);
/* Copy rows[0..n-1] of src to the end of dst, column by column (same
** types; dst has room for n more rows). */
void sl_chunk_append_rows(sl_chunk *dst, const sl_chunk *src, const int *rows, int n);

/* Text form of one value as CAST(... AS STRING) spells it (12, 1.50, TRUE,
** 0.1 — the shortest text that reads back as the same double —,
** 2026-01-31 12:00:00.123, abc; BYTES as x'0aff'), for the shell's results.
** NULL -> appends nothing and returns false. TIMESTAMP_LTZ values are
** instants shown in UTC; sl_value_format_tz shows them as local date-times
** of tz, as CAST(... AS STRING) in a session of that time zone does. */
bool sl_value_format(sl_strbuf *sb, const sl_vector *v, int r);
bool sl_value_format_tz(sl_strbuf *sb, const sl_vector *v, int r, const sl_tz *tz);
/* The shortest decimal digits (at least min_digits) that read back as the
** finite, non-zero d (as a float when single): digits[0..n) without a
** point (room for 24), the value is 0.d1d2... * 10^(*exp + 1), *neg its
** sign; returns n. Java's text (sl_value_format) and PostgreSQL's
** (server/types.c) lay the same digits out differently. */
int sl_double_digits(double d, bool single, int min_digits, char *digits, int *exp, bool *neg);

/* ------------------------------------------------------------------------
** Expression evaluation (eval.c).
*/
typedef struct sl_eval_env {
    int64_t now_nanos; /* CURRENT_TIMESTAMP / NOW() for this evaluation (injected clock) */
    const sl_tz *tz;   /* the session's time zone (TIMESTAMP_LTZ <-> local); NULL = UTC */
    /* PostgreSQL's catalog functions that read the session's objects
    ** (PG_GET_INDEXDEF, PG_GET_CONSTRAINTDEF, PG_GET_VIEWDEF, COL_DESCRIPTION,
    ** ...; planner/syscat.c's sl_sysrel_def): the text of function fn (an
    ** sl_func_id) for oid and arg appended to out; 1 when there is one, 0 for
    ** NULL. NULL: no catalog here (those functions give NULL). */
    int (*catalog_def)(void *ctx, int fn, int64_t oid, int64_t arg, sl_strbuf *out);
    void *catalog_ctx; /* catalog_def's first argument */
} sl_eval_env;

typedef struct sl_eval_prog sl_eval_prog;

/* Compile a bound expression over an input of the given column types.
** Fails (0A000) only for a construct the evaluator does not support, naming
** it; everything the binder produces is supported. */
/* The elements of an array kept as its text '{a,"b c",NULL}' (PostgreSQL's
** array output), one per call from *at (0 to begin): false past the last.
** The element's text goes to el; *null tells an unquoted NULL. */
bool sl_array_text_next(const char *a, size_t an, size_t *at, sl_strbuf *el, bool *null);

sl_eval_prog *sl_eval_compile(const sl_bexpr *b, int ncols, const sl_type *input_types,
                              sl_error *err);
/* The same, with buffers for rows rows at first (they grow with the input):
** a one-row evaluation (SELECT without FROM) compiles with 1. */
sl_eval_prog *sl_eval_compile_rows(const sl_bexpr *b, int ncols, const sl_type *input_types,
                                   int rows, sl_error *err);
void sl_eval_free(sl_eval_prog *p);
/* Whether b is an input column plus a constant day-time interval (col,
** col + INTERVAL, INTERVAL + col, col - INTERVAL): *col and *off_ns (0 for
** the column alone). A watermark or a time bound of that shape is
** monotonic in the column. */
bool sl_bexpr_col_offset(const sl_bexpr *b, int *col, int64_t *off_ns);
/* The result type (the bexpr's). */
sl_type sl_eval_type(const sl_eval_prog *p);

/* Evaluate over every row of in, writing rows 0..in->nrows-1 of column col
** of out (out->cap >= in->nrows; out->cols[col] has the expression's type;
** strings go to out's arena). Does not change out->nrows or kinds.
** 0, or -1 with err (22012 division by zero, 22003 overflow, 22018/22007
** invalid CAST text, 2201E ...; position = the failing node's pos). */
int sl_eval_into(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, sl_chunk *out,
                 int col, sl_error *err);
/* The same, but a string result is not copied into out's arena: it points
** into in's strings, p's constants or p's evaluation arena, so out's column
** is valid only while in is unchanged and until p is evaluated again (a
** task's projection, whose output is consumed before either happens). */
int sl_eval_into_view(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, sl_chunk *out,
                      int col, sl_error *err);
/* Evaluate a BOOLEAN condition: sel[i] = 1 when row i is TRUE (NULL and
** FALSE give 0). Returns the number of selected rows, or -1 with err. */
int sl_eval_filter(sl_eval_prog *p, const sl_chunk *in, const sl_eval_env *env, uint8_t *sel,
                   sl_error *err);

/* ------------------------------------------------------------------------
** Operators over bounded inputs (op_join.c, op_sort.c): the bounded query
** path (planner/bounded.c) runs them once both inputs have ended.
*/

/* Set row drow of column dcol of dst to src's value at (scol, srow), NULL
** included (same representation). */
void sl_chunk_set_from(sl_chunk *dst, int dcol, int drow, const sl_chunk *src, int scol, int srow);

/* Whether column col holds the same value in rows a and b (NULLs equal). */
bool sl_chunk_values_equal(const sl_chunk *c, int col, int a, int b);

/* Equality keys of a join: left column left[i] = right column right[i]
** (column indexes of each side; same representation). */
typedef struct sl_join_keys {
    int n;            /* pairs (0: nested loop) */
    const int *left;  /* left side's columns */
    const int *right; /* right side's columns */
} sl_join_keys;

/* Join l and r (type: sl_join_type, INNER 0, LEFT 1, RIGHT 2, FULL 3, CROSS
** 4) into *out, whose columns are l's then r's: rows whose keys are equal
** (hash join; keys may be NULL) and for which cond (over l ++ r; NULL =
** true) is TRUE; then, for LEFT / RIGHT / FULL, the rows of a side nothing
** matched, the other side NULL. SEMI 5 / ANTI 6: each left row some / no
** right row matches, once, right side NULL. SINGLE 7: LEFT, failing with
** 21000 when a left row matches several. 0, or -1 with err (cond failed). */
int sl_join_bounded(const sl_chunk *l, const sl_chunk *r, const sl_join_keys *keys,
                    sl_eval_prog *cond, int type, const sl_eval_env *env, sl_chunk **out,
                    sl_error *err);

/* One ORDER BY key: column, direction, NULLS (0 default, 1 FIRST, 2 LAST). */
typedef struct sl_sort_key {
    int col;   /* column of the input */
    bool desc; /* DESC */
    int nulls; /* 0: last when ascending, first when descending (PostgreSQL) */
} sl_sort_key;

/* The order of in's rows: perm[0..in->nrows) (stable). */
void sl_sort_bounded(const sl_chunk *in, const sl_sort_key *keys, int nkeys, int *perm);

/* ------------------------------------------------------------------------
** Messages and channels (channel.c). A task reads messages from its input
** channel, which has one lane per upstream task, and writes to the channels
** of its downstream tasks. Lanes are bounded: a full lane blocks its sender
** (backpressure all the way to the sources).
*/
typedef enum sl_msg_kind {
    SL_MSG_CHUNK,     /* rows; the chunk's ownership moves with the message */
    SL_MSG_BARRIER,   /* checkpoint barrier: everything before belongs to checkpoint id */
    SL_MSG_WATERMARK, /* event time has advanced to watermark (ns); later rows are late */
    SL_MSG_END,       /* end of input (a bounded source is exhausted) */
    SL_MSG_IDLE,      /* the sender has had no rows for a while: leave its watermark out
                         until it sends again ('table.exec.source.idle-timeout') */
} sl_msg_kind;

typedef struct sl_msg {
    sl_msg_kind kind;      /* which */
    sl_chunk *chunk;       /* CHUNK: the rows (owned by whoever holds the message) */
    int64_t checkpoint_id; /* BARRIER: checkpoint N */
    bool savepoint;        /* BARRIER: a savepoint (kept; the job may stop after it) */
    int64_t watermark;     /* WATERMARK: event time in ns */
} sl_msg;

typedef struct sl_channel sl_channel;

/* A channel with `lanes` senders' lanes of `capacity` messages each, and one
** receiver. */
sl_channel *sl_channel_new(int lanes, int capacity);
/* Send on a lane; block while it is full. 0, or -1 when the channel was
** closed (the job is being cancelled; the message was not taken — its chunk
** stays the caller's). */
int sl_channel_send(sl_channel *ch, int lane, const sl_msg *m);
/* Wait up to timeout_ns (< 0: forever) for a message on a lane that is not
** blocked (blocked[lane] != 0; blocked may be NULL). 0 with *m and *lane
** filled, 1 on timeout or sl_channel_wake, -1 when closed. */
int sl_channel_recv(sl_channel *ch, const uint8_t *blocked, int *lane, sl_msg *m,
                    int64_t timeout_ns);
/* Make the receiver's current or next wait return 1 (a command arrived). */
void sl_channel_wake(sl_channel *ch);
/* Wake every waiter; later sends fail, receives see -1. */
void sl_channel_close(sl_channel *ch);
/* Frees queued chunks too. */
void sl_channel_free(sl_channel *ch);
/* Messages queued over all lanes. */
int sl_channel_len(sl_channel *ch);

/* ------------------------------------------------------------------------
** Sources (implemented by connectors, attached to their declaration).
*/
typedef struct sl_source sl_source;

/* What a source instance is created with. */
typedef struct sl_source_args {
    const sl_kvlist *options;  /* the table's WITH options (validated) */
    int ncols;                 /* columns of the table */
    const char *const *names;  /* their names */
    const sl_type *types;      /* their types */
    int subtask;               /* this instance, 0 .. parallelism-1 */
    int parallelism;           /* instances reading the table together */
    const char *table;         /* table name, for messages */
    int npk;                   /* PRIMARY KEY columns of the table (0 = none) */
    const int *pk;             /* their indexes */
    int npart;                 /* PARTITIONED BY columns (0 = none): filled from the path */
    const int *part;           /* their indexes */
    int64_t created_nanos;     /* when the job created its sources, the same for every
                                  subtask (ns since the epoch; 0 = unknown) */
    const char *const *meta;   /* per column: the metadata key the source fills it with
                                  (of types[i], the key's own type), NULL for a column the
                                  format reads; meta itself NULL = no metadata column */
    const struct sl_values_spec *values; /* a VALUES input's rows (sl_values_source_new),
                                  else NULL */
    const bool *used;          /* per column: whether the job reads it (NULL = every one);
                                  a source may leave a nullable column it does not read
                                  NULL instead of building its value */
} sl_source_args;

#define SL_SOURCE_MORE 0 /* poll again (out may hold rows, or none yet) */
#define SL_SOURCE_END 1  /* a bounded input is exhausted (out may hold its last rows) */

typedef struct sl_source_ops {
    /* Append up to out->cap - out->nrows rows to out. Returns within about
    ** 100 ms so the task can pass barriers, even when no data arrives. Every
    ** row handed out is covered by the next position(). -1 with err (a
    ** malformed record names its place: file:line or topic/partition/offset). */
    int (*poll)(sl_source *s, sl_chunk *out, sl_error *err);
    /* The position just after the rows handed out so far (opaque bytes, stored
    ** in the checkpoint). */
    int (*position)(sl_source *s, sl_strbuf *out, sl_error *err);
    /* Continue from a stored position; called before the first poll. A
    ** deterministic source (datagen) regenerates exactly the same rows. */
    int (*seek)(sl_source *s, const char *pos, size_t len, sl_error *err);
    /* Rows skipped as malformed by '<format>.ignore-parse-errors' so far. */
    int64_t (*skipped)(sl_source *s);
    void (*free)(sl_source *s);
    /* Optional (NULL = none). The checkpoint whose position() gave pos was
    ** decided: tell the outside world for monitoring (Kafka: commit the
    ** offsets to the consumer group). Never needed for correctness; a
    ** failure is logged, not raised. */
    void (*decided)(sl_source *s, const char *pos, size_t len);
    /* Optional (NULL = one split). The splits (Kafka partitions) of the rows
    ** the last poll() appended: *split_of[i] for the i-th of them, in
    ** 0 .. returned count - 1 (a split keeps its number while the source
    ** lives). The task's watermark is then the smallest of the splits'
    ** (each split's the largest WATERMARK value it has given; a split
    ** without rows for 'table.exec.source.idle-timeout' is left out), as
    ** Flink's per-partition watermarks. */
    int (*splits)(sl_source *s, const int32_t **split_of);
    /* After END, no run of the job ever gets another row from this source
    ** (it regenerates one fixed input: datagen, nexmark, VALUES; a file or
    ** a Kafka topic may grow). When every source of a job says so, the
    ** operators of a task whose input ended are finished: the final
    ** checkpoint records them as such instead of their state (Flink's
    ** finished operators, FLIP-147), and a later run that would give them
    ** rows fails instead (sl_job_run). */
    bool end_is_final;
} sl_source_ops;

struct sl_source {
    const sl_source_ops *ops; /* behaviour */
    void *impl;               /* the connector's state */
};

typedef int (*sl_source_create_fn)(const sl_source_args *args, sl_source **out, sl_error *err);

/* A VALUES list as a bounded source (values.c; Flink's Values): subtask 0
** evaluates the rows' expressions (each of its column's type) and hands
** them out in order, then ends; the other subtasks end at once. Its
** position is the number of rows handed out. */
typedef struct sl_values_spec {
    int nrows;                              /* rows */
    const sl_bexpr *const *const *rows; /* rows[r][c]: constant expressions */
    const sl_tz *tz;               /* the job's time zone */
} sl_values_spec;
int sl_values_source_new(const sl_source_args *args, sl_source **out, sl_error *err);

/* ------------------------------------------------------------------------
** Sinks: two-phase commit (DESIGN.md section 5). Every sink implements it;
** a sink with no commit protocol (print) makes pre_commit/commit no-ops and
** declares guarantee none.
*/
typedef struct sl_sink sl_sink;

/* Delivery guarantees (DESIGN.md section 6): what the guarantee resolver
** decides for each sink, and what the sink then runs. */
typedef enum sl_guarantee {
    SL_GUARANTEE_NONE = 0,
    SL_GUARANTEE_AT_LEAST_ONCE = 1,
    SL_GUARANTEE_EXACTLY_ONCE = 2,
} sl_guarantee;

typedef struct sl_participant sl_participant;

typedef struct sl_sink_args {
    const sl_kvlist *options;  /* the table's WITH options */
    int ncols;                 /* columns */
    const char *const *names;  /* names */
    const sl_type *types;      /* types */
    int subtask;               /* this instance */
    int parallelism;           /* instances writing the table */
    const char *table;         /* table name */
    const char *job;           /* job name: stable across restarts (file names, txn ids) */
    void *ctx;                 /* for the engine's own sinks (a query's result); NULL */
    int npk;                   /* PRIMARY KEY columns of the table (0 = none) */
    const int *pk;             /* their indexes */
    int npart;                 /* PARTITIONED BY columns (0 = none): directories */
    const int *part;           /* their indexes */
    sl_guarantee guarantee;    /* the effective guarantee the resolver decided (the sink
                                  runs exactly this, whatever the table's option says) */
    bool participates;         /* the sink writes through one of the job's participants
                                  (set by the planner; see below) */
    int participant_slot;      /* which: its index in the job's participants */
    sl_participant *participant; /* that participant (set by the runtime when participates) */
    const char *const *meta;   /* per column: the metadata key it writes (a writable key, of
                                  the key's type), "" for a VIRTUAL metadata column (always
                                  NULL, not written), NULL for a column the format writes;
                                  meta itself NULL = no metadata column */
} sl_sink_args;

typedef struct sl_sink_ops {
    /* Start collecting writes for epoch (= the checkpoint that will seal them). */
    int (*begin)(sl_sink *s, int64_t epoch, sl_error *err);
    /* Write rows of the open epoch: durable or not, never visible yet. */
    int (*write)(sl_sink *s, const sl_chunk *c, sl_error *err);
    /* Make the epoch's writes durable but invisible and describe them in
    ** committable (file paths, a transaction id), which is stored in the
    ** checkpoint before the decision. The next begin() may follow at once:
    ** writing epoch N+1 never waits for N's commit. */
    int (*pre_commit)(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err);
    /* Make a pre-committed epoch visible. Idempotent: committing twice, or
    ** after a crash in the middle, is success. */
    int (*commit)(sl_sink *s, const char *committable, size_t len, sl_error *err);
    /* Discard a pre-committed epoch. Idempotent. */
    int (*abort)(sl_sink *s, const char *committable, size_t len, sl_error *err);
    /* After a restart: commit the committables of the decided checkpoint (they
    ** may be committed already), then discard every other trace of this sink's
    ** earlier incarnations (in-progress files, prepared transactions with its
    ** prefix). n may be 0 (no decided checkpoint). */
    int (*recover)(sl_sink *s, const char *const *committables, const size_t *lens, int n,
                   sl_error *err);
    void (*free)(sl_sink *s);
    /* Optional (NULL = none): conflicts so far (a duplicate key whose row
    ** differs from the stored one, kept and recorded: the jdbc sink's
    ** 'sink.on-duplicate-key' = 'ignore'), counted in the checkpoint after
    ** pre_commit and over the job's life (SHOW JOBS). */
    int64_t (*conflicts)(sl_sink *s);
    /* Optional (NULL = none): the task's watermark (ns) as of the barrier,
    ** told just before each pre_commit; INT64_MAX once the input ended,
    ** INT64_MIN while there is none (the filesystem sink's partition
    ** commit). */
    void (*watermark)(sl_sink *s, int64_t wm);
} sl_sink_ops;

struct sl_sink {
    const sl_sink_ops *ops; /* behaviour */
    void *impl;             /* the connector's state */
};

typedef int (*sl_sink_create_fn)(const sl_sink_args *args, sl_sink **out, sl_error *err);

/* ------------------------------------------------------------------------
** Participants (DESIGN.md section 5): a transactional system's part in the
** job's commit, shared by every sink instance of the job that writes
** through it (sinks of one system and cluster or database), so all of them
** commit atomically. A job has at most one *last-resource* participant (a
** transaction only this process can finish: Kafka's with librdkafka, a
** database transaction without PREPARE) and any number of *preparable*
** ones (a transaction prepared so that another process can finish it:
** PostgreSQL's PREPARE TRANSACTION). The guarantee resolver sees to it.
** The runtime calls them from the coordinating thread:
**
**   peek       (optional) before recover: the newest decision it holds
**              now, read without fencing anyone. The runtime refuses to
**              start (XX001) when it is a checkpoint this data directory
**              lacks, before recover would fence the instance that made it;
**   recover    at start, before any sink instance begins an epoch: the
**              newest checkpoint whose epoch it has committed (-1: none).
**              A last resource fences earlier incarnations first (their
**              open transactions are aborted; a fenced zombie fails at its
**              next call), so the decision read back is final;
**   resolve    (preparable, after recover) once the runtime knows the
**              decided checkpoint D (-1: none): commit what earlier
**              incarnations prepared for epochs <= D (it may be committed
**              already), roll back the rest, and fence them;
**
** and for each checkpoint N, once every task acknowledged it (every sink
** instance's pre_commit(N) returned):
**
**   prepare(N) (preparable) make epoch N's writes durable but invisible;
**   decide(N)  (last resource) once every state blob of checkpoint N and
**              every preparable participant's prepare(N) is durable:
**              commit epoch N's writes together with the record
**              "checkpoint N is decided". Its success *is* the decision:
**              chk-N/_metadata is written after it, as bookkeeping, and a
**              restart that finds N decided here but not sealed seals it.
**              Without a last resource the decision is the seal;
**   commit(N)  (preparable) after the decision: make epoch N visible.
**              Idempotent (a restart may commit it first).
**
**   settle(D) (preparable, optional) after a failure, before free: the
**              newest checkpoint D this data directory holds sealed (a
**              seal may have become durable although it reported an
**              error): commit what this instance prepared for epochs <= D,
**              roll back the rest, so that a job that is not started again
**              leaves nothing prepared. Never fences anyone (a fenced
**              zombie settles too). Not called when D cannot be read: then
**              what is prepared is left to the next start's resolve.
**
** A participant has either decide (last resource) or prepare, commit and
** resolve (preparable). The sink instances reach it through
** sl_sink_args.participant (they know its connector's type). Epoch N's
** writes go into its transaction N, which stays open until the decision
** while epoch N+1's writes already go into another, so writing never waits
** for a commit.
*/
typedef struct sl_participant_ops {
    int (*recover)(sl_participant *p, int64_t *decided, sl_error *err);
    int (*decide)(sl_participant *p, int64_t epoch, sl_error *err); /* last resource */
    /* Abort whatever is open and undecided, and release everything. */
    void (*free)(sl_participant *p);
    int (*peek)(sl_participant *p, int64_t *decided, sl_error *err); /* NULL: none */
    int (*prepare)(sl_participant *p, int64_t epoch, sl_error *err);   /* preparable */
    int (*commit)(sl_participant *p, int64_t epoch, sl_error *err);    /* preparable */
    int (*resolve)(sl_participant *p, int64_t decided, sl_error *err); /* preparable */
    int (*settle)(sl_participant *p, int64_t decided, sl_error *err);  /* preparable, optional */
    /* (optional) What it holds open now, appended to out for SHOW JOBS:
    ** "<system> <transaction> open|prepared since <UTC time>", items
    ** separated by "; ". Called from the coordinating thread. */
    void (*describe)(sl_participant *p, sl_strbuf *out);
} sl_participant_ops;

struct sl_participant {
    const sl_participant_ops *ops; /* behaviour */
    void *impl;                    /* the connector's state */
};

typedef struct sl_participant_args {
    int nsinks;                      /* sink tables writing through it (>= 1) */
    const sl_kvlist *const *options; /* their WITH options (the first one's name it) */
    const char *const *tables;       /* their names */
    const char *job;                 /* the job's name */
    const char *origin;              /* the job whose savepoint it starts from (another
                                        name), or NULL: that job's decisions count as this
                                        one's past, so recover() and peek() report them
                                        and a savepoint older than them is refused */
    bool last_resource;              /* the resolver chose the last-resource role for a
                                        system that can play both (PostgreSQL without
                                        prepared transactions); else the connector's */
} sl_participant_args;

typedef int (*sl_participant_create_fn)(const sl_participant_args *args, sl_participant **out,
                                        sl_error *err);

/* One participant of a job: how to create it and with what. */
typedef struct sl_participant_spec {
    sl_participant_create_fn create; /* the connector's */
    sl_participant_args args;        /* its arguments */
} sl_participant_spec;

#define SL_MAX_PARTICIPANTS 16 /* participants per job */

/* ------------------------------------------------------------------------
** Checkpoint storage (checkpoint.c), in the data directory:
**
**   jobs/<job>/chk-<N>/state-<name>   one file per state owner (operator, source, sink)
**   jobs/<job>/chk-<N>/_metadata      written last (temp, fsync, rename): only a
**                                     directory with _metadata is a checkpoint
**
** _metadata is JSON: {"format": "sluice-checkpoint", "version": 2,
** "job": name, "checkpoint": N, "savepoint": bool, "time": ns,
** "files": [{"name", "size", "xxh3"}...], "checksum": XXH3 of the file's own
** bytes (sl_checksum_embed)}. Each state file is written atomically and
** fsync'ed before _metadata, so a crash at any moment leaves either no
** checkpoint N or a complete one. jobs/<job>/_latest names the newest
** sealed checkpoint (written after its _metadata). What is damaged
** afterwards (a changed, truncated or missing file, a newest checkpoint
** deleted) is reported as XX001 naming the checkpoint and the file, never
** skipped for an older checkpoint. Version 1 (files as plain
** names, no checksums) is still read, without verification.
*/
typedef struct sl_chk_store sl_chk_store;

/* An entry of a storage's listing: a file (object) or a directory (a key
** prefix), with its bytes (a directory's: the sum of what is under it). */
typedef struct sl_chk_entry {
    char *name;   /* the last part of its path */
    int64_t size; /* bytes (a directory's: what the storage lists under it) */
    bool dir;     /* a directory */
} sl_chk_entry;
void sl_chk_entry_free(void *e);

/* A storage of checkpoints other than local files ('execution.checkpointing.dir'
** = s3://...), registered by the connectors that have its client (the
** filesystem connector: S3). Paths are the location's URI with
** '/'-separated parts after it. All return 0, or -1 with err. */
typedef struct sl_chk_fs {
    const char *scheme; /* "s3,s3a,s3p": the URI schemes it serves */
    /* A client for location with the session's options (credentials:
    ** 's3.access-key' ...): checks that it can be used (58030, 28000, 42501);
    ** NULL with err. */
    void *(*open)(const char *location, const sl_kvlist *opts, sl_error *err);
    void (*close)(void *ctx);
    /* Write path whole, atomically and durably (called by several tasks at once). */
    int (*put)(void *ctx, const char *path, const void *data, size_t len, sl_error *err);
    /* put only when path does not exist yet, atomically (S3: If-None-Match:
    ** *): *existed = true and nothing written when it did. */
    int (*put_new)(void *ctx, const char *path, const void *data, size_t len, bool *existed,
                   sl_error *err);
    /* Read path whole (*data NUL-terminated): *found = false and 0 when it does not exist. */
    int (*get)(void *ctx, const char *path, char **data, size_t *len, bool *found, sl_error *err);
    /* The entries directly under dir appended to out (sl_chk_entry *);
    ** *exists = false when nothing is under it. */
    int (*list)(void *ctx, const char *dir, sl_list *out, bool *exists, sl_error *err);
    /* Remove everything under dir. */
    int (*remove_tree)(void *ctx, const char *dir, sl_error *err);
} sl_chk_fs;
/* Register a storage (once per scheme; the engine does it at start). */
void sl_chk_fs_register(const sl_chk_fs *fs);
/* The registered storage of location's scheme: *fs = NULL for a local
** path (or file://); 0A000 for a scheme nothing registered. */
int sl_chk_fs_find(const char *location, const sl_chk_fs **fs, sl_error *err);

/* Open the checkpoint storage of job under data_dir/jobs/<job> (created). */
int sl_chk_open(const char *data_dir, const char *job, sl_chk_store **out, sl_error *err);
/* Open it at base/<job> instead ('execution.checkpointing.dir' = base: a
** local directory, created, or a registered storage's URI, opened with
** opts); base NULL = sl_chk_open. */
int sl_chk_open_at(const char *data_dir, const char *base, const sl_kvlist *opts,
                   const char *job, sl_chk_store **out, sl_error *err);
/* Where sl_chk_open_at keeps job's checkpoints; caller frees. */
char *sl_chk_location(const char *data_dir, const char *base, const char *job);
/* Whether the store is local files (the 'rocksdb' backend's checkpoints
** need them: hard links). */
bool sl_chk_is_local(const sl_chk_store *st);
/* The store's location (its job directory or URI). */
const char *sl_chk_dir(const sl_chk_store *st);
/* Bytes of checkpoint id (0 when unreadable). */
int64_t sl_chk_bytes(sl_chk_store *st, int64_t id);
/* The names of the state blobs chk-<id> holds, appended to names (char *). */
int sl_chk_states(sl_chk_store *st, int64_t id, sl_list *names, sl_error *err);
/* Claim the store's location for owner (a data directory's identity;
** written once into <location>/_owner, atomically: of two claims at once
** one wins). 0 when it is owner's (claimed now, or before by the same
** owner), 1 with *holder (the text there; caller frees) when another's. */
int sl_chk_claim(sl_chk_store *st, const char *owner, char **holder, sl_error *err);
/* Remove the claim (DROP JOB of a job whose name becomes free). */
int sl_chk_unclaim(sl_chk_store *st, sl_error *err);
/* The chk-<N> directories there are (sealed or not), ascending; caller
** frees *ids. */
int sl_chk_ids(sl_chk_store *st, int64_t **ids, int *n, sl_error *err);
/* DROP JOB: remove the store's checkpoints (savepoints too with
** savepoints; a damaged one is no savepoint) and its _latest. *found =
** the chk-<N> directories there were, *kept = savepoints left. */
int sl_chk_drop(sl_chk_store *st, bool savepoints, int *kept, int *found, sl_error *err);
void sl_chk_close(sl_chk_store *st);
/* Write one state blob of checkpoint id (creates chk-<id>/). The file is
** fsynced; its name in the directory is durable after sl_chk_sync. */
int sl_chk_write_state(sl_chk_store *st, int64_t id, const char *name, const void *data,
                       size_t len, sl_error *err);
/* Make the state files of checkpoint id written so far durable (one fsync
** of its directory): before anything depends on them — a participant's
** decision, the _metadata (sl_chk_seal does it too). */
int sl_chk_sync(sl_chk_store *st, int64_t id, sl_error *err);
/* Seal checkpoint id: write its _metadata listing the state files written,
** with time_ns (now) and triggered_ns (when the checkpoint was triggered; 0 =
** not known, left out). */
int sl_chk_seal(sl_chk_store *st, int64_t id, bool savepoint, int64_t triggered_ns,
                int64_t time_ns, sl_error *err);
/* Seal checkpoint id from the state files its directory holds (checksummed
** as they are): for a checkpoint that was decided (by a last-resource
** participant) but not sealed before a crash. 58P01 when the directory does
** not exist. */
int sl_chk_seal_existing(sl_chk_store *st, int64_t id, int64_t time_ns, sl_error *err);
/* The newest sealed checkpoint (0 and *id = -1 when there is none). A chk
** directory without _metadata is not a checkpoint (an attempt a crash cut
** short). The newest with one must be whole: XX001 naming the file when its
** _metadata is damaged or a state file it lists is missing or of the wrong
** size, and XX001 "missing" when _latest names a newer one (an older
** checkpoint is never used instead). */
int sl_chk_latest(sl_chk_store *st, int64_t *id, sl_error *err);
/* Read a state blob of a checkpoint (caller frees *data). 58P01 if the
** checkpoint holds no such state; XX001 (naming checkpoint and file) when
** _metadata is damaged or lists the file and it is missing or does not match
** its size and checksum. A checkpoint without _metadata (decided by a
** participant, not yet sealed) is read unverified. */
int sl_chk_read_state(sl_chk_store *st, int64_t id, const char *name, char **data, size_t *len,
                      sl_error *err);
/* When sealed checkpoint id was triggered and sealed (ns since the epoch),
** from its _metadata: 1, with *triggered_ns 0 when it does not say (sealed
** before that was recorded, or at recovery); 0 (both 0) when it has no
** _metadata; -1 with err (XX001) when that is damaged. */
int sl_chk_times(sl_chk_store *st, int64_t id, int64_t *triggered_ns, int64_t *time_ns,
                 sl_error *err);
/* Remove unsealed checkpoint directories and all but the newest keep sealed
** non-savepoint checkpoints (savepoints are never removed). */
int sl_chk_prune(sl_chk_store *st, int keep, sl_error *err);
/* Open a sealed checkpoint or savepoint by its directory (.../chk-<N>), to
** read its state: *id = N. 22023 when the path is no chk-<N>, 58P01 when it
** is not a complete checkpoint, XX001 when it is damaged (as sl_chk_latest). */
int sl_chk_open_path(const char *chk_dir, const sl_kvlist *opts, sl_chk_store **out, int64_t *id,
                     sl_error *err);
/* Open an existing job directory (jobs/<job>, or another data directory's)
** to read its checkpoints (sl_chk_latest): nothing is created. 58P01 when
** it does not exist. */
int sl_chk_open_dir(const char *job_dir, const sl_kvlist *opts, sl_chk_store **out,
                    sl_error *err);
/* Path of a checkpoint directory (for savepoint paths in messages); caller frees. */
char *sl_chk_path(const sl_chk_store *st, int64_t id);
/* data_dir/jobs/<job> with the job name escaped as in the store (always one
** directory inside jobs/, whatever job is); caller frees. */
char *sl_chk_job_dir(const char *data_dir, const char *job);

#define SL_JOB_NAME_MAX 255 /* bytes of a job name's file name (NAME_MAX) */
/* Whether name can be a job's name ('pipeline.name', STOP JOB 'name'):
** not empty, not "." or "..", no '/' and no control characters, and short
** enough for a file name once escaped. 0, or -1 with 22023 at pos. */
int sl_job_name_check(const char *name, int pos, sl_error *err);

/* ------------------------------------------------------------------------
** Stateful operators (op_*.c). An operator consumes chunks and watermarks
** and emits chunks through an sl_emit callback (synchronously: the emitted
** chunk is only valid during the call). Its state is snapshotted into a
** checkpoint and restored from one; a restored operator must behave exactly
** as the one that took the snapshot (same output for the same further
** input). Row kinds: operators accept +I/-U/+U/-D unless they say otherwise
** and emit the kinds of their changelog mode (planner/changelog.c).
*/
/* The kinds of side output an operator step may have, one of each
** (sl_operator.side, sl_step_spec.side): late rows (sl_late_row) and
** deduplication conflicts (sl_dedup_conflict_names). */
#define SL_SIDE_LATE 0      /* late rows */
#define SL_SIDE_CONFLICTS 1 /* a keep-first deduplication's conflicts */
#define SL_SIDE_KINDS 2

typedef struct sl_emit {
    int (*fn)(void *ctx, sl_chunk *rows, sl_error *err); /* consume rows (do not keep them) */
    void *ctx;                                           /* for fn */
} sl_emit;

typedef struct sl_operator sl_operator;

typedef struct sl_operator_ops {
    /* Consume input rows; emit what they produce. */
    int (*process)(sl_operator *op, const sl_chunk *in, const sl_emit *out, sl_error *err);
    /* Event time reached wm (ns, non-decreasing): emit what became final
    ** (windows ending at or before wm), drop state that can no longer change.
    ** INT64_MAX at the end of a bounded input. */
    int (*watermark)(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err);
    /* Serialize the state (deterministic bytes) / rebuild it. */
    int (*snapshot)(sl_operator *op, sl_strbuf *state, sl_error *err);
    int (*restore)(sl_operator *op, const char *state, size_t len, sl_error *err);
    /* Rows dropped because they were later than the watermark. */
    int64_t (*late_rows)(sl_operator *op);
    void (*free)(sl_operator *op);
    /* optional (NULL): conflicts detected so far over the state's life (SHOW JOBS' conflicts) */
    int64_t (*conflicts)(sl_operator *op);
    /* optional (NULL: 'hashmap' only): the state backend this instance keeps
    ** its state in ("hashmap", "rocksdb"); a checkpoint restores only under
    ** the one that wrote it, finished operators included (job.c) */
    const char *(*backend)(sl_operator *op);
} sl_operator_ops;

/* The refusal of a checkpoint (the directory chk_dir of one of its
** operators, or NULL) taken under state backend took into an operator
** running under runs: 55000 with a hint. -1. */
int sl_backend_mismatch(sl_error *err, const char *chk_dir, const char *took, const char *runs);

struct sl_operator {
    const sl_operator_ops *ops; /* behaviour */
    void *impl;                 /* state */
    int out_ncols;              /* output columns */
    const sl_type *out_types;   /* their types (owned by the operator) */
    const atomic_bool *cancel;  /* set by the job: true once it is being torn down; NULL = never */
    int64_t wm_delay;           /* ns (>= 0) the watermark after this operator lags the one it
                                   gets: its output rows may be that much behind it (an interval
                                   join: Flink's KeyedCoProcessOperatorWithWatermarkDelay) */
    sl_emit side[SL_SIDE_KINDS]; /* set by the runtime per side output the step has (indexed
                                   by kind, SL_SIDE_LATE...): rows in that kind's canonical
                                   layout; fn NULL = none (the operator only counts) */
    /* Files of state kept on disk ('rocksdb' backend), both set by the
    ** runtime and owned by it. state_dir: the working directory of this
    ** operator instance (its contents are scratch: replaced at restore);
    ** NULL = none (a query's job: the operator makes a temporary one).
    ** chk_dir: during snapshot and restore only, the directory inside the
    ** checkpoint taken or restored where the operator keeps its files
    ** (created by the operator; pruned with the checkpoint); NULL = the
    ** checkpoint is not stored (a query's job). */
    const char *state_dir;
    const char *chk_dir;
};

/* ------------------------------------------------------------------------
** Side outputs (side.c): rows an operator sets aside (late rows,
** deduplication conflicts) in the canonical layout of their kind, which the
** runtime maps onto a table's columns and writes into that table's sink
** inside the task's open epoch (its commit group: one checkpoint decides it
** with the job's other sinks). Every layout starts with job STRING,
** operator STRING and has arrived_at TIMESTAMP_LTZ(3) as its 7th column;
** an operator may leave those NULL: the runtime fills them (the job's
** name, the step's name, the job's clock).
*/
#define SL_SIDE_JOB 0        /* canonical column: job STRING */
#define SL_SIDE_OPERATOR 1   /* canonical column: operator STRING */
#define SL_SIDE_ARRIVED_AT 6 /* canonical column: arrived_at TIMESTAMP_LTZ(3) */

/* Late rows: job STRING, operator STRING, event_time TIMESTAMP(3),
** watermark TIMESTAMP(3), window_start TIMESTAMP(3) (NULL without a window),
** window_end TIMESTAMP(3), arrived_at TIMESTAMP_LTZ(3), row STRING. */
#define SL_LATE_NCOLS 8
extern const char *const sl_late_names[SL_LATE_NCOLS];
/* Their types (sl_late_types(types) fills SL_LATE_NCOLS of them). */
void sl_late_types(sl_type *types);

/* Row r of the columns cols[0..n) of c (all columns when cols is NULL,
** n = c->ncols) as a JSON object by column name: {"a":1,"b":"x","c":null}.
** Numbers and booleans as JSON numbers and booleans, everything else as
** the string CAST(... AS STRING) gives. */
void sl_json_row(sl_strbuf *sb, const sl_chunk *c, int r, int n, const int *cols,
                 const char *const *names);

/* Row r of in is late for op: set it aside on op->side[SL_SIDE_LATE] (when the runtime
** set one) as a late row: its event time, the watermark it missed, the
** window it belonged to (has_window false: none; event_time or
** window_start INT64_MIN: unknown, NULL), the row as JSON by the
** input's column names (names: in->ncols of them; NULL = "$0", "$1"...).
** Counting it stays the operator's. 0, or -1 with err (the side sink failed). */
int sl_late_row(const sl_operator *op, const char *const *names, const sl_chunk *in, int r,
                int64_t event_time, int64_t watermark, bool has_window, int64_t window_start,
                int64_t window_end, sl_error *err);
/* The same with only the columns cols[0..n) of in in the row's JSON. */
int sl_late_row_cols(const sl_operator *op, const char *const *names, const sl_chunk *in, int r,
                     int n, const int *cols, int64_t event_time, int64_t watermark,
                     bool has_window, int64_t window_start, int64_t window_end, sl_error *err);

/* Whether the job op runs in is being torn down: a loop whose length
** depends on the input (window assignment, firing, timers) checks it at
** least once per emitted chunk and then fails with sl_op_cancel_error
** (that error is dropped: the job already failed or is stopping). */
static inline bool sl_op_cancelled(const sl_operator *op)
{
    return op->cancel && atomic_load_explicit(op->cancel, memory_order_relaxed);
}
static inline int sl_op_cancel_error(sl_error *err)
{
    return sl_error_set(err, SL_ERR_QUERY_CANCELED, -1, "the job was cancelled");
}

/* One aggregate call of an aggregation. */
typedef struct sl_agg_call {
    sl_func_id fn;     /* SL_FN_COUNT, SUM, MIN, MAX, AVG, LISTAGG, ARRAY_AGG */
    bool distinct;     /* COUNT(DISTINCT x) etc. */
    int arg;           /* input column; -1 for COUNT(*) */
    sl_type type;      /* result type (the planner's) */
    int pos;           /* statement byte offset of the call (its overflow errors), or -1 */
    const char *sep;   /* LISTAGG: the separator (NUL-terminated; the operator copies
                          it); NULL = ',' */
    bool filtered;     /* FILTER (WHERE ...): only rows whose filter column is TRUE count */
    int filter;        /* that BOOLEAN input column, when filtered */
} sl_agg_call;

/* GROUP BY without a window: output = keys then aggregates, as an updating
** changelog (+I for a new group, -U/+U when its result changes, -D when it
** becomes empty through retractions). ttl_ms > 0: a group not updated for
** that long (processing time) is forgotten (Flink's table.exec.state.ttl). */
/* Where keyed state lives ('state.backend.type'); zero = 'hashmap'. */
typedef struct sl_state_backend {
    bool rocksdb;            /* 'rocksdb': a GROUP BY's groups in RocksDB (state_rocks.h) */
    bool incremental;        /* 'execution.checkpointing.incremental' */
    int64_t cache_groups;    /* 'state.backend.rocksdb.cache-groups': groups in memory per
                                task (<= 0: the default) */
} sl_state_backend;

typedef struct sl_group_agg_spec {
    int in_ncols;               /* input columns */
    const sl_type *in_types;    /* their types */
    int nkeys;                  /* group keys */
    const int *keys;            /* their input columns */
    int naggs;                  /* aggregate calls */
    const sl_agg_call *aggs;    /* the calls */
    int64_t ttl_ms;             /* state retention; 0 = forever */
    int64_t (*now)(void *ctx);  /* processing-time clock (ns) for ttl_ms; NULL = real */
    void *now_ctx;              /* for now */
    /* 'rocksdb': a non-windowed aggregation keeps at most cache_groups groups
    ** in memory and the rest in RocksDB under sl_operator.state_dir;
    ** checkpoints hold a RocksDB checkpoint (chk_dir) and refuse to restore
    ** a 'hashmap' one (and the reverse). Window aggregations ignore it. */
    sl_state_backend backend;
    /* The input is insert-only (the planner's changelog analysis): MIN and
    ** MAX keep their one value instead of a multiset of every value for
    ** retractions (Flink's MIN against MinWithRetract); a retraction that
    ** still arrives fails the job (XX000). A checkpoint whose MIN/MAX kept
    ** multisets restores into it; the reverse is refused. */
    bool append_only;
    /* No consumer needs -U (Flink's ONLY_UPDATE_AFTER: a blackhole, or an
    ** upsert sink keyed by the group key, planner/changelog.c): an update
    ** is its +U alone. */
    bool no_before;
} sl_group_agg_spec;
int sl_group_agg_new(const sl_group_agg_spec *spec, sl_operator **out, sl_error *err);

/* Window aggregation over the rows of a window TVF: keys include the
** window_start and window_end columns; a window's results are emitted once,
** as +I, when the watermark reaches its end, and its state is dropped. Rows
** whose window already ended (window_end <= watermark) are dropped and
** counted as late. Input is append-only. Output = keys then aggregates. */
typedef struct sl_window_agg_spec {
    sl_group_agg_spec group;    /* keys (incl. the window's start and end) and calls */
    int window_start_key;       /* index into keys of window_start */
    int window_end_key;         /* index into keys of window_end */
    /* Late rows onto the side output (sl_late_row), one per input row: for
    ** the row of its latest window (window_start + slide > event time). */
    int time_col;               /* the input's event-time column, -1 = unknown */
    int64_t slide_ns;           /* HOP's slide; 0 = the window's own length */
    const char *const *in_names; /* the input's column names (the row's JSON), or NULL */
    /* Sliced HOP (Flink's slicing window aggregation): > 0, the windows'
    ** size; the input rows carry their slice [align(t, slide), + slide_ns)
    ** once (the TVF as a TUMBLE of the slide) and each window merges its
    ** size / slide slices per key when it fires. Only for calls whose
    ** accumulators merge (COUNT, SUM, AVG, MIN, MAX without DISTINCT;
    ** others are XX000). 0 = rows carry their windows. */
    int64_t slice_size_ns;
} sl_window_agg_spec;
int sl_window_agg_new(const sl_window_agg_spec *spec, sl_operator **out, sl_error *err);

/* Session window aggregation (SESSION window TVF + GROUP BY window_start,
** window_end[, keys]; exec/op_session.c). Its input rows carry each row's
** own window [t, t + gap) in the window_start / window_end key columns (the
** SESSION TVF step puts it there); the other keys partition the sessions.
** Per partition, windows that intersect or touch merge into one session
** (Flink's TimeWindow.intersects); a row whose window meets no open session
** and ends at or before the watermark is late: dropped and counted. When
** the watermark reaches a session's end, its rows are aggregated with
** window_start / window_end (and window_time = end - 1 ms) set to the
** session's bounds and emitted once as +I. Input is append-only. */
typedef struct sl_session_agg_spec {
    sl_window_agg_spec window; /* the aggregation, as for a window TVF */
    int window_time_key;       /* index into keys of window_time, or -1 */
} sl_session_agg_spec;
int sl_session_agg_new(const sl_session_agg_spec *spec, sl_operator **out, sl_error *err);

/* Rows as bytes (rowcodec.c), for operators that keep rows in their state
** and snapshots (the one layout they all share; it must not change):
** sl_value_put appends value (c, col, r); sl_value_get reads one value into
** (dst, col, r). sl_row_put_cols appends columns first..first+n-1 of row r;
** sl_row_get_cols reads them into row r of dst, columns first on.
** sl_row_put / sl_row_get do every column of the chunk. The readers return
** false when the bytes are malformed (short, a flag not 0/1). Little-endian
** integers: sl_put_u32/u64 and the bounds-checked sl_get_*. */
typedef struct sl_bytes_reader {
    const uint8_t *p; /* bytes */
    size_t n;         /* their length */
    size_t off;       /* read position */
} sl_bytes_reader;
void sl_value_put(sl_strbuf *sb, const sl_chunk *c, int col, int r);
bool sl_value_get(sl_bytes_reader *rd, sl_chunk *dst, int col, int r);
void sl_row_put_cols(sl_strbuf *sb, const sl_chunk *c, int first, int n, int r);
bool sl_row_get_cols(sl_bytes_reader *rd, sl_chunk *dst, int first, int n, int r);
/* sl_row_get_cols with the strings pointing into rd's bytes (not copied):
** valid while those bytes are. */
bool sl_row_get_cols_view(sl_bytes_reader *rd, sl_chunk *dst, int first, int n, int r);
void sl_row_put(sl_strbuf *sb, const sl_chunk *c, int r);
bool sl_row_get(sl_bytes_reader *rd, sl_chunk *dst, int r);
/* One value of a vector in the same layout (ARRAY / MAP elements); the
** reader takes the value at p[0..n) into row r of v, a string value
** pointing into p (not copied); false when malformed. sl_value_skip: the
** bytes of the value at p[0..n) of representation phys, 0 when malformed. */
void sl_vector_value_put(sl_strbuf *sb, const sl_vector *v, int r);
bool sl_vector_value_get(const uint8_t *p, size_t n, sl_vector *v, int r);
size_t sl_value_skip(const uint8_t *p, size_t n, sl_phys phys);

/* ARRAY and MAP values (array.c). A value is bytes in a STR vector: u32
** count, then count elements (an ARRAY) or count key, value pairs (a MAP),
** each in the row layout above (a null flag, then the value in its
** element type's representation; nested ARRAY / MAP values are STR). The
** encoding is canonical for ARRAYs, so equal arrays have equal bytes and
** equality, hashing (sl_chunk_hash_keys), GROUP BY, state and channels
** work on the bytes; MAPs keep their entries in insertion order (later
** duplicate keys replace earlier ones' values) and compare by bytes too.
**
** sl_array_split: the elements' byte ranges (off[i] .. off[i+1]) of the
** value p[0..n), count in *count (pairs of a MAP count twice); false when
** malformed. off is malloc'ed (count + 1 entries), the caller frees it.
** sl_array_format appends Flink's text ([1, 2, NULL], {a=1, b=NULL}) of
** a value of type t. */
bool sl_array_split(const uint8_t *p, size_t n, sl_type t, uint32_t *count, size_t **off);
bool sl_array_format(sl_strbuf *sb, sl_type t, const uint8_t *p, size_t n);
/* The MAP value of type t at sb->buf[at..len) rewritten without duplicate
** keys (a later key's value replaces the first's, in its place); false
** when malformed. */
bool sl_map_dedup(sl_strbuf *sb, size_t at, sl_type t);

void sl_put_u32(sl_strbuf *sb, uint32_t v);
void sl_put_u64(sl_strbuf *sb, uint64_t v);
bool sl_get_bytes(sl_bytes_reader *rd, void *dst, size_t n);
bool sl_get_u8(sl_bytes_reader *rd, uint8_t *v);
bool sl_get_u32(sl_bytes_reader *rd, uint32_t *v);
bool sl_get_u64(sl_bytes_reader *rd, uint64_t *v);

/* Window table function: appends window_start, window_end (TIMESTAMP(3)) and
** window_time (window_end - 1 ms, the new event time) to each row, one
** output row per window the row falls in (TUMBLE: 1; HOP: size/slide;
** CUMULATE: one per step up to the window's size). Stateless.
** size / slide (HOP) and size / step (CUMULATE) are at most
** SL_WINDOW_MAX_PER_ROW (the planner refuses more with a position). */
#define SL_WINDOW_MAX_PER_ROW 10000
/* The most tasks an operator may run as (Flink's bound on a job's maximum
** parallelism, 2^15): 'parallelism.default' and 'sink.parallelism' above
** it are refused. */
#define SL_MAX_PARALLELISM 32768
typedef struct sl_window_tvf_spec {
    int in_ncols;              /* input columns */
    const sl_type *in_types;   /* their types */
    int time_col;              /* the event-time column (TIMESTAMP[_LTZ], ns) */
    int window_fn;             /* SL_WIN_TUMBLE / HOP / CUMULATE */
    int64_t size_ms;           /* size (CUMULATE: max size) */
    int64_t slide_ms;          /* HOP slide / CUMULATE step; = size for TUMBLE */
    int64_t offset_ms;         /* window offset */
} sl_window_tvf_spec;
int sl_window_tvf_new(const sl_window_tvf_spec *spec, sl_operator **out, sl_error *err);

/* UNNEST (exec/op_unnest.c, Flink's Correlate over $UNNEST_ROWS$): for each
** input row, one output row per element of its ARRAY (or entry of its MAP)
** in column arr_col: the input's first keep columns, then the element (a
** MAP: key, value), then with ordinality its position from 1 (INT). The
** row kind is the input row's (an update's -U and +U each expand). A NULL
** or empty array gives no row, or with outer (LEFT JOIN ... ON TRUE) one
** row with the new columns NULL; with a condition (LEFT JOIN ... ON cond)
** only the rows it holds for, or that NULL row when it holds for none.
** Stateless; every emitted chunk holds at most SL_CHUNK_ROWS rows. */
typedef struct sl_unnest_spec {
    int in_ncols;              /* input columns */
    const sl_type *in_types;   /* their types */
    int arr_col;               /* the ARRAY / MAP column */
    int keep;                  /* input columns copied to the output (the first keep) */
    bool outer;                /* LEFT JOIN: a NULL row for a NULL / empty array */
    bool ordinality;           /* WITH ORDINALITY: the position as a last column */
    const sl_bexpr *cond;      /* LEFT JOIN ... ON cond (over the output columns): only
                                  the rows where it is TRUE, the NULL row when none is;
                                  NULL = ON TRUE */
    const sl_tz *tz;           /* the job's time zone for cond; NULL = UTC */
} sl_unnest_spec;
int sl_unnest_new(const sl_unnest_spec *spec, sl_operator **out, sl_error *err);

/* The SESSION window TVF without an aggregation (exec/op_session.c): the
** input rows plus window_start, window_end and window_time (= end - 1 ms),
** each row emitted once (+I) when the watermark reaches its session's end,
** with that session's bounds; sessions per the key columns, merged and
** late rows dropped as for sl_session_agg_spec. Input is append-only. */
typedef struct sl_session_tvf_spec {
    sl_window_tvf_spec tvf;    /* the TVF (window_fn SL_WIN_SESSION, size_ms = gap) */
    int nkeys;                 /* PARTITION BY columns */
    const int *keys;           /* their input columns */
} sl_session_tvf_spec;
int sl_session_tvf_new(const sl_session_tvf_spec *spec, sl_operator **out, sl_error *err);

/* Deduplication (ROW_NUMBER() OVER (PARTITION BY keys ORDER BY time) = 1),
** as Flink 2.2: keep_first emits each key's row with the earliest time
** among the rows not behind the watermark, once, as +I when the watermark
** reaches it (append-only; late rows are dropped and counted; without an
** order_col: the first row to arrive, at once); otherwise the last row per
** key (+I, then -U/+U when a row at least as new arrives; the watermark
** plays no part). Output = the input columns plus the row number column
** (always 1). */
typedef struct sl_dedup_spec {
    int in_ncols;              /* input columns */
    const sl_type *in_types;   /* their types */
    int nkeys;                 /* partition keys */
    const int *keys;           /* their input columns */
    int order_col;             /* the event-time column ordering the rows */
    bool keep_first;           /* first row (ASC) or last row (DESC) */
    int64_t ttl_ms;            /* state retention; 0 = forever */
    int64_t (*now)(void *ctx); /* processing-time clock (ns) for ttl_ms; NULL = real */
    void *now_ctx;             /* for now */
    bool normalize;            /* Flink's ChangelogNormalize of an upsert changelog (keep
                                  last, arrival order, no row number): input +I/+U = the
                                  key's row now, -D = the key deleted (only its key
                                  columns need values); output +I for a new key, -U/+U
                                  when the row changed (nothing when it did not), -D of
                                  the kept row for a known key */
    const char *const *in_names; /* input column names (conflict logs and JSON); NULL =
                                    c0, c1, ... */
    const char *job;             /* the job's name, for conflict rows; NULL = "" */
    const char *op_name;         /* the operator's name in conflict logs and rows; NULL =
                                    "Deduplicate" */
    bool keep_rows;              /* keep_first by time: keep each emitted row whole (a
                                    conflict table wants its stored_row); else its 64-bit
                                    hash only */
    const bool *ignore;          /* per input column: not compared for conflicts and not
                                    in their JSON (a PROCTIME() column: its value is the
                                    arrival time, different for every retry); NULL = none */
    bool quiet;                  /* conflicts are neither counted, logged nor emitted: a
                                    twin of this operator (the same plan in another INSERT
                                    of a statement set) reports them */
    bool no_before;              /* keep last: no consumer needs -U (Flink's
                                    ONLY_UPDATE_AFTER, planner/changelog.c): an update is
                                    its +U alone, and each key keeps only its time, not
                                    its row */
} sl_dedup_spec;
int sl_dedup_new(const sl_dedup_spec *spec, sl_operator **out, sl_error *err);

/* The canonical layout of a deduplication's side output (its conflicts,
** sl_side_spec): job STRING, operator STRING, conflict_key STRING,
** stored_row STRING, conflicting_row STRING, event_time TIMESTAMP(3),
** arrived_at TIMESTAMP_LTZ(3). */
#define SL_DEDUP_CONFLICT_NCOLS 7
extern const char *const sl_dedup_conflict_names[SL_DEDUP_CONFLICT_NCOLS];
/* Their types (fills SL_DEDUP_CONFLICT_NCOLS of them). */
void sl_dedup_conflict_types(sl_type *types);

/* Top-N (ROW_NUMBER() OVER (PARTITION BY keys ORDER BY order) filtered to
** rank_start <= rn <= rank_end), as Flink 2.2's AppendOnlyTopNFunction
** (op_topn.c; updating_input and window_end_col select the other modes):
** with output_rank (or rank_start > 1) a row entering the top moves the
** rows below it down one rank each (-U/+U at each rank, +I at the first
** rank newly filled); without, +I of the new row and -D of the row it
** pushes out. Ties keep arrival order (a later row ranks after). Output =
** the input columns plus the rank (BIGINT NOT NULL; rank_start without
** output_rank). ttl_ms > 0: a partition not changed for that long
** (processing time) is forgotten. */
typedef struct sl_topn_order {
    int col;          /* input column */
    bool desc;        /* descending */
    bool nulls_first; /* NULLs before the values */
} sl_topn_order;
typedef struct sl_topn_spec {
    int in_ncols;                /* input columns */
    const sl_type *in_types;     /* their types */
    int nkeys;                   /* partition keys */
    const int *keys;             /* their input columns */
    int norder;                  /* order columns (>= 1) */
    const sl_topn_order *order;  /* the order */
    int64_t rank_start;          /* first rank emitted (>= 1) */
    int64_t rank_end;            /* last rank emitted (< rank_start: none) */
    bool output_rank;            /* the rank is used above: emit rank changes */
    int64_t ttl_ms;              /* state retention; 0 = forever */
    int64_t (*now)(void *ctx);   /* processing-time clock (ns) for ttl_ms; NULL = real */
    void *now_ctx;               /* for now */
    int window_end_col;          /* window Top-N (Flink's WindowRank): the window_end column
                                    (a partition key), else -1: each window's ranks go out
                                    once as +I when the watermark reaches its end, then its
                                    rows are dropped; rows of a window already fired are late
                                    (dropped, counted); ttl_ms plays no part */
    bool ties_replace;           /* window mode: a row ranks before the rows it ties (Flink's
                                    WindowDeduplicate keeping the last row) */
    bool updating_input;         /* the input has -U/-D rows (Flink's RetractableTopNFunction):
                                    every row is kept; a retracted row's leaving moves the
                                    rows below it up (-U/+U, then -D; without the rank: -D,
                                    +I of the row entering rank_end) */
    const char *const *in_names; /* input column names (a window's late rows), or NULL */
    bool no_before;              /* no consumer needs -U (a blackhole, planner/changelog.c):
                                    an update is its +U alone */
} sl_topn_spec;
int sl_topn_new(const sl_topn_spec *spec, sl_operator **out, sl_error *err);

/* ORDER BY / LIMIT / OFFSET of a job (op_order.c), in one task: END holds
** every row (applying -U / -D) and emits them sorted at the end of the
** input (batch mode); TIME releases rows sorted once the watermark reaches
** their time in keys[0] (ascending event time; a row at or before the
** watermark is late: dropped and counted; input append-only); PASS lets
** append-only rows through (LIMIT alone). The first offset rows are
** skipped, then at most limit emitted (-1: no limit). Output: the input
** columns, +I. */
typedef enum sl_order_mode { SL_ORDER_END = 0, SL_ORDER_TIME = 1, SL_ORDER_PASS = 2 } sl_order_mode;
typedef struct sl_order_spec {
    sl_order_mode mode;      /* see above */
    int in_ncols;            /* input (= output) columns */
    const sl_type *in_types; /* their types */
    int nkeys;               /* ORDER BY keys (TIME: >= 1, the first the event time ASC) */
    const sl_sort_key *keys; /* them (nulls 1 / 2 as the planner resolved them) */
    int64_t offset;          /* OFFSET (>= 0) */
    int64_t limit;           /* LIMIT, or -1 */
} sl_order_spec;
int sl_order_new(const sl_order_spec *spec, sl_operator **out, sl_error *err);

/* OVER aggregation by event time (op_over.c), as Flink 2.2's RowTime*
** OVER functions: each input row (+I only) is emitted once, as +I, when
** the watermark reaches its time, followed by the calls' results over its
** frame — ROWS: the row and the `preceding` rows before it of its key (by
** time, then arrival); RANGE: the rows of its key with time in [t -
** preceding, t] (equal times share results); preceding < 0: UNBOUNDED. Rows
** at or behind the watermark are dropped and counted as late. Output = the
** input columns then the results. */
typedef struct sl_over_spec {
    int in_ncols;              /* input columns */
    const sl_type *in_types;   /* their types */
    int nkeys;                 /* partition keys */
    const int *keys;           /* their input columns */
    int time_col;              /* the event-time column (ORDER BY) */
    bool range;                /* RANGE frame, else ROWS */
    int64_t preceding;         /* ROWS: rows; RANGE: ns; -1 = UNBOUNDED PRECEDING */
    int naggs;                 /* aggregate calls (no DISTINCT) */
    const sl_agg_call *aggs;   /* the calls */
    int64_t ttl_ms;            /* state retention; 0 = forever */
    int64_t (*now)(void *ctx); /* processing-time clock (ns) for ttl_ms; NULL = real */
    void *now_ctx;             /* for now */
    const char *const *in_names; /* input column names (late rows' JSON, sl_late_row), or NULL */
} sl_over_spec;
int sl_over_new(const sl_over_spec *spec, sl_operator **out, sl_error *err);

/* Streaming join of two inputs (op_stream_join.c): Flink's regular join
** (StreamingJoinOperator) and, with `interval`, its interval join
** (RowTimeIntervalJoin). Both inputs arrive on one stream as a tagged
** union, hashed by the keys to the join's tasks:
**
**   column 0                 the side: INT 0 = left row, 1 = right row
**   columns 1 .. nkeys       the equality keys (both sides' values in one type)
**   next nl columns          the left side's columns (NULL in a right row)
**   next nr columns          the right side's columns (NULL in a left row)
**
** Output = the left columns then the right columns (nl + nr). Rows match
** when their keys are equal and not NULL (SQL `=`; NULL never matches) and
** cond, over the output row, is TRUE.
**
** Regular join: each side's rows are kept per key (a multiset: a row and
** how many times it is there); inputs may be updating (+I/+U add a row,
** -U/-D remove one equal row). INNER emits, for each match, the joined row
** with the input row's own kind (+I/+U for an added row, -U/-D for a
** removed one); LEFT/RIGHT/FULL emit +I / -D joined rows (an inner-side
** removal keeps its -U/-D) and the null-padded row of an outer-side row
** without matches, retracted (-D) when its first match arrives and emitted
** again (+I) when its last match goes, as Flink does. ttl_ms > 0: a row not
** written for that long (processing time) is forgotten (table.exec.state.ttl).
**
** Interval join (append-only inputs, output append-only): additionally
** lower_ns <= left.time - right.time <= upper_ns (ltime / rtime: columns
** among each side's own columns, event time in ns). A row is dropped from
** state once the watermark shows no row of the other side can still match
** it; an outer side's row that never matched is emitted null-padded then.
** Rows behind the watermark are handled as Flink does (late_rows counts the
** rows dropped).
**
** Window join (Flink's WindowJoin; append-only inputs, output append-only):
** the keys include both sides' window_start and window_end; ltime / rtime
** are each side's window_end column. Rows are kept per key (so per window)
** until the watermark reaches the window's end (window_end <= watermark),
** then the window's rows are joined (keys equal and not NULL, cond TRUE) and
** an outer side's rows without a match go out padded with NULLs, all as +I,
** and the window's state is dropped. A row whose window already ended is
** late: dropped and counted. */
typedef struct sl_join_spec {
    int in_ncols;             /* 1 + nkeys + nl + nr */
    const sl_type *in_types;  /* their types */
    int nkeys;                /* equality keys (0: none, every row under one key) */
    uint64_t nulls_equal;     /* bit k - 1: key k matches NULL with NULL (IS NOT DISTINCT
                                 FROM; regular joins only); other keys' NULLs match nothing */
    int nl, nr;               /* columns of each side */
    int type;                 /* SL_JOIN_INNER, SL_JOIN_LEFT, SL_JOIN_RIGHT, SL_JOIN_FULL */
    const sl_bexpr *cond;     /* residual condition over the output row, or NULL */
    int64_t ttl_ms;           /* state retention; 0 = forever (regular join) */
    int64_t (*now)(void *ctx);/* processing-time clock (ns) for ttl_ms; NULL = real */
    void *now_ctx;            /* for now */
    const sl_tz *tz;          /* the job's time zone for cond (sl_eval_env.tz); NULL = UTC */
    bool interval;            /* an interval join */
    bool window;              /* a window join (ltime / rtime: the window_end columns) */
    bool temporal;            /* an event-time temporal join (sl_temporal_join_new; ltime /
                                 rtime: the left rows' time, the right versions' time) */
    int ltime, rtime;         /* interval: time column among the left / right columns */
    int64_t lower_ns;         /* interval: smallest left.time - right.time (inclusive) */
    int64_t upper_ns;         /* interval: largest left.time - right.time (inclusive) */
    const char *const *in_names; /* window: per input column its name (a side's columns;
                                    late rows' JSON), or NULL */
    /* Regular join: side s's input is insert-only (the planner's changelog
    ** analysis; a -U/-D there is XX000). Its rows are kept as they come,
    ** equal ones as separate records, without the record table that finds
    ** an equal row to retract (a hash of the row and a cache miss each). */
    bool append_only[2];
} sl_join_spec;
int sl_join_new(const sl_join_spec *spec, sl_operator **out, sl_error *err);
/* Event-time temporal join (op_temporal_join.c; Flink's
** TemporalRowTimeJoinOperator), same tagged input, spec->temporal set, type
** INNER or LEFT: right rows are versions of their key valid from their time
** (rtime; +I/+U a version, -D a deletion, -U nothing); a left row (append-only)
** waits for the watermark to reach its time (ltime), then joins the version
** valid then (the latest at or before it, unless a deletion) if cond holds,
** or — LEFT — goes out padded with NULLs. Output +I only, in order of the
** left rows' times. */
int sl_temporal_join_new(const sl_join_spec *spec, sl_operator **out, sl_error *err);

/* ------------------------------------------------------------------------
** Lookup joins (op_lookup_join.c; Flink's LookupJoinRunner): FROM l JOIN r
** FOR SYSTEM_TIME AS OF l.proctime ON r.k = <left expression> ... — each
** left row looks its keys up in table r as it is when the row arrives.
** The table is reached through a lookup provider of its connector
** (sl_connector.create_lookup); misses of the keys of one input chunk go to
** the provider in one batch. Optionally a cache (lookup_cache.c; Flink's
** DefaultLookupCache, 'lookup.cache' = 'PARTIAL') keeps each key's rows.
*/

/* Flink's partial lookup cache: each key's rows (an empty set too when
** cache_missing), evicted least recently used beyond max_rows keys,
** expired expire_write_ms after they were loaded and expire_access_ms after
** they were last read (0 = never). */
typedef struct sl_lookup_cache_opts {
    bool enabled;             /* 'lookup.cache' = 'PARTIAL' */
    int64_t max_rows;         /* keys kept (0 = no limit) */
    int64_t expire_write_ms;  /* 0 = never */
    int64_t expire_access_ms; /* 0 = never */
    bool cache_missing;       /* keep a key without rows too */
} sl_lookup_cache_opts;

typedef struct sl_lookup_cache sl_lookup_cache;
sl_lookup_cache *sl_lookup_cache_new(const sl_lookup_cache_opts *o);
void sl_lookup_cache_free(sl_lookup_cache *c);
/* The value (bytes) kept for key kb[0..kn) of hash h at time now_ms: true
** and *val / *vlen (valid until the next put), false when it is not there
** or expired (then it is dropped). A hit refreshes the key's access time. */
bool sl_lookup_cache_get(sl_lookup_cache *c, uint64_t h, const char *kb, size_t kn,
                         int64_t now_ms, const char **val, size_t *vlen);
/* Keep (replace) the key's value, loaded at now_ms; evicts the least
** recently used keys beyond max_rows. */
void sl_lookup_cache_put(sl_lookup_cache *c, uint64_t h, const char *kb, size_t kn,
                         const char *val, size_t vlen, int64_t now_ms);
int64_t sl_lookup_cache_size(const sl_lookup_cache *c); /* keys kept */

/* A lookup provider (one per task): the rows of a table whose key columns
** equal given values. */
typedef struct sl_lookup sl_lookup;
/* Receives each row found (the table's columns; valid during the call). */
typedef int (*sl_lookup_row_fn)(void *ctx, const sl_chunk *rows, int r, sl_error *err);

typedef struct sl_lookup_ops {
    /* Every row of the table whose key columns equal one row of keys (nkeys
    ** columns of the key columns' types; no NULLs, no duplicates), each
    ** given to fn (in any order). -1 with err when the table cannot be read
    ** (after the provider's own retries). */
    int (*lookup)(sl_lookup *l, const sl_chunk *keys, sl_lookup_row_fn fn, void *ctx,
                  sl_error *err);
    void (*free)(sl_lookup *l);
} sl_lookup_ops;

struct sl_lookup {
    const sl_lookup_ops *ops;   /* behaviour */
    void *impl;                 /* the connector's state */
    sl_lookup_cache_opts cache; /* the cache the operator keeps in front of it */
};

typedef struct sl_lookup_args {
    const sl_kvlist *options;  /* the table's WITH options (validated) */
    int ncols;                 /* columns of the table */
    const char *const *names;  /* their names */
    const sl_type *types;      /* their types */
    const char *table;         /* table name, for messages */
    int nkeys;                 /* lookup key columns */
    const int *keys;           /* their indexes among the table's columns */
    int64_t (*now)(void *ctx); /* processing-time clock (ns) for reloads; NULL = real */
    void *now_ctx;             /* for now */
} sl_lookup_args;

typedef int (*sl_lookup_create_fn)(const sl_lookup_args *args, sl_lookup **out, sl_error *err);

/* The lookup join. Input: the left rows (nl columns, any row kind: a row's
** kind passes to its output rows, as Flink). Each row's keys are
** key_exprs over it (of the key columns' types); a NULL key matches
** nothing. Output: left columns then the table's columns, for each row of
** the table with those keys for which cond (over the output row, or NULL)
** holds; LEFT also the row padded with NULLs when there is none. Rows go
** out in input order. Stateless for checkpoints (the cache is not kept). */
typedef struct sl_lookup_join_spec {
    int nl;                              /* left columns */
    const sl_type *l_types;              /* their types */
    int nkeys;                           /* lookup keys */
    const sl_bexpr *const *key_exprs;    /* over the left row, typed as the key columns */
    int type;                            /* SL_JOIN_INNER or SL_JOIN_LEFT */
    const sl_bexpr *cond;                /* over left ++ table columns, or NULL */
    const sl_tz *tz;                     /* for cond and the keys; NULL = UTC */
    sl_lookup_create_fn create;          /* the table's provider */
    sl_lookup_args args;                 /* its arguments (args.keys: the key columns) */
} sl_lookup_join_spec;
int sl_lookup_join_new(const sl_lookup_join_spec *spec, sl_operator **out, sl_error *err);

/* Hash of the key columns of every row of c (NULL-aware; equal keys hash
** equal: -0.0 = 0.0, every NaN alike). out has c->nrows entries. Used by
** hash exchanges and by the aggregation's key table. */
void sl_chunk_hash_keys(const sl_chunk *c, int nkeys, const int *keys, uint64_t *out);

/* ------------------------------------------------------------------------
** Jobs (job.c). A job is a dataflow graph of tasks, one thread each:
**
**   inputs   one or more sources (UNION ALL of them), each read by
**            `parallelism` tasks (subtask k of p), with stateless steps
**            chained to the source in the same task;
**   stages   after an exchange (by the hash of key columns, or everything
**            to one task), `parallelism` tasks each running a chain of
**            steps (calcs and stateful operators);
**   sink     chained at the end of the last stage's tasks (of the inputs'
**            when there is no stage): one sink instance per task.
**
** The layers (inputs and stages) form a tree towards the sink: each sends
** its rows to one later stage (`to`; by default the next), and a stage
** that several layers feed (a join: both its sides) receives from all
** their tasks, one lane each, in the order inputs then stages. Every layer
** feeding one stage produces the same column types.
**
** Event time: each source task's watermark is the largest WATERMARK
** expression value it has seen, advanced after each chunk it polls; a task
** after an exchange has the smallest watermark of its inputs (an input that
** ended counts as +infinity). At the end of a bounded input the watermark
** becomes INT64_MAX, which fires every window.
**
** Checkpoints (DESIGN.md section 5), coordinated by the thread calling
** sl_job_run:
**
**   1. every source task records its position and injects barrier N into
**      its outputs; a task with several inputs aligns (it stops reading an
**      input that delivered barrier N until all have);
**   2. at the barrier each task serializes its operators' state and its
**      watermark into memory (the synchronous part, short) and hands the
**      blobs to the coordinator; a sink task pre_commits epoch N (durable,
**      invisible -> committable) and begins N+1 at once, so writing never
**      waits for N's commit;
**   3. the coordinator writes the blobs into chk-N/ off the tasks' threads
**      (the asynchronous part); with a last-resource participant, its
**      decide(N) commits N's transaction with the record "N is decided" —
**      the decision —, then chk-N/_metadata is written (without one, that
**      write is the decision);
**   4. each sink task commits N's committable (idempotent); old checkpoints
**      are pruned.
**
**   start:  the participant (if any) fences earlier incarnations and reads
**           back its newest decision K; D = the newest sealed checkpoint,
**           or K when that is newer (chk-K is sealed first), or
**           restore_path; every task
**           restores its source position, operator state and watermark
**           from D, and every sink instance recover()s with all of D's
**           committables — commits them if they were not, discards every
**           later, undecided epoch.
**   end:    when every input has ended and its rows reached the sinks, a
**           final checkpoint commits everything, then the job ends.
**   stop:   should_stop -> the sources stop after a last barrier, which is
**           kept as a savepoint when asked; it is committed, then the job ends.
**
** The first checkpoint of a new job is 1; epoch N's rows are those written
** after checkpoint N-1 up to checkpoint N. A checkpoint records the graph's
** shape (operators, parallelism); restoring into a different shape is
** refused (55000), as rescaling state is not supported.
*/
typedef struct sl_calc_spec {
    const sl_bexpr *filter;       /* condition over the input, or NULL */
    bool project;                 /* project to exactly nexprs columns (0 is valid:
                                     COUNT(*) needs rows, no columns); else pass through */
    int nexprs;                   /* outputs */
    const sl_bexpr *const *exprs; /* over the input */
    const sl_type *out_types;     /* the outputs' types */
} sl_calc_spec;

/* Flink's 'table.exec.sink.type-length-enforcer' (enforce.c): what happens
** to a value of a sink's CHAR(n) / VARCHAR(n) / BINARY(n) / VARBINARY(n)
** column that does not have that length, just before the sink writes it
** (as Flink's ConstraintEnforcer). It sees the rows after the INSERT's
** mapping onto the table's columns (planner/physical.c: a CAST where the
** types differ). */
typedef enum sl_length_enforcer {
    SL_LENGTH_IGNORE = 0, /* written as they are */
    SL_LENGTH_TRIM_PAD,   /* a longer value is cut to n; a shorter CHAR / BINARY value is
                             padded with spaces / zero bytes */
    SL_LENGTH_ERROR       /* a longer value fails the job (22001), so does a shorter
                             CHAR / BINARY value unless pad_shorter (22026) */
} sl_length_enforcer;

/* One column the enforcer checks. */
typedef struct sl_length_col {
    int col;          /* the column of the sink's rows (its type: sl_sink_args.types) */
    bool pad_shorter; /* ERROR: pad a shorter CHAR / BINARY value instead (the mapping
                         converted it from another type, and a CAST pads) */
} sl_length_col;

typedef struct sl_length_spec {
    sl_length_enforcer mode;   /* IGNORE: no enforcer */
    int ncols;                 /* columns checked */
    const sl_length_col *cols; /* them */
    int pos;                   /* the INSERT's position, for errors */
} sl_length_spec;

/* The enforcer of one sink task; NULL when spec's mode is IGNORE or it has
** no columns. names and types: the sink's columns (they outlive it). */
typedef struct sl_length_check sl_length_check;
sl_length_check *sl_length_check_new(const sl_length_spec *spec, const char *const *names,
                                     const sl_type *types);
void sl_length_check_free(sl_length_check *c);
/* Rows in, rows out: *out is in when every checked value fits, else the
** check's own copy with the values trimmed and padded (TRIM_PAD, ERROR's
** pad_shorter). -1 with err (ERROR) when a value does not fit. */
int sl_length_check_run(sl_length_check *c, sl_chunk *in, sl_chunk **out, sl_error *err);

/* An operator's side output (late rows, deduplication conflicts): rows in a
** canonical layout of its kind, written to a sink table that joins the
** job's commit group (one sink instance per task running the step). */
typedef struct sl_side_spec {
    sl_sink_create_fn create_sink; /* the side table's sink */
    sl_sink_args sink_args;        /* its arguments (ncols/names/types = the table's;
                                      subtask/parallelism/job set by the runtime) */
    int ncols;                     /* = sink_args.ncols */
    const int *map;                /* per table column: the canonical column it takes */
} sl_side_spec;

/* One step of a chain: a calc, or a stateful operator created for each task
** from its spec (state is restored into it from the checkpoint). */
typedef struct sl_step_spec {
    const sl_calc_spec *calc;                                       /* a calc, or NULL */
    int (*create)(const void *arg, sl_operator **out, sl_error *err); /* an operator */
    const void *arg;                                                /* its spec */
    const char *name;                                               /* operator: its kind
                                                                       ("GroupAggregate"), for the
                                                                       checkpoint's shape */
    int out_ncols;                                                  /* operator: output columns */
    const sl_type *out_types;                                       /* operator: their types */
    const sl_side_spec *side[SL_SIDE_KINDS]; /* operator: its side outputs by kind, or NULL */
} sl_step_spec;

/* "Calc", or the operator's name: for the checkpoint's shape and EXPLAIN. */
const char *sl_step_name(const sl_step_spec *step);

/* One source of the job (a table scan) and the steps chained to it. The
** runtime sets source_args.subtask and .parallelism for each task. Every
** input's last step produces the same columns (UNION ALL). */
typedef struct sl_input_spec {
    sl_source_create_fn create_source; /* the source */
    sl_source_args source_args;        /* its arguments */
    const sl_bexpr *wm_expr;           /* its WATERMARK expression over the source
                                          columns, or NULL (no event time) */
    int nsteps;                        /* steps chained to the source */
    const sl_step_spec *steps;         /* them, applied in order */
    int to;                            /* the stage its rows go to, as index + 1; 0 = the
                                          first stage (or the sink when there is none) */
    bool proctime;                     /* the watermark is the processing time (the job's
                                          windows are over PROCTIME()): after each poll,
                                          the start of the current millisecond; wm_expr
                                          is not used */
    int shares;                        /* index + 1 of an earlier input whose source this
                                          one reads (scan reuse: the same table, columns and
                                          watermark): that input's tasks run this input's
                                          steps on every chunk they poll, and pass their
                                          watermarks, barriers and end on to them; only when
                                          every input feeds a stage and there is no LIMIT.
                                          0 = a source of its own */
} sl_input_spec;

typedef enum sl_exchange {
    SL_EXCHANGE_HASH,   /* row -> task by the hash of its key columns */
    SL_EXCHANGE_SINGLE, /* every row to the one task (parallelism 1) */
} sl_exchange;

/* Tasks after an exchange. */
typedef struct sl_stage_spec {
    sl_exchange exchange;       /* how rows reach the tasks */
    int nkeys;                  /* HASH: key columns of the arriving rows */
    const int *keys;            /* them */
    int parallelism;            /* tasks (SINGLE: 1) */
    int nsteps;                 /* steps of each task */
    const sl_step_spec *steps;  /* them */
    int to;                     /* the stage its rows go to, as index + 1 (a later one);
                                   0 = the next stage (the sink after the last) */
    int fork;                   /* sub-plan reuse: index + 1 of an earlier stage (its
                                   owner, of the same parallelism) whose tasks hand this
                                   one's steps the rows entering their step fork_at, and
                                   pass their watermarks (as held back by their steps
                                   before it), barriers and end on to them. Such a stage
                                   has no exchange and no thread of its own; neither it
                                   nor its owner ends in the sink. 0 = rows arrive by its
                                   exchange */
    int fork_at;                /* ... that step (0 .. the owner's nsteps) */
} sl_stage_spec;

typedef struct sl_job_stats {
    int64_t rows_in;          /* rows read from the sources */
    int64_t rows_out;         /* rows written to the sinks */
    int64_t rows_skipped;     /* malformed records skipped by the sources */
    int64_t rows_late;        /* rows dropped as later than the watermark */
    int64_t checkpoints;      /* checkpoints completed by this run */
    int64_t last_checkpoint;  /* newest decided checkpoint, -1 = none */
    int64_t restored_from;    /* checkpoint the run resumed from, -1 = none */
    int64_t last_checkpoint_ms; /* duration of the newest checkpoint (trigger to decision) */
    int64_t last_checkpoint_bytes; /* its size in storage */
    bool finished;            /* the input ended and everything was committed */
    int64_t restarts;         /* left 0 by sl_job_run: the engine's restarts of the job
                                 after transient failures */
    /* Over the job's life (SHOW JOBS): the counts each checkpoint keeps, as
    ** of the restored one, plus this run's. Rows read or written again
    ** after a crash count once, as the committed output holds them once. */
    int64_t life_rows_in;     /* rows read */
    int64_t life_rows_out;    /* rows written */
    int64_t life_rows_skipped;/* malformed records skipped */
    int64_t life_rows_late;   /* rows later than the watermark, dropped */
    int64_t conflicts;        /* this run's sink conflicts (sl_sink_ops.conflicts) and
                                 operator conflicts (sl_operator_ops.conflicts) */
    int64_t life_conflicts;   /* ... over the job's life */
    char open_txns[512];      /* the participants' open transactions (describe), "" = none */
    char warning[256];        /* why windows are not firing (stall_ms), "" = none */
} sl_job_stats;

typedef struct sl_job_spec {
    const char *name;                /* identity: checkpoints live in jobs/<name>/ */
    const char *data_dir;            /* the data directory; NULL = no checkpoints
                                        (a query's job: the sink commits at the end) */
    int64_t checkpoint_interval_ms;  /* 0 = checkpoint only at the end of a bounded input */
    int64_t idle_timeout_ms;         /* a source task without rows for this long is idle:
                                        its watermark no longer holds the others back
                                        (Flink's table.exec.source.idle-timeout); 0 = never */
    int64_t stall_ms;                /* rows arriving, none leaving and the event-time
                                        watermark unmoved this long: stats.warning says
                                        why, once per run (with progress); 0 = never */
    int retain;                      /* checkpoints to keep (>= 1) */
    /* Where checkpoints live ('execution.checkpointing.dir'): <it>/<name>,
    ** a local directory or a registered storage's URI (sl_chk_fs) opened
    ** with storage_opts; NULL = the data directory's jobs/<name>. */
    const char *checkpoint_dir;
    const sl_kvlist *storage_opts;
    /* A checkpoint or savepoint directory (.../chk-<N>) to start from instead
    ** of the job's own newest checkpoint (Flink's execution.savepoint.path);
    ** NULL = none. Epochs continue after both, so no name is reused. */
    const char *restore_path;
    const char *origin;              /* the job whose savepoint restore_path is (another
                                        name), or NULL: its participants' decisions count
                                        as this job's past (sl_participant_args.origin) */
    bool restore_fork;               /* restore_path is another job's, whose sinks are not
                                        these (a fork): its sink committables are left to
                                        that job, the lifetime counters start from zero */
    int parallelism;                 /* tasks per input (>= 1) */
    int ninputs;                     /* sources (>= 1; several = UNION ALL) */
    const sl_input_spec *inputs;     /* them */
    int nstages;                     /* stages after the inputs (0: the sink is
                                        chained to the inputs' tasks) */
    const sl_stage_spec *stages;     /* them, in order */
    sl_sink_create_fn create_sink;   /* the sink (one instance per last task) */
    sl_sink_args sink_args;          /* its arguments (subtask/parallelism set per task) */
    sl_length_spec sink_length;      /* the length enforcer before it (mode IGNORE: none) */
    /* The job's participants (top-level spec only; at most one last
    ** resource): each created once before the sinks, given to every sink
    ** instance whose sink_args.participates and participant_slot name it. */
    int nparticipants;                     /* 0 .. SL_MAX_PARTICIPANTS */
    const sl_participant_spec *participants; /* them */
    int64_t limit;                   /* stop after this many rows reached the sink; -1 =
                                        no limit (needs a single sink task) */
    /* A statement set: further pipelines, each with its own parallelism,
    ** inputs, stages, sink and limit (only those fields of each are read),
    ** run and checkpointed with this one: one checkpoint decides every
    ** sink's epoch, so they commit together. */
    int nextra;
    const struct sl_job_spec *extra;
    /* Polled about every 50 ms: non-zero stops the job (after a final
    ** checkpoint that is kept as a savepoint when *savepoint is set). */
    int (*should_stop)(void *ctx, bool *savepoint);
    void *stop_ctx;                  /* for should_stop */
    /* Informational messages ("resuming from checkpoint 7"); may be NULL. */
    void (*notice)(void *ctx, const char *message);
    void *notice_ctx;                /* for notice */
    /* Live counters, called from the coordinating thread about every 100 ms
    ** and after each checkpoint; may be NULL. */
    void (*progress)(void *ctx, const sl_job_stats *stats);
    void *progress_ctx;              /* for progress */
    /* The time zone the job was planned with ('table.local-time-zone'):
    ** every expression converting between instants and local date-times
    ** uses it (sl_eval_env.tz). Owned by the planner; NULL = UTC. */
    const sl_tz *tz;
    int64_t (*now)(void *ctx);       /* clock (ns) for checkpoint timing and
                                        CURRENT_TIMESTAMP; NULL = real; called from
                                        every task's thread */
    void *now_ctx;                   /* for now */
    /* Tests only (NULL otherwise): called at every step of a checkpoint
    ** ("position", "state-source", "pre-commit", "state-sink", "seal",
    ** "begin", "commit", "prune"), one call at a time; non-zero makes the job
    ** fail right there, as a crash at that moment would. */
    int (*failpoint)(void *ctx, const char *where);
    void *failpoint_ctx;             /* for failpoint */
} sl_job_spec;

/* Run the job until its bounded inputs end or should_stop asks; resume
** from the newest decided checkpoint of a job of that name. 0 with stats, or
** -1 with err (the job failed; nothing undecided becomes visible). */
int sl_job_run(const sl_job_spec *spec, sl_job_stats *stats, sl_error *err);

#endif /* SL_EXEC_H */
