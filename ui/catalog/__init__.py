"""Hearth's model catalogue: its cards (in Discover and on the welcome), the panel that lists
them, their downloads and the check of the catalogue against the hub."""
