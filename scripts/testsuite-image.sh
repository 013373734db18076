#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# testsuite-image.sh: the Debian root disk the audit-testsuite runs on
# (Documentation/audit-testsuite.md), build/testsuite/root.img: Debian
# trixie (SUITE=, for auditd 3.1 or newer), minbase, with the packages the
# suite's tests use, from the mirror the host's own apt sources name, by
# debootstrap into a folder (the host's sources, lists and packages are not
# touched). The suite itself is not in it: scripts/testsuite-boot.sh
# attaches a third disk made from a folder of the reviewer's (a checkout of
# the suite and a script "run" at its top).
# /sbin/testsuite-init mounts what the tests need, gives the session a login
# uid (as pam_loginuid does), starts auditd, runs the work disk's "run" in
# it with the serial console as its controlling terminal, prints
# "testsuite-init: rc=N" and powers off.
set -eu
. "$(dirname "$0")/lib.sh"
need debootstrap mkfs.ext4 chroot
SUITE=${SUITE:-trixie}
DIR=$BUILD/testsuite
ROOT=$DIR/root
IMG=$DIR/root.img
SIZE=${SIZE:-4G}
PKGS="auditd build-essential gcc-multilib perl libfile-which-perl netcat-openbsd psmisc
procps liburing-dev iptables iputils-ping strace kmod iproute2 locales
selinux-policy-default policycoreutils git make"
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
uri=$(host_mirror)
[ -n "$uri" ] || die "cannot find the Debian mirror in the host's apt sources (/etc/apt/sources.list*)"

mkdir -p "$DIR"
if [ ! -x "$ROOT/usr/sbin/auditd" ]; then
	rm -rf "$ROOT"
	info "testsuite image: debootstrap $SUITE (minbase) into ${ROOT#$TOP/} (log: ${LOGS#$TOP/}/testsuite-debootstrap.log)"
	debootstrap --variant=minbase --include="$(echo $PKGS | tr ' ' ,)" \
		"$SUITE" "$ROOT" "$uri" >"$LOGS/testsuite-debootstrap.log" 2>&1 ||
		{ tail -15 "$LOGS/testsuite-debootstrap.log" >&2; die "debootstrap of $SUITE failed (log: $LOGS/testsuite-debootstrap.log)"; }
fi

# the host's apt may read a dated snapshot of the archive
echo 'Acquire::Check-Valid-Until "false";' > "$ROOT/etc/apt/apt.conf.d/99no-valid-until"
# the suite's tests run ausearch with LC_TIME=en_DK.utf8
sed -i 's/^# *\(en_DK.UTF-8 UTF-8\)/\1/; s/^# *\(en_US.UTF-8 UTF-8\)/\1/' "$ROOT/etc/locale.gen"
chroot "$ROOT" locale-gen >/dev/null
# iptables' legacy backend: the AUDIT target in the x_tables of the kernel
for t in iptables ip6tables; do
	chroot "$ROOT" update-alternatives --set $t /usr/sbin/$t-legacy >/dev/null
done
# the suite's shell snippets are bash
ln -sf bash "$ROOT/bin/sh"
# SELinux loaded permissive, with Debian's reference policy
mkdir -p "$ROOT/etc/selinux"
printf 'SELINUX=permissive\nSELINUXTYPE=default\n' > "$ROOT/etc/selinux/config"
echo "/dev/vda / ext4 defaults 0 1" > "$ROOT/etc/fstab"
echo testsuite > "$ROOT/etc/hostname"
chroot "$ROOT" passwd -d root >/dev/null

cat > "$ROOT/sbin/testsuite-init" <<'INIT'
#!/bin/bash
# PID 1 of the audit-testsuite guest (written by scripts/testsuite-image.sh).
# /dev/vdb: the kernel's modules (or empty); /dev/vdc: the work disk.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=linux LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t selinuxfs selinuxfs /sys/fs/selinux 2>/dev/null
mount -o remount,rw /
mkdir -p /lib/modules
mount -o ro /dev/vdb /lib/modules 2>/dev/null
mkdir -p /mnt/work
mount /dev/vdc /mnt/work || echo "testsuite-init: no work disk (/dev/vdc)"
hostname testsuite
ip link set lo up
# Debian's reference policy, permissive (/etc/selinux/config)
[ -d /sys/fs/selinux ] && { load_policy || echo "testsuite-init: load_policy failed"; }
# a root login session, as pam_loginuid gives one
echo 0 > /proc/self/loginuid
/etc/init.d/auditd start >/dev/null
echo "testsuite-init: $(uname -r), auditd $(auditctl -v | awk '{ print $NF }'), context $(cat /proc/self/attr/current 2>/dev/null)"
echo "testsuite-init: $(auditctl -s | tr '\n' ' ')"
rc=0
if [ -x /mnt/work/run ]; then
	cd /mnt/work
	setsid -c -w ./run </dev/ttyS0 >/dev/ttyS0 2>&1 || rc=$?
	cd /
else
	echo "testsuite-init: no executable 'run' on the work disk"
	rc=127
fi
echo "testsuite-init: rc=$rc"
/etc/init.d/auditd stop >/dev/null 2>&1
umount /mnt/work 2>/dev/null
sync
echo o > /proc/sysrq-trigger
sleep 30
INIT
chmod 755 "$ROOT/sbin/testsuite-init"

info "testsuite image: ${IMG#$TOP/} ($SIZE, ext4)"
rm -f "$IMG"
mkfs.ext4 -q -F -L testsuite -d "$ROOT" "$IMG" "$SIZE" ||
	die "mkfs.ext4 -d $ROOT failed"
