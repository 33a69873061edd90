"""Unit tests of bench/modeselect/modeselect_e2e.py's arithmetic (no cluster, no bb-modeselect)."""
import csv
import os
import tempfile
import unittest

from modeselect import modeselect_e2e as e2e


def entry(medians, label, higher=False, disqualified=None):
    return {"figure": {"higher_is_better": higher, "metric": "m"}, "medians": medians, "label": label, "ties": [],
            "disqualified": disqualified or {}}


def result(name, mode, correct=True):
    return {"name": name, "correct": correct, "decision": {"selected_mode": mode, "selected_by": "rules"}}


class E2ETest(unittest.TestCase):
    def test_speedups_over_mode3(self):
        # Times: mode 3 takes 4 s, mode 1 2 s (the label), mode 4 8 s.
        self.assertEqual(e2e.job_speedups(entry({"1": 2.0, "3": 4.0, "4": 8.0}, 1), 4), (0.5, 2.0, False))
        # Rates: mode 4 does 3x mode 3's IOPS.
        self.assertEqual(e2e.job_speedups(entry({"3": 10.0, "4": 30.0}, 4, higher=True), 3), (1.0, 3.0, False))
        # A disqualified mode breaks the job.
        s, b, broken = e2e.job_speedups(entry({"1": 1.0, "3": 4.0}, 3, disqualified={"1": "shared"}), 1)
        self.assertEqual((s, b, broken), (None, 1.0, True))

    def test_means_and_captured(self):
        labels = {"jobs": {"a": entry({"1": 1.0, "3": 4.0}, 1), "b": entry({"3": 2.0, "4": 1.0}, 4),
                           "c": entry({"1": 1.0, "3": 2.0}, 3, disqualified={"1": "shared"})}}
        s = e2e.summarize(labels, [result("a", 1), result("b", 3, correct=False), result("c", 1, correct=False)])
        # a: 4x of 4x; b: 1x of 2x; c broken, left out of the means.
        self.assertAlmostEqual(s["geomean_selected"], 2.0)
        self.assertAlmostEqual(s["geomean_oracle"], (4 * 2) ** 0.5)
        self.assertAlmostEqual(s["captured"], (2.0 - 1) / (8 ** 0.5 - 1))
        self.assertEqual(s["broken"], ["c"])
        self.assertEqual(s["jobs"], 3)

    def test_picks_replace_their_group_only(self):
        labels = {"jobs": {"a": entry({"1": 1.0, "3": 4.0}, 1), "b": entry({"3": 2.0, "4": 1.0}, 4)}}
        sets = {"static + profile": e2e.summarize(labels, [result("b", 4), result("a", 1)]),
                "static only": e2e.summarize(labels, [result("a", 3, correct=False), result("b", 3, correct=False)])}
        rows = e2e.pick_rows(sets, "corpus", "abc1234", "2026-12-08")
        self.assertEqual([(r["evidence"], r["job"], r["selected"], r["oracle"], r["right"]) for r in rows],
                         [("static + profile", "a", 1, 1, 1), ("static + profile", "b", 4, 4, 1),
                          ("static only", "a", 3, 1, 0), ("static only", "b", 3, 4, 0)])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "picks.csv")
            e2e.write_picks(path, "corpus", rows)
            e2e.write_picks(path, "heldout", e2e.pick_rows(sets, "heldout", "abc1234", "2026-12-08")[:1])
            e2e.write_picks(path, "corpus", rows[2:])  # a new eval of the corpus replaces its rows
            with open(path, newline="") as f:
                got = [(r["group"], r["evidence"], r["job"]) for r in csv.DictReader(f)]
        self.assertEqual(got, [("heldout", "static + profile", "a"), ("corpus", "static only", "a"),
                               ("corpus", "static only", "b")])


if __name__ == "__main__":
    unittest.main()
