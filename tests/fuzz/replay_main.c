/*
** replay_main.c — runs fuzz targets without libFuzzer: every file named on
** the command line (directories are walked one level) is passed once to
** LLVMFuzzerTestOneInput. Used by the fuzz.*_replay ctests of non-fuzz
** builds, so the seed corpus is exercised under ASan/UBSan everywhere.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one file; returns 0, or -1 when it cannot be read. */
static int sl__replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    uint8_t *exact = malloc(n ? n : 1); /* exactly n bytes */
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot stat %s\n", argv[i]);
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += sl__replay_file(argv[i]) != 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            errors += sl__replay_file(path) != 0;
            files++;
        }
        if (d)
            closedir(d);
    }
    printf("replayed %d files, %d errors\n", files, errors);
    return errors || files == 0 ? 1 : 0;
}
