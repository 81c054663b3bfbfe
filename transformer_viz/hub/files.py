"""Writing a file so that readers see the old one or the new one, never half of one."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path


def replace_file(path: str | Path, write: Callable[[Path], object]) -> None:
    """Call write(temporary path) beside `path`, then rename it over `path` in one step.

    A reader (the app serving a checkpoint that is still training) sees the old file or the new one,
    never half of one; an interrupted write leaves the old file as it was. The new file keeps the old
    one's permissions, or gets those of any newly created file (some writers, safetensors' among them,
    create owner-only files, which a server running as another user could not read).
    """
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        temporary.touch()  # created as any new file is (0666 less the umask), before the writer picks a mode
        mode = stat.S_IMODE((path if path.exists() else temporary).stat().st_mode)
        write(temporary)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
