"""Key names to the fields of ``Input.dispatchKeyEvent`` (real key events, not synthetic ones).

A real key event runs the page's default action (Enter submits a form, Tab moves
focus), which a ``KeyboardEvent`` dispatched from script never does.
"""

from __future__ import annotations

from typing import Any

# key -> (code, windows virtual key code, text typed)
_SPECIAL: dict[str, tuple[str, int, str]] = {
    "Enter": ("Enter", 13, "\r"),
    "Tab": ("Tab", 9, ""),
    "Escape": ("Escape", 27, ""),
    "Backspace": ("Backspace", 8, ""),
    "Delete": ("Delete", 46, ""),
    "ArrowUp": ("ArrowUp", 38, ""),
    "ArrowDown": ("ArrowDown", 40, ""),
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "Home": ("Home", 36, ""),
    "End": ("End", 35, ""),
    "PageUp": ("PageUp", 33, ""),
    "PageDown": ("PageDown", 34, ""),
    " ": ("Space", 32, " "),
}
_ALIASES = {
    "Return": "Enter",
    "Esc": "Escape",
    "Space": " ",
    "Up": "ArrowUp",
    "Down": "ArrowDown",
    "Left": "ArrowLeft",
    "Right": "ArrowRight",
}


def key_events(key: str) -> list[dict[str, Any]]:
    """The keyDown and keyUp events for ``key`` (a key name or one character)."""
    key = _ALIASES.get(key, key)
    if key in _SPECIAL:
        code, vk, text = _SPECIAL[key]
    elif len(key) == 1:
        upper = key.upper()
        code = f"Key{upper}" if upper.isalpha() else (f"Digit{key}" if key.isdigit() else "")
        vk, text = ord(upper), key
    else:
        raise ValueError(f"unknown key `{key}`")
    base = {"key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
    down = {**base, "type": "keyDown" if text else "rawKeyDown"}
    if text:
        down |= {"text": text, "unmodifiedText": text}
    return [down, {**base, "type": "keyUp"}]
