#!/usr/bin/env python3
"""doc.exit_codes: README.md's exit-code table, `warpvol --help` and the generated man page agree with the one
table in cli/exit_codes.cpp: the same codes in the same order, with the same names (README, man page) and meanings
(--help and the man page word for word; a README row starts with the table's meaning and may explain more).

Usage: test_exit_codes.py --table cli/exit_codes.cpp --readme README.md --warpvol BINARY --man warpvol.1
Exits 1 with one line per disagreement.
"""
import argparse
import re
import subprocess
import sys

ROW = re.compile(r'^\s*\{(\d+), "([a-z]+)", "((?:[^"\\]|\\.)*)"\},\s*$')


def table_rows(path):
    """(code, name, meaning) for each `{code, "name", "meaning"},` line of exit_code_table()."""
    text = open(path, encoding="utf-8").read()
    start = text.find("exit_code_table()")
    end = text.find("};", start)
    if start < 0 or end < 0:
        raise SystemExit(f"FAIL {path}: no exit_code_table() with a braced table")
    rows = []
    for line in text[start:end].splitlines():
        m = ROW.match(line)
        if m:
            rows.append((int(m.group(1)), m.group(2), m.group(3).encode().decode("unicode_escape")))
    return rows


def readme_rows(path):
    """(code, name, meaning) for each row of the table under '## Exit codes'."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## Exit codes\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        return None
    rows = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) >= 3 and cells[0].isdigit():
            rows.append((int(cells[0]), cells[1], "|".join(cells[2:])))
    return rows


def help_rows(binary):
    """(code, meaning) for each line of the 'Exit codes:' block of `warpvol --help`."""
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    rows, on = [], False
    for line in out.splitlines():
        if line == "Exit codes:":
            on = True
            continue
        if on and not line.strip():
            break
        if on:
            m = re.match(r"^  (\d+)  (.*)$", line)
            rows.append((int(m.group(1)), m.group(2)) if m else (None, line))
    return rows


def unroff(s):
    return s.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")


def man_rows(path):
    """(code, name, meaning) for each '.TP / .B code / name: meaning' entry of .SH EXIT STATUS."""
    lines = open(path, encoding="utf-8").read().splitlines()
    try:
        i = lines.index(".SH EXIT STATUS") + 1
    except ValueError:
        return None
    rows = []
    while i < len(lines) and not lines[i].startswith(".SH"):
        if lines[i] == ".TP" and i + 2 < len(lines) and lines[i + 1].startswith(".B "):
            code = lines[i + 1][3:].strip()
            name, _, meaning = unroff(lines[i + 2]).partition(": ")
            rows.append((int(code) if code.isdigit() else None, name, meaning))
            i += 3
        else:
            i += 1
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--readme", required=True)
    ap.add_argument("--warpvol", required=True)
    ap.add_argument("--man", required=True)
    a = ap.parse_args()
    failures = []
    table = table_rows(a.table)
    if len(table) < 2 or table[0][:2] != (0, "ok"):
        failures.append(f"{a.table}: expected the table to start with {{0, \"ok\", ...}}, read {table}")
    if len({c for c, _, _ in table}) != len(table) or len({n for _, n, _ in table}) != len(table):
        failures.append(f"{a.table}: a code or a name appears twice")

    def compare(what, got, want):
        if got is None:
            failures.append(f"{what}: no exit-code table found")
            return
        if len(got) != len(want):
            failures.append(f"{what}: {len(got)} rows, cli/exit_codes.cpp has {len(want)}")
        for g, w in zip(got, want):
            if g != w:
                failures.append(f"{what}: row {g!r} disagrees with cli/exit_codes.cpp's {w!r}")

    readme = readme_rows(a.readme)
    compare("README.md", None if readme is None else [r[:2] for r in readme], [t[:2] for t in table])
    for (code, name, meaning), (_, _, want) in zip(readme or [], table):
        if not meaning.startswith(want):
            failures.append(f"README.md: the meaning of {code} ({name}) does not start with the table's "
                            f"\"{want}\": \"{meaning}\"")
    compare("warpvol --help", help_rows(a.warpvol), [(c, m) for c, _, m in table])
    compare(a.man, man_rows(a.man), table)

    for f in failures:
        print("FAIL", f)
    if failures:
        return 1
    print(f"ok: README.md, warpvol --help and the man page list the {len(table)} exit codes of cli/exit_codes.cpp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
