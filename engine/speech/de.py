"""Deutsch: jedes Wort, das der Turm spricht (a translation of ``en.py``; see there).

The screens themselves stay English (their labels are the rules' terms); what is said of
them is German, and screen words the table does not know are said as they are written.
"""

VOICE = "de"

TEMPLATES = {
    "result": "{system}: {outcome}, {score}, die Chance war {chance}",
    "result_no_chance": "{system}: {outcome}, {score}",
    "unrecorded": "nicht aufgezeichnet. {said}",
    "versus": "{reached} gegen {what} {needed}",
    "hand": "gewählt {guess}, Gewinner {winners}",
    "percent": "{n} Prozent",
    "under": "unter {n} Prozent",
    "over": "über {n} Prozent",
    "certain": "sicher",
    "impossible": "keine Chance",
    "setup": "{title}, {row}, {chance}",
    "setup_cannot": "{title}, {row}, kein Wurf möglich: {why}",
    "row": "{label} {value}",
    "not_counted": "{value}, zählt nicht",
    "guess": "{system}: wähle einen Finger, {fingers}",
    "guess_test": "Probe {n}: wähle einen Finger, {fingers}",
    "span": "{first} bis {last}",
    "turn": "{who}, {n} von {count}",
    "message": "{title}: {text}",
    "settings": "Einstellungen, {row}",
    "settings_armed": "{item}: zum Ausführen noch einmal Wurf drücken",
    "settings_note": "{note}. {said}",
    "of": "{a} von {b}",
    "seconds": "{n} Sekunden",
    "player": "Spieler {n}",
    "and": "{items} und {last}",
    "recorded": "{said}, Wurf {n}",
    "seed_ask": ("neue Sitzung {session}: einen Tisch-Seed setzen? Plus setzt einen, Wurf würfelt ohne, "
                 "Modus geht zurück"),
    "seed_start": "Tisch-Seed: drücke {n} beliebige Tasten, Daumen 1 bis kleiner Finger 5",
    "seed_more": "{code}, noch {left}",
    "seed_done": "Tisch-Seed {code}: Wurf setzt ihn, Modus bricht ab, eine andere Taste beginnt neu",
    "card": "Sitzung {session} aufgedeckt nach {rolls} Würfen, Tisch-Seed {seed}, Kopf {head}",
    "card_no_seed": "Sitzung {session} aufgedeckt nach {rolls} Würfen, kein Tisch-Seed, Kopf {head}",
}

TERMS = {
    "cr": "C R",
    "defense": "Verteidigung",
    "need": "Bedarf",
    "opponent_successes": "die des Gegners",
    "cv": "C V",
    "opponent_total": "die des Gegners",
    "tn": "T N",
}

WORDS = {
    "vs": "Gegner",
    "opp.": "Gegner",
    "succ.": "Erfolge",
    "mit.": "Minderung",
    "stab.": "Stabilität",
    "untr.": "ungeübt",
    "complex.": "Komplexität",
    "pts": "Punkte",
    "mod": "Modifikator",
    "col": "Farbe",
    "cr": "C R",
    "cv": "C V",
    "tn": "T N",
    "-": "nicht gesetzt",
    "...": "",
    "more": "mehr",
    "back": "zurück",
    "yes": "ja",
    "no": "nein",
    "on": "an",
    "off": "aus",
    "settings": "Einstellungen",
    "speech": "Sprache",
    "player": "Spieler",
    "brightness": "Helligkeit",
    "animation": "Animation",
    "exit": "Ende",
}

OUTCOMES = {
    "success": "Erfolg",
    "failure": "Fehlschlag",
    "complication": "Komplikation",
    "solid": "solider Erfolg",
    "spectacular": "spektakulärer Erfolg",
}

SYSTEMS = {
    "d6cv": "d 6 C V",
}
