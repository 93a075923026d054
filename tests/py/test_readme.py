#!/usr/bin/env python3
"""test_readme.py: runs every ```python block of README.md (in a scratch directory), so the README's Python
example cannot drift from the package. Prints "N passed, M failed"."""
import os
import re
import sys
import tempfile

readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
blocks = re.findall(r"```python\n(.*?)```", open(readme).read(), re.S)
failed = 0
os.chdir(tempfile.mkdtemp())
for i, code in enumerate(blocks, 1):
    try:
        exec(compile(code, f"README.md python block {i}", "exec"), {"__name__": "__readme__"})
    except Exception as e:
        failed += 1
        print(f"FAIL block {i}: {type(e).__name__}: {e}")
if not blocks:
    print("FAIL: no ```python block in README.md")
    failed += 1
print(f"{len(blocks) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
