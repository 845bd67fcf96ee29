#!/bin/sh
# An IR file, a trace or a pack is data: replaying one must never run code that is not a
# registered operator's. The worker once resolved op_name with getattr() on torch.ops, so
# `load_library::__call__` with "./evil.so" dlopened that file from the current directory and
# ran its constructor. Here evil.so's constructor creates a marker file; every way in
# (tlreplay replay, tlreplay uid on a trace, pack's replay.py, gdb) must answer "not an
# operator" and leave no marker. Registered operators (aten::relu) still replay.
. "$(dirname "$0")/../taplib.sh"

if ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
	echo "1..0 # SKIP $PYTHON has no torch"
	exit 0
fi
if ! cc -shared -fPIC -x c -o "$TMP/probe.so" /dev/null 2>/dev/null; then
	echo "1..0 # SKIP no C compiler to build the hostile library"
	exit 0
fi
export TLREPLAY_PYTHON="$PYTHON"
W=$TMP/work
mkdir -p "$W"
MARK=$TMP/PWNED
export EVIL_MARKER="$MARK"
cat >"$TMP/evil.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
/* runs when the library is loaded: what the attacker wants */
__attribute__((constructor)) static void evil(void)
{
	FILE *f = fopen(getenv("EVIL_MARKER"), "w");
	if (f)
		fclose(f);
}
EOF
cc -shared -fPIC -o "$W/evil.so" "$TMP/evil.c"

# the IR of the report, exactly
cat >"$W/ops.json" <<'EOF'
[{"op_name":"load_library::__call__","replay_ir":{"list_pos_args":[{"arg_name":"path","arg_type":"str","value":"./evil.so"}],"list_kwargs":[]}}]
EOF

# the library really is hostile: loading it leaves the marker
(cd "$W" && "$PYTHON" -c 'import ctypes; ctypes.CDLL("./evil.so")')
[ -e "$MARK" ]
ok $? "the test's evil.so leaves its marker when loaded (the test can fail)"
rm -f "$MARK"

(cd "$W" && "$TLREPLAY" replay ops.json -j >"$TMP/out" 2>"$TMP/err")
RC=$?
[ ! -e "$MARK" ]
ok $? "tlreplay replay of load_library::__call__ ./evil.so runs no code"
[ "$RC" -eq 0 ] && grep -q '"status": *"unavailable"' "$TMP/out" &&
	grep -q 'not an operator: load_library::__call__' "$TMP/out"
ok $? "the entry is unavailable: not an operator ($(head -c 300 "$TMP/out"))"

# other attributes of torch.ops and of its namespace objects, and bad overloads
for name in '__dict__::clear' 'import_module::__call__' 'aten::__dict__' 'aten::name' \
	'aten::__class__' 'load_library::default' 'aten::relu.__call__' 'aten::relu.__class__' \
	'aten::relu.overloads' 'aten::re lu' 'a.b::relu'; do
	printf '[{"op_name":"%s","replay_ir":{"list_pos_args":[{"arg_name":"a","arg_type":"str","value":"./evil.so"}],"list_kwargs":[]}}]\n' \
		"$name" >"$W/one.json"
	(cd "$W" && "$TLREPLAY" replay one.json -j >"$TMP/out" 2>"$TMP/err")
	[ ! -e "$MARK" ] && grep -q '"status": *"unavailable"' "$TMP/out" && grep -qF "not an operator" "$TMP/out"
	ok $? "op_name $name: not an operator"
done

# an overload given apart from the name goes through the same check
printf '[{"op_name":"aten::relu","overload":"__call__","replay_ir":{"list_pos_args":[{"arg_name":"self","arg_type":"Tensor","value":{"shape":[4],"dtype":"float","strides":[1]}}],"list_kwargs":[]}}]\n' >"$W/ov.json"
(cd "$W" && "$TLREPLAY" replay ov.json -j >"$TMP/out" 2>"$TMP/err")
grep -q '"status": *"unavailable"' "$TMP/out" && grep -qF "not an operator: aten::relu.__call__" "$TMP/out"
ok $? "overload __call__ of aten::relu: not an operator"

# a registered operator, with and without an overload, still replays
printf '[{"op_name":"aten::relu","overload":"","replay_ir":{"list_pos_args":[{"arg_name":"self","arg_type":"Tensor","value":{"shape":[4],"dtype":"float","strides":[1]}}],"list_kwargs":[]}},{"op_name":"aten::_softmax","replay_ir":{"list_pos_args":[{"arg_name":"self","arg_type":"Tensor","value":{"shape":[4],"dtype":"float","strides":[1]}},{"arg_name":"dim","arg_type":"int","value":0},{"arg_name":"half_to_float","arg_type":"bool","value":false}],"list_kwargs":[]}}]\n' >"$W/good.json"
run "$TLREPLAY" replay "$W/good.json" -j -r 2
[ "$RC" -eq 0 ] && [ "$(grep -c '"status": *"ok"' "$TMP/out")" -eq 2 ]
ok $? "aten::relu.default and aten::_softmax (a leading underscore) still replay"

# a trace whose cpu_op is named load_library::__call__, its argument the library's path
cat >"$W/trace.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"load_library::__call__","pid":1,"tid":1,"ts":10,"dur":20,"args":{"External id":1,"Input Dims":[[]],"Input type":["String"],"Input Strides":[[]],"Concrete Inputs":["./evil.so"]}},
{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":40,"dur":20,"args":{"External id":2,"Input Dims":[[4]],"Input type":["float"],"Input Strides":[[1]],"Concrete Inputs":[""]}}
]}
EOF
(cd "$W" && "$TLREPLAY" uid -i trace.json 0 >"$TMP/out" 2>"$TMP/err")
RC=$?
[ ! -e "$MARK" ] && [ "$RC" -ne 0 ] && grep -qF "not an operator: load_library::__call__" "$TMP/err"
ok $? "tlreplay uid of a trace's load_library::__call__: no code, one error ($(cat "$TMP/err"))"

# pack's standalone replay.py, run where the zip was unpacked
run "$TLREPLAY" pack -i "$W/trace.json" -o "$TMP/p.zip" 1
if [ "$RC" -eq 0 ] && command -v unzip >/dev/null 2>&1; then
	mkdir -p "$TMP/pack" && (cd "$TMP/pack" && unzip -q "$TMP/p.zip")
	dir=$(dirname "$(find "$TMP/pack" -name replay.py | head -n 1)")
	cp "$W/evil.so" "$W/ops.json" "$dir/"
	(cd "$dir" && "$PYTHON" replay.py replay ops.json -j >"$TMP/out" 2>"$TMP/err")
	[ ! -e "$MARK" ] && grep -q '"status": *"unavailable"' "$TMP/out" &&
		grep -qF "not an operator: load_library::__call__" "$TMP/out"
	ok $? "pack's replay.py: not an operator, no code ($(head -c 200 "$TMP/out"))"
else
	skip "pack or unzip unavailable ($(cat "$TMP/err"))"
fi

# gdb replays a trace's op through the same worker
if command -v gdb >/dev/null 2>&1 && case "${TLREPLAY_CFLAGS:-}" in *-fsanitize*) false ;; *) true ;; esac; then
	(cd "$W" && env -u PYTHONHOME -u PYTHONPATH gdb -nx --batch -ex "source $ROOT/gdb/tlreplay.py" \
		-ex "set tlreplay program $TLREPLAY" -ex "set tlreplay library ${TLREPLAY_BUILD:-$ROOT/build}/libtlreplay.so" \
		-ex "set tlreplay store off" -ex "tlreplay open trace.json" -ex 'tlreplay replay 0' \
		</dev/null >"$TMP/out" 2>&1)
	[ ! -e "$MARK" ] && grep -qF "not an operator: load_library::__call__" "$TMP/out" &&
		! grep -qE 'Traceback|Python Exception' "$TMP/out"
	ok $? "gdb's tlreplay replay of that op: not an operator, no code"
else
	skip "gdb unavailable or a sanitizer build"
fi

done_testing
