/*
** test_parser_ast.c — AST lifetimes (ast.c): free, deep copy and structural
** equality. Trees are built by hand (sl_ast_fixture.h); the sanitizer build
** checks that free releases everything and dup shares nothing.
*/
#include "sl_ast_fixture.h"
#include "sl_test.h"

/* ------------------------------------------------------------------------
** Kitchen-sink trees that use every node kind and field.
*/

/* An expression using every expression kind. */
static sl_expr *big_expr(void)
{
    sl_expr *fn = fx_func("SUM", fx_list(1, fx_col("t", "x")));
    fn->over = fx_over(fx_list(2, fx_col(NULL, "a"), fx_col(NULL, "b")),
                       fx_list(1, fx_order(fx_col(NULL, "ts"), true, 1)));
    sl_expr *cnt = fx_func("count", NULL);
    cnt->ival = 1;
    sl_expr *dis = fx_func("COUNT", fx_list(1, fx_col(NULL, "u")));
    dis->distinct = true;
    sl_expr *cs = fx_case(fx_col(NULL, "k"),
                          fx_list(4, fx_num("1"), fx_str("one"), fx_num("2"), fx_str("it's")),
                          fx_null());
    sl_expr *arith = fx_bin(SL_OP_ADD, fx_un(SL_OP_NEG, fx_num("1.50")),
                            fx_bin(SL_OP_MUL, fn, fx_cast(fx_str("3"), sl_type_make(SL_TYPE_INT), true)));
    sl_expr *cmp = fx_bin(SL_OP_GE, arith, fx_interval("1-2", SL_UNIT_YEAR, SL_UNIT_MONTH, -1));
    sl_expr *conds = fx_bin(
        SL_OP_AND, cmp,
        fx_bin(SL_OP_OR, fx_is(fx_col(NULL, "n"), SL_IS_NULL, true),
               fx_between(fx_typed(SL_TYPE_DATE, "2024-01-01"), fx_num("1"), fx_num("2"), true)));
    sl_expr *more = fx_bin(
        SL_OP_AND, fx_in(cnt, false, fx_list(2, dis, cs)),
        fx_like(fx_bin(SL_OP_CONCAT, fx_str("a"), fx_col(NULL, "s")), fx_str("a%"), fx_str("!"),
                true));
    return fx_un(SL_OP_NOT, fx_bin(SL_OP_OR, conds,
                                   fx_bin(SL_OP_AND, more, fx_un(SL_OP_NOT, fx_bool(1)))));
}

/* A SELECT with every clause over a join of a window TVF and a subquery
** holding a UNION of a VALUES and a SELECT. */
static sl_query *big_query(void)
{
    sl_query *vals = fx_values(fx_list(2, fx_list(2, fx_num("1"), fx_str("a")),
                                       fx_list(2, fx_num("2"), fx_null())));
    sl_query *sel2 = fx_select(fx_list(2, fx_item(fx_col(NULL, "id"), NULL),
                                       fx_item(fx_col(NULL, "name"), "n")),
                               fx_table("users", "u"));
    sel2->limit = fx_num("5");
    sl_query *un = fx_union(vals, sel2, true);
    sl_from *win = fx_window(SL_WIN_HOP, "orders", "ts",
                             fx_list(2, fx_interval("5", SL_UNIT_MINUTE, SL_UNIT_NONE, -1),
                                     fx_interval("10", SL_UNIT_MINUTE, SL_UNIT_NONE, -1)),
                             "w");
    sl_from *join = fx_join(SL_JOIN_LEFT, win, fx_subquery(un, "s"),
                            fx_bin(SL_OP_EQ, fx_col("w", "id"), fx_col("s", "id")));
    sl_from *cross = fx_join(SL_JOIN_CROSS, join, fx_table("dim", NULL), NULL);
    sl_query *q = fx_select(fx_list(3, fx_item(fx_star("w"), NULL),
                                    fx_item(big_expr(), "flag"),
                                    fx_item(fx_func("window_start", NULL), NULL)),
                            cross);
    q->distinct = true;
    q->where = fx_bin(SL_OP_NE, fx_col(NULL, "status"), fx_str("x"));
    q->group_by = fx_list(2, fx_col(NULL, "a"), fx_col("w", "b"));
    q->having = fx_bin(SL_OP_GT, fx_func("count", NULL), fx_num("3"));
    q->order_by = fx_list(2, fx_order(fx_col(NULL, "a"), false, 2),
                          fx_order(fx_col(NULL, "b"), true, 0));
    q->limit = fx_num("10");
    q->offset = fx_num("2");
    return q;
}

static sl_stmt *big_create_table(void)
{
    sl_stmt *s = fx_stmt(SL_STMT_CREATE_TABLE, "orders");
    s->if_not_exists = true;
    s->columns = fx_list(3, fx_coldef("id", fx_type_nn(SL_TYPE_BIGINT), "the key"),
                         fx_coldef("amount", sl_type_make_p(SL_TYPE_DECIMAL, 10, 2), NULL),
                         fx_coldef("ts", sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0), NULL));
    s->primary_key = fx_list(1, fx_ident("id"));
    s->pk_pos = 77;
    s->wm_column = fx_ident("ts");
    s->wm_expr = fx_bin(SL_OP_SUB, fx_col(NULL, "ts"),
                        fx_interval("5", SL_UNIT_SECOND, SL_UNIT_NONE, -1));
    s->comment = sl_strdup("orders table");
    s->options = fx_kv(2, "connector", "kafka", "properties.sasl.password", "secret");
    s->options_pos = 99;
    return s;
}

/* One statement of every kind, each with its fields set. */
static sl_list *all_stmts(void)
{
    sl_list *l = sl_list_new();
    sl_list_push(l, big_create_table());
    sl_stmt *s = fx_stmt(SL_STMT_DROP_TABLE, "orders");
    s->if_exists = true;
    sl_list_push(l, s);
    s = fx_stmt(SL_STMT_ALTER_SET, "orders");
    s->options = fx_kv(1, "scan.startup.mode", "earliest-offset");
    sl_list_push(l, s);
    s = fx_stmt(SL_STMT_ALTER_RESET, "orders");
    s->options = fx_kv(2, "a", NULL, "b", NULL);
    sl_list_push(l, s);
    s = fx_stmt(SL_STMT_CREATE_VIEW, "v");
    s->temporary = true;
    s->if_not_exists = true;
    s->column_names = fx_list(2, fx_ident("x"), fx_ident("y"));
    s->query = big_query();
    sl_list_push(l, s);
    s = fx_stmt(SL_STMT_DROP_VIEW, "v");
    s->temporary = true;
    s->if_exists = true;
    sl_list_push(l, s);
    sl_stmt *ins = fx_stmt(SL_STMT_INSERT, "sink");
    ins->column_names = fx_list(1, fx_ident("a"));
    ins->query = fx_select(fx_list(1, fx_item(fx_col(NULL, "a"), NULL)), fx_table("src", NULL));
    sl_list_push(l, sl_stmt_dup(ins));
    s = fx_stmt(SL_STMT_STATEMENT_SET, NULL);
    s->stmts = fx_list(2, ins, fx_stmt(SL_STMT_INSERT, "other"));
    ((sl_stmt *)sl_list_get(s->stmts, 1))->query = fx_values(fx_list(1, fx_list(1, fx_num("1"))));
    sl_list_push(l, s);
    sl_list_push(l, fx_query_stmt(big_query()));
    s = fx_stmt(SL_STMT_SET, "parallelism.default");
    s->options = fx_kv(1, "parallelism.default", "4");
    sl_list_push(l, s);
    sl_list_push(l, fx_stmt(SL_STMT_SET, NULL));
    sl_list_push(l, fx_stmt(SL_STMT_RESET, "parallelism.default"));
    sl_list_push(l, fx_stmt(SL_STMT_RESET, NULL));
    s = fx_stmt(SL_STMT_SHOW, NULL);
    s->show = SL_SHOW_JOBS;
    sl_list_push(l, s);
    s = fx_stmt(SL_STMT_SHOW, "orders");
    s->show = SL_SHOW_CREATE_TABLE;
    sl_list_push(l, s);
    sl_list_push(l, fx_stmt(SL_STMT_DESCRIBE, "orders"));
    s = fx_stmt(SL_STMT_EXPLAIN, NULL);
    s->inner = fx_query_stmt(big_query());
    sl_list_push(l, s);
    s = fx_stmt(SL_STMT_STOP_JOB, "job-1");
    s->with_savepoint = true;
    sl_list_push(l, s);
    return l;
}

/* ------------------------------------------------------------------------
** Position scrambling: every position field of a tree gets a new value.
*/
static void scramble_expr(sl_expr *e);

static void scramble_list(sl_list *l)
{
    for (int i = 0; i < sl_list_len(l); i++)
        scramble_expr(sl_list_get(l, i));
}

static void scramble_orders(sl_list *l)
{
    for (int i = 0; i < sl_list_len(l); i++)
        scramble_expr(((sl_order_item *)sl_list_get(l, i))->expr);
}

static void scramble_expr(sl_expr *e)
{
    if (!e)
        return;
    e->pos += 31;
    e->op_pos = 7;
    scramble_expr(e->left);
    scramble_expr(e->right);
    scramble_list(e->args);
    scramble_expr(e->filter);
    if (e->over) {
        scramble_list(e->over->partition_by);
        scramble_orders(e->over->order_by);
    }
}

static void scramble_query(sl_query *q);

static void scramble_from(sl_from *f)
{
    if (!f)
        return;
    f->pos += 3;
    f->alias_pos += 5;
    f->time_col_pos += 11;
    scramble_query(f->subquery);
    scramble_from(f->left);
    scramble_from(f->right);
    scramble_expr(f->on);
    scramble_from(f->input);
    scramble_list(f->args);
}

static void scramble_query(sl_query *q)
{
    if (!q)
        return;
    q->pos += 13;
    for (int i = 0; i < sl_list_len(q->items); i++) {
        sl_select_item *it = sl_list_get(q->items, i);
        it->alias_pos += 17;
        scramble_expr(it->expr);
    }
    scramble_from(q->from);
    scramble_expr(q->where);
    scramble_list(q->group_by);
    scramble_expr(q->having);
    scramble_query(q->left);
    scramble_query(q->right);
    for (int i = 0; i < sl_list_len(q->rows); i++)
        scramble_list(sl_list_get(q->rows, i));
    scramble_orders(q->order_by);
    scramble_expr(q->limit);
    scramble_expr(q->offset);
}

static void scramble_stmt(sl_stmt *s)
{
    if (!s)
        return;
    s->pos += 1;
    s->end += 2;
    s->name_pos += 3;
    s->pk_pos += 4;
    s->options_pos += 5;
    for (int i = 0; i < sl_list_len(s->columns); i++) {
        sl_column_def *c = sl_list_get(s->columns, i);
        c->pos += 6;
        c->type_pos += 7;
    }
    for (int i = 0; i < sl_list_len(s->primary_key); i++)
        ((sl_ident *)sl_list_get(s->primary_key, i))->pos += 8;
    for (int i = 0; i < sl_list_len(s->column_names); i++)
        ((sl_ident *)sl_list_get(s->column_names, i))->pos += 9;
    if (s->wm_column)
        s->wm_column->pos += 10;
    scramble_expr(s->wm_expr);
    for (int i = 0; s->options && i < s->options->n; i++) {
        s->options->items[i].key_pos += 11;
        s->options->items[i].value_pos += 12;
    }
    scramble_query(s->query);
    for (int i = 0; i < sl_list_len(s->stmts); i++)
        scramble_stmt(sl_list_get(s->stmts, i));
    scramble_stmt(s->inner);
}

/* ------------------------------------------------------------------------
** Tests.
*/

static void t_free_null(void)
{
    sl_expr_free(NULL);
    sl_query_free(NULL);
    sl_from_free(NULL);
    sl_stmt_free(NULL);
    sl_order_item_free(NULL);
    sl_select_item_free(NULL);
    sl_column_def_free(NULL);
    sl_ident_free(NULL);
    sl_window_spec_free(NULL);
    sl_expr_free_v(NULL);
    sl_stmt_free_v(NULL);
    CHECK(sl_expr_dup(NULL) == NULL);
    CHECK(sl_query_dup(NULL) == NULL);
    CHECK(sl_stmt_dup(NULL) == NULL);
    CHECK(sl_expr_equal(NULL, NULL));
    CHECK(sl_query_equal(NULL, NULL));
    CHECK(sl_stmt_equal(NULL, NULL));
}

/* Each free function releases a whole tree (the sanitizer build checks). */
static void t_free_trees(void)
{
    sl_expr_free(big_expr());
    sl_query_free(big_query());
    sl_stmt_free(big_create_table());
    sl_list_free(all_stmts(), sl_stmt_free_v);
    sl_order_item_free(fx_order(big_expr(), true, 1));
    sl_select_item_free(fx_item(big_expr(), "alias"));
    sl_column_def_free(fx_coldef("c", sl_type_make(SL_TYPE_INT), "comment"));
    sl_ident_free(fx_ident("x"));
    sl_window_spec_free(fx_over(fx_list(1, big_expr()), fx_list(1, fx_order(fx_num("1"), 0, 0))));
    sl_from_free(fx_join(SL_JOIN_INNER, fx_table("a", "x"), fx_subquery(big_query(), "s"),
                         big_expr()));
    sl_expr_free_v(big_expr());
    sl_stmt_free_v(big_create_table());
}

/* An equal tree compares equal to itself, and an empty tree part to NULL
** only where both print the same. */
static void t_equal_self(void)
{
    sl_expr *e = big_expr();
    sl_query *q = big_query();
    sl_list *l = all_stmts();
    CHECK(sl_expr_equal(e, e));
    CHECK(sl_query_equal(q, q));
    for (int i = 0; i < l->n; i++)
        CHECK(sl_stmt_equal(l->items[i], l->items[i]));
    CHECK(!sl_expr_equal(e, NULL));
    CHECK(!sl_expr_equal(NULL, e));
    CHECK(!sl_query_equal(q, NULL));
    CHECK(!sl_stmt_equal(l->items[0], NULL));
    /* statements of different kinds differ */
    for (int i = 0; i < l->n; i++)
        for (int j = 0; j < l->n; j++)
            if (i != j)
                CHECK(!sl_stmt_equal(l->items[i], l->items[j]));
    sl_expr_free(e);
    sl_query_free(q);
    sl_list_free(l, sl_stmt_free_v);
}

/* dup gives an equal tree that shares no memory with the original. */
static void t_dup_equal(void)
{
    sl_list *l = all_stmts();
    for (int i = 0; i < l->n; i++) {
        sl_stmt *d = sl_stmt_dup(l->items[i]);
        CHECK(sl_stmt_equal(l->items[i], d));
        CHECK(sl_stmt_equal(d, l->items[i]));
        sl_stmt_free(d); /* a shared pointer would be a double free below */
    }
    sl_expr *e = big_expr();
    sl_expr *de = sl_expr_dup(e);
    CHECK(de != e && sl_expr_equal(e, de));
    CHECK(de->text == NULL || de->text != e->text);
    sl_query *q = big_query();
    sl_query *dq = sl_query_dup(q);
    CHECK(sl_query_equal(q, dq));
    sl_expr_free(e);
    sl_query_free(q);
    sl_list_free(l, sl_stmt_free_v);
    /* the copies live on after the originals are gone */
    CHECK(de->kind == SL_EXPR_UNARY && de->op == SL_OP_NOT);
    CHECK_INT(dq->kind, SL_QUERY_SELECT);
    CHECK_STR(((sl_select_item *)sl_list_get(dq->items, 1))->alias, "flag");
    sl_expr_free(de);
    sl_query_free(dq);
}

/* dup copies positions too. */
static void t_dup_positions(void)
{
    sl_stmt *s = big_create_table();
    sl_stmt *d = sl_stmt_dup(s);
    CHECK_INT(d->pos, s->pos);
    CHECK_INT(d->end, s->end);
    CHECK_INT(d->name_pos, s->name_pos);
    CHECK_INT(d->pk_pos, 77);
    CHECK_INT(d->options_pos, 99);
    CHECK_INT(((sl_column_def *)sl_list_get(d->columns, 1))->type_pos,
              ((sl_column_def *)sl_list_get(s->columns, 1))->type_pos);
    CHECK_INT(d->wm_column->pos, s->wm_column->pos);
    CHECK_INT(d->wm_expr->op_pos, s->wm_expr->op_pos);
    CHECK_INT(d->options->items[1].key_pos, s->options->items[1].key_pos);
    CHECK_INT(d->options->items[1].value_pos, s->options->items[1].value_pos);
    CHECK(d->options->items[1].key != s->options->items[1].key);
    sl_stmt_free(s);
    sl_stmt_free(d);
}

/* Changing any position anywhere keeps the trees equal. */
static void t_equal_ignores_positions(void)
{
    sl_list *l = all_stmts();
    for (int i = 0; i < l->n; i++) {
        sl_stmt *d = sl_stmt_dup(l->items[i]);
        scramble_stmt(d);
        CHECK(sl_stmt_equal(l->items[i], d));
        sl_stmt_free(d);
    }
    sl_list_free(l, sl_stmt_free_v);
}

/* ---- mutations: each changes one printed field of a copy ---- */

typedef void (*mutate_fn)(sl_stmt *s);

static sl_query *q_of(sl_stmt *s) { return s->query; }
static sl_expr *item_expr(sl_query *q, int i) { return ((sl_select_item *)sl_list_get(q->items, i))->expr; }

/* the NOT(OR(conds, AND(more, NOT TRUE))) of big_expr() */
static sl_expr *bx(sl_stmt *s) { return item_expr(q_of(s), 1); }
static sl_expr *bx_conds(sl_stmt *s) { return bx(s)->left->left; }
static sl_expr *bx_more(sl_stmt *s) { return bx(s)->left->right->left; }
static sl_expr *bx_cmp(sl_stmt *s) { return bx_conds(s)->left; }
static sl_expr *bx_arith(sl_stmt *s) { return bx_cmp(s)->left; }
static sl_expr *bx_fn(sl_stmt *s) { return bx_arith(s)->right->left; }
static sl_expr *bx_in(sl_stmt *s) { return bx_more(s)->left; }
static sl_expr *bx_like(sl_stmt *s) { return bx_more(s)->right; }
static sl_from *q_join(sl_stmt *s) { return q_of(s)->from->left; }

static void m_distinct(sl_stmt *s) { q_of(s)->distinct = false; }
static void m_alias(sl_stmt *s) { ((sl_select_item *)sl_list_get(q_of(s)->items, 1))->alias[0] = 'F'; }
static void m_alias_null(sl_stmt *s)
{
    sl_select_item *it = sl_list_get(q_of(s)->items, 1);
    sl_free(it->alias);
    it->alias = NULL;
}
static void m_star_qual(sl_stmt *s) { item_expr(q_of(s), 0)->qualifier[0] = 'v'; }
static void m_where(sl_stmt *s) { q_of(s)->where->op = SL_OP_EQ; }
static void m_where_null(sl_stmt *s) { sl_expr_free(q_of(s)->where); q_of(s)->where = NULL; }
static void m_group_by(sl_stmt *s) { sl_expr_free(q_of(s)->group_by->items[1]); q_of(s)->group_by->n--; }
static void m_having(sl_stmt *s) { q_of(s)->having->right->text[0] = '4'; }
static void m_order_desc(sl_stmt *s) { ((sl_order_item *)sl_list_get(q_of(s)->order_by, 1))->desc = false; }
static void m_order_nulls(sl_stmt *s) { ((sl_order_item *)sl_list_get(q_of(s)->order_by, 0))->nulls = 1; }
static void m_limit(sl_stmt *s) { sl_expr_free(q_of(s)->limit); q_of(s)->limit = NULL; }
static void m_offset(sl_stmt *s) { q_of(s)->offset->text[0] = '3'; }
static void m_cross_to_inner(sl_stmt *s) { q_of(s)->from->join_type = SL_JOIN_INNER; }
static void m_join_type(sl_stmt *s) { q_join(s)->join_type = SL_JOIN_RIGHT; }
static void m_join_on(sl_stmt *s) { q_join(s)->on->right->qualifier[0] = 'w'; }
static void m_table_name(sl_stmt *s) { q_of(s)->from->right->name[0] = 'D'; }
static void m_table_alias(sl_stmt *s) { q_of(s)->from->right->alias = sl_strdup("d"); }
static void m_window_fn(sl_stmt *s) { q_join(s)->left->window_fn = SL_WIN_CUMULATE; }
static void m_window_table(sl_stmt *s) { q_join(s)->left->input->name[0] = 'O'; }
static void m_window_col(sl_stmt *s) { q_join(s)->left->time_col[0] = 'T'; }
static void m_window_args(sl_stmt *s) { ((sl_expr *)sl_list_get(q_join(s)->left->args, 1))->text[0] = '9'; }
static void m_window_alias(sl_stmt *s) { q_join(s)->left->alias[0] = 'W'; }
static void m_subq_alias(sl_stmt *s) { q_join(s)->right->alias[0] = 'S'; }
static void m_union_all(sl_stmt *s) { q_join(s)->right->subquery->all = false; }
static void m_union_right_limit(sl_stmt *s) { q_join(s)->right->subquery->right->limit->text[0] = '6'; }
static void m_values_cell(sl_stmt *s)
{
    sl_list *row = sl_list_get(q_join(s)->right->subquery->left->rows, 1);
    sl_expr_free(row->items[1]);
    row->items[1] = fx_str("b");
}
static void m_values_row(sl_stmt *s)
{
    sl_list *rows = q_join(s)->right->subquery->left->rows;
    sl_list_free(rows->items[1], sl_expr_free_v);
    rows->n--;
}
static void m_not(sl_stmt *s) { bx(s)->op = SL_OP_NEG; }
static void m_is_negated(sl_stmt *s) { bx_conds(s)->right->left->negated = false; }
static void m_is_kind(sl_stmt *s) { bx_conds(s)->right->left->op = SL_IS_UNKNOWN; }
static void m_between_negated(sl_stmt *s) { bx_conds(s)->right->right->negated = false; }
static void m_typed(sl_stmt *s) { bx_conds(s)->right->right->left->type.id = SL_TYPE_TIMESTAMP; }
static void m_typed_text(sl_stmt *s) { bx_conds(s)->right->right->left->text[3] = '5'; }
static void m_interval_unit(sl_stmt *s) { bx_cmp(s)->right->unit = SL_UNIT_DAY; }
static void m_interval_to(sl_stmt *s) { bx_cmp(s)->right->unit_to = SL_UNIT_NONE; }
static void m_interval_prec(sl_stmt *s) { bx_cmp(s)->right->unit_precision = 2; }
static void m_number(sl_stmt *s) { bx_arith(s)->left->left->text[3] = '1'; }
static void m_unary_op(sl_stmt *s) { bx_arith(s)->left->op = SL_OP_PLUS; }
static void m_cast_type(sl_stmt *s) { bx_arith(s)->right->right->type.id = SL_TYPE_BIGINT; }
static void m_cast_nn(sl_stmt *s) { bx_arith(s)->right->right->type.not_null = true; }
static void m_cast_try(sl_stmt *s) { bx_arith(s)->right->right->ival = 0; }
static void m_func_name(sl_stmt *s) { bx_fn(s)->text[0] = 'X'; }
static void m_func_arg_qual(sl_stmt *s) { ((sl_expr *)sl_list_get(bx_fn(s)->args, 0))->qualifier[0] = 'q'; }
static void m_over_partition(sl_stmt *s) { bx_fn(s)->over->partition_by->n--; sl_expr_free(bx_fn(s)->over->partition_by->items[1]); }
static void m_over_order(sl_stmt *s) { ((sl_order_item *)sl_list_get(bx_fn(s)->over->order_by, 0))->nulls = 2; }
static void m_over_null(sl_stmt *s) { sl_window_spec_free(bx_fn(s)->over); bx_fn(s)->over = NULL; }
static void m_func_star(sl_stmt *s) { bx_in(s)->left->ival = 0; }
static void m_func_distinct(sl_stmt *s) { ((sl_expr *)sl_list_get(bx_in(s)->args, 0))->distinct = false; }
static void m_in_negated(sl_stmt *s) { bx_in(s)->negated = true; }
static void m_case_operand(sl_stmt *s) { sl_expr *c = sl_list_get(bx_in(s)->args, 1); sl_expr_free(c->left); c->left = NULL; }
static void m_case_then(sl_stmt *s) { sl_expr *c = sl_list_get(bx_in(s)->args, 1); ((sl_expr *)sl_list_get(c->args, 3))->text[2] = 'S'; }
static void m_case_else(sl_stmt *s) { sl_expr *c = sl_list_get(bx_in(s)->args, 1); c->right->kind = SL_EXPR_BOOL; }
static void m_like_escape(sl_stmt *s) { sl_list_free(bx_like(s)->args, sl_expr_free_v); bx_like(s)->args = NULL; }
static void m_like_negated(sl_stmt *s) { bx_like(s)->negated = false; }
static void m_concat(sl_stmt *s) { bx_like(s)->left->op = SL_OP_ADD; }
static void m_bool(sl_stmt *s) { bx(s)->left->right->right->left->ival = 0; }
static void m_string(sl_stmt *s) { bx_like(s)->right->text[1] = '_'; }
static void m_column_case(sl_stmt *s) { bx_like(s)->left->right->text[0] = 'S'; }
static void m_column_qual(sl_stmt *s)
{
    sl_expr *c = bx_like(s)->left->right;
    c->qualifier = sl_strdup("t");
}

static const mutate_fn query_mutations[] = {
    m_distinct, m_alias, m_alias_null, m_star_qual, m_where, m_where_null, m_group_by,
    m_having, m_order_desc, m_order_nulls, m_limit, m_offset, m_cross_to_inner, m_join_type,
    m_join_on, m_table_name, m_table_alias, m_window_fn, m_window_table, m_window_col,
    m_window_args, m_window_alias, m_subq_alias, m_union_all, m_union_right_limit,
    m_values_cell, m_values_row, m_not, m_is_negated, m_is_kind, m_between_negated, m_typed,
    m_typed_text, m_interval_unit, m_interval_to, m_interval_prec, m_number, m_unary_op,
    m_cast_type, m_cast_nn, m_cast_try, m_func_name, m_func_arg_qual, m_over_partition,
    m_over_order, m_over_null, m_func_star, m_func_distinct, m_in_negated, m_case_operand,
    m_case_then, m_case_else, m_like_escape, m_like_negated, m_concat, m_bool, m_string,
    m_column_case, m_column_qual,
};

/* Every change of a printed field in a copy makes it unequal. */
static void t_equal_detects_query_changes(void)
{
    sl_stmt *orig = fx_query_stmt(big_query());
    for (size_t i = 0; i < SL_ARRAY_LEN(query_mutations); i++) {
        sl_stmt *d = sl_stmt_dup(orig);
        REQUIRE(sl_stmt_equal(orig, d));
        query_mutations[i](d);
        if (sl_stmt_equal(orig, d) || sl_stmt_equal(d, orig)) {
            fprintf(stderr, "  query mutation #%zu not detected\n", i);
            CHECK(0);
        }
        sl_stmt_free(d);
    }
    sl_stmt_free(orig);
}

static void c_name(sl_stmt *s) { s->name[0] = 'O'; }
static void c_ine(sl_stmt *s) { s->if_not_exists = false; }
static void c_col_name(sl_stmt *s) { ((sl_column_def *)sl_list_get(s->columns, 0))->name[0] = 'I'; }
static void c_col_type(sl_stmt *s) { ((sl_column_def *)sl_list_get(s->columns, 1))->type.scale = 3; }
static void c_col_nn(sl_stmt *s) { ((sl_column_def *)sl_list_get(s->columns, 0))->type.not_null = false; }
static void c_col_comment(sl_stmt *s) { ((sl_column_def *)sl_list_get(s->columns, 1))->comment = sl_strdup(""); }
static void c_col_drop(sl_stmt *s) { sl_column_def_free(s->columns->items[2]); s->columns->n--; }
static void c_pk(sl_stmt *s) { ((sl_ident *)sl_list_get(s->primary_key, 0))->name[0] = 'x'; }
static void c_pk_more(sl_stmt *s) { sl_list_push(s->primary_key, fx_ident("ts")); }
static void c_wm_col(sl_stmt *s) { s->wm_column->name[0] = 'T'; }
static void c_wm_expr(sl_stmt *s) { s->wm_expr->right->text[0] = '3'; }
static void c_comment(sl_stmt *s) { sl_free(s->comment); s->comment = NULL; }
static void c_opt_key(sl_stmt *s) { s->options->items[0].key[0] = 'C'; }
static void c_opt_value(sl_stmt *s) { s->options->items[1].value[0] = 'S'; }
static void c_opt_more(sl_stmt *s) { sl_kvlist_add(s->options, "format", "json", -1, -1); }
static void c_opt_order(sl_stmt *s)
{
    sl_kv t = s->options->items[0];
    s->options->items[0] = s->options->items[1];
    s->options->items[1] = t;
}

static const mutate_fn table_mutations[] = {
    c_name, c_ine, c_col_name, c_col_type, c_col_nn, c_col_comment, c_col_drop, c_pk, c_pk_more,
    c_wm_col, c_wm_expr, c_comment, c_opt_key, c_opt_value, c_opt_more, c_opt_order,
};

static void t_equal_detects_table_changes(void)
{
    sl_stmt *orig = big_create_table();
    for (size_t i = 0; i < SL_ARRAY_LEN(table_mutations); i++) {
        sl_stmt *d = sl_stmt_dup(orig);
        REQUIRE(sl_stmt_equal(orig, d));
        table_mutations[i](d);
        if (sl_stmt_equal(orig, d) || sl_stmt_equal(d, orig)) {
            fprintf(stderr, "  table mutation #%zu not detected\n", i);
            CHECK(0);
        }
        sl_stmt_free(d);
    }
    sl_stmt_free(orig);
}

/* Statement-level flags of the other kinds. */
static void t_equal_detects_stmt_changes(void)
{
    sl_list *l = all_stmts();
    for (int i = 0; i < l->n; i++) {
        sl_stmt *s = l->items[i];
        sl_stmt *d = sl_stmt_dup(s);
        bool changed = true;
        switch (s->kind) {
        case SL_STMT_DROP_TABLE: d->if_exists = false; break;
        case SL_STMT_ALTER_SET: d->options->items[0].value[0] = 'l'; break;
        case SL_STMT_ALTER_RESET: d->options->items[1].key[0] = 'c'; break;
        case SL_STMT_CREATE_VIEW:
            ((sl_ident *)sl_list_get(d->column_names, 1))->name[0] = 'z';
            break;
        case SL_STMT_DROP_VIEW: d->temporary = false; break;
        case SL_STMT_INSERT: d->name[0] = 'S'; break;
        case SL_STMT_STATEMENT_SET: ((sl_stmt *)sl_list_get(d->stmts, 1))->name[0] = 'O'; break;
        case SL_STMT_QUERY: d->query->offset->text[0] = '7'; break;
        case SL_STMT_SET:
            if (d->options)
                d->options->items[0].value[0] = '8';
            else
                d->name = sl_strdup("k");
            break;
        case SL_STMT_RESET:
            if (d->name)
                d->name[0] = 'P';
            else
                d->name = sl_strdup("k");
            break;
        case SL_STMT_SHOW:
            if (d->show == SL_SHOW_CREATE_TABLE)
                d->show = SL_SHOW_CREATE_VIEW;
            else
                d->show = SL_SHOW_TABLES;
            break;
        case SL_STMT_DESCRIBE: d->name[1] = 'R'; break;
        case SL_STMT_EXPLAIN: d->inner->query->distinct = false; break;
        case SL_STMT_STOP_JOB: d->with_savepoint = false; break;
        default: changed = false; break;
        }
        if (changed && sl_stmt_equal(s, d)) {
            fprintf(stderr, "  statement #%d (kind %d): change not detected\n", i, s->kind);
            CHECK(0);
        }
        sl_stmt_free(d);
    }
    sl_list_free(l, sl_stmt_free_v);
}

/* Flags that a statement kind does not print are not compared; NULL and
** empty lists/kvlists compare equal (both print as nothing). */
static void t_equal_unprinted_and_empty(void)
{
    sl_stmt *a = fx_stmt(SL_STMT_DROP_TABLE, "t");
    sl_stmt *b = fx_stmt(SL_STMT_DROP_TABLE, "t");
    b->show = 3; /* DROP TABLE prints no SHOW kind */
    CHECK(sl_stmt_equal(a, b));
    sl_stmt_free(a);
    sl_stmt_free(b);

    a = fx_stmt(SL_STMT_INSERT, "t");
    b = fx_stmt(SL_STMT_INSERT, "t");
    a->query = fx_select(fx_list(1, fx_item(fx_num("1"), NULL)), NULL);
    b->query = sl_query_dup(a->query);
    b->column_names = sl_list_new();
    b->query->group_by = sl_list_new();
    b->query->order_by = sl_list_new();
    CHECK(sl_stmt_equal(a, b));
    sl_stmt_free(a);
    sl_stmt_free(b);

    a = big_create_table();
    b = sl_stmt_dup(a);
    sl_kvlist_free(a->options);
    sl_kvlist_free(b->options);
    a->options = NULL;
    b->options = sl_kvlist_new();
    CHECK(sl_stmt_equal(a, b));
    sl_stmt_free(a);
    sl_stmt_free(b);

    /* an INTERVAL's units matter, a column's don't */
    sl_expr *x = fx_col(NULL, "a"), *y = fx_col(NULL, "a");
    y->unit_precision = 0;
    y->unit = SL_UNIT_DAY;
    y->type = sl_type_make(SL_TYPE_INT);
    CHECK(sl_expr_equal(x, y));
    sl_expr_free(x);
    sl_expr_free(y);
}

/* Identifiers are case-sensitive, function names are not. */
static void t_equal_case(void)
{
    sl_expr *a = fx_func("count", fx_list(1, fx_col(NULL, "a")));
    sl_expr *b = fx_func("COUNT", fx_list(1, fx_col(NULL, "a")));
    CHECK(sl_expr_equal(a, b));
    sl_free(((sl_expr *)sl_list_get(b->args, 0))->text);
    ((sl_expr *)sl_list_get(b->args, 0))->text = sl_strdup("A");
    CHECK(!sl_expr_equal(a, b));
    sl_expr_free(a);
    sl_expr_free(b);

    sl_stmt *s = fx_stmt(SL_STMT_DESCRIBE, "Orders");
    sl_stmt *t = fx_stmt(SL_STMT_DESCRIBE, "orders");
    CHECK(!sl_stmt_equal(s, t));
    sl_stmt_free(s);
    sl_stmt_free(t);
}

/* A kvlist value NULL (RESET keys) differs from an empty string. */
static void t_equal_kv_null_value(void)
{
    sl_stmt *a = fx_stmt(SL_STMT_ALTER_RESET, "t");
    sl_stmt *b = fx_stmt(SL_STMT_ALTER_RESET, "t");
    a->options = fx_kv(1, "k", NULL);
    b->options = fx_kv(1, "k", "");
    CHECK(!sl_stmt_equal(a, b));
    sl_stmt_free(a);
    sl_stmt_free(b);
}

/* The copy is independent: changing the original leaves the copy alone. */
static void t_dup_independent(void)
{
    sl_stmt *s = big_create_table();
    sl_stmt *d = sl_stmt_dup(s);
    s->name[0] = 'X';
    s->options->items[0].value[0] = 'X';
    ((sl_column_def *)sl_list_get(s->columns, 0))->comment[0] = 'X';
    s->wm_expr->left->text[0] = 'X';
    CHECK_STR(d->name, "orders");
    CHECK_STR(d->options->items[0].value, "kafka");
    CHECK_STR(((sl_column_def *)sl_list_get(d->columns, 0))->comment, "the key");
    CHECK_STR(d->wm_expr->left->text, "ts");
    CHECK(!sl_stmt_equal(s, d));
    sl_stmt_free(s);
    sl_stmt_free(d);
}

SL_TESTS(t_free_null, t_free_trees, t_equal_self, t_dup_equal, t_dup_positions,
         t_equal_ignores_positions, t_equal_detects_query_changes, t_equal_detects_table_changes,
         t_equal_detects_stmt_changes, t_equal_unprinted_and_empty, t_equal_case,
         t_equal_kv_null_value, t_dup_independent)
