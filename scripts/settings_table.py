"""Write the README's settings table from ``voxmem.config.Settings`` (run after adding a setting)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from voxmem.config import Settings

README = Path(__file__).resolve().parent.parent / "README.md"
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
    text = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    README.write_text(pattern.sub(f"{START}\n{table()}\n{END}", text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
