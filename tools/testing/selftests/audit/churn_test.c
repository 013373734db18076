// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: rules added and deleted while syscalls and io_uring
 * requests run.
 *
 * Two rules stay loaded for the whole test: an exit rule for getppid() and
 * an io_uring rule for IORING_OP_OPENAT, each with its own key. Worker
 * processes (two threads each) loop over getppid() and calls no rule
 * matches; another submits OPENAT and NOP requests. Meanwhile a churner
 * process adds and deletes other rules as fast as it can: rules for other
 * syscalls and opcodes, rules for getppid() that cannot match (a uid no
 * task has) added in front of the permanent one, rules that do match added
 * after it (first match wins, so the permanent rule's key still names the
 * record), and task and exclude rules that match nothing. Every getppid()
 * and every OPENAT must have produced exactly one record with the
 * permanent rule's key, and no record may have been lost.
 *
 * CHURN_MS (environment) sets how long the churn lasts (default 3000 ms);
 * on a slow kernel (KASAN, lockdep) it goes on until the minimum amount of
 * work below is done, for ten times that long at most.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "audit_common.h"
#include "uring_common.h"

#define KEY_SYSCALL	"churn_getppid"
#define KEY_URING	"churn_openat"
#define NO_SUCH_UID	12345
#define MIN_CALLS	100	/* getppid calls, at least */
#define MIN_OPENAT	20	/* io_uring OPENAT requests, at least */
#define MIN_ADDS	50	/* rules the churner added, at least */
#define WORKERS		2
#define THREADS		2

/*
 * The workers stay at most this many records ahead of the reader: a test
 * kernel booted without audit=1 drops, without counting them as lost,
 * records kauditd cannot deliver to a full socket.
 */
#define WINDOW		512

/* shared between the processes; the flags and counters read across them */
struct shared {
	int stop;
	unsigned long counted_sys, counted_uring;
	unsigned long getppid_calls[WORKERS][THREADS];
	unsigned long openat_done;
	unsigned long churn_adds, churn_dels, churn_errors;
	int uring_error;
};

static struct shared *sh;

/* the processes poll these without locks: no torn or cached reads */
#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static unsigned long total_calls(void)
{
	unsigned long n = 0;
	int i, j;

	for (i = 0; i < WORKERS; i++)
		for (j = 0; j < THREADS; j++)
			n += __atomic_load_n(&sh->getppid_calls[i][j], __ATOMIC_RELAXED);
	return n;
}

static void *worker_thread(void *arg)
{
	unsigned long *calls = arg;
	struct stat st;

	while (!LOAD(sh->stop)) {
		syscall(SYS_getppid);
		__atomic_store_n(calls, *calls + 1, __ATOMIC_RELAXED);
		while (total_calls() > LOAD(sh->counted_sys) + WINDOW && !LOAD(sh->stop))
			usleep(1000);
		/* calls no rule matches */
		syscall(SYS_getpid);
		stat("/", &st);
	}
	return NULL;
}

static int worker(void *arg)
{
	long w = (long)arg;
	pthread_t t[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker_thread,
				   &sh->getppid_calls[w][i]))
			return 1;
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int uring_worker(void *arg)
{
	struct io_uring_sqe sqe;
	struct ring r;
	int fd;

	if (ring_init(&r)) {
		sh->uring_error = 1;
		return 1;
	}
	while (!LOAD(sh->stop)) {
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = IORING_OP_OPENAT;
		sqe.fd = AT_FDCWD;
		sqe.addr = (unsigned long)"/dev/null";
		sqe.open_flags = O_RDONLY;
		fd = ring_run(&r, &sqe);
		if (fd < 0) {
			sh->uring_error = fd;
			return 1;
		}
		sh->openat_done++;
		close(fd);
		while (sh->openat_done > LOAD(sh->counted_uring) + WINDOW / 4 &&
		       !LOAD(sh->stop))
			usleep(1000);
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = IORING_OP_NOP;
		ring_run(&r, &sqe);
	}
	return 0;
}

static const int other_syscalls[] = { SYS_acct, SYS_mount, SYS_swapon, SYS_reboot };
static const int other_opcodes[] = { IORING_OP_READ, IORING_OP_WRITE, IORING_OP_STATX };

/* the churner's rule number @i: never changes what the workers' calls record */
static struct audit_rule churn_rule(unsigned int i)
{
	struct audit_rule r;

	switch (i % 7) {
	case 0:		/* another syscall */
		r = audit_exit_rule(AUDIT_ALWAYS, other_syscalls[i / 7 % 4], 0,
				    "churn_other");
		break;
	case 1:		/* getppid, in front, for a uid no task has */
		r = audit_exit_rule(AUDIT_NEVER, SYS_getppid, 0, "churn_front");
		r.d->flags |= AUDIT_FILTER_PREPEND;
		audit_rule_field(&r, AUDIT_UID, AUDIT_EQUAL, NO_SUCH_UID + i % 3);
		break;
	case 2:		/* getppid, after the permanent rule: never reached */
		r = audit_exit_rule(AUDIT_NEVER, SYS_getppid, 0, "churn_after");
		audit_rule_field(&r, AUDIT_EXIT, AUDIT_GREATER_THAN_OR_EQUAL, i % 5);
		break;
	case 3:		/* io_uring, another opcode */
		r = uring_rule(other_opcodes[i / 7 % 3], "churn_uring_other");
		break;
	case 4:		/* io_uring OPENAT, in front, for a uid no task has */
		r = uring_rule(IORING_OP_OPENAT, "churn_uring_front");
		r.d->flags |= AUDIT_FILTER_PREPEND;
		audit_rule_field(&r, AUDIT_UID, AUDIT_EQUAL, NO_SUCH_UID + i % 3);
		break;
	case 5:		/* a task rule for a uid no task has */
		r = audit_rule_new(AUDIT_FILTER_TASK, AUDIT_NEVER);
		audit_rule_all_syscalls(&r);
		audit_rule_field(&r, AUDIT_UID, AUDIT_EQUAL, NO_SUCH_UID + i % 3);
		break;
	default:	/* an exclude rule for a type nothing emits here */
		r = audit_rule_new(AUDIT_FILTER_EXCLUDE, AUDIT_NEVER);
		audit_rule_field(&r, AUDIT_MSGTYPE, AUDIT_EQUAL,
				 AUDIT_MAC_POLICY_LOAD + i % 3);
		break;
	}
	return r;
}

static int churner(void *arg)
{
	struct audit_rule live[32] = {};
	struct audit_nl c;
	unsigned int i = 0, j;
	int ret;

	/* a second netlink socket; the test process stays the audit daemon */
	if (audit_open(&c))
		return 1;
	while (!LOAD(sh->stop)) {
		j = i % 32;
		if (live[j].d) {
			ret = audit_rule_send(&c, AUDIT_DEL_RULE, &live[j]);
			sh->churn_dels += !ret;
			sh->churn_errors += !!ret;
			audit_rule_free(&live[j]);
		}
		live[j] = churn_rule(i * 7919);
		ret = audit_rule_send(&c, AUDIT_ADD_RULE, &live[j]);
		if (ret) {
			sh->churn_errors += ret != -EEXIST;
			audit_rule_free(&live[j]);
		} else {
			live[j].d->flags &= ~AUDIT_FILTER_PREPEND;
			sh->churn_adds++;
		}
		i++;
		/* the records of the other lists' rule changes are not read */
		audit_records_clear(&c);
	}
	for (j = 0; j < 32; j++)
		if (live[j].d && !audit_rule_send(&c, AUDIT_DEL_RULE, &live[j]))
			sh->churn_dels++;
	return 0;
}

static pid_t spawn(audit_child_fn fn, void *arg)
{
	pid_t pid = fork();

	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(fn(arg));
	}
	return pid;
}

FIXTURE(churn) {
	struct audit_nl nl;
	bool ready;
};

FIXTURE_SETUP(churn)
{
	struct audit_status s = {
		.mask = AUDIT_STATUS_BACKLOG_LIMIT,
		.backlog_limit = 16384,
	};

	int rcvbuf = 64 << 20;

	audit_fixture_setup(_metadata, &self->nl);
	/* room for everything the workers emit while the reader is busy */
	setsockopt(self->nl.fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	audit_setup_ok(_metadata, &self->nl,
		       !audit_request(&self->nl, AUDIT_SET, &s, sizeof(s), 0, NULL, 0),
		       "setting backlog_limit");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	audit_setup_ok(_metadata, &self->nl, sh != MAP_FAILED, "mmap");
	self->ready = true;
}

FIXTURE_TEARDOWN(churn)
{
	audit_fixture_teardown(_metadata, &self->nl);
}

/* count the permanent rules' records among those queued, then drop them */
static void count_records(struct audit_nl *nl, int end, unsigned long *sys,
			  unsigned long *uring, unsigned long *wrong)
{
	int i;

	for (i = 0; i < end; i++) {
		const struct audit_record *r = &nl->rec[i];

		if (r->type == AUDIT_SYSCALL) {
			if (audit_field_is(r, "key", KEY_SYSCALL) &&
			    audit_field_is_num(r, "syscall", SYS_getppid))
				(*sys)++;
			else if (audit_field_is_num(r, "syscall", SYS_getppid) &&
				 audit_field_is_num(r, "ppid", getpid()))
				(*wrong)++;
		} else if (r->type == AUDIT_URINGOP) {
			if (audit_field_is(r, "key", KEY_URING) &&
			    audit_field_is_num(r, "uring_op", IORING_OP_OPENAT))
				(*uring)++;
			else if (audit_field_is_num(r, "uring_op", IORING_OP_OPENAT))
				(*wrong)++;
		}
	}
	STORE(sh->counted_sys, *sys);
	STORE(sh->counted_uring, *uring);
}

/*
 * Read and count until a marker sent now comes back: every record queued
 * before it has then been counted. Returns 0, or -1 on timeout.
 */
static int sync_count(struct audit_nl *nl, unsigned long *sys,
		      unsigned long *uring, unsigned long *wrong)
{
	struct timespec t0;
	char msg[64];
	int i;

	/*
	 * Take what kauditd has queued first: the reply to the marker's
	 * request queues behind it, and waiting for the reply keeps every
	 * record before it, more than the record buffer holds when kauditd
	 * is far behind (a slow kernel under the churn).
	 */
	while (audit_recv_one(nl, 200, NULL, 0, NULL) > 0) {
		count_records(nl, nl->nrec, sys, uring, wrong);
		audit_records_clear(nl);
	}
	snprintf(msg, sizeof(msg), "churn_test_marker_%d", getpid());
	if (audit_request(nl, AUDIT_USER, msg, strlen(msg) + 1, 0, NULL, 0))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (audit_ms_since(&t0) < 60000) {
		i = audit_find(nl, 0, audit_match_marker, msg);
		if (i >= 0) {
			/*
			 * A record kauditd could not send at once (a full
			 * socket) is retried later, and may come after the
			 * marker: read until nothing has come for a second.
			 */
			count_records(nl, nl->nrec, sys, uring, wrong);
			audit_records_clear(nl);
			while (audit_recv_one(nl, 1000, NULL, 0, NULL) > 0) {
				count_records(nl, nl->nrec, sys, uring, wrong);
				audit_records_clear(nl);
			}
			return 0;
		}
		if (nl->nrec > AUDIT_MAX_RECORDS / 2) {
			count_records(nl, nl->nrec, sys, uring, wrong);
			audit_records_clear(nl);
		}
		audit_recv_one(nl, 100, NULL, 0, NULL);
	}
	return -1;
}

TEST_F_TIMEOUT(churn, rules_change_under_load, 600)
{
	unsigned long sys = 0, uring = 0, wrong = 0, calls = 0;
	struct audit_rule perm_sys, perm_uring;
	struct audit_status before, after;
	struct timespec t0;
	pid_t pids[WORKERS + 2];
	int i, j, st, churn_ms;
	const char *env = getenv("CHURN_MS");

	if (!self->ready)
		SKIP(return, "no audit");
	churn_ms = env ? atoi(env) : 3000;
	perm_sys = audit_exit_rule(AUDIT_ALWAYS, SYS_getppid, 0, KEY_SYSCALL);
	audit_rule_field(&perm_sys, AUDIT_PPID, AUDIT_EQUAL, getpid());
	ASSERT_EQ(0, audit_add(&self->nl, &perm_sys));
	perm_uring = uring_rule(IORING_OP_OPENAT, KEY_URING);
	ASSERT_EQ(0, audit_add(&self->nl, &perm_uring));
	ASSERT_EQ(0, audit_get_status(&self->nl, &before));

	for (i = 0; i < WORKERS; i++)
		pids[i] = spawn(worker, (void *)(long)i);
	pids[WORKERS] = spawn(uring_worker, NULL);
	pids[WORKERS + 1] = spawn(churner, NULL);

	/* be the audit daemon meanwhile: read and count */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (audit_ms_since(&t0) < churn_ms ||
	       ((total_calls() < MIN_CALLS || sh->openat_done < MIN_OPENAT ||
		 sh->churn_adds < MIN_ADDS) && audit_ms_since(&t0) < 10 * churn_ms)) {
		audit_recv_one(&self->nl, 20, NULL, 0, NULL);
		count_records(&self->nl, self->nl.nrec, &sys, &uring, &wrong);
		audit_records_clear(&self->nl);
	}
	STORE(sh->stop, 1);
	for (i = 0; i < WORKERS + 2; i++) {
		while (waitpid(pids[i], &st, WNOHANG) == 0) {
			audit_recv_one(&self->nl, 20, NULL, 0, NULL);
			count_records(&self->nl, self->nl.nrec, &sys, &uring, &wrong);
			audit_records_clear(&self->nl);
		}
		EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
			TH_LOG("process %d ended with status %#x", i, st);
	}
	/* everything the workers emitted is queued before this marker */
	ASSERT_EQ(0, sync_count(&self->nl, &sys, &uring, &wrong));

	for (i = 0; i < WORKERS; i++)
		for (j = 0; j < THREADS; j++)
			calls += sh->getppid_calls[i][j];
	TH_LOG("getppid: %lu calls, %lu records; OPENAT: %lu requests, %lu records",
	       calls, sys, sh->openat_done, uring);
	TH_LOG("churn: %lu rules added, %lu deleted", sh->churn_adds, sh->churn_dels);
	ASSERT_EQ(0, sh->uring_error);
	EXPECT_LE(MIN_CALLS, calls);
	EXPECT_LE(MIN_OPENAT, sh->openat_done);
	EXPECT_LE(MIN_ADDS, sh->churn_adds);
	EXPECT_EQ(0, sh->churn_errors);
	EXPECT_EQ(calls, sys);
	EXPECT_EQ(sh->openat_done, uring);
	EXPECT_EQ(0, wrong);
	ASSERT_EQ(0, audit_get_status(&self->nl, &after));
	EXPECT_EQ(before.lost, after.lost);
}

TEST_HARNESS_MAIN
