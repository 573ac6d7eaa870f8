// `herald ai …`: run one generation end to end from the server's shell (the configured provider, the brand's
// compiled context, the workspace's budget, the fallback), list the tasks, and show a workspace's budget today.
// No public endpoint generates text yet; this is how an operator checks a model setup before features use it.
import { readFile } from 'node:fs/promises';
import { json, print, required, UsageError, withDatabase, workspaceArg, type Command } from '../../cli/command.ts';
import { AppError } from '../../app/errors.ts';
import { systemClock } from '../../lib/clock.ts';
import { createLogger } from '../../lib/logger.ts';
import { createMetrics } from '../../lib/metrics.ts';
import { loadBrandContext } from '../brands/brands.service.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import { createAiService } from './ai.service.ts';
import { findTask, listTasks } from './tasks.ts';

/** The input `--text`/`--file` fills: the task's first required text input (`text`, `message`, `template` …). */
function mainInput(taskName: string): string {
  const task = findTask(taskName);
  if (!task) throw new UsageError(`unknown task "${taskName}"; run \`herald ai tasks\` for the list`);
  const schema = task.input as { required?: string[]; properties?: Record<string, { type?: string }> };
  const name = (schema.required ?? []).find((r) => schema.properties?.[r]?.type === 'string');
  if (!name) throw new UsageError(`task "${taskName}" takes no text input; pass --inputs`);
  return name;
}

function describeError(error: AppError): string {
  const details = (error.details ?? []).map((d) => `\n  ${d.path ?? ''} ${d.message}`.trimEnd()).join('');
  return `${error.code}: ${error.message}${details}`;
}

export function aiCommands(): Record<string, Command> {
  return {
    'ai try': {
      usage:
        'herald ai try --workspace <uuid> --task <name> [--brand <id>] [--text <text> | --file <path>] [--inputs <json>] [--platform <name>] [--deterministic] [--fallback] [--json]',
      summary:
        "Run one generation with the configured provider and the brand's context (default brand if none), counted against the workspace's budget; prints the output and how it was produced.",
      options: {
        workspace: {
          type: 'string',
          value: 'uuid',
          description: 'The workspace (its UUID, as `herald workspaces list` shows).',
        },
        task: { type: 'string', value: 'name', description: 'The task to run (`herald ai tasks` lists them).' },
        brand: {
          type: 'string',
          value: 'id',
          description: "The brand (its id); the workspace's default brand when omitted.",
        },
        text: { type: 'string', value: 'text', description: 'The input text, given inline.' },
        file: { type: 'string', value: 'path', description: 'Read the input text from this file instead of --text.' },
        inputs: { type: 'string', value: 'json', description: 'Further task inputs as a JSON object.' },
        platform: {
          type: 'string',
          value: 'name',
          description: 'Write for this platform (its length limits and conventions).',
        },
        deterministic: {
          type: 'boolean',
          description: 'Use the built-in deterministic generator instead of the configured provider.',
        },
        fallback: { type: 'boolean', description: 'Fall back to the deterministic generator if the provider fails.' },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const taskName = required(values, 'task');
        let inputs: Record<string, unknown> = {};
        if (typeof values.inputs === 'string') {
          try {
            inputs = JSON.parse(values.inputs) as Record<string, unknown>;
          } catch {
            throw new UsageError('--inputs must be a JSON object');
          }
          if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs))
            throw new UsageError('--inputs must be a JSON object');
        }
        if (typeof values.text === 'string' && typeof values.file === 'string')
          throw new UsageError('--text and --file are exclusive');
        const text =
          typeof values.file === 'string'
            ? await readFile(values.file, 'utf8').catch(() => {
                throw new UsageError(`cannot read --file ${values.file}`);
              })
            : values.text;
        if (typeof text === 'string') inputs[mainInput(taskName)] = text;
        if (typeof values.platform === 'string') inputs.platform = values.platform;

        await withDatabase(io, async (pool, config) => {
          const workspace = await findWorkspace(pool, workspaceId);
          if (!workspace) throw new UsageError(`no workspace ${workspaceId}`);
          const brandId = typeof values.brand === 'string' ? values.brand : workspace.default_brand_id;
          const brand = brandId ? await loadBrandContext(pool, workspaceId, brandId) : undefined;
          if (!brand) throw new UsageError(`no brand ${brandId ?? '(default)'} in workspace ${workspaceId}`);
          // Provider warnings (a fallback and why) go to stderr, so --json output stays parseable.
          const logger = createLogger(config.logLevel, { write: (line: string) => io.err(line.trimEnd()) });
          const ai = createAiService({ config: config.ai, pool, clock: systemClock, logger, metrics: createMetrics() });
          try {
            const result = await ai.generate({
              task: taskName,
              brand,
              inputs,
              workspaceId,
              engine: values.deterministic ? 'deterministic' : 'auto',
              onLimit: values.fallback ? 'deterministic' : 'error',
            });
            const by = result.generated_by;
            print(
              io,
              values,
              result,
              [
                JSON.stringify(result.output, null, 2),
                `generated_by: ${by.engine} (${by.provider}${by.model ? `, ${by.model}` : ''})${by.fallback_reason ? `, fallback: ${by.fallback_reason}` : ''}`,
                `provider calls: ${result.usage.calls}, tokens: ${result.usage.prompt_tokens} prompt + ${result.usage.completion_tokens} output`,
              ].join('\n'),
            );
          } catch (error) {
            if (error instanceof AppError) throw new Error(describeError(error), { cause: error });
            throw error;
          }
        });
      },
    },
    'ai tasks': {
      usage: 'herald ai tasks [--json]',
      summary: 'List the generation tasks, their deterministic engine and inputs.',
      options: { ...json },
      async run(values, _p, io) {
        const tasks = listTasks().map((t) => ({
          name: t.name,
          engine: t.engine,
          summary: t.summary,
          inputs: Object.keys((t.input as { properties?: object }).properties ?? {}),
        }));
        print(
          io,
          values,
          tasks,
          tasks
            .map(
              (t) =>
                `${t.name.padEnd(20)} ${t.engine.padEnd(10)} ${t.summary}\n${' '.repeat(32)}inputs: ${t.inputs.join(', ')}`,
            )
            .join('\n'),
        );
      },
    },
    'ai usage': {
      usage: 'herald ai usage --workspace <uuid> [--json]',
      summary: "A workspace's text-generation budget today (UTC): provider calls, tokens, refusals, and the caps.",
      options: {
        workspace: {
          type: 'string',
          value: 'uuid',
          description: 'The workspace (its UUID, as `herald workspaces list` shows).',
        },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        await withDatabase(io, async (pool, config) => {
          if (!(await findWorkspace(pool, workspaceId))) throw new UsageError(`no workspace ${workspaceId}`);
          const ai = createAiService({
            config: config.ai,
            pool,
            clock: systemClock,
            logger: createLogger('silent'),
            metrics: createMetrics(),
          });
          const { day, used, caps } = await ai.usage(workspaceId);
          print(
            io,
            values,
            { day, provider: config.ai.provider, ...used, caps },
            `${day} (UTC), provider ${config.ai.provider}\ncalls   ${used.calls} of ${caps.calls}\ntokens  ${used.tokens} of ${caps.tokens}\nrefused ${used.refused}`,
          );
        });
      },
    },
  };
}
