#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh KSRC: apply the series matching KSRC's version to KSRC, then add
# the audit selftests. git am (one commit per patch) on a git tree, patch(1)
# otherwise. All or nothing: when a patch does not apply, what was applied
# before it is taken back and the tree is as it was. A tree that already
# carries the series is said to, and left alone. Needs git or patch only.
# Refuses a version that has no series, naming the series there are.
set -eu
. "$(dirname "$0")/lib.sh"
dir=${1:-}
[ -n "$dir" ] || die "usage: make apply KSRC=/path/to/linux"
[ -f "$dir/Makefile" ] && [ -d "$dir/kernel" ] || die "$dir does not look like a kernel tree"
dir=$(cd "$dir" && pwd)
ver=$(tree_version "$dir") || die "cannot read VERSION/PATCHLEVEL from $dir/Makefile"
b=$(tree_base "$dir") || b=
if [ -z "$b" ] || [ ! -f "$TOP/patches/$b/series" ]; then
	have=
	for x in $BASES_ALL; do
		have="$have $x (Linux $( . "$TOP/kernel/$x.conf"; echo "$KVER"))"
	done
	die "$dir is Linux $ver, which no series here is for; the series:$have. Apply one to the release it names, or move a pin to your release (kernel/README.md, \"Moving a pin\")"
fi
load_base "$b"
patches=$(series_patches)
count=$(echo "$patches" | wc -w)
last=$PATCHDIR/$(echo "$patches" | tail -n 1)

if [ -e "$dir/.git" ]; then
	command -v git >/dev/null || die "$dir is a git tree and git is missing: apt-get install git"
	g() { git -C "$dir" "$@"; }
	[ ! -d "$(g rev-parse --git-path rebase-apply)" ] ||
		die "$dir has a 'git am' or rebase in progress: finish it or abort it ('git -C $dir am --abort') first"
	dirty=$(g status --porcelain --untracked-files=no)
	[ -z "$dirty" ] || die "$dir has uncommitted changes to tracked files; commit or stash them first:
$(echo "$dirty" | head -20 | sed 's/^/  /')"
	ident=$(g var GIT_COMMITTER_IDENT 2>&1) ||
		die "git has no identity to commit with in $dir: set user.name and user.email (git config), then rerun
$(echo "$ident" | sed 's/^/  /')"
	if g apply --check -R "$last" >/dev/null 2>&1; then
		info "$dir already carries patches/$b/series (its last patch is applied); nothing done"
		exit 0
	fi
	orig=$(g rev-parse HEAD)
	info "applying patches/$b/series ($count patches) to $dir (Linux $ver) with git am, on $(g rev-parse --short HEAD)"
	n=0
	for p in $patches; do
		n=$((n + 1))
		if ! out=$(g am -q --keep-cr "$PATCHDIR/$p" 2>&1); then
			echo "error: patches/$b/$p (patch $n of $count) does not apply to $dir:" >&2
			# git am's own advice (continue, skip) does not hold: the
			# series is taken back below
			echo "$out" | grep -vE '^(hint:|When you have|If you prefer|To restore|Patch failed at)' |
				sed 's/^/  /' >&2
			g am --abort >/dev/null 2>&1 || true
			g reset -q --keep "$orig"
			die "nothing applied: $dir is back at $(g rev-parse --short HEAD), as it was. The tree differs from Linux $KVER where that patch changes it; apply the series to $KVER, or rebase that patch onto your tree"
		fi
	done
else
	command -v patch >/dev/null || die "patch is missing: apt-get install patch"
	if patch -d "$dir" -p1 -R -s -f --dry-run < "$last" >/dev/null 2>&1; then
		info "$dir already carries patches/$b/series (its last patch is applied); nothing done"
		exit 0
	fi
	info "applying patches/$b/series ($count patches) to $dir (Linux $ver) with patch"
	n=0 done_list=
	for p in $patches; do
		n=$((n + 1))
		if ! out=$(patch -d "$dir" -p1 -N -f --dry-run < "$PATCHDIR/$p" 2>&1); then
			echo "error: patches/$b/$p (patch $n of $count) does not apply to $dir:" >&2
			echo "$out" | sed 's/^/  /' >&2
			for q in $done_list; do
				patch -d "$dir" -p1 -R -s -f < "$PATCHDIR/$q" ||
					die "could not take back patches/$b/$q: $dir now holds patches up to it; take them back with 'patch -R -p1' in reverse order"
			done
			die "nothing applied: the $((n - 1)) patch(es) before it were taken back. The tree differs from Linux $KVER where that patch changes it; apply the series to $KVER, or rebase that patch onto your tree"
		fi
		patch -d "$dir" -p1 -N -s -f < "$PATCHDIR/$p"
		done_list="$p $done_list"
	done
fi
SELFTESTS_DATE=now SELFTESTS_AUTHOR=$(sed -n 's/^From: //p' "$last" | head -n 1) \
	add_selftests "$dir"
info "applied $count patch(es) and the selftests to $dir"
