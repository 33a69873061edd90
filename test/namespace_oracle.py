#!/usr/bin/env python3
"""The namespace against a model, over the nodes of an emulated cluster.

Operations picked at random run one after another, each on one node, and each answer is checked
against a model of what the namespace holds: creates (often a run of small files made one after
another by one process, which makes it a stream: its names are reserved, or its directory leased,
and its files made on its own node), writes, truncates, chmods, reads, stats, listings, unlinks,
hard links, symlinks (whose targets never exist), mkdir, rmdir and renames of files and
directories (a directory with everything below it), with their errors (EEXIST, ENOENT, ENOTDIR,
EISDIR, ENOTEMPTY, EINVAL). A node keeps working for a few operations before
another takes over, so leases are taken and asked back. Names come from small pools so that
operations collide. Every node keeps one worker process for the whole run, so its kernel caches
what it saw earlier: an entry, a negative entry or attributes not dropped when another node
changed them show up as a wrong answer, as does a create, unlink or rename that was lost or done
twice. Some files are held open, and read and written through their descriptors later, after
other nodes changed or moved them. At the end every node lists every directory and reads every file and symlink.

With --parallel, every node works at once, each in a directory of its own (checked against a
model of its own) and reading the others' directories meanwhile; every node then sees all four.
With --private (node-private workspaces, mode 1), the same, each node seeing its own directory
only (the others' are absent there). With --restart, one node at a time as without options, but
halfway a node's daemon is killed and started again once what was answered settled: every node
then sees all of it.

With --full FILLDIR (one node at a time, as without options), the nodes' roots share a small
filesystem that FILLDIR is on: meanwhile a filler there fills it to its last byte, gives some of it
back, and fills it again. An operation refused with ENOSPC must have changed nothing, except the
data of the file it wrote (a write or create cut short: the model takes what the file holds then,
as every node must read it); a read refused with ENOSPC is counted, not wrong.

Usage: namespace_oracle.py BBCTL DIR OPS SEED [--parallel | --private | --restart | --full FILLDIR]
Prints the operations that went wrong and "OPS operations [per node] on N nodes, B wrong"; exits 1
if B > 0. With ORACLE_TRACE=FILE in the environment, every command and its answer go to FILE.
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import time

# Runs on a node: one JSON command per line in, one JSON answer per line out.
WORKER = r"""
import errno, hashlib, json, os, stat, sys
root = sys.argv[1]
def read_all(fd):
    data = bytearray()
    while chunk := os.pread(fd, 1 << 20, len(data)):
        data += chunk
    return {"len": len(data), "md5": hashlib.md5(data).hexdigest()}
def run(c):
    p = lambda k: os.path.join(root, c[k])
    op = c["op"]
    if op == "create":
        out = []
        for path, size, byte in c["files"]:
            try:
                fd = os.open(os.path.join(root, path), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
                try:
                    os.write(fd, bytes([byte]) * size) if size else None
                finally:
                    os.close(fd)  # also when the write failed, as a program would
                out.append("ok")
            except OSError as e:
                out.append(errno.errorcode[e.errno])
        return {"each": out}
    if op in ("write", "append"):
        fd = os.open(p("path"), os.O_WRONLY | (os.O_TRUNC if op == "write" else os.O_APPEND))
        try:
            os.write(fd, bytes([c["byte"]]) * c["size"]) if c["size"] else None
        finally:
            os.close(fd)
        return {}
    if op == "stat":
        st = os.lstat(p("path"))
        if stat.S_ISDIR(st.st_mode):
            return {"type": "d"}
        if stat.S_ISLNK(st.st_mode):
            return {"type": "l"}
        return {"type": "f", "size": st.st_size, "nlink": st.st_nlink, "mode": stat.S_IMODE(st.st_mode)}
    if op == "read":
        with open(p("path"), "rb") as f:
            data = f.read()
        return {"len": len(data), "md5": hashlib.md5(data).hexdigest()}
    if op == "list":
        return {"names": sorted(os.listdir(p("path")))}
    if op == "open":  # held open for fdread, fdwrite and close
        fd = os.open(p("path"), os.O_RDWR)
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)
            return {"errno": "EISDIR"}
        return {"fd": fd}
    if op == "fdread":
        return read_all(c["fd"])
    if op == "readhex":  # what a file holds now, whole
        if not stat.S_ISREG(os.lstat(p("path")).st_mode):
            return {"errno": "EISDIR"}
        with open(p("path"), "rb") as f:
            return {"hex": f.read().hex()}
    if op == "fdreadhex":
        data = bytearray()
        while chunk := os.pread(c["fd"], 1 << 20, len(data)):
            data += chunk
        return {"hex": bytes(data).hex()}
    if op == "fdwrite":  # published by its fsync, as by a close
        os.pwrite(c["fd"], bytes([c["byte"]]) * c["size"], c["offset"])
        os.fsync(c["fd"])
        return {}
    if op == "fdtruncate":
        os.ftruncate(c["fd"], c["size"])
        return {}
    if op == "close":
        os.close(c["fd"])
        return {}
    if op == "readlink":
        return {"target": os.readlink(p("path"))}
    if op == "unlink":
        os.unlink(p("path"))
    elif op == "truncate":
        os.truncate(p("path"), c["size"])
    elif op == "chmod":
        os.chmod(p("path"), c["mode"])
    elif op == "mkdir":
        os.mkdir(p("path"))
    elif op == "rmdir":
        os.rmdir(p("path"))
    elif op == "rename":
        os.rename(p("src"), p("dst"))
    elif op == "link":
        os.link(p("src"), p("dst"), follow_symlinks=False)
    elif op == "symlink":
        os.symlink(c["target"], p("path"))
    return {}
for line in sys.stdin:
    try:
        out = run(json.loads(line))
    except OSError as e:
        out = {"errno": errno.errorcode.get(e.errno, str(e.errno))}
    print(json.dumps(out), flush=True)
"""

DIRS = ["a", "b", "a/x", "b/y", "a/x/z"]
NAMES = [f"f{i}" for i in range(24)]


class Model:
    """Paths relative to the run's directory ("" is it): ("d", id) or ("f", object id); objects
    hold [data, link count, mode]."""

    def __init__(self):
        self.entries = {"": ("d", -1)}
        self.objects = {}
        self.next_id = 0

    def parent_error(self, path):
        parts = path.split("/")
        for i in range(1, len(parts)):
            e = self.entries.get("/".join(parts[:i]))
            if e is None or e[0] == "l":  # a symlink's target never exists
                return "ENOENT"
            if e[0] != "d":
                return "ENOTDIR"
        return None

    def lookup(self, path):
        """(entry, None) or (None, errno)."""
        err = self.parent_error(path)
        if err:
            return None, err
        e = self.entries.get(path)
        return (e, None) if e else (None, "ENOENT")

    def children(self, path):
        prefix = path + "/" if path else ""
        return sorted(p[len(prefix):] for p in self.entries if p and p.startswith(prefix) and "/" not in p[len(prefix):])

    def content(self, path):
        return self.objects[self.entries[path][1]][0]

    def drop_name(self, path):
        e = self.entries.pop(path)
        if e[0] == "f":
            self.objects[e[1]][1] -= 1

    def new_file(self, path, size, byte):
        self.entries[path] = ("f", self.next_id)
        self.objects[self.next_id] = [bytes([byte]) * size, 1, 0o644]
        self.next_id += 1


def expect(model, cmd):
    """Applies `cmd` to the model; returns the answers it allows (a list of dicts; for create, the
    list of each file's result)."""
    op = cmd["op"]
    if op == "create":
        out = []
        for path, size, byte in cmd["files"]:
            e, err = model.lookup(path)
            if err == "ENOENT" and model.parent_error(path) is None:
                model.new_file(path, size, byte)
                out.append("ok")
            else:
                out.append(err or "EEXIST")
        return [{"each": out}]
    if op in ("stat", "read", "list", "write", "append", "truncate", "chmod", "unlink", "rmdir", "readlink"):
        e, err = model.lookup(cmd["path"])
        if err:
            return [{"errno": err}]
        if op == "readlink":
            return [{"target": e[2]}] if e[0] == "l" else [{"errno": "EINVAL"}]
        if e[0] == "l" and op not in ("stat", "unlink", "rmdir"):
            return [{"errno": "ENOENT"}]  # followed to a target that is not there
        if op == "stat":
            if e[0] in "dl":
                return [{"type": e[0]}]
            data, links, mode = model.objects[e[1]]
            return [{"type": "f", "size": len(data), "nlink": links, "mode": mode}]
        if op == "read":
            if e[0] == "d":
                return [{"errno": "EISDIR"}]
            data = model.content(cmd["path"])
            return [{"len": len(data), "md5": hashlib.md5(data).hexdigest()}]
        if op == "list":
            return [{"names": model.children(cmd["path"])}] if e[0] == "d" else [{"errno": "ENOTDIR"}]
        if op in ("write", "append"):
            if e[0] == "d":
                return [{"errno": "EISDIR"}]
            data = model.objects[e[1]][0] if op == "append" else b""
            model.objects[e[1]][0] = data + bytes([cmd["byte"]]) * cmd["size"]
            return [{}]
        if op == "truncate":
            if e[0] == "d":
                return [{"errno": "EISDIR"}]
            data = model.objects[e[1]][0]
            model.objects[e[1]][0] = data[:cmd["size"]] + bytes(max(0, cmd["size"] - len(data)))
            return [{}]
        if op == "chmod":
            if e[0] == "f":
                model.objects[e[1]][2] = cmd["mode"]
            return [{}]
        if op == "unlink":
            if e[0] == "d":
                return [{"errno": "EISDIR"}]
            model.drop_name(cmd["path"])
            return [{}]
        if e[0] != "d":
            return [{"errno": "ENOTDIR"}]
        if model.children(cmd["path"]):
            return [{"errno": "ENOTEMPTY"}]
        model.drop_name(cmd["path"])
        return [{}]
    if op in ("mkdir", "symlink"):
        e, err = model.lookup(cmd["path"])
        if e:
            return [{"errno": "EEXIST"}]
        if model.parent_error(cmd["path"]):
            return [{"errno": model.parent_error(cmd["path"])}]
        model.entries[cmd["path"]] = ("d", model.next_id) if op == "mkdir" else ("l", model.next_id, cmd["target"])
        model.next_id += 1
        return [{}]
    if op == "link":
        s, err = model.lookup(cmd["src"])
        if err:
            return [{"errno": err}]
        d, derr = model.lookup(cmd["dst"])
        if d:
            return [{"errno": "EEXIST"}]
        if model.parent_error(cmd["dst"]):
            return [{"errno": model.parent_error(cmd["dst"])}]
        if s[0] == "d":
            return [{"errno": "EPERM"}]
        model.entries[cmd["dst"]] = s
        if s[0] == "f":
            model.objects[s[1]][1] += 1
        return [{}]
    return rename(model, cmd["src"], cmd["dst"])


def rename(model, src, dst):
    # Both parents are walked before the source is looked up.
    err = model.parent_error(src) or model.parent_error(dst)
    if err:
        return [{"errno": err}]
    s, err = model.lookup(src)
    if err:
        return [{"errno": err}]
    d = model.entries.get(dst)
    if s[0] == "d" and (dst + "/").startswith(src + "/"):
        return [{}] if dst == src else [{"errno": "EINVAL"}]
    if src != dst and (src + "/").startswith(dst + "/"):  # onto a directory above it
        return [{"errno": "ENOTEMPTY"}]
    if d is not None:
        if d == s:  # the same file (or hard links of it): nothing changes
            return [{}]
        if s[0] == "d" and d[0] != "d":
            return [{"errno": "ENOTDIR"}]
        if s[0] != "d" and d[0] == "d":
            return [{"errno": "EISDIR"}]
        if d[0] == "d" and model.children(dst):
            return [{"errno": "ENOTEMPTY"}, {"errno": "EEXIST"}]
    if d is not None:
        model.drop_name(dst)
    moved = {p: e for p, e in model.entries.items() if p == src or p.startswith(src + "/")}
    for p in moved:
        del model.entries[p]
    for p, e in moved.items():
        model.entries[dst + p[len(src):]] = e
    return [{}]


def random_cmd(rng):
    def path(dirs_too=False):
        parent = rng.choice(DIRS + [""])
        if dirs_too and rng.random() < 0.3:
            return rng.choice(DIRS)
        return f"{parent}/{rng.choice(NAMES)}".lstrip("/")

    r = rng.random()
    if r < 0.18:  # a run of small files in one directory: a stream from the second on
        parent = rng.choice(DIRS + [""])
        names = rng.sample(NAMES, rng.randint(1, 10))
        return {"op": "create", "files": [[f"{parent}/{n}".lstrip("/"), rng.choice([0, 1, 3901, 70000]),
                                           rng.randint(1, 255)] for n in names]}
    if r < 0.26:
        return {"op": "stat", "path": path(True)}
    if r < 0.33:
        return {"op": "read", "path": path()}
    if r < 0.39:
        return {"op": "list", "path": rng.choice(DIRS + [""])}
    if r < 0.45:
        return {"op": rng.choice(["write", "write", "append"]), "path": path(), "size": rng.choice([0, 10, 5000, 600000]),
                "byte": rng.randint(1, 255)}
    if r < 0.48:
        return {"op": "truncate", "path": path(), "size": rng.choice([0, 100, 4096, 530000, 700000])}
    if r < 0.51:
        return {"op": "chmod", "path": path(), "mode": rng.choice([0o600, 0o644, 0o755, 0o640])}
    if r < 0.68:
        return {"op": "unlink", "path": path()}
    if r < 0.72:
        return {"op": "mkdir", "path": rng.choice(DIRS)}
    if r < 0.76:
        return {"op": "rmdir", "path": rng.choice(DIRS)}
    if r < 0.81:
        return {"op": "link", "src": path(), "dst": path()}
    if r < 0.85:
        return {"op": "symlink", "path": path(), "target": f"/nonexistent/{rng.choice(NAMES)}"}
    if r < 0.87:
        return {"op": "readlink", "path": path()}
    return {"op": "rename", "src": path(True), "dst": path(True)}


def prefixed(cmd, pre):
    """`cmd` with its paths under directory `pre` ("" leaves it as it is)."""
    if not pre:
        return cmd
    out = dict(cmd)
    for k in ("path", "src", "dst"):
        if k in out:
            out[k] = f"{pre}/{out[k]}".rstrip("/")
    if "files" in out:
        out["files"] = [[f"{pre}/{p}", size, byte] for p, size, byte in out["files"]]
    return out


TRACE = open(os.environ["ORACLE_TRACE"], "w") if os.environ.get("ORACLE_TRACE") else None


class Run:
    def __init__(self, bbctl, root, nodes):
        self.nodes = nodes
        self.workers = {
            n: subprocess.Popen([bbctl, "exec", "--node", str(n), "--", "python3", "-c", WORKER, root],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for n in nodes
        }
        self.wrong = 0
        self.mu = threading.Lock()
        self.full = False  # --full: answers ENOSPC are taken as changing nothing but written data
        self.refused = 0  # operations answered ENOSPC

    def ask(self, node, cmd):
        w = self.workers[node]
        w.stdin.write(json.dumps(cmd) + "\n")
        w.stdin.flush()
        answer = w.stdout.readline()
        if not answer:
            sys.exit(f"node {node}'s worker ended")
        if TRACE:  # ORACLE_TRACE=FILE: every command and its answer, for reading a wrong one's past
            with self.mu:
                TRACE.write(f"{time.monotonic():.3f} node {node} {json.dumps(cmd)} -> {answer}")
                TRACE.flush()
        return json.loads(answer)

    def ask_settled(self, node, cmd):
        """ask, again for up to 2 s while the answer is ENOSPC (a node's database waiting for room
        to reopen answers reads so too)."""
        for _ in range(20):
            seen = self.ask(node, cmd)
            if seen != {"errno": "ENOSPC"}:
                break
            time.sleep(0.1)
        return seen

    def report(self, text):
        with self.mu:
            self.wrong += 1
            print(text, flush=True)

    def held(self, rng, model, pre, node, fds):
        """Opens a file to hold, reads one held (what its file holds now, whoever changed it:
        close-to-open through a descriptor), writes one held (wherever other nodes moved it
        meanwhile), or closes one; `fds` holds (node, fd, object)."""
        mine = [f for f in fds if f[0] == node]
        r = rng.random()
        if mine and (r < 0.25 or len(mine) >= 8):
            f = rng.choice(mine)
            fds.remove(f)
            self.ask(node, {"op": "close", "fd": f[1]})
        elif mine and r < 0.45:
            _, fd, obj = rng.choice(mine)
            data, links, _ = model.objects[obj]
            if rng.random() < 0.25:
                cmd = {"op": "fdtruncate", "fd": fd, "size": rng.choice([0, 100, 5000])}
                offset, put = cmd["size"], b""
            else:
                cmd = {"op": "fdwrite", "fd": fd, "offset": rng.randint(0, len(data) + 100),
                       "size": rng.choice([1, 300, 5000]), "byte": rng.randint(1, 255)}
                offset, put = cmd["offset"], bytes([cmd["byte"]]) * cmd["size"]
            seen = self.ask(node, cmd)
            if self.full and seen == {"errno": "ENOSPC"}:  # cut short: what the file holds now
                self.refused += 1
                now = self.ask_settled(node, {"op": "fdreadhex", "fd": fd})
                if "hex" in now:
                    model.objects[obj][0] = bytes.fromhex(now["hex"])
                else:
                    self.report(f"node {node} reads a descriptor of {obj} after a write cut short: {now}")
            elif links > 0:  # with no name left, it may fail or be lost (docs/consistency.md)
                if seen != {}:
                    self.report(f"node {node} {cmd['op']}s a descriptor of {obj}: {seen}")
                else:
                    padded = data + bytes(max(0, offset - len(data)))
                    rest = b"" if cmd["op"] == "fdtruncate" else padded[offset + len(put):]
                    model.objects[obj][0] = padded[:offset] + put + rest
        elif mine and r < 0.7:
            _, fd, obj = rng.choice(mine)
            data, links, _ = model.objects[obj]
            seen = self.ask(node, {"op": "fdread", "fd": fd})
            want = {"len": len(data), "md5": hashlib.md5(data).hexdigest()}
            if links > 0 and seen != want:  # with no name left, its data may be gone (docs/consistency.md)
                self.report(f"node {node} reads a descriptor of {obj} as {seen}, the model has {want}")
        else:
            path = f"{rng.choice(DIRS + [''])}/{rng.choice(NAMES)}".lstrip("/")
            e, err = model.lookup(path)
            want = {"errno": err} if err else {"errno": "EISDIR"} if e[0] == "d" else {"errno": "ENOENT"} \
                if e[0] == "l" else None
            seen = self.ask(node, prefixed({"op": "open", "path": path}, pre))
            if self.full and seen == {"errno": "ENOSPC"}:
                self.refused += 1
            elif want is None and "fd" in seen:
                fds.append((node, seen["fd"], e[1]))
            elif seen != want:
                self.report(f"node {node} opens {prefixed({'path': path}, pre)['path']!r}: {seen}, the model has "
                            f"{want or 'the file'}")

    def play(self, rng, model, pre, count, pick_node, probes=()):
        """`count` operations on `model` (its paths under `pre`), each on the node pick_node()
        names; with `probes` (other directories), a quarter of them are reads of those instead,
        whose answers are not checked beyond their kind (their writers run meanwhile). Some
        hold files open, read and write them through those descriptors later, and close them."""
        fds = []
        for i in range(count):
            node = pick_node()
            if rng.random() < 0.1:
                self.held(rng, model, pre, node, fds)
                continue
            if probes and rng.random() < 0.25:
                cmd = prefixed({"op": rng.choice(["stat", "list", "read"]), "path": rng.choice(DIRS + [""])
                                if rng.random() < 0.3 else f"{rng.choice(DIRS)}/{rng.choice(NAMES)}"},
                               rng.choice(probes))
                seen = self.ask(node, cmd)
                if seen.get("errno", "ENOENT") not in ("ENOENT", "ENOTDIR", "EISDIR"):
                    self.report(f"node {node} {json.dumps(cmd)} answered {json.dumps(seen)} while it changed")
                continue
            cmd = random_cmd(rng)
            seen = self.ask(node, prefixed(cmd, pre))
            if self.full and "ENOSPC" in json.dumps(seen):
                self.refused_op(model, pre, node, cmd, seen, i)
                continue
            allowed = expect(model, cmd)
            if seen not in allowed:
                self.report(f"op {i}: node {node} {json.dumps(prefixed(cmd, pre))} answered {json.dumps(seen)}, "
                            f"the model allows {json.dumps(allowed)}")
        for node, fd, _ in fds:
            self.ask(node, {"op": "close", "fd": fd})

    def refused_op(self, model, pre, node, cmd, seen, i):
        """An answer with ENOSPC (--full): the model as if the operation changed nothing, but for
        the data of the files it wrote, taken from the node; files of a create each as answered."""
        self.refused += 1
        where = f"op {i}: node {node} {json.dumps(prefixed(cmd, pre))}"
        op = cmd["op"]
        if op == "create":
            for (path, size, byte), got in zip(cmd["files"], seen.get("each", [])):
                if got != "ENOSPC":
                    want = expect(model, {"op": "create", "files": [[path, size, byte]]})[0]["each"][0]
                    if got != want:
                        self.report(f"{where}: {path!r} answered {got}, the model allows {want}")
                    continue
                now = self.ask_settled(node, prefixed({"op": "readhex", "path": path}, pre))
                e, _ = model.lookup(path)
                if "hex" in now and e is None and model.parent_error(path) is None:
                    model.new_file(path, 0, 0)  # made, its data cut short
                    model.objects[model.entries[path][1]][0] = bytes.fromhex(now["hex"])
            if "each" not in seen:
                self.report(f"{where} answered {json.dumps(seen)}")
            return
        if seen != {"errno": "ENOSPC"}:
            self.report(f"{where} answered {json.dumps(seen)}")
        if op == "rename":
            s, _ = model.lookup(cmd["src"])
            if s is not None and s[0] == "d" and model.children(cmd["src"]):
                self.split_tree(model, pre, node, cmd["src"], cmd["dst"], where)
        if op in ("write", "append", "truncate"):
            e, err = model.lookup(cmd["path"])
            if e is not None and e[0] == "f":
                now = self.ask_settled(node, prefixed({"op": "readhex", "path": cmd["path"]}, pre))
                if "hex" not in now:
                    self.report(f"{where}: then the file reads as {now}")
                else:
                    model.objects[e[1]][0] = bytes.fromhex(now["hex"])

    def split_tree(self, model, pre, node, src, dst, where):
        """A directory's rename refused halfway leaves each entry below it under the old name or
        the new one (a directory may be at both, each holding part): the model takes where each
        is, and an entry at neither is wrong, as is a file at both."""
        def at(path):
            return "errno" not in self.ask_settled(node, prefixed({"op": "stat", "path": path}, pre))
        for path in sorted(p for p in model.entries if p == src or p.startswith(src + "/")):
            new = dst + path[len(src):]
            e = model.entries[path]
            old_there, new_there = at(path), at(new)
            if not old_there and not new_there:
                self.report(f"{where}: {path!r} is under neither name")
            elif old_there and new_there and e[0] != "d":
                self.report(f"{where}: {path!r} is under both names")
            if new_there:
                if path == src and dst in model.entries:
                    model.drop_name(dst)  # the empty directory it replaced
                model.entries[new] = e
                if not old_there:
                    del model.entries[path]

    def check_end(self, models, private=False):
        """Every node lists every directory of the models and reads every file and symlink (with
        `private`, of its own model only)."""
        for n in self.nodes:
            for pre, model in models.items():
                if private and pre != f"n{n}":
                    continue
                for path, e in sorted(model.entries.items()):
                    cmd = {"op": {"d": "list", "f": "read", "l": "readlink"}[e[0]], "path": path}
                    want = [{"names": model.children(path)}] if e[0] == "d" else expect(model, cmd)
                    seen = self.ask(n, prefixed(cmd, pre))
                    if seen not in want:
                        self.report(f"at the end node {n} {cmd['op']}s {prefixed(cmd, pre)['path']!r} as {seen}, "
                                    f"the model has {want}")

    def close(self):
        for w in self.workers.values():
            w.stdin.close()
            w.wait()


def fill(path, stop, rng):
    """Fills the filesystem `path` is on to its last byte, gives 1-12 MiB of it back, and so on
    until `stop`; then removes `path`."""
    with open(path, "wb", buffering=0) as f:
        while not stop.is_set():
            for size in (1 << 20, 64 << 10, 4096, 512):
                try:
                    while f.write(bytes(size)) == size:
                        pass
                except OSError:
                    pass
            stop.wait(rng.uniform(0.05, 0.4))
            f.truncate(max(0, os.fstat(f.fileno()).st_size - (rng.randint(1, 12) << 20)))
            f.seek(0, os.SEEK_END)
            stop.wait(rng.uniform(0.05, 0.4))
    os.unlink(path)


def main():
    argv = sys.argv[1:]
    fill_dir = None
    if "--full" in argv:
        k = argv.index("--full")
        fill_dir = argv[k + 1] if k + 1 < len(argv) else sys.exit(__doc__)
        del argv[k:k + 2]
    args = [a for a in argv if a not in ("--parallel", "--private", "--restart")]
    private = "--private" in sys.argv
    if len(args) != 4:
        sys.exit(__doc__)
    bbctl, root, count, seed = args[0], args[1], int(args[2]), int(args[3])
    nodes = [0, 1, 2, 3]
    run = Run(bbctl, root, nodes)
    if "--parallel" in sys.argv or private:
        # Each node changes a directory of its own, all at once, and reads the others'.
        models = {f"n{n}": Model() for n in nodes}
        for n in nodes:
            run.ask(n if private else 0, {"op": "mkdir", "path": f"n{n}"})
        threads = [threading.Thread(target=run.play, args=(random.Random(seed * 10 + n), models[f"n{n}"], f"n{n}",
                                                           count, lambda n=n: n, [p for p in models if p != f"n{n}"]))
                   for n in nodes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        # One node at a time, the same one for a few operations.
        rng = random.Random(seed)
        current = [0]

        def pick():
            if rng.random() < 0.3:
                current[0] = rng.choice(nodes)
            return current[0]

        models = {"": Model()}
        if fill_dir:
            # The filler runs the whole time; the end is checked once it stopped and the entries
            # that waited for room on their node (sent again every second) have gone.
            run.full = True
            stop = threading.Event()
            filler = threading.Thread(target=fill, args=(f"{fill_dir}/fill", stop, random.Random(seed)))
            filler.start()
            try:
                run.play(rng, models[""], "", count, pick)
            finally:
                stop.set()
                filler.join()
            time.sleep(3)
            print(f"{run.refused} operations refused with ENOSPC", flush=True)
        elif "--restart" in sys.argv:
            # Half the operations, then a node's daemon killed and started again once what it
            # made has settled: everything answered before is there after, on every node.
            run.play(rng, models[""], "", count // 2, pick)
            time.sleep(0.5)
            victim = str(rng.choice(nodes))
            subprocess.run([bbctl, "emulate", "kill", "--node", victim], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([bbctl, "emulate", "restart", "--node", victim], check=True, stdout=subprocess.DEVNULL)
            print(f"node {victim} restarted after {count // 2} operations", flush=True)
            run.check_end(models)
            run.play(rng, models[""], "", count - count // 2, pick)
        else:
            run.play(rng, models[""], "", count, pick)
    run.check_end(models, private)
    run.close()
    print(f"{count} operations {'per node ' if len(models) > 1 else ''}on {len(nodes)} nodes, {run.wrong} wrong")
    sys.exit(1 if run.wrong else 0)


if __name__ == "__main__":
    main()
