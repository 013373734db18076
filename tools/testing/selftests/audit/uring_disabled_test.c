// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: io_uring requests while audit is disabled.
 *
 * With audit disabled (auditctl -e 0) no io_uring request is audited:
 * audit_uring_exit() must not act on a request whose start audit did not
 * see. Kernels before the fix hit BUG() in audit_log_exit() here, which is
 * why this test is a program of its own.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "audit_common.h"
#include "uring_common.h"

static const char *scratch;

FIXTURE(uring_disabled) {
	struct audit_nl nl;
	char file[PATH_MAX];
	bool ready;
};

FIXTURE_SETUP(uring_disabled)
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

FIXTURE_TEARDOWN(uring_disabled)
{
	audit_fixture_teardown(_metadata, &self->nl);
	unlink(self->file);
}

/* child: one syscall while audit is enabled, stop, then an OPENAT request */
static int child_stop_then_openat(void *arg)
{
	struct io_uring_sqe sqe;
	struct ring r;
	int fd;

	if (ring_init(&r))
		return 10;
	/* the parent disables audit while we are stopped */
	kill(getpid(), SIGSTOP);
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)scratch;
	sqe.open_flags = O_RDONLY;
	fd = ring_run(&r, &sqe);
	return fd < 0 ? 11 : 0;
}

/*
 * The child's context went through syscalls with rules loaded, so it is not
 * a dummy; a rule for every opcode matches whatever opcode it holds.
 */
TEST_F(uring_disabled, no_record)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule r = uring_rule(-1, "t_disabled");
	struct audit_child c = { .go = -1 };
	int status, ret;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");

	ASSERT_EQ(0, audit_add(nl, &r));
	ASSERT_EQ(0, audit_child_start(&c, child_stop_then_openat, NULL));
	ASSERT_EQ(1, write(c.go, "g", 1));
	ASSERT_EQ(c.pid, waitpid(c.pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, audit_set_status(nl, AUDIT_STATUS_ENABLED, 0, 0));
	kill(c.pid, SIGCONT);
	ASSERT_EQ(c.pid, waitpid(c.pid, &status, 0));
	ret = audit_set_status(nl, AUDIT_STATUS_ENABLED, 1, 0);
	ASSERT_EQ(0, ret);
	close(c.go);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_FALSE(has_uringop(nl, IORING_OP_OPENAT, c.pid));
	EXPECT_FALSE(has_uringop(nl, IORING_OP_NOP, c.pid));
	EXPECT_EQ(0, audit_count_syscall(nl, -1, c.pid));
}

TEST_HARNESS_MAIN
