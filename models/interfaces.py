"""Contracts between the parts of an ordering model (docs/design.md, section 6).

Every architecture is sentence encoder -> paragraph encoder -> pointer decoder. These
protocols fix what passes between the parts, so a preset can swap any one of them (an
LSTM, CNN or attention sentence encoder; an LSTM or self-attention paragraph encoder;
an LSTM or Transformer pointer decoder) without touching the others, and so the generic
searches (`greedy_search`, `beam_search`) can drive any decoder one step at a time. A
sentence encoder reads embedded words (`SentenceEncoder`) or, for pretrained encoders with
their own tokeniser, the raw text (`TextSentenceEncoder`).
"""

from typing import NamedTuple, Protocol

from torch import Tensor

Tensors = tuple[Tensor, ...]


class ParagraphEncoding(NamedTuple):
    """Output of a paragraph encoder."""

    contexts: Tensor  # (B, N, h) one vector per presented sentence (zeros at padding)
    state: Tensors  # each (B, h_dec): an LSTM's final (h, c), or a pooled paragraph vector (v,)


class SentenceEncoder(Protocol):
    """Embedded words of each sentence -> one vector per sentence."""

    output_dim: int

    def __call__(self, words: Tensor, lengths: Tensor, plan: object = "auto") -> Tensor:
        """words (S, T, e), lengths (S,) -> (S, output_dim); rows of length 0 give zeros.
        `plan`, for an encoder that plans length buckets (it has `bucket_plan(lengths)`,
        `models.blocks.length_buckets`): its buckets planned on the host, None for one
        call, "auto" to plan them where the tensors are on the CPU; an encoder without
        `bucket_plan` is called without it."""
        ...


class TextSentenceEncoder(Protocol):
    """Raw sentence text -> one vector per sentence (pretrained encoders with their own
    tokeniser, e.g. MiniLM); used by a model built without a word embedding. Its inputs are
    made on the host, before the batch goes to its device (`models.batch.prepare_batch`),
    so that a training step reads nothing back."""

    output_dim: int

    def text_inputs(self, texts: list[list[str]], num: int) -> dict:
        """On the host: texts[b] = presented sentences of document b -> the tensors (in
        dicts and lists) that `from_inputs` reads."""
        ...

    def from_inputs(self, inputs: dict, num: int) -> Tensor:
        """`text_inputs` on the device -> (B, num, output_dim), zeros at padding (positions
        >= len(texts[b]))."""
        ...

    def __call__(self, texts: list[list[str]] | dict, num: int) -> Tensor:
        """texts, or their `text_inputs` on the device -> (B, num, output_dim)."""
        ...


class ParagraphEncoder(Protocol):
    """Sentence vectors in the presented order -> per-sentence contexts + decoder state."""

    output_dim: int  # width of the contexts

    def __call__(self, sentences: Tensor, mask: Tensor) -> ParagraphEncoding:
        """sentences (B, N, d), mask (B, N) True for real sentences (a prefix of each row)."""
        ...


class PointerDecoder(Protocol):
    """A decoder that points at presented sentences, usable step by step.

    `memory` holds per-document tensors that never change while decoding (sentence
    vectors, projected keys); `state` holds the recurrent state. Both are tuples of
    tensors whose first dimension indexes rows (documents, or documents x beams), so a
    search can expand and reorder them with `reindex`.
    """

    def start(
        self, sentences: Tensor, encoding: ParagraphEncoding, mask: Tensor
    ) -> tuple[Tensors, Tensors]:
        """sentences (B, N, d), mask (B, N) real sentences -> (memory, initial state)."""
        ...

    def step(
        self, memory: Tensors, state: Tensors, previous: Tensor | None, available: Tensor
    ) -> tuple[Tensor, Tensors]:
        """One output step.

        previous (R,) presented index chosen at the previous step (None at the first
        step); available (R, N) candidates still allowed. Returns scores (R, N), with
        unavailable candidates masked (finite), and the next state.
        """
        ...

    def teacher_forced(
        self, memory: Tensors, state: Tensors, orders: Tensor, available: Tensor
    ) -> Tensor:
        """All steps at once given orders (B, N) (-1 padded) -> masked scores (B, N, N)."""
        ...

    def reindex(self, tensors: Tensors, index: Tensor) -> Tensors:
        """Select rows `index` (R',) of every tensor (beam expansion and reordering)."""
        ...
