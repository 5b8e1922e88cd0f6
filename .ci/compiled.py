"""Put the installed build's compiled modules beside the checkout's sources, or take them away.

    python3 -I .ci/compiled.py in     # pytest then runs the compiled modules
    python3 -I .ci/compiled.py out    # pytest then runs the pure sources

Why: pytest imports ``./omniurl`` (pyproject's ``pythonpath = ["."]``), and the tests that
run the command start ``python -m omniurl`` in the checkout, so a plain ``pytest`` always
tests the pure sources, whatever pip installed.  The interpreter imports an extension module
before a source file of the same name in the same folder, so copying the installed wheel's
``.so`` files (mypyc's: one per module, and the shared library beside the package) to the
same places in the checkout makes the same run exercise exactly what ``pip install .`` built.
Run with ``-I``, so that the checkout's own ``omniurl.egg-info`` is not the distribution read.
"""

from __future__ import annotations

import sys
from importlib.metadata import distribution
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compiled_files() -> list[tuple[Path, Path]]:
    """(installed file, place in the checkout) for each extension module of the build."""
    dist = distribution("omniurl")
    out = []
    for f in dist.files or ():
        if f.suffix == ".so" and (f.parts[0] == "omniurl" or len(f.parts) == 1):
            out.append((Path(str(dist.locate_file(f))), ROOT / Path(*f.parts)))
    return out


def main(argv: list[str]) -> int:
    if argv not in (["in"], ["out"]):
        print(__doc__, file=sys.stderr)
        return 2
    files = compiled_files()
    for installed, here in files:
        if argv == ["in"]:
            here.write_bytes(installed.read_bytes())
        else:
            here.unlink(missing_ok=True)
    verb = "copied into" if argv == ["in"] else "removed from"
    print(f"ci: {len(files)} compiled modules {verb} the checkout")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
