"""Base class for readers configured by keyword options.

Readers are plain classes, not dataclasses: Hydra turns a dataclass instance passed to
``instantiate(..., reader=obj)`` into a config node, which would lose its methods.
"""

from __future__ import annotations


class OptionsReader:
    """Keeps the constructor options as public attributes; ``fingerprint()`` is them plus the
    reader's kind and format version (bump ``VERSION`` when the output changes)."""

    KIND = ""
    VERSION = 1

    def options(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def fingerprint(self) -> dict:
        return {"reader": self.KIND, "version": self.VERSION, **self.options()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{type(self).__name__}({args})"
