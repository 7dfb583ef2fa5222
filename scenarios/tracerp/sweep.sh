#!/usr/bin/env bash
# TraceRP's parameter sweeps (its figures 3 and 5) on its three networks (Table 1: fat tree
# 288 nodes, torus 4x8x8, dragonfly 342 nodes), each with the five benchmarks:
#   ts: link energy against T_s = 10, 50, 250, 1250 us, with T_w = 17 us     (figure 3)
#   tw: execution time against T_w = 0, 5, 10, 15, 20 us, with T_s = 0       (figure 5)
# Every point is also run with the links always on (--power-baseline), so energy, power and
# time come as ratios to it (energy_ratio, power_ratio, time_ratio in sweep.csv).
# Writes $OUT/<topology>-{ts,tw}/sweep.csv and sweep.svg (OUT defaults to results/tracerp).
# Usage: scenarios/tracerp/sweep.sh [sweep options...], e.g. --set workload.args.iters=20
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q
bin=target/release/mgensim
out=${OUT:-results/tracerp}
benches=near_neighbor,permutation,qbox,stencil4d,a2a
for topo in fattree torus dragonfly; do
  scen=scenarios/tracerp/$topo.toml
  $bin sweep "$scen" --power-baseline -q --out "$out/$topo-ts" \
    --vary power.t_sleep=10us,50us,250us,1250us --vary workload.args.bench=$benches \
    --set power.t_wake=17us --y energy_ratio "$@"
  $bin sweep "$scen" --power-baseline -q --out "$out/$topo-tw" \
    --vary power.t_wake=0us,5us,10us,15us,20us --vary workload.args.bench=$benches \
    --set power.t_sleep=0us --y time_ratio "$@"
done
# one line per point: topology, sweep, T_s or T_w, benchmark, energy and time against always-on
echo "topology sweep value bench energy_ratio time_ratio"
for f in "$out"/*/sweep.csv; do
  name=$(basename "$(dirname "$f")")
  python3 - "$f" "${name%-*}" "${name##*-}" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    key = "power.t_sleep" if sys.argv[3] == "ts" else "power.t_wake"
    print(sys.argv[2], sys.argv[3], r[key], r["workload.args.bench"],
          f'{float(r["energy_ratio"] or "nan"):.4f}', f'{float(r["time_ratio"] or "nan"):.4f}')
PY
done
