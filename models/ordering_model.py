"""A sentence-ordering model composed of embedding -> sentence encoder -> paragraph
encoder -> pointer decoder (docs/design.md, section 6; Gong et al. 2016, "End-to-End Neural
Sentence Ordering Using Pointer Network", and the later Ptr-Net orderers of Cui et al.
2018 and Wang & Wan 2019 share this shape).

The model is trained by teacher forcing on the gold order and decodes with greedy or
beam search. It scores P(order | sentences) = prod_k P(o_k | o_<k, sentences), each
factor a softmax over the sentences not yet placed. Documents with distractors (the
noise setting) are handled by wrapping the model (`models.noise.noise_wrapper`).

A batch is prepared on the host before it goes to its device (`models.batch`): there its
gold order is checked and `host_inputs` computes what the step would otherwise read back
(the sentence encoder's length buckets on a CPU, the token ids of a text encoder), so a
training step reads no value on the host.
"""

import torch
from torch import Tensor, nn

from models.batch import PREPARED, prepared, row_passes, to_device
from models.interfaces import (
    ParagraphEncoder,
    ParagraphEncoding,
    PointerDecoder,
    SentenceEncoder,
    Tensors,
    TextSentenceEncoder,
)
from models.search.beam_search import beam_search
from models.search.candidates import order_log_prob, validate_orders
from models.search.greedy_search import greedy_search


class OrderingModel(nn.Module):

    def __init__(
        self,
        sentence_encoder: SentenceEncoder | TextSentenceEncoder,
        paragraph_encoder: ParagraphEncoder,
        decoder: PointerDecoder,
        embedding: nn.Module | None,  # None: the sentence encoder reads batch["texts"]
    ):
        super().__init__()
        self.embedding = embedding
        self.sentence_encoder = sentence_encoder
        self.paragraph_encoder = paragraph_encoder
        self.decoder = decoder

    def host_inputs(self, batch: dict, buckets: bool, fixed_shapes: bool = False) -> dict:
        """On the host (`models.batch.prepare_batch`): what the sentence encoder reads
        besides the tensors: a text encoder's inputs (`texts`, of a few lengths with
        `fixed_shapes`), or with `buckets` the length buckets of an encoder that plans them
        (`plan`)."""
        if self.embedding is None:
            encoder, num = self.sentence_encoder, batch["tokens"].shape[1]
            return {"texts": encoder.text_inputs(_texts(batch), num, fixed_shapes)}
        planner = getattr(self.sentence_encoder, "bucket_plan", None)
        if not buckets or planner is None:
            return {"plan": None}
        return {"plan": planner(batch["token_lengths"].reshape(-1))}

    def encode(self, batch: dict) -> tuple[Tensor, ParagraphEncoding, Tensor | None]:
        """batch -> sentence vectors (B, N, d), the paragraph encoding and the word vectors
        (B, N, T, e) (None for a model without a word embedding)."""
        batch = prepared(self, batch)
        words = None if self.embedding is None else self.embedding(batch["tokens"])
        sentences = self.sentence_vectors(batch, words)  # (B, N, d)
        return sentences, self.paragraph_encoder(sentences, batch["sentence_mask"]), words

    def sentence_vectors(self, batch: dict, words: Tensor | None) -> Tensor:
        """A prepared batch and its word vectors (B, N, T, e) -> (B, N, d): from the word
        vectors, or from the raw text's inputs when the model has no word embedding (a
        pretrained text encoder, `words` None)."""
        batch_size, num, length = batch["tokens"].shape
        host = batch[PREPARED]
        if words is None:
            inputs = to_device(host["texts"], batch["tokens"].device)  # moved with the batch
            return self.sentence_encoder(inputs, num)  # (B, N, d)
        words = words.reshape(batch_size * num, length, -1)  # (B*N, T, e)
        lengths = batch["token_lengths"].reshape(batch_size * num)  # (B*N,)
        plans = hasattr(self.sentence_encoder, "bucket_plan")  # else: called without one
        vectors = self.sentence_encoder(words, lengths, *([host["plan"]] if plans else []))
        return vectors.view(batch_size, num, -1)  # (B*N, d) -> (B, N, d)

    @property
    def pointer_decoder(self) -> PointerDecoder:
        """The decoder the searches and `log_prob` use."""
        return self.decoder

    def start(self, batch: dict) -> tuple[Tensors, Tensors, Tensor]:
        """Encode and start the decoder -> (memory, state, candidates (B, N))."""
        sentences, encoding, _ = self.encode(batch)
        mask = batch["sentence_mask"]  # (B, N)
        return *self.decoder.start(sentences, encoding, mask), mask

    def pointer_logits(self, batch: dict, orders: Tensor) -> Tensor:
        """Teacher-forced masked pointer scores (B, N, N) for orders (B, N) already checked
        (the gold order of a prepared batch, or by `validate_orders`)."""
        memory, state, candidates = self.start(batch)
        return self.decoder.teacher_forced(memory, state, orders, candidates)

    def forward(self, batch: dict) -> Tensor:
        """logits (B, N, N): [b, k, j] scores sentence j at step k after the gold prefix
        gold_order[b, :k]; placed and padding sentences masked (finite)."""
        batch = self._gold_checked(batch)
        return self.pointer_logits(batch, batch["gold_order"])

    def _gold_checked(self, batch: dict) -> dict:
        """`batch` prepared, its gold order checked unless the harness prepared it (the
        collation builds it right, `data.collate`)."""
        if PREPARED not in batch:
            validate_orders(batch["gold_order"], batch["n_sentences"])
        return prepared(self, batch)

    def log_prob(self, batch: dict, orders: Tensor) -> Tensor:
        """orders (B, N) presented indices, -1 padded -> log P(order | sentences) (B,)."""
        validate_orders(orders, batch["n_sentences"])
        return order_log_prob(self.pointer_logits(batch, orders), orders)

    def log_prob_of_rows(
        self, batch: dict, doc_of_row: Tensor, orders: Tensor, rows_per_pass: int | None = None
    ) -> Tensor:
        """`log_prob` of orders[r] (R, N) for document doc_of_row[r] (R,) of `batch`: the
        batch encoded once (the encoders do not depend on the scored order), the decoder
        teacher-forced from each row's document in passes of `rows_per_pass` rows (None: one
        pass)."""
        validate_orders(orders, batch["n_sentences"].index_select(0, doc_of_row))
        memory, state, candidates = self.start(batch)  # per document
        scores = []
        for part in row_passes(len(doc_of_row), rows_per_pass):
            index, rows = doc_of_row[part], orders[part]
            logits = self.decoder.teacher_forced(  # (r, N, N)
                self.decoder.reindex(memory, index), self.decoder.reindex(state, index), rows,
                candidates.index_select(0, index),
            )  # fmt: skip
            scores.append(order_log_prob(logits, rows))  # (r,)
        return torch.cat(scores) if scores else orders.new_zeros(0, dtype=torch.float)

    def loss(self, batch: dict) -> Tensor:
        """Mean over documents of the summed NLL of the gold order."""
        batch = self._gold_checked(batch)
        gold = batch["gold_order"]
        return -order_log_prob(self.pointer_logits(batch, gold), gold).mean()

    @torch.no_grad()
    def search(self, batch: dict, beam_size: int = 1) -> tuple[Tensor, Tensor]:
        """-> predicted orders (B, N) (-1 padded) and their log-probabilities (B,).

        beam_size = 1 is greedy decoding."""
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size < 1:
            raise ValueError(f"beam_size must be an integer >= 1, got {beam_size!r}")
        memory, state, candidates = self.start(batch)
        if beam_size == 1:
            return greedy_search(self.decoder, memory, state, candidates)
        return beam_search(self.decoder, memory, state, candidates, beam_size)

    def decode(self, batch: dict, beam_size: int = 1) -> Tensor:
        """-> predicted order (B, N) as presented indices, -1 padded (at k >= n)."""
        return self.search(batch, beam_size)[0]


def _texts(batch: dict) -> list[list[str]]:
    """The raw sentences of `batch`, which a text encoder reads."""
    if "texts" not in batch:
        raise ValueError(
            "batch is missing key 'texts' (raw sentences), which this model's sentence "
            "encoder reads"
        )
    return batch["texts"]
