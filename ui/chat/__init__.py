"""The Chat screen: transcript, composer, conversation list, search and their dialogs."""
