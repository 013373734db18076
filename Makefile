# SPDX-License-Identifier: GPL-2.0
# The index of what this repository does. Every target installs what it
# needs first (make deps, as root).
#
#   make                 = make bench
#   make test            mainline: selftests and difftest, base and patched,
#                        the mutants, then the same kernels with SELinux
#                        and a policy loaded (the LSM variant: selftests
#                        and difftest, base and patched, lsm_test again
#                        enforcing, the LSM path's mutant) (BACKPORTS=1: and
#                        the patched 6.12 and 6.1 kernels' selftests;
#                        ARCH=arm64: all of it on arm64 but the mutants;
#                        ARCH=x86_64: the first part alone; LSM=1: the
#                        LSM variant alone)
#   make test-all        the full matrix: every base as mainline above, the
#                        LSM variant, and on debug kernels, the IA32 variant
#                        (x86_64 kernels that run i386 tasks: compat_test
#                        and difftest's compat steps, base and patched, the
#                        compat mutants), and mainline on arm64 in full
#                        (BASES=6.12: one base in full; DEBUG=1: KASAN/
#                        lockdep; make test ARCH=x86_64 IA32=1: the IA32
#                        variant's first part alone)
#   make bench           base vs patched, instructions/op, table and plot
#                        (REF=pN, CMP=pN: the first N patches instead of
#                        base, of patched; O2=1, CONFIG=distro, ARCH=arm64;
#                        WORKLOAD=srctree: a source tree unpacked, walked
#                        and configured as a logged-in user with auditd
#                        writing its log;
#                        WORKLOAD=throughput: recorded events to auditd;
#                        WORKLOAD=rulesize: 1 to 1000 rules; WORKLOAD=ebpf
#                        with CONFIG=distro: an eBPF hook on sys_enter/
#                        sys_exit, empty or with a ring buffer, beside audit)
#   make difftest        base vs patched: the same random rules and syscalls
#                        must give the same records (DIFF_SEEDS=, MUTANT=)
#   make profile         where instructions go: WORKLOAD=getpid RULES=norules
#                        (base and patched; per function and instruction; O2=1)
#   make check           checkpatch --strict, git am, sparse, W=1, coccicheck
#                        on mainline; git am, checkpatch, mutants on the
#                        backports (QUICK=1: that on every base)
#   make check-all       all of it on every base
#   make prepare         unpack the base, apply the series, add the selftests
#   make kernel          build one kernel (BASE=, VARIANT=patched|base)
#   make initramfs       busybox + selftests + bench + auditctl
#   make boot            boot one kernel and run RUN=selftests|bench|shell
#   make export          prepared tree's commits -> patches/BASE/
#   make series          the series as mails, selftests included, and the
#                        audit-testsuite's tests -> build/series/BASE/
#   make testsuite-guest the Debian guest and mainline kernels (base and
#                        patched) the audit-testsuite runs on
#                        (Documentation/audit-testsuite.md)
#   make apply KSRC=dir  apply the matching series to your own tree
#   make clean           remove build/ (keeps the ccache)

BASE ?= mainline
VARIANT ?= patched
RUN ?= selftests
SHELL := /bin/bash
S := scripts

.PHONY: all deps prepare kernel kernels initramfs boot test test-all bench check check-all difftest profile \
	export series apply clean help testsuite-guest

all: bench

help:
	@awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' Makefile

deps:
	@$(S)/deps.sh

prepare: deps
	@$(S)/prepare.sh $(BASE)

kernel: prepare
	@$(S)/build-kernel.sh $(BASE) $(VARIANT)

kernels: prepare
	@$(S)/build-kernel.sh $(BASE) base && $(S)/build-kernel.sh $(BASE) patched

initramfs: prepare
	@$(S)/initramfs.sh $(BASE)

testsuite-guest: prepare
	@$(S)/testsuite-image.sh
	@for v in base patched; do \
		SUFFIX=-testsuite KCONFIG_BASE=defconfig FRAGMENTS=Kconfig/testsuite.config \
			$(S)/build-kernel.sh mainline $$v || exit 1; \
	done

boot: kernel initramfs
	@$(S)/qemu-run.sh $(BASE) $(VARIANT) $(RUN) $(ARGS)

# BASES= names the bases to test in full; TESTS= a subset of the selftests
# ARCH= names one architecture; without it (and without LSM=), make test
# also runs the LSM variant of the primary base (selftests and difftest,
# base and patched, and the mutants of the LSM path)
LSM_STAGE = BACKPORTS=0 HYGIENE=0 LSM=1 $(S)/test.sh
# the IA32 variant, with the compat mutants (test.sh)
IA32_STAGE = BACKPORTS=0 HYGIENE=0 IA32=1 $(S)/test.sh
test: deps
	@[ "$(LSM)" = 1 ] || $(S)/test.sh
	@[ -n "$(ARCH)" ] && [ "$(LSM)" != 1 ] || $(LSM_STAGE)

test-all: deps
	@BASES=all $(S)/test.sh
	@$(LSM_STAGE)
	@DEBUG=1 $(LSM_STAGE)
	@[ -n "$(ARCH)" ] || $(IA32_STAGE)
	@[ -n "$(ARCH)" ] || ARCH=arm64 $(S)/test.sh

bench: deps
	@$(S)/bench.sh $(BASE)

difftest: deps
	@$(S)/difftest.sh $(BASE)

profile: deps
	@$(S)/profile.sh $(BASE)

check: deps
	@$(S)/check.sh $(BASES)

check-all: deps
	@BASES=all $(S)/check.sh

export: deps
	@$(S)/export.sh $(BASE)

series: deps
	@$(S)/series.sh $(BASE)

apply:
	@$(S)/apply.sh "$(KSRC)"

clean:
	rm -rf build
