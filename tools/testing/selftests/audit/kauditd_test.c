// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: kauditd loses no record without counting it.
 *
 * kauditd hands each record to the audit daemon; a record it cannot hand
 * over is printed to the kernel log, kept for later, or dropped, and a
 * dropped record must be counted in "lost" (AUDIT_GET), which is how an
 * administrator learns that the log has a gap. Two cases, on a kernel
 * booted without audit=1 (then records are not held for a daemon to come):
 *
 *  - no daemon: each user message (AUDIT_USER) the test sends is either in
 *    the kernel log (read from /dev/kmsg) or counted lost; past the printk
 *    rate limit only the count can tell;
 *  - a daemon that reads too slowly: the test registers a socket with a
 *    small receive buffer as the audit daemon and reads it only after it
 *    sent all its messages. kauditd's sends fail with -EAGAIN meanwhile;
 *    with room in its queues (the test raises backlog_limit) it must keep
 *    every record until the daemon reads, and lose none.
 *
 * The tests skip when they would not see a drop: booted with audit=1, a
 * daemon or a multicast reader already present, a rate limit set, or a
 * failure mode that panics on a lost record. They leave the audit state
 * (enabled, backlog_limit) as they found it.
 */

#define _GNU_SOURCE
#include <fcntl.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

#define KAUDITD_MSGS	200
#define KAUDITD_BACKLOG	8192

static bool cmdline_has(const char *opt)
{
	char buf[4096] = "", *p;
	size_t len = strlen(opt);
	ssize_t n;
	int fd = open("/proc/cmdline", O_RDONLY);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	for (p = buf; (p = strstr(p, opt)); p += len)
		if ((p == buf || p[-1] == ' ') &&
		    (!p[len] || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

/* Does a socket subscribe to the audit multicast group (such as journald)? */
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
		if (!s.backlog)
			break;
		usleep(20000);
	}
	usleep(200000);
	return 0;
}

static int set_backlog_limit(struct audit_nl *nl, __u32 limit)
{
	struct audit_status s = {
		.mask = AUDIT_STATUS_BACKLOG_LIMIT, .backlog_limit = limit,
	};

	return audit_request(nl, AUDIT_SET, &s, sizeof(s), 0, NULL, 0);
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

FIXTURE(kauditd) {
	struct audit_nl nl;
	struct audit_status saved;
	char prefix[64];
	bool seen[KAUDITD_MSGS];
	bool backlog_changed;
	bool ready;
};

FIXTURE_SETUP(kauditd)
{
	int ret;

	self->ready = false;
	if (geteuid())
		SKIP(return, "needs root (CAP_AUDIT_CONTROL, CAP_AUDIT_WRITE)");
	if (cmdline_has("audit=1") || cmdline_has("audit=on"))
		SKIP(return, "booted with audit=1: kauditd keeps records for a daemon to come");
	ret = audit_open(&self->nl);
	if (ret == -EPROTONOSUPPORT)
		SKIP(return, "kernel without CONFIG_AUDIT");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, audit_get_status(&self->nl, &self->saved));
	if (self->saved.pid) {
		close(self->nl.fd);
		self->nl.fd = -1;
		SKIP(return, "an audit daemon (pid %u) is registered",
		     self->saved.pid);
	}
	if (self->saved.failure == AUDIT_FAIL_PANIC) {
		close(self->nl.fd);
		self->nl.fd = -1;
		SKIP(return, "failure mode is panic: a lost record would panic the machine");
	}
	if (audit_multicast_reader()) {
		close(self->nl.fd);
		self->nl.fd = -1;
		SKIP(return, "a process reads audit records by multicast: nothing is lost");
	}
	if (!self->saved.enabled)
		ASSERT_EQ(0, audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 1, 0));
	snprintf(self->prefix, sizeof(self->prefix), "audit_kauditd_test_%d_",
		 getpid());
	self->ready = true;
}

FIXTURE_TEARDOWN(kauditd)
{
	if (self->nl.fd <= 0)
		return;
	if (self->backlog_changed &&
	    set_backlog_limit(&self->nl, self->saved.backlog_limit))
		fprintf(stderr, "# could not restore backlog_limit %u\n",
			self->saved.backlog_limit);
	if (!self->saved.enabled)
		audit_set_status(&self->nl, AUDIT_STATUS_ENABLED, 0, 0);
	audit_records_clear(&self->nl);
	close(self->nl.fd);
}

/*
 * With no daemon, a record is in the kernel log or counted lost. Records
 * other processes make may be lost as well, hence at least, not exactly.
 */
TEST_F(kauditd, no_daemon_printed_or_counted)
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

/*
 * A daemon that reads too slowly: kauditd's sends fail with -EAGAIN once
 * its socket is full. With room in the queues, every record reaches the
 * daemon when it reads, and none is lost.
 */
TEST_F(kauditd, slow_daemon_delivered_or_counted)
{
	struct audit_nl d;
	int rcvbuf = 1, overruns = 0, delivered = 0, round, i, ret;
	char kick[96];
	__u32 lost0, lost1;

	if (!self->ready)
		SKIP(return, "see the fixture's setup");
	if (self->saved.rate_limit)
		SKIP(return, "rate_limit is set: messages beyond it are dropped");
	/* 0 is no limit */
	if (self->saved.backlog_limit &&
	    self->saved.backlog_limit < KAUDITD_BACKLOG) {
		ASSERT_EQ(0, set_backlog_limit(&self->nl, KAUDITD_BACKLOG));
		self->backlog_changed = true;
	}
	ASSERT_EQ(0, kauditd_idle(&self->nl));
	ASSERT_EQ(0, lost_count(&self->nl, &lost0));
	ASSERT_EQ(0, audit_open(&d));
	/* the kernel rounds this up to its smallest receive buffer */
	ASSERT_EQ(0, setsockopt(d.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				sizeof(rcvbuf)));
	ret = audit_set_status(&d, AUDIT_STATUS_PID, 0, getpid());
	if (ret == -EEXIST) {
		close(d.fd);
		SKIP(return, "another audit daemon registered meanwhile");
	}
	ASSERT_EQ(0, ret);

	ret = send_messages(&self->nl, self->prefix, KAUDITD_MSGS);
	EXPECT_EQ(0, ret);
	/*
	 * Before the daemon reads: kauditd moves what its socket cannot take
	 * to the retry queue, and a new record makes it send that queue
	 * again while the socket is still full.
	 */
	ASSERT_EQ(0, kauditd_idle(&self->nl));
	snprintf(kick, sizeof(kick), "audit_kauditd_test_kick");
	ASSERT_EQ(0, audit_request(&self->nl, AUDIT_USER, kick,
				   strlen(kick) + 1, 0, NULL, 0));
	ASSERT_EQ(0, kauditd_idle(&self->nl));

	/*
	 * Read what reached the daemon. kauditd sends what it requeued only
	 * when a new record wakes it: send one, read, until nothing new comes.
	 */
	for (round = 0; round < 50; round++) {
		int before = delivered;

		for (;;) {
			ret = audit_recv_one(&d, 200, NULL, 0, NULL);
			if (ret == -ENOBUFS) {
				overruns++;
				continue;
			}
			if (ret <= 0)
				break;
		}
		for (i = 0; i < d.nrec; i++)
			mark_seen(d.rec[i].text, self->prefix, self->seen);
		audit_records_clear(&d);
		delivered = count_seen(self->seen);
		if (round && delivered == before)
			break;
		snprintf(kick, sizeof(kick), "audit_kauditd_test_kick_%d", round);
		ASSERT_EQ(0, audit_request(&self->nl, AUDIT_USER, kick,
					   strlen(kick) + 1, 0, NULL, 0));
	}
	ASSERT_EQ(0, lost_count(&self->nl, &lost1));
	ret = audit_set_status(&d, AUDIT_STATUS_PID, 0, 0);
	audit_records_clear(&d);
	close(d.fd);
	EXPECT_EQ(0, ret);

	TH_LOG("%d messages: %d reached the daemon (%d overruns), lost went up by %u",
	       KAUDITD_MSGS, delivered, overruns, lost1 - lost0);
	if (!overruns && delivered == KAUDITD_MSGS)
		SKIP(return, "the daemon's socket never filled");
	EXPECT_EQ(KAUDITD_MSGS, delivered);
	EXPECT_EQ(0, lost1 - lost0);
}

TEST_HARNESS_MAIN
