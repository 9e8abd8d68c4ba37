"""This machine: hardware probes, the "will it fit" estimate, the system check and the
live memory figures."""
