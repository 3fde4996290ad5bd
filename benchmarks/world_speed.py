"""Time the embedded world's generation per profile (the notebooks wait for it on first use) and print a table.

    .venv/bin/python benchmarks/world_speed.py                  # smoke and cpu, best of 3 runs each
    .venv/bin/python benchmarks/world_speed.py --profiles cpu --repeats 5

Each run generates the world from scratch (`generate_world`, not the cached `corpora.world`). Numbers depend on
the machine and on what else runs on it: compare rows of one run.
"""

from __future__ import annotations

import argparse
import time

from cdlm_nb.data.world import generate_world
from cdlm_nb.profiles import get_profile


def time_world(profile: str, repeats: int) -> dict[str, float | int]:
    """Best and mean wall-clock seconds over `repeats` generations of a profile's world, with its size."""
    config = get_profile(profile).world
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        world = generate_world(config)
        seconds.append(time.perf_counter() - started)
    summary = world.describe()
    return {"best_s": min(seconds), "mean_s": sum(seconds) / len(seconds),
            "clusters": sum(summary["clusters"].values()), "documents": summary["documents"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=["smoke", "cpu"], help="profiles to time (smoke, cpu, gpu)")
    parser.add_argument("--repeats", type=int, default=3, help="generations per profile (the best is reported)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats={args.repeats}: need at least 1")
    print("| profile | clusters | documents | best s | mean s |")
    print("|---------|---------:|----------:|-------:|-------:|")
    for profile in args.profiles:
        row = time_world(profile, args.repeats)
        print(f"| {profile} | {row['clusters']} | {row['documents']} | {row['best_s']:.2f} | {row['mean_s']:.2f} |")


if __name__ == "__main__":
    main()
