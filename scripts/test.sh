#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh: for each base in BASES (default: all) prepare the tree, build the
# VARIANTS (default: "base patched"), build the initramfs, boot each kernel
# under QEMU and run the audit selftests. Ends with "N passed, N failed".
# TESTS="filter_test ..." runs a subset.
set -u
. "$(dirname "$0")/lib.sh"
BASES=${BASES:-${BASE:-$BASES_ALL}}
VARIANTS=${VARIANTS:-base patched}
start=$(date +%s)
tp=0 tf=0 ts=0 problems=
summary=$BUILD/test-summary.txt
mkdir -p "$BUILD"
: > "$summary"

for b in $BASES; do
	"$TOP/scripts/prepare.sh" "$b" || { problems="$problems $b:prepare"; continue; }
	for v in $VARIANTS; do
		"$TOP/scripts/build-kernel.sh" "$b" "$v" || { problems="$problems $b/$v:build"; continue 2; }
	done
	"$TOP/scripts/initramfs.sh" "$b" || { problems="$problems $b:initramfs"; continue; }
	tests=
	[ -z "${TESTS:-}" ] || tests="harness.tests=$(echo $TESTS | tr ' ' ',')"
	for v in $VARIANTS; do
		load_base "$b"
		log=$LOGS/$b-$v-selftests.log
		LOG=$log "$TOP/scripts/qemu-run.sh" "$b" "$v" selftests $tests
		rc=$?
		if [ $rc = 3 ] || [ ! -f "$log" ]; then
			problems="$problems $b/$v:guest"
			continue
		fi
		line=$("$TOP/scripts/tap-summary.sh" "$log" "$b/$v")
		echo "$line" | tee -a "$summary"
		set -- $(echo "$line" | head -1 | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1 \2 \3/')
		tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3))
		if [ "$2" = 0 ] && [ $rc != 0 ]; then
			problems="$problems $b/$v:rc=$rc"
		fi
	done
done

info "audit selftests done in $(( $(date +%s) - start ))s (logs: ${LOGS#$TOP/}/)"
cat "$summary"
[ -z "$problems" ] || echo "problems:$problems"
[ -z "$problems" ] || tf=$((tf + 1))
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ]
