# SPDX-License-Identifier: MIT
"""Run a unittest module as a TAP producer for prove (the Python halves of the shell tests).

    if __name__ == "__main__":
        sys.exit(taptest.main(sys.modules[__name__]))

With --tap on the command line each test is one TAP line (failures and errors follow as `#`
diagnostics, skips carry `# SKIP reason`, a failed subtest fails its test); without it, plain
unittest.main.
"""
import sys
import unittest


class TapResult(unittest.TestResult):
    def __init__(self, stream):
        super().__init__()
        self.stream = stream
        self.n = 0
        self.emitted = set()

    def stopTest(self, test):
        super().stopTest(test)
        if test.id() not in self.emitted:  # only failed subtests: no addSuccess/addFailure came
            self._emit(False, test)

    def _emit(self, ok, test, directive=""):
        self.n += 1
        self.emitted.add(test.id())
        name = test.id()
        name = name[len("__main__."):] if name.startswith("__main__.") else name
        self.stream.write("%s %d - %s%s\n" % ("ok" if ok else "not ok", self.n, name, directive))
        self.stream.flush()

    def _diag(self, err, test):
        for line in self._exc_info_to_string(err, test).splitlines():
            self.stream.write("# %s\n" % line)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._emit(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._emit(False, test)
        self._diag(err, test)

    def addError(self, test, err):
        super().addError(test, err)
        self._emit(False, test)
        self._diag(err, test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._emit(True, test, " # SKIP %s" % reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._emit(True, test, " # TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._emit(False, test)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._diag(err, subtest)


def main(module):
    if "--tap" in sys.argv:
        sys.argv.remove("--tap")
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        result = TapResult(sys.stdout)
        suite.run(result)
        sys.stdout.write("1..%d\n" % result.n)
        return 0 if result.wasSuccessful() else 1
    unittest.main(module=module.__name__, verbosity=1)
    return 0
