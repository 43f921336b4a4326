"""``question``: ask the user and wait for the answer (interactive sessions only)."""

from __future__ import annotations

from typing import Any

from ...errors import ValidationFailed
from ..types import ToolContext, ToolFailed, ToolResult
from .base import BuiltinTool

_OPTION_SCHEMA = {
    "type": ["string", "object"],
    "properties": {"label": {"type": "string", "minLength": 1}, "description": {"type": "string"}},
    "required": ["label"],
    "additionalProperties": False,
}
_QUESTION_SCHEMA = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "minLength": 1, "description": "The question to ask."},
        "header": {"type": "string", "description": "A short title for the question."},
        "options": {
            "type": "array",
            "items": _OPTION_SCHEMA,
            "description": "Choices: strings or {label, description}.",
        },
        "multiple": {"type": "boolean", "description": "Allow several choices (default false)."},
        "custom": {
            "type": "boolean",
            "description": "Allow a free-text answer (default: only without options).",
        },
    },
    "required": ["question"],
    "additionalProperties": False,
}


def normalize_questions(args: dict[str, Any]) -> list[dict[str, Any]]:
    """The wire shape of ``GET /question`` entries.

    Header, question, options ``[{label, description}]`` and flags.
    """
    raw = args.get("questions")
    if raw is None:
        if "question" not in args:
            raise ValidationFailed("args.questions is required", field="args.questions")
        raw = [{"question": args["question"]}]
    elif "question" in args:
        raise ValidationFailed(
            "pass either args.questions or args.question, not both", field="args.question"
        )
    questions: list[dict[str, Any]] = []
    for item in raw:
        options = [
            {"label": o, "description": ""}
            if isinstance(o, str)
            else {"label": o["label"], "description": o.get("description", "")}
            for o in item.get("options") or []
        ]
        questions.append(
            {
                "header": item.get("header") or "Question",
                "question": item["question"],
                "options": options,
                "multiple": bool(item.get("multiple", False)),
                # Without options the only possible answer is free text.
                "custom": bool(item.get("custom", not options)),
            }
        )
    return questions


class QuestionTool(BuiltinTool):
    name = "question"
    bounds_itself = True
    description = (
        "Ask the user one or more questions and wait for the answers. Each question may offer "
        "`options` (strings or {label, description}), allow `multiple` choices and a `custom` "
        "free-text answer. Only available in interactive sessions."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "questions": {"type": "array", "minItems": 1, "items": _QUESTION_SCHEMA},
            "question": {
                "type": "string",
                "minLength": 1,
                "description": "Shorthand for one free-text question.",
            },
        },
        "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        questions = normalize_questions(args)
        if ctx.ask_question is None or not ctx.interactive:
            raise ToolFailed("question needs an interactive session")
        answers = [list(a) for a in await ctx.ask_question(questions)]
        lines: list[str] = []
        for index, question in enumerate(questions):
            answer = answers[index] if index < len(answers) else []
            lines.append(f"Q: {question['question']}")
            lines.append(f"A: {', '.join(answer) if answer else '(no answer)'}")
        return ToolResult("\n".join(lines), {"answers": answers, "questions": questions})


__all__ = ["QuestionTool", "normalize_questions"]
