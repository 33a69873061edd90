"""Parameter sweep with a results database of small JSON files (stdlib only).

  run:       every task computes its cases (case i belongs to task i mod NTASKS), publishes
             each result as results/case_NNNNN.json (written under incoming/ and renamed, so a
             reader never sees half a file), keeps status/task_NNN.json current, and watches
             the progress of the whole sweep by listing results/ every few cases
  audit:     every task re-computes the cases of the next task and compares them with the
             published results
  summarize: one task lists and reads the whole database and prints the best cases
  purge:     every task removes its own results and status file

usage: sweep.py run|audit|summarize|purge DB CASES
"""
import json
import math
import os
import sys

RANK = int(os.environ.get("SLURM_PROCID", "0"))
NTASKS = int(os.environ.get("SLURM_NTASKS", "1"))


def params(case):
    return {"r": 3.5 + 0.5 * (case % 97) / 97.0, "x0": 0.1 + 0.8 * ((case * 7919) % 101) / 101.0}


def compute(case):
    """Logistic map statistics after a burn-in: a stand-in for a short simulation."""
    p = params(case)
    x, acc, acc2, lyap = p["x0"], 0.0, 0.0, 0.0
    for i in range(600):
        x = p["r"] * x * (1 - x)
        if i >= 100:
            acc += x
            acc2 += x * x
            lyap += math.log(abs(p["r"] * (1 - 2 * x)) + 1e-12)
    n = 500
    return {"case": case, "params": p, "mean": acc / n, "var": acc2 / n - (acc / n) ** 2, "lyapunov": lyap / n}


def result_path(db, case):
    return os.path.join(db, "results", f"case_{case:05d}.json")


def publish(path, doc, tmp_dir):
    tmp = os.path.join(tmp_dir, f"{os.path.basename(path)}.{RANK}.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, sort_keys=True)
    os.replace(tmp, path)


def run(db, cases):
    incoming = os.path.join(db, "incoming")
    for d in ("results", "incoming", "status"):
        os.makedirs(os.path.join(db, d), exist_ok=True)
    mine = list(range(RANK, cases, NTASKS))
    status_path = os.path.join(db, "status", f"task_{RANK:03d}.json")
    seen = 0
    for k, case in enumerate(mine, 1):
        publish(result_path(db, case), compute(case), incoming)
        if k % 8 == 0 or k == len(mine):
            seen = len(os.listdir(os.path.join(db, "results")))
            publish(status_path, {"task": RANK, "done": k, "of": len(mine), "sweep_seen": seen}, incoming)
    print(f"task {RANK}: {len(mine)} cases published, {seen} results seen in the database")


def audit(db, cases):
    owner = (RANK + 1) % NTASKS
    theirs = range(owner, cases, NTASKS)
    bad = 0
    for case in theirs:
        path = result_path(db, case)
        if os.stat(path).st_size == 0:
            bad += 1
            continue
        with open(path) as f:
            got = json.load(f)
        bad += got != json.loads(json.dumps(compute(case), sort_keys=True))
    with open(os.path.join(db, "status", f"task_{owner:03d}.json")) as f:
        status = json.load(f)
    if status["done"] != len(theirs):
        bad += 1
    print(f"task {RANK}: audited {len(theirs)} cases of task {owner}, {bad} bad")
    return 1 if bad else 0


def summarize(db, cases):
    names = sorted(os.listdir(os.path.join(db, "results")))
    docs = []
    for name in names:
        with open(os.path.join(db, "results", name)) as f:
            docs.append(json.load(f))
    if len(docs) != cases or [d["case"] for d in docs] != list(range(cases)):
        print(f"summarize: {len(docs)} results, expected cases 0..{cases - 1}", file=sys.stderr)
        return 1
    chaotic = sum(d["lyapunov"] > 0 for d in docs)
    best = max(docs, key=lambda d: d["lyapunov"])
    print(f"summarize: {len(docs)} cases, {chaotic} chaotic, largest exponent {best['lyapunov']:.4f} "
          f"at r={best['params']['r']:.4f} (case {best['case']})")
    return 0


def purge(db, cases):
    for case in range(RANK, cases, NTASKS):
        os.unlink(result_path(db, case))
    os.unlink(os.path.join(db, "status", f"task_{RANK:03d}.json"))
    return 0


def main():
    cmd, db, cases = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.exit({"run": run, "audit": audit, "summarize": summarize, "purge": purge}[cmd](db, cases) or 0)


if __name__ == "__main__":
    main()
