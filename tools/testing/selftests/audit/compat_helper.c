// SPDX-License-Identifier: GPL-2.0
/*
 * The 32-bit task of compat_test, built for the compat ABI of the test's
 * architecture (i386 beside x86_64, AArch32 EABI beside arm64), without a
 * C library: it makes the syscalls compat_test's rules are about, by
 * number, and exits.
 *
 * Both ABIs number these syscalls alike: getpid 20, getppid 64, exit 1.
 */

#define NR_EXIT		1
#define NR_GETPID	20
#define NR_GETPPID	64

#if defined(__i386__)
static long sys1(long nr, long a)
{
	long ret;

	/* the other argument registers are zero, for the records' a1-a3 */
	asm volatile ("int $0x80" : "=a" (ret)
		      : "a" (nr), "b" (a), "c" (0), "d" (0), "S" (0) : "memory");
	return ret;
}
#elif defined(__arm__)
static long sys1(long nr, long a)
{
	register long r7 asm("r7") = nr;
	register long r0 asm("r0") = a;
	/* the other argument registers are zero, for the records' a1-a3 */
	register long r1 asm("r1") = 0;
	register long r2 asm("r2") = 0;
	register long r3 asm("r3") = 0;

	asm volatile ("svc #0" : "+r" (r0) : "r" (r7), "r" (r1), "r" (r2), "r" (r3)
		      : "memory");
	return r0;
}
#else
#error "compat_helper is built for i386 or 32-bit Arm"
#endif

void _start(void)
{
	long pid = sys1(NR_GETPID, 0);
	long ppid = sys1(NR_GETPPID, 0);

	/* exit 0 when both calls gave a pid */
	sys1(NR_EXIT, pid > 0 && ppid > 0 ? 0 : 1);
	for (;;)
		;
}
