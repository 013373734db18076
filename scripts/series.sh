#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# series.sh BASE: the mails that go upstream, into build/series/BASE/.
#
# The primary base: one directory per submission of patches/BASE/submissions
# (NN-NAME/), each a complete git format-patch --cover-letter --base set:
# the cover letter from patches/BASE/covers/NAME.txt (its first paragraph
# the subject), naming the upstream tag it applies to; base-commit: where
# kernel/BASE.conf names the tag's commit (UPSTREAM_COMMIT); the patch ids
# of the submissions it comes after (AFTER), and only those, as
# prerequisite-patch-id: (b4 reads them);
# To/Cc from the tree's scripts/get_maintainer.pl for what the submission
# touches. Then the audit-testsuite's tests of the series
# (patches/audit-testsuite/), to the audit maintainers and list. Prints the
# git send-email commands in the order they must go, with what each one
# waits for.
#
# A backport base: what goes to stable for it. patches/BASE/stable-request
# names the base's backports of the mainline fixes tagged for stable whose
# mainline patches do not apply to it, with their mainline ids once they
# are merged; series.sh writes them as [PATCH BASE.y n/m] mails with a
# cover letter, as the stable rules ask (the upstream id first in each).
# The base's other patches are this repository's backports for building,
# testing and distribution kernels, not mails.
#
# From: and Signed-off-by: are the sender's: git config user.name and
# user.email, which must be set (and must not be the harness's placeholder).
# DRY_RUN=1 runs git send-email --dry-run on every submission (nothing is
# ever sent here).
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-$PRIMARY_BASE}"

name=$(git -C "$TOP" config user.name || true)
email=$(git -C "$TOP" config user.email || true)
placeholder=$(harness_identity; echo "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>")
if [ -z "$name" ] || [ -z "$email" ]; then
	die "make series: set the sender's identity first (git config user.name \"Your Name\"; git config user.email you@example.org): it goes into From: and Signed-off-by:"
fi
if [ "$name <$email>" = "$placeholder" ] || [ "$email" = "${placeholder#*<}" ] ||
   [ "${email%@localhost}" != "$email" ]; then
	die "make series: git config user.name/user.email is a placeholder ($name <$email>); set your own, it goes into From: and Signed-off-by:"
fi
sender="$name <$email>"

out=$BUILD/series/$BASE
if [ "$BASE" != "$PRIMARY_BASE" ] && [ ! -f "$PATCHDIR/stable-request" ]; then
	rm -rf "$out"
	info "$BASE: nothing to send. The fixes go to stable from mainline (Cc: stable); patches/$BASE/ holds this repository's backports for building and testing $BASE."
	exit 0
fi
# the mails are made from patches/BASE/: a commit in the prepared tree that
# make export has not written there would be lost by preparing it again
stamp=$BDIR/prepared.stamp
if [ -d "$KSRC/.git" ] && [ -f "$stamp" ]; then
	head=$(git -C "$KSRC" rev-parse HEAD)
	if [ "$head" != "$(cut -d' ' -f2 "$stamp")" ]; then
		die "$KSRC has commits that are not in patches/$BASE/ (HEAD $(git -C "$KSRC" rev-parse --short HEAD) is not the tree make prepare or make export left): run 'make export BASE=$BASE' first, or 'make prepare BASE=$BASE' to drop them (it keeps them on a branch)"
	fi
	[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
		die "$KSRC has uncommitted changes: commit them and run 'make export BASE=$BASE', or discard them, first"
fi
"$TOP/scripts/prepare.sh" "$BASE" >/dev/null
rm -rf "$out"
mkdir -p "$out"
cd "$KSRC"
# the upstream tag of the release the series applies to
tag=v${KVER}

# the sender in place of the harness's placeholder, in headers and trailers
sign() {
	local ph_name=${placeholder% <*} ph_mail=${placeholder#*<}
	ph_mail=${ph_mail%>}
	sed -i -e "s|^From: $ph_name <$ph_mail>\$|From: $sender|" \
		-e "s|^Signed-off-by: $ph_name <$ph_mail>\$|Signed-off-by: $sender|" \
		-e "s|^$ph_name (\([0-9]*\)):\$|${sender% <*} (\1):|" "$@"
	if grep -l -e "$ph_mail" -e "$ph_name" "$@" >/dev/null; then
		die "the placeholder identity is left in $(grep -l -e "$ph_mail" -e "$ph_name" "$@" | head -1)"
	fi
}

gm() {	# get_maintainer.pl on mails: maintainers (To) or lists (Cc)
	local what=$1
	shift
	# --no-keywords: a K: pattern matches words in the patch text (RISC-V's
	# matches an #ifdef __riscv of the selftests), not what it touches
	PATH=/usr/bin:$PATH perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-tree --no-keywords $what "$@" 2>/dev/null | grep '@' | paste -sd, -
}

send_cmd() {	# DIR TO CC: print the command, run it with --dry-run if asked
	local dir=$1 to=$2 cc=$3
	echo "  git send-email --from='$sender' --to='$to'${cc:+ --cc='$cc'} ${dir#$TOP/}/*.patch"
	if [ "${DRY_RUN:-0}" = 1 ]; then
		local log=$LOGS/$BASE-send-email-$(basename "$dir").log
		git send-email --dry-run --confirm=never --quiet --suppress-cc=all \
			--from="$sender" --to="$to" ${cc:+--cc="$cc"} "$dir"/*.patch >"$log" 2>&1 ||
			{ cat "$log" >&2; die "git send-email --dry-run failed for $(basename "$dir")"; }
		echo "    --dry-run: $(grep -c '^Dry-Sent' "$log" || true) mail(s) accepted"
	fi
}

if [ "$BASE" != "$PRIMARY_BASE" ]; then
	req=$PATCHDIR/stable-request
	branch=${KVER%.*}.y
	# "patch FILE UPSTREAM" lines, then the text of the cover letter
	pat='^patch [0-9][0-9][0-9][0-9]-[^ ]*[.]patch'
	files=($(awk -v p="$pat" '$0 ~ p {print $2}' "$req"))
	ups=($(awk -v p="$pat" '$0 ~ p {print $3}' "$req"))
	total=${#files[@]}
	[ "$total" -gt 0 ] || die "patches/$BASE/stable-request names no patch (\"patch FILE UPSTREAM\" lines)"
	{
		echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
		echo "From: $sender"
		echo "Subject: [PATCH $branch 0/$total] backports of mainline fixes tagged for stable"
		echo
		grep -v -e '^#' -e "$pat" "$req"
		echo
		echo "${sender% <*}"
	} > "$out/0000-cover-letter.patch"
	unmerged=0
	for i in "${!files[@]}"; do
		f=${files[$i]} up=${ups[$i]:--} n=$((i + 1))
		[ -f "$PATCHDIR/$f" ] && grep -qx "$f" "$PATCHDIR/series" ||
			die "patches/$BASE/stable-request names $f, which is not in patches/$BASE/series"
		grep -q '^Cc: stable@vger.kernel.org' "$PATCHDIR/$f" ||
			die "patches/$BASE/stable-request names $f, which has no Cc: stable tag: stable takes only the fixes mainline tags for it"
		m=$out/$(printf %04d "$n")-${f#[0-9][0-9][0-9][0-9]-}
		# the subject gains the stable branch and the position; the body
		# starts with the upstream id stable asks for, once there is one
		awk -v tag="[PATCH $branch $n/$total]" -v up="$up" '
			!done && /^Subject: \[PATCH\] / { sub(/^Subject: \[PATCH\]/, "Subject: " tag) }
			!done && /^$/ { print; if (up != "-") { print "commit " up " upstream."; print "" }; done = 1; next }
			{ print }' "$PATCHDIR/$f" > "$m"
		[ "$up" != "-" ] || unmerged=$((unmerged + 1))
	done
	sign "$out"/*.patch
	cc=$(gm "" $(ls "$out"/*.patch | grep -v /0000-))
	info "$BASE: $total backport(s) of mainline fixes for stable in ${out#$TOP/}"
	if [ "$unmerged" -gt 0 ]; then
		echo "note: $unmerged of these $total backports name no mainline commit yet (\"-\" in patches/$BASE/stable-request): stable takes a backport only of a merged commit, named by a \"commit <id> upstream.\" line. Put each fix's mainline id there once it is merged, and send then."
	fi
	echo "To send (review first):"
	send_cmd "$out" stable@vger.kernel.org "$cc"
	exit 0
fi

subs=$PATCHDIR/submissions
[ -f "$subs" ] || die "patches/$BASE/submissions is missing: it says which patches go in which submission"
commits=($(git rev-list --reverse base..HEAD))
st=
npatch=0
for c in "${commits[@]}"; do
	if is_selftests_commit "$KSRC" "$c"; then st=$c; else npatch=$((npatch + 1)); fi
done
covered=0
i=0
prev_tip=
declare -A tip_of first_of
echo "The submissions, in the order they go (review each before sending):"
while read -r sname range prefix after; do
	case "$sname" in ''|'#'*) continue ;; esac
	i=$((i + 1))
	prefix=${prefix//_/ }
	if [ "$range" = selftests ]; then
		[ -n "$st" ] || die "submission $sname: the tree has no selftests commit"
		first=$st last=$st
	else
		a=${range%-*} b=${range#*-}
		[ "$a" = $((covered + 1)) ] && [ "$b" -ge "$a" ] && [ "$b" -le "$npatch" ] ||
			die "patches/$BASE/submissions: $sname takes patches $range; expected them in order, from $((covered + 1)), of the $npatch in the series"
		covered=$b
		first=${commits[$((a - 1))]} last=${commits[$((b - 1))]}
	fi
	cover=$PATCHDIR/covers/$sname.txt
	[ -f "$cover" ] || die "patches/$BASE/covers/$sname.txt is missing (the cover letter of $sname)"
	dir=$out/$(printf %02d "$i")-$sname
	# the submission applies on what was sent before it (its prerequisites)
	git format-patch -q -o "$dir" --cover-letter --thread=shallow -n --base=base \
		--no-signature --zero-commit --subject-prefix="$prefix" "$first^..$last" >/dev/null
	sign "$dir"/*.patch
	# base-commit: the upstream commit of the release, where the base's
	# conf names it (UPSTREAM_COMMIT); the unpacked release's own commit is
	# nobody else's, so without one there is none (the cover names the
	# tag). prerequisite-patch-id: the patches of the AFTER submissions
	# alone, in their order, not every patch before this one (git
	# patch-id --stable, as format-patch --base computes them)
	prereq=
	if [ "$after" != - ]; then
		for d in ${after//,/ }; do
			[ -n "${tip_of[$d]:-}" ] || die "patches/$BASE/submissions: $sname comes after $d, which is not listed before it"
			for c in $(git rev-list --reverse "${first_of[$d]}^..${tip_of[$d]}"); do
				prereq="$prereq $(git diff-tree -p "$c" | git patch-id --stable | cut -d' ' -f1)"
			done
		done
	fi
	python3 - "$dir/0000-cover-letter.patch" "${UPSTREAM_COMMIT:-}" "$prereq" <<'PY'
import sys
path, upstream, prereq = sys.argv[1:4]
out = []
for l in open(path).read().split("\n"):
    if l.startswith("prerequisite-patch-id: "):
        continue
    if l.startswith("base-commit: "):
        if upstream:
            out.append("base-commit: " + upstream)
        out += ["prerequisite-patch-id: " + p for p in prereq.split()]
        continue
    out.append(l)
open(path, "w").write("\n".join(out))
PY
	n=$(ls "$dir"/0*.patch | grep -vc 0000-cover-letter)
	after_text=
	[ "$after" = - ] || after_text="It applies on top of: ${after//,/, } (sent before it)."
	python3 - "$dir/0000-cover-letter.patch" "$cover" "$tag" "$after_text" \
		"${sender% <*}" <<'PY'
import sys
path, template, base, after, signer = sys.argv[1:6]
text = open(template).read().strip("\n")
# the subject is the first paragraph, however it is wrapped
head, _, body = text.partition("\n\n")
subject, body = " ".join(head.split()), body.rstrip()
body += "\n\nBased on " + base + "." + ((" " + after) if after else "")
body += "\n\n" + signer
s = open(path).read()
s = s.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
open(path, "w").write(s)
PY
	to=$(gm --no-l "$dir"/0*.patch)
	cc=$(gm "--no-m --no-r" "$dir"/0*.patch)
	# covers/NAME.also: files of the tree whose maintainers and lists must
	# see the submission too (a change of what another subsystem records)
	also=$PATCHDIR/covers/$sname.also
	if [ -f "$also" ]; then
		files=$(grep -v '^#' "$also" | grep .)
		# on Cc: they review it; To: stays the owners of what it touches
		cc=$( (echo "$cc"; gm "-f" $files) | tr ',' '\n' | grep . |
			grep -vxF -f <(echo "$to" | tr ',' '\n' | grep .) | awk '!seen[$0]++' | paste -sd, -)
	fi
	echo
	echo "$i. $sname: $n patch(es)${after_text:+, after ${after//,/, }}"
	send_cmd "$dir" "$to" "$cc"
	tip_of[$sname]=$last
	first_of[$sname]=$first
	prev_tip=$last
done < "$subs"
[ "$covered" = "$npatch" ] ||
	die "patches/$BASE/submissions covers patches 1-$covered of the $npatch in the series"

# The audit-testsuite's tests of the fixes (patches/audit-testsuite/): a
# series of its own, against the suite's upstream commit its cover letter
# names (base-commit:), in the order of patches/audit-testsuite/series,
# to the audit maintainers and list; it goes after the kernel submissions
# whose changelogs name its tests.
tsdir=$TOP/patches/audit-testsuite
if [ -f "$tsdir/series" ]; then
	i=$((i + 1))
	dir=$out/$(printf %02d "$i")-audit-testsuite
	mkdir -p "$dir"
	[ -f "$tsdir/0000-cover-letter.patch" ] || die "patches/audit-testsuite/0000-cover-letter.patch is missing"
	cp "$tsdir/0000-cover-letter.patch" "$dir/"
	n=0
	while read -r f; do
		case "$f" in ''|'#'*) continue ;; esac
		[ -f "$tsdir/$f" ] || die "patches/audit-testsuite/series names $f, which is missing"
		cp "$tsdir/$f" "$dir/"
		n=$((n + 1))
	done < "$tsdir/series"
	grep -q "^base-commit: [0-9a-f]\{40\}$" "$dir/0000-cover-letter.patch" ||
		die "patches/audit-testsuite/0000-cover-letter.patch names no base-commit: (the suite's upstream commit)"
	sign "$dir"/*.patch
	to=$(gm --no-l -f kernel/audit.c)
	# the suite's own list is the audit list; LKML does not take its patches
	cc=$(gm "--no-m --no-r" -f kernel/audit.c | tr ',' '\n' | grep -v 'linux-kernel@vger' | paste -sd, -)
	echo
	echo "$i. audit-testsuite: $n patch(es) for github.com/linux-audit/audit-testsuite, after the kernel submissions"
	send_cmd "$dir" "$to" "$cc"
fi
echo
info "$BASE: $i submission(s) in ${out#$TOP/}"
