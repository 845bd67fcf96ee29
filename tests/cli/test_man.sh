#!/usr/bin/env bash
# TAP test of docs/tlreplay.1: it formats without warnings, has the usual
# sections, and has an entry for every command of `tlreplay --list-cmds` that
# describes every long option of `tlreplay --list-opts CMD` (the option tables
# of perf-plugin/builtin-*.c, as --help shows them), so the page cannot fall
# behind the command; and ENVIRONMENT describes every TLREPLAY_* variable the code reads.
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
# every TLREPLAY_* variable the C code (getenv, setenv for the programs it runs) or the worker and
# gdb's Python (os.environ) read, but those between tlreplay and its own processes: the saved
# GLIBC_TUNABLES of a re-executed tlreplay (hugepages.c) and the worker's pipe fds
# (docs/replay-internals.md)
internal=" TLREPLAY_SAVED_TUNABLES TLREPLAY_WORKER_FDS "
mapfile -t read_envs < <({
	grep -rhoE '"TLREPLAY_[A-Z0-9_]+"' "$root/perf-plugin" "$root/core" --include='*.c' --include='*.h'
	grep -rhoE 'environ(\.get)?[[(]"TLREPLAY_[A-Z0-9_]+"' "$root/core" "$root/gdb" --include='*.py'
} | grep -oE 'TLREPLAY_[A-Z0-9_]+' | sort -u)
envs=(XDG_STATE_HOME TMPDIR)
for e in "${read_envs[@]}"; do
	[[ $internal == *" $e "* ]] || envs+=("$e")
done

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
envtext=$(awk '/^[^ ]/ { on = $0 == "ENVIRONMENT" } on' <<<"$text")
for e in "${envs[@]}"; do
	grep -qw -- "$e" <<<"$envtext" || missing+=("$e")
done
if ((${#missing[@]} == 0)); then
	ok "ENVIRONMENT describes the ${#envs[@]} variables tlreplay reads (${envs[*]})"
else
	not_ok "ENVIRONMENT describes every variable tlreplay reads" "missing: ${missing[*]}"
fi

# section TITLE: the text of the subsection whose heading starts with TITLE
# (headings are indented 3 spaces, their text 7)
section() {
	awk -v t="$1" '
		/^[^ ]/ || /^   [^ ]/ { on = index($0, "   " t) == 1 && \
			(length($0) == length(t) + 3 || substr($0, length(t) + 4, 1) == " ") }
		on' <<<"$text"
}
# Options several commands share are described once, in these sections;
# pack's selection options are described with ir's ("chosen as for ir").
shared=$(section "Replay options"; section "Options of the analysis commands")
declare -A see=([pack]=ir)

for c in "${cmds[@]}"; do
	# an entry of its own: a subsection heading or tag that starts with it
	if grep -Eq "^[[:space:]]+$c([[:space:]]|\$)" <<<"$text"; then
		ok "$c: has an entry"
	else
		not_ok "$c: has an entry" "no line starts with '$c'"
	fi

	opts=()
	missing=()
	where=$(section "$c"; [[ -n ${see[$c]} ]] && section "${see[$c]}"; printf '%s\n' "$shared")
	for o in $("$TLREPLAY" --list-opts "$c"); do
		[[ " ${opts[*]} " == *" $o "* ]] && continue
		opts+=("$o")
		# the whole option: "--per" must not be taken for "--per-device"
		grep -Eq -- "(^|[^-a-z0-9])$o([^-a-z0-9]|\$)" <<<"$where" || missing+=("$o")
	done
	if ((${#missing[@]} == 0)); then
		ok "$c: its entry (or the shared option sections) describes its ${#opts[@]} long options${opts:+ (${opts[*]})}"
	else
		not_ok "$c: its entry (or the shared option sections) describes its long options" \
			"missing: ${missing[*]}"
	fi
done

exit $fail
