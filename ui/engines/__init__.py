"""Settings › Engines: the engines and runtimes, installed, removed and rolled back."""
