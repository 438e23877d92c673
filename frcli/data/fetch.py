"""Download catalog files from a mirror (plain HTTP(S) GET of ``<mirror>/<relative path>``).

The official pages (Mulan, the CLUS HMC page) distribute archives, so a mirror laid out like the
catalog paths is the one reproducible route. Files already under a data root (e.g. the shared
data folder the catalog searches) are present, and need neither a mirror nor a download
unless ``force``.
Each file is written to a temporary name and renamed, so an interrupted download leaves nothing
half-written behind.
"""
from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from frcli.errors import UserError


def fetch_file(url: str, target: Path, timeout: float = 60.0) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out, length=1 << 20)
        os.replace(tmp, target)
    except urllib.error.HTTPError as e:
        raise UserError(f"download failed: {url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise UserError(f"download failed: {url}: {reason}") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def missing_files(entry, roots: list[Path]) -> list[str]:
    """The entry's files found under none of ``roots`` (what a fetch has to download)."""
    return [rel for rel in entry.files if not any((Path(r) / rel).is_file() for r in roots)]


def fetch_entry(entry, mirror: str | None, dest: str | Path, *, force: bool = False,
                timeout: float = 60.0, roots: list[Path] | None = None
                ) -> list[tuple[str, str]]:
    """Fetch every file of a catalog entry into ``dest``; [(relative path, status)].

    A file already under one of ``roots`` (default: ``dest`` alone) is ``present in <root>``
    and not downloaded, unless ``force``; the others need ``mirror``.
    """
    dest = Path(dest)
    roots = [dest] if roots is None else [Path(r) for r in roots]
    out = []
    for rel in entry.files:
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts:
            raise UserError(f"catalog path {rel!r} of {entry.name!r} must be relative, "
                            f"without '..'")
        found = None if force else next((r for r in roots if (r / rel).is_file()), None)
        if found is not None:
            out.append((rel, "present" if found == dest else f"present in {found}"))
            continue
        if not mirror:
            raise UserError(f"{entry.name}: {rel} is in no data root and there is no mirror: "
                            "pass --mirror URL (or set FRCLI_DATA_MIRROR)")
        if urllib.parse.urlsplit(mirror).scheme not in ("http", "https", "file", "ftp"):
            raise UserError(f"--mirror {mirror!r} is not a URL; expected http(s)://host/path "
                            "(or file:///dir)")
        fetch_file(mirror.rstrip("/") + "/" + urllib.parse.quote(rel), dest / rel, timeout)
        out.append((rel, "downloaded"))
    return out
