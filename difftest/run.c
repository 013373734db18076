// SPDX-License-Identifier: GPL-2.0
/*
 * The traced task of audit-difftest. run_trace() runs in the child that
 * the daemon forks for a seed: it marks the start of the trace and the end
 * of each step with a user message of its own, waits for the daemon's go
 * before each step (spinning in user space first where the step says so)
 * and runs the step, in its own context, which lives for the whole trace,
 * or in a grandchild (gc_*(): exec, seccomp, crash, terminal, ...).
 */
#include "difftest.h"

/* ---------- the child: running the trace ---------- */

static int fds[2] = { -1, -1 };	/* the trace's open files */
static struct ring ring;
static bool have_ring;

static long in_grandchild(int (*fn)(const struct step *), const struct step *s)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(fn(s));
	if (syscall(SYS_wait4, -1, &st, 0, NULL) < 0)
		return -errno;
	if (WIFSIGNALED(st))
		return 1000 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static long sys_ret(long r)
{
	return r < 0 ? -errno : r;
}

static long run_op(int t, int ai, int bi, int flags, int modei, bool abs);

static int gc_exec(const struct step *s)
{
	char *argv[] = { "true", "difftest", NULL }, *envp[] = { NULL };

	syscall(SYS_execve, s->t == T_EXEC ? "/bin/true" : ROOT "/nx/true",
		argv, envp);
	return 127;
}

static int gc_compat(const struct step *s)
{
	char *argv[] = { "compat_helper", NULL }, *envp[] = { NULL };

	(void)s;
	syscall(SYS_execve, COMPAT_HELPER, argv, envp);
	return 127;
}

/* whether this kernel runs compat_helper: a 32-bit task that exits 0 */
bool compat_runs(void)
{
	struct step s = { .t = T_COMPAT };

	return AUDIT_ARCH_COMPAT && !access(COMPAT_HELPER, X_OK) &&
	       in_grandchild(gc_compat, &s) == 0;
}

static char *const no_env[] = { NULL };

/* exec_argv: /bin/true (busybox) with the step's argument vector */
static int gc_exec_argv(const struct step *s)
{
	build_args(&xargs, s->kind, s->seed);
	syscall(SYS_execve, "/bin/true", xargs.argv, no_env);
	return 127;
}

/*
 * exec_cwd: a relative path from a directory of the scratch tree, whose
 * name may need hex (CWD, PATH); a symlink to /bin/true or a hard link of
 * the busybox copy, which gives its own comm= (the link's name) and exe=.
 */
static int gc_exec_cwd(const struct step *s)
{
	char d[64];

	snprintf(d, sizeof(d), ROOT "/%s", exec_dirs[s->a]);
	if (syscall(SYS_chdir, d))
		return 2;
	build_args(&xargs, ARGS_SHORT, s->seed);
	syscall(SYS_execve, exec_rel[s->b], xargs.argv, no_env);
	return 127;
}

/*
 * exec_name: a hard link of the busybox copy whose name needs hex in comm=
 * and exe=, or is longer than comm's 15 characters; sometimes padded with
 * "./" to a long PATH name (one at PATH_MAX fails with ENAMETOOLONG).
 */
static int gc_exec_name(const struct step *s)
{
	static char path[PATH_MAX + 64];
	const char *name = exec_names[s->a];
	size_t n = 0;

	if (s->abs)
		n = snprintf(path, sizeof(path), ROOT "/");
	while (n + strlen(name) + 2 < (size_t)s->kind) {
		path[n++] = '.';
		path[n++] = '/';
	}
	snprintf(path + n, sizeof(path) - n, "%s", name);
	build_args(&xargs, ARGS_SHORT, s->seed);
	syscall(SYS_execve, path, xargs.argv, no_env);
	return 127;
}

static int gc_exec_step(const struct step *s);

/*
 * tty: a new session whose controlling terminal is a pseudo-terminal, then
 * a step: its records show tty=pts<N> where all others show tty=(none).
 * The slave is opened through its master (TIOCGPTPEER), which names no
 * /dev/pts/<N> in a PATH record; transcripts renumber N all the same.
 * Both stay open across an exec: closing the master hangs the terminal
 * up, and SIGHUP would kill the exec'd program before it ran.
 */
static int gc_tty(const struct step *s)
{
	struct step e = { .t = s->sub, .a = s->sub_a, .b = s->sub_b,
			  .flags = s->flags, .abs = s->abs, .kind = s->kind,
			  .seed = s->seed };
	int zero = 0, n;
	long m, pt;

	if (syscall(SYS_setsid) < 0)
		return 2;
	m = sys_open("/dev/ptmx", O_RDWR | O_NOCTTY, 0);
	if (m < 0)
		return 3;
	/* unlockpt(), then the check that grantpt() makes */
	if (syscall(SYS_ioctl, m, TIOCSPTLCK, &zero) ||
	    syscall(SYS_ioctl, m, TIOCGPTN, &n))
		return 4;
	pt = syscall(SYS_ioctl, m, TIOCGPTPEER, O_RDWR | O_NOCTTY);
	if (pt < 0)
		return 5;
	if (syscall(SYS_ioctl, pt, TIOCSCTTY, 0))
		return 6;
	if (is_exec(e.t))
		return gc_exec_step(&e);
	return run_op(e.t, e.a, e.b, e.flags, e.b, e.abs) & 0xff;
}

static int gc_exec_step(const struct step *s)
{
	switch (s->t) {
	case T_EXEC_ARGV:
		return gc_exec_argv(s);
	case T_EXEC_CWD:
		return gc_exec_cwd(s);
	case T_EXEC_NAME:
		return gc_exec_name(s);
	}
	return 126;
}

static int gc_seccomp(const struct step *s)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_uname, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = NOPS(f), .filter = f };
	char u[512];

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 2;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    s->flags & 1 ? SECCOMP_FILTER_FLAG_LOG : 0, &prog))
		return 3;
	syscall(SYS_getpid);
	return syscall(SYS_uname, u) == -1 && errno == EPERM ? 0 : 4;
}

static int gc_anom(const struct step *s)
{
	if (syscall(SYS_setresgid, 2000, 2000, 2000) ||
	    syscall(SYS_setresuid, 2000, 2000, 2000))
		return 2;
	if (s->t == T_ANOM_SYMLINK) {
		long fd = sys_open(ROOT "/sticky/l", O_RDONLY, 0);

		return fd < 0 ? errno : 0;
	}
	return sys_link(ROOT "/f0", ROOT "/sticky/h") ? errno : 0;
}

static int gc_capset(const struct step *s)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return 2;
	/* in the traced task: set what it has (CAPSET, where not a dummy) */
	if (s->t == T_CAPSET_SELF)
		return syscall(SYS_capset, &h, d) ? errno : 0;
	d[0].effective &= ~(1U << CAP_SYS_ADMIN);
	if (s->flags & 1)
		d[0].permitted &= ~(1U << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d) ? errno : 0;
}

/*
 * Set audit_enabled to 1, what it is: the kernel logs a CONFIG_CHANGE
 * record during this task's sendto(), which with no rule loaded turns a
 * dummy context into one that logs the syscall at exit. T_CONFIG runs it
 * in a fresh grandchild, T_CONFIG_SELF in the traced task, sometimes with
 * the rate and backlog limits as well (up to three records in one syscall).
 */
static int gc_config(const struct step *s)
{
	/* in the traced task: one to three settings, a record for each */
	static const __u32 masks[] = {
		AUDIT_STATUS_ENABLED,
		AUDIT_STATUS_ENABLED | AUDIT_STATUS_RATE_LIMIT,
		AUDIT_STATUS_ENABLED | AUDIT_STATUS_RATE_LIMIT |
		AUDIT_STATUS_BACKLOG_LIMIT,
	};
	struct {
		struct nlmsghdr h;
		struct audit_status st;
	} m = {
		.h = { .nlmsg_len = sizeof(m), .nlmsg_type = AUDIT_SET,
		       .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 },
		/* the values the daemon set up: nothing changes */
		.st = { .mask = s->t == T_CONFIG_SELF ? masks[s->flags % 3] :
				AUDIT_STATUS_ENABLED,
			.enabled = 1, .rate_limit = 0, .backlog_limit = 16384 },
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), r;

	if (fd < 0)
		return 2;
	r = sendto(fd, &m, sizeof(m), 0, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return r == sizeof(m) ? 0 : 3;
}

/*
 * Enter the denied domain, then chdir("/"), a dir search it may not make:
 * an AVC record in the chdir's event (denied when enforcing, allowed and
 * logged when permissive). Nothing after the transition is checked but
 * the exit.
 */
static int gc_avc(const struct step *s)
{
	int fd = open("/proc/self/attr/current", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, lsm_denied, strlen(lsm_denied)) < 0)
		return 2;
	close(fd);
	return syscall(SYS_chdir, "/") ? 1 : 0;
}

/*
 * Crash without a syscall that names a pid (kill(getpid()) would put the
 * raw pid in a0, which differs between boots of a debug kernel).
 */
static int gc_crash(const struct step *s)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	if (s->flags & 1)
		__builtin_trap();			/* SIGILL */
	*(volatile int *)(unsigned long)s->flags = 0;	/* SIGSEGV */
	return 0;
}

/*
 * kill(0, 0) to a process group of its own: the signal's targets become
 * OBJ_PID records, the first through the context's target_* fields, the
 * others through its aux_pids list. With flags bit 0 the group has a
 * second member, a child that has exited: a zombie stays in its group
 * until it is reaped, and waiting for it first (without reaping it)
 * orders its exit records before ours. No argument holds a raw pid.
 */
static int gc_kill(const struct step *s)
{
	siginfo_t si;
	long r;

	if (syscall(SYS_setpgid, 0, 0))
		return 2;
	if (s->flags & 1) {
		pid_t pid = fork();

		if (pid < 0)
			return 3;
		if (!pid)
			_exit(0);
		if (syscall(SYS_waitid, P_ALL, 0, &si, WEXITED | WNOWAIT, NULL))
			return 4;
	}
	r = syscall(SYS_kill, 0, 0) ? errno : 0;
	if (s->flags & 1)
		syscall(SYS_wait4, -1, NULL, 0, NULL);
	return r;
}

static int gc_as_user(const struct step *s)
{
	if (syscall(SYS_setresgid, 1000, 1000, 1000) ||
	    syscall(SYS_setresuid, 1000, 1000, 1000))
		return 2;
	return run_op(s->sub, s->sub_a, s->sub_b, s->flags, s->sub_b, s->abs) & 0xff;
}

static long uring_op(const struct step *s)
{
	struct io_uring_sqe sqe = {};
	static struct statx stx;
	static char buf[64];
	char a[64], b[64];
	int op = uring_pool[s->b].nr;

	if (!have_ring) {
		int ret = ring_init(&ring);

		if (ret)
			return ret;
		have_ring = true;
	}
	path_of(a, sizeof(a), s->a, s->abs);
	path_of(b, sizeof(b), (s->a + 3) % NOPS(names), s->abs);
	sqe.opcode = op;
	sqe.fd = AT_FDCWD;
	switch (op) {
	case IORING_OP_OPENAT:
		sqe.addr = (unsigned long)a;
		sqe.open_flags = open_flags[s->flags];
		sqe.len = 0644;
		break;
	case IORING_OP_CLOSE:
	case IORING_OP_FSYNC:
		sqe.fd = fds[s->flags & 1];
		break;
	case IORING_OP_READ:
	case IORING_OP_WRITE:
		sqe.fd = fds[s->flags & 1];
		sqe.addr = (unsigned long)buf;
		sqe.len = sizeof(buf);
		break;
	case IORING_OP_STATX:
		sqe.addr = (unsigned long)a;
		sqe.len = STATX_BASIC_STATS;
		sqe.off = (unsigned long)&stx;
		break;
	case IORING_OP_UNLINKAT:
		sqe.addr = (unsigned long)a;
		break;
	case IORING_OP_MKDIRAT:
		sqe.addr = (unsigned long)a;
		sqe.len = 0755;
		break;
	case IORING_OP_RENAMEAT:
		sqe.addr = (unsigned long)a;
		sqe.len = AT_FDCWD;
		sqe.addr2 = (unsigned long)b;
		break;
	}
	{
		long ret = ring_run(&ring, &sqe);

		if (op == IORING_OP_OPENAT && ret >= 0) {
			if (fds[s->flags & 1] >= 0)
				syscall(SYS_close, fds[s->flags & 1]);
			fds[s->flags & 1] = ret;
		} else if (op == IORING_OP_CLOSE && ret == 0) {
			fds[s->flags & 1] = -1;
		}
		return ret;
	}
}

/* security.capability, revision 2: CAP_NET_RAW permitted and effective */
static const struct vfs_cap_data fcaps = {
	.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
	.data[0].permitted = 1U << CAP_NET_RAW,
};

static int login_fd = -1;	/* the traced task's /proc/self/loginuid */

/*
 * Write the traced task's loginuid in one pwrite(): a LOGIN record, in any
 * context. Unsetting it (4294967295) ends the session; the next write sets
 * one again without privilege.
 */
static long self_login(int flags)
{
	static const char *const auids[] = { "1000", "2000", "4294967295" };
	const char *v = auids[flags % 3];

	return sys_ret(syscall(SYS_pwrite64, login_fd, v, strlen(v), 0));
}

static long run_op(int t, int ai, int bi, int flags, int modei, bool abs)
{
	struct step s = { .t = t, .a = ai, .b = bi, .flags = flags, .abs = abs };
	char a[64], b[64], u[512];
	int slot = flags & 1;
	long r;

	path_of(a, sizeof(a), ai, abs);
	path_of(b, sizeof(b), bi, abs);
	switch (t) {
	case T_GETPID:
		syscall(SYS_getpid);
		return 0;
	case T_UNAME:
		return sys_ret(syscall(SYS_uname, u));
	case T_STAT:
	case T_LSTAT: {
		struct stat st;

		return sys_ret(t == T_STAT ? sys_stat(a, &st) : sys_lstat(a, &st));
	}
	case T_OPEN:
		r = sys_ret(sys_open(a, open_flags[flags % NOPS(open_flags)], 0644));
		if (r >= 0) {
			if (fds[slot] >= 0)
				syscall(SYS_close, fds[slot]);
			fds[slot] = r;
		}
		return r;
	case T_CLOSE:
		r = sys_ret(syscall(SYS_close, fds[slot]));
		fds[slot] = -1;
		return r;
	case T_WRITE:
		return sys_ret(syscall(SYS_write, fds[slot], "x", 1));
	case T_UNLINK:
		return sys_ret(sys_unlink(a));
	case T_RENAME:
		return sys_ret(sys_rename(a, b));
	case T_MKDIR:
		return sys_ret(sys_mkdir(a, 0755));
	case T_RMDIR:
		return sys_ret(sys_rmdir(a));
	case T_CHMOD:
		return sys_ret(sys_chmod(a, modes[modei % NOPS(modes)]));
	case T_FCHMOD:
		return sys_ret(syscall(SYS_fchmod, fds[slot], modes[modei % NOPS(modes)]));
	case T_LCHOWN:
		return sys_ret(sys_lchown(a, 1000, slot ? 1000 : -1));
	case T_LINK:
		return sys_ret(sys_link(a, b));
	case T_SYMLINK:
		return sys_ret(sys_symlink(a, b));
	case T_READLINK:
		return sys_ret(sys_readlink(a, u, sizeof(u)));
	case T_TRUNCATE:
		return sys_ret(syscall(SYS_truncate, a, 3));
	case T_SETXATTR:
		/*
		 * One in three sets file capabilities, then opens the file:
		 * PATH records show them (cap_fp=...) until a write to the
		 * file drops them again.
		 */
		if (flags % 3 == 2) {
			long fd;

			r = sys_ret(syscall(SYS_setxattr, a, "security.capability",
					    &fcaps, sizeof(fcaps), 0));
			fd = r ? -1 : sys_open(a, O_RDONLY, 0);
			if (fd >= 0)
				syscall(SYS_close, fd);
			return r;
		}
		return sys_ret(syscall(SYS_setxattr, a, slot ? "user.dt" : "trusted.dt",
				       "v", 1, 0));
	case T_ACCESS:
		return sys_ret(sys_access(a, W_OK));
	case T_BADPTR:
		return sys_ret(slot ? sys_open((void *)8, 0, 0) : sys_unlink((void *)8));
	case T_EXEC:
	case T_EXEC_NX:
		return in_grandchild(gc_exec, &s);
	case T_COMPAT:
		return in_grandchild(gc_compat, &s);
	case T_SECCOMP:
		return in_grandchild(gc_seccomp, &s);
	case T_ANOM_SYMLINK:
	case T_ANOM_HARDLINK:
		return in_grandchild(gc_anom, &s);
	case T_CAPSET:
		return in_grandchild(gc_capset, &s);
	case T_CRASH:
		return in_grandchild(gc_crash, &s);
	case T_AVC:
		return in_grandchild(gc_avc, &s);
	case T_KILL:
		return in_grandchild(gc_kill, &s);
	case T_CONFIG:
		return in_grandchild(gc_config, &s);
	case T_LOGIN:
		return self_login(flags);
	case T_CONFIG_SELF:
		return gc_config(&s);
	case T_CAPSET_SELF:
		return gc_capset(&s);
	case T_ANOM_SELF:
		/* root follows uid 1000's link in the sticky directory */
		return sys_ret(sys_open("sticky/l", O_RDONLY, 0));
	case T_PIPE: {
		int p[2];

		r = sys_ret(syscall(SYS_pipe2, p, 0));
		if (!r) {
			syscall(SYS_close, p[0]);
			syscall(SYS_close, p[1]);
		}
		return r;
	}
	case T_FAIL_REMOVE: {
		struct stat st;

		/*
		 * A failed call right before removing a file (a watch with a
		 * status field is its pair): the inode filters the removal
		 * runs must not see the failed call's status.
		 */
		if (slot)
			syscall(SYS_close, -1);				/* EBADF */
		else
			sys_stat(ROOT "/nx/f0", &st);		/* ENOENT */
		if (flags >= 3)
			return sys_ret(sys_rename(a, b));
		return sys_ret(sys_unlink(a));
	}
	case T_SOCKET: {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		long fd = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);

		if (fd < 0)
			return -errno;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", a);
		r = sys_ret(syscall(SYS_bind, fd, &sun, sizeof(sun)));
		syscall(SYS_close, fd);
		return r;
	}
	}
	return -ENOSYS;
}

/*
 * The child marks the end of each step with a user message of its own:
 * its records are queued in the order it runs, so the records of step i
 * are exactly those between its markers i - 1 and i, whatever the timing.
 */
static void child_marker(struct audit_nl *c, const char *what, long r)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "difftest_%s_%ld", what, r);
	audit_send_raw(c, AUDIT_USER, 0, msg, strlen(msg) + 1);
}

void run_trace(const struct step *steps, int n, int go)
{
	struct audit_nl *c = calloc(1, sizeof(*c));
	int i;
	char what[16], ch;

	if (!c || audit_open(c) || chdir(ROOT))
		_exit(2);
	login_fd = open(LOGINUID, O_WRONLY);
	if (login_fd < 0)
		_exit(2);
	child_marker(c, "start", 0);
	for (i = 0; i < n; i++) {
		const struct step *s = &steps[i];
		long r;

		if (read(go, &ch, 1) != 1)
			_exit(3);
		if (s->spin) {
			/* no syscall until the daemon has changed the rules */
			STORE(spin->spinning, i + 1);
			while (LOAD(spin->release) != i + 1)
				;
		}
		if (s->t == T_URING)
			r = uring_op(s);
		else if (s->t == T_AS_USER)
			r = in_grandchild(gc_as_user, s);
		else if (s->t == T_TTY)
			r = in_grandchild(gc_tty, s);
		else if (is_exec(s->t))
			r = in_grandchild(gc_exec_step, s);
		else
			r = run_op(s->t, s->a, s->b, s->flags, s->b, s->abs);
		snprintf(what, sizeof(what), "step%d", i);
		child_marker(c, what, r);
	}
	if (read(go, &ch, 1) != 1)
		_exit(3);
	_exit(0);
}
