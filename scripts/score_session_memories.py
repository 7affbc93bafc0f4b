#!/usr/bin/env python3
"""Judge the memories and reports a model writes at session end, on real transcripts, at the budget.

The writer gets exactly memory-cli's summary request for a session (``llm.prompts.SAVE_SYSTEM``,
the prompt ``llm.summarize.budgeted_prompt`` builds within ``llm.max_input_tokens``, and the
answer's schema as ``claude-cli`` and ``openai-compatible`` send it); its answer goes through
memory-cli's own validation (``llm.validate.check_save`` and ``check_corrections``). The judge
then gets the session (condensed the same way, to a larger budget) with the memories and the
report, and answers per memory ``useful`` (would help a later session), ``useless`` (true but of
no use later) or ``wrong`` (false, or teaches a bad habit), with the reason, and whether the
report is worth reading.

Either model can sit behind an OpenAI-compatible endpoint (``--writer-url``, ``--judge-url``;
``scripts/serve_local_model.py`` serves a small local one), or be a person or a model answering
files by hand: ``--requests DIR`` writes ``NAME.request.txt`` for the writer, ``NAME.answer.json``
is its answer; with the answers present the script writes ``NAME.judge.txt``, and
``NAME.verdict.json`` is the judge's answer. Rerun with the same DIR to go one step further; the
table is printed once every verdict is in. Say which model wrote and which judged every figure.

    .venv/bin/python scripts/score_session_memories.py --requests DIR SESSION.jsonl ...
    .venv/bin/python scripts/score_session_memories.py --writer-url URL --judge-url URL SESSION.jsonl ...
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

JUDGE_BUDGET = 24000
JUDGE_SYSTEM = (
    "You judge the long-term memories a coding agent's memory tool wrote at the end of a session. "
    "Read the session, then judge each memory on its own: 'useful' if it would help a later session "
    "in this project (a fact about the project or its tools, a preference or correction of the "
    "person, a decision with its reason, a fix that ended a failure) and the session supports it; "
    "'useless' if it is true but of no use later (temporary state, what the session did, obvious, "
    "too vague); 'wrong' if the session does not support it, contradicts it, or it would teach a "
    "bad habit. Then say whether the session report is worth reading for the next session: it must "
    "say what the session was for, what changed, and what was left open, and say nothing false."
)
JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "memories": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "index": {"type": "integer"},
                    "verdict": {"type": "string", "enum": ["useful", "useless", "wrong"]},
                    "reason": {"type": "string"},
                },
                "required": ["index", "verdict", "reason"],
            },
        },
        "report_worth_reading": {"type": "boolean"},
        "report_reason": {"type": "string"},
    },
    "required": ["memories", "report_worth_reading", "report_reason"],
}


def _excerpt(path: Path):
    from memory_cli.llm import transcript

    ex = transcript.read(str(path), 0)
    transcript.redact_all(ex)
    return ex


def writer_request(path: Path, budget: int) -> tuple[str, str, dict]:
    """(system, user text, what the prompt holds): exactly what memory-cli sends."""
    from memory_cli.llm import prompts
    from memory_cli.llm.summarize import _project_of, budgeted_prompt

    ex = _excerpt(path)
    prompt, shown = budgeted_prompt(ex, project=_project_of(ex.cwd), existing=[], max_tokens=budget)
    return prompts.SAVE_SYSTEM, prompt + prompts.json_only_instruction(prompts.SAVE_TOOL), shown


def validated(path: Path, answer: dict) -> tuple[list[dict], str, list[dict], list[dict]]:
    """memory-cli's own checks on the writer's answer: (memories, report, corrections, refused)."""
    from memory_cli.llm.summarize import _project_of
    from memory_cli.llm.validate import check_corrections, check_save

    ex = _excerpt(path)
    memories, refused, report = check_save(answer, project=_project_of(ex.cwd))
    found, refused_c = check_corrections(answer, typed=[t.text for t in ex.turns if t.role == "person"])
    return memories, report, found, refused + refused_c


def judge_request(path: Path, memories: list[dict], report: str) -> str:
    from memory_cli.llm.condense import condense

    text, _ = condense(_excerpt(path), JUDGE_BUDGET)
    listing = "\n".join(f"{i}. [{m['type']}] {m['content']}" for i, m in enumerate(memories)) or "(none)"
    return (
        f"{JUDGE_SYSTEM}\n\n<session>\n{text}\n</session>\n\nMemories written:\n{listing}\n\n"
        f"Session report:\n{report or '(none)'}\n\nAnswer with exactly one JSON object and nothing else, "
        f"matching this JSON schema:\n{json.dumps(JUDGE_SCHEMA)}"
    )


def _chat(url: str, system: str | None, user: str, timeout: float) -> dict:
    from memory_cli.llm.answers import _json_object

    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
    body = json.dumps({"messages": messages, "temperature": 0, "response_format": {"type": "json_object"}})
    req = urllib.request.Request(
        url.rstrip("/") + "/chat/completions", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        out = json.loads(resp.read())
    data = _json_object(out["choices"][0]["message"].get("content") or "")
    if data is None:
        raise ValueError("the model answered without a JSON object")
    return data


def _read_json(p: Path):
    text = p.read_text(encoding="utf-8")
    from memory_cli.llm.answers import _json_object

    return _json_object(text)


def score(rows: list[dict]) -> str:
    n = sum(len(r["verdict"]["memories"]) for r in rows)
    count = {v: 0 for v in ("useful", "useless", "wrong")}
    for r in rows:
        for v in r["verdict"]["memories"]:
            count[v["verdict"]] = count.get(v["verdict"], 0) + 1
    reports = sum(1 for r in rows if r["verdict"].get("report_worth_reading"))
    pct = lambda k: f"{count[k]} ({100 * count[k] / n:.0f} %)" if n else "0"  # noqa: E731
    lines = [
        "| sessions | memories | useful | useless | wrong | reports worth reading | refused by validation | corrections |",
        "|---|---|---|---|---|---|---|---|",
        f"| {len(rows)} | {n} | {pct('useful')} | {pct('useless')} | {pct('wrong')} | {reports} / {len(rows)} "
        f"| {sum(r['refused'] for r in rows)} | {sum(r['corrections'] for r in rows)} |",
        "",
        "| session | request tokens (est.) | memories | useful | useless | wrong | report |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        vs = [v["verdict"] for v in r["verdict"]["memories"]]
        lines.append(
            f"| {r['name']} | {r['tokens']} | {len(vs)} | {vs.count('useful')} | {vs.count('useless')} "
            f"| {vs.count('wrong')} | {'yes' if r['verdict'].get('report_worth_reading') else 'no'} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sessions", nargs="+", type=Path)
    ap.add_argument("--budget", type=int, default=16000, help="llm.max_input_tokens of the writer's request")
    ap.add_argument("--requests", type=Path, help="exchange requests and answers as files in this folder")
    ap.add_argument("--writer-url", help="OpenAI-compatible endpoint of the writer, up to /v1")
    ap.add_argument("--judge-url", help="OpenAI-compatible endpoint of the judge, up to /v1")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", action="store_true", help="also print every verdict as JSON lines")
    args = ap.parse_args()
    if not args.requests and not (args.writer_url and args.judge_url):
        ap.error("give --requests DIR, or both --writer-url and --judge-url")
    folder = args.requests
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
    rows, waiting = [], []
    for path in args.sessions:
        name = f"{path.parent.name}-{path.stem}"
        system, user, shown = writer_request(path, args.budget)
        if args.writer_url:
            answer = _chat(args.writer_url, system, user, args.timeout)
        else:
            (folder / f"{name}.request.txt").write_text(f"{system}\n\n{user}", encoding="utf-8")
            answer_file = folder / f"{name}.answer.json"
            if not answer_file.exists():
                waiting.append(str(answer_file))
                continue
            answer = _read_json(answer_file) or {}
        try:
            memories, report, found, refused = validated(path, answer)
        except Exception as err:  # a malformed answer: memory-cli would fall back to its local reader
            memories, report, found, refused = [], "", [], [{"reason": f"malformed: {err}"}]
        judge = judge_request(path, memories, report)
        if args.judge_url:
            verdict = _chat(args.judge_url, None, judge, args.timeout)
        else:
            (folder / f"{name}.judge.txt").write_text(judge, encoding="utf-8")
            verdict_file = folder / f"{name}.verdict.json"
            if not verdict_file.exists():
                waiting.append(str(verdict_file))
                continue
            verdict = _read_json(verdict_file) or {}
        if len(verdict.get("memories") or []) != len(memories):
            print(f"{name}: the judge gave {len(verdict.get('memories') or [])} verdicts for {len(memories)} memories")
        rows.append(
            {
                "name": name,
                "tokens": shown["estimated_tokens"],
                "memories": [m["content"] for m in memories],
                "report": report,
                "verdict": verdict,
                "refused": len(refused),
                "corrections": len(found),
            }
        )
    if waiting:
        print("waiting for:\n" + "\n".join(f"  {w}" for w in waiting))
    if rows:
        print(score(rows))
        if args.json:
            for r in rows:
                print(json.dumps(r, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
