"""How d6cv is said: its result lines' phrases, terms, screen words and reasons in each
language, merged into that language's phrase table (engine.speech; docs/speech.md)."""

from engine.systems.panel import Phrasebook, Speech

SPEECH = Speech(
    names={
        "d6cv.check": frozenset({"critical", "cv", "face", "part", "total", "verdict"}),
        "d6cv.tie": frozenset({"opponent", "opponent_total", "total", "you"}),
        "d6cv.exchange": frozenset({"opponent", "opponent_total", "part", "theirs", "total", "verdict", "you",
                                    "yours"}),
        "d6cv.crit": frozenset(),
        "d6cv.fumble": frozenset(),
        "d6cv.their_crit": frozenset(),
        "d6cv.their_fumble": frozenset(),
        "d6cv.critical_success": frozenset(),
        "d6cv.critical_failure": frozenset(),
        "d6cv.won_critical": frozenset(),
        "d6cv.lost_critical": frozenset(),
        "d6cv.base_time": frozenset({"time"}),
    },
    languages={
        "en": Phrasebook(
            name="d 6 C V",
            templates={
                "d6cv.check": "{part} against C V {cv}: rolled {face}, total {total}, {verdict}{critical}",
                "d6cv.tie":
                    "a tie: you rolled {you} for {total}, the opponent {opponent} for {opponent_total}; rolled again",
                "d6cv.exchange": ("{part}: you rolled {you} for {total}{yours}, the opponent {opponent} for "
                                  "{opponent_total}{theirs}, {verdict}"),
                "d6cv.crit": ", a critical",
                "d6cv.fumble": ", a fumble",
                "d6cv.their_crit": ", their critical",
                "d6cv.their_fumble": ", their fumble",
                "d6cv.critical_success": "critical success",
                "d6cv.critical_failure": "critical failure",
                "d6cv.won_critical": "won on a critical",
                "d6cv.lost_critical": "lost on a critical",
                "d6cv.base_time": "base time {time}",
            },
            terms={
                "cv": "C V",
                "opponent_total": "the opponent's",
            },
            words={
                "opp.": "opponent",
                "complex.": "complexity",
                "mod": "modifier",
                "cv": "C V",
            },
        ),
        "de": Phrasebook(
            name="d 6 C V",
            templates={
                "d6cv.check": "{part} gegen C V {cv}: gewürfelt {face}, Summe {total}, {verdict}{critical}",
                "d6cv.tie":
                    ("Gleichstand: du hast {you} für {total} gewürfelt, der Gegner {opponent} für {opponent_total}; "
                     "neu gewürfelt"),
                "d6cv.exchange": ("{part}: du hast {you} für {total} gewürfelt{yours}, der Gegner {opponent} für "
                                  "{opponent_total}{theirs}, {verdict}"),
                "d6cv.crit": ", ein kritischer Erfolg",
                "d6cv.fumble": ", ein Patzer",
                "d6cv.their_crit": ", sein kritischer Erfolg",
                "d6cv.their_fumble": ", sein Patzer",
                "d6cv.critical_success": "kritischer Erfolg",
                "d6cv.critical_failure": "kritischer Fehlschlag",
                "d6cv.won_critical": "durch einen kritischen Wurf gewonnen",
                "d6cv.lost_critical": "durch einen kritischen Wurf verloren",
                "d6cv.base_time": "Grundzeit {time}",
            },
            terms={
                "cv": "C V",
                "opponent_total": "die des Gegners",
            },
            words={
                "opp.": "Gegner",
                "complex.": "Komplexität",
                "mod": "Modifikator",
                "cv": "C V",
                "cv step": "C V Schritt",
                "vs stat": "Wert des Gegners",
                "vs skill": "Fertigkeit des Gegners",
                "vs mod": "Modifikator des Gegners",
                "stat": "Wert",
                "criticals": "kritische Würfe",
                "contest": "Wettstreit",
                "targeted": "gezielt",
                "untargeted": "ungezielt",
                "repeat": "Wiederholung",
                "step": "Schritt",
                "goal": "Ziel",
                "construction": "Bau",
                "blueprint": "Entwurf",
                "execution": "Ausführung",
                "project": "Projekt",
                "complexity": "Komplexität",
                "untrained": "ungeübt",
                "check": "Probe",
                "checks": "Proben",
                "hour": "Stunde",
                "day": "Tag",
                "week": "Woche",
                "month": "Monat",
                "year": "Jahr",
                "base": "Basis",
                "time": "Zeit",
                "crit": "kritisch",
                "fumble": "Patzer",
                "master": "Meister",
            },
            reasons={
                ("a construction check is made against the project's CV, not an opponent; use contest none with "
                 "build {0}, got {1}"):
                    ("ein Bauwurf geht gegen den C V des Projekts, nicht gegen einen Gegner; nimm Wettstreit keiner "
                     "bei Aufbau {0}, gesetzt {1}"),
                "a contest has no CV to change; allowed {0} with contest {1}, got {2}":
                    ("ein Wettstreit hat keinen C V, der sich ändern könnte; erlaubt ist {0} bei Wettstreit {1}, "
                     "gesetzt {2}"),
                "a complexity-{0} project needs skill {1} or more, got {2}":
                    "ein Projekt der Komplexität {0} braucht Fertigkeit {1} oder mehr, gesetzt {2}",
            },
        ),
    },
)
