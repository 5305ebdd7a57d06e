"""The state directory's files: the roll log, the player state, the lock, and how a file a
user may have replaced is opened and a path a person typed is read."""
