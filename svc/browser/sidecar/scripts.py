"""JavaScript evaluated in the page: element snapshots, element lookups, form submits.

Element ids are a DOM attribute (``data-svc-browser-id``) set on first sight and
kept, so the same node has the same id in every snapshot of the page.
"""

from __future__ import annotations

import json

ID_ATTRIBUTE = "data-svc-browser-id"

SNAPSHOT = """
(maxElements) => {
  const ATTR = "__ATTR__";
  const query = "a, button, input, textarea, select, [role], [tabindex], "
      + "[contenteditable='true']";
  const newId = () => "sb-" + Array.from({length: 8},
      () => "0123456789abcdefghijklmnopqrstuvwxyz"[Math.floor(Math.random() * 36)]).join("");
  const squash = (s) => (s || "").replace(/\\s+/g, " ").trim();
  const hint = (el) => {
    const tag = el.tagName.toLowerCase();
    if (el.id) return "#" + CSS.escape(el.id);
    for (const name of ["name", "type", "role"]) {
      const v = el.getAttribute(name);
      if (v) return `${tag}[${name}="${v.replace(/"/g, '\\\\"')}"]`;
    }
    return tag;
  };
  const elements = [];
  for (const el of document.querySelectorAll(query)) {
    if (elements.length >= maxElements) break;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility === "hidden" || style.display === "none") continue;
    if (box.width <= 0 || box.height <= 0) continue;
    let id = el.getAttribute(ATTR);
    if (!id) { id = newId(); el.setAttribute(ATTR, id); }
    const tag = el.tagName;
    const role = el.getAttribute("role") || (tag === "A" ? "link" : tag === "BUTTON" ? "button"
        : tag === "INPUT" ? (el.type || "text") : tag === "TEXTAREA" ? "textbox"
        : tag === "SELECT" ? "combobox" : null);
    const text = squash(el.innerText || el.textContent).slice(0, 240) || null;
    const checkable = tag === "INPUT" && (el.type === "checkbox" || el.type === "radio");
    elements.push({
      element_id: id,
      role,
      name: el.getAttribute("aria-label") || el.getAttribute("name")
          || el.getAttribute("placeholder") || text,
      text,
      selector_hint: hint(el),
      visible: true,
      enabled: !el.disabled,
      editable: el.isContentEditable || tag === "INPUT" || tag === "TEXTAREA",
      checked: checkable ? !!el.checked : null,
      bounds: {x: Math.round(box.x), y: Math.round(box.y),
               width: Math.round(box.width), height: Math.round(box.height)},
    });
  }
  return {url: location.href, title: document.title, load_state: document.readyState,
          elements};
}
""".replace("__ATTR__", ID_ATTRIBUTE)

# Scrolls the element into view and returns the centre of its box (or null).
CENTRE = """
(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  el.scrollIntoView({block: "center", inline: "center"});
  const box = el.getBoundingClientRect();
  return {x: box.x + box.width / 2, y: box.y + box.height / 2};
}
"""

CLEAR = """
(selector) => {
  const el = document.querySelector(selector);
  if (!el) return false;
  if ("value" in el) el.value = ""; else el.textContent = "";
  el.dispatchEvent(new Event("input", {bubbles: true}));
  return true;
}
"""

SUBMIT = """
(selector) => {
  const el = document.querySelector(selector);
  if (!el) return false;
  const form = el.form || el.closest("form");
  if (form) { if (form.requestSubmit) form.requestSubmit(); else form.submit(); return true; }
  for (const type of ["keydown", "keyup"])
    el.dispatchEvent(new KeyboardEvent(type, {key: "Enter", bubbles: true}));
  return true;
}
"""

EXISTS = "(selector) => document.querySelector(selector) !== null"
BODY_TEXT = "() => document.body ? document.body.innerText : ''"
OUTER_HTML = "() => document.documentElement ? document.documentElement.outerHTML : ''"
LOCATION = "() => ({url: location.href, title: document.title, ready: document.readyState})"


def call(function: str, *args: object) -> str:
    """An expression applying ``function`` to JSON-encoded ``args``."""
    return f"({function})({', '.join(json.dumps(a) for a in args)})"


def element_selector(element_id: str) -> str:
    return f'[{ID_ATTRIBUTE}="{element_id}"]'
