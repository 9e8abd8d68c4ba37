"""What the app and its worker processes share: the lowest room of Hearth.

The protocol (message and event names, error kinds, finish reasons), the model spec that a
``load`` or ``chat`` request carries, and ``Phrase`` (a sentence that keeps its template so
a window can translate it).  Both sides of the pipe import this room and nothing else of
each other, so it may import only the standard library.
"""
