// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: io_uring requests run by an SQPOLL ring's submission
 * thread (iou-sqp-PID), which makes no syscall of its own: its audit
 * context is set up at each request by __audit_uring_entry() and logged by
 * __audit_uring_exit(), with the io_uring filter list and, for the names a
 * request collects, the watches of the exit list.
 *
 * The tests skip without io_uring, where SQPOLL rings cannot be set up
 * (older kernels, io_uring_disabled, no privilege), or without root.
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

/* an SQPOLL ring whose thread sleeps after 2 s without work */
static int sqpoll_init(struct ring *r)
{
	memset(r, 0, sizeof(*r));
	r->p.flags = IORING_SETUP_SQPOLL;
	r->p.sq_thread_idle = 2000;
	return ring_setup(r);
}

/* one request, submitted by the ring's thread; cqe->res */
static int sqpoll_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	return ring_run_as(r, sqe, true);
}

static void sqe_openat(struct io_uring_sqe *sqe, const char *path, int flags)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
	sqe->open_flags = flags;
	sqe->len = 0600;
}

FIXTURE(sqpoll) {
	struct audit_nl nl;
	char dir[64];
	char file[96];
};

FIXTURE_SETUP(sqpoll)
{
	struct ring r;
	int ret;

	self->dir[0] = 0;
	if (geteuid())
		SKIP(_exit(AUDIT_SKIP_STATUS), "needs root");
	if (!uring_available())
		SKIP(_exit(AUDIT_SKIP_STATUS), "io_uring not available");
	ret = sqpoll_init(&r);
	if (ret)
		SKIP(_exit(AUDIT_SKIP_STATUS), "no SQPOLL ring: %s", strerror(-ret));
	close(r.fd);
	audit_fixture_setup(_metadata, &self->nl);
	snprintf(self->dir, sizeof(self->dir), "/tmp/audit_sqpoll_XXXXXX");
	audit_setup_ok(_metadata, &self->nl, mkdtemp(self->dir), "mkdtemp");
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
}

FIXTURE_TEARDOWN(sqpoll)
{
	audit_fixture_teardown(_metadata, &self->nl);
	if (!self->dir[0])
		return;
	unlink(self->file);
	rmdir(self->dir);
}

/* the child: through an SQPOLL ring, create the file, close it, unlink it */
static int child_create_unlink(void *arg)
{
	const char *file = arg;
	struct io_uring_sqe sqe;
	struct ring r;
	int fd;

	if (sqpoll_init(&r))
		return 10;
	sqe_openat(&sqe, file, O_CREAT | O_WRONLY);
	fd = sqpoll_run(&r, &sqe);
	if (fd < 0)
		return 11;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_CLOSE;
	sqe.fd = fd;
	if (sqpoll_run(&r, &sqe))
		return 12;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_UNLINKAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)file;
	if (sqpoll_run(&r, &sqe))
		return 13;
	return 0;
}

struct sqp_match {
	int op;
	pid_t pid;
	const char *key;
};

/*
 * A URINGOP record of @op from the ring's thread of @pid (a URINGOP record
 * has no comm=; its pid= is the thread group's, the child's)
 */
static bool match_sqp(const struct audit_record *r, const void *arg)
{
	const struct sqp_match *m = arg;

	return r->type == AUDIT_URINGOP &&
	       audit_field_is_num(r, "uring_op", m->op) &&
	       audit_field_is_num(r, "pid", m->pid) &&
	       (!m->key || audit_field_is(r, "key", m->key));
}

static const struct audit_record *sqp_record(struct audit_nl *nl, int op,
					     pid_t pid, const char *key)
{
	struct sqp_match m = { op, pid, key };
	int i = audit_find(nl, 0, match_sqp, &m);

	return i < 0 ? NULL : &nl->rec[i];
}

/*
 * A watch on a file that an SQPOLL ring creates, closes and unlinks. Without
 * perm=, the thread's OPENAT and UNLINKAT requests each log a URINGOP record
 * with the watch's key and a PATH record of the file (CREATE, DELETE); the
 * CLOSE, which collects no name, logs nothing. With perm=wa nothing is
 * logged: perm= classes the context's syscall, and the thread has none (its
 * context's syscall number is 0: read on x86_64), so no request is a write
 * or an attribute change to it. That is the kernel's behaviour as it is
 * (a blind spot of perm= for SQPOLL rings), pinned here so that a change
 * to it is seen, not a behaviour anyone asked for.
 */
static void watch_run(struct __test_metadata *_metadata,
		      struct audit_nl *nl, const char *file, bool perm)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	const struct audit_record *open, *unl, *path;
	int status;
	pid_t pid;

	audit_rule_all_syscalls(&r);
	audit_rule_str(&r, AUDIT_WATCH, AUDIT_EQUAL, file);
	if (perm)
		audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL,
				 AUDIT_PERM_WRITE | AUDIT_PERM_ATTR);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, "sqp_watch");
	ASSERT_EQ(0, audit_add(nl, &r));
	audit_records_clear(nl);
	pid = audit_run_child(child_create_unlink, (void *)file, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the SQPOLL child failed at step %d", WEXITSTATUS(status));
	}
	ASSERT_LE(0, audit_sync(nl));

	open = sqp_record(nl, IORING_OP_OPENAT, pid, NULL);
	unl = sqp_record(nl, IORING_OP_UNLINKAT, pid, NULL);
	EXPECT_EQ(NULL, sqp_record(nl, IORING_OP_CLOSE, pid, NULL)) {
		TH_LOG("the CLOSE, which collects no name, was logged");
	}
	if (perm) {
		EXPECT_TRUE(!open && !unl) {
			audit_dump(nl);
			TH_LOG("a perm=wa watch logged a request of the thread");
		}
		return;
	}
	ASSERT_NE(NULL, open) {
		audit_dump(nl);
		TH_LOG("no URINGOP record of the thread's OPENAT");
	}
	EXPECT_TRUE(audit_field_is(open, "key", "sqp_watch") &&
		    audit_field_is(open, "success", "yes")) {
		TH_LOG("%s", open->text);
	}
	path = audit_path_record(nl, open->serial, file);
	EXPECT_TRUE(path && audit_field_is(path, "nametype", "CREATE")) {
		audit_dump(nl);
		TH_LOG("the OPENAT's event has no PATH record of %s (CREATE)", file);
	}
	ASSERT_NE(NULL, unl) {
		audit_dump(nl);
		TH_LOG("no URINGOP record of the thread's UNLINKAT");
	}
	EXPECT_TRUE(audit_field_is(unl, "key", "sqp_watch")) {
		TH_LOG("%s", unl->text);
	}
	path = audit_path_record(nl, unl->serial, file);
	EXPECT_TRUE(path && audit_field_is(path, "nametype", "DELETE")) {
		audit_dump(nl);
		TH_LOG("the UNLINKAT's event has no PATH record of %s (DELETE)", file);
	}
}

TEST_F(sqpoll, watch_sees_sqpoll_create_and_unlink)
{
	watch_run(_metadata, &self->nl, self->file, false);
}

TEST_F(sqpoll, perm_wa_watch_sees_no_sqpoll_request)
{
	watch_run(_metadata, &self->nl, self->file, true);
}

/* the child: one OPENAT (read-only) of @arg through an SQPOLL ring */
static int child_sqpoll_open(void *arg)
{
	struct io_uring_sqe sqe;
	struct ring r;
	int fd;

	if (sqpoll_init(&r))
		return 10;
	sqe_openat(&sqe, arg, O_RDONLY);
	fd = sqpoll_run(&r, &sqe);
	if (fd < 0)
		return 11;
	close(fd);
	return 0;
}

/*
 * io_uring-list rules with arch= and a0= on a request of the submission
 * thread, which has made no syscall: what the filter compares is the
 * context's arch and arguments as __audit_uring_entry() leaves them for a
 * task that never entered a syscall, zeros. A rule on a0=0 matches, one on
 * a0=1 does not; arch= of the native ABI does not match, arch!= does.
 */
TEST_F(sqpoll, rule_arch_and_a0_in_sq_thread)
{
	static const struct {
		__u32 field, op, val;
		const char *key;
		bool match;
	} rules[] = {
		{ AUDIT_ARG0, AUDIT_EQUAL, 0, "sqp_a0_0", true },
		{ AUDIT_ARG0, AUDIT_EQUAL, 1, "sqp_a0_1", false },
		{ AUDIT_ARCH, AUDIT_EQUAL, AUDIT_ARCH_NATIVE, "sqp_arch_eq", false },
		{ AUDIT_ARCH, AUDIT_NOT_EQUAL, AUDIT_ARCH_NATIVE, "sqp_arch_ne", true },
	};
	const struct audit_record *rec;
	unsigned int i;
	int fd, status;
	pid_t pid;

	if (!AUDIT_ARCH_NATIVE)
		SKIP(return, "no native audit arch on this architecture");
	fd = open(self->file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	/* one rule at a time: the first rule that matches gives the key */
	for (i = 0; i < sizeof(rules) / sizeof(*rules); i++) {
		struct audit_rule r = uring_rule(IORING_OP_OPENAT, rules[i].key);

		audit_rule_field(&r, rules[i].field, rules[i].op, rules[i].val);
		ASSERT_EQ(0, audit_add(&self->nl, &r)) {
			TH_LOG("the io_uring rule %s was rejected", rules[i].key);
		}
		audit_records_clear(&self->nl);
		pid = audit_run_child(child_sqpoll_open, self->file, &status);
		ASSERT_LT(0, pid);
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("the SQPOLL child failed at step %d",
			       WEXITSTATUS(status));
		}
		ASSERT_LE(0, audit_sync(&self->nl));
		rec = sqp_record(&self->nl, IORING_OP_OPENAT, pid, rules[i].key);
		EXPECT_EQ(rules[i].match, !!rec) {
			audit_dump(&self->nl);
			TH_LOG("%s: the thread's OPENAT was%s logged", rules[i].key,
			       rec ? "" : " not");
		}
		ASSERT_EQ(0, audit_del(&self->nl, self->nl.ntracked - 1));
	}
}

/*
 * A ring whose submission thread started while audit was disabled
 * (auditctl -e 0), with an io_uring rule loaded: its OPENAT then is not
 * logged; after -e 1 its next OPENAT is, like any other request.
 */
/* a PATH record of @arg, in any event */
static bool match_path_name(const struct audit_record *r, const void *arg)
{
	return r->type == AUDIT_PATH && audit_field_is(r, "name", arg);
}

static int count_uringop(struct audit_nl *nl, int op, pid_t pid)
{
	struct sqp_match m = { op, pid, NULL };
	int i, n = 0;

	for (i = 0; i < nl->nrec; i++)
		n += match_sqp(&nl->rec[i], &m);
	return n;
}

struct late {
	int ready, go;		/* pipe ends: to the parent, from it */
	const char *off, *on;	/* opened while audit is off, and on */
};

static int child_sqpoll_late(void *arg)
{
	const struct late *l = arg;
	struct io_uring_sqe sqe;
	struct ring r;
	char c;
	int fd;

	if (sqpoll_init(&r))
		return 10;
	sqe_openat(&sqe, l->off, O_RDONLY | O_DIRECTORY);
	fd = sqpoll_run(&r, &sqe);
	if (fd < 0)
		return 11;
	close(fd);
	if (write(l->ready, "r", 1) != 1 || read(l->go, &c, 1) != 1)
		return 12;
	sqe_openat(&sqe, l->on, O_RDONLY);
	fd = sqpoll_run(&r, &sqe);
	if (fd < 0)
		return 13;
	close(fd);
	return 0;
}

TEST_F(sqpoll, thread_started_while_audit_disabled)
{
	const struct audit_record *rec;
	int ready[2], go[2], fd, status;
	struct late l;
	struct audit_rule r;
	pid_t pid;
	char c;

	fd = open(self->file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	r = uring_rule(IORING_OP_OPENAT, "sqp_late");
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 0, 0));
	audit_records_clear(&self->nl);
	l = (struct late){ ready[1], go[0], self->dir, self->file };
	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(child_sqpoll_late(&l));
	ASSERT_EQ(1, read(ready[0], &c, 1)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		TH_LOG("the SQPOLL child did not open %s through its ring", self->dir);
	}
	ASSERT_EQ(0, audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 1, 0));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the SQPOLL child failed at step %d", WEXITSTATUS(status));
	}
	ASSERT_LE(0, audit_sync(&self->nl));
	/* one OPENAT logged: the second, of the file */
	rec = sqp_record(&self->nl, IORING_OP_OPENAT, pid, "sqp_late");
	ASSERT_NE(NULL, rec) {
		audit_dump(&self->nl);
		TH_LOG("no URINGOP record of the OPENAT made after -e 1");
	}
	EXPECT_NE(NULL, audit_path_record(&self->nl, rec->serial, self->file)) {
		audit_dump(&self->nl);
		TH_LOG("the logged OPENAT is not the one of %s", self->file);
	}
	EXPECT_GT(0, audit_find(&self->nl, 0, match_path_name, self->dir)) {
		audit_dump(&self->nl);
		TH_LOG("the OPENAT of %s, made while audit was off, was logged", self->dir);
	}
	EXPECT_EQ(1, count_uringop(&self->nl, IORING_OP_OPENAT, pid));
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

TEST_HARNESS_MAIN
