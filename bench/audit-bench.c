// SPDX-License-Identifier: GPL-2.0
/*
 * audit-bench: per-operation cost of syscalls that audit sees, run inside the
 * test guest. Under QEMU with -icount shift=0,sleep=off the guest's
 * CLOCK_MONOTONIC advances one ns per guest instruction, so the ns/op this
 * prints are guest instructions per operation.
 *
 *   audit-bench [-n iterations] [-r repetitions] workload...
 *
 * Prints one line per workload and repetition:
 *   BENCH <workload> rep=<r> iters=<n> ns_per_op=<x.y>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long iters = 20000;
static char buf[512];
static int zero_fd = -1, null_fd = -1;

static void w_getpid(void)
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

static const struct workload {
	const char *name;
	void (*fn)(void);
	int div;		/* fewer iterations for heavy workloads */
} workloads[] = {
	{ "getpid", w_getpid, 1 },
	{ "stat", w_stat, 4 },
	{ "openclose", w_openclose, 4 },
	{ "rw", w_rw, 2 },
	{ "exec", w_exec, 200 },
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int reps = 3, opt, i, r;
	long j, n;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n': iters = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n iters] [-r reps] workload...\n", argv[0]);
			return 2;
		}
	}
	zero_fd = open("/dev/zero", O_RDONLY);
	null_fd = open("/dev/null", O_WRONLY);
	for (; optind < argc; optind++) {
		const struct workload *w = NULL;

		for (i = 0; i < (int)(sizeof(workloads) / sizeof(*workloads)); i++)
			if (!strcmp(workloads[i].name, argv[optind]))
				w = &workloads[i];
		if (!w) {
			fprintf(stderr, "unknown workload %s\n", argv[optind]);
			return 2;
		}
		n = iters / w->div;
		if (n < 10)
			n = 10;
		for (j = 0; j < n / 10; j++)	/* warm up */
			w->fn();
		for (r = 0; r < reps; r++) {
			double t0 = now_ns(), t1;

			for (j = 0; j < n; j++)
				w->fn();
			t1 = now_ns();
			printf("BENCH %s rep=%d iters=%ld ns_per_op=%.1f\n",
			       w->name, r, n, (t1 - t0) / n);
			fflush(stdout);
		}
	}
	return 0;
}
