/*
** session_branch.c — savepoints as branch points (DESIGN.md section 10):
** which job may start from which checkpoint without writing an epoch twice
** into an exactly-once sink, and which jobs share a sink.
**
** What the rules read, all in the data directory:
**
**   jobs/<J>/chk-<N>/_metadata   J's decided checkpoints (checkpoint.c): the
**                                newest, M, is where J's committed output ends
**   jobs/<J>/_job.json           J's record, with "targets": where its
**                                exactly-once sinks write (sl__sink_targets),
**                                and "from": the savepoint it started from
**   jobs/<J>/_branches.json      the jobs that started from one of J's
**                                checkpoints: {"branches": [{"job", "checkpoint",
**                                "mode", "targets"}]}, written (atomically)
**                                before such a job starts
**
** The rules ('execution.savepoint-restore-mode' = 'claim', the default, or
** 'no_claim'; Flink's names), for job X started with
** 'execution.savepoint.path' = J's chk-N:
**
**   1. a job that has decided checkpoints of its own resumes from its newest,
**      M: starting it from anything else is refused (55000), as its sinks
**      hold its epochs up to M. So is resuming X's own savepoint twice, or a
**      script re-run with the SET still in it. A job that started from a
**      savepoint and has no checkpoint yet is refused without the savepoint
**      (afresh it would write the savepoint's rows again).
**   2. claim (X continues J's line; X = J is a plain resume): refused when J
**      has a decided checkpoint M > N (J went on after the savepoint: its
**      epochs N+1..M are committed), when J runs, and when another job
**      claimed a checkpoint of J before. Once X claimed, J itself never runs
**      again (its line goes on as X).
**   3. no_claim (X is a fork: J and other forks may go on too): X needs a
**      name of its own, and none of its exactly-once sinks may be one that J
**      or another branch of J writes — nor any other job (a new line in a
**      sink beside another holds rows twice). A claim into sinks J does not
**      write is held to the same for those sinks.
**
** Two jobs writing one exactly-once sink without being one line are each
** exactly-once, but not together: a WARNING when the second starts, and
** SHOW JOBS says so (sl__shared_note).
**
** Main routines: sl__sink_targets, sl__sink_target, sl__branch_check, sl__shared_note.
*/
#include "session_int.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
** Where a sink writes
*/

/* A directory named by an option, absolute and without "." / ".." / links
** where it exists; caller frees. */
char *sl__abs_path(const char *p)
{
    char buf[PATH_MAX];
    const char *scheme = strstr(p, "://");
    if (scheme && strncmp(p, "file:", 5) != 0) { /* s3://bucket/prefix: as written */
        char *s = sl_strdup(p);
        size_t n = strlen(s);
        while (n > (size_t)(scheme - p) + 3 && s[n - 1] == '/')
            s[--n] = '\0';
        return s;
    }
    if (realpath(p, buf))
        return sl_strdup(buf);
    char *s = NULL;
    if (p[0] != '/' && getcwd(buf, sizeof buf))
        s = sl_path_join(buf, p);
    else
        s = sl_strdup(p);
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = '\0';
    return s;
}

char *sl__sink_target(const sl_table *t)
{
    const sl_connector_caps *k = &t->connector->caps;
    const char *where = k->sink_target_option
                            ? sl_kvlist_get(t->def->options, k->sink_target_option)
                            : NULL;
    const char *cluster = k->cluster_option ? sl_kvlist_get(t->def->options, k->cluster_option)
                                            : NULL;
    char *w = !where ? sl_sprintf("table %s", t->name)
              : k->sink_target_path ? sl__abs_path(where)
                                    : sl_strdup(where);
    char *id = sl_sprintf("%s %s%s%s", k->txn_system ? k->txn_system : t->connector->name,
                          cluster ? cluster : "", cluster ? " " : "", w);
    sl_free(w);
    return id;
}

void sl__sink_targets(const sl_catalog *cat, const sl_list *plans, const sl_guarantee *decided,
                      sl_list *tables, sl_list *targets)
{
    for (int i = 0; i < plans->n; i++) {
        const sl_lp *root = plans->items[i];
        const sl_table *t = root->kind == SL_LP_SINK ? sl_catalog_table(cat, root->table) : NULL;
        if (!t || !t->connector || decided[i] != SL_GUARANTEE_EXACTLY_ONCE)
            continue;
        char *id = sl__sink_target(t);
        bool dup = false;
        for (int k2 = 0; k2 < targets->n && !dup; k2++)
            dup = strcmp(targets->items[k2], id) == 0;
        if (dup) {
            sl_free(id);
            continue;
        }
        sl_list_push(targets, id);
        sl_list_push(tables, sl_strdup(t->name));
    }
}

/* ------------------------------------------------------------------------
** Records
*/

/* A job's record (_job.json) or branch list (_branches.json) in dir, its
** checksum verified: NULL when absent. A damaged file is NULL too, and
** XX001 naming it in *err when err is given and holds no error yet: the
** rules never decide on what they cannot trust. */
static json_t *sl__load(const char *dir, const char *file, sl_error *err)
{
    char *path = sl_path_join(dir, file);
    json_t *o = NULL;
    sl_error own = SL_ERROR_INIT;
    if (strcmp(file, "_job.json") == 0) {
        sl__job_record_read(path, &o, &own);
    } else if (sl_fs_exists(path)) {
        char *text = NULL;
        size_t len = 0;
        if (sl_fs_read_file(path, &text, &len, &own) == 0) {
            json_error_t jerr;
            if (sl_checksum_verify(text, len) == 1)
                o = json_loadb(text, len, 0, &jerr);
            if (!json_is_object(o)) {
                json_decref(o);
                o = NULL;
                sl_error_set(&own, SL_ERR_DATA_CORRUPTED, -1, "\"%s\" is damaged", path);
                sl_error_detail(&own, "Its checksum does not match, or it is not a JSON object.");
            }
            sl_free(text);
        }
    }
    if (sl_error_isset(&own) && err && !sl_error_isset(err)) {
        sl_error_move(err, &own);
        if (!err->hint)
            sl_error_hint(err, "Restore the file from a copy; the savepoint rules cannot be "
                               "checked without it.");
    }
    sl_error_reset(&own);
    sl_free(path);
    return o;
}

/* Whether the JSON array of strings a holds a string of list l. NULL when
** not, else that string. */
static const char *sl__overlap(const json_t *a, const sl_list *l)
{
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        for (int k = 0; s && k < l->n; k++)
            if (strcmp(s, l->items[k]) == 0)
                return s;
    }
    return NULL;
}

/* The newest decided checkpoint of the job whose home is job_dir, where
** its record says its checkpoints are (-1: none or no such directory).
** When they cannot be read (S3 unreachable, credentials) and err is given,
** err says why (a rule must not take "none" for "unknown"). */
static int64_t sl__newest(const char *job_dir, const sl_kvlist *opts, sl_error *err)
{
    sl_chk_store *st = NULL;
    int64_t newest = -1;
    sl_error own = SL_ERROR_INIT;
    if (sl__home_store_open(job_dir, opts, &st, &own) == 0)
        sl_chk_latest(st, &newest, &own);
    else if (sl_error_isset(&own) && strcmp(own.sqlstate, SL_ERR_UNDEFINED_FILE) == 0)
        sl_error_reset(&own); /* no checkpoints */
    /* A damaged or missing newest checkpoint counts as none here, as it
    ** always did: the job that starts refuses it itself, or its sinks'
    ** transactions tell (kafka.eo.branch). */
    if (sl_error_isset(&own) && strcmp(own.sqlstate, SL_ERR_DATA_CORRUPTED) == 0)
        sl_error_reset(&own);
    sl_chk_close(st);
    if (sl_error_isset(&own) && err && !sl_error_isset(err))
        sl_error_move(err, &own);
    sl_error_reset(&own);
    return newest;
}

/* ------------------------------------------------------------------------
** The rules
*/

/* The directory part of a chk-<N> path, as written (for messages); caller frees. */
static char *sl__chk_parent_text(const char *chk)
{
    char *buf = sl_strdup(chk);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash && slash != buf)
        *slash = '\0';
    return buf;
}

static bool sl__claimed_from(json_t *rec, const char *anc);


json_t *sl__targets_json(const sl_list *targets)
{
    json_t *a = json_array();
    for (int i = 0; a && targets && i < targets->n; i++) {
        if (json_array_append_new(a, json_string(targets->items[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* The table of X writing target (tables and targets are parallel). */
static const char *sl__table_of(const sl__branch *b, const char *target)
{
    for (int i = 0; i < b->targets->n; i++)
        if (strcmp(b->targets->items[i], target) == 0)
            return b->tables->items[i];
    return "?";
}

/* Record X as a branch of the job in dir (before X starts). */
static int sl__add_branch(const char *dir, json_t *rec, const sl__branch *b, int64_t n,
                          sl_error *err)
{
    int bad = 0; /* a Jansson call failed: nothing is written */
    json_t *list = json_object_get(rec, "branches");
    if (!json_is_array(list)) {
        list = json_array();
        bad |= json_object_set_new(rec, "branches", list);
    }
    json_t *e = json_object();
    bad |= json_object_set_new(e, "job", json_string(b->job));
    bad |= json_object_set_new(e, "checkpoint", json_integer(n));
    bad |= json_object_set_new(e, "mode", json_string(b->claim ? "claim" : "no_claim"));
    bad |= json_object_set_new(e, "targets", sl__targets_json(b->targets));
    bad |= json_object_set_new(e, "time", json_integer(sl_now_nanos()));
    bad |= json_array_append_new(list, e);
    bad |= json_object_set_new(rec, SL_CHECKSUM_KEY, json_string(SL_CHECKSUM_ZERO));
    char *text = bad ? NULL : json_dumps(rec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text || sl_checksum_embed(text, strlen(text)) != 0) {
        free(text);
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "could not record the branch of job \"%s\": a value is not valid "
                            "UTF-8, or memory ran out",
                            b->job);
    }
    char *path = sl_path_join(dir, "_branches.json");
    int rc = sl_fs_write_atomic(path, text, strlen(text), err);
    sl_free(path);
    free(text);
    return rc;
}

/* Whether a job that claimed a checkpoint went on from it: it has decided
** a checkpoint of its own, or runs. One that failed or died before has
** committed nothing: its claim holds nobody back (it is refused itself once
** another went on). */
static bool sl__claim_taken(sl_engine *eng, const char *job, const sl_kvlist *opts)
{
    char *dir = sl_chk_job_dir(eng->data_dir, job);
    bool taken = sl__newest(dir, opts, NULL) >= 0 || sl__job_is_running(eng, job);
    sl_free(dir);
    return taken;
}

/* Rule 1 and the branches of X itself (a claim retired it; a fork writes
** one of its sinks). */
static int sl__own_check(sl_engine *eng, const sl__branch *b, const char *own_dir, int64_t own,
                         int64_t n, bool same, sl_error *err)
{
    json_t *mine = sl__load(own_dir, "_branches.json", err);
    if (sl_error_isset(err))
        return -1;
    size_t i;
    json_t *e;
    int rc = 0;
    json_array_foreach(json_object_get(mine, "branches"), i, e)
    {
        const char *other = json_string_value(json_object_get(e, "job"));
        const char *mode = json_string_value(json_object_get(e, "mode"));
        long long at = (long long)json_integer_value(json_object_get(e, "checkpoint"));
        const char *t = sl__overlap(json_object_get(e, "targets"), b->targets);
        if (!other || strcmp(other, b->job) == 0)
            continue;
        if (mode && strcmp(mode, "claim") == 0) {
            if (!sl__claim_taken(eng, other, b->opts))
                continue;
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "job \"%s\" was taken over by job \"%s\"", b->job, other);
            sl_error_detail(err, "Job \"%s\" started from its checkpoint %lld and continues it "
                                 "('execution.savepoint-restore-mode' = 'claim'); running "
                                 "\"%s\" again would write what \"%s\" wrote a second time.",
                            other, at, b->job, other);
            sl_error_hint(err, "Run job \"%s\" instead, or SET 'pipeline.name' to start a new "
                               "job.", other);
            break;
        }
        if (t) {
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "job \"%s\" writes into table %s, and so does its fork \"%s\"",
                              b->job, sl__table_of(b, t), other);
            sl_error_detail(err, "Job \"%s\" started from checkpoint %lld of \"%s\" into the "
                                 "same exactly-once sink (%s): the rows after that checkpoint "
                                 "would be in it twice.",
                            other, at, b->job, t);
            sl_error_hint(err, "Write into another table (another path or topic).");
            break;
        }
    }
    json_decref(mine);
    if (rc == 0 && own < 0 && !b->restore) {
        /* It started from a savepoint and died before a checkpoint of its
        ** own: afresh, it would write again what that savepoint's job did. */
        json_t *rec = sl__load(own_dir, "_job.json", err);
        if (sl_error_isset(err))
            return -1;
        json_t *from = json_object_get(rec, "from");
        const char *path = json_string_value(json_object_get(from, "path"));
        if (path) {
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "job \"%s\" started from savepoint %s and has no checkpoint of "
                              "its own yet",
                              b->job, path);
            sl_error_detail(err, "Started afresh, it would not continue from that savepoint: "
                                 "its sinks would get rows again that are committed there.");
            sl_error_hint(err, "SET 'execution.savepoint.path' = '%s' to start it from there "
                               "again, or SET 'pipeline.name' to start a new job.",
                          path);
        }
        json_decref(rec);
    }
    if (rc != 0 || own < 0 || !b->restore || (same && own == n))
        return rc;
    if (same) {
        sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                     "savepoint %s is older than checkpoint %lld of job \"%s\"", b->restore,
                     (long long)own, b->job);
        sl_error_detail(err, "Job \"%s\" committed its output up to checkpoint %lld after that "
                             "savepoint: starting it from checkpoint %lld again would write the "
                             "epochs %lld to %lld into its sinks a second time.",
                        b->job, (long long)own, (long long)n, (long long)n + 1, (long long)own);
    } else {
        sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                     "job \"%s\" has checkpoints of its own: it cannot start from savepoint %s",
                     b->job, b->restore);
        sl_error_detail(err, "Job \"%s\" committed its output up to its checkpoint %lld; "
                             "starting it from a savepoint would write epochs after it again.",
                        b->job, (long long)own);
    }
    sl_error_hint(err, "RESET 'execution.savepoint.path' to resume job \"%s\" from checkpoint "
                       "%lld, or SET 'pipeline.name' to a new name (with "
                       "'execution.savepoint-restore-mode' = 'no_claim' to fork into other "
                       "sinks).",
                  b->job, (long long)own);
    return -1;
}

/* A job other than b->job, and than `except` and the jobs it claimed from,
** whose record names one of the targets of b that `skip` (a JSON array)
** does not: its name (caller frees) and *target, or NULL. */
static char *sl__other_writer(const char *data_dir, const sl__branch *b, const char *except,
                              const json_t *skip, const char **target, sl_error *err)
{
    char *jobs = sl_path_join(data_dir, "jobs");
    DIR *d = opendir(jobs);
    struct dirent *de;
    char *found = NULL;
    json_t *ex = NULL;
    if (except) {
        char *exdir = sl_chk_job_dir(data_dir, except);
        ex = sl__load(exdir, "_job.json", err);
        sl_free(exdir);
    }
    while (!found && d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char *dir = sl_path_join(jobs, de->d_name);
        json_t *o = sl__load(dir, "_job.json", err);
        const char *other = json_string_value(json_object_get(o, "name"));
        const char *t = o ? sl__overlap(json_object_get(o, "targets"), b->targets) : NULL;
        if (t && other && strcmp(other, b->job) != 0 && !(except && strcmp(other, except) == 0)) {
            sl_list one = {.items = (void **)&t, .n = 1};
            bool skipped = skip && sl__overlap(skip, &one) != NULL;
            if (!skipped && !(ex && sl__claimed_from(ex, other))) {
                found = sl_strdup(other);
                *target = t;
                for (int k = 0; k < b->targets->n; k++) /* b's copy: o goes */
                    if (strcmp(b->targets->items[k], t) == 0)
                        *target = b->targets->items[k];
            }
        }
        json_decref(o);
        sl_free(dir);
    }
    if (d)
        closedir(d);
    json_decref(ex);
    sl_free(jobs);
    return found;
}

int sl__branch_check(sl_engine *eng, sl__branch *b, sl_error *err)
{
    char *own_dir = sl_chk_job_dir(eng->data_dir, b->job);
    char *own_abs = sl__abs_path(own_dir);
    int64_t own = sl__newest(own_dir, b->opts, err);
    int64_t n = -1;
    char *from_dir = NULL;
    if (b->restore && !sl_error_isset(err)) {
        sl_chk_store *st = NULL;
        if (sl_chk_open_path(b->restore, b->opts, &st, &n, err) == 0)
            from_dir = sl__savepoint_home(eng, b->restore);
        sl_chk_close(st);
        if (from_dir && strstr(from_dir, "://")) {
            sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                         "savepoint %s belongs to no job of this data directory", b->restore);
            sl_error_detail(err, "The savepoint rules read and record the branches of the job "
                                 "that took it in its home, jobs/<name>/ of the data directory "
                                 "that ran it.");
            sl_error_hint(err, "Start it from the data directory whose job took it.");
        }
    }
    if (sl_error_isset(err)) {
        sl_free(from_dir);
        sl_free(own_abs);
        sl_free(own_dir);
        return -1;
    }
    bool same = from_dir && strcmp(from_dir, own_abs) == 0;
    int rc = sl__own_check(eng, b, own_dir, own, n, same, err);
    if (rc == 0 && b->restore && same && !b->claim) {
        rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                          "a fork of job \"%s\" needs a name of its own", b->job);
        sl_error_detail(err, "'execution.savepoint-restore-mode' = 'no_claim' starts a new "
                             "job from the savepoint; %s is a checkpoint of \"%s\" itself.",
                        b->restore, b->job);
        sl_error_hint(err, "SET 'pipeline.name' to the fork's name, or RESET "
                           "'execution.savepoint-restore-mode' to resume the job.");
    }
    if (rc != 0 || !b->restore || same) {
        sl_free(from_dir);
        sl_free(own_abs);
        sl_free(own_dir);
        return rc;
    }
    /* X starts from checkpoint n of another job J. */
    json_t *jrec = sl__load(from_dir, "_job.json", err);
    const char *j = jrec ? json_string_value(json_object_get(jrec, "name")) : NULL;
    char *jname = sl_strdup(j ? j : from_dir);
    int64_t m = sl__newest(from_dir, b->opts, err);
    if (sl_error_isset(err))
        rc = -1;
    /* Its sinks and ours: the same set, or (no record) taken to be. */
    json_t *jt = json_object_get(jrec, "targets");
    bool same_sinks = !json_is_array(jt) || json_array_size(jt) == (size_t)b->targets->n;
    for (int k = 0; same_sinks && k < b->targets->n; k++) {
        sl_list one = {.items = &b->targets->items[k], .n = 1};
        same_sinks = sl__overlap(jt, &one) != NULL;
    }
    b->other_sinks = !b->claim || !same_sinks;
    b->origin = j ? sl_strdup(j) : NULL;
    json_t *branches = sl__load(from_dir, "_branches.json", err);
    if (sl_error_isset(err))
        rc = -1;
    if (!branches)
        branches = json_object();
    bool recorded = false;
    size_t i;
    json_t *e;
    if (rc == 0 && b->claim && m > n) {
        rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                          "savepoint %s is older than checkpoint %lld of job \"%s\"", b->restore,
                          (long long)m, jname);
        sl_error_detail(err, "Job \"%s\" went on after it and committed its epochs up to %lld; "
                             "continuing it from checkpoint %lld would write them again.",
                        jname, (long long)m, (long long)n);
        char *text = sl__chk_parent_text(b->restore), *loc = sl__abs_path(text);
        sl_free(text);
        sl_error_hint(err, "Start from its newest checkpoint (%s/chk-%lld), or SET "
                           "'execution.savepoint-restore-mode' = 'no_claim' to fork into "
                           "sinks \"%s\" does not write.",
                      loc, (long long)m, jname);
        sl_free(loc);
    }
    if (rc == 0 && b->claim && j) {
        if (sl__job_is_running(eng, j)) {
            rc = sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                              "job \"%s\" is running: its savepoint cannot be claimed", j);
            sl_error_detail(err, "A job that continues \"%s\" from checkpoint %lld would write "
                                 "what \"%s\" commits after it a second time.",
                            j, (long long)n, j);
            sl_error_hint(err, "STOP JOB '%s' WITH SAVEPOINT first, or SET "
                               "'execution.savepoint-restore-mode' = 'no_claim' to fork.",
                          j);
        }
    }
    if (rc == 0 && !b->claim) {
        const char *t = sl__overlap(json_object_get(jrec, "targets"), b->targets);
        if (t) {
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "a fork of job \"%s\" cannot write into table %s: \"%s\" writes "
                              "there too",
                              jname, sl__table_of(b, t), jname);
            sl_error_detail(err, "Both would hold the rows after checkpoint %lld in one "
                                 "exactly-once sink (%s).",
                            (long long)n, t);
            sl_error_hint(err, "Write the fork into another table (another path or topic), or "
                               "RESET 'execution.savepoint-restore-mode' to continue \"%s\" "
                               "instead.",
                          jname);
        }
    }
    /* A new line (a fork), or J's line into sinks J did not write: no
    ** other job may write them (two lines in one sink hold rows twice). */
    if (rc == 0) {
        const char *t = NULL;
        char *w = sl__other_writer(eng->data_dir, b, b->claim ? jname : NULL,
                                   b->claim ? json_object_get(jrec, "targets") : NULL, &t, err);
        if (!w && sl_error_isset(err))
            rc = -1;
        if (w) {
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "job \"%s\" writes into table %s: a job started from a savepoint "
                              "into it would hold rows twice",
                              w, sl__table_of(b, t));
            sl_error_detail(err, "Starting from checkpoint %lld of \"%s\" begins a line of its "
                                 "own in that exactly-once sink (%s), beside job \"%s\".",
                            (long long)n, jname, t, w);
            sl_error_hint(err, "Write into a table nobody else writes (another path or "
                               "topic).");
            sl_free(w);
        }
    }
    json_array_foreach(json_object_get(branches, "branches"), i, e)
    {
        const char *other = json_string_value(json_object_get(e, "job"));
        const char *mode = json_string_value(json_object_get(e, "mode"));
        long long at = (long long)json_integer_value(json_object_get(e, "checkpoint"));
        if (rc != 0 || !other)
            break;
        if (strcmp(other, b->job) == 0) { /* X started from it before (and took no checkpoint) */
            recorded = recorded || (at == n && mode &&
                                    strcmp(mode, b->claim ? "claim" : "no_claim") == 0);
            continue;
        }
        const char *t = sl__overlap(json_object_get(e, "targets"), b->targets);
        if (b->claim && mode && strcmp(mode, "claim") == 0 && sl__claim_taken(eng, other, b->opts)) {
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "job \"%s\" was taken over by job \"%s\"", jname, other);
            sl_error_detail(err, "Job \"%s\" started from its checkpoint %lld and continues "
                                 "it; a second job continuing \"%s\" from checkpoint %lld would "
                                 "write the same epochs again.",
                            other, at, jname, (long long)n);
            sl_error_hint(err, "Resume job \"%s\", or SET 'execution.savepoint-restore-mode' "
                               "= 'no_claim' to fork into other sinks.",
                          other);
        } else if (t) {
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "job \"%s\", another branch of job \"%s\", writes into table %s",
                              other, jname, sl__table_of(b, t));
            sl_error_detail(err, "It started from checkpoint %lld of \"%s\" into the same "
                                 "exactly-once sink (%s): both would hold the rows after the "
                                 "savepoint.",
                            at, jname, t);
            sl_error_hint(err, "Write into another table (another path or topic).");
        }
    }
    if (rc == 0 && !recorded)
        rc = sl__add_branch(from_dir, branches, b, n, err);
    json_decref(branches);
    json_decref(jrec);
    sl_free(jname);
    sl_free(from_dir);
    sl_free(own_abs);
    sl_free(own_dir);
    return rc;
}

/* ------------------------------------------------------------------------
** Jobs sharing a sink
*/

/* Whether job `anc` is an ancestor of record rec along claims ("from" with
** mode claim), following at most 64 links. */
static bool sl__claimed_from(json_t *rec, const char *anc)
{
    json_t *cur = json_incref(rec);
    bool found = false;
    for (int hop = 0; cur && hop < 64 && !found; hop++) {
        json_t *from = json_object_get(cur, "from");
        const char *mode = json_string_value(json_object_get(from, "mode"));
        const char *dir = json_string_value(json_object_get(from, "dir"));
        const char *job = json_string_value(json_object_get(from, "job"));
        const char *self = json_string_value(json_object_get(cur, "name"));
        json_t *next = NULL;
        if (job && mode && strcmp(mode, "claim") == 0 && !(self && strcmp(self, job) == 0)) {
            found = strcmp(job, anc) == 0; /* (its own savepoint is no link) */
            if (!found && dir)
                next = sl__load(dir, "_job.json", NULL);
        }
        json_decref(cur);
        cur = next;
    }
    json_decref(cur);
    return found;
}

char *sl__shared_note(const char *data_dir, const char *name, const json_t *targets)
{
    if (!json_is_array(targets) || json_array_size(targets) == 0)
        return NULL;
    char *jobs = sl_path_join(data_dir, "jobs");
    char *mine_dir = sl_chk_job_dir(data_dir, name);
    json_t *mine = sl__load(mine_dir, "_job.json", NULL);
    sl_list *names = sl__job_dir_names(jobs);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < names->n; i++) {
        char *dir = sl_path_join(jobs, names->items[i]);
        json_t *o = sl__load(dir, "_job.json", NULL);
        const char *other = o ? json_string_value(json_object_get(o, "name")) : NULL;
        if (other && strcmp(other, name) != 0) {
            size_t k;
            json_t *v;
            const char *hit = NULL;
            json_array_foreach(targets, k, v)
            {
                size_t k2;
                json_t *w;
                json_array_foreach(json_object_get(o, "targets"), k2, w)
                {
                    if (!hit && json_is_string(v) && json_is_string(w) &&
                        strcmp(json_string_value(v), json_string_value(w)) == 0)
                        hit = json_string_value(v);
                }
            }
            /* One line of claims (J, then X continuing J) is one job; a job
            ** that neither runs nor decided a checkpoint committed nothing. */
            const char *status = json_string_value(json_object_get(o, "status"));
            if (hit && !(mine && sl__claimed_from(mine, other)) &&
                !sl__claimed_from(o, name) &&
                ((status && strcmp(status, "RUNNING") == 0) || sl__newest(dir, NULL, NULL) >= 0))
                sl_strbuf_appendf(&sb, "%s\"%s\"", sb.len ? ", " : "", other);
        }
        json_decref(o);
        sl_free(dir);
    }
    json_decref(mine);
    sl_list_free(names, sl_free);
    sl_free(mine_dir);
    sl_free(jobs);
    return sb.len ? sl_strbuf_detach(&sb) : (sl_strbuf_free(&sb), NULL);
}
