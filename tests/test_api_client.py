"""The named API endpoint /translate, called as a user's script would: through gradio_client."""

from __future__ import annotations

import pytest

gradio_client = pytest.importorskip("gradio_client")
from gradio_client.exceptions import AppError  # noqa: E402

from transformer_viz.translator import load_model  # noqa: E402

SENTENCE = "I see the house."


@pytest.fixture(scope="module")
def client(app_server):
    url, _ = app_server
    return gradio_client.Client(url, verbose=False, download_files=False)


def test_endpoint_is_listed_with_its_parameters(client):
    api = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    assert list(api) == ["/translate"]  # every UI event is private
    assert [p["parameter_name"] for p in api["/translate"]["parameters"]] == ["text", "model_name"]


@pytest.mark.parametrize("name", ["seed000", "seed004"])
def test_translate_matches_the_library(client, app_server, name):
    _, folder = app_server
    assert client.predict(SENTENCE, name, api_name="/translate") == load_model(folder / name).translate(SENTENCE)


def test_default_model_is_seed000(client, app_server):
    _, folder = app_server
    assert client.predict(SENTENCE, api_name="/translate") == load_model(folder / "seed000").translate(SENTENCE)


def test_unknown_model_is_an_error(client):
    with pytest.raises(AppError, match="unknown model 'no-such-model'"):
        client.predict(SENTENCE, "no-such-model", api_name="/translate")


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_text_is_an_error(client, text):
    with pytest.raises(AppError, match="empty"):
        client.predict(text, "seed000", api_name="/translate")


def test_too_long_a_text_is_refused_not_silently_cut(client):
    with pytest.raises(AppError, match=r"too long: the model reads at most \d+ tokens"):
        client.predict("The children are playing in the garden. " * 40, "seed000", api_name="/translate")
