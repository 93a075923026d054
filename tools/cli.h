/* cli.h: what the commands of the `wick` tool share: option parsing, the devices to run on, and JSON
 * string output. Each command is a function `int cmd_x(int argc, char **argv)` returning the exit code. */
#ifndef WICK_CLI_H
#define WICK_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "wick.h"

/* Exit codes: 0 success, 1 a check or benchmark failed, 2 bad usage (unknown option, bad value, no
 * such device). */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* Most devices one run can address (backends x devices). */
#define CLI_MAX_DEVICES 64

int cmd_devices(int argc, char **argv);
int cmd_info(int argc, char **argv);
/* `wick info FILE`: a safetensors, GGUF or .npy file's contents (cmd_info.c). */
int cmd_info_file(const char *path, bool json);
int cmd_check(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* `wick embed MODEL_DIR`: sentence embeddings (cmd_embed.c; needs models/). */
int cmd_embed(int argc, char **argv);
/* `wick generate MODEL`: greedy generation with a Llama (cmd_generate.c; needs models/). */
int cmd_generate(int argc, char **argv);

/* Matches argv[*i] against option `name` taking a value ("--name V" or "--name=V"). Returns 1 and sets
 * *value (advancing *i past a separate value) on a match, 0 when argv[*i] is another option, -1 when the
 * value is missing (a message is printed). */
int cli_value_option(int argc, char **argv, int *i, const char *name, const char **value);
/* Whether argv[i] is -h or --help. */
bool cli_is_help(const char *arg);
/* Parses a whole unsigned decimal or 0x number; false on anything else. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* Splits a comma-separated list into names (copied into buf). Returns the count, or -1 for an empty
 * name, more than cap names, or a list longer than buf. */
int cli_split_list(const char *list, char *buf, size_t bufsize, char **names, int cap);

/* The devices named by `spec`: NULL or "all" is every device of every backend that found one; otherwise
 * one device name ("cpu", "cuda:0", ...). Prints why and returns false when the device cannot be opened. */
bool cli_devices(const char *spec, wk_device **devs, int *count);

/* Writes s as a JSON string literal (quoted and escaped). */
void cli_json_string(FILE *f, const char *s);

#endif
