// SPDX-License-Identifier: GPL-2.0
/*
 * audit-bench: per-operation cost of syscalls that audit sees, run inside the
 * test guest. Under QEMU with -icount shift=0,sleep=off the guest's
 * CLOCK_MONOTONIC advances one ns per guest instruction, so the ns/op this
 * prints are guest instructions per operation.
 *
 *   audit-bench [-n iterations] [-r repetitions] [-u opcode] [-d|-s|-a]
 *               [-b empty|ring] workload...
 *   audit-bench [-r repetitions] -t count[,count...]
 *
 * -u adds an io_uring-list rule ("always" for io_uring opcode @opcode) over
 * the audit netlink socket first; auditctl in Debian 12 cannot add one.
 * -d starts a reader that becomes the audit daemon and discards records.
 * -s starts a stalled one instead: it registers as the audit daemon with
 * the default receive buffer and reads nothing while a repetition runs;
 * after each, it reports what its socket holds, then empties it.
 * -a reports, as -d does, records lost and backlog waits, for a daemon
 * that runs already (auditd).
 * -b attaches an eBPF program to the sys_enter and sys_exit raw tracepoints
 * instead (bench/bpf-hook.c), as endpoint agents hook syscalls: "empty",
 * or "ring", which writes an event per hit to a ring buffer that a reader
 * drains; the timed loop then ends when the reader has taken every event
 * the loop wrote.
 *
 * -t times the rule table's updates with count rules of a compliance-style
 * shape on the syscall exit list (one syscall each, arch=, two auid=
 * fields, a key): loading them one by one as "auditctl -R" does, adding
 * one more rule and deleting it again (the mean of ten), and flushing
 * them one by one as "auditctl -D" does, after one run of each count that
 * is not timed.  It expects no rules loaded and prints, per count and
 * repetition, guest instructions in all:
 *   RULETIME rules=<count> rep=<r> load=<x> add=<x> del=<x> flush=<x>
 *
 * Workloads: getpid, getppid (audited by the "match" rule set), getpid_tree
 * (getpid after one stat of /tmp/audit-bench/0, the directory of a dir= rule
 * of the "ten" and "match" sets: the task's context then keeps a block for
 * tree references), stat,
 * openclose, rw (512 B /dev/zero -> /dev/null), fstat, lseek, ioctl
 * (FIONBIO), mmap (mmap + munmap of an anonymous page),
 * exec (fork + execve of true + wait), execargs (fork + execve of this
 * program with ten arguments, one long and one that needs hex encoding,
 * + wait; "match" records the execve), execpar2 and execpar8 (2 or 8
 * tasks doing execargs at once, cost per exec), openwatch (open + close
 * of a file that a path= rule of "match" watches), uring_nop (one NOP per enter),
 * uring_nop32 (32 per enter, cost per request), uring_openat (OPENAT +
 * CLOSE of a tmpfs file, audited opcodes), sqpoll_nop32 (32 NOPs through
 * an SQPOLL ring, cost per request).
 *
 * A workload that is a path (/bench/srctree.sh) is a script: each
 * repetition forks a child that sets its login uid to 1000 (as pam_loginuid
 * does for a login session), takes uid and gid 1000, and runs the script with
 * /bin/sh from /home/user, after one run that is not timed. The time is the
 * script's, start to exit (iters=1); between repetitions kauditd's queue is
 * left to empty, and each prints the AUDITSTAT line below.
 *
 * Prints one line per workload and repetition:
 *   BENCH <workload> rep=<r> iters=<n> ns_per_op=<x.y>
 * and with -d or -a, from the kernel's audit status before and after:
 *   AUDITSTAT <workload> rep=<r> lost=<records lost> backlog_wait_time_actual=<ms>
 * and with -s, what the stalled daemon's socket held at the end:
 *   QUEUED <workload> rep=<r> records=<n> rmem_alloc=<bytes> rcvbuf=<bytes>
 * and with -b ring, the events the reader took and those the ring had no
 * room for:
 *   BPFSTAT <workload> rep=<r> events=<n> lost=<n>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf-hook.h"

static long iters = 20000;
static char buf[512];
static int zero_fd = -1, null_fd = -1;
static int reader_started;	/* -d or -s */
static int report_status;	/* -a */
static int stall_cmd = -1, stall_rep = -1;	/* -s: the pipes to the reader */
static struct io_uring ring, sqpoll_ring;

static void die(const char *what, int err)
{
	fprintf(stderr, "audit-bench: %s: %s\n", what, strerror(err));
	exit(3);
}

static void w_getpid(void)
{
	syscall(SYS_getpid);
}

/* the syscall the "match" configuration's rule audits */
static void w_getppid(void)
{
	syscall(SYS_getppid);
}

/* getpid, once the task's context has referenced a tree (see main()) */
static void w_getpid_tree(void)
{
	syscall(SYS_getpid);
}

static void w_stat(void)
{
	struct stat st;

	stat("/bench/audit-bench", &st);
}

static void w_openclose(void)
{
	int fd = open("/bench/audit-bench", O_RDONLY);

	if (fd >= 0)
		close(fd);
}

static void w_rw(void)
{
	if (read(zero_fd, buf, sizeof(buf)) != sizeof(buf) ||
	    write(null_fd, buf, sizeof(buf)) != sizeof(buf))
		exit(3);
}

/*
 * Hot syscalls of real programs, called directly (the C library may use
 * other syscalls for them): fstat, lseek and ioctl of an open file, and
 * mmap + munmap of an anonymous page.
 */
static void w_fstat(void)
{
	struct stat st;

	if (syscall(SYS_fstat, zero_fd, &st))
		exit(3);
}

static void w_lseek(void)
{
	if (syscall(SYS_lseek, zero_fd, 0L, SEEK_SET))
		exit(3);
}

static void w_ioctl(void)
{
	int off = 0;

	if (syscall(SYS_ioctl, null_fd, FIONBIO, &off))
		exit(3);
}

static void w_mmap(void)
{
	long p = syscall(SYS_mmap, NULL, 4096L, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);

	if (p == -1 || syscall(SYS_munmap, p, 4096L))
		exit(3);
}

/*
 * execargs: fork + execve of this program with an argument list like a
 * build's (several options and paths, one that needs hex encoding in the
 * EXECVE record, one long one), which exits at once (main(): "-x").
 * With the "match" rule set the execve is recorded: SYSCALL, EXECVE, CWD,
 * PATH, PROCTITLE, EOE.
 */
static const char long_pfx[] = "--include-dir=/usr/src/with\ttab/";
static char long_arg[600];
static char *exec_argv[] = {
	"audit-bench", "-x", "-O2", "-Wall", "-c", "-o", "/tmp/obj/main.o",
	"-DNAME=\"audit bench\"", "src/main.c", long_arg, NULL
};

static void exec_self(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		execv("/bench/audit-bench", exec_argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		die("execargs", pid < 0 ? errno : ECHILD);
}

static void w_execargs(void)
{
	exec_self();
}

/*
 * execpar2, execpar8: 2 or 8 tasks doing execargs PAR_EXECS times each at
 * once, the throughput of a build server; the cost is per exec of all.
 */
#define PAR_EXECS 4

static void exec_par(int tasks)
{
	pid_t pid;
	int t, i, st;

	for (t = 0; t < tasks; t++) {
		pid = fork();
		if (pid < 0)
			die("fork", errno);
		if (!pid) {
			for (i = 0; i < PAR_EXECS; i++)
				exec_self();
			_exit(0);
		}
	}
	for (t = 0; t < tasks; t++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			die("execpar", ECHILD);
}

static void w_execpar2(void)
{
	exec_par(2);
}

static void w_execpar8(void)
{
	exec_par(8);
}

/* openwatch: open + close of a file that a path= rule of "match" watches */
static void w_openwatch(void)
{
	int fd = open("/tmp/bench-watched", O_RDONLY);

	if (fd < 0)
		die("/tmp/bench-watched", errno);
	close(fd);
}

static void w_exec(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
}

static void ring_setup(struct io_uring *r, unsigned int flags)
{
	int ret;

	if (r->ring_fd > 0)
		return;
	ret = io_uring_queue_init(64, r, flags);
	if (ret < 0)
		die(flags & IORING_SETUP_SQPOLL ? "io_uring_queue_init(SQPOLL)" :
		    "io_uring_queue_init", -ret);
}

static struct io_uring_sqe *get_sqe(struct io_uring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	if (!sqe)
		die("io_uring_get_sqe", EBUSY);
	return sqe;
}

/* submit what is queued, wait for n completions, return the last result */
static int reap(struct io_uring *r, unsigned int n)
{
	struct io_uring_cqe *cqe;
	int ret, res = 0;

	ret = io_uring_submit_and_wait(r, n);
	if (ret < 0)
		die("io_uring_submit_and_wait", -ret);
	while (n--) {
		ret = io_uring_wait_cqe(r, &cqe);
		if (ret < 0)
			die("io_uring_wait_cqe", -ret);
		res = cqe->res;
		io_uring_cqe_seen(r, cqe);
	}
	return res;
}

/* one NOP per io_uring_enter(): the per-request and per-enter costs */
static void w_uring_nop(void)
{
	io_uring_prep_nop(get_sqe(&ring));
	reap(&ring, 1);
}

/* 32 NOPs per io_uring_enter(): per request, the cost of the issue path */
#define BATCH 32
static void w_uring_nop32(void)
{
	int i;

	for (i = 0; i < BATCH; i++)
		io_uring_prep_nop(get_sqe(&ring));
	reap(&ring, BATCH);
}

/* an audited opcode: OPENAT of a tmpfs file, then CLOSE of the new fd */
static void w_uring_openat(void)
{
	int fd;

	io_uring_prep_openat(get_sqe(&ring), AT_FDCWD, "/tmp/bench-file",
			     O_RDONLY, 0);
	fd = reap(&ring, 1);
	if (fd < 0)
		die("IORING_OP_OPENAT", -fd);
	io_uring_prep_close(get_sqe(&ring), fd);
	if (reap(&ring, 1))
		die("IORING_OP_CLOSE", EIO);
}

/* 32 NOPs through the SQPOLL thread; the submitter waits in io_uring_enter() */
static void w_sqpoll_nop32(void)
{
	int i;

	for (i = 0; i < BATCH; i++)
		io_uring_prep_nop(get_sqe(&sqpoll_ring));
	reap(&sqpoll_ring, BATCH);
}

/* add "-a always,io_uring" for opcode @op; audit records go nowhere slow */
static void add_uring_rule(int op)
{
	struct {
		struct nlmsghdr h;
		struct audit_rule_data d;
	} req = {
		.h.nlmsg_len = sizeof(req),
		.h.nlmsg_type = AUDIT_ADD_RULE,
		.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.d.flags = AUDIT_FILTER_URING_EXIT,
		.d.action = AUDIT_ALWAYS,
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack;
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);

	req.d.mask[op / 32] = 1u << (op % 32);
	if (fd < 0 || sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
			     sizeof(sa)) < 0)
		die("audit netlink", errno);
	if (recv(fd, &ack, sizeof(ack), 0) < (ssize_t)sizeof(ack))
		die("audit netlink ack", errno);
	if (ack.h.nlmsg_type == NLMSG_ERROR && ack.e.error)
		die("AUDIT_ADD_RULE (io_uring)", -ack.e.error);
	close(fd);
	printf("RULES io_uring opcode %d loaded=1\n", op);
}

/* -t: rules of the shape compliance files have, by the hundred */
static const int rule_syscalls[] = {
	SYS_openat, SYS_unlinkat, SYS_renameat2, SYS_fchmodat, SYS_fchownat,
	SYS_mkdirat, SYS_truncate, SYS_ftruncate, SYS_setxattr, SYS_lsetxattr,
	SYS_fsetxattr, SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr,
	SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_mount,
	SYS_umount2, SYS_linkat, SYS_symlinkat, SYS_sethostname,
	SYS_settimeofday, SYS_clock_settime,
};

#if defined(__x86_64__)
#define RULE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RULE_ARCH AUDIT_ARCH_AARCH64
#endif

static int rule_fd = -1;

/* Send rule @i (or the extra one, i < 0) with @type; 0 or -errno. */
static int rule_send(int type, int i)
{
	static char msg[NLMSG_SPACE(sizeof(struct audit_rule_data) + 32)];
	struct nlmsghdr *h = (struct nlmsghdr *)msg;
	struct audit_rule_data *d = NLMSG_DATA(h);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack;
	int sc = rule_syscalls[(i < 0 ? 0 : i) %
			       (sizeof(rule_syscalls) / sizeof(*rule_syscalls))];
	unsigned int f = 0;
	int len;

	memset(msg, 0, sizeof(msg));
	d->flags = AUDIT_FILTER_EXIT;
	d->action = AUDIT_ALWAYS;
	d->mask[sc / 32] = 1u << (sc % 32);
#ifdef RULE_ARCH
	d->fields[f] = AUDIT_ARCH;
	d->fieldflags[f] = AUDIT_EQUAL;
	d->values[f++] = RULE_ARCH;
#endif
	d->fields[f] = AUDIT_LOGINUID;
	d->fieldflags[f] = AUDIT_GREATER_THAN_OR_EQUAL;
	d->values[f++] = 1000;
	d->fields[f] = AUDIT_LOGINUID;
	d->fieldflags[f] = AUDIT_NOT_EQUAL;
	d->values[f++] = 4294967295u;
	if (i < 0)
		len = snprintf(d->buf, 32, "rule-extra");
	else
		len = snprintf(d->buf, 32, "rule-%d", i);
	d->fields[f] = AUDIT_FILTERKEY;
	d->fieldflags[f] = AUDIT_EQUAL;
	d->values[f++] = len;
	d->field_count = f;
	d->buflen = len;
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*d) + len);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (sendto(rule_fd, msg, h->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		die("audit netlink", errno);
	if (recv(rule_fd, &ack, sizeof(ack), 0) < (ssize_t)sizeof(ack) ||
	    ack.h.nlmsg_type != NLMSG_ERROR)
		die("audit netlink ack", EPROTO);
	return ack.e.error;
}

static void rule_must(int type, int i)
{
	int err = rule_send(type, i);

	if (err)
		die(type == AUDIT_ADD_RULE ? "AUDIT_ADD_RULE" : "AUDIT_DEL_RULE",
		    -err);
}

static double now_ns(void);

/* rep < 0: a warm-up run, not printed */
static void rule_times(int count, int rep)
{
	double t0, load, add = 0, del = 0, flush;
	int i, k;

	if (rule_fd < 0)
		rule_fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
	if (rule_fd < 0)
		die("audit netlink", errno);
	/* a rule of our own already there: a run that did not clean up */
	if (rule_send(AUDIT_DEL_RULE, 0) != -ENOENT)
		die("rule-0 was loaded before the run", EEXIST);
	t0 = now_ns();
	for (i = 0; i < count; i++)
		rule_must(AUDIT_ADD_RULE, i);
	load = now_ns() - t0;
	for (k = 0; k < 10; k++) {
		t0 = now_ns();
		rule_must(AUDIT_ADD_RULE, -1);
		add += now_ns() - t0;
		t0 = now_ns();
		rule_must(AUDIT_DEL_RULE, -1);
		del += now_ns() - t0;
	}
	t0 = now_ns();
	for (i = 0; i < count; i++)
		rule_must(AUDIT_DEL_RULE, i);
	flush = now_ns() - t0;
	if (rep < 0)
		return;
	printf("RULETIME rules=%d rep=%d load=%.0f add=%.0f del=%.0f flush=%.0f\n",
	       count, rep, load, add / 10, del / 10, flush);
	fflush(stdout);
}

/* what a stalled reader's socket holds, as the parent prints it */
struct queued {
	unsigned int records, rmem_alloc, rcvbuf;
};

static char reader_buf[16384];

/*
 * -s: the reader waits for a command from the parent instead of reading.
 * On each, it reports what its receive queue holds and empties it.
 */
static void stalled_reader(int fd, int cmd, int rep)
{
	struct queued q;
	__u32 mi[SK_MEMINFO_VARS];
	socklen_t len;
	char c;

	while (read(cmd, &c, 1) == 1) {
		memset(&q, 0, sizeof(q));
		len = sizeof(mi);
		if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len))
			_exit(1);
		q.rmem_alloc = mi[SK_MEMINFO_RMEM_ALLOC];
		q.rcvbuf = mi[SK_MEMINFO_RCVBUF];
		for (;;) {
			if (recv(fd, reader_buf, sizeof(reader_buf),
				 MSG_DONTWAIT) >= 0)
				q.records++;
			else if (errno == EAGAIN)
				break;
			else if (errno != EINTR && errno != ENOBUFS)
				_exit(1);
		}
		if (write(rep, &q, sizeof(q)) != sizeof(q))
			_exit(1);
	}
	_exit(0);
}

/*
 * -d: fork a reader that registers as the audit daemon and discards what it
 * receives, so that records of matching syscalls are delivered as they are
 * on a real system rather than printed on the console. -s (stalled): the
 * same daemon, with the default receive buffer, reading only when asked.
 */
static void start_audit_reader(int stalled)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} req = {
		.h.nlmsg_len = sizeof(req),
		.h.nlmsg_type = AUDIT_SET,
		.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.s.mask = AUDIT_STATUS_PID | AUDIT_STATUS_ENABLED,
		.s.enabled = 1,
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int ready[2], cmd[2] = { -1, -1 }, rep[2] = { -1, -1 };
	int fd, rcvbuf = 4 << 20;
	struct nlmsghdr *ack = (void *)reader_buf;
	pid_t pid;
	char c;

	if (reader_started)
		die("-d and -s: one reader", EINVAL);
	if (pipe(ready) || (stalled && (pipe(cmd) || pipe(rep))))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (pid) {
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1 || c != 'y')
			die("audit reader", EPROTO);
		close(ready[0]);
		if (stalled) {
			close(cmd[0]);
			close(rep[1]);
			stall_cmd = cmd[1];
			stall_rep = rep[0];
		}
		printf("READER pid=%d registered as the audit daemon%s\n", pid,
		       stalled ? ", stalled" : "");
		reader_started = 1;
		return;
	}
	if (stalled) {
		close(cmd[1]);
		close(rep[0]);
	}
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
	if (fd < 0)
		_exit(1);
	if (!stalled)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			   sizeof(rcvbuf));
	req.s.pid = getpid();
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		_exit(1);
	/* the kernel's answer comes first: registered, or not */
	if (recv(fd, reader_buf, sizeof(reader_buf), 0) < (ssize_t)NLMSG_HDRLEN ||
	    ack->nlmsg_type != NLMSG_ERROR ||
	    ((struct nlmsgerr *)NLMSG_DATA(ack))->error)
		_exit(1);
	c = 'y';
	if (write(ready[1], &c, 1) != 1)
		_exit(1);
	close(ready[1]);
	if (stalled)
		stalled_reader(fd, cmd[0], rep[1]);
	for (;;)
		if (recv(fd, reader_buf, sizeof(reader_buf), 0) < 0 &&
		    errno != EINTR && errno != ENOBUFS)
			_exit(0);
}

/* the kernel's audit status (AUDIT_GET), for lost records and backlog waits */
static void audit_status_get(struct audit_status *st)
{
	struct nlmsghdr req = {
		.nlmsg_len = sizeof(req),
		.nlmsg_type = AUDIT_GET,
		.nlmsg_flags = NLM_F_REQUEST,
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} rep;
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
	ssize_t n;

	/* audit=0: no audit socket, nothing lost, no backlog */
	if (fd < 0 && errno == EPROTONOSUPPORT) {
		memset(st, 0, sizeof(*st));
		return;
	}
	if (fd < 0 || sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
			     sizeof(sa)) < 0)
		die("AUDIT_GET", errno);
	memset(&rep, 0, sizeof(rep));
	n = recv(fd, &rep, sizeof(rep), 0);
	if (n < (ssize_t)sizeof(rep.h) || rep.h.nlmsg_type != AUDIT_GET)
		die("AUDIT_GET reply", EPROTO);
	*st = rep.s;
	close(fd);
}

static const struct workload {
	const char *name;
	void (*fn)(void);
	int div;		/* fewer iterations for heavy workloads */
	int per;		/* operations per call of fn */
	unsigned int ring;	/* 0, or the flags of the ring it needs */
} workloads[] = {
	{ "getpid", w_getpid, 1, 1 },
	{ "getppid", w_getppid, 1, 1 },
	{ "getpid_tree", w_getpid_tree, 1, 1 },
	{ "stat", w_stat, 4, 1 },
	{ "openclose", w_openclose, 4, 1 },
	{ "rw", w_rw, 2, 1 },
	{ "fstat", w_fstat, 1, 1 },
	{ "lseek", w_lseek, 1, 1 },
	{ "ioctl", w_ioctl, 1, 1 },
	{ "mmap", w_mmap, 4, 1 },
	{ "exec", w_exec, 200, 1 },
	{ "execargs", w_execargs, 200, 1 },
	{ "execpar2", w_execpar2, 200 * 2 * PAR_EXECS, 2 * PAR_EXECS },
	{ "execpar8", w_execpar8, 200 * 8 * PAR_EXECS, 8 * PAR_EXECS },
	{ "openwatch", w_openwatch, 4, 1 },
	{ "uring_nop", w_uring_nop, 2, 1, 1 },
	{ "uring_nop32", w_uring_nop32, 32, BATCH, 1 },
	{ "uring_openat", w_uring_openat, 8, 1, 1 },
	{ "sqpoll_nop32", w_sqpoll_nop32, 32, BATCH, IORING_SETUP_SQPOLL },
};

/*
 * scripts/profile.sh's QEMU plugin (bench/qemu-profile.c) counts the guest
 * instructions executed between a call of profile_start() and the next
 * call of profile_stop(), found by their addresses in this static binary:
 * exactly the timed loop.
 */
__attribute__((noinline, used)) void profile_start(void)
{
	asm volatile("" ::: "memory");
}

__attribute__((noinline, used)) void profile_stop(void)
{
	asm volatile("" ::: "memory");
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * -s, and after a script workload's run: wait until kauditd has dealt with
 * what the workload queued (its queue empty and no record lost for
 * 100 ms; at most ten guest seconds); with -s, then have the reader count
 * what its socket holds and empty it.
 */
static void stall_settle(struct audit_status *st)
{
	unsigned int lost;
	int tries = 100;

	audit_status_get(st);
	do {
		lost = st->lost;
		usleep(100000);
		audit_status_get(st);
	} while ((st->lost != lost || st->backlog) && --tries);
	if (!tries)
		fprintf(stderr, "audit-bench: kauditd still busy after 10 s\n");
}

/*
 * A script workload: one run of @path as a logged-in user (loginuid, uid and
 * gid 1000), timed from fork to its exit.
 */
#define SCRIPT_UID 1000
static double run_script(const char *path)
{
	double t0 = now_ns();
	char uid[16];
	int status, fd;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (!pid) {
		snprintf(uid, sizeof(uid), "%d", SCRIPT_UID);
		fd = open("/proc/self/loginuid", O_WRONLY);
		if (fd < 0 || write(fd, uid, strlen(uid)) < 0)
			die("/proc/self/loginuid", errno);
		close(fd);
		if (setgroups(0, NULL) || setgid(SCRIPT_UID) ||
		    setuid(SCRIPT_UID))
			die("setuid", errno);
		if (chdir("/home/user"))
			die("/home/user", errno);
		execl("/bin/sh", "sh", path, (char *)NULL);
		die(path, errno);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid", errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "audit-bench: %s failed (status %#x)\n", path,
			status);
		exit(3);
	}
	return now_ns() - t0;
}

static void stall_drain(struct queued *q)
{
	if (write(stall_cmd, "q", 1) != 1 ||
	    read(stall_rep, q, sizeof(*q)) != sizeof(*q))
		die("stalled reader", EPIPE);
}

int main(int argc, char **argv)
{
	int reps = 3, opt, i, r;
	char *rule_counts = NULL;
	pid_t child = -1;
	long j, n;

	/* the program execargs runs */
	if (argc > 1 && !strcmp(argv[1], "-x"))
		_exit(0);
	/* a long path with a tab: the EXECVE record has it in hex */
	memset(long_arg, 'x', sizeof(long_arg) - 1);
	memcpy(long_arg, long_pfx, sizeof(long_pfx) - 1);
	while ((opt = getopt(argc, argv, "ab:dsn:r:t:u:")) != -1) {
		switch (opt) {
		case 't': rule_counts = optarg; break;
		case 'n': iters = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'u': add_uring_rule(atoi(optarg)); break;
		case 'd': start_audit_reader(0); break;
		case 's': start_audit_reader(1); break;
		case 'a': report_status = 1; break;
		case 'b': bpf_hook_start(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n iters] [-r reps] [-u opcode] [-d|-s|-a] [-b empty|ring] workload...\n"
				"       %s [-r reps] -t count[,count...]\n", argv[0], argv[0]);
			return 2;
		}
	}
	if (rule_counts) {
		char *c = rule_counts;

		while (*c) {
			int count = strtol(c, &c, 10);

			if (count <= 0 || (*c && *c++ != ','))
				die("-t: counts are positive numbers", EINVAL);
			for (r = -1; r < reps; r++)
				rule_times(count, r);
		}
	}
	zero_fd = open("/dev/zero", O_RDONLY);
	null_fd = open("/dev/null", O_WRONLY);
	for (; optind < argc; optind++) {
		const struct workload *w = NULL;

		if (argv[optind][0] == '/') {
			const char *name = strrchr(argv[optind], '/') + 1;
			int len = strcspn(name, ".");
			struct audit_status s0, s1;
			double ns;

			if (stall_cmd >= 0)
				die("-s with a script workload", EINVAL);

			run_script(argv[optind]);	/* warm up */
			stall_settle(&s0);
			for (r = 0; r < reps; r++, s0 = s1) {
				ns = run_script(argv[optind]);
				stall_settle(&s1);
				printf("BENCH %.*s rep=%d iters=1 ns_per_op=%.1f\n",
				       len, name, r, ns);
				printf("AUDITSTAT %.*s rep=%d lost=%u backlog_wait_time_actual=%u\n",
				       len, name, r, s1.lost - s0.lost,
				       s1.backlog_wait_time_actual -
				       s0.backlog_wait_time_actual);
				fflush(stdout);
			}
			continue;
		}

		for (i = 0; i < (int)(sizeof(workloads) / sizeof(*workloads)); i++)
			if (!strcmp(workloads[i].name, argv[optind]))
				w = &workloads[i];
		if (!w) {
			fprintf(stderr, "unknown workload %s\n", argv[optind]);
			return 2;
		}
		if (w->ring)
			ring_setup(w->ring == IORING_SETUP_SQPOLL ?
				   &sqpoll_ring : &ring, w->ring & ~1u);
		if (w->fn == w_openwatch) {
			int fd = open("/tmp/bench-watched", O_CREAT | O_RDWR, 0600);

			if (fd < 0)
				die("/tmp/bench-watched", errno);
			close(fd);
		}
		if (w->fn == w_uring_openat) {
			int fd = open("/tmp/bench-file", O_CREAT | O_RDWR, 0600);

			if (fd < 0)
				die("/tmp/bench-file", errno);
			close(fd);
		}
		if (w->fn == w_getpid_tree) {
			struct stat st;
			int status;

			/*
			 * In a child: the block of tree references stays with
			 * it, and the workloads after this one run as before.
			 */
			fflush(stdout);
			child = fork();
			if (child < 0)
				die("fork", errno);
			if (child > 0) {
				if (waitpid(child, &status, 0) != child ||
				    !WIFEXITED(status) || WEXITSTATUS(status))
					exit(3);
				continue;
			}
			/* boots without rules do not make the directory */
			mkdir("/tmp/audit-bench", 0755);
			mkdir("/tmp/audit-bench/0", 0755);
			if (stat("/tmp/audit-bench/0", &st))
				die("/tmp/audit-bench/0", errno);
		}
		n = iters / w->div;
		if (n < 10)
			n = 10;
		for (j = 0; j < n / 10; j++)	/* warm up */
			w->fn();
		if (bpf_hook_ring())		/* from an empty ring */
			bpf_hook_sync();
		if (stall_cmd >= 0) {		/* from an empty socket */
			struct audit_status st;
			struct queued q;

			stall_settle(&st);
			stall_drain(&q);
		}
		for (r = 0; r < reps; r++) {
			unsigned long long ev0, ev1, lost0, lost1;
			double t0 = now_ns(), t1;
			struct audit_status s0, s1;

			if (reader_started || report_status)
				audit_status_get(&s0);

			if (bpf_hook_ring())
				bpf_hook_stat(&ev0, &lost0);
			profile_start();
			for (j = 0; j < n; j++)
				w->fn();
			if (bpf_hook_ring())
				bpf_hook_sync();
			profile_stop();
			t1 = now_ns();
			printf("BENCH %s rep=%d iters=%ld ns_per_op=%.1f\n",
			       w->name, r, n * w->per, (t1 - t0) / (n * w->per));
			if (bpf_hook_ring()) {
				bpf_hook_stat(&ev1, &lost1);
				printf("BPFSTAT %s rep=%d events=%llu lost=%llu\n",
				       w->name, r, ev1 - ev0, lost1 - lost0);
			}
			if (stall_cmd >= 0)
				stall_settle(&s1);
			if (reader_started || report_status) {
				audit_status_get(&s1);
				printf("AUDITSTAT %s rep=%d lost=%u backlog_wait_time_actual=%u\n",
				       w->name, r, s1.lost - s0.lost,
				       s1.backlog_wait_time_actual -
				       s0.backlog_wait_time_actual);
			}
			if (stall_cmd >= 0) {
				struct queued q;

				stall_drain(&q);
				printf("QUEUED %s rep=%d records=%u ", w->name,
				       r, q.records);
				printf("rmem_alloc=%u rcvbuf=%u\n",
				       q.rmem_alloc, q.rcvbuf);
			}
			fflush(stdout);
		}
		if (!child)
			exit(0);
	}
	return 0;
}
