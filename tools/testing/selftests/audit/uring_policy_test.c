// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: which io_uring opcodes audit sees.
 *
 * The policy, as the table below decides it for each opcode: an opcode is
 * audited when its syscall counterpart is one audit rule sets
 * name (files as objects, sockets and connections, passing descriptors or
 * credentials), and skipped when it moves data through, waits on or advises
 * about something already open, synchronises, or manages io_uring itself.
 *
 * The test asks the kernel which opcodes it has, loads an io_uring rule for
 * every opcode, has a child submit one request of each opcode that gets
 * past preparation (the issue may fail; audit sees the request either way)
 * and checks that exactly the audited opcodes produced a URINGOP record.
 * An opcode the kernel has and this table lacks is reported, and skips
 * table_complete; the opcodes the table knows are still checked.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/openat2.h>
#include <sys/un.h>

#include "../kselftest_harness.h"
#include "audit_common.h"
#include "uring_common.h"

/* opcode numbers are ABI; older uapi headers lack the newer names */
static const struct policy {
	int op;
	const char *name;
	bool audited;
} policy[] = {
	{  0, "NOP", false },
	{  1, "READV", false },
	{  2, "WRITEV", false },
	{  3, "FSYNC", false },
	{  4, "READ_FIXED", false },
	{  5, "WRITE_FIXED", false },
	{  6, "POLL_ADD", false },
	{  7, "POLL_REMOVE", false },
	{  8, "SYNC_FILE_RANGE", false },
	{  9, "SENDMSG", true },
	{ 10, "RECVMSG", true },
	{ 11, "TIMEOUT", false },
	{ 12, "TIMEOUT_REMOVE", false },
	{ 13, "ACCEPT", true },
	{ 14, "ASYNC_CANCEL", false },
	{ 15, "LINK_TIMEOUT", false },
	{ 16, "CONNECT", true },
	{ 17, "FALLOCATE", true },
	{ 18, "OPENAT", true },
	{ 19, "CLOSE", true },
	{ 20, "FILES_UPDATE", false },
	{ 21, "STATX", false },
	{ 22, "READ", false },
	{ 23, "WRITE", false },
	{ 24, "FADVISE", false },
	{ 25, "MADVISE", false },
	{ 26, "SEND", false },
	{ 27, "RECV", false },
	{ 28, "OPENAT2", true },
	{ 29, "EPOLL_CTL", false },
	{ 30, "SPLICE", false },
	{ 31, "PROVIDE_BUFFERS", false },
	{ 32, "REMOVE_BUFFERS", false },
	{ 33, "TEE", false },
	{ 34, "SHUTDOWN", true },
	{ 35, "RENAMEAT", true },
	{ 36, "UNLINKAT", true },
	{ 37, "MKDIRAT", true },
	{ 38, "SYMLINKAT", true },
	{ 39, "LINKAT", true },
	{ 40, "MSG_RING", true },
	{ 41, "FSETXATTR", true },
	{ 42, "SETXATTR", true },
	{ 43, "FGETXATTR", true },
	{ 44, "GETXATTR", true },
	{ 45, "SOCKET", true },
	{ 46, "URING_CMD", true },
	{ 47, "SEND_ZC", false },
	{ 48, "SENDMSG_ZC", true },
	{ 49, "READ_MULTISHOT", false },
	{ 50, "WAITID", false },
	{ 51, "FUTEX_WAIT", false },
	{ 52, "FUTEX_WAKE", false },
	{ 53, "FUTEX_WAITV", false },
	{ 54, "FIXED_FD_INSTALL", true },
	{ 55, "FTRUNCATE", true },
	{ 56, "BIND", true },
	{ 57, "LISTEN", true },
	{ 58, "READV_FIXED", false },
	{ 59, "WRITEV_FIXED", false },
	{ 60, "EPOLL_WAIT", false },
	{ 61, "NOP128", false },
	{ 62, "PIPE", true },
	{ 63, "RECV_ZC", false },
	{ 64, "URING_CMD128", true },
};

#define NPOLICY		((int)ARRAY_SIZE(policy))
#define BGID		7
#define FUTEX2_U32	0x02

/* the scratch directory: short, so that socket paths fit sun_path */
static char dir[48];

#define PATH(buf, name) snprintf(buf, sizeof(buf), "%s/%s", dir, name)

/* the opcodes this kernel has, from IORING_REGISTER_PROBE; -1 on error */
static int probe_ops(bool *has, int max)
{
	struct {
		struct io_uring_probe p;
		struct io_uring_probe_op ops[256];
	} pr = {};
	struct ring r;
	int i;

	if (ring_init(&r))
		return -1;
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_PROBE, &pr, 256))
		return -1;
	close(r.fd);
	for (i = 0; i < pr.p.ops_len && i < max; i++)
		has[i] = pr.ops[i].flags & IO_URING_OP_SUPPORTED;
	return pr.p.ops_len;
}

/* submit @n queued SQEs, wait for one completion, reap all there are */
static int submit(struct ring *r, const struct io_uring_sqe *sqes, int n)
{
	__u32 *sq_tail = r->sq + r->p.sq_off.tail;
	__u32 *sq_mask = r->sq + r->p.sq_off.ring_mask;
	__u32 *sq_array = r->sq + r->p.sq_off.array;
	__u32 *cq_head = r->cq + r->p.cq_off.head;
	__u32 *cq_tail = r->cq + r->p.cq_off.tail;
	__u32 *cq_mask = r->cq + r->p.cq_off.ring_mask;
	struct io_uring_cqe *cqes = r->cq + r->p.cq_off.cqes;
	__u32 tail = *sq_tail, head;
	int i, res = -2000;

	for (i = 0; i < n; i++) {
		__u32 idx = (tail + i) & *sq_mask;

		*ring_sqe(r, idx) = sqes[i];
		sq_array[idx] = idx;
	}
	__atomic_store_n(sq_tail, tail + n, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, n, n, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -1000 - errno;
	head = *cq_head;
	while (head != __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
		if (res == -2000)
			res = cqes[head & *cq_mask].res;
		head++;
	}
	__atomic_store_n(cq_head, head, __ATOMIC_RELEASE);
	return res;
}

struct env {
	struct ring r, other, r128;
	int file, sv[2], pa[2], pb[2], lsock, epfd, opened, pfds[2];
	char *buf;			/* one page, for MADVISE */
	char fixed[64], pbufs[64], xval[8];
	struct iovec iov, fiov;
	struct msghdr msg;
	struct sockaddr_un lsa, bsa;
	struct __kernel_timespec ts;
	struct epoll_event ev;
	struct open_how how;
	struct statx stx;
	__u32 futex;
	struct { __u64 val, uaddr; __u32 flags, reserved; } waitv;
	char p_file[64], p_new[64], p_dir[64], p_sym[64], p_link[64], p_gone[64];
};

static int env_init(struct env *e)
{
	struct iovec reg = { .iov_base = e->fixed, .iov_len = sizeof(e->fixed) };
	int fd, one;

	if (ring_init(&e->r) || ring_init(&e->other) ||
	    ring_init_flags(&e->r128, IORING_SETUP_SQE128))
		return 1;
	e->buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->buf == MAP_FAILED)
		return 1;
	PATH(e->p_file, "file");
	PATH(e->p_new, "renamed");
	PATH(e->p_dir, "dir");
	PATH(e->p_sym, "sym");
	PATH(e->p_link, "link");
	PATH(e->p_gone, "gone");
	e->file = open(e->p_file, O_RDWR | O_CREAT, 0600);
	fd = open(e->p_gone, O_RDWR | O_CREAT, 0600);
	if (e->file < 0 || fd < 0 || write(e->file, "0123456789abcdef", 16) != 16)
		return 2;
	close(fd);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, e->sv) || pipe(e->pa) || pipe(e->pb))
		return 3;
	/* data for RECV, RECVMSG, SPLICE and TEE to find */
	if (write(e->sv[0], "abcd", 4) != 4 || write(e->pa[1], "ab", 2) != 2)
		return 4;
	/* a listening socket with a connection waiting, for ACCEPT */
	e->lsa.sun_family = AF_UNIX;
	PATH(e->lsa.sun_path, "listen.sock");
	e->bsa.sun_family = AF_UNIX;
	PATH(e->bsa.sun_path, "bind.sock");
	e->lsock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (e->lsock < 0 || bind(e->lsock, (void *)&e->lsa, sizeof(e->lsa)) ||
	    listen(e->lsock, 4))
		return 5;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (void *)&e->lsa, sizeof(e->lsa)))
		return 6;
	e->epfd = epoll_create1(0);
	if (e->epfd < 0)
		return 7;
	/* a registered buffer and a registered file */
	if (syscall(__NR_io_uring_register, e->r.fd, IORING_REGISTER_BUFFERS, &reg, 1))
		return 8;
	one = e->file;
	if (syscall(__NR_io_uring_register, e->r.fd, IORING_REGISTER_FILES, &one, 1))
		return 9;
	e->iov.iov_base = e->buf;
	e->iov.iov_len = 1;
	e->fiov.iov_base = e->fixed;
	e->fiov.iov_len = 8;
	e->msg.msg_iov = &e->iov;
	e->msg.msg_iovlen = 1;
	e->ts.tv_nsec = 1000;
	e->ev.events = EPOLLIN;
	e->how.flags = O_RDONLY;
	e->futex = 0;
	e->waitv.val = 1;		/* != futex: FUTEX_WAITV returns at once */
	e->waitv.uaddr = (unsigned long)&e->futex;
	e->waitv.flags = FUTEX2_U32;
	memcpy(e->xval, "v", 2);
	e->opened = -1;
	return 0;
}

/* the request of opcode @op, in @sqe[0] (and @sqe[1]); returns how many */
static int build(struct env *e, int op, struct io_uring_sqe *sqe)
{
	struct io_uring_sqe *s = sqe;
	int n = 1;

	memset(sqe, 0, 2 * sizeof(*sqe));
	s->opcode = op;
	switch (op) {
	case 0:		/* NOP */
		break;
	case 1: case 2:	/* READV, WRITEV */
		s->fd = e->file;
		s->addr = (unsigned long)&e->iov;
		s->len = 1;
		break;
	case 3: case 8:	/* FSYNC, SYNC_FILE_RANGE */
		s->fd = e->file;
		break;
	case 4: case 5:	/* READ_FIXED, WRITE_FIXED */
		s->fd = e->file;
		s->addr = (unsigned long)e->fixed;
		s->len = 8;
		s->buf_index = 0;
		break;
	case 6:		/* POLL_ADD: a regular file is always ready */
		s->fd = e->file;
		s->poll32_events = POLLIN;
		break;
	case 7: case 12: case 14:	/* POLL_REMOVE, TIMEOUT_REMOVE, ASYNC_CANCEL */
		s->fd = -1;
		s->addr = 0x5eed;
		break;
	case 9: case 48:	/* SENDMSG, SENDMSG_ZC */
		s->fd = e->sv[0];
		s->addr = (unsigned long)&e->msg;
		break;
	case 10:	/* RECVMSG */
		s->fd = e->sv[1];
		s->addr = (unsigned long)&e->msg;
		break;
	case 11:	/* TIMEOUT: 1 us */
		s->fd = -1;
		s->addr = (unsigned long)&e->ts;
		s->len = 1;
		break;
	case 13:	/* ACCEPT */
		s->fd = e->lsock;
		break;
	case 15:	/* LINK_TIMEOUT, linked to a NOP; never issued itself */
		s->opcode = 0;
		s->flags = IOSQE_IO_LINK;
		sqe[1].opcode = op;
		sqe[1].fd = -1;
		sqe[1].addr = (unsigned long)&e->ts;
		sqe[1].len = 1;
		n = 2;
		break;
	case 16:	/* CONNECT */
		s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
		s->addr = (unsigned long)&e->lsa;
		s->off = sizeof(e->lsa);
		break;
	case 17:	/* FALLOCATE: addr is the length */
		s->fd = e->file;
		s->addr = 4096;
		break;
	case 18:	/* OPENAT */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_file;
		s->open_flags = O_RDONLY;
		break;
	case 19:	/* CLOSE */
		s->fd = e->opened >= 0 ? e->opened : dup(e->file);
		break;
	case 20:	/* FILES_UPDATE of the registered slot 0 */
		s->fd = -1;
		s->addr = (unsigned long)&e->file;
		s->len = 1;
		break;
	case 21:	/* STATX */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_file;
		s->len = STATX_BASIC_STATS;
		s->off = (unsigned long)&e->stx;
		break;
	case 22: case 23:	/* READ, WRITE */
		s->fd = e->file;
		s->addr = (unsigned long)e->buf;
		s->len = 4;
		break;
	case 24:	/* FADVISE */
		s->fd = e->file;
		s->fadvise_advice = POSIX_FADV_NORMAL;
		break;
	case 25:	/* MADVISE */
		s->fd = -1;
		s->addr = (unsigned long)e->buf;
		s->len = 4096;
		s->fadvise_advice = MADV_NORMAL;
		break;
	case 26: case 47:	/* SEND, SEND_ZC */
		s->fd = e->sv[0];
		s->addr = (unsigned long)e->buf;
		s->len = 1;
		break;
	case 27:	/* RECV */
		s->fd = e->sv[1];
		s->addr = (unsigned long)e->buf;
		s->len = 1;
		break;
	case 28:	/* OPENAT2 */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_file;
		s->len = sizeof(e->how);
		s->off = (unsigned long)&e->how;
		break;
	case 29:	/* EPOLL_CTL: add the socket */
		s->fd = e->epfd;
		s->len = EPOLL_CTL_ADD;
		s->off = e->sv[1];
		s->addr = (unsigned long)&e->ev;
		break;
	case 30: case 33:	/* SPLICE, TEE: pipe a -> pipe b */
		s->splice_fd_in = e->pa[0];
		s->fd = e->pb[1];
		s->len = 1;
		if (op == 30) {
			s->splice_off_in = -1;
			s->off = -1;
		}
		break;
	case 31:	/* PROVIDE_BUFFERS: one buffer in group BGID */
		s->fd = 1;
		s->addr = (unsigned long)e->pbufs;
		s->len = sizeof(e->pbufs);
		s->buf_group = BGID;
		break;
	case 32:	/* REMOVE_BUFFERS */
		s->fd = 1;
		s->buf_group = BGID;
		break;
	case 34:	/* SHUTDOWN */
		s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
		s->len = SHUT_RDWR;
		break;
	case 35:	/* RENAMEAT */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_gone;
		s->len = AT_FDCWD;
		s->off = (unsigned long)e->p_new;
		break;
	case 36:	/* UNLINKAT */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_new;
		break;
	case 37:	/* MKDIRAT */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_dir;
		s->len = 0700;
		break;
	case 38:	/* SYMLINKAT */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_file;
		s->off = (unsigned long)e->p_sym;
		break;
	case 39:	/* LINKAT */
		s->fd = AT_FDCWD;
		s->addr = (unsigned long)e->p_file;
		s->len = AT_FDCWD;
		s->off = (unsigned long)e->p_link;
		break;
	case 40:	/* MSG_RING: a CQE for the other ring */
		s->fd = e->other.fd;
		break;
	case 41: case 43:	/* FSETXATTR, FGETXATTR */
		s->fd = e->file;
		s->addr = (unsigned long)"user.t";
		s->off = (unsigned long)e->xval;
		s->len = 1;
		break;
	case 42: case 44:	/* SETXATTR, GETXATTR */
		s->fd = -1;
		s->addr = (unsigned long)"user.t";
		s->off = (unsigned long)e->xval;
		s->addr3 = (unsigned long)e->p_file;
		s->len = 1;
		break;
	case 45:	/* SOCKET */
		s->fd = AF_UNIX;
		s->off = SOCK_STREAM;
		break;
	case 46:	/* URING_CMD: a regular file has none */
		s->fd = e->file;
		break;
	case 49:	/* READ_MULTISHOT: needs a buffer group */
		s->fd = e->file;
		s->flags = IOSQE_BUFFER_SELECT;
		s->buf_group = BGID;
		break;
	case 50:	/* WAITID: no children, WNOHANG */
		s->fd = 0;
		s->len = P_ALL;
		s->file_index = WEXITED | WNOHANG;
		break;
	case 51: case 52:	/* FUTEX_WAIT (value differs), FUTEX_WAKE */
		s->fd = FUTEX2_U32;
		s->addr = (unsigned long)&e->futex;
		s->off = 1;
		s->addr3 = FUTEX_BITSET_MATCH_ANY;
		break;
	case 53:	/* FUTEX_WAITV */
		s->fd = 0;
		s->addr = (unsigned long)&e->waitv;
		s->len = 1;
		break;
	case 54:	/* FIXED_FD_INSTALL of registered slot 0 */
		s->fd = 0;
		s->flags = IOSQE_FIXED_FILE;
		break;
	case 55:	/* FTRUNCATE */
		s->fd = e->file;
		s->off = 64;
		break;
	case 56:	/* BIND */
		s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
		s->addr = (unsigned long)&e->bsa;
		s->off = sizeof(e->bsa);
		break;
	case 57:	/* LISTEN */
		s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
		s->len = 1;
		break;
	case 58: case 59:	/* READV_FIXED, WRITEV_FIXED: in the registered buffer */
		s->fd = e->file;
		s->addr = (unsigned long)&e->fiov;
		s->len = 1;
		s->buf_index = 0;
		break;
	case 60:	/* EPOLL_WAIT: the socket EPOLL_CTL added has data */
		s->fd = e->epfd;
		s->addr = (unsigned long)&e->ev;
		s->len = 1;
		break;
	case 61:	/* NOP128: on the ring of 128-byte entries */
		break;
	case 62:	/* PIPE */
		s->addr = (unsigned long)e->pfds;
		break;
	case 63:	/*
			 * RECV_ZC: without a zero-copy receive queue the prep
			 * fails and the request is never issued; the case only
			 * shows that it does not get audited
			 */
		s->fd = e->sv[1];
		break;
	case 64:	/* URING_CMD128: a regular file has none */
		s->fd = e->file;
		break;
	default:
		return 0;
	}
	return n;
}

/* the 128-byte opcodes need a ring of 128-byte entries */
static bool op_is_128(int op)
{
	return op == 61 || op == 64;
}

static bool kernel_has[256];

/* child: one request of every opcode the kernel has, in opcode order */
static int child_all_ops(void *arg)
{
	static struct env e;
	struct io_uring_sqe sqe[2];
	int i, n, res, ret = env_init(&e);

	if (ret)
		return ret;
	for (i = 0; i < NPOLICY; i++) {
		if (!kernel_has[policy[i].op])
			continue;
		n = build(&e, policy[i].op, sqe);
		if (!n)
			return 20;
		res = submit(op_is_128(policy[i].op) ? &e.r128 : &e.r, sqe, n);
		if (policy[i].op == 18 && res >= 0)
			e.opened = res;
		fprintf(stderr, "# %-16s res=%d\n", policy[i].name, res);
		if (res <= -1000)
			return 21;
	}
	return 0;
}

FIXTURE(uring_policy) {
	struct audit_nl nl;
	bool ready;
};

FIXTURE_SETUP(uring_policy)
{
	if (!uring_available())
		SKIP(_exit(AUDIT_SKIP_STATUS), "io_uring not available");
	audit_fixture_setup(_metadata, &self->nl);
	snprintf(dir, sizeof(dir), "/tmp/audit_uring_policy_XXXXXX");
	audit_setup_ok(_metadata, &self->nl, mkdtemp(dir), "mkdtemp");
	self->ready = true;
}

FIXTURE_TEARDOWN(uring_policy)
{
	char cmd[sizeof(dir) + 16];

	audit_fixture_teardown(_metadata, &self->nl);
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "# could not remove %s\n", dir);
	}
}

/*
 * every opcode of this kernel has a decision in the table; an opcode newer
 * than the table is reported, and the test skips
 */
TEST_F(uring_policy, table_complete)
{
	int n, op, i, unknown = 0;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");
	n = probe_ops(kernel_has, 256);
	ASSERT_LT(0, n);
	for (op = 0; op < n; op++) {
		if (!kernel_has[op])
			continue;
		for (i = 0; i < NPOLICY && policy[i].op != op; i++)
			;
		if (i == NPOLICY) {
			TH_LOG("io_uring opcode %d: not in the table, not checked",
			       op);
			unknown++;
		}
	}
	if (unknown)
		SKIP(return, "%d io_uring opcode(s) this test does not know", unknown);
}

/* audited opcodes produce a URINGOP record under a rule, skipped ones not */
TEST_F(uring_policy, records)
{
	struct audit_nl *nl = &self->nl;
	struct audit_rule r;
	int status, i, wrong = 0;
	pid_t pid;

	if (!self->ready)
		SKIP(return, "the fixture setup skipped");
	ASSERT_LT(0, probe_ops(kernel_has, 256));
	r = uring_rule(-1, "t_policy");
	ASSERT_EQ(0, audit_add(nl, &r));
	pid = audit_run_child(child_all_ops, NULL, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("the io_uring child failed at step %d", WEXITSTATUS(status));
	}
	ASSERT_LE(0, audit_sync(nl));
	for (i = 0; i < NPOLICY; i++) {
		bool seen;

		if (!kernel_has[policy[i].op])
			continue;
		seen = has_uringop(nl, policy[i].op, pid);
		if (seen != policy[i].audited) {
			TH_LOG("IORING_OP_%s (%d): %s, the policy says %s",
			       policy[i].name, policy[i].op,
			       seen ? "audited" : "not audited",
			       policy[i].audited ? "audited" : "skipped");
			wrong++;
		}
	}
	EXPECT_EQ(0, wrong);
}

TEST_HARNESS_MAIN
