"""The charts of the recorded results (bench/charts.py draws them all): one module per topic, each
drawing from rows that read.py has checked."""
