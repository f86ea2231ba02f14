/** The part of fontkit 2 (pdfkit's font engine, a dependency of its own here) that render.ts uses: no types ship with it. */
declare module 'fontkit' {
  export interface Font {
    hasGlyphForCodePoint(codePoint: number): boolean;
  }
  export function create(buffer: Buffer): Font;
}
