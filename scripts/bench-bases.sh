#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-bases.sh NAME...: one table from several make bench runs
# (build/bench/NAME.csv, NAME = BASE or BASE-o2 or BASE-distro), so that a
# reader sees what carried over from one base to another: per workload and
# audit configuration, each run's base and patched cost as a ratio to that
# kernel's audit=0 (median instructions per operation). A configuration or
# workload a run did not measure is left blank.
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || die "usage: scripts/bench-bases.sh mainline mainline-o2 6.12 ..."
for n in "$@"; do
	[ -f "$BUILD/bench/$n.csv" ] || die "$BUILD/bench/$n.csv missing: run make bench for it"
done
python3 - "$BUILD/bench" "$@" <<'PY'
import csv, statistics, sys
d, names = sys.argv[1], sys.argv[2:]
runs, order_c, order_w = {}, [], []
for n in names:
    m = {}
    for r in csv.DictReader(open(f"{d}/{n}.csv")):
        m.setdefault((r["variant"], r["config"], r["workload"]), []).append(float(r["instr_per_op"]))
        if r["config"] not in order_c: order_c.append(r["config"])
        if r["workload"] not in order_w: order_w.append(r["workload"])
    runs[n] = {k: statistics.median(v) for k, v in m.items()}
def ratio(run, variant, c, w):
    v, z = run.get((variant, c, w)), run.get((variant, "audit0", w))
    if v is None or z is None: return ""
    return f"{v / z:.2f}x"
head = "| workload | config | " + " | ".join(f"{n} base | {n} patched" for n in names) + " |"
print(head)
print("|" + " --- |" * (2 + 2 * len(names)))
for w in order_w:
    for c in order_c:
        if c == "audit0": continue
        cells = []
        for n in names:
            cells += [ratio(runs[n], "base", c, w), ratio(runs[n], "patched", c, w)]
        if any(cells):
            print(f"| {w} | {c} | " + " | ".join(cells) + " |")
print()
print("audit=0 instructions per operation (base kernel): " + "; ".join(
    f"{n}: " + ", ".join(f"{w} {runs[n][('base', 'audit0', w)]:.1f}" for w in order_w if ('base', 'audit0', w) in runs[n])
    for n in names))
PY
