import { inflateSync } from 'node:zlib';

/**
 * The text layer of a PDF as pdfkit writes it, read as a viewer's copy or a text extractor reads it:
 * each `TJ` of its content streams is one line, its glyph codes turned to Unicode through the ToUnicode
 * map of the font the line is set in (`Tf`). A code no map names is read as U+FFFD, so a font without a
 * map (or a code missing from it) shows in the text. A character the font has no glyph for is another
 * matter: pdfkit sets it as the .notdef glyph, which its map names as U+0000, so it reads as '\u0000'
 * (not U+FFFD). Also the fonts, as the file declares them.
 * Enough for pdfkit's output (objects `n 0 obj … endobj`, Flate streams, `[<hex> n <hex>] TJ`); not a
 * general PDF reader.
 */
export interface PdfText {
  lines: string[];
  fonts: { resource: string; baseFont: string; subtype: string; toUnicode: boolean; embedded: boolean }[];
}

export function pdfText(pdf: Buffer): PdfText {
  const raw = pdf.toString('latin1');
  const objects = new Map<string, { dict: string; stream?: string }>();
  for (const match of raw.matchAll(/(\d+) 0 obj\r?\n([\s\S]*?)\r?\nendobj/g)) {
    const body = match[2]!;
    const at = body.search(/\bstream\r?\n/);
    if (at < 0) {
      objects.set(match[1]!, { dict: body });
      continue;
    }
    const dict = body.slice(0, at);
    const data = Buffer.from(body.slice(body.indexOf('\n', at) + 1).replace(/\r?\nendstream\s*$/, ''), 'latin1');
    objects.set(match[1]!, {
      dict,
      stream: (/\/Filter\s*\/FlateDecode/.test(dict) ? inflateSync(data) : data).toString('latin1'),
    });
  }
  const ref = (dict: string, key: string) => new RegExp(`/${key}\\s+(\\d+) 0 R`).exec(dict)?.[1];

  // the fonts' resource names (/F1) → their objects
  const resources = new Map<string, string>();
  for (const { dict } of objects.values()) {
    const fontDict = /\/Font\s*<<([^>]*)>>/.exec(dict);
    for (const entry of fontDict?.[1]?.matchAll(/\/(\w+)\s+(\d+) 0 R/g) ?? []) resources.set(entry[1]!, entry[2]!);
  }
  const maps = new Map<string, Map<number, string>>();
  const fonts: PdfText['fonts'] = [];
  for (const [resource, id] of resources) {
    const dict = objects.get(id)?.dict ?? '';
    const cmapId = ref(dict, 'ToUnicode');
    const map = new Map<number, string>();
    for (const range of objects.get(cmapId ?? '')?.stream?.matchAll(/<([0-9a-f]+)> <([0-9a-f]+)> \[([^\]]*)\]/gi) ??
      []) {
      const start = parseInt(range[1]!, 16);
      [...range[3]!.matchAll(/<([^>]*)>/g)].forEach((item, i) =>
        map.set(
          start + i,
          String.fromCharCode(
            ...item[1]!
              .trim()
              .split(/\s+/)
              .map((u) => parseInt(u, 16)),
          ),
        ),
      );
    }
    maps.set(resource, map);
    // embedded: its descriptor (its own, or its descendant CID font's) carries the font program
    const descendant = /\/DescendantFonts\s*\[\s*(\d+) 0 R/.exec(dict)?.[1];
    const descriptor = ref(dict, 'FontDescriptor') ?? ref(objects.get(descendant ?? '')?.dict ?? '', 'FontDescriptor');
    fonts.push({
      resource,
      baseFont: /\/BaseFont\s*\/([^\s/<>[\]]+)/.exec(dict)?.[1] ?? '',
      subtype: /\/Subtype\s*\/(\w+)/.exec(dict)?.[1] ?? '',
      toUnicode: cmapId !== undefined,
      embedded: /\/FontFile[23]?\s/.test(objects.get(descriptor ?? '')?.dict ?? ''),
    });
  }

  const lines: string[] = [];
  for (const { stream } of objects.values()) {
    if (!stream || !/\bBT\b/.test(stream)) continue;
    let font = '';
    for (const op of stream.matchAll(/\/(\w+)\s+[\d.]+\s+Tf|\[([^\]]*)\]\s*TJ/g)) {
      if (op[1] !== undefined) {
        font = op[1];
        continue;
      }
      const map = maps.get(font);
      const hex = [...op[2]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join('');
      let line = '';
      // a font with a map is a CID font (two bytes a code, Identity-H); without one, one byte a code
      if (map?.size)
        for (let i = 0; i < hex.length; i += 4) line += map.get(parseInt(hex.slice(i, i + 4), 16)) ?? '\ufffd';
      else line = Buffer.from(hex, 'hex').toString('latin1');
      lines.push(line);
    }
  }
  return { lines, fonts };
}
