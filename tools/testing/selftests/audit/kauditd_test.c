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
 * daemon_gone registers a daemon of its own that stops reading, fills its
 * socket and kauditd's retry queue, and then goes away, as an auditd that
 * is restarted under load does: every record must be read by the daemon,
 * in the kernel log or counted lost, under failure mode 1 (printk) and 2
 * (panic). kauditd drops these records by design on a kernel booted
 * without audit=1, so the machine must stay up under 2 as well; it is best
 * run in a boot of its own, where no other test's records can be lost
 * while the failure mode is panic.
 *
 * The tests skip when they would not see a drop: booted with audit=1, a
 * daemon or a multicast reader present; no_daemon also with a failure
 * mode that panics on a lost record. They leave the audit state as they
 * found it (they enable audit for their run when audit is off).
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

#define KAUDITD_MSGS	200
#define KAUDITD_BATCH	20

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

/* printed records of ours with more after their text than a line end */
static int garbled;

/*
 * Mark in @seen each message number that follows @prefix in @text, one
 * /dev/kmsg record, where the record's text must end the line.
 */
static void mark_seen(const char *text, const char *prefix, bool *seen)
{
	const char *p = strstr(text, prefix);
	char *end;
	long i;

	if (!p)
		return;
	i = strtol(p + strlen(prefix), &end, 10);
	if (end != p + strlen(prefix) && (*end == '\'' || *end == '"' || !*end) &&
	    i >= 0 && i < KAUDITD_MSGS) {
		seen[i] = true;
		if (*end && end[1] != '\n' && end[1])
			garbled++;
	}
}

static int count_seen(const bool *seen)
{
	int i, n = 0;

	for (i = 0; i < KAUDITD_MSGS; i++)
		n += seen[i];
	return n;
}

/* Mark in @seen the messages of @prefix that /dev/kmsg (@kmsg) has now. */
static void kmsg_mark_seen(int kmsg, const char *prefix, bool *seen)
{
	char buf[8192];
	ssize_t n;

	for (;;) {
		n = read(kmsg, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n <= 0)
			break;
		buf[n] = 0;
		mark_seen(buf, prefix, seen);
	}
}

static int set_failure(struct audit_nl *nl, __u32 failure)
{
	struct audit_status s = {
		.mask = AUDIT_STATUS_FAILURE, .failure = failure,
	};

	return audit_request(nl, AUDIT_SET, &s, sizeof(s), 0, NULL, 0);
}

/* Why kauditd would not drop a record here, or NULL. */
static const char *no_drop_reason(const struct audit_status *s)
{
	if (s->pid)
		return "an audit daemon is registered: records go to it";
	if (audit_multicast_reader())
		return "a process reads audit records by multicast: nothing is lost";
	return NULL;
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
	why = no_drop_reason(&self->saved);
	if (!why && self->saved.failure == AUDIT_FAIL_PANIC)
		why = "failure mode is panic: a lost record would panic the machine";
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
	__u32 lost0, lost1;
	int kmsg, printed;

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

	garbled = 0;
	kmsg_mark_seen(kmsg, self->prefix, self->seen);
	close(kmsg);
	EXPECT_EQ(0, garbled);
	printed = count_seen(self->seen);
	TH_LOG("%d messages: %d in the kernel log, lost went up by %u",
	       KAUDITD_MSGS, printed, lost1 - lost0);
	if (printed == KAUDITD_MSGS)
		SKIP(return, "the printk rate limit let every record through");
	EXPECT_LE(KAUDITD_MSGS, printed + (int)(lost1 - lost0));
}

/*
 * The daemon: registers, tells the parent (@ready), does not read until
 * the parent says (@go), then reads what its socket holds, writes the
 * messages of @prefix it found to @ready and exits without unregistering.
 */
static void daemon_child(int ready, int go, const char *prefix)
{
	static struct audit_nl nl;
	static bool seen[KAUDITD_MSGS];
	int small = 1;
	char c = 0;

	if (audit_open(&nl))
		_exit(2);
	/* the smallest receive buffer: it fills after a few records */
	setsockopt(nl.fd, SOL_SOCKET, SO_RCVBUFFORCE, &small, sizeof(small));
	setsockopt(nl.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (audit_set_status(&nl, AUDIT_STATUS_PID, 0, getpid()))
		_exit(3);
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(4);
	for (;;) {
		char buf[9216];	/* MAX_AUDIT_MESSAGE_LENGTH and a header */
		ssize_t n = recv(nl.fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n < 0 && errno == ENOBUFS)	/* overrun: read on */
			continue;
		if (n <= 0)
			break;
		buf[n] = 0;
		if (n > NLMSG_HDRLEN)
			mark_seen(buf + NLMSG_HDRLEN, prefix, seen);
	}
	if (write(ready, seen, sizeof(seen)) != sizeof(seen))
		_exit(5);
	_exit(0);
}

FIXTURE(daemon_gone) {
	struct audit_nl nl;
	struct audit_status saved;
	char prefix[64];
	bool seen[KAUDITD_MSGS];
	bool ready, failure_set;
};

FIXTURE_VARIANT(daemon_gone) {
	__u32 failure;
};

FIXTURE_VARIANT_ADD(daemon_gone, printk) {
	.failure = AUDIT_FAIL_PRINTK,
};

FIXTURE_VARIANT_ADD(daemon_gone, panic) {
	.failure = AUDIT_FAIL_PANIC,
};

FIXTURE_SETUP(daemon_gone)
{
	const char *why;
	char val[16];
	int ret;

	self->ready = false;
	self->failure_set = false;
	if (geteuid())
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "needs root (CAP_AUDIT_CONTROL, CAP_AUDIT_WRITE)");
	if (audit_cmdline_param("audit", val, sizeof(val)))
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "booted with audit=: kauditd drops records only without it");
	ret = audit_open(&self->nl);
	if (ret == -EPROTONOSUPPORT)
		SKIP(_exit(AUDIT_SKIP_STATUS), "kernel without CONFIG_AUDIT");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, audit_get_status(&self->nl, &self->saved));
	why = no_drop_reason(&self->saved);
	if (why) {
		close(self->nl.fd);
		self->nl.fd = -1;
		SKIP(_exit(AUDIT_SKIP_STATUS), "%s", why);
	}
	if (!self->saved.enabled)
		ASSERT_EQ(0, audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 1, 0));
	ASSERT_EQ(0, set_failure(&self->nl, variant->failure));
	self->failure_set = true;
	snprintf(self->prefix, sizeof(self->prefix), "audit_kauditd_gone_%d_",
		 getpid());
	self->ready = true;
}

FIXTURE_TEARDOWN(daemon_gone)
{
	if (self->nl.fd <= 0)
		return;
	/* the failure mode first: nothing may panic the machine after us */
	if (self->failure_set)
		set_failure(&self->nl, self->saved.failure);
	if (!self->saved.enabled)
		audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 0, 0);
	audit_records_clear(&self->nl);
	close(self->nl.fd);
}

/*
 * A daemon that stops reading and then goes away: each record is read by
 * it, in the kernel log or counted lost, and the machine stays up.
 */
TEST_F(daemon_gone, read_printed_or_counted)
{
	bool by_daemon[KAUDITD_MSGS];
	int ready[2], go[2], kmsg, i, n, status, accounted = 0;
	struct audit_status s;
	__u32 lost0, lost1;
	char c = 0;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "see the fixture's setup");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0)
		SKIP(return, "cannot read /dev/kmsg: %s", strerror(errno));
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, kauditd_idle(&self->nl));
	ASSERT_EQ(0, lost_count(&self->nl, &lost0));

	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		daemon_child(ready[1], go[0], self->prefix);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, audit_get_status(&self->nl, &s));
	ASSERT_EQ(pid, (pid_t)s.pid);

	/*
	 * In batches, so that kauditd makes several passes: its socket full,
	 * the daemon's records go to the retry queue, and each later pass
	 * that finds it still full drops them there (-EAGAIN).
	 */
	for (i = 0; i < KAUDITD_MSGS; i += KAUDITD_BATCH) {
		char msg[96];

		for (n = i; n < i + KAUDITD_BATCH; n++) {
			snprintf(msg, sizeof(msg), "%s%d", self->prefix, n);
			ASSERT_EQ(0, audit_request(&self->nl, AUDIT_USER, msg,
						   strlen(msg) + 1, 0, NULL, 0));
		}
		ASSERT_EQ(0, kauditd_idle(&self->nl));
	}

	/* the daemon reads what it holds and goes away */
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(sizeof(by_daemon), read(ready[0], by_daemon, sizeof(by_daemon)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);

	/* one more record, so that kauditd finds the daemon gone */
	ASSERT_EQ(0, send_messages(&self->nl, "audit_kauditd_gone_kick_", 1));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, kauditd_idle(&self->nl));
		ASSERT_EQ(0, audit_get_status(&self->nl, &s));
		if (!s.pid)
			break;
	}
	ASSERT_EQ(0, s.pid);
	ASSERT_EQ(0, lost_count(&self->nl, &lost1));

	garbled = 0;
	kmsg_mark_seen(kmsg, self->prefix, self->seen);
	close(kmsg);
	/* records queued for the daemon, then printed: their text alone */
	EXPECT_EQ(0, garbled);
	for (i = 0; i < KAUDITD_MSGS; i++)
		accounted += by_daemon[i] || self->seen[i];
	TH_LOG("-f %u: of %d, %d read by the daemon, %d in the kernel log, lost +%u",
	       variant->failure, KAUDITD_MSGS, count_seen(by_daemon),
	       count_seen(self->seen), lost1 - lost0);
	if (accounted == KAUDITD_MSGS)
		SKIP(return, "every record was read or printed: nothing was dropped");
	EXPECT_LE(KAUDITD_MSGS, accounted + (int)(lost1 - lost0));
}

TEST_HARNESS_MAIN
