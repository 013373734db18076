/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Audit selftests: a minimal io_uring (raw syscalls, no liburing) and the
 * io_uring filter list's rules and records.
 */

#ifndef _AUDIT_SELFTEST_URING_COMMON_H
#define _AUDIT_SELFTEST_URING_COMMON_H

#include <linux/io_uring.h>
#include <sys/mman.h>

#include "audit_common.h"

/* no such syscall (!CONFIG_IO_URING), or io_uring_disabled set? */
static inline bool uring_available(void)
{
	struct io_uring_params p = {};
	int fd = syscall(__NR_io_uring_setup, 1, &p);

	if (fd < 0)
		return errno == EINVAL || errno == EFAULT || errno == ENOMEM;
	close(fd);
	return true;
}

struct ring {
	int fd;
	struct io_uring_params p;
	void *sq, *cq;
	struct io_uring_sqe *sqes;
	size_t sq_len, cq_len;
	unsigned int sqe_units;	/* 2 with IORING_SETUP_SQE128 */
};

/* a ring of 8 entries with the parameters in @r->p (flags, sq_thread_idle) */
static inline int ring_setup(struct ring *r)
{
	r->sqe_units = r->p.flags & IORING_SETUP_SQE128 ? 2 : 1;
	r->fd = syscall(__NR_io_uring_setup, 8, &r->p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(__u32);
	r->cq_len = r->p.cq_off.cqes +
		    r->p.cq_entries * sizeof(struct io_uring_cqe);
	r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     r->fd, IORING_OFF_SQ_RING);
	r->cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * r->sqe_units *
		       sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		       IORING_OFF_SQES);
	if (r->sq == MAP_FAILED || r->cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -ENOMEM;
	return 0;
}

/* a ring of 8 entries; @flags: IORING_SETUP_* */
static inline int ring_init_flags(struct ring *r, __u32 flags)
{
	memset(r, 0, sizeof(*r));
	r->p.flags = flags;
	return ring_setup(r);
}

static inline int ring_init(struct ring *r)
{
	return ring_init_flags(r, 0);
}

/* slot @idx of the submission queue entries, whatever their size */
static inline struct io_uring_sqe *ring_sqe(struct ring *r, __u32 idx)
{
	return &r->sqes[idx * r->sqe_units];
}

/*
 * Submit one request, wait for its completion, return cqe->res. With
 * @sqpoll (an IORING_SETUP_SQPOLL ring) the ring's thread submits it,
 * woken if it sleeps, and the task's io_uring_enter() only waits.
 */
static inline int ring_run_as(struct ring *r, const struct io_uring_sqe *sqe,
			      bool sqpoll)
{
	__u32 *sq_tail = r->sq + r->p.sq_off.tail;
	__u32 *sq_mask = r->sq + r->p.sq_off.ring_mask;
	__u32 *sq_array = r->sq + r->p.sq_off.array;
	__u32 *sq_flags = r->sq + r->p.sq_off.flags;
	__u32 *cq_head = r->cq + r->p.cq_off.head;
	__u32 *cq_tail = r->cq + r->p.cq_off.tail;
	__u32 *cq_mask = r->cq + r->p.cq_off.ring_mask;
	struct io_uring_cqe *cqes = r->cq + r->p.cq_off.cqes;
	__u32 tail = *sq_tail, idx = tail & *sq_mask, head;
	__u32 flags = IORING_ENTER_GETEVENTS;
	int res;

	*ring_sqe(r, idx) = *sqe;
	sq_array[idx] = idx;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (sqpoll) {
		/* the tail before the thread's flag, as liburing orders them */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(sq_flags, __ATOMIC_RELAXED) &
		    IORING_SQ_NEED_WAKEUP)
			flags |= IORING_ENTER_SQ_WAKEUP;
	}
	if (syscall(__NR_io_uring_enter, r->fd, sqpoll ? 0 : 1, 1, flags,
		    NULL, 0) < 0)
		return -1000 - errno;
	head = *cq_head;
	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
		return -2000;
	res = cqes[head & *cq_mask].res;
	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static inline int ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	return ring_run_as(r, sqe, false);
}

struct uring_match {
	int op;
	pid_t pid;
};

static inline bool match_uringop(const struct audit_record *r, const void *arg)
{
	const struct uring_match *m = arg;

	return r->type == AUDIT_URINGOP &&
	       audit_field_is_num(r, "uring_op", m->op) &&
	       audit_field_is_num(r, "pid", m->pid);
}

/* is there a URINGOP record of @op by @pid? */
static inline bool has_uringop(struct audit_nl *nl, int op, pid_t pid)
{
	struct uring_match m = { .op = op, .pid = pid };

	return audit_find(nl, 0, match_uringop, &m) >= 0;
}

static inline struct audit_rule uring_rule(int op, const char *key)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_URING_EXIT,
					     AUDIT_ALWAYS);

	if (op < 0)
		audit_rule_all_syscalls(&r);
	else
		audit_rule_syscall(&r, op);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, key);
	return r;
}

#endif /* _AUDIT_SELFTEST_URING_COMMON_H */
