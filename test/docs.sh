#!/usr/bin/env bash
# The docs check: what the Markdown pages and the code comments cite exists, and the README
# stays a front page. It fails when
#   (a) a repository path that a Markdown file or a code comment cites does not exist, or its
#       #section names no heading of that Markdown file;
#   (b) a doc or comment still cites the design brief, which lives outside the repository
#       (docs/architecture.md is the architecture page that comments cite);
#   (c) the README's two commands are not the ones CI runs (.ci/run's exec line, tools/test.sh)
#       and the demo (tools/demo.sh);
#   (d) README.md is longer than 300 lines.
#
# What counts as a cited path (the matcher is deliberately simple):
#   - in Markdown, outside fenced code blocks: a backticked span with no blanks that contains a
#     '/' (`fs/core/placement/layout.h`, `docs/<page>.md#<section>`, `results/modes.md`), and the target of a
#     link [text](target);
#   - in code comments (after // in .h/.cc; after a # that starts a comment in .sh, .py, .yaml
#     and CMake files): the same backticked spans, and bare docs/<page>.md#<section> citations.
# A backticked span is a repository path when its first component names an entry of the
# repository's top folder (read from there) or of the citing file's folder (read from there);
# anything else (`chunks/<id>`, `MNT/q`) is a name in the text, not a citation. A link is read
# from the citing file's folder. Left out: URLs, absolute paths (/tmp, /etc, ...), anything with
# a $VARIABLE, ~, a <placeholder>, a * or {...}, and generated paths (build*/). A :LINE suffix
# and trailing punctuation are dropped. Recorded results (bench/results/) cite scripts as they
# were run then, and the corpora and test data are data: their files are not scanned.
#
# Usage: test/docs.sh [REPO]   (ctest runs it as "docs"). Exit 0 when clean, 1 naming each fault.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}" || exit 1
bad=0
fail() {
  echo "docs: $*"
  bad=1
}

# Tracked files and new ones not ignored, so that a page counts before its commit.
all_files=$(git ls-files --cached --others --exclude-standard | sort -u)
data='^(bench/results|modeselect/corpus|test/fuzz/corpus)/|(^|/)testdata/'
md_files=$(grep -E '\.md$' <<< "$all_files" | grep -v -E "$data")
code_files=$(grep -E '\.(h|cc|sh|py|ya?ml|cmake)$|(^|/)CMakeLists\.txt$' <<< "$all_files" | grep -v -E "$data")

# Headings of a Markdown file as GitHub makes their anchors: lower case, punctuation dropped,
# blanks as '-'.
anchors() {
  awk '/^[ \t]*```/ { fence = !fence; next }
       !fence && /^#+ / { h = $0; sub(/^#+ +/, "", h); h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h);
                          gsub(/ /, "-", h); print h }' "$1"
}

# Prints "FILE<tab>KIND<tab>TOKEN" for every citation in Markdown files (KIND tick or link).
md_citations() {
  awk 'FNR == 1 { fence = 0 }
       /^[ \t]*```/ { fence = !fence; next }
       fence { next }
       { line = $0
         while (match(line, /`[^`]+`/)) {
           print FILENAME "\ttick\t" substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) }
         line = $0
         while (match(line, /\]\([^) ]+\)/)) {
           print FILENAME "\tlink\t" substr(line, RSTART + 2, RLENGTH - 3); line = substr(line, RSTART + RLENGTH) } }' "$@"
}

# The same for code comments: backticked spans and bare docs/<page>.md#<section> citations.
comment_citations() {
  awk 'function cite(text) {
         line = text
         while (match(line, /`[^`]+`/)) {
           print FILENAME "\ttick\t" substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) }
         line = text
         while (match(line, /docs\/[A-Za-z0-9_.-]+\.md(#[A-Za-z0-9_-]+)?/)) {
           tok = substr(line, RSTART, RLENGTH); before = substr(line, RSTART - 1, 1)
           if (before != "`" && before != "/") print FILENAME "\ttick\t" tok
           line = substr(line, RSTART + RLENGTH) } }
       FILENAME ~ /\.(h|cc)$/ { i = index($0, "//"); if (i) cite(substr($0, i + 2)); next }
       { if (match($0, /(^|[ \t])#/)) cite(substr($0, RSTART + RLENGTH)) }' "$@"
}

# Checks citations ("FILE<tab>KIND<tab>TOKEN" lines on stdin) against the files of the tree
# (FILES: one path a line) and the headings of its Markdown files (ANCHORS: "FILE<tab>anchor"
# lines); prints one line per fault. All in one awk: no process per citation.
check() {
  awk -F'\t' -v files="$1" -v anchors="$2" '
    function norm(p,   n, i, k, part, out) {  # a/./b/../c -> a/c; "" when it leaves the tree
      n = split(p, part, "/"); k = 0
      for (i = 1; i <= n; i++) {
        if (part[i] == "" || part[i] == ".") continue
        if (part[i] == "..") { if (k == 0) return ""; k--; continue }
        out[++k] = part[i]
      }
      p = ""
      for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
      return p
    }
    function exists(p) { return (p in file) || (p in folder) }
    BEGIN {
      while ((getline line < files) > 0) {
        file[line] = 1; top[line] = 1
        n = split(line, part, "/"); p = ""
        for (i = 1; i < n; i++) { p = p (i > 1 ? "/" : "") part[i]; folder[p] = 1; if (i == 1) top[p] = 1 }
      }
      while ((getline line < anchors) > 0) heading[line] = 1
    }
    {
      src = $1; kind = $2; tok = $3
      dir = src; if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
      sub(/[.,;:)]+$/, "", tok)
      sub(/:[0-9]+(-[0-9]+)?$/, "", tok)
      if (tok == "" || tok ~ /:\/\/|^mailto:|^\/|[$~<>*{} ]/) next
      path = tok; anchor = ""
      if ((i = index(tok, "#")) > 0) { path = substr(tok, 1, i - 1); anchor = substr(tok, i + 1) }
      if (kind == "link") {
        full = (path == "") ? src : norm((dir == "" ? "" : dir "/") path)
        if (full == "") { print src " cites " tok ": it leaves the repository"; next }
      } else {
        sub(/^\.\//, "", path)
        if (path !~ /\// || path !~ /^[A-Za-z0-9_.@+-]+(\/[A-Za-z0-9_.@+-]+)*\/?$/) next
        first = path; sub(/\/.*/, "", first)
        if (first in top) full = norm(path)
        else if (dir != "" && exists(dir "/" first)) full = norm(dir "/" path)
        else next
      }
      if (full ~ /^build(-[^\/]*)?(\/|$)/) next
      if (!exists(full)) { print src " cites " tok ": no such path"; next }
      if (anchor != "" && full ~ /\.md$/ && !((full "\t" anchor) in heading))
        print src " cites " tok ": " full " has no heading #" anchor
    }'
}

# "FILE<tab>anchor" for every heading of the Markdown files named.
all_anchors() {
  local f
  for f in "$@"; do anchors "$f" | sed "s|^|$f\t|"; done
}

# The matcher on known lines first, so that the check itself can be seen to fail: each case is
# a line, the file it is written in, and how many faults it must yield.
self_test() {
  local tmp ok=1
  tmp=$(mktemp -d)
  printf 'docs/page.md\nsrc/real.h\nREADME.md\nsrc/x.cc\nsrc/x.sh\n' > "$tmp/files"
  printf 'docs/page.md\ttop\ndocs/page.md\ta-section\n' > "$tmp/anchors"
  local cases=(
    "README.md|see \`src/real.h\` and [page](docs/page.md#a-section)|0"
    "README.md|see \`src/gone.h\`|1"
    "README.md|see [page](docs/page.md#no-such-section)|1"
    "README.md|see [gone](docs/gone.md) and \`docs/page.md#top\`|1"
    "README.md|not paths: \`/tmp/x/y\`, \`\$BB_MOUNT/in\`, \`chunks/<id>/0\`, \`build/bin/bbd\`, [site](https://x.org/a/b)|0"
    "README.md|\`src/real.h:12\`, \`src/real.h\`., [up](../outside.md)|1"
    "docs/page.md|[back](../README.md), [here](#a-section), [there](#nowhere)|1"
    "src/x.cc|// as docs/page.md#a-section says|0"
    "src/x.cc|// as docs/page.md#gone says|1"
    "src/x.cc|// see \`src/nothing.cc\`|1"
    "src/x.sh|# see docs/nothing.md|1"
  )
  local c f line want got
  for c in "${cases[@]}"; do
    f=${c%%|*}
    line=${c#*|}
    want=${line##*|}
    line=${line%|*}
    mkdir -p "$tmp/tree/$(dirname "$f")"
    printf '%s\n' "$line" > "$tmp/tree/$f"
    got=$(
      cd "$tmp/tree" || exit
      if [[ $f == *.md ]]; then md_citations "$f"; else comment_citations "$f"; fi |
        check "$tmp/files" "$tmp/anchors" | grep -c .
    )
    if [ "$got" != "$want" ]; then
      echo "docs: self-test: '$line' in $f gave $got faults, expected $want"
      ok=0
    fi
    rm -f "$tmp/tree/$f"
  done
  rm -rf "$tmp"
  [ "$ok" = 1 ]
}
self_test || bad=1

# (a) Cited paths.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%s\n' "$all_files" > "$scratch/files"
# The file lists are newline-separated paths without blanks: split on purpose (SC2086).
# shellcheck disable=SC2086
all_anchors $md_files > "$scratch/anchors"
# shellcheck disable=SC2086
while IFS= read -r fault; do fail "$fault"; done < <(
  {
    md_citations $md_files
    comment_citations $code_files
  } | sort -u | check "$scratch/files" "$scratch/anchors"
)

# (b) The design brief is not in the repository: nothing may cite it.
design='DESIGN[.]md'
# shellcheck disable=SC2086
while IFS= read -r hit; do fail "$hit cites the design brief; cite docs/architecture.md and a section"; done < <(
  grep -n -I -E "$design" $md_files $code_files 2> /dev/null | cut -d: -f1,2
)

# (c) The README's two commands: what CI runs and the demo.
ci=$(awk '$1 == "exec" { print $2 }' .ci/run)
[ "$ci" = ./tools/test.sh ] || fail ".ci/run runs '$ci', not ./tools/test.sh"
for cmd in ./tools/demo.sh "$ci"; do
  [ -x "$cmd" ] || fail "$cmd is not an executable file"
  grep -q -E "^${cmd//./[.]}( |$)" README.md || fail "README.md does not give the command $cmd"
done

# (d) The README is a front page.
lines=$(wc -l < README.md)
[ "$lines" -le 300 ] || fail "README.md has $lines lines (at most 300: move the detail into docs/)"

[ "$bad" = 0 ] && echo "docs: every cited path exists, no page cites the design brief, the README's commands are CI's and the demo's, README.md has $lines lines"
exit $bad
