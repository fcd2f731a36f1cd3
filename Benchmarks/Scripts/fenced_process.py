"""What the scripts that drive `fenced` over HTTP share (zone-churn-daemon.py,
daemon-snapshot-steady.py, daemon-restart.py, daemon-first-post.py, daemon-first-start.py,
daemon-spaced-deletes.py).

Profiling: with FENCED_PERF=DIR in the environment, every `fenced` these scripts start runs
under `perf record -F 4000 -g`, into DIR/perf-<build>-<n>.data (`perf report -i` reads it); a
SIGTERM to it stops both. The daemon's peak memory is then perf's."""
import itertools, os, socket, stat, subprocess, sys, time, urllib.request

_perf_runs = itertools.count()


def free_port():
    """A loopback port no one listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def under_perf(fenced, scratch, output, frequency):
    """A wrapper script (in SCRATCH) that runs `fenced` with its arguments under
    `perf record -F FREQUENCY -g -o OUTPUT`."""
    wrapper = os.path.join(scratch, f"fenced-under-perf-{os.path.basename(output)}.sh")
    with open(wrapper, "w") as script:
        script.write(f"#!/bin/sh\nexec perf record -F {frequency} -g -o {output} {fenced} \"$@\"\n")
    os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
    return wrapper


def peak_memory_bytes(pid):
    """The process's peak resident memory so far (VmHWM), or 0 once it is gone."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def timed_request(method, url, body=None, content_type=None):
    """Sends one request; returns its seconds, status and body."""
    request = urllib.request.Request(url, data=body, method=method)
    if content_type:
        request.add_header("Content-Type", content_type)
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = response.read()
        status = response.status
    return time.perf_counter() - started, status, answer


def start_fenced(fenced, data, arguments, scratch):
    """Starts `fenced serve --data DATA` on a free loopback port with `arguments`, its output
    appended to SCRATCH/fenced.log (SCRATCH made if missing), and waits until /healthz answers. Returns the process, its
    base URL and the seconds it took; exits when the daemon exits first. With `--postgres URL`
    among the arguments the store is that database and DATA is not passed."""
    port = free_port()
    os.makedirs(scratch, exist_ok=True)
    if os.environ.get("FENCED_PERF"):
        profiles = os.environ["FENCED_PERF"]
        os.makedirs(profiles, exist_ok=True)
        output = os.path.join(profiles, f"perf-{os.path.basename(fenced)}-{next(_perf_runs)}.data")
        fenced = under_perf(fenced, scratch, output, 4000)
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
