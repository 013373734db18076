/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SELinux helpers of the audit selftests that need an LSM (lsm_test,
 * fault_test): this task's context, the policy's denied test domain, and
 * selinuxfs.
 *
 * The denied domain, audit_test_denied_t, is one the policy allows
 * nothing: a task that enters it (by writing its context to
 * /proc/self/attr/current) is denied its next access, and SELinux logs an
 * AVC record. A policy without it makes the tests that need it skip.
 */

#ifndef _AUDIT_SELFTEST_SELINUX_H
#define _AUDIT_SELFTEST_SELINUX_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SELINUXFS	"/sys/fs/selinux"
#define DENIED_TYPE	"audit_test_denied_t"

/* The whole of @path into a new buffer; its length in *@len. */
static inline char *read_file(const char *path, size_t *len)
{
	size_t size = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + size, cap - size)) > 0) {
		size += n;
		if (size == cap) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*len = size;
	return buf;
}

/* This task's context (user:role:type[:level]), without its newline. */
static inline bool own_context(char *ctx, size_t size)
{
	size_t len = 0;
	char *buf = read_file("/proc/self/attr/current", &len);

	if (!buf)
		return false;
	snprintf(ctx, size, "%.*s", (int)len, buf);
	free(buf);
	ctx[strcspn(ctx, "\n")] = 0;
	return true;
}

/* Is @ctx a valid context of the loaded policy? */
static inline bool context_valid(const char *ctx)
{
	int fd = open(SELINUXFS "/context", O_RDWR | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, ctx, strlen(ctx)) == (ssize_t)strlen(ctx);
	close(fd);
	return ok;
}

/*
 * This task's context with the denied domain's type in it
 * (user:role:DENIED_TYPE[:level]); false if this task's context cannot be
 * read or has no type.
 */
static inline bool denied_context(char *denied, size_t size)
{
	char ctx[256], *type, *level;

	if (!own_context(ctx, sizeof(ctx)))
		return false;
	type = strchr(ctx, ':');
	type = type ? strchr(type + 1, ':') : NULL;
	if (!type)
		return false;
	level = strchr(++type, ':');
	snprintf(denied, size, "%.*s%s%s", (int)(type - ctx), ctx,
		 DENIED_TYPE, level ? level : "");
	return true;
}

/* Write @val to @path in one write(); 0 or -errno. */
static inline int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
	close(fd);
	return ret;
}

/* Enter the context @ctx (the denied domain); 0 or -errno. */
static inline int enter_context(const char *ctx)
{
	return write_str("/proc/self/attr/current", ctx);
}

/* The integer in a selinuxfs file (enforce), or -1. */
static inline int selinuxfs_int(const char *name)
{
	char path[64], buf[16] = "";
	int fd, n;

	snprintf(path, sizeof(path), SELINUXFS "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* Write @val to a selinuxfs file (enforce); 0 or -errno. */
static inline int selinuxfs_set_int(const char *name, int val)
{
	char path[64], buf[16];

	snprintf(path, sizeof(path), SELINUXFS "/%s", name);
	snprintf(buf, sizeof(buf), "%d", val);
	return write_str(path, buf);
}

#endif /* _AUDIT_SELFTEST_SELINUX_H */
