/*
** session_chkdir.c — where a job's checkpoints live.
**
** By default a job's checkpoints are in its directory of the data
** directory, jobs/<name>/, beside its record. 'execution.checkpointing.dir'
** (Flink's name) puts them at <dir>/<name>/ instead: another local directory
** or S3 (s3://bucket/path; exec/checkpoint.c's storage, the filesystem
** connector's client). The job's home stays jobs/<name>/ — its record, its
** branches, the RocksDB working files — and the record keeps the setting
** ("checkpoint_dir") it started with, so that everything that reads the
** job's checkpoints afterwards (a restart, SHOW JOBS, RECONCILE, the
** savepoint rules, DROP JOB) finds them there, whatever the session says.
**
** The guarantee depends on finding them: a job that started again without
** its newest checkpoint would start over and write its epochs again. So a
** job starts only at the location its record names (55000 otherwise), and
** never over checkpoints at a location it has no record of (another data
** directory's job of the same name, or a record lost): 55000. A location
** is claimed by the data directory whose job writes there: its identity
** (a random id kept in the data directory's _id, with its path and host
** for messages) is written once into <location>/_owner (sl_chk_claim:
** If-None-Match in S3, link() in a directory), so of two data directories
** starting one job name at one location, even at the same moment, one
** gets it and the other is refused (55000) naming the holder.
**
** The 'rocksdb' state backend keeps its checkpoints as hard links next to
** its files, which only a local directory can hold: refused (0A000) with a
** location in S3.
**
** Main routines: sl__chk_start_check, sl__job_store_open, sl__home_store_open,
** sl__chk_home_of.
*/
#include "session_int.h"

#include <jansson.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define SL__CHK_DIR_KEY "execution.checkpointing.dir"

/* The setting as stored: a URI without trailing '/', a local directory
** absolute; caller frees. */
static char *sl__chk_base_norm(const char *v)
{
    const sl_chk_fs *fs = NULL;
    sl_error ignored = SL_ERROR_INIT;
    int rc = sl_chk_fs_find(v, &fs, &ignored);
    sl_error_reset(&ignored);
    if (rc == 0 && !fs)
        return sl__abs_path(strncmp(v, "file://", 7) == 0 ? v + 7 : v);
    char *s = sl_strdup(v);
    const char *scheme = strstr(s, "://");
    size_t n = strlen(s), min = scheme ? (size_t)(scheme - s) + 3 : 1;
    while (n > min && s[n - 1] == '/')
        s[--n] = '\0';
    return s;
}

/* The record of the job whose home is home (NULL when there is none). */
static json_t *sl__home_record(const char *home, sl_error *err)
{
    char *path = sl_path_join(home, "_job.json");
    json_t *rec = NULL;
    sl__job_record_read(path, &rec, err);
    sl_free(path);
    return rec;
}

int sl__home_store_open(const char *home, const sl_kvlist *opts, sl_chk_store **out,
                        sl_error *err)
{
    *out = NULL;
    sl_error own = SL_ERROR_INIT;
    json_t *rec = sl__home_record(home, &own);
    const char *base = json_string_value(json_object_get(rec, "checkpoint_dir"));
    const char *name = json_string_value(json_object_get(rec, "name"));
    int rc;
    if (sl_error_isset(&own)) {
        sl_error_move(err, &own);
        rc = -1;
    } else if (base && name) {
        char *where = sl_chk_location(NULL, base, name);
        rc = sl_chk_open_dir(where, opts, out, err);
        sl_free(where);
    } else {
        rc = sl_chk_open_dir(home, opts, out, err);
    }
    json_decref(rec);
    return rc;
}

int sl__job_store_open(sl_engine *eng, const sl_kvlist *opts, const char *name,
                       sl_chk_store **out, sl_error *err)
{
    char *home = sl_chk_job_dir(eng->data_dir, name);
    int rc = sl__home_store_open(home, opts, out, err);
    sl_free(home);
    return rc;
}

char *sl__chk_home_of(sl_engine *eng, const char *location)
{
    char *jobs = sl_path_join(eng->data_dir, "jobs");
    sl_list *names = sl__job_dir_names(jobs);
    char *home = NULL;
    for (int i = 0; i < names->n && !home; i++) {
        char *dir = sl_path_join(jobs, names->items[i]);
        sl_error ignored = SL_ERROR_INIT;
        json_t *rec = sl__home_record(dir, &ignored);
        sl_error_reset(&ignored);
        const char *base = json_string_value(json_object_get(rec, "checkpoint_dir"));
        const char *name = json_string_value(json_object_get(rec, "name"));
        char *where = base && name ? sl_chk_location(NULL, base, name) : NULL;
        if (where && strcmp(where, location) == 0) {
            home = dir;
            dir = NULL;
        }
        sl_free(where);
        json_decref(rec);
        sl_free(dir);
    }
    sl_list_free(names, sl_free);
    sl_free(jobs);
    return home;
}

/* The engine's owner text for claims (its first line the identity):
** "sluice data directory <id>", then its path and host. The id is read
** from the data directory's _id, or made (128 random bits) and written
** there. NULL with err when neither works. */
static const char *sl__owner(sl_engine *eng, sl_error *err)
{
    pthread_mutex_lock(&eng->mu);
    if (!eng->owner) {
        char *path = sl_path_join(eng->data_dir, "_id"), *text = NULL;
        size_t len = 0;
        char id[33] = "";
        sl_error own = SL_ERROR_INIT;
        if (sl_fs_exists(path) && sl_fs_read_file(path, &text, &len, &own) == 0 && len >= 32) {
            memcpy(id, text, 32);
            id[32] = 0;
        } else if (!sl_error_isset(&own)) {
            unsigned char r[16];
            if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
                sl_error_set(&own, SL_ERR_IO, -1, "could not read random bytes for \"%s\"",
                             path);
            } else {
                for (int i = 0; i < 16; i++)
                    snprintf(id + 2 * i, 3, "%02x", r[i]);
                char *line = sl_sprintf("%s\n", id);
                sl_fs_write_atomic(path, line, strlen(line), &own);
                sl_free(line);
            }
        }
        sl_free(text);
        sl_free(path);
        if (sl_error_isset(&own)) {
            sl_error_move(err, &own);
        } else {
            char host[256] = "";
            gethostname(host, sizeof host - 1);
            char *abs = sl__abs_path(eng->data_dir);
            eng->owner = sl_sprintf("sluice data directory %s\npath: %s\nhost: %s\n", id, abs,
                                    host);
            sl_free(abs);
        }
    }
    const char *o = eng->owner;
    pthread_mutex_unlock(&eng->mu);
    return o;
}

int sl__chk_start_check(sl_session *s, const char *name, bool rocksdb, char **base_out,
                        sl_error *err)
{
    *base_out = NULL;
    const char *v = sl__setting_set(s, SL__CHK_DIR_KEY);
    char *base = v && *v ? sl__chk_base_norm(v) : NULL;
    const sl_chk_fs *fs = NULL;
    if (base && sl_chk_fs_find(base, &fs, err) != 0) {
        sl_free(base);
        return -1;
    }
    if (fs && rocksdb) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "the 'rocksdb' state backend cannot keep its checkpoints in \"%s\"", base);
        sl_error_detail(err, "Its checkpoints share RocksDB's files through hard links, which "
                             "only a local directory holds.");
        sl_error_hint(err, "SET 'state.backend.type' = 'hashmap', or SET '%s' to a local "
                           "directory.", SL__CHK_DIR_KEY);
        sl_free(base);
        return -1;
    }
    /* Where the job's record says its checkpoints are. */
    char *home = sl_chk_job_dir(s->eng->data_dir, name);
    json_t *rec = sl__home_record(home, err);
    sl_free(home);
    if (sl_error_isset(err)) {
        sl_free(base);
        return -1;
    }
    const char *had = json_string_value(json_object_get(rec, "checkpoint_dir"));
    const char *status = json_string_value(json_object_get(rec, "status"));
    int rc = 0;
    if (status && strcmp(status, "DROPPED") == 0) { /* its own refusal: the name is taken */
        json_decref(rec);
        *base_out = base;
        return 0;
    }
    if (rec && (had ? !base || strcmp(had, base) != 0 : base != NULL)) {
        char *was = sl_chk_location(s->eng->data_dir, had, name);
        rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                          "job \"%s\" keeps its checkpoints in %s", name, was);
        sl_error_detail(err, "'%s' is %s%s%s now: the job would not find its checkpoints "
                             "there and would start over, writing again what its sinks hold.",
                        SL__CHK_DIR_KEY, base ? "'" : "", base ? base : "unset (the data "
                        "directory)", base ? "'" : "");
        if (had)
            sl_error_hint(err, "SET '%s' = '%s' to resume it, or SET 'pipeline.name' to "
                               "another name for a new job.", SL__CHK_DIR_KEY, had);
        else
            sl_error_hint(err, "RESET '%s' to resume it, or SET 'pipeline.name' to another "
                               "name for a new job.", SL__CHK_DIR_KEY);
        sl_free(was);
    }
    /* The location must be usable now (credentials, bucket, permission),
    ** and hold no checkpoints of a job this data directory has no record of. */
    sl_chk_store *st = NULL;
    if (rc == 0 && base)
        rc = sl_chk_open_at(s->eng->data_dir, base, s->config, name, &st, err);
    const char *owner = rc == 0 && st ? sl__owner(s->eng, err) : NULL;
    if (rc == 0 && st && !owner)
        rc = -1;
    char *holder = NULL;
    int claimed = owner ? sl_chk_claim(st, owner, &holder, err) : 0;
    if (claimed < 0)
        rc = -1;
    if (claimed == 1) {
        rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                          "%s belongs to another data directory's job \"%s\"", sl_chk_dir(st),
                          name);
        const char *p = strstr(holder, "\npath: "), *h = strstr(holder, "\nhost: ");
        sl_error_detail(err, "Its _owner names the data directory %.*s on host %.*s (%.*s). Two "
                             "jobs writing one job's checkpoints would each resume from the "
                             "other's and write epochs twice.",
                        p ? (int)strcspn(p + 7, "\n") : 1, p ? p + 7 : "?",
                        h ? (int)strcspn(h + 7, "\n") : 1, h ? h + 7 : "?",
                        (int)strcspn(holder, "\n"), holder);
        sl_error_hint(err, "SET 'pipeline.name' to a name of its own, or SET '%s' to "
                           "another location.", SL__CHK_DIR_KEY);
        sl_free(holder);
    }
    int64_t newest = -1;
    if (rc == 0 && st && !rec) {
        sl_error lerr = SL_ERROR_INIT;
        int lr = sl_chk_latest(st, &newest, &lerr);
        if (lr != 0 || newest >= 0) {
            rc = sl_error_set(err, SL_ERR_NOT_IN_STATE, -1,
                              "%s holds checkpoints of a job \"%s\" this data directory did "
                              "not run", sl_chk_dir(st), name);
            sl_error_detail(err, "Another data directory's job of that name, or this one's "
                                 "whose record was lost, writes there: resuming from its "
                                 "checkpoints, or writing beside them, would write its "
                                 "epochs twice.");
            sl_error_hint(err, "SET 'pipeline.name' to a name of its own, or SET '%s' to "
                               "another location.", SL__CHK_DIR_KEY);
        }
        sl_error_reset(&lerr);
    }
    sl_chk_close(st);
    json_decref(rec);
    if (rc != 0) {
        sl_free(base);
        return -1;
    }
    *base_out = base;
    return 0;
}

char *sl__savepoint_home(sl_engine *eng, const char *path)
{
    char *p = sl_strdup(path);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    char *slash = strrchr(p, '/');
    if (slash == p)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    char *dir = sl__chk_base_norm(slash ? p : ".");
    sl_free(p);
    char *rec = strstr(dir, "://") ? NULL : sl_path_join(dir, "_job.json");
    bool home = rec && sl_fs_exists(rec);
    sl_free(rec);
    if (home)
        return dir;
    char *found = sl__chk_home_of(eng, dir);
    if (!found)
        return dir;
    sl_free(dir);
    char *abs = sl__abs_path(found);
    sl_free(found);
    return abs;
}

sl_kvlist *sl__storage_opts(sl_session *s)
{
    static const char *const keys[] = {"s3.access-key", "s3.endpoint", "s3.path.style.access",
                                       "s3.region", "s3.secret-key"};
    sl_kvlist *o = sl_kvlist_new();
    for (size_t i = 0; i < SL_ARRAY_LEN(keys); i++) {
        const char *v = sl__setting_set(s, keys[i]);
        if (v)
            sl_kvlist_set(o, keys[i], v, -1, -1);
    }
    return o;
}
