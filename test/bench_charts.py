#!/usr/bin/python3
"""The chart command on the recorded CSVs (ctest bench_charts; no mount, no cluster): every chart
of bench/charts.py's table is drawn, non-empty and a PNG, into a temporary folder; and a malformed
CSV stops it with an error that names the file and the line.

  test/bench_charts.py [REPO]"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
import charts  # noqa: E402

RESULTS = os.path.join(REPO, "bench", "results")
EXPECTED = ["phases.png", "scaling.png", "modeselect_confusion.png", "modeselect_speedups.png", "io500.png",
            "table1.png", "chunk_sweep.png", "qos_rates.png"]


def set_field(line, i, value):
    fields = line.split(",")
    fields[i] = value
    return ",".join(fields)


def run_charts(results, out):
    return subprocess.run([sys.executable, os.path.join(REPO, "bench", "charts.py"), "--results", results,
                           "--out", out], capture_output=True, text=True)


class ChartsTest(unittest.TestCase):
    def test_every_chart_from_the_recorded_csvs(self):
        self.assertEqual(sorted(png for png, *_ in charts.CHARTS), sorted(EXPECTED))
        with tempfile.TemporaryDirectory() as out:
            p = run_charts(RESULTS, out)
            self.assertEqual(p.returncode, 0, p.stderr)
            for png in EXPECTED:
                with self.subTest(png):
                    path = os.path.join(out, png)
                    self.assertTrue(os.path.exists(path), f"{png} not drawn")
                    self.assertGreater(os.path.getsize(path), 10000)
                    with open(path, "rb") as f:
                        self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_a_malformed_csv_names_its_file_and_line(self):
        # (case, CSV, how its text is spoiled, what the error must say)
        cases = [
            ("a value that is no number", "phases.csv",
             lambda lines: lines[:4] + [set_field(lines[4], -3, "fast")] + lines[5:],
             "phases.csv:5: column median is 'fast', not a number"),
            ("a row with a field too many", "matrix.csv", lambda lines: lines[:9] + [lines[9] + ",x"] + lines[10:],
             "matrix.csv:10: 16 fields, the header has 15"),
            ("a header without a needed column", "qos_rates.csv",
             lambda lines: [lines[0].replace("rate", "speed")] + lines[1:], "qos_rates.csv:1: header lacks column(s) rate"),
            ("an empty file", "modeselect_picks.csv", lambda lines: [], "modeselect_picks.csv:1: empty, no header"),
            ("a header and no rows", "phases.csv", lambda lines: lines[:1], "phases.csv: no rows"),
        ]
        for case, name, spoil, want in cases:
            with self.subTest(case), tempfile.TemporaryDirectory() as d:
                results = os.path.join(d, "results")
                shutil.copytree(RESULTS, results, ignore=shutil.ignore_patterns("*.md", "*.png", "*.json"))
                with open(os.path.join(results, name)) as f:
                    lines = f.read().splitlines()
                with open(os.path.join(results, name), "w") as f:
                    f.write("".join(line + "\n" for line in spoil(lines)))
                p = run_charts(results, os.path.join(d, "out"))
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                self.assertIn(f"charts: {os.path.join(results, want)}", p.stderr)
                self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    unittest.main()
