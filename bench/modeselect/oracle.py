#!/usr/bin/python3
"""The oracle: the measured best layout mode of each job folder, the labels the mode selector
is evaluated against (docs/architecture.md#how-the-selector-is-judged).

  bench/modeselect/oracle.py JOB_DIR... --out LABELS.json [--repeats 3] [--timeout S] [--modes 1,2,3,4]

For each folder (job.sh plus its sources; `make` runs once first when it has a Makefile or
src/Makefile): one probe run in mode 3 with --profile, kept as <job>.profile.json beside the
labels; then every mode --repeats times, each in a fresh workspace with a time limit, the modes'
order rotating from repeat to repeat. A mode is disqualified when a run fails or times out, or
when the probe profile shows the job sharing a file or directory across nodes (mode 1). The
label is the mode with the lowest median wall time, or with the best reported figure for a job
that prints `BB_RESULT metric=NAME value=NUMBER higher_is_better=1`; modes whose [min, max]
overlaps the label's are ties. Writes LABELS.json and LABELS.md; runs already made (in
LABELS.runs/) are not made again."""
import argparse
import datetime
import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: the harness package
from harness import cluster, labels, report, runner, scenario  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("jobs", nargs="+", help="job folders (each with job.sh)")
    p.add_argument("--out", required=True, help="the labels file (JSON); the summary goes beside it as .md")
    p.add_argument("--repeats", type=int, default=3, help="runs of each mode, at least 3 (default 3)")
    p.add_argument("--timeout", type=int, default=600, help="time limit of each run, s (default 600)")
    p.add_argument("--modes", default="1,2,3,4", help="modes to try (default 1,2,3,4)")
    p.add_argument("--chunk-size", default="512KiB", help="chunk size of every mode file (default 512KiB)")
    p.add_argument("--metadata-server-ratio", type=float, default=0.25, help="mode 2's ratio (default 0.25)")
    p.add_argument("--nodes", type=int, default=4, help="nodes of the emulated cluster it builds (default 4)")
    p.add_argument("--link-rate", default="1gbit", help="link rate of the cluster it builds (default 1gbit)")
    p.add_argument("--attach", action="store_true", help="use the emulated cluster that is up (never torn down)")
    p.add_argument("--bbctl", default=os.path.join(REPO, "build", "bin", "bbctl"))
    a = p.parse_args(argv)
    a.bbctl = os.path.abspath(a.bbctl)
    a.out = os.path.abspath(a.out)
    try:
        a.modes = [int(m) for m in a.modes.split(",")]
        if not a.modes or any(m not in (1, 2, 3, 4) for m in a.modes) or len(set(a.modes)) != len(a.modes):
            raise ValueError
    except ValueError:
        p.error(f"--modes {a.modes!r}: a comma-separated list of distinct modes 1..4")
    if a.repeats < 3:
        p.error(f"--repeats {a.repeats}: a label needs every mode at least 3 times")
    if a.timeout < 1:
        p.error(f"--timeout {a.timeout}: every run needs a time limit of at least 1 s")
    try:
        scenario._Checker("--chunk-size").chunk("chunk_size", a.chunk_size)
    except scenario.ScenarioError as e:
        p.error(str(e))
    for j in a.jobs:
        if not os.path.isfile(os.path.join(j, "job.sh")):
            p.error(f"{j}: no job.sh in this folder")
    return a


def job_key(folder):
    return os.path.basename(os.path.normpath(folder))


def make_sources(folder, log):
    for d in (folder, os.path.join(folder, "src")):
        if os.path.isfile(os.path.join(d, "Makefile")):
            log(f"oracle: make -C {d}")
            p = subprocess.run(["make", "-C", d], capture_output=True, text=True)
            if p.returncode != 0:
                return f"make -C {d} failed: {p.stderr.strip()[-300:]}"
            return ""
    return ""


def one_run(target, a, folder, mode, tag, runs_dir, profile_path=None):
    """Runs job.sh of `folder` once in `mode`; returns the run's record (also written to runs_dir)."""
    key = job_key(folder)
    run_id = f"{key}.m{mode}.{tag}"
    path = os.path.join(runs_dir, run_id + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f), False
    raw = os.path.join(runs_dir, "raw", run_id)
    os.makedirs(raw, exist_ok=True)
    mode_file = os.path.join(raw, "mode.yaml")
    with open(mode_file, "w") as f:
        f.write(scenario.mode_file_text({"mode": mode, "chunk_size": a.chunk_size,
                                         "metadata_server_ratio": a.metadata_server_ratio, "id": run_id}))
    name = "oracle-" + hashlib.sha1(run_id.encode()).hexdigest()[:10]
    # The job runs from its folder (SLURM_SUBMIT_DIR), where its sources are; its geometry is its own.
    outcome = target.run_in(name, mode_file, a.timeout, profile_path, os.path.join(os.path.abspath(folder), "job.sh"),
                            raw, os.path.abspath(folder))
    stdout = open(os.path.join(raw, "stdout.txt"), errors="replace").read() if os.path.exists(os.path.join(raw, "stdout.txt")) else ""
    rec = {"job": key, "mode": mode, "tag": tag, "exit_status": outcome["exit_status"], "timed_out": outcome["timed_out"],
           "wall_seconds": outcome["wall_seconds"], "error": outcome.get("error", ""), "result": None}
    try:
        rec["result"] = labels.parse_bb_result(stdout)
    except ValueError as e:
        rec["error"] = str(e)
    runner.write_json_atomic(path, rec)
    return rec, True


class OracleTarget(cluster.EmulatedCluster):
    def run_in(self, name, mode_file, timeout, profile_path, script, raw, cwd):
        cmd = [self.bbctl, "job", "run", "--name", name, "--mode-file", mode_file, "--timeout", str(timeout), "--json"]
        if profile_path:
            cmd += ["--profile", profile_path]
        cmd += ["--", script]
        out, err = os.path.join(raw, "stdout.txt"), os.path.join(raw, "stderr.txt")
        rc, seconds, killed = cluster._run_limited(cmd, timeout + cluster.GRACE_S, out, err, cwd=cwd)
        o = cluster._last_json_line(out) or {}
        res = {"exit_status": o.get("exit_status", rc), "timed_out": o.get("timed_out", killed),
               "wall_seconds": o.get("wall_seconds", seconds)}
        if killed or not o:
            res["error"] = f"bbctl job run: {cluster._tail(err)}"
            subprocess.run([self.bbctl, "job", "stop", "--name", name], capture_output=True)
        return res


def label_one(target, a, folder, out_dir, runs_dir, progress, log):
    key = job_key(folder)
    entry = {"folder": os.path.relpath(folder), "profile": f"{key}.profile.json"}
    err = make_sources(folder, log)
    if err:
        entry.update(label=None, error=err)
        return entry
    profile_path = os.path.join(out_dir, f"{key}.profile.json")
    probe, made = one_run(target, a, folder, 3, "probe", runs_dir, profile_path)
    if made:
        progress.step(f"{key} probe (mode 3, --profile)", "ok" if probe["exit_status"] == 0 else f"exit {probe['exit_status']}")
    pre = {}
    if os.path.exists(profile_path):
        with open(profile_path) as f:
            prof = json.load(f)
        pre = labels.profile_disqualifies(prof)
        entry["cross_node"] = labels.cross_node_sharing(prof)[:5]
    else:
        entry["probe_error"] = probe.get("error") or f"the probe run wrote no profile (exit {probe['exit_status']})"
    runs = []
    for r, mode in labels.run_order(a.modes, a.repeats):
        rec, made = one_run(target, a, folder, mode, f"r{r}", runs_dir)
        runs.append(rec)
        if made:
            progress.step(f"{key} mode {mode} repeat {r}",
                          f"{rec['wall_seconds']:.1f} s" + (f", exit {rec['exit_status']}" if rec["exit_status"] else ""))
    out = labels.label_job(runs, a.modes, pre)
    entry.update(out)
    entry["runs"] = [{k: r[k] for k in ("mode", "tag", "wall_seconds", "exit_status", "timed_out", "error")}
                     | {"figure": r["result"]["value"] if r["result"] else r["wall_seconds"]}
                     for r in runs]
    return entry


def build_commit():
    """The commit the file system was built from (the repository's HEAD, "+changes" when its
    tracked files differ): labels go stale when the file system changes."""
    def git(*args):
        return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def summary_md(doc):
    lines = ["# Oracle labels", "", f"Command: `{doc['command']}` ({doc['generated']}), measured on a build of "
             f"{doc.get('commit', 'an unrecorded commit')}.", "", f"Machine: {doc['machine']}.",
             "", "| job | label | ties | disqualified | figure | " + " | ".join(f"mode {m}" for m in doc["modes"]) + " |",
             "|---|---|---|---|---|" + "---|" * len(doc["modes"])]
    for key, e in doc["jobs"].items():
        if e.get("label") is None and "figures" not in e:
            lines.append(f"| {key} | — | — | {e.get('error', '')} | — |" + " — |" * len(doc["modes"]))
            continue
        disq = "; ".join(f"{m}: {why}" for m, why in e["disqualified"].items()) or "—"
        cells = []
        for m in doc["modes"]:
            v = e["figures"].get(m) or e["figures"].get(str(m)) or []
            cells.append(report.cell(v, None) if v else "—")
        lines.append(f"| {key} | {e['label'] if e['label'] is not None else '—'} | {', '.join(map(str, e['ties'])) or '—'} | "
                     f"{disq.replace('|', '/')} | {e['figure']['metric']} ({'higher' if e['figure']['higher_is_better'] else 'lower'} "
                     f"is better) | " + " | ".join(cells) + " |")
    lines += ["", "Each cell: median [min–max] over the repeats, disqualified modes included (their figures are not "
              "candidates). Ties: modes whose [min, max] overlaps the label's; all are accepted answers."]
    return "\n".join(lines) + "\n"


def main(argv):
    a = parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    out_dir = os.path.dirname(os.path.abspath(a.out))
    runs_dir = os.path.splitext(os.path.abspath(a.out))[0] + ".runs"
    os.makedirs(runs_dir, exist_ok=True)
    if not os.access(a.bbctl, os.X_OK):
        log(f"oracle: {a.bbctl} is missing: build first (tools/build.sh)")
        return 2
    work = tempfile.mkdtemp(prefix="bb-oracle-")
    target = OracleTarget(a.bbctl, a.nodes, a.link_rate, work, own=not a.attach, log=log)
    total = len(a.jobs) * (1 + len(a.modes) * a.repeats)
    done = sum(1 for f in os.listdir(runs_dir) if f.endswith(".json") and f.split(".")[0] in {job_key(j) for j in a.jobs})
    progress = runner.Progress(total, min(done, total))
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    doc = {"version": 1, "command": " ".join(shlex.quote(x) for x in ["bench/modeselect/oracle.py"] + argv),
           "generated": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "commit": build_commit(),
           "machine": report.machine(),
           "modes": a.modes, "repeats": a.repeats, "timeout": a.timeout, "chunk_size": a.chunk_size, "jobs": {}}
    try:
        if done < total:
            target.start()
        for folder in a.jobs:
            doc["jobs"][job_key(folder)] = label_one(target, a, folder, out_dir, runs_dir, progress, log)
    except KeyboardInterrupt:
        log("oracle: interrupted; the runs made so far are kept and will not be made again")
        return 130
    except cluster.ClusterError as e:
        log(f"oracle: {e}")
        return 1
    finally:
        target.stop()
        cluster.remove_workdir(work)
    runner.write_json_atomic(a.out, doc)
    md = os.path.splitext(a.out)[0] + ".md"
    with open(md, "w") as f:
        f.write(summary_md(doc))
    log(f"oracle: labels {a.out}, summary {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
