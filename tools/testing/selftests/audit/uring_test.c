// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: io_uring requests and the io_uring filter list.
 * Requests whose opcode is marked audit_skip never reach the filter; the
 * others produce a URINGOP record when an io_uring rule matches them.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

struct ring {
	int fd;
	struct io_uring_params p;
	void *sq, *cq;
	struct io_uring_sqe *sqes;
	size_t sq_len, cq_len;
};

static int ring_init(struct ring *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, 8, &r->p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(__u32);
	r->cq_len = r->p.cq_off.cqes +
		    r->p.cq_entries * sizeof(struct io_uring_cqe);
	r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     r->fd, IORING_OFF_SQ_RING);
	r->cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		       IORING_OFF_SQES);
	if (r->sq == MAP_FAILED || r->cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -ENOMEM;
	return 0;
}

/* submit one request, wait for its completion, return cqe->res */
static int ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	__u32 *sq_tail = r->sq + r->p.sq_off.tail;
	__u32 *sq_mask = r->sq + r->p.sq_off.ring_mask;
	__u32 *sq_array = r->sq + r->p.sq_off.array;
	__u32 *cq_head = r->cq + r->p.cq_off.head;
	__u32 *cq_tail = r->cq + r->p.cq_off.tail;
	__u32 *cq_mask = r->cq + r->p.cq_off.ring_mask;
	struct io_uring_cqe *cqes = r->cq + r->p.cq_off.cqes;
	__u32 tail = *sq_tail, idx = tail & *sq_mask, head;
	int res;

	r->sqes[idx] = *sqe;
	sq_array[idx] = idx;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -1000 - errno;
	head = *cq_head;
	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
		return -2000;
	res = cqes[head & *cq_mask].res;
	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static const char *scratch;

/* child: NOP, then OPENAT of the scratch file, then CLOSE of that fd */
static int child_uring(void *arg)
{
	struct io_uring_sqe sqe;
	struct ring r;
	int fd;

	if (ring_init(&r))
		return 10;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_NOP;
	if (ring_run(&r, &sqe))
		return 11;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)scratch;
	sqe.open_flags = O_RDONLY;
	fd = ring_run(&r, &sqe);
	if (fd < 0)
		return 12;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_CLOSE;
	sqe.fd = fd;
	if (ring_run(&r, &sqe))
		return 13;
	return 0;
}

struct uring_match {
	int op;
	pid_t pid;
};

static bool match_uringop(const struct audit_record *r, const void *arg)
{
	const struct uring_match *m = arg;

	return r->type == AUDIT_URINGOP &&
	       audit_field_is_num(r, "uring_op", m->op) &&
	       audit_field_is_num(r, "pid", m->pid);
}

FIXTURE(uring) {
	struct audit_nl nl;
	char file[PATH_MAX];
};

FIXTURE_SETUP(uring)
{
	struct io_uring_params p = {};
	int fd;

	/* no such syscall (!CONFIG_IO_URING), or io_uring_disabled set */
	fd = syscall(__NR_io_uring_setup, 1, &p);
	if (fd < 0 && errno != EINVAL && errno != EFAULT && errno != ENOMEM)
		SKIP(return, "io_uring not available: %s", strerror(errno));
	close(fd);
	audit_fixture_setup(_metadata, &self->nl);
	snprintf(self->file, sizeof(self->file), "/tmp/audit_uring_XXXXXX");
	fd = mkstemp(self->file);
	ASSERT_LE(0, fd);
	close(fd);
	scratch = self->file;
}

FIXTURE_TEARDOWN(uring)
{
	audit_fixture_teardown(&self->nl);
	unlink(self->file);
}

/* add @r, run child_uring, read its records; returns the child's pid */
static pid_t run_with_rule(struct __test_metadata *_metadata,
			   struct audit_nl *nl, struct audit_rule *r)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, audit_add(nl, r));
	pid = audit_run_child(child_uring, NULL, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("the io_uring child failed at step %d", WEXITSTATUS(status));
	}
	ASSERT_LE(0, audit_sync(nl));
	return pid;
}

/* is there a URINGOP record of @op by @pid? */
static bool has_uringop(struct audit_nl *nl, int op, pid_t pid)
{
	struct uring_match m = { .op = op, .pid = pid };

	return audit_find(nl, 0, match_uringop, &m) >= 0;
}

static struct audit_rule uring_rule(int op, const char *key)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_URING_EXIT,
					     AUDIT_ALWAYS);

	if (op < 0)
		audit_rule_all_syscalls(&r);
	else
		audit_rule_syscall(&r, op);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, key);
	return r;
}

/* all opcodes selected: OPENAT and CLOSE are logged, NOP is not */
TEST_F(uring, audited_and_skipped)
{
	struct audit_rule r = uring_rule(-1, "t_uring");
	struct uring_match m;
	pid_t pid;
	int i;

	pid = run_with_rule(_metadata, &self->nl, &r);
	m.pid = pid;
	m.op = IORING_OP_OPENAT;
	i = audit_find(&self->nl, 0, match_uringop, &m);
	if (i < 0)
		audit_dump(&self->nl);
	ASSERT_LE(0, i) {
		TH_LOG("no URINGOP record for IORING_OP_OPENAT");
	}
	EXPECT_TRUE(audit_field_is(&self->nl.rec[i], "success", "yes"));
	EXPECT_TRUE(audit_field_is(&self->nl.rec[i], "key", "t_uring"));
	EXPECT_TRUE(has_uringop(&self->nl, IORING_OP_CLOSE, pid)) {
		TH_LOG("no URINGOP record for IORING_OP_CLOSE");
	}
	EXPECT_FALSE(has_uringop(&self->nl, IORING_OP_NOP, pid)) {
		TH_LOG("IORING_OP_NOP is audit_skip but was logged");
	}
}

/* a rule for one opcode matches only that opcode */
TEST_F(uring, one_opcode)
{
	struct audit_rule r = uring_rule(IORING_OP_CLOSE, "t_close");
	pid_t pid = run_with_rule(_metadata, &self->nl, &r);

	EXPECT_TRUE(has_uringop(&self->nl, IORING_OP_CLOSE, pid));
	EXPECT_FALSE(has_uringop(&self->nl, IORING_OP_OPENAT, pid));
}

/* no io_uring rule: no URINGOP record, even with a syscall rule loaded */
TEST_F(uring, no_uring_rule)
{
	struct audit_rule r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, 0, "t_sys");
	pid_t pid = run_with_rule(_metadata, &self->nl, &r);

	EXPECT_FALSE(has_uringop(&self->nl, IORING_OP_OPENAT, pid));
}

TEST_HARNESS_MAIN
