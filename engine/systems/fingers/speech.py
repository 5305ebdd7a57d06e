"""How fingers is said: its result lines' phrases, terms, screen words and reasons in each
language, merged into that language's phrase table (engine.speech; docs/speech.md)."""

from engine.systems.panel import Phrasebook, Speech

SPEECH = Speech(
    names={
        "fingers.picked": frozenset({"guess"}),
        "fingers.winners": frozenset({"faces"}),
        "fingers.automatic": frozenset(),
        "fingers.test": frozenset({"challenge", "guess", "n", "verdict", "winners"}),
    },
    languages={
        "en": Phrasebook(
            templates={
                "fingers.picked": "you picked {guess}",
                "fingers.winners": "winners {faces}",
                "fingers.automatic": "automatic",
                "fingers.test": "test {n}, {challenge}: winners {winners}, you picked {guess}, {verdict}",
            },
        ),
        "de": Phrasebook(
            templates={
                "fingers.picked": "gewählt {guess}",
                "fingers.winners": "Gewinner {faces}",
                "fingers.automatic": "automatisch",
                "fingers.test": "Probe {n}, {challenge}: Gewinner {winners}, gewählt {guess}, {verdict}",
            },
            words={
                "start karma": "Start-Karma",
                "multi spend": "mehrfach einsetzen",
                "long term": "langfristig",
                "max tests": "höchstens Proben",
                "fixed hand": "feste Hand",
                "choices": "Auswahl",
                "winners": "Gewinner",
                "karma": "Karma",
                "spend": "einsetzen",
                "ailment": "Leiden",
                "multi": "mehrfach",
                "long": "lang",
                "term": "fristig",
                "long-term": "langfristig",
                "max": "höchstens",
                "chain": "Kette",
                "fixed": "feste",
                "hand": "Hand",
                "guess": "Tipp",
                "picked": "gewählt",
                "pick": "wähle",
            },
            reasons={
                "at most choices ({0}) winners, got {1}": "höchstens {0} Gewinner bei Auswahl {0}, gesetzt {1}",
                "cannot spend {0} karma with karma {1}": "{0} Karma kann nicht eingesetzt werden, es gibt nur {1}",
                "at most {0} karma per test (allow more with multi spend), got {1}":
                    "höchstens {0} Karma je Probe (mehr mit mehrfach einsetzen), gesetzt {1}",
                "with chain put the karma on each test, e.g. {0}; allowed {1} here, got {2}":
                    "bei einer Kette gehört das Karma zu jeder Probe; erlaubt ist hier {1}, gesetzt {2}",
                "{0} of {1} is certain with {2} karma; spending {3} would waste {4}; allowed {5}":
                    "{0} von {1} ist mit {2} Karma sicher; {3} einzusetzen verschwendet {4}; erlaubt {5}",
                "a long-term challenge with a 0-winner test never ends; give it a winner or a max tests limit":
                    ("eine langfristige Herausforderung mit einer Probe ohne Gewinner endet nie; gib ihr einen "
                     "Gewinner oder eine Höchstzahl an Proben"),
                "test {0} is a {1} of {2}: {3} different fingers from {4} to {5}, got {6}":
                    "Probe {0} ist {1} von {2}: {3} verschiedene Finger von {4} bis {5}, gesetzt {6}",
                "the test is a {0} of {1}: give exactly {2} fingers, got {3}":
                    "die Probe ist {0} von {1}: gib genau {2} Finger an, gesetzt {3}",
                "too few fingers: test {0} ({1} of {2}) needs {3}, {4} left":
                    "zu wenige Finger: Probe {0} ({1} von {2}) braucht {3}, nur {4} übrig",
                "too many fingers: {0} given, the tests played used {1}":
                    "zu viele Finger: {0} gesetzt, die gespielten Proben brauchten {1}",
                "{0}: winners must be {1}, got {2}; expected challenges like 1/5 or 1/5+1 (at most {3})":
                    ("{0}: die Gewinner müssen {1} sein, gesetzt {2}; erwartet werden Herausforderungen wie 1 von 5 "
                     "oder 1 von 5 plus 1 (höchstens {3})"),
            },
        ),
    },
)
