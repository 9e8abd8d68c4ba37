"""Hearth's languages: English (the source) and Simplified Chinese.

Translations are Qt's own: ``.ts`` sources under ``resources/translations`` (edited with
Qt Linguist or by hand, refreshed from the code by ``make update-translations``) and
``.qm`` files compiled from them by ``make`` (``pyside6-lrelease``).  The language follows
the system locale unless the ``appearance.language`` setting names one; Qt's own strings
(standard buttons, file dialogs) come from the translations shipped with Qt.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from ui.resources import resources_dir
from wire.phrases import Phrase

log = logging.getLogger(__name__)

LANGUAGES = ("en", "zh_CN")
_installed: list[QTranslator] = []
_current = ["en"]  # the language installed now (for data that carries its own translations)


def current_language() -> str:
    return _current[0]


def translated(text: str) -> str:
    """``text`` in the window's language: a core ``Phrase`` from its translated template."""
    if not isinstance(text, Phrase):
        return text
    template = QCoreApplication.translate("Phrase", text.template)
    args = [translated(a) if isinstance(a, Phrase) else a for a in text.args]
    return template.format(*args) if args else template


def resolve_language(setting: str, system: str | None = None) -> str:
    """'en' or 'zh_CN' for a setting of 'system', 'en' or 'zh_CN'."""
    if setting in LANGUAGES:
        return setting
    name = system if system is not None else QLocale.system().name()
    return "zh_CN" if name.lower().startswith("zh") else "en"


def translation_file(language: str) -> str:
    return str(resources_dir() / "translations" / f"hearth_{language}.qm")


def install_translations(setting: str) -> str:
    """Load the chosen language into the application; returns the language used."""
    app = QCoreApplication.instance()
    language = resolve_language(setting)
    for translator in _installed:
        QCoreApplication.removeTranslator(translator)
    _installed.clear()
    _current[0] = "en"
    if app is None or language == "en":
        return "en"
    ours = QTranslator(app)
    if not ours.load(translation_file(language)):
        log.warning("no translation file for %s; Hearth stays in English", language)
        return "en"
    QCoreApplication.installTranslator(ours)
    _installed.append(ours)
    qt = QTranslator(app)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        QCoreApplication.installTranslator(qt)
        _installed.append(qt)
    _current[0] = language
    return language
