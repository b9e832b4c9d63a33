"""`collate` pads presented examples into the batch dict: checked sentence by sentence."""

import random

import torch

from data.collate import collate
from data.example import Example
from data.vocab import PAD_ID


def random_examples(seed: int, count: int = 7) -> list[Example]:
    rng = random.Random(seed)
    examples = []
    for d in range(count):
        n = rng.randint(1, 6)
        sentences = [[rng.randint(2, 50) for _ in range(rng.randint(1, 9))] for _ in range(n)]
        ids = list(range(n - 1)) + [rng.choice([n - 1, -1])]  # sometimes a distractor
        rng.shuffle(ids)
        examples.append(Example(f"doc-{d}", sentences, ids))
    return examples


def test_every_sentence_lands_in_its_slot_with_padding_elsewhere():
    for seed in range(20):
        examples = random_examples(seed)
        batch = collate(examples)
        batch_size, n_max, t_max = batch["tokens"].shape
        for b, ex in enumerate(examples):
            n = len(ex.sentences)
            assert batch["n_sentences"][b] == n
            assert batch["sentence_mask"][b].tolist() == [j < n for j in range(n_max)]
            for j in range(n_max):
                row = batch["tokens"][b, j].tolist()
                sentence = ex.sentences[j] if j < n else []
                assert row == sentence + [PAD_ID] * (t_max - len(sentence))
                assert batch["token_lengths"][b, j] == len(sentence)
            gold = [ex.sentence_ids.index(i) for i in sorted(i for i in ex.sentence_ids if i >= 0)]
            assert batch["gold_order"][b].tolist() == gold + [-1] * (n_max - len(gold))
        assert batch["tokens"].dtype == torch.long and batch_size == len(examples)
