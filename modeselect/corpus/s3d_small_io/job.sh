#!/bin/bash
#SBATCH --job-name=s3d-monitor
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# S3D-like small I/O: a line of monitor data per rank and step, flushed at once.

# build in the job, as the group's scripts do
mkdir -p bin
mpif90 -O2 -J bin -o bin/monitor monitor.f90 || exit 1

NSTEPS=300
srun ./bin/monitor "$BB_MOUNT" $NSTEPS || exit 1
