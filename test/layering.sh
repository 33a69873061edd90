#!/usr/bin/env bash
# The dependency graph (docs/architecture.md#layering-rules presents these rules), checked on the
# includes: each library folder includes only from the folders below it. fs/base is the only part of
# fs/ that transport/, qos/ and modeselect/ may use. Tests and test helpers may also include the
# test support of their folder. The corpus's job sources (modeselect/corpus/) are data, not part of
# the graph.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
# folder: the folders it may include from (besides itself)
rules=(
  "fs/base:"
  "transport:fs/base"
  "qos:fs/base"
  "modeselect:fs/base"
  "fs/store:fs/base"
  "fs/core:fs/base fs/store"
  "fs/rpc:fs/base fs/store fs/core transport"
  "fs/fuse:fs/base fs/store fs/core qos"
  "fs/daemon:fs/base fs/store fs/core fs/rpc transport qos"
  "tools/config:fs/base fs/store fs/core fs/daemon qos modeselect"
)
bad=0
for rule in "${rules[@]}"; do
  dir=${rule%%:*}
  allowed="$dir ${rule#*:}"
  while IFS=: read -r file line text; do
    inc=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<< "$text")
    ok=0
    for a in $allowed; do
      case "$inc" in "$a"/*) ok=1 ;; esac
    done
    if [ "$ok" = 0 ]; then
      echo "layering: $file:$line includes $inc ($dir may include only: $allowed)"
      bad=1
    fi
  done < <(git ls-files "$dir" | grep -E '\.(h|cc)$' | grep -v '^modeselect/corpus/' | xargs -r grep -n '#include "' 2>/dev/null)
done
# Only the FUSE adapter includes fuse headers; only transport/ includes UCX; only one file of
# modeselect/ includes curl.
for p in "fuse_lowlevel.h:^fs/fuse/" "ucp/api:^transport/" "curl/curl.h:^modeselect/reason/curl_http.cc$"; do
  pat=${p%%:*}; where=${p#*:}
  out=$(git ls-files '*.h' '*.cc' | xargs grep -ln "#include <$pat" | grep -v -E "$where")
  if [ -n "$out" ]; then echo "layering: $out include <$pat> (only $where may)"; bad=1; fi
done
[ "$bad" = 0 ] && echo "layering: every include follows the dependency graph"
exit $bad
