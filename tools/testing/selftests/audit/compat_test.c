// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: the syscalls of a 32-bit (compat) task.
 *
 * A rule's syscall set is indexed by syscall number, and the numbers of
 * the compat ABI (i386 beside x86_64, AArch32 beside arm64) mean other
 * syscalls than the native ones. Only the rule's arch field tells them
 * apart. compat_helper, a 32-bit program, calls getpid (20) and getppid
 * (64), which are numbered alike in both compat ABIs, and exits (1). The
 * tests check:
 *  - an arch=b32 rule on the native getpid's number records nothing of a
 *    native getpid, alone (where the kernel keeps the syscalls that rules
 *    name per ABI, the native getpid then skips the walk) and beside a
 *    native rule on getpid that never matches, so that the walk must
 *    reject the arch=b32 rule by its arch field (these need no 32-bit
 *    task);
 *  - an arch=b32 rule on 20 records the compat getpid: a SYSCALL record
 *    with the compat arch, syscall=20, a0-a3 as passed, the rule's key;
 *  - an arch=b32 rule on exit records the compat exit, which never
 *    returns: logged when the task is freed, without success= or exit=;
 *  - an arch=b64 rule on 20 records nothing of the compat task, alone and
 *    beside an arch=b32 rule on 20 that never matches;
 *  - a rule without an arch field on 20 records the syscall numbered 20
 *    of both ABIs, each with its own arch;
 *  - an arch=b32 rule whose mask holds the native kill(), as a watch
 *    whose file is created (which replaces the rule by a copy) and whose
 *    directory is then removed (which drops the copy), leaves the count
 *    of rules that make the kernel log signal targets (audit_signals) as
 *    it was: the kernel classifies a rule by its arch field when it is
 *    added and when it goes, and the copy must have it too (this one
 *    needs no 32-bit task either, but a kernel with a class of compat
 *    signal syscalls); and once the kernel dropped it, the event of a
 *    record logged during a syscall is what it was before the rule was
 *    added: the rule is no longer counted as loaded either.
 * They skip where there is no 32-bit helper (it needs a compiler for the
 * compat ABI: gcc -m32 for x86_64, CROSS_COMPILE_COMPAT for arm64) or the
 * kernel does not run 32-bit tasks (exec fails with ENOEXEC).
 */

#define _GNU_SOURCE
#include <limits.h>
#include <libgen.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

#define COMPAT_EXIT	1
#define COMPAT_GETPID	20
#define COMPAT_GETPPID	64
#define EXEC_NOEXEC	126	/* the kernel does not run 32-bit tasks */
#define EXEC_FAILED	127

#ifdef __x86_64__
#define COMPAT_HOWTO	"gcc -m32"
#else
#define COMPAT_HOWTO	"CROSS_COMPILE_COMPAT=arm-linux-gnueabihf-"
#endif

static char helper[PATH_MAX];

/* the child: become compat_helper */
static int run_helper(void *arg)
{
	char *const argv[] = { "compat_helper", NULL };
	char *const envp[] = { NULL };

	(void)arg;
	execve(helper, argv, envp);
	return errno == ENOEXEC ? EXEC_NOEXEC : EXEC_FAILED;
}

/*
 * The native syscall numbered like the compat getpid: writev(-1, NULL, 0)
 * on x86_64, epoll_create1(-1) on arm64; both fail and change nothing.
 */
static int native_nr20(void *arg)
{
	(void)arg;
	syscall(COMPAT_GETPID, -1, NULL, 0);
	return 0;
}

static int native_getpid(void *arg)
{
	(void)arg;
	syscall(SYS_getpid);
	syscall(SYS_getppid);
	return 0;
}

/* where the kernel runs compat_helper: the exit status it gives */
static int helper_status(void)
{
	char exe[PATH_MAX];
	ssize_t n;
	int status;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(helper, sizeof(helper), "%s/compat_helper", dirname(exe));
	if (access(helper, X_OK))
		return -1;
	pid = audit_run_child(run_helper, NULL, &status);
	if (pid < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* rules for the compat ABI, and native tasks */
FIXTURE(compat_rules) {
	struct audit_nl nl;
};

FIXTURE_SETUP(compat_rules)
{
	if (!AUDIT_ARCH_COMPAT)
		SKIP(_exit(AUDIT_SKIP_STATUS), "no compat ABI known for this architecture");
	audit_fixture_setup(_metadata, &self->nl);
}

FIXTURE_TEARDOWN(compat_rules)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

/* rules for either ABI, and a 32-bit task */
FIXTURE(compat) {
	struct audit_nl nl;
};

FIXTURE_SETUP(compat)
{
	int st;

	if (!AUDIT_ARCH_COMPAT)
		SKIP(_exit(AUDIT_SKIP_STATUS), "no compat ABI known for this architecture");
	st = helper_status();
	if (st == -1)
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "no compat_helper (it is built with " COMPAT_HOWTO ")");
	if (st == EXEC_NOEXEC)
		SKIP(_exit(AUDIT_SKIP_STATUS), "this kernel or CPU does not run 32-bit tasks");
	ASSERT_EQ(0, st) {
		TH_LOG("compat_helper exited with %d (%d: it could not be executed)",
		       st, EXEC_FAILED);
	}
	audit_fixture_setup(_metadata, &self->nl);
}

FIXTURE_TEARDOWN(compat)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

/* an exit rule on syscall @nr of @arch (0: no arch field) with @key */
static struct audit_rule rule(__u32 arch, int nr, const char *key)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);

	if (arch)
		audit_rule_field(&r, AUDIT_ARCH, AUDIT_EQUAL, arch);
	audit_rule_syscall(&r, nr);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, key);
	return r;
}

/* run @fn in a child that must exit 0; its records, up to a marker */
static pid_t run(struct __test_metadata *_metadata, struct audit_nl *nl,
		 audit_child_fn fn)
{
	int status;
	pid_t pid;

	audit_records_clear(nl);
	pid = audit_run_child(fn, NULL, &status);
	EXPECT_LT(0, pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("child status 0x%x", status);
	}
	EXPECT_LE(0, audit_sync(nl));
	return pid;
}

/* the SYSCALL records of @pid with @key */
static int count(struct audit_nl *nl, pid_t pid, const char *key,
		 const struct audit_record **last)
{
	struct audit_syscall_match m = { .nr = -1, .pid = pid, .key = key };
	int i = -1, n = 0;

	while ((i = audit_find(nl, i + 1, audit_match_syscall, &m)) >= 0) {
		*last = &nl->rec[i];
		n++;
	}
	return n;
}

static bool is_arch(const struct audit_record *r, __u32 arch)
{
	char want[16];

	snprintf(want, sizeof(want), "%x", arch);
	return audit_field_is(r, "arch", want);
}

/* a uid no test runs as: a rule with it never matches */
#define NO_SUCH_UID 4242

/*
 * A rule of @arch on syscall @nr records nothing of syscall @nr of the
 * other ABI (@other), which @fn makes, while a control rule of @other on
 * @ctl_nr records the same task's next syscall. With @walked, a rule of
 * @other on @nr that never matches makes that syscall's exit walk the
 * list, so that only the arch field can keep the first rule from matching.
 */
static void other_abi_rule_ignored(struct __test_metadata *_metadata,
				   struct audit_nl *nl, __u32 arch,
				   __u32 other, int nr, int ctl_nr,
				   audit_child_fn fn, bool walked)
{
	struct audit_rule r = rule(arch, nr, "ignored");
	struct audit_rule w = rule(other, nr, "nomatch");
	struct audit_rule ctl = rule(other, ctl_nr, "control");
	const struct audit_record *rec = NULL;
	pid_t pid;

	audit_rule_field(&w, AUDIT_UID, AUDIT_EQUAL, NO_SUCH_UID);
	ASSERT_EQ(0, audit_add(nl, &r));
	if (!walked)
		audit_rule_free(&w);
	ASSERT_EQ(0, walked ? audit_add(nl, &w) : 0);
	ASSERT_EQ(0, audit_add(nl, &ctl));
	pid = run(_metadata, nl, fn);
	EXPECT_EQ(0, count(nl, pid, "ignored", &rec)) {
		TH_LOG("%s", rec->text);
	}
	EXPECT_EQ(0, count(nl, pid, "nomatch", &rec)) {
		TH_LOG("%s", rec->text);
	}
	ASSERT_EQ(1, count(nl, pid, "control", &rec)) {
		audit_dump(nl);
	}
	EXPECT_TRUE(is_arch(rec, other) &&
		    audit_field_is_num(rec, "syscall", ctl_nr)) {
		TH_LOG("%s", rec->text);
	}
}

/* only the b32 rule names getpid: with per-ABI sets it is not walked */
TEST_F(compat_rules, b32_rule_ignores_native_syscall)
{
	other_abi_rule_ignored(_metadata, &self->nl, AUDIT_ARCH_COMPAT,
			       AUDIT_ARCH_NATIVE, SYS_getpid, SYS_getppid,
			       native_getpid, false);
}

TEST_F(compat_rules, b32_rule_ignores_walked_native_syscall)
{
	other_abi_rule_ignored(_metadata, &self->nl, AUDIT_ARCH_COMPAT,
			       AUDIT_ARCH_NATIVE, SYS_getpid, SYS_getppid,
			       native_getpid, true);
}

/* delete the rule added last; it is no longer tracked when that works */
static int del_last(struct audit_nl *nl)
{
	int ret = audit_del(nl, -1);

	if (!ret)
		nl->ntracked--;
	return ret;
}

/*
 * Whether the kernel has a class of compat signal syscalls: a rule that
 * names the class (its bit at the top of the mask) is listed back with
 * the class's syscalls, compat kill() (37) among them, only then.
 */
static bool has_compat_signal_class(struct __test_metadata *_metadata,
				    struct audit_nl *nl)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	int bit = AUDIT_BITMASK_SIZE * 32 - 1 - AUDIT_CLASS_SIGNAL_32;
	struct audit_rule listed[4];
	bool has = false;
	int n, i;

	audit_rule_field(&r, AUDIT_ARCH, AUDIT_EQUAL, AUDIT_ARCH_COMPAT);
	r.d->mask[AUDIT_WORD(bit)] |= AUDIT_BIT(bit);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, "c32class");
	EXPECT_EQ(0, audit_add(nl, &r));
	n = audit_list_rules(nl, listed, 4);
	EXPECT_LE(0, n);
	for (i = 0; i < n && i < 4; i++) {
		has |= !!(listed[i].d->mask[AUDIT_WORD(37)] & AUDIT_BIT(37));
		free(listed[i].d);
	}
	EXPECT_EQ(0, del_last(nl));
	return has;
}

/*
 * rt_sigqueueinfo() is no member of the signal class: a rule on it does
 * not make the kernel log signal targets, so the OBJ_PID record of its
 * target comes only while audit_signals, the count of loaded rules that
 * name kill(), tkill() or tgkill(), is not zero.
 */
static int child_sigqueue_self(void *arg)
{
	siginfo_t si = { .si_code = SI_QUEUE };

	(void)arg;
	return syscall(SYS_rt_sigqueueinfo, getpid(), 0, &si) ? 1 : 0;
}

/* the target of a rt_sigqueueinfo() is logged: audit_signals is not 0 */
static bool signal_targets_logged(struct __test_metadata *_metadata,
				  struct audit_nl *nl)
{
	const struct audit_record *sys;
	struct audit_child c;
	struct audit_rule k;
	int status;

	EXPECT_EQ(0, audit_child_start(&c, child_sigqueue_self, NULL));
	k = audit_exit_rule(AUDIT_ALWAYS, SYS_rt_sigqueueinfo, c.pid, "c64probe");
	EXPECT_EQ(0, audit_add(nl, &k));
	audit_records_clear(nl);
	status = audit_child_finish(&c);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_LE(0, audit_sync(nl));
	sys = audit_syscall_record(nl, SYS_rt_sigqueueinfo, c.pid, "c64probe");
	EXPECT_NE(NULL, sys) {
		audit_dump(nl);
	}
	EXPECT_EQ(0, del_last(nl));
	return sys && audit_event_record(nl, sys->serial, AUDIT_OBJ_PID, 0);
}

TEST_F(compat_rules, copied_watch_rule_uncounted_by_its_arch)
{
	char dir[] = "/tmp/audit-compat-XXXXXX", path[64];
	struct audit_rule w = rule(AUDIT_ARCH_COMPAT, SYS_kill, "c32watch");
	struct audit_probe before, after;
	int fd, ret;

	if (!has_compat_signal_class(_metadata, &self->nl))
		SKIP(return, "no class of compat signal syscalls (COMPAT, IA32_EMULATION)");
	ASSERT_FALSE(signal_targets_logged(_metadata, &self->nl)) {
		TH_LOG("signal targets logged with no rule on kill(): the count was off before");
	}
	/* with no rule counted, a syscall's context is a dummy */
	audit_probe_event(_metadata, &self->nl, &before, "before the rule");
	audit_expect_dummy_event(_metadata, &self->nl, &before, "before the rule");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	/*
	 * The native kill() in an arch=b32 rule: not counted in audit_signals,
	 * which counts it by the compat class. Its watched file appears, and
	 * the kernel replaces the rule by a copy; the directory goes, and the
	 * kernel drops the copy, which it uncounts by the copy's own fields;
	 * with the rule, it stops counting it in audit_n_rules: a syscall's
	 * event is then what it was before the rule was added.
	 */
	audit_rule_str(&w, AUDIT_WATCH, AUDIT_EQUAL, path);
	ret = audit_add(&self->nl, &w);
	if (ret)
		rmdir(dir);
	ASSERT_EQ(0, ret);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0)
		close(fd);
	unlink(path);
	rmdir(dir);
	ASSERT_LE(0, fd);
	ret = audit_del(&self->nl, -1);
	if (ret == -ENOENT) {	/* gone with its directory: untrack it */
		audit_rule_free(&self->nl.tracked[self->nl.ntracked - 1]);
		self->nl.ntracked--;
	}
	ASSERT_EQ(-ENOENT, ret) {
		TH_LOG("the rule outlived its watch's directory");
	}
	audit_probe_event(_metadata, &self->nl, &after, "after the drop");
	audit_expect_same_event(_metadata, &before, &after);
	EXPECT_FALSE(signal_targets_logged(_metadata, &self->nl)) {
		TH_LOG("dropping the copied rule left audit_signals off by one");
	}
}

TEST_F(compat, b32_rule_records_compat_syscall)
{
	struct audit_rule r = rule(AUDIT_ARCH_COMPAT, COMPAT_GETPID, "c32");
	const struct audit_record *rec = NULL;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = run(_metadata, &self->nl, run_helper);
	ASSERT_EQ(1, count(&self->nl, pid, "c32", &rec)) {
		audit_dump(&self->nl);
	}
	EXPECT_TRUE(is_arch(rec, AUDIT_ARCH_COMPAT)) {
		TH_LOG("%s", rec->text);
	}
	EXPECT_TRUE(audit_field_is_num(rec, "syscall", COMPAT_GETPID) &&
		    audit_field_is(rec, "success", "yes") &&
		    audit_field_is_num(rec, "exit", pid) &&
		    audit_field_is(rec, "a0", "0") && audit_field_is(rec, "a1", "0") &&
		    audit_field_is(rec, "a2", "0") && audit_field_is(rec, "a3", "0") &&
		    audit_field_is(rec, "comm", "compat_helper")) {
		TH_LOG("%s", rec->text);
	}
}

TEST_F(compat, b32_exit_recorded_when_task_is_freed)
{
	struct audit_rule r = rule(AUDIT_ARCH_COMPAT, COMPAT_EXIT, "c32exit");
	const struct audit_record *rec = NULL;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = run(_metadata, &self->nl, run_helper);
	ASSERT_EQ(1, count(&self->nl, pid, "c32exit", &rec)) {
		audit_dump(&self->nl);
	}
	EXPECT_TRUE(is_arch(rec, AUDIT_ARCH_COMPAT) &&
		    audit_field_is_num(rec, "syscall", COMPAT_EXIT) &&
		    audit_field_is(rec, "a0", "0") &&
		    !audit_field(rec, "success") && !audit_field(rec, "exit")) {
		TH_LOG("%s", rec->text);
	}
}

TEST_F(compat, b64_rule_ignores_compat_syscall)
{
	other_abi_rule_ignored(_metadata, &self->nl, AUDIT_ARCH_NATIVE,
			       AUDIT_ARCH_COMPAT, COMPAT_GETPID, COMPAT_GETPPID,
			       run_helper, false);
}

TEST_F(compat, b64_rule_ignores_walked_compat_syscall)
{
	other_abi_rule_ignored(_metadata, &self->nl, AUDIT_ARCH_NATIVE,
			       AUDIT_ARCH_COMPAT, COMPAT_GETPID, COMPAT_GETPPID,
			       run_helper, true);
}

TEST_F(compat, archless_rule_records_both_abis)
{
	struct audit_rule r = rule(0, COMPAT_GETPID, "nr20");
	const struct audit_record *rec = NULL;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = run(_metadata, &self->nl, run_helper);
	ASSERT_EQ(1, count(&self->nl, pid, "nr20", &rec)) {
		audit_dump(&self->nl);
	}
	EXPECT_TRUE(is_arch(rec, AUDIT_ARCH_COMPAT) &&
		    audit_field_is_num(rec, "syscall", COMPAT_GETPID)) {
		TH_LOG("%s", rec->text);
	}
	pid = run(_metadata, &self->nl, native_nr20);
	ASSERT_EQ(1, count(&self->nl, pid, "nr20", &rec)) {
		audit_dump(&self->nl);
	}
	EXPECT_TRUE(is_arch(rec, AUDIT_ARCH_NATIVE) &&
		    audit_field_is_num(rec, "syscall", COMPAT_GETPID)) {
		TH_LOG("%s", rec->text);
	}
}

TEST_HARNESS_MAIN
