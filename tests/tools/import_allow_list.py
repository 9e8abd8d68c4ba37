"""An import-linter contract type that says what a room *may* import (an allow-list).

import-linter's own contracts forbid named modules; a room's rules read better and stay
true as the code grows when they list what is allowed instead: anything else, a new
dependency included, breaks the contract until someone decides it belongs.  The standard
library is always allowed, and so is the room itself.

Registered in ``pyproject.toml`` as the contract type ``allowed``::

    [[tool.importlinter.contracts]]
    type = "allowed"
    source_modules = ["app"]
    allowed_modules = ["wire", "httpx"]
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


@dataclass(frozen=True)
class _Illegal:
    importer: str
    imported: str
    lines: tuple[int, ...]


def _within(module: str, packages: set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


class AllowedImportsContract(Contract):
    """``source_modules`` (and everything in them) import only ``allowed_modules`` (packages,
    internal or external), ``allowed_exactly`` (single modules), themselves and the standard
    library."""

    type_name = "allowed"

    source_modules = fields.ListField(subfield=fields.StringField())
    allowed_modules = fields.ListField(subfield=fields.StringField(), required=False)
    # Modules allowed on their own, without what is inside them (``app`` for its version).
    allowed_exactly = fields.ListField(subfield=fields.StringField(), required=False)

    @staticmethod
    def _names(field: object) -> list[str]:
        """A list field's value (import-linter fills the fields in on the instance)."""
        return [str(name) for name in field] if isinstance(field, list) else []

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        sources = set(self._names(self.source_modules))
        allowed = sources | set(self._names(self.allowed_modules))
        exactly = set(self._names(self.allowed_exactly))
        illegal: list[_Illegal] = []
        for source in sorted(sources):
            for importer in sorted(graph.find_descendants(source) | {source}):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if imported.split(".")[0] in sys.stdlib_module_names:
                        continue
                    if _within(imported, allowed) or imported in exactly:
                        continue
                    details = graph.get_import_details(importer=importer, imported=imported)
                    lines = tuple(sorted(d["line_number"] for d in details))
                    illegal.append(_Illegal(importer, imported, lines))
        return ContractCheck(kept=not illegal, metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        allowed = ", ".join(sorted(self._names(self.allowed_modules))) or "nothing"
        output.print_error(f"Only the standard library and {allowed} may be imported:", bold=False)
        output.new_line()
        for item in check.metadata["illegal"]:
            lines = ", ".join(map(str, item.lines))
            output.print_error(f"- {item.importer} -> {item.imported} (l.{lines})", bold=False)
            output.new_line()
