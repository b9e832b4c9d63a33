"""A prepared cache entry vouches for itself each time it is mapped (data/cache.py): a column
of another schema, a file that is not the one written, a manifest of other versions or
another data digest are each said in one warning naming the entry and what differs, and
the entry is built again, giving the same documents, word ids and digest as the intact one;
the folders of builds that were killed are removed by the next preparation
(data/build_folders.py)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pytest
from fixtures_cache import DAMAGES, edit_manifest, read_table, write_table
from hypothesis import given, settings
from hypothesis import strategies as st
from repo_root import ROOT

from data import cache
from data.build_folders import LEFTOVER_HOURS, OWNER_FILE, remove_leftovers
from data.columns import SplitColumns
from data.datamodule import OrderingDataModule
from data.document import Document
from data.processing import DocumentsDigest, columns_sha256, documents_sha256, prepare_columns
from data.readers.synthetic import SyntheticReader


def make_dm(root: Path) -> OrderingDataModule:
    dm = OrderingDataModule(reader=SyntheticReader(n_train=40, n_valid=10, n_test=12),
                            name="toy", batch_size=8, cache_dir=str(root))  # fmt: skip
    dm.setup()
    return dm


def data_figures(dm: OrderingDataModule) -> dict:
    """What a run reads of the data: documents, word ids, vocabulary, identity (digests)."""
    return {
        "documents": {split: list(columns) for split, columns in dm.documents.items()},
        "ids": {split: [[ids.tolist() for ids in columns.token_ids(i)]
                        for i in range(len(columns))]
                for split, columns in dm.documents.items()},
        "vocab": dm.vocab.itos,
        "identity": dm.identity(),
    }  # fmt: skip


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_entry_is_named_in_one_warning_and_built_again_the_same(
    tmp_path: Path, caplog, damage: str
):
    intact = make_dm(tmp_path / "cache")
    entry, figures = intact.cache_path, data_figures(intact)
    damage_entry, says = DAMAGES[damage]
    damage_entry(entry)
    caplog.set_level(logging.INFO, logger="data.cache")
    again = make_dm(tmp_path / "cache")
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.startswith(f"{entry}: damaged processed-data cache (")
    assert says in warning and warning.endswith("; removed; building it again")
    assert not again.loaded_from_cache and again.cache_path == entry
    assert data_figures(again) == figures  # the data digest among them: computed, the same
    assert make_dm(tmp_path / "cache").loaded_from_cache  # whole again
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [entry.name]


def test_the_data_digest_is_computed_from_the_documents_read(tmp_path: Path, monkeypatch):
    """Never copied from the manifest: a manifest that agrees with itself but not with the
    columns is caught (its file digests edited to match a rewritten column)."""
    intact = make_dm(tmp_path / "cache")
    entry = intact.cache_path
    text = entry / "test" / "text.arrow"
    table = read_table(text)
    ids = pa.array([f"other-{i}" for i in range(table.num_rows)], pa.string())
    write_table(text, table.set_column(0, "id", ids))
    edit_manifest(entry, "files", cache.folder_digests(entry, cache.ENTRY_FILES))
    with pytest.raises(cache.DamagedCacheError, match=r"the manifest's documents_sha256 is "
                                                      r"\w{12}\.\.\., the documents read give"):
        cache.load_processed(entry)


TEXT = st.text(min_size=1).filter(str.strip)  # any Unicode, quotes, escapes, controls
META = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(), inner, max_size=3), max_leaves=6)  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(doc_id=TEXT, sentences=st.lists(TEXT, min_size=1, max_size=4),
       meta=st.dictionaries(st.text(), META, max_size=3), source=st.text())
def test_the_documents_digest_is_json_dumps_of_each_record(doc_id, sentences, meta, source):
    """Written out string by string for speed, byte for byte the digest every record holds
    (`json.dumps([split, id, sentences, meta, source], sort_keys=True)` per document), from
    a document and from the columns written of it."""
    document = Document(doc_id, tuple(sentences), meta, source)
    expected = hashlib.sha256(json.dumps(["valid", document.id, document.sentences,
                                          document.meta, document.source],
                                         sort_keys=True).encode("utf-8")).hexdigest()
    digest = DocumentsDigest()
    digest.update("valid", document)
    assert digest.hexdigest() == expected
    with tempfile.TemporaryDirectory() as folder:
        splits = {"train": [Document("t", ("Train.",))], "valid": [document],
                  "test": [Document("e", ("Test.",))]}  # fmt: skip
        prepare_columns("toy", splits, Path(folder))
        columns = {split: SplitColumns.open(Path(folder) / split) for split in splits}
        assert columns_sha256(columns) == documents_sha256(splits)


def test_an_entry_that_fails_its_check_right_after_it_is_built_is_an_error_naming_it(
    tmp_path: Path, monkeypatch
):
    real = cache._finish

    def lying(folder: Path, prepared, material: dict) -> None:
        prepared.documents_sha256 = "0" * 64  # a build that records another digest
        real(folder, prepared, material)

    monkeypatch.setattr(cache, "_finish", lying)
    with pytest.raises(cache.DamagedCacheError) as caught:
        make_dm(tmp_path / "cache")
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'cache'}/")
    assert "damaged processed-data cache" in message
    assert message.endswith(", just after it was built: it cannot be rebuilt here (check the "
                            f"disk under {tmp_path / 'cache'}, or delete the entry)")
    assert "\n" not in message


# -- the folders of builds that were killed ------------------------------------------------
KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
from data.columns import SplitColumns
from data.datamodule import OrderingDataModule
from data.document import Document
from data.processing import DocumentsDigest, columns_sha256, documents_sha256, prepare_columns
from data.readers.synthetic import SyntheticReader
import data.ordering_data as od

real = od.prepare_columns
def killed(name, splits, folder, *args, **kwargs):
    (folder / "half-written").write_bytes(b"x" * 1000)
    os.kill(os.getpid(), signal.SIGKILL)  # kill -9 in the middle of the build
od.prepare_columns = killed
OrderingDataModule(reader=SyntheticReader(n_train=40, n_valid=10, n_test=12), name="toy",
                   batch_size=8, cache_dir=sys.argv[1]).setup()
"""


def test_the_folder_of_a_killed_build_is_removed_by_the_next_preparation(tmp_path: Path, caplog):
    root = tmp_path / "cache"
    killed = subprocess.run([sys.executable, "-c", KILLED_BUILD, str(root)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    [leftover] = root.iterdir()
    assert leftover.name.startswith(".") and (leftover / "half-written").is_file()
    pid = json.loads((leftover / OWNER_FILE).read_text())["pid"]
    caplog.set_level(logging.INFO, logger="data.cache")
    dm = make_dm(root)
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning == (f"{root}: removed 1 leftover folder(s) of builds that were killed, "
                       f"0.0 MiB: {leftover.name} (pid {pid})")
    assert [p.name for p in root.iterdir()] == [dm.cache_path.name]


def test_a_build_folder_still_held_by_its_builder_is_kept(tmp_path: Path):
    folder, owner, unwritable = cache._build_folder(tmp_path / ("a" * 20))
    try:
        assert unwritable is None and (folder / OWNER_FILE).is_file()
        assert remove_leftovers(tmp_path) is None and folder.is_dir()  # a live build
    finally:
        owner.close()
    assert remove_leftovers(tmp_path).startswith(f"{tmp_path}: removed 1 leftover")
    assert not folder.exists()


def test_a_build_folder_without_an_owner_file_is_a_leftover_by_its_age(tmp_path: Path):
    young, old = tmp_path / f".{'b' * 20}-young123", tmp_path / f".{'b' * 20}-old45678"
    removed = tmp_path / f".{'c' * 20}-removed-0a1b2c3d"
    other = tmp_path / ".not-a-build"
    for folder in (young, old, removed, other):
        folder.mkdir()
    hours_ago = time.time() - (LEFTOVER_HOURS + 1) * 3600
    os.utime(old, (hours_ago, hours_ago))
    assert remove_leftovers(tmp_path).endswith(
        f"{old.name} ({LEFTOVER_HOURS + 1} h old), {removed.name} (removed entry)")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([young.name, other.name])
