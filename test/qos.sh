#!/usr/bin/env bash
# QoS through real daemons, real FUSE mounts and the real controller: per-job limits enforced
# by the stage (metadata ops/s and data bytes/s, measured by the stage's own counters over
# 5-second windows: never above the limit, and held back by the stage rather than by the machine,
# which may run slower than the limit while other tests run beside this one; how near the limit a
# bucket admits is checked by qos/token_bucket_test.cc and qos/stage_test.cc on their own clocks),
# an unlimited job beside a limited one, the controller keeping a 2-node
# cluster under Max_R with PSFA, an idle job's share flowing to the busy ones, a controller
# restart, and garbage/bad policies rejected. Needs root and /dev/fuse. Cleans up always.
set -euo pipefail
bin=${1:?usage: qos.sh BUILD_BIN_DIR}
bbctl=$bin/bbctl
tmp=$(mktemp -d /tmp/bb-qos-XXXXXX)
port=$((7600 + RANDOM % 300))
fails=0
pids=()

finish() {
  local rc=$?
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [ -f "$tmp/r1/bbd.lock" ] && kill "$(cat "$tmp/r1/bbd.lock" 2>/dev/null)" 2>/dev/null || true
  "$bbctl" stop --root "$tmp/c" >/dev/null 2>&1 || true
  sleep 0.5
  grep -q " $tmp/m1 " /proc/self/mountinfo && umount -l "$tmp/m1"
  rm -rf "$tmp"
  if [ $rc -eq 0 ] && [ $fails -eq 0 ]; then echo "qos: all passed"; else echo "qos: FAILED"; exit 1; fi
}
trap finish EXIT

source "$(dirname "$0")/lib.sh"
now() { date +%s.%N; }
# units ROOT NODE CLASS JOB...: "UNITS TIME" — what the stage admitted for the jobs so far, and
# the daemon's own clock (s) when it counted, so that rates do not depend on how long bbctl took.
units() {
  local root=$1 node=$2 cls=$3; shift 3
  "$bbctl" stats --root "$root" --node "$node" --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(sum(c["units"] for c in s["qos"]["channels"] if c["job"] in sys.argv[2:] and c["class"] == sys.argv[1]),
      s["time_ns"] / 1e9)' "$cls" "$@"
}
# waited ROOT NODE CLASS JOB...: how many of the jobs' requests waited for tokens so far.
waited() {
  local root=$1 node=$2 cls=$3; shift 3
  "$bbctl" stats --root "$root" --node "$node" --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(sum(c["waited"] for c in s["qos"]["channels"] if c["job"] in sys.argv[2:] and c["class"] == sys.argv[1]))' "$cls" "$@"
}
# rate "UNITS0 TIME0" "UNITS1 TIME1": units per second between two samples.
rate() { python3 -c "import sys; a, t0 = map(float, sys.argv[1].split()); b, t1 = map(float, sys.argv[2].split()); print(round((b - a) / (t1 - t0)))" "$@"; }

# ---- one daemon with static limits: A at 2,000 metadata ops/s, D at 50 MiB/s, B unlimited ----
mkdir -p "$tmp/m1"
cat > "$tmp/bbd.yaml" <<YAML
qos_identity: environment   # these processes name their jobs with BB_JOB_ID
qos_limits:
  A: {metadata: 2000}
  D: {data: 50MiB}
YAML
"$bin/bbd" --root "$tmp/r1" --mount "$tmp/m1" --config "$tmp/bbd.yaml" >/dev/null
mkdir "$tmp/m1/a" "$tmp/m1/b"
BB_JOB_ID=A "$bin/bb-replay" --dir "$tmp/m1/a" --threads 8 --rate 0 --duration 25 > "$tmp/a.csv" 2>/dev/null & pa=$!; pids+=($pa)
BB_JOB_ID=B "$bin/bb-replay" --dir "$tmp/m1/b" --threads 2 --rate 0 --duration 25 > "$tmp/b.csv" 2>/dev/null & pb=$!; pids+=($pb)
sleep 2
a0=$(units "$tmp/r1" 0 metadata A); b0=$(units "$tmp/r1" 0 metadata B); wa0=$(waited "$tmp/r1" 0 metadata A)
sleep 5
a1=$(units "$tmp/r1" 0 metadata A); b1=$(units "$tmp/r1" 0 metadata B)
sleep 5
a2=$(units "$tmp/r1" 0 metadata A); wa2=$(waited "$tmp/r1" 0 metadata A)
kill -TERM $pa $pb 2>/dev/null || true; wait $pa $pb 2>/dev/null || true; pids=()
ra1=$(rate "$a0" "$a1"); ra2=$(rate "$a1" "$a2"); rb=$(rate "$b0" "$b1")
# Never above the limit (5 % for the sampling), and the stage, not the machine, held A back:
# its requests waited for tokens all through the windows.
check "job A limited to 2000 metadata ops/s: $ra1 and $ra2 ops/s in two 5-s windows (at most 2,100)" \
  sh -c "for r in $ra1 $ra2; do [ \$r -gt 0 ] && [ \$r -le 2100 ] || exit 1; done"
check "job A's requests waited for tokens in those windows ($((wa2 - wa0)) of them)" test $((wa2 - wa0)) -gt 0
waited_b=$(waited "$tmp/r1" 0 metadata B)
check "job B, unlimited, ran beside it at $rb ops/s and never waited" test "$rb" -gt 0 -a "$waited_b" = 0


BB_JOB_ID=D timeout 20 dd if=/dev/zero of="$tmp/m1/d.dat" bs=1M count=100000 status=none & pids+=($!)
sleep 2
d0=$(units "$tmp/r1" 0 data D); wd0=$(waited "$tmp/r1" 0 data D)
sleep 5
d1=$(units "$tmp/r1" 0 data D)
sleep 5
d2=$(units "$tmp/r1" 0 data D); wd2=$(waited "$tmp/r1" 0 data D)
kill "${pids[@]}" 2>/dev/null || true; wait "${pids[@]}" 2>/dev/null || true; pids=()
rd1=$(rate "$d0" "$d1"); rd2=$(rate "$d1" "$d2")
check "job D limited to 50 MiB/s: $((rd1 >> 20)) and $((rd2 >> 20)) MiB/s in two 5-s windows (at most 5 % above)" \
  sh -c "for r in $rd1 $rd2; do [ \$r -gt 0 ] && [ \$r -le 55050240 ] || exit 1; done"
check "job D's writes waited for tokens in those windows ($((wd2 - wd0)) of them)" test $((wd2 - wd0)) -gt 0
sleep 1  # writes still waiting for tokens when dd was stopped are answered
read -r d_units _ <<< "$(units "$tmp/r1" 0 data D)"
d_size=$(stat -c %s "$tmp/m1/d.dat")
check "a limited write loses nothing: the file holds every byte the stage admitted ($d_size of $d_units)" \
  test "$d_size" = "$d_units" -a "$d_size" -gt 0
"$bbctl" qos set --root "$tmp/r1" --job A --metadata 0 >/dev/null
check "bbctl qos set 0 lifts the limit" test "$("$bbctl" stats --root "$tmp/r1" --json | python3 -c 'import json,sys; s=json.load(sys.stdin)[0]; print([c["limit"] for c in s["qos"]["channels"] if c["job"]=="A" and c["class"]=="metadata"][0])')" = None
# Requests of the wrong shape on the control socket get an error naming the field; the daemon
# answers the next one.
ctl_reply() {
  python3 -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode() + b"\n")
print(s.makefile().readline().strip())' "$tmp/r1/bbd.sock" "$1"
}
r=$(ctl_reply '{"cmd": "job_start", "name": "w", "mode": "three"}')
check "a control request with a field of the wrong type is refused, naming it ($r)" grep -q "field 'mode'" <<< "$r"
r=$(ctl_reply '{"cmd": "job_start", "name": "w", "mode": 3, "chunk_size": 3000}')
check "a workspace with a chunk size no file may have is refused ($r)" grep -q "chunk size 3000" <<< "$r"
r=$(ctl_reply '{"cmd": "qos_set", "job": "A", "metadata": "fast"}')
check "a QoS rate of the wrong type is refused ($r)" grep -q "field 'metadata' must be a rate" <<< "$r"
check "the daemon answers after them" sh -c "'$bbctl' stats --root '$tmp/r1' >/dev/null"
kill "$(cat "$tmp/r1/bbd.lock")"; sleep 1

# ---- strict job identity (the default): a process cannot pick its job with BB_JOB_ID ----
mkdir -p "$tmp/m2"
printf 'qos_limits:\n  A: {metadata: 200}\n' > "$tmp/strict.yaml"
"$bin/bbd" --root "$tmp/r2" --mount "$tmp/m2" --config "$tmp/strict.yaml" >/dev/null
cg=/sys/fs/cgroup; [ -e "$cg/cgroup.procs" ] && [ -e "$cg/cgroup.max.depth" ] || cg=/sys/fs/cgroup/unified
mkdir -p "$cg/job_4242"
( echo 0 > "$cg/job_4242/cgroup.procs"; BB_JOB_ID=A SLURM_JOB_ID=A exec "$bin/bb-replay" --dir "$tmp/m2" --threads 2 --rate 0 --duration 3 ) >/dev/null 2>&1
jobs_seen=$("$bbctl" stats --root "$tmp/r2" --json | python3 -c 'import json, sys; print(" ".join(sorted({c["job"] for c in json.load(sys.stdin)[0]["qos"]["channels"] if c["ops"] > 0})))')
check "strict identity: a process in Slurm's cgroup of job 4242 that sets BB_JOB_ID=A is counted as job 4242 ($jobs_seen)" \
  test "$jobs_seen" = 4242
kill "$(cat "$tmp/r2/bbd.lock")"; sleep 1
rmdir "$cg/job_4242" 2>/dev/null || true

# ---- the controller: 2 nodes, 3 jobs under PSFA, Max_R 3,000 metadata ops/s ----
cat > "$tmp/policy.yaml" <<YAML
algorithm: psfa
interval_ms: 1000
max_rate: {metadata: 3000, data: 1GiB}
jobs:
  A: {metadata: 2500}
  B: {metadata: 2500}
  C: {metadata: 2500}
YAML
key=$tmp/cluster.key
"$bbctl" key new "$key"
check "bbctl key new writes a 0600 key of 64 hex digits" sh -c "[ \"\$(stat -c %a '$key')\" = 600 ] && grep -Eq '^[0-9a-f]{64}$' '$key'"
"$bin/bb-controller" --policy "$tmp/policy.yaml" --key-file "$key" --listen "127.0.0.1:$port" > "$tmp/controller.log" 2>&1 & ctl=$!; pids+=($ctl)
"$bbctl" start --nodes 2 --root "$tmp/c" --mount "$tmp/cm" --base-port $((port + 400)) -- \
  --qos-controller "127.0.0.1:$port" --rpc-timeout 3000 --qos-identity environment --cluster-key-file "$key" >/dev/null
for n in 0 1; do mkdir -p "$tmp/cm/node$n/w$n"; done
cpids=()
for job in A B C; do
  for n in 0 1; do
    dur=120
    BB_JOB_ID=$job "$bin/bb-replay" --dir "$tmp/cm/node$n/w$n" --threads 3 --rate 0 --duration $dur >/dev/null 2>&1 & pids+=($!)
    [ $job = C ] && cpids+=($!)
  done
done
sleep 4  # the daemons connect and get their first rates
worst=0; over=0; windows=""
p0=$(units "$tmp/c" 0 metadata A B C); p1=$(units "$tmp/c" 1 metadata A B C)
for i in $(seq 8); do
  sleep 1
  c0=$(units "$tmp/c" 0 metadata A B C); c1=$(units "$tmp/c" 1 metadata A B C)
  r=$(( $(rate "$p0" "$c0") + $(rate "$p1" "$c1") ))
  windows+=" $r"
  [ "$r" -gt "$worst" ] && worst=$r
  [ "$r" -gt 3060 ] && over=$((over + 1))
  p0=$c0; p1=$c1
done
check "3 jobs on 2 nodes under PSFA stay at or below Max_R 3000 (+2 %) in every 1-s window:$windows ops/s" test $over = 0 -a $worst -gt 0
# "A+B CYCLES": the rate the controller gives A and B together, and how many cycles it ran.
ab() { "$bbctl" qos status --key-file $key --controller "127.0.0.1:$port" --json | python3 -c '
import json, sys
st = json.load(sys.stdin)
s = {j["job"]: j for j in st["jobs"]}
print(round(s["A"]["rate"]["metadata"] + s["B"]["rate"]["metadata"]), st["cycles"])'; }
read -r before _ <<< "$(ab)"
kill -TERM "${cpids[@]}" 2>/dev/null || true  # job C's work ends: C goes idle
t_idle=$(python3 -c 'import time; print(time.monotonic())')  # the controller's clock too
wait "${cpids[@]}" 2>/dev/null || true
sleep 4  # a few cycles; the controller keeps the rates of its last 16
# Counting the cycles that started after C stopped, the first in which A and B together got
# 5 % more.
moved=$("$bbctl" qos status --key-file $key --controller "127.0.0.1:$port" --json | python3 -c '
import json, sys
t_idle, before = float(sys.argv[1]), float(sys.argv[2])
n = 0
for h in json.load(sys.stdin)["history"]:
    if h["start_s"] <= t_idle:
        continue
    n += 1
    ab = h["metadata"]["A"] + h["metadata"]["B"]
    if ab > before * 1.05:
        print(n, round(ab)); break
else:
    print(99, 0)' "$t_idle" "$before")
read -r cycles after <<< "$moved"
# The first cycle after C stops still sees C's usage of the part of the interval it ran; the
# second sees it idle.
check "when C goes idle its share flows to A and B within two cycles ($before -> $after ops/s in cycle $cycles after)" \
  test "$cycles" -le 2
check "bbctl qos status shows each job's demand, rate and usage" sh -c "'$bbctl' qos status --key-file $key --controller 127.0.0.1:$port | grep -q '^A .*metadata'"

# Garbage on the controller's socket is dropped; the controller goes on.
exec 3<>"/dev/tcp/127.0.0.1/$port"; printf '\xff\xff\xff\xffgarbage' >&3; exec 3>&-
exec 3<>"/dev/tcp/127.0.0.1/$port"; printf '\x00\x00\x00\x03abc' >&3; exec 3>&-
# The cluster key's handshake (fs/base/auth.h) in Python: KEY_HEX "" = a random key.
cat > "$tmp/keyed.py" <<'PY'
import hashlib, hmac, json, os, socket, struct, sys
def connect(port, key_hex):
    key = bytes.fromhex(key_hex) if key_hex else os.urandom(32)
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    ch = b""
    while len(ch) < 36: ch += s.recv(36 - len(ch))
    nc, body = os.urandom(32), struct.pack("<II", 0xffffffff, 0)
    s.sendall(b"BBA1" + nc + body + hmac.new(key, b"bb hello" + ch[4:] + nc + body, hashlib.sha256).digest())
    answer = s.recv(4096)
    return s, answer
frame = lambda o: (lambda b: struct.pack(">I", len(b)) + b)(json.dumps(o).encode())
PY
# ...and so is valid JSON of the wrong shape, from a client with the key: a report whose rate is a string.
PYTHONPATH=$tmp python3 -c '
import sys, keyed
s, answer = keyed.connect(int(sys.argv[1]), open(sys.argv[2]).read().strip())
assert answer[4] == 0, answer
s.sendall(keyed.frame({"type": "hello", "node": "bad"}) + keyed.frame({"type": "report", "usage": {"A": {"metadata": "lots"}}}))
' "$port" "$key"
sleep 0.3
refused=$(PYTHONPATH=$tmp python3 -c '
import sys, keyed
s, answer = keyed.connect(int(sys.argv[1]), "")
s.sendall(keyed.frame({"type": "status"}))
# Nothing more comes: the end of the stream, or a reset (the controller closed with the unread
# status request in its buffer).
try:
    rest = s.recv(100)
except ConnectionResetError:
    rest = b""
print(answer[:5] == b"BBA1\x01" and b"key does not match" in answer and rest == b"")
' "$port")
check "a client without the cluster key is refused by the controller, and gets nothing" test "$refused" = True
check "the controller logged the refusals (at most once per kind and 10 s: $(grep -c refused "$tmp/controller.log") lines)" \
  sh -c "grep -q 'refused.*does not hold the cluster key' '$tmp/controller.log' && [ \$(grep -c refused '$tmp/controller.log') -le 4 ]"
no_key=$("$bbctl" qos status --key-file "$tmp/policy.yaml" --controller 127.0.0.1:$port 2>&1 || true)
check "bbctl with a file that is no key says so ($no_key)" sh -c "echo '$no_key' | grep -q 'cluster key'"
python3 - "$port" <<'PY'
import os, random, socket, struct, sys
random.seed(5)
for i in range(3000):  # the 17 zero bytes, random bytes, small lengths, zeros, 0xff, the handshake's magic
    p = [b"\0" * 17, os.urandom(random.randint(1, 2048)), struct.pack(">I", random.randint(0, 64)) + os.urandom(64),
         b"\0" * random.randint(1, 4096), b"\xff" * random.randint(1, 4096), b"BBA1" + os.urandom(100)][i % 6]
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2); s.sendall(p); s.close()
    except OSError:
        pass
PY
check "garbage (3,000 junk connections too) and reports of the wrong shape are dropped, and the controller keeps running" \
  sh -c "'$bbctl' qos status --key-file $key --controller 127.0.0.1:$port >/dev/null"
# A key holder that sends junk after its handshake, 500 times: dropped, each time.
PYTHONPATH=$tmp python3 -c '
import os, sys, keyed
for i in range(500):
    s, answer = keyed.connect(int(sys.argv[1]), open(sys.argv[2]).read().strip())
    s.sendall(keyed.frame({"type": "no such type"}) if i % 2 else b"\xff\xff\xff\xff" + os.urandom(64))
    s.close()
' "$port" "$key"
lines=$(wc -l < "$tmp/controller.log")
check "3,500 refused or dropped connections from one host wrote a few log lines, not one each ($lines lines)" \
  test "$lines" -le 20
# A bad policy on SIGHUP changes nothing; a good one is taken.
cp "$tmp/policy.yaml" "$tmp/good.yaml"
printf 'algorithm: fifo\nmax_rate: {metadata: 1}\n' > "$tmp/policy.yaml"; kill -HUP $ctl; sleep 0.5
check "a bad policy on reload is rejected, the old one stays ($(grep -c 'not reloaded' "$tmp/controller.log") error logged)" \
  sh -c "'$bbctl' qos status --key-file $key --controller 127.0.0.1:$port --json | grep -q '\"algorithm\": \"psfa\"'"
sed 's/algorithm: psfa/algorithm: proportional/' "$tmp/good.yaml" > "$tmp/policy.yaml"; kill -HUP $ctl; sleep 0.5
check "a good policy on reload is taken" sh -c "'$bbctl' qos status --key-file $key --controller 127.0.0.1:$port --json | grep -q '\"algorithm\": \"proportional\"'"

# The controller dies: the daemons keep their last rates, then reconnect to a new one.
limit_a() { "$bbctl" stats --root "$tmp/c" --node 0 --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print([c["limit"] for c in s["qos"]["channels"] if c["job"]=="A" and c["class"]=="metadata"][0])'; }
kill -9 $ctl
sleep 2.5
l=$(limit_a)
state=$("$bbctl" stats --root "$tmp/c" --node 0 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["qos"]["controller"])')
check "without the controller node 0 keeps limiting A (limit $l ops/s, controller $state)" sh -c "[ '$l' != None ] && [ '$state' = disconnected ]"
# Whoever listens on the controller's address meanwhile, without the key, gets no daemon: it
# cannot prove the key back, so its rates are never taken.
PYTHONPATH=$tmp timeout 4 python3 -c '
import os, socket, struct, sys, keyed
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); srv.bind(("127.0.0.1", int(sys.argv[1]))); srv.listen(8)
srv.settimeout(3.5)
try:
    while True:
        c, _ = srv.accept()
        c.sendall(b"BBA1" + os.urandom(32)); c.recv(4096)
        c.sendall(b"BBA1\0" + struct.pack("<II", 0xffffffff, 0) + os.urandom(32))  # an answer without the key
        c.sendall(keyed.frame({"type": "shares", "interval_ms": 1000, "nodes": 1, "even_share": 0.05, "jobs": {"A": {"metadata": {"rate": 1, "usage": 0}}}}))
except socket.timeout:
    pass
' "$port" & impostor=$!
# The daemons try again every second; on a loaded machine the impostor may take a while to listen.
for _ in $(seq 12); do
  sleep 0.25
  why=$("$bbctl" stats --root "$tmp/c" --node 0 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["qos"].get("controller_error", ""))')
  grep -q 'does not hold the cluster key' <<<"$why" && break
done
wait $impostor || true
check "bbctl stats says why node 0 has no controller ($why)" sh -c "echo '$why' | grep -q 'does not hold the cluster key'"
state=$("$bbctl" stats --root "$tmp/c" --json | python3 -c 'import json,sys; print(" ".join(s["qos"]["controller"] for s in json.load(sys.stdin)))')
l2=$(limit_a)
check "an impostor on the controller's address is not taken for it (daemons $state, A's limit $l -> $l2)" \
  sh -c "[ '$state' = 'disconnected disconnected' ] && [ '$l2' = '$l' ]"
"$bin/bb-controller" --policy "$tmp/good.yaml" --key-file "$key" --listen "127.0.0.1:$port" >> "$tmp/controller.log" 2>&1 & ctl=$!; pids+=($ctl)
sleep 3
state=$("$bbctl" stats --root "$tmp/c" --json | python3 -c 'import json,sys; print(" ".join(s["qos"]["controller"] for s in json.load(sys.stdin)))')
check "both daemons reconnect to the restarted controller ($state)" test "$state" = "connected connected"
check "the daemons' logs say when they lost the controller and when they connected again" \
  sh -c "grep -q 'qos: lost the controller at 127.0.0.1:$port' '$tmp/c/node0/bbd.log' &&
         grep -q 'qos: connected again to the controller at 127.0.0.1:$port' '$tmp/c/node0/bbd.log'"
check "a controller that cannot be reached is logged once per reason, not once a second ($(grep -c 'cannot reach the controller' "$tmp/c/node0/bbd.log") lines)" \
  test "$(grep -c 'cannot reach the controller' "$tmp/c/node0/bbd.log")" -le 4
kill -TERM "${pids[@]}" 2>/dev/null || true
