"""The Models screen: hub search, a repository's files, downloads and the library."""
