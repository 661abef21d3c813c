// Text from a PTY is a byte stream; consoles get strings. A read can end in the middle of a
// multi-byte UTF-8 character (Tabby splits its output queue on UTF-8 boundaries for the same
// reason): decoding each read on its own would turn the halves into two U+FFFD. The decoder
// here carries the incomplete tail over to the next read. Once decoded, every cut the PTY layer
// makes (scrollback trimming, event splitting) is kept off the middle of a surrogate pair, so a
// character is never split after decoding either.
import { StringDecoder } from 'node:string_decoder';

export class Utf8Stream {
  private readonly decoder = new StringDecoder('utf8');

  /**
   * Strings pass through: node-pty's default stream already decodes with a StringDecoder, which
   * keeps a split character until its last byte arrives. Bytes are decoded here the same way.
   */
  write(chunk: string | Uint8Array): string {
    if (typeof chunk === 'string') return chunk;
    return this.decoder.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  /** What is left at the end of the stream (an incomplete character becomes U+FFFD). */
  end(): string {
    return this.decoder.end();
  }
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The nearest index at or after `i` that does not fall inside a surrogate pair. */
export function boundaryAtOrAfter(s: string, i: number): number {
  if (i <= 0) return 0;
  if (i >= s.length) return s.length;
  return isLowSurrogate(s.charCodeAt(i)) ? i + 1 : i;
}

/** The nearest index at or before `i` that does not fall inside a surrogate pair. */
export function boundaryAtOrBefore(s: string, i: number): number {
  if (i <= 0) return 0;
  if (i >= s.length) return s.length;
  return isLowSurrogate(s.charCodeAt(i)) ? i - 1 : i;
}

/** Splits `s` into pieces of at most `max` chars (one more for a pair at the edge), never inside a character. */
export function splitText(s: string, max: number): string[] {
  if (s.length <= max) return [s];
  const out: string[] = [];
  let from = 0;
  while (from < s.length) {
    let to = boundaryAtOrBefore(s, Math.min(s.length, from + max));
    if (to <= from) to = from + 2; // max < 2 and a pair at `from`: take the pair whole
    out.push(s.slice(from, to));
    from = to;
  }
  return out;
}
