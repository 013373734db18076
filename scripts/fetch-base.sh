#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fetch-base.sh BASE [PACKAGE[=VERSION]]: for a base whose kernel/BASE.conf
# names a SUITE (a Debian suite the host does not use, such as experimental),
# download its source package with apt-get download under a private apt
# configuration in build/apt/SUITE and unpack it with dpkg-deb -x into
# build/src/PKG_VERSION. The host's sources, lists and packages are not
# touched; the mirror is the one the host's own sources name.
# With a second argument, fetch that package of the suite instead (its
# .deb path is printed), e.g. the linux-image package for CONFIG=distro.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
[ -n "${SUITE:-}" ] || die "kernel/$BASE.conf names no SUITE: its package comes from the host's apt (make deps)"
need apt-get dpkg-deb sha256sum

APTDIR=$BUILD/apt/$SUITE
aptopts=(-o Dir::Etc::SourceList="$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache"
	-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o Debug::NoLocking=1
	-o APT::Sandbox::User=root)
apt_private_update() {
	local uri
	uri=$(host_mirror)
	[ -n "$uri" ] || die "cannot find the Debian mirror in the host's apt sources (/etc/apt/sources.list*)"
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	printf '%s [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		deb "$uri" "$SUITE" deb-src "$uri" "$SUITE" > "$APTDIR/sources.list"
	apt-get "${aptopts[@]}" update -q >"$LOGS/apt-$SUITE.log" 2>&1 ||
		{ tail -5 "$LOGS/apt-$SUITE.log" >&2; die "apt-get update of $SUITE failed (log: $LOGS/apt-$SUITE.log)"; }
}
# apt_private_candidate PKG: the version the suite offers now
apt_private_candidate() {
	apt-cache "${aptopts[@]}" policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'
}
# apt_private_download PKG=VERSION DIR
apt_private_download() {
	mkdir -p "$2"
	(cd "$2" && apt-get "${aptopts[@]}" download -q "$1" >>"$LOGS/apt-$SUITE.log" 2>&1)
}

if [ "${FETCH_LIB:-0}" = 1 ]; then
	return 0 2>/dev/null || exit 0
fi

if [ -n "${2:-}" ]; then
	want=$2
	case "$want" in *=*) ;; *) want="$want=$PKG_VERSION" ;; esac
	deb=$BUILD/src/$(echo "${want%%=*}_${want#*=}" | sed 's/:/%3a/')_*.deb
	# shellcheck disable=SC2086
	if ! ls $deb >/dev/null 2>&1; then
		apt_private_update
		apt_private_download "$want" "$BUILD/src" ||
			die "${want%%=*} ${want#*=} is not in Debian $SUITE (any more): see $LOGS/apt-$SUITE.log"
	fi
	# shellcheck disable=SC2086
	ls $deb
	exit 0
fi

if [ -f "$TARBALL" ] && [ "$(sha256sum "$TARBALL" | cut -d' ' -f1)" = "$SHA256" ]; then
	exit 0
fi
info "$BASE: fetching $PKG $PKG_VERSION from Debian $SUITE (private apt configuration in ${APTDIR#$TOP/})"
apt_private_update
rm -rf "$SRCDIR" "$SRCDIR.deb"
if ! apt_private_download "$PKG=$PKG_VERSION" "$SRCDIR.deb"; then
	rm -rf "$SRCDIR.deb"
	v=$(apt_private_candidate "$PKG")
	die "$PKG $PKG_VERSION has left Debian $SUITE${v:+ (it now has $v)}: run scripts/bump-base.sh $BASE to move the pin"
fi
dpkg-deb -x "$SRCDIR.deb"/*.deb "$SRCDIR"
rm -rf "$SRCDIR.deb"
got=$(sha256sum "$TARBALL" | cut -d' ' -f1)
[ "$got" = "$SHA256" ] ||
	die "$TARBALL: sha256 $got, kernel/$BASE.conf pins $SHA256 ($PKG $PKG_VERSION)"
info "$BASE: $PKG $PKG_VERSION unpacked in ${SRCDIR#$TOP/}"
