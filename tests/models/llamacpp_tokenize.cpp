// llamacpp_tokenize.cpp: llama.cpp's own tokenizer (libllama, vocab_only), the reference of compare_llamacpp.py.
// `llamacpp_tokenize MODEL.gguf enc|encs|dec`: enc and encs read a text a line in hex and print its ids (add_special;
// encs with parse_special), dec reads comma-separated ids and prints llama_detokenize's bytes in hex (remove_special).
// Build (not part of the CMake build), from a llama.cpp checkout LCPP built with `cmake -S $LCPP -B $B
// -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
// -DLLAMA_BUILD_{TESTS,EXAMPLES,SERVER,TOOLS,APP,COMMON}=OFF && cmake --build $B --target llama`:
//   g++ -O1 -std=c++17 llamacpp_tokenize.cpp -I$LCPP/include -I$LCPP/ggml/include $B/src/libllama.a
//       $B/ggml/src/libggml.a $B/ggml/src/libggml-cpu.a $B/ggml/src/libggml-base.a -lpthread -ldl -lm
#include "llama.h"
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
static std::string unhex(const std::string &h) {
    std::string s;
    for (size_t i = 0; i + 1 < h.size(); i += 2) s += (char)std::stoi(h.substr(i, 2), nullptr, 16);
    return s;
}
static void quiet(ggml_log_level, const char *, void *) {}
int main(int argc, char **argv) {
    if (argc != 3) return 2;
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    auto mp = llama_model_default_params();
    mp.vocab_only = true;
    llama_model *m = llama_model_load_from_file(argv[1], mp);
    if (!m) { fprintf(stderr, "load failed\n"); return 1; }
    const llama_vocab *v = llama_model_get_vocab(m);
    std::string mode = argv[2], line;
    while (std::getline(std::cin, line)) {
        if (mode == "dec") {
            std::vector<llama_token> ids;
            size_t p = 0;
            while (p < line.size()) { size_t q = line.find(',', p); if (q == std::string::npos) q = line.size(); ids.push_back(std::stoi(line.substr(p, q - p))); p = q + 1; }
            std::vector<char> buf(ids.size() * 64 + 64);
            int n = llama_detokenize(v, ids.data(), (int)ids.size(), buf.data(), (int)buf.size(), true, false);
            for (int i = 0; i < n; i++) printf("%02x", (unsigned char)buf[i]);
            printf("\n");
            continue;
        }
        std::string text = unhex(line);
        std::vector<llama_token> toks(text.size() * 2 + 16);
        int n = llama_tokenize(v, text.data(), (int)text.size(), toks.data(), (int)toks.size(), true, mode == "encs");
        for (int i = 0; i < n; i++) printf(i ? ",%d" : "%d", toks[i]);
        printf("\n");
    }
    llama_model_free(m);
    return 0;
}
