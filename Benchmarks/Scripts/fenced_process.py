"""What the scripts that drive `fenced` over HTTP share (zone-churn-daemon.py,
daemon-snapshot-steady.py)."""
import socket


def free_port():
    """A loopback port no one listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
