"""Reading a file the user names (scenario, manifest, note): a regular file of bounded size, as UTF-8.

A FIFO, a device (/dev/zero) or a socket would block or never end, so only regular files are read,
and a size limit keeps a huge file from filling memory. Every refusal is one ConfigError line.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import ConfigError

# A scenario of the largest tables (4096 x 1024 numbers) is about 80 MB of TOML.
MAX_BYTES = 256 * 2**20


def read_text(path: Path | str, option: str, what: str, limit: int = MAX_BYTES, keep_bom: bool = False) -> str:
    """The UTF-8 text of the regular file ``path`` (a leading BOM dropped unless ``keep_bom``: a file rewritten
    in place keeps its bytes); ConfigError(option, ...) if not."""
    shown = str(path)[:80]
    allowed = f"allowed: a readable UTF-8 {what} (a regular file of at most {limit // 2**20} MiB)"
    it = "" if shown == option else f"{shown}: "  # the manifest is its own "option": named once
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: opening a FIFO must not wait for a writer
    except OSError as err:
        where = f" {shown}" if it else ""
        raise ConfigError(option, f"cannot read{where}: {err.strerror or err}; {allowed}") from None
    except ValueError:  # a NUL byte in the path
        raise ConfigError(option, f"got {shown!r}; {allowed}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, device or socket)"
            raise ConfigError(option, f"{it}{kind}; {allowed}")
        if st.st_size > limit:
            raise ConfigError(option, f"{it}{st.st_size:,} bytes; {allowed}")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 2**20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as err:
        raise ConfigError(option, f"{it}cannot read: {err.strerror or err}; {allowed}") from None
    finally:
        os.close(fd)
    if len(data) > limit:  # grew while being read
        raise ConfigError(option, f"{it}more than {limit:,} bytes; {allowed}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(option, f"{it}not UTF-8 text (byte {err.start}); {allowed}") from None
    return text if keep_bom else text.removeprefix("\ufeff")
