#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh BASE: build/BASE/initramfs.cpio.gz with busybox, the audit
# selftests built from the prepared tree, the bench program, auditctl (from
# Debian's auditd package, extracted, not installed) and guest/init.
# ARCH=arm64: build/BASE/initramfs-arm64.cpio.gz, every program
# cross-compiled (static), busybox, auditctl and its libraries from Debian's
# arm64 packages (scripts/fetch-debs.sh: downloaded and unpacked only).
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
need cpio gzip dpkg-deb apt-get readelf "${CROSS}gcc"
[ -d "$KSRC/.git" ] || die "$KSRC is not prepared: run 'make prepare BASE=$BASE'"

OUT=$BDIR/initramfs$ASUF.cpio.gz
STAGE=$BDIR/initramfs$ASUF
HDR=$BDIR/headers$ASUF
ST=$BDIR/selftests$ASUF

# kernel headers of the patched tree, for the selftests
if [ ! -f "$HDR/.stamp" ] || [ "$(cat "$HDR/.stamp")" != "$(git -C "$KSRC" rev-parse HEAD)" ]; then
	info "$BASE: installing uapi headers"
	rm -rf "$HDR"
	kmake -C "$KSRC" O="$BDIR/headers-build$ASUF" INSTALL_HDR_PATH="$HDR" headers_install >/dev/null
	git -C "$KSRC" rev-parse HEAD > "$HDR/.stamp"
fi

# auditctl, auditd, ausearch and their libraries (and for arm64 busybox,
# the C library and liburing) from Debian's packages (download and extract
# only)
DEBS=$BUILD/debs$ASUF
pkgs="auditd libaudit1 libauparse0 libcap-ng0 libwrap0 libnsl2 libtirpc3 libgssapi-krb5-2 libkrb5-3"
pkgs="$pkgs libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1"
[ -z "$CROSS" ] || pkgs="$pkgs libc6 busybox-static liburing-dev"
if [ ! -x "$DEBS/root/sbin/auditctl" ] || [ "$(cat "$DEBS/.pkgs" 2>/dev/null)" != "$pkgs" ]; then
	rm -rf "$DEBS"
	"$TOP/scripts/fetch-debs.sh" "$DEBS" $pkgs
	echo "$pkgs" > "$DEBS/.pkgs"
fi
if [ -z "$CROSS" ]; then
	BUSYBOX=/bin/busybox
	[ -x "$BUSYBOX" ] || die "busybox-static not installed: run 'make deps'"
	URING=
else
	BUSYBOX=$DEBS/root/bin/busybox
	URING="-isystem $DEBS/root/usr/include -L$DEBS/root/usr/lib/$TRIPLET"
fi

info "$BASE: building selftests (tools/testing/selftests/audit${CROSS:+, $ARCH})"
mkdir -p "$ST"
make -s -C "$KSRC/tools/testing/selftests/audit" OUTPUT="$ST" ARCH="$ARCH" ${CROSS:+CROSS_COMPILE=$CROSS} \
	${CROSS_COMPAT:+CROSS_COMPILE_COMPAT=$CROSS_COMPAT} \
	KHDR_INCLUDES="-isystem $HDR/include" LDFLAGS=-static >"$LOGS/$BASE-selftests$ASUF-build.log" 2>&1 || {
	cat "$LOGS/$BASE-selftests$ASUF-build.log" >&2
	die "$BASE: selftests failed to build"
}
tests=$(cd "$ST" && find . -maxdepth 1 -type f -name '*_test' -perm -u+x | sed 's#^\./##' | sort)
[ -n "$tests" ] || die "$BASE: no selftests were built in $ST"

info "$BASE: building bench program"
mkdir -p "$BDIR/bench$ASUF"
# shellcheck disable=SC2086
"${CROSS}gcc" -O2 -static -Wall -isystem "$HDR/include" $URING -o "$BDIR/bench$ASUF/audit-bench" \
	"$TOP/bench/audit-bench.c" "$TOP/bench/bpf-hook.c" -luring
info "$BASE: building the differential test's guest program"
mkdir -p "$BDIR/difftest$ASUF"
"${CROSS}gcc" -O2 -static -Wall -isystem "$HDR/include" -I "$KSRC/tools/testing/selftests/audit" \
	-o "$BDIR/difftest$ASUF/audit-difftest" "$TOP/difftest/audit-difftest.c" \
	"$TOP/difftest/emit.c" "$TOP/difftest/gen.c" "$TOP/difftest/run.c" \
	"$KSRC/tools/testing/selftests/audit/audit_common.c"

info "$BASE: assembling initramfs"
rm -rf "$STAGE"
mkdir -p "$STAGE"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,lib64,usr/lib,kselftest/audit,bench,difftest}
cp "$BUSYBOX" "$STAGE/bin/busybox"
ln -s busybox "$STAGE/bin/sh"
cp "$TOP/guest/init" "$STAGE/init"
chmod 755 "$STAGE/init"
cp "$BDIR/bench$ASUF/audit-bench" "$STAGE/bench/"
# the srctree workload: its script and the tarball it unpacks, the base's
# own kernel/ directory
cp "$TOP/bench/srctree.sh" "$STAGE/bench/"
git -C "$KSRC" archive --format=tar base kernel | gzip -n -6 > "$STAGE/bench/src.tar.gz"
cp "$BDIR/difftest$ASUF/audit-difftest" "$STAGE/difftest/"
# The rule files name syscalls by their x86_64 names (arch=b64) and i386
# names (arch=b32). On an architecture without some of them (arm64 has only
# the *at forms of open, unlink, rename, chmod and chown, and no creat),
# each -S list keeps the names that the rule's ABI has (b32 on arm64: the
# AArch32 table), and a rule left with none is dropped; what was dropped is
# listed in /bench/rules/NAME.dropped.
mkdir -p "$STAGE/bench/rules"
nr_names() { sed -n 's/^#define __NR_\([a-z0-9_]*\).*/\1/p' "$@" | sort -u; }
if [ -f "$HDR/include/asm/unistd_64.h" ]; then
	nr_names "$HDR/include/asm/unistd_64.h" > "$BDIR/syscalls$ASUF.b64"
else
	# older arm64 headers take the generic table whole
	nr_names "$HDR/include/asm/unistd.h" "$HDR/include/asm-generic/unistd.h" > "$BDIR/syscalls$ASUF.b64"
fi
case "$ARCH" in
x86_64) nr_names "$HDR/include/asm/unistd_32.h" ;;
arm64) awk '!/^#/ && NF >= 3 && $2 != "oabi" { print $3 }' "$KSRC/arch/arm/tools/syscall.tbl" | sort -u ;;
esac > "$BDIR/syscalls$ASUF.b32"
for t in b64 b32; do
	[ -s "$BDIR/syscalls$ASUF.$t" ] || die "no $t syscall names for $ARCH in $HDR or $KSRC"
done
# Beside the project's own sets, the compliance files Debian's auditd ships
# as examples, as a machine would load them: debian-stig (30-stig.rules)
# and debian-ospp (30-ospp-v42*.rules, all parts). They are read from the
# unpacked package at build time, never copied into this repository.
EX=$DEBS/root/usr/share/doc/auditd/examples/rules
mkdir -p "$BDIR/rules$ASUF"
[ -f "$EX/30-stig.rules" ] && ls "$EX"/30-ospp-v42*.rules >/dev/null 2>&1 ||
	die "Debian's auditd package in $DEBS has no example rules in $EX"
cp "$EX/30-stig.rules" "$BDIR/rules$ASUF/debian-stig.rules"
cat "$EX"/30-ospp-v42*.rules > "$BDIR/rules$ASUF/debian-ospp.rules"
# The rule-count sets size-N: N exit rules of the shape compliance files
# have (one syscall each, arch=, auid>=1000, auid!=unset, a key), on the
# syscalls of audit-bench -t's rule table, none of them a syscall that the
# getpid, rw or stat workloads make
for n in 1 100 1000; do
	awk -v n="$n" 'BEGIN {
		k = split("openat unlinkat renameat2 fchmodat fchownat mkdirat truncate ftruncate " \
			  "setxattr lsetxattr fsetxattr removexattr lremovexattr fremovexattr " \
			  "init_module finit_module delete_module mount umount2 linkat symlinkat " \
			  "sethostname settimeofday clock_settime", s, " ")
		for (i = 0; i < n; i++)
			printf "-a always,exit -F arch=b64 -S %s -F auid>=1000 -F auid!=unset -F key=size-%d\n",
				s[i % k + 1], i
	}' > "$BDIR/rules$ASUF/size-$n.rules"
done
for f in "$TOP"/bench/rules/*.rules "$BDIR/rules$ASUF"/debian-*.rules "$BDIR/rules$ASUF"/size-*.rules; do
	n=$(basename "$f" .rules)
	awk -v b64="$BDIR/syscalls$ASUF.b64" -v b32="$BDIR/syscalls$ASUF.b32" \
	    -v dropped="$STAGE/bench/rules/$n.dropped" '
		BEGIN {
			while ((getline l < b64) > 0) known["b64", l] = 1
			while ((getline l < b32) > 0) known["b32", l] = 1
		}
		!/^-a / { print; next }
		{
			abi = "b64"
			for (i = 1; i < NF; i++)
				if ($i == "-F" && $(i + 1) == "arch=b32") abi = "b32"
			out = ""; kept = 0; had = 0; gone = ""
			for (i = 1; i <= NF; i++) {
				if ($i == "-S" && i < NF) {
					had = 1; k = split($(++i), s, ","); l = ""
					for (j = 1; j <= k; j++)
						if ((abi, s[j]) in known) l = l (l == "" ? "" : ",") s[j]
						else gone = gone " " s[j]
					if (l != "") { out = out " -S " l; kept = 1 }
					continue
				}
				out = out (out == "" ? "" : " ") $i
			}
			if (gone != "")
				print "no" gone (had && !kept ? " (rule dropped)" : "") ": " $0 > dropped
			if (!had || kept) print out
		}' "$f" > "$STAGE/bench/rules/$n.rules"
done
for t in $tests; do
	cp "$ST/$t" "$STAGE/kselftest/audit/"
done
# the programs the tests run (TEST_GEN_FILES)
# (compat_helper: the differential test runs it too)
if [ -f "$ST/compat_helper" ]; then
	cp "$ST/compat_helper" "$STAGE/kselftest/audit/"
	cp "$ST/compat_helper" "$STAGE/difftest/"
fi
echo "$tests" > "$STAGE/kselftest/audit/list"
# the SELinux policy that guest/init loads on a kernel with SELinux
"$TOP/scripts/selinux-policy.sh" "$BASE" || die "$BASE: no SELinux test policy"
mkdir -p "$STAGE/etc/selinux"
cp "$BDIR/selinux/policy" "$STAGE/etc/selinux/harness.policy"
echo "$BASE" > "$STAGE/etc/harness-base"

# dynamic binaries and the libraries they need (their DT_NEEDED entries,
# read with readelf, which works for any architecture), from the packages
# fetched above, else (for the host's architecture) from the host
libdirs="$DEBS/root/lib/$TRIPLET $DEBS/root/usr/lib/$TRIPLET"
[ -n "$CROSS" ] || libdirs="$libdirs /lib/$TRIPLET /usr/lib/$TRIPLET"
copy_libs() {
	local f=$1 lib d
	for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "$STAGE/lib/$TRIPLET/$lib" ] && continue
		for d in $libdirs; do
			[ -e "$d/$lib" ] || continue
			cp -L "$d/$lib" "$STAGE/lib/$TRIPLET/$lib"
			copy_libs "$d/$lib"
			continue 2
		done
		die "$lib (needed by ${f#$BUILD/}) is in none of: $libdirs"
	done
}
mkdir -p "$STAGE/lib/$TRIPLET" "$STAGE$(dirname "$LDSO")"
for p in auditctl auditd ausearch; do
	cp "$DEBS/root/sbin/$p" "$STAGE/sbin/$p"
	copy_libs "$STAGE/sbin/$p"
done
# Debian's auditd.conf, which guest/init adapts when it runs the daemon
mkdir -p "$STAGE/etc/audit"
cp "$DEBS/root/etc/audit/auditd.conf" "$STAGE/etc/audit/auditd.conf.debian"
ldso=$DEBS/root$LDSO
[ -e "$ldso" ] || ldso=$LDSO
cp -L "$ldso" "$STAGE$LDSO"

mknod -m 600 "$STAGE/dev/console" c 5 1
mknod -m 666 "$STAGE/dev/null" c 1 3
(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
info "$BASE: ${OUT#$TOP/} ($(du -h "$OUT" | cut -f1)); selftests: $(echo $tests)"
