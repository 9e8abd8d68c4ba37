"""Documents: attachments and collections, their index, retrieval and citations."""
