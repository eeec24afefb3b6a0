"""Node-type and edge-type tables: the space-separated CSV files BMTK and NEST write.

The first line names the columns; each further line is one type, its fields separated by
one or more spaces (double quotes keep a field with spaces together). ``NULL``, ``NONE``
and ``NaN`` (any case) and an empty field mean "not given" for that type.
"""

from __future__ import annotations

import csv
from pathlib import Path

from .errors import SonataError

MISSING = frozenset({"", "null", "none", "nan"})


def read_types(path: str | Path, id_column: str, required: tuple[str, ...] = ()) -> dict[int, dict]:
    """The types of a CSV file: ``{type id: {column: value}}``, values as in the file
    (str), numbers converted where the whole field is a number; columns not given for a
    type are absent from its dict.

    Raises
    ------
    SonataError
        A missing file, a missing ``id_column`` or ``required`` column, a row whose field
        count differs from the header's, a type id that is not an integer or repeats.
    """
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as stream:
            rows = [row for row in csv.reader(stream, delimiter=" ", skipinitialspace=True) if row]
    except FileNotFoundError:
        raise SonataError(str(path), "file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SonataError(str(path), f"cannot read: {error}") from None
    if not rows:
        raise SonataError(str(path), "empty: a types table needs a header line")
    header = [name.strip() for name in rows[0] if name.strip()]
    for column in (id_column, *required):
        if column not in header:
            raise SonataError(str(path), f"missing column '{column}' (columns: {' '.join(header)})")
    types: dict[int, dict] = {}
    for line, row in enumerate(rows[1:], start=2):
        row = [field for field in row if field != ""] if len(row) > len(header) else row
        if len(row) != len(header):
            raise SonataError(
                str(path), f"line {line} has {len(row)} fields for {len(header)} columns"
            )
        values = {
            name: _value(text)
            for name, text in zip(header, row, strict=True)
            if text.strip().lower() not in MISSING
        }
        type_id = values.get(id_column)
        if not isinstance(type_id, int):
            raise SonataError(
                str(path),
                f"line {line}: {id_column} = {row[header.index(id_column)]!r}: must be an integer",
            )
        if type_id in types:
            raise SonataError(str(path), f"line {line}: {id_column} {type_id} repeats")
        types[type_id] = values
    return types


def _value(text: str) -> object:
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text
