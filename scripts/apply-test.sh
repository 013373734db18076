#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply-test.sh [BASE]: try make apply (scripts/apply.sh) on the trees a
# kernel developer brings, made from the prepared tree's pristine base
# (make prepare): a plain tree, a git tree, a git tree whose .gitignore
# ignores everything (Debian's), one that conflicts with a patch of the series (the third), one with
# a dirty tracked file, one without a git identity, a tree that already
# carries the series and one of a release no series is for. Each must
# apply all, or stop with its message and leave the tree as it was.
# Prints "ok"/"FAIL" lines and ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
load_base "${1:-$PRIMARY_BASE}"
need git patch
[ -d "$KSRC/.git" ] || die "no prepared tree for $BASE: run make prepare BASE=$BASE"
W=$BDIR/apply-test
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "  ok   $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL $*"; }
A=$TOP/scripts/apply.sh
count=$(series_patches | wc -w)
# the patch to conflict with: one whose first file has a removed line that
# no patch before it touches (3: a one-line fix, on every base)
vn=3
victim=$(series_patches | sed -n ${vn}p)
# a line that patch $vn removes from its first file, found once there: a
# tree where it differs conflicts with the patch
vfile=$(sed -n 's|^+++ b/||p' "$PATCHDIR/$victim" | head -n 1)
vno=
while IFS= read -r l; do
	[ "$(git -C "$KSRC" show "base:$vfile" | grep -cxF -- "$l")" = 1 ] || continue
	vno=$(git -C "$KSRC" show "base:$vfile" | grep -nxF -- "$l" | cut -d: -f1)
	break
done < <(awk '/^\+\+\+ / { n++ } n == 1 && /^-[^-]/ { print substr($0, 2) }' "$PATCHDIR/$victim")
[ -n "$vno" ] || die "patches/$BASE/$victim removes no line found once in $vfile: choose another patch to conflict with"
conflict() { sed -i "${vno}s|\$| /* local */|" "$1/$vfile"; }
# a throwaway identity, for the trees' own commits
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
id() { git -C "$1" config user.name "Kernel Developer"; git -C "$1" config user.email dev@example.org; }

plain() { rm -rf "$1"; mkdir -p "$1"; git -C "$KSRC" archive base | tar -x -C "$1"; }
gittree() {
	rm -rf "$1"; plain "$1"
	git -C "$1" init -q -b master && id "$1" && git -C "$1" add -A -f . &&
		git -C "$1" commit -q -m "Linux $KVER"
}
clean_up() { git -C "$KSRC" worktree prune; rm -rf "$W"; }
trap clean_up EXIT
mkdir -p "$W"

# 1. a plain tree: applied, the selftests there, no .orig or .rej left
t=$W/plain; plain "$t"
if "$A" "$t" > "$W/plain.log" 2>&1 && [ -f "$t/tools/testing/selftests/audit/Makefile" ] &&
   [ -z "$(find "$t" -name '*.orig' -o -name '*.rej' | head -n 1)" ]; then
	ok "plain tree: $count patches and the selftests applied"
else
	bad "plain tree:"; tail -5 "$W/plain.log" | sed 's/^/       /'
fi
# 2. the same tree again: "already carries", nothing changed
before=$(cd "$t" && find kernel io_uring -type f -newer "$W/plain.log" | wc -l)
if "$A" "$t" > "$W/plain2.log" 2>&1 && grep -q "already carries" "$W/plain2.log" &&
   [ "$before" = 0 ] && [ "$(cd "$t" && find kernel io_uring -type f -newer "$W/plain.log" | wc -l)" = 0 ]; then
	ok "plain tree applied twice: $(grep -o 'already carries.*' "$W/plain2.log" | head -n 1)"
else
	bad "plain tree applied twice:"; tail -5 "$W/plain2.log" | sed 's/^/       /'
fi
# 3. a release no series is for
sed -i 's/^PATCHLEVEL = .*/PATCHLEVEL = 99/' "$t/Makefile"
sed -i 's/^VERSION = .*/VERSION = 1/' "$t/Makefile"
if ! "$A" "$t" > "$W/unpinned.log" 2>&1 && grep -q "which no series here is for; the series:" "$W/unpinned.log"; then
	ok "a release with no series: $(grep -o 'Linux 1.99, which no series here is for' "$W/unpinned.log")"
else
	bad "a release with no series:"; tail -5 "$W/unpinned.log" | sed 's/^/       /'
fi
# 4. a conflicting plain tree: stopped at patch $vn, those before it taken
# back (every file the series touches as it was, no selftests)
t=$W/conflict; plain "$t"
conflict "$t"
sums() { (cd "$1" && find kernel io_uring include init -type f -print0 | sort -z | xargs -0 md5sum); }
sums "$t" > "$W/conflict.before"
if ! "$A" "$t" > "$W/conflict.log" 2>&1 && grep -q "patch $vn of $count" "$W/conflict.log" &&
   grep -q "nothing applied" "$W/conflict.log" && grep -q "local" "$t/$vfile" &&
   sums "$t" | cmp -s - "$W/conflict.before" &&
   [ ! -d "$t/tools/testing/selftests/audit" ] &&
   [ -z "$(find "$t" -name '*.orig' -o -name '*.rej' | head -n 1)" ]; then
	ok "a conflicting plain tree: stopped at patch $vn, the tree as it was"
else
	bad "a conflicting plain tree:"; tail -8 "$W/conflict.log" | sed 's/^/       /'
fi
# 5. a git tree whose .gitignore ignores everything, applied, then again
t=$W/git; gittree "$t"
printf '\n# Debian packaging: ignore everything\n/*\n' >> "$t/.gitignore"
git -C "$t" commit -q -am "ignore everything"
orig=$(git -C "$t" rev-parse HEAD)
if "$A" "$t" > "$W/git.log" 2>&1 &&
   [ "$(git -C "$t" rev-list --count "$orig..HEAD")" = $((count + 1)) ] &&
   git -C "$t" show --stat HEAD | grep -q "selftests/audit/Makefile" &&
   [ -z "$(git -C "$t" status --porcelain --untracked-files=no)" ] &&
   [ "$(git -C "$t" log -1 --format=%cn)" = "Kernel Developer" ] &&
   ! git -C "$t" log --format=%b "$orig..HEAD" | grep -q "Signed-off-by: Kernel Developer"; then
	ok "a git tree that ignores tools/: $count commits and the selftests commit, committed by the tree's identity, signed off by no one else"
else
	bad "a git tree that ignores tools/:"; tail -5 "$W/git.log" | sed 's/^/       /'
fi
head=$(git -C "$t" rev-parse HEAD)
if "$A" "$t" > "$W/git2.log" 2>&1 && grep -q "already carries" "$W/git2.log" &&
   [ "$(git -C "$t" rev-parse HEAD)" = "$head" ]; then
	ok "a git tree applied twice: nothing done"
else
	bad "a git tree applied twice:"; tail -5 "$W/git2.log" | sed 's/^/       /'
fi
# 6. a conflicting git tree: back at its own commit
git -C "$t" reset -q --hard "$orig"
conflict "$t"
git -C "$t" commit -q -am "a local change"
orig=$(git -C "$t" rev-parse HEAD)
if ! "$A" "$t" > "$W/gitconf.log" 2>&1 && grep -q "patch $vn of $count" "$W/gitconf.log" &&
   grep -q "back at" "$W/gitconf.log" && ! grep -q "git am --continue" "$W/gitconf.log" &&
   [ "$(git -C "$t" rev-parse HEAD)" = "$orig" ] &&
   [ -z "$(git -C "$t" status --porcelain --untracked-files=no)" ] &&
   [ ! -d "$(git -C "$t" rev-parse --git-path rebase-apply)" ]; then
	ok "a conflicting git tree: stopped at patch $vn, back at its own commit"
else
	bad "a conflicting git tree:"; tail -8 "$W/gitconf.log" | sed 's/^/       /'
fi
# 7. a dirty tracked file, then no identity: refused, nothing done
git -C "$t" reset -q --hard "$orig~1"
orig=$(git -C "$t" rev-parse HEAD)
echo "# local" >> "$t/Makefile"
if ! "$A" "$t" > "$W/dirty.log" 2>&1 && grep -q "uncommitted changes" "$W/dirty.log" &&
   grep -q " M Makefile" "$W/dirty.log" && [ "$(git -C "$t" rev-parse HEAD)" = "$orig" ]; then
	ok "a dirty git tree: refused, naming the file"
else
	bad "a dirty git tree:"; tail -5 "$W/dirty.log" | sed 's/^/       /'
fi
git -C "$t" checkout -q Makefile
git -C "$t" config --unset user.name; git -C "$t" config --unset user.email
if ! (export HOME=$W/no-home; mkdir -p "$HOME"; "$A" "$t") > "$W/noid.log" 2>&1 &&
   grep -q "no identity" "$W/noid.log" && [ "$(git -C "$t" rev-parse HEAD)" = "$orig" ]; then
	ok "a git tree without an identity: refused with git's own message"
else
	bad "a git tree without an identity:"; tail -5 "$W/noid.log" | sed 's/^/       /'
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
