#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bump-base.sh BASE: move kernel/BASE.conf to the version of its Debian
# package that the archive offers now, and record version, upstream version
# and tarball checksum. A base from a SUITE (mainline: Debian experimental)
# moves to the newest linux-source-X.Y the suite has, which may be a new
# release (7.3 -> 7.4); it is fetched into build/src, never installed. Any
# other base installs the package's candidate version on the host (root).
# Then: make prepare BASE=..., fix the patches that no longer apply,
# make export BASE=..., make test (kernel/README.md, "Moving a pin").
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
conf=$TOP/kernel/$BASE.conf
old="$PKG $PKG_VERSION"
if [ -n "${SUITE:-}" ]; then
	FETCH_LIB=1 . "$TOP/scripts/fetch-base.sh" "$BASE"
	apt_private_update
	pkg=$(apt-cache "${aptopts[@]}" pkgnames linux-source- 2>/dev/null |
		grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -1)
	[ -n "$pkg" ] || die "Debian $SUITE has no linux-source-X.Y package"
	v=$(apt_private_candidate "$pkg")
	[ -n "$v" ] && [ "$v" != "(none)" ] || die "Debian $SUITE offers no version of $pkg"
	topdir=$pkg
	tarball=/usr/src/$pkg.tar.xz
	srcdir=$BUILD/src/${pkg}_$v
	if [ ! -f "$srcdir$tarball" ]; then
		rm -rf "$srcdir" "$srcdir.deb"
		apt_private_download "$pkg=$v" "$srcdir.deb" || die "cannot download $pkg $v"
		dpkg-deb -x "$srcdir.deb"/*.deb "$srcdir"
		rm -rf "$srcdir.deb"
	fi
	path=$srcdir$tarball
else
	[ "$(id -u)" = 0 ] || die "run as root (installs $PKG)"
	apt-get update -q >/dev/null
	pkg=$PKG topdir=$TOPDIR tarball=$TARBALL
	v=$(apt-cache policy "$PKG" | awk '/Candidate:/ { print $2 }')
	[ -n "$v" ] && [ "$v" != "(none)" ] || die "the archive has no $PKG"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades "$PKG=$v" >/dev/null
	path=$TARBALL
fi
sum=$(sha256sum "$path" | cut -d' ' -f1)
kver=$(tar -xJOf "$path" "$topdir/Makefile" | awk '
	/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 } /^SUBLEVEL =/ { s = $3 }
	/^EXTRAVERSION =/ { e = $3 }
	END { if (e != "") print v "." p e; else print v "." p "." s }')
sed -i -e "s/^PKG=.*/PKG=$pkg/" -e "s/^PKG_VERSION=.*/PKG_VERSION=$v/" -e "s/^KVER=.*/KVER=$kver/" \
	-e "s|^TARBALL=.*|TARBALL=$tarball|" -e "s/^TOPDIR=.*/TOPDIR=$topdir/" \
	-e "s/^SHA256=.*/SHA256=$sum/" "$conf"
if grep -q '^DISTRO_PKG=' "$conf"; then
	sed -i "s/^DISTRO_PKG=.*/DISTRO_PKG=linux-base-$(echo "$kver" | sed "s/-.*//")-amd64/" "$conf"
fi
info "$BASE: kernel/$BASE.conf moved from $old to $pkg $v (Linux $kver)"
