"""How horizons is said: its result lines' phrases, terms, screen words and reasons in each
language, merged into that language's phrase table (engine.speech; docs/speech.md)."""

from engine.systems.panel import Phrasebook, Speech

SPEECH = Speech(
    names={
        "horizons.successes": frozenset({"n"}),
        "horizons.net": frozenset({"net", "opponent"}),
        "horizons.opponent_dice": frozenset({"faces"}),
        "horizons.exploded": frozenset({"n"}),
        "horizons.status": frozenset({"status"}),
        "horizons.breakdown": frozenset(),
    },
    languages={
        "en": Phrasebook(
            templates={
                "horizons.successes": "{n} successes",
                "horizons.successes/1": "1 success",
                "horizons.net": "net {net}, the opponent {opponent}",
                "horizons.opponent_dice": "the opponent's dice {faces}",
                "horizons.exploded": "{n} dice exploded",
                "horizons.exploded/1": "1 die exploded",
                "horizons.status": "status {status}",
                "horizons.breakdown": "breakdown",
            },
            terms={
                "need": "need",
                "opponent_successes": "the opponent's",
            },
            words={
                "opp.": "opponent",
                "succ.": "successes",
                "mit.": "mitigation",
                "stab.": "stability",
            },
        ),
        "de": Phrasebook(
            templates={
                "horizons.successes": "{n} Erfolge",
                "horizons.successes/1": "1 Erfolg",
                "horizons.net": "netto {net}, der Gegner {opponent}",
                "horizons.opponent_dice": "die Würfel des Gegners {faces}",
                "horizons.exploded": "{n} Würfel explodiert",
                "horizons.status": "Zustand {status}",
                "horizons.breakdown": "Zusammenbruch",
            },
            terms={
                "need": "Bedarf",
                "opponent_successes": "die des Gegners",
            },
            words={
                "opp.": "Gegner",
                "succ.": "Erfolge",
                "mit.": "Minderung",
                "stab.": "Stabilität",
                "wound": "Wunde",
                "opp. pool": "Pool des Gegners",
                "opp. succ.": "Erfolge des Gegners",
                "mit. mode": "Minderungsmodus",
                "stab. boxes": "Stabilitätskästchen",
                "stab. loss": "Stabilitätsverlust",
                "trait": "Eigenschaft",
                "need": "Bedarf",
                "pool": "Pool",
                "opposed": "vergleichend",
                "body": "Körper",
                "resolve": "Entschlossenheit",
                "wounds": "Wunden",
                "tier": "Stufe",
                "spill": "Überlauf",
                "mitigation": "Minderung",
                "mode": "Modus",
                "stability": "Stabilität",
                "boxes": "Kästchen",
                "box": "Kästchen",
                "hit": "Treffer",
                "loss": "Verlust",
                "defender": "Verteidiger",
                "minor": "leicht",
                "major": "schwer",
                "critical": "kritisch",
                "status": "Zustand",
                "unhurt": "unverletzt",
                "incapacitated": "kampfunfähig",
                "exploded": "explodiert",
                "net": "netto",
                "breakdown": "Zusammenbruch",
                "reduce": "verringern",
                "tiers": "Stufen",
            },
            reasons={
                ("required with the defender's wound track ({0}): Minor boxes = {1} + Body + Resolve; give {2} "
                 "to {3}"):
                    ("nötig mit der Wundleiste des Verteidigers ({0}): leichte Kästchen gleich {1} plus Körper plus "
                     "Entschlossenheit; gib {2} bis {3} an"),
                "needs the defender's wound track (body and resolve), got only tier {0}":
                    "braucht die Wundleiste des Verteidigers (Körper und Entschlossenheit), gesetzt ist nur Stufe {0}",
            },
        ),
    },
)
