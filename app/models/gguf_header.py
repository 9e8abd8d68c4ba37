"""Reading a GGUF file's header without loading its weights.

Why our own reader: the UI process must tell a valid model from a broken one (empty,
wrong magic, truncated download) before starting an engine, and later show a model's
facts, without importing an engine library or numpy.  We read the key/value metadata and
the tensor table with ``struct``, then check that the file is long enough to hold every
tensor.  Large arrays (the tokenizer vocabulary) are skipped, not kept.
"""

from __future__ import annotations

import math
import os
import stat
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

from wire.phrases import Phrase

MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32
MAX_STRING = 64 * 1024 * 1024
_LENGTH = struct.Struct("<Q")  # a string's length, before its bytes
MAX_COUNT = 100_000_000
KEEP_ARRAY_ITEMS = 64  # longer arrays (vocabularies) are skipped, only their length kept

# ggml tensor type -> (elements per block, bytes per block)
GGML_BLOCKS: dict[int, tuple[int, int]] = {
    0: (1, 4),
    1: (1, 2),
    2: (32, 18),
    3: (32, 20),
    6: (32, 22),
    7: (32, 24),
    8: (32, 34),
    9: (32, 40),
    10: (256, 84),
    11: (256, 110),
    12: (256, 144),
    13: (256, 176),
    14: (256, 210),
    15: (256, 292),
    16: (256, 66),
    17: (256, 74),
    18: (256, 98),
    19: (256, 50),
    20: (32, 18),
    21: (256, 110),
    22: (256, 82),
    23: (256, 136),
    24: (1, 1),
    25: (1, 2),
    26: (1, 4),
    27: (1, 8),
    28: (1, 8),
    29: (256, 56),
    30: (1, 2),
    34: (256, 54),
    35: (256, 66),
    39: (32, 17),
}

# GGUF value types
_UINT8, _INT8, _UINT16, _INT16, _UINT32, _INT32, _FLOAT32, _BOOL, _STRING, _ARRAY = range(10)
_UINT64, _INT64, _FLOAT64 = 10, 11, 12
_SCALARS = {
    _UINT8: "<B",
    _INT8: "<b",
    _UINT16: "<H",
    _INT16: "<h",
    _UINT32: "<I",
    _INT32: "<i",
    _FLOAT32: "<f",
    _BOOL: "<?",
    _UINT64: "<Q",
    _INT64: "<q",
    _FLOAT64: "<d",
}
# the fewest bytes one item of each kind takes in a file (a string: its 8-byte length;
# an array: its item kind and count)
_SMALLEST = {kind: struct.calcsize(fmt) for kind, fmt in _SCALARS.items()}
_SMALLEST[_STRING] = 8
_SMALLEST[_ARRAY] = 12
_SMALLEST_KEY_VALUE = 8 + 4 + 1  # key length, value kind, a one-byte value
_SMALLEST_TENSOR = 8 + 4 + 4 + 8  # name length, dimensions, type, offset


class GGUFError(ValueError):
    """Not a usable GGUF file; the message is a sentence for a person."""


@dataclass
class GGUFInfo:
    path: Path
    version: int
    metadata: dict[str, Any]
    tensor_count: int
    file_size: int
    data_size: int  # bytes of tensor data the header promises
    parameters: int = 0  # total number of weights
    array_lengths: dict[str, int] = field(default_factory=dict)
    layer_bytes: dict[int, int] = field(default_factory=dict)  # blk.N.* tensor bytes per layer
    other_bytes: int = 0  # embeddings, output head, norms outside the layers

    def number(self, key: str) -> int | None:
        """An integer fact of this architecture (``block_count``, ``attention.head_count``…)."""
        value = self.metadata.get(f"{self.architecture}.{key}")
        if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            return int(max(value))  # per-layer lists (e.g. head_count_kv on some models)
        if isinstance(value, float) and not math.isfinite(value):
            return None  # NaN or infinity from a crafted file: no number at all
        return (
            int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
        )

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", ""))

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name", ""))

    @property
    def context_length(self) -> int | None:
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if isinstance(value, int) else None

    @property
    def has_chat_template(self) -> bool:
        return bool(self.metadata.get("tokenizer.chat_template"))


class Limits(NamedTuple):
    """How much of a header Hearth is willing to read.  Real files stay far below each
    (a 256k-token vocabulary plus its merges is under a million strings, and no writer
    nests arrays); a crafted file meets one of them long before it costs a user time.
    Bounded by counts, never by a clock: a slow disk or a tracer makes a valid header
    slow, not invalid."""

    depth: int = 4  # arrays inside arrays
    strings: int = 3_000_000  # strings read one by one (keys, values, array items)
    nested_arrays: int = 100_000  # arrays that are items of other arrays
    tensors: int = 1_000_000
    header_bytes: int = 1024 * 1024 * 1024
    kept_bytes: int = 64 * 1024 * 1024  # text kept in memory (keys, templates, short lists)


LIMITS = Limits()
CHUNK = 1024 * 1024  # the header is read forward in pieces this large


class _Window:
    """The file read forward in ``CHUNK``-sized pieces, its position kept here: taking a
    string or skipping one is a slice, not a system call (a vocabulary of 150,000 tokens
    once cost 139,000 ``lseek`` calls through Python's buffered reader).  Only a skip past
    the piece in hand seeks, once."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.data = b""
        self.start = 0  # where ``data`` begins in the file
        self.at = 0  # the position in ``data``

    def tell(self) -> int:
        return self.start + self.at

    def read(self, count: int) -> bytes:
        end = self.at + count
        if end > len(self.data):
            more = self.file.read(max(CHUNK, count - (len(self.data) - self.at)))
            self.data, self.start = self.data[self.at :] + more, self.start + self.at
            self.at, end = 0, count
        taken = self.data[self.at : end]
        self.at = min(end, len(self.data))
        return taken

    def skip(self, count: int) -> None:
        ahead = count - (len(self.data) - self.at)
        if ahead <= 0:
            self.at += count
            return
        if ahead <= CHUNK:  # just past the piece in hand: read on rather than seek
            self.read(count)
            return
        target = self.tell() + count
        self.file.seek(target)
        self.data, self.start, self.at = b"", target, 0


class _Reader:
    """Reads values iteratively (never by recursion) and counts what it reads against
    ``Limits``: a header can be hostile, and the library must never hang or crash on one."""

    def __init__(self, file: IO[bytes], size: int, limits: Limits) -> None:
        self.stream, self.size, self.limits = _Window(file), size, limits
        self.strings = 0
        self.kept = 0
        self.nested_arrays = 0
        self._ticks = 0

    def take(self, count: int) -> bytes:
        data = self.stream.read(count)
        if len(data) != count:
            raise _truncated()
        return data

    def scalar(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def remaining(self) -> int:
        return self.size - self.stream.tell()

    def count(self, smallest_item: int) -> int:
        """A count of items that each take at least ``smallest_item`` bytes: a count the
        rest of the file cannot hold is refused before anything is read."""
        value = int(self.scalar("<Q"))
        if value > MAX_COUNT:
            raise GGUFError(Phrase("the header claims an impossible number of entries"))
        if value * smallest_item > self.remaining():
            raise _truncated()
        return value

    def _count_strings(self, count: int) -> None:
        self.strings += count
        if self.strings > self.limits.strings:
            raise GGUFError(Phrase("the header holds more strings than any model has"))

    def _string_length(self, counted: bool = False) -> int:
        if not counted:
            self._count_strings(1)
        self.tick()
        length = int(self.scalar("<Q"))
        if length > MAX_STRING or length > self.remaining():
            raise _long_string()
        if self.stream.tell() + length > self.limits.header_bytes:
            raise _too_large()
        return length

    def string(self) -> str:
        length = self._string_length()
        self.kept += length
        if self.kept > self.limits.kept_bytes:
            raise GGUFError(Phrase("the header holds more text than any model's"))
        return self.take(length).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        self.stream.skip(self._string_length())

    def skip_strings(self, count: int) -> None:
        """``count`` strings passed over in one tight loop through the piece in hand: a
        vocabulary and its merges (100,000 strings for the starter model) passed one call
        chain per string took half a second of Python in every process that described
        the model.  Counted and bounded as strings taken one by one."""
        self._count_strings(count)
        window, unpack = self.stream, _LENGTH.unpack_from
        while count:
            data, at = window.data, window.at
            end = len(data) - 8
            while count and at <= end:
                (length,) = unpack(data, at)
                if length > MAX_STRING:
                    raise _long_string()
                after = at + 8 + length
                if after > end + 8:
                    break  # the string goes on past the piece in hand
                at, count = after, count - 1
            window.at = at
            if window.tell() > self.limits.header_bytes:
                raise _too_large()
            if count:  # across the piece's end: one the careful way, which reads on
                self.stream.skip(self._string_length(counted=True))
                count -= 1

    def tick(self) -> None:
        """Checked every few hundred items: a header past ``header_bytes`` is refused."""
        self._ticks += 1
        if self._ticks & 0xFF == 0 and self.stream.tell() > self.limits.header_bytes:
            raise _too_large()

    def value(self, kind: int) -> tuple[Any, int | None]:
        """One value; for arrays also their length (long arrays come back as None)."""
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind]), None
        if kind == _STRING:
            return self.string(), None
        if kind == _ARRAY:
            item_kind, length = self.array_head()
            return self.array(item_kind, length, keep=length <= KEEP_ARRAY_ITEMS), length
        raise _unknown(kind)

    def array_head(self) -> tuple[int, int]:
        item_kind = int(self.scalar("<I"))
        smallest = _SMALLEST.get(item_kind)
        if smallest is None:
            raise _unknown(item_kind)
        return item_kind, self.count(smallest)

    def array(self, item_kind: int, length: int, keep: bool) -> list[Any] | None:
        """The items of one array, read with an explicit stack.  Kept arrays (short ones)
        come back as lists; long ones are skipped (scalars in one seek) and give None."""
        root: list[Any] | None = [] if keep else None
        # each frame: [items kept or None, item kind, items left]
        stack: list[list[Any]] = [[root, item_kind, length]]
        while stack:
            frame = stack[-1]
            items, kind, left = frame
            if left == 0:
                stack.pop()
                continue
            if kind in _SCALARS and items is None:
                skipped = struct.calcsize(_SCALARS[kind]) * left
                if self.stream.tell() + skipped > self.size:
                    raise _truncated()
                self.stream.skip(skipped)
                frame[2] = 0
                continue
            if kind == _STRING and items is None:
                self.skip_strings(left)
                frame[2] = 0
                continue
            frame[2] = left - 1
            if kind in _SCALARS:
                items.append(self.scalar(_SCALARS[kind]))
            elif kind == _STRING:
                if items is None:
                    self.skip_string()
                else:
                    items.append(self.string())
            else:  # an array inside this array
                self.nested_arrays += 1
                if self.nested_arrays > self.limits.nested_arrays:
                    raise GGUFError(Phrase("the header holds more nested lists than any model"))
                if len(stack) >= self.limits.depth:
                    raise GGUFError(Phrase("the header nests lists too deeply"))
                self.tick()
                inner_kind, inner_length = self.array_head()
                inner: list[Any] | None = None
                if items is not None and inner_length <= KEEP_ARRAY_ITEMS:
                    inner = []
                if items is not None:
                    items.append(inner)
                stack.append([inner, inner_kind, inner_length])
        return root


def _long_string() -> GGUFError:
    return GGUFError(Phrase("the header holds an impossibly long string"))


def _too_large() -> GGUFError:
    return GGUFError(Phrase("its header is larger than any model's"))


def _truncated() -> GGUFError:
    return GGUFError(Phrase("the file ends in the middle of its header (an incomplete download?)"))


def _unknown(kind: int) -> GGUFError:
    return GGUFError(Phrase("the header uses an unknown value type ({0})", kind))


_CACHE: dict[tuple[str, int, int, bool, Limits], GGUFInfo | GGUFError] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 64


def read_gguf(
    path: str | os.PathLike[str], check_data: bool = True, limits: Limits = LIMITS
) -> GGUFInfo:
    """Read and check a GGUF header; raise GGUFError saying what is wrong.

    ``check_data=False`` accepts a file that holds only the header (the first megabytes of
    a remote file, fetched to estimate memory before downloading it).

    Headers (and what was wrong with them) are remembered by path, size and modification
    time: the library, the memory estimate and the sampling advice all read the same files,
    and parsing a header with a large vocabulary takes tens of milliseconds of Python (which
    also holds up the window's thread).  Callers must not change the returned ``GGUFInfo``.
    """
    path = Path(path)
    try:
        facts = path.stat()
    except FileNotFoundError as exc:
        raise GGUFError(Phrase("{0} does not exist", path.name)) from exc
    except OSError as exc:
        raise GGUFError(Phrase("{0} cannot be read ({1})", path.name, exc.strerror)) from exc
    if not stat.S_ISREG(facts.st_mode):
        # a FIFO, a device or a socket would block or never end: only files are models
        raise GGUFError(Phrase("{0} is not a regular file", path.name))
    key = (str(path.resolve()), facts.st_size, facts.st_mtime_ns, check_data, limits)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if isinstance(cached, GGUFError):
        raise GGUFError(*cached.args)
    if cached is not None:
        return cached
    info: GGUFInfo | GGUFError
    try:
        info = _read_gguf(path, check_data, limits)
    except GGUFError as exc:
        if isinstance(exc.__cause__, OSError):
            raise  # cannot be read now (permissions, too many open files): ask again later
        info = exc  # a bad file is not read again until it changes
    except (struct.error, OverflowError, MemoryError, RecursionError) as exc:
        # the reader bounds what it reads; this is the last line should a case slip past
        info = GGUFError(Phrase("{0} has a damaged header", path.name))
        info.__cause__ = exc
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = info
    if isinstance(info, GGUFError):
        raise GGUFError(*info.args) from info.__cause__
    return info


def _read_gguf(path: Path, check_data: bool, limits: Limits) -> GGUFInfo:
    try:
        size = path.stat().st_size
        stream = path.open("rb")
    except FileNotFoundError as exc:
        raise GGUFError(Phrase("{0} does not exist", path.name)) from exc
    except OSError as exc:
        raise GGUFError(Phrase("{0} cannot be read ({1})", path.name, exc.strerror)) from exc
    with stream:
        if size == 0:
            raise GGUFError(Phrase("{0} is empty", path.name))
        reader = _Reader(stream, size, limits)
        magic = reader.stream.read(4)
        if magic != MAGIC:
            raise GGUFError(Phrase("{0} is not a GGUF model file", path.name))
        version = int(reader.scalar("<I"))
        if version not in SUPPORTED_VERSIONS:
            raise GGUFError(
                Phrase("{0} uses GGUF version {1}, which is not supported", path.name, version)
            )
        tensor_count = reader.count(_SMALLEST_TENSOR)
        kv_count = reader.count(_SMALLEST_KEY_VALUE)
        if tensor_count > limits.tensors:
            raise GGUFError(Phrase("{0} claims more tensors than any model has", path.name))
        metadata: dict[str, Any] = {}
        lengths: dict[str, int] = {}
        for _ in range(kv_count):
            key = reader.string()
            value, length = reader.value(int(reader.scalar("<I")))
            if length is not None:
                lengths[key] = length
            if value is not None:
                metadata[key] = value
        data_end = 0
        parameters = 0
        layer_bytes: dict[int, int] = {}
        other_bytes = 0
        for _ in range(tensor_count):
            reader.tick()
            tensor_name = reader.string()
            n_dims = int(reader.scalar("<I"))
            if n_dims > 8:
                raise GGUFError(Phrase("{0} has a damaged tensor table", path.name))
            elements = 1
            for _ in range(n_dims):
                elements *= int(reader.scalar("<Q"))
            parameters += elements
            kind = int(reader.scalar("<I"))
            offset = int(reader.scalar("<Q"))
            block = GGML_BLOCKS.get(kind)
            nbytes = (elements // block[0]) * block[1] if block else 0
            data_end = max(data_end, offset + nbytes)
            layer = _layer_of(tensor_name)
            if layer is None:
                other_bytes += nbytes
            else:
                layer_bytes[layer] = layer_bytes.get(layer, 0) + nbytes
        alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
        if not isinstance(alignment, int) or alignment <= 0:
            alignment = DEFAULT_ALIGNMENT
        header_end = reader.stream.tell()
        data_start = (header_end + alignment - 1) // alignment * alignment
    if check_data and data_start + data_end > size:
        missing = data_start + data_end - size
        raise GGUFError(
            Phrase(
                "{0} is truncated: {1:,} bytes of model data are missing (an incomplete download?)",
                path.name,
                missing,
            )
        )
    return GGUFInfo(
        path,
        version,
        metadata,
        tensor_count,
        size,
        data_end,
        parameters,
        lengths,
        layer_bytes,
        other_bytes,
    )


def _layer_of(tensor_name: str) -> int | None:
    if tensor_name.startswith("blk."):
        number = tensor_name.split(".", 2)[1]
        if number.isdigit():
            return int(number)
    return None
