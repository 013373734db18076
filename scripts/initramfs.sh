#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh BASE: build/BASE/initramfs.cpio.gz with busybox, the audit
# selftests built from the prepared tree, the bench program, auditctl (from
# Debian's auditd package, extracted, not installed) and guest/init.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
need cpio gzip busybox dpkg-deb apt-get ldd
[ -d "$KSRC/.git" ] || die "$KSRC is not prepared: run 'make prepare BASE=$BASE'"
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "busybox-static not installed: run 'make deps'"

OUT=$BDIR/initramfs.cpio.gz
STAGE=$BDIR/initramfs
HDR=$BDIR/headers
ST=$BDIR/selftests

# kernel headers of the patched tree, for the selftests
if [ ! -f "$HDR/.stamp" ] || [ "$(cat "$HDR/.stamp")" != "$(git -C "$KSRC" rev-parse HEAD)" ]; then
	info "$BASE: installing uapi headers"
	rm -rf "$HDR"
	kmake -C "$KSRC" O="$BDIR/headers-build" INSTALL_HDR_PATH="$HDR" headers_install >/dev/null
	git -C "$KSRC" rev-parse HEAD > "$HDR/.stamp"
fi

info "$BASE: building selftests (tools/testing/selftests/audit)"
mkdir -p "$ST"
make -s -C "$KSRC/tools/testing/selftests/audit" OUTPUT="$ST" \
	KHDR_INCLUDES="-isystem $HDR/include" LDFLAGS=-static >"$LOGS/$BASE-selftests-build.log" 2>&1 || {
	cat "$LOGS/$BASE-selftests-build.log" >&2
	die "$BASE: selftests failed to build"
}
tests=$(cd "$ST" && find . -maxdepth 1 -type f -name '*_test' -perm -u+x | sed 's#^\./##' | sort)
[ -n "$tests" ] || die "$BASE: no selftests were built in $ST"

info "$BASE: building bench program"
mkdir -p "$BDIR/bench"
gcc -O2 -static -Wall -isystem "$HDR/include" -o "$BDIR/bench/audit-bench" "$TOP/bench/audit-bench.c" -luring
info "$BASE: building the differential test's guest program"
mkdir -p "$BDIR/difftest"
gcc -O2 -static -Wall -isystem "$HDR/include" -I "$KSRC/tools/testing/selftests/audit" \
	-o "$BDIR/difftest/audit-difftest" "$TOP/difftest/audit-difftest.c" \
	"$KSRC/tools/testing/selftests/audit/audit_common.c"

# auditctl and its libraries from Debian's packages (download and extract only)
DEBS=$BUILD/debs
if [ ! -x "$DEBS/root/sbin/auditctl" ]; then
	info "fetching auditctl from Debian's auditd/libaudit1/libauparse0/libcap-ng0"
	mkdir -p "$DEBS/pkgs" "$DEBS/root"
	(cd "$DEBS/pkgs" && apt-get download -q auditd libaudit1 libauparse0 libcap-ng0 >/dev/null 2>"$DEBS/download.log") || {
		cat "$DEBS/download.log" >&2
		die "apt-get download failed; run 'apt-get update' and retry"
	}
	for d in "$DEBS"/pkgs/*.deb; do dpkg-deb -x "$d" "$DEBS/root"; done
fi

info "$BASE: assembling initramfs"
rm -rf "$STAGE"
mkdir -p "$STAGE"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,lib64,usr/lib,kselftest/audit,bench,difftest}
cp "$BUSYBOX" "$STAGE/bin/busybox"
ln -s busybox "$STAGE/bin/sh"
cp "$TOP/guest/init" "$STAGE/init"
chmod 755 "$STAGE/init"
cp "$BDIR/bench/audit-bench" "$STAGE/bench/"
cp "$BDIR/difftest/audit-difftest" "$STAGE/difftest/"
cp -r "$TOP/bench/rules" "$STAGE/bench/rules" 2>/dev/null || true
for t in $tests; do
	cp "$ST/$t" "$STAGE/kselftest/audit/"
done
echo "$tests" > "$STAGE/kselftest/audit/list"
echo "$BASE" > "$STAGE/etc/harness-base"

# dynamic binaries and the libraries they need
copy_with_libs() {
	local bin=$1 dest=$2 lib
	cp "$bin" "$STAGE/$dest"
	LD_LIBRARY_PATH="$DEBS/root/lib/x86_64-linux-gnu:$DEBS/root/usr/lib/x86_64-linux-gnu" \
		ldd "$bin" | awk '/=>/ { print $3 } /^[[:space:]]*\/lib/ { print $1 }' |
	while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$STAGE$(dirname "${lib#$DEBS/root}")"
		cp -L "$lib" "$STAGE${lib#$DEBS/root}"
	done
}
copy_with_libs "$DEBS/root/sbin/auditctl" sbin/auditctl
[ -e "$STAGE/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$STAGE/lib64/"

mknod -m 600 "$STAGE/dev/console" c 5 1
mknod -m 666 "$STAGE/dev/null" c 1 3
(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
info "$BASE: ${OUT#$TOP/} ($(du -h "$OUT" | cut -f1)); selftests: $(echo $tests)"
