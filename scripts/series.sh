#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# series.sh BASE: the series as it would be mailed, selftests included, into
# build/series/BASE/: git format-patch --cover-letter -n --base of every
# commit on tag "base" in the prepared tree. The cover letter is filled from
# Documentation/cover-letter.txt and the latest benchmark table; To/Cc come
# from the tree's scripts/get_maintainer.pl. Prints the git send-email
# command; DRY_RUN=1 runs it with --dry-run (nothing is ever sent here).
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
"$TOP/scripts/prepare.sh" "$BASE"
harness_identity
out=$BUILD/series/$BASE
rm -rf "$out"
mkdir -p "$out"
cd "$KSRC"
n=$(git rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "$BASE: nothing on top of the base"
git format-patch -q -o "$out" --cover-letter -n --base="$(git rev-parse base)" \
	--no-signature --zero-commit --subject-prefix="PATCH" base..HEAD >/dev/null
cover=$out/0000-cover-letter.patch

# the newest benchmark table for this base: a fresh run, else the documented one
table=$BUILD/bench/$BASE.table
[ -f "$table" ] || table=$(ls -t "$TOP"/Documentation/results/"$BASE"-*.table 2>/dev/null | head -1)
python3 - "$cover" "$TOP/Documentation/cover-letter.txt" "${table:-}" \
	"$PKG $PKG_VERSION (Linux $KVER)" <<'PY'
import sys
cover, template, table, base = sys.argv[1:5]
lines = open(template).read().split("\n")
subject, body = lines[0], "\n".join(lines[2:]).rstrip()
if table:
    body += ("\n\nGuest instructions per operation (QEMU -icount), base kernel versus"
             "\nthis series, and the ratio to audit=0:\n" + open(table).read().rstrip())
body += "\n\nBased on " + base + "."
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
open(cover, "w").write(s)
PY

# recipients: maintainers To, lists Cc
gm() { PATH=/usr/bin:$PATH perl scripts/get_maintainer.pl --no-git --no-git-fallback \
	--no-rolestats --no-tree "$@" "$out"/0*.patch 2>/dev/null | grep '@' | paste -sd, -; }
to=$(gm --no-l)
cc=$(gm --no-m --no-r)
cmd="git send-email --to='$to' --cc='$cc' $out/*.patch"
info "$BASE: $(ls "$out" | wc -l) mail(s) in ${out#$TOP/}"
ls "$out"
echo "To send (review first):"
echo "  $cmd"
if [ "${DRY_RUN:-0}" = 1 ]; then
	git send-email --dry-run --confirm=never --quiet --suppress-cc=all \
		--from="$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" --to="$to" ${cc:+--cc="$cc"} \
		"$out"/*.patch > "$LOGS/$BASE-send-email-dry-run.log" 2>&1 ||
		{ cat "$LOGS/$BASE-send-email-dry-run.log" >&2; die "git send-email --dry-run failed"; }
	info "$BASE: git send-email --dry-run accepted $(grep -c '^Dry-OK\|^Dry-Sent\|Subject:' "$LOGS/$BASE-send-email-dry-run.log" || true) mail(s)"
fi
