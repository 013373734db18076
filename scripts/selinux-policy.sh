#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selinux-policy.sh BASE: build/BASE/selinux/policy, the SELinux policy the
# LSM test kernels load at boot (guest/init). It is the kernel's own dummy
# policy: scripts/selinux/mdp of the prepared tree writes policy.conf with
# one type (base_t) allowed every permission of every class the kernel
# knows, and Debian's checkpolicy compiles it (non-MLS). Policy
# capabilities are left out: the host's checkpolicy may not know the
# kernel's newest ones, and the tests need none.
# One type is added, audit_test_denied_t: a domain that base_t may enter
# (a write to /proc/self/attr/current) and that is allowed nothing, so
# that every access it then makes is denied and logged in an AVC record
# (lsm_test's AVC tests), in the permissive mode as in the enforcing one.
set -eu
. "$(dirname "$0")/lib.sh"
load_base "${1:-}"
need gcc checkpolicy
OUT=$BDIR/selinux
sum=$(cat "$KSRC"/scripts/selinux/mdp/mdp.c "$KSRC"/security/selinux/include/classmap.h \
	"$KSRC"/security/selinux/include/initial_sid_to_string.h "$0" | sha256sum | cut -d' ' -f1)
[ -f "$OUT/policy" ] && [ "$(cat "$OUT/.sum" 2>/dev/null)" = "$sum" ] && exit 0
rm -rf "$OUT"
mkdir -p "$OUT/include/generated"
# mdp reads no kernel configuration but the file systems' labelling
: > "$OUT/include/generated/autoconf.h"
gcc -O2 -I"$OUT/include" -I"$KSRC/include/uapi" -I"$KSRC/include" \
	-I"$KSRC/security/selinux/include" -o "$OUT/mdp" "$KSRC/scripts/selinux/mdp/mdp.c" ||
	die "$BASE: cannot build scripts/selinux/mdp (see the compiler's message above)"
(cd "$OUT" && ./mdp policy.conf file_contexts) || die "$BASE: mdp failed"
sed -i '/^policycap /d' "$OUT/policy.conf"
grep -q '^user user_u roles { base_r };$' "$OUT/policy.conf" ||
	die "$BASE: mdp's policy.conf has no 'user user_u roles { base_r };' line to add the test type before"
sed -i '/^user user_u roles { base_r };$/i\
type audit_test_denied_t;\
role base_r types { audit_test_denied_t };\
allow base_t audit_test_denied_t:process dyntransition;' "$OUT/policy.conf"
checkpolicy -U allow -o "$OUT/policy" "$OUT/policy.conf" >"$OUT/checkpolicy.log" 2>&1 || {
	cat "$OUT/checkpolicy.log" >&2
	die "$BASE: checkpolicy failed on the policy mdp wrote (${OUT#$TOP/}/policy.conf)"
}
echo "$sum" > "$OUT/.sum"
info "$BASE: SELinux test policy ${OUT#$TOP/}/policy ($(stat -c %s "$OUT/policy") bytes)"
