"""Where runs run. EmulatedCluster: `bbctl emulate` on this host, either built (and torn down)
by the harness or a running one it attaches to and leaves alone. ExternalCluster: the mounts of
a running cluster and a job launcher (e.g. `sbatch --wait` on a real one), with workspaces made
by `bbctl job start`. Each run() has a time limit and leaves nothing of the job running."""
import json
import os
import shlex
import signal
import subprocess
import time

STATE_FILE = "/run/bb-emu/state"
GRACE_S = 120  # past the job's own time limit, what bbctl job run gets to clean up before it is killed


class ClusterError(RuntimeError):
    pass


def _run_limited(cmd, timeout, stdout_path, stderr_path, env=None, cwd=None):
    """Runs cmd in a session of its own with stdout/stderr to files. Returns (exit status,
    seconds, killed). At the limit, and on KeyboardInterrupt, the whole session gets SIGTERM,
    then SIGKILL 10 s later (the interrupt is raised again after that)."""
    t0 = time.monotonic()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
            return rc, time.monotonic() - t0, False
        except subprocess.TimeoutExpired:
            _stop(p)
            return 124, time.monotonic() - t0, True
        except BaseException:
            _stop(p)
            raise


def _stop(p):
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def _last_json_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip()]
    except OSError:
        return None
    for ln in reversed(lines):
        if ln.startswith("{"):
            try:
                return json.loads(ln)
            except ValueError:
                return None
    return None


class EmulatedCluster:
    """bbctl emulate: own=True builds the cluster in start() and removes it in stop(); own=False
    attaches to the one running (and never tears it down)."""

    def __init__(self, bbctl, nodes, link_rate, workdir, own, log=print):
        self.bbctl, self.nodes, self.link_rate, self.workdir, self.own, self.log = bbctl, nodes, link_rate, workdir, own, log
        self.started = False
        self.description = ""

    def _running(self):
        return subprocess.run([self.bbctl, "emulate", "status"], capture_output=True).returncode == 0

    def start(self):
        if not self.own:
            if not self._running():
                raise ClusterError("--attach: no emulated cluster is up (bbctl emulate status failed)")
            self.description = "an emulated cluster that was already running (attached; link rate as it was built)"
            return
        if self._running():
            raise ClusterError("an emulated cluster is already up: use --attach to run on it, or bring it down first "
                               "(the harness never tears down a cluster it did not start)")
        root, mnt = os.path.join(self.workdir, "root"), os.path.join(self.workdir, "mnt")
        self.log(f"harness: bbctl emulate up --nodes {self.nodes} --link-rate {self.link_rate}")
        p = subprocess.run([self.bbctl, "emulate", "up", "--nodes", str(self.nodes), "--link-rate", self.link_rate,
                            "--root", root, "--mount", mnt], capture_output=True, text=True)
        self.started = True  # whatever up left behind, stop() removes
        if p.returncode != 0:
            raise ClusterError(f"bbctl emulate up failed: {p.stderr.strip() or p.stdout.strip()}")
        self.description = f"{self.nodes} emulated nodes, {self.link_rate} links (built by the harness)"

    def _state_root(self):
        """The root of the emulated cluster that is up, from bbctl's state file (tools/bbctl/
        emulate.cc keeps it in /run/bb-emu/state), or None."""
        try:
            with open(STATE_FILE) as f:
                for line in f:
                    if line.startswith("root "):
                        return line.split(" ", 1)[1].strip()
        except OSError:
            return None
        return None

    def stop(self):
        if self.own and self.started:
            self.started = False
            root = self._state_root()
            if root is not None and os.path.abspath(root) != os.path.abspath(os.path.join(self.workdir, "root")):
                # Someone else's cluster replaced ours: never tear that one down.
                self.log(f"harness: the emulated cluster up now ({root}) is not the one the harness started; left up")
                return
            subprocess.run([self.bbctl, "emulate", "down"], capture_output=True)

    def run(self, name, mode_file, nodes, tpn, timeout, profile_path, script, args, raw_dir, env):
        cmd = [self.bbctl, "job", "run", "--name", name, "--mode-file", mode_file, "--nodes", str(nodes),
               "--ntasks-per-node", str(tpn), "--timeout", str(timeout), "--json"]
        if profile_path:
            cmd += ["--profile", profile_path]
        cmd += ["--", script] + list(args)
        out, err = os.path.join(raw_dir, "stdout.txt"), os.path.join(raw_dir, "stderr.txt")
        try:
            rc, seconds, killed = _run_limited(cmd, timeout + GRACE_S, out, err, env=env, cwd=raw_dir)
        except BaseException:
            # Interrupted: the job was stopped; its workspace goes too (on a cluster attached to, it would stay).
            subprocess.run([self.bbctl, "job", "stop", "--name", name], capture_output=True)
            raise
        outcome = _last_json_line(out) or {}
        result = {"command": cmd, "exit_status": outcome.get("exit_status", rc), "timed_out": outcome.get("timed_out", killed),
                  "wall_seconds": outcome.get("wall_seconds", seconds), "job": outcome, "harness_seconds": seconds}
        if killed:
            result["error"] = f"bbctl job run did not return within {timeout + GRACE_S} s; killed"
            subprocess.run([self.bbctl, "job", "stop", "--name", name], capture_output=True)
        elif not outcome:
            result["error"] = f"bbctl job run printed no outcome (exit {rc}): {_tail(err)}"
        elif result["exit_status"] != 0:
            result["error"] = f"job exit status {result['exit_status']}: {_tail(err)}"
        return result


class ExternalCluster:
    """A running cluster's mount point and a launcher command template ({nodes},
    {tasks_per_node}, {timeout} in seconds and {timeout_min} may appear in it; the script and
    its arguments are appended). Each run gets a workspace through `bbctl job start` (with
    --root ROOT when given) and BB_MOUNT=MOUNT/NAME; no profiles."""

    def __init__(self, bbctl, launcher, mount, bbctl_root=None):
        self.bbctl, self.launcher, self.mount, self.root = bbctl, launcher, mount, bbctl_root
        self.description = f"external cluster: launcher {launcher!r}, mount {mount}"
        self.own = False

    def start(self):
        if not os.path.isdir(self.mount):
            raise ClusterError(f"--mount {self.mount}: not a directory")

    def stop(self):
        pass

    def _ctl(self, *args):
        cmd = [self.bbctl, "job"] + list(args) + (["--root", self.root] if self.root else [])
        return subprocess.run(cmd, capture_output=True, text=True)

    def run(self, name, mode_file, nodes, tpn, timeout, profile_path, script, args, raw_dir, env):
        if profile_path:
            return {"exit_status": 1, "timed_out": False, "wall_seconds": 0,
                    "error": "--profile runs need the emulated cluster (bbctl job run)"}
        p = self._ctl("start", "--name", name, "--mode-file", mode_file)
        if p.returncode != 0:
            return {"exit_status": 1, "timed_out": False, "wall_seconds": 0, "error": f"bbctl job start: {p.stderr.strip()}"}
        try:
            launcher = self.launcher.format(nodes=nodes, tasks_per_node=tpn, timeout=timeout,
                                            timeout_min=max(1, (timeout + 59) // 60))
            cmd = shlex.split(launcher) + [script] + list(args)
            env = dict(env, BB_MOUNT=os.path.join(self.mount, name), BB_WORKSPACE=name)
            out, err = os.path.join(raw_dir, "stdout.txt"), os.path.join(raw_dir, "stderr.txt")
            rc, seconds, killed = _run_limited(cmd, timeout, out, err, env=env, cwd=raw_dir)
        finally:
            self._ctl("stop", "--name", name)
        result = {"command": cmd, "exit_status": rc, "timed_out": killed, "wall_seconds": seconds, "job": {}}
        if rc != 0:
            result["error"] = f"job exit status {rc}: {_tail(err)}"
        return result


def remove_workdir(path):
    """Removes a scratch folder a cluster lived in, unless something is still mounted below it."""
    import shutil
    with open("/proc/self/mountinfo") as f:
        if any(f" {path}/" in line or f" {path} " in line for line in f):
            return False
    shutil.rmtree(path, ignore_errors=True)
    return True


def _tail(path, n=3):
    try:
        with open(path, errors="replace") as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])[-400:]
