/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of audit-difftest share: the trace's syscalls and
 * constants, the steps and the rules, the exec steps' argument vectors,
 * and the globals and functions that one part defines and the others use.
 * The header comment of audit-difftest.c says what each part does.
 */
#ifndef DIFFTEST_H
#define DIFFTEST_H

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

extern bool compat_ok;			/* -c, and the kernel runs them */
extern unsigned long compat_records;	/* SYSCALL records of compat tasks */

/*
 * SELinux, where the kernel has it and a policy is loaded (lsm_ok): this
 * task's context and its parts, the policy to load again, and the context
 * of the test policy's denied domain (avc_ok when the policy has it).
 */
#define SELINUXFS		"/sys/fs/selinux"
#define DENIED_TYPE		"audit_test_denied_t"
extern bool lsm_ok, avc_ok;
extern char lsm_user[64], lsm_role[64], lsm_type[64], lsm_denied[256];

/* the seed's random stream (gen.c) */
extern __u64 rng_state;
unsigned int rnd(unsigned int n);
bool chance(unsigned int pct);

#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])
#define NOPS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---------- the transcript (emit.c) ---------- */

extern char *tr;
extern size_t tr_len;
extern int tr_records;

void emit(const char *fmt, ...);
uint64_t fnv1a(const char *s, size_t n);

#define MAX_MAP 256

struct idmap {
	int n;
	char *key[MAX_MAP];
};

extern struct idmap pids, inodes, serials, sessions, ttys;

void idmap_clear(struct idmap *m);
const char *type_name(int type);

/* coverage over all seeds: records seen per type */
struct type_count {
	int type;
	unsigned long n;
};

extern struct type_count seen[64];

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

extern const char *const rc_names[RC_NR];
extern bool rc_seed[RC_NR];		/* this seed's */
extern unsigned long rc_seeds[RC_NR];	/* seeds with each */
extern unsigned long execve_serial;	/* the last EXECVE record's event */

/* the daemon's audit socket, and whether the harness itself failed */
extern struct audit_nl nl;
extern bool harness_error;

void collect(const char *label);
int wait_marker(const char *what, long *r);
void emit_upto(int m);

/*
 * ---------- names in the scratch tree ----------
 *
 * The exec steps' directories, programs and links (audit-difftest.c, which
 * makes them) and the paths the trace and the rules name (gen.c). The
 * sizes are the definitions': NOPS() needs them, and the compiler checks
 * that they agree where each is defined.
 */
extern const char *const exec_dirs[3];
extern const char *const exec_rel[5];
extern const char *const exec_names[8];
extern const char *const names[16];

/* ---------- rules (gen.c) ---------- */

/* a syscall or an io_uring opcode, and its name */
struct named_nr {
	int nr;
	const char *name;
};

extern const struct named_nr uring_pool[10];

struct gen_rule {
	struct audit_rule r;
	char desc[1024];
	size_t dl;
	bool lsm;		/* it has an LSM field */
};

void gen_rule(struct gen_rule *g);

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

/* what the daemon does to the rules while the task spins before a step */
enum {
	SPIN_NONE, SPIN_DELETE_ALL, SPIN_DELETE_ONE, SPIN_ADD,
	SPIN_POLICY,	/* where lsm_ok: load the policy again */
	SPIN_NR
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

extern const int open_flags[6];
extern const int modes[5];

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

extern struct exec_args xargs;

void build_args(struct exec_args *x, int kind, __u64 seed);
bool is_exec(int t);
void gen_step(struct step *s, bool top);
void path_of(char *buf, size_t n, int idx, bool abs);
void describe_step(char *buf, size_t n, const struct step *s);

/*
 * Shared by the daemon and the traced task: before a step with a spin, the
 * task announces the step in @spinning and loops in user space until the
 * daemon, done changing the rules, writes the step to @release.
 */
struct spin_shared {
	int spinning;
	int release;
};

extern struct spin_shared *spin;

/* ---------- the child: running the trace (run.c) ---------- */

bool compat_runs(void);
void run_trace(const struct step *steps, int n, int go);

#endif /* DIFFTEST_H */
