#!/usr/bin/env bash
# Hostile peers on a 3-node emulated cluster: thousands of junk connections (the 17-byte payload
# that aborted UCX's connection manager, random bytes, small little-endian lengths, zeros, 0xff,
# the handshake's own magic) to every port a daemon listens on; a client without the cluster
# key; a client with the key that claims another node's id. The daemons keep serving, the data
# reads back identical, nobody without the key (or with a forged id) is admitted, and the
# refusals are logged a few lines, not thousands. Needs root. Always tears the cluster down.
set -euo pipefail
bin=${1:?usage: emulated_hostile.sh BUILD_BIN_DIR}
bbctl=$(cd "$bin" && pwd)/bbctl
source "$(dirname "$0")/lib.sh"
cluster_test emulated_hostile

"$bbctl" emulate up --nodes 3 --link-rate 1gbit --root "$root" --mount "$mnt" >/dev/null
check "the cluster key is made per instance, 0600" sh -c "[ \"\$(stat -c %a '$root/hosts.key')\" = 600 ]"
on 0 sh -c "for i in 1 2 3 4 5 6 7 8; do head -c 3000000 /dev/urandom > '$mnt/f'\$i; done"
before=$(on 1 sh -c "cat '$mnt'/f* | md5sum")
ports=$(ip netns exec bbnode0 ss -ltnH | awk '{n = split($4, a, ":"); print a[n]}' | sort -u | paste -sd,)
check "node 0 listens on its gate and UCX's own port only, both on its cluster address ($ports)" \
  sh -c "[ \$(ip netns exec bbnode0 ss -ltnH | wc -l) -eq 2 ] && ! ip netns exec bbnode0 ss -ltnH | grep -v '198.18.0.1:' | grep -q ."

cat > "$tmp/hostile.py" <<'PY'
# junk HOST PORTS N: N junk connections to each port. hello HOST PORT KEYFILE|- ID: the gate's
# handshake as node ID with the key (- = a random key); prints the verdict and the reason.
import hashlib, hmac, os, random, socket, struct, sys, time
def junk(host, ports, n):
    random.seed(7)
    sent = 0
    for port in ports:
        for i in range(n):
            k = i % 6
            p = [b"\0" * 17, os.urandom(random.randint(1, 2048)),
                 struct.pack("<I", random.randint(0, 4096)) + os.urandom(random.randint(0, 256)),
                 b"\0" * random.randint(1, 4096), b"\xff" * random.randint(1, 4096),
                 b"BBA1" + os.urandom(random.randint(0, 300))][k]
            try:
                s = socket.create_connection((host, port), timeout=2)
                s.sendall(p)
                s.close()
                sent += 1
            except OSError:
                pass
    print(sent)
def hello(host, port, keyfile, node, tries=1):
    # Asked to ask again (a claim being checked), it does, up to `tries` times.
    for _ in range(tries):
        answer = hello_once(host, port, keyfile, node)
        if answer[4] != 2:
            break
        time.sleep(0.1)
    if answer[4] == 0:
        print("admitted", len(answer))
    else:
        n = struct.unpack("<I", answer[5:9])[0]
        print("refused", answer[9:9 + n].decode())
def hello_once(host, port, keyfile, node):
    key = os.urandom(32) if keyfile == "-" else bytes.fromhex(open(keyfile).read().strip())
    s = socket.create_connection((host, port), timeout=5)
    ch = b""
    while len(ch) < 36:
        ch += s.recv(36 - len(ch))
    nc, addr = os.urandom(32), b"not a worker address"
    body = struct.pack("<II", node, len(addr)) + addr
    s.sendall(b"BBA1" + nc + body + hmac.new(key, b"bb hello" + ch[4:] + nc + body, hashlib.sha256).digest())
    answer = b""
    while True:
        part = s.recv(4096)
        if not part:
            break
        answer += part
    return answer
if sys.argv[1] == "junk":
    junk(sys.argv[2], [int(p) for p in sys.argv[3].split(",")], int(sys.argv[4]))
else:
    hello(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6]) if len(sys.argv) > 6 else 1)
PY
sent=$(ip netns exec bbnode1 python3 "$tmp/hostile.py" junk 198.18.0.1 "$ports" 2000)
sleep 1
check "$sent junk connections to node 0's ports: every daemon still runs" test "$(pgrep -c -f -- "--root $root/node")" = 3
after=$(on 1 sh -c "cat '$mnt'/f* | md5sum")
check "the data reads back identical from node 1 ($after)" test "$before" = "$after"
on 1 sh -c "head -c 5000000 /dev/urandom > '$mnt/g'"
g1=$(on 1 sh -c "md5sum < '$mnt/g'") g0=$(on 0 sh -c "md5sum < '$mnt/g'")
check "a new file written on node 1 reads back on node 0 ($g0)" sh -c "[ '$g0' = '$g1' ] && [ '$g0' != \"\$(md5sum < /dev/null)\" ]"
lines=$(grep -c 'refused' "$root/node0/bbd.log" || true)
check "the refusals were logged in a few lines, not $sent ($lines)" sh -c "[ '$lines' -ge 1 ] && [ '$lines' -le 12 ]"

no_key=$(ip netns exec bbnode1 python3 "$tmp/hostile.py" hello 198.18.0.1 7070 - 1)
check "a client without the cluster key is refused ($no_key)" sh -c "echo '$no_key' | grep -q '^refused .*key'"
forged=$(ip netns exec bbnode2 python3 "$tmp/hostile.py" hello 198.18.0.2 7070 "$root/hosts.key" 0)
check "a client with the key that claims node 0 from node 2's address is refused by node 1 ($forged)" \
  sh -c "echo '$forged' | grep -q '^refused node 0 does not connect from 198.18.0.3'"
itself=$(ip netns exec bbnode1 python3 "$tmp/hostile.py" hello 198.18.0.1 7070 "$root/hosts.key" 0)
check "...and one that claims to be node 0 to node 0 ($itself)" sh -c "echo '$itself' | grep -q '^refused node 0 is this node'"
# A key holder on node 1's host claiming node 1, while node 1's daemon is alive: node 0 asks node 1
# who it is (a probe of its gate), and refuses the claim; node 1 keeps its session.
own=$(ip netns exec bbnode1 python3 "$tmp/hostile.py" hello 198.18.0.1 7070 "$root/hosts.key" 1 50)
check "a client claiming node 1 from node 1's address, node 1 being alive, is refused ($own)" \
  grep -q '^refused node 1 is alive on another connection' <<<"$own"
after_claim=$(on 1 sh -c "cat '$mnt'/f* | md5sum")
check "node 1 still reads from node 0 after the claim ($after_claim)" test "$after_claim" = "$before"
check "node 0 logged the refused claim" grep -q "claims node 1: node 1 is alive on another connection" "$root/node0/bbd.log"
last=$(on 2 sh -c "cat '$mnt'/f* | md5sum")
check "the cluster still serves after all that (node 2 reads $last)" test "$last" = "$before"
