"""Unit tests of harness/table.py: a run's record as CSV rows, and appending a recording's CSV."""
import csv
import os
import tempfile
import unittest

from harness import table


def run(run_id, figures, ok=True, sweep=None, error=None, started=1796127698.0):
    return {"id": run_id, "scenario": run_id.split(".")[0], "workload": run_id.split(".")[1], "mode": 3, "repeat": 0,
            "sweep": sweep, "ok": ok, "error": error, "started_unix": started, "figures": figures}


def fig(key, value, unit, higher=True):
    return {"key": key, "value": value, "unit": unit, "higher_is_better": higher}


class RowsTest(unittest.TestCase):
    def test_rows_of_run(self):
        # (case, record, [(figure, value, unit, higher, setting, value_of_setting, ok, error)] expected)
        cases = [
            ("two figures, one row each", run("io500.io500.m3.r0", [fig("score.total", 1.5, "score"),
                                                                    fig("wall_seconds", 9.0, "s", False)]),
             [("score.total", 1.5, "score", 1, "", "", 1, ""), ("wall_seconds", 9.0, "s", 0, "", "", 1, "")]),
            ("a failed run without figures keeps its first error line",
             run("t.w.m1.r0", [], ok=False, error="job exit status 255\nmore"),
             [("", "", "", "", "", "", 0, "job exit status 255")]),
            ("a sweep's setting and value", run("c.ior.m3.r0", [fig("write.write", 273.4, "MiB/s")],
                                               sweep={"setting": "chunk_size", "value": "128KiB"}),
             [("write.write", 273.4, "MiB/s", 1, "chunk_size", "128KiB", 1, "")]),
            ("a boolean setting is written as YAML writes it", run("p.fio.m3.r0", [fig("fio.iops", 5, "IOPS")],
                                                                 sweep={"setting": "profile", "value": False}),
             [("fio.iops", 5, "IOPS", 1, "profile", "false", 1, "")]),
            ("a metric recorded with its name as unit gets the unit its name ends in",
             run("t.HACC.m3.r0", [fig("restart_read_mib_s", 372.0, "restart_read_mib_s")]),
             [("restart_read_mib_s", 372.0, "MiB/s", 1, "", "", 1, "")]),
        ]
        for case, doc, want in cases:
            with self.subTest(case):
                rows = table.rows_of_run(doc, "abc1234")
                got = [(r["figure"], r["value"], r["unit"], r["higher_is_better"], r["setting"], r["value_of_setting"],
                        r["ok"], r["error"]) for r in rows]
                self.assertEqual(got, want)
                self.assertTrue(all(r["commit"] == "abc1234" and r["date"] == "2026-12-01 12:21" for r in rows))
                self.assertTrue(all(sorted(r) == sorted(table.COLUMNS) for r in rows))

    def test_append_adds_only_new_runs(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rec.csv")
            a = run("s.a.m3.r0", [fig("x", 1, "s")])
            b = run("s.b.m3.r0", [fig("x", 2, "s"), fig("y", 3, "s")])
            self.assertEqual(table.append(path, [a], "c1"), 1)
            self.assertEqual(table.append(path, [a, b], "c2"), 1)  # a is there already
            again = dict(a, started_unix=a["started_unix"] + 3600)  # the same run made again later
            self.assertEqual(table.append(path, [again], "c3"), 1)
            self.assertEqual(table.append(path, [a, b, again], "c4"), 0)
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([(r["run"], r["figure"], r["commit"]) for r in rows],
                             [("s.a.m3.r0", "x", "c1"), ("s.b.m3.r0", "x", "c2"), ("s.b.m3.r0", "y", "c2"),
                              ("s.a.m3.r0", "x", "c3")])
            with open(path) as f:
                self.assertEqual(sum(line.startswith("commit,") for line in f), 1)  # one header


if __name__ == "__main__":
    unittest.main()
