"""Pieces the Models screen's panels share: tables, verdict cells, their words.

Their strings keep the "ModelsScreen" translation context they always had."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from app.machine.fit import Estimate
from ui.theme import is_dark
from ui.visual import GOOD, NOTE, PROBLEM, in_theme

SOURCE_NAMES = {
    "starter": QT_TRANSLATE_NOOP("ModelsScreen", "Bundled"),
    "models_dir": "Hearth",
    "added": QT_TRANSLATE_NOOP("ModelsScreen", "Added by you"),
    "file": QT_TRANSLATE_NOOP("ModelsScreen", "Opened file"),
}


def tr_models(text: object) -> str:
    return QCoreApplication.translate("ModelsScreen", str(text))


def make_table(headers: tuple[object, ...], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels([tr_models(h) for h in headers])
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    return table


RECOMMENDED_HERE = QT_TRANSLATE_NOOP("ModelsScreen", "Recommended for this machine")
RECOMMENDED = QT_TRANSLATE_NOOP("ModelsScreen", "Recommended")
VERDICT_WORDS = {
    "gpu": QT_TRANSLATE_NOOP("ModelsScreen", "fits on the GPU"),
    "partial": QT_TRANSLATE_NOOP("ModelsScreen", "partly on the GPU"),
    "cpu": QT_TRANSLATE_NOOP("ModelsScreen", "CPU and RAM"),
    "no": QT_TRANSLATE_NOOP("ModelsScreen", "will not fit"),
}
# A verdict's colour (``ui/visual.py``).  Running on the CPU is no warning: it is drawn
# as ordinary text.
VERDICT_COLOURS = {"gpu": GOOD, "partial": NOTE, "no": PROBLEM}


def verdict_colour(verdict: str) -> QColor | None:
    """The colour for ``verdict`` in the current theme; None for ordinary text."""
    colours = VERDICT_COLOURS.get(verdict)
    return None if colours is None else in_theme(colours, is_dark())


def verdict_words(result: Estimate) -> str:
    """The fit verdict in the window's language."""
    if result.verdict == "partial" and result.gpu_layers:
        return QCoreApplication.translate(
            "ModelsScreen", "partly on the GPU ({0} of {1} layers)"
        ).format(result.gpu_layers, result.n_layers)
    return tr_models(VERDICT_WORDS.get(result.verdict, result.verdict_text))


def speed_words(result: Estimate) -> str:
    rate = result.tokens_per_s
    if not rate:
        return ""
    if rate < 1:
        return QCoreApplication.translate("ModelsScreen", "under 1 token/s")
    return QCoreApplication.translate("ModelsScreen", "roughly {0} tokens/s").format(round(rate))


def verdict_cell(result: Estimate) -> QTableWidgetItem:
    text = verdict_words(result)
    if result.verdict != "no":
        text += f" · {result.total_bytes / 1e9:.1f} GB"
    cell = QTableWidgetItem(text)
    colour = verdict_colour(result.verdict)
    if colour is not None:
        cell.setForeground(colour)
    lines = [
        QCoreApplication.translate(
            "ModelsScreen",
            "Weights {0:.2f} GB, KV cache {1:.2f} GB, overhead {2:.2f} GB at {3} tokens of "
            "context.",
        ).format(
            result.weights_bytes / 1e9,
            result.kv_cache_bytes / 1e9,
            result.overhead_bytes / 1e9,
            result.n_ctx,
        )
    ]
    if speed_words(result):
        lines.append(
            QCoreApplication.translate("ModelsScreen", "Expected speed: {0}.").format(
                speed_words(result)
            )
        )
    lines.extend(result.notes)
    cell.setToolTip("\n".join(lines))
    return cell


def parameter_count(count: int | None) -> str:
    if not count:
        return ""
    if count >= 1e9:
        return f"{count / 1e9:.1f}B"
    if count >= 1e6:
        return f"{count / 1e6:.0f}M"
    return f"{count / 1e3:.1f}K"
