// Text the kinds share in their alerts.

/** An ISO time for a timestamp the service sent; one outside Date's range is shown as it came. */
export function isoSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? `${seconds} (not a valid time)` : date.toISOString().replace('.000Z', 'Z');
}

/**
 * A service's error text as an alert may quote it: an HTML page (a proxy's 503) reads as its
 * title, or its text without markup; a JSON body cut short as its message; control characters
 * and runs of white space become one space; cut at `max` on a word boundary, so a token is never split (the engine scrubs
 * secrets after the kind, and half a key is no longer recognised as one). A token longer than
 * `max` is left out whole.
 */
export function excerpt(text: string, max = 200): string {
  // A JSON body over the client's 64 KB cut is quoted raw by it: its message, as far as it
  // came, without the word it was cut in.
  const json = /\{\s*"message"\s*:\s*"((?:[^"\\]|\\.)*)(")?/.exec(text);
  if (json) text = text.slice(0, json.index) + (json[2] === undefined ? (json[1] ?? '').replace(/\S*$/, '…') : json[1]);
  const title = /<title[^>]*>([^<]*)<\/title/i.exec(text)?.[1];
  const bare = title === undefined ? text.replace(/<[^>]*>?/g, ' ') : text.slice(0, text.search(/<[!a-z]/i)) + title;
  // eslint-disable-next-line no-control-regex -- control characters are what goes
  const flat = bare.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const end = cut.lastIndexOf(' ');
  return end > 0 ? `${cut.slice(0, end)} …` : '…';
}
