/*
** sl_connector.h — the connector and format registry: the one way to declare
** a connector.
**
** Each connector declares, in one static table, its WITH options (name, type,
** required, default, secret, description) and its capabilities (DESIGN.md
** section 6: source replayability, the strongest sink guarantee and its
** mechanism, whether it accepts updates). Formats (json, csv) declare their
** options the same way, with keys prefixed by the format name
** ('json.ignore-parse-errors'). Nothing is inferred from a connector's name.
**
** The runtime parts of a connector (source/sink implementations) attach to
** the same declaration in later issues.
**
** Main routines: sl_connector_find, sl_connectors, sl_format_find,
** sl_connector_validate (checks a WITH clause against the declarations).
*/
#ifndef SL_CONNECTOR_H
#define SL_CONNECTOR_H

#include "../base/sl_base.h"
#include "../base/sl_type.h"
#include "../exec/sl_exec.h"

typedef enum sl_option_type {
    SL_OPT_STRING,   /* any text */
    SL_OPT_INT,      /* a 64-bit signed integer: "42" */
    SL_OPT_BOOL,     /* "true" / "false" (case-insensitive) */
    SL_OPT_DOUBLE,   /* a floating-point number */
    SL_OPT_DURATION, /* Flink duration: "500 ms", "10s", "1 min", "2 h", "1d"; bare number = ms */
    SL_OPT_MEMSIZE,  /* Flink memory size: "128mb", "1 gb", "512kb", bare number = bytes */
    SL_OPT_ENUM,     /* one of enum_values, case-insensitive */
} sl_option_type;

typedef struct sl_option_spec {
    const char *key;          /* option key; "fields.#.kind": # matches one column name */
    sl_option_type type;      /* value type */
    bool required;            /* must be present */
    const char *default_value;/* shown in docs / SHOW CONNECTORS; NULL = no default */
    bool secret;              /* value shown as '******' and never logged; keys that
                                 match sl_option_is_secret's rule need not say so */
    const char *enum_values;  /* SL_OPT_ENUM: "a|b|c" */
    const char *description;  /* one line for docs */
} sl_option_spec;

/* sl_guarantee is declared with the sinks in exec/sl_exec.h. */

typedef enum sl_sink_mechanism {
    SL_MECH_NONE = 0,          /* no commit protocol: writes are visible at once */
    SL_MECH_2PC_PREPARABLE,    /* pre-committed writes survive a crash (prepared txn) */
    SL_MECH_LAST_RESOURCE,     /* a transaction only this process can finish (Kafka) */
    SL_MECH_ATOMIC_RENAME,     /* files become visible by rename at commit */
    SL_MECH_IDEMPOTENT_UPSERT, /* replays overwrite the same keys */
    SL_MECH_MULTIPART_UPLOAD,  /* S3 multipart uploads, invisible until completed at commit
                                  (the filesystem sink on s3://, told by its probe) */
} sl_sink_mechanism;

/* What a live probe of a sink's system found (see sl_connector_caps.probe). */
typedef struct sl_sink_probe {
    sl_guarantee max;            /* the strongest guarantee it can give now */
    sl_sink_mechanism mech;      /* how, when the system decides it (PostgreSQL without
                                    prepared transactions: last resource); 0 = declared */
    int64_t max_txn_timeout_ms;  /* the system's largest transaction timeout, 0 = unknown */
    char *why;                   /* when max is lower than declared: the reason (owned) */
} sl_sink_probe;

/* Whether a source's input ends ('execution.runtime-mode' = 'batch' reads
** only bounded sources). The zero value is the safe one: unbounded. */
typedef enum sl_source_bound {
    SL_BOUND_NEVER = 0,  /* never ends (Kafka) */
    SL_BOUND_ALWAYS,     /* always ends (stdin at its end) */
    SL_BOUND_IF_SET,     /* ends when source_bound_option is set (datagen 'number-of-rows') */
    SL_BOUND_UNLESS_SET, /* ends unless it is set (filesystem 'source.monitor-interval') */
} sl_source_bound;

typedef struct sl_connector_caps {
    bool source;                 /* can be read from */
    bool sink;                   /* can be written to */
    bool source_replayable;      /* positions can be stored and rewound */
    sl_source_bound source_bound;    /* whether its input ends */
    const char *source_bound_option; /* the option that decides it (IF_SET / UNLESS_SET) */
    bool source_upserts;         /* the source reads an upsert changelog (+U: a key's row
                                    now, -D: its deletion) by the PRIMARY KEY: the planner
                                    normalizes it (ChangelogNormalize) */
    sl_guarantee sink_max;       /* the strongest guarantee the sink can give */
    const char *sink_max_why;    /* (optional) why no more, for the resolver's reason when
                                    more is requested ("an HTTP request cannot be ...") */
    sl_sink_mechanism sink_mech; /* how it gives sink_max */
    bool sink_updates;           /* accepts updating changelogs */
    bool sink_discards;          /* drops every row (blackhole): needs no -U before a +U */
    bool sink_upserts;           /* writes by the table's PRIMARY KEY (updates need one; a
                                    replay overwrites the same keys, so at-least-once leaves
                                    an exactly-once final state) */
    const char *sink_keyless_note; /* (optional) an upserting sink that also appends into
                                    a table without a PRIMARY KEY: what EXPLAIN notes for
                                    such a table ("the server generates the ids: a replay
                                    duplicates documents") */
    sl_guarantee sink_default;   /* guarantee when none is requested and checkpointing is on */
    /* Exactly-once by transactions (DESIGN.md section 6), NULL when not: */
    const char *txn_prefix_option;  /* option naming the transactional id prefix: required
                                       for exactly-once, unique among the catalog's tables */
    const char *txn_timeout_option; /* option setting the transaction timeout */
    int64_t txn_timeout_default_ms; /* its default */
    const char *txn_system;         /* the transactional system ("kafka"); last-resource
                                       sinks of one system with the same value of
                                       cluster_option commit together (one participant) */
    const char *cluster_option;     /* that option */
    /* Where the sink's rows land, for telling when two jobs write one place
    ** (planner/session_branch.c): the option naming it (a directory, a
    ** topic; with cluster_option's value when set), NULL = the table. */
    const char *sink_target_option;
    bool sink_target_path;          /* ... it names a directory (compared as a real path) */
    bool partitioned;               /* takes PARTITIONED BY (filesystem: directories) */
    /* A check of the live system at plan time, bounded by timeout_ms (a
    ** database setting, a broker limit); NULL when there is none. 0 with
    ** *out filled, or -1 with err when the system cannot be reached. */
    int (*probe)(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err);
    /* A source that can end where its input ends now (RECONCILE's input
    ** boundary): the options that bound a read there (appended to bound) and
    ** those end positions as text (summary, e.g. "p0:1234 p1:987"); NULL
    ** when it cannot. 0, or -1 with err when the system cannot be reached. */
    int (*source_end)(const sl_kvlist *opts, sl_kvlist *bound, sl_strbuf *summary, sl_error *err);
} sl_connector_caps;

/* The role of a sink's mechanism in the job's commit (DESIGN.md section 5):
** "preparable" (its pre-committed writes survive a crash: atomic rename,
** prepared transactions), "last resource" (only this process can finish
** its transaction), or "none" (not part of the commit: no protocol, or
** idempotent writes). */
const char *sl_mechanism_role(sl_sink_mechanism m);

/* What a connector's own check sees of the table being declared. */
typedef struct sl_table_shape {
    int ncols;                  /* number of columns */
    const char *const *names;   /* column names */
    const sl_type *types;       /* column types */
    int npk;                    /* number of PRIMARY KEY columns (0 = none) */
    const int *pk;              /* their column indexes (NULL when not known) */
    int npart;                  /* PARTITIONED BY columns (0 = none) */
    const int *part;            /* their column indexes */
    int part_pos;               /* byte offset of the first of them (errors) */
} sl_table_shape;

/* A metadata key a connector reads (and maybe writes): what a column
** `name type METADATA FROM 'key'` holds (Flink's names and types). */
typedef struct sl_metadata_spec {
    const char *key;         /* "timestamp", "file.path" */
    const char *type;        /* its type as Flink spells it: "TIMESTAMP_LTZ(3) NOT NULL" */
    sl_type_id id;           /* the same as a type (SL_TYPE_NULL: a type Sluice does not
                                have yet, a column of this key is refused, 0A000;
                                SL_TYPE_MAP: MAP<STRING, BYTES>, Kafka's headers) */
    int precision;           /* its precision (TIMESTAMP_LTZ(3): 3) */
    bool not_null;           /* NOT NULL */
    bool writable;           /* a sink writes it (a non-VIRTUAL column of this key) */
    const char *description; /* one line for docs */
} sl_metadata_spec;

typedef struct sl_connector sl_connector;
typedef struct sl_format sl_format;

struct sl_format {
    const char *name;              /* "json", "csv" */
    const char *description;       /* one line */
    const sl_option_spec *options; /* keys start with "<name>." */
    int noptions;                  /* number of options */
    /* Extra checks beyond types (one-character options, column count).
    ** May be NULL. Called after the connector's own check, only when this
    ** format is the table's 'format'. shape may be NULL. */
    int (*check)(const sl_format *f, const sl_kvlist *opts, const sl_table_shape *shape,
                 sl_error *err);
};

/* What sl_connector.pending_txns found (the caller zeroes it and frees
** the samples). */
typedef struct sl_pending_txns {
    int max_samples;      /* samples kept per kind */
    int64_t older, newer; /* open transactions begun before / after the time asked */
    sl_strbuf older_sample, newer_sample; /* "kafka <topic>:<partition> pending (newer:
                                             open) since <time> UTC (offsets <LSO>..<HWM>)",
                                             ", "-joined */
} sl_pending_txns;

struct sl_connector {
    const char *name;              /* value of 'connector' */
    const char *description;       /* one line */
    const sl_option_spec *options; /* its own options (not 'connector', not format options) */
    int noptions;                  /* number of options */
    bool has_format;               /* takes 'format' and that format's options */
    bool has_key_format;           /* also takes 'key.format' (its options as 'key.<fmt>.<x>')
                                      and 'value.format', the synonym of 'format' (its
                                      options also as 'value.<fmt>.<x>'): Kafka's records
                                      have a key and a value */
    const char *default_format;    /* (optional) the format of a table that sets no 'format'
                                      (Flink's default: "json" for opensearch); NULL: the
                                      option is required */
    sl_connector_caps caps;        /* capabilities */
    /* Extra checks beyond types (cross-option rules, column references such
    ** as fields.<col>.kind). May be NULL. Options have already passed type
    ** checks. Position errors at the offending key/value. shape may be NULL
    ** (then column-dependent checks are skipped). */
    int (*check)(const sl_connector *c, const sl_kvlist *opts, const sl_table_shape *shape,
                 sl_error *err);
    /* Checks for a table that is written (a Kafka sink writes one topic; a
    ** database table exists with these columns), run when an INSERT into it
    ** is planned (shape: the table's columns and key). May be NULL. */
    int (*check_sink)(const sl_connector *c, const sl_kvlist *opts, const sl_table_shape *shape,
                      sl_error *err);
    /* Checks for a table that is read (a database table exists with these
    ** columns and may be read), run when a query that scans it is planned
    ** (shape: the table's columns and key). May be NULL. */
    int (*check_source)(const sl_connector *c, const sl_kvlist *opts,
                        const sl_table_shape *shape, sl_error *err);
    /* The runtime side (sl_exec.h): create a source / sink instance. NULL
    ** when the connector cannot be read / written (caps say the same). */
    sl_source_create_fn create_source;
    sl_sink_create_fn create_sink;
    /* (optional) The table can be joined FOR SYSTEM_TIME AS OF a processing-
    ** time attribute (a lookup join, sl_exec.h): its lookup provider, and
    ** what EXPLAIN shows of it (the cache: "cache=[PARTIAL, max-rows=100]"). */
    sl_lookup_create_fn create_lookup;
    void (*lookup_describe)(const sl_kvlist *opts, sl_strbuf *out);
    /* A last-resource sink's participant (sl_exec.h), shared by every
    ** exactly-once sink of the job on one cluster; NULL for other sinks. */
    sl_participant_create_fn create_participant;
    /* (optional) Before DROP TABLE removes a table of this connector: 0, or
    ** -1 with err to refuse because the system holds something only the
    ** table's job can finish (PostgreSQL: prepared transactions of its
    ** transactional id prefix). A system that cannot be reached does not
    ** hold the drop up. */
    int (*drop_check)(const sl_connector *c, const sl_kvlist *opts, sl_error *err);
    /* The metadata keys it reads (Flink's SupportsReadingMetadata), NULL =
    ** none: a table of this connector has no METADATA column. */
    const sl_metadata_spec *metadata;
    int nmetadata;                 /* number of metadata keys */
    /* (optional) Markdown paragraphs for docs/CONNECTORS.md after the options
    ** (what the connector does beyond its options). */
    const char *notes;
    /* (optional) How far back a source's records can be read again (a
    ** restart from an old savepoint, a replay from the start), which EXPLAIN
    ** sets against a deduplication's 'table.exec.state.ttl': 0 with
    ** *horizon_ms in ms (INT64_MAX: everything, 0: nothing — a generated
    ** stream) and *what saying where it comes from ("retention.ms"), or -1
    ** with err when it cannot be told now (the broker does not answer within
    ** timeout_ms). NULL = unknown. */
    int (*replay_horizon)(const sl_kvlist *opts, int64_t timeout_ms, int64_t *horizon_ms,
                          const char **what, sl_error *err);
    /* (optional) RECONCILE's commit_boundary (planner/reconcile_job.c): the
    ** transactions open now on what the table names (Kafka: the partitions
    ** of 'topic' whose last stable offset is below their high watermark),
    ** added to *out: one whose first record is older than before_ms (epoch
    ** ms) in out->older, any other in out->newer, each with a sample (up to
    ** max_samples per kind). One that looks older is watched for up to
    ** settle_ms first: a transaction just committed ends then. 0, or -1
    ** with err when the system cannot be read. */
    int (*pending_txns)(const sl_kvlist *opts, int64_t before_ms, int64_t settle_ms,
                        sl_pending_txns *out, sl_error *err);
};

/* The metadata key of connector c, or NULL. */
const sl_metadata_spec *sl_connector_metadata(const sl_connector *c, const char *key);
/* Its type (from id, precision, not_null). */
sl_type sl_metadata_type(const sl_metadata_spec *spec);

/* The registry. */
const sl_connector *sl_connector_find(const char *name);          /* case-sensitive, NULL if none */
const sl_connector *const *sl_connectors(int *n);                 /* all, sorted by name */
/* Register with exec the checkpoint storages connectors' clients provide
** (sl_chk_fs: s3://); the engine calls it at start. */
void sl_connectors_register_storage(void);
const sl_format *sl_format_find(const char *name);
const sl_format *const *sl_formats(int *n);

/* Validate a WITH clause for a table: 'connector' present and known (else an
** error listing the known ones), every key known (else "did you mean"),
** required keys present, values of the right type, 'format' known when the
** connector takes one, then the connector's own check and the format's. (The
** first error found is reported, in this order: duplicate key, 'connector',
** 'format', each key in order, missing required, checks.) Keys common to every
** table ('connector', 'format', 'sink.delivery-guarantee' etc. declared by the
** registry) are accepted. missing_pos: where to point for a missing option
** (e.g. the WITH keyword). shape may be NULL (column checks skipped).
** Secret values never appear in err. 0 or -1 with err. */
int sl_connector_validate(const sl_kvlist *opts, const sl_table_shape *shape, int missing_pos,
                          sl_error *err);

/* The options of one of a table's formats, as its codec (sl_codec_new)
** reads them. role "value": 'format' = the table's 'format' or
** 'value.format', with its '<fmt>.<x>' and 'value.<fmt>.<x>' options as
** '<fmt>.<x>'; role "key": 'format' = 'key.format', with 'key.<fmt>.<x>' as
** '<fmt>.<x>'. NULL when that format is not set. Caller frees. */
sl_kvlist *sl_format_options(const sl_kvlist *opts, const char *role);

/* The spec of a key for this connector (its own, its format's or a common
** one), or NULL. Used for secrets and completion. */
const sl_option_spec *sl_connector_option(const sl_connector *c, const sl_kvlist *opts,
                                          const char *key);
/* The one rule for secret option and setting keys: true when key contains,
** case-insensitively, one of Flink's sensitive key parts (password, secret,
** fs.azure.account.key, apikey, auth-params, service-key, token, basic-auth,
** jaas.config, http-headers; and Sluice's api-key and authorization: the
** http-sink's 'http.sink.header.Authorization'), or is declared secret by any
** connector or format. A secret value is shown as SL_REDACTED ('******')
** wherever it can leave the engine (SHOW CREATE TABLE, EXPLAIN, errors, logs,
** job records, the shell's history); only the catalog file keeps it. */
bool sl_option_is_secret(const char *key);
/* sl_option_is_secret as an sl_stmt_print / sl_sql_redact callback (ctx unused). */
bool sl_option_secret_fn(const char *key, void *ctx);
/* Replace, in *text (owned, may be NULL), every occurrence of the value of
** a secret option of opts by SL_REDACTED: the last guard for texts that
** quote what another system said about a value (librdkafka, a job's error).
** Values under 4 bytes are left alone (they would garble every message). */
void sl_option_scrub(char **text, const sl_kvlist *opts);
/* sl_option_scrub on an error's message, detail and hint. */
void sl_option_scrub_error(sl_error *err, const sl_kvlist *opts);

/* Value parsers shared by validation and the runtime. Surrounding blanks are
** ignored, anything else after the value is an error. 0 or -1 with err
** (22023, position = value_pos, message e.g. `"abc" is not an integer`). */
int sl_option_parse_int(const char *v, int64_t *out, int value_pos, sl_error *err);
int sl_option_parse_bool(const char *v, bool *out, int value_pos, sl_error *err);
int sl_option_parse_duration_ms(const char *v, int64_t *out_ms, int value_pos, sl_error *err);
int sl_option_parse_memsize(const char *v, int64_t *out_bytes, int value_pos, sl_error *err);
int sl_option_parse_double(const char *v, double *out, int value_pos, sl_error *err); /* finite only */

/* Check one value against its spec (type, enum membership). The message
** names the key and, unless spec->secret, the value:
**   invalid value for option 'rows-per-second': "abc" is not an integer
** For secrets the value is left out (the reason goes to the detail).
** 0 or -1 with err (22023, position = value_pos). */
int sl_option_check_value(const sl_option_spec *spec, const char *key, const char *value,
                          int value_pos, sl_error *err);

/* Whether a source table of connector c with options opts is bounded. */
bool sl_connector_source_bounded(const sl_connector *c, const sl_kvlist *opts);
/* Its boundedness for docs and errors: "yes", "no", "when 'x' is set",
** "unless 'x' is set" (static or owned by sb's caller: written into sb). */
const char *sl_connector_bound_text(const sl_connector *c, sl_strbuf *sb);

const char *sl_guarantee_name(sl_guarantee g);      /* "none", "at-least-once", "exactly-once" */
const char *sl_mechanism_name(sl_sink_mechanism m); /* "none", "2pc-preparable", ... */
const char *sl_option_type_name(sl_option_type t);  /* "string", "int", "duration" ... */

/* Append docs/CONNECTORS.md: every connector and format with its options
** and capabilities, generated from the declarations (the unit test
** test_connectors_registry fails when the checked-in file differs). */
void sl_connectors_markdown(sl_strbuf *out);

/* Every option key any connector or format declares, plus the common keys
** ('connector', 'format', 'sink.delivery-guarantee' ...), sorted and unique;
** patterns keep their '#' ("fields.#.kind"). For completion. Caller frees
** with sl_list_free(l, sl_free). */
sl_list *sl_connector_option_keys(void);

/* ------------------------------------------------------------------------
** Standard input (connectors/stdin). It is one per process, so one stdin
** source reads it at a time (a second one fails with 55006). The shell calls
** this when it reads its own statements from standard input (a script on
** stdin, -f -, the REPL): from then on every stdin source fails with 55006
** and a hint to give the statements with -f or -e. Thread-safe.
*/
void sl_stdin_claim_for_script(void);

/* ------------------------------------------------------------------------
** Row codecs: the runtime side of a format (formats/codec_*.c). Sources
** decode records into chunk rows, sinks encode rows into records, with the
** table's format options. One codec per format; json uses Jansson.
*/
typedef struct sl_codec sl_codec;

/* Results of sl_codec_decode. */
#define SL_CODEC_ROW 0     /* a +I row was appended to out */
#define SL_CODEC_SKIPPED 1 /* malformed, skipped by '<format>.ignore-parse-errors' (count it) */
#define SL_CODEC_NONE 2    /* not a record (a CSV comment line, an empty line) */
/* Result of sl_codec_encode: the row is a null record (format 'raw', a NULL
** value: a Kafka message without a value); nothing was appended. */
#define SL_CODEC_NULL_RECORD 3

/* A codec for the table's 'format' and its options (already validated),
** for rows of the given columns. NULL with err (0A000) when the format has
** no codec or a column type is not supported by it. */
sl_codec *sl_codec_new(const sl_kvlist *table_opts, int ncols, const char *const *names,
                       const sl_type *types, sl_error *err);
void sl_codec_free(sl_codec *c);
/* sl_codec_new for a table with METADATA columns (meta[i] != NULL: the
** connector's, not the format's): a codec of the other columns, mapped
** onto chunks of all ncols (sl_codec_map_columns). meta NULL: sl_codec_new. */
sl_codec *sl_codec_new_physical(const sl_kvlist *table_opts, int ncols, const char *const *names,
                                const sl_type *types, const char *const *meta, sl_error *err);
/* Decode one record (a JSON object; one CSV record without its line break,
** which may span lines inside quotes; raw bytes) into a new +I row of out
** (out must not be full). rec NULL is a null record (a Kafka message
** without a value): a row of NULL for raw, SL_CODEC_NONE for the others.
** Returns SL_CODEC_ROW / SL_CODEC_SKIPPED / SL_CODEC_NONE, or -1 with err:
** SQLSTATE 22P02, message "malformed JSON record" / "malformed CSV record",
** detail naming the field and the problem (the caller adds file:line or
** topic/partition/offset and the record). A STRING value that is not valid
** UTF-8 is a malformed record in every format. A failed decode leaves out
** as it was. */
int sl_codec_decode(sl_codec *c, const char *rec, size_t len, sl_chunk *out, sl_error *err);
/* Encode row r of in as one record (no line break) appended to out. 0,
** SL_CODEC_NULL_RECORD (nothing appended), or -1 with err (22023 "cannot
** write <F> record": a value the format, or the line framing, cannot
** represent so that it reads back the same). */
int sl_codec_encode(sl_codec *c, const sl_chunk *in, int r, sl_strbuf *out, sl_error *err);
/* Records are lines (the filesystem and stdin connectors): a record ends at
** a '\n' (and a '\r' before it is dropped), except inside a quoted CSV
** field. After this call encode refuses (22023) what would not read back
** through that framing: a raw value holding a '\n' byte or ending in '\r',
** and a raw NULL string or bytes (no null record in a file). */
void sl_codec_set_line_framing(sl_codec *c);
/* Line framing: rec[0..n) starts with a record; returns the index of the
** '\n' that ends it, or n when rec does not hold its end yet. *reclen is
** the record's length without its line break: a '\r' before the '\n' (or,
** when none was found, at rec[n-1]: the last line of a file) is dropped
** unless the format escaped it. *scanned is how far the search got: 0 for
** a new record, then passed back unchanged when more bytes arrived after
** rec[n) (the scanner's state is kept in the codec). */
size_t sl_codec_line_end(sl_codec *c, const char *rec, size_t n, size_t *scanned,
                         size_t *reclen);
/* Read and write chunks of `width` columns, codec column i being chunk
** column map[i] (copied): for records that hold only some of a table's
** columns (a Kafka key; a value without the key). A decoded row's other
** columns are NULL. map NULL: back to the codec's own columns. */
void sl_codec_map_columns(sl_codec *c, int width, const int *map);
/* Decode one record into the existing row `row` of out (its mapped columns;
** nothing is appended): the key of a record whose value made the row. The
** results are sl_codec_decode's; after a failure the row's mapped columns
** are unspecified (drop the row). */
int sl_codec_decode_fill(sl_codec *c, const char *rec, size_t len, sl_chunk *out, int row,
                         sl_error *err);

#endif /* SL_CONNECTOR_H */
