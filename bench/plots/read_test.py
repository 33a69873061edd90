"""Unit tests of plots/read.py's choice of recording and of lib/summary_csv.py's rows."""
import os
import sys
import unittest

from plots import read

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import summary_csv  # noqa: E402


def r(date, commit, variant):
    return {"date": date, "commit": commit, "variant": variant}


class NewestTest(unittest.TestCase):
    def test_newest_recording(self):
        rows = [r("2026-12-02", "a", "passthrough_ll"), r("2026-12-02", "a", "mode 1"),
                r("2026-12-04", "c", "passthrough_ll"), r("2026-12-03", "b", "mode 1"), r("2026-12-03", "b", "mode 2")]
        has_mode1 = lambda group: any(x["variant"] == "mode 1" for x in group)  # noqa: E731
        # (case, rows, keep, the recording chosen)
        cases = [("the newest by date, not by place", rows, lambda g: True, "c"),
                 ("the newest that KEEP accepts", rows, has_mode1, "b"),
                 ("none accepted", rows, lambda g: False, None), ("no rows", [], lambda g: True, None)]
        for case, rs, keep, want in cases:
            with self.subTest(case):
                got = read.newest(rs, keep)
                self.assertEqual(got[0]["commit"] if got else None, want)
                self.assertTrue(all(x["commit"] == want for x in got))


class SummaryRowTest(unittest.TestCase):
    def test_row(self):
        row = summary_csv.row("c1", "2026-12-08", "phases", 4, "mode 3", "ior-easy write", "MiB/s", [3.0, None, 1.0, 2.0])
        self.assertEqual((row["median"], row["low"], row["high"]), ("2", "1", "3"))
        self.assertEqual(sorted(row), sorted(summary_csv.COLUMNS))
        self.assertIsNone(summary_csv.row("c1", "d", "phases", 4, "mode 3", "p", "u", [None]))


if __name__ == "__main__":
    unittest.main()
