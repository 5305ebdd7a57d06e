# `micropython` as far as the firmware uses it (the same stub on both interpreters).
import stub_machine


def kbd_intr(c):
    stub_machine.log.append(("kbd_intr", c))


def const(x):
    return x
