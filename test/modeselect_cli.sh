#!/usr/bin/env bash
# bb-modeselect as a user runs it: the example job decided from its script alone and with a
# probe profile, the mode file it writes, JSON output, every missing or malformed input an
# error naming it (exit 2), the LLM reasoner against the stub server (a decision, a refusal
# falling back to mode 3, a server that never answers cut off by the deadline, no server at
# all), and the corpus evaluation on a small labelled set. No root, no cluster.
set -uo pipefail
bin=${1:?usage: modeselect_cli.sh BUILD_BIN_DIR SOURCE_DIR}
src=${2:?usage: modeselect_cli.sh BUILD_BIN_DIR SOURCE_DIR}
sel=$bin/bb-modeselect
tmp=$(mktemp -d /tmp/bb-modeselect-XXXXXX)
fails=0
stub_pid=

finish() {
  local rc=$?
  [ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null
  rm -rf "$tmp"
  if [ $rc -eq 0 ] && [ $fails -eq 0 ]; then echo "modeselect_cli: all passed"; else echo "modeselect_cli: FAILED"; exit 1; fi
}
trap finish EXIT
source "$(dirname "$0")/lib.sh"

job=$src/configs/examples/checkpoint-restart/job.sh
probe=$src/modeselect/profile/testdata/probe_example.json
# field JSON KEY: one key of a JSON object
field() { /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
# fails_with CODE PATTERN cmd...: the command exits CODE and its stderr matches PATTERN
fails_with() {
  local code=$1 pattern=$2; shift 2
  "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  [ $rc -eq "$code" ] && grep -q -- "$pattern" "$tmp/err" || { echo "  exit $rc: $(cat "$tmp/err")"; return 1; }
}

# ---- the example job: script alone, then with its probe profile ----
out=$("$sel" --job "$job" --json)
check "script alone: JSON with a mode 1-4 and every key" /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1])
keys = {"selected_mode", "confidence", "io_topology", "primary_reason", "risk_analysis", "evidence", "scores",
        "selected_by", "rules_fired", "elapsed_ms"}
sys.exit(0 if keys <= d.keys() and d["selected_mode"] in (1, 2, 3, 4) and 0 <= d["confidence"] <= 1 else 1)' "$out"
check "script alone: evidence cites job.sh lines" /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1]); sys.exit(0 if any(e["file"].endswith("job.sh") and e["line"] > 0 for e in d["evidence"]) else 1)' "$out"
out=$("$sel" --job "$job" --profile "$probe" --json --out "$tmp/mode.yaml")
mode=$(field "$out" selected_mode)
check "with the probe profile: mode $mode, by $(field "$out" selected_by)" test "$(field "$out" selected_by)" != fallback
check "the mode file says mode $mode and who chose it" sh -c "grep -qx 'mode: $mode' '$tmp/mode.yaml' && grep -q '^selected_by: rules' '$tmp/mode.yaml'"
check "the evidence includes profile signals" /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1]); sys.exit(0 if any(e["finding"].startswith("profile.") for e in d["evidence"]) else 1)' "$out"
"$sel" --job "$job" --profile "$probe" --explain > "$tmp/explain.txt"
check "--explain prints scores, rules and the decision time" sh -c "grep -q '^  scores: 1=' '$tmp/explain.txt' && grep -q '^  rules fired: ' '$tmp/explain.txt' && grep -q 'decided in' '$tmp/explain.txt'"
check "--list-facts and --list-signals list the tables" sh -c "'$sel' --list-facts | grep -q '^launch' && '$sel' --list-signals | grep -q '^profile\.'"

# ---- bad input: exit 2 naming what is wrong ----
check "a missing job script is named" fails_with 2 "/no/such/job.sh" "$sel" --job /no/such/job.sh
check "a missing profile is named" fails_with 2 "$tmp/none.json" "$sel" --job "$job" --profile "$tmp/none.json"
check "a profile of the wrong version is refused naming the field" \
  fails_with 2 "version" "$sel" --job "$job" --profile "$src/modeselect/profile/testdata/probe_bad_version.json"
printf 'not darshan\n' > "$tmp/garbage.txt"
check "garbage as a Darshan log is refused naming the file" fails_with 2 "$tmp/garbage.txt" "$sel" --job "$job" --darshan "$tmp/garbage.txt"
check "--profile and --darshan together are refused" fails_with 2 "excludes" "$sel" --job "$job" --profile "$probe" --darshan "$probe"
check "an unknown reasoner is refused" fails_with 2 "rules, llm or auto" "$sel" --job "$job" --reasoner magic
mkdir -p "$tmp/kb" && cp "$src"/configs/modeselect/*.yaml "$tmp/kb/" && printf 'rules:\n  - name: x\n    typo: 1\n' > "$tmp/kb/rules.yaml"
check "a knowledge base with an unknown field is refused naming file and field" fails_with 2 "rules.yaml:2: unknown field" "$sel" --job "$job" --kb "$tmp/kb"
check "a missing knowledge base folder is named" fails_with 2 "$tmp/nokb" "$sel" --job "$job" --kb "$tmp/nokb"

# ---- the LLM reasoner against the stub server ----
coproc STUB { exec /usr/bin/python3 "$src/test/llm_stub.py" 0; }
stub_pid=$STUB_PID
read -r -t 10 word port <&"${STUB[0]}"
check "the stub LLM server listens ($word $port)" test "$word" = PORT
url=http://127.0.0.1:$port/v1
out=$("$sel" --job "$job" --reasoner llm --llm-url "$url" --llm-model good-2 --json)
check "the LLM's valid answer is the decision (mode 2 by llm)" \
  test "$(field "$out" selected_mode)/$(field "$out" selected_by)" = 2/llm
printf '#!/bin/bash\n#SBATCH -N 2\nsrun hostname\n' > "$tmp/quiet.sh"
out=$("$sel" --job "$tmp/quiet.sh" --reasoner auto --llm-url "$url" --llm-model good-2 --json)
check "auto: the rules abstain on a job without I/O, so the LLM decides (mode 2 by llm)" \
  sh -c 'test "$1" = 2/llm && echo "$2" | grep -q "rules abstain"' _ \
  "$(field "$out" selected_mode)/$(field "$out" selected_by)" "$(field "$out" primary_reason)"
before=$(/usr/bin/python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))["with_schema"])' "http://127.0.0.1:$port/stats")
out=$("$sel" --job "$job" --profile "$probe" --reasoner auto --llm-url "$url" --llm-model good-2 --json)
after=$(/usr/bin/python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))["with_schema"])' "http://127.0.0.1:$port/stats")
check "auto: the rules decide the example job with its profile and the LLM is not asked" \
  test "$(field "$out" selected_by)/$before" = "rules/$after"
out=$("$sel" --job "$job" --reasoner llm --llm-url "$url" --llm-model schema-break-mode7 --json)
check "an answer outside the schema falls back to mode 3" \
  test "$(field "$out" selected_mode)/$(field "$out" selected_by)" = 3/fallback
start=$(date +%s)
out=$("$sel" --job "$job" --reasoner llm --llm-url "$url" --llm-model never --llm-timeout 2 --json)
took=$(($(date +%s) - start))
check "a server that never answers: fallback to mode 3 after the 2 s deadline (took ${took}s)" \
  test "$(field "$out" selected_mode)/$(field "$out" selected_by)" = 3/fallback -a "$took" -lt 30
kill "$stub_pid" 2>/dev/null; wait "$stub_pid" 2>/dev/null; stub_pid=
out=$("$sel" --job "$job" --reasoner llm --llm-url "$url" --llm-model good-2 --llm-timeout 5 --json)
got=$(field "$out" selected_mode)/$(field "$out" selected_by)
reason=$(field "$out" primary_reason)
check "no server at all: fallback to mode 3 with the reason ($reason)" \
  sh -c 'test "$1" = 3/fallback && echo "$2" | grep -qiE "llm|connect|http"' _ "$got" "$reason"

# ---- the evaluation on a labelled corpus of two jobs ----
mkdir -p "$tmp/corpus/a" "$tmp/corpus/b" "$tmp/corpus/c"
cp -r "$src/configs/examples/checkpoint-restart/." "$tmp/corpus/a/"
cp -r "$src/configs/examples/checkpoint-restart/." "$tmp/corpus/b/"
cp -r "$src/configs/examples/checkpoint-restart/." "$tmp/corpus/c/"
mkdir -p "$tmp/corpus/oracle" && cp "$probe" "$tmp/corpus/oracle/a.profile.json"
cat > "$tmp/corpus/oracle/labels.json" <<JSON
{"jobs": {"a": {"label": $mode, "ties": [$mode]}, "b": {"label": 1, "ties": [1]}}}
JSON
"$sel" eval --corpus "$tmp/corpus" --json > "$tmp/eval.json" 2> "$tmp/eval.err"
check "eval reads labelled jobs, leaves out the unlabelled one and names it" sh -c \
  "grep -q 'c has no label' '$tmp/eval.err' && /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; sys.exit(0 if d[\"cases\"]==2 else 1)' '$tmp/eval.json'"
check "eval: job a (with its profile) is right, job b (label 1) is wrong" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))[0]; ok = {c["name"]: c["correct"] for c in d["results"]}
sys.exit(0 if ok == {"a": True, "b": False} else 1)' "$tmp/eval.json"
printf '{"jobs": {"a": {"label": 7}}}' > "$tmp/corpus/oracle/labels.json"
check "a label that is not a mode is refused naming the job" fails_with 2 '"a"\|a:\| a ' "$sel" eval --corpus "$tmp/corpus"
