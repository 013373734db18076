#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# difftest.sh BASE: the differential record test. Boots kernel A (DIFF_A,
# default base) and kernel B (DIFF_B, default patched) of BASE, runs the same
# seeds of the guest program (difftest/*.c) on both and compares the transcripts
# (rule set, syscall results and every normalised record) seed by seed.
# A difference fails the run and is reported with the seed, the rule set,
# the trace step and both records (the differing seeds are rerun on both
# kernels with the full transcript).
# MUTANT=file.patch compares patched with patched + that change instead
# (difftest/mutants/: the test must catch it).
# Environment: DIFF_SEEDS (default 200), DIFF_FIRST (default 1),
# DIFF_REPORT (how many differing seeds to report in full, default 3; 0:
# none, only the count), DIFF_A_OUT (a transcript file of kernel A from an
# earlier run of the same seeds, used instead of booting A again),
# SUFFIX (-debug: the debug kernels), NOBUILD=1 (kernels and initramfs are
# already built, as in make test), DIFF_SMP and DIFF_ICOUNT (the guest's
# vCPUs, default 1, and instruction counting, default 1: see below),
# DIFF_COMPAT=1 (where the kernel runs 32-bit tasks, the trace runs
# compat_helper and the rules name the compat ABI; on arm64 a seed in
# about 400 then differs from boot to boot of one kernel, so it is
# off by default: Documentation/difftest.md).
set -u
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
A=${DIFF_A:-base}
B=${DIFF_B:-patched}
if [ -n "${MUTANT:-}" ]; then
	A=${DIFF_A:-patched}
	B=${DIFF_B:-mutant}
fi
SEEDS=${DIFF_SEEDS:-200}
FIRST=${DIFF_FIRST:-1}
REPORT=${DIFF_REPORT:-3}
label="$BASE${SUFFIX:-} difftest ($A vs $B, seeds $FIRST..$((FIRST + SEEDS - 1)))"

if [ "${NOBUILD:-0}" != 1 ]; then
	"$TOP/scripts/prepare.sh" "$BASE" || exit 1
	for v in $A $B; do
		"$TOP/scripts/build-kernel.sh" "$BASE" "$v" || exit 1
	done
	"$TOP/scripts/initramfs.sh" "$BASE" || exit 1
fi

# One vCPU under instruction counting: the guest's interleaving of the
# traced task, its children and the rule changer then follows instruction
# counts, not the host's timing, and a kernel gives the same transcript in
# every run (with two vCPUs, 7.3 orders records from concurrent tasks and a
# fork against a rule load differently from run to run).
DIFF_SMP=${DIFF_SMP:-1}
DIFF_ICOUNT=${DIFF_ICOUNT:-1}
OUT=$BUILD/difftest/$BASE${SUFFIX:-}
mkdir -p "$OUT"
# guest time: about 0.1 s per seed under TCG, more on debug kernels
export TIMEOUT=${TIMEOUT:-$((300 + SEEDS * 3))}

boot() {	# boot VARIANT ARGS OUTFILE
	local v=$1 args=$2 out=$3 log
	rm -f "$out"
	log=$LOGS/$BASE-$v${SUFFIX:-}-difftest-$(basename "$out").log
	if ! SMP=$DIFF_SMP ICOUNT=$DIFF_ICOUNT LOG=$log "$TOP/scripts/qemu-run.sh" "$BASE" "$v" difftest \
		"harness.difftest=$(echo "$args" | tr ' ' '+')" >/dev/null; then
		echo "error: $BASE/$v${SUFFIX:-}: the difftest guest failed (console: ${log#$TOP/})" >&2
		tail -n 20 "$log" >&2
		return 1
	fi
	grep -a -e '^DIFFTEST' -e '^DT ' "$log" > "$out"
	if grep -q '^DIFFTEST-ERROR' "$out"; then
		echo "error: $BASE/$v${SUFFIX:-}: the difftest harness failed in the guest:" >&2
		grep -a -B5 '^DIFFTEST-ERROR' "$log" >&2
		return 1
	fi
}

fail() {
	echo "$label: 0 passed, 1 failed, 0 skipped"
	echo "  FAIL $*"
	exit 1
}

copt=
[ "${DIFF_COMPAT:-0}" != 1 ] || copt="-c "
info "$label"
if [ -n "${DIFF_A_OUT:-}" ] && [ -f "$DIFF_A_OUT" ]; then
	[ "$DIFF_A_OUT" -ef "$OUT/A-$A.out" ] || cp "$DIFF_A_OUT" "$OUT/A-$A.out"
else
	boot "$A" "$copt-s $FIRST -n $SEEDS" "$OUT/A-$A.out" || fail "the guest run on $A failed"
fi
boot "$B" "$copt-s $FIRST -n $SEEDS" "$OUT/B-$B.out" || fail "the guest run on $B failed"

hashes() { sed -n 's/^DIFFTEST seed=\([0-9]*\) .* hash=\([0-9a-f]*\)$/\1 \2/p' "$1" | sort -n; }
hashes "$OUT/A-$A.out" > "$OUT/A-$A.hashes"
hashes "$OUT/B-$B.out" > "$OUT/B-$B.hashes"
na=$(wc -l < "$OUT/A-$A.hashes") nb=$(wc -l < "$OUT/B-$B.hashes")
[ "$na" = "$SEEDS" ] || fail "$A ran $na of $SEEDS seeds"
[ "$nb" = "$SEEDS" ] || fail "$B ran $nb of $SEEDS seeds"
bad=$(join "$OUT/A-$A.hashes" "$OUT/B-$B.hashes" | awk '$2 != $3 { print $1 }')
nbad=$(echo $bad | wc -w)
cov=$(grep -h '^DIFFTEST-COVERAGE' "$OUT/B-$B.out" | sed 's/^DIFFTEST-COVERAGE //' |
	awk '/^rules/ { r = $0; next } /^seeds/ { c = $0; next }
	     { t = t sep $1 "=" $2; sep = " " } END { print r "; records: " t "; " c }')
# whether the kernel runs 32-bit tasks decides which seeds are generated
compat=$(sed -n 's/^DIFFTEST-COMPAT //p' "$OUT/B-$B.out")
compat_a=$(sed -n 's/^DIFFTEST-COMPAT //p' "$OUT/A-$A.out")
[ "$compat" = "$compat_a" ] ||
	fail "the two kernels ran different traces: $A: ${compat_a:-?}; $B: ${compat:-?} (DIFFTEST-COMPAT)"
[ -z "$compat" ] || cov="$cov; $compat"
# so does whether the kernel has SELinux with a policy (the LSM variant)
lsm=$(sed -n 's/^DIFFTEST-LSM //p' "$OUT/B-$B.out")
lsm_a=$(sed -n 's/^DIFFTEST-LSM //p' "$OUT/A-$A.out")
[ "$lsm" = "$lsm_a" ] ||
	fail "the two kernels ran different traces: $A: ${lsm_a:-no LSM}; $B: ${lsm:-no LSM} (DIFFTEST-LSM)"
[ -z "$lsm" ] || cov="$cov; $lsm"
# the LSM variant's run exists for its LSM steps
case "${SUFFIX:-}" in *-lsm*)
	case "$lsm" in *"AVC steps ("*) ;;
	*) fail "the LSM variant's run had no LSM rule fields or AVC steps: ${lsm:-no DIFFTEST-LSM line}" ;;
	esac
esac

if [ "$nbad" = 0 ]; then
	echo "$label: $SEEDS passed, 0 failed, 0 skipped"
	echo "  (identical transcripts; $cov)"
	exit 0
fi

if [ "$REPORT" = 0 ]; then
	echo "$label: $((SEEDS - nbad)) passed, $nbad failed, 0 skipped"
	echo "  FAIL $nbad seed(s) emit different records: $(echo $bad | tr ' ' '\n' | head -20 | tr '\n' ' ')"
	exit 1
fi
# report the first differing seeds in full
list=$(echo $bad | tr ' ' '\n' | head -n "$REPORT" | tr '\n' ',' | sed 's/,$//')
boot "$A" "$copt-l $list -v" "$OUT/A-$A.report" || fail "rerunning seeds $list on $A failed"
boot "$B" "$copt-l $list -v" "$OUT/B-$B.report" || fail "rerunning seeds $list on $B failed"
echo "$label: $((SEEDS - nbad)) passed, $nbad failed, 0 skipped"
echo "  FAIL $nbad seed(s) emit different records: $(echo $bad | tr ' ' '\n' | head -20 | tr '\n' ' ')"
for s in $(echo "$list" | tr ',' ' '); do
	sed -n "s/^DT $s | //p" "$OUT/A-$A.report" > "$OUT/seed-$s.A-$A"
	sed -n "s/^DT $s | //p" "$OUT/B-$B.report" > "$OUT/seed-$s.B-$B"
	first=$(cmp "$OUT/seed-$s.A-$A" "$OUT/seed-$s.B-$B" 2>/dev/null | sed -n 's/.* line \([0-9]*\)$/\1/p')
	echo "  ---- seed $s (rerun: DIFF_FIRST=$s DIFF_SEEDS=1 make difftest BASE=$BASE) ----"
	echo "  rule set:"
	grep '^rule ' "$OUT/seed-$s.A-$A" | sed 's/^/    /'
	if [ -n "$first" ]; then
		# the step whose records differ: the last heading both share
		step=$(head -n "$((first - 1))" "$OUT/seed-$s.A-$A" | grep -E '^(step [0-9]+|start|exit|flush|rule [0-9]+|delete rule [0-9]+)' | tail -1)
		echo "  first difference at transcript line $first, in: ${step:-the rule set}"
		echo "    $A: $(sed -n "${first}p" "$OUT/seed-$s.A-$A")"
		echo "    $B: $(sed -n "${first}p" "$OUT/seed-$s.B-$B")"
	else
		echo "  (the rerun of seed $s gave identical transcripts: nondeterministic?)"
	fi
	echo "  diff ($A -> $B):"
	diff -U2 --label "$A" --label "$B" "$OUT/seed-$s.A-$A" "$OUT/seed-$s.B-$B" | head -40 | sed 's/^/    /'
done
echo "  full transcripts: ${OUT#$TOP/}/seed-*.{A-$A,B-$B}"
exit 1
