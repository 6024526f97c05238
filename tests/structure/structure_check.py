#!/usr/bin/env python3
"""The size rules of the source tree (issue 31), checked on every test run.

- No source file outside tests/ and bench/ over 600 lines.
- No function over 80 lines, except a program's main (at most 150).
Either fails the check, naming the file (and the function, with its first line).

Functions are found by their braces: a line that ends with '{' and opens a function body (a
signature with parentheses, not a class, namespace, control statement or lambda inside a body)
to the line with its closing brace. Lambdas count in the function that holds them. Usage:
structure_check.py ROOT [--report] (--report lists the longest functions and files and exits 0).
"""
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
MAX_MAIN_LINES = 150
SOURCE_DIRS = ("proto", "common", "fmi", "ssp", "units", "master", "worker", "orchestrator", "cli")
SUFFIXES = (".cc", ".h", ".c")

NOT_A_FUNCTION = re.compile(
    r"^\s*(namespace\b|class\b|struct\b|union\b|enum\b|extern\b|if\b|else\b|for\b|while\b|"
    r"switch\b|do\b|try\b|catch\b|case\b|default\b|return\b|\}|#)")


def source_files(root):
    for top in SOURCE_DIRS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            if "/gen" in folder or "/build" in folder:
                continue
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.join(folder, name)


def strip(line):
    """The line without // comments and string or character literals."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//", 1)[0]


def functions(path):
    """(name, first line, length) of every function body in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [strip(l) for l in f.read().split("\n")]
    found = []
    depth = 0
    in_comment = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if in_comment:
            if "*/" in line:
                in_comment = False
                line = line.split("*/", 1)[1]
            else:
                i += 1
                continue
        if "/*" in line and "*/" not in line:
            in_comment = True
            line = line.split("/*", 1)[0]
        stripped = line.rstrip()
        # A function body starts at namespace or class depth: a signature line (or the last line
        # of a signature spread over several) ending in '{' with a ')' before it.
        if stripped.endswith("{") and ")" in stripped and not NOT_A_FUNCTION.match(stripped):
            start = i
            # The signature may begin on earlier lines.
            head = stripped
            j = i
            while "(" not in head and j > 0:
                j -= 1
                head = lines[j] + head
            name_match = re.search(r"([A-Za-z_~][A-Za-z0-9_:~<>]*)\s*\(", head)
            name = name_match.group(1) if name_match else "?"
            level = 0
            k = i
            while k < len(lines):
                level += lines[k].count("{") - lines[k].count("}")
                if level <= 0 and k >= i:
                    break
                k += 1
            if "=" not in stripped.split("(")[0] and "[" not in stripped.split("(")[0]:
                found.append((name, start + 1, k - start + 1))
                i = k + 1
                continue
        i += 1
    return found


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    report = "--report" in argv
    problems = []
    longest = []
    for path in source_files(root):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            n = f.read().count("\n")
        if n > MAX_FILE_LINES:
            problems.append(f"{rel}: {n} lines (at most {MAX_FILE_LINES})")
        for name, line, length in functions(path):
            longest.append((length, f"{rel}:{line} {name}"))
            limit = MAX_MAIN_LINES if name == "main" else MAX_FUNCTION_LINES
            if length > limit:
                problems.append(f"{rel}:{line}: function {name} is {length} lines (at most {limit})")
    if report:
        for length, where in sorted(longest, reverse=True)[:25]:
            print(f"{length:5d}  {where}")
        print("\n".join(problems))
        return 0
    for p in problems:
        print(p)
    print(f"structure_check: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
