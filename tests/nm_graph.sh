#!/bin/sh
# Dependencies between object files, for the layering tests of the command
# (test_cli_layering.sh) and the recorder (test_record_layering.sh): a file
# depends on another when it uses a symbol the other defines (nm).

# edges DIR: "USER DEFINER" lines, one per pair of files of DIR/**/*.o,
# each named by its path under DIR without .o ("util/cli", "builtin-diff")
edges() {
	find "$1" -name '*.o' | sort | while read -r o; do
		f=${o#"$1"/}
		f=${f%.o}
		nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print "D", $3, f }'
		nm -u "$o" | awk -v f="$f" '{ print "U", $NF, f }'
	done | awk '
		$1 == "D" { def[$2] = $3; next }
		{ use[++n] = $2; user[n] = $3 }
		END {
			for (i = 1; i <= n; i++)
				if ((use[i] in def) && def[use[i]] != user[i])
					print user[i], def[use[i]]
		}' | sort -u
}

# cycles EDGES_FILE: the files on each cycle tsort finds, one cycle a line
cycles() {
	tsort "$1" 2>&1 >/dev/null | awk '
		/input contains a loop/ { if (c != "") print c; c = ""; next }
		{ sub(/^tsort: /, ""); c = c (c == "" ? "" : ", ") $0 }
		END { if (c != "") print c }'
}

