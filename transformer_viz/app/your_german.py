"""Score my German on the page: a visitor's German scored as the translation of the English above, its figure and
explanation under the translation, and the lesson stepping through it. Laid out and wired here; the handlers are
score.py's.

The button makes the German the session's output (score.german_session), a new session as a branch is: the lesson
steps through the German, "back to the original translation" returns to the model's own, and the share link carries
it (`german=`). What the section shows follows the session (score.session_score), on every new session: the German's
score, the score shown while the English and the model stay, or nothing. A refused German is said under its box, in
the visitor's language, and nothing else changes.
"""

from __future__ import annotations

import gradio as gr

from .common import Words
from .handlers import sentence_message
from .header import PASTE_LIMIT, Header
from .score import PageScore, german_session, score_view, session_score
from .shown import outputs_of
from .stepping import PAINTED
from .tabs import Event, T, explain, only_when, opened_view, shown, then


class Section:
    """The section's components, named by what they show."""

    box: gr.Textbox  # the visitor's German
    button: gr.Button
    message: gr.Markdown  # under the box: why the German was refused; hidden when empty
    said: gr.State  # the keyed errors the message shows, to say them again in a new language
    plot: gr.Plot  # the score's figure, hidden until there is one
    explanation: gr.Markdown
    score: gr.State  # the score.PageScore shown, or None


def lay_out(words: Words) -> Section:
    """The section inside the open gr.Blocks: what it is for, the box and its button, then what the score shows."""
    section = Section()
    with gr.Column(elem_id="your-german-section"):  # the section whole (its screenshot)
        explain(words, "your-german")
        with gr.Row(equal_height=True):
            section.box = words(
                gr.Textbox(
                    label=T("your-german"),
                    elem_id="your-german",
                    max_lines=3,
                    max_length=PASTE_LIMIT,  # a long paste reaches the server, which refuses it (never cut) and says so
                    placeholder="Ich stehe jeden Morgen früh auf.",
                    scale=4,
                ),
                "label",
                "your-german",
            )
            section.button = words(
                gr.Button(T("score-german"), elem_id="score-german", scale=1, min_width=160), "value", "score-german"
            )
        section.message = gr.Markdown(elem_id="your-german-error", visible=False)
        section.said = gr.State([])
        section.plot = opened_view("plot-your-german")
        section.explanation = gr.Markdown(elem_id="your-german-explanation")
        section.score = gr.State(None)
    return section


def refused(said: list, lng: str) -> dict:
    """The box under the German: why it was refused; the class greys out a score still shown (common.CSS)."""
    return gr.update(value=sentence_message(said, lng), visible=True, elem_classes=["tv-refused"])


def following(top: Header, section: Section) -> Event:
    """What the section shows after a new session (a translation, model, branch, German or link): its score."""

    def follow_session(lng, look, sess, kept: PageScore | None):
        if sess is None:
            return [gr.skip()] * 6
        score = session_score(sess, kept)
        if score is kept:
            return [gr.skip()] * 6
        said = gr.update(value="", visible=False, elem_classes=[])
        if score is None:  # a new sentence or model: the score of the one before is gone
            return [None, shown(None), "", gr.skip(), said, []]
        figure, text = score_view(score.score, lng, look)
        return [score, shown(figure), text, score.german, said, []]  # the box shows the German scored (a link's)

    outputs = [section.score, section.plot, section.explanation, section.box, section.message, section.said]
    return Event(follow_session, [top.lang, top.presentation, top.session, section.score], outputs)


def relabelled(top: Header, section: Section) -> Event:
    """A new language: the figure, its explanation and a refusal said again in it."""

    def relabel_score(lng, look, kept: PageScore | None, said: list):
        message = gr.update(value=sentence_message(said, lng))
        if kept is None:
            return [gr.skip(), gr.skip(), message]
        figure, text = score_view(kept.score, lng, look)
        return [figure, text, message]

    inputs = [top.lang, top.presentation, section.score, section.said]
    return Event(relabel_score, inputs, [section.plot, section.explanation, section.message])


def wire(
    top: Header,
    section: Section,
    session_out: list,
    lesson: Event,
    after: list[Event],
) -> None:
    """The button (or Enter in the box): the German's session and what it shows (`shown.outputs_of`, in
    `session_out`'s order), then `lesson` and `after` as a branch has them (`after` draws the score: following); a
    refused German only says why. A new look redraws the figure."""

    def score_it(lng, sess, german):
        try:
            new = german_session(sess, german)
        except (ValueError, TypeError) as err:  # a UserError by its key; anything else with its English detail
            return [refused([err], lng), [err], False] + [gr.skip()] * len(session_out)
        return [gr.update(value="", visible=False, elem_classes=[]), [], True] + outputs_of(new, lng).values()

    fresh = gr.State(False)  # whether the German made a new session: what follows runs only then
    outputs = [section.message, section.said, fresh] + session_out
    for trigger in (section.button.click, section.box.submit):
        scoring = trigger(score_it, [top.lang, top.session, section.box], outputs, api_visibility="private")
        then(scoring, [only_when(fresh, lesson), PAINTED, *(only_when(fresh, event) for event in after)])

    def redraw_score(lng, look, kept: PageScore | None):
        return gr.skip() if kept is None else score_view(kept.score, lng, look)[0]

    Event(redraw_score, [top.lang, top.presentation, section.score], [section.plot]).on(top.presentation.input)
