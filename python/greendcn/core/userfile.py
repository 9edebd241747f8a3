"""One way to read a file a user names: every command that reads one (scenarios, flow lists, transmissions,
sweep specs, the start of an access log) goes through here, so every careless or hostile input ends in the same
kind of answer: an `error:` line naming the file (and the line, where there is one) and a `hint:`.

What is handled: a missing file, a directory given for a file, no permission, a file too large for its kind,
binary content (a NUL byte), text that is not UTF-8 (a Latin-1 CSV, say), an empty file. A UTF-8 byte-order
mark is accepted and dropped, and Windows line ends (CRLF) read as plain ones."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from .errors import InputError

__all__ = ["MAX_TEXT_BYTES", "UserFileError", "check_readable", "read_text", "read_utf8_bytes"]

# Our choice: no text input of greendcn (a scenario, a flow list of a million rows, a sweep spec) needs more;
# larger files are refused before they are read, so a wrong path cannot fill memory.
MAX_TEXT_BYTES = 256 * 1024 * 1024


class UserFileError(InputError):
    """A file given by the user cannot be used; the message names it."""


def check_readable(path: str | os.PathLike[str], what: str) -> Path:
    """The path of an existing, readable regular file (or a device/pipe), refused with a clear error otherwise."""
    p = Path(path)
    if "\x00" in str(p):
        raise UserFileError(f"{what}: the path holds a NUL byte", hint="give the path of a file")
    try:
        st = p.stat()
    except FileNotFoundError:
        raise UserFileError(f"{what}: cannot read {p}: no such file", hint="check the path") from None
    except NotADirectoryError:
        raise UserFileError(
            f"{what}: {p}: a part of the path is not a folder", hint="check the path"
        ) from None
    except PermissionError:
        raise UserFileError(
            f"{what}: cannot read {p}: permission denied", hint="check the file's permissions"
        ) from None
    except OSError as e:
        raise UserFileError(f"{what}: cannot read {p}: {e.strerror}", hint="check the path") from None
    if p.is_dir():
        raise UserFileError(
            f"{what}: {p} is a directory, not a file", hint="give the path of a file inside it"
        )
    if not os.access(p, os.R_OK):
        raise UserFileError(
            f"{what}: cannot read {p}: permission denied", hint="check the file's permissions"
        )
    del st
    return p


def read_text(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int = MAX_TEXT_BYTES,
    allow_empty: bool = False,
    kind: str = "text",
) -> str:
    """The file's text, decoded as UTF-8 (a byte-order mark dropped, CRLF read as LF).

    `what` names the input in messages ("scenario", "--flows"); `kind` says what the file should hold, for the
    hint ("a TOML scenario", "a CSV file")."""
    data = read_utf8_bytes(path, what, max_bytes=max_bytes, allow_empty=allow_empty, kind=kind)
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def read_utf8_bytes(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int = MAX_TEXT_BYTES,
    allow_empty: bool = False,
    kind: str = "text",
) -> bytes:
    """The file's bytes, checked as `read_text` checks them (UTF-8, no NUL, not empty, not too large) and with a
    byte-order mark dropped, but not decoded: for readers that parse bytes themselves (a columnar CSV reader);
    line ends are left as they are."""
    p = check_readable(path, what)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise UserFileError(
                f"{what}: {p} is {size / 2**20:.1f} MiB, more than the {max_bytes / 2**20:.0f} MiB "
                f"greendcn reads for {kind}",
                hint=f"is this {kind}? give a smaller file",
            )
        with open(p, "rb") as f:
            data = f.read(max_bytes + 1)
    except PermissionError:
        raise UserFileError(
            f"{what}: cannot read {p}: permission denied", hint="check the file's permissions"
        ) from None
    except IsADirectoryError:
        raise UserFileError(
            f"{what}: {p} is a directory, not a file", hint="give the path of a file"
        ) from None
    except OSError as e:
        raise UserFileError(f"{what}: cannot read {p}: {e.strerror}", hint="check the path") from None
    if len(data) > max_bytes:
        raise UserFileError(
            f"{what}: {p} holds more than {max_bytes / 2**20:.0f} MiB",
            hint=f"is this {kind}? give a smaller file",
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a spreadsheet's UTF-8 byte-order mark
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise UserFileError(
            f"{what}: {p} line {line}: binary content (a NUL byte), not {kind}",
            hint=f"give {kind}; is this the right file?",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise UserFileError(
            f"{what}: {p} line {line}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})",
            hint=f"save the file as UTF-8 {kind}",
        ) from None
    if not allow_empty and not text.strip():
        raise UserFileError(f"{what}: {p} is empty", hint=f"give {kind}")
    return data


def read_toml(
    path: str | os.PathLike[str],
    what: str,
    *,
    kind: str,
    max_bytes: int = MAX_TEXT_BYTES,
    allow_empty: bool = False,
) -> dict[str, Any]:
    """The file read as `read_text` reads it, parsed as TOML; bad syntax and nesting too deep for the parser
    (a hostile file of ten thousand `[` exhausts Python's recursion) end in the same kind of error. With
    `allow_empty`, an empty file is the empty table (a scenario of all defaults)."""
    p = Path(path)
    text = read_text(p, what, max_bytes=max_bytes, kind=kind, allow_empty=allow_empty)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserFileError(f"{what}: {p}: not valid TOML ({e})", hint="fix the file's syntax") from None
    except RecursionError:
        raise UserFileError(
            f"{what}: {p}: tables or arrays nested too deeply to read",
            hint=f"{kind} needs two or three levels of tables",
        ) from None
