"""Hostile inputs built byte by byte, so that each test shows exactly what it feeds Hearth."""

from __future__ import annotations

import struct
from pathlib import Path

STRING, ARRAY, UINT32 = 8, 9, 4


def gguf_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def gguf_header(key_values: list[bytes], tensor_count: int = 0) -> bytes:
    """A GGUF v3 header holding the given raw key/value records and no tensors."""
    return b"GGUF" + struct.pack("<IQQ", 3, tensor_count, len(key_values)) + b"".join(key_values)


def nested_arrays(depth: int) -> bytes:
    """The value of a key: an array holding an array holding … ``depth`` deep."""
    head = struct.pack("<IQ", ARRAY, 1) * (depth - 1)
    return struct.pack("<I", ARRAY) + head + struct.pack("<IQ", UINT32, 0)


def many_empty_arrays(count: int) -> bytes:
    """The value of a key: an array of ``count`` empty arrays (cheap to write, slow to walk)."""
    return struct.pack("<IIQ", ARRAY, ARRAY, count) + struct.pack("<IQ", UINT32, 0) * count


def write_gguf(path: Path, *key_values: bytes, tensor_count: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gguf_header(list(key_values), tensor_count))
    return path


def key(name: str, value: bytes) -> bytes:
    """One key/value record; ``value`` starts with its type."""
    return gguf_string(name) + value
