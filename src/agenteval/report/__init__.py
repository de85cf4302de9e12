"""Reporters: render or write result objects; they never re-evaluate."""
