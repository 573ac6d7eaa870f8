// Preloaded into every test process (`node --test --import ./test/helpers/leak-check.ts …`): a test file fails if,
// once its tests and its own `after` hooks are done, it leaves anything open — a database pool or client (their
// sockets), a graphile-worker runner (its timers and pool), a timer or interval, an HTTP server (a simulator, a
// receiver), a socket, a child process, a worker thread. The failure lists each such resource and the stack that
// created it.
//
// How:
// - async_hooks records every handle-like resource (sockets, servers, pipes, child processes, signal watchers,
//   timers, immediates, worker threads, message ports, file handles) when it is created, with its stack, and forgets
//   it when it is destroyed (closed, cleared, fired). What is left at the end is what the file left open.
// - The check runs as the root's last `after` hook. A root `after` registered here would run first (root hooks run
//   in the order they are registered, and this module loads before the test file), so this module registers a
//   first hook whose only job is to append the real check to the root's hooks: node:test runs them from a live
//   list, so the check runs after every hook of the file. (test/leak-check.test.ts proves both the ordering and the
//   failure.)
// - Resources close asynchronously (a socket's close callback, a timer fired by a close), so the check polls for up
//   to GRACE_MS before it fails; a clean file passes on the first look.
// - Legitimately open: the process's stdio (fd 0–2) and IPC channel, and this module's own polling timer. An
//   unref'd timer or handle IS a leak: it does not keep the process alive, but it is still work left running (an
//   interval of a component nobody stopped, a server nobody closed). The only exceptions are the few unref'd
//   one-shot timers nobody can clear, listed with their reasons in `tolerated()`.
// - Anything still keeping the event loop alive that async_hooks did not attribute (process.getActiveResourcesInfo())
//   is reported by type too.
// - A file that leaked something ref'd would otherwise never exit (node:test waits for the event loop to drain), so
//   after a failure the process exits on its own once the runner has reported.
//
// Only active in a process the test runner started for one file (NODE_TEST_CONTEXT is set); the runner's own
// process loads the module too and ignores it.
import { AsyncResource, createHook, executionAsyncId } from 'node:async_hooks';
import path from 'node:path';
import { after } from 'node:test';

const GRACE_MS = 1_000;
const POLL_MS = 10;

/** async_hooks types that hold something open until closed, cleared or fired. */
const TRACKED = new Set([
  'TCPWRAP',
  'TCPSERVERWRAP',
  'PIPEWRAP',
  'PIPESERVERWRAP',
  'TTYWRAP',
  'UDPWRAP',
  'PROCESSWRAP',
  'SIGNALWRAP',
  'FSEVENTWRAP',
  'STATWATCHER',
  'Timeout',
  'Immediate',
  'WORKER',
  'MESSAGEPORT',
  'FILEHANDLE',
]);

/** process.getActiveResourcesInfo() names of the handles the tracking above accounts for. */
const ATTRIBUTED = new Set([
  'TCPSocketWrap',
  'TCPServerWrap',
  'PipeWrap',
  'PipeServerWrap',
  'TTYWrap',
  'UDPWrap',
  'ProcessWrap',
  'SignalWrap',
  'FSEventWrap',
  'StatWatcher',
  'Timeout',
  'Immediate',
  'Worker',
  'MessagePort',
  'FileHandle',
]);

interface Origin {
  /** The nearest stack, up the chain of async contexts, with a frame of the project in it. */
  sites?: NodeJS.CallSite[];
  /**
   * The test or hook in whose async context it was made (for a server's requests: where the server was started).
   * Described when reported: when created, a Test is not yet named.
   */
  during?: object;
}

interface Tracked {
  type: string;
  resource: object;
  sites: NodeJS.CallSite[];
  origin: Origin | undefined;
}

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SELF = import.meta.filename;

if (process.env.NODE_TEST_CONTEXT && process.argv[1]) install(process.argv[1]);

function install(file: string): void {
  const open = new Map<number, Tracked>();
  // Each async context's origin, so that a resource created in a callback (a server's handle is made on the next
  // tick after listen(), a pool's socket after an await) is traced to the code that scheduled it.
  const origins = new Map<number, Origin>();
  let ownTimer = false;
  createHook({
    init(asyncId, type, trigger, resource) {
      if (ownTimer) return;
      const parent = origins.get(executionAsyncId()) ?? origins.get(trigger);
      if (type === 'PROMISE') {
        if (parent) origins.set(asyncId, parent);
        return;
      }
      let origin = parent;
      if (type === 'Test') {
        origin = { sites: parent?.sites, during: resource };
      } else if (TRACKED.has(type) || type === 'TickObject') {
        const sites = callSites();
        if (sites.some(isProjectSite)) origin = { sites: visible(sites), during: parent?.during };
        if (TRACKED.has(type)) open.set(asyncId, { type, resource, sites, origin: parent });
      }
      if (origin) origins.set(asyncId, origin);
    },
    destroy(asyncId) {
      open.delete(asyncId);
      origins.delete(asyncId);
    },
  }).enable();

  const sleep = () =>
    new Promise<void>((resolve) => {
      ownTimer = true;
      try {
        setTimeout(resolve, POLL_MS);
      } finally {
        ownTimer = false;
      }
    });

  const leaks = (): string[] => {
    const found: string[] = [];
    for (const entry of open.values()) {
      if (isStdio(entry)) continue;
      const timer = entry.resource as { _destroyed?: boolean; _onTimeout?: { name?: string } };
      if (entry.type === 'Timeout' && timer._destroyed) continue;
      // A closed FileHandle is destroyed only when garbage-collected; its fd is negative from the close on.
      if (entry.type === 'FILEHANDLE' && ((entry.resource as { fd?: number }).fd ?? -1) < 0) continue;
      if (tolerated(entry)) continue;
      // An HTTP server's own connection-checking interval: it goes with the server, which is reported.
      if (entry.type === 'Timeout' && timer._onTimeout?.name === 'bound checkConnections') continue;
      found.push(`${describeResource(entry)}\n${where(entry)}`);
    }
    // What keeps the loop alive and was not seen above (created before this module loaded, or of a type not
    // tracked): reported by name.
    const unattributed = process.getActiveResourcesInfo().filter((name) => !ATTRIBUTED.has(name));
    if (unattributed.length > 0) {
      const counts = new Map<string, number>();
      for (const name of unattributed) counts.set(name, (counts.get(name) ?? 0) + 1);
      for (const [name, n] of counts) found.push(`${name}${n > 1 ? ` ×${n}` : ''} (not attributed: no stack)`);
    }
    return found;
  };

  const check = async () => {
    const started = performance.now();
    let found = leaks();
    while (found.length > 0 && performance.now() - started < GRACE_MS) {
      await sleep();
      found = leaks();
    }
    if (found.length === 0) return;
    // The runner reports this failure, then waits for the event loop to drain, which a ref'd leak prevents.
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 2_000).unref();
    throw new Error(
      `${path.relative(ROOT, file)} left ${found.length} resource(s) open after its tests and after hooks ` +
        `(waited ${GRACE_MS} ms for them to close):\n\n${found.join('\n\n')}\n`,
    );
  };

  // Created here, outside any test: `after()` called in its scope attaches to the root, not to the hook running.
  const outside = new AsyncResource('HeraldLeakCheck');
  after(function leakCheckScheduler() {
    outside.runInAsyncScope(() => after(check));
  });
}

function isStdio({ type, resource }: Tracked): boolean {
  if (type !== 'PIPEWRAP' && type !== 'TTYWRAP') return false;
  const fd = (resource as { fd?: number }).fd;
  if (fd !== undefined && fd >= 0 && fd <= 2) return true;
  const channel = (process as { channel?: { fd?: number } }).channel;
  return fd !== undefined && channel?.fd === fd;
}

function describeResource({ type, resource }: Tracked): string {
  const r = resource as Record<string, unknown> & {
    hasRef?: () => boolean;
    getsockname?: (out: Record<string, unknown>) => unknown;
    getpeername?: (out: Record<string, unknown>) => unknown;
  };
  const ref = typeof r.hasRef === 'function' && !r.hasRef() ? ' (unref’d)' : '';
  const address = (get?: (out: Record<string, unknown>) => unknown) => {
    const out: Record<string, unknown> = {};
    try {
      get?.call(r, out);
    } catch {
      return '?';
    }
    return out.port === undefined ? '?' : `${String(out.address)}:${String(out.port)}`;
  };
  switch (type) {
    case 'Timeout': {
      const fn = r._onTimeout as { name?: string } | undefined;
      const kind = r._repeat ? 'setInterval' : 'setTimeout';
      return `${kind}(${fn?.name || 'anonymous'}, ${String(r._idleTimeout)} ms)${ref}`;
    }
    case 'TCPSERVERWRAP':
      return `server listening on ${address(r.getsockname)}${ref}`;
    case 'TCPWRAP': {
      const peer = address(r.getpeername);
      const port = peer.split(':').at(-1);
      const what = port === '5432' ? ' (PostgreSQL?)' : '';
      return `socket ${address(r.getsockname)} → ${peer}${what}${ref}`;
    }
    case 'PROCESSWRAP':
      return `child process ${String(r.pid ?? '?')}${ref}`;
    case 'PIPEWRAP':
      return `pipe (fd ${String(r.fd ?? '?')})${ref}`;
    default:
      return `${type}${ref}`;
  }
}

function callSites(): NodeJS.CallSite[] {
  const { stackTraceLimit, prepareStackTrace } = Error;
  Error.stackTraceLimit = 30;
  Error.prepareStackTrace = (_error, sites) => sites;
  const holder: { stack?: unknown } = {};
  Error.captureStackTrace(holder, callSites);
  const sites = holder.stack as NodeJS.CallSite[];
  Error.stackTraceLimit = stackTraceLimit;
  Error.prepareStackTrace = prepareStackTrace;
  return sites;
}

/** The frames worth showing: none of node's own, none of this module's. */
function visible(sites: NodeJS.CallSite[]): NodeJS.CallSite[] {
  return sites.filter((site) => {
    const name = site.getFileName() ?? '';
    return name !== '' && !name.startsWith('node:') && !name.includes(SELF);
  });
}

/**
 * One-shot timers that the project cannot clear, that hold nothing open and that fire on their own; tolerated, each
 * for its reason:
 * - AbortSignal.timeout(): node's own unref'd timer, by design never cleared (it holds the signal weakly).
 * - graphile-worker 0.18's graceful-shutdown abort timer (unref'd, 5 s): made by every runner.stop() and never
 *   cleared once the shutdown succeeds; it then aborts a controller nobody listens to.
 * - ioredis 6's disconnect timer (2 s): disconnect() while the client is between reconnection attempts arms it on a
 *   socket that has already closed, so the 'close' that would clear it never comes; it then destroys that socket
 *   again.
 */
const LIBRARY_TIMERS = [
  { file: '/node_modules/graphile-worker/dist/main.js', fn: 'gracefulShutdown', maxMs: 5_000 },
  { file: '/node_modules/ioredis/built/connectors/AbstractConnector.js', fn: 'disconnect', maxMs: 2_000 },
];

function tolerated({ type, resource, sites }: Tracked): boolean {
  if (type !== 'Timeout') return false;
  const timer = resource as { _repeat?: unknown; _idleTimeout?: number; hasRef?: () => boolean };
  if (timer._repeat) return false;
  const aborts = sites.some(
    (site) =>
      site.getFileName() === 'node:internal/abort_controller' && site.getFunctionName() === 'setWeakAbortSignalTimeout',
  );
  if (aborts) return timer.hasRef?.() === false;
  const maker = visible(sites)[0];
  return LIBRARY_TIMERS.some(
    ({ file, fn, maxMs }) =>
      !!maker?.getFileName()?.endsWith(file) &&
      maker.getFunctionName() === fn &&
      (timer._idleTimeout ?? Infinity) <= maxMs,
  );
}

function isProjectSite(site: NodeJS.CallSite): boolean {
  const name = site.getFileName() ?? '';
  return name.includes(ROOT) && !name.includes('node_modules') && !name.includes(SELF);
}

function describeTest(resource: object): string {
  const { name, hookType, parent } = resource as { name?: string; hookType?: string; parent?: { name?: string } };
  if (hookType) return `${hookType} hook${parent?.name && parent.name !== '<root>' ? ` of "${parent.name}"` : ''}`;
  return `test "${name ?? '?'}"`;
}

/** Where a resource was made: its own stack when it shows the project's code, else the stack that scheduled it. */
function where({ sites: all, origin }: Tracked): string {
  const sites = visible(all);
  const format = (list: NodeJS.CallSite[]) =>
    list.slice(0, 10).map((site) => {
      const text = String(site).replaceAll(`file://${ROOT}/`, '').replaceAll(`${ROOT}/`, '');
      return `      ${isProjectSite(site) ? '→' : ' '} at ${text}`;
    });
  const lines: string[] = [];
  if (origin?.during) lines.push(`    during the ${describeTest(origin.during)}`);
  if (sites.some(isProjectSite)) {
    lines.push('    created at:', ...format(sites));
  } else {
    if (sites.length > 0) lines.push('    created at:', ...format(sites.slice(0, 4)));
    if (origin?.sites) lines.push('    scheduled from:', ...format(origin.sites));
  }
  return lines.length > 0 ? lines.join('\n') : '    (no JavaScript frames)';
}
