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
 *
 * The program's parts: this file runs the seeds (main(), run_seed()): it
 * sets up audit, the scratch tree and devpts, detects SELinux and loads its
 * policy, adds and deletes the rules and drives the traced task step by
 * step. gen.c generates the rules and the steps from the seed, run.c is the
 * traced task that runs them, emit.c writes the records of each step,
 * normalised, into the transcript; difftest.h holds what the parts share.
 */
#include "difftest.h"

bool compat_ok;
static bool compat_wanted;	/* -c: compat steps and rules */

/* SELinux (difftest.h): this task's context, the policy to load again */
bool lsm_ok, avc_ok;
static bool lsm_wanted = true;
char lsm_user[64], lsm_role[64], lsm_type[64], lsm_denied[256];
static char *lsm_policy;
static size_t lsm_policy_len;

static bool verbose;
static unsigned long print_seed;	/* -p: print this seed's transcript */
static unsigned long cur_seed;

/* shared with the traced task (difftest.h) */
struct spin_shared *spin;

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
const char *const exec_dirs[] = { "d0", "x y", "\xe9t\xe9" };

/* what exec_cwd runs there: a symlink, a hard link, ones in ROOT */
const char *const exec_rel[] = {
	"t", "./h", "../sl", "../tr ue", "../a long program name",
};

/*
 * Hard links of the copy in ROOT, for comm= and exe=: names the kernel
 * writes in hex (space, double quote, control bytes, DEL, UTF-8) and
 * names longer than comm's 15 characters.
 */
const char *const exec_names[] = {
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

static const char *const spin_names[SPIN_NR] = {
	"", "delete all rules", "delete a rule", "add a rule",
	"load the policy",
};

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
