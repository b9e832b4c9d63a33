"""A listwise head as a pointer decoder: one score per sentence, the same at every step.

RankTxNet (Kumar, Brahma, Mulchandani and Yadav 2020, "Deep Attention-based
Representations for Sentence Ordering", AAAI) scores each sentence once, s_j = f(c_j),
and trains with ListMLE (Xia et al. 2008): the negative log-likelihood of the gold order
under the Plackett-Luce model, P(o) = prod_k exp(s_{o_k}) / sum_{j not in o_<k} exp(s_j).
That is a pointer network whose step scores do not depend on the prefix, so the suite's
pointer loss (`models.ordering_model.OrderingModel.loss`) is ListMLE exactly, `log_prob`
is the Plackett-Luce probability, and greedy decoding sorts the sentences by score (beam
search finds the same order: every step's best candidate is the remaining top score).

It reads the paragraph encoder's contexts (B, N, h): with an identity paragraph encoder
(`models.blocks.paragraph_identity`), the sentence vectors of a contextual encoder such as
`models.blocks.paragraph_transformer`. The scorer is a one-hidden-layer MLP.
"""

from torch import Tensor, nn

from models.interfaces import ParagraphEncoding, Tensors
from models.search.candidates import mask_scores, placed_before


class ListwiseScoreDecoder(nn.Module):
    def __init__(
        self,
        input_dim: int,  # context width
        hidden_dim: int,  # scorer MLP width
        dropout: float = 0.1,  # on the contexts
    ):
        super().__init__()
        self.score = nn.Sequential(
            nn.Dropout(dropout), nn.Linear(input_dim, hidden_dim), nn.Tanh(),
            nn.Linear(hidden_dim, 1),
        )  # fmt: skip

    def start(
        self, sentences: Tensor, encoding: ParagraphEncoding, mask: Tensor
    ) -> tuple[Tensors, Tensors]:
        """contexts (B, N, h) -> memory (scores (B, N),), no state."""
        return (self.score(encoding.contexts).squeeze(-1),), ()

    def step(
        self, memory: Tensors, state: Tensors, previous: Tensor | None, available: Tensor
    ) -> tuple[Tensor, Tensors]:
        """available (R, N) -> the fixed scores, masked (R, N); the state stays empty."""
        (scores,) = memory
        return mask_scores(scores, available), state

    def teacher_forced(
        self, memory: Tensors, state: Tensors, orders: Tensor, available: Tensor
    ) -> Tensor:
        """orders (B, N) -1 padded -> masked scores (B, N, N): row k = the scores of the
        sentences not placed before step k."""
        (scores,) = memory
        num = scores.shape[1]
        allowed = available.unsqueeze(1) & ~placed_before(orders, num)  # (B, N, N)
        return mask_scores(scores.unsqueeze(1).expand(-1, num, -1), allowed)

    def reindex(self, tensors: Tensors, index: Tensor) -> Tensors:
        """Rows `index` (R',) of every tensor in `tensors`."""
        return tuple(tensor.index_select(0, index) for tensor in tensors)

