"""Score my German without a browser: the handler's figure, explanation and refusals in the visitor's language, the
session that steps through the German forced as the output, and the share link's `german=`."""

from __future__ import annotations

import dataclasses
import json
from urllib.parse import parse_qsl

import pytest

from tests.tiny import EVIL, MARKUP, shown, tiny_translator
from transformer_viz import i18n
from transformer_viz.app import models, share
from transformer_viz.app import score as scoring
from transformer_viz.app import session as sessions
from transformer_viz.app.common import LOOKS
from transformer_viz.app.handlers import sentence_message
from transformer_viz.cleaning import MAX_CHARS
from transformer_viz.decoding import DecodeOptions
from transformer_viz.errors import UserError

SENTENCE = "I see the house."
GERMAN = "ich sehe das Haus."

pytestmark = pytest.mark.usefixtures("empty_registry")


@pytest.fixture(scope="module")
def translators():
    """Two tiny models that score alike German differently; tiny-b reads at most 24 pieces."""
    return {"tiny-a": tiny_translator("seed000"), "tiny-b": tiny_translator("seed004", seed=2, max_len=24)}


@pytest.fixture
def session(translators):
    for name, tr in translators.items():
        models.register_translator(name, tr)
    return sessions.translate(SENTENCE, "tiny-b", DecodeOptions(max_new_tokens=8))


def test_the_german_is_scored_against_the_sessions_english_by_its_model(session, translators):
    result = scoring.on_score(session, GERMAN, "en")
    assert result.message == "" and result.score is not None
    expected = translators["tiny-b"].score(SENTENCE, GERMAN)
    assert result.score.to_dict() == expected.to_dict()
    assert result.score.to_dict() != translators["tiny-a"].score(SENTENCE, GERMAN).to_dict()


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_the_figure_and_explanation_speak_the_visitors_language(session, lang):
    result = scoring.on_score(session, GERMAN, lang)
    figure = json.loads(result.plot.plot)
    assert figure["layout"]["title"]["text"].startswith(
        i18n.text("fig-german-title", lang, total=0, mean=0, greedy_total=0, greedy_mean=0)[:8]
    )
    score = result.score
    summary = i18n.text(
        "score-summary",
        lang,
        total=score.german.total,
        scored=score.german.scored,
        mean=score.german.mean,
        greedy=scoring.md(score.greedy.text),
        greedy_total=score.greedy.total,
        greedy_scored=score.greedy.scored,
        greedy_mean=score.greedy.mean,
    )
    assert result.explanation.startswith(summary)
    assert i18n.text("score-why", lang) in result.explanation  # totals favour short sentences; greedy is not best
    differing = len(score.differences)
    assert i18n.text("score-differs", lang, n=differing, scored=score.german.scored) in result.explanation


def test_a_slide_look_draws_the_slide_figure(session):
    screen = json.loads(scoring.on_score(session, GERMAN, "en", LOOKS[0]).plot.plot)
    slide = json.loads(scoring.on_score(session, GERMAN, "en", LOOKS[2]).plot.plot)
    assert slide["layout"]["font"]["size"] > screen["layout"]["font"]["size"]
    assert slide["config"]["toImageButtonOptions"]["format"] == "svg"


def test_a_score_is_redrawn_in_another_language_without_the_model(session, monkeypatch):
    score = scoring.on_score(session, GERMAN, "en").score
    monkeypatch.setattr(scoring, "get_translator", lambda name: pytest.fail("the model ran again"))
    figure, text = scoring.score_view(score, "ko")
    assert "조각" in json.loads(figure.plot)["layout"]["title"]["text"] and "조각" in text


def long_german(translators) -> str:
    """German of more pieces than tiny-b's max_len, in fewer than MAX_CHARS characters."""
    text = "mein Bruder will eine Katze. " * 4
    assert len(translators["tiny-b"].tokenizer.encode(text)) > 24 and len(text) < MAX_CHARS
    return text


@pytest.mark.parametrize(
    "german, key",
    [
        ("", "err-german-empty"),
        ("\u200b \n", "err-german-empty"),
        ("<b></b> <i>", "err-german-only-markup"),
        ("Haus " * 600, "err-german-too-many-chars"),  # a 3,000-character paste
        (None, "err-german-too-long"),
        ("😀 😀", "err-german-unreadable"),  # every piece unknown: nothing to score
    ],
)
@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_bad_german_is_refused_in_place_with_a_message_in_the_visitors_language(
    session, translators, german, key, lang
):
    german = long_german(translators) if german is None else german
    result = scoring.on_score(session, german, lang)
    assert (result.score, result.plot, result.explanation) == (None, None, "")
    with pytest.raises(UserError) as refused:
        scoring.score_german(session, german)
    assert refused.value.key == key
    assert result.message == sentence_message([refused.value], lang)
    # the catalogue's own words, after the first letter (which the message capitalises: German's "der deutsche …")
    assert result.message.startswith("⚠") and (lang == "en" or i18n.CATALOGUES[lang][key][1:5] in result.message)
    with pytest.raises(UserError) as forced:  # the lesson of that German is refused alike
        scoring.german_session(session, german)
    assert forced.value.key == key


def test_nothing_is_scored_before_a_translation():
    result = scoring.on_score(None, GERMAN, "ja")
    assert result.message == sentence_message([UserError("err-score-translate-first")], "ja")
    with pytest.raises(UserError, match="translate an English sentence first"):
        scoring.german_session(None, GERMAN)


def test_the_explanation_shows_the_models_text_and_the_notices_literally(session):
    score = scoring.on_score(session, "ich <b>sehe</b> das Haus.", "en").score
    assert [n.key for n in score.notices] == ["notice-german-markup"]
    for text in MARKUP:
        evil = dataclasses.replace(score, greedy=dataclasses.replace(score.greedy, text=text))
        html, visible = shown(scoring.explanation(evil, "en"))
        assert f"({text})" in visible and "<img" not in html
    html, visible = shown(scoring.explanation(score, "en"))
    assert "HTML tags left out of the German (2)" in visible


def test_the_explanation_says_when_the_german_beats_the_models_and_when_its_translation_was_cut(session):
    score = scoring.on_score(session, GERMAN, "en").score
    cut = dataclasses.replace(score.greedy, finished=False, total=score.german.total - 5)
    beaten = dataclasses.replace(score.greedy, finished=True, total=score.german.total - 5)
    below = dataclasses.replace(score.greedy, finished=True, total=score.german.total + 5)
    beats, cut_note = i18n.text("score-beats-greedy"), i18n.text("score-greedy-cut", n=score.greedy.scored)
    text = {
        name: scoring.explanation(dataclasses.replace(score, greedy=g), "en")
        for name, g in dict(cut=cut, beaten=beaten, below=below).items()
    }
    assert cut_note in text["cut"] and beats not in text["cut"]  # a cut translation's total is no sentence's
    assert beats in text["beaten"] and cut_note not in text["beaten"]
    assert beats not in text["below"]


# ---------------------------------------------------------------- the lesson of the German
@pytest.mark.parametrize("strategy", ["greedy", "beam", "sample"])
def test_the_german_session_forces_every_piece_and_ends_at_its_end_of_sentence(translators, strategy):
    for name, tr in translators.items():
        models.register_translator(name, tr)
    short = sessions.translate(SENTENCE, "tiny-a", DecodeOptions(strategy=strategy, max_new_tokens=3))
    forced = scoring.german_session(short, GERMAN)
    ids = translators["tiny-a"].tokenizer.encode(GERMAN)
    trace = forced.trace
    assert trace.target_ids == ids and trace.target_tokens[-1] == "</s>"  # whole, though the session's limit was 3
    assert len(trace.steps) == len(ids) and trace.forced_prefix == len(ids)
    assert not [n for n in trace.notices if n.key == "notice-output-limit"]
    assert trace.attention["cross"].shape[2] == len(ids)  # a map row for each of the German's pieces
    score = translators["tiny-a"].score(SENTENCE, GERMAN)  # the lesson's probabilities are the score's
    assert [s["prob"] for s in trace.steps] == pytest.approx([p.prob for p in score.pieces], abs=1e-5)
    assert (forced.german, forced.original, forced.branches) == (GERMAN, short.trace, [])
    assert forced.options == short.options


def test_a_german_session_unbranches_to_the_translation_and_branches_off_the_german(session):
    forced = scoring.german_session(session, GERMAN)
    again = scoring.german_session(forced, "der Hund mag Kaffee.")
    assert again.original is session.trace  # the model's own translation, not the first German
    back = sessions.unbranch(forced)
    assert (back.trace, back.original, back.german) == (session.trace, None, "")
    step = 2
    token = forced.trace.steps[step]["top_k"][0]["id"]
    branched = sessions.branch(forced, step, token)
    assert branched.trace.target_ids[: step + 1] == forced.trace.target_ids[:step] + [token]
    assert branched.german == GERMAN and branched.original is session.trace


# ---------------------------------------------------------------- share links
def test_a_link_carries_the_german_and_reads_it_back():
    german = "Ich sehe das Haus & 100% #1 <b>?</b>"
    query = share.share_query(SENTENCE, "seed000", DecodeOptions(), [(2, 40)], german=german)
    params = dict(parse_qsl(query[1:]))
    assert params["german"] == german
    values = share.parse_query(params)
    assert values["german"] == german and values["branch"] == [(2, 40)] and values["sentence"] == SENTENCE
    assert "german" not in dict(parse_qsl(share.share_query(SENTENCE, "seed000", DecodeOptions())[1:]))


def test_a_link_drops_a_german_too_long_to_score_rather_than_cutting_it():
    assert share.parse_query({"german": "a" * share.MAX_GERMAN})["german"] == "a" * share.MAX_GERMAN
    assert share.parse_query({"german": "a" * (share.MAX_GERMAN + 1), "step": "2"}) == {"step": 2}
    assert share.parse_query({"german": ""}) == {}
    assert share.parse_query({"german": EVIL}) == {"german": EVIL}  # data: the page shows it in a text box


def test_a_links_german_is_forced_again_before_its_branches_and_shared_again(session, translators):
    from transformer_viz.app.page import on_translate

    options = ["greedy", 4, 1.0, 0, 1.0, 0, 8]  # the page's option controls, in decoding.CHOSEN's order
    assert sessions.decode_options(*options) == DecodeOptions(max_new_tokens=8)
    forced = scoring.german_session(session, GERMAN)
    token = next(i for i in range(5, 50) if i != forced.trace.target_ids[2])
    branched = sessions.branch(forced, 2, token)
    options_of = DecodeOptions(max_new_tokens=8)
    query = share.share_query(SENTENCE, "tiny-b", options_of, share.forced_tokens(branched), german=GERMAN)
    link = share.parse_query(dict(parse_qsl(query[1:])))
    said, values = on_translate("en", SENTENCE, "tiny-b", 0, "mean", *options, branches=link["branch"], german=GERMAN)
    again = values.session
    assert said == [] and again.german == GERMAN and again.branches == branched.branches
    assert again.trace.target_ids == branched.trace.target_ids and again.original.target_ids == session.trace.target_ids
    assert dict(parse_qsl(values.share[1:])) == dict(parse_qsl(query[1:]))  # the reopened page shares the same lesson
    said, values = on_translate("ja", SENTENCE, "tiny-b", 0, "mean", *options, german="<b></b>")  # a hand-edited one
    assert [err.key for err in said] == ["err-german-only-markup"]  # said under the sentence, in the page's language
    assert values.session.german == "" and values.session.trace.target_ids == session.trace.target_ids
    assert "german" not in dict(parse_qsl(values.share[1:]))


# ---------------------------------------------------------------- what the page shows for a session
def test_the_page_shows_the_score_of_the_sessions_german_until_a_new_sentence_or_model(session, translators):
    assert scoring.session_score(session, None) is None  # a translation alone: nothing scored
    forced = scoring.german_session(session, GERMAN)
    on_page = scoring.session_score(forced, None)
    assert (on_page.model, on_page.german) == ("tiny-b", GERMAN)
    assert on_page.score.to_dict() == translators["tiny-b"].score(SENTENCE, GERMAN).to_dict()
    assert scoring.session_score(forced, on_page) is on_page  # the same German: not scored again
    token = forced.trace.steps[1]["top_k"][0]["id"]
    assert scoring.session_score(sessions.branch(forced, 1, token), on_page) is on_page  # a branch off the German
    assert scoring.session_score(sessions.unbranch(forced), on_page) is on_page  # back to the model's own: kept
    other = scoring.session_score(scoring.german_session(forced, "der Hund mag Kaffee."), on_page)
    assert other.german == "der Hund mag Kaffee." and other.score.german.text == "der Hund mag Kaffee."
    new_sentence = sessions.translate("the dog sees the dog.", "tiny-b", DecodeOptions(max_new_tokens=8))
    new_model = sessions.translate(SENTENCE, "tiny-a", DecodeOptions(max_new_tokens=8))
    assert scoring.session_score(new_sentence, on_page) is None and scoring.session_score(new_model, on_page) is None


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_the_branch_line_says_the_lesson_is_the_visitors_german(session, lang):
    from transformer_viz.app.handlers import branch_info

    forced = scoring.german_session(session, "ich <b>sehe</b> das Haus.")
    html, visible = shown(branch_info(forced, lang))
    assert "ich <b>sehe</b> das Haus." in visible and "<b>" not in html  # the visitor's text, literally
    assert i18n.CATALOGUES[lang]["german-info"].split("{")[0].replace("**", "").replace("<strong>", "")[:6] in visible
    token = forced.trace.steps[1]["top_k"][0]["id"]
    both = shown(branch_info(sessions.branch(forced, 1, token), lang))[1]
    assert "ich <b>sehe</b> das Haus." in both and i18n.text("branch-step", lang, step=1, old="", new="")[:4] in both
    assert branch_info(sessions.unbranch(forced), lang) == ""
