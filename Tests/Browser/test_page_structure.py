"""The page's code keeps the shape issue #18 asks for: no module-level mutable state, one
module per gesture state, and the canvas split by job."""

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "Sources" / "EmojiArtWeb" / "Public" / "js"


def test_no_module_holds_mutable_state_at_its_top_level():
    offenders = []
    for path in sorted(JS.rglob("*.js")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            # No top-level let/var, and no instance shared by export (a page's entry makes its objects).
            if re.match(r"(export\s+)?(let|var)\s", line) or re.match(r"export\s+const\s+\w+\s*=\s*new\s", line):
                offenders.append(f"{path.relative_to(JS)}:{number}: {line.strip()}")
    assert not offenders, "module-level let/var:\n" + "\n".join(offenders)


def test_each_gesture_state_is_its_own_module():
    states = {}
    for path in sorted((JS / "canvas" / "gestures").glob("*.js")):
        for name in re.findall(r'static id = "([a-z]+)"', path.read_text()):
            states[name] = path.name
    assert set(states) == {"idle", "pointing", "translating", "brushing", "resizing", "rotating", "panning", "pinching", "framing"}
    assert len(set(states.values())) == len(states)  # one state per file


def test_the_canvas_is_split_by_job():
    for part in ("viewport.js", "emoji-layer.js", "selection-overlay.js", "background-layer.js", "wheel-input.js", "canvas.js"):
        assert (JS / "canvas" / part).is_file(), part
    assert len((JS / "canvas" / "canvas.js").read_text().splitlines()) < 400
