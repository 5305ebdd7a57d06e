"""The tower's dice sessions: a committed seed, its DRBG, the table's code, the files that keep
an open session across a restart, and the log's word on each (docs/fairness.md)."""
