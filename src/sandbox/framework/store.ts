// Where a simulator keeps its state: documents by kind and id, counters that never hand out a value twice, and
// bytes (uploaded media). Mounted in Herald the store is PostgreSQL (store-pg.ts, the `sandbox` schema), so a
// restart keeps every simulated post, media item and comment, and every API node of a deployment serves the same
// sandbox; a standalone test rig uses the in-memory store below. Both encode documents the same way (`encode`),
// so a simulator that works against one works against the other: a document is a copy, never a live object, and
// a change is only kept once it is written back (`put`, `update`).

/** What a `list` narrows to. */
export interface ListQuery {
  /** Only documents written with this owner (an account id, a conversation …). */
  owner?: string;
  /** Only documents containing these fields with these values (JSON containment: nested objects match by subset). */
  match?: Record<string, unknown>;
  /** At most this many, newest first (by first insertion). Default: all. */
  limit?: number;
  /** Oldest first instead. */
  ascending?: boolean;
  /**
   * A page after a known document: only those inserted before the one with this id (a platform's `max_id` or
   * `until_id`, newest first) or after it (`since_id`). An id the store does not hold matches nothing.
   */
  beforeId?: string;
  afterId?: string;
}

export interface SandboxStore {
  get<T>(kind: string, id: string): Promise<T | undefined>;
  /** Inserts or replaces a document; `owner` is what `list({ owner })` finds it by. */
  put<T>(kind: string, id: string, doc: T, owner?: string): Promise<void>;
  /** Inserts only when the id is free; false when it is taken (single-use codes, idempotency keys, claims). */
  insert<T>(kind: string, id: string, doc: T, owner?: string): Promise<boolean>;
  /**
   * Reads, changes and writes one document atomically (a row lock in PostgreSQL): `change` gets a copy and returns
   * the new document, or undefined to leave it as it is. Resolves to what is stored afterwards (undefined: absent).
   */
  update<T>(kind: string, id: string, change: (doc: T) => T | undefined): Promise<T | undefined>;
  list<T>(kind: string, query?: ListQuery): Promise<T[]>;
  delete(kind: string, id: string): Promise<boolean>;
  /** The next value of a named counter, starting at `first`: never the same value twice, restarts included. */
  next(counter: string, first?: bigint): Promise<bigint>;
  putBytes(id: string, bytes: Buffer): Promise<void>;
  getBytes(id: string): Promise<Buffer | undefined>;
  /** Forgets everything of this simulator (the control surface's reset). */
  clear(): Promise<void>;
}

// ---- The document codec: JSON plus the types simulators hold (bigint ids, bytes, maps, sets) ----

/** A document as JSON text: bigints, Buffers, Maps and Sets survive the trip, tagged. */
export function encode(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
    // JSON.stringify has already called Buffer's toJSON on `v`; the original is this[key] (the root: key '').
    const original = this[key];
    if (typeof original === 'bigint') return { $bigint: original.toString() };
    if (Buffer.isBuffer(original) || original instanceof Uint8Array)
      return { $bytes: Buffer.from(original).toString('base64') };
    if (original instanceof Map) return { $map: [...original.entries()] };
    if (original instanceof Set) return { $set: [...original] };
    // PostgreSQL's jsonb cannot hold U+0000: such a string travels as its pieces.
    if (typeof original === 'string' && original.includes('\u0000')) return { $nul: original.split('\u0000') };
    return v;
  });
}

export function decode<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1) {
        if (typeof o.$bigint === 'string') return BigInt(o.$bigint);
        if (typeof o.$bytes === 'string') return Buffer.from(o.$bytes, 'base64');
        if (Array.isArray(o.$map)) return new Map(o.$map as Array<[unknown, unknown]>);
        if (Array.isArray(o.$set)) return new Set(o.$set);
        if (Array.isArray(o.$nul)) return o.$nul.join('\u0000');
      }
    }
    return v;
  }) as T;
}

/** Whether `doc` contains `pattern` the way PostgreSQL's jsonb `@>` decides it (objects by subset, arrays by members). */
export function contains(doc: unknown, pattern: unknown): boolean {
  if (pattern === null || typeof pattern !== 'object') return doc === pattern;
  if (Array.isArray(pattern))
    return Array.isArray(doc) && pattern.every((p) => doc.some((d: unknown) => contains(d, p)));
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return false;
  return Object.entries(pattern).every(([k, p]) => contains((doc as Record<string, unknown>)[k], p));
}

// ---- In memory: standalone rigs and tests ----

interface Row {
  seq: number;
  owner: string | undefined;
  text: string;
}

/** The in-memory store: the same contract, documents kept encoded so no caller can hold a live object. */
export function memoryStore(): SandboxStore {
  let docs = new Map<string, Map<string, Row>>();
  let counters = new Map<string, bigint>();
  let bytes = new Map<string, Buffer>();
  let seq = 0;
  const kindOf = (kind: string) => {
    let m = docs.get(kind);
    if (!m) docs.set(kind, (m = new Map()));
    return m;
  };
  const store: SandboxStore = {
    async get<T>(kind: string, id: string) {
      const row = docs.get(kind)?.get(id);
      return row ? decode<T>(row.text) : undefined;
    },
    async put(kind, id, doc, owner) {
      const m = kindOf(kind);
      m.set(id, { seq: m.get(id)?.seq ?? ++seq, owner, text: encode(doc) });
    },
    async insert(kind, id, doc, owner) {
      const m = kindOf(kind);
      if (m.has(id)) return false;
      m.set(id, { seq: ++seq, owner, text: encode(doc) });
      return true;
    },
    async update<T>(kind: string, id: string, change: (doc: T) => T | undefined) {
      const row = docs.get(kind)?.get(id);
      if (!row) return undefined;
      const next = change(decode<T>(row.text));
      if (next !== undefined) row.text = encode(next);
      return decode<T>(row.text);
    },
    async list<T>(kind: string, query: ListQuery = {}) {
      const of = docs.get(kind);
      const seqOf = (id: string | undefined) => (id === undefined ? undefined : (of?.get(id)?.seq ?? NaN));
      const before = seqOf(query.beforeId);
      const after = seqOf(query.afterId);
      const rows = [...(of?.values() ?? [])]
        .filter((r) => query.owner === undefined || r.owner === query.owner)
        .filter((r) => (before === undefined || r.seq < before) && (after === undefined || r.seq > after))
        .sort((a, b) => (query.ascending ? a.seq - b.seq : b.seq - a.seq));
      const out: T[] = [];
      for (const row of rows) {
        if (query.limit !== undefined && out.length >= query.limit) break;
        if (query.match && !contains(JSON.parse(row.text), JSON.parse(encode(query.match)))) continue;
        out.push(decode<T>(row.text));
      }
      return out;
    },
    async delete(kind, id) {
      return docs.get(kind)?.delete(id) ?? false;
    },
    async next(counter, first = 1n) {
      const value = counters.has(counter) ? counters.get(counter)! + 1n : first;
      counters.set(counter, value);
      return value;
    },
    async putBytes(id, data) {
      bytes.set(id, Buffer.from(data));
    },
    async getBytes(id) {
      const b = bytes.get(id);
      return b ? Buffer.from(b) : undefined;
    },
    async clear() {
      // Counters survive a reset on purpose: an id handed out before must never come back.
      docs = new Map();
      bytes = new Map();
      seq = 0;
      counters = new Map([...counters]);
    },
  };
  return store;
}
