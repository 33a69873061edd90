"""Reading a recorded CSV for a chart, with errors that name the file and line: a missing column,
a row with more or fewer fields than the header, an empty file, or a value that is no number
where a number is needed."""
import csv
import json


class CsvError(ValueError):
    pass


def rows(path, columns, numeric=()):
    """The rows of PATH as dicts; COLUMNS must be in its header, NUMERIC columns must hold numbers
    (or be empty) and are returned as floats (None when empty)."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise CsvError(f"{path}: {e.strerror}")
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            raise CsvError(f"{path}:1: empty, no header")
        missing = [c for c in columns if c not in header]
        if missing:
            raise CsvError(f"{path}:1: header lacks column(s) {', '.join(missing)}")
        out = []
        for fields in reader:
            if not fields:
                continue
            if len(fields) != len(header):
                raise CsvError(f"{path}:{reader.line_num}: {len(fields)} fields, the header has {len(header)}")
            row = dict(zip(header, fields))
            for c in numeric:
                try:
                    row[c] = float(row[c]) if row[c] != "" else None
                except ValueError:
                    raise CsvError(f"{path}:{reader.line_num}: column {c} is {row[c]!r}, not a number")
            out.append(row)
        if not out:
            raise CsvError(f"{path}: no rows")
        return out


def labels(path):
    """The oracle's labels (bench/modeselect/oracle.py's output)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise CsvError(f"{path}: unreadable ({e})")
    if not isinstance(doc.get("jobs"), dict):
        raise CsvError(f"{path}: no jobs")
    return doc


def newest(rows, keep=lambda group: True):
    """The rows of the newest recording (by date, then by place in the file) whose rows KEEP accepts."""
    groups = {}
    for r in rows:
        groups.setdefault((r["date"], r["commit"]), []).append(r)
    ok = [k for k in groups if keep(groups[k])]
    if not ok:
        return []
    return groups[max(ok, key=lambda k: k[0])]
