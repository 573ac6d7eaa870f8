// `herald keys …`: API keys made, listed and revoked from the server's shell (the key is printed once).
import { json, ownerOf, print, required, UsageError, withDatabase, type Command } from '../../cli/command.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Pool } from '../../db/pool.ts';
import { findUserByEmail } from '../users/users.repo.ts';
import {
  createKey,
  KEY_PROFILES,
  keyJson,
  KeyInputError,
  listKeys,
  revokeKey,
  type KeyProfile,
} from './keys.service.ts';
import { parseScopes, SCOPES } from './scopes.ts';

/** The person the key is for: the owner account, or the --user named by email. */
async function keyOwner(pool: Pool, email: unknown): Promise<string> {
  if (typeof email !== 'string') return ownerOf(pool);
  const user = await findUserByEmail(pool, email.trim());
  if (!user) throw new UsageError(`no user ${email}; herald users create adds people`);
  return user.id;
}

export function keyCommands(): Record<string, Command> {
  return {
    'keys create': {
      usage:
        'herald keys create --workspace <uuid>[,<uuid>…] --name <name> --scopes <csv|all> [--profile standard|actions] [--user <email>] [--expires-at <iso>] [--json]',
      summary: `Create an API key for the owner account (or --user), limited to the given workspaces; never beyond that person's role there (docs/api.md "Roles"). Scopes: ${SCOPES.join(', ')}.`,
      options: {
        workspace: {
          type: 'string',
          value: 'uuid,…',
          description: 'The workspaces the key reaches (comma-separated UUIDs).',
        },
        user: {
          type: 'string',
          value: 'email',
          description: 'Create the key for this user (a member of those workspaces) instead of the owner.',
        },
        name: { type: 'string', value: 'name', description: 'A label to recognise the key by.' },
        scopes: { type: 'string', value: 'csv|all', description: 'Comma-separated scopes, or all.' },
        profile: {
          type: 'string',
          value: 'standard|actions',
          description:
            'actions: a key for custom GPT actions (one workspace; writes without Idempotency-Key deduplicated by content; docs/gpt-actions.md). Default standard.',
        },
        'expires-at': {
          type: 'string',
          value: 'iso',
          description: 'When the key stops working (an ISO 8601 time); never when omitted.',
        },
        ...json,
      },
      async run(values, _p, io) {
        const ids = required(values, 'workspace')
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean);
        const bad = ids.filter((id) => !isUuid(id));
        if (ids.length === 0 || bad.length > 0)
          throw new UsageError(
            `--workspace must be workspace UUIDs separated by commas (bad: ${bad.join(', ') || 'none given'})`,
          );
        const name = required(values, 'name');
        const profile = values.profile ?? 'standard';
        if (!KEY_PROFILES.includes(profile as KeyProfile))
          throw new UsageError(`--profile must be one of ${KEY_PROFILES.join(', ')}`);
        const parsed = parseScopes(required(values, 'scopes'));
        if ('unknown' in parsed)
          throw new UsageError(
            `unknown scope ${parsed.unknown.join(', ')}; use "all" or a comma list of: ${SCOPES.join(', ')}`,
          );
        let expiresAt: Date | null = null;
        if (typeof values['expires-at'] === 'string') {
          const raw = values['expires-at'];
          expiresAt = new Date(raw);
          if (!/(Z|[+-]\d\d:?\d\d)$/i.test(raw) || Number.isNaN(expiresAt.getTime()))
            throw new UsageError('--expires-at must be an ISO 8601 time with a zone, e.g. 2027-01-01T00:00:00Z');
        }
        await withDatabase(io, async (pool) => {
          try {
            const { row, key } = await createKey(pool, {
              userId: await keyOwner(pool, values.user),
              name,
              scopes: parsed.scopes,
              workspaceIds: [...new Set(ids)],
              expiresAt,
              profile: profile as KeyProfile,
            });
            print(
              io,
              values,
              // The api_key shape of `keys list`, plus the key itself (this once).
              { ...keyJson(row), key },
              `Key ${row.id} (shown once, store it now):\n${key}`,
            );
          } catch (error) {
            if (error instanceof KeyInputError) throw new UsageError(error.message);
            throw error;
          }
        });
      },
    },
    'keys list': {
      usage: 'herald keys list [--json]',
      summary: 'List API keys (never the keys themselves).',
      options: { ...json },
      async run(values, _p, io) {
        await withDatabase(io, async (pool) => {
          const rows = await listKeys(pool);
          const state = (k: (typeof rows)[number]) =>
            k.revoked_at ? 'revoked' : k.expires_at && k.expires_at < new Date() ? 'expired' : 'active';
          // An OAuth grant shows its newest key; revoking that key revokes the grant.
          const label = (k: (typeof rows)[number]) =>
            k.grant_id ? `OAuth: ${k.client_name ?? 'unknown client'} (grant ${k.grant_id}, renewed hourly)` : k.name;
          print(
            io,
            values,
            rows.map(keyJson),
            rows
              .map(
                (k) =>
                  `${k.id}  ${k.prefix}…${k.last4}  ${state(k).padEnd(7)}  ${label(k)}\n` +
                  `    scopes: ${k.scopes.join(', ') || '(none)'}\n` +
                  `    expires: ${k.expires_at ? k.expires_at.toISOString() : 'never'}`,
              )
              .join('\n') || '(no keys)',
          );
        });
      },
    },
    'keys revoke': {
      usage: 'herald keys revoke <key-id>',
      summary:
        'Revoke a key; every server stops accepting it within a second. Revoking an OAuth key revokes its grant.',
      options: { ...json },
      positionals: ['key-id'],
      async run(values, positionals, io) {
        const id = positionals[0];
        if (!id) throw new UsageError('the key id is required');
        await withDatabase(io, async (pool) => {
          const row = await revokeKey(pool, id);
          if (!row) throw new UsageError(`no key ${id}`);
          print(io, values, keyJson(row), `Key ${id} revoked.`);
        });
      },
    },
  };
}
