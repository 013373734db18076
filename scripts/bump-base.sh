#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bump-base.sh BASE: move kernel/BASE.conf to the version of its Debian
# package that the archive offers now (installs it, records version,
# upstream version and tarball checksum). Run 'make test' afterwards.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
[ "$(id -u)" = 0 ] || die "run as root (installs $PKG)"
apt-get update -q >/dev/null
v=$(apt-cache policy "$PKG" | awk '/Candidate:/ { print $2 }')
[ -n "$v" ] && [ "$v" != "(none)" ] || die "the archive has no $PKG"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades "$PKG=$v" >/dev/null
sum=$(sha256sum "$TARBALL" | cut -d' ' -f1)
kver=$(tar -xJOf "$TARBALL" "$TOPDIR/Makefile" | awk '
	/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 } /^SUBLEVEL =/ { s = $3 }
	END { print v "." p "." s }')
sed -i -e "s/^PKG_VERSION=.*/PKG_VERSION=$v/" -e "s/^KVER=.*/KVER=$kver/" \
	-e "s/^SHA256=.*/SHA256=$sum/" "$TOP/kernel/$BASE.conf"
info "$BASE: kernel/$BASE.conf now pins $PKG $v (Linux $kver)"
