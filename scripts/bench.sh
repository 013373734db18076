#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh BASE: build the base and patched kernels of BASE, boot each under
# QEMU TCG with -icount shift=0,sleep=off (guest ns = guest instructions) once
# per audit configuration, run bench/audit-bench's workloads, and report
# instructions/op: base and patched, ratio to audit=0, patched/base (REF=
# and CMP=, below, choose other kernels).
# Output: a table on stdout, build/bench/BASE.csv, build/bench/BASE.svg.
# O2=1: kernels built at -O2, as distributions build them (Kconfig/o2.config;
# build/BASE/VARIANT-o2, build/bench/BASE-o2.*); the default tinyconfig
# kernels are built at -Os.
# QUICK=1: fewer iterations and configurations. ITERS=, REPS= override.
# NOBUILD=1: boot the kernels and initramfs already built (another build
# may use the tree meanwhile); REPORT=1: only the table, from the last CSV.
# CONFIG=distro: kernels from Debian's configuration (see lib.sh), measured
# SETTLE=10 guest seconds after boot.
# ARCH=arm64: arm64 kernels and guests (qemu-system-aarch64 -M virt), in
# build/bench/BASE-arm64.*; rule files lose the syscalls arm64 does not
# have (scripts/initramfs.sh).
# With "match" in CONFIGS, one more boot per kernel measures what a daemon
# that stops reading holds in its socket (audit-bench -s: STALL_ITERS
# getppid, a quarter as many opens): build/bench/BASE-stalled.csv.
# WORKLOAD=srctree: the real workload instead (bench/srctree.sh: unpack a
# source tarball, walk the tree, a configure-style script, remove the
# tree) as a logged-in user (loginuid 1000), with Debian's auditd as the
# daemon writing its log on tmpfs (AUDITD_FLUSH=: its flush mode, default
# incremental_async, Debian's) under no rules, Debian's STIG and OSPP
# example rules and -a never,task, against audit=0 without a daemon; the
# events the log holds are counted with ausearch after each boot:
# build/bench/BASE-srctree-FLUSH.{csv,table}, BASE-srctree-FLUSH-events.csv.
# WORKLOAD=throughput: getppid, openwatch and execargs recorded by the
# "match" rules with auditd as the daemon (AUDITD_FLUSH as above): events
# per guest second, records lost and backlog waits, the log's events
# (BASE-throughput-FLUSH.*).
# WORKLOAD=rulesize: getpid, rw and stat under 1, 10, Debian's STIG and
# OSPP, 100 and 1000 rules on other syscalls (BASE-rulesize.*).
# WORKLOAD=ebpf (CONFIG=distro: the kernel needs bpf() and syscall
# tracepoints): getpid and rw with audit off and an eBPF program on the
# sys_enter and sys_exit raw tracepoints, empty (bpfempty) or writing an
# event per hit to a ring buffer that a reader drains (bpfring), beside
# audit with no rules and with Debian's STIG rules (BASE-distro-ebpf.*;
# the ring's events taken and lost: BASE-distro-ebpf-bpfstat.csv).
# CONFIGS= and WORKLOADS= choose; REF=pN compares against the first N patches
# of the series instead of the base (REF=p3 on 6.1: the base, the io_uring
# fix and the two performance backports). CMP=pN is the kernel compared with
# REF instead of the whole series: the first N patches, N greater than
# REF's (REF=p21 CMP=p23: what patches 22 and 23 change). Its results are
# named BASE...-REF-CMP.* (build/bench/mainline-rulesize-p21-p23.csv) and
# its table and plot say pN where they say "patched"; "builtin" runs on it
# only when it has the series' built-in rule (audit_never_task=).
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-$PRIMARY_BASE}"
start=$(date +%s)
bench_opt_level
name=$BASE${SUFFIX:-}
QUICK=${QUICK:-0}
# a WORKLOAD preset: its configurations and workloads (CONFIGS= and
# WORKLOADS= still choose), auditd as the daemon or not, no rule table,
# no stalled daemon, results under a name of its own
AUDITD= pconf= pwl=
case "${WORKLOAD:-}" in
"") ;;
srctree)
	pconf="audit0 norules debstig debospp nevertask" pwl=/bench/srctree.sh
	AUDITD=${AUDITD_FLUSH:-incremental_async} ;;
throughput)
	# recorded events delivered to auditd: instructions per event, lost
	# and backlog waits (audit-bench -a), the log's events
	pconf="audit0 norules match" pwl="getppid openwatch execargs"
	AUDITD=${AUDITD_FLUSH:-incremental_async} ;;
rulesize)
	# syscalls no rule names, by the size of the rule set
	pconf="audit0 norules rules1 ten debstig debospp rules100 rules1000" pwl="getpid rw stat" ;;
ebpf)
	[ "${KCONFIG_BASE:-tiny}" = distro ] ||
		die "WORKLOAD=ebpf needs bpf() and syscall tracepoints, which tinyconfig kernels have not: use CONFIG=distro"
	pconf="audit0 bpfempty bpfring norules debstig" pwl="getpid rw" ;;
*) die "unknown WORKLOAD=$WORKLOAD (srctree throughput rulesize ebpf)" ;;
esac
if [ -n "${WORKLOAD:-}" ]; then
	CONFIGS=${CONFIGS:-$pconf} WORKLOADS=${WORKLOADS:-$pwl} RULE_COUNTS= STALLED=0
	name=$name-$WORKLOAD${AUDITD:+-$AUDITD}
fi
if [ "$QUICK" = 1 ]; then
	ITERS=${ITERS:-4000} REPS=${REPS:-3}
	CONFIGS=${CONFIGS:-"audit0 norules ten"}
	WORKLOADS=${WORKLOADS:-"getpid stat rw"}
else
	ITERS=${ITERS:-20000} REPS=${REPS:-3}
	CONFIGS=${CONFIGS:-"audit0 norules nevertask builtin ten stig uring match"}
	WORKLOADS=${WORKLOADS:-"getpid getppid getpid_tree stat openclose rw exec uring_nop uring_nop32 uring_openat sqpoll_nop32 execargs openwatch execpar2 execpar8"}
fi
# SETTLE: guest seconds to wait after boot before measuring. A distribution
# kernel finishes its boot-time work (workqueues, deferred initcalls) in the
# first seconds, and a loop timed meanwhile counts that work's instructions
# too; under -icount ...,sleep=off an idle guest's wait costs no host time.
[ "${KCONFIG_BASE:-tiny}" = distro ] && SETTLE=${SETTLE:-10}
SETTLE=${SETTLE:-0}
REF=${REF:-base}
case "$REF" in base|p[0-9]*) ;; *) die "REF=$REF: use base or pN" ;; esac
# CMP: the kernel compared with REF, the whole series unless CMP=pN
CMP=${CMP:-patched}
case "$CMP" in
patched) ;;
base) die "CMP=base: CMP is the kernel compared with REF, which has patches REF has not: use CMP=pN or leave CMP unset (the whole series)" ;;
p|p*[!0-9]*) die "CMP=$CMP: use patched (the default) or pN, the first N patches" ;;
p*)
	[ "$CMP" != "$REF" ] || die "CMP=$CMP is the REF kernel: CMP must have more patches than REF=$REF"
	[ "${CMP#p}" -gt 0 ] || die "CMP=$CMP is the base: use pN with N > 0"
	case "$REF" in p*)
		[ "${CMP#p}" -gt "${REF#p}" ] ||
			die "CMP=$CMP: CMP must have more patches than REF=$REF (N greater than ${REF#p})" ;;
	esac ;;
*) die "CMP=$CMP: use patched (the default) or pN, the first N patches" ;;
esac
# a sub-range of the series: results under a name of their own, which a
# run of the whole series does not overwrite
[ "$CMP" = patched ] || name=$name-$REF-$CMP
# has_builtin VARIANT: true when VARIANT's kernel has the series' built-in
# rule (audit_never_task=): the whole series has it, REF is taken not to,
# a CMP=pN kernel has it from the patch that adds it on
has_builtin() {
	[ "$1" != "$REF" ] || return 1
	[ "$1" != patched ] || return 0
	grep -q ' audit_never_task_setup' "$BDIR/$1${SUFFIX:-}/System.map" 2>/dev/null
}
out=$BUILD/bench
mkdir -p "$out"
csv=$out/$name.csv
# REPORT=1: only redo the table and plot from the last run's CSV
if [ "${REPORT:-0}" != 1 ]; then
# NOBUILD=1: boot the kernels and the initramfs as they are (while the
# one tree builds other kernels)
if [ "${NOBUILD:-0}" != 1 ]; then
	"$TOP/scripts/prepare.sh" "$BASE"
	for v in $REF $CMP; do "$TOP/scripts/build-kernel.sh" "$BASE" "$v"; done
fi
case " $CONFIGS " in *" bpfempty "*|*" bpfring "*)
	for v in $REF $CMP; do
		for o in CONFIG_BPF_SYSCALL CONFIG_FTRACE_SYSCALLS CONFIG_BPF_EVENTS; do
			grep -q "^$o=y" "$BDIR/$v${SUFFIX:-}/.config" ||
				die "bench: bpfempty and bpfring need $o=y, which $BASE/$v${SUFFIX:-} has not (CONFIG=distro has it)"
		done
	done ;;
esac
[ "${NOBUILD:-0}" = 1 ] || "$TOP/scripts/initramfs.sh" "$BASE"
case " $CONFIGS " in *" builtin "*)
	[ "$CMP" = patched ] || has_builtin "$CMP" ||
		info "bench: $BASE/$CMP${SUFFIX:-} has not the series' built-in rule (audit_never_task=): builtin runs on neither kernel" ;;
esac

echo "base,variant,config,workload,rep,iters,instr_per_op" > "$csv"
echo "base,variant,config,workload,rep,lost,backlog_wait_time_actual" > "$out/$name-auditstat.csv"
events=$out/$name-events.csv
rm -f "$events"
[ -z "$AUDITD" ] || echo "base,variant,config,flush,serials,ausearch,auid1000,records,bytes,lost" > "$events"
bpfstat=$out/$name-bpfstat.csv
rm -f "$bpfstat"
wl=$(echo $WORKLOADS | tr ' ' '+')
# cfg_extra CONFIG: audit-bench's options of a configuration
cfg_extra() {
	case "$1" in
	uring) echo -u+36+ ;;
	match) echo -d+ ;;
	bpfempty) echo -b+empty+ ;;
	bpfring) echo -b+ring+ ;;
	esac
}
for c in $CONFIGS; do
	for v in $REF $CMP; do
		# the reference kernel may not have the built-in rule, nor a
		# CMP=pN kernel from before the patch that adds it
		[ "$c" = builtin ] && ! has_builtin "$v" && continue
		info "bench $BASE/$v $c: $(bench_cfg_args "$c")"
		log=$LOGS/$BASE-$v${SUFFIX:-}-bench-$c.log
		extra=$(cfg_extra "$c")
		# the daemon, but not on a kernel booted with audit=0 (auditd
		# would turn auditing on)
		daemon=
		[ -n "$AUDITD" ] && [ "$(bench_cfg_args "$c")" != audit=0 ] && daemon=harness.auditd=$AUDITD &&
			extra=${extra#-d+}-a+
		ICOUNT=1 SMP=1 LOG=$log TIMEOUT=${BENCH_TIMEOUT:-1200} "$TOP/scripts/qemu-run.sh" "$BASE" "$v" bench \
			$(bench_cfg_args "$c") harness.settle=$SETTLE $daemon "harness.bench=$extra-n+$ITERS+-r+$REPS+$wl" ||
			die "bench run $BASE/$v $c failed (console: ${log#$TOP/})"
		if [ -n "$daemon" ]; then
			grep -aqE "^AUDITD .*pid [1-9]" "$log" ||
				die "bench $BASE/$v $c: auditd did not register as the daemon (console: ${log#$TOP/})"
			ev=$(grep -a "^EVENTS " "$log" | tail -1)
			[ -n "$ev" ] || die "bench $BASE/$v $c: no EVENTS line after the daemon stopped (console: ${log#$TOP/})"
			echo "$ev" | awk -v b="$BASE" -v v="$v" -v c="$c" -v f="$AUDITD" '{
				for (i = 2; i <= NF; i++) { split($i, kv, "="); e[kv[1]] = kv[2] }
				printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", b, v, c, f, e["serials"], e["ausearch"],
					e["auid1000"], e["records"], e["bytes"], e["lost"] }' >> "$events"
		fi
		rules=$(bench_cfg_args "$c" | sed -n 's/.*harness.rules=\([^ ]*\).*/\1/p')
		if [ -n "$rules" ]; then
			# the rules as staged for this architecture
			want=$(grep -cE '^-[aw] ' "$BDIR/initramfs$ASUF/bench/rules/$rules.rules")
			got=$(grep -a "^RULES" "$log" | sed -n 's/.*loaded=//p')
			[ "$got" = "$want" ] ||
				die "bench $BASE/$v $c: $got of the $want rules in bench/rules/$rules.rules loaded (console: ${log#$TOP/})"
		fi
		grep -a "^BENCH " "$log" | awk -v b="$BASE" -v v="$v" -v c="$c" '{
			split($3, r, "="); split($4, n, "="); split($5, x, "=")
			printf "%s,%s,%s,%s,%s,%s,%s\n", b, v, c, $2, r[2], n[2], x[2] }' >> "$csv"
		# with the reader (-d): records lost and backlog waits per rep
		grep -a "^AUDITSTAT " "$log" | awk -v b="$BASE" -v v="$v" -v c="$c" '{
			split($3, r, "="); split($4, l, "="); split($5, w, "=")
			printf "%s,%s,%s,%s,%s,%s,%s\n", b, v, c, $2, r[2], l[2], w[2] }' >> "$out/$name-auditstat.csv"
		# with the ring buffer: the events its reader took and those lost
		if [ "$c" = bpfring ]; then
			[ -s "$bpfstat" ] || echo "base,variant,config,workload,rep,iters,events,lost" > "$bpfstat"
			grep -a "^BENCH \|^BPFSTAT " "$log" | awk -v b="$BASE" -v v="$v" -v c="$c" '
				{ for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
				/^BENCH/ { n[$2, f["rep"]] = f["iters"] }
				/^BPFSTAT/ { printf "%s,%s,%s,%s,%s,%s,%s,%s\n", b, v, c, $2, f["rep"],
					n[$2, f["rep"]], f["events"], f["lost"] }' >> "$bpfstat"
			want=$(( REPS * $(echo $WORKLOADS | wc -w) ))
			[ "$(grep -c "^$BASE,$v,$c," "$bpfstat")" = "$want" ] ||
				die "bench $BASE/$v $c: not $want BPFSTAT lines (console: ${log#$TOP/})"
		fi
	done
done

# A daemon that stops reading: what its socket holds with the default
# receive buffer, and the records lost once kauditd's retry queue is full.
stalled=$out/$name-stalled.csv
rm -f "$stalled"
# (not in a WORKLOAD preset's run)
case "${STALLED:-1}: $CONFIGS " in "1:"*" match "*)
	echo "base,variant,workload,rep,records,rmem_alloc,rcvbuf,lost" > "$stalled"
	for v in $REF $CMP; do
		log=$LOGS/$BASE-$v${SUFFIX:-}-bench-stalled.log
		info "bench $BASE/$v match, stalled daemon"
		ICOUNT=1 SMP=1 LOG=$log TIMEOUT=${BENCH_TIMEOUT:-1200} "$TOP/scripts/qemu-run.sh" "$BASE" "$v" bench \
			$(bench_cfg_args match) harness.settle=$SETTLE \
			"harness.bench=-s+-n+${STALL_ITERS:-1000}+-r+$REPS+getppid+openwatch" ||
			die "bench run $BASE/$v match with a stalled daemon failed (console: ${log#$TOP/})"
		grep -aE "^(QUEUED|AUDITSTAT) " "$log" | awk -v b="$BASE" -v v="$v" '
			{ for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
			/^AUDITSTAT/ { lost[$2, f["rep"]] = f["lost"] }
			/^QUEUED/ { printf "%s,%s,%s,%s,%s,%s,%s,%s\n", b, v, $2, f["rep"],
				f["records"], f["rmem_alloc"], f["rcvbuf"], lost[$2, f["rep"]] }' >> "$stalled"
		[ "$(grep -c "^$BASE,$v," "$stalled")" = $((2 * REPS)) ] ||
			die "bench $BASE/$v: not $((2 * REPS)) QUEUED lines from the stalled daemon (console: ${log#$TOP/})"
	done
esac

# The rule table: guest instructions to load RULE_COUNTS rules one by one
# (as auditctl -R does), to add one more and delete it again, and to flush
# them one by one (as auditctl -D does): audit-bench -t, in a boot of its
# own per kernel with no rules loaded. No daemon is registered: with one,
# the delivery of each change's CONFIG_CHANGE record (scheduling kauditd
# and the reader) spreads the figures by more than the rule work.
ruletimes=$out/$name-rules.csv
rm -f "$ruletimes"
if [ "$QUICK" = 1 ]; then
	RULE_COUNTS=${RULE_COUNTS-}
else
	RULE_COUNTS=${RULE_COUNTS-10 100 1000 5000}
fi
if [ -n "$RULE_COUNTS" ]; then
	echo "base,variant,rules,rep,load,add,del,flush" > "$ruletimes"
	for v in $REF $CMP; do
		log=$LOGS/$BASE-$v${SUFFIX:-}-bench-rules.log
		info "bench $BASE/$v rule table: $RULE_COUNTS rules"
		ICOUNT=1 SMP=1 LOG=$log TIMEOUT=${BENCH_TIMEOUT:-1200} "$TOP/scripts/qemu-run.sh" "$BASE" "$v" bench \
			$(bench_cfg_args norules) harness.settle=$SETTLE \
			"harness.bench=-r+$REPS+-t+$(echo $RULE_COUNTS | tr ' ' ,)" ||
			die "bench run $BASE/$v of the rule table failed (console: ${log#$TOP/})"
		grep -a "^RULETIME " "$log" | awk -v b="$BASE" -v v="$v" '
			{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			  printf "%s,%s,%s,%s,%s,%s,%s,%s\n", b, v, f["rules"], f["rep"],
				f["load"], f["add"], f["del"], f["flush"] }' >> "$ruletimes"
		want=$(( REPS * $(echo $RULE_COUNTS | wc -w) ))
		[ "$(grep -c "^$BASE,$v," "$ruletimes")" = "$want" ] ||
			die "bench $BASE/$v: not $want RULETIME lines from the rule table's run (console: ${log#$TOP/})"
	done
fi

# Wall-clock ns/op: secondary and noisy, and only meaningful under KVM, so
# measured only when a probe boot shows that KVM works on this host.
wall=$out/$name-wall.csv
rm -f "$wall"
# (not for the runs with auditd, which that pass does not start)
if [ -z "$CROSS" ] && [ -z "$AUDITD" ] && [ "$("$TOP/scripts/kvm-probe.sh" "$BASE" "$CMP")" = kvm ]; then
	echo "base,variant,config,workload,rep,iters,ns_per_op" > "$wall"
	for c in $CONFIGS; do
		for v in $REF $CMP; do
			[ "$c" = builtin ] && ! has_builtin "$v" && continue
			extra=$(cfg_extra "$c")
			log=$LOGS/$BASE-$v${SUFFIX:-}-bench-$c-kvm.log
			info "bench $BASE/$v $c under KVM (wall clock)"
			LOG=$log SMP=1 TIMEOUT=${BENCH_TIMEOUT:-1200} "$TOP/scripts/qemu-run.sh" "$BASE" "$v" bench \
				$(bench_cfg_args "$c") harness.settle=$SETTLE "harness.bench=$extra-n+$ITERS+-r+$REPS+$wl" ||
				die "KVM bench run $BASE/$v $c failed (console: ${log#$TOP/})"
			grep -a "^BENCH " "$log" | awk -v b="$BASE" -v v="$v" -v c="$c" '{
				split($3, r, "="); split($4, n, "="); split($5, x, "=")
				printf "%s,%s,%s,%s,%s,%s,%s\n", b, v, c, $2, r[2], n[2], x[2] }' >> "$wall"
		done
	done
fi
fi
[ -s "$csv" ] || die "no results in ${csv#$TOP/}"

# the table: median (min-max) per workload, configuration and variant
python3 - "$csv" "$out/$name.table" "$out/$name.dat" "$REF" "$ARCH" "$CMP" <<'PY'
import csv, os, sys, statistics
REF = sys.argv[4]
ARCH = sys.argv[5]
CMP = sys.argv[6]
rows = list(csv.DictReader(open(sys.argv[1])))
data = {}
for r in rows:
    data.setdefault((r["workload"], r["config"], r["variant"]), []).append(float(r["instr_per_op"]))
wls = list(dict.fromkeys(r["workload"] for r in rows))
cfgs = list(dict.fromkeys(r["config"] for r in rows))
def med(k):
    v = data.get(k)
    return (statistics.median(v), min(v), max(v)) if v else None
out = []
dat = []
for w in wls:
    out.append(f"\n{w}: guest instructions per operation (median of reps, min-max)")
    out.append(f"  {'config':<10} {REF:>22} {'x audit=0':>9} {CMP:>22} {'x audit=0':>9} {CMP + '/' + REF:>12}")
    ref = {v: med((w, "audit0", v)) for v in (REF, CMP)}
    for c in cfgs:
        line = f"  {c:<10}"
        vals = {}
        for v in (REF, CMP):
            m = med((w, c, v))
            if not m:
                line += f" {'-':>22} {'-':>9}"
                continue
            vals[v] = m[0]
            r = m[0] / ref[v][0] if ref[v] else float("nan")
            line += f" {m[0]:>10.1f} ({m[1]:.0f}-{m[2]:.0f})".rjust(23) + f" {r:>8.2f}x"
        pb = vals[CMP] / vals[REF] if len(vals) == 2 else float("nan")
        line += f" {pb:>12.3f}"
        out.append(line)
        # the plot leaves out audit=0 itself (1.0 by definition) and the
        # non-deterministic SQPOLL workload
        if c == "audit0" or w.startswith("sqpoll"):
            continue
        rb = vals.get(REF, 0) / ref[REF][0] if ref[REF] else 0
        rp = vals.get(CMP, 0) / ref[CMP][0] if ref[CMP] else 0
        dat.append(f"{w}:{c} {rb:.3f} {rp:.3f}")
# With the daemon (WORKLOAD=srctree): the events its log holds, per boot
# (a warm-up run and the reps), and what the kernel lost
events = sys.argv[1].replace(".csv", "-events.csv")
if os.path.exists(events):
    out.append("\nauditd's log after each boot (the untimed run and the reps): events (distinct"
               "\nserials in the log, and as ausearch finds them), the logged-in user's (auid 1000),"
               "\nrecords, bytes, and records the kernel lost")
    out.append(f"  {'config':<10} {'variant':<8} {'serials':>8} {'ausearch':>8} {'auid1000':>8}"
               f" {'records':>8} {'bytes':>10} {'lost':>5}")
    for r in csv.DictReader(open(events)):
        out.append(f"  {r['config']:<10} {r['variant']:<8} {r['serials']:>8} {r['ausearch']:>8}"
                   f" {r['auid1000']:>8} {r['records']:>8} {r['bytes']:>10} {r['lost']:>5}")
# With the eBPF ring buffer: the events its reader took per operation,
# and the events the ring had no room for
bpfstat = sys.argv[1].replace(".csv", "-bpfstat.csv")
if os.path.exists(bpfstat):
    bs = {}
    for r in csv.DictReader(open(bpfstat)):
        k = (r["workload"], r["variant"])
        e, n, l = bs.get(k, (0, 0, 0))
        bs[k] = (e + int(r["events"]), n + int(r["iters"]), l + int(r["lost"]))
    out.append("\nbpfring: events the reader took per operation, and events lost, in all reps")
    out.append(f"  {'workload':<10} {'variant':<8} {'events/op':>9} {'lost':>6}")
    for (w, v), (e, n, l) in bs.items():
        out.append(f"  {w:<10} {v:<8} {e / n:>9.3f} {l:>6}")
# A recorded event: the cost of a workload in "match", where a rule
# records it, less its cost with audit on and no rules. Throughput of the
# exec'ing tasks: execs per guest second (10^9 instructions).
rec = [w for w in ("getppid", "execargs", "openwatch", "execpar2", "execpar8")
       if all(med((w, c, v)) for c in ("match", "norules") for v in (REF, CMP))]
if rec:
    st = {}
    stat = sys.argv[1].replace(".csv", "-auditstat.csv")
    if os.path.exists(stat):
        for r in csv.DictReader(open(stat)):
            k = (r["workload"], r["config"], r["variant"])
            l, b = st.get(k, (0, 0))
            st[k] = (l + int(r["lost"]), b + int(r["backlog_wait_time_actual"]))
    out.append("\nrecorded events: instructions per event that the records add (match - norules),"
               "\nrecords lost and backlog waits (ms) in all reps of match")
    out.append(f"  {'workload':<10} {REF:>10} {CMP:>10} {CMP + '/' + REF:>12}"
               f" {'lost ' + REF:>10} {'lost ' + CMP:>12} {'waits ' + REF:>10} {'waits ' + CMP:>13}")
    for w in rec:
        c = {v: med((w, "match", v))[0] - med((w, "norules", v))[0] for v in (REF, CMP)}
        s = {v: st.get((w, "match", v), ("-", "-")) for v in (REF, CMP)}
        out.append(f"  {w:<10} {c[REF]:>10.1f} {c[CMP]:>10.1f} {c[CMP] / c[REF]:>12.3f}"
                   f" {s[REF][0]:>10} {s[CMP][0]:>12} {s[REF][1]:>10} {s[CMP][1]:>13}")
    if os.path.exists(events):
        out.append("  events per guest second (10^9 instructions) that auditd takes in match:")
        for w in rec:
            t = {v: 1e9 / med((w, "match", v))[0] for v in (REF, CMP)}
            out.append(f"  {w:<10} {t[REF]:>10.0f} {t[CMP]:>10.0f} {t[CMP] / t[REF]:>12.3f}")
    par = [w for w in rec if w.startswith("execpar")]
    if par:
        out.append("  throughput, execs per guest second with the records (match):")
        for w in par:
            t = {v: 1e9 / med((w, "match", v))[0] for v in (REF, CMP)}
            out.append(f"  {w:<10} {t[REF]:>10.0f} {t[CMP]:>10.0f} {t[CMP] / t[REF]:>12.3f}")
# A daemon that stops reading (audit-bench -s): what its socket holds
stalled = sys.argv[1].replace(".csv", "-stalled.csv")
if os.path.exists(stalled):
    sd = {}
    for r in csv.DictReader(open(stalled)):
        sd.setdefault((r["workload"], r["variant"]), []).append(r)
    out.append("\na daemon that stops reading: records its socket holds (default receive buffer)"
               "\nand bytes charged for them (medians), records lost per rep (mean)")
    out.append(f"  {'workload':<10} {'rcvbuf':>7} {'records ' + REF:>13} {CMP:>8}"
               f" {'bytes ' + REF:>11} {CMP:>8} {'lost ' + REF:>10} {CMP:>8}")
    for w in dict.fromkeys(k[0] for k in sd):
        g = {v: sd.get((w, v), []) for v in (REF, CMP)}
        if not all(g.values()):
            continue
        m = {v: (statistics.median(int(r["records"]) for r in g[v]),
                 statistics.median(int(r["rmem_alloc"]) for r in g[v]),
                 statistics.mean(int(r["lost"] or 0) for r in g[v])) for v in g}
        out.append(f"  {w:<10} {g[REF][0]['rcvbuf']:>7} {m[REF][0]:>13.0f} {m[CMP][0]:>8.0f}"
                   f" {m[REF][1]:>11.0f} {m[CMP][1]:>8.0f} {m[REF][2]:>10.0f} {m[CMP][2]:>8.0f}")
# The rule table (audit-bench -t): instructions per load, add, delete and
# flush of N rules
ruletimes = sys.argv[1].replace(".csv", "-rules.csv")
if os.path.exists(ruletimes):
    rt = {}
    for r in csv.DictReader(open(ruletimes)):
        for op in ("load", "add", "del", "flush"):
            rt.setdefault((int(r["rules"]), op, r["variant"]), []).append(float(r[op]))
    out.append("\nthe rule table: guest instructions to load N compliance-style exit rules one"
               "\nby one (auditctl -R), add one more, delete it, and flush all one by one"
               "\n(auditctl -D); medians of reps")
    out.append(f"  {'rules':>6} {'op':<6} {REF:>14} {CMP:>14} {CMP + '/' + REF:>12}")
    for n in sorted({k[0] for k in rt}):
        for op in ("load", "add", "del", "flush"):
            b, p = (statistics.median(rt.get((n, op, v), [0])) for v in (REF, CMP))
            out.append(f"  {n:>6} {op:<6} {b:>14.0f} {p:>14.0f} {p / b if b else float('nan'):>12.3f}")
wall = sys.argv[1].replace(".csv", "-wall.csv")
if os.path.exists(wall):
    wd = {}
    for r in csv.DictReader(open(wall)):
        wd.setdefault((r["workload"], r["config"], r["variant"]), []).append(float(r["ns_per_op"]))
    out.append("\nwall clock, ns/op under KVM (secondary: noisy, host-dependent; median)")
    for w in wls:
        for c in cfgs:
            vals = [statistics.median(wd[(w, c, v)]) if (w, c, v) in wd else None for v in (REF, CMP)]
            out.append(f"  {w:<14} {c:<10} " + " ".join(f"{x:>10.1f}" if x else f"{'-':>10}" for x in vals))
elif ARCH != "x86_64":
    out.append(f"\nwall clock: not measured; an {ARCH} guest runs under TCG alone on this host,"
               "\nand TCG wall time says nothing about a kernel's speed")
else:
    out.append("\nwall clock: not measured; the KVM probe boot failed on this host (build/kvm-probe.log),"
               "\nand TCG wall time says nothing about a kernel's speed")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
open(sys.argv[3], "w").write("\n".join(dat) + "\n")
print("\n".join(out))
PY

sfx=${SUFFIX:-}
case "${sfx%$ASUF}" in
-distro) built="Debian's configuration, -O2" ;;
-o2) built="tinyconfig, -O2" ;;
*) built="tinyconfig, -Os" ;;
esac
built="$ARCH, $built"
plot() {	# plot TERMINAL FILE
	gnuplot <<GP
set terminal $1 size 1800,620 font "sans,11"
set output "$2"
set title "Linux $KVER ($built): cost relative to audit=0 (guest instructions/op, log scale), $REF vs $CMP"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "x audit=0"
set logscale y 2
set yrange [0.5:*]
set xtics rotate by -60 scale 0 font ",8"
set grid ytics
set key top left
plot "$out/$name.dat" using 2:xtic(1) title "$REF", '' using 3 title "$CMP"
GP
}
plot svg "$out/$name.svg" 2>/dev/null && plot pngcairo "$out/$name.png" 2>/dev/null ||
	echo "warning: gnuplot failed; no plot" >&2
info "bench: ${csv#$TOP/}, ${out#$TOP/}/$name.table, ${out#$TOP/}/$name.svg and .png"
info "bench $BASE: $(( $(date +%s) - start ))s in all"
