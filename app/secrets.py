"""Access tokens, kept in the operating system's keyring and never in plain settings.

``HF_TOKEN`` / ``MODELSCOPE_API_TOKEN`` in the environment win (scripts, CI).  Without a
usable keyring (a headless Linux box), reading gives no token and saving says why.
"""

from __future__ import annotations

import logging
import os

from app.errors import HearthError
from wire.phrases import Phrase

log = logging.getLogger(__name__)
SERVICE = "Hearth"
# "serve": the key ``hearth serve`` requires (kept out of ``ps``: not on the command line)
ENV = {"hf": "HF_TOKEN", "modelscope": "MODELSCOPE_API_TOKEN", "serve": "HEARTH_SERVE_API_KEY"}


def get_token(source: str) -> str | None:
    env = os.environ.get(ENV.get(source, ""))
    if env:
        return env
    try:
        import keyring

        return keyring.get_password(SERVICE, source)
    except Exception:  # noqa: BLE001 - no keyring is a normal case
        log.info("no keyring available for the %s token", source)
        return None


def set_token(source: str, token: str) -> None:
    try:
        import keyring

        if token:
            keyring.set_password(SERVICE, source, token)
        else:
            keyring.delete_password(SERVICE, source)
    except Exception as exc:
        raise HearthError(
            Phrase(
                "Hearth could not store the token in the system keyring ({0}). Set {1} in "
                "the environment instead.",
                exc,
                ENV.get(source, "the token variable"),
            )
        ) from exc
