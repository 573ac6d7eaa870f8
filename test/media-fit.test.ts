// Images fitted to each platform, without a database: the plan decided from stored facts (what validation uses)
// and the conversion the variant job runs, on real files made here with sharp. Every format × every platform's
// image rules; EXIF orientation applied and GPS stripped (or kept when asked); pad and crop; the refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_LIMITS } from '../src/platforms/catalogue.ts';
import { PLATFORM_NAMES, type PlatformName } from '../src/platforms/limits.ts';
import { ConversionRefused, convertImage } from '../src/features/media/fit/convert.ts';
import { planImage, ruleKeyOf, type FitOptions } from '../src/features/media/fit/plan.ts';
import { bufferReader } from '../src/features/media/sniff/byte-reader.ts';
import { sniff } from '../src/features/media/sniff/sniff.ts';
import { animatedGif, inspectImage, meanOf, photo } from './helpers/photos.ts';

const strip: FitOptions = { fit: 'reject', keepMetadata: false };

/** The stored facts of a file, exactly as an upload records them (the sniffer). */
async function facts(data: Buffer, id = 'med_test') {
  const found = await sniff(bufferReader(data));
  return { id, contentType: found.contentType!, sizeBytes: data.length, width: found.width, height: found.height };
}

const MIME: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };

test('every format on every platform: the variant is a type the platform takes, within its bytes, pixels and aspect', async () => {
  // The JPEG: 1600×1200 with detail, over Bluesky's 1 MB and Instagram's 1440 px; the others smaller (the encoders
  // of PNG and AVIF are slow), all inside every aspect range.
  const sources = {
    'image/jpeg': await photo(1600, 1200, { gps: true, detail: 0.7 }),
    'image/png': await photo(800, 600, { format: 'png', detail: 0.6, gps: true }),
    'image/webp': await photo(800, 600, { format: 'webp', detail: 0.6 }),
    'image/avif': await photo(600, 450, { format: 'avif', detail: 0.6 }),
    'image/gif': await photo(400, 300, { format: 'gif', detail: 0.6 }),
  };
  assert.equal((await inspectImage(sources['image/png'])).gps, true, 'the PNG carries a position (eXIf)');
  const seen = new Set<string>();
  for (const [type, data] of Object.entries(sources)) {
    const stored = await facts(data);
    assert.equal(stored.contentType, type, 'the sniffer knows the format');
    // Every platform that takes images (YouTube takes none: a post with an image is refused before any fitting).
    for (const platform of PLATFORM_NAMES.filter((p) => PLATFORM_LIMITS[p].media.kinds.image)) {
      const limits = PLATFORM_LIMITS[platform];
      const rules = limits.media.imageFit!;
      const accepted = Object.values(limits.media.kinds).flatMap((k) => k.contentTypes);
      const plan = planImage(platform, limits, stored, strip);
      const where = `${type} on ${platform}`;
      assert.ok(plan && plan.kind !== 'refused', `${where}: ${JSON.stringify(plan)}`);
      if (plan.kind === 'original') {
        // Only what the platform takes, within its rules, and able to carry no EXIF (a still GIF), goes as it is.
        assert.ok(accepted.includes(type), where);
        assert.ok(data.length <= rules.maxBytes, where);
        assert.equal(type, 'image/gif', `${where}: a ${type} is always re-encoded`);
        continue;
      }
      for (const action of plan.actions) seen.add(action.split(' ')[0]!);
      if (!accepted.includes(type)) assert.ok(plan.actions.includes(`converted from ${type} to image/jpeg`), where);
      assert.ok(plan.actions.includes('metadata stripped'), where);
      const made = await convertImage(data, type, plan.spec);
      const out = await inspectImage(made.data);
      assert.ok(accepted.includes(MIME[out.format!] ?? `image/${out.format}`), `${where} → ${out.format}`);
      assert.equal(made.contentType, plan.contentType, where);
      assert.ok(made.data.length <= rules.maxBytes, `${where}: ${made.data.length} bytes`);
      assert.equal(out.width, made.width, where);
      assert.equal(out.height, made.height, where);
      if (rules.maxWidth) assert.ok(made.width <= rules.maxWidth, where);
      if (rules.maxHeight) assert.ok(made.height <= rules.maxHeight, where);
      if (rules.maxPixels) assert.ok(made.width * made.height <= rules.maxPixels, where);
      const ratio = made.width / made.height;
      if (rules.minAspect) assert.ok(ratio >= rules.minAspect - 0.01, where);
      if (rules.maxAspect) assert.ok(ratio <= rules.maxAspect + 0.01, where);
      // Scaled as announced, unless the byte limit made Herald shrink it further.
      assert.ok(made.width <= plan.width && made.height <= plan.height, where);
      assert.equal(out.exif, false, `${where}: metadata stripped`);
      assert.equal(out.gps, false, `${where}: no position`);
    }
  }
  assert.deepEqual([...seen].sort(), ['converted', 'metadata', 'recompressed', 'scaled'], 'every kind of fitting ran');
});

test('a phone photo: EXIF orientation applied (the size is the one shown), GPS stripped unless kept', async () => {
  // Stored 1200×900 landscape with orientation 6: shown as a 900×1200 portrait.
  const data = await photo(1200, 900, { orientation: 6, gps: true });
  const source = await inspectImage(data);
  assert.equal(source.orientation, 6);
  assert.equal(source.gps, true, 'the fixture has a GPS position');
  const stored = await facts(data);
  assert.deepEqual([stored.width, stored.height], [900, 1200], 'the sniffer reports the size as shown');

  const plan = planImage('bluesky', PLATFORM_LIMITS.bluesky, stored, strip);
  assert.equal(plan?.kind, 'variant');
  if (plan?.kind !== 'variant') return;
  const made = await convertImage(data, 'image/jpeg', plan.spec);
  const out = await inspectImage(made.data);
  assert.deepEqual([out.width, out.height], [900, 1200], 'upright pixels');
  assert.equal(out.orientation, 1);
  assert.equal(out.exif, false);
  assert.equal(out.gps, false, 'no position leaves Herald');
  // Upright: the gradient runs left to right in the stored pixels, so top to bottom once turned.
  const [top] = await meanOf(made.data, { left: 0, top: 0, width: 900, height: 100 });
  const [bottom] = await meanOf(made.data, { left: 0, top: 1100, width: 900, height: 100 });
  assert.ok(Math.abs(top! - bottom!) > 40, `the picture was turned (${top} vs ${bottom})`);

  // Kept when asked: a JPEG Bluesky takes as it is then goes as uploaded (the platform reads its orientation) …
  const asIs = planImage('bluesky', PLATFORM_LIMITS.bluesky, stored, { fit: 'reject', keepMetadata: true });
  assert.equal(asIs?.kind, 'original');
  // … and one that must be changed (padded to Instagram's 4:5) keeps its metadata in the variant, upright.
  const kept = planImage('instagram', PLATFORM_LIMITS.instagram, stored, { fit: 'pad', keepMetadata: true });
  assert.equal(kept?.kind, 'variant');
  if (kept?.kind !== 'variant') return;
  assert.ok(kept.actions.includes('metadata kept'));
  const stripped = planImage('instagram', PLATFORM_LIMITS.instagram, stored, { fit: 'pad', keepMetadata: false });
  assert.notEqual(
    kept.ruleKey,
    stripped?.kind === 'variant' && stripped.ruleKey,
    'keeping metadata is another variant',
  );
  const withMeta = await inspectImage((await convertImage(data, 'image/jpeg', kept.spec)).data);
  assert.equal(withMeta.gps, true, 'kept when asked');
  assert.equal(withMeta.orientation, 1, 'orientation reset: the pixels are upright');
  assert.deepEqual([withMeta.width, withMeta.height], [960, 1200]);
});

test("outside Instagram's aspect range: refused by default, naming the rule; padded or cropped when asked", async () => {
  const data = await photo(600, 1200, { detail: 0.2 }); // 1:2, taller than 4:5
  const stored = await facts(data, 'med_tall');
  const refused = planImage('instagram', PLATFORM_LIMITS.instagram, stored, strip);
  assert.equal(refused?.kind, 'refused');
  if (refused?.kind === 'refused') {
    assert.equal(refused.rule, 'media_aspect_ratio');
    assert.match(refused.message, /med_tall/);
    assert.match(refused.message, /Instagram/);
    assert.match(refused.message, /4:5 to 1\.91:1/);
    assert.match(refused.message, /media_fit/);
  }
  // Threads takes up to 10:1 either way: the same picture fits there as it is.
  assert.notEqual(planImage('threads', PLATFORM_LIMITS.threads, stored, strip)?.kind, 'refused');

  const pad = planImage('instagram', PLATFORM_LIMITS.instagram, stored, { fit: 'pad', keepMetadata: false });
  const crop = planImage('instagram', PLATFORM_LIMITS.instagram, stored, { fit: 'crop', keepMetadata: false });
  assert.ok(pad?.kind === 'variant' && crop?.kind === 'variant');
  assert.ok(pad.actions.includes('padded to 4:5'));
  assert.ok(crop.actions.includes('cropped to 4:5'));
  assert.deepEqual([pad.width, pad.height], [960, 1200]);
  assert.deepEqual([crop.width, crop.height], [600, 750]);

  const padded = await convertImage(data, 'image/jpeg', pad.spec);
  assert.deepEqual([padded.width, padded.height], [960, 1200]);
  assert.deepEqual(await meanOf(padded.data, { left: 0, top: 0, width: 100, height: 1200 }), [255, 255, 255]);
  const cropped = await convertImage(data, 'image/jpeg', crop.spec);
  assert.deepEqual([cropped.width, cropped.height], [600, 750]);
  const edge = await meanOf(cropped.data, { left: 0, top: 0, width: 50, height: 750 });
  assert.ok(
    edge.some((c) => c < 200),
    'cropped: no white border',
  );
});

test('what cannot be fitted is refused with a reason: unknown size, an animated GIF for a still-only platform', async () => {
  const unknown = planImage(
    'instagram',
    PLATFORM_LIMITS.instagram,
    { id: 'med_x', contentType: 'image/png', sizeBytes: 100, width: null, height: null },
    strip,
  );
  assert.equal(unknown?.kind, 'refused');
  assert.equal(unknown?.kind === 'refused' && unknown.rule, 'media_dimensions_unknown');

  const animated = animatedGif();
  assert.equal((await inspectImage(animated)).pages, 2);
  const plan = planImage('instagram', PLATFORM_LIMITS.instagram, await facts(animated), strip);
  assert.equal(plan?.kind, 'variant');
  if (plan?.kind !== 'variant') return;
  await assert.rejects(convertImage(animated, 'image/gif', plan.spec), (error: unknown) => {
    assert.ok(error instanceof ConversionRefused);
    assert.match(error.message, /animated GIF/);
    return true;
  });
  // Where GIFs are taken, the animation goes as it is.
  assert.equal(planImage('x', PLATFORM_LIMITS.x, await facts(animated), strip)?.kind, 'original');
  await assert.rejects(
    convertImage(Buffer.from('not an image at all'), 'image/png', plan.spec),
    (error: unknown) => error instanceof ConversionRefused,
  );
});

test('a rule key names the platform and changes with anything that changes the result', () => {
  const base = { kind: 'image', contentType: 'image/jpeg', maxBytes: 1 } as const;
  const platform: PlatformName = 'bluesky';
  assert.match(ruleKeyOf(platform, base), /^bluesky:[0-9a-f]{16}$/);
  assert.equal(
    ruleKeyOf(platform, base),
    ruleKeyOf(platform, { maxBytes: 1, contentType: 'image/jpeg', kind: 'image' }),
  );
  assert.notEqual(ruleKeyOf(platform, base), ruleKeyOf(platform, { ...base, maxBytes: 2 }));
  assert.notEqual(ruleKeyOf(platform, base), ruleKeyOf('x', base));
});
