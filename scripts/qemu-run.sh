#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qemu-run.sh BASE VARIANT RUN [extra kernel args...]
# Boots build/BASE/VARIANT's bzImage with build/BASE/initramfs.cpio.gz under
# QEMU (ARCH=arm64: the -arm64 Image and initramfs, qemu-system-aarch64 -M
# virt, always TCG) and runs RUN (probe, selftests, bench) in the guest. The console goes
# to build/logs/BASE-VARIANT-RUN.log. Fails, with the last 60 console
# lines, on timeout, panic, oops, BUG, WARN, KASAN/lockdep reports or when
# the guest never reports its end marker.
# Environment: ALLOW_WARN (see below), TIMEOUT (s, default 900), ICOUNT=1 (instruction-counting TCG:
# -icount shift=0,sleep=off), SMP (default 2), MEM (default 1G), LOG (path),
# QEMU_EXTRA (more QEMU arguments, e.g. a -plugin).
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
VARIANT=${2:-patched}
RUN=${3:-selftests}
shift 3 || true
need "$QEMU" timeout

KERNEL=$BDIR/$VARIANT${SUFFIX:-}/$KIMAGE
INITRD=$BDIR/initramfs$ASUF.cpio.gz
[ -f "$KERNEL" ] || die "$KERNEL missing: run 'make kernel BASE=$BASE VARIANT=$VARIANT'"
[ -f "$INITRD" ] || die "$INITRD missing: run 'make initramfs BASE=$BASE'"
LOG=${LOG:-$LOGS/$BASE-$VARIANT${SUFFIX:-}-$RUN.log}
SMP=${SMP:-2}
MEM=${MEM:-1G}
TIMEOUT=${TIMEOUT:-900}

accel=tcg
if [ "${ICOUNT:-0}" = 1 ]; then
	accel_args="-accel tcg,thread=single -icount shift=0,sleep=off"
elif [ "$RUN" != probe ] && [ -z "$CROSS" ] &&
     [ "$("$TOP/scripts/kvm-probe.sh" "$BASE" "$VARIANT")" = kvm ]; then
	accel=kvm
	accel_args="-accel kvm"
else
	accel_args="-accel tcg,thread=single"
fi

append="console=$CONSOLE loglevel=5 panic=-1 oops=panic panic_on_warn=0 rdinit=/init harness.run=$RUN $*"
info "$BASE/$VARIANT: booting ($accel${ICOUNT:+, icount}) harness.run=$RUN, console: ${LOG#$TOP/}"
set +e
cpu="-cpu max"
[ -z "$QEMU_MACHINE" ] || cpu=$QEMU_MACHINE
# shellcheck disable=SC2086
timeout --foreground -k 10 "$TIMEOUT" "$QEMU" \
	-nodefaults -nographic -no-reboot -serial stdio -monitor none \
	$accel_args $cpu -smp "$SMP" -m "$MEM" \
	-kernel "$KERNEL" -initrd "$INITRD" -append "$append" ${QEMU_EXTRA:-} \
	</dev/null >"$LOG" 2>&1
qrc=$?
set -e
tr -d '\r' < "$LOG" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' > "$LOG.tmp" && mv "$LOG.tmp" "$LOG"

# ALLOW_WARN=text: a WARN() whose "WARNING: " line has text in it (the
# base kernel's known WARN()s that the series fixes, patches/BASE/base-xfail
# "warns") does not fail the run: its "WARNING: " line and the "Call
# Trace:" line of its report are left out of the check, nothing else
checked=$LOG
if [ -n "${ALLOW_WARN:-}" ]; then
	checked=$LOG.checked
	awk -v allow="$ALLOW_WARN" '
		/------------\[ cut here \]------------/ { allowed = 0 }
		/WARNING: / && index($0, allow) { allowed = 1; next }
		allowed && /Call Trace:/ { next }
		/---\[ end trace/ { allowed = 0 }
		{ print }' "$LOG" > "$checked"
fi
splat="Kernel panic|BUG: |Oops|WARNING: |UBSAN:|KASAN|KFENCE|possible circular locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|list_(add|del) corruption|general protection fault|Call Trace:"
fail=
end=$(grep -a "^HARNESS-END $RUN rc=" "$LOG" | tail -1)
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	fail="guest timed out after ${TIMEOUT}s"
elif grep -aqE "$splat" "$checked"; then
	fail="kernel reported a problem: $(grep -aE -m1 "$splat" "$checked")"
fi
[ "$checked" = "$LOG" ] || rm -f "$checked"
if [ -z "$fail" ] && [ -z "$end" ]; then
	fail="guest ended (qemu rc=$qrc) without reporting the end of '$RUN'"
fi
if [ -n "$fail" ]; then
	echo "error: $BASE/$VARIANT: $fail" >&2
	echo "---- last 60 console lines ($LOG) ----" >&2
	tail -n 60 "$LOG" >&2
	echo "----" >&2
	exit 3
fi
rc=${end##*rc=}
exit "$rc"
