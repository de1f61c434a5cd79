import bench, sys, time, subprocess, socket, statistics
def start_up_ms(command, port, path, pause):
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
                    connection.sendall(request)
                    if connection.recv(12).startswith(b"HTTP/1.1 200"):
                        return (time.perf_counter() - started) * 1000
            except OSError:
                if pause: time.sleep(pause)
                continue
    finally:
        process.kill(); process.wait()
import tempfile
body = tempfile.NamedTemporaryFile(suffix=".json"); body.write(b'{"keys":[]}'); body.flush()
bare = "/work/main/Benchmarks/.build/release/bare-responder"
for pause in (0, 0.0005):
    for name, mk in (("bare", lambda p: [bare, str(p), body.name]), ("old", lambda p: ["/tmp/mock-old", "serve", "--port", str(p), "--log-level", "error"]), ("new", lambda p: ["/work/main/.build/release/mock-appleid", "serve", "--port", str(p), "--log-level", "error"])):
        xs = [start_up_ms(mk(p), p, "/auth/keys" if name != "bare" else "/", pause) for p in [bench.free_port() for _ in range(21)]]
        print(pause, name, "%.1f" % statistics.median(xs))
