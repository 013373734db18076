// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: the netlink interface. Status, rule listing, and
 * malformed AUDIT_ADD_RULE payloads, which must get an error reply and
 * leave the rule list as it was.
 */

#define _GNU_SOURCE
#include <limits.h>
#include <linux/sock_diag.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

FIXTURE(netlink) {
	struct audit_nl nl;
};

FIXTURE_SETUP(netlink)
{
	audit_fixture_setup(_metadata, &self->nl);
}

FIXTURE_TEARDOWN(netlink)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

TEST_F(netlink, status)
{
	struct audit_status s;

	ASSERT_EQ(0, audit_get_status(&self->nl, &s));
	EXPECT_EQ(1, s.enabled);
	EXPECT_EQ(getpid(), s.pid);
}

/*
 * A record is charged to the daemon's receive queue by its true size. One
 * that outgrew its first buffer must be charged what its memory takes, its
 * growth once: no more than the smallest power-of-two head that holds it
 * (with room to spare for struct skb_shared_info) plus room for struct
 * sk_buff. Counted twice, a record of about 2 KiB is charged some 50% more.
 */
#define GROWN_MSG_LEN	2000

static int meminfo_rmem(int fd, __u32 *rmem)
{
	__u32 mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len))
		return -errno;
	*rmem = mi[SK_MEMINFO_RMEM_ALLOC];
	return 0;
}

/* AUDIT_USER @msg from a socket of its own; the record goes to the daemon */
static int send_user_msg(const char *msg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		char msg[GROWN_MSG_LEN + 1];
	} req = {
		.h.nlmsg_type = AUDIT_USER,
		.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack;
	int fd, ret = 0;

	snprintf(req.msg, sizeof(req.msg), "%s", msg);
	req.h.nlmsg_len = NLMSG_LENGTH(strlen(req.msg) + 1);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0 ||
	    recv(fd, &ack, sizeof(ack), 0) < (ssize_t)sizeof(ack))
		ret = -errno;
	else if (ack.h.nlmsg_type == NLMSG_ERROR)
		ret = ack.e.error;
	close(fd);
	return ret;
}

TEST_F(netlink, grown_record_charged_once)
{
	struct audit_nl *nl = &self->nl;
	char msg[GROWN_MSG_LEN + 1];
	__u32 rmem0 = 0, rmem1 = 0, bound = 1;
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	int tries, n = 0;

	memset(msg, 'g', GROWN_MSG_LEN);
	msg[GROWN_MSG_LEN] = 0;
	memcpy(msg, "selftest_grown ", 15);
	while (bound < GROWN_MSG_LEN + 100 + NLMSG_HDRLEN + 512)
		bound <<= 1;
	bound += 512;
	/* only this record may be queued when it is measured */
	for (tries = 0; tries < 5; tries++) {
		audit_drain(nl, 200);
		audit_records_clear(nl);
		ASSERT_EQ(0, meminfo_rmem(nl->fd, &rmem0));
		ASSERT_EQ(0, send_user_msg(msg));
		ASSERT_EQ(1, poll(&pfd, 1, AUDIT_WAIT_MS));
		usleep(100 * 1000);
		ASSERT_EQ(0, meminfo_rmem(nl->fd, &rmem1));
		audit_drain(nl, 200);
		n = nl->nrec;
		if (n == 1 && nl->rec[0].type == AUDIT_USER &&
		    strstr(nl->rec[0].text, "selftest_grown "))
			break;
	}
	ASSERT_EQ(1, n) {
		TH_LOG("other records kept arriving with the test's");
	}
	ASSERT_NE(NULL, strstr(nl->rec[0].text, "selftest_grown "));
	EXPECT_EQ(0U, rmem0);
	EXPECT_LE(strlen(msg), strlen(nl->rec[0].text));
	EXPECT_GE(bound, rmem1 - rmem0) {
		TH_LOG("a %zu-byte record is charged %u bytes", strlen(nl->rec[0].text),
		       rmem1 - rmem0);
	}
	EXPECT_LT(strlen(nl->rec[0].text), rmem1 - rmem0);
}

/* what was added is listed back field by field, key included */
TEST_F(netlink, list_roundtrip)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule rule, out[4];
	int n, i;

	rule = audit_exit_rule(AUDIT_ALWAYS, __NR_openat, 0, "t_roundtrip");
	audit_rule_syscall(&rule, __NR_unlinkat);
	audit_rule_field(&rule, AUDIT_UID, AUDIT_GREATER_THAN_OR_EQUAL, 1000);
	audit_rule_field(&rule, AUDIT_EXIT, AUDIT_EQUAL, -EACCES);
	ASSERT_EQ(0, audit_rule_send(nl, AUDIT_ADD_RULE, &rule));
	n = audit_list_rules(nl, out, 4);
	ASSERT_EQ(1, n);
	EXPECT_EQ(AUDIT_FILTER_EXIT, out[0].d->flags);
	EXPECT_EQ(AUDIT_ALWAYS, out[0].d->action);
	EXPECT_EQ(rule.d->field_count, out[0].d->field_count);
	EXPECT_EQ(0, memcmp(rule.d->mask, out[0].d->mask, sizeof(rule.d->mask)));
	for (i = 0; i < rule.d->field_count; i++) {
		EXPECT_EQ(rule.d->fields[i], out[0].d->fields[i]);
		EXPECT_EQ(rule.d->fieldflags[i], out[0].d->fieldflags[i]);
		EXPECT_EQ(rule.d->values[i], out[0].d->values[i]);
	}
	EXPECT_EQ(strlen("t_roundtrip"), out[0].d->buflen);
	EXPECT_EQ(0, memcmp("t_roundtrip", out[0].d->buf, out[0].d->buflen));
	free(out[0].d);
	EXPECT_EQ(0, audit_rule_send(nl, AUDIT_DEL_RULE, &rule));
	EXPECT_EQ(0, audit_list_rules(nl, NULL, 0));
	audit_rule_free(&rule);
}

TEST_F(netlink, duplicate_rule)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule a = audit_exit_rule(AUDIT_ALWAYS, __NR_openat, 0, "t_dup");
	struct audit_rule b = audit_exit_rule(AUDIT_ALWAYS, __NR_openat, 0, "t_dup");

	ASSERT_EQ(0, audit_add(nl, &a));
	EXPECT_EQ(-EEXIST, audit_rule_send(nl, AUDIT_ADD_RULE, &b));
	EXPECT_EQ(1, audit_list_rules(nl, NULL, 0));
	audit_rule_free(&b);
}

TEST_F(netlink, delete_missing_rule)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule r = audit_exit_rule(AUDIT_ALWAYS, __NR_openat, 0, "t_missing");

	EXPECT_EQ(-ENOENT, audit_rule_send(nl, AUDIT_DEL_RULE, &r));
	audit_rule_free(&r);
}

/* ---- malformed AUDIT_ADD_RULE payloads ---- */

enum bad_kind {
	BAD_SHORT, BAD_FIELD_COUNT, BAD_FIELD_ID, BAD_KEY_LEN, BAD_PATH_LEN,
	BAD_LIST, BAD_ACTION, BAD_BUFLEN, BAD_STRLEN, BAD_OP, BAD_BITOP_FIELD,
	BAD_ARCH_OP, BAD_PERM, BAD_TASK_FIELD, BAD_URING_PERM, BAD_FILETYPE,
	BAD_LOGINUID_SET, BAD_COMPARE, BAD_COMPARE_ZERO, BAD_SADDR_FAM,
};

FIXTURE(bad_rule) {
	struct audit_nl nl;
};

FIXTURE_SETUP(bad_rule)
{
	audit_fixture_setup(_metadata, &self->nl);
}

FIXTURE_TEARDOWN(bad_rule)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

FIXTURE_VARIANT(bad_rule)
{
	enum bad_kind kind;
	int err;		/* the error the kernel answers with */
};

FIXTURE_VARIANT_ADD(bad_rule, short_buffer) {
	.kind = BAD_SHORT,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, field_count_too_big) {
	.kind = BAD_FIELD_COUNT,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, unknown_field) {
	.kind = BAD_FIELD_ID,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, key_too_long) {
	.kind = BAD_KEY_LEN,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, path_too_long) {
	.kind = BAD_PATH_LEN,
	.err = -ENAMETOOLONG,
};

FIXTURE_VARIANT_ADD(bad_rule, bad_list) {
	.kind = BAD_LIST,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, bad_action) {
	.kind = BAD_ACTION,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, truncated_strings) {
	.kind = BAD_BUFLEN,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, string_past_buflen) {
	.kind = BAD_STRLEN,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, unknown_operator) {
	.kind = BAD_OP,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, bit_op_on_pid) {
	.kind = BAD_BITOP_FIELD,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, arch_lt) {
	.kind = BAD_ARCH_OP,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, msgtype_on_exit_list) {
	.kind = BAD_TASK_FIELD,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, perm_on_uring_list) {
	.kind = BAD_URING_PERM,
	.err = -EINVAL,
};

/* field values that audit_field_valid() rejects */
FIXTURE_VARIANT_ADD(bad_rule, perm_beyond_rwxa) {
	.kind = BAD_PERM,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, filetype_beyond_s_ifmt) {
	.kind = BAD_FILETYPE,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, loginuid_set_not_0_or_1) {
	.kind = BAD_LOGINUID_SET,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, field_compare_beyond_max) {
	.kind = BAD_COMPARE,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, field_compare_zero) {
	.kind = BAD_COMPARE_ZERO,
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(bad_rule, saddr_fam_beyond_af_max) {
	.kind = BAD_SADDR_FAM,
	.err = -EINVAL,
};

/*
 * The valid rule every bad payload starts from: this test adds it first,
 * so "unchanged" means exactly one rule, this one.
 */
TEST_F(bad_rule, rejected)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule good = audit_exit_rule(AUDIT_ALWAYS, __NR_openat, 0, "t_good");
	struct audit_rule r = audit_exit_rule(AUDIT_ALWAYS, __NR_unlinkat, 0, "t_bad");
	size_t len;
	char *big;
	int ret, i;

	ASSERT_EQ(0, audit_add(nl, &good));
	switch (variant->kind) {
	case BAD_SHORT:
		break;
	case BAD_FIELD_COUNT:
		r.d->field_count = AUDIT_MAX_FIELDS + 1;
		break;
	case BAD_FIELD_ID:
		audit_rule_field(&r, 999, AUDIT_EQUAL, 1);
		break;
	case BAD_KEY_LEN:
		big = malloc(AUDIT_MAX_KEY_LEN + 2);
		memset(big, 'k', AUDIT_MAX_KEY_LEN + 1);
		big[AUDIT_MAX_KEY_LEN + 1] = 0;
		audit_rule_free(&r);
		r = audit_exit_rule(AUDIT_ALWAYS, __NR_unlinkat, 0, big);
		free(big);
		break;
	case BAD_PATH_LEN:
		big = malloc(PATH_MAX + 2);
		big[0] = '/';
		memset(big + 1, 'p', PATH_MAX);
		big[PATH_MAX + 1] = 0;
		audit_rule_str(&r, AUDIT_WATCH, AUDIT_EQUAL, big);
		free(big);
		break;
	case BAD_LIST:
		r.d->flags = 9;
		break;
	case BAD_ACTION:
		r.d->action = 7;
		break;
	case BAD_BUFLEN:
		/* the message ends inside the string buffer */
		break;
	case BAD_STRLEN:
		/* the key's length says more than the buffer holds */
		for (i = 0; i < r.d->field_count; i++)
			if (r.d->fields[i] == AUDIT_FILTERKEY)
				r.d->values[i] += 10;
		break;
	case BAD_OP:
		audit_rule_field(&r, AUDIT_UID, 0x12345678, 1);
		break;
	case BAD_BITOP_FIELD:
		audit_rule_field(&r, AUDIT_PID, AUDIT_BIT_MASK, 1);
		break;
	case BAD_ARCH_OP:
		r.d->fieldflags[0] = AUDIT_LESS_THAN;
		break;
	case BAD_PERM:
		audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, 0x10);
		break;
	case BAD_FILETYPE:
		audit_rule_field(&r, AUDIT_FILETYPE, AUDIT_EQUAL, S_IFREG | 1);
		break;
	case BAD_LOGINUID_SET:
		audit_rule_field(&r, AUDIT_LOGINUID_SET, AUDIT_EQUAL, 2);
		break;
	case BAD_COMPARE:
	case BAD_COMPARE_ZERO:
		/*
		 * A kernel that takes this rule warns whenever it evaluates
		 * the comparison: a pid no task has comes first, so that it
		 * never does.
		 */
		audit_rule_free(&r);
		r = audit_exit_rule(AUDIT_ALWAYS, __NR_unlinkat, INT_MAX, "t_bad");
		audit_rule_field(&r, AUDIT_FIELD_COMPARE, AUDIT_EQUAL,
				 variant->kind == BAD_COMPARE ?
				 AUDIT_MAX_FIELD_COMPARE + 1 : 0);
		break;
	case BAD_SADDR_FAM:
		audit_rule_field(&r, AUDIT_SADDR_FAM, AUDIT_EQUAL, 255);
		break;
	case BAD_TASK_FIELD:
		audit_rule_field(&r, AUDIT_MSGTYPE, AUDIT_EQUAL, AUDIT_SYSCALL);
		break;
	case BAD_URING_PERM:
		audit_rule_free(&r);
		r = audit_rule_new(AUDIT_FILTER_URING_EXIT, AUDIT_ALWAYS);
		audit_rule_all_syscalls(&r);
		audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, AUDIT_PERM_WRITE);
		break;
	}
	len = r.size;
	if (variant->kind == BAD_SHORT)
		len = sizeof(*r.d) - 4;
	else if (variant->kind == BAD_BUFLEN)
		len = r.size - 3;
	ret = audit_request(nl, AUDIT_ADD_RULE, r.d, len, 0, NULL, 0);
	EXPECT_EQ(variant->err, ret);
	/* the rule list is unchanged and the kernel still takes good rules */
	EXPECT_EQ(1, audit_list_rules(nl, NULL, 0));
	audit_rule_free(&r);
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_unlinkat, 0, "t_after");
	EXPECT_EQ(0, audit_add(nl, &r));
	EXPECT_EQ(2, audit_list_rules(nl, NULL, 0));
}

TEST_HARNESS_MAIN
