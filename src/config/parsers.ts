// The typed parsers of settings: each turns one environment value into a typed one and words what is wrong
// with a bad value, naming the variable (the messages are what an operator reads at start-up).
import type { Parser } from './setting.ts';

/** Any non-empty text, as given. */
export const text: Parser<string> = { read: (raw) => raw };

export function integer(min = 0, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return {
    read(raw, name, report) {
      const value = Number(raw);
      if (Number.isInteger(value) && value >= min && value <= max) return value;
      report(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return undefined;
    },
  };
}

/** A URL with one of `protocols` (`'https:'`), kept as written. */
export function url(protocols: string[]): Parser<string> {
  return {
    read(raw, name, report) {
      try {
        const parsed = new URL(raw);
        if (!protocols.includes(parsed.protocol))
          report(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
        return raw;
      } catch {
        report(`${name} is not a valid URL`);
        return undefined;
      }
    },
  };
}

/** A URL that paths are appended to: trailing slashes are dropped. */
export function baseUrl(protocols: string[]): Parser<string> {
  const asUrl = url(protocols);
  return { read: (raw, name, report) => asUrl.read(raw, name, report)?.replace(/\/+$/, '') };
}

/** A comma-separated list; blanks around and between items are ignored. */
export const list: Parser<string[]> = {
  read: (raw) =>
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
};

/** A comma-separated list of http(s) origins, each normalised to `scheme://host[:port]`. */
export const origins: Parser<string[]> = {
  read(raw, name, report) {
    const found: string[] = [];
    for (const item of list.read(raw, name, report) ?? []) {
      try {
        const parsed = new URL(item);
        if (
          (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
          (parsed.pathname !== '/' && parsed.pathname !== '') ||
          parsed.search ||
          parsed.hash
        )
          throw new Error();
        found.push(parsed.origin);
      } catch {
        report(`${name}: "${item}" is not an origin like https://app.example.com`);
      }
    }
    return found;
  },
};

/** A switch written on/off (true/false, 1/0 and yes/no are understood too), case and blanks ignored. */
export const flag: Parser<boolean> = {
  read(raw, name, report) {
    const value = raw.trim().toLowerCase();
    if (value === '') return undefined;
    if (['on', 'true', '1', 'yes'].includes(value)) return true;
    if (['off', 'false', '0', 'no'].includes(value)) return false;
    report(`${name} must be on or off (got "${raw}")`);
    return undefined;
  },
  show: (value) => (value ? 'on' : 'off'),
};

/** A boolean written exactly true/false or 1/0 (the S3 SDK's own spelling). */
export const bool: Parser<boolean> = {
  read(raw, name, report) {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    report(`${name} must be true or false (got "${raw}")`);
    return undefined;
  },
};

/** One of a few words; two read as "a or b". */
export function oneOf<const T extends string>(values: readonly T[]): Parser<T> {
  return {
    read(raw, name, report) {
      if ((values as readonly string[]).includes(raw)) return raw as T;
      report(
        values.length === 2
          ? `${name} must be ${values[0]} or ${values[1]} (got "${raw}")`
          : `${name} must be one of ${values.join(', ')}`,
      );
      return undefined;
    },
  };
}

export const email: Parser<string> = {
  read(raw, name, report) {
    if (!/^[^\s@]+@[^\s@]+$/.test(raw)) report(`${name} must be an email address`);
    return raw;
  },
};

/** A secret of at least `minLength` characters. */
export function secret(minLength: number): Parser<string> {
  return {
    read(raw, name, report) {
      if (raw.length < minLength) report(`${name} must be at least ${minLength} characters`);
      return raw;
    },
  };
}
