"""The API server: its dialog, the window's switch that serves it, and the loaded models."""
