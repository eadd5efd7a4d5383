/**
 * A real redis-server for tests: started on a free loopback port with no
 * persistence, stopped after. `.ci/run` installs Debian's redis-server; a
 * machine without it fails these tests with a message saying so.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer, connect } from "node:net";

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  if (spawnSync("redis-server", ["--version"]).error) {
    throw new Error("redis-server is not installed: these tests need a real Redis (Debian: apt-get install redis-server; .ci/run installs it)");
  }
  const port = await freePort();
  const child: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await waitForPort(port, 10_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => (socket.end(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not listen on port ${port} within ${ms} ms`);
}
