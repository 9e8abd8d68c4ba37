"""The GPU check's parts (``packaging/gpu_kit.py`` runs them): the report, the builds, the
models, and the measurements of each engine.  Standard library only at import time: the
check runs on machines with whatever Python packages happen to be installed there."""
