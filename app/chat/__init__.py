"""Conversations: the chat store, the session that sends and streams a reply, presets and
the reply bookkeeping.  Qt-free: every front end (window, command line) uses it."""
