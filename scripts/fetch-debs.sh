#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fetch-debs.sh DIR PKG...: download PKG... of the host's Debian release for
# the guest's architecture (DEB_ARCH: amd64, arm64; from ARCH, see lib.sh)
# and unpack them with dpkg-deb -x into DIR/root (the .debs stay in
# DIR/pkgs). Nothing is installed. For the host's own architecture the
# host's apt does the download; for another one a private apt configuration
# in build/apt/CODENAME-DEB_ARCH reads the mirror the host's sources name,
# so the host's sources, lists and architectures are not touched.
set -eu
. "$(dirname "$0")/lib.sh"
DIR=${1:-}
shift || true
[ -n "$DIR" ] && [ $# -gt 0 ] || die "usage: fetch-debs.sh DIR PKG..."
need apt-get dpkg-deb dpkg
mkdir -p "$DIR/pkgs" "$DIR/root"
log=$DIR/download.log
: > "$log"

aptopts=()
if [ "$DEB_ARCH" != "$(dpkg --print-architecture)" ]; then
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "/etc/os-release names no VERSION_CODENAME"
	uri=$(host_mirror)
	[ -n "$uri" ] || die "cannot find the Debian mirror in the host's apt sources (/etc/apt/sources.list*)"
	APTDIR=$BUILD/apt/$codename-$DEB_ARCH
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	aptopts=(-o Dir::Etc::SourceList="$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache"
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o Debug::NoLocking=1
		-o APT::Sandbox::User=root -o APT::Architecture="$DEB_ARCH"
		-o APT::Architectures::="$DEB_ARCH")
	printf 'deb [arch=%s signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		"$DEB_ARCH" "$uri" "$codename" > "$APTDIR/sources.list"
	if [ -z "$(ls "$APTDIR"/lists/*_Packages 2>/dev/null)" ] ||
	   [ -n "$(find "$APTDIR/lists" -maxdepth 0 -mmin +720)" ]; then
		info "fetching Debian $codename's $DEB_ARCH package lists (private apt configuration in ${APTDIR#$TOP/})"
		apt-get "${aptopts[@]}" update -q >>"$log" 2>&1 ||
			{ tail -5 "$log" >&2; die "apt-get update of $codename/$DEB_ARCH failed (log: $log)"; }
		touch "$APTDIR/lists"
	fi
fi
info "fetching $* ($DEB_ARCH) from Debian's archive"
if ! (cd "$DIR/pkgs" && apt-get "${aptopts[@]}" download -q "$@" >>"$log" 2>&1); then
	tail -5 "$log" >&2
	[ ${#aptopts[@]} -gt 0 ] || die "apt-get download failed; run 'apt-get update' and retry (log: $log)"
	die "apt-get download of $* ($DEB_ARCH) failed (log: $log)"
fi
for d in "$DIR"/pkgs/*.deb; do dpkg-deb -x "$d" "$DIR/root"; done
