"""Score my German: a visitor's German sentence scored as the translation of the English on the page, and the
lesson of that sentence forced as the model's output. Plain functions of values; the page wires them.

`on_score(session, german, lang, look)` gives what the page shows under the translation (the figure, its
explanation, or why the German was refused), `score_view` redraws a score in another language or look without the
model, `german_session(session, german)` is the session whose trace steps through the German piece by piece, and
`session_score(session, shown)` the score the page shows for a session.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gradio.components.plot import PlotData

from .. import i18n
from ..decoding import DecodeOptions
from ..errors import UserError
from ..figures import language
from ..figures.score import score_figure
from ..score import Score
from ..scoring import german_pieces
from .common import SCREEN, plot, slides
from .handlers import sentence_message
from .markdown import md
from .models import get_translator
from .session import Session


@dataclass
class Scored:
    """What the page shows for a German sentence: its score, figure and explanation, or why it was refused."""

    score: Score | None  # kept (gr.State) to redraw it in another language or look without the model
    plot: PlotData | None  # the figure, #plot-your-german
    explanation: str  # Markdown in the visitor's language ('' when refused)
    message: str  # Markdown: why the German was refused, in the visitor's language ('' when scored)


@dataclass(frozen=True)
class PageScore:
    """The score the page shows, and what it scores: the German as the visitor typed it, as the translation of the
    English of a session of this model."""

    score: Score
    model: str
    german: str

    def belongs_to(self, session: Session) -> bool:
        """Whether it scores the session's English by the session's model (a branch or unbranch keeps both)."""
        return (self.model, self.score.source_text) == (session.model, session.trace.source_text)


def refuse_unreadable(notices: list) -> None:
    """A German the model knows none of the pieces of (emoji, Japanese, …) has nothing to score: refused."""
    for notice in notices:
        if (
            getattr(notice, "key", None) == "notice-german-unknown"
            and notice.params["unknown"] == notice.params["total"]
        ):
            raise UserError("err-german-unreadable", total=notice.params["total"])


def score_german(session: Session | None, german: str) -> Score:
    """The German scored as the translation of the session's English, by the session's model (Translator.score)."""
    if session is None:
        raise UserError("err-score-translate-first")
    score = get_translator(session.model).score(session.trace.source_text, german)
    refuse_unreadable(score.notices)
    return score


def explanation(score: Score, lang: str) -> str:
    """Markdown in `lang`: both sentences' totals and means, where the model differs, and how to read the numbers."""
    german, greedy = score.german, score.greedy
    parts = [
        i18n.text(
            "score-summary",
            lang,
            total=german.total,
            scored=german.scored,
            mean=german.mean,
            greedy=md(greedy.text),
            greedy_total=greedy.total,
            greedy_scored=greedy.scored,
            greedy_mean=greedy.mean,
        )
    ]
    if differences := len(score.differences):
        parts.append(i18n.text("score-differs", lang, n=differences, scored=german.scored))
    else:
        parts.append(i18n.text("score-agrees", lang))
    if not greedy.finished:
        parts.append(i18n.text("score-greedy-cut", lang, n=greedy.scored))
    if greedy.finished and german.total > greedy.total:  # a cut translation's total is not the sentence's
        parts.append(i18n.text("score-beats-greedy", lang))
    parts.append(i18n.text("score-why", lang))
    notices = "\n".join(f"- {md(i18n.message(notice, lang))}" for notice in score.notices)
    return "\n\n".join(parts + ([notices] if notices else []))


def score_view(score: Score, lang: str, look: str = SCREEN) -> tuple[PlotData, str]:
    """The score's figure (in the look's style) and its explanation, both in `lang`."""
    with language(lang):
        fig = score_figure(score, presentation=slides(look))
    return plot(fig, look), explanation(score, lang)


def on_score(session: Session | None, german: str, lang: str, look: str = SCREEN) -> Scored:
    """The Score my German button: the German scored and drawn, or refused with a keyed message in `lang`."""
    try:
        score = score_german(session, german)
    except (ValueError, TypeError) as err:  # a UserError by its key; anything else with its English detail
        return Scored(None, None, "", sentence_message([err], lang))
    figure, text = score_view(score, lang, look)
    return Scored(score, figure, text, "")


def german_session(session: Session | None, german: str) -> Session:
    """The session whose trace is the German forced as the model's whole output, ending at its </s>: stepping
    through it shows what the model read while producing each of the visitor's pieces.

    The German is read as score_german reads it (refused, never cut); the trace decodes no further than its
    </s>, whatever the session's maximum length. Unbranching returns to the model's own translation.
    """
    if session is None:
        raise UserError("err-score-translate-first")
    translator = get_translator(session.model)
    _, ids, notices = german_pieces(translator.tokenizer, german, translator.config.max_len)
    refuse_unreadable(notices)
    trace = translator.trace(
        session.trace.source_text,
        options=DecodeOptions(**session.options),
        max_new_tokens=len(ids),  # the forced pieces, </s> the last of them: nothing is decoded after it
        forced_prefix=ids,
    )
    original = session.original or session.trace
    return replace(session, trace=trace, original=original, branches=[], german=german)


def session_score(session: Session, shown: PageScore | None) -> PageScore | None:
    """The score the page shows for `session`: its German's, where it has one (`shown` if that is already it); else
    `shown` while it scores the session's English by its model; else none (a new sentence or model)."""
    if session.german:
        if shown is not None and shown.belongs_to(session) and shown.german == session.german:
            return shown
        return PageScore(score_german(session, session.german), session.model, session.german)
    return shown if shown is not None and shown.belongs_to(session) else None
