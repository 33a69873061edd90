"""Unit tests of the harness's and the oracle's pure logic (no cluster):
  /usr/bin/python3 -m unittest discover -s bench -p '*_test.py'   (from the repository root)"""
import math
import os
import tempfile
import unittest

import json

from harness import cluster, jobs, labels, report, results, runner, scenario, stats


class StatsTest(unittest.TestCase):
    def test_median_and_spread(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 2, 3]), 2.5)
        self.assertEqual(stats.spread([5, 1, 3]), {"median": 3, "min": 1, "max": 5, "n": 3})
        with self.assertRaises(ValueError):
            stats.median([])

    def test_ties_are_overlapping_ranges(self):
        # Lower is better: mode 1 best (median 10); mode 2's [11, 13] overlaps [9, 11]; mode 3 does not.
        best, ties = stats.best_and_ties({1: [9, 10, 11], 2: [11, 12, 13], 3: [11.5, 14, 15]}, False)
        self.assertEqual((best, ties), (1, [2]))
        # Higher is better: the same figures make mode 3 the best, mode 2 its tie.
        best, ties = stats.best_and_ties({1: [9, 10, 11], 2: [11, 12, 13], 3: [11.5, 14, 15]}, True)
        self.assertEqual((best, ties), (3, [2]))
        # Touching ranges tie; equal medians (modes 3 and 4: 1.5) go to the smaller key.
        self.assertEqual(stats.best_and_ties({4: [1, 2], 2: [2, 3], 3: [1.5, 1.5, 2.5]}, False), (3, [2, 4]))
        self.assertEqual(stats.best_and_ties({}, True), (None, []))

    def test_speedup(self):
        self.assertAlmostEqual(stats.speedup(300, 100, True), 3.0)
        self.assertAlmostEqual(stats.speedup(2.0, 6.0, False), 3.0)
        self.assertIsNone(stats.speedup(300, None, True))

    def test_io500_scores(self):
        bw = {"ior-easy-write": 2.0, "ior-easy-read": 8.0, "ior-hard-write": 0.5, "ior-hard-read": 2.0}
        md = {p: 4.0 for p in stats.IO500_MD_PHASES}
        md["find"] = 64.0
        s = stats.io500_scores(dict(bw, **md))
        self.assertAlmostEqual(s["bw_gib_s"], 2.0)  # (2 * 8 * 0.5 * 2) ** (1/4) = 16 ** 0.25
        self.assertAlmostEqual(s["md_kiops"], math.exp((7 * math.log(4) + math.log(64)) / 8))
        self.assertAlmostEqual(s["total"], math.sqrt(s["bw_gib_s"] * s["md_kiops"]))
        self.assertEqual(s["missing"], [])
        # A phase that failed scores 0, and so does everything it enters.
        bad = stats.io500_scores(dict(bw, **{p: 4.0 for p in stats.IO500_MD_PHASES if p != "find"}))
        self.assertEqual((bad["md_kiops"], bad["total"], bad["missing"]), (0.0, 0.0, ["find"]))
        self.assertGreater(bad["bw_gib_s"], 0)

    def test_best_setting_and_paired_ratios(self):
        r = stats.best_setting({"64KiB": [100, 110], "1MiB": [200, 220, 210], "4MiB": [190, 205]}, True)
        self.assertEqual((r["best"], r["ties"], r["spread"]["median"]), ("1MiB", ["4MiB"], 210))
        self.assertEqual(stats.paired_ratios([(2, 3), (0, 1), (4, 4)]), [1.5, 1.0])


def profile(files=(), dirs=()):
    return {"version": 1, "files": list(files), "dirs": [{"path": "/", "created_on": None, "entry_nodes": [0, 1],
                                                          "lookup_nodes": [0, 1, 2], "readdir_nodes": [3]}] + list(dirs)}


def file_entry(path, created_on, writers=(), readers=(), opened=(), stats_=()):
    return {"path": path, "created_on": created_on, "writer_nodes": list(writers), "reader_nodes": list(readers),
            "opened_on": list(opened), "stat_nodes": list(stats_)}


class LabelsTest(unittest.TestCase):
    def test_a_file_read_on_another_node_disqualifies_mode_1(self):
        p = profile([file_entry("/ckpt", 0, writers=[0], readers=[1], opened=[0, 1])])
        self.assertEqual([x["path"] for x in labels.cross_node_sharing(p)], ["/ckpt"])
        self.assertIn("/ckpt", labels.profile_disqualifies(p)[1])

    def test_node_private_work_disqualifies_nothing(self):
        p = profile([file_entry(f"/d{n}/f", n, writers=[n], readers=[n], opened=[n], stats_=[n]) for n in range(4)],
                    [{"path": f"/d{n}", "created_on": n, "entry_nodes": [n], "lookup_nodes": [n], "readdir_nodes": []}
                     for n in range(4)])
        self.assertEqual(labels.cross_node_sharing(p), [])
        self.assertEqual(labels.profile_disqualifies(p), {})

    def test_directories_and_stats_cross_nodes_too(self):
        d = {"path": "/shared", "created_on": 0, "entry_nodes": [0, 2], "lookup_nodes": [0, 2], "readdir_nodes": [0]}
        self.assertEqual(labels.cross_node_sharing(profile(dirs=[d]))[0]["kind"], "dir")
        self.assertEqual(labels.cross_node_sharing(profile(dirs=[d]))[0]["used_on"], [0])
        # made once (mkdir -p on every node: the others found it) and filled with each node's own
        # files, never listed across: mode 1 gives the job the same
        d = {"path": "/ckpt", "created_on": 3, "entry_nodes": [0, 1, 2, 3], "lookup_nodes": [0, 1, 2, 3],
             "readdir_nodes": []}
        self.assertEqual(labels.cross_node_sharing(profile(dirs=[d])), [])
        # a node listing only its own entries is node-private too
        d = {"path": "/own", "created_on": 1, "entry_nodes": [1], "lookup_nodes": [1], "readdir_nodes": [1]}
        self.assertEqual(labels.cross_node_sharing(profile(dirs=[d])), [])
        f = file_entry("/x", 2, writers=[2], opened=[2], stats_=[3])
        self.assertEqual(labels.cross_node_sharing(profile([f]))[0]["used_on"], [2, 3])
        # Two writers of one file (N-1) are two nodes sharing it.
        self.assertTrue(labels.cross_node_sharing(profile([file_entry("/n1", 0, writers=[0, 1], opened=[0, 1])])))

    def test_run_order_rotates(self):
        order = labels.run_order([1, 2, 3, 4], 3)
        firsts = [order[i][1] for i in (0, 4, 8)]
        self.assertEqual(firsts, [1, 2, 3])
        self.assertEqual(sorted(order), sorted((r, m) for r in range(3) for m in (1, 2, 3, 4)))

    def test_bb_result(self):
        out = "hello\nBB_RESULT metric=iops value=12.5 higher_is_better=1\nBB_RESULT metric=iops value=20 higher_is_better=1\n"
        self.assertEqual(labels.parse_bb_result(out), {"metric": "iops", "value": 20.0, "higher_is_better": True})
        self.assertFalse(labels.parse_bb_result("BB_RESULT metric=t value=3 higher_is_better=0")["higher_is_better"])
        self.assertIsNone(labels.parse_bb_result("nothing"))
        with self.assertRaises(ValueError):
            labels.parse_bb_result("BB_RESULT metric=t value=fast higher_is_better=1")

    def mkrun(self, mode, wall, status=0, timed_out=False, value=None):
        res = {"metric": "mib_s", "value": value, "higher_is_better": True} if value is not None else None
        return {"mode": mode, "wall_seconds": wall, "exit_status": status, "timed_out": timed_out, "result": res}

    def test_label_by_wall_time_with_a_tie_and_disqualifications(self):
        runs = [self.mkrun(1, 2.0), self.mkrun(1, 2.1), self.mkrun(1, 1.9),      # fastest, but the profile rules it out
                self.mkrun(2, 5.0), self.mkrun(2, 5.5), self.mkrun(2, 6.0),
                self.mkrun(3, 4.0), self.mkrun(3, 4.2), self.mkrun(3, 5.1),      # best median; [4.0, 5.1] overlaps mode 2's
                self.mkrun(4, 3.0), self.mkrun(4, 3.0, 1), self.mkrun(4, 9.0, 124, True)]
        out = labels.label_job(runs, [1, 2, 3, 4], {1: "breaks the job's semantics"})
        self.assertEqual(out["label"], 3)
        self.assertEqual(out["ties"], [2])
        self.assertEqual(sorted(out["disqualified"]), [1, 4])
        self.assertIn("exit status 1", out["disqualified"][4])
        self.assertEqual(out["figure"], {"metric": "wall_seconds", "higher_is_better": False})

    def test_label_by_reported_figure(self):
        runs = [self.mkrun(m, 10.0, value=v) for m, vs in ((2, (100, 110, 105)), (3, (300, 290, 310)), (4, (200, 210, 205)))
                for v in vs]
        out = labels.label_job(runs, [2, 3, 4])
        self.assertEqual((out["label"], out["ties"], out["figure"]["metric"]), (3, [], "mib_s"))
        self.assertEqual(out["medians"][3], 300)

    def test_a_timeout_counts_as_a_failure(self):
        self.assertIn("timed out", labels.run_failure({"timed_out": True, "exit_status": 124, "wall_seconds": 30}))
        self.assertEqual(labels.run_failure({"timed_out": False, "exit_status": 0}), "")


class ScenarioTest(unittest.TestCase):
    def write(self, text):
        fd, path = tempfile.mkstemp(suffix=".yaml")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.addCleanup(os.unlink, path)
        return path

    GOOD = """
name: tiny
modes: [1, 3]
repeats: 2
timeout: 30
vars: {size: 8MiB}
workloads:
  - {name: w, tool: fio, args: "--rw=write --bs=1m --size={size}"}
  - name: r
    tool: fio
    file: shared
    phases:
      - {name: write, args: "--rw=write --bs=1m --size={size} --offset={offset:8MiB}"}
"""

    def test_expansion_rotates_modes_and_names_runs(self):
        s = scenario.load(self.write(self.GOOD))
        runs = scenario.expand(s)
        self.assertEqual(len(runs), 2 * 2 * 2)
        self.assertEqual(len({r["id"] for r in runs}), len(runs))
        first_modes = [[r["mode"] for r in runs if r["repeat"] == k and r["workload"] == "w"] for k in (0, 1)]
        self.assertEqual(first_modes, [[1, 3], [3, 1]])
        self.assertEqual(runs[0]["chunk_size"], "512KiB")
        self.assertEqual(runs[0]["timeout"], 30)

    def test_sweep_expansion(self):
        s = scenario.load(self.write(self.GOOD + "sweep: {setting: chunk_size, values: [64KiB, 4m]}\n"))
        runs = scenario.expand(s)
        self.assertEqual(len(runs), 2 * 2 * 2 * 2)
        self.assertEqual(sorted({r["chunk_size"] for r in runs}), ["4MiB", "64KiB"])
        self.assertIn("chunk_size=64KiB", runs[0]["id"])

    def test_mode_files(self):
        run = {"mode": 2, "chunk_size": "1MiB", "metadata_server_ratio": 0.5, "id": "x"}
        self.assertIn("metadata_server_ratio: 0.5", scenario.mode_file_text(run))
        self.assertNotIn("metadata_server_ratio", scenario.mode_file_text(dict(run, mode=3)))

    def assertBad(self, text, *parts):
        path = self.write(text)
        with self.assertRaises(scenario.ScenarioError) as e:
            scenario.load(path)
        for p in (path,) + parts:
            self.assertIn(p, str(e.exception))

    def test_bad_files_name_the_file_field_and_value(self):
        self.assertBad(self.GOOD.replace("timeout: 30", "timeout: -3"), "timeout", "-3")
        self.assertBad(self.GOOD.replace("modes: [1, 3]", "modes: [1, 5]"), "modes", "[1, 5]")
        self.assertBad(self.GOOD + "chunk_size: 3000\n", "chunk_size", "3000", "power of two")
        self.assertBad(self.GOOD.replace("tool: fio, args", "tool: dd, args"), "workloads[w].tool", "dd")
        self.assertBad(self.GOOD.replace("{size}\"}", "{sise}\"}"), "workloads[w].phases[fio].args", "{sise}")
        self.assertBad(self.GOOD + "colour: red\n", "colour", "unknown field")
        self.assertBad(self.GOOD + "sweep: {setting: link_rate, values: [1, 2]}\n", "sweep.setting", "link_rate")
        self.assertBad("name: [unclosed\n", "not valid YAML")
        self.assertEqual(scenario.parse_size("47008"), 47008)
        self.assertEqual(scenario.parse_size("4MiB"), 4 << 20)


class ResultsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(self.dir))

    def put(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))

    def test_fio_aggregates_tasks_and_times_writes_to_the_close(self):
        def doc(write_bytes, runtime_ms, report_ms):
            side = {"io_bytes": 0, "total_ios": 0, "runtime": 0}
            return {"timestamp_ms": report_ms, "jobs": [{"read": side, "write": {"io_bytes": write_bytes,
                                                                             "total_ios": write_bytes >> 20, "runtime": runtime_ms}}]}
        self.put("w.0.json", doc(64 << 20, 500, 10_000))
        self.put("w.1.json", doc(64 << 20, 400, 10_000))
        figs, d = results.fio_phase(self.dir, "w", False)
        self.assertEqual((figs[0]["key"], figs[0]["value"]), ("w.write", 128 / 0.5))  # all bytes / the longest task
        # Task 1's first write completed at 8,000 ms after 100 ms: 2.1 s to its report after the close.
        self.put("w.1_lat.1.log", "8000, 100000000, 1, 1048576, 0\n")
        figs, _ = results.fio_phase(self.dir, "w", False)
        self.assertAlmostEqual(figs[0]["value"], 128 / 2.1)
        with self.assertRaises(results.ResultError):
            results.fio_phase(self.dir, "missing", False)

    def test_ior_and_mdtest(self):
        self.put("i.json", {"summary": [{"operation": "write", "bwMeanMIB": 300.0}, {"operation": "read", "bwMeanMIB": 512.0}]})
        figs, _ = results.ior_phase(self.dir, "i", "GiB/s")
        self.assertEqual([(f["key"], f["value"]) for f in figs], [("i.write", 300 / 1024), ("i.read", 0.5)])
        self.put("m.csv", "rank,items,rate-File creation,time-File creation,rate-File stat\nall,20,2500.5,0.1,\n0,,1,1,1\n")
        self.assertEqual(results.mdtest_rates(self.dir, "m"), {"create": 2500.5})
        self.put("m.txt", "ERROR: verify failed on rank 3\n")
        with self.assertRaises(results.ResultError):
            results.mdtest_rates(self.dir, "m")

    def test_a_generated_script_places_files_and_outputs(self):
        s = scenario.check({"name": "t", "vars": {"size": "8m"}, "workloads": [
            {"name": "w", "tool": "ior", "args": "-C -F -w -r -b {size}"}]}, "t.yaml")
        run = scenario.expand(s)[0]
        text = jobs.job_script(dict(run, tasks_per_node=2), s["workloads"][0], s["vars"], "/tmp/o")
        self.assertIn('srun ior -C -F -w -r -b 8m -O numTasksOnNode0=2 -o "$BB_MOUNT/ior.file" -O summaryFormat=JSON', text)
        self.assertIn("#SBATCH --ntasks-per-node=2", text)
        self.assertEqual(jobs.substitute("--offset={offset:1MiB}", {}), "--offset=$(( SLURM_PROCID * 1048576 ))")


def load(path):
    with open(path) as f:
        return json.load(f)


class ExternalTargetTest(unittest.TestCase):
    """The runner, resume and report end to end without a cluster: a script workload through the
    --launcher target with `bash` as the launcher and a stub bbctl."""

    def test_runs_resume_timeouts_and_report(self):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(d))
        stub = os.path.join(d, "bbctl")
        with open(stub, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(stub, 0o755)
        os.makedirs(os.path.join(d, "mnt"))
        with open(os.path.join(d, "job.sh"), "w") as f:
            f.write('mkdir -p "$BB_MOUNT"; echo x > "$BB_MOUNT/f"\n'
                    'echo "BB_RESULT metric=rate_mib_s value=$(( ${#BB_WORKSPACE} % 7 + 1 )) higher_is_better=1"\n')
        with open(os.path.join(d, "hang.sh"), "w") as f:
            f.write("exec sleep 30\n")
        path = os.path.join(d, "ext.yaml")
        with open(path, "w") as f:
            f.write("name: ext\nmodes: [1, 3]\nrepeats: 2\ntimeout: 1\nworkloads:\n"
                    "  - {name: ok, tool: script, script: job.sh}\n  - {name: hang, tool: script, script: hang.sh}\n")
        s = scenario.load(path)
        target = cluster.ExternalCluster(stub, "bash", os.path.join(d, "mnt"))
        out = os.path.join(d, "out")
        first = runner.run_all([s], target, out, dict(os.environ), lambda m: None)
        self.assertEqual((first["made"], first["resumed"], len(first["failed"])), (8, 0, 4))
        doc = load(os.path.join(out, "runs", "ext.ok.m3.r1.json"))
        rate = [f for f in doc["figures"] if f["key"] == "rate_mib_s"][0]
        self.assertEqual((doc["ok"], rate["unit"], rate["higher_is_better"]), (True, "MiB/s", True))
        hang = load(os.path.join(out, "runs", "ext.hang.m1.r0.json"))
        self.assertEqual((hang["ok"], hang["timed_out"], hang["exit_status"]), (False, True, 124))
        second = runner.run_all([s], target, out, dict(os.environ), lambda m: None)
        self.assertEqual((second["made"], second["resumed"]), (0, 8))
        with open(report.write(out, [s], [])) as f:
            md = f.read()
        self.assertIn("| ok | rate_mib_s | MiB/s |", md)
        self.assertIn("hang, mode 1: timed out, 2 of the repeats", md)
        self.assertTrue(os.path.exists(os.path.join(out, "ext.png")))


if __name__ == "__main__":
    unittest.main()
