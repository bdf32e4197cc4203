#!/usr/bin/env python3
"""Every fixture input's verdicts, one line per input and model.

`check --all --format json` on each scenario directory and each of its files, each file under
tests/fixtures/logs and each real-Ozone directory, reduced to the verdict and the violations' invariants and
primary lines (the reasons' wording is left out).

    benches/fixture_verdicts.py BIN > table

Two binaries' tables differ exactly where a code change moves a fixture's verdict: used to ask whether a
surviving mutant (benches/mutation_score.sh) changes any fixture's verdict.
"""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def inputs():
    fixtures = ROOT / "tests" / "fixtures"
    for d in sorted((fixtures / "scenarios").glob("*/*/")):
        yield d
        yield from sorted(p for p in d.iterdir() if p.is_file() and ".log" in p.name)
    yield from sorted(p for p in (fixtures / "logs").rglob("*") if p.is_file())
    yield from sorted(d for d in (fixtures / "real-ozone").iterdir() if d.is_dir())


def main():
    binary = str(Path(sys.argv[1]).resolve())
    for path in inputs():
        name = str(path.relative_to(ROOT))
        run = subprocess.run([binary, "check", "--all", "--format", "json", name],
                             cwd=ROOT, capture_output=True, stdin=subprocess.DEVNULL)
        try:
            report = json.loads(run.stdout)
        except ValueError:
            print(f"{name}\t-\texit {run.returncode}, no report")
            continue
        for m in report.get("models", []):
            violations = sorted(
                "{}@{}:{}".format(v.get("invariant"), (v.get("primary") or {}).get("path", "?"),
                                  (v.get("primary") or {}).get("line", "?"))
                for v in m.get("violations", []))
            print(f"{name}\t{m.get('model')}\t{m.get('verdict')}\t{','.join(violations)}\texit {run.returncode}")


if __name__ == "__main__":
    main()
