#!/usr/bin/env python3
"""Score the Stop-check judge's request on pairs (lesson, final reply) labelled keeps / breaks /
does not apply, built from real held-out sessions (``tests/fixtures/real/stop_judge_pairs.jsonl``,
from ``tests/fixtures/real/heldout2``; the judge prompt, :mod:`memory_cli.checks.judge`, was
written before these sessions were read).

Each pair becomes exactly the request the judge gets: :func:`memory_cli.checks.judge.prompt`
for that one lesson, with the Stop hook input (``last_assistant_message``, ``stop_hook_active``
false) in place of ``$ARGUMENTS``. A verdict ``ok: false`` is a send-back. Figures: precision and
recall of "breaks", and false send-backs per 100 replies that keep the lesson or where it does
not apply.

Judges:
  --base-url URL    a model behind an OpenAI-compatible chat-completions endpoint (a local one:
                    ``scripts/serve_local_model.py``); ``--model`` names it
  --dump DIR        write each request to DIR/NN.txt (nothing scored): for a judge answering by
                    hand, given the request and nothing else
  --answers FILE    score verdicts read from FILE (one JSON object per line, ``{"n": NN, "ok":
                    bool, "reason": str}``), e.g. a Claude-class model's answers to the dumped
                    requests; say which judge in every figure

    .venv/bin/python scripts/score_stop_judge.py --base-url http://127.0.0.1:18777/v1
    .venv/bin/python scripts/score_stop_judge.py --answers tests/fixtures/real/stop_judge_claude.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_cli.checks import judge  # noqa: E402

PAIRS = ROOT / "tests" / "fixtures" / "real" / "stop_judge_pairs.jsonl"


def load(path: Path = PAIRS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def request(pair: dict, n: int) -> str:
    """The judge's request for one pair (the lesson's tag is the pair's number)."""
    args = json.dumps(
        {"hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": pair["reply"]},
        ensure_ascii=False,
    )
    return judge.prompt([(f"{n:08d}", pair["lesson"])], args)


def ask_openai(base_url: str, model: str, text: str, timeout: float = 120.0) -> tuple[dict | None, float]:
    body = {
        "model": model,
        "messages": [{"role": "user", "content": text + "\n\nAnswer with the JSON object only."}],
        "temperature": 0,
        "max_tokens": 120,
    }
    req = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        out = json.loads(resp.read())
    said = out["choices"][0]["message"]["content"] or ""
    return judge.parse_verdict(said), time.monotonic() - t0


def score(pairs: list[dict], verdicts: dict[int, dict | None]) -> dict:
    tp = fp = fn = failed = 0
    not_broken = 0
    for n, p in enumerate(pairs):
        v = verdicts.get(n)
        if v is None:
            failed += 1
            sent_back = False
        else:
            sent_back = v["ok"] is False
        broken = p["label"] == "breaks"
        not_broken += not broken
        tp += sent_back and broken
        fp += sent_back and not broken
        fn += (not sent_back) and broken
    return {
        "pairs": len(pairs),
        "breaks": sum(p["label"] == "breaks" for p in pairs),
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "false_send_backs_per_100": round(100 * fp / not_broken, 1) if not_broken else None,
        "judge_failed": failed,
        "mean_request_chars": round(sum(len(request(p, n)) for n, p in enumerate(pairs)) / len(pairs)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, default=PAIRS)
    ap.add_argument("--base-url")
    ap.add_argument("--model", default="local")
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--answers", type=Path)
    a = ap.parse_args(argv)
    pairs = load(a.pairs)
    if a.dump:
        a.dump.mkdir(parents=True, exist_ok=True)
        for n, p in enumerate(pairs):
            (a.dump / f"{n:02d}.txt").write_text(request(p, n), encoding="utf-8")
        print(f"wrote {len(pairs)} requests to {a.dump}")
        return 0
    verdicts: dict[int, dict | None] = {}
    judge_name = ""
    seconds: list[float] = []
    if a.answers:
        for line in a.answers.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                verdicts[int(row["n"])] = {"ok": bool(row["ok"]), "reason": row.get("reason", "")}
        judge_name = f"answers in {a.answers.name}"
    elif a.base_url:
        for n, p in enumerate(pairs):
            try:
                verdicts[n], s = ask_openai(a.base_url, a.model, request(p, n))
                seconds.append(s)
            except OSError as err:
                print(f"pair {n}: {err}", file=sys.stderr)
                verdicts[n] = None
        judge_name = f"{a.model} at {a.base_url}"
    else:
        ap.error("give --base-url, --answers or --dump")
    out = score(pairs, verdicts)
    out["judge"] = judge_name
    if seconds:
        out["mean_seconds"] = round(sum(seconds) / len(seconds), 2)
    print(json.dumps(out, indent=2, ensure_ascii=False))
    print(
        f"\njudge: {judge_name}\n"
        f"recall of breaks {out['recall']} (target >= 0.90), precision {out['precision']} (target >= 0.90), "
        f"false send-backs {out['false_send_backs_per_100']} per 100 replies that keep or where it does not apply"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
