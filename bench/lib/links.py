"""The emulated links' rates and the bound they set for sequential N-N work (bench scripts)."""


def rate_mib(rate):
    """MiB/s of a tc rate such as "1gbit", "250mbit" or "500kbit"."""
    return float(rate.rstrip("gbitmk")) * {"g": 1e9, "m": 1e6, "k": 1e3}[rate[-4]] / 8 / 2**20


def link_bound(rate, nodes):
    """Aggregate MiB/s the links allow when (nodes - 1) / nodes of each node's data crosses its
    link: nodes x rate / ((nodes - 1) / nodes). Unbounded on one node."""
    return nodes * rate_mib(rate) / ((nodes - 1) / nodes) if nodes > 1 else float("inf")
