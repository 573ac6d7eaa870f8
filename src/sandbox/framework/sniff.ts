// Content sniffing for the simulators: platforms look at the bytes, not at the declared type, so a simulator
// must too (a PNG declared as video/mp4 is refused).

export function sniff(data: Buffer): string | undefined {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (
    data.length >= 12 &&
    data.subarray(0, 4).toString('latin1') === 'RIFF' &&
    data.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  if (data.length >= 12 && data.subarray(4, 8).toString('latin1') === 'ftyp') {
    return data.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4';
  }
  if (data.length >= 4 && data.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) return 'video/webm';
  return undefined;
}

/** Width and height of a PNG, JPEG or GIF, when the header says (the simulators report aspect ratios). */
export function imageSize(data: Buffer): { width: number; height: number } | undefined {
  const type = sniff(data);
  if (type === 'image/png' && data.length >= 24) return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  if (type === 'image/gif' && data.length >= 10) return { width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
  if (type === 'image/jpeg') {
    let pos = 2;
    while (pos + 9 < data.length) {
      if (data[pos] !== 0xff) return undefined;
      const marker = data[pos + 1]!;
      const length = data.readUInt16BE(pos + 2);
      if (marker >= 0xc0 && marker <= 0xc3)
        return { height: data.readUInt16BE(pos + 5), width: data.readUInt16BE(pos + 7) };
      pos += 2 + length;
    }
  }
  return undefined;
}
