/* replay_main.c: runs a fuzz target over every file of the directories given (the seed corpus and the kept
 * crashes), without libFuzzer: the regression test of each parser on every build. A crash fails the test
 * by itself (the sanitizers of an ASan build report reads outside the file). */
#include "fuzz_common.h" /* first: it defines _GNU_SOURCE for memfd_create */

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* an empty corpus has no directory in git */
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
        if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
            fprintf(stderr, "replay: cannot read %s\n", path);
            free(buf);
            fclose(f);
            closedir(d);
            return 1;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        free(buf);
        (*count)++;
    }
    closedir(d);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++)
        if (replay_dir(argv[i], &count))
            return 1;
    if (count == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return 1;
    }
    printf("%d passed, 0 failed\n", count);
    return 0;
}
