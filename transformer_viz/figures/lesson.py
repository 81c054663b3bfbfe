"""A lesson that needs no server: one self-contained HTML file that steps through a translation.

The file holds Plotly's JavaScript (from the installed `plotly` package), the lesson's frames (the main map,
cross-attention, and the top-k chart at every step, with the step line, the token strip and the step's text
alternative for a screen reader: alt.py) and their variants
(every other layer and head, as changes to the frames' figures: changes.step_changes), and the page's own stepping
module (js/stepping.js), driven by js/lesson-file.js, with the presenter's keys (js/keys.js). Opened
from a disk, offline, on any laptop, or embedded in a course page, it steps, plays, switches layer and head, and
answers a click on a token and the keys.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import plotly.offline

from .. import i18n
from ..js import inline_scripts
from ..trace import Trace
from . import attention, steps
from .alt import step_alt
from .changes import frame_key, step_changes
from .guess import GUESS_CSS, GUESS_PANEL, guess_data, guess_switch
from .keys import KEYS_CSS, keys_help
from .payload import Frames, Variants
from .strip import token_strip
from .style import figure_json, piece_label
from .words import language

# The page's browser modules that the lesson file runs too (transformer_viz/js: one folder for both).
JS_FILES = ("stepping.js", "keys.js", "tour.js", "guess.js", "guess-panel.js", "lesson-file.js")
PLOT_IDS = ("lesson-cross", "lesson-topk")  # the main map and the top-k chart, as the page draws them
LOOK, UNITS = "screen", "pieces"  # the controls of the page's that the lesson file does not offer


def step_line(trace: Trace, step: int, lang: str = "en") -> str:
    """HTML: 'Step 3 (token 4 of 9): the model produced <b>Haus</b> with p = 0.82; …', the piece as the axes show it."""
    s, mark = trace.steps[step], "\x00"
    forced = i18n.text("forced", lang) if step < trace.forced_prefix else ""
    text = i18n.text(
        "step-label", lang, step=step, n=step + 1, total=len(trace.steps), token=mark, forced=forced,
        prob=s["prob"], entropy=s["entropy"],
    )  # fmt: skip
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text, quote=False).replace("&lt;strong&gt;", "<b>"))
    text = text.replace("&lt;/strong&gt;", "</b>")
    return text.replace(mark, html.escape(piece_label(s["token"])))


def _drawn(trace: Trace, layer: int, head: str) -> list[str]:
    """The main map at every step for one layer and head, as figure JSON."""
    hd = head if head == "mean" else int(head)
    return [
        figure_json(attention.attention_head(trace, "cross", layer, hd, step=t)) for t in range(len(trace.target_ids))
    ]


def lesson_data(trace: Trace, lang: str = "en", layer: int = 0, head: str = "mean") -> dict:
    """The frames (at `layer` and `head`: payload.Frames) and the variants of every other layer and head
    (payload.Variants), with the menus' choices and the controls' words."""
    lang, head, total = i18n.language(lang), str(head), len(trace.target_ids)
    heads = ["mean", *map(str, range(trace.n_heads))]
    if head not in heads:
        raise ValueError(f"head must be in 0..{trace.n_heads - 1} or 'mean', got {head!r}")
    with language(lang):
        cross = _drawn(trace, layer, head)
        topk = [figure_json(steps.topk_bar(trace, t)) for t in range(total)]
        patches, keys, alt = {}, {}, {}
        for other_layer in range(trace.n_layers):
            for other in heads:
                combo = f"{other_layer}/{other}"
                keys[combo] = combo
                alt[combo] = [step_alt(trace, t, other_layer, other, UNITS, lang) for t in range(total)]
                if (other_layer, other) != (layer, head):
                    patches[combo] = step_changes(cross, _drawn(trace, other_layer, other))
    shown = json.dumps([trace.target_text, trace.model.get("name", "")], ensure_ascii=False)
    frames = Frames(
        key=frame_key(layer, head, LOOK, lang, UNITS), shown=shown, ids=list(PLOT_IDS), lesson=[True, True],
        steps=total, plots=[cross, topk], label=[step_line(trace, t, lang) for t in range(total)],
        alternatives=[[] for _ in range(total)], strip=[token_strip(trace, t, lang) for t in range(total)],
        alt=alt[f"{layer}/{head}"], last=i18n.text("at-last-step", lang), play=i18n.text("play", lang),
        pause=i18n.text("pause", lang), layers=trace.n_layers, heads=trace.n_heads, guess=guess_data(trace, lang),
        base="lesson", serial=1,
    )  # fmt: skip
    variants = Variants(
        base="lesson", keys=[keys, None], own=[f"{layer}/{head}", "all"], patches=[patches, None], alt=alt
    )
    words = {
        key: i18n.text(key, lang) for key in ("prev", "next", "play", "layer", "head", "step", "tour-prev", "tour-next")
    }
    view = dict(step=0, layer=layer, head=head, presentation=LOOK, lang=lang, units=UNITS)
    return dict(
        frames=frames.to_json(),
        variants=variants.to_json(),
        view=view,
        layers=trace.n_layers,
        heads=heads,
        words=words,
        source=trace.source_text,
    )


def lesson(trace: Trace, path: str | Path | None = None, lang: str = "en", layer: int = 0, head="mean", tour=()) -> str:
    """The lesson as one self-contained HTML page (written to `path` too, when given): Plotly, the frames and the
    stepping module inlined, nothing fetched from anywhere. `tour`: the stops of a guided tour on this translation
    (each {step, layer, head, text}: app/tour.py's lesson_stops), which the file's Back and Next walk through."""
    data = dict(lesson_data(trace, lang, layer, str(head)), tour=list(tour))
    data = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    data = data.replace("</", "<\\/")  # the JSON cannot end its <script> element
    scripts = inline_scripts(JS_FILES)
    source, target = html.escape(trace.source_text), html.escape(trace.target_text)
    page = LESSON_HTML.format(
        lang=i18n.language(lang), source=source, target=target, plotly=plotly.offline.get_plotlyjs(),
        data=data, scripts=scripts, keys=keys_help(lang), keys_css=KEYS_CSS + GUESS_CSS, switch=guess_switch(lang),
        panel=GUESS_PANEL,
    )  # fmt: skip
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


LESSON_HTML = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="transformer-viz">
<title>{source} → {target}</title>
<style>
body {{font-family: ui-sans-serif, system-ui, sans-serif; margin: 1em auto; max-width: 1280px; padding: 0 1em;}}
h1 {{font-size: 1.2em; margin: 0 0 .5em}}
#controls {{display: flex; flex-wrap: wrap; gap: .5em; align-items: center}}
#controls button, #controls select {{font: inherit; padding: .2em .6em}}
#step-slider {{flex: 1; min-width: 10em}}
#step-label {{margin: .5em 0}}
.sr-only {{position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap}}
.tv-strip-row {{display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px; line-height: 1.6}}
.tv-side {{min-width: 5em; font-size: .85em; opacity: .7}}
.tv-piece {{padding: 0 .3em; border: 1px solid transparent; border-radius: 4px; font: inherit; background: none}}
.tv-word {{margin-left: .5em}} .tv-fold {{padding: 0 .3em; opacity: .6}}
button.tv-piece {{cursor: pointer; border-color: #ccc}}
button.tv-piece.tv-current {{background: #2563eb; color: white; font-weight: bold}}
#maps {{display: grid; grid-template-columns: 3fr 2fr; gap: 1em}}
@media (max-width: 900px) {{ #maps {{grid-template-columns: 1fr}} }}
{keys_css}
</style>
<script>{plotly}</script>
</head>
<body>
<h1>{source} → <span id="lesson-target">{target}</span></h1>
<div id="controls">
<button id="step-prev" type="button"></button>
<input id="step-slider" type="range" min="0" value="0">
<button id="step-next" type="button"></button>
<button id="step-play" type="button"></button>
<label><span id="layer-label"></span> <select id="layer"></select></label>
<label><span id="head-label"></span> <select id="head"></select></label>
{switch}
</div>
<div id="tour-panel" hidden><button id="tour-prev" type="button"></button> <span id="tour-count"></span>
<button id="tour-next" type="button"></button><p id="tour-text"></p></div>
<div id="guess-panel">{panel}</div>
<div id="step-label"></div>
<div id="step-alt" class="sr-only" aria-live="polite" aria-atomic="true"></div>
<div id="token-strip"></div>
<div id="maps"><div id="lesson-cross"></div><div id="lesson-topk"></div></div>
<div id="keys-help">{keys}</div>
<script type="application/json" id="lesson-data">{data}</script>
{scripts}
</body>
</html>
"""
