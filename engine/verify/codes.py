"""The verifier's problem codes and flags, with what each means (docs/fairness.md, "Problem
codes"): the stable words ``dicetower replay``, ``tools/verify_rolls.py``, the board and the
phone page all print, so "the same first problem" can be checked over the forgery corpus."""

from __future__ import annotations

__all__ = ["CODES", "FLAGS"]

#: Every problem's code, with what it means (docs/fairness.md, "Problem codes").
CODES: dict[str, str] = {
    "chain": "the hash chain is broken (an entry edited, dropped, moved or damaged)",
    "session-twice": "a session id seen twice",
    "overlap": "a session opened while another was open (one session at a time)",
    "stream": "a session in a stream format no replay knows",
    "block-size": "a session's block size is not the stream's",
    "not-open": "a table seed, roll or reveal naming a session that is not the open one",
    "outside-session": "a roll outside any session that is not a typed-in (entered) roll",
    "table-seed": "a table seed that is malformed, second, after a roll, or in a stream 2 session",
    "table-seed-reused": "a table seed an earlier session carried already (one code, one session)",
    "too-many-rolls": "a session with more rolls than a session may hold",
    "mix": "a roll's mix that is not printable text a player typed (or any mix on a panel roll)",
    "seed-unreadable": "a revealed seed that cannot be read",
    "commitment": "a revealed seed that does not match its commitment",
    "seed-claim": "a seed that is not what its session entry claimed (sources, credit, weak entropy)",
    "reused-entropy": "entropy an earlier session used",
    "reveal-count": "a reveal whose roll count is not the log's",
    "continuity": "a roll that does not start where the previous one ended, or a reveal's end that is wrong",
    "roll-malformed": "a roll entry without its start, end, mix or result",
    "roll-mismatch": "a roll whose result is not what the revealed seed gives",
    "roll-kind": "a roll labelled as another kind than it is",
    "unverifiable": "an entry the verifier could not check",
    "open-session": "a session not revealed (with --all-revealed)",
    "not-in-log": "a value the players noted that is in no entry it may be",
    "roll-number": "a noted result whose number is not its number in its session",
    "unnoted-commitment": "a session of the players' night whose commitment they did not note",
    "no-table-seed": "a session of the players' night without a table seed",
    "unnoted-table-seed": "a session of the players' night whose table seed is not one they set",
    "table-seed-not-found": "a table seed the players set that no session carries",
    "test-session": "a --seed test session in the players' night",
    "mix-not-named": "a roll of the players' night with a mix they did not name, once per roll (--allow-mix)",
    "entered-not-named": "more typed-in rolls in the players' night than they named (--allow-entered)",
    "command-line-roll": "a roll not made on the panel in a session of the players' night the panel rolled in, "
                         "beyond what they named (--allow-command-line)",
    "card": "a reveal card the players noted (--card) that is not a session of the log as the card says it",
    "unseen-roll": "a roll of the players' night they did not see: between, before or after the results they "
                   "noted, or beyond the rolls they counted (--count)",
    "missing-roll": "fewer rolls in the players' night than they counted (--count): a result they saw is not "
                    "in the log",
    "table-seed-source": "a panel roll in a session whose code was set elsewhere (the command line), not on the "
                         "panel's keys",
    "player-state": "a roll whose logged player state (karma, a track) is not what its result gives",
    "damaged-session": "a session of the players' night, with rolls, that the tower ended as damaged "
                       "(session_damaged: its kept seed was lost), so its rolls cannot be checked",
    "early-endings": "sessions ended early far more often just before a failing roll than their odds allow "
                     "(the p-value below RED_P)",
}
#: What the checkers flag without calling it a problem (a witness without photos shows it).
FLAGS: dict[str, str] = {
    "no-table-seed": "a session without a table seed: its owner could have chosen its seed",
    "damaged-session": "a session the tower ended as damaged (session_damaged: its kept seed was lost): its rolls "
                       "cannot be checked",
    "early-endings": "sessions ended early more often just before a failing roll than their odds make likely "
                     "(the p-value below AMBER_P): look at who ends them",
}
