// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: the syscall exit filter, rule order, the task list, the
 * exclude list, user messages and rule changes while syscalls run.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

/*
 * The syscall most tests audit: lseek(1000, 2000, 3) with a fourth register
 * of 4000, run by a child with uid 1001, euid 1002 and auid (loginuid) 4242.
 * It fails with EBADF, so success=no exit=-9, and its arguments are known.
 */
#define T_FD		1000
#define T_OFF		2000
#define T_WHENCE	3
#define T_A3		4000
#define T_UID		1001
#define T_EUID		1002
#define T_AUID		4242

/* an arch whose syscall numbers are not the native ones */
#if AUDIT_ARCH_NATIVE == AUDIT_ARCH_I386
#define OTHER_ARCH	AUDIT_ARCH_X86_64
#else
#define OTHER_ARCH	AUDIT_ARCH_I386
#endif

static int set_loginuid(unsigned int auid)
{
	char buf[16];
	int fd, n, ret = 0;

	fd = open("/proc/self/loginuid", O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%u", auid);
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

static int child_lseek_as_user(void *arg)
{
	long ret;

	if (set_loginuid(T_AUID))
		return 10;
	if (setresuid(T_UID, T_EUID, T_EUID))
		return 11;
	ret = syscall(__NR_lseek, T_FD, T_OFF, T_WHENCE, T_A3);
	return ret == -1 && errno == EBADF ? 0 : 12;
}

static int child_lseek(void *arg)
{
	long ret = syscall(__NR_lseek, T_FD, T_OFF, T_WHENCE, T_A3);

	return ret == -1 && errno == EBADF ? 0 : 12;
}

static int child_getpid_getppid(void *arg)
{
	syscall(__NR_getpid);
	syscall(__NR_getppid);
	return 0;
}

static int child_three_syscalls(void *arg)
{
	syscall(__NR_getpid);
	syscall(__NR_getppid);
	syscall(__NR_lseek, T_FD, T_OFF, T_WHENCE, T_A3);
	return 0;
}

/* Run @fn in a child whose pid the rules added by @add may use. */
#define RUN_CHILD(nl, fn, add)						\
	({								\
		struct audit_child __c = { -1, -1 };				\
		ASSERT_EQ(0, audit_child_start(&__c, fn, NULL));	\
		pid_t child = __c.pid;					\
		add;							\
		int __st = audit_child_finish(&__c);			\
		ASSERT_TRUE(WIFEXITED(__st));				\
		ASSERT_EQ(0, WEXITSTATUS(__st));			\
		ASSERT_LE(0, audit_sync(nl)) {				\
			TH_LOG("marker record never arrived");		\
		}							\
		child;							\
	})

#define ADD(nl, r) ASSERT_EQ(0, audit_add(nl, r))

/* the SYSCALL record of @nr by @pid (with @key if not NULL), or fail */
static const struct audit_record *
expect_record(struct __test_metadata *_metadata, struct audit_nl *nl, int nr,
	      pid_t pid, const char *key)
{
	const struct audit_record *r = audit_syscall_record(nl, nr, pid, key);

	if (!r)
		audit_dump(nl);
	ASSERT_NE(NULL, r) {
		TH_LOG("no SYSCALL record for syscall %d pid %d key %s",
		       nr, pid, key ? key : "(any)");
	}
	return r;
}

#define EXPECT_RECORD(nl, nr, pid, key) expect_record(_metadata, nl, nr, pid, key)

#define EXPECT_NO_RECORD(nl, nr, pid)					\
	do {								\
		const struct audit_record *__r =			\
			audit_syscall_record(nl, nr, pid, NULL);	\
		ASSERT_EQ(NULL, __r) {					\
			TH_LOG("unexpected record: %s", __r->text);	\
		}							\
	} while (0)

FIXTURE(filter) {
	struct audit_nl nl;
};

FIXTURE_SETUP(filter)
{
	audit_fixture_setup(_metadata, &self->nl);
}

FIXTURE_TEARDOWN(filter)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

/* a rule on one syscall number matches that syscall, fields as expected */
TEST_F(filter, syscall_number)
{
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r;
	struct audit_rule rule;
	char arch[16];
	pid_t pid;

	pid = RUN_CHILD(nl, child_lseek, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_nr");
		ADD(nl, &rule);
	}));
	r = EXPECT_RECORD(nl, __NR_lseek, pid, "t_nr");
	snprintf(arch, sizeof(arch), "%x", AUDIT_ARCH_NATIVE);
	EXPECT_TRUE(audit_field_is(r, "arch", arch));
	EXPECT_TRUE(audit_field_is(r, "success", "no"));
	EXPECT_TRUE(audit_field_is_num(r, "exit", -EBADF));
	EXPECT_TRUE(audit_field_is(r, "a0", "3e8"));
	EXPECT_TRUE(audit_field_is(r, "a1", "7d0"));
	EXPECT_TRUE(audit_field_is(r, "a2", "3"));
	EXPECT_TRUE(audit_field_is(r, "a3", "fa0"));
	EXPECT_TRUE(audit_field_is_num(r, "ppid", getpid()));
	/* the event ends with an EOE record */
	EXPECT_NE(NULL, audit_event_record(nl, r->serial, AUDIT_EOE, 0));
}

/* a rule on another syscall does not match */
TEST_F(filter, other_syscall_not_matched)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_getpid_getppid, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, child, NULL);
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_getppid, pid, NULL);
	EXPECT_NO_RECORD(nl, __NR_getpid, pid);
}

/* a rule for the native syscall number under another arch does not match */
TEST_F(filter, arch_mismatch)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_getpid_getppid, ({
		rule = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
		audit_rule_field(&rule, AUDIT_ARCH, AUDIT_EQUAL, OTHER_ARCH);
		audit_rule_syscall(&rule, __NR_getpid);
		audit_rule_field(&rule, AUDIT_PID, AUDIT_EQUAL, child);
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, child, NULL);
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_getppid, pid, NULL);
	EXPECT_NO_RECORD(nl, __NR_getpid, pid);
}

/* -S all matches every syscall */
TEST_F(filter, all_syscalls)
{
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_three_syscalls, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, -1, child, "t_all");
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_getpid, pid, "t_all");
	EXPECT_RECORD(nl, __NR_getppid, pid, "t_all");
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_all");
	/*
	 * exit_group never returns: it is logged when the task's context is
	 * freed, without success= and exit= fields
	 */
	r = EXPECT_RECORD(nl, __NR_exit_group, pid, "t_all");
	EXPECT_EQ(NULL, audit_field(r, "success"));
	EXPECT_EQ(NULL, audit_field(r, "exit"));
}

/* a rule without a key logs key=(null) */
TEST_F(filter, no_filterkey)
{
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_lseek, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, NULL);
		ADD(nl, &rule);
	}));
	r = EXPECT_RECORD(nl, __NR_lseek, pid, NULL);
	EXPECT_TRUE(audit_field_is(r, "key", "(null)"));
}

/* ---- fields and operators ---- */

FIXTURE(fieldop) {
	struct audit_nl nl;
};

FIXTURE_SETUP(fieldop)
{
	audit_fixture_setup(_metadata, &self->nl);
}

FIXTURE_TEARDOWN(fieldop)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

enum {
	V_PID, V_UID, V_EUID, V_AUID, V_SUCCESS, V_EXIT, V_A0, V_A1, V_A2, V_A3,
};

FIXTURE_VARIANT(fieldop)
{
	__u32 field;
	__u32 op;
	int base;		/* which value of the audited syscall */
	long long delta;	/* rule value = that value + delta */
	bool match;
	const char *rec_key;	/* field in the record that shows the value */
	const char *rec_val;
};

FIXTURE_VARIANT_ADD(fieldop, pid_eq) {
	.field = AUDIT_PID,
	.op = AUDIT_EQUAL,
	.base = V_PID,
	.delta = 0,
	.match = true,
};

FIXTURE_VARIANT_ADD(fieldop, pid_eq_other) {
	.field = AUDIT_PID,
	.op = AUDIT_EQUAL,
	.base = V_PID,
	.delta = 1,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, pid_ne) {
	.field = AUDIT_PID,
	.op = AUDIT_NOT_EQUAL,
	.base = V_PID,
	.delta = 1,
	.match = true,
};

FIXTURE_VARIANT_ADD(fieldop, pid_ne_self) {
	.field = AUDIT_PID,
	.op = AUDIT_NOT_EQUAL,
	.base = V_PID,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, pid_lt) {
	.field = AUDIT_PID,
	.op = AUDIT_LESS_THAN,
	.base = V_PID,
	.delta = 1,
	.match = true,
};

FIXTURE_VARIANT_ADD(fieldop, pid_lt_self) {
	.field = AUDIT_PID,
	.op = AUDIT_LESS_THAN,
	.base = V_PID,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, pid_le) {
	.field = AUDIT_PID,
	.op = AUDIT_LESS_THAN_OR_EQUAL,
	.base = V_PID,
	.delta = 0,
	.match = true,
};

FIXTURE_VARIANT_ADD(fieldop, pid_le_below) {
	.field = AUDIT_PID,
	.op = AUDIT_LESS_THAN_OR_EQUAL,
	.base = V_PID,
	.delta = -1,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, pid_gt) {
	.field = AUDIT_PID,
	.op = AUDIT_GREATER_THAN,
	.base = V_PID,
	.delta = -1,
	.match = true,
};

FIXTURE_VARIANT_ADD(fieldop, pid_gt_self) {
	.field = AUDIT_PID,
	.op = AUDIT_GREATER_THAN,
	.base = V_PID,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, pid_ge) {
	.field = AUDIT_PID,
	.op = AUDIT_GREATER_THAN_OR_EQUAL,
	.base = V_PID,
	.delta = 0,
	.match = true,
};

FIXTURE_VARIANT_ADD(fieldop, pid_ge_above) {
	.field = AUDIT_PID,
	.op = AUDIT_GREATER_THAN_OR_EQUAL,
	.base = V_PID,
	.delta = 1,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, uid_eq) {
	.field = AUDIT_UID,
	.op = AUDIT_EQUAL,
	.base = V_UID,
	.delta = 0,
	.match = true,
	.rec_key = "uid",
	.rec_val = "1001",
};

FIXTURE_VARIANT_ADD(fieldop, uid_eq_euid) {
	.field = AUDIT_UID,
	.op = AUDIT_EQUAL,
	.base = V_EUID,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, uid_lt) {
	.field = AUDIT_UID,
	.op = AUDIT_LESS_THAN,
	.base = V_UID,
	.delta = 1,
	.match = true,
	.rec_key = "uid",
	.rec_val = "1001",
};

FIXTURE_VARIANT_ADD(fieldop, euid_eq) {
	.field = AUDIT_EUID,
	.op = AUDIT_EQUAL,
	.base = V_EUID,
	.delta = 0,
	.match = true,
	.rec_key = "euid",
	.rec_val = "1002",
};

FIXTURE_VARIANT_ADD(fieldop, euid_ne) {
	.field = AUDIT_EUID,
	.op = AUDIT_NOT_EQUAL,
	.base = V_EUID,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, euid_ge) {
	.field = AUDIT_EUID,
	.op = AUDIT_GREATER_THAN_OR_EQUAL,
	.base = V_EUID,
	.delta = 0,
	.match = true,
	.rec_key = "euid",
	.rec_val = "1002",
};

FIXTURE_VARIANT_ADD(fieldop, auid_eq) {
	.field = AUDIT_LOGINUID,
	.op = AUDIT_EQUAL,
	.base = V_AUID,
	.delta = 0,
	.match = true,
	.rec_key = "auid",
	.rec_val = "4242",
};

FIXTURE_VARIANT_ADD(fieldop, auid_gt) {
	.field = AUDIT_LOGINUID,
	.op = AUDIT_GREATER_THAN,
	.base = V_AUID,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, auid_le) {
	.field = AUDIT_LOGINUID,
	.op = AUDIT_LESS_THAN_OR_EQUAL,
	.base = V_AUID,
	.delta = 0,
	.match = true,
	.rec_key = "auid",
	.rec_val = "4242",
};

FIXTURE_VARIANT_ADD(fieldop, success_failed) {
	.field = AUDIT_SUCCESS,
	.op = AUDIT_EQUAL,
	.base = V_SUCCESS,
	.delta = 0,
	.match = true,
	.rec_key = "success",
	.rec_val = "no",
};

FIXTURE_VARIANT_ADD(fieldop, success_succeeded) {
	.field = AUDIT_SUCCESS,
	.op = AUDIT_EQUAL,
	.base = V_SUCCESS,
	.delta = 1,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, exit_ebadf) {
	.field = AUDIT_EXIT,
	.op = AUDIT_EQUAL,
	.base = V_EXIT,
	.delta = 0,
	.match = true,
	.rec_key = "exit",
	.rec_val = "-9",
};

FIXTURE_VARIANT_ADD(fieldop, exit_enoent) {
	.field = AUDIT_EXIT,
	.op = AUDIT_EQUAL,
	.base = V_EXIT,
	.delta = 7,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, exit_ne) {
	.field = AUDIT_EXIT,
	.op = AUDIT_NOT_EQUAL,
	.base = V_EXIT,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, a0_eq) {
	.field = AUDIT_ARG0,
	.op = AUDIT_EQUAL,
	.base = V_A0,
	.delta = 0,
	.match = true,
	.rec_key = "a0",
	.rec_val = "3e8",
};

FIXTURE_VARIANT_ADD(fieldop, a0_ne) {
	.field = AUDIT_ARG0,
	.op = AUDIT_NOT_EQUAL,
	.base = V_A0,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, a0_bitmask) {
	.field = AUDIT_ARG0,
	.op = AUDIT_BIT_MASK,
	.base = V_A0,
	.delta = 0,
	.match = true,
	.rec_key = "a0",
	.rec_val = "3e8",
};

FIXTURE_VARIANT_ADD(fieldop, a0_bitmask_miss) {
	.field = AUDIT_ARG0,
	.op = AUDIT_BIT_MASK,
	.base = V_A0,
	.delta = 1 - T_FD,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, a0_bittest) {
	.field = AUDIT_ARG0,
	.op = AUDIT_BIT_TEST,
	.base = V_A0,
	.delta = 0,
	.match = true,
	.rec_key = "a0",
	.rec_val = "3e8",
};

FIXTURE_VARIANT_ADD(fieldop, a0_bittest_miss) {
	.field = AUDIT_ARG0,
	.op = AUDIT_BIT_TEST,
	.base = V_A0,
	.delta = 1,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, a1_lt) {
	.field = AUDIT_ARG1,
	.op = AUDIT_LESS_THAN,
	.base = V_A1,
	.delta = 1,
	.match = true,
	.rec_key = "a1",
	.rec_val = "7d0",
};

FIXTURE_VARIANT_ADD(fieldop, a1_gt) {
	.field = AUDIT_ARG1,
	.op = AUDIT_GREATER_THAN,
	.base = V_A1,
	.delta = 0,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, a2_eq) {
	.field = AUDIT_ARG2,
	.op = AUDIT_EQUAL,
	.base = V_A2,
	.delta = 0,
	.match = true,
	.rec_key = "a2",
	.rec_val = "3",
};

FIXTURE_VARIANT_ADD(fieldop, a2_ge) {
	.field = AUDIT_ARG2,
	.op = AUDIT_GREATER_THAN_OR_EQUAL,
	.base = V_A2,
	.delta = 1,
	.match = false,
};

FIXTURE_VARIANT_ADD(fieldop, a3_eq) {
	.field = AUDIT_ARG3,
	.op = AUDIT_EQUAL,
	.base = V_A3,
	.delta = 0,
	.match = true,
	.rec_key = "a3",
	.rec_val = "fa0",
};

FIXTURE_VARIANT_ADD(fieldop, a3_le) {
	.field = AUDIT_ARG3,
	.op = AUDIT_LESS_THAN_OR_EQUAL,
	.base = V_A3,
	.delta = -1,
	.match = false,
};

static long long base_value(int base, pid_t pid)
{
	switch (base) {
	case V_PID: return pid;
	case V_UID: return T_UID;
	case V_EUID: return T_EUID;
	case V_AUID: return T_AUID;
	case V_SUCCESS: return 0;
	case V_EXIT: return -EBADF;
	case V_A0: return T_FD;
	case V_A1: return T_OFF;
	case V_A2: return T_WHENCE;
	case V_A3: return T_A3;
	}
	return 0;
}

/* one field with one operator, matching or not as the variant says */
TEST_F(fieldop, match)
{
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_lseek_as_user, ({
		__u32 val = (__u32)(base_value(variant->base, child) +
				    variant->delta);
		rule = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
		audit_rule_field(&rule, AUDIT_ARCH, AUDIT_EQUAL,
				 AUDIT_ARCH_NATIVE);
		audit_rule_syscall(&rule, __NR_lseek);
		audit_rule_field(&rule, variant->field, variant->op, val);
		/* keep other tasks' lseek out, unless pid is under test */
		if (variant->field != AUDIT_PID)
			audit_rule_field(&rule, AUDIT_PID, AUDIT_EQUAL, child);
		audit_rule_str(&rule, AUDIT_FILTERKEY, AUDIT_EQUAL, "t_field");
		ADD(nl, &rule);
	}));
	if (!variant->match) {
		EXPECT_NO_RECORD(nl, __NR_lseek, pid);
		return;
	}
	r = EXPECT_RECORD(nl, __NR_lseek, pid, "t_field");
	if (variant->rec_key)
		EXPECT_TRUE(audit_field_is(r, variant->rec_key,
					   variant->rec_val)) {
			TH_LOG("%s=%s expected in: %s", variant->rec_key,
			       variant->rec_val, r->text);
		}
	/* the identity fields the child set up are always in the record */
	EXPECT_TRUE(audit_field_is(r, "auid", "4242"));
	EXPECT_TRUE(audit_field_is(r, "uid", "1001"));
	EXPECT_TRUE(audit_field_is(r, "euid", "1002"));
}

/* ---- rule order ---- */

TEST_F(filter, never_before_always_suppresses)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_getpid_getppid, ({
		rule = audit_exit_rule(AUDIT_NEVER, __NR_getpid, child, NULL);
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, -1, child, "t_order");
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_getppid, pid, "t_order");
	EXPECT_NO_RECORD(nl, __NR_getpid, pid);
}

TEST_F(filter, never_after_always_does_not)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_getpid_getppid, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, -1, child, "t_order");
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_NEVER, __NR_getpid, child, NULL);
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_getppid, pid, "t_order");
	EXPECT_RECORD(nl, __NR_getpid, pid, "t_order");
}

TEST_F(filter, first_match_wins)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_lseek, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_first");
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_second");
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_first");
	EXPECT_EQ(1, audit_count_syscall(nl, __NR_lseek, pid));
}

TEST_F(filter, prepend_goes_first)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_lseek, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_first");
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_prepended");
		rule.d->flags |= AUDIT_FILTER_PREPEND;
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_prepended");
	EXPECT_EQ(1, audit_count_syscall(nl, __NR_lseek, pid));
}

/* ---- deleting rules ---- */

/* deleting one of two rules on a syscall leaves the other matching it */
TEST_F(filter, delete_keeps_other_rule_on_syscall)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_lseek, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_first");
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_second");
		ADD(nl, &rule);
		ASSERT_EQ(0, audit_del(nl, 0));
	}));
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_second");
	EXPECT_EQ(1, audit_count_syscall(nl, __NR_lseek, pid));
}

/* deleting a -S all rule leaves the rules on single syscalls matching */
TEST_F(filter, delete_all_syscalls_rule_keeps_others)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_three_syscalls, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, child, "t_one");
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, -1, child, "t_all");
		rule.d->flags |= AUDIT_FILTER_PREPEND;
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_two");
		ADD(nl, &rule);
		ASSERT_EQ(0, audit_del(nl, 1));
	}));
	EXPECT_RECORD(nl, __NR_getppid, pid, "t_one");
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_two");
	EXPECT_NO_RECORD(nl, __NR_getpid, pid);
	EXPECT_NO_RECORD(nl, __NR_exit_group, pid);
}

/* a rule added after every rule on its syscall was deleted matches */
TEST_F(filter, add_after_delete)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_getpid_getppid, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_getpid, child, "t_gone");
		ADD(nl, &rule);
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, child, "t_gone");
		ADD(nl, &rule);
		ASSERT_EQ(0, audit_del(nl, 0));
		ASSERT_EQ(0, audit_del(nl, 1));
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_getpid, child, "t_new");
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_getpid, pid, "t_new");
	EXPECT_EQ(1, audit_count_syscall(nl, __NR_getpid, pid));
	EXPECT_NO_RECORD(nl, __NR_getppid, pid);
}

/* ---- the task list ---- */

static struct audit_rule task_never(void)
{
	return audit_rule_new(AUDIT_FILTER_TASK, AUDIT_NEVER);
}

/* never,task: a task forked after the rule is not audited */
TEST_F(filter, task_never_new_task)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	int status;
	pid_t pid;

	rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, 0, "t_task");
	ADD(nl, &rule);
	rule = task_never();
	ADD(nl, &rule);
	pid = audit_run_child(child_lseek, NULL, &status);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, audit_del(nl, -1));
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_NO_RECORD(nl, __NR_lseek, pid);

	/* deleting the task rule restores auditing for new tasks */
	pid = audit_run_child(child_lseek, NULL, &status);
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_task");
}

/* never,task: a task that existed before the rule is still audited */
TEST_F(filter, task_never_existing_task)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	pid_t pid;

	pid = RUN_CHILD(nl, child_lseek, ({
		rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, child, "t_task");
		ADD(nl, &rule);
		rule = task_never();
		ADD(nl, &rule);
	}));
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_task");
}

/* a task rule with a field only affects the tasks it matches */
TEST_F(filter, task_never_with_field)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	int status;
	pid_t pid;

	rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, 0, "t_task");
	ADD(nl, &rule);
	rule = task_never();
	/* the new task inherits our auid: unset, so never a real uid */
	audit_rule_field(&rule, AUDIT_LOGINUID, AUDIT_EQUAL, 4243);
	ADD(nl, &rule);
	pid = audit_run_child(child_lseek, NULL, &status);
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_task");
}

/* ---- the exclude list and user messages ---- */

TEST_F(filter, exclude_msgtype)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule;
	int status;
	pid_t pid;

	rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek, 0, "t_excl");
	ADD(nl, &rule);
	rule = audit_rule_new(AUDIT_FILTER_EXCLUDE, AUDIT_NEVER);
	audit_rule_field(&rule, AUDIT_MSGTYPE, AUDIT_EQUAL, AUDIT_SYSCALL);
	ADD(nl, &rule);
	pid = audit_run_child(child_lseek, NULL, &status);
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_NO_RECORD(nl, __NR_lseek, pid);

	ASSERT_EQ(0, audit_del(nl, -1));
	pid = audit_run_child(child_lseek, NULL, &status);
	ASSERT_LE(0, audit_sync(nl));
	EXPECT_RECORD(nl, __NR_lseek, pid, "t_excl");
}

TEST_F(filter, user_message)
{
	struct audit_nl *nl = &self->nl;
	const char *msg = "selftest_user_message";
	int i;

	ASSERT_EQ(0, audit_request(nl, AUDIT_USER, msg, strlen(msg) + 1, 0,
				   NULL, 0));
	i = audit_wait_for(nl, audit_match_marker, msg, AUDIT_WAIT_MS);
	ASSERT_LE(0, i);
	EXPECT_EQ(AUDIT_USER, nl->rec[i].type);
	EXPECT_TRUE(audit_field_is_num(&nl->rec[i], "pid", getpid()));
	EXPECT_TRUE(audit_field_is(&nl->rec[i], "uid", "0"));
}

/*
 * A record logged during a syscall with no rule loaded. The context was a
 * dummy at entry; the record makes it one no longer (audit_log_start()),
 * so at exit the syscall's SYSCALL record goes out with it, and must name
 * the syscall, its arch and its arguments as the entry saw them.
 */
TEST_F(filter, record_during_syscall_without_rules)
{
	struct audit_nl *nl = &self->nl;
	const struct audit_record *r, *sys;
	char arch[16], len[16];
	pid_t pid;

	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	r = audit_record_in_child_syscall(_metadata, nl, &pid, NULL);
	sys = audit_event_record(nl, r->serial, AUDIT_SYSCALL, 0);
	if (!sys)
		audit_dump(nl);
	ASSERT_NE(NULL, sys) {
		TH_LOG("the record came without its syscall's SYSCALL record");
	}
	snprintf(arch, sizeof(arch), "%x", AUDIT_ARCH_NATIVE);
	snprintf(len, sizeof(len), "%zx", (size_t)AUDIT_SET_ENABLED_LEN);
	EXPECT_TRUE(audit_field_is(sys, "arch", arch) &&
		    audit_field_is_num(sys, "syscall", __NR_sendto) &&
		    audit_field_is_num(sys, "pid", pid) &&
		    audit_field_is(sys, "success", "yes") &&
		    audit_field_is_num(sys, "exit", AUDIT_SET_ENABLED_LEN) &&
		    audit_field_is(sys, "a2", len) &&
		    audit_field_is(sys, "a3", "0") &&
		    audit_field_is(sys, "items", "0")) {
		TH_LOG("not the child's sendto(): %s", sys->text);
	}
}

/* ---- rules changing while syscalls run ---- */

struct churn_shared {
	int phase;
	int done;
	int stop;
};

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELEASE)

static struct churn_shared *churn;

/* spins on non-matching syscalls; on each new phase runs lseek(phase) */
static int child_churn(void *arg)
{
	int seen = 0;

	while (!LOAD(churn->stop)) {
		int p = LOAD(churn->phase);

		if (p != seen) {
			syscall(__NR_lseek, T_FD + p, T_OFF, T_WHENCE, T_A3);
			seen = p;
			STORE(churn->done, p);
		}
		syscall(__NR_getppid);
		/* below the rule's a0 > T_FD: an int -1 would pass as 0xffffffff */
		syscall(__NR_lseek, (long)T_FD - 1, 0L, 0L, 0L);
	}
	return 0;
}

static int child_noise(void *arg)
{
	while (!LOAD(churn->stop)) {
		syscall(__NR_lseek, T_FD, T_OFF, T_WHENCE, T_A3);
		syscall(__NR_getpid);
	}
	return 0;
}

static bool match_lseek_a0(const struct audit_record *r, const void *arg)
{
	return r->type == AUDIT_SYSCALL &&
	       audit_field_is_num(r, "syscall", __NR_lseek) &&
	       audit_field_is(r, "a0", arg);
}

TEST_F(filter, rule_churn_under_load)
{
	struct audit_nl *nl = &self->nl;
	struct audit_child worker = { -1, -1 }, noise = { -1, -1 };
	struct audit_rule rule;
	int round, status;

	churn = mmap(NULL, sizeof(*churn), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, churn);
	memset(churn, 0, sizeof(*churn));
	ASSERT_EQ(0, audit_child_start(&worker, child_churn, NULL));
	ASSERT_EQ(0, audit_child_start(&noise, child_noise, NULL));
	ASSERT_EQ(1, write(worker.go, "g", 1));
	ASSERT_EQ(1, write(noise.go, "g", 1));

	for (round = 1; round <= 20; round++) {
		bool added = round % 2;
		char a0[16];
		int i;

		if (added) {
			rule = audit_exit_rule(AUDIT_ALWAYS, __NR_lseek,
					       worker.pid, "t_churn");
			audit_rule_field(&rule, AUDIT_ARG0,
					 AUDIT_GREATER_THAN, T_FD);
			ASSERT_EQ(0, audit_add(nl, &rule));
		} else {
			ASSERT_EQ(0, audit_del(nl, -1));
			nl->ntracked--;
		}
		STORE(churn->phase, round);
		for (i = 0; i < 5000 && LOAD(churn->done) != round; i++)
			usleep(1000);
		ASSERT_EQ(round, LOAD(churn->done));
		ASSERT_LE(0, audit_sync(nl));
		snprintf(a0, sizeof(a0), "%x", T_FD + round);
		if (added) {
			EXPECT_LE(0, audit_find(nl, 0, match_lseek_a0, a0)) {
				TH_LOG("round %d: no record after the add was acked",
				       round);
			}
		} else {
			EXPECT_EQ(-1, audit_find(nl, 0, match_lseek_a0, a0)) {
				TH_LOG("round %d: a record after the delete was acked",
				       round);
			}
		}
		audit_records_clear(nl);
	}
	STORE(churn->stop, 1);
	close(worker.go);
	close(noise.go);
	waitpid(worker.pid, &status, 0);
	waitpid(noise.pid, &status, 0);
	munmap(churn, sizeof(*churn));
}

TEST_HARNESS_MAIN
