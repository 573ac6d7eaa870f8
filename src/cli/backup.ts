// `herald backup <file>` and `herald restore <file>`: the embedded default's offline copy (src/db/backup.ts).
// With DATABASE_URL the database is someone else's PostgreSQL: back it up with pg_dump or the provider's
// snapshots (docs/deploy.md "Backups").
import { loadConfig } from '../config.ts';
import { backupDataDir, restoreDataDir, type Progress } from '../db/backup.ts';
import { heraldVersion } from '../lib/version.ts';
import { UsageError, type Command, type Io } from './command.ts';

const MANAGED =
  'DATABASE_URL is set: Herald does not hold that database. Back it up with pg_dump (pg_dump -Fc "$DATABASE_URL" -f herald.dump) or your provider\'s snapshots; see docs/deploy.md "Backups".';

/** One progress line per tenth of the way (and the last), on stderr, so stdout stays the result. */
function progressLines(io: Io, verb: string): Progress {
  let shown = -1;
  return (done, total) => {
    const tenth = total > 0 ? Math.floor((done / total) * 10) : 0;
    if (tenth <= shown) return;
    shown = tenth;
    io.err(`${verb}: ${tenth * 10}% (${mib(done)} of ${mib(total)})`);
  };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function fileArg(positionals: string[]): string {
  const file = positionals[0];
  if (!file) throw new UsageError('give the backup file');
  return file;
}

export function backupCommands(): Record<string, Command> {
  return {
    backup: {
      usage: 'herald backup <file>',
      summary:
        'Copy the embedded database (with its credentials, the generated secret key and local media) into <file>, a .tar.gz. Offline: stop Herald on this data dir first.',
      positionals: ['file'],
      options: {},
      async run(_values, positionals, io) {
        const file = fileArg(positionals);
        const config = loadConfig(io.env);
        if (config.databaseUrl) throw new UsageError(MANAGED);
        const quiet = { info: () => {}, warn: (m: string) => io.err(m), error: (m: string) => io.err(m) };
        // A refusal (Herald running, no cluster) is a BackupError: one line, exit 1.
        const done = await backupDataDir({
          dataDir: config.dataDir,
          file,
          heraldVersion: heraldVersion(),
          log: quiet,
          progress: progressLines(io, 'backup'),
        });
        io.out(
          `Backed up ${config.dataDir} to ${file} (${mib(done.bytes)}, PostgreSQL ${done.manifest.postgres_version}).`,
        );
      },
    },
    restore: {
      usage: 'herald restore <file> [--force]',
      summary:
        'Restore a `herald backup` file into the data dir (HERALD_DATA_DIR), which must be empty; then start Herald on it.',
      positionals: ['file'],
      options: {
        force: {
          type: 'boolean',
          description: 'Restore over a non-empty data dir: the present one is moved aside (renamed), never deleted.',
        },
      },
      async run(values, positionals, io) {
        const file = fileArg(positionals);
        const config = loadConfig(io.env);
        if (config.databaseUrl) throw new UsageError(MANAGED);
        const done = await restoreDataDir({
          dataDir: config.dataDir,
          file,
          force: values.force === true,
          progress: progressLines(io, 'restore'),
        });
        io.out(
          `Restored ${file} (taken ${done.manifest.created_at} by Herald ${done.manifest.herald_version}) into ${config.dataDir}.` +
            (done.movedAside ? `\nThe previous data dir is now ${done.movedAside}.` : ''),
        );
      },
    },
  };
}
