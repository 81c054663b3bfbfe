"""The page's address: its link read when the page loads, and the share box that writes the address of what it shows.

A share link (share.py: the query the server writes) reopens a lesson: the sentence, model, options and language go
into the controls, the German, branches, step, layer and head are restored once the sentence is translated
(page.py), and the link's tab is opened. A link without a sentence opens on common.LESSON_EXAMPLE, translated at step 0.
"""

from __future__ import annotations

import json

import gradio as gr

from .. import i18n
from ..decoding import CHOSEN
from .common import LESSON_EXAMPLE
from .header import Header
from .share import parse_query
from .tour import packaged_tours, page_words, rules


def link_reader(models: list[str], containers: list[gr.Tabs], tab_paths: dict):
    """The page load's reader of its link: the sentence (LESSON_EXAMPLE where the link has none, so that a first
    visit opens on a lesson; an empty one stays empty), model, options and language for the controls, what to
    restore once the sentence is translated, and the tab sets' selections that open the link's tab."""

    def on_load(request: gr.Request):
        values = parse_query(dict(request.query_params)) if request is not None else {}
        sentence, model = values.get("sentence", LESSON_EXAMPLE), values.get("model")
        out = [gr.update(value=sentence), gr.update(value=model) if model in models else gr.skip()]
        out += [values.get(option.name, gr.skip()) for option in CHOSEN]  # header.options' order
        # ?lang=ja in the link wins; otherwise the browser's preferred languages decide.
        headers = request.headers if request is not None else {}
        chosen = (
            i18n.language(values["lang"])
            if values.get("lang")
            else i18n.from_accept_language(headers.get("accept-language"))
        )
        # the German, the branches and the step are the link's sentence's; the example opens at step 0 without any
        kept = ("german", "branch", "step", "layer", "head") if "sentence" in values else ("layer", "head")
        restored = {key: values[key] for key in kept if key in values}
        opened = tab_paths.get(values.get("tab"), {})  # the link's tab, and the group holding it
        selected = [gr.update(selected=opened[c]) if c in opened else gr.skip() for c in containers]
        return out + [chosen, restored] + selected

    return on_load


# The share box shows the whole address of what the page shows (js/share.js); Copy link says whether it copied.
SHARE_JS = "(link, step, layer, head, lang) => transformerViz.pageShareLink(link, step, layer, head, lang)"
COPY_JS = "async (link, lang) => [await transformerViz.copyLink(link), lang]"


def wire_share(top: Header, tabs: list[gr.Tabs]) -> None:
    """The share box rewritten in the browser whenever the link, step, layer, head, language or open tab (of any
    of the page's tab sets, `tabs`) changes."""
    share_in = [top.share, top.step, top.layer, top.head, top.lang]
    for trigger in [top.share.change, top.step.change, top.layer.change, top.head.change, top.lang.change] + [
        t.select for t in tabs
    ]:
        trigger(None, share_in, [top.share], js=SHARE_JS, queue=False, api_visibility="private")

    def copied(ok, lng):
        """Says, in the visitor's language, whether the link is on the clipboard."""
        if ok:
            gr.Info(i18n.text("share-copied", lng))
        else:
            gr.Warning(i18n.text("share-not-copied", lng))

    # queued: a toast reaches the page through the queue's stream
    top.copy.click(copied, [top.share, top.lang], None, js=COPY_JS, api_visibility="private")


def wire_tour(demo: gr.Blocks, top: Header) -> None:
    """The guided tours (js/tour.js, js/tour-panel.js): the packaged tours, their rules and words handed to the page
    once it loads (which opens the tour its link names), the Tour button opening the built-in one, and the panel
    said again in a new language."""
    tours = packaged_tours()
    config = dict(rules=rules(), tours=tours, words=page_words(tours))
    demo.load(None, None, None, js=f"() => transformerViz.startTour({json.dumps(config)})")
    top.tour_btn.click(None, None, None, js="() => transformerViz.tourStart()", api_visibility="private")
    top.lang.change(
        None, [top.lang], None, js="(lang) => transformerViz.tourLanguage(lang)", queue=False, api_visibility="private"
    )


def page_tabs(views: gr.Tabs) -> tuple[list[gr.Tabs], dict[str, dict[gr.Tabs, str]]]:
    """The page's tab sets (`views` first, then each group's) and, for each tab's id, what each set must select to
    open it (a view: its group in `views` and itself in the group's set)."""
    containers, paths = [views], {}
    for group in views.children:
        if not isinstance(group, gr.Tab):
            continue
        paths[group.id] = {views: group.id}
        for inner in group.children:
            if isinstance(inner, gr.Tabs):
                containers.append(inner)
                for view in inner.children:
                    if isinstance(view, gr.Tab):
                        paths[view.id] = {views: group.id, inner: view.id}
    return containers, paths
