"""Strict YAML for configs and data schemas: what PyYAML accepts silently or fails on with a
traceback becomes a ``ConfigError`` naming the file and line.

* A key given twice in one mapping is refused (PyYAML keeps the last one silently).
* An integer of more than ``MAX_DIGITS`` digits is refused (PyYAML hands it to ``int()``,
  which raises a bare ``ValueError`` past Python's 4300-digit limit).
* A NUL character in a string (``"a\\0b"`` in double quotes) is refused: no name, path or
  value may hold one (the file system and SQLite would fail later, far from the cause).
"""
from __future__ import annotations

from typing import Any

import yaml

from frcli.errors import ConfigError

MAX_DIGITS = 30      # beyond any count, size or seed (seeds are < 2**63: 19 digits)


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader with the checks of the module docstring; ``source`` names the file."""

    source = "<config>"

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                continue             # PyYAML reports unhashable keys itself
            line = key_node.start_mark.line + 1
            if key in seen:
                raise ConfigError(f"{self.source}:{line}: key {key!r} appears twice in one "
                                  f"mapping (first on line {seen[key]}); give it once")
            seen[key] = line
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        text = str(node.value).replace("_", "")
        if sum(ch.isdigit() for ch in text) > MAX_DIGITS:
            raise ConfigError(f"{self.source}:{node.start_mark.line + 1}: number "
                              f"{text[:12]}... ({len(text)} characters) is far too large")
        return super().construct_yaml_int(node)

    def construct_yaml_str(self, node):
        value = super().construct_yaml_str(node)
        if "\x00" in value:
            shown = value.replace("\x00", "\\0")[:40]
            raise ConfigError(f"{self.source}:{node.start_mark.line + 1}: a NUL character "
                              f"in '{shown}'; remove it")
        return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:str", _StrictLoader.construct_yaml_str)


def load_yaml(text: str, source: str) -> Any:
    """Parse ``text`` (from ``source``) strictly; every problem is a one-line ``ConfigError``
    naming ``source`` and, where known, the line."""
    loader = type("Loader", (_StrictLoader,), {"source": source})
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e)
        raise ConfigError(f"{source}{line}: invalid YAML: {' '.join(str(problem).split())}"
                          ) from None
    except (ValueError, OverflowError, RecursionError) as e:   # the last line of defence
        raise ConfigError(f"{source}: invalid YAML: {' '.join(str(e).split())[:120]}") from None
