#!/usr/bin/env python3
"""check-sizes.py: the size limits of docs/ARCHITECTURE.md, checked: no source file under the given folders
(default: src) over 600 lines, no function over 80 lines. A function is a top-level brace block whose opening
brace follows a parameter list ')' (so structs, enums and initialisers do not count), from the line of its
opening brace to the line of its closing one, comments and string literals blanked first. Preprocessor
lines are skipped, so a macro that expands to a function body counts only where it is expanded into code.
Prints each excess and exits 1 when there is one; usage: scripts/check-sizes.py [DIR...]"""
import os
import re
import sys

MAX_FILE, MAX_FUNCTION = 600, 80
EXTENSIONS = (".c", ".h", ".cu", ".cuh")


def blank(text):
    """Comments and string/char literals replaced by spaces, newlines kept."""
    def keep_lines(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', keep_lines, text, flags=re.S)


def functions(text):
    """(first line, last line, name) of each top-level block opened after a ')'."""
    depth, start, last_token, found = 0, None, "", []
    lines = blank(text).split("\n")
    in_macro = False
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if in_macro or stripped.startswith("#"):
            in_macro = stripped.endswith("\\")
            continue
        for ch in line:
            if ch == "{":
                if depth == 0:
                    start = (number, last_token == ")")
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and start and start[1]:
                    found.append((start[0], number))
                if depth == 0:
                    start = None
            if not ch.isspace():
                last_token = ch
    return found


def main(dirs):
    problems = 0
    for top in dirs or ["src"]:
        for folder, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(folder, name)
                text = open(path, encoding="utf-8").read()
                count = text.count("\n")
                if count > MAX_FILE:
                    print(f"{path}: {count} lines (limit {MAX_FILE})")
                    problems += 1
                for first, last in functions(text):
                    if last - first + 1 > MAX_FUNCTION:
                        print(f"{path}:{first}: a function of {last - first + 1} lines (limit {MAX_FUNCTION})")
                        problems += 1
    print(f"check-sizes: {problems} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
