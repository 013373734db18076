#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# profile.sh BASE: where a workload's guest instructions go, exactly, per
# kernel function and per kernel instruction, on each kernel.
#   WORKLOAD=getpid     an audit-bench workload (getpid stat openclose rw ...)
#   RULES=norules       a bench configuration (audit0 norules nevertask
#                       builtin ten stig)
#   VARIANTS="base patched"  the kernels (any build-kernel variant)
#   N=20000             iterations
#   ANNOTATE=8          annotated listings of the hottest kernel functions
#   ARCH=arm64          the arm64 kernels (build/BASE/VARIANT-arm64)
#   O2=1                kernels built at -O2 as distributions build them
#                       (Kconfig/o2.config, build/BASE/VARIANT-o2); the
#                       default tinyconfig kernels are built at -Os
#   CONFIG=distro       the kernels of Debian's configuration (booted with
#                       nokaslr, measured after SETTLE=10 guest seconds)
# Each kernel boots under QEMU with -icount and with bench/qemu-profile.c, a
# TCG plugin that counts every kernel instruction the guest executes
# between audit-bench's profile_start() and profile_stop(): the timed loop.
# The counts are exact; divided by the iterations they give instructions
# per operation, and they must add up to what audit-bench measured through
# the guest clock in the same run (checked). The total is also given
# without the RCU callbacks and page freeing that some boots run inside
# the loop (BACKGROUND below): that is the number to compare.
# RULES=match with WORKLOAD=getppid, openwatch or execargs profiles a
# syscall that a rule records, with its records read by a process
# registered as the audit daemon on the same vCPU.
# Output: a table on stdout, per function and per group of functions
# (bench/profile-groups: formatting, record collection, kauditd, the
# reader, skb, allocators, ...); build/profile/BASE-RULES-WORKLOAD.txt adds
# the annotated disassembly (objdump of vmlinux).
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
WORKLOAD=${WORKLOAD:-getpid}
RULES=${RULES:-norules}
VARIANTS=${VARIANTS:-base patched}
N=${N:-20000}
ANNOTATE=${ANNOTATE:-8}
need "${CROSS}objdump" "${CROSS}nm" gcc awk sort
bench_opt_level
args=$(bench_cfg_args "$RULES")
# functions of RCU callback processing and of page and slab freeing
BACKGROUND='^(rcu_core|rcu_do_batch|kmem_cache_free_bulk|free_to_partial_list|free_pcppages_bulk|__free_one_page|find_buddy_page_pfn|__del_page_from_free_list|account_freepages|__mod_zone_page_state|get_pfnblock_flags_mask|__nr_to_section)(\.|$)'

if [ "${NOBUILD:-0}" != 1 ]; then
	"$TOP/scripts/prepare.sh" "$BASE"
	for v in $VARIANTS; do "$TOP/scripts/build-kernel.sh" "$BASE" "$v"; done
	"$TOP/scripts/initramfs.sh" "$BASE"
fi

OUT=$BUILD/profile
mkdir -p "$OUT"
so=$OUT/libqemu-profile.so
gcc -shared -fPIC -O2 -Wall -o "$so" "$TOP/bench/qemu-profile.c"
bench=$BDIR/bench$ASUF/audit-bench
addr() { "${CROSS}nm" "$bench" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
start=$(addr profile_start) stop=$(addr profile_stop)
[ -n "$start" ] && [ -n "$stop" ] || die "$bench has no profile_start/profile_stop"
report=$OUT/$BASE${SUFFIX:-}-$RULES-$WORKLOAD.txt
: > "$report"
extra=
case "$RULES" in uring) extra="-u+36+" ;; match) extra="-d+" ;; esac
# a distribution kernel (CONFIG=distro): its text where System.map says
# (no KASLR), and measured once its boot-time work is done, as make bench
# measures it (SETTLE guest seconds)
kargs=
[ "${KCONFIG_BASE:-tiny}" = distro ] && kargs="nokaslr harness.settle=${SETTLE:-10}"

for v in $VARIANTS; do
	k=$BDIR/$v${SUFFIX:-}
	[ -f "$k/System.map" ] && [ -f "$k/vmlinux" ] || die "$k: no System.map or vmlinux; build it first"
	log=$LOGS/$BASE-$v${SUFFIX:-}-profile-$RULES-$WORKLOAD.log
	counts=$OUT/$v.counts
	rm -f "$counts"
	info "profile $BASE/$v, $RULES, $WORKLOAD: $N iterations"
	QEMU_EXTRA="-plugin $so,start=$start,stop=$stop,out=$counts" \
	ICOUNT=1 SMP=1 LOG=$log TIMEOUT=${TIMEOUT:-1800} "$TOP/scripts/qemu-run.sh" "$BASE" "$v" bench \
		$args $kargs "harness.bench=$extra-n+$N+-r+1+$WORKLOAD" >/dev/null ||
		die "the profiling boot failed (console: ${log#$TOP/})"
	[ -s "$counts" ] || die "the plugin wrote no counts ($counts)"
	line=$(grep -m1 "^BENCH $WORKLOAD rep=0 " "$log") || die "no BENCH line in ${log#$TOP/}"
	ipo=${line##*ns_per_op=}
	iters=$(echo "$line" | sed 's/.* iters=\([0-9]*\) .*/\1/')
	windows=$(awk '$1 == "windows" { print $2 }' "$counts")
	[ "$windows" = 1 ] || die "$v: $windows profiling windows (one expected)"
	# kernel addresses and text symbols, merged in address order
	{
		awk '$2 ~ /^[tTwW]$/ { printf "%s S %s\n", $1, $3 }' "$k/System.map"
		awk '$1 ~ /^ffff/ { print $1, "P", $2 }' "$counts"
	} | LC_ALL=C sort -k1,1 -k2,2r > "$OUT/$v.merged"
	awk -v it="$iters" '
		$2 == "S" { fn = $3; start = $1; next }
		{ n[fn] += $3; if (!(fn in first)) first[fn] = start }
		END { for (f in n) printf "%s %.2f %s\n", f, n[f] / it, first[f] }
	' "$OUT/$v.merged" | sort -k2,2gr > "$OUT/$v.functions"
	awk -v it="$iters" '$1 == "user" { printf "(user) %.2f 0\n", $2 / it }' "$counts" >> "$OUT/$v.functions"
	sum=$(awk '{ s += $2 } END { printf "%.1f", s }' "$OUT/$v.functions")
	kern=$(awk '$1 != "(user)" { s += $2 } END { printf "%.1f", s }' "$OUT/$v.functions")
	printf '%s/%s: %s instructions/op measured by the guest clock; counted: %s (%s in the kernel)\n' \
		"$BASE" "$v" "$ipo" "$sum" "$kern" | tee -a "$report"
	# Some boots run RCU callbacks (kfree_rcu batches) and the page and
	# slab freeing they cause inside the timed loop: work of the whole
	# system, not of the workload. Report it, and the total without it.
	bg=$(awk -v re="$BACKGROUND" '$1 ~ re { s += $2 } END { printf "%.1f", s }' "$OUT/$v.functions")
	printf '%s/%s: %s of it in RCU callbacks and page freeing; without them: %s\n' \
		"$BASE" "$v" "$bg" "$(awk -v a="$sum" -v b="$bg" 'BEGIN { printf "%.1f", a - b }')" | tee -a "$report"
	# the counts must agree with the clock (within 1%)
	awk -v a="$ipo" -v b="$sum" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= a / 100) }' ||
		die "$v: the plugin counted $sum instructions/op, the guest clock $ipo"
	echo "$v $iters" >> "$OUT/.runs"
done

# row NAME KIND EMPTY: NAME's figure in $OUT/VARIANT.KIND for each variant
row() {
	printf '%-40s' "$1"
	for v in $VARIANTS; do
		x=$(awk -v f="$1" '$1 == f { print $2 }' "$OUT/$v.$2")
		printf ' %10s' "${x:-$3}"
	done
	printf '\n'
}

# one table, functions by their instructions/op on the last variant
{
	echo
	printf '%-40s' "function"
	for v in $VARIANTS; do printf ' %10s' "$v"; done
	printf '\n'
	cat $(for v in $VARIANTS; do echo "$OUT/$v.functions"; done) | awk '{ print $1 }' | sort -u |
	while read -r f; do row "$f" functions -; done | sort -k$(( $(echo $VARIANTS | wc -w) + 1 ))gr |
	awk '{ for (i = 2; i <= NF; i++) if ($i != "-" && $i >= 0.5) { print; next } }'
	echo "(guest instructions per operation; functions under 0.5 on every kernel left out)"
} | tee -a "$report"

# the same by group of functions (bench/profile-groups): where a recorded
# event's instructions go (formatting, collecting, kauditd, the reader...)
{
	echo
	printf '%-40s' "group"
	for v in $VARIANTS; do printf ' %10s' "$v"; done
	printf '\n'
	for v in $VARIANTS; do
		awk 'FNR == NR { if ($0 !~ /^#/ && NF == 2) { g[++n] = $1; re[n] = "^" $2 } next }
		{
			f = $1; grp = "other"
			if (f == "(user)") grp = "user"
			else for (i = 1; i <= n; i++) if (f ~ re[i]) { grp = g[i]; break }
			s[grp] += $2
		}
		END { for (x in s) printf "%s %.1f\n", x, s[x] }' "$TOP/bench/profile-groups" "$OUT/$v.functions" |
			sort > "$OUT/$v.groups"
	done
	for g in $(awk '$0 !~ /^#/ && NF == 2 { print $1 }' "$TOP/bench/profile-groups") other user; do
		row "$g" groups 0.0
	done
	echo "(guest instructions per operation by group: bench/profile-groups)"
} | tee -a "$report"

# instruction-level listings of the hottest kernel functions
if [ "$ANNOTATE" -gt 0 ]; then
	for v in $VARIANTS; do
		k=$BDIR/$v${SUFFIX:-}
		iters=$(awk -v v="$v" '$1 == v { print $2 }' "$OUT/.runs" | tail -1)
		grep -v '^(user)' "$OUT/$v.functions" | head -n "$ANNOTATE" | while read -r f x start; do
			end=$(awk -v s="$start" '$1 > s && $2 ~ /^[tTwW]$/ { print $1; exit }' "$k/System.map")
			[ -n "$end" ] || continue
			{
				echo
				echo "== $BASE/$v $f: $x instructions/op"
				"${CROSS}objdump" -d --no-show-raw-insn --start-address=0x$start --stop-address=0x$end "$k/vmlinux" |
				awk -v it="$iters" '
					FNR == NR { c[$1] = $2; next }
					/^ *ffffffff[0-9a-f]*:/ {
						a = $1; sub(":", "", a)
						if (a in c) printf "%8.3f %s\n", c[a] / it, $0
						else printf "         %s\n", $0
					}
				' "$OUT/$v.counts" -
			} >> "$report"
		done
	done
fi
rm -f "$OUT/.runs"
info "report: ${report#$TOP/}"
