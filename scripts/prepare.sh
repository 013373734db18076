#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# prepare.sh BASE: build/BASE/linux = pristine base (tag "base") + series (git am)
# + selftests commit. Does nothing when its inputs have not changed.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
need git xz sha256sum
harness_identity

stamp=$BDIR/prepared.stamp
want=$(inputs_hash)
if [ -f "$stamp" ] && [ -d "$KSRC/.git" ] &&
   [ "$(cat "$stamp")" = "$want $(git -C "$KSRC" rev-parse HEAD 2>/dev/null)" ] &&
   [ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ]; then
	info "$BASE: prepared tree is up to date ($KSRC)"
	exit 0
fi

[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps' (installs $PKG=$PKG_VERSION)"
mkdir -p "$BDIR"

if [ ! -d "$KSRC/.git" ] || ! git -C "$KSRC" rev-parse -q --verify refs/tags/base >/dev/null; then
	info "$BASE: checking $TARBALL"
	got=$(sha256sum "$TARBALL" | cut -d' ' -f1)
	[ "$got" = "$SHA256" ] ||
		die "$TARBALL: sha256 $got, kernel/$BASE.conf pins $SHA256 ($PKG $PKG_VERSION); installed version: $(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null)"
	info "$BASE: unpacking $PKG $PKG_VERSION"
	rm -rf "$KSRC" "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	tar -xJf "$TARBALL" -C "$KSRC.tmp"
	mv "$KSRC.tmp/$TOPDIR" "$KSRC"
	rmdir "$KSRC.tmp"
	(
		cd "$KSRC"
		git init -q -b master
		git config core.autocrlf false
		git config gc.auto 0
		# Debian's packaging appends "/*" to .gitignore (its git tree holds
		# only debian/); drop that block so git status works as upstream.
		n=$(grep -n '^# Debian packaging: ignore everything' .gitignore | cut -d: -f1)
		[ -z "$n" ] || head -n $((n - 3)) .gitignore > .gitignore.new
		[ -z "$n" ] || mv .gitignore.new .gitignore
		git add -A -f .
		git commit -q --date="2000-01-01T00:00:00Z" -m "Linux $KVER ($PKG $PKG_VERSION)" \
			-m "Unpacked from $TARBALL (sha256 $SHA256)." \
			-m "The Debian packaging block at the end of .gitignore is removed."
		git tag base
	)
else
	if [ -n "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
	   [ -d "$KSRC/.git/rebase-apply" ]; then
		if [ "${FORCE:-0}" != 1 ]; then
			die "$KSRC has uncommitted changes or an unfinished 'git am'. Commit and 'make export BASE=$BASE', or rerun with FORCE=1 to discard them."
		fi
	fi
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	# keep a developer's commits (HEAD moved since the last prepare or
	# export) reachable before resetting
	head=$(git -C "$KSRC" rev-parse HEAD)
	if [ "$head" != "$(git -C "$KSRC" rev-parse base)" ] &&
	   [ "$head" != "$(cut -d' ' -f2 "$stamp" 2>/dev/null)" ]; then
		saved=previous-$(date +%Y%m%d-%H%M%S)
		git -C "$KSRC" branch -f "$saved" HEAD
		info "$BASE: the commits of the old tree are kept on branch $saved"
	fi
fi
rm -f "$stamp"

# Apply the series in a scratch worktree, then move the tree to the result
# with one checkout: files the new series leaves as they were keep their
# timestamps, so the next build recompiles only what changed.
AM=$BDIR/am-worktree
git -C "$KSRC" worktree remove -f "$AM" >/dev/null 2>&1 || rm -rf "$AM"
git -C "$KSRC" worktree prune
git -C "$KSRC" worktree add -q --detach "$AM" base
n=0
for p in $(series_patches); do
	n=$((n + 1))
	f=$PATCHDIR/$p
	[ -f "$f" ] || die "patches/$BASE/series names $p, which does not exist"
	if ! git -C "$AM" am -q --keep-cr --committer-date-is-author-date "$f" >"$LOGS/$BASE-am.log" 2>&1; then
		echo "error: patches/$BASE/$p (patch $n of the series) does not apply to $PKG $PKG_VERSION" >&2
		# name the failing hunk(s)
		git -C "$AM" apply --check -v "$f" 2>&1 | head -40 | sed 's/^/  /' >&2 || true
		sed 's/^/  /' "$LOGS/$BASE-am.log" >&2
		echo "The series is left applied up to this patch in $AM, with 'git am' stopped there: inspect it; the next 'make prepare' removes it." >&2
		exit 1
	fi
done
new=$(git -C "$AM" rev-parse HEAD)
git -C "$KSRC" worktree remove -f "$AM"
cd "$KSRC"
git checkout -q -f -B master "$new"
git clean -q -fdx
info "$BASE: applied $n patch(es) from patches/$BASE/series"

# the selftests, from this repository, as the last commit
add_selftests "$KSRC"
echo "$want $(git rev-parse HEAD)" > "$stamp"
info "$BASE: prepared $KSRC ($(git rev-list --count base..HEAD) commit(s) on base)"
