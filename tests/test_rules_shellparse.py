"""Which programs a command line runs: the property a `command` rule stands on.

The central property (issue 3, seed 002 risk 3): a rule about `pythonw.exe` fires when the
program is run anywhere in the line and never when the word is only an argument.
"""

from __future__ import annotations

import base64
import itertools

import pytest

from memory_cli.rules.shellparse import program_name, simple_commands, split_words


def programs(command: str) -> list[str]:
    return [c.name for c in simple_commands(command)]


def runs(command: str, name: str = "pythonw.exe") -> bool:
    return any(c.name.lower() == name for c in simple_commands(command))


RUNS_IT = [
    "pythonw.exe src/main.py",
    "cd app && pythonw.exe main.py",
    "cd app; pythonw.exe main.py",
    "false || pythonw.exe main.py",
    "make build & pythonw.exe main.py",
    "echo start\npythonw.exe main.py",
    "FOO=1 pythonw.exe x",
    "FOO=1 BAR='a b' pythonw.exe x",
    "sudo pythonw.exe",
    "sudo -u bob -E pythonw.exe",
    "env A=1 B=2 pythonw.exe",
    "env -i PATH=/bin pythonw.exe",
    "nohup pythonw.exe app.py &",
    "time pythonw.exe app.py",
    "time -p pythonw.exe app.py",
    "nice -n 10 pythonw.exe",
    "timeout 5 pythonw.exe",
    "timeout -s KILL 5s pythonw.exe",
    "exec pythonw.exe",
    "command pythonw.exe",
    "stdbuf -oL pythonw.exe",
    "echo hi | pythonw.exe -",
    "cat files | xargs pythonw.exe",
    "find . -name '*.py' -exec pythonw.exe {} \\;",
    "watch -n 2 pythonw.exe status",
    "watch 'pythonw.exe | head'",
    "$(pythonw.exe)",
    "echo $(pythonw.exe --version)",
    'echo "$(pythonw.exe --version)"',
    "echo `pythonw.exe`",
    "x=$(pythonw.exe) && echo $x",
    "diff <(pythonw.exe a) b.txt",
    "(cd app && pythonw.exe main.py)",
    "{ pythonw.exe main.py; }",
    'bash -c "pythonw.exe x"',
    "sh -c 'cd app && pythonw.exe x'",
    "bash -lc 'pythonw.exe x'",
    "zsh -c 'pythonw.exe'",
    "bash -c \"bash -c 'pythonw.exe'\"",
    "eval 'pythonw.exe main.py'",
    "su -c 'pythonw.exe' bob",
    "echo 'pythonw.exe main.py' | bash",
    "bash <<EOF\npythonw.exe main.py\nEOF",
    "cat <<EOF | sh\npythonw.exe main.py\nEOF",
    "bash <<< 'pythonw.exe x'",
    "if pythonw.exe --check; then echo ok; fi",
    "if true; then pythonw.exe; fi",
    "while true; do pythonw.exe; done",
    "for f in *.py; do pythonw.exe $f; done",
    "! pythonw.exe",
    "f() { pythonw.exe; }; f",
    "uv run pythonw.exe app.py",
    "poetry run pythonw.exe app.py",
    "cmd /c pythonw.exe app.py",
    'cmd.exe /C "pythonw.exe app.py"',
    "powershell -Command pythonw.exe app.py",
    r"C:\Python311\pythonw.exe app.py",
    r"C:\\Python311\\pythonw.exe app.py",
    r'"C:\Program Files\Python\pythonw.exe" app.py',
    "C:/Python311/pythonw.exe app.py",
    "/usr/bin/pythonw.exe app.py",
    "./venv/Scripts/pythonw.exe app.py",
    "PYTHONW.EXE app.py",
    "pythonw.exe app.py > out.log 2>&1",
    "> out.log pythonw.exe app.py",
    "pythonw.exe app.py 2>/dev/null | tee log",
    "cat <<EOF\n$(pythonw.exe)\nEOF",
]

ONLY_MENTIONS_IT = [
    "grep pythonw.exe notes.md",
    "pgrep pythonw.exe",
    "pkill -f pythonw.exe",
    'echo "pythonw.exe"',
    "echo pythonw.exe",
    'git commit -m "drop pythonw.exe"',
    "git commit -m 'never use pythonw.exe; use python.exe'",
    "rg -n 'pythonw\\.exe' src/",
    "ls pythonw.exe",
    "which pythonw.exe",
    "command -v pythonw.exe",
    "type pythonw.exe",
    "cat > notes.txt <<'EOF'\npythonw.exe is banned\nEOF",
    "cat <<'EOF'\n$(pythonw.exe)\nEOF",
    "echo $((1 + 2)) pythonw.exe",
    "tasklist | findstr pythonw.exe",
    "python.exe main.py  # not pythonw.exe",
    "sed -i 's/pythonw.exe/python.exe/' run.bat",
    "git log --grep=pythonw.exe",
    "ps aux | grep -v grep | grep pythonw",
    "bash script.sh pythonw.exe",
    "echo 'pythonw.exe' > cmd.txt",
    "python -c \"print('pythonw.exe')\"",
    "[[ $x == pythonw.exe ]] && echo same",
]


@pytest.mark.parametrize("command", RUNS_IT)
def test_program_run_anywhere_in_the_line_is_found(command):
    assert runs(command), programs(command)


@pytest.mark.parametrize("command", ONLY_MENTIONS_IT)
def test_the_same_word_as_an_argument_is_not_a_program(command):
    assert not runs(command), programs(command)


def test_generated_compositions_keep_the_property():
    """Table-generated combinations: any mix of separators, wrappers and prefixes around a
    runner or a mention keeps the verdict of its parts."""
    runners = [
        "pythonw.exe main.py",
        "sudo pythonw.exe",
        "FOO=1 pythonw.exe -m x",
        "bash -c 'pythonw.exe'",
        "$(pythonw.exe)",
    ]
    mentions = [
        "grep pythonw.exe notes.md",
        "echo 'pythonw.exe'",
        "pgrep pythonw.exe",
        'git commit -m "drop pythonw.exe"',
    ]
    neutral = ["ls -la", "cd app", "echo done", "npm test"]
    joins = [" && ", " || ", "; ", " | ", " & ", "\n"]
    wraps = ["{}", "({})", "{{ {}; }}", 'bash -c "{}"', "if true; then {}; fi"]
    checked = 0
    for a, b, j, w in itertools.product(runners + mentions, neutral, joins, wraps):
        if '"' in a and w.startswith("bash -c"):
            continue
        line = w.format(f"{b}{j}{a}")
        assert runs(line) == (a in runners), line
        checked += 1
    for a, b, j in itertools.product(mentions, mentions, joins):
        assert not runs(f"{a}{j}{b}"), f"{a}{j}{b}"
    assert checked > 300


def test_words_are_unquoted_and_split_like_a_shell():
    [cmd] = simple_commands("""git commit -m "fix: it's done" --author='A B' x\\ y""")
    assert cmd.program == "git"
    assert cmd.args == ["commit", "-m", "fix: it's done", "--author=A B", "x y"]


def test_redirection_targets_and_assignments_are_not_arguments():
    [cmd] = simple_commands("A=1 pythonw.exe app.py >out.log 2>&1 <in.txt")
    assert cmd.name == "pythonw.exe"
    assert cmd.args == ["app.py"]


def test_wrapped_program_and_its_wrapper_both_count_with_provenance():
    found = simple_commands("sudo -u bob timeout 5 rm -rf /tmp/x")
    assert [c.name for c in found] == ["sudo", "timeout", "rm"]
    rm = found[-1]
    assert rm.args == ["-rf", "/tmp/x"]
    assert rm.via == ("sudo", "timeout")


def test_nested_string_commands_say_how_they_were_reached():
    found = simple_commands("bash -c 'npm install && pythonw.exe x'")
    inner = [c for c in found if c.name == "pythonw.exe"][0]
    assert inner.via == ("bash -c",)
    assert inner.args == ["x"]


def test_windows_paths_give_the_executable_name():
    assert program_name(r"C:\Python\pythonw.exe") == "pythonw.exe"
    assert program_name("/usr/bin/python3") == "python3"
    [cmd] = simple_commands(r"C:\Python\pythonw.exe main.py")
    assert cmd.program == r"C:\Python\pythonw.exe"
    assert cmd.name == "pythonw.exe"


def test_powershell_encoded_command_is_decoded():
    encoded = base64.b64encode("pythonw.exe app.py".encode("utf-16-le")).decode()
    assert runs(f"powershell -EncodedCommand {encoded}")


def test_function_and_loop_headers_are_not_programs():
    assert programs("for f in a b; do echo $f; done") == ["echo"]
    assert programs("case $x in start) npm start;; esac") == ["npm"]
    assert programs("function deploy { npm publish; }") == ["npm"]


@pytest.mark.parametrize(
    "text",
    [
        "echo 'unclosed",
        'echo "unclosed $(pythonw.exe',
        "a && ( b | c ) ; }{ ))",
        "))))((((",
        "$(",
        "`",
        "<<EOF",
        "cat <<",
        "\\",
        "'''''",
        "bash -c",
        "sudo",
        "env -S",
        "find . -exec",
        "x" * 5 + "$(" * 200,
        "\x00\x01 weird \x7f",
        "echo ${unclosed",
        "powershell -EncodedCommand %%%",
    ],
)
def test_malformed_input_never_raises(text):
    result = simple_commands(text)
    assert isinstance(result, list)


def test_malformed_input_is_still_read_leniently():
    assert runs('echo "unclosed $(pythonw.exe')
    assert runs("pythonw.exe 'unclosed quote")
    assert runs("( pythonw.exe")


def test_deep_nesting_is_bounded_not_fatal():
    line = "pythonw.exe"
    for _ in range(10):
        line = "bash -c " + "'" + line.replace("'", "'\\''") + "'"
    assert isinstance(simple_commands(line), list)


def test_long_command_lines_are_handled():
    script = "cat > big.txt <<'EOF'\n" + ("pythonw.exe is banned here\n" * 20000) + "EOF\nls"
    assert programs(script) == ["cat", "ls"]
    long_arg = 'echo "' + "x" * 200_000 + '" && pythonw.exe'
    assert runs(long_arg)


def test_split_words():
    assert split_words("git push --force") == ["git", "push", "--force"]
    assert split_words('rm -rf "/my dir"') == ["rm", "-rf", "/my dir"]


def test_non_string_input_gives_no_commands():
    assert simple_commands("") == []
    assert simple_commands(None) == []  # type: ignore[arg-type]
