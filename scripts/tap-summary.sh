#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tap-summary.sh LOG LABEL: count the kselftest TAP results in a guest console
# log. Prints "LABEL: N passed, N failed, N skipped" and one line per failed
# test; exits 1 when a test failed or a test program's plan was not met.
set -u
log=$1 label=$2
awk -v label="$label" '
	/^HARNESS-TEST / { prog = $2; plan = 0; seen = 0; next }
	/^1\.\.[0-9]+$/ && prog != "" { plan = substr($0, 4) + 0; next }
	/^ok [0-9]+ / && prog != "" {
		seen++
		if ($0 ~ /# SKIP/) { skip++; skipped[skip] = prog ": " $0 } else pass++
		next
	}
	/^not ok [0-9]+ / && prog != "" {
		seen++
		if ($0 ~ /# (SKIP|XFAIL)/) { skip++; next }
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
		for (i = 1; i <= fail; i++) printf "  FAIL %s\n", failed[i]
		for (i = 1; i <= skip; i++) if (skipped[i] != "") printf "  skip %s\n", skipped[i]
		exit fail > 0
	}' "$log"
