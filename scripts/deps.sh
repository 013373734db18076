#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the harness needs with apt. Idempotent: does nothing when all is there.
set -eu
. "$(dirname "$0")/lib.sh"

PKGS="qemu-system-x86 qemu-utils quilt sparse coccinelle checkpolicy busybox-static liburing-dev
flex bison bc libelf-dev libssl-dev ccache cpio xz-utils gnuplot-nox git make gcc
libc6-dev perl python3 python3-ply python3-git git-email libmailtools-perl dpkg-dev kmod rsync file
debootstrap e2fsprogs
gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu gcc-arm-linux-gnueabihf qemu-system-arm
libc6-dev-arm64-cross libc6-dev-riscv64-cross libc6-dev-armhf-cross"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
pins=$(for b in $BASES_ALL; do
	(
		load_base "$b"
		[ -z "${SUITE:-}" ] || exit 0	# fetched below, not installed
		v=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || true)
		[ "$v" = "$PKG_VERSION" ] || echo "$PKG=$PKG_VERSION"
	)
done)
missing="$missing $pins"
missing=$(echo $missing)
# the bases from suites the host does not use (Debian experimental)
fetch_bases() {
	local b
	for b in $BASES_ALL; do
		( load_base "$b"; [ -z "${SUITE:-}" ] || "$TOP/scripts/fetch-base.sh" "$b" ) || exit 1
	done
}
if [ -z "$missing" ]; then
	fetch_bases
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "error: missing packages: $missing" >&2
	echo "run as root:  apt-get update && apt-get install -y --no-install-recommends $missing" >&2
	echo "or:           sudo make deps" >&2
	exit 1
fi
info "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
if [ ! -d /var/lib/apt/lists ] || [ -z "$(ls /var/lib/apt/lists/*_Packages 2>/dev/null)" ] ||
   [ -n "$(find /var/lib/apt/lists -maxdepth 0 -mmin +720)" ]; then
	apt-get update -q >/dev/null
fi
if ! apt-get install -y -q --no-install-recommends --allow-downgrades $missing >/tmp/deps-apt.log 2>&1; then
	apt-get update -q >/dev/null
	if ! apt-get install -y -q --no-install-recommends --allow-downgrades $missing >/tmp/deps-apt.log 2>&1; then
		tail -20 /tmp/deps-apt.log >&2
		for m in $missing; do
			case "$m" in *=*)
				apt-cache policy "${m%%=*}" | grep -q " ${m#*=} " ||
					echo "error: $m is no longer in the archive; run scripts/bump-base.sh to move the pin" >&2
			esac
		done
		die "apt-get install failed (log: /tmp/deps-apt.log)"
	fi
fi
fetch_bases
