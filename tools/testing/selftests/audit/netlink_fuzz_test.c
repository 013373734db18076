// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: a bounded fuzzer of the rule and status requests.
 *
 * Sends AUDIT_ADD_RULE, AUDIT_DEL_RULE, AUDIT_SET and AUDIT_LIST_RULES
 * requests built from a seeded generator: well-formed rules, rules with
 * random lengths, field counts, field ids, operators, values, string
 * lengths and syscall masks, truncated and padded messages. Checks that
 * every request gets exactly one answer, that malformed requests (a
 * message shorter than its header, more fields than AUDIT_MAX_FIELDS, a
 * string longer than the buffer that carries it) get an error, and that
 * the kernel's rule list afterwards is exactly what the accepted requests
 * built: every accepted rule is deleted by the payload that added it, and
 * nothing else is left.
 *
 * FUZZ_SEED and FUZZ_ITERATIONS (environment) override the defaults.
 */

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

#define MAX_MODEL	512

static __u64 rng;

static __u64 rnd64(void)
{
	return audit_rand64(&rng);
}

static unsigned int rnd(unsigned int n)
{
	return audit_rand(&rng, n);
}

static const __u32 fields[] = {
	AUDIT_PID, AUDIT_UID, AUDIT_EUID, AUDIT_SUID, AUDIT_FSUID, AUDIT_GID,
	AUDIT_EGID, AUDIT_SGID, AUDIT_FSGID, AUDIT_LOGINUID, AUDIT_PERS,
	AUDIT_ARCH, AUDIT_MSGTYPE, AUDIT_PPID, AUDIT_LOGINUID_SET,
	AUDIT_SESSIONID, AUDIT_FSTYPE, AUDIT_DEVMAJOR, AUDIT_DEVMINOR,
	AUDIT_INODE, AUDIT_EXIT, AUDIT_SUCCESS, AUDIT_WATCH, AUDIT_PERM,
	AUDIT_DIR, AUDIT_FILETYPE, AUDIT_OBJ_UID, AUDIT_OBJ_GID,
	AUDIT_FIELD_COMPARE, AUDIT_EXE, AUDIT_SADDR_FAM, AUDIT_ARG0, AUDIT_ARG1,
	AUDIT_ARG2, AUDIT_ARG3, AUDIT_FILTERKEY,
};

static const __u32 ops[] = {
	AUDIT_EQUAL, AUDIT_NOT_EQUAL, AUDIT_LESS_THAN, AUDIT_GREATER_THAN,
	AUDIT_LESS_THAN_OR_EQUAL, AUDIT_GREATER_THAN_OR_EQUAL, AUDIT_BIT_MASK,
	AUDIT_BIT_TEST,
};

static const char *const strings[] = {
	"/tmp", "/tmp/audit_fuzz", "/", "/bin/busybox", "k", "key",
	"/proc/self", "relative", "",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool is_string_field(__u32 f)
{
	return f == AUDIT_WATCH || f == AUDIT_DIR || f == AUDIT_FILTERKEY ||
	       f == AUDIT_EXE;
}

/* A rule: mostly well formed, from the fields and operators the kernel knows. */
static struct audit_rule gen_rule(void)
{
	static const __u32 lists[] = {
		AUDIT_FILTER_USER, AUDIT_FILTER_TASK, AUDIT_FILTER_EXIT,
		AUDIT_FILTER_EXCLUDE, AUDIT_FILTER_FS, AUDIT_FILTER_URING_EXIT,
	};
	/* not AUDIT_POSSIBLE: valid, but each one prints a warning */
	static const __u32 actions[] = { AUDIT_NEVER, AUDIT_ALWAYS, 3, 0xff };
	struct audit_rule r = audit_rule_new(lists[rnd(N(lists))],
					     rnd(8) ? actions[rnd(2)] :
						      actions[rnd(N(actions))]);
	unsigned int n = rnd(6), i;

	if (rnd(4) == 0)
		r.d->flags |= AUDIT_FILTER_PREPEND;
	if (rnd(5) == 0)
		audit_rule_all_syscalls(&r);
	else
		for (i = 1 + rnd(3); i; i--)
			audit_rule_syscall(&r, rnd(rnd(4) ? 450 : 2048));
	for (i = 0; i < n; i++) {
		__u32 f = fields[rnd(N(fields))];

		if (is_string_field(f))
			audit_rule_str(&r, f, rnd(4) ? AUDIT_EQUAL : ops[rnd(N(ops))],
				       strings[rnd(N(strings))]);
		else
			audit_rule_field(&r, f, ops[rnd(N(ops))],
					 rnd(3) ? rnd(4) : (__u32)rnd64());
	}
	return r;
}

enum shape { WELL_FORMED, TRUNCATED, TOO_MANY_FIELDS, STRING_OVERRUN, MUTATED };

/*
 * Damage @r. Returns the shape; the first three must be rejected.
 * @len is the length to send.
 */
static enum shape damage(struct audit_rule *r, size_t *len)
{
	unsigned int i;

	*len = r->size;
	switch (rnd(10)) {
	case 0:
		*len = rnd(sizeof(*r->d));
		return TRUNCATED;
	case 1:
		r->d->field_count = AUDIT_MAX_FIELDS + 1 + rnd(1000);
		return TOO_MANY_FIELDS;
	case 2:
		/* a string field whose length runs past the buffer */
		if (r->d->field_count < AUDIT_MAX_FIELDS) {
			i = r->d->field_count++;
			r->d->fields[i] = AUDIT_FILTERKEY;
			r->d->fieldflags[i] = AUDIT_EQUAL;
			r->d->values[i] = r->d->buflen + 1 + rnd(4096);
			return STRING_OVERRUN;
		}
		return WELL_FORMED;
	case 3:
	case 4:
		/* random words anywhere in the header */
		for (i = 1 + rnd(4); i; i--)
			((__u32 *)r->d)[rnd(sizeof(*r->d) / 4)] = (__u32)rnd64() >>
								   rnd(32);
		return MUTATED;
	case 5:
		/* a length that disagrees with buflen */
		*len = r->size + (rnd(2) ? rnd(64) : -(size_t)rnd(r->d->buflen + 1));
		if (*len < sizeof(*r->d))
			*len = sizeof(*r->d);
		return MUTATED;
	default:
		return WELL_FORMED;
	}
}

static const char *const shape_name[] = {
	"well formed", "truncated", "too many fields", "string overrun", "mutated",
};

struct model {
	int n;
	struct audit_rule r[MAX_MODEL];
};

static void model_add(struct model *m, const void *d, size_t len)
{
	struct audit_rule *r;

	if (m->n == MAX_MODEL)
		abort();
	r = &m->r[m->n++];
	r->d = malloc(len);
	if (!r->d)
		abort();
	memcpy(r->d, d, len);
	r->size = len;
	/* the kernel keeps a rule without its PREPEND flag */
	r->d->flags &= ~AUDIT_FILTER_PREPEND;
}

static void model_del(struct model *m, int i)
{
	free(m->r[i].d);
	m->r[i] = m->r[--m->n];
}

FIXTURE(fuzz) {
	struct audit_nl nl;
	struct model m;
	bool ready;
};

FIXTURE_SETUP(fuzz)
{
	audit_fixture_setup(_metadata, &self->nl);
	self->ready = true;
}

/* audit_end() puts back the settings the requests changed */
FIXTURE_TEARDOWN(fuzz)
{
	while (self->m.n)
		model_del(&self->m, 0);
	audit_fixture_teardown(_metadata, &self->nl);
}

/* AUDIT_SET with random values for what is safe to change here */
static int fuzz_set(struct audit_nl *nl, bool *must_fail)
{
	struct audit_status s = {};
	size_t len = sizeof(s);

	s.mask = (__u32)rnd64() & (AUDIT_STATUS_ENABLED | AUDIT_STATUS_FAILURE |
				  AUDIT_STATUS_RATE_LIMIT |
				  AUDIT_STATUS_BACKLOG_LIMIT |
				  AUDIT_STATUS_BACKLOG_WAIT_TIME |
				  AUDIT_STATUS_LOST);
	/* 2 would lock the configuration (enabled) or panic (failure) */
	s.enabled = rnd(4) ? rnd(2) : 3 + rnd(100);
	s.failure = rnd(4) ? rnd(2) : 3 + rnd(100);
	s.rate_limit = rnd(2) ? 0 : rnd64();
	s.backlog_limit = 1024 + rnd(1 << 20);
	s.backlog_wait_time = rnd(2) ? rnd(60 * 1000) : (__u32)rnd64();
	*must_fail = ((s.mask & AUDIT_STATUS_ENABLED) && s.enabled > 2) ||
		     ((s.mask & AUDIT_STATUS_FAILURE) && s.failure > 2);
	if (rnd(8) == 0)
		len = rnd(sizeof(s));	/* older, shorter layouts are accepted */
	if (len < offsetof(struct audit_status, failure) + sizeof(s.failure))
		*must_fail = false;	/* the kernel may not see the bad value */
	/* keep auditing on: the rule changes' records come to us */
	if (s.mask & AUDIT_STATUS_ENABLED && s.enabled == 0)
		s.enabled = 1;
	return audit_request(nl, AUDIT_SET, &s, len, 0, NULL, 0);
}

TEST_F_TIMEOUT(fuzz, requests, 600)
{
	const char *env_seed = getenv("FUZZ_SEED"), *env_it = getenv("FUZZ_ITERATIONS");
	unsigned long seed = env_seed ? strtoul(env_seed, NULL, 0) : 1;
	unsigned long iterations = env_it ? strtoul(env_it, NULL, 0) : 3000, it;
	unsigned long accepted = 0, rejected = 0, deleted = 0, sets = 0;
	struct model *m = &self->m;
	struct audit_rule listed[MAX_MODEL];
	int ret, i, n;

	if (!self->ready)
		SKIP(return, "no audit");
	rng = seed;
	TH_LOG("seed %lu, %lu requests (FUZZ_SEED, FUZZ_ITERATIONS)", seed, iterations);
	for (it = 0; it < iterations; it++) {
		unsigned int what = rnd(20);

		if (what < 11) {
			/* add a rule */
			struct audit_rule r = gen_rule();
			size_t len;
			enum shape sh = damage(&r, &len);
			void *buf = calloc(1, len + 1);

			ASSERT_NE(NULL, buf);
			memcpy(buf, r.d, len < r.size ? len : r.size);
			ret = audit_request(&self->nl, AUDIT_ADD_RULE, buf, len, 0,
					    NULL, 0);
			ASSERT_NE(-ETIMEDOUT, ret)
				TH_LOG("request %lu: no answer to AUDIT_ADD_RULE", it);
			if (sh == TRUNCATED || sh == TOO_MANY_FIELDS ||
			    sh == STRING_OVERRUN)
				EXPECT_NE(0, ret)
					TH_LOG("request %lu: a %s rule was accepted",
					       it, shape_name[sh]);
			if (!ret) {
				accepted++;
				ASSERT_LT(m->n, MAX_MODEL);
				model_add(m, buf, len);
			} else {
				rejected++;
			}
			free(buf);
			audit_rule_free(&r);
		} else if (what < 15 && m->n) {
			/* delete an accepted rule with the payload that added it */
			i = rnd(m->n);
			ret = audit_rule_send(&self->nl, AUDIT_DEL_RULE, &m->r[i]);
			EXPECT_EQ(0, ret)
				TH_LOG("request %lu: deleting accepted rule %d: %s",
				       it, i, strerror(-ret));
			if (!ret) {
				model_del(m, i);
				deleted++;
			}
		} else if (what < 17) {
			/* delete something that may or may not be loaded */
			struct audit_rule r = gen_rule();
			size_t len;
			int back = 0;

			damage(&r, &len);
			ret = audit_request(&self->nl, AUDIT_DEL_RULE, r.d,
					    len < r.size ? len : r.size, 0, NULL, 0);
			ASSERT_NE(-ETIMEDOUT, ret);
			if (!ret) {
				/*
				 * It named a loaded rule: exactly one of the
				 * model's rules is gone; add it back.
				 */
				for (i = 0; i < m->n; i++)
					back += !audit_rule_send(&self->nl, AUDIT_ADD_RULE,
								 &m->r[i]);
				EXPECT_EQ(1, back);
			}
			audit_rule_free(&r);
		} else if (what < 19) {
			bool must_fail;

			ret = fuzz_set(&self->nl, &must_fail);
			ASSERT_NE(-ETIMEDOUT, ret);
			if (must_fail)
				EXPECT_NE(0, ret);
			sets++;
		} else {
			/* LIST_RULES carries no payload; send some anyway */
			char junk[64];

			for (i = 0; i < (int)sizeof(junk); i++)
				junk[i] = rnd64();
			n = audit_list_rules(&self->nl, NULL, 0);
			EXPECT_EQ(m->n, n);
			ret = audit_request(&self->nl, AUDIT_LIST_RULES, junk,
					    rnd(sizeof(junk)), 0, NULL, 0);
			EXPECT_EQ(0, ret);
			audit_drain(&self->nl, 0);
		}
		/* the records of the rule changes: not needed */
		if (self->nl.nrec > AUDIT_MAX_RECORDS / 2)
			audit_records_clear(&self->nl);
	}
	TH_LOG("%lu rules accepted, %lu rejected, %lu deleted, %lu AUDIT_SET",
	       accepted, rejected, deleted, sets);
	EXPECT_LT(iterations / 20, accepted);
	EXPECT_LT(iterations / 20, rejected);

	/* the kernel is still answering, and its list is the model */
	n = audit_list_rules(&self->nl, listed, MAX_MODEL);
	ASSERT_EQ(m->n, n);
	for (i = 0; i < n; i++)
		free(listed[i].d);
	while (m->n) {
		ret = audit_rule_send(&self->nl, AUDIT_DEL_RULE, &m->r[0]);
		EXPECT_EQ(0, ret)
			TH_LOG("deleting an accepted rule at the end: %s", strerror(-ret));
		model_del(m, 0);
	}
	EXPECT_EQ(0, audit_list_rules(&self->nl, NULL, 0));
	audit_records_clear(&self->nl);
}

TEST_HARNESS_MAIN
