"""What every registered system must have (docs/architecture.md, "Writing a system plug-in"),
checked piece by piece, every missing piece named (never only the first).

:func:`problems` holds any system, shipped or plug-in, to what is read from its package: its
entry point, its spec, its panel, its speech in every language, its rules module for
tools/verify_rolls.py (and that module agreeing with the system's own rolls, carried state,
typed-in parameters and screen line). :func:`shipped_problems` adds what a system shipped with
dicetower also has in this repository (its odds bench, its rules page, its flow script, its
tests). ``python -m tests.contract`` prints every installed system's problems as JSON: the
test runs it with a plug-in on the path.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Sample rolls of each sample setting, checked against the rules module.
ROLLS = 4
#: The rules module's file, beside the system's ``__init__``.
RULES_FILE = "verify_rules.py"


def tool() -> ModuleType:
    """tools/verify_rolls.py as a module (standard library only: safe to load)."""
    spec = importlib.util.spec_from_file_location("verify_rolls", ROOT / "tools" / "verify_rolls.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Recording:
    """A dice source that draws from ``dice`` and keeps every ``(n, value)`` drawn."""

    def __init__(self, dice: Any) -> None:
        self.dice, self.drawn = dice, []

    def randbelow(self, n: int) -> int:
        value = self.dice.randbelow(n)
        self.drawn.append((n, value))
        return value


class Replaying:
    """What the rules module's ``redraw`` reads (``below(n)``), given the draws a roll made:
    each ``below(n)`` must ask for the next draw's ``n``."""

    def __init__(self, drawn: list[tuple[int, int]]) -> None:
        self.drawn, self.at = drawn, 0

    def below(self, n: int) -> int:
        if self.at < len(self.drawn) and self.drawn[self.at][0] == n:
            self.at += 1
            return self.drawn[self.at - 1][1]
        if n == 1:  # a draw below 1 reads no byte: the roll may not have asked for it
            return 0
        want = self.drawn[self.at][0] if self.at < len(self.drawn) else "nothing"
        raise LookupError(f"redraw asked for a value below {n} where the roll drew below {want}")


def settings(spec: Any) -> Iterator[dict[str, Any]]:
    """The defaults, then each scalar parameter at each end of its range or each value (with
    the first finger picked where the panel sets a guess by a finger button)."""
    base = {spec.panel.guess: (1,)} if spec.panel.guess else {}
    yield dict(base)
    for p in spec.params:
        if p.kind == "int":
            yield from ({**base, p.name: v} for v in (p.lo, p.hi) if v is not None)
        elif p.kind == "bool":
            yield from ({**base, p.name: v} for v in (True, False))
        elif p.kind == "choice":
            yield from ({**base, p.name: v} for v in p.choices)


def _own(speech: Any, language: str) -> Any:
    return speech.languages.get(language)


def problems(system: str, earlier: Mapping[str, dict[str, str]] | None = None) -> list[str]:
    """Everything ``system`` lacks in its package, one line each (``earlier``: the words,
    terms and outcomes the phrase tables already have, generic and earlier systems')."""
    from engine.errors import EngineError
    from engine.rng import DrbgDice
    from engine.speech import LANGUAGES
    from engine.systems import SystemSpec, get, registry
    from engine.systems.panel import PanelSpec

    found: list[str] = []
    if earlier is None:
        earlier = earlier_words({code: importlib.import_module(f"engine.speech.{code}") for code in LANGUAGES})

    def check(what: str, test: Callable[[], list[str]]) -> None:
        try:
            found.extend(test())
        except Exception as exc:  # a check that cannot even run is a missing piece too
            found.append(f"{what}: {type(exc).__name__}: {exc}")

    entry = registry.installed().get(system)
    if entry is None:
        return [f"no entry point {system!r} in the {registry.GROUP} group"]
    try:
        spec = get(system)
    except EngineError as exc:
        return [str(exc)]
    defaults = PanelSpec()

    def spec_fields() -> list[str]:
        out = [f"SystemSpec.{name} is empty" for name in ("title", "summary") if not getattr(spec, name).strip()]
        if not {"success", "failure"} <= set(spec.outcomes):
            out.append(f"SystemSpec.outcomes {spec.outcomes} lacks success or failure")
        if isinstance(spec.order, bool) or not isinstance(spec.order, int):
            out.append(f"SystemSpec.order {spec.order!r} is not a whole number")
        declared = entry.declared_order()
        if declared is None:
            out.append(f"{entry.module} declares no ORDER line (ORDER = {spec.order}: its place in MODE's order, "
                       "read without importing it)")
        elif declared != spec.order:
            out.append(f"{entry.module} declares ORDER = {declared}, its SystemSpec.order is {spec.order}")
        out += [f"parameter {p.name} has no help" for p in spec.params if not p.help.strip()]
        out += [f"parameter {p.name} has no panel route (a field or a flow)" for p in spec.params
                if p.panel and not spec.panel.route(p)]
        out += [f"PanelSpec.{name} is the default: the result screen has nothing of its own"
                for name in ("headline", "details") if getattr(spec.panel, name) is getattr(defaults, name)]
        return out

    def speech() -> list[str]:
        out: list[str] = []
        said = spec.panel.speech
        out += [f"speech template {key} is not its own (start it with {system}.)" for key in said.names
                if not key.startswith(system + ".")]
        english = _own(said, "en")
        for language in LANGUAGES:
            book = _own(said, language)
            if book is None:
                out.append(f"no phrasebook in {language} (PanelSpec.speech.languages)")
                continue
            out += [f"{language}: no template {key}" for key in said.names if key not in book.templates]
            out += [f"{language}: template {key} has no names in Speech.names" for key in book.templates
                    if key.removesuffix("/1") not in said.names]
            out += [f"{language}: no word for outcome {o}" for o in spec.outcomes
                    if o not in book.outcomes and o not in earlier.get(f"{language} outcomes", {})]
            if english is not None and book is not english:
                out += [f"{language}: no word for {w!r} (its English phrasebook says it)" for w in english.words
                        if w not in book.words]
            for part in ("words", "terms", "outcomes"):
                table = earlier.get(f"{language} {part}", {})
                out += [f"{language}: says {k!r} as {v!r}, the phrase table already says {table[k]!r} (a system "
                        "adds words, never changes another's)" for k, v in getattr(book, part).items()
                        if k in table and table[k] != v]
        return out

    def rules_module() -> list[str]:
        package = importlib.util.find_spec(entry.module)
        where = Path(package.origin).parent / RULES_FILE if package is not None and package.origin else None
        if where is None or not where.is_file():
            return [f"no rules module {entry.module.replace('.', '/')}/{RULES_FILE} for tools/verify_rolls.py"]
        verify = tool()
        try:
            rules = verify.Rules(str(where))
        except verify.RulesError as exc:
            return [str(exc)]
        out = []
        if rules.system != system:
            out.append(f"{RULES_FILE} says SYSTEM = {rules.system!r}")
        entered = tuple(p.name for p in spec.params if p.entered)
        if tuple(rules.entered) != entered:
            out.append(f"{RULES_FILE} ENTERED {rules.entered} is not the entered parameters {entered}")
        carried = tuple((c.param, c.field) for c in spec.panel.carried_for("roller"))
        if tuple(rules.carried) != carried:
            out.append(f"{RULES_FILE} CARRIED {rules.carried} is not the panel's carried values {carried}")
        out += _rolls_agree(spec, rules, DrbgDice)
        return out

    check("spec", spec_fields)
    check("speech", speech)
    check("rules module", rules_module)
    if not isinstance(spec, SystemSpec):
        found.append("its entry point is not a SystemSpec")
    return found


def _rolls_agree(spec: Any, rules: Any, dice: Any) -> list[str]:
    """Sample rolls of sample settings: the rules module draws them again from the same draws,
    reads the screen line the panel shows, and the result's params resolve to themselves."""
    from engine.errors import EngineError
    from engine.results import to_jsonable

    out: list[str] = []
    rolled = 0
    for raw in settings(spec):
        try:
            params = spec.resolve(raw)
        except EngineError:
            continue
        for n in range(ROLLS):
            source = Recording(dice.from_seed(f"contract {spec.id} {sorted(raw.items())} {n}".encode()))
            try:
                result = spec.roll(source, params)
            except EngineError:
                break
            rolled += 1
            data = json.loads(json.dumps(to_jsonable(result.to_dict())))
            replay = Replaying(source.drawn)
            try:
                differs = rules.redraw(replay, data)
            except LookupError as exc:
                differs = str(exc)
            if differs is None and replay.at != len(source.drawn) and not spec.typed_in(params):
                differs = f"redraw read {replay.at} of the roll's {len(source.drawn)} draws"
            if differs is not None and not spec.typed_in(params):
                out.append(f"{RULES_FILE} redraws {raw or 'the defaults'} otherwise: {differs}")
            line = f"{spec.id} {spec.panel.headline(data)}"
            if rules.screen_line(data) != spec.panel.headline(data):
                out.append(f"{RULES_FILE} screen_line gives {rules.screen_line(data)!r} where the screen shows "
                           f"{line!r}")
            if json.loads(json.dumps(to_jsonable(spec.resolve(data["params"])))) != data["params"]:
                out.append(f"the params of a roll of {raw or 'the defaults'} do not resolve to themselves")
            if not spec.describe(result):
                out.append(f"describe gives no line for a roll of {raw or 'the defaults'}")
            if out:
                return out  # one setting's failures say enough: the rest would repeat them
    if not rolled:
        out.append("no sample setting rolls (the defaults, nor any parameter at an end of its range)")
    return out


def earlier_words(language_tables: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The generic phrase tables' words, terms and outcomes (``LANGUAGE PART`` -> mapping)."""
    out: dict[str, dict[str, str]] = {}
    for language, module in language_tables.items():
        out[f"{language} words"] = {k.lower(): v for k, v in module.WORDS.items()}
        out[f"{language} terms"] = dict(getattr(module, "TERMS", {}))
        out[f"{language} outcomes"] = dict(module.OUTCOMES)
    return out


def every_system() -> dict[str, list[str]]:
    """Every installed system's problems, in listing order, each held against the generic
    phrase tables and the systems before it."""
    from engine.speech import LANGUAGES
    from engine.systems import all_systems, registry

    tables = earlier_words({code: importlib.import_module(f"engine.speech.{code}") for code in LANGUAGES})
    out: dict[str, list[str]] = {}
    names = list(registry.installed())
    try:
        ordered = [s.id for s in all_systems()]
    except Exception:  # a broken plug-in: each is checked on its own below
        ordered = sorted(names)
    for system in ordered:
        out[system] = problems(system, tables)
        if not out[system]:
            from engine.systems import get

            book = get(system).panel.speech
            for language in LANGUAGES:
                own = book.languages.get(language)
                for part in ("words", "terms", "outcomes"):
                    for k, v in (getattr(own, part).items() if own is not None else ()):
                        tables[f"{language} {part}"].setdefault(k, v)
        if registry.installed()[system].distribution == "dicetower":
            out[system] += shipped_problems(system)
    return out


def _defines(path: Path, *names: str) -> list[str]:
    """Which of ``names`` the module at ``path`` does not define at its top level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        defined |= {t.id for t in targets if isinstance(t, ast.Name)}
    return [n for n in names if n not in defined]


def shipped_problems(system: str, root: Path = ROOT) -> list[str]:
    """What a system shipped with dicetower lacks in this repository, one line each."""
    from tests.tools.test_verify_rolls import ONE_OF_EACH

    found: list[str] = []
    bench = root / "bench" / f"odds_{system}.py"
    if not bench.is_file():
        found.append(f"no odds bench {bench.relative_to(root)} (GRID, icepool_success: bench/bench_odds.py)")
    else:
        found += [f"{bench.relative_to(root)} defines no {name}" for name in _defines(bench, "GRID", "icepool_success")]
    if system not in ONE_OF_EACH:
        found.append("no ONE_OF_EACH setting in tests/tools/test_verify_rolls.py")
    page = root / "docs" / "rules" / f"{system}.md"
    if not page.is_file():
        found.append(f"no rules page {page.relative_to(root)}")
    if f"](rules/{system}.md)" not in (root / "docs" / "rules.md").read_text(encoding="utf-8"):
        found.append("no row linking it in docs/rules.md")
    flow = root / "docs" / "screenshots" / "flows" / f"{system}.txt"
    if not flow.is_file():
        found.append(f"no simulator flow script {flow.relative_to(root)}")
    for name in (f"test_{system}.py", f"test_{system}_odds.py"):
        if not (root / "tests" / "engine" / "systems" / name).is_file():
            found.append(f"no tests/engine/systems/{name}")
    return found


def report(found: Mapping[str, list[str]]) -> str:
    """Every problem of every system, a line each (empty when there is none)."""
    return "\n".join(f"{system}: {line}" for system, lines in found.items() for line in lines)


if __name__ == "__main__":
    json.dump(every_system(), sys.stdout, indent=1)
