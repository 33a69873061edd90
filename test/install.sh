#!/usr/bin/env bash
# The package: cpack builds the .deb from BUILD_DIR; its files are unpacked into an empty root
# (dpkg-deb -x: what dpkg would put on a node) and, in a mount namespace of their own where the
# source tree and the build folder are hidden under empty tmpfs mounts, the installed programs
# run from there: a one-node mount with a file written and read back, bb-modeselect on the
# example job (so with the installed knowledge base, not the source tree's), the Slurm hooks
# from libexec/ finding their bbctl, and the man pages. The package must depend on runtime
# libraries only. Needs root and /dev/fuse; cleans up always.
set -uo pipefail
build=$(cd "${1:?usage: install.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/bb-install-XXXXXX)
fails=0
finish() {
  local rc=$?
  [ -x "$tmp/root/usr/bin/bbctl" ] && "$tmp/root/usr/bin/bbctl" stop --root "$tmp/r" >/dev/null 2>&1
  rm -rf "$tmp"
  if [ $rc -eq 0 ] && [ $fails -eq 0 ]; then echo "install: all passed"; else echo "install: FAILED"; exit 1; fi
}
trap finish EXIT
bbctl=/bin/false
source "$src/test/lib.sh"

(cd "$build" && cpack -G DEB >"$tmp/cpack.log" 2>&1) || { tail -20 "$tmp/cpack.log"; exit 1; }
deb=$(ls "$build"/package/bbfs_*.deb | head -1)
[ -f "$deb" ] || { echo "no .deb in $build/package"; exit 1; }
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"
depends=$(dpkg-deb -f "$deb" Depends)
echo "depends: $depends"
check "the package depends on FUSE, LevelDB and UCX's runtime libraries" \
  sh -c "echo '$depends' | grep -q libfuse3-3 && echo '$depends' | grep -q libleveldb && echo '$depends' | grep -q libucx0"
check "and on no build or test package" sh -c "! echo '$depends' | grep -E -q -- '-dev|slurm|munge|catch2|cmake'"
mkdir -p "$tmp/root"
dpkg-deb -x "$deb" "$tmp/root"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' > "$tmp/contents"
for f in /usr/bin/bbd /usr/bin/bbctl /usr/bin/bb-controller /usr/bin/bb-modeselect /usr/bin/bb-replay \
         /usr/libexec/bbfs/bb-prolog /usr/libexec/bbfs/bb-epilog /usr/libexec/bbfs/bb-task-prolog \
         /usr/share/bbfs/modeselect/rules.yaml /usr/share/bbfs/slurm/bb-hook.sh /usr/share/bbfs/examples/bbd.yaml \
         /usr/share/man/man1/bbd.1.gz /usr/share/man/man1/bbctl.1.gz /usr/lib/systemd/system/bbd@.service; do
  check "the package holds $f" grep -qx "$f" "$tmp/contents"
done
check "its programs are stripped" sh -c "! file -L '$tmp/root/usr/bin/bbd' | grep -q 'not stripped'"
cp -r "$src/configs/examples/checkpoint-restart" "$tmp/job"

# Everything below runs where the source tree and the build cannot be seen.
cat > "$tmp/inside.sh" <<INNER
set -uo pipefail
fails=0
source "$tmp/lib.sh"
bbctl=$tmp/root/usr/bin/bbctl
check "the source tree is hidden" sh -c "[ ! -e '$src/configs/modeselect/rules.yaml' ]"
check "bbd --version runs from the installed root" "$tmp/root/usr/bin/bbd" --version
"\$bbctl" start --nodes 1 --root "$tmp/r" --mount "$tmp/m" >/dev/null
echo installed > "$tmp/m/node0/hello"
check "a one-node mount of the installed bbd keeps a file" grep -qx installed "$tmp/m/node0/hello"
"\$bbctl" stop --root "$tmp/r" >/dev/null
check "bb-modeselect decides the example job with the installed knowledge base" \
  sh -c "'$tmp/root/usr/bin/bb-modeselect' --job '$tmp/job/job.sh' --nodes 4 --out '$tmp/mode.yaml' >/dev/null && grep -q '^mode:' '$tmp/mode.yaml'"
check "bb-modeselect without a knowledge base names where it looked" \
  sh -c "cp '$tmp/root/usr/bin/bb-modeselect' '$tmp/lone' && ! '$tmp/lone' --job '$tmp/job/job.sh' --out '$tmp/x.yaml' 2>'$tmp/lone.err'; grep -q 'no knowledge base: none of' '$tmp/lone.err'"
check "the installed prolog runs the installed bbctl (and says what Slurm did not give it)" \
  sh -c "env -i PATH=/usr/bin:/bin '$tmp/root/usr/libexec/bbfs/bb-prolog' 2>'$tmp/prolog.err'; grep -q SLURM '$tmp/prolog.err'"
check "a hook under another name refuses, naming the three" \
  sh -c "cp '$tmp/root/usr/libexec/bbfs/bb-prolog' '$tmp/bb-other'; '$tmp/bb-other' 2>&1 | grep -q 'bb-prolog, bb-epilog or bb-task-prolog'"
check "man bbd is the page made from --help" sh -c "zcat '$tmp/root/usr/share/man/man1/bbd.1.gz' | grep -q -- 'chunk.-size' && zcat '$tmp/root/usr/share/man/man1/bbd.1.gz' | grep -q '4 KiB to 1 GiB'"
exit \$fails
INNER
cp "$src/test/lib.sh" "$tmp/lib.sh"
unshare -m --propagation private bash -c "mount -t tmpfs none '$src' && { [ '$build' = '$src/build' ] || mount -t tmpfs none '$build'; } && bash '$tmp/inside.sh'"
inner=$?
[ $inner -eq 0 ] || { echo "install: $inner checks failed inside"; fails=$((fails + inner)); }
