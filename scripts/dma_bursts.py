#!/usr/bin/env python3
"""How a capture's DMA records start within a burst, and how Pool's DMA instructions are paced
(issue 30's evidence for what the cost model lacks; docs/performance.md "Round 5").

    python3 scripts/dma_bursts.py [--neff] CAPTURE.ntff.gz [...]   (neff: target/release/neff)

For each capture, sg00:
- per (hardware queue, record size): the bursts of data records (> 4 bytes, same size, starts
  <= 150 ns apart, >= 8 records), the median start-to-start interval inside a burst ("stagger"),
  and the median record duration. The shared DMA path starts a burst's records one after
  another: the stagger is its cost per record (D621 fitted it per byte from contiguous records).
- Pool's DMAMEMCPY (0xB8) issue gaps, split by how many earlier 0xB8s of the same queue had not
  finished all their data records at the issue (16 records each: one per DMA engine).
Reads the capture through `neff profile --jsonl` (the one ntff reader, neff-profile).
"""

import bisect
import collections
import json
import statistics
import subprocess
import sys

NEFF = "target/release/neff"
ENGINES = 16  # data records per DIRECT2D: one per DMA engine (sem_increment 16, D440)


def rows(capture):
    out = subprocess.run([NEFF, "profile", "--jsonl", capture], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def bursts(records):
    """Runs of same-size records starting <= 150 ns after the previous one."""
    cur = []
    for r in records:
        if cur and (r["timestamp"] - cur[-1]["timestamp"] > 150 or r["size"] != cur[-1]["size"]):
            yield cur
            cur = []
        cur.append(r)
    if cur:
        yield cur


def stagger(dma):
    by_queue = collections.defaultdict(list)
    for r in dma:
        if r["size"] > 4:
            by_queue[r["dma_queue"]].append(r)
    for q, recs in sorted(by_queue.items()):
        recs.sort(key=lambda r: r["timestamp"])
        per = collections.defaultdict(lambda: ([], []))
        for b in bursts(recs):
            if len(b) < 8:
                continue
            gaps, durs = per[b[0]["size"]]
            gaps.append((b[-1]["timestamp"] - b[0]["timestamp"]) / (len(b) - 1))
            durs.extend(r["duration"] for r in b)
        for size, (gaps, durs) in sorted(per.items()):
            print(f"  queue {q:2} record {size:5} B: {len(gaps):4} bursts, stagger "
                  f"{statistics.median(gaps):5.1f} ns, record {statistics.median(durs):5.1f} ns")


def pacing(events, dma):
    pool = [r for r in events if r["kind"] == "instruction" and r["engine"] == "pool"
            and r["opcode"] == "DMAMEMCPY"]
    if not pool:
        return
    # Pool's 0xB8s use the queue whose data records are most numerous.
    queue = collections.Counter(r["dma_queue"] for r in dma if r["size"] > 4).most_common(1)[0][0]
    ends = sorted(r["timestamp"] + r["duration"] for r in dma
                  if r["dma_queue"] == queue and r["size"] > 4)
    if len(ends) != ENGINES * len(pool):
        print(f"  pool 0xB8 pacing: skipped ({len(ends)} data records on queue {queue} are not "
              f"{ENGINES} per each of the {len(pool)} 0xB8s)")
        return
    gaps = collections.defaultdict(list)
    for i in range(1, len(pool)):
        t = pool[i]["timestamp"]
        unfinished = round(i - bisect.bisect_left(ends, t) / ENGINES)
        gaps[unfinished].append(t - pool[i - 1]["timestamp"])
    for k, g in sorted(gaps.items()):
        print(f"  pool 0xB8 issued with {k:2} unfinished before it: {len(g):4} gaps, "
              f"median {statistics.median(g):6.0f} ns")


def main(args):
    global NEFF
    if args[:1] == ["--neff"]:
        NEFF, args = args[1], args[2:]
    for capture in args:
        events = [r for r in rows(capture) if r.get("subgraph") == "sg00"]
        dma = [r for r in events if r["kind"] == "dma"]
        print(capture)
        stagger(dma)
        pacing(events, dma)


if __name__ == "__main__":
    main(sys.argv[1:])
