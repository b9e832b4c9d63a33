"""A pretrained Transformer reading the whole shuffled paragraph at once, every layer
fine-tuned: one contextual vector per sentence.

The encoder of the pretrained orderers since 2020 (Cui, Jiang, Li and Zhang 2020, BERSON;
Kumar et al. 2020, RankTxNet; Basu Roy Chowdhury et al. 2021, Re-BART read several or all
sentences together): the presented sentences are joined into one input,
`[CLS] s_1 [SEP] s_2 [SEP] ... s_n [SEP]`, and each sentence's vector is the mean of the
output states of its own sub-word tokens (its span; the special tokens are pooled into no
sentence). Every sentence thus sees every other one through self-attention, in the
presented (shuffled) order: the positions are the presentation's, which carries no gold
information (docs/design.md, section 5) but makes the result depend on it
(docs/models.md, "Pretrained paragraph encoders").

Long paragraphs (`fit="truncate"`): when the joined input would exceed the encoder's
positions (`max_tokens`, at most what the encoder has), the longest sentences are cut
first: every sentence keeps min(its length, c) tokens with c the largest cap that fits, so
short sentences stay whole and each sentence keeps at least one token. A paragraph with
more sentences than fit with one token each is refused, naming the setting.

Any Hugging Face encoder with `[CLS]`/`[SEP]`-style special tokens (BERT, RoBERTa,
ELECTRA, MiniLM...) can be named (`model`); by default the bundled all-MiniLM-L6-v2, read
from local files only (`models.blocks.pretrained.load_pretrained`).

Optimisation settings read by the harness (`benchmark.training.optimisation`): this
module's parameters train at `learning_rate`; every rate rises linearly over
`warmup_steps` and, with `decay_epochs`, falls linearly to zero at the end of that epoch
(the linear schedule of BERT fine-tuning, as BERSON's recipe uses).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from models.batch import bucket
from models.blocks.host_text_inputs import HostTextInputs
from models.blocks.pretrained import encoder_mask, load_pretrained

FITS = ("truncate",)
SHAPE_FLOOR = 64  # the shortest padded input of a compiled step (`text_inputs`)


def token_caps(lengths: list[int], budget: int) -> list[int]:
    """Sub-word counts of a paragraph's sentences -> how many each keeps so that their sum
    is at most `budget`: min(length, c) with c the largest cap that fits (the longest
    sentences are cut first). ValueError when even one token each does not fit."""
    if len(lengths) > budget:
        raise ValueError(f"{len(lengths)} sentences do not fit in {budget} tokens")
    if sum(lengths) <= budget:
        return list(lengths)
    low, high = 1, max(lengths)  # the largest c with sum(min(l, c)) <= budget
    while low < high:
        cap = (low + high + 1) // 2
        if sum(min(length, cap) for length in lengths) <= budget:
            low = cap
        else:
            high = cap - 1
    return [min(length, low) for length in lengths]


class PretrainedParagraphEncoder(HostTextInputs):
    """Presented sentences of each document, read together -> (B, N, H) sentence vectors
    (a TextSentenceEncoder whose vectors are contextual)."""

    def __init__(
        self,
        model: str | None = None,  # local path or cached Hugging Face name; None: MiniLM
        max_tokens: int | None = None,  # joined input's limit; None: the encoder's positions
        fit: str = "truncate",  # long paragraphs: cut the longest sentences first
        learning_rate: float | None = None,  # this module's rate; None: the optimiser's
        warmup_steps: int = 0,  # linear warm-up of every learning rate (optimiser steps)
        decay_epochs: int | None = None,  # linear decay to 0 at the end of this epoch
    ):
        super().__init__()
        if fit not in FITS:
            raise ValueError(f"model.net.fit must be one of {FITS}, got {fit!r}")
        self.model, self.tokenizer = load_pretrained(model)
        self.output_dim = int(self.model.config.hidden_size)
        self.positions = encoder_positions(self.model, self.tokenizer)
        self.max_tokens = self.positions
        if max_tokens is not None:
            self.limit_input(max_tokens)
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.decay_epochs = decay_epochs
        self.cls, self.sep = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        self.pad = self.tokenizer.pad_token_id or 0
        if self.cls is None or self.sep is None:
            raise ValueError(
                "model.net.encoder: the tokenizer has no [CLS]/[SEP]-style tokens to join "
                "sentences with"
            )
        self._ids: dict[str, list[int]] = {}  # sentence -> its sub-word ids (no specials)
        pooler = getattr(self.model, "pooler", None)
        if pooler is not None:  # unused (span pooling): no gradient, none to synchronise
            pooler.requires_grad_(False)

    def sentence_ids(self, text: str) -> list[int]:
        """Sub-word ids of one sentence without special tokens (tokenised once)."""
        ids = self._ids.get(text)
        if ids is None:
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"] or [self.pad]
            self._ids[text] = ids
        return ids

    def limit_input(self, max_tokens: int) -> None:
        """Cut the joined input to `max_tokens` positions from now on (3 up to the
        encoder's own): the setting `model.net.max_tokens`, also changed after training to
        measure what the cut costs (`orderbench evaluate max_tokens=N`)."""
        if not 3 <= max_tokens <= self.positions:
            raise ValueError(
                f"model.net.max_tokens={max_tokens} must be in 3..{self.positions} "
                "(the encoder's positions)"
            )
        self.max_tokens = max_tokens

    def fitted(self, document: list[str]) -> tuple[list[list[int]], list[int]]:
        """One document -> each sentence's sub-word ids and how many of them the joined
        input keeps (`token_caps`; `[CLS]` and one `[SEP]` a sentence take the rest)."""
        pieces = [self.sentence_ids(text) for text in document]
        try:
            caps = token_caps([len(p) for p in pieces], self.max_tokens - len(pieces) - 1)
        except ValueError as error:
            raise ValueError(
                f"a paragraph of {len(pieces)} sentences does not fit the encoder's "
                f"{self.max_tokens} positions ({error}); leave such documents out or use "
                "an encoder with more positions (model.net.max_tokens)"
            ) from None
        return pieces, caps

    def joined(self, document: list[str]) -> tuple[list[int], list[int]]:
        """One document -> (input ids, the sentence index of each id, -1 for specials)."""
        pieces, caps = self.fitted(document)
        ids, owner = [self.cls], [-1]
        for index, (piece, cap) in enumerate(zip(pieces, caps, strict=True)):
            ids += piece[:cap] + [self.sep]
            owner += [index] * cap + [-1]
        return ids, owner

    def text_inputs(
        self, texts: list[list[str]], num: int, fixed_shapes: bool = False
    ) -> dict[str, Tensor]:
        """On the host: each document's joined input ids (B, L), padded (with
        `fixed_shapes` to a power of two of at least `SHAPE_FLOOR` positions, within the
        encoder's, for a compiled step), the sentence each id belongs to (B, L; -1 for
        special tokens and padding) and the ids' count (B,)."""
        joined = [self.joined(document) for document in texts]
        length = max(len(ids) for ids, _ in joined)
        if fixed_shapes:
            length = min(bucket(length, SHAPE_FLOOR), self.positions)
        input_ids = torch.full((len(texts), length), self.pad, dtype=torch.long)  # (B, L)
        owner = torch.full((len(texts), length), -1, dtype=torch.long)  # (B, L)
        for row, (ids, owners) in enumerate(joined):
            input_ids[row, : len(ids)] = torch.tensor(ids)
            owner[row, : len(ids)] = torch.tensor(owners)
        lengths = torch.tensor([len(ids) for ids, _ in joined])  # (B,)
        return {"input_ids": input_ids, "owner": owner, "lengths": lengths}

    def from_inputs(self, inputs: dict[str, Tensor], num: int) -> Tensor:
        """`text_inputs` on the device -> (B, num, H): each sentence the mean of its span's
        output states, zeros where a row has no sentence."""
        input_ids, owner = inputs["input_ids"], inputs["owner"]  # (B, L)
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)  # (L,)
        real = positions < inputs["lengths"].unsqueeze(1)  # (B, L)
        hidden = self.model(input_ids=input_ids,
                            attention_mask=encoder_mask(self.model, real)).last_hidden_state
        # hidden (B, L, H)
        spans = owner.unsqueeze(1) == torch.arange(num, device=owner.device).view(1, num, 1)
        spans = spans.to(hidden.dtype)  # (B, num, L): token l belongs to sentence k
        counts = spans.sum(dim=2, keepdim=True).clamp(min=1)  # (B, num, 1)
        return spans @ hidden / counts  # (B, num, H), zeros where a row has no sentence


def encoder_positions(model: nn.Module, tokenizer) -> int:
    """Input positions the encoder has: its tokenizer's limit where that is a real one,
    else the position table's size."""
    limit = getattr(tokenizer, "model_max_length", None)
    table = getattr(model.config, "max_position_embeddings", None)
    known = [value for value in (limit, table) if isinstance(value, int) and value < 100_000]
    if not known:
        raise ValueError("model.net.encoder: cannot tell how many positions the encoder has")
    return min(known)
