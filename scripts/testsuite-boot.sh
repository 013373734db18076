#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# testsuite-boot.sh VARIANT WORKDIR: boot build/mainline/VARIANT-testsuite
# (scripts/build-kernel.sh with KCONFIG_BASE=defconfig, SUFFIX=-testsuite,
# FRAGMENTS=Kconfig/testsuite.config) on the Debian root disk of
# scripts/testsuite-image.sh and run WORKDIR/run in it as root, in a login
# session, with auditd running (Documentation/audit-testsuite.md).
# Three virtio disks: the root image (-snapshot: the boot writes nothing
# back to it), the kernel's modules (read-only) and a copy of WORKDIR, which
# is copied back to WORKDIR.out after the boot (the run's own logs, say).
# The console goes to LOG (default build/logs/testsuite-VARIANT.log).
# Fails, with the console's tail, when the guest times out (TIMEOUT, s,
# default 1800), when the kernel reports a problem, or when the guest ends
# without "testsuite-init: rc=N"; else exits with the run's N.
set -eu
. "$(dirname "$0")/lib.sh"
VARIANT=${1:-}
WORK=${2:-}
[ -n "$VARIANT" ] && [ -d "$WORK" ] || die "usage: testsuite-boot.sh VARIANT WORKDIR (WORKDIR/run is run in the guest)"
[ -x "$WORK/run" ] || die "$WORK/run is missing or not executable"
load_base mainline
need qemu-system-x86_64 mkfs.ext4 debugfs timeout
KDIR=$BDIR/$VARIANT-testsuite
KERNEL=$KDIR/arch/x86/boot/bzImage
ROOTIMG=$BUILD/testsuite/root.img
[ -f "$KERNEL" ] || die "$KERNEL missing: run 'SUFFIX=-testsuite KCONFIG_BASE=defconfig FRAGMENTS=Kconfig/testsuite.config scripts/build-kernel.sh mainline $VARIANT'"
[ -f "$ROOTIMG" ] || die "$ROOTIMG missing: run scripts/testsuite-image.sh"
LOG=${LOG:-$LOGS/testsuite-$VARIANT.log}
TIMEOUT=${TIMEOUT:-1800}
tmp=$(mktemp -d "$BUILD/testsuite/boot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# the modules disk: lib/modules/RELEASE of the build (empty without modules)
mkdir -p "$tmp/modules"
[ -d "$KDIR/modules/lib/modules" ] && cp -a "$KDIR/modules/lib/modules/." "$tmp/modules/"
mkfs.ext4 -q -F -d "$tmp/modules" "$tmp/modules.img" 256M
mkfs.ext4 -q -F -d "$WORK" "$tmp/work.img" "${WORK_SIZE:-1G}"

info "testsuite: booting $VARIANT ($(cat "$KDIR/include/config/kernel.release" 2>/dev/null)), console: ${LOG#$TOP/}"
set +e
timeout --foreground -k 10 "$TIMEOUT" qemu-system-x86_64 \
	-nodefaults -nographic -no-reboot -serial stdio -monitor none \
	-accel tcg,thread=single -cpu max -smp 2 -m "${MEM:-2G}" -snapshot \
	-drive file="$ROOTIMG",format=raw,if=virtio \
	-drive file="$tmp/modules.img",format=raw,if=virtio,snapshot=off,readonly=on \
	-drive file="$tmp/work.img",format=raw,if=virtio,snapshot=off \
	-kernel "$KERNEL" \
	-append "root=/dev/vda rw console=ttyS0 loglevel=4 panic=-1 init=/sbin/testsuite-init ${APPEND:-}" \
	</dev/null >"$LOG" 2>&1
qrc=$?
set -e
tr -d '\r' < "$LOG" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' > "$LOG.tmp" && mv "$LOG.tmp" "$LOG"

# the work disk's contents, for the run's own logs
rm -rf "$WORK.out" && mkdir -p "$WORK.out"
debugfs -R "rdump / $WORK.out" "$tmp/work.img" >/dev/null 2>&1 ||
	info "testsuite: could not copy the work disk back to ${WORK#$TOP/}.out"

splat="Kernel panic|BUG: |kernel BUG|Oops|WARNING: |UBSAN:|KASAN|general protection fault|Call Trace:"
fail=
end=$(grep -a "^testsuite-init: rc=" "$LOG" | tail -1)
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	fail="guest timed out after ${TIMEOUT}s"
elif [ "${ALLOW_SPLAT:-0}" != 1 ] && grep -aqE "$splat" "$LOG"; then
	fail="kernel reported a problem: $(grep -aE -m1 "$splat" "$LOG")"
elif [ -z "$end" ]; then
	fail="guest ended (qemu rc=$qrc) without reporting the run's end"
fi
if [ -n "$fail" ]; then
	echo "error: testsuite/$VARIANT: $fail" >&2
	echo "---- last 60 console lines ($LOG) ----" >&2
	tail -n 60 "$LOG" >&2
	echo "----" >&2
	exit 3
fi
exit "${end##*rc=}"
