"""Scan a compile cache with Ray Data: one row per NEFF, the rows `neff scan` writes.

    python examples/ray_scan.py SRC... OUT [--address ADDRESS] [--num-cpus N]

Each SRC is a folder, or an object-store URI Ray's file readers understand (``s3://bucket/cache/``):
every ``*.neff`` below them is read as bytes (``ray.data.read_binary_files``), each file becomes
its row on the cluster's workers (``neffkit.scan_one``; a broken file is a row with its error),
and the rows are written as Parquet files in OUT (``write_parquet``, a folder or a URI). The
columns are those of docs/json.md "neff scan rows". One machine needs no Ray: ``neff scan SRC
--parquet FILE`` does the same on every core (docs/scale.md says when a cluster pays off).

Every worker needs ``neffkit`` installed (``pip install ./python``, or a wheel in the job's
runtime environment).
"""

import argparse
from typing import Any, Dict, List, Optional, Union

import pyarrow as pa
import pyarrow.parquet as pq
import ray

import neffkit


def scan_record(record: Dict[str, Any]) -> Dict[str, Any]:
    """One ``read_binary_files`` record ``{"bytes", "path"}`` -> its scan row."""
    return neffkit.scan_one(record["bytes"], path=record["path"])


def row_schema() -> pa.Schema:
    """The Parquet schema of ``neff scan --parquet``: every file Ray writes gets it, so a column
    that is null in one block (a broken file's ``target``) has the same type as in the others."""
    return pq.read_schema(pa.BufferReader(neffkit.scan_schema()))


def scan(src: Union[str, List[str]], out: str, concurrency: Optional[int] = None) -> None:
    """Reads every NEFF below ``src`` (one folder or URI, or a list), scans it, writes the rows
    as Parquet files to ``out``."""
    files = ray.data.read_binary_files(src, include_paths=True, file_extensions=["neff"])
    rows = files.map(scan_record, concurrency=concurrency)
    rows.write_parquet(out, schema=row_schema())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="+", help="folders or object-store URIs holding *.neff files")
    parser.add_argument("out", help="the folder or URI the Parquet files go to")
    parser.add_argument("--address", help="a running Ray cluster (default: start a local one)")
    parser.add_argument("--num-cpus", type=int, help="CPUs of the local instance")
    args = parser.parse_args(argv)
    ray.init(address=args.address, num_cpus=args.num_cpus)
    try:
        scan(args.src, args.out)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
