"""What the scripts that drive `fenced` over HTTP share (zone-churn-daemon.py,
daemon-snapshot-steady.py)."""
import os, socket, subprocess, sys, time, urllib.request


def free_port():
    """A loopback port no one listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_fenced(fenced, data, arguments, scratch):
    """Starts `fenced serve --data DATA` on a free loopback port with `arguments`, its output
    appended to SCRATCH/fenced.log (SCRATCH made if missing), and waits until /healthz answers. Returns the process, its
    base URL and the seconds it took; exits when the daemon exits first. With `--postgres URL`
    among the arguments the store is that database and DATA is not passed."""
    port = free_port()
    os.makedirs(scratch, exist_ok=True)
    log = open(os.path.join(scratch, "fenced.log"), "a")
    t0 = time.perf_counter()
    process = subprocess.Popen(
        [fenced, "serve", *([] if "--postgres" in arguments else ["--data", data]), "--listen",
         f"127.0.0.1:{port}", "--log-level", "warning", *arguments], stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    while True:
        if process.poll() is not None:
            sys.exit(f"fenced exited with status {process.returncode}; see {scratch}/fenced.log")
        try:
            if urllib.request.urlopen(base + "/healthz", timeout=5).status == 200:
                break
        except OSError:
            pass
        time.sleep(0.05)
    return process, base, time.perf_counter() - t0
