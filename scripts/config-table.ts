// Prints the README's configuration table from SETTINGS in src/config.ts (test/readme.test.ts keeps them equal).
import { SETTINGS } from '../src/config.ts';

export function configTable(): string {
  const rows = SETTINGS.map(
    (s) => `| \`${s.name}\` | ${s.default.startsWith('(') ? s.default : `\`${s.default}\``} | ${s.description} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.main) console.log(configTable());
