// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests on a kernel with SELinux and a policy loaded.
 *
 * Rules that name an LSM field (subj_type= and the like) are copied each
 * time the LSM loads a policy (audit_update_lsm_rules()). A rule whose copy
 * fails is dropped; a directory rule (dir=) must then go from its tree as
 * well, or the tree's removal later reaches the freed rule. An exe= field
 * makes the copy fail when the directory of the executable's path no
 * longer resolves: the tests rename the directory above it and load the
 * policy again, the one the kernel has (/sys/fs/selinux/policy), which
 * changes nothing else. The rule that could not be copied must be freed
 * once: the copy shares the old rule's LSM fields until it has its own.
 *
 * An AVC record that SELinux logs during a syscall belongs to that
 * syscall's event: it takes the syscall's serial, and the syscall ends
 * with its SYSCALL record, also when no rule is loaded and the syscall
 * would otherwise log nothing (a dummy context). The AVC tests have a
 * child enter a domain that the policy allows nothing, audit_test_denied_t
 * (the harness's test policy has it; scripts/selinux-policy.sh), and make
 * one access it is denied. They skip where the loaded policy has no such
 * type.
 *
 * The tests skip without SELinux, without a policy loaded, where this
 * task may not load one, or without root. A failed copy calls
 * audit_panic(): the tests run with a failure mode of panic lowered to
 * printk (audit_begin()). They need a kernel with CONFIG_SECURITY_SELINUX
 * and CONFIG_AUDIT_TREE (which CONFIG_AUDITSYSCALL selects). A double free
 * is reported at once with KASAN (the kernel log is checked); without it,
 * a later allocation oopses.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "../kselftest_harness.h"
#include "audit_common.h"
#include "selinux_common.h"

FIXTURE(policy) {
	struct audit_nl nl;
	char *policy;		/* the loaded policy, to load again */
	size_t policy_len;
	char type[128];		/* this task's SELinux type */
	char dir[64];		/* the scratch directory */
	char tree[80];		/* dir/tree: a dir= rule's directory */
	char app[80];		/* dir/app, renamed to dir/app.old */
	char app_old[80];
	char bin[96];		/* dir/app/bin: holds the exe= path */
	char exe[112];		/* dir/app/bin/tool */
};

/* Load @policy: selinuxfs takes a policy in a single write. */
static int load_policy(const char *policy, size_t len)
{
	int fd = open(SELINUXFS "/load", O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, policy, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n == (ssize_t)len ? 0 : (n < 0 ? n : -EIO);
}

/* The type of this task's context. */
static bool own_type(char *type, size_t size)
{
	char ctx[256], *p, *q;

	if (!own_context(ctx, sizeof(ctx)))
		return false;
	p = strchr(ctx, ':');
	p = p ? strchr(p + 1, ':') : NULL;
	if (!p)
		return false;
	q = strchr(++p, ':');
	if (q)
		*q = 0;
	if (!*p || strlen(p) >= size)
		return false;
	snprintf(type, size, "%s", p);
	return true;
}

/* the policy the fixture found loaded, for the tests' children too */
static const char *loaded_policy;
static size_t loaded_policy_len;

/*
 * Load the policy again; true when the test is over: it skipped (this task
 * may not load one) or failed.
 */
static bool reload_or_skip(struct __test_metadata *_metadata)
{
	int err = load_policy(loaded_policy, loaded_policy_len);

	if (err == -EACCES)
		SKIP(return true, "this task may not load a policy (EACCES)");
	EXPECT_EQ(0, err);
	return err != 0;
}

FIXTURE_SETUP(policy)
{
	self->policy = NULL;
	self->dir[0] = 0;
	if (geteuid())
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "needs root (CAP_AUDIT_CONTROL, CAP_MAC_ADMIN)");
	if (access(SELINUXFS "/load", W_OK))
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "no SELinux (CONFIG_SECURITY_SELINUX, selinuxfs on " SELINUXFS ")");
	self->policy = read_file(SELINUXFS "/policy", &self->policy_len);
	if (!self->policy || !self->policy_len)
		SKIP(_exit(AUDIT_SKIP_STATUS), "no SELinux policy loaded");
	loaded_policy = self->policy;
	loaded_policy_len = self->policy_len;
	if (!own_type(self->type, sizeof(self->type)))
		SKIP(_exit(AUDIT_SKIP_STATUS), "cannot read this task's SELinux type");
	audit_fixture_setup(_metadata, &self->nl);
	snprintf(self->dir, sizeof(self->dir), "/tmp/audit_lsm_XXXXXX");
	audit_setup_ok(_metadata, &self->nl, mkdtemp(self->dir), "mkdtemp");
	snprintf(self->tree, sizeof(self->tree), "%s/tree", self->dir);
	snprintf(self->app, sizeof(self->app), "%s/app", self->dir);
	snprintf(self->app_old, sizeof(self->app_old), "%s/app.old", self->dir);
	snprintf(self->bin, sizeof(self->bin), "%s/bin", self->app);
	snprintf(self->exe, sizeof(self->exe), "%s/tool", self->bin);
	audit_setup_ok(_metadata, &self->nl, !mkdir(self->tree, 0755) &&
		       !mkdir(self->app, 0755) && !mkdir(self->bin, 0755),
		       "mkdir");
}

FIXTURE_TEARDOWN(policy)
{
	char path[128];

	audit_fixture_teardown(_metadata, &self->nl);
	free(self->policy);
	if (!self->dir[0])
		return;
	snprintf(path, sizeof(path), "%s/file", self->tree);
	unlink(path);
	snprintf(path, sizeof(path), "%s/watched", self->dir);
	unlink(path);
	rmdir(self->tree);
	rmdir(self->bin);
	rmdir(self->app);
	snprintf(path, sizeof(path), "%s/bin", self->app_old);
	rmdir(path);
	rmdir(self->app_old);
	if (rmdir(self->dir))
		fprintf(stderr, "# could not remove %s\n", self->dir);
}

struct key_match {
	int type;
	const char *key;
};

static bool match_key(const struct audit_record *r, const void *arg)
{
	const struct key_match *m = arg;

	return r->type == m->type && audit_field_is(r, "key", m->key);
}

static int child_rmdir(void *arg)
{
	return rmdir(arg) ? 10 : 0;
}

static int child_create(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return 10;
	close(fd);
	return 0;
}

static int child_getppid(void *arg)
{
	syscall(__NR_getppid);
	return 0;
}

/*
 * A rule on subj_type= records a syscall of a task of that type, and the
 * SYSCALL record carries the task's context in subj=.
 */
TEST_F(policy, subj_type_rule_records_subj)
{
	const struct audit_record *rec;
	struct audit_child c;
	struct audit_rule r;
	char ctx[256];

	ASSERT_TRUE(own_context(ctx, sizeof(ctx)));
	ASSERT_EQ(0, audit_child_start(&c, child_getppid, NULL));
	/* one rule of another type, which must not match, then ours */
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, c.pid, "audit_lsm_other");
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, "audit_lsm_no_such_t");
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, c.pid, "audit_lsm_subj");
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, self->type);
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	audit_records_clear(&self->nl);
	ASSERT_EQ(0, audit_child_finish(&c));
	ASSERT_LE(0, audit_sync(&self->nl));
	rec = audit_syscall_record(&self->nl, __NR_getppid, c.pid, NULL);
	ASSERT_NE(NULL, rec) {
		audit_dump(&self->nl);
		TH_LOG("no SYSCALL record of the child's getppid()");
	}
	EXPECT_TRUE(audit_field_is(rec, "key", "audit_lsm_subj")) {
		TH_LOG("%s", rec->text);
	}
	EXPECT_TRUE(audit_field_is(rec, "subj", ctx)) {
		TH_LOG("subj= should be %s: %s", ctx, rec->text);
	}
	EXPECT_EQ(1, audit_count_syscall(&self->nl, __NR_getppid, c.pid));
}

/*
 * The child: enter the denied domain, then chdir("/"), which it may not
 * (dir search): denied and logged. Nothing else it does after the
 * transition is checked by SELinux but its exit.
 */
static int child_denied_chdir(void *arg)
{
	if (enter_context(arg))
		return 10;
	syscall(__NR_chdir, "/");
	return 0;
}

struct avc_match {
	pid_t pid;
	const char *scontext;
};

static bool match_avc(const struct audit_record *r, const void *arg)
{
	const struct avc_match *m = arg;

	return r->type == AUDIT_AVC && strstr(r->text, "denied  { search }") &&
	       audit_field_is_num(r, "pid", m->pid) &&
	       audit_field_is(r, "scontext", m->scontext) &&
	       audit_field_is(r, "tclass", "dir");
}

/*
 * One denied access in a syscall of a child, with no rule loaded or with
 * one that does not match the child: its AVC record, and the SYSCALL record
 * of the same event.
 */
static void avc_denial(struct __test_metadata *_metadata,
		       struct audit_nl *nl, bool with_rule)
{
	const struct audit_record *avc, *sys;
	struct avc_match m;
	char denied[320];
	int enforcing, status;

	ASSERT_TRUE(denied_context(denied, sizeof(denied)));
	if (!context_valid(denied))
		SKIP(return, "the loaded policy has no %s domain (%s)",
		     DENIED_TYPE, denied);
	enforcing = selinuxfs_int("enforce");
	ASSERT_LE(0, enforcing);
	/*
	 * A permissive denial is logged once, then the access vector cache
	 * allows it: load the policy again, which empties the cache.
	 */
	if (reload_or_skip(_metadata))
		return;
	if (with_rule) {
		struct audit_rule r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid,
						      getpid(), "audit_lsm_other");

		ASSERT_EQ(0, audit_add(nl, &r));
	}
	ASSERT_EQ(with_rule, audit_list_rules(nl, NULL, 0));

	audit_records_clear(nl);
	m.pid = audit_run_child(child_denied_chdir, denied, &status);
	ASSERT_LT(0, m.pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the child could not enter %s (status %#x)", denied, status);
	}
	ASSERT_LE(0, audit_sync(nl));
	m.scontext = denied;
	ASSERT_LE(0, audit_find(nl, 0, match_avc, &m)) {
		audit_dump(nl);
		TH_LOG("no AVC record of the child's denied chdir(\"/\")");
	}
	avc = &nl->rec[audit_find(nl, 0, match_avc, &m)];
	EXPECT_TRUE(audit_field_is_num(avc, "permissive", !enforcing)) {
		TH_LOG("enforce=%d: %s", enforcing, avc->text);
	}
	sys = audit_event_record(nl, avc->serial, AUDIT_SYSCALL, 0);
	ASSERT_NE(NULL, sys) {
		audit_dump(nl);
		TH_LOG("the AVC record (serial %lu) has no SYSCALL record", avc->serial);
	}
	EXPECT_TRUE(audit_field_is_num(sys, "syscall", __NR_chdir) &&
		    audit_field_is_num(sys, "pid", m.pid) &&
		    audit_field_is(sys, "subj", denied)) {
		TH_LOG("%s", sys->text);
	}
	/* denied when enforcing; allowed, and only logged, when permissive */
	EXPECT_TRUE(audit_field_is(sys, "success", enforcing ? "no" : "yes") &&
		    audit_field_is_num(sys, "exit", enforcing ? -EACCES : 0)) {
		TH_LOG("enforce=%d: %s", enforcing, sys->text);
	}
	EXPECT_EQ(1, audit_count_syscall(nl, __NR_chdir, m.pid));
}

/* no rule loaded: the syscall's context is a dummy until the AVC record */
TEST_F(policy, avc_denial_without_rules_has_its_syscall_record)
{
	avc_denial(_metadata, &self->nl, false);
}

/* a rule that does not match the child */
TEST_F(policy, avc_denial_with_rules_has_its_syscall_record)
{
	avc_denial(_metadata, &self->nl, true);
}

static int child_load_policy(void *arg)
{
	return load_policy(loaded_policy, loaded_policy_len) ? 10 : 0;
}

/*
 * The child of the test below, in the scratch directory @arg: a write
 * under the tree, one to the watch.
 */
static int child_write_both(void *arg)
{
	const char *dir = arg;
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/tree/file", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return 10;
	close(fd);
	snprintf(path, sizeof(path), "%s/watched", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return 11;
	close(fd);
	return 0;
}

/*
 * A policy load with rules loaded that name an LSM field (and so are
 * copied), one of each kind that has more than its fields to copy: a
 * dir= rule (its tree), a watch rule (its watch), an exe= rule (its mark).
 * The load, by a child, logs MAC_POLICY_LOAD in the event of the child's
 * write(); afterwards the rule list is what it was, byte for byte, and
 * the dir= and watch rules, now the copies, record.
 */
TEST_F(policy, policy_load_copies_every_kind_of_rule)
{
	struct audit_rule before[8] = {}, after[8] = {};
	const struct audit_record *sys, *load, *rec;
	struct key_match dir_key = { AUDIT_SYSCALL, "audit_lsm_dir" };
	struct key_match watch_key = { AUDIT_SYSCALL, "audit_lsm_watch" };
	char watched[96];
	struct audit_rule r;
	int i, n, status;
	pid_t pid;

	ASSERT_EQ(0, audit_list_rules(&self->nl, NULL, 0));
	snprintf(watched, sizeof(watched), "%s/watched", self->dir);
	r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	audit_rule_all_syscalls(&r);
	audit_rule_str(&r, AUDIT_DIR, AUDIT_EQUAL, self->tree);
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, self->type);
	audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, AUDIT_PERM_WRITE);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, dir_key.key);
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	audit_rule_all_syscalls(&r);
	audit_rule_str(&r, AUDIT_WATCH, AUDIT_EQUAL, watched);
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, self->type);
	audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, AUDIT_PERM_WRITE);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, watch_key.key);
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, 0, "audit_lsm_exe");
	audit_rule_str(&r, AUDIT_EXE, AUDIT_EQUAL, self->exe);
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, self->type);
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	n = audit_list_rules(&self->nl, before, 8);
	ASSERT_EQ(3, n);

	audit_records_clear(&self->nl);
	pid = audit_run_child(child_load_policy, NULL, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status))
		SKIP(goto out, "the child could not load the policy");
	ASSERT_LE(0, audit_sync(&self->nl));
	sys = audit_syscall_record(&self->nl, __NR_write, pid, NULL);
	ASSERT_NE(NULL, sys) {
		audit_dump(&self->nl);
		TH_LOG("no SYSCALL record of the child's write() of the policy");
	}
	load = audit_event_record(&self->nl, sys->serial, AUDIT_MAC_POLICY_LOAD, 0);
	ASSERT_NE(NULL, load) {
		audit_dump(&self->nl);
		TH_LOG("no MAC_POLICY_LOAD record in the write()'s event");
	}
	EXPECT_TRUE(audit_field_is(load, "lsm", "selinux") &&
		    audit_field_is(load, "res", "1") &&
		    audit_field(load, "auid") && audit_field(load, "ses")) {
		TH_LOG("%s", load->text);
	}

	ASSERT_EQ(n, audit_list_rules(&self->nl, after, 8));
	for (i = 0; i < n; i++)
		EXPECT_TRUE(before[i].size == after[i].size &&
			    !memcmp(before[i].d, after[i].d, before[i].size)) {
			TH_LOG("rule %d differs after the load", i);
		}

	audit_records_clear(&self->nl);
	pid = audit_run_child(child_write_both, self->dir, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_LE(0, audit_sync(&self->nl));
	rec = NULL;
	i = audit_find(&self->nl, 0, match_key, &dir_key);
	if (i >= 0)
		rec = &self->nl.rec[i];
	EXPECT_TRUE(rec && audit_field_is_num(rec, "pid", pid)) {
		audit_dump(&self->nl);
		TH_LOG("the copied dir= rule did not record the child's create");
	}
	rec = NULL;
	i = audit_find(&self->nl, 0, match_key, &watch_key);
	if (i >= 0)
		rec = &self->nl.rec[i];
	EXPECT_TRUE(rec && audit_field_is_num(rec, "pid", pid)) {
		audit_dump(&self->nl);
		TH_LOG("the copied watch rule did not record the child's create");
	}
out:
	for (i = 0; i < 8; i++) {
		audit_rule_free(&before[i]);
		audit_rule_free(&after[i]);
	}
}

/*
 * The tests whose failure on a kernel without the fixes is an oops come
 * last, so that the others run there too.
 */
/*
 * A dir= rule with an exe= field and an LSM field, whose copy fails at a
 * policy load, is dropped from the rule list and from its tree: removing
 * the tree's directory afterwards logs nothing of it (a kernel that left it
 * on the tree reads the freed rule there, logs a remove_rule record from
 * it and frees it again), and a new rule on the directory records.
 */
TEST_F(policy, uncopied_tree_rule_leaves_its_tree)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	struct key_match gone = { AUDIT_CONFIG_CHANGE, "audit_lsm_uncopied" };
	struct key_match after = { AUDIT_SYSCALL, "audit_lsm_after" };
	const struct audit_record *rec;
	char file[128];
	pid_t pid;
	int status;

	ASSERT_EQ(0, audit_list_rules(&self->nl, NULL, 0));
	audit_rule_all_syscalls(&r);
	audit_rule_str(&r, AUDIT_DIR, AUDIT_EQUAL, self->tree);
	audit_rule_str(&r, AUDIT_EXE, AUDIT_EQUAL, self->exe);
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, self->type);
	audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, AUDIT_PERM_WRITE);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, gone.key);
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	ASSERT_EQ(1, audit_list_rules(&self->nl, NULL, 0));

	/* the exe= path's directory no longer resolves: the copy fails */
	ASSERT_EQ(0, rename(self->app, self->app_old));
	if (reload_or_skip(_metadata))
		return;
	EXPECT_EQ(0, audit_list_rules(&self->nl, NULL, 0)) {
		TH_LOG("the rule whose copy failed is still listed");
	}
	/* the kernel no longer has the rule: do not delete it at the end */
	while (self->nl.ntracked)
		audit_rule_free(&self->nl.tracked[--self->nl.ntracked]);

	/* a child removes the tree's directory */
	audit_records_clear(&self->nl);
	pid = audit_run_child(child_rmdir, self->tree, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_LE(0, audit_sync(&self->nl));
	EXPECT_GT(0, audit_find(&self->nl, 0, match_key, &gone)) {
		audit_dump(&self->nl);
		TH_LOG("the removal logged a record of the dropped rule");
	}

	/* a new rule on the directory records what it matches */
	ASSERT_EQ(0, mkdir(self->tree, 0755));
	r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	audit_rule_all_syscalls(&r);
	audit_rule_str(&r, AUDIT_DIR, AUDIT_EQUAL, self->tree);
	audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, AUDIT_PERM_WRITE);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, after.key);
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	snprintf(file, sizeof(file), "%s/file", self->tree);
	rec = audit_child_record(_metadata, &self->nl, child_create, file, &pid,
				 match_key, &after, "SYSCALL key=audit_lsm_after");
	EXPECT_TRUE(audit_field_is_num(rec, "pid", pid)) {
		TH_LOG("%s", rec->text);
	}
}

/*
 * A rule whose copy fails at a policy load is freed once: the copy, which
 * shares the old rule's LSM strings and LSM rules until it has its own,
 * frees only those it has. The exe= field comes before the LSM field, so
 * that the copy fails at it while the LSM field is still the old rule's (a
 * kernel that frees it with the copy frees it again with the old rule,
 * and the next policy loads take the corrupted memory). Then the policy
 * loads again, three times, and a new rule of the task's type records.
 */
TEST_F(policy, uncopied_lsm_rule_is_freed_once)
{
	int i, kmsg = audit_kmsg_from_now();
	const struct audit_record *rec;
	struct audit_child c;
	struct audit_rule r;
	char report[8192];

	ASSERT_EQ(0, audit_list_rules(&self->nl, NULL, 0));
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, 0, "audit_lsm_uncopied");
	audit_rule_str(&r, AUDIT_EXE, AUDIT_EQUAL, self->exe);
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, self->type);
	ASSERT_EQ(0, audit_add(&self->nl, &r));

	/* the exe= path's directory no longer resolves: the copy fails */
	ASSERT_EQ(0, rename(self->app, self->app_old));
	if (reload_or_skip(_metadata))
		return;
	ASSERT_EQ(0, audit_list_rules(&self->nl, NULL, 0)) {
		TH_LOG("the rule whose copy failed is still listed");
	}
	while (self->nl.ntracked)
		audit_rule_free(&self->nl.tracked[--self->nl.ntracked]);
	/* the old rule is freed after a grace period; loads allocate */
	for (i = 0; i < 3; i++) {
		usleep(100000);
		ASSERT_EQ(0, load_policy(self->policy, self->policy_len));
	}

	ASSERT_EQ(0, audit_child_start(&c, child_getppid, NULL));
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_getppid, c.pid, "audit_lsm_after");
	audit_rule_str(&r, AUDIT_SUBJ_TYPE, AUDIT_EQUAL, self->type);
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	ASSERT_EQ(0, load_policy(self->policy, self->policy_len));
	EXPECT_FALSE(audit_kmsg_reports(kmsg, report, sizeof(report))) {
		TH_LOG("the kernel reported after the failed copy: %s", report);
	}
	if (kmsg >= 0)
		close(kmsg);
	audit_records_clear(&self->nl);
	ASSERT_EQ(0, audit_child_finish(&c));
	ASSERT_LE(0, audit_sync(&self->nl));
	rec = audit_syscall_record(&self->nl, __NR_getppid, c.pid, "audit_lsm_after");
	EXPECT_NE(NULL, rec) {
		audit_dump(&self->nl);
		TH_LOG("the new subj_type= rule, copied at a load, did not record");
	}
}

TEST_HARNESS_MAIN
