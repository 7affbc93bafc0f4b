"""fastjson gives json.loads/json.dumps results and errors, without importing json."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memory_cli import fastjson

ROOT = Path(__file__).resolve().parent.parent

DOCS = [
    '{"a":1}',
    ' [1, 2.5e3, -0, "x\\u00e9", null, true, false] ',
    "",
    "   ",
    "{not json\n",
    "[1,2] x",
    '"\\ud800"',
    "NaN",
    "[Infinity, -Infinity]",
    "\ufeff{}",
    "1e999",
    "12345678901234567890123",
    '{"a": [[[]]]}',
    '{"a":1}  \n',
    '{"a":1}\n\t x',
    '"abc',
    "[1,]",
    "\x00",
    '{"k": "v\x01"}',
    '{"a" 1}',
    "[-]",
    "tru",
    '{"\t": 1}',
    '"\\x"',
]

OBJECTS = [
    {"a": 1, "b": [1.5, float("inf"), -float("inf"), None, True, "é\u2028\ud800"]},
    "str\u00e9",
    3,
    2.0,
    None,
    [],
    {},
    {"z": 1, "a": {"y": [1, {"q": "w"}]}},
    {1: 2, None: 3, 1.5: 4},
    {True: 5, False: 6},
    (1, 2),
    "x" * 20000,
]


def _outcome(fn, *args, **kw):
    try:
        return "ok", repr(fn(*args, **kw))
    except Exception as e:  # the type and the message must both match
        return type(e).__name__, str(e)


@pytest.mark.parametrize("doc", DOCS)
def test_loads_matches_json(doc):
    assert _outcome(fastjson.loads, doc) == _outcome(json.loads, doc)


@pytest.mark.parametrize("obj", OBJECTS)
@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("compact", [True, False])
def test_dumps_matches_json(obj, ensure_ascii, compact):
    sep = (",", ":") if compact else None
    for sort_keys in (False, True):
        assert _outcome(
            fastjson.dumps, obj, ensure_ascii=ensure_ascii, compact=compact, sort_keys=sort_keys
        ) == _outcome(json.dumps, obj, ensure_ascii=ensure_ascii, separators=sep, sort_keys=sort_keys)


def test_dumps_default_and_circular_references_behave_like_json():
    assert fastjson.dumps({"x": {1, 2}}, default=sorted) == json.dumps({"x": {1, 2}}, default=sorted)
    assert _outcome(fastjson.dumps, {"x": object()})[0] == "TypeError"
    loop: list = []
    loop.append(loop)
    assert _outcome(fastjson.dumps, loop) == _outcome(json.dumps, loop)


def test_a_fresh_hook_interpreter_parses_without_json_and_reports_errors_like_it():
    """In a process that never imported json (as a hook is), valid documents load without
    importing json or re, and malformed ones raise json's own error with json's message."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from memory_cli import fastjson\n"
        "docs = eval(sys.stdin.read())\n"
        'ok = fastjson.loads(\'{"tool_input": {"command": "ls"}, "n": [1, 2.5]}\')\n'
        "out = fastjson.dumps(ok, ensure_ascii=False)\n"
        "print('json' in sys.modules, 're' in sys.modules, out)\n"
        "for d in docs:\n"
        "    try:\n"
        "        print(repr(('ok', repr(fastjson.loads(d)))))\n"
        "    except Exception as e:\n"
        "        print(repr((type(e).__name__, str(e))))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], input=repr(DOCS), capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == 'False False {"tool_input": {"command": "ls"}, "n": [1, 2.5]}'
    import ast

    assert [ast.literal_eval(x) for x in lines[1:]] == [_outcome(json.loads, d) for d in DOCS]
