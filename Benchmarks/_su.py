import bench, sys
b = sys.argv[1]
xs = [bench.start_up_ms([b, "serve", "--port", str(p), "--log-level", "error"], p, "/auth/keys") for p in [bench.free_port() for _ in range(int(sys.argv[2]))]]
xs.sort(); print("median %.1f" % xs[len(xs)//2])
