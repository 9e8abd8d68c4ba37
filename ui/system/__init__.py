"""The System screen: what this computer has and how models will run on it."""
