"""How immortal is said: its result lines' phrases, terms, screen words and reasons in each
language, merged into that language's phrase table (engine.speech; docs/speech.md)."""

from engine.systems.panel import Phrasebook, Speech

SPEECH = Speech(
    names={
        "immortal.automatic": frozenset({"per", "skill", "tn"}),
        "immortal.primary_automatic": frozenset({"per", "skill", "tn"}),
        "immortal.rolled_best": frozenset(),
        "immortal.rolled_off": frozenset(),
        "immortal.colour": frozenset({"attribute", "colour"}),
        "immortal.bonus": frozenset({"bonus", "left"}),
        "immortal.hostile": frozenset({"die", "n", "tn", "total", "used", "verdict"}),
        "immortal.hostile_automatic": frozenset({"n", "tn", "used", "verdict"}),
        "immortal.bonus_used": frozenset({"n"}),
        "immortal.opponent": frozenset({"attribute", "die", "skill", "total"}),
        "immortal.opponent_total": frozenset({"total"}),
        "immortal.locked": frozenset(),
    },
    languages={
        "en": Phrasebook(
            templates={
                "immortal.automatic": "automatic: skill {skill} times {per} is at least {tn}",
                "immortal.primary_automatic": "the primary roll automatic: skill {skill} times {per} is at least {tn}",
                "immortal.rolled_best": "rolled, not automatic: rolling had the better chance",
                "immortal.rolled_off": "rolled: automatic success is off",
                "immortal.colour": "colour {colour}: {attribute}",
                "immortal.bonus": "bonus {bonus}, {left} left",
                "immortal.hostile": "hostile {n}, T N {tn}: rolled {die}, total {total}{used}, {verdict}",
                "immortal.hostile_automatic": "hostile {n}, T N {tn}: automatic{used}, {verdict}",
                "immortal.bonus_used": ", bonus {n} used",
                "immortal.opponent": "the opponent: attribute {attribute}, skill {skill}, rolled {die}, total {total}",
                "immortal.opponent_total": "the opponent's total {total}",
                "immortal.locked": "the skill is now locked",
            },
            terms={
                "opponent_total": "the opponent's",
                "tn": "T N",
            },
            words={
                "opp.": "opponent",
                "untr.": "untrained",
                "col": "colour",
                "attr": "attribute",
                "tn": "T N",
                "h": "hostile",
            },
        ),
        "de": Phrasebook(
            templates={
                "immortal.automatic": "automatisch: Fertigkeit {skill} mal {per} ist mindestens {tn}",
                "immortal.primary_automatic":
                    "der Hauptwurf automatisch: Fertigkeit {skill} mal {per} ist mindestens {tn}",
                "immortal.rolled_best": "gewürfelt, nicht automatisch: der Wurf hatte die bessere Chance",
                "immortal.rolled_off": "gewürfelt: der automatische Erfolg ist aus",
                "immortal.colour": "Farbe {colour}: {attribute}",
                "immortal.bonus": "Bonus {bonus}, {left} übrig",
                "immortal.hostile": "Gegner {n}, T N {tn}: gewürfelt {die}, Summe {total}{used}, {verdict}",
                "immortal.hostile_automatic": "Gegner {n}, T N {tn}: automatisch{used}, {verdict}",
                "immortal.bonus_used": ", Bonus {n} genutzt",
                "immortal.opponent":
                    "der Gegner: Attribut {attribute}, Fertigkeit {skill}, gewürfelt {die}, Summe {total}",
                "immortal.opponent_total": "die Summe des Gegners {total}",
                "immortal.locked": "die Fertigkeit ist jetzt gesperrt",
            },
            terms={
                "opponent_total": "die des Gegners",
                "tn": "T N",
            },
            words={
                "opp.": "Gegner",
                "untr.": "ungeübt",
                "col": "Farbe",
                "attr": "Attribut",
                "tn": "T N",
                "h": "Gegner",
                "agility": "Geschicklichkeit",
                "rank": "Rang",
                "skill slot": "Fertigkeitsplatz",
                "skill locked": "Fertigkeit gesperrt",
                "auto success": "automatischer Erfolg",
                "untr. rule": "Regel für Ungeübte",
                "opp. total": "Summe des Gegners",
                "color": "Farbe",
                "colour": "Farbe",
                "rule": "Regel",
                "kind": "mild",
                "strict": "streng",
                "auto": "automatisch",
                "automatic": "automatisch",
                "success": "Erfolg",
                "best": "das Beste",
                "hostile": "Gegner",
                "hostiles": "Gegner",
                "legacy": "Vermächtnis",
                "sharing": "Aufteilung",
                "opponent": "Gegner",
                "total": "Summe",
                "slot": "Platz",
                "locked": "gesperrt",
                "red": "rot",
                "orange": "orange",
                "yellow": "gelb",
                "green": "grün",
                "blue": "blau",
                "purple": "lila",
                "violet": "violett",
                "white": "weiß",
                "black": "schwarz",
                "strength": "Stärke",
                "perception": "Wahrnehmung",
            },
            reasons={
                ("refused: the skill is locked (skill locked) after a failed untrained attempt; allowed again "
                 "once the character has at least {0} rank (skill {1}..)"):
                    ("abgelehnt: die Fertigkeit ist nach einem misslungenen ungeübten Versuch gesperrt; erst wieder "
                     "erlaubt mit mindestens {0} Rang (Fertigkeit ab {1})"),
                ("refused: under untr. rule strict no attempt without the skill is allowed (allowed: untr. rule "
                 "kind, which raises the TN by {0})"):
                    ("abgelehnt: nach der strengen Regel für Ungeübte ist kein Versuch ohne die Fertigkeit erlaubt "
                     "(erlaubt: die milde Regel, die den T N um {0} erhöht)"),
                "an untrained attempt has no skill ranks: give skill {0} with untrained, got skill {1}":
                    "ein ungeübter Versuch hat keine Ränge: gib Fertigkeit {0} bei ungeübt, gesetzt Fertigkeit {1}",
                "give either opponent or opp. total, not both; got opp. total {0} with opponent":
                    ("gib entweder den Gegner oder die Summe des Gegners an, nicht beides; gesetzt ist die Summe "
                     "{0} mit einem Gegner"),
            },
        ),
    },
)
