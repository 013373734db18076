// SPDX-License-Identifier: GPL-2.0
/*
 * Audit records whose memory cannot be had.
 *
 * An LSM logs its records in the context of the access it checks, which
 * may be atomic: common_lsm_audit() starts and grows the AVC records that
 * SELinux logs with GFP_ATOMIC.
 * A record is formatted into a buffer of AUDIT_BUFSIZ bytes, which
 * kmalloc() rounds up, and grows while it is formatted when a field does
 * not fit (audit_expand()). A failed allocation loses the record
 * (audit_log_start()) or the field that did not fit (audit_expand()), and
 * each such loss is counted (the lost counter of AUDIT_GET); a path that
 * cannot be resolved for want of memory is logged as "<no_memory>".
 *
 * The tests make those allocations fail with failslab, only in a child of
 * theirs (task-filter, /proc/self/make-it-fail) and only where one of
 * audit's functions is on the stack (the stack trace filter, with the
 * functions' addresses from /proc/kallsyms): audit_log_start(),
 * audit_expand(), or the part of kernel/audit.c's text that holds its
 * formatting functions, but audit_log_start(). The child enters a domain
 * that the policy allows
 * nothing and reads from a file the test opened: SELinux denies it the
 * descriptor (fd { use }) and logs an AVC record that carries the file's
 * path, whose length the test chooses, and the read() ends with a SYSCALL
 * record. The records are compared with those of the same access without
 * failures: the same text, or what the failures explain, each counted.
 *
 * Each test also prints the records it saw as "# fault: " lines, without
 * what changes from one boot to the next (time, serial, pids, syscall
 * arguments, inode numbers): two kernels that format and lose records
 * alike print the same lines, and the harness that runs both compares
 * them.
 *
 * The tests run with SELinux enforcing (a permissive denial is logged only
 * once) and put back the mode and the fault injection settings they found.
 * They skip without root, without SELinux and the denied domain
 * (audit_test_denied_t), without fault injection (CONFIG_FAULT_INJECTION,
 * CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS,
 * CONFIG_FAULT_INJECTION_STACKTRACE_FILTER, debugfs), and where
 * /proc/kallsyms does not show audit_log_start() (the test of growth also
 * where it does not show audit_expand() as a function of its own). The
 * filter trusts the stack trace: x86 kernels need an unwinder that reports
 * live frames only (ORC or frame pointers, not CONFIG_UNWINDER_GUESS); and
 * it trusts that kernel/audit.c's text is contiguous (not so with LTO or
 * -ffunction-sections, where a range that spans more than 64 KiB is
 * refused).
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "../kselftest_harness.h"
#include "audit_common.h"
#include "selinux_common.h"

#define DEBUGFS		"/sys/kernel/debug"
#define FAILSLAB	DEBUGFS "/failslab/"
/* a fixed name: the "# fault: " lines of two kernels must be the same */
#define FAULT_DIR	"/tmp/audit_fault"
#define NAME_LEN	200	/* of each directory under FAULT_DIR */
#define MAX_DEPTH	20
#define MAX_PATH_LEN	3600
#define EVENT_MAX	8
/* syslog(2)'s actions, which no uapi header defines */
#ifndef SYSLOG_ACTION_CONSOLE_OFF
#define SYSLOG_ACTION_CONSOLE_OFF	6
#define SYSLOG_ACTION_CONSOLE_ON	7
#endif

/* the failslab settings the tests change, put back as they were found */
static const char *const fault_files[] = {
	"interval", "times", "space", "verbose", "task-filter",
	"ignore-gfp-wait", "cache-filter", "stacktrace-depth",
	"require-start", "require-end", "reject-start", "reject-end",
	"probability",		/* last: put back after the filters */
};

#define NFAULT_FILES	(sizeof(fault_files) / sizeof(*fault_files))

/* where the allocations fail */
enum fault_mode {
	FAULT_NONE,
	FAULT_START,		/* under audit_log_start() */
	FAULT_EXPAND,		/* under audit_expand() */
	FAULT_FORMAT,		/* under audit's formatting, not the start */
};

static const char *const mode_name[] = {
	"none", "start", "expand", "format",
};

/* a function's text: [lo, hi) */
struct text_range {
	unsigned long lo, hi;
};

/* what the tests' helpers need of the fixture */
struct fault_env {
	char denied[320];	/* the denied domain's context */
	struct text_range start, expand, format;
	bool has_expand;	/* audit_expand() is a function of its own */
	int depth;		/* directories made under FAULT_DIR */
};

/* what the setup changed, for the teardown (or a failing setup) to undo */
struct fault_state {
	bool dir;		/* FAULT_DIR made */
	bool mounted;		/* debugfs mounted */
	bool saved;		/* the failslab settings saved, then changed */
	char saved_val[NFAULT_FILES][32];
	bool console_off;	/* the kernel's messages off the console */
	int kmsg;		/* the kernel log since the setup, or -1 */
	int enforce;		/* SELinux's mode as found, or -1 */
};

FIXTURE(fault) {
	struct audit_nl nl;
	struct fault_env env;
	struct fault_state state;
	bool ready;
};

/* one access of the child: its records and the losses counted */
struct fault_event {
	pid_t pid;
	int nrec;
	struct audit_record rec[EVENT_MAX];	/* the AVC record first */
	char *norm[EVENT_MAX];	/* without what changes between boots */
	long lost;
};

static int read_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int failslab_set(const char *name, const char *val)
{
	char path[96];

	snprintf(path, sizeof(path), FAILSLAB "%s", name);
	return write_str(path, val);
}

static int failslab_set_ul(const char *name, unsigned long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu", val);
	return failslab_set(name, buf);
}

/* Is @sym @name, or a part the compiler split off it (@name.part.0)? */
static bool is_fn(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) && (!sym[n] || sym[n] == '.');
}

/*
 * The text of the functions @names of kernel/audit.c, and of the parts the
 * compiler split off them, from /proc/kallsyms: from the first of those it
 * finds to the symbol after the last, which holds only audit.c's text,
 * since an object's text is contiguous (so a range of more than 64 KiB is
 * refused: the text is not). Those it does not find are inlined. False if
 * it finds none, or the addresses are hidden.
 */
static bool audit_text(const char *const *names, int nnames,
		       struct text_range *r)
{
	unsigned long addr, lo = 0, last = 0, hi = 0;
	char line[512], sym[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	int i;

	if (!f)
		return false;
	/* the symbols are not sorted: find the range, then its end */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %*s %255s", &addr, sym) != 2)
			continue;
		for (i = 0; i < nnames; i++)
			if (is_fn(sym, names[i]))
				break;
		if (i == nnames || !addr)
			continue;
		if (!lo || addr < lo)
			lo = addr;
		if (addr > last)
			last = addr;
	}
	rewind(f);
	while (last && fgets(line, sizeof(line), f)) {
		char *end;

		addr = strtoul(line, &end, 16);
		if (end != line && addr > last && (!hi || addr < hi))
			hi = addr;
	}
	fclose(f);
	if (!lo || !hi || hi - lo > 0x10000)
		return false;
	r->lo = lo;
	r->hi = hi;
	return true;
}

static const char *const start_fns[] = { "audit_log_start" };
static const char *const expand_fns[] = { "audit_expand" };
/* what formats a record (audit_log_start() among them, rejected apart) */
static const char *const format_fns[] = {
	"audit_log_start", "audit_log_format", "audit_log_vformat",
	"audit_expand", "audit_log_end", "audit_log_n_hex",
	"audit_log_n_string", "audit_log_n_untrustedstring",
	"audit_log_untrustedstring", "audit_log_d_path",
	"audit_log_d_path_exe", "audit_log_task_context",
	"audit_log_subj_ctx", "audit_log_obj_ctx", "audit_log_task_info",
};

/* the path of the file an access of @len bytes of path reads */
static void fault_path(char *path, size_t size, int len, int *depth)
{
	int base = strlen(FAULT_DIR), k = 0, r, i;

	/* FAULT_DIR, k directories of NAME_LEN, then the file, of r */
	if (len > base + NAME_LEN + 1)
		k = (len - base - NAME_LEN - 1 + NAME_LEN) / (NAME_LEN + 1);
	r = len - base - 1 - k * (NAME_LEN + 1);
	if (r < 1) {
		k--;
		r += NAME_LEN + 1;
	}
	snprintf(path, size, "%s", FAULT_DIR);
	for (i = 0; i < k; i++)
		snprintf(path + strlen(path), size - strlen(path), "/%0*d",
			 NAME_LEN, i);
	snprintf(path + strlen(path), size - strlen(path), "/%s",
		 "f");
	memset(path + strlen(path) - 1, 'f', r);
	path[len] = 0;
	*depth = k;
}

/* make the directories of @path (@depth of them under FAULT_DIR) */
static bool fault_dirs(char *path, int depth, int *made)
{
	char *p = path + strlen(FAULT_DIR);
	int i;

	for (i = 0; i < depth; i++) {
		p = strchr(p + 1, '/');
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return false;
		}
		*p = '/';
		if (i + 1 > *made)
			*made = i + 1;
	}
	return true;
}

/* the value of @key=, replaced in @text: pid=_ */
static void blank_field(char *text, const char *key)
{
	size_t klen = strlen(key);
	char *p = text, *v, *end;

	while ((p = strstr(p, key))) {
		if ((p != text && p[-1] != ' ') || p[klen] != '=') {
			p += klen;
			continue;
		}
		v = p + klen + 1;
		end = v + strcspn(v, " ");
		/* a field whose value did not fit stays as it is */
		if (end != v) {
			*v = '_';
			memmove(v + 1, end, strlen(end) + 1);
		}
		p = v + 1;
	}
}

/*
 * @text without its stamp and what differs between two children (pids,
 * syscall arguments, inode numbers); for a "# fault: " line (@shown) also
 * without the path's text, whose length, chosen near the length where
 * records grow, differs between two kernels as the stamp's and the pids'
 * digits do
 */
static char *normalise(const char *text, bool shown)
{
	static const char *const keys[] = {
		"pid", "ppid", "ino", "a0", "a1", "a2", "a3", "path",
	};
	const char *body = strstr(text, "): ");
	char *n = strdup(body ? body + 3 : text);
	unsigned int i, nkeys = sizeof(keys) / sizeof(*keys) - !shown;

	for (i = 0; n && i < nkeys; i++)
		blank_field(n, keys[i]);
	return n;
}

static void event_free(struct fault_event *ev)
{
	int i;

	for (i = 0; i < ev->nrec; i++) {
		audit_record_free(&ev->rec[i]);
		free(ev->norm[i]);
	}
	ev->nrec = 0;
}

struct child_arg {
	const char *denied;
	int fd;
	bool fail;
};

/* the child: fail audit's allocations, enter the denied domain, read */
static int child_denied_read(void *p)
{
	const struct child_arg *a = p;
	char c;

	if (a->fail && write_str("/proc/self/make-it-fail", "1"))
		return 12;
	if (enter_context(a->denied))
		return 10;
	if (read(a->fd, &c, 1) >= 0)
		return 11;
	return errno == EACCES ? 0 : 13;
}

static bool match_child(const struct audit_record *r, const void *arg)
{
	return audit_field_is_num(r, "pid", *(const pid_t *)arg);
}

/* set failslab up for @mode (none: off) */
static int fault_arm(const struct fault_env *env, enum fault_mode mode)
{
	static const struct text_range none;
	const struct text_range *req = &none, *rej = &none;
	int ret;

	switch (mode) {
	case FAULT_NONE:
		return failslab_set("probability", "0");
	case FAULT_START:
		req = &env->start;
		break;
	case FAULT_EXPAND:
		req = &env->expand;
		break;
	case FAULT_FORMAT:
		req = &env->format;
		rej = &env->start;
		break;
	}
	ret = failslab_set_ul("require-start", req->lo);
	ret = ret ?: failslab_set_ul("require-end", req->hi);
	ret = ret ?: failslab_set_ul("reject-start", rej->lo);
	ret = ret ?: failslab_set_ul("reject-end", rej->hi);
	return ret ?: failslab_set("probability", "100");
}

/*
 * One denied read of a file whose path is @len bytes long, by a child
 * whose allocations fail as @mode says: the records of its event in @ev
 * (the AVC record first), and the losses counted meanwhile. Prints them
 * as "# fault: " lines, which begin with @what, and with @len unless it is
 * @shown_len (-1: none; no lines without @what).
 */
static void fault_access(struct __test_metadata *_metadata,
			 struct audit_nl *nl, struct fault_env *env,
			 const char *what, enum fault_mode mode, int len,
			 const char *shown_len, struct fault_event *ev)
{
	const struct audit_record *out[EVENT_MAX];
	struct audit_status st0, st1;
	char path[MAX_PATH_LEN + 1];
	struct child_arg a;
	int depth, status, i, n, avc, ret;

	memset(ev, 0, sizeof(*ev));
	ASSERT_LE(len, MAX_PATH_LEN);
	fault_path(path, sizeof(path), len, &depth);
	ASSERT_TRUE(fault_dirs(path, depth, &env->depth)) {
		TH_LOG("cannot make the directories of %s: %s", path,
		       strerror(errno));
	}
	a.fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, a.fd) {
		TH_LOG("cannot create %s: %s", path, strerror(errno));
	}
	a.denied = env->denied;
	a.fail = mode != FAULT_NONE;

	audit_records_clear(nl);
	ret = audit_get_status(nl, &st0);
	ret = ret ?: fault_arm(env, mode);
	if (ret) {
		close(a.fd);
		unlink(path);
		ASSERT_EQ(0, ret);
	}
	fflush(stdout);
	ev->pid = audit_run_child(child_denied_read, &a, &status);
	EXPECT_EQ(0, fault_arm(env, FAULT_NONE));
	close(a.fd);
	unlink(path);
	ASSERT_LT(0, ev->pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the child's read was not denied as it should (status %#x)",
		       status);
	}
	ASSERT_LE(0, audit_sync(nl));
	ASSERT_EQ(0, audit_get_status(nl, &st1));
	ev->lost = (long)st1.lost - (long)st0.lost;

	/* the AVC record's event, or the child's records without one */
	avc = -1;
	for (i = 0; i < nl->nrec; i++)
		if (nl->rec[i].type == AUDIT_AVC &&
		    match_child(&nl->rec[i], &ev->pid))
			avc = i;
	if (avc >= 0) {
		n = audit_event(nl, nl->rec[avc].serial, out, EVENT_MAX);
		/* the AVC record first */
		for (i = 0; i < n && out[i] != &nl->rec[avc]; i++)
			;
		if (i < n) {
			out[i] = out[0];
			out[0] = &nl->rec[avc];
		}
	} else {
		for (i = n = 0; i < nl->nrec && n < EVENT_MAX; i++)
			if (match_child(&nl->rec[i], &ev->pid))
				out[n++] = &nl->rec[i];
	}
	for (i = 0; i < n; i++) {
		ev->rec[i].type = out[i]->type;
		ev->rec[i].text = strdup(out[i]->text);
		ev->norm[i] = normalise(out[i]->text, false);
		ASSERT_TRUE(ev->rec[i].text && ev->norm[i]);
		audit_record_parse(&ev->rec[i]);
		ev->nrec++;
	}
	if (!what)
		return;
	if (!shown_len) {
		snprintf(path, sizeof(path), "%d", len);
		shown_len = path;
	}
	printf("# fault: %s %s len=%s lost=%ld records=%d\n", what,
	       mode_name[mode], shown_len, ev->lost, ev->nrec);
	for (i = 0; i < ev->nrec; i++) {
		char *shown = normalise(ev->rec[i].text, true);

		ASSERT_NE(NULL, shown);
		printf("# fault: %s %s len=%s type=%d %s\n", what,
		       mode_name[mode], shown_len, ev->rec[i].type, shown);
		free(shown);
	}
}

/* why fault injection cannot run here, or NULL; debugfs mounted if needed */
static const char *fault_unavailable(struct fault_env *env, bool *mounted)
{
	struct stat st;

	if (access("/proc/self/make-it-fail", W_OK))
		return "no fault injection (CONFIG_FAULT_INJECTION)";
	if (stat(FAILSLAB, &st) &&
	    !mount("debugfs", DEBUGFS, "debugfs", 0, NULL))
		*mounted = true;
	if (stat(FAILSLAB, &st))
		return "no failslab (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)";
	if (access(FAILSLAB "require-start", W_OK))
		return "no stack trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)";
	if (!audit_text(start_fns, 1, &env->start) ||
	    !audit_text(format_fns, sizeof(format_fns) / sizeof(*format_fns),
			&env->format))
		return "kallsyms shows no audit_log_start() (CONFIG_KALLSYMS, kptr_restrict)";
	env->has_expand = audit_text(expand_fns, 1, &env->expand);
	return NULL;
}

/*
 * Undo what the setup changed, in the reverse order; the failures, each
 * said. The kernel log is read for reports last, with the console on again.
 */
static int fault_undo(struct __test_metadata *_metadata,
		      struct fault_state *st, struct fault_env *env)
{
	char path[MAX_PATH_LEN + 1], report[8192];
	int depth, failed = 0;
	unsigned int i;

	/* the deepest directory first */
	for (; env->depth > 0; env->depth--) {
		fault_path(path, sizeof(path), strlen(FAULT_DIR) +
			   env->depth * (NAME_LEN + 1) + 2, &depth);
		*strrchr(path, '/') = 0;
		if (rmdir(path))
			TH_LOG("cannot remove %s: %s", path, strerror(errno));
	}
	if (st->dir && rmdir(FAULT_DIR)) {
		TH_LOG("cannot remove " FAULT_DIR ": %s", strerror(errno));
		failed++;
	}
	st->dir = false;
	if (st->enforce >= 0 && selinuxfs_set_int("enforce", st->enforce)) {
		TH_LOG("cannot put SELinux back to enforce=%d", st->enforce);
		failed++;
	}
	st->enforce = -1;
	if (st->saved) {
		failslab_set("probability", "0");
		for (i = 0; i < NFAULT_FILES; i++)
			if (failslab_set(fault_files[i], st->saved_val[i])) {
				TH_LOG("cannot put back failslab/%s to %s",
				       fault_files[i], st->saved_val[i]);
				failed++;
			}
	}
	st->saved = false;
	if (st->console_off && klogctl(SYSLOG_ACTION_CONSOLE_ON, NULL, 0)) {
		TH_LOG("cannot put the kernel's messages back on the console");
		failed++;
	}
	st->console_off = false;
	if (st->mounted && umount(DEBUGFS)) {
		TH_LOG("cannot unmount " DEBUGFS ": %s", strerror(errno));
		failed++;
	}
	st->mounted = false;
	if (st->kmsg >= 0) {
		if (audit_kmsg_reports(st->kmsg, report, sizeof(report))) {
			TH_LOG("the kernel reported: %s", report);
			failed++;
		}
		close(st->kmsg);
	}
	st->kmsg = -1;
	return failed;
}

FIXTURE_SETUP(fault)
{
	struct fault_state *st = &self->state;
	struct fault_env *env = &self->env;
	const char *why, *failed = NULL;
	struct stat sb;
	unsigned int i;
	int ret;

	memset(st, 0, sizeof(*st));
	st->kmsg = -1;
	st->enforce = -1;
	self->ready = false;
	env->depth = 0;
	if (geteuid())
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "needs root (CAP_AUDIT_CONTROL, CAP_SYS_RESOURCE, CAP_MAC_ADMIN)");
	if (access(SELINUXFS "/enforce", W_OK))
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "no SELinux (CONFIG_SECURITY_SELINUX, selinuxfs on " SELINUXFS ")");
	if (!denied_context(env->denied, sizeof(env->denied)) ||
	    !context_valid(env->denied))
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "the loaded policy has no %s domain", DENIED_TYPE);
	if (!AUDIT_ARCH_NATIVE)
		SKIP(_exit(AUDIT_SKIP_STATUS),
		     "no AUDIT_ARCH_* for this architecture or ABI");
	why = fault_unavailable(env, &st->mounted);
	if (why) {
		fault_undo(_metadata, st, env);
		SKIP(_exit(AUDIT_SKIP_STATUS), "%s", why);
	}
	for (i = 0; !failed && i < NFAULT_FILES; i++) {
		char path[96];

		snprintf(path, sizeof(path), FAILSLAB "%s", fault_files[i]);
		if (read_str(path, st->saved_val[i], sizeof(st->saved_val[i])))
			failed = "cannot read the failslab settings";
	}
	/* a directory of root's own, not one somebody else put there */
	if (!failed && mkdir(FAULT_DIR, 0700))
		failed = "cannot make " FAULT_DIR " (is it left from a run?)";
	st->dir = !failed;
	if (!failed && (lstat(FAULT_DIR, &sb) || !S_ISDIR(sb.st_mode) || sb.st_uid))
		failed = FAULT_DIR " is not root's directory";
	ret = failed ? 0 : audit_begin(&self->nl);
	if (ret && self->nl.skip_reason[0]) {
		fault_undo(_metadata, st, env);
		SKIP(_exit(AUDIT_SKIP_STATUS), "%s", self->nl.skip_reason);
	}
	if (ret)
		failed = "cannot become the audit daemon";
	if (failed) {
		fault_undo(_metadata, st, env);
		ASSERT_TRUE(false) {
			TH_LOG("setup: %s", failed);
		}
	}
	/*
	 * The losses print messages (audit_log_lost(), audit_panic()): off
	 * the console while the tests print, so that none lands in a line of
	 * theirs on a serial console; the teardown looks for reports in the
	 * kernel log instead (an oops still reaches the console)
	 */
	st->kmsg = audit_kmsg_from_now();
	st->saved = true;
	/* fail every allocation that passes the filters, silently */
	ret = failslab_set("probability", "0");
	ret = ret ?: failslab_set("interval", "1");
	ret = ret ?: failslab_set("times", "-1");
	ret = ret ?: failslab_set("space", "0");
	ret = ret ?: failslab_set("verbose", "0");
	ret = ret ?: failslab_set("task-filter", "Y");
	ret = ret ?: failslab_set("ignore-gfp-wait", "N");
	ret = ret ?: failslab_set("cache-filter", "N");
	ret = ret ?: failslab_set("stacktrace-depth", "32");
	if (ret)
		failed = "cannot set failslab up";
	st->console_off = !failed && !klogctl(SYSLOG_ACTION_CONSOLE_OFF, NULL, 0);
	if (!failed && !st->console_off)
		failed = "cannot keep the kernel's messages off the console";
	if (!failed) {
		st->enforce = selinuxfs_int("enforce");
		if (st->enforce < 0 || selinuxfs_set_int("enforce", 1))
			failed = "cannot make SELinux enforcing";
	}
	if (failed) {
		fault_undo(_metadata, st, env);
		audit_end(&self->nl);
		ASSERT_TRUE(false) {
			TH_LOG("setup: %s", failed);
		}
	}
	self->ready = true;
}

FIXTURE_TEARDOWN(fault)
{
	EXPECT_EQ(0, fault_undo(_metadata, &self->state, &self->env));
	audit_fixture_teardown(_metadata, &self->nl);
}

/* the denied read's records: AVC with the path, then SYSCALL; none lost */
static void expect_whole_event(struct __test_metadata *_metadata,
			       const struct fault_event *ev, int len)
{
	const struct audit_record *avc = &ev->rec[0], *sys = &ev->rec[1];
	const char *path;

	ASSERT_LE(2, ev->nrec);
	ASSERT_EQ(AUDIT_AVC, avc->type);
	EXPECT_EQ(0, ev->lost);
	EXPECT_TRUE(strstr(avc->text, "denied  { use }") &&
		    audit_field_is(avc, "tclass", "fd")) {
		TH_LOG("%s", avc->text);
	}
	path = audit_field(avc, "path");
	EXPECT_TRUE(path && (int)strlen(path) == len &&
		    !strncmp(path, FAULT_DIR "/", strlen(FAULT_DIR) + 1)) {
		TH_LOG("path= should be the %d bytes of the file's path: %s",
		       len, avc->text);
	}
	EXPECT_EQ(AUDIT_SYSCALL, sys->type);
	EXPECT_TRUE(audit_field_is_num(sys, "syscall", __NR_read) &&
		    audit_field_is_num(sys, "pid", ev->pid) &&
		    audit_field_is(sys, "success", "no") &&
		    audit_field_is_num(sys, "exit", -EACCES)) {
		TH_LOG("%s", sys->text);
	}
}

/*
 * The same access at @len twice: without failures (@ref, which must be
 * whole) and failing as @mode says (@ev).
 */
static void ref_and_fault(struct __test_metadata *_metadata,
			  struct audit_nl *nl, struct fault_env *env,
			  const char *what, enum fault_mode mode, int len,
			  const char *shown_len, struct fault_event *ref,
			  struct fault_event *ev)
{
	fault_access(_metadata, nl, env, what, FAULT_NONE, len, shown_len, ref);
	expect_whole_event(_metadata, ref, len);
	fault_access(_metadata, nl, env, what, mode, len, shown_len, ev);
}

static const int some_lens[] = { 300, 1500, 3000 };
#define NSOME	(sizeof(some_lens) / sizeof(*some_lens))

/*
 * Without failures: the AVC record carries the whole path and comes with
 * the read()'s SYSCALL record; nothing is lost.
 */
TEST_F(fault, without_failures_the_event_is_whole)
{
	struct fault_event ev;
	unsigned int i;

	ASSERT_TRUE(self->ready);
	for (i = 0; i < NSOME; i++) {
		fault_access(_metadata, &self->nl, &self->env, "whole",
			     FAULT_NONE, some_lens[i], NULL, &ev);
		expect_whole_event(_metadata, &ev, some_lens[i]);
		event_free(&ev);
	}
}

/*
 * No memory for the AVC record: it is lost and counted once, and the
 * syscall, which nothing else records, logs nothing at its exit.
 */
TEST_F(fault, no_record_buffer_loses_the_event_counted)
{
	struct fault_event ref, ev;
	unsigned int i;

	ASSERT_TRUE(self->ready);
	for (i = 0; i < NSOME; i++) {
		ref_and_fault(_metadata, &self->nl, &self->env, "start",
			      FAULT_START, some_lens[i], NULL, &ref, &ev);
		EXPECT_EQ(0, ev.nrec) {
			TH_LOG("len=%d: %d record(s) of the child, the first: %s",
			       some_lens[i], ev.nrec,
			       ev.nrec ? ev.rec[0].text : "");
		}
		EXPECT_EQ(1, ev.lost) {
			TH_LOG("len=%d: the AVC record lost, counted %ld times",
			       some_lens[i], ev.lost);
		}
		event_free(&ref);
		event_free(&ev);
	}
}

/*
 * Is @ev's AVC record @ref's with fields missing, and every other record
 * the same? Each field of the failed record must be in @ref's with the
 * same text, in the same order; a field whose value did not fit is its
 * key alone.
 */
static bool fields_dropped(const struct fault_event *ref,
			   const struct fault_event *ev)
{
	const char *r, *e;
	char tok[MAX_PATH_LEN + 64];
	size_t n;
	int i;

	if (ev->nrec != ref->nrec || !ev->nrec || ev->rec[0].type != AUDIT_AVC)
		return false;
	for (i = 1; i < ev->nrec; i++)
		if (ev->rec[i].type != ref->rec[i].type ||
		    strcmp(ev->norm[i], ref->norm[i]))
			return false;
	r = ref->norm[0];
	for (e = ev->norm[0]; *e; e += n) {
		while (*e == ' ')
			e++;
		n = strcspn(e, " ");
		if (!n)
			break;
		snprintf(tok, sizeof(tok), "%.*s", (int)n, e);
		if (tok[n - 1] == '=') {
			if (!strstr(r, tok))
				return false;
			continue;
		}
		r = strstr(r, tok);
		if (!r)
			return false;
		r += n;
	}
	return true;
}

/* does the AVC record of @ev fit where @ref's does: the same text */
static bool same_avc(const struct fault_event *ref,
		     const struct fault_event *ev)
{
	return ev->nrec == ref->nrec && ev->nrec &&
	       !strcmp(ev->norm[0], ref->norm[0]);
}

/*
 * One access without failures and one failing to grow, at @len: is the
 * record whole (and nothing counted), or without what did not fit (and
 * the losses counted)? Prints them as "# fault: " lines when @what is set.
 */
static bool grows(struct __test_metadata *_metadata, struct audit_nl *nl,
		  struct fault_env *env, const char *what, int len,
		  const char *shown_len, int *fits)
{
	struct fault_event ref, ev;
	bool whole;

	ref_and_fault(_metadata, nl, env, what, FAULT_EXPAND, len, shown_len,
		      &ref, &ev);
	EXPECT_TRUE(fields_dropped(&ref, &ev)) {
		TH_LOG("len=%d without failures: %s", len,
		       ref.nrec ? ref.rec[0].text : "(no record)");
		TH_LOG("len=%d, failing to grow: %s", len,
		       ev.nrec ? ev.rec[0].text : "(no record)");
	}
	whole = same_avc(&ref, &ev);
	if (whole) {
		EXPECT_EQ(0, ev.lost);
		*fits = strlen(ev.rec[0].text);
	} else {
		EXPECT_LE(1, ev.lost);
	}
	event_free(&ref);
	event_free(&ev);
	return whole;
}

/*
 * No memory to grow a record: a record that fits its first buffer is
 * whole; in a longer one the fields that did not fit are left out, and
 * each such loss is counted. The length of the longest AVC record that
 * fits, stamp included, is printed, and a record 100 bytes shorter and
 * one 100 bytes longer than that: the same lines on two kernels that grow
 * records alike (the path that reaches the length exactly differs with
 * the digits of the stamp and the pids).
 */
TEST_F_TIMEOUT(fault, no_memory_to_grow_drops_fields_counted, 600)
{
	int len, whole = 0, cut = 0, lo, hi, fits = 0, f;

	ASSERT_TRUE(self->ready);
	if (!self->env.has_expand)
		SKIP(return, "audit_expand() is inlined: its allocations are not told apart");
	for (len = 300; len <= 3300 && !cut; len += 300) {
		if (grows(_metadata, &self->nl, &self->env, NULL, len, NULL, &fits))
			whole = len;
		else
			cut = len;
	}
	ASSERT_NE(0, whole) {
		TH_LOG("even a record with a 300-byte path grew");
	}
	ASSERT_NE(0, cut) {
		TH_LOG("a record with a 3300-byte path did not grow");
	}
	/* the longest record that fits, to the byte */
	lo = whole;
	hi = cut;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;

		if (grows(_metadata, &self->nl, &self->env, NULL, mid, NULL, &fits))
			lo = mid;
		else
			hi = mid;
	}
	printf("# fault: expand: the longest AVC record that fits its first buffer: %d bytes\n",
	       fits);
	/* nlmsg_new(AUDIT_BUFSIZ): at least AUDIT_BUFSIZ (1024) bytes */
	EXPECT_LE(1023, fits);
	ASSERT_LE(hi + 100, MAX_PATH_LEN);
	EXPECT_TRUE(grows(_metadata, &self->nl, &self->env, "expand",
			  lo - 100, "longest-100", &f));
	EXPECT_FALSE(grows(_metadata, &self->nl, &self->env, "expand",
			   hi + 100, "longest+101", &f));
}

/*
 * No memory for anything but the record's start: a path is logged as
 * "<no_memory>", every record is there, and nothing is counted lost.
 */
TEST_F(fault, no_memory_to_format_logs_no_memory)
{
	struct fault_event ref, ev;
	unsigned int i;

	ASSERT_TRUE(self->ready);
	for (i = 0; i < NSOME; i++) {
		ref_and_fault(_metadata, &self->nl, &self->env, "format",
			      FAULT_FORMAT, some_lens[i], NULL, &ref, &ev);
		ASSERT_EQ(ref.nrec, ev.nrec);
		ASSERT_EQ(AUDIT_AVC, ev.rec[0].type);
		EXPECT_TRUE(audit_field_is(&ev.rec[0], "path", "<no_memory>") &&
			    audit_field_is(&ev.rec[0], "tclass", "fd")) {
			TH_LOG("%s", ev.rec[0].text);
		}
		/* the SYSCALL record's exe= and subj= need memory too */
		EXPECT_EQ(AUDIT_SYSCALL, ev.rec[1].type);
		EXPECT_TRUE(audit_field_is(&ev.rec[1], "exe", "<no_memory>") &&
			    !audit_field(&ev.rec[1], "subj") &&
			    audit_field(&ref.rec[1], "subj")) {
			TH_LOG("%s", ev.rec[1].text);
		}
		EXPECT_EQ(0, ev.lost);
		event_free(&ref);
		event_free(&ev);
	}
}

TEST_HARNESS_MAIN
