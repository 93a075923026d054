#!/usr/bin/env python3
"""test_readme.py: runs every ```python block of README.md (in a scratch directory), so the README's Python
example cannot drift from the package. Prints "N passed, M failed"."""
import os
import re
import sys
import tempfile

from checks import check, fail, summary

readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
blocks = re.findall(r"```python\n(.*?)```", open(readme).read(), re.S)
with tempfile.TemporaryDirectory() as scratch:  # removed afterwards, with what the blocks wrote
    os.chdir(scratch)
    for i, code in enumerate(blocks, 1):
        try:
            exec(compile(code, f"README.md python block {i}", "exec"), {"__name__": "__readme__"})
        except Exception as e:
            fail(f"block {i}: {type(e).__name__}: {e}")
        else:
            check(True, f"block {i}")
    os.chdir(os.path.dirname(readme))
if not blocks:
    fail("no ```python block in README.md")
sys.exit(summary())
