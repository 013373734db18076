// SPDX-License-Identifier: GPL-2.0
/*
 * audit-difftest: the differential record test's guest program.
 *
 * For each seed it builds a scratch tree, loads a random rule set over
 * netlink (exit, task, exclude and io_uring lists), runs a random trace of
 * syscalls and io_uring requests in a child process, and collects every
 * record the kernel emits, step by step. The records are normalised (event
 * serials, timestamps, pids, inode numbers and user-space pointers differ
 * between boots) into a transcript; the same seed gives the same transcript
 * on any kernel that emits the same records. scripts/difftest.sh runs the
 * same seeds on two kernels and compares.
 *
 *   audit-difftest [-c] [-s FIRST] [-n COUNT] [-l SEED,SEED,...] [-p SEED] [-v]
 *
 * Prints "DIFFTEST seed=S rules=A/B steps=N records=R hash=H" per seed, and
 * with -v (or -p for seed S alone) the whole transcript ("DT S | line"),
 * printed after the seed. Ends with a coverage line
 * per record type. Exit status 0 unless the harness itself failed.
 *
 * The trace includes calls that make other kernel code emit records in the
 * middle of a syscall: a seccomp filter (RET_LOG, RET_ERRNO), protected
 * symlink and hardlink denials (ANOM_LINK), capset (CAPSET), a crashing
 * process (ANOM_ABEND), exec (EXECVE), unix socket bind (SOCKADDR), pipe
 * (FD_PAIR), a signal to a process group (OBJ_PID, one or two targets),
 * setting audit_enabled (CONFIG_CHANGE, logged in the task's sendto()).
 * Some of these run in the traced task itself, which lives for the whole
 * trace, so that its audit context carries what earlier syscalls left in
 * it: loginuid writes (LOGIN), AUDIT_SET requests that log one to three
 * CONFIG_CHANGE records in one syscall, capset and a protected_symlinks
 * denial. Between two steps it sometimes deletes one of the loaded rules
 * while the task waits in a syscall; at others it deletes all of them,
 * deletes one or adds one while the task spins in user space, between two
 * syscalls. One seed in seven loads no rule at all.
 * io_uring requests use only opcodes whose audit policy the series leaves
 * alone (the policy changes are uring_policy_test's).
 * The exec steps fill the record buffer's corners: argument vectors with
 * strings the kernel writes in hex, arguments longer than an EXECVE record
 * holds, vectors that take several records, records just over 512 and
 * 1024 bytes, long and encoded PATH, CWD, PROCTITLE, comm= and exe=
 * values; one step runs with a controlling terminal (tty=pts).
 * On a kernel with SELinux and a policy loaded (the LSM test variant's),
 * exit rules also name subj_type=, subj_user=, subj_role= and obj_type=
 * (the task's own type or one that matches nothing), a step has a child
 * enter audit_test_denied_t, the test policy's domain that is allowed
 * nothing, and make one denied access (an AVC record in its syscall), and
 * the daemon sometimes loads the policy again while the task spins, which
 * copies every rule with an LSM field (-L turns this off).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>

#include "audit_common.h"

/*
 * Every raw syscall of the trace passes zeros for the arguments it does
 * not take. a0-a3 of its records show the argument registers, and what an
 * unused one held depends on how long the task waited in user space, which
 * differs between two kernels (io_uring_setup()'s a3 on arm64).
 */
#define syscall(...)	syscall(__VA_ARGS__, 0L, 0L, 0L, 0L, 0L, 0L)

#include "uring_common.h"

#define ROOT		"/tmp/dt"
#define MAX_RULES	12
#define MAX_STEPS	32
#define STEP_MS		10000
#define LOGINUID	"/proc/self/loginuid"

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELEASE)

/*
 * The trace's path syscalls: the classic ones where the architecture has
 * them (x86_64), else the *at forms of the generic table (arm64, riscv).
 * The records then differ between architectures, never between two
 * kernels of one architecture, which is what the transcripts compare.
 */
#ifdef SYS_open
#define sys_open(p, f, m)	syscall(SYS_open, p, f, m)
#define sys_stat(p, st)		syscall(SYS_stat, p, st)
#define sys_lstat(p, st)	syscall(SYS_lstat, p, st)
#define sys_unlink(p)		syscall(SYS_unlink, p)
#define sys_rename(a, b)	syscall(SYS_rename, a, b)
#define sys_mkdir(p, m)		syscall(SYS_mkdir, p, m)
#define sys_rmdir(p)		syscall(SYS_rmdir, p)
#define sys_chmod(p, m)		syscall(SYS_chmod, p, m)
#define sys_lchown(p, u, g)	syscall(SYS_lchown, p, u, g)
#define sys_link(a, b)		syscall(SYS_link, a, b)
#define sys_symlink(a, b)	syscall(SYS_symlink, a, b)
#define sys_readlink(p, b, n)	syscall(SYS_readlink, p, b, n)
#define sys_access(p, m)	syscall(SYS_access, p, m)
#define NR_UNLINK		SYS_unlink
#define NR_RENAME		SYS_rename
#define NAME_UNLINK		"unlink"
#define NAME_RENAME		"rename"
#define PATH_SYSCALLS \
	{ SYS_open, "open" }, { SYS_openat, "openat" }, { SYS_stat, "stat" }, \
	{ SYS_lstat, "lstat" }, { SYS_unlink, "unlink" }, { SYS_rename, "rename" }, \
	{ SYS_mkdir, "mkdir" }, { SYS_rmdir, "rmdir" }, { SYS_chmod, "chmod" }, \
	{ SYS_fchmod, "fchmod" }, { SYS_lchown, "lchown" }, { SYS_link, "link" }, \
	{ SYS_symlink, "symlink" }, { SYS_readlink, "readlink" }, \
	{ SYS_truncate, "truncate" }, { SYS_setxattr, "setxattr" }, \
	{ SYS_access, "access" }
#else
#ifdef SYS_renameat
#define NR_RENAME		SYS_renameat
#define NAME_RENAME		"renameat"
#define sys_rename(a, b)	syscall(SYS_renameat, AT_FDCWD, a, AT_FDCWD, b)
#else
#define NR_RENAME		SYS_renameat2
#define NAME_RENAME		"renameat2"
#define sys_rename(a, b)	syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 0)
#endif
#define sys_open(p, f, m)	syscall(SYS_openat, AT_FDCWD, p, f, m)
#define sys_stat(p, st)		syscall(SYS_newfstatat, AT_FDCWD, p, st, 0)
#define sys_lstat(p, st)	syscall(SYS_newfstatat, AT_FDCWD, p, st, AT_SYMLINK_NOFOLLOW)
#define sys_unlink(p)		syscall(SYS_unlinkat, AT_FDCWD, p, 0)
#define sys_mkdir(p, m)		syscall(SYS_mkdirat, AT_FDCWD, p, m)
#define sys_rmdir(p)		syscall(SYS_unlinkat, AT_FDCWD, p, AT_REMOVEDIR)
#define sys_chmod(p, m)		syscall(SYS_fchmodat, AT_FDCWD, p, m)
#define sys_lchown(p, u, g)	syscall(SYS_fchownat, AT_FDCWD, p, u, g, AT_SYMLINK_NOFOLLOW)
#define sys_link(a, b)		syscall(SYS_linkat, AT_FDCWD, a, AT_FDCWD, b, 0)
#define sys_symlink(a, b)	syscall(SYS_symlinkat, a, AT_FDCWD, b)
#define sys_readlink(p, b, n)	syscall(SYS_readlinkat, AT_FDCWD, p, b, n)
#define sys_access(p, m)	syscall(SYS_faccessat, AT_FDCWD, p, m)
#define NR_UNLINK		SYS_unlinkat
#define NAME_UNLINK		"unlinkat"
#define PATH_SYSCALLS \
	{ SYS_openat, "openat" }, { SYS_newfstatat, "newfstatat" }, \
	{ SYS_unlinkat, "unlinkat" }, { NR_RENAME, NAME_RENAME }, \
	{ SYS_mkdirat, "mkdirat" }, { SYS_fchmodat, "fchmodat" }, \
	{ SYS_fchmod, "fchmod" }, { SYS_fchownat, "fchownat" }, \
	{ SYS_linkat, "linkat" }, { SYS_symlinkat, "symlinkat" }, \
	{ SYS_readlinkat, "readlinkat" }, { SYS_truncate, "truncate" }, \
	{ SYS_setxattr, "setxattr" }, { SYS_faccessat, "faccessat" }
#endif

/*
 * The compat ABI (AUDIT_ARCH_COMPAT), whose tasks the trace runs where the
 * kernel lets it (compat_ok): compat_helper, a 32-bit program (the
 * selftests' own) that calls getpid and getppid and exits, numbered alike
 * in both ABIs.
 */
#define COMPAT_HELPER		"/difftest/compat_helper"
#define COMPAT_EXIT		1
#define COMPAT_GETPID		20
#define COMPAT_GETPPID		64

static bool compat_ok, compat_wanted;	/* -c: compat steps and rules */
static unsigned long compat_records;	/* SYSCALL records of compat tasks */

/*
 * SELinux, where the kernel has it and a policy is loaded (lsm_ok): this
 * task's context and its parts, the policy to load again, and the context
 * of the test policy's denied domain (avc_ok when the policy has it).
 */
#define SELINUXFS		"/sys/fs/selinux"
#define DENIED_TYPE		"audit_test_denied_t"
static bool lsm_ok, lsm_wanted = true, avc_ok;
static char lsm_user[64], lsm_role[64], lsm_type[64], lsm_denied[256];
static char *lsm_policy;
static size_t lsm_policy_len;

/* the top of user space and the start of the kernel's addresses */
#ifdef __x86_64__
#define USER_TOP	0x800000000000ULL
#define KERNEL_START	0xffff800000000000ULL
#else
#define USER_TOP	0x1000000000000ULL
#define KERNEL_START	0xffff000000000000ULL
#endif

static __u64 rng_state;

static unsigned int rnd(unsigned int n)
{
	return audit_rand(&rng_state, n);
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])
#define NOPS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---------- the transcript ---------- */

static char *tr;
static size_t tr_len, tr_cap;
static int tr_records;
static bool verbose;
static unsigned long print_seed;	/* -p: print this seed's transcript */
static unsigned long cur_seed;

static void emit(const char *fmt, ...)
{
	va_list ap;
	char line[16384];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= (int)sizeof(line))
		n = sizeof(line) - 1;
	if (tr_len + n + 2 > tr_cap) {
		tr_cap = (tr_len + n + 2) * 2;
		tr = realloc(tr, tr_cap);
		if (!tr)
			abort();
	}
	memcpy(tr + tr_len, line, n);
	tr_len += n;
	tr[tr_len++] = '\n';
	tr[tr_len] = 0;
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---------- record normalisation ---------- */

#define MAX_MAP 256

struct idmap {
	int n;
	char *key[MAX_MAP];
};

static struct idmap pids, inodes, serials, sessions, ttys;

static void idmap_clear(struct idmap *m)
{
	while (m->n)
		free(m->key[--m->n]);
}

static int idmap_get(struct idmap *m, const char *key)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->key[i], key))
			return i + 1;
	if (m->n == MAX_MAP)
		return 0;
	m->key[m->n] = strdup(key);
	return ++m->n;
}

static const struct { int type; const char *name; } type_names[] = {
	{ AUDIT_SYSCALL, "SYSCALL" }, { AUDIT_PATH, "PATH" },
	{ AUDIT_IPC, "IPC" }, { AUDIT_SOCKETCALL, "SOCKETCALL" },
	{ AUDIT_CONFIG_CHANGE, "CONFIG_CHANGE" }, { AUDIT_SOCKADDR, "SOCKADDR" },
	{ AUDIT_CWD, "CWD" }, { AUDIT_EXECVE, "EXECVE" },
	{ AUDIT_MMAP, "MMAP" }, { AUDIT_FD_PAIR, "FD_PAIR" },
	{ AUDIT_OBJ_PID, "OBJ_PID" }, { AUDIT_BPRM_FCAPS, "BPRM_FCAPS" },
	{ AUDIT_CAPSET, "CAPSET" }, { AUDIT_SECCOMP, "SECCOMP" },
	{ AUDIT_PROCTITLE, "PROCTITLE" }, { AUDIT_EOE, "EOE" },
	{ AUDIT_ANOM_ABEND, "ANOM_ABEND" }, { AUDIT_ANOM_LINK, "ANOM_LINK" },
	{ AUDIT_URINGOP, "URINGOP" }, { AUDIT_USER, "USER" },
	{ AUDIT_KERNEL, "KERNEL" }, { AUDIT_LOGIN, "LOGIN" },
	{ AUDIT_AVC, "AVC" }, { AUDIT_MAC_POLICY_LOAD, "MAC_POLICY_LOAD" },
};

static const char *type_name(int type)
{
	static char buf[16];
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	snprintf(buf, sizeof(buf), "TYPE%d", type);
	return buf;
}

/* coverage over all seeds: records seen per type */
static struct { int type; unsigned long n; } seen[64];

static void count_type(int type)
{
	int i;

	for (i = 0; i < 64 && seen[i].type; i++)
		if (seen[i].type == type)
			break;
	if (i == 64)
		return;
	seen[i].type = type;
	seen[i].n++;
}

static bool is_pid_syscall(const struct audit_record *r)
{
	const char *s = audit_field(r, "syscall");
	const char *arch = audit_field(r, "arch");
	int nr = s ? atoi(s) : -1;

	if (arch && strtoul(arch, NULL, 16) != AUDIT_ARCH_NATIVE)
		return nr == COMPAT_GETPID || nr == COMPAT_GETPPID;
	return nr == SYS_clone ||
#ifdef SYS_fork
	       nr == SYS_fork || nr == SYS_vfork ||
#endif
	       nr == SYS_wait4 || nr == SYS_clone3 || nr == SYS_getpid ||
	       nr == SYS_getppid || nr == SYS_gettid ||
	       nr == SYS_set_tid_address || nr == SYS_setsid;
}

/* above the static binary's base, below the top of user space */
static bool is_user_addr(unsigned long long v)
{
	return v >= 0x400000 && v < USER_TOP;
}

/* neither a small (or small negative) number nor a user address */
static bool is_junk(unsigned long long v)
{
	return v >= USER_TOP && v < KERNEL_START;
}

/*
 * Features of the records that the exec and tty steps are there for: the
 * seeds whose transcripts show each are counted and printed at the end.
 */
enum {
	RC_EXECVE_HEX,		/* an EXECVE argument in hex */
	RC_EXECVE_EMPTY,	/* an empty one ("") */
	RC_EXECVE_SPLIT,	/* an argument in pieces: aN_len= aN[0]= ... */
	RC_EXECVE_RECORDS,	/* one exec logging two or more EXECVE records */
	RC_RECORD_512,		/* an EXECVE or PATH record of 513 to 576 bytes */
	RC_RECORD_1024,		/* one of 1025 to 1088 bytes */
	RC_PATH_HEX,		/* a PATH name in hex */
	RC_PATH_LONG,		/* a PATH record longer than 1024 bytes */
	RC_PROCTITLE_HEX,	/* a PROCTITLE in hex */
	RC_PROCTITLE_CUT,	/* a PROCTITLE cut at 128 bytes */
	RC_CWD_HEX,		/* a CWD in hex */
	RC_COMM_HEX,		/* comm= in hex */
	RC_COMM_CUT,		/* comm= of 15 characters, a longer name cut */
	RC_EXE_HEX,		/* exe= in hex */
	RC_TTY,			/* tty=pts */
	RC_NR
};

static const char *const rc_names[RC_NR] = {
	"execve-hex-arg", "execve-empty-arg", "execve-split-arg",
	"execve-records>=2", "record-513..576", "record-1025..1088",
	"path-hex", "path-record>1024", "proctitle-hex", "proctitle-cut",
	"cwd-hex", "comm-hex", "comm-cut", "exe-hex", "tty-pts",
};

static bool rc_seed[RC_NR];		/* this seed's */
static unsigned long rc_seeds[RC_NR];	/* seeds with each */
static unsigned long execve_serial;	/* the last EXECVE record's event */
static int execve_records;		/* and how many it has had */

/*
 * The quote each field's value had in the record, 0 for none: the parser
 * strips quotes, the transcript keeps them, so that a string the kernel
 * quoted is told from one it wrote in hex. This walks the text exactly as
 * audit_record_parse() does.
 */
static void field_quotes(const struct audit_record *r, char *q)
{
	const char *p = r->text;
	unsigned long sec, msec, serial;
	int i = 0;

	if (sscanf(p, "audit(%lu.%lu:%lu):", &sec, &msec, &serial) == 3)
		p = strstr(p, "): ") ? strstr(p, "): ") + 3 : p + strlen(p);
	while (*p && i < r->nfields) {
		while (*p == ' ')
			p++;
		while (*p && *p != '=' && *p != ' ')
			p++;
		if (*p != '=')
			continue;
		p++;
		q[i] = 0;
		if (*p == '"' || *p == '\'') {
			q[i] = *p++;
			while (*p && *p != q[i])
				p++;
			if (*p)
				p++;
		} else {
			while (*p && *p != ' ')
				p++;
		}
		i++;
	}
	while (i < r->nfields)
		q[i++] = 0;
}

/*
 * A value longer than this (the hex of a long argument, a long path) is
 * written as its first 48 and last 16 characters, its length and a hash
 * of the whole: lines stay readable, and any change to the value still
 * changes the transcript.
 */
#define LONG_VALUE	256

static const char *short_value(const char *v, char *out, size_t n)
{
	size_t len = strlen(v);

	if (len <= LONG_VALUE)
		return v;
	snprintf(out, n, "%.48s..%s<%zu chars, fnv %016llx>", v, v + len - 16,
		 len, (unsigned long long)fnv1a(v, len));
	return out;
}

/*
 * rdev= of a pseudo-terminal's slave (majors 136 to 143, written in hex):
 * its name, "pts<index>", in @name
 */
static bool is_pts_rdev(const char *v, char *name, size_t n)
{
	unsigned int major, minor;

	if (sscanf(v, "%x:%x", &major, &minor) != 2 || major < 136 || major > 143)
		return false;
	snprintf(name, n, "pts%u", (major - 136) * 256 + minor);
	return true;
}

/* an EXECVE argument: aN or one of its pieces aN[i] */
static bool is_execve_arg(const char *k)
{
	if (k[0] != 'a' || k[1] < '0' || k[1] > '9')
		return false;
	k += strspn(k + 1, "0123456789") + 1;
	return !*k || *k == '[';
}

/* note which of the exec steps' features record @r shows */
static void record_features(const struct audit_record *r, const char *q)
{
	size_t len = strlen(r->text);
	int i;

	if (r->type == AUDIT_EXECVE) {
		if (r->serial != execve_serial) {
			execve_serial = r->serial;
			execve_records = 0;
		}
		rc_seed[RC_EXECVE_RECORDS] |= ++execve_records >= 2;
	}
	if (r->type == AUDIT_EXECVE || r->type == AUDIT_PATH) {
		rc_seed[RC_RECORD_512] |= len > 512 && len <= 576;
		rc_seed[RC_RECORD_1024] |= len > 1024 && len <= 1088;
	}
	if (r->type == AUDIT_PATH)
		rc_seed[RC_PATH_LONG] |= len > 1024;
	for (i = 0; i < r->nfields; i++) {
		const char *k = r->fields[i].key, *v = r->fields[i].val;
		bool hex = !q[i] && strcmp(v, "(null)") && strcmp(v, "?");

		if (r->type == AUDIT_EXECVE && is_execve_arg(k)) {
			rc_seed[RC_EXECVE_HEX] |= hex;
			rc_seed[RC_EXECVE_EMPTY] |= q[i] && !*v;
			rc_seed[RC_EXECVE_SPLIT] |= !!strchr(k, '[');
		} else if (r->type == AUDIT_PATH && !strcmp(k, "name")) {
			rc_seed[RC_PATH_HEX] |= hex;
		} else if (r->type == AUDIT_PROCTITLE && !strcmp(k, "proctitle")) {
			rc_seed[RC_PROCTITLE_HEX] |= hex;
			rc_seed[RC_PROCTITLE_CUT] |= strlen(v) == (hex ? 256 : 128);
		} else if (r->type == AUDIT_CWD && !strcmp(k, "cwd")) {
			rc_seed[RC_CWD_HEX] |= hex;
		} else if (r->type == AUDIT_SYSCALL && !strcmp(k, "comm")) {
			rc_seed[RC_COMM_HEX] |= hex;
			rc_seed[RC_COMM_CUT] |= strlen(v) == (hex ? 30 : 15);
		} else if (r->type == AUDIT_SYSCALL && !strcmp(k, "exe")) {
			rc_seed[RC_EXE_HEX] |= hex;
		} else if (!strcmp(k, "tty")) {
			rc_seed[RC_TTY] |= !strncmp(v, "pts", 3);
		}
	}
}

static void emit_record(const struct audit_record *r)
{
	char line[16384], v[64], *q = calloc(r->nfields + 1, 1);
	size_t n = 0;
	int i;

	if (!q)
		abort();
	field_quotes(r, q);
	record_features(r, q);
	if (AUDIT_ARCH_COMPAT && r->type == AUDIT_SYSCALL && audit_field(r, "arch") &&
	    strtoul(audit_field(r, "arch"), NULL, 16) == AUDIT_ARCH_COMPAT)
		compat_records++;
	n += snprintf(line + n, sizeof(line) - n, "  %s ev=%d", type_name(r->type),
		      idmap_get(&serials, (snprintf(v, sizeof(v), "%lu", r->serial), v)));
	for (i = 0; i < r->nfields && n < sizeof(line) - 1; i++) {
		const char *k = r->fields[i].key, *val = r->fields[i].val;
		char out[128];

		if (!strcmp(k, "pid") || !strcmp(k, "ppid") || !strcmp(k, "opid") ||
		    (!strcmp(k, "exit") && r->type == AUDIT_SYSCALL &&
		     is_pid_syscall(r) && atol(val) > 0)) {
			snprintf(out, sizeof(out), "P%d", idmap_get(&pids, val));
			val = out;
		} else if (!strcmp(k, "comm") && (!strncmp(val, "iou-wrk-", 8) ||
						  !strncmp(val, "iou-sqp-", 8))) {
			/* io_uring's threads are named after their creator's pid */
			snprintf(out, sizeof(out), "%.8sP%d", val, idmap_get(&pids, val + 8));
			val = out;
		} else if ((!strcmp(k, "ses") || !strcmp(k, "old-ses") ||
			    !strcmp(k, "oses")) &&
			   strcmp(val, "4294967295")) {
			/* session ids count the loginuid writes of the boot */
			snprintf(out, sizeof(out), "S%d", idmap_get(&sessions, val));
			val = out;
		} else if (!strcmp(k, "inode") || !strcmp(k, "ino")) {
			snprintf(out, sizeof(out), "I%d", idmap_get(&inodes, val));
			val = out;
		} else if (!strcmp(k, "tty") && !strncmp(val, "pts", 3)) {
			/* the index of a pseudo-terminal is the allocator's */
			snprintf(out, sizeof(out), "ptsT%d", idmap_get(&ttys, val));
			val = out;
		} else if (!strcmp(k, "rdev") && is_pts_rdev(val, out, sizeof(out))) {
			/* and so is the minor of its device (136:N is ptsN) */
			snprintf(out, sizeof(out), "ptsT%d", idmap_get(&ttys, out));
			val = out;
		} else if (r->type == AUDIT_SYSCALL && k[0] == 'a' && k[1] >= '0' &&
			   k[1] <= '3' && !k[2] && is_user_addr(strtoull(val, NULL, 16))) {
			/* a user-space address: its value depends on the layout */
			val = "ADDR";
		} else if (r->type == AUDIT_SYSCALL && k[0] == 'a' && k[1] >= '0' &&
			   k[1] <= '3' && !k[2] && is_junk(strtoull(val, NULL, 16))) {
			/*
			 * An argument the syscall does not take: the register
			 * may hold anything, the stack canary included.
			 */
			val = "JUNK";
		} else if (r->type == AUDIT_SYSCALL && !strcmp(k, "exit") &&
			   is_user_addr(strtoull(val, NULL, 10))) {
			/* mmap() and brk() return addresses */
			/* a user-space address: its value depends on the layout */
			val = "ADDR";
		} else if (r->type == AUDIT_SECCOMP && !strcmp(k, "ip")) {
			val = "ADDR";
		} else {
			val = short_value(val, out, sizeof(out));
		}
		if (q[i])
			n += snprintf(line + n, sizeof(line) - n, " %s=%c%s%c", k,
				      q[i], val, q[i]);
		else
			n += snprintf(line + n, sizeof(line) - n, " %s=%s", k, val);
	}
	free(q);
	emit("%s", line);
	tr_records++;
	count_type(r->type);
}

/* ---------- collecting the records of one step ---------- */

static struct audit_nl nl;
static bool harness_error;

/*
 * Emit (normalised) the first @m records queued, an event at a time: each
 * with the records of its serial that came after it past other tasks'
 * events, in their order. The records of two tasks' events interleave as
 * the scheduler interleaves the tasks, which a kernel that takes other
 * instruction counts (the series) shifts; within an event their order is
 * the kernel's, and so is the order of one task's events: an event of the
 * same task, or of one whose task no record names (no pid=), between two
 * records of an event keeps them apart, as the kernel queued them. kauditd's
 * own bookkeeping and the markers (USER) are skipped.
 */
static void emit_events(int m)
{
	const char **pid = calloc(m + 1, sizeof(*pid));
	bool *done = calloc(m + 1, sizeof(*done));
	int i, j, k;

	if (!done || !pid)
		abort();
	/* each record's event's pid=, from any record of that event */
	for (i = 0; i < m; i++)
		for (k = 0; k < m && !pid[i]; k++)
			if (nl.rec[k].serial == nl.rec[i].serial)
				pid[i] = audit_field(&nl.rec[k], "pid");
	for (i = 0; i < m; i++) {
		if (done[i] || nl.rec[i].type == AUDIT_USER)
			continue;
		emit_record(&nl.rec[i]);
		done[i] = true;
		if (!pid[i])
			continue;
		for (j = i + 1; j < m; j++) {
			if (done[j] || nl.rec[j].type == AUDIT_USER)
				continue;
			if (nl.rec[j].serial == nl.rec[i].serial) {
				emit_record(&nl.rec[j]);
				done[j] = true;
			} else if (!pid[j] || !strcmp(pid[j], pid[i])) {
				break;
			}
		}
	}
	free(done);
	free(pid);
}

/* Emit every record queued before a fresh marker. */
static void collect(const char *label)
{
	int m = audit_sync(&nl), i;

	if (m < 0) {
		emit("%s: marker lost", label);
		harness_error = true;
		audit_records_clear(&nl);
		return;
	}
	emit_events(m);
	for (i = 0; i <= m; i++)
		audit_record_free(&nl.rec[i]);
	memmove(&nl.rec[0], &nl.rec[m + 1], (nl.nrec - m - 1) * sizeof(nl.rec[0]));
	nl.nrec -= m + 1;
}

/* ---------- the scratch tree ---------- */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

/*
 * The exec steps run busybox (true) under names of the scratch tree: hard
 * links need a copy on its file system (the tmpfs of /tmp), made once, out
 * of the tree that each seed builds anew.
 */
#define BUSYBOX		"/bin/busybox"
#define BUSYBOX_COPY	"/tmp/dt-busybox"

/* directories exec_cwd runs in: a plain name, a space, a byte >= 0x80 */
static const char *const exec_dirs[] = { "d0", "x y", "\xe9t\xe9" };

/* what exec_cwd runs there: a symlink, a hard link, ones in ROOT */
static const char *const exec_rel[] = {
	"t", "./h", "../sl", "../tr ue", "../a long program name",
};

/*
 * Hard links of the copy in ROOT, for comm= and exe=: names the kernel
 * writes in hex (space, double quote, control bytes, DEL, UTF-8) and
 * names longer than comm's 15 characters.
 */
static const char *const exec_names[] = {
	"hl", "tr ue", "tr\"ue", "tr\x01ue\x1f", "true\x7f", "tr\xc3\xbc\x65",
	"a-long-program-name", "a long program name",
};

static void make_exec_tree(void)
{
	char p[128];
	int i;

	for (i = 0; i < NOPS(exec_dirs); i++) {
		snprintf(p, sizeof(p), ROOT "/%s", exec_dirs[i]);
		if (strcmp(exec_dirs[i], "d0"))
			mkdir(p, 0755);
		snprintf(p, sizeof(p), ROOT "/%s/t", exec_dirs[i]);
		if (symlink("/bin/true", p))
			harness_error = true;
		snprintf(p, sizeof(p), ROOT "/%s/h", exec_dirs[i]);
		if (link(BUSYBOX_COPY, p))
			harness_error = true;
	}
	for (i = 0; i < NOPS(exec_names); i++) {
		snprintf(p, sizeof(p), ROOT "/%s", exec_names[i]);
		if (link(BUSYBOX_COPY, p))
			harness_error = true;
	}
	if (symlink("/bin/true", ROOT "/sl"))
		harness_error = true;
}

static void make_tree(void)
{
	nftw(ROOT, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(ROOT, 0755);
	mkdir(ROOT "/d0", 0755);
	mkdir(ROOT "/d1", 0755);
	mkdir(ROOT "/sticky", 0755);
	chmod(ROOT "/sticky", 01777);
	close(open(ROOT "/f0", O_CREAT | O_WRONLY, 0600));
	close(open(ROOT "/f1", O_CREAT | O_WRONLY, 0644));
	close(open(ROOT "/f2", O_CREAT | O_WRONLY, 0644));
	if (chown(ROOT "/f2", 1000, 1000))
		harness_error = true;
	close(open(ROOT "/d0/f0", O_CREAT | O_WRONLY, 0644));
	close(open(ROOT "/d0/f1", O_CREAT | O_WRONLY, 0755));
	close(open(ROOT "/d1/f0", O_CREAT | O_WRONLY, 0644));
	if (symlink("f0", ROOT "/l0") ||
	    symlink(ROOT "/f1", ROOT "/sticky/l") ||
	    lchown(ROOT "/sticky/l", 1000, 1000))
		harness_error = true;
	make_exec_tree();
}

/* paths the trace and the rules name; "nx" does not exist */
static const char *const names[] = {
	"f0", "f1", "f2", "f3", "d0", "d0/f0", "d0/f1", "d0/f2", "d1", "d1/f0",
	"d1/f1", "l0", "nx/f0", "sticky/l", "sticky/f0", "d2",
};

/* names whose removal the trace avoids: the tree rules watch d1 */
static const char *const dir_rule_dirs[] = { ROOT "/d0", ROOT "/d1" };

/* files that watches with a status field name and fail_remove removes */
static const char *const status_watched[] = { "f0", "d1/f0" };

static int name_index(const char *n)
{
	int i;

	for (i = 0; strcmp(names[i], n); i++)
		;
	return i;
}

/* ---------- rules ---------- */

struct op_desc { __u32 op; const char *s; };

static const struct op_desc ops_all[] = {
	{ AUDIT_EQUAL, "=" }, { AUDIT_NOT_EQUAL, "!=" },
	{ AUDIT_LESS_THAN, "<" }, { AUDIT_GREATER_THAN, ">" },
	{ AUDIT_LESS_THAN_OR_EQUAL, "<=" },
	{ AUDIT_GREATER_THAN_OR_EQUAL, ">=" },
	{ AUDIT_BIT_MASK, "&" }, { AUDIT_BIT_TEST, "&=" },
};

static const struct op_desc ops_eq[] = {
	{ AUDIT_EQUAL, "=" }, { AUDIT_NOT_EQUAL, "!=" },
};

/* syscalls the trace makes, and two it never makes */
struct named_nr {
	int nr;
	const char *name;
};

static const struct named_nr sys_pool[] = {
	PATH_SYSCALLS, { SYS_execve, "execve" },
	{ SYS_getpid, "getpid" }, { SYS_uname, "uname" }, { SYS_close, "close" },
	{ SYS_read, "read" }, { SYS_write, "write" }, { SYS_capset, "capset" },
	{ SYS_setresuid, "setresuid" }, { SYS_socket, "socket" },
	{ SYS_bind, "bind" }, { SYS_pipe2, "pipe2" },
	{ SYS_io_uring_enter, "io_uring_enter" }, { SYS_kill, "kill" },
	{ SYS_mount, "mount" }, { SYS_reboot, "reboot" },
};

static const struct named_nr compat_pool[] = {
	{ COMPAT_GETPID, "getpid" }, { COMPAT_GETPPID, "getppid" },
	{ COMPAT_EXIT, "exit" },
};

static const struct named_nr uring_pool[] = {
	{ IORING_OP_NOP, "NOP" }, { IORING_OP_OPENAT, "OPENAT" },
	{ IORING_OP_CLOSE, "CLOSE" }, { IORING_OP_READ, "READ" },
	{ IORING_OP_WRITE, "WRITE" }, { IORING_OP_STATX, "STATX" },
	{ IORING_OP_UNLINKAT, "UNLINKAT" }, { IORING_OP_MKDIRAT, "MKDIRAT" },
	{ IORING_OP_RENAMEAT, "RENAMEAT" }, { IORING_OP_FSYNC, "FSYNC" },
};

static const struct { __u32 type; const char *name; } excl_types[] = {
	{ AUDIT_SYSCALL, "SYSCALL" }, { AUDIT_PATH, "PATH" }, { AUDIT_CWD, "CWD" },
	{ AUDIT_PROCTITLE, "PROCTITLE" }, { AUDIT_EXECVE, "EXECVE" },
	{ AUDIT_URINGOP, "URINGOP" }, { AUDIT_CONFIG_CHANGE, "CONFIG_CHANGE" },
	{ AUDIT_SECCOMP, "SECCOMP" }, { AUDIT_ANOM_ABEND, "ANOM_ABEND" },
	{ AUDIT_ANOM_LINK, "ANOM_LINK" }, { AUDIT_CAPSET, "CAPSET" },
	{ AUDIT_SOCKADDR, "SOCKADDR" }, { AUDIT_EOE, "EOE" },
};

static const __u32 id_vals[] = { 0, 1000, 2000, 4294967295U };

struct gen_rule {
	struct audit_rule r;
	char desc[1024];
	size_t dl;
	bool lsm;		/* it has an LSM field */
};

static void desc(struct gen_rule *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g->dl += vsnprintf(g->desc + g->dl, sizeof(g->desc) - g->dl, fmt, ap);
	va_end(ap);
	if (g->dl >= sizeof(g->desc))
		g->dl = sizeof(g->desc) - 1;
}

static void gen_num(struct gen_rule *g, __u32 field, const char *name,
		    const struct op_desc *ops, int nops, __u32 val)
{
	const struct op_desc *o = &ops[rnd(nops)];

	audit_rule_field(&g->r, field, o->op, val);
	desc(g, " -F %s%s%d", name, o->s, (int)val);
}

static void gen_str(struct gen_rule *g, __u32 field, const char *name,
		    const char *s)
{
	audit_rule_str(&g->r, field, AUDIT_EQUAL, s);
	desc(g, " -F %s=%s", name, s);
}

/*
 * An LSM field (lsm_ok): the task's own user, role or type, or for types
 * the denied domain's, which only the avc step's child has, and no file;
 * = or !=.
 */
static void gen_lsm_field(struct gen_rule *g)
{
	const struct op_desc *o = &ops_eq[rnd(NOPS(ops_eq))];
	const char *name, *v;
	__u32 field;

	switch (rnd(4)) {
	case 0:
		field = AUDIT_SUBJ_TYPE, name = "subj_type";
		v = chance(60) ? lsm_type : DENIED_TYPE;
		break;
	case 1:
		field = AUDIT_SUBJ_USER, name = "subj_user", v = lsm_user;
		break;
	case 2:
		field = AUDIT_SUBJ_ROLE, name = "subj_role", v = lsm_role;
		break;
	default:
		/* the files of the scratch tree have the task's type */
		field = AUDIT_OBJ_TYPE, name = "obj_type";
		v = chance(60) ? lsm_type : DENIED_TYPE;
		break;
	}
	audit_rule_str(&g->r, field, o->op, v);
	desc(g, " -F %s%s%s", name, o->s, v);
	g->lsm = true;
}

/* one field of an exit or io_uring rule */
static void gen_field(struct gen_rule *g, bool uring)
{
	static const int exits[] = { 0, 3, -2, -13, -17, -20, -21, -1 };
	char path[64];

	if (lsm_ok && !uring && chance(12)) {
		gen_lsm_field(g);
		return;
	}
	switch (rnd(uring ? 6 : 16)) {
	case 0:
		gen_num(g, PICK(((__u32[]){ AUDIT_UID, AUDIT_EUID, AUDIT_FSUID,
					    AUDIT_SUID })), "uid", ops_all,
			NOPS(ops_all), PICK(id_vals));
		break;
	case 1:
		gen_num(g, PICK(((__u32[]){ AUDIT_GID, AUDIT_EGID, AUDIT_FSGID })),
			"gid", ops_all, NOPS(ops_all), PICK(id_vals));
		break;
	case 2:
		gen_num(g, AUDIT_SUCCESS, "success", ops_eq, 1, rnd(2));
		break;
	case 3:
		gen_num(g, AUDIT_EXIT, "exit", ops_all, 6, PICK(exits));
		break;
	case 4:
		gen_num(g, AUDIT_LOGINUID, "auid", ops_eq, 2, PICK(id_vals));
		break;
	case 5:
		gen_str(g, AUDIT_FILTERKEY, "key", "kx");
		break;
	case 6:
		/*
		 * Only = and !=: an argument a syscall does not take is
		 * whatever its register held, which may be random (the stack
		 * canary); no such value equals these.
		 */
		gen_num(g, AUDIT_ARG0 + rnd(4), "aN", ops_eq, NOPS(ops_eq),
			PICK(((__u32[]){ 0, 1, 2, 0x41, 0x241, 0x1ff, 1000 })));
		break;
	case 7:
		snprintf(path, sizeof(path), ROOT "/%s", PICK(names));
		gen_str(g, AUDIT_WATCH, "path", path);
		break;
	case 8:
		gen_str(g, AUDIT_DIR, "dir", PICK(dir_rule_dirs));
		break;
	case 9:
		gen_num(g, AUDIT_PERM, "perm", ops_eq, 1, 1 + rnd(15));
		break;
	case 10:
		gen_num(g, AUDIT_FILETYPE, "filetype", ops_eq, 2,
			PICK(((__u32[]){ S_IFREG, S_IFDIR, S_IFLNK, S_IFSOCK })));
		break;
	case 11:
		gen_num(g, PICK(((__u32[]){ AUDIT_OBJ_UID, AUDIT_OBJ_GID })), "obj_id",
			ops_all, 6, PICK(id_vals));
		break;
	case 12:
		gen_num(g, AUDIT_FIELD_COMPARE, "compare", ops_eq, 2,
			1 + rnd(AUDIT_MAX_FIELD_COMPARE));
		break;
	case 13:
		gen_str(g, AUDIT_EXE, "exe", chance(50) ? "/bin/busybox" :
			"/difftest/audit-difftest");
		break;
	case 14:
		gen_num(g, PICK(((__u32[]){ AUDIT_DEVMAJOR, AUDIT_DEVMINOR })),
			"dev", ops_all, 6, rnd(3));
		break;
	default:
		gen_num(g, AUDIT_PPID, "ppid", ops_eq, 2, 1);
		break;
	}
}

/* all (@all_pct percent of the time), or 1 to @max of @pool */
static void gen_mask(struct gen_rule *g, unsigned int all_pct, unsigned int max,
		     const struct named_nr *pool, unsigned int npool)
{
	unsigned int n, i;

	if (chance(all_pct)) {
		audit_rule_all_syscalls(&g->r);
		desc(g, " -S all");
		return;
	}
	for (n = 1 + rnd(max); n; n--) {
		i = rnd(npool);
		audit_rule_syscall(&g->r, pool[i].nr);
		desc(g, " -S %s", pool[i].name);
	}
}

static void gen_rule(struct gen_rule *g)
{
	static const struct { __u32 list; const char *name; } lists[] = {
		{ AUDIT_FILTER_EXIT, "exit" }, { AUDIT_FILTER_EXIT, "exit" },
		{ AUDIT_FILTER_EXIT, "exit" }, { AUDIT_FILTER_EXIT, "exit" },
		{ AUDIT_FILTER_EXIT, "exit" }, { AUDIT_FILTER_TASK, "task" },
		{ AUDIT_FILTER_EXCLUDE, "exclude" },
		{ AUDIT_FILTER_URING_EXIT, "io_uring" },
		{ AUDIT_FILTER_URING_EXIT, "io_uring" },
	};
	int l = rnd(NOPS(lists)), i, n;
	__u32 action = chance(70) ? AUDIT_ALWAYS : AUDIT_NEVER;
	bool prepend = chance(20);

	memset(g, 0, sizeof(*g));
	g->r = audit_rule_new(lists[l].list | (prepend ? AUDIT_FILTER_PREPEND : 0),
			      action);
	desc(g, "%s %s,%s", prepend ? "-A" : "-a", lists[l].name,
	     action == AUDIT_ALWAYS ? "always" : "never");
	switch (lists[l].list) {
	case AUDIT_FILTER_EXIT:
		/* what auditctl -w DIR -p PERM loads: every syscall, dir=, perm= */
		if (chance(12)) {
			audit_rule_all_syscalls(&g->r);
			desc(g, " -S all");
			gen_str(g, AUDIT_DIR, "dir", PICK(dir_rule_dirs));
			gen_num(g, AUDIT_PERM, "perm", ops_eq, 1, 1 + rnd(15));
			break;
		}
		/*
		 * What a rule set that logs every program run loads: the
		 * exec steps' EXECVE, PATH, CWD and PROCTITLE records.
		 */
		if (chance(25)) {
			audit_rule_field(&g->r, AUDIT_ARCH, AUDIT_EQUAL,
					 AUDIT_ARCH_NATIVE);
			audit_rule_syscall(&g->r, SYS_execve);
			desc(g, " -F arch=b64 -S execve");
			break;
		}
		/*
		 * A watch with a status field, like a rule for failed
		 * deletions: removing the watched file runs the inode filters
		 * in the middle of the syscall (audit_update_watch()), before
		 * its status is known. The step fail_remove is its pair.
		 */
		if (chance(20)) {
			char path[64];

			if (chance(50)) {
				audit_rule_all_syscalls(&g->r);
				desc(g, " -S all");
			} else {
				audit_rule_syscall(&g->r, NR_UNLINK);
				audit_rule_syscall(&g->r, NR_RENAME);
				desc(g, " -S " NAME_UNLINK " -S " NAME_RENAME);
			}
			snprintf(path, sizeof(path), ROOT "/%s", PICK(status_watched));
			gen_str(g, AUDIT_WATCH, "path", path);
			if (chance(50))
				gen_num(g, AUDIT_SUCCESS, "success", ops_eq, 1, rnd(2));
			else
				gen_num(g, AUDIT_EXIT, "exit", ops_all, 6,
					PICK(((int[]){ -2, -9, 0, 1 })));
			break;
		}
		/*
		 * Where the trace runs compat tasks, one rule in three with an
		 * arch field names the compat ABI and its syscalls, whose
		 * numbers mean other syscalls to the native ABI.
		 */
		if (chance(85)) {
			bool ne = chance(10);
			bool b32 = compat_ok && chance(35);

			audit_rule_field(&g->r, AUDIT_ARCH,
					 ne ? AUDIT_NOT_EQUAL : AUDIT_EQUAL,
					 b32 ? AUDIT_ARCH_COMPAT : AUDIT_ARCH_NATIVE);
			desc(g, " -F arch%s%s", ne ? "!=" : "=", b32 ? "b32" : "b64");
			if (b32 && !ne) {
				gen_mask(g, 15, 2, compat_pool, NOPS(compat_pool));
				for (n = rnd(3); n; n--)
					gen_field(g, false);
				break;
			}
		}
		gen_mask(g, 15, 4, sys_pool, NOPS(sys_pool));
		for (n = rnd(4); n; n--)
			gen_field(g, false);
		break;
	case AUDIT_FILTER_URING_EXIT:
		gen_mask(g, 25, 3, uring_pool, NOPS(uring_pool));
		for (n = rnd(3); n; n--)
			gen_field(g, true);
		break;
	case AUDIT_FILTER_TASK:
		audit_rule_all_syscalls(&g->r);
		for (n = rnd(3); n; n--)
			gen_field(g, true);
		break;
	case AUDIT_FILTER_EXCLUDE: {
		/* never "!=" or "<": the markers (USER, 1005) must pass */
		static const struct op_desc xops[] = {
			{ AUDIT_EQUAL, "=" }, { AUDIT_GREATER_THAN, ">" },
			{ AUDIT_GREATER_THAN_OR_EQUAL, ">=" },
		};
		const struct op_desc *o = &xops[rnd(NOPS(xops))];

		i = rnd(NOPS(excl_types));
		audit_rule_field(&g->r, AUDIT_MSGTYPE, o->op, excl_types[i].type);
		desc(g, " -F msgtype%s%s", o->s, excl_types[i].name);
		break;
	}
	}
	if (chance(60)) {
		char key[16];

		snprintf(key, sizeof(key), "k%u", rnd(4));
		gen_str(g, AUDIT_FILTERKEY, "key", key);
	}
}

/* ---------- the trace ---------- */

enum {
	T_GETPID, T_UNAME, T_STAT, T_LSTAT, T_OPEN, T_CLOSE, T_WRITE, T_UNLINK,
	T_RENAME, T_MKDIR, T_RMDIR, T_CHMOD, T_FCHMOD, T_LCHOWN, T_LINK,
	T_SYMLINK, T_READLINK, T_TRUNCATE, T_SETXATTR, T_ACCESS, T_BADPTR,
	T_EXEC, T_EXEC_NX, T_SECCOMP, T_ANOM_SYMLINK, T_ANOM_HARDLINK, T_CAPSET,
	T_CRASH, T_PIPE, T_SOCKET, T_KILL, T_CONFIG, T_FAIL_REMOVE, T_AS_USER,
	/* in the traced task itself, never as uid 1000 */
	T_LOGIN, T_CONFIG_SELF, T_CAPSET_SELF, T_ANOM_SELF,
	T_URING, T_NR,
	/* drawn on their own: a 32-bit task (where compat_ok), the exec steps */
	T_COMPAT = T_NR, T_EXEC_ARGV, T_EXEC_CWD, T_EXEC_NAME, T_TTY,
	T_AVC,		/* where avc_ok: a denied access in a child */
	T_ALL
};

static const char *const t_names[T_ALL] = {
	"getpid", "uname", "stat", "lstat", "open", "close", "write", "unlink",
	"rename", "mkdir", "rmdir", "chmod", "fchmod", "lchown", "link",
	"symlink", "readlink", "truncate", "setxattr", "access", "badptr",
	"exec", "exec_nx", "seccomp", "anom_symlink", "anom_hardlink", "capset",
	"crash", "pipe", "socket", "kill", "config", "fail_remove", "as_user",
	"login", "config_self", "capset_self", "anom_self", "io_uring",
	"compat", "exec_argv", "exec_cwd", "exec_name", "tty", "avc",
};

/* what the daemon does to the rules while the task spins before a step */
enum {
	SPIN_NONE, SPIN_DELETE_ALL, SPIN_DELETE_ONE, SPIN_ADD,
	SPIN_POLICY,	/* where lsm_ok: load the policy again */
	SPIN_NR
};

static const char *const spin_names[SPIN_NR] = {
	"", "delete all rules", "delete a rule", "add a rule",
	"load the policy",
};

struct step {
	int t;
	int a, b;		/* name indexes, or opcode, or mode */
	int flags;
	bool abs;		/* absolute or relative (cwd is ROOT) paths */
	/* as_user, tty: the step run as uid 1000, or with a terminal */
	int sub;
	int sub_a, sub_b;
	int spin;		/* SPIN_*: the task spins first, rules change */
	/* exec_argv: ARGS_*; exec_name: the length "./" pads its path to */
	int kind;
	__u64 seed;		/* exec steps: their argument vector's */
};

static const int open_flags[] = {
	O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC, O_RDWR | O_CREAT | O_EXCL,
	O_RDONLY | O_DIRECTORY, O_WRONLY | O_APPEND, O_RDONLY | O_NOFOLLOW,
};
static const int modes[] = { 0600, 0644, 0755, 04755, 0 };

/*
 * ---------- the exec steps' argument vectors ----------
 *
 * Built from the step's own seed, by the daemon to describe the step and
 * by the grandchild that execs it, in static memory (no syscall).
 * audit_log_execve_info() writes an argument in hex when it holds a double
 * quote, a byte below 0x21 or above 0x7e, quoted otherwise; an argument
 * longer than MAX_EXECVE_AUDIT_LEN (7500) in pieces (aN_len= aN[0]= ...,
 * always in hex); it starts another EXECVE record after about 7500 bytes.
 *   ARGS_SHORT  0 to 3 arguments after argv[0], up to 12 bytes each
 *   ARGS_MIXED  1 to 12 arguments of up to 24 bytes: plain ones, ones with
 *               a space, a double quote, control bytes, DEL, bytes >= 0x80,
 *               empty ones
 *   ARGS_LONG   one argument of 7499, 7500, 7501, 7502 to 10001 or 15000
 *               to 29999 bytes among short ones
 *   ARGS_MANY   arguments of 4 to 47 bytes, 8 to 24 KiB in all: several
 *               EXECVE records
 *   ARGS_SIZE   an EXECVE record of 40 bytes below to 8 bytes above 512,
 *               1024, 2048 or 4096 bytes after its "audit(...): " header
 *               (about 29 bytes): records just over those lengths
 */
enum { ARGS_SHORT, ARGS_MIXED, ARGS_LONG, ARGS_MANY, ARGS_SIZE, ARGS_NR };

static const char *const args_names[ARGS_NR] = {
	"short", "mixed", "long", "many", "size",
};

/* how an argument is written: quoted, or in hex for the byte it holds */
enum {
	ARG_PLAIN, ARG_SPACE, ARG_QUOTE, ARG_CTRL, ARG_DEL, ARG_HIGH, ARG_EMPTY,
	ARG_NR
};

#define EXEC_MAX_ARGS	2048
#define EXEC_ARG_BYTES	(48 << 10)

struct exec_args {
	__u64 rng;
	int argc;
	size_t bytes;		/* the strings with their NULs */
	size_t body;		/* ARGS_SIZE: the EXECVE record it aims at */
	char *argv[EXEC_MAX_ARGS + 1];
	char data[EXEC_ARG_BYTES];
};

static struct exec_args xargs;

static unsigned int xrnd(struct exec_args *x, unsigned int n)
{
	return audit_rand(&x->rng, n);
}

/* audit_string_contains_control(): the kernel writes such a string in hex */
static bool needs_hex(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p == '"' || *p < 0x21 || *p > 0x7e)
			return true;
	return false;
}

/* what argument @i adds to an EXECVE record that holds it whole */
static size_t arg_cost(int i, const char *s)
{
	char k[16];
	size_t n = strlen(s);

	return snprintf(k, sizeof(k), " a%d=", i) + (needs_hex(s) ? 2 * n : n + 2);
}

/* append an argument of @len bytes of class @cls; false when full */
static bool add_arg(struct exec_args *x, int cls, size_t len)
{
	/* never '-' first (the last one): busybox reads no option of true */
	static const char plain[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/=,:+~@%'-";
	char *a = x->data + x->bytes;
	size_t i;
	int n;

	if (cls == ARG_EMPTY)
		len = 0;
	if (x->argc == EXEC_MAX_ARGS || x->bytes + len + 1 > sizeof(x->data))
		return false;
	for (i = 0; i < len; i++)
		a[i] = plain[xrnd(x, sizeof(plain) - (i ? 1 : 2))];
	/* one to three bytes of its class, anywhere in it */
	for (n = len && cls != ARG_PLAIN ? 1 + xrnd(x, 3) : 0; n; n--) {
		char *c = &a[xrnd(x, len)];

		switch (cls) {
		case ARG_SPACE:
			*c = ' ';
			break;
		case ARG_QUOTE:
			*c = '"';
			break;
		case ARG_CTRL:
			*c = 1 + xrnd(x, 0x1f);
			break;
		case ARG_DEL:
			*c = 0x7f;
			break;
		case ARG_HIGH:
			*c = 0x80 + xrnd(x, 0x80);
			break;
		}
	}
	a[len] = 0;
	x->argv[x->argc++] = a;
	x->argv[x->argc] = NULL;
	x->bytes += len + 1;
	return true;
}

/* a short argument of any class */
static bool add_small(struct exec_args *x, size_t max)
{
	return add_arg(x, xrnd(x, ARG_NR), 1 + xrnd(x, max));
}

static void build_args(struct exec_args *x, int kind, __u64 seed)
{
	static const size_t long_lens[] = { 7499, 7500, 7501, 7502, 15000 };
	static const size_t sizes[] = { 512, 512, 1024, 1024, 2048, 4096 };
	size_t len, target, body = 0;
	int i, n;

	x->rng = seed;
	x->argc = 0;
	x->bytes = 0;
	x->body = 0;
	memcpy(x->data, "true", 5);
	x->argv[x->argc++] = x->data;
	x->bytes = 5;
	switch (kind) {
	case ARGS_SHORT:
		for (n = xrnd(x, 4); n; n--)
			add_small(x, 12);
		break;
	case ARGS_MIXED:
		for (n = 1 + xrnd(x, 12); n; n--)
			add_small(x, 24);
		break;
	case ARGS_LONG:
		for (n = xrnd(x, 3); n; n--)
			add_small(x, 16);
		len = long_lens[xrnd(x, NOPS(long_lens))];
		if (len == 7502)
			len += xrnd(x, 2500);
		else if (len == 15000)
			len += xrnd(x, 15000);
		add_arg(x, xrnd(x, 3) ? ARG_PLAIN : 1 + xrnd(x, ARG_EMPTY - 1), len);
		for (n = xrnd(x, 2); n; n--)
			add_small(x, 16);
		break;
	case ARGS_MANY:
		target = 8192 + xrnd(x, 16384);
		while (x->bytes < target &&
		       add_arg(x, xrnd(x, 4) ? ARG_PLAIN : xrnd(x, ARG_NR), 4 + xrnd(x, 44)))
			;
		break;
	case ARGS_SIZE:
		/*
		 * Short arguments up to a little below the target, then one
		 * plain argument that makes the record that long: "argc=N",
		 * then " aI=" and each value, quoted or in hex.
		 */
		target = sizes[xrnd(x, NOPS(sizes))] - 40 + xrnd(x, 48);
		body = arg_cost(0, x->argv[0]);
		while (body + 118 < target && add_small(x, 40))
			body += arg_cost(x->argc - 1, x->argv[x->argc - 1]);
		n = x->argc + 1;
		len = target - body - 2 - snprintf(NULL, 0, "argc=%d a%d=", n, n - 1);
		add_arg(x, ARG_PLAIN, len);
		for (body = snprintf(NULL, 0, "argc=%d", x->argc), i = 0; i < x->argc; i++)
			body += arg_cost(i, x->argv[i]);
		x->body = body;
		break;
	}
}

static int gen_name(void)
{
	int i;

	/* the tree rules watch d0 and d1: never remove or move them */
	do
		i = rnd(NOPS(names));
	while (!strcmp(names[i], "d0") || !strcmp(names[i], "d1"));
	return i;
}

static bool is_exec(int t)
{
	return t == T_EXEC_ARGV || t == T_EXEC_CWD || t == T_EXEC_NAME;
}

/* an exec step's program, its path and its arguments (@sub: in tty) */
static void gen_exec(struct step *s, bool sub)
{
	static const int kinds[] = {
		ARGS_MIXED, ARGS_LONG, ARGS_MANY, ARGS_SIZE, ARGS_SIZE,
	};
	/*
	 * PATH records just over 512 and 1024 bytes (a quoted name of this
	 * length, the record's other fields take about 180), about 2 KiB,
	 * and names at PATH_MAX (4096 with the NUL)
	 */
	static const int pads[] = { 0, 0, 0, 340, 850, 2000, 4060 };

	s->seed = audit_rand64(&rng_state);
	switch (s->t) {
	case T_EXEC_ARGV:
		s->kind = sub ? ARGS_MIXED : PICK(kinds);
		break;
	case T_EXEC_CWD:
		s->a = rnd(NOPS(exec_dirs));
		s->b = rnd(NOPS(exec_rel));
		break;
	case T_EXEC_NAME:
		s->a = rnd(NOPS(exec_names));
		s->kind = PICK(pads);
		if (s->kind)
			s->kind += rnd(48);
		break;
	}
}

static void gen_step(struct step *s, bool top)
{
	memset(s, 0, sizeof(*s));
	s->t = rnd(top ? T_NR : T_AS_USER);
	if (top && chance(3))
		s->t = T_FAIL_REMOVE;	/* one in 18 steps, not one in 39 */
	else if (top && chance(10))	/* with T_NR's share: one in seven */
		s->t = chance(60) ? T_LOGIN : T_CONFIG_SELF;
	else if (top && chance(12))	/* one step in ten; 2/5 exec_argv */
		s->t = PICK(((int[]){ T_EXEC_ARGV, T_EXEC_ARGV, T_EXEC_CWD,
				      T_EXEC_NAME, T_TTY }));
	else if (top && compat_ok && chance(8))
		s->t = T_COMPAT;
	else if (top && avc_ok && chance(8))
		s->t = T_AVC;
	/* one step in seven: a quarter delete all, a quarter one, half add */
	if (top && chance(15))
		s->spin = PICK(((int[]){ SPIN_DELETE_ALL, SPIN_DELETE_ONE,
					 SPIN_ADD, SPIN_ADD }));
	else if (top && lsm_ok && chance(5))
		s->spin = SPIN_POLICY;
	s->a = gen_name();
	s->b = gen_name();
	s->abs = chance(60);
	s->flags = rnd(NOPS(open_flags));
	if (s->t == T_STAT || s->t == T_LSTAT || s->t == T_OPEN || s->t == T_ACCESS)
		s->a = rnd(NOPS(names));	/* reading d0/d1 is fine */
	if (s->t == T_CHMOD || s->t == T_FCHMOD)
		s->b = rnd(NOPS(modes));
	if (s->t == T_URING)
		s->b = rnd(NOPS(uring_pool));
	if (s->t == T_FAIL_REMOVE)
		s->a = name_index(PICK(status_watched));
	if (is_exec(s->t))
		gen_exec(s, false);
	if (s->t == T_AS_USER) {
		struct step sub;

		gen_step(&sub, false);
		s->sub = sub.t;
		s->sub_a = sub.a;
		s->sub_b = sub.b;
		s->flags = sub.flags;
	}
	if (s->t == T_TTY) {
		struct step sub = { .flags = s->flags };

		/* mostly an exec: its execve() is what exec rules log */
		if (chance(60)) {
			sub.t = PICK(((int[]){ T_EXEC_ARGV, T_EXEC_CWD, T_EXEC_NAME }));
			gen_exec(&sub, true);
		} else {
			gen_step(&sub, false);
		}
		s->sub = sub.t;
		s->sub_a = sub.a;
		s->sub_b = sub.b;
		s->flags = sub.flags;
		s->kind = sub.kind;
		s->seed = sub.seed;
	}
}

static void path_of(char *buf, size_t n, int idx, bool abs)
{
	snprintf(buf, n, "%s%s", abs ? ROOT "/" : "", names[idx]);
}

/* @s for a step's description: bytes outside printable ASCII as \xNN */
static const char *escaped(const char *s, char *out, size_t n)
{
	size_t o = 0;

	for (; *s && o + 5 < n; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c > 0x7e || c == '\\')
			o += snprintf(out + o, n - o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	out[o] = 0;
	return out;
}

static void describe_exec(char *buf, size_t n, const struct step *s)
{
	char a[64], b[64];

	build_args(&xargs, s->t == T_EXEC_ARGV ? s->kind : ARGS_SHORT, s->seed);
	switch (s->t) {
	case T_EXEC_ARGV:
		snprintf(buf, n, "exec_argv %s argc=%d bytes=%zu", args_names[s->kind],
			 xargs.argc, xargs.bytes);
		if (s->kind == ARGS_SIZE)
			snprintf(buf + strlen(buf), n - strlen(buf), " record=%zu+header",
				 xargs.body);
		break;
	case T_EXEC_CWD:
		snprintf(buf, n, "exec_cwd cd %s; %s argc=%d",
			 escaped(exec_dirs[s->a], a, sizeof(a)),
			 escaped(exec_rel[s->b], b, sizeof(b)), xargs.argc);
		break;
	case T_EXEC_NAME:
		snprintf(buf, n, "exec_name %s%s padded=%d argc=%d", s->abs ? ROOT "/" : "",
			 escaped(exec_names[s->a], a, sizeof(a)), s->kind, xargs.argc);
		break;
	}
}

static void describe_step(char *buf, size_t n, const struct step *s)
{
	char a[64], b[64];

	if (is_exec(s->t)) {
		describe_exec(buf, n, s);
		return;
	}
	if (s->t == T_TTY && is_exec(s->sub)) {
		struct step e = { .t = s->sub, .a = s->sub_a, .b = s->sub_b,
				  .abs = s->abs, .kind = s->kind, .seed = s->seed };

		snprintf(buf, n, "tty: ");
		describe_exec(buf + 5, n - 5, &e);
		return;
	}
	path_of(a, sizeof(a), s->a, s->abs);
	path_of(b, sizeof(b), s->b, s->abs);
	switch (s->t) {
	case T_TTY:
		path_of(a, sizeof(a), s->sub_a, s->abs);
		path_of(b, sizeof(b), s->sub_b, s->abs);
		snprintf(buf, n, "tty: %s %s %s flags=%#x", t_names[s->sub], a, b,
			 open_flags[s->flags]);
		break;
	case T_URING:
		snprintf(buf, n, "io_uring %s %s %s flags=%#x",
			 uring_pool[s->b].name, a, b, open_flags[s->flags]);
		break;
	case T_AS_USER:
		snprintf(buf, n, "as uid 1000: %s %s %s", t_names[s->sub], a, b);
		break;
	default:
		snprintf(buf, n, "%s %s %s flags=%#x", t_names[s->t], a, b,
			 open_flags[s->flags]);
	}
}

/*
 * Shared by the daemon and the traced task: before a step with a spin, the
 * task announces the step in @spinning and loops in user space until the
 * daemon, done changing the rules, writes the step to @release.
 */
struct spin_shared {
	int spinning;
	int release;
};

static struct spin_shared *spin;

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
static bool compat_runs(void)
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

static void run_trace(const struct step *steps, int n, int go)
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

static bool match_child_marker(const struct audit_record *r, const void *arg)
{
	const char *msg = audit_field(r, "msg");

	return r->type == AUDIT_USER && msg && !strncmp(msg, arg, strlen(arg));
}

/*
 * Wait for the child's marker "difftest_@what_"; returns its index and
 * the number it carries in *@r, or a negative errno.
 */
static int wait_marker(const char *what, long *r)
{
	char prefix[64];
	struct timespec t0;
	int m;

	snprintf(prefix, sizeof(prefix), "difftest_%s_", what);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((m = audit_find(&nl, 0, match_child_marker, prefix)) < 0) {
		if (audit_ms_since(&t0) > STEP_MS)
			return -ETIMEDOUT;
		if (audit_recv_one(&nl, 100, NULL, 0, NULL) < 0)
			return -EIO;
	}
	*r = atol(audit_field(&nl.rec[m], "msg") + strlen(prefix));
	return m;
}

/* emit the records before index @m (not the markers), then drop them */
static void emit_upto(int m)
{
	int i;

	emit_events(m);
	for (i = 0; i <= m; i++)
		audit_record_free(&nl.rec[i]);
	memmove(&nl.rec[0], &nl.rec[m + 1], (nl.nrec - m - 1) * sizeof(nl.rec[0]));
	nl.nrec -= m + 1;
}

/* ---------- one seed ---------- */

static unsigned long rules_ok, rules_total, rules_deleted, rules_added;

/* rules added during the trace, at most one per step */
#define MAX_ALL_RULES	(MAX_RULES + MAX_STEPS)

/*
 * Seeds that reach each case the trace is built for (what the task's
 * context carries from one syscall to the next); printed at the end.
 */
enum {
	COV_BARE,		/* no rule loaded at any time */
	COV_TASK_RECORDS,	/* two or more records from the task's own syscalls */
	COV_RECORDS_IN_ONE,	/* one syscall logging two or more records */
	COV_SPIN_DELETE_ALL,	/* all rules deleted while the task spun */
	COV_SPIN_DELETE_ONE,	/* one rule deleted while it spun */
	COV_SPIN_ADD,		/* a rule added while it spun */
	COV_DUMMY_AFTER,	/* a record in a syscall without rules, after the
				 * task's earlier records or syscalls with rules */
	COV_COMPAT,		/* a SYSCALL record of a compat task */
	COV_LSM_RULES,		/* a rule with an LSM field loaded */
	COV_SPIN_POLICY,	/* the policy loaded while the task spun, with
				 * a rule with an LSM field loaded */
	COV_NR
};

static const char *const cov_names[COV_NR] = {
	"no-rules", "task-records>=2", "records-in-one-syscall>=2",
	"spin-delete-all", "spin-delete-one", "spin-add",
	"record-without-rules-after-state", "compat-syscall-records",
	"lsm-field-rules", "spin-policy-load",
};

static unsigned long cov_seeds, cov[COV_NR];

static void delete_one(struct gen_rule *rules, bool *live, int i)
{
	int ret = audit_rule_send(&nl, AUDIT_DEL_RULE, &rules[i].r);

	emit("delete rule %d -> %s", i, ret ? strerror(-ret) : "ok");
	live[i] = false;
	rules_deleted += !ret;
}

/* delete one of the loaded rules, if any */
static void delete_rule(struct gen_rule *rules, bool *live, int nrules)
{
	int i, n = 0, pick;

	for (i = 0; i < nrules; i++)
		n += live[i];
	if (!n)
		return;
	pick = rnd(n);
	for (i = 0; i < nrules; i++)
		if (live[i] && !pick--)
			break;
	delete_one(rules, live, i);
	collect("delete");
}

/* add a random rule as rule @i */
static int add_rule(struct gen_rule *rules, bool *live, int i)
{
	int ret;

	gen_rule(&rules[i]);
	ret = audit_rule_send(&nl, AUDIT_ADD_RULE, &rules[i].r);
	emit("rule %d: %s -> %s", i, rules[i].desc, ret ? strerror(-ret) : "ok");
	live[i] = !ret;
	/* the kernel keeps (and matches deletes) without PREPEND */
	rules[i].r.d->flags &= ~AUDIT_FILTER_PREPEND;
	return ret;
}

/* rules that make a context not a dummy (audit_n_rules): not exclude's */
static int counted_rules(const struct gen_rule *rules, const bool *live, int n)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += live[i] && (rules[i].r.d->flags & ~AUDIT_FILTER_PREPEND) !=
				AUDIT_FILTER_EXCLUDE;
	return c;
}

/* the whole of a small file, NUL terminated, or NULL */
static char *slurp(const char *path, size_t *len)
{
	size_t size = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1), *more;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;

	while (fd >= 0 && buf && (n = read(fd, buf + size, cap - size)) > 0) {
		size += n;
		if (size == cap) {
			more = realloc(buf, 2 * cap + 1);
			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	if (fd >= 0)
		close(fd);
	if (fd < 0 || n < 0 || !buf) {
		free(buf);
		return NULL;
	}
	buf[size] = 0;
	*len = size;
	return buf;
}

/*
 * lsm_ok: SELinux with a policy loaded, this task's context in three parts
 * (user:role:type[:level]); avc_ok: the policy has the denied domain.
 */
static void lsm_detect(void)
{
	char ctx[256], *cur, *f[4] = {}, *p;
	size_t len;
	int i, fd;

	if (access(SELINUXFS "/load", W_OK))
		return;
	lsm_policy = slurp(SELINUXFS "/policy", &lsm_policy_len);
	cur = slurp("/proc/self/attr/current", &len);
	if (!lsm_policy || !lsm_policy_len || !cur)
		goto out;
	snprintf(ctx, sizeof(ctx), "%s", cur);
	ctx[strcspn(ctx, "\n")] = 0;
	for (i = 0, p = ctx; i < 4 && p; i++) {
		f[i] = p;
		p = i < 3 ? strchr(p, ':') : NULL;
		if (p)
			*p++ = 0;
	}
	if (!f[2] || !*f[0] || !*f[1] || !*f[2])
		goto out;
	snprintf(lsm_user, sizeof(lsm_user), "%s", f[0]);
	snprintf(lsm_role, sizeof(lsm_role), "%s", f[1]);
	snprintf(lsm_type, sizeof(lsm_type), "%s", f[2]);
	snprintf(lsm_denied, sizeof(lsm_denied), "%s:%s:" DENIED_TYPE "%s%s",
		 f[0], f[1], f[3] ? ":" : "", f[3] ? f[3] : "");
	lsm_ok = true;
	fd = open(SELINUXFS "/context", O_RDWR | O_CLOEXEC);
	avc_ok = fd >= 0 && write(fd, lsm_denied, strlen(lsm_denied)) > 0;
	if (fd >= 0)
		close(fd);
out:
	free(cur);
	if (!lsm_ok) {
		free(lsm_policy);
		lsm_policy = NULL;
	}
}

/* whether a loaded rule has an LSM field */
static bool lsm_rules(const struct gen_rule *rules, const bool *live, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (live[i] && rules[i].lsm)
			return true;
	return false;
}

/* wait until the task spins before step @i (counted from 1) */
static bool wait_spin(int i)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (LOAD(spin->spinning) != i) {
		if (audit_ms_since(&t0) > STEP_MS)
			return false;
		usleep(200);
	}
	return true;
}

/*
 * Wait until the traced task sleeps in its read() of the go pipe (@fd): a
 * rule deleted while it waits there must be deleted after that read()
 * began. The daemon sees the task's marker as soon as the task's sendto()
 * queued it, and the task may not have reached the read() yet; whether its
 * entry saw the rule would then depend on the scheduler. /proc/PID/syscall
 * names a syscall only for a task that sleeps in one.
 */
static bool wait_in_read(pid_t pid, int fd)
{
	struct timespec t0;
	char path[64], buf[256];
	long nr;
	unsigned long a0;
	int f;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			return false;
		n = read(f, buf, sizeof(buf) - 1);
		close(f);
		buf[n > 0 ? n : 0] = 0;
		if (sscanf(buf, "%ld 0x%lx", &nr, &a0) == 2 && nr == SYS_read &&
		    a0 == (unsigned long)fd)
			return true;
		if (audit_ms_since(&t0) > STEP_MS)
			return false;
		usleep(200);
	}
}

/* load the policy again (lsm_ok), into the transcript */
static void policy_load(const char *why)
{
	int fd = open(SELINUXFS "/load", O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, lsm_policy, lsm_policy_len);

	emit("policy load (%s): %s", why,
	     n == (ssize_t)lsm_policy_len ? "ok" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* while the task spins: change the rules as @s->spin says */
static void spin_change(const struct step *s, struct gen_rule *rules,
			bool *live, int *nrules, bool bare)
{
	int i;

	emit("spin: %s", spin_names[s->spin]);
	switch (s->spin) {
	case SPIN_DELETE_ALL:
		for (i = 0; i < *nrules; i++)
			if (live[i])
				delete_one(rules, live, i);
		break;
	case SPIN_DELETE_ONE:
		delete_rule(rules, live, *nrules);
		break;
	case SPIN_ADD:
		if (bare || *nrules == MAX_ALL_RULES)
			break;
		rules_added += !add_rule(rules, live, *nrules);
		rules_total++;
		(*nrules)++;
		break;
	case SPIN_POLICY:
		/* every rule with an LSM field is copied */
		policy_load("spin");
		break;
	}
	collect("spin");
}

static void run_seed(unsigned long seed)
{
	struct gen_rule rules[MAX_ALL_RULES];
	bool live[MAX_ALL_RULES], c[COV_NR] = {}, touched = false, bare;
	struct step steps[MAX_STEPS];
	int nrules, nsteps, i, m, ok = 0, go[2], go_child, st, task_records = 0;
	unsigned long compat0 = compat_records;
	unsigned long long hash;
	long r;
	char d[256];
	pid_t pid;

	cur_seed = seed;
	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	tr_len = 0;
	tr_records = 0;
	idmap_clear(&pids);
	idmap_clear(&inodes);
	idmap_clear(&serials);
	idmap_clear(&sessions);
	idmap_clear(&ttys);
	memset(rc_seed, 0, sizeof(rc_seed));
	execve_serial = 0;
	make_tree();
	audit_drain(&nl, 0);
	audit_records_clear(&nl);

	/* one seed in seven loads no rule, before or during the trace */
	bare = chance(14);
	nrules = bare ? 0 : rnd(MAX_RULES + 1);
	for (i = 0; i < nrules; i++)
		ok += !add_rule(rules, live, i);
	rules_ok += ok;
	rules_total += nrules;
	c[COV_LSM_RULES] = lsm_rules(rules, live, nrules);
	collect("rules");

	nsteps = 4 + rnd(MAX_STEPS - 3);
	for (i = 0; i < nsteps; i++)
		gen_step(&steps[i], true);
	/*
	 * A permissive denial is logged once, then allowed from the access
	 * vector cache: a seed with AVC steps starts from an empty cache, so
	 * that its records do not depend on the seeds before it.
	 */
	for (i = 0; i < nsteps && steps[i].t != T_AVC; i++)
		;
	if (i < nsteps) {
		policy_load("AVC cache");
		collect("policy");
	}
	if (pipe(go)) {
		emit("pipe: %s", strerror(errno));
		harness_error = true;
		return;
	}
	STORE(spin->spinning, 0);
	STORE(spin->release, 0);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		run_trace(steps, nsteps, go[0]);
	}
	go_child = go[0];
	close(go[0]);
	m = wait_marker("start", &r);
	if (m < 0) {
		emit("start: no marker from the child");
		harness_error = true;
		kill(pid, SIGKILL);
		nsteps = 0;
	} else {
		emit("start");
		emit_upto(m);
	}
	for (i = 0; i < nsteps; i++) {
		char what[16];

		const struct step *s = &steps[i];

		if (chance(15)) {
			if (!wait_in_read(pid, go_child)) {
				emit("step %d: the child does not wait for it", i);
				harness_error = true;
			}
			delete_rule(rules, live, nrules);
		}
		describe_step(d, sizeof(d), s);
		snprintf(what, sizeof(what), "step%d", i);
		if (write(go[1], "g", 1) != 1 ||
		    (s->spin && !wait_spin(i + 1))) {
			emit("step %d: %s: the child did not begin the step", i, d);
			harness_error = true;
			kill(pid, SIGKILL);
			break;
		}
		if (s->spin) {
			c[COV_SPIN_POLICY] |= s->spin == SPIN_POLICY &&
					      lsm_rules(rules, live, nrules);
			c[COV_SPIN_DELETE_ALL] |= s->spin == SPIN_DELETE_ALL &&
						  counted_rules(rules, live, nrules);
			c[COV_SPIN_DELETE_ONE] |= s->spin == SPIN_DELETE_ONE &&
						  counted_rules(rules, live, nrules);
			c[COV_SPIN_ADD] |= s->spin == SPIN_ADD && !bare;
			spin_change(s, rules, live, &nrules, bare);
			STORE(spin->release, i + 1);
		}
		if (s->t == T_LOGIN || s->t == T_CONFIG_SELF) {
			c[COV_DUMMY_AFTER] |= touched &&
					      !counted_rules(rules, live, nrules);
			c[COV_RECORDS_IN_ONE] |= s->t == T_CONFIG_SELF &&
						 s->flags % 3;
			c[COV_TASK_RECORDS] |= ++task_records >= 2;
			touched = true;
		}
		touched |= counted_rules(rules, live, nrules) > 0;
		if ((m = wait_marker(what, &r)) < 0) {
			emit("step %d: %s: the child did not finish the step", i, d);
			harness_error = true;
			kill(pid, SIGKILL);
			break;
		}
		emit("step %d: %s = %ld", i, d, r);
		emit_upto(m);
	}
	if (write(go[1], "g", 1) != 1)
		harness_error = true;
	close(go[1]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	emit("exit: status %#x", st);
	collect("exit");

	i = audit_flush_rules(&nl);
	emit("flush: %d", i);
	collect("flush");
	for (i = 0; i < nrules; i++)
		audit_rule_free(&rules[i].r);
	c[COV_BARE] = bare;
	c[COV_COMPAT] = compat_records > compat0;
	hash = fnv1a(tr, tr_len);
	cov_seeds++;
	for (i = 0; i < COV_NR; i++)
		cov[i] += c[i];
	for (i = 0; i < RC_NR; i++)
		rc_seeds[i] += rc_seed[i];

	/*
	 * The transcript is printed after the seed, not line by line while it
	 * runs: console output costs guest instructions, and a trace that ran
	 * interleaved with it would run otherwise than without -v.
	 */
	if (verbose || seed == print_seed) {
		char *line = tr, *nl;

		for (; line < tr + tr_len; line = nl + 1) {
			nl = strchr(line, '\n');
			*nl = '\0';
			printf("DT %lu | %s\n", seed, line);
			*nl = '\n';
		}
	}
	printf("DIFFTEST seed=%lu rules=%d/%d steps=%d records=%d hash=%016llx\n",
	       seed, ok, nrules, nsteps, tr_records, hash);
	fflush(stdout);
}

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(s, f) < 0 || fclose(f)) {
		fprintf(stderr, "audit-difftest: %s: %s\n", path, strerror(errno));
		harness_error = true;
	}
}

/* the busybox copy that the exec steps link to (BUSYBOX_COPY) */
static void copy_busybox(void)
{
	int in = open(BUSYBOX, O_RDONLY | O_CLOEXEC), out = -1;
	char buf[65536];
	ssize_t n = -1;

	if (in >= 0)
		out = open(BUSYBOX_COPY, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	if (n < 0) {
		fprintf(stderr, "audit-difftest: copying %s: %s\n", BUSYBOX, strerror(errno));
		harness_error = true;
	}
	if (in >= 0)
		close(in);
	/* closed before any exec of it (ETXTBSY) */
	if (out >= 0 && close(out))
		harness_error = true;
}

/*
 * The tty step opens /dev/ptmx, which needs a devpts instance at /dev/pts
 * beside it, and the guest's init mounts only devtmpfs on /dev: mount one
 * when there is none (each devpts mount is an instance of its own, whose
 * terminals count from 0), and unmount it at the end.
 */
static bool devpts_mounted, devpts_dir_made;

static void mount_devpts(void)
{
	struct statfs sf;

	if (!statfs("/dev/pts", &sf) && sf.f_type == DEVPTS_SUPER_MAGIC)
		return;
	devpts_dir_made = !mkdir("/dev/pts", 0755);
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "mode=0620,ptmxmode=0666")) {
		fprintf(stderr, "audit-difftest: mounting devpts on /dev/pts: %s\n",
			strerror(errno));
		harness_error = true;
		return;
	}
	devpts_mounted = true;
}

static void cleanup(void)
{
	nftw(ROOT, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	unlink(BUSYBOX_COPY);
	if (devpts_mounted && umount("/dev/pts"))
		harness_error = true;
	if (devpts_dir_made)
		rmdir("/dev/pts");
}

int main(int argc, char **argv)
{
	unsigned long first = 1, count = 200;
	char *list = NULL, *args, *dargv[32];
	struct audit_status s = {};
	int c, ret, i;

	/*
	 * The trace's processes are forks of this one, and their PROCTITLE
	 * records show its command line: run with the same one whatever the
	 * options, which travel in the environment instead.
	 */
	args = getenv("DIFFTEST_ARGS");
	if (!args) {
		size_t n = 1;

		/* the same layout on every boot; the denials ANOM_LINK reports */
		write_file("/proc/sys/kernel/randomize_va_space", "0");
		write_file("/proc/sys/fs/protected_symlinks", "1");
		write_file("/proc/sys/fs/protected_hardlinks", "1");
		/*
		 * Programs the trace execs ask getrandom(GRND_NONBLOCK) for
		 * a seed and take another path on EAGAIN: wait here until the
		 * pool is ready, so that no boot is early enough to see that.
		 */
		char seed[16];

		if (syscall(SYS_getrandom, seed, sizeof(seed), 0) < 0)
			perror("audit-difftest: getrandom");
		char *a;

		for (i = 1; i < argc; i++)
			n += strlen(argv[i]) + 1;
		a = calloc(1, n + 16);
		strcpy(a, "DIFFTEST_ARGS=");
		for (i = 1; i < argc; i++) {
			strcat(a, argv[i]);
			strcat(a, " ");
		}
		char self[256];
		ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[sl < 0 ? 0 : sl] = 0;
		execve(self, (char *[]){ "audit-difftest", NULL },
		       (char *[]){ a, "PATH=/bin:/sbin", NULL });
		perror("audit-difftest: re-executing");
		return 1;
	}
	argc = 1;
	dargv[0] = "audit-difftest";
	for (args = strtok(args, " "); args && argc < 31; args = strtok(NULL, " "))
		dargv[argc++] = args;
	dargv[argc] = NULL;
	argv = dargv;
	while ((c = getopt(argc, argv, "cLs:n:l:p:v")) != -1) {
		switch (c) {
		case 's':
			first = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			list = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'p':
			print_seed = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			compat_wanted = true;
			break;
		case 'L':
			lsm_wanted = false;
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-L] [-s first] [-n count] [-l s,s,...] [-p seed] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	spin = mmap(NULL, sizeof(*spin), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spin == MAP_FAILED) {
		perror("audit-difftest: mmap");
		return 1;
	}
	copy_busybox();
	mount_devpts();
	ret = audit_register(&nl);
	if (ret) {
		fprintf(stderr, "audit-difftest: cannot become the audit daemon: %s\n",
			strerror(-ret));
		return 1;
	}
	s.mask = AUDIT_STATUS_BACKLOG_LIMIT | AUDIT_STATUS_RATE_LIMIT;
	s.backlog_limit = 16384;
	s.rate_limit = 0;
	ret = audit_request(&nl, AUDIT_SET, &s, sizeof(s), 0, NULL, 0);
	if (ret || audit_flush_rules(&nl) < 0) {
		fprintf(stderr, "audit-difftest: setting up audit: %s\n", strerror(-ret));
		return 1;
	}
	compat_ok = compat_wanted && compat_runs();
	printf("DIFFTEST-COMPAT %s\n", compat_ok ? "32-bit tasks run" :
	       compat_wanted ? "no 32-bit tasks" : "no 32-bit tasks asked for");
	if (lsm_wanted)
		lsm_detect();
	if (lsm_ok)
		printf("DIFFTEST-LSM SELinux: rules with LSM fields (%s:%s:%s), policy loads while the task spins, %s\n",
		       lsm_user, lsm_role, lsm_type,
		       avc_ok ? "AVC steps (" DENIED_TYPE ")" : "no AVC steps (no " DENIED_TYPE ")");
	audit_drain(&nl, 20);
	audit_records_clear(&nl);

	if (list) {
		char *tok;

		for (tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
			run_seed(strtoul(tok, NULL, 0));
	} else {
		unsigned long seed;

		for (seed = first; seed < first + count; seed++)
			run_seed(seed);
	}
	printf("DIFFTEST-COVERAGE rules accepted %lu of %lu, deleted during the trace %lu, added %lu\n",
	       rules_ok + rules_added, rules_total, rules_deleted, rules_added);
	printf("DIFFTEST-COVERAGE seeds %lu:", cov_seeds);
	for (i = 0; i < COV_NR; i++)
		printf(" %s=%lu", cov_names[i], cov[i]);
	for (i = 0; i < RC_NR; i++)
		printf(" %s=%lu", rc_names[i], rc_seeds[i]);
	printf("\n");
	for (i = 0; i < 64 && seen[i].type; i++)
		printf("DIFFTEST-COVERAGE %s %lu\n", type_name(seen[i].type), seen[i].n);
	audit_set_status(&nl, AUDIT_STATUS_PID, 0, 0);
	cleanup();
	if (harness_error)
		printf("DIFFTEST-ERROR the harness failed (see the transcript)\n");
	return harness_error;
}
