"""The System check screen: what Hearth found, each check explained, and a copyable report.

Probing starts a short subprocess (the engines are asked outside the UI process) and reads
model headers, so it runs on the thread pool; the screen fills in when it is done.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core import Core
from app.errors import describe_error
from app.machine.hardware import SystemFacts, probe_system
from app.machine.system_check import SYMBOL, Check, facts_lines, report_text, run_checks
from ui.background import run_in_background
from ui.error_banner import ErrorBanner
from ui.i18n import translated
from ui.theme import is_dark
from ui.visual import GOOD, NOTE, PROBLEM, WARNING, in_theme

# A check's colour (``ui/visual.py``).
COLOURS = {"ok": GOOD, "info": NOTE, "warning": WARNING, "problem": PROBLEM}


ENGINES_PAGE = "Settings › Engines"  # a check's advice that names it gets a button to it


class SystemScreen(QWidget):
    facts_ready = Signal(object)  # SystemFacts
    engines_requested = Signal()  # open Settings › Engines

    def __init__(
        self,
        core: Core,
        smallest_peak: Callable[[SystemFacts], int | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("systemScreen")
        self.core = core
        self.smallest_peak = smallest_peak
        self.facts: SystemFacts | None = None
        self.checks: list[Check] = []
        layout = QVBoxLayout(self)
        # A check that cannot finish says why here, where the user looks, with Retry.
        self.banner = ErrorBanner()
        layout.addWidget(self.banner)
        top = QHBoxLayout()
        self.status = QLabel(self.tr("Checking this machine…"))
        self.run_button = QPushButton(self.tr("Check again"))
        self.run_button.clicked.connect(self.run)
        self.copy_button = QPushButton(self.tr("Copy report"))
        self.copy_button.setToolTip(self.tr("Copy a plain-text report for a bug report"))
        self.copy_button.clicked.connect(self.copy_report)
        # The engines the check talks about are added and removed there.
        self.engines_button = QPushButton(self.tr("Engines…"))
        self.engines_button.setObjectName("enginesButton")
        self.engines_button.setToolTip(
            self.tr("Settings › Engines: install or remove the PyTorch engine and runtimes")
        )
        self.engines_button.clicked.connect(self.engines_requested)
        top.addWidget(self.status, 1)
        top.addWidget(self.engines_button)
        top.addWidget(self.run_button)
        top.addWidget(self.copy_button)
        layout.addLayout(top)
        self.tree = QTreeWidget()
        self.tree.setObjectName("checks")
        self.tree.setHeaderHidden(True)
        self.tree.setWordWrap(True)
        self.tree.setAccessibleName(self.tr("System checks"))
        layout.addWidget(self.tree, 2)
        # The raw facts are for whoever reads a bug report: said so above them, so that
        # their terms (bf16, swappiness) read as a technical appendix, not as advice.
        caption = QLabel(
            self.tr("Technical details, for bug reports (Copy report sends them in English):")
        )
        caption.setWordWrap(True)
        layout.addWidget(caption)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setAccessibleName(self.tr("Technical details"))
        layout.addWidget(self.details, 1)

    def run(self) -> None:
        self.banner.dismiss()
        self.run_button.setEnabled(False)
        self.status.setText(self.tr("Checking this machine…"))
        core = self.core

        def work() -> tuple[SystemFacts, list[Check]]:
            facts = probe_system(core.models_dir, engine_site=core.engine_site)
            return facts, run_checks(facts, self.smallest_peak(facts))

        run_in_background(self, work, self._show, self._failed)

    def _failed(self, exc: BaseException) -> None:
        """Log with the stack, then the sentence in this screen's banner."""
        self.run_button.setEnabled(True)
        self.status.setText(self.tr("The check could not finish."))
        sentence = describe_error(
            exc, self.tr("checking the system"), str(self.core.paths.logs_dir)
        )
        self.banner.show_message(translated(sentence), retry=self.run)

    def _show(self, result: tuple[SystemFacts, list[Check]]) -> None:
        facts, checks = result
        self.facts, self.checks = facts, checks
        self.run_button.setEnabled(True)
        problems = sum(1 for c in checks if c.status in ("problem", "warning"))
        self.status.setText(
            self.tr("Everything looks fine.")
            if not problems
            else self.tr("%n thing(s) need attention.", "", problems)
        )
        self.tree.clear()
        for check in checks:
            title, detail, action = (
                translated(t) for t in (check.title, check.detail, check.action)
            )
            item = QTreeWidgetItem([f"{SYMBOL[check.status]}  {title}"])
            item.setForeground(0, in_theme(COLOURS[check.status], is_dark()))
            item.setToolTip(0, detail)
            font = item.font(0)
            font.setBold(check.status in ("problem", "warning"))
            item.setFont(0, font)
            if detail:
                item.addChild(QTreeWidgetItem([detail]))
            if action:
                item.addChild(QTreeWidgetItem([self.tr("What to do: {0}").format(action)]))
            self.tree.addTopLevelItem(item)
            if ENGINES_PAGE in getattr(check.action, "template", check.action):
                self._engines_link(item)
            item.setExpanded(check.status in ("problem", "warning"))
        # In the window's language; Copy report stays in English for bug reports.
        self.details.setPlainText("\n".join(translated(line) for line in facts_lines(facts)))
        self.facts_ready.emit(facts)

    def _engines_link(self, item: QTreeWidgetItem) -> None:
        """A button under a check whose advice is Settings › Engines, that opens it."""
        holder = QTreeWidgetItem()
        item.addChild(holder)
        button = QPushButton(self.tr("Open Settings › Engines"))
        button.setObjectName("openEngines")
        button.clicked.connect(self.engines_requested)
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(button)
        layout.addStretch(1)
        self.tree.setItemWidget(holder, 0, row)

    def report_text(self) -> str:
        if self.facts is None:
            return ""
        return report_text(self.facts, self.checks)

    def copy_report(self) -> None:
        text = self.report_text()
        if text:
            QGuiApplication.clipboard().setText(text)
            self.status.setText(self.tr("Report copied to the clipboard."))
