#!/usr/bin/env python3
"""Close-to-open against a model, over the nodes of an emulated cluster.

Each round a node picked at random opens one file, reads it whole and checks it against the
model, then writes and truncates it at random (writes up to 200 KB at offsets up to 600 KB, so
they cross chunks and leave holes), and closes it; then another node stats it and checks the
size. Every node keeps one worker process for the whole run, so its kernel caches what it saw
in earlier rounds; a missed invalidation shows as old data or an old size.

Usage: close_to_open_oracle.py BBCTL PATH ROUNDS SEED
Prints the rounds that went wrong and "ROUNDS rounds on N nodes, B wrong"; exits 1 if B > 0.
"""
import hashlib
import json
import random
import subprocess
import sys

# Runs on a node: one JSON command per line in, one JSON answer per line out.
WORKER = r"""
import hashlib, json, os, sys
path = sys.argv[1]
for line in sys.stdin:
    cmd = json.loads(line)
    out = {}
    try:
        if cmd["op"] == "round":
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            out["size"] = os.fstat(fd).st_size
            data = bytearray()
            while chunk := os.pread(fd, 1 << 20, len(data)):
                data += chunk
            out["read"], out["md5"] = len(data), hashlib.md5(data).hexdigest()
            for op in cmd["ops"]:
                if op[0] == "w":
                    os.pwrite(fd, bytes([op[3]]) * op[2], op[1])
                else:
                    os.ftruncate(fd, op[1])
            os.close(fd)
        else:
            out["size"] = os.stat(path).st_size
    except OSError as e:
        out["error"] = str(e)
    print(json.dumps(out), flush=True)
"""


def random_ops(rng):
    ops = []
    for _ in range(rng.randint(1, 6)):
        if rng.random() < 0.8:
            ops.append(["w", rng.randint(0, 600_000), rng.randint(1, 200_000), rng.randint(1, 255)])
        else:
            ops.append(["t", rng.randint(0, 700_000)])
    return ops


def apply(model, ops):
    for op in ops:
        if op[0] == "w":
            _, offset, length, byte = op
            if len(model) < offset + length:
                model.extend(bytes(offset + length - len(model)))
            model[offset:offset + length] = bytes([byte]) * length
        else:
            del model[op[1]:]
            model.extend(bytes(op[1] - len(model)))


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    bbctl, path, rounds, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    nodes = [0, 1, 2, 3]
    workers = {
        n: subprocess.Popen([bbctl, "exec", "--node", str(n), "--", "python3", "-c", WORKER, path],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for n in nodes
    }

    def ask(node, cmd):
        workers[node].stdin.write(json.dumps(cmd) + "\n")
        workers[node].stdin.flush()
        answer = workers[node].stdout.readline()
        if not answer:
            sys.exit(f"node {node}'s worker ended")
        return json.loads(answer)

    model = bytearray()
    wrong = 0
    for r in range(rounds):
        node = rng.choice(nodes)
        ops = random_ops(rng)
        seen = ask(node, {"op": "round", "ops": ops})
        want = hashlib.md5(model).hexdigest()
        if "error" in seen or seen["size"] != len(model) or seen["md5"] != want:
            wrong += 1
            print(f"round {r}: node {node} opened {seen}, the model has {len(model)} bytes ({want})")
        apply(model, ops)
        other = rng.choice([n for n in nodes if n != node])
        seen = ask(other, {"op": "stat"})
        if seen.get("size") != len(model):
            wrong += 1
            print(f"round {r}: after node {node}'s close node {other} stats {seen}, the model has {len(model)} bytes")
    for w in workers.values():
        w.stdin.close()
        w.wait()
    print(f"{rounds} rounds on {len(nodes)} nodes, {wrong} wrong")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
