"""The benchmark's only app: one table of articles served by every contender."""
