// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: the built-in "-a never,task" rule (audit_never_task=1).
 *
 * These tests need a kernel booted with audit=1 audit_never_task=1 and
 * skip otherwise. They run in order and change the rule list: the last one
 * removes the built-in rule. The tests are not audited by design, so what
 * they check is what a rule that would match produces:
 *  - the rule is listed as "-a never,task", as auditctl would list it;
 *  - init, which was forked before the rule could exist, is not audited;
 *  - a task forked under the rule is not audited, even by a matching rule;
 *  - the rule is removed with exactly the request "auditctl -d never,task"
 *    sends; then new tasks are audited and older tasks still are not.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

static bool booted_with_never_task(void)
{
	char val[16];

	return audit_cmdline_param("audit_never_task", val, sizeof(val)) &&
	       (!strcmp(val, "1") || !strcmp(val, "on"));
}

/* the request "auditctl -a never,task" / "auditctl -d never,task" sends */
static struct audit_rule never_task_rule(void)
{
	return audit_rule_new(AUDIT_FILTER_TASK, AUDIT_NEVER);
}

static bool is_never_task(const struct audit_rule *r)
{
	static const __u32 zero[AUDIT_BITMASK_SIZE];

	return r->d->flags == AUDIT_FILTER_TASK && r->d->action == AUDIT_NEVER &&
	       r->d->field_count == 0 && r->d->buflen == 0 &&
	       !memcmp(r->d->mask, zero, sizeof(zero));
}

FIXTURE(never_task) {
	struct audit_nl nl;
	bool ready;
};

FIXTURE_SETUP(never_task)
{
	int ret;

	if (!booted_with_never_task())
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "boot with audit=1 audit_never_task=1 to run these");
	/* become the audit daemon without touching the rule list */
	ret = audit_register(&self->nl);
	if (ret && self->nl.skip_reason[0])
		SKIP(_exit(AUDIT_SKIP_STATUS), "%s", self->nl.skip_reason);
	ASSERT_EQ(0, ret);
	audit_drain(&self->nl, 20);
	audit_records_clear(&self->nl);
	self->ready = true;
}

FIXTURE_TEARDOWN(never_task)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

/* the rule list holds exactly the built-in rule, in auditctl's form */
TEST_F(never_task, listed)
{
	struct audit_rule rules[8];
	int n, i;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");

	n = audit_list_rules(&self->nl, rules, 8);
	ASSERT_EQ(1, n) {
		TH_LOG("expected the built-in never,task rule alone");
	}
	EXPECT_TRUE(is_never_task(&rules[0])) {
		TH_LOG("listed rule: list %u action %u fields %u",
		       rules[0].d->flags, rules[0].d->action,
		       rules[0].d->field_count);
	}
	for (i = 0; i < n && i < 8; i++)
		free(rules[i].d);
}

/*
 * Wait (10 s at most) until init sleeps in a syscall, as /proc/1/syscall
 * shows: a syscall it was running has then returned to user space.
 */
static bool wait_init_asleep(void)
{
	char buf[64];
	int i, fd;
	ssize_t n;

	for (i = 0; i < 10000; i++) {
		fd = open("/proc/1/syscall", O_RDONLY);
		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0 && strncmp(buf, "running", 7))
			return true;
		usleep(1000);
	}
	return false;
}

/*
 * init existed before the rule: it must have been given the state of a task
 * forked under it. A rule for every syscall of pid 1 shows whether init's
 * syscalls are audited; reaping an orphan makes init run some (wait4).
 */
TEST_F(never_task, init_unaudited)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule r = audit_exit_rule(AUDIT_ALWAYS, -1, 1, "t_init");
	struct audit_syscall_match m = { .nr = -1, .pid = 1 };
	pid_t child, orphan = 0;
	int status, p[2], i;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");

	ASSERT_EQ(0, audit_add(nl, &r));
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pid_t parent = getpid(), pid = fork();

		if (pid < 0)
			_exit(1);
		if (!pid) {
			/* exit once reparented to init */
			while (getppid() == parent)
				usleep(1000);
			_exit(0);
		}
		_exit(write(p[1], &pid, sizeof(pid)) != sizeof(pid));
	}
	close(p[1]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(sizeof(orphan), read(p[0], &orphan, sizeof(orphan)));
	close(p[0]);
	/* a zombie still exists for kill(); wait (10 s at most) for the reaping */
	for (i = 0; i < 10000 && !(kill(orphan, 0) && errno == ESRCH); i++)
		usleep(1000);
	ASSERT_NE(0, kill(orphan, 0)) {
		TH_LOG("init did not reap orphan %d", orphan);
	}
	/* init reaped it inside wait4(); let that syscall finish */
	ASSERT_TRUE(wait_init_asleep()) {
		TH_LOG("init did not go back to sleep (or no /proc/1/syscall)");
	}
	ASSERT_LE(0, audit_sync(nl));
	i = audit_find(nl, 0, audit_match_syscall, &m);
	EXPECT_GT(0, i) {
		TH_LOG("init's syscalls are audited: %s", nl->rec[i].text);
	}
}

static int do_getppid(void *arg)
{
	return syscall(__NR_getppid) > 0 ? 0 : 1;
}

/* a task forked under the rule is not audited, even by a rule that matches */
TEST_F(never_task, new_task_unaudited)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, 0, "t_new");
	int status;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");

	ASSERT_EQ(0, audit_add(nl, &r));
	pid = audit_run_child(do_getppid, NULL, &status);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, status);
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_EQ(NULL, audit_syscall_record(nl, __NR_getppid, pid, "t_new"));
}

/* auditctl, when the system has it, lists the rule as "-a never,task" */
TEST_F(never_task, auditctl_lists)
{
	static const char *const paths[] = { "/sbin/auditctl", "/usr/sbin/auditctl" };
	const char *auditctl = NULL;
	char line[256];
	bool found = false;
	unsigned int i;
	FILE *f;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");

	for (i = 0; i < ARRAY_SIZE(paths); i++)
		if (!access(paths[i], X_OK))
			auditctl = paths[i];
	if (!auditctl)
		SKIP(return, "no auditctl");
	snprintf(line, sizeof(line), "%s -l", auditctl);
	f = popen(line, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		TH_LOG("auditctl -l: %s", line);
		found |= !strcmp(line, "-a never,task");
	}
	EXPECT_EQ(0, pclose(f));
	EXPECT_TRUE(found);
}

/*
 * "auditctl -d never,task" removes the rule: the request matches it. After
 * that, a task forked before the removal is still not audited, a task forked
 * after it is. Adding the rule back from user space is refused as a
 * duplicate only while the built-in one is there.
 */
TEST_F(never_task, removed_like_any_rule)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule nt = never_task_rule();
	struct audit_rule r;
	struct audit_child before = { .go = -1 }, after = { .go = -1 };

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");

	/* the built-in rule and a user's never,task are the same rule */
	ASSERT_EQ(-EEXIST, audit_rule_send(nl, AUDIT_ADD_RULE, &nt));
	ASSERT_EQ(0, audit_child_start(&before, do_getppid, NULL));
	ASSERT_EQ(0, audit_rule_send(nl, AUDIT_DEL_RULE, &nt));
	EXPECT_EQ(0, audit_list_rules(nl, NULL, 0));
	ASSERT_EQ(-ENOENT, audit_rule_send(nl, AUDIT_DEL_RULE, &nt));
	audit_rule_free(&nt);
	ASSERT_EQ(0, audit_child_start(&after, do_getppid, NULL));

	r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, 0, "t_removed");
	ASSERT_EQ(0, audit_add(nl, &r));
	EXPECT_EQ(0, audit_child_finish(&before));
	EXPECT_EQ(0, audit_child_finish(&after));
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_NE(NULL, audit_syscall_record(nl, __NR_getppid, after.pid, "t_removed"));
	EXPECT_EQ(NULL, audit_syscall_record(nl, __NR_getppid, before.pid, NULL));
}

TEST_HARNESS_MAIN
