"""The model class as Hub users know it: Transformer.from_pretrained("owner/name"), save_pretrained, push_to_hub.

model/transformer.py imports only torch and is the class a learner reads; this subclass adds huggingface_hub's
PyTorchModelHubMixin and nothing else. The files are hub.py's: config.json (TransformerConfig.to_dict()) and
model.safetensors, read back with hub.py's checks.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from huggingface_hub import ModelCard, PyTorchModelHubMixin

from ..model import transformer as plain
from .hub import LANGUAGES, LIBRARY, PIPELINE, TAGS, load_checked, resolve_checkpoint, save_checkpoint

# The card save_pretrained and push_to_hub write when the folder has none (train and evaluate write a fuller one).
CARD_TEMPLATE = """---
{{ card_data }}
---

# A transformer-viz checkpoint

An English→German encoder–decoder Transformer for transformer-viz, the app that shows what each head of each
layer attends to while the model translates.

- preset `{{ config.name }}`: {{ config.n_layers }} encoder + {{ config.n_layers }} decoder layers, \
d_model {{ config.d_model }}, {{ config.n_heads }} heads, d_ff {{ config.d_ff }}, max_len {{ config.max_len }}
- **{{ "{:,}".format(n_parameters) }} parameters**; the architecture is `config.json`, the weights `model.safetensors`

```python
from transformer_viz import Transformer, Translator

model = Transformer.from_pretrained("owner/name")  # the model alone
translator = Translator.from_pretrained("owner/name")  # with the tokenizer.model beside it
```
"""


class Transformer(
    plain.Transformer,
    PyTorchModelHubMixin,
    library_name=LIBRARY,
    language=list(LANGUAGES),
    pipeline_tag=PIPELINE,
    tags=list(TAGS),  # a copy: the mixin adds its own tags to the list it is given
    model_card_template=CARD_TEMPLATE,
):
    """The Transformer of model/transformer.py, with from_pretrained, save_pretrained and push_to_hub."""

    def _save_pretrained(self, save_directory: Path) -> None:
        """config.json and model.safetensors, as hub.save_checkpoint writes them (so the mixin adds no config)."""
        save_checkpoint(save_directory, self)

    @classmethod
    def from_pretrained(
        cls,
        pretrained_model_name_or_path: str | os.PathLike,
        *,
        force_download: bool = False,
        token: str | bool | None = None,
        cache_dir: str | Path | None = None,
        local_files_only: bool = False,
        revision: str | None = None,
        map_location: str | torch.device = "cpu",
    ) -> Transformer:
        """A checkpoint folder, a bundled name (seed000) or a Hub repo id, checked before any tensor is built.

        This replaces the mixin's loader, which reads config.json unchecked, drops unknown fields, loads
        non-strictly and falls back to pickled weights; hub.py refuses all of that.
        """
        folder = resolve_checkpoint(
            pretrained_model_name_or_path,
            revision=revision,
            cache_dir=cache_dir,
            token=token,
            force_download=force_download,
            local_files_only=local_files_only,
        )
        return load_transformer(folder, plain.resolve_device(map_location))  # "auto" picks CUDA, MPS or the CPU

    def generate_model_card(self, *args, **kwargs) -> ModelCard:
        """The mixin's card from CARD_TEMPLATE, told the model's config and size."""
        return super().generate_model_card(*args, config=self.config, n_parameters=self.num_parameters(), **kwargs)


def load_transformer(folder: str | Path, device: str | torch.device = "cpu") -> Transformer:
    """The checkpoint in `folder` as this module's Transformer (from_pretrained, push_to_hub), checked as
    hub.load_checked checks it: what every loader of the project returns."""
    return load_checked(folder, Transformer, device)
