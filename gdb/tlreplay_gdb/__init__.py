# SPDX-License-Identifier: MIT
"""tlreplay's gdb front end.

gdb/tlreplay.py (the script gdb sources) imports commands. Three modules
import gdb:

  commands  the gdb commands (tlreplay open, list, ..., here, break), register()
  params    the settings: set tlreplay ... / show tlreplay
  inferior  what the stopped program holds: its stack, an op's arguments in the
            registers, a stopped tlreplay's command line

The other modules hold everything they use that can run, and be tested,
without gdb:

  session   the state of a gdb session, what the trace commands print, the
            command lines of replays
  here      tlreplay here: the op of the stack to look for, the trace event it is
  breaks    tlreplay break: the symbols to stop at, the per-thread call counts
  libtl     the trace, through ctypes on libtlreplay.so (loaded once per open)
  locate    where the tlreplay command, the library and the schema snapshot are
  schemas   operator schemas: names, overloads, at::_ops symbol names
  frames    op names from stack frame names (at::_ops::addmm::call -> aten::addmm)
  groups    events of one op grouped by recorded shapes; call ordinals
  tensors   tensor sizes, strides and dtype read from a TensorImpl in memory
  cursor    the trace cursor: select, up, down, next, prev
  runner    child tlreplay processes whose output streams into gdb
  tlproc    what a stopped `tlreplay` process was doing (its argv)

Only the standard library is used.
"""

__version__ = "0.1.0"
