"""What the commands share: exit codes, the reply settings a flag sets (their ranges from
the settings declaration), the model's advice, and how a note reaches the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wire.phrases import Phrase

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

# The reply settings a flag sets: (flag, argument, the setting it overrides).  Ranges come
# from the settings declaration.
REPLY_FLAGS = (
    ("--temperature", "temperature", "sampling.temperature"),
    ("--top-p", "top_p", "sampling.top_p"),
    ("--max-tokens", "max_tokens", "sampling.max_tokens"),
    ("--ctx", "ctx", "engine.context_length"),
    ("--seed", "seed", "sampling.seed"),
    ("--parallel", "parallel", "engine.parallel"),
)


def check_ranges(args: argparse.Namespace) -> None:
    from app.errors import HearthError
    from app.settings import BY_KEY

    for flag, name, key in REPLY_FLAGS:
        value = getattr(args, name, None)
        if value is None:
            continue
        try:
            BY_KEY[key].validate(value)
        except ValueError:
            low, high = BY_KEY[key].minimum, BY_KEY[key].maximum
            raise HearthError(
                Phrase(
                    "{0} must be between {1} and {2}, not {3}.", flag, num(low), num(high), value
                )
            ) from None


def num(value: float | None) -> str:
    """1.0 as "1", 0.5 as "0.5": limits as a person writes them."""
    return f"{value:g}" if value is not None else ""


def advice(entry: Any) -> dict[str, Any]:
    """What the model's authors recommend for sampling (as the window applies it)."""
    from app.chat.presets import recommended_sampling

    return recommended_sampling(entry)


def say_note(note: str) -> None:
    """What Hearth repaired on its own: said on stderr, the command goes on."""
    print(f"hearth: {note}", file=sys.stderr, flush=True)


def stdin_text() -> str:
    return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")


def server_key_and_source(args: argparse.Namespace) -> tuple[str, str]:
    """The key and where it comes from, in words for ``hearth serve``'s start line ("" for
    no key): the keyring's key applies to every ``hearth serve`` of this account, which
    surprised a person whose fresh data folder answered 401."""
    import os

    if args.api_key or args.api_key_file:
        return _flag_key(args), "--api-key" if args.api_key else "--api-key-file"
    from app.secrets import ENV, get_token

    key = get_token("serve") or ""
    if not key:
        return "", ""
    if os.environ.get(ENV["serve"]):
        return key, f"${ENV['serve']}"
    return key, (
        "the system keyring (made in the window's API server panel; it applies to every "
        "hearth serve of this account: --api-key-file chooses another)"
    )


def _flag_key(args: argparse.Namespace) -> str:
    from app.errors import HearthError
    from app.files import readable_by_others

    if args.api_key:
        return str(args.api_key)
    try:
        key = Path(args.api_key_file).expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise HearthError(
            Phrase("The API key file {0} cannot be read ({1}).", args.api_key_file, exc)
        ) from exc
    if not key:
        raise HearthError(Phrase("The API key file {0} is empty.", args.api_key_file))
    if readable_by_others(Path(args.api_key_file).expanduser()):
        say_note(
            f"the API key file {args.api_key_file} can be read by other users of this "
            f"computer: make it yours alone with: chmod 600 {args.api_key_file}"
        )
    return key
