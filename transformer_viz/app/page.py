"""The Gradio app: the header and the tab groups composed into one page, with the events that cross them.

The header (header.py) and each tab group (tabs/) lay out their components; the tab groups also wire their own.
This module wires what concerns the whole page: a translation (or branch, model, share link), the steps, the
look and the language. All work happens in the handlers and in figures.
"""

from __future__ import annotations

import gradio as gr

from .. import __version__, i18n
from ..errors import Notice, UserError
from . import handlers as h
from . import warm, your_german
from .common import CSS, THEME, Words, localised_errors, page_head, plot, slides, user_error
from .downloads import TRACE_FILE_AGE_S, lesson_ready, offered
from .frames import lesson_frame, step_frames, variants
from .header import Header
from .header import lay_out as lay_out_header
from .links import link_reader, page_tabs, wire_share, wire_tour
from .models import available_models, get_translator
from .registry import OTHER_PLOTS, STEP_PLOTS
from .score import german_session
from .session import Session, branch, decode_options, translate, unbranch
from .shown import SHOWN, Shown, outputs_of, session_outputs
from .stepping import PAINTED, start_js, wire_steps, wire_switch
from .tabs import PLOT_IDS, Event, T, analysis, attention, beyond, experiments, inside, only_when, then

# The events that paint the lesson skip the queue: a direct request and its answer, instead of joining the queue
# and then reading its stream (measured on one core: a translation painted in 0.38-0.40 s, not 0.73 s). They are
# short (a translation's decoding and the lesson's two figures); the frames and the other plots stay queued.
QUICK = dict(queue=False)


def build_demo() -> gr.Blocks:
    models = available_models()
    # delete_cache: Gradio's copies of the downloads (and other outputs) older than an hour go, hourly
    with gr.Blocks(title="transformer-viz", delete_cache=(3600, TRACE_FILE_AGE_S)) as demo:
        words = Words()
        top = lay_out_header(words, models)
        header_words = len(words.entries)  # the first screen's texts, relabelled before the tabs'
        step_in = [top.session, top.step, top.layer, top.head, top.presentation, top.lang, top.units]
        # A new translation, look, units or language is painted in four round trips, the lesson first:
        # 1. the lesson's map and top-k at the page's step (a translation sends them with its own outputs);
        # 2. every step's frames, which paint the tabs' step plots too, for stepping in the browser (stepping.py);
        # 3. every plot that does not follow the step;
        # 4. the variants: the frames' plots in every other layer and head, for the browser to draw a new one.
        # The lesson's listeners come before the tab groups' listeners of the same controls: the page sends a
        # control's events to the server one after the other, in the order they were made.
        lesson = Event(lesson_frame, step_in, [top.frames])
        lesson_first = [
            trigger(lesson.fn, lesson.inputs, lesson.outputs, api_visibility="private", **QUICK)
            for trigger in (top.presentation.input, top.units.input, top.lang.change)
        ]
        # a new layer or head is drawn in the browser from the frames and the variants
        new_layer = wire_switch(top, step_in)
        german = your_german.lay_out(words)  # score my German: under the translation, over the tabs
        with gr.Tabs(elem_id="views") as views:
            attention_tabs = attention.build(words, top.controls)
            groups = [
                attention_tabs,
                analysis.build(words, top.controls),
                experiments.build(words, top.controls),
                inside_tabs := inside.build(words, top.controls),
                beyond.build(words, top.controls),
            ]
        words(gr.Markdown(T("footer", version=__version__)), "footer", "footer")

        plots = {**top.plots, **{plot_id: c for group in groups for plot_id, c in group.plots.items()}}
        if set(plots) != PLOT_IDS:
            raise RuntimeError(f"registered plots missing from the page: {sorted(PLOT_IDS - set(plots))}")
        step_out = [plots[p.id] for p in STEP_PLOTS] + [top.step_md, top.alt, top.strip, top.step_alt]
        frames = Event(step_frames, step_in, [top.frames])
        every_head = Event(variants, step_in, [top.variants])
        others = Event(draw_others, step_in + [attention_tabs.kind], [plots[p.id] for p in OTHER_PLOTS])
        # a new session: its frames with its trace file; the groups' views that only close, in one round trip; a
        # view that draws itself anew (it reads its own controls too) after the other plots; the page's own scripts
        # (JavaScript only) last
        offers = [Event(offered, [top.session], [top.download]), Event(lesson_ready, [top.session], [top.lesson_btn])]
        new_frames = Event.merged([frames, *offers])
        on_new = [event for group in groups for event in group.on_new_session]
        # what reads only states (the session, what a lab ran) closes views, or keeps them: in one round trip, before
        # the redraws
        closing = [event for event in on_new if event.inputs[:1] == [top.session] and all_states(event.inputs)]
        scripts = [event for event in on_new if event.fn is None]
        closed = Event.merged(closing)
        redrawn = Event.merged([event for event in on_new if event not in closing + scripts])
        session_out = placed(top, pick=attention_tabs.pick, card=inside_tabs.card)
        demo.load(None, None, None, js=start_js())
        demo.load(None, None, None, js=WATCH_LESSON_JS)
        # the labs' reset first (a quick round trip reading only states): a link's Translate is enabled after it, so
        # a head ticked once Translate is back (the tour's "head-off") is never unticked by a late reset
        after_session = [closed, new_frames, your_german.following(top, german), others, redrawn, *scripts, every_head]
        wire_translation(demo, top, models, session_out, lesson, after_session, views)
        your_german.wire(top, german, session_out, lesson, after_session)
        wire_steps(top, step_out)
        for listener in lesson_first[:-1]:
            then(listener, [PAINTED, frames, others, every_head])
        others.after(new_layer)
        others.on(attention_tabs.kind.input)
        on_language = Event.merged([e for group in groups for e in group.on_language])
        first, rest = words.part(0, header_words), words.part(header_words)
        relabel_rest = Event(rest.updates, [top.lang], rest.components)  # the tabs' texts
        german_words = your_german.relabelled(top, german)
        wire_language(
            top, first, lesson_first[-1], [relabel_rest, frames, others, on_language, german_words, every_head]
        )
        gr.api(translate_api(models), api_name="translate")
    return demo


def placed(top: Header, **others) -> list:
    """The component that shows each of a new session's values (`Shown`), in SHOWN's order: the header's, and
    `others` (the tab groups' own) by their names."""
    shows = dict(
        session=top.session, translation=top.translation, notices=top.notices, tokens=top.tokens, step=top.step,
        layer=top.layer, head=top.head, download=top.download, share=top.share, branch=top.branch_md,
        unbranch=top.unbranch_btn, **others,
    )  # fmt: skip
    if set(shows) != set(SHOWN):
        raise RuntimeError(f"a new session shows {sorted(SHOWN)}, the page places {sorted(shows)}")
    return [shows[name] for name in SHOWN]


def all_states(components: list) -> bool:
    """Whether every one of `components` is a gr.State (a value of the session's, not a control on the page)."""
    return all(isinstance(component, gr.State) for component in components)


def draw_others(sess, t, lay, hd, pres, lng, unt, knd):
    """Every registered plot that does not follow the step or the head (the frames draw those)."""
    if sess is None:
        return [gr.skip()] * len(OTHER_PLOTS)
    t = h.clamp_step(sess.trace, t)
    figs = h.view_figures(OTHER_PLOTS, sess.trace, t, int(lay), hd, knd, slides(pres), lang=lng, units=unt)
    return [plot(figs[p.id], pres) for p in OTHER_PLOTS]


def on_translate(lng, text, model_name, lay, hd, *opts, branches=(), step=0, german="") -> tuple[list, Shown | None]:
    """(what to say under the sentence box, the new session's outputs): its notices say what was cut, if anything.

    A sentence that cannot be translated (empty, bad options, not one piece the model knows) gives only why, and
    None: the page keeps the translation, maps and link it shows. What is said are keyed errors and notices, put
    into the visitor's language by h.sentence_message (again on a language switch). A share link adds the
    `german` forced as the output (a German refused is said, and the translation kept), the `branches` it was made
    after, made again in order, and the `step` it showed.
    """
    if not model_name:
        return [UserError("err-no-model")], None
    try:
        options = decode_options(*opts)
        sess = translate(text, model_name, options)
    except (ValueError, TypeError) as err:
        return [err], None
    refused = h.unreadable(sess.trace)  # its translation of nothing but <unk> would teach nothing
    if refused is not None:
        return [refused], None
    said = h.input_notices(sess.trace)
    if german:
        try:
            sess = german_session(sess, german)
        except (ValueError, TypeError) as err:
            said = [*said, err]
    sess = rebranched(sess, branches)
    return said, session_outputs(sess, text, model_name, options, lng, lay, hd, step)


def refused(said: list, shown: Session | None) -> list:
    """What the box under the sentence says when nothing was translated: why, and that the answer still on the page
    is the sentence before's, where there is one (`shown`: the page's session)."""
    return said if shown is None else [*said, Notice("notice-previous-kept")]


def refused_box(said: list, lng: str, shown: Session | None) -> dict:
    """The box under the sentence when nothing was translated: `said`, and where the page shows an answer (the
    sentence before's), the class that greys it out."""
    greyed = [] if shown is None else ["tv-refused"]
    return gr.update(value=h.sentence_message(said, lng), visible=True, elem_classes=greyed)


def rebranched(sess: Session, branches) -> Session:
    """`sess` with each (step, token id) of a share link forced in turn; a link that does not fit this model or
    translation (a hand-edited one) keeps the branches that fit, up to the first that does not."""
    vocabulary = get_translator(sess.model).config.tgt_vocab_size
    for step, token in branches:
        if not (0 <= step < len(sess.trace.target_ids) and 0 <= token < vocabulary):
            break
        sess = branch(sess, step, token)
    return sess


@localised_errors
def on_branch(lng, sess, t, token_id):
    if sess is None or token_id is None:
        raise gr.Error(i18n.text("err-translate-first", lng), print_exception=False)
    t = h.clamp_step(sess.trace, t)
    # the page draws a step's candidates itself, so the server checks the choice (the dropdown does not)
    if str(token_id) not in {str(i) for _, i in h.alternatives(sess.trace, t)}:
        raise UserError("err-not-candidate", token=token_id, step=t)
    return outputs_of(branch(sess, t, int(token_id)), lng, step=t).values()  # the view stays on the step now forced


# What a translation leaves as it is where it made no session: session_outputs's values and the lesson.
SKIPPED = [gr.skip()] * (len(SHOWN) + 1)


def translated(shown, lng, text, model_name, lay, hd, pres, unt, *opts, link=None) -> list:
    """A sentence translated for the page that shows `shown` (its session, or None before any translation): what
    is said under the sentence (the box, the keyed messages), whether it made a new session, session_outputs's
    values and the lesson's frame; a `link` (a share link's) adds what it restores."""
    link = link or {}
    lay, hd = link.get("layer", lay), link.get("head", hd)
    restored = dict(branches=link.get("branch", ()), step=link.get("step", 0), german=link.get("german", ""))
    said, shown_now = on_translate(lng, text, model_name, lay, hd, *opts, **restored)
    if shown_now is None:  # a translation on the page is the sentence before's: said, and greyed (CSS: tv-refused)
        said = refused(said, shown)
        return [refused_box(said, lng, shown), said, False] + SKIPPED
    box = gr.update(value=h.sentence_message(said, lng), visible=bool(said), elem_classes=[])
    sess = shown_now.session
    lay, hd = h.layer_and_head(get_translator(sess.model).config, lay, hd)  # as session_outputs sets them
    step = h.clamp_step(sess.trace, restored["step"])
    return [box, said, True] + shown_now.values() + [lesson_frame(sess, step, lay, hd, pres, lng, unt)]


def translate_if_linked(shown, lng, text, model_name, *values) -> list:
    """On a new model: translate straight away when there is a sentence."""
    if not text:
        return [gr.skip(), gr.skip(), False] + SKIPPED
    return translated(shown, lng, text, model_name, *values)


def open_link(link, shown, lng, text, model_name, *values) -> list:
    """On page load: the link's sentence (link_reader put it, or the example, in the box) translated straight away,
    at its branches, step, layer and head; an empty one is said to be empty."""
    return translated(shown, lng, text, model_name, *values, link=link)


def wire_translation(
    demo: gr.Blocks,
    top: Header,
    models: list[str],
    session_out: list,
    lesson: Event,
    after: list[Event],
    views: gr.Tabs,
) -> None:
    """Translate, a new model, a branch and its undoing, a share link on load: each a new session, its `lesson`
    (a translation sends it with its own outputs), then `after`. The share box follows what the page shows."""
    unchanged = [gr.skip()] * len(session_out)

    def gated(trigger, fn, inputs=(), **options):
        """`trigger` runs `fn`, which may translate; what follows runs only if it made a new session.

        Each trigger writes and reads its own flag. With one flag for all, a trigger that made no session (after
        which nothing should run) read the True of a translation made meanwhile and ran the new-session events a
        second time, late: they wiped a replay the visitor had started, or drew a view at a step since left.
        Returns the listener of `after`'s first event (the page's reset of what the old session showed).
        """
        fresh = gr.State(False)  # a sentence's message goes under it, in place; whether it made a new session
        translate_out = [top.sentence_error, top.sentence_said, fresh] + session_out + lesson.outputs
        translating = trigger(fn, [*inputs, *translate_in], translate_out, api_visibility="private", **options)
        first = then(translating, [PAINTED, only_when(fresh, after[0])])
        then(first, [only_when(fresh, event) for event in after[1:]])
        return first

    def on_unbranch(lng, sess, t):
        if sess is None:
            return unchanged
        # at the same step, to compare what the model wrote there with the forced token
        return outputs_of(unbranch(sess), lng, step=t).values()

    translate_in = [top.session, top.lang, top.sentence, top.model, top.layer, top.head, top.presentation, top.units]
    translate_in += top.options
    for trigger in (top.translate_btn.click, top.sentence.submit):
        gated(trigger, translated, **QUICK)
    # .input, not .change: a share link that sets the model on load must not translate twice, and
    # picking a model before typing a sentence is not an error.
    gated(top.model.input, translate_if_linked, **QUICK)
    branch_in = [top.lang, top.session, top.step, top.alt]
    then(top.branch_btn.click(on_branch, branch_in, session_out, api_visibility="private"), [lesson, PAINTED, *after])
    unbranch_in = [top.lang, top.session, top.step]
    unbranched = top.unbranch_btn.click(on_unbranch, unbranch_in, session_out, api_visibility="private")
    then(unbranched, [lesson, PAINTED, *after])
    containers, tab_paths = page_tabs(views)
    wire_share(top, containers)
    wire_tour(demo, top)
    link = gr.State(None)  # what a share link restores once its sentence is translated: German, branches, step, …
    loaded_out = [top.sentence, top.model] + top.options + [top.lang, link] + containers
    loaded = demo.load(link_reader(models, containers, tab_paths), None, loaded_out, api_visibility="private")
    opened = gated(loaded.then, open_link, inputs=[link])  # the link translated and the labs reset
    opened.then(enabled, None, [top.sentence, top.model, top.translate_btn], api_visibility="private", **QUICK)


def enabled() -> list:
    """The sentence box, the model menu and Translate (disabled until now: header.lay_out_sentence) enabled, once the
    link's translation is on the page, or failed: one asked for before would have been replaced by it."""
    return [gr.update(interactive=True)] * 3


WATCH_LESSON_JS = "() => transformerViz.watchLesson()"  # js/lesson.js: the maps fill the first screen


def wire_language(top: Header, words: Words, lesson, after: list[Event]) -> None:
    """A new language: after `lesson` (the listener that paints the lesson in it), every text of `words` (the first
    screen's), the notices, the branch, the token table and what is said under the sentence; then `after`."""

    def relabelled_in(lng, sess, said):
        return relabel(words, lng, sess, said)

    relabelled = words.components + [top.notices, top.branch_md, top.tokens, top.sentence_error]
    relabel_in = [top.lang, top.session, top.sentence_said]
    painted = then(lesson, [PAINTED])
    then(painted.then(relabelled_in, relabel_in, relabelled, api_visibility="private", **QUICK), after)


def relabel(words: Words, lng, sess, said) -> list:
    """Every text of `words` in the chosen language; the notices, the branch, the token table and what is said under
    the sentence too (wire_language's outputs, in this order)."""
    sentence = [h.sentence_message(said or [], lng)]
    if sess is None:  # nothing to say yet; and a link's translation, under way, says it in this language itself
        return words.updates(lng) + [gr.skip(), gr.skip(), h.tokens_table(None, lng)] + sentence
    trace = sess.trace
    info = [h.notices_info(trace, lng), h.branch_info(sess, lng), h.tokens_table(trace, lng)]
    return words.updates(lng) + info + sentence


def translate_api(models: list[str]):
    """The named API endpoint /translate, for the bundled models."""

    @user_error
    def api_translate(text: str, model_name: str | None = None) -> str:
        """Translate English text to German with a bundled model (default: the first listed).

        Too long a text is refused.
        """
        name = model_name or (models[0] if models else None)
        if name not in models:
            raise UserError("err-api-model", name=name, choices=models)
        return get_translator(name).translate(text, truncate=False)

    return api_translate


def launch(**kwargs) -> None:
    demo = build_demo().queue(default_concurrency_limit=4, max_size=64)
    warm.serve(demo, theme=THEME, css=CSS, head=page_head(), **kwargs)  # its paths warmed once it answers (warm.py)
