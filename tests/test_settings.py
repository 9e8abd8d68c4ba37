"""One typed settings declaration, validated and migrated."""

import json
from pathlib import Path

import pytest

from app import settings as s
from app.settings import Settings


def test_defaults_come_from_the_declaration(tmp_path: Path) -> None:
    settings = Settings(tmp_path / "settings.json")
    for declaration in s.DECLARATIONS:
        assert settings.get(declaration.key) == declaration.default
        assert declaration.description and declaration.label


def test_values_are_validated_and_persisted(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings(path)
    settings.set("sampling.temperature", 0.2)
    with pytest.raises(ValueError, match="at most"):
        settings.set("sampling.temperature", 9)
    with pytest.raises(ValueError, match="whole number"):
        settings.set("engine.context_length", 10.5)
    assert Settings(path).get("sampling.temperature") == 0.2
    assert json.loads(path.read_text())["version"] == s.SCHEMA_VERSION


def test_invalid_values_on_disk_fall_back_to_defaults_and_say_so(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps({"version": 1, "values": {"sampling.temperature": "hot", "future.key": 3}})
    )
    settings = Settings(path)
    assert settings.get("sampling.temperature") == 0.7
    assert any("Temperature" in p for p in settings.problems)
    settings.save()
    assert json.loads(path.read_text())["values"]["future.key"] == 3  # kept for a newer Hearth


def test_a_damaged_file_is_moved_aside_not_lost(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{ not json")
    settings = Settings(path)
    assert settings.get("engine.context_length") == 4096
    assert settings.problems and any(tmp_path.glob("settings.json.damaged-*"))


def test_migrations_run_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def rename_key(values: dict) -> dict:
        values["sampling.temperature"] = values.pop("temperature")
        return values

    current = s.SCHEMA_VERSION
    monkeypatch.setattr(s, "SCHEMA_VERSION", current + 1)
    monkeypatch.setitem(s.MIGRATIONS, current, rename_key)
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": current, "values": {"temperature": 0.3}}))
    assert Settings(path).get("sampling.temperature") == 0.3


def test_a_memory_budget_set_before_version_2_is_kept_as_the_engines_setting(
    tmp_path: Path,
) -> None:
    """The memory budget moved from the API server's page to the Engines page (it governs
    every loaded model): a budget chosen before stays chosen, and the file is rewritten
    in the new version at the next change."""
    path = tmp_path / "settings.json"
    values = {"server.memory_budget_gb": 3.5, "sampling.temperature": 0.2}
    path.write_text(json.dumps({"version": 1, "values": values}))
    settings = Settings(path)
    assert settings.get("engine.memory_budget_gb") == 3.5
    assert settings.get("sampling.temperature") == 0.2
    settings.set("sampling.temperature", 0.3)
    written = json.loads(path.read_text())
    assert written["version"] == s.SCHEMA_VERSION == 2
    assert written["values"]["engine.memory_budget_gb"] == 3.5
    assert "server.memory_budget_gb" not in written["values"]
