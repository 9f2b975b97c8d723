"""The check runner the Python suites share: each check prints "OK <name>" or "FAIL <name>: <why>" and the run goes on.

PythonSuite copies this module beside the suite it runs; a suite imports it and, at the end, reports `passed` and
`failed` and exits non-zero when anything failed.
"""

import traceback

passed = []
failed = []


def check(name):
    """Decorator: runs the function at once as the check `name` and records the outcome."""

    def run(fn):
        try:
            fn()
            passed.append(name)
            print("OK " + name, flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, the run goes on
            failed.append(name)
            print("FAIL %s: %r" % (name, e), flush=True)
            traceback.print_exc()
        return fn

    return run


def expect(cond, why):
    if not cond:
        raise AssertionError(why)
