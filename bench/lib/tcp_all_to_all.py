#!/usr/bin/env python3
"""One node of an all-to-all TCP transfer (bench/transport/link_ceiling.sh runs one per emulated node).

    tcp_all_to_all.py ME MIB START ADDR...

Listens on ADDR[ME]:9999, connects to every other address, waits for the Unix time START, then
sends MIB MiB to each peer at once (1 MiB sendall calls) while receiving theirs. Prints
"ME SECONDS": from START until everything was sent and received.
"""
import socket
import sys
import threading
import time

PORT = 9999
BLOCK = 1 << 20


def main():
    me, mib, start, addrs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((addrs[me], PORT))
    server.listen(len(addrs))

    def drain(conn):
        while conn.recv(BLOCK):
            pass

    def accept_all():
        readers = []
        for _ in range(len(addrs) - 1):
            conn, _ = server.accept()
            t = threading.Thread(target=drain, args=(conn,))
            t.start()
            readers.append(t)
        for t in readers:
            t.join()

    def send(peer):
        for _ in range(100):  # the peer may not listen yet
            try:
                s = socket.create_connection((addrs[peer], PORT))
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit(f"node {me}: cannot connect to {addrs[peer]}:{PORT}")
        while time.time() < start:
            time.sleep(0.001)
        block = b"x" * BLOCK
        for _ in range(mib):
            s.sendall(block)
        s.shutdown(socket.SHUT_WR)
        s.close()

    acceptor = threading.Thread(target=accept_all)
    acceptor.start()
    senders = [threading.Thread(target=send, args=(p,)) for p in range(len(addrs)) if p != me]
    for t in senders:
        t.start()
    for t in senders:
        t.join()
    acceptor.join()
    print(me, round(time.time() - start, 3))


if __name__ == "__main__":
    main()
