/* wordpiece_unicode.c: each character property the BERT tokenizer uses, as HuggingFace tokenizers sees it: utf8proc's
 * tables (Unicode 15), corrected where tokenizers' tables differ (categories: Unicode 8; NFD: 9; lowercase: 17). */
#include <stdlib.h>

#include <utf8proc.h>

#include "wordpiece_internal.h"

/* How tokenizers sees a character its tables predate: WP_NEW, unassigned in all of them (no category, canonical
 * class 0, no decomposition); WP_NFD_ONLY, known to its NFD (Unicode 9) but not to its categories (Unicode 8, the
 * unicode_categories crate); WP_PUNCT and WP_MARK, an older category than utf8proc's (Po; Mn). */
enum { WP_NEW = 1, WP_NFD_ONLY, WP_PUNCT, WP_MARK };

/* Every codepoint whose class for BERT (control, punctuation, nonspacing mark, decomposition) differs between
 * tokenizers 0.23 and utf8proc 2.8, found by running both over all of Unicode; tests/models/test_wordpiece.py
 * runs that comparison again and prints any codepoint where they part (an update of either library). */
static const struct wp_old_range {
    int32_t first, last;
    int kind;
} old_ranges[] = {
    {0x61D, 0x61D, WP_NEW}, {0x7FD, 0x7FD, WP_NEW}, {0x890, 0x891, WP_NEW}, {0x898, 0x89F, WP_NEW},
    {0x8CA, 0x8D3, WP_NEW}, {0x8D4, 0x8E1, WP_NFD_ONLY}, {0x8E2, 0x8E2, WP_NEW}, {0x9FD, 0x9FE, WP_NEW},
    {0xA76, 0xA76, WP_NEW}, {0xAFA, 0xAFF, WP_NEW}, {0xB55, 0xB55, WP_NEW}, {0xC04, 0xC04, WP_NEW},
    {0xC3C, 0xC3C, WP_NEW}, {0xC77, 0xC77, WP_NEW}, {0xC84, 0xC84, WP_NEW}, {0xD00, 0xD00, WP_NEW},
    {0xD3B, 0xD3C, WP_NEW}, {0xD81, 0xD81, WP_NEW}, {0xEBA, 0xEBA, WP_NEW}, {0xECE, 0xECE, WP_NEW},
    {0x166D, 0x166D, WP_PUNCT}, {0x1734, 0x1734, WP_MARK}, {0x180F, 0x180F, WP_NEW}, {0x1885, 0x1886, WP_NEW},
    {0x1ABF, 0x1ACE, WP_NEW}, {0x1B7D, 0x1B7E, WP_NEW}, {0x1C89, 0x1C89, WP_NEW}, {0x1DF6, 0x1DFA, WP_NEW},
    {0x1DFB, 0x1DFB, WP_NFD_ONLY}, {0x2E43, 0x2E4F, WP_NEW}, {0x2E52, 0x2E5D, WP_NEW}, {0xA7CB, 0xA7CC, WP_NEW},
    {0xA7CE, 0xA7CE, WP_NEW}, {0xA7D2, 0xA7D2, WP_NEW}, {0xA7D4, 0xA7D4, WP_NEW}, {0xA7DA, 0xA7DA, WP_NEW},
    {0xA7DC, 0xA7DC, WP_NEW}, {0xA82C, 0xA82C, WP_NEW}, {0xA8C5, 0xA8C5, WP_NEW}, {0xA8FF, 0xA8FF, WP_NEW},
    {0xA9BD, 0xA9BD, WP_NEW}, {0x10D24, 0x10D27, WP_NEW}, {0x10D50, 0x10D65, WP_NEW}, {0x10EAB, 0x10EAD, WP_NEW},
    {0x10EFD, 0x10EFF, WP_NEW}, {0x10F46, 0x10F50, WP_NEW}, {0x10F55, 0x10F59, WP_NEW}, {0x10F82, 0x10F89, WP_NEW},
    {0x11070, 0x11070, WP_NEW}, {0x11073, 0x11074, WP_NEW}, {0x110C2, 0x110C2, WP_NEW}, {0x110CD, 0x110CD, WP_NEW},
    {0x111C9, 0x111C9, WP_PUNCT}, {0x111CF, 0x111CF, WP_NEW}, {0x1123E, 0x1123E, WP_NEW},
    {0x11241, 0x11241, WP_NEW}, {0x1133B, 0x1133B, WP_NEW}, {0x11438, 0x1143F, WP_NEW},
    {0x11442, 0x11442, WP_NFD_ONLY}, {0x11443, 0x11444, WP_NEW}, {0x11446, 0x11446, WP_NFD_ONLY},
    {0x1144B, 0x1144F, WP_NEW}, {0x1145A, 0x1145B, WP_NEW}, {0x1145D, 0x1145E, WP_NEW}, {0x11660, 0x1166C, WP_NEW},
    {0x116B9, 0x116B9, WP_NEW}, {0x1182F, 0x11837, WP_NEW}, {0x11839, 0x1183B, WP_NEW}, {0x11938, 0x11938, WP_NEW},
    {0x1193B, 0x1193C, WP_NEW}, {0x1193E, 0x1193E, WP_NEW}, {0x11943, 0x11946, WP_NEW}, {0x119D4, 0x119D7, WP_NEW},
    {0x119DA, 0x119DB, WP_NEW}, {0x119E0, 0x119E0, WP_NEW}, {0x119E2, 0x119E2, WP_NEW}, {0x11A01, 0x11A0A, WP_NEW},
    {0x11A33, 0x11A38, WP_NEW}, {0x11A3B, 0x11A47, WP_NEW}, {0x11A51, 0x11A56, WP_NEW}, {0x11A59, 0x11A5B, WP_NEW},
    {0x11A8A, 0x11A96, WP_NEW}, {0x11A98, 0x11A9C, WP_NEW}, {0x11A9E, 0x11AA2, WP_NEW}, {0x11B00, 0x11B09, WP_NEW},
    {0x11C30, 0x11C36, WP_NEW}, {0x11C38, 0x11C3D, WP_NEW}, {0x11C3F, 0x11C3F, WP_NFD_ONLY},
    {0x11C41, 0x11C45, WP_NEW}, {0x11C70, 0x11C71, WP_NEW}, {0x11C92, 0x11CA7, WP_NEW}, {0x11CAA, 0x11CB0, WP_NEW},
    {0x11CB2, 0x11CB3, WP_NEW}, {0x11CB5, 0x11CB6, WP_NEW}, {0x11D31, 0x11D36, WP_NEW}, {0x11D3A, 0x11D3A, WP_NEW},
    {0x11D3C, 0x11D3D, WP_NEW}, {0x11D3F, 0x11D45, WP_NEW}, {0x11D47, 0x11D47, WP_NEW}, {0x11D90, 0x11D91, WP_NEW},
    {0x11D95, 0x11D95, WP_NEW}, {0x11D97, 0x11D97, WP_NEW}, {0x11EF3, 0x11EF4, WP_NEW}, {0x11EF7, 0x11EF8, WP_NEW},
    {0x11F00, 0x11F01, WP_NEW}, {0x11F36, 0x11F3A, WP_NEW}, {0x11F40, 0x11F40, WP_NEW}, {0x11F42, 0x11F4F, WP_NEW},
    {0x11FFF, 0x11FFF, WP_NEW}, {0x12FF1, 0x12FF2, WP_NEW}, {0x13430, 0x13440, WP_NEW}, {0x13447, 0x13455, WP_NEW},
    {0x16E97, 0x16E9A, WP_NEW}, {0x16EA0, 0x16EB8, WP_NEW}, {0x16F4F, 0x16F4F, WP_NEW}, {0x16FE2, 0x16FE2, WP_NEW},
    {0x16FE4, 0x16FE4, WP_NEW}, {0x1CF00, 0x1CF2D, WP_NEW}, {0x1CF30, 0x1CF46, WP_NEW},
    {0x1E000, 0x1E006, WP_NFD_ONLY}, {0x1E008, 0x1E018, WP_NFD_ONLY}, {0x1E01B, 0x1E021, WP_NFD_ONLY},
    {0x1E023, 0x1E024, WP_NFD_ONLY}, {0x1E026, 0x1E02A, WP_NFD_ONLY}, {0x1E08F, 0x1E08F, WP_NEW},
    {0x1E130, 0x1E136, WP_NEW}, {0x1E2AE, 0x1E2AE, WP_NEW}, {0x1E2EC, 0x1E2EF, WP_NEW}, {0x1E4EC, 0x1E4EF, WP_NEW},
    {0x1E944, 0x1E94A, WP_NFD_ONLY}, {0x1E95E, 0x1E95F, WP_NEW},
};

/* The kind of c in old_ranges, or 0 when tokenizers and utf8proc agree on it. */
static int old_kind(int32_t c) {
    if (c < old_ranges[0].first) return 0;
    size_t lo = 0, hi = sizeof old_ranges / sizeof old_ranges[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < old_ranges[mid].first)
            hi = mid;
        else if (c > old_ranges[mid].last)
            lo = mid + 1;
        else
            return old_ranges[mid].kind;
    }
    return 0;
}

bool wp_is_whitespace(int32_t c) {
    if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || c == 0x20;
    if ((c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680) return true;
    return (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

bool wp_is_punctuation(int32_t c) {
    if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
    int old = old_kind(c);
    if (old) return old == WP_PUNCT;
    utf8proc_category_t cat = utf8proc_category(c);
    return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

bool wp_is_control(int32_t c) {
    if (c < 0x80) return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F;
    if (old_kind(c)) return false;
    utf8proc_category_t cat = utf8proc_category(c);
    return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_CO ||
           cat == UTF8PROC_CATEGORY_CS;
}

/* The ranges of tokenizers' is_chinese_char: BERT's CJK blocks, with its 0x2B920 (not 0x2B820) for Extension E. */
bool wp_is_chinese(int32_t c) {
    if (c < 0x3400) return false;
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool wp_is_nonspacing_mark(int32_t c) {
    if (c < 0x300) return false;
    int old = old_kind(c);
    if (old) return old == WP_MARK;
    return utf8proc_category(c) == UTF8PROC_CATEGORY_MN;
}

int wp_combining_class(int32_t c) {
    return c < 0x300 || old_kind(c) == WP_NEW ? 0 : utf8proc_get_property(c)->combining_class;
}

int wp_decompose(int32_t c, int32_t out[4]) {
    if (c < 0xC0 || old_kind(c) == WP_NEW) {
        out[0] = c;
        return 1;
    }
    utf8proc_int32_t dec[4];
    int last = 0;
    utf8proc_ssize_t k = utf8proc_decompose_char(c, dec, 4, UTF8PROC_DECOMPOSE, &last);
    if (k < 1 || k > 4) return -1; /* canonical decompositions are at most 4 long */
    for (utf8proc_ssize_t i = 0; i < k; i++) out[i] = dec[i];
    return (int)k;
}

/* Uppercase letters newer than utf8proc 2.8 (Unicode 16 and 17), which Rust's char::to_lowercase maps: c in
 * [first, last] lowercases to c + delta. */
static const struct wp_lower_range {
    int32_t first, last, delta;
} new_lower[] = {
    {0x1C89, 0x1C89, 1}, {0xA7CB, 0xA7CB, -42343}, {0xA7CC, 0xA7CC, 1},   {0xA7CE, 0xA7CE, 1},
    {0xA7D2, 0xA7D2, 1}, {0xA7D4, 0xA7D4, 1},      {0xA7DA, 0xA7DA, 1},   {0xA7DC, 0xA7DC, -42561},
    {0x10D50, 0x10D65, 32}, {0x16EA0, 0x16EB8, 27},
};

int wp_lowercase(int32_t c, int32_t out[2]) {
    if (c < 0x80) {
        out[0] = c >= 'A' && c <= 'Z' ? c + 32 : c;
        return 1;
    }
    for (size_t i = 0; c >= 0x1C89 && i < sizeof new_lower / sizeof new_lower[0]; i++)
        if (c >= new_lower[i].first && c <= new_lower[i].last && utf8proc_category(c) == UTF8PROC_CATEGORY_CN) {
            out[0] = c + new_lower[i].delta;
            return 1;
        }
    if (c == 0x130) { /* the one unconditional multi-char lowercase of SpecialCasing.txt: i + dot above */
        out[0] = 'i';
        out[1] = 0x307;
        return 2;
    }
    out[0] = utf8proc_tolower(c);
    return 1;
}
