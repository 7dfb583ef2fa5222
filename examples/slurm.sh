#!/usr/bin/env bash
# A Slurm batch script for one mgensim run spread over MPI processes (mgensim built with
# `cargo build --release --features mpi` against the cluster's MPI). Submit with
#   sbatch examples/slurm.sh scenarios/barrier.toml
# Each process simulates its share of the network's partitions on --cpus-per-task threads; the
# first writes the summary and the output folder, the same bytes as one process would.
#SBATCH --job-name=mgensim
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:30:00
#SBATCH --output=mgensim-%j.log
set -euo pipefail
scenario=${1:?usage: sbatch examples/slurm.sh SCENARIO.toml [mgensim run options]}
shift
# (a partition per thread of every process: the default cuts the network in as many as its size
# allows)
srun --mpi=pmix target/release/mgensim run "$scenario" --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --out "results-$SLURM_JOB_ID" "$@"
