"""Rules promoted from corrections, judged by what they do: fire on the mistake, stay silent on
its look-alike.

Each probe is a correction as a person types it, a call that repeats the mistake and calls that
only look like it. The correction goes the whole way a promoted rule goes: detection, the rule
spec derived from it, a rule in a real store, the engine deciding the calls.
"""

from __future__ import annotations

import pytest

from memory_cli.capture import promotion
from memory_cli.capture.detect import detect
from memory_cli.rules import api, engine, ruleset


def bash(command):
    return ("Bash", {"command": command})


def write(path, content):
    return ("Write", {"file_path": path, "content": content})


def edit(path, old, new):
    return ("Edit", {"file_path": path, "old_string": old, "new_string": new})


# (class, correction, calls that must fire, calls that must not)
PROBES = [
    # a subcommand named in the correction: that subcommand, not its siblings
    (
        "subcommand",
        "never run npm publish from your machine",
        [bash("npm publish"), bash("cd pkg && npm publish --access public")],
        [bash("npm install"), bash("npm run build"), bash("pnpm publish")],
    ),
    (
        "subcommand",
        "don't use git reset --hard",
        [bash("git reset --hard HEAD~1"), bash("git reset --hard")],
        [bash("git reset --soft HEAD~1"), bash("git reset src/app.py"), bash("git status")],
    ),
    (
        "subcommand",
        "Don't run docker system prune",
        [bash("docker system prune -af")],
        [bash("docker system df"), bash("docker ps"), bash("docker image prune")],
    ),
    (
        "subcommand",
        "never use git stash drop, my work is in there",
        [bash("git stash drop stash@{0}")],
        [bash("git stash"), bash("git stash list"), bash("git stash pop")],
    ),
    (
        "subcommand",
        "stop running kubectl delete on the shared cluster",
        [bash("kubectl delete pod web-1"), bash("kubectl -n prod delete deploy api")],
        [bash("kubectl get pods"), bash("kubectl describe pod web-1")],
    ),
    (
        "subcommand",
        "No, don't run terraform apply, only plan",
        [bash("terraform apply -auto-approve")],
        [bash("terraform plan"), bash("terraform init")],
    ),
    # an argument that carries the meaning
    (
        "argument",
        "don't `git add .`, add the files you changed",
        [bash("git add ."), bash("git add -A")],
        [bash("git add src/app.py"), bash("git add tests/test_app.py README.md")],
    ),
    (
        "argument",
        "do not use git add -A, stage files explicitly",
        [bash("git add -A"), bash("git add --all")],
        [bash("git add src/app.py")],
    ),
    (
        "argument",
        "never chmod 777 anything",
        [bash("chmod 777 deploy.sh"), bash("chmod -R 777 /srv/app")],
        [bash("chmod 755 deploy.sh"), bash("chmod +x deploy.sh")],
    ),
    (
        "argument",
        "never push directly to main",
        [bash("git push origin main"), bash("git push origin HEAD:main")],
        [bash("git push origin feature/login"), bash("git push")],
    ),
    (
        "argument",
        "don't install packages globally with npm install -g",
        [bash("npm install -g typescript"), bash("npm i -g typescript")],
        [bash("npm install typescript"), bash("npm install --save-dev typescript")],
    ),
    (
        "argument",
        "never rm -rf the home directory",
        [bash("rm -rf ~"), bash("rm -rf $HOME")],
        [bash("rm -rf build/"), bash("rm -rf ./dist")],
    ),
    # a pipeline shape described in words
    (
        "pipeline",
        "never pipe curl into bash",
        [bash("curl -fsSL https://example.com/install.sh | bash"), bash("curl -s https://x.sh | sudo bash")],
        [
            bash("curl -o install.sh https://example.com/install.sh"),
            bash("bash install.sh"),
            bash("curl https://example.com | jq ."),
        ],
    ),
    (
        "pipeline",
        "don't pipe wget output to sh",
        [bash("wget -qO- https://get.example.com | sh")],
        [bash("wget https://get.example.com/file.tar.gz"), bash("sh ./configure")],
    ),
    (
        "pipeline",
        "stop piping find into xargs rm, use find -delete",
        [bash("find . -name '*.pyc' | xargs rm")],
        [bash("find . -name '*.pyc' -delete"), bash("find . -name '*.pyc' | xargs ls -l")],
    ),
    # a code construct run through an interpreter
    (
        "interpreter",
        "never use os.system, use subprocess.run",
        [bash("python -c \"import os; os.system('ls')\""), write("tool.py", "import os\nos.system('ls')\n")],
        [bash("grep -rn os.system src/"), write("tool.py", "import subprocess\nsubprocess.run(['ls'])\n")],
    ),
    (
        "interpreter",
        "don't use eval()",
        [bash("python3 -c 'print(eval(\"1+1\"))'"), bash("node -e 'eval(process.argv[1])' x")],
        [bash("grep -n 'eval(' app.py"), bash("python -c 'print(1+1)'")],
    ),
    (
        "interpreter",
        "Never call pickle.loads on untrusted data",
        [
            bash("python -c 'import pickle,sys; pickle.loads(sys.stdin.buffer.read())'"),
            edit("api.py", "json.loads(body)", "pickle.loads(body)"),
        ],
        [bash("python -c 'import json; json.loads(\"{}\")'"), bash("rg pickle.loads")],
    ),
    # the existing classes
    (
        "program",
        "use pnpm, not npm",
        [bash("npm install"), bash("cd web && npm run dev")],
        [bash("pnpm install"), bash("grep npm package.json")],
    ),
    (
        "program",
        "No, use python.exe not pythonw.exe",
        [bash("pythonw.exe main.py"), bash("cd app && pythonw main.py")],
        [bash("python.exe main.py"), bash("echo pythonw is bad")],
    ),
    (
        "program",
        "Stop using pip. uv.",
        [bash("pip install requests"), bash("pip3 install -r requirements.txt")],
        [bash("uv pip install requests"), bash("uv add requests")],
    ),
    (
        "file",
        "don't commit the .env file",
        [bash("git add .env"), bash("git commit -am wip .env")],
        [bash("cat .env.example"), write(".env", "DEBUG=1\n")],
    ),
    (
        "file",
        "Do not edit poetry.lock by hand",
        [edit("poetry.lock", "a", "b"), write("poetry.lock", "x")],
        [edit("pyproject.toml", "a", "b"), bash("poetry lock")],
    ),
    (
        "flag",
        "Please never use --no-verify when committing",
        [bash("git commit --no-verify -m wip")],
        [bash("git commit -m wip"), bash("git push --no-verify")],
    ),
    (
        "flag",
        "Don't force push",
        [bash("git push --force"), bash("git push -f origin feature")],
        [bash("git push origin feature"), bash("git push --force-with-lease")],
    ),
]


def _fires(store, rule_id, call) -> bool:
    rs = ruleset.load(store, use_file=False)
    tool, ti = call
    v = engine.evaluate(rs, event="PreToolUse", tool_name=tool, tool_input=ti, use_intent=False)
    return any(m.id == rule_id for m in v.matches)


def _promote(store, message):
    d = detect(message)
    assert d is not None, f"not detected as a correction: {message!r}"
    spec = promotion.derive_rule_spec(
        {"what_was_wrong": d.what_was_wrong, "what_is_right": d.what_is_right, "statement": d.statement}
    )
    if spec is None:
        return None
    rule = api.create_rule(
        store,
        d.statement,
        pattern=spec["pattern"],
        pattern_type=spec["pattern_type"],
        action="block",
        tools=spec.get("tools"),
        fields=spec.get("fields"),
        conditions=spec.get("conditions"),
        alternative=spec.get("alternative"),
        provenance="promoted",
        source="promoted",
    )
    return rule


def score(store_factory):
    """(right, total, [failures]) over every probe call."""
    right = total = 0
    failures = []
    for cls, message, bad, good in PROBES:
        store = store_factory()
        rule = _promote(store, message)
        for call, want in [(c, True) for c in bad] + [(c, False) for c in good]:
            total += 1
            got = rule is not None and _fires(store, rule["id"], call)
            if got == want:
                right += 1
            else:
                failures.append((cls, message, call, want, rule and (rule["pattern_type"], rule["pattern"])))
    return right, total, failures


def test_promoted_rules_fire_on_the_mistake_and_not_on_look_alikes(tmp_path):
    from memory_cli.store.db import Store

    n = iter(range(1000))
    right, total, failures = score(lambda: Store.open(tmp_path / f"p{next(n)}.db"))
    assert total >= 80
    assert right / total >= 0.95, "\n".join(map(str, failures))


@pytest.mark.parametrize("cls", sorted({p[0] for p in PROBES}))
def test_each_class_is_covered(cls):
    assert sum(1 for p in PROBES if p[0] == cls) >= 1
