# SPDX-License-Identifier: GPL-2.0
# Common helpers for the harness scripts. Source it; do not run it.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
BASES_ALL=$(cd "$TOP/kernel" && ls *.conf | sed 's/\.conf$//' | sort -V | tr '\n' ' ')
# the base the verbs default to, and the one make test runs the mutants on
PRIMARY_BASE=mainline
# the bases other than the primary one: its backports
backport_bases() {
	echo " $BASES_ALL " | sed "s/ $PRIMARY_BASE / /" | xargs
}
# the mutants make test must see caught (difftest/mutants/NAME.patch)
MUTANTS_DEFAULT="reset-keeps-prio entry-keeps-current-state"
# mutants that only a selftest reaches, as NAME:PROGRAM: PROGRAM must fail
# on the mutant kernel
SELFTEST_MUTANTS_DEFAULT="uring-entry-clears-cancelled-dummy:context_test uring-entry-keeps-stale-args:context_test vformat-grow-without-reformat:watch_test proctitle-lower-case-hex:context_test"

# mutant_file NAME BASE: the mutant's patch for BASE: difftest/mutants/BASE/
# NAME.patch where the base's code needs its own, else difftest/mutants/NAME.patch
mutant_file() {
	if [ -f "$TOP/difftest/mutants/$2/$1.patch" ]; then
		echo "$TOP/difftest/mutants/$2/$1.patch"
	else
		echo "$TOP/difftest/mutants/$1.patch"
	fi
}

# Progress: one line per stage, with the seconds since the outermost harness
# command started. Full logs go to $LOGS.
export HARNESS_T0=${HARNESS_T0:-$(date +%s)}
LOGS=$BUILD/logs
mkdir -p "$LOGS" 2>/dev/null || true
die() { echo "error: $*" >&2; exit 1; }
info() { printf '[%4ss] %s\n' "$(( $(date +%s) - HARNESS_T0 ))" "$*" >&2; }

# load_base BASE: read kernel/BASE.conf into the environment
load_base() {
	BASE=$1
	[ -n "$BASE" ] || die "no BASE given (known: $BASES_ALL)"
	[ -f "$TOP/kernel/$BASE.conf" ] ||
		die "unknown base '$BASE' (known: $BASES_ALL); add kernel/$BASE.conf to support it"
	unset PKG PKG_VERSION SUITE KVER TARBALL TOPDIR SHA256 DISTRO_PKG
	# shellcheck disable=SC1090
	. "$TOP/kernel/$BASE.conf"
	# a base from a suite the host does not use is fetched into build/src
	# (scripts/fetch-base.sh); TARBALL is its path inside the package
	if [ -n "${SUITE:-}" ]; then
		SRCDIR=$BUILD/src/${PKG}_$PKG_VERSION
		TARBALL=$SRCDIR$TARBALL
	fi
	BDIR=$BUILD/$BASE
	KSRC=$BDIR/linux
	PATCHDIR=$TOP/patches/$BASE
}

# the Debian mirror of the host's sources (the entry of the host's release)
host_mirror() {
	local codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			# deb822: print "URI suite..." per stanza
			awk 'BEGIN { RS = ""; FS = "\n" } {
				u = ""; s = ""; t = ""
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) u = $i
					if ($i ~ /^Suites:/) s = $i
					if ($i ~ /^Types:/) t = $i
				}
				if (t ~ /deb( |$)/) { sub(/^URIs: */, "", u); sub(/^Suites: */, "", s); print u, s }
			}' "$f"
		done
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) \([^ ]*\).*/\2 \3/p'
	} | awk -v c="$codename" '{ for (i = 2; i <= NF; i++) if ($i == c) { print $1; exit } }'
}

need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "'$t' is not installed; run 'make deps' (as root) to install what the harness needs"
	done
}

# hash of everything that determines a prepared tree
inputs_hash() {
	{
		echo "$SHA256"
		cat "$TOP/scripts/prepare.sh" "$TOP/scripts/lib.sh"
		cat "$PATCHDIR/series" 2>/dev/null
		while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			cat "$PATCHDIR/$p"
		done < <(cat "$PATCHDIR/series" 2>/dev/null)
		cat "$TOP/patches/selftests.msg"; (cd "$TOP" && git ls-files -co --exclude-standard tools/testing/selftests/audit | sort | xargs cat)
	} | sha256sum | cut -d' ' -f1
}

series_patches() {
	[ -f "$PATCHDIR/series" ] || return 0
	grep -v -e '^#' -e '^[[:space:]]*$' "$PATCHDIR/series" | awk '{print $1}'
}

# The architecture of the test kernels and guests: ARCH=x86_64 (the
# default, also "x86") or ARCH=arm64 (also "aarch64"): cross-built with
# Debian's gcc-aarch64-linux-gnu and booted with qemu-system-aarch64 -M virt.
# Each architecture has its own kernels, initramfs and logs: ASUF is added
# to SUFFIX (build/BASE/VARIANT-arm64, build/BASE/initramfs-arm64.cpio.gz).
case "${ARCH:-x86_64}" in
x86_64|x86|amd64)
	ARCH=x86_64 ASUF= CROSS= CROSS_COMPAT= KIMAGE=arch/x86/boot/bzImage KTARGET=bzImage
	QEMU=qemu-system-x86_64 QEMU_MACHINE= CONSOLE=ttyS0
	DEB_ARCH=amd64 TRIPLET=x86_64-linux-gnu LDSO=/lib64/ld-linux-x86-64.so.2 ;;
arm64|aarch64)
	ARCH=arm64 ASUF=-arm64 CROSS=aarch64-linux-gnu- KIMAGE=arch/arm64/boot/Image KTARGET=Image
	# pauth-impdef: QEMU's own pointer-authentication hash, many times
	# cheaper to emulate than QARMA; the guest sees the same instructions
	QEMU=qemu-system-aarch64 QEMU_MACHINE="-M virt -cpu max,pauth-impdef=on" CONSOLE=ttyAMA0
	DEB_ARCH=arm64 TRIPLET=aarch64-linux-gnu LDSO=/lib/ld-linux-aarch64.so.1
	# the AArch32 compiler for compat_test's 32-bit task
	CROSS_COMPAT=arm-linux-gnueabihf- ;;
*)
	echo "error: ARCH=$ARCH: the harness builds and boots x86_64 and arm64" >&2
	exit 1 ;;
esac
export ARCH
if [ -n "$ASUF" ]; then
	case "${SUFFIX:-}" in *"$ASUF") ;; *) SUFFIX=${SUFFIX:-}$ASUF ;; esac
	export SUFFIX
elif [ -n "${SUFFIX:-}" ]; then
	# an arm64 run's suffix, inherited by an x86_64 one
	SUFFIX=${SUFFIX%-arm64}
	export SUFFIX
fi
# four mistakes that only compat_test reaches, on kernels that run 32-bit
# tasks: arm64's test kernels, and x86_64's IA32 variant (test.sh, IA32=1)
COMPAT_SELFTEST_MUTANTS="arch-field-ignored:compat_test exit-set-native-arch-only:compat_test exit-reads-native-set:compat_test dupe-rule-without-arch:compat_test"
if [ "$ARCH" = arm64 ]; then
	SELFTEST_MUTANTS_DEFAULT="$SELFTEST_MUTANTS_DEFAULT $COMPAT_SELFTEST_MUTANTS"
fi

# kernel build settings shared by build and check
kmake() {
	make -s ARCH="$ARCH" ${CROSS:+CROSS_COMPILE=$CROSS} CC="ccache ${CROSS}gcc" \
		HOSTCC="ccache gcc" -j"$(nproc)" "$@"
}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$BUILD}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}

# add_selftests TREE: copy tools/testing/selftests/audit into TREE, hook it
# into the selftests Makefile, and commit it when TREE is a git tree.
add_selftests() {
	local t=$1
	rm -rf "$t/tools/testing/selftests/audit"
	mkdir -p "$t/tools/testing/selftests/audit"
	(cd "$TOP/tools/testing/selftests/audit" &&
		{ git ls-files -co --exclude-standard . 2>/dev/null || find . -type f; } |
		xargs cp --parents -t "$t/tools/testing/selftests/audit/")
	# hook into the selftests Makefile, in its alphabetical order
	if ! grep -qx 'TARGETS += audit' "$t/tools/testing/selftests/Makefile"; then
		awk '!done && /^TARGETS \+= / && $3 > "audit" { print "TARGETS += audit"; done = 1 }
		     { print }' "$t/tools/testing/selftests/Makefile" > "$t/sm.new" &&
			mv "$t/sm.new" "$t/tools/testing/selftests/Makefile"
	fi
	# the subsystem's maintainers own its selftests
	if ! grep -q '^F:	tools/testing/selftests/audit/' "$t/MAINTAINERS"; then
		awk '/^AUDIT SUBSYSTEM$/ { a = 1 }
		     a && /^F:\tlib\/\*audit\.c$/ { print; print "F:\ttools/testing/selftests/audit/"; a = 0; next }
		     { print }' "$t/MAINTAINERS" > "$t/MAINTAINERS.new" && mv "$t/MAINTAINERS.new" "$t/MAINTAINERS"
	fi
	[ -e "$t/.git" ] || return 0
	# -f: the directory holds only what was copied above, and a tree's
	# .gitignore may ignore it (Debian's ignores tools/) or its .gitignore
	# (the kernel's ignores dot files)
	git -C "$t" add -A -f tools/testing/selftests/audit \
		tools/testing/selftests/Makefile MAINTAINERS
	# SELFTESTS_AUTHOR="Name <mail>" (make apply: the series' author, as
	# git am keeps it; the committer is the tree's own identity) and
	# SELFTESTS_DATE=now (make apply) or a fixed date (the harness's trees)
	git -C "$t" diff --cached --quiet ||
		git -C "$t" commit -q -F "$TOP/patches/selftests.msg" \
			${SELFTESTS_AUTHOR:+--author="$SELFTESTS_AUTHOR"} \
			$([ "${SELFTESTS_DATE:-}" = now ] || echo --date="${SELFTESTS_DATE:-2000-01-01T00:00:00Z}")
}

# Identity for the commits of the harness's own trees (build/), so that
# prepared trees are the same wherever they are made.
harness_identity() {
	export GIT_AUTHOR_NAME="Audit Fastpath" GIT_AUTHOR_EMAIL="audit-fastpath@localhost"
	export GIT_COMMITTER_NAME="Audit Fastpath" GIT_COMMITTER_EMAIL="audit-fastpath@localhost"
}

# is_selftests_commit TREE COMMIT: true when COMMIT only touches the selftests
is_selftests_commit() {
	! git -C "$1" diff-tree --no-commit-id --name-only -r "$2" |
		grep -qv -e '^tools/testing/selftests/audit/' -e '^tools/testing/selftests/Makefile$' \
			-e '^MAINTAINERS$'
}

# version of a kernel tree: "6.12"
tree_version() {
	local v p
	v=$(sed -n 's/^VERSION = //p' "$1/Makefile" 2>/dev/null)
	p=$(sed -n 's/^PATCHLEVEL = //p' "$1/Makefile" 2>/dev/null)
	[ -n "$v" ] && [ -n "$p" ] && echo "$v.$p"
}

# the base whose series fits a kernel tree: the base of the same version
# ("6.12", "mainline" for 7.3), else mainline for a tree newer than every
# pinned base; prints nothing when none fits
tree_base() {
	local t b newest=
	t=$(tree_version "$1") || return 1
	for b in $BASES_ALL; do
		v=$( . "$TOP/kernel/$b.conf"; echo "${KVER%%-*}" | cut -d. -f1,2)
		[ "$v" = "$t" ] && { echo "$b"; return 0; }
		[ -z "$newest" ] || [ "$(printf '%s\n%s\n' "$v" "$newest" | sort -V | tail -1)" = "$v" ] && newest=$v
	done
	[ "$(printf '%s\n%s\n' "$t" "$newest" | sort -V | tail -1)" = "$t" ] && echo "$PRIMARY_BASE"
}

# bench_opt_level: O2=1 measures kernels built at -O2, as distributions
# build them (Kconfig/o2.config, in build/BASE/VARIANT-o2); the default
# tinyconfig kernels are -Os (scripts/bench.sh, scripts/profile.sh)
# CONFIG=distro measures kernels built from the distribution's own
# configuration (Debian's, from kernel/BASE.conf's DISTRO_PKG, at -O2 with
# its mitigations and LSMs; Kconfig/distro.config) in build/BASE/VARIANT-distro
bench_opt_level() {
	case "${CONFIG:-}" in
	''|tiny) ;;
	distro)
		[ "$ARCH" = x86_64 ] || die "CONFIG=distro is built for x86_64 only (Debian's amd64 configuration)"
		export SUFFIX=-distro KCONFIG_BASE=distro FRAGMENTS="Kconfig/distro.config ${FRAGMENTS:-}" ;;
	*) die "CONFIG=$CONFIG: use distro (Debian's configuration) or leave it unset (tinyconfig)" ;;
	esac
	if [ "${O2:-0}" = 1 ]; then
		[ "${CONFIG:-}" = distro ] && die "CONFIG=distro is built at -O2 already; drop O2=1"
		export SUFFIX=-o2$ASUF FRAGMENTS="Kconfig/o2.config ${FRAGMENTS:-}"
	fi
}

# bench_cfg_args CONFIG: the kernel arguments of a benchmark configuration
# (scripts/bench.sh, scripts/profile.sh)
bench_cfg_args() {
	case "$1" in
	audit0) echo "audit=0" ;;
	norules) echo "audit=1" ;;
	nevertask) echo "audit=1 harness.rules=never-task" ;;
	builtin) echo "audit=1 audit_never_task=1" ;;	# the series' built-in rule
	uring) echo "audit=1" ;;	# + audit-bench -u 36 (see bench/rules/uring.rules)
	match) echo "audit=1 harness.rules=match" ;;	# + audit-bench -d: a reader takes the records
	ten) echo "audit=1 harness.rules=ten" ;;
	stig) echo "audit=1 harness.rules=stig" ;;
	# the compliance files of Debian's auditd package (scripts/initramfs.sh)
	debstig) echo "audit=1 harness.rules=debian-stig" ;;
	debospp) echo "audit=1 harness.rules=debian-ospp" ;;
	# N compliance-shaped rules on syscalls the timed loop does not make
	rules1) echo "audit=1 harness.rules=size-1" ;;
	rules100) echo "audit=1 harness.rules=size-100" ;;
	rules1000) echo "audit=1 harness.rules=size-1000" ;;
	# what an eBPF agent pays instead of audit: audit off, a program on
	# the sys_enter and sys_exit raw tracepoints (audit-bench -b), empty or
	# writing each syscall's event to a ring buffer that a reader drains
	bpfempty|bpfring) echo "audit=0" ;;
	*) die "unknown bench configuration $1 (audit0 norules nevertask builtin uring match ten stig debstig debospp rules1 rules100 rules1000 bpfempty bpfring)" ;;
	esac
}
