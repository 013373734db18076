#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kvm-probe.sh BASE VARIANT: prints "kvm" when a real boot under KVM reaches
# the guest's init and reports back, "tcg" otherwise. The device node alone
# proves nothing (nested guests here hang early). Cached per host boot.
. "$(dirname "$0")/lib.sh"
load_base "$1"
cache=$BUILD/kvm-probe
boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
if [ -f "$cache" ] && [ "$(head -1 "$cache")" = "$boot" ]; then
	sed -n 2p "$cache"
	exit 0
fi
res=tcg
if [ "${NO_KVM:-0}" != 1 ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	log=$LOGS/kvm-probe.log
	timeout -k 5 "${KVM_PROBE_TIMEOUT:-40}" qemu-system-x86_64 -nodefaults -nographic \
		-no-reboot -serial stdio -monitor none -accel kvm -cpu host -m 256M \
		-kernel "$BDIR/$2/arch/x86/boot/bzImage" -initrd "$BDIR/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 rdinit=/init harness.run=probe" \
		</dev/null >"$log" 2>&1
	grep -aq "^HARNESS-END probe rc=0" "$log" && res=kvm
	echo "kvm probe: $res (log: ${log#$TOP/})" >&2
fi
mkdir -p "$BUILD"
printf '%s\n%s\n' "$boot" "$res" > "$cache"
echo "$res"
