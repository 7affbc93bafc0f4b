"""The packed rule cache: what a hook reads back is what was built, decoded only where looked."""

import os
import random
import subprocess
import sys
from pathlib import Path

from memory_cli.rules import api, engine, ruleset
from memory_cli.rules.packed import bucket_count, bucket_of, pack

ROOT = Path(__file__).resolve().parent.parent


def _random_keys(n, seed=7):
    rnd = random.Random(seed)
    alphabet = "abcxyz019_.+-@%~^é\u2028İ"
    keys = {"".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 14))) for _ in range(n)}
    return sorted(keys) + ["lone\ud800surrogate"]


def test_index_answers_like_the_dict_it_was_built_from():
    for n in (0, 3, 64, 65, 500, 5000):
        d = {k: [i, i + 1] for i, k in enumerate(_random_keys(n))}
        data = pack((None, 1, 0), [], {"x": d}, {}, [])
        from memory_cli.rules.packed import Packed

        ix = Packed(data).indexes["x"]
        assert len(ix) == len(d) and bool(ix) == bool(d)
        for k, v in d.items():
            assert ix.get(k) == v and ix[k] == v and k in ix
        for missing in ("", "nope", "legacytool", "é", 5, None):
            if missing in d:
                continue
            assert ix.get(missing) is None and missing not in ix
            assert ix.get(missing, ()) == ()
        assert ix.to_dict() == d and sorted(ix) == sorted(d)


def test_buckets_do_not_depend_on_the_process():
    """str hashes change per process; the bucket of a key must not (the file outlives it)."""
    keys = _random_keys(200)
    nb = bucket_count(len(keys) * 40)
    here = [bucket_of(k, nb) for k in keys]
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from memory_cli.rules.packed import bucket_of;"
        "keys = eval(sys.stdin.read()); print([bucket_of(k, int(sys.argv[2])) for k in keys])"
    )
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code, str(ROOT), str(nb)],
            input=repr(keys),
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONHASHSEED=seed),
        )
        assert eval(out.stdout) == here
    assert len(set(here)) > nb // 3  # and keys spread over the buckets


def _seed(store, n):
    with store.transaction():
        for i in range(n):
            if i % 2:
                api.create_rule(
                    store, f"Never run legacytool{i}", pattern=f"legacytool{i}", pattern_type="command", action="block"
                )
            else:
                api.create_rule(
                    store,
                    f"Never write token {i}",
                    pattern=rf"forbidden_token_{i}\b",
                    pattern_type="regex",
                    action="warn",
                )


def test_rule_set_read_back_from_the_cache_file_decides_the_same(store):
    _seed(store, 400)
    ruleset.forget()
    built = ruleset.load(store)
    ruleset.forget()
    read = ruleset.load(store)  # a new process: from the file
    assert read is not built and read.key == built.key and len(read) == 400
    # Nothing is decoded until a call looks: no rule, no index bucket.
    assert not read._cache and all(b is None for b in read.cmd._buckets)
    assert read.all_rules() == built.all_rules()
    calls = [
        {"command": "legacytool7 --all"},
        {"command": "echo forbidden_token_12 here"},
        {"command": "legacytool8"},
        {"command": "ls -la"},
    ]
    for ti in calls:
        a = engine.evaluate(built, event="PreToolUse", tool_name="Bash", tool_input=ti)
        b = engine.evaluate(read, event="PreToolUse", tool_name="Bash", tool_input=ti)
        assert (a.decision, [m.id for m in a.matches]) == (b.decision, [m.id for m in b.matches])
    v = engine.evaluate(read, event="PreToolUse", tool_name="Bash", tool_input=calls[0])
    assert v.decision == "block"
    assert engine.evaluate(read, event="PreToolUse", tool_name="Bash", tool_input=calls[1]).decision == "warn"
    assert engine.evaluate(read, event="PreToolUse", tool_name="Bash", tool_input=calls[3]).decision == "allow"


def test_a_cache_file_from_another_format_or_machine_is_rebuilt(store):
    _seed(store, 10)
    ruleset.forget()
    ruleset.load(store)
    path = Path(ruleset.cache_path(store))
    data = path.read_bytes()
    for bad in (b"", data[:20], b"MCRULES\x01" + data[8:], data[:-9]):
        path.write_bytes(bad)
        ruleset.forget()
        assert len(ruleset.load(store)) == 10
    # Offsets written with the other byte order are refused, not misread.
    from memory_cli.rules import packed

    other = "big" if sys.byteorder == "little" else "little"
    real = packed.sys.byteorder
    try:
        packed.sys = type("S", (), {"byteorder": other})()
        path.write_bytes(ruleset._assemble(ruleset._read_key(store), ruleset.load(store).all_rules(), []).dump())
    finally:
        packed.sys = sys
    assert real == sys.byteorder
    ruleset.forget()
    assert len(ruleset.load(store)) == 10 and path.read_bytes()[:8] == packed.MAGIC
