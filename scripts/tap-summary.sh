#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tap-summary.sh LOG LABEL [XFAIL-FILE]: count the kselftest TAP results in a
# guest console log. Prints "LABEL: N passed, N failed, N skipped" and one line
# per failed test; exits 1 when a test failed or a test program's plan was not
# met. XFAIL-FILE lists tests that must fail (on the base kernel, the tests of
# what the series changes), one per line: "program" (all of its tests) or
# "program:test" (the name in the TAP line, e.g. never_task.listed). Such a
# test counts as passed when it fails, and as failed ("XPASS") when it passes.
set -u
log=$1 label=$2 xfile=${3:-}
xfail=
[ -n "$xfile" ] && [ -f "$xfile" ] && xfail=$(awk '!/^#/ && NF {
	for (i = 2; i <= NF; i++) if ($i == "crash" || $i == "warns") next
	print $1 }' "$xfile" | tr '\n' ' ')
awk -v label="$label" -v xfail=" $xfail " '
	function expected(name) {
		return index(xfail, " " prog " ") || index(xfail, " " prog ":" name " ")
	}
	/^HARNESS-TEST / { prog = $2; plan = 0; seen = 0; next }
	/^1\.\.[0-9]+$/ && prog != "" { plan = substr($0, 4) + 0; next }
	/^ok [0-9]+ / && prog != "" {
		seen++
		if ($0 ~ /# SKIP/) { skip++; skipped[skip] = prog ": " $0 }
		else if (expected($3)) { fail++; failed[fail] = prog ": XPASS (must fail on this kernel) " $0 }
		else pass++
		next
	}
	/^not ok [0-9]+ / && prog != "" {
		seen++
		if ($0 ~ /# (SKIP|XFAIL)/) { skip++; next }
		if (expected($4)) { pass++; xf++; next }
		fail++; failed[fail] = prog ": " $0; next
	}
	/^HARNESS-TEST-END / {
		if (plan == 0 || seen != plan) {
			fail++; failed[fail] = prog ": ran " seen " of " plan " planned tests (crashed?)"
		}
		prog = ""; next
	}
	END {
		printf "%s: %d passed, %d failed, %d skipped\n", label, pass, fail, skip
		if (xf) printf "  (%d of the passed failed as they must on this kernel)\n", xf
		for (i = 1; i <= fail; i++) printf "  FAIL %s\n", failed[i]
		for (i = 1; i <= skip; i++) if (skipped[i] != "") printf "  skip %s\n", skipped[i]
		exit fail > 0
	}' "$log"
