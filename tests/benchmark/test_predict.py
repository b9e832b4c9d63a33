"""`python -m benchmark.predict`: the sentence splitter, the input modes, and ordering a
shuffled paragraph with a tiny trained run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixtures_runs import edit_record
from fixtures_sweep import run_dir_of
from fixtures_train import train

from benchmark.predict import main, sentences_of, unknown_words_note
from benchmark.records.run_record import VOCAB_NAME
from benchmark.run.finished_run import RunError, load_finished_run
from data.readers.synthetic import SyntheticReader
from data.sentence_split import split_sentences
from data.tokenize import tokenize

TINY = (  # a seconds-long run: few documents, one epoch
    "model=lstm_ptrnet", "+experiment=tiny", "logger=csv", "trainer.max_epochs=1",
    "+dataset.reader.n_train=64", "+dataset.reader.n_valid=16", "+dataset.reader.n_test=16",
    "bootstrap_resamples=10",
)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Mr. Smith met Dr. Jones. They talked.", ["Mr. Smith met Dr. Jones.", "They talked."]),
        ("It costs 3.5 dollars. Cheap!", ["It costs 3.5 dollars.", "Cheap!"]),
        ("Use tools, e.g. Hammers. Or not?", ["Use tools, e.g. Hammers.", "Or not?"]),
        ('"Stop!" he said. He left.', ['"Stop!" he said.', "He left."]),
        ('He said "Go." Then he left.', ['He said "Go."', "Then he left."]),
        ("J. F. Kennedy ran. The U.S. Army left.", ["J. F. Kennedy ran.", "The U.S. Army left."]),
        # pySBD keeps a bracketed sentence with what follows it
        ("Wait... Then (it rained.) 42 ran.", ["Wait...", "Then (it rained.) 42 ran."]),
        ("  no final stop\n and a wrapped line ", ["no final stop and a wrapped line"]),
    ],
)
def test_sentence_splitter(text: str, sentences: list[str]):
    assert split_sentences(text) == sentences


def test_input_modes():
    assert sentences_of("One here.\nTwo there.\n\n") == (["One here.", "Two there."], True)
    wrapped = "The cat sat on\nthe mat. The dog\nbarked."
    assert sentences_of(wrapped) == (["The cat sat on the mat.", "The dog barked."], False)
    assert sentences_of("A first. A second.") == (["A first.", "A second."], False)
    assert sentences_of("A first. A second.", "lines") == (["A first. A second."], True)
    assert sentences_of("no stop\nat all", "text") == (["no stop at all"], False)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    train(runs, *TINY)
    return run_dir_of(runs, "synthetic/lstm_ptrnet/base")


@pytest.fixture(scope="module")
def paragraph() -> list[str]:
    """A synthetic test paragraph, in its gold order."""
    splits = SyntheticReader(n_train=64, n_valid=16, n_test=16).read_splits()
    return list(splits["test"][0].sentences)


def test_orders_a_shuffled_paragraph(run_dir: Path, paragraph: list[str], tmp_path: Path, capsys):
    shuffled = paragraph[1:] + paragraph[:1]
    source = tmp_path / "paragraph.txt"
    source.write_text("\n".join(shuffled) + "\n")
    assert main([f"run={run_dir}", f"input={source}", "beam=2"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert sorted(printed) == sorted(paragraph)


def test_raw_text_is_split_and_printed_as_a_paragraph(run_dir: Path, tmp_path: Path, capsys):
    text = "The second dog saw a cat. The first man walked. A third tree fell."
    source = tmp_path / "text.txt"
    source.write_text(text)
    assert main([f"run={run_dir}", f"input={source}"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    assert sorted(split_sentences(printed)) == sorted(split_sentences(text))


def test_the_note_names_the_words_the_vocabulary_lacks(run_dir: Path, tmp_path: Path, capsys):
    trained = SyntheticReader(n_train=64, n_valid=16, n_test=16).read_splits()["train"][0]
    known = [sentence.rstrip(".") for sentence in trained.sentences[:2]]  # every word known
    lines = [f"{known[0]} zyzzyva.", f"{known[1]} quokka zyzzyva."]
    source = tmp_path / "text.txt"
    source.write_text("\n".join(lines) + "\n")
    assert main([f"run={run_dir}", f"input={source}"]) == 0
    total = len(load_finished_run(run_dir).vocab.encode(
        [token for line in lines for token in tokenize(line)]
    ))
    assert capsys.readouterr().err.strip() == (
        f"orderbench predict: note: 3 of {total} words are not in the run's vocabulary "
        "(read as <unk>): 'zyzzyva', 'quokka'"
    )


def test_the_note_names_a_few_words_and_counts_the_rest():
    assert unknown_words_note([], 10) is None
    assert unknown_words_note(["qux"], 51) == (
        "1 of 51 words is not in the run's vocabulary (read as <unk>): 'qux'"
    )
    words = [f"w{i}" for i in range(8)] + ["w0"]
    assert unknown_words_note(words, 40).endswith("'w0', 'w1', 'w2', 'w3', 'w4' and 3 more")


def unreadable_dataset(record: dict) -> None:
    """The run's own config, its dataset's reader one that cannot be built."""
    record["config"]["dataset"]["reader"]["_target_"] = "no.such.Reader"


def test_a_vocabulary_saved_in_the_run_replaces_the_dataset(run_dir: Path, paragraph, tmp_path):
    from_data = load_finished_run(run_dir)
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    from_data.vocab.save(copy / VOCAB_NAME)
    edit_record(copy, unreadable_dataset)  # as a run of a dataset not needed now
    from_copy = load_finished_run(copy)
    assert from_copy.vocab.itos == from_data.vocab.itos
    assert from_copy.order(paragraph, 2) == from_data.order(paragraph, 2)


def test_errors_are_one_line_with_exit_status_2(run_dir: Path, tmp_path: Path, capsys):
    text = tmp_path / "in.txt"
    text.write_text("One sentence.\nAnother one.\n")
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n\n")
    no_checkpoint = tmp_path / "unfinished"
    shutil.copytree(run_dir, no_checkpoint, ignore=shutil.ignore_patterns("checkpoints"))
    no_dataset = tmp_path / "no_dataset"  # no vocab.json and a dataset that cannot be read
    shutil.copytree(run_dir, no_dataset)
    (no_dataset / VOCAB_NAME).unlink()
    edit_record(no_dataset, unreadable_dataset)
    moved = tmp_path / "moved"  # a record made before its preset's module moved
    shutil.copytree(run_dir, moved)
    edit_record(moved, lambda record: record["config"]["model"]["net"].update(
        _target_="models.presets.moved_away.lstm_ptrnet"))
    with pytest.raises(RunError, match="its config no longer builds a model"):
        load_finished_run(moved)  # a RunError: `orderbench presentation` goes on past it
    cases = {
        "its config no longer builds a model": [f"run={moved}", f"input={text}"],
        "the vocabulary cannot be rebuilt": [f"run={no_dataset}", f"input={text}"],
        "no such run directory": [f"run={tmp_path / 'missing'}", f"input={text}"],
        "no checkpoint": [f"run={no_checkpoint}", f"input={text}"],
        "the input is empty": [f"run={run_dir}", f"input={empty}"],
        "no such input file": [f"run={run_dir}", f"input={tmp_path / 'none.txt'}"],
        "beam must be an integer": [f"run={run_dir}", f"input={text}", "beam=0"],
        "missing run": [f"input={text}"],
        "unexpected argument": [f"run={run_dir}", f"input={text}", "colour=red"],
    }
    for message, argv in cases.items():
        assert main(argv) == 2, message
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


def test_a_run_reads_new_text_with_its_own_tokenizer():
    """`predict` tokenises as the run was trained (`dataset.datamodule.tokenizer`); a run
    stored before the key existed used the regex tokenizer."""
    from omegaconf import OmegaConf

    from benchmark.run.finished_run import FinishedRun
    from data.vocab import Vocab

    vocab = Vocab(["<pad>", "<unk>", "face/image", "face", "image"])

    def run_with(datamodule: dict) -> FinishedRun:
        config = OmegaConf.create({"dataset": {"datamodule": datamodule}})
        return FinishedRun(config, None, vocab, 60, Path("run"))

    assert run_with({"tokenizer": "whitespace"}).unknown_words(["Face/image ."]) == (["."], 2)
    assert run_with({}).unknown_words(["Face/image ."]) == (["/", "."], 4)
