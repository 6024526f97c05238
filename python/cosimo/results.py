"""A job's results: columns of values with their metadata, as arrays, tables, CSV or a plot.

:class:`Results` is what ``job.results()`` and ``cosimo.run()`` return. It holds one column per
CSV column (``time`` first, then ``<unit>.<variable>`` in the order of the scenario's
``record``) with every value exact: reals as doubles, integers as Python ints (FMI 3 Int64 and
UInt64 beyond 2^53 too), Booleans and strings. numpy, pandas and matplotlib are used when
installed and needed only for the calls that name them.

Results are immutable values; a Results may be shared between threads.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Union

from cosimo._format import csv_number, csv_text, metadata_dict, metadata_json

if TYPE_CHECKING:
    import numpy

REAL, INTEGER, BOOLEAN, STRING = "real", "integer", "boolean", "string"
_TYPE_NAMES = (REAL, INTEGER, BOOLEAN, STRING)  # index: cosimo.v1.ValueType

Cell = Union[float, int, bool, str]


def _numpy_if_installed() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is a test dependency
        raise ImportError("cosimo: this needs numpy (Debian: apt-get install python3-numpy)") from e
    return numpy


class Results:
    """The results table of a succeeded job.

    Attributes:
        columns: the column names, ``"time"`` first, as in the CSV's header.
        types: per column, ``"real"``, ``"integer"``, ``"boolean"`` or ``"string"``.
        metadata: the metadata the CLI writes to ``<results>.csv.meta.json`` (a dict: scenario
            and artifact digests, units and how they took part, step and iteration counts,
            start and stop time, wall-clock time, version, and per recorded variable its
            physical unit, causality and type).
        job_id: the job these results are of ("" for an embedded ``cosimo.run``).
        first_row: the job's row this table's first row is (0 but for a part of the results:
            ``Job.stream``).
        partial: not the job's whole results: the rows recorded so far of a running job (a
            prefix of its results), a sweep's table before it succeeded.

    ``results["vehicle.v"]`` is one column as a numpy array (a list without numpy): float64 for
    reals, int64 (uint64 when a value is beyond 2^63) for integers, exact; bool; object (str).
    ``len(results)`` is the number of rows.
    """

    def __init__(self, columns: Sequence[str], types: Sequence[str],
                 cells: Sequence[list[Cell]], metadata: dict[str, Any], job_id: str = "") -> None:
        if not (len(columns) == len(types) == len(cells)):
            raise ValueError("cosimo: as many column types and cell lists as columns")
        self.columns: list[str] = list(columns)
        self.types: list[str] = list(types)
        self._cells: list[list[Cell]] = list(cells)
        self._index = {name: i for i, name in enumerate(self.columns)}
        self.metadata: dict[str, Any] = metadata
        self.job_id = job_id
        self.first_row = 0
        self._arrays: dict[str, Any] = {}

    # --- construction --------------------------------------------------------------------------

    @classmethod
    def from_chunks(cls, header: Any, rows: Sequence[Any], job_id: str = "") -> Results:
        """From the ``GetResults`` stream: its ``ResultsHeader`` and ``ResultRows`` messages."""
        columns = list(header.columns)
        width = len(columns)
        # A type this package does not know yet (a newer orchestrator) is read as real.
        types = [_TYPE_NAMES[t] if 0 <= t < len(_TYPE_NAMES) else REAL
                 for t in header.column_types] or [REAL] * width
        string_columns = [c for c, t in enumerate(types) if t == STRING]
        integer_columns = [c for c, t in enumerate(types) if t == INTEGER]
        cells: list[list[Cell]] = [[] for _ in columns]
        integers: list[list[int]] = [[] for _ in integer_columns]
        rows_total = 0
        for chunk in rows:
            values = list(chunk.values)
            n = len(values) // width if width else 0
            rows_total += n
            for c, t in enumerate(types):
                column = values[c::width]
                if t == BOOLEAN:
                    cells[c].extend(v != 0.0 for v in column)
                elif t != STRING:
                    cells[c].extend(column)
            texts = list(chunk.strings)
            for k, c in enumerate(string_columns):
                cells[c].extend(texts[k::len(string_columns)])
            bits = list(chunk.integers)
            for k in range(len(integer_columns)):
                integers[k].extend(bits[k::len(integer_columns)])
        for c in string_columns:  # a short strings list (cannot happen) leaves cells empty
            cells[c].extend([""] * (rows_total - len(cells[c])))
        # Exact integers, as the CLI: only when every row has them (results stored before they
        # were sent have none), and not where the double is NaN.
        if all(len(column) == rows_total for column in integers):
            for k, c in enumerate(integer_columns):
                doubles = cells[c]
                cells[c] = [(b - (1 << 64) if d < 0.0 and b >= (1 << 63) else b)
                            if not math.isnan(d) else d  # type: ignore[arg-type]
                            for b, d in zip(integers[k], doubles)]
        else:  # no bits (a sweep table's index): whole doubles are exact below 2^53
            for c in integer_columns:
                cells[c] = [int(d) if abs(d) < 2.0 ** 53 else d  # type: ignore[arg-type]
                            for d in cells[c]]
        results = cls(columns, types, cells, metadata_dict(header.metadata), job_id)
        results.first_row = header.first_row
        return results

    @classmethod
    def from_csv(cls, csv_path: str | os.PathLike[str],
                 metadata: dict[str, Any] | None = None, job_id: str = "") -> Results:
        """From a results CSV the CLI wrote and its metadata (default: the ``.meta.json`` beside
        it), which gives each column's type (a column it does not name is real)."""
        import json

        if metadata is None:
            with open(str(csv_path) + ".meta.json", encoding="utf-8") as f:
                metadata = json.load(f)
        typed = {v["name"]: v.get("type", REAL) for v in metadata.get("variables", [])}
        with open(csv_path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            columns = next(reader, [])
            types = [typed.get(name, REAL) if c > 0 else REAL for c, name in enumerate(columns)]
            cells: list[list[Cell]] = [[] for _ in columns]
            for row in reader:
                for c, text in enumerate(row):
                    cells[c].append(_parse_cell(text, types[c]))
        return cls(columns, types, cells, metadata, job_id)

    # --- access --------------------------------------------------------------------------------

    @property
    def partial(self) -> bool:
        """Not the job's whole results (see the class's attributes)."""
        return bool(self.metadata.get("partial", False))

    def __len__(self) -> int:
        return len(self._cells[0]) if self._cells else 0

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __getitem__(self, name: str) -> Any:
        """One column by name (``"time"`` or ``"<unit>.<variable>"``): a numpy array, or a list
        of Python values when numpy is not installed."""
        if name not in self._index:
            raise KeyError(f"no column {name!r} (columns: {', '.join(self.columns)})")
        if _numpy_if_installed() is None:
            return list(self._cells[self._index[name]])
        if name not in self._arrays:
            self._arrays[name] = self._array(self._index[name])
        return self._arrays[name]

    @property
    def time(self) -> Any:
        """The ``time`` column (s): a numpy array, or a list without numpy."""
        return self[self.columns[0]]

    @property
    def variables(self) -> list[str]:
        """The recorded variables: every column but ``time``."""
        return self.columns[1:]

    def values(self, name: str) -> list[Cell]:
        """One column as a list of Python values (float, int, bool or str), with or without
        numpy."""
        return list(self._cells[self._index[name]])

    def _array(self, c: int) -> numpy.ndarray:
        np = _numpy()
        cells = self._cells[c]
        kind = self.types[c]
        if kind == INTEGER and all(isinstance(v, int) for v in cells):
            dtype = np.uint64 if any(v >= (1 << 63) for v in cells) else np.int64  # type: ignore
            return np.array(cells, dtype=dtype)
        if kind == BOOLEAN:
            return np.array(cells, dtype=bool)
        if kind == STRING:
            return np.array(cells, dtype=object)
        return np.array(cells, dtype=np.float64)

    # --- conversions ---------------------------------------------------------------------------

    def to_numpy(self) -> numpy.ndarray:
        """A structured numpy array, one field per column (named as the column), one record per
        row: ``r = results.to_numpy(); r["vehicle.v"]``. Strings are unicode fields as wide as
        the longest."""
        np = _numpy()
        fields = []
        for c, name in enumerate(self.columns):
            array = self[name]
            if self.types[c] == STRING:
                width = max((len(s) for s in self._cells[c]), default=1) or 1
                fields.append((name, f"U{width}"))
            else:
                fields.append((name, array.dtype))
        out = np.empty(len(self), dtype=fields)
        for name in self.columns:
            out[name] = self[name]
        return out

    def to_pandas(self) -> Any:
        """A pandas DataFrame with one column per CSV column (``time`` included; ``df.set_index(
        "time")`` makes it the index), dtypes as ``results[name]``."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("cosimo: to_pandas needs pandas (Debian: apt-get install "
                              "python3-pandas)") from e
        return pandas.DataFrame({name: self[name] for name in self.columns},
                                columns=self.columns)

    def csv(self) -> str:
        """The CSV text, byte for byte what ``cosimo results JOB --out FILE`` writes."""
        out = io.StringIO(newline="")
        out.write(",".join(csv_text(c) for c in self.columns) + "\n")
        writers = [_cell_writer(t) for t in self.types]
        for row in zip(*self._cells):
            out.write(",".join(w(v) for w, v in zip(writers, row)) + "\n")
        return out.getvalue()

    def to_csv(self, path: str | os.PathLike[str], metadata: bool = True) -> None:
        """Writes the CSV the CLI writes (byte for byte) and, unless `metadata` is False, the
        metadata beside it as the CLI does (``<path>.meta.json``)."""
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(self.csv())
        if metadata:
            with open(str(path) + ".meta.json", "w", encoding="utf-8", newline="") as f:
                f.write(metadata_json(self.metadata))

    # --- display -------------------------------------------------------------------------------

    def _unit_of(self, name: str) -> str:
        for v in self.metadata.get("variables", []):
            if v.get("name") == name:
                return str(v.get("unit", ""))
        return "s" if name == self.columns[0] else ""

    def summary(self) -> str:
        """A few lines: rows, time span, columns with their units, steps and wall-clock time."""
        m = self.metadata
        span = (f"t = {self._cells[0][0]:g} .. {self._cells[0][-1]:g} s"
                if len(self) else "no rows")
        head = (f"Results{' of ' + self.job_id if self.job_id else ''}: {len(self)} rows, "
                f"{len(self.variables)} variables, {span}")
        names = []
        for name in self.variables:
            unit = self._unit_of(name)
            names.append(f"{name} [{unit}]" if unit else name)
        lines = [head, "  " + ", ".join(names)]
        if m:
            lines.append(f"  {m.get('algorithm', '')}: {m.get('steps_accepted', 0)} steps "
                         f"accepted, {m.get('steps_rejected', 0)} rejected, "
                         f"{float(m.get('wall_seconds', 0.0)):.3g} s wall-clock")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<cosimo.{self.summary()}>"

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><td>{html.escape(name)}</td><td>{html.escape(self.types[c])}"
                       f"</td><td>{html.escape(self._unit_of(name))}</td></tr>"
                       for c, name in enumerate(self.columns))
        head = html.escape(self.summary().splitlines()[0])
        tail = html.escape(self.summary().splitlines()[-1]) if self.metadata else ""
        return (f"<div><b>{head}</b><br>{tail}<table><tr><th>column</th><th>type</th>"
                f"<th>unit</th></tr>{rows}</table></div>")

    def plot(self, variables: Sequence[str] | None = None, one_panel: bool = False,
             **figure_options: Any) -> Any:
        """Time plots with matplotlib (if installed), as ``cosimo plot``: one panel per unit (or
        all `variables` in one panel with `one_panel`), the physical units on the axes.
        Returns the matplotlib Figure."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:
            raise ImportError("cosimo: plot needs matplotlib (Debian: apt-get install "
                              "python3-matplotlib)") from e
        chosen = list(variables) if variables else [
            v for c, v in enumerate(self.columns) if c > 0 and self.types[c] != STRING]
        for name in chosen:
            if name not in self._index:
                raise KeyError(f"no column {name!r} (columns: {', '.join(self.columns)})")
        panels: dict[str, list[str]] = {}
        for name in chosen:
            panels.setdefault("" if one_panel else name.split(".", 1)[0], []).append(name)
        figure_options.setdefault("figsize", (8, 2.5 * len(panels) + 0.5))
        fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False, **figure_options)
        for ax, (unit, names) in zip(axes[:, 0], panels.items()):
            for name in names:
                label = name + (f" [{self._unit_of(name)}]" if self._unit_of(name) else "")
                ax.plot(self.time, self[name], label=label)
            ax.set_title(unit or None)
            ax.legend(loc="best")
            ax.grid(True, alpha=0.3)
        axes[-1, 0].set_xlabel("time [s]")
        fig.tight_layout()
        return fig

    def __iter__(self) -> Iterator[str]:
        """The column names (as a mapping would)."""
        return iter(self.columns)

    def keys(self) -> list[str]:
        """The column names."""
        return list(self.columns)


def _cell_writer(kind: str) -> Any:
    if kind == BOOLEAN:
        return lambda v: "true" if v else "false"
    if kind == STRING:
        return csv_text
    if kind == INTEGER:
        return lambda v: str(v) if isinstance(v, int) else csv_number(v)
    return csv_number


def _parse_cell(text: str, kind: str) -> Cell:
    if kind == BOOLEAN:
        return text == "true"
    if kind == STRING:
        return text
    if kind == INTEGER and text.lstrip("-").isdigit():
        return int(text)
    return float(text) if text else math.nan
