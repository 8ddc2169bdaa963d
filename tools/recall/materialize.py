"""Recreate the recall corpus folders from the manifest.

    python -m tools.recall.materialize [--corpus /work/corpus] [--mirrors /work/.mirror]
                                       [--sdists DIR] [--download] [--split dev|holdout|all] [--force]

GitHub sources: the ``.py`` and ``.ipynb`` files of the manifest's commit (not the newest one),
taken from a bare mirror ``<mirrors>/<owner+name>/repo`` (or ``repo/.git``), such as the
``fetch`` tool of this workplace makes, or a ``git clone --mirror`` elsewhere; paths under the
repository's ``exclude`` prefixes are left out. Files the mirror does not hold (a snapshot can
lack files of 4 MiB and more) are reported and skipped. PyPI sources: the sdist
``<sdists>/<name>-<version>.tar.gz`` (default ``<corpus>/.sdists``), fetched with
``pip download --no-deps --no-binary :all: name==version`` when ``--download`` is given,
unpacked as ``<corpus>/<name>-<version>/``. A folder that exists already is kept unless
``--force``. Exits 1 if any repository could not be made. Nothing here is committed: the
corpus is third-party code and stays outside the repository.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from tools.recall.labels import LabelError, Repo, load_manifest

SOURCE_SUFFIXES = (".py", ".ipynb")


class MaterializeError(Exception):
    """One repository could not be made; the message says why and what to do."""


def mirror_git_dir(mirrors: Path, name: str) -> Path:
    for candidate in (mirrors / name / "repo" / ".git", mirrors / name / "repo", mirrors / name):
        if (candidate / "HEAD").is_file():
            return candidate
    raise MaterializeError(f"no mirror of {name} under {mirrors} (fetch github:{name.replace('+', '/', 1)})")


def _git(git_dir: Path, *args: str) -> bytes:
    result = subprocess.run(["git", f"--git-dir={git_dir}", *args], check=False, capture_output=True)
    if result.returncode != 0:
        raise MaterializeError(f"git {' '.join(args[:2])} failed in {git_dir}: {result.stderr.decode().strip()}")
    return result.stdout


def source_blobs(git_dir: Path, commit: str, exclude: tuple) -> list:
    """(path, blob id) of the .py and .ipynb files of ``commit``, without the excluded prefixes."""
    listing = _git(git_dir, "ls-tree", "-r", "-z", commit)
    blobs = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        kind, blob = meta.split()[1:3]
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind != b"blob" or not path.endswith(SOURCE_SUFFIXES):
            continue
        if any(path.startswith(prefix) for prefix in exclude):
            continue
        blobs.append((path, blob.decode()))
    return blobs


def make_github(repo: Repo, target: Path, mirrors: Path) -> list:
    """Write the repository's source files into ``target``; returns the paths that were missing."""
    git_dir = mirror_git_dir(mirrors, repo.name)
    _git(git_dir, "cat-file", "-e", f"{repo.commit}^{{commit}}")
    missing = []
    for path, blob in source_blobs(git_dir, repo.commit, repo.exclude):
        result = subprocess.run(
            ["git", f"--git-dir={git_dir}", "cat-file", "blob", blob], check=False, capture_output=True
        )
        if result.returncode != 0:
            missing.append(path)
            continue
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(result.stdout)
    return missing


def make_pypi(repo: Repo, corpus: Path, sdists: Path, download: bool) -> None:
    spec = repo.source.removeprefix("pypi:")
    name, _, version = spec.partition("==")
    if not version:
        raise MaterializeError(f"{repo.name}: source {repo.source!r} names no version (pypi:name==version)")
    archive = sdists / f"{name}-{version}.tar.gz"
    if not archive.is_file() and download:
        sdists.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-d",
            str(sdists),
            spec,
        ]
        subprocess.run(command, check=False)
    if not archive.is_file():
        raise MaterializeError(f"{repo.name}: no {archive} (run again with --download, or pip download {spec})")
    with tarfile.open(archive) as tar:
        try:
            tar.extractall(corpus, filter="data")
        except TypeError:  # pragma: no cover - Python without extraction filters
            tar.extractall(corpus)
    if not (corpus / repo.name).is_dir():
        raise MaterializeError(f"{repo.name}: {archive.name} did not unpack to {repo.name}/")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.recall.materialize", description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=os.environ.get("GRADGUARD_RECALL_CORPUS", "/work/corpus"))
    parser.add_argument("--mirrors", default="/work/.mirror", help="folder of bare git mirrors named owner+name")
    parser.add_argument("--sdists", help="folder of sdist archives (default: <corpus>/.sdists)")
    parser.add_argument("--download", action="store_true", help="pip download missing sdists")
    parser.add_argument("--split", choices=("dev", "holdout", "all"), default="all")
    parser.add_argument("--force", action="store_true", help="remake folders that exist")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    sdists = Path(args.sdists) if args.sdists else corpus / ".sdists"
    try:
        repos = load_manifest().in_split(args.split)
    except LabelError as exc:
        print(f"tools.recall.materialize: error: {exc}", file=sys.stderr)
        return 2
    corpus.mkdir(parents=True, exist_ok=True)
    failed = 0
    for repo in repos:
        target = corpus / repo.name
        if target.exists() and not args.force:
            print(f"{repo.name}: kept (exists)")
            continue
        if target.exists():
            shutil.rmtree(target)
        try:
            if repo.source.startswith("github:"):
                target.mkdir(parents=True)
                missing = make_github(repo, target, Path(args.mirrors))
                note = f", {len(missing)} files not in the mirror: {', '.join(missing[:3])}" if missing else ""
                print(f"{repo.name}: made from {repo.commit[:12]}{note}")
            elif repo.source.startswith("pypi:"):
                make_pypi(repo, corpus, sdists, args.download)
                print(f"{repo.name}: unpacked")
            else:
                raise MaterializeError(f"{repo.name}: unknown source {repo.source!r}")
        except MaterializeError as exc:
            failed += 1
            shutil.rmtree(target, ignore_errors=True)
            print(f"tools.recall.materialize: error: {exc}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
