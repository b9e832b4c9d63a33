"""Any ordering model in the noise setting (docs/design.md, section 4): the decoder may point to
END, and the sentences not placed before END are predicted noise.

END is the mechanism of Wang and Wan (2019), "Hierarchical Attention Networks for Sentence
Ordering" (AAAI), as their released code builds it (github.com/sodawater/SentenceOrdering,
`get_batch` and the decoder of `orderingNet.py`): a GO sentence of special words is
presented in slot 0, before the document's sentences, and encoded with them by the same
sentence and paragraph encoders; the gold target is the kept sentences followed by slot 0,
so pointing at the GO slot ends the order. The wrapper adds that slot to the batch, and
the wrapped model's own encoders, decoder and searches serve unchanged.

The GO sentence is `go_tokens` (the harness passes the vocabulary's unknown word twice: our
vocabularies have no GO and EOS words, the released code's [GO, EOS]) and, for a model
reading raw text, `go_text`.

Two mechanisms of our own are options, off by default (`models.noise.end_shifts`,
docs/metrics.md "Noise robustness"): `count_bias`, a learned END bias per number of
unplaced sentences, and `distractor_scorer`, the cohesion scorer of
`models.noise.distractor_scorer` combined with the pointer's scores and trained with its own
cross-entropy against each training document's known distractor (or none).

Orders outside the wrapper keep the presented indices of the batch as given, with END = N
(`models.noise.end_orders`); inside, slot 0 is END and sentence j is slot j + 1.
"""

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.batch import prepared
from models.interfaces import PointerDecoder, Tensors
from models.noise.distractor_scorer import DistractorScorer, distractor_loss
from models.noise.end_orders import complete_orders, distractor_classes
from models.noise.end_shifts import COUNT_BIAS_SCALE, END, MAX_COUNT, EndShifts
from models.search.beam_search import beam_search
from models.search.candidates import order_log_prob
from models.search.greedy_search import greedy_search


class NoiseWrapper(nn.Module):
    end_index = END  # candidate index of END inside the wrapper (reference search)
    slot_offset = 1  # presented sentence j is candidate j + 1 inside the wrapper

    def __init__(
        self,
        model: nn.Module,  # an OrderingModel: `encode(batch)` and a pointer `decoder`
        go_tokens: Sequence[int],  # word ids of the GO sentence
        go_text: str = "<go>",  # the GO sentence for a model reading raw text
        count_bias: bool = False,  # our option: END bias per unplaced count
        distractor_scorer: bool = False,  # our option: the cohesion distractor scorer
        first_word_id: int | None = None,  # the scorer's: id of the most frequent word
    ):
        super().__init__()
        if not (hasattr(model, "encode") and hasattr(model, "decoder")):
            raise TypeError(
                f"{type(model).__name__} has no encode() and pointer decoder, which the noise "
                "setting needs (an OrderingModel)"
            )
        if not go_tokens:
            raise ValueError("go_tokens must hold at least one word id")
        self.model = model
        self.register_buffer("go_tokens", torch.tensor(list(go_tokens)), persistent=False)
        self.go_text = go_text
        self.count_bias = nn.Parameter(torch.zeros(MAX_COUNT + 1)) if count_bias else None
        self.scorer = None
        if distractor_scorer:
            if first_word_id is None:
                raise ValueError("distractor_scorer needs first_word_id (the vocabulary's)")
            embedding = getattr(model, "embedding", None)
            word_dim = None if embedding is None else embedding.dim
            output_dim = model.paragraph_encoder.output_dim
            self.scorer = DistractorScorer(output_dim, word_dim, first_word_id)

    def with_go_slot(self, batch: dict) -> dict:
        """The batch with the GO sentence in slot 0 (N + 1 sentences) and its gold order
        (B, N + 1) in slots: the kept sentences, END (slot 0), then -1."""
        tokens, lengths = batch["tokens"], batch["token_lengths"]  # (B, N, T), (B, N)
        size, num, length = tokens.shape
        go = self.go_tokens.to(tokens.device)
        width = max(length, len(go))
        tokens = F.pad(tokens, (0, width - length, 1, 0))  # (B, N + 1, T')
        tokens[:, 0, : len(go)] = go
        slotted = {
            **batch,
            "tokens": tokens,
            "token_lengths": F.pad(lengths, (1, 0), value=len(go)),  # (B, N + 1)
            "sentence_mask": F.pad(batch["sentence_mask"], (1, 0), value=True),
            "n_sentences": batch["n_sentences"] + 1,
        }
        slotted.pop("sentence_ids", None)  # the wrapped model never reads them
        if "texts" in batch:
            slotted["texts"] = [[self.go_text, *document] for document in batch["texts"]]
        if "gold_order" in batch:
            slotted["gold_order"] = self.slot_orders(batch, batch["gold_order"])
        return slotted

    def host_inputs(self, batch: dict, buckets: bool, fixed_shapes: bool = False) -> dict:
        """On the host (`models.batch.prepare_batch`): the gold order checked, and the wrapped
        model's inputs for the batch with its GO slot (which the wrapper adds in the step:
        a batch prepared here carries them)."""
        if "gold_order" in batch:
            complete_orders(batch["gold_order"], batch["n_sentences"],
                            batch["sentence_mask"].shape[1])  # fmt: skip
        ungolded = {key: value for key, value in batch.items() if key != "gold_order"}
        return self.model.host_inputs(self.with_go_slot(ungolded), buckets, fixed_shapes)

    @staticmethod
    def slot_orders(batch: dict, orders: Tensor) -> Tensor:
        """Orders (B, L) of presented indices, optionally END (= N), -1 padded (checked)
        -> (B, N + 1) in slots: the kept sentences + 1, END (0), then -1."""
        num = batch["sentence_mask"].shape[1]
        completed = complete_orders(orders, batch["n_sentences"], num)  # END = num
        return torch.where(completed == num, END, torch.where(completed >= 0, completed + 1, -1))

    @staticmethod
    def presented_orders(orders: Tensor) -> Tensor:
        """Decoded orders (B, N + 1) in slots -> the kept sentences (B, N) as presented
        indices, -1 padded (END and what follows it dropped)."""
        stopped = (orders == END).long().cummax(dim=1).values.bool()  # at or after END
        return torch.where(stopped | (orders < 0), -1, orders - 1)[:, :-1]

    def start(self, batch: dict) -> tuple[Tensors, Tensors, Tensor]:
        """Batch -> (memory, state, candidates (B, N + 1)) in slots, for `pointer_decoder`."""
        return self._start(self.with_go_slot(prepared(self, batch)))

    def _start(self, batch: dict) -> tuple[Tensors, Tensors, Tensor]:
        """Slotted batch -> (memory, state, candidates (B, N + 1)); with the scorer the
        memory ends with the distractor logits (B, N + 1) of the presented sentences."""
        sentences, encoding, words = self.model.encode(batch)  # slot 0 included
        mask = batch["sentence_mask"]  # (B, N + 1)
        memory, state = self.model.decoder.start(sentences, encoding, mask)
        if self.scorer is not None:
            memory = (*memory, self._distractor_logits(batch, sentences, encoding, words))
        return memory, state, mask

    def _distractor_logits(self, batch: dict, sentences, encoding, words) -> Tensor:
        """-> (B, N + 1): which presented sentence (slot 0 left out) is the distractor, or
        none (last). The scorer reads the encoders' outputs detached: its loss would
        otherwise pull the ordering representations towards detection."""
        words = None if words is None else words[:, 1:].detach()
        return self.scorer(
            batch["tokens"][:, 1:],
            batch["token_lengths"][:, 1:],
            batch["sentence_mask"][:, 1:],
            encoding.contexts[:, 1:].detach(),
            words,
            sentences[:, 1:].detach(),
        )

    @property
    def pointer_decoder(self) -> PointerDecoder:
        """The decoder the searches and `log_prob` use."""
        return self._decoder(shift_sentences=True)

    def _decoder(self, shift_sentences: bool) -> PointerDecoder:
        """The wrapped decoder, with END's shifts when an option of ours is on."""
        if self.count_bias is None and self.scorer is None:
            return self.model.decoder
        biases = None if self.count_bias is None else COUNT_BIAS_SCALE * self.count_bias
        return EndShifts(self.model.decoder, biases, self.scorer is not None, shift_sentences)

    def _teacher_forced(
        self, batch: dict, orders: Tensor, shift_sentences: bool
    ) -> tuple[Tensor, Tensor | None]:
        memory, state, candidates = self._start(batch)
        decoder = self._decoder(shift_sentences)
        logits = decoder.teacher_forced(memory, state, orders, candidates)
        return logits, (memory[-1] if self.scorer is not None else None)

    def forward(self, batch: dict) -> Tensor:
        """logits (B, N + 1, N + 1) in slots: [b, k, j] scores slot j (0: END) at step k
        after the gold prefix; placed and padding candidates masked (finite)."""
        slotted = self.with_go_slot(prepared(self, batch))
        return self._teacher_forced(slotted, slotted["gold_order"], True)[0]

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """orders (B, L): kept presented indices, optionally END (= N), -1 padded ->
        log P(order, then END | sentences) (B,)."""
        slotted = self.with_go_slot(prepared(self, batch))
        orders = self.slot_orders(batch, orders)
        return order_log_prob(self._teacher_forced(slotted, orders, True)[0], orders)

    def loss(self, batch: dict) -> Tensor:
        """Mean over documents of the summed NLL of the kept sentences and END; with the
        scorer (trained apart, `models.noise.end_shifts`) plus its cross-entropy against the
        presented sentence the gold order leaves out (or none)."""
        batch = prepared(self, batch)
        slotted = self.with_go_slot(batch)
        orders = slotted["gold_order"]
        logits, distractor = self._teacher_forced(slotted, orders, shift_sentences=False)
        nll = -order_log_prob(logits, orders)  # (B,)
        if distractor is None:
            return nll.mean()
        mask = batch["sentence_mask"]  # (B, N)
        classes = distractor_classes(batch["gold_order"], mask)  # (B,)
        return (nll + distractor_loss(distractor, classes, mask)).mean()

    @torch.no_grad()
    def search(self, batch: dict, beam_size: int = 1) -> tuple[Tensor, Tensor]:
        """-> the kept sentences in order (B, N) (-1 padded) and log P(order, END) (B,)."""
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size < 1:
            raise ValueError(f"beam_size must be an integer >= 1, got {beam_size!r}")
        memory, state, candidates = self.start(batch)
        decoder = self.pointer_decoder
        if beam_size == 1:
            orders, scores = greedy_search(decoder, memory, state, candidates, END)
        else:
            orders, scores = beam_search(decoder, memory, state, candidates, beam_size, END)
        return self.presented_orders(orders), scores

    def decode(self, batch: dict, beam_size: int = 1) -> Tensor:
        """-> the kept sentences (B, N) as presented indices, -1 padded."""
        return self.search(batch, beam_size)[0]
