// Chain text and a node's answers are hostile: printed raw, an ESC or a BEL could retitle the
// operator's terminal, clear it, or hide a line; a bidi override could reorder what it shows.
// Every command that prints such text to stdout/stderr goes through these.

// C0 (tab, CR and LF apart), DEL, C1 (0x9b is a one-byte CSI to many terminals), and the
// bidi embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// Line breaks would start a forged line of output.
const BREAK = /[\t\r\n\u2028\u2029]/g;

/** Text for one line of a terminal: line breaks and tabs become spaces, other control characters `?`. */
export function printable(text: string): string {
  return text.replace(BREAK, ' ').replace(CONTROL, '?');
}

// JSON.stringify escapes C0 already; these it leaves raw.
const JSON_RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One JSON line whose strings keep every character (escaped as \uXXXX, the same JSON value) but print no control. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
