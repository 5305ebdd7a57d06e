"""English: every word the tower speaks.

A translation is a copy of this file under the language's code (``de.py``), its strings
translated, and the code added to ``engine.speech.LANGUAGES``; docs/speech.md says more. The
``{names}`` in a template are filled in by ``engine/speech/words.py``; each template may use
the names ``engine.speech.TEMPLATES`` lists for it, in any order, or leave some out.
"""

#: eSpeak NG's voice for this language (``espeak-ng --voices`` lists them); the config's
#: ``[sound] voice`` overrides it.
VOICE = "en"

TEMPLATES = {
    # a result, with the screen: "infinity: success, 14 against C R 10, it had 64 percent"
    "result": "{system}: {outcome}, {score}, it had {chance}",
    "result_no_chance": "{system}: {outcome}, {score}",
    # a result shown although its roll log entry could not be written (kiosk.unrecorded = "show")
    "unrecorded": "unrecorded. {said}",
    # the score of a result: what it reached against what it needed (PanelSpec.versus)
    "versus": "{reached} against {what} {needed}",
    # the score of a hidden hand revealed (fingers)
    "hand": "you picked {guess}, winners {winners}",
    # a chance of success, rounded to a whole percent but never to 0 or 100 when possible
    "percent": "{n} percent",
    "under": "under {n} percent",
    "over": "over {n} percent",
    "certain": "certain",
    "impossible": "no chance",
    # the setup page, once the buttons are still: "horizons, need 3, 87 percent"
    "setup": "{title}, {row}, {chance}",
    "setup_cannot": "{title}, {row}, cannot roll: {why}",
    "row": "{label} {value}",
    "not_counted": "{value}, not counted",
    # the hand is hidden: which finger buttons count
    "guess": "{system}: pick a finger, {fingers}",
    "guess_test": "test {n}: pick a finger, {fingers}",
    "span": "{first} to {last}",
    # a group roll revealed one participant per ROLL: "helper 1, 2 of 3"
    "turn": "{who}, {n} of {count}",
    # cannot roll, cannot record: the message's title and text
    "message": "{title}: {text}",
    # the settings menu, once the buttons are still
    "settings": "settings, {row}",
    "settings_armed": "{item}: press roll again to do it",
    "settings_note": "{note}. {said}",
    # pieces of screen text said in words
    "of": "{a} of {b}",
    "seconds": "{n} seconds",
    "player": "player {n}",
    "and": "{items} and {last}",
    # a result whose entry is in the roll log: its number in the session (the screen's fingerprint)
    "recorded": "{said}, roll {n}",
    # a new session's first ROLL: the table may set a seed of its own (docs/panel.md)
    "seed_ask": "new session {session}: set a table seed? plus sets one, roll rolls without, mode goes back",
    "seed_start": "table seed: press any {n} buttons, thumb 1 to pinky 5",
    "seed_more": "{code}, {left} more",
    "seed_done": "table seed {code}: roll sets it, mode cancels, another button starts again",
    # a revealed session's four facts (the screen's QR code holds them whole)
    "card": "session {session} revealed after {rolls} rolls, table seed {seed}, head {head}",
    "card_no_seed": "session {session} revealed after {rolls} rolls, no table seed, head {head}",
}

#: What a result's score was against (``PanelSpec.versus``'s term: a parameter or a result
#: field), where its screen label would not do.
TERMS = {
    "cr": "C R",
    "defense": "defense",
    "need": "need",
    "opponent_successes": "the opponent's",
    "cv": "C V",
    "opponent_total": "the opponent's",
    "tn": "T N",
}

#: Screen words said otherwise, one word (a space-separated piece of screen text) at a time,
#: matched without regard to case; "" drops the word.
WORDS = {
    "vs": "opponent's",
    "opp.": "opponent",
    "succ.": "successes",
    "mit.": "mitigation",
    "stab.": "stability",
    "untr.": "untrained",
    "complex.": "complexity",
    "pts": "points",
    "mod": "modifier",
    "col": "colour",
    "cr": "C R",
    "cv": "C V",
    "tn": "T N",
    "-": "not set",
    "...": "",
    "more": "more",
    "back": "back",
}

#: Outcome names (``SystemSpec.outcomes``) as said.
OUTCOMES = {
    "success": "success",
    "failure": "failure",
    "complication": "complication",
    "solid": "solid success",
    "spectacular": "spectacular success",
}

#: System ids as said, where the id is not a word.
SYSTEMS = {
    "d6cv": "d 6 C V",
}
