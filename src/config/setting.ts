// What one setting is (environment name, parser, default, meaning) and how one is read from an env record.
// Declared once, a setting gives both loadConfig's value and its row of the configuration table.

export type Env = Record<string, string | undefined>;

/** Collects a problem with a value; loadConfig reports them all at once. */
export type Report = (problem: string) => void;

export interface Parser<T> {
  /** Reads a set, non-empty value. Undefined means "use the default" (after reporting why, if the value is wrong). */
  read(raw: string, name: string, report: Report): T | undefined;
  /** How a default is written in the configuration table; `String(value)` when absent. */
  show?(value: T): string;
}

export interface Setting<T> {
  /** The environment variable. */
  name: string;
  /** The value when the variable is unset or empty. */
  default: T;
  /** The table's default column where the default is not a fixed value (derived from another setting, generated). */
  shownDefault?: string;
  parse: Parser<T>;
  /** One line for the configuration table. */
  description: string;
}

/** Declares a setting; the helper exists so that T is inferred from the default and the parser together. */
export function setting<T>(definition: Setting<T>): Setting<T> {
  return definition;
}

/** A setting whose default is "not set": loadConfig derives a value or leaves the feature off. */
export function optionalSetting<T>(
  definition: Omit<Setting<T | undefined>, 'default' | 'parse'> & { parse: Parser<T> },
): Setting<T | undefined> {
  return { ...definition, default: undefined };
}

export type ReadSetting = <T>(setting: Setting<T>) => T;

/** Returns a reader of settings from `env`: each read parses the variable, reporting problems to `report`. */
export function settingsReader(env: Env, report: Report): ReadSetting {
  return <T>(setting: Setting<T>): T => {
    const raw = env[setting.name];
    if (raw === undefined || raw === '') return setting.default;
    return setting.parse.read(raw, setting.name, report) ?? setting.default;
  };
}

/** The default as the configuration table writes it. */
export function defaultText<T>(setting: Setting<T>): string {
  if (setting.shownDefault !== undefined) return setting.shownDefault;
  const value = setting.default;
  if (value === undefined) return '(unset)';
  if (Array.isArray(value) && value.length === 0) return '(empty)';
  return setting.parse.show?.(value) ?? String(value);
}
