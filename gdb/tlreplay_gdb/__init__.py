# SPDX-License-Identifier: MIT
"""tlreplay's gdb front end.

gdb/tlreplay.py (the script gdb sources) imports commands, the only module
here that imports gdb: the gdb commands and settings. The other modules hold
everything they use that can run, and be tested, without gdb:

  session   the state of a gdb session and what the commands print
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
