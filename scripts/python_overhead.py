#!/usr/bin/env python3
"""The Python call path vs the `neff` CLI on one NEFF (issue 18's closing figure).

    python scripts/python_overhead.py BIG.neff [path/to/neff]

Needs `import neffkit` built in release (`pip install ./python`) and a release `neff`
(`cargo build --release -p neff-cli`). Each figure is the best of 3 wall-clock runs; the CLI
runs write to /dev/null. Prints a markdown table for docs/performance.md.
"""

import subprocess
import sys
import time

import neffkit


def best(f, runs=3):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def cli(neff, *args):
    def run():
        subprocess.run([neff, *args], stdout=subprocess.DEVNULL, check=True)

    return run


def main():
    path = sys.argv[1]
    neff = sys.argv[2] if len(sys.argv) > 2 else "target/release/neff"
    n = neffkit.open(path)
    engines = {"pe", "act", "activation", "pool", "dve", "sp"}
    streams = [
        (p.split("/")[0], p.split("/")[-1][:-4], size)
        for p, size in n.members
        if p.endswith(".bin") and p.count("/") == 1 and p.split("/")[-1][:-4].lower() in engines
    ]
    slots = sum(size // 64 for _, _, size in streams)
    rows = [
        ("read + parse", cli(neff, "ls", path), lambda: neffkit.open(path), "`neff ls`"),
        ("disassemble every slot", cli(neff, "disasm", path),
         lambda: neffkit.open(path).disasm(), "`neff disasm` > /dev/null"),
        ("load (report)", cli(neff, "load", path, "--json"),
         lambda: neffkit.open(path).load().report(), "`neff load --json`"),
        ("slots as numpy, every stream", None,
         lambda: [n.slots(sg, e) for sg, e, _ in streams], "-"),
    ]
    print(f"{path}: {slots} engine slots in {len(streams)} streams\n")
    print("| work | CLI | s | Python | s | Python / CLI |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, c, py, label in rows:
        tc = best(c) if c else None
        tp = best(py)
        ratio = f"{tp / tc:.2f}" if tc else "-"
        tcs = f"{tc:.3f}" if tc else "-"
        print(f"| {name} | {label} | {tcs} | `neffkit` | {tp:.3f} | {ratio} |")


if __name__ == "__main__":
    main()
