"""A sentence-ordering model composed of embedding -> sentence encoder -> paragraph
encoder -> pointer decoder (DESIGN.md sec. 6; Gong et al. 2016, "End-to-End Neural
Sentence Ordering Using Pointer Network", and the later Ptr-Net orderers of Cui et al.
2018 and Wang & Wan 2019 share this shape).

The model is trained by teacher forcing on the gold order and decodes with greedy or
beam search. It scores P(order | sentences) = prod_k P(o_k | o_<k, sentences), each
factor a softmax over the sentences not yet placed.

With `end_candidate=True` (documents with distractors, Wang and Wan 2019, DESIGN section
4) the decoder may also point to a learned END candidate (`models.end_candidate`): the
gold target is the gold sentences followed by END, decoding stops at END, and the
sentences not placed before it are predicted noise. The model scores orders of kept
sentences (-1 padded), which END completes; without the option the model has no END.
The scores also weigh how foreign each sentence looks (`models.distractor_scorer`): END's
always, the sentences' in the searches and `log_prob` only; the loss adds the scorer's
cross-entropy against the known distractor (or none) of a training document.
"""

import torch
from torch import Tensor, nn

from models.batch import check_batch
from models.beam_search import beam_search
from models.candidates import order_log_prob, validate_orders
from models.distractor_scorer import distractor_loss
from models.end_candidate import (
    DistractorAwareEnd,
    EndCandidate,
    complete_orders,
    distractor_classes,
    strip_end,
)
from models.greedy_search import greedy_search
from models.interfaces import (
    ParagraphEncoder,
    ParagraphEncoding,
    PointerDecoder,
    SentenceEncoder,
    Tensors,
    TextSentenceEncoder,
)


class OrderingModel(nn.Module):
    trainable = True  # the harness optimises this model (the random baseline is not)

    def __init__(
        self,
        sentence_encoder: SentenceEncoder | TextSentenceEncoder,
        paragraph_encoder: ParagraphEncoder,
        decoder: PointerDecoder,
        embedding: nn.Module | None,  # None: the sentence encoder reads batch["texts"]
        end_candidate: bool = False,  # a learned END candidate (the noise setting)
    ):
        super().__init__()
        self.embedding = embedding
        self.sentence_encoder = sentence_encoder
        self.paragraph_encoder = paragraph_encoder
        self.decoder = decoder
        word_dim = None if embedding is None else embedding.dim
        self.end = EndCandidate(paragraph_encoder.output_dim, word_dim) if end_candidate else None

    def encode(self, batch: dict) -> tuple[Tensor, ParagraphEncoding, Tensor | None]:
        """batch -> sentence vectors (B, N, d), the paragraph encoding and the word vectors
        (B, N, T, e) (None for a model without a word embedding)."""
        check_batch(batch)
        words = None if self.embedding is None else self.embedding(batch["tokens"])
        sentences = self.sentence_vectors(batch, words)  # (B, N, d)
        return sentences, self.paragraph_encoder(sentences, batch["sentence_mask"]), words

    def sentence_vectors(self, batch: dict, words: Tensor | None) -> Tensor:
        """batch and its word vectors (B, N, T, e) -> (B, N, d): from the word vectors, or
        from the raw text when the model has no word embedding (a pretrained text encoder,
        `words` None)."""
        batch_size, num, length = batch["tokens"].shape
        if words is None:
            if "texts" not in batch:
                raise ValueError(
                    "batch is missing key 'texts' (raw sentences), which this model's "
                    "sentence encoder reads"
                )
            return self.sentence_encoder(batch["texts"], num)  # (B, N, d)
        words = words.reshape(batch_size * num, length, -1)  # (B*N, T, e)
        lengths = batch["token_lengths"].reshape(batch_size * num)  # (B*N,)
        vectors = self.sentence_encoder(words, lengths)  # (B*N, d)
        return vectors.view(batch_size, num, -1)  # (B, N, d)

    @property
    def pointer_decoder(self) -> PointerDecoder:
        """The decoder the searches and `log_prob` use: with END, the scores also see how
        many presented sentences are unplaced and how foreign each looks
        (`models.end_candidate.DistractorAwareEnd`)."""
        return self._decoder(shift_sentences=True)

    def _decoder(self, shift_sentences: bool) -> PointerDecoder:
        """With END: `shift_sentences` False leaves the sentences' distractor shifts out
        (training, `models.end_candidate`)."""
        if self.end is None:
            return self.decoder
        return DistractorAwareEnd(self.decoder, self.end.count_biases(), shift_sentences)

    def start(self, batch: dict) -> tuple[Tensors, Tensors, Tensor]:
        """Encode and start the decoder -> (memory, state, candidates (B, C)): the
        presented sentences, C = N, and with END C = N + 1 (END last) and the memory
        followed by the distractor logits (B, N + 1) (END's column: none of them)."""
        sentences, encoding, words = self.encode(batch)
        mask = candidates = batch["sentence_mask"]  # (B, N)
        if self.end is None:
            return *self.decoder.start(sentences, encoding, mask), candidates
        distractor = self.distractor_logits(batch, sentences, encoding.contexts, words)
        sentences, encoding, mask, candidates = self.end.append(sentences, encoding, mask)
        memory, state = self.decoder.start(sentences, encoding, mask)
        return (*memory, distractor), state, candidates

    def distractor_logits(
        self, batch: dict, sentences: Tensor, contexts: Tensor, words: Tensor | None
    ) -> Tensor:
        """sentence vectors (B, N, d), contexts (B, N, h), word vectors (B, N, T, e) or None
        -> which presented sentence is the distractor, or none (last), as logits (B, N + 1)
        (`models.distractor_scorer`).
        The scorer reads the encoders' outputs but does not train them (they are
        detached): its loss would otherwise pull the ordering representations towards
        detection."""
        words = None if words is None else words.detach()
        tokens, lengths, mask = batch["tokens"], batch["token_lengths"], batch["sentence_mask"]
        return self.end.scorer(tokens, lengths, mask, contexts.detach(), words, sentences.detach())

    def teacher_orders(self, batch: dict, orders: Tensor) -> Tensor:
        """Checked orders to teacher-force: (B, N) permutations of the presented sentences,
        -1 padded; with END, (B, N + 1) kept sentences followed by END."""
        if self.end is None:
            validate_orders(orders, batch["n_sentences"])
            return orders
        return complete_orders(orders, batch["n_sentences"], batch["sentence_mask"].shape[1])

    def pointer_logits(
        self, batch: dict, orders: Tensor, shift_sentences: bool = True
    ) -> tuple[Tensor, Tensor | None]:
        """Teacher-forced masked pointer scores (B, C, C) for orders from `teacher_orders`
        (`shift_sentences` False: as trained), and with END the distractor logits (B, N + 1)
        (else None)."""
        memory, state, candidates = self.start(batch)
        decoder = self._decoder(shift_sentences)
        logits = decoder.teacher_forced(memory, state, orders, candidates)
        return logits, (None if self.end is None else memory[-1])

    def forward(self, batch: dict) -> Tensor:
        """logits (B, C, C): [b, k, j] scores candidate j at step k after the gold prefix
        gold_order[b, :k] (then END); placed and padding candidates masked (finite)."""
        return self.pointer_logits(batch, self.teacher_orders(batch, batch["gold_order"]))[0]

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """orders (B, N) presented indices, -1 padded -> log P(order | sentences) (B,).

        With END, an order lists the kept sentences, optionally followed by END (index N),
        and is scored as stopped by END."""
        orders = self.teacher_orders(batch, orders)
        return order_log_prob(self.pointer_logits(batch, orders)[0], orders)

    def loss(self, batch: dict) -> Tensor:
        """Mean over documents of the summed NLL of the gold order; with END the NLL
        without the sentences' distractor shifts plus the cross-entropy of the distractor
        logits against the sentence the gold order leaves out (or none)."""
        orders = self.teacher_orders(batch, batch["gold_order"])
        logits, distractor = self.pointer_logits(batch, orders, shift_sentences=False)
        nll = -order_log_prob(logits, orders)  # (B,)
        if distractor is None:
            return nll.mean()
        mask = batch["sentence_mask"]  # (B, N)
        classes = distractor_classes(batch["gold_order"], mask)  # (B,)
        return (nll + distractor_loss(distractor, classes, mask)).mean()

    @torch.no_grad()
    def search(self, batch: dict, beam_size: int = 1) -> tuple[Tensor, Tensor]:
        """-> predicted orders (B, N) (-1 padded) and their log-probabilities (B,).

        beam_size = 1 is greedy decoding. With END, an order lists the sentences placed
        before END."""
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size < 1:
            raise ValueError(f"beam_size must be an integer >= 1, got {beam_size!r}")
        memory, state, candidates = self.start(batch)
        end = None if self.end is None else candidates.shape[1] - 1
        if beam_size == 1:
            orders, scores = greedy_search(self.pointer_decoder, memory, state, candidates, end)
        else:
            orders, scores = beam_search(
                self.pointer_decoder, memory, state, candidates, beam_size, end
            )
        return (orders if end is None else strip_end(orders)), scores

    def decode(self, batch: dict, beam_size: int = 1) -> Tensor:
        """-> predicted order (B, N) as presented indices, -1 padded (at k >= n, and with
        END after the kept sentences)."""
        return self.search(batch, beam_size)[0]
