/*
** syscat.c — PostgreSQL's catalog relations over the session's catalog:
** pg_catalog.pg_namespace, pg_class, pg_attribute, pg_type, pg_index,
** pg_constraint, pg_description, pg_attrdef, pg_collation, pg_am,
** pg_database and information_schema.tables / columns, with PostgreSQL's
** column names (the columns psql and pgJDBC read, and the obvious ones).
** Read-only, resolved by the binder like tables (sl_sysrel_find: qualified,
** or unqualified when no table or view has the name) and read by the bounded
** query path (bounded.c), which asks for their rows at query time
** (sl_sysrel_rows). They are never in the user catalog file.
**
** Objects: tables and views (temporary views too) are in schema public
** (oid 2200, as in PostgreSQL); the relations of this file in pg_catalog
** (oid 11) and information_schema (oid 13000). A relation's oid is stable:
** 16384 + (FNV-1a hash of "schema.name") mod 2^30 (sl_pg_relation_oid,
** base/sl_pgtype.c: the ::regclass cast computes the same). A PRIMARY KEY
** is a unique index <table>_pkey (pg_class relkind 'i', pg_index) and its
** constraint (pg_constraint contype 'p'); a column's COMMENT is its
** pg_description. Column types are base/sl_pgtype.c's, the wire server's.
** Every object belongs to the role "sluice" (oid 10); there is one
** database, "sluice" (oid 5), UTF8 (encoding 6). Types: oid -> BIGINT,
** name / text / "char" -> STRING, int2 / int4 -> INT, arrays -> their text.
**
** Relations of objects Sluice has none of (pg_policy, pg_statistic_ext,
** pg_publication*, pg_inherits, pg_trigger, pg_foreign_table) are empty; a
** view is its rule _RETURN in pg_rewrite, its columns (its query bound now)
** are in pg_attribute. The catalog functions that read objects
** (pg_get_indexdef, pg_get_constraintdef, pg_get_viewdef, col_description,
** obj_description, ...) reach the session through sl_sysrel_def (the bounded
** path's sl_eval_env.catalog_def).
**
** Main routines: sl_sysrel_find, sl_sysrel_cols, sl_sysrel_rows, sl_sysrel_oid,
** sl_sysrel_def.
*/
#include "planner_int.h"
#include "session_int.h"
#include "../base/sl_pgtype.h"

#include <string.h>

#define SL__OID_PG_CATALOG 11
#define SL__OID_PUBLIC 2200
#define SL__OID_INFO_SCHEMA 13000
#define SL__OID_HEAP 2

typedef enum sl__rel_id {
    SL__PG_NAMESPACE, SL__PG_CLASS, SL__PG_AM, SL__PG_DATABASE, SL__IS_TABLES, SL__IS_COLUMNS,
    SL__PG_ATTRIBUTE, SL__PG_TYPE, SL__PG_DESCRIPTION, SL__PG_ATTRDEF, SL__PG_INDEX,
    SL__PG_CONSTRAINT, SL__PG_COLLATION, SL__PG_ROLES, SL__PG_REWRITE, SL__PG_EMPTY,
} sl__rel_id;

/* Column type letters: o oid (BIGINT NOT NULL), n name (STRING NOT NULL), s
** text (STRING, nullable), c "char" (STRING NOT NULL), i int4, b bool. */
struct sl_sysrel {
    sl__rel_id id;          /* which */
    const char *schema;     /* pg_catalog / information_schema */
    const char *name;       /* relation name */
    const char *cols;       /* "name:letter,..." */
};

static const sl_sysrel sl__rels[] = {
    {SL__PG_NAMESPACE, "pg_catalog", "pg_namespace", "oid:o,nspname:n,nspowner:o"},
    {SL__PG_CLASS, "pg_catalog", "pg_class",
     "oid:o,relname:n,relnamespace:o,reltype:o,reloftype:o,relowner:o,relam:o,reltablespace:o,"
     "reltoastrelid:o,relhasindex:b,relpersistence:c,relkind:c,relnatts:i,relchecks:i,"
     "relhasrules:b,relhastriggers:b,relrowsecurity:b,relforcerowsecurity:b,relreplident:c,"
     "relispartition:b,reloptions:s,relpartbound:s"},
    {SL__PG_ATTRIBUTE, "pg_catalog", "pg_attribute",
     "attrelid:o,attname:n,atttypid:o,attlen:i,attnum:i,atttypmod:i,attnotnull:b,atthasdef:b,"
     "attidentity:c,attgenerated:c,attisdropped:b,attstorage:c,attcompression:c,"
     "attstattarget:i,attcollation:o"},
    {SL__PG_TYPE, "pg_catalog", "pg_type",
     "oid:o,typname:n,typnamespace:o,typowner:o,typlen:i,typtype:c,typnotnull:b,"
     "typbasetype:o,typtypmod:i,typcollation:o"},
    {SL__PG_DESCRIPTION, "pg_catalog", "pg_description",
     "objoid:o,classoid:o,objsubid:i,description:n"},
    {SL__PG_ATTRDEF, "pg_catalog", "pg_attrdef", "oid:o,adrelid:o,adnum:i,adbin:n"},
    {SL__PG_INDEX, "pg_catalog", "pg_index",
     "indexrelid:o,indrelid:o,indnatts:i,indisunique:b,indisprimary:b,indisclustered:b,"
     "indisvalid:b,indisreplident:b,indkey:n"},
    {SL__PG_CONSTRAINT, "pg_catalog", "pg_constraint",
     "oid:o,conname:n,connamespace:o,contype:c,condeferrable:b,condeferred:b,conrelid:o,"
     "conindid:o,conkey:n"},
    {SL__PG_COLLATION, "pg_catalog", "pg_collation", "oid:o,collname:n,collnamespace:o"},
    {SL__PG_AM, "pg_catalog", "pg_am", "oid:o,amname:n,amtype:c"},
    {SL__PG_DATABASE, "pg_catalog", "pg_database",
     "oid:o,datname:n,datdba:o,encoding:i,datlocprovider:c,datcollate:n,datctype:n,"
     "daticulocale:s,datacl:s,datallowconn:b"},
    {SL__PG_ROLES, "pg_catalog", "pg_roles",
     "oid:o,rolname:n,rolsuper:b,rolinherit:b,rolcreaterole:b,rolcreatedb:b,rolcanlogin:b,"
     "rolreplication:b,rolconnlimit:i,rolvaliduntil:s,rolbypassrls:b,rolconfig:s"},
    {SL__PG_REWRITE, "pg_catalog", "pg_rewrite",
     "oid:o,rulename:n,ev_class:o,ev_type:c,ev_enabled:c,is_instead:b"},
    /* relations of objects Sluice does not have: always empty */
    {SL__PG_EMPTY, "pg_catalog", "pg_policy",
     "oid:o,polname:n,polrelid:o,polcmd:c,polpermissive:b,polroles:n,polqual:s,polwithcheck:s"},
    {SL__PG_EMPTY, "pg_catalog", "pg_statistic_ext",
     "oid:o,stxrelid:o,stxname:n,stxnamespace:o,stxowner:o,stxstattarget:i,stxkeys:n,stxkind:n"},
    {SL__PG_EMPTY, "pg_catalog", "pg_publication",
     "oid:o,pubname:n,pubowner:o,puballtables:b,pubinsert:b,pubupdate:b,pubdelete:b,"
     "pubtruncate:b,pubviaroot:b"},
    {SL__PG_EMPTY, "pg_catalog", "pg_publication_rel", "oid:o,prpubid:o,prrelid:o,prqual:s,prattrs:s"},
    {SL__PG_EMPTY, "pg_catalog", "pg_publication_namespace", "oid:o,pnpubid:o,pnnspid:o"},
    {SL__PG_EMPTY, "pg_catalog", "pg_inherits",
     "inhrelid:o,inhparent:o,inhseqno:i,inhdetachpending:b"},
    {SL__PG_EMPTY, "pg_catalog", "pg_trigger",
     "oid:o,tgrelid:o,tgparentid:o,tgname:n,tgfoid:o,tgtype:i,tgenabled:c,tgisinternal:b,"
     "tgconstrrelid:o,tgconstrindid:o,tgconstraint:o,tgdeferrable:b,tginitdeferred:b,tgnargs:i"},
    {SL__PG_EMPTY, "pg_catalog", "pg_foreign_table", "ftrelid:o,ftserver:o,ftoptions:s"},
    {SL__IS_TABLES, "information_schema", "tables",
     "table_catalog:n,table_schema:n,table_name:n,table_type:n"},
    {SL__IS_COLUMNS, "information_schema", "columns",
     "table_catalog:n,table_schema:n,table_name:n,column_name:n,ordinal_position:i,"
     "is_nullable:n"},
};

const sl_sysrel *sl_sysrel_find(const char *schema, const char *name)
{
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__rels); i++) {
        const sl_sysrel *r = &sl__rels[i];
        bool in_schema = schema ? strcmp(schema, r->schema) == 0
                                : strcmp(r->schema, "pg_catalog") == 0;
        if (in_schema && strcmp(name, r->name) == 0)
            return r;
    }
    return NULL;
}

const char *sl_sysrel_schema(const sl_sysrel *r) { return r->schema; }
const char *sl_sysrel_name(const sl_sysrel *r) { return r->name; }

static sl_type sl__col_type(char letter)
{
    sl_type t;
    switch (letter) {
    case 'o': t = sl_type_make(SL_TYPE_BIGINT); t.not_null = true; break;
    case 'i': t = sl_type_make(SL_TYPE_INT); t.not_null = true; break;
    case 'b': t = sl_type_make(SL_TYPE_BOOLEAN); t.not_null = true; break;
    default:
        t = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
        t.not_null = letter != 's';
    }
    return t;
}

int sl_sysrel_cols(const sl_sysrel *r, char names[][64], sl_type *types, int max)
{
    int n = 0;
    for (const char *p = r->cols; *p && n < max;) {
        const char *colon = strchr(p, ':');
        size_t len = (size_t)(colon - p);
        memcpy(names[n], p, len);
        names[n][len] = 0;
        types[n] = sl__col_type(colon[1]);
        n++;
        p = colon + 2;
        if (*p == ',')
            p++;
    }
    return n;
}

int64_t sl_sysrel_oid(const char *schema, const char *name)
{
    return sl_pg_relation_oid(schema, name, strlen(name));
}

/* One row being appended: values in column order. */
typedef struct sl__rowb {
    sl_chunk *c; /* the rows */
    int r;       /* this row */
    int col;     /* next column */
} sl__rowb;

static sl__rowb sl__row(sl_chunk **c)
{
    if (sl_chunk_full(*c)) {
        int cap = (*c)->cap * 2;
        sl_type *types = sl_calloc((size_t)(*c)->ncols, sizeof(sl_type));
        for (int i = 0; i < (*c)->ncols; i++)
            types[i] = (*c)->cols[i].type;
        sl_chunk *n = sl_chunk_new((*c)->ncols, types, cap);
        sl_free(types);
        int *all = sl_calloc((size_t)(*c)->nrows, sizeof(int));
        for (int i = 0; i < (*c)->nrows; i++)
            all[i] = i;
        sl_chunk_append_rows(n, *c, all, (*c)->nrows);
        sl_free(all);
        sl_chunk_free(*c);
        *c = n;
    }
    sl__rowb b = {*c, sl_chunk_append_row(*c, SL_ROW_INSERT), 0};
    return b;
}

static void sl__i(sl__rowb *b, int64_t v) { sl_chunk_set_i64(b->c, b->col++, b->r, v); }
static void sl__b(sl__rowb *b, bool v) { sl_chunk_set_bool(b->c, b->col++, b->r, v); }
static void sl__null(sl__rowb *b) { sl_chunk_set_null(b->c, b->col++, b->r); }
static void sl__s(sl__rowb *b, const char *s) { sl_chunk_set_str(b->c, b->col++, b->r, s, strlen(s)); }

/* A pg_class row. */
static void sl__class_row(sl_chunk **c, const char *schema, int64_t nsp, const char *name,
                          const char *kind, int natts, bool has_index)
{
    sl__rowb b = sl__row(c);
    sl__i(&b, sl_sysrel_oid(schema, name));
    sl__s(&b, name);
    sl__i(&b, nsp);
    sl__i(&b, 0);
    sl__i(&b, 0);
    sl__i(&b, 10);
    sl__i(&b, kind[0] == 'r' || kind[0] == 'i' ? SL__OID_HEAP : 0);
    sl__i(&b, 0);
    sl__i(&b, 0);
    sl__b(&b, has_index);
    sl__s(&b, "p");
    sl__s(&b, kind);
    sl__i(&b, natts);
    sl__i(&b, 0);
    sl__b(&b, false);
    sl__b(&b, false);
    sl__b(&b, false);
    sl__b(&b, false);
    sl__s(&b, "d");
    sl__b(&b, false);
    sl__null(&b);
    sl__null(&b);
}

/* A relation of the session: a table or a view of public, or one of ours. */
typedef struct sl__obj {
    const char *schema;      /* its schema */
    int64_t nsp;             /* the schema's oid */
    const char *name;        /* its name */
    bool view;               /* a view (information_schema's relations are views) */
    const sl_table *table;   /* a table's columns, or NULL */
    sl_lp *vlp;              /* a view's query bound (its columns), or NULL */
    const sl_view *v;        /* the view, or NULL */
} sl__obj;

static void sl__obj_free(void *p)
{
    sl__obj *o = p;
    sl_lp_free(o->vlp);
    sl_free(o);
}

/* The bound query of a view (its columns); NULL when it no longer binds. */
static sl_lp *sl__view_lp(sl_session *s, const sl_view *v)
{
    sl_error e = SL_ERROR_INIT;
    sl_binder b = sl__binder(s, &e);
    sl_lp *lp = sl_bind_query(&b, v->def->query);
    sl_error_reset(&e);
    return lp;
}

static int sl__obj_ncols(const sl__obj *o)
{
    return o->table ? o->table->nall : o->vlp ? o->vlp->ncols : 0;
}

/* Column k of a table or a view: its name, type and comment. */
static const char *sl__obj_col(const sl__obj *o, int k, sl_type *type, const char **comment)
{
    *comment = NULL;
    if (o->table) {
        *type = o->table->all[k].type;
        *comment = o->table->all[k].comment;
        return o->table->all[k].name;
    }
    *type = o->vlp->cols[k].type;
    const sl_ident *alias = k < sl_list_len(o->v->def->column_names)
                                ? sl_list_get(o->v->def->column_names, k)
                                : NULL;
    return alias ? alias->name : o->vlp->cols[k].name;
}

static void sl__objects(sl_session *s, sl_list *out)
{
    sl_list *names = sl_catalog_table_names(sl__cat(s));
    for (int i = 0; i < names->n; i++) {
        sl__obj *o = sl_calloc(1, sizeof *o);
        const sl_table *t = sl_catalog_table(sl__cat(s), names->items[i]);
        *o = (sl__obj){"public", SL__OID_PUBLIC, t->name, false, t, NULL, NULL};
        sl_list_push(out, o);
    }
    sl_list_free(names, sl_free);
    names = sl_catalog_view_names(sl__cat(s));
    for (int i = 0; i < names->n; i++) {
        const sl_view *v = sl_catalog_view(sl__cat(s), names->items[i]);
        sl__obj *o = sl_calloc(1, sizeof *o);
        *o = (sl__obj){"public", SL__OID_PUBLIC, v->name, true, NULL, sl__view_lp(s, v), v};
        sl_list_push(out, o);
    }
    sl_list_free(names, sl_free);
    for (int i = 0; i < sl_list_len(s->tviews); i++) {
        const sl_view *v = sl_list_get(s->tviews, i);
        sl__obj *o = sl_calloc(1, sizeof *o);
        *o = (sl__obj){"public", SL__OID_PUBLIC, v->name, true, NULL, sl__view_lp(s, v), v};
        sl_list_push(out, o);
    }
    for (size_t i = 0; i < SL_ARRAY_LEN(sl__rels); i++) {
        bool is = strcmp(sl__rels[i].schema, "information_schema") == 0;
        sl__obj *o = sl_calloc(1, sizeof *o);
        *o = (sl__obj){sl__rels[i].schema, is ? SL__OID_INFO_SCHEMA : SL__OID_PG_CATALOG,
                       sl__rels[i].name, is, NULL, NULL, NULL};
        sl_list_push(out, o);
    }
}

sl_chunk *sl_sysrel_rows(const sl_sysrel *r, sl_session *s)
{
    char names[32][64];
    sl_type types[32];
    int ncols = sl_sysrel_cols(r, names, types, 32);
    sl_chunk *c = sl_chunk_new(ncols, types, 16);
    sl_list *objs = sl_list_new();
    sl__objects(s, objs);
    switch (r->id) {
    case SL__PG_NAMESPACE: {
        static const struct {
            int64_t oid;
            const char *name;
        } nsp[] = {{SL__OID_PG_CATALOG, "pg_catalog"}, {SL__OID_PUBLIC, "public"},
                   {SL__OID_INFO_SCHEMA, "information_schema"}};
        for (size_t i = 0; i < SL_ARRAY_LEN(nsp); i++) {
            sl__rowb b = sl__row(&c);
            sl__i(&b, nsp[i].oid);
            sl__s(&b, nsp[i].name);
            sl__i(&b, 10);
        }
        break;
    }
    case SL__PG_CLASS:
        for (int i = 0; i < objs->n; i++) {
            const sl__obj *o = objs->items[i];
            sl__class_row(&c, o->schema, o->nsp, o->name, o->view ? "v" : "r", sl__obj_ncols(o),
                          o->table && o->table->npk > 0);
            if (o->table && o->table->npk > 0) {
                char *idx = sl_sprintf("%s_pkey", o->name);
                sl__class_row(&c, o->schema, o->nsp, idx, "i", o->table->npk, false);
                sl_free(idx);
            }
        }
        break;
    case SL__PG_ATTRIBUTE:
        for (int i = 0; i < objs->n; i++) {
            const sl__obj *o = objs->items[i];
            for (int k = 0; k < sl__obj_ncols(o); k++) {
                sl_type ty;
                const char *comment;
                const char *name = sl__obj_col(o, k, &ty, &comment);
                sl_pgtype pt = sl_pgtype_of(ty);
                sl__rowb b = sl__row(&c);
                sl__i(&b, sl_sysrel_oid(o->schema, o->name));
                sl__s(&b, name);
                sl__i(&b, pt.oid);
                sl__i(&b, pt.size);
                sl__i(&b, k + 1);
                sl__i(&b, pt.typmod);
                /* a view's columns are never NOT NULL in PostgreSQL */
                sl__b(&b, o->table && ty.not_null);
                sl__b(&b, false);
                sl__s(&b, "");
                sl__s(&b, "");
                sl__b(&b, false);
                /* typstorage: numeric is main, other variable-length types extended */
                sl__s(&b, pt.oid == SL_OID_NUMERIC ? "m" : pt.size < 0 ? "x" : "p");
                sl__s(&b, "");
                sl__i(&b, -1);
                sl__i(&b, sl_type_is_string(ty.id) ? 100 : 0);
            }
        }
        break;
    case SL__PG_TYPE: {
        int n;
        const sl_pgtype_row *t = sl_pgtype_builtin(&n);
        for (int i = 0; i < n; i++) {
            sl__rowb b = sl__row(&c);
            sl__i(&b, t[i].oid);
            sl__s(&b, t[i].typname);
            sl__i(&b, SL__OID_PG_CATALOG);
            sl__i(&b, 10);
            sl__i(&b, t[i].typlen);
            sl__s(&b, "b");
            sl__b(&b, false);
            sl__i(&b, 0);
            sl__i(&b, -1);
            bool str = t[i].oid == SL_OID_TEXT || t[i].oid == SL_OID_VARCHAR || t[i].oid == SL_OID_BPCHAR;
            sl__i(&b, str ? 100 : 0);
        }
        break;
    }
    case SL__PG_DESCRIPTION:
        for (int i = 0; i < objs->n; i++) {
            const sl__obj *o = objs->items[i];
            if (o->table && o->table->def && o->table->def->comment) {
                sl__rowb b = sl__row(&c);
                sl__i(&b, sl_sysrel_oid(o->schema, o->name));
                sl__i(&b, sl_sysrel_oid("pg_catalog", "pg_class"));
                sl__i(&b, 0);
                sl__s(&b, o->table->def->comment);
            }
            for (int k = 0; o->table && k < o->table->nall; k++) {
                if (!o->table->all[k].comment)
                    continue;
                sl__rowb b = sl__row(&c);
                sl__i(&b, sl_sysrel_oid(o->schema, o->name));
                sl__i(&b, sl_sysrel_oid("pg_catalog", "pg_class"));
                sl__i(&b, k + 1);
                sl__s(&b, o->table->all[k].comment);
            }
        }
        break;
    case SL__PG_ATTRDEF:
    case SL__PG_EMPTY:
        break; /* no column has a default; no policies, publications, inheritance... */
    case SL__PG_ROLES: {
        sl__rowb b = sl__row(&c);
        sl__i(&b, 10);
        sl__s(&b, "sluice");
        for (int k = 0; k < 6; k++)
            sl__b(&b, true);
        sl__i(&b, -1);
        sl__null(&b);
        sl__b(&b, true);
        sl__null(&b);
        break;
    }
    case SL__PG_REWRITE:
        /* a view is its rule _RETURN, as in PostgreSQL */
        for (int i = 0; i < objs->n; i++) {
            const sl__obj *o = objs->items[i];
            if (!o->v)
                continue;
            sl__rowb b = sl__row(&c);
            sl__i(&b, sl_sysrel_oid("pg_rewrite", o->name));
            sl__s(&b, "_RETURN");
            sl__i(&b, sl_sysrel_oid(o->schema, o->name));
            sl__s(&b, "1");
            sl__s(&b, "O");
            sl__b(&b, true);
        }
        break;
    case SL__PG_COLLATION: {
        sl__rowb b = sl__row(&c);
        sl__i(&b, 100);
        sl__s(&b, "default");
        sl__i(&b, SL__OID_PG_CATALOG);
        break;
    }
    case SL__PG_INDEX:
    case SL__PG_CONSTRAINT:
        /* a PRIMARY KEY: a unique index <table>_pkey and its constraint */
        for (int i = 0; i < objs->n; i++) {
            const sl__obj *o = objs->items[i];
            if (!o->table || o->table->npk == 0)
                continue;
            char *idx = sl_sprintf("%s_pkey", o->name);
            sl_strbuf key = SL_STRBUF_INIT;
            for (int k = 0; k < o->table->npk; k++)
                sl_strbuf_appendf(&key, "%s%d", k ? " " : "", o->table->pk[k] + 1);
            sl__rowb b = sl__row(&c);
            if (r->id == SL__PG_INDEX) {
                sl__i(&b, sl_sysrel_oid(o->schema, idx));
                sl__i(&b, sl_sysrel_oid(o->schema, o->name));
                sl__i(&b, o->table->npk);
                sl__b(&b, true);
                sl__b(&b, true);
                sl__b(&b, false);
                sl__b(&b, true);
                sl__b(&b, false);
                sl__s(&b, sl_strbuf_cstr(&key));
            } else {
                sl__i(&b, sl_sysrel_oid("pg_constraint", idx));
                sl__s(&b, idx);
                sl__i(&b, o->nsp);
                sl__s(&b, "p");
                sl__b(&b, false);
                sl__b(&b, false);
                sl__i(&b, sl_sysrel_oid(o->schema, o->name));
                sl__i(&b, sl_sysrel_oid(o->schema, idx));
                sl_strbuf_reset(&key);
                sl_strbuf_append(&key, "{");
                for (int k = 0; k < o->table->npk; k++)
                    sl_strbuf_appendf(&key, "%s%d", k ? "," : "", o->table->pk[k] + 1);
                sl_strbuf_append(&key, "}");
                sl__s(&b, sl_strbuf_cstr(&key));
            }
            sl_strbuf_free(&key);
            sl_free(idx);
        }
        break;
    case SL__PG_AM: {
        sl__rowb b = sl__row(&c);
        sl__i(&b, SL__OID_HEAP);
        sl__s(&b, "heap");
        sl__s(&b, "t");
        break;
    }
    case SL__PG_DATABASE: {
        sl__rowb b = sl__row(&c);
        sl__i(&b, 5);
        sl__s(&b, "sluice");
        sl__i(&b, 10);
        sl__i(&b, 6);
        sl__s(&b, "c");
        sl__s(&b, "C.UTF-8");
        sl__s(&b, "C.UTF-8");
        sl__null(&b);
        sl__null(&b);
        sl__b(&b, true);
        break;
    }
    case SL__IS_TABLES:
        for (int i = 0; i < objs->n; i++) {
            const sl__obj *o = objs->items[i];
            sl__rowb b = sl__row(&c);
            sl__s(&b, "sluice");
            sl__s(&b, o->schema);
            sl__s(&b, o->name);
            sl__s(&b, o->view ? "VIEW" : "BASE TABLE");
        }
        break;
    case SL__IS_COLUMNS:
        for (int i = 0; i < objs->n; i++) {
            const sl__obj *o = objs->items[i];
            for (int k = 0; o->table && k < o->table->nall; k++) {
                sl__rowb b = sl__row(&c);
                sl__s(&b, "sluice");
                sl__s(&b, o->schema);
                sl__s(&b, o->name);
                sl__s(&b, o->table->all[k].name);
                sl__i(&b, k + 1);
                sl__s(&b, o->table->all[k].type.not_null ? "NO" : "YES");
            }
        }
        break;
    }
    sl_list_free(objs, sl__obj_free);
    return c;
}

/* An identifier as PostgreSQL's quote_ident shows it: double-quoted unless
** it is lower-case letters, digits and underscores, not starting with a digit. */
static void sl__pg_ident(sl_strbuf *sb, const char *name)
{
    bool plain = name[0] && !(name[0] >= '0' && name[0] <= '9');
    for (const char *p = name; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (plain) {
        sl_strbuf_append(sb, name);
        return;
    }
    sl_strbuf_append(sb, "\"");
    for (const char *p = name; *p; p++)
        sl_strbuf_appendf(sb, "%s%c", *p == '"' ? "\"" : "", *p);
    sl_strbuf_append(sb, "\"");
}

/* The primary key's columns "a, b" (only column k, 1-based, when k > 0). */
static void sl__pk_cols(sl_strbuf *sb, const sl_table *t, int64_t k)
{
    for (int i = 0; i < t->npk; i++) {
        if (k > 0 && i + 1 != k)
            continue;
        if (k == 0 && i > 0)
            sl_strbuf_append(sb, ", ");
        sl__pg_ident(sb, t->cols[t->pk[i]].name);
    }
}

int sl_sysrel_def(void *ctx, int fn, int64_t oid, int64_t arg, sl_strbuf *out)
{
    sl_session *s = ctx;
    sl_list *objs = sl_list_new();
    sl__objects(s, objs);
    int found = 0;
    for (int i = 0; !found && i < objs->n; i++) {
        const sl__obj *o = objs->items[i];
        int64_t rel = sl_sysrel_oid(o->schema, o->name);
        const sl_table *t = o->table;
        char *idx = sl_sprintf("%s_pkey", o->name);
        switch (fn) {
        case SL_FN_PG_GET_INDEXDEF:
            if (t && t->npk > 0 && oid == sl_sysrel_oid(o->schema, idx)) {
                found = 1;
                if (arg == 0) {
                    sl_strbuf_append(out, "CREATE UNIQUE INDEX ");
                    sl__pg_ident(out, idx);
                    /* the table's name, unqualified: it is visible (public) */
                    sl_strbuf_append(out, " ON ");
                    sl__pg_ident(out, o->name);
                    sl_strbuf_append(out, " USING btree (");
                    sl__pk_cols(out, t, 0);
                    sl_strbuf_append(out, ")");
                } else {
                    sl__pk_cols(out, t, arg);
                }
            }
            break;
        case SL_FN_PG_GET_CONSTRAINTDEF:
            if (t && t->npk > 0 && oid == sl_sysrel_oid("pg_constraint", idx)) {
                found = 1;
                sl_strbuf_append(out, "PRIMARY KEY (");
                sl__pk_cols(out, t, 0);
                sl_strbuf_append(out, ")");
            }
            break;
        case SL_FN_PG_GET_VIEWDEF:
            /* the view's query as Sluice prints it, in PostgreSQL's frame */
            if (o->v && oid == rel) {
                found = 1;
                sl_strbuf_append(out, " ");
                sl_query_print(out, o->v->def->query);
                sl_strbuf_append(out, ";");
            }
            break;
        case SL_FN_COL_DESCRIPTION:
            if (t && oid == rel && arg >= 1 && arg <= t->nall && t->all[arg - 1].comment) {
                found = 1;
                sl_strbuf_append(out, t->all[arg - 1].comment);
            }
            break;
        case SL_FN_OBJ_DESCRIPTION:
            if (t && oid == rel && t->def && t->def->comment) {
                found = 1;
                sl_strbuf_append(out, t->def->comment);
            }
            break;
        case SL_FN_PG_RELATION_IS_PUBLISHABLE:
            found = t && oid == rel;
            break;
        case SL_FN_PG_TABLE_SIZE:
            /* no storage of its own: a table's rows are its connector's */
            if (oid == rel || (t && t->npk > 0 && oid == sl_sysrel_oid(o->schema, idx))) {
                found = 1;
                sl_strbuf_append(out, "0");
            }
            break;
        default: /* PG_GET_STATISTICSOBJDEF_COLUMNS: no statistics objects */
            break;
        }
        sl_free(idx);
    }
    sl_list_free(objs, sl__obj_free);
    return found;
}
