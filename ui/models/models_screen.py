"""The Models screen: search a hub, open a repository, download, and manage the library.

Everything slow (searching, listing a repository's files, reading model headers) runs on
the thread pool through ``run_in_background``; downloads run in the download manager's
threads and are shown by ``DownloadsModel``, which polls on a timer.  Problems go to the
window's error banner through ``report``/``show_error``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core import Core
from app.errors import HearthError, describe_error
from app.hub import downloads as dl
from app.hub import huggingface
from app.hub.downloads import DownloadManager
from app.hub.huggingface import HubAccessError, RepoSummary
from app.hub.pull import list_repo
from app.hub.recommend import chat_ggufs, estimate_offers, recommend
from app.hub.repo_files import Offer, group_files, human_size
from app.hub.sources import HF, HF_MIRROR, MODELSCOPE, hf_endpoint, modelscope_endpoint
from app.machine.fit import Estimate
from app.machine.hardware import SystemFacts
from app.models.library import ModelEntry
from app.secrets import get_token
from ui.background import run_in_background
from ui.error_banner import ErrorBanner
from ui.i18n import translated
from ui.models.downloads_panel import DownloadsPanel
from ui.models.library_panel import LibraryPanel
from ui.models.tables import (
    RECOMMENDED,
    RECOMMENDED_HERE,
    make_table,
    tr_models,
    verdict_cell,
)

SOURCE_LABELS = {HF: "Hugging Face", MODELSCOPE: "ModelScope"}
MINE, DISCOVER = "mine", "discover"  # the screen's two views
SORT_LABELS = {
    "downloads": QT_TRANSLATE_NOOP("ModelsScreen", "Most downloaded"),
    "likes": QT_TRANSLATE_NOOP("ModelsScreen", "Most liked"),
    "recent": QT_TRANSLATE_NOOP("ModelsScreen", "Recently updated"),
}
KIND_LABELS = {
    "gguf": QT_TRANSLATE_NOOP("ModelsScreen", "GGUF (llama.cpp)"),
    "transformers": QT_TRANSLATE_NOOP("ModelsScreen", "Transformers checkpoints"),
}


class ModelsScreen(QWidget):
    chat_requested = Signal(object)  # a ModelEntry to chat with
    library_changed = Signal(list)  # the new list of ModelEntry
    search_finished = Signal()
    repo_opened = Signal()
    estimates_shown = Signal()

    def __init__(
        self,
        core: Core,
        manager: DownloadManager,
        ask_token: Callable[[str], bool] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("modelsScreen")
        self.core = core
        self.manager = manager
        # This screen's own problems are shown here, where the user is looking.
        self.banner = ErrorBanner()
        self._banner_view: str | None = None  # the view its message is about (None: both)
        self.report = self.report_here
        self.show_error = self.show_here
        self.ask_token = ask_token
        self.facts: SystemFacts | None = None
        self.offer_estimates: dict[int, Estimate] = {}
        self.library_estimates: dict[str, Estimate | str] = {}
        self.results: list[RepoSummary] = []
        self.offers: list[Offer] = []
        self.repo_id = ""
        self.repo_source = HF
        self.library: list[ModelEntry] = []
        # Searches Hearth's catalogue when a hub cannot be asked (set by the window: the
        # catalogue's cards show the matches); returns how many matched.
        self.catalog_search: Callable[[str], int] | None = None
        self._build()

    def report_here(
        self, exc: BaseException, doing: str, retry: Callable[[], None] | None = None
    ) -> None:
        """Log with the stack, then the sentence in this screen's banner."""
        sentence = describe_error(exc, doing, str(self.core.paths.logs_dir))
        self.banner.show_message(translated(sentence), retry)
        self._banner_view = None

    def show_here(self, message: str) -> None:
        self.banner.show_message(message)
        self._banner_view = None

    def say_in_discover(self, message: str, retry: Callable[[], None] | None = None) -> None:
        """A hub's answer (offline, not found, nothing matched): it is about Discover, so
        My models does not show it; back in Discover it is there again."""
        self.banner.show_message(message, retry)
        self._banner_view = DISCOVER
        self._place_banner()

    def _place_banner(self) -> None:
        if self._banner_view is not None and self.banner.message:
            self.banner.setVisible(self._banner_view == self.current_view())

    def suggest_for_region(self, language: str) -> None:
        """On a Chinese locale, start on ModelScope and offer a Hugging Face mirror,
        unless the user already chose an address for Hugging Face."""
        if language != "zh_CN":
            self.region_hint.hide()
            return
        self.source.setCurrentIndex(max(self.source.findData(MODELSCOPE), 0))
        mirror_set = bool(str(self.core.settings.get("hub.huggingface_endpoint")))
        self.mirror_button.setVisible(not mirror_set)
        self.region_hint.show()

    def use_mirror(self) -> None:
        try:
            self.core.settings.set("hub.huggingface_endpoint", HF_MIRROR)
        except (OSError, ValueError) as exc:
            self.report(exc, self.tr("saving the mirror address"))
            return
        self.mirror_button.hide()

    def show_catalog(self, panel: QWidget) -> None:
        """Hearth's catalogue in Discover, under the search row and above the hub's
        results: a search's catalogue matches (offline, or beside the hub's) then show
        right under the box the person just typed in, which stays in view."""
        layout = self.discover_page.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(self.region_hint) + 1, panel)

    # -- layout ------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        # Two views, as LM Studio and Jan have them: the user's own models, and finding more.
        switch = QHBoxLayout()
        self.mine_button = QPushButton(self.tr("My models"))
        self.mine_button.setObjectName("myModelsView")
        self.discover_button = QPushButton(self.tr("Discover"))
        self.discover_button.setObjectName("discoverView")
        self.view_buttons = QButtonGroup(self)
        for button in (self.mine_button, self.discover_button):
            button.setCheckable(True)
            self.view_buttons.addButton(button)
            switch.addWidget(button)
        switch.addStretch(1)
        self.mine_button.clicked.connect(lambda: self.show_view(MINE, chosen=True))
        self.discover_button.clicked.connect(lambda: self.show_view(DISCOVER, chosen=True))
        outer.addLayout(switch)
        outer.addWidget(self.banner)  # on top: said where the user looks, in either view
        self.views = QStackedWidget()
        outer.addWidget(self.views, 1)
        self.discover_page = QWidget()
        self.discover_page.setObjectName("discoverPage")
        layout = QVBoxLayout(self.discover_page)
        layout.setContentsMargins(0, 0, 0, 0)
        search_row = QHBoxLayout()
        self.source = QComboBox()
        self.source.setAccessibleName(self.tr("Source"))
        for key, label in SOURCE_LABELS.items():
            self.source.addItem(label, key)
        self.kind = QComboBox()
        self.kind.setAccessibleName(self.tr("Kind of model"))
        for kind, kind_label in KIND_LABELS.items():
            self.kind.addItem(tr_models(kind_label), kind)
        self.sort = QComboBox()
        self.sort.setAccessibleName(self.tr("Sort by"))
        for order, order_label in SORT_LABELS.items():
            self.sort.addItem(tr_models(order_label), order)
        self.query = QLineEdit()
        self.query.setAccessibleName(self.tr("Search models"))
        self.query.setObjectName("searchQuery")
        self.query.setPlaceholderText(
            self.tr("Search models, or type a repository id (owner/name)")
        )
        self.query.returnPressed.connect(self.search)
        self.search_button = QPushButton(self.tr("Search"))
        self.search_button.clicked.connect(self.search)
        self.open_button = QPushButton(self.tr("Open id"))
        self.open_button.setToolTip(self.tr("Open the repository typed in the box (owner/name)"))
        self.open_button.clicked.connect(lambda: self.open_repo(self.query.text().strip()))
        for widget in (self.source, self.kind, self.sort):
            search_row.addWidget(widget)
        search_row.addWidget(self.query, 1)
        search_row.addWidget(self.search_button)
        search_row.addWidget(self.open_button)
        layout.addLayout(search_row)
        self.busy_row = QWidget()
        busy = QHBoxLayout(self.busy_row)
        busy.setContentsMargins(0, 0, 0, 0)
        self.busy_label = QLabel("")
        self.busy_label.setObjectName("hubBusy")
        moving = QProgressBar()
        moving.setRange(0, 0)  # no end known: it moves
        moving.setMaximumWidth(160)
        moving.setMaximumHeight(10)
        busy.addWidget(self.busy_label)
        busy.addWidget(moving)
        busy.addStretch(1)
        self.busy_row.hide()
        layout.addWidget(self.busy_row)
        self.region_hint = QWidget()
        self.region_hint.setObjectName("regionHint")
        hint_row = QHBoxLayout(self.region_hint)
        hint_row.setContentsMargins(0, 0, 0, 0)
        self.region_label = QLabel(
            self.tr(
                "In mainland China, ModelScope (chosen above) or a Hugging Face mirror is "
                "usually much faster than huggingface.co."
            )
        )
        self.region_label.setWordWrap(True)
        self.mirror_button = QPushButton(self.tr("Use the hf-mirror.com mirror"))
        self.mirror_button.setToolTip(
            self.tr("Sets the Hugging Face address in Settings to https://hf-mirror.com")
        )
        self.mirror_button.clicked.connect(self.use_mirror)
        hint_row.addWidget(self.region_label, 1)
        hint_row.addWidget(self.mirror_button)
        self.region_hint.hide()
        layout.addWidget(self.region_hint)

        browse = QSplitter(Qt.Orientation.Horizontal)
        self.results_table = make_table(
            (
                QT_TRANSLATE_NOOP("ModelsScreen", "Repository"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Downloads"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Likes"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Updated"),
            ),
            "results",
        )
        self.results_table.setAccessibleName(self.tr("Search results"))
        self.results_table.itemSelectionChanged.connect(self._result_chosen)
        browse.addWidget(self.results_table)
        files_box = QWidget()
        files_layout = QVBoxLayout(files_box)
        files_layout.setContentsMargins(0, 0, 0, 0)
        self.repo_label = QLabel(self.tr("Open a repository to see what it offers."))
        self.repo_label.setWordWrap(True)
        self.offers_table = make_table(
            (
                QT_TRANSLATE_NOOP("ModelsScreen", "Choice"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Files"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Size"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Fits here?"),
                QT_TRANSLATE_NOOP("ModelsScreen", "Note"),
            ),
            "offers",
        )
        self.offers_table.setAccessibleName(self.tr("Files in this repository"))
        self.offers_table.itemSelectionChanged.connect(self._offer_chosen)
        self.download_button = QPushButton(self.tr("Download"))
        self.download_button.setObjectName("downloadButton")
        self.download_button.clicked.connect(self.download_selected)
        self.download_button.setEnabled(False)  # until a file of a repository is chosen
        files_layout.addWidget(self.repo_label)
        files_layout.addWidget(self.offers_table, 1)
        files_layout.addWidget(self.download_button)
        browse.addWidget(files_box)
        browse.setSizes([420, 520])

        self.downloads_panel = DownloadsPanel(self.manager, self.show_error, self.ask_token)
        self.library_panel = LibraryPanel(self.core, self.report, self.show_error)
        self.downloads_panel.completed.connect(lambda _path: self.library_panel.refresh())
        self.library_panel.chat_requested.connect(self.chat_requested)
        self.library_panel.library_changed.connect(self.library_changed)
        self.library_panel.estimates_shown.connect(self.estimates_shown)

        layout.addWidget(browse, 1)
        self.mine_page = QSplitter(Qt.Orientation.Vertical)
        self.mine_page.setObjectName("myModelsPage")
        self.mine_page.addWidget(self.library_panel)
        self.mine_page.addWidget(self.downloads_panel)
        self.mine_page.setSizes([400, 200])
        self.views.addWidget(self.mine_page)
        self.views.addWidget(self.discover_page)
        self._view_chosen = False  # the user picked a view: the start rule steps aside
        self.show_view(DISCOVER)
        self.downloads_panel.model.modelReset.connect(self._count_downloads)
        self.downloads_panel.model.dataChanged.connect(self._count_downloads)

    # -- the two views -----------------------------------------------------------------
    def show_view(self, view: str, chosen: bool = False) -> None:
        """My models (the library and downloads) or Discover (catalogue and hubs)."""
        self._view_chosen = self._view_chosen or chosen
        mine = view == MINE
        self.views.setCurrentWidget(self.mine_page if mine else self.discover_page)
        (self.mine_button if mine else self.discover_button).setChecked(True)
        for button in (self.mine_button, self.discover_button):  # the view shown, in bold
            font = button.font()
            font.setBold(button.isChecked())
            button.setFont(font)
        self._place_banner()

    def current_view(self) -> str:
        return MINE if self.views.currentWidget() is self.mine_page else DISCOVER

    def _count_downloads(self) -> None:
        """My models says how many downloads run, so a download started in Discover is
        seen without leaving it."""
        active = sum(1 for item in self.downloads_panel.model.items if item.state in dl.ACTIVE)
        self.mine_button.setText(
            self.tr("My models · {0} downloading").format(active)
            if active
            else self.tr("My models")
        )

    # -- searching ---------------------------------------------------------------------
    def search(self) -> None:
        text = self.query.text().strip()
        source = str(self.source.currentData())
        kind, sort = str(self.kind.currentData()), str(self.sort.currentData())
        core = self.core

        def work() -> list[RepoSummary]:
            if source == MODELSCOPE:
                from app.hub import modelscope

                return modelscope.search(
                    text,
                    sort=sort,
                    endpoint_url=modelscope_endpoint(core.settings),
                    token=get_token(MODELSCOPE),
                )
            return huggingface.search(
                text,
                kind=kind,
                sort=sort,
                endpoint_url=hf_endpoint(core.settings),
                token=get_token(HF),
            )

        self.search_button.setEnabled(False)
        self.banner.dismiss()
        self._set_busy(self.tr("Searching {0}…").format(SOURCE_LABELS[source]))
        run_in_background(self, work, self._show_results, self._search_failed)

    def _set_busy(self, words: str) -> None:
        """A search or a listing is in flight: say so, with a moving bar."""
        self.busy_label.setText(words)
        self.busy_row.setVisible(bool(words))

    def _search_failed(self, exc: BaseException) -> None:
        """The hub could not be asked: say so, and search Hearth's own catalogue instead
        (offline, its models are still worth finding; the welcome downloads them later)."""
        self.search_button.setEnabled(True)
        self._set_busy("")
        sentence = translated(
            describe_error(exc, self.tr("searching models"), str(self.core.paths.logs_dir))
        )
        query = self.query.text().strip()
        found = self.catalog_search(query) if self.catalog_search is not None and query else 0
        if found:
            sentence += " " + self.tr(
                "Meanwhile, {0} models of Hearth's catalogue match “{1}”: they are shown below."
            ).format(found, query)
        self.say_in_discover(sentence, self.search)
        self.search_finished.emit()

    def _show_results(self, results: list[RepoSummary]) -> None:
        if self.catalog_search is not None:
            self.catalog_search("")  # the hub answered: the catalogue's own view again
        self.search_button.setEnabled(True)
        self._set_busy("")
        self.results = results
        self.results_table.setRowCount(len(results))
        for row, summary in enumerate(results):
            values = (
                summary.repo_id
                + ("  🔒" if summary.gated else "")
                + (self.tr(" · reads images") if summary.reads_images else ""),
                f"{summary.downloads:,}",
                f"{summary.likes:,}",
                summary.last_modified[:10],
            )
            for column, value in enumerate(values):
                self.results_table.setItem(row, column, QTableWidgetItem(value))
        if not results:
            self.say_in_discover(self.tr("No models matched. Try other words, or another source."))
        self.search_finished.emit()

    def _result_chosen(self) -> None:
        rows = self.results_table.selectionModel().selectedRows()
        if rows:
            self.open_repo(self.results[rows[0].row()].repo_id)

    # -- one repository ------------------------------------------------------------------
    def open_repo(self, repo_id: str) -> None:
        if "/" not in repo_id:
            self.say_in_discover(self.tr("A repository id looks like owner/name."))
            return
        source = str(self.source.currentData())
        core = self.core
        self.repo_label.setText(self.tr("Opening {0}…").format(repo_id))
        self.banner.dismiss()
        self._set_busy(self.tr("Listing the files of {0}…").format(repo_id))
        run_in_background(
            self,
            lambda: group_files(list_repo(core.settings, repo_id, source)),
            lambda offers: self._show_offers(repo_id, source, offers),
            lambda exc: self._open_failed(repo_id, source, exc),
        )

    def _open_failed(self, repo_id: str, source: str, exc: BaseException) -> None:
        self._set_busy("")
        self.repo_label.setText(
            self.tr("Could not open {0} (the reason is above).").format(repo_id)
        )
        if (
            isinstance(exc, HubAccessError)
            and self.ask_token is not None
            and self.ask_token(source)
        ):
            self.open_repo(repo_id)  # again, with the token just given
            return
        doing = self.tr("opening the repository")
        sentence = describe_error(exc, doing, str(self.core.paths.logs_dir))
        self.say_in_discover(translated(sentence), lambda: self.open_repo(repo_id))
        self.repo_opened.emit()

    def _show_offers(self, repo_id: str, source: str, offers: list[Offer]) -> None:
        self._set_busy("")
        self.repo_id, self.repo_source, self.offers = repo_id, source, offers
        best = recommend(offers)
        self.repo_label.setText(
            f"<b>{repo_id}</b> on {SOURCE_LABELS[source]}"
            + ("" if offers else ": no GGUF files or transformers checkpoints here.")
        )
        self.offers_table.setRowCount(len(offers))
        for row, offer in enumerate(offers):
            note = offer.warning or (tr_models(RECOMMENDED) if offer is best else "")
            fits = "…" if self.facts is not None and offer.kind == "gguf" else ""
            label = offer.label + (self.tr(" · reads images") if offer.projector else "")
            values = (label, str(len(offer.files)), human_size(offer.size), fits, note)
            for column, value in enumerate(values):
                cell = QTableWidgetItem(value)
                if offer.warning:
                    cell.setToolTip(offer.warning)
                self.offers_table.setItem(row, column, cell)
        if best is not None:
            self.offers_table.selectRow(offers.index(best))
        self.repo_opened.emit()
        self._estimate_offers()

    # -- will it fit? ----------------------------------------------------------------
    def set_facts(self, facts: SystemFacts) -> None:
        """The system check finished: show verdicts for the library and the open repository."""
        self.facts = facts
        self.library_panel.set_facts(facts)
        self._estimate_offers()

    def _estimate_offers(self) -> None:
        facts, offers = self.facts, list(self.offers)
        if facts is None or not chat_ggufs(offers):
            return
        repo_id, source, core = self.repo_id, self.repo_source, self.core
        context = int(core.settings.get("engine.context_length"))

        def work() -> dict[int, Estimate]:
            return estimate_offers(core.settings, source, repo_id, offers, facts, context)

        def show(results: dict[int, Estimate]) -> None:
            if self.repo_id != repo_id:
                return  # another repository was opened meanwhile
            self.offer_estimates = results
            for row, result in results.items():
                self.offers_table.setItem(row, 3, verdict_cell(result))
            chosen = recommend(offers, results)
            best = offers.index(chosen) if chosen is not None else None
            if best is not None:
                for row in range(len(offers)):
                    note = self.offers_table.item(row, 4)
                    marks = (tr_models(RECOMMENDED), tr_models(RECOMMENDED_HERE))
                    if note is not None and note.text() in marks:
                        note.setText("")
                self.offers_table.setItem(best, 4, QTableWidgetItem(tr_models(RECOMMENDED_HERE)))
                self.offers_table.selectRow(best)
            self.estimates_shown.emit()

        doing = self.tr("estimating the memory of the files")

        def failed(exc: BaseException) -> None:
            for row in range(self.offers_table.rowCount()):
                cell = self.offers_table.item(row, 3)
                if cell is not None and cell.text() == "…":
                    cell.setText("?")
                    cell.setToolTip(translated(describe_error(exc, doing)))
            self.estimates_shown.emit()

        run_in_background(self, work, show, failed)

    def _offer_chosen(self) -> None:
        chosen = bool(self.offers and self.offers_table.selectionModel().selectedRows())
        self.download_button.setEnabled(chosen)

    def download_selected(self) -> None:
        rows = self.offers_table.selectionModel().selectedRows()
        if not rows or not self.offers:
            self.show_error(self.tr("Choose what to download first."))
            return
        offer = self.offers[rows[0].row()]
        self.download(offer)

    def download(self, offer: Offer) -> None:
        revision = "master" if self.repo_source == MODELSCOPE else "main"
        target = self.core.models_dir / self.repo_id
        try:
            for file in offer.files:
                self.manager.add(self.repo_source, self.repo_id, file, target, revision=revision)
        except HearthError as exc:
            self.report(exc, self.tr("starting the download"))
        self.downloads_panel.model.refresh()

    # -- the library ---------------------------------------------------------------------
    def show_library(self, models: list[ModelEntry]) -> None:
        self.library_panel.show_models(models)
        if not self._view_chosen and any(m.source != "starter" for m in models):
            self.show_view(MINE)  # models of the user's own: the screen opens on them
