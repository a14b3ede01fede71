import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { channels } from './registry.js';

// One folder per channel, one registry line: this fails when a folder is not registered, or
// a registered channel lacks its docs, its place in the channel contract test, or the
// `…File` variant of a secret it declares.
describe('channel registry', () => {
  const folders = readdirSync('src/channels', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const docs = readFileSync('docs/delivery.md', 'utf8').toLowerCase();
  const contract = readFileSync('test/integration/channels.test.ts', 'utf8');

  it('registers every channel folder under its folder name', () => {
    expect(Object.keys(channels).sort()).toEqual(folders.sort());
  });

  for (const [type, channel] of Object.entries(channels)) {
    it(`${type}: has a docs/delivery.md section and a receiver in the channel contract test`, () => {
      expect(docs).toContain(`## ${type}\n`);
      expect(contract).toContain(`type: ${type},`);
    });

    it(`${type}: each secret it declares is a key of its schema, with a …File variant`, () => {
      for (const f of channel.secretFields) {
        let shape = channel.schema.shape as Record<string, unknown>;
        for (const key of f.path) shape = unwrap(shape[key]);
        expect(Object.keys(shape), `${[...f.path, f.key].join('.')}`).toEqual(expect.arrayContaining([f.key, `${f.key}File`]));
      }
    });
  }
});

/** The object shape inside an optional/default wrapper. */
function unwrap(schema: unknown): Record<string, unknown> {
  let s = schema as { shape?: Record<string, unknown>; unwrap?: () => unknown; def?: { innerType?: unknown } };
  for (let i = 0; i < 5 && !s.shape; i++) s = (s.unwrap?.() ?? s.def?.innerType) as typeof s;
  return s.shape ?? {};
}
