"""The mode selector's benchmarks (a package only so that unittest discovery finds their tests)."""
