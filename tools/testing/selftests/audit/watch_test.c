// SPDX-License-Identifier: GPL-2.0
/*
 * Audit selftests: watches (path=), directory rules (dir=), permission
 * classes (perm=) and rules matched through the inode filter (inode=).
 * Each test works in its own scratch directory.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "../kselftest_harness.h"
#include "audit_common.h"

/* the newer architectures (riscv, loongarch) have renameat2() alone */
#ifdef __NR_renameat
#define NR_RENAME	__NR_renameat
#else
#define NR_RENAME	__NR_renameat2
#endif

FIXTURE(watch) {
	struct audit_nl nl;
	char dir[64];		/* the scratch directory */
	char file[PATH_MAX];	/* dir/file, exists */
	char other[PATH_MAX];	/* dir/other, exists */
	char parent[PATH_MAX];	/* "dir/": how PARENT records name it */
};

FIXTURE_SETUP(watch)
{
	int fd;

	audit_fixture_setup(_metadata, &self->nl);
	snprintf(self->dir, sizeof(self->dir), "/tmp/audit_watch_XXXXXX");
	audit_setup_ok(_metadata, &self->nl, mkdtemp(self->dir), "mkdtemp");
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	snprintf(self->other, sizeof(self->other), "%s/other", self->dir);
	snprintf(self->parent, sizeof(self->parent), "%s/", self->dir);
	fd = open(self->file, O_CREAT | O_WRONLY, 0644);
	audit_setup_ok(_metadata, &self->nl, fd >= 0, "creating the file");
	close(fd);
	fd = open(self->other, O_CREAT | O_WRONLY, 0644);
	audit_setup_ok(_metadata, &self->nl, fd >= 0, "creating the other file");
	close(fd);
}

FIXTURE_TEARDOWN(watch)
{
	char cmd[PATH_MAX + 16];

	audit_fixture_teardown(_metadata, &self->nl);
	if (self->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
		if (system(cmd))
			fprintf(stderr, "# could not remove %s\n", self->dir);
	}
}

/* a watch as auditctl -w PATH -p PERM -k KEY makes it */
static struct audit_rule watch_rule(__u32 type, const char *path,
				    __u32 perm, const char *key)
{
	struct audit_rule r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);

	audit_rule_all_syscalls(&r);
	audit_rule_str(&r, type, AUDIT_EQUAL, path);
	if (perm)
		audit_rule_field(&r, AUDIT_PERM, AUDIT_EQUAL, perm);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, key);
	return r;
}

/* what the child does, with which paths */
enum op { OP_OPEN_W, OP_OPEN_R, OP_CREATE, OP_RENAME, OP_UNLINK, OP_CHMOD,
	  OP_EXEC, OP_STAT, OP_ACCESS, OP_FAIL_UNLINK, OP_CREATE_TWO };

struct op_arg {
	enum op op;
	const char *a, *b;
};

static int child_op(void *p)
{
	const struct op_arg *o = p;
	struct stat st;
	int fd, ret = 0;

	/* raw *at() syscalls: the records name the syscall, not libc's choice */
	switch (o->op) {
	case OP_OPEN_W:
		fd = syscall(__NR_openat, AT_FDCWD, o->a, O_WRONLY);
		ret = fd < 0;
		close(fd);
		break;
	case OP_OPEN_R:
		fd = syscall(__NR_openat, AT_FDCWD, o->a, O_RDONLY);
		ret = fd < 0;
		close(fd);
		break;
	case OP_CREATE:
		fd = syscall(__NR_openat, AT_FDCWD, o->a,
			     O_CREAT | O_EXCL | O_WRONLY, 0600);
		ret = fd < 0;
		close(fd);
		break;
	case OP_CREATE_TWO:
		/* two syscalls of one task: a, then b */
		fd = syscall(__NR_openat, AT_FDCWD, o->a,
			     O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0)
			return 31;
		close(fd);
		fd = syscall(__NR_openat, AT_FDCWD, o->b,
			     O_CREAT | O_EXCL | O_WRONLY, 0600);
		ret = fd < 0;
		close(fd);
		break;
	case OP_RENAME:
		ret = syscall(NR_RENAME, AT_FDCWD, o->a, AT_FDCWD, o->b, 0);
		break;
	case OP_UNLINK:
		ret = syscall(__NR_unlinkat, AT_FDCWD, o->a, 0);
		break;
	case OP_FAIL_UNLINK:
		/* a failed syscall (EBADF) right before the unlink */
		if (syscall(__NR_close, -1) != -1)
			return 30;
		ret = syscall(__NR_unlinkat, AT_FDCWD, o->a, 0);
		break;
	case OP_CHMOD:
		ret = syscall(__NR_fchmodat, AT_FDCWD, o->a, 0600);
		break;
	case OP_STAT:
		ret = fstatat(AT_FDCWD, o->a, &st, 0);
		break;
	case OP_ACCESS:
		ret = syscall(__NR_faccessat, AT_FDCWD, o->a, R_OK);
		break;
	case OP_EXEC:
		syscall(__NR_execve, o->a, (char *[]){ "true", NULL },
			(char *[]){ NULL });
		return 20;
	}
	return ret ? 10 : 0;
}

static pid_t run_op(struct __test_metadata *_metadata, struct audit_nl *nl,
		    enum op op, const char *a, const char *b)
{
	struct op_arg o = { .op = op, .a = a, .b = b };
	int status;
	pid_t pid;

	pid = audit_run_child(child_op, &o, &status);
	EXPECT_LT(0, pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_LE(0, audit_sync(nl));
	return pid;
}

#define RUN_OP(op, a, b) run_op(_metadata, &self->nl, op, a, b)

static const struct audit_record *
keyed_record(struct __test_metadata *_metadata, struct audit_nl *nl,
	     int nr, pid_t pid, const char *key)
{
	struct audit_syscall_match m = { .nr = nr, .pid = pid, .key = key };
	int i = audit_find(nl, 0, audit_match_syscall, &m);

	if (i < 0)
		audit_dump(nl);
	return i < 0 ? NULL : &nl->rec[i];
}

/* event @r has a PATH record for @name with nametype @type, or fail */
static void expect_path(struct __test_metadata *_metadata, struct audit_nl *nl,
			const struct audit_record *r, const char *name,
			const char *type)
{
	const struct audit_record *p = audit_path_record(nl, r->serial, name);

	if (!p)
		audit_dump(nl);
	ASSERT_NE(NULL, p) {
		TH_LOG("no PATH record name=%s in event %lu", name, r->serial);
	}
	EXPECT_TRUE(audit_field_is(p, "nametype", type)) {
		TH_LOG("PATH %s: %s", name, p->text);
	}
}

#define EXPECT_PATH(r, name, type) expect_path(_metadata, &self->nl, r, name, type)

TEST_F(watch, open_for_write)
{
	struct audit_rule r = watch_rule(AUDIT_WATCH, self->file,
					 AUDIT_PERM_WRITE, "t_w");
	const struct audit_record *rec;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_OPEN_W, self->file, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_w");
	ASSERT_NE(NULL, rec);
	EXPECT_TRUE(audit_field_is(rec, "success", "yes"));
	EXPECT_PATH(rec, self->file, "NORMAL");
	/* a CWD record goes with every event that has PATH records */
	EXPECT_NE(NULL, audit_event_record(&self->nl, rec->serial, AUDIT_CWD, 0));
}

/* perm=w: opening for read is outside the class */
TEST_F(watch, open_for_read_not_write)
{
	struct audit_rule r = watch_rule(AUDIT_WATCH, self->file,
					 AUDIT_PERM_WRITE, "t_w");
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_OPEN_R, self->file, NULL);
	EXPECT_EQ(NULL, audit_syscall_record(&self->nl, -1, pid, "t_w"));
	pid = RUN_OP(OP_OPEN_W, self->file, NULL);
	EXPECT_NE(NULL, keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_w"));
}

TEST_F(watch, open_for_read)
{
	struct audit_rule r = watch_rule(AUDIT_WATCH, self->file,
					 AUDIT_PERM_READ, "t_r");
	const struct audit_record *rec;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_OPEN_R, self->file, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_r");
	ASSERT_NE(NULL, rec);
	EXPECT_PATH(rec, self->file, "NORMAL");
}

/*
 * a syscall in no permission class (faccessat: it reads no data and changes
 * nothing) never matches a perm= rule; newer kernels count the stat family
 * as reads, so stat cannot serve here
 */
TEST_F(watch, access_outside_perm_class)
{
	struct audit_rule r = watch_rule(AUDIT_WATCH, self->file,
					 AUDIT_PERM_READ | AUDIT_PERM_WRITE |
					 AUDIT_PERM_ATTR, "t_rwa");
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_ACCESS, self->file, NULL);
	EXPECT_EQ(NULL, audit_syscall_record(&self->nl, -1, pid, "t_rwa"));
	pid = RUN_OP(OP_CHMOD, self->file, NULL);
	EXPECT_NE(NULL, keyed_record(_metadata, &self->nl, __NR_fchmodat, pid, "t_rwa"));
}

/* the watch of a path that does not exist yet fires when it is created */
TEST_F(watch, created_later)
{
	char path[PATH_MAX + 8];
	struct audit_rule r;
	const struct audit_record *rec;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/new", self->dir);
	r = watch_rule(AUDIT_WATCH, path, AUDIT_PERM_WRITE, "t_new");
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_CREATE, path, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_new");
	ASSERT_NE(NULL, rec);
	EXPECT_PATH(rec, path, "CREATE");
	EXPECT_PATH(rec, self->parent, "PARENT");
}

TEST_F(watch, dir_create)
{
	struct audit_rule r = watch_rule(AUDIT_DIR, self->dir,
					 AUDIT_PERM_WRITE, "t_dir");
	const struct audit_record *rec;
	char path[PATH_MAX + 8];
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	snprintf(path, sizeof(path), "%s/created", self->dir);
	pid = RUN_OP(OP_CREATE, path, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_dir");
	ASSERT_NE(NULL, rec);
	EXPECT_TRUE(audit_field_is(rec, "items", "2"));
	EXPECT_PATH(rec, self->parent, "PARENT");
	EXPECT_PATH(rec, path, "CREATE");
}

TEST_F(watch, dir_rename)
{
	struct audit_rule r = watch_rule(AUDIT_DIR, self->dir,
					 AUDIT_PERM_WRITE, "t_dir");
	const struct audit_record *rec;
	char to[PATH_MAX + 8];
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	snprintf(to, sizeof(to), "%s/renamed", self->dir);
	pid = RUN_OP(OP_RENAME, self->file, to);
	rec = keyed_record(_metadata, &self->nl, NR_RENAME, pid, "t_dir");
	ASSERT_NE(NULL, rec);
	EXPECT_TRUE(audit_field_is(rec, "items", "4"));
	EXPECT_PATH(rec, self->file, "DELETE");
	EXPECT_PATH(rec, to, "CREATE");
}

TEST_F(watch, dir_unlink)
{
	struct audit_rule r = watch_rule(AUDIT_DIR, self->dir,
					 AUDIT_PERM_WRITE, "t_dir");
	const struct audit_record *rec;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_UNLINK, self->other, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_unlinkat, pid, "t_dir");
	ASSERT_NE(NULL, rec);
	EXPECT_PATH(rec, self->other, "DELETE");
	EXPECT_PATH(rec, self->parent, "PARENT");
}

/* a dir= rule does not fire for a path outside the directory */
TEST_F(watch, dir_outside)
{
	struct audit_rule r;
	char sub[PATH_MAX + 8], path[PATH_MAX + 16];
	pid_t pid;

	snprintf(sub, sizeof(sub), "%s/sub", self->dir);
	ASSERT_EQ(0, mkdir(sub, 0755));
	r = watch_rule(AUDIT_DIR, sub, AUDIT_PERM_WRITE, "t_sub");
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_UNLINK, self->other, NULL);
	EXPECT_EQ(NULL, audit_syscall_record(&self->nl, -1, pid, "t_sub"));
	snprintf(path, sizeof(path), "%s/inside", sub);
	pid = RUN_OP(OP_CREATE, path, NULL);
	EXPECT_NE(NULL, keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_sub"));
}

/*
 * The tree references a syscall takes end with it: after a create inside
 * the directory, the same task's create outside it is not logged, though
 * the task's context keeps its block for references.
 */
TEST_F(watch, dir_refs_end_with_syscall)
{
	struct audit_rule r = watch_rule(AUDIT_DIR, self->dir,
					 AUDIT_PERM_WRITE, "t_dir");
	struct audit_syscall_match m = { .nr = __NR_openat, .key = "t_dir" };
	char in[PATH_MAX + 8], out[PATH_MAX + 8];
	int i;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	snprintf(in, sizeof(in), "%s/in", self->dir);
	snprintf(out, sizeof(out), "%s.out", self->dir);
	m.pid = RUN_OP(OP_CREATE_TWO, in, out);
	unlink(out);
	i = audit_find(&self->nl, 0, audit_match_syscall, &m);
	if (i < 0)
		audit_dump(&self->nl);
	ASSERT_LE(0, i);
	EXPECT_PATH(&self->nl.rec[i], in, "CREATE");
	i = audit_find(&self->nl, i + 1, audit_match_syscall, &m);
	EXPECT_GT(0, i) {
		TH_LOG("the create outside the directory was logged: %s",
		       self->nl.rec[i].text);
	}
}

/*
 * A dir= rule behind a rule that names the same syscall and matches
 * nothing: the walk reaches the dir= rule for a path inside the directory
 * only, and the other rule keeps its own decision.
 */
TEST_F(watch, dir_behind_other_rule)
{
	struct audit_rule o = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	struct audit_rule r = watch_rule(AUDIT_DIR, self->dir,
					 AUDIT_PERM_WRITE, "t_dir");
	char in[PATH_MAX + 8], out[PATH_MAX + 8];
	const struct audit_record *rec;
	pid_t pid;

	audit_rule_syscall(&o, __NR_openat);
	audit_rule_field(&o, AUDIT_UID, AUDIT_EQUAL, 54321);
	audit_rule_str(&o, AUDIT_FILTERKEY, AUDIT_EQUAL, "t_other");
	ASSERT_EQ(0, audit_add(&self->nl, &o));
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	snprintf(out, sizeof(out), "%s.out", self->dir);
	pid = RUN_OP(OP_CREATE, out, NULL);
	unlink(out);
	EXPECT_EQ(NULL, audit_syscall_record(&self->nl, -1, pid, NULL));
	snprintf(in, sizeof(in), "%s/in", self->dir);
	pid = RUN_OP(OP_CREATE, in, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_dir");
	ASSERT_NE(NULL, rec);
	EXPECT_PATH(rec, in, "CREATE");
	EXPECT_EQ(NULL, audit_syscall_record(&self->nl, -1, pid, "t_other"));
}

/* perm=a matches chmod; perm=w does not */
TEST_F(watch, chmod_attr)
{
	struct audit_rule w = watch_rule(AUDIT_WATCH, self->file,
					 AUDIT_PERM_WRITE, "t_w");
	struct audit_rule a = watch_rule(AUDIT_WATCH, self->other,
					 AUDIT_PERM_ATTR, "t_a");
	const struct audit_record *rec;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &w));
	ASSERT_EQ(0, audit_add(&self->nl, &a));
	pid = RUN_OP(OP_CHMOD, self->file, NULL);
	EXPECT_EQ(NULL, audit_syscall_record(&self->nl, -1, pid, NULL));
	pid = RUN_OP(OP_CHMOD, self->other, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_fchmodat, pid, "t_a");
	ASSERT_NE(NULL, rec);
	EXPECT_PATH(rec, self->other, "NORMAL");
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open(from, O_RDONLY);
	if (in < 0)
		return -1;
	out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			ret = -1;
	close(in);
	close(out);
	return n < 0 ? -1 : ret;
}

/* perm=x matches execve, with an EXECVE record of the arguments */
TEST_F(watch, exec)
{
	char prog[PATH_MAX + 8], real[PATH_MAX];
	const struct audit_record *rec, *ex;
	struct audit_rule r;
	pid_t pid;

	ASSERT_NE(NULL, realpath("/bin/true", real));
	snprintf(prog, sizeof(prog), "%s/prog", self->dir);
	ASSERT_EQ(0, copy_file(real, prog));
	r = watch_rule(AUDIT_WATCH, prog, AUDIT_PERM_EXEC, "t_x");
	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_EXEC, prog, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_execve, pid, "t_x");
	ASSERT_NE(NULL, rec);
	EXPECT_TRUE(audit_field_is(rec, "success", "yes"));
	EXPECT_PATH(rec, prog, "NORMAL");
	ex = audit_event_record(&self->nl, rec->serial, AUDIT_EXECVE, 0);
	ASSERT_NE(NULL, ex);
	EXPECT_TRUE(audit_field_is(ex, "argc", "1"));
	EXPECT_TRUE(audit_field_is(ex, "a0", "true"));
}

/*
 * Long arguments: records longer than the buffer they start in, which grows
 * as they are formatted. a1 is plain and quoted, a2 has a tab and is hex,
 * a3 is longer than the kernel copies at once (7500 bytes), so it is hex,
 * announced by a3_len= (twice its length) and cut into a3[0], a3[1], ...
 * over more than one EXECVE record. Every byte must arrive.
 */
#define EXEC_A1_LEN	600UL
#define EXEC_A2_LEN	900UL
#define EXEC_A3_LEN	8000UL

struct exec_args {
	const char *prog;
	char *argv[5];
};

static int child_exec(void *p)
{
	struct exec_args *e = p;

	syscall(__NR_execve, e->prog, e->argv, (char *[]){ NULL });
	return 20;
}

static int hex_nibble(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* append the decoded upper-case hex @hex to @out at *@len, or fail */
static bool unhex_append(char *out, size_t size, size_t *len, const char *hex)
{
	for (; hex[0] && hex[1]; hex += 2) {
		int hi = hex_nibble(hex[0]), lo = hex_nibble(hex[1]);

		if (hi < 0 || lo < 0 || *len >= size)
			return false;
		out[(*len)++] = hi << 4 | lo;
	}
	return !hex[0];
}

TEST_F(watch, exec_long_args)
{
	char prog[PATH_MAX + 8], real[PATH_MAX], key[16], quoted[EXEC_A1_LEN + 8];
	char *a1 = calloc(1, EXEC_A1_LEN + 1), *a2 = calloc(1, EXEC_A2_LEN + 1);
	char *a3 = calloc(1, EXEC_A3_LEN + 1), *got = calloc(1, EXEC_A3_LEN + 1);
	const struct audit_record *rec, *ex;
	struct exec_args e;
	struct audit_rule r;
	size_t len = 0, hexlen = 0;
	int status, piece = 0, nrec = 0, i;
	const char *v;
	pid_t pid;

	ASSERT_TRUE(a1 && a2 && a3 && got);
	memset(a1, 'p', EXEC_A1_LEN);
	memset(a2, 'h', EXEC_A2_LEN);
	a2[EXEC_A2_LEN / 2] = '\t';
	for (i = 0; i < (int)EXEC_A3_LEN; i++)
		a3[i] = 'a' + i % 26;
	ASSERT_NE(NULL, realpath("/bin/true", real));
	snprintf(prog, sizeof(prog), "%s/prog", self->dir);
	ASSERT_EQ(0, copy_file(real, prog));
	r = watch_rule(AUDIT_WATCH, prog, AUDIT_PERM_EXEC, "t_xl");
	ASSERT_EQ(0, audit_add(&self->nl, &r));

	e = (struct exec_args){ prog, { "true", a1, a2, a3, NULL } };
	pid = audit_run_child(child_exec, &e, &status);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_LE(0, audit_sync(&self->nl));
	rec = keyed_record(_metadata, &self->nl, __NR_execve, pid, "t_xl");
	ASSERT_NE(NULL, rec);

	ex = audit_event_record(&self->nl, rec->serial, AUDIT_EXECVE, 0);
	ASSERT_NE(NULL, ex);
	EXPECT_TRUE(audit_field_is(ex, "argc", "4"));
	EXPECT_TRUE(audit_field_is(ex, "a0", "true"));
	/* a1 quoted, in full */
	snprintf(quoted, sizeof(quoted), " a1=\"%s\"", a1);
	EXPECT_NE(NULL, strstr(ex->text, quoted));
	/* a2 in hex: "h" is 68, the tab 09 */
	v = audit_field(ex, "a2");
	ASSERT_NE(NULL, v);
	EXPECT_EQ(2 * EXEC_A2_LEN, strlen(v));
	EXPECT_TRUE(unhex_append(got, EXEC_A2_LEN, &len, v));
	EXPECT_EQ(EXEC_A2_LEN, len);
	EXPECT_EQ(0, memcmp(got, a2, EXEC_A2_LEN));
	/* a3 in pieces, over the event's EXECVE records in order */
	EXPECT_TRUE(audit_field_is_num(ex, "a3_len", 2 * EXEC_A3_LEN));
	len = 0;
	for (; (ex = audit_event_record(&self->nl, rec->serial, AUDIT_EXECVE,
					nrec)); nrec++) {
		for (;;) {
			snprintf(key, sizeof(key), "a3[%d]", piece);
			v = audit_field(ex, key);
			if (!v)
				break;
			hexlen += strlen(v);
			EXPECT_TRUE(unhex_append(got, EXEC_A3_LEN, &len, v)) {
				TH_LOG("a3[%d] is not hex", piece);
			}
			piece++;
		}
	}
	EXPECT_LT(1, nrec);
	EXPECT_LT(1, piece);
	EXPECT_EQ(2 * EXEC_A3_LEN, hexlen);
	EXPECT_EQ(EXEC_A3_LEN, len);
	EXPECT_EQ(0, memcmp(got, a3, EXEC_A3_LEN));
	free(a1);
	free(a2);
	free(a3);
	free(got);
}

/*
 * Programs at paths of 400 to 1800 bytes: the SYSCALL record's exe= and
 * the PATH record's name= are followed by more fields, so somewhere in
 * this range each record outgrows the buffer it started in between a
 * long string and a formatted field. Every field must still be whole.
 */
TEST_F(watch, exec_long_paths)
{
	char dir[2048], path[2048], real[PATH_MAX + 8], prog[PATH_MAX + 8];
	char ino[32], key[] = "t_xp";
	const struct audit_record *rec, *p;
	struct exec_args e;
	struct audit_rule r;
	size_t len, d;
	struct stat st;
	int status;
	pid_t pid;

	ASSERT_NE(NULL, realpath("/bin/true", real));
	snprintf(prog, sizeof(prog), "%s/prog", self->dir);
	ASSERT_EQ(0, copy_file(real, prog));
	ASSERT_EQ(0, stat(prog, &st));
	snprintf(ino, sizeof(ino), "%lu", (unsigned long)st.st_ino);
	r = audit_exit_rule(AUDIT_ALWAYS, __NR_execve, 0, key);
	audit_rule_field(&r, AUDIT_PPID, AUDIT_EQUAL, getpid());
	ASSERT_EQ(0, audit_add(&self->nl, &r));

	/* a chain of directories with 100-byte names, made as needed */
	snprintf(dir, sizeof(dir), "%s", self->dir);
	for (len = 400; len <= 1800; len += 50) {
		while (strlen(dir) + 1 + 100 + 1 + 2 <= len) {
			d = strlen(dir);
			dir[d] = '/';
			memset(dir + d + 1, 'n', 100);
			dir[d + 101] = 0;
			ASSERT_EQ(0, mkdir(dir, 0755));
		}
		/* a hard link to the program, named to make the path @len long */
		d = strlen(dir);
		ASSERT_LT(d + 2, len);
		memcpy(path, dir, d);
		path[d] = '/';
		memset(path + d + 1, 'x', len - d - 1);
		path[len] = 0;
		ASSERT_EQ(0, link(prog, path));

		e = (struct exec_args){ path, { "true", NULL } };
		pid = audit_run_child(child_exec, &e, &status);
		ASSERT_LT(0, pid);
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		ASSERT_LE(0, audit_sync(&self->nl));
		rec = keyed_record(_metadata, &self->nl, __NR_execve, pid, key);
		ASSERT_NE(NULL, rec) {
			TH_LOG("no SYSCALL record for a path of %zu bytes", len);
		}
		EXPECT_TRUE(audit_field_is(rec, "exe", path)) {
			TH_LOG("%zu: exe=%.60s...", len, audit_field(rec, "exe"));
		}
		EXPECT_TRUE(audit_field_is(rec, "key", key)) {
			TH_LOG("%zu: %s", len, rec->text);
		}
		p = audit_path_record(&self->nl, rec->serial, path);
		ASSERT_NE(NULL, p) {
			TH_LOG("no PATH record of %zu bytes in event %lu", len,
			       rec->serial);
		}
		EXPECT_TRUE(audit_field_is(p, "inode", ino)) {
			TH_LOG("%zu: %s", len, p->text);
		}
		EXPECT_TRUE(audit_field_is(p, "nametype", "NORMAL")) {
			TH_LOG("%zu: %s", len, p->text);
		}
		EXPECT_TRUE(audit_field_is(p, "cap_frootid", "0")) {
			TH_LOG("%zu: %s", len, p->text);
		}
		ASSERT_EQ(0, unlink(path));
		audit_records_clear(&self->nl);
	}
}

/* inode= rules are kept in the inode hash and matched per name */
TEST_F(watch, inode_rule)
{
	const struct audit_record *rec;
	struct audit_rule r;
	struct stat st;
	char ino[32];
	pid_t pid;

	ASSERT_EQ(0, stat(self->file, &st));
	r = audit_rule_new(AUDIT_FILTER_EXIT, AUDIT_ALWAYS);
	audit_rule_field(&r, AUDIT_ARCH, AUDIT_EQUAL, AUDIT_ARCH_NATIVE);
	audit_rule_syscall(&r, __NR_openat);
	audit_rule_field(&r, AUDIT_INODE, AUDIT_EQUAL, st.st_ino);
	audit_rule_str(&r, AUDIT_FILTERKEY, AUDIT_EQUAL, "t_ino");
	ASSERT_EQ(0, audit_add(&self->nl, &r));

	pid = RUN_OP(OP_OPEN_R, self->other, NULL);
	EXPECT_EQ(NULL, audit_syscall_record(&self->nl, -1, pid, "t_ino"));
	pid = RUN_OP(OP_OPEN_R, self->file, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_openat, pid, "t_ino");
	ASSERT_NE(NULL, rec);
	snprintf(ino, sizeof(ino), "%lu", (unsigned long)st.st_ino);
	EXPECT_PATH(rec, self->file, "NORMAL");
	EXPECT_TRUE(audit_field_is(audit_path_record(&self->nl, rec->serial,
						     self->file), "inode", ino));
}

/*
 * Deleting a watched file invalidates its watch, so audit_update_watch()
 * runs the inode filters during the unlink, before the exit has the
 * syscall's return code. A success= field must not see the return code
 * of the syscall before (here a failed close()): the success=0 rule must
 * not match the unlink, which succeeds. The watch without a success=
 * field shows that the filter during the syscall does match.
 */
TEST_F(watch, unlink_success_field_during_syscall)
{
	struct audit_rule fail = watch_rule(AUDIT_WATCH, self->file, 0, "t_fail");
	struct audit_rule any = watch_rule(AUDIT_WATCH, self->other, 0, "t_any");
	const struct audit_record *rec;
	pid_t pid;

	audit_rule_field(&fail, AUDIT_SUCCESS, AUDIT_EQUAL, 0);
	ASSERT_EQ(0, audit_add(&self->nl, &fail));
	ASSERT_EQ(0, audit_add(&self->nl, &any));

	pid = RUN_OP(OP_FAIL_UNLINK, self->other, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_unlinkat, pid, "t_any");
	ASSERT_NE(NULL, rec);
	EXPECT_TRUE(audit_field_is(rec, "success", "yes")) {
		TH_LOG("%s", rec->text);
	}

	pid = RUN_OP(OP_FAIL_UNLINK, self->file, NULL);
	rec = audit_syscall_record(&self->nl, -1, pid, "t_fail");
	EXPECT_EQ(NULL, rec) {
		audit_dump(&self->nl);
		TH_LOG("success=0 matched a successful unlink: %s", rec->text);
	}
}

/* rules without a path still get PATH records for the names used */
TEST_F(watch, path_records_without_watch)
{
	struct audit_rule r = audit_exit_rule(AUDIT_ALWAYS, __NR_unlinkat, 0, "t_nowatch");
	const struct audit_record *rec;
	pid_t pid;

	ASSERT_EQ(0, audit_add(&self->nl, &r));
	pid = RUN_OP(OP_UNLINK, self->other, NULL);
	rec = keyed_record(_metadata, &self->nl, __NR_unlinkat, pid, "t_nowatch");
	ASSERT_NE(NULL, rec);
	EXPECT_PATH(rec, self->other, "DELETE");
}

#define FCAPS_XATTR "security.capability"

/* set security.capability on @path: CAP_NET_RAW permitted, effective */
static int set_fcaps(const char *path)
{
	struct vfs_cap_data cap = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data[0].permitted = 1U << CAP_NET_RAW,
	};

	return setxattr(path, FCAPS_XATTR, &cap, XATTR_CAPS_SZ_2, 0);
}

/* one write, as a program's first write to a new file does */
static int write_byte(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, "x", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * stat @path under the watch keyed @key; its PATH record must carry the
 * file capabilities @fp (permitted, as the record prints it), @fe and @fver
 */
static void expect_fcaps(struct __test_metadata *_metadata, struct audit_nl *nl,
			 const char *path, const char *key, const char *fp,
			 const char *fe, const char *fver)
{
	const struct audit_record *rec, *p;
	pid_t pid;

	pid = run_op(_metadata, nl, OP_STAT, path, NULL);
	rec = keyed_record(_metadata, nl, -1, pid, key);
	ASSERT_NE(NULL, rec);
	p = audit_path_record(nl, rec->serial, path);
	if (!p)
		audit_dump(nl);
	ASSERT_NE(NULL, p);
	EXPECT_TRUE(audit_field_is(p, "cap_fp", fp) &&
		    audit_field_is(p, "cap_fi", "0") &&
		    audit_field_is(p, "cap_fe", fe) &&
		    audit_field_is(p, "cap_fver", fver)) {
		TH_LOG("want cap_fp=%s cap_fe=%s cap_fver=%s: %s", fp, fe,
		       fver, p->text);
	}
}

/*
 * PATH records carry the file capabilities the inode has at lookup: none
 * for a written file (the VFS marks it S_NOSEC), those set on it after the
 * write, none again once a write has dropped them, and those of a file
 * that was never written.
 */
TEST_F(watch, path_file_caps)
{
	struct audit_rule wf = watch_rule(AUDIT_WATCH, self->file, 0, "t_fcap");
	struct audit_rule wo = watch_rule(AUDIT_WATCH, self->other, 0, "t_fcap_o");
	const char *caps = "0000000000002000";	/* CAP_NET_RAW */
	char buf[64];
	ssize_t len;

	ASSERT_EQ(0, audit_add(&self->nl, &wf));
	ASSERT_EQ(0, audit_add(&self->nl, &wo));

	ASSERT_EQ(0, write_byte(self->file));
	expect_fcaps(_metadata, &self->nl, self->file, "t_fcap", "0", "0", "0");

	if (set_fcaps(self->file) && errno == EOPNOTSUPP)
		SKIP(return, "no security.* xattrs on /tmp (CONFIG_TMPFS_XATTR)");
	len = getxattr(self->file, FCAPS_XATTR, buf, sizeof(buf));
	ASSERT_EQ((ssize_t)XATTR_CAPS_SZ_2, len);
	expect_fcaps(_metadata, &self->nl, self->file, "t_fcap", caps, "1", "2");

	/* a write drops them (file_remove_privs()) */
	ASSERT_EQ(0, write_byte(self->file));
	ASSERT_EQ(-1, getxattr(self->file, FCAPS_XATTR, buf, sizeof(buf)));
	ASSERT_EQ(ENODATA, errno);
	expect_fcaps(_metadata, &self->nl, self->file, "t_fcap", "0", "0", "0");

	ASSERT_EQ(0, set_fcaps(self->other));
	expect_fcaps(_metadata, &self->nl, self->other, "t_fcap_o", caps, "1", "2");
}

TEST_HARNESS_MAIN
