// A sandbox store for simulator tests that counts what the simulator reads and can fail one chosen write: a test
// checks that a request reads about one page of documents however many the account holds, and that a node stopping
// between two writes (the failed one and the next) leaves a state the next request repairs.
import { contains, encode, memoryStore, type ListQuery, type SandboxStore } from '../../src/sandbox/framework/store.ts';

/** A write the store is asked to make. */
export interface StoreWrite {
  op: 'put' | 'insert' | 'putBytes';
  kind: string | undefined;
  id: string;
}

export interface StoreSpy {
  store: SandboxStore;
  /**
   * How many documents `list` looked at since the last call (the count starts again), as PostgreSQL would: a query
   * that matches on content reads every document of its owner (or kind) and range until it has `limit` matches.
   */
  takeScanned(): number;
  /** Every list query since the last `takeScanned`, by kind. */
  queries(): Array<{ kind: string; query: ListQuery }>;
  /** The next write `which` accepts throws instead, as if the node stopped before making it. */
  failNext(which: (write: StoreWrite) => boolean): void;
}

export function spyStore(inner: SandboxStore = memoryStore()): StoreSpy {
  let scanned = 0;
  let seen: Array<{ kind: string; query: ListQuery }> = [];
  let failing: ((write: StoreWrite) => boolean) | undefined;
  const check = (write: StoreWrite) => {
    if (failing?.(write)) {
      failing = undefined;
      throw new Error(`store-spy: the ${write.op} of ${write.kind ?? 'bytes'} ${write.id} fails (a stopped node)`);
    }
  };
  const store: SandboxStore = {
    ...inner,
    async list<T>(kind: string, query: ListQuery = {}) {
      const found = await inner.list<T>(kind, query);
      seen.push({ kind, query });
      const { match, limit, ...range } = query;
      if (!match) scanned += found.length;
      else {
        const pattern: unknown = JSON.parse(encode(match));
        let hits = 0;
        for (const doc of await inner.list(kind, range)) {
          scanned++;
          if (contains(JSON.parse(encode(doc)), pattern) && ++hits === limit) break;
        }
      }
      return found;
    },
    async put(kind, id, doc, owner) {
      check({ op: 'put', kind, id });
      return inner.put(kind, id, doc, owner);
    },
    async insert(kind, id, doc, owner) {
      check({ op: 'insert', kind, id });
      return inner.insert(kind, id, doc, owner);
    },
    async putBytes(id, bytes) {
      check({ op: 'putBytes', kind: undefined, id });
      return inner.putBytes(id, bytes);
    },
  };
  return {
    store,
    takeScanned() {
      const n = scanned;
      scanned = 0;
      seen = [];
      return n;
    },
    queries: () => [...seen],
    failNext(which) {
      failing = which;
    },
  };
}
