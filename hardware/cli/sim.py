"""``dicetower sim``: the real panel on gpiozero's MockFactory and luma's ``dummy`` device.

Nothing is faked here but the hardware: the same :class:`~hardware.tower.Tower`, the same
gpiozero devices and the same luma rendering run on mock pins. Two ways to drive it:

- scripted (:func:`parse_script`, :meth:`Simulator.run_script`): button names, holds and
  waits on a simulated clock, so a script runs in milliseconds and always gives the same
  transcript (with ``--seed``);
- interactive (:class:`Interactive`): keys drive the mock pins in real time and the
  128x64 frame is drawn in the terminal with Unicode half blocks, the LEDs as coloured dots.

With a ``speaker`` the simulator speaks as the tower would (docs/speech.md); the transcript
lists each sentence under the step whose frame it goes with, and a WAV speaker
(:class:`hardware.speech.espeak.WavSpeaker`, ``--out``) writes it next to that frame.

See ``docs/simulator.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import select
import shutil
import sys
import textwrap
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from engine.errors import ParameterError
from engine.panel.model import Button, Screen
from engine.panel.state import PanelState
from hardware.config.schema import TowerConfig
from hardware.display import ResilientDisplay, opener
from hardware.display.render import to_text_blocks
from hardware.tower import Tower, assemble, stop_on_signals

if TYPE_CHECKING:
    from hardware.speech.espeak import WavSpeaker
    from hardware.speech.fakes import Heard

#: A scripted press: down this long (well past the bounce time, well short of a hold).
PRESS_SECONDS = 0.1
#: After each scripted action the clock runs on until the screen has been still this long
#: (so a roll's animation has finished), but at most SETTLE_MAX seconds.
SETTLE_QUIET = 0.3
SETTLE_MAX = 10.0
#: Longest wait or hold a script may ask for (simulated seconds).
MAX_SCRIPT_SECONDS = 3600.0
START_NS = 1_000_000_000

#: Script names of the buttons; 1-5 name them as fingers (thumb to pinky) for a fingers guess.
NAMES = {b.value: b for b in Button} | {str(b.finger): b for b in Button}


class SimClock:
    """A monotonic clock in nanoseconds that moves only when told to."""

    def __init__(self, start_ns: int = START_NS) -> None:
        self.t = start_ns

    def __call__(self) -> int:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += max(0, round(seconds * 1e9))


@dataclass(frozen=True)
class Action:
    """One script item: ``press`` a button, ``hold`` it for ``seconds``, or ``wait``."""

    kind: str
    button: Button | None = None
    seconds: float = 0.0
    text: str = ""


def parse_script(text: str, *, option: str = "press") -> list[Action]:
    """Script items separated by commas, spaces or new lines (``#`` starts a comment):
    ``mode field minus plus roll`` (or fingers ``1``-``5``), ``hold:NAME:SECONDS``,
    ``wait:SECONDS``.
    A mistake is a :class:`ParameterError` naming ``--{option}`` and the item (and for a
    ``--script`` file, its line number)."""
    actions: list[Action] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0]
        for item in line.replace(",", " ").split():
            try:
                actions.append(_item(item, option))
            except ParameterError as exc:
                if option != "script":
                    raise
                raise ParameterError(option, f"line {number}: {exc.detail}") from None
    if not actions:
        raise ParameterError(option, "the script is empty; give button names, hold:NAME:SECONDS or wait:SECONDS")
    return actions


def _item(item: str, option: str) -> Action:
    allowed = "mode, field, minus, plus, roll (or fingers 1-5), hold:NAME:SECONDS or wait:SECONDS"
    parts = item.lower().split(":")
    if len(parts) == 1 and parts[0] in NAMES:
        return Action("press", NAMES[parts[0]], PRESS_SECONDS, item)
    if parts[0] == "hold" and len(parts) == 3 and parts[1] in NAMES:
        return Action("hold", NAMES[parts[1]], _seconds(parts[2], item, option), item)
    if parts[0] == "wait" and len(parts) == 2:
        return Action("wait", None, _seconds(parts[1], item, option), item)
    raise ParameterError(option, f"unknown script item {item!r}; expected {allowed}")


def _seconds(text: str, item: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_SCRIPT_SECONDS:
        raise ParameterError(option, f"{item!r}: seconds must be a number above 0 up to {MAX_SCRIPT_SECONDS:g}")
    return value


def sim_config(config: TowerConfig) -> TowerConfig:
    """The config on simulated hardware: mock pins and luma's dummy device, same everything else."""
    display = dataclasses.replace(config.display, kind="dummy")
    return dataclasses.replace(config, gpio_factory="mock", display=display)


class Simulator:
    """A tower on mock pins and a dummy display. ``clock`` defaults to a :class:`SimClock`;
    ``memory`` (the state directory) and ``kiosk`` (``roll_log``, ``kept``, ``show``) go to
    :func:`hardware.tower.assemble` as ``run`` passes them (:func:`hardware.cli.tower.keep`)."""

    def __init__(self, config: TowerConfig, *, dice: Any, clock: Callable[[], int] | None = None,
                 timing: Any = None, memory: str | Path | None = None,
                 log: Callable[[str], None] | None = None, pins: Any = None, speaker: Any = None,
                 **kiosk: Any) -> None:
        from gpiozero.pins.mock import MockFactory, MockPWMPin
        from luma.core.device import dummy

        self.config = sim_config(config)
        self.log = log
        self.clock = clock if clock is not None else SimClock()
        # ``pins``: other simulated pins (the bridge's firmware twin, hardware.panel.pico.TwinPins)
        self.pins = pins
        self.factory = pins.factory if pins is not None else MockFactory(pin_class=MockPWMPin)
        d = self.config.display
        self.device = dummy(width=d.width, height=d.height, rotate=d.rotate, mode="1")
        self.display = ResilientDisplay(opener(d, device=self.device), retry_seconds=d.retry_seconds, log=log)
        # what the speaker is given, kept for the transcript (and its files, for a WAV speaker)
        self.heard: Heard | None = None
        self.wav: WavSpeaker | None = None
        if speaker is not None:
            from hardware.speech.espeak import WavSpeaker
            from hardware.speech.fakes import Heard

            self.wav = speaker if isinstance(speaker, WavSpeaker) else None
            self.heard = Heard(speaker)
        self.tower = assemble(self.config, pin_factory=self.factory, display=self.display, dice=dice,
                              clock=self.clock, timing=timing, state_dir=memory, log=log, speaker=self.heard,
                              **kiosk)
        self.start_ns = self.clock()

    # --- driving the pins -------------------------------------------------------------------------

    def down(self, button: Button) -> None:
        if self.pins is not None:
            self.pins.press(self.tower.io.pin(button), down=True, pull_up=self.config.buttons.pull_up)
            return
        pin = self.tower.io.pin(button)
        if self.config.buttons.pull_up:
            pin.drive_low()
        else:
            pin.drive_high()

    def up(self, button: Button) -> None:
        if self.pins is not None:
            self.pins.press(self.tower.io.pin(button), down=False, pull_up=self.config.buttons.pull_up)
            return
        pin = self.tower.io.pin(button)
        if self.config.buttons.pull_up:
            pin.drive_high()
        else:
            pin.drive_low()

    def advance(self, seconds: float) -> None:
        """Run the simulated clock on by ``seconds`` in ticks, pumping the loop at every tick
        where something is due (as the appliance loop sleeps until its deadline)."""
        clock = self.clock
        if not isinstance(clock, SimClock):
            raise TypeError("advance() needs the simulated clock")
        tower = self.tower
        end = clock.t + round(seconds * 1e9)
        while clock.t < end:
            clock.t = min(end, clock.t + tower.tick_ns)
            if clock.t >= tower.deadline():
                tower.pump()

    def settle(self) -> None:
        """Run on until the roll animation is over and the screen has been still for
        SETTLE_QUIET (and a page to be said once the buttons are still has been said), but at
        most SETTLE_MAX simulated seconds."""
        from engine.panel.state import Mode

        waited = 0.0
        quiet = 0.0
        frames = self.tower.frames
        step = self.tower.tick_ns / 1e9
        while quiet < SETTLE_QUIET and waited < SETTLE_MAX:
            self.advance(step)
            waited += step
            voice = self.tower.voice
            if self.tower.frames != frames or self.tower.state.mode is Mode.ROLLING \
                    or (voice is not None and voice.deadline() is not None):
                frames, quiet = self.tower.frames, 0.0
            else:
                quiet += step

    def act(self, action: Action) -> None:
        if action.kind == "wait":
            self.advance(action.seconds)
            return
        button = action.button
        if button is None:
            raise ValueError(f"{action.kind} needs a button")
        self.down(button)
        self.tower.pump()
        self.advance(action.seconds)
        self.up(button)
        self.tower.pump()
        self.settle()

    # --- what it shows ----------------------------------------------------------------------------

    def snapshot(self, event: str) -> dict[str, Any]:
        screen = self.tower.screen
        rgb = self.tower.rgb()
        return {
            "event": event,
            "t": round((self.clock() - self.start_ns) / 1e9, 3),
            "field": selected_field(self.tower.state),
            "screen": screen_dict(screen),
            "leds": [round(v, 3) for v in self.tower.leds()],
            "rgb": None if rgb is None else [round(v, 3) for v in rgb],
        }

    def run_script(self, actions: Sequence[Action], *, out: Path | None = None, scale: int = 4,
                   on_step: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        """Play ``actions``; return the transcript (and with ``out``, write it, the frames and,
        with a WAV speaker, a WAV per sentence said, named after its frame)."""
        frames_dir = None
        if out is not None:
            frames_dir = out / "frames"
            _writing(frames_dir, lambda: frames_dir.mkdir(parents=True, exist_ok=True))
        wav = self.wav
        if wav is not None and wav.directory is None:
            wav.directory = frames_dir
        steps: list[dict[str, Any]] = []
        sound = self.tower.io.sound
        heard = sound.total if sound is not None else 0

        def record(event: str) -> None:
            nonlocal heard
            step = self.snapshot(event)
            new = sound.total - heard if sound is not None else 0
            step["sounds"] = list(sound.played)[-new:] if sound is not None and new else []
            heard = sound.total if sound is not None else 0
            step["frame"] = None
            if frames_dir is not None and self.device.image is not None:
                name = f"{len(steps):03d}-{_slug(event)}.png"
                image = self.device.image
                _writing(frames_dir / name, lambda: save_png(image, frames_dir / name, scale))
                step["frame"] = f"frames/{name}"
            said = self._said()
            if said:
                step["said"] = said
            steps.append(step)
            if on_step is not None:
                on_step(step)

        def stem(event: str) -> None:
            if wav is not None:
                wav.stem = f"{len(steps):03d}-{_slug(event)}"

        stem("start")
        self.settle()
        record("start")
        for action in actions:
            stem(action.text)
            self.act(action)
            record(action.text)
        if wav is not None:
            # every WAV written (or given up: a broken espeak-ng stops nothing) before the
            # transcript names them; one not written is listed as null
            failed = {f"frames/{path.name}" for path in wav.close()}
            for step in steps:
                for said in step.get("said", ()):
                    if said["wav"] in failed:
                        said["wav"] = None
            if failed and self.tower.voice is not None:
                self.tower.voice.heard(self.tower.state)  # why, said once (unless it was already)
        if out is not None:
            transcript = out / "transcript.json"
            _writing(transcript, lambda: transcript.write_text(json.dumps(steps, indent=2) + "\n", encoding="utf-8"))
        return steps

    def _said(self) -> list[dict[str, Any]]:
        """The sentences said since the last step, each with its WAV file (or None)."""
        if self.heard is None:
            return []
        texts = self.heard.take()
        files = self.wav.take() if self.wav is not None else [None] * len(texts)
        return [{"text": text, "wav": None if path is None else f"frames/{path.name}"}
                for text, path in zip(texts, files, strict=False)]

    def close(self) -> None:
        self.tower.close()
        if self.pins is not None:
            self.pins.close()


def selected_field(state: PanelState) -> str | None:
    """The parameter FIELD has selected on a setup page, by its label (``cr``, ``hostile1
    tn``), so a transcript names every parameter a script reaches; None elsewhere."""
    from engine.panel import pages
    from engine.panel.state import Mode

    if state.mode is not Mode.SETUP or state.asleep:
        return None
    row = state.row()
    if row.moves:
        return None
    return pages.label(state.spec, row)


def screen_dict(screen: Screen | None) -> dict[str, Any] | None:
    """A screen for the transcript: ``lines`` is everything it reads (title, big word, lines)."""
    if screen is None:
        return None
    return {
        "kind": screen.kind,
        "title": screen.title,
        "big": screen.big,
        "lines": screen.text(),
        "dice": list(screen.dice),
        "odds": screen.odds,
        "selected": screen.selected,
        "page": screen.page,
    }


def _writing(path: Path, write: Callable[[], object]) -> None:
    """Run ``write``; a read-only, full or occupied ``--out`` is one line naming the path."""
    try:
        write()
    except OSError as exc:
        raise ParameterError("out", f"cannot write {path}: {exc.strerror or exc}") from None


def save_png(image: Any, path: Path, scale: int = 1) -> None:
    """A 1-bit frame as PNG, enlarged ``scale`` times with square pixels."""
    from PIL import Image

    if scale > 1:
        image = image.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
    image.save(path, "PNG", optimize=False)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-") or "step"


def describe_step(step: dict[str, Any]) -> str:
    """A transcript step as a few lines of plain text (``sim --press`` without ``--out``)."""
    screen = step["screen"] or {"lines": []}
    leds = "".join("●" if v > 0.5 else ("◐" if v > 0 else "○") for v in step["leds"])
    rgb = step["rgb"]
    colour = "off" if not rgb or max(rgb) == 0 else "#" + "".join(f"{round(v * 255):02x}" for v in rgb)
    chosen = f"  (field: {step['field']})" if step.get("field") else ""
    out = [f"[{step['t']:8.3f}] {step['event']}{chosen}"]
    out.extend(f"    {line}" for line in screen["lines"])
    out.extend(f"    said: {said['text']}" for said in step.get("said", ()))
    sounds = f"  sounds {','.join(step['sounds'])}" if step.get("sounds") else ""
    out.append(f"    LEDs {leds}  RGB {colour}{sounds}")
    return "\n".join(out)


# --- interactive -----------------------------------------------------------------------------

#: Keys: lower case presses, upper case holds the button down until the next key.
KEYS: dict[str, Button] = {
    "m": Button.MODE, "1": Button.MODE,
    "f": Button.FIELD, "2": Button.FIELD, "\x1b[A": Button.FIELD, "\x1b[B": Button.FIELD,
    "d": Button.MINUS, "-": Button.MINUS, "3": Button.MINUS, "\x1b[D": Button.MINUS,
    "u": Button.PLUS, "+": Button.PLUS, "=": Button.PLUS, "4": Button.PLUS, "\x1b[C": Button.PLUS,
    "r": Button.ROLL, "5": Button.ROLL, " ": Button.ROLL, "\r": Button.ROLL, "\n": Button.ROLL,
}
HOLD_KEYS: dict[str, Button] = {"M": Button.MODE, "F": Button.FIELD, "D": Button.MINUS, "U": Button.PLUS,
                                "R": Button.ROLL}
QUIT_KEYS = {"q", "Q", "\x03", "\x04"}
LEGEND = ("keys: m mode  f field  d/- minus  u/+ plus  r/space roll  (1-5, arrows)  "
          "M F D U R: hold, the next key only lets go  q: quit")
SHORT_LEGEND = "keys: m f d u r  M F D U R: hold, next key lets go  ? help  q quit"
#: What ``?`` shows where the long legend does not fit.
SHORT_HELP = "m f d u r: buttons; M F D U R: hold, next key only lets go; q quit"
LABELS = ("MODE", "FIELD", "-", "+", "ROLL")
#: Lines under the frame: LEDs, screen text, status, legend.
TEXT_LINES = 4


@dataclass(frozen=True)
class Layout:
    """One way to draw the 128x64 frame in a terminal: ``cell`` is the pixels one character
    shows (1x2 half blocks, 2x2 quarter blocks, 2x4 Braille dots), and the legend that fits
    under it. A terminal character is about twice as tall as wide, so 1x2 and 2x4 keep the
    pixels square; 2x2 stretches them, but its blocks are solid."""

    name: str
    cell: tuple[int, int]
    legend: str

    def size(self, width: int = 128, height: int = 64) -> tuple[int, int]:
        """Columns and rows it needs: the framed image and the text lines under it."""
        cw, ch = self.cell
        return -(-width // cw) + 2, -(-height // ch) + 2 + TEXT_LINES

    def render(self, image: Any) -> list[str]:
        if self.cell == (2, 4):
            return to_braille(image)
        return to_text_blocks(image, quadrants=self.cell == (2, 2))


#: Largest first: half blocks need 130x38, quarter blocks 66x38, Braille 66x22 (so an 80x24
#: terminal gets the compact Braille layout).
LAYOUTS: tuple[Layout, ...] = (
    Layout("full", (1, 2), LEGEND),
    Layout("narrow", (2, 2), SHORT_LEGEND),
    Layout("compact", (2, 4), SHORT_LEGEND),
)


def choose_layout(cols: int, rows: int, width: int = 128, height: int = 64) -> Layout | None:
    """The largest layout that fits ``cols`` x ``rows`` (None: the terminal is too small)."""
    for layout in LAYOUTS:
        need_cols, need_rows = layout.size(width, height)
        if cols >= need_cols and rows >= need_rows:
            return layout
    return None


#: Braille dot bits by (x, y) inside a 2x4 cell (Unicode's dot numbering 1-8).
_BRAILLE_BITS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))


def to_braille(image: Any) -> list[str]:
    """A 1-bit image as Unicode Braille patterns, one character per 2x4 pixels (an empty
    cell is a space)."""
    w, h = image.size
    px = image.load()
    rows = []
    for y in range(0, h, 4):
        row = []
        for x in range(0, w, 2):
            bits = 0
            for dx in (0, 1):
                for dy in range(4):
                    if x + dx < w and y + dy < h and px[x + dx, y + dy]:
                        bits |= _BRAILLE_BITS[dx][dy]
            row.append(chr(0x2800 + bits) if bits else " ")
        rows.append("".join(row))
    return rows


def too_small(cols: int, rows: int, width: int = 128, height: int = 64) -> str:
    """What to say in a terminal smaller than the smallest layout."""
    need_cols, need_rows = LAYOUTS[-1].size(width, height)
    return (f"This terminal is {cols}x{rows}; the simulator needs at least {need_cols}x{need_rows} "
            f"(columns x rows). Enlarge it, or run it scripted: dicetower sim --press "
            f"mode,roll (or --script FILE). q quits.")


def split_keys(data: str) -> list[str]:
    """Key presses from raw terminal input: escape sequences (arrows) stay whole."""
    keys: list[str] = []
    i = 0
    while i < len(data):
        if data[i] == "\x1b" and data[i + 1 : i + 2] == "[" and i + 2 < len(data):
            keys.append(data[i : i + 3])
            i += 3
        else:
            keys.append(data[i])
            i += 1
    return keys


class Interactive:
    """The simulator in a terminal, on the real clock. :meth:`run` until q or a signal."""

    FRAME_NS = 33_000_000  # redraw at most ~30 times a second

    def __init__(self, sim: Simulator, *, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None,
                 colour: bool | None = None, size: tuple[int, int] | None = None) -> None:
        self.sim = sim
        self.stdin = stdin if stdin is not None else sys.stdin.buffer
        self.stdout = stdout if stdout is not None else sys.stdout.buffer
        self.colour = (os.environ.get("NO_COLOR") is None) if colour is None else colour
        self.size = size  # (columns, rows); None: the terminal's, read at every frame
        self.queue: deque[tuple[Button, bool]] = deque(maxlen=8)  # presses waiting their turn
        self.held: set[Button] = set()
        self.down_until: dict[Button, int | None] = {}  # None: held until the next key
        self.ready_at = 0  # next time a queued press may go down (after the last release + bounce)
        self.message = ""
        self._drawn = ""
        self._drawn_at = 0

    def key(self, key: str) -> bool:
        """Handle one key; False to quit."""
        if key in QUIT_KEYS:
            return False
        if self.held:
            # Any key lets go of a button held with a capital letter, and does nothing else:
            # `f` after `M` only ends the hold, it does not also move FIELD.
            for button in list(self.held):
                self._up(button)
            self.held.clear()
            self.message = ""
            return True
        if key in HOLD_KEYS:
            self.queue.append((HOLD_KEYS[key], True))
        elif key in KEYS:
            self.queue.append((KEYS[key], False))
        elif key == "?":
            self.message = LEGEND
        return True

    def _up(self, button: Button) -> None:
        self.sim.up(button)
        self.down_until.pop(button, None)
        self.ready_at = self.sim.clock() + round(self.sim.config.buttons.bounce_seconds * 1e9) + 5_000_000

    def service(self, now: int) -> None:
        """Release presses whose time is up and put the next queued press down."""
        for button, until in list(self.down_until.items()):
            if until is not None and now >= until:
                self._up(button)
        if self.queue and not self.down_until and now >= self.ready_at:
            button, hold = self.queue.popleft()
            self.sim.down(button)
            if hold:
                self.held.add(button)
                self.down_until[button] = None
                self.message = f"holding {button.name}: any key lets go (and does nothing else)"
            else:
                self.down_until[button] = now + round(PRESS_SECONDS * 1e9)

    def terminal_size(self) -> tuple[int, int]:
        """Columns and rows of the terminal drawn on (it may be resized at any time)."""
        if self.size is not None:
            return self.size
        try:
            size = os.get_terminal_size(self.stdout.fileno())
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            size = shutil.get_terminal_size((132, 40))
        return size.columns, size.lines

    def frame_text(self) -> str:
        """The whole screen: the frame in the largest layout that fits, or, in a terminal
        too small for any, one short paragraph saying what it needs."""
        cols, rows = self.terminal_size()
        image = self.sim.device.image
        width, height = (image.width, image.height) if image is not None else (128, 64)
        layout = choose_layout(cols, rows, width, height)
        if layout is None:
            return "\n".join(textwrap.wrap(too_small(cols, rows, width, height), max(cols, 20)))
        tower = self.sim.tower
        frame = layout.render(image) if image is not None else []
        inner = len(frame[0]) if frame else layout.size(width, height)[0] - 2
        out = ["┌" + "─" * inner + "┐"]
        out.extend("│" + r + "│" for r in frame)
        out.append("└" + "─" * inner + "┘")
        out.append(self._leds_line(tower))
        screen = tower.screen
        # the screen's text takes the line under the LEDs and every row the layout leaves over
        spare = 1 + max(0, rows - layout.size(width, height)[1])
        out.extend(screen_lines(screen.text() if screen else [], cols, spare))
        status = []
        if not tower.display.ok:
            status.append(f"display: {tower.display.error}")
        if tower.io.sound is not None and tower.io.sound.played:
            status.append("sound: " + tower.io.sound.played[-1])
        if self.sim.heard is not None and self.sim.heard.last and tower.state.settings.speech:
            status.append("said: " + self.sim.heard.last)
        if self.held:
            status.append("held: " + ",".join(b.name for b in self.held))
        out.append("  ".join(status) or " ")
        message = self.message
        if message == LEGEND and len(LEGEND) > cols:
            message = SHORT_HELP
        out.append(message or layout.legend)
        # cut plain lines to the terminal (a wrapped line would push the frame's top off);
        # the LED line is short but holds colour codes
        return "\n".join(line if "\x1b" in line else line[:cols] for line in out)

    def _leds_line(self, tower: Tower) -> str:
        parts = []
        for label, level in zip(LABELS, tower.leds(), strict=False):
            parts.append(f"{self._dot(level, (1.0, 0.85, 0.3))} {label}")
        rgb = tower.rgb()
        if rgb is not None:
            parts.append(f"{self._dot(max(rgb), rgb)} RGB")
        return "   ".join(parts)

    def _dot(self, level: float, colour: tuple[float, float, float]) -> str:
        if not self.colour:
            return "●" if level > 0.5 else ("◐" if level > 0 else "○")
        if level <= 0:
            return "\x1b[38;2;70;70;70m○\x1b[0m"
        peak = max(colour) or 1.0
        r, g, b = (round(255 * c / peak * (0.35 + 0.65 * level)) for c in colour)
        return f"\x1b[38;2;{r};{g};{b}m●\x1b[0m"

    def draw(self, now: int, force: bool = False) -> None:
        if not force and now - self._drawn_at < self.FRAME_NS:
            return
        text = self.frame_text()
        # a resized terminal is redrawn even when the text is the same
        text_at_size = f"{self.terminal_size()}{text}"
        if text_at_size == self._drawn and not force:
            return
        self._drawn, self._drawn_at = text_at_size, now
        self.stdout.write(("\x1b[H\x1b[J" + text.replace("\n", "\r\n")).encode("utf-8"))
        self.stdout.flush()

    def run(self) -> int:
        fd = self.stdin.fileno()
        restore = _cbreak(fd)
        self.stdout.write(b"\x1b[?1049h\x1b[?25l")  # alternate screen, cursor hidden
        try:
            with stop_on_signals() as stop:
                self.draw(self.sim.clock(), force=True)
                while not stop.is_set():
                    now = self.sim.clock()
                    timeout = max(0.0, min(0.05, (self.sim.tower.deadline() - now) / 1e9))
                    readable, _, _ = select.select([fd], [], [], timeout)
                    if readable:
                        data = os.read(fd, 64)
                        if not data:
                            break  # end of input
                        if not all(self.key(k) for k in split_keys(data.decode("utf-8", "replace"))):
                            break
                    now = self.sim.clock()
                    self.service(now)
                    self.sim.tower.pump(now)
                    self.draw(now)
        finally:
            self.stdout.write(b"\x1b[?25h\x1b[?1049l")
            self.stdout.flush()
            restore()
            self.sim.close()
        return 0


def screen_lines(lines: Sequence[str], cols: int, rows: int = 1) -> list[str]:
    """The screen's text in at most ``rows`` lines of ``cols`` (``screen: title | line |
    ...``, wrapped between its lines). Where it is too long, the title stays and the text
    after it gives way from its start: on a setup page up to the selected field (``>``),
    which stays with what follows it; elsewhere up to what is left, so the end of a text (the
    last hex group of a commitment, "seed revealed: in log") is what shows."""
    items = list(lines) or ["-"]
    wrapped = _wrap_items(items, cols)
    if len(wrapped) <= rows or len(items) < 3:
        return _cut(items, cols, rows)
    selected = next((i for i, line in enumerate(items) if line.startswith(">")), None)
    if selected is not None and selected >= 1:
        # a setup page: the title, then the selected field and as many as follow it
        return _cut([items[0], "...", *items[selected:]] if selected >= 2 else items, cols, rows)
    for start in range(2, len(items)):
        kept = [items[0], "...", *items[start:]]
        if len(_wrap_items(kept, cols)) <= rows:
            return _wrap_items(kept, cols)
    return _cut([items[0], "...", items[-1]], cols, rows)


def _cut(items: Sequence[str], cols: int, rows: int) -> list[str]:
    """``items`` wrapped in ``rows`` lines where they fit; else run on and cut at the end."""
    wrapped = _wrap_items(items, cols)
    if len(wrapped) <= rows:
        return wrapped
    flat = "screen: " + " | ".join(items)
    return [flat[i:i + cols] for i in range(0, min(len(flat), rows * cols), cols)]


def _wrap_items(items: Sequence[str], cols: int) -> list[str]:
    """``screen: a | b | c`` in lines of ``cols``, broken between items (an item longer than
    a line is broken inside); later lines are indented under the first item."""
    first, indent = "screen: ", " " * len("screen: ")
    width = max(8, cols - len(indent))
    out: list[str] = []
    current = ""
    for item in items:
        pieces = [item[i:i + width] for i in range(0, len(item), width)] or [""]
        for piece in pieces:
            joined = f"{current} | {piece}" if current else piece
            if current and len(joined) > width:
                out.append(current)
                current = piece
            else:
                current = joined
    out.append(current)
    return [(first if n == 0 else indent) + line for n, line in enumerate(out)]


def _cbreak(fd: int) -> Callable[[], None]:
    """Keys one at a time without echo; returns the function that puts the terminal back."""
    if not os.isatty(fd):
        return lambda: None
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    new = termios.tcgetattr(fd)
    new[3] &= ~termios.ISIG  # Ctrl-C arrives as a key (q also quits), so the terminal is restored
    termios.tcsetattr(fd, termios.TCSANOW, new)

    def restore() -> None:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    return restore


def real_clock() -> Callable[[], int]:
    return time.monotonic_ns
