// SPDX-License-Identifier: GPL-2.0
/*
 * qemu-profile: a QEMU TCG plugin that counts, exactly, how often each
 * guest kernel instruction runs inside a window the guest marks.
 *
 *   qemu-system-x86_64 ... -plugin libqemu-profile.so,start=ADDR,stop=ADDR,out=FILE
 *
 * Every translated instruction gets an inline counter (no callback, so the
 * guest runs at close to normal TCG speed); the user-space instructions
 * share one counter. The instructions at the guest addresses START and
 * STOP (profile_start() and profile_stop() of bench/audit-bench.c, a static
 * binary) also get a callback: START takes a snapshot of all counters, STOP
 * adds what changed since to the window's totals. At exit FILE receives
 *   windows <n>
 *   user <instructions>
 *   <kernel address, hex> <instructions>     (one line per address run)
 * summed over all windows. Under -icount these are the instructions the
 * guest's clock counts, so they add up to audit-bench's ns/op.
 *
 * Only the documented plugin API (version 1, QEMU 7.x) is used; QEMU does
 * not install its header, so the few declarations needed are below.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS,
			    QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define KERNEL_START	0xffff800000000000ULL
#define CHUNK		(1 << 16)

struct slot {
	uint64_t vaddr;
	uint64_t count;		/* the inline counter */
	uint64_t mark;		/* count at the window's start */
	uint64_t window;	/* summed over the windows */
};

static struct slot **chunks;
static size_t nslots, nchunks;
static struct slot user;
static uint64_t start_addr, stop_addr, windows;
static bool in_window;
static char *out_path;

static struct slot *new_slot(uint64_t vaddr)
{
	struct slot *s;

	if (nslots == nchunks * CHUNK) {
		chunks = realloc(chunks, (nchunks + 1) * sizeof(*chunks));
		chunks[nchunks] = calloc(CHUNK, sizeof(struct slot));
		if (!chunks || !chunks[nchunks])
			abort();
		nchunks++;
	}
	s = &chunks[nslots / CHUNK][nslots % CHUNK];
	nslots++;
	s->vaddr = vaddr;
	return s;
}

static void for_each_slot(void (*fn)(struct slot *s))
{
	size_t i;

	for (i = 0; i < nslots; i++)
		fn(&chunks[i / CHUNK][i % CHUNK]);
	fn(&user);
}

static void mark(struct slot *s)
{
	s->mark = s->count;
}

static void account(struct slot *s)
{
	s->window += s->count - s->mark;
}

static void on_start(unsigned int vcpu, void *udata)
{
	for_each_slot(mark);
	in_window = true;
}

static void on_stop(unsigned int vcpu, void *udata)
{
	if (!in_window)
		return;
	for_each_slot(account);
	in_window = false;
	windows++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		struct slot *s = va >= KERNEL_START ? new_slot(va) : &user;

		/* the marks first: the window holds the call's own instructions */
		if (va == start_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (va == stop_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_stop,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &s->count, 1);
	}
}

static int by_vaddr(const void *a, const void *b)
{
	const struct slot *x = *(const struct slot **)a, *y = *(const struct slot **)b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct slot **v = calloc(nslots + 1, sizeof(*v));
	FILE *f = fopen(out_path, "w");
	size_t i, n = 0;

	if (!v || !f) {
		qemu_plugin_outs("qemu-profile: cannot write the output file\n");
		return;
	}
	for (i = 0; i < nslots; i++)
		if (chunks[i / CHUNK][i % CHUNK].window)
			v[n++] = &chunks[i / CHUNK][i % CHUNK];
	qsort(v, n, sizeof(*v), by_vaddr);
	fprintf(f, "windows %llu\nuser %llu\n", (unsigned long long)windows,
		(unsigned long long)user.window);
	for (i = 0; i < n; i++) {
		uint64_t sum = v[i]->window;

		/* one address may have been translated more than once */
		while (i + 1 < n && v[i + 1]->vaddr == v[i]->vaddr)
			sum += v[++i]->window;
		fprintf(f, "%llx %llu\n", (unsigned long long)v[i]->vaddr,
			(unsigned long long)sum);
	}
	fclose(f);
	free(v);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "start=", 6))
			start_addr = strtoull(argv[i] + 6, NULL, 0);
		else if (!strncmp(argv[i], "stop=", 5))
			stop_addr = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
	}
	if (!start_addr || !stop_addr || !out_path) {
		qemu_plugin_outs("qemu-profile: needs start=ADDR,stop=ADDR,out=FILE\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
