#!/usr/bin/env bash
# TAP test of docs/tlreplay.1: it formats without warnings, has the usual
# sections, and mentions every command of `tlreplay --list-cmds` and every
# long option of `tlreplay --list-opts CMD`, so the page cannot fall behind
# the usage strings in perf-plugin/tlreplay.c.
# Env: TLREPLAY = the built binary (set by `make check`).

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
TLREPLAY=${TLREPLAY:-$root/build/tlreplay}
page=$root/docs/tlreplay.1

if ! command -v man >/dev/null 2>&1; then
	echo "1..0 # SKIP man not installed"
	exit 0
fi
if [[ ! -x $TLREPLAY ]]; then
	echo "1..0 # SKIP $TLREPLAY not built"
	exit 0
fi

export MANPAGER=cat PAGER=cat MAN_KEEP_FORMATTING=

n=0
fail=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	fail=1
	echo "not ok $n - $1"
	shift
	local l
	for l in "$@"; do
		echo "#   $l"
	done
}

mapfile -t cmds < <("$TLREPLAY" --list-cmds)
sections=(NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "OUTPUT FORMATS" FILES ENVIRONMENT
	"EXIT STATUS" EXAMPLES "SEE ALSO")
envs=(TLREPLAY_TRACE TLREPLAY_LOG_LEVEL XDG_STATE_HOME)

echo "1..$((4 + 2 * ${#cmds[@]}))"

if ((${#cmds[@]})); then
	ok "tlreplay --list-cmds lists ${#cmds[@]} commands"
else
	not_ok "tlreplay --list-cmds lists commands"
fi

# 1. no warnings from man (groff -ww underneath)
warn=$(man --warnings -l "$page" 2>&1 >/dev/null)
rc=$?
if ((rc == 0)) && [[ -z $warn ]]; then
	ok "man --warnings -l docs/tlreplay.1 is quiet"
else
	mapfile -t lines <<<"$warn"
	not_ok "man --warnings -l docs/tlreplay.1 is quiet (exit $rc)" "${lines[@]}"
fi

# The page as text: plain ASCII (C locale), wide lines so that nothing is
# broken, overstrikes (bold, underline) removed, any Unicode dash made "-".
text=$(LC_ALL=C MANWIDTH=200 man -l "$page" 2>/dev/null |
	LC_ALL=C sed -e 's/.\x08//g' -e 's/\xe2\x80\x90/-/g' -e 's/\xe2\x88\x92/-/g')

missing=()
for s in "${sections[@]}"; do
	grep -q "^$s\$" <<<"$text" || missing+=("$s")
done
if ((${#missing[@]} == 0)); then
	ok "the page has the sections ${sections[*]}"
else
	not_ok "the page has the sections ${sections[*]}" "missing: ${missing[*]}"
fi

missing=()
for e in "${envs[@]}"; do
	grep -qw -- "$e" <<<"$text" || missing+=("$e")
done
if ((${#missing[@]} == 0)); then
	ok "the page describes ${envs[*]}"
else
	not_ok "the page describes ${envs[*]}" "missing: ${missing[*]}"
fi

for c in "${cmds[@]}"; do
	# an entry of its own: a subsection heading or tag that starts with it
	if grep -Eq "^[[:space:]]+$c([[:space:]]|\$)" <<<"$text"; then
		ok "$c: has an entry"
	else
		not_ok "$c: has an entry" "no line starts with '$c'"
	fi

	opts=()
	missing=()
	for o in $("$TLREPLAY" --list-opts "$c"); do
		[[ " ${opts[*]} " == *" $o "* ]] && continue
		opts+=("$o")
		# the whole option: "--per" must not be taken for "--per-device"
		grep -Eq -- "(^|[^-a-z])$o([^-a-z]|\$)" <<<"$text" || missing+=("$o")
	done
	if ((${#missing[@]} == 0)); then
		ok "$c: the page mentions its ${#opts[@]} long options${opts:+ (${opts[*]})}"
	else
		not_ok "$c: the page mentions its long options" "missing: ${missing[*]}"
	fi
done

exit $fail
