"""Text formats shared with the ``cosimo`` CLI, reproduced exactly.

- :func:`csv_number`: a double as the CLI's results CSV writes it (C++ ``std::to_chars``).
- :func:`csv_text`: a header or string cell, quoted as RFC 4180 wants.
- :func:`metadata_json`: the ``.meta.json`` text the CLI writes beside a CSV (protobuf's JSON
  printer, 64-bit counts as numbers, then nlohmann::json's ``dump(2)``).

Stateless; no dependency beyond the standard library.
"""

from __future__ import annotations

import json
import math
from typing import Any


def _digits(value: float) -> tuple[str, int]:
    """The shortest decimal digits that read back to `value` (> 0, finite) and the decimal
    exponent of the last one: value == int(digits) * 10**exponent. Python's repr finds the same
    digits as C++'s shortest round trip."""
    text = repr(value)
    mantissa, _, exp = text.partition("e")
    exponent = int(exp) if exp else 0
    whole, _, fraction = mantissa.partition(".")
    if fraction == "0":
        fraction = ""
    digits = (whole + fraction).lstrip("0")
    exponent -= len(fraction)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return stripped or "0", exponent


def _exponent(e: int) -> str:
    return ("-" if e < 0 else "+") + "%02d" % abs(e)


def csv_number(value: float) -> str:
    """`value` as ``std::to_chars(double)`` writes it: the shortest digits that read back to the
    same double, in fixed or scientific notation, whichever is shorter (fixed on a tie; an
    exponent has at least two digits; an integer in fixed notation with its exact digits, as
    1234567890123456774144 for 1.2345678901234567e21); ``nan``, ``-nan``, ``inf``, ``-inf``."""
    minus = "-" if math.copysign(1.0, value) < 0 else ""
    if math.isnan(value):
        return minus + "nan"
    if math.isinf(value):
        return minus + "inf"
    if value == 0.0:
        return minus + "0"
    digits, exponent = _digits(abs(value))
    point = len(digits) + exponent  # where the decimal point goes, counted from the first digit
    if exponent >= 0:
        # An integer: to_chars writes its exact digits (of equally short texts it takes the
        # closest to the value), not the shortest digits padded with zeros.
        fixed = str(int(abs(value)))
    elif point > 0:
        fixed = digits[:point] + "." + digits[point:]
    else:
        fixed = "0." + "0" * -point + digits
    scientific = (digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + "e" +
                  _exponent(point - 1))
    return minus + (fixed if len(fixed) <= len(scientific) else scientific)


def csv_text(text: str) -> str:
    """A CSV cell: as it is, or quoted (quotes doubled) when it holds a comma, quote or line
    break."""
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


# --- the metadata file -------------------------------------------------------------------------

def _nlohmann_float(value: float) -> str:
    """A double as nlohmann::json dumps it: shortest digits, decimal between 1e-4 and 1e15
    (with ``.0`` when integral), else ``d.ddde+XX``; non-finite values as null."""
    if not math.isfinite(value):
        return "null"
    minus = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0.0:
        return minus + "0.0"
    digits, exponent = _digits(abs(value))
    k = len(digits)
    n = k + exponent
    if k <= n <= 15:
        return minus + digits + "0" * (n - k) + ".0"
    if 0 < n <= 15:
        return minus + digits[:n] + "." + digits[n:]
    if -4 < n <= 0:
        return minus + "0." + "0" * -n + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return minus + mantissa + "e" + _exponent(n - 1)


def _protobuf_double(value: float) -> str:
    """A double as the JSON that nlohmann reads from protobuf's C++ JSON printer and dumps again:
    the printer writes ``%.15g`` (``%.17g`` when that does not read back); a token without ``.``
    or an exponent reads back as an integer, which nlohmann dumps as such."""
    if not math.isfinite(value):
        return json.dumps("NaN" if math.isnan(value) else
                          ("Infinity" if value > 0 else "-Infinity"))
    text = "%.15g" % value
    if float(text) != value:
        text = "%.17g" % value
    if all(c in "-0123456789" for c in text):
        number = int(text)
        if -(1 << 63) <= number < (1 << 64):
            return str(number)
    return _nlohmann_float(value)


def _dump(value: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        out.append("{\n")
        items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-8"))
        for i, (key, item) in enumerate(items):
            out.append(pad + "  " + json.dumps(key, ensure_ascii=False) + ": ")
            _dump(item, indent + 2, out)
            out.append(",\n" if i + 1 < len(items) else "\n")
        out.append(pad + "}")
    elif isinstance(value, list):
        if not value:
            out.append("[]")
            return
        out.append("[\n")
        for i, item in enumerate(value):
            out.append(pad + "  ")
            _dump(item, indent + 2, out)
            out.append(",\n" if i + 1 < len(value) else "\n")
        out.append(pad + "]")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(_protobuf_double(value))
    elif value is None:
        out.append("null")
    else:
        out.append(json.dumps(str(value), ensure_ascii=False))


def metadata_json(metadata: dict[str, Any]) -> str:
    """The text of the CLI's ``.meta.json`` for `metadata` (:func:`metadata_dict`): keys sorted,
    two spaces of indent, a final line break."""
    out: list[str] = []
    _dump(metadata, 0, out)
    return "".join(out) + "\n"


def metadata_dict(message: Any) -> dict[str, Any]:
    """A ``ResultsMetadata`` message as the CLI's metadata file holds it: proto field names,
    every field (defaults too), 64-bit integers as numbers (protobuf's JSON mapping makes them
    strings)."""
    from google.protobuf import json_format
    from google.protobuf.descriptor import FieldDescriptor

    try:
        data = json_format.MessageToDict(message, preserving_proto_field_name=True,
                                         including_default_value_fields=True)
    except TypeError:  # protobuf >= 26 renamed the option
        data = json_format.MessageToDict(message, preserving_proto_field_name=True,
                                         always_print_fields_with_no_presence=True)
    wide = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)

    def fix(descriptor: Any, obj: Any) -> None:
        if not isinstance(obj, dict):
            return
        for field in descriptor.fields:
            if field.name not in obj:
                continue
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                value_field = field.message_type.fields_by_name["value"]
                for key, element in obj[field.name].items():
                    if value_field.message_type is not None:
                        fix(value_field.message_type, element)
                    elif value_field.cpp_type in wide:
                        obj[field.name][key] = int(element)
                continue
            elements = (obj[field.name] if field.label == FieldDescriptor.LABEL_REPEATED
                        else [obj[field.name]])
            for i, element in enumerate(elements):
                if field.message_type is not None:
                    fix(field.message_type, element)
                elif field.cpp_type in wide and isinstance(element, str):
                    elements[i] = int(element)
            if field.label != FieldDescriptor.LABEL_REPEATED:
                obj[field.name] = elements[0]

    fix(message.DESCRIPTOR, data)
    return data
