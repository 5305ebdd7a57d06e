"""English: every word the tower speaks.

A translation is a copy of this file under the language's code (``de.py``), its strings
translated, and the code added to ``engine.speech.LANGUAGES``; docs/speech.md says more. The
``{names}`` in a template are filled in by ``engine/speech/words.py``; each template may use
the names ``engine.speech.TEMPLATES`` lists for it, in any order, or leave some out. A key
with ``/1`` after it (``seed_more/1``) is the template used when its ``n`` is 1.

Only what every system shares is here: each system says its own result lines, terms, screen
words, outcomes and reasons in its package's phrasebooks (``PanelSpec.speech``, e.g.
``engine/systems/d6cv/speech.py``), which :func:`engine.speech.table` merges in.
"""

#: eSpeak NG's voice for this language (``espeak-ng --voices`` lists them); the config's
#: ``[sound] voice`` overrides it.
VOICE = "en"

#: How a number with a fraction is written for the voice to read it (``0.8``).
DECIMAL = "."

TEMPLATES = {
    # a result, with the screen: "infinity: success, 14 against C R 10; the chance was 64 percent"
    "result": "{system}: {outcome}, {score}; the chance was {chance}",
    "result_no_chance": "{system}: {outcome}, {score}",
    # a result shown although its roll log entry could not be written (kiosk.unrecorded = "show")
    "unrecorded": "unrecorded. {said}",
    # the score of a result: what it reached against what it needed (PanelSpec.versus)
    "versus": "{reached} against {what} {needed}",
    # nothing was rolled (immortal's automatic success)
    "versus_auto": "automatic against {what} {needed}",
    # a chance of success, rounded to a whole percent but never to 0 or 100 when possible
    "percent": "{n} percent",
    "under": "under {n} percent",
    "over": "over {n} percent",
    "certain": "100 percent",
    "impossible": "0 percent",
    # the setup page, once the buttons are still: "horizons, need 3: 87 percent chance"
    "setup": "{title}, {row}: {chance} chance",
    "setup_cannot": "{title}, {row}: cannot roll. {why}",
    # the whole page (hold FIELD): every row, then what the page says under them
    "setup_full": "{title}: {chance} chance. {rows}",
    "setup_full_cannot": "{title}: cannot roll. {rows}",
    "row": "{label} {value}",
    "not_counted": "{value}, off: not counted",
    # the player slot and what it carries: "player 1: karma 2"
    "player_carries": "player {n}: {what}",
    # the open session's commitment (its first digits), on the setup page
    "session_mark": "session {session}",
    # the hand is hidden: which finger buttons count, and which finger is which
    "guess": "{head}: pick a finger, {fingers}; thumb 1 to pinky 5",
    "span": "{first} to {last}",
    # a group roll revealed one participant per ROLL: "infinity: helper 1, 2 of 3"
    "turn": "{system}: {who}, {n} of {count}",
    "turn_next": "next: {who}, press roll",
    "turn_total": "press roll for the total",
    # cannot roll, cannot record: the message's title and text
    "message": "{title}: {text}",
    # the settings menu, once the buttons are still
    "settings": "settings, {row}",
    "settings_armed": "settings, {item}: press roll again to do it",
    "settings_note": "{note}. {said}",
    "settings_full": "settings: {rows}",
    # the session's commitment in full (settings, session): its first 16 digits
    "commitment": "commitment {session}",
    "no_commitment": "no session open",
    # pieces of screen text said in words
    "of": "{a} of {b}",
    "seconds": "{n} seconds",
    "player": "player {n}",
    "and": "{items} and {last}",
    "plus": "plus {n}",
    "minus": "minus {n}",
    # a result whose entry is in the roll log: its number in the session and its fingerprint
    "recorded": "roll {n}, fingerprint {entry}",
    "entered": "hand typed in, fingerprint {entry}",
    # a new session's first ROLL: the table may set a seed of its own (docs/panel.md)
    "seed_ask": ("new session {session}: photograph the QR code of its commitment, then set a new table seed code? "
                 "plus sets one, roll rolls with none, mode goes back"),
    "seed_ask_menu": ("new session {session}: photograph the QR code of its commitment, then set a new table seed "
                      "code? plus sets one, mode goes back"),
    "seed_start": "table seed for session {session}: press any {n} buttons, thumb 1 to pinky 5",
    "seed_more": "{code}, {left} more",
    "seed_more/1": "{code}, 1 more button",
    "seed_done": "table seed {code}: roll sets it, mode cancels, any other button starts a new code",
    # a revealed session's four facts (the screen's QR code holds them whole)
    "card": ("session revealed: commitment {session}, table seed {seed}, rolls {rolls}, head {head}; "
             "any button goes on to the next screen"),
    "card_no_seed": ("session revealed: commitment {session}, table seed none, rolls {rolls}, head {head}; "
                     "any button goes on to the next screen"),
    # the lines of a result (PanelSpec.details), shared by several systems
    "dice": "dice {faces}",
    "damage": "damage {n}",
    "track": "{track}: {marked} of {total} boxes marked",
}

#: Screen words said otherwise, one word (a space-separated piece of screen text) or a run of
#: them at a time, matched without regard to case; "" drops the word. A word not here is said
#: as written.
WORDS = {
    "vs": "opponent's",
    "-": "not set",
    "...": "",
    "..": "to",
    "sha": "S H A",
    "sha-256": "S H A 256",
    "<": "is below",
    ">=": "at least",
    "more": "more",
    "back": "back",
    "ok": "passed",
    "fail": "failed",
}

#: The engine's reasons a setting cannot roll (its screen text after the parameter's label,
#: each variable part as {0}, {1} ...), whole, in this language. English is the engine's own
#: wording, so none here; a translation puts each one it says otherwise than word by word
#: (``de.py``'s).
REASONS: dict[str, str] = {}

#: Outcome names (``SystemSpec.outcomes``) as said.
OUTCOMES = {
    "success": "success",
    "failure": "failure",
}
