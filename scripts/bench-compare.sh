#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-compare.sh A.csv B.csv: the reproducibility check of make bench.
# Compares the medians of two runs' CSVs (same base) per variant,
# configuration and workload, prints each difference and the largest, and
# exits 1 if a deterministic workload differs by more than LIMIT percent
# (default 1). exec and sqpoll_nop32 are reported but not held to the
# limit: their counts depend on allocator and scheduler state.
set -eu
[ $# = 2 ] && [ -f "$1" ] && [ -f "$2" ] || { echo "usage: $0 A.csv B.csv" >&2; exit 2; }
python3 - "$1" "$2" "${LIMIT:-1}" <<'PY'
import csv, statistics, sys
def med(path):
    d = {}
    for r in csv.DictReader(open(path)):
        d.setdefault((r["variant"], r["config"], r["workload"]), []).append(float(r["instr_per_op"]))
    return {k: statistics.median(v) for k, v in d.items()}
a, b, limit = med(sys.argv[1]), med(sys.argv[2]), float(sys.argv[3])
noisy = ("exec", "sqpoll_nop32")
worst, bad = (0.0, None), []
for k in sorted(set(a) & set(b)):
    d = 100.0 * (b[k] - a[k]) / a[k]
    flag = ""
    if k[2] not in noisy:
        if abs(d) > abs(worst[0]):
            worst = (d, k)
        if abs(d) > limit:
            bad.append(k)
            flag = "  > limit"
    print(f"{'/'.join(k):<40} {a[k]:>12.1f} {b[k]:>12.1f} {d:>+7.2f}%{flag}")
print(f"{len(set(a) & set(b))} medians compared; largest difference of a deterministic workload: "
      f"{worst[0]:+.2f}% ({'/'.join(worst[1]) if worst[1] else '-'}); limit {limit}%")
sys.exit(1 if bad else 0)
PY
