#!/usr/bin/env bash
# The dependency graph (docs/architecture.md#layering-rules presents these rules), checked on the
# includes: each library folder includes only from the folders below it. fs/base is the only part of
# fs/ that transport/, qos/ and modeselect/ may use. Tests and test helpers may also include the
# test support of their folder. The corpus's job sources (modeselect/corpus/) are data, not part of
# the graph.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
# folder: the folders it may include from (besides itself). A file follows the rule of the
# longest folder that holds it: fs/core's wings (docs/architecture.md#the-code-map) each include
# only the wings below them, and only the facade (fs/core/file_system.*, fs/core/ops/) includes
# them all; no wing includes the facade or its private fs/core/ops/inode.h.
rules=(
  "fs/base:"
  "transport:fs/base"
  "qos:fs/base"
  "modeselect:fs/base"
  # modeselect/static's parts: the shell, the command lines of launchers and benchmarks, the
  # languages' tokenizers and models, the source scanners over them, and the job script's reading
  # over all three; extract.* at the top assembles them.
  "modeselect/static/shell:fs/base modeselect/static/text.h"
  "modeselect/static/cmdline:fs/base modeselect/findings.h modeselect/static/text.h modeselect/static/finding_set.h modeselect/static/test_util.h"
  "modeselect/static/lang:fs/base modeselect/findings.h modeselect/static/text.h modeselect/static/finding_set.h modeselect/static/test_util.h"
  "modeselect/static/scan:fs/base modeselect/findings.h modeselect/static/text.h modeselect/static/finding_set.h modeselect/static/test_util.h modeselect/static/lang"
  "modeselect/static/job:fs/base modeselect/findings.h modeselect/static/text.h modeselect/static/finding_set.h modeselect/static/test_util.h modeselect/static/files.h modeselect/static/shell modeselect/static/cmdline modeselect/static/lang"
  "fs/store:fs/base"
  "fs/core/placement:fs/base fs/store"
  "fs/core/observe:fs/base fs/store fs/core/placement"
  "fs/core/locks:fs/base"
  "fs/core/service:fs/base fs/store fs/core/placement fs/core/observe fs/core/locks"
  "fs/core/data:fs/base fs/store fs/core/placement fs/core/observe fs/core/locks fs/core/service"
  "fs/core/creates:fs/base fs/store fs/core/placement fs/core/observe fs/core/locks fs/core/service fs/core/data"
  "fs/core/coherence:fs/base fs/store fs/core/placement fs/core/observe fs/core/locks fs/core/service fs/core/data fs/core/creates"
  "fs/core:fs/base fs/store fs/core"
  "fs/rpc:fs/base fs/store fs/core transport"
  "fs/fuse:fs/base fs/store fs/core qos"
  "fs/daemon:fs/base fs/store fs/core fs/rpc transport qos"
  "tools/config:fs/base fs/store fs/core fs/daemon qos modeselect"
  # bbctl's three parts share only the commands (cluster.h) and proc.h, never each other.
  "tools/bbctl/admin:fs tools/config tools/stage tools/cli tools/jobs qos transport tools/bbctl/cluster.h tools/bbctl/proc.h"
  "tools/bbctl/emulator:fs tools/config tools/jobs tools/cli tools/bbctl/cluster.h tools/bbctl/proc.h"
  "tools/bbctl/slurm:fs tools/config tools/jobs tools/cli tools/bbctl/cluster.h tools/bbctl/proc.h"
)
# Tests of a wing that run it inside whole file systems may also include the facade's test
# support (these two headers; never the facade's private state).
test_support="fs/core/test_cluster.h fs/core/file_system.h"
# The rule of `file`: the longest rule folder that holds it (empty when none does).
rule_of() {
  local file=$1 best="" r d
  for r in "${rules[@]}"; do
    d=${r%%:*}
    case "$file" in "$d"/*) [ ${#d} -gt ${#best} ] && best=$d ;; esac
  done
  echo "$best"
}
declare -A allowed_of
for r in "${rules[@]}"; do allowed_of[${r%%:*}]="${r%%:*} ${r#*:}"; done
bad=0
while IFS=: read -r file line text; do
  dir=$(rule_of "$file")
  [ -n "$dir" ] || continue
  inc=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<< "$text")
  ok=0
  for a in ${allowed_of[$dir]}; do
    case "$inc" in "$a" | "$a"/*) ok=1 ;; esac
  done
  if [ "$ok" = 0 ] && [[ "$file" == *_test.cc ]]; then
    for t in $test_support; do [ "$inc" = "$t" ] && ok=1; done
  fi
  if [ "$ok" = 0 ]; then
    echo "layering: $file:$line includes $inc ($dir may include only: ${allowed_of[$dir]})"
    bad=1
  fi
done < <(git ls-files '*.h' '*.cc' | grep -v '^modeselect/corpus/' | grep -v '^modeselect/heldout/' |
         xargs -r grep -n '#include "' 2>/dev/null)
# Only the FUSE adapter includes fuse headers; only transport/ includes UCX; only one file of
# modeselect/ includes curl.
for p in "fuse_lowlevel.h:^fs/fuse/" "ucp/api:^transport/" "curl/curl.h:^modeselect/reason/curl_http.cc$"; do
  pat=${p%%:*}; where=${p#*:}
  out=$(git ls-files '*.h' '*.cc' | xargs grep -ln "#include <$pat" | grep -v -E "$where")
  if [ -n "$out" ]; then echo "layering: $out include <$pat> (only $where may)"; bad=1; fi
done
[ "$bad" = 0 ] && echo "layering: every include follows the dependency graph"
exit $bad
