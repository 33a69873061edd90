# Sourced by job.sh: the solver's settings.
export OMP_NUM_THREADS=2
STEPS=10
