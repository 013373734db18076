/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Audit selftest helpers: the audit netlink protocol spoken directly
 * (audit_common.c).
 *
 * The test process registers itself as the audit daemon, so the kernel
 * unicasts every record to its netlink socket. The kernel never audits the
 * syscalls of the audit daemon itself (auditd_test_task()), so the
 * syscalls a test wants audited run in a forked child (audit_run_child()).
 *
 * Records arrive in the order they were queued. To show that a syscall
 * produced no record, a test sends a user message (AUDIT_USER) after the
 * syscall completed and reads up to that marker: anything the syscall
 * emitted would have been queued before it.
 *
 * A test leaves the audit configuration as it found it: audit_register()
 * saves the rules and the settings, audit_end() puts them back.
 */

#ifndef _AUDIT_SELFTEST_COMMON_H
#define _AUDIT_SELFTEST_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The AUDIT_ARCH_* of this program's syscalls, which rules name (-F arch=)
 * and SYSCALL records carry; 0 where this file does not know it, and the
 * tests that need it skip.
 */
#if defined(__x86_64__) && defined(__ILP32__)
#define AUDIT_ARCH_NATIVE	0	/* x32: rules cannot name its syscalls */
#elif defined(__x86_64__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_AARCH64
#elif defined(__arm__) && defined(__ARMEB__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_ARMEB
#elif defined(__arm__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_ARM
#elif defined(__riscv) && __riscv_xlen == 64
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_RISCV64
#elif defined(__riscv) && __riscv_xlen == 32
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_RISCV32
#elif defined(__s390x__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_S390X
#elif defined(__s390__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_S390
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_PPC64LE
#elif defined(__powerpc64__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_PPC64
#elif defined(__powerpc__)
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_PPC
#elif defined(__loongarch__) && __loongarch_grlen == 64
#define AUDIT_ARCH_NATIVE	AUDIT_ARCH_LOONGARCH64
#else
#define AUDIT_ARCH_NATIVE	0
#endif

/*
 * The AUDIT_ARCH_* of the compat ABI that this architecture's kernel can
 * run beside the native one (i386 beside x86_64, 32-bit Arm beside arm64);
 * 0 where this file does not know one.
 */
#if defined(__x86_64__) && !defined(__ILP32__)
#define AUDIT_ARCH_COMPAT	AUDIT_ARCH_I386
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
#define AUDIT_ARCH_COMPAT	AUDIT_ARCH_ARM
#else
#define AUDIT_ARCH_COMPAT	0
#endif

#define AUDIT_MAX_RECORDS	4096
#define AUDIT_MAX_TRACKED	64
#define AUDIT_WAIT_MS		3000

#ifndef AUDIT_URINGOP
#define AUDIT_URINGOP		1336
#endif

struct audit_field_kv {
	char *key;
	char *val;
};

struct audit_record {
	int type;
	unsigned long serial;
	char *text;			/* the payload, NUL terminated */
	int nfields;
	struct audit_field_kv *fields;
};

struct audit_rule {
	struct audit_rule_data *d;
	size_t size;			/* sizeof(*d) + d->buflen */
};

struct audit_nl {
	int fd;
	__u32 seq;
	int nrec;
	struct audit_record rec[AUDIT_MAX_RECORDS];
	int ntracked;
	struct audit_rule tracked[AUDIT_MAX_TRACKED];
	unsigned int marker;
	/* what audit_register() found, for audit_end() to put back */
	bool saved;
	struct audit_status saved_status;
	int nsaved_rules;
	struct audit_rule *saved_rules;
	/* why audit_register() failed, when it is a reason to skip */
	char skip_reason[128];
};

/* the kernel command line */
bool audit_cmdline_param(const char *name, char *val, size_t size);

/* the kernel log (/dev/kmsg): reports of memory corruption, warnings, oopses */
int audit_kmsg_from_now(void);
bool audit_kmsg_reports(int fd, char *line, size_t size);

/* a seeded generator (splitmix64), for reproducible tests */
static inline __u64 audit_rand64(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform enough in [0, n) for test generators; 0 when n is 0 */
static inline unsigned int audit_rand(__u64 *state, unsigned int n)
{
	return n ? audit_rand64(state) % n : 0;
}

/* records */
void audit_record_free(struct audit_record *r);
void audit_records_clear(struct audit_nl *nl);
void audit_record_parse(struct audit_record *r);
const char *audit_field(const struct audit_record *r, const char *key);
bool audit_field_is(const struct audit_record *r, const char *key,
		    const char *val);
bool audit_field_is_num(const struct audit_record *r, const char *key,
			long long val);

/* netlink */
int audit_open(struct audit_nl *nl);
int audit_send_raw(struct audit_nl *nl, int type, int flags, const void *data,
		   size_t len);
int audit_request(struct audit_nl *nl, int type, const void *data, size_t len,
		  int reply_type, void *reply, size_t reply_len);
int audit_recv_one(struct audit_nl *nl, int timeout_ms, struct nlmsghdr *ctl,
		   size_t ctl_size, bool *got_ctl);
int audit_get_status(struct audit_nl *nl, struct audit_status *s);
int audit_set_status(struct audit_nl *nl, __u32 mask, __u32 enabled, __u32 pid);

/* rules */
struct audit_rule audit_rule_new(__u32 list, __u32 action);
void audit_rule_free(struct audit_rule *r);
void audit_rule_syscall(struct audit_rule *r, int nr);
void audit_rule_all_syscalls(struct audit_rule *r);
void audit_rule_field(struct audit_rule *r, __u32 field, __u32 op, __u32 val);
void audit_rule_str(struct audit_rule *r, __u32 field, __u32 op, const char *s);
struct audit_rule audit_exit_rule(__u32 action, int nr, pid_t pid,
				  const char *key);
int audit_rule_send(struct audit_nl *nl, int type, const struct audit_rule *r);
void audit_track(struct audit_nl *nl, struct audit_rule *r);
int audit_add(struct audit_nl *nl, struct audit_rule *r);
int audit_del(struct audit_nl *nl, int idx);
int audit_list_rules(struct audit_nl *nl, struct audit_rule *out, int max);
int audit_flush_rules(struct audit_nl *nl);

/* waiting for records */
long audit_ms_since(const struct timespec *t0);
void audit_drain(struct audit_nl *nl, int quiet_ms);

typedef bool (*audit_match_fn)(const struct audit_record *r, const void *arg);

int audit_find(struct audit_nl *nl, int from, audit_match_fn fn, const void *arg);
int audit_wait_for(struct audit_nl *nl, audit_match_fn fn, const void *arg,
		   int timeout_ms);
bool audit_match_marker(const struct audit_record *r, const void *arg);
void audit_dump(struct audit_nl *nl);
int audit_sync(struct audit_nl *nl);
int audit_event(struct audit_nl *nl, unsigned long serial,
		const struct audit_record **out, int max);

struct audit_syscall_match {
	int nr;			/* syscall number, -1: any */
	pid_t pid;		/* 0: any */
	const char *key;	/* NULL: any */
};

bool audit_match_syscall(const struct audit_record *r, const void *arg);
const struct audit_record *audit_syscall_record(struct audit_nl *nl, int nr,
						pid_t pid, const char *key);
int audit_count_syscall(struct audit_nl *nl, int nr, pid_t pid);
const struct audit_record *audit_event_record(struct audit_nl *nl,
					      unsigned long serial, int type,
					      int nth);
const struct audit_record *audit_path_record(struct audit_nl *nl,
					     unsigned long serial,
					     const char *name);

/* the test's audit daemon session */
int audit_register(struct audit_nl *nl);
int audit_begin(struct audit_nl *nl);
int audit_end(struct audit_nl *nl);

/* child processes, whose syscalls are audited */
typedef int (*audit_child_fn)(void *arg);

pid_t audit_run_child(audit_child_fn fn, void *arg, int *status);

/*
 * A child that waits for a go signal on a pipe, so that rules can name its
 * pid before it runs its syscalls.
 */
struct audit_child {
	pid_t pid;
	int go;				/* write end */
};

int audit_child_start(struct audit_child *c, audit_child_fn fn, void *arg);
int audit_child_finish(struct audit_child *c);

/*
 * A record logged during a syscall, by other code than the syscall hooks:
 * a child (audit_run_child(audit_child_set_enabled, &value, ...)) sets
 * audit_enabled to @value, the value it has, from a netlink socket of its
 * own. The kernel logs a CONFIG_CHANGE record (op=set audit_enabled=N
 * old=N) during the child's sendto() and takes the syscall's serial for
 * it.
 */
#define AUDIT_SET_ENABLED_LEN	NLMSG_LENGTH(sizeof(struct audit_status))

int audit_child_set_enabled(void *arg);
bool audit_match_set_enabled(const struct audit_record *r, const void *arg);

#ifdef FIXTURE
/*
 * The exit status of a test process that skips: the harnesses that came
 * before FIXTURE_TEARDOWN_PARENT() read 255 as a skip, and would run the
 * test body after a SKIP() in the setup: a setup that skips ends the test
 * with SKIP(_exit(AUDIT_SKIP_STATUS), ...). (Fixtures keep a "ready" member
 * that their tests check first, for the setups that set it last.)
 */
#ifdef FIXTURE_TEARDOWN_PARENT
#define AUDIT_SKIP_STATUS	KSFT_SKIP
#else
#define AUDIT_SKIP_STATUS	255
#endif

/*
 * For a fixture's setup: become the audit daemon with an empty rule list,
 * or end the test as skipped with the reason it cannot run here.
 */
static inline void audit_fixture_setup(struct __test_metadata *_metadata,
				       struct audit_nl *nl)
{
	int ret;

	if (!AUDIT_ARCH_NATIVE)
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "no AUDIT_ARCH_* for this architecture or ABI");
	ret = audit_begin(nl);
	if (ret && nl->skip_reason[0])
		SKIP(_exit(AUDIT_SKIP_STATUS), "%s", nl->skip_reason);
	ASSERT_EQ(0, ret);
}

/*
 * For a fixture's setup, after audit_fixture_setup(): the harness does not
 * run the teardown of a setup that fails, so a failing step puts the audit
 * configuration back before it fails the test.
 */
static inline void audit_setup_ok(struct __test_metadata *_metadata,
				  struct audit_nl *nl, bool ok, const char *what)
{
	if (ok)
		return;
	audit_end(nl);
	ASSERT_TRUE(ok) {
		TH_LOG("setup: %s", what);
	}
}

/* For a fixture's teardown: a configuration not put back fails the test. */
static inline void audit_fixture_teardown(struct __test_metadata *_metadata,
					  struct audit_nl *nl)
{
	int failed;

	if (!nl->saved)
		return;
	failed = audit_end(nl);
	if (failed)
		TH_LOG("the audit configuration was not put back as it was");
	EXPECT_EQ(0, failed);
}

/*
 * Run @fn(@arg) in a child, whose syscalls are audited, and wait for it to
 * exit 0. Return the first record that @match(@marg) accepts; without one,
 * dump the records and fail the test ("no @what record"). *@pid is the
 * child. Records queued before are dropped.
 */
static inline const struct audit_record *
audit_child_record(struct __test_metadata *_metadata, struct audit_nl *nl,
		   audit_child_fn fn, void *arg, pid_t *pid,
		   audit_match_fn match, const void *marg, const char *what)
{
	int status, i;

	audit_records_clear(nl);
	*pid = audit_run_child(fn, arg, &status);
	ASSERT_LT(0, *pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_LE(0, audit_sync(nl));
	i = audit_find(nl, 0, match, marg);
	if (i < 0)
		audit_dump(nl);
	ASSERT_LE(0, i) {
		TH_LOG("no %s record", what);
	}
	return &nl->rec[i];
}

/*
 * Have a child log a record during its syscall (audit_child_set_enabled())
 * and wait for it; return its CONFIG_CHANGE record. *@pid is the child.
 * @when, if not NULL, names the caller's step in the failure message.
 * Records queued before are dropped.
 */
static inline const struct audit_record *
audit_record_in_child_syscall(struct __test_metadata *_metadata,
			      struct audit_nl *nl, pid_t *pid, const char *when)
{
	const struct audit_record *r;
	struct audit_status st;
	char what[128];

	snprintf(what, sizeof(what), "CONFIG_CHANGE op=set audit_enabled=%s%s",
		 when ? " at " : "", when ? when : "");
	ASSERT_EQ(0, audit_get_status(nl, &st));
	r = audit_child_record(_metadata, nl, audit_child_set_enabled,
			       &st.enabled, pid, audit_match_set_enabled, NULL,
			       what);
	EXPECT_TRUE(audit_field_is_num(r, "audit_enabled", st.enabled) &&
		    audit_field_is_num(r, "old", st.enabled)) {
		TH_LOG("%s", r->text);
	}
	return r;
}

#define AUDIT_PROBE_TYPES 16

/* the types of the records of one event, in order */
struct audit_probe {
	int n;
	int type[AUDIT_PROBE_TYPES];
};

/*
 * A child makes the kernel log a CONFIG_CHANGE record in its sendto();
 * store the types of the records of that event in @p. What the event
 * holds besides the CONFIG_CHANGE record depends on the context: one that
 * is not a dummy (a rule is counted) has collected the sendto()'s address,
 * so the event has a SOCKADDR record. @when names the step of the test.
 * Two probes that must be alike are compared by audit_expect_same_event().
 */
static inline void audit_probe_event(struct __test_metadata *_metadata,
				     struct audit_nl *nl,
				     struct audit_probe *p, const char *when)
{
	const struct audit_record *r, *sys;
	pid_t pid;
	int i;

	r = audit_record_in_child_syscall(_metadata, nl, &pid, when);

	/* a SYSCALL record of the event must describe the child's sendto() */
	sys = audit_event_record(nl, r->serial, AUDIT_SYSCALL, 0);
	if (sys) {
		char len[16];

		snprintf(len, sizeof(len), "%zx", (size_t)AUDIT_SET_ENABLED_LEN);
		EXPECT_TRUE(audit_field_is_num(sys, "syscall", __NR_sendto) &&
			    audit_field_is_num(sys, "pid", pid) &&
			    audit_field_is(sys, "a2", len)) {
			TH_LOG("%s: the SYSCALL record is not the child's sendto(): %s",
			       when, sys->text);
		}
	}
	p->n = 0;
	for (i = 0; i < nl->nrec; i++)
		if (nl->rec[i].serial == r->serial && p->n < AUDIT_PROBE_TYPES)
			p->type[p->n++] = nl->rec[i].type;
}

/*
 * With no rule loaded, or counted, the event of a probe has no SOCKADDR
 * record, which only a context that is not a dummy collects.
 */
static inline void audit_expect_dummy_event(struct __test_metadata *_metadata,
					    struct audit_nl *nl,
					    const struct audit_probe *p,
					    const char *when)
{
	int i;

	for (i = 0; i < p->n; i++)
		EXPECT_NE(AUDIT_SOCKADDR, p->type[i]) {
			audit_dump(nl);
			TH_LOG("%s: no rule, yet a SOCKADDR record: not a dummy",
			       when);
		}
}

/*
 * The event of a probe after a rule went (deleted, or dropped by the
 * kernel) must have the records of the one before the rule was added.
 */
static inline void audit_expect_same_event(struct __test_metadata *_metadata,
					   const struct audit_probe *before,
					   const struct audit_probe *after)
{
	int i;

	EXPECT_EQ(before->n, after->n);
	for (i = 0; i < before->n && i < after->n; i++) {
		if (before->type[i] != after->type[i])
			TH_LOG("record %d: type %d before the rule, %d after it went",
			       i, before->type[i], after->type[i]);
		EXPECT_EQ(before->type[i], after->type[i]);
	}
}
#endif

#endif /* _AUDIT_SELFTEST_COMMON_H */
