/* wick.c: the `wick` command-line tool: dispatch to devices / info / check / bench, and the helpers
 * every command shares (option parsing, device lists, JSON strings). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: wick <command> [options]\n"
    "\n"
    "commands:\n"
    "  devices [--json]           backends compiled in, and the devices each found (or what it looked for)\n"
    "  info [--json]              version, build type, build options, embedded GPU kernel targets\n"
    "  info FILE [--json]         what a safetensors, GGUF or .npy file holds: metadata and tensors\n"
    "  check [--device D] [--op NAMES] [--seed N] [--json] [--quiet] [--list]\n"
    "                             run the case table against the float64 reference\n"
    "  bench [--device D] [--op NAMES] [--quick] [--json] [--list]\n"
    "                             time ops; GB/s or GFLOP/s and the fraction of the device's peak\n"
    "  embed MODEL_DIR [--device D] [--dtype f32|f16|bf16] [--batch N] [--max-tokens N] [--output F.npy] [FILE...]\n"
    "                             sentence embeddings of the lines of FILEs or stdin (a sentence-transformers\n"
    "                             BERT directory); JSON lines, or an .npy file with --output\n"
    "  generate MODEL --prompt-ids 1,2,3 [-n N] [--device D] [--dtype T] [--context N] [--logits F.npy]\n"
    "                             greedy generation with a Llama (a Hugging Face directory or a GGUF file)\n"
    "  help                       this text\n"
    "\n"
    "D is a device name (cpu, cuda:0, rocm:0, gpu:0) or 'all' (the default: every device found).\n"
    "NAMES is one op name or a comma-separated list; --list prints the op names.\n"
    "Exit status: 0 success, 1 a case failed, 2 bad usage.\n";

static void usage(FILE *f) { fputs(usage_text, f); }

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || cli_is_help(cmd)) {
        usage(stdout);
        return CLI_OK;
    }
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } commands[] = {
        {"devices", cmd_devices},
        {"info", cmd_info},
        {"check", cmd_check},
        {"bench", cmd_bench},
        {"embed", cmd_embed},
        {"generate", cmd_generate},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "wick: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return CLI_USAGE;
}

/* ---------------------------------------------------------------- shared helpers */

bool cli_is_help(const char *arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

int cli_value_option(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "wick: option %s needs a value\n", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    /* strtoull would accept leading blanks and signs ("-1" wraps to 2^64 - 1). */
    if (!s || !isdigit((unsigned char)*s))
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end != '\0' || errno == ERANGE)
        return false;
    *out = (uint64_t)v;
    return true;
}

int cli_split_list(const char *list, char *buf, size_t bufsize, char **names, int cap)
{
    if (strlen(list) >= bufsize)
        return -1;
    strcpy(buf, list);
    int n = 0;
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p || n == cap)
            return -1;
        names[n++] = p;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

bool cli_devices(const char *spec, wk_device **devs, int *count)
{
    *count = 0;
    if (spec && strcmp(spec, "all") != 0) {
        if (wk_device_get(spec, &devs[0]) != WK_OK) {
            fprintf(stderr, "wick: cannot use device '%s': %s\n", spec, wk_last_error());
            return false;
        }
        *count = 1;
        return true;
    }
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        if (wk_backend_info_get(b, &info) != WK_OK || !info.available)
            continue;
        for (int d = 0; d < info.device_count && *count < CLI_MAX_DEVICES; d++) {
            char name[48];
            snprintf(name, sizeof name, "%s:%d", info.name, d);
            if (wk_device_get(name, &devs[*count]) != WK_OK) {
                fprintf(stderr, "wick: backend %s reports device %s but cannot open it: %s\n", info.name, name,
                        wk_last_error());
                return false;
            }
            ++*count;
        }
    }
    if (*count == 0) {
        fprintf(stderr, "wick: no device found (run `wick devices`)\n");
        return false;
    }
    return true;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* Parses the only option of devices. Returns -1 to go on, else an exit code. */
static int parse_json_only(int argc, char **argv, const char *cmd, bool *json)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            *json = true;
        } else if (cli_is_help(argv[i])) {
            printf("usage: wick %s [--json]\n", cmd);
            return CLI_OK;
        } else {
            fprintf(stderr, "wick %s: unknown option '%s'\nusage: wick %s [--json]\n", cmd, argv[i], cmd);
            return CLI_USAGE;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- wick devices */

/* The collective library of a backend with devices (NCCL, RCCL, the CPU's threads), or why there is none. */
static void print_collectives(const char *backend, int ndev, bool json)
{
    if (ndev == 0)
        return;
    char name[48];
    snprintf(name, sizeof name, strcmp(backend, "cpu") == 0 ? "%s" : "%s:0", backend);
    wk_device *dev = NULL;
    const char *lib = NULL;
    bool ok = wk_device_get(name, &dev) == WK_OK && wk_comm_library(dev, &lib) == WK_OK;
    if (json) {
        printf(",\"collectives\":");
        cli_json_string(stdout, ok ? lib : wk_last_error());
        printf(",\"collectives_available\":%s", ok ? "true" : "false");
    } else {
        printf("  collectives: %s%s\n", ok ? lib : "none: ", ok ? "" : wk_last_error());
    }
}

int cmd_devices(int argc, char **argv)
{
    bool json = false;
    int rc = parse_json_only(argc, argv, "devices", &json);
    if (rc >= 0)
        return rc;
    int found = 0;
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        if (wk_backend_info_get(b, &info) != WK_OK) {
            fprintf(stderr, "wick devices: backend %d: %s\n", b, wk_last_error());
            return CLI_FAILED;
        }
        int n = info.available ? info.device_count : 0;
        if (json) {
            printf("{\"backend\":");
            cli_json_string(stdout, info.name);
            printf(",\"available\":%s,\"device_count\":%d,\"detail\":", info.available ? "true" : "false", n);
            cli_json_string(stdout, info.detail);
            printf(",\"devices\":[");
        } else if (info.available) {
            printf("%s: %d device(s): %s\n", info.name, n, info.detail);
        } else {
            printf("%s: no device: %s\n", info.name, info.detail);
        }
        for (int d = 0; d < n; d++) {
            char name[48];
            wk_device *dev = NULL;
            snprintf(name, sizeof name, "%s:%d", info.name, d);
            bool ok = wk_device_get(name, &dev) == WK_OK;
            const char *shown = ok ? wk_device_name(dev) : name;
            if (json) {
                if (d)
                    putchar(',');
                cli_json_string(stdout, shown);
            } else {
                printf("  %s%s%s\n", shown, ok ? "" : "  (cannot open: ", ok ? "" : wk_last_error());
            }
            found += ok;
        }
        if (json)
            putchar(']');
        print_collectives(info.name, n, json);
        if (json)
            printf("}\n");
    }
    if (!json)
        printf("%d device(s) found\n", found);
    return CLI_OK;
}

/* ---------------------------------------------------------------- wick info */

static const char info_usage[] = "usage: wick info [FILE] [--json]\n"
                                 "  without FILE: this build's version, options and kernel targets\n"
                                 "  with FILE: a safetensors, GGUF or .npy file's metadata and tensors\n";

int cmd_info(int argc, char **argv)
{
    bool json = false;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (cli_is_help(argv[i])) {
            fputs(info_usage, stdout);
            return CLI_OK;
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else {
            fprintf(stderr, "wick info: unexpected argument '%s'\n%s", argv[i], info_usage);
            return CLI_USAGE;
        }
    }
    if (file)
        return cmd_info_file(file, json);
    wk_build_info bi;
    wk_get_build_info(&bi);
    const char *cuda = *bi.cuda_targets ? bi.cuda_targets : "none";
    const char *rocm = *bi.rocm_targets ? bi.rocm_targets : "none";
    char backends[128] = "";
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        if (wk_backend_info_get(b, &info) == WK_OK) {
            size_t used = strlen(backends);
            snprintf(backends + used, sizeof backends - used, "%s%s", used ? " " : "", info.name);
        }
    }
    if (json) {
        static const char *const keys[] = {"version", "build_type", "options", "backends", "cuda_targets",
                                           "rocm_targets"};
        const char *vals[] = {bi.version, bi.build_type, bi.options, backends, cuda, rocm};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            printf(i ? ",\"%s\":" : "{\"%s\":", keys[i]);
            cli_json_string(stdout, vals[i]);
        }
        printf("}\n");
        return CLI_OK;
    }
    printf("wick %s\n", bi.version);
    printf("build type:            %s\n", bi.build_type);
    printf("options:               %s\n", bi.options);
    printf("backends:              %s\n", backends);
    printf("NVIDIA kernel targets: %s\n", cuda);
    printf("AMD kernel targets:    %s\n", rocm);
    return CLI_OK;
}
