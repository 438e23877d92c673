"""Mulan label lists (``<labels><label name="..."/>...</labels>``), flat or nested.

A nested ``<label>`` inside another one is a child label (Mulan's hierarchical form); then the
labels form a tree and ``read_label_file`` returns the parent of each label.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from frcli.errors import DataError


def read_label_file(path: str | os.PathLike) -> tuple[list[str], dict[str, str | None]]:
    """(label names in document order, parent name or None for each label)."""
    path = str(path)
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise DataError("label file not found", path) from None
    except IsADirectoryError:
        raise DataError("is a directory, not a label file (.xml)", path) from None
    except OSError as e:
        raise DataError(f"cannot read the label file: {e.strerror or e}", path) from None
    except ET.ParseError as e:
        raise DataError(f"not a Mulan label XML file: {e}", path, e.position[0]) from None
    names: list[str] = []
    parent: dict[str, str | None] = {}

    def walk(elem, par):
        for child in elem:
            if child.tag.rsplit("}", 1)[-1] != "label":
                continue
            name = child.get("name")
            if name is None:
                raise DataError("<label> without a name attribute", path)
            if name in parent:
                raise DataError(f"label {name!r} listed twice", path)
            names.append(name)
            parent[name] = par
            walk(child, name)

    walk(root, None)
    if not names:
        raise DataError("no <label name=...> elements", path)
    return names, parent


def is_hierarchical(parent: dict[str, str | None]) -> bool:
    return any(p is not None for p in parent.values())
