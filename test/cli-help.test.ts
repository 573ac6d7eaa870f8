// `herald --help`, `herald <command> --help`, `herald help <command>` and `herald --version`: help is built from
// each command's flag declarations, so every flag must carry a sentence and every flag the usage line names
// must be declared. No database needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { commands, main } from '../src/cli.ts';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env: {} });
  return { code, out, err };
}

const all = Object.entries(commands());

test('every flag of every command has a one-sentence description, and the usage line names only declared flags', () => {
  assert.ok(all.length >= 20, `only ${all.length} commands found`);
  for (const [name, command] of all) {
    for (const [flag, option] of Object.entries(command.options)) {
      assert.equal(typeof option.description, 'string', `herald ${name} --${flag}`);
      assert.match(option.description, /^\S.{8,}[.)]$/s, `herald ${name} --${flag}: "${option.description}"`);
    }
    for (const [, flag] of command.usage.matchAll(/--([a-z][a-z-]*)/g))
      assert.ok(flag! in command.options, `herald ${name}: usage names --${flag}, which it does not declare`);
  }
});

test('`herald <command> --help` and `herald help <command>` list every flag with its sentence, exit 0', async () => {
  for (const [name, command] of all) {
    const words = name.split(' ');
    const viaFlag = await cli(...words, '--help');
    const viaHelp = await cli('help', ...words);
    assert.equal(viaFlag.code, 0, name);
    assert.equal(viaHelp.code, 0, name);
    assert.equal(viaHelp.out, viaFlag.out, name);
    assert.ok(viaFlag.out.startsWith(`Usage: ${command.usage}\n`), name);
    for (const [flag, option] of Object.entries(command.options)) {
      const row = viaFlag.out.split('\n').find((line) => line.trimStart().startsWith(`--${flag}`));
      assert.ok(row, `herald ${name} --help does not list --${flag}`);
      assert.ok(row.endsWith(option.description), `herald ${name} --help: --${flag} without its sentence`);
    }
  }
});

test('a group answers --help with each of its commands and their flags (herald keys --help)', async () => {
  const res = await cli('keys', '--help');
  assert.equal(res.code, 0, res.err);
  for (const sub of ['keys create', 'keys list', 'keys revoke'])
    assert.match(res.out, new RegExp(`Usage: herald ${sub}`));
  assert.match(res.out, /--expires-at <iso> +When the key stops working/);
  const bare = await cli('keys');
  assert.equal(bare.code, 2);
  assert.match(bare.err, /needs a subcommand[\s\S]*herald keys --help/);
  const missing = await cli('help', 'frobnicate');
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no command "frobnicate"/);
});

test('connections connect names the Mastodon instance flag plainly; --server stays as its documented alias', async () => {
  const res = await cli('connections', 'connect', '--help');
  assert.match(res.out, /--mastodon-instance <url> +Mastodon only: the instance/);
  assert.match(res.out, /--server <url> +Former name of --mastodon-instance/);
});

test('--version and -v print the version of package.json', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  for (const flag of ['--version', '-v']) {
    const res = await cli(flag);
    assert.equal(res.code, 0);
    assert.equal(res.out, `herald ${version}\n`);
  }
});
