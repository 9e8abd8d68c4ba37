"""The Documents screen: collections of the user's files, indexed in the background."""
