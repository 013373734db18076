// SPDX-License-Identifier: GPL-2.0
/*
 * The transcript of audit-difftest. The records the daemon collects
 * after each step (collect(), emit_upto(), up to the traced task's marker
 * that wait_marker() finds) are written into the transcript an event at a
 * time, normalised: event serials, pids, sessions, inode numbers and
 * terminals numbered as they first appear, user-space addresses and junk
 * argument registers named, long values shortened to a part and a hash.
 * It also counts the records of each type and, per seed, the features of
 * the records that the exec steps are there for (RC_*).
 */
#include "difftest.h"

/* ---------- the transcript ---------- */

char *tr;
size_t tr_len;
static size_t tr_cap;
int tr_records;
unsigned long compat_records;	/* SYSCALL records of compat tasks */

void emit(const char *fmt, ...)
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

uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---------- record normalisation ---------- */

/* the top of user space and the start of the kernel's addresses */
#ifdef __x86_64__
#define USER_TOP	0x800000000000ULL
#define KERNEL_START	0xffff800000000000ULL
#else
#define USER_TOP	0x1000000000000ULL
#define KERNEL_START	0xffff000000000000ULL
#endif

struct idmap pids, inodes, serials, sessions, ttys;

void idmap_clear(struct idmap *m)
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

const char *type_name(int type)
{
	static char buf[16];
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	snprintf(buf, sizeof(buf), "TYPE%d", type);
	return buf;
}

struct type_count seen[64];

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

const char *const rc_names[RC_NR] = {
	"execve-hex-arg", "execve-empty-arg", "execve-split-arg",
	"execve-records>=2", "record-513..576", "record-1025..1088",
	"path-hex", "path-record>1024", "proctitle-hex", "proctitle-cut",
	"cwd-hex", "comm-hex", "comm-cut", "exe-hex", "tty-pts",
};

bool rc_seed[RC_NR];		/* this seed's */
unsigned long rc_seeds[RC_NR];	/* seeds with each */
unsigned long execve_serial;	/* the last EXECVE record's event */
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

struct audit_nl nl;
bool harness_error;

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
/* a native fork, clone, vfork or clone3 that made a task (exit=its pid) */
static bool is_fork_record(const struct audit_record *r)
{
	const char *s = audit_field(r, "syscall");
	const char *arch = audit_field(r, "arch");
	const char *exit = audit_field(r, "exit");
	int nr = s ? atoi(s) : -1;

	if (r->type != AUDIT_SYSCALL || !exit || atol(exit) <= 0 ||
	    (arch && strtoul(arch, NULL, 16) != AUDIT_ARCH_NATIVE))
		return false;
	return nr == SYS_clone ||
#ifdef SYS_fork
	       nr == SYS_fork || nr == SYS_vfork ||
#endif
	       nr == SYS_clone3;
}

/* the not yet emitted fork record after record @from that made task @pid */
static int later_fork(int from, int m, const char *pid, const bool *done)
{
	int k;

	for (k = from + 1; k < m; k++)
		if (!done[k] && is_fork_record(&nl.rec[k]) &&
		    !strcmp(audit_field(&nl.rec[k], "exit"), pid))
			return k;
	return -1;
}

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
		/*
		 * a task's first record comes after the event of the fork that
		 * made it: the kernel logs the parent's fork at its syscall
		 * exit, before or after the child's first records as the two
		 * are scheduled, which differs between two kernels as their
		 * instruction counts do
		 */
		k = pid[i] ? later_fork(i, m, pid[i], done) : -1;
		for (j = k; k >= 0 && j < m; j++)
			if (!done[j] && nl.rec[j].serial == nl.rec[k].serial &&
			    nl.rec[j].type != AUDIT_USER) {
				emit_record(&nl.rec[j]);
				done[j] = true;
			}
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
void collect(const char *label)
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

static bool match_child_marker(const struct audit_record *r, const void *arg)
{
	const char *msg = audit_field(r, "msg");

	return r->type == AUDIT_USER && msg && !strncmp(msg, arg, strlen(arg));
}

/*
 * Wait for the child's marker "difftest_@what_"; returns its index and
 * the number it carries in *@r, or a negative errno.
 */
int wait_marker(const char *what, long *r)
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
void emit_upto(int m)
{
	int i;

	emit_events(m);
	for (i = 0; i <= m; i++)
		audit_record_free(&nl.rec[i]);
	memmove(&nl.rec[0], &nl.rec[m + 1], (nl.nrec - m - 1) * sizeof(nl.rec[0]));
	nl.nrec -= m + 1;
}
