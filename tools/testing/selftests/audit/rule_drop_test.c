// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: rules the kernel drops by itself. A watch goes when the
 * directory that holds its path is deleted, a directory rule (dir=) when
 * its directory is. Each drop logs a CONFIG_CHANGE record, and afterwards
 * the kernel must behave as if the rule had never been loaded: with no
 * rule left, a syscall's context is a dummy again. The tests see that in
 * the event of a record logged during a syscall (a CONFIG_CHANGE record,
 * logged in the sendto() of a task that sets audit_enabled): it must have
 * the same records as before the rule was added, and no SOCKADDR record,
 * which only a context that is not a dummy collects.
 *
 * A kernel that forgets to uncount a dropped rule keeps every context
 * filled in for the rest of the boot, which also changes what later
 * tests see: on such a kernel, run this program in a boot of its own.
 */

#define _GNU_SOURCE
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

FIXTURE(drop) {
	struct audit_nl nl;
	char dir[64];		/* the scratch directory */
	char sub[80];		/* dir/sub: the directory the test deletes */
	char path[96];		/* dir/sub/file: what the watch names */
};

FIXTURE_SETUP(drop)
{
	audit_fixture_setup(_metadata, &self->nl);
	snprintf(self->dir, sizeof(self->dir), "/tmp/audit_drop_XXXXXX");
	audit_setup_ok(_metadata, &self->nl, mkdtemp(self->dir), "mkdtemp");
	snprintf(self->sub, sizeof(self->sub), "%s/sub", self->dir);
	snprintf(self->path, sizeof(self->path), "%s/file", self->sub);
	audit_setup_ok(_metadata, &self->nl, !mkdir(self->sub, 0755), "mkdir");
}

FIXTURE_TEARDOWN(drop)
{
	audit_fixture_teardown(_metadata, &self->nl);
	rmdir(self->sub);
	if (self->dir[0] && rmdir(self->dir))
		fprintf(stderr, "# could not remove %s\n", self->dir);
}

/*
 * The event of a record logged during a child's syscall
 * (audit_probe_event()), which with no rule loaded is a dummy's
 */
static void probe_event(struct __test_metadata *_metadata, struct audit_nl *nl,
			struct audit_probe *p, const char *when)
{
	audit_probe_event(_metadata, nl, p, when);
	audit_expect_dummy_event(_metadata, nl, p, when);
}

struct change_match {
	const char *field;	/* "path" or "dir" */
	const char *value;
	const char *key;
	bool session;		/* the record has auid= and ses= */
};

static bool match_change(const struct audit_record *r, const void *arg)
{
	const struct change_match *m = arg;

	return r->type == AUDIT_CONFIG_CHANGE &&
	       audit_field_is(r, m->field, m->value) &&
	       audit_field_is(r, "key", m->key);
}

/* this task's audit session id, as ses= prints it */
static void session_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/sessionid", "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		fclose(f);
	}
}

static int child_rmdir(void *arg)
{
	return rmdir(arg) ? 10 : 0;
}

/*
 * A child deletes dir/sub (so the drop happens in a syscall that is
 * audited); expect the CONFIG_CHANGE record that drops the rule, then
 * forget the rule, which the kernel no longer has.
 */
static void remove_sub(struct __test_metadata *_metadata, struct audit_nl *nl,
		       char *sub, const struct change_match *m)
{
	const struct audit_record *r;
	char what[160];
	pid_t pid;

	snprintf(what, sizeof(what), "CONFIG_CHANGE %s=%s key=%s",
		 m->field, m->value, m->key);
	r = audit_child_record(_metadata, nl, child_rmdir, sub, &pid,
			       match_change, m, what);
	EXPECT_TRUE(audit_field_is(r, "op", "remove_rule")) {
		TH_LOG("%s", r->text);
	}
	if (m->session) {
		char ses[16];

		session_id(ses, sizeof(ses));
		EXPECT_TRUE(audit_field_is(r, "ses", ses)) {
			TH_LOG("ses should be %s: %s", ses, r->text);
		}
	}
	EXPECT_TRUE(audit_field_is_num(r, "list", AUDIT_FILTER_EXIT)) {
		TH_LOG("%s", r->text);
	}
	EXPECT_TRUE(audit_field_is(r, "res", "1")) {
		TH_LOG("%s", r->text);
	}
	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	while (nl->ntracked)
		audit_rule_free(&nl->tracked[--nl->ntracked]);
}

/*
 * Add a rule like auditctl -w makes it (@type path= or dir= @path, perm=wa,
 * key @m->key), delete dir/sub in a child, and expect the event of a
 * record logged during a syscall to be what it was before the rule.
 */
static void drop_rule(struct __test_metadata *_metadata, struct audit_nl *nl,
		      char *sub, __u32 type, const struct change_match *m)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	struct audit_probe before, after;

	ASSERT_EQ(0, audit_list_rules(nl, NULL, 0));
	probe_event(_metadata, nl, &before, "before the rule");

	audit_rule_all_syscalls(&r);
	audit_rule_str(&r, type, AUDIT_EQUAL, m->value);
	audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, AUDIT_PERM_WRITE |
			 AUDIT_PERM_ATTR);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, m->key);
	ASSERT_EQ(0, audit_add(nl, &r));
	ASSERT_EQ(1, audit_list_rules(nl, NULL, 0));

	remove_sub(_metadata, nl, sub, m);
	probe_event(_metadata, nl, &after, "after the rule was dropped");
	audit_expect_same_event(_metadata, &before, &after);
}

/* a watch on dir/sub/file goes with dir/sub */
TEST_F(drop, watch_parent_deleted)
{
	struct change_match m = { "path", self->path, "drop_watch", true };

	drop_rule(_metadata, &self->nl, self->sub, AUDIT_WATCH, &m);
}

/* a directory rule (dir=) on dir/sub goes with dir/sub */
TEST_F(drop, tree_deleted)
{
	struct change_match m = { "dir", self->sub, "drop_tree", false };

	drop_rule(_metadata, &self->nl, self->sub, AUDIT_DIR, &m);
}

TEST_HARNESS_MAIN
