#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh: for each base in BASES (see below) prepare the tree, build the
# VARIANTS (default: "base patched"), build the initramfs, boot each kernel
# under QEMU and run the audit selftests. Ends with "N passed, N failed".
# TESTS="filter_test ..." runs a subset (an unknown name stops the run at
# once; a run that executes no test fails). Each kernel is booted once for all
# the selftests, and once more for those that need kernel arguments
# (never_task_test: audit=1 audit_never_task=1), and the patched kernel once
# more for what the selftests leave behind (HYGIENE=0 skips it: guest/init's
# harness.run=hygiene runs them without privilege, twice as root and after a
# killed run, and compares the audit configuration). On the base kernel, the
# programs patches/BASE/base-xfail marks "crash" (the series fixes a BUG they
# hit) run in a boot of their own, which must end in that crash (the tests
# that report before it are counted and must pass); those it
# marks "alone" (on a kernel that fails them they leave it in a state that
# fails other programs) run in a boot of their own, with their TAP checked;
# so do those it marks "warns" (they may make the base kernel WARN() in the
# audit code, as the series fixes), where such a WARN() fails nothing.
# Then the differential record test (scripts/difftest.sh, DIFF_SEEDS seeds,
# default 200) compares the base and patched kernels; DIFFTEST=0 skips it.
# On the bases in MUTANT_BASES (default: the primary base) it then builds
# each of MUTANTS (difftest/mutants/[BASE/]NAME.patch on the patched tree) and runs
# the same seeds on it: each must differ from the patched kernel in at least
# one seed, or the differential test could not see that kind of mistake.
# Each of SELFTEST_MUTANTS (NAME:PROGRAM, a mistake that only a selftest
# reaches) is built the same way, and PROGRAM must fail on it.
# PREFIXES=1 also tests every prefix of the series (VARIANT=pN), each against
# the fixed-by=N marks of patches/BASE/base-xfail: a tree that cannot be
# bisected fails here.
# ARCH=arm64 does it on arm64 kernels (cross-built, booted with
# qemu-system-aarch64 -M virt under TCG; see lib.sh), with three more
# selftest mutants that only compat_test reaches (lib.sh). The selftest
# mutants need only the patched kernel, so they also run where the base
# kernel or the differential test is left out.
# DEBUG=1 does all of it on debug kernels (Kconfig/debug.config: KASAN,
# KFENCE, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_LIST), built in
# build/BASE/VARIANT-debug; any splat in a console fails the run.
set -u
. "$(dirname "$0")/lib.sh"
# Default: the primary base in full (base and patched kernels, the
# differential test, the mutants); BACKPORTS=1 adds the backports' patched
# kernels with their selftests (BACKPORT_VARIANTS). BASES=all (make
# test-all) runs every base in full; BASES="6.12 ..." the named ones in full.
VARIANTS=${VARIANTS:-base patched}
if [ -z "${BASES:-}" ] && [ -z "${BASE:-}" ]; then
	BASES=$PRIMARY_BASE
	[ "${BACKPORTS:-0}" = 1 ] && BASES="$PRIMARY_BASE $(backport_bases)"
	FULL_BASES=$PRIMARY_BASE
else
	BASES=${BASES:-$BASE}
	[ "$BASES" = all ] && BASES=$BASES_ALL
	FULL_BASES=$BASES
fi
for b in $BASES; do
	[ -f "$TOP/kernel/$b.conf" ] || die "unknown base '$b' (known: $BASES_ALL)"
done
# TESTS names programs of the selftests: refuse an unknown one before
# building anything
if [ -n "${TESTS:-}" ]; then
	known=$(awk '/^TEST_GEN_PROGS[ \t]*:?=/ { on = 1; sub(/^[^=]*=/, "") }
		on { c = sub(/\\$/, ""); printf "%s ", $0; if (!c) on = 0 }' \
		"$TOP/tools/testing/selftests/audit/Makefile" | xargs)
	for t in $TESTS; do
		case " $known " in
		*" $t "*) ;;
		*) die "TESTS: no selftest program '$t' (known: $known)" ;;
		esac
	done
fi
if [ "${DEBUG:-0}" = 1 ]; then
	export SUFFIX=-debug$ASUF
	export FRAGMENTS="Kconfig/debug.config ${FRAGMENTS:-}"
	# KASAN and lockdep make the guest several times slower under TCG
	export TIMEOUT=${TIMEOUT:-3000}
fi
# LSM=1: the LSM variant (Kconfig/lsm.config: SELinux, with the policy
# guest/init loads, permissive; lsm_test once more in a boot with
# enforcing=1 where it does not crash the kernel), built in
# build/BASE/VARIANT-lsm; the expected failures of its base kernel are
# those of patches/BASE/base-xfail and base-xfail-lsm
if [ "${LSM:-0}" = 1 ]; then
	SUFFIX=${SUFFIX:-}
	export SUFFIX=${SUFFIX%"$ASUF"}-lsm$ASUF
	# (and Kconfig/lsm-ARCH.config where the architecture needs more)
	lsmarch=
	[ -f "$TOP/Kconfig/lsm-$ARCH.config" ] && lsmarch=Kconfig/lsm-$ARCH.config
	export FRAGMENTS="Kconfig/lsm.config $lsmarch ${FRAGMENTS:-}"
	# its mutants are those of the LSM path (the others are the test
	# kernels')
	MUTANTS_DEFAULT=lsm-copy-without-lsm-rule
	SELFTEST_MUTANTS_DEFAULT="lsm-copy-without-lsm-rule:lsm_test trim-failure-counts-lost:fault_test"
fi
# IA32=1 (x86_64): the IA32 variant (Kconfig/ia32.config: 32-bit tasks),
# built in build/BASE/VARIANT-ia32 (expected failures of its base kernel:
# base-xfail and base-xfail-compat, as on arm64, whose kernels run 32-bit
# tasks too); compat_test's i386 task runs, and the
# differential test has compat steps and arch=b32 rules (DIFF_COMPAT=1);
# its mutants are the compat ones (the others are the test kernels')
if [ "${IA32:-0}" = 1 ]; then
	[ "$ARCH" = x86_64 ] || die "IA32=1 is the x86_64 kernels' compat ABI; ARCH=$ARCH runs its own (arm64: AArch32)"
	SUFFIX=${SUFFIX:-}
	export SUFFIX=${SUFFIX%"$ASUF"}-ia32$ASUF
	export FRAGMENTS="Kconfig/ia32.config ${FRAGMENTS:-}"
	export DIFF_COMPAT=1
	MUTANTS_DEFAULT= SELFTEST_MUTANTS_DEFAULT=$COMPAT_SELFTEST_MUTANTS
fi
# crash_elsewhere PROGRAM LOG: the crash of a "crash" program came in a test
# that its base-xfail line's crash-in= (test names, comma-separated) does
# not name; says which (a line without crash-in= accepts any)
crash_elsewhere() {
	local at allowed
	allowed=$(awk -v p="$1" '$1 == p && $2 == "crash" {
		for (i = 3; i <= NF; i++) if ($i ~ /^crash-in=/) print substr($i, 10) }' "$xfail" | tr ',' ' ')
	[ -n "$allowed" ] || return 1
	at=$(awk '/^#  RUN / { t = $3 } /kernel BUG|Oops/ { print t; exit }' "$2")
	case " $allowed " in *" $at "*) return 1 ;; esac
	echo "$1 crashed in ${at:-no test}, not in $allowed" >&2
	return 0
}
# programs that run in a boot of their own on every kernel (kauditd_test
# sets the failure mode to panic, and counts records the kernel loses)
OWN_BOOT=${OWN_BOOT-kauditd_test}
S=${SUFFIX:-}
FULL_VARIANTS=$VARIANTS
start=$(date +%s)
tp=0 tf=0 ts=0 problems=
summary=$BUILD/test-summary$S.txt
mkdir -p "$BUILD"
: > "$summary"

for b in $BASES; do
	"$TOP/scripts/prepare.sh" "$b" || { problems="$problems $b:prepare"; continue; }
	case " $FULL_BASES " in
	*" $b "*) VARIANTS=$FULL_VARIANTS ;;
	*) VARIANTS=${BACKPORT_VARIANTS:-patched} ;;
	esac
	for v in $VARIANTS; do
		"$TOP/scripts/build-kernel.sh" "$b" "$v" || { problems="$problems $b/$v:build"; continue 2; }
	done
	"$TOP/scripts/initramfs.sh" "$b" || { problems="$problems $b:initramfs"; continue; }
	load_base "$b"
	all=$(cat "$BDIR/initramfs$ASUF/kselftest/audit/list")
	vs=$VARIANTS
	if [ "${PREFIXES:-0}" = 1 ]; then
		n=$(series_patches | wc -l)
		vs="base $(seq -f 'p%g' 1 $((n - 1)) | tr '\n' ' ')patched"
		for v in $vs; do
			"$TOP/scripts/build-kernel.sh" "$b" "$v" || { problems="$problems $b/$v:build"; continue 2; }
		done
	fi
	for v in $vs; do
		# on the base kernel (and on prefixes of the series) the tests of
		# what the series (or the rest of it) changes must fail
		xfail= crash= alone= warns= k=
		case "$v" in base) k=0 ;; p[0-9]*) k=${v#p} ;; esac
		if [ -n "$k" ] && [ -f "$PATCHDIR/base-xfail" ]; then
			xfail=$BUILD/xfail-$b-$v$S
			xfiles=$PATCHDIR/base-xfail
			[ "${LSM:-0}" = 1 ] && [ -f "$PATCHDIR/base-xfail-lsm" ] &&
				xfiles="$xfiles $PATCHDIR/base-xfail-lsm"
			{ [ "${IA32:-0}" = 1 ] || [ "$ARCH" = arm64 ]; } && [ -f "$PATCHDIR/base-xfail-compat" ] &&
				xfiles="$xfiles $PATCHDIR/base-xfail-compat"
			# shellcheck disable=SC2086
			awk -v k="$k" '!/^#/ && NF {
				n = 1000
				for (i = 2; i <= NF; i++) if ($i ~ /^fixed-by=/) n = substr($i, 10) + 0
				if (n > k) print }' $xfiles > "$xfail"
			# each program once (that of a "program:test" line)
			crash=$(awk '{ sub(/:.*/, "", $1) } $2 == "crash" && !seen[$1]++ { print $1 }' "$xfail")
			alone=$(awk '{ sub(/:.*/, "", $1); for (i = 2; i <= NF; i++) if ($i == "alone" || $i == "warns") { if (!seen[$1]++) print $1; break } }' "$xfail")
			warns=$(awk '{ sub(/:.*/, "", $1); for (i = 2; i <= NF; i++) if ($i == "warns" && !seen[$1]++) print $1 }' "$xfail")
			[ -s "$xfail" ] || xfail=
		fi
		while IFS='|' read -r boot args progs; do
			[ -n "$boot" ] || continue
			[ "$boot" = default ] && boot=
			# a program that crashes this kernel, or leaves it in a
			# state that fails other programs, gets a boot of its own
			if [ -z "$boot" ] && [ -n "$crash$alone$OWN_BOOT" ]; then
				progs=$(for p in $all; do case " $(echo $crash $alone $OWN_BOOT) " in *" $p "*) ;; *) echo "$p" ;; esac; done)
			fi
			if [ "$boot" = crash ]; then
				[ -n "$crash" ] || continue
				for p in $crash; do
					[ -z "${TESTS:-}" ] || case " $TESTS " in *" $p "*) ;; *) continue ;; esac
					log=$LOGS/$b-$v$S-selftests-crash-$p.log
					rm -f "$log"	# never read an earlier run's
					if LOG=$log "$TOP/scripts/qemu-run.sh" "$b" "$v" selftests \
						harness.tests=$p >/dev/null 2>&1; then
						line="$b/$v$S ($p): 0 passed, 1 failed, 0 skipped
  FAIL $p: XPASS: must crash this kernel (base-xfail) but did not"
					elif grep -aqE "kernel BUG|Oops" "$log" &&
					     ! crash_elsewhere "$p" "$log"; then
						# the tests that ran before the crash count as
						# everywhere else (their expected failures too)
						before=$(awk -v p="$p" -v xf="$xfail" '
							BEGIN { while ((getline l < xf) > 0) { split(l, f, " "); x[f[1]] = 1 } }
							/^ok [0-9]+ .*# SKIP/ { s++; next }
							/^ok [0-9]+ / { ok++; next }
							/^not ok [0-9]+ / { t = $4; if ((p ":" t) in x) ok++; else { bad++; print "  FAIL " p ":" t " (before the crash)" } }
							END { printf "%d %d %d\n", ok, bad, s }' "$log")
						set -- $(echo "$before" | tail -1)
						line="$b/$v$S ($p): $(($1 + 1)) passed, $2 failed, $3 skipped
  ($p crashed this kernel as it must: $(grep -aE -m1 "kernel BUG|Oops" "$log" | sed 's/^\[[ 0-9.]*\] //'))"
						[ "$2" = 0 ] || line="$line
$(echo "$before" | sed '$d')"
					else
						line="$b/$v$S ($p): 0 passed, 1 failed, 0 skipped
  FAIL $p: must crash this kernel; the run failed otherwise (${log#$TOP/})"
					fi
					echo "$line" | tee -a "$summary"
					set -- $(echo "$line" | head -1 | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/')
					tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3))
				done
				continue
			fi
			if [ -n "${TESTS:-}" ]; then
				[ -z "$progs" ] && progs=$TESTS ||
					progs=$(for p in $progs; do case " $TESTS " in *" $p "*) echo "$p" ;; esac; done)
				[ -n "$progs" ] || continue
			fi
			label=$b/$v$S${boot:+ ($boot)}
			log=$LOGS/$b-$v$S-selftests${boot:+-$boot}.log
			# a program that "warns" may hit the audit code's WARN()s
			allow=
			case "$boot" in alone-*)
				case " $(echo $warns) " in *" ${boot#alone-} "*) allow=kernel/audit ;; esac
			esac
			rm -f "$log"
			ALLOW_WARN=$allow LOG=$log "$TOP/scripts/qemu-run.sh" "$b" "$v" selftests $args \
				${progs:+harness.tests=$(echo $progs | tr ' ' ',')}
			rc=$?
			if [ $rc = 3 ] || [ ! -f "$log" ]; then
				problems="$problems $label:guest"
				continue
			fi
			line=$("$TOP/scripts/tap-summary.sh" "$log" "$label" "$xfail")
			# the LSM variant exists for lsm_test and fault_test: none
			# of their tests may skip there, and the enforcing boot
			# must enforce
			for lp in lsm_test fault_test; do
				[ "${LSM:-0}" = 1 ] && grep -aqx "HARNESS-TEST $lp" "$log" || continue
				sk=$(awk -v p="$lp" '$0 == "HARNESS-TEST " p { on = 1; next }
					$0 ~ "^HARNESS-TEST-END " p { on = 0 }
					on && /^ok [0-9]+ .*# SKIP/' "$log")
				[ -z "$sk" ] || line="$line
  FAIL $lp skipped on the LSM variant: $(echo "$sk" | head -1)"
				[ -z "$sk" ] || problems="$problems $label:$lp-skipped"
			done
			if [ "$boot" = enforcing ] && ! grep -aq "SELinux: harness policy loaded, enforcing=1" "$log"; then
				line="$line
  FAIL the enforcing boot did not enforce (${log#$TOP/})"
				problems="$problems $label:not-enforcing"
			fi
			echo "$line" | tee -a "$summary"
			set -- $(echo "$line" | head -1 | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/')
			tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3))
			# a guest that reports failure must show it in TAP; XFAILs excepted
			if [ "$2" = 0 ] && [ $rc != 0 ] && [ -z "$xfail" ]; then
				problems="$problems $label:rc=$rc"
			fi
		done <<-BOOTS
		default||
		never-task|audit=1 audit_never_task=1|never_task_test
		crash||
		$(for p in $alone; do echo "alone-$p||$p"; done)
		$(for p in $OWN_BOOT; do case " $(echo $crash $alone) " in *" $p "*) ;; *) echo "own-$p||$p" ;; esac; done)
		$([ "${LSM:-0}" = 1 ] && case " $(echo $crash) " in *" lsm_test "*) ;; *) echo "enforcing|enforcing=1|lsm_test" ;; esac)
		BOOTS
		# what the selftests leave behind (guest/init, harness.run=hygiene):
		# once, on the patched kernel
		[ "$v" = patched ] && [ "${HYGIENE:-1}" = 1 ] && [ -z "${TESTS:-}" ] || continue
		label="$b/$v$S (hygiene)"
		log=$LOGS/$b-$v$S-selftests-hygiene.log
		rm -f "$log"
		LOG=$log "$TOP/scripts/qemu-run.sh" "$b" "$v" hygiene
		rc=$?
		if [ $rc = 3 ] || [ ! -f "$log" ]; then
			problems="$problems $label:guest"
			continue
		fi
		line=$("$TOP/scripts/tap-summary.sh" "$log" "$label")
		echo "$line" | tee -a "$summary"
		set -- $(echo "$line" | head -1 | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/')
		tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3))
		if [ "$2" = 0 ] && [ $rc != 0 ]; then
			problems="$problems $label:rc=$rc"
		fi
	done
	# fault_test prints the records it saw under failslab ("# fault: "
	# lines, without what changes between boots): base and patched must
	# print the same (the LSM variant runs it; elsewhere it skips)
	fb=$LOGS/$b-base$S-selftests.log fp=$LOGS/$b-patched$S-selftests.log
	if [[ " $vs " == *" base "* && " $vs " == *" patched "* ]] &&
	   [[ -z "${TESTS:-}" || " $TESTS " == *" fault_test "* ]] &&
	   { [ "${LSM:-0}" = 1 ] || grep -aqs "^# fault: " "$fp"; }; then
		label="$b$S fault_test base = patched"
		fd=$BUILD/fault-diff-$b$S.txt
		if ! grep -aqs "^# fault: " "$fp"; then
			line="$label: 0 passed, 1 failed, 0 skipped
  FAIL fault_test printed no records on the patched kernel (${fp#$TOP/})"
			tf=$((tf + 1))
		elif [ -f "$fb" ] && diff <(grep -a "^# fault: " "$fb") <(grep -a "^# fault: " "$fp") > "$fd"; then
			line="$label: 1 passed, 0 failed, 0 skipped
  (the same $(grep -ac "^# fault: .* type=" "$fp") records and losses under failslab)"
			tp=$((tp + 1))
		else
			line="$label: 0 passed, 1 failed, 0 skipped
  FAIL base and patched print other records or losses under failslab (${fd#$TOP/}):
$(head -6 "$fd" | cut -c1-300 | sed 's/^/    /')"
			tf=$((tf + 1))
		fi
		echo "$line" | tee -a "$summary"
	fi
	# the differential record test: base and patched must emit the same
	case " $VARIANTS " in *" patched "*) ;; *) continue ;; esac
	[ -z "${TESTS:-}" ] || continue
	diffok=
	case " $VARIANTS " in *" base "*) [ "${DIFFTEST:-1}" = 1 ] && diffok=run ;; esac
	if [ -n "$diffok" ]; then
		line=$(NOBUILD=1 "$TOP/scripts/difftest.sh" "$b")
		rc=$?
		echo "$line" | tee -a "$summary"
		set -- $(echo "$line" | head -1 | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
		if [ $# = 3 ]; then
			tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3))
		fi
		[ $rc = 0 ] || problems="$problems $b$S:difftest"
		[ $rc = 0 ] && diffok=ok
	fi
	case " ${MUTANT_BASES-$PRIMARY_BASE} " in *" $b "*) ;; *) continue ;; esac
	# the difftest's mutants are compared with this run's patched transcript
	for m in ${MUTANTS-$MUTANTS_DEFAULT}; do
		[ "$diffok" = ok ] || break
		mf=$(mutant_file "$m" "$b")
		label="$b$S mutant $m"
		if ! MUTANT=$mf "$TOP/scripts/build-kernel.sh" "$b" mutant; then
			problems="$problems $b/mutant-$m:build"
			continue
		fi
		out=$(NOBUILD=1 MUTANT=$mf DIFF_REPORT=0 \
			DIFF_A_OUT=$BUILD/difftest/$b$S/B-patched.out "$TOP/scripts/difftest.sh" "$b")
		rc=$?
		# caught: seeds differ (not a guest or harness failure)
		nbad=$(echo "$out" | sed -n 's/^  FAIL \([0-9]*\) seed(s) emit different records.*/\1/p')
		if [ $rc = 1 ] && [ "${nbad:-0}" -gt 0 ]; then
			line="$label: 1 passed, 0 failed, 0 skipped
  (caught: $nbad of ${DIFF_SEEDS:-200} seeds emit other records)"
			tp=$((tp + 1))
		else
			line="$label: 0 passed, 1 failed, 0 skipped
  FAIL the differential test did not catch it: $(echo "$out" | head -1)"
			tf=$((tf + 1))
		fi
		echo "$line" | tee -a "$summary"
	done
	for mp in ${SELFTEST_MUTANTS-$SELFTEST_MUTANTS_DEFAULT}; do
		m=${mp%%:*} p=${mp#*:}
		mf=$(mutant_file "$m" "$b")
		label="$b$S mutant $m"
		# a mutant of code that only some bases carry (the series of a
		# backport is older): said, and counted as skipped
		if [ ! -f "$mf" ]; then
			line="$label: 0 passed, 0 failed, 1 skipped
  SKIP no mutant $m for base $b (difftest/mutants/$b/$m.patch)"
			ts=$((ts + 1))
			echo "$line" | tee -a "$summary"
			continue
		fi
		if ! MUTANT=$mf "$TOP/scripts/build-kernel.sh" "$b" mutant; then
			problems="$problems $b/mutant-$m:build"
			continue
		fi
		log=$LOGS/$b-mutant$S-selftests-$m.log
		rm -f "$log"
		LOG=$log "$TOP/scripts/qemu-run.sh" "$b" mutant selftests \
			harness.tests=$p >/dev/null 2>&1
		out=$("$TOP/scripts/tap-summary.sh" "$log" "$label" "")
		# caught: a test failed its assertions (the program did not crash)
		if grep -q "^  FAIL $p: not ok " <<<"$out" &&
		   ! grep -q "(crashed?)" <<<"$out"; then
			line="$label: 1 passed, 0 failed, 0 skipped
  (caught by $p: $(echo "$out" | sed -n 's/^  FAIL [^:]*: not ok [0-9]* //p' | head -1))"
			tp=$((tp + 1))
		else
			line="$label: 0 passed, 1 failed, 0 skipped
  FAIL $p did not catch it (${log#$TOP/})"
			tf=$((tf + 1))
		fi
		echo "$line" | tee -a "$summary"
	done
done

info "audit selftests done in $(( $(date +%s) - start ))s (logs: ${LOGS#$TOP/}/)"
cat "$summary"
# a run that executed no test proves nothing
[ $((tp + tf)) != 0 ] || problems="$problems no-test-ran"
[ -z "$problems" ] || echo "problems:$problems"
[ -z "$problems" ] || tf=$((tf + 1))
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ]
