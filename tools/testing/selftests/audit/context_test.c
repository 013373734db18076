// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: what a task's audit context carries from one syscall to
 * the next.
 *
 * A record that other kernel code logs during a syscall (a LOGIN record
 * from a write to /proc/self/loginuid, a CONFIG_CHANGE record from an
 * AUDIT_SET request) takes the syscall's serial and brings the syscall's
 * SYSCALL record with it, also when no rule is loaded and the context was
 * a dummy when the syscall began. These tests run two such syscalls in one
 * task, or one after a syscall that a rule matched, so that whatever the
 * first syscall left in the context is still there for the second: each
 * record must still come with its own SYSCALL record.
 *
 * The other tests log two syscalls of one task that rules match, the
 * first of which leaves something in the context (collected names, a
 * socket address, a signal target, a timestamp), and check that the
 * second one's records show none of it.
 *
 * An io_uring request that the task runs from task_work after its syscall
 * returned is filtered on that syscall's arch and arguments, or on zeros
 * when the syscall's exit reset the context: the task_work tests check
 * which rule such a request matches in both cases.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/un.h>

#include "../kselftest_harness.h"
#include "audit_common.h"
#include "uring_common.h"

#define LOGINUID	"/proc/self/loginuid"
#define T_AUID		4243
#define T_AUID_STR	"4243"
#define SPIN_MS		10000

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELEASE)

/* exit codes of the children: what went wrong where */
enum {
	C_OPEN = 10,		/* opening /proc/self/loginuid */
	C_EPERM,		/* the loginuid may not be changed here */
	C_WRITE,		/* writing it failed otherwise */
	C_NETLINK,		/* the child's audit socket */
	C_SET,			/* its AUDIT_SET request */
	C_URING,		/* its io_uring requests */
	C_SYSCALL,		/* another syscall failed */
};

/* Set the caller's loginuid with one pwrite() syscall. */
static int write_loginuid(int fd)
{
	ssize_t n = pwrite(fd, T_AUID_STR, strlen(T_AUID_STR), 0);

	if (n == (ssize_t)strlen(T_AUID_STR))
		return 0;
	return n < 0 && errno == EPERM ? C_EPERM : C_WRITE;
}

/* two LOGIN records, each logged in a pwrite() of its own */
static int child_two_logins(void *arg)
{
	int fd = open(LOGINUID, O_WRONLY), ret;

	if (fd < 0)
		return C_OPEN;
	ret = write_loginuid(fd);
	if (!ret)
		ret = write_loginuid(fd);
	close(fd);
	return ret;
}

/* two CONFIG_CHANGE records, each logged in a sendto() of its own */
static int child_two_config_changes(void *arg)
{
	struct audit_nl *nl = calloc(1, sizeof(*nl));
	__u32 enabled = *(__u32 *)arg;

	if (!nl || audit_open(nl))
		return C_NETLINK;
	if (audit_set_status(nl, AUDIT_STATUS_ENABLED, enabled, 0) ||
	    audit_set_status(nl, AUDIT_STATUS_ENABLED, enabled, 0))
		return C_SET;
	return 0;
}

static const char *child_error(int code)
{
	switch (code) {
	case C_OPEN:
		return "opening " LOGINUID " failed";
	case C_WRITE:
		return "writing " LOGINUID " failed";
	case C_NETLINK:
		return "the child's audit socket failed";
	case C_SET:
		return "the child's AUDIT_SET failed";
	case C_URING:
		return "the child's io_uring requests failed";
	case C_SYSCALL:
		return "a syscall of the child failed";
	}
	return "the child failed";
}

/*
 * The records of type @type logged during the syscalls of @pid, which must
 * be @n, each with the SYSCALL record of syscall @nr under its serial (a
 * record that has no pid= field, as CONFIG_CHANGE, is taken to be @pid's
 * when its SYSCALL record says so). Their serials must differ.
 */
static void check_records_with_syscall(struct __test_metadata *_metadata,
				       struct audit_nl *nl, int type, pid_t pid,
				       int nr, int n)
{
	unsigned long serials[8];
	int i, j, found = 0;

	for (i = 0; i < nl->nrec; i++) {
		const struct audit_record *r = &nl->rec[i], *sys;

		if (r->type != type)
			continue;
		if (audit_field(r, "pid") && !audit_field_is_num(r, "pid", pid))
			continue;
		sys = audit_event_record(nl, r->serial, AUDIT_SYSCALL, 0);
		if (!audit_field(r, "pid") &&
		    (!sys || !audit_field_is_num(sys, "pid", pid)))
			continue;
		ASSERT_LT(found, 8);
		if (!sys)
			audit_dump(nl);
		ASSERT_NE(NULL, sys) {
			TH_LOG("record %d of %d came without the SYSCALL record of its syscall: %s",
			       found + 1, n, r->text);
		}
		EXPECT_TRUE(audit_field_is_num(sys, "syscall", nr) &&
			    audit_field_is_num(sys, "pid", pid) &&
			    audit_field_is(sys, "success", "yes")) {
			TH_LOG("not the syscall that logged it: %s", sys->text);
		}
		for (j = 0; j < found; j++)
			EXPECT_NE(serials[j], r->serial) {
				TH_LOG("two syscalls share serial %lu", r->serial);
			}
		serials[found++] = r->serial;
	}
	if (found != n)
		audit_dump(nl);
	ASSERT_EQ(n, found);
}

static void check_login(struct __test_metadata *_metadata,
			const struct audit_record *r)
{
	EXPECT_TRUE(audit_field_is_num(r, "auid", T_AUID) &&
		    audit_field_is(r, "res", "1")) {
		TH_LOG("%s", r->text);
	}
}

FIXTURE(context) {
	struct audit_nl nl;
	bool ready;
};

FIXTURE_SETUP(context)
{
	audit_fixture_setup(_metadata, &self->nl);
	self->ready = true;
}

FIXTURE_TEARDOWN(context)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

/*
 * No rule loaded: the child's two pwrite()s to its loginuid each begin
 * with a dummy context, and each logs a LOGIN record, which must bring the
 * SYSCALL record of its own pwrite(). What the first record set in the
 * context for its syscall must not keep the second from being logged.
 */
TEST_F(context, two_logins_without_rules)
{
	struct audit_nl *nl = &self->nl;
	int status, i;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	audit_records_clear(nl);
	pid = audit_run_child(child_two_logins, NULL, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == C_EPERM)
		SKIP(return, "the loginuid is immutable here");
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", child_error(WEXITSTATUS(status)));
	}
	ASSERT_LE(0, audit_sync(nl));
	check_records_with_syscall(_metadata, nl, AUDIT_LOGIN, pid,
				   __NR_pwrite64, 2);
	for (i = 0; i < nl->nrec; i++)
		if (nl->rec[i].type == AUDIT_LOGIN &&
		    audit_field_is_num(&nl->rec[i], "pid", pid))
			check_login(_metadata, &nl->rec[i]);
}

/* The same with two AUDIT_SET requests: two CONFIG_CHANGE records. */
TEST_F(context, two_config_changes_without_rules)
{
	struct audit_nl *nl = &self->nl;
	struct audit_status st;
	int status;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	ASSERT_EQ(0, audit_get_status(nl, &st));
	audit_records_clear(nl);
	pid = audit_run_child(child_two_config_changes, &st.enabled, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", child_error(WEXITSTATUS(status)));
	}
	ASSERT_LE(0, audit_sync(nl));
	check_records_with_syscall(_metadata, nl, AUDIT_CONFIG_CHANGE, pid,
				   __NR_sendto, 2);
}

/*
 * A rule matches the child's getppid(); then, while the child spins in
 * user space (so that no syscall of its own comes between), the rule is
 * deleted. The child's next syscall begins with a dummy context and logs a
 * LOGIN record, which must come with its SYSCALL record: the match decided
 * the getppid()'s fate and nothing after it.
 */
struct spin_shared {
	int spinning;
	int release;
};

static int child_rule_then_login(void *arg)
{
	struct spin_shared *sh = arg;
	int fd = open(LOGINUID, O_WRONLY), ret;

	if (fd < 0)
		return C_OPEN;
	syscall(__NR_getppid);
	STORE(sh->spinning, 1);
	while (!LOAD(sh->release))
		;
	ret = write_loginuid(fd);
	close(fd);
	return ret;
}

FIXTURE(deleted_rule) {
	struct audit_nl nl;
	bool ready;
};

FIXTURE_VARIANT(deleted_rule) {
	__u32 action;
};

FIXTURE_VARIANT_ADD(deleted_rule, always) {
	.action = AUDIT_ALWAYS,
};

FIXTURE_VARIANT_ADD(deleted_rule, never) {
	.action = AUDIT_NEVER,
};

FIXTURE_SETUP(deleted_rule)
{
	audit_fixture_setup(_metadata, &self->nl);
	self->ready = true;
}

FIXTURE_TEARDOWN(deleted_rule)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

TEST_F(deleted_rule, login_in_next_syscall)
{
	struct audit_nl *nl = &self->nl;
	struct spin_shared *sh;
	struct audit_child c = { .go = -1 };
	struct audit_rule rule;
	struct timespec t0;
	int status = -1, ret;
	bool spun;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	ASSERT_EQ(0, audit_child_start(&c, child_rule_then_login, sh));
	rule = audit_exit_rule(variant->action, __NR_getppid, c.pid, "t_prev");
	ret = audit_add(nl, &rule);
	if (ret)
		kill(c.pid, SIGKILL);
	ASSERT_EQ(0, ret);
	audit_records_clear(nl);
	ASSERT_EQ(1, write(c.go, "g", 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(spun = LOAD(sh->spinning)) && audit_ms_since(&t0) < SPIN_MS)
		usleep(1000);
	/* deleted while the child runs no syscall */
	ret = audit_del(nl, -1);
	STORE(sh->release, 1);
	close(c.go);
	waitpid(c.pid, &status, 0);
	munmap(sh, sizeof(*sh));
	ASSERT_TRUE(spun) {
		TH_LOG("the child did not reach its loop");
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == C_EPERM)
		SKIP(return, "the loginuid is immutable here");
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", child_error(WEXITSTATUS(status)));
	}
	ASSERT_LE(0, audit_sync(nl));
	/* the rule did match: it logged the getppid() or kept it quiet */
	ASSERT_EQ(variant->action == AUDIT_ALWAYS,
		  audit_count_syscall(nl, __NR_getppid, c.pid));
	check_records_with_syscall(_metadata, nl, AUDIT_LOGIN, c.pid,
				   __NR_pwrite64, 1);
}

/*
 * The same in an io_uring worker: two IORING_OP_SENDMSG requests, each
 * carrying an AUDIT_SET, the first forced to a worker thread
 * (IOSQE_ASYNC) and linked to the second (IOSQE_IO_LINK), which the same
 * worker then runs when the first completes. The worker logs a
 * CONFIG_CHANGE record in each request, and each must come with the
 * URINGOP record of its own request.
 */
static int ring_run_two(struct ring *r, const struct io_uring_sqe *sqe)
{
	__u32 *sq_tail = r->sq + r->p.sq_off.tail;
	__u32 *sq_mask = r->sq + r->p.sq_off.ring_mask;
	__u32 *sq_array = r->sq + r->p.sq_off.array;
	__u32 *cq_head = r->cq + r->p.cq_off.head;
	__u32 *cq_tail = r->cq + r->p.cq_off.tail;
	__u32 *cq_mask = r->cq + r->p.cq_off.ring_mask;
	struct io_uring_cqe *cqes = r->cq + r->p.cq_off.cqes;
	__u32 tail = *sq_tail, head;
	int i, bad = 0;

	for (i = 0; i < 2; i++) {
		__u32 idx = (tail + i) & *sq_mask;

		*ring_sqe(r, idx) = sqe[i];
		sq_array[idx] = idx;
	}
	__atomic_store_n(sq_tail, tail + 2, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 2, 2, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -1;
	for (i = 0; i < 2; i++) {
		head = *cq_head;
		if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
			return -1;
		bad |= cqes[head & *cq_mask].res != (int)sqe[i].user_data;
		__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	}
	return bad ? -1 : 0;
}

static int child_two_config_changes_async(void *arg)
{
	struct {
		struct nlmsghdr h;
		struct audit_status st;
	} m = {
		.h = { .nlmsg_len = sizeof(m), .nlmsg_type = AUDIT_SET,
		       .nlmsg_flags = NLM_F_REQUEST },
		.st = { .mask = AUDIT_STATUS_ENABLED, .enabled = *(__u32 *)arg },
	};
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	/* user_data: the result each must have, all of the message sent */
	struct io_uring_sqe sqe[2] = {
		{ .opcode = IORING_OP_SENDMSG, .flags = IOSQE_ASYNC | IOSQE_IO_LINK,
		  .addr = (unsigned long)&mh, .len = 1, .user_data = sizeof(m) },
		{ .opcode = IORING_OP_SENDMSG,
		  .addr = (unsigned long)&mh, .len = 1, .user_data = sizeof(m) },
	};
	struct ring ring;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
	if (fd < 0)
		return C_NETLINK;
	if (ring_init(&ring))
		return C_URING;
	sqe[0].fd = fd;
	sqe[1].fd = fd;
	return ring_run_two(&ring, sqe) ? C_URING : 0;
}

TEST_F(context, two_config_changes_in_io_worker)
{
	struct audit_nl *nl = &self->nl;
	struct audit_status st;
	int status, i, found = 0;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	if (!uring_available())
		SKIP(return, "io_uring is not available");
	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	ASSERT_EQ(0, audit_get_status(nl, &st));
	audit_records_clear(nl);
	pid = audit_run_child(child_two_config_changes_async, &st.enabled,
			      &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", child_error(WEXITSTATUS(status)));
	}
	ASSERT_LE(0, audit_sync(nl));
	for (i = 0; i < nl->nrec; i++) {
		const struct audit_record *r = &nl->rec[i], *op;

		if (!audit_match_set_enabled(r, NULL))
			continue;
		op = audit_event_record(nl, r->serial, AUDIT_URINGOP, 0);
		if (!op)
			audit_dump(nl);
		ASSERT_NE(NULL, op) {
			TH_LOG("record %d came without the URINGOP record of its request: %s",
			       found + 1, r->text);
		}
		EXPECT_TRUE(audit_field_is_num(op, "uring_op", IORING_OP_SENDMSG) &&
			    audit_field_is_num(op, "pid", pid) &&
			    audit_field_is(op, "success", "yes")) {
			TH_LOG("not the child's request: %s", op->text);
		}
		found++;
	}
	if (found != 2)
		audit_dump(nl);
	ASSERT_EQ(2, found);
}

/*
 * A record's time is that of its own syscall's entry: a LOGIN record
 * logged in a syscall without rules (the rule that logged the task's
 * getppid() is deleted while it sleeps), two seconds after that
 * getppid(), carries the later time.
 */
struct times {
	int logged;
	struct timespec before, after;
};

static int child_login_later(void *arg)
{
	struct times *t = arg;
	int fd = open(LOGINUID, O_WRONLY), ret;

	if (fd < 0)
		return C_OPEN;
	syscall(__NR_getppid);
	STORE(t->logged, 1);
	sleep(2);
	clock_gettime(CLOCK_REALTIME, &t->before);
	ret = write_loginuid(fd);
	clock_gettime(CLOCK_REALTIME, &t->after);
	close(fd);
	return ret;
}

/* the record's time (audit(SECONDS.MILLIS:SERIAL)) in milliseconds */
static long long record_ms(const struct audit_record *r)
{
	unsigned long long sec;
	unsigned int ms;

	if (sscanf(r->text, "audit(%llu.%u:", &sec, &ms) != 2)
		return -1;
	return sec * 1000 + ms;
}

static long long ts_ms(const struct timespec *t)
{
	return t->tv_sec * 1000LL + t->tv_nsec / 1000000;
}

TEST_F(context, record_time_is_its_syscalls)
{
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r, *sys;
	struct audit_child c = { .go = -1 };
	struct audit_rule rule;
	struct timespec t0;
	struct times *t;
	long long ms;
	int status, ret;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, t);
	ASSERT_EQ(0, audit_child_start(&c, child_login_later, t));
	rule = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, c.pid, "t_time");
	ASSERT_EQ(0, audit_add(nl, &rule));
	audit_records_clear(nl);
	ASSERT_EQ(1, write(c.go, "g", 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!LOAD(t->logged) && audit_ms_since(&t0) < SPIN_MS)
		usleep(1000);
	/* the child sleeps: its pwrite() will begin without rules */
	ret = audit_del(nl, -1);
	close(c.go);
	status = -1;
	waitpid(c.pid, &status, 0);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == C_EPERM)
		SKIP(return, "the loginuid is immutable here");
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", child_error(WEXITSTATUS(status)));
	}
	ASSERT_LE(0, audit_sync(nl));
	ASSERT_NE(NULL, audit_syscall_record(nl, __NR_getppid, c.pid, "t_time"));
	sys = audit_syscall_record(nl, __NR_pwrite64, c.pid, NULL);
	r = sys ? audit_event_record(nl, sys->serial, AUDIT_LOGIN, 0) : NULL;
	if (!r)
		audit_dump(nl);
	ASSERT_NE(NULL, r) {
		TH_LOG("no LOGIN record with the SYSCALL record of its pwrite()");
	}
	/* the entry reads the coarse clock: a tick's slack each side */
	ms = record_ms(r);
	EXPECT_EQ(ms, record_ms(sys));
	EXPECT_LE(ts_ms(&t->before) - 50, ms) {
		TH_LOG("the record is older than its syscall: %s", r->text);
	}
	EXPECT_GE(ts_ms(&t->after) + 50, ms) {
		TH_LOG("the record is newer than its syscall: %s", r->text);
	}
	munmap(t, sizeof(*t));
}

/*
 * Two logged syscalls of one task: the first leaves something in the
 * context, the second, which collects nothing, must not show it.
 */
static void run_logged(struct __test_metadata *_metadata,
		       struct audit_nl *nl, audit_child_fn fn, void *arg,
		       const int *nrs, int n, pid_t *pid)
{
	struct audit_child c = { .go = -1 };
	int i, status;

	ASSERT_EQ(0, audit_child_start(&c, fn, arg));
	*pid = c.pid;
	for (i = 0; i < n; i++) {
		struct audit_rule rule = audit_exit_rule(AUDIT_ALWAYS, nrs[i],
							 c.pid, "t_ctx");
		int ret = audit_add(nl, &rule);

		if (ret)
			kill(c.pid, SIGKILL);
		ASSERT_EQ(0, ret);
	}
	audit_records_clear(nl);
	status = audit_child_finish(&c);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", child_error(WEXITSTATUS(status)));
	}
	ASSERT_LE(0, audit_sync(nl));
}

/* the event of @pid's syscall @nr: its SYSCALL record's serial */
static unsigned long event_of(struct __test_metadata *_metadata,
			      struct audit_nl *nl, int nr, pid_t pid)
{
	const struct audit_record *r = audit_syscall_record(nl, nr, pid, "t_ctx");

	if (!r)
		audit_dump(nl);
	ASSERT_NE(NULL, r) {
		TH_LOG("no SYSCALL record of syscall %d", nr);
	}
	return r->serial;
}

static int child_open_then_lseek(void *arg)
{
	long fd = syscall(__NR_openat, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return C_SYSCALL;
	syscall(__NR_lseek, -1, 0, 0, 0);
	close(fd);
	return 0;
}

/* the names an openat() collected end with it */
TEST_F(context, names_end_with_syscall)
{
	static const int nrs[] = { __NR_openat, __NR_lseek };
	struct audit_nl *nl = &self->nl;
	const struct audit_record *sys;
	unsigned long ev;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	run_logged(_metadata, nl, child_open_then_lseek, NULL, nrs, 2, &pid);
	ev = event_of(_metadata, nl, __NR_openat, pid);
	EXPECT_NE(NULL, audit_path_record(nl, ev, "/"));
	ev = event_of(_metadata, nl, __NR_lseek, pid);
	sys = audit_event_record(nl, ev, AUDIT_SYSCALL, 0);
	EXPECT_TRUE(audit_field_is(sys, "items", "0")) {
		TH_LOG("%s", sys->text);
	}
	EXPECT_EQ(NULL, audit_event_record(nl, ev, AUDIT_PATH, 0));
	EXPECT_EQ(NULL, audit_event_record(nl, ev, AUDIT_CWD, 0));
}

static int child_bind_then_lseek(void *arg)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	socklen_t len;

	if (fd < 0)
		return C_SYSCALL;
	/* an abstract name: nothing in the file system */
	len = offsetof(struct sockaddr_un, sun_path) + 1 +
	      snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
		       "audit_ctx_%d", getpid());
	if (bind(fd, (struct sockaddr *)&sun, len))
		return C_SYSCALL;
	syscall(__NR_lseek, -1, 0, 0, 0);
	close(fd);
	return 0;
}

/* the socket address a bind() collected ends with it */
TEST_F(context, sockaddr_ends_with_syscall)
{
	static const int nrs[] = { __NR_bind, __NR_lseek };
	struct audit_nl *nl = &self->nl;
	unsigned long ev;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	run_logged(_metadata, nl, child_bind_then_lseek, NULL, nrs, 2, &pid);
	ev = event_of(_metadata, nl, __NR_bind, pid);
	EXPECT_NE(NULL, audit_event_record(nl, ev, AUDIT_SOCKADDR, 0));
	ev = event_of(_metadata, nl, __NR_lseek, pid);
	EXPECT_EQ(NULL, audit_event_record(nl, ev, AUDIT_SOCKADDR, 0));
}

static int child_kill_then_getppid(void *arg)
{
	pid_t *targets = arg, parent = getpid();
	int i, ret = 0;

	for (i = 0; i < 2; i++) {
		/* the targets share @targets: only this task writes it */
		pid_t t = fork();

		if (t < 0)
			return C_SYSCALL;
		if (!t) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			/* its parent may have died before the prctl() */
			if (getppid() != parent)
				_exit(0);
			pause();
			_exit(0);
		}
		targets[i] = t;
	}
	for (i = 0; i < 2; i++)
		if (syscall(__NR_kill, targets[i], 0))
			ret = C_SYSCALL;
	syscall(__NR_getppid);
	for (i = 0; i < 2; i++) {
		kill(targets[i], SIGKILL);
		waitpid(targets[i], NULL, 0);
	}
	return ret;
}

/*
 * A signal's target (OBJ_PID) is logged with the kill() that sent it, not
 * with the task's next syscall; a second kill() logs its own target.
 */
TEST_F(context, signal_target_ends_with_syscall)
{
	static const int nrs[] = { __NR_kill, __NR_getppid };
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r;
	struct audit_syscall_match m = { .nr = __NR_kill, .key = "t_ctx" };
	pid_t pid, *targets;
	int i, k = 0;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	targets = mmap(NULL, 2 * sizeof(*targets), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, targets);
	run_logged(_metadata, nl, child_kill_then_getppid, targets, nrs, 2,
		   &pid);
	m.pid = pid;
	for (i = 0; i < nl->nrec && k < 2; i++) {
		if (!audit_match_syscall(&nl->rec[i], &m) ||
		    !audit_field_is(&nl->rec[i], "a1", "0"))
			continue;
		r = audit_event_record(nl, nl->rec[i].serial, AUDIT_OBJ_PID, 0);
		if (!r)
			audit_dump(nl);
		ASSERT_NE(NULL, r);
		EXPECT_TRUE(audit_field_is_num(r, "opid", targets[k])) {
			TH_LOG("kill() %d of 2 logged another target: %s",
			       k + 1, r->text);
		}
		EXPECT_EQ(NULL, audit_event_record(nl, nl->rec[i].serial,
						   AUDIT_OBJ_PID, 1));
		k++;
	}
	EXPECT_EQ(2, k);
	EXPECT_EQ(NULL, audit_event_record(nl, event_of(_metadata, nl,
							__NR_getppid, pid),
					   AUDIT_OBJ_PID, 0));
	munmap(targets, 2 * sizeof(*targets));
}

/*
 * A PROCTITLE record carries the command line as the task's first such
 * record read it, for every later record of the task: in hex (upper case)
 * if it holds a space, a quote, a control character (a NUL between two
 * arguments) or a byte of 0x80 and above, quoted otherwise. The child
 * writes a title into its own argument area, calls getppid(), writes
 * another and calls getppid() again: both records must carry the first
 * title, in its form, and nothing else. A task whose area holds only
 * NULs has no command line: its record says "(null)", nothing is kept,
 * and the next record reads the area again (variant "blank_first").
 */
FIXTURE(proctitle) {
	struct audit_nl nl;
	bool ready;
};

/* what the child writes in its arguments */
struct title {
	const char *text;
	int len;		/* it may hold a NUL */
	bool blank_first;	/* a getppid() with an all-NUL area before */
};

FIXTURE_VARIANT(proctitle) {
	struct title title;
	const char *logged;	/* the field's text in both records */
};

FIXTURE_VARIANT_ADD(proctitle, quoted) {
	.title = { "t_ctx", 5 }, .logged = "\"t_ctx\"",
};

FIXTURE_VARIANT_ADD(proctitle, hex) {
	.title = { "t\0c\"z", 5 }, .logged = "740063227A",
};

FIXTURE_VARIANT_ADD(proctitle, high_bytes) {
	.title = { "\xff\x80t", 3 }, .logged = "FF8074",
};

FIXTURE_VARIANT_ADD(proctitle, blank_first) {
	.title = { "t_ctx", 5, true }, .logged = "\"t_ctx\"",
};

FIXTURE_SETUP(proctitle)
{
	audit_fixture_setup(_metadata, &self->nl);
	self->ready = true;
}

FIXTURE_TEARDOWN(proctitle)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

/* the argument area of this process, from fields 48 and 49 of its stat */
static int arg_area(char **start, char **end)
{
	unsigned long s, e;
	char buf[4096], *p;
	int fd, i;
	ssize_t n;

	fd = open("/proc/self/stat", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* after the command name, which may hold spaces: field 3 */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 48; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %lu %lu", &s, &e) != 2 || e <= s)
		return -1;
	*start = (char *)s;
	*end = (char *)e;
	return 0;
}

static int child_two_titles(void *arg)
{
	const struct title *t = arg;
	char *start, *end;

	if (arg_area(&start, &end) || end - start < t->len + 1)
		return C_SYSCALL;
	memset(start, 0, end - start);
	if (t->blank_first)
		syscall(__NR_getppid);
	memcpy(start, t->text, t->len);
	syscall(__NR_getppid);
	memset(start, 'z', t->len);
	syscall(__NR_getppid);
	return 0;
}

TEST_F(proctitle, kept_as_first_logged)
{
	static const int nrs[] = { __NR_getppid };
	struct audit_syscall_match m = { .nr = __NR_getppid, .key = "t_ctx" };
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r;
	int want = variant->title.blank_first ? 3 : 2;
	int i = -1, n = 0;
	const char *f, *logged;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	run_logged(_metadata, nl, child_two_titles, (void *)&variant->title,
		   nrs, 1, &pid);
	m.pid = pid;
	while ((i = audit_find(nl, i + 1, audit_match_syscall, &m)) >= 0) {
		n++;
		r = audit_event_record(nl, nl->rec[i].serial, AUDIT_PROCTITLE,
				       0);
		ASSERT_NE(NULL, r) {
			TH_LOG("no PROCTITLE record in event %lu",
			       nl->rec[i].serial);
		}
		logged = n == 1 && want == 3 ? "\"(null)\"" : variant->logged;
		f = strstr(r->text, "): proctitle=");
		EXPECT_TRUE(f && !strcmp(f + 13, logged)) {
			TH_LOG("getppid() %d: %s, not proctitle=%s", n,
			       r->text, logged);
		}
		EXPECT_EQ(NULL, audit_event_record(nl, nl->rec[i].serial,
						   AUDIT_PROCTITLE, 1));
	}
	if (n != want)
		audit_dump(nl);
	EXPECT_EQ(want, n);
}

/*
 * An io_uring request that the task runs from task_work after its syscall
 * returned (a request linked behind a poll that the syscall fired) is
 * filtered on that syscall's arch and arguments if its context was a
 * dummy, and on none (zeros) if the syscall's exit reset the context.
 *
 * The chain: POLL_ADD on a pipe, then (variant "rule_in_chain") a SEND of
 * an AUDIT_ADD_RULE on the task's own audit socket, then OPENAT of "/".
 * A write() to the pipe fires the poll; the requests run in the task as
 * it returns from write(). With no rule loaded write() is a dummy
 * syscall: the rule the chain adds (arch and a0 of that write()) must
 * match the OPENAT, although logging the rule's CONFIG_CHANGE, outside any
 * syscall, made the context one that is not a dummy. SEND is a request
 * io_uring does not audit, so it opens no context of its own, and the
 * netlink message reaches audit_receive() in the task. With rules loaded
 * (variant "rules_loaded", loaded after the chain was submitted, so that
 * io_uring_enter() collects no name) write()'s exit resets the context,
 * and the OPENAT must see a0=0, not write()'s descriptor.
 *
 * OPENAT of "/" runs in the task: its lookup needs no component and no
 * I/O. Only a mount table change during the lookup makes io_uring retry
 * it in a worker; the first attempt is then logged with exit=-11, which
 * the test leaves aside.
 */
#define UR_KEY_LAST	"t_ctx_last"	/* arch and a0 of the write() */
#define UR_KEY_ZERO	"t_ctx_zero"	/* a0=0 */

struct task_work_chain {
	int pipe[2];
	bool add_rule;
	int submitted, go;		/* the rules_loaded handshake */
	void *msg;			/* the AUDIT_ADD_RULE message */
	size_t msg_len;
	int res[3];			/* the requests' results */
};

static struct audit_rule uring_openat_rule(__u32 field, __u32 val,
					   const char *key)
{
	struct audit_rule r = uring_rule(IORING_OP_OPENAT, key);

	audit_rule_field(&r, field, AUDIT_EQUAL, val);
	return r;
}

static int child_task_work_chain(void *arg)
{
	struct task_work_chain *t = arg;
	__u32 events = POLLIN;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqes;
	__u32 *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	__u32 tail, head, n = 0, i;
	struct timespec t0;
	struct ring ring;
	int nl;

	nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
	if (nl < 0)
		return C_NETLINK;
	if (ring_init(&ring))
		return C_URING;
	sq_tail = ring.sq + ring.p.sq_off.tail;
	sq_mask = ring.sq + ring.p.sq_off.ring_mask;
	sq_array = ring.sq + ring.p.sq_off.array;
	cq_head = ring.cq + ring.p.cq_off.head;
	cq_tail = ring.cq + ring.p.cq_off.tail;
	cq_mask = ring.cq + ring.p.cq_off.ring_mask;
	cqes = ring.cq + ring.p.cq_off.cqes;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	/* the kernel swaps the halves of poll32_events on big-endian */
	events = events << 16 | events >> 16;
#endif

	tail = *sq_tail;
	sqe = ring_sqe(&ring, (tail + n) & *sq_mask);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_POLL_ADD;
	sqe->flags = IOSQE_IO_LINK;
	sqe->fd = t->pipe[0];
	sqe->poll32_events = events;
	sqe->user_data = n++;
	if (t->add_rule) {
		sqe = ring_sqe(&ring, (tail + n) & *sq_mask);
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_SEND;
		sqe->flags = IOSQE_IO_LINK;
		sqe->fd = nl;
		sqe->addr = (unsigned long)t->msg;
		sqe->len = t->msg_len;
		sqe->user_data = n++;
	}
	sqe = ring_sqe(&ring, (tail + n) & *sq_mask);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)"/";
	sqe->open_flags = O_RDONLY | O_DIRECTORY;
	sqe->user_data = n++;
	for (i = 0; i < n; i++)
		sq_array[(tail + i) & *sq_mask] = (tail + i) & *sq_mask;
	__atomic_store_n(sq_tail, tail + n, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring.fd, n, 0, 0, NULL, 0) != n)
		return C_URING;

	STORE(t->submitted, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!LOAD(t->go))
		if (audit_ms_since(&t0) > SPIN_MS)
			return C_SYSCALL;

	/* the syscall whose arch and a0 the requests see */
	if (syscall(__NR_write, t->pipe[1], "x", 1) != 1)
		return C_SYSCALL;

	if (syscall(__NR_io_uring_enter, ring.fd, 0, n, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return C_URING;
	for (i = 0; i < n; i++) {
		head = *cq_head;
		if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
			return C_URING;
		t->res[cqes[head & *cq_mask].user_data] =
			cqes[head & *cq_mask].res;
		__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

FIXTURE(task_work) {
	struct audit_nl nl;
	bool ready;
};

FIXTURE_VARIANT(task_work) {
	bool rule_in_chain;
};

FIXTURE_VARIANT_ADD(task_work, rule_in_chain) {
	.rule_in_chain = true,
};

FIXTURE_VARIANT_ADD(task_work, rules_loaded) {
	.rule_in_chain = false,
};

FIXTURE_SETUP(task_work)
{
	audit_fixture_setup(_metadata, &self->nl);
	self->ready = true;
}

FIXTURE_TEARDOWN(task_work)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

TEST_F(task_work, request_sees_last_syscall)
{
	struct audit_nl *nl = &self->nl;
	struct task_work_chain *t;
	const struct audit_record *r = NULL;
	struct uring_match m = { .op = IORING_OP_OPENAT };
	struct audit_rule rule;
	struct nlmsghdr *h;
	struct timespec t0;
	int status, i, want;
	const char *key;

	if (!self->ready)
		SKIP(return, "no audit daemon session");
	if (!uring_available())
		SKIP(return, "io_uring is not available");
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, t);
	ASSERT_EQ(0, pipe(t->pipe));
	t->add_rule = variant->rule_in_chain;
	for (i = 0; i < 3; i++)
		t->res[i] = -ENODATA;

	if (variant->rule_in_chain) {
		/* -a always,io_uring -S openat -F arch=NATIVE -F a0=PIPE */
		rule = uring_openat_rule(AUDIT_ARCH, AUDIT_ARCH_NATIVE,
					 UR_KEY_LAST);
		audit_rule_field(&rule, AUDIT_ARG0, AUDIT_EQUAL, t->pipe[1]);
		t->msg_len = NLMSG_LENGTH(rule.size);
		t->msg = calloc(1, t->msg_len);
		ASSERT_NE(NULL, t->msg);
		h = t->msg;
		h->nlmsg_len = t->msg_len;
		h->nlmsg_type = AUDIT_ADD_RULE;
		h->nlmsg_flags = NLM_F_REQUEST;
		memcpy(NLMSG_DATA(h), rule.d, rule.size);
		/* the child adds it; the teardown deletes it */
		audit_track(nl, &rule);
		key = UR_KEY_LAST;
		t->go = 1;
	} else {
		key = UR_KEY_ZERO;
	}

	audit_records_clear(nl);
	m.pid = fork();
	ASSERT_LE(0, m.pid);
	if (!m.pid) {
		/* never outlive the test, whatever way it ends */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		_exit(child_task_work_chain(t));
	}
	if (!variant->rule_in_chain) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (!LOAD(t->submitted) && audit_ms_since(&t0) < SPIN_MS)
			usleep(1000);
		rule = uring_openat_rule(AUDIT_ARG0, t->pipe[1], UR_KEY_LAST);
		EXPECT_EQ(0, audit_add(nl, &rule));
		rule = uring_openat_rule(AUDIT_ARG0, 0, UR_KEY_ZERO);
		EXPECT_EQ(0, audit_add(nl, &rule));
		STORE(t->go, 1);
	}
	ASSERT_EQ(m.pid, waitpid(m.pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", child_error(WEXITSTATUS(status)));
	}
	want = variant->rule_in_chain ? 3 : 2;
	EXPECT_EQ(POLLIN, t->res[0] & POLLIN);
	if (variant->rule_in_chain)
		EXPECT_EQ((int)t->msg_len, t->res[1]);
	ASSERT_LE(0, t->res[want - 1]) {
		TH_LOG("IORING_OP_OPENAT of \"/\" failed: %s",
		       strerror(-t->res[want - 1]));
	}
	ASSERT_LE(0, audit_sync(nl));

	if (variant->rule_in_chain) {
		/* the SEND ran in the child and its rule was added */
		for (i = 0; i < nl->nrec; i++)
			if (nl->rec[i].type == AUDIT_CONFIG_CHANGE &&
			    audit_field_is(&nl->rec[i], "op", "add_rule") &&
			    audit_field_is(&nl->rec[i], "key", UR_KEY_LAST) &&
			    audit_field_is(&nl->rec[i], "list", "7"))
				break;
		if (i == nl->nrec)
			audit_dump(nl);
		ASSERT_GT(nl->nrec, i) {
			TH_LOG("no CONFIG_CHANGE op=add_rule of the chain's rule");
		}
	}
	/* the OPENAT run from task_work; not an attempt retried elsewhere */
	for (i = 0; (i = audit_find(nl, i, match_uringop, &m)) >= 0; i++) {
		if (!audit_field_is(&nl->rec[i], "exit", "-11")) {
			r = &nl->rec[i];
			break;
		}
		TH_LOG("the OPENAT was retried in a worker: %s",
		       nl->rec[i].text);
		key = NULL;
	}
	if (!key)
		SKIP(goto out, "the OPENAT did not run in the task");
	if (!r)
		audit_dump(nl);
	ASSERT_NE(NULL, r) {
		TH_LOG("the OPENAT run from task_work was not logged (rule key %s)",
		       key);
	}
	EXPECT_TRUE(audit_field_is(r, "key", key) &&
		    audit_field_is(r, "success", "yes")) {
		TH_LOG("%s", r->text);
	}
	/* the name it opened, and no syscall: the request ran after it */
	i = r - nl->rec;
	r = audit_event_record(nl, nl->rec[i].serial, AUDIT_PATH, 0);
	ASSERT_NE(NULL, r) {
		TH_LOG("no PATH record for the OPENAT: %s", nl->rec[i].text);
	}
	EXPECT_TRUE(audit_field_is(r, "name", "/")) {
		TH_LOG("%s", r->text);
	}
	EXPECT_EQ(NULL, audit_event_record(nl, nl->rec[i].serial,
					   AUDIT_SYSCALL, 0));
out:
	free(t->msg);
	close(t->pipe[0]);
	close(t->pipe[1]);
	munmap(t, sizeof(*t));
}

TEST_HARNESS_MAIN
