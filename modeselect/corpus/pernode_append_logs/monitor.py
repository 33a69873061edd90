"""Per-node event log of a solver run.

run:   every task appends one fixed-width line per step to LOGS/node<NNN>.log (O_APPEND, one
       write per line, the node's tasks writing at the same time) and every 50 steps replaces
       its heartbeat file LOGS/node<NNN>.task<RRRRR>.hb (write to a temporary, rename).
check: one task per node reads its node's log: every line whole, of this node, and for each
       task that has a heartbeat file all its steps in order; the number of tasks must be
       TASKS_PER_NODE. Then it removes the node's log and heartbeats (and LOGS once empty).

usage: monitor.py run LOGS STEPS | monitor.py check LOGS STEPS TASKS_PER_NODE
"""
import math
import os
import re
import sys
import time

LINE = "{t:17.6f} node={node:03d} task={rank:05d} step={step:05d} residual={res:+.6e}\n"
LINE_LEN = len(LINE.format(t=0.0, node=0, rank=0, step=0, res=1.0))
PATTERN = re.compile(r"^ *\d+\.\d{6} node=(\d{3}) task=(\d{5}) step=(\d{5}) residual=(\S+)\n$")


def env(name):
    value = os.environ.get(name)
    if value is None:
        sys.exit(f"monitor: {name} is not set (run me with srun)")
    return int(value)


def log_path(logs, node):
    return os.path.join(logs, f"node{node:03d}.log")


def heartbeat(logs, node, rank, text):
    path = os.path.join(logs, f"node{node:03d}.task{rank:05d}.hb")
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def run(logs, steps):
    node, rank = env("SLURM_NODEID"), env("SLURM_PROCID")
    os.makedirs(logs, exist_ok=True)
    fd = os.open(log_path(logs, node), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    res = 1.0
    for step in range(steps):
        for k in range(200):  # the "solver"
            res = res * 0.999 + 1e-7 * math.sin(k + step + rank)
        line = LINE.format(t=time.time(), node=node, rank=rank, step=step, res=res).encode()
        if os.write(fd, line) != len(line):
            sys.exit(f"monitor[{rank}]: short append to {log_path(logs, node)}")
        if step % 50 == 49:
            heartbeat(logs, node, rank, f"running {step + 1}\n")
    os.close(fd)
    heartbeat(logs, node, rank, f"done {steps}\n")


def check(logs, steps, tasks_per_node):
    node = env("SLURM_NODEID")
    prefix = f"node{node:03d}.task"
    beats = sorted(n for n in os.listdir(logs) if n.startswith(prefix) and n.endswith(".hb"))
    tasks = {}
    for name in beats:
        with open(os.path.join(logs, name)) as f:
            state = f.read().split()
        if state != ["done", str(steps)]:
            sys.exit(f"monitor: {name} says {' '.join(state)}, not done {steps}")
        tasks[int(name[len(prefix):-3])] = 0  # next step expected
    if len(tasks) != tasks_per_node:
        sys.exit(f"monitor: node {node} has heartbeats of {len(tasks)} tasks, expected {tasks_per_node}")
    path = log_path(logs, node)
    lines = 0
    with open(path) as f:
        for text in f:
            lines += 1
            m = PATTERN.match(text)
            if len(text) != LINE_LEN or not m:
                sys.exit(f"monitor: {path}:{lines}: torn or foreign line {text!r}")
            n, rank, step = int(m.group(1)), int(m.group(2)), int(m.group(3))
            if n != node or rank not in tasks:
                sys.exit(f"monitor: {path}:{lines}: line of node {n} task {rank}")
            if step != tasks[rank]:
                sys.exit(f"monitor: {path}:{lines}: task {rank} step {step}, expected step {tasks[rank]}")
            tasks[rank] += 1
    if lines != steps * len(tasks) or any(v != steps for v in tasks.values()):
        sys.exit(f"monitor: {path} has {lines} lines, expected {steps * len(tasks)}")
    os.remove(path)
    for name in beats:
        os.remove(os.path.join(logs, name))
    try:
        os.rmdir(logs)  # the last node to finish takes the directory
    except OSError:
        pass
    print(f"node {node}: {lines} lines of {len(tasks)} tasks checked")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        check(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
