// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftest helpers, built once and linked into every test: a
 * netlink client for the audit protocol, a record parser, rule builders
 * and the test's audit daemon session. See audit_common.h.
 */

#include "audit_common.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ---------- the kernel command line ---------- */

/*
 * The value of kernel parameter @name ("audit" for audit=...) in
 * /proc/cmdline, copied to @val (at most @size bytes), or false when the
 * kernel was booted without it.
 */
bool audit_cmdline_param(const char *name, char *val, size_t size)
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

/* ---------- records ---------- */

void audit_record_free(struct audit_record *r)
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

void audit_records_clear(struct audit_nl *nl)
{
	int i;

	for (i = 0; i < nl->nrec; i++)
		audit_record_free(&nl->rec[i]);
	nl->nrec = 0;
}

/* "audit(1700000000.123:456): a=b c="d e" f='g h'" -> serial + fields */
void audit_record_parse(struct audit_record *r)
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
const char *audit_field(const struct audit_record *r, const char *key)
{
	int i;

	for (i = 0; i < r->nfields; i++)
		if (!strcmp(r->fields[i].key, key))
			return r->fields[i].val;
	return NULL;
}

bool audit_field_is(const struct audit_record *r, const char *key,
		    const char *val)
{
	const char *v = audit_field(r, key);

	return v && !strcmp(v, val);
}

bool audit_field_is_num(const struct audit_record *r, const char *key,
			long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", val);
	return audit_field_is(r, key, buf);
}

/* ---------- netlink ---------- */

int audit_open(struct audit_nl *nl)
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

int audit_send_raw(struct audit_nl *nl, int type, int flags,
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
 * Wait for the next control message (ack, reply, DONE) that answers request
 * @seq, into @nh (@size bytes); records that arrive meanwhile are queued.
 * Returns 0, or a negative errno (-ETIMEDOUT: no message at all for
 * AUDIT_WAIT_MS).
 */
static int audit_next_answer(struct audit_nl *nl, __u32 seq,
			     struct nlmsghdr *nh, size_t size)
{
	for (;;) {
		bool got = false;
		int ret = audit_recv_one(nl, AUDIT_WAIT_MS, nh, size, &got);

		if (ret < 0)
			return ret;
		if (!ret)
			return -ETIMEDOUT;
		if (got && nh->nlmsg_seq == seq)
			return 0;
	}
}

/*
 * Send a request and wait for its acknowledgment. A reply of @reply_type
 * (0: none expected) is copied to @reply. Records that arrive meanwhile are
 * queued. Returns 0 or the negative errno the kernel answered with.
 */
int audit_request(struct audit_nl *nl, int type, const void *data,
		  size_t len, int reply_type, void *reply,
		  size_t reply_len)
{
	static union { struct nlmsghdr h; char b[1 << 16]; } u;
	struct nlmsghdr *nh = &u.h;
	bool acked = false, replied = !reply_type;
	int ret, err = 0;
	__u32 seq;

	ret = audit_send_raw(nl, type, NLM_F_ACK, data, len);
	if (ret)
		return ret;
	seq = nl->seq;
	while (!acked || !replied) {
		ret = audit_next_answer(nl, seq, nh, sizeof(u));
		if (ret)
			return ret;
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
int audit_recv_one(struct audit_nl *nl, int timeout_ms,
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
	len = recv(nl->fd, buf, sizeof(u), MSG_TRUNC);
	if (len < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (len > (ssize_t)sizeof(u))
		return -EMSGSIZE;	/* a message larger than any we expect */
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

int audit_get_status(struct audit_nl *nl, struct audit_status *s)
{
	memset(s, 0, sizeof(*s));
	return audit_request(nl, AUDIT_GET, NULL, 0, AUDIT_GET, s, sizeof(*s));
}

int audit_set_status(struct audit_nl *nl, __u32 mask, __u32 enabled,
		     __u32 pid)
{
	struct audit_status s = {
		.mask = mask, .enabled = enabled, .pid = pid,
	};

	return audit_request(nl, AUDIT_SET, &s, sizeof(s), 0, NULL, 0);
}

/* ---------- rules ---------- */

struct audit_rule audit_rule_new(__u32 list, __u32 action)
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

void audit_rule_free(struct audit_rule *r)
{
	free(r->d);
	r->d = NULL;
}

void audit_rule_syscall(struct audit_rule *r, int nr)
{
	if (nr < 0 || nr >= AUDIT_BITMASK_SIZE * 32)
		abort();	/* the test's own mistake */
	r->d->mask[nr / 32] |= 1U << (nr % 32);
}

void audit_rule_all_syscalls(struct audit_rule *r)
{
	memset(r->d->mask, 0xff, sizeof(r->d->mask));
}

void audit_rule_field(struct audit_rule *r, __u32 field, __u32 op,
		      __u32 val)
{
	__u32 i = r->d->field_count++;

	r->d->fields[i] = field;
	r->d->fieldflags[i] = op;
	r->d->values[i] = val;
}

void audit_rule_str(struct audit_rule *r, __u32 field, __u32 op,
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
struct audit_rule audit_exit_rule(__u32 action, int nr, pid_t pid,
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

int audit_rule_send(struct audit_nl *nl, int type,
		    const struct audit_rule *r)
{
	return audit_request(nl, type, r->d, r->size, 0, NULL, 0);
}

/*
 * Remember @r, added or about to be added by another task, so that
 * audit_end() deletes it. Takes ownership of @r.
 */
void audit_track(struct audit_nl *nl, struct audit_rule *r)
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
int audit_add(struct audit_nl *nl, struct audit_rule *r)
{
	int ret = audit_rule_send(nl, AUDIT_ADD_RULE, r);

	if (!ret)
		audit_track(nl, r);
	else
		audit_rule_free(r);
	return ret;
}

/* Delete the @idx'th rule added with audit_add() (-1: the last one). */
int audit_del(struct audit_nl *nl, int idx)
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
int audit_list_rules(struct audit_nl *nl, struct audit_rule *out,
		     int max)
{
	static union { struct nlmsghdr h; char b[1 << 16]; } u;
	struct nlmsghdr *nh = &u.h;
	int n = 0, ret;
	bool acked = false, done = false;
	__u32 seq;

	ret = audit_send_raw(nl, AUDIT_LIST_RULES, NLM_F_ACK, NULL, 0);
	if (ret)
		return ret;
	seq = nl->seq;
	while (!acked || !done) {
		ret = audit_next_answer(nl, seq, nh, sizeof(u));
		if (ret)
			return ret;
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

/* ---------- waiting for records ---------- */

long audit_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Read records until @timeout_ms passes with nothing new. */
void audit_drain(struct audit_nl *nl, int quiet_ms)
{
	while (audit_recv_one(nl, quiet_ms, NULL, 0, NULL) > 0)
		;
}

/* Index of the first queued record from @from on that matches, or -1. */
int audit_find(struct audit_nl *nl, int from, audit_match_fn fn,
	       const void *arg)
{
	int i;

	for (i = from; i < nl->nrec; i++)
		if (fn(&nl->rec[i], arg))
			return i;
	return -1;
}

/* Wait up to @timeout_ms for a matching record; returns its index or -1. */
int audit_wait_for(struct audit_nl *nl, audit_match_fn fn,
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

bool audit_match_marker(const struct audit_record *r, const void *arg)
{
	return r->type == AUDIT_USER && audit_field_is(r, "msg", arg);
}

/* Print queued records, for a failing test's log. */
void audit_dump(struct audit_nl *nl)
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
int audit_sync(struct audit_nl *nl)
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
int audit_event(struct audit_nl *nl, unsigned long serial,
		const struct audit_record **out, int max)
{
	int i, n = 0;

	for (i = 0; i < nl->nrec && n < max; i++)
		if (nl->rec[i].serial == serial)
			out[n++] = &nl->rec[i];
	return n;
}

bool audit_match_syscall(const struct audit_record *r, const void *arg)
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
const struct audit_record *audit_syscall_record(struct audit_nl *nl,
						int nr, pid_t pid,
						const char *key)
{
	struct audit_syscall_match m = { .nr = nr, .pid = pid, .key = key };
	int i = audit_find(nl, 0, audit_match_syscall, &m);

	return i < 0 ? NULL : &nl->rec[i];
}

int audit_count_syscall(struct audit_nl *nl, int nr, pid_t pid)
{
	struct audit_syscall_match m = { .nr = nr, .pid = pid };
	int i, n = 0;

	for (i = 0; i < nl->nrec; i++)
		n += audit_match_syscall(&nl->rec[i], &m);
	return n;
}

/* Record of @type in event @serial, or NULL. @nth counts from 0. */
const struct audit_record *audit_event_record(struct audit_nl *nl,
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
const struct audit_record *audit_path_record(struct audit_nl *nl,
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

/* the settings audit_register() saves and audit_end() puts back */
static __u32 *audit_status_field(struct audit_status *s, __u32 mask)
{
	switch (mask) {
	case AUDIT_STATUS_ENABLED: return &s->enabled;
	case AUDIT_STATUS_FAILURE: return &s->failure;
	case AUDIT_STATUS_RATE_LIMIT: return &s->rate_limit;
	case AUDIT_STATUS_BACKLOG_LIMIT: return &s->backlog_limit;
	case AUDIT_STATUS_BACKLOG_WAIT_TIME: return &s->backlog_wait_time;
	}
	return NULL;
}

/*
 * The order audit_end() puts them back in. Each change logs a record, which
 * the restored rate limit counts, and a record over it is lost, which a
 * failure mode of panic makes fatal: the rate limit and the failure mode go
 * last, so that the changes' own records are logged before both are back.
 * (Records still queued to kauditd, and those of our syscalls that the
 * restored rules match, come after them: with failure=2, a rate limit
 * and no daemon, those may still be lost, as any record may.)
 */
static const __u32 audit_saved_settings[] = {
	AUDIT_STATUS_BACKLOG_LIMIT, AUDIT_STATUS_BACKLOG_WAIT_TIME,
	AUDIT_STATUS_ENABLED, AUDIT_STATUS_RATE_LIMIT, AUDIT_STATUS_FAILURE,
};

/* Set the one setting @mask of audit_status to @val. */
static int audit_set_setting(struct audit_nl *nl, __u32 mask, __u32 val)
{
	struct audit_status s = { .mask = mask };

	*audit_status_field(&s, mask) = val;
	return audit_request(nl, AUDIT_SET, &s, sizeof(s), 0, NULL, 0);
}

static void audit_free_rules(struct audit_rule *rules, int n)
{
	while (rules && n-- > 0)
		free(rules[n].d);
	free(rules);
}

/*
 * Every loaded rule, in list order, into a new array *@out; returns how
 * many, or a negative errno (and *@out is NULL).
 */
static int audit_list_all_rules(struct audit_nl *nl, struct audit_rule **out)
{
	int n, max = 0, tries;

	*out = NULL;
	for (tries = 0; tries < 4; tries++) {
		n = audit_list_rules(nl, *out, max);
		if (n >= 0 && n <= max)
			return n;
		/* too many for the room, or an error: list again */
		audit_free_rules(*out, max);
		*out = NULL;
		if (n < 0) {
			max = 0;
			audit_drain(nl, 20);
			continue;
		}
		max = n + 16;
		*out = calloc(max, sizeof(**out));
		if (!*out)
			return -ENOMEM;
	}
	audit_free_rules(*out, max);
	*out = NULL;
	return n < 0 ? n : -EAGAIN;
}

/* Delete every loaded rule; returns how many were deleted or -errno. */
int audit_flush_rules(struct audit_nl *nl)
{
	struct audit_rule *rules;
	int n, i, ret = 0;

	n = audit_list_all_rules(nl, &rules);
	for (i = 0; i < n; i++) {
		int err = audit_rule_send(nl, AUDIT_DEL_RULE, &rules[i]);

		if (err && !ret)
			ret = err;
	}
	audit_free_rules(rules, n);
	return ret ? ret : n;
}

static bool audit_same_rules(const struct audit_rule *a, int na,
			     const struct audit_rule *b, int nb)
{
	int i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (a[i].size != b[i].size || memcmp(a[i].d, b[i].d, a[i].size))
			return false;
	return true;
}

/* Put back the rules audit_register() saved; returns how many steps failed. */
static int audit_restore_rules(struct audit_nl *nl)
{
	struct audit_rule *now;
	int n, i, ret, failed = 0;

	n = audit_list_all_rules(nl, &now);
	if (n < 0) {
		fprintf(stderr, "# audit: listing the rules: %s\n", strerror(-n));
		return 1;
	}
	if (audit_same_rules(now, n, nl->saved_rules, nl->nsaved_rules)) {
		audit_free_rules(now, n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		ret = audit_rule_send(nl, AUDIT_DEL_RULE, &now[i]);
		if (ret) {
			fprintf(stderr, "# audit: deleting rule %d: %s\n",
				i, strerror(-ret));
			failed++;
		}
	}
	audit_free_rules(now, n);
	/*
	 * Listed in the order each list matches them: each goes in front,
	 * the last first. (The kernel's duplicate check misses a rule added
	 * in front, so the list may hold one twice; this way it does again.)
	 */
	for (i = nl->nsaved_rules; i-- > 0; ) {
		struct audit_rule *r = &nl->saved_rules[i];

		r->d->flags |= AUDIT_FILTER_PREPEND;
		ret = audit_rule_send(nl, AUDIT_ADD_RULE, r);
		r->d->flags &= ~AUDIT_FILTER_PREPEND;
		if (ret) {
			fprintf(stderr, "# audit: restoring rule %d: %s\n",
				i, strerror(-ret));
			failed++;
		}
	}
	return failed;
}

/* Put back each setting that differs; returns how many failed. */
static int audit_restore_settings(struct audit_nl *nl)
{
	struct audit_status s;
	unsigned int i;
	int ret, failed = 0;

	ret = audit_get_status(nl, &s);
	if (ret) {
		fprintf(stderr, "# audit: reading the settings: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(audit_saved_settings); i++) {
		__u32 m = audit_saved_settings[i];
		__u32 was = *audit_status_field(&nl->saved_status, m);

		if (*audit_status_field(&s, m) == was)
			continue;
		ret = audit_set_setting(nl, m, was);
		if (ret) {
			fprintf(stderr, "# audit: restoring setting %#x: %s\n",
				m, strerror(-ret));
			failed++;
		}
	}
	return failed;
}

/* @pid runs (a zombie does not: its sockets are closed) */
static bool audit_pid_alive(pid_t pid)
{
	char path[32], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	/* "pid (comm) S ...": comm may hold spaces and parentheses */
	p = strrchr(buf, ')');
	return !p || (p[1] != ' ' || (p[2] != 'Z' && p[2] != 'X'));
}

static void audit_forget_saved(struct audit_nl *nl)
{
	audit_free_rules(nl->saved_rules, nl->nsaved_rules);
	nl->saved_rules = NULL;
	nl->nsaved_rules = 0;
	nl->saved = false;
}

#define audit_skip_because(nl, ...) \
	snprintf((nl)->skip_reason, sizeof((nl)->skip_reason), __VA_ARGS__)

/*
 * Save the rules and settings, then become the audit daemon with auditing
 * enabled; the rules stay as they are. Returns 0, or a negative errno;
 * when the error means that the test cannot run here (no audit, no
 * CAP_AUDIT_CONTROL, another audit daemon, a locked configuration),
 * nl->skip_reason says why, and nothing was changed.
 */
int audit_register(struct audit_nl *nl)
{
	struct audit_status *s = &nl->saved_status;
	int ret = audit_open(nl), tries;

	if (ret == -EPROTONOSUPPORT)
		audit_skip_because(nl, "no audit (CONFIG_AUDIT=n or audit=0)");
	if (ret)
		goto out;
	ret = audit_get_status(nl, s);
	if (ret == -EPERM || ret == -ECONNREFUSED)
		audit_skip_because(nl, "needs CAP_AUDIT_CONTROL in the initial namespaces");
	if (ret)
		goto out;
	if (s->enabled == 2) {	/* AUDIT_LOCKED */
		audit_skip_because(nl, "the audit configuration is locked (enabled=2)");
		ret = -EPERM;
		goto out;
	}
	if (s->pid && audit_pid_alive(s->pid)) {
		audit_skip_because(nl, "pid %u is the audit daemon", s->pid);
		ret = -EEXIST;
		goto out;
	}
	ret = audit_list_all_rules(nl, &nl->saved_rules);
	if (ret < 0)
		goto out;
	nl->nsaved_rules = ret;
	nl->saved = true;

	/*
	 * A registered daemon that died is replaced: the kernel probes it
	 * first (AUDIT_REPLACE), and its socket is gone. Should the probe
	 * still find it, a record that kauditd fails to send resets it
	 * (with auditing on: a disabled kernel drops our user message).
	 */
	for (tries = 0; tries < 50; tries++) {
		struct audit_status now;

		ret = audit_set_status(nl, AUDIT_STATUS_PID, 0, getpid());
		if (ret != -EEXIST)
			break;
		/* a daemon that came meanwhile */
		if (!audit_get_status(nl, &now) && now.pid &&
		    audit_pid_alive(now.pid)) {
			audit_skip_because(nl, "pid %u is the audit daemon", now.pid);
			break;
		}
		audit_request(nl, AUDIT_USER, "selftest_wake", 14, 0, NULL, 0);
		usleep(100000);
	}
	if (ret)
		goto out;
	ret = audit_set_status(nl, AUDIT_STATUS_ENABLED, 1, 0);
	if (!ret)
		return 0;
	audit_set_status(nl, AUDIT_STATUS_PID, 0, 0);
	audit_restore_settings(nl);
out:
	audit_forget_saved(nl);
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
	return ret;
}

/*
 * Become the audit daemon with auditing enabled and an empty rule list.
 * For the test's records' sake, a rate limit is lifted and a failure mode
 * of panic lowered to printk while the test runs.
 */
int audit_begin(struct audit_nl *nl)
{
	int ret = audit_register(nl);

	if (ret)
		return ret;
	if (nl->saved_status.rate_limit)
		ret = audit_set_setting(nl, AUDIT_STATUS_RATE_LIMIT, 0);
	if (!ret && nl->saved_status.failure == AUDIT_FAIL_PANIC)
		ret = audit_set_setting(nl, AUDIT_STATUS_FAILURE,
					AUDIT_FAIL_PRINTK);
	if (!ret)
		ret = audit_flush_rules(nl);
	if (ret < 0) {
		audit_end(nl);
		return ret;
	}
	audit_drain(nl, 20);
	audit_records_clear(nl);
	return 0;
}

/*
 * Put back the rules and settings audit_register() found and stop being
 * the audit daemon; returns how many steps of that failed.
 *
 * What a test that never gets here leaves stays: the harness's timeout
 * kills a test with SIGKILL, and the 6.12 harness can skip the teardown
 * after a failed assertion. Its rules name its own children, by pid or by
 * key; the next test saves them with the rest, as it finds them, and puts
 * them back after it.
 */
int audit_end(struct audit_nl *nl)
{
	int i, ret, failed = 0;

	audit_records_clear(nl);
	for (i = 0; i < nl->ntracked; i++)
		audit_rule_free(&nl->tracked[i]);
	nl->ntracked = 0;
	if (nl->saved)
		failed += audit_restore_rules(nl);
	ret = audit_set_status(nl, AUDIT_STATUS_PID, 0, 0);
	if (ret) {
		fprintf(stderr, "# audit: unregistering: %s\n", strerror(-ret));
		failed++;
	}
	if (nl->saved)
		failed += audit_restore_settings(nl);
	audit_forget_saved(nl);
	audit_records_clear(nl);
	close(nl->fd);
	nl->fd = -1;
	return failed;
}

/*
 * Run @fn(@arg) in a child process and wait for it. Returns the child's
 * pid (for pid= rules, set before the child runs @fn via @pidp) or -1.
 * The child's exit status is stored in *@status.
 */
pid_t audit_run_child(audit_child_fn fn, void *arg, int *status)
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

int audit_child_start(struct audit_child *c, audit_child_fn fn,
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
int audit_child_finish(struct audit_child *c)
{
	int status = -1;

	if (write(c->go, "g", 1) != 1)
		kill(c->pid, SIGKILL);
	close(c->go);
	waitpid(c->pid, &status, 0);
	return status;
}

/* see audit_common.h; returns 0, or the step that failed */
int audit_child_set_enabled(void *arg)
{
	struct audit_nl *nl = calloc(1, sizeof(*nl));

	if (!nl || audit_open(nl))
		return 10;
	if (audit_set_status(nl, AUDIT_STATUS_ENABLED, *(__u32 *)arg, 0))
		return 11;
	return 0;
}

bool audit_match_set_enabled(const struct audit_record *r,
			     const void *arg)
{
	return r->type == AUDIT_CONFIG_CHANGE && audit_field_is(r, "op", "set") &&
	       audit_field(r, "audit_enabled");
}

/*
 * The kernel log from now on (/dev/kmsg at its end), or -1 where it cannot
 * be read; audit_kmsg_reports() says whether a report of memory
 * corruption, a warning or an oops came since, and puts it in @line.
 */
int audit_kmsg_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

bool audit_kmsg_reports(int fd, char *line, size_t size)
{
	static const char *const marks[] = {
		"BUG:", ";BUG ", "KASAN", "UBSAN:", "double-free",
		"Object already free", "Oops", "general protection", "WARNING:",
		"Call Trace:", "INFO: task ",
	};
	/* a /dev/kmsg record (at most 8 KiB): "level,seq,time,flags;text" */
	char buf[8192];
	unsigned int i;
	ssize_t n;

	if (fd < 0)
		return false;
	for (;;) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n < 0 && errno != EAGAIN) {
			snprintf(line, size, "cannot read /dev/kmsg: %s",
				 strerror(errno));
			return true;
		}
		if (n <= 0)
			return false;
		buf[n] = 0;
		for (i = 0; i < sizeof(marks) / sizeof(*marks); i++)
			if (strstr(buf, marks[i])) {
				snprintf(line, size, "%s", buf);
				return true;
			}
	}
}
