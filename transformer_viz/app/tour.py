"""Guided tours: stops that each reopen a view as a share link does, with a few sentences and a part of the page.

A tour is data (docs/user-guide.md#write-a-tour): the packaged ones are JSON files in tours/, and its rules are
tours/schema.json, defined there once; a stop's view is checked by the share link's own reader (share.parse_query),
and js/tour.js checks a tour read in the browser by the same rules (rules() hands them over). No gradio here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .. import i18n
from ..cleaning import MAX_CHARS
from ..errors import UserError
from .share import MAX_BRANCHES, TAB, parse_query

FOLDER = Path(__file__).with_name("tours")
SCHEMA = json.loads((FOLDER / "schema.json").read_text(encoding="utf-8"))
BUILTIN = "builtin"  # the tour the Tour button opens
HTML = re.compile(r"<\s*[a-zA-Z!/?]")  # the start of a tag, a comment or a declaration: a note is never HTML
URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//|^www\.", re.IGNORECASE)  # a web address where a name belongs
# The words js/tour.js shows around the stops, and the refusals it explains (with the tour's own texts: page_words)
WORDS = (
    *("tour-start", "tour-prev", "tour-next", "tour-close", "tour-own", "tour-note", "tour-point", "tour-add"),
    *("tour-remove", "tour-earlier", "tour-later", "tour-download", "tour-open", "tour-link", "tour-empty"),
    *("tour-refused", "err-tour-json", "err-tour-version", "err-tour-too-large", "err-tour-stops", "err-tour-stop"),
    *("err-tour-element", "err-tour-action", "err-tour-text", "err-tour-html", "err-tour-url", "err-tour-unknown"),
    *("err-tour-inline", "err-tour-link-too-long"),
)


def packaged_tours() -> dict[str, dict]:
    """Every tour shipped in tours/ (all but the schema), by its file's name, each checked."""
    files = sorted(p for p in FOLDER.glob("*.json") if p.name != "schema.json")
    return {p.stem: check_tour(p.read_bytes()) for p in files}


def rules() -> dict:
    """The tour's rules as js/tour.js reads them: the schema, and the share link's limits on a stop's view."""
    return dict(SCHEMA, link=dict(max_chars=MAX_CHARS, max_branches=MAX_BRANCHES, tab=TAB.pattern))


def page_words(tours: dict[str, dict]) -> dict[str, dict[str, str]]:
    """The panel's words and the `tours`' texts (their catalogue keys) in every language, for the browser to pick
    the visitor's as each stop opens."""
    keys = [*WORDS, *(key for tour in tours.values() for key in text_keys(tour))]
    return {lang: {key: i18n.template(key, lang) for key in keys} for lang in i18n.LANGUAGES}


def text_keys(tour: dict) -> list[str]:
    """The catalogue keys a tour's title and stops name."""
    texts = [tour.get("title", "")] + [stop.get("text", "") for stop in tour["stops"]]
    return [text for text in texts if re.fullmatch(SCHEMA["text_key"], text)]


def read_tour(name_or_path: str) -> dict:
    """A packaged tour by its name, or a tour file, checked."""
    packaged = packaged_tours()
    if name_or_path in packaged:
        return packaged[name_or_path]
    return check_tour(Path(name_or_path).read_bytes())


def lesson_stops(tour: dict, trace, lang: str) -> list[dict]:
    """The stops of `tour` on `trace`'s own translation (its sentence, no branch) for the lesson file
    (figures/lesson.py): the step, layer and head held to the trace, and the stop's text in `lang`."""
    stops = []
    for stop in tour["stops"]:
        view = stop["view"]
        if view["sentence"].strip() != trace.source_text.strip() or "branch" in view:
            continue
        head = str(view.get("head", "mean"))
        stops.append(
            dict(
                step=min(int(view.get("step", 0)), len(trace.target_ids) - 1),
                layer=min(int(view.get("layer", 0)), trace.n_layers - 1),
                head=head if head == "mean" or int(head) < trace.n_heads else "mean",
                text=i18n.text(stop["text"], lang) if "text" in stop else stop["note"],
            )
        )
    return stops


def check_tour(data: bytes | str) -> dict:
    """A tour file read and checked against the schema: the tour, or a UserError saying (by key) what is wrong."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > SCHEMA["max_bytes"]:
        raise UserError("err-tour-too-large", size=len(raw), limit=SCHEMA["max_bytes"])
    try:
        tour = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise UserError("err-tour-json") from None
    if not isinstance(tour, dict):
        raise UserError("err-tour-json")
    if tour.get("version") != SCHEMA["version"]:
        raise UserError("err-tour-version", version=tour.get("version"), expected=SCHEMA["version"])
    stops = tour.get("stops")
    if not isinstance(stops, list) or not 0 < len(stops) <= SCHEMA["max_stops"]:
        count = len(stops) if isinstance(stops, list) else 0
        raise UserError("err-tour-stops", count=count, limit=SCHEMA["max_stops"])
    if "title" in tour:
        check_text(0, tour["title"])
    for number, stop in enumerate(stops, start=1):
        check_stop(number, stop)
    return tour


def check_stop(number: int, stop) -> None:
    """One stop: its view as a share link's, its action, its text (a catalogue key or a plain note), its element."""
    if not isinstance(stop, dict) or set(stop) - {"view", "action", "text", "note", "point"}:
        raise UserError("err-tour-stop", stop=number, field="stop")
    check_view(number, stop.get("view"))
    if "action" in stop:
        check_action(number, stop["action"])
    if ("text" in stop) == ("note" in stop):  # one or the other
        raise UserError("err-tour-stop", stop=number, field="text")
    check_text(number, stop.get("text", stop.get("note")), key="text" in stop)
    point = stop.get("point")
    if isinstance(point, str) and URL.search(point):
        raise UserError("err-tour-url")
    if point not in SCHEMA["elements"]:
        raise UserError("err-tour-element", stop=number, element=str(point)[:64])


def check_view(number: int, view) -> None:
    """A stop's view is a share link's query: the link's reader (share.parse_query) must keep every value as it is."""
    if not isinstance(view, dict) or not view.get("sentence"):
        raise UserError("err-tour-stop", stop=number, field="sentence")
    for key, value in view.items():
        if key not in SCHEMA["view"] or isinstance(value, bool) or not isinstance(value, str | int):
            raise UserError("err-tour-stop", stop=number, field=str(key)[:64])
    query = {key: str(value) for key, value in view.items()}
    kept = parse_query(query)
    if "branch" in kept:
        kept["branch"] = ",".join(f"{step}:{token}" for step, token in kept["branch"])
    for key, value in query.items():
        if key not in kept or str(kept[key]) != value:
            raise UserError("err-tour-stop", stop=number, field=key)


def check_action(number: int, action) -> None:
    """A named action and exactly its settings (schema: "actions")."""
    settings = SCHEMA["actions"].get(action.get("name")) if isinstance(action, dict) else None
    if settings is None or set(action) != {"name", *settings}:
        raise UserError("err-tour-action", stop=number, action=str(action)[:64])
    for name, allowed in settings.items():
        value = action[name]
        fits = value in allowed if isinstance(allowed, list) else type(value) is int and value >= 0
        if not fits:
            raise UserError("err-tour-action", stop=number, action=action["name"])


def check_text(number: int, text, key: bool = False) -> None:
    """A catalogue key the English catalogue has (`key`), or a note of plain text within the length limit."""
    if key:
        if not (isinstance(text, str) and re.fullmatch(SCHEMA["text_key"], text)) or text not in i18n.CATALOGUES["en"]:
            raise UserError("err-tour-stop", stop=number, field="text")
        return
    if not isinstance(text, str) or len(text) > SCHEMA["max_text_chars"]:
        raise UserError("err-tour-text", stop=number, limit=SCHEMA["max_text_chars"])
    if HTML.search(text):
        raise UserError("err-tour-html", stop=number)
