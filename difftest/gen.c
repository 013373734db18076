// SPDX-License-Identifier: GPL-2.0
/*
 * The generator of audit-difftest. From the seed's random stream
 * (rng_state, which run_seed() seeds) it draws the rules (gen_rule()) and
 * the steps of the trace (gen_step()), and describes a step for the
 * transcript (describe_step()). build_args() builds an exec step's argument
 * vector from the step's own seed: the daemon builds it to describe the
 * step, the grandchild that execs it (run.c) builds the same one again.
 */
#include "difftest.h"

__u64 rng_state;

unsigned int rnd(unsigned int n)
{
	return audit_rand(&rng_state, n);
}

bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

/* paths the trace and the rules name; "nx" does not exist */
const char *const names[] = {
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

const struct named_nr uring_pool[] = {
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

void gen_rule(struct gen_rule *g)
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

/* ---------- the steps of the trace ---------- */

static const char *const t_names[T_ALL] = {
	"getpid", "uname", "stat", "lstat", "open", "close", "write", "unlink",
	"rename", "mkdir", "rmdir", "chmod", "fchmod", "lchown", "link",
	"symlink", "readlink", "truncate", "setxattr", "access", "badptr",
	"exec", "exec_nx", "seccomp", "anom_symlink", "anom_hardlink", "capset",
	"crash", "pipe", "socket", "kill", "config", "fail_remove", "as_user",
	"login", "config_self", "capset_self", "anom_self", "io_uring",
	"compat", "exec_argv", "exec_cwd", "exec_name", "tty", "avc",
};

const int open_flags[] = {
	O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC, O_RDWR | O_CREAT | O_EXCL,
	O_RDONLY | O_DIRECTORY, O_WRONLY | O_APPEND, O_RDONLY | O_NOFOLLOW,
};
const int modes[] = { 0600, 0644, 0755, 04755, 0 };

static const char *const args_names[ARGS_NR] = {
	"short", "mixed", "long", "many", "size",
};

/* how an argument is written: quoted, or in hex for the byte it holds */
enum {
	ARG_PLAIN, ARG_SPACE, ARG_QUOTE, ARG_CTRL, ARG_DEL, ARG_HIGH, ARG_EMPTY,
	ARG_NR
};

struct exec_args xargs;

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

void build_args(struct exec_args *x, int kind, __u64 seed)
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

bool is_exec(int t)
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

void gen_step(struct step *s, bool top)
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

void path_of(char *buf, size_t n, int idx, bool abs)
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

void describe_step(char *buf, size_t n, const struct step *s)
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
