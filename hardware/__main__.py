"""``python -m hardware`` and the ``dicetower`` command (``[project.scripts]``).

Until the command line is loaded (its imports take tens of milliseconds), Ctrl-C ends the
process as SIGINT does by default: no KeyboardInterrupt traceback from a half-done import, and
the shell reports 130, the status :func:`hardware.cli.main` returns for a later Ctrl-C. Only
this entry point does it: importing :mod:`hardware.cli` (the tests do) changes no signal.
"""

import signal

signal.signal(signal.SIGINT, signal.SIG_DFL)

import sys  # noqa: E402


def run() -> int:
    from hardware.cli import main

    signal.signal(signal.SIGINT, signal.default_int_handler)  # from here on, main says what Ctrl-C stopped
    return main()


if __name__ == "__main__":
    sys.exit(run())
