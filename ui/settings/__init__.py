"""The Settings dialog, built from the settings declaration, and how the window opens it."""
