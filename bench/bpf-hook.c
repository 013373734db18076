// SPDX-License-Identifier: GPL-2.0
/*
 * audit-bench -b empty|ring: what an endpoint agent that hooks syscalls with
 * eBPF pays instead of audit. One program is attached to the sys_enter and
 * to the sys_exit raw tracepoint (BPF_RAW_TRACEPOINT_OPEN), so that every
 * syscall of every task takes the kernel's syscall-work slow path and runs
 * the program twice, as under the agents' hooks.
 *
 * "empty" returns at once: the price of the hook alone.
 * "ring" writes a 32-byte event per tracepoint hit (time, pid and tgid,
 * enter or exit, the syscall number or its return value) with
 * bpf_ringbuf_output() to a BPF ring buffer, which a reader process maps and
 * drains as a high-rate agent's user space does: the program asks for no
 * wakeup (BPF_RB_NO_WAKEUP), and the reader takes every record up to the
 * producer position each 10 ms, or when told to (an eventfd). A wakeup per
 * event would cost a context switch per syscall and make the figures spread
 * with the scheduling. The program skips the reader's own syscalls, as
 * agents skip theirs. An event the ring has no room for is counted in an
 * array map instead of being written.
 *
 * The programs are assembled here, instruction by instruction: no libbpf,
 * no compiler for BPF, no BTF; the kernel needs CONFIG_BPF_SYSCALL and
 * syscall tracepoints (CONFIG_FTRACE_SYSCALLS, CONFIG_BPF_EVENTS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf-hook.h"

#define RING_SIZE	(4u << 20)	/* bytes; more than 10 ms of events */
#define EVENT_SIZE	32
#define DRAIN_MS	10		/* the reader's period */

/* instruction builders, named as in the kernel's filter.h */
#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define RSH64_IMM(d, i)		INSN(BPF_ALU64 | BPF_RSH | BPF_K, d, 0, 0, i)
#define LDX_DW(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define STX_DW(d, s, o)		INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_DW(d, o, i)		INSN(BPF_ST | BPF_MEM | BPF_DW, d, 0, o, i)
#define ST_W(d, o, i)		INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define ATOMIC_ADD_DW(d, s, o)	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
/* two instructions: dst = the map of file descriptor fd */
#define LD_MAP_FD(d, fd) \
	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), \
	INSN(0, 0, 0, 0, 0)

enum { R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 };

static int hook_ring;
static volatile unsigned long *cons_pos;	/* the reader's position */
static const volatile unsigned long *prod_pos;	/* the kernel's */
static unsigned long long *taken;	/* shared with the reader */
static int lost_fd = -1;
static int kick_fd = -1;		/* eventfd: drain now */
static unsigned long long synced;

static void fail(const char *what, int err, const char *hint)
{
	fprintf(stderr, "audit-bench -b: %s: %s%s%s\n", what, strerror(err),
		hint ? "; " : "", hint ? hint : "");
	exit(3);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(unsigned int type, unsigned int key, unsigned int value,
		      unsigned int entries)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = entries;
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0)
		fail("BPF_MAP_CREATE", errno, errno == ENOSYS ?
		     "the kernel has no bpf() (CONFIG_BPF_SYSCALL): measure with CONFIG=distro" :
		     NULL);
	return fd;
}

static char verifier_log[65536];

static int prog_load(const struct bpf_insn *insns, unsigned int count)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	a.insns = (unsigned long)insns;
	a.insn_cnt = count;
	a.license = (unsigned long)"GPL";
	a.log_buf = (unsigned long)verifier_log;
	a.log_size = sizeof(verifier_log);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		fprintf(stderr, "%s", verifier_log);
		fail("BPF_PROG_LOAD", errno, "the verifier's log is above");
	}
	return fd;
}

static void attach(int prog, const char *tracepoint)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (unsigned long)tracepoint;
	a.raw_tracepoint.prog_fd = prog;
	/* the file descriptor holds the attachment until the program exits */
	if (sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a) < 0)
		fail(tracepoint, errno, errno == ENOENT ?
		     "no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)" : NULL);
}

/*
 * The reader: every DRAIN_MS, or when kicked, take every committed record up
 * to the producer's position and hand the space back.
 */
static void __attribute__((noreturn)) reader(int ready)
{
	unsigned long mask = RING_SIZE - 1, cons, prod;
	const char *data = (const char *)prod_pos + getpagesize();
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned long long sum = 0, kicks;
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, kick_fd, &ev) ||
	    write(ready, "y", 1) != 1)
		_exit(1);
	for (;;) {
		int n = epoll_wait(ep, &ev, 1, DRAIN_MS);

		if (n < 0 && errno != EINTR)
			_exit(1);
		if (n > 0 && read(kick_fd, &kicks, sizeof(kicks)) < 0)
			_exit(1);
		cons = *cons_pos;
		prod = __atomic_load_n(prod_pos, __ATOMIC_ACQUIRE);
		while (cons < prod) {
			const __u32 *hdr = (const __u32 *)(data + (cons & mask));
			__u32 len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

			if (len & BPF_RINGBUF_BUSY_BIT)
				break;
			if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
				/* read the event as an agent would */
				sum += ((const __u64 *)(hdr + 2))[3];
				__atomic_add_fetch(taken, 1, __ATOMIC_RELAXED);
			}
			len &= ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
			cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7ul;
			__atomic_store_n(cons_pos, cons, __ATOMIC_RELEASE);
		}
		asm volatile("" : : "r"(sum));
	}
}

void bpf_hook_start(const char *mode)
{
	static const struct bpf_insn empty[] = {
		MOV64_IMM(R0, 0),
		EXIT(),
	};
	int ring, prog, ready[2];
	long page = getpagesize();
	pid_t pid;
	char c;

	if (!strcmp(mode, "empty")) {
		prog = prog_load(empty, sizeof(empty) / sizeof(*empty));
		attach(prog, "sys_enter");
		attach(prog, "sys_exit");
		printf("BPF empty program on sys_enter and sys_exit\n");
		return;
	}
	if (strcmp(mode, "ring"))
		fail(mode, EINVAL, "-b takes empty or ring");

	ring = map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, RING_SIZE);
	lost_fd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	kick_fd = eventfd(0, 0);
	if (kick_fd < 0)
		fail("eventfd", errno, NULL);
	cons_pos = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, ring, 0);
	prod_pos = mmap(NULL, page + 2 * RING_SIZE, PROT_READ, MAP_SHARED,
			ring, page);
	taken = mmap(NULL, sizeof(*taken), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cons_pos == MAP_FAILED || prod_pos == MAP_FAILED || taken == MAP_FAILED)
		fail("mmap of the ring buffer", errno, NULL);
	if (pipe(ready))
		fail("pipe", errno, NULL);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork", errno, NULL);
	if (!pid) {
		close(ready[0]);
		/* the reader goes with the program that started it */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
			_exit(1);
		reader(ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		fail("ring buffer reader", EPROTO, NULL);
	close(ready[0]);
	{
		/*
		 * r6 = ctx: args[0] the registers, args[1] the syscall number
		 * (sys_enter) or its return value (sys_exit). The event on
		 * the stack, fp-32: time, pid_tgid, exit (0 or 1), args[1].
		 * Set at the end: fp-16 is "exit" only in the second program.
		 */
		struct bpf_insn prog_ring[] = {
			MOV64_REG(R6, R1),
			CALL(BPF_FUNC_get_current_pid_tgid),
			MOV64_REG(R7, R0),
			RSH64_IMM(R0, 32),
			JEQ_IMM(R0, pid, 23),		/* the reader: out */
			STX_DW(R10, R7, -24),
			LDX_DW(R1, R6, 8),
			STX_DW(R10, R1, -8),
			ST_DW(R10, -16, 0),		/* patched: exit */
			CALL(BPF_FUNC_ktime_get_ns),
			STX_DW(R10, R0, -32),
			LD_MAP_FD(R1, ring),
			MOV64_REG(R2, R10),
			ADD64_IMM(R2, -32),
			MOV64_IMM(R3, EVENT_SIZE),
			MOV64_IMM(R4, BPF_RB_NO_WAKEUP),
			CALL(BPF_FUNC_ringbuf_output),
			JEQ_IMM(R0, 0, 9),		/* written: out */
			ST_W(R10, -40, 0),
			LD_MAP_FD(R1, lost_fd),
			MOV64_REG(R2, R10),
			ADD64_IMM(R2, -40),
			CALL(BPF_FUNC_map_lookup_elem),
			JEQ_IMM(R0, 0, 2),
			MOV64_IMM(R1, 1),
			ATOMIC_ADD_DW(R0, R1, 0),
			MOV64_IMM(R0, 0),		/* out */
			EXIT(),
		};
		unsigned int n = sizeof(prog_ring) / sizeof(*prog_ring);

		attach(prog_load(prog_ring, n), "sys_enter");
		prog_ring[8].imm = 1;
		attach(prog_load(prog_ring, n), "sys_exit");
	}
	hook_ring = 1;
	printf("BPF ring program on sys_enter and sys_exit, reader pid=%d\n", pid);
}

int bpf_hook_ring(void)
{
	return hook_ring;
}

void bpf_hook_sync(void)
{
	/*
	 * Up to the events written before this call: the kick and each
	 * sched_yield() write more, which the reader may take later.
	 */
	unsigned long until = __atomic_load_n(prod_pos, __ATOMIC_ACQUIRE);
	unsigned long long one = 1;
	long tries = 1000000;

	if (write(kick_fd, &one, sizeof(one)) != sizeof(one))
		fail("eventfd", errno, NULL);
	while (__atomic_load_n(cons_pos, __ATOMIC_ACQUIRE) < until && --tries)
		sched_yield();
	if (!tries)
		fail("ring buffer reader", ETIMEDOUT, "it stopped taking events");
	synced = *taken;
}

void bpf_hook_stat(unsigned long long *events, unsigned long long *lost)
{
	union bpf_attr a;
	__u32 key = 0;
	__u64 value = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = lost_fd;
	a.key = (unsigned long)&key;
	a.value = (unsigned long)&value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		fail("BPF_MAP_LOOKUP_ELEM", errno, NULL);
	*events = synced;
	*lost = value;
}
