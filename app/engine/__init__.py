"""The engine host: the one owner of worker processes in a process of Hearth.

``EngineHost`` (``host.py``) keeps the workers, one per model spec, under one memory budget
and one share of the CPU cores; front ends hold ``Lease``s (``lease.py``) on models, and a
``Seat`` (``seat.py``) is the lease a front end moves as its person chooses models.
``WorkerProcess`` (``process.py``) is one worker and its pipe; ``jobs.py`` a request in
flight; ``faults.py`` what a failure is called; ``avoided.py``, ``budget.py`` and
``cores.py`` the host's memory of failed runtimes, its memory budget and its cores.
"""
