/**
 * An SGR-coded row string (as Ink or screen-rows writes it) cut into cells: a character and a canonical style per
 * column, the SGR list that recreates the cell after a reset, so two cells look the same exactly when their styles are
 * equal strings. Used by the differential output stage.
 */
import stringWidth from 'string-width';

/** Widths of the non-ASCII characters seen, bounded. */
const widths = new Map<string, number>();
const WIDTHS_MAX = 4096;

/** The width of one character, cached. */
function charWidth(ch: string): number {
  let w = widths.get(ch);
  if (w === undefined) {
    w = stringWidth(ch);
    if (widths.size < WIDTHS_MAX) widths.set(ch, w);
  }
  return w;
}

/** One row of cells; `chars[x]` is '' for the right half of a wide character. */
export interface CellRow {
  readonly chars: string[];
  readonly styles: string[];
}

const FLAG_CODES = ['1', '2', '3', '4', '5', '7', '8', '9'] as const;
const FLAG_BIT: Readonly<Record<number, number>> = { 1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 7: 5, 8: 6, 9: 7 };

/** A pen's state after a parameter list, by its state before (its key) and the list, bounded. */
const applied = new Map<string, { readonly flags: number; readonly fg: string; readonly bg: string; readonly key: string }>();
const APPLIED_MAX = 4096;

/** The style state while reading a row. */
class Pen {
  flags = 0;
  fg = '';
  bg = '';
  key = '';

  /** Applies one SGR parameter list (`1;38;2;1;2;3`); the same list on the same pen is looked up, not read again. */
  apply(params: string): void {
    const memo = `${this.key}|${params}`;
    const known = applied.get(memo);
    if (known) {
      this.flags = known.flags;
      this.fg = known.fg;
      this.bg = known.bg;
      this.key = known.key;
      return;
    }
    this.read(params);
    if (applied.size < APPLIED_MAX) applied.set(memo, { flags: this.flags, fg: this.fg, bg: this.bg, key: this.key });
  }

  private read(params: string): void {
    const p = params === '' ? [0] : params.split(/[;:]/).map((v) => (v === '' ? 0 : Number(v)));
    for (let i = 0; i < p.length; i++) {
      const n = p[i];
      if (n === 0) {
        this.flags = 0;
        this.fg = '';
        this.bg = '';
      } else if (FLAG_BIT[n] !== undefined) this.flags |= 1 << FLAG_BIT[n];
      else if (n === 22) this.flags &= ~0b11;
      else if (n === 23) this.flags &= ~(1 << 2);
      else if (n === 24) this.flags &= ~(1 << 3);
      else if (n === 25) this.flags &= ~(1 << 4);
      else if (n === 27) this.flags &= ~(1 << 5);
      else if (n === 28) this.flags &= ~(1 << 6);
      else if (n === 29) this.flags &= ~(1 << 7);
      else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) this.fg = `${n}`;
      else if (n === 39) this.fg = '';
      else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) this.bg = `${n}`;
      else if (n === 49) this.bg = '';
      else if (n === 38 || n === 48) {
        let value = '';
        if (p[i + 1] === 5 && i + 2 < p.length) {
          value = `${n};5;${p[i + 2]}`;
          i += 2;
        } else if (p[i + 1] === 2 && i + 4 < p.length) {
          value = `${n};2;${p[i + 2]};${p[i + 3]};${p[i + 4]}`;
          i += 4;
        } else break;
        if (n === 38) this.fg = value;
        else this.bg = value;
      }
    }
    this.key = this.canonical();
  }

  private canonical(): string {
    const parts: string[] = [];
    for (let b = 0; b < FLAG_CODES.length; b++) if (this.flags & (1 << b)) parts.push(FLAG_CODES[b]);
    if (this.fg) parts.push(this.fg);
    if (this.bg) parts.push(this.bg);
    return parts.join(';');
  }
}

/** A blank row of `cols` cells in the default style. */
export function blankRow(cols: number): CellRow {
  return { chars: new Array<string>(cols).fill(' '), styles: new Array<string>(cols).fill('') };
}

/** Cuts one SGR-coded row into exactly `cols` cells; other escape sequences are dropped. */
export function parseRow(text: string, cols: number): CellRow {
  const row = blankRow(cols);
  const pen = new Pen();
  let x = 0;
  let i = 0;
  while (i < text.length && x <= cols) {
    const c = text.charCodeAt(i);
    if (c === 0x1b) {
      i = escape(text, i, pen);
      continue;
    }
    if (c >= 0x20 && c < 0x7f) {
      if (x >= cols) break;
      row.chars[x] = text[i];
      row.styles[x] = pen.key;
      x++;
      i++;
      continue;
    }
    const cp = text.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) continue;
    const width = charWidth(ch);
    if (width === 0) {
      if (x > 0) row.chars[x - 1] += ch; // a combining mark joins the previous cell
      continue;
    }
    if (x + width > cols) break;
    row.chars[x] = ch;
    row.styles[x] = pen.key;
    if (width === 2) {
      row.chars[x + 1] = '';
      row.styles[x + 1] = pen.key;
    }
    x += width;
  }
  return row;
}

/** Skips one escape sequence at `i`, applying it when it is an SGR; returns the next index. */
function escape(text: string, i: number, pen: Pen): number {
  const next = text[i + 1];
  if (next === '[') {
    let j = i + 2;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) break;
      j++;
    }
    if (text[j] === 'm') pen.apply(text.slice(i + 2, j));
    return j + 1;
  }
  if (next === ']') {
    // OSC (hyperlinks): up to BEL or ST.
    let j = i + 2;
    while (j < text.length && text[j] !== '\x07' && !(text[j] === '\x1b' && text[j + 1] === '\\')) j++;
    return text[j] === '\x07' ? j + 1 : j + 2;
  }
  return i + 2;
}
