"""Put a measured column into the shipped BIB Table 1 (``socialbench run`` prints it).

    socialbench bib evaluate --data EVAL --observer video --checkpoint CKPT --json > eval.json
    python scripts/bib_table1.py "video 2D" eval.json --trained "..." --evaluated "..."

Columns: mask 2D, video 2D, video new shapes, video 3D (the BIB paper's Table 1). The file is
``src/socialbench/observers/bib/table1_measured.json``; docs/bib_baselines.md gives each
column's commands.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from socialbench.bib.published import TABLE1_COLUMNS
from socialbench.observers.bib.table1 import TABLE1_FILE, set_column


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("column", choices=TABLE1_COLUMNS)
    parser.add_argument("evaluation", type=Path, help="the output of `bib evaluate --json`")
    parser.add_argument("--trained", required=True, help="how the model was trained")
    parser.add_argument("--evaluated", required=True, help="what it was rated on")
    args = parser.parse_args()
    set_column(args.column, json.loads(args.evaluation.read_text()), args.trained,
               args.evaluated)
    print(f"wrote {args.column!r} into {TABLE1_FILE}")


if __name__ == "__main__":
    main()
