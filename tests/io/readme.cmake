# The README's Python example, run against the package and the library just built.
wick_py_test(py_readme test_readme.py)
