#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debian-patches.sh BASE: list the files that both Debian's own patches (in
# the linux source package the base's tarball comes from) and the series
# change. Debian's tarball has its patches applied; a file in both lists
# means the series was written against Debian's code there, not upstream's.
# For a base fetched from a SUITE (kernel/BASE.conf); prints the overlap and
# exits 1 when there is one, 2 when the mirror does not serve the source
# package.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
[ -n "${SUITE:-}" ] || die "$BASE: only bases fetched from a suite (SUITE= in kernel/$BASE.conf) are checked"
need curl sha256sum tar
FETCH_LIB=1 . "$TOP/scripts/fetch-base.sh" "$BASE"
apt_private_update
# the source package's debian/ tarball, as apt resolves it (signed index)
line=$(apt-get "${aptopts[@]}" source --print-uris -q "linux=$PKG_VERSION" 2>/dev/null |
	grep "\.debian\.tar\.xz'" | head -1)
[ -n "$line" ] || die "Debian $SUITE has no source package linux $PKG_VERSION"
uri=$(echo "$line" | awk '{ print $1 }' | tr -d "'")
sum=$(echo "$line" | awk '{ print $4 }' | sed 's/^SHA256://')
dir=$BUILD/src/linux_$PKG_VERSION.debian
if [ ! -f "$dir/debian/patches/series" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! curl -sSf -o "$dir/debian.tar.xz" "$uri"; then
		rm -rf "$dir"
		echo "$BASE: cannot check: the mirror does not serve $uri (source packages)" >&2
		exit 2
	fi
	[ "$(sha256sum "$dir/debian.tar.xz" | cut -d' ' -f1)" = "$sum" ] ||
		die "$uri: sha256 does not match the archive's index"
	tar -xJf "$dir/debian.tar.xz" -C "$dir"
fi
ours=$(cat "$PATCHDIR"/*.patch 2>/dev/null | sed -n 's#^+++ b/##p' | sort -u)
n=0 overlap=
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	for f in $(sed -n 's#^+++ [^/]*/\([^[:space:]]*\).*#\1#p' "$dir/debian/patches/${p%% *}" | sort -u); do
		echo "$ours" | grep -qx "$f" && overlap="$overlap $f (debian/patches/${p%% *})"
	done
done < "$dir/debian/patches/series"
if [ -n "$overlap" ]; then
	echo "$BASE: Debian's patches and the series both change:"
	for o in $overlap; do echo "  $o"; done | paste -d' ' - -
	exit 1
fi
echo "$BASE: none of Debian's $n patches in linux $PKG_VERSION touches a file the series changes ($(echo "$ours" | wc -l) files)"
