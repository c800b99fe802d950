"""Write the settings table of docs/configuration.md from ``voxmem.config.Settings`` (run after adding one).

The table lives in docs/configuration.md, not README.md, so the README stays one screen per user."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from voxmem.config import Settings

CONFIG_DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
START, END = "<!-- settings-table:start -->", "<!-- settings-table:end -->"


def table() -> str:
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        if field.default_factory is not None:
            default = "(computed)"
        elif hasattr(field.default, "get_secret_value"):
            default = "(secret; development default)"
        else:
            default = f"`{field.default}`"
        description = (field.description or "").replace("|", "\\|")
        rows.append(f"| `VOXMEM_{name.upper()}` | {default} | {description} |")
    return "\n".join(rows)


def main() -> int:
    text = CONFIG_DOC.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    CONFIG_DOC.write_text(pattern.sub(f"{START}\n{table()}\n{END}", text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
