"""TransformerConfig: validation messages that name the fix, JSON round trip, the two presets."""

from __future__ import annotations

import json

import pytest

from transformer_viz.model.config import DEFAULT_PRESET, PRESETS, TransformerConfig


def test_d_model_not_divisible_by_n_heads_names_the_fix():
    with pytest.raises(ValueError, match=r"d_model \(30\) must be divisible by n_heads \(4\)") as info:
        TransformerConfig(d_model=30, n_heads=4)
    # The fix is spelled out: head counts that do divide 30.
    assert "try n_heads in [1, 2, 3, 5, 6, 10, 15, 30]" in str(info.value)


def test_unknown_preset_lists_the_presets():
    with pytest.raises(ValueError, match="unknown preset 'seed999'") as info:
        TransformerConfig.preset("seed999")
    for name in PRESETS:
        assert repr(name) in str(info.value)


def test_bad_positional_lists_the_choices():
    with pytest.raises(ValueError, match="positional must be one of") as info:
        TransformerConfig(positional="rotary")
    assert "'sinusoidal'" in str(info.value) and "'learned'" in str(info.value)
    assert "'rotary'" in str(info.value)


def test_share_embeddings_needs_one_vocabulary():
    with pytest.raises(ValueError, match="share_embeddings needs src_vocab_size == tgt_vocab_size"):
        TransformerConfig(src_vocab_size=100, tgt_vocab_size=120, share_embeddings=True)
    assert TransformerConfig(src_vocab_size=100, tgt_vocab_size=100, share_embeddings=True).share_embeddings


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (dict(d_model=0), "d_model must be a positive integer"),
        (dict(n_layers=-1), "n_layers must be a positive integer"),
        (dict(n_heads=True), "n_heads must be a positive integer"),  # a bool is not a head count
        (dict(d_model=15, n_heads=3), "sinusoidal positions need an even d_model"),
        (dict(dropout=1.0), r"dropout must be in \[0, 1\)"),
        (dict(dropout=-0.1), r"dropout must be in \[0, 1\)"),
        (dict(bos_id=0), "special token ids must be distinct"),
        (dict(eos_id=8000), "eos_id=8000 is outside the vocabulary"),
    ],
)
def test_inconsistent_fields_are_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        TransformerConfig(**overrides)


def test_odd_d_model_is_fine_with_learned_positions():
    assert TransformerConfig(d_model=15, n_heads=3, positional="learned").d_head == 5


def test_from_dict_refuses_unknown_keys_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown config fields \['d_modle'\]") as info:
        TransformerConfig.from_dict({"d_modle": 64})
    assert "'d_model'" in str(info.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("d_model", "256"),
        ("d_model", 256.0),
        ("n_heads", True),
        ("norm_first", "yes"),
        ("dropout", "0.1"),
        ("positional", 1),
    ],
)
def test_from_dict_refuses_wrong_types(key, value):
    with pytest.raises(ValueError, match=f"config field '{key}' must be"):
        TransformerConfig.from_dict({key: value})


def test_from_dict_accepts_an_int_for_a_float_field():
    assert TransformerConfig.from_dict({"dropout": 0}).dropout == 0


def test_from_dict_refuses_a_non_dict():
    with pytest.raises(ValueError, match="a config must be a JSON object, got list"):
        TransformerConfig.from_dict([1, 2])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_to_dict_from_dict_round_trip_through_json(preset, tiny_config):
    config = tiny_config(preset, tie_embeddings=True, layer_norm_eps=1e-6)
    data = json.loads(json.dumps(config.to_dict()))
    assert data["name"] == preset
    assert set(data) == set(TransformerConfig().to_dict())  # every field, nothing else
    assert TransformerConfig.from_dict(data) == config


def test_d_head():
    assert TransformerConfig(d_model=256, n_heads=4).d_head == 64


def test_preset_seed000_is_pre_ln_sinusoidal_bias_free():
    c = TransformerConfig.preset("seed000")
    assert c.name == "seed000"
    assert c.norm_first is True and c.final_norm is True
    assert c.positional == "sinusoidal"
    assert c.scale_embeddings is True and c.zero_pad_embeddings is True
    assert c.attn_bias is False


def test_preset_seed004_is_post_ln_learned_biased():
    c = TransformerConfig.preset("seed004")
    assert c.name == "seed004"
    assert c.norm_first is False and c.final_norm is False
    assert c.positional == "learned"
    assert c.attn_bias is True


def test_default_preset_is_seed000_and_matches_the_plain_defaults():
    assert DEFAULT_PRESET == "seed000"
    plain, preset = TransformerConfig().to_dict(), TransformerConfig.preset(DEFAULT_PRESET).to_dict()
    plain.pop("name"), preset.pop("name")
    assert plain == preset


def test_preset_overrides_win_and_are_validated():
    c = TransformerConfig.preset("seed004", d_model=64, n_heads=8, norm_first=True)
    assert (c.d_model, c.n_heads, c.norm_first, c.positional) == (64, 8, True, "learned")
    with pytest.raises(ValueError, match="unknown config fields"):
        TransformerConfig.preset("seed004", n_head=8)
    with pytest.raises(ValueError, match="divisible by n_heads"):
        TransformerConfig.preset("seed000", d_model=64, n_heads=6)
