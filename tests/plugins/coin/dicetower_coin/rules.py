"""The coin's rules as data: shared by the roll, the odds and the panel."""

#: A coin is a two-sided die: 1 tails, 2 heads.
SIDES = 2
HEADS = 2
#: At most nine coins: their faces fit one line of the 128x64 screen.
MAX_COINS = 9
