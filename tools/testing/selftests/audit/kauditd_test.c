// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: kauditd loses no record without counting it.
 *
 * With no audit daemon registered, kauditd prints each record to the
 * kernel log and, on a kernel booted without audit=1, drops it: records
 * are not held for a daemon to come. Printing is rate limited; a record
 * that is neither printed nor read by a multicast listener must be
 * counted in "lost" (AUDIT_GET), which is how an administrator learns
 * that the trail has a gap. The test sends user messages (AUDIT_USER) and
 * finds each one in /dev/kmsg or in the lost count.
 *
 * It skips when it would not see a drop: booted with audit=1, a daemon or
 * a multicast reader present, or a failure mode that panics on a lost
 * record. It leaves the audit state as it found it (it enables audit for
 * its run when audit is off).
 */

#define _GNU_SOURCE
#include <fcntl.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

#define KAUDITD_MSGS	200

/*
 * Does a socket subscribe to the audit multicast group (such as journald)?
 * /proc/net/netlink shows the test's network namespace only.
 */
static bool audit_multicast_reader(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/net/netlink", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long sk;
		unsigned int proto, pid, groups;

		if (sscanf(line, "%llx %u %u %x", &sk, &proto, &pid, &groups) == 4 &&
		    proto == NETLINK_AUDIT && groups)
			found = true;
	}
	fclose(f);
	return found;
}

/* Wait until kauditd has taken every record off its main queue. */
static int kauditd_idle(struct audit_nl *nl)
{
	struct audit_status s;
	int i, ret;

	for (i = 0; i < 100; i++) {
		ret = audit_get_status(nl, &s);
		if (ret)
			return ret;
		if (!s.backlog) {
			usleep(200000);
			return 0;
		}
		usleep(20000);
	}
	return -ETIMEDOUT;
}

static int lost_count(struct audit_nl *nl, __u32 *lost)
{
	struct audit_status s;
	int ret = audit_get_status(nl, &s);

	*lost = s.lost;
	return ret;
}

static int send_messages(struct audit_nl *nl, const char *prefix, int n)
{
	char msg[96];
	int i, ret;

	for (i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "%s%d", prefix, i);
		ret = audit_request(nl, AUDIT_USER, msg, strlen(msg) + 1, 0, NULL, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* Mark in @seen each message number that follows @prefix in @text. */
static void mark_seen(const char *text, const char *prefix, bool *seen)
{
	const char *p = strstr(text, prefix);
	char *end;
	long i;

	if (!p)
		return;
	i = strtol(p + strlen(prefix), &end, 10);
	if (end != p + strlen(prefix) && (*end == '\'' || *end == '"' || !*end) &&
	    i >= 0 && i < KAUDITD_MSGS)
		seen[i] = true;
}

static int count_seen(const bool *seen)
{
	int i, n = 0;

	for (i = 0; i < KAUDITD_MSGS; i++)
		n += seen[i];
	return n;
}

FIXTURE(no_daemon) {
	struct audit_nl nl;
	struct audit_status saved;
	char prefix[64];
	bool seen[KAUDITD_MSGS];
	bool ready;
};

FIXTURE_SETUP(no_daemon)
{
	const char *why = NULL;
	char val[16];
	int ret;

	self->ready = false;
	if (geteuid())
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "needs root (CAP_AUDIT_CONTROL, CAP_AUDIT_WRITE)");
	/* audit=1 (or any other value but 0) holds records; audit=0 makes none */
	if (audit_cmdline_param("audit", val, sizeof(val)))
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "booted with audit=: kauditd drops records only without it");
	ret = audit_open(&self->nl);
	if (ret == -EPROTONOSUPPORT)
		SKIP(_exit(AUDIT_SKIP_STATUS), "kernel without CONFIG_AUDIT");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, audit_get_status(&self->nl, &self->saved));
	if (self->saved.pid)
		why = "an audit daemon is registered: records go to it";
	else if (self->saved.failure == AUDIT_FAIL_PANIC)
		why = "failure mode is panic: a lost record would panic the machine";
	else if (audit_multicast_reader())
		why = "a process reads audit records by multicast: nothing is lost";
	if (why) {
		close(self->nl.fd);
		self->nl.fd = -1;
		SKIP(_exit(AUDIT_SKIP_STATUS), "%s", why);
	}
	if (!self->saved.enabled)
		ASSERT_EQ(0, audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 1, 0));
	snprintf(self->prefix, sizeof(self->prefix), "audit_kauditd_test_%d_",
		 getpid());
	self->ready = true;
}

FIXTURE_TEARDOWN(no_daemon)
{
	if (self->nl.fd <= 0)
		return;
	if (!self->saved.enabled)
		audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 0, 0);
	audit_records_clear(&self->nl);
	close(self->nl.fd);
}

/*
 * With no daemon, a record is in the kernel log or counted lost. Records
 * other processes make may be lost as well, hence "at least": the test
 * cannot tell a kernel that also counts printed records.
 */
TEST_F(no_daemon, printed_or_counted)
{
	char buf[8192];
	__u32 lost0, lost1;
	int kmsg, printed;
	ssize_t n;

	if (!self->ready)
		SKIP(return, "see the fixture's setup");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0)
		SKIP(return, "cannot read /dev/kmsg: %s", strerror(errno));
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, kauditd_idle(&self->nl));
	ASSERT_EQ(0, lost_count(&self->nl, &lost0));

	ASSERT_EQ(0, send_messages(&self->nl, self->prefix, KAUDITD_MSGS));
	ASSERT_EQ(0, kauditd_idle(&self->nl));
	ASSERT_EQ(0, lost_count(&self->nl, &lost1));

	for (;;) {
		n = read(kmsg, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n <= 0)
			break;
		buf[n] = 0;
		mark_seen(buf, self->prefix, self->seen);
	}
	close(kmsg);
	printed = count_seen(self->seen);
	TH_LOG("%d messages: %d in the kernel log, lost went up by %u",
	       KAUDITD_MSGS, printed, lost1 - lost0);
	if (printed == KAUDITD_MSGS)
		SKIP(return, "the printk rate limit let every record through");
	EXPECT_LE(KAUDITD_MSGS, printed + (int)(lost1 - lost0));
}

TEST_HARNESS_MAIN
