#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh [BASE...]: for every patch of every series (default: all bases;
# the backports only up to the mutants, see QUICK below)
#  - git am on the pristine base (make prepare does it, patch by patch)
#  - scripts/checkpatch.pl --strict: no errors, no warnings, no checks, except
#    what patches/BASE/checkpatch-exceptions lists ("<patch> <TYPE> <reason>")
#  - sparse (C=2) and W=1 on the .c files the series touches: no finding on
#    the patched tree that the base does not have
#  - coccinelle's report mode on those files: likewise
#  - make series stops without the sender's identity; with one, it builds
#    the submissions, git send-email --dry-run takes each, and their mails
#    apply with git am to the pinned base in their order; each submission
#    applies on the base with its AFTER set alone, whose patch ids its
#    prerequisite-patch-id: lines are
#  - every difftest/mutants/*.patch (or the base's own version of it in
#    difftest/mutants/BASE/) still applies to the patched tree, so
#    that make difftest MUTANT=... shows what it says it shows
#  - make apply (scripts/apply-test.sh, primary base): a plain tree, git
#    trees (one whose .gitignore ignores tools/), a conflicting one, a dirty
#    one, one without an identity, one applied twice, an unpinned release
#  - the selftests build with make -C tools/testing/selftests TARGETS=audit
#    for x86, and cross-compiled for arm64 and riscv64, without a warning
#  - kernel/, io_uring/ and init/ compile with CONFIG_AUDIT=n and with
#    CONFIG_IO_URING=n (CONFIG_AUDITSYSCALL follows CONFIG_AUDIT on x86),
#    with no W=1 warning the base does not have
# QUICK=1 stops after the first three (git am, checkpatch, mutants): about
# a minute a base, for use after every make export; CI runs all of it.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
need perl sparse spatch
# Default: the primary base in full, the backports QUICK (their code is the
# primary base's, and make check-all, BASES=all, checks them in full too).
if [ $# = 0 ] && [ -z "${BASES:-}" ]; then
	BASES=$BASES_ALL
	QUICK_BASES=$(backport_bases)
else
	BASES=${*:-$BASES}
	[ "$BASES" = all ] && BASES=$BASES_ALL
	QUICK_BASES=
fi
[ "${QUICK:-0}" = 1 ] && QUICK_BASES=$BASES
pass=0 fail=0
# coccinelle results by file content, kept across clones like ccache
COCCI_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/audit-fastpath/cocci

ok() { pass=$((pass + 1)); echo "  ok   $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL $*"; }

# findings of one tool on one file, line numbers dropped so that code
# moving within the file does not count as new
norm() { sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort; }

for b in $BASES; do
	load_base "$b"
	echo "== $b"
	mkdir -p "$BDIR"
	if "$TOP/scripts/prepare.sh" "$b" >/dev/null 2>"$BDIR/check-prepare.log"; then
		ok "$b: the series applies with git am to $PKG $PKG_VERSION"
	else
		bad "$b: the series does not apply:"; sed 's/^/       /' "$BDIR/check-prepare.log"
		continue
	fi
	out=$BDIR/check
	rm -rf "$out/mails"
	mkdir -p "$out/mails"
	git -C "$KSRC" format-patch -q -o "$out/mails" --no-signature --zero-commit base..HEAD >/dev/null
	exc=$PATCHDIR/checkpatch-exceptions
	for m in "$out"/mails/*.patch; do
		[ -f "$m" ] || continue
		name=$(basename "$m")
		ign=$( [ -f "$exc" ] && awk -v n="$name" '$1 == n { print $2 }' "$exc" | paste -sd, -)
		res=$(cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse --no-summary \
			--show-types ${ign:+--ignore "$ign"} "$m" 2>&1)
		if [ -z "$res" ]; then
			ok "$b: checkpatch --strict $name${ign:+ (documented exceptions: $ign)}"
		else
			bad "$b: checkpatch --strict $name"; echo "$res" | sed 's/^/       /'
		fi
	done

	# every mutant name, generic or of this base alone
	for m in $(for f in "$TOP"/difftest/mutants/*.patch "$TOP/difftest/mutants/$b"/*.patch; do
			[ -f "$f" ] && basename "$f" .patch; done | sort -u); do
		m=$(mutant_file "$m" "$b")
		if res=$(git -C "$KSRC" apply --check "$m" 2>&1); then
			ok "$b: mutant ${m#$TOP/difftest/mutants/} applies to the patched tree"
		else
			bad "$b: mutant ${m#$TOP/difftest/mutants/} no longer applies to the patched tree:"
			echo "$res" | sed 's/^/       /'
		fi
	done

	case " $QUICK_BASES " in *" $b "*) continue ;; esac

	# make apply on the trees a developer brings (scripts/apply-test.sh)
	if [ "$b" = "$PRIMARY_BASE" ]; then
		"$TOP/scripts/apply-test.sh" "$b" > "$BDIR/check-apply.log" 2>&1
		while IFS= read -r l; do
			case "$l" in
			"  ok   "*) ok "$b: make apply, ${l#  ok   }" ;;
			"  FAIL "*) bad "$b: make apply, ${l#  FAIL }" ;;
			"       "*) echo "$l" ;;
			esac
		done < "$BDIR/check-apply.log"
		grep -q "^[0-9]* passed, [0-9]* failed$" "$BDIR/check-apply.log" ||
			{ bad "$b: scripts/apply-test.sh stopped:"; tail -5 "$BDIR/check-apply.log" | sed 's/^/       /'; }
	fi

	# the selftests build from the kernel tree alone, as kselftest builds
	# them, natively and with Debian's cross compilers, without a warning
	for a in x86:gcc arm64:aarch64-linux-gnu-gcc riscv:riscv64-linux-gnu-gcc; do
		arch=${a%%:*} cc=${a#*:}
		od=$BDIR/check-selftests-$arch
		if ! command -v "$cc" >/dev/null; then
			bad "$b: selftests for $arch: $cc not found (make deps installs it)"
			continue
		fi
		rm -rf "$od"
		mkdir -p "$od"
		cross=
		[ "$arch" = x86 ] || cross=${cc%gcc}
		if ! make -s -j"$(nproc)" -C "$KSRC/tools/testing/selftests" TARGETS=audit ARCH=$arch \
			CROSS_COMPILE=$cross O="$od" > "$od.log" 2>&1; then
			bad "$b: selftests do not build for $arch:"; grep -E -m10 "error|Error" "$od.log" | sed 's/^/       /'
		elif grep -q "warning:" "$od.log"; then
			bad "$b: selftests build for $arch with warnings:"; grep -m10 "warning:" "$od.log" | sed 's/^/       /'
		else
			ok "$b: make -C tools/testing/selftests TARGETS=audit ARCH=$arch: $(ls "$od/kselftest/audit" | grep -c '_test$') programs, no warning"
		fi
	done

	# make series: with no identity it must stop and say why; with one,
	# every submission passes git send-email --dry-run, and the mails of
	# the submissions, in their order, apply with git am to the pinned base
	if (export HOME=$out/no-identity GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	    mkdir -p "$HOME"; "$TOP/scripts/series.sh" "$b") > "$out/series-noid.log" 2>&1; then
		bad "$b: make series went on without git config user.name/user.email"
	elif grep -q "user.name" "$out/series-noid.log"; then
		ok "$b: make series without an identity stops: $(grep -m1 -o 'set the sender.s identity first' "$out/series-noid.log")"
	else
		bad "$b: make series without an identity failed for another reason:"; tail -5 "$out/series-noid.log" | sed 's/^/       /'
	fi
	if (export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="Check Sender" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=check.sender@example.org
	    DRY_RUN=1 "$TOP/scripts/series.sh" "$b") > "$out/series.log" 2>&1; then
		:
	else
		bad "$b: make series / git send-email --dry-run:"; tail -15 "$out/series.log" | sed 's/^/       /'
	fi
	if grep -q "submission(s) in\|fixes for stable in\|nothing to send" "$out/series.log" && ! grep -q "^error" "$out/series.log"; then
		ok "$b: make series: $(ls -d "$BUILD/series/$b"/*/ 2>/dev/null | wc -l) submission(s), $(find "$BUILD/series/$b" -name '*.patch' | wc -l) mail(s); git send-email --dry-run accepts each"
	fi
	# a backport base sends only its backports of fixes to stable
	if [ "$b" = "$PRIMARY_BASE" ] && [ -s "$out/series.log" ] && ! grep -q "^error" "$out/series.log"; then
		am=$BDIR/check-am
		git -C "$KSRC" worktree remove -f "$am" >/dev/null 2>&1 || rm -rf "$am"
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$am" base
		amok=1
		for d in "$BUILD/series/$b"/*/; do
			# the audit-testsuite's submission applies to the suite, not to
			# the kernel (its cover letter names the suite's base-commit:)
			case "$d" in *-audit-testsuite/) continue ;; esac
			for m in "$d"0*.patch; do
				case "$m" in *0000-cover-letter.patch) continue ;; esac
				if ! git -C "$am" -c user.name=check -c user.email=check@example.org \
					am -q "$m" > "$out/series-am.log" 2>&1; then
					bad "$b: $(basename "$d")/$(basename "$m") does not apply with git am after the submissions before it:"
					sed 's/^/       /' "$out/series-am.log" | head -10
					amok=0
					break 2
				fi
			done
		done
		for d in "$BUILD/series/$b"/*-audit-testsuite/; do
			[ -d "$d" ] || continue
			if grep -q '^base-commit: [0-9a-f]\{40\}$' "$d/0000-cover-letter.patch" 2>/dev/null &&
			   [ "$(ls "$d"0*.patch | grep -vc 0000-cover-letter)" -gt 0 ]; then
				ok "$b: $(basename "$d"): $(ls "$d"0*.patch | grep -vc 0000-cover-letter) patch(es) for the suite, its cover letter naming the suite's base-commit:"
			else
				bad "$b: $(basename "$d"): no patches, or its cover letter names no base-commit:"
			fi
		done
		if [ $amok = 1 ]; then
			if git -C "$am" diff --quiet HEAD "$(git -C "$KSRC" rev-parse HEAD)"; then
				ok "$b: the submissions apply with git am to $PKG $PKG_VERSION in their order and give the series' tree"
			else
				bad "$b: the submissions apply but do not give the series' tree"
			fi
		fi
		# each submission applies on the base and the submissions it says
		# it comes after (AFTER) alone, and its cover's
		# prerequisite-patch-id: lines are exactly theirs
		while read -r sname range prefix after; do
			case "$sname" in ''|'#'*) continue ;; esac
			sd=$(ls -d "$BUILD/series/$b"/[0-9][0-9]-"$sname"/ 2>/dev/null)
			[ -n "$sd" ] || continue
			git -C "$am" reset -q --hard base
			mails=
			for d in ${after//,/ }; do
				[ "$d" = - ] || mails="$mails $(ls "$BUILD/series/$b"/[0-9][0-9]-"$d"/0*.patch | grep -v 0000-cover-letter)"
			done
			want=$(for m in $mails; do git -C "$am" patch-id --stable < "$m" | cut -d' ' -f1; done)
			got=$(sed -n 's/^prerequisite-patch-id: //p' "$sd/0000-cover-letter.patch")
			mails="$mails $(ls "$sd"0*.patch | grep -v 0000-cover-letter)"
			failed=
			for m in $mails; do
				git -C "$am" apply --index "$m" > "$out/series-am.log" 2>&1 || { failed=$m; break; }
			done
			if [ -n "$failed" ]; then
				bad "$b: $sname does not apply on the base and its AFTER set ($after): $(basename "$failed")"
				sed 's/^/       /' "$out/series-am.log" | head -5
			elif [ "$want" != "$got" ]; then
				bad "$b: $sname: prerequisite-patch-id: lines are not the patches of its AFTER set ($after)"
			else
				ok "$b: $sname applies on the base with only its AFTER set ($after), which its prerequisite-patch-id: lines name"
			fi
		done < "$PATCHDIR/submissions"
		git -C "$KSRC" worktree remove -f "$am" >/dev/null 2>&1 || true
	fi

	# the series must build in the configurations it has #ifdefs for
	for cfg in AUDIT IO_URING; do
		for v in base patched; do
			od=$BDIR/check-no-$cfg-$v
			mkdir -p "$od"
			branch=$(git -C "$KSRC" symbolic-ref -q --short HEAD)
			[ $v = base ] && git -C "$KSRC" checkout -q --detach base
			{
				kmake -C "$KSRC" O="$od" tinyconfig &&
				cat "$TOP"/Kconfig/base.config "$TOP"/Kconfig/audit.config \
					"$TOP"/tools/testing/selftests/audit/config > "$od/frag.config" &&
				echo "CONFIG_$cfg=n" >> "$od/frag.config" &&
				(cd "$od" && "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$od" .config frag.config) &&
				kmake -C "$KSRC" O="$od" olddefconfig &&
				! grep -q "^CONFIG_$cfg=y" "$od/.config" &&
				kmake -C "$KSRC" O="$od" W=1 kernel/ io_uring/ init/
			} > "$od.log" 2>&1
			rc=$?
			[ $v = base ] && git -C "$KSRC" checkout -q "$branch"
			grep -E "warning:|error:" "$od.log" | norm > "$od.findings"
			if [ $rc != 0 ]; then
				bad "$b/$v: kernel/ io_uring/ init/ do not build with CONFIG_$cfg=n:"
				grep -E -A3 "error:|Error " "$od.log" | head -20 | sed 's/^/       /'
			fi
		done
		new=$(comm -13 "$BDIR/check-no-$cfg-base.findings" "$BDIR/check-no-$cfg-patched.findings")
		if [ -z "$new" ]; then
			ok "$b: kernel/ io_uring/ init/ build with CONFIG_$cfg=n, nothing new with W=1"
		else
			bad "$b: CONFIG_$cfg=n: new warnings"; echo "$new" | sed 's/^/       /'
		fi
	done

	# kernel C files the series changes (selftests are userspace: skipped)
	files=$(git -C "$KSRC" diff --name-only base..HEAD -- '*.c' | grep -v '^tools/' || true)
	if [ -z "$files" ]; then
		ok "$b: no kernel C files touched: sparse, W=1 and coccicheck have nothing to compare"
		continue
	fi
	for v in base patched; do
		"$TOP/scripts/build-kernel.sh" "$b" "$v" >/dev/null 2>&1 || { bad "$b/$v: build"; continue 2; }
	done
	for v in base patched; do
		rm -rf "$out/$v"; mkdir -p "$out/$v"
		branch=$(git -C "$KSRC" symbolic-ref -q --short HEAD)
		[ $v = base ] && git -C "$KSRC" checkout -q --detach base
		for f in $files; do
			[ -f "$KSRC/$f" ] || continue
			o=${f%.c}.o
			rm -f "$BDIR/$v/$o"
			kmake -C "$KSRC" O="$BDIR/$v" C=2 W=1 CHECK="sparse" "$o" > "$out/$v/raw.log" 2>&1
			if [ ! -f "$BDIR/$v/$o" ]; then
				bad "$b/$v: $o did not build with C=2 W=1:"; tail -20 "$out/$v/raw.log" | sed 's/^/       /'
			fi
			grep -E "warning|error" "$out/$v/raw.log" | norm > "$out/$v/$(echo "$f" | tr / _).build"
			# coccinelle is slow: both cores, and a cache keyed by
			# the file's content (the base's results never change)
			key=$( (cat "$KSRC/$f"; spatch --version 2>&1 | head -1) | sha256sum | cut -c1-32)
			cache=$COCCI_CACHE/$key
			if [ ! -f "$cache" ]; then
				mkdir -p "$COCCI_CACHE"
				grep -l "virtual report" "$KSRC"/scripts/coccinelle/*/*.cocci |
				xargs -P 2 -I{} timeout 120 spatch -D report --very-quiet --no-show-diff \
					--cocci-file {} "$KSRC/$f" -I "$KSRC/include" 2>/dev/null |
					sed "s#$KSRC/##" | norm > "$cache.tmp" && mv "$cache.tmp" "$cache"
			fi
			cp "$cache" "$out/$v/$(echo "$f" | tr / _).cocci"
		done
		[ $v = base ] && git -C "$KSRC" checkout -q "$branch"
	done
	for f in $files; do
		k=$(echo "$f" | tr / _)
		for t in build cocci; do
			what=$([ $t = build ] && echo "sparse + W=1" || echo "coccicheck")
			new=$(comm -13 "$out/base/$k.$t" "$out/patched/$k.$t" 2>/dev/null)
			if [ -z "$new" ]; then
				ok "$b: $what on $f: nothing new ($(wc -l < "$out/patched/$k.$t") finding(s), all in the base too)"
			else
				bad "$b: $what on $f: new findings"; echo "$new" | sed 's/^/       /'
			fi
		done
	done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
