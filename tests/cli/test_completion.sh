#!/usr/bin/env bash
# TAP test of scripts/bash-completion/tlreplay: source it in this
# (non-interactive) bash, fill COMP_WORDS/COMP_CWORD as bash would, call the
# completion function and look at COMPREPLY. The checks run without the
# bash-completion package, and again with it when it is installed.
# Env: TLREPLAY = the built binary (set by `make check`).

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
TLREPLAY=${TLREPLAY:-$root/build/tlreplay}
comp=$root/scripts/bash-completion/tlreplay

if [[ ! -x $TLREPLAY ]]; then
	echo "1..0 # SKIP $TLREPLAY not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlreplay-comp.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/traces" "$tmp/traces/sub"
: >"$tmp/traces/a.json"
: >"$tmp/traces/b.json.gz"
: >"$tmp/traces/notes.txt"
: >"$tmp/traces/w.xlsx"
: >"$tmp/traces/p.html"

bc=
for f in /usr/share/bash-completion/bash_completion /etc/bash_completion; do
	if [[ -r $f ]]; then
		bc=$f
		break
	fi
done

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
	for l in "$@"; do
		echo "#   $l"
	done
}

# complete WORD... : the command line up to the cursor, the last word being
# the one completed. Sets COMPREPLY.
complete_line() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	# the line as typed: "--output=FILE" has no blanks around the "="
	COMP_LINE=
	local w last=
	for w in "$@"; do
		if [[ -n $COMP_LINE && $w != = && $last != = ]]; then
			COMP_LINE+=" "
		fi
		COMP_LINE+=$w
		last=$w
	done
	[[ -z ${COMP_WORDS[COMP_CWORD]} ]] && COMP_LINE+=" "
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_tlreplay tlreplay "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
}

sorted() {
	printf '%s\n' "$@" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

# expect_eq DESC "expected sorted words" WORD... : COMPREPLY is exactly that
expect_eq() {
	local desc=$1 want=$2 got
	shift 2
	complete_line "$@"
	got=$(sorted "${COMPREPLY[@]}")
	if [[ $got == "$want" ]]; then
		ok "$desc"
	else
		not_ok "$desc" "want: $want" "got:  $got"
	fi
}

# expect_has DESC WANTED WORD... : COMPREPLY contains WANTED
expect_has() {
	local desc=$1 want=$2 w
	shift 2
	complete_line "$@"
	for w in "${COMPREPLY[@]}"; do
		if [[ $w == "$want" ]]; then
			ok "$desc"
			return
		fi
	done
	not_ok "$desc" "want $want in: ${COMPREPLY[*]}"
}

# expect_none DESC WORD... : COMPREPLY is empty
expect_none() {
	local desc=$1
	shift
	complete_line "$@"
	if ((${#COMPREPLY[@]} == 0)); then
		ok "$desc"
	else
		not_ok "$desc" "want nothing, got: ${COMPREPLY[*]}"
	fi
}

checks() {
	local mode=$1 t=$tmp/traces

	expect_eq "$mode: tlreplay br<TAB> -> breakdown" "breakdown" tlreplay br
	expect_eq "$mode: tlreplay --m<TAB> -> --max-text" "--max-text" tlreplay --m
	expect_eq "$mode: tlreplay --max-text 8G br<TAB> -> breakdown (SIZE is not the command)" \
		"breakdown" tlreplay --max-text 8G br
	expect_eq "$mode: tlreplay --max-text 8G breakdown --per<TAB>" \
		"--per-device --per-stream" tlreplay --max-text 8G breakdown --per
	expect_eq "$mode: tlreplay <TAB> -> every command" \
		"$(mapfile -t c < <("$TLREPLAY" --list-cmds); sorted "${c[@]}")" tlreplay ""
	expect_eq "$mode: tlreplay breakdown --per<TAB> -> --per-device --per-stream" \
		"--per-device --per-stream" tlreplay breakdown --per
	expect_eq "$mode: tlreplay br --per<TAB> (abbreviated command)" \
		"--per-device --per-stream" tlreplay br --per
	expect_has "$mode: tlreplay ops --<TAB> has --recompute" --recompute tlreplay ops --
	expect_has "$mode: tlreplay ops --<TAB> has --input" --input tlreplay ops --
	expect_eq "$mode: tlreplay list -i x.json --gp<TAB> -> --gpu" "--gpu" \
		tlreplay list -i x.json --gp
	expect_eq "$mode: tlreplay show -i <TAB> -> trace files and directories" \
		"$t/a.json $t/b.json.gz $t/sub" tlreplay show -i "$t/"
	expect_eq "$mode: tlreplay show --input <TAB> -> trace files and directories" \
		"$t/a.json $t/b.json.gz $t/sub" tlreplay show --input "$t/"
	expect_eq "$mode: tlreplay show -i a<TAB> -> a.json" "$t/a.json" tlreplay show -i "$t/a"
	expect_eq "$mode: tlreplay ops -o <TAB> -> trace files and directories" \
		"$t/a.json $t/b.json.gz $t/sub" tlreplay ops -o "$t/"
	expect_eq "$mode: tlreplay ops --output=<TAB> -> trace files and directories" \
		"$t/a.json $t/b.json.gz $t/sub" tlreplay ops --output = "$t/"
	expect_eq "$mode: tlreplay report -o <TAB> -> directories and workbooks (it writes one)" \
		"$t/sub $t/w.xlsx" tlreplay report -o "$t/"
	expect_eq "$mode: tlreplay report --gpu-spec <TAB> -> .json files and directories" \
		"$t/a.json $t/sub" tlreplay report --gpu-spec "$t/"
	expect_has "$mode: tlreplay report --<TAB> has --roofline" --roofline tlreplay report --
	expect_eq "$mode: tlreplay report --html <TAB> -> directories and pages" \
		"$t/p.html $t/sub" tlreplay report --html "$t/"
	expect_has "$mode: tlreplay ops --<TAB> has --perf" --perf tlreplay ops --
	expect_eq "$mode: tlreplay show -i n<TAB> -> other files when no trace matches" \
		"$t/notes.txt" tlreplay show -i "$t/n"
	expect_eq "$mode: tlreplay open <TAB> -> trace files" \
		"$t/a.json $t/b.json.gz $t/sub" tlreplay open "$t/"
	expect_eq "$mode: tlreplay open --<TAB> -> --forget --help" "--forget --help" tlreplay open --
	expect_eq "$mode: tlreplay help br<TAB> -> breakdown" "breakdown" tlreplay help br
	expect_none "$mode: tlreplay show <TAB> completes no file (UIDs)" tlreplay show "$t/"
	expect_none "$mode: tlreplay nosuchcmd<TAB> -> nothing" tlreplay nosuchcmd
	# every long option of every command's table (as --help shows them)
	local c
	for c in "${cmds[@]}"; do
		expect_eq "$mode: tlreplay $c --<TAB> -> its long options" \
			"$(mapfile -t o < <("$TLREPLAY" --list-opts "$c"); sorted "${o[@]}")" tlreplay "$c" --
	done
}

# shellcheck source=/dev/null
. "$comp" || {
	echo "1..1"
	echo "not ok 1 - source $comp"
	exit 1
}
export TLREPLAY_BIN=$TLREPLAY

mapfile -t cmds < <("$TLREPLAY" --list-cmds)
plan=$((26 + ${#cmds[@]}))
if declare -F _init_completion >/dev/null || [[ -z $bc ]]; then
	echo "1..$((plan + 1))"
else
	echo "1..$((plan * 2 + 1))"
fi

if complete -p tlreplay 2>/dev/null | grep -q -- '-F _tlreplay'; then
	ok "the file registers _tlreplay for tlreplay"
else
	not_ok "the file registers _tlreplay for tlreplay"
fi

if declare -F _init_completion >/dev/null; then
	checks "with _init_completion"
else
	checks "plain COMP_WORDS"
	if [[ -n $bc ]]; then
		# shellcheck source=/dev/null
		. "$bc" >/dev/null 2>&1
		# shellcheck source=/dev/null
		. "$comp"
		if declare -F _init_completion >/dev/null; then
			checks "with bash-completion"
		else
			for ((k = 0; k < plan; k++)); do
				ok "with bash-completion # SKIP $bc defines no _init_completion"
			done
		fi
	fi
fi

exit $fail
