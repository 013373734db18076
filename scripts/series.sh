#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# series.sh BASE: the series as it would be mailed, selftests included, into
# build/series/BASE/: format-patch of every commit on tag "base" in the
# prepared tree plus a cover letter (Documentation/cover-letter.txt).
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
git format-patch -q -o "$out" --cover-letter --no-signature --zero-commit \
	--subject-prefix="PATCH" base..HEAD >/dev/null
cover=$(ls "$out"/0000-cover-letter.patch)
if [ -f "$TOP/Documentation/cover-letter.txt" ]; then
	subject=$(head -1 "$TOP/Documentation/cover-letter.txt")
	body=$(tail -n +3 "$TOP/Documentation/cover-letter.txt")
	python3 - "$cover" "$subject" "$body" "$PKG $PKG_VERSION (Linux $KVER)" <<'PY'
import sys
p, subject, body, base = sys.argv[1:5]
s = open(p).read()
s = s.replace("*** SUBJECT HERE ***", subject)
s = s.replace("*** BLURB HERE ***", body + "\n\nBased on " + base + ".")
open(p, "w").write(s)
PY
fi
info "$BASE: $(ls "$out" | wc -l) mail(s) in ${out#$TOP/}"
ls "$out"
