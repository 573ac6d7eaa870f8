// A fresh database per test file, cloned from the template the global setup migrated.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  connectionString: string;
  name: string;
  drop(): Promise<void>;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run tests through \`npm test\` (its global setup provides the database).`);
  return value;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = env('HERALD_TEST_ADMIN_URL');
  const template = env('HERALD_TEST_TEMPLATE');
  const runPid = template.split('_').at(-1);
  const name = `herald_t_${randomBytes(5).toString('hex')}_${runPid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Two files cloning the template at the same instant can collide ("source database is being accessed").
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (error) {
        if (attempt >= 20 || (error as { code?: string }).code !== '55006') throw error;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    connectionString: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
