#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh KSRC: apply the series matching KSRC's version to KSRC, then add
# the audit selftests. git am (one commit per patch) on a git tree, patch(1)
# otherwise. Refuses a version that has no series.
set -eu
. "$(dirname "$0")/lib.sh"
dir=${1:-}
[ -n "$dir" ] || die "usage: make apply KSRC=/path/to/linux"
[ -f "$dir/Makefile" ] && [ -d "$dir/kernel" ] || die "$dir does not look like a kernel tree"
dir=$(cd "$dir" && pwd)
ver=$(tree_version "$dir") || die "cannot read VERSION/PATCHLEVEL from $dir/Makefile"
b=$(tree_base "$dir")
[ -n "$b" ] && [ -f "$TOP/patches/$b/series" ] ||
	die "$dir is Linux $ver; this repository has series for: $BASES_ALL (mainline: $( . "$TOP/kernel/mainline.conf"; echo "$KVER"))"
load_base "$b"
info "applying patches/$b/series to $dir (Linux $ver)"
n=0
for p in $(series_patches); do
	n=$((n + 1))
	f=$PATCHDIR/$p
	if [ -e "$dir/.git" ]; then
		if ! git -C "$dir" am -q --keep-cr "$f" >/tmp/apply-am.$$ 2>&1; then
			echo "error: patches/$b/$p (patch $n) does not apply:" >&2
			(cd "$dir" && git apply --check -v "$f" 2>&1 | grep -E "error|Hunk|patch failed" | sed 's/^/  /') >&2
			rm -f /tmp/apply-am.$$
			die "left at that patch with 'git am' in progress; 'git -C $dir am --abort' undoes it"
		fi
		rm -f /tmp/apply-am.$$
	else
		if ! out=$(patch -d "$dir" -p1 -N --dry-run < "$f" 2>&1); then
			echo "error: patches/$b/$p (patch $n) does not apply; nothing of it was changed:" >&2
			echo "$out" | grep -v "^checking file" | sed 's/^/  /' >&2
			[ $n = 1 ] && die "no patch of the series was applied"
			die "patches 1-$((n - 1)) of the series are applied"
		fi
		patch -d "$dir" -p1 -N -s < "$f"
	fi
done
add_selftests "$dir"
info "applied $n patch(es) and the selftests to $dir"
