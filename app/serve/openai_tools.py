"""OpenAI's ``tools``, ``tool_choice`` and the tool parts of messages, as Hearth validates
them before anything reaches the engine."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_TOOLS = 128  # as OpenAI's API
NAME_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
# Ids are written into prompts (some templates print them as they are): letters, digits
# and a few marks only, so no id can carry a special token's text.
ID_PATTERN = r"^[A-Za-z0-9_.:-]{0,200}$"


class FunctionSpec(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=NAME_PATTERN)
    description: str | None = Field(default=None, max_length=100_000)
    parameters: dict[str, Any] | None = None


class ToolSpec(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["function"]
    function: FunctionSpec


class FunctionName(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=NAME_PATTERN)


class NamedToolChoice(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["function"]
    function: FunctionName


ToolChoice = Literal["none", "auto", "required"] | NamedToolChoice


class CalledFunction(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=NAME_PATTERN)
    arguments: str = Field(default="{}", max_length=1_000_000)  # JSON text, as OpenAI sends


class ToolCallIn(BaseModel):
    """An earlier tool call of the assistant, in the history."""

    model_config = ConfigDict(extra="ignore")
    id: str = Field(default="", pattern=ID_PATTERN)
    type: Literal["function"] = "function"
    function: CalledFunction


def choice_problem(tools: list[ToolSpec] | None, choice: ToolChoice | None) -> str | None:
    """Why a ``tool_choice`` cannot be met with these ``tools`` (None when it can)."""
    names = {tool.function.name for tool in tools or []}
    if isinstance(choice, NamedToolChoice) and choice.function.name not in names:
        return f"tool_choice names {choice.function.name!r}, which is not among the tools"
    if choice == "required" and not names:
        return "tool_choice 'required' needs tools"
    return None
