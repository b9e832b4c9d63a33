"""Damage done to a processed-data cache entry (data/cache.py), as a user's script or a
failing disk might leave it: the faults of issue 64, each with what the warning says."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa


def write_table(path: Path, table: pa.Table) -> None:
    """`table` as the Arrow file `path`, replacing it (a new file: the old one may be mapped)."""
    written = path.with_suffix(".new")
    with pa.OSFile(str(written), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    written.replace(path)


def read_table(path: Path) -> pa.Table:
    return pa.ipc.open_file(pa.memory_map(str(path))).read_all()


def rewrite(path: Path, schema: pa.Schema) -> None:
    """The same data in another schema (a cast), as a user's script might leave it."""
    write_table(path, read_table(path).cast(schema))


def edit_manifest(entry: Path, key: str, value) -> None:
    manifest = json.loads((entry / "manifest.json").read_text())
    *parents, leaf = key.split(".")
    node = manifest
    for part in parents:
        node = node[part]
    node[leaf] = value
    (entry / "manifest.json").write_text(json.dumps(manifest))


def drop_from_manifest(entry: Path, *keys: str) -> None:
    """The manifest as an earlier version wrote it (without `keys`)."""
    manifest = json.loads((entry / "manifest.json").read_text())
    (entry / "manifest.json").write_text(json.dumps({k: v for k, v in manifest.items()
                                                     if k not in keys}))  # fmt: skip


def flip_bytes(path: Path) -> None:
    """16 bytes in the middle of the file inverted: the same size, other content."""
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 16] = bytes(b ^ 0xFF for b in data[middle : middle + 16])
    path.unlink()  # a new file: the old one may be mapped
    path.write_bytes(bytes(data))


TOKENS = pa.schema([("token_ids", pa.list_(pa.list_(pa.int64())))])
TEXT = pa.schema([("id", pa.large_string()), ("source", pa.string()), ("meta", pa.string()),
                  ("sentences", pa.list_(pa.string()))])  # fmt: skip
DAMAGES = {  # the faults of issue 64 and what the warning says of each
    "ids as int64": (lambda e: rewrite(e / "train" / "token_ids.arrow", TOKENS),
                     "train/token_ids.arrow: token_ids is list<item: list<item: int64>>, the "
                     "code writes list<item: list<item: int32>>"),
    "ids as int16": (lambda e: rewrite(e / "train" / "token_ids.arrow", pa.schema(
                         [("token_ids", pa.list_(pa.list_(pa.int16())))])),
                     "token_ids is list<item: list<item: int16>>"),
    "ids as large_list": (lambda e: rewrite(e / "valid" / "token_ids.arrow", pa.schema(
                              [("token_ids", pa.large_list(pa.list_(pa.int32())))])),
                          "token_ids is large_list<item: list<item: int32>>"),
    "id as large_string": (lambda e: rewrite(e / "test" / "text.arrow", TEXT),
                           "test/text.arrow: id is large_string, the code writes string"),
    "a column renamed": (lambda e: write_table(e / "test" / "text.arrow", read_table(
                             e / "test" / "text.arrow").rename_columns(
                             ["doc_id", "source", "meta", "sentences"])),
                         "columns ['doc_id', 'source', 'meta', 'sentences'], the code writes "
                         "['id', 'source', 'meta', 'sentences']"),
    "bytes flipped": (lambda e: flip_bytes(e / "train" / "token_ids.arrow"),
                      "train/token_ids.arrow is not the file written (its xxh3_128 "),
    "vocabulary edited": (lambda e: (e / "vocab.json").write_text(
                              (e / "vocab.json").read_text().replace('"first"', '"frist"')),
                          "vocab.json is not the file written"),
    "documents digest edited": (lambda e: edit_manifest(e, "documents_sha256", "f" * 64),
                                "the manifest's documents_sha256 is ffffffffffff..., the "
                                "documents read give "),
    "reader version": (lambda e: edit_manifest(e, "reader.version", 7),
                       "the manifest's reader.version is 7, the code's 1"),
    "tokenizer version": (lambda e: edit_manifest(e, "settings.tokenizer", 9),
                          "the manifest's settings.tokenizer is 9, the code's 1"),
    "format": (lambda e: edit_manifest(e, "format", 1), "the manifest's format is 1, the code's 2"),
    "an earlier version's entry": (lambda e: drop_from_manifest(e, "files", "file_digest",
                                                                  "format"),
                                   "the manifest holds no file digests (an entry of an "
                                   "earlier version)"),
}  # fmt: skip
