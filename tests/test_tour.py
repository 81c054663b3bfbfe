"""Guided tours on the server's side (app/tour.py): the schema, the packaged tours and the checks of a tour file.

The browser's checks of the same rules are tests/js/tour.test.js (run by tests/test_js.py on tour.py's rules).
"""

from __future__ import annotations

import json

import pytest

from transformer_viz import i18n
from transformer_viz.app import tour
from transformer_viz.app.share import MAX_BRANCHES, parse_query
from transformer_viz.errors import UserError

SCHEMA = tour.SCHEMA
# A stop's view changed so that the share link's reader would drop or change a value, and the field named: the
# browser's checks are run on the same cases (tests/test_js.py hands them to tests/js/tour.test.js).
BAD_STOPS = [
    (dict(step=-1), "step"),
    (dict(step=1.5), "step"),
    (dict(layer="03"), "layer"),
    (dict(head="all"), "head"),
    (dict(tab="Tab Cross"), "tab"),
    (dict(branch="2:3176,x"), "branch"),
    (dict(branch=",".join(f"{i}:5" for i in range(MAX_BRANCHES + 1))), "branch"),
    (dict(sentence="a" * 5000), "sentence"),
    (dict(sentence=""), "sentence"),
    (dict(lang="ja"), "lang"),
    (dict(step=True), "step"),
]


def own_tour(n: int = 2) -> dict:
    """A teacher's tour of `n` stops with notes, as the panel downloads one."""
    view = dict(sentence="I see the house.", model="seed000", layer=0, head="mean", tab="tab-cross")
    stops = [dict(view=dict(view, step=i), note=f"Stop {i + 1}.", point="plot-cross") for i in range(n)]
    return dict(version=SCHEMA["version"], stops=stops)


def refused(data: dict | str) -> UserError:
    with pytest.raises(UserError) as caught:
        tour.check_tour(data if isinstance(data, str) else json.dumps(data))
    return caught.value


def test_the_builtin_tour_has_its_ten_stops_each_a_link_the_reader_keeps_whole():
    builtin = tour.packaged_tours()[tour.BUILTIN]
    assert len(builtin["stops"]) == 10
    for stop in builtin["stops"]:
        query = {key: str(value) for key, value in stop["view"].items()}
        kept = parse_query(query)
        assert set(kept) == set(query)  # nothing the link's reader drops
        assert stop["point"] in SCHEMA["elements"]
    actions = [stop["action"]["name"] for stop in builtin["stops"] if "action" in stop]
    assert sorted(actions) == sorted(SCHEMA["actions"])  # a stop for each lab's state


def test_each_builtin_text_is_a_catalogue_key_written_in_every_language():
    builtin = tour.packaged_tours()[tour.BUILTIN]
    keys = tour.text_keys(builtin)
    assert len(keys) == 1 + len(builtin["stops"])  # the title and every stop
    for lang in i18n.LANGUAGES:
        for key in keys:
            assert key in i18n.CATALOGUES[lang], (lang, key)
            if lang != "en":
                assert i18n.CATALOGUES[lang][key] != i18n.CATALOGUES["en"][key], (lang, key)


def test_a_downloaded_tour_follows_the_schema():
    data = own_tour(3)
    assert tour.check_tour(json.dumps(data)) == data
    assert set(data) <= {"version", "title", "stops"}
    for stop in data["stops"]:
        assert set(stop["view"]) <= set(SCHEMA["view"])
    assert refused(dict(data, version=SCHEMA["version"] + 1)).key == "err-tour-version"
    assert refused(dict(data, stops=[])).key == "err-tour-stops"
    assert refused(own_tour(SCHEMA["max_stops"] + 1)).params == dict(
        count=SCHEMA["max_stops"] + 1, limit=SCHEMA["max_stops"]
    )
    assert refused("{not json").key == "err-tour-json"


def test_a_tour_over_the_size_limit_is_refused_by_its_bytes():
    data = own_tour(1)
    data["stops"][0]["note"] = "ä" * (SCHEMA["max_bytes"] // 2)  # under the limit in characters, over it in bytes
    err = refused(data)
    assert err.key == "err-tour-too-large" and err.params["size"] > SCHEMA["max_bytes"]


@pytest.mark.parametrize("change, field", BAD_STOPS)
def test_a_stop_the_share_links_reader_would_change_is_refused(change, field):
    data = own_tour()
    data["stops"][1]["view"].update(change)
    err = refused(data)
    assert (err.key, err.params) == ("err-tour-stop", dict(stop=2, field=field))


def test_a_note_is_plain_text_and_a_point_is_an_element_of_the_list():
    data = own_tour()
    data["stops"][0]["note"] = "see <b>this</b>"
    assert refused(data).key == "err-tour-html"
    data["stops"][0]["note"] = "p < 0.5, **as typed**"
    data["stops"][1]["point"] = "#plot-cross"
    assert (refused(data).key, refused(data).params["element"]) == ("err-tour-element", "#plot-cross")
    data["stops"][1]["point"] = "https://example.org/x"
    assert refused(data).key == "err-tour-url"


def test_an_action_has_exactly_its_settings():
    data = own_tour(1)
    data["stops"][0]["action"] = dict(name="head-off", kind="cross", layer=1, head=2)
    assert tour.check_tour(json.dumps(data))
    for action in (dict(name="head-off", kind="cross", layer=1), dict(name="compare", x=1), dict(name="rm")):
        data["stops"][0]["action"] = action
        assert refused(data).key == "err-tour-action"


def test_the_rules_the_browser_gets_are_the_schema_and_the_share_links_limits():
    rules = tour.rules()
    assert {key: rules[key] for key in SCHEMA} == SCHEMA
    assert rules["link"]["max_branches"] == MAX_BRANCHES
    words = tour.page_words(tour.packaged_tours())
    assert set(words) == set(i18n.LANGUAGES)
    assert words["ja"]["tour-pieces"] == i18n.text("tour-pieces", "ja")
