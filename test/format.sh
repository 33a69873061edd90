#!/usr/bin/env bash
# The tree is formatted: clang-format (.clang-format at the root) would change none of the
# project's C++ files. Test data and the corpus's job sources are data, not ours to format.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
command -v clang-format >/dev/null || { echo "format: clang-format is not installed (apt-get install clang-format)"; exit 1; }
files=$(git ls-files '*.h' '*.cc' | grep -v -E '(^|/)testdata/|^modeselect/(corpus|heldout)/')
if clang-format --dry-run -Werror $files 2> /tmp/bb-format.$$; then
  echo "format: $(echo "$files" | wc -l) files as clang-format writes them"
  rm -f /tmp/bb-format.$$
  exit 0
fi
grep -E '^[^ ].*error:' /tmp/bb-format.$$ | cut -d: -f1 | sort -u | sed 's/^/format: not formatted: /'
echo "format: run clang-format -i on them"
rm -f /tmp/bb-format.$$
exit 1
