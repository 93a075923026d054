/* fuzz_tokenizer.c: models/'s tokenizer (tokenizer.h) over hostile vocabularies. The input is a GGUF file, or, after
 * a first byte 'J', the tokenizer.json of a Hugging Face directory. A vocabulary that loads encodes a set of texts
 * (with and without BOS and special tokens, invalid UTF-8 included) and decodes the ids, then decodes ids read from
 * the input's bytes, in range or not. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tokenizer.h"

static const char *const texts[] = {
    "", "Hello, world!", "  spaces\tand\nnewlines  ", "na\xc3\xafve caf\xc3\xa9 \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x98\x80",
    "12345 3.14159 x=y+1;", "<s><|begin_of_text|>hi</s><unk>", "\xff\xfe\xc3 broken \xe6\x9d",
};

/* The input as a tokenizer.json in this process's own directory: that directory's path, or NULL. */
static const char *json_dir(const uint8_t *data, size_t size)
{
    static char dir[64];
    char file[96];
    snprintf(dir, sizeof dir, "/tmp/wick-fuzz-tokenizer-%d", (int)getpid());
    mkdir(dir, 0700);
    snprintf(file, sizeof file, "%s/tokenizer.json", dir);
    FILE *f = fopen(file, "wb");
    if (!f)
        return NULL;
    size_t wrote = fwrite(data, 1, size, f);
    return fclose(f) == 0 && wrote == size ? dir : NULL;
}

static void exercise(const wm_tokenizer *t, const uint8_t *data, size_t size)
{
    char err[256], piece[64];
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        for (int mode = 0; mode < 4; mode++) {
            int32_t *ids = NULL;
            int n = 0;
            char *text = NULL;
            size_t len = 0;
            if (wm_tokenizer_encode(t, texts[i], strlen(texts[i]), mode & 1, mode & 2, &ids, &n, err, sizeof err) !=
                WK_OK)
                continue;
            if (wm_tokenizer_decode(t, ids, n, &text, &len, err, sizeof err) == WK_OK)
                free(text);
            free(ids);
        }
    int32_t ids[64];
    int n = 0;
    for (size_t i = 0; i + 4 <= size && n < 64; i += 4, n++) {
        memcpy(&ids[n], data + i, 4);
        if (n % 2 == 1) /* half of them folded into the vocabulary */
            ids[n] = (int32_t)((uint32_t)ids[n] % (uint32_t)(wm_tokenizer_size(t) + 1));
        wm_tokenizer_piece(t, ids[n], n == 0, piece, sizeof piece);
    }
    char *text = NULL;
    size_t len = 0;
    if (wm_tokenizer_decode(t, ids, n, &text, &len, err, sizeof err) == WK_OK)
        free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[256];
    int fd = -1;
    const char *where = path;
    if (size > 0 && data[0] == 'J') {
        if (!(where = json_dir(data + 1, size - 1)))
            return 0;
    } else if ((fd = fuzz_file(data, size, path, sizeof path)) < 0) {
        return 0;
    }
    wm_tokenizer *t = NULL;
    if (wm_tokenizer_load(where, &t, err, sizeof err) == WK_OK) {
        exercise(t, data, size);
        wm_tokenizer_free(t);
    }
    if (fd >= 0)
        close(fd);
    return 0;
}
