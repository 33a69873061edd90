#!/usr/bin/python3
"""The size rules of STYLE.md, checked: no library .cc over 400 lines, no function over 60
lines (tests and the programs' main() are exempt); and no Catch2 test name with ';'. Prints each breach and exits 1 when there is
one. Functions are found by their braces in clang-formatted code: a line that ends a signature
with '{' at the depth of a namespace or class body opens one, its matching '}' closes it."""
import re
import subprocess
import sys

MAX_CC_LINES = 400
MAX_FUNCTION_LINES = 60
LIBRARIES = ("fs/", "transport/", "qos/", "modeselect/", "tools/config/")
CONTROL = re.compile(r"^\s*(if|for|while|switch|else|do|try|catch|namespace|class|struct|enum|union|extern)\b")
SIGNATURE_END = re.compile(r"\)\s*(const|override|final|noexcept|mutable|->[^{]*|\s)*\{\s*(//.*)?$")


def strip(line):
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def functions(lines):
    """(name line, first line, last line) of every function body."""
    out, stack = [], []  # stack of (kind, start)
    in_comment = False
    for i, raw in enumerate(lines, 1):
        line = strip(raw)
        if in_comment:
            if "*/" not in line:
                continue
            line, in_comment = line.split("*/", 1)[1], False
        if "/*" in line and "*/" not in line:
            line, in_comment = line.split("/*", 1)[0], True
        is_function = (SIGNATURE_END.search(line) and not CONTROL.match(line)
                       and all(kind != "function" for kind, _ in stack) and "=" not in line.split("(")[0])
        for ch in line:
            if ch == "{":
                stack.append(("function" if is_function else "block", i))
                is_function = False
            elif ch == "}" and stack:
                kind, start = stack.pop()
                if kind == "function":
                    out.append((start, i))
    return out


def main():
    files = subprocess.run(["git", "ls-files", "*.cc", "*.h"], capture_output=True, text=True,
                           check=True).stdout.split()
    bad = 0
    # A Catch2 test name with ';' becomes two names in ctest's list (catch_discover_tests), each
    # matching no test: the test would never run, and ctest would call it passed.
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in re.finditer(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"', text):
            if ";" in m.group(1):
                print(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: a test name with ';' never runs under ctest")
                bad += 1
    for path in files:
        if path.endswith("_test.cc") or "/testdata/" in path or path.startswith(("bench/", "test/")):
            continue
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        if path.endswith(".cc") and path.startswith(LIBRARIES) and len(lines) - 1 > MAX_CC_LINES:
            print(f"{path}: {len(lines) - 1} lines (a library .cc has at most {MAX_CC_LINES})")
            bad += 1
        for start, end in functions(lines):
            if end - start + 1 > MAX_FUNCTION_LINES and not re.search(r"\bmain\s*\(", lines[start - 1]):
                print(f"{path}:{start}: a function of {end - start + 1} lines (at most {MAX_FUNCTION_LINES})")
                bad += 1
    if bad == 0:
        print(f"code size: every library .cc within {MAX_CC_LINES} lines, every function within {MAX_FUNCTION_LINES}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
