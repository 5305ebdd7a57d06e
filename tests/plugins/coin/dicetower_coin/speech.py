"""How the coin is said, in every language the tower speaks (merged into its phrase tables)."""

from engine.systems.panel import Phrasebook, Speech

SPEECH = Speech(
    names={"coin.flips": frozenset({"faces", "n"})},
    languages={
        "en": Phrasebook(
            templates={"coin.flips": "coins {faces}", "coin.flips/1": "coin {faces}"},
            words={"heads": "heads", "tails": "tails"},
            reasons={"at most the number of coins ({0}), got {1}": "at most the number of coins, {0}, got {1}"},
        ),
        "de": Phrasebook(
            name="Münze",
            templates={"coin.flips": "Münzen {faces}", "coin.flips/1": "Münze {faces}"},
            words={"heads": "Kopf", "tails": "Zahl", "coins": "Münzen"},
            reasons={"at most the number of coins ({0}), got {1}": "höchstens so viele wie Münzen, {0}, gesetzt {1}"},
        ),
    },
)
