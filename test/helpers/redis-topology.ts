/**
 * Real Redis topologies for the tests, started from the redis-server and redis-cli binaries
 * (scripts/ensure-services.sh installs them) on free ports in temp folders; the machine's shared
 * Redis is never touched:
 * - a Redis Cluster of three primaries and three replicas (`--cluster-enabled yes`, then
 *   `redis-cli --cluster create … --cluster-replicas 1`);
 * - a primary, one replica and three sentinels (`redis-server <conf> --sentinel`, quorum 2)
 *   watching them.
 * Each node runs append-only with an fsync every write, as docs/operations.md advises.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "./child-server.ts";

const run = promisify(execFile);

export interface RedisNode {
  port: number;
  proc: ChildProcess;
  dir: string;
  args: string[];
}

export interface RedisTopology {
  /** The locator the runtime takes as REDIS_URL. */
  url: string;
  nodes: RedisNode[];
  /** A client of one node (the caller disconnects it). */
  nodeClient(port: number): Redis;
  /** SIGKILL, waiting for the exit. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again with its own folder and config (it rejoins as a replica). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisCluster(): Promise<RedisTopology> {
  const nodes: RedisNode[] = [];
  for (let i = 0; i < 6; i++) {
    const dir = mkdtempSync(join(tmpdir(), "vkr-rcluster-"));
    const argsFor = (port: number) => [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      "nodes.conf",
      "--cluster-node-timeout",
      "1500",
      ..._durable,
    ];
    nodes.push({ dir, ...(await _startOnFreePort(argsFor)) });
  }
  const topology = _topology(`redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}`, nodes);
  try {
    await run(
      "redis-cli",
      ["--cluster", "create", ...nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "1", "--cluster-yes"],
      { timeout: 60_000 },
    );
    await waitFor(async () => (await Promise.all(nodes.map((n) => _clusterOk(n.port)))).every(Boolean), 30_000);
    // Every replica attached and in sync, so the first writes are confirmed at once.
    await waitFor(async () => {
      const roles = await Promise.all(nodes.map((n) => _role(n.port)));
      const online = await Promise.all(nodes.map((n, i) => (roles[i] === "master" ? _replicasOnline(n.port) : Promise.resolve(0))));
      return roles.filter((r) => r === "slave").length === 3 && online.filter((x) => x === 1).length === 3;
    }, 30_000);
  } catch (error) {
    await topology.stop();
    throw error;
  }
  return topology;
}

/**
 * One node in a folder of its own (`dir`, or a new temp folder) with the given persistence
 * arguments, for the backup drill; `stop` is SIGTERM (Redis saves what its config says on a clean stop).
 */
export async function startRedisNode(
  persistence: string[],
  dir = mkdtempSync(join(tmpdir(), "vkr-rnode-")),
): Promise<RedisNode & { url: string; stop(): Promise<void> }> {
  const { port, args, proc } = await _startOnFreePort((p) => ["--port", String(p), "--bind", "127.0.0.1", "--dir", dir, ...persistence]);
  return {
    port,
    dir,
    args,
    proc,
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}

export async function startRedisSentinel(masterName = "vkrmain"): Promise<RedisTopology & { sentinelPorts: number[]; masterName: string }> {
  const nodes: RedisNode[] = [];
  const node = async (extra: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), "vkr-rsentinel-"));
    const started = await _startOnFreePort((port) => ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, ..._durable, ...extra]);
    nodes.push({ dir, ...started });
    return started.port;
  };
  const primaryPort = await node([]);
  const replicaPort = await node(["--replicaof", "127.0.0.1", String(primaryPort)]);
  // Three sentinels, two of which must agree the primary is down: one sentinel's view of the
  // network alone never promotes a replica, as in a real deployment.
  const sentinels: RedisNode[] = [];
  for (let i = 0; i < SENTINELS; i++) {
    const dir = mkdtempSync(join(tmpdir(), "vkr-rsentinel-"));
    const conf = join(dir, "sentinel.conf");
    const argsFor = (port: number) => {
      writeFileSync(
        conf,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${primaryPort} ${SENTINEL_QUORUM}`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 4000`,
          `sentinel parallel-syncs ${masterName} 1`,
          "",
        ].join("\n"),
      );
      return [conf, "--sentinel"];
    };
    sentinels.push({ dir, ...(await _startOnFreePort(argsFor)) });
  }
  const sentinelPorts = sentinels.map((s) => s.port);
  const topology = _topology(`redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(",")}/${masterName}`, [
    ...nodes,
    ...sentinels,
  ]);
  try {
    await waitFor(async () => (await _role(replicaPort)) === "slave" && (await _replicasOnline(primaryPort)) === 1, 30_000);
    // Every sentinel knows the replica (learned from the primary) and the other sentinels (from
    // their hello messages, every 2 s) before anything may fail over: a quorum needs them.
    await waitFor(
      async () =>
        (
          await Promise.all(
            sentinelPorts.map((port) =>
              _withNode(port, async (c) => {
                const replicas = (await c.call("SENTINEL", "REPLICAS", masterName)) as unknown[];
                const peers = (await c.call("SENTINEL", "SENTINELS", masterName)) as unknown[];
                return replicas.length === 1 && peers.length === SENTINELS - 1;
              }).catch(() => false),
            ),
          )
        ).every(Boolean),
      30_000,
    );
  } catch (error) {
    await topology.stop();
    throw error;
  }
  return Object.assign(topology, { sentinelPorts, masterName });
}

/** The port of the primary currently serving `key`'s slot (cluster), or of the primary (sentinel set). */
export async function primaryPortFor(topology: RedisTopology, key?: string): Promise<number> {
  for (const n of topology.nodes) {
    if (n.proc.exitCode !== null || n.proc.signalCode !== null || n.args.includes("--sentinel")) continue;
    const found = await _withNode(n.port, async (c) => {
      if (key === undefined) return ((await c.role()) as unknown[])[0] === "master" ? n.port : null;
      const slot = (await c.call("CLUSTER", "KEYSLOT", key)) as number;
      const slots = (await c.call("CLUSTER", "SLOTS")) as Array<[number, number, [string, number]]>;
      return slots.find(([from, to]) => slot >= from && slot <= to)?.[2][1] ?? null;
    }).catch(() => null);
    if (found !== null) return found;
  }
  throw new Error(`no primary found${key ? ` for ${key}` : ""}`);
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, stepMs = 100): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

// --- Internal helpers ---

const SENTINELS = 3;
const SENTINEL_QUORUM = 2;
const _durable = ["--appendonly", "yes", "--appendfsync", "always", "--save", ""];

function _topology(url: string, nodes: RedisNode[]): RedisTopology {
  const find = (port: number) => {
    const n = nodes.find((x) => x.port === port);
    if (!n) throw new Error(`no node on ${port}`);
    return n;
  };
  const kill = async (port: number) => {
    const n = find(port);
    if (n.proc.exitCode !== null || n.proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      n.proc.once("exit", () => resolve());
      n.proc.kill("SIGKILL");
    });
  };
  return {
    url,
    nodes,
    nodeClient: (port) => {
      const c = new Redis(port, "127.0.0.1", { maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 1000 });
      c.on("error", () => {});
      return c;
    },
    kill,
    restart: async (port) => {
      const n = find(port);
      n.proc = await _startNode(port, n.args);
    },
    stop: async () => {
      await Promise.all(nodes.map((n) => kill(n.port)));
    },
  };
}

/**
 * A node on a port no other process holds. A port from `freePort` is free only when asked: another
 * suite (or another run on the machine) can take it before redis-server binds it, and then this
 * node exits at once. So a node that exits while starting, or a port answered by someone else's
 * server, is tried again on a new port.
 */
async function _startOnFreePort(argsFor: (port: number) => string[]): Promise<{ port: number; args: string[]; proc: ChildProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = argsFor(port);
    try {
      return { port, args, proc: await _startNode(port, args) };
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/** Starts redis-server and waits until this very process (by pid) answers on `port`. */
async function _startNode(port: number, args: string[]): Promise<ChildProcess> {
  const proc = spawn("redis-server", args, { stdio: "ignore" });
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  try {
    await waitFor(async () => !exited() && (await _serverPid(port)) === proc.pid, 10_000, 50);
  } catch {
    if (!exited()) proc.kill("SIGKILL");
    throw new Error(`redis-server on ${port} did not start (${exited() ? `exited with ${proc.exitCode}` : "no answer"})`);
  }
  return proc;
}

async function _serverPid(port: number): Promise<number | null> {
  const info = await _withNode(port, (c) => c.info("server")).catch(() => "");
  const pid = /process_id:(\d+)/.exec(info)?.[1];
  return pid ? Number(pid) : null;
}

async function _withNode<T>(port: number, fn: (c: Redis) => Promise<T>): Promise<T> {
  const probe = new Redis(port, "127.0.0.1", {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return await fn(probe);
  } finally {
    probe.disconnect();
  }
}

const _role = (port: number) => _withNode(port, async (c) => ((await c.role()) as unknown[])[0] as string).catch(() => null);
const _clusterOk = (port: number) =>
  _withNode(port, async (c) => String(await c.call("CLUSTER", "INFO")).includes("cluster_state:ok")).catch(() => false);
const _replicasOnline = (port: number) =>
  _withNode(port, async (c) => (((await c.role()) as unknown[])[2] as unknown[]).length).catch(() => 0);
