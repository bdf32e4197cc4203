#!/usr/bin/env python3
"""Lines of real Ozone logs that the grammars' loggers print and no rule turns into an event.

    uncovered.py [--bin target/debug/ozone-conform] LOG...   (plain or .gz surefire *-output.txt files)

For every record whose logger (the `%c{2}` rendering of the test layout) is one that a rule in grammars/*.rules
names, and that `ozone-conform events` does not report, prints the message shape (numbers, UUIDs, hex and paths
folded to `#`) with its logger, level, count and first line. The grammar covers the rest. `logger *` rules are
ignored (they match by message, not by logger).
"""
import argparse
import collections
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RECORD = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[(?P<thread>.*?)\] (?P<level>[A-Z]+)\s+(?P<logger>\S+) "
    r"\((?P<loc>[^)]*(?:\)[^)]*)?)\) - (?P<msg>.*)$")


def grammar_loggers():
    loggers = set()
    gdir = os.path.join(REPO, "grammars")
    for name in os.listdir(gdir):
        if name.endswith(".rules"):
            for line in open(os.path.join(gdir, name), encoding="utf-8"):
                m = re.match(r"^\s+logger\s+(\S+)", line)
                if m and m.group(1) != "*":
                    loggers.add(m.group(1))
    return loggers


def shape(msg):
    s = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", msg)
    s = re.sub(r"group-[0-9A-F]{12}", "group-<hex>", s)
    s = re.sub(r"(/[\w.\-]+)+", "<path>", s)
    s = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z?", "<instant>", s)
    s = re.sub(r"\d+", "#", s)
    return s[:200]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(REPO, "target/debug/ozone-conform"))
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    fq = grammar_loggers()
    # %c{2} renderings: the last two dot-separated parts of each FQCN.
    short = {".".join(l.split(".")[-2:]): l for l in fq}
    rows = collections.OrderedDict()
    for log in a.logs:
        covered = set()
        out = subprocess.run([a.bin, "events", log], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            e = json.loads(line)
            if "source" in e:
                covered.add(e["source"]["line"])
        opener = gzip.open if log.endswith(".gz") else open
        with opener(log, "rt", encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = RECORD.match(line.rstrip("\n"))
                if not m or m.group("logger") not in short or n in covered:
                    continue
                key = (short[m.group("logger")], m.group("level"), shape(m.group("msg")))
                if key not in rows:
                    rows[key] = [0, "%s:%d" % (os.path.basename(log), n)]
                rows[key][0] += 1
    for (logger, level, s), (count, first) in sorted(rows.items()):
        print("%5d  %-5s %s  %s\n       first: %s" % (count, level, logger, s, first))
    print("%d uncovered message shapes" % len(rows), file=sys.stderr)


if __name__ == "__main__":
    main()
