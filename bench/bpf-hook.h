/* SPDX-License-Identifier: GPL-2.0 */
/* audit-bench -b: an eBPF program on the syscall raw tracepoints */
#ifndef BPF_HOOK_H
#define BPF_HOOK_H

/* "empty" or "ring"; exits with a message where the kernel cannot */
void bpf_hook_start(const char *mode);
/* ring: wait until the reader has taken every event written so far */
void bpf_hook_sync(void);
/* ring: events the reader took, and those the program could not write */
void bpf_hook_stat(unsigned long long *events, unsigned long long *lost);
/* 1 once bpf_hook_start() has attached a ring program */
int bpf_hook_ring(void);

#endif
