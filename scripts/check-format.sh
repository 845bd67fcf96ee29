#!/bin/sh
# Check that the C lines a change touches are formatted as .clang-format says (clang-format 14).
# Only changed lines: the tree predates the file, and its hand-aligned tables stay as they are.
# Usage: scripts/check-format.sh [BASE]   (default $FORMAT_BASE, else HEAD~1: the last commit
#        and whatever is not committed yet). Exit 0 clean, 1 with the diff to apply on stdout,
#        2 when it cannot check (no git-clang-format, not a git checkout, no such BASE).
# Fix: git clang-format-14 BASE   (rewrites those lines in the working tree).
set -u
base=${1:-${FORMAT_BASE:-HEAD~1}}
gcf=""
for c in git-clang-format-14 git-clang-format; do
	if command -v "$c" >/dev/null 2>&1; then
		gcf=$c
		break
	fi
done
cf=""
for c in clang-format-14 clang-format; do
	if command -v "$c" >/dev/null 2>&1; then
		cf=$c
		break
	fi
done
if [ -z "$gcf" ] || [ -z "$cf" ]; then
	echo "check-format: no git-clang-format / clang-format (apt install clang-format)" >&2
	exit 2
fi
if ! git rev-parse --verify -q "$base^{commit}" >/dev/null; then
	echo "check-format: no commit $base to compare with (not a git checkout, or a shallow clone)" >&2
	exit 2
fi
out=$("$gcf" --binary "$(command -v "$cf")" --diff --extensions c,h "$base" -- 2>&1)
rc=$?
case "$out" in
"" | "no modified files to format" | "clang-format did not modify any files")
	exit 0 ;;
esac
if [ $rc -gt 1 ]; then
	echo "check-format: $gcf failed: $out" >&2
	exit 2
fi
printf '%s\n' "$out"
echo "check-format: the lines above, changed since $base, are not formatted as .clang-format says; run: $gcf $base" >&2
exit 1
