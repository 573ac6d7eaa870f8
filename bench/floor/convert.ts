// The floor for the media-conversion benchmark: the same sharp pipeline Herald's variant job runs (orient, fit,
// scale, encode at falling quality until under the byte limit), called directly on files, at most 4 at once,
// without Herald's jobs, rows, storage or plans. Prints `{ "seconds": …, "growth": … }` (RSS growth of this
// process, peak minus the RSS before the first conversion).
//
//   node bench/floor/convert.ts <rules JSON> <file> [<file> …]
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';

interface Rule {
  maxBytes: number;
  maxWidth?: number;
  maxHeight?: number;
}

const [rulesJson, ...files] = process.argv.slice(2);
const rules = JSON.parse(rulesJson!) as Rule[];
const QUALITIES = [85, 78, 70, 62, 55, 48];
// The same libvips settings Herald's converter uses (src/features/media/fit/convert.ts).
sharp.cache(false);
sharp.concurrency(1);
const AT_ONCE = Number(process.env.BENCH_CONVERT_AT_ONCE ?? 4);

async function convert(input: Buffer, rule: Rule): Promise<number> {
  const meta = await sharp(input).metadata();
  let width = meta.autoOrient.width;
  let height = meta.autoOrient.height;
  const scale = Math.min(1, (rule.maxWidth ?? Infinity) / width, (rule.maxHeight ?? Infinity) / height);
  width = Math.floor(width * scale);
  height = Math.floor(height * scale);
  for (const quality of QUALITIES) {
    const data = await sharp(input)
      .autoOrient()
      .resize(width, height, { fit: 'fill' })
      .jpeg({ quality, optimiseCoding: false })
      .toBuffer();
    if (data.length <= rule.maxBytes) return data.length;
  }
  throw new Error('over the byte limit at every quality');
}

const rssNow = () => process.memoryUsage.rss();
const before = rssNow();
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, rssNow())), 25);
const work = files.flatMap((file) => rules.map((rule) => ({ file, rule })));
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    while (next < work.length) {
      const { file, rule } = work[next++]!;
      await convert(await readFile(file), rule);
      peak = Math.max(peak, rssNow());
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
process.stdout.write(`${JSON.stringify({ seconds, growth: peak - before, conversions: work.length })}\n`);
