"""One path for errors to reach a person.

``HearthError`` carries a sentence written for the user (what happened, what to do).
``describe_error`` is the single place that turns any exception into such a sentence: it
logs the exception with its stack first, so the log has the detail and the person gets
the message.  The GUI's error area and the command line both go through it.
"""

from __future__ import annotations

import errno
import logging
import sqlite3

from wire.phrases import Phrase

log = logging.getLogger("hearth.errors")


class HearthError(Exception):
    """An error whose message is meant for the user as it is; ``details`` (folded under
    it where it is shown) says more, for the person who wants to know."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class AccessDenied(HearthError):
    """A hub refused: the repository is gated or private and needs an access token."""


def describe_error(exc: BaseException, doing: str, log_hint: str = "") -> str:
    """Log ``exc`` with its stack and return one human sentence about it.

    ``doing`` says what Hearth was trying to do ("loading the model"); ``log_hint`` names
    where the details went, for unexpected errors.  The sentence is a ``Phrase``, so a
    window can show it in its own language.
    """
    if isinstance(exc, HearthError):
        log.warning(
            "%s failed: %s%s",
            doing,
            exc.message,
            f" ({exc.details})" if exc.details else "",
            exc_info=exc,
        )
        return exc.message
    if is_disk_full(exc):
        log.error("%s failed: disk full", doing, exc_info=exc)
        return Phrase(
            "The disk is full, so Hearth could not finish {0}. Free some space and try "
            "again; nothing that was already saved has been lost.",
            doing,
        )
    if isinstance(exc, OSError) and exc.strerror:
        log.error("%s failed", doing, exc_info=exc)
        where = f" ({exc.filename})" if exc.filename else ""
        return Phrase("Hearth could not finish {0}: {1}{2}.", doing, exc.strerror, where)
    log.error("%s failed unexpectedly", doing, exc_info=exc)
    hint = Phrase(" Details are in {0}.", log_hint) if log_hint else ""
    return Phrase("Something went wrong while {0}: {1}.{2}", doing, exc, hint)


def is_disk_full(exc: BaseException) -> bool:
    """A full disk or quota, whether the OS or SQLite says it."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return True
    return isinstance(exc, sqlite3.OperationalError) and "full" in str(exc).lower()


def cannot_write_store(exc: BaseException) -> bool:
    """Whether ``exc`` says that a database cannot be written at all (a full disk, an I/O
    error, a read-only file): every next write would fail the same way, so the work stops
    with one sentence instead of failing item after item."""
    if is_disk_full(exc):
        return True
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and any(
        words in text for words in ("disk i/o error", "readonly database", "unable to open")
    )
