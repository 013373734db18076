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
#include "uring_common.h"

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

FIXTURE(uring) {
	struct audit_nl nl;
	char file[PATH_MAX];
	bool ready;
};

FIXTURE_SETUP(uring)
{
	int fd;

	if (!uring_available())
		SKIP(_exit(AUDIT_SKIP_STATUS), "io_uring not available");
	audit_fixture_setup(_metadata, &self->nl);
	snprintf(self->file, sizeof(self->file), "/tmp/audit_uring_XXXXXX");
	fd = mkstemp(self->file);
	audit_setup_ok(_metadata, &self->nl, fd >= 0, "mkstemp");
	close(fd);
	scratch = self->file;
	self->ready = true;
}

FIXTURE_TEARDOWN(uring)
{
	audit_fixture_teardown(_metadata, &self->nl);
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

/* all opcodes selected: OPENAT and CLOSE are logged, NOP is not */
TEST_F(uring, audited_and_skipped)
{
	struct audit_rule r = uring_rule(-1, "t_uring");
	struct uring_match m;
	pid_t pid;
	int i;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");

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
	struct audit_rule r;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");
	r = uring_rule(IORING_OP_CLOSE, "t_close");
	pid = run_with_rule(_metadata, &self->nl, &r);
	EXPECT_TRUE(has_uringop(&self->nl, IORING_OP_CLOSE, pid));
	EXPECT_FALSE(has_uringop(&self->nl, IORING_OP_OPENAT, pid));
}

/* no io_uring rule: no URINGOP record, even with a syscall rule loaded */
TEST_F(uring, no_uring_rule)
{
	struct audit_rule r;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, 0, "t_sys");
	pid = run_with_rule(_metadata, &self->nl, &r);
	EXPECT_FALSE(has_uringop(&self->nl, IORING_OP_OPENAT, pid));
}

TEST_HARNESS_MAIN
