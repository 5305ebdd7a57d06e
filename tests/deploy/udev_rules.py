"""A reader for udev rules files as udev(7) defines them, for tests where ``udevadm verify``
(systemd 254 and later) is not available: every key, operator and quoting is checked, and a
rule can be matched against a described device to see what it assigns.

Matching covers what our rules use: ``==``/``!=`` with shell globs on SUBSYSTEM, KERNEL,
ATTR{}, ENV{}, and ATTRS{}/SUBSYSTEMS/KERNELS, which must all hold on one device of the
chain (the device itself or a parent), as udev requires.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

MATCH_ONLY = {"ACTION", "DEVPATH", "KERNEL", "KERNELS", "SUBSYSTEM", "SUBSYSTEMS", "DRIVER", "DRIVERS",
              "ATTRS", "TAGS", "CONST", "TEST", "PROGRAM", "RESULT"}
BOTH = {"NAME", "SYMLINK", "ATTR", "SYSCTL", "TAG", "ENV"}
ASSIGN_ONLY = {"OWNER", "GROUP", "MODE", "SECLABEL", "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS"}
TAKES_ARG = {"ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "TEST", "SECLABEL", "RUN", "IMPORT"}
MATCH_OPS = {"==", "!="}
ASSIGN_OPS = {"=", "+=", "-=", ":="}
PAIR = re.compile(r'\s*([A-Z]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*(,|$)')


class RuleError(ValueError):
    pass


@dataclass(frozen=True)
class Pair:
    key: str
    arg: str | None
    op: str
    value: str

    @property
    def is_match(self) -> bool:
        return self.op in MATCH_OPS


@dataclass(frozen=True)
class Rule:
    line: int
    pairs: tuple[Pair, ...]


@dataclass
class Device:
    """One device as udev sees it: its own properties and its parents' (nearest first)."""

    subsystem: str
    kernel: str
    attrs: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    parents: list[Device] = field(default_factory=list)


def parse(text: str) -> list[Rule]:
    """The rules in ``text``; a line udev would reject raises :class:`RuleError` naming it."""
    rules = []
    lines = text.replace("\\\n", "").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pairs = []
        pos = 0
        while pos < len(line):
            m = PAIR.match(line, pos)
            if m is None:
                raise RuleError(f"line {number}: cannot read {line[pos:]!r}")
            pairs.append(_pair(number, *m.group(1, 2, 3, 4)))
            pos = m.end()
            if m.group(5) == "" and pos < len(line):
                raise RuleError(f"line {number}: missing comma before {line[pos:]!r}")
        rules.append(Rule(number, tuple(pairs)))
    return rules


def _pair(number: int, key: str, arg: str | None, op: str, value: str) -> Pair:
    if key not in MATCH_ONLY | BOTH | ASSIGN_ONLY:
        raise RuleError(f"line {number}: unknown key {key}")
    if (key in TAKES_ARG) != (arg is not None) and key not in {"IMPORT", "RUN", "SECLABEL"}:
        raise RuleError(f"line {number}: {key} {'needs' if arg is None else 'takes no'} {{...}}")
    if op in MATCH_OPS and key in ASSIGN_ONLY:
        raise RuleError(f"line {number}: {key} cannot be matched")
    if op in ASSIGN_OPS and key in MATCH_ONLY:
        raise RuleError(f"line {number}: {key} cannot be assigned")
    if key == "MODE" and not re.fullmatch(r"0?[0-7]{3}", value):
        raise RuleError(f"line {number}: MODE {value!r} is not an octal mode")
    return Pair(key, arg, op, value)


def _glob(pattern: str, value: str | None) -> bool:
    if value is None:
        return False
    return any(fnmatch.fnmatchcase(value, alt) for alt in pattern.split("|"))


def _own(pair: Pair, device: Device) -> bool:
    value = {
        "SUBSYSTEM": device.subsystem,
        "KERNEL": device.kernel,
        "ATTR": device.attrs.get(pair.arg or ""),
        "ENV": device.env.get(pair.arg or ""),
    }[pair.key]
    return _glob(pair.value, value) == (pair.op == "==")


def _parent(pairs: list[Pair], device: Device) -> bool:
    def holds(d: Device) -> bool:
        for p in pairs:
            value = {"SUBSYSTEMS": d.subsystem, "KERNELS": d.kernel, "ATTRS": d.attrs.get(p.arg or "")}[p.key]
            if _glob(p.value, value) != (p.op == "=="):
                return False
        return True

    return any(holds(d) for d in [device, *device.parents])


def matches(rule: Rule, device: Device) -> bool:
    own = [p for p in rule.pairs if p.is_match and p.key in {"SUBSYSTEM", "KERNEL", "ATTR", "ENV"}]
    chain = [p for p in rule.pairs if p.is_match and p.key in {"SUBSYSTEMS", "KERNELS", "ATTRS"}]
    other = [p for p in rule.pairs if p.is_match and p not in own and p not in chain]
    if other:
        raise RuleError(f"line {rule.line}: this reader cannot match {other[0].key}")
    return all(_own(p, device) for p in own) and (not chain or _parent(chain, device))


def apply(rules: list[Rule], device: Device) -> dict[str, object]:
    """What the rules assign to ``device``: GROUP, MODE, SYMLINK (a list), ENV{...}."""
    out: dict[str, object] = {"SYMLINK": []}
    for rule in rules:
        if not matches(rule, device):
            continue
        for p in rule.pairs:
            if p.is_match:
                continue
            if p.key == "ENV":
                device.env[p.arg or ""] = p.value
                out[f"ENV{{{p.arg}}}"] = p.value
            elif p.key == "SYMLINK":
                value = re.sub(r"\$env\{([^}]*)\}", lambda m: device.env.get(m.group(1), ""), p.value)
                links = out["SYMLINK"] if p.op == "+=" else []
                out["SYMLINK"] = [*links, *value.split()]  # type: ignore[misc]
            else:
                out[p.key] = p.value
    return out
