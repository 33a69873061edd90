"""Runs the runs of a set of scenarios on a cluster target: one `bbctl job run` per run, a mode
file and a batch script generated for each, the result written as <out>/runs/<id>.json. A run
whose JSON exists is not made again (a run cut short by Ctrl-C or a crash writes none). Runs of
a tool that is not on PATH are skipped, and the summary says which and why."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

from . import jobs, labels, results, scenario


def fmt_seconds(s):
    s = int(round(s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    """done/total, elapsed and the time left (the mean time of the runs made so far times the
    runs still to make), one line per run on stderr."""

    def __init__(self, total, already, stream=sys.stderr):
        self.total, self.done, self.made, self.stream = total, already, 0, stream
        self.t0 = time.monotonic()

    def step(self, run_id, status):
        self.done += 1
        self.made += 1
        elapsed = time.monotonic() - self.t0
        left = elapsed / self.made * (self.total - self.done)
        print(f"[{self.done}/{self.total}] {run_id}: {status} | elapsed {fmt_seconds(elapsed)}, "
              f"~{fmt_seconds(left)} left", file=self.stream, flush=True)


def write_json_atomic(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def missing_tools(workload):
    return [t for t in jobs.tools_needed(workload) if shutil.which(t) is None]


def build_script_sources(workload, scenario_path, log):
    """For a script workload: the script's absolute path; `make` runs once in its folder (or its
    src/) when there is a Makefile, before any run and outside any timing."""
    script = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(scenario_path)), workload["script"]))
    if not os.path.isfile(script):
        raise scenario.ScenarioError(f"{scenario_path}: workloads[{workload['name']}].script: {workload['script']!r}: no such file")
    folder = os.path.dirname(script)
    for d in (folder, os.path.join(folder, "src")):
        if os.path.isfile(os.path.join(d, "Makefile")):
            log(f"harness: make -C {d}")
            p = subprocess.run(["make", "-C", d], capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"make -C {d} failed: {p.stderr.strip()[-400:]}")
            break
    return script


def plan(scenarios):
    """[(scenario, workload, run)] of every run of every scenario, in the order they are made."""
    out = []
    for s in scenarios:
        by_name = {w["name"]: w for w in s["workloads"]}
        out += [(s, by_name[r["workload"]], r) for r in scenario.expand(s)]
    return out


def job_name(run_id):
    return "bench-" + hashlib.sha1(run_id.encode()).hexdigest()[:10]


def make_run(cluster, s, w, run, out_dir, env, scripts):
    raw = os.path.join(out_dir, "raw", run["id"])
    shutil.rmtree(raw, ignore_errors=True)
    os.makedirs(raw)
    mode_file = os.path.join(raw, "mode.yaml")
    with open(mode_file, "w") as f:
        f.write(scenario.mode_file_text(run))
    if w["tool"] == "script":
        script = scripts[(s["path"], w["name"])]
        args = jobs.substitute(w["args"], s["vars"]).split() if w["args"] else []
        env = dict(env, BB_OUT=raw)
    else:
        script, args = os.path.join(raw, "job.sh"), []
        with open(script, "w") as f:
            f.write(jobs.job_script(run, w, s["vars"], raw))
        os.chmod(script, 0o755)
    profile = os.path.join(raw, "profile.json") if run["profile"] else None
    started = time.time()
    outcome = cluster.run(job_name(run["id"]), mode_file, run["nodes"], run["tasks_per_node"], run["timeout"], profile,
                          script, args, raw, env)
    doc = dict(run, started_unix=started, **outcome)
    doc["ok"] = outcome.get("exit_status") == 0 and not outcome.get("timed_out") and not outcome.get("error")
    doc["figures"], doc["details"] = [], {}
    if doc["ok"]:
        try:
            with open(os.path.join(raw, "stdout.txt"), errors="replace") as f:
                stdout = f.read()
            doc["figures"], doc["details"] = results.collect(w, raw, stdout)
        except results.ResultError as e:
            doc["ok"], doc["error"] = False, f"results: {e}"
    else:
        doc["details"] = {"phase_times": results.phase_times(raw)}
    if not doc["ok"]:
        doc["cause"] = results.failure_cause(raw)
    doc["figures"].append(results.figure("wall_seconds", doc.get("wall_seconds", 0), "s", False))
    if profile and os.path.exists(profile):
        with open(profile) as f:
            prof = json.load(f)
        doc["cross_node"] = labels.cross_node_sharing(prof)[:5]
        doc["disqualifies"] = labels.profile_disqualifies(prof)
    return doc


def run_all(scenarios, cluster, out_dir, env, log, redo_failed=False, summary=None):
    """Makes every run not yet made. Returns (and keeps up to date in `summary`, so that a caller
    interrupted midway knows what was made) {"made", "resumed", "skipped": {id: why}, "failed": [ids]}."""
    runs_dir = os.path.join(out_dir, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    todo, resumed, skipped = [], 0, {}
    for s, w, run in plan(scenarios):
        path = os.path.join(runs_dir, run["id"] + ".json")
        if os.path.exists(path):
            with open(path) as f:
                if json.load(f).get("ok") or not redo_failed:
                    resumed += 1
                    continue
        missing = missing_tools(w)
        if missing:
            skipped[run["id"]] = (f"{', '.join(missing)} not on PATH (set IOR_BIN to the folder of ior and mdtest, "
                                  "e.g. IOR_BIN=/opt/ior/bin)")
            continue
        todo.append((s, w, run))
    told = set()
    for s, w, _ in plan(scenarios):
        missing = missing_tools(w)
        if missing and (s["name"], w["name"]) not in told:
            told.add((s["name"], w["name"]))
            log(f"harness: skipping {s['name']}/{w['name']}: {', '.join(missing)} not on PATH "
                "(set IOR_BIN=/opt/ior/bin, the folder of ior and mdtest)")
    summary = summary if summary is not None else {}
    summary.update({"made": 0, "resumed": resumed, "skipped": skipped, "failed": []})
    if not todo:
        log(f"harness: nothing to run ({resumed} runs already made, {len(skipped)} skipped)")
        return summary
    scripts = {}
    for s, w, _ in todo:
        if w["tool"] == "script" and (s["path"], w["name"]) not in scripts:
            scripts[(s["path"], w["name"])] = build_script_sources(w, s["path"], log)
    progress = Progress(len(todo) + resumed, resumed)
    cluster.start()
    try:
        for s, w, run in todo:
            doc = make_run(cluster, s, w, run, out_dir, env, scripts)
            write_json_atomic(os.path.join(runs_dir, run["id"] + ".json"), doc)
            summary["made"] += 1
            if not doc["ok"]:
                summary["failed"].append(run["id"])
            status = f"ok {doc['wall_seconds']:.1f} s" if doc["ok"] else f"FAILED ({doc.get('error', '')[:120]})"
            progress.step(run["id"], status)
    finally:
        cluster.stop()
    return summary
