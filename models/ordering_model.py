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
"""

import torch
from torch import Tensor, nn

from models.batch import check_batch
from models.beam_search import beam_search
from models.candidates import order_log_prob, validate_orders
from models.end_candidate import CountAwareEnd, EndCandidate, complete_orders, strip_end
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
        self.end = EndCandidate(paragraph_encoder.output_dim) if end_candidate else None

    def encode(self, batch: dict) -> tuple[Tensor, ParagraphEncoding]:
        """batch -> sentence vectors (B, N, d) and the paragraph encoding."""
        check_batch(batch)
        sentences = self.sentence_vectors(batch)  # (B, N, d)
        return sentences, self.paragraph_encoder(sentences, batch["sentence_mask"])

    def sentence_vectors(self, batch: dict) -> Tensor:
        """batch -> (B, N, d): from embedded word ids, or from the raw text when the model
        has no word embedding (a pretrained text encoder)."""
        tokens = batch["tokens"]
        batch_size, num, length = tokens.shape
        if self.embedding is None:
            if "texts" not in batch:
                raise ValueError(
                    "batch is missing key 'texts' (raw sentences), which this model's "
                    "sentence encoder reads"
                )
            return self.sentence_encoder(batch["texts"], num)  # (B, N, d)
        words = self.embedding(tokens.reshape(batch_size * num, length))  # (B*N, T, e)
        lengths = batch["token_lengths"].reshape(batch_size * num)  # (B*N,)
        vectors = self.sentence_encoder(words, lengths)  # (B*N, d)
        return vectors.view(batch_size, num, -1)  # (B, N, d)

    @property
    def pointer_decoder(self) -> PointerDecoder:
        """The decoder the searches and `log_prob` use: with END, END's score also sees
        how many presented sentences are unplaced (`models.end_candidate.CountAwareEnd`)."""
        return (
            self.decoder if self.end is None else CountAwareEnd(self.decoder, self.end.count_bias)
        )

    def start(self, batch: dict) -> tuple[Tensors, Tensors, Tensor]:
        """Encode and start the decoder -> (memory, state, candidates (B, C)): the
        presented sentences, C = N, and with END C = N + 1 (END last)."""
        sentences, encoding = self.encode(batch)
        mask = candidates = batch["sentence_mask"]  # (B, N)
        if self.end is not None:
            sentences, encoding, mask, candidates = self.end.append(sentences, encoding, mask)
        memory, state = self.decoder.start(sentences, encoding, mask)
        return memory, state, candidates

    def teacher_orders(self, batch: dict, orders: Tensor) -> Tensor:
        """Checked orders to teacher-force: (B, N) permutations of the presented sentences,
        -1 padded; with END, (B, N + 1) kept sentences followed by END."""
        if self.end is None:
            validate_orders(orders, batch["n_sentences"])
            return orders
        return complete_orders(orders, batch["n_sentences"], batch["sentence_mask"].shape[1])

    def pointer_logits(self, batch: dict, orders: Tensor) -> Tensor:
        """Teacher-forced masked pointer scores (B, C, C) for orders from `teacher_orders`."""
        memory, state, candidates = self.start(batch)
        return self.pointer_decoder.teacher_forced(memory, state, orders, candidates)

    def forward(self, batch: dict) -> Tensor:
        """logits (B, C, C): [b, k, j] scores candidate j at step k after the gold prefix
        gold_order[b, :k] (then END); placed and padding candidates masked (finite)."""
        return self.pointer_logits(batch, self.teacher_orders(batch, batch["gold_order"]))

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """orders (B, N) presented indices, -1 padded -> log P(order | sentences) (B,).

        With END, an order lists the kept sentences, optionally followed by END (index N),
        and is scored as stopped by END."""
        orders = self.teacher_orders(batch, orders)
        return order_log_prob(self.pointer_logits(batch, orders), orders)

    def loss(self, batch: dict) -> Tensor:
        """Mean over documents of the summed NLL of the gold order."""
        return -self.log_prob(batch, batch["gold_order"]).mean()

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
