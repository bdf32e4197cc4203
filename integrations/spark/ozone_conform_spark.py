#!/usr/bin/env python3
"""Check a fleet's Ozone logs with ozone-conform on Apache Spark.

The map step runs where the logs lie: every log file is one Spark task that pipes the file through
`ozone-conform events` on an executor. Only the events come back (a tiny fraction of the bytes), and the
driver runs `ozone-conform check --events -` once over all of them, so the verdicts, violations and spans are
those a single `check` of the same files gives.

    spark-submit --master yarn --files target/release/ozone-conform \\
        integrations/spark/ozone_conform_spark.py --format json -o report.json \\
        'hdfs:///logs/ozone/*/*.log*' 's3a://bucket/ozone-logs/scm*/'

Paths are anything Spark's Hadoop file systems read (file:, hdfs:, s3a:, ofs:, ...): globs and directories
(searched recursively for the names `check DIR` takes). Local files are read by the binary itself (streamed,
nothing held in memory); files on other file systems reach the executor through Spark's `binaryFiles` (a task
holds its file in memory once, Spark's own behaviour for whole-file reads; split logs larger than the
executors' memory into their rotated parts), are written under the executor's temp directory with their own
file name (which names the node and the rotation part) and read from there; the stream then names the
original URI, so the report's spans point at the file where it lies. `--via binary` sends local files that
way too.

Logs as Kubernetes, Docker, journald or a log shipper collected them (`/var/log/containers/*.log`, Docker's
`*-json.log`, `journalctl -o json` exports, Fluent Bit or Vector NDJSON) are read as `check` reads them:
`events` detects the wrapper per file (`--events-arg=--wrapper=cri` names it), and spans stay those of the
wrapped file. A `/var/log/containers/<pod>_<namespace>_<container>-<id>.log` keeps its name on the executor, so
the pod still names the node; a `/var/log/pods/.../<container>/N.log` reached through `binaryFiles` loses its
directories, so there the banner names the node.

The binary is the one shipped with `--files` (found with SparkFiles), else `--binary PATH`, else
`ozone-conform` on PATH. Exit code: check's (0 conforms or inconclusive, 1 a violation, 2 an error).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

BINARY_NAME = "ozone-conform"


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Run ozone-conform events on Spark executors and check the merged events on the driver."
    )
    parser.add_argument("paths", nargs="+", help="log files, directories or globs on any Hadoop file system")
    parser.add_argument("--binary", help="the ozone-conform binary (default: shipped with --files, or on PATH)")
    parser.add_argument("--master", help="Spark master when run with plain python (spark-submit sets it)")
    parser.add_argument("--format", default="concise", help="check's --format (json, sarif, junit, ...)")
    parser.add_argument("-o", "--output", help="write check's report to this local file instead of stdout")
    parser.add_argument("--events-output", help="also keep the merged event stream in this local file")
    parser.add_argument(
        "--via",
        choices=["auto", "binary"],
        default="auto",
        help="auto: local files are read by the binary where they lie; binary: every file through binaryFiles",
    )
    parser.add_argument(
        "--check-arg",
        action="append",
        default=[],
        help="one more argument for check (repeatable), e.g. --check-arg=--all",
    )
    parser.add_argument(
        "--events-arg",
        action="append",
        default=[],
        help="one more argument for events on the executors (repeatable), e.g. --events-arg=--grammar=DIR",
    )
    return parser.parse_args(argv)


def find_binary(explicit):
    """The binary on this host: --binary, the one --files shipped, or PATH."""
    if explicit and os.access(explicit, os.X_OK):
        return explicit
    try:
        from pyspark import SparkFiles

        shipped = SparkFiles.get(BINARY_NAME)
        if os.path.exists(shipped):
            if not os.access(shipped, os.X_OK):
                os.chmod(shipped, 0o755)
            return shipped
    except Exception:  # no SparkContext on this host yet, or nothing shipped
        pass
    found = shutil.which(BINARY_NAME)
    if found:
        return found
    raise RuntimeError(
        f"no {BINARY_NAME} binary here: ship it with spark-submit --files, pass --binary, or put it on PATH"
    )


# The names `check DIR` reads inside a directory (src/input.rs `is_log_file`).
def is_log_name(name):
    if name.endswith((".log", ".gz", "-output.txt")):
        return True
    stem, dot, tail = name.rpartition(".log.")
    return bool(dot) and bool(stem) and tail != ""


def list_logs(spark, patterns):
    """Every log file the patterns name, as (uri, is_local), through the JVM's Hadoop file systems."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    found = []
    for pattern in patterns:
        path = jvm.org.apache.hadoop.fs.Path(pattern)
        fs = path.getFileSystem(conf)
        statuses = fs.globStatus(path)
        if statuses is None or len(statuses) == 0:
            raise RuntimeError(f"{pattern}: no such file or directory")
        for status in statuses:
            if status.isDirectory():
                files = fs.listFiles(status.getPath(), True)
                while files.hasNext():
                    child = files.next()
                    if is_log_name(child.getPath().getName()):
                        found.append(child.getPath())
            else:
                found.append(status.getPath())
    uris = sorted({p.toUri().toString() for p in found})
    return [(uri, uri.startswith("file:") or ":" not in uri.split("/")[0]) for uri in uris]


def local_path(uri):
    """A local file's path as the binary and the report name it; other URIs as they are."""
    if uri.startswith("file://"):
        return uri[len("file://") :]
    return uri[len("file:") :] if uri.startswith("file:") else uri


def run_events(binary, args, path):
    """One file's event stream, as lines of text; an error names the file and carries the tool's message.

    Exit 2 with a stream is an input error the stream's end object carries (a file no layout fits, a read
    error): the driver's check reports it and exits 2, as a check of the files would. Anything else fails
    the task."""
    done = subprocess.run([binary, "events", *args, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode == 2 and done.stdout:
        sys.stderr.write(done.stderr.decode("utf-8", "replace"))
    elif done.returncode != 0:
        raise RuntimeError(
            f"{BINARY_NAME} events failed on {path} (exit {done.returncode}): "
            + done.stderr.decode("utf-8", "replace")
        )
    return done.stdout.decode("utf-8").splitlines()


def renamed(lines, local, uri):
    """The stream of a copy at `local` as the stream of the file at `uri` (header, events' source, end)."""
    for line in lines:
        obj = json.loads(line)
        if obj.get("input") == local:
            obj["input"] = uri
        if obj.get("end") == local:
            obj["end"] = uri
            obj["stats"]["path"] = uri
        source = obj.get("source")
        if source and source.get("path") == local:
            source["path"] = uri
        yield json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def events_of_bytes(binary, args, uri, data):
    """The stream of a file that reached this executor as bytes, under its own name and naming its URI."""
    name = os.path.basename(uri.rstrip("/")) or "input.log"
    with tempfile.TemporaryDirectory(prefix="ozone-conform-") as tmp:
        local = os.path.join(tmp, name)
        with open(local, "wb") as f:
            f.write(data)
        return list(renamed(run_events(binary, args, local), local, local_path(uri)))


def event_streams(spark, logs, binary_arg, events_args, via="auto"):
    """An RDD of event lines, one partition per log file, in the files' order."""
    sc = spark.sparkContext
    local = [uri for uri, is_local in logs if is_local and via == "auto"]
    remote = [uri for uri, is_local in logs if not (is_local and via == "auto")]
    streams = []
    if local:

        def from_local(uris):
            binary = find_binary(binary_arg)
            for uri in uris:
                yield from run_events(binary, events_args, local_path(uri))

        streams.append(sc.parallelize(local, len(local)).mapPartitions(from_local))
    if remote:

        def from_remote(pairs):
            binary = find_binary(binary_arg)
            for uri, data in pairs:
                yield from events_of_bytes(binary, events_args, uri, data)

        streams.append(sc.binaryFiles(",".join(remote), minPartitions=len(remote)).mapPartitions(from_remote))
    return streams[0] if len(streams) == 1 else sc.union(streams)


def main(argv):
    args = parse_args(argv)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("ozone-conform")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    try:
        logs = list_logs(spark, args.paths)
        events = event_streams(spark, logs, args.binary, args.events_arg, args.via)
        binary = find_binary(args.binary)
        command = [binary, "check", "--events", "-", "--format", args.format, *args.check_arg]
        report = open(args.output, "wb") if args.output else None
        kept = open(args.events_output, "w", encoding="utf-8") if args.events_output else None
        check = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=report or sys.stdout.buffer)
        try:
            # toLocalIterator brings one partition (one file's events) to the driver at a time.
            for line in events.toLocalIterator():
                data = line + "\n"
                check.stdin.write(data.encode("utf-8"))
                if kept:
                    kept.write(data)
        finally:
            check.stdin.close()
            code = check.wait()
            if report:
                report.close()
            if kept:
                kept.close()
        return code
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
