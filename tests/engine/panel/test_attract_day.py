"""The attract screen of a tower with a roll log: today's rolls per system against the odds,
then the session's commitment (engine.panel.attract, STATS events)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.panel import attract, screens
from engine.panel.machine import PanelConfig
from engine.panel.model import Event, EventKind
from engine.panel.sessions import committed
from tests.engine.panel.driver import Panel

COMMITMENT = "3cf83b0e" + "a1" * 28

@st.composite
def day_line(draw) -> attract.DayLine:
    """A system's day as the hardware counts it: successes and expected within the rolls."""
    rolls = draw(st.integers(0, 999_999))
    return attract.DayLine(draw(st.sampled_from(["infinity", "horizons", "d6cv", "immortal", "fingers"])), rolls,
                           draw(st.integers(0, rolls)), round(draw(st.floats(0, rolls)), 3),
                           draw(st.none() | st.floats(0, 1).map(lambda p: float(f"{p:.3g}"))))


lines_strategy = st.lists(day_line(), max_size=5)


@given(lines_strategy)
def test_stats_text_round_trips(lines) -> None:
    assert attract.decode(attract.encode(lines)) == tuple(lines)


@given(st.text())
def test_any_text_decodes_without_raising(text) -> None:
    for line in attract.decode(text):
        assert line.rolls >= 0 and (line.p_value is None or 0 <= line.p_value <= 1)


def test_pages() -> None:
    day = (attract.DayLine("infinity", 12, 5, 4.8, 0.61), attract.DayLine("d6cv", 3, 2, 2.0, None),
           attract.DayLine("fingers", 0, 0, 0.0, None))
    assert attract.pages(day, COMMITMENT) == (
        ("infinity", ("12 rolls today", "won 5 = 42%", "odds 4.8 = 40%", "chi2 p = 0.61")),
        ("d6cv", ("3 rolls today", "won 2 = 67%", "odds 2.0 = 67%", "p: too few rolls")),
        ("commitment", (COMMITMENT[:16], COMMITMENT[16:32], COMMITMENT[32:48], COMMITMENT[48:])),
    )
    assert attract.pages((), "") == (("today", ("no rolls yet", "press any button")),)


@given(lines_strategy)
def test_every_page_fits_the_wandering_attract_screen(lines) -> None:
    for title, page in attract.pages(lines, COMMITMENT):
        assert len(title) <= screens.ATTRACT_WIDTH
        assert all(len(line) <= screens.ATTRACT_WIDTH for line in page)
        assert len(page) <= screens.ROWS - 1  # room left for the status line


def _asleep() -> Panel:
    panel = Panel(PanelConfig(idle_seconds=300, attract_step_seconds=2, animation_seconds=0))
    panel.send(Event(EventKind.SESSION, text=committed(COMMITMENT)), 0.0)
    panel.send(Event(EventKind.STATS, text="infinity 12 5 4.800 0.61"), 0.0)
    panel.tick(301.0)
    assert panel.screen.kind == "attract"
    return panel


def test_the_attract_screen_cycles_todays_rolls_and_the_commitment() -> None:
    panel = _asleep()
    seen = []
    for _ in range(24):  # a page every 4 steps of 2 s
        panel.tick(2.0)
        if panel.screen.title not in seen:
            seen.append(panel.screen.title)
    assert seen[:2] in (["infinity", "commitment"], ["commitment", "infinity"])
    assert panel.dice.calls == 0


def test_stats_do_not_wake_the_panel_and_new_figures_show() -> None:
    panel = _asleep()
    panel.send(Event(EventKind.STATS, text="infinity 13 6 5.200 0.7"), 0.0)
    assert panel.screen.kind == "attract"
    for _ in range(24):
        panel.tick(2.0)
        if panel.screen.title == "infinity":
            assert panel.screen.lines[0] == "13 rolls today"
            return
    raise AssertionError("the infinity page never came round")


def test_without_stats_the_plain_attract_screen_stays() -> None:
    panel = Panel(PanelConfig(idle_seconds=300, attract_step_seconds=2, animation_seconds=0))
    panel.tick(301.0)
    assert panel.screen.title == "dicetower" and "press any button" in panel.screen.lines
