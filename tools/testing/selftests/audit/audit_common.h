/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Audit selftest helpers: the audit netlink protocol spoken directly.
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

#if defined(__x86_64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_I386
#else
#error "add AUDIT_ARCH_NATIVE for this architecture"
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
};

/* ---------- the kernel command line ---------- */

/*
 * The value of kernel parameter @name ("audit" for audit=...) in
 * /proc/cmdline, copied to @val (at most @size bytes), or false when the
 * kernel was booted without it.
 */
static inline bool audit_cmdline_param(const char *name, char *val, size_t size)
{
	char buf[4096] = "", *p;
	size_t len = strlen(name);
	ssize_t n;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	for (p = buf; (p = strstr(p, name)); p += len) {
		if ((p != buf && p[-1] != ' ') || p[len] != '=')
			continue;
		p += len + 1;
		snprintf(val, size, "%.*s", (int)strcspn(p, "\n "), p);
		return true;
	}
	return false;
}

/* ---------- a seeded generator (splitmix64) for reproducible tests ---------- */

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

/* ---------- records ---------- */

static inline void audit_record_free(struct audit_record *r)
{
	int i;

	for (i = 0; i < r->nfields; i++) {
		free(r->fields[i].key);
		free(r->fields[i].val);
	}
	free(r->fields);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

static inline void audit_records_clear(struct audit_nl *nl)
{
	int i;

	for (i = 0; i < nl->nrec; i++)
		audit_record_free(&nl->rec[i]);
	nl->nrec = 0;
}

/* "audit(1700000000.123:456): a=b c="d e" f='g h'" -> serial + fields */
static inline void audit_record_parse(struct audit_record *r)
{
	const char *p = r->text, *k, *v;
	unsigned long sec, msec;
	int cap = 0;

	if (sscanf(p, "audit(%lu.%lu:%lu):", &sec, &msec, &r->serial) == 3)
		p = strstr(p, "): ") ? strstr(p, "): ") + 3 : p + strlen(p);
	while (*p) {
		size_t klen, vlen;

		while (*p == ' ')
			p++;
		k = p;
		while (*p && *p != '=' && *p != ' ')
			p++;
		if (*p != '=')
			continue;
		klen = p - k;
		p++;
		if (*p == '"' || *p == '\'') {
			char q = *p++;

			v = p;
			while (*p && *p != q)
				p++;
			vlen = p - v;
			if (*p)
				p++;
		} else {
			v = p;
			while (*p && *p != ' ')
				p++;
			vlen = p - v;
		}
		if (r->nfields == cap) {
			cap = cap ? cap * 2 : 16;
			r->fields = realloc(r->fields, cap * sizeof(*r->fields));
			if (!r->fields)
				abort();
		}
		r->fields[r->nfields].key = strndup(k, klen);
		r->fields[r->nfields].val = strndup(v, vlen);
		r->nfields++;
	}
}

/* Value of field @key in @r, or NULL. Quotes are stripped. */
static inline const char *audit_field(const struct audit_record *r, const char *key)
{
	int i;

	for (i = 0; i < r->nfields; i++)
		if (!strcmp(r->fields[i].key, key))
			return r->fields[i].val;
	return NULL;
}

static inline bool audit_field_is(const struct audit_record *r, const char *key,
				  const char *val)
{
	const char *v = audit_field(r, key);

	return v && !strcmp(v, val);
}

static inline bool audit_field_is_num(const struct audit_record *r, const char *key,
				      long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", val);
	return audit_field_is(r, key, buf);
}

/* ---------- netlink ---------- */

static inline int audit_recv_one(struct audit_nl *nl, int timeout_ms,
				 struct nlmsghdr *ctl, size_t ctl_size, bool *got_ctl);

static inline int audit_open(struct audit_nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int rcvbuf = 4 << 20;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (nl->fd < 0)
		return -errno;
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	nl->seq = 1;
	return 0;
}

static inline int audit_send_raw(struct audit_nl *nl, int type, int flags,
				 const void *data, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	size_t total = NLMSG_SPACE(len);
	struct nlmsghdr *nh = calloc(1, total);
	ssize_t ret;

	if (!nh)
		return -ENOMEM;
	nh->nlmsg_len = NLMSG_LENGTH(len);
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | flags;
	nh->nlmsg_seq = ++nl->seq;
	if (len)
		memcpy(NLMSG_DATA(nh), data, len);
	do {
		ret = sendto(nl->fd, nh, nh->nlmsg_len, 0,
			     (struct sockaddr *)&sa, sizeof(sa));
	} while (ret < 0 && errno == EINTR);
	free(nh);
	return ret < 0 ? -errno : 0;
}

/*
 * Send a request and wait for its acknowledgment. A reply of @reply_type
 * (0: none expected) is copied to @reply. Records that arrive meanwhile are
 * queued. Returns 0 or the negative errno the kernel answered with.
 */
static inline int audit_request(struct audit_nl *nl, int type, const void *data,
				size_t len, int reply_type, void *reply,
				size_t reply_len)
{
	union { struct nlmsghdr h; char b[8192]; } u;
	struct nlmsghdr *nh = &u.h;
	bool acked = false, replied = !reply_type;
	int ret, err = 0;
	__u32 seq;

	ret = audit_send_raw(nl, type, NLM_F_ACK, data, len);
	if (ret)
		return ret;
	seq = nl->seq;
	while (!acked || !replied) {
		bool got = false;

		ret = audit_recv_one(nl, AUDIT_WAIT_MS, nh, sizeof(u), &got);
		if (ret < 0)
			return ret;
		if (!ret)
			return -ETIMEDOUT;
		if (!got || nh->nlmsg_seq != seq)
			continue;
		if (nh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(nh);

			acked = true;
			err = e->error;
			if (err)
				return err;
		} else if (nh->nlmsg_type == reply_type) {
			size_t n = nh->nlmsg_len - NLMSG_HDRLEN;

			memcpy(reply, NLMSG_DATA(nh), n < reply_len ? n : reply_len);
			replied = true;
		}
	}
	return err;
}

/*
 * Receive one netlink message. Control messages (acks, replies, DONE) go to
 * @ctl with *got_ctl set; records are appended to nl->rec. Returns 1 when a
 * message was handled, 0 on timeout, negative errno on error.
 */
static inline int audit_recv_one(struct audit_nl *nl, int timeout_ms,
				 struct nlmsghdr *ctl, size_t ctl_size, bool *got_ctl)
{
	static union { struct nlmsghdr h; char b[1 << 16]; } u;
	char *buf = u.b;
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	struct nlmsghdr *nh;
	ssize_t len;
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (!ret)
		return 0;
	len = recv(nl->fd, buf, sizeof(u), 0);
	if (len < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len);
	     nh = NLMSG_NEXT(nh, len)) {
		struct audit_record *r;
		size_t plen;

		/*
		 * Replies and acks carry the request's sequence number;
		 * records from kauditd carry 0 (and may have low types,
		 * such as AUDIT_USER).
		 */
		if (nh->nlmsg_seq || nh->nlmsg_type < NLMSG_MIN_TYPE) {
			if (ctl && nh->nlmsg_len <= ctl_size) {
				memcpy(ctl, nh, nh->nlmsg_len);
				*got_ctl = true;
			}
			continue;
		}
		if (nl->nrec == AUDIT_MAX_RECORDS) {
			fprintf(stderr, "# audit: record buffer full, dropping\n");
			continue;
		}
		r = &nl->rec[nl->nrec++];
		memset(r, 0, sizeof(*r));
		r->type = nh->nlmsg_type;
		/*
		 * kauditd sends one record per message and sets nlmsg_len
		 * to the payload length alone: take what was received.
		 */
		plen = buf + len - (char *)NLMSG_DATA(nh);
		r->text = strndup(NLMSG_DATA(nh), plen);
		audit_record_parse(r);
		break;
	}
	return 1;
}

static inline int audit_get_status(struct audit_nl *nl, struct audit_status *s)
{
	memset(s, 0, sizeof(*s));
	return audit_request(nl, AUDIT_GET, NULL, 0, AUDIT_GET, s, sizeof(*s));
}

static inline int audit_set_status(struct audit_nl *nl, __u32 mask, __u32 enabled,
				   __u32 pid)
{
	struct audit_status s = {
		.mask = mask, .enabled = enabled, .pid = pid,
	};

	return audit_request(nl, AUDIT_SET, &s, sizeof(s), 0, NULL, 0);
}

/* ---------- rules ---------- */

static inline struct audit_rule audit_rule_new(__u32 list, __u32 action)
{
	struct audit_rule r;

	r.size = sizeof(*r.d);
	r.d = calloc(1, r.size);
	if (!r.d)
		abort();
	r.d->flags = list;
	r.d->action = action;
	return r;
}

static inline void audit_rule_free(struct audit_rule *r)
{
	free(r->d);
	r->d = NULL;
}

static inline void audit_rule_syscall(struct audit_rule *r, int nr)
{
	r->d->mask[nr / 32] |= 1U << (nr % 32);
}

static inline void audit_rule_all_syscalls(struct audit_rule *r)
{
	memset(r->d->mask, 0xff, sizeof(r->d->mask));
}

static inline void audit_rule_field(struct audit_rule *r, __u32 field, __u32 op,
				    __u32 val)
{
	__u32 i = r->d->field_count++;

	r->d->fields[i] = field;
	r->d->fieldflags[i] = op;
	r->d->values[i] = val;
}

static inline void audit_rule_str(struct audit_rule *r, __u32 field, __u32 op,
				  const char *s)
{
	size_t len = strlen(s);
	__u32 i = r->d->field_count++;

	r->d = realloc(r->d, r->size + len);
	if (!r->d)
		abort();
	memcpy(r->d->buf + r->d->buflen, s, len);
	r->d->buflen += len;
	r->size += len;
	r->d->fields[i] = field;
	r->d->fieldflags[i] = op;
	r->d->values[i] = len;
}

/* an exit rule for @nr on the native arch, limited to @pid when non-zero */
static inline struct audit_rule audit_exit_rule(__u32 action, int nr, pid_t pid,
						const char *key)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_EXIT, action);

	audit_rule_field(&r, AUDIT_ARCH, AUDIT_EQUAL, AUDIT_ARCH_NATIVE);
	if (nr >= 0)
		audit_rule_syscall(&r, nr);
	else
		audit_rule_all_syscalls(&r);
	if (pid)
		audit_rule_field(&r, AUDIT_PID, AUDIT_EQUAL, pid);
	if (key)
		audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, key);
	return r;
}

static inline int audit_rule_send(struct audit_nl *nl, int type,
				  const struct audit_rule *r)
{
	return audit_request(nl, type, r->d, r->size, 0, NULL, 0);
}

/*
 * Remember @r, added or about to be added by another task, so that
 * audit_end() deletes it. Takes ownership of @r.
 */
static inline void audit_track(struct audit_nl *nl, struct audit_rule *r)
{
	if (nl->ntracked < AUDIT_MAX_TRACKED) {
		/* the kernel stores (and matches deletes) without PREPEND */
		r->d->flags &= ~AUDIT_FILTER_PREPEND;
		nl->tracked[nl->ntracked++] = *r;
	} else {
		audit_rule_free(r);
	}
	r->d = NULL;
}

/* Add @r and remember it for audit_end(). Takes ownership of @r. */
static inline int audit_add(struct audit_nl *nl, struct audit_rule *r)
{
	int ret = audit_rule_send(nl, AUDIT_ADD_RULE, r);

	if (!ret)
		audit_track(nl, r);
	else
		audit_rule_free(r);
	return ret;
}

/* Delete the @idx'th rule added with audit_add() (-1: the last one). */
static inline int audit_del(struct audit_nl *nl, int idx)
{
	int ret;

	if (idx < 0)
		idx = nl->ntracked - 1;
	if (idx < 0 || idx >= nl->ntracked || !nl->tracked[idx].d)
		return -ENOENT;
	ret = audit_rule_send(nl, AUDIT_DEL_RULE, &nl->tracked[idx]);
	if (!ret)
		audit_rule_free(&nl->tracked[idx]);
	return ret;
}

/*
 * List the loaded rules. Copies up to @max into @out (caller frees each
 * .d) and returns how many rules the kernel has, or a negative errno.
 */
static inline int audit_list_rules(struct audit_nl *nl, struct audit_rule *out,
				   int max)
{
	union { struct nlmsghdr h; char b[16384]; } u;
	struct nlmsghdr *nh = &u.h;
	int n = 0, ret;
	bool acked = false, done = false;
	__u32 seq;

	ret = audit_send_raw(nl, AUDIT_LIST_RULES, NLM_F_ACK, NULL, 0);
	if (ret)
		return ret;
	seq = nl->seq;
	while (!acked || !done) {
		bool got = false;

		ret = audit_recv_one(nl, AUDIT_WAIT_MS, nh, sizeof(u), &got);
		if (ret < 0)
			return ret;
		if (!ret)
			return -ETIMEDOUT;
		if (!got || nh->nlmsg_seq != seq)
			continue;
		if (nh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(nh);

			if (e->error)
				return e->error;
			acked = true;
		} else if (nh->nlmsg_type == NLMSG_DONE) {
			done = true;
		} else if (nh->nlmsg_type == AUDIT_LIST_RULES) {
			size_t len = nh->nlmsg_len - NLMSG_HDRLEN;

			if (out && n < max) {
				out[n].d = malloc(len);
				if (!out[n].d)
					abort();
				memcpy(out[n].d, NLMSG_DATA(nh), len);
				out[n].size = len;
			}
			n++;
		}
	}
	return n;
}

/* Delete every loaded rule; returns how many were deleted or -errno. */
static inline int audit_flush_rules(struct audit_nl *nl)
{
	struct audit_rule rules[256];
	int n, i, ret = 0;

	n = audit_list_rules(nl, rules, 256);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < 256; i++) {
		int err = audit_rule_send(nl, AUDIT_DEL_RULE, &rules[i]);

		if (err && !ret)
			ret = err;
		free(rules[i].d);
	}
	return ret ? ret : n;
}

/* ---------- waiting for records ---------- */

static inline long audit_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Read records until @timeout_ms passes with nothing new. */
static inline void audit_drain(struct audit_nl *nl, int quiet_ms)
{
	while (audit_recv_one(nl, quiet_ms, NULL, 0, NULL) > 0)
		;
}

typedef bool (*audit_match_fn)(const struct audit_record *r, const void *arg);

/* Index of the first queued record from @from on that matches, or -1. */
static inline int audit_find(struct audit_nl *nl, int from, audit_match_fn fn,
			     const void *arg)
{
	int i;

	for (i = from; i < nl->nrec; i++)
		if (fn(&nl->rec[i], arg))
			return i;
	return -1;
}

/* Wait up to @timeout_ms for a matching record; returns its index or -1. */
static inline int audit_wait_for(struct audit_nl *nl, audit_match_fn fn,
				 const void *arg, int timeout_ms)
{
	struct timespec t0;
	int i, from = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		i = audit_find(nl, from, fn, arg);
		if (i >= 0)
			return i;
		from = nl->nrec;
		if (audit_ms_since(&t0) >= timeout_ms)
			return -1;
		if (audit_recv_one(nl, 50, NULL, 0, NULL) < 0)
			return -1;
	}
}

static inline bool audit_match_marker(const struct audit_record *r, const void *arg)
{
	return r->type == AUDIT_USER && audit_field_is(r, "msg", arg);
}

/* Print queued records, for a failing test's log. */
static inline void audit_dump(struct audit_nl *nl)
{
	int i;

	for (i = 0; i < nl->nrec; i++)
		fprintf(stderr, "#   record type=%d %s\n", nl->rec[i].type,
			nl->rec[i].text);
}

/*
 * Emit a user message and read every record queued before it. Returns the
 * index of the marker record (records before it are complete), or -1.
 */
static inline int audit_sync(struct audit_nl *nl)
{
	char msg[64];
	int ret;

	snprintf(msg, sizeof(msg), "audit_selftest_marker_%d_%u", getpid(),
		 ++nl->marker);
	ret = audit_request(nl, AUDIT_USER, msg, strlen(msg) + 1, 0, NULL, 0);
	if (ret) {
		fprintf(stderr, "# audit: sending the marker failed: %s\n",
			strerror(-ret));
		return -1;
	}
	ret = audit_wait_for(nl, audit_match_marker, msg, AUDIT_WAIT_MS);
	if (ret < 0) {
		fprintf(stderr, "# audit: marker %s not seen in %d record(s):\n",
			msg, nl->nrec);
		audit_dump(nl);
	}
	return ret;
}

/* Records of event @serial, in arrival order, into @out (max @max). */
static inline int audit_event(struct audit_nl *nl, unsigned long serial,
			      const struct audit_record **out, int max)
{
	int i, n = 0;

	for (i = 0; i < nl->nrec && n < max; i++)
		if (nl->rec[i].serial == serial)
			out[n++] = &nl->rec[i];
	return n;
}

struct audit_syscall_match {
	int nr;			/* syscall number, -1: any */
	pid_t pid;		/* 0: any */
	const char *key;	/* NULL: any */
};

static inline bool audit_match_syscall(const struct audit_record *r, const void *arg)
{
	const struct audit_syscall_match *m = arg;

	if (r->type != AUDIT_SYSCALL)
		return false;
	if (m->nr >= 0 && !audit_field_is_num(r, "syscall", m->nr))
		return false;
	if (m->pid && !audit_field_is_num(r, "pid", m->pid))
		return false;
	if (m->key && !audit_field_is(r, "key", m->key))
		return false;
	return true;
}

/*
 * After audit_sync(): the SYSCALL record of syscall @nr by @pid queued
 * before the marker, or NULL.
 */
static inline const struct audit_record *audit_syscall_record(struct audit_nl *nl,
							      int nr, pid_t pid,
							      const char *key)
{
	struct audit_syscall_match m = { .nr = nr, .pid = pid, .key = key };
	int i = audit_find(nl, 0, audit_match_syscall, &m);

	return i < 0 ? NULL : &nl->rec[i];
}

static inline int audit_count_syscall(struct audit_nl *nl, int nr, pid_t pid)
{
	struct audit_syscall_match m = { .nr = nr, .pid = pid };
	int i, n = 0;

	for (i = 0; i < nl->nrec; i++)
		n += audit_match_syscall(&nl->rec[i], &m);
	return n;
}

/* Record of @type in event @serial, or NULL. @nth counts from 0. */
static inline const struct audit_record *audit_event_record(struct audit_nl *nl,
							    unsigned long serial,
							    int type, int nth)
{
	int i;

	for (i = 0; i < nl->nrec; i++)
		if (nl->rec[i].serial == serial && nl->rec[i].type == type &&
		    nth-- == 0)
			return &nl->rec[i];
	return NULL;
}

/* PATH record of event @serial whose name= is @name (unquoted), or NULL */
static inline const struct audit_record *audit_path_record(struct audit_nl *nl,
							   unsigned long serial,
							   const char *name)
{
	int i;

	for (i = 0; i < nl->nrec; i++)
		if (nl->rec[i].serial == serial &&
		    nl->rec[i].type == AUDIT_PATH &&
		    audit_field_is(&nl->rec[i], "name", name))
			return &nl->rec[i];
	return NULL;
}

/* ---------- the test's audit daemon session ---------- */

/*
 * Become the audit daemon with auditing enabled; the rules stay as they are.
 * Returns 0, or a negative errno (-EPROTONOSUPPORT: no CONFIG_AUDIT).
 */
static inline int audit_register(struct audit_nl *nl)
{
	int ret = audit_open(nl), tries;

	if (ret)
		return ret;
	for (tries = 0; tries < 50; tries++) {
		struct audit_status s;

		ret = audit_set_status(nl, AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID,
				       1, getpid());
		if (ret != -EEXIST)
			break;
		/*
		 * A registered audit daemon that died is only noticed when
		 * kauditd next fails to send to it: emit a record and retry.
		 */
		if (audit_get_status(nl, &s) || !s.pid ||
		    (kill(s.pid, 0) && errno != ESRCH))
			break;
		if (!kill(s.pid, 0)) {
			fprintf(stderr, "# audit: pid %u is the audit daemon\n", s.pid);
			break;
		}
		audit_request(nl, AUDIT_USER, "selftest_wake", 14, 0, NULL, 0);
		usleep(100000);
	}
	return ret;
}

/* Become the audit daemon with auditing enabled and an empty rule list. */
static inline int audit_begin(struct audit_nl *nl)
{
	int ret = audit_register(nl);

	if (ret)
		return ret;
	ret = audit_flush_rules(nl);
	if (ret < 0)
		return ret;
	if (ret > 0)
		fprintf(stderr, "# audit: removed %d rule(s) left by an earlier test\n",
			ret);
	audit_drain(nl, 20);
	audit_records_clear(nl);
	return 0;
}

/* Delete this test's rules and stop being the audit daemon. */
static inline void audit_end(struct audit_nl *nl)
{
	int i;

	int ret;

	for (i = nl->ntracked - 1; i >= 0; i--) {
		if (nl->tracked[i].d) {
			ret = audit_rule_send(nl, AUDIT_DEL_RULE, &nl->tracked[i]);
			if (ret)
				fprintf(stderr, "# audit: deleting rule %d: %s\n",
					i, strerror(-ret));
		}
		audit_rule_free(&nl->tracked[i]);
	}
	nl->ntracked = 0;
	ret = audit_set_status(nl, AUDIT_STATUS_PID, 0, 0);
	if (ret)
		fprintf(stderr, "# audit: unregistering: %s\n", strerror(-ret));
	audit_records_clear(nl);
	close(nl->fd);
	nl->fd = -1;
}

/*
 * Run @fn(@arg) in a child process and wait for it. Returns the child's
 * pid (for pid= rules, set before the child runs @fn via @pidp) or -1.
 * The child's exit status is stored in *@status.
 */
typedef int (*audit_child_fn)(void *arg);

static inline pid_t audit_run_child(audit_child_fn fn, void *arg, int *status)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	if (waitpid(pid, status, 0) != pid)
		return -1;
	return pid;
}

/*
 * A child that waits for a go signal on a pipe, so that rules can name its
 * pid before it runs its syscalls.
 */
struct audit_child {
	pid_t pid;
	int go;				/* write end */
};

static inline int audit_child_start(struct audit_child *c, audit_child_fn fn,
				    void *arg)
{
	int p[2];
	char b;

	if (pipe(p))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		/* never outlive the test, whatever way it ends */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(100);
		close(p[0]);
		_exit(fn(arg));
	}
	close(p[0]);
	c->go = p[1];
	return 0;
}

/* Let the child run; returns its exit status as from waitpid(). */
static inline int audit_child_finish(struct audit_child *c)
{
	int status = -1;

	if (write(c->go, "g", 1) != 1)
		kill(c->pid, SIGKILL);
	close(c->go);
	waitpid(c->pid, &status, 0);
	return status;
}

/*
 * A record logged during a syscall, by other code than the syscall hooks:
 * a child (audit_run_child(audit_child_set_enabled, &value, ...)) sets
 * audit_enabled to @value, the value it has, from a netlink socket of its
 * own. The kernel logs a CONFIG_CHANGE record (op=set audit_enabled=N
 * old=N) during the child's sendto() and takes the syscall's serial for
 * it. Returns 0, or the step that failed.
 */
#define AUDIT_SET_ENABLED_LEN	NLMSG_LENGTH(sizeof(struct audit_status))

static inline int audit_child_set_enabled(void *arg)
{
	struct audit_nl *nl = calloc(1, sizeof(*nl));

	if (!nl || audit_open(nl))
		return 10;
	if (audit_set_status(nl, AUDIT_STATUS_ENABLED, *(__u32 *)arg, 0))
		return 11;
	return 0;
}

static inline bool audit_match_set_enabled(const struct audit_record *r,
					   const void *arg)
{
	return r->type == AUDIT_CONFIG_CHANGE && audit_field_is(r, "op", "set") &&
	       audit_field(r, "audit_enabled");
}

#ifdef FIXTURE
/*
 * For a fixture's setup: become the audit daemon, or skip the test when
 * the kernel has no audit support. Older kselftest harnesses (6.1) run the
 * test body after a SKIP() in the setup: a fixture whose setup can skip has
 * a "ready" member it sets last, and its tests begin with
 * "if (!self->ready) SKIP(return, ...);".
 */
static inline void audit_fixture_setup(struct __test_metadata *_metadata,
				       struct audit_nl *nl)
{
	int ret = audit_begin(nl);

	if (ret == -EPROTONOSUPPORT)
		SKIP(return, "kernel without CONFIG_AUDIT");
	ASSERT_EQ(0, ret);
}

static inline void audit_fixture_teardown(struct audit_nl *nl)
{
	if (nl->fd > 0)
		audit_end(nl);
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
#endif

#endif /* _AUDIT_SELFTEST_COMMON_H */
