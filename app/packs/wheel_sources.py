"""Where each wheel of an engine may be fetched from, best first: the places a person
named (``--find-links`` folders or pages, an ``--index-url``), then the mirror settings,
then the lock's own address on PyPI or the PyTorch index.

Every place is only a source of bytes: a file is accepted only when its size and SHA-256
are the lock's (``app.packs.fetch``), so a mirror or a folder can be wrong, never
harmful.  A page (a find-links listing, a simple index's page for a project, PEP 503) is
read once per install, with a deadline and a size cap; one that cannot be read is left
out with a line in the log, and the next place is tried.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import httpx

from app.packs.pytorch_lock import Wheel

log = logging.getLogger(__name__)

PAGE_TIMEOUT_S = 15.0
PAGE_BYTES = 16 * 1024 * 1024
PYPI_FILES = "files.pythonhosted.org"
PYTORCH_INDEX = "https://download.pytorch.org/whl/"
# Offered on a Chinese locale (Settings › Engines), each a mirror of the whole index.
PYPI_MIRRORS = (
    "https://pypi.tuna.tsinghua.edu.cn/simple",
    "https://mirrors.aliyun.com/pypi/simple",
)
PYTORCH_MIRRORS = (
    "https://mirrors.aliyun.com/pytorch-wheels/",
    "https://mirror.sjtu.edu.cn/pytorch-wheels/",
)
_HREF = re.compile(r"""href\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


@dataclass
class Places:
    """What a person named, and the mirror settings."""

    find_links: Sequence[str] = ()  # folders, or pages that list wheel files
    index_url: str = ""  # a simple index (PEP 503) to take every wheel from
    pypi_mirror: str = ""  # a simple index that mirrors PyPI
    pytorch_mirror: str = ""  # a copy of the PyTorch index's folders (cpu/, cu130/…)
    _pages: dict[str, dict[str, str]] = field(default_factory=dict)  # url -> {file: href}

    def sources(self, wheel: Wheel) -> list[str]:
        """The places to fetch ``wheel`` from, best first (the lock's address last)."""
        found: list[str] = []
        for place in self.find_links:
            if "://" not in place or place.startswith("file://"):
                folder = Path(unquote(urlsplit(place).path) if "://" in place else place)
                if (folder / wheel.file).is_file():
                    found.append(str(folder / wheel.file))
            else:
                found += self._listed(place, wheel.file)
        if self.index_url:
            found += self._listed(_project_page(self.index_url, wheel.name), wheel.file)
        host = urlsplit(wheel.url).hostname or ""
        if self.pypi_mirror and host == PYPI_FILES:
            found += self._listed(_project_page(self.pypi_mirror, wheel.name), wheel.file)
        if self.pytorch_mirror and wheel.url.startswith(PYTORCH_INDEX):
            found.append(urljoin(_folder(self.pytorch_mirror), wheel.url[len(PYTORCH_INDEX) :]))
        found.append(wheel.url)
        return list(dict.fromkeys(found))

    def _listed(self, page: str, file: str) -> list[str]:
        """The address ``page`` gives for ``file`` (none when it lists no such file)."""
        if page not in self._pages:
            self._pages[page] = _read_page(page)
        href = self._pages[page].get(file)
        return [href] if href else []


def _project_page(index: str, name: str) -> str:
    """A project's page on a simple index: its normalized name (PEP 503)."""
    return f"{_folder(index)}{re.sub(r'[-_.]+', '-', name).lower()}/"


def _folder(url: str) -> str:
    return url if url.endswith("/") else url + "/"


def _read_page(page: str) -> dict[str, str]:
    """The wheel files a page links to, by file name, with their absolute addresses."""
    try:
        with httpx.stream("GET", page, timeout=PAGE_TIMEOUT_S, follow_redirects=True) as response:
            response.raise_for_status()
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > PAGE_BYTES:
                    raise ValueError(f"the page is larger than {PAGE_BYTES} bytes")
            base = str(response.url)
    except (httpx.HTTPError, ValueError) as exc:
        log.warning("could not read the wheel listing %s: %s", page, exc)
        return {}
    files: dict[str, str] = {}
    for href in _HREF.findall(body.decode("utf-8", errors="replace")):
        address = urljoin(base, href.split("#", 1)[0])
        name = unquote(urlsplit(address).path.rsplit("/", 1)[-1])
        if name.endswith(".whl"):
            files.setdefault(name, address)
    return files
