// Prints the configuration table (README and docs/api.md) from the settings declared in src/config/; the README
// test and the API tables test keep both documents equal to it.
import { SETTINGS } from '../src/config.ts';
import { defaultText } from '../src/config/setting.ts';

export function configTable(): string {
  const rows = SETTINGS.map((s) => {
    const shown = defaultText(s);
    return `| \`${s.name}\` | ${shown.startsWith('(') ? shown : `\`${shown}\``} | ${s.description} |`;
  });
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.main) console.log(configTable());
