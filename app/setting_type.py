"""One setting's declaration: its key, type, default, range and words for people, and the
check of a value against them.  Apart from ``app/settings.py``, which declares every setting
with it (and keeps the file of values), so that the declarations have room to grow."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    key: str
    kind: type  # int, float, str or bool
    default: Any
    label: str
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    advanced: bool = False  # shown under "Advanced" in the dialog
    multiline: bool = False  # edited in a text box rather than a line
    internal: bool = False  # kept by Hearth itself, not shown in the dialog
    special: str = ""  # what the minimum means, shown in its place ("Automatic", "Off")
    empty: str = ""  # what an empty text means, shown greyed in the empty field
    folder: bool = False  # a folder: the dialog offers Browse

    def validate(self, value: Any) -> Any:
        """Return ``value`` converted to this setting's type; ValueError if it is not valid."""
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{self.key} must be true or false")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
                raise ValueError(f"{self.key} must be a whole number")
            value = int(value)
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{self.key} must be a number")
            value = float(value)
            if not math.isfinite(value):  # NaN passes every range check: refuse it by name
                raise ValueError(f"{self.key} must be a number")
        elif self.kind is str and not isinstance(value, str):
            raise ValueError(f"{self.key} must be text")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{self.key} must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"{self.key} must be at most {self.maximum}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.key} must be one of {', '.join(map(str, self.choices))}")
        return value
