#!/usr/bin/python3
"""The benchmark harness: runs the scenario matrix of one or more scenario files on the emulated
cluster (or a running one) and writes per-run JSON, a Markdown report and PNG charts into a work
folder, and with --csv one row per figure of every run into the recording's CSV (the run files
stay out of the tree; bench/charts.py charts the CSV).

  bench/phases/harness.py bench/phases/scenarios/table1.yaml [more.yaml...] --out /var/tmp/matrix \
      --csv bench/results/matrix.csv

Runs whose JSON is already in --out are not made again; Ctrl-C stops after cleaning up (the
cluster it built is torn down; one it attached to is left running). See bench/phases/README.md."""
import argparse
import datetime
import json
import os
import shlex
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: the harness package
from harness import cluster, report, runner, scenario, table  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenarios", nargs="+", help="scenario files (YAML)")
    p.add_argument("--out", required=True, help="results folder (runs/, raw/, report.md, charts)")
    p.add_argument("--csv", help="append the runs of --out not yet there to this CSV (bench/results/<recording>.csv)")
    p.add_argument("--bbctl", default=os.path.join(REPO, "build", "bin", "bbctl"), help="bbctl (default: build/bin/bbctl)")
    target = p.add_mutually_exclusive_group()
    target.add_argument("--attach", action="store_true", help="run on the emulated cluster that is up (never torn down)")
    target.add_argument("--launcher", help="a running cluster's job launcher, e.g. 'sbatch --wait -N {nodes} "
                                           "--ntasks-per-node {tasks_per_node} -t {timeout_min}' (needs --mount)")
    p.add_argument("--mount", help="with --launcher: the burst buffer's mount point on the cluster")
    p.add_argument("--bbctl-root", help="with --launcher: --root for bbctl job start/stop")
    p.add_argument("--redo-failed", action="store_true", help="make failed runs again (made runs are kept otherwise)")
    p.add_argument("--report-only", action="store_true", help="only write the report from the runs in --out")
    p.add_argument("--list", action="store_true", help="print the runs and exit")
    a = p.parse_args(argv)
    a.bbctl = os.path.abspath(a.bbctl)
    a.out = os.path.abspath(a.out)
    if a.launcher and not a.mount:
        p.error("--launcher needs --mount")
    return a


def main(argv):
    a = parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    try:
        scenarios = [scenario.load(path) for path in a.scenarios]
    except scenario.ScenarioError as e:
        log(f"harness: {e}")
        return 2
    if a.list:
        for _, _, r in runner.plan(scenarios):
            print(r["id"])
        return 0
    os.makedirs(a.out, exist_ok=True)
    inv_path = os.path.join(a.out, "invocations.json")
    invocations = json.load(open(inv_path)) if os.path.exists(inv_path) else []
    if not a.report_only:
        env = dict(os.environ)
        if env.get("IOR_BIN"):
            env["PATH"] = env["IOR_BIN"] + os.pathsep + env.get("PATH", "")
            os.environ["PATH"] = env["PATH"]  # so that the harness finds them too
        if not a.launcher and not os.access(a.bbctl, os.X_OK):
            log(f"harness: {a.bbctl} is missing: build first (tools/build.sh)")
            return 2
        nodes = max(r["nodes"] for _, _, r in runner.plan(scenarios))
        rates = sorted({s["link_rate"] for s in scenarios})
        if len(rates) > 1 and not (a.attach or a.launcher):
            log(f"harness: the scenarios ask for different link rates {rates}: run them in separate invocations")
            return 2
        work = tempfile.mkdtemp(prefix="bb-harness-")
        if a.launcher:
            target = cluster.ExternalCluster(a.bbctl, a.launcher, a.mount, a.bbctl_root)
        else:
            target = cluster.EmulatedCluster(a.bbctl, nodes, rates[0], work, own=not a.attach, log=log)
        # SIGTERM and SIGHUP end the harness as Ctrl-C does: the running job is stopped, the cluster torn down.
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        summary, status = {}, 0
        try:
            runner.run_all(scenarios, target, a.out, env, log, a.redo_failed, summary)
        except KeyboardInterrupt:
            log("harness: interrupted; the cluster it started is down, the runs made so far are kept")
            status = 130
        except (cluster.ClusterError, RuntimeError, scenario.ScenarioError) as e:
            log(f"harness: {e}")
            status = 1
        finally:
            cluster.remove_workdir(work)
        if summary.get("made"):  # what made runs is recorded, also when it was cut short
            invocations.append({"command": " ".join(shlex.quote(x) for x in ["bench/phases/harness.py"] + argv),
                                "when": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
                                "ior_bin": os.environ.get("IOR_BIN", ""), "target": target.description,
                                "made": summary["made"], "resumed": summary["resumed"], "interrupted": status != 0,
                                "skipped": len(summary["skipped"]), "failed": len(summary["failed"])})
            runner.write_json_atomic(inv_path, invocations)
        if status:
            return status
        log(f"harness: made {summary['made']} runs, {summary['resumed']} already made, "
            f"{len(summary['skipped'])} skipped, {len(summary['failed'])} failed")
        runner.write_json_atomic(os.path.join(a.out, "last_summary.json"), summary)
    path = report.write(a.out, scenarios, invocations)
    log(f"harness: report {path}")
    if a.csv:
        commit = table.git_commit(REPO)
        log(f"harness: {table.append(a.csv, report.load_runs(a.out), commit)} runs added to {a.csv} (at {commit})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
