#!/bin/sh
# The C lines a change touches follow .clang-format (scripts/check-format.sh, HACKING.md): the
# last commit and what is not committed yet, in this checkout. First the check itself, in a
# scratch repository: a badly formatted change fails with the diff, a formatted one passes, a
# change outside C files is not looked at.
. "$(dirname "$0")/../taplib.sh"
CHECK="$ROOT/scripts/check-format.sh"

if ! command -v git-clang-format-14 >/dev/null 2>&1 && ! command -v git-clang-format >/dev/null 2>&1; then
	echo "1..0 # SKIP no git-clang-format (apt install clang-format)"
	exit 0
fi

R="$TMP/repo"
mkdir -p "$R"
cp "$ROOT/.clang-format" "$R/"
printf 'int f(int a)\n{\n\treturn a + 1;\n}\n' >"$R/f.c"
(cd "$R" && git init -q && git add . && git -c user.email=t@t -c user.name=t commit -qm one) >/dev/null 2>&1

printf 'int f(int a)\n{\n    if(a) return a+2;\n\treturn a + 1;\n}\n' >"$R/f.c"
(cd "$R" && "$CHECK" HEAD) >"$TMP/out" 2>"$TMP/err"
RC=$?
ok $([ "$RC" -eq 1 ] && grep -q '^+	if (a)' "$TMP/out" && grep -q "run: git-clang-format" "$TMP/err"; echo $?) \
	"a badly formatted change fails, with the diff and the command that fixes it"
printf 'int f(int a)\n{\n\tif (a)\n\t\treturn a + 2;\n\treturn a + 1;\n}\n' >"$R/f.c"
(cd "$R" && "$CHECK" HEAD) >"$TMP/out" 2>"$TMP/err"
ok $?  "a formatted change passes"
printf 'x  =  1\n' >"$R/notes.txt"
(cd "$R" && git add notes.txt && "$CHECK" HEAD) >"$TMP/out" 2>"$TMP/err"
ok $? "files other than C are not checked"
(cd "$R" && "$CHECK" no-such-commit) >"$TMP/out" 2>"$TMP/err"
ok $([ $? -eq 2 ] && grep -q "no commit no-such-commit" "$TMP/err"; echo $?) "an unknown base is said, exit 2"

# this checkout: its last commit and uncommitted changes
if (cd "$ROOT" && git rev-parse --verify -q "${FORMAT_BASE:-HEAD~1}^{commit}" >/dev/null 2>&1); then
	(cd "$ROOT" && "$CHECK") >"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ "$RC" -eq 0 ] || { diag "$(cat "$TMP/err")"; diag "$(head -60 "$TMP/out")"; }
	ok $RC "the lines changed since ${FORMAT_BASE:-HEAD~1} follow .clang-format"
else
	skip "not a git checkout with a parent commit: nothing to compare with"
fi
done_testing
