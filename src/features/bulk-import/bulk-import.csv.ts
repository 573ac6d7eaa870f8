// Reading an import's CSV file (docs/queues.md "Bulk import"): UTF-8 (a byte-order mark is dropped), RFC 4180
// quoting (a cell may hold commas, quotes doubled, and new lines), the first line names the columns. Parsed by
// `csv-parse`; a file it cannot read is a 422 naming the line.
import { CsvError, parse } from 'csv-parse/sync';
import { validationFailed } from '../../app/errors.ts';

const refuse = (rule: string, message: string) =>
  validationFailed([{ platform: null, rule, message, path: '/media_id' }], message);

/** The records of the file, each a header → cell map; at most `limit` records are read (one more says "too many"). */
export function parseCsv(bytes: Buffer, limit: number): Record<string, string>[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw refuse('csv_not_utf8', 'The CSV file is not UTF-8 text: save it as "CSV UTF-8" and upload it again.');
  }
  try {
    return parse(text, {
      bom: true,
      skip_empty_lines: true,
      to: limit,
      columns: (header: string[]) => {
        const names = header.map((name) => name.trim());
        const repeated = names.find((name, i) => name !== '' && names.indexOf(name) !== i);
        if (repeated !== undefined) throw refuse('csv_column_repeated', `The column "${repeated}" appears twice.`);
        const blank = names.findIndex((name) => name === '');
        if (blank >= 0) throw refuse('csv_column_unnamed', `Column ${blank + 1} has no name in the header line.`);
        return names;
      },
    }) as Record<string, string>[];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw refuse('csv_invalid', `The CSV file cannot be read: ${error.message}`);
  }
}
