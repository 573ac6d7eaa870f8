#!/usr/bin/env node
// Entry point of the `herald` command. Plain JavaScript that any Node can parse, so that an old Node gets a
// clear message instead of a syntax error; Herald itself is TypeScript run natively by Node >= 22.18.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `Herald needs Node.js 22.18 or newer (found ${process.versions.node}).\n` +
      'Install Node 24 LTS, e.g. `npm i -g --prefix /usr/local node@24 && hash -r`, or use nvm/fnm, then retry.\n',
  );
  process.exit(1);
}

/** At a terminal: asks twice without echo. Otherwise: the first line of stdin (for scripts). */
async function readSecret(prompt) {
  const { stdin, stderr } = process;
  if (!stdin.isTTY) {
    let data = '';
    for await (const chunk of stdin) {
      data += chunk;
      if (data.includes('\n')) break;
    }
    return data.split(/\r?\n/)[0];
  }
  const ask = (question) =>
    new Promise((resolve) => {
      stderr.write(question);
      stdin.setRawMode(true);
      stdin.setEncoding('utf8');
      stdin.resume();
      let value = '';
      const finish = () => {
        stdin.off('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
        stderr.write('\n');
        resolve(value);
      };
      const onData = (text) => {
        for (const c of text) {
          if (c === '\r' || c === '\n') return finish();
          if (c === '\u0003') process.exit(130);
          value = c === '\u007f' || c === '\b' ? value.slice(0, -1) : value + c;
        }
      };
      stdin.on('data', onData);
    });
  const first = await ask(prompt);
  if ((await ask('Type it again: ')) !== first) throw new Error('the two entries differ; nothing was changed');
  return first;
}

// Node keeps what it compiled (and the TypeScript it stripped) in a cache under the system's temporary directory, or
// NODE_COMPILE_CACHE: a start after the first loads Herald's modules from it, in about half the time. Where the cache
// cannot be written (a read-only file system) Node carries on without it.
const { enableCompileCache } = await import('node:module');
try {
  enableCompileCache?.();
} catch {
  // a cache that cannot be opened only costs time
}

const { main } = await import('../src/cli.ts');
const code = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  readSecret,
});
if (code !== 0) process.exitCode = code;
