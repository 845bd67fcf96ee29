# SPDX-License-Identifier: MIT
"""The trace cursor: one selected event, moved through the call tree the way
gdb moves through frames.

The cursor keeps a path from a root of the call tree down to the deepest
event visited, and a position on it: `up` goes to the parent (toward the
root, like gdb's up goes to the caller), `down` back along the path, then to
the first child; `next`/`prev` go to the next/previous sibling and cut the
path there. @tree is anything with parent(), first_child(), next_sibling(),
prev_sibling() and stack() (libtl.Trace).
"""


class CursorError(Exception):
    pass


class Cursor:
    def __init__(self, tree):
        self.tree = tree
        self.path = []      # root ... deepest
        self.pos = -1

    @property
    def uid(self):
        return self.path[self.pos] if self.path else None

    @property
    def level(self):
        """Depth of the selected event below the innermost visited one (gdb's frame level)."""
        return len(self.path) - 1 - self.pos if self.path else None

    def select(self, uid):
        self.path = list(reversed(self.tree.stack(uid)))
        self.pos = len(self.path) - 1
        return uid

    def _need(self):
        if not self.path:
            raise CursorError("no op selected: tlreplay select UID (or tlreplay list)")

    def up(self, n=1):
        self._need()
        for _ in range(n):
            if self.pos == 0:
                if _ == 0:
                    raise CursorError("UID %d is a root of the call tree; it has no parent"
                                      % self.uid)
                break
            self.pos -= 1
        return self.uid

    def down(self, n=1):
        self._need()
        for i in range(n):
            if self.pos < len(self.path) - 1:
                self.pos += 1
                continue
            c = self.tree.first_child(self.uid)
            if c is None:
                if i == 0:
                    raise CursorError("UID %d calls nothing; there is no level below" % self.uid)
                break
            self.path.append(c)
            self.pos += 1
        return self.uid

    def _sibling(self, n, step, word):
        self._need()
        cur = self.uid
        for i in range(n):
            s = step(cur)
            if s is None:
                if i == 0:
                    raise CursorError("UID %d is the %s call of its parent" % (self.uid, word))
                break
            cur = s
        self.path = self.path[:self.pos] + [cur]
        self.pos = len(self.path) - 1
        return cur

    def next(self, n=1):
        return self._sibling(n, self.tree.next_sibling, "last")

    def prev(self, n=1):
        return self._sibling(n, self.tree.prev_sibling, "first")
