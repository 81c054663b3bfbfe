"""Errors and notices a user can cause, named by a key with parameters, so the UI translates them by key.

`UserError("err-empty")` is a ValueError whose str() is the English text of its key in the English catalogue
(transformer_viz/i18n): library users and the CLI read English, the app shows the key's text in the visitor's
language. `Notice` is the same for a trace's notices: a str, English, that keeps its key.

This module imports only the standard library, so every layer (the model included) may raise these. The
catalogues are read when a message is first turned into text, not when this module is imported.
"""

from __future__ import annotations

from typing import Any


def english(key: str, params: dict[str, Any]) -> str:
    """The English text of `key` with `params` filled in."""
    from . import i18n  # data only; read at message time so the model layer loads no catalogues

    return i18n.template(key).format(**params)


class UserError(ValueError):
    """A mistake the user can fix: `key` names it in the message table, `params` fill its placeholders."""

    def __init__(self, key: str, **params: Any):
        super().__init__(key, params)
        self.key = key
        self.params = params

    def __str__(self) -> str:
        return english(self.key, self.params)

    def __reduce__(self):
        return (_rebuild, (type(self), self.key, self.params))


def _rebuild(cls: type[UserError], key: str, params: dict[str, Any]) -> UserError:
    """Unpickle a UserError (exceptions pickle their args, which here are not the constructor's)."""
    return cls(key, **params)


class Notice(str):
    """A notice for a trace (input cut, …): its English text, carrying `key` and `params` for translation."""

    key: str
    params: dict[str, Any]

    def __new__(cls, key: str, **params: Any) -> Notice:
        self = super().__new__(cls, english(key, params))
        self.key = key
        self.params = params
        return self

    def __getnewargs_ex__(self):
        return (self.key,), self.params
