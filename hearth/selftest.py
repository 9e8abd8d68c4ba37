"""``hearth --self-test``: prove that this installation can chat, end to end.

It starts the real window (offscreen unless a platform was chosen), lets it find and load
the default model in a real worker, sends a short prompt, waits for the streamed reply,
and checks that the reply was shown in the transcript and saved in the database.  It uses
a temporary data folder unless one was given, so it never touches the user's history.
Installers run it after installing.  Exit code 0 means every step passed.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.chat import store as st
from app.core import Core

PROMPT = "What is 2+2? Answer in one short sentence."
TIMEOUT_S = 180.0


class SelfTestFailure(Exception):
    pass


def run_self_test(core: Core) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QTimer, SignalInstance

    from ui.gui import dispose_window, make_application
    from ui.main_window import MainWindow

    started = time.perf_counter()
    make_application()
    window = MainWindow(core)
    window.show()
    result: dict[str, Any] = {}

    def wait_for(signal: SignalInstance, what: str, done: Callable[[], bool]) -> None:
        if done():
            return
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(int(TIMEOUT_S * 1000), loop.quit)
        loop.exec()
        if not done():
            raise SelfTestFailure(f"timed out waiting for {what}")

    def step(message: str) -> None:
        say(f"self-test: {message}")

    try:
        wait_for(window.models_ready, "the model list", lambda: bool(window.chat.model_bar.models))
        if window.chat.model_bar.model is None:
            raise SelfTestFailure(window.error_banner.message or "no usable model found")
        step(f"model {window.chat.model_bar.model.name} ({window.chat.model_bar.model.path})")
        if not window.chat.send(PROMPT):
            raise SelfTestFailure(window.error_banner.message or "the message could not be sent")
        window.reply_finished.connect(result.update)
        wait_for(window.reply_finished, "the reply", lambda: bool(result))
        if result.get("type") != "done":
            raise SelfTestFailure(f"the reply failed: {result.get('message', result)}")
        shown = window.chat.transcript.streamed_text
        if not shown.strip():
            raise SelfTestFailure("the reply streamed no text into the window")
        if "\ufffd" in shown:
            raise SelfTestFailure("the reply contains replacement characters")
        saved = window.store.message(int(result["message_id"]))
        if saved.content != shown:
            raise SelfTestFailure("the saved reply differs from the reply shown")
        if saved.status not in (st.COMPLETE, st.LENGTH):
            raise SelfTestFailure(f"the saved reply has status {saved.status!r}")
        if not window.store.integrity_ok():
            raise SelfTestFailure("the chat database failed its integrity check")
        speed = saved.stats.get("tokens_per_s")
        runtime = saved.stats.get("runtime")
        if not runtime:
            raise SelfTestFailure("the reply's stats do not name the llama.cpp runtime")
        preview = shown.strip()[:80]
        step(
            f"reply shown and saved ({len(shown)} characters, {speed} tok/s, llama.cpp "
            f"runtime {runtime}): {preview!r}"
        )
        leaked = sorted(m for m in ("torch", "transformers", "llama_cpp") if m in sys.modules)
        if leaked:
            raise SelfTestFailure(f"the window process imported {', '.join(leaked)}")
        code = window.chat.transcript.renderer.highlighted("x = 1\n", "python")
        if "<span" not in code:
            raise SelfTestFailure("code is not highlighted (Pygments' lexers are missing)")
        from PySide6.QtCore import QTranslator

        from ui.i18n import translation_file

        if not QTranslator().load(translation_file("zh_CN")):
            raise SelfTestFailure("the Chinese translation is missing")
        step("Markdown, code highlighting and the Chinese translation are there")
        check_documents(core.paths.data_dir)
        step("documents: HTML and DOCX read by the extraction process, indexed and found")
        check_pictures()
        step("pictures: PNG, JPEG, GIF, BMP and WebP decoded as a vision model reads them")
    except SelfTestFailure as exc:
        say(f"self-test FAILED: {exc}", error=True)
        dispose_window(window)
        return 1
    dispose_window(window)
    step(f"passed in {time.perf_counter() - started:.1f} s")
    return 0


REPORT_ENV = "HEARTH_SELF_TEST_REPORT"


def say(line: str, error: bool = False) -> None:
    """Print a line of the report, and append it to ``HEARTH_SELF_TEST_REPORT`` when set:
    the Windows app has no console, so an installer's check reads the file."""
    print(line, file=sys.stderr if error else sys.stdout, flush=True)
    report = os.environ.get(REPORT_ENV)
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


_DOCX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        'package/2006/content-types"><Default Extension="rels" ContentType="application/'
        'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
        'ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType='
        '"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        "</Types>"
    ),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
        'schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        'Target="word/document.xml"/></Relationships>'
    ),
    "word/document.xml": (
        '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.'
        'openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>The self-test '
        "kettle boils at ninety degrees.</w:t></w:r></w:p></w:body></w:document>"
    ),
}


def write_bare_docx(path: Path) -> None:
    """A DOCX of the three parts Word needs, without styles: python-docx then loads its own
    default styles from its templates, which a frozen build must carry."""
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        for name, text in _DOCX_PARTS.items():
            archive.writestr(name, text)


def check_pictures() -> None:
    """The decoders a vision model's pictures need are in this build (the bundle leaves
    Pillow's unused parts out): a small picture of each kind read is decoded."""
    import io

    from PIL import Image

    from backends.pictures import FORMATS, decode

    for kind in FORMATS:
        encoded = io.BytesIO()
        Image.new("RGB", (6, 4), (200, 30, 30)).save(encoded, kind)
        width, height, pixels = decode(encoded.getvalue())
        if (width, height, len(pixels)) != (6, 4, 72):
            raise SelfTestFailure(f"a {kind} picture decoded as {width}×{height}")


def check_documents(data_dir: Path) -> None:
    """The document reader works in this build: an HTML page and a DOCX (made here, by
    hand) are read by the extraction process, indexed, and found by a search."""
    from app.docs.library import Documents

    folder = data_dir / "self-test-documents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "page.html").write_text(
        "<html><body><h1>Ferries</h1><p>The self-test ferry leaves at noon.</p></body></html>",
        encoding="utf-8",
    )
    write_bare_docx(folder / "kettle.docx")
    documents = Documents(data_dir / "self-test-index")
    try:
        report = documents.add("self-test", [folder])
        if report.problems:
            problem = report.problems[0]
            raise SelfTestFailure(f"{Path(problem.path).name} was not read: {problem.reason}")
        for question, name in (("ferry noon", "page.html"), ("kettle ninety", "kettle.docx")):
            hits = documents.search(["self-test"], question, 1)
            if not hits or not hits[0].file.endswith(name):
                raise SelfTestFailure(f"the search did not find {name}")
    finally:
        documents.close()
