#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-series.sh BASE: what each patch of the series changes in the cost of
# a syscall, for its changelog. Builds the kernel after each patch from
# patch FROM to patch TO (FROM=0 is the base; default: the whole series)
# one after the other in one build directory, so that each build compiles
# only what the patch changed, keeps each kernel image, and boots each kernel
# under instruction-counting TCG (-icount shift=0,sleep=off) once per
# configuration, running the workloads. audit=0 runs on the first and the
# last kernel only: the series leaves that path alone, which the two runs
# show.
#   CONFIGS="audit0 norules ten stig"   WORKLOADS="getpid getpid_tree stat rw"
#   O2=1 / CONFIG=distro / ARCH=arm64   as for bench.sh
#   QUICK=1                             fewer iterations (ITERS=, REPS=)
# Output: one table per configuration, a row per kernel with the patch's
# subject, guest instructions per operation (median of REPS) and the
# change from the kernel before; build/bench/BASE-series[-o2].{csv,table}.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-$PRIMARY_BASE}"
bench_opt_level
name=$BASE-series${SUFFIX:-}
if [ "${QUICK:-0}" = 1 ]; then
	ITERS=${ITERS:-4000} REPS=${REPS:-3}
else
	ITERS=${ITERS:-20000} REPS=${REPS:-3}
fi
CONFIGS=${CONFIGS:-"audit0 norules ten stig"}
WORKLOADS=${WORKLOADS:-"getpid getpid_tree stat rw"}
out=$BUILD/bench
mkdir -p "$out"
csv=$out/$name.csv

# REPORT=1 redoes the table from the last run's CSV and must not re-prepare
# the tree (that would replace commits not yet exported)
[ "${REPORT:-0}" = 1 ] || "$TOP/scripts/prepare.sh" "$BASE"
total=$(git -C "$KSRC" rev-list --count base..HEAD)
# the selftests commit is last and changes no kernel code
last=$(git -C "$KSRC" log -1 --format=%s HEAD)
case "$last" in selftests/*) total=$((total - 1)) ;; esac
FROM=${FROM:-0} TO=${TO:-$total}
[ "$FROM" -ge 0 ] && [ "$TO" -le "$total" ] && [ "$FROM" -lt "$TO" ] ||
	die "FROM=$FROM TO=$TO: the series has $total kernel patch(es); use 0 <= FROM < TO <= $total"

subject() {
	[ "$1" = 0 ] && { echo "(the base)"; return; }
	git -C "$KSRC" log -1 --format=%s "$(git -C "$KSRC" rev-list --reverse base..HEAD | sed -n "$1p")"
}

# the subjects are those of the kernels measured, kept for REPORT=1
subjects=$out/$name.subjects
if [ "${REPORT:-0}" != 1 ]; then
	for n in $(seq "$FROM" "$TO"); do echo "$n $(subject "$n")"; done > "$subjects"
	for n in $(seq "$FROM" "$TO"); do
		v=p$n
		[ "$n" = 0 ] && v=base
		KBUILD_OUT=$BDIR/series${SUFFIX:-} "$TOP/scripts/build-kernel.sh" "$BASE" "$v"
		mkdir -p "$BDIR/series-p$n${SUFFIX:-}/$(dirname "$KIMAGE")"
		cp "$BDIR/series${SUFFIX:-}/$KIMAGE" "$BDIR/series-p$n${SUFFIX:-}/$KIMAGE"
	done
	"$TOP/scripts/initramfs.sh" "$BASE"

	echo "kernel,config,workload,rep,iters,instr_per_op" > "$csv"
	wl=$(echo $WORKLOADS | tr ' ' '+')
	for c in $CONFIGS; do
		for n in $(seq "$FROM" "$TO"); do
			[ "$c" = audit0 ] && [ "$n" != "$FROM" ] && [ "$n" != "$TO" ] && continue
			log=$LOGS/$BASE-series-p$n${SUFFIX:-}-bench-$c.log
			info "bench $BASE p$n $c: $(bench_cfg_args "$c")"
			ICOUNT=1 SMP=1 LOG=$log TIMEOUT=${BENCH_TIMEOUT:-1200} "$TOP/scripts/qemu-run.sh" \
				"$BASE" "series-p$n" bench $(bench_cfg_args "$c") "harness.bench=-n+$ITERS+-r+$REPS+$wl" ||
				die "bench run $BASE p$n $c failed (console: ${log#$TOP/})"
			grep -a "^BENCH " "$log" | awk -v k="$n" -v c="$c" '{
				split($3, r, "="); split($4, i, "="); split($5, x, "=")
				printf "%s,%s,%s,%s,%s,%s\n", k, c, $2, r[2], i[2], x[2] }' >> "$csv"
		done
	done
fi
[ -s "$csv" ] || die "no results in ${csv#$TOP/}"
[ -s "$subjects" ] || die "no ${subjects#$TOP/}: run without REPORT=1 first"

python3 - "$csv" "$subjects" "${SUFFIX:-}" > "$out/$name.table" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
subj = dict(l.rstrip("\n").split(" ", 1) for l in open(sys.argv[2]))
data = {}
for r in rows:
    data.setdefault((r["config"], r["kernel"], r["workload"]), []).append(float(r["instr_per_op"]))
cfgs = list(dict.fromkeys(r["config"] for r in rows))
wls = list(dict.fromkeys(r["workload"] for r in rows))
kernels = sorted({r["kernel"] for r in rows}, key=int)
suffix = sys.argv[3]
arch = "arm64" if suffix.endswith("-arm64") else "x86_64"
suffix = suffix[:-len("-arm64")] if arch == "arm64" else suffix
level = {"": "-Os (tinyconfig)", "-o2": "-O2", "-distro": "Debian's configuration"}[suffix]
print(f"Guest instructions per operation, median of the repetitions, {arch} kernels built at {level}.")
print("Each row is the kernel with the series up to and including that patch; +/- is the")
print("change from the row above.")
for c in cfgs:
    print(f"\n== {c}")
    head = f"  {'':<54}" + "".join(f"{w:>12} {'+/-':>7}" for w in wls)
    print(head)
    prev = {}
    for k in kernels:
        if not any((c, k, w) in data for w in wls):
            continue
        s = subj[k]
        s = s if len(s) <= 48 else s[:47] + "~"
        line = f"  p{k:<3} {s:<48}"
        for w in wls:
            v = data.get((c, k, w))
            if not v:
                line += f"{'-':>12} {'':>7}"
                continue
            m = statistics.median(v)
            d = f"{m - prev[w]:+.1f}" if w in prev else ""
            prev[w] = m
            line += f"{m:>12.1f} {d:>7}"
        print(line)
PY
cat "$out/$name.table"
