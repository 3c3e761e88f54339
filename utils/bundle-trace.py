#!/usr/bin/python3
"""Turns the events an instrumented bundle recorded (model-compiler -instrument; docs/bundles.md)
into a Chrome Trace Event file (the JSON Object Format chrome://tracing and ui.perfetto.dev
load), as model-runner -trace writes one: a span per run, an event per instruction on the
caller's thread (name and kind from the manifest's "instructions") and one per thread's part of a
threaded step on that thread's.

  bundle-trace.py NET.json EVENTS OUT.json

EVENTS holds the runs one after the other, each its ember_trace's count and the number kept,
min(count, capacity) (two uint64), then the events kept (ember_trace_event, 32 bytes each):
what tests/tools/bundle_trace.c writes. Times are microseconds from the first event's start.
"""
import json
import struct
import sys

EVENT = struct.Struct("<QQiiii")  # start_ns, end_ns, instruction, thread, part, reserved
HEAD = struct.Struct("<QQ")  # the run's count, and the events kept: min(count, capacity)


def read_runs(data):
    """Each run's events (start, end, instruction, thread, part) and how many were dropped."""
    runs, at = [], 0
    while at < len(data):
        if at + HEAD.size > len(data):
            raise ValueError("the events end inside a run's counts")
        count, kept = HEAD.unpack_from(data, at)
        at += HEAD.size
        if kept > count or at + kept * EVENT.size > len(data):
            raise ValueError("a run of %d events, %d kept, in %d bytes" % (count, kept, len(data)))
        events = [EVENT.unpack_from(data, at + i * EVENT.size)[:5] for i in range(kept)]
        at += kept * EVENT.size
        runs.append((events, count - kept))
    return runs


def convert(manifest, runs):
    instrs = manifest["instructions"]
    pid, main = 1, 1
    out = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": main, "ts": 0,
         "args": {"name": "bundle " + manifest["network"]}},
        {"ph": "M", "name": "thread_name", "pid": pid, "tid": main, "ts": 0,
         "args": {"name": "main"}},
    ]
    starts = [e[0] for events, _ in runs for e in events]
    origin = min(starts) if starts else 0
    named = set()

    def us(ns):
        return (ns - origin) / 1000.0

    for index, (events, dropped) in enumerate(runs):
        if dropped:
            print("warning: run %d dropped %d events (the buffer was full)" % (index, dropped),
                  file=sys.stderr)
        if not events:
            continue
        first, last = min(e[0] for e in events), max(e[1] for e in events)
        out.append({"ph": "X", "name": "run %d" % index, "cat": "run", "ts": us(first),
                    "dur": (last - first) / 1000.0, "pid": pid, "tid": main,
                    "args": {"index": index, "dropped": dropped}})
        for start, end, instr, thread, part in events:
            if not 0 <= instr < len(instrs):
                raise ValueError("run %d: an event of instruction %d, of %d" %
                                 (index, instr, len(instrs)))
            tid = main + thread
            if thread > 0 and thread not in named:
                named.add(thread)
                out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": 0,
                            "args": {"name": "worker %d" % thread}})
            event = {"ph": "X", "name": instrs[instr]["name"], "ts": us(start),
                     "dur": (end - start) / 1000.0, "pid": pid, "tid": tid}
            if part < 0:
                event.update(cat="instruction", args={"kind": instrs[instr]["kind"]})
            else:
                event.update(cat="part", args={"part": part})
            out.append(event)
    return {"traceEvents": out, "displayTimeUnit": "ms"}


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    try:
        with open(argv[1]) as f:
            manifest = json.load(f)
        if "instructions" not in manifest:
            raise ValueError(argv[1] + ": not an instrumented bundle's manifest "
                             "(model-compiler -instrument)")
        with open(argv[2], "rb") as f:
            runs = read_runs(f.read())
        trace = convert(manifest, runs)
        with open(argv[3], "w") as f:
            json.dump(trace, f, indent=1)
            f.write("\n")
    except (OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
