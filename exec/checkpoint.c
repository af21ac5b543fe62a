/*
** checkpoint.c — checkpoint storage in the data directory (see sl_exec.h).
**
**   jobs/<job>/chk-<N>/state-<name>   state blobs, each written atomically
**   jobs/<job>/chk-<N>/_metadata      written last: it makes chk-<N> a checkpoint
**
** Job and state names are used in file names with every byte outside
** [A-Za-z0-9._-] written as %XX, so any name is safe and distinct.
** Writers of one checkpoint may be several tasks at once (a mutex guards the
** list of files written per checkpoint).
**
** Main routines: sl_chk_open, sl_chk_write_state, sl_chk_seal,
** sl_chk_seal_existing, sl_chk_latest, sl_chk_read_state, sl_chk_prune.
*/
#include "sl_exec.h"

#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SL_CHK_FORMAT "sluice-checkpoint"
#define SL_CHK_VERSION 1

typedef struct sl__pending {
    int64_t id;      /* checkpoint */
    sl_list *files;  /* char*: state files written for it */
} sl__pending;

struct sl_chk_store {
    char *dir;          /* data_dir/jobs/<job> */
    char *job;          /* the job's name */
    pthread_mutex_t mu; /* guards pending */
    sl_list *pending;   /* sl__pending*: checkpoints being written */
};

/* name with bytes outside [A-Za-z0-9._-] as %XX; caller frees */
static char *sl__safe_name(const char *name)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
        if (plain && !(p == (const unsigned char *)name && *p == '.'))
            sl_strbuf_append_char(&sb, (char)*p);
        else
            sl_strbuf_appendf(&sb, "%%%02X", *p);
    }
    return sl_strbuf_detach(&sb);
}

int sl_job_name_check(const char *name, int pos, sl_error *err)
{
    static const char where[] = "A job's name is its identity: its checkpoints and its record "
                                "live in jobs/<name>/ of the data directory.";
    size_t len = strlen(name), file = 0;
    if (len == 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "a job name must not be empty");
        sl_error_detail(err, "%s", where);
        sl_error_hint(err, "RESET 'pipeline.name' to have a name derived from the statement, "
                           "or SET it to a name of your own.");
        return -1;
    }
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "\"%s\" is not a valid job name", name);
        sl_error_detail(err, "%s", where);
        return -1;
    }
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
        file += plain ? 1 : 3;
        if (*p == '/' || *p < 0x20 || *p == 0x7f) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos,
                         "a job name must not contain %s (byte %d is 0x%02X)",
                         *p == '/' ? "'/'" : "control characters",
                         (int)(p - (const unsigned char *)name) + 1, *p);
            sl_error_detail(err, "%s", where);
            return -1;
        }
    }
    if (file > SL_JOB_NAME_MAX) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "job name is too long (%zu bytes)", len);
        sl_error_detail(err, "A job name may take at most %d bytes as a file name: letters, "
                             "digits, '.', '_' and '-' take one, any other byte three (%%XX).",
                        SL_JOB_NAME_MAX);
        return -1;
    }
    return 0;
}

char *sl_chk_job_dir(const char *data_dir, const char *job)
{
    /* The empty name would be jobs/ itself: "%" cannot be any other name's
    ** file name (an escape is always % and two hex digits). Names are
    ** checked before they get here (sl_job_name_check); this keeps a path
    ** inside jobs/<one directory>/ whatever a caller passes. */
    char *safe = job[0] ? sl__safe_name(job) : sl_strdup("%");
    char *jobs = sl_path_join(data_dir, "jobs");
    char *dir = sl_path_join(jobs, safe);
    sl_free(jobs);
    sl_free(safe);
    return dir;
}

int sl_chk_open(const char *data_dir, const char *job, sl_chk_store **out, sl_error *err)
{
    *out = NULL;
    /* Escaping makes '/', '.' and control bytes safe; an empty name or one
    ** too long for a file name cannot be. */
    if (!job[0] || strlen(job) > SL_JOB_NAME_MAX) {
        sl_job_name_check(job, -1, err);
        return -1;
    }
    char *dir = sl_chk_job_dir(data_dir, job);
    if (sl_fs_mkdir_p(dir, err) != 0) {
        sl_free(dir);
        return -1;
    }
    sl_chk_store *st = sl_calloc(1, sizeof *st);
    st->dir = dir;
    st->job = sl_strdup(job);
    pthread_mutex_init(&st->mu, NULL);
    st->pending = sl_list_new();
    *out = st;
    return 0;
}

static void sl__pending_free(void *p)
{
    sl__pending *pd = p;
    sl_list_free(pd->files, sl_free);
    sl_free(pd);
}

void sl_chk_close(sl_chk_store *st)
{
    if (!st)
        return;
    sl_list_free(st->pending, sl__pending_free);
    pthread_mutex_destroy(&st->mu);
    sl_free(st->dir);
    sl_free(st->job);
    sl_free(st);
}

char *sl_chk_path(const sl_chk_store *st, int64_t id)
{
    return sl_sprintf("%s/chk-%lld", st->dir, (long long)id);
}

/* The pending record of checkpoint id (created); call with mu held. */
static sl__pending *sl__pending_of(sl_chk_store *st, int64_t id)
{
    for (int i = 0; i < st->pending->n; i++) {
        sl__pending *pd = st->pending->items[i];
        if (pd->id == id)
            return pd;
    }
    sl__pending *pd = sl_calloc(1, sizeof *pd);
    pd->id = id;
    pd->files = sl_list_new();
    sl_list_push(st->pending, pd);
    return pd;
}

int sl_chk_write_state(sl_chk_store *st, int64_t id, const char *name, const void *data,
                       size_t len, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    char *safe = sl__safe_name(name);
    char *file = sl_sprintf("state-%s", safe);
    char *path = sl_path_join(dir, file);
    int rc = sl_fs_mkdir_p(dir, err);
    if (rc == 0)
        rc = sl_fs_write_atomic(path, data, len, err);
    if (rc == 0) {
        pthread_mutex_lock(&st->mu);
        sl__pending *pd = sl__pending_of(st, id);
        bool dup = false;
        for (int i = 0; i < pd->files->n && !dup; i++)
            dup = strcmp(pd->files->items[i], file) == 0;
        if (!dup)
            sl_list_push(pd->files, sl_strdup(file));
        pthread_mutex_unlock(&st->mu);
    }
    sl_free(path);
    sl_free(file);
    sl_free(safe);
    sl_free(dir);
    return rc;
}

int sl_chk_seal(sl_chk_store *st, int64_t id, bool savepoint, int64_t time_ns, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    int rc = sl_fs_mkdir_p(dir, err);
    json_t *files = json_array();
    pthread_mutex_lock(&st->mu);
    for (int i = 0; i < st->pending->n; i++) {
        sl__pending *pd = st->pending->items[i];
        if (pd->id != id)
            continue;
        for (int f = 0; f < pd->files->n; f++)
            json_array_append_new(files, json_string(pd->files->items[f]));
        sl__pending_free(pd);
        memmove(&st->pending->items[i], &st->pending->items[i + 1],
                (size_t)(st->pending->n - i - 1) * sizeof(void *));
        st->pending->n--;
        break;
    }
    pthread_mutex_unlock(&st->mu);
    json_t *meta = json_object();
    json_object_set_new(meta, "format", json_string(SL_CHK_FORMAT));
    json_object_set_new(meta, "version", json_integer(SL_CHK_VERSION));
    json_object_set_new(meta, "job", json_string(st->job));
    json_object_set_new(meta, "checkpoint", json_integer(id));
    json_object_set_new(meta, "savepoint", json_boolean(savepoint));
    json_object_set_new(meta, "time", json_integer(time_ns));
    json_object_set_new(meta, "files", files);
    char *text = json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(meta);
    if (rc == 0) {
        char *path = sl_path_join(dir, "_metadata");
        rc = sl_fs_write_atomic(path, text, strlen(text), err);
        sl_free(path);
    }
    free(text);
    sl_free(dir);
    return rc;
}

int sl_chk_seal_existing(sl_chk_store *st, int64_t id, int64_t time_ns, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    DIR *d = opendir(dir);
    if (!d) {
        sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1, "checkpoint directory \"%s\" does not exist",
                     dir);
        sl_free(dir);
        return -1;
    }
    sl_list *files = sl_list_new();
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, "state-", 6) == 0)
            sl_list_push(files, sl_strdup(de->d_name));
    closedir(d);
    sl_free(dir);
    pthread_mutex_lock(&st->mu);
    sl__pending *pd = sl__pending_of(st, id);
    sl_list_free(pd->files, sl_free);
    pd->files = files;
    pthread_mutex_unlock(&st->mu);
    return sl_chk_seal(st, id, false, time_ns, err);
}

/* Parse "chk-<N>"; -1 if the name is not one. */
static int64_t sl__chk_id(const char *name)
{
    if (strncmp(name, "chk-", 4) != 0 || !name[4])
        return -1;
    char *end = NULL;
    long long v = strtoll(name + 4, &end, 10);
    return *end || v < 0 ? -1 : v;
}

/* Read chk-<id>/_metadata: 1 sealed (with *savepoint), 0 not sealed, -1 corrupt. */
static int sl__sealed(const sl_chk_store *st, int64_t id, bool *savepoint)
{
    char *dir = sl_chk_path(st, id);
    char *path = sl_path_join(dir, "_metadata");
    sl_free(dir);
    if (!sl_fs_exists(path)) {
        sl_free(path);
        return 0;
    }
    json_error_t jerr;
    json_t *meta = json_load_file(path, 0, &jerr);
    int rc = -1;
    if (meta && json_is_string(json_object_get(meta, "format")) &&
        strcmp(json_string_value(json_object_get(meta, "format")), SL_CHK_FORMAT) == 0 &&
        json_integer_value(json_object_get(meta, "checkpoint")) == id) {
        *savepoint = json_is_true(json_object_get(meta, "savepoint"));
        rc = 1;
    } else {
        sl_log(SL_LOG_WARN, "ignoring checkpoint with a corrupt _metadata: %s", path);
    }
    json_decref(meta);
    sl_free(path);
    return rc;
}

/* Checkpoint ids present as chk-<N> directories, ascending. */
static int sl__list_ids(const sl_chk_store *st, int64_t **ids, int *n, sl_error *err)
{
    *ids = NULL;
    *n = 0;
    DIR *d = opendir(st->dir);
    if (!d)
        return sl_error_set(err, SL_ERR_IO, -1, "could not open directory \"%s\"", st->dir);
    struct dirent *de;
    int cap = 0;
    while ((de = readdir(d)) != NULL) {
        int64_t id = sl__chk_id(de->d_name);
        if (id < 0)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *ids = sl_realloc(*ids, (size_t)cap * sizeof(int64_t));
        }
        (*ids)[(*n)++] = id;
    }
    closedir(d);
    for (int i = 1; i < *n; i++) /* insertion sort: few entries */
        for (int j = i; j > 0 && (*ids)[j - 1] > (*ids)[j]; j--) {
            int64_t t = (*ids)[j];
            (*ids)[j] = (*ids)[j - 1];
            (*ids)[j - 1] = t;
        }
    return 0;
}

int sl_chk_latest(sl_chk_store *st, int64_t *id, sl_error *err)
{
    *id = -1;
    int64_t *ids;
    int n;
    if (sl__list_ids(st, &ids, &n, err) != 0)
        return -1;
    for (int i = n - 1; i >= 0; i--) {
        bool sp;
        if (sl__sealed(st, ids[i], &sp) == 1) {
            *id = ids[i];
            break;
        }
    }
    sl_free(ids);
    return 0;
}

int sl_chk_read_state(sl_chk_store *st, int64_t id, const char *name, char **data, size_t *len,
                      sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    char *safe = sl__safe_name(name);
    char *file = sl_sprintf("%s/state-%s", dir, safe);
    int rc = sl_fs_read_file(file, data, len, err);
    sl_free(file);
    sl_free(safe);
    sl_free(dir);
    return rc;
}

int sl_chk_prune(sl_chk_store *st, int keep, sl_error *err)
{
    int64_t *ids;
    int n;
    if (sl__list_ids(st, &ids, &n, err) != 0)
        return -1;
    int64_t newest = -1;
    int kept = 0, rc = 0;
    for (int i = n - 1; i >= 0 && rc == 0; i--) {
        bool sp = false;
        int sealed = sl__sealed(st, ids[i], &sp);
        bool remove;
        if (sealed == 1) {
            if (newest < 0)
                newest = ids[i];
            remove = !sp && kept++ >= keep;
        } else {
            /* Unsealed (or corrupt) below the newest sealed one: an abandoned
            ** attempt. Above it, it may be in progress: leave it. */
            remove = newest >= 0 && ids[i] < newest;
        }
        if (remove) {
            char *dir = sl_chk_path(st, ids[i]);
            rc = sl_fs_remove_tree(dir, err);
            sl_free(dir);
        }
    }
    sl_free(ids);
    return rc;
}

int sl_chk_open_dir(const char *job_dir, sl_chk_store **out, sl_error *err)
{
    *out = NULL;
    if (!sl_fs_is_dir(job_dir))
        return sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1, "directory \"%s\" does not exist",
                            job_dir);
    sl_chk_store *st = sl_calloc(1, sizeof *st);
    st->dir = sl_strdup(job_dir);
    st->job = sl_strdup("");
    pthread_mutex_init(&st->mu, NULL);
    st->pending = sl_list_new();
    *out = st;
    return 0;
}

int sl_chk_open_path(const char *chk_dir, sl_chk_store **out, int64_t *id, sl_error *err)
{
    *out = NULL;
    *id = -1;
    char *path = sl_strdup(chk_dir);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        path[--n] = '\0';
    char *slash = strrchr(path, '/');
    int64_t chk = sl__chk_id(slash ? slash + 1 : path);
    if (chk < 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                     "\"%s\" is not a checkpoint or savepoint directory", chk_dir);
        sl_error_hint(err, "Give the path of a chk-<N> directory, as printed when a job "
                           "stopped with a savepoint.");
        sl_free(path);
        return -1;
    }
    if (slash == path)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    sl_chk_store *st = sl_calloc(1, sizeof *st);
    st->dir = slash ? path : sl_strdup(".");
    if (!slash)
        sl_free(path);
    st->job = sl_strdup("");
    pthread_mutex_init(&st->mu, NULL);
    st->pending = sl_list_new();
    bool sp = false;
    if (sl__sealed(st, chk, &sp) != 1) {
        sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1,
                     "savepoint \"%s\" does not exist or is not complete", chk_dir);
        sl_error_detail(err, "A checkpoint directory is complete once its _metadata is written.");
        sl_chk_close(st);
        return -1;
    }
    *out = st;
    *id = chk;
    return 0;
}
