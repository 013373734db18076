#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The "srctree" workload of make bench (audit-bench runs it as a logged-in
# user, loginuid and uid 1000, from /home/user): what a developer's or a CI
# runner's shell does with a source tree, start to finish.
#  1. unpack a source tarball (/bench/src.tar.gz: the kernel's kernel/
#     directory of the base, some 600 files);
#  2. walk the tree: count its files, list it long and recursively, stat
#     every C file, search it for a string;
#  3. a configure-style script: 40 checks, each writing a small file and
#     running small programs on it (fork and execve of each, as configure
#     runs the compiler and the shell tools), then a Makefile-like pass
#     that copies, compares and renames;
#  4. remove the tree.
# Every command is named by its path, so busybox's shell forks and execs it
# rather than running the applet in its own process.
set -eu
d=work.$$
/bin/mkdir "$d"
cd "$d"
/bin/tar -xzf /bench/src.tar.gz

/bin/find . -type f | /bin/wc -l > files.count
/bin/ls -lR . > /dev/null
/bin/find . -name '*.c' -exec /bin/stat {} + > /dev/null
/bin/grep -rl EXPORT_SYMBOL . > exports.list || true

i=0
while [ $i -lt 40 ]; do
	printf 'int check_%d(void) { return %d; }\n' $i $i > conftest.c
	if /bin/grep -q "check_$i" conftest.c; then
		/bin/sed "s/check_/have_/" conftest.c > conftest.i
		/bin/cat conftest.i >> config.log
		echo "#define HAVE_$i 1" >> confdefs.h
	fi
	/bin/test -f conftest.i && /bin/rm -f conftest.c conftest.i
	i=$(/bin/expr $i + 1)
done
/bin/sort confdefs.h | /bin/uniq > config.h

for f in kernel/*.c; do
	o=${f%.c}.o
	/bin/cp "$f" "$o.tmp"
	/bin/cmp -s "$f" "$o.tmp"
	/bin/mv "$o.tmp" "$o"
done
/bin/touch stamp

cd ..
/bin/rm -rf "$d"
