#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-kernel.sh BASE VARIANT: bzImage from tinyconfig + Kconfig fragments
# (ARCH=arm64: an arm64 Image, cross-built, in build/BASE/VARIANT-arm64).
#   VARIANT=patched builds build/BASE/linux (the series applied),
#   VARIANT=base    builds the pristine base (tag "base" of the same tree).
#   VARIANT=pN      builds base + the first N patches of the series.
#   VARIANT=mutant  builds the patched tree with MUTANT=file.patch applied on
#                   top (for showing that the differential test catches a
#                   change in what the kernel emits); the tree is restored.
# Output: build/BASE/VARIANT/arch/x86/boot/bzImage (and System.map, vmlinux);
# build/BASE/VARIANT-arm64/arch/arm64/boot/Image for ARCH=arm64.
# KBUILD_OUT=dir builds there instead (scripts/bench-series.sh builds every
# prefix of the series in one directory, one after the other).
# FRAGMENTS="file ..." merges extra fragments (e.g. Kconfig/debug.config).
# KCONFIG_BASE=distro starts from Debian's configuration of the release
# (kernel/BASE.conf's DISTRO_PKG) instead of tinyconfig (make bench CONFIG=distro).
# KCONFIG_BASE=defconfig starts from defconfig + kvm_guest.config (the
# audit-testsuite kernel, Kconfig/testsuite.config); where the result has
# modules, they are built too and installed in OUT/modules/lib/modules/.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
VARIANT=${2:-patched}
need gcc "${CROSS}gcc" make flex bison bc ccache
[ -d "$KSRC/.git" ] || die "$KSRC is not prepared: run 'make prepare BASE=$BASE'"

# Both variants build from the one tree, at the same path, so that ccache
# shares every object the series does not touch: the base variant checks out
# tag "base" for the duration of its build and returns to the branch after.
SRC=$KSRC
# VARIANT=pN builds the base with the first N patches of the series, for
# bisecting and for measuring one patch at a time.
case "$VARIANT" in
patched) rev= ;;
base) rev=base ;;
mutant)
	rev=
	[ -n "${MUTANT:-}" ] && [ -f "$MUTANT" ] || die "VARIANT=mutant needs MUTANT=file.patch (a change to the patched tree)"
	MUTANT=$(cd "$(dirname "$MUTANT")" && pwd)/$(basename "$MUTANT")
	[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
		die "$KSRC has uncommitted changes; commit them before building the mutant"
	git -C "$KSRC" apply --check "$MUTANT" 2>&1 | sed 's/^/  /' >&2
	git -C "$KSRC" apply "$MUTANT" || die "$MUTANT does not apply to the patched tree"
	trap 'git -C "$KSRC" checkout -q -- .' EXIT
	info "$BASE/mutant: $(git -C "$KSRC" diff --stat | tail -1)"
	;;
p[0-9]*)
	n=${VARIANT#p}
	rev=$(git -C "$KSRC" rev-list --reverse base..HEAD | sed -n "${n}p")
	[ -n "$rev" ] && [ "$n" -gt 0 ] || die "VARIANT=$VARIANT: the series has $(git -C "$KSRC" rev-list --count base..HEAD) commit(s)"
	;;
*) die "unknown VARIANT '$VARIANT' (patched, base, or pN for the first N patches)" ;;
esac
if [ -n "$rev" ]; then
	[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
		die "$KSRC has uncommitted changes; commit them (and 'make export') before building the $VARIANT variant"
	branch=$(git -C "$KSRC" symbolic-ref -q --short HEAD) ||
		die "$KSRC is not on a branch (an earlier build interrupted?): 'git -C $KSRC checkout master'"
	trap 'git -C "$KSRC" checkout -q "$branch"' EXIT
	git -C "$KSRC" checkout -q --detach "$rev"
fi
OUT=${KBUILD_OUT:-$BDIR/$VARIANT${SUFFIX:-}}
mkdir -p "$OUT"

frags="$TOP/Kconfig/base.config $TOP/Kconfig/$ARCH.config $TOP/Kconfig/audit.config"
# Debian's configuration and defconfig have what base.config gives tinyconfig
case "${KCONFIG_BASE:-tiny}" in
tiny) ;;
distro | defconfig) frags="$TOP/Kconfig/audit.config" ;;
*) die "KCONFIG_BASE=${KCONFIG_BASE}: tiny, distro or defconfig" ;;
esac
[ -f "$TOP/tools/testing/selftests/audit/config" ] &&
	frags="$frags $TOP/tools/testing/selftests/audit/config"
for f in ${FRAGMENTS:-}; do
	[ -f "$f" ] || f=$TOP/$f
	[ -f "$f" ] || die "config fragment $f not found"
	frags="$frags $f"
done

# Reconfigure only when a fragment changed; otherwise build incrementally.
cfgsum=$( (echo "${KCONFIG_BASE:-tiny} ${DISTRO_PKG:-} ${PKG_VERSION:-}"; cat $frags) | sha256sum | cut -d' ' -f1)
if [ ! -f "$OUT/.config" ] || [ "$(cat "$OUT/.fragments.sum" 2>/dev/null)" != "$cfgsum" ]; then
	if [ "${KCONFIG_BASE:-tiny}" = distro ]; then
		# the distribution's configuration for this release
		[ -n "${DISTRO_PKG:-}" ] || die "kernel/$BASE.conf names no DISTRO_PKG (the package with Debian's config)"
		deb=$("$TOP/scripts/fetch-base.sh" "$BASE" "$DISTRO_PKG") || die "cannot fetch $DISTRO_PKG"
		rm -rf "$OUT/distro-pkg"
		dpkg-deb -x "$deb" "$OUT/distro-pkg"
		dcfg=$(find "$OUT/distro-pkg" -path '*/modules/*/config' -o -name 'config-*' | head -1)
		[ -n "$dcfg" ] || die "$DISTRO_PKG has no kernel configuration"
		info "$BASE/$VARIANT: configuring (${dcfg#$OUT/distro-pkg/} of $DISTRO_PKG +$(for f in $frags; do printf ' %s' "${f#$TOP/}"; done))"
		cp "$dcfg" "$OUT/.config"
		rm -rf "$OUT/distro-pkg"
	elif [ "${KCONFIG_BASE:-tiny}" = defconfig ]; then
		info "$BASE/$VARIANT: configuring (defconfig kvm_guest.config +$(for f in $frags; do printf ' %s' "${f#$TOP/}"; done))"
		kmake -C "$SRC" O="$OUT" defconfig kvm_guest.config >"$LOGS/$BASE-$VARIANT-config.log" 2>&1 ||
			{ cat "$LOGS/$BASE-$VARIANT-config.log" >&2; die "$BASE/$VARIANT: make defconfig kvm_guest.config failed"; }
	else
		info "$BASE/$VARIANT: configuring (tinyconfig +$(for f in $frags; do printf ' %s' "${f#$TOP/}"; done))"
		kmake -C "$SRC" O="$OUT" tinyconfig >"$LOGS/$BASE-$VARIANT-config.log" 2>&1 ||
			{ cat "$LOGS/$BASE-$VARIANT-config.log" >&2; die "$BASE/$VARIANT: make tinyconfig failed"; }
	fi
	cat $frags > "$OUT/fragments.config"
	(cd "$OUT" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" .config fragments.config >/dev/null)
	kmake -C "$SRC" O="$OUT" olddefconfig >/dev/null 2>&1
	# every option the fragments ask for must have survived olddefconfig;
	# an option this kernel's Kconfig no longer defines is only reported
	known=$(find "$SRC" -name 'Kconfig*' -not -path '*/.git/*' -print0 |
		xargs -0 sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' | sort -u)
	bad=0
	while read -r line; do
		if ! echo "$known" | grep -qx "${line%%=*}"; then
			info "$BASE/$VARIANT: ${line%%=*} does not exist in this kernel (fragment line ignored)"
			continue
		fi
		case "$line" in
		CONFIG_*=n) o=${line%%=*}; grep -q "^$o=" "$OUT/.config" && { echo "  $o: wanted n, got $(grep "^$o=" "$OUT/.config")" >&2; bad=1; } ;;
		CONFIG_*=*) grep -qx "$line" "$OUT/.config" || { echo "  ${line%%=*}: wanted ${line#*=}, got $(grep "^${line%%=*}=" "$OUT/.config" || echo unset)" >&2; bad=1; } ;;
		esac
	done < <(grep -h '^CONFIG_' $frags)
	[ $bad = 0 ] || die "$BASE/$VARIANT: the config fragments ask for options Kconfig would not give (dependencies missing?)"
	echo "$cfgsum" > "$OUT/.fragments.sum"
fi

info "$BASE/$VARIANT: building $KTARGET${CROSS:+ ($ARCH)} in ${OUT#$TOP/}"
start=$(date +%s)
blog=$LOGS/$BASE-$VARIANT${SUFFIX:-}-build.log
if ! kmake -C "$SRC" O="$OUT" "$KTARGET" >"$blog" 2>&1; then
	grep -E -B2 -A6 "error:|Error [0-9]" "$blog" | head -60 >&2
	die "$BASE/$VARIANT: kernel build failed (full log: ${blog#$TOP/})"
fi
if grep -q '^CONFIG_MODULES=y' "$OUT/.config"; then
	need depmod
	rm -rf "$OUT/modules"
	if ! kmake -C "$SRC" O="$OUT" modules >>"$blog" 2>&1 ||
	   ! kmake -C "$SRC" O="$OUT" INSTALL_MOD_PATH="$OUT/modules" modules_install >>"$blog" 2>&1; then
		grep -E -B2 -A6 "error:|Error [0-9]" "$blog" | head -60 >&2
		die "$BASE/$VARIANT: building or installing the modules failed (full log: ${blog#$TOP/})"
	fi
fi
info "$BASE/$VARIANT: built in $(( $(date +%s) - start ))s: ${OUT#$TOP/}/$KIMAGE"
