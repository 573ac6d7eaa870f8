// `herald users …`: people who sign in (consent pages, the dashboard), and their passwords.
import { json, print, required, UsageError, withDatabase, workspaceArg, type Command } from '../../cli/command.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { generatePassword } from './passwords.ts';
import { createUser, ensurePassword, setPassword, UserInputError } from './users.service.ts';

export function userCommands(): Record<string, Command> {
  return {
    'users create': {
      usage: 'herald users create --email <email> --workspace <uuid> --role owner|admin|member [--json]',
      summary:
        'Add a person to a workspace (creating the account if needed); a new account gets a generated password, shown once.',
      options: {
        email: { type: 'string', value: 'email', description: "The new user's email address (their sign-in name)." },
        workspace: { type: 'string', value: 'uuid', description: 'The workspace the user joins.' },
        role: { type: 'string', value: 'owner|admin|member', description: 'Their role in that workspace.' },
        ...json,
      },
      async run(values, _p, io) {
        const email = required(values, 'email');
        const workspaceId = workspaceArg(values);
        const role = required(values, 'role') as MemberRole;
        if (!['owner', 'admin', 'member'].includes(role)) throw new UsageError('--role must be owner, admin or member');
        await withDatabase(io, async (pool) => {
          try {
            const made = await createUser(pool, { email, workspaceId, role });
            const password = made.created ? await ensurePassword(pool, made.userId) : undefined;
            print(
              io,
              values,
              {
                user_id: made.userId,
                email: made.email,
                workspace_id: workspaceId,
                role,
                created: made.created,
                password: password ?? null,
              },
              `${made.created ? 'Created' : 'Updated'} ${made.email} (${made.userId}): ${role} of workspace ${workspaceId}.` +
                (password ? `\nPassword (shown once, share it safely): ${password}` : ''),
            );
          } catch (error) {
            if (error instanceof UserInputError) throw new UsageError(error.message);
            throw error;
          }
        });
      },
    },
    'users set-password': {
      usage: 'herald users set-password <email> [--generate] [--json]',
      summary:
        "Set a person's password (typed without echo, or the first line of stdin; --generate makes one and shows it once). Signs them out everywhere.",
      options: {
        generate: {
          type: 'boolean',
          description: 'Generate a strong password and print it, instead of asking for one.',
        },
        ...json,
      },
      positionals: ['email'],
      async run(values, positionals, io) {
        const email = positionals[0];
        if (!email) throw new UsageError('the email is required');
        let password: string;
        if (values.generate) {
          password = generatePassword();
        } else {
          if (!io.readSecret) throw new UsageError('no way to read a password here; use --generate');
          password = await io.readSecret(`New password for ${email}: `);
        }
        await withDatabase(io, async (pool) => {
          try {
            const result = await setPassword(pool, email, password);
            print(
              io,
              values,
              {
                user_id: result.userId,
                sessions_ended: result.sessionsEnded,
                ...(values.generate ? { password } : {}),
              },
              `Password of ${email} set${result.sessionsEnded > 0 ? `; ${result.sessionsEnded} session(s) signed out` : ''}.` +
                (values.generate ? `\nPassword (shown once): ${password}` : ''),
            );
          } catch (error) {
            if (error instanceof UserInputError) throw new UsageError(error.message);
            throw error;
          }
        });
      },
    },
  };
}
