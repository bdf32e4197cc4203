#!/usr/bin/env python3
"""Event-dense logs of a long-running cluster, made from the healthy scenario fixtures.

    benches/gen_event_dense.py --size 300M --out /tmp/dense-300M [--splice scm-secret-keys]

Each model's scenario (tests/fixtures/scenarios/<model>/healthy/, the per-node logs, not merged/; the models
as `ozone-conform models` lists them) is repeated until the output holds about --size bytes. By default only
the records that make events are repeated (each whole, as logged: `ozone-conform events` on the fixture tells
which), so that the logs are event-dense;
`--records all` repeats every record. Repetition k is the same cluster k * SHIFT later, as a
cluster that runs for years prints it: every timestamp (log lines, key creation/expiry instants, epoch-ms
snapshot names) moves forward by k * SHIFT, and every id a running cluster makes afresh is fresh: secret key
ids, container and block ids, Raft terms and log indices, Recon/OM sequence numbers. Node names, peer ids,
datanode uuids and Raft groups stay (the same cluster), but are made distinct between scenarios where two
fixtures reuse them (scm1..3 and dn1..3 of scm-finalization become fscm1..3 and fdn1..3), so that the
scenarios are parts of one cluster instead of one node printing two stories.

SHIFT (14 days) is longer than the span of every date a scenario prints, secret key expiry instants included
(the keys expire 9 days after creation): keys of repetition k have expired before repetition k+1 starts, so
a fresh key set on restart is healthy.

With --splice MODEL, repetition --splice-at (default: the second last) of that scenario is its violating
fixture instead, shifted the same way; `<out>/splice.json` says which files it went into and how many lines
and bytes came before it in each, so a test can check that the violation is found at the same line (offset) as on one
copy.

Output: <out>/<model>/<file> for each fixture file, and <out>/manifest.json (repetitions, bytes).
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "..", "tests", "fixtures", "scenarios")
# The models, in the registry's order (`ozone-conform models --format json`), set by main().
MODELS = []
SHIFT_DAYS = 14
# Per repetition: Raft terms move by TERM_STEP (areas interleaved so that no two scenarios share a term),
# log indices and sequence numbers by INDEX_STEP, blocks by BLOCK_STEP, containers by CONTAINER_STEP.
TERM_STEP = 1000
INDEX_STEP = 1_000_000
BLOCK_STEP = 10_000
CONTAINER_STEP = 100

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# Numbers that are Raft terms, log indices (Ratis and SCM transaction info), sequence numbers, block and
# container ids: the group `n` of each pattern is shifted.
TERM_PATTERNS = [
    r"at term (?P<n>\d+)",
    r"of term (?P<n>\d+)",
    r"\(t:(?P<n>\d+), i:",
    r"[Tt]erm: (?P<n>\d+)",
    r"<(?:true|false),(?P<n>\d+)>",
    r"\b(?P<n>\d+)#\d+",
    r"\bterm (?P<n>\d+)\b",
]
INDEX_PATTERNS = [
    r"\bi:(?P<n>\d+)\)",
    r"\b[Ii]ndex[ :=]+(?P<n>\d+)",
    r"\b[Ii]ndex is (?P<n>\d+)",
    r"\bsnapshot at index (?P<n>\d+)",
    r"== (?P<n>\d+)",
    r"lastAppliedIndex=(?P<n>\d+)",
    r"leaderCommitOnStart=(?P<n>\d+)",
    r"setUnconditionally (?P<n>\d+)",
    r"setUnconditionally \d+ -> (?P<n>\d+)",
    r"purgeIndex: (?P<n>\d+)",
    r"followerNextIndex = (?P<n>\d+)",
    r"logStartIndex = (?P<n>\d+)",
    r"\d+#(?P<n>\d+)",
    r"to index:(?P<n>\d+)",
    r"Snapshot Index (?P<n>\d+)",
    r"nextIndex is (?P<n>\d+)",
    r"available index (?P<n>\d+)",
    # Recon and OM RocksDB sequence numbers.
    r"sequence number before sync: (?P<n>\d+)",
    r"Sequence number after sync: (?P<n>\d+)",
    r"Seq number of Recon's OM DB : (?P<n>\d+)",
    r"From Sequence Number:(?P<n>\d+)",
    r"Recon DB Sequence Number: (?P<n>\d+)",
    r"since sequence number (?P<n>\d+)",
    r"\w -> (?P<n>\d+)$",
]
BLOCK_PATTERNS = [r"locID: (?P<n>\d+)"]
CONTAINER_PATTERNS = [r"conID: (?P<n>\d+)"]
DATE = re.compile(r"\b(?P<n>20\d\d-\d\d-\d\d)(?=[ T]\d\d:\d\d:\d\d)")
EPOCH_MS = re.compile(r"(?<![0-9])(?P<n>1[6-9]\d{11})(?![0-9])")
KEY_ID = re.compile(r"SecretKey\(id = (" + UUID + ")")


def parse_size(s):
    units = {"K": 10**3, "M": 10**6, "G": 10**9}
    if s[-1].upper() in units:
        return int(float(s[:-1]) * units[s[-1].upper()])
    return int(s)


def fake_uuid(*parts):
    h = hashlib.md5(":".join(map(str, parts)).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def rename_for_area(model, text):
    """Make the ids two fixtures share distinct between scenarios (one cluster, four stories)."""
    if model != "scm-finalization":
        return text
    text = re.sub(r"\b(scm|dn)([1-3])\b", r"f\1\2", text)
    text = text.replace("172.18.0.", "172.19.0.")
    text = re.sub(UUID, lambda m: fake_uuid("fin", m.group(0)), text)
    text = re.sub(r"group-[0-9A-F]{12}", lambda m: "group-" + hashlib.md5(m.group(0).encode()).hexdigest()[:12].upper(), text)
    return text


class Template:
    """A file as literal text and slots (numbers, dates, key ids) that each repetition fills in."""

    def __init__(self, text, key_ids):
        slots = []  # (start, end, kind, value)
        for line_start, line in iter_lines(text):
            for kind, patterns in (("term", TERM_PATTERNS), ("index", INDEX_PATTERNS), ("block", BLOCK_PATTERNS), ("container", CONTAINER_PATTERNS)):
                for p in patterns:
                    for m in re.finditer(p, line, re.M):
                        slots.append((line_start + m.start("n"), line_start + m.end("n"), kind, int(m.group("n"))))
            for m in DATE.finditer(line):
                slots.append((line_start + m.start("n"), line_start + m.end("n"), "date", m.group("n")))
            for m in EPOCH_MS.finditer(line):
                slots.append((line_start + m.start("n"), line_start + m.end("n"), "epoch", int(m.group("n"))))
            for m in re.finditer(UUID, line):
                if m.group(0) in key_ids:
                    slots.append((line_start + m.start(), line_start + m.end(), "key", m.group(0)))
        slots.sort()
        self.parts = []  # literal, slot, literal, slot, ..., literal
        self.slots = []
        pos = 0
        last = None
        for start, end, kind, value in slots:
            if start < pos:
                # Two patterns matched the same number: one shift, and they must agree on what it is (a term
                # shifted as an index would collide with a later repetition's term).
                if (start, end, kind) != last:
                    sys.exit(f"gen_event_dense: {text[start:end]!r} at {start} is both a {last[2]} and a {kind}")
                continue
            last = (start, end, kind)
            self.parts.append(text[pos:start])
            self.slots.append((kind, value))
            pos = end
        self.parts.append(text[pos:])
        self.lines = text.count("\n")
        self.dates = {v for k, v in self.slots if k == "date"}

    def render(self, area, k):
        shift = datetime.timedelta(days=SHIFT_DAYS * k)
        dates = {d: (datetime.date.fromisoformat(d) + shift).isoformat() for d in self.dates}
        term = (k * len(MODELS) + area) * TERM_STEP
        fill = {
            "term": lambda v: str(v + term),
            "index": lambda v: str(v + k * INDEX_STEP),
            "block": lambda v: str(v + k * BLOCK_STEP),
            "container": lambda v: str(v + k * CONTAINER_STEP),
            "date": lambda v: dates[v],
            "epoch": lambda v: str(v + k * SHIFT_DAYS * 86_400_000),
            "key": lambda v: fake_uuid("key", area, k, v),
        }
        out = [self.parts[0]]
        for (kind, value), lit in zip(self.slots, self.parts[1:]):
            out.append(fill[kind](value))
            out.append(lit)
        return "".join(out)


def iter_lines(text):
    pos = 0
    for line in text.splitlines(keepends=True):
        yield pos, line
        pos += len(line)


def registry_models(binary):
    """The model names, in the registry's order, as the binary lists them."""
    out = subprocess.run([binary, "models", "--format", "json"], check=True, capture_output=True).stdout
    return [m["model"] for m in json.loads(out)]


def scenario_files(model, kind):
    d = os.path.join(SCENARIOS, model, kind)
    return sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)) and f.endswith(".log"))


def event_records(binary, path):
    """The bytes of the records of `path` that make events, as `ozone-conform events` tells (each record whole,
    continuation lines included), in file order."""
    out = subprocess.run([binary, "events", path], check=True, capture_output=True).stdout
    with open(path, "rb") as fh:
        data = fh.read()
    spans = []
    for line in out.splitlines():
        o = json.loads(line)
        if "event" in o:
            src = o["source"]
            spans.append((src["byte_offset"], src["byte_len"]))
    kept = []
    for off, n in sorted(set(spans)):
        rec = data[off:off + n]
        kept.append(rec if rec.endswith(b"\n") else rec + b"\n")
    return b"".join(kept).decode("utf-8")


def load(model, kind, binary):
    """{output file name: Template} for one scenario's per-node logs (only their event records, unless
    `binary` is None)."""
    d = os.path.join(SCENARIOS, model, kind)
    texts = {}
    for f in scenario_files(model, kind):
        path = os.path.join(d, f)
        if binary is None:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        else:
            text = event_records(binary, path)
        texts[rename_for_area(model, f)] = rename_for_area(model, text)
    key_ids = set()
    for t in texts.values():
        key_ids.update(KEY_ID.findall(t))
    return {f: Template(t, key_ids) for f, t in texts.items()}


def span_days(templates):
    dates = sorted(d for t in templates.values() for d in t.dates)
    return (datetime.date.fromisoformat(dates[-1]) - datetime.date.fromisoformat(dates[0])).days + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="0", help="total bytes (K/M/G suffixes, decimal)")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--splice", metavar="MODEL", help="put one violating copy of this scenario near the end")
    ap.add_argument("--splice-at", type=int, help="the repetition that is violating (default: the second last, or the only one)")
    ap.add_argument("--repetitions", type=int, help="this many repetitions, whatever --size says")
    ap.add_argument("--first", type=int, default=0,
                    help="number of the first repetition (its time and ids): --first 10 --repetitions 1 is "
                         "repetition 10 of a longer log alone")
    ap.add_argument("--records", choices=["events", "all"], default="events",
                    help="repeat only the records that make events (default; needs --bin) or every record")
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "ozone-conform"),
                    help="the ozone-conform that lists the models and tells which records make events")
    args = ap.parse_args()
    MODELS[:] = registry_models(args.bin)
    if args.splice is not None and args.splice not in MODELS:
        ap.error(f"--splice: {args.splice!r} is not one of the models ({', '.join(MODELS)})")
    binary = args.bin if args.records == "events" else None

    healthy = {m: load(m, "healthy", binary) for m in MODELS}
    for m, t in healthy.items():
        if span_days(t) >= SHIFT_DAYS:
            sys.exit(f"gen_event_dense: {m} spans {span_days(t)} days: the shift must be longer")
    per_rep = sum(len(t.render(a, 0).encode()) for a, m in enumerate(MODELS) for t in healthy[m].values())
    reps = args.repetitions or max(2, -(-parse_size(args.size) // per_rep))
    splice_at = None
    violating = None
    if args.splice:
        violating = load(args.splice, "violating", binary)
        if set(violating) != set(healthy[args.splice]):
            sys.exit(f"gen_event_dense: {args.splice}: the violating fixture has other files than the healthy one")
        splice_at = args.splice_at if args.splice_at is not None else args.first + max(0, reps - 2)

    total = 0
    splice = {}
    for a, m in enumerate(MODELS):
        os.makedirs(os.path.join(args.out, m), exist_ok=True)
        for f, t in healthy[m].items():
            lines = nbytes = 0
            with open(os.path.join(args.out, m, f), "w", encoding="utf-8") as out:
                for k in range(args.first, args.first + reps):
                    tpl = t
                    if m == args.splice and k == splice_at:
                        tpl = violating[f]
                        splice[os.path.join(m, f)] = {"lines": lines, "bytes": nbytes}
                    text = tpl.render(a, k)
                    out.write(text)
                    lines += tpl.lines
                    nbytes += len(text.encode())
                total += nbytes
    with open(os.path.join(args.out, "manifest.json"), "w") as fh:
        json.dump({"repetitions": reps, "bytes": total, "shift_days": SHIFT_DAYS}, fh)
    if args.splice:
        with open(os.path.join(args.out, "splice.json"), "w") as fh:
            json.dump({"model": args.splice, "repetition": splice_at, "before": splice}, fh, indent=1)
    print(f"gen_event_dense: {reps} repetitions, {total} bytes in {args.out}")


if __name__ == "__main__":
    main()
