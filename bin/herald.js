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
const { main } = await import('../src/cli.ts');
const code = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
});
if (code !== 0) process.exitCode = code;
