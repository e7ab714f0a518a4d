"""Strict configuration loading: YAML or plain mappings into frozen dataclasses.

Every configuration in stickgen (model presets, training runs) is a frozen dataclass. This module turns
a mapping into one and back, and nothing else:

- `from_dict(cls, mapping)` builds `cls`, recursing into nested dataclasses. Unknown keys, missing
  required keys and values of the wrong type are rejected with one `StickgenError` sentence that names
  the key and where it came from (a file, or a `--set` override).
- `load_yaml_config(cls, path)` reads a YAML file and calls `from_dict`.
- `to_dict(obj)` is the inverse: plain dicts, lists and scalars, ready for JSON or YAML.
- `apply_overrides(obj, ["a.b=3", ...])` returns a copy with dotted keys replaced; values are parsed as
  YAML scalars (`3` is an int, `0.1` a float, `true` a bool, `null` None, `[1, 2]` a list).

Supported field types: `int` (64-bit), `float` (finite; an int is accepted), `bool`, `str`, `X | None`,
`Literal[...]`, `tuple[X, ...]` and `list[X]` (from YAML lists), `dict[str, X]`, and nested dataclasses.
A dataclass may validate itself in `__post_init__` by raising `StickgenError` (the ranges of its numbers:
`stickgen.ranges`); the sentence is prefixed with the source.
"""

from __future__ import annotations

import dataclasses
import math
import os
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

import yaml

from stickgen.errors import StickgenError

T = TypeVar("T")


def _type_name(tp: Any) -> str:
    """A short human name for a type annotation: `int`, `float | None`, `tuple[int, ...]`."""
    if isinstance(tp, type):
        return tp.__name__
    return str(tp).replace("typing.", "")


def _convert(value: Any, tp: Any, key: str, source: str) -> Any:
    """Check `value` against the annotation `tp` and convert it (lists to tuples, dicts to dataclasses)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    wrong = StickgenError(
        f"In {source}, {key} must be {_type_name(tp)}, not {type(value).__name__} {value!r}."
    )
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for option in (a for a in args if a is not type(None)):
            try:
                return _convert(value, option, key, source)
            except StickgenError:
                continue
        raise wrong
    if origin is typing.Literal:
        if value in args:
            return value
        choices = ", ".join(repr(a) for a in args)
        raise StickgenError(f"In {source}, {key} must be one of {choices}, not {value!r}.")
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise wrong
        return from_dict(tp, value, source=source, prefix=f"{key}.")
    if origin in (tuple, list):
        if not isinstance(value, (list, tuple)):
            raise wrong
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise StickgenError(f"In {source}, {key} must have {len(args)} items, not {len(value)}.")
            items = [
                _convert(v, a, f"{key}[{i}]", source)
                for i, (v, a) in enumerate(zip(value, args, strict=True))
            ]
        else:
            item_type = args[0] if args else Any
            items = [_convert(v, item_type, f"{key}[{i}]", source) for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, dict):
            raise wrong
        value_type = args[1] if len(args) == 2 else Any
        return {str(k): _convert(v, value_type, f"{key}.{k}", source) for k, v in value.items()}
    # bool is a subclass of int, and YAML turns `yes`/`1` into different things: keep them apart.
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise wrong
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            if not -(2**63) <= value < 2**63:
                raise StickgenError(f"In {source}, {key} must fit in 64 bits, not {value}.")
            return value
        raise wrong
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value) if abs(value) < 1e308 else math.inf
            if not math.isfinite(number):
                raise StickgenError(f"In {source}, {key} must be a finite number, not {value}.")
            return number
        raise wrong
    if tp is str:
        if isinstance(value, str):
            return value
        raise wrong
    raise TypeError(f"stickgen.config cannot load fields of type {_type_name(tp)} ({key}).")


def from_dict(cls: type[T], mapping: Any, *, source: str = "the configuration", prefix: str = "") -> T:
    """Build the frozen dataclass `cls` from `mapping`, strictly.

    `source` names where the mapping came from (a file path, `--set a=1`) in error sentences; `prefix`
    is the dotted path of `cls` inside an outer configuration. Raises `StickgenError` on an unknown
    key, a missing required key, a value of the wrong type, or a value the dataclass itself rejects.
    """
    if not isinstance(mapping, dict):
        where = f"{prefix.rstrip('.')} in {source}" if prefix else source
        raise StickgenError(f"Expected a mapping of keys to values in {where}, not {type(mapping).__name__}.")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    hints = typing.get_type_hints(cls)
    unknown = [k for k in mapping if k not in fields]
    if unknown:
        expected = ", ".join(fields)
        raise StickgenError(
            f"Unknown key {prefix}{unknown[0]} in {source}; the keys of {cls.__name__} are {expected}."
        )
    missing = [
        name
        for name, f in fields.items()
        if name not in mapping
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise StickgenError(f"Missing key {prefix}{missing[0]} in {source}.")
    values = {k: _convert(v, hints[k], f"{prefix}{k}", source) for k, v in mapping.items()}
    try:
        return cls(**values)
    except StickgenError as e:
        raise StickgenError(f"In {source}, {str(e)[:1].lower()}{str(e)[1:]}") from None


def load_yaml_config(cls: type[T], path: str | os.PathLike) -> T:
    """Read the YAML file `path` into the frozen dataclass `cls` (strict, see `from_dict`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StickgenError(f"No configuration file at {path}.") from None
    except IsADirectoryError:
        raise StickgenError(f"{path} is a folder, not a YAML configuration file.") from None
    except (OSError, UnicodeDecodeError) as e:
        raise StickgenError(f"Cannot read the configuration file {path}: {e}.") from None
    try:
        mapping = yaml.safe_load(text)
    except yaml.YAMLError as e:
        line = getattr(getattr(e, "problem_mark", None), "line", None)
        where = f" at line {line + 1}" if line is not None else ""
        raise StickgenError(f"The configuration file {path} is not valid YAML{where}.") from None
    return from_dict(cls, {} if mapping is None else mapping, source=str(path))


def to_dict(obj: Any) -> Any:
    """A dataclass (or nested values) as plain dicts, lists and scalars, ready for JSON or YAML."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_dict(v) for k, v in obj.items()}
    return obj


def apply_overrides(obj: T, overrides: list[str]) -> T:
    """Return a copy of the dataclass `obj` with each `dotted.key=value` override applied, in order.

    Values are YAML scalars or flow collections. The result is checked as strictly as a loaded file:
    an unknown key or a wrong type raises `StickgenError` naming the override.
    """
    for override in overrides:
        key, sep, raw = override.partition("=")
        key = key.strip()
        if not sep or not key:
            raise StickgenError(f"Override {override!r} must look like key=value, e.g. model.d_model=256.")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            raise StickgenError(f"The value in override {override!r} is not a valid YAML value.") from None
        mapping = to_dict(obj)
        node = mapping
        parts = key.split(".")
        for depth, part in enumerate(parts):
            if not isinstance(node, dict) or part not in node:
                raise StickgenError(
                    f"Override {override!r} names unknown key {'.'.join(parts[: depth + 1])} "
                    f"in {type(obj).__name__}."
                )
            if depth == len(parts) - 1:
                node[part] = value
            else:
                node = node[part]
        obj = from_dict(type(obj), mapping, source=f"override {override!r}")
    return obj
